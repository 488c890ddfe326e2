/* examples: a debugger daemon, as a PMIx debugger's back end would be. Started by the
 * DVM beside the job it debugs (co-spawned with it, or co-located with a running job),
 * it finds its target processes by local rank and releases them.
 *
 *   debugger_daemon [--stay] [--die SIG] [--no-release] [--wait-ready] [--cont]
 *
 * 1. PMIx_Init; the job-level PMIX_DEBUG_TARGET says which job (or rank) to debug.
 *    --wait-ready (a target spawned with a stop point, PMIX_DEBUG_STOP_*): first wait
 *    (60 s) for the target's PMIX_READY_FOR_DEBUG (every target process at its stop
 *    point; a registration also gets it from the server's cache when it came earlier).
 * 2. PMIX_QUERY_LOCAL_PROC_TABLE of the target: its processes on this node (pid, state);
 *    PMIX_QUERY_PROC_TABLE: all of them.
 * 3. Its own targets by local rank (the Standard's "self-determining" rule): with at
 *    least as many daemons as target processes on the node (PMIX_DEBUG_DAEMONS_PER_PROC
 *    N), daemon local rank L serves the target of local rank L / N; with fewer (per
 *    node), it serves the targets whose local rank modulo the daemons' local size is L.
 * 4. Prints one line: "dbgd RANK/SIZE host HOST lrank L/LS target NS[:RANK] local N
 *    total T mine R,R,... pids P,P,..." (ranks and pids of its own targets), or "dbgd
 *    RANK/SIZE target NS has ended" when the target is gone (then finalizes, exits 0).
 *    With --wait-ready, a second line "dbgd RANK/SIZE ready BREAKPOINT states S,S,..."
 *    (the proc table's state of each of its targets: STOPPED while held).
 * 5. Releases them: PMIX_DEBUGGER_RELEASE in a custom range of exactly its targets
 *    (processes held in PMIx_Init by PMIX_DEBUG_STOP_IN_INIT wait for it), unless
 *    --no-release; --cont: then SIGCONT to each of them (processes held at exec by
 *    PMIX_DEBUG_STOP_ON_EXEC are stopped by the kernel: a debugger resumes them).
 * Then: --die SIG raises SIG (a daemon that dies); --stay waits for SIGTERM (the DVM
 * terminates the daemons when their target ends); otherwise PMIx_Finalize, exit 0.
 * Public PMIx API only; errors go to stderr and exit 1.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static pmix_proc_t me;

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "debugger_daemon %s:%u: %s: %s\n", me.nspace, me.rank, what,
            PMIx_Error_string(rc));
    exit(1);
}

/* A process-table query of the target's namespace: the array of pmix_proc_info_t (the
 * caller frees res); NULL when the target has ended (PMIX_ERR_NOT_FOUND). */
static pmix_proc_info_t *proc_table(const char *key, const char *nspace, pmix_info_t **res,
                                    size_t *nres, size_t *n)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIx_Argv_append_nosize(&q.keys, key);
    q.qualifiers = PMIx_Info_create(1);
    q.nqual = 1;
    PMIx_Info_load(&q.qualifiers[0], PMIX_NSPACE, nspace, PMIX_STRING);
    pmix_status_t rc = PMIx_Query_info(&q, 1, res, nres);
    PMIX_QUERY_DESTRUCT(&q);
    if (rc == PMIX_ERR_NOT_FOUND) {
        *n = 0;
        return NULL;
    }
    if (rc != PMIX_SUCCESS) {
        die(key, rc);
    }
    for (size_t i = 0; i < *nres; i++) {
        if (PMIX_CHECK_KEY(&(*res)[i], key) && (*res)[i].value.type == PMIX_DATA_ARRAY &&
            (*res)[i].value.data.darray != NULL &&
            (*res)[i].value.data.darray->type == PMIX_PROC_INFO) {
            *n = (*res)[i].value.data.darray->size;
            return (*res)[i].value.data.darray->array;
        }
    }
    die(key, PMIX_ERR_NOT_FOUND);
    return NULL;
}

/* A number of p's; *gone (when not NULL) says p's job has ended (its data is gone). */
static uint32_t get_u32_of(const pmix_proc_t *p, const char *key, bool *gone)
{
    pmix_value_t *v = NULL;
    uint32_t n = 0;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    if (rc == PMIX_ERR_NOT_FOUND && gone != NULL) {
        *gone = true;
        return 0;
    }
    if (rc != PMIX_SUCCESS || PMIx_Value_get_number(v, &n, PMIX_UINT32) != PMIX_SUCCESS) {
        die(key, rc != PMIX_SUCCESS ? rc : PMIX_ERR_TYPE_MISMATCH);
    }
    PMIX_VALUE_RELEASE(v);
    return n;
}

static uint32_t get_u32(const pmix_proc_t *p, const char *key)
{
    return get_u32_of(p, key, NULL);
}

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
} wait_t;

static void notified(pmix_status_t status, void *cbdata)
{
    wait_t *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* PMIX_DEBUGGER_RELEASE to exactly these processes (waits for the library to take it). */
static void release(pmix_proc_t *targets, size_t n)
{
    pmix_data_array_t range = {.type = PMIX_PROC, .size = n, .array = targets};
    bool yes = true;
    pmix_info_t info[2];
    PMIx_Info_load(&info[0], PMIX_EVENT_CUSTOM_RANGE, &range, PMIX_DATA_ARRAY);
    PMIx_Info_load(&info[1], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
    wait_t w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, PMIX_SUCCESS};
    pmix_status_t rc =
        PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, &me, PMIX_RANGE_CUSTOM, info, 2, notified, &w);
    if (rc == PMIX_SUCCESS) {
        pthread_mutex_lock(&w.lock);
        while (!w.done) {
            pthread_cond_wait(&w.cond, &w.lock);
        }
        pthread_mutex_unlock(&w.lock);
        rc = w.status;
    }
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_destruct(&info[1]);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
        die("PMIx_Notify_event(PMIX_DEBUGGER_RELEASE)", rc);
    }
}

/* The target's PMIX_READY_FOR_DEBUG (--wait-ready): its breakpoint, once heard. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool heard;
    char bp[64];
} ready = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, "-"};

static void on_ready(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)source;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&ready.lock);
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_BREAKPOINT) && info[i].value.type == PMIX_STRING) {
            snprintf(ready.bp, sizeof(ready.bp), "%s", info[i].value.data.string);
        }
    }
    ready.heard = true;
    pthread_cond_broadcast(&ready.cond);
    pthread_mutex_unlock(&ready.lock);
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

/* Wait (60 s) for the ready event of job target (registered naming it). */
static void wait_ready(const pmix_proc_t *target)
{
    pmix_status_t code = PMIX_READY_FOR_DEBUG;
    pmix_proc_t job;
    PMIx_Load_procid(&job, target->nspace, PMIX_RANK_WILDCARD);
    pmix_info_t aff;
    PMIx_Info_load(&aff, PMIX_EVENT_AFFECTED_PROC, &job, PMIX_PROC);
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, &aff, 1, on_ready, NULL, NULL);
    PMIx_Info_destruct(&aff);
    if (rc < 0) {
        die("PMIx_Register_event_handler(PMIX_READY_FOR_DEBUG)", rc);
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 60;
    pthread_mutex_lock(&ready.lock);
    while (!ready.heard && pthread_cond_timedwait(&ready.cond, &ready.lock, &until) != ETIMEDOUT) {
    }
    bool heard = ready.heard;
    pthread_mutex_unlock(&ready.lock);
    if (!heard) {
        die("PMIX_READY_FOR_DEBUG of the target", PMIX_ERR_TIMEOUT);
    }
}

int main(int argc, char **argv)
{
    bool stay = false, no_release = false, want_ready = false, cont = false;
    int die_sig = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--stay") == 0) {
            stay = true;
        } else if (strcmp(argv[i], "--no-release") == 0) {
            no_release = true;
        } else if (strcmp(argv[i], "--wait-ready") == 0) {
            want_ready = true;
        } else if (strcmp(argv[i], "--cont") == 0) {
            cont = true;
        } else if (strcmp(argv[i], "--die") == 0 && i + 1 < argc) {
            die_sig = atoi(argv[++i]);
        } else {
            fprintf(stderr,
                    "usage: %s [--stay] [--die SIG] [--no-release] [--wait-ready] [--cont]\n",
                    argv[0]);
            return 2;
        }
    }
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &term, NULL); /* taken by sigwait with --stay */

    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_Init", rc);
    }
    pmix_proc_t job, target;
    PMIx_Load_procid(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    rc = PMIx_Get(&job, PMIX_DEBUG_TARGET, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_PROC) {
        die("PMIx_Get(PMIX_DEBUG_TARGET)", rc != PMIX_SUCCESS ? rc : PMIX_ERR_TYPE_MISMATCH);
    }
    target = *v->data.proc;
    PMIX_VALUE_RELEASE(v);
    if (want_ready) {
        wait_ready(&target);
    }
    uint32_t size = get_u32(&job, PMIX_JOB_SIZE);
    uint32_t lsize = get_u32(&job, PMIX_LOCAL_SIZE);
    uint32_t lrank = get_u32(&me, PMIX_LOCAL_RANK);
    char *host = NULL;
    if (PMIx_Get(&me, PMIX_HOSTNAME, NULL, 0, &v) == PMIX_SUCCESS && v->type == PMIX_STRING) {
        host = strdup(v->data.string);
        PMIX_VALUE_RELEASE(v);
    }

    pmix_info_t *lres = NULL, *ares = NULL;
    size_t nlres = 0, nares = 0, nlocal = 0, nall = 0;
    pmix_proc_info_t *local =
        proc_table(PMIX_QUERY_LOCAL_PROC_TABLE, target.nspace, &lres, &nlres, &nlocal);
    bool gone = local == NULL ||
                proc_table(PMIX_QUERY_PROC_TABLE, target.nspace, &ares, &nares, &nall) == NULL;
    /* the targets' local ranks (their job may end meanwhile: then nothing is left to do) */
    uint32_t *tlr = calloc(nlocal ? nlocal : 1, sizeof(*tlr));
    for (size_t i = 0; !gone && tlr != NULL && i < nlocal; i++) {
        tlr[i] = target.rank != PMIX_RANK_WILDCARD
                     ? 0
                     : get_u32_of(&local[i].proc, PMIX_LOCAL_RANK, &gone);
    }
    if (gone || tlr == NULL) {
        printf("dbgd %u/%u target %s has ended\n", me.rank, size, target.nspace);
        PMIx_Info_free(lres, nlres);
        PMIx_Info_free(ares, nares);
        free(tlr);
        free(host);
        PMIx_Finalize(NULL, 0);
        return 0;
    }

    /* which of the local targets are mine, by the target's local rank */
    pmix_proc_t *mine = PMIx_Proc_create(nlocal ? nlocal : 1);
    pid_t *pids = calloc(nlocal ? nlocal : 1, sizeof(*pids));
    const char **states = calloc(nlocal ? nlocal : 1, sizeof(*states));
    size_t nmine = 0, ntargets = 0;
    for (size_t i = 0; i < nlocal; i++) {
        ntargets += target.rank == PMIX_RANK_WILDCARD || local[i].proc.rank == target.rank;
    }
    for (size_t i = 0; mine != NULL && pids != NULL && i < nlocal; i++) {
        if (target.rank != PMIX_RANK_WILDCARD && local[i].proc.rank != target.rank) {
            continue;
        }
        uint32_t tl = tlr[i];
        bool is_mine = lsize >= ntargets ? tl == lrank / (lsize / (ntargets ? ntargets : 1))
                                         : tl % lsize == lrank;
        if (is_mine && states != NULL) {
            mine[nmine] = local[i].proc;
            states[nmine] = PMIx_Proc_state_string(local[i].state);
            pids[nmine++] = local[i].pid;
        }
    }
    printf("dbgd %u/%u host %s lrank %u/%u target %s", me.rank, size, host ? host : "?", lrank,
           lsize, target.nspace);
    if (target.rank != PMIX_RANK_WILDCARD) {
        printf(":%u", target.rank);
    }
    printf(" local %zu total %zu mine ", nlocal, nall);
    for (size_t i = 0; i < nmine; i++) {
        printf(i ? ",%u" : "%u", mine[i].rank);
    }
    printf(nmine ? " pids " : "- pids -");
    for (size_t i = 0; i < nmine; i++) {
        printf(i ? ",%d" : "%d", (int)pids[i]);
    }
    printf("\n");
    if (want_ready) {
        printf("dbgd %u/%u ready %s states ", me.rank, size, ready.bp);
        for (size_t i = 0; i < nmine; i++) {
            printf(i ? ",%s" : "%s", states[i]);
        }
        printf(nmine ? "\n" : "-\n");
    }
    fflush(stdout);
    PMIx_Info_free(lres, nlres);
    PMIx_Info_free(ares, nares);

    if (!no_release && nmine > 0) {
        release(mine, nmine);
    }
    for (size_t i = 0; cont && i < nmine; i++) {
        if (kill(pids[i], SIGCONT) != 0) {
            fprintf(stderr, "debugger_daemon %s:%u: SIGCONT to %d: %s\n", me.nspace, me.rank,
                    (int)pids[i], strerror(errno));
            exit(1);
        }
    }
    free(states);
    PMIx_Proc_free(mine, nlocal ? nlocal : 1);
    free(pids);
    free(tlr);
    free(host);
    if (die_sig > 0) {
        raise(die_sig);
    }
    if (stay) {
        int sig = 0;
        sigwait(&term, &sig); /* the DVM ends us with its target */
    }
    PMIx_Finalize(NULL, 0);
    return 0;
}
