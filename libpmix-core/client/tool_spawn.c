/* client: self-spawn (Tools chapter, indirect launch: "locally spawn the IL itself if not
 * connected to a server"). A tool with its own server (PMIX_LAUNCHER) and no primary
 * server (PMIX_TOOL_DO_NOT_CONNECT) starts the programs of its PMIx_Spawn itself: each is
 * registered as a namespace of its own server holding the spawn's job info (so that the
 * child's PMIx_Get of PMIX_LAUNCH_DIRECTIVES is answered), forked with the server's
 * setup_fork environment plus the app's env (PMIX_LAUNCHER_RNDZ_URI,
 * PMIX_KEEPALIVE_PIPE...), watched through a pidfd on the client's loop and reaped by
 * pid; with PMIX_FWD_STDOUT/STDERR its output goes through the tool's IO forwarding
 * (PMIx_IOF_pull handlers, else our own stdout/stderr), and once every process ended and
 * its pipes are drained the tool's handlers get PMIX_EVENT_JOB_END. The spawn runs on the
 * caller's thread (fork before anything else, exec errors through a CLOEXEC pipe); the
 * watching on the client's loop; sp.lock guards the job list.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "client/px_client.h"
#include "client/px_tool.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "help/px_help.h"
#include "util/px_argv.h"

extern char **environ;

typedef struct sjob sjob_t;

typedef struct sproc {
    sjob_t *job; /* borrowed */
    pmix_rank_t rank;
    pid_t pid;
    int pidfd;
    int fd[2]; /* stdout, stderr pipes (read ends), -1 when not captured or closed */
    struct event *ev_exit, *ev_fd[2];
    bool reaped;
    int wstatus;
} sproc_t;

struct sjob {
    sjob_t *next;
    pmix_nspace_t nspace;
    sproc_t *procs; /* owned */
    size_t nprocs;
    size_t open; /* processes not reaped + pipes not closed */
    bool ended;  /* JOB_END raised */
    int exit_code;
    pmix_proc_t failed; /* the first process that failed */
    int failed_ws;      /* its wait status */
    bool any_failed;
};

static struct {
    pthread_mutex_t lock;
    sjob_t *jobs;
    unsigned next;
} sp = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- loop side ---- */

static void sproc_unwatch(sproc_t *p)
{
    if (p->ev_exit != NULL) {
        event_free(p->ev_exit);
        p->ev_exit = NULL;
    }
    for (int k = 0; k < 2; k++) {
        if (p->ev_fd[k] != NULL) {
            event_free(p->ev_fd[k]);
            p->ev_fd[k] = NULL;
        }
        if (p->fd[k] >= 0) {
            close(p->fd[k]);
            p->fd[k] = -1;
        }
    }
    if (p->pidfd >= 0) {
        close(p->pidfd);
        p->pidfd = -1;
    }
}

static void sjob_free(sjob_t *j)
{
    for (size_t i = 0; i < j->nprocs; i++) {
        sproc_unwatch(&j->procs[i]);
    }
    free(j->procs);
    free(j);
}

static void sjob_free_on_loop(void *arg)
{
    sjob_free(arg);
}

/* Every process reaped and every pipe drained: the tool hears the job's end. */
static void sjob_settle(sjob_t *j)
{
    if (j->open > 0 || j->ended) {
        return;
    }
    pthread_mutex_lock(&sp.lock);
    j->ended = true;
    pthread_mutex_unlock(&sp.lock);
    pmix_status_t term = !j->any_failed              ? PMIX_SUCCESS
                         : WIFSIGNALED(j->failed_ws) ? PMIX_ERR_JOB_ABORTED_BY_SIG
                                                     : PMIX_ERR_JOB_NON_ZERO_TERM;
    pmix_info_t info[6];
    size_t n = 0;
    time_t now = time(NULL);
    PMIx_Info_load(&info[n++], PMIX_NSPACE, j->nspace, PMIX_STRING);
    PMIx_Info_load(&info[n++], PMIX_JOB_TERM_STATUS, &term, PMIX_STATUS);
    PMIx_Info_load(&info[n++], PMIX_EXIT_CODE, &j->exit_code, PMIX_INT);
    PMIx_Info_load(&info[n++], PMIX_EVENT_TIMESTAMP, &now, PMIX_TIME);
    if (j->any_failed) {
        PMIx_Info_load(&info[n++], PMIX_PROCID, &j->failed, PMIX_PROC);
    }
    pmix_proc_t affected;
    PMIx_Load_procid(&affected, j->nspace, PMIX_RANK_WILDCARD);
    PMIx_Info_load(&info[n++], PMIX_EVENT_AFFECTED_PROC, &affected, PMIX_PROC);
    px_debug(2, "tool", "self-spawned job %s ended (exit code %d)", j->nspace, j->exit_code);
    px_cl_event_deliver_keep(PMIX_EVENT_JOB_END, &px_cl.myproc, PMIX_RANGE_PROC_LOCAL, info, n);
    for (size_t i = 0; i < n; i++) {
        PMIx_Info_destruct(&info[i]);
    }
    PMIx_server_deregister_nspace(j->nspace, NULL, NULL);
}

static void on_exit_ready(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    sproc_t *p = arg;
    int ws = 0;
    pid_t r = waitpid(p->pid, &ws, WNOHANG);
    if (r == 0 || (r < 0 && errno == EINTR)) {
        return;
    }
    event_del(p->ev_exit);
    p->reaped = true;
    p->wstatus = r == p->pid ? ws : 0;
    int code = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 0;
    sjob_t *j = p->job;
    if (code != 0 && !j->any_failed) {
        j->any_failed = true;
        j->exit_code = code;
        j->failed_ws = ws;
        PMIx_Load_procid(&j->failed, j->nspace, p->rank);
    }
    j->open--;
    sjob_settle(j);
}

/* Output of a child: as if a server forwarded it (client_iof.c: handlers, else ours). */
static void forward(sproc_t *p, pmix_iof_channel_t channel, const char *data, size_t len)
{
    pmix_data_buffer_t msg;
    pmix_proc_t src;
    pmix_byte_object_t bo = {(char *)data, len};
    PMIx_Load_procid(&src, p->job->nspace, p->rank);
    px_bfrops_buf_init(&msg);
    pmix_status_t rc = px_bfrops_pack(&msg, &src, 1, PMIX_PROC);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(&msg, &channel, 1, PMIX_IOF_CHANNEL);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(&msg, &bo, 1, PMIX_BYTE_OBJECT);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(&msg, NULL, 0);
    }
    if (rc == PMIX_SUCCESS) {
        px_cl_iof_recv(&msg);
    }
    px_bfrops_buf_free(&msg);
}

static void on_output(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    sproc_t *p = arg;
    int k = fd == p->fd[0] ? 0 : 1;
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        return;
    }
    if (n > 0) {
        forward(p, k == 0 ? PMIX_FWD_STDOUT_CHANNEL : PMIX_FWD_STDERR_CHANNEL, buf, (size_t)n);
        return;
    }
    event_free(p->ev_fd[k]);
    p->ev_fd[k] = NULL;
    close(p->fd[k]);
    p->fd[k] = -1;
    p->job->open--;
    sjob_settle(p->job);
}

typedef struct {
    sjob_t *job;
    int err;
} watch_t;

/* On the loop: watch every process of a new job (its exit, its pipes). */
static void watch_on_loop(void *arg)
{
    watch_t *w = arg;
    struct event_base *base = px_progress_base(px_cl.prog);
    sjob_t *j = w->job;
    w->err = 0;
    for (size_t i = 0; i < j->nprocs; i++) {
        sproc_t *p = &j->procs[i];
        p->ev_exit = event_new(base, p->pidfd, EV_READ | EV_PERSIST, on_exit_ready, p);
        if (p->ev_exit == NULL || event_add(p->ev_exit, NULL) != 0) {
            w->err = ENOMEM;
        }
        for (int k = 0; k < 2; k++) {
            if (p->fd[k] < 0) {
                continue;
            }
            p->ev_fd[k] = event_new(base, p->fd[k], EV_READ | EV_PERSIST, on_output, p);
            if (p->ev_fd[k] == NULL || event_add(p->ev_fd[k], NULL) != 0) {
                w->err = ENOMEM;
            }
        }
    }
}

/* ---- starting ---- */

static bool info_true(const pmix_info_t *info, size_t ninfo, const char *key)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], key)) {
            return PMIX_INFO_TRUE(&info[i]);
        }
    }
    return false;
}

/* The directives a self-spawn acts on; every other one is registered as the job's info
 * for the program to read (a launcher reads its own), and a required one we do not know
 * is refused. */
static const char *const self_spawn_honoured[] = {
    PMIX_FWD_STDOUT,
    PMIX_FWD_STDERR,
    PMIX_FWD_STDDIAG,
    PMIX_IOF_LOCAL_OUTPUT,
    PMIX_SPAWN_TOOL,
    PMIX_LAUNCH_DIRECTIVES,
    PMIX_DEBUG_STOP_IN_INIT,
    PMIX_NOHUP,
    PMIX_SPAWN_TIMEOUT,
    PMIX_TIMEOUT,
    NULL,
};

/* The environment of rank r: ours, the app's VAR=value entries, then our server's
 * variables for (nspace, r). NULL on failure. */
static char **child_env(const pmix_app_t *app, const pmix_proc_t *proc)
{
    char **env = PMIx_Argv_copy(environ);
    if (env != NULL &&
        (px_env_merge(&env, app->env) != 0 || PMIx_server_setup_fork(proc, &env) != PMIX_SUCCESS)) {
        PMIx_Argv_free(env);
        env = NULL;
    }
    return env;
}

/* fork/exec one process; its pid, pidfd and pipes into p. 0, or an errno. */
static int start_one(const pmix_app_t *app, sproc_t *p, bool out, bool err)
{
    pmix_proc_t proc;
    PMIx_Load_procid(&proc, p->job->nspace, p->rank);
    char **env = child_env(app, &proc);
    char **argv = app->argv != NULL && app->argv[0] != NULL ? PMIx_Argv_copy(app->argv) : NULL;
    if (argv == NULL) {
        PMIx_Argv_append_nosize(&argv, app->cmd);
    }
    int po[2] = {-1, -1}, pe[2] = {-1, -1}, st[2] = {-1, -1}, e = 0;
    if (env == NULL || argv == NULL || (out && pipe2(po, O_CLOEXEC) != 0) ||
        (err && pipe2(pe, O_CLOEXEC) != 0) || pipe2(st, O_CLOEXEC) != 0) {
        e = errno ? errno : ENOMEM;
        goto out;
    }
    pid_t pid = fork();
    if (pid < 0) {
        e = errno;
        goto out;
    }
    if (pid == 0) {
        /* the child: async-signal-safe calls only until exec */
        if (out) {
            dup2(po[1], 1);
        }
        if (err) {
            dup2(pe[1], 2);
        }
        if (app->cwd != NULL && app->cwd[0] != '\0' && chdir(app->cwd) != 0) {
            int ce = errno;
            (void)!write(st[1], &ce, sizeof(ce));
            _exit(127);
        }
        execvpe(app->cmd, argv, env);
        int xe = errno;
        (void)!write(st[1], &xe, sizeof(xe));
        _exit(xe == ENOENT ? 127 : 126);
    }
    close(st[1]);
    st[1] = -1;
    int xe = 0;
    ssize_t n;
    do {
        n = read(st[0], &xe, sizeof(xe));
    } while (n < 0 && errno == EINTR);
    p->pid = pid;
    if (n == (ssize_t)sizeof(xe)) {
        waitpid(pid, NULL, 0); /* it never ran: reaped here */
        p->reaped = true;
        e = xe;
        goto out;
    }
    p->pidfd = pidfd_open(pid, 0);
    if (p->pidfd < 0) {
        e = errno;
        goto out;
    }
    if (out) {
        p->fd[0] = po[0];
        po[0] = -1;
        fcntl(p->fd[0], F_SETFL, O_NONBLOCK);
    }
    if (err) {
        p->fd[1] = pe[0];
        pe[0] = -1;
        fcntl(p->fd[1], F_SETFL, O_NONBLOCK);
    }
out:
    for (int k = 0; k < 2; k++) {
        if (po[k] >= 0) {
            close(po[k]);
        }
        if (pe[k] >= 0) {
            close(pe[k]);
        }
        if (st[k] >= 0) {
            close(st[k]);
        }
    }
    PMIx_Argv_free(env);
    PMIx_Argv_free(argv);
    return e;
}

/* The job info our server registers for the namespace: the spawn's, with the job's size,
 * its parent (us) and maps of this one node. Owned by the caller. */
static pmix_status_t job_info(const pmix_info_t job[], size_t njob, uint32_t size,
                              pmix_info_t **out, size_t *nout)
{
    char ranks[4096] = "", *nodemap = NULL, *procmap = NULL;
    for (uint32_t r = 0; r < size; r++) {
        size_t len = strlen(ranks);
        snprintf(ranks + len, sizeof(ranks) - len, "%s%u", r ? "," : "", r);
    }
    if (PMIx_generate_regex(px_hostname(), &nodemap) != PMIX_SUCCESS ||
        PMIx_generate_ppn(ranks, &procmap) != PMIX_SUCCESS) {
        free(nodemap);
        return PMIX_ERR_NOMEM;
    }
    pmix_info_t *info = PMIx_Info_create(njob + 6);
    if (info == NULL) {
        free(nodemap);
        free(procmap);
        return PMIX_ERR_NOMEM;
    }
    size_t n = 0;
    for (size_t i = 0; i < njob; i++) {
        PMIx_Info_xfer(&info[n++], &job[i]);
    }
    bool yes = true;
    uint32_t one = 1;
    PMIx_Info_load(&info[n++], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIx_Info_load(&info[n++], PMIX_NUM_NODES, &one, PMIX_UINT32);
    PMIx_Info_load(&info[n++], PMIX_PARENT_ID, &px_cl.myproc, PMIX_PROC);
    PMIx_Info_load(&info[n++], PMIX_SPAWNED, &yes, PMIX_BOOL);
    PMIx_Info_load(&info[n++], PMIX_NODE_MAP, nodemap, PMIX_REGEX);
    PMIx_Info_load(&info[n++], PMIX_PROC_MAP, procmap, PMIX_REGEX);
    free(nodemap);
    free(procmap);
    *out = info;
    *nout = n;
    return PMIX_SUCCESS;
}

bool px_tool_self_spawns(void)
{
    pmix_proc_t primary;
    return px_tool_srv_running() && !px_tool_primary(&primary);
}

pmix_status_t px_tool_self_spawn(const pmix_info_t job[], size_t njob, const pmix_app_t apps[],
                                 size_t napps, pmix_nspace_t nspace)
{
    const char *reqd = px_info_unhonoured(job, njob, self_spawn_honoured);
    if (reqd != NULL) {
        px_show_help("help-pmix-tool.txt", "self-spawn-directive", reqd);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    uint64_t total = 0;
    for (size_t a = 0; a < napps; a++) {
        total += apps[a].maxprocs > 0 ? (uint64_t)apps[a].maxprocs : 1;
    }
    if (total > 1024) {
        return PMIX_ERR_BAD_PARAM; /* a tool starts a launcher or a few programs */
    }
    /* PMIX_IOF_LOCAL_OUTPUT: straight to our own stdout/stderr (the child writes to our
     * descriptors; no PMIx_IOF_pull handler sees it); else PMIX_FWD_* capture it */
    bool local = info_true(job, njob, PMIX_IOF_LOCAL_OUTPUT);
    bool out = !local && info_true(job, njob, PMIX_FWD_STDOUT);
    bool err =
        !local && (info_true(job, njob, PMIX_FWD_STDERR) || info_true(job, njob, PMIX_FWD_STDDIAG));
    sjob_t *j = calloc(1, sizeof(*j));
    sproc_t *procs = calloc(total, sizeof(*procs));
    if (j == NULL || procs == NULL) {
        free(j);
        free(procs);
        return PMIX_ERR_NOMEM;
    }
    j->procs = procs;
    pthread_mutex_lock(&sp.lock);
    unsigned k = ++sp.next;
    pthread_mutex_unlock(&sp.lock);
    char ns[PMIX_MAX_NSLEN + 16];
    snprintf(ns, sizeof(ns), "%.*s.%u", PMIX_MAX_NSLEN - 12, px_cl.myproc.nspace, k);
    PMIX_LOAD_NSPACE(j->nspace, ns);
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    pmix_status_t rc = job_info(job, njob, (uint32_t)total, &info, &ninfo);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_server_register_nspace(j->nspace, (int)total, info, ninfo, NULL, NULL);
        rc = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
    }
    PMIx_Info_free(info, ninfo);
    int e = 0;
    for (size_t a = 0, r = 0; rc == PMIX_SUCCESS && a < napps; a++) {
        int count = apps[a].maxprocs > 0 ? apps[a].maxprocs : 1;
        for (int i = 0; i < count && e == 0; i++, r++) {
            sproc_t *p = &procs[r];
            p->job = j;
            p->rank = (pmix_rank_t)r;
            p->pidfd = p->fd[0] = p->fd[1] = -1;
            pmix_proc_t proc;
            PMIx_Load_procid(&proc, j->nspace, p->rank);
            rc = PMIx_server_register_client(&proc, geteuid(), getegid(), NULL, NULL, NULL);
            rc = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
            if (rc != PMIX_SUCCESS) {
                break;
            }
            e = start_one(&apps[a], p, out, err);
            j->nprocs = r + 1;
            if (e != 0) {
                px_show_help("help-pmix-tool.txt", "self-spawn-failed", apps[a].cmd, px_hostname(),
                             strerror(e));
                rc = e == ENOENT ? PMIX_ERR_JOB_EXE_NOT_FOUND : PMIX_ERR_JOB_FAILED_TO_LAUNCH;
            }
        }
    }
    if (rc == PMIX_SUCCESS) {
        for (size_t i = 0; i < j->nprocs; i++) {
            j->open += 1 + (procs[i].fd[0] >= 0) + (procs[i].fd[1] >= 0);
        }
        watch_t w = {j, ENOMEM};
        if (px_progress_shift_wait(px_cl.prog, watch_on_loop, &w, 10000) != 0 || w.err != 0) {
            rc = PMIX_ERR_OUT_OF_RESOURCE;
        }
    }
    if (rc != PMIX_SUCCESS) {
        /* what started is stopped: nothing outlives a failed spawn */
        for (size_t i = 0; i < j->nprocs; i++) {
            if (procs[i].pid > 0 && !procs[i].reaped) {
                kill(procs[i].pid, SIGKILL);
                waitpid(procs[i].pid, NULL, 0);
                procs[i].reaped = true;
            }
        }
        px_progress_shift_wait(px_cl.prog, sjob_free_on_loop, j, 10000);
        PMIx_server_deregister_nspace(ns, NULL, NULL);
        return rc;
    }
    pthread_mutex_lock(&sp.lock);
    j->next = sp.jobs;
    sp.jobs = j;
    pthread_mutex_unlock(&sp.lock);
    px_debug(2, "tool", "self-spawned %s: %zu process(es), first pid %d", j->nspace, j->nprocs,
             (int)procs[0].pid);
    if (nspace != NULL) {
        PMIX_LOAD_NSPACE(nspace, j->nspace);
    }
    return PMIX_SUCCESS;
}

bool px_tool_spawn_ended(const char *nspace)
{
    pthread_mutex_lock(&sp.lock);
    bool over = false;
    for (sjob_t *j = sp.jobs; j != NULL; j = j->next) {
        if (PMIx_Check_nspace(j->nspace, nspace)) {
            over = j->ended;
        }
    }
    pthread_mutex_unlock(&sp.lock);
    return over;
}

/* On the loop at finalize: stop watching; what already ended is reaped (the rest runs on,
 * its launcher ends with our keepalive pipe). */
static void unwatch_all_on_loop(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&sp.lock);
    sjob_t *jobs = sp.jobs;
    sp.jobs = NULL;
    sp.next = 0;
    pthread_mutex_unlock(&sp.lock);
    while (jobs != NULL) {
        sjob_t *j = jobs;
        jobs = j->next;
        for (size_t i = 0; i < j->nprocs; i++) {
            if (!j->procs[i].reaped) {
                waitpid(j->procs[i].pid, NULL, WNOHANG);
            }
        }
        sjob_free(j);
    }
}

void px_tool_spawn_fini(void)
{
    px_progress_shift_wait(px_cl.prog, unwatch_all_on_loop, NULL, 10000);
}
