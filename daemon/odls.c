/* daemon: local launch (px_odls.h) — fork/exec of a node's processes, their stdio pipes
 * and a CLOEXEC status pipe read on the loop, exit tracking by pid through a libevent
 * SIGCHLD event. All of it runs on the daemon's loop thread (the fork too). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "daemon/px_odls.h"

#include <errno.h>
#include <hwloc/glibc-sched.h>
#include <sched.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PX_ODLS_READ_CHUNK (1024 * 1024)
/* Reads per readiness callback (fairness between children). */
#define PX_ODLS_READS_PER_CB 16
/* After a reap, at most this much is drained from a pipe a grandchild may still feed. */
#define PX_ODLS_DRAIN_MAX (4 * 1024 * 1024)

/* What a child that fails before exec writes on its status pipe. */
enum { PX_STAGE_CHDIR = 1, PX_STAGE_BIND, PX_STAGE_EXEC, PX_STAGE_SETUP, PX_STAGE_TRACE };
typedef struct {
    int32_t stage;
    int32_t err;
} px_odls_status_t;

struct px_child {
    px_odls_t *o; /* borrowed: the owner */
    pid_t pid;
    void *user; /* borrowed: the caller's */
    bool reaped;
    int wstatus;
    bool started;   /* started() was delivered */
    bool tracing;   /* stop_on_exec: traced until its exec stop, then detached */
    bool exec_held; /* detached with SIGSTOP at its first instruction: started() is due */
    int note;       /* a stop (1) or continue (2) to tell, or 0 */
    int status_fd;  /* read end of the status pipe, -1 once resolved */
    struct event *ev_status;
    px_odls_status_t rec;
    size_t rec_len;
    int out_fd, err_fd; /* read ends, -1 at end of file */
    struct event *ev_out, *ev_err;
    bool out_paused; /* px_odls_output_pause: ev_out/ev_err not added */
    int in_fd;       /* write end of stdin, -1 if none or closed */
    struct event *ev_in;
    char *in_buf; /* owned: queued stdin bytes [in_off, in_len) */
    size_t in_off, in_len, in_cap;
    bool in_close;  /* close once the queue is written */
    bool in_broken; /* EPIPE seen, or closed */
    bool has_stdin;
    /* a drained() request, pending while in_fn != NULL; in_arg is the requester's (borrowed) */
    px_odls_drained_fn in_fn;
    void *in_arg;
    size_t in_mark;
    struct px_child *prev, *next; /* the tracked list */
    struct px_child *done_next;   /* the reaped list of one pass */
    struct px_child *note_next;   /* the list of one pass with something to tell */
};

struct px_odls {
    struct event_base *base; /* borrowed */
    hwloc_topology_t topo;   /* borrowed */
    px_odls_cbs_t cbs;
    void *cbdata;
    struct event *ev_sigchld;
    struct event *ev_check; /* a deferred reap pass (after create and each start) */
    px_child_t *head;
    size_t count;
    char *rbuf; /* owned: PX_ODLS_READ_CHUNK bytes for reads */
    long max_fd;
};

/* ---- Small helpers --------------------------------------------------------------- */

static int px_odls_set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return -1;
    return 0;
}

static void px_odls_close(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

static void px_odls_free_event(struct event **ev)
{
    if (*ev != NULL) {
        event_free(*ev);
        *ev = NULL;
    }
}

static const char *px_odls_stage_name(int stage)
{
    switch (stage) {
    case PX_STAGE_CHDIR:
        return "chdir";
    case PX_STAGE_BIND:
        return "bind";
    case PX_STAGE_EXEC:
        return "exec";
    case PX_STAGE_TRACE:
        return "ptrace";
    default:
        return "setup";
    }
}

/* ---- started(): resolved from the status pipe ------------------------------------ */

/* Read what the status pipe holds. Returns 1 when resolved (record or end of file),
 * 0 when nothing more can be known yet. */
static int px_odls_status_read(px_child_t *c)
{
    while (c->rec_len < sizeof(c->rec)) {
        ssize_t n = read(c->status_fd, (char *)&c->rec + c->rec_len, sizeof(c->rec) - c->rec_len);
        if (n > 0) {
            c->rec_len += (size_t)n;
            continue;
        }
        if (n == 0)
            return 1;
        if (errno == EINTR)
            continue;
        return errno == EAGAIN ? 0 : 1;
    }
    return 1;
}

/* Deliver started() now. force: the child has exec'd (it wrote output) or was reaped,
 * so missing data means success even if another child still holds the pipe's write
 * end for a moment. */
static void px_odls_resolve_started(px_child_t *c, bool force)
{
    if (c->started || c->tracing)
        return; /* a traced child's exec is told once it is held (px_odls_reap_pass) */
    if (!px_odls_status_read(c) && !force)
        return;
    px_odls_free_event(&c->ev_status);
    px_odls_close(&c->status_fd);
    c->started = true;
    px_odls_t *o = c->o;
    if (c->rec_len == sizeof(c->rec) && c->rec.err != 0)
        o->cbs.started(c, c->rec.err, px_odls_stage_name(c->rec.stage), o->cbdata);
    else
        o->cbs.started(c, 0, NULL, o->cbdata);
}

static void px_odls_status_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    px_odls_resolve_started(arg, false);
}

/* ---- Output ---------------------------------------------------------------------- */

/* Read up to max_reads chunks from one pipe and deliver them; a readiness callback
 * (drain false) stops as soon as an output callback paused the child. Closes the pipe
 * at end of file or error. */
static void px_odls_read_pipe(px_child_t *c, int channel, int max_reads, size_t max_bytes,
                              bool drain)
{
    int *fd = channel == PX_CHILD_STDOUT ? &c->out_fd : &c->err_fd;
    struct event **ev = channel == PX_CHILD_STDOUT ? &c->ev_out : &c->ev_err;
    px_odls_t *o = c->o;
    size_t total = 0;
    for (int i = 0; *fd >= 0 && i < max_reads && total < max_bytes && (drain || !c->out_paused);
         i++) {
        ssize_t n = read(*fd, o->rbuf, PX_ODLS_READ_CHUNK);
        if (n > 0) {
            px_odls_resolve_started(c, true); /* output => the exec succeeded */
            total += (size_t)n;
            o->cbs.output(c, channel, o->rbuf, (size_t)n, o->cbdata);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        px_odls_free_event(ev); /* end of file, or an error: this pipe is done */
        px_odls_close(fd);
    }
}

static void px_odls_out_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    px_odls_read_pipe(arg, PX_CHILD_STDOUT, PX_ODLS_READS_PER_CB, SIZE_MAX, false);
}

static void px_odls_err_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    px_odls_read_pipe(arg, PX_CHILD_STDERR, PX_ODLS_READS_PER_CB, SIZE_MAX, false);
}

void px_odls_output_pause(px_child_t *c, bool pause)
{
    if (c == NULL || c->out_paused == pause)
        return;
    c->out_paused = pause;
    struct event *evs[2] = {c->ev_out, c->ev_err};
    for (int i = 0; i < 2; i++) {
        if (evs[i] == NULL)
            continue; /* that pipe is done */
        if (pause)
            event_del(evs[i]);
        else
            event_add(evs[i], NULL);
    }
}

/* ---- stdin ----------------------------------------------------------------------- */

static size_t px_odls_stdin_left(const px_child_t *c)
{
    return c->in_len - c->in_off;
}

/* Close the pipe; what is still queued is dropped. */
static void px_odls_stdin_shut(px_child_t *c)
{
    px_odls_free_event(&c->ev_in);
    px_odls_close(&c->in_fd);
    free(c->in_buf);
    c->in_buf = NULL;
    c->in_off = c->in_len = c->in_cap = 0;
    c->in_broken = true;
}

/* Answer a pending drained() request. It is cleared first, so fn may ask again; the caller
 * touches nothing of c after this returns. */
static void px_odls_stdin_fire(px_child_t *c, int err)
{
    if (c->in_fn == NULL)
        return;
    px_odls_drained_fn fn = c->in_fn;
    void *arg = c->in_arg;
    c->in_fn = NULL;
    c->in_arg = NULL;
    c->in_mark = 0;
    fn(c, err, arg);
}

static void px_odls_stdin_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    px_child_t *c = arg;
    while (c->in_off < c->in_len) {
        ssize_t w = write(fd, c->in_buf + c->in_off, c->in_len - c->in_off);
        if (w > 0) {
            c->in_off += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            break; /* the pipe is full: the persistent event stays */
        /* EPIPE (the reader is gone) or another error: the rest is dropped */
        px_odls_stdin_shut(c);
        px_odls_stdin_fire(c, EPIPE);
        return;
    }
    if (c->in_off == c->in_len) {
        c->in_off = c->in_len = 0;
        event_del(c->ev_in);
        if (c->in_close)
            px_odls_stdin_shut(c);
    }
    if (c->in_fn != NULL && px_odls_stdin_left(c) < c->in_mark)
        px_odls_stdin_fire(c, 0);
}

int px_odls_stdin_write(px_child_t *c, const void *data, size_t len)
{
    if (c == NULL || !c->has_stdin) {
        errno = EINVAL;
        return -1;
    }
    if (c->in_broken || c->in_close || c->reaped) {
        errno = EPIPE;
        return -1;
    }
    if (len == 0)
        return 0;
    if (c->in_off > 0 && c->in_off == c->in_len)
        c->in_off = c->in_len = 0;
    if (c->in_len + len > c->in_cap) {
        /* Compact first, then grow. */
        if (c->in_off > 0) {
            memmove(c->in_buf, c->in_buf + c->in_off, c->in_len - c->in_off);
            c->in_len -= c->in_off;
            c->in_off = 0;
        }
        if (c->in_len + len > c->in_cap) {
            size_t cap = c->in_cap ? c->in_cap : 4096;
            while (cap < c->in_len + len)
                cap *= 2;
            char *b = realloc(c->in_buf, cap);
            if (b == NULL)
                return -1;
            c->in_buf = b;
            c->in_cap = cap;
        }
    }
    memcpy(c->in_buf + c->in_len, data, len);
    c->in_len += len;
    if (event_add(c->ev_in, NULL) < 0) {
        errno = EIO;
        return -1;
    }
    return 0;
}

void px_odls_stdin_close(px_child_t *c)
{
    if (c == NULL || !c->has_stdin || c->in_broken)
        return;
    c->in_close = true;
    /* An empty queue has no pending request (that needs mark > 0 bytes queued): closing
     * here calls nobody. */
    if (c->in_off == c->in_len)
        px_odls_stdin_shut(c);
}

size_t px_odls_stdin_queued(const px_child_t *c)
{
    if (c == NULL || !c->has_stdin || c->in_broken || c->reaped)
        return 0;
    return px_odls_stdin_left(c);
}

int px_odls_stdin_notify(px_child_t *c, size_t mark, px_odls_drained_fn fn, void *arg)
{
    if (c == NULL || !c->has_stdin || mark == 0 || fn == NULL) {
        errno = EINVAL;
        return -1;
    }
    c->in_fn = NULL; /* a pending request is replaced */
    c->in_arg = NULL;
    c->in_mark = 0;
    if (c->in_broken || c->reaped) {
        errno = EPIPE;
        return -1;
    }
    if (px_odls_stdin_left(c) < mark)
        return 1;
    c->in_mark = mark;
    c->in_fn = fn;
    c->in_arg = arg;
    return 0;
}

/* ---- Exit tracking ---------------------------------------------------------------- */

static void px_odls_child_free(px_child_t *c)
{
    px_odls_free_event(&c->ev_status);
    px_odls_free_event(&c->ev_out);
    px_odls_free_event(&c->ev_err);
    px_odls_free_event(&c->ev_in);
    px_odls_close(&c->status_fd);
    px_odls_close(&c->out_fd);
    px_odls_close(&c->err_fd);
    px_odls_close(&c->in_fd);
    free(c->in_buf);
    free(c);
}

static void px_odls_unlink(px_odls_t *o, px_child_t *c)
{
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        o->head = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

/* A reaped child: started() if still owed, what its pipes hold, then exited(). */
static void px_odls_finish(px_odls_t *o, px_child_t *c)
{
    px_odls_resolve_started(c, true);
    px_odls_read_pipe(c, PX_CHILD_STDOUT, INT_MAX, PX_ODLS_DRAIN_MAX, true);
    px_odls_read_pipe(c, PX_CHILD_STDERR, INT_MAX, PX_ODLS_DRAIN_MAX, true);
    px_odls_free_event(&c->ev_out);
    px_odls_free_event(&c->ev_err);
    px_odls_close(&c->out_fd); /* a grandchild may hold it open: we stop here */
    px_odls_close(&c->err_fd);
    px_odls_stdin_shut(c);
    px_odls_stdin_fire(c, EPIPE); /* still pending: queued bytes were dropped */
    px_odls_unlink(o, c);
    o->count--;
    o->cbs.exited(c, c->wstatus, o->cbdata);
    px_odls_child_free(c);
}

/* A traced child (stop_on_exec) stopped: at its exec (SIGTRAP), it is detached with
 * SIGSTOP and stays stopped at its first instruction; any other signal came before the
 * exec and is passed on (a stop signal is dropped). Loop thread only (the tracer is the thread that
 * forked). */
static void px_odls_trace_stop(px_child_t *c, int sig)
{
    if (sig != SIGTRAP) {
        /* a stop signal is not passed on: injected, it would stop the tracee again, which
         * reports the same stop (a loop); it is held at its exec anyway */
        bool stop = sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
        ptrace(PTRACE_CONT, c->pid, NULL, (void *)(intptr_t)(stop ? 0 : sig));
        return;
    }
    /* ESRCH: it was killed meanwhile; its reap follows */
    ptrace(PTRACE_DETACH, c->pid, NULL, (void *)(intptr_t)SIGSTOP);
    c->tracing = false;
    c->exec_held = true;
}

/* waitpid(pid, WNOHANG | WUNTRACED | WCONTINUED) every tracked child; then tell the
 * stops, continues and exec holds seen, and finish those reaped. Callbacks may start or
 * signal children: the children concerned are first moved to lists of their own. */
static void px_odls_reap_pass(px_odls_t *o)
{
    px_child_t *done = NULL, **tail = &done;
    px_child_t *noted = NULL, **ntail = &noted;
    for (px_child_t *c = o->head; c != NULL; c = c->next) {
        if (c->reaped)
            continue;
        int st;
        pid_t r;
        do {
            r = waitpid(c->pid, &st, WNOHANG | WUNTRACED | WCONTINUED);
        } while (r < 0 && errno == EINTR);
        if (r == c->pid && (WIFSTOPPED(st) || WIFCONTINUED(st))) {
            if (c->tracing && WIFSTOPPED(st)) {
                px_odls_trace_stop(c, WSTOPSIG(st));
            } else {
                c->note = WIFSTOPPED(st) ? 1 : 2;
            }
            if (c->exec_held || c->note != 0) {
                c->note_next = NULL;
                *ntail = c;
                ntail = &c->note_next;
            }
            continue;
        }
        if (r == c->pid || (r < 0 && errno == ECHILD)) {
            /* ECHILD: someone else reaped it (should not happen); report it gone. */
            c->reaped = true;
            c->tracing = false;
            c->wstatus = r == c->pid ? st : 0xff00; /* as if exit(255) */
            c->done_next = NULL;
            *tail = c;
            tail = &c->done_next;
        }
    }
    while (noted != NULL) {
        px_child_t *c = noted;
        noted = c->note_next;
        if (c->exec_held) {
            c->exec_held = false;
            px_odls_resolve_started(c, true); /* it exec'd: the trap comes at its end */
        }
        int note = c->note;
        c->note = 0;
        if (note != 0 && o->cbs.stopped != NULL) {
            /* seen stopped: it exec'd (the fork returned after the exec), started() first */
            px_odls_resolve_started(c, true);
            o->cbs.stopped(c, note == 1, o->cbdata);
        }
    }
    while (done != NULL) {
        px_child_t *c = done;
        done = c->done_next;
        px_odls_finish(o, c);
    }
}

static void px_odls_sigchld_cb(evutil_socket_t sig, short what, void *arg)
{
    (void)sig;
    (void)what;
    px_odls_reap_pass(arg);
}

static void px_odls_check_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    px_odls_reap_pass(arg);
}

/* ---- Create / destroy -------------------------------------------------------------- */

px_odls_t *px_odls_create(struct event_base *base, hwloc_topology_t topo, const px_odls_cbs_t *cbs,
                          void *cbdata)
{
    if (base == NULL || cbs == NULL || cbs->started == NULL || cbs->output == NULL ||
        cbs->exited == NULL) {
        errno = EINVAL;
        return NULL;
    }
    px_odls_t *o = calloc(1, sizeof(*o));
    if (o == NULL)
        return NULL;
    o->base = base;
    o->topo = topo;
    o->cbs = *cbs;
    o->cbdata = cbdata;
    /* Page-aligned: a kernel copy into a large buffer at a page + 16 (where malloc puts
     * it) runs at half the speed on some CPUs. */
    if (posix_memalign((void **)&o->rbuf, 4096, PX_ODLS_READ_CHUNK) != 0)
        o->rbuf = NULL;
    o->ev_sigchld = evsignal_new(base, SIGCHLD, px_odls_sigchld_cb, o);
    o->ev_check = event_new(base, -1, 0, px_odls_check_cb, o);
    if (o->rbuf == NULL || o->ev_sigchld == NULL || o->ev_check == NULL)
        goto error;
    if (event_add(o->ev_sigchld, NULL) < 0) {
        errno = EBUSY; /* another base owns the signals */
        goto error;
    }
    o->max_fd = sysconf(_SC_OPEN_MAX);
    if (o->max_fd < 0 || o->max_fd > 65536)
        o->max_fd = 65536;
    /* Writing to a child's closed stdin must be EPIPE, not the daemon's death. Children
     * get the default disposition back before exec. */
    signal(SIGPIPE, SIG_IGN);
    /* A SIGCHLD that came before the event was added is not lost: a pass soon. */
    event_active(o->ev_check, EV_TIMEOUT, 0);
    return o;
error : {
    int e = errno ? errno : ENOMEM;
    if (o->ev_sigchld != NULL)
        event_free(o->ev_sigchld);
    if (o->ev_check != NULL)
        event_free(o->ev_check);
    free(o->rbuf);
    free(o);
    errno = e;
    return NULL;
}
}

void px_odls_destroy(px_odls_t *o)
{
    if (o == NULL)
        return;
    for (px_child_t *c = o->head; c != NULL; c = c->next) {
        if (c->reaped)
            continue;
        kill(-c->pid, SIGKILL);
        kill(c->pid, SIGKILL); /* in case it never got its own group */
    }
    while (o->head != NULL) {
        px_child_t *c = o->head;
        if (!c->reaped) {
            int st;
            while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
                ;
        }
        px_odls_unlink(o, c);
        px_odls_child_free(c);
    }
    event_free(o->ev_sigchld);
    event_free(o->ev_check);
    free(o->rbuf);
    free(o);
}

/* ---- Start ------------------------------------------------------------------------- */

/* Everything the child needs, prepared before fork so the child only makes system
 * calls (and the binding). */
typedef struct {
    char *const *argv;
    char *const *env;
    const char *wdir;
    char **cands; /* owned: paths to try execve on, NULL-terminated */
    int in_src, out_src, err_src, status_fd;
    int pass_src;        /* -1, or the fd the child gets as PX_ODLS_PASS_FD */
    cpu_set_t *affinity; /* owned: the binding hwloc computed, NULL = not bound */
    size_t affinity_size;
    long max_fd;
    pid_t parent; /* the daemon: the child's life is tied to it */
    bool trace;   /* stop_on_exec: PTRACE_TRACEME before exec */
} px_odls_exec_t;

static const char *px_odls_env_path(char *const *env)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        if (strncmp(env[i], "PATH=", 5) == 0)
            return env[i] + 5;
    return NULL;
}

void px_odls_free_cands(char **cands)
{
    for (size_t i = 0; cands != NULL && cands[i] != NULL; i++)
        free(cands[i]);
    free(cands);
}

char **px_odls_candidates(const char *argv0, char *const *env)
{
    if (strchr(argv0, '/') != NULL) {
        char **c = calloc(2, sizeof(*c));
        if (c == NULL || (c[0] = strdup(argv0)) == NULL) {
            free(c);
            return NULL;
        }
        return c;
    }
    const char *path = px_odls_env_path(env);
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    size_t n = 2;
    for (const char *p = path; *p; p++)
        n += *p == ':';
    char **c = calloc(n, sizeof(*c));
    if (c == NULL)
        return NULL;
    size_t k = 0;
    const char *p = path;
    for (;;) {
        const char *colon = strchr(p, ':');
        size_t dl = colon ? (size_t)(colon - p) : strlen(p);
        size_t len = dl + 1 + strlen(argv0) + 1;
        char *s = malloc(len);
        if (s == NULL) {
            px_odls_free_cands(c);
            return NULL;
        }
        if (dl == 0)
            snprintf(s, len, "%s", argv0);
        else
            snprintf(s, len, "%.*s/%s", (int)dl, p, argv0);
        c[k++] = s;
        if (colon == NULL)
            break;
        p = colon + 1;
    }
    return c;
}

static void px_odls_child_fail(int fd, int stage, int err)
{
    px_odls_status_t rec = {.stage = stage, .err = err ? err : EINVAL};
    ssize_t w;
    do {
        w = write(fd, &rec, sizeof(rec));
    } while (w < 0 && errno == EINTR);
    _exit(127);
}

/* In the child: never returns. The child shares the daemon's memory until it execs
 * (vfork), so it only makes system calls: no allocation, no library state touched; what
 * it needs (exec candidates, the affinity mask) was prepared by the parent. */
static void px_odls_child(const px_odls_exec_t *x)
{
    /* Default dispositions (the daemon ignores SIGPIPE, libevent catches SIGCHLD), then
     * an empty mask (the parent blocked everything around fork). */
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &sa, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* Its own session, hence its own process group (pgid = pid), as Hydra's proxy does:
     * with the kernel's autogroup scheduling each session is one group of the CPUs' fair
     * share, and a job's processes in the daemon's session would share one share with
     * the daemon and every other job on the node (MPICH's MPI_Init took 2-3x as long as
     * under Hydra on a loaded node, bench/README.md). setsid fails only for a process
     * group leader, which the child of vfork is not; setpgid is the fallback. */
    if (setsid() < 0)
        setpgid(0, 0);
    /* Tie the child's life to the daemon's: SIGKILL when the thread that forked it (the
     * loop thread) ends, even when the daemon itself is SIGKILLed. Set before exec, and
     * then the parent is checked: had it died before the prctl, nothing would fire. This
     * covers the child only; what it forks itself is reached through its process group
     * by a living daemon, not by this. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
        px_odls_child_fail(x->status_fd, PX_STAGE_SETUP, errno);
    if (getppid() != x->parent)
        _exit(127); /* the daemon is gone: no one to report to */

    /* Move every source above 2 first (the passed fd above 4), so a source that is
     * itself 0..4 survives the dup2s; the status pipe goes to fd 3 (close-on-exec), the
     * passed fd to 4 (kept across exec) and everything above is closed. */
    int in = fcntl(x->in_src, F_DUPFD_CLOEXEC, 4);
    int out = fcntl(x->out_src, F_DUPFD_CLOEXEC, 4);
    int err = fcntl(x->err_src, F_DUPFD_CLOEXEC, 4);
    int st = fcntl(x->status_fd, F_DUPFD_CLOEXEC, 4);
    int pass = x->pass_src >= 0 ? fcntl(x->pass_src, F_DUPFD_CLOEXEC, PX_ODLS_PASS_FD + 1) : -1;
    if (st < 0)
        px_odls_child_fail(x->status_fd, PX_STAGE_SETUP, errno);
    if (dup3(st, 3, O_CLOEXEC) < 0)
        px_odls_child_fail(st, PX_STAGE_SETUP, errno);
    st = 3;
    if (in < 0 || out < 0 || err < 0 || (x->pass_src >= 0 && pass < 0))
        px_odls_child_fail(st, PX_STAGE_SETUP, errno);
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
        px_odls_child_fail(st, PX_STAGE_SETUP, errno);
    if (pass >= 0 && dup2(pass, PX_ODLS_PASS_FD) < 0) /* dup2 clears close-on-exec */
        px_odls_child_fail(st, PX_STAGE_SETUP, errno);
    unsigned first = pass >= 0 ? PX_ODLS_PASS_FD + 1 : PX_ODLS_PASS_FD;
    if (syscall(SYS_close_range, first, ~0U, 0U) < 0)
        for (long fd = first; fd < x->max_fd; fd++)
            close((int)fd);

    if (x->wdir != NULL && chdir(x->wdir) < 0)
        px_odls_child_fail(st, PX_STAGE_CHDIR, errno);
    if (x->affinity != NULL && sched_setaffinity(0, x->affinity_size, x->affinity) < 0)
        px_odls_child_fail(st, PX_STAGE_BIND, errno ? errno : EINVAL);
    /* last before exec: a successful execve then stops us with SIGTRAP for our tracer */
    if (x->trace && ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
        px_odls_child_fail(st, PX_STAGE_TRACE, errno);

    int failed = ENOENT;
    bool eacces = false;
    for (size_t i = 0; x->cands[i] != NULL; i++) {
        execve(x->cands[i], x->argv, x->env);
        failed = errno;
        if (failed == EACCES)
            eacces = true;
        else if (failed != ENOENT && failed != ENOTDIR)
            break; /* a real answer about an existing file (ENOEXEC, E2BIG...) */
    }
    if (eacces && (failed == ENOENT || failed == ENOTDIR))
        failed = EACCES;
    px_odls_child_fail(st, PX_STAGE_EXEC, failed);
}

/* vfork: no copy of the daemon's page tables (the cost that grows with its memory); the
 * parent resumes once the child has exec'd or failed. A function of its own, so no
 * local of the caller lives in the frame the child borrows. */
__attribute__((noinline)) static pid_t px_odls_vfork(const px_odls_exec_t *x)
{
    pid_t pid = vfork();
    if (pid == 0)
        px_odls_child(x);
    return pid;
}

static int px_odls_pipe(int fds[2], int parent_end)
{
    if (pipe2(fds, O_CLOEXEC) < 0)
        return -1;
    if (px_odls_set_nonblock(fds[parent_end]) < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    return 0;
}

px_child_t *px_odls_start(px_odls_t *o, const px_child_spec_t *spec)
{
    int pout[2] = {-1, -1}, perr[2] = {-1, -1}, pst[2] = {-1, -1}, pin[2] = {-1, -1};
    px_child_t *c = NULL;
    px_odls_exec_t x;
    memset(&x, 0, sizeof(x));
    int e;
    if (o == NULL || spec == NULL || spec->argv == NULL || spec->argv[0] == NULL ||
        spec->argv[0][0] == '\0') {
        errno = EINVAL;
        return NULL;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->o = o;
    c->user = spec->user;
    c->status_fd = c->out_fd = c->err_fd = c->in_fd = -1;
    if (px_odls_pipe(pout, 0) < 0 || px_odls_pipe(perr, 0) < 0 || px_odls_pipe(pst, 0) < 0)
        goto error;
    if (spec->stdin_pipe) {
        if (px_odls_pipe(pin, 1) < 0)
            goto error;
    } else if ((pin[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
        goto error;
    }
    /* Bigger pipes: fewer wake-ups for chatty children (best effort). */
    fcntl(pout[0], F_SETPIPE_SZ, 1024 * 1024);
    fcntl(perr[0], F_SETPIPE_SZ, 256 * 1024);
    c->out_fd = pout[0];
    c->err_fd = perr[0];
    c->status_fd = pst[0];
    c->ev_out = event_new(o->base, c->out_fd, EV_READ | EV_PERSIST, px_odls_out_cb, c);
    c->ev_err = event_new(o->base, c->err_fd, EV_READ | EV_PERSIST, px_odls_err_cb, c);
    c->ev_status = event_new(o->base, c->status_fd, EV_READ | EV_PERSIST, px_odls_status_cb, c);
    if (c->ev_out == NULL || c->ev_err == NULL || c->ev_status == NULL) {
        errno = ENOMEM;
        goto error;
    }
    if (spec->stdin_pipe) {
        c->has_stdin = true;
        c->in_fd = pin[1];
        pin[1] = -1;
        c->ev_in = event_new(o->base, c->in_fd, EV_WRITE | EV_PERSIST, px_odls_stdin_cb, c);
        if (c->ev_in == NULL) {
            errno = ENOMEM;
            goto error;
        }
    }
    x.argv = spec->argv;
    x.env = spec->env;
    x.wdir = spec->wdir;
    x.cands = px_odls_candidates(spec->argv[0], spec->env);
    if (x.cands == NULL)
        goto error;
    x.in_src = pin[0];
    x.out_src = pout[1];
    x.err_src = perr[1];
    x.status_fd = pst[1];
    x.pass_src = spec->pass_fd != NULL ? *spec->pass_fd : -1;
    if (o->topo != NULL && spec->cpuset != NULL) {
        /* hwloc turns the binding into the kernel's mask here, in the parent */
        int last = hwloc_bitmap_last(spec->cpuset);
        int ncpus = last >= 0 && last + 1 > CPU_SETSIZE ? last + 1 : CPU_SETSIZE;
        x.affinity = CPU_ALLOC((size_t)ncpus);
        x.affinity_size = CPU_ALLOC_SIZE((size_t)ncpus);
        if (x.affinity == NULL || hwloc_cpuset_to_glibc_sched_affinity(
                                      o->topo, spec->cpuset, x.affinity, x.affinity_size) < 0) {
            errno = ENOMEM;
            goto error;
        }
    }
    x.max_fd = o->max_fd;
    x.parent = getpid();
    x.trace = spec->stop_on_exec;
    c->tracing = spec->stop_on_exec;

    /* Block every signal around fork: no handler of the daemon runs in the child. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = px_odls_vfork(&x);
    e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (pid < 0) {
        errno = e;
        goto error;
    }
    /* Recorded before the loop can run the SIGCHLD event. */
    c->pid = pid;
    setpgid(pid, pid); /* also here, so kill(-pid) works at once (races with the child's) */
    c->next = o->head;
    if (o->head != NULL)
        o->head->prev = c;
    o->head = c;
    o->count++;
    close(pout[1]);
    close(perr[1]);
    close(pst[1]);
    close(pin[0]);
    px_odls_free_cands(x.cands);
    CPU_FREE(x.affinity);
    event_add(c->ev_out, NULL);
    event_add(c->ev_err, NULL);
    event_add(c->ev_status, NULL);
    event_active(o->ev_check, EV_TIMEOUT, 0);
    return c;
error:
    e = errno ? errno : ENOMEM;
    px_odls_free_cands(x.cands);
    if (x.affinity != NULL)
        CPU_FREE(x.affinity);
    for (int i = 0; i < 2; i++) {
        if (pout[i] >= 0 && (c == NULL || pout[i] != c->out_fd))
            close(pout[i]);
        if (perr[i] >= 0 && (c == NULL || perr[i] != c->err_fd))
            close(perr[i]);
        if (pst[i] >= 0 && (c == NULL || pst[i] != c->status_fd))
            close(pst[i]);
        if (pin[i] >= 0)
            close(pin[i]);
    }
    if (c != NULL)
        px_odls_child_free(c);
    errno = e;
    return NULL;
}

/* ---- Accessors ----------------------------------------------------------------------- */

pid_t px_child_pid(const px_child_t *c)
{
    return c->pid;
}

void *px_child_user(const px_child_t *c)
{
    return c->user;
}

/* Whether pid catches or ignores sig (its /proc status masks); false when unknown. */
static bool handles_signal(pid_t pid, int sig)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    bool handled = false;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "SigCgt:", 7) == 0 || strncmp(line, "SigIgn:", 7) == 0) {
            unsigned long long mask = strtoull(line + 7, NULL, 16);
            handled = handled || (mask >> (sig - 1) & 1) != 0;
        }
    }
    if (f != NULL)
        fclose(f);
    return handled;
}

int px_odls_signal(px_child_t *c, int sig)
{
    if (c == NULL) {
        errno = EINVAL;
        return -1;
    }
    if (c->reaped) {
        errno = ESRCH; /* its pid may already belong to someone else */
        return -1;
    }
    /* The child leads a session of its own, so its process group is orphaned: there the
     * kernel discards SIGTSTP, SIGTTIN and SIGTTOU whose action is the default, to stop.
     * To a child that neither catches nor ignores it, such a signal goes as SIGSTOP,
     * which is what its default action does. */
    if ((sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) && !handles_signal(c->pid, sig))
        sig = SIGSTOP;
    if (kill(-c->pid, sig) == 0)
        return 0;
    return kill(c->pid, sig); /* it may not have its group yet */
}

size_t px_odls_count(const px_odls_t *o)
{
    return o != NULL ? o->count : 0;
}
