/* daemon: encode/decode of the protocol's stdin, output, fence, direct-modex, abort and
 * job-control messages (docs/PROTOCOL.md), and the controller's decoder of what daemons
 * send. Pure code on bfrops; any thread. Byte objects are decoded as views into the
 * payload (px_bfrops_unpack_bo_view): bulk data is never copied by the decoder.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "daemon/dproto_int.h"
#include "daemon/px_dproto.h"

/* ---- helpers ---- */

static pmix_status_t pack_rank(pmix_data_buffer_t *buf, pmix_rank_t r)
{
    return px_bfrops_pack(buf, &r, 1, PMIX_PROC_RANK);
}

static pmix_status_t unpack_rank(pmix_data_buffer_t *buf, pmix_rank_t *r)
{
    int32_t one = 1;
    return px_bfrops_unpack(buf, r, &one, PMIX_PROC_RANK);
}

static pmix_status_t pack_target(pmix_data_buffer_t *buf, const pmix_proc_t *p)
{
    pmix_status_t rc = px_dpi_pack_nspace(buf, p->nspace);
    return rc == PMIX_SUCCESS ? pack_rank(buf, p->rank) : rc;
}

static pmix_status_t unpack_target(pmix_data_buffer_t *buf, pmix_proc_t *p)
{
    memset(p, 0, sizeof(*p));
    pmix_status_t rc = px_dpi_unpack_nspace(buf, p->nspace);
    return rc == PMIX_SUCCESS ? unpack_rank(buf, &p->rank) : rc;
}

/* A whole PROC item of one, with a non-empty namespace. */
pmix_status_t px_dpi_unpack_proc(pmix_data_buffer_t *buf, pmix_proc_t *p)
{
    int32_t one = 1;
    memset(p, 0, sizeof(*p));
    pmix_status_t rc = px_bfrops_unpack(buf, p, &one, PMIX_PROC);
    if (rc == PMIX_SUCCESS && (one != 1 || p->nspace[0] == '\0')) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    return rc;
}

/* A BYTE_OBJECT item of len bytes; data NULL: its head only (the caller sends the bytes
 * right after it, px_peer_send_ext). */
static pmix_status_t pack_bytes(pmix_data_buffer_t *buf, const void *data, size_t len)
{
    pmix_status_t rc = px_bfrops_pack_bo_head(buf, len);
    if (rc == PMIX_SUCCESS && len > 0 && data != NULL) {
        rc = px_bfrops_buf_append(buf, data, len);
    }
    return rc;
}

pmix_status_t px_dpi_pack_i32(pmix_data_buffer_t *buf, int32_t v)
{
    return px_bfrops_pack(buf, &v, 1, PMIX_INT32);
}

static pmix_status_t unpack_i32(pmix_data_buffer_t *buf, int32_t *v)
{
    int32_t one = 1;
    return px_bfrops_unpack(buf, v, &one, PMIX_INT32);
}

pmix_status_t px_dpi_pack_procs(pmix_data_buffer_t *buf, const pmix_proc_t *procs, size_t n)
{
    pmix_status_t rc = px_dpi_pack_u32(buf, (uint32_t)n);
    if (rc == PMIX_SUCCESS && n > 0) {
        rc = px_bfrops_pack(buf, procs, (int32_t)n, PMIX_PROC);
    }
    return rc;
}

pmix_status_t px_dpi_unpack_procs(pmix_data_buffer_t *buf, size_t max, pmix_proc_t **procs,
                                  size_t *n)
{
    *procs = NULL;
    *n = 0;
    size_t k = 0;
    /* n procs after the count: one PROC item of at least n elements */
    pmix_status_t rc =
        px_bfrops_unpack_count(buf, PMIX_UINT32, px_bfrops_wire_elem(PMIX_PROC), max, &k);
    if (rc != PMIX_SUCCESS || k == 0) {
        return rc;
    }
    pmix_proc_t *p = calloc(k, sizeof(*p));
    if (p == NULL) {
        return PMIX_ERR_NOMEM;
    }
    int32_t cnt = (int32_t)k;
    rc = px_bfrops_unpack(buf, p, &cnt, PMIX_PROC);
    if (rc == PMIX_ERR_UNPACK_INADEQUATE_SPACE || (rc == PMIX_SUCCESS && (size_t)cnt != k)) {
        rc = PMIX_ERR_UNPACK_FAILURE; /* the item's count is not the one announced */
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < k; i++) {
        if (p[i].nspace[0] == '\0') {
            rc = PMIX_ERR_UNPACK_FAILURE;
        }
    }
    if (rc != PMIX_SUCCESS) {
        free(p);
        return rc;
    }
    *procs = p;
    *n = k;
    return PMIX_SUCCESS;
}

/* ---- controller -> daemon: STDIN, IOF_FLOW, FENCE_REL, DMODEX_REQ ---- */

pmix_status_t px_dp_stdin_pack(pmix_data_buffer_t *buf, const pmix_proc_t *target, const void *data,
                               size_t len)
{
    pmix_status_t rc = pack_target(buf, target);
    return rc == PMIX_SUCCESS ? pack_bytes(buf, data, len) : rc;
}

pmix_rank_t px_dp_stdin_target(const pmix_info_t *info, size_t ninfo)
{
    pmix_rank_t t = PMIX_RANK_INVALID;
    for (size_t i = 0; i < ninfo; i++) {
        uint32_t v = 0;
        if ((PMIX_CHECK_KEY(&info[i], PMIX_STDIN_TGT) ||
             PMIX_CHECK_KEY(&info[i], PMIX_FWD_STDIN)) &&
            PMIx_Value_get_number(&info[i].value, &v, PMIX_UINT32) == PMIX_SUCCESS) {
            t = t == PMIX_RANK_INVALID || t == v ? v : PMIX_RANK_WILDCARD;
        }
    }
    return t;
}

pmix_status_t px_dp_flow_pack(pmix_data_buffer_t *buf, const pmix_proc_t *target, bool pause)
{
    uint8_t v = pause ? 1 : 0;
    pmix_status_t rc = pack_target(buf, target);
    return rc == PMIX_SUCCESS ? px_bfrops_pack(buf, &v, 1, PMIX_UINT8) : rc;
}

pmix_status_t px_dp_fence_rel_pack(pmix_data_buffer_t *buf, const char *sig, pmix_status_t status,
                                   const void *data, size_t len)
{
    pmix_status_t rc = px_dpi_pack_str(buf, sig);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_i32(buf, status);
    }
    return rc == PMIX_SUCCESS ? pack_bytes(buf, data, len) : rc;
}

pmix_status_t px_dp_dmodex_req_pack(pmix_data_buffer_t *buf, const pmix_proc_t *target,
                                    const pmix_info_t *info, size_t ninfo)
{
    pmix_status_t rc = px_bfrops_pack(buf, target, 1, PMIX_PROC);
    return rc == PMIX_SUCCESS ? px_bfrops_pack_info_array(buf, info, ninfo) : rc;
}

static pmix_status_t dmodex_req_unpack(pmix_data_buffer_t *buf, pmix_proc_t *target,
                                       pmix_info_t **info, size_t *ninfo)
{
    *info = NULL;
    *ninfo = 0;
    pmix_status_t rc = px_dpi_unpack_proc(buf, target);
    if (rc == PMIX_SUCCESS && target->rank >= PMIX_RANK_VALID) {
        rc = PMIX_ERR_UNPACK_FAILURE; /* the data of one process */
    }
    return rc == PMIX_SUCCESS ? px_bfrops_unpack_info_array(buf, info, ninfo) : rc;
}

pmix_status_t px_dp_dmodex_resp_pack(pmix_data_buffer_t *buf, pmix_status_t status,
                                     const void *data, size_t len)
{
    pmix_status_t rc = px_dpi_pack_i32(buf, status);
    return rc == PMIX_SUCCESS ? pack_bytes(buf, data, len) : rc;
}

pmix_status_t px_dp_dmodex_resp_unpack(pmix_data_buffer_t *buf, pmix_status_t *status,
                                       pmix_byte_object_t *bo)
{
    int32_t st = 0;
    pmix_status_t rc = unpack_i32(buf, &st);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_bo_view(buf, bo);
    }
    if (rc == PMIX_SUCCESS && px_bfrops_buf_remaining(buf) != 0) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    *status = st;
    return rc;
}

pmix_status_t px_dp_event_pack(pmix_data_buffer_t *buf, pmix_status_t code,
                               const pmix_proc_t *source, pmix_data_range_t range,
                               const pmix_info_t *info, size_t ninfo)
{
    uint8_t r = (uint8_t)range;
    pmix_status_t rc = px_dpi_pack_i32(buf, code);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(buf, source, 1, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(buf, &r, 1, PMIX_UINT8);
    }
    return rc == PMIX_SUCCESS ? px_bfrops_pack_info_array(buf, info, ninfo) : rc;
}

static pmix_status_t event_unpack(pmix_data_buffer_t *buf, int32_t *code, pmix_proc_t *source,
                                  uint8_t *range, pmix_info_t **info, size_t *ninfo)
{
    pmix_status_t rc = unpack_i32(buf, code);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_proc(buf, source);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_u8(buf, range);
    }
    if (rc == PMIX_SUCCESS && *range > PMIX_RANGE_PROC_LOCAL) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    return rc == PMIX_SUCCESS ? px_bfrops_unpack_info_array(buf, info, ninfo) : rc;
}

pmix_status_t px_dpi_ctl_decode_more(uint32_t tag, pmix_data_buffer_t *payload, px_dp_ctl_msg_t *m)
{
    pmix_status_t rc;
    switch (tag) {
    case PX_DP_STDIN:
        rc = unpack_target(payload, &m->target);
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_unpack_bo_view(payload, &m->data);
        }
        return rc;
    case PX_DP_IOF_FLOW: {
        uint8_t v = 0;
        rc = unpack_target(payload, &m->target);
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_unpack_u8(payload, &v);
        }
        if (rc == PMIX_SUCCESS && v > 1) {
            rc = PMIX_ERR_UNPACK_FAILURE;
        }
        m->pause = v == 1;
        return rc;
    }
    case PX_DP_FENCE_REL:
        rc = px_dpi_unpack_str(payload, SIZE_MAX, &m->sig);
        if (rc == PMIX_SUCCESS) {
            rc = unpack_i32(payload, &m->status);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_unpack_bo_view(payload, &m->data);
        }
        return rc;
    case PX_DP_DMODEX_REQ:
        return dmodex_req_unpack(payload, &m->target, &m->info, &m->ninfo);
    case PX_DP_EVENT:
        return event_unpack(payload, &m->status, &m->source, &m->range, &m->info, &m->ninfo);
    default:
        return px_dpi_ctl_decode_grp(tag, payload, m);
    }
}

/* ---- daemon -> controller: IOF, FENCE_UP, ABORT, JOBCTL ---- */

pmix_status_t px_dp_iof_pack(pmix_data_buffer_t *buf, const pmix_proc_t *src, uint16_t channel,
                             const void *data, size_t len)
{
    pmix_status_t rc = pack_target(buf, src);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(buf, &channel, 1, PMIX_UINT16);
    }
    return rc == PMIX_SUCCESS ? pack_bytes(buf, data, len) : rc;
}

pmix_status_t px_dp_fence_up_pack(pmix_data_buffer_t *buf, const pmix_proc_t *procs, size_t n,
                                  bool collect, const void *data, size_t len)
{
    uint8_t c = collect ? 1 : 0;
    pmix_status_t rc = px_dpi_pack_procs(buf, procs, n);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(buf, &c, 1, PMIX_UINT8);
    }
    return rc == PMIX_SUCCESS ? pack_bytes(buf, data, len) : rc;
}

static int cmp_proc(const void *a, const void *b)
{
    const pmix_proc_t *x = a, *y = b;
    int c = strncmp(x->nspace, y->nspace, PMIX_MAX_NSLEN);
    if (c != 0) {
        return c;
    }
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

char *px_dp_fence_sig(const pmix_proc_t *procs, size_t n)
{
    pmix_proc_t *s = calloc(n ? n : 1, sizeof(*s));
    if (s == NULL) {
        return NULL;
    }
    memcpy(s, procs, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_proc);
    size_t len = 1;
    for (size_t i = 0; i < n; i++) {
        len += strnlen(s[i].nspace, PMIX_MAX_NSLEN) + 13;
    }
    char *sig = malloc(len);
    size_t off = 0;
    for (size_t i = 0; sig != NULL && i < n; i++) {
        if (i > 0 && cmp_proc(&s[i], &s[i - 1]) == 0) {
            continue; /* a participant named twice is one */
        }
        if (s[i].rank == PMIX_RANK_WILDCARD) {
            off += (size_t)snprintf(sig + off, len - off, "%.*s:*;", PMIX_MAX_NSLEN, s[i].nspace);
        } else {
            off += (size_t)snprintf(sig + off, len - off, "%.*s:%u;", PMIX_MAX_NSLEN, s[i].nspace,
                                    s[i].rank);
        }
    }
    if (sig != NULL) {
        sig[off] = '\0';
    }
    free(s);
    return sig;
}

pmix_status_t px_dp_abort_pack(pmix_data_buffer_t *buf, const pmix_proc_t *caller, int32_t status,
                               const char *msg, const pmix_proc_t *procs, size_t n)
{
    pmix_status_t rc = px_bfrops_pack(buf, caller, 1, PMIX_PROC);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_i32(buf, status);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_str(buf, msg);
    }
    return rc == PMIX_SUCCESS ? px_dpi_pack_procs(buf, procs, n) : rc;
}

pmix_status_t px_dp_jobctl_pack(pmix_data_buffer_t *buf, const pmix_proc_t *requester,
                                const pmix_proc_t *targets, size_t n, const pmix_info_t *info,
                                size_t ninfo)
{
    pmix_status_t rc = px_bfrops_pack(buf, requester, 1, PMIX_PROC);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_procs(buf, targets, n);
    }
    return rc == PMIX_SUCCESS ? px_bfrops_pack_info_array(buf, info, ninfo) : rc;
}

pmix_status_t px_dp_status_info_pack(pmix_data_buffer_t *buf, pmix_status_t status,
                                     const pmix_info_t *info, size_t ninfo)
{
    pmix_status_t rc = px_dpi_pack_i32(buf, status);
    return rc == PMIX_SUCCESS ? px_bfrops_pack_info_array(buf, info, ninfo) : rc;
}

pmix_status_t px_dp_status_info_unpack(pmix_data_buffer_t *buf, pmix_status_t *status,
                                       pmix_info_t **info, size_t *ninfo)
{
    int32_t st = 0;
    *info = NULL;
    *ninfo = 0;
    pmix_status_t rc = unpack_i32(buf, &st);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(buf, info, ninfo);
    }
    if (rc == PMIX_SUCCESS && px_bfrops_buf_remaining(buf) != 0) {
        px_bfrops_info_array_free(*info, *ninfo);
        *info = NULL;
        *ninfo = 0;
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    *status = st;
    return rc;
}

/* ---- PX_DP_QUERY ---- */

pmix_status_t px_dp_query_pack(pmix_data_buffer_t *buf, const pmix_proc_t *requester,
                               const pmix_query_t *queries, size_t n)
{
    pmix_status_t rc = px_bfrops_pack(buf, requester, 1, PMIX_PROC);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_u32(buf, (uint32_t)n);
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        size_t k = 0;
        while (queries[i].keys != NULL && queries[i].keys[k] != NULL) {
            k++;
        }
        rc = px_dpi_pack_u32(buf, (uint32_t)k);
        for (size_t j = 0; rc == PMIX_SUCCESS && j < k; j++) {
            rc = px_dpi_pack_str(buf, queries[i].keys[j]);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack_info_array(buf, queries[i].qualifiers, queries[i].nqual);
        }
    }
    return rc;
}

void px_dp_queries_free(pmix_query_t *queries, size_t n)
{
    for (size_t i = 0; queries != NULL && i < n; i++) {
        for (size_t j = 0; queries[i].keys != NULL && queries[i].keys[j] != NULL; j++) {
            free(queries[i].keys[j]);
        }
        free(queries[i].keys);
        px_bfrops_info_array_free(queries[i].qualifiers, queries[i].nqual);
    }
    free(queries);
}

static pmix_status_t query_unpack(pmix_data_buffer_t *buf, pmix_query_t **out, size_t *nout)
{
    size_t n = 0;
    /* each query: at least its key count, one key and an empty qualifier array */
    size_t each = px_bfrops_wire_item(PMIX_UINT32, 1) + px_bfrops_wire_item(PMIX_STRING, 1) +
                  px_bfrops_wire_item(PMIX_INFO, 0);
    pmix_status_t rc = px_bfrops_unpack_count(buf, PMIX_UINT32, each, PX_DP_QUERIES_MAX, &n);
    if (rc == PMIX_SUCCESS && n == 0) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    pmix_query_t *q = rc == PMIX_SUCCESS ? calloc(n, sizeof(*q)) : NULL;
    if (rc == PMIX_SUCCESS && q == NULL) {
        rc = PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        size_t k = 0;
        rc = px_bfrops_unpack_count(buf, PMIX_UINT32, px_bfrops_wire_item(PMIX_STRING, 1),
                                    PX_DP_QUERY_KEYS_MAX, &k);
        if (rc == PMIX_SUCCESS && k == 0) {
            rc = PMIX_ERR_UNPACK_FAILURE;
        }
        if (rc == PMIX_SUCCESS && (q[i].keys = calloc(k + 1, sizeof(char *))) == NULL) {
            rc = PMIX_ERR_NOMEM;
        }
        for (size_t j = 0; rc == PMIX_SUCCESS && j < k; j++) {
            rc = px_dpi_unpack_str(buf, PMIX_MAX_KEYLEN, &q[i].keys[j]);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_unpack_info_array(buf, &q[i].qualifiers, &q[i].nqual);
        }
    }
    if (rc != PMIX_SUCCESS) {
        px_dp_queries_free(q, n);
        return rc;
    }
    *out = q;
    *nout = n;
    return PMIX_SUCCESS;
}

/* ---- the controller's decoder ---- */

static pmix_status_t dmn_fields(uint32_t tag, pmix_data_buffer_t *payload, px_dp_dmn_msg_t *m)
{
    pmix_status_t rc;
    switch (tag) {
    case PX_DP_PSTATE:
        return px_dp_pstate_unpack(payload, &m->pstate);
    case PX_DP_IOF:
        rc = unpack_target(payload, &m->proc);
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_unpack_u16(payload, &m->channel);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_unpack_bo_view(payload, &m->data);
        }
        if (rc == PMIX_SUCCESS &&
            ((m->channel != PMIX_FWD_STDOUT_CHANNEL && m->channel != PMIX_FWD_STDERR_CHANNEL) ||
             m->data.size == 0 || m->proc.rank >= PMIX_RANK_VALID)) {
            rc = PMIX_ERR_UNPACK_FAILURE;
        }
        return rc;
    case PX_DP_FENCE_UP: {
        uint8_t c = 0;
        rc = px_dpi_unpack_procs(payload, PX_DP_FENCE_PROCS_MAX, &m->procs, &m->nprocs);
        if (rc == PMIX_SUCCESS && m->nprocs == 0) {
            rc = PMIX_ERR_UNPACK_FAILURE;
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_unpack_u8(payload, &c);
        }
        if (rc == PMIX_SUCCESS && c > 1) {
            rc = PMIX_ERR_UNPACK_FAILURE;
        }
        m->collect = c == 1;
        return rc == PMIX_SUCCESS ? px_bfrops_unpack_bo_view(payload, &m->data) : rc;
    }
    case PX_DP_DMODEX_REQ:
        return dmodex_req_unpack(payload, &m->proc, &m->info, &m->ninfo);
    case PX_DP_ABORT:
        rc = px_dpi_unpack_proc(payload, &m->proc);
        if (rc == PMIX_SUCCESS) {
            rc = unpack_i32(payload, &m->status);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_unpack_str_opt(payload, &m->msg);
        }
        return rc == PMIX_SUCCESS
                   ? px_dpi_unpack_procs(payload, PX_DP_FENCE_PROCS_MAX, &m->procs, &m->nprocs)
                   : rc;
    case PX_DP_JOBCTL:
        rc = px_dpi_unpack_proc(payload, &m->proc);
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_unpack_procs(payload, PX_DP_FENCE_PROCS_MAX, &m->procs, &m->nprocs);
        }
        return rc == PMIX_SUCCESS ? px_bfrops_unpack_info_array(payload, &m->info, &m->ninfo) : rc;
    case PX_DP_EVENT:
        return event_unpack(payload, &m->status, &m->proc, &m->range, &m->info, &m->ninfo);
    case PX_DP_QUERY:
        rc = px_dpi_unpack_proc(payload, &m->proc);
        return rc == PMIX_SUCCESS ? query_unpack(payload, &m->queries, &m->nqueries) : rc;
    default:
        return px_dpi_dmn_decode_grp(tag, payload, m);
    }
}

pmix_status_t px_dp_dmn_decode(uint32_t tag, pmix_data_buffer_t *payload, px_dp_dmn_msg_t *m)
{
    memset(m, 0, sizeof(*m));
    m->tag = tag;
    pmix_status_t rc = dmn_fields(tag, payload, m);
    if (rc == PMIX_SUCCESS && px_bfrops_buf_remaining(payload) != 0) {
        rc = PMIX_ERR_UNPACK_FAILURE; /* trailing bytes: not a message we wrote */
    }
    if (rc != PMIX_SUCCESS) {
        px_dp_dmn_msg_free(m);
        m->tag = tag;
    }
    return rc;
}

void px_dp_dmn_msg_free(px_dp_dmn_msg_t *m)
{
    if (m == NULL) {
        return;
    }
    px_dp_pstate_free(&m->pstate);
    free(m->procs);
    free(m->msg);
    px_bfrops_info_array_free(m->info, m->ninfo);
    px_dp_queries_free(m->queries, m->nqueries);
    free(m->key);
    free(m->file);
    free(m->topic);
    free(m->text);
    if (m->apps != NULL) {
        PMIx_App_free(m->apps, m->napps);
    }
    PMIx_Argv_free(m->keys);
    free(m->addr);
    memset(m, 0, sizeof(*m));
}
