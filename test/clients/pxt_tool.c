/*
 * pxt_tool.c - a PMIx tool for the 'tool' integration tests: initialises as a tool by
 * the rendezvous method its options select, prints its id and servers, optionally does
 * one request (a PMIx_Get of a job's size) and the multi-server calls, and finalises.
 *
 *   pxt_tool [options]
 *     --uri U | --tcp-uri U | --attach-file F | --pid P | --server-nspace NS |
 *     --system | --system-first          the chain step (none: the default search)
 *     --tmpdir D / --systmpdir D         PMIX_SERVER_TMPDIR / PMIX_SYSTEM_TMPDIR
 *     --nspace NS [--rank R]             PMIX_TOOL_NSPACE / PMIX_TOOL_RANK
 *     --do-not-connect | --optional | --launcher
 *     --retries N --delay S | --wait --timeout S
 *     --expect STATUS                    PMIx_tool_init must fail with this status name
 *     --get NSPACE                       PMIx_Get(NSPACE, wildcard, PMIX_JOB_SIZE)
 *     --check-env                        the launcher variables are gone after init
 *     --second-pid P                     attach to that server too; then set_server,
 *                                        disconnect, get_servers (see main)
 *     --linger MS                        stay that long after init (keepalive tests)
 *     --linger-until FILE                stay after init until FILE exists (30 s at
 *                                        most: then fail)
 *     --raw-tcp URI                      no PMIx: a TCP handshake without the secret
 *     --wait-event CODE                  register for CODE after init, wait (10 s) until
 *                                        it arrives; print its source and text
 *     --late-event CODE                  a default handler first; once it got an event,
 *                                        register for CODE: it must arrive (once) all the
 *                                        same, from the tool's own event cache
 *     --print-uri                        print PMIx_Get(PMIX_MYSERVER_URI) after init
 *                                        (a tool with --launcher has a listener)
 *     --notify CODE                      after init, PMIx_Notify_event(CODE), range
 *                                        session, before --wait-event
 *     --reply CODE                       the same after --wait-event
 *     --end-until FILE                   before finalizing, wait until FILE exists (30 s
 *                                        at most: then fail)
 *     --parent                           print PMIx_Get(&me, PMIX_PARENT_ID)
 *     --directives                       print PMIx_Get(&me, PMIX_LAUNCH_DIRECTIVES)
 *                                        ("directive KEY=VALUE") and PMIX_PARENT_ID
 *     --local-output                     with --self-spawn: PMIX_IOF_LOCAL_OUTPUT too
 *     --self-spawn -- PROG ARGS...       (last option) PMIx_Spawn PROG with
 *                                        PMIX_FWD_STDOUT, PMIX_LAUNCH_DIRECTIVES
 *                                        {PMIX_TIMEOUT=7, PMIX_MAPBY=slot} and our URI as
 *                                        PMIX_LAUNCHER_RNDZ_URI in its env; wait (30 s)
 *                                        for its PMIX_EVENT_JOB_END; print both
 *     --upcalls                          publish, lookup and unpublish a key, query
 *                                        pxhost.qry.test, register and deregister a handler
 *                                        for host-only code -3005: the upcalls that carry
 *                                        the requester's ids (pxhost checks them)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pthread.h>
#include <time.h>

#include <pmix_tool.h>

/* --wait-event: what the handler saw */
static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ev_cond = PTHREAD_COND_INITIALIZER;
static int ev_count;
static pmix_proc_t ev_source;
static char ev_text[128];

static void ev_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&ev_lock);
    ev_count++;
    ev_source = *source;
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_TEXT_MESSAGE) && info[i].value.type == PMIX_STRING)
            snprintf(ev_text, sizeof(ev_text), "%s", info[i].value.data.string);
    pthread_cond_broadcast(&ev_cond);
    pthread_mutex_unlock(&ev_lock);
    cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* Wait until *counter (guarded by ev_lock) reaches n, at most ms; its value. */
static int wait_count(const int *counter, int n, long ms)
{
    struct timespec end;

    clock_gettime(CLOCK_REALTIME, &end);
    end.tv_sec += ms / 1000;
    end.tv_nsec += (ms % 1000) * 1000000;
    if (end.tv_nsec >= 1000000000) {
        end.tv_sec++;
        end.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&ev_lock);
    while (*counter < n && pthread_cond_timedwait(&ev_cond, &ev_lock, &end) == 0) {
    }
    int got = *counter;
    pthread_mutex_unlock(&ev_lock);
    return got;
}

/* Register for code and wait up to 10 s for it; 0 when it came. */
static int wait_event(pmix_status_t code)
{
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, NULL, 0, ev_handler, NULL, NULL);

    if (rc < 0) {
        printf("pxt_tool: PMIx_Register_event_handler: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (wait_count(&ev_count, 1, 10000) == 0) {
        printf("pxt_tool: event %s never arrived\n", PMIx_Error_string(code));
        return 1;
    }
    printf("pxt_tool: event %s from %s:%u \"%s\"\n", PMIx_Error_string(code), ev_source.nspace,
           ev_source.rank, ev_text);
    return 0;
}

/* --late-event: a default handler only counts */
static int def_count;

static void def_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                        pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    pthread_mutex_lock(&ev_lock);
    def_count++;
    pthread_cond_broadcast(&ev_cond);
    pthread_mutex_unlock(&ev_lock);
    cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* Register a default handler, wait (10 s) until it got an event, then register for code:
 * that handler must get the event the tool already received (its own cache), once. */
static int late_event(pmix_status_t code)
{
    pmix_status_t rc = PMIx_Register_event_handler(NULL, 0, NULL, 0, def_handler, NULL, NULL);

    if (rc < 0) {
        printf("pxt_tool: PMIx_Register_event_handler (default): %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (wait_count(&def_count, 1, 10000) == 0) {
        printf("pxt_tool: the default handler got no event\n");
        return 1;
    }
    if (wait_event(code) != 0)
        return 1;
    /* a second delivery would come right behind the first */
    int n = wait_count(&ev_count, 2, 500);
    if (n != 1) {
        printf("pxt_tool: the late handler ran %d times\n", n);
        return 1;
    }
    printf("pxt_tool: late handler got the event once\n");
    return 0;
}

static void die(const char *fmt, const char *a)
{
    fprintf(stderr, "pxt_tool: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n");
    exit(2);
}

/* A handshake with a correct header but no secret: print the answer. */
static int raw_tcp(const char *uri)
{
    const char *p = strstr(uri, "tcp4://");
    char addr[64];
    int port;
    if (p == NULL || sscanf(p + 7, "%63[0-9.]:%d", addr, &port) != 2)
        die("--raw-tcp: not a TCP URI: %s", uri);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, addr, &sa.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
        die("--raw-tcp: connect: %s", strerror(errno));
    /* version 1, then a 40-byte payload that is a hello, not a secret */
    unsigned char head[8] = {1, 0, 0, 0, 0, 0, 0, 40}, body[40] = {0}, ans[8];
    if (write(fd, head, 8) != 8 || write(fd, body, sizeof(body)) != sizeof(body) ||
        read(fd, ans, 8) != 8)
        die("--raw-tcp: %s", "no answer");
    uint32_t be;
    memcpy(&be, ans + 4, 4);
    int32_t st = (int32_t)ntohl(be);
    printf("pxt_tool: raw TCP handshake answered %s\n", PMIx_Error_string(st));
    close(fd);
    return st == PMIX_ERR_NO_PERMISSIONS ? 0 : 1;
}

/* --linger-until: 0 once path exists, -1 after 30 s without it */
static int linger_until(const char *path)
{
    for (int i = 0; i < 3000; i++) {
        if (access(path, F_OK) == 0)
            return 0;
        usleep(10000);
    }
    printf("pxt_tool: %s did not appear within 30 s\n", path);
    return -1;
}

static void print_servers(const char *when)
{
    pmix_proc_t *s = NULL;
    size_t n = 0;
    pmix_status_t rc = PMIx_tool_get_servers(&s, &n);
    printf("pxt_tool: servers %s (%s):", when, PMIx_Error_string(rc));
    for (size_t i = 0; i < n; i++)
        printf(" %s:%u", s[i].nspace, s[i].rank);
    printf("%s\n", n == 0 ? " none" : "");
    if (s != NULL)
        PMIx_Proc_free(s, n);
}

static int do_get(const char *nspace)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIx_Load_procid(&p, nspace, PMIX_RANK_WILDCARD);
    pmix_status_t rc = PMIx_Get(&p, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) {
        printf("pxt_tool: PMIx_Get(%s) failed: %s\n", nspace, PMIx_Error_string(rc));
        return rc;
    }
    uint32_t size = 0;
    PMIx_Value_get_number(v, &size, PMIX_UINT32);
    printf("pxt_tool: job %s has size %u\n", nspace, size);
    PMIx_Value_free(v, 1);
    return 0;
}

/* A request the client library always sends to its (primary) server. */
static int ask_server(const char *nspace, const char *when)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIx_Load_procid(&p, nspace, 0);
    pmix_status_t rc = PMIx_Get(&p, PMIX_PSET_NAMES, NULL, 0, &v);
    printf("pxt_tool: server asked %s: %s\n", when, PMIx_Error_string(rc));
    if (v != NULL)
        PMIx_Value_free(v, 1);
    return rc;
}

/* --upcalls: every request whose upcall carries PMIX_USERID/PMIX_GRPID; 0 when all
 * succeeded. */
static int upcalls(void)
{
    pmix_info_t pub;
    pmix_pdata_t pd;
    pmix_query_t q;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t code = -3005, rc;
    char *keys[] = {"pxt.ids.key", NULL};
    int fail = 0;

    PMIx_Info_load(&pub, "pxt.ids.key", "pxt-value", PMIX_STRING);
    rc = PMIx_Publish(&pub, 1);
    PMIx_Info_destruct(&pub);
    printf("pxt_tool: publish: %s\n", PMIx_Error_string(rc));
    fail |= rc != PMIX_SUCCESS;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, "pxt.ids.key");
    rc = PMIx_Lookup(&pd, 1, NULL, 0);
    printf("pxt_tool: lookup: %s\n", PMIx_Error_string(rc));
    fail |= rc != PMIX_SUCCESS;
    PMIX_PDATA_DESTRUCT(&pd);
    rc = PMIx_Unpublish(keys, NULL, 0);
    printf("pxt_tool: unpublish: %s\n", PMIx_Error_string(rc));
    fail |= rc != PMIX_SUCCESS;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIx_Argv_append_nosize(&q.keys, "pxhost.qry.test");
    rc = PMIx_Query_info(&q, 1, &res, &nres);
    printf("pxt_tool: query: %s\n", PMIx_Error_string(rc));
    fail |= rc != PMIX_SUCCESS;
    PMIX_QUERY_DESTRUCT(&q);
    if (res != NULL)
        PMIx_Info_free(res, nres);
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, ev_handler, NULL, NULL);
    printf("pxt_tool: register %d: %s\n", code, rc < 0 ? PMIx_Error_string(rc) : "PMIX_SUCCESS");
    if (rc < 0)
        return 1;
    rc = PMIx_Deregister_event_handler((size_t)rc, NULL, NULL);
    fail |= rc != PMIX_SUCCESS;
    return fail;
}

static int notify(int code)
{
    pmix_info_t ni;
    PMIx_Info_load(&ni, PMIX_EVENT_TEXT_MESSAGE, "from pxt_tool", PMIX_STRING);
    pmix_status_t rc = PMIx_Notify_event(code, NULL, PMIX_RANGE_SESSION, &ni, 1, NULL, NULL);
    PMIx_Info_destruct(&ni);
    printf("pxt_tool: notify %d: %s\n", code, PMIx_Error_string(rc));
    return rc == PMIX_SUCCESS ? 0 : 1;
}

static int print_uri(const pmix_proc_t *me)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(me, PMIX_MYSERVER_URI, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_STRING) {
        printf("pxt_tool: PMIx_Get(PMIX_MYSERVER_URI): %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("pxt_tool: my server uri %s\n", v->data.string);
    PMIx_Value_free(v, 1);
    return 0;
}

static int print_parent(const pmix_proc_t *me);

static int directives(const pmix_proc_t *me)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(me, PMIX_LAUNCH_DIRECTIVES, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_DATA_ARRAY || v->data.darray->type != PMIX_INFO) {
        printf("pxt_tool: PMIx_Get(PMIX_LAUNCH_DIRECTIVES): %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_info_t *d = v->data.darray->array;
    for (size_t i = 0; i < v->data.darray->size; i++) {
        char *val = PMIx_Value_string(&d[i].value);
        printf("pxt_tool: directive %s=%s\n", d[i].key, val ? val : "?");
        free(val);
    }
    PMIx_Value_free(v, 1);
    return print_parent(me);
}

static int print_parent(const pmix_proc_t *me)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(me, PMIX_PARENT_ID, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_PROC) {
        printf("pxt_tool: PMIx_Get(PMIX_PARENT_ID): %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("pxt_tool: parent %s:%u\n", v->data.proc->nspace, v->data.proc->rank);
    PMIx_Value_free(v, 1);
    return 0;
}

/* --self-spawn: the job-end event's exit code */
static int end_code = -1;
static pmix_nspace_t end_ns;

static void end_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                        pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)source, (void)results, (void)nresults;
    pthread_mutex_lock(&ev_lock);
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE))
            PMIx_Value_get_number(&info[i].value, &end_code, PMIX_INT);
        else if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING)
            PMIX_LOAD_NSPACE(end_ns, info[i].value.data.string);
    }
    ev_count++;
    pthread_cond_broadcast(&ev_cond);
    pthread_mutex_unlock(&ev_lock);
    cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static bool local_output;

static int self_spawn(const pmix_proc_t *me, char **prog)
{
    pmix_value_t *u = NULL;
    pmix_status_t rc = PMIx_Get(me, PMIX_MYSERVER_URI, NULL, 0, &u);
    if (rc != PMIX_SUCCESS) {
        printf("pxt_tool: no URI of my own: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_status_t code = PMIX_EVENT_JOB_END;
    PMIx_Register_event_handler(&code, 1, NULL, 0, end_handler, NULL, NULL);
    char *env = NULL;
    if (asprintf(&env, "PMIX_LAUNCHER_RNDZ_URI=%s", u->data.string) < 0)
        return 1;
    PMIx_Value_free(u, 1);
    char *envv[] = {env, NULL};
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(prog[0]);
    for (int i = 0; prog[i] != NULL; i++)
        PMIx_Argv_append_nosize(&app.argv, prog[i]);
    app.env = PMIx_Argv_copy(envv);
    app.maxprocs = 1;
    free(env);
    void *dl = PMIx_Info_list_start(), *jl = PMIx_Info_list_start();
    int t = 7;
    bool yes = true;
    PMIx_Info_list_add(dl, PMIX_TIMEOUT, &t, PMIX_INT);
    PMIx_Info_list_add(dl, PMIX_MAPBY, "slot", PMIX_STRING);
    pmix_data_array_t da;
    PMIx_Info_list_convert(dl, &da);
    PMIx_Info_list_add(jl, PMIX_LAUNCH_DIRECTIVES, &da, PMIX_DATA_ARRAY);
    PMIx_Info_list_add(jl, PMIX_FWD_STDOUT, &yes, PMIX_BOOL);
    if (local_output)
        PMIx_Info_list_add(jl, PMIX_IOF_LOCAL_OUTPUT, &yes, PMIX_BOOL);
    pmix_data_array_t ja;
    PMIx_Info_list_convert(jl, &ja);
    PMIx_Info_list_release(dl);
    PMIx_Info_list_release(jl);
    PMIX_DATA_ARRAY_DESTRUCT(&da);
    pmix_nspace_t ns;
    rc = PMIx_Spawn(ja.array, ja.size, &app, 1, ns);
    printf("pxt_tool: spawned %s: %s\n", rc == PMIX_SUCCESS ? ns : "-", PMIx_Error_string(rc));
    PMIX_DATA_ARRAY_DESTRUCT(&ja);
    PMIX_APP_DESTRUCT(&app);
    if (rc != PMIX_SUCCESS)
        return 1;
    if (wait_count(&ev_count, 1, 30000) == 0) {
        printf("pxt_tool: no job end from %s\n", ns);
        return 1;
    }
    printf("pxt_tool: job %s ended, exit code %d\n", end_ns, end_code);
    return strcmp(end_ns, ns) != 0;
}

static pmix_info_t info[16];
static size_t n;

static void free_info(void)
{
    for (size_t i = 0; i < n; i++)
        PMIx_Info_destruct(&info[i]);
}

int main(int argc, char **argv)
{
    const char *expect = NULL, *get = NULL;
    const char *until = NULL, *end_until = NULL; /* --linger-until, --end-until */
    bool check_env = false, yes = true;
    uint32_t u32;
    pid_t pid, second = 0;
    int timeout, linger_ms = 0, wait_code = 0;
    bool wait_ev = false, late_ev = false, do_upcalls = false, want_uri = false;
    int notify_code = 0, reply_code = 0;
    bool want_dirs = false, want_parent = false;
    char **spawn_prog = NULL;
    const char *tmpdir = NULL;

    setvbuf(stdout, NULL, _IOLBF, 0);
    atexit(free_info);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDV()                                                                                    \
    do {                                                                                           \
        if (v == NULL)                                                                             \
            die("%s needs a value", a);                                                            \
        i++;                                                                                       \
    } while (0)
        if (n >= 14)
            die("%s", "too many options");
        if (!strcmp(a, "--uri")) {
            NEEDV();
            PMIx_Info_load(&info[n++], PMIX_SERVER_URI, v, PMIX_STRING);
        } else if (!strcmp(a, "--tcp-uri")) {
            NEEDV();
            PMIx_Info_load(&info[n++], PMIX_TCP_URI, v, PMIX_STRING);
        } else if (!strcmp(a, "--attach-file")) {
            NEEDV();
            PMIx_Info_load(&info[n++], PMIX_TOOL_ATTACHMENT_FILE, v, PMIX_STRING);
        } else if (!strcmp(a, "--pid")) {
            NEEDV();
            pid = (pid_t)atoi(v);
            PMIx_Info_load(&info[n++], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
        } else if (!strcmp(a, "--server-nspace")) {
            NEEDV();
            PMIx_Info_load(&info[n++], PMIX_SERVER_NSPACE, v, PMIX_STRING);
        } else if (!strcmp(a, "--system")) {
            PMIx_Info_load(&info[n++], PMIX_CONNECT_TO_SYSTEM, &yes, PMIX_BOOL);
        } else if (!strcmp(a, "--system-first")) {
            PMIx_Info_load(&info[n++], PMIX_CONNECT_SYSTEM_FIRST, &yes, PMIX_BOOL);
        } else if (!strcmp(a, "--tmpdir")) {
            NEEDV();
            tmpdir = v;
            PMIx_Info_load(&info[n++], PMIX_SERVER_TMPDIR, v, PMIX_STRING);
        } else if (!strcmp(a, "--systmpdir")) {
            NEEDV();
            PMIx_Info_load(&info[n++], PMIX_SYSTEM_TMPDIR, v, PMIX_STRING);
        } else if (!strcmp(a, "--nspace")) {
            NEEDV();
            PMIx_Info_load(&info[n++], PMIX_TOOL_NSPACE, v, PMIX_STRING);
        } else if (!strcmp(a, "--rank")) {
            NEEDV();
            u32 = (uint32_t)atoi(v);
            PMIx_Info_load(&info[n++], PMIX_TOOL_RANK, &u32, PMIX_PROC_RANK);
        } else if (!strcmp(a, "--do-not-connect")) {
            PMIx_Info_load(&info[n++], PMIX_TOOL_DO_NOT_CONNECT, &yes, PMIX_BOOL);
        } else if (!strcmp(a, "--optional")) {
            PMIx_Info_load(&info[n++], PMIX_TOOL_CONNECT_OPTIONAL, &yes, PMIX_BOOL);
        } else if (!strcmp(a, "--launcher")) {
            PMIx_Info_load(&info[n++], PMIX_LAUNCHER, &yes, PMIX_BOOL);
        } else if (!strcmp(a, "--retries")) {
            NEEDV();
            u32 = (uint32_t)atoi(v);
            PMIx_Info_load(&info[n++], PMIX_CONNECT_MAX_RETRIES, &u32, PMIX_UINT32);
        } else if (!strcmp(a, "--delay")) {
            NEEDV();
            u32 = (uint32_t)atoi(v);
            PMIx_Info_load(&info[n++], PMIX_CONNECT_RETRY_DELAY, &u32, PMIX_UINT32);
        } else if (!strcmp(a, "--wait")) {
            PMIx_Info_load(&info[n++], PMIX_WAIT_FOR_CONNECTION, &yes, PMIX_BOOL);
        } else if (!strcmp(a, "--timeout")) {
            NEEDV();
            timeout = atoi(v);
            PMIx_Info_load(&info[n++], PMIX_TIMEOUT, &timeout, PMIX_INT);
        } else if (!strcmp(a, "--expect")) {
            NEEDV();
            expect = v;
        } else if (!strcmp(a, "--get")) {
            NEEDV();
            get = v;
        } else if (!strcmp(a, "--check-env")) {
            check_env = true;
        } else if (!strcmp(a, "--second-pid")) {
            NEEDV();
            second = (pid_t)atoi(v);
        } else if (!strcmp(a, "--linger")) {
            NEEDV();
            linger_ms = atoi(v);
        } else if (!strcmp(a, "--linger-until")) {
            NEEDV();
            until = v;
        } else if (!strcmp(a, "--wait-event")) {
            NEEDV();
            wait_code = atoi(v);
            wait_ev = true;
        } else if (!strcmp(a, "--late-event")) {
            NEEDV();
            wait_code = atoi(v);
            late_ev = true;
        } else if (!strcmp(a, "--end-until")) {
            NEEDV();
            end_until = v;
        } else if (!strcmp(a, "--directives")) {
            want_dirs = true;
        } else if (!strcmp(a, "--local-output")) {
            local_output = true;
        } else if (!strcmp(a, "--parent")) {
            want_parent = true;
        } else if (!strcmp(a, "--self-spawn")) {
            if (i + 2 >= argc || strcmp(argv[i + 1], "--") != 0)
                die("%s needs -- PROG", a);
            spawn_prog = &argv[i + 2];
            break;
        } else if (!strcmp(a, "--print-uri")) {
            want_uri = true;
        } else if (!strcmp(a, "--notify")) {
            NEEDV();
            notify_code = atoi(v);
        } else if (!strcmp(a, "--reply")) {
            NEEDV();
            reply_code = atoi(v);
        } else if (!strcmp(a, "--upcalls")) {
            do_upcalls = true;
        } else if (!strcmp(a, "--raw-tcp")) {
            NEEDV();
            return raw_tcp(v);
        } else {
            die("unknown option %s", a);
        }
    }

    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, n ? info : NULL, n);
    if (check_env) {
        const char *vars[] = {"PMIX_LAUNCHER_RNDZ_URI", "PMIX_LAUNCHER_RNDZ_FILE",
                              "PMIX_KEEPALIVE_PIPE"};
        for (int i = 0; i < 3; i++) {
            printf("pxt_tool: %s %s\n", vars[i], getenv(vars[i]) ? "still set" : "cleared");
            if (getenv(vars[i]) != NULL)
                return 1;
        }
    }
    if (expect != NULL) {
        if (rc == PMIX_SUCCESS) {
            printf("pxt_tool: PMIx_tool_init succeeded, expected %s\n", expect);
            PMIx_tool_finalize();
            return 1;
        }
        printf("pxt_tool: PMIx_tool_init failed: %s%s\n", PMIx_Error_string(rc),
               strcmp(PMIx_Error_string(rc), expect) ? "" : " (as expected)");
        return strcmp(PMIx_Error_string(rc), expect) ? 1 : 0;
    }
    if (rc != PMIX_SUCCESS) {
        printf("pxt_tool: PMIx_tool_init failed: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("pxt_tool: id %s:%u connected %s\n", me.nspace, me.rank,
           PMIx_tool_is_connected() ? "yes" : "no");
    print_servers("after init");
    int fail = 0;
    if (want_uri && print_uri(&me) != 0)
        fail = 1;
    if (want_dirs && directives(&me) != 0)
        fail = 1;
    if (want_parent && print_parent(&me) != 0)
        fail = 1;
    if (spawn_prog != NULL && self_spawn(&me, spawn_prog) != 0)
        fail = 1;
    if (notify_code != 0 && notify(notify_code) != 0)
        fail = 1;
    if (linger_ms > 0)
        usleep((useconds_t)linger_ms * 1000);
    if (until != NULL && linger_until(until) != 0)
        fail = 1;
    if (wait_ev && wait_event(wait_code) != 0)
        fail = 1;
    if (reply_code != 0 && notify(reply_code) != 0)
        fail = 1;
    if (late_ev && late_event(wait_code) != 0)
        fail = 1;
    if (get != NULL && do_get(get) != 0)
        fail = 1;
    if (do_upcalls && upcalls() != 0)
        fail = 1;
    if (second > 0) {
        pmix_proc_t srv, me2, first;
        pmix_info_t ai[2];
        pmix_proc_t *s = NULL;
        size_t ns = 0;
        PMIx_tool_get_servers(&s, &ns);
        first = ns > 0 ? s[0] : me;
        if (s != NULL)
            PMIx_Proc_free(s, ns);
        PMIx_Info_load(&ai[0], PMIX_SERVER_PIDINFO, &second, PMIX_PID);
        if (tmpdir != NULL)
            PMIx_Info_load(&ai[1], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
        rc = PMIx_tool_attach_to_server(&me2, &srv, ai, tmpdir ? 2 : 1);
        PMIx_Info_destruct(&ai[0]);
        if (tmpdir != NULL)
            PMIx_Info_destruct(&ai[1]);
        printf("pxt_tool: attach_to_server: %s server %s:%u id %s:%u\n", PMIx_Error_string(rc),
               srv.nspace, srv.rank, me2.nspace, me2.rank);
        if (rc != PMIX_SUCCESS)
            return 1;
        print_servers("after attach");
        rc = PMIx_tool_set_server(&srv, NULL, 0);
        printf("pxt_tool: set_server: %s\n", PMIx_Error_string(rc));
        print_servers("after set_server");
        if (get != NULL && ask_server(get, "after set_server") != PMIX_SUCCESS)
            fail = 1;
        rc = PMIx_tool_disconnect(&srv);
        printf("pxt_tool: disconnect: %s connected %s\n", PMIx_Error_string(rc),
               PMIx_tool_is_connected() ? "yes" : "no");
        print_servers("after disconnect");
        if (get != NULL && ask_server(get, "unconnected") != PMIX_ERR_UNREACH)
            fail = 1;
        rc = PMIx_tool_set_server(&first, NULL, 0);
        printf("pxt_tool: set_server back: %s connected %s\n", PMIx_Error_string(rc),
               PMIx_tool_is_connected() ? "yes" : "no");
        if (get != NULL && ask_server(get, "after set_server back") != PMIX_SUCCESS)
            fail = 1;
        rc = PMIx_tool_disconnect(&srv);
        printf("pxt_tool: disconnect again: %s\n", PMIx_Error_string(rc));
    }
    if (end_until != NULL && linger_until(end_until) != 0)
        fail = 1;
    rc = PMIx_tool_finalize();
    printf("pxt_tool: finalize: %s\n", PMIx_Error_string(rc));
    return fail || rc != PMIX_SUCCESS;
}
