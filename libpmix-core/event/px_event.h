/* event: this process's event handlers and the chains that run them (Events chapter of
 * the Standard). One registry per process, whichever side it is (client, tool, server);
 * the side that initialises binds it to its progress loop and says who "me" is. The wire
 * routing (client <-> server <-> host) lives in client/client_event.c and
 * server/server_event.c; this module only decides which handlers run, in which order,
 * and runs them.
 *
 * Threads: every function may be called from any thread; handlers and done callbacks run
 * on the bound loop, never inside the call that caused them, and never with a lock of
 * ours held. A handler's completion function may be called from any thread.
 */
#ifndef PX_EVENT_H
#define PX_EVENT_H

#include <stdbool.h>
#include <stddef.h>

#include <pmix.h>

#include "net/px_progress.h"

/* Who this process is, for source ranges given at registration. */
typedef struct px_evt_self {
    pmix_proc_t me;
    /* true when proc runs on this node (PMIX_RANGE_LOCAL); NULL: only me is local */
    bool (*is_local)(const pmix_proc_t *proc);
    /* true when proc is the resource manager (PMIX_RANGE_RM): our server or its host;
     * NULL: nobody */
    bool (*is_rm)(const pmix_proc_t *proc);
} px_evt_self_t;

/* Bind the registry to the loop handlers run on. The first side to initialise binds;
 * a second bind while bound returns PMIX_EXISTS and changes nothing. */
pmix_status_t px_evt_bind(px_progress_t *loop, const px_evt_self_t *self);
/* Drop every registration and every chain not yet finished (their done callbacks are not
 * run). Call before the bound loop is destroyed, from a thread that is not the loop. */
void px_evt_unbind(void);
bool px_evt_bound(void);

/* Record a registration (Chap_API_Event: codes, PMIX_EVENT_HDLR_NAME/FIRST/LAST/
 * FIRST_IN_CATEGORY/LAST_IN_CATEGORY/BEFORE/AFTER/PREPEND/APPEND, PMIX_RANGE,
 * PMIX_EVENT_CUSTOM_RANGE, PMIX_EVENT_AFFECTED_PROC(S), PMIX_EVENT_RETURN_OBJECT).
 * ncodes 0 = a default handler. The handler takes part in no chain until
 * px_evt_activate(id). Errors: PMIX_ERR_INIT (not bound), PMIX_ERR_BAD_PARAM (NULL fn,
 * codes NULL with ncodes > 0, a directive of the wrong type), PMIX_EXISTS (FIRST or LAST
 * asked for while another registration holds it). */
pmix_status_t px_evt_register(const pmix_status_t codes[], size_t ncodes, const pmix_info_t info[],
                              size_t ninfo, pmix_notification_fn_t fn, size_t *id);
/* Make a recorded registration eligible for chains assembled from now on. */
void px_evt_activate(size_t id);
/* Remove a registration: once this returns no invocation of it starts (a chain already
 * running skips it when it gets there). PMIX_ERR_BAD_PARAM if id is unknown. */
pmix_status_t px_evt_deregister(size_t id);

/* Called on the loop when a chain ends: status is the last handler's status
 * (PMIX_EVENT_ACTION_COMPLETE when one ended the chain), PMIX_ERR_NOT_FOUND when no
 * handler matched. */
typedef void (*px_evt_done_fn)(pmix_status_t status, void *cbdata);

/* Run the chain for one event on the loop (inputs are copied; never inside this call).
 * The event's own info may hold PMIX_EVENT_NON_DEFAULT (skip default handlers) and
 * PMIX_EVENT_AFFECTED_PROC(S) (matched against registrations that gave them).
 * done may be NULL. PMIX_ERR_INIT when not bound. */
pmix_status_t px_evt_deliver(pmix_status_t status, const pmix_proc_t *source,
                             pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                             px_evt_done_fn done, void *cbdata);

/* For tests and the server's cache replay: number of active registrations. */
size_t px_evt_count(void);

#endif /* PX_EVENT_H */
