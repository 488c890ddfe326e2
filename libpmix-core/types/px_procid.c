/* types: keys, namespaces and process IDs - load/check helpers behind PMIX_LOAD_KEY,
 * PMIX_CHECK_NSPACE, PMIX_CHECK_PROCID ... and the multicluster namespace helpers.
 * Pure functions on caller memory; any thread. */
#include <string.h>

#include <pmix.h>

/* Zero the whole key, then copy at most PMIX_MAX_KEYLEN characters (NULL: empty). */
void PMIx_Load_key(pmix_key_t key, const char *src)
{
    if (NULL == key) {
        return;
    }
    memset(key, 0, PMIX_MAX_KEYLEN + 1);
    if (NULL != src) {
        memcpy(key, src, strnlen(src, PMIX_MAX_KEYLEN));
    }
}

/* Equal up to PMIX_MAX_KEYLEN characters; a NULL side only matches NULL. */
bool PMIx_Check_key(const char *key, const char *str)
{
    if (NULL == key || NULL == str) {
        return key == str;
    }
    return 0 == strncmp(key, str, PMIX_MAX_KEYLEN);
}

/* Keys starting with "pmix" belong to the Standard. */
bool PMIx_Check_reserved_key(const char *key)
{
    return NULL != key && 0 == strncmp(key, "pmix", 4);
}

/* Zero the whole namespace, then copy at most PMIX_MAX_NSLEN characters (NULL: empty). */
void PMIx_Load_nspace(pmix_nspace_t nspace, const char *str)
{
    if (NULL == nspace) {
        return;
    }
    memset(nspace, 0, PMIX_MAX_NSLEN + 1);
    if (NULL != str) {
        memcpy(nspace, str, strnlen(str, PMIX_MAX_NSLEN));
    }
}

bool PMIx_Nspace_invalid(const char *nspace)
{
    return NULL == nspace || '\0' == nspace[0];
}

/* Equal namespaces, or either one NULL/empty (a wildcard). */
bool PMIx_Check_nspace(const char *key1, const char *key2)
{
    if (PMIx_Nspace_invalid(key1) || PMIx_Nspace_invalid(key2)) {
        return true;
    }
    return 0 == strncmp(key1, key2, PMIX_MAX_NSLEN);
}

void PMIx_Load_procid(pmix_proc_t *p, const char *ns, pmix_rank_t rk)
{
    if (NULL == p) {
        return;
    }
    PMIx_Load_nspace(p->nspace, ns);
    p->rank = rk;
}

void PMIx_Xfer_procid(pmix_proc_t *dst, const pmix_proc_t *src)
{
    if (NULL == dst || NULL == src || dst == src) {
        return;
    }
    memcpy(dst, src, sizeof(*dst));
}

bool PMIx_Check_rank(pmix_rank_t a, pmix_rank_t b)
{
    return a == b || PMIX_RANK_WILDCARD == a || PMIX_RANK_WILDCARD == b;
}

bool PMIx_Check_procid(const pmix_proc_t *a, const pmix_proc_t *b)
{
    if (NULL == a || NULL == b) {
        return a == b;
    }
    return PMIx_Check_nspace(a->nspace, b->nspace) && PMIx_Check_rank(a->rank, b->rank);
}

/* Ordinary ranks only: every special value (UNDEF, WILDCARD, LOCAL_*, INVALID, VALID
 * and the range reserved above PMIX_RANK_VALID) is not valid. */
bool PMIx_Rank_valid(pmix_rank_t a)
{
    return a < PMIX_RANK_VALID;
}

bool PMIx_Procid_invalid(const pmix_proc_t *p)
{
    return NULL == p || PMIx_Nspace_invalid(p->nspace) || PMIX_RANK_INVALID == p->rank;
}

/* target = "<cluster>:<nspace>" when that fits in PMIX_MAX_NSLEN characters; otherwise
 * target is left empty. */
void PMIx_Multicluster_nspace_construct(pmix_nspace_t target, pmix_nspace_t cluster,
                                        pmix_nspace_t nspace)
{
    size_t lc, ln;

    if (NULL == target) {
        return;
    }
    lc = NULL == cluster ? 0 : strnlen(cluster, PMIX_MAX_NSLEN);
    ln = NULL == nspace ? 0 : strnlen(nspace, PMIX_MAX_NSLEN);
    memset(target, 0, PMIX_MAX_NSLEN + 1);
    if (lc + 1 + ln > PMIX_MAX_NSLEN) {
        return;
    }
    if (0 < lc) {
        memcpy(target, cluster, lc);
    }
    target[lc] = ':';
    if (0 < ln) {
        memcpy(target + lc + 1, nspace, ln);
    }
}

/* Split target at its first ':' into cluster (before) and nspace (after). Without a
 * ':' the cluster is empty and nspace is a copy of target. */
void PMIx_Multicluster_nspace_parse(pmix_nspace_t target, pmix_nspace_t cluster,
                                    pmix_nspace_t nspace)
{
    size_t len, i;

    if (NULL != cluster) {
        memset(cluster, 0, PMIX_MAX_NSLEN + 1);
    }
    if (NULL != nspace) {
        memset(nspace, 0, PMIX_MAX_NSLEN + 1);
    }
    if (NULL == target) {
        return;
    }
    len = strnlen(target, PMIX_MAX_NSLEN);
    for (i = 0; i < len && ':' != target[i]; i++) {
    }
    if (i == len) {
        if (NULL != nspace) {
            memcpy(nspace, target, len);
        }
        return;
    }
    if (NULL != cluster) {
        memcpy(cluster, target, i);
    }
    if (NULL != nspace) {
        memcpy(nspace, target + i + 1, len - i - 1);
    }
}
