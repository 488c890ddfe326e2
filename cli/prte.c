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
    px_dvm_shutdown(dvm, stopped, NULL);
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
        event_base_loopbreak(base); /* the message was shown; exit 1 */
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
    if (!cmd.no_ready_msg) {
        printf("DVM ready\n");
        fflush(stdout);
    }
    if (ready_fd >= 0) {
        detach_stdio();
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
    evthread_use_pthreads();
    base = event_base_new();
    px_dvm_opts_t o = {
        .system_server = cmd.system_server,
        .hosts = cmd.hosts,
        .nhosts = cmd.nhosts,
        .ssh_agent = cmd.plm_ssh_agent,
        .radix = cmd.radix,
        .allow_uids = cmd.allow_uids,
        .nallow_uids = cmd.nallow_uids,
        .allow_gids = cmd.allow_gids,
        .nallow_gids = cmd.nallow_gids,
        .verbose = cmd.verbose + (cmd.debug_daemons ? 1 : 0),
        .prog = cmd.prog,
        .terminate = terminate,
        .ready = ready,
    };
    if (base == NULL || (dvm = px_dvm_create(base, &o)) == NULL) {
        goto out;
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
