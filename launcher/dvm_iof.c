/* launcher: the host's side of IO forwarding to tools that attach — the iof_pull
 * upcall. A pull succeeds only for channels the job was spawned to forward
 * (PMIX_FWD_STDOUT/STDERR/STDDIAG in its spawn; a job spawned from inside a job
 * forwards what its parent job does), as the Tools chapter asks ("IO Forwarding"); a
 * job of this process (prterun's), whose output is printed here, always: with
 * PMIX_IOF_COPY it is then handed to the library too, with PMIX_IOF_REDIRECT (the
 * default) to the library instead while the pull lasts (output.c); the
 * server library then adds the sinks, first sending what it kept of the output. The
 * upcall is shifted onto the controller loop, where the job table lives.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "launcher/dvm_int.h"

typedef struct {
    px_dvm_t *dvm;
    pmix_proc_t *procs; /* owned */
    size_t nprocs;
    pmix_iof_channel_t channels;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
} pull_req_t;

/* Loop. */
static void pull_on_loop(void *arg)
{
    pull_req_t *r = arg;
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < r->nprocs; i++) {
        px_job_t *j = px_job_find(r->dvm, r->procs[i].nspace);
        if (j == NULL ||
            (r->procs[i].rank != PMIX_RANK_WILDCARD && r->procs[i].rank >= j->nprocs)) {
            px_dvm_log(r->dvm, 1, "IOF pull of %s:%u refused: no such process", r->procs[i].nspace,
                       r->procs[i].rank);
            rc = PMIX_ERR_NOT_FOUND;
        } else if (!j->local && !j->out_here && (r->channels & ~j->fwd) != 0) {
            px_dvm_log(r->dvm, 1, "IOF pull of %s refused: channels %s were not forwarded",
                       j->nspace, PMIx_IOF_channel_string(r->channels & ~j->fwd));
            rc = PMIX_ERR_NOT_SUPPORTED;
        }
    }
    r->cbfunc(rc, r->cbdata);
    free(r->procs);
    free(r);
}

pmix_status_t px_dvm_iof_pull(const pmix_proc_t procs[], size_t nprocs,
                              const pmix_info_t directives[], size_t ndirs,
                              pmix_iof_channel_t channels, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pull_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL || (r->procs = calloc(nprocs ? nprocs : 1, sizeof(*procs))) == NULL) {
        free(r);
        return PMIX_ERR_NOMEM;
    }
    memcpy(r->procs, procs, nprocs * sizeof(*procs));
    r->nprocs = nprocs;
    r->channels = channels;
    r->cbfunc = cbfunc;
    r->cbdata = cbdata;
    r->dvm = px_dvm_served();
    if (r->dvm == NULL || px_dvm_shift(r->dvm, pull_on_loop, r) != 0) {
        free(r->procs);
        free(r);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}
