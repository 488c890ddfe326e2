/*
 * pdbg.c - a small debugger front end: how a tool launches and follows a job through
 * PMIx, by every method of the Tools chapter ("Launching Applications with Tools").
 * Public PMIx API only; prints one "pdbg: ..." line per step and exits with the
 * application's exit code.
 *
 *   pdbg [--timeout S] [--no-release] [--map-by P] [--nohup] [--no-forward] -- LAUNCHER [ARGS...]
 *       indirect launch, the launcher parses the command line: one PMIx_Spawn of the
 *       whole line with PMIX_SPAWN_TOOL and PMIX_DEBUG_STOP_IN_INIT; the launcher
 *       (prterun or prun) connects back, we make it our server, register for its
 *       events and release it (PMIX_DEBUGGER_RELEASE naming it); PMIX_LAUNCH_DIRECTIVES
 *       carries what the application gets (--map-by). --no-release never releases it
 *       (the launcher gives up after S seconds). --nohup: the job outlives us (PMIX_NOHUP
 *       to the launcher); --no-forward: the launcher writes to our stdout/stderr itself
 *       instead of through PMIX_FWD_STDOUT/STDERR.
 *   pdbg [--timeout S] [--tag] [--stop] --launcher CMD -n N -- APP [ARGS...]
 *       indirect launch, we parse the command line: one spawn starts the launcher CMD
 *       (prterun or prte, which run the job themselves, or prun, which passes it on to
 *       its DVM) alone, we wait for it to connect back and be ready
 *       (PMIX_LAUNCHER_READY), then spawn N x APP through it.
 *   pdbg --direct [--dvm-uri URI] [--tool] [--tag] [--stop] -n N -- APP [ARGS...]
 *       direct launch: spawn APP through a running DVM (prte). --tool: APP is a tool
 *       (PMIX_SPAWN_TOOL) given our URI (PMIX_LAUNCHER_RNDZ_URI in its environment), so
 *       that it connects back to us.
 *   In both: --tag pulls the job's output from our server (PMIx_IOF_pull in the spawn's
 *   callback, PMIX_IOF_TAG_OUTPUT: "[nspace,rank]<stdout>: "); --stop holds the job's
 *   processes in PMIx_Init (PMIX_DEBUG_STOP_IN_INIT), waits for its PMIX_READY_FOR_DEBUG
 *   and releases them (PMIX_DEBUGGER_RELEASE, custom range: the job), or, with --daemon,
 *   leaves the release to the daemons.
 *   --daemon PATH [--per-proc] (with --direct or --launcher): co-spawn the debugger
 *       daemon PATH with the job, one per node of the job (per process with --per-proc):
 *       an app marked PMIX_DEBUGGER_DAEMONS in the same PMIx_Spawn; the answer is the
 *       job's namespace, the daemons' output comes to us with the job's.
 *   pdbg --attach NSPACE [--dvm-uri URI] [--daemon PATH [--per-proc]]
 *       attach to a running job: print its processes (PMIX_QUERY_PROC_TABLE); with
 *       --daemon, place the debugger daemon PATH beside it (PMIX_DEBUG_TARGET, one per
 *       node or per process) and wait until the daemons end.
 *   pdbg --old [--via-spawn] [--no-release] [--timeout S] [--map-by P] -- LAUNCHER [ARGS...]
 *       the older "wait for directives" handshake (OpenPMIx 3.x, what MPIR shims do): we
 *       fork/exec the launcher with PMIX_LAUNCHER_PAUSE_FOR_TOOL=<our id> and
 *       PMIX_LAUNCHER_RENDEZVOUS_FILE, connect with the deprecated
 *       PMIx_tool_connect_to_server, wait for PMIX_LAUNCHER_READY and send our directives
 *       in a PMIX_LAUNCH_DIRECTIVE event (PMIX_DEBUG_JOB_DIRECTIVES). --via-spawn: the
 *       library starts the launcher (PMIx_Spawn, the variables as PMIX_SET_ENVAR).
 *       --no-release: we never send the directives, and wait for the launcher to give
 *       up (its bound: PX_LAUNCHER_HOLD_SECS in its environment, else 60 s).
 *
 * In the indirect methods we start the launcher ourselves (PMIX_LAUNCHER,
 * PMIX_TOOL_DO_NOT_CONNECT: the library forks it), hand it our URI
 * (PMIX_LAUNCHER_RNDZ_URI) and a keepalive pipe (PMIX_KEEPALIVE_PIPE): if we die, the
 * launcher tears the job down. S (--timeout, default 30) bounds how long we wait for
 * the launcher to connect back and how long it waits for our release.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix_tool.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static bool ready, launched, ended, lost, launcher_done, app_ready, daemons_ended;
static bool cospawned;          /* --daemon with the job: a second job will end */
static const char *daemon_path; /* --daemon */
static bool per_proc;           /* --per-proc */
static pmix_nspace_t launcher_ns, app_ns;
static int exit_code = 1;

static const char *info_str(const pmix_info_t *info, size_t ninfo, const char *key)
{
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], key) && info[i].value.type == PMIX_STRING)
            return info[i].value.data.string;
    return NULL;
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)source, (void)results, (void)nresults;
    const char *ns = info_str(info, ninfo, PMIX_NSPACE);
    pthread_mutex_lock(&lock);
    if (status == PMIX_LAUNCHER_READY) {
        ready = true;
    } else if (status == PMIX_READY_FOR_DEBUG && ns != NULL &&
               (app_ns[0] == '\0' || PMIx_Check_nspace(ns, app_ns))) {
        /* (before the spawn's answer it can only be our one job's) */
        app_ready = true;
    } else if (status == PMIX_LAUNCH_COMPLETE && ns != NULL && !launched) {
        launched = true;
        PMIX_LOAD_NSPACE(app_ns, ns);
        printf("pdbg: launch complete %s\n", ns);
    } else if (status == PMIX_EVENT_JOB_END && ns != NULL) {
        int code = 0;
        for (size_t i = 0; i < ninfo; i++)
            if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE))
                PMIx_Value_get_number(&info[i].value, &code, PMIX_INT);
        if (PMIx_Check_nspace(ns, launcher_ns) && launcher_ns[0] != '\0') {
            /* the launcher itself ended (its output is all written): whatever it ran is
             * over too */
            launcher_done = true;
            if (!ended && (!launched || app_ns[0] == '\0')) {
                printf("pdbg: launcher %s ended (exit code %d) before the job did\n", ns, code);
                ended = true;
                exit_code = code != 0 ? code : 1;
            }
        } else if (!ended && (app_ns[0] == '\0' || PMIx_Check_nspace(ns, app_ns))) {
            ended = true;
            exit_code = code;
            printf("pdbg: job %s ended: exit code %d\n", ns, code);
        } else if (cospawned && app_ns[0] != '\0' && !PMIx_Check_nspace(ns, app_ns)) {
            /* our co-spawned debugger daemons' job (--daemon) */
            daemons_ended = true;
            printf("pdbg: daemons %s ended: exit code %d\n", ns, code);
        }
    } else if (status == PMIX_ERR_LOST_CONNECTION) {
        /* our server went; one naming a process is a launcher that left our own server */
        bool other = false;
        for (size_t i = 0; i < ninfo; i++)
            other = other || PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC);
        lost = lost || !other;
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* Once the job has ended: until its co-spawned daemons' job has too (their last output
 * comes before their end), at most secs. */
static void wait_daemons(int secs)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += secs;
    pthread_mutex_lock(&lock);
    while (!daemons_ended && !lost && pthread_cond_timedwait(&cond, &lock, &until) == 0)
        ;
    if (!daemons_ended)
        printf("pdbg: the daemons did not end within %d s\n", secs);
    pthread_mutex_unlock(&lock);
}

/* Wait until *flag (or the job's end), at most secs (0: until the job ends). */
static bool wait_for(const bool *flag, int secs)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += secs;
    pthread_mutex_lock(&lock);
    while (!*flag && !ended && !lost) {
        int rc = secs > 0 ? pthread_cond_timedwait(&cond, &lock, &until)
                          : pthread_cond_wait(&cond, &lock);
        if (rc != 0)
            break;
    }
    bool got = *flag;
    pthread_mutex_unlock(&lock);
    return got;
}

/* Wait (at most secs) until the launcher we started has ended. */
static void wait_launcher(int secs)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += secs;
    pthread_mutex_lock(&lock);
    while (!launcher_done && pthread_cond_timedwait(&cond, &lock, &until) == 0) {
    }
    pthread_mutex_unlock(&lock);
}

static void register_events(void)
{
    pmix_status_t codes[] = {PMIX_LAUNCHER_READY, PMIX_LAUNCH_COMPLETE, PMIX_EVENT_JOB_END,
                             PMIX_ERR_LOST_CONNECTION, PMIX_READY_FOR_DEBUG};
    pmix_status_t rc = PMIx_Register_event_handler(codes, 5, NULL, 0, on_event, NULL, NULL);
    if (rc < 0)
        printf("pdbg: PMIx_Register_event_handler: %s\n", PMIx_Error_string(rc));
}

static void fill_app(pmix_app_t *app, char **argv, int np, char **env)
{
    app->cmd = strdup(argv[0]);
    app->argv = PMIx_Argv_copy(argv);
    app->env = env;
    app->maxprocs = np;
}

static pmix_app_t *make_app(char **argv, int np, char **env)
{
    pmix_app_t *app = PMIx_App_create(1);
    fill_app(app, argv, np, env);
    return app;
}

/* Start the launcher ourselves; return its namespace in launcher_ns. */
static bool nohup, no_forward;

static int start_launcher(char **argv, bool parsed_by_launcher, int secs, const char *mapby,
                          int keep[2])
{
    pmix_value_t *uri = NULL;
    pmix_status_t rc = PMIx_Get(NULL, PMIX_MYSERVER_URI, NULL, 0, &uri);
    if (rc != PMIX_SUCCESS) {
        printf("pdbg: no URI of our own: %s\n", PMIx_Error_string(rc));
        return -1;
    }
    /* the keepalive pipe: the launcher gets the read end, we keep the write end */
    if (pipe(keep) != 0)
        return -1;
    fcntl(keep[1], F_SETFD, FD_CLOEXEC); /* only we hold it: our end closes with us */
    char *env[3] = {NULL, NULL, NULL};
    if (asprintf(&env[0], "PMIX_LAUNCHER_RNDZ_URI=%s", uri->data.string) < 0 ||
        asprintf(&env[1], "PMIX_KEEPALIVE_PIPE=%d", keep[0]) < 0)
        return -1;
    PMIx_Value_free(uri, 1);
    pmix_app_t *app = make_app(argv, 1, PMIx_Argv_copy(env));
    free(env[0]);
    free(env[1]);
    void *jl = PMIx_Info_list_start();
    bool yes = true;
    if (!no_forward) {
        PMIx_Info_list_add(jl, PMIX_FWD_STDOUT, &yes, PMIX_BOOL); /* its output, the job's */
        PMIx_Info_list_add(jl, PMIX_FWD_STDERR, &yes, PMIX_BOOL);
    }
    if (nohup)
        PMIx_Info_list_add(jl, PMIX_NOHUP, &yes, PMIX_BOOL);
    PMIx_Info_list_add(jl, PMIX_SPAWN_TIMEOUT, &secs, PMIX_INT);
    if (parsed_by_launcher) {
        PMIx_Info_list_add(jl, PMIX_SPAWN_TOOL, &yes, PMIX_BOOL);
        PMIx_Info_list_add(jl, PMIX_DEBUG_STOP_IN_INIT, &yes, PMIX_BOOL);
        /* what the application it launches gets */
        void *dl = PMIx_Info_list_start();
        PMIx_Info_list_add(dl, PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
        if (mapby != NULL)
            PMIx_Info_list_add(dl, PMIX_MAPBY, mapby, PMIX_STRING);
        pmix_data_array_t da;
        PMIx_Info_list_convert(dl, &da);
        PMIx_Info_list_add(jl, PMIX_LAUNCH_DIRECTIVES, &da, PMIX_DATA_ARRAY);
        PMIx_Info_list_release(dl);
        PMIX_DATA_ARRAY_DESTRUCT(&da);
    }
    pmix_data_array_t ja;
    PMIx_Info_list_convert(jl, &ja);
    PMIx_Info_list_release(jl);
    pmix_nspace_t ns;
    rc = PMIx_Spawn(ja.array, ja.size, app, 1, ns);
    PMIX_DATA_ARRAY_DESTRUCT(&ja);
    PMIx_App_free(app, 1);
    close(keep[0]); /* the launcher has it now */
    if (rc != PMIX_SUCCESS) {
        printf("pdbg: cannot start %s: %s\n", argv[0], PMIx_Error_string(rc));
        return -1;
    }
    pthread_mutex_lock(&lock);
    PMIX_LOAD_NSPACE(launcher_ns, ns);
    pthread_mutex_unlock(&lock);
    /* it connects back to us; then it is our server */
    pmix_proc_t il;
    PMIx_Load_procid(&il, ns, 0);
    pmix_info_t wait[2];
    PMIx_Info_load(&wait[0], PMIX_WAIT_FOR_CONNECTION, &yes, PMIX_BOOL);
    PMIx_Info_load(&wait[1], PMIX_TIMEOUT, &secs, PMIX_INT);
    rc = PMIx_tool_set_server(&il, wait, 2);
    PMIx_Info_destruct(&wait[0]);
    PMIx_Info_destruct(&wait[1]);
    if (rc != PMIX_SUCCESS) {
        printf("pdbg: launcher %s did not connect back: %s\n", ns, PMIx_Error_string(rc));
        return -1;
    }
    printf("pdbg: launcher %s connected\n", ns);
    register_events(); /* at our new server */
    return 0;
}

/* PMIX_DEBUGGER_RELEASE whose custom range is ns:rank (what: for the line we print). */
static int release(const char *what, const char *ns, pmix_rank_t rank)
{
    pmix_proc_t who;
    pmix_info_t range;
    PMIx_Load_procid(&who, ns, rank);
    PMIx_Info_load(&range, PMIX_EVENT_CUSTOM_RANGE, &who, PMIX_PROC);
    pmix_status_t rc =
        PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, NULL, PMIX_RANGE_CUSTOM, &range, 1, NULL, NULL);
    PMIx_Info_destruct(&range);
    printf("pdbg: released %s%s: %s\n", what, ns, PMIx_Error_string(rc));
    return rc == PMIX_SUCCESS ? 0 : -1;
}

static bool tag, stop;
static bool spawn_done;
static pmix_status_t spawn_status;

static void pulled(pmix_status_t status, size_t ref, void *cbdata)
{
    (void)ref, (void)cbdata;
    if (status != PMIX_SUCCESS)
        printf("pdbg: PMIx_IOF_pull: %s\n", PMIx_Error_string(status));
}

/* The spawn's answer (library thread): before any of the job's output is handled here,
 * so a pull made now sees all of it. */
static void spawned(pmix_status_t status, pmix_nspace_t nspace, void *cbdata)
{
    (void)cbdata;
    if (status == PMIX_SUCCESS && tag) {
        pmix_proc_t job;
        pmix_info_t fmt;
        bool yes = true;
        PMIx_Load_procid(&job, nspace, PMIX_RANK_WILDCARD);
        PMIx_Info_load(&fmt, PMIX_IOF_TAG_OUTPUT, &yes, PMIX_BOOL);
        pmix_status_t rc =
            PMIx_IOF_pull(&job, 1, &fmt, 1, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL, NULL,
                          pulled, NULL);
        PMIx_Info_destruct(&fmt);
        if (rc != PMIX_SUCCESS)
            pulled(rc, 0, NULL);
    }
    pthread_mutex_lock(&lock);
    spawn_status = status;
    if (status == PMIX_SUCCESS && !launched) {
        launched = true;
        PMIX_LOAD_NSPACE(app_ns, nspace);
        printf("pdbg: launch complete %s\n", nspace);
    }
    spawn_done = true;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

/* --stop: the job waits in PMIx_Init; once it says so, release it. */
static int release_job(int secs)
{
    if (!wait_for(&app_ready, secs)) {
        printf("pdbg: job %s never said it was ready for debug\n", app_ns);
        return -1;
    }
    printf("pdbg: job %s ready for debug\n", app_ns);
    if (daemon_path != NULL) {
        printf("pdbg: its debugger daemons release it\n"); /* as a real back end would */
        return 0;
    }
    return release("job ", app_ns, PMIX_RANK_WILDCARD);
}

/* --daemon PATH: one debugger daemon per node of the job (per process with --per-proc),
 * co-spawned with it or, with a target (--attach), placed beside that running job. */

static void daemon_app(pmix_app_t *app, const char *target)
{
    char *dargv[] = {(char *)daemon_path, NULL};
    fill_app(app, dargv, 0, NULL); /* 0 processes: as many as the placement gives */
    void *il = PMIx_Info_list_start();
    bool yes = true;
    uint16_t one = 1;
    PMIx_Info_list_add(il, PMIX_DEBUGGER_DAEMONS, &yes, PMIX_BOOL);
    PMIx_Info_list_add(il, per_proc ? PMIX_DEBUG_DAEMONS_PER_PROC : PMIX_DEBUG_DAEMONS_PER_NODE,
                       &one, PMIX_UINT16);
    if (target != NULL) {
        pmix_proc_t t;
        PMIx_Load_procid(&t, target, PMIX_RANK_WILDCARD);
        PMIx_Info_list_add(il, PMIX_DEBUG_TARGET, &t, PMIX_PROC);
    }
    pmix_data_array_t da;
    PMIx_Info_list_convert(il, &da);
    PMIx_Info_list_release(il);
    app->info = da.array; /* PMIx_App_free frees it */
    app->ninfo = da.size;
}

/* Spawn argv (np copies), with our daemons beside it when --daemon is given; or, with
 * target set, only the daemons, placed beside that running job. */
static int spawn_app(char **argv, int np, bool tool, const char *target)
{
    void *jl = PMIx_Info_list_start();
    bool yes = true;
    PMIx_Info_list_add(jl, PMIX_FWD_STDOUT, &yes, PMIX_BOOL);
    PMIx_Info_list_add(jl, PMIX_FWD_STDERR, &yes, PMIX_BOOL);
    PMIx_Info_list_add(jl, PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    if (stop)
        PMIx_Info_list_add(jl, PMIX_DEBUG_STOP_IN_INIT, &yes, PMIX_BOOL);
    char **env = NULL;
    if (tool) {
        pmix_value_t *uri = NULL;
        char *var = NULL;
        PMIx_Info_list_add(jl, PMIX_SPAWN_TOOL, &yes, PMIX_BOOL);
        if (PMIx_Get(NULL, PMIX_MYSERVER_URI, NULL, 0, &uri) == PMIX_SUCCESS &&
            asprintf(&var, "PMIX_LAUNCHER_RNDZ_URI=%s", uri->data.string) >= 0) {
            PMIx_Argv_append_nosize(&env, var);
            free(var);
        }
        if (uri != NULL)
            PMIx_Value_free(uri, 1);
    }
    pmix_data_array_t ja;
    PMIx_Info_list_convert(jl, &ja);
    PMIx_Info_list_release(jl);
    pmix_app_t *app = PMIx_App_create(2);
    size_t napps = 0;
    if (target == NULL)
        fill_app(&app[napps++], argv, np, env);
    if (daemon_path != NULL)
        daemon_app(&app[napps++], target);
    pthread_mutex_lock(&lock);
    cospawned = daemon_path != NULL && target == NULL;
    pthread_mutex_unlock(&lock);
    pmix_status_t rc = PMIx_Spawn_nb(ja.array, ja.size, app, napps, spawned, NULL);
    if (rc == PMIX_SUCCESS) {
        pthread_mutex_lock(&lock); /* inputs stay ours until the answer */
        while (!spawn_done)
            pthread_cond_wait(&cond, &lock);
        rc = spawn_status;
        pthread_mutex_unlock(&lock);
    }
    PMIX_DATA_ARRAY_DESTRUCT(&ja);
    PMIx_App_free(app, 2);
    if (rc != PMIX_SUCCESS) {
        printf("pdbg: spawn of %s failed: %s\n", target == NULL ? argv[0] : daemon_path,
               PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

static int attach(const char *nspace)
{
    pmix_query_t q;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIx_Argv_append_nosize(&q.keys, PMIX_QUERY_PROC_TABLE);
    q.nqual = 1;
    q.qualifiers = PMIx_Info_create(1);
    PMIx_Info_load(&q.qualifiers[0], PMIX_NSPACE, nspace, PMIX_STRING);
    pmix_status_t rc = PMIx_Query_info(&q, 1, &res, &nres);
    PMIX_QUERY_DESTRUCT(&q);
    if (rc != PMIX_SUCCESS || nres == 0 || res[0].value.type != PMIX_DATA_ARRAY) {
        printf("pdbg: no process table for %s: %s\n", nspace, PMIx_Error_string(rc));
        return 1;
    }
    pmix_proc_info_t *pi = res[0].value.data.darray->array;
    for (size_t i = 0; i < res[0].value.data.darray->size; i++)
        printf("pdbg: %s rank %u pid %d host %s %s\n", pi[i].proc.nspace, pi[i].proc.rank,
               (int)pi[i].pid, pi[i].hostname ? pi[i].hostname : "?",
               pi[i].executable_name ? pi[i].executable_name : "?");
    PMIx_Info_free(res, nres);
    return 0;
}

/* The older handshake: the launcher is our child, paused until our directives. */
static int old_handshake(char **argv, int secs, const char *mapby, const pmix_proc_t *me,
                         bool via_spawn, bool no_release)
{
    char file[4096], pause[PMIX_MAX_NSLEN + 32];
    const char *tmp = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    snprintf(file, sizeof(file), "%s/pdbg.%d.rndz", tmp, (int)getpid());
    snprintf(pause, sizeof(pause), "%s:%u", me->nspace, me->rank);
    pid_t pid = -1;
    if (via_spawn) {
        /* the library starts it; the variables through PMIX_SET_ENVAR */
        pmix_envar_t ev[2] = {{"PMIX_LAUNCHER_PAUSE_FOR_TOOL", pause, ':'},
                              {"PMIX_LAUNCHER_RENDEZVOUS_FILE", file, ':'}};
        pmix_info_t ji[2];
        PMIx_Info_load(&ji[0], PMIX_SET_ENVAR, &ev[0], PMIX_ENVAR);
        PMIx_Info_load(&ji[1], PMIX_SET_ENVAR, &ev[1], PMIX_ENVAR);
        pmix_app_t *app = make_app(argv, 1, NULL);
        pmix_nspace_t ns;
        pmix_status_t src = PMIx_Spawn(ji, 2, app, 1, ns);
        PMIx_Info_destruct(&ji[0]);
        PMIx_Info_destruct(&ji[1]);
        PMIx_App_free(app, 1);
        if (src != PMIX_SUCCESS) {
            printf("pdbg: cannot start %s: %s\n", argv[0], PMIx_Error_string(src));
            return 1;
        }
        pthread_mutex_lock(&lock);
        PMIX_LOAD_NSPACE(launcher_ns, ns);
        pthread_mutex_unlock(&lock);
    } else if ((pid = fork()) == 0) {
        setenv("PMIX_LAUNCHER_PAUSE_FOR_TOOL", pause, 1);
        setenv("PMIX_LAUNCHER_RENDEZVOUS_FILE", file, 1);
        execvp(argv[0], argv);
        _exit(127);
    } else if (pid < 0) {
        return 1;
    }
    /* its server writes the file once it is up: wait for it there */
    bool yes = true;
    pmix_info_t cnct[3];
    PMIx_Info_load(&cnct[0], PMIX_TOOL_ATTACHMENT_FILE, file, PMIX_STRING);
    PMIx_Info_load(&cnct[1], PMIX_WAIT_FOR_CONNECTION, &yes, PMIX_BOOL);
    PMIx_Info_load(&cnct[2], PMIX_TIMEOUT, &secs, PMIX_INT);
    pmix_proc_t id;
    pmix_status_t rc = PMIx_tool_connect_to_server(&id, cnct, 3);
    for (int k = 0; k < 3; k++)
        PMIx_Info_destruct(&cnct[k]);
    int status = 1;
    pmix_proc_t *srv = NULL;
    size_t nsrv = 0;
    if (rc != PMIX_SUCCESS || PMIx_tool_get_servers(&srv, &nsrv) != PMIX_SUCCESS || nsrv == 0) {
        printf("pdbg: cannot connect to the launcher: %s\n", PMIx_Error_string(rc));
        goto out;
    }
    printf("pdbg: connected to launcher %s\n", srv[0].nspace);
    register_events();
    if (!wait_for(&ready, secs)) {
        printf("pdbg: the launcher never said it was ready\n");
        goto out;
    }
    printf("pdbg: launcher ready\n");
    if (no_release) {
        printf("pdbg: directives not sent\n");
        goto out;
    }
    void *dl = PMIx_Info_list_start();
    PMIx_Info_list_add(dl, PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    if (mapby != NULL)
        PMIx_Info_list_add(dl, PMIX_MAPBY, mapby, PMIX_STRING);
    pmix_data_array_t da;
    PMIx_Info_list_convert(dl, &da);
    PMIx_Info_list_release(dl);
    pmix_info_t ev[2];
    PMIx_Info_load(&ev[0], PMIX_EVENT_CUSTOM_RANGE, &srv[0], PMIX_PROC);
    PMIx_Info_load(&ev[1], PMIX_DEBUG_JOB_DIRECTIVES, &da, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_DESTRUCT(&da);
    rc = PMIx_Notify_event(PMIX_LAUNCH_DIRECTIVE, NULL, PMIX_RANGE_CUSTOM, ev, 2, NULL, NULL);
    PMIx_Info_destruct(&ev[0]);
    PMIx_Info_destruct(&ev[1]);
    printf("pdbg: directives sent: %s\n", PMIx_Error_string(rc));
    if (rc == PMIX_SUCCESS && wait_for(&ended, 0))
        status = exit_code;
out:
    if (srv != NULL)
        PMIx_Proc_free(srv, nsrv);
    if (pid > 0) {
        pthread_mutex_lock(&lock);
        bool over = ended;
        pthread_mutex_unlock(&lock);
        if (!over && !no_release)
            kill(pid, SIGTERM); /* we give up: so does our job */
        int ws = 0;
        waitpid(pid, &ws, 0);
        if (no_release)
            printf("pdbg: launcher exited with status %d\n",
                   WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws));
    } else {
        wait_launcher(secs); /* it ends with its job, or when we leave */
    }
    unlink(file);
    return status;
}

static void usage(void)
{
    fprintf(stderr, "usage: pdbg [--timeout S] [--no-release] [--map-by P] [--nohup] [--no-forward]"
                    " -- LAUNCHER [ARGS...]\n"
                    "       pdbg [--timeout S] [--tag] [--stop] [--daemon PATH [--per-proc]]"
                    " --launcher CMD -n N -- APP [ARGS...]\n"
                    "       pdbg --direct [--dvm-uri URI] [--tool] [--tag] [--stop]"
                    " [--daemon PATH [--per-proc]] -n N -- APP"
                    " [ARGS...]\n"
                    "       pdbg --attach NSPACE [--dvm-uri URI] [--daemon PATH [--per-proc]]\n"
                    "       pdbg --old [--via-spawn] [--no-release] [--timeout S] [--map-by P]"
                    " -- LAUNCHER"
                    " [ARGS...]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int secs = 30, np = 1, i;
    bool no_release = false, direct = false, tool = false, old = false, via_spawn = false;
    const char *launcher = NULL, *mapby = NULL, *attach_ns = NULL, *uri = NULL;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--timeout") && v) {
            secs = atoi(v), i++;
        } else if (!strcmp(a, "--no-release")) {
            no_release = true;
        } else if (!strcmp(a, "--nohup")) {
            nohup = true;
        } else if (!strcmp(a, "--no-forward")) {
            no_forward = true;
        } else if (!strcmp(a, "--map-by") && v) {
            mapby = v, i++;
        } else if (!strcmp(a, "--launcher") && v) {
            launcher = v, i++;
        } else if (!strcmp(a, "-n") && v) {
            np = atoi(v), i++;
        } else if (!strcmp(a, "--direct")) {
            direct = true;
        } else if (!strcmp(a, "--tool")) {
            tool = true;
        } else if (!strcmp(a, "--tag")) {
            tag = true;
        } else if (!strcmp(a, "--stop")) {
            stop = true;
        } else if (!strcmp(a, "--old")) {
            old = true;
        } else if (!strcmp(a, "--via-spawn")) {
            via_spawn = true;
        } else if (!strcmp(a, "--daemon") && v) {
            daemon_path = v, i++;
        } else if (!strcmp(a, "--per-proc")) {
            per_proc = true;
        } else if (!strcmp(a, "--attach") && v) {
            attach_ns = v, i++;
        } else if (!strcmp(a, "--dvm-uri") && v) {
            uri = v, i++;
        } else {
            usage();
        }
    }
    char **rest = i + 1 < argc ? &argv[i + 1] : NULL;
    if ((attach_ns == NULL && rest == NULL) || secs <= 0 || np <= 0)
        usage();

    /* the tool: a launcher (our own listener); in the indirect methods no server yet */
    bool indirect = !direct && attach_ns == NULL, yes = true;
    pmix_info_t init[4];
    size_t n = 0;
    char myns[64];
    if (old) {
        /* the launcher must know who we are before we connect */
        snprintf(myns, sizeof(myns), "pdbg-%d", (int)getpid());
        PMIx_Info_load(&init[n++], PMIX_TOOL_NSPACE, myns, PMIX_STRING);
    }
    if (!old || via_spawn)
        PMIx_Info_load(&init[n++], PMIX_LAUNCHER, &yes, PMIX_BOOL);
    if (indirect)
        PMIx_Info_load(&init[n++], PMIX_TOOL_DO_NOT_CONNECT, &yes, PMIX_BOOL);
    else if (uri != NULL)
        PMIx_Info_load(&init[n++], PMIX_SERVER_URI, uri, PMIX_STRING);
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, init, n);
    for (size_t k = 0; k < n; k++)
        PMIx_Info_destruct(&init[k]);
    if (rc != PMIX_SUCCESS) {
        printf("pdbg: PMIx_tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    register_events(); /* locally: the self-spawned launcher's end */
    int keep[2] = {-1, -1}, status = 1;
    if (attach_ns != NULL) {
        status = attach(attach_ns);
        if (status == 0 && daemon_path != NULL) {
            /* our daemons beside it, until they end (app_ns: theirs) */
            status = 1;
            if (spawn_app(NULL, 0, false, attach_ns) == 0 && wait_for(&ended, 0))
                status = exit_code;
        }
        goto out;
    }
    if (old) {
        status = old_handshake(rest, secs, mapby, &me, via_spawn, no_release);
        goto out;
    }
    if (direct) {
        if (spawn_app(rest, np, tool, NULL) == 0 && (!stop || release_job(secs) == 0) &&
            wait_for(&ended, 0))
            status = exit_code;
        if (daemon_path != NULL && launched)
            wait_daemons(secs);
        goto out;
    }
    if (launcher == NULL) {
        /* the launcher parses the command line: one spawn of all of it */
        if (start_launcher(rest, true, secs, mapby, keep) != 0)
            goto out;
        if (!no_release && release("", launcher_ns, 0) != 0)
            goto out;
        wait_for(&ended, 0);
        /* the launcher ends with its job: its last output comes before its end */
        wait_launcher(secs);
        pthread_mutex_lock(&lock);
        if (ended)
            status = exit_code;
        pthread_mutex_unlock(&lock);
        goto out;
    }
    /* we parse it: the launcher alone first, then the job through it */
    char **largv = NULL;
    char *copy = strdup(launcher), *save = NULL;
    for (char *w = strtok_r(copy, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save))
        PMIx_Argv_append_nosize(&largv, w);
    free(copy);
    int lrc = largv != NULL ? start_launcher(largv, false, secs, NULL, keep) : -1;
    PMIx_Argv_free(largv);
    if (lrc != 0)
        goto out;
    if (!wait_for(&ready, secs)) {
        printf("pdbg: launcher %s never said it was ready\n", launcher_ns);
        goto out;
    }
    printf("pdbg: launcher ready\n");
    if (spawn_app(rest, np, false, NULL) == 0 && (!stop || release_job(secs) == 0) &&
        wait_for(&ended, 0))
        status = exit_code;
    if (daemon_path != NULL && launched)
        wait_daemons(secs);
out:
    if (status != 0 && launcher_ns[0] != '\0' && keep[1] >= 0) {
        /* we give up: the launcher ends with its keepalive pipe; its last words (on the
         * output we forward) come before its end */
        close(keep[1]);
        keep[1] = -1;
        wait_launcher(secs);
    }
    PMIx_tool_finalize();
    if (keep[1] >= 0)
        close(keep[1]); /* the launcher ends with us */
    return status;
}
