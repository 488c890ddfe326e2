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
#include "cli/px_opts.h"
#include "help/px_help.h"
#include "launcher/px_dvm.h"

static struct event_base *base;
static px_dvm_t *dvm; /* the controller this command runs */
static int exit_status = 1;
static char *end_message; /* printed after the job's output is all written */
static int nint;

static void stopped(void *arg)
{
    (void)arg;
    event_base_loopexit(base, NULL);
}

static void ended(const char *nspace, const px_job_result_t *r, void *arg)
{
    (void)nspace;
    (void)arg;
    if (r->message != NULL) {
        end_message = strdup(r->message);
    }
    exit_status = r->exit_code;
    px_dvm_shutdown(dvm, stopped, NULL);
}

static void terminate(void *arg)
{
    (void)arg;
    px_dvm_shutdown(dvm, stopped, NULL);
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
    (void)nspace;
    (void)arg;
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

int main(int argc, char **argv)
{
    px_cmd_t cmd;
    px_opts_result_t r = px_opts_parse(PX_CMD_PRTERUN, argc, argv, &cmd);
    if (r != PX_OPTS_RUN) {
        return r == PX_OPTS_EXIT_OK ? 0 : 1;
    }
    signal(SIGPIPE, SIG_IGN);
    px_cli_grow_stdout_pipes();
    evthread_use_pthreads();
    base = event_base_new();
    px_dvm_opts_t o = {
        .hosts = cmd.hosts,
        .nhosts = cmd.nhosts,
        .ssh_agent = cmd.plm_ssh_agent,
        .radix = cmd.radix,
        .allow_uids = cmd.allow_uids,
        .nallow_uids = cmd.nallow_uids,
        .allow_gids = cmd.allow_gids,
        .nallow_gids = cmd.nallow_gids,
        .verbose = cmd.verbose,
        .prog = cmd.prog,
        .terminate = terminate,
    };
    if (base == NULL || (dvm = px_dvm_create(base, &o)) == NULL) {
        if (base != NULL) {
            event_base_free(base);
        }
        px_opts_fini(&cmd);
        return 1;
    }
    int signos[] = {SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGCONT, SIGUSR1, SIGUSR2};
    enum { NSIG_FWD = sizeof(signos) / sizeof(signos[0]) };
    struct event *sigs[NSIG_FWD];
    for (size_t i = 0; i < NSIG_FWD; i++) {
        sigs[i] = evsignal_new(base, signos[i], on_signal, NULL);
        event_add(sigs[i], NULL);
    }
    px_dvm_local_t cb = {.ended = ended, .started = job_started};
    if (px_dvm_spawn_local(dvm, cmd.apps, cmd.napps, cmd.jinfo, cmd.njinfo, &cb) != 0) {
        px_show_help("help-prte.txt", "spawn-failed", cmd.prog, "out of memory");
        px_dvm_shutdown(dvm, stopped, NULL);
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
    px_dvm_destroy(dvm); /* writes what the job's output left queued */
    if (end_message != NULL) {
        px_help_fput(stderr, end_message);
        free(end_message);
    }
    px_opts_fini(&cmd);
    fflush(stdout);
    _exit(exit_status);
}
