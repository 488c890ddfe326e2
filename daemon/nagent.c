/* daemon: the node agent (px_nagent.h) — LAUNCH / SIGNAL / JOB_CLEANUP handled on this
 * node, process states reported back in PSTATE batches. Daemon's loop only.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "daemon/px_nagent.h"
#include "daemon/px_personality.h"
#include "daemon/px_pmi_child.h"

extern char **environ;

typedef struct na_job na_job_t;

typedef struct {
    na_job_t *job;     /* borrowed: the owner */
    pmix_rank_t rank;  /* in the job */
    px_child_t *child; /* borrowed from odls until exited(); NULL = not (or no more) here */
} na_proc_t;

struct na_job {
    na_job_t *next;
    px_nagent_t *agent;
    pmix_nspace_t nspace;
    na_proc_t *procs; /* owned, nprocs (the job's size), indexed by rank */
    size_t nprocs;
    size_t nalive;               /* children not through exited() yet */
    px_dp_pstate_one_t *pending; /* owned, npending: reports of this loop turn */
    size_t npending, cap;
    struct event *flush_ev; /* owned: sends pending on the next loop turn */
    bool cleaned;           /* JOB_CLEANUP came: free once nalive is 0 */
    bool flushing;          /* inside flush(): it frees the job if need be */
};

struct px_nagent {
    struct event_base *base; /* borrowed */
    px_odls_t *odls;         /* owned */
    uint32_t self;
    px_nagent_cbs_t cbs;
    na_job_t *jobs; /* owned list */
};

static na_job_t *find_job(px_nagent_t *a, const char *nspace)
{
    for (na_job_t *j = a->jobs; j != NULL; j = j->next) {
        if (PMIx_Check_nspace(j->nspace, nspace)) {
            return j;
        }
    }
    return NULL;
}

static void job_free(na_job_t *j)
{
    for (na_job_t **pp = &j->agent->jobs; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == j) {
            *pp = j->next;
            break;
        }
    }
    for (size_t i = 0; i < j->npending; i++) {
        free(j->pending[i].stage);
    }
    free(j->pending);
    if (j->flush_ev != NULL) {
        event_free(j->flush_ev);
    }
    free(j->procs);
    free(j);
}

/* ---- process-state reports, one PSTATE per job per loop turn ---- */

static void flush(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    na_job_t *j = arg;
    /* the batch leaves the job first: the controller's handler may answer in-process
     * (SIGNAL, JOB_CLEANUP) from inside send */
    px_dp_pstate_t ps = {.procs = j->pending, .n = j->npending};
    PMIX_LOAD_NSPACE(ps.nspace, j->nspace);
    j->pending = NULL;
    j->npending = j->cap = 0;
    pmix_data_buffer_t buf;
    px_bfrops_buf_init(&buf);
    j->flushing = true;
    if (px_dp_pstate_pack(&buf, &ps) == PMIX_SUCCESS && j->agent->cbs.send != NULL) {
        j->agent->cbs.send(PX_DP_PSTATE, &buf, j->agent->cbs.arg);
    }
    j->flushing = false;
    px_bfrops_buf_free(&buf);
    px_dp_pstate_free(&ps);
    if (j->cleaned && j->nalive == 0 && j->npending == 0) {
        job_free(j);
    }
}

static void report(na_job_t *j, pmix_rank_t rank, uint8_t state, pid_t pid, int32_t status,
                   const char *stage)
{
    if (j->npending == j->cap) {
        size_t cap = j->cap ? 2 * j->cap : 8;
        px_dp_pstate_one_t *p = realloc(j->pending, cap * sizeof(*p));
        if (p == NULL) {
            return; /* out of memory: the controller learns of it through the exit */
        }
        j->pending = p;
        j->cap = cap;
    }
    j->pending[j->npending++] = (px_dp_pstate_one_t){.rank = rank,
                                                     .state = state,
                                                     .pid = pid,
                                                     .status = status,
                                                     .stage = stage ? strdup(stage) : NULL};
    if (j->flush_ev != NULL) {
        event_active(j->flush_ev, 0, 0);
    }
}

/* ---- odls callbacks ---- */

static void on_started(px_child_t *child, int err, const char *stage, void *cbdata)
{
    (void)cbdata;
    na_proc_t *p = px_child_user(child);
    report(p->job, p->rank, err ? PX_DP_PS_FAILED : PX_DP_PS_STARTED, px_child_pid(child), err,
           err ? (stage ? stage : "setup") : NULL);
}

static void on_output(px_child_t *child, int channel, const char *data, size_t len, void *cbdata)
{
    (void)cbdata;
    na_proc_t *p = px_child_user(child);
    px_nagent_t *a = p->job->agent;
    if (a->cbs.output != NULL) {
        pmix_proc_t proc;
        PMIx_Load_procid(&proc, p->job->nspace, p->rank);
        a->cbs.output(&proc, channel, data, len, a->cbs.arg);
    }
}

static void on_exited(px_child_t *child, int wstatus, void *cbdata)
{
    (void)cbdata;
    na_proc_t *p = px_child_user(child);
    pmix_proc_t proc;
    PMIx_Load_procid(&proc, p->job->nspace, p->rank);
    px_pmi_child_ended(&proc);
    p->child = NULL;
    p->job->nalive--;
    report(p->job, p->rank, PX_DP_PS_EXITED, px_child_pid(child), wstatus, NULL);
}

/* ---- LAUNCH ---- */

/* The environment of a process of app: ours with the app's "VAR=value" entries (-x),
 * then the server library's variables for proc. NULL on failure. */
static char **proc_env(const pmix_app_t *app, const pmix_proc_t *proc)
{
    char **env = PMIx_Argv_copy(environ);
    for (size_t i = 0; env != NULL && app->env != NULL && app->env[i] != NULL; i++) {
        char *eq = strchr(app->env[i], '=');
        char *name = eq ? strndup(app->env[i], (size_t)(eq - app->env[i])) : NULL;
        if (name != NULL) {
            PMIx_Setenv(name, eq + 1, true, &env);
            free(name);
        }
    }
    if (env == NULL || PMIx_server_setup_fork(proc, &env) != PMIX_SUCCESS) {
        PMIx_Argv_free(env);
        return NULL;
    }
    return env;
}

/* The program is app->cmd; argv[0] is what the process sees as its name, and follows
 * cmd when the two differ. */
static char **proc_argv(const pmix_app_t *app)
{
    char **argv = PMIx_Argv_copy(app->argv);
    if (app->cmd != NULL && (argv == NULL || argv[0] == NULL)) {
        PMIx_Argv_append_nosize(&argv, app->cmd);
    } else if (app->cmd != NULL && strcmp(argv[0], app->cmd) != 0) {
        free(argv[0]);
        argv[0] = strdup(app->cmd);
    }
    return argv;
}

/* The job's stdin target (PMIX_STDIN_TGT): a rank, WILDCARD, or INVALID for none. */
static pmix_rank_t stdin_target(const px_dp_launch_t *l)
{
    pmix_rank_t t = PMIX_RANK_INVALID;
    for (size_t i = 0; i < l->ninfo; i++) {
        uint32_t v = 0;
        if (PMIX_CHECK_KEY(&l->info[i], PMIX_STDIN_TGT) &&
            PMIx_Value_get_number(&l->info[i].value, &v, PMIX_UINT32) == PMIX_SUCCESS) {
            t = v;
        }
    }
    return t;
}

static void start_one(na_job_t *j, const px_dp_launch_t *l, pmix_rank_t r, pmix_rank_t in_tgt)
{
    na_proc_t *p = &j->procs[r];
    const pmix_app_t *app = &l->apps[l->procs[r].app];
    pmix_proc_t proc;
    PMIx_Load_procid(&proc, j->nspace, r);
    hwloc_bitmap_t cpuset = NULL;
    const char *cs = l->procs[r].cpuset;
    if (cs != NULL && strncmp(cs, "hwloc:", 6) == 0) {
        cpuset = hwloc_bitmap_alloc();
        if (cpuset != NULL && hwloc_bitmap_list_sscanf(cpuset, cs + 6) < 0) {
            hwloc_bitmap_free(cpuset);
            cpuset = NULL;
        }
    }
    char **env = proc_env(app, &proc);
    if (env != NULL && px_personality_env(l, r, &env) < 0) { /* its MPI family's (issue 19) */
        PMIx_Argv_free(env);
        env = NULL;
    }
    char **argv = proc_argv(app);
    px_pmi_child_t pmi = {-1, -1};
    if (env != NULL) {
        px_pmi_child_prepare(&pmi, &proc, (uint32_t)l->nprocs, &env);
    }
    px_child_spec_t spec = {
        .argv = argv,
        .env = env,
        .wdir = app->cwd,
        .cpuset = cpuset,
        .stdin_pipe = in_tgt == PMIX_RANK_WILDCARD || in_tgt == r,
        .pass_fd = px_pmi_child_fd(&pmi),
        .user = p,
    };
    errno = ENOMEM;
    p->child = (env && argv && argv[0] && (cs == NULL || cpuset != NULL))
                   ? px_odls_start(j->agent->odls, &spec)
                   : NULL;
    int err = errno;
    px_pmi_child_started(&pmi, &proc, p->child ? px_child_pid(p->child) : 0);
    if (p->child != NULL) {
        j->nalive++;
    } else {
        report(j, r, PX_DP_PS_FAILED, 0, err, "fork");
    }
    hwloc_bitmap_free(cpuset);
    PMIx_Argv_free(env);
    PMIx_Argv_free(argv);
}

static pmix_status_t launch(px_nagent_t *a, const px_dp_launch_t *l)
{
    if (find_job(a, l->nspace) != NULL) {
        return PMIX_EXISTS;
    }
    na_job_t *j = calloc(1, sizeof(*j));
    if (j == NULL) {
        return PMIX_ERR_NOMEM;
    }
    j->agent = a;
    PMIX_LOAD_NSPACE(j->nspace, l->nspace);
    j->nprocs = l->nprocs;
    j->procs = calloc(l->nprocs ? l->nprocs : 1, sizeof(*j->procs));
    j->flush_ev = event_new(a->base, -1, 0, flush, j);
    if (j->procs == NULL || j->flush_ev == NULL) {
        job_free(j);
        return PMIX_ERR_NOMEM;
    }
    j->next = a->jobs;
    a->jobs = j;
    pmix_rank_t in_tgt = stdin_target(l);
    for (size_t r = 0; r < l->nprocs; r++) {
        j->procs[r].job = j;
        j->procs[r].rank = (pmix_rank_t)r;
        if (l->nodes[l->procs[r].node].daemon == a->self) {
            start_one(j, l, (pmix_rank_t)r, in_tgt);
        }
    }
    return PMIX_SUCCESS;
}

/* ---- SIGNAL, JOB_CLEANUP ---- */

static void signal_job(px_nagent_t *a, const pmix_proc_t *target, int sig)
{
    na_job_t *j = find_job(a, target->nspace);
    for (size_t r = 0; j != NULL && r < j->nprocs; r++) {
        if ((target->rank == PMIX_RANK_WILDCARD || target->rank == r) &&
            j->procs[r].child != NULL) {
            px_odls_signal(j->procs[r].child, sig);
        }
    }
}

static void cleanup(px_nagent_t *a, const char *nspace)
{
    na_job_t *j = find_job(a, nspace);
    if (j == NULL) {
        return;
    }
    j->cleaned = true;
    if (j->nalive > 0) {
        pmix_proc_t all;
        PMIx_Load_procid(&all, nspace, PMIX_RANK_WILDCARD);
        signal_job(a, &all, SIGKILL); /* freed once the last is reaped (flush) */
    } else if (j->npending == 0 && !j->flushing) {
        job_free(j);
    }
}

pmix_status_t px_nagent_handle(px_nagent_t *a, const px_dp_ctl_msg_t *m)
{
    switch (m->tag) {
    case PX_DP_LAUNCH:
        return launch(a, &m->launch);
    case PX_DP_SIGNAL:
        signal_job(a, &m->target, m->signal);
        return PMIX_SUCCESS;
    case PX_DP_JOB_CLEANUP:
        cleanup(a, m->target.nspace);
        return PMIX_SUCCESS;
    default:
        return PMIX_ERR_NOT_SUPPORTED;
    }
}

px_child_t *px_nagent_child(px_nagent_t *a, const pmix_proc_t *proc)
{
    na_job_t *j = find_job(a, proc->nspace);
    if (j == NULL || proc->rank >= j->nprocs) {
        return NULL;
    }
    return j->procs[proc->rank].child;
}

px_nagent_t *px_nagent_create(struct event_base *base, hwloc_topology_t topo, uint32_t self,
                              const px_nagent_cbs_t *cbs)
{
    px_nagent_t *a = calloc(1, sizeof(*a));
    if (a == NULL) {
        return NULL;
    }
    a->base = base;
    a->self = self;
    a->cbs = *cbs;
    px_odls_cbs_t ocbs = {.started = on_started, .output = on_output, .exited = on_exited};
    a->odls = px_odls_create(base, topo, &ocbs, a);
    if (a->odls == NULL) {
        free(a);
        return NULL;
    }
    return a;
}

void px_nagent_destroy(px_nagent_t *a)
{
    if (a == NULL) {
        return;
    }
    px_odls_destroy(a->odls);
    while (a->jobs != NULL) {
        job_free(a->jobs);
    }
    free(a);
}
