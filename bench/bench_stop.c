/* bench_stop - the added cost of a debugger's stop in PMIx_Init: as a PMIx tool of a
 * running DVM (default search), spawn N copies of itself (--client: PMIx_Init,
 * PMIx_Finalize) and wait for the job's end, REPS times; then the same with
 * PMIX_DEBUG_STOP_IN_INIT, waiting for PMIX_READY_FOR_DEBUG and sending
 * PMIX_DEBUGGER_RELEASE (custom range: the job) before waiting for the end. Prints per N
 * the median milliseconds of each and their ratio. Main thread + the library's. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>
#include <pmix_tool.h>

#define MAXREPS 64

static pmix_proc_t me;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pmix_nspace_t ready_ns, ended_ns; /* the last ready / ended job */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)results;
    (void)nresults;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING) {
            pthread_mutex_lock(&lock);
            PMIX_LOAD_NSPACE(status == PMIX_READY_FOR_DEBUG ? ready_ns : ended_ns,
                             info[i].value.data.string);
            pthread_cond_broadcast(&cond);
            pthread_mutex_unlock(&lock);
        }
    }
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

/* Wait (60 s at most) until *which names ns. */
static bool wait_ns(pmix_nspace_t which, const char *ns)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 60;
    pthread_mutex_lock(&lock);
    while (!PMIx_Check_nspace(which, ns) &&
           pthread_cond_timedwait(&cond, &lock, &until) != ETIMEDOUT) {
    }
    bool ok = PMIx_Check_nspace(which, ns);
    pthread_mutex_unlock(&lock);
    return ok;
}

/* One job of n processes; held: with the stop in init and its release. ms, or -1. */
static double one_job(const char *self, int n, bool held)
{
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(self);
    char *argv[] = {(char *)self, "--client", NULL};
    app.argv = PMIx_Argv_copy(argv);
    app.maxprocs = n;
    bool yes = true;
    pmix_info_t jinfo[2];
    PMIX_INFO_LOAD(&jinfo[0], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&jinfo[1], PMIX_DEBUG_STOP_IN_INIT, &yes, PMIX_BOOL);
    pmix_nspace_t ns;
    double t0 = now_ms();
    pmix_status_t rc = PMIx_Spawn(jinfo, held ? 2 : 1, &app, 1, ns);
    bool ok = rc == PMIX_SUCCESS;
    if (ok && held) {
        ok = wait_ns(ready_ns, ns);
        pmix_proc_t all;
        PMIx_Load_procid(&all, ns, PMIX_RANK_WILDCARD);
        pmix_info_t range;
        PMIX_INFO_LOAD(&range, PMIX_EVENT_CUSTOM_RANGE, &all, PMIX_PROC);
        ok = ok && PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, &me, PMIX_RANGE_CUSTOM, &range, 1, NULL,
                                     NULL) == PMIX_SUCCESS;
        PMIX_INFO_DESTRUCT(&range);
    }
    ok = ok && wait_ns(ended_ns, ns);
    double t = now_ms() - t0;
    PMIX_INFO_DESTRUCT(&jinfo[0]);
    PMIX_INFO_DESTRUCT(&jinfo[1]);
    PMIX_APP_DESTRUCT(&app);
    if (!ok) {
        fprintf(stderr, "bench_stop: %s job of %d failed: %s\n", held ? "held" : "plain", n,
                PMIx_Error_string(rc));
    }
    return ok ? t : -1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--client") == 0) {
        pmix_proc_t p;
        if (PMIx_Init(&p, NULL, 0) != PMIX_SUCCESS) {
            return 1;
        }
        return PMIx_Finalize(NULL, 0) == PMIX_SUCCESS ? 0 : 1;
    }
    int reps = argc > 1 ? atoi(argv[1]) : 9;
    if (reps < 1 || reps > MAXREPS) {
        fprintf(stderr, "usage: bench_stop [REPS (1..%d)] [N...]\n", MAXREPS);
        return 2;
    }
    pmix_status_t rc = PMIx_tool_init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "bench_stop: PMIx_tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_status_t codes[] = {PMIX_READY_FOR_DEBUG, PMIX_EVENT_JOB_END};
    if (PMIx_Register_event_handler(codes, 2, NULL, 0, on_event, NULL, NULL) < 0) {
        return 1;
    }
    int sizes[8] = {16, 64};
    int nsizes = 2;
    if (argc > 2) {
        nsizes = 0;
        for (int i = 2; i < argc && nsizes < 8; i++) {
            sizes[nsizes++] = atoi(argv[i]);
        }
    }
    printf("%-4s %14s %18s %8s\n", "N", "plain ms", "stop+release ms", "ratio");
    int ret = 0;
    for (int s = 0; s < nsizes && ret == 0; s++) {
        double plain[MAXREPS], held[MAXREPS];
        one_job(argv[0], sizes[s], false); /* warm-up */
        for (int r = 0; r < reps && ret == 0; r++) {
            /* alternate, so both see the same load */
            plain[r] = one_job(argv[0], sizes[s], false);
            held[r] = one_job(argv[0], sizes[s], true);
            ret = plain[r] < 0 || held[r] < 0;
        }
        if (ret == 0) {
            qsort(plain, (size_t)reps, sizeof(double), cmp);
            qsort(held, (size_t)reps, sizeof(double), cmp);
            double p = plain[reps / 2], h = held[reps / 2];
            printf("%-4d %14.1f %18.1f %7.2fx\n", sizes[s], p, h, h / p);
        }
    }
    fflush(stdout);
    PMIx_tool_finalize();
    return ret;
}
