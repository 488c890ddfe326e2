/* prun - submit one job to a running DVM as a PMIx tool: PMIx_Spawn with the options'
 * apps and job info, output arriving through the library's IO forwarding, stdin pushed
 * to the chosen ranks, signals forwarded, and the job's end (PMIX_EVENT_JOB_END) turned
 * into our exit status. The main thread waits in poll(); the library has its own thread.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <pmix_tool.h>

#include "cli/px_cli.h"
#include "cli/px_il.h"
#include "cli/px_opts.h"
#include "help/px_help.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int wake[2] = {-1, -1};
static bool job_ended, dvm_lost;
static int exit_code;
static char *end_message;
static pmix_nspace_t job_nspace;
static bool push_busy;
/* started by a tool (indirect launch, cli/px_il.h) */
static px_il_t *il;
static bool il_released, il_timed_out, parent_gone;

static void poke(void)
{
    if (write(wake[1], "x", 1) < 0) {
        /* the pipe is full: the main thread is awake anyway */
    }
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&lock);
    if (status == PMIX_EVENT_JOB_END) {
        const char *ns = NULL, *msg = NULL;
        int code = 0;
        for (size_t i = 0; i < ninfo; i++) {
            if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING) {
                ns = info[i].value.data.string;
            } else if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE)) {
                PMIx_Value_get_number(&info[i].value, &code, PMIX_INT);
            } else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_TEXT_MESSAGE) &&
                       info[i].value.type == PMIX_STRING) {
                msg = info[i].value.data.string;
            }
        }
        /* ours: we run one job, and before the spawn reply we do not know its name (the
         * end of the tool that started us is not it: px_il handles that one) */
        bool parents = il != NULL && px_il_is_parent(il, ns);
        if (!job_ended && !parents &&
            (job_nspace[0] == '\0' || ns == NULL || PMIx_Check_nspace(job_nspace, ns))) {
            job_ended = true;
            exit_code = code;
            end_message = msg ? strdup(msg) : NULL;
        }
    } else if (status == PMIX_ERR_LOST_CONNECTION) {
        /* our DVM's connection; not a tool that left our own server (it names that
         * tool: as a launcher, the tool that started us, see px_il) */
        bool other = false;
        for (size_t i = 0; i < ninfo; i++) {
            other = other || PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC);
        }
        dvm_lost = dvm_lost || !other;
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    poke();
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

static void registered(pmix_status_t status, size_t ref, void *cbdata)
{
    (void)ref;
    (void)cbdata;
    if (status != PMIX_SUCCESS) {
        pthread_mutex_lock(&lock);
        dvm_lost = true; /* without the job-end event we could never finish */
        pthread_mutex_unlock(&lock);
        poke();
    }
}

/* A forwarded signal the DVM did not take is said, never silently lost (sig 0: the kill
 * request). jctl_done's cbdata carries sig. */
static void jctl_refused(int sig, pmix_status_t status)
{
    const char *name = sig > 0 ? sigabbrev_np(sig) : "KILL";
    pthread_mutex_lock(&lock);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, job_nspace);
    pthread_mutex_unlock(&lock);
    px_show_help("help-prte.txt", "signal-not-forwarded", "prun", name != NULL ? name : "?", ns,
                 PMIx_Error_string(status));
}

static void jctl_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                      pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)info;
    (void)ninfo;
    if (status != PMIX_SUCCESS && status != PMIX_OPERATION_SUCCEEDED) {
        jctl_refused((int)(intptr_t)cbdata, status);
    }
    if (release_fn != NULL) {
        release_fn(release_cbdata);
    }
}

static void forward_signal(int sig, bool kill_job)
{
    pmix_proc_t target;
    PMIx_Load_procid(&target, job_nspace, PMIX_RANK_WILDCARD);
    pmix_info_t dir;
    bool yes = true;
    if (kill_job) {
        PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_KILL, &yes, PMIX_BOOL);
    } else {
        PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT);
    }
    void *tag = (void *)(intptr_t)(kill_job ? 0 : sig);
    pmix_status_t rc = PMIx_Job_control_nb(&target, 1, &dir, 1, jctl_done, tag);
    PMIX_INFO_DESTRUCT(&dir);
    if (rc != PMIX_SUCCESS) {
        jctl_refused(kill_job ? 0 : sig, rc);
    }
}

typedef struct {
    pmix_byte_object_t bo;
} push_t;

static void push_done(pmix_status_t status, void *cbdata)
{
    (void)status;
    push_t *p = cbdata;
    free(p->bo.bytes);
    free(p);
    pthread_mutex_lock(&lock);
    push_busy = false;
    pthread_mutex_unlock(&lock);
    poke();
}

/* Read a chunk of our stdin and push it; false at end of input (pushed as COMPLETE). */
static bool forward_stdin(const px_cmd_t *cmd)
{
    push_t *p = calloc(1, sizeof(*p));
    char *buf = malloc(65536);
    ssize_t n = (p && buf) ? read(0, buf, 65536) : -1;
    if (n < 0 && errno == EINTR) {
        free(buf);
        free(p);
        return true;
    }
    pmix_proc_t target;
    PMIx_Load_procid(&target, job_nspace, cmd->stdin_rank);
    pmix_info_t dir;
    bool yes = true;
    PMIX_INFO_LOAD(&dir, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
    pmix_status_t rc;
    pthread_mutex_lock(&lock);
    push_busy = true;
    pthread_mutex_unlock(&lock);
    if (n > 0) {
        p->bo.bytes = buf;
        p->bo.size = (size_t)n;
        rc = PMIx_IOF_push(&target, 1, &p->bo, NULL, 0, push_done, p);
    } else {
        free(buf);
        rc = PMIx_IOF_push(&target, 1, NULL, &dir, 1, push_done, p);
    }
    PMIX_INFO_DESTRUCT(&dir);
    if (rc != PMIX_SUCCESS) {
        push_done(rc, p);
        return false;
    }
    return n > 0;
}

static void il_released_cb(pmix_status_t status, void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    il_released = true;
    il_timed_out = status != PMIX_SUCCESS;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    poke();
}

static void il_parent_gone(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    parent_gone = true;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    poke();
}

/* Started by a tool: its directives join the job's; hold until it releases us (or gave
 * up, or went). 0 to go on, -1 to leave (message shown). */
static int indirect(px_cmd_t *cmd, const pmix_proc_t *me)
{
    px_il_cbs_t cbs = {
        .prog = cmd->prog, .released = il_released_cb, .parent_gone = il_parent_gone};
    il = px_il_create(me, &cbs);
    if (il == NULL) {
        return errno == 0 ? 0 : -1;
    }
    if (px_il_add_directives(il, &cmd->jinfo, &cmd->njinfo) != 0) {
        return -1;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += px_il_hold_secs(il);
    px_il_hold(il);
    pthread_mutex_lock(&lock);
    while (!il_released && !parent_gone) {
        if (pthread_cond_timedwait(&cond, &lock, &until) != 0) {
            break;
        }
    }
    bool released = il_released, gone = parent_gone;
    pthread_mutex_unlock(&lock);
    if (!released && !gone) {
        px_il_hold_expired(il); /* the message, and il_timed_out */
    }
    pthread_mutex_lock(&lock);
    bool go = il_released && !il_timed_out && !parent_gone;
    pthread_mutex_unlock(&lock);
    return go ? 0 : -1;
}

/* Started by a tool that parses the command line itself (Tools chapter, initiator-based
 * parsing): no job of ours. We tell it we take its spawn requests (PMIX_LAUNCHER_READY;
 * it made our own server its primary, and the library passes each spawn on to our DVM,
 * libpmix-core/client/tool_relay.c) and idle until it ends (its keepalive pipe, its
 * PMIX_EVENT_JOB_END, its link), our DVM goes, or a signal ends us. The jobs it spawned
 * through us then go with our connection to the DVM, unless spawned with PMIX_NOHUP.
 * Returns the exit status. */
static int relay_idle(const px_cmd_t *cmd, int sigfd)
{
    if (il == NULL) {
        /* no tool registered us as its launcher: nothing to run, nobody to serve */
        px_show_help("help-prte-cli.txt", "no-executable", cmd->prog, cmd->prog);
        return 1;
    }
    if (px_il_nohup(il)) {
        /* the jobs would have to outlive us (the DVM ends a requester's jobs with it), and
         * we could not tell when they ended: refused rather than ignored */
        px_show_help("help-prte.txt", "relay-nohup", cmd->prog);
        return 1;
    }
    px_il_ready(il);
    for (;;) {
        pthread_mutex_lock(&lock);
        bool lost = dvm_lost, gone = parent_gone;
        pthread_mutex_unlock(&lock);
        if (gone) {
            return 0; /* the end of the tool we served is ours */
        }
        if (lost) {
            px_show_help("help-prte.txt", "relay-lost-dvm", cmd->prog);
            return 1;
        }
        struct pollfd pfd[2] = {{wake[0], POLLIN, 0}, {sigfd, POLLIN, 0}};
        if (poll(pfd, 2, -1) < 0 && errno != EINTR) {
            return 1;
        }
        if (pfd[0].revents & POLLIN) {
            char junk[64];
            if (read(wake[0], junk, sizeof(junk)) < 0) {
                /* nothing to drain */
            }
        }
        struct signalfd_siginfo si;
        if ((pfd[1].revents & POLLIN) && read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si) &&
            (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM || si.ssi_signo == SIGHUP)) {
            return 128 + (int)si.ssi_signo; /* the tool's jobs are not ours to signal */
        }
    }
}

static void print_message(const char *msg)
{
    if (msg != NULL && msg[0] != '\0') {
        px_help_fput(stderr, msg);
    }
}

int main(int argc, char **argv)
{
    px_cmd_t cmd;
    px_opts_result_t r = px_opts_parse(PX_CMD_PRUN, argc, argv, &cmd);
    if (r != PX_OPTS_RUN) {
        return r == PX_OPTS_EXIT_OK ? 0 : 1;
    }
    /* our signals are read from a signalfd; blocked before the library's threads exist */
    sigset_t set;
    sigemptyset(&set);
    int fwd[] = {SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGCONT, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++) {
        sigaddset(&set, fwd[i]);
    }
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    int sigfd = signalfd(-1, &set, SFD_CLOEXEC);
    if (pipe(wake) != 0 || sigfd < 0) {
        perror("prun");
        return 1;
    }
    px_cli_grow_stdout_pipes();
    pmix_proc_t me;
    if (px_cli_connect(&cmd, &me) != 0) {
        px_opts_fini(&cmd);
        return 1;
    }
    /* not waited for: the registration travels before the spawn request on the same
     * connection, so the server has it before the job can end */
    pmix_status_t codes[] = {PMIX_EVENT_JOB_END, PMIX_ERR_LOST_CONNECTION};
    PMIx_Register_event_handler(codes, 2, NULL, 0, on_event, registered, NULL);

    int status = 1;
    if (indirect(&cmd, &me) != 0) {
        goto out;
    }
    if (cmd.napps == 0) {
        status = relay_idle(&cmd, sigfd);
        goto out;
    }
    pmix_nspace_t ns = {0};
    pmix_status_t rc = PMIx_Spawn(cmd.jinfo, cmd.njinfo, cmd.apps, cmd.napps, ns);
    if (rc != PMIX_SUCCESS) {
        /* the reason comes as the job-end event, sent before the reply; wait a little
         * in case the event is still being delivered */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 2;
        pthread_mutex_lock(&lock);
        while (!job_ended && !dvm_lost) {
            if (pthread_cond_timedwait(&cond, &lock, &until) != 0) {
                break;
            }
        }
        bool have = job_ended;
        pthread_mutex_unlock(&lock);
        if (have && end_message != NULL) {
            print_message(end_message);
        } else {
            px_show_help("help-prte.txt",
                         rc == PMIX_ERR_NO_PERMISSIONS ? "spawn-not-allowed" : "spawn-failed",
                         cmd.prog, PMIx_Error_string(rc));
        }
        status = have && exit_code != 0 ? exit_code : 1;
        goto out;
    }
    pthread_mutex_lock(&lock);
    PMIX_LOAD_NSPACE(job_nspace, ns);
    pthread_mutex_unlock(&lock);
    if (il != NULL) {
        px_il_launched(il, ns); /* the tool that started us learns the namespace */
    }
    bool killed = false;

    bool stdin_open = !cmd.stdin_none;
    int nint = 0;
    for (;;) {
        pthread_mutex_lock(&lock);
        bool done = job_ended, lost = dvm_lost, busy = push_busy, gone = parent_gone;
        pthread_mutex_unlock(&lock);
        if (done) {
            print_message(end_message);
            status = exit_code;
            if (il != NULL) {
                px_il_ended(il, job_nspace, exit_code,
                            exit_code == 0 ? PMIX_SUCCESS : PMIX_ERR_JOB_NON_ZERO_TERM);
            }
            break;
        }
        if (gone && !killed) {
            /* the tool that started us ended: the job goes with it (no PMIX_NOHUP) */
            killed = true;
            forward_signal(0, true);
        }
        if (lost) {
            px_show_help("help-prte.txt", "lost-dvm", cmd.prog, job_nspace);
            status = 1;
            break;
        }
        struct pollfd pfd[3] = {{wake[0], POLLIN, 0}, {sigfd, POLLIN, 0}, {0, POLLIN, 0}};
        nfds_t nfds = (stdin_open && !busy) ? 3 : 2;
        if (poll(pfd, nfds, -1) < 0 && errno != EINTR) {
            break;
        }
        if (pfd[0].revents & POLLIN) {
            char junk[64];
            if (read(wake[0], junk, sizeof(junk)) < 0) {
                /* nothing to drain */
            }
        }
        if (pfd[1].revents & POLLIN) {
            struct signalfd_siginfo si;
            if (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
                int sig = (int)si.ssi_signo;
                nint += sig == SIGINT ? 1 : 0;
                if (nint >= 3) {
                    /* the first two did not end the job: perhaps they could not even be
                     * sent (our library thread blocked on a stdout nobody reads). Leave;
                     * the DVM kills the job of a launcher that went away. */
                    px_show_help("help-prte.txt", "forced-exit", cmd.prog, job_nspace);
                    _exit(128 + SIGINT);
                }
                forward_signal(sig, sig == SIGINT && nint >= 2);
            }
        }
        if (nfds == 3 && (pfd[2].revents & (POLLIN | POLLHUP | POLLERR))) {
            stdin_open = forward_stdin(&cmd);
        }
    }
out:
    px_il_destroy(il);
    PMIx_tool_finalize();
    free(end_message);
    px_opts_fini(&cmd);
    return status;
}
