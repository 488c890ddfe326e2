/*
 * pxhost.c - a real PMIx server host for integration tests. The top process parses the
 * command line, forks one process per simulated node (pxh_node.c), links them with
 * socketpairs, and supervises them on its single thread: timeout, abort, exit statuses.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <poll.h>
#include <pwd.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pxh_node.h"

#define SKIP_STATUS 77

static const char usage[] =
    "Usage: pxhost [options] -- CLIENT [ARGS...]\n"
    "Runs one job of PMIx clients under real PMIx servers (one per simulated node).\n"
    "  -n N                 number of ranks (default 1)\n"
    "  --nodes K            simulated nodes, ranks spread block-wise (default 1)\n"
    "  --derive             register only the sizes, JOBID and the node/proc maps\n"
    "  --regex-maps         register the node/proc maps as PMIX_REGEX values (the\n"
    "                       strings PMIx_generate_regex/ppn return), not PMIX_STRING\n"
    "  --pset NAME:R,R,...  define a process set before starting the clients\n"
    "  --no-query           give the library a module without the query upcall\n"
    "  --spawn              spawn/push_stdin upcalls (canned output of the new job, stdin\n"
    "                       echoed back) and a log of tools leaving (pxh_spawn.c)\n"
    "  --tool-support       PMIx_server_init with PMIX_SERVER_TOOL_SUPPORT\n"
    "  --rank-cmd R=CMD     rank R runs CMD (words separated by spaces) instead of CLIENT\n"
    "  --unregistered R     start rank R without registering it\n"
    "  --nobody R           register rank R as this user but run it as 'nobody' (root only)\n"
    "  --unprivileged       started as root, run the whole job as user 'nobody'\n"
    "  --timeout S          kill everything after S seconds (default 30)\n"
    "  --evcache N          the server's event cache holds N events (px.srv.evcache)\n"
    "  --host-event CODE    each node raises event CODE (range session) before its clients\n"
    "                       start; notify_event upcalls are relayed to the other nodes\n"
    "  --tools MODE         tool support; tool_connected approves, refuses, or is absent\n"
    "                       (MODE approve|refuse|nohook)\n"
    "  --remote             allow remote tool connections (TCP on every interface)\n"
    "  --system-server      the servers are system servers (pmix.sys.<host> files)\n"
    "  --topology DESC      give each server the hwloc synthetic topology DESC\n"
    "                       (PMIX_TOPOLOGY2)\n"
    "  --cpusets            register local rank k with PMIX_CPUSET \"hwloc:k\"\n"
    "  --no-share-topology  PMIX_SERVER_SHARE_TOPOLOGY false\n"
    "  --shared-tmpdir      every node's server uses one tmpdir (node 0's)\n"
    "  --reenter            every upcall first has another thread call back into the\n"
    "                       library and waits for it (no library lock may be held)\n"
    "  --help, --version\n"
    "Exit status: 0 if every rank exited 0, the status given to PMIx_Abort, 1 otherwise,\n"
    "77 when the test cannot run here (--nobody without root).\n";

typedef struct {
    pid_t pid;
    pxh_link_t ctl;
    bool done;   /* all its clients exited */
    bool exited; /* reaped */
    int status;
} node_t;

typedef struct {
    bool started, exited, killed;
    int status;
} rank_t;

static node_t nodes[PXH_MAX_NODES];
static int top_sigfd = -1;
static rank_t *ranks;

static int parse_int(const char *opt, const char *s, int min, int max)
{
    char *end;
    long v;

    errno = 0;
    v = s ? strtol(s, &end, 10) : 0;
    if (!s || errno || *end || end == s || v < min || v > max) {
        fprintf(stderr, "pxhost: %s needs a number between %d and %d (got \"%s\")\n", opt, min, max,
                s ? s : "");
        exit(2);
    }
    return (int)v;
}

static void parse_pset(const char *arg)
{
    pxh_pset_t *ps = &pxh_opts.psets[pxh_opts.npsets];
    char *colon = strchr(arg, ':'), **list;

    if (!colon || colon == arg || pxh_opts.npsets == 16) {
        fprintf(stderr, "pxhost: --pset wants NAME:R,R,... (got \"%s\")\n", arg);
        exit(2);
    }
    ps->name = strndup(arg, (size_t)(colon - arg));
    list = PMIx_Argv_split(colon + 1, ',');
    ps->nranks = PMIx_Argv_count(list);
    ps->ranks = calloc((size_t)ps->nranks + 1, sizeof(int));
    for (int i = 0; i < ps->nranks; i++)
        ps->ranks[i] = parse_int("--pset", list[i], 0, PXH_MAX_RANKS - 1);
    PMIx_Argv_free(list);
    pxh_opts.npsets++;
}

static void parse_rankcmd(const char *arg)
{
    const char *eq = strchr(arg, '=');
    pxh_rankcmd_t *rc = &pxh_opts.rankcmds[pxh_opts.nrankcmds];
    char *num;

    if (!eq || !eq[1] || pxh_opts.nrankcmds == 16) {
        fprintf(stderr, "pxhost: --rank-cmd wants R=COMMAND (got \"%s\")\n", arg);
        exit(2);
    }
    num = strndup(arg, (size_t)(eq - arg));
    rc->rank = parse_int("--rank-cmd", num, 0, PXH_MAX_RANKS - 1);
    free(num);
    rc->argv = PMIx_Argv_split(eq + 1, ' ');
    pxh_opts.nrankcmds++;
}

static int parse_tools(const char *v)
{
    if (strcmp(v, "approve") == 0)
        return PXH_TOOLS_APPROVE;
    if (strcmp(v, "refuse") == 0)
        return PXH_TOOLS_REFUSE;
    if (strcmp(v, "nohook") == 0)
        return PXH_TOOLS_NOHOOK;
    fprintf(stderr, "pxhost: --tools wants approve, refuse or nohook (got \"%s\")\n", v);
    exit(2);
}

static void parse_args(int argc, char **argv)
{
    pxh_opts.nranks = 1;
    pxh_opts.nnodes = 1;
    pxh_opts.timeout = 30;
    pxh_opts.unregistered = -1;
    pxh_opts.nobody = -1;
    pxh_opts.evcache = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (strcmp(a, "--") == 0) {
            pxh_opts.client_argv = &argv[i + 1];
            break;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            exit(0);
        } else if (strcmp(a, "--version") == 0) {
            printf("pxhost (PMIx %s)\n", PMIx_Get_version());
            exit(0);
        } else if (strcmp(a, "--derive") == 0) {
            pxh_opts.derive = true;
            continue;
        } else if (strcmp(a, "--regex-maps") == 0) {
            pxh_opts.regex_maps = true;
            continue;
        } else if (strcmp(a, "--spawn") == 0) {
            pxh_opts.spawn = true; /* pxh_spawn.c: spawn + push_stdin upcalls */
            pxh_module.spawn = pxh_spawn_upcall;
            pxh_module.push_stdin = pxh_push_stdin_upcall;
            continue;
        } else if (strcmp(a, "--no-query") == 0) {
            pxh_opts.no_query = true;
            pxh_module.query = NULL;
            continue;
        } else if (strcmp(a, "--tool-support") == 0) {
            if (pxh_opts.tools == PXH_TOOLS_OFF) /* rendezvous files, tools approved */
                pxh_opts.tools = PXH_TOOLS_APPROVE;
            continue;
        } else if (strcmp(a, "--remote") == 0) {
            pxh_opts.remote = true;
            continue;
        } else if (strcmp(a, "--system-server") == 0) {
            pxh_opts.system_server = true;
            continue;
        } else if (strcmp(a, "--reenter") == 0) {
            pxh_opts.reenter = true;
            continue;
        } else if (strcmp(a, "--unprivileged") == 0) {
            pxh_opts.unprivileged = true;
            continue;
        } else if (strcmp(a, "--shared-tmpdir") == 0) {
            pxh_opts.shared_tmpdir = true;
            continue;
        } else if (strcmp(a, "--cpusets") == 0) {
            pxh_opts.cpusets = true;
            continue;
        } else if (strcmp(a, "--no-share-topology") == 0) {
            pxh_opts.no_share_topology = true;
            continue;
        }
        if (!v) {
            fprintf(stderr, "pxhost: option %s needs a value (see pxhost --help)\n", a);
            exit(2);
        }
        if (strcmp(a, "-n") == 0 || strcmp(a, "--np") == 0)
            pxh_opts.nranks = parse_int(a, v, 1, PXH_MAX_RANKS);
        else if (strcmp(a, "--nodes") == 0)
            pxh_opts.nnodes = parse_int(a, v, 1, PXH_MAX_NODES);
        else if (strcmp(a, "--timeout") == 0)
            pxh_opts.timeout = parse_int(a, v, 1, 3600);
        else if (strcmp(a, "--unregistered") == 0)
            pxh_opts.unregistered = parse_int(a, v, 0, PXH_MAX_RANKS - 1);
        else if (strcmp(a, "--nobody") == 0)
            pxh_opts.nobody = parse_int(a, v, 0, PXH_MAX_RANKS - 1);
        else if (strcmp(a, "--pset") == 0)
            parse_pset(v);
        else if (strcmp(a, "--evcache") == 0)
            pxh_opts.evcache = parse_int(a, v, 0, 1 << 20);
        else if (strcmp(a, "--host-event") == 0)
            pxh_opts.host_event = parse_int(a, v, -(1 << 30), 1 << 30);
        else if (strcmp(a, "--rank-cmd") == 0)
            parse_rankcmd(v);
        else if (strcmp(a, "--tools") == 0)
            pxh_opts.tools = parse_tools(v);
        else if (strcmp(a, "--topology") == 0)
            pxh_opts.topology = v;
        else {
            fprintf(stderr, "pxhost: unknown option \"%s\" (see pxhost --help)\n", a);
            exit(2);
        }
        i++;
    }
    if (!pxh_opts.client_argv || !pxh_opts.client_argv[0]) {
        fprintf(stderr, "pxhost: no client program given (pxhost [options] -- CLIENT ...)\n");
        exit(2);
    }
    if (pxh_opts.unprivileged && pxh_opts.nobody >= 0) {
        fprintf(stderr, "pxhost: --unprivileged and --nobody exclude each other\n");
        exit(2);
    }
    if (pxh_opts.nnodes > pxh_opts.nranks) {
        fprintf(stderr, "pxhost: %d nodes need at least %d ranks (-n)\n", pxh_opts.nnodes,
                pxh_opts.nnodes);
        exit(2);
    }
}

/* User nobody, who must be able to run the client programs (else skip). Root only. */
static struct passwd *nobody_user(void)
{
    struct passwd *pw = getpwnam("nobody");
    char **progs[17];
    int nprogs = 0;

    if (!pw) {
        printf("pxhost: SKIP: there is no user 'nobody' here\n");
        exit(SKIP_STATUS);
    }
    progs[nprogs++] = pxh_opts.client_argv;
    for (int i = 0; i < pxh_opts.nrankcmds; i++)
        progs[nprogs++] = pxh_opts.rankcmds[i].argv;
    for (int i = 0; i < nprogs; i++) {
        pid_t pid;
        int st;

        if (!strchr(progs[i][0], '/'))
            continue; /* found in PATH at exec, as for anyone */
        pid = fork();

        if (pid == 0) {
            if (setgroups(0, NULL) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
                _exit(2);
            _exit(access(progs[i][0], X_OK) == 0 ? 0 : 1);
        }
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
            printf("pxhost: SKIP: %s is not executable by user nobody\n", progs[i][0]);
            exit(SKIP_STATUS);
        }
    }
    return pw;
}

/* --nobody: needs root, and the client programs must be executable by nobody. */
static void check_nobody(void)
{
    if (pxh_opts.nobody < 0)
        return;
    if (geteuid() != 0) {
        printf("pxhost: SKIP: --nobody needs root (to run a client as user nobody)\n");
        exit(SKIP_STATUS);
    }
    nobody_user();
}

/* --unprivileged: started as root, the whole job runs as nobody (ids other than 0, so a
 * library handing up uid 0 for a requester is caught); not root: nothing to do. */
static void drop_root(void)
{
    struct passwd *pw;

    if (!pxh_opts.unprivileged || geteuid() != 0)
        return;
    pw = nobody_user();
    if (setgroups(0, NULL) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0) {
        fprintf(stderr, "pxhost: cannot become user nobody: %s\n", strerror(errno));
        exit(1);
    }
}

static void make_tmpdirs(void)
{
    for (int i = 0; i < pxh_opts.nnodes; i++) {
        if (i > 0 && pxh_opts.shared_tmpdir) {
            strcpy(pxh_opts.tmpdirs[i], pxh_opts.tmpdirs[0]);
            continue;
        }
        snprintf(pxh_opts.tmpdirs[i], sizeof(pxh_opts.tmpdirs[i]), "/tmp/pxhost.%d.node%d.XXXXXX",
                 (int)pxh_opts.top_pid, i);
        if (!mkdtemp(pxh_opts.tmpdirs[i])) {
            fprintf(stderr, "pxhost: cannot create %s: %s\n", pxh_opts.tmpdirs[i], strerror(errno));
            exit(1);
        }
        /* a client running as nobody must reach the server socket inside */
        if (pxh_opts.nobody >= 0)
            chmod(pxh_opts.tmpdirs[i], 0755);
    }
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    remove(path);
    return 0;
}

/* --shared-tmpdir: the nodes cannot check it each (the others' files are still
 * there when one finalizes); the top does once they all exited. */
static bool shared_tmpdir_empty(void)
{
    DIR *d = opendir(pxh_opts.tmpdirs[0]);
    struct dirent *e;
    bool empty = true;

    if (!d)
        return true;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            fprintf(stderr, "pxhost: ERROR: %s/%s is left behind after PMIx_server_finalize\n",
                    pxh_opts.tmpdirs[0], e->d_name);
            empty = false;
        }
    }
    closedir(d);
    return empty;
}

static void remove_tmpdirs(void)
{
    for (int i = 0; i < pxh_opts.nnodes; i++) {
        if (pxh_opts.tmpdirs[i][0])
            nftw(pxh_opts.tmpdirs[i], rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
}

static void fork_nodes(void)
{
    int mesh[PXH_MAX_NODES][PXH_MAX_NODES], ctl[PXH_MAX_NODES][2];
    int K = pxh_opts.nnodes;

    for (int i = 0; i < K; i++) {
        mesh[i][i] = -1;
        for (int j = i + 1; j < K; j++) {
            int sv[2];
            if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0) {
                perror("pxhost: socketpair");
                exit(1);
            }
            mesh[i][j] = sv[0];
            mesh[j][i] = sv[1];
        }
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, ctl[i]) < 0) {
            perror("pxhost: socketpair");
            exit(1);
        }
    }
    fflush(stdout);
    fflush(stderr);
    for (int i = 0; i < K; i++) {
        pid_t pid = fork();

        if (pid < 0) {
            perror("pxhost: fork");
            for (int k = 0; k < i; k++)
                kill(nodes[k].pid, SIGKILL);
            remove_tmpdirs();
            exit(1);
        }
        if (pid == 0) {
            /* keep only this node's ends */
            for (int a = 0; a < K; a++) {
                close(ctl[a][0]);
                if (a != i)
                    close(ctl[a][1]);
                for (int b = 0; b < K; b++) {
                    if (a != i && mesh[a][b] >= 0)
                        close(mesh[a][b]);
                }
            }
            for (int k = 0; k < i; k++)
                pxh_link_close(&nodes[k].ctl);
            close(top_sigfd);
            pxh_node_main(i, mesh[i], ctl[i][1]);
        }
        nodes[i].pid = pid;
        setpgid(pid, pid); /* also done by the child: no race on killpg */
        pxh_link_init(&nodes[i].ctl, ctl[i][0]);
        close(ctl[i][1]);
    }
    for (int a = 0; a < K; a++) {
        for (int b = 0; b < K; b++) {
            if (mesh[a][b] >= 0)
                close(mesh[a][b]);
        }
    }
}

static void broadcast(uint8_t cmd)
{
    for (int i = 0; i < pxh_opts.nnodes; i++) {
        pmix_data_buffer_t *b = pxh_msg_new(cmd);
        if (!nodes[i].exited)
            pxh_link_send(&nodes[i].ctl, b);
        PMIx_Data_buffer_release(b);
    }
}

typedef struct {
    bool aborted, timed_out, interrupted, shutdown_sent, node_failed;
    int abort_status;
    double grace; /* when to SIGKILL the node process groups (0: not yet) */
} state_t;

static void on_msg(state_t *s, int node, pmix_data_buffer_t *buf)
{
    uint8_t cmd, killed;
    int32_t rank = -1, v = 0;

    if (!pxh_unpack(buf, &cmd, 1, PMIX_UINT8))
        return;
    if (cmd == PXH_MSG_LOCAL_DONE) {
        nodes[node].done = true;
        return;
    }
    if (!pxh_unpack(buf, &rank, 1, PMIX_INT32) || !pxh_unpack(buf, &v, 1, PMIX_INT32) || rank < 0 ||
        rank >= pxh_opts.nranks)
        return;
    if (cmd == PXH_MSG_STARTED) {
        ranks[rank].started = true;
    } else if (cmd == PXH_MSG_EXITED && pxh_unpack(buf, &killed, 1, PMIX_UINT8)) {
        ranks[rank].exited = true;
        ranks[rank].status = v;
        ranks[rank].killed = killed;
    } else if (cmd == PXH_MSG_ABORT && !s->aborted) {
        s->aborted = true;
        s->abort_status = v;
        broadcast(PXH_MSG_KILL);
    }
}

static void print_running(void)
{
    char buf[8192] = "";
    size_t len = 0;

    for (int r = 0; r < pxh_opts.nranks && len < sizeof(buf) - 16; r++) {
        if (!ranks[r].exited)
            len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%d", len ? "," : "", r);
    }
    fprintf(stderr, "pxhost: ranks still running: %s\n", len ? buf : "(none)");
}

static void stop_all(state_t *s)
{
    if (s->grace > 0)
        return;
    broadcast(PXH_MSG_KILL);
    broadcast(PXH_MSG_SHUTDOWN);
    s->shutdown_sent = true;
    s->grace = pxh_now() + 5;
}

static void reap_nodes(state_t *s)
{
    for (int i = 0; i < pxh_opts.nnodes; i++) {
        int st;

        if (nodes[i].exited || waitpid(nodes[i].pid, &st, WNOHANG) != nodes[i].pid)
            continue;
        nodes[i].exited = true;
        nodes[i].status = st;
        /* its clients die with it (PR_SET_PDEATHSIG); make sure */
        killpg(nodes[i].pid, SIGKILL);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && s->shutdown_sent)
            continue;
        s->node_failed = true;
        if (WIFSIGNALED(st))
            fprintf(stderr, "pxhost: node %d (pid %d) killed by signal %d (%s)\n", i,
                    (int)nodes[i].pid, WTERMSIG(st), strsignal(WTERMSIG(st)));
        else
            fprintf(stderr, "pxhost: node %d (pid %d) exited with status %d%s\n", i,
                    (int)nodes[i].pid, WEXITSTATUS(st),
                    s->shutdown_sent ? "" : " before its clients finished");
        stop_all(s);
    }
}

static void supervise(state_t *s, int sigfd)
{
    double deadline = pxh_now() + pxh_opts.timeout;

    for (;;) {
        struct pollfd pfd[PXH_MAX_NODES + 1];
        int n = 0, map[PXH_MAX_NODES + 1], alive = 0, timeout;
        bool all_done = true;
        double now = pxh_now(), until;

        for (int i = 0; i < pxh_opts.nnodes; i++) {
            alive += !nodes[i].exited;
            all_done &= nodes[i].done || nodes[i].exited;
        }
        if (!alive)
            return;
        if (all_done && !s->shutdown_sent) {
            broadcast(PXH_MSG_SHUTDOWN);
            s->shutdown_sent = true;
            deadline = now + 15; /* bound deregistration and PMIx_server_finalize */
        }
        if (s->grace > 0 && now >= s->grace) {
            for (int i = 0; i < pxh_opts.nnodes; i++) {
                if (!nodes[i].exited)
                    killpg(nodes[i].pid, SIGKILL);
            }
            s->grace = now + 3600;
        }
        if (s->grace == 0 && now >= deadline) {
            s->timed_out = true;
            fprintf(stderr, "pxhost: timeout: %s after %d s\n",
                    s->shutdown_sent ? "the servers did not shut down" : "job not finished",
                    pxh_opts.timeout);
            print_running();
            stop_all(s);
        }
        until = s->grace > 0 ? s->grace : deadline;
        timeout = until <= now ? 0 : (int)((until - now) * 1000) + 1;
        pfd[n] = (struct pollfd){sigfd, POLLIN, 0};
        map[n++] = -1;
        for (int i = 0; i < pxh_opts.nnodes; i++) {
            if (nodes[i].ctl.closed)
                continue;
            pfd[n] = (struct pollfd){nodes[i].ctl.fd, POLLIN, 0};
            if (nodes[i].ctl.outlen)
                pfd[n].events |= POLLOUT;
            map[n++] = i;
        }
        if (poll(pfd, (nfds_t)n, timeout) < 0 && errno != EINTR) {
            perror("pxhost: poll");
            stop_all(s);
        }
        for (int k = 0; k < n; k++) {
            if (!pfd[k].revents)
                continue;
            if (map[k] < 0) {
                struct signalfd_siginfo si;
                while (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
                    if (si.ssi_signo != SIGCHLD && !s->interrupted) {
                        s->interrupted = true;
                        fprintf(stderr, "pxhost: interrupted by signal %u\n", si.ssi_signo);
                        print_running();
                        stop_all(s);
                    }
                }
                reap_nodes(s);
                continue;
            }
            node_t *nd = &nodes[map[k]];
            pmix_data_buffer_t buf;
            if (pfd[k].revents & POLLOUT)
                pxh_link_flush(&nd->ctl);
            if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)) {
                pxh_link_read(&nd->ctl);
                while (pxh_link_next(&nd->ctl, &buf)) {
                    on_msg(s, map[k], &buf);
                    PMIx_Data_buffer_destruct(&buf);
                }
            }
        }
        reap_nodes(s);
    }
}

static int report(state_t *s)
{
    bool failed = s->timed_out || s->interrupted || s->node_failed;

    for (int r = 0; r < pxh_opts.nranks; r++) {
        int st = ranks[r].status;

        if (!ranks[r].started) {
            if (!s->aborted && !s->timed_out && !s->node_failed)
                fprintf(stderr, "pxhost: rank %d was never started\n", r);
            failed = true;
        } else if (!ranks[r].exited || ranks[r].killed) {
            failed = true;
        } else if (WIFSIGNALED(st)) {
            fprintf(stderr, "pxhost: rank %d killed by signal %d (%s)\n", r, WTERMSIG(st),
                    strsignal(WTERMSIG(st)));
            failed = true;
        } else if (WEXITSTATUS(st) != 0) {
            fprintf(stderr, "pxhost: rank %d exited with status %d\n", r, WEXITSTATUS(st));
            failed = true;
        }
    }
    if (s->aborted)
        return s->abort_status;
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    sigset_t mask;
    state_t s = {0};
    int sigfd, status;

    setvbuf(stdout, NULL, _IOLBF, 0);
    parse_args(argc, argv);
    check_nobody();
    drop_root();
    pxh_opts.top_pid = getpid();
    snprintf(pxh_opts.nspace, sizeof(pxh_opts.nspace), "pxjob.%d", (int)pxh_opts.top_pid);
    ranks = calloc((size_t)pxh_opts.nranks, sizeof(rank_t));
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    signal(SIGPIPE, SIG_IGN);
    sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    top_sigfd = sigfd;
    if (sigfd < 0) {
        perror("pxhost: signalfd");
        return 1;
    }
    make_tmpdirs();
    fork_nodes();
    supervise(&s, sigfd);
    status = report(&s);
    if (pxh_opts.shared_tmpdir && !shared_tmpdir_empty() && status == 0)
        status = 1;
    remove_tmpdirs();
    return status;
}
