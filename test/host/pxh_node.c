/*
 * pxh_node.c - one simulated node: embeds the PMIx server (own tmpdir and hostname),
 * registers the job, forks its local clients and runs the node loop (links to the other
 * nodes and the top process, child exits, work posted by upcalls) on its main thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>

#include <hwloc.h>

#include "pxh_node.h"

pxh_node_t pxh_node;

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pxh_work_t *queue_head, *queue_tail;
static int wake_fd = -1;

/* A one-shot wait for a library callback, used only during start-up and shutdown. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
} latch_t;

static void latch_init(latch_t *l)
{
    pthread_mutex_init(&l->lock, NULL);
    pthread_cond_init(&l->cond, NULL);
    l->done = false;
    l->status = PMIX_ERR_TIMEOUT;
}

static void latch_cb(pmix_status_t status, void *cbdata)
{
    latch_t *l = cbdata;

    pthread_mutex_lock(&l->lock);
    l->status = status;
    l->done = true;
    pthread_cond_signal(&l->cond);
    pthread_mutex_unlock(&l->lock);
}

/* Wait at most 10 s; PMIX_ERR_TIMEOUT if the callback never came. */
static pmix_status_t latch_wait(latch_t *l)
{
    struct timespec ts;
    pmix_status_t rc;

    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 10;
    pthread_mutex_lock(&l->lock);
    while (!l->done) {
        if (pthread_cond_timedwait(&l->cond, &l->lock, &ts) == ETIMEDOUT)
            break;
    }
    rc = l->done ? l->status : PMIX_ERR_TIMEOUT;
    pthread_mutex_unlock(&l->lock);
    return rc;
}

/* Call an API taking (..., cbfunc, cbdata) and wait for its callback. */
#define CALL_AND_WAIT(rc, call_expr)                                                               \
    do {                                                                                           \
        latch_t l_;                                                                                \
        latch_init(&l_);                                                                           \
        (rc) = (call_expr);                                                                        \
        if ((rc) == PMIX_SUCCESS)                                                                  \
            (rc) = latch_wait(&l_);                                                                \
        else if ((rc) == PMIX_OPERATION_SUCCEEDED)                                                 \
            (rc) = PMIX_SUCCESS;                                                                   \
    } while (0)

double pxh_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void pxh_host_error(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "pxhost: node %d: ERROR: ", pxh_node.id);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    pxh_node.host_errors++;
}

void pxh_debug(const char *fmt, ...)
{
    static int on = -1;
    char line[1024];
    va_list ap;
    int len;

    if (on < 0)
        on = getenv("PXHOST_DEBUG") != NULL;
    if (!on)
        return;
    len = snprintf(line, sizeof(line), "pxhost: node %d: ", pxh_node.id);
    va_start(ap, fmt);
    len += vsnprintf(line + len, sizeof(line) - (size_t)len - 1, fmt, ap);
    va_end(ap);
    if (len > (int)sizeof(line) - 2)
        len = (int)sizeof(line) - 2;
    line[len++] = '\n';
    if (write(2, line, (size_t)len) < 0) {
        /* nowhere to report it */
    }
}

void pxh_node_post(pxh_work_t *w)
{
    uint64_t one = 1;

    w->next = NULL;
    pthread_mutex_lock(&queue_lock);
    if (queue_tail)
        queue_tail->next = w;
    else
        queue_head = w;
    queue_tail = w;
    pthread_mutex_unlock(&queue_lock);
    if (write(wake_fd, &one, sizeof(one)) < 0) {
        /* eventfd counter saturated: the loop is awake anyway */
    }
}

void pxh_work_free(pxh_work_t *w)
{
    if (!w)
        return;
    free(w->procs);
    if (w->info)
        PMIx_Info_free(w->info, w->ninfo);
    if (w->info2)
        PMIx_Info_free(w->info2, w->ninfo2);
    PMIx_Argv_free(w->keys);
    PMIx_Query_free(w->queries, w->nqueries);
    free(w->data);
    free(w->msg);
    free(w);
}

pmix_info_t *pxh_info_dup(const pmix_info_t *info, size_t n)
{
    pmix_info_t *copy;

    if (!info || n == 0)
        return NULL;
    copy = PMIx_Info_create(n);
    for (size_t i = 0; copy && i < n; i++)
        PMIx_Info_xfer(&copy[i], &info[i]);
    return copy;
}

void pxh_send(int j, pmix_data_buffer_t *buf)
{
    pxh_link_t *l = j < 0 ? &pxh_node.ctl : &pxh_node.links[j];

    if (pxh_link_send(l, buf) < 0 && j >= 0)
        fprintf(stderr, "pxhost: node %d: link to node %d is gone\n", pxh_node.id, j);
    PMIx_Data_buffer_release(buf);
}

static void send_to_top_rank(uint8_t cmd, int rank, int32_t v, bool flag)
{
    pmix_data_buffer_t *b = pxh_msg_new(cmd);
    int32_t r = rank;
    uint8_t f = flag;

    pxh_pack(b, &r, 1, PMIX_INT32);
    pxh_pack(b, &v, 1, PMIX_INT32);
    pxh_pack(b, &f, 1, PMIX_UINT8);
    pxh_send(-1, b);
}

/* ---- clients ---- */

static char *resolve_program(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[4096];

    if (strchr(prog, '/'))
        return strdup(prog);
    while (path && *path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);

        snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, path, prog);
        if (access(buf, X_OK) == 0)
            return strdup(buf);
        path = end ? end + 1 : NULL;
    }
    return strdup(prog);
}

static char **client_argv(int rank)
{
    for (int i = 0; i < pxh_opts.nrankcmds; i++) {
        if (pxh_opts.rankcmds[i].rank == rank)
            return pxh_opts.rankcmds[i].argv;
    }
    return pxh_opts.client_argv;
}

static char srvns[PMIX_MAX_NSLEN + 1]; /* this node's server namespace */

static void start_client(pxh_client_t *c)
{
    extern char **environ;
    pmix_proc_t proc;
    char **env = PMIx_Argv_copy(environ), **argv = client_argv(c->rank), *path;
    pmix_status_t rc;
    struct passwd *pw = NULL;
    pid_t parent = getpid();
    int devnull;
    pid_t pid;

    PMIx_Load_procid(&proc, pxh_opts.nspace, (pmix_rank_t)c->rank);
    rc = PMIx_server_setup_fork(&proc, &env);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "pxhost: node %d: PMIx_server_setup_fork(rank %d) failed: %s\n",
                pxh_node.id, c->rank, PMIx_Error_string(rc));
        exit(1);
    }
    /* what a tool run as this rank needs to name its server (pxt_tool tests) */
    PMIx_Setenv("PXH_SERVER_NSPACE", srvns, true, &env);
    if (c->rank == pxh_opts.nobody)
        pw = getpwnam("nobody");
    path = resolve_program(argv[0]);
    devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    pid = fork();
    if (pid < 0) {
        perror("pxhost: fork");
        exit(1);
    }
    if (pid == 0) {
        sigset_t none;

        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        if (devnull >= 0)
            dup2(devnull, 0);
        if (pw) {
            if (setgroups(0, NULL) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
                _exit(126);
        }
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        execve(path, argv, env);
        _exit(127);
    }
    if (devnull >= 0)
        close(devnull);
    c->pid = pid;
    free(path);
    PMIx_Argv_free(env);
    send_to_top_rank(PXH_MSG_STARTED, c->rank, 0, false);
}

static void reap_clients(void)
{
    bool all = true;

    for (int i = 0; i < pxh_node.nclients; i++) {
        pxh_client_t *c = &pxh_node.clients[i];
        int st;

        if (c->pid > 0 && !c->exited && waitpid(c->pid, &st, WNOHANG) == c->pid) {
            c->exited = true;
            send_to_top_rank(PXH_MSG_EXITED, c->rank, st, c->killed);
            if (!c->finalized && !c->killed) {
                /* Other nodes fail collectives that wait for it (this node's library
                 * handles its own clients). */
                for (int j = 0; j < pxh_opts.nnodes; j++) {
                    if (j == pxh_node.id)
                        continue;
                    pmix_data_buffer_t *b = pxh_msg_new(PXH_MSG_PROC_DIED);
                    int32_t r = c->rank;
                    pxh_pack(b, &r, 1, PMIX_INT32);
                    pxh_send(j, b);
                }
            }
        }
        if (!c->exited)
            all = false;
    }
    if (all && !pxh_node.local_done_sent) {
        pxh_node.local_done_sent = true;
        pxh_send(-1, pxh_msg_new(PXH_MSG_LOCAL_DONE));
    }
}

static void kill_clients(void)
{
    for (int i = 0; i < pxh_node.nclients; i++) {
        pxh_client_t *c = &pxh_node.clients[i];

        if (c->pid > 0 && !c->exited) {
            c->killed = true;
            kill(c->pid, SIGKILL);
        }
    }
}

/* ---- loop ---- */

static void drain_queue(void)
{
    for (;;) {
        pxh_work_t *w;

        pthread_mutex_lock(&queue_lock);
        w = queue_head;
        if (w) {
            queue_head = w->next;
            if (!queue_head)
                queue_tail = NULL;
        }
        pthread_mutex_unlock(&queue_lock);
        if (!w)
            return;
        pxh_handle_work(w);
    }
}

static void dispatch(int from, pmix_data_buffer_t *buf)
{
    uint8_t cmd;

    if (!pxh_unpack(buf, &cmd, 1, PMIX_UINT8))
        return;
    if (from < 0) {
        if (cmd == PXH_MSG_KILL)
            kill_clients();
        else if (cmd == PXH_MSG_SHUTDOWN)
            pxh_node.shutdown = true;
        return;
    }
    pxh_handle_msg(from, cmd, buf);
}

static void read_link(int from, pxh_link_t *l)
{
    pmix_data_buffer_t buf;

    if (pxh_link_read(l) < 0 && from < 0) {
        /* the top process is gone: nothing left to serve */
        kill_clients();
        exit(1);
    }
    while (pxh_link_next(l, &buf)) {
        dispatch(from, &buf);
        PMIx_Data_buffer_destruct(&buf);
    }
}

static void run_loop(int sigfd)
{
    while (!pxh_node.shutdown) {
        struct pollfd pfd[PXH_MAX_NODES + 3];
        int map[PXH_MAX_NODES + 3], n = 0, timeout = pxh_next_deadline_ms();

        pfd[n] = (struct pollfd){wake_fd, POLLIN, 0};
        map[n++] = -3;
        pfd[n] = (struct pollfd){sigfd, POLLIN, 0};
        map[n++] = -2;
        pfd[n] = (struct pollfd){pxh_node.ctl.fd, POLLIN, 0};
        if (pxh_node.ctl.outlen)
            pfd[n].events |= POLLOUT;
        map[n++] = -1;
        for (int j = 0; j < pxh_opts.nnodes; j++) {
            pxh_link_t *l = &pxh_node.links[j];
            if (l->closed)
                continue;
            pfd[n] = (struct pollfd){l->fd, POLLIN, 0};
            if (l->outlen)
                pfd[n].events |= POLLOUT;
            map[n++] = j;
        }
        if (poll(pfd, (nfds_t)n, timeout) < 0 && errno != EINTR) {
            perror("pxhost: poll");
            exit(1);
        }
        for (int i = 0; i < n; i++) {
            if (!pfd[i].revents)
                continue;
            if (map[i] == -3) {
                uint64_t v;
                if (read(wake_fd, &v, sizeof(v)) < 0) {
                    /* spurious wake-up */
                }
                drain_queue();
            } else if (map[i] == -2) {
                struct signalfd_siginfo si;
                while (read(sigfd, &si, sizeof(si)) == sizeof(si))
                    ;
                drain_queue(); /* finalize notifications before the exits */
                reap_clients();
            } else {
                pxh_link_t *l = map[i] == -1 ? &pxh_node.ctl : &pxh_node.links[map[i]];
                if (pfd[i].revents & POLLOUT)
                    pxh_link_flush(l);
                if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
                    read_link(map[i], l);
            }
        }
        pxh_expire();
    }
}

/* ---- start-up and shutdown ---- */

static void check_tmpdir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            pxh_host_error("%s/%s is left behind after PMIx_server_finalize", dir, e->d_name);
    }
    closedir(d);
}

static void shutdown_node(void)
{
    pmix_status_t rc;
    pmix_proc_t proc;
    int nconn = 0, nfin = 0;

    pxh_spawn_wait_tools();

    for (int i = 0; i < pxh_node.nclients; i++) {
        nconn += pxh_node.clients[i].connected;
        nfin += pxh_node.clients[i].finalized;
    }
    pxh_debug("%d of %d clients connected, %d finalized", nconn, pxh_node.nclients, nfin);

    for (int i = 0; i < pxh_node.nclients; i++) {
        if (!pxh_node.clients[i].registered)
            continue;
        PMIx_Load_procid(&proc, pxh_opts.nspace, (pmix_rank_t)pxh_node.clients[i].rank);
        latch_t l;
        latch_init(&l);
        PMIx_server_deregister_client(&proc, latch_cb, &l);
        rc = latch_wait(&l);
        if (rc != PMIX_SUCCESS)
            pxh_host_error("PMIx_server_deregister_client(rank %d): %s", pxh_node.clients[i].rank,
                           PMIx_Error_string(rc));
    }
    {
        latch_t l;
        latch_init(&l);
        PMIx_server_deregister_nspace(pxh_opts.nspace, latch_cb, &l);
        rc = latch_wait(&l);
        if (rc != PMIX_SUCCESS)
            pxh_host_error("PMIx_server_deregister_nspace: %s", PMIx_Error_string(rc));
    }
    rc = PMIx_server_finalize();
    if (rc != PMIX_SUCCESS)
        pxh_host_error("PMIx_server_finalize: %s", PMIx_Error_string(rc));
    pxh_spawn_check();
    for (int i = 0; i < pxh_node.ncleanup; i++) {
        if (unlink(pxh_node.cleanup[i]) < 0 && errno != ENOENT)
            rmdir(pxh_node.cleanup[i]);
        free(pxh_node.cleanup[i]);
    }
    if (!pxh_opts.shared_tmpdir)
        check_tmpdir(pxh_opts.tmpdirs[pxh_node.id]);
}

static void server_init(void)
{
    pmix_info_t info[10];
    char host[32];
    pmix_rank_t srank = (pmix_rank_t)pxh_node.id;
    pmix_status_t rc;
    bool yes = true;
    size_t n = 4;

    snprintf(host, sizeof(host), "pxnode%d", pxh_node.id);
    snprintf(srvns, sizeof(srvns), "pxhost.%d", (int)pxh_opts.top_pid);
    if (pxh_opts.tools != PXH_TOOLS_OFF) /* one namespace per server: one file each */
        snprintf(srvns, sizeof(srvns), "pxhost-srv%d.%d", pxh_node.id, (int)pxh_opts.top_pid);
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, pxh_opts.tmpdirs[pxh_node.id], PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_HOSTNAME, host, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_SERVER_NSPACE, srvns, PMIX_STRING);
    PMIX_INFO_LOAD(&info[3], PMIX_SERVER_RANK, &srank, PMIX_PROC_RANK);
    if (pxh_opts.evcache >= 0) {
        uint32_t cache = (uint32_t)pxh_opts.evcache;
        PMIX_INFO_LOAD(&info[n++], "px.srv.evcache", &cache, PMIX_UINT32);
    }
    if (pxh_opts.tools != PXH_TOOLS_OFF)
        PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    if (pxh_opts.tools == PXH_TOOLS_NOHOOK)
        pxh_module.tool_connected = NULL;
    if (pxh_opts.remote)
        PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_REMOTE_CONNECTIONS, &yes, PMIX_BOOL);
    if (pxh_opts.system_server) {
        PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_SYSTEM_SUPPORT, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&info[n++], PMIX_SYSTEM_TMPDIR, pxh_opts.tmpdirs[pxh_node.id], PMIX_STRING);
    }
    if (pxh_opts.topology != NULL) {
        /* the library keeps its own copy: ours is destroyed below */
        pmix_topology_t topo = {.source = "hwloc", .topology = NULL};
        hwloc_topology_t t;
        if (hwloc_topology_init(&t) != 0 ||
            hwloc_topology_set_synthetic(t, pxh_opts.topology) != 0 ||
            hwloc_topology_load(t) != 0) {
            fprintf(stderr, "pxhost: bad --topology \"%s\"\n", pxh_opts.topology);
            exit(2);
        }
        topo.topology = t;
        PMIX_INFO_LOAD(&info[n++], PMIX_TOPOLOGY2, &topo, PMIX_TOPO);
        hwloc_topology_destroy(t);
    }
    if (pxh_opts.no_share_topology) {
        bool no = false;
        PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_SHARE_TOPOLOGY, &no, PMIX_BOOL);
    }
    rc = PMIx_server_init(&pxh_module, info, n);
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "pxhost: node %d: PMIx_server_init failed: %s\n", pxh_node.id,
                PMIx_Error_string(rc));
        exit(1);
    }
}

static void register_job(void)
{
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    pmix_status_t rc;

    rc = pxh_reg_build(&info, &ninfo);
    if (rc == PMIX_SUCCESS)
        CALL_AND_WAIT(rc, PMIx_server_register_nspace(pxh_opts.nspace, pxh_node.nclients, info,
                                                      ninfo, latch_cb, &l_));
    if (info)
        PMIx_Info_free(info, ninfo);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "pxhost: node %d: PMIx_server_register_nspace(%s) failed: %s\n",
                pxh_node.id, pxh_opts.nspace, PMIx_Error_string(rc));
        PMIx_server_finalize();
        exit(1);
    }
    for (int i = 0; i < pxh_opts.npsets; i++) {
        pxh_pset_t *ps = &pxh_opts.psets[i];
        pmix_proc_t *members = calloc((size_t)ps->nranks, sizeof(pmix_proc_t));

        for (int k = 0; k < ps->nranks; k++)
            PMIx_Load_procid(&members[k], pxh_opts.nspace, (pmix_rank_t)ps->ranks[k]);
        rc = PMIx_server_define_process_set(members, (size_t)ps->nranks, ps->name);
        free(members);
        if (rc != PMIX_SUCCESS) {
            fprintf(stderr, "pxhost: node %d: PMIx_server_define_process_set(%s) failed: %s\n",
                    pxh_node.id, ps->name, PMIx_Error_string(rc));
            PMIx_server_finalize();
            exit(1);
        }
    }
}

static void register_client(pxh_client_t *c)
{
    pmix_proc_t proc;
    pmix_status_t rc;

    if (c->rank == pxh_opts.unregistered)
        return;
    PMIx_Load_procid(&proc, pxh_opts.nspace, (pmix_rank_t)c->rank);
    CALL_AND_WAIT(rc, PMIx_server_register_client(&proc, getuid(), getgid(), c, latch_cb, &l_));
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "pxhost: node %d: PMIx_server_register_client(rank %d) failed: %s\n",
                pxh_node.id, c->rank, PMIx_Error_string(rc));
        PMIx_server_finalize();
        exit(1);
    }
    c->registered = true;
}

void pxh_node_main(int node, int *links, int ctl)
{
    sigset_t mask;
    int sigfd;

    pxh_node.id = node;
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != pxh_opts.top_pid)
        exit(1);
    /* Before any thread exists, so that the library's threads inherit the mask. */
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigprocmask(SIG_SETMASK, &mask, NULL);
    signal(SIGPIPE, SIG_IGN);
    sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (sigfd < 0 || wake_fd < 0) {
        perror("pxhost: signalfd/eventfd");
        exit(1);
    }
    for (int j = 0; j < pxh_opts.nnodes; j++)
        pxh_link_init(&pxh_node.links[j], links[j]);
    pxh_link_init(&pxh_node.ctl, ctl);
    pxh_node.nclients = pxh_node_count(node);
    pxh_node.clients = calloc((size_t)pxh_node.nclients, sizeof(pxh_client_t));
    for (int i = 0; i < pxh_node.nclients; i++)
        pxh_node.clients[i].rank = pxh_node_start(node) + i;

    server_init();
    pxh_spawn_init();
    register_job();
    pxh_event_host_raise();
    for (int i = 0; i < pxh_node.nclients; i++) {
        register_client(&pxh_node.clients[i]);
        start_client(&pxh_node.clients[i]);
    }
    reap_clients();
    run_loop(sigfd);
    shutdown_node();
    fflush(stderr);
    _exit(pxh_node.host_errors ? 1 : 0);
}
