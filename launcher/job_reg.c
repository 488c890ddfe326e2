/* launcher: the application setup the Server chapter asks of a host before a job is
 * launched (PMIx_server_setup_application; its answer travels in the LAUNCH message to
 * every daemon, which hands it to PMIx_server_setup_local_support before its processes
 * are forked, daemon/nagent_reg.c). Controller loop, except the setup callback (library
 * thread), which shifts back to it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/px_common.h"
#include "launcher/dvm_int.h"

/* ---- application setup ---- */

typedef struct {
    px_dvm_t *dvm;
    char nspace[PMIX_MAX_NSLEN + 1];
    pmix_info_t *req; /* owned: the request, borrowed by the library until setup_cb */
    size_t nreq;
    pmix_status_t status;
    pmix_info_t *info; /* owned copy of the library's answer */
    size_t ninfo;
    px_job_setup_done_t done;
} setup_t;

static void setup_on_loop(void *arg)
{
    setup_t *s = arg;
    px_job_t *j = px_job_find(s->dvm, s->nspace);
    if (j != NULL) { /* a job waiting for its setup never ends meanwhile */
        s->done(j, s->status, s->info, s->ninfo);
    }
    PMIx_Info_free(s->info, s->ninfo);
    PMIx_Info_free(s->req, s->nreq);
    free(s);
}

/* Library thread: copy the answer, give the library its array back, go to the loop. */
static void setup_cb(pmix_status_t status, pmix_info_t info[], size_t ninfo, void *provided_cbdata,
                     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    setup_t *s = provided_cbdata;
    s->status = status;
    if (status == PMIX_SUCCESS && ninfo > 0) {
        s->info = PMIx_Info_create(ninfo);
        s->status = s->info != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
        for (size_t i = 0; s->info != NULL && i < ninfo; i++) {
            PMIx_Info_xfer(&s->info[i], &info[i]);
        }
        s->ninfo = s->info != NULL ? ninfo : 0;
    }
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, cbdata);
    }
    if (px_dvm_shift(s->dvm, setup_on_loop, s) != 0) {
        /* cannot happen short of memory; the job then waits for its timeout or pterm */
        px_dvm_log(s->dvm, 0, "%s: lost the application setup answer", s->nspace);
        PMIx_Info_free(s->info, s->ninfo);
        PMIx_Info_free(s->req, s->nreq);
        free(s);
    }
}

static bool is_model_key(const pmix_info_t *in)
{
    return PMIX_CHECK_KEY(in, PMIX_PROGRAMMING_MODEL) ||
           PMIX_CHECK_KEY(in, PMIX_MODEL_LIBRARY_NAME) ||
           PMIX_CHECK_KEY(in, PMIX_MODEL_LIBRARY_VERSION);
}

pmix_status_t px_job_setup_app(px_job_t *j, const char *node_map, const char *proc_map,
                               const pmix_info_t *job_info, size_t njob_info,
                               px_job_setup_done_t done)
{
    size_t nmodel = 0;
    for (size_t i = 0; i < njob_info; i++) {
        nmodel += is_model_key(&job_info[i]);
    }
    pmix_info_t *info = PMIx_Info_create(3 + nmodel);
    setup_t *s = calloc(1, sizeof(*s));
    if (info == NULL || s == NULL) {
        PMIx_Info_free(info, 3 + nmodel);
        free(s);
        return PMIX_ERR_NOMEM;
    }
    bool yes = true;
    size_t n = 0;
    PMIx_Info_load(&info[n++], PMIX_NODE_MAP, node_map, PMIX_STRING);
    PMIx_Info_load(&info[n++], PMIX_PROC_MAP, proc_map, PMIX_STRING);
    PMIx_Info_load(&info[n++], PMIX_SETUP_APP_ALL, &yes, PMIX_BOOL);
    for (size_t i = 0; i < njob_info; i++) {
        if (is_model_key(&job_info[i])) {
            PMIx_Info_xfer(&info[n++], &job_info[i]);
        }
    }
    s->dvm = j->dvm;
    snprintf(s->nspace, sizeof(s->nspace), "%s", j->nspace);
    s->done = done;
    s->req = info;
    s->nreq = 3 + nmodel;
    pmix_status_t rc = PMIx_server_setup_application(j->nspace, info, n, setup_cb, s);
    if (rc != PMIX_SUCCESS) {
        PMIx_Info_free(info, 3 + nmodel);
        free(s);
    }
    return rc;
}
