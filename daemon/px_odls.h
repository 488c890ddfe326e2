/* daemon: local launch of one node's processes — fork/exec with the environment, working
 * directory and binding the controller chose, stdio pipes read on the loop, exit tracking
 * by pid. Everything here runs on the daemon's libevent loop (its main thread); the
 * controller's own node agent (prte) and prted use this same code.
 *
 * Lifecycle of a child, in callback order (each exactly once, never from inside
 * px_odls_start):
 *   started(child, 0, NULL)          the exec succeeded, or
 *   started(child, errno, "stage")   it failed before exec ("chdir", "bind", "exec",
 *                                    "ptrace" (stop_on_exec refused by the kernel), or
 *                                    "setup": moving its stdio descriptors in place)
 *   stopped(child, true|false)*      it stopped (SIGSTOP, SIGTSTP...) or continued (SIGCONT):
 *                                    what waitpid's WUNTRACED / WCONTINUED tell, as they
 *                                    come, always after started() (a stop and a continue
 *                                    between two looks may be told as the continue
 *                                    alone); optional callback (NULL: not told)
 *   output(child, channel, data)*    bytes read from its stdout/stderr pipes, as read
 *   exited(child, wait status)       it was reaped (waitpid(pid)) AND both pipes reached
 *                                    end of file or were drained; nothing follows.
 * A child that fails before exec still gets exited() (status of its _exit(127)).
 * stop_on_exec: the child asks to be traced (PTRACE_TRACEME) right before exec, so the
 * kernel stops it at the new program's first instruction; the loop thread (its tracer,
 * as the thread that forked it) then detaches with SIGSTOP, which leaves it stopped and
 * untraced: a debugger may attach, SIGCONT resumes it. Its started(0) comes only once
 * it is detached, so a caller that waits for every started() knows every such child is
 * held at its first instruction. Signals it gets before the exec are passed on.
 * The child is freed by the library right after exited() returns.
 * output() may come before the child is reaped; after the reap, both pipes are drained
 * of what they hold (bounded: a grandchild keeping them open and writing does not delay
 * exited()) and closed. The status pipe is read on the loop: started(0) when it reaches
 * end of file at exec, or as soon as the child writes output or is reaped without an
 * error record. Unknown children (pids not started here) are never waited for.
 * Don't call px_odls_destroy from inside a callback.
 */
#ifndef PX_ODLS_H
#define PX_ODLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <event2/event.h>
#include <hwloc.h>

typedef struct px_odls px_odls_t;
typedef struct px_child px_child_t;

/* Output channels, the values of PMIx's pmix_iof_channel_t bits. */
#define PX_CHILD_STDOUT 0x0002 /* PMIX_FWD_STDOUT_CHANNEL */
#define PX_CHILD_STDERR 0x0004 /* PMIX_FWD_STDERR_CHANNEL */

typedef struct {
    void (*started)(px_child_t *child, int err, const char *stage, void *cbdata);
    void (*output)(px_child_t *child, int channel, const char *data, size_t len, void *cbdata);
    void (*exited)(px_child_t *child, int wstatus, void *cbdata);
    void (*stopped)(px_child_t *child, bool stopped, void *cbdata); /* NULL: not told */
} px_odls_cbs_t;

/* What to start. Every pointer is borrowed for the duration of px_odls_start only. */
typedef struct {
    char *const *argv;           /* argv[0]: a path, or a name searched in env's PATH */
    char *const *env;            /* the child's whole environment */
    const char *wdir;            /* NULL: the daemon's working directory */
    hwloc_const_cpuset_t cpuset; /* NULL: not bound; else hwloc turns it into the
                                  * affinity mask the child applies before exec */
    bool stdin_pipe;             /* a pipe for stdin (px_odls_stdin_*); else /dev/null */
    bool stop_on_exec;           /* held at its first instruction (see above) */
    const int *pass_fd;          /* NULL, or an fd the child inherits as PX_ODLS_PASS_FD
                                  * (open across exec: PMI_FD); the caller keeps its copy */
    void *user;                  /* the caller's, returned by px_child_user() */
} px_child_spec_t;

/* Where spec.pass_fd lands in the child: 0-2 are stdio, 3 the (close-on-exec) status
 * pipe; everything above it is closed before exec. */
#define PX_ODLS_PASS_FD 4

/* One per process (it owns the SIGCHLD handler on base). topo is borrowed and must
 * outlive the odls; it is what the child binds with. */
px_odls_t *px_odls_create(struct event_base *base, hwloc_topology_t topo, const px_odls_cbs_t *cbs,
                          void *cbdata);
/* SIGKILLs every child's process group, reaps them (blocking, bounded: children of ours
 * die on SIGKILL), frees everything. No callback runs from here. NULL is accepted. */
void px_odls_destroy(px_odls_t *o);

/* Start the child with vfork (in its own process group, with its pid recorded before the loop can
 * see its SIGCHLD) and return it; the callbacks above tell the rest. NULL + errno when
 * fork or a pipe fails: no callback will come for it. */
px_child_t *px_odls_start(px_odls_t *o, const px_child_spec_t *spec);

/* The paths execve will try for argv0 in a child with environment env: argv0 itself when
 * it has a '/', else each entry of env's PATH (default /usr/local/bin:/usr/bin:/bin; an
 * empty entry is the working directory) joined with it. NULL-ended, malloc'd (free with
 * px_odls_free_cands); NULL when out of memory. Relative paths are relative to the
 * child's working directory. */
char **px_odls_candidates(const char *argv0, char *const *env);
void px_odls_free_cands(char **cands);

pid_t px_child_pid(const px_child_t *c);
void *px_child_user(const px_child_t *c);

/* Signal the child's process group (kill(-pid, sig)). The child leads a session of its
 * own (its own share of the CPUs under autogroup scheduling), which orphans its group:
 * SIGTSTP/SIGTTIN/SIGTTOU go as SIGSTOP to a child that does not catch or ignore them,
 * since the kernel would discard them. 0, or -1 + errno. */
int px_odls_signal(px_child_t *c, int sig);

/* Stop (pause true) or resume reading the child's stdout and stderr pipes: flow
 * control for a controller whose output is not getting out as fast as it comes in
 * (the child then blocks in write on a full pipe). Idempotent. After the reap the pipes
 * are drained all the same (bounded, as above), so a paused child still gets exited(). */
void px_odls_output_pause(px_child_t *c, bool pause);

/* Queue bytes for the child's stdin pipe (written when writable, never blocking the
 * loop; order kept). -1 + EPIPE once the child closed it, EINVAL without a stdin pipe. */
int px_odls_stdin_write(px_child_t *c, const void *data, size_t len);
/* Close the stdin pipe once the queue is written (the child sees end of file). */
void px_odls_stdin_close(px_child_t *c);

/* Bytes queued for the child's stdin and not yet in the pipe: 0 without a stdin pipe, and
 * once it is closed or the child reaped (what was left is dropped). */
size_t px_odls_stdin_queued(const px_child_t *c);

/* Backpressure: ask to be told once the queue holds fewer than mark (> 0) bytes.
 *   drained(child, 0, arg)      the queue was written down below mark (closing the pipe
 *                               after px_odls_stdin_close, if it emptied)
 *   drained(child, EPIPE, arg)  the stdin is gone with bytes queued, which are dropped: the
 *                               child closed its end, or was reaped
 * Returns 0: drained() will come, exactly once. 1: fewer than mark bytes are queued now;
 * -1 + EPIPE: the stdin is closed or the child reaped; -1 + EINVAL: no stdin pipe, mark
 * 0 or fn NULL — no callback for these. One request per child: a call replaces the pending
 * one, whose fn is then never called; fn may ask again from inside drained().
 * Place in the callback order above: drained() runs on the loop, never from inside a
 * px_odls_* call; it may come before started() (the pipe takes bytes before the exec) and
 * always before exited() — a child reaped with a request pending gets drained(EPIPE)
 * right before exited(). px_odls_destroy drops pending requests without calling them. */
typedef void (*px_odls_drained_fn)(px_child_t *child, int err, void *arg);
int px_odls_stdin_notify(px_child_t *c, size_t mark, px_odls_drained_fn fn, void *arg);

/* Children started and not yet through exited(). A child stops counting just before its
 * exited() is called, so inside exited() the count no longer includes it (a controller
 * can stop its loop there when it reaches 0). */
size_t px_odls_count(const px_odls_t *o);

/* The user message (share/help/help-prted.txt, rendered) for a started(err, stage)
 * error, or for px_odls_start returning NULL (pass stage "fork" and its errno). spec is
 * what was started (argv[0], env's PATH, wdir and cpuset name the culprit); node, job
 * and rank say where. Returns malloc'd text to send to the controller, or NULL + errno.
 * Topics: exec-not-found (ENOENT at exec), exec-permission (EACCES), exec-failed,
 * wdir-failed (chdir), bind-failed, setup-failed, fork-failed. */
char *px_odls_error_text(const px_child_spec_t *spec, int err, const char *stage, const char *node,
                         const char *job, unsigned rank);

#endif /* PX_ODLS_H */
