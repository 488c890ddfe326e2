/* daemon: encode/decode of the protocol's group/connect, process-set, report, spawn and
 * name-service messages (docs/PROTOCOL.md: GROUP_UP/GROUP_REL, PSET, REPORT, PROC_SPAWN,
 * PUBSUB). Pure code on
 * bfrops; any thread. Counts go through px_bfrops_unpack_count (px_dpi_unpack_procs,
 * px_dpi_unpack_apps) before anything is allocated for them.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "daemon/dproto_int.h"
#include "daemon/px_dproto.h"

/* ---- GROUP_UP ---- */

char *px_dp_connect_key(const pmix_proc_t *procs, size_t n, pmix_status_t *rc)
{
    char *sig = procs != NULL && n > 0 ? px_dp_fence_sig(procs, n) : NULL;
    *rc = procs == NULL || n == 0 ? PMIX_ERR_BAD_PARAM
          : sig == NULL           ? PMIX_ERR_NOMEM
                                  : PMIX_SUCCESS;
    return sig;
}

pmix_status_t px_dp_group_up_pack(pmix_data_buffer_t *buf, uint8_t kind, const char *key,
                                  const pmix_proc_t *procs, size_t n, const pmix_info_t *info,
                                  size_t ninfo)
{
    pmix_status_t rc = px_dpi_pack_u8(buf, kind);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_str(buf, key);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_procs(buf, procs, n);
    }
    return rc == PMIX_SUCCESS ? px_bfrops_pack_info_array(buf, info, ninfo) : rc;
}

static pmix_status_t group_up_unpack(pmix_data_buffer_t *buf, px_dp_dmn_msg_t *m)
{
    pmix_status_t rc = px_dpi_unpack_u8(buf, &m->kind);
    if (rc == PMIX_SUCCESS && m->kind > PX_DP_GRP_DISCONNECT) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_str(buf, PX_DP_KEY_MAX, &m->key);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_procs(buf, PX_DP_FENCE_PROCS_MAX, &m->procs, &m->nprocs);
    }
    return rc == PMIX_SUCCESS ? px_bfrops_unpack_info_array(buf, &m->info, &m->ninfo) : rc;
}

/* ---- PSET ---- */

pmix_status_t px_dp_pset_pack(pmix_data_buffer_t *buf, bool define, const char *name,
                              const pmix_proc_t *members, size_t n)
{
    pmix_status_t rc = px_dpi_pack_u8(buf, define ? 1 : 0);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_str(buf, name);
    }
    return rc == PMIX_SUCCESS ? px_dpi_pack_procs(buf, members, define ? n : 0) : rc;
}

static pmix_status_t pset_unpack(pmix_data_buffer_t *buf, px_dp_ctl_msg_t *m)
{
    uint8_t d = 0;
    pmix_status_t rc = px_dpi_unpack_u8(buf, &d);
    if (rc == PMIX_SUCCESS && d > 1) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    m->define = d == 1;
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_str(buf, PX_DP_PSET_NAME_MAX, &m->name);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_procs(buf, PX_DP_FENCE_PROCS_MAX, &m->procs, &m->nprocs);
    }
    if (rc == PMIX_SUCCESS && m->define != (m->nprocs > 0)) {
        rc = PMIX_ERR_UNPACK_FAILURE; /* a set has members; a delete names none */
    }
    return rc;
}

pmix_status_t px_dpi_ctl_decode_grp(uint32_t tag, pmix_data_buffer_t *payload, px_dp_ctl_msg_t *m)
{
    return tag == PX_DP_PSET ? pset_unpack(payload, m) : px_dpi_ctl_decode_tree(tag, payload, m);
}

/* ---- REPORT ---- */

pmix_status_t px_dp_report_pack(pmix_data_buffer_t *buf, const char *file, const char *topic,
                                const char *text)
{
    pmix_status_t rc = px_dpi_pack_str(buf, file);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_str(buf, topic);
    }
    return rc == PMIX_SUCCESS ? px_dpi_pack_str(buf, text) : rc;
}

static pmix_status_t report_unpack(pmix_data_buffer_t *buf, px_dp_dmn_msg_t *m)
{
    pmix_status_t rc = px_dpi_unpack_str(buf, PX_DP_NAME_MAX, &m->file);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_str(buf, PX_DP_NAME_MAX, &m->topic);
    }
    return rc == PMIX_SUCCESS ? px_dpi_unpack_str(buf, PX_DP_REPORT_MAX, &m->text) : rc;
}

/* ---- PROC_SPAWN ---- */

pmix_status_t px_dp_proc_spawn_pack(pmix_data_buffer_t *buf, const pmix_proc_t *requester,
                                    const pmix_info_t *info, size_t ninfo, const pmix_app_t *apps,
                                    size_t napps)
{
    pmix_status_t rc = px_bfrops_pack(buf, requester, 1, PMIX_PROC);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(buf, info, ninfo);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_u32(buf, (uint32_t)napps);
    }
    return rc == PMIX_SUCCESS ? px_bfrops_pack(buf, apps, (int32_t)napps, PMIX_APP) : rc;
}

static pmix_status_t spawn_unpack(pmix_data_buffer_t *buf, px_dp_dmn_msg_t *m)
{
    pmix_status_t rc = px_dpi_unpack_proc(buf, &m->proc);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(buf, &m->info, &m->ninfo);
    }
    return rc == PMIX_SUCCESS ? px_dpi_unpack_apps(buf, &m->apps, &m->napps) : rc;
}

pmix_status_t px_dp_proc_spawn_reply_pack(pmix_data_buffer_t *buf, pmix_status_t status,
                                          const char *nspace)
{
    pmix_status_t rc = px_dpi_pack_i32(buf, status);
    return rc == PMIX_SUCCESS ? px_dpi_pack_str(buf, nspace) : rc;
}

pmix_status_t px_dp_proc_spawn_reply_unpack(pmix_data_buffer_t *buf, pmix_status_t *status,
                                            char **nspace)
{
    int32_t st = 0, one = 1;
    *nspace = NULL;
    pmix_status_t rc = px_bfrops_unpack(buf, &st, &one, PMIX_INT32);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_str_opt(buf, nspace);
    }
    if (rc == PMIX_SUCCESS &&
        (px_bfrops_buf_remaining(buf) != 0 ||
         (*nspace != NULL && (**nspace == '\0' || strlen(*nspace) > PMIX_MAX_NSLEN)))) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    if (rc != PMIX_SUCCESS) {
        free(*nspace);
        *nspace = NULL;
    }
    *status = st;
    return rc;
}

/* ---- PUBSUB ---- */

pmix_status_t px_dp_pubsub_pack(pmix_data_buffer_t *buf, uint8_t kind, const pmix_proc_t *caller,
                                char *const *keys, const pmix_info_t *info, size_t ninfo)
{
    size_t nkeys = 0;
    while (keys != NULL && keys[nkeys] != NULL) {
        nkeys++;
    }
    pmix_status_t rc = px_dpi_pack_u8(buf, kind);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(buf, caller, 1, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_u32(buf, (uint32_t)nkeys);
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < nkeys; i++) {
        rc = px_dpi_pack_str(buf, keys[i]);
    }
    return rc == PMIX_SUCCESS ? px_bfrops_pack_info_array(buf, info, ninfo) : rc;
}

static pmix_status_t pubsub_unpack(pmix_data_buffer_t *buf, px_dp_dmn_msg_t *m)
{
    size_t n = 0;
    pmix_status_t rc = px_dpi_unpack_u8(buf, &m->kind);
    if (rc == PMIX_SUCCESS && m->kind > PX_DP_PS_UNPUBLISH) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_proc(buf, &m->proc);
    }
    if (rc == PMIX_SUCCESS) {
        /* each key is at least a whole (non-NULL) string item */
        rc = px_bfrops_unpack_count(buf, PMIX_UINT32, px_bfrops_wire_item(PMIX_STRING, 1),
                                    PX_DP_KEYS_MAX, &n);
    }
    if (rc == PMIX_SUCCESS &&
        ((m->kind == PX_DP_PS_PUBLISH && n > 0) || (m->kind == PX_DP_PS_LOOKUP && n == 0))) {
        rc = PMIX_ERR_UNPACK_FAILURE; /* keys for a lookup; none for a publish */
    }
    if (rc == PMIX_SUCCESS && n > 0) {
        m->keys = calloc(n + 1, sizeof(char *));
        rc = m->keys != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        rc = px_dpi_unpack_str(buf, PMIX_MAX_KEYLEN, &m->keys[i]);
    }
    return rc == PMIX_SUCCESS ? px_bfrops_unpack_info_array(buf, &m->info, &m->ninfo) : rc;
}

pmix_status_t px_dp_pubsub_reply_pack(pmix_data_buffer_t *buf, pmix_status_t status,
                                      const pmix_pdata_t *data, size_t n)
{
    pmix_status_t rc = px_dpi_pack_i32(buf, status);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_u32(buf, (uint32_t)n);
    }
    return rc == PMIX_SUCCESS && n > 0 ? px_bfrops_pack(buf, data, (int32_t)n, PMIX_PDATA) : rc;
}

pmix_status_t px_dp_pubsub_reply_unpack(pmix_data_buffer_t *buf, pmix_status_t *status,
                                        pmix_pdata_t **data, size_t *n)
{
    int32_t st = 0, one = 1;
    size_t k = 0;
    *data = NULL;
    *n = 0;
    pmix_status_t rc = px_bfrops_unpack(buf, &st, &one, PMIX_INT32);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_count(buf, PMIX_UINT32, px_bfrops_wire_elem(PMIX_PDATA),
                                    PX_DP_KEYS_MAX, &k);
    }
    pmix_pdata_t *d = NULL;
    if (rc == PMIX_SUCCESS && k > 0) {
        d = PMIx_Pdata_create(k);
        rc = d != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    if (rc == PMIX_SUCCESS && k > 0) {
        int32_t cnt = (int32_t)k;
        rc = px_bfrops_unpack(buf, d, &cnt, PMIX_PDATA);
        if (rc == PMIX_ERR_UNPACK_INADEQUATE_SPACE || (rc == PMIX_SUCCESS && (size_t)cnt != k)) {
            rc = PMIX_ERR_UNPACK_FAILURE;
        }
    }
    if (rc == PMIX_SUCCESS && px_bfrops_buf_remaining(buf) != 0) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    if (rc != PMIX_SUCCESS) {
        if (d != NULL) {
            PMIx_Pdata_free(d, k);
        }
        return rc;
    }
    *status = st;
    *data = d;
    *n = k;
    return PMIX_SUCCESS;
}

pmix_status_t px_dpi_dmn_decode_grp(uint32_t tag, pmix_data_buffer_t *payload, px_dp_dmn_msg_t *m)
{
    switch (tag) {
    case PX_DP_GROUP_UP:
        return group_up_unpack(payload, m);
    case PX_DP_REPORT:
        return report_unpack(payload, m);
    case PX_DP_PROC_SPAWN:
        return spawn_unpack(payload, m);
    case PX_DP_PUBSUB:
        return pubsub_unpack(payload, m);
    default:
        return px_dpi_dmn_decode_tree(tag, payload, m);
    }
}
