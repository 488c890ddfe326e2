/* launcher: fences and direct modex across daemons, controller side (docs/PROTOCOL.md,
 * FENCE_UP/FENCE_REL, DMODEX_REQ/DMODEX_RESP). Each daemon whose local participants are
 * all in sends its data up (daemon 0's arrives
 * through this process's own server's fence_nb upcall); once every daemon hosting a
 * participant has, each gets the concatenated data back (nothing for a barrier). A
 * direct-modex request goes to the target's daemon through the controller. Controller
 * loop only (the upcalls are shifted here by dvm.c).
 *
 * With the routing tree (route.c) the contributions come up the tree: each of daemon 0's
 * children in it sends one for its whole subtree, and the release goes back to those.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "daemon/px_dproto.h"
#include "launcher/dvm_int.h"
#include "launcher/px_daemons.h"
#include "net/px_msg.h"
#include "help/px_help.h"

/* One fence in progress, by its participants' signature. */
struct px_cfence {
    px_cfence_t *next;
    char *sig; /* owned */
    bool collect;
    bool *need, *got; /* owned, by daemon id: hosts a participant; contributed */
    size_t nneed, ngot, ndaemons;
    pmix_data_buffer_t data; /* the contributions so far, one after the other */
    /* daemon 0's: the library's callback, called on completion */
    pmix_modex_cbfunc_t cb0;
    void *cbdata0;
};

static void cfence_free(px_cfence_t *f)
{
    free(f->sig);
    free(f->need);
    free(f->got);
    px_bfrops_buf_free(&f->data);
    free(f);
}

static void cfence_unlink(px_dvm_t *dvm, px_cfence_t *f)
{
    for (px_cfence_t **pp = &dvm->fences; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == f) {
            *pp = f->next;
            return;
        }
    }
}

/* Release every contributor with status (and the data on success), retire f. */
static void cfence_release(px_dvm_t *dvm, px_cfence_t *f, pmix_status_t status)
{
    cfence_unlink(dvm, f);
    const char *bytes = status == PMIX_SUCCESS && f->collect ? f->data.base_ptr : NULL;
    size_t len = bytes != NULL ? f->data.bytes_used : 0;
    px_dvm_log(dvm, 2, "fence %s: %s, %zu bytes to %zu daemons", f->sig, PMIx_Error_string(status),
               len, f->ngot);
    pmix_data_buffer_t rel;
    px_bfrops_buf_init(&rel);
    bool packed = px_dp_fence_rel_pack(&rel, f->sig, status, bytes, len) == PMIX_SUCCESS;
    if (packed && rel.bytes_used > PX_MSG_MAX_PAYLOAD) {
        /* more data than one message carries: every participant's fence fails, none
         * waits for a release that cannot be sent */
        px_show_help("help-prte.txt", "fence-too-big", f->ngot, len, PX_MSG_MAX_PAYLOAD >> 20);
        status = PMIX_ERR_OUT_OF_RESOURCE;
        bytes = NULL;
        len = 0;
        px_bfrops_buf_free(&rel);
        px_bfrops_buf_init(&rel);
        packed = px_dp_fence_rel_pack(&rel, f->sig, status, NULL, 0) == PMIX_SUCCESS;
    }
    for (size_t id = 1; id < f->ndaemons; id++) {
        if (f->got[id] &&
            (!packed || px_daemons_send(dvm->daemons, (unsigned)id, PX_DP_FENCE_REL, &rel) != 0)) {
            px_dvm_log(dvm, 1, "fence %s: cannot release daemon %zu", f->sig, id);
        }
    }
    px_bfrops_buf_free(&rel);
    if (f->cb0 != NULL) {
        /* the library copies the bytes before it returns from the callback */
        f->cb0(packed ? status : PMIX_ERR_NOMEM, bytes, len, f->cbdata0, NULL, NULL);
    }
    cfence_free(f);
}

/* The daemons hosting a participant. PMIX_ERR_NOT_FOUND for a job this DVM does not
 * run, or a rank beyond it. */
static pmix_status_t involved(px_dvm_t *dvm, const pmix_proc_t *procs, size_t n, bool *need)
{
    for (size_t i = 0; i < n; i++) {
        px_job_t *j = px_job_find(dvm, procs[i].nspace);
        if (j == NULL) {
            return PMIX_ERR_NOT_FOUND;
        }
        /* (with the routing tree, the daemon among daemon 0's children whose subtree holds
         * the node contributes for it) */
        if (procs[i].rank == PMIX_RANK_WILDCARD) {
            for (size_t r = 0; r < j->nprocs; r++) {
                need[px_route_top(dvm, j->map.procs[r].node)] = true;
            }
        } else if (procs[i].rank < j->nprocs) {
            need[px_route_top(dvm, j->map.procs[procs[i].rank].node)] = true;
        } else {
            return PMIX_ERR_NOT_FOUND;
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t px_fence_contribute(px_dvm_t *dvm, unsigned id, const pmix_proc_t *procs, size_t n,
                                  bool collect, const void *data, size_t len,
                                  pmix_modex_cbfunc_t cb0, void *cbdata0)
{
    char *sig = px_dp_fence_sig(procs, n);
    if (sig == NULL) {
        return PMIX_ERR_NOMEM;
    }
    px_cfence_t *f = dvm->fences;
    while (f != NULL && strcmp(f->sig, sig) != 0) {
        f = f->next;
    }
    if (f == NULL) {
        size_t nd = px_daemons_count(dvm->daemons);
        f = calloc(1, sizeof(*f));
        if (f == NULL || (f->need = calloc(nd, sizeof(bool))) == NULL ||
            (f->got = calloc(nd, sizeof(bool))) == NULL) {
            if (f != NULL) {
                free(f->need);
            }
            free(f);
            free(sig);
            return PMIX_ERR_NOMEM;
        }
        f->sig = sig;
        f->ndaemons = nd;
        px_bfrops_buf_init(&f->data);
        pmix_status_t rc = involved(dvm, procs, n, f->need);
        if (rc != PMIX_SUCCESS) {
            cfence_free(f);
            return rc;
        }
        for (size_t i = 0; i < nd; i++) {
            f->nneed += f->need[i];
        }
        f->next = dvm->fences;
        dvm->fences = f;
    } else {
        free(sig);
    }
    if (id >= f->ndaemons || !f->need[id] || f->got[id]) {
        px_dvm_log(dvm, 1, "fence %s: unexpected contribution from daemon %u", f->sig, id);
        return PMIX_ERR_BAD_PARAM;
    }
    if (len > 0 && px_bfrops_buf_append(&f->data, data, len) != PMIX_SUCCESS) {
        return PMIX_ERR_NOMEM;
    }
    f->got[id] = true;
    f->ngot++;
    f->collect |= collect;
    if (id == 0) {
        f->cb0 = cb0;
        f->cbdata0 = cbdata0;
    }
    px_dvm_log(dvm, 3, "fence %s: daemon %u in (%zu of %zu)", f->sig, id, f->ngot, f->nneed);
    if (f->ngot == f->nneed) {
        cfence_release(dvm, f, PMIX_SUCCESS);
    }
    return PMIX_SUCCESS;
}

/* A daemon's FENCE_UP. A refusal is answered to that daemon alone. */
void px_fence_up(px_dvm_t *dvm, unsigned id, const px_dp_dmn_msg_t *m)
{
    pmix_status_t rc = px_fence_contribute(dvm, id, m->procs, m->nprocs, m->collect, m->data.bytes,
                                           m->data.size, NULL, NULL);
    if (rc == PMIX_SUCCESS) {
        return;
    }
    char *sig = px_dp_fence_sig(m->procs, m->nprocs);
    pmix_data_buffer_t rel;
    px_bfrops_buf_init(&rel);
    if (sig != NULL && px_dp_fence_rel_pack(&rel, sig, rc, NULL, 0) == PMIX_SUCCESS) {
        px_daemons_send(dvm->daemons, id, PX_DP_FENCE_REL, &rel);
    }
    px_bfrops_buf_free(&rel);
    free(sig);
}

/* Whether the signature names a participant of nspace ("ns:" at its start or after a
 * ';'). */
static bool sig_names(const char *sig, const char *nspace)
{
    size_t len = strlen(nspace);
    for (const char *s = sig; s != NULL && *s != '\0'; s = strchr(s, ';'), s = s ? s + 1 : s) {
        if (strncmp(s, nspace, len) == 0 && s[len] == ':') {
            return true;
        }
    }
    return false;
}

/* The fences a job or a daemon can no longer complete fail. */
static void fail_where(px_dvm_t *dvm, const char *nspace, unsigned lost, pmix_status_t status)
{
    for (px_cfence_t *f = dvm->fences; f != NULL;) {
        px_cfence_t *next = f->next;
        unsigned top = px_route_top(dvm, lost); /* the subtree it was part of */
        bool hit = nspace != NULL ? sig_names(f->sig, nspace) : (top < f->ndaemons && f->need[top]);
        if (hit) {
            cfence_release(dvm, f, status);
        }
        f = next;
    }
}

void px_fence_job_ended(px_dvm_t *dvm, const char *nspace)
{
    fail_where(dvm, nspace, 0, PMIX_ERR_PROC_TERM_WO_SYNC);
}

void px_fence_daemon_lost(px_dvm_t *dvm, unsigned id)
{
    fail_where(dvm, NULL, id, PMIX_ERR_LOST_CONNECTION);
}

void px_fence_fini(px_dvm_t *dvm)
{
    while (dvm->fences != NULL) {
        cfence_release(dvm, dvm->fences, PMIX_ERR_LOST_CONNECTION);
    }
}

/* ---- direct modex ---- */

/* Who asked: a daemon's request (id, seq) or this process's server (cb0). */
typedef struct {
    px_dvm_t *dvm;
    unsigned id;
    uint32_t seq;
    pmix_modex_cbfunc_t cb0;
    void *cbdata0;
    pmix_status_t status;
    char *data; /* owned copy (answers from the library's thread) */
    size_t size;
} dmx_t;

static void dmx_answer(dmx_t *x, pmix_status_t status, const void *data, size_t len)
{
    if (x->cb0 != NULL) {
        x->cb0(status, data, len, x->cbdata0, NULL, NULL);
    } else {
        pmix_data_buffer_t b;
        px_bfrops_buf_init(&b);
        if (px_dp_dmodex_resp_pack(&b, status, data, len) == PMIX_SUCCESS) {
            px_daemons_reply(x->dvm->daemons, x->id, x->seq, PX_DP_DMODEX_RESP, &b);
        }
        px_bfrops_buf_free(&b);
    }
    free(x->data);
    free(x);
}

static void dmx_on_reply(unsigned id, pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)id;
    dmx_t *x = cbdata;
    pmix_byte_object_t bo = {0};
    pmix_status_t st = status;
    if (status == PMIX_SUCCESS && px_dp_dmodex_resp_unpack(reply, &st, &bo) != PMIX_SUCCESS) {
        st = PMIX_ERR_UNPACK_FAILURE;
    }
    dmx_answer(x, st, st == PMIX_SUCCESS ? bo.bytes : NULL, st == PMIX_SUCCESS ? bo.size : 0);
}

static void dmx_local_on_loop(void *arg)
{
    dmx_t *x = arg;
    dmx_answer(x, x->status, x->data, x->size);
}

/* PMIx_server_dmodex_request's answer: on the library's thread. */
static void dmx_local_cb(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
    dmx_t *x = cbdata;
    x->status = status;
    if (status == PMIX_SUCCESS && sz > 0) {
        x->data = malloc(sz);
        if (x->data == NULL) {
            x->status = PMIX_ERR_NOMEM;
        } else {
            memcpy(x->data, data, sz);
            x->size = sz;
        }
    }
    if (px_dvm_shift(x->dvm, dmx_local_on_loop, x) != 0) {
        free(x->data);
        free(x); /* the DVM is going: nobody to answer */
    }
}

pmix_status_t px_dmodex_route(px_dvm_t *dvm, unsigned from, uint32_t seq, const pmix_proc_t *target,
                              const pmix_info_t *info, size_t ninfo, pmix_modex_cbfunc_t cb0,
                              void *cbdata0)
{
    px_proc_t *p = px_job_proc(dvm, target);
    if (p == NULL) {
        return PMIX_ERR_NOT_FOUND;
    }
    unsigned to = p->job->map.procs[target->rank].node;
    if (to == from) {
        return PMIX_ERR_NOT_FOUND; /* its own server has what there is */
    }
    dmx_t *x = calloc(1, sizeof(*x));
    if (x == NULL) {
        return PMIX_ERR_NOMEM;
    }
    *x = (dmx_t){.dvm = dvm, .id = from, .seq = seq, .cb0 = cb0, .cbdata0 = cbdata0};
    pmix_status_t rc = PMIX_SUCCESS;
    if (to == 0) {
        rc = PMIx_server_dmodex_request(target, dmx_local_cb, x);
    } else {
        pmix_data_buffer_t b;
        px_bfrops_buf_init(&b);
        rc = px_dp_dmodex_req_pack(&b, target, info, ninfo);
        if (rc == PMIX_SUCCESS &&
            px_daemons_request(dvm->daemons, to, PX_DP_DMODEX_REQ, &b, dmx_on_reply, x) != 0) {
            rc = PMIX_ERR_UNREACH;
        }
        px_bfrops_buf_free(&b);
    }
    if (rc != PMIX_SUCCESS) {
        free(x);
    }
    px_dvm_log(dvm, 3, "direct modex for %s:%u from daemon %u to daemon %u: %s", target->nspace,
               target->rank, from, to, PMIx_Error_string(rc));
    return rc;
}

/* A daemon's DMODEX_REQ: routed, or answered with the refusal. */
void px_dmodex_req(px_dvm_t *dvm, unsigned id, uint32_t seq, const px_dp_dmn_msg_t *m)
{
    pmix_status_t rc = px_dmodex_route(dvm, id, seq, &m->proc, m->info, m->ninfo, NULL, NULL);
    if (rc != PMIX_SUCCESS) {
        pmix_data_buffer_t b;
        px_bfrops_buf_init(&b);
        if (px_dp_dmodex_resp_pack(&b, rc, NULL, 0) == PMIX_SUCCESS) {
            px_daemons_reply(dvm->daemons, id, seq, PX_DP_DMODEX_RESP, &b);
        }
        px_bfrops_buf_free(&b);
    }
}
