/* client: the stop point in PMIx_Init (PMIX_DEBUG_STOP_IN_INIT, Tools chapter, "Debugger
 * Support"): a process its launcher registered as a target says it is pausing
 * (PMIX_READY_FOR_DEBUG to its server, range RM, PMIX_BREAKPOINT "pmix-init") and waits
 * for a PMIX_DEBUGGER_RELEASE whose custom range names it. The wait runs on the caller's
 * thread (the one in PMIx_Init); the release handler runs on the client's loop.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "client/px_client.h"
#include "common/px_common.h"

/* The breakpoint a process held in PMIx_Init reports (the attribute's text). */
#define PX_BREAKPOINT_INIT "pmix-init"

typedef struct {
    px_latch_t latch;
    pmix_status_t why; /* PMIX_DEBUGGER_RELEASE, or PMIX_ERR_LOST_CONNECTION */
} hold_t;

/* the one hold of this process (PMIx_Init runs it once); the handler may run after the
 * deregistration was asked for, so it looks the hold up under the lock */
static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static hold_t *holding;

/* Does the event's custom range name this process? The server relays a custom-range
 * event only to the processes it names; a release in another range is not ours. */
static bool names_me(const pmix_info_t info[], size_t ninfo)
{
    size_t n;
    const pmix_proc_t *p = px_event_custom_range(info, ninfo, &n);
    for (size_t k = 0; k < n; k++) {
        if (PMIx_Check_procid(&p[k], &px_cl.myproc)) {
            return true;
        }
    }
    return false;
}

static void on_release(size_t id, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&hold_lock);
    hold_t *h = holding;
    if (h != NULL && h->why == PMIX_SUCCESS &&
        (status == PMIX_ERR_LOST_CONNECTION || names_me(info, ninfo))) {
        h->why = status;
        px_latch_release(&h->latch);
    } else if (status == PMIX_DEBUGGER_RELEASE) {
        px_debug(2, "client", "a debugger release not naming us in a custom range: still held");
    }
    pthread_mutex_unlock(&hold_lock);
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

/* Is this process a target of PMIX_DEBUG_STOP_IN_INIT? Its launcher registers the
 * directive (one rank, the wildcard, or a list of processes) in the realm of the targeted
 * applications. */
static bool stop_in_init(void)
{
    pmix_proc_t wild;
    PMIx_Load_procid(&wild, px_cl.myproc.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    pmix_info_t opt;
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, NULL, PMIX_BOOL);
    bool mine = PMIx_Get(&wild, PMIX_DEBUG_STOP_IN_INIT, &opt, 1, &v) == PMIX_SUCCESS &&
                v != NULL && px_debug_stop_names(v, &px_cl.myproc);
    if (v != NULL) {
        PMIx_Value_free(v, 1);
    }
    PMIX_INFO_DESTRUCT(&opt);
    return mine;
}

pmix_status_t px_cl_debug_hold(void)
{
    if (!stop_in_init()) {
        return PMIX_SUCCESS;
    }
    hold_t h = {.why = PMIX_SUCCESS};
    px_latch_init(&h.latch, 1);
    pthread_mutex_lock(&hold_lock);
    holding = &h;
    pthread_mutex_unlock(&hold_lock);
    /* registered before we say we are held: a release can only come after that */
    pmix_status_t codes[] = {PMIX_DEBUGGER_RELEASE, PMIX_ERR_LOST_CONNECTION};
    pmix_status_t rc = PMIx_Register_event_handler(codes, 2, NULL, 0, on_release, NULL, NULL);
    size_t id = rc >= 0 ? (size_t)rc : 0;
    if (rc >= 0) {
        pmix_info_t info[2];
        PMIX_INFO_LOAD(&info[0], PMIX_BREAKPOINT, PX_BREAKPOINT_INIT, PMIX_STRING);
        PMIX_INFO_LOAD(&info[1], PMIX_EVENT_NON_DEFAULT, NULL, PMIX_BOOL);
        rc = PMIx_Notify_event(PMIX_READY_FOR_DEBUG, &px_cl.myproc, PMIX_RANGE_RM, info, 2, NULL,
                               NULL);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
        if (rc == PMIX_SUCCESS) {
            px_debug(1, "client", "%s:%u held in PMIx_Init for a debugger", px_cl.myproc.nspace,
                     px_cl.myproc.rank);
            px_latch_wait(&h.latch, -1); /* the debugger decides; a lost server ends it */
            rc = h.why == PMIX_DEBUGGER_RELEASE ? PMIX_SUCCESS : h.why;
        }
        PMIx_Deregister_event_handler(id, NULL, NULL);
    }
    pthread_mutex_lock(&hold_lock);
    holding = NULL;
    pthread_mutex_unlock(&hold_lock);
    px_latch_fini(&h.latch);
    return rc;
}
