/* client: process groups (PMIx_Group_construct/destruct/invite/join/leave and their _nb
 * forms) and what the client keeps of each group it was in: the members' PMIX_GROUP_INFO
 * contributions, answered by PMIx_Get with a PMIX_GROUP_CONTEXT_ID or PMIX_GROUP_ID
 * qualifier, even after the group is destructed (as programs read them). Decisions taken
 * by the application's handlers of group events go back to the server as notifications.
 * The server does the tracking (server/server_group.c). Callbacks run on the client's
 * loop, never inside the call.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "client/px_client.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "event/px_event.h"
#include "types/px_types.h"

/* ---- what we keep of the groups we were in (px_cl.lock) ---- */

typedef struct cl_ginfo {
    pmix_proc_t proc;
    pmix_info_t *info; /* owned: its PMIX_GROUP_INFO contribution */
    size_t ninfo;
} cl_ginfo_t;

typedef struct cl_grp {
    char id[PMIX_MAX_NSLEN + 1];
    bool has_ctx;
    size_t ctxid;
    cl_ginfo_t *e; /* owned */
    size_t ne;
    struct cl_grp *next; /* newest first */
} cl_grp_t;

static cl_grp_t *groups;

static void grp_free(cl_grp_t *g)
{
    for (size_t i = 0; i < g->ne; i++) {
        px_bfrops_info_array_free(g->e[i].info, g->e[i].ninfo);
    }
    free(g->e);
    free(g);
}

void px_cl_group_fini(void)
{
    pthread_mutex_lock(&px_cl.lock);
    while (groups != NULL) {
        cl_grp_t *g = groups;
        groups = g->next;
        grp_free(g);
    }
    pthread_mutex_unlock(&px_cl.lock);
}

/* Keep a group's results and the group info blob that follows them in reply (kept until
 * finalize: programs read a member's contribution even after the destruct). */
static void keep(const pmix_info_t *res, size_t nres, pmix_data_buffer_t *reply)
{
    cl_grp_t *g = calloc(1, sizeof(*g));
    if (g == NULL) {
        return;
    }
    for (size_t i = 0; i < nres; i++) {
        if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_ID) && res[i].value.type == PMIX_STRING) {
            PMIX_LOAD_NSPACE(g->id, res[i].value.data.string);
        } else if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_CONTEXT_ID)) {
            g->has_ctx = PMIx_Value_get_number(&res[i].value, &g->ctxid, PMIX_SIZE) == PMIX_SUCCESS;
        }
    }
    pmix_proc_t p;
    pmix_info_t *info;
    size_t ninfo;
    while (reply != NULL && px_blob_next(reply, &p, &info, &ninfo) == PMIX_SUCCESS) {
        cl_ginfo_t *grown = realloc(g->e, (g->ne + 1) * sizeof(*grown));
        if (grown == NULL) {
            px_bfrops_info_array_free(info, ninfo);
            break;
        }
        g->e = grown;
        g->e[g->ne++] = (cl_ginfo_t){p, info, ninfo};
    }
    if (g->ne == 0) {
        grp_free(g); /* nobody contributed PMIX_GROUP_INFO: nothing to answer later */
        return;
    }
    pthread_mutex_lock(&px_cl.lock);
    g->next = groups;
    groups = g;
    pthread_mutex_unlock(&px_cl.lock);
}

bool px_cl_group_lookup(const pmix_proc_t *proc, const char *key, const pmix_info_t *info,
                        size_t ninfo, pmix_value_t **val)
{
    const char *id = NULL;
    bool by_ctx = false;
    size_t ctx = 0;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_CONTEXT_ID)) {
            by_ctx = PMIx_Value_get_number(&info[i].value, &ctx, PMIX_SIZE) == PMIX_SUCCESS;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) && info[i].value.type == PMIX_STRING) {
            id = info[i].value.data.string;
        }
    }
    if (!by_ctx && id == NULL) {
        return false;
    }
    for (cl_grp_t *g = groups; g != NULL; g = g->next) {
        if ((by_ctx && (!g->has_ctx || g->ctxid != ctx)) ||
            (id != NULL && strncmp(g->id, id, PMIX_MAX_NSLEN) != 0)) {
            continue;
        }
        for (size_t k = 0; k < g->ne; k++) {
            if (!PMIx_Check_procid(&g->e[k].proc, proc) || g->e[k].proc.rank != proc->rank) {
                continue;
            }
            for (size_t j = 0; j < g->e[k].ninfo; j++) {
                if (PMIX_CHECK_KEY(&g->e[k].info[j], key)) {
                    *val = PMIx_Value_create(1);
                    if (*val != NULL &&
                        PMIx_Value_xfer(*val, &g->e[k].info[j].value) != PMIX_SUCCESS) {
                        PMIx_Value_free(*val, 1);
                        *val = NULL;
                    }
                    return *val != NULL;
                }
            }
        }
        return false; /* the newest group of that id or context id is the one meant */
    }
    return false;
}

/* ---- requests ---- */

static bool grp_ok(const char grp[])
{
    return grp != NULL && grp[0] != '\0' && strlen(grp) <= PMIX_MAX_NSLEN;
}

/* "string grp[, size n, proc[n]], info[]" */
static pmix_status_t pack_req(pmix_data_buffer_t *msg, const char grp[], bool with_procs,
                              const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo)
{
    px_bfrops_buf_init(msg); /* the caller frees it whatever we return */
    if (!grp_ok(grp) || (nprocs > 0 && procs == NULL) || (ninfo > 0 && info == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = px_bfrops_pack(msg, &grp, 1, PMIX_STRING);
    if (rc == PMIX_SUCCESS && with_procs) {
        rc = px_bfrops_pack(msg, &nprocs, 1, PMIX_SIZE);
        if (rc == PMIX_SUCCESS && nprocs > 0) {
            rc = px_bfrops_pack(msg, procs, (int32_t)nprocs, PMIX_PROC);
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(msg, info, ninfo);
    }
    return rc == PMIX_SUCCESS ? rc : PMIX_ERR_BAD_PARAM;
}

/* A group reply: its results (owned by the caller) and the group kept. */
static pmix_status_t take_reply(pmix_status_t st, pmix_data_buffer_t *reply, pmix_info_t **res,
                                size_t *nres)
{
    *res = NULL;
    *nres = 0;
    if ((st != PMIX_SUCCESS && st != PMIX_ERR_PARTIAL_SUCCESS) || reply == NULL ||
        px_bfrops_buf_remaining(reply) == 0) {
        return st;
    }
    pmix_status_t rc = px_bfrops_unpack_info_array(reply, res, nres);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    keep(*res, *nres, reply);
    return st;
}

/* Send the pending puts first (ahead of the request on the connection): the group's
 * members read them after the construct. Nothing pending: nothing to send. */
static pmix_status_t commit_first(void)
{
    pthread_mutex_lock(&px_cl.lock);
    bool pending = px_cl.commit_local.n > 0 || px_cl.commit_remote.n > 0;
    pthread_mutex_unlock(&px_cl.lock);
    return pending ? PMIx_Commit() : PMIX_SUCCESS;
}

/* The client's own bound on a construct, invitation or join: the server's PMIX_TIMEOUT
 * gives the verdict (a timeout, or the partial group of an optional construct), so ours
 * only guards against an answer that never comes and must not overtake the server's. */
static int backstop_ms(const pmix_info_t *info, size_t ninfo)
{
    int ms = px_cl_timeout_ms(info, ninfo);
    return ms > 0 ? 2 * ms + 5000 : 0;
}

/* The blocking form: wait, hand over the results. */
static pmix_status_t wait_results(uint32_t tag, pmix_data_buffer_t *msg, int timeout_ms,
                                  pmix_info_t **results, size_t *nresults)
{
    pmix_data_buffer_t reply;
    pmix_status_t rc = px_cl_request_wait(tag, msg, timeout_ms, &reply);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    rc = take_reply(rc, &reply, &res, &nres);
    px_bfrops_buf_free(&reply);
    if (results != NULL && nresults != NULL) {
        *results = res;
        *nresults = nres;
    } else {
        px_bfrops_info_array_free(res, nres);
    }
    return rc;
}

/* The non-blocking form's record. */
typedef struct {
    pmix_info_cbfunc_t icb;
    pmix_op_cbfunc_t ocb;
    void *cbdata;
    pmix_info_t *res;
    size_t nres;
} gcb_t;

static void gcb_release(void *arg)
{
    gcb_t *u = arg;
    px_bfrops_info_array_free(u->res, u->nres);
    free(u);
}

static void gcb_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
    gcb_t *u = cbdata;
    if (u->ocb != NULL) {
        u->ocb(st, u->cbdata);
        free(u);
        return;
    }
    st = take_reply(st, reply, &u->res, &u->nres);
    u->icb(st, u->res, u->nres, u->cbdata, gcb_release, u);
}

static pmix_status_t send_nb(pmix_status_t rc, uint32_t tag, pmix_data_buffer_t *msg,
                             int timeout_ms, pmix_info_cbfunc_t icb, pmix_op_cbfunc_t ocb,
                             void *cbdata)
{
    gcb_t *u = rc == PMIX_SUCCESS ? calloc(1, sizeof(*u)) : NULL;
    if (rc == PMIX_SUCCESS && u == NULL) {
        rc = PMIX_ERR_NOMEM;
    }
    if (rc == PMIX_SUCCESS) {
        *u = (gcb_t){.icb = icb, .ocb = ocb, .cbdata = cbdata};
        rc = px_cl_request(tag, msg, timeout_ms, gcb_reply, u);
        if (rc != PMIX_SUCCESS) {
            free(u);
        }
    }
    px_bfrops_buf_free(msg);
    return rc;
}

/* A construct or an invitation (tag), blocking (nb false: results/nresults, may be NULL)
 * or not (cbfunc): the pending puts go first, the request carries the procs. */
static pmix_status_t procs_request(uint32_t tag, bool nb, const char grp[],
                                   const pmix_proc_t procs[], size_t nprocs,
                                   const pmix_info_t info[], size_t ninfo, pmix_info_t **results,
                                   size_t *nresults, pmix_info_cbfunc_t cbfunc, void *cbdata)
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
    if ((nb && cbfunc == NULL) || (tag == PX_TAG_GRP_INVITE && nprocs == 0)) {
        return PMIX_ERR_BAD_PARAM; /* an invitation invites someone */
    }
    pmix_data_buffer_t msg;
    pmix_status_t rc = pack_req(&msg, grp, true, procs, nprocs, info, ninfo);
    if (rc == PMIX_SUCCESS) {
        rc = commit_first();
    }
    if (nb) {
        return send_nb(rc, tag, &msg, backstop_ms(info, ninfo), cbfunc, NULL, cbdata);
    }
    if (rc == PMIX_SUCCESS) {
        rc = wait_results(tag, &msg, backstop_ms(info, ninfo), results, nresults);
    }
    px_bfrops_buf_free(&msg);
    return rc;
}

/* A destruct or a leave (tag), blocking (nb false) or not (cbfunc). */
static pmix_status_t plain_request(uint32_t tag, bool nb, const char grp[],
                                   const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                   void *cbdata)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (nb && cbfunc == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_data_buffer_t msg;
    pmix_status_t rc = pack_req(&msg, grp, false, NULL, 0, info, ninfo);
    if (nb) {
        return send_nb(rc, tag, &msg, px_cl_timeout_ms(info, ninfo), NULL, cbfunc, cbdata);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_cl_request_wait(tag, &msg, px_cl_timeout_ms(info, ninfo), NULL);
    }
    px_bfrops_buf_free(&msg);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Group_construct(const char grp[], const pmix_proc_t procs[],
                                               size_t nprocs, const pmix_info_t directives[],
                                               size_t ndirs, pmix_info_t **results,
                                               size_t *nresults)
{
    return procs_request(PX_TAG_GRP_CONSTRUCT, false, grp, procs, nprocs, directives, ndirs,
                         results, nresults, NULL, NULL);
}

PMIX_EXPORT pmix_status_t PMIx_Group_construct_nb(const char grp[], const pmix_proc_t procs[],
                                                  size_t nprocs, const pmix_info_t directives[],
                                                  size_t ndirs, pmix_info_cbfunc_t cbfunc,
                                                  void *cbdata)
{
    return procs_request(PX_TAG_GRP_CONSTRUCT, true, grp, procs, nprocs, directives, ndirs, NULL,
                         NULL, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Group_invite(const char grp[], const pmix_proc_t procs[],
                                            size_t nprocs, const pmix_info_t info[], size_t ninfo,
                                            pmix_info_t **results, size_t *nresult)
{
    return procs_request(PX_TAG_GRP_INVITE, false, grp, procs, nprocs, info, ninfo, results,
                         nresult, NULL, NULL);
}

PMIX_EXPORT pmix_status_t PMIx_Group_invite_nb(const char grp[], const pmix_proc_t procs[],
                                               size_t nprocs, const pmix_info_t info[],
                                               size_t ninfo, pmix_info_cbfunc_t cbfunc,
                                               void *cbdata)
{
    return procs_request(PX_TAG_GRP_INVITE, true, grp, procs, nprocs, info, ninfo, NULL, NULL,
                         cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Group_destruct(const char grp[], const pmix_info_t directives[],
                                              size_t ndirs)
{
    return plain_request(PX_TAG_GRP_DESTRUCT, false, grp, directives, ndirs, NULL, NULL);
}

PMIX_EXPORT pmix_status_t PMIx_Group_destruct_nb(const char grp[], const pmix_info_t directives[],
                                                 size_t ndirs, pmix_op_cbfunc_t cbfunc,
                                                 void *cbdata)
{
    return plain_request(PX_TAG_GRP_DESTRUCT, true, grp, directives, ndirs, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Group_leave(const char grp[], const pmix_info_t directives[],
                                           size_t ndirs)
{
    return plain_request(PX_TAG_GRP_LEAVE, false, grp, directives, ndirs, NULL, NULL);
}

PMIX_EXPORT pmix_status_t PMIx_Group_leave_nb(const char grp[], const pmix_info_t directives[],
                                              size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return plain_request(PX_TAG_GRP_LEAVE, true, grp, directives, ndirs, cbfunc, cbdata);
}

/* ---- join ---- */

static pmix_status_t pack_join(pmix_data_buffer_t *msg, const char grp[], const pmix_proc_t *leader,
                               pmix_group_opt_t opt, const pmix_info_t info[], size_t ninfo)
{
    px_bfrops_buf_init(msg);
    if (!grp_ok(grp) || (ninfo > 0 && info == NULL) ||
        (opt != PMIX_GROUP_ACCEPT && opt != PMIX_GROUP_DECLINE)) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_proc_t none;
    PMIx_Load_procid(&none, "", PMIX_RANK_UNDEF);
    uint8_t accept = opt == PMIX_GROUP_ACCEPT;
    pmix_status_t rc = px_bfrops_pack(msg, &grp, 1, PMIX_STRING);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(msg, leader != NULL ? leader : &none, 1, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(msg, &accept, 1, PMIX_UINT8);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(msg, info, ninfo);
    }
    if (rc == PMIX_SUCCESS && accept) {
        rc = commit_first();
    }
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Group_join(const char grp[], const pmix_proc_t *leader,
                                          pmix_group_opt_t opt, const pmix_info_t info[],
                                          size_t ninfo, pmix_info_t **results, size_t *nresult)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (results != NULL) {
        *results = NULL;
    }
    if (nresult != NULL) {
        *nresult = 0;
    }
    pmix_data_buffer_t msg;
    pmix_status_t rc = pack_join(&msg, grp, leader, opt, info, ninfo);
    if (rc == PMIX_SUCCESS) {
        rc = wait_results(PX_TAG_GRP_JOIN, &msg, backstop_ms(info, ninfo), results, nresult);
    }
    px_bfrops_buf_free(&msg);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Group_join_nb(const char grp[], const pmix_proc_t *leader,
                                             pmix_group_opt_t opt, const pmix_info_t info[],
                                             size_t ninfo, pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (cbfunc == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_data_buffer_t msg;
    pmix_status_t rc = pack_join(&msg, grp, leader, opt, info, ninfo);
    return send_nb(rc, PX_TAG_GRP_JOIN, &msg, backstop_ms(info, ninfo), cbfunc, NULL, cbdata);
}

/* ---- what the application's handlers decided ---- */

bool px_cl_group_code(pmix_status_t code)
{
    return code == PMIX_GROUP_MEMBER_FAILED || code == PMIX_GROUP_LEADER_FAILED ||
           code == PMIX_GROUP_INVITE_ACCEPTED || code == PMIX_GROUP_INVITE_DECLINED ||
           code == PMIX_GROUP_INVITE_FAILED;
}

/* A group event's chain ended (loop). A handler that returned PMIX_GROUP_CONSTRUCT_ABORT
 * aborts the construction; one that put PMIX_GROUP_LEADER (true) in its results after a
 * PMIX_GROUP_LEADER_FAILED declares this process the new leader (Chap_API_Sets_Groups).
 * Both are told to the server as the notification of that code, which the server acts on
 * (the same as the application raising the abort event itself). */
void px_cl_group_chain_done(pmix_status_t code, const pmix_info_t *info, size_t ninfo,
                            pmix_status_t status, const pmix_info_t *results, size_t nresults,
                            void *cbdata)
{
    (void)cbdata;
    const char *grp = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) && info[i].value.type == PMIX_STRING) {
            grp = info[i].value.data.string;
        }
    }
    if (grp == NULL) {
        return;
    }
    bool abort = status == PMIX_GROUP_CONSTRUCT_ABORT, lead = false;
    for (size_t i = 0; i < nresults; i++) {
        if (results[i].value.type == PMIX_STATUS &&
            results[i].value.data.status == PMIX_GROUP_CONSTRUCT_ABORT) {
            abort = true;
        } else if (PMIX_CHECK_KEY(&results[i], PMIX_GROUP_LEADER) && PMIX_INFO_TRUE(&results[i])) {
            lead = code == PMIX_GROUP_LEADER_FAILED;
        }
    }
    if (!abort && !lead) {
        return;
    }
    pmix_info_t gid;
    PMIx_Info_load(&gid, PMIX_GROUP_ID, grp, PMIX_STRING);
    pmix_status_t what = abort ? PMIX_GROUP_CONSTRUCT_ABORT : PMIX_GROUP_LEADER_SELECTED;
    pmix_data_range_t range = PMIX_RANGE_SESSION;
    pmix_data_buffer_t msg;
    px_bfrops_buf_init(&msg);
    pmix_status_t rc = px_bfrops_pack(&msg, &what, 1, PMIX_STATUS);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(&msg, &px_cl.myproc, 1, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(&msg, &range, 1, PMIX_DATA_RANGE);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(&msg, &gid, 1);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_cl_send(PX_TAG_NOTIFY, &msg);
    }
    px_debug(2, "client", "group %s: %s told to the server: %s", grp, PMIx_Error_string(what),
             PMIx_Error_string(rc));
    px_bfrops_buf_free(&msg);
    PMIx_Info_destruct(&gid);
}

/* ---- connect / disconnect ---- */

static pmix_status_t pack_connect(pmix_data_buffer_t *msg, const pmix_proc_t procs[], size_t nprocs,
                                  const pmix_info_t info[], size_t ninfo)
{
    px_bfrops_buf_init(msg);
    if (procs == NULL || nprocs == 0 || (ninfo > 0 && info == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = px_bfrops_pack(msg, &nprocs, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(msg, procs, (int32_t)nprocs, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(msg, info, ninfo);
    }
    return rc == PMIX_SUCCESS ? rc : PMIX_ERR_BAD_PARAM;
}

/* A connect's answer: the participants' posted data, kept. */
static void connect_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
    gcb_t *u = cbdata;
    if (st == PMIX_SUCCESS && reply != NULL) {
        st = px_cl_store_blob(reply);
    }
    u->ocb(st, u->cbdata);
    free(u);
}

/* PMIx_Connect/Disconnect (nb false: blocking, cbfunc NULL) and their _nb forms. */
static pmix_status_t connect_common(bool connect, bool nb, const pmix_proc_t procs[], size_t nprocs,
                                    const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                    void *cbdata)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (nb && cbfunc == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    uint32_t tag = connect ? PX_TAG_CONNECT : PX_TAG_DISCONNECT;
    pmix_data_buffer_t msg;
    pmix_status_t rc = pack_connect(&msg, procs, nprocs, info, ninfo);
    if (rc == PMIX_SUCCESS && connect) {
        rc = commit_first(); /* the others read what we posted */
    }
    int timeout_ms = px_cl_timeout_ms(info, ninfo);
    if (rc == PMIX_SUCCESS && cbfunc == NULL) {
        pmix_data_buffer_t reply;
        rc = px_cl_request_wait(tag, &msg, timeout_ms, &reply);
        if (rc == PMIX_SUCCESS && connect) {
            rc = px_cl_store_blob(&reply);
        }
        px_bfrops_buf_free(&reply);
    } else if (rc == PMIX_SUCCESS) {
        gcb_t *u = calloc(1, sizeof(*u));
        rc = u != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
        if (u != NULL) {
            *u = (gcb_t){.ocb = cbfunc, .cbdata = cbdata};
            rc = px_cl_request(tag, &msg, timeout_ms, connect ? connect_reply : gcb_reply, u);
            if (rc != PMIX_SUCCESS) {
                free(u);
            }
        }
    }
    px_bfrops_buf_free(&msg);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Connect(const pmix_proc_t procs[], size_t nprocs,
                                       const pmix_info_t info[], size_t ninfo)
{
    return connect_common(true, false, procs, nprocs, info, ninfo, NULL, NULL);
}

PMIX_EXPORT pmix_status_t PMIx_Connect_nb(const pmix_proc_t procs[], size_t nprocs,
                                          const pmix_info_t info[], size_t ninfo,
                                          pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return connect_common(true, true, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

PMIX_EXPORT pmix_status_t PMIx_Disconnect(const pmix_proc_t procs[], size_t nprocs,
                                          const pmix_info_t info[], size_t ninfo)
{
    return connect_common(false, false, procs, nprocs, info, ninfo, NULL, NULL);
}

PMIX_EXPORT pmix_status_t PMIx_Disconnect_nb(const pmix_proc_t procs[], size_t nprocs,
                                             const pmix_info_t info[], size_t ninfo,
                                             pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return connect_common(false, true, procs, nprocs, info, ninfo, cbfunc, cbdata);
}
