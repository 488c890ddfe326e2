/* test driver: px_odls on a real libevent loop with real children, one case per run
 * (argv[1]); checks callback order, errors, exit statuses, byte-exact output, stdin
 * (and its backpressure: queued bytes, drained()), group signals, binding and destroy.
 * Single-threaded: everything runs on the loop. Usage: odls_check <case> <path of odls_writer> */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <hwloc.h>

#include "daemon/px_odls.h"
#include "odls_pattern.h"

extern char **environ;

typedef struct {
    int started_n, exited_n;
    int err;
    char stage[16];
    int wstatus;
    bool check_pattern; /* compare output against the writer's pattern */
    px_pattern_t po, pe;
    size_t out_len, err_len;
    bool mismatch;
    char *out; /* collected stdout when not a pattern (bounded) */
    size_t out_cap;
    pid_t pid;
    int stops, conts; /* stopped(true) / stopped(false) */
} rec_t;

static struct event_base *base;
static px_odls_t *odls;
static hwloc_topology_t topo;
static const char *writer;
static bool in_destroy;
static int failures;

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    failures++;
}

static void cb_started(px_child_t *c, int err, const char *stage, void *cbdata)
{
    (void)cbdata;
    rec_t *r = px_child_user(c);
    if (in_destroy)
        fail("started() during destroy");
    if (r->started_n++ != 0 || r->exited_n != 0)
        fail("started() twice or after exited()");
    r->err = err;
    snprintf(r->stage, sizeof(r->stage), "%s", stage ? stage : "");
}

static void cb_output(px_child_t *c, int channel, const char *data, size_t len, void *cbdata)
{
    (void)cbdata;
    rec_t *r = px_child_user(c);
    if (in_destroy)
        fail("output() during destroy");
    if (r->started_n != 1 || r->exited_n != 0)
        fail("output() before started() or after exited()");
    if (len == 0)
        fail("output() with no bytes");
    if (r->check_pattern) {
        px_pattern_t *p = channel == PX_CHILD_STDOUT ? &r->po : &r->pe;
        for (size_t i = 0; i < len && !r->mismatch; i++)
            if ((unsigned char)data[i] != px_pattern_next(p))
                r->mismatch = true;
    } else if (channel == PX_CHILD_STDOUT) {
        if (r->out_len + len + 1 > r->out_cap) {
            r->out_cap = (r->out_len + len + 1) * 2;
            r->out = realloc(r->out, r->out_cap);
        }
        memcpy(r->out + r->out_len, data, len);
        r->out[r->out_len + len] = '\0';
    }
    if (channel == PX_CHILD_STDOUT)
        r->out_len += len;
    else
        r->err_len += len;
}

static void cb_exited(px_child_t *c, int wstatus, void *cbdata)
{
    (void)cbdata;
    rec_t *r = px_child_user(c);
    if (in_destroy)
        fail("exited() during destroy");
    if (r->started_n != 1 || r->exited_n++ != 0)
        fail("exited() without started() or twice");
    r->wstatus = wstatus;
}

static void cb_stopped(px_child_t *c, bool stopped, void *cbdata)
{
    (void)cbdata;
    rec_t *r = px_child_user(c);
    if (r->started_n != 1 || r->exited_n != 0)
        fail("stopped() before started() or after exited()");
    if (stopped)
        r->stops++;
    else
        r->conts++;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
}

/* Run the loop until every child has gone through exited(), or give up (a hang). */
static bool run_until_idle(double limit)
{
    double deadline = now() + limit;
    while (px_odls_count(odls) > 0) {
        event_base_loop(base, EVLOOP_ONCE);
        if (now() > deadline) {
            fail("hang: %zu children still not through exited() after %.0f s", px_odls_count(odls),
                 limit);
            return false;
        }
    }
    return true;
}

/* Run the loop until pred() or the limit. */
static bool run_until(bool (*pred)(void *), void *arg, double limit)
{
    double deadline = now() + limit;
    while (!pred(arg)) {
        event_base_loop(base, EVLOOP_ONCE);
        if (now() > deadline)
            return false;
    }
    return true;
}

static px_child_t *start(rec_t *r, char *const *argv, char *const *env, const char *wdir,
                         hwloc_const_cpuset_t cpuset, bool stdin_pipe)
{
    px_child_spec_t spec = {.argv = argv,
                            .env = env ? env : environ,
                            .wdir = wdir,
                            .cpuset = cpuset,
                            .stdin_pipe = stdin_pipe,
                            .user = r};
    px_child_t *c = px_odls_start(odls, &spec);
    if (c == NULL)
        fail("px_odls_start(%s): %s", argv[0], strerror(errno));
    else
        r->pid = px_child_pid(c);
    if (r->started_n != 0 || r->exited_n != 0)
        fail("a callback ran inside px_odls_start");
    return c;
}

/* Start one child, run to its exit. */
static rec_t run_one(char *const *argv, char *const *env, const char *wdir,
                     hwloc_const_cpuset_t cpuset)
{
    rec_t r = {0};
    if (start(&r, argv, env, wdir, cpuset, false) != NULL)
        run_until_idle(20);
    return r;
}

static void expect_start_error(const char *what, rec_t r, int err, const char *stage)
{
    if (r.err != err || strcmp(r.stage, stage) != 0)
        fail("%s: started(%d '%s'), expected (%d '%s')", what, r.err, r.stage, err, stage);
    if (!WIFEXITED(r.wstatus) || WEXITSTATUS(r.wstatus) != 127)
        fail("%s: wait status %#x, expected exit 127", what, r.wstatus);
    free(r.out);
}

static void expect_exit(const char *what, rec_t r, int code)
{
    if (r.err != 0)
        fail("%s: started with error %d (%s)", what, r.err, r.stage);
    if (!WIFEXITED(r.wstatus) || WEXITSTATUS(r.wstatus) != code)
        fail("%s: wait status %#x, expected exit %d", what, r.wstatus, code);
    free(r.out);
}

/* ---- cases ------------------------------------------------------------------------ */

static void case_exec_ok(void)
{
    char *a1[] = {"/bin/true", NULL};
    expect_exit("/bin/true", run_one(a1, NULL, NULL, NULL), 0);
    char *a2[] = {"true", NULL};
    char *env[] = {"PATH=/nonexistent:/usr/bin:/bin", NULL};
    expect_exit("true in the child's PATH", run_one(a2, env, NULL, NULL), 0);
    char *a3[] = {"sh", "-c", "test \"$PWD\" = /tmp && test \"$FOO\" = bar", NULL};
    char *env3[] = {"PATH=/usr/bin:/bin", "FOO=bar", NULL};
    expect_exit("env and wdir", run_one(a3, env3, "/tmp", NULL), 0);
    /* stdin is /dev/null without a pipe: cat ends at once. */
    char *a4[] = {"/bin/cat", NULL};
    expect_exit("cat on /dev/null", run_one(a4, NULL, NULL, NULL), 0);
    /* No descriptor of ours leaks into the child beyond 0, 1, 2. */
    char *a5[] = {"/bin/sh", "-c", "ls /proc/self/fd | wc -l", NULL};
    rec_t r = run_one(a5, NULL, NULL, NULL);
    if (r.out == NULL || atoi(r.out) > 4) /* 0 1 2 + the fd of ls's own directory */
        fail("descriptors leak into the child: %s", r.out ? r.out : "(none)");
    expect_exit("fd count", r, 0);
}

static void case_enoent(void)
{
    char *a1[] = {"/nonexistent/prog", NULL};
    expect_start_error("absolute path", run_one(a1, NULL, NULL, NULL), ENOENT, "exec");
    char *a2[] = {"px-no-such-command", NULL};
    expect_start_error("PATH search", run_one(a2, NULL, NULL, NULL), ENOENT, "exec");
    /* The daemon's PATH has true; the child's does not. */
    char *a3[] = {"true", NULL};
    char *env[] = {"PATH=/nonexistent", NULL};
    expect_start_error("child's PATH", run_one(a3, env, NULL, NULL), ENOENT, "exec");
}

static void case_eacces(void)
{
    char dir[] = "/tmp/odls_checkXXXXXX";
    if (mkdtemp(dir) == NULL) {
        fail("mkdtemp: %s", strerror(errno));
        return;
    }
    char path[256];
    snprintf(path, sizeof(path), "%s/notexec", dir);
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd < 0 || write(fd, "#!/bin/sh\n", 10) != 10)
        fail("create %s", path);
    close(fd);
    char *a1[] = {path, NULL};
    expect_start_error("non-executable file", run_one(a1, NULL, NULL, NULL), EACCES, "exec");
    char *a2[] = {"notexec", NULL};
    char pathenv[300];
    snprintf(pathenv, sizeof(pathenv), "PATH=%s:/nonexistent", dir);
    char *env[] = {pathenv, NULL};
    expect_start_error("non-executable in PATH", run_one(a2, env, NULL, NULL), EACCES, "exec");
    unlink(path);
    rmdir(dir);
}

static void case_badwdir(void)
{
    char *a1[] = {"/bin/true", NULL};
    expect_start_error("missing wdir", run_one(a1, NULL, "/nonexistent/dir", NULL), ENOENT,
                       "chdir");
    expect_start_error("wdir is a file", run_one(a1, NULL, "/etc/passwd", NULL), ENOTDIR, "chdir");
}

static void case_status(void)
{
    char *a1[] = {"/bin/sh", "-c", "exit 3", NULL};
    expect_exit("exit 3", run_one(a1, NULL, NULL, NULL), 3);
    char *a2[] = {"/bin/sh", "-c", "exit 255", NULL};
    expect_exit("exit 255", run_one(a2, NULL, NULL, NULL), 255);
    char *a3[] = {"/bin/sh", "-c", "kill -TERM $$", NULL};
    rec_t r = run_one(a3, NULL, NULL, NULL);
    if (!WIFSIGNALED(r.wstatus) || WTERMSIG(r.wstatus) != SIGTERM)
        fail("self SIGTERM: wait status %#x", r.wstatus);
    /* A SIGPIPE the daemon ignores is back to default in the child. */
    char *a4[] = {"/bin/sh", "-c", "kill -PIPE $$", NULL};
    r = run_one(a4, NULL, NULL, NULL);
    if (!WIFSIGNALED(r.wstatus) || WTERMSIG(r.wstatus) != SIGPIPE)
        fail("SIGPIPE default in the child: wait status %#x", r.wstatus);
    char *a5[] = {"/bin/sleep", "100", NULL};
    rec_t r5 = {0};
    px_child_t *c = start(&r5, a5, NULL, NULL, NULL, false);
    if (c != NULL && px_odls_signal(c, SIGUSR1) < 0)
        fail("px_odls_signal: %s", strerror(errno));
    run_until_idle(20);
    if (!WIFSIGNALED(r5.wstatus) || WTERMSIG(r5.wstatus) != SIGUSR1)
        fail("px_odls_signal SIGUSR1: wait status %#x", r5.wstatus);
}

static void check_pattern_rec(const char *what, rec_t *r, size_t out, size_t err)
{
    if (r->mismatch)
        fail("%s: bytes differ", what);
    if (r->out_len != out || r->err_len != err)
        fail("%s: got %zu/%zu bytes, expected %zu/%zu", what, r->out_len, r->err_len, out, err);
    if (r->err != 0 || !WIFEXITED(r->wstatus) || WEXITSTATUS(r->wstatus) != 0)
        fail("%s: started %d, wait status %#x", what, r->err, r->wstatus);
}

static void start_writer(rec_t *r, size_t n, unsigned seed, const char *where)
{
    char nb[32], sb[32];
    snprintf(nb, sizeof(nb), "%zu", n);
    snprintf(sb, sizeof(sb), "%u", seed);
    char *argv[] = {(char *)writer, nb, sb, (char *)where, NULL};
    memset(r, 0, sizeof(*r));
    r->check_pattern = true;
    px_pattern_init(&r->po, seed);
    px_pattern_init(&r->pe, seed + 1);
    start(r, argv, NULL, NULL, NULL, false);
}

static void case_binary(void)
{
    rec_t r;
    start_writer(&r, 100003, 7, "both");
    run_until_idle(20);
    check_pattern_rec("binary both channels", &r, 100003, 100003);
    start_writer(&r, 1, 8, "out");
    run_until_idle(20);
    check_pattern_rec("one byte", &r, 1, 0);
}

static void case_big(void)
{
    size_t n = 100u * 1024 * 1024;
    rec_t r;
    double t = now();
    start_writer(&r, n, 9, "out");
    run_until_idle(50);
    check_pattern_rec("100 MB", &r, n, 0);
    fprintf(stderr, "100 MB through in %.2f s\n", now() - t);
}

static void case_quick(void)
{
    /* 200 writers that write and exit at once, 8 at a time: nothing may be lost. */
    enum { TOTAL = 200, PAR = 8 };
    rec_t r[PAR];
    for (int round = 0; round < TOTAL / PAR; round++) {
        for (int i = 0; i < PAR; i++)
            start_writer(&r[i], 3000 + (size_t)i * 7919, (unsigned)(round * PAR + i), "both");
        if (!run_until_idle(20))
            return;
        for (int i = 0; i < PAR; i++) {
            size_t n = 3000 + (size_t)i * 7919;
            check_pattern_rec("write then exit", &r[i], n, n);
        }
        if (failures)
            return;
    }
}

static void case_many(void)
{
    enum { N = 64, ROUNDS = 200 };
    static rec_t r[N];
    char *argv[] = {"/bin/true", NULL};
    double t = now();
    for (int round = 0; round < ROUNDS; round++) {
        memset(r, 0, sizeof(r));
        for (int i = 0; i < N; i++)
            start(&r[i], argv, NULL, NULL, NULL, false);
        if (!run_until_idle(20)) {
            fail("round %d hung", round);
            return;
        }
        for (int i = 0; i < N; i++)
            if (r[i].exited_n != 1 || r[i].err != 0 || r[i].wstatus != 0)
                fail("round %d child %d: exited %d err %d status %#x", round, i, r[i].exited_n,
                     r[i].err, r[i].wstatus);
        if (failures)
            return;
    }
    fprintf(stderr, "%d x %d children in %.2f s\n", N, ROUNDS, now() - t);
}

/* ---- stop on exec, stops and continues ---- */

static bool held_pred(void *arg)
{
    rec_t *r = arg;
    for (int i = 0; i < 8; i++)
        if (r[i].started_n != 1 || r[i].stops != 1)
            return false;
    return true;
}

static char proc_state_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    return p != NULL && p[1] == ' ' ? p[2] : '?';
}

static int tracer_of(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    int t = -1;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "TracerPid:", 10) == 0)
            t = atoi(line + 10);
    if (f)
        fclose(f);
    return t;
}

/* 8 writers held at their first instruction: started(0) only once held, state T, not
 * traced, their program exec'd, nothing written, stopped(true) told; SIGCONT: each writes
 * its bytes and exits 0. A held program that cannot be exec'd fails as usual. */
static void case_stop_exec(void)
{
    rec_t r[8];
    char exe[4096];
    if (realpath(writer, exe) == NULL)
        fail("realpath %s", writer);
    for (int i = 0; i < 8; i++) {
        char nb[32], sb[32];
        snprintf(nb, sizeof(nb), "%d", 1000 + i);
        snprintf(sb, sizeof(sb), "%d", 40 + i);
        char *argv[] = {(char *)writer, nb, sb, "out", NULL};
        memset(&r[i], 0, sizeof(r[i]));
        r[i].check_pattern = true;
        px_pattern_init(&r[i].po, 40 + i);
        px_pattern_init(&r[i].pe, 41 + i);
        px_child_spec_t spec = {.argv = argv, .env = environ, .stop_on_exec = true, .user = &r[i]};
        px_child_t *c = px_odls_start(odls, &spec);
        if (c == NULL) {
            fail("px_odls_start: %s", strerror(errno));
            return;
        }
        r[i].pid = px_child_pid(c);
    }
    if (!run_until(held_pred, r, 20)) {
        fail("not every child was held and told stopped");
        return;
    }
    for (int i = 0; i < 8; i++) {
        char link[64], got[4096];
        snprintf(link, sizeof(link), "/proc/%d/exe", (int)r[i].pid);
        ssize_t n = readlink(link, got, sizeof(got) - 1);
        got[n > 0 ? n : 0] = '\0';
        if (r[i].err != 0 || proc_state_of(r[i].pid) != 'T' || tracer_of(r[i].pid) != 0 ||
            strcmp(got, exe) != 0 || r[i].out_len != 0)
            fail("child %d: err %d state %c tracer %d exe %s, %zu bytes out", i, r[i].err,
                 proc_state_of(r[i].pid), tracer_of(r[i].pid), got, r[i].out_len);
    }
    for (int i = 0; i < 8; i++)
        kill(r[i].pid, SIGCONT);
    run_until_idle(20);
    for (int i = 0; i < 8; i++) {
        check_pattern_rec("held then continued", &r[i], 1000 + (size_t)i, 0);
        if (r[i].conts > 1)
            fail("child %d: %d continues told", i, r[i].conts);
    }
    rec_t bad = {0};
    char *argv[] = {"/nonexistent/prog", NULL};
    px_child_spec_t spec = {.argv = argv, .env = environ, .stop_on_exec = true, .user = &bad};
    if (px_odls_start(odls, &spec) == NULL)
        fail("px_odls_start: %s", strerror(errno));
    run_until_idle(20);
    expect_start_error("held, not found", bad, ENOENT, "exec");
}

static bool stops_pred(void *arg)
{
    rec_t *r = arg;
    return r->stops == 1;
}

static bool conts_pred(void *arg)
{
    rec_t *r = arg;
    return r->conts == 1;
}

/* A running child stopped and continued by signals: each told once. */
static void case_stop_cont(void)
{
    rec_t r = {0};
    char *argv[] = {"/bin/sleep", "30", NULL};
    px_child_t *c = start(&r, argv, NULL, NULL, NULL, false);
    if (c == NULL)
        return;
    px_odls_signal(c, SIGSTOP);
    if (!run_until(stops_pred, &r, 20))
        fail("a stop was not told (stops %d)", r.stops);
    px_odls_signal(c, SIGCONT);
    if (!run_until(conts_pred, &r, 20))
        fail("a continue was not told (conts %d)", r.conts);
    px_odls_signal(c, SIGTERM);
    run_until_idle(20);
    if (!WIFSIGNALED(r.wstatus) || WTERMSIG(r.wstatus) != SIGTERM || r.stops != 1 || r.conts != 1)
        fail("status %#x, %d stops, %d continues", r.wstatus, r.stops, r.conts);
}

static void case_stdin(void)
{
    char *argv[] = {"/bin/cat", NULL};
    rec_t r = {0};
    px_child_t *c = start(&r, argv, NULL, NULL, NULL, true);
    if (c == NULL)
        return;
    /* 2 MB more than any pipe holds: the queue has to wait for writability. */
    size_t big = 2u * 1024 * 1024;
    char *buf = malloc(big);
    for (size_t i = 0; i < big; i++)
        buf[i] = (char)('a' + i % 26);
    if (px_odls_stdin_write(c, "hello\n", 6) < 0 || px_odls_stdin_write(c, buf, big) < 0 ||
        px_odls_stdin_write(c, "bye", 3) < 0)
        fail("px_odls_stdin_write: %s", strerror(errno));
    px_odls_stdin_close(c);
    if (px_odls_stdin_write(c, "x", 1) != -1 || errno != EPIPE)
        fail("a write after close is not EPIPE");
    run_until_idle(20);
    if (r.out_len != 6 + big + 3 || memcmp(r.out, "hello\n", 6) != 0 ||
        memcmp(r.out + 6, buf, big) != 0 || memcmp(r.out + 6 + big, "bye", 3) != 0)
        fail("cat echoed %zu bytes, expected %zu", r.out_len, 6 + big + 3);
    expect_exit("cat", r, 0);

    /* No stdin pipe: EINVAL. */
    char *a2[] = {"/bin/true", NULL};
    rec_t r2 = {0};
    c = start(&r2, a2, NULL, NULL, NULL, false);
    if (c != NULL && (px_odls_stdin_write(c, "x", 1) != -1 || errno != EINVAL))
        fail("stdin write without a pipe is not EINVAL");
    run_until_idle(20);

    /* The reader goes away: EPIPE, not the death of this process by SIGPIPE. */
    char *a3[] = {"/bin/sh", "-c", "exec 0<&-; sleep 0.2", NULL};
    rec_t r3 = {0};
    c = start(&r3, a3, NULL, NULL, NULL, true);
    if (c != NULL) {
        px_odls_stdin_write(c, buf, big);
        run_until_idle(20);
    }
    expect_exit("closed stdin", r3, 0);
    free(buf);
}

static bool has_line(void *arg)
{
    rec_t *r = arg;
    return r->out != NULL && strchr(r->out, '\n') != NULL;
}

static void reap_grandchild(const char *what, pid_t g, int sig)
{
    int st = 0;
    if (g <= 0) {
        fail("%s: no grandchild pid", what);
        return;
    }
    if (waitpid(g, &st, 0) != g) { /* we are its subreaper */
        fail("%s: waitpid(grandchild %d): %s", what, (int)g, strerror(errno));
        return;
    }
    if (sig != 0 && (!WIFSIGNALED(st) || WTERMSIG(st) != sig))
        fail("%s: grandchild status %#x, expected signal %d", what, st, sig);
    if (kill(g, 0) == 0 || errno != ESRCH)
        fail("%s: grandchild %d still exists", what, (int)g);
}

static void case_pgroup(void)
{
    char *argv[] = {"/bin/sh", "-c", "sleep 100 & echo $!; wait", NULL};
    rec_t r = {0};
    px_child_t *c = start(&r, argv, NULL, NULL, NULL, false);
    if (c == NULL)
        return;
    if (!run_until(has_line, &r, 10)) {
        fail("no grandchild pid printed");
        return;
    }
    pid_t g = (pid_t)atoi(r.out);
    if (getpgid(g) != px_child_pid(c))
        fail("grandchild's group %d is not the child's pid %d", (int)getpgid(g),
             (int)px_child_pid(c));
    if (px_odls_signal(c, SIGTERM) < 0)
        fail("px_odls_signal: %s", strerror(errno));
    run_until_idle(20);
    if (!WIFSIGNALED(r.wstatus) || WTERMSIG(r.wstatus) != SIGTERM)
        fail("child status %#x, expected SIGTERM", r.wstatus);
    reap_grandchild("group signal", g, SIGTERM);
    free(r.out);
}

static void case_grandchild(void)
{
    /* The grandchild keeps stdout and stderr open: exited() must not wait for it. */
    char *argv[] = {"/bin/sh", "-c", "sleep 30 & echo $!", NULL};
    rec_t r = {0};
    double t = now();
    if (start(&r, argv, NULL, NULL, NULL, false) == NULL)
        return;
    run_until_idle(10);
    if (now() - t > 5)
        fail("exited() waited %.1f s for a grandchild's pipe", now() - t);
    if (r.out == NULL || atoi(r.out) <= 0) {
        fail("the output written before exit was lost");
        return;
    }
    pid_t g = (pid_t)atoi(r.out);
    kill(g, SIGKILL);
    reap_grandchild("grandchild holding the pipe", g, SIGKILL);
    expect_exit("sh", r, 0);
}

/* ---- stdin backpressure: queued bytes and drained() ------------------------------- */

#define MIB (1024u * 1024u)

typedef struct {
    px_child_t *child;
    int n;         /* drained() calls */
    int err;       /* the last one's */
    size_t queued; /* px_odls_stdin_queued() inside it */
} drain_t;

static bool in_odls_call; /* the test is inside a px_odls_* call */

static void cb_drained(px_child_t *c, int err, void *arg)
{
    drain_t *d = arg;
    rec_t *r = px_child_user(c);
    if (in_odls_call)
        fail("drained() from inside a px_odls call");
    if (c != d->child)
        fail("drained() for another child");
    if (r->exited_n != 0)
        fail("drained() after exited()");
    d->n++;
    d->err = err;
    d->queued = px_odls_stdin_queued(c);
}

static int notify(drain_t *d, size_t mark)
{
    in_odls_call = true;
    int rc = px_odls_stdin_notify(d->child, mark, cb_drained, d);
    in_odls_call = false;
    return rc;
}

static void write_in(px_child_t *c, const void *data, size_t len)
{
    in_odls_call = true;
    if (px_odls_stdin_write(c, data, len) < 0)
        fail("px_odls_stdin_write(%zu): %s", len, strerror(errno));
    in_odls_call = false;
}

static bool never(void *arg)
{
    (void)arg;
    return false;
}

static bool drained_once_more(void *arg)
{
    drain_t *d = arg;
    return d->n > 0;
}

static char *pattern_buf(size_t len)
{
    char *b = malloc(len);
    for (size_t i = 0; b != NULL && i < len; i++)
        b[i] = (char)('a' + (i * 7) % 26);
    return b;
}

static void case_stdin_flow(void)
{
    size_t big = 3 * MIB;
    char *buf = pattern_buf(big);

    /* A child that never reads: the queue stays where the pipe leaves it, a request waits
     * until the child is killed, then drained(EPIPE) comes before exited(). */
    char *a1[] = {"/bin/sleep", "30", NULL};
    rec_t r1 = {0};
    drain_t d1 = {0};
    d1.child = start(&r1, a1, NULL, NULL, NULL, true);
    if (d1.child == NULL)
        return;
    if (px_odls_stdin_queued(d1.child) != 0 || notify(&d1, 1) != 1)
        fail("an empty queue: queued %zu", px_odls_stdin_queued(d1.child));
    write_in(d1.child, buf, big);
    if (px_odls_stdin_queued(d1.child) != big)
        fail("queued %zu after writing %zu", px_odls_stdin_queued(d1.child), big);
    run_until(never, NULL, 0.3);
    size_t q = px_odls_stdin_queued(d1.child);
    if (q >= big || q < big - MIB)
        fail("queued %zu: the pipe should hold some, at most 1 MiB, of %zu", q, big);
    if (notify(&d1, 4 * MIB) != 1)
        fail("%zu queued is below a 4 MiB mark", q);
    in_odls_call = true;
    if (px_odls_stdin_notify(d1.child, 0, cb_drained, &d1) != -1 || errno != EINVAL ||
        px_odls_stdin_notify(d1.child, MIB, NULL, &d1) != -1 || errno != EINVAL)
        fail("mark 0 or no fn: not EINVAL");
    in_odls_call = false;
    if (notify(&d1, MIB) != 0)
        fail("%zu queued, a 1 MiB mark: the request should wait", q);
    run_until(never, NULL, 0.3);
    if (d1.n != 0 || px_odls_stdin_queued(d1.child) != q)
        fail("a child that reads nothing: drained() %d times, queued %zu -> %zu", d1.n, q,
             px_odls_stdin_queued(d1.child));
    px_odls_signal(d1.child, SIGKILL);
    run_until_idle(20);
    if (d1.n != 1 || d1.err != EPIPE || d1.queued != 0)
        fail("killed with bytes queued: drained() %d times, err %d, queued %zu", d1.n, d1.err,
             d1.queued);
    if (!WIFSIGNALED(r1.wstatus) || WTERMSIG(r1.wstatus) != SIGKILL)
        fail("sleep: status %#x, expected SIGKILL", r1.wstatus);

    /* A reader that stops, then reads: drained(0) once the queue is below the mark, and
     * end of input still closes the pipe after every queued byte. */
    char *a2[] = {"/bin/cat", NULL};
    rec_t r2 = {0};
    drain_t d2 = {0};
    d2.child = start(&r2, a2, NULL, NULL, NULL, true);
    if (d2.child == NULL)
        return;
    px_odls_signal(d2.child, SIGSTOP);
    write_in(d2.child, buf, big);
    if (notify(&d2, MIB) != 0)
        fail("3 MiB queued, a 1 MiB mark: the request should wait");
    run_until(never, NULL, 0.3);
    if (d2.n != 0)
        fail("drained() while the reader is stopped");
    px_odls_signal(d2.child, SIGCONT);
    if (!run_until(drained_once_more, &d2, 10))
        fail("no drained() after the reader went on");
    if (d2.n != 1 || d2.err != 0 || d2.queued >= MIB)
        fail("drained() %d times, err %d, queued %zu (mark 1 MiB)", d2.n, d2.err, d2.queued);
    write_in(d2.child, "bye", 3);
    in_odls_call = true;
    px_odls_stdin_close(d2.child);
    in_odls_call = false;
    d2.n = 0;
    int rc = notify(&d2, 1); /* told when all is written (and the pipe closed) */
    run_until_idle(20);
    if (rc == 0 && (d2.n != 1 || d2.err != 0 || d2.queued != 0))
        fail("after close: drained() %d times, err %d, queued %zu", d2.n, d2.err, d2.queued);
    if (rc != 0 && rc != 1)
        fail("notify after close: %d (%s)", rc, strerror(errno));
    if (r2.out_len != big + 3 || memcmp(r2.out, buf, big) != 0 ||
        memcmp(r2.out + big, "bye", 3) != 0)
        fail("cat echoed %zu bytes, expected %zu", r2.out_len, big + 3);
    expect_exit("cat", r2, 0);
    free(buf);
}

static void case_stdin_gone(void)
{
    size_t big = 2 * MIB;
    char *buf = pattern_buf(big);

    /* The child closes its stdin with bytes queued: drained(EPIPE), the bytes dropped. */
    char *a1[] = {"/bin/sh", "-c", "exec 0<&-; sleep 0.3", NULL};
    rec_t r1 = {0};
    drain_t d1 = {0};
    d1.child = start(&r1, a1, NULL, NULL, NULL, true);
    if (d1.child == NULL)
        return;
    write_in(d1.child, buf, big);
    if (notify(&d1, MIB) != 0)
        fail("2 MiB queued, a 1 MiB mark: the request should wait");
    if (!run_until(drained_once_more, &d1, 10))
        fail("no drained() after the child closed its stdin");
    if (d1.n != 1 || d1.err != EPIPE || d1.queued != 0)
        fail("closed stdin: drained() %d times, err %d, queued %zu", d1.n, d1.err, d1.queued);
    if (px_odls_stdin_write(d1.child, "x", 1) != -1 || errno != EPIPE)
        fail("a write to a closed stdin is not EPIPE");
    if (notify(&d1, 1) != -1 || errno != EPIPE)
        fail("a request on a closed stdin is not EPIPE");
    run_until_idle(20);
    expect_exit("closed stdin", r1, 0);

    /* The child exits while a grandchild holds its stdin and reads nothing: the reap
     * drops the queue, drained(EPIPE) comes right before exited(). */
    char *a2[] = {"/bin/sh", "-c", "exec 3<&0; sleep 30 <&3 & echo $!", NULL};
    rec_t r2 = {0};
    drain_t d2 = {0};
    d2.child = start(&r2, a2, NULL, NULL, NULL, true);
    if (d2.child == NULL)
        return;
    write_in(d2.child, buf, big);
    if (notify(&d2, MIB) != 0)
        fail("2 MiB queued, a 1 MiB mark: the request should wait");
    run_until_idle(20);
    if (d2.n != 1 || d2.err != EPIPE || d2.queued != 0)
        fail("reaped with bytes queued: drained() %d times, err %d, queued %zu", d2.n, d2.err,
             d2.queued);
    pid_t g = r2.out != NULL ? (pid_t)atoi(r2.out) : 0;
    expect_exit("sh", r2, 0); /* frees r2.out */
    if (g > 0) {
        kill(g, SIGKILL);
        reap_grandchild("grandchild holding stdin", g, SIGKILL);
    } else {
        fail("no grandchild pid: '%s'", r2.out ? r2.out : "(none)");
    }
    free(buf);
}

static void case_bind(void)
{
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topo);
    int last = hwloc_bitmap_last(allowed);
    if (last < 0) {
        fail("no allowed PU");
        return;
    }
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    hwloc_bitmap_only(set, (unsigned)last);
    char *argv[] = {"/bin/cat", "/proc/self/status", NULL};
    rec_t r = run_one(argv, NULL, NULL, set);
    const char *line = r.out ? strstr(r.out, "Cpus_allowed_list:") : NULL;
    char want[64];
    snprintf(want, sizeof(want), "%d", last);
    if (line == NULL) {
        fail("no Cpus_allowed_list in the child's status");
    } else {
        line += strlen("Cpus_allowed_list:");
        while (*line == ' ' || *line == '\t')
            line++;
        if (strncmp(line, want, strlen(want)) != 0 || line[strlen(want)] != '\n')
            fail("child bound to %.20s, expected %s", line, want);
    }
    expect_exit("bound cat", r, 0);
    /* A PU that does not exist: started(err, "bind"). */
    hwloc_bitmap_only(set, 4000);
    rec_t r2 = run_one(argv, NULL, NULL, set);
    if (r2.err == 0 || strcmp(r2.stage, "bind") != 0)
        fail("binding to PU 4000: started(%d, '%s'), expected an error at 'bind'", r2.err,
             r2.stage);
    free(r2.out);
    hwloc_bitmap_free(set);
}

static void case_destroy(void)
{
    enum { N = 8 };
    rec_t r[N];
    pid_t pids[N];
    char *argv[] = {"/bin/sh", "-c", "sleep 100 & echo $!; wait", NULL};
    memset(r, 0, sizeof(r));
    for (int i = 0; i < N; i++) {
        px_child_t *c = start(&r[i], argv, NULL, NULL, NULL, false);
        pids[i] = c ? px_child_pid(c) : -1;
    }
    for (int i = 0; i < N; i++)
        if (!run_until(has_line, &r[i], 10))
            fail("child %d printed no pid", i);
    in_destroy = true;
    px_odls_destroy(odls);
    odls = NULL;
    for (int i = 0; i < N; i++) {
        if (kill(pids[i], 0) == 0 || errno != ESRCH)
            fail("child %d (pid %d) still exists after destroy", i, (int)pids[i]);
        if (r[i].out != NULL)
            reap_grandchild("destroy", (pid_t)atoi(r[i].out), SIGKILL);
        free(r[i].out);
    }
}

static void expect_text(const char *what, char *t, const char *a, const char *b)
{
    if (t == NULL || strstr(t, a) == NULL || strstr(t, b) == NULL)
        fail("%s: message lacks '%s' or '%s': %s", what, a, b, t ? t : "(null)");
    free(t);
}

static void case_messages(void)
{
    /* The real error of a real start, rendered as the controller will receive it. */
    char *argv[] = {"px-no-such-command", NULL};
    char *env[] = {"PATH=/opt/x/bin:/usr/bin", NULL};
    px_child_spec_t spec = {.argv = argv, .env = env, .wdir = "/nonexistent/wd"};
    rec_t r = {0};
    spec.user = &r;
    if (px_odls_start(odls, &spec) == NULL)
        fail("start: %s", strerror(errno));
    run_until_idle(20);
    expect_text("not found", px_odls_error_text(&spec, r.err, r.stage, "node7", "job3", 5),
                "/nonexistent/wd", "node7");
    expect_text("exec ENOENT", px_odls_error_text(&spec, ENOENT, "exec", "node7", "job3", 5),
                "px-no-such-command", "/opt/x/bin:/usr/bin");
    expect_text("exec EACCES", px_odls_error_text(&spec, EACCES, "exec", "n", "j", 1), "chmod +x",
                "px-no-such-command");
    expect_text("exec other", px_odls_error_text(&spec, ENOEXEC, "exec", "n", "j", 1),
                strerror(ENOEXEC), "rank 1 of job j");
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    hwloc_bitmap_set_range(set, 2, 3);
    spec.cpuset = set;
    expect_text("bind", px_odls_error_text(&spec, EINVAL, "bind", "n", "j", 1), "2-3",
                "--bind-to none");
    hwloc_bitmap_free(set);
    expect_text("fork", px_odls_error_text(&spec, EAGAIN, "fork", "n", "j", 1), "ulimit -u",
                "px-no-such-command");
    expect_text("setup", px_odls_error_text(&spec, EMFILE, "setup", "n", "j", 1), "ulimit -n",
                "px-no-such-command");
    if (px_odls_error_text(NULL, 0, "exec", "n", "j", 0) != NULL || errno != EINVAL)
        fail("px_odls_error_text(NULL) is not EINVAL");
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s <case> <odls_writer>\n", argv[0]);
        return 2;
    }
    writer = argv[2];
    /* Orphaned grandchildren come to us, so the tests can reap and check them. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    base = event_base_new();
    hwloc_topology_init(&topo);
    hwloc_topology_load(topo);
    px_odls_cbs_t cbs = {cb_started, cb_output, cb_exited, cb_stopped};
    odls = px_odls_create(base, topo, &cbs, NULL);
    if (base == NULL || odls == NULL) {
        fprintf(stderr, "setup failed: %s\n", strerror(errno));
        return 1;
    }
    struct timeval tv = {0, 100000};
    struct event *tick = event_new(base, -1, EV_PERSIST, tick_cb, NULL);
    event_add(tick, &tv);

    static const struct {
        const char *name;
        void (*fn)(void);
    } cases[] = {
        {"exec_ok", case_exec_ok},
        {"enoent", case_enoent},
        {"eacces", case_eacces},
        {"badwdir", case_badwdir},
        {"status", case_status},
        {"binary", case_binary},
        {"big", case_big},
        {"quick", case_quick},
        {"many", case_many},
        {"stdin", case_stdin},
        {"pgroup", case_pgroup},
        {"grandchild", case_grandchild},
        {"bind", case_bind},
        {"destroy", case_destroy},
        {"messages", case_messages},
        {"stdin_flow", case_stdin_flow},
        {"stdin_gone", case_stdin_gone},
        {"stop_exec", case_stop_exec},
        {"stop_cont", case_stop_cont},
    };
    bool found = false;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (strcmp(cases[i].name, argv[1]) == 0) {
            cases[i].fn();
            found = true;
        }
    }
    if (!found) {
        fprintf(stderr, "unknown case %s\n", argv[1]);
        return 2;
    }
    if (odls != NULL && px_odls_count(odls) != 0)
        fail("%zu children left", px_odls_count(odls));
    px_odls_destroy(odls);
    event_free(tick);
    event_base_free(base);
    hwloc_topology_destroy(topo);
    if (failures) {
        fprintf(stderr, "%s: %d failure(s)\n", argv[1], failures);
        return 1;
    }
    printf("%s: ok\n", argv[1]);
    return 0;
}
