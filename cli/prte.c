/* prte - start a persistent DVM on this node: the controller (launcher/) with its node
 * agent, reachable by prun/pterm/pps through the tool rendezvous files or the URI it
 * reports. One libevent loop on the main thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "cli/px_il.h"
#include "cli/px_opts.h"
#include "help/px_help.h"
#include "launcher/px_dvm.h"

static struct event_base *base;
static px_dvm_t *dvm;     /* the controller this command runs */
static int ready_fd = -1; /* --daemonize: tells the waiting parent we are up */
static char *uri_file, *pid_file;
static px_cmd_t cmd;
static int status = 1;

static void stopped(void *arg)
{
    (void)arg;
    event_base_loopexit(base, NULL);
}

static void terminate(void *arg)
{
    (void)arg;
    static bool shutting;
    if (!shutting) {
        shutting = true;
        px_dvm_shutdown(dvm, stopped, NULL);
    }
}

/* ---- started by a tool (indirect launch, cli/px_il.h): a persistent DVM that takes
 * that tool's spawn requests once it released us, and ends with it ---- */
static px_il_t *il;
static struct event *hold_timer;
static bool il_released, dvm_up;
static pmix_status_t release_status;

static void tell_ready(void)
{
    if (il != NULL && il_released && dvm_up) {
        px_il_ready(il);
    }
}

static void released_on_loop(void *arg)
{
    (void)arg;
    if (hold_timer != NULL) {
        event_del(hold_timer);
    }
    if (release_status != PMIX_SUCCESS) {
        status = 1; /* not released in time: the message said so */
        terminate(NULL);
        return;
    }
    il_released = true;
    tell_ready();
}

static void il_released_cb(pmix_status_t st, void *arg)
{
    (void)arg;
    release_status = st;
    px_dvm_shift(dvm, released_on_loop, NULL);
}

static void il_parent_gone(void *arg)
{
    (void)arg;
    px_dvm_shift(dvm, terminate, NULL); /* the DVM ends with the tool that started it */
}

static void hold_expired(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    px_il_hold_expired(il);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    (void)what;
    (void)arg;
    (void)sig;
    terminate(NULL);
}

/* "-" stdout, "+" stderr, else a file (remembered, removed at exit). */
static int report(const char *prog, const char *where, const char *text, char **file)
{
    if (strcmp(where, "-") == 0 || strcmp(where, "+") == 0) {
        FILE *out = where[0] == '-' ? stdout : stderr;
        fprintf(out, "%s\n", text);
        fflush(out);
        return 0;
    }
    FILE *f = fopen(where, "w");
    if (f == NULL || fprintf(f, "%s\n", text) < 0 || fclose(f) != 0) {
        px_show_help("help-prte.txt", "report-file", prog, where, strerror(errno));
        return -1;
    }
    *file = strdup(where);
    return 0;
}

/* Fork; the parent waits until the child says it is ready (exit 0) or fails (exit 1). */
static int daemonize(const char *prog)
{
    int fds[2];
    if (pipe(fds) != 0) {
        px_show_help("help-prte.txt", "daemonize", prog, strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        px_show_help("help-prte.txt", "daemonize", prog, strerror(errno));
        return -1;
    }
    if (pid > 0) {
        close(fds[1]);
        char c = 0;
        ssize_t n;
        do {
            n = read(fds[0], &c, 1);
        } while (n < 0 && errno == EINTR);
        _exit(n == 1 && c == 'R' ? 0 : 1);
    }
    close(fds[0]);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    setsid();
    ready_fd = fds[1];
    return 0;
}

static void detach_stdio(void);

/* The DVM is up (every daemon said hello) or could not start: say so and where. */
static void ready(bool ok, void *arg)
{
    (void)arg;
    if (!ok) {
        /* the message was shown; the daemons that did start are told to exit (they
         * remove their sockets and directories), then we exit 1 */
        px_dvm_shutdown(dvm, stopped, NULL);
        return;
    }
    char pidtext[32];
    snprintf(pidtext, sizeof(pidtext), "%d", (int)getpid());
    if ((cmd.report_uri != NULL &&
         report(cmd.prog, cmd.report_uri, px_dvm_uri(dvm) ? px_dvm_uri(dvm) : "", &uri_file) !=
             0) ||
        (cmd.report_pid != NULL && report(cmd.prog, cmd.report_pid, pidtext, &pid_file) != 0)) {
        event_base_loopbreak(base);
        return;
    }
    status = 0;
    dvm_up = true;
    tell_ready();
    if (!cmd.no_ready_msg) {
        printf("DVM ready\n");
        fflush(stdout);
    }
    if (ready_fd >= 0) {
        if (!cmd.debug_daemons) {
            detach_stdio(); /* --debug-daemons: the daemons' logs keep our terminal */
        }
        if (write(ready_fd, "R", 1) != 1) {
            /* the parent is gone: nobody to tell */
        }
        close(ready_fd);
        ready_fd = -1;
    }
}

static void detach_stdio(void)
{
    int fd = open("/dev/null", O_RDWR);
    if (fd >= 0) {
        dup2(fd, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        if (fd > 2) {
            close(fd);
        }
    }
}

int main(int argc, char **argv)
{
    px_opts_result_t r = px_opts_parse(PX_CMD_PRTE, argc, argv, &cmd);
    if (r != PX_OPTS_RUN) {
        return r == PX_OPTS_EXIT_OK ? 0 : 1;
    }
    if (cmd.daemonize && daemonize(cmd.prog) != 0) {
        px_opts_fini(&cmd);
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    /* started by a tool: the server library connects back to it; we take the identity it
     * registered for us (read before the library unsets the variable) */
    bool by_tool = getenv("PMIX_LAUNCHER_RNDZ_URI") != NULL;
    evthread_use_pthreads();
    base = event_base_new();
    px_dvm_opts_t o;
    px_opts_dvm(&cmd, &o); /* the DVM's options from the command line (both commands) */
    o.system_server = cmd.system_server;
    o.terminate = terminate;
    o.ready = ready;
    o.nspace = by_tool ? getenv("PMIX_NAMESPACE") : NULL;
    if (base == NULL || (dvm = px_dvm_create(base, &o)) == NULL) {
        goto out;
    }
    if (by_tool) {
        pmix_proc_t me;
        PMIx_Load_procid(&me, px_dvm_nspace(dvm), 0);
        px_il_cbs_t cbs = {
            .prog = cmd.prog, .released = il_released_cb, .parent_gone = il_parent_gone};
        il = px_il_create(&me, &cbs);
        if (il != NULL) {
            struct timeval tv = {px_il_hold_secs(il), 0};
            hold_timer = evtimer_new(base, hold_expired, NULL);
            if (hold_timer != NULL) {
                evtimer_add(hold_timer, &tv);
            }
            px_il_hold(il);
        }
    }
    struct event *sigs[3];
    int signos[3] = {SIGTERM, SIGINT, SIGHUP};
    for (int i = 0; i < 3; i++) {
        sigs[i] = evsignal_new(base, signos[i], on_signal, NULL);
        event_add(sigs[i], NULL);
    }
    event_base_dispatch(base); /* ready() says when the DVM is up */
    for (int i = 0; i < 3; i++) {
        event_free(sigs[i]);
    }
    if (hold_timer != NULL) {
        event_free(hold_timer);
    }
    px_il_destroy(il); /* its handler goes before the server */
    px_dvm_destroy(dvm);
out:
    if (uri_file != NULL) {
        unlink(uri_file);
    }
    if (pid_file != NULL) {
        unlink(pid_file);
    }
    free(uri_file);
    free(pid_file);
    if (base != NULL) {
        event_base_free(base);
    }
    px_opts_fini(&cmd);
    return status;
}
