/* launcher: a job's life across the DVM's nodes — map, define its process sets, send its
 * LAUNCH to every daemon (whose node agent registers it and starts its part), take the
 * daemons' reports and output, watch the processes end (or their daemon be lost), and
 * tell the requester how the job ended. Controller loop only.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "util/px_info_list.h"
#include "common/px_common.h"
#include "help/px_help.h"
#include "bfrops/px_bfrops.h"
#include "daemon/px_dproto.h"
#include "daemon/px_personality.h"
#include "launcher/dvm_int.h"
#include "launcher/px_daemons.h"
#include "server/px_srv_pmi.h"

static void job_settle(px_job_t *j);
static void job_fail(px_job_t *j, px_why_t why, pmix_rank_t rank, int code, const char *text);

px_job_t *px_job_find(px_dvm_t *dvm, const char *nspace)
{
    for (px_job_t *j = dvm->jobs; j != NULL; j = j->next) {
        if (PMIx_Check_nspace(j->nspace, nspace)) {
            return j;
        }
    }
    return NULL;
}

px_proc_t *px_job_proc(px_dvm_t *dvm, const pmix_proc_t *proc)
{
    px_job_t *j = px_job_find(dvm, proc->nspace);
    if (j == NULL || proc->rank >= j->nprocs) {
        return NULL;
    }
    return &j->procs[proc->rank];
}

/* ---- the daemons: the same messages to every daemon (daemon 0 included) ---- */

unsigned px_job_node(const px_job_t *j, pmix_rank_t rank)
{
    return rank < j->nprocs ? j->map.procs[rank].node : 0;
}

const char *px_job_node_name(const px_job_t *j, pmix_rank_t rank)
{
    unsigned n = px_job_node(j, rank);
    return n < j->dvm->nnodes ? j->dvm->nodes[n].name : j->dvm->hostname;
}

void px_job_to_daemons(px_dvm_t *dvm, const px_job_t *j, pmix_rank_t rank, uint32_t tag,
                       const pmix_data_buffer_t *buf)
{
    if (j == NULL && px_route_xcast(dvm, tag, buf, true) == 0) {
        return; /* for every daemon: down the routing tree (route.c) */
    }
    size_t n = px_daemons_count(dvm->daemons);
    for (size_t id = 0; id < n; id++) {
        if (j != NULL && rank != PMIX_RANK_WILDCARD && id != px_job_node(j, rank)) {
            continue;
        }
        if (px_daemons_up(dvm->daemons, (unsigned)id) &&
            px_daemons_send(dvm->daemons, (unsigned)id, tag, buf) != 0) {
            px_dvm_log(dvm, 1, "cannot send message %u to daemon %zu: %s", tag, id,
                       strerror(errno));
        }
    }
}

static void send_signal(px_job_t *j, pmix_rank_t rank, int sig)
{
    pmix_proc_t target;
    PMIx_Load_procid(&target, j->nspace, rank);
    pmix_data_buffer_t buf;
    px_bfrops_buf_init(&buf);
    if (j->launched && px_dp_signal_pack(&buf, &target, sig) == PMIX_SUCCESS) {
        px_job_to_daemons(j->dvm, j, rank, PX_DP_SIGNAL, &buf);
    }
    px_bfrops_buf_free(&buf);
}

static bool proc_alive(const px_proc_t *p)
{
    return p->state == PX_PROC_STARTING || p->state == PX_PROC_RUNNING;
}

static void proc_started(px_proc_t *p, int err, const char *stage, pid_t pid)
{
    px_job_t *j = p->job;
    j->nstarting--;
    p->pid = pid;
    if (err != 0) {
        p->state = PX_PROC_FAILED_START;
        job_fail(j, PX_WHY_START, p->proc.rank, err, stage ? stage : "setup");
    } else {
        p->state = PX_PROC_RUNNING; /* apply_pstate calls this for a STARTING process only */
        if (p->stop == PX_STOP_EXEC && pid != 0) {
            px_jdbg_reached(p); /* its daemon tells the start once it holds it at exec */
        }
    }
    px_dvm_log(j->dvm, 2, "%s rank %u: %s", j->nspace, p->proc.rank,
               err ? "start failed" : "started");
}

static void proc_exited(px_proc_t *p, int wstatus)
{
    px_job_t *j = p->job;
    p->wstatus = wstatus;
    px_iof_stream_close(p->out);
    px_iof_stream_close(p->err);
    p->out = p->err = NULL;
    bool failed_start = (p->state == PX_PROC_FAILED_START);
    bool was_ending = px_job_ending(j);
    p->state = PX_PROC_DONE;
    j->nalive--;
    if (!failed_start && !px_job_ending(j)) {
        if (WIFSIGNALED(wstatus)) {
            job_fail(j, PX_WHY_SIGNAL, p->proc.rank, WTERMSIG(wstatus), NULL);
        } else if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0) {
            job_fail(j, PX_WHY_EXIT, p->proc.rank, WEXITSTATUS(wstatus), NULL);
        } else if (p->connected && !p->finalized) {
            job_fail(j, PX_WHY_NOFINAL, p->proc.rank, 0, NULL);
        }
    }
    px_dvm_log(j->dvm, 2, "%s rank %u: exited (status 0x%x)", j->nspace, p->proc.rank, wstatus);
    px_pubsub_proc_ended(j->dvm->pubsub, &p->proc);
    /* groups and connected sets it was in (dvm_group.c) */
    px_dvm_group_proc_ended(j->dvm, &p->proc, !was_ending && px_job_ending(j));
}

/* One report of a PSTATE batch. A report that does not fit the process's state (a
 * daemon out of step) is logged and dropped. */
static void apply_pstate(px_job_t *j, const px_dp_pstate_one_t *o)
{
    px_proc_t *p = o->rank < j->nprocs ? &j->procs[o->rank] : NULL;
    if (p != NULL && (o->state == PX_DP_PS_CONNECTED || o->state == PX_DP_PS_FINALIZED)) {
        /* a remote daemon's server saw PMIx_Init / PMIx_Finalize (daemon 0's upcalls
         * come straight to dvm.c) */
        p->connected = true;
        p->finalized |= o->state == PX_DP_PS_FINALIZED;
        if (o->state == PX_DP_PS_CONNECTED) {
            px_jagents_connected(p, o->pid); /* a fork/exec agent's process (job_agents.c) */
        }
        return;
    }
    if (p != NULL && (o->state == PX_DP_PS_STOPPED || o->state == PX_DP_PS_CONTINUED)) {
        if (proc_alive(p)) { /* a report after the exit's is out of date */
            px_jdbg_os_state(p, o->state == PX_DP_PS_STOPPED);
        }
        return;
    }
    bool fits = p != NULL &&
                (o->state == PX_DP_PS_EXITED ? p->state != PX_PROC_INIT && p->state != PX_PROC_DONE
                                             : p->state == PX_PROC_STARTING);
    if (!fits) {
        px_dvm_log(j->dvm, 1, "%s: dropped a state report for rank %u", j->nspace, o->rank);
        return;
    }
    if (o->state == PX_DP_PS_STARTED) {
        proc_started(p, 0, NULL, o->pid);
    } else if (o->state == PX_DP_PS_FAILED) {
        proc_started(p, o->status, o->stage, o->pid);
        if (o->pid == 0) {
            proc_exited(p, 0); /* never forked: no exit will follow */
        }
    } else {
        if (p->state == PX_PROC_STARTING) {
            proc_started(p, 0, NULL, o->pid);
        }
        proc_exited(p, o->status);
    }
}

/* A process's output, as its daemon read it. */
static void daemon_output(px_dvm_t *dvm, const px_dp_dmn_msg_t *m)
{
    px_proc_t *p = px_job_proc(dvm, &m->proc);
    if (p == NULL || p->state == PX_PROC_DONE) {
        return; /* a job gone, or output after the exit report: not ours to show */
    }
    px_iof_stream_t *s = m->channel == PMIX_FWD_STDERR_CHANNEL ? p->err : p->out;
    if (s != NULL) {
        px_iof_stream_push(s, m->data.bytes, m->data.size);
    } else {
        px_out_emit(m->channel, m->data.bytes, m->data.size, p);
    }
}

void px_job_daemon_msg(px_dvm_t *dvm, unsigned id, uint32_t tag, uint32_t seq,
                       pmix_data_buffer_t *payload)
{
    px_dp_dmn_msg_t m;
    pmix_status_t rc = px_dp_dmn_decode(tag, payload, &m);
    if (rc != PMIX_SUCCESS) {
        px_dvm_log(dvm, 0, "dropped a malformed or unexpected message (tag %u) from daemon %u: %s",
                   tag, id, PMIx_Error_string(rc));
        return;
    }
    px_job_t *j;
    switch (tag) {
    case PX_DP_PSTATE:
        j = px_job_find(dvm, m.pstate.nspace);
        for (size_t i = 0; j != NULL && i < m.pstate.n; i++) {
            apply_pstate(j, &m.pstate.procs[i]);
        }
        if (j != NULL) {
            job_settle(j); /* may free j */
        }
        break;
    case PX_DP_IOF:
        daemon_output(dvm, &m);
        break;
    case PX_DP_FENCE_UP:
        px_fence_up(dvm, id, &m);
        break;
    case PX_DP_DMODEX_REQ:
        px_dmodex_req(dvm, id, seq, &m);
        break;
    case PX_DP_ABORT:
        px_dvm_abort(dvm, &m.proc, m.status, m.msg, m.procs, m.nprocs);
        break;
    case PX_DP_JOBCTL:
        px_dvm_jobctl(dvm, id, seq, &m.proc, m.procs, m.nprocs, m.info, m.ninfo);
        break;
    case PX_DP_EVENT:
        px_dvm_event(dvm, id, m.status, &m.proc, m.range, m.info, m.ninfo);
        break;
    case PX_DP_QUERY:
        px_dvm_query_remote(dvm, id, seq, m.queries, m.nqueries);
        break;
    case PX_DP_GROUP_UP:
        px_dvm_group_up(dvm, id, seq, &m);
        break;
    case PX_DP_PUBSUB:
        px_dvm_pubsub_remote(dvm, id, seq, &m);
        break;
    case PX_DP_REPORT:
        px_dvm_report(dvm, id, &m);
        break;
    case PX_DP_TREE_UP:
        px_route_tree_up(dvm, id);
        break;
    case PX_DP_PROC_SPAWN:
        px_dvm_spawn_remote(dvm, id, seq, &m); /* takes the apps and job info */
        break;
    }
    px_dp_dmn_msg_free(&m);
}

/* ---- killing ---- */

static void kill_now(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    px_job_t *j = arg;
    send_signal(j, PMIX_RANK_WILDCARD, SIGKILL);
}

/* Terminate every process of the job: SIGTERM, SIGKILL 2 s later (now: SIGKILL). A job
 * still waiting for its setup answer or its starts records why and moves once those are
 * in (job_setup_done, job_settle). */
void px_job_kill(px_job_t *j, px_why_t why, bool now)
{
    if (j->why == PX_WHY_NONE) {
        j->why = why;
    }
    if (j->state == PX_JOB_RUNNING || j->state == PX_JOB_HELD) {
        px_job_move(j, PX_JOB_TERMINATING, "killed");
    }
    if (now) {
        kill_now(-1, 0, j);
        return;
    }
    send_signal(j, PMIX_RANK_WILDCARD, SIGTERM);
    if (px_jdbg_maybe_stopped(j)) {
        send_signal(j, PMIX_RANK_WILDCARD, SIGCONT); /* a stopped process takes it then */
    }
    if (j->kill_ev == NULL) {
        j->kill_ev = evtimer_new(j->dvm->base, kill_now, j);
    }
    if (j->kill_ev != NULL) {
        struct timeval tv = {2, 0};
        evtimer_add(j->kill_ev, &tv);
    }
}

void px_job_signal(px_job_t *j, pmix_rank_t rank, int sig)
{
    send_signal(j, rank, sig);
}

/* The first failure decides how the job ends; the rest of the job is terminated. */
static void job_fail(px_job_t *j, px_why_t why, pmix_rank_t rank, int code, const char *text)
{
    if (px_job_ending(j)) {
        return;
    }
    j->why = why;
    j->why_rank = rank;
    j->why_code = code;
    free(j->why_text);
    j->why_text = text ? strdup(text) : NULL;
    px_job_kill(j, why, why == PX_WHY_START);
}

void px_job_fail_connected(px_job_t *j, const pmix_proc_t *failed)
{
    char who[PMIX_MAX_NSLEN + 16];
    snprintf(who, sizeof(who), "%s rank %u", failed->nspace, failed->rank);
    job_fail(j, PX_WHY_CONNECTED, PMIX_RANK_WILDCARD, 0, who);
}

void px_job_fail_debugger(px_job_t *j, const char *text)
{
    job_fail(j, PX_WHY_DEBUGGER, PMIX_RANK_WILDCARD, 0, text);
}

void px_job_abort(px_job_t *j, pmix_rank_t rank, int status, const char *msg)
{
    job_fail(j, PX_WHY_ABORT, rank, status, msg ? msg : "");
}

/* Whether rank r of j still runs on node (UINT_MAX: on any node). */
static bool alive_on(const px_job_t *j, size_t r, unsigned node)
{
    return proc_alive(&j->procs[r]) && (node == UINT_MAX || j->map.procs[r].node == node);
}

/* The ranks still running on node (UINT_MAX: anywhere), as ranges "0-3,7"; malloc'd. */
static char *alive_ranks(const px_job_t *j, unsigned node)
{
    size_t cap = 64 + j->nprocs * 12, len = 0;
    char *list = calloc(1, cap);
    for (size_t r = 0; list != NULL && r < j->nprocs; r++) {
        if (!alive_on(j, r, node)) {
            continue;
        }
        size_t e = r;
        while (e + 1 < j->nprocs && alive_on(j, e + 1, node)) {
            e++;
        }
        len += (size_t)snprintf(list + len, cap - len, len ? ",%zu" : "%zu", r);
        if (e > r) {
            len += (size_t)snprintf(list + len, cap - len, "-%zu", e);
        }
        r = e;
    }
    return list;
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    px_job_t *j = arg;
    if (j->why == PX_WHY_NONE) {
        char *list = alive_ranks(j, UINT_MAX);
        job_fail(j, PX_WHY_TIMEOUT, PMIX_RANK_WILDCARD, j->timeout, list ? list : "");
        free(list);
    }
}

void px_job_daemon_lost(px_dvm_t *dvm, unsigned id)
{
    px_fence_daemon_lost(dvm, id);
    px_dvm_group_daemon_lost(dvm, id);
    for (px_job_t *j = dvm->jobs, *next; j != NULL; j = next) {
        next = j->next;
        char *list = alive_ranks(j, id);
        if (list == NULL || list[0] == '\0') {
            free(list);
            continue;
        }
        px_dvm_log(dvm, 1, "%s: ranks %s were on the lost daemon %u", j->nspace, list, id);
        job_fail(j, PX_WHY_DAEMON, PMIX_RANK_WILDCARD, (int)id, list);
        free(list);
        /* its processes there went with their daemon (PR_SET_PDEATHSIG) */
        for (size_t r = 0; r < j->nprocs; r++) {
            px_proc_t *p = &j->procs[r];
            if (alive_on(j, r, id)) {
                if (p->state == PX_PROC_STARTING) {
                    proc_started(p, 0, NULL, 0);
                }
                proc_exited(p, SIGKILL);
            }
        }
        job_settle(j); /* may free j */
    }
}

/* ---- the end ---- */

/* Why rank could not start (the node agent's stage and errno are in why_text and
 * why_code), in the node agent's words: which program, searched where, which
 * directory or CPUs. */
static char *start_failure_text(px_job_t *j, pmix_rank_t rank)
{
    uint32_t a = j->map.procs[rank].app;
    char *pathvar = NULL;
    if (asprintf(&pathvar, "PATH=%s", j->paths[a]) < 0) {
        return NULL;
    }
    char *agent = px_dbg_agent_failure(j, rank); /* a debugger agent's (job_dbgd.c) */
    if (agent != NULL) {
        free(pathvar);
        return agent;
    }
    char *argv[2] = {j->exes[a], NULL};
    char *env[2] = {pathvar, NULL};
    px_child_spec_t spec = {
        .argv = argv,
        .env = j->paths[a][0] != '\0' ? env : NULL,
        .wdir = j->wdirs[a][0] != '\0' ? j->wdirs[a] : NULL,
        .cpuset = j->map.procs[rank].cpuset,
    };
    char *text = px_odls_error_text(&spec, j->why_code, j->why_text ? j->why_text : "setup",
                                    px_job_node_name(j, rank), j->nspace, (unsigned)rank);
    free(pathvar);
    return text;
}

static void result_of(px_job_t *j, px_job_result_t *r, char **msg)
{
    px_proc_t *p = j->why_rank < j->nprocs ? &j->procs[j->why_rank] : NULL;
    const char *exe = p ? j->exes[j->map.procs[p->proc.rank].app] : "";
    int pid = p ? (int)p->pid : 0;
    unsigned rank = (unsigned)j->why_rank;
    *msg = NULL;
    r->status = PMIX_SUCCESS;
    r->exit_code = 0;
    switch (j->why) {
    case PX_WHY_NONE:
        break;
    case PX_WHY_START:
        r->status =
            j->why_code == ENOENT ? PMIX_ERR_JOB_EXE_NOT_FOUND : PMIX_ERR_JOB_FAILED_TO_LAUNCH;
        r->exit_code = j->why_code == ENOENT ? 127 : j->why_code == EACCES ? 126 : 1;
        *msg = j->why_msg ? strdup(j->why_msg) : start_failure_text(j, j->why_rank);
        break;
    case PX_WHY_EXIT:
        r->status = PMIX_ERR_JOB_NON_ZERO_TERM;
        r->exit_code = j->why_code;
        *msg = px_help_render("help-prte.txt", "proc-exit", rank, j->nspace,
                              px_job_node_name(j, j->why_rank), pid, exe, j->why_code);
        break;
    case PX_WHY_SIGNAL:
        r->status = PMIX_ERR_JOB_ABORTED_BY_SIG;
        r->exit_code = 128 + j->why_code;
        *msg = px_dbg_agent_signal(j, pid); /* under a fork/exec agent (job_dbgd.c) */
        *msg = *msg != NULL ? *msg
                            : px_help_render("help-prte.txt", "proc-signal", rank, j->nspace,
                                             px_job_node_name(j, j->why_rank), pid, exe,
                                             j->why_code, strsignal(j->why_code));
        break;
    case PX_WHY_ABORT:
        r->status = PMIX_ERR_JOB_ABORTED;
        r->exit_code = (j->why_code > 0 && j->why_code < 256) ? j->why_code : 1;
        *msg = px_help_render("help-prte.txt", "proc-abort", rank, j->nspace,
                              px_job_node_name(j, j->why_rank), pid, exe, j->why_code,
                              j->why_text ? j->why_text : "");
        break;
    case PX_WHY_NOFINAL:
        r->status = PMIX_ERR_JOB_TERM_WO_SYNC;
        r->exit_code = 1;
        *msg = px_help_render("help-prte.txt", "proc-nofinalize", rank, j->nspace,
                              px_job_node_name(j, j->why_rank), pid, exe);
        break;
    case PX_WHY_TIMEOUT:
        r->status = PMIX_ERR_TIMEOUT;
        r->exit_code = 124;
        *msg = px_help_render("help-prte.txt", "job-timeout", j->nspace, j->timeout,
                              j->why_text ? j->why_text : "");
        break;
    case PX_WHY_KILLED:
        r->status = PMIX_ERR_JOB_CANCELED;
        r->exit_code = 128 + SIGTERM;
        *msg = px_help_render("help-prte.txt", "job-killed", j->nspace);
        break;
    case PX_WHY_CONNECTED:
        r->status = PMIX_ERR_JOB_TERM_WO_SYNC;
        r->exit_code = 128 + SIGTERM;
        *msg = px_help_render("help-prte.txt", "job-connected-failed", j->nspace,
                              j->why_text ? j->why_text : "?");
        break;
    case PX_WHY_DEBUGGER:
        r->status = PMIX_ERR_JOB_TERM_WO_SYNC;
        r->exit_code = 1;
        *msg = j->why_text ? strdup(j->why_text) : NULL; /* rendered (job_dbgd.c) */
        break;
    case PX_WHY_SETUP:
        r->status = j->why_status != PMIX_SUCCESS ? j->why_status : PMIX_ERR_JOB_FAILED_TO_MAP;
        r->exit_code = 1;
        *msg = j->why_msg ? strdup(j->why_msg) : NULL;
        break;
    case PX_WHY_DAEMON:
        /* why_code: the node (daemon id); why_text: its ranks that were alive */
        r->status = PMIX_ERR_JOB_ABORTED;
        r->exit_code = 1;
        *msg = px_help_render("help-prte.txt", "job-daemon-lost", j->nspace,
                              j->dvm->nodes[j->why_code].name, j->why_code,
                              j->why_text ? j->why_text : "");
        break;
    }
    r->message = *msg;
}

/* A job of this process ended: its ended() runs once the library has taken the JOB_END
 * event and delivered it to the DVM's own lifecycle handler (px_job_end_delivered), so
 * the shutdown that follows (prterun) cannot overtake that delivery. Bounded: if the
 * delivery does not come within END_DELIVERY_MS of the library's completion (no handler
 * registered, say), ended() runs anyway. Loop, except local_end_notified. */
#define END_DELIVERY_MS 5000

typedef struct local_end {
    struct local_end *next; /* in dvm->local_ends while it waits */
    px_dvm_t *dvm;
    px_dvm_local_t cb;
    pmix_nspace_t nspace;
    px_job_result_t r;
    char *msg;           /* owned: r.message */
    bool notified;       /* the library completed PMIx_Notify_event */
    bool delivered;      /* our own handler saw the event */
    struct event *timer; /* owned: the bound on the delivery */
} local_end_t;

static void local_end_finish(local_end_t *e)
{
    for (local_end_t **pp = &e->dvm->local_ends; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == e) {
            *pp = e->next;
            break;
        }
    }
    if (e->timer != NULL) {
        event_free(e->timer);
    }
    if (e->cb.ended != NULL) {
        e->cb.ended(e->nspace, &e->r, e->cb.arg);
    }
    free(e->msg);
    free(e);
}

static void local_end_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    local_end_t *e = arg;
    px_dvm_log(e->dvm, 1, "%s: JOB_END not seen by our own handler; ending anyway", e->nspace);
    local_end_finish(e);
}

static void local_end_on_loop(void *arg)
{
    local_end_t *e = arg;
    e->notified = true;
    if (e->delivered || e->dvm->evhdlr_life == 0) {
        local_end_finish(e);
        return;
    }
    struct timeval tv = {END_DELIVERY_MS / 1000, (END_DELIVERY_MS % 1000) * 1000};
    e->timer = evtimer_new(e->dvm->base, local_end_timeout, e);
    if (e->timer == NULL || evtimer_add(e->timer, &tv) != 0) {
        local_end_finish(e);
    }
}

void px_job_end_delivered(px_dvm_t *dvm, const char *nspace)
{
    for (local_end_t *e = dvm->local_ends; e != NULL; e = e->next) {
        if (PMIx_Check_nspace(e->nspace, nspace)) {
            e->delivered = true;
            if (e->notified) {
                local_end_finish(e);
            }
            return;
        }
    }
}

void px_job_local_ends_free(px_dvm_t *dvm)
{
    while (dvm->local_ends != NULL) {
        local_end_t *e = dvm->local_ends;
        dvm->local_ends = e->next;
        if (e->timer != NULL) {
            event_free(e->timer);
        }
        free(e->msg);
        free(e);
    }
}

/* Library thread. */
static void local_end_notified(pmix_status_t status, void *cbdata)
{
    (void)status;
    local_end_t *e = cbdata;
    /* on failure the DVM is going already: e stays listed, freed by px_job_local_ends_free */
    (void)px_dvm_shift(e->dvm, local_end_on_loop, e);
}

static void local_end(px_job_t *j, const px_job_result_t *r)
{
    local_end_t *e = calloc(1, sizeof(*e));
    if (e == NULL) {
        px_job_notify_end(j, r, true, NULL, NULL);
        if (j->local_cb.ended != NULL) {
            j->local_cb.ended(j->nspace, r, j->local_cb.arg);
        }
        return;
    }
    e->dvm = j->dvm;
    e->cb = j->local_cb;
    PMIX_LOAD_NSPACE(e->nspace, j->nspace);
    e->r = *r;
    e->msg = r->message != NULL ? strdup(r->message) : NULL;
    e->r.message = e->msg;
    e->next = j->dvm->local_ends;
    j->dvm->local_ends = e;
    if (px_job_notify_end(j, r, true, local_end_notified, e) != PMIX_SUCCESS) {
        e->delivered = true; /* nothing will be delivered */
        local_end_on_loop(e);
    }
}

static void job_free(px_job_t *j)
{
    for (px_job_t **pp = &j->dvm->jobs; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == j) {
            *pp = j->next;
            break;
        }
    }
    while (j->psets != NULL) {
        px_pset_t *s = j->psets;
        j->psets = s->next;
        px_dvm_pset_delete(j->dvm, s->name); /* dvm_remote.c: on every daemon */
        free(s->name);
        free(s);
    }
    pmix_data_buffer_t buf; /* the daemons forget the job */
    px_bfrops_buf_init(&buf);
    if (j->launched && px_dp_cleanup_pack(&buf, j->nspace) == PMIX_SUCCESS) {
        px_job_to_daemons(j->dvm, NULL, PMIX_RANK_WILDCARD, PX_DP_JOB_CLEANUP, &buf);
    }
    px_bfrops_buf_free(&buf);
    px_fence_job_ended(j->dvm, j->nspace);
    free(j->node_map);
    free(j->proc_map);
    free(j->node_list);
    free(j->node_over);
    px_out_flush_held(j, true);
    if (j->timeout_ev != NULL) {
        event_free(j->timeout_ev);
    }
    if (j->kill_ev != NULL) {
        event_free(j->kill_ev);
    }
    px_iof_opts_fini(&j->iof);
    px_map_free(&j->map);
    PMIx_Argv_free(j->cmds);
    PMIx_Argv_free(j->exes);
    PMIx_Argv_free(j->wdirs);
    PMIx_Argv_free(j->paths);
    free(j->procs);
    free(j->stops);
    free(j->breakpoint);
    free(j->why_text);
    free(j->why_msg);
    px_dbg_job_free(j);
    free(j);
}

/* Entering ENDED: tell the requester how the job ended (JOB_END), free it. */
static void job_end(px_job_t *j)
{
    px_job_result_t r;
    char *msg;
    px_dbg_job_ending(j); /* a launch still to tell (co-spawn) is told first */
    result_of(j, &r, &msg);
    px_dvm_log(j->dvm, 1, "%s ended: %s (exit code %d)", j->nspace, PMIx_Error_string(r.status),
               r.exit_code);
    if (j->local) {
        local_end(j, &r); /* to this process, like any requester that asked for it */
    } else {
        if (j->spawn_cb != NULL) {
            /* never started: the reason first (to the requester, asked or not), then the
             * failed spawn reply */
            px_job_notify_end(j, &r, true, NULL, NULL);
            pmix_spawn_cbfunc_t cb = j->spawn_cb;
            j->spawn_cb = NULL;
            cb(r.status == PMIX_SUCCESS ? PMIX_ERR_JOB_FAILED_TO_LAUNCH : r.status, NULL,
               j->spawn_cbdata);
        } else {
            px_job_notify_end(j, &r, false, NULL, NULL); /* job_events.c: who gets it */
        }
    }
    px_dbg_job_ended(j, msg); /* its debugger daemons, or what it debugged (job_dbgd.c) */
    free(msg);
    px_pubsub_job_ended(j->dvm->pubsub, j->nspace);
    px_job_end_children(j); /* the jobs it spawned (job_parent.c) */
    px_dvm_t *dvm = j->dvm;
    job_free(j);
    px_job_stdin_launched(dvm); /* pushes held for it go to what is left */
    px_dvm_maybe_shutdown_done(dvm);
}

/* Every process confirmed its start (and co-spawned debugger daemons run, if any):
 * answer the spawn, raise JOB_START and LAUNCH_COMPLETE to whoever asked for them
 * (job_events.c: PMIX_NOTIFY_JOB_EVENTS; never unasked — Open MPI 4.1's default handler
 * aborts the parent of MPI_Comm_spawn on any event that reaches it). */
void px_job_tell_launched(px_job_t *j)
{
    if (j->spawn_cb != NULL) { /* a requester's job (this process's has none) */
        pmix_spawn_cbfunc_t cb = j->spawn_cb;
        j->spawn_cb = NULL;
        cb(PMIX_SUCCESS, j->nspace, j->spawn_cbdata);
    }
    if (j->local_cb.started != NULL) {
        j->local_cb.started(j->nspace, j->local_cb.arg);
    }
    px_job_notify(j, PMIX_EVENT_JOB_START); /* job_events.c: who gets them */
    px_job_notify(j, PMIX_LAUNCH_COMPLETE);
    if (!px_dbg_out_held(j)) { /* co-spawned daemons': once their application is told */
        px_out_flush_held(j, false);
    }
}

/* Entering RUNNING, every process confirmed its start: tell the launch, unless the
 * debugger daemons co-spawned with it start first (job_dbgd.c). */
static void job_launched(px_job_t *j)
{
    if (px_dbg_defer_launch(j)) {
        return;
    }
    px_job_tell_launched(j);
    px_dbg_launched(j); /* co-spawned daemons: now their application is told */
}

bool px_job_ending(const px_job_t *j)
{
    return j->why != PX_WHY_NONE || j->state >= PX_JOB_TERMINATING;
}

int px_job_move(px_job_t *j, px_job_state_t to, const char *reason)
{
    px_job_state_t from = j->state;
    if (!px_job_state_allowed(from, to)) {
        px_debug(1, "prte", "%s: refused move %s -> %s (%s)", j->nspace, px_job_state_name(from),
                 px_job_state_name(to), reason);
        px_dvm_log(j->dvm, 1, "%s: refused move %s -> %s (%s)", j->nspace, px_job_state_name(from),
                   px_job_state_name(to), reason);
        return -1;
    }
    j->state = to;
    px_debug(2, "prte", "%s: %s -> %s (%s)", j->nspace, px_job_state_name(from),
             px_job_state_name(to), reason);
    px_dvm_log(j->dvm, 2, "%s: %s -> %s (%s)", j->nspace, px_job_state_name(from),
               px_job_state_name(to), reason);
    if (to == PX_JOB_RUNNING && from == PX_JOB_LAUNCHING) {
        job_launched(j);
    } else if (to == PX_JOB_HELD) {
        px_jdbg_tell_ready(j); /* job_debug.c */
    } else if (to == PX_JOB_ENDED) {
        job_end(j); /* frees j */
    }
    return 0;
}

/* Move on by what the processes did: out of LAUNCHING once every start is settled (to
 * RUNNING unless a start failed, then on to TERMINATING if a failure or kill came
 * meanwhile), to ENDED once no process is left. */
static void job_settle(px_job_t *j)
{
    if (j->state == PX_JOB_LAUNCHING && j->nstarting == 0) {
        if (j->why == PX_WHY_START) {
            px_job_move(j, PX_JOB_TERMINATING, "a start failed");
        } else {
            px_job_move(j, PX_JOB_RUNNING, "every process started");
            if (j->why != PX_WHY_NONE) {
                px_job_move(j, PX_JOB_TERMINATING, "failed or killed while launching");
            } else {
                px_jdbg_running(j); /* HELD when every target already is */
            }
        }
    }
    if ((j->state == PX_JOB_RUNNING || j->state == PX_JOB_HELD || j->state == PX_JOB_TERMINATING) &&
        j->nalive == 0 && j->nstarting == 0) {
        px_job_move(j, PX_JOB_ENDED, j->why == PX_WHY_NONE ? "every process ended" : "terminated");
    }
}

/* ---- spawn ---- */

/* The process set an app's processes join (--pset, PMIX_PSET_NAME), or NULL. */
static const char *app_pset(const pmix_app_t *app)
{
    const char *name = NULL;
    for (size_t i = 0; i < app->ninfo; i++) {
        if (PMIX_CHECK_KEY(&app->info[i], PMIX_PSET_NAME) &&
            app->info[i].value.type == PMIX_STRING) {
            name = app->info[i].value.data.string;
        }
    }
    return name;
}

/* The members of process set name: every process of an app that names it, in rank
 * order, as a PMIX_PROC data array (the caller destructs it). */
static pmix_status_t pset_members(const px_job_t *j, const pmix_app_t *apps, const char *name,
                                  pmix_data_array_t *da)
{
    size_t n = 0;
    for (size_t r = 0; r < j->nprocs; r++) {
        const char *s = app_pset(&apps[j->map.procs[r].app]);
        n += (s != NULL && strcmp(s, name) == 0);
    }
    PMIx_Data_array_init(da, PMIX_PROC);
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    pmix_proc_t *members = PMIx_Proc_create(n);
    if (members == NULL) {
        return PMIX_ERR_NOMEM;
    }
    size_t k = 0;
    for (size_t r = 0; r < j->nprocs; r++) {
        const char *s = app_pset(&apps[j->map.procs[r].app]);
        if (s != NULL && strcmp(s, name) == 0) {
            members[k++] = j->procs[r].proc;
        }
    }
    da->array = members;
    da->size = n;
    return PMIX_SUCCESS;
}

/* An app's realm beyond its number and size: its leader, directory (ours when it names
 * none: the processes inherit it), command and, with --pset, its set's name and members
 * (Chap_API_Reserved_Keys, application realm). */
static pmix_status_t app_realm(const px_job_t *j, const pmix_app_t *apps, size_t a, void *al)
{
    pmix_rank_t first = 0;
    for (size_t r = 0; r < j->nprocs; r++) {
        if (j->map.procs[r].app == a) {
            first = (pmix_rank_t)r;
            break;
        }
    }
    PMIx_Info_list_add(al, PMIX_APPLDR, &first, PMIX_PROC_RANK);
    char here[4096];
    const char *wdir = apps[a].cwd ? apps[a].cwd : getcwd(here, sizeof(here));
    if (wdir != NULL) {
        PMIx_Info_list_add(al, PMIX_WDIR, wdir, PMIX_STRING);
    }
    PMIx_Info_list_add(al, PMIX_APP_ARGV, j->cmds[a], PMIX_STRING);
    const char *pset = app_pset(&apps[a]);
    if (pset == NULL) {
        return PMIX_SUCCESS;
    }
    pmix_data_array_t members;
    pmix_status_t rc = pset_members(j, apps, pset, &members);
    if (rc == PMIX_SUCCESS) {
        PMIx_Info_list_add(al, PMIX_PSET_NAME, pset, PMIX_STRING);
        rc = PMIx_Info_list_add(al, PMIX_PSET_MEMBERS, &members, PMIX_DATA_ARRAY);
        PMIx_Data_array_destruct(&members);
    }
    return rc;
}

/* A PMI spawn's preput keys (PX_PMI_PREPUT, libpmix-core/server/server_pmi_spawn.c):
 * job-level data of the new job, where its processes' PMI get finds them. */
static pmix_status_t add_preput(const px_job_t *j, void *list)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < j->ninfo; i++) {
        const pmix_value_t *v = &j->info[i].value;
        if (!PMIX_CHECK_KEY(&j->info[i], PX_PMI_PREPUT) || v->type != PMIX_DATA_ARRAY ||
            v->data.darray == NULL || v->data.darray->type != PMIX_INFO) {
            continue;
        }
        const pmix_info_t *pp = v->data.darray->array;
        for (size_t k = 0; rc == PMIX_SUCCESS && k < v->data.darray->size; k++) {
            if (pp[k].value.type == PMIX_STRING && strncmp(pp[k].key, "pmix.", 5) != 0) {
                rc = PMIx_Info_list_add(list, pp[k].key, pp[k].value.data.string, PMIX_STRING);
            }
        }
    }
    return rc;
}

/* The job- and application-realm data the controller decides, the same on every
 * daemon (docs/PROTOCOL.md, LAUNCH's registration data): identity, sizes, the maps and
 * the node list, the policies, the session, the server's namespace, each app's realm.
 * Each daemon adds its node's facts and the process realm. *out: PMIx_Info_free. */
static pmix_status_t reg_info(px_job_t *j, const pmix_app_t *apps, size_t napps, pmix_info_t **out,
                              size_t *nout)
{
    void *list = PMIx_Info_list_start();
    uint32_t size = (uint32_t)j->nprocs;
    uint32_t session = (uint32_t)getpid(); /* one DVM = one session */
    PMIx_Info_list_add(list, PMIX_NSPACE, j->nspace, PMIX_STRING);
    PMIx_Info_list_add(list, PMIX_JOBID, j->nspace, PMIX_STRING);
    PMIx_Info_list_add(list, PMIX_SERVER_NSPACE, j->dvm->nspace, PMIX_STRING);
    PMIx_Info_list_add(list, PMIX_SESSION_ID, &session, PMIX_UINT32);
    px_ilist_add_u32(list, PMIX_JOB_SIZE, size);
    px_ilist_add_u32(list, PMIX_UNIV_SIZE, size);
    px_ilist_add_u32(list, PMIX_MAX_PROCS, size);
    px_ilist_add_u32(list, PMIX_JOB_NUM_APPS, (uint32_t)napps);
    PMIx_Info_list_add(list, PMIX_NODE_LIST, j->node_list, PMIX_STRING);
    PMIx_Info_list_add(list, PMIX_NODE_MAP, j->node_map, PMIX_STRING);
    PMIx_Info_list_add(list, PMIX_PROC_MAP, j->proc_map, PMIX_STRING);
    if (j->map.mapby != NULL) {
        PMIx_Info_list_add(list, PMIX_MAPBY, j->map.mapby, PMIX_STRING);
    }
    if (j->map.rankby != NULL) {
        PMIx_Info_list_add(list, PMIX_RANKBY, j->map.rankby, PMIX_STRING);
    }
    if (j->map.bindto != NULL) {
        PMIx_Info_list_add(list, PMIX_BINDTO, j->map.bindto, PMIX_STRING);
    }
    const pmix_proc_t *parent = px_job_parent(j); /* spawned from inside a job */
    if (parent != NULL) {
        PMIx_Info_list_add(list, PMIX_PARENT_ID, parent, PMIX_PROC);
    }
    pmix_status_t rc = add_preput(j, list);
    if (rc == PMIX_SUCCESS) {
        rc = px_dbg_reg_info(j, list); /* debugger daemons: their target */
    }
    for (size_t a = 0; rc == PMIX_SUCCESS && a < napps; a++) {
        void *al = PMIx_Info_list_start();
        px_ilist_add_u32(al, PMIX_APPNUM, (uint32_t)a);
        px_ilist_add_u32(al, PMIX_APP_SIZE, j->map.app_nprocs[a]);
        rc = app_realm(j, apps, a, al);
        px_jdbg_app_realm(j, a, al); /* the stop points asked of it */
        if (rc == PMIX_SUCCESS) {
            rc = px_ilist_add_array(list, PMIX_APP_INFO_ARRAY, al);
        } else {
            PMIx_Info_list_release(al);
        }
    }
    pmix_data_array_t da = PMIX_DATA_ARRAY_STATIC_INIT;
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_convert(list, &da);
    }
    PMIx_Info_list_release(list);
    *out = rc == PMIX_SUCCESS ? da.array : NULL;
    *nout = rc == PMIX_SUCCESS ? da.size : 0;
    return rc;
}

/* One process set per --pset name, with the processes of the apps that named it. */
static pmix_status_t define_psets(px_job_t *j, const pmix_app_t *apps, size_t napps, char **msg)
{
    for (size_t a = 0; a < napps; a++) {
        const char *name = app_pset(&apps[a]);
        bool seen = false;
        for (px_pset_t *s = j->psets; name != NULL && s != NULL; s = s->next) {
            seen = seen || strcmp(s->name, name) == 0;
        }
        if (name == NULL || seen) {
            continue;
        }
        pmix_data_array_t members;
        px_pset_t *s = calloc(1, sizeof(*s));
        pmix_status_t rc = pset_members(j, apps, name, &members);
        if (rc == PMIX_SUCCESS) {
            rc = s ? px_dvm_pset_define(j->dvm, members.array, members.size, name) : PMIX_ERR_NOMEM;
            PMIx_Data_array_destruct(&members);
        }
        if (rc == PMIX_EXISTS) { /* defined since check_request (not by a job of ours) */
            *msg = px_help_render("help-prte.txt", "pset-exists", j->nspace, name, "the DVM");
        }
        if (rc != PMIX_SUCCESS) {
            free(s);
            return rc;
        }
        s->name = strdup(name);
        s->next = j->psets;
        j->psets = s;
    }
    return PMIX_SUCCESS;
}

/* What the request names must exist or be free before anything is registered: its
 * stdin target among the job's ranks, its process set names non-empty and not those of
 * a live job. A refusal comes with its message. */
static pmix_status_t check_request(px_job_t *j, const pmix_app_t *apps, size_t napps, char **msg)
{
    if (j->stdin_rank != PMIX_RANK_WILDCARD && j->stdin_rank != PMIX_RANK_INVALID &&
        j->stdin_rank >= j->nprocs) {
        *msg = px_help_render("help-prte.txt", "stdin-rank", j->nspace, (unsigned)j->stdin_rank,
                              j->nprocs);
        return PMIX_ERR_BAD_PARAM;
    }
    for (size_t a = 0; a < napps; a++) {
        const char *name = app_pset(&apps[a]);
        if (name != NULL && (name[0] == '\0' || strchr(name, ',') != NULL)) {
            *msg = px_help_render("help-prte.txt", "pset-name", j->nspace, name);
            return PMIX_ERR_BAD_PARAM;
        }
        for (px_job_t *o = j->dvm->jobs; name != NULL && o != NULL; o = o->next) {
            for (px_pset_t *s = o->psets; o != j && s != NULL; s = s->next) {
                if (strcmp(s->name, name) == 0) {
                    *msg =
                        px_help_render("help-prte.txt", "pset-exists", j->nspace, name, o->nspace);
                    return PMIX_EXISTS;
                }
            }
        }
    }
    *msg = px_personality_refusal(j->nspace, j->info, j->ninfo, apps, napps);
    return *msg != NULL ? PMIX_ERR_NOT_SUPPORTED : PMIX_SUCCESS;
}

static void read_job_info(px_job_t *j, const pmix_info_t *info, size_t ninfo)
{
    j->stdin_rank = PMIX_RANK_INVALID; /* no PMIX_STDIN_TGT: nobody reads our stdin */
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *in = &info[i];
        if (PMIX_CHECK_KEY(in, PMIX_NOTIFY_COMPLETION)) {
            j->notify_completion = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_FWD_STDOUT) && PMIX_INFO_TRUE(in)) {
            j->fwd |= PMIX_FWD_STDOUT_CHANNEL;
        } else if (PMIX_CHECK_KEY(in, PMIX_FWD_STDERR) && PMIX_INFO_TRUE(in)) {
            j->fwd |= PMIX_FWD_STDERR_CHANNEL;
        } else if (PMIX_CHECK_KEY(in, PMIX_FWD_STDDIAG) && PMIX_INFO_TRUE(in)) {
            j->fwd |= PMIX_FWD_STDDIAG_CHANNEL;
        } else if (PMIX_CHECK_KEY(in, PMIX_NOTIFY_JOB_EVENTS)) {
            j->notify_events = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_LOG_JOB_EVENTS)) {
            j->log_events = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_LOG_COMPLETION)) {
            j->log_completion = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_NOHUP)) {
            j->nohup = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_STDIN_TGT) || PMIX_CHECK_KEY(in, PMIX_FWD_STDIN)) {
            j->stdin_rank = px_dp_stdin_target(info, ninfo); /* what the daemons read */
        } else if (PMIX_CHECK_KEY(in, PMIX_JOB_TIMEOUT)) {
            int t = 0;
            if (PMIx_Value_get_number(&in->value, &t, PMIX_INT) == PMIX_SUCCESS) {
                j->timeout = t;
            }
        } else if (PMIX_CHECK_KEY(in, PMIX_DISPLAY_MAP)) {
            j->display_map = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_DISPLAY_ALLOCATION)) {
            j->display_alloc = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_REPORT_BINDINGS)) {
            j->report_bindings = PMIX_INFO_TRUE(in);
        }
    }
    px_iof_opts_from_info(&j->iof, info, ninfo);
}

/* The search path a process of app gets: its -x PATH=..., else ours. */
static const char *app_path(const pmix_app_t *app)
{
    const char *path = getenv("PATH");
    for (size_t i = 0; app->env != NULL && app->env[i] != NULL; i++) {
        if (strncmp(app->env[i], "PATH=", 5) == 0) {
            path = app->env[i] + 5;
        }
    }
    return path != NULL ? path : "";
}

/* The apps' commands for proc tables and messages, and what a start failure message
 * names (working directory, search path; "" for none). */
static pmix_status_t record_apps(px_job_t *j, const pmix_app_t *apps, size_t napps)
{
    for (size_t a = 0; a < napps; a++) {
        char *line = apps[a].argv ? PMIx_Argv_join(apps[a].argv, ' ') : NULL;
        const char *exe = apps[a].cmd ? apps[a].cmd : (apps[a].argv ? apps[a].argv[0] : "");
        if (PMIx_Argv_append_nosize(&j->cmds, line ? line : exe) != PMIX_SUCCESS ||
            PMIx_Argv_append_nosize(&j->exes, exe) != PMIX_SUCCESS ||
            PMIx_Argv_append_nosize(&j->wdirs, apps[a].cwd ? apps[a].cwd : "") != PMIX_SUCCESS ||
            PMIx_Argv_append_nosize(&j->paths, app_path(&apps[a])) != PMIX_SUCCESS) {
            free(line);
            return PMIX_ERR_NOMEM;
        }
        free(line);
    }
    return PMIX_SUCCESS;
}

static uint8_t bind_obj_wire(px_map_obj_t o)
{
    switch (o) {
    case PX_MAP_OBJ_CORE:
        return PX_DP_BIND_CORE;
    case PX_MAP_OBJ_PACKAGE:
        return PX_DP_BIND_PACKAGE;
    case PX_MAP_OBJ_HWTHREAD:
        return PX_DP_BIND_HWTHREAD;
    default:
        return PX_DP_BIND_NONE;
    }
}

/* The LAUNCH message of the job (docs/PROTOCOL.md): the nodes it uses with their
 * daemons, each rank's place and binding, the apps, the directives, the registration
 * data and the application setup's answer. */
static pmix_status_t launch_msg(px_job_t *j, const pmix_info_t *setup, size_t nsetup,
                                pmix_data_buffer_t *buf)
{
    size_t nn = j->dvm->nnodes;
    uint32_t *idx = calloc(nn ? nn : 1, sizeof(*idx)); /* DVM node -> launch node + 1 */
    px_dp_lnode_t *nodes = calloc(nn ? nn : 1, sizeof(*nodes));
    px_dp_launch_t l = {.nprocs = j->nprocs,
                        .bind_obj = bind_obj_wire(j->map.bind_obj),
                        .pe = (uint16_t)(j->map.pe > 0 ? j->map.pe : 0),
                        .apps = (pmix_app_t *)j->apps,
                        .napps = j->napps,
                        .info = (pmix_info_t *)j->info,
                        .ninfo = j->ninfo,
                        .setup = (pmix_info_t *)setup,
                        .nsetup = nsetup};
    PMIX_LOAD_NSPACE(l.nspace, j->nspace);
    l.flags = px_job_parent(j) != NULL ? PX_DP_JOB_SPAWNED : 0; /* job_parent.c */
    l.procs = calloc(j->nprocs ? j->nprocs : 1, sizeof(*l.procs));
    pmix_status_t rc =
        l.procs != NULL && idx != NULL && nodes != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    for (size_t r = 0; rc == PMIX_SUCCESS && r < j->nprocs; r++) {
        idx[j->map.procs[r].node] = 1;
    }
    for (size_t n = 0; rc == PMIX_SUCCESS && n < nn; n++) {
        if (idx[n] != 0) {
            nodes[l.nnodes] = (px_dp_lnode_t){.name = j->dvm->nodes[n].name,
                                              .daemon = (uint32_t)n,
                                              .flags = j->node_over[n] ? PX_DP_NODE_OVERSUB : 0};
            idx[n] = (uint32_t)++l.nnodes;
        }
    }
    l.nodes = nodes;
    for (size_t r = 0; rc == PMIX_SUCCESS && r < j->nprocs; r++) {
        const px_map_proc_t *mp = &j->map.procs[r];
        l.procs[r] =
            (px_dp_lproc_t){.node = idx[mp->node] - 1,
                            .local_rank = mp->local_rank,
                            .node_rank = mp->node_rank,
                            .app = mp->app,
                            .flags = (mp->bind_deferred ? PX_DP_PROC_BIND_LATER : 0) |
                                     (j->procs[r].stop == PX_STOP_EXEC ? PX_DP_PROC_STOP_EXEC : 0)};
        char *list = NULL;
        if (mp->cpuset != NULL && (hwloc_bitmap_list_asprintf(&list, mp->cpuset) < 0 ||
                                   asprintf(&l.procs[r].cpuset, "hwloc:%s", list) < 0)) {
            l.procs[r].cpuset = NULL;
            rc = PMIX_ERR_NOMEM;
        }
        free(list);
    }
    if (rc == PMIX_SUCCESS) {
        rc = reg_info(j, j->apps, j->napps, &l.reg, &l.nreg);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dp_launch_pack(buf, &l);
        j->ompi = px_personality_job_has(&l, PX_PERS_OMPI);
    }
    for (size_t r = 0; l.procs != NULL && r < j->nprocs; r++) {
        free(l.procs[r].cpuset);
    }
    PMIx_Info_free(l.reg, l.nreg);
    free(l.procs);
    free(nodes);
    free(idx);
    return rc;
}

/* Open the processes' output streams and send the job's LAUNCH to every daemon (each
 * registers the job; those with processes of it start them); the starts come back as
 * PSTATE reports. */
static void start_procs(px_job_t *j, const pmix_info_t *setup, size_t nsetup)
{
    for (size_t r = 0; r < j->nprocs; r++) {
        px_proc_t *p = &j->procs[r];
        p->out = px_iof_stream_create(&j->iof, j->label, p->proc.rank, PMIX_FWD_STDOUT_CHANNEL,
                                      px_out_emit, p);
        p->err = px_iof_stream_create(&j->iof, j->label, p->proc.rank, PMIX_FWD_STDERR_CHANNEL,
                                      px_out_emit, p);
        if ((j->iof.dir != NULL || j->iof.file != NULL) && (p->out == NULL || p->err == NULL)) {
            int err = errno;
            if (j->why == PX_WHY_NONE) {
                j->why_msg =
                    px_help_render("help-prted.txt", "iof-file",
                                   px_iof_last_path() ? px_iof_last_path() : "?", strerror(err));
            }
            job_fail(j, PX_WHY_START, p->proc.rank, err, "setup");
            return;
        }
    }
    pmix_data_buffer_t buf;
    px_bfrops_buf_init(&buf);
    pmix_status_t rc = launch_msg(j, setup, nsetup, &buf);
    if (rc != PMIX_SUCCESS) {
        px_bfrops_buf_free(&buf);
        job_fail(j, PX_WHY_START, 0, ENOMEM, "setup");
        return;
    }
    for (size_t r = 0; r < j->nprocs; r++) {
        j->procs[r].state = PX_PROC_STARTING;
    }
    j->nstarting = j->nalive = j->nprocs;
    j->launched = true;
    px_job_to_daemons(j->dvm, NULL, PMIX_RANK_WILDCARD, PX_DP_LAUNCH, &buf);
    px_bfrops_buf_free(&buf);
    px_job_stdin_launched(j->dvm); /* the stdin pushed meanwhile, after the LAUNCH */
}

static void show_map(px_job_t *j)
{
    char *text = px_map_render(&j->map, j->dvm->nodes, j->dvm->nnodes_used, j->label);
    if (text != NULL) {
        px_out_emit(PMIX_FWD_STDOUT_CHANNEL, text, strlen(text), &j->procs[0]);
        free(text);
    }
}

/* --display allocation: the DVM's nodes as the pool sees them before this job starts. */
static void show_alloc(px_job_t *j)
{
    px_pool_t pool;
    if (px_pool_get(j->dvm, &pool) != 0) {
        return;
    }
    for (size_t r = 0; r < j->nprocs; r++) { /* this job is in the pool already */
        for (size_t k = 0; k < pool.nnodes; k++) {
            if (pool.ids[k] == j->map.procs[r].node) {
                pool.nodes[k].slots_inuse--;
                break;
            }
        }
    }
    char *text = px_map_render_alloc(pool.nodes, pool.nnodes);
    px_pool_put(&pool);
    if (text != NULL) {
        px_out_emit(PMIX_FWD_STDOUT_CHANNEL, text, strlen(text), &j->procs[0]);
        free(text);
    }
}

static void show_bindings(px_job_t *j)
{
    for (size_t r = 0; r < j->nprocs; r++) {
        char *line = px_map_binding_line(&j->map, j->dvm->nodes, (pmix_rank_t)r, j->label);
        if (line != NULL) {
            px_out_emit(PMIX_FWD_STDERR_CHANNEL, line, strlen(line), &j->procs[r]);
            free(line);
        }
    }
}

static void job_setup_done(px_job_t *j, pmix_status_t rc, pmix_info_t *info, size_t ninfo);

/* The job could not be mapped, set up or registered: it ends with msg (owned) or a
 * generic message. */
static void setup_failed(px_job_t *j, pmix_status_t rc, char *msg)
{
    j->why = PX_WHY_SETUP;
    j->why_status = rc;
    j->why_msg =
        msg ? msg : px_help_render("help-prte.txt", "job-setup", j->nspace, PMIx_Error_string(rc));
    px_job_move(j, PX_JOB_ENDED, "setup failed");
}

/* What the pool tells of the nodes the job was mapped onto: whether each holds more
 * processes (of all jobs) than slots, and each process's node rank, the lowest one no
 * live process on its node holds (PMIX_NODE_RANK counts every job's processes). The
 * map's node indices (the pool's) become the DVM's (daemon ids). */
static pmix_status_t node_facts(px_job_t *j, const px_pool_t *pool)
{
    size_t nn = pool->nnodes;
    size_t *placed = calloc(nn ? nn : 1, sizeof(*placed));
    size_t *next = calloc(nn ? nn : 1, sizeof(*next));
    j->node_over = calloc(j->dvm->nnodes ? j->dvm->nnodes : 1, sizeof(bool));
    pmix_status_t rc = placed && next && j->node_over ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    for (size_t r = 0; rc == PMIX_SUCCESS && r < j->map.nprocs; r++) {
        px_map_proc_t *mp = &j->map.procs[r];
        size_t n = mp->node;
        placed[n]++;
        while (next[n] < pool->nused[n] && pool->used[n][next[n]]) {
            next[n]++;
        }
        mp->node_rank = (uint16_t)next[n]++;
    }
    for (size_t n = 0; rc == PMIX_SUCCESS && n < nn; n++) {
        const px_map_node_t *node = &pool->nodes[n];
        j->node_over[pool->ids[n]] =
            placed[n] > 0 && (int)placed[n] + node->slots_inuse > node->slots;
    }
    for (size_t r = 0; rc == PMIX_SUCCESS && r < j->map.nprocs; r++) {
        j->map.procs[r].node = pool->ids[j->map.procs[r].node];
    }
    free(placed);
    free(next);
    return rc;
}

/* Make the job's maps (kept for its registration), then ask the library for the job's
 * setup data; the job waits for it (job_setup_done). */
static pmix_status_t setup_app(px_job_t *j)
{
    /* the nodes the job uses in the DVM's order, and their ranks "r,r;r,r" */
    size_t nn = j->dvm->nnodes;
    size_t *count = calloc(nn ? nn : 1, sizeof(*count));
    size_t names = 1, ranks = 1 + j->nprocs * 12 + nn;
    for (size_t r = 0; count != NULL && r < j->nprocs; r++) {
        count[j->map.procs[r].node]++;
    }
    for (size_t n = 0; count != NULL && n < nn; n++) {
        names += count[n] ? strlen(j->dvm->nodes[n].name) + 1 : 0;
    }
    j->node_list = count ? calloc(1, names) : NULL;
    char *ppn = count ? calloc(1, ranks) : NULL;
    size_t nl = 0, pl = 0;
    for (size_t n = 0; ppn != NULL && j->node_list != NULL && n < nn; n++) {
        if (count[n] == 0) {
            continue;
        }
        nl += (size_t)snprintf(j->node_list + nl, names - nl, nl ? ",%s" : "%s",
                               j->dvm->nodes[n].name);
        pl += (size_t)snprintf(ppn + pl, ranks - pl, "%s", pl ? ";" : "");
        bool first = true;
        for (size_t r = 0; r < j->nprocs; r++) {
            if (j->map.procs[r].node == n) {
                pl += (size_t)snprintf(ppn + pl, ranks - pl, first ? "%zu" : ",%zu", r);
                first = false;
            }
        }
    }
    pmix_status_t rc = ppn != NULL && j->node_list != NULL
                           ? PMIx_generate_regex(j->node_list, &j->node_map)
                           : PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_generate_ppn(ppn, &j->proc_map);
    }
    free(ppn);
    free(count);
    if (rc == PMIX_SUCCESS) {
        rc = px_job_setup_app(j, j->node_map, j->proc_map, j->info, j->ninfo, job_setup_done);
    }
    if (rc == PMIX_SUCCESS) {
        px_job_move(j, PX_JOB_SETUP, "waiting for the application setup");
    }
    return rc;
}

static px_job_t *job_alloc(px_dvm_t *dvm)
{
    px_job_t *j = calloc(1, sizeof(*j));
    if (j == NULL) {
        return NULL;
    }
    j->dvm = dvm;
    j->jobid = ++j->dvm->next_jobid;
    snprintf(j->label, sizeof(j->label), "%u", j->jobid);
    char ns[PMIX_MAX_NSLEN + 32];
    snprintf(ns, sizeof(ns), "%s@%u", j->dvm->nspace, j->jobid);
    PMIX_LOAD_NSPACE(j->nspace, ns);
    j->why_rank = PMIX_RANK_INVALID;
    j->next = j->dvm->jobs;
    j->dvm->jobs = j;
    return j;
}

px_job_t *px_job_new(px_dvm_t *dvm, const px_job_t *like)
{
    px_job_t *j = job_alloc(dvm);
    if (j != NULL) {
        j->local = like->local;
        j->requester = like->requester;
        j->out_here = like->local || like->out_here;
    }
    return j;
}

/* The request's directives read, its apps recorded; msg NULL: an earlier refusal, so
 * nothing is checked. */
static pmix_status_t job_prepare(px_job_t *j, const pmix_info_t *info, size_t ninfo,
                                 const pmix_app_t *apps, size_t napps, char **msg)
{
    read_job_info(j, info, ninfo);
    px_job_adopt(j); /* spawned from inside a job (job_parent.c) */
    pmix_status_t rc = record_apps(j, apps, napps);
    if (rc == PMIX_SUCCESS && msg != NULL) {
        rc = px_job_check_directives(j, info, ninfo, apps, napps, msg);
    }
    j->apps = apps;
    j->napps = napps;
    j->info = info;
    j->ninfo = ninfo;
    return rc;
}

pmix_status_t px_job_spawn(px_dvm_t *dvm, const pmix_proc_t *requester, const px_dvm_local_t *local,
                           const pmix_info_t *info, size_t ninfo, const pmix_app_t *apps,
                           size_t napps, pmix_spawn_cbfunc_t cbfunc, void *cbdata)
{
    px_job_t *j = job_alloc(dvm);
    if (j == NULL) {
        return PMIX_ERR_NOMEM;
    }
    if (local != NULL) {
        j->local = true;
        j->local_cb = *local;
        PMIx_Load_procid(&j->requester, dvm->nspace, 0); /* the events' range: this process */
    } else {
        j->requester = *requester;
        j->spawn_cb = cbfunc;
        j->spawn_cbdata = cbdata;
    }

    /* debugger daemons (job_dbgd.c): co-spawned beside j, or j is theirs */
    char *msg = NULL;
    px_job_t *d = NULL;
    pmix_status_t rc = px_dbg_spawn(j, &d, &info, &ninfo, &apps, &napps, &msg);
    pmix_status_t prc = job_prepare(j, info, ninfo, apps, napps, rc == PMIX_SUCCESS ? &msg : NULL);
    rc = rc != PMIX_SUCCESS ? rc : prc;
    if (d != NULL) { /* mapped once j has started (px_dbg_defer_launch) */
        const pmix_info_t *dinfo;
        const pmix_app_t *dapps;
        size_t ndinfo, ndapps;
        px_dbg_daemons_part(d, &dinfo, &ndinfo, &dapps, &ndapps);
        prc = job_prepare(d, dinfo, ndinfo, dapps, ndapps, rc == PMIX_SUCCESS ? &msg : NULL);
        rc = rc != PMIX_SUCCESS ? rc : prc;
    }
    if (rc == PMIX_SUCCESS && j->dvm->shutting_down) {
        rc = PMIX_ERR_JOB_CANCELED;
        msg = px_help_render("help-prte.txt", "dvm-terminating", j->dvm->nspace);
    }
    if (rc == PMIX_SUCCESS && !dvm->up && !dvm->start_failed) {
        /* the daemons are still coming up: mapped once they are (px_job_dvm_started) */
        j->waiting_dvm = true;
        px_dvm_log(dvm, 1, "%s waits for the daemons to come up", j->nspace);
        free(msg);
        return PMIX_SUCCESS;
    }
    if (rc == PMIX_SUCCESS && dvm->start_failed) {
        rc = PMIX_ERR_UNREACH;
        msg = px_help_render("help-prte.txt", "dvm-not-started", j->nspace, dvm->nspace);
    }
    if (rc != PMIX_SUCCESS) {
        setup_failed(j, rc, msg); /* its co-spawned daemons end with it */
        return PMIX_SUCCESS;      /* answered through the callback */
    }
    px_job_map(j);
    return PMIX_SUCCESS;
}

void px_job_map(px_job_t *j)
{
    char *msg = NULL;
    pmix_status_t rc;
    px_pool_t pool = {0};   /* one pool: map onto what the running jobs leave free */
    if (px_dbg_places(j)) { /* debugger daemons beside their target (job_dbgd.c) */
        rc = px_pool_get(j->dvm, &pool) == 0 ? px_dbg_map(j, &pool, &j->map, &msg) : PMIX_ERR_NOMEM;
    } else {
        rc = px_job_hosts_add(j, &msg); /* --add-host: wait for those first */
        if (rc == PMIX_OPERATION_IN_PROGRESS) {
            return; /* px_job_map again once they are up (job_hosts.c) */
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_job_hosts_pool(j, &pool, &msg); /* --host: those nodes only (gets pool) */
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_map_job(pool.nodes, pool.nnodes, j->apps, j->napps, j->info, j->ninfo, &j->map,
                            &msg);
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = node_facts(j, &pool);
    }
    px_pool_put(&pool); /* nothing to free when it was not got */
    if (rc == PMIX_SUCCESS) {
        j->nprocs = j->map.nprocs;
        j->procs = calloc(j->nprocs ? j->nprocs : 1, sizeof(*j->procs));
        rc = j->procs ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    for (size_t r = 0; rc == PMIX_SUCCESS && r < j->nprocs; r++) {
        j->procs[r].job = j;
        PMIx_Load_procid(&j->procs[r].proc, j->nspace, (pmix_rank_t)r);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_jdbg_read(j, &msg); /* its stop points (job_debug.c) */
    }
    if (rc == PMIX_SUCCESS) {
        rc = check_request(j, j->apps, j->napps, &msg);
    }
    if (rc == PMIX_SUCCESS) {
        rc = setup_app(j);
    }
    if (rc != PMIX_SUCCESS) {
        setup_failed(j, rc, msg);
        return;
    }
    free(msg);
}

void px_job_setup_failed(px_job_t *j, pmix_status_t rc, char *msg)
{
    setup_failed(j, rc, msg);
}

void px_job_dvm_started(px_dvm_t *dvm, bool ok)
{
    for (px_job_t *j = dvm->jobs, *next; j != NULL; j = next) {
        next = j->next;
        if (!j->waiting_dvm) {
            continue;
        }
        j->waiting_dvm = false;
        if (ok) {
            px_job_map(j);
        } else if (dvm->shutting_down) {
            setup_failed(j, PMIX_ERR_JOB_CANCELED,
                         px_help_render("help-prte.txt", "dvm-terminating", dvm->nspace));
        } else {
            setup_failed(j, PMIX_ERR_UNREACH,
                         px_help_render("help-prte.txt", "dvm-not-started", j->nspace,
                                        dvm->nspace)); /* frees j */
        }
    }
}

/* The library's application setup is there: define the psets, then LAUNCH (Server
 * chapter: setup_application before launch; each daemon registers the job and hands
 * this answer to setup_local_support before its processes start). */
static void job_setup_done(px_job_t *j, pmix_status_t rc, pmix_info_t *info, size_t ninfo)
{
    if (px_job_ending(j)) {
        px_job_move(j, PX_JOB_ENDED, "killed during setup"); /* pterm, the requester left */
        return;
    }
    char *msg = NULL;
    if (rc == PMIX_SUCCESS) {
        rc = define_psets(j, j->apps, j->napps, &msg);
    }
    if (rc != PMIX_SUCCESS) {
        setup_failed(j, rc, msg);
        return;
    }
    if (j->display_alloc && j->nprocs > 0) { /* before the map: PRRTE's order */
        show_alloc(j);
    }
    if (j->display_map && j->nprocs > 0) {
        show_map(j);
    }
    if (j->report_bindings) {
        show_bindings(j);
    }
    if (j->timeout > 0) {
        j->timeout_ev = evtimer_new(j->dvm->base, on_timeout, j);
        struct timeval tv = {j->timeout, 0};
        if (j->timeout_ev != NULL) {
            evtimer_add(j->timeout_ev, &tv);
        }
    }
    px_job_move(j, PX_JOB_LAUNCHING, "set up");
    start_procs(j, info, ninfo);
    job_settle(j);
}
