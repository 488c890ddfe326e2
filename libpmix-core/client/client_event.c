/* client: the event API (PMIx_Register_event_handler, PMIx_Deregister_event_handler,
 * PMIx_Notify_event) for every side of a process, and the client/tool end of event
 * routing: a registration is recorded in this process's event engine (event/) and its
 * codes told to the server, which then relays matching events (and first the cached
 * ones); a notification runs the local chain and, unless process-local, goes to the
 * server. Events this process received are cached for handlers registered later (see
 * "the events this process received"). A process that is a server and not a client is
 * served by server_event.c.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "client/px_client.h"
#include "client/px_tool.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "event/px_event.h"
#include "server/px_server.h"
#include "types/px_types.h"

/* ---- identity for the engine ---- */

static bool cl_is_local(const pmix_proc_t *proc)
{
    if (PMIx_Check_procid(proc, &px_cl.myproc) && proc->rank == px_cl.myproc.rank) {
        return true;
    }
    pthread_mutex_lock(&px_cl.lock);
    px_nspace_t *ns = px_store_find(&px_cl.store, proc->nspace);
    bool local = ns != NULL && proc->rank < PMIX_RANK_VALID && px_ns_rank_is_local(ns, proc->rank);
    pthread_mutex_unlock(&px_cl.lock);
    return local;
}

static bool cl_is_rm(const pmix_proc_t *proc)
{
    return PMIx_Check_nspace(proc->nspace, px_cl.server.nspace);
}

pmix_status_t px_cl_event_bind(void)
{
    px_evt_self_t self = {.is_local = cl_is_local, .is_rm = cl_is_rm};
    self.me = px_cl.myproc;
    return px_evt_bind(px_cl.prog, &self);
}

/* ---- the events this process received ----
 * Chap_API_Event: events are cached and given to handlers registered later, in the order
 * received. The server replays its cache only for codes it has not yet sent to this
 * process; what it already sent (to a default handler, say) lives here. Every event
 * received from the server is kept, at most PX_EVENT_CACHE_DEFAULT (the server's default bound),
 * oldest dropped first; PMIX_EVENT_DO_NOT_CACHE skips it. This process's own
 * notifications are not kept (the server never sends an event back to its origin either),
 * nor is the local PMIX_ERR_LOST_CONNECTION of a lost server; a tool's closed keepalive
 * pipe is (px_cl_event_keep_local). A registration, when it becomes active,
 * runs alone on each cached event it matches, oldest first, once.
 * cache.lock is held around "deliver then keep" and around "activate then replay", so an
 * event reaches a new registration either live or from the cache, never both. Lock
 * order: cache.lock, then the engine's and px_cl.lock (taken inside px_evt_*). */

typedef struct cl_event {
    struct cl_event *next;
    pmix_status_t status;
    pmix_proc_t source;
    pmix_info_t *info; /* owned */
    size_t ninfo;
} cl_event_t;

static struct {
    pthread_mutex_t lock;
    cl_event_t *head, *tail; /* oldest first */
    size_t n;
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

static bool do_not_cache(const pmix_info_t info[], size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_DO_NOT_CACHE)) {
            return PMIx_Info_true(&info[i]) == PMIX_BOOL_TRUE;
        }
    }
    return false;
}

static void cl_event_free(cl_event_t *e)
{
    if (e != NULL) {
        px_bfrops_info_array_free(e->info, e->ninfo);
        free(e);
    }
}

/* cache.lock held. Keep a copy of the event; out of memory: it is not kept. */
static void cache_keep_locked(pmix_status_t status, const pmix_proc_t *source,
                              const pmix_info_t info[], size_t ninfo)
{
    if (do_not_cache(info, ninfo)) {
        return;
    }
    cl_event_t *e = calloc(1, sizeof(*e));
    if (e == NULL || (ninfo > 0 && px_info_array_dup(info, ninfo, &e->info) != PMIX_SUCCESS)) {
        free(e);
        px_debug(1, "client", "event %s not cached: out of memory", PMIx_Error_string(status));
        return;
    }
    e->status = status;
    e->source = *source;
    e->ninfo = ninfo;
    if (cache.tail != NULL) {
        cache.tail->next = e;
    } else {
        cache.head = e;
    }
    cache.tail = e;
    if (++cache.n > PX_EVENT_CACHE_DEFAULT) {
        cl_event_t *old = cache.head;
        cache.head = old->next;
        cache.n--;
        cl_event_free(old);
    }
}

/* Run this process's chain for an event from the server and keep it for later
 * registrations. */
static pmix_status_t deliver_and_keep(pmix_status_t status, const pmix_proc_t *source,
                                      pmix_data_range_t range, const pmix_info_t info[],
                                      size_t ninfo)
{
    pthread_mutex_lock(&cache.lock);
    /* group events: the library acts on what the handlers decided (client_group.c) */
    pmix_status_t rc =
        px_cl_group_code(status)
            ? px_evt_deliver_res(status, source, info, ninfo, px_cl_group_chain_done, NULL)
            : px_evt_deliver(status, source, range, info, ninfo, NULL, NULL);
    if (rc == PMIX_SUCCESS) {
        cache_keep_locked(status, source, info, ninfo);
    }
    pthread_mutex_unlock(&cache.lock);
    return rc;
}

/* Make registration id eligible, then give it the cached events it matches. */
static void activate_and_replay(size_t id)
{
    pthread_mutex_lock(&cache.lock);
    px_evt_activate(id);
    for (cl_event_t *e = cache.head; e != NULL; e = e->next) {
        px_evt_deliver_to(id, e->status, &e->source, e->info, e->ninfo, NULL, NULL);
    }
    pthread_mutex_unlock(&cache.lock);
}

void px_cl_event_fini(void)
{
    pthread_mutex_lock(&cache.lock);
    while (cache.head != NULL) {
        cl_event_t *e = cache.head;
        cache.head = e->next;
        cl_event_free(e);
    }
    cache.tail = NULL;
    cache.n = 0;
    pthread_mutex_unlock(&cache.lock);
}

/* ---- what the server sends ---- */

void px_cl_event_recv(pmix_data_buffer_t *payload)
{
    pmix_status_t status;
    pmix_proc_t source;
    pmix_data_range_t range;
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    int32_t one = 1;
    pmix_status_t rc = px_bfrops_unpack(payload, &status, &one, PMIX_STATUS);
    if (rc == PMIX_SUCCESS) {
        one = 1;
        rc = px_bfrops_unpack(payload, &source, &one, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) {
        one = 1;
        rc = px_bfrops_unpack(payload, &range, &one, PMIX_DATA_RANGE);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(payload, &info, &ninfo);
    }
    if (rc != PMIX_SUCCESS) {
        px_debug(1, "client", "malformed event from the server: %s", PMIx_Error_string(rc));
        return;
    }
    px_debug(3, "client", "event %s from %s:%u", PMIx_Error_string(status), source.nspace,
             source.rank);
    deliver_and_keep(status, &source, range, info, ninfo);
    px_bfrops_info_array_free(info, ninfo);
}

/* An event the tool's own server (tool_srv.c) received: like one from our server. */
void px_cl_event_deliver_keep(pmix_status_t status, const pmix_proc_t *source,
                              pmix_data_range_t range, const pmix_info_t info[], size_t ninfo)
{
    px_debug(3, "client", "event %s from %s:%u (own server)", PMIx_Error_string(status),
             source->nspace, source->rank);
    deliver_and_keep(status, source, range, info, ninfo);
}

/* Tools chapter: a launcher registers for the keepalive pipe's closure after
 * PMIx_tool_init, and the pipe may close before that, even during the init: the event is
 * kept for handlers registered later, like one from the server. Loop thread. */
void px_cl_event_keep_local(pmix_status_t status, const pmix_info_t info[], size_t ninfo)
{
    deliver_and_keep(status, &px_cl.myproc, PMIX_RANGE_PROC_LOCAL, info, ninfo);
}

void px_cl_event_lost(void)
{
    /* Chap_API_Event: the process hears of its lost server as an event of its own. */
    px_evt_deliver(PMIX_ERR_LOST_CONNECTION, &px_cl.server, PMIX_RANGE_PROC_LOCAL, NULL, 0, NULL,
                   NULL);
}

/* ---- registration ---- */

typedef struct {
    size_t id;
    pmix_hdlr_reg_cbfunc_t cbfunc;
    void *cbdata;
    px_latch_t latch; /* blocking form */
    pmix_status_t status;
} creg_t;

static void creg_reply(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)reply;
    creg_t *r = cbdata;
    /* Not connected (a tool on its own, a lost server): the handler still serves events
     * of this process. */
    if (status == PMIX_ERR_UNREACH || status == PMIX_ERR_LOST_CONNECTION) {
        status = PMIX_SUCCESS;
    }
    r->status = status;
    if (status != PMIX_SUCCESS) {
        px_evt_deregister(r->id);
    }
    if (r->cbfunc != NULL) {
        r->cbfunc(status, status == PMIX_SUCCESS ? r->id : SIZE_MAX, r->cbdata);
        if (status == PMIX_SUCCESS) {
            activate_and_replay(r->id); /* nothing reaches it before its callback returned */
        }
        free(r);
        return;
    }
    if (status == PMIX_SUCCESS) {
        activate_and_replay(r->id);
    }
    px_latch_release(&r->latch);
}

static pmix_status_t cl_register(const pmix_status_t codes[], size_t ncodes,
                                 const pmix_info_t info[], size_t ninfo, pmix_notification_fn_t fn,
                                 pmix_hdlr_reg_cbfunc_t cbfunc, void *cbdata)
{
    creg_t *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        return PMIX_ERR_NOMEM;
    }
    pmix_status_t rc = px_evt_register(codes, ncodes, info, ninfo, fn, &r->id);
    if (rc != PMIX_SUCCESS) {
        free(r);
        return rc;
    }
    r->cbfunc = cbfunc;
    r->cbdata = cbdata;
    bool blocking = cbfunc == NULL;
    if (blocking) {
        if (px_progress_on_loop(px_cl.prog)) {
            px_evt_deregister(r->id);
            free(r);
            return PMIX_ERR_WOULD_BLOCK;
        }
        px_latch_init(&r->latch, 1);
    }
    pmix_data_buffer_t msg;
    px_bfrops_buf_init(&msg);
    rc = px_bfrops_pack(&msg, &ncodes, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && ncodes > 0) {
        rc = px_bfrops_pack(&msg, (void *)codes, (int32_t)ncodes, PMIX_STATUS);
    }
    if (rc == PMIX_SUCCESS) {
        /* Source ranges are judged here; the processes it names go to the server, which
         * sends this process events raised for those interested in them (a job's
         * lifecycle events to a tool that did not start the job, px_srv_host.h). */
        pmix_info_t *named = ninfo > 0 ? PMIx_Info_create(ninfo) : NULL;
        size_t nnamed = 0;
        for (size_t i = 0; named != NULL && i < ninfo; i++) {
            if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) ||
                PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROCS)) {
                PMIx_Info_xfer(&named[nnamed++], &info[i]);
            }
        }
        rc = px_bfrops_pack_info_array(&msg, named, nnamed);
        PMIx_Info_free(named, ninfo);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_cl_request(PX_TAG_EVT_REGISTER, &msg, 0, creg_reply, r);
    }
    px_bfrops_buf_free(&msg);
    if (rc != PMIX_SUCCESS) {
        px_evt_deregister(r->id);
        if (blocking) {
            px_latch_fini(&r->latch);
        }
        free(r);
        return rc;
    }
    if (!blocking) {
        return PMIX_SUCCESS;
    }
    px_latch_wait(&r->latch, -1); /* bounded: reply or connection loss */
    px_latch_fini(&r->latch);
    rc = r->status == PMIX_SUCCESS ? (pmix_status_t)r->id : r->status;
    free(r);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Register_event_handler(pmix_status_t codes[], size_t ncodes,
                                                      pmix_info_t info[], size_t ninfo,
                                                      pmix_notification_fn_t evhdlr,
                                                      pmix_hdlr_reg_cbfunc_t cbfunc, void *cbdata)
{
    if (evhdlr == NULL || (ncodes > 0 && codes == NULL) || (ninfo > 0 && info == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (px_cl_initialized()) {
        return cl_register(codes, ncodes, info, ninfo, evhdlr, cbfunc, cbdata);
    }
    if (px_srv != NULL) {
        return px_srv_api_register(codes, ncodes, info, ninfo, evhdlr, cbfunc, cbdata);
    }
    return PMIX_ERR_INIT;
}

/* ---- deregistration ---- */

PMIX_EXPORT pmix_status_t PMIx_Deregister_event_handler(size_t evhdlr_ref, pmix_op_cbfunc_t cbfunc,
                                                        void *cbdata)
{
    if (px_cl_initialized()) {
        /* The codes no handler here names any more: the server stops relaying them (and
         * releases the host's registration of those only the host raises). */
        pmix_status_t *gone = NULL;
        size_t ngone = 0;
        pmix_status_t rc = px_evt_deregister_released(evhdlr_ref, &gone, &ngone);
        if (rc == PMIX_SUCCESS && ngone > 0) {
            pmix_data_buffer_t msg;
            px_bfrops_buf_init(&msg);
            pmix_status_t prc = px_bfrops_pack(&msg, &ngone, 1, PMIX_SIZE);
            if (prc == PMIX_SUCCESS) {
                prc = px_bfrops_pack(&msg, gone, (int32_t)ngone, PMIX_STATUS);
            }
            if (prc == PMIX_SUCCESS) {
                prc = px_cl_send(PX_TAG_EVT_DEREGISTER, &msg);
            }
            if (prc != PMIX_SUCCESS) {
                /* not connected, or no memory: the server keeps relaying, harmless */
                px_debug(2, "client", "event deregistration not sent: %s", PMIx_Error_string(prc));
            }
            px_bfrops_buf_free(&msg);
        }
        free(gone);
        return rc == PMIX_SUCCESS ? px_progress_op_later(px_cl.prog, cbfunc, cbdata, PMIX_SUCCESS)
                                  : rc;
    }
    if (px_srv != NULL) {
        return px_srv_api_deregister(evhdlr_ref, cbfunc, cbdata);
    }
    return PMIX_ERR_INIT;
}

/* ---- notification ---- */

static bool range_valid(pmix_data_range_t range)
{
    return range <= PMIX_RANGE_PROC_LOCAL;
}

static bool has_custom_range(const pmix_info_t info[], size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_CUSTOM_RANGE)) {
            return info[i].value.type == PMIX_PROC ||
                   (info[i].value.type == PMIX_DATA_ARRAY && info[i].value.data.darray != NULL &&
                    info[i].value.data.darray->type == PMIX_PROC);
        }
    }
    return false;
}

/* Is this process within the event's range? Every range holds it but the RM's, and a
 * custom range only when it names us. */
static bool self_in_range(pmix_data_range_t range, const pmix_info_t info[], size_t ninfo)
{
    return px_cl_range_names(range, info, ninfo, &px_cl.myproc);
}

bool px_cl_range_names(pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                       const pmix_proc_t *who)
{
    if (range == PMIX_RANGE_RM) {
        return false;
    }
    if (range != PMIX_RANGE_CUSTOM) {
        return true;
    }
    for (size_t i = 0; i < ninfo; i++) {
        if (!PMIX_CHECK_KEY(&info[i], PMIX_EVENT_CUSTOM_RANGE)) {
            continue;
        }
        const pmix_value_t *v = &info[i].value;
        const pmix_proc_t *p = v->type == PMIX_PROC ? v->data.proc : v->data.darray->array;
        size_t n = v->type == PMIX_PROC ? 1 : v->data.darray->size;
        for (size_t k = 0; p != NULL && k < n; k++) {
            if (PMIx_Check_procid(&p[k], who)) {
                return true;
            }
        }
    }
    return false;
}

pmix_status_t px_cl_notify_pack(pmix_data_buffer_t *msg, pmix_status_t status,
                                const pmix_proc_t *source, pmix_data_range_t range,
                                const pmix_info_t info[], size_t ninfo)
{
    px_bfrops_buf_init(msg);
    pmix_status_t rc = px_bfrops_pack(msg, &status, 1, PMIX_STATUS);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(msg, (void *)source, 1, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(msg, &range, 1, PMIX_DATA_RANGE);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(msg, info, ninfo);
    }
    return rc;
}

static pmix_status_t cl_notify(pmix_status_t status, const pmix_proc_t *source,
                               pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pmix_status_t rc = PMIX_SUCCESS;
    if (range != PMIX_RANGE_PROC_LOCAL) {
        pmix_data_buffer_t msg;
        rc = px_cl_notify_pack(&msg, status, source, range, info, ninfo);
        if (rc == PMIX_SUCCESS) {
            px_tool_parent_notify(&msg, range, info, ninfo); /* a launcher's initiator */
            rc = px_cl_send(PX_TAG_NOTIFY, &msg);
            /* a tool with its own server (PMIX_LAUNCHER) also tells the launchers
             * connected to it; then having no server of its own is no error */
            if (px_tool_srv_relay(status, source, range, info, ninfo) == PMIX_SUCCESS) {
                rc = PMIX_SUCCESS;
            }
        } else {
            rc = PMIX_ERR_BAD_PARAM; /* info we cannot carry (e.g. a pointer) */
        }
        px_bfrops_buf_free(&msg);
    }
    if (rc == PMIX_SUCCESS && self_in_range(range, info, ninfo)) {
        rc = px_evt_deliver(status, source, range, info, ninfo, NULL, NULL);
    }
    return rc == PMIX_SUCCESS ? px_progress_op_later(px_cl.prog, cbfunc, cbdata, PMIX_SUCCESS) : rc;
}

PMIX_EXPORT pmix_status_t PMIx_Notify_event(pmix_status_t status, const pmix_proc_t *source,
                                            pmix_data_range_t range, const pmix_info_t info[],
                                            size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!range_valid(range) || (ninfo > 0 && info == NULL) ||
        (range == PMIX_RANGE_CUSTOM && !has_custom_range(info, ninfo))) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (px_cl_initialized()) {
        return cl_notify(status, source != NULL ? source : &px_cl.myproc, range, info, ninfo,
                         cbfunc, cbdata);
    }
    if (px_srv != NULL) {
        return px_srv_api_notify(status, source, range, info, ninfo, cbfunc, cbdata);
    }
    return PMIX_ERR_INIT;
}
