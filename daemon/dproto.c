/* daemon: encode/decode of the controller-daemon messages (docs/PROTOCOL.md) and the
 * routing tree's arithmetic. Pure code on bfrops; any thread.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "daemon/dproto_int.h"
#include "daemon/px_dproto.h"

pmix_status_t px_dpi_pack_str(pmix_data_buffer_t *buf, const char *s)
{
    return px_bfrops_pack(buf, &s, 1, PMIX_STRING);
}

pmix_status_t px_dpi_pack_u32(pmix_data_buffer_t *buf, uint32_t v)
{
    return px_bfrops_pack(buf, &v, 1, PMIX_UINT32);
}

/* One string item that may be NULL (an absent cpuset, stage). */
pmix_status_t px_dpi_unpack_str_opt(pmix_data_buffer_t *buf, char **out)
{
    int32_t one = 1;
    *out = NULL;
    pmix_status_t rc = px_bfrops_unpack(buf, out, &one, PMIX_STRING);
    if (rc != PMIX_SUCCESS) {
        /* an item of several strings where one belongs: the first was stored */
        free(*out);
        *out = NULL;
    }
    return rc;
}

/* One string item, bounded: NULL, empty or longer than max is malformed. */
pmix_status_t px_dpi_unpack_str(pmix_data_buffer_t *buf, size_t max, char **out)
{
    pmix_status_t rc = px_dpi_unpack_str_opt(buf, out);
    if (rc == PMIX_SUCCESS && (*out == NULL || **out == '\0' || strlen(*out) > max)) {
        free(*out);
        *out = NULL;
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    return rc;
}

pmix_status_t px_dpi_unpack_u32(pmix_data_buffer_t *buf, uint32_t *v)
{
    int32_t one = 1;
    return px_bfrops_unpack(buf, v, &one, PMIX_UINT32);
}

/* ---- hello: u32 version, u32 id, str release, str node, u32 n + n x str aliases, str
 * signature ---- */

pmix_status_t px_dp_hello_pack(pmix_data_buffer_t *buf, const px_dp_hello_t *h)
{
    pmix_status_t rc = px_dpi_pack_u32(buf, h->version);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_u32(buf, h->id);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_str(buf, h->release);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_str(buf, h->node);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_u32(buf, (uint32_t)h->naliases);
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < h->naliases; i++) {
        rc = px_dpi_pack_str(buf, h->aliases[i]);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_str(buf, h->topo_sig);
    }
    return rc;
}

void px_dp_hello_free(px_dp_hello_t *h)
{
    if (h == NULL) {
        return;
    }
    free(h->node);
    free(h->release);
    for (size_t i = 0; h->aliases != NULL && i < h->naliases; i++) {
        free(h->aliases[i]);
    }
    free(h->aliases);
    free(h->topo_sig);
    memset(h, 0, sizeof(*h));
}

pmix_status_t px_dp_hello_unpack(pmix_data_buffer_t *buf, px_dp_hello_t *h)
{
    memset(h, 0, sizeof(*h));
    size_t n = 0;
    pmix_status_t rc = px_dpi_unpack_u32(buf, &h->version);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_u32(buf, &h->id);
    }
    if (rc == PMIX_SUCCESS && h->version != PX_DP_VERSION) {
        return PMIX_ERR_NOT_SUPPORTED; /* another layout may follow: not read */
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_str(buf, PX_DP_RELEASE_MAX, &h->release);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_str(buf, PX_DP_NAME_MAX, &h->node);
    }
    if (rc == PMIX_SUCCESS) {
        /* each alias is at least a whole (non-NULL) string item */
        rc = px_bfrops_unpack_count(buf, PMIX_UINT32, px_bfrops_wire_item(PMIX_STRING, 1),
                                    PX_DP_ALIASES_MAX, &n);
    }
    if (rc == PMIX_SUCCESS) {
        h->aliases = calloc(n + 1, sizeof(char *));
        rc = h->aliases != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        rc = px_dpi_unpack_str(buf, PX_DP_NAME_MAX, &h->aliases[i]);
        if (rc == PMIX_SUCCESS) {
            h->naliases = i + 1;
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_str(buf, PX_DP_SIG_MAX, &h->topo_sig);
    }
    if (rc != PMIX_SUCCESS) {
        px_dp_hello_free(h);
    }
    return rc;
}

/* ---- topology: str signature, str xml ---- */

pmix_status_t px_dp_topo_pack(pmix_data_buffer_t *buf, const char *sig, const char *xml)
{
    pmix_status_t rc = px_dpi_pack_str(buf, sig);
    return rc == PMIX_SUCCESS ? px_dpi_pack_str(buf, xml) : rc;
}

pmix_status_t px_dp_topo_unpack(pmix_data_buffer_t *buf, char **sig, char **xml)
{
    *xml = NULL;
    pmix_status_t rc = px_dpi_unpack_str(buf, PX_DP_SIG_MAX, sig);
    if (rc == PMIX_SUCCESS) {
        /* the XML is bounded by the message size (PX_MSG_MAX_PAYLOAD) */
        rc = px_dpi_unpack_str(buf, SIZE_MAX, xml);
        if (rc != PMIX_SUCCESS) {
            free(*sig);
            *sig = NULL;
        }
    }
    return rc;
}

/* ---- exit: i32 reason ---- */

pmix_status_t px_dp_exit_pack(pmix_data_buffer_t *buf, int32_t reason)
{
    return px_bfrops_pack(buf, &reason, 1, PMIX_INT32);
}

pmix_status_t px_dp_exit_unpack(pmix_data_buffer_t *buf, int32_t *reason)
{
    int32_t one = 1;
    pmix_status_t rc = px_bfrops_unpack(buf, reason, &one, PMIX_INT32);
    if (rc == PMIX_SUCCESS && *reason != PX_DP_EXIT_NORMAL && *reason != PX_DP_EXIT_ABORTED) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    return rc;
}

/* ---- helpers of the job messages ---- */

pmix_status_t px_dpi_pack_nspace(pmix_data_buffer_t *buf, const char *ns)
{
    pmix_nspace_t n;
    PMIX_LOAD_NSPACE(n, ns);
    return px_bfrops_pack(buf, n, 1, PMIX_PROC_NSPACE);
}

/* A namespace, non-empty. */
pmix_status_t px_dpi_unpack_nspace(pmix_data_buffer_t *buf, pmix_nspace_t ns)
{
    int32_t one = 1;
    memset(ns, 0, sizeof(pmix_nspace_t));
    pmix_status_t rc = px_bfrops_unpack(buf, ns, &one, PMIX_PROC_NSPACE);
    if (rc == PMIX_SUCCESS && ns[0] == '\0') {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    return rc;
}

pmix_status_t px_dpi_unpack_u16(pmix_data_buffer_t *buf, uint16_t *v)
{
    int32_t one = 1;
    return px_bfrops_unpack(buf, v, &one, PMIX_UINT16);
}

pmix_status_t px_dpi_unpack_u8(pmix_data_buffer_t *buf, uint8_t *v)
{
    int32_t one = 1;
    return px_bfrops_unpack(buf, v, &one, PMIX_UINT8);
}

pmix_status_t px_dpi_pack_u8(pmix_data_buffer_t *buf, uint8_t v)
{
    return px_bfrops_pack(buf, &v, 1, PMIX_UINT8);
}

/* ---- launch ---- */

pmix_status_t px_dp_launch_pack(pmix_data_buffer_t *buf, const px_dp_launch_t *l)
{
    pmix_status_t rc = px_dpi_pack_nspace(buf, l->nspace);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_u32(buf, (uint32_t)l->nnodes);
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < l->nnodes; i++) {
        rc = px_dpi_pack_str(buf, l->nodes[i].name);
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_pack_u32(buf, l->nodes[i].daemon);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_pack_u8(buf, l->nodes[i].flags);
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_u32(buf, (uint32_t)l->nprocs);
    }
    for (size_t r = 0; rc == PMIX_SUCCESS && r < l->nprocs; r++) {
        const px_dp_lproc_t *p = &l->procs[r];
        rc = px_dpi_pack_u32(buf, p->node);
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack(buf, &p->local_rank, 1, PMIX_UINT16);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack(buf, &p->node_rank, 1, PMIX_UINT16);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_pack_u32(buf, p->app);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_pack_u8(buf, p->flags);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_pack_str(buf, p->cpuset);
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_u8(buf, l->bind_obj);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(buf, &l->pe, 1, PMIX_UINT16);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_u8(buf, l->flags);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_u32(buf, (uint32_t)l->napps);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(buf, l->apps, (int32_t)l->napps, PMIX_APP);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(buf, l->info, l->ninfo);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(buf, l->reg, l->nreg);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(buf, l->setup, l->nsetup);
    }
    return rc;
}

void px_dp_launch_free(px_dp_launch_t *l)
{
    if (l == NULL) {
        return;
    }
    for (size_t i = 0; l->nodes != NULL && i < l->nnodes; i++) {
        free(l->nodes[i].name);
    }
    free(l->nodes);
    for (size_t r = 0; l->procs != NULL && r < l->nprocs; r++) {
        free(l->procs[r].cpuset);
    }
    free(l->procs);
    if (l->apps != NULL) {
        PMIx_App_free(l->apps, l->napps);
    }
    px_bfrops_info_array_free(l->info, l->ninfo);
    px_bfrops_info_array_free(l->reg, l->nreg);
    px_bfrops_info_array_free(l->setup, l->nsetup);
    memset(l, 0, sizeof(*l));
}

static pmix_status_t launch_nodes(pmix_data_buffer_t *buf, px_dp_launch_t *l)
{
    size_t n = 0;
    size_t each = px_bfrops_wire_item(PMIX_STRING, 1) + px_bfrops_wire_item(PMIX_UINT32, 1) +
                  px_bfrops_wire_item(PMIX_UINT8, 1);
    pmix_status_t rc = px_bfrops_unpack_count(buf, PMIX_UINT32, each, PX_DP_NODES_MAX, &n);
    if (rc == PMIX_SUCCESS && n > 0) {
        l->nodes = calloc(n, sizeof(*l->nodes));
        rc = l->nodes != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        rc = px_dpi_unpack_str(buf, PX_DP_NAME_MAX, &l->nodes[i].name);
        l->nnodes = i + 1; /* freed with the rest on error */
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_unpack_u32(buf, &l->nodes[i].daemon);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_unpack_u8(buf, &l->nodes[i].flags);
        }
        if (rc == PMIX_SUCCESS && (l->nodes[i].flags & ~PX_DP_NODE_FLAGS_KNOWN) != 0) {
            rc = PMIX_ERR_UNPACK_FAILURE;
        }
    }
    return rc;
}

static pmix_status_t launch_procs(pmix_data_buffer_t *buf, px_dp_launch_t *l)
{
    size_t n = 0;
    size_t each = 2 * px_bfrops_wire_item(PMIX_UINT32, 1) +
                  2 * px_bfrops_wire_item(PMIX_UINT16, 1) + px_bfrops_wire_item(PMIX_UINT8, 1) +
                  px_bfrops_wire_item(PMIX_STRING, 1);
    pmix_status_t rc = px_bfrops_unpack_count(buf, PMIX_UINT32, each, 0, &n);
    if (rc == PMIX_SUCCESS && n > 0) {
        l->procs = calloc(n, sizeof(*l->procs));
        rc = l->procs != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    for (size_t r = 0; rc == PMIX_SUCCESS && r < n; r++) {
        px_dp_lproc_t *p = &l->procs[r];
        l->nprocs = r + 1;
        rc = px_dpi_unpack_u32(buf, &p->node);
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_unpack_u16(buf, &p->local_rank);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_unpack_u16(buf, &p->node_rank);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_unpack_u32(buf, &p->app);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_unpack_u8(buf, &p->flags);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_unpack_str_opt(buf, &p->cpuset);
        }
        if (rc == PMIX_SUCCESS &&
            (p->node >= l->nnodes || (p->flags & ~PX_DP_PROC_FLAGS_KNOWN) != 0)) {
            rc = PMIX_ERR_UNPACK_FAILURE;
        }
    }
    return rc;
}

/* At least one app: a job without one is not a message we write. */
pmix_status_t px_dpi_unpack_apps(pmix_data_buffer_t *buf, pmix_app_t **apps, size_t *napps)
{
    size_t n = 0;
    *apps = NULL;
    *napps = 0;
    pmix_status_t rc =
        px_bfrops_unpack_count(buf, PMIX_UINT32, px_bfrops_wire_elem(PMIX_APP), PX_DP_APPS_MAX, &n);
    if (rc == PMIX_SUCCESS && n == 0) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    if (rc == PMIX_SUCCESS) {
        *apps = PMIx_App_create(n);
        rc = *apps != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
        *napps = *apps != NULL ? n : 0; /* all initialised: freed whole on error */
    }
    if (rc == PMIX_SUCCESS) {
        int32_t cnt = (int32_t)n;
        rc = px_bfrops_unpack(buf, *apps, &cnt, PMIX_APP);
        if (rc == PMIX_ERR_UNPACK_INADEQUATE_SPACE || (rc == PMIX_SUCCESS && (size_t)cnt != n)) {
            rc = PMIX_ERR_UNPACK_FAILURE; /* the item's count is not the one announced */
        }
    }
    return rc;
}

pmix_status_t px_dp_launch_unpack(pmix_data_buffer_t *buf, px_dp_launch_t *l)
{
    memset(l, 0, sizeof(*l));
    pmix_status_t rc = px_dpi_unpack_nspace(buf, l->nspace);
    if (rc == PMIX_SUCCESS) {
        rc = launch_nodes(buf, l);
    }
    if (rc == PMIX_SUCCESS) {
        rc = launch_procs(buf, l);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_u8(buf, &l->bind_obj);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_u16(buf, &l->pe);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_u8(buf, &l->flags);
    }
    if (rc == PMIX_SUCCESS && (l->bind_obj > PX_DP_BIND_HWTHREAD || l->pe > PX_DP_PE_MAX ||
                               (l->flags & ~PX_DP_JOB_FLAGS_KNOWN) != 0)) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_apps(buf, &l->apps, &l->napps);
    }
    for (size_t r = 0; rc == PMIX_SUCCESS && r < l->nprocs; r++) {
        if (l->procs[r].app >= l->napps) {
            rc = PMIX_ERR_UNPACK_FAILURE;
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(buf, &l->info, &l->ninfo);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(buf, &l->reg, &l->nreg);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(buf, &l->setup, &l->nsetup);
    }
    if (rc != PMIX_SUCCESS) {
        px_dp_launch_free(l);
    }
    return rc;
}

/* ---- process states ---- */

pmix_status_t px_dp_pstate_pack(pmix_data_buffer_t *buf, const px_dp_pstate_t *ps)
{
    pmix_status_t rc = px_dpi_pack_nspace(buf, ps->nspace);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_u32(buf, (uint32_t)ps->n);
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < ps->n; i++) {
        const px_dp_pstate_one_t *o = &ps->procs[i];
        rc = px_bfrops_pack(buf, &o->rank, 1, PMIX_PROC_RANK);
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack(buf, &o->state, 1, PMIX_UINT8);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack(buf, &o->pid, 1, PMIX_PID);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack(buf, &o->status, 1, PMIX_INT32);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_pack_str(buf, o->stage);
        }
    }
    return rc;
}

void px_dp_pstate_free(px_dp_pstate_t *ps)
{
    if (ps == NULL) {
        return;
    }
    for (size_t i = 0; ps->procs != NULL && i < ps->n; i++) {
        free(ps->procs[i].stage);
    }
    free(ps->procs);
    memset(ps, 0, sizeof(*ps));
}

pmix_status_t px_dp_pstate_unpack(pmix_data_buffer_t *buf, px_dp_pstate_t *ps)
{
    memset(ps, 0, sizeof(*ps));
    size_t n = 0;
    size_t each = px_bfrops_wire_item(PMIX_PROC_RANK, 1) + px_bfrops_wire_item(PMIX_UINT8, 1) +
                  px_bfrops_wire_item(PMIX_PID, 1) + px_bfrops_wire_item(PMIX_INT32, 1) +
                  px_bfrops_wire_item(PMIX_STRING, 1);
    pmix_status_t rc = px_dpi_unpack_nspace(buf, ps->nspace);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_count(buf, PMIX_UINT32, each, 0, &n);
    }
    if (rc == PMIX_SUCCESS && n > 0) {
        ps->procs = calloc(n, sizeof(*ps->procs));
        rc = ps->procs != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        px_dp_pstate_one_t *o = &ps->procs[i];
        int32_t one = 1;
        ps->n = i + 1;
        rc = px_bfrops_unpack(buf, &o->rank, &one, PMIX_PROC_RANK);
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_unpack(buf, &o->state, &one, PMIX_UINT8);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_unpack(buf, &o->pid, &one, PMIX_PID);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_unpack(buf, &o->status, &one, PMIX_INT32);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_unpack_str_opt(buf, &o->stage);
        }
        if (rc == PMIX_SUCCESS && (o->state < PX_DP_PS_STARTED || o->state > PX_DP_PS_CONTINUED)) {
            rc = PMIX_ERR_UNPACK_FAILURE;
        }
    }
    if (rc != PMIX_SUCCESS) {
        px_dp_pstate_free(ps);
    }
    return rc;
}

/* ---- signal, job cleanup ---- */

pmix_status_t px_dp_signal_pack(pmix_data_buffer_t *buf, const pmix_proc_t *target, int32_t sig)
{
    pmix_status_t rc = px_dpi_pack_nspace(buf, target->nspace);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(buf, &target->rank, 1, PMIX_PROC_RANK);
    }
    return rc == PMIX_SUCCESS ? px_bfrops_pack(buf, &sig, 1, PMIX_INT32) : rc;
}

pmix_status_t px_dp_signal_unpack(pmix_data_buffer_t *buf, pmix_proc_t *target, int32_t *sig)
{
    int32_t one = 1;
    memset(target, 0, sizeof(*target));
    pmix_status_t rc = px_dpi_unpack_nspace(buf, target->nspace);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack(buf, &target->rank, &one, PMIX_PROC_RANK);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack(buf, sig, &one, PMIX_INT32);
    }
    if (rc == PMIX_SUCCESS && (*sig < 1 || *sig > 64)) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    return rc;
}

pmix_status_t px_dp_cleanup_pack(pmix_data_buffer_t *buf, const char *nspace)
{
    return px_dpi_pack_nspace(buf, nspace);
}

pmix_status_t px_dp_cleanup_unpack(pmix_data_buffer_t *buf, pmix_nspace_t nspace)
{
    return px_dpi_unpack_nspace(buf, nspace);
}

/* ---- the daemon's decoder ---- */

pmix_status_t px_dp_ctl_decode(uint32_t tag, pmix_data_buffer_t *payload, px_dp_ctl_msg_t *m)
{
    memset(m, 0, sizeof(*m));
    m->tag = tag;
    pmix_status_t rc;
    switch (tag) {
    case PX_DP_TOPO_ASK:
    case PX_DP_HEARTBEAT:
        rc = PMIX_SUCCESS; /* no fields */
        break;
    case PX_DP_EXIT:
        rc = px_dp_exit_unpack(payload, &m->reason);
        break;
    case PX_DP_LAUNCH:
        rc = px_dp_launch_unpack(payload, &m->launch);
        break;
    case PX_DP_SIGNAL:
        rc = px_dp_signal_unpack(payload, &m->target, &m->signal);
        break;
    case PX_DP_JOB_CLEANUP:
        rc = px_dp_cleanup_unpack(payload, m->target.nspace);
        m->target.rank = PMIX_RANK_WILDCARD;
        break;
    case PX_DP_SPAWN:
        rc = px_dp_spawn_unpack(payload, &m->spawn);
        break;
    default:
        rc = px_dpi_ctl_decode_more(tag, payload, m);
        if (rc == PMIX_ERR_NOT_SUPPORTED) {
            return rc;
        }
        break;
    }
    if (rc == PMIX_SUCCESS && px_bfrops_buf_remaining(payload) != 0) {
        rc = PMIX_ERR_UNPACK_FAILURE; /* trailing bytes: not a message we wrote */
    }
    if (rc != PMIX_SUCCESS) {
        px_dp_ctl_msg_free(m);
        m->tag = tag;
    }
    return rc;
}

void px_dp_ctl_msg_free(px_dp_ctl_msg_t *m)
{
    if (m != NULL) {
        px_dp_launch_free(&m->launch);
        px_dp_spawn_free(&m->spawn);
        free(m->sig);
        px_bfrops_info_array_free(m->info, m->ninfo);
        free(m->name);
        free(m->procs);
        px_dp_tree_free(&m->tree);
        memset(m, 0, sizeof(*m));
    }
}

/* ---- the routing tree ---- */

uint32_t px_dp_tree_parent(uint32_t radix, uint32_t id)
{
    if (id == 0 || radix == 0) {
        return UINT32_MAX;
    }
    return (id - 1) / radix;
}

size_t px_dp_tree_children(uint32_t radix, uint32_t id, uint32_t n, uint32_t *out, size_t max)
{
    if (radix == 0) {
        return 0;
    }
    uint64_t first = (uint64_t)id * radix + 1;
    size_t count = 0;
    for (uint64_t c = first; c < first + radix && c < n; c++) {
        if (count < max) {
            out[count] = (uint32_t)c;
        }
        count++;
    }
    return count;
}
