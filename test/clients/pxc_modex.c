/*
 * pxc_modex.c - checks reserved job/node/proc keys (--check-keys) and the visibility of
 * PMIX_LOCAL / PMIX_REMOTE / PMIX_GLOBAL keys after a fence with or without data
 * collection, or without any fence (direct modex).
 * Usage: pxc_modex [--fence collect|nocollect|none] [--check-keys] [--nodes K]
 *                  [--exclude R]... [--rounds N] [--pair-fences]
 * With --rounds N the put/commit/fence/get cycle runs N times with new keys each time
 * (fences with the same participants, one after the other). With --pair-fences every
 * rank then fences with collection over just itself and its partner (rank + N/2), all
 * pairs at the same time, and gets the partner's new key.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pxc_common.h"

static int nranks, nnodes = 1, round_no;
static bool excluded[4096];
static pmix_proc_t me;

/* ---- reserved keys ---- */

static pmix_value_t *get(int rank, const char *key, pmix_status_t *rc, bool optional)
{
    pmix_proc_t p;
    pmix_value_t *val = NULL;
    pmix_info_t info;
    bool t = true;

    PMIx_Load_procid(&p, me.nspace, rank < 0 ? PMIX_RANK_WILDCARD : (pmix_rank_t)rank);
    PMIx_Info_load(&info, PMIX_OPTIONAL, &t, PMIX_BOOL);
    *rc = PMIx_Get(&p, key, optional ? &info : NULL, optional ? 1 : 0, &val);
    PMIx_Info_destruct(&info);
    return *rc == PMIX_SUCCESS ? val : NULL;
}

static const char *who(int rank, char *buf, size_t sz)
{
    if (rank < 0)
        snprintf(buf, sz, "rank WILDCARD");
    else
        snprintf(buf, sz, "rank %d", rank);
    return buf;
}

static pmix_value_t *must_get(int rank, const char *key, pmix_data_type_t type)
{
    pmix_status_t rc;
    pmix_value_t *v = get(rank, key, &rc, false);
    char b[32];

    if (!v)
        pxc_fail("PMIx_Get(%s, %s) failed: %s", key, who(rank, b, sizeof(b)),
                 PMIx_Error_string(rc));
    if (v->type != type)
        pxc_fail("PMIx_Get(%s, %s): expected type %s, got %s", key, who(rank, b, sizeof(b)),
                 PMIx_Data_type_string(type), PMIx_Data_type_string(v->type));
    return v;
}

static void check_u32(int rank, const char *key, uint32_t want)
{
    pmix_value_t *v = must_get(rank, key, PMIX_UINT32);
    char b[32];

    if (v->data.uint32 != want)
        pxc_fail("PMIx_Get(%s, %s): expected %u, got %u", key, who(rank, b, sizeof(b)), want,
                 v->data.uint32);
    PMIx_Value_free(v, 1);
}

static void check_u16(int rank, const char *key, uint16_t want)
{
    pmix_value_t *v = must_get(rank, key, PMIX_UINT16);
    char b[32];

    if (v->data.uint16 != want)
        pxc_fail("PMIx_Get(%s, %s): expected %u, got %u", key, who(rank, b, sizeof(b)), want,
                 v->data.uint16);
    PMIx_Value_free(v, 1);
}

static void check_str(int rank, const char *key, const char *want)
{
    pmix_value_t *v = must_get(rank, key, PMIX_STRING);
    char b[32];

    if (!v->data.string || strcmp(v->data.string, want) != 0)
        pxc_fail("PMIx_Get(%s, %s): expected \"%s\", got \"%s\"", key, who(rank, b, sizeof(b)),
                 want, v->data.string ? v->data.string : "(null)");
    PMIx_Value_free(v, 1);
}

static void check_dir(const char *key, bool required)
{
    pmix_status_t rc;
    pmix_value_t *v = get(-1, key, &rc, true);
    struct stat st;

    if (!v) {
        if (required)
            pxc_fail("PMIx_Get(%s, rank WILDCARD): %s; the server provides it", key,
                     PMIx_Error_string(rc));
        if (rc != PMIX_ERR_NOT_FOUND)
            pxc_fail("PMIx_Get(%s, rank WILDCARD, optional): expected success or "
                     "PMIX_ERR_NOT_FOUND, got %s",
                     key, PMIx_Error_string(rc));
        return;
    }
    if (v->type != PMIX_STRING || !v->data.string)
        pxc_fail("PMIx_Get(%s): expected a PMIX_STRING, got %s", key,
                 PMIx_Data_type_string(v->type));
    if (stat(v->data.string, &st) != 0 || !S_ISDIR(st.st_mode))
        pxc_fail("PMIx_Get(%s) = \"%s\", which is not an existing directory", key, v->data.string);
    PMIx_Value_free(v, 1);
}

static void check_keys(void)
{
    int r = (int)me.rank, node = pxc_node_of(nranks, nnodes, r);
    int start = pxc_node_start(nranks, nnodes, node), count = pxc_node_count(nranks, nnodes, node);
    char peers[4096] = "", host[32];
    int peer, far;

    for (int i = start; i < start + count; i++)
        snprintf(peers + strlen(peers), sizeof(peers) - strlen(peers), i > start ? ",%d" : "%d", i);
    snprintf(host, sizeof(host), "pxnode%d", node);
    check_u32(-1, PMIX_JOB_SIZE, (uint32_t)nranks);
    check_u32(-1, PMIX_UNIV_SIZE, (uint32_t)nranks);
    check_u32(-1, PMIX_MAX_PROCS, (uint32_t)nranks);
    check_u32(-1, PMIX_NUM_NODES, (uint32_t)nnodes);
    check_u32(-1, PMIX_LOCAL_SIZE, (uint32_t)count);
    check_str(-1, PMIX_LOCAL_PEERS, peers);
    check_u16(r, PMIX_LOCAL_RANK, (uint16_t)(r - start));
    check_u16(r, PMIX_NODE_RANK, (uint16_t)(r - start));
    check_u32(r, PMIX_APPNUM, 0);
    check_str(r, PMIX_HOSTNAME, host);
    check_u32(r, PMIX_NODEID, (uint32_t)node);
    check_dir(PMIX_TMPDIR, true); /* the server's tmpdir unless the host names one */
    check_dir(PMIX_NSDIR, false);
    /* a peer on the same node, and one on the next node */
    peer = start + (r - start + 1) % count;
    far = pxc_node_start(nranks, nnodes, (node + 1) % nnodes);
    for (int k = 0; k < 2; k++) {
        int p = k ? far : peer, pn = pxc_node_of(nranks, nnodes, p);
        snprintf(host, sizeof(host), "pxnode%d", pn);
        check_u16(p, PMIX_LOCAL_RANK, (uint16_t)(p - pxc_node_start(nranks, nnodes, pn)));
        check_str(p, PMIX_HOSTNAME, host);
        check_u32(p, PMIX_NODEID, (uint32_t)pn);
    }
}

/* ---- put / fence / get ---- */

static void value_for(int rank, int kind, pmix_value_t *v, char *buf, size_t sz)
{
    if (kind == 0) { /* loc: string */
        snprintf(buf, sz, "local-value-of-rank-%d-round-%d", rank, round_no);
        v->type = PMIX_STRING;
        v->data.string = buf;
    } else if (kind == 1) { /* rem: uint64 */
        v->type = PMIX_UINT64;
        v->data.uint64 = 0x100000000ULL + (uint64_t)rank * 7919 + (uint64_t)round_no * 1000003;
    } else { /* glob: byte object of a few hundred bytes */
        size_t n = 300 + (size_t)((rank + round_no) % 17);
        for (size_t i = 0; i < n && i < sz; i++)
            buf[i] = (char)((rank * 31 + round_no * 7 + (int)i) & 0xff);
        v->type = PMIX_BYTE_OBJECT;
        v->data.bo.bytes = buf;
        v->data.bo.size = n;
    }
}

static const char *kinds[] = {"loc", "rem", "glob"};

static void put_keys(void)
{
    pmix_scope_t scopes[] = {PMIX_LOCAL, PMIX_REMOTE, PMIX_GLOBAL};
    char key[64], buf[512];

    for (int k = 0; k < 3; k++) {
        pmix_value_t v;
        pmix_status_t rc;

        value_for((int)me.rank, k, &v, buf, sizeof(buf));
        snprintf(key, sizeof(key), "%s.%u.%d", kinds[k], me.rank, round_no);
        rc = PMIx_Put(scopes[k], key, &v);
        if (rc != PMIX_SUCCESS)
            pxc_fail("PMIx_Put(%s, %s) failed: %s", PMIx_Scope_string(scopes[k]), key,
                     PMIx_Error_string(rc));
    }
    if (PMIx_Commit() != PMIX_SUCCESS)
        pxc_fail("PMIx_Commit failed");
}

static pmix_proc_t *participants(size_t *n)
{
    pmix_proc_t *procs = calloc((size_t)nranks, sizeof(pmix_proc_t));
    bool any = false;

    *n = 0;
    for (int r = 0; r < nranks; r++)
        any |= excluded[r];
    if (!any) {
        PMIx_Load_procid(&procs[0], me.nspace, PMIX_RANK_WILDCARD);
        *n = 1;
        return procs;
    }
    for (int r = 0; r < nranks; r++) {
        if (!excluded[r])
            PMIx_Load_procid(&procs[(*n)++], me.nspace, (pmix_rank_t)r);
    }
    return procs;
}

static void fence(const char *mode)
{
    size_t n;
    pmix_proc_t *procs = participants(&n);
    pmix_info_t info;
    bool collect = strcmp(mode, "collect") == 0;
    pmix_status_t rc;

    PMIx_Info_load(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(procs, n, strcmp(mode, "final") ? &info : NULL, strcmp(mode, "final") ? 1 : 0);
    PMIx_Info_destruct(&info);
    free(procs);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Fence (%s) failed: %s", mode, PMIx_Error_string(rc));
}

static bool same_value(const pmix_value_t *a, const pmix_value_t *b)
{
    if (a->type != b->type)
        return false;
    switch (a->type) {
    case PMIX_STRING:
        return a->data.string && strcmp(a->data.string, b->data.string) == 0;
    case PMIX_UINT64:
        return a->data.uint64 == b->data.uint64;
    case PMIX_BYTE_OBJECT:
        return a->data.bo.size == b->data.bo.size &&
               memcmp(a->data.bo.bytes, b->data.bo.bytes, a->data.bo.size) == 0;
    default:
        return false;
    }
}

static void check_peer(int peer)
{
    bool local = pxc_node_of(nranks, nnodes, peer) == pxc_node_of(nranks, nnodes, (int)me.rank);
    char key[64], buf[512];
    pmix_proc_t p;
    pmix_info_t info;
    int timeout = 5;

    PMIx_Load_procid(&p, me.nspace, (pmix_rank_t)peer);
    /* bounded: a wrong answer must show as a failure, not a hang */
    PMIx_Info_load(&info, PMIX_TIMEOUT, &timeout, PMIX_INT);
    for (int k = 2; k >= 0; k--) {
        pmix_value_t want, *got = NULL;
        pmix_status_t rc;
        bool visible = k == 2 || (k == 0 && local) || (k == 1 && !local);

        if (peer == (int)me.rank && k != 2)
            continue;
        value_for(peer, k, &want, buf, sizeof(buf));
        snprintf(key, sizeof(key), "%s.%d.%d", kinds[k], peer, round_no);
        rc = PMIx_Get(&p, key, &info, 1, &got);
        if (visible && rc != PMIX_SUCCESS)
            pxc_fail("PMIx_Get(%s) from rank %d (%s node): expected the value, got %s", key, peer,
                     local ? "same" : "other", PMIx_Error_string(rc));
        if (!visible && rc != PMIX_ERR_NOT_FOUND)
            pxc_fail("PMIx_Get(%s) from rank %d (%s node): expected PMIX_ERR_NOT_FOUND, got %s",
                     key, peer, local ? "same" : "other", PMIx_Error_string(rc));
        if (visible && !same_value(&want, got)) {
            char *s = PMIx_Value_string(got);
            pxc_fail("PMIx_Get(%s) from rank %d: expected %s of rank %d, got %s", key, peer,
                     PMIx_Data_type_string(want.type), peer, s ? s : "?");
        }
        if (got)
            PMIx_Value_free(got, 1);
    }
    PMIx_Info_destruct(&info);
}

static void pair_fence(void)
{
    int partner = ((int)me.rank + nranks / 2) % nranks;
    pmix_proc_t pair[2];
    pmix_value_t v, *got = NULL;
    pmix_info_t info;
    bool collect = true;
    char key[64];
    pmix_status_t rc;

    if (nranks % 2)
        pxc_fail("--pair-fences needs an even number of ranks, got %d", nranks);
    snprintf(key, sizeof(key), "pair.%u", me.rank);
    v.type = PMIX_UINT32;
    v.data.uint32 = 5000 + me.rank;
    rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Put/Commit(%s) failed: %s", key, PMIx_Error_string(rc));
    PMIx_Load_procid(&pair[0], me.nspace, me.rank);
    PMIx_Load_procid(&pair[1], me.nspace, (pmix_rank_t)partner);
    PMIx_Info_load(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(pair, 2, &info, 1);
    PMIx_Info_destruct(&info);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Fence over ranks %u and %d failed: %s", me.rank, partner,
                 PMIx_Error_string(rc));
    snprintf(key, sizeof(key), "pair.%d", partner);
    rc = PMIx_Get(&pair[1], key, NULL, 0, &got);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Get(%s) from rank %d after the pair fence failed: %s", key, partner,
                 PMIx_Error_string(rc));
    if (got->type != PMIX_UINT32 || got->data.uint32 != 5000u + (unsigned)partner)
        pxc_fail("PMIx_Get(%s) from rank %d: expected PMIX_UINT32 %d", key, partner,
                 5000 + partner);
    PMIx_Value_free(got, 1);
}

int main(int argc, char **argv)
{
    const char *mode = "collect";
    bool keys = false;
    int rounds = 1;
    bool pairs = false;
    pmix_status_t rc;

    pxc_name = "pxc_modex";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--fence") == 0 && i + 1 < argc)
            mode = argv[++i];
        else if (strcmp(argv[i], "--check-keys") == 0)
            keys = true;
        else if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc)
            nnodes = pxc_parse_int("--nodes", argv[++i]);
        else if (strcmp(argv[i], "--pair-fences") == 0)
            pairs = true;
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = pxc_parse_int("--rounds", argv[++i]);
        else if (strcmp(argv[i], "--exclude") == 0 && i + 1 < argc)
            excluded[pxc_parse_int("--exclude", argv[++i]) % 4096] = true;
        else {
            fprintf(stderr, "pxc_modex: unknown argument \"%s\"\n", argv[i]);
            return 2;
        }
    }
    if (strcmp(mode, "collect") && strcmp(mode, "nocollect") && strcmp(mode, "none")) {
        fprintf(stderr, "pxc_modex: --fence wants collect, nocollect or none\n");
        return 2;
    }
    pxc_init(&me, &nranks);
    if (nnodes < 1 || nnodes > nranks)
        pxc_fail("--nodes %d does not fit a job of %d ranks", nnodes, nranks);
    if (keys)
        check_keys();
    for (round_no = 0; round_no < rounds; round_no++) {
        put_keys();
        if (strcmp(mode, "none") != 0)
            fence(mode);
        for (int r = 0; r < nranks; r++) {
            if (!excluded[r])
                check_peer(r);
        }
    }
    if (pairs)
        pair_fence();
    fence("final");
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Finalize failed: %s", PMIx_Error_string(rc));
    return 0;
}
