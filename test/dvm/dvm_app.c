/* dvm_app - the application the DVM tests launch: one behaviour per first argument,
 * public PMIx API only.
 *   hello             init, print "hello rank R of N psets=<names>", finalize
 *   abort S MSG       init, PMIx_Abort(S, MSG)
 *   nofinal           init, exit 0 without finalize
 *   exit C            init/finalize, exit C (no init when C is given as "raw:C")
 *   crash             init, raise SIGSEGV
 *   sleep S           init, sleep S seconds, finalize
 *   write N           write N bytes of a repeating pattern to stdout, no newline
 *   both N            N lines alternating stdout/stderr ("out i" / "err i")
 *   cat               copy stdin to stdout until end of file
 *   slowread P U [R]  copy stdin to the file P.<rank> until end of file, reading 64 KiB
 *                     at a time and sleeping U microseconds after each read (only rank R
 *                     sleeps when R is given); then print "rank R read N bytes"
 *   take N [C]        read N bytes of stdin, print them, exit C (default 0); no PMIx
 *   env VAR           print VAR's value
 *   pwd               print the working directory
 *   binding           print Cpus_allowed_list of /proc/self/status
 *   psetq             init, query PMIX_QUERY_NUM_PSETS / PSET_NAMES, print, finalize
 *   realm             init; print "realm rank R" and its application realm read with rank
 *                     PMIX_RANK_WILDCARD: pset=, members= (ranks), appnum=, size=, ldr=,
 *                     wdir=, argv=, then app0pset= (PMIX_APP_INFO + PMIX_APPNUM 0); finalize
 *   trap              print "ready", then print each SIGINT/SIGTERM/SIGHUP it gets; exits
 *                     after SIGTERM
 *   toolq NAME        as a PMIx tool (default search): print the DVM's pset count, names
 *                     and NAME's members
 *   debugq            as a PMIx tool, the way a debugger asks for the DVM's capabilities:
 *                     one non-blocking query with PMIX_QUERY_SPAWN_SUPPORT and
 *                     PMIX_QUERY_DEBUG_SUPPORT; exactly two results are expected, each
 *                     found by its key; prints "debugq: KEY=VALUE" per result
 *   toolbad           as a PMIx tool: spawn requests the DVM must refuse (a bogus
 *                     --map-by, a missing executable, zero processes on no slots) and
 *                     print each status
 *   toolact URI NS    as a PMIx tool of the server at URI: push a line to the stdin of
 *                     NS (rank 0), then send it SIGHUP through PMIx_Job_control; print
 *                     "push STATUS" and "signal STATUS"
 *   hold              init, ignore SIGTERM, print "holding", sleep up to 30 s (the DVM's
 *                     SIGKILL ends it)
 *   waitfile P C      init, wait (up to 30 s) until file P exists, finalize, exit C
 *   toolptab P        as a PMIx tool: poll PMIX_QUERY_PROC_TABLE until 3 processes are
 *                     connected, print them ("ptab1 ..."), create file P, poll until one
 *                     has ended and print the table again ("ptab2 ...", then the
 *                     PMIX_QUERY_LOCAL_PROC_TABLE as "lptab ..."); each row: rank, host,
 *                     pid, state number and name, exit code, /proc/<pid>/cmdline; last
 *                     "ptab read after MS ms": from creating P to the end of the last read
 *   initreqd          PMIx_Init with a required PMIX_PROGRAMMING_MODEL (not acted on):
 *                     print its status; then a plain init/finalize
 *   toolreqd          PMIx_tool_init likewise; then as a PMIx tool: print the DVM's
 *                     PMIX_QUERY_SPAWN_SUPPORT ("support=..."), and the status of spawns
 *                     of /bin/true carrying: PMIX_MAX_RESTARTS required / optional (job
 *                     and app level), PMIX_NOTIFY_COMPLETION required, each debugger
 *                     attribute (not required); each refusal's JOB_END message ("msg: ")
 *   toolspawn N [K]   as a PMIx tool: spawn N x "dvm_app exit 0" with PMIx_Spawn asking for
 *                     PMIX_NOTIFY_JOB_EVENTS (or, with K "completion", only
 *                     PMIX_NOTIFY_COMPLETION), handle JOB_START, LAUNCH_COMPLETE and
 *                     JOB_END and print each (JOB_END with its keys) in the order they
 *                     arrive
 *   toolmodel M       as a PMIx tool: spawn "dvm_app model M" with PMIX_PROGRAMMING_MODEL
 *                     M in the job info, print "model job exit code C" from its JOB_END
 *   model M           init, exit 0 if the job's PMIX_PROGRAMMING_MODEL is M, else 3
 *   regkeys           init, PMIx_Get each key the Server chapter requires a host to
 *                     register (per realm), print "rank R missing KEY" for each absent
 *                     one, write a file into its PMIX_PROCDIR ("rank R wrote into its
 *                     PMIX_PROCDIR"), then "rank R checked N keys", finalize
 *   ns OP...          init, run the name service operations in order, print each result
 *                     as "rank R OP: STATUS[ VALUE from me|other:RANK]", finalize. OP:
 *                     pub:KEY=VAL[:RANGE[:PERSIST]]  look:KEY[:WAIT_SECS[:RANGE]]
 *                     unpub:KEY  perm:KEY=VAL (publish with PMIX_ACCESS_PERMISSIONS)
 *                     RANGE: proc ns local session global rm; PERSIST: indef first proc
 *                     app session
 *   xnode [S]         init; read its node's facts and every rank's PMIX_HOSTNAME and
 *                     PMIX_NODEID, check they agree (its host is the node it runs on:
 *                     $PX_PRTED_TEST_NODENAME, else its hostname; PMIX_LOCAL_PEERS are
 *                     exactly the ranks on its host, PMIX_LOCAL_SIZE their count,
 *                     PMIX_LOCAL_RANK its index among them, PMIX_NUM_NODES the hosts),
 *                     print "xnode rank R host H nodeid N lrank L nrank NR lsize LS
 *                     peers P nnodes NN"; then put/commit/fence with PMIX_COLLECT_DATA
 *                     and get every rank's key, then put/commit/fence without data and
 *                     get every rank's new key (direct modex); print "xnode rank R
 *                     exchanged with N ranks" or each failure ("xnode rank R FAIL ...");
 *                     sleep S seconds (default 0), finalize
 *   xevent [N]        init, register a handler for a custom event code, fence; rank N
 *                     (default: the last) notifies it with PMIX_RANGE_NAMESPACE, then asks with
 *                     PMIx_Job_control (PMIX_JOB_CTRL_SIGNAL SIGUSR1) for rank 0 to be
 *                     signalled and prints "xevent rank R jobctl STATUS"; every rank
 *                     prints "xevent rank R got the event from S" when its handler runs
 *                     (up to 20 s), rank 0 "xevent rank 0 got SIGUSR1"; fence, finalize
 *   badcount          init, then write on its own connection to the server a well-framed
 *                     FENCE request whose proc count (4,000,000) the message cannot hold;
 *                     print "dropped by the server" when the server closes the
 *                     connection, "kept the connection" after 10 s otherwise (exit 4)
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_tool.h>
#include <pthread.h>

static pmix_proc_t me;

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "dvm_app: %s: %s\n", what, PMIx_Error_string(rc));
    exit(99);
}

static void init(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_Init", rc);
    }
}

static void fini(void)
{
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_Finalize", rc);
    }
}

static void hello(void)
{
    init();
    pmix_value_t *v = NULL;
    pmix_proc_t wild;
    PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
    uint32_t size = 0;
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) == PMIX_SUCCESS) {
        PMIx_Value_get_number(v, &size, PMIX_UINT32);
        PMIx_Value_free(v, 1);
    }
    char psets[256] = "";
    v = NULL;
    if (PMIx_Get(&me, PMIX_PSET_NAMES, NULL, 0, &v) == PMIX_SUCCESS && v != NULL &&
        v->type == PMIX_DATA_ARRAY && v->data.darray != NULL) {
        char **names = v->data.darray->array;
        for (size_t i = 0; i < v->data.darray->size; i++) {
            strncat(psets, i ? "," : "", sizeof(psets) - strlen(psets) - 1);
            strncat(psets, names[i], sizeof(psets) - strlen(psets) - 1);
        }
    }
    if (v != NULL) {
        PMIx_Value_free(v, 1);
    }
    printf("hello rank %u of %u psets=%s\n", me.rank, size, psets[0] ? psets : "-");
    fflush(stdout);
    fini();
}

static void psetq(void)
{
    init();
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char *keys[] = {PMIX_QUERY_NUM_PSETS, PMIX_QUERY_PSET_NAMES, NULL};
    q.keys = keys;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc = PMIx_Query_info(&q, 1, &res, &nres);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_Query_info", rc);
    }
    for (size_t i = 0; i < nres; i++) {
        char *s = PMIx_Value_string(&res[i].value);
        printf("rank %u %s=%s\n", me.rank, res[i].key, s ? s : "?");
        free(s);
    }
    PMIx_Info_free(res, nres);
    fflush(stdout);
    fini();
}

/* A wildcard get of key (with the optional app qualifiers) as text; "ERR:<status>". */
static char *wild_get(const char *key, const pmix_info_t *qual, size_t nqual)
{
    pmix_proc_t wild;
    PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&wild, key, qual, nqual, &v);
    char *out = NULL;
    if (rc != PMIX_SUCCESS) {
        if (asprintf(&out, "ERR:%s", PMIx_Error_string(rc)) < 0) {
            out = NULL;
        }
    } else if (v->type == PMIX_DATA_ARRAY && v->data.darray != NULL &&
               v->data.darray->type == PMIX_PROC) {
        /* members: their ranks, after checking they are of our namespace */
        const pmix_proc_t *p = v->data.darray->array;
        char buf[1024] = "";
        for (size_t i = 0; i < v->data.darray->size; i++) {
            char one[64];
            snprintf(one, sizeof(one), "%s%u%s", i ? "," : "", p[i].rank,
                     PMIx_Check_nspace(p[i].nspace, me.nspace) ? "" : "(other nspace)");
            strncat(buf, one, sizeof(buf) - strlen(buf) - 1);
        }
        out = strdup(buf);
    } else if (v->type == PMIX_STRING) {
        out = strdup(v->data.string);
    } else {
        unsigned long long n = 0;
        if (PMIx_Value_get_number(v, &n, PMIX_UINT64) != PMIX_SUCCESS ||
            asprintf(&out, "%llu", n) < 0) {
            out = PMIx_Value_string(v);
        }
    }
    if (v != NULL) {
        PMIx_Value_free(v, 1);
    }
    return out;
}

static void realm(void)
{
    init();
    const char *keys[] = {PMIX_PSET_NAME, PMIX_PSET_MEMBERS, PMIX_APPNUM,  PMIX_APP_SIZE,
                          PMIX_APPLDR,    PMIX_WDIR,         PMIX_APP_ARGV};
    const char *labels[] = {"pset", "members", "appnum", "size", "ldr", "wdir", "argv"};
    printf("realm rank %u", me.rank);
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        char *s = wild_get(keys[i], NULL, 0);
        printf(" %s=%s", labels[i], s ? s : "?");
        free(s);
    }
    pmix_info_t q[2];
    uint32_t zero = 0;
    PMIX_INFO_LOAD(&q[0], PMIX_APP_INFO, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&q[1], PMIX_APPNUM, &zero, PMIX_UINT32);
    char *s = wild_get(PMIX_PSET_NAME, q, 2);
    printf(" app0pset=%s\n", s ? s : "?");
    free(s);
    PMIX_INFO_DESTRUCT(&q[0]);
    PMIX_INFO_DESTRUCT(&q[1]);
    fflush(stdout);
    fini();
}

/* one flag per signal: a SIGINT then a SIGTERM within one tick are both printed */
static volatile sig_atomic_t got[NSIG];

static void on_sig(int sig)
{
    got[sig] = 1;
}

static void trap(void)
{
    const int sigs[] = {SIGINT, SIGHUP, SIGTERM};
    for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++) {
        signal(sigs[k], on_sig);
    }
    printf("ready\n");
    fflush(stdout);
    for (int i = 0; i < 3000; i++) {
        for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++) {
            if (got[sigs[k]]) {
                got[sigs[k]] = 0;
                printf("got signal %d\n", sigs[k]);
                fflush(stdout);
                if (sigs[k] == SIGTERM) {
                    exit(0);
                }
            }
        }
        usleep(10000);
    }
    printf("trap: no signal ended me within 3000 ticks\n");
    fflush(stdout);
    exit(3);
}

static void print_results(const char *label, pmix_info_t *res, size_t nres)
{
    for (size_t i = 0; i < nres; i++) {
        char *v = PMIx_Value_string(&res[i].value);
        printf("%s %s=%s\n", label, res[i].key, v ? v : "?");
        free(v);
    }
}

static void toolq(const char *name)
{
    pmix_status_t rc = PMIx_tool_init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_tool_init", rc);
    }
    pmix_query_t q[2];
    PMIX_QUERY_CONSTRUCT(&q[0]);
    PMIX_QUERY_CONSTRUCT(&q[1]);
    char *k0[] = {PMIX_QUERY_NUM_PSETS, PMIX_QUERY_PSET_NAMES, NULL};
    char *k1[] = {PMIX_QUERY_PSET_MEMBERSHIP, NULL};
    q[0].keys = k0;
    q[1].keys = k1;
    pmix_info_t qual;
    PMIX_INFO_LOAD(&qual, PMIX_PSET_NAME, name, PMIX_STRING);
    q[1].qualifiers = &qual;
    q[1].nqual = 1;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    rc = PMIx_Query_info(q, 2, &res, &nres);
    if (rc != PMIX_SUCCESS && rc != PMIX_ERR_PARTIAL_SUCCESS) {
        die("PMIx_Query_info", rc);
    }
    print_results("tool", res, nres);
    PMIx_Info_free(res, nres);
    PMIX_INFO_DESTRUCT(&qual);
    fflush(stdout);
    PMIx_tool_finalize();
}

/* The value of key in a query's answer: flat (key at the top) or wrapped in a
 * PMIX_QUERY_RESULTS array. Borrowed, or NULL. */
static const pmix_value_t *query_result(const pmix_info_t *res, size_t nres, const char *key)
{
    for (size_t i = 0; i < nres; i++) {
        if (PMIX_CHECK_KEY(&res[i], key)) {
            return &res[i].value;
        }
        if (PMIX_CHECK_KEY(&res[i], PMIX_QUERY_RESULTS) && res[i].value.type == PMIX_DATA_ARRAY &&
            res[i].value.data.darray != NULL && res[i].value.data.darray->type == PMIX_INFO) {
            const pmix_value_t *v =
                query_result(res[i].value.data.darray->array, res[i].value.data.darray->size, key);
            if (v != NULL) {
                return v;
            }
        }
    }
    return NULL;
}

/* Ask for one proc table; the rows (owned by *res) or NULL. */
static const pmix_proc_info_t *proc_table(const char *key, pmix_info_t **res, size_t *nres,
                                          size_t *nrows)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char *keys[] = {(char *)key, NULL};
    q.keys = keys;
    *res = NULL;
    *nres = 0;
    *nrows = 0;
    if (PMIx_Query_info(&q, 1, res, nres) != PMIX_SUCCESS) {
        return NULL;
    }
    const pmix_value_t *v = query_result(*res, *nres, key);
    if (v == NULL || v->type != PMIX_DATA_ARRAY || v->data.darray == NULL ||
        v->data.darray->type != PMIX_PROC_INFO) {
        return NULL;
    }
    *nrows = v->data.darray->size;
    return v->data.darray->array;
}

static void print_rows(const char *label, const pmix_proc_info_t *pi, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char path[64], cmd[512] = "";
        snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pi[i].pid);
        FILE *f = fopen(path, "r");
        size_t len = f ? fread(cmd, 1, sizeof(cmd) - 1, f) : 0;
        for (size_t k = 0; k < len; k++) {
            cmd[k] = cmd[k] ? cmd[k] : ' ';
        }
        cmd[len] = '\0';
        if (f != NULL) {
            fclose(f);
        }
        printf("%s rank %u host %s pid %d state %d %s exit %d cmd %s\n", label, pi[i].proc.rank,
               pi[i].hostname ? pi[i].hostname : "?", (int)pi[i].pid, (int)pi[i].state,
               PMIx_Proc_state_string(pi[i].state), pi[i].exit_code, cmd);
    }
    fflush(stdout);
}

static bool three_connected(const pmix_proc_info_t *pi, size_t n)
{
    size_t up = 0;
    for (size_t i = 0; i < n; i++) {
        up += pi[i].state == PMIX_PROC_STATE_CONNECTED;
    }
    return up == 3;
}

static bool one_ended(const pmix_proc_info_t *pi, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (pi[i].state >= PMIX_PROC_STATE_UNTERMINATED) {
            return true;
        }
    }
    return false;
}

/* Poll the proc table every 5 ms (up to 15 s) until done() holds; print those rows. */
static void poll_table(const char *label, bool (*done)(const pmix_proc_info_t *, size_t))
{
    for (int tries = 0; tries < 3000; tries++) {
        pmix_info_t *res;
        size_t nres, n;
        const pmix_proc_info_t *pi = proc_table(PMIX_QUERY_PROC_TABLE, &res, &nres, &n);
        bool ok = pi != NULL && done(pi, n);
        if (ok) {
            print_rows(label, pi, n);
        }
        PMIx_Info_free(res, nres);
        if (ok) {
            return;
        }
        usleep(5000);
    }
}

static void toolptab(const char *file)
{
    pmix_status_t rc = PMIx_tool_init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_tool_init", rc);
    }
    poll_table("ptab1", three_connected);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    FILE *f = fopen(file, "w"); /* rank 2 exits 3 */
    if (f != NULL) {
        fclose(f);
    }
    /* one has ended, the others are being terminated (SIGKILL 2 s after SIGTERM) */
    poll_table("ptab2", one_ended);
    pmix_info_t *res;
    size_t nres, n;
    const pmix_proc_info_t *pi = proc_table(PMIX_QUERY_LOCAL_PROC_TABLE, &res, &nres, &n);
    print_rows("lptab", pi, pi ? n : 0);
    PMIx_Info_free(res, nres);
    /* everything above was read before the DVM's SIGKILL of the others if this is under
     * 2 s: their SIGTERM, and the 2 s, began after P was created */
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("ptab read after %ld ms\n",
           (long)(t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
    fflush(stdout);
    PMIx_tool_finalize();
}

static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ev_cond = PTHREAD_COND_INITIALIZER;
static int ev_ended;
static char last_msg[2048]; /* the last event's PMIX_EVENT_TEXT_MESSAGE, one line */
static bool have_msg;

static int ev_exit = -1; /* the JOB_END event's PMIX_EXIT_CODE */

static void on_job_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                         pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                         pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&ev_lock);
    printf("event %s\n", PMIx_Error_string(status));
    for (size_t i = 0; status == PMIX_EVENT_JOB_END && i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE)) {
            PMIx_Value_get_number(&info[i].value, &ev_exit, PMIX_INT);
        }
        if (PMIX_CHECK_KEY(&info[i], PMIX_JOB_TERM_STATUS) ||
            PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE) || PMIX_CHECK_KEY(&info[i], PMIX_PROCID) ||
            PMIX_CHECK_KEY(&info[i], PMIX_EVENT_TIMESTAMP)) {
            printf("  has %s\n", info[i].key);
        }
    }
    fflush(stdout);
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_TEXT_MESSAGE) &&
            info[i].value.type == PMIX_STRING) {
            snprintf(last_msg, sizeof(last_msg), "%s", info[i].value.data.string);
            for (char *c = last_msg; *c; c++) {
                *c = *c == '\n' ? ' ' : *c;
            }
            have_msg = true;
        }
    }
    if (status == PMIX_EVENT_JOB_END) {
        ev_ended = 1;
        pthread_cond_signal(&ev_cond);
    }
    pthread_mutex_unlock(&ev_lock);
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

static void toolspawn(const char *self, int n, bool completion_only)
{
    pmix_status_t rc = PMIx_tool_init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_tool_init", rc);
    }
    pmix_status_t codes[] = {PMIX_EVENT_JOB_START, PMIX_LAUNCH_COMPLETE, PMIX_EVENT_JOB_END};
    PMIx_Register_event_handler(codes, 3, NULL, 0, on_job_event, NULL, NULL);
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(self);
    char *argv[] = {(char *)self, "exit", "0", NULL};
    app.argv = PMIx_Argv_copy(argv);
    app.maxprocs = n;
    bool yes = true;
    pmix_info_t jinfo;
    PMIX_INFO_LOAD(&jinfo, completion_only ? PMIX_NOTIFY_COMPLETION : PMIX_NOTIFY_JOB_EVENTS, &yes,
                   PMIX_BOOL);
    pmix_nspace_t ns;
    rc = PMIx_Spawn(&jinfo, 1, &app, 1, ns);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_Spawn", rc);
    }
    pthread_mutex_lock(&ev_lock);
    printf("spawned %s\n", ns);
    fflush(stdout);
    while (!ev_ended) {
        pthread_cond_wait(&ev_cond, &ev_lock);
    }
    pthread_mutex_unlock(&ev_lock);
    PMIX_APP_DESTRUCT(&app);
    PMIX_INFO_DESTRUCT(&jinfo);
    PMIx_tool_finalize();
}

/* app: one process of /bin/true. */
static void true_app(pmix_app_t *app)
{
    PMIX_APP_CONSTRUCT(app);
    app->cmd = strdup("/bin/true");
    char *argv[] = {"/bin/true", NULL};
    app->argv = PMIx_Argv_copy(argv);
    app->maxprocs = 1;
}

/* Spawn /bin/true with job info jinfo and app info ainfo; print label, the status and,
 * for a refusal, the message of its JOB_END (waited for up to 10 s). */
static void reqd_spawn(const char *label, pmix_info_t *jinfo, size_t nj, pmix_info_t *ainfo,
                       size_t na)
{
    pmix_app_t app;
    true_app(&app);
    app.info = ainfo;
    app.ninfo = na;
    pthread_mutex_lock(&ev_lock);
    have_msg = false;
    pthread_mutex_unlock(&ev_lock);
    pmix_nspace_t ns;
    pmix_status_t rc = PMIx_Spawn(jinfo, nj, &app, 1, ns);
    printf("%s: %s\n", label, PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 10;
        pthread_mutex_lock(&ev_lock);
        while (!have_msg && pthread_cond_timedwait(&ev_cond, &ev_lock, &until) == 0) {
        }
        printf("msg: %s\n", have_msg ? last_msg : "(none)");
        pthread_mutex_unlock(&ev_lock);
    }
    fflush(stdout);
    app.info = NULL;
    app.ninfo = 0;
    PMIX_APP_DESTRUCT(&app);
}

/* Call init (PMIx_Init or PMIx_tool_init) with a required PMIX_PROGRAMMING_MODEL; print
 * "<label> required model: <status>". */
static void init_required(const char *label,
                          pmix_status_t (*initf)(pmix_proc_t *, pmix_info_t[], size_t))
{
    pmix_info_t in;
    PMIX_INFO_LOAD(&in, PMIX_PROGRAMMING_MODEL, "dvm_app", PMIX_STRING);
    PMIx_Info_required(&in);
    printf("%s required model: %s\n", label, PMIx_Error_string(initf(&me, &in, 1)));
    fflush(stdout);
    PMIX_INFO_DESTRUCT(&in);
}

static void initreqd(void)
{
    init_required("init", PMIx_Init);
    init();
    fini();
}

static void toolreqd(void)
{
    init_required("tool_init", PMIx_tool_init);
    pmix_status_t rc = PMIx_tool_init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_tool_init", rc);
    }
    pmix_status_t code = PMIX_EVENT_JOB_END;
    PMIx_Register_event_handler(&code, 1, NULL, 0, on_job_event, NULL, NULL);
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char *keys[] = {PMIX_QUERY_SPAWN_SUPPORT, NULL};
    q.keys = keys;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    rc = PMIx_Query_info(&q, 1, &res, &nres);
    const pmix_value_t *v = rc == PMIX_SUCCESS ? query_result(res, nres, keys[0]) : NULL;
    printf("support=%s\n", v && v->type == PMIX_STRING ? v->data.string : "?");
    PMIx_Info_free(res, nres);

    uint32_t three = 3;
    bool yes = true;
    pmix_info_t x;
    PMIX_INFO_LOAD(&x, PMIX_MAX_RESTARTS, &three, PMIX_UINT32);
    reqd_spawn("optional max-restarts", &x, 1, NULL, 0);
    PMIx_Info_required(&x);
    reqd_spawn("required max-restarts", &x, 1, NULL, 0);
    reqd_spawn("required app max-restarts", NULL, 0, &x, 1);
    PMIX_INFO_DESTRUCT(&x);
    PMIX_INFO_LOAD(&x, PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    PMIx_Info_required(&x);
    reqd_spawn("required notify-completion", &x, 1, NULL, 0);
    PMIX_INFO_DESTRUCT(&x);
    pmix_proc_t target;
    PMIx_Load_procid(&target, me.nspace, 0);
    const char *dbg[] = {PMIX_DEBUGGER_DAEMONS, PMIX_DEBUG_TARGET, PMIX_FORKEXEC_AGENT,
                         PMIX_EXEC_AGENT};
    for (size_t i = 0; i < sizeof(dbg) / sizeof(dbg[0]); i++) {
        if (strcmp(dbg[i], PMIX_DEBUG_TARGET) == 0) {
            PMIX_INFO_LOAD(&x, dbg[i], &target, PMIX_PROC);
        } else if (strcmp(dbg[i], PMIX_FORKEXEC_AGENT) == 0 ||
                   strcmp(dbg[i], PMIX_EXEC_AGENT) == 0) {
            PMIX_INFO_LOAD(&x, dbg[i], "/bin/env", PMIX_STRING);
        } else {
            PMIX_INFO_LOAD(&x, dbg[i], &yes, PMIX_BOOL);
        }
        char label[128];
        snprintf(label, sizeof(label), "debugger %s", dbg[i]);
        reqd_spawn(label, &x, 1, NULL, 0);
        PMIX_INFO_DESTRUCT(&x);
    }
    PMIx_tool_finalize();
}

/* debugq: the capability query of a debugger (as in OpenPMIx's examples/debugger.c). */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
    pmix_info_t *info; /* owned copy */
    size_t ninfo;
} debugq_t;

static void debugq_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                      pmix_release_cbfunc_t relfn, void *relcbdata)
{
    debugq_t *d = cbdata;
    pthread_mutex_lock(&d->lock);
    d->status = status;
    if (ninfo > 0) {
        d->info = PMIx_Info_create(ninfo);
        d->ninfo = ninfo;
        for (size_t i = 0; i < ninfo; i++) {
            PMIx_Info_xfer(&d->info[i], &info[i]);
        }
    }
    d->done = true;
    pthread_cond_signal(&d->cond);
    pthread_mutex_unlock(&d->lock);
    if (relfn != NULL) {
        relfn(relcbdata);
    }
}

static int debugq(void)
{
    pmix_status_t rc = PMIx_tool_init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_tool_init", rc);
    }
    pmix_query_t *q = PMIx_Query_create(1);
    PMIx_Argv_append_nosize(&q[0].keys, PMIX_QUERY_SPAWN_SUPPORT);
    PMIx_Argv_append_nosize(&q[0].keys, PMIX_QUERY_DEBUG_SUPPORT);
    debugq_t d = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    rc = PMIx_Query_info_nb(q, 1, debugq_cb, &d);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_Query_info_nb", rc);
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 20;
    pthread_mutex_lock(&d.lock);
    while (!d.done && pthread_cond_timedwait(&d.cond, &d.lock, &until) == 0) {
    }
    bool done = d.done;
    pthread_mutex_unlock(&d.lock);
    if (!done) {
        fprintf(stderr, "debugq: no answer to the capability query\n");
        return 2;
    }
    int code = 0;
    if (d.status != PMIX_SUCCESS || d.ninfo != 2) {
        fprintf(stderr, "debugq: the query returned %s and %zu results, want 2\n",
                PMIx_Error_string(d.status), d.ninfo);
        code = 1;
    }
    bool spawn = false, debug = false;
    for (size_t i = 0; i < d.ninfo; i++) {
        if (d.info[i].value.type != PMIX_STRING) {
            continue;
        }
        spawn = spawn || PMIX_CHECK_KEY(&d.info[i], PMIX_QUERY_SPAWN_SUPPORT);
        debug = debug || PMIX_CHECK_KEY(&d.info[i], PMIX_QUERY_DEBUG_SUPPORT);
        printf("debugq: %s=%s\n", d.info[i].key, d.info[i].value.data.string);
    }
    if (!spawn || !debug) {
        fprintf(stderr, "debugq: no string result under %s\n",
                spawn ? PMIX_QUERY_DEBUG_SUPPORT : PMIX_QUERY_SPAWN_SUPPORT);
        code = 1;
    }
    fflush(stdout);
    PMIx_Info_free(d.info, d.ninfo);
    PMIx_Query_free(q, 1);
    PMIx_tool_finalize();
    return code;
}

static void toolact(const char *uri, const char *nspace)
{
    pmix_info_t where;
    PMIX_INFO_LOAD(&where, PMIX_SERVER_URI, uri, PMIX_STRING);
    pmix_status_t rc = PMIx_tool_init(&me, &where, 1);
    PMIX_INFO_DESTRUCT(&where);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_tool_init", rc);
    }
    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, nspace, 0);
    char line[] = "pushed by another user\n";
    pmix_byte_object_t bo = {.bytes = line, .size = sizeof(line) - 1};
    rc = PMIx_IOF_push(&target, 1, &bo, NULL, 0, NULL, NULL);
    printf("push %s\n", PMIx_Error_string(rc));
    pmix_info_t sig;
    int signo = SIGHUP;
    PMIX_INFO_LOAD(&sig, PMIX_JOB_CTRL_SIGNAL, &signo, PMIX_INT);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    rc = PMIx_Job_control(&target, 1, &sig, 1, &res, &nres);
    printf("signal %s\n", PMIx_Error_string(rc));
    if (res != NULL) {
        PMIx_Info_free(res, nres);
    }
    PMIX_INFO_DESTRUCT(&sig);
    fflush(stdout);
    PMIx_tool_finalize();
}

/* As a tool: spawn "SELF model MODEL" with PMIX_PROGRAMMING_MODEL = MODEL in the job info
 * and print the job's exit code (0: its process found the model in its job data). */
static void toolmodel(const char *self, const char *model)
{
    pmix_status_t rc = PMIx_tool_init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_tool_init", rc);
    }
    pmix_status_t code = PMIX_EVENT_JOB_END;
    PMIx_Register_event_handler(&code, 1, NULL, 0, on_job_event, NULL, NULL);
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(self);
    char *argv[] = {(char *)self, "model", (char *)model, NULL};
    app.argv = PMIx_Argv_copy(argv);
    app.maxprocs = 1;
    bool yes = true;
    pmix_info_t jinfo[2];
    PMIX_INFO_LOAD(&jinfo[0], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&jinfo[1], PMIX_PROGRAMMING_MODEL, model, PMIX_STRING);
    pmix_nspace_t ns;
    rc = PMIx_Spawn(jinfo, 2, &app, 1, ns);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_Spawn", rc);
    }
    pthread_mutex_lock(&ev_lock);
    while (!ev_ended) {
        pthread_cond_wait(&ev_cond, &ev_lock);
    }
    printf("model job exit code %d\n", ev_exit);
    fflush(stdout);
    pthread_mutex_unlock(&ev_lock);
    PMIX_APP_DESTRUCT(&app);
    PMIX_INFO_DESTRUCT(&jinfo[0]);
    PMIX_INFO_DESTRUCT(&jinfo[1]);
    PMIx_tool_finalize();
}

/* A process of toolmodel's job: exit 0 when its job's PMIX_PROGRAMMING_MODEL is want. */
static int model(const char *want)
{
    init();
    pmix_proc_t wild;
    PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&wild, PMIX_PROGRAMMING_MODEL, NULL, 0, &v);
    int code = rc == PMIX_SUCCESS && v != NULL && v->type == PMIX_STRING &&
                       v->data.string != NULL && strcmp(v->data.string, want) == 0
                   ? 0
                   : 3;
    if (v != NULL) {
        PMIx_Value_free(v, 1);
    }
    fini();
    return code;
}

static void toolbad(void)
{
    pmix_status_t rc = PMIx_tool_init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_tool_init", rc);
    }
    pmix_app_t app;
    true_app(&app);
    pmix_info_t bad;
    PMIX_INFO_LOAD(&bad, PMIX_MAPBY, "bogus-policy", PMIX_STRING);
    pmix_nspace_t ns;
    rc = PMIx_Spawn(&bad, 1, &app, 1, ns);
    printf("bogus mapby: %s\n", PMIx_Error_string(rc));
    free(app.cmd);
    app.cmd = strdup("/no/such/program");
    rc = PMIx_Spawn(NULL, 0, &app, 1, ns);
    printf("missing program: %s\n", PMIx_Error_string(rc));
    fflush(stdout);
    PMIX_INFO_DESTRUCT(&bad);
    PMIX_APP_DESTRUCT(&app);
    PMIx_tool_finalize();
}

static int slowread(const char *prefix, long usec, const char *slow_rank)
{
    const char *rank = getenv("PMIX_RANK");
    rank = rank ? rank : "0";
    bool slow = slow_rank == NULL || strcmp(slow_rank, rank) == 0;
    char path[4096];
    snprintf(path, sizeof(path), "%s.%s", prefix, rank);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        return 2;
    }
    static char buf[65536];
    long long total = 0;
    for (;;) {
        ssize_t n = read(0, buf, sizeof(buf));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        if (fwrite(buf, 1, (size_t)n, f) != (size_t)n) {
            return 2;
        }
        total += n;
        if (slow && usec > 0) {
            usleep((useconds_t)usec);
        }
    }
    fclose(f);
    printf("rank %s read %lld bytes\n", rank, total);
    return 0;
}

static int take(long n, int code)
{
    char buf[4096];
    while (n > 0) {
        ssize_t k = read(0, buf, n < (long)sizeof(buf) ? (size_t)n : sizeof(buf));
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k <= 0) {
            break;
        }
        fwrite(buf, 1, (size_t)k, stdout);
        n -= k;
    }
    printf("\n");
    fflush(stdout);
    return code;
}

/* Our connection to the PMIx server: the socket whose peer is the URI's usock path. */
static int server_fd(void)
{
    const char *uri = getenv("PMIX_SERVER_URI");
    const char *path = uri != NULL ? strstr(uri, "usock:") : NULL;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int found = -1;
    if (path == NULL || d == NULL) {
        fprintf(stderr, "dvm_app: no usock server URI or no /proc/self/fd\n");
        exit(99);
    }
    path += 6;
    while ((e = readdir(d)) != NULL && found < 0) {
        struct sockaddr_un sa;
        socklen_t len = sizeof(sa);
        int fd = atoi(e->d_name);
        memset(&sa, 0, sizeof(sa));
        if (e->d_name[0] != '.' && fd != dirfd(d) &&
            getpeername(fd, (struct sockaddr *)&sa, &len) == 0 && sa.sun_family == AF_UNIX &&
            strcmp(sa.sun_path, path) == 0) {
            found = fd;
        }
    }
    closedir(d);
    if (found < 0) {
        fprintf(stderr, "dvm_app: no connection to %s\n", path);
        exit(99);
    }
    return found;
}

/* A FENCE request (tag 4) announcing 4,000,000 procs and carrying none. A duplicate of
 * the connection's fd keeps our end open whatever the library does with its own, so an
 * end of file on it can only mean that the server closed the connection. */
static int badcount(void)
{
    init();
    int mine = dup(server_fd());
    size_t n = 4000000;
    pmix_data_buffer_t buf;
    PMIx_Data_buffer_construct(&buf);
    pmix_status_t rc = PMIx_Data_pack(NULL, &buf, &n, 1, PMIX_SIZE);
    if (rc != PMIX_SUCCESS || mine < 0) {
        die("building the message", rc);
    }
    pmix_byte_object_t bo = {NULL, 0};
    PMIx_Data_unload(&buf, &bo);
    uint32_t hdr[4] = {htonl((uint32_t)bo.size), htonl(4), htonl(0x7fffff00u), 0};
    if (send(mine, hdr, sizeof(hdr), MSG_NOSIGNAL) != (ssize_t)sizeof(hdr) ||
        send(mine, bo.bytes, bo.size, MSG_NOSIGNAL) != (ssize_t)bo.size) {
        fprintf(stderr, "dvm_app: cannot write to the server: %s\n", strerror(errno));
        return 99;
    }
    PMIx_Byte_object_destruct(&bo);
    time_t end = time(NULL) + 10;
    for (;;) {
        struct pollfd p = {.fd = mine, .events = POLLIN};
        int left = (int)(end - time(NULL));
        if (left <= 0 || poll(&p, 1, left * 1000) == 0) {
            printf("kept the connection\n");
            fflush(stdout);
            return 4;
        }
        char junk[4096];
        ssize_t r = recv(mine, junk, sizeof(junk), MSG_DONTWAIT);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
            break;
        }
    }
    printf("dropped by the server\n");
    fflush(stdout);
    close(mine);
    return 0;
}

/* The keys the Server chapter (PMIx_server_register_nspace) requires of a host, by
 * realm, for a job of one application on one node (app-realm keys are required per app
 * only for several apps, PMIX_WDIR and PMIX_APP_ARGV always). */
static void regkeys(void)
{
    static const char *session[] = {PMIX_UNIV_SIZE, PMIX_SESSION_ID};
    static const char *job[] = {PMIX_SERVER_NSPACE, PMIX_SERVER_RANK, PMIX_NSPACE,
                                PMIX_JOBID,         PMIX_JOB_SIZE,    PMIX_MAX_PROCS,
                                PMIX_NODE_MAP,      PMIX_PROC_MAP,    PMIX_NODE_LIST};
    static const char *app[] = {PMIX_WDIR, PMIX_APP_ARGV};
    static const char *node[] = {
        PMIX_NODEID,      PMIX_HOSTNAME,           PMIX_LOCAL_SIZE, PMIX_NODE_SIZE,
        PMIX_LOCALLDR,    PMIX_LOCAL_PEERS,        PMIX_TMPDIR,     PMIX_NSDIR,
        PMIX_LOCAL_PROCS, PMIX_NODE_OVERSUBSCRIBED};
    static const char *proc[] = {PMIX_RANK,        PMIX_GLOBAL_RANK,     PMIX_LOCAL_RANK,
                                 PMIX_NODE_RANK,   PMIX_NODEID,          PMIX_REINCARNATION,
                                 PMIX_SPAWNED,     PMIX_LOCALITY_STRING, PMIX_PROCDIR,
                                 PMIX_PACKAGE_RANK};
    static const struct {
        const char *realm;
        const char **keys;
        size_t n;
    } realms[] = {
        {PMIX_SESSION_INFO, session, sizeof(session) / sizeof(session[0])},
        {NULL, job, sizeof(job) / sizeof(job[0])},
        {PMIX_APP_INFO, app, sizeof(app) / sizeof(app[0])},
        {PMIX_NODE_INFO, node, sizeof(node) / sizeof(node[0])},
        {"", proc, sizeof(proc) / sizeof(proc[0])},
    };
    init();
    pmix_proc_t wild;
    PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
    size_t checked = 0;
    for (size_t r = 0; r < sizeof(realms) / sizeof(realms[0]); r++) {
        bool is_proc = realms[r].realm != NULL && realms[r].realm[0] == '\0';
        pmix_info_t q;
        bool yes = true;
        size_t nq = 0;
        if (realms[r].realm != NULL && !is_proc) {
            PMIx_Info_load(&q, realms[r].realm, &yes, PMIX_BOOL);
            nq = 1;
        }
        for (size_t k = 0; k < realms[r].n; k++) {
            pmix_value_t *v = NULL;
            /* in its realm, or where the library's lookup order finds it */
            pmix_status_t rc =
                PMIx_Get(is_proc ? &me : &wild, realms[r].keys[k], nq ? &q : NULL, nq, &v);
            if (rc != PMIX_SUCCESS) {
                rc = PMIx_Get(is_proc ? &me : &wild, realms[r].keys[k], NULL, 0, &v);
            }
            if (rc != PMIX_SUCCESS) {
                printf("rank %u missing %s\n", me.rank, realms[r].keys[k]);
            }
            if (v != NULL) {
                PMIx_Value_free(v, 1);
            }
            checked++;
        }
        if (nq) {
            PMIx_Info_destruct(&q);
        }
    }
    /* a file in its own directory: gone with the job */
    pmix_value_t *dir = NULL;
    if (PMIx_Get(&me, PMIX_PROCDIR, NULL, 0, &dir) == PMIX_SUCCESS && dir != NULL &&
        dir->type == PMIX_STRING) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/scratch", dir->data.string);
        FILE *f = fopen(path, "w");
        if (f != NULL && fputs("x", f) >= 0 && fclose(f) == 0) {
            printf("rank %u wrote into its PMIX_PROCDIR\n", me.rank);
        }
    }
    if (dir != NULL) {
        PMIx_Value_free(dir, 1);
    }
    printf("rank %u checked %zu keys\n", me.rank, checked);
    fflush(stdout);
    fini();
}

/* ---- xnode: a job across nodes ---- */

static pmix_value_t *xget(pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIx_Load_procid(&p, me.nspace, rank);
    return PMIx_Get(&p, key, NULL, 0, &v) == PMIX_SUCCESS ? v : NULL;
}

static uint32_t xget_u32(pmix_rank_t rank, const char *key)
{
    uint32_t n = UINT32_MAX;
    pmix_value_t *v = xget(rank, key);
    if (v != NULL) {
        PMIx_Value_get_number(v, &n, PMIX_UINT32);
        PMIx_Value_free(v, 1);
    }
    return n;
}

static char *xget_str(pmix_rank_t rank, const char *key)
{
    pmix_value_t *v = xget(rank, key);
    char *s = v != NULL && v->type == PMIX_STRING ? strdup(v->data.string) : NULL;
    if (v != NULL) {
        PMIx_Value_free(v, 1);
    }
    return s;
}

/* Put key.R (a string naming R and its host), commit, fence (collecting or not), get
 * every rank's key.R: the number of ranks whose value came back right. */
static uint32_t xexchange(const char *key, uint32_t size, const char *host, bool collect)
{
    char k[64], val[512];
    snprintf(k, sizeof(k), "%s.%u", key, me.rank);
    snprintf(val, sizeof(val), "%s-%u-%s", key, me.rank, host);
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, val, PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, k, &v);
    PMIX_VALUE_DESTRUCT(&v);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Commit();
    }
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Fence(NULL, 0, &info, 1);
    }
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        printf("xnode rank %u FAIL %s: %s\n", me.rank, collect ? "fence" : "barrier",
               PMIx_Error_string(rc));
        return 0;
    }
    uint32_t good = 0;
    for (uint32_t r = 0; r < size; r++) {
        char *hr = xget_str(r, PMIX_HOSTNAME);
        snprintf(k, sizeof(k), "%s.%u", key, r);
        char *got = xget_str(r, k);
        snprintf(val, sizeof(val), "%s-%u-%s", key, r, hr ? hr : "?");
        if (got != NULL && strcmp(got, val) == 0) {
            good++;
        } else {
            printf("xnode rank %u FAIL get %s of rank %u: %s\n", me.rank, k, r,
                   got ? got : "not found");
        }
        free(got);
        free(hr);
    }
    return good;
}

static int xnode(int secs)
{
    init();
    pmix_rank_t wild = PMIX_RANK_WILDCARD;
    char here[256];
    const char *fake = getenv("PX_PRTED_TEST_NODENAME");
    if (fake != NULL && *fake != '\0') {
        snprintf(here, sizeof(here), "%s", fake);
    } else if (gethostname(here, sizeof(here)) != 0) {
        snprintf(here, sizeof(here), "?");
    }
    uint32_t size = xget_u32(wild, PMIX_JOB_SIZE);
    uint32_t nnodes = xget_u32(wild, PMIX_NUM_NODES);
    uint32_t lsize = xget_u32(wild, PMIX_LOCAL_SIZE);
    uint32_t lrank = xget_u32(me.rank, PMIX_LOCAL_RANK);
    uint32_t nrank = xget_u32(me.rank, PMIX_NODE_RANK);
    uint32_t nodeid = xget_u32(me.rank, PMIX_NODEID);
    char *host = xget_str(me.rank, PMIX_HOSTNAME);
    char *peers = xget_str(wild, PMIX_LOCAL_PEERS);
    int bad = 0;
    if (size == UINT32_MAX || host == NULL || peers == NULL) {
        printf("xnode rank %u FAIL missing job size, hostname or local peers\n", me.rank);
        bad++;
        size = 0;
    } else if (strcmp(host, here) != 0) {
        printf("xnode rank %u FAIL runs on %s but PMIX_HOSTNAME is %s\n", me.rank, here, host);
        bad++;
    }
    /* every rank: on my host iff in my peers; its node id the same as mine iff so */
    char **hosts = calloc(size ? size : 1, sizeof(*hosts));
    uint32_t npeers = 0, mine_at = UINT32_MAX, distinct = 0;
    char list[8192] = "";
    size_t len = 0;
    for (uint32_t r = 0; r < size && hosts != NULL; r++) {
        hosts[r] = xget_str(r, PMIX_HOSTNAME);
        uint32_t id = xget_u32(r, PMIX_NODEID);
        bool same = hosts[r] != NULL && strcmp(hosts[r], host) == 0;
        if (same) {
            mine_at = r == me.rank ? npeers : mine_at;
            npeers++;
            len += (size_t)snprintf(list + len, sizeof(list) - len, len ? ",%u" : "%u", r);
        }
        if ((id == nodeid) != same) {
            printf("xnode rank %u FAIL rank %u: host %s node id %u, mine %s %u\n", me.rank, r,
                   hosts[r] ? hosts[r] : "?", id, host, nodeid);
            bad++;
        }
        bool seen = false;
        for (uint32_t k = 0; k < r && hosts[r] != NULL; k++) {
            seen = seen || (hosts[k] != NULL && strcmp(hosts[k], hosts[r]) == 0);
        }
        distinct += !seen;
    }
    if (peers != NULL &&
        (strcmp(peers, list) != 0 || lsize != npeers || lrank != mine_at || nnodes != distinct)) {
        printf("xnode rank %u FAIL peers %s (ranks on %s: %s), local size %u of %u, local "
               "rank %u at %u, nodes %u of %u\n",
               me.rank, peers, host, list, lsize, npeers, lrank, mine_at, nnodes, distinct);
        bad++;
    }
    printf("xnode rank %u host %s nodeid %u lrank %u nrank %u lsize %u peers %s nnodes %u\n",
           me.rank, host ? host : "?", nodeid, lrank, nrank, lsize, peers ? peers : "?", nnodes);
    fflush(stdout);
    uint32_t good = xexchange("xk", size, host ? host : "?", true);
    good += xexchange("yk", size, host ? host : "?", false);
    printf("xnode rank %u exchanged with %u ranks\n", me.rank, good / 2);
    fflush(stdout);
    for (uint32_t r = 0; r < size && hosts != NULL; r++) {
        free(hosts[r]);
    }
    free(hosts);
    free(host);
    free(peers);
    if (secs > 0) {
        sleep((unsigned)secs);
    }
    fini();
    return bad || good != 2 * size ? 1 : 0;
}

/* ---- xevent: events and job control across nodes ---- */

#define XEVENT_CODE (PMIX_EXTERNAL_ERR_BASE - 77)
static volatile int xevent_from = -1;
static volatile sig_atomic_t xevent_usr1;

static void xevent_cb(size_t id, pmix_status_t status, const pmix_proc_t *source,
                      pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                      pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    xevent_from = source != NULL ? (int)source->rank : -2;
    if (cbfunc != NULL) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void on_usr1(int sig)
{
    (void)sig;
    xevent_usr1 = 1;
}

static int xevent(const char *who)
{
    signal(SIGUSR1, on_usr1);
    init();
    pmix_status_t code = XEVENT_CODE;
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, NULL, 0, xevent_cb, NULL, NULL);
    if (rc < 0) {
        die("PMIx_Register_event_handler", rc);
    }
    uint32_t size = xget_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) {
        die("PMIx_Fence", rc);
    }
    pmix_rank_t notifier = who != NULL ? (pmix_rank_t)atoi(who) : size - 1;
    if (me.rank == notifier) {
        rc = PMIx_Notify_event(XEVENT_CODE, &me, PMIX_RANGE_NAMESPACE, NULL, 0, NULL, NULL);
        if (rc != PMIX_SUCCESS) {
            printf("xevent rank %u notify %s\n", me.rank, PMIx_Error_string(rc));
        }
        pmix_proc_t zero;
        PMIx_Load_procid(&zero, me.nspace, 0);
        int sig = SIGUSR1;
        pmix_info_t dir;
        PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT);
        rc = PMIx_Job_control(&zero, 1, &dir, 1, NULL, NULL);
        PMIX_INFO_DESTRUCT(&dir);
        printf("xevent rank %u jobctl %s\n", me.rank, PMIx_Error_string(rc));
        fflush(stdout);
    }
    for (int i = 0; i < 2000 && (xevent_from < 0 || (me.rank == 0 && !xevent_usr1)); i++) {
        usleep(10000);
    }
    if (xevent_from >= 0) {
        printf("xevent rank %u got the event from %d\n", me.rank, xevent_from);
    }
    if (me.rank == 0 && xevent_usr1) {
        printf("xevent rank 0 got SIGUSR1\n");
    }
    fflush(stdout);
    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) {
        die("PMIx_Fence", rc);
    }
    fini();
    return 0;
}

static pmix_data_range_t range_of(const char *s)
{
    static const struct {
        const char *name;
        pmix_data_range_t r;
    } t[] = {{"proc", PMIX_RANGE_PROC_LOCAL}, {"ns", PMIX_RANGE_NAMESPACE},
             {"local", PMIX_RANGE_LOCAL},     {"session", PMIX_RANGE_SESSION},
             {"global", PMIX_RANGE_GLOBAL},   {"rm", PMIX_RANGE_RM}};
    for (size_t i = 0; s != NULL && i < sizeof(t) / sizeof(t[0]); i++) {
        if (strcmp(s, t[i].name) == 0) {
            return t[i].r;
        }
    }
    return PMIX_RANGE_UNDEF;
}

static pmix_persistence_t persist_of(const char *s)
{
    static const char *names[] = {"indef", "first", "proc", "app", "session"};
    for (size_t i = 0; s != NULL && i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(s, names[i]) == 0) {
            return (pmix_persistence_t)i; /* PMIX_PERSIST_INDEF .. PMIX_PERSIST_SESSION */
        }
    }
    return PMIX_PERSIST_INVALID;
}

/* One name service operation (see the usage above); op is modified. */
static void ns_op(char *op)
{
    char *label = strdup(op);
    char *kind = strtok(op, ":");
    char *key = strtok(NULL, ":");
    char *a1 = strtok(NULL, ":");
    char *a2 = strtok(NULL, ":");
    pmix_info_t info[4];
    size_t n = 0;
    pmix_status_t rc = PMIX_ERR_BAD_PARAM;
    char found[512] = "";
    if (kind == NULL || key == NULL) {
        fprintf(stderr, "dvm_app: bad ns operation %s\n", label);
        exit(2);
    }
    printf("rank %u > %s\n", me.rank, label); /* the operation starts (tests wait on it) */
    fflush(stdout);
    if (strcmp(kind, "pub") == 0 || strcmp(kind, "perm") == 0) {
        char *eq = strchr(key, '=');
        if (eq == NULL) {
            fprintf(stderr, "dvm_app: %s: KEY=VALUE expected\n", label);
            exit(2);
        }
        *eq = '\0';
        PMIx_Info_load(&info[n++], key, eq + 1, PMIX_STRING);
        if (a1 != NULL) {
            pmix_data_range_t r = range_of(a1);
            PMIx_Info_load(&info[n++], PMIX_RANGE, &r, PMIX_DATA_RANGE);
        }
        if (a2 != NULL) {
            pmix_persistence_t p = persist_of(a2);
            PMIx_Info_load(&info[n++], PMIX_PERSISTENCE, &p, PMIX_PERSIST);
        }
        if (strcmp(kind, "perm") == 0) {
            pmix_data_array_t perms = PMIX_DATA_ARRAY_STATIC_INIT;
            PMIx_Info_load(&info[n++], PMIX_ACCESS_PERMISSIONS, &perms, PMIX_DATA_ARRAY);
        }
        rc = PMIx_Publish(info, n);
    } else if (strcmp(kind, "look") == 0) {
        int secs = a1 != NULL ? atoi(a1) : 0;
        if (secs > 0) {
            int all = 0;
            PMIx_Info_load(&info[n++], PMIX_WAIT, &all, PMIX_INT);
            PMIx_Info_load(&info[n++], PMIX_TIMEOUT, &secs, PMIX_INT);
        }
        if (a2 != NULL) {
            pmix_data_range_t r = range_of(a2);
            PMIx_Info_load(&info[n++], PMIX_RANGE, &r, PMIX_DATA_RANGE);
        }
        pmix_pdata_t pd;
        PMIx_Pdata_construct(&pd);
        PMIx_Load_key(pd.key, key);
        rc = PMIx_Lookup(&pd, 1, n ? info : NULL, n);
        if (rc == PMIX_SUCCESS) {
            char *v = PMIx_Value_string(&pd.value);
            char who[64];
            if (PMIx_Check_nspace(pd.proc.nspace, me.nspace)) {
                snprintf(who, sizeof(who), "me");
            } else {
                snprintf(who, sizeof(who), "other:%u", pd.proc.rank);
            }
            snprintf(found, sizeof(found), " %s from %s",
                     pd.value.type == PMIX_STRING ? pd.value.data.string : (v ? v : "?"), who);
            free(v);
        }
        PMIx_Pdata_destruct(&pd);
    } else if (strcmp(kind, "unpub") == 0) {
        char *keys[] = {key, NULL};
        rc = PMIx_Unpublish(keys, NULL, 0);
    } else {
        fprintf(stderr, "dvm_app: unknown ns operation %s\n", label);
        exit(2);
    }
    for (size_t i = 0; i < n; i++) {
        PMIx_Info_destruct(&info[i]);
    }
    printf("rank %u %s: %s%s\n", me.rank, label, PMIx_Error_string(rc), found);
    fflush(stdout);
    free(label);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "hello";
    const char *arg = argc > 2 ? argv[2] : "0";
    if (strcmp(what, "hello") == 0) {
        hello();
    } else if (strcmp(what, "abort") == 0) {
        init();
        PMIx_Abort(atoi(arg), argc > 3 ? argv[3] : "aborting", NULL, 0);
        sleep(30); /* the DVM kills us */
        return 98;
    } else if (strcmp(what, "nofinal") == 0) {
        init();
        return 0;
    } else if (strcmp(what, "exit") == 0) {
        if (strncmp(arg, "raw:", 4) == 0) {
            return atoi(arg + 4);
        }
        init();
        fini();
        return atoi(arg);
    } else if (strcmp(what, "crash") == 0) {
        init();
        signal(SIGSEGV, SIG_DFL); /* not a sanitizer's handler: a real crash */
        raise(SIGSEGV);
    } else if (strcmp(what, "sleep") == 0) {
        init();
        sleep((unsigned)atoi(arg));
        fini();
    } else if (strcmp(what, "write") == 0) {
        long n = atol(arg);
        char buf[65536];
        for (size_t i = 0; i < sizeof(buf); i++) {
            buf[i] = (char)('a' + i % 26);
        }
        while (n > 0) {
            size_t k = n < (long)sizeof(buf) ? (size_t)n : sizeof(buf);
            if (fwrite(buf, 1, k, stdout) != k) {
                return 2;
            }
            n -= (long)k;
        }
        fflush(stdout);
    } else if (strcmp(what, "both") == 0) {
        int n = atoi(arg);
        for (int i = 0; i < n; i++) {
            FILE *f = (i % 2) ? stderr : stdout;
            fprintf(f, "%s %d\n", (i % 2) ? "err" : "out", i);
            fflush(f);
        }
    } else if (strcmp(what, "cat") == 0) {
        char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0) {
            fwrite(buf, 1, n, stdout);
        }
        fflush(stdout);
    } else if (strcmp(what, "slowread") == 0) {
        return slowread(arg, argc > 3 ? atol(argv[3]) : 0, argc > 4 ? argv[4] : NULL);
    } else if (strcmp(what, "take") == 0) {
        return take(atol(arg), argc > 3 ? atoi(argv[3]) : 0);
    } else if (strcmp(what, "env") == 0) {
        const char *v = getenv(arg);
        printf("%s=%s\n", arg, v ? v : "(unset)");
    } else if (strcmp(what, "pwd") == 0) {
        char buf[4096];
        printf("%s\n", getcwd(buf, sizeof(buf)) ? buf : "?");
    } else if (strcmp(what, "binding") == 0) {
        FILE *f = fopen("/proc/self/status", "r");
        char line[512];
        while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
            if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
                fputs(line, stdout);
            }
        }
        if (f != NULL) {
            fclose(f);
        }
    } else if (strcmp(what, "psetq") == 0) {
        psetq();
    } else if (strcmp(what, "realm") == 0) {
        realm();
    } else if (strcmp(what, "trap") == 0) {
        trap();
    } else if (strcmp(what, "toolq") == 0) {
        toolq(arg);
    } else if (strcmp(what, "debugq") == 0) {
        return debugq();
    } else if (strcmp(what, "toolbad") == 0) {
        toolbad();
    } else if (strcmp(what, "toolact") == 0 && argc > 3) {
        toolact(argv[2], argv[3]);
    } else if (strcmp(what, "hold") == 0) {
        init();
        signal(SIGTERM, SIG_IGN);
        printf("holding\n");
        fflush(stdout);
        sleep(30);
        fini();
    } else if (strcmp(what, "waitfile") == 0) {
        init();
        for (int i = 0; i < 3000 && access(arg, F_OK) != 0; i++) {
            usleep(10000);
        }
        fini();
        return argc > 3 ? atoi(argv[3]) : 0;
    } else if (strcmp(what, "toolptab") == 0) {
        toolptab(arg);
    } else if (strcmp(what, "initreqd") == 0) {
        initreqd();
    } else if (strcmp(what, "toolreqd") == 0) {
        toolreqd();
    } else if (strcmp(what, "badcount") == 0) {
        return badcount();
    } else if (strcmp(what, "toolspawn") == 0) {
        toolspawn(argv[0], atoi(arg), argc > 3 && strcmp(argv[3], "completion") == 0);
    } else if (strcmp(what, "toolmodel") == 0) {
        toolmodel(argv[0], arg);
    } else if (strcmp(what, "model") == 0) {
        return model(arg);
    } else if (strcmp(what, "xevent") == 0) {
        return xevent(argc > 2 ? arg : NULL);
    } else if (strcmp(what, "xnode") == 0) {
        return xnode(argc > 2 ? atoi(arg) : 0);
    } else if (strcmp(what, "regkeys") == 0) {
        regkeys();
    } else if (strcmp(what, "ns") == 0) {
        init();
        for (int i = 2; i < argc; i++) {
            ns_op(argv[i]);
        }
        fini();
    } else {
        fprintf(stderr, "dvm_app: unknown behaviour %s\n", what);
        return 2;
    }
    return 0;
}
