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

/* How many events a process keeps for later registrations: the server per client
 * (server_event.c, changeable by the host), a client or tool of its own (client_event.c). */
#define PX_EVENT_CACHE_DEFAULT 512

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
 * run). Call before the bound loop is destroyed, from a thread that is not the loop.
 * A handler running on the loop at that moment finishes its call; a handler's completion
 * arriving after unbind (from any thread, at any later time) does not continue anything:
 * it calls the handler's release function at once and frees the rest of the chain
 * (chains are counted: the module, the step running on the loop, the handler awaited).
 * Ids are never reused, even across unbind/bind. */
void px_evt_unbind(void);
bool px_evt_bound(void);

/* Record a registration (Chap_API_Event: codes, PMIX_EVENT_HDLR_NAME/FIRST/LAST/
 * FIRST_IN_CATEGORY/LAST_IN_CATEGORY/BEFORE/AFTER/PREPEND/APPEND, PMIX_RANGE,
 * PMIX_EVENT_CUSTOM_RANGE, PMIX_EVENT_AFFECTED_PROC(S), PMIX_EVENT_RETURN_OBJECT).
 * ncodes 0 = a default handler. The handler takes part in no chain until
 * px_evt_activate(id). Errors: PMIX_ERR_INIT (not bound), PMIX_ERR_BAD_PARAM (NULL fn,
 * NULL id, codes NULL with ncodes > 0, info NULL with ninfo > 0, a directive of the wrong
 * type, contradictory directives: FIRST+LAST, FIRST_IN_CATEGORY+LAST_IN_CATEGORY,
 * PREPEND+APPEND), PMIX_EXISTS (FIRST or LAST asked for while another registration holds
 * it; a recorded but not yet activated one holds it too).
 * Types: NAME/BEFORE/AFTER PMIX_STRING; the flags PMIX_BOOL; PMIX_RANGE PMIX_DATA_RANGE;
 * CUSTOM_RANGE and AFFECTED_PROC(S) a PMIX_PROC or a PMIX_DATA_ARRAY of PMIX_PROC
 * (a wildcard rank matches any rank); RETURN_OBJECT PMIX_POINTER (borrowed). Unknown keys
 * are ignored. CUSTOM_RANGE without PMIX_RANGE implies PMIX_RANGE_CUSTOM. */
pmix_status_t px_evt_register(const pmix_status_t codes[], size_t ncodes, const pmix_info_t info[],
                              size_t ninfo, pmix_notification_fn_t fn, size_t *id);
/* Make a recorded registration eligible for chains assembled from now on. */
void px_evt_activate(size_t id);
/* Remove a registration: once this returns no invocation of it starts (a chain already
 * running skips it when it gets there). PMIX_ERR_BAD_PARAM if id is unknown. Called from
 * a thread other than the loop while the loop is about to call (or is calling) this very
 * handler, it waits until that call has returned; from the loop (inside a handler) it
 * never waits. */
pmix_status_t px_evt_deregister(size_t id);
/* The same, and *gone (owned by the caller, NULL when none) = the codes id named that no
 * other registration names any more (what a client tells its server it no longer wants). */
pmix_status_t px_evt_deregister_released(size_t id, pmix_status_t **gone, size_t *ngone);

/* Called on the loop when a chain ends: status is the last handler's status
 * (PMIX_EVENT_ACTION_COMPLETE when one ended the chain), PMIX_ERR_NOT_FOUND when no
 * handler matched (or all that matched were deregistered before their turn). By then
 * every handler's release function has been called.
 *
 * What a handler receives: info = the event's info, plus one PMIX_EVENT_RETURN_OBJECT
 * (PMIX_POINTER) when it registered one; results = for each earlier handler of the
 * chain, in order, the results it passed to its completion followed by one entry of type
 * PMIX_STATUS holding the status it passed, keyed by its PMIX_EVENT_HDLR_NAME or, when
 * unnamed, "px.evhdlr.<id>". Both arrays are valid until the handler calls its
 * completion. The completion copies the results it is given; the handler's release
 * function (cbfunc, thiscbdata) is called once, when the chain ends (or at unbind). */
typedef void (*px_evt_done_fn)(pmix_status_t status, void *cbdata);

/* Run the chain for one event on the loop (inputs are copied; never inside this call).
 * The chain is assembled in this call: registrations activated after it returns are not
 * part of it. The event's own info may hold PMIX_EVENT_NON_DEFAULT (skip handlers
 * registered without codes, a FIRST or LAST one included) and PMIX_EVENT_AFFECTED_PROC(S)
 * (a registration that gave affected procs runs only when they intersect the event's;
 * an event naming none matches no such registration). source NULL = this process.
 * range is the event's target range: the caller (client/server routing) has already
 * decided this process is within it, so it is not used here. done may be NULL.
 * PMIX_ERR_INIT when not bound, PMIX_ERR_BAD_PARAM (info NULL with ninfo > 0, an
 * AFFECTED_PROC(S) of the wrong type), PMIX_ERR_NOMEM, PMIX_ERR_UNREACH (the loop refuses
 * work); no done callback then. */
pmix_status_t px_evt_deliver(pmix_status_t status, const pmix_proc_t *source,
                             pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                             px_evt_done_fn done, void *cbdata);

/* The same, and done_res gets the event (code and info) and, besides the chain's status,
 * the results its handlers aggregated (each handler's results followed by its PMIX_STATUS
 * entry, as the next handler would have seen them); all borrowed for the call. For a
 * library that acts on what the handlers decided (client/client_group.c). Like done, it
 * is not called for a chain dropped by px_evt_unbind. */
typedef void (*px_evt_done_res_fn)(pmix_status_t code, const pmix_info_t *info, size_t ninfo,
                                   pmix_status_t status, const pmix_info_t *results,
                                   size_t nresults, void *cbdata);
pmix_status_t px_evt_deliver_res(pmix_status_t status, const pmix_proc_t *source,
                                 const pmix_info_t info[], size_t ninfo,
                                 px_evt_done_res_fn done_res, void *cbdata);

/* The same for a replay of an event received earlier (the client's event cache): the
 * chain holds only registration id, if it is active and matches the event (codes or
 * default, source range, affected procs, PMIX_EVENT_NON_DEFAULT) - whatever other
 * handlers did with the event before. No match: done(PMIX_ERR_NOT_FOUND) later, as for
 * px_evt_deliver. id 0: PMIX_ERR_BAD_PARAM. */
pmix_status_t px_evt_deliver_to(size_t id, pmix_status_t status, const pmix_proc_t *source,
                                const pmix_info_t info[], size_t ninfo, px_evt_done_fn done,
                                void *cbdata);

/* For tests and the server's cache replay: number of active registrations. */
size_t px_evt_count(void);

#endif /* PX_EVENT_H */
