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
 * Exit 0 when every check holds; otherwise a message naming the check.
 */
#include <errno.h>
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
    fprintf(stderr, "usage: %s rndz DIR | twice | badargs | module422 | evbase CLIENT [ARGS]\n",
            argv[0]);
    return 2;
}
