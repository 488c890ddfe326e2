/* launcher: what the controller does for the other nodes beyond their jobs' messages —
 * process sets kept the same on every daemon (PSET to every prted, after this process's
 * own server has the set), a prted's process's PMIx_Spawn (PROC_SPAWN: the same px_job_spawn
 * as this server's spawn upcall), and the daemons' own messages on our terminal (REPORT,
 * each (file, topic) shown once, repeats counted). Controller loop only.
 */
#include <stdio.h>
#include <stdlib.h>

#include <pmix.h>
#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "daemon/px_dproto.h"
#include "help/px_help.h"
#include "launcher/dvm_int.h"
#include "launcher/px_daemons.h"

/* The PSET message to every daemon up but daemon 0 (whose server is ours). */
static void pset_to_daemons(px_dvm_t *dvm, bool define, const char *name,
                            const pmix_proc_t *members, size_t n)
{
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    size_t nd = dvm->daemons != NULL ? px_daemons_count(dvm->daemons) : 0;
    if (nd > 1 && px_dp_pset_pack(&b, define, name, members, n) == PMIX_SUCCESS &&
        px_route_xcast(dvm, PX_DP_PSET, &b, false) != 0) {
        /* no routing tree: to each */
        for (size_t id = 1; id < nd; id++) {
            if (px_daemons_up(dvm->daemons, (unsigned)id) &&
                px_daemons_send(dvm->daemons, (unsigned)id, PX_DP_PSET, &b) != 0) {
                px_dvm_log(dvm, 1, "process set %s: not sent to daemon %zu", name, id);
            }
        }
    }
    px_bfrops_buf_free(&b);
}

pmix_status_t px_dvm_pset_define(px_dvm_t *dvm, const pmix_proc_t *members, size_t n,
                                 const char *name)
{
    pmix_status_t rc = PMIx_server_define_process_set(members, n, name);
    if (rc == PMIX_SUCCESS) {
        pset_to_daemons(dvm, true, name, members, n);
    }
    return rc;
}

void px_dvm_pset_delete(px_dvm_t *dvm, const char *name)
{
    if (PMIx_server_delete_process_set((char *)name) == PMIX_SUCCESS) {
        pset_to_daemons(dvm, false, name, NULL, 0);
    }
}

/* ---- spawn from a process of another node ---- */

typedef struct {
    px_dvm_t *dvm;
    unsigned id;
    uint32_t seq;
    pmix_app_t *apps; /* owned: borrowed by the job until the spawn is answered */
    size_t napps;
    pmix_info_t *info; /* owned, likewise */
    size_t ninfo;
} rspawn_t;

static void rspawn_done(pmix_status_t status, char nspace[], void *cbdata)
{
    rspawn_t *x = cbdata;
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    if (px_dp_proc_spawn_reply_pack(&b, status, status == PMIX_SUCCESS ? nspace : NULL) !=
            PMIX_SUCCESS ||
        px_daemons_reply(x->dvm->daemons, x->id, x->seq, PX_DP_PROC_SPAWN, &b) != 0) {
        px_dvm_log(x->dvm, 1, "spawn: the answer to daemon %u was not sent", x->id);
    }
    px_bfrops_buf_free(&b);
    PMIx_App_free(x->apps, x->napps);
    px_bfrops_info_array_free(x->info, x->ninfo);
    free(x);
}

void px_dvm_spawn_remote(px_dvm_t *dvm, unsigned id, uint32_t seq, px_dp_dmn_msg_t *m)
{
    rspawn_t *x = calloc(1, sizeof(*x));
    if (x == NULL) {
        pmix_data_buffer_t b;
        px_bfrops_buf_init(&b);
        if (px_dp_proc_spawn_reply_pack(&b, PMIX_ERR_NOMEM, NULL) == PMIX_SUCCESS) {
            px_daemons_reply(dvm->daemons, id, seq, PX_DP_PROC_SPAWN, &b);
        }
        px_bfrops_buf_free(&b);
        return;
    }
    /* the request's arrays are the job's now: taken from the message */
    *x = (rspawn_t){.dvm = dvm,
                    .id = id,
                    .seq = seq,
                    .apps = m->apps,
                    .napps = m->napps,
                    .info = m->info,
                    .ninfo = m->ninfo};
    m->apps = NULL;
    m->napps = 0;
    m->info = NULL;
    m->ninfo = 0;
    px_dvm_log(dvm, 2, "spawn from %s:%u on daemon %u", m->proc.nspace, m->proc.rank, id);
    pmix_status_t rc = PMIX_ERR_NO_PERMISSIONS;
    if (px_dvm_auth_may_act(dvm, &m->proc, "spawn")) {
        rc =
            px_job_spawn(dvm, &m->proc, NULL, x->info, x->ninfo, x->apps, x->napps, rspawn_done, x);
    }
    if (rc != PMIX_SUCCESS) {
        rspawn_done(rc, NULL, x);
    }
}

/* ---- the daemons' messages ---- */

void px_dvm_report(px_dvm_t *dvm, unsigned id, const px_dp_dmn_msg_t *m)
{
    if (dvm->reports == NULL) {
        dvm->reports = px_help_dedup_create(0);
    }
    px_dvm_log(dvm, 2, "daemon %u reports %s / %s", id, m->file, m->topic);
    if (dvm->reports == NULL ||
        px_help_dedup_show_text(dvm->reports, stderr, m->file, m->topic, m->text) < 0) {
        px_help_fput(stderr, m->text); /* shown, if not counted */
    }
}

void px_dvm_remote_fini(px_dvm_t *dvm)
{
    if (dvm->reports != NULL) {
        px_help_dedup_flush(dvm->reports, stderr);
        px_help_dedup_destroy(dvm->reports);
        dvm->reports = NULL;
    }
}
