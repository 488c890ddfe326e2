/* server_init_check: PMIx_server_init/finalize seen from a host, checked end to end.
 *   server_init_check rndz DIR     rendezvous files: names, mode 0600, stale/live files,
 *                                  the launcher file, removal at finalize
 *   server_init_check twice        a second init and a second finalize are refused
 *   server_init_check badargs      the server API's answers to bad input
 *   server_init_check module422    the plain PMIx_server_init symbol (what a host built
 *                                  against 4.2.2 headers calls) reads only a 4.2.2-sized
 *                                  module (ASan catches a read past it)
 *   server_init_check evbase CLIENT [ARGS]  the host's own event base (PMIX_EVENT_BASE),
 *                                  run single-threaded by this program, serves a real
 *                                  client; setup_fork's environment carries the job env
 *   server_init_check query        the server process's own PMIx_Query_info(_nb): library
 *                                  keys answered locally, the rest by its module's query
 *                                  upcall; a child not connected to any server finds it
 *                                  with PMIX_QUERY_AVAIL_SERVERS (mode "avail URI")
 *   server_init_check nodata       PMIx_server_register_nspace with PMIX_REGISTER_NODATA
 *                                  registers the namespace and none of the data given
 *   server_init_check notify-none  PMIx_Notify_event from the server, range beyond the
 *                                  node, no notify_event upcall: PMIX_ERR_NOT_SUPPORTED
 *                                  (no callback); node-local ranges still succeed
 *   server_init_check setup        PMIx_server_setup_application returns the environment
 *                                  to forward (PMIX_MCA_*) and the programming model,
 *                                  refuses fabric requests; setup_local_support makes
 *                                  setup_fork apply that environment
 *   server_init_check regevents    the server's own handlers for host-only codes: the
 *                                  host's register_events once per code, deregister_events
 *                                  when the last handler holding it is gone
 * Exit 0 when every check holds; otherwise a message naming the check.
 */
#include <errno.h>
#include <pthread.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <signal.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <stdbool.h>
#include <unistd.h>

#include <pmix_server.h>

static int failures = 0;

static void check(int ok, const char *fmt, ...)
{
    if (ok) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "server_init_check: FAILED: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    failures++;
}

static char *path_of(const char *dir, const char *fmt, const char *a)
{
    char name[512], *p = NULL;
    snprintf(name, sizeof(name), fmt, a);
    if (asprintf(&p, "%s/%s", dir, name) < 0) {
        exit(2);
    }
    return p;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "server_init_check: cannot write %s\n", path);
        exit(2);
    }
}

static char *read_file(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return NULL;
    }
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* A rendezvous file of ours: mode 0600, "URI\nversion\npid\n", URI naming a live socket. */
static void check_rndz(const char *path)
{
    struct stat sb;
    check(stat(path, &sb) == 0, "%s does not exist", path);
    check((sb.st_mode & 0777) == 0600, "%s has mode %o, not 0600", path, sb.st_mode & 0777);
    char *text = read_file(path);
    check(text != NULL, "cannot read %s", path);
    if (text == NULL) {
        return;
    }
    char uri[1024], version[64];
    int pid = 0;
    check(sscanf(text, "%1023s %63s %d", uri, version, &pid) == 3, "%s: malformed \"%s\"", path,
          text);
    check(pid == (int)getpid(), "%s: pid %d, expected %d", path, pid, (int)getpid());
    const char *sock = strstr(uri, ";usock:");
    check(sock != NULL, "%s: URI \"%s\" has no usock address", path, uri);
    if (sock != NULL) {
        check(stat(sock + 7, &sb) == 0 && S_ISSOCK(sb.st_mode), "%s: %s is not a socket", path,
              sock + 7);
    }
}

static int do_rndz(const char *dir)
{
    char host[256];
    gethostname(host, sizeof(host));
    /* a stale file (its pid is dead) is replaced; a live server's file is left alone */
    pid_t dead = fork();
    if (dead == 0) {
        _exit(0);
    }
    waitpid(dead, NULL, 0);
    char text[128];
    char *tool = path_of(dir, "pmix.%s.tool", host);
    snprintf(text, sizeof(text), "old.0;usock:/nonexistent\n4.2.2\n%d\n", (int)dead);
    write_file(tool, text);
    char *sys = path_of(dir, "pmix.sys.%s", host);
    snprintf(text, sizeof(text), "other.0;usock:/elsewhere\n4.2.2\n%d\n", (int)getppid());
    write_file(sys, text);
    char *launcher = path_of(dir, "%s", "launcher.rndz");

    pmix_info_t info[6];
    bool yes = true;
    for (int i = 0; i < 6; i++) {
        PMIx_Info_construct(&info[i]);
    }
    PMIx_Info_load(&info[0], PMIX_SERVER_TMPDIR, dir, PMIX_STRING);
    PMIx_Info_load(&info[1], PMIX_SYSTEM_TMPDIR, dir, PMIX_STRING);
    PMIx_Info_load(&info[2], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    PMIx_Info_load(&info[3], PMIX_SERVER_SYSTEM_SUPPORT, &yes, PMIX_BOOL);
    PMIx_Info_load(&info[4], PMIX_SERVER_NSPACE, "rndz-ns", PMIX_STRING);
    PMIx_Info_load(&info[5], PMIX_LAUNCHER_RENDEZVOUS_FILE, launcher, PMIX_STRING);
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    pmix_status_t rc = PMIx_server_init(&module, info, 6);
    check(rc == PMIX_SUCCESS, "PMIx_server_init: %s", PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) {
        return 1;
    }
    char pid[32];
    snprintf(pid, sizeof(pid), "%d", (int)getpid());
    char *by_ns = path_of(dir, "pmix.%s.tool.rndz-ns", host);
    char *by_pid = path_of(dir, "pmix.%s.tool.", host);
    char *by_pid_full = NULL;
    if (asprintf(&by_pid_full, "%s%s", by_pid, pid) < 0) {
        return 2;
    }
    check_rndz(by_ns);
    check_rndz(by_pid_full);
    check_rndz(tool); /* the stale one was replaced */
    check_rndz(launcher);
    char *systext = read_file(sys);
    check(systext != NULL && strstr(systext, "other.0;usock:/elsewhere") != NULL,
          "the live system server's file %s was replaced", sys);
    rc = PMIx_server_finalize();
    check(rc == PMIX_SUCCESS, "PMIx_server_finalize: %s", PMIx_Error_string(rc));
    check(access(by_ns, F_OK) != 0, "%s left behind", by_ns);
    check(access(by_pid_full, F_OK) != 0, "%s left behind", by_pid_full);
    check(access(tool, F_OK) != 0, "%s left behind", tool);
    check(access(launcher, F_OK) != 0, "%s left behind", launcher);
    check(access(sys, F_OK) == 0, "another server's %s was removed", sys);
    unlink(sys);
    for (int i = 0; i < 6; i++) {
        PMIx_Info_destruct(&info[i]);
    }
    free(tool);
    free(sys);
    free(launcher);
    free(by_ns);
    free(by_pid);
    free(by_pid_full);
    return failures ? 1 : 0;
}

static int do_twice(void)
{
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    pmix_status_t rc = PMIx_server_init(&module, NULL, 0);
    check(rc == PMIX_SUCCESS, "first PMIx_server_init: %s", PMIx_Error_string(rc));
    rc = PMIx_server_init(&module, NULL, 0);
    check(rc != PMIX_SUCCESS, "second PMIx_server_init succeeded");
    rc = PMIx_server_finalize();
    check(rc == PMIX_SUCCESS, "PMIx_server_finalize: %s", PMIx_Error_string(rc));
    rc = PMIx_server_finalize();
    check(rc != PMIX_SUCCESS, "second PMIx_server_finalize succeeded");
    /* and the library can be brought up again */
    rc = PMIx_server_init(&module, NULL, 0);
    check(rc == PMIX_SUCCESS, "PMIx_server_init after finalize: %s", PMIx_Error_string(rc));
    PMIx_server_finalize();
    return failures ? 1 : 0;
}

static void expect(pmix_status_t got, pmix_status_t want, const char *what)
{
    check(got == want, "%s: expected %s, got %s", what, PMIx_Error_string(want),
          PMIx_Error_string(got));
}

/* PMIx_server_IOF_deliver's callback: once, later, never inside the call. */
static pthread_mutex_t iof_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t iof_cond = PTHREAD_COND_INITIALIZER;
static int iof_calls;
static bool iof_inside;

static void iof_done(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    pthread_mutex_lock(&iof_lock);
    check(!iof_inside, "IOF_deliver: callback inside the call");
    check(status == PMIX_SUCCESS, "IOF_deliver callback: %s", PMIx_Error_string(status));
    iof_calls++;
    pthread_cond_broadcast(&iof_cond);
    pthread_mutex_unlock(&iof_lock);
}

static void check_iof_deliver(const pmix_proc_t *proc)
{
    pmix_byte_object_t bo = {"data", 4}, nobytes = {NULL, 4};
    expect(PMIx_server_IOF_deliver(NULL, PMIX_FWD_STDOUT_CHANNEL, &bo, NULL, 0, iof_done, NULL),
           PMIX_ERR_BAD_PARAM, "IOF_deliver(NULL source)");
    expect(PMIx_server_IOF_deliver(proc, 0, &bo, NULL, 0, iof_done, NULL), PMIX_ERR_BAD_PARAM,
           "IOF_deliver(no channel)");
    expect(PMIx_server_IOF_deliver(proc, PMIX_FWD_STDIN_CHANNEL, &bo, NULL, 0, iof_done, NULL),
           PMIX_ERR_BAD_PARAM, "IOF_deliver(stdin channel)");
    expect(
        PMIx_server_IOF_deliver(proc, PMIX_FWD_STDOUT_CHANNEL, &nobytes, NULL, 0, iof_done, NULL),
        PMIX_ERR_BAD_PARAM, "IOF_deliver(size 4, NULL bytes)");
    expect(PMIx_server_IOF_deliver(proc, PMIX_FWD_STDOUT_CHANNEL, &bo, NULL, 1, iof_done, NULL),
           PMIX_ERR_BAD_PARAM, "IOF_deliver(NULL info, n=1)");
    /* nobody is a sink: still accepted, and the callback comes once, later */
    pthread_mutex_lock(&iof_lock);
    iof_inside = true;
    expect(PMIx_server_IOF_deliver(proc, PMIX_FWD_STDOUT_CHANNEL, &bo, NULL, 0, iof_done, NULL),
           PMIX_SUCCESS, "IOF_deliver");
    expect(PMIx_server_IOF_deliver(proc, PMIX_FWD_STDERR_CHANNEL, NULL, NULL, 0, iof_done, NULL),
           PMIX_SUCCESS, "IOF_deliver(no bytes)");
    iof_inside = false;
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end);
    end.tv_sec += 10;
    while (iof_calls < 2 && pthread_cond_timedwait(&iof_cond, &iof_lock, &end) == 0) {
    }
    pthread_mutex_unlock(&iof_lock);
    usleep(100000);
    check(iof_calls == 2, "IOF_deliver: %d callbacks for 2 calls", iof_calls);
    expect(PMIx_server_IOF_deliver(proc, PMIX_FWD_STDOUT_CHANNEL, &bo, NULL, 0, NULL, NULL),
           PMIX_OPERATION_SUCCEEDED, "IOF_deliver(NULL cbfunc)");
}

static int do_badargs(void)
{
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, "bad");
    pmix_proc_t proc;
    PMIx_Load_procid(&proc, "bad", 0);
    char **env = NULL;
    expect(PMIx_server_register_nspace(ns, 1, NULL, 0, NULL, NULL), PMIX_ERR_INIT,
           "register_nspace before init");
    expect(PMIx_server_setup_fork(&proc, &env), PMIX_ERR_INIT, "setup_fork before init");
    expect(PMIx_server_finalize(), PMIX_ERR_INIT, "finalize before init");
    pmix_byte_object_t bo0 = {"x", 1};
    expect(PMIx_server_IOF_deliver(&proc, PMIX_FWD_STDOUT_CHANNEL, &bo0, NULL, 0, NULL, NULL),
           PMIX_ERR_INIT, "IOF_deliver before init");
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    pmix_status_t rc = PMIx_server_init(&module, NULL, 1);
    expect(rc, PMIX_ERR_BAD_PARAM, "init with NULL info, ninfo=1");
    rc = PMIx_server_init(&module, NULL, 0);
    expect(rc, PMIX_SUCCESS, "init");
    if (rc != PMIX_SUCCESS) {
        return 1;
    }
    expect(PMIx_server_register_nspace(NULL, 1, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
           "register_nspace(NULL)");
    expect(PMIx_server_register_nspace(ns, 1, NULL, 2, NULL, NULL), PMIX_ERR_BAD_PARAM,
           "register_nspace(NULL info, n=2)");
    pmix_info_t badmap;
    PMIx_Info_construct(&badmap);
    PMIx_Info_load(&badmap, PMIX_NODE_MAP, "pmix:n[5-3]", PMIX_STRING);
    expect(PMIx_server_register_nspace(ns, 1, &badmap, 1, NULL, NULL), PMIX_ERR_BAD_PARAM,
           "register_nspace with a malformed node map");
    PMIx_Info_destruct(&badmap);
    expect(PMIx_server_setup_fork(&proc, &env), PMIX_SUCCESS,
           "setup_fork of an unknown namespace (connection env only)");
    PMIx_Argv_free(env);
    expect(PMIx_server_setup_fork(&proc, NULL), PMIX_ERR_BAD_PARAM, "setup_fork(NULL env)");
    pmix_proc_t wild;
    PMIx_Load_procid(&wild, "bad", PMIX_RANK_WILDCARD);
    expect(PMIx_server_register_client(&wild, getuid(), getgid(), NULL, NULL, NULL),
           PMIX_ERR_BAD_PARAM, "register_client(wildcard rank)");
    expect(PMIx_server_register_client(&proc, getuid(), getgid(), NULL, NULL, NULL), PMIX_SUCCESS,
           "register_client");
    expect(PMIx_server_register_client(&proc, getuid(), getgid(), NULL, NULL, NULL), PMIX_EXISTS,
           "register_client twice");
    expect(PMIx_server_define_process_set(&proc, 1, NULL), PMIX_ERR_BAD_PARAM,
           "define_process_set(NULL name)");
    expect(PMIx_server_define_process_set(NULL, 2, "p"), PMIX_ERR_BAD_PARAM,
           "define_process_set(NULL members, n=2)");
    expect(PMIx_server_define_process_set(&proc, 1, "p"), PMIX_SUCCESS, "define_process_set");
    expect(PMIx_server_define_process_set(&proc, 1, "p"), PMIX_EXISTS, "define_process_set twice");
    expect(PMIx_server_delete_process_set("p"), PMIX_SUCCESS, "delete_process_set");
    expect(PMIx_server_delete_process_set("p"), PMIX_ERR_NOT_FOUND, "delete_process_set twice");
    expect(PMIx_server_dmodex_request(&proc, NULL, NULL), PMIX_ERR_BAD_PARAM,
           "dmodex_request(NULL cb)");
    expect(PMIx_server_setup_application(ns, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
           "setup_application(NULL cb)");
    expect(PMIx_Register_attributes(NULL, NULL), PMIX_ERR_BAD_PARAM, "Register_attributes(NULL)");
    check_iof_deliver(&proc);
    PMIx_server_deregister_nspace(ns, NULL, NULL);
    expect(PMIx_server_finalize(), PMIX_SUCCESS, "finalize");
    return failures ? 1 : 0;
}

/* The symbol a 4.2.2-built host binds PMIx_server_init to. */
extern pmix_status_t init_symbol_422(pmix_server_module_t *module, pmix_info_t info[],
                                     size_t ninfo) __asm__("PMIx_server_init");

static int do_module422(void)
{
    /* 4.2.2's module ends before client_connected2 */
    size_t size = offsetof(pmix_server_module_t, client_connected2);
    pmix_server_module_t *module = calloc(1, size);
    if (module == NULL) {
        return 2;
    }
    pmix_status_t rc = init_symbol_422(module, NULL, 0);
    check(rc == PMIX_SUCCESS, "PMIx_server_init (4.2.2 symbol): %s", PMIx_Error_string(rc));
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_server_finalize();
        check(rc == PMIX_SUCCESS, "PMIx_server_finalize: %s", PMIx_Error_string(rc));
    }
    free(module);
    return failures ? 1 : 0;
}

/* ---- evbase: a single-threaded host ---- */

static pid_t child = -1;
static int child_status = -1;
static struct event_base *base;

static void poll_child(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    int st;
    if (waitpid(child, &st, WNOHANG) == child) {
        child_status = st;
        event_base_loopbreak(base);
    }
}

static void give_up(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    fprintf(stderr, "server_init_check: the client did not finish in 20 s\n");
    kill(child, SIGKILL);
    event_base_loopbreak(base);
}

static void op_done(pmix_status_t status, void *cbdata)
{
    *(pmix_status_t *)cbdata = status;
}

static int do_evbase(char **client_argv)
{
    evthread_use_pthreads();
    base = event_base_new();
    char dir[] = "/tmp/pxevb.XXXXXX";
    if (base == NULL || mkdtemp(dir) == NULL) {
        return 2;
    }
    pmix_info_t info[2];
    PMIx_Info_construct(&info[0]);
    PMIx_Info_construct(&info[1]);
    PMIx_Info_load(&info[0], PMIX_EVENT_BASE, base, PMIX_POINTER);
    PMIx_Info_load(&info[1], PMIX_SERVER_TMPDIR, dir, PMIX_STRING);
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    pmix_status_t rc = PMIx_server_init(&module, info, 2);
    check(rc == PMIX_SUCCESS, "PMIx_server_init with PMIX_EVENT_BASE: %s", PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) {
        return 1;
    }
    char host[256], *nodes = NULL, *ppn = NULL;
    gethostname(host, sizeof(host));
    PMIx_generate_regex(host, &nodes);
    PMIx_generate_ppn("0", &ppn);
    pmix_info_t reg[4];
    for (int i = 0; i < 4; i++) {
        PMIx_Info_construct(&reg[i]);
    }
    uint32_t one = 1;
    pmix_envar_t ev = {.envar = "PX_JOB_FLAVOUR", .value = "mint", .separator = ':'};
    PMIx_Info_load(&reg[0], PMIX_JOB_SIZE, &one, PMIX_UINT32);
    PMIx_Info_load(&reg[1], PMIX_NODE_MAP, nodes, PMIX_STRING);
    PMIx_Info_load(&reg[2], PMIX_PROC_MAP, ppn, PMIX_STRING);
    PMIx_Info_load(&reg[3], PMIX_SET_ENVAR, &ev, PMIX_ENVAR);
    pmix_status_t reg_done = PMIX_ERR_TIMEOUT;
    pmix_nspace_t nspace;
    PMIX_LOAD_NSPACE(nspace, "evb");
    rc = PMIx_server_register_nspace(nspace, 1, reg, 4, op_done, &reg_done);
    check(rc == PMIX_SUCCESS, "register_nspace: %s", PMIx_Error_string(rc));
    pmix_proc_t proc;
    PMIx_Load_procid(&proc, "evb", 0);
    rc = PMIx_server_register_client(&proc, getuid(), getgid(), NULL, NULL, NULL);
    check(rc == PMIX_SUCCESS, "register_client: %s", PMIx_Error_string(rc));
    /* nothing runs until our loop does: the callback must not have come yet */
    check(reg_done == PMIX_ERR_TIMEOUT, "register_nspace called back before the host's loop ran");
    char **env = NULL;
    PMIx_Argv_append_nosize(&env, "PATH=/usr/bin:/bin");
    rc = PMIx_server_setup_fork(&proc, &env);
    check(rc == PMIX_SUCCESS, "setup_fork: %s", PMIx_Error_string(rc));
    const char *want[] = {"PMIX_NAMESPACE=evb", "PMIX_RANK=0",
                          "PMIX_SERVER_URI=", "PX_JOB_FLAVOUR=mint"};
    for (size_t w = 0; w < 4; w++) {
        bool found = false;
        for (size_t i = 0; env[i] != NULL; i++) {
            found = found || strncmp(env[i], want[w], strlen(want[w])) == 0;
        }
        check(found, "setup_fork's environment lacks %s", want[w]);
    }
    child = fork();
    if (child == 0) {
        execve(client_argv[0], client_argv, env);
        _exit(127);
    }
    struct event *poll = event_new(base, -1, EV_PERSIST, poll_child, NULL);
    struct event *limit = evtimer_new(base, give_up, NULL);
    struct timeval tick = {0, 10000}, twenty = {20, 0};
    event_add(poll, &tick);
    evtimer_add(limit, &twenty);
    event_base_dispatch(base); /* the only thread that runs the server */
    check(reg_done == PMIX_SUCCESS, "register_nspace's callback: %s", PMIx_Error_string(reg_done));
    check(child_status != -1 && WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0,
          "the client failed (status 0x%x)", child_status);
    rc = PMIx_server_finalize();
    check(rc == PMIX_SUCCESS, "PMIx_server_finalize: %s", PMIx_Error_string(rc));
    for (int i = 0; i < 4; i++) {
        PMIx_Info_destruct(&reg[i]);
    }
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_destruct(&info[1]);
    event_free(poll);
    event_free(limit);
    event_base_free(base);
    PMIx_Argv_free(env);
    free(nodes);
    free(ppn);
    rmdir(dir);
    return failures ? 1 : 0;
}

/* ---- queries in the server process ---- */

typedef struct {
    pmix_info_cbfunc_t cb;
    void *cbdata;
    pmix_info_t answer;
} sic_answer_t;

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static int q_upcalls;
static char q_seen[1024]; /* requester and qualifiers of the last upcall */

static void sic_release(void *arg)
{
    sic_answer_t *a = arg;
    PMIx_Info_destruct(&a->answer);
    free(a);
}

static void *sic_answer(void *arg)
{
    sic_answer_t *a = arg;
    usleep(10000);
    /* the flat (pre-v4) form: plain key/value pairs */
    a->cb(PMIX_SUCCESS, &a->answer, 1, a->cbdata, sic_release, a);
    return NULL;
}

static pmix_status_t sic_query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                               pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    pthread_mutex_lock(&q_lock);
    q_upcalls++;
    int len = snprintf(q_seen, sizeof(q_seen), "%s:%u", proct->nspace, proct->rank);
    for (size_t i = 0; i < nqueries; i++) {
        for (size_t k = 0; queries[i].keys[k] != NULL; k++) {
            len +=
                snprintf(q_seen + len, sizeof(q_seen) - (size_t)len, " key %s", queries[i].keys[k]);
        }
        for (size_t j = 0; j < queries[i].nqual; j++) {
            const pmix_info_t *qi = &queries[i].qualifiers[j];
            len += snprintf(q_seen + len, sizeof(q_seen) - (size_t)len, " qual %s=%s", qi->key,
                            qi->value.type == PMIX_STRING ? qi->value.data.string : "?");
        }
    }
    pthread_mutex_unlock(&q_lock);
    sic_answer_t *a = calloc(1, sizeof(*a));
    pthread_t t;
    if (a == NULL) {
        return PMIX_ERR_NOMEM;
    }
    a->cb = cbfunc;
    a->cbdata = cbdata;
    PMIx_Info_construct(&a->answer);
    PMIx_Info_load(&a->answer, "sic.host", "host-answer", PMIX_STRING);
    if (pthread_create(&t, NULL, sic_answer, a) != 0) {
        sic_release(a);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    pthread_detach(t);
    return PMIX_SUCCESS;
}

static const pmix_value_t *answer_of(const pmix_info_t *r, size_t m, const char *key)
{
    for (size_t j = 0; r != NULL && j < m; j++) {
        if (PMIX_CHECK_KEY(&r[j], key)) {
            return &r[j].value;
        }
    }
    return NULL;
}

static void set_query(pmix_query_t *q, const char *k1, const char *k2, const char *qkey,
                      const void *qval, pmix_data_type_t qtype)
{
    PMIX_QUERY_CONSTRUCT(q);
    PMIx_Argv_append_nosize(&q->keys, k1);
    if (k2 != NULL) {
        PMIx_Argv_append_nosize(&q->keys, k2);
    }
    if (qkey != NULL) {
        q->qualifiers = PMIx_Info_create(1);
        q->nqual = 1;
        PMIx_Info_load(&q->qualifiers[0], qkey, qval, qtype);
    }
}

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int calls;
    bool inside;
    pmix_status_t status;
    char answer[64];
} nbq_t;

static void nb_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t relfn, void *relcbdata)
{
    nbq_t *s = cbdata;
    const pmix_value_t *v = answer_of(info, ninfo, "sic.host");
    pthread_mutex_lock(&s->lock);
    s->calls++;
    s->status = status;
    if (v != NULL && v->type == PMIX_STRING) {
        snprintf(s->answer, sizeof(s->answer), "%s", v->data.string);
    }
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->lock);
    if (relfn != NULL) {
        relfn(relcbdata);
    }
}

/* A process that never called any init: the servers on this node, from their files. */
static int do_avail(const char *uri)
{
    pmix_query_t q;
    pmix_info_t *res = NULL;
    size_t n = 0;
    set_query(&q, PMIX_QUERY_AVAIL_SERVERS, NULL, NULL, NULL, PMIX_UNDEF);
    pmix_status_t rc = PMIx_Query_info(&q, 1, &res, &n);
    check(rc == PMIX_SUCCESS, "avail: PMIx_Query_info(AVAIL_SERVERS) before init: %s",
          PMIx_Error_string(rc));
    const pmix_value_t *v = answer_of(res, n, PMIX_QUERY_AVAIL_SERVERS);
    check(n == 1 && v != NULL && v->type == PMIX_DATA_ARRAY,
          "avail: no PMIX_QUERY_AVAIL_SERVERS answer (%zu results)", n);
    bool found = false;
    for (size_t i = 0; v != NULL && v->type == PMIX_DATA_ARRAY && i < v->data.darray->size; i++) {
        const pmix_info_t *srv = &((const pmix_info_t *)v->data.darray->array)[i];
        const pmix_data_array_t *da = srv->value.data.darray;
        const pmix_value_t *u = answer_of(da->array, da->size, PMIX_SERVER_URI);
        check(PMIX_CHECK_KEY(srv, PMIX_SERVER_INFO_ARRAY) &&
                  PMIX_CHECK_KEY(&((const pmix_info_t *)da->array)[0], PMIX_NSPACE),
              "avail: a server entry is not a PMIX_SERVER_INFO_ARRAY starting with PMIX_NSPACE");
        fprintf(stderr, "server_init_check: avail: server %s\n", u ? u->data.string : "?");
        found = found || (u != NULL && strcmp(u->data.string, uri) == 0);
    }
    check(found, "avail: the server %s is not among the available servers", uri);
    PMIx_Info_free(res, n);
    PMIX_QUERY_DESTRUCT(&q);
    set_query(&q, PMIX_QUERY_NAMESPACES, NULL, NULL, NULL, PMIX_UNDEF);
    rc = PMIx_Query_info(&q, 1, &res, &n);
    check(rc == PMIX_ERR_INIT, "avail: PMIx_Query_info(NAMESPACES) before init: %s",
          PMIx_Error_string(rc));
    PMIX_QUERY_DESTRUCT(&q);
    return failures ? 1 : 0;
}

static int do_query(const char *self)
{
    char dir[] = "/tmp/pxsicq.XXXXXX";
    if (mkdtemp(dir) == NULL) {
        return 2;
    }
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    module.query = sic_query;
    pmix_info_t info[4];
    bool yes = true;
    PMIx_Info_load(&info[0], PMIX_SERVER_TMPDIR, dir, PMIX_STRING);
    PMIx_Info_load(&info[1], PMIX_SYSTEM_TMPDIR, dir, PMIX_STRING);
    PMIx_Info_load(&info[2], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    PMIx_Info_load(&info[3], PMIX_SERVER_SYSTEM_SUPPORT, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_server_init(&module, info, 4);
    for (int i = 0; i < 4; i++) {
        PMIx_Info_destruct(&info[i]);
    }
    check(rc == PMIX_SUCCESS, "PMIx_server_init: %s", PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) {
        rmdir(dir);
        return 1;
    }
    pmix_info_t reg;
    uint32_t two = 2;
    PMIx_Info_load(&reg, PMIX_JOB_SIZE, &two, PMIX_UINT32);
    pmix_status_t reg_done = PMIX_ERR_TIMEOUT;
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, "sicq");
    rc = PMIx_server_register_nspace(ns, 0, &reg, 1, op_done, &reg_done);
    check(rc == PMIX_SUCCESS, "register_nspace: %s", PMIx_Error_string(rc));
    PMIx_Info_destruct(&reg);
    pmix_proc_t members[2];
    PMIx_Load_procid(&members[0], "sicq", 0);
    PMIx_Load_procid(&members[1], "sicq", 1);
    rc = PMIx_server_define_process_set(members, 2, "qset");
    check(rc == PMIX_SUCCESS, "define_process_set: %s", PMIx_Error_string(rc));
    char timeout_key[] = PMIX_TIMEOUT, fn[] = "PMIx_Get";
    char *attrs[] = {timeout_key, NULL};
    rc = PMIx_Register_attributes(fn, attrs);
    check(rc == PMIX_SUCCESS, "PMIx_Register_attributes: %s", PMIx_Error_string(rc));

    pmix_query_t q[6];
    bool t = true;
    set_query(&q[0], PMIX_QUERY_NAMESPACES, PMIX_QUERY_NUM_PSETS, NULL, NULL, PMIX_UNDEF);
    set_query(&q[1], PMIX_QUERY_PSET_MEMBERSHIP, NULL, PMIX_PSET_NAME, "qset", PMIX_STRING);
    set_query(&q[2], PMIX_QUERY_AVAIL_SERVERS, PMIX_SERVER_URI, NULL, NULL, PMIX_UNDEF);
    set_query(&q[3], "sic.host", NULL, "sic.qual", "v", PMIX_STRING);
    set_query(&q[4], PMIX_QUERY_ATTRIBUTE_SUPPORT, "PMIx_Get", PMIX_HOST_ATTRIBUTES, &t, PMIX_BOOL);
    set_query(&q[5], "sic.unknown", NULL, NULL, NULL, PMIX_UNDEF);
    pmix_info_t *res = NULL;
    size_t n = 0;
    rc = PMIx_Query_info(q, 6, &res, &n);
    /* flat: one entry per key found, under the query key, in the order asked; no
     * qualifiers echoed; the attribute-support query is one entry; sic.unknown none */
    static const char *const want[] = {
        PMIX_QUERY_NAMESPACES,       PMIX_QUERY_NUM_PSETS, PMIX_QUERY_PSET_MEMBERSHIP,
        PMIX_QUERY_AVAIL_SERVERS,    PMIX_SERVER_URI,      "sic.host",
        PMIX_QUERY_ATTRIBUTE_SUPPORT};
    size_t nwant = sizeof(want) / sizeof(want[0]);
    check(rc == PMIX_QUERY_PARTIAL_SUCCESS && n == nwant,
          "PMIx_Query_info in the server: %s, %zu results (want partial success, %zu)",
          PMIx_Error_string(rc), n, nwant);
    for (size_t i = 0; i < n && i < nwant; i++) {
        check(PMIX_CHECK_KEY(&res[i], want[i]), "result %zu is %s, want %s", i, res[i].key,
              want[i]);
    }
    const pmix_value_t *v = answer_of(res, n, PMIX_QUERY_NAMESPACES);
    check(v != NULL && v->type == PMIX_STRING && strstr(v->data.string, "sicq") != NULL,
          "PMIX_QUERY_NAMESPACES lacks sicq");
    v = answer_of(res, n, PMIX_QUERY_NUM_PSETS);
    check(v != NULL && v->type == PMIX_SIZE && v->data.size == 1, "PMIX_QUERY_NUM_PSETS is not 1");
    v = answer_of(res, n, PMIX_QUERY_PSET_MEMBERSHIP);
    check(v != NULL && v->type == PMIX_DATA_ARRAY && v->data.darray->type == PMIX_PROC &&
              v->data.darray->size == 2 &&
              PMIx_Check_procid(&((pmix_proc_t *)v->data.darray->array)[1], &members[1]),
          "PMIX_QUERY_PSET_MEMBERSHIP of qset is not sicq:0,sicq:1");
    v = answer_of(res, n, PMIX_SERVER_URI);
    char *uri = v != NULL && v->type == PMIX_STRING ? strdup(v->data.string) : NULL;
    check(uri != NULL, "PMIX_SERVER_URI not answered");
    v = answer_of(res, n, PMIX_QUERY_AVAIL_SERVERS);
    bool me = false;
    for (size_t i = 0; uri && v && v->type == PMIX_DATA_ARRAY && i < v->data.darray->size; i++) {
        const pmix_data_array_t *da = ((pmix_info_t *)v->data.darray->array)[i].value.data.darray;
        const pmix_value_t *u = answer_of(da->array, da->size, PMIX_SERVER_URI);
        const pmix_value_t *p = answer_of(da->array, da->size, PMIX_SERVER_PIDINFO);
        const pmix_value_t *s = answer_of(da->array, da->size, PMIX_SERVER_SYSTEM_SUPPORT);
        me = me || (u && strcmp(u->data.string, uri) == 0 && p && p->data.pid == getpid() && s &&
                    s->data.flag);
    }
    check(me, "PMIX_QUERY_AVAIL_SERVERS does not list this server (pid, URI, system support)");
    v = answer_of(res, n, "sic.host");
    check(v != NULL && v->type == PMIX_STRING && strcmp(v->data.string, "host-answer") == 0,
          "the host's answer to sic.host is missing");
    check(answer_of(res, n, PMIX_QUERY_QUALIFIERS) == NULL &&
              answer_of(res, n, PMIX_QUERY_RESULTS) == NULL,
          "the results echo qualifiers or wrap results");
    pthread_mutex_lock(&q_lock);
    check(q_upcalls == 1, "%d query upcalls, want 1", q_upcalls);
    check(strstr(q_seen, " key sic.host qual sic.qual=v qual " PMIX_USERID "=? qual " PMIX_GRPID
                         "=?") != NULL &&
              strncmp(q_seen, "pmix-server.", 12) == 0 && strstr(q_seen, "unknown") != NULL,
          "the query upcall saw \"%s\"", q_seen);
    pthread_mutex_unlock(&q_lock);
    v = answer_of(res, n, PMIX_QUERY_ATTRIBUTE_SUPPORT);
    v = v && v->type == PMIX_DATA_ARRAY && v->data.darray->type == PMIX_INFO
            ? answer_of(v->data.darray->array, v->data.darray->size, "PMIx_Get")
            : NULL;
    const pmix_info_t *lv = v && v->type == PMIX_DATA_ARRAY ? v->data.darray->array : NULL;
    check(
        lv != NULL && PMIX_CHECK_KEY(&lv[0], PMIX_HOST_ATTRIBUTES) &&
            lv[0].value.type == PMIX_DATA_ARRAY && lv[0].value.data.darray->type == PMIX_REGATTR &&
            strcmp(((pmix_regattr_t *)lv[0].value.data.darray->array)[0].string, PMIX_TIMEOUT) == 0,
        "attribute support of PMIx_Get at the host level is not [PMIX_TIMEOUT]");
    PMIx_Info_free(res, n);

    /* non-blocking: later, exactly once */
    nbq_t s = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    rc = PMIx_Query_info_nb(&q[3], 1, nb_done, &s);
    check(rc == PMIX_SUCCESS, "PMIx_Query_info_nb: %s", PMIx_Error_string(rc));
    pthread_mutex_lock(&s.lock);
    check(s.calls == 0, "PMIx_Query_info_nb called back inside the call");
    for (int i = 0; i < 500 && s.calls == 0; i++) {
        pthread_mutex_unlock(&s.lock);
        usleep(10000);
        pthread_mutex_lock(&s.lock);
    }
    check(s.calls == 1 && s.status == PMIX_SUCCESS && strcmp(s.answer, "host-answer") == 0,
          "PMIx_Query_info_nb: %d calls, %s, answer \"%s\"", s.calls, PMIx_Error_string(s.status),
          s.answer);
    pthread_mutex_unlock(&s.lock);
    check(PMIx_Query_info_nb(q, 0, nb_done, &s) == PMIX_ERR_BAD_PARAM,
          "PMIx_Query_info_nb with no queries is not PMIX_ERR_BAD_PARAM");

    /* a process connected to nothing finds us through the rendezvous files */
    pid_t pid = uri ? fork() : -1;
    if (pid == 0) {
        setenv("TMPDIR", dir, 1);
        execl(self, self, "avail", uri, (char *)NULL);
        _exit(127);
    }
    int st = -1;
    check(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
          "the unconnected child did not find the server (status 0x%x)", st);
    for (int i = 0; i < 6; i++) {
        PMIX_QUERY_DESTRUCT(&q[i]);
    }
    free(uri);
    rc = PMIx_server_finalize();
    check(rc == PMIX_SUCCESS, "PMIx_server_finalize: %s", PMIx_Error_string(rc));
    check(rmdir(dir) == 0, "%s not empty after finalize", dir);
    return failures ? 1 : 0;
}

/* ---- what the Server chapter requires of the library ---- */

/* One-shot latch for callbacks from the library's thread. */
static pthread_mutex_t sch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sch_cond = PTHREAD_COND_INITIALIZER;
static int sch_calls;
static pmix_status_t sch_status;

static void sch_note(pmix_status_t status)
{
    pthread_mutex_lock(&sch_lock);
    sch_calls++;
    sch_status = status;
    pthread_cond_broadcast(&sch_cond);
    pthread_mutex_unlock(&sch_lock);
}

/* Wait (at most 10 s) until sch_calls reaches n; the number seen. */
static int sch_wait(int n)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&sch_lock);
    while (sch_calls < n && pthread_cond_timedwait(&sch_cond, &sch_lock, &until) == 0) {
    }
    int seen = sch_calls;
    pthread_mutex_unlock(&sch_lock);
    return seen;
}

static void sch_op_cb(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    sch_note(status);
}

static char sch_tmpdir[64];

static int sch_start(pmix_server_module_t *module)
{
    snprintf(sch_tmpdir, sizeof(sch_tmpdir), "/tmp/pxsch.XXXXXX");
    if (mkdtemp(sch_tmpdir) == NULL) {
        return -1;
    }
    pmix_info_t info[2];
    PMIx_Info_load(&info[0], PMIX_SERVER_TMPDIR, sch_tmpdir, PMIX_STRING);
    PMIx_Info_load(&info[1], PMIX_SYSTEM_TMPDIR, sch_tmpdir, PMIX_STRING);
    pmix_status_t rc = PMIx_server_init(module, info, 2);
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_destruct(&info[1]);
    expect(rc, PMIX_SUCCESS, "PMIx_server_init");
    if (rc != PMIX_SUCCESS) {
        rmdir(sch_tmpdir);
        return -1;
    }
    return 0;
}

static int sch_stop(void)
{
    expect(PMIx_server_finalize(), PMIX_SUCCESS, "PMIx_server_finalize");
    check(rmdir(sch_tmpdir) == 0, "the server's sch_tmpdir %s is not empty after finalize",
          sch_tmpdir);
    return failures ? 1 : 0;
}

/* ---- nodata ---- */

/* The value of name in the environment setup_fork makes for proc, or NULL (static). */
static const char *sch_fork_env(const pmix_proc_t *proc, const char *name)
{
    static char value[256];
    char **env = NULL;
    const char *found = NULL;
    expect(PMIx_server_setup_fork(proc, &env), PMIX_SUCCESS, "PMIx_server_setup_fork");
    size_t len = strlen(name);
    for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
        if (strncmp(env[i], name, len) == 0 && env[i][len] == '=') {
            snprintf(value, sizeof(value), "%s", env[i] + len + 1);
            found = value;
        }
    }
    PMIx_Argv_free(env);
    return found;
}

static int do_nodata(void)
{
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    if (sch_start(&module) != 0) {
        return 1;
    }
    pmix_nspace_t data_ns, nodata_ns;
    PMIX_LOAD_NSPACE(data_ns, "sch.data");
    PMIX_LOAD_NSPACE(nodata_ns, "sch.nodata");
    uint32_t four = 4;
    bool yes = true;
    pmix_envar_t var = {.envar = "PX_SCH_VAR", .value = "from-the-job", .separator = ':'};
    pmix_info_t info[3];
    PMIx_Info_load(&info[0], PMIX_JOB_SIZE, &four, PMIX_UINT32);
    PMIx_Info_load(&info[1], PMIX_SET_ENVAR, &var, PMIX_ENVAR);
    PMIx_Info_load(&info[2], PMIX_REGISTER_NODATA, &yes, PMIX_BOOL);
    /* the same data with and without the attribute; the job's environment directive is
     * the data a host can observe without a client */
    expect(PMIx_server_register_nspace(data_ns, 1, info, 2, NULL, NULL), PMIX_SUCCESS,
           "register_nspace(sch.data)");
    expect(PMIx_server_register_nspace(nodata_ns, 1, info, 3, NULL, NULL), PMIX_SUCCESS,
           "register_nspace(sch.nodata, PMIX_REGISTER_NODATA)");
    pmix_proc_t d, p;
    PMIx_Load_procid(&d, data_ns, 0);
    PMIx_Load_procid(&p, nodata_ns, 0);
    expect(PMIx_server_register_client(&d, getuid(), getgid(), NULL, NULL, NULL), PMIX_SUCCESS,
           "register_client(sch.data:0)");
    expect(PMIx_server_register_client(&p, getuid(), getgid(), NULL, NULL, NULL), PMIX_SUCCESS,
           "register_client(sch.nodata:0)");
    const char *v = sch_fork_env(&d, "PX_SCH_VAR");
    check(v != NULL && strcmp(v, "from-the-job") == 0,
          "sch.data: the job's PMIX_SET_ENVAR is not in setup_fork's environment (%s)",
          v ? v : "unset");
    v = sch_fork_env(&p, "PX_SCH_VAR");
    check(v == NULL, "sch.nodata: PMIX_SET_ENVAR was kept despite PMIX_REGISTER_NODATA (%s)",
          v ? v : "");
    /* the namespace itself is there: its client gets its connection variables */
    check(sch_fork_env(&p, "PMIX_NAMESPACE") != NULL &&
              strcmp(sch_fork_env(&p, "PMIX_NAMESPACE"), "sch.nodata") == 0,
          "sch.nodata:0 has no PMIX_NAMESPACE in setup_fork's environment");
    PMIx_server_deregister_client(&p, NULL, NULL);
    PMIx_server_deregister_client(&d, NULL, NULL);
    PMIx_server_deregister_nspace(nodata_ns, NULL, NULL);
    PMIx_server_deregister_nspace(data_ns, NULL, NULL);
    for (int i = 0; i < 3; i++) {
        PMIx_Info_destruct(&info[i]); /* the loads copied var's strings */
    }
    return sch_stop();
}

/* ---- notify ---- */

/* PMIx_Notify_event from the server itself, range beyond the node, no notify_event upcall:
 * refused (no callback); node-local ranges still succeed. (With the upcall: server_events.) */
static int do_notify_none(void)
{
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    if (sch_start(&module) != 0) {
        return 1;
    }
    pmix_data_range_t beyond[] = {PMIX_RANGE_SESSION, PMIX_RANGE_GLOBAL, PMIX_RANGE_NAMESPACE,
                                  PMIX_RANGE_RM};
    for (size_t i = 0; i < sizeof(beyond) / sizeof(beyond[0]); i++) {
        char what[128];
        snprintf(what, sizeof(what), "PMIx_Notify_event(range %s) without notify_event",
                 PMIx_Data_range_string(beyond[i]));
        int before = sch_wait(0);
        expect(PMIx_Notify_event(7001, NULL, beyond[i], NULL, 0, sch_op_cb, NULL),
               PMIX_ERR_NOT_SUPPORTED, what);
        usleep(100000);
        check(sch_wait(0) == before, "%s: a refused call must not call back", what);
    }
    /* ranges within the node need no host */
    int before = sch_wait(0);
    expect(PMIx_Notify_event(7002, NULL, PMIX_RANGE_LOCAL, NULL, 0, sch_op_cb, NULL), PMIX_SUCCESS,
           "PMIx_Notify_event(range local)");
    check(sch_wait(before + 1) >= before + 1, "range local: no callback");
    pmix_proc_t me;
    pmix_value_t *v = NULL;
    PMIx_Load_procid(&me, "", 0);
    if (PMIx_Get(NULL, PMIX_SERVER_NSPACE, NULL, 0, &v) == PMIX_SUCCESS && v != NULL &&
        v->type == PMIX_STRING) {
        PMIx_Load_procid(&me, v->data.string, 0);
    }
    if (v != NULL) {
        PMIx_Value_free(v, 1);
    }
    pmix_info_t custom;
    PMIx_Info_load(&custom, PMIX_EVENT_CUSTOM_RANGE, &me, PMIX_PROC);
    before = sch_wait(0);
    expect(PMIx_Notify_event(7003, NULL, PMIX_RANGE_CUSTOM, &custom, 1, sch_op_cb, NULL),
           PMIX_SUCCESS, "PMIx_Notify_event(custom range: the server itself)");
    check(sch_wait(before + 1) >= before + 1, "custom range: no callback");
    PMIx_Info_destruct(&custom);
    return sch_stop();
}

/* ---- setup_application / setup_local_support ---- */

static struct {
    pmix_status_t status;
    pmix_info_t *info; /* copied */
    size_t ninfo;
} sch_app;

static void sch_app_cb(pmix_status_t status, pmix_info_t info[], size_t ninfo,
                       void *provided_cbdata, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)provided_cbdata;
    pthread_mutex_lock(&sch_lock);
    sch_app.status = status;
    sch_app.ninfo = ninfo;
    sch_app.info = ninfo ? PMIx_Info_create(ninfo) : NULL;
    for (size_t i = 0; i < ninfo; i++) {
        PMIx_Info_xfer(&sch_app.info[i], &info[i]);
    }
    pthread_mutex_unlock(&sch_lock);
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, cbdata); /* the library frees its array */
    }
    sch_note(status);
}

/* setup_application with the job's maps plus extra (key, bool true) directives. */
static pmix_status_t sch_setup_app(const char *nspace, const char *extra, const char *model)
{
    pmix_info_t info[4];
    size_t n = 0;
    bool yes = true;
    PMIx_Info_load(&info[n++], PMIX_NODE_MAP, "pxnode0", PMIX_STRING);
    PMIx_Info_load(&info[n++], PMIX_PROC_MAP, "0,1", PMIX_STRING);
    if (extra != NULL) {
        PMIx_Info_load(&info[n++], extra, &yes, PMIX_BOOL);
    }
    if (model != NULL) {
        PMIx_Info_load(&info[n++], PMIX_PROGRAMMING_MODEL, model, PMIX_STRING);
    }
    int before = sch_wait(0);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, nspace);
    pmix_status_t rc = PMIx_server_setup_application(ns, info, n, sch_app_cb, NULL);
    if (rc == PMIX_SUCCESS) {
        check(sch_wait(before + 1) == before + 1, "setup_application: no callback");
        rc = sch_app.status;
    }
    for (size_t i = 0; i < n; i++) {
        PMIx_Info_destruct(&info[i]);
    }
    return rc;
}

/* The returned string value of key (a PMIX_SET_ENVAR's variable when envar), or NULL. */
static const char *sch_app_value(const char *key, const char *envar)
{
    for (size_t i = 0; i < sch_app.ninfo; i++) {
        const pmix_value_t *v = &sch_app.info[i].value;
        if (!PMIX_CHECK_KEY(&sch_app.info[i], key)) {
            continue;
        }
        if (envar == NULL && v->type == PMIX_STRING) {
            return v->data.string;
        }
        if (envar != NULL && v->type == PMIX_ENVAR && v->data.envar.envar != NULL &&
            strcmp(v->data.envar.envar, envar) == 0) {
            return v->data.envar.value;
        }
    }
    return NULL;
}

static void sch_app_clear(void)
{
    if (sch_app.info != NULL) {
        PMIx_Info_free(sch_app.info, sch_app.ninfo);
    }
    memset(&sch_app, 0, sizeof(sch_app));
}

static int do_setup(void)
{
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    if (sch_start(&module) != 0) {
        return 1;
    }
    setenv("PMIX_MCA_px_sch_param", "42", 1);
    setenv("PX_SCH_NOT_FORWARDED", "1", 1);
    /* fabric requests cannot be honoured */
    expect(sch_setup_app("sch.app", PMIX_ALLOC_FABRIC_ENDPTS, NULL), PMIX_ERR_NOT_SUPPORTED,
           "setup_application(PMIX_ALLOC_FABRIC_ENDPTS)");
    sch_app_clear();
    /* non-environment data only */
    expect(sch_setup_app("sch.app", PMIX_SETUP_APP_NONENVARS, "MPI"), PMIX_SUCCESS,
           "setup_application(PMIX_SETUP_APP_NONENVARS)");
    check(sch_app_value(PMIX_SET_ENVAR, "PMIX_MCA_px_sch_param") == NULL,
          "PMIX_SETUP_APP_NONENVARS returned an environment variable");
    check(sch_app_value(PMIX_PROGRAMMING_MODEL, NULL) != NULL &&
              strcmp(sch_app_value(PMIX_PROGRAMMING_MODEL, NULL), "MPI") == 0,
          "PMIX_SETUP_APP_NONENVARS did not return the programming model");
    sch_app_clear();
    /* everything */
    expect(sch_setup_app("sch.app", PMIX_SETUP_APP_ALL, "MPI"), PMIX_SUCCESS,
           "setup_application(PMIX_SETUP_APP_ALL)");
    const char *v = sch_app_value(PMIX_SET_ENVAR, "PMIX_MCA_px_sch_param");
    check(v != NULL && strcmp(v, "42") == 0, "PMIX_MCA_px_sch_param not harvested (%s)",
          v ? v : "absent");
    check(sch_app_value(PMIX_SET_ENVAR, "PX_SCH_NOT_FORWARDED") == NULL,
          "an unrelated variable was harvested");
    /* a node where the launcher's variable is not set: setup_local_support + setup_fork */
    unsetenv("PMIX_MCA_px_sch_param");
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, "sch.app");
    expect(PMIx_server_setup_local_support(ns, sch_app.info, sch_app.ninfo, NULL, NULL),
           PMIX_ERR_NOT_FOUND, "setup_local_support before register_nspace");
    expect(PMIx_server_register_nspace(ns, 1, NULL, 0, NULL, NULL), PMIX_SUCCESS,
           "register_nspace(sch.app)");
    int before = sch_wait(0);
    expect(PMIx_server_setup_local_support(ns, sch_app.info, sch_app.ninfo, sch_op_cb, NULL),
           PMIX_SUCCESS, "setup_local_support");
    check(sch_wait(before + 1) == before + 1, "setup_local_support: no callback");
    pmix_proc_t p;
    PMIx_Load_procid(&p, ns, 0);
    v = sch_fork_env(&p, "PMIX_MCA_px_sch_param");
    check(v != NULL && strcmp(v, "42") == 0,
          "setup_fork after setup_local_support lacks PMIX_MCA_px_sch_param (%s)",
          v ? v : "absent");
    pmix_info_t bogus;
    PMIx_Info_load(&bogus, "px.sch.unknown", "x", PMIX_STRING);
    expect(PMIx_server_setup_local_support(ns, &bogus, 1, NULL, NULL), PMIX_ERR_NOT_SUPPORTED,
           "setup_local_support(unknown data)");
    PMIx_Info_destruct(&bogus);
    sch_app_clear();
    PMIx_server_deregister_nspace(ns, NULL, NULL);
    return sch_stop();
}

/* ---- register_events / deregister_events for the server's own handlers ---- */

static char reg_log[512]; /* "+code" per register_events code, "-code" per deregister */
static bool reg_ids_ok = true;

static void reg_append(char sign, const pmix_status_t *codes, size_t n)
{
    pthread_mutex_lock(&sch_lock);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(reg_log);
        snprintf(reg_log + len, sizeof(reg_log) - len, "%c%d ", sign, codes[i]);
    }
    pthread_mutex_unlock(&sch_lock);
}

static pmix_status_t up_register_events(pmix_status_t *codes, size_t ncodes,
                                        const pmix_info_t info[], size_t ninfo,
                                        pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)cbfunc;
    (void)cbdata;
    bool uid = false, gid = false;
    for (size_t i = 0; i < ninfo; i++) {
        uid |= PMIX_CHECK_KEY(&info[i], PMIX_USERID);
        gid |= PMIX_CHECK_KEY(&info[i], PMIX_GRPID);
    }
    reg_ids_ok &= uid && gid;
    reg_append('+', codes, ncodes);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t up_deregister_events(pmix_status_t *codes, size_t ncodes,
                                          pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)cbfunc;
    (void)cbdata;
    reg_append('-', codes, ncodes);
    return PMIX_OPERATION_SUCCEEDED;
}

static void sch_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                        pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

static void expect_log(const char *want, const char *what)
{
    pthread_mutex_lock(&sch_lock);
    check(strcmp(reg_log, want) == 0, "%s: the host saw \"%s\", expected \"%s\"", what, reg_log,
          want);
    pthread_mutex_unlock(&sch_lock);
}

static int do_regevents(void)
{
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    module.register_events = up_register_events;
    module.deregister_events = up_deregister_events;
    if (sch_start(&module) != 0) {
        return 1;
    }
    /* an environmental code and one of the library's: only the former goes to the host */
    pmix_status_t c1[] = {PMIX_EVENT_SYS_BASE - 1, 7001};
    pmix_status_t h1 = PMIx_Register_event_handler(c1, 2, NULL, 0, sch_handler, NULL, NULL);
    check(h1 >= 0, "register handler 1: %s", PMIx_Error_string(h1));
    char want[128];
    snprintf(want, sizeof(want), "+%d ", PMIX_EVENT_SYS_BASE - 1);
    expect_log(want, "first registration");
    /* the same code again (asked once), plus a code outside the PMIx range */
    pmix_status_t c2[] = {PMIX_EVENT_SYS_BASE - 1, PMIX_EXTERNAL_ERR_BASE - 5};
    pmix_status_t h2 = PMIx_Register_event_handler(c2, 2, NULL, 0, sch_handler, NULL, NULL);
    check(h2 >= 0, "register handler 2: %s", PMIx_Error_string(h2));
    snprintf(want, sizeof(want), "+%d +%d ", PMIX_EVENT_SYS_BASE - 1, PMIX_EXTERNAL_ERR_BASE - 5);
    expect_log(want, "second registration");
    /* a default handler asks for no particular code */
    pmix_status_t h3 = PMIx_Register_event_handler(NULL, 0, NULL, 0, sch_handler, NULL, NULL);
    expect_log(want, "default handler");
    if (h3 >= 0) {
        PMIx_Deregister_event_handler((size_t)h3, NULL, NULL);
    }
    /* handler 2 still holds the environmental code */
    if (h1 >= 0) {
        PMIx_Deregister_event_handler((size_t)h1, NULL, NULL);
    }
    expect_log(want, "first handler gone");
    if (h2 >= 0) {
        PMIx_Deregister_event_handler((size_t)h2, NULL, NULL);
    }
    snprintf(want, sizeof(want), "+%d +%d -%d -%d ", PMIX_EVENT_SYS_BASE - 1,
             PMIX_EXTERNAL_ERR_BASE - 5, PMIX_EVENT_SYS_BASE - 1, PMIX_EXTERNAL_ERR_BASE - 5);
    expect_log(want, "last handler gone");
    check(reg_ids_ok, "register_events without PMIX_USERID/PMIX_GRPID");
    return sch_stop();
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "rndz") == 0) {
        return do_rndz(argv[2]);
    }
    if (argc >= 2 && strcmp(argv[1], "twice") == 0) {
        return do_twice();
    }
    if (argc >= 2 && strcmp(argv[1], "badargs") == 0) {
        return do_badargs();
    }
    if (argc >= 2 && strcmp(argv[1], "module422") == 0) {
        return do_module422();
    }
    if (argc >= 3 && strcmp(argv[1], "evbase") == 0) {
        return do_evbase(&argv[2]);
    }
    if (argc >= 2 && strcmp(argv[1], "query") == 0) {
        return do_query(argv[0]);
    }
    if (argc >= 3 && strcmp(argv[1], "avail") == 0) {
        return do_avail(argv[2]);
    }
    if (argc >= 2 && strcmp(argv[1], "nodata") == 0) {
        return do_nodata();
    }
    if (argc >= 2 && strcmp(argv[1], "notify-none") == 0) {
        return do_notify_none();
    }
    if (argc >= 2 && strcmp(argv[1], "setup") == 0) {
        return do_setup();
    }
    if (argc >= 2 && strcmp(argv[1], "regevents") == 0) {
        return do_regevents();
    }
    fprintf(stderr,
            "usage: %s rndz DIR | twice | badargs | module422 | evbase CLIENT [ARGS] | query"
            " | nodata | notify-none | setup | regevents\n",
            argv[0]);
    return 2;
}
