/* client: PMIx_Spawn / PMIx_Spawn_nb for clients and tools (SPAWN to the server, which
 * asks its host). The blocking form waits on the caller's thread; the non-blocking
 * callback runs on the client's loop, never inside the call, before any output of the
 * new job is handled (a PMIx_IOF_pull made inside it sees all of that output).
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "client/px_client.h"
#include "client/px_tool.h"

/* info[] job info, size n, app[n]; checks the input first. */
static pmix_status_t pack_spawn(pmix_data_buffer_t *msg, const pmix_info_t job_info[], size_t ninfo,
                                const pmix_app_t apps[], size_t napps)
{
    px_bfrops_buf_init(msg);
    if (apps == NULL || napps == 0 || (ninfo > 0 && job_info == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    for (size_t i = 0; i < napps; i++) {
        if (apps[i].cmd == NULL || apps[i].cmd[0] == '\0' || apps[i].maxprocs < 0 ||
            (apps[i].ninfo > 0 && apps[i].info == NULL)) {
            return PMIX_ERR_BAD_PARAM;
        }
    }
    pmix_status_t rc = px_bfrops_pack_info_array(msg, job_info, ninfo);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(msg, &napps, 1, PMIX_SIZE);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(msg, apps, (int32_t)napps, PMIX_APP);
    }
    return rc;
}

/* The namespace in a SPAWN reply. */
static pmix_status_t unpack_nspace(pmix_data_buffer_t *reply, pmix_nspace_t nspace)
{
    char *ns = NULL;
    int32_t one = 1;
    pmix_status_t rc = px_bfrops_unpack(reply, &ns, &one, PMIX_STRING);
    if (rc == PMIX_SUCCESS && (ns == NULL || ns[0] == '\0')) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    if (rc == PMIX_SUCCESS) {
        PMIX_LOAD_NSPACE(nspace, ns);
    }
    free(ns);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Spawn(const pmix_info_t job_info[], size_t ninfo,
                                     const pmix_app_t apps[], size_t napps, pmix_nspace_t nspace)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (nspace != NULL) {
        memset(nspace, 0, sizeof(pmix_nspace_t));
    }
    pmix_data_buffer_t msg, reply;
    px_bfrops_buf_init(&reply);
    pmix_status_t rc = pack_spawn(&msg, job_info, ninfo, apps, napps);
    if (rc == PMIX_SUCCESS && px_tool_self_spawns()) {
        px_bfrops_buf_free(&msg);
        return px_tool_self_spawn(job_info, ninfo, apps, napps, nspace); /* tool_spawn.c */
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_cl_request_wait(PX_TAG_SPAWN, &msg, px_cl_timeout_ms(job_info, ninfo), &reply);
    }
    if (rc == PMIX_SUCCESS) {
        pmix_nspace_t ns;
        rc = unpack_nspace(&reply, ns);
        if (rc == PMIX_SUCCESS && nspace != NULL) {
            PMIX_LOAD_NSPACE(nspace, ns);
        }
    }
    px_bfrops_buf_free(&msg);
    px_bfrops_buf_free(&reply);
    return rc;
}

typedef struct {
    pmix_spawn_cbfunc_t cbfunc;
    void *cbdata;
    pmix_status_t status; /* a self-spawn's */
    pmix_nspace_t nspace;
} spawn_cb_t;

static void self_spawned(void *arg)
{
    spawn_cb_t *s = arg;
    s->cbfunc(s->status, s->nspace, s->cbdata);
    free(s);
}

static void spawn_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
    spawn_cb_t *s = cbdata;
    pmix_nspace_t ns;
    memset(ns, 0, sizeof(ns));
    if (st == PMIX_SUCCESS) {
        st = reply != NULL ? unpack_nspace(reply, ns) : PMIX_ERR_UNPACK_FAILURE;
    }
    s->cbfunc(st, ns, s->cbdata);
    free(s);
}

PMIX_EXPORT pmix_status_t PMIx_Spawn_nb(const pmix_info_t job_info[], size_t ninfo,
                                        const pmix_app_t apps[], size_t napps,
                                        pmix_spawn_cbfunc_t cbfunc, void *cbdata)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (cbfunc == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_data_buffer_t msg;
    pmix_status_t rc = pack_spawn(&msg, job_info, ninfo, apps, napps);
    spawn_cb_t *s = NULL;
    if (rc == PMIX_SUCCESS) {
        s = calloc(1, sizeof(*s));
        rc = s != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    if (rc == PMIX_SUCCESS && px_tool_self_spawns()) {
        /* started here and now; the callback comes later on the loop */
        *s = (spawn_cb_t){cbfunc, cbdata};
        s->status = px_tool_self_spawn(job_info, ninfo, apps, napps, s->nspace);
        rc = px_cl_later(self_spawned, s);
    } else if (rc == PMIX_SUCCESS) {
        *s = (spawn_cb_t){cbfunc, cbdata};
        rc = px_cl_request(PX_TAG_SPAWN, &msg, px_cl_timeout_ms(job_info, ninfo), spawn_reply, s);
    }
    if (rc != PMIX_SUCCESS) {
        free(s);
    }
    px_bfrops_buf_free(&msg);
    return rc;
}
