/* prterun - a one-shot DVM: start the controller in this process, run one job through
 * the same spawn path prun's requests take (its output into an in-process sink: our own
 * stdout/stderr, never blocking the loop), tear everything down and exit with the job's
 * status. One libevent loop on the main thread; a small thread reads our stdin when the
 * job has a stdin target and shifts each chunk to the loop (px_dvm_shift).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "cli/px_cli.h"
#include "cli/px_il.h"
#include "cli/px_opts.h"
#include "help/px_help.h"
#include "launcher/px_dvm.h"

static struct event_base *base;
static px_dvm_t *dvm; /* the controller this command runs */
static int exit_status = 1;
static char *end_message; /* printed after the job's output is all written */
static int nint;
static bool shutting;

/* ---- started by a tool (indirect launch, cli/px_il.h): loop-side state ---- */
static px_il_t *il;              /* NULL: nobody started us as a launcher */
static struct event *hold_timer; /* the hold's bound */
static bool il_released, dvm_up;

static void stopped(void *arg)
{
    (void)arg;
    event_base_loopexit(base, NULL);
}

static void shutdown_once(void)
{
    if (!shutting) {
        shutting = true;
        px_dvm_shutdown(dvm, stopped, NULL);
    }
}

static void ended(const char *nspace, const px_job_result_t *r, void *arg)
{
    (void)arg;
    if (r->message != NULL) {
        end_message = strdup(r->message);
    }
    exit_status = r->exit_code;
    if (il != NULL) {
        px_il_ended(il, nspace, r->exit_code, r->status);
    }
    shutdown_once();
}

static void terminate(void *arg)
{
    (void)arg;
    shutdown_once();
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    (void)what;
    (void)arg;
    nint += sig == SIGINT ? 1 : 0;
    px_dvm_signal_local(dvm, (int)sig, sig == SIGINT && nint >= 2);
}

/* ---- stdin: read on a thread, written to the job on the loop ----
 * One chunk in flight: the thread reads the next one only when the DVM has taken the last
 * (its completion comes once the job's stdin queue has room), so a job that does not read
 * its stdin blocks whoever writes into ours instead of growing our memory. */

typedef struct {
    size_t len;
    char data[];
} chunk_t;

static pthread_mutex_t in_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t in_cond = PTHREAD_COND_INITIALIZER;
static bool in_started;           /* the job's processes run: stdin has somewhere to go */
static bool in_busy;              /* a chunk is in the DVM's hands */
static bool in_stop;              /* the loop has ended: the reader leaves */
static int in_wake[2] = {-1, -1}; /* a byte here wakes the reader out of poll */

static void chunk_done(pmix_status_t status, void *cbdata)
{
    (void)status;
    free(cbdata);
    pthread_mutex_lock(&in_lock);
    in_busy = false;
    pthread_cond_signal(&in_cond);
    pthread_mutex_unlock(&in_lock);
}

/* The job runs (loop): the reader may start. Bytes read before would be dropped, since
 * stdin goes only to processes that exist. */
static void job_started(const char *nspace, void *arg)
{
    (void)arg;
    if (il != NULL) {
        px_il_launched(il, nspace); /* the tool that started us learns the namespace */
    }
    pthread_mutex_lock(&in_lock);
    in_started = true;
    pthread_cond_signal(&in_cond);
    pthread_mutex_unlock(&in_lock);
}

static void stdin_on_loop(void *arg)
{
    chunk_t *c = arg;
    if (px_dvm_stdin_local(dvm, c->data, c->len, chunk_done, c) != 0) {
        chunk_done(PMIX_ERR_NOMEM, c); /* these bytes are lost; go on */
    }
}

static void *stdin_reader(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&in_lock);
        while ((in_busy || !in_started) && !in_stop) {
            pthread_cond_wait(&in_cond, &in_lock);
        }
        bool stop = in_stop;
        pthread_mutex_unlock(&in_lock);
        struct pollfd pf[2] = {{.fd = 0, .events = POLLIN}, {.fd = in_wake[0], .events = POLLIN}};
        if (stop || (poll(pf, 2, -1) < 0 && errno != EINTR) || pf[1].revents != 0) {
            return NULL;
        }
        if (pf[0].revents == 0) {
            continue;
        }
        chunk_t *c = malloc(sizeof(*c) + 65536);
        if (c == NULL) {
            return NULL;
        }
        ssize_t n = read(0, c->data, 65536);
        if (n < 0 && errno == EINTR) {
            free(c);
            continue;
        }
        c->len = n > 0 ? (size_t)n : 0;
        pthread_mutex_lock(&in_lock);
        in_busy = true;
        pthread_mutex_unlock(&in_lock);
        if (px_dvm_shift(dvm, stdin_on_loop, c) != 0) {
            free(c);
            return NULL;
        }
        if (n <= 0) {
            return NULL;
        }
    }
}

/* ---- indirect launch: hold, directives, events ---- */

static px_dvm_local_t local_cb = {.ended = ended, .started = job_started};
static px_cmd_t cmd;

/* Released (or no hold): launch our command line's job, or, without one, say we take the
 * tool's spawn requests once the DVM is up. Loop. */
static void go(void)
{
    if (cmd.napps == 0 && il == NULL) {
        shutdown_once(); /* no job and no tool to take spawn requests from */
        return;
    }
    if (cmd.napps == 0) {
        if (dvm_up) {
            px_il_ready(il);
        }
        return; /* the DVM runs until the tool that started us ends */
    }
    if (px_dvm_spawn_local(dvm, cmd.apps, cmd.napps, cmd.jinfo, cmd.njinfo, &local_cb) != 0) {
        px_show_help("help-prte.txt", "spawn-failed", cmd.prog, "out of memory");
        shutdown_once();
    }
}

static pmix_status_t release_status;

static void released_on_loop(void *arg)
{
    (void)arg;
    if (hold_timer != NULL) {
        event_del(hold_timer);
    }
    if (release_status != PMIX_SUCCESS) {
        exit_status = 1; /* not released in time: the message said so */
        shutdown_once();
        return;
    }
    il_released = true;
    /* the tool's directives for the job (the older handshake's came with the release) */
    if (cmd.napps > 0 && px_il_add_directives(il, &cmd.jinfo, &cmd.njinfo) != 0) {
        px_show_help("help-prte.txt", "spawn-failed", cmd.prog, "out of memory");
        shutdown_once();
        return;
    }
    go();
}

static void il_released_cb(pmix_status_t status, void *arg)
{
    (void)arg;
    release_status = status;
    px_dvm_shift(dvm, released_on_loop, NULL);
}

static void parent_gone_on_loop(void *arg)
{
    (void)arg;
    /* the tool that started us ended: its job goes with it (no PMIX_NOHUP) */
    exit_status = 1;
    shutdown_once();
}

static void il_parent_gone(void *arg)
{
    (void)arg;
    px_dvm_shift(dvm, parent_gone_on_loop, NULL);
}

static void hold_expired(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    px_il_hold_expired(il);
}

static void dvm_ready(bool ok, void *arg)
{
    (void)arg;
    dvm_up = ok;
    if (ok && il != NULL && il_released && cmd.napps == 0) {
        px_il_ready(il);
    }
}

/* A tool started us (PMIX_LAUNCHER_RNDZ_URI, connected back by the server library), or
 * we are to wait for one (PMIX_LAUNCHER_PAUSE_FOR_TOOL, the older handshake): the hold,
 * then its directives for the job. 0, or -1 (message shown). */
static int indirect(const char *pause_for)
{
    pmix_proc_t me;
    PMIx_Load_procid(&me, px_dvm_nspace(dvm), 0);
    px_il_cbs_t cbs = {.prog = cmd.prog, .released = il_released_cb, .parent_gone = il_parent_gone};
    il = pause_for != NULL ? px_il_create_paused(pause_for, &me, &cbs) : px_il_create(&me, &cbs);
    if (il == NULL) {
        if (errno == EINVAL) {
            return -1; /* the message said why */
        }
        if (errno != 0) {
            px_show_help("help-prte.txt", "server-init", cmd.prog, strerror(errno));
            return -1;
        }
        go(); /* not started by a tool after all (nothing registered for us) */
        return 0;
    }
    if (pause_for != NULL) {
        /* we wait for it: told now, the server keeps the event for the tool's
         * registration once it connected (to our rendezvous file) */
        px_il_ready(il);
    }
    struct timeval tv = {px_il_hold_secs(il), 0};
    hold_timer = evtimer_new(base, hold_expired, NULL);
    if (hold_timer != NULL) {
        evtimer_add(hold_timer, &tv);
    }
    px_il_hold(il); /* released now, or when the tool says so */
    return 0;
}

int main(int argc, char **argv)
{
    /* started by a tool as its launcher: the server library connects back to it, and we
     * take the identity it registered for us (read before the library unsets them) */
    bool by_tool = getenv("PMIX_LAUNCHER_RNDZ_URI") != NULL;
    const char *ilns = by_tool ? getenv("PMIX_NAMESPACE") : NULL;
    px_opts_result_t r = px_opts_parse(PX_CMD_PRTERUN, argc, argv, &cmd);
    if (r != PX_OPTS_RUN) {
        return r == PX_OPTS_EXIT_OK ? 0 : 1;
    }
    /* the older handshake: wait for that tool; our rendezvous file where it looks (ours,
     * never our children's) */
    char *pause_for = getenv("PMIX_LAUNCHER_PAUSE_FOR_TOOL") != NULL
                          ? strdup(getenv("PMIX_LAUNCHER_PAUSE_FOR_TOOL"))
                          : NULL;
    char *rndz_file = getenv("PMIX_LAUNCHER_RENDEZVOUS_FILE") != NULL
                          ? strdup(getenv("PMIX_LAUNCHER_RENDEZVOUS_FILE"))
                          : NULL;
    unsetenv("PMIX_LAUNCHER_PAUSE_FOR_TOOL");
    unsetenv("PMIX_LAUNCHER_RENDEZVOUS_FILE");

    signal(SIGPIPE, SIG_IGN);
    px_cli_grow_stdout_pipes();
    evthread_use_pthreads();
    base = event_base_new();
    px_dvm_opts_t o;
    px_opts_dvm(&cmd, &o); /* the DVM's options from the command line (both commands) */
    o.terminate = terminate;
    o.ready = dvm_ready;
    o.nspace = ilns;
    o.rndz_file = rndz_file;
    if (base == NULL || (dvm = px_dvm_create(base, &o)) == NULL) {
        if (base != NULL) {
            event_base_free(base);
        }
        px_opts_fini(&cmd);
        free(pause_for);
        free(rndz_file);
        return 1;
    }
    int signos[] = {SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGCONT, SIGUSR1, SIGUSR2};
    enum { NSIG_FWD = sizeof(signos) / sizeof(signos[0]) };
    struct event *sigs[NSIG_FWD];
    for (size_t i = 0; i < NSIG_FWD; i++) {
        sigs[i] = evsignal_new(base, signos[i], on_signal, NULL);
        event_add(sigs[i], NULL);
    }
    if (!by_tool && pause_for == NULL) {
        go();
    } else if (indirect(pause_for) != 0) {
        exit_status = 1;
        shutdown_once();
    }
    pthread_t reader;
    bool have_reader = !cmd.stdin_none && pipe(in_wake) == 0 &&
                       pthread_create(&reader, NULL, stdin_reader, NULL) == 0;
    event_base_dispatch(base);
    if (have_reader) {
        /* stop the reader before the DVM goes: it shifts onto the DVM's loop */
        pthread_mutex_lock(&in_lock);
        in_stop = true;
        pthread_cond_signal(&in_cond);
        pthread_mutex_unlock(&in_lock);
        ssize_t w;
        do {
            w = write(in_wake[1], "", 1);
        } while (w < 0 && errno == EINTR);
        pthread_join(reader, NULL);
    }
    if (in_wake[0] >= 0) {
        close(in_wake[0]);
        close(in_wake[1]);
    }
    for (size_t i = 0; i < NSIG_FWD; i++) {
        event_free(sigs[i]);
    }
    if (hold_timer != NULL) {
        event_free(hold_timer);
    }
    px_il_destroy(il);   /* its handler goes before the server */
    px_dvm_destroy(dvm); /* writes what the job's output left queued */
    if (end_message != NULL) {
        px_help_fput(stderr, end_message);
        free(end_message);
    }
    px_opts_fini(&cmd);
    free(pause_for);
    free(rndz_file);
    fflush(stdout);
    _exit(exit_status);
}
