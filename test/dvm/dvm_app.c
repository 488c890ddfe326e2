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
 *   trap              print "ready", then print each SIGINT/SIGTERM/SIGHUP it gets; exits
 *                     after SIGTERM
 *   toolq NAME        as a PMIx tool (default search): print the DVM's pset count, names
 *                     and NAME's members
 *   toolbad           as a PMIx tool: spawn requests the DVM must refuse (a bogus
 *                     --map-by, a missing executable, zero processes on no slots) and
 *                     print each status
 *   toolspawn N       as a PMIx tool: spawn N x "dvm_app exit 0" with PMIx_Spawn and print
 *                     the job's lifecycle events (JOB_START, LAUNCH_COMPLETE, JOB_END with
 *                     its keys) in the order they arrive
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
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
        const pmix_data_array_t *da = res[i].value.data.darray;
        const pmix_info_t *in = da ? da->array : NULL;
        for (size_t k = 0; in != NULL && k < da->size; k++) {
            char *s = PMIx_Value_string(&in[k].value);
            printf("rank %u %s=%s\n", me.rank, in[k].key, s ? s : "?");
            free(s);
        }
    }
    PMIx_Info_free(res, nres);
    fflush(stdout);
    fini();
}

static volatile sig_atomic_t got;

static void on_sig(int sig)
{
    got = sig;
}

static void trap(void)
{
    signal(SIGINT, on_sig);
    signal(SIGTERM, on_sig);
    signal(SIGHUP, on_sig);
    printf("ready\n");
    fflush(stdout);
    for (int i = 0; i < 3000; i++) {
        if (got != 0) {
            int sig = got;
            got = 0;
            printf("got signal %d\n", sig);
            fflush(stdout);
            if (sig == SIGTERM) {
                exit(0);
            }
        }
        usleep(10000);
    }
    exit(3);
}

static void print_results(const char *label, pmix_info_t *res, size_t nres)
{
    for (size_t i = 0; i < nres; i++) {
        const pmix_data_array_t *da = res[i].value.data.darray;
        const pmix_info_t *in = da ? da->array : NULL;
        for (size_t k = 0; in != NULL && k < da->size; k++) {
            char *v = PMIx_Value_string(&in[k].value);
            printf("%s %s=%s\n", label, in[k].key, v ? v : "?");
            free(v);
        }
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

static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ev_cond = PTHREAD_COND_INITIALIZER;
static int ev_ended;

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
    if (status == PMIX_EVENT_JOB_END) {
        ev_ended = 1;
        pthread_cond_signal(&ev_cond);
    }
    pthread_mutex_unlock(&ev_lock);
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

static void toolspawn(const char *self, int n)
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
    PMIX_INFO_LOAD(&jinfo, PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
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
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup("/bin/true");
    char *argv[] = {"/bin/true", NULL};
    app.argv = PMIx_Argv_copy(argv);
    app.maxprocs = 1;
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
    } else if (strcmp(what, "trap") == 0) {
        trap();
    } else if (strcmp(what, "toolq") == 0) {
        toolq(arg);
    } else if (strcmp(what, "toolbad") == 0) {
        toolbad();
    } else if (strcmp(what, "toolspawn") == 0) {
        toolspawn(argv[0], atoi(arg));
    } else if (strcmp(what, "toolmodel") == 0) {
        toolmodel(argv[0], arg);
    } else if (strcmp(what, "model") == 0) {
        return model(arg);
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
