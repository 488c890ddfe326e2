/* dvm_dbgd - the debugger tests' programs (issue 17 items 2, 3): a target application and
 * a debugger front end, public PMIx API only. One behaviour per first argument:
 *   target [K]        init; print "target R/N lsize LS lrank L host H pid P" (its job's size and
 *                     its node's share: debugger daemons must not count), wait (up to
 *                     60 s) for K (default 1) PMIX_DEBUGGER_RELEASE events, print "target
 *                     R released by NS:R" (the first releaser; or "target R not
 *                     released", exit 3), finalize
 *   whoami            init; print "whoami R/N lsize LS pid P ppid PP agent A" (A:
 *                     $PX_EXEC_AGENT_PID, set by examples/exec_agent, or "-"), finalize
 *   cospawn NP[/POLICY] PLACE APP... -- [DAEMON...]
 *                     as a PMIx tool (default search): one PMIx_Spawn of NP x APP (mapped
 *                     by POLICY, PMIX_MAPBY in the job info, when given) and of
 *                     the daemon app marked PMIX_DEBUGGER_DAEMONS, placed by PLACE; print
 *                     "spawn STATUS ns=NS" (NS must be the application's), the DVM's
 *                     namespaces, then every JOB_END ("jobend NS status=S exit=C" and
 *                     "msg: TEXT") until both jobs ended (one after a failed spawn;
 *                     "--ends K" first: until K jobs ended); no DAEMON: a plain spawn
 *                     of the application by the same front end; "--stop KIND" first (init,
 *                     exec): PMIX_DEBUG_STOP_IN_INIT / _ON_EXEC true in the job info, and
 *                     each PMIX_READY_FOR_DEBUG heard is printed "ready NS bp=BP"
 *   attach TARGET PLACE DAEMON...
 *                     as a PMIx tool: spawn the daemons beside TARGET (NS or NS:RANK with
 *                     PMIX_DEBUG_TARGET, job:NS with the older PMIX_DEBUG_JOB, "auto": the
 *                     DVM's one running job); print "spawn STATUS ns=NS" and the daemons'
 *                     JOB_END as above
 *   apps JOB A0 A1 APP...
 *                     as a PMIx tool: one PMIx_Spawn of two apps running APP..., A0 and A1
 *                     each "N:AGENT[:daemons]" (N processes; AGENT "-" none, "fea=PATH"
 *                     PMIX_FORKEXEC_AGENT or "ea=PATH" PMIX_EXEC_AGENT in the app's info,
 *                     "both=PATH" the two of them; ":daemons": the app is marked
 *                     PMIX_DEBUGGER_DAEMONS), JOB the same AGENT for the job info; print
 *                     "spawn STATUS ns=NS" and, after a successful spawn, its JOB_END
 *   feainfo NS        as a PMIx tool: the job data of NS's fork/exec agents' namespace
 *                     "NS.fea" from this tool's server: "feainfo size N nodes LIST" (its
 *                     PMIX_JOB_SIZE, PMIX_NODE_LIST), then per rank R "feainfo R host H
 *                     target T" (PMIX_HOSTNAME, PMIX_DEBUG_TARGET), or "feainfo R KEY:
 *                     STATUS" on an error
 * PLACE: node:N (PMIX_DEBUG_DAEMONS_PER_NODE), proc:N (PER_PROC), np:N (N daemons, the
 * DVM's ordinary mapping), cospawn-app (node:1, the app marked PMIX_COSPAWN_APP instead
 * of PMIX_DEBUGGER_DAEMONS); for refusals: both (PER_NODE and PER_PROC), target-too (a
 * PMIX_DEBUG_TARGET in a co-spawn); TARGET "none" names no target.
 * Output of the spawned processes is forwarded to this tool and written to its stdout.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_tool.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int nends;
static int released, want_releases = 1;
static pmix_proc_t releaser;

static bool wait_until(bool (*done)(void), int secs)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += secs;
    pthread_mutex_lock(&lock);
    while (!done()) {
        if (pthread_cond_timedwait(&cond, &lock, &until) != 0) {
            break;
        }
    }
    bool ok = done();
    pthread_mutex_unlock(&lock);
    return ok;
}

/* ---- target ---- */

static void on_release(size_t id, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&lock);
    if (released++ == 0 && source != NULL) {
        releaser = *source;
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (cbfunc != NULL) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static bool is_released(void)
{
    return released >= want_releases;
}

static uint32_t get_u32(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = NULL;
    uint32_t n = UINT32_MAX;
    if (PMIx_Get(p, key, NULL, 0, &v) == PMIX_SUCCESS) {
        PMIx_Value_get_number(v, &n, PMIX_UINT32);
        PMIX_VALUE_RELEASE(v);
    }
    return n;
}

static int target(void)
{
    pmix_proc_t me, job;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        printf("target: PMIx_Init failed\n");
        return 1;
    }
    PMIx_Load_procid(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_status_t code = PMIX_DEBUGGER_RELEASE;
    PMIx_Register_event_handler(&code, 1, NULL, 0, on_release, NULL, NULL);
    pmix_value_t *v = NULL;
    char host[256] = "?";
    if (PMIx_Get(&me, PMIX_HOSTNAME, NULL, 0, &v) == PMIX_SUCCESS && v->type == PMIX_STRING) {
        snprintf(host, sizeof(host), "%s", v->data.string);
        PMIX_VALUE_RELEASE(v);
    }
    printf("target %u/%u lsize %u lrank %u host %s pid %d\n", me.rank, get_u32(&job, PMIX_JOB_SIZE),
           get_u32(&job, PMIX_LOCAL_SIZE), get_u32(&me, PMIX_LOCAL_RANK), host, (int)getpid());
    fflush(stdout);
    int rc = 0;
    if (wait_until(is_released, 60)) {
        printf("target %u released by %s:%u\n", me.rank, releaser.nspace, releaser.rank);
    } else {
        printf("target %u not released\n", me.rank);
        rc = 3;
    }
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return rc;
}

/* ---- whoami: what a process started through an agent is ---- */

static int whoami(void)
{
    pmix_proc_t me, job;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        printf("whoami: PMIx_Init failed\n");
        return 1;
    }
    PMIx_Load_procid(&job, me.nspace, PMIX_RANK_WILDCARD);
    const char *agent = getenv("PX_EXEC_AGENT_PID");
    printf("whoami %u/%u lsize %u pid %d ppid %d agent %s\n", me.rank, get_u32(&job, PMIX_JOB_SIZE),
           get_u32(&job, PMIX_LOCAL_SIZE), (int)getpid(), (int)getppid(), agent ? agent : "-");
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return 0;
}

/* ---- the front end ---- */

/* A JOB_END ("jobend NS status=S exit=C", "msg: TEXT", counted) or a
 * PMIX_READY_FOR_DEBUG ("ready NS bp=BP") heard by the front end. */
static void on_end(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                   size_t ninfo, pmix_info_t results[], size_t nresults,
                   pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)results;
    (void)nresults;
    const char *ns = "?", *msg = NULL, *bp = "-";
    pmix_status_t st = PMIX_SUCCESS;
    int code = 0;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING) {
            ns = info[i].value.data.string;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_BREAKPOINT) && info[i].value.type == PMIX_STRING) {
            bp = info[i].value.data.string;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_JOB_TERM_STATUS)) {
            st = info[i].value.data.status;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE)) {
            PMIx_Value_get_number(&info[i].value, &code, PMIX_INT);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_TEXT_MESSAGE) &&
                   info[i].value.type == PMIX_STRING) {
            msg = info[i].value.data.string;
        }
    }
    pthread_mutex_lock(&lock);
    if (status == PMIX_READY_FOR_DEBUG) {
        printf("ready %s bp=%s\n", ns, bp);
    } else {
        printf("jobend %s status=%s exit=%d\n", ns, PMIx_Error_string(st), code);
        if (msg != NULL) {
            printf("msg: %s", msg);
        }
        nends++;
    }
    fflush(stdout);
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

static int want_ends;
static bool ends_done(void)
{
    return nends >= want_ends;
}

/* The placement's attributes into an app's info list. */
static void place(void *list, const char *how, bool *cospawn_app)
{
    uint16_t n = (uint16_t)atoi(strchr(how, ':') ? strchr(how, ':') + 1 : "1");
    if (strncmp(how, "node:", 5) == 0) {
        PMIx_Info_list_add(list, PMIX_DEBUG_DAEMONS_PER_NODE, &n, PMIX_UINT16);
    } else if (strncmp(how, "proc:", 5) == 0) {
        PMIx_Info_list_add(list, PMIX_DEBUG_DAEMONS_PER_PROC, &n, PMIX_UINT16);
    } else if (strcmp(how, "both") == 0) {
        uint16_t one = 1;
        PMIx_Info_list_add(list, PMIX_DEBUG_DAEMONS_PER_NODE, &one, PMIX_UINT16);
        PMIx_Info_list_add(list, PMIX_DEBUG_DAEMONS_PER_PROC, &one, PMIX_UINT16);
    } else if (strcmp(how, "target-too") == 0) {
        pmix_proc_t t;
        PMIx_Load_procid(&t, "elsewhere@1", PMIX_RANK_WILDCARD);
        PMIx_Info_list_add(list, PMIX_DEBUG_TARGET, &t, PMIX_PROC);
    } else if (strcmp(how, "cospawn-app") == 0) {
        uint16_t one = 1;
        PMIx_Info_list_add(list, PMIX_DEBUG_DAEMONS_PER_NODE, &one, PMIX_UINT16);
        *cospawn_app = true;
    }
}

static void app_of(pmix_app_t *app, char **argv, int n, int maxprocs, void *info)
{
    PMIX_APP_CONSTRUCT(app);
    app->cmd = strdup(argv[0]);
    for (int i = 0; i < n; i++) {
        PMIx_Argv_append_nosize(&app->argv, argv[i]);
    }
    app->maxprocs = maxprocs;
    char here[4096];
    app->cwd = strdup(getcwd(here, sizeof(here)) ? here : "/");
    if (info != NULL) {
        pmix_data_array_t da = PMIX_DATA_ARRAY_STATIC_INIT;
        PMIx_Info_list_convert(info, &da);
        app->info = da.array;
        app->ninfo = da.size;
        PMIx_Info_list_release(info);
    }
}

static char *namespaces(void)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIx_Argv_append_nosize(&q.keys, PMIX_QUERY_NAMESPACES);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    char *s = NULL;
    if (PMIx_Query_info(&q, 1, &res, &nres) == PMIX_SUCCESS && nres > 0 &&
        res[0].value.type == PMIX_STRING) {
        s = strdup(res[0].value.data.string);
    }
    PMIx_Info_free(res, nres);
    PMIX_QUERY_DESTRUCT(&q);
    return s ? s : strdup("");
}

/* PMIx_tool_init; with ends, JOB_END events are printed and counted (on_end). false:
 * it failed (said). */
static bool tool_up(bool ends)
{
    pmix_proc_t me;
    if (PMIx_tool_init(&me, NULL, 0) != PMIX_SUCCESS) {
        printf("dvm_dbgd: PMIx_tool_init failed\n");
        return false;
    }
    pmix_status_t code = PMIX_EVENT_JOB_END;
    if (ends) {
        PMIx_Register_event_handler(&code, 1, NULL, 0, on_end, NULL, NULL);
    }
    return true;
}

/* PMIx_Spawn, its answer printed ("spawn STATUS ns=NS"). */
static pmix_status_t spawn_said(const pmix_info_t *jinfo, size_t nj, const pmix_app_t *apps,
                                size_t napps, pmix_nspace_t ns)
{
    pmix_status_t rc = PMIx_Spawn(jinfo, nj, apps, napps, ns);
    pthread_mutex_lock(&lock);
    printf("spawn %s ns=%s\n", PMIx_Error_string(rc), rc == PMIX_SUCCESS ? ns : "-");
    fflush(stdout);
    pthread_mutex_unlock(&lock);
    return rc;
}

/* Wait (120 s) until n jobs ended: 0, or 1 (said). */
static int ends_heard(int n)
{
    want_ends = n;
    if (wait_until(ends_done, 120)) {
        return 0;
    }
    printf("dvm_dbgd: timed out waiting for the jobs' ends\n");
    return 1;
}

static int front(int argc, char **argv, bool cospawn, int ends, const char *stop)
{
    /* cospawn NP PLACE APP... -- DAEMON...  |  attach TARGET PLACE DAEMON... */
    if (argc < 5) {
        printf("dvm_dbgd: bad arguments\n");
        return 2;
    }
    if (!tool_up(true)) {
        return 1;
    }
    if (stop != NULL) {
        pmix_status_t code = PMIX_READY_FOR_DEBUG;
        PMIx_Register_event_handler(&code, 1, NULL, 0, on_end, NULL, NULL);
    }
    const char *how = argv[3];
    bool cospawn_app = false;
    bool yes = true;
    void *dinfo = PMIx_Info_list_start();
    place(dinfo, how, &cospawn_app);
    PMIx_Info_list_add(dinfo, cospawn_app ? PMIX_COSPAWN_APP : PMIX_DEBUGGER_DAEMONS, &yes,
                       PMIX_BOOL);
    int dmax = strncmp(how, "np:", 3) == 0 ? atoi(how + 3) : 0;
    pmix_app_t apps[2];
    size_t napps = 0;
    const char *mapby = NULL; /* cospawn NP/POLICY: the application's --map-by */
    if (cospawn) {
        int sep = 4;
        while (sep < argc && strcmp(argv[sep], "--") != 0) {
            sep++;
        }
        if (sep >= argc || sep == 4) {
            printf("dvm_dbgd: cospawn needs APP... -- [DAEMON...]\n");
            return 2;
        }
        app_of(&apps[napps++], argv + 4, sep - 4, atoi(argv[2]), NULL);
        mapby = strchr(argv[2], '/') ? strchr(argv[2], '/') + 1 : NULL;
        if (sep + 1 < argc) {
            app_of(&apps[napps++], argv + sep + 1, argc - sep - 1, dmax, dinfo);
        } else {
            PMIx_Info_list_release(dinfo); /* no daemons: a plain spawn (the benchmark's base) */
        }
    } else {
        char *tgt = argv[2], *names = NULL;
        if (strcmp(tgt, "auto") == 0) {
            tgt = names = namespaces();
            char *comma = strchr(tgt, ',');
            if (comma != NULL) {
                *comma = '\0';
            }
        }
        void *jinfo = dinfo; /* the target in the daemons' app info */
        if (strcmp(tgt, "none") == 0) {
            /* no target: refused */
        } else if (strncmp(tgt, "job:", 4) == 0) {
            PMIx_Info_list_add(jinfo, PMIX_DEBUG_JOB, tgt + 4, PMIX_STRING);
        } else {
            pmix_proc_t t;
            char *colon = strrchr(tgt, ':');
            pmix_rank_t r = PMIX_RANK_WILDCARD;
            if (colon != NULL && strchr(colon, '@') == NULL) {
                r = (pmix_rank_t)atoi(colon + 1);
                *colon = '\0';
            }
            PMIx_Load_procid(&t, tgt, r);
            PMIx_Info_list_add(jinfo, PMIX_DEBUG_TARGET, &t, PMIX_PROC);
        }
        app_of(&apps[napps++], argv + 4, argc - 4, dmax, dinfo);
        free(names);
    }
    pmix_info_t jinfo[5];
    size_t nj = 3;
    PMIx_Info_load(&jinfo[0], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    PMIx_Info_load(&jinfo[1], PMIX_FWD_STDOUT, &yes, PMIX_BOOL);
    PMIx_Info_load(&jinfo[2], PMIX_FWD_STDERR, &yes, PMIX_BOOL);
    if (mapby != NULL) {
        PMIx_Info_load(&jinfo[nj++], PMIX_MAPBY, mapby, PMIX_STRING);
    }
    if (stop != NULL) {
        PMIx_Info_load(&jinfo[nj++],
                       strcmp(stop, "exec") == 0 ? PMIX_DEBUG_STOP_ON_EXEC
                                                 : PMIX_DEBUG_STOP_IN_INIT,
                       &yes, PMIX_BOOL);
    }
    pmix_nspace_t ns = {0};
    pmix_status_t rc = spawn_said(jinfo, nj, apps, napps, ns);
    if (rc == PMIX_SUCCESS) {
        char *names = namespaces();
        pthread_mutex_lock(&lock);
        printf("namespaces %s\n", names);
        fflush(stdout);
        pthread_mutex_unlock(&lock);
        free(names);
    }
    /* a failed spawn: its JOB_END came first; the application's and the daemons' */
    int status = ends_heard(rc != PMIX_SUCCESS ? 1 : ends >= 0 ? ends : (int)napps);
    for (size_t a = 0; a < napps; a++) {
        PMIX_APP_DESTRUCT(&apps[a]);
    }
    for (size_t i = 0; i < nj; i++) {
        PMIx_Info_destruct(&jinfo[i]);
    }
    PMIx_tool_finalize();
    return status;
}

/* An AGENT of "apps" into an info list. */
static void agent_info(void *list, const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (eq == NULL) {
        return;
    }
    if (strncmp(spec, "fea=", 4) == 0 || strncmp(spec, "both=", 5) == 0) {
        PMIx_Info_list_add(list, PMIX_FORKEXEC_AGENT, eq + 1, PMIX_STRING);
    }
    if (strncmp(spec, "ea=", 3) == 0 || strncmp(spec, "both=", 5) == 0) {
        PMIx_Info_list_add(list, PMIX_EXEC_AGENT, eq + 1, PMIX_STRING);
    }
}

static int two_apps(int argc, char **argv)
{
    /* apps JOB A0 A1 APP... */
    if (argc < 6) {
        printf("dvm_dbgd: apps JOB A0 A1 APP...\n");
        return 2;
    }
    if (!tool_up(true)) {
        return 1;
    }
    pmix_app_t apps[2];
    bool yes = true;
    for (int a = 0; a < 2; a++) {
        char spec[4096];
        snprintf(spec, sizeof(spec), "%s", argv[3 + a]);
        char *agent = strchr(spec, ':');
        if (agent == NULL) {
            printf("dvm_dbgd: an app is N:AGENT[:daemons], not %s\n", spec);
            return 2;
        }
        *agent++ = '\0';
        char *daemons = strstr(agent, ":daemons");
        if (daemons != NULL) {
            *daemons = '\0';
        }
        void *info = PMIx_Info_list_start();
        agent_info(info, agent);
        if (daemons != NULL) {
            PMIx_Info_list_add(info, PMIX_DEBUGGER_DAEMONS, &yes, PMIX_BOOL);
        }
        app_of(&apps[a], argv + 5, argc - 5, atoi(spec), info);
    }
    void *jl = PMIx_Info_list_start();
    PMIx_Info_list_add(jl, PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    PMIx_Info_list_add(jl, PMIX_FWD_STDOUT, &yes, PMIX_BOOL);
    PMIx_Info_list_add(jl, PMIX_FWD_STDERR, &yes, PMIX_BOOL);
    agent_info(jl, argv[2]);
    pmix_data_array_t jinfo = PMIX_DATA_ARRAY_STATIC_INIT;
    PMIx_Info_list_convert(jl, &jinfo);
    PMIx_Info_list_release(jl);
    pmix_nspace_t ns = {0};
    spawn_said(jinfo.array, jinfo.size, apps, 2, ns);
    int status = ends_heard(1); /* a failed spawn's end came first */
    PMIX_APP_DESTRUCT(&apps[0]);
    PMIX_APP_DESTRUCT(&apps[1]);
    PMIx_Data_array_destruct(&jinfo);
    PMIx_tool_finalize();
    return status;
}

static int feainfo(const char *ns)
{
    pmix_proc_t p;
    if (!tool_up(false)) {
        return 1;
    }
    char ans[PMIX_MAX_NSLEN + 1];
    snprintf(ans, sizeof(ans), "%s.fea", ns);
    PMIx_Load_procid(&p, ans, PMIX_RANK_WILDCARD);
    uint32_t size = get_u32(&p, PMIX_JOB_SIZE);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p, PMIX_NODE_LIST, NULL, 0, &v);
    printf("feainfo size %u nodes %s\n", size,
           rc == PMIX_SUCCESS && v->type == PMIX_STRING ? v->data.string : PMIx_Error_string(rc));
    if (rc == PMIX_SUCCESS) {
        PMIX_VALUE_RELEASE(v);
    }
    int status = size != UINT32_MAX ? 0 : 1;
    for (uint32_t r = 0; size != UINT32_MAX && r < size; r++) {
        PMIx_Load_procid(&p, ans, r);
        pmix_value_t *h = NULL, *t = NULL;
        pmix_status_t hrc = PMIx_Get(&p, PMIX_HOSTNAME, NULL, 0, &h);
        pmix_status_t trc = PMIx_Get(&p, PMIX_DEBUG_TARGET, NULL, 0, &t);
        if (hrc == PMIX_SUCCESS && h->type == PMIX_STRING && trc == PMIX_SUCCESS &&
            t->type == PMIX_PROC) {
            printf("feainfo %u host %s target %s:%u\n", r, h->data.string, t->data.proc->nspace,
                   t->data.proc->rank);
        } else {
            printf("feainfo %u %s: %s\n", r, hrc != PMIX_SUCCESS ? "hostname" : "target",
                   PMIx_Error_string(hrc != PMIX_SUCCESS ? hrc : trc));
            status = 1;
        }
        if (h != NULL) {
            PMIX_VALUE_RELEASE(h);
        }
        if (t != NULL) {
            PMIX_VALUE_RELEASE(t);
        }
    }
    PMIx_tool_finalize();
    return status;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int ends = -1;
    const char *stop = NULL;
    for (bool more = true; more && argc >= 3;) {
        if (strcmp(argv[1], "--ends") == 0) {
            ends = atoi(argv[2]);
        } else if (strcmp(argv[1], "--stop") == 0) {
            stop = argv[2];
        } else {
            more = false;
            continue;
        }
        argv += 2;
        argc -= 2;
    }
    if (argc >= 2 && strcmp(argv[1], "target") == 0) {
        want_releases = argc >= 3 ? atoi(argv[2]) : 1;
        return target();
    }
    if (argc >= 2 && strcmp(argv[1], "whoami") == 0) {
        return whoami();
    }
    if (argc >= 2 && strcmp(argv[1], "apps") == 0) {
        return two_apps(argc, argv);
    }
    if (argc >= 3 && strcmp(argv[1], "feainfo") == 0) {
        return feainfo(argv[2]);
    }
    if (argc >= 2 && strcmp(argv[1], "cospawn") == 0) {
        return front(argc, argv, true, ends, stop);
    }
    if (argc >= 2 && strcmp(argv[1], "attach") == 0) {
        return front(argc, argv, false, ends, stop);
    }
    printf("usage: dvm_dbgd target | cospawn NP PLACE APP... -- DAEMON... | attach TARGET PLACE "
           "DAEMON...\n");
    return 2;
}
