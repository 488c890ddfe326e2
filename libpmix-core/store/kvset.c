/* store: the key/value set (an array of pmix_info_t) and the posted-data blob format.
 * Pure data structures; the owner's lock protects them.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "store/px_store.h"
#include "util/px_names.h"

void px_kvset_init(px_kvset_t *s)
{
    memset(s, 0, sizeof(*s));
}

void px_kvset_fini(px_kvset_t *s)
{
    if (s == NULL) {
        return;
    }
    for (size_t i = 0; i < s->n; i++) {
        PMIx_Value_destruct(&s->kv[i].value);
    }
    free(s->kv);
    memset(s, 0, sizeof(*s));
}

static pmix_info_t *kvset_find(const px_kvset_t *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++) {
        if (strncmp(s->kv[i].key, key, PMIX_MAX_KEYLEN) == 0) {
            return &s->kv[i];
        }
    }
    return NULL;
}

pmix_status_t px_kvset_put(px_kvset_t *s, const char *key, const pmix_value_t *val)
{
    if (key == NULL || val == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_value_t copy;
    PMIx_Value_construct(&copy);
    pmix_status_t rc = PMIx_Value_xfer(&copy, val);
    if (rc != PMIX_SUCCESS) {
        PMIx_Value_destruct(&copy);
        return rc;
    }
    pmix_info_t *slot = kvset_find(s, key);
    if (slot != NULL) {
        PMIx_Value_destruct(&slot->value);
        slot->value = copy;
        return PMIX_SUCCESS;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        pmix_info_t *kv = realloc(s->kv, cap * sizeof(*kv));
        if (kv == NULL) {
            PMIx_Value_destruct(&copy);
            return PMIX_ERR_NOMEM;
        }
        s->kv = kv;
        s->cap = cap;
    }
    slot = &s->kv[s->n++];
    memset(slot, 0, sizeof(*slot));
    PMIX_LOAD_KEY(slot->key, key);
    slot->value = copy;
    return PMIX_SUCCESS;
}

const pmix_value_t *px_kvset_get(const px_kvset_t *s, const char *key)
{
    const pmix_info_t *slot = kvset_find(s, key);
    return slot ? &slot->value : NULL;
}

pmix_status_t px_kvset_put_infos(px_kvset_t *dst, const pmix_info_t *info, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        pmix_status_t rc = px_kvset_put(dst, info[i].key, &info[i].value);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t px_kvset_merge(px_kvset_t *dst, const px_kvset_t *src)
{
    return px_kvset_put_infos(dst, src->kv, src->n);
}

/* Derived values take the type the attribute table gives the key. */
pmix_status_t px_kvset_put_num(px_kvset_t *s, const char *key, uint64_t v, bool only_if_absent)
{
    if (only_if_absent && kvset_find(s, key) != NULL) {
        return PMIX_SUCCESS;
    }
    const struct px_abi_attr *a = px_names_attr_by_key(key);
    pmix_data_type_t t = a ? a->type : PMIX_UINT64;
    pmix_value_t num, val;
    PMIx_Value_construct(&num);
    PMIx_Value_construct(&val);
    num.type = PMIX_UINT64;
    num.data.uint64 = v;
    val.type = t;
    /* the registry's number conversion into the key's type; a key whose type is not a
     * number (or a number that does not fit it) keeps the plain UINT64 */
    if (PMIx_Value_get_number(&num, &val.data, t) != PMIX_SUCCESS) {
        val = num;
    }
    return px_kvset_put(s, key, &val);
}

pmix_status_t px_kvset_put_str(px_kvset_t *s, const char *key, const char *v, bool only_if_absent)
{
    if (only_if_absent && kvset_find(s, key) != NULL) {
        return PMIX_SUCCESS;
    }
    pmix_value_t val;
    PMIx_Value_construct(&val);
    val.type = PMIX_STRING;
    val.data.string = (char *)v; /* copied by put */
    return px_kvset_put(s, key, &val);
}

/* ---- blobs ---- */

pmix_status_t px_blob_pack(pmix_data_buffer_t *buf, const char *nspace, pmix_rank_t rank,
                           const px_kvset_t *set)
{
    pmix_proc_t proc;
    PMIx_Load_procid(&proc, nspace, rank);
    pmix_status_t rc = px_bfrops_pack(buf, &proc, 1, PMIX_PROC);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(buf, set->kv, set->n);
    }
    return rc;
}

pmix_status_t px_blob_next(pmix_data_buffer_t *buf, pmix_proc_t *proc, pmix_info_t **info,
                           size_t *ninfo)
{
    *info = NULL;
    *ninfo = 0;
    if (px_bfrops_buf_remaining(buf) == 0) {
        return PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
    }
    int32_t n = 1;
    pmix_status_t rc = px_bfrops_unpack(buf, proc, &n, PMIX_PROC);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    return px_bfrops_unpack_info_array(buf, info, ninfo);
}
