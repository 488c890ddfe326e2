/* server_events - the event API inside a server process (the host's own handlers):
 * process-set define/delete events, an event the server raises itself going up to the
 * host's notify_event (ranges beyond the node only), an event the host passes down staying
 * here, non-blocking registration, deregistration, bad arguments.
 * Usage: server_events TMPDIR      exit 0 when every check passed
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>
#include <pmix_server.h>

static int failures;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int nseen, nup;
static pmix_status_t seen[32];
static char seen_name[32][64];
static size_t seen_members[32];
static pmix_status_t up_code[32];
static pmix_data_range_t up_range[32];
static bool reg_cb_done, early;

static void check(int ok, const char *fmt, ...)
{
    if (!ok) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "server_events: FAILED: ");
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        failures++;
    }
}

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                    size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&lock);
    if (!reg_cb_done) {
        early = true;
    }
    if (nseen < 32) {
        seen[nseen] = status;
        seen_name[nseen][0] = '\0';
        seen_members[nseen] = 0;
        for (size_t i = 0; i < ninfo; i++) {
            if (PMIX_CHECK_KEY(&info[i], PMIX_PSET_NAME) && info[i].value.type == PMIX_STRING) {
                snprintf(seen_name[nseen], 64, "%s", info[i].value.data.string);
            } else if (PMIX_CHECK_KEY(&info[i], PMIX_PSET_MEMBERS) &&
                       info[i].value.type == PMIX_DATA_ARRAY) {
                seen_members[nseen] = info[i].value.data.darray->size;
            }
        }
        nseen++;
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static pmix_status_t up_notify(pmix_status_t code, const pmix_proc_t *source,
                               pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)source;
    (void)info;
    (void)ninfo;
    pthread_mutex_lock(&lock);
    if (nup < 32) {
        up_code[nup] = code;
        up_range[nup] = range;
        nup++;
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, cbdata);
    }
    return PMIX_SUCCESS;
}

/* Wait until *counter reaches n (at most secs); its value. */
static int wait_for(int *counter, int n, double secs)
{
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end);
    end.tv_sec += (time_t)secs;
    end.tv_nsec += (long)((secs - (double)(time_t)secs) * 1e9);
    if (end.tv_nsec >= 1000000000) {
        end.tv_sec++;
        end.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&lock);
    while (*counter < n && pthread_cond_timedwait(&cond, &lock, &end) == 0) {
    }
    int v = *counter;
    pthread_mutex_unlock(&lock);
    return v;
}

static void reg_cb(pmix_status_t status, size_t id, void *cbdata)
{
    (void)id;
    (void)cbdata;
    check(status == PMIX_SUCCESS, "non-blocking registration: %s", PMIx_Error_string(status));
    pthread_mutex_lock(&lock);
    reg_cb_done = true;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: server_events TMPDIR\n");
        return 2;
    }
    pmix_server_module_t module = {.notify_event = up_notify};
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, argv[1], PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, argv[1], PMIX_STRING);
    pmix_status_t rc = PMIx_server_init(&module, info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "server_events: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }

    /* pset events, through a non-blocking registration */
    pmix_status_t psetcodes[2] = {PMIX_PROCESS_SET_DEFINE, PMIX_PROCESS_SET_DELETE};
    rc = PMIx_Register_event_handler(psetcodes, 2, NULL, 0, handler, reg_cb, NULL);
    check(rc == PMIX_SUCCESS, "PMIx_Register_event_handler (nb): %s", PMIx_Error_string(rc));
    pmix_proc_t members[3];
    for (int i = 0; i < 3; i++) {
        PMIx_Load_procid(&members[i], "job.1", (pmix_rank_t)i);
    }
    rc = PMIx_server_define_process_set(members, 3, "ocean");
    check(rc == PMIX_SUCCESS, "define_process_set: %s", PMIx_Error_string(rc));
    rc = PMIx_server_delete_process_set("ocean");
    check(rc == PMIX_SUCCESS, "delete_process_set: %s", PMIx_Error_string(rc));
    check(wait_for(&nseen, 2, 10) == 2, "pset events: %d of 2 arrived", nseen);
    check(!early, "an event reached the handler before its registration callback returned");
    check(seen[0] == PMIX_PROCESS_SET_DEFINE && strcmp(seen_name[0], "ocean") == 0 &&
              seen_members[0] == 3,
          "first pset event: %s \"%s\" %zu members", PMIx_Error_string(seen[0]), seen_name[0],
          seen_members[0]);
    check(seen[1] == PMIX_PROCESS_SET_DELETE && strcmp(seen_name[1], "ocean") == 0,
          "second pset event: %s \"%s\"", PMIx_Error_string(seen[1]), seen_name[1]);
    check(nup == 0, "pset events (range local) went up to the host");

    /* the server's own event with a range beyond the node goes up; ours run here too */
    pmix_status_t code = 7500;
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, handler, NULL, NULL);
    check(rc >= 0, "PMIx_Register_event_handler (blocking): %s", PMIx_Error_string(rc));
    size_t id = (size_t)rc;
    rc = PMIx_Notify_event(code, NULL, PMIX_RANGE_SESSION, NULL, 0, NULL, NULL);
    check(rc == PMIX_SUCCESS, "PMIx_Notify_event(session): %s", PMIx_Error_string(rc));
    check(wait_for(&nup, 1, 10) == 1 && up_code[0] == code && up_range[0] == PMIX_RANGE_SESSION,
          "notify_event upcall for the server's own session-range event");
    check(wait_for(&nseen, 3, 10) == 3 && seen[2] == code, "own handler for 7500");

    /* range local: stays on the node */
    rc = PMIx_Notify_event(code, NULL, PMIX_RANGE_LOCAL, NULL, 0, NULL, NULL);
    check(rc == PMIX_SUCCESS, "PMIx_Notify_event(local): %s", PMIx_Error_string(rc));
    check(wait_for(&nseen, 4, 10) == 4, "own handler for the local 7500");
    check(wait_for(&nup, 2, 0.3) == 1, "a local-range event went up to the host");

    /* the host passing an event down (another source): delivered here, not sent back up */
    pmix_proc_t other;
    PMIx_Load_procid(&other, "elsewhere", 3);
    rc = PMIx_Notify_event(code, &other, PMIX_RANGE_GLOBAL, NULL, 0, NULL, NULL);
    check(rc == PMIX_SUCCESS, "PMIx_Notify_event(from the host): %s", PMIx_Error_string(rc));
    check(wait_for(&nseen, 5, 10) == 5, "own handler for the host's event");
    check(wait_for(&nup, 2, 0.3) == 1, "an event the host passed down went back up");

    /* deregistration: no delivery after it completed */
    rc = PMIx_Deregister_event_handler(id, NULL, NULL);
    check(rc == PMIX_SUCCESS, "PMIx_Deregister_event_handler: %s", PMIx_Error_string(rc));
    rc = PMIx_Notify_event(code, NULL, PMIX_RANGE_LOCAL, NULL, 0, NULL, NULL);
    check(rc == PMIX_SUCCESS, "PMIx_Notify_event after deregistration: %s", PMIx_Error_string(rc));
    check(wait_for(&nseen, 6, 0.5) == 5, "a deregistered handler was called");
    check(PMIx_Deregister_event_handler(id, NULL, NULL) == PMIX_ERR_BAD_PARAM,
          "deregistering twice is not refused");

    /* bad arguments */
    check(PMIx_Notify_event(code, NULL, PMIX_RANGE_INVALID, NULL, 0, NULL, NULL) ==
              PMIX_ERR_BAD_PARAM,
          "an invalid range is not refused");
    check(PMIx_Notify_event(code, NULL, PMIX_RANGE_CUSTOM, NULL, 0, NULL, NULL) ==
              PMIX_ERR_BAD_PARAM,
          "a custom range without targets is not refused");
    check(PMIx_Register_event_handler(&code, 1, NULL, 0, NULL, NULL, NULL) == PMIX_ERR_BAD_PARAM,
          "a NULL handler is not refused");

    rc = PMIx_server_finalize();
    check(rc == PMIX_SUCCESS, "PMIx_server_finalize: %s", PMIx_Error_string(rc));
    check(PMIx_Notify_event(code, NULL, PMIX_RANGE_LOCAL, NULL, 0, NULL, NULL) == PMIX_ERR_INIT,
          "notify after finalize is not refused with PMIX_ERR_INIT");
    if (failures == 0) {
        printf("server_events: all checks passed\n");
    }
    return failures ? 1 : 0;
}
