/* daemon: the node agent (px_nagent.h) — LAUNCH / SIGNAL / STDIN / IOF_FLOW /
 * JOB_CLEANUP handled on this node, process states reported back in PSTATE batches and
 * output as IOF messages. Registration and deferred binding: nagent_reg.c. Daemon's
 * loop only.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "daemon/nagent_int.h"
#include "daemon/px_personality.h"
#include "daemon/px_pmi_child.h"
#include "util/px_argv.h"

extern char **environ;

/* A STDIN request is answered once the target's queue holds less than this (bytes);
 * with prun's 64 KiB chunks a queue holds at most the mark + 64 KiB. */
#define PX_NA_STDIN_MARK (1024 * 1024)

/* STDIN requests waiting for room in one child's stdin queue. */
typedef struct na_stdin_wait {
    struct na_stdin_wait *next;
    px_nagent_t *agent;
    px_child_t *child; /* borrowed: valid until drained() tells its end */
    uint32_t *seqs;    /* owned, n: the requests to answer */
    size_t n;
} na_stdin_wait_t;

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
    px_na_agents_free(j);
    px_na_deregister(j);
    for (size_t i = 0; i < j->npending; i++) {
        free(j->pending[i].stage);
    }
    free(j->pending);
    if (j->flush_ev != NULL) {
        event_free(j->flush_ev);
    }
    for (size_t r = 0; j->procs != NULL && r < j->nprocs; r++) {
        free(j->procs[r].cpuset);
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

void px_na_report(na_job_t *j, pmix_rank_t rank, uint8_t state, pid_t pid, int32_t status,
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
    if (px_na_agent_started(p, err)) {
        return; /* a fork/exec agent starts its process once connected (nagent_agent.c) */
    }
    px_na_report(p->job, p->rank, err ? PX_DP_PS_FAILED : PX_DP_PS_STARTED, px_child_pid(child),
                 err, err ? (stage ? stage : "setup") : NULL);
}

/* ---- output: IOF messages up, with flow control ---- */

/* A process's output not yet written to the controller above this stops its reading,
 * below the low mark it resumes (bytes). */
#define PX_NA_IOF_HIGH (256 * 1024)
#define PX_NA_IOF_LOW  (64 * 1024)

static void apply_pause(na_proc_t *p)
{
    if (p->child != NULL) {
        px_odls_output_pause(p->child, p->paused_ctl || p->paused_link);
    }
}

/* One piece of output on its way: the process is found again by name when it is
 * written (the job may be gone by then). */
typedef struct {
    px_nagent_t *agent;
    pmix_proc_t proc;
    size_t len;
    char bytes[];
} na_chunk_t;

static void chunk_written(void *arg)
{
    na_chunk_t *c = arg;
    na_job_t *j = find_job(c->agent, c->proc.nspace);
    na_proc_t *p = j != NULL && c->proc.rank < j->nprocs ? &j->procs[c->proc.rank] : NULL;
    if (p != NULL) {
        p->inflight -= c->len;
        if (p->paused_link && p->inflight < PX_NA_IOF_LOW) {
            p->paused_link = false;
            apply_pause(p);
        }
    }
    free(c);
}

/* One IOF message of at most PX_NA_IOF_PIECE bytes: small pieces keep the copies on
 * both ends of the link small (they come and go at the output's rate). */
#define PX_NA_IOF_PIECE (64 * 1024)

static void send_piece(na_proc_t *p, const pmix_proc_t *proc, uint16_t ch, const char *data,
                       size_t len)
{
    px_nagent_t *a = p->job->agent;
    pmix_data_buffer_t buf;
    px_bfrops_buf_init(&buf);
    na_chunk_t *c = a->cbs.send_bulk != NULL ? malloc(sizeof(*c) + len) : NULL;
    if (c != NULL && px_dp_iof_pack(&buf, proc, ch, NULL, len) == PMIX_SUCCESS) {
        /* the head (the byte object's header included), then the bytes from the chunk */
        c->agent = a;
        c->proc = *proc;
        c->len = len;
        memcpy(c->bytes, data, len);
        p->inflight += len;
        if (a->cbs.send_bulk(PX_DP_IOF, &buf, c->bytes, len, chunk_written, c, a->cbs.arg) != 0) {
            p->inflight -= len;
            free(c);
        }
    } else if (px_dp_iof_pack(&buf, proc, ch, data, len) == PMIX_SUCCESS && a->cbs.send != NULL) {
        free(c);
        a->cbs.send(PX_DP_IOF, &buf, a->cbs.arg);
    } else {
        free(c);
    }
    px_bfrops_buf_free(&buf);
}

/* Output goes up as read, before the process's exit report (one stream, in order). */
static void on_output(px_child_t *child, int channel, const char *data, size_t len, void *cbdata)
{
    (void)cbdata;
    na_proc_t *p = px_child_user(child);
    pmix_proc_t proc;
    PMIx_Load_procid(&proc, p->job->nspace, p->rank);
    uint16_t ch = channel == PX_CHILD_STDERR ? PMIX_FWD_STDERR_CHANNEL : PMIX_FWD_STDOUT_CHANNEL;
    for (size_t off = 0; off < len; off += PX_NA_IOF_PIECE) {
        send_piece(p, &proc, ch, data + off,
                   len - off < PX_NA_IOF_PIECE ? len - off : PX_NA_IOF_PIECE);
    }
    if (p->inflight > PX_NA_IOF_HIGH && !p->paused_link) {
        p->paused_link = true;
        apply_pause(p);
    }
}

/* Stopped or continued (SIGSTOP and SIGCONT, from job control, a debugger or a user). */
static void on_stopped(px_child_t *child, bool stopped, void *cbdata)
{
    (void)cbdata;
    na_proc_t *p = px_child_user(child);
    px_na_report(p->job, p->rank, stopped ? PX_DP_PS_STOPPED : PX_DP_PS_CONTINUED,
                 px_child_pid(child), 0, NULL);
}

static void on_exited(px_child_t *child, int wstatus, void *cbdata)
{
    (void)cbdata;
    na_proc_t *p = px_child_user(child);
    pmix_proc_t proc;
    PMIx_Load_procid(&proc, p->job->nspace, p->rank);
    px_pmi_child_ended(&proc);
    px_na_agent_exited(p, px_child_pid(child), wstatus); /* debugger agents */
    p->child = NULL;
    p->job->nalive--;
    px_na_report(p->job, p->rank, PX_DP_PS_EXITED, px_child_pid(child), wstatus, NULL);
}

/* ---- LAUNCH ---- */

/* The environment of a process of app: ours with the app's "VAR=value" entries (-x),
 * then the server library's variables for proc. NULL on failure. */
static char **proc_env(const pmix_app_t *app, const pmix_proc_t *proc)
{
    char **env = PMIx_Argv_copy(environ);
    if (env == NULL || px_env_merge(&env, app->env) != 0 ||
        PMIx_server_setup_fork(proc, &env) != PMIX_SUCCESS) {
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

/* The job's stdin target (PMIX_STDIN_TGT, PMIX_FWD_STDIN): a rank, WILDCARD, or INVALID
 * for none. */
static pmix_rank_t stdin_target(const px_dp_launch_t *l)
{
    return px_dp_stdin_target(l->info, l->ninfo);
}

static void start_one(na_job_t *j, const px_dp_launch_t *l, pmix_rank_t r, pmix_rank_t in_tgt)
{
    na_proc_t *p = &j->procs[r];
    const pmix_app_t *app = &l->apps[l->procs[r].app];
    pmix_proc_t proc;
    PMIx_Load_procid(&proc, j->nspace, r);
    hwloc_bitmap_t cpuset = NULL;
    const char *cs = p->cpuset;
    const char *stage = "fork";
    int err = 0;
    if (cs != NULL) {
        /* "hwloc:<list>" naming at least one PU of this node */
        cpuset = hwloc_bitmap_alloc();
        if (cpuset == NULL) {
            err = ENOMEM;
        } else if (strncmp(cs, "hwloc:", 6) != 0 || hwloc_bitmap_list_sscanf(cpuset, cs + 6) < 0 ||
                   hwloc_bitmap_iszero(cpuset)) {
            err = EINVAL;
            stage = "bind";
        }
    }
    char **env = err ? NULL : proc_env(app, &proc);
    if (env != NULL && px_personality_env(l, r, &env) < 0) { /* its MPI family's (issue 19) */
        PMIx_Argv_free(env);
        env = NULL;
    }
    char **argv = err ? NULL : proc_argv(app);
    px_pmi_child_t pmi = {-1, -1};
    if (env != NULL) {
        px_pmi_child_prepare(&pmi, &proc, (uint32_t)l->nprocs, (l->flags & PX_DP_JOB_SPAWNED) != 0,
                             &env);
    }
    px_child_spec_t spec = {
        .argv = argv,
        .env = env,
        .wdir = app->cwd,
        .cpuset = cpuset,
        .stdin_pipe = in_tgt == PMIX_RANK_WILDCARD || in_tgt == r,
        .stop_on_exec = (l->procs[r].flags & PX_DP_PROC_STOP_EXEC) != 0,
        .pass_fd = px_pmi_child_fd(&pmi),
        .user = p,
    };
    if (err == 0 && (env == NULL || argv == NULL || argv[0] == NULL)) {
        err = ENOMEM;
        stage = "setup";
    }
    char **aargv = NULL, **aenv = NULL; /* a debugger agent in its place (nagent_agent.c) */
    if (err == 0 && j->agents != NULL && px_na_agent_spec(j, r, &spec, &aargv, &aenv) != 0) {
        err = ENOMEM;
        stage = "setup";
    }
    if (err == 0) {
        p->child = px_odls_start(j->agent->odls, &spec);
        err = p->child != NULL ? 0 : errno;
    }
    if (p->child != NULL && j->agents != NULL) {
        px_na_agent_forked(j, r, px_child_pid(p->child));
    }
    PMIx_Argv_free(aargv);
    PMIx_Argv_free(aenv);
    px_pmi_child_started(&pmi, &proc, p->child ? px_child_pid(p->child) : 0);
    if (p->child != NULL) {
        j->nalive++;
    } else {
        px_na_report(j, r, PX_DP_PS_FAILED, 0, err ? err : EIO, stage);
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
    j->flush_ev = event_new(a->o.base, -1, 0, flush, j);
    if (j->procs == NULL || j->flush_ev == NULL) {
        job_free(j);
        return PMIX_ERR_NOMEM;
    }
    j->next = a->jobs;
    a->jobs = j;
    for (size_t r = 0; r < l->nprocs; r++) {
        na_proc_t *p = &j->procs[r];
        p->job = j;
        p->rank = (pmix_rank_t)r;
        p->node_rank = l->procs[r].node_rank;
        p->daemon = l->nodes[l->procs[r].node].daemon;
        p->local = p->daemon == a->o.self;
        if (p->local && l->procs[r].cpuset != NULL &&
            (p->cpuset = strdup(l->procs[r].cpuset)) == NULL) {
            return PMIX_ERR_NOMEM; /* the job stays: JOB_CLEANUP frees it */
        }
    }
    pmix_status_t rc = px_na_bind_later(a, j, l) == 0 ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS) {
        rc = px_na_register(a, j, l);
    }
    if (rc == PMIX_SUCCESS && px_na_agents_setup(a, j, l) != 0) {
        rc = PMIX_ERR_NOMEM;
    }
    pmix_rank_t in_tgt = stdin_target(l);
    for (size_t r = 0; r < l->nprocs; r++) {
        if (!j->procs[r].local) {
            continue;
        }
        if (rc != PMIX_SUCCESS) {
            /* the job's registration failed: nothing of it can start here */
            px_na_report(j, (pmix_rank_t)r, PX_DP_PS_FAILED, 0, EIO, "setup");
        } else {
            start_one(j, l, (pmix_rank_t)r, in_tgt);
        }
    }
    if (rc == PMIX_SUCCESS && px_na_agents_register(a, j) != PMIX_SUCCESS) {
        /* the agents cannot learn what to start: they never connect (agent-connect) */
        px_debug(1, "nagent", "%s: the agents' namespace could not be registered", j->nspace);
    }
    return PMIX_SUCCESS;
}

/* ---- SIGNAL, STDIN, IOF_FLOW, JOB_CLEANUP ---- */

static na_proc_t *local_proc(px_nagent_t *a, const pmix_proc_t *target)
{
    na_job_t *j = find_job(a, target->nspace);
    if (j == NULL || target->rank >= j->nprocs || !j->procs[target->rank].local) {
        return NULL;
    }
    return &j->procs[target->rank];
}

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

static void answer(px_nagent_t *a, uint32_t seq, uint32_t tag)
{
    if (seq != 0 && a->cbs.reply != NULL) {
        a->cbs.reply(seq, tag, NULL, a->cbs.arg);
    }
}

static void stdin_waits_answer(na_stdin_wait_t *w)
{
    for (size_t i = 0; i < w->n; i++) {
        answer(w->agent, w->seqs[i], PX_DP_STDIN);
    }
    free(w->seqs);
    free(w);
}

static void on_stdin_drained(px_child_t *child, int err, void *arg)
{
    (void)child;
    (void)err;
    na_stdin_wait_t *w = arg;
    for (na_stdin_wait_t **pp = &w->agent->stdin_waits; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    }
    stdin_waits_answer(w); /* below the mark, or the stdin is gone */
}

/* Queue the bytes (none: close) on the target's stdin; answer seq once the queue has
 * room. The requests waiting on one child share one drain notification. */
static void feed_stdin(px_nagent_t *a, const px_dp_ctl_msg_t *m, uint32_t seq)
{
    na_proc_t *p = local_proc(a, &m->target);
    px_child_t *c = p != NULL ? p->child : NULL;
    if (c != NULL && m->data.size == 0) {
        px_odls_stdin_close(c);
    } else if (c != NULL && px_odls_stdin_write(c, m->data.bytes, m->data.size) != 0) {
        c = NULL; /* no stdin pipe, or closed by the child: the bytes are dropped */
    }
    na_stdin_wait_t *w = c != NULL ? calloc(1, sizeof(*w)) : NULL;
    uint32_t *seqs = w != NULL ? malloc(sizeof(*seqs)) : NULL;
    if (seqs == NULL) {
        free(w);
        answer(a, seq, PX_DP_STDIN);
        return;
    }
    w->agent = a;
    w->child = c;
    w->seqs = seqs;
    w->seqs[w->n++] = seq;
    /* a pending request on this child is replaced: its waiters join this one */
    for (na_stdin_wait_t **pp = &a->stdin_waits; *pp != NULL; pp = &(*pp)->next) {
        na_stdin_wait_t *o = *pp;
        if (o->child != c) {
            continue;
        }
        uint32_t *more = realloc(w->seqs, (w->n + o->n) * sizeof(*more));
        if (more != NULL) {
            w->seqs = more;
            memcpy(w->seqs + w->n, o->seqs, o->n * sizeof(*more));
            w->n += o->n;
            o->n = 0;
        }
        *pp = o->next;
        stdin_waits_answer(o); /* answers what could not be moved (none, but for ENOMEM) */
        break;
    }
    if (px_odls_stdin_notify(c, PX_NA_STDIN_MARK, on_stdin_drained, w) != 0) {
        stdin_waits_answer(w); /* room already, or the stdin is gone */
        return;
    }
    w->next = a->stdin_waits;
    a->stdin_waits = w;
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

pmix_status_t px_nagent_handle(px_nagent_t *a, const px_dp_ctl_msg_t *m, uint32_t seq)
{
    switch (m->tag) {
    case PX_DP_LAUNCH:
        return launch(a, &m->launch);
    case PX_DP_SIGNAL:
        signal_job(a, &m->target, m->signal);
        return PMIX_SUCCESS;
    case PX_DP_STDIN:
        feed_stdin(a, m, seq);
        return PMIX_SUCCESS;
    case PX_DP_IOF_FLOW: {
        na_proc_t *p = local_proc(a, &m->target);
        if (p != NULL) {
            p->paused_ctl = m->pause;
            apply_pause(p);
        }
        return PMIX_SUCCESS;
    }
    case PX_DP_JOB_CLEANUP:
        cleanup(a, m->target.nspace);
        PMIX_LOAD_NSPACE(a->cleaned[a->ncleaned++ % PX_NA_CLEANED], m->target.nspace);
        return PMIX_SUCCESS;
    default:
        return PMIX_ERR_NOT_SUPPORTED;
    }
}

bool px_nagent_launch_due(px_nagent_t *a, const char *nspace)
{
    if (find_job(a, nspace) != NULL) {
        return false;
    }
    size_t n = a->ncleaned < PX_NA_CLEANED ? a->ncleaned : PX_NA_CLEANED;
    for (size_t i = 0; i < n; i++) {
        if (PMIx_Check_nspace(a->cleaned[i], nspace)) {
            return false;
        }
    }
    return true;
}

bool px_nagent_where(px_nagent_t *a, const pmix_proc_t *procs, size_t n, bool *mark, size_t nd)
{
    for (size_t i = 0; i < n; i++) {
        na_job_t *j = find_job(a, procs[i].nspace);
        if (j == NULL || (procs[i].rank != PMIX_RANK_WILDCARD && procs[i].rank >= j->nprocs)) {
            return false;
        }
        for (size_t r = 0; r < j->nprocs; r++) {
            if ((procs[i].rank == PMIX_RANK_WILDCARD || procs[i].rank == r) &&
                j->procs[r].daemon < nd) {
                mark[j->procs[r].daemon] = true;
            }
        }
    }
    return true;
}

size_t px_nagent_count(const px_nagent_t *a)
{
    return a != NULL ? px_odls_count(a->odls) : 0;
}

px_nagent_t *px_nagent_create(const px_nagent_opts_t *o, const px_nagent_cbs_t *cbs)
{
    px_nagent_t *a = calloc(1, sizeof(*a));
    if (a == NULL) {
        return NULL;
    }
    a->o = *o;
    a->cbs = *cbs;
    px_na_sweep_stale_dirs(); /* a killed daemon's leftovers on this node */
    a->node = strdup(o->node);
    a->o.node = a->node;
    px_odls_cbs_t ocbs = {
        .started = on_started, .output = on_output, .exited = on_exited, .stopped = on_stopped};
    a->odls = a->node != NULL ? px_odls_create(o->base, o->topo, &ocbs, a) : NULL;
    if (a->odls == NULL) {
        free(a->node);
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
    px_odls_destroy(a->odls); /* drops the drain requests without calling them */
    while (a->stdin_waits != NULL) {
        na_stdin_wait_t *w = a->stdin_waits;
        a->stdin_waits = w->next;
        free(w->seqs);
        free(w);
    }
    while (a->jobs != NULL) {
        job_free(a->jobs);
    }
    free(a->node);
    free(a);
}
