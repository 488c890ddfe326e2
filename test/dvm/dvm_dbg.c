/* dvm_dbg - the debugger's side and the target's side of the stop-point tests
 * (t_stop*.sh): a debugger-like tool that spawns a job with PMIX_DEBUG_STOP_* and
 * releases it, and the application it spawns. Public PMIx API only.
 *   app DIR             the target: PMIx_Init (held there with PMIX_DEBUG_STOP_IN_INIT),
 *                       create DIR/init.R, print "rank R initialized"; then, when
 *                       PMIx_Get(wildcard, PMIX_DEBUG_STOP_IN_APP) names it (one rank, the
 *                       wildcard, or a list of processes holding it), register for
 *                       PMIX_DEBUGGER_RELEASE, say PMIX_READY_FOR_DEBUG (breakpoint
 *                       "dvm-dbg-app") and wait for the release (60 s, else exit 5);
 *                       create DIR/done.R, finalize. When DIR/hold exists: wait (60 s)
 *                       for DIR/go-init before PMIx_Init and for DIR/go-end before done.R
 *   watch FILE [NS]     as a PMIx tool: register for PMIX_READY_FOR_DEBUG, create FILE,
 *                       wait (60 s) for the event (of job NS, when given) and print
 *                       "watch ready NS", exit
 *   tool KIND SPEC N LEVEL DIR HOW
 *                       as a PMIx tool: register for PMIX_READY_FOR_DEBUG and JOB_END,
 *                       spawn N x "dvm_dbg app DIR" with the stop directive KIND (exec,
 *                       init, app) valued SPEC (true: bool; wild: PMIX_RANK_WILDCARD; a
 *                       number: that rank; list:R,R...: a pmix_data_array_t of pmix_proc_t
 *                       with those ranks and an empty namespace) in the job info (LEVEL
 *                       job) or the app's info
 *                       (app); print "spawned NS", wait for the ready event (60 s) and
 *                       print "ready ns=ok|NS breakpoint=BP", each rank's proc table row
 *                       "ptab R STATE pid=P", "marker R init|none" (DIR/init.R), release
 *                       HOW: event (PMIX_DEBUGGER_RELEASE, custom range = the job), cont
 *                       (SIGCONT to each STOPPED pid of the proc table), resume
 *                       (PMIx_Job_control PMIX_JOB_CTRL_RESUME of the job), leave (none:
 *                       finalize and exit 0); HOW+wait: first wait (60 s) for DIR/go; print
 *                       "released STATUS", wait for JOB_END (60 s) and print "end STATUS",
 *                       then "ready events N" (how many for this job)
 *   release NS [R]      as a PMIx tool: PMIX_DEBUGGER_RELEASE in the custom range NS:R
 *                       (default: every rank); print "release STATUS"
 *   jobctl OP T...      as a PMIx tool: PMIx_Job_control of the targets T (NS or NS:RANK)
 *                       with OP: pause, resume, kill, terminate, signal:N, pauseresume
 *                       (both: refused); print "jobctl OP STATUS"
 *   bad                 as a PMIx tool: spawns the DVM must refuse (a stop value that is
 *                       a string, a rank beyond the job, two stop points for a rank, an
 *                       app-level rank of another app; a list naming another namespace, a
 *                       rank beyond the job, an array of ints): "CASE: STATUS" and
 *                       "msg: TEXT"
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
#include <pmix_tool.h>

static pmix_proc_t me;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
/* every ready event heard (a registration also gets the server's cached ones, of jobs
 * before ours), and the last one's namespace and breakpoint */
#define MAX_READY 64
static pmix_nspace_t ready_all[MAX_READY];
static int nready_all;
static char ready_ns[PMIX_MAX_NSLEN + 1];
static char ready_bp[64];
static bool ended, released;
static pmix_status_t end_status;
static char end_msg[1024];

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "dvm_dbg: %s: %s\n", what, PMIx_Error_string(rc));
    exit(99);
}

static const pmix_info_t *find(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&info[i], key)) {
            return &info[i];
        }
    }
    return NULL;
}

/* Wait (lock held) until *flag or `secs` seconds passed; returns *flag. */
static bool wait_flag(const bool *flag, int secs)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += secs;
    while (!*flag && pthread_cond_timedwait(&cond, &lock, &until) != ETIMEDOUT) {
    }
    return *flag;
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)results;
    (void)nresults;
    const pmix_info_t *ns = find(info, ninfo, PMIX_NSPACE);
    const char *nss = ns != NULL && ns->value.type == PMIX_STRING ? ns->value.data.string : "";
    pthread_mutex_lock(&lock);
    if (status == PMIX_READY_FOR_DEBUG) {
        snprintf(ready_ns, sizeof(ready_ns), "%s", nss);
        const pmix_info_t *bp = find(info, ninfo, PMIX_BREAKPOINT);
        snprintf(ready_bp, sizeof(ready_bp), "%s",
                 bp != NULL && bp->value.type == PMIX_STRING ? bp->value.data.string : "-");
        if (nready_all < MAX_READY) {
            PMIX_LOAD_NSPACE(ready_all[nready_all++], nss);
        }
    } else if (status == PMIX_EVENT_JOB_END) {
        const pmix_info_t *st = find(info, ninfo, PMIX_JOB_TERM_STATUS);
        const pmix_info_t *msg = find(info, ninfo, PMIX_EVENT_TEXT_MESSAGE);
        end_status = st != NULL ? st->value.data.status : PMIX_ERR_NOT_FOUND;
        snprintf(end_msg, sizeof(end_msg), "%s",
                 msg != NULL && msg->value.type == PMIX_STRING ? msg->value.data.string : "(none)");
        ended = true;
    } else if (status == PMIX_DEBUGGER_RELEASE) {
        released = true;
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

static void touch(const char *dir, const char *what, pmix_rank_t rank)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.%u", dir, what, rank);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        fclose(f);
    }
}

/* ---- the target ---- */

/* Wait (60 s) for DIR/NAME to exist. */
static void wait_file(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    for (int i = 0; i < 6000 && access(path, F_OK) != 0; i++) {
        usleep(10000);
    }
}

static void app(const char *dir)
{
    char hold[4096];
    snprintf(hold, sizeof(hold), "%s/hold", dir);
    bool holding = access(hold, F_OK) == 0;
    if (holding) {
        wait_file(dir, "go-init");
    }
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_Init", rc);
    }
    touch(dir, "init", me.rank);
    printf("rank %u initialized\n", me.rank);
    fflush(stdout);
    pmix_proc_t wild;
    PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    bool stop = false;
    if (PMIx_Get(&wild, PMIX_DEBUG_STOP_IN_APP, NULL, 0, &v) == PMIX_SUCCESS && v != NULL) {
        stop = v->type == PMIX_PROC_RANK &&
               (v->data.rank == PMIX_RANK_WILDCARD || v->data.rank == me.rank);
        if (v->type == PMIX_DATA_ARRAY && v->data.darray != NULL &&
            v->data.darray->type == PMIX_PROC) { /* a list of processes */
            const pmix_proc_t *p = v->data.darray->array;
            for (size_t i = 0; i < v->data.darray->size; i++) {
                stop = stop ||
                       ((p[i].nspace[0] == '\0' || PMIx_Check_nspace(p[i].nspace, me.nspace)) &&
                        (p[i].rank == PMIX_RANK_WILDCARD || p[i].rank == me.rank));
            }
        }
        PMIx_Value_free(v, 1);
    }
    if (stop) {
        pmix_status_t code = PMIX_DEBUGGER_RELEASE;
        rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL);
        if (rc < 0) {
            die("register", rc);
        }
        pmix_info_t info;
        PMIX_INFO_LOAD(&info, PMIX_BREAKPOINT, "dvm-dbg-app", PMIX_STRING);
        rc = PMIx_Notify_event(PMIX_READY_FOR_DEBUG, &me, PMIX_RANGE_RM, &info, 1, NULL, NULL);
        PMIX_INFO_DESTRUCT(&info);
        if (rc != PMIX_SUCCESS) {
            die("notify", rc);
        }
        printf("rank %u held in app\n", me.rank);
        fflush(stdout);
        pthread_mutex_lock(&lock);
        bool ok = wait_flag(&released, 60);
        pthread_mutex_unlock(&lock);
        if (!ok) {
            fprintf(stderr, "rank %u never released\n", me.rank);
            exit(5);
        }
        printf("rank %u released in app\n", me.rank);
        fflush(stdout);
    }
    if (holding) {
        wait_file(dir, "go-end");
    }
    touch(dir, "done", me.rank);
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_Finalize", rc);
    }
}

/* ---- the debugger ---- */

static void tool_start(void)
{
    pmix_status_t rc = PMIx_tool_init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_tool_init", rc);
    }
    pmix_status_t codes[] = {PMIX_READY_FOR_DEBUG, PMIX_EVENT_JOB_END};
    rc = PMIx_Register_event_handler(codes, 2, NULL, 0, on_event, NULL, NULL);
    if (rc < 0) {
        die("register", rc);
    }
}

static const char *stop_key(const char *kind)
{
    if (strcmp(kind, "exec") == 0) {
        return PMIX_DEBUG_STOP_ON_EXEC;
    }
    if (strcmp(kind, "init") == 0) {
        return PMIX_DEBUG_STOP_IN_INIT;
    }
    if (strcmp(kind, "app") == 0) {
        return PMIX_DEBUG_STOP_IN_APP;
    }
    fprintf(stderr, "dvm_dbg: unknown stop kind %s\n", kind);
    exit(2);
}

/* A list "R,R,..." as a pmix_data_array_t of pmix_proc_t in namespace ns. */
static void load_list(pmix_info_t *x, const char *key, const char *ns, const char *ranks)
{
    pmix_proc_t p[64];
    size_t n = 0;
    for (const char *c = ranks; *c != '\0' && n < 64; c += strcspn(c, ","), c += *c == ',') {
        PMIx_Load_procid(&p[n++], ns, (pmix_rank_t)strtoul(c, NULL, 10));
    }
    pmix_data_array_t da = {.type = PMIX_PROC, .size = n, .array = p};
    PMIX_INFO_LOAD(x, key, &da, PMIX_DATA_ARRAY);
}

static void load_stop(pmix_info_t *x, const char *key, const char *spec)
{
    bool yes = true;
    if (strncmp(spec, "list:", 5) == 0) {
        load_list(x, key, "", spec + 5);
    } else if (strcmp(spec, "true") == 0) {
        PMIX_INFO_LOAD(x, key, &yes, PMIX_BOOL);
    } else if (strcmp(spec, "wild") == 0) {
        pmix_rank_t r = PMIX_RANK_WILDCARD;
        PMIX_INFO_LOAD(x, key, &r, PMIX_PROC_RANK);
    } else if (strcmp(spec, "text") == 0) {
        PMIX_INFO_LOAD(x, key, "all", PMIX_STRING);
    } else {
        pmix_rank_t r = (pmix_rank_t)strtoul(spec, NULL, 10);
        PMIX_INFO_LOAD(x, key, &r, PMIX_PROC_RANK);
    }
}

static void dbg_app(pmix_app_t *a, int n, const char *self, const char *dir)
{
    PMIX_APP_CONSTRUCT(a);
    a->cmd = strdup(self);
    char *argv[] = {(char *)self, "app", (char *)dir, NULL};
    a->argv = PMIx_Argv_copy(argv);
    a->maxprocs = n;
}

/* Spawn; 0 on success (ns set), else the status (the JOB_END message is printed). */
static pmix_status_t spawn(const char *label, pmix_info_t *jinfo, size_t nj, pmix_app_t *apps,
                           size_t napps, pmix_nspace_t ns)
{
    pthread_mutex_lock(&lock);
    ended = false;
    pthread_mutex_unlock(&lock);
    pmix_status_t rc = PMIx_Spawn(jinfo, nj, apps, napps, ns);
    if (label != NULL) {
        printf("%s: %s\n", label, PMIx_Error_string(rc));
    }
    if (rc != PMIX_SUCCESS) {
        pthread_mutex_lock(&lock);
        bool got = wait_flag(&ended, 10);
        printf("msg: %s\n", got ? end_msg : "(none)");
        pthread_mutex_unlock(&lock);
    }
    fflush(stdout);
    return rc;
}

/* The proc table of ns, printed; pids[rank] of the ranks shown STOPPED. */
static void print_ptab(const char *ns, pid_t *pids, size_t npids)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char *keys[] = {PMIX_QUERY_PROC_TABLE, NULL};
    q.keys = keys;
    pmix_info_t qual;
    PMIX_INFO_LOAD(&qual, PMIX_NSPACE, ns, PMIX_STRING);
    q.qualifiers = &qual;
    q.nqual = 1;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc = PMIx_Query_info(&q, 1, &res, &nres);
    const pmix_info_t *pt = rc == PMIX_SUCCESS ? find(res, nres, PMIX_QUERY_PROC_TABLE) : NULL;
    if (pt != NULL && pt->value.type == PMIX_DATA_ARRAY && pt->value.data.darray != NULL) {
        const pmix_proc_info_t *pi = pt->value.data.darray->array;
        for (size_t i = 0; i < pt->value.data.darray->size; i++) {
            printf("ptab %u %s pid=%d\n", pi[i].proc.rank, PMIx_Proc_state_string(pi[i].state),
                   (int)pi[i].pid);
            if (pi[i].proc.rank < npids &&
                strcmp(PMIx_Proc_state_string(pi[i].state), "STOPPED") == 0) {
                pids[pi[i].proc.rank] = pi[i].pid;
            }
        }
    } else {
        printf("ptab query: %s\n", PMIx_Error_string(rc));
    }
    PMIx_Info_free(res, nres);
    PMIX_INFO_DESTRUCT(&qual);
}

static int tool(char **argv, const char *self)
{
    const char *kind = argv[0], *spec = argv[1], *level = argv[3], *dir = argv[4];
    const char *how = argv[5];
    int n = atoi(argv[2]);
    tool_start();
    pmix_app_t a;
    dbg_app(&a, n, self, dir);
    pmix_info_t jinfo[2];
    bool yes = true;
    PMIX_INFO_LOAD(&jinfo[0], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    size_t nj = 1;
    pmix_info_t stop;
    load_stop(&stop, stop_key(kind), spec);
    if (strcmp(level, "job") == 0) {
        jinfo[nj++] = stop;
    } else {
        a.info = &stop;
        a.ninfo = 1;
    }
    pmix_nspace_t ns;
    if (spawn(NULL, jinfo, nj, &a, 1, ns) != PMIX_SUCCESS) {
        return 1;
    }
    printf("spawned %s\n", ns);
    fflush(stdout);
    /* the ready event may have come before the spawn's answer was read: it carries ns */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 60;
    pthread_mutex_lock(&lock);
    while (!(ready_ns[0] != '\0' && PMIx_Check_nspace(ready_ns, ns)) &&
           pthread_cond_timedwait(&cond, &lock, &until) != ETIMEDOUT) {
    }
    bool ready = ready_ns[0] != '\0';
    printf("ready ns=%s breakpoint=%s\n",
           !ready                            ? "(none)"
           : PMIx_Check_nspace(ready_ns, ns) ? "ok"
                                             : ready_ns,
           ready_bp);
    pthread_mutex_unlock(&lock);
    pid_t *pids = calloc((size_t)n, sizeof(*pids));
    print_ptab(ns, pids, (size_t)n);
    for (int r = 0; r < n; r++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/init.%d", dir, r);
        printf("marker %d %s\n", r, access(path, F_OK) == 0 ? "init" : "none");
    }
    fflush(stdout);
    char base[16];
    snprintf(base, sizeof(base), "%.*s", (int)strcspn(how, "+"), how);
    if (strstr(how, "+wait") != NULL) { /* the driver looks at the held processes first */
        char go[4096];
        snprintf(go, sizeof(go), "%s/go", dir);
        for (int i = 0; i < 6000 && access(go, F_OK) != 0; i++) {
            usleep(10000);
        }
    }
    how = base;
    bool leave = strcmp(how, "leave") == 0; /* the debugger goes away: the DVM ends its job */
    pmix_status_t rc = PMIX_SUCCESS;
    if (leave) {
    } else if (strcmp(how, "event") == 0) {
        pmix_proc_t all;
        PMIx_Load_procid(&all, ns, PMIX_RANK_WILDCARD);
        pmix_info_t info[2];
        PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, &all, PMIX_PROC);
        PMIX_INFO_LOAD(&info[1], PMIX_EVENT_NON_DEFAULT, NULL, PMIX_BOOL);
        rc = PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, &me, PMIX_RANGE_CUSTOM, info, 2, NULL, NULL);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
    } else if (strcmp(how, "cont") == 0) {
        for (int r = 0; r < n; r++) {
            if (pids[r] > 0 && kill(pids[r], SIGCONT) != 0) {
                rc = PMIX_ERR_NOT_FOUND;
            }
        }
    } else if (strcmp(how, "resume") == 0) {
        pmix_proc_t all;
        PMIx_Load_procid(&all, ns, PMIX_RANK_WILDCARD);
        pmix_info_t d;
        PMIX_INFO_LOAD(&d, PMIX_JOB_CTRL_RESUME, &yes, PMIX_BOOL);
        pmix_info_t *res = NULL;
        size_t nres = 0;
        rc = PMIx_Job_control(&all, 1, &d, 1, &res, &nres);
        PMIx_Info_free(res, nres);
        PMIX_INFO_DESTRUCT(&d);
    }
    bool got = false;
    if (leave) {
        goto out;
    }
    printf("released %s\n", PMIx_Error_string(rc));
    fflush(stdout);
    pthread_mutex_lock(&lock);
    got = wait_flag(&ended, 60);
    printf("end %s\n", got ? PMIx_Error_string(end_status) : "(none)");
    int nready = 0;
    for (int i = 0; i < nready_all; i++) {
        nready += PMIx_Check_nspace(ready_all[i], ns);
    }
    printf("ready events %d\n", nready);
    pthread_mutex_unlock(&lock);
out:
    free(pids);
    PMIX_INFO_DESTRUCT(&jinfo[0]);
    a.info = NULL;
    a.ninfo = 0;
    PMIX_APP_DESTRUCT(&a);
    PMIX_INFO_DESTRUCT(&stop);
    PMIx_tool_finalize();
    return leave || (got && end_status == PMIX_SUCCESS) ? 0 : 1;
}

/* A ready event heard for ns (any job when NULL); lock held. */
static bool heard_ready(const char *ns)
{
    for (int i = 0; i < nready_all; i++) {
        if (ns == NULL || PMIx_Check_nspace(ready_all[i], ns)) {
            return true;
        }
    }
    return false;
}

static int watch(const char *file, const char *ns)
{
    tool_start();
    FILE *f = fopen(file, "w");
    if (f != NULL) {
        fclose(f);
    }
    pthread_mutex_lock(&lock);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 60;
    while (!heard_ready(ns) && pthread_cond_timedwait(&cond, &lock, &until) != ETIMEDOUT) {
    }
    bool heard = heard_ready(ns);
    printf("watch ready %s\n", !heard ? "(none)" : ns != NULL ? ns : ready_all[0]);
    pthread_mutex_unlock(&lock);
    fflush(stdout);
    PMIx_tool_finalize();
    return heard ? 0 : 1;
}

static int release(const char *ns, const char *rank)
{
    tool_start();
    pmix_proc_t who;
    PMIx_Load_procid(&who, ns,
                     rank != NULL ? (pmix_rank_t)strtoul(rank, NULL, 10) : PMIX_RANK_WILDCARD);
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_EVENT_CUSTOM_RANGE, &who, PMIX_PROC);
    pmix_status_t rc =
        PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, &me, PMIX_RANGE_CUSTOM, &info, 1, NULL, NULL);
    PMIX_INFO_DESTRUCT(&info);
    printf("release %s\n", PMIx_Error_string(rc));
    fflush(stdout);
    PMIx_tool_finalize();
    return rc == PMIX_SUCCESS ? 0 : 1;
}

static int jobctl(const char *op, char **targets, int n)
{
    tool_start();
    pmix_proc_t *procs = PMIx_Proc_create((size_t)n);
    for (int i = 0; i < n; i++) {
        char *colon = strrchr(targets[i], ':');
        pmix_rank_t r = PMIX_RANK_WILDCARD;
        if (colon != NULL && strchr(targets[i], '@') != NULL && colon > strchr(targets[i], '@')) {
            r = (pmix_rank_t)strtoul(colon + 1, NULL, 10);
            *colon = '\0';
        }
        PMIx_Load_procid(&procs[i], targets[i], r);
    }
    bool yes = true;
    pmix_info_t d[2];
    size_t nd = 1;
    if (strncmp(op, "signal:", 7) == 0) {
        int sig = atoi(op + 7);
        PMIX_INFO_LOAD(&d[0], PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT);
    } else if (strcmp(op, "pauseresume") == 0) {
        PMIX_INFO_LOAD(&d[0], PMIX_JOB_CTRL_PAUSE, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&d[1], PMIX_JOB_CTRL_RESUME, &yes, PMIX_BOOL);
        nd = 2;
    } else {
        const char *key = strcmp(op, "pause") == 0    ? PMIX_JOB_CTRL_PAUSE
                          : strcmp(op, "resume") == 0 ? PMIX_JOB_CTRL_RESUME
                          : strcmp(op, "kill") == 0   ? PMIX_JOB_CTRL_KILL
                                                      : PMIX_JOB_CTRL_TERMINATE;
        PMIX_INFO_LOAD(&d[0], key, &yes, PMIX_BOOL);
    }
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc = PMIx_Job_control(procs, (size_t)n, d, nd, &res, &nres);
    printf("jobctl %s %s\n", op, PMIx_Error_string(rc));
    fflush(stdout);
    PMIx_Info_free(res, nres);
    for (size_t i = 0; i < nd; i++) {
        PMIX_INFO_DESTRUCT(&d[i]);
    }
    PMIx_Proc_free(procs, (size_t)n);
    PMIx_tool_finalize();
    return rc == PMIX_SUCCESS ? 0 : 1;
}

static void bad(const char *self)
{
    tool_start();
    pmix_nspace_t ns;
    pmix_app_t a[2];
    pmix_info_t x[2];
    /* a value this DVM does not read */
    dbg_app(&a[0], 2, self, "/nonexistent");
    load_stop(&x[0], PMIX_DEBUG_STOP_IN_INIT, "text");
    spawn("string value", x, 1, a, 1, ns);
    PMIX_INFO_DESTRUCT(&x[0]);
    /* a rank beyond the job */
    load_stop(&x[0], PMIX_DEBUG_STOP_ON_EXEC, "5");
    spawn("rank beyond", x, 1, a, 1, ns);
    PMIX_INFO_DESTRUCT(&x[0]);
    /* two stop points for rank 1 */
    load_stop(&x[0], PMIX_DEBUG_STOP_ON_EXEC, "wild");
    load_stop(&x[1], PMIX_DEBUG_STOP_IN_INIT, "1");
    spawn("two stops", x, 2, a, 1, ns);
    PMIX_INFO_DESTRUCT(&x[0]);
    PMIX_INFO_DESTRUCT(&x[1]);
    /* app 1's directive names rank 0, a process of app 0 */
    dbg_app(&a[1], 1, self, "/nonexistent");
    load_stop(&x[0], PMIX_DEBUG_STOP_IN_APP, "0");
    a[1].info = &x[0];
    a[1].ninfo = 1;
    spawn("other app's rank", NULL, 0, a, 2, ns);
    a[1].info = NULL;
    a[1].ninfo = 0;
    PMIX_INFO_DESTRUCT(&x[0]);
    /* lists of processes: another namespace, a rank beyond the job, not processes */
    load_list(&x[0], PMIX_DEBUG_STOP_IN_INIT, "other", "0");
    spawn("list of another namespace", x, 1, a, 1, ns);
    PMIX_INFO_DESTRUCT(&x[0]);
    load_list(&x[0], PMIX_DEBUG_STOP_ON_EXEC, "", "0,7");
    spawn("list rank beyond", x, 1, a, 1, ns);
    PMIX_INFO_DESTRUCT(&x[0]);
    int ints[] = {0, 1};
    pmix_data_array_t da = {.type = PMIX_INT, .size = 2, .array = ints};
    PMIX_INFO_LOAD(&x[0], PMIX_DEBUG_STOP_IN_APP, &da, PMIX_DATA_ARRAY);
    spawn("list of ints", x, 1, a, 1, ns);
    PMIX_INFO_DESTRUCT(&x[0]);
    PMIX_APP_DESTRUCT(&a[0]);
    PMIX_APP_DESTRUCT(&a[1]);
    PMIx_tool_finalize();
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "app") == 0) {
        app(argv[2]);
        return 0;
    }
    if (argc >= 8 && strcmp(argv[1], "tool") == 0) {
        return tool(argv + 2, argv[0]);
    }
    if (argc >= 3 && strcmp(argv[1], "watch") == 0) {
        return watch(argv[2], argc >= 4 ? argv[3] : NULL);
    }
    if (argc >= 3 && strcmp(argv[1], "release") == 0) {
        return release(argv[2], argc >= 4 ? argv[3] : NULL);
    }
    if (argc >= 4 && strcmp(argv[1], "jobctl") == 0) {
        return jobctl(argv[2], argv + 3, argc - 3);
    }
    if (argc >= 2 && strcmp(argv[1], "bad") == 0) {
        bad(argv[0]);
        return 0;
    }
    fprintf(stderr, "usage: see the comment at the top of dvm_dbg.c\n");
    return 2;
}
