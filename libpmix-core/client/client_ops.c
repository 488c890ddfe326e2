/* client: PMIx_Put/Commit, PMIx_Fence(_nb), PMIx_Publish/Lookup/Unpublish(_nb), PMIx_Abort,
 * PMIx_Job_control(_nb), PMIx_Log(_nb). Blocking forms wait on the caller's thread;
 * non-blocking callbacks run on the client's loop, never inside the call.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "client/px_client.h"
#include "server/px_server.h"

/* ---- put / commit ---- */

PMIX_EXPORT pmix_status_t PMIx_Put(pmix_scope_t scope, const char key[], pmix_value_t *val)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (key == NULL || key[0] == '\0' || strlen(key) > PMIX_MAX_KEYLEN || val == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (scope != PMIX_SCOPE_UNDEF && scope != PMIX_LOCAL && scope != PMIX_REMOTE &&
        scope != PMIX_GLOBAL && scope != PMIX_INTERNAL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pthread_mutex_lock(&px_cl.lock);
    pmix_status_t rc = PMIX_ERR_NOMEM;
    /* our own copy answers our own PMIx_Get of the key, whatever its scope */
    px_nspace_t *ns = px_store_find(&px_cl.store, px_cl.myproc.nspace);
    px_ns_rank_t *me = ns ? px_ns_rank(ns, px_cl.myproc.rank) : NULL;
    if (me != NULL) {
        rc = px_kvset_put(px_ns_rank_is_local(ns, px_cl.myproc.rank) ? &me->local : &me->remote,
                          key, val);
    }
    if (rc == PMIX_SUCCESS && scope != PMIX_INTERNAL && scope != PMIX_REMOTE) {
        rc = px_kvset_put(&px_cl.commit_local, key, val);
    }
    if (rc == PMIX_SUCCESS && scope != PMIX_INTERNAL && scope != PMIX_LOCAL) {
        rc = px_kvset_put(&px_cl.commit_remote, key, val);
    }
    pthread_mutex_unlock(&px_cl.lock);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Commit(void)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    pmix_data_buffer_t msg;
    px_bfrops_buf_init(&msg);
    pthread_mutex_lock(&px_cl.lock);
    pmix_status_t rc = px_bfrops_pack_info_array(&msg, px_cl.commit_local.kv, px_cl.commit_local.n);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(&msg, px_cl.commit_remote.kv, px_cl.commit_remote.n);
    }
    if (rc == PMIX_SUCCESS) {
        px_kvset_fini(&px_cl.commit_local);
        px_kvset_fini(&px_cl.commit_remote);
    }
    pthread_mutex_unlock(&px_cl.lock);
    if (rc == PMIX_SUCCESS) {
        rc = px_cl_send(PX_TAG_COMMIT, &msg);
    }
    px_bfrops_buf_free(&msg);
    return rc;
}

/* ---- callback records ---- */

/* The caller's callback, kept until the reply comes. */
typedef struct {
    union {
        pmix_op_cbfunc_t op;
        pmix_lookup_cbfunc_t lookup;
        pmix_info_cbfunc_t info;
    } cb;
    void *cbdata;
    pmix_info_t *results; /* info callbacks: owned until the callee releases them */
    size_t nresults;
} ucb_t;

static void opcb_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)reply;
    ucb_t *u = cbdata;
    u->cb.op(st, u->cbdata);
    free(u);
}

/* Send msg (if packing it succeeded: rc); the reply goes to reply_fn with a copy of cb.
 * No callback on error. msg is freed. */
static pmix_status_t cb_request(pmix_status_t rc, uint32_t tag, pmix_data_buffer_t *msg,
                                int timeout_ms, px_creq_fn reply_fn, ucb_t cb)
{
    ucb_t *u = rc == PMIX_SUCCESS ? malloc(sizeof(*u)) : NULL;
    if (rc == PMIX_SUCCESS && u == NULL) {
        rc = PMIX_ERR_NOMEM;
    }
    if (rc == PMIX_SUCCESS) {
        *u = cb;
        rc = px_cl_request(tag, msg, timeout_ms, reply_fn, u);
        if (rc != PMIX_SUCCESS) {
            free(u);
        }
    }
    px_bfrops_buf_free(msg);
    return rc;
}

static pmix_status_t op_request(pmix_status_t rc, uint32_t tag, pmix_data_buffer_t *msg,
                                int timeout_ms, pmix_op_cbfunc_t cb, void *cbdata)
{
    return cb_request(rc, tag, msg, timeout_ms, opcb_reply, (ucb_t){.cb.op = cb, .cbdata = cbdata});
}

/* ---- fence ---- */

/* The server times a fence's PMIX_TIMEOUT itself and answers all its participants at
 * once. The client's own timer is only a backstop for a server that never answers: were
 * it as short, a participant could be told PMIX_ERR_TIMEOUT while the server still holds
 * its contribution and completes the fence for the others (the Standard warns of several
 * layers timing one operation). */
#define PX_FENCE_BACKSTOP_MS 5000

static int fence_timeout_ms(const pmix_info_t info[], size_t ninfo)
{
    int ms = px_cl_timeout_ms(info, ninfo);
    return ms > 0 ? ms + PX_FENCE_BACKSTOP_MS : 0;
}

static pmix_status_t pack_fence(pmix_data_buffer_t *msg, const pmix_proc_t procs[], size_t nprocs,
                                const pmix_info_t info[], size_t ninfo)
{
    px_bfrops_buf_init(msg); /* the caller frees it whatever we return */
    if ((nprocs > 0 && procs == NULL) || (ninfo > 0 && info == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = px_bfrops_pack(msg, &nprocs, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && nprocs > 0) {
        rc = px_bfrops_pack(msg, procs, (int32_t)nprocs, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(msg, info, ninfo);
    }
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Fence(const pmix_proc_t procs[], size_t nprocs,
                                     const pmix_info_t info[], size_t ninfo)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    pmix_data_buffer_t msg, reply;
    px_bfrops_buf_init(&reply);
    pmix_status_t rc = pack_fence(&msg, procs, nprocs, info, ninfo);
    if (rc == PMIX_SUCCESS) {
        rc = px_cl_request_wait(PX_TAG_FENCE, &msg, fence_timeout_ms(info, ninfo), &reply);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_cl_store_blob(&reply);
    }
    px_bfrops_buf_free(&msg);
    px_bfrops_buf_free(&reply);
    return rc;
}

static void fence_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
    if (st == PMIX_SUCCESS && reply != NULL) {
        st = px_cl_store_blob(reply);
    }
    opcb_reply(st, NULL, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Fence_nb(const pmix_proc_t procs[], size_t nprocs,
                                        const pmix_info_t info[], size_t ninfo,
                                        pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (cbfunc == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_data_buffer_t msg;
    pmix_status_t rc = pack_fence(&msg, procs, nprocs, info, ninfo);
    return cb_request(rc, PX_TAG_FENCE, &msg, fence_timeout_ms(info, ninfo), fence_reply,
                      (ucb_t){.cb.op = cbfunc, .cbdata = cbdata});
}

/* ---- publish / lookup / unpublish ---- */

static pmix_status_t pack_infos(pmix_data_buffer_t *msg, const pmix_info_t info[], size_t ninfo)
{
    px_bfrops_buf_init(msg);
    if (ninfo > 0 && info == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    return px_bfrops_pack_info_array(msg, info, ninfo);
}

PMIX_EXPORT pmix_status_t PMIx_Publish(const pmix_info_t info[], size_t ninfo)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (ninfo == 0 || info == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_data_buffer_t msg;
    pmix_status_t rc = pack_infos(&msg, info, ninfo);
    if (rc == PMIX_SUCCESS) {
        rc = px_cl_request_wait(PX_TAG_PUBLISH, &msg, px_cl_timeout_ms(info, ninfo), NULL);
    }
    px_bfrops_buf_free(&msg);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Publish_nb(const pmix_info_t info[], size_t ninfo,
                                          pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (ninfo == 0 || info == NULL || cbfunc == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_data_buffer_t msg;
    pmix_status_t rc = pack_infos(&msg, info, ninfo);
    return op_request(rc, PX_TAG_PUBLISH, &msg, px_cl_timeout_ms(info, ninfo), cbfunc, cbdata);
}

static pmix_status_t pack_keys(pmix_data_buffer_t *msg, char **keys, const pmix_info_t info[],
                               size_t ninfo)
{
    px_bfrops_buf_init(msg);
    if (ninfo > 0 && info == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    size_t n = keys ? (size_t)PMIx_Argv_count(keys) : 0;
    pmix_status_t rc = px_bfrops_pack(msg, &n, 1, PMIX_SIZE);
    for (size_t i = 0; i < n && rc == PMIX_SUCCESS; i++) {
        rc = px_bfrops_pack(msg, &keys[i], 1, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(msg, info, ninfo);
    }
    return rc;
}

/* Unpack "size n, pdata[n]" into a new array. */
static pmix_status_t unpack_pdata(pmix_data_buffer_t *reply, pmix_pdata_t **pd, size_t *n)
{
    int32_t one = 1;
    *pd = NULL;
    *n = 0;
    pmix_status_t rc =
        px_bfrops_unpack_count(reply, PMIX_SIZE, px_bfrops_wire_elem(PMIX_PDATA), 1024u * 1024u, n);
    if (rc != PMIX_SUCCESS || *n == 0) {
        return rc;
    }
    *pd = PMIx_Pdata_create(*n);
    if (*pd == NULL) {
        *n = 0;
        return PMIX_ERR_NOMEM;
    }
    one = (int32_t)*n;
    rc = px_bfrops_unpack(reply, *pd, &one, PMIX_PDATA);
    if (rc != PMIX_SUCCESS) {
        PMIx_Pdata_free(*pd, *n);
        *pd = NULL;
        *n = 0;
    }
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Lookup(pmix_pdata_t data[], size_t ndata, const pmix_info_t info[],
                                      size_t ninfo)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (data == NULL || ndata == 0) {
        return PMIX_ERR_BAD_PARAM;
    }
    char **keys = NULL;
    for (size_t i = 0; i < ndata; i++) {
        PMIx_Argv_append_nosize(&keys, data[i].key);
    }
    pmix_data_buffer_t msg, reply;
    px_bfrops_buf_init(&reply);
    pmix_status_t rc = pack_keys(&msg, keys, info, ninfo);
    PMIx_Argv_free(keys);
    if (rc == PMIX_SUCCESS) {
        rc = px_cl_request_wait(PX_TAG_LOOKUP, &msg, px_cl_timeout_ms(info, ninfo), &reply);
    }
    pmix_pdata_t *found = NULL;
    size_t nfound = 0;
    if (rc == PMIX_SUCCESS) {
        rc = unpack_pdata(&reply, &found, &nfound);
    }
    size_t filled = 0;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < ndata; i++) {
        for (size_t k = 0; k < nfound; k++) {
            if (PMIx_Check_key(found[k].key, data[i].key)) {
                data[i].proc = found[k].proc;
                PMIx_Value_destruct(&data[i].value);
                PMIx_Value_xfer(&data[i].value, &found[k].value);
                filled++;
                break;
            }
        }
    }
    if (rc == PMIX_SUCCESS && filled == 0) {
        rc = PMIX_ERR_NOT_FOUND;
    }
    PMIx_Pdata_free(found, nfound);
    px_bfrops_buf_free(&msg);
    px_bfrops_buf_free(&reply);
    return rc;
}

static void lookup_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
    ucb_t *l = cbdata;
    pmix_pdata_t *pd = NULL;
    size_t n = 0;
    if (st == PMIX_SUCCESS && reply != NULL) {
        st = unpack_pdata(reply, &pd, &n);
    }
    l->cb.lookup(st, pd, n, l->cbdata);
    PMIx_Pdata_free(pd, n);
    free(l);
}

PMIX_EXPORT pmix_status_t PMIx_Lookup_nb(char **keys, const pmix_info_t info[], size_t ninfo,
                                         pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (keys == NULL || keys[0] == NULL || cbfunc == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_data_buffer_t msg;
    pmix_status_t rc = pack_keys(&msg, keys, info, ninfo);
    return cb_request(rc, PX_TAG_LOOKUP, &msg, px_cl_timeout_ms(info, ninfo), lookup_reply,
                      (ucb_t){.cb.lookup = cbfunc, .cbdata = cbdata});
}

PMIX_EXPORT pmix_status_t PMIx_Unpublish(char **keys, const pmix_info_t info[], size_t ninfo)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    pmix_data_buffer_t msg;
    pmix_status_t rc = pack_keys(&msg, keys, info, ninfo);
    if (rc == PMIX_SUCCESS) {
        rc = px_cl_request_wait(PX_TAG_UNPUBLISH, &msg, px_cl_timeout_ms(info, ninfo), NULL);
    }
    px_bfrops_buf_free(&msg);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Unpublish_nb(char **keys, const pmix_info_t info[], size_t ninfo,
                                            pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (cbfunc == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_data_buffer_t msg;
    pmix_status_t rc = pack_keys(&msg, keys, info, ninfo);
    return op_request(rc, PX_TAG_UNPUBLISH, &msg, px_cl_timeout_ms(info, ninfo), cbfunc, cbdata);
}

/* ---- abort ---- */

PMIX_EXPORT pmix_status_t PMIx_Abort(int status, const char msg[], pmix_proc_t procs[],
                                     size_t nprocs)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (nprocs > 0 && procs == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_data_buffer_t buf;
    px_bfrops_buf_init(&buf);
    int32_t st = status;
    const char *m = msg;
    pmix_status_t rc = px_bfrops_pack(&buf, &st, 1, PMIX_INT32);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(&buf, &m, 1, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(&buf, &nprocs, 1, PMIX_SIZE);
    }
    if (rc == PMIX_SUCCESS && nprocs > 0) {
        rc = px_bfrops_pack(&buf, procs, (int32_t)nprocs, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) {
        /* the host usually terminates us before answering */
        rc = px_cl_request_wait(PX_TAG_ABORT, &buf, 0, NULL);
    }
    px_bfrops_buf_free(&buf);
    return rc;
}

/* ---- job control ---- */

static pmix_status_t pack_jobctl(pmix_data_buffer_t *msg, const pmix_proc_t targets[],
                                 size_t ntargets, const pmix_info_t directives[], size_t ndirs)
{
    return pack_fence(msg, targets, ntargets, directives, ndirs); /* same layout */
}

PMIX_EXPORT pmix_status_t PMIx_Job_control(const pmix_proc_t targets[], size_t ntargets,
                                           const pmix_info_t directives[], size_t ndirs,
                                           pmix_info_t **results, size_t *nresults)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (results != NULL) {
        *results = NULL;
    }
    if (nresults != NULL) {
        *nresults = 0;
    }
    pmix_data_buffer_t msg, reply;
    px_bfrops_buf_init(&reply);
    pmix_status_t rc = pack_jobctl(&msg, targets, ntargets, directives, ndirs);
    if (rc == PMIX_SUCCESS) {
        rc = px_cl_request_wait(PX_TAG_JOBCTL, &msg, px_cl_timeout_ms(directives, ndirs), &reply);
    }
    if (rc == PMIX_SUCCESS && results != NULL && nresults != NULL &&
        px_bfrops_buf_remaining(&reply) > 0) {
        rc = px_bfrops_unpack_info_array(&reply, results, nresults);
    }
    px_bfrops_buf_free(&msg);
    px_bfrops_buf_free(&reply);
    return rc;
}

static void results_release(void *arg)
{
    ucb_t *u = arg;
    px_bfrops_info_array_free(u->results, u->nresults);
    free(u);
}

static void jobctl_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
    ucb_t *u = cbdata;
    if (st == PMIX_SUCCESS && reply != NULL && px_bfrops_buf_remaining(reply) > 0) {
        st = px_bfrops_unpack_info_array(reply, &u->results, &u->nresults);
    }
    if (u->cb.info == NULL) {
        results_release(u); /* a request nobody waits for (see PMIx_Job_control_nb) */
        return;
    }
    /* the results stay valid until the callee calls the release function */
    u->cb.info(st, u->results, u->nresults, u->cbdata, results_release, u);
}

PMIX_EXPORT pmix_status_t PMIx_Job_control_nb(const pmix_proc_t targets[], size_t ntargets,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    /* cbfunc may be NULL: the request is sent and its answer dropped. Open MPI 4.1
     * registers its session directory for cleanup that way (OpenPMIx accepts it). */
    pmix_data_buffer_t msg;
    pmix_status_t rc = pack_jobctl(&msg, targets, ntargets, directives, ndirs);
    return cb_request(rc, PX_TAG_JOBCTL, &msg, px_cl_timeout_ms(directives, ndirs), jobctl_reply,
                      (ucb_t){.cb.info = cbfunc, .cbdata = cbdata});
}

/* ---- log ---- */

static pmix_status_t pack_log(pmix_data_buffer_t *msg, const pmix_info_t data[], size_t ndata,
                              const pmix_info_t directives[], size_t ndirs)
{
    px_bfrops_buf_init(msg);
    if (ndata == 0 || data == NULL || (ndirs > 0 && directives == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = px_bfrops_pack_info_array(msg, data, ndata);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(msg, directives, ndirs);
    }
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Log(const pmix_info_t data[], size_t ndata,
                                   const pmix_info_t directives[], size_t ndirs)
{
    if (!px_cl_initialized()) {
        /* a server's own log (its host's, or the channels the server library serves) */
        return px_srv != NULL ? px_srv_api_log(data, ndata, directives, ndirs, NULL, NULL)
                              : PMIX_ERR_INIT;
    }
    pmix_data_buffer_t msg;
    pmix_status_t rc = pack_log(&msg, data, ndata, directives, ndirs);
    if (rc == PMIX_SUCCESS) {
        rc = px_cl_request_wait(PX_TAG_LOG, &msg, px_cl_timeout_ms(directives, ndirs), NULL);
    }
    px_bfrops_buf_free(&msg);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Log_nb(const pmix_info_t data[], size_t ndata,
                                      const pmix_info_t directives[], size_t ndirs,
                                      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (cbfunc == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!px_cl_initialized()) {
        return px_srv != NULL ? px_srv_api_log(data, ndata, directives, ndirs, cbfunc, cbdata)
                              : PMIX_ERR_INIT;
    }
    pmix_data_buffer_t msg;
    pmix_status_t rc = pack_log(&msg, data, ndata, directives, ndirs);
    return op_request(rc, PX_TAG_LOG, &msg, px_cl_timeout_ms(directives, ndirs), cbfunc, cbdata);
}
