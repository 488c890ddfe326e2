/* launcher: a job's life on this node — map, register the namespace and its clients,
 * define its process sets, start its processes through the node agent, forward their
 * output, watch them end, and tell the requester how the job ended. Controller loop only.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/px_common.h"
#include "help/px_help.h"
#include "bfrops/px_bfrops.h"
#include "daemon/px_dproto.h"
#include "daemon/px_personality.h"
#include "launcher/dvm_int.h"

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

/* ---- daemon 0: the same messages as any daemon, delivered in-process ---- */

/* Hand a controller -> daemon message to the daemons. Daemon 0, this node's agent, gets
 * it decoded from the very bytes a prted would read (docs/PROTOCOL.md, "Daemon 0").
 * Not yet: the other daemons (jobs are mapped onto this node only). */
static void to_daemons(px_dvm_t *dvm, uint32_t tag, pmix_data_buffer_t *payload)
{
    px_dp_ctl_msg_t m;
    pmix_status_t rc = px_dp_ctl_decode(tag, payload, &m);
    if (rc == PMIX_SUCCESS) {
        rc = px_nagent_handle(dvm->agent, &m);
        px_dp_ctl_msg_free(&m);
    }
    if (rc != PMIX_SUCCESS) {
        px_dvm_log(dvm, 1, "daemon 0 refused message %u: %s", tag, PMIx_Error_string(rc));
    }
}

static void send_signal(px_job_t *j, pmix_rank_t rank, int sig)
{
    pmix_proc_t target;
    PMIx_Load_procid(&target, j->nspace, rank);
    pmix_data_buffer_t buf;
    px_bfrops_buf_init(&buf);
    if (px_dp_signal_pack(&buf, &target, sig) == PMIX_SUCCESS) {
        to_daemons(j->dvm, PX_DP_SIGNAL, &buf);
    }
    px_bfrops_buf_free(&buf);
}

px_child_t *px_job_child(const px_proc_t *p)
{
    return px_nagent_child(p->job->dvm->agent, &p->proc);
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

/* A daemon -> controller message (daemon 0's arrive in-process through the agent's
 * send callback): PSTATE moves the job's processes, then the job. */
static void on_daemon_msg(uint32_t tag, pmix_data_buffer_t *payload, void *arg)
{
    px_dvm_t *dvm = arg;
    px_dp_pstate_t ps;
    if (tag != PX_DP_PSTATE || px_dp_pstate_unpack(payload, &ps) != PMIX_SUCCESS) {
        px_dvm_log(dvm, 1, "dropped a malformed or unexpected daemon message (tag %u)", tag);
        return;
    }
    px_job_t *j = px_job_find(dvm, ps.nspace);
    for (size_t i = 0; j != NULL && i < ps.n; i++) {
        apply_pstate(j, &ps.procs[i]);
    }
    if (j != NULL) {
        job_settle(j); /* may free j */
    }
    px_dp_pstate_free(&ps);
}

static void on_daemon_output(const pmix_proc_t *proc, int channel, const char *data, size_t len,
                             void *arg)
{
    px_proc_t *p = px_job_proc(arg, proc);
    if (p == NULL) {
        return;
    }
    px_iof_stream_t *s = channel == PX_CHILD_STDERR ? p->err : p->out;
    if (s != NULL) {
        px_iof_stream_push(s, data, len);
    } else {
        px_out_emit(channel, data, len, p);
    }
}

void px_job_agent_cbs(px_dvm_t *dvm, px_nagent_cbs_t *cbs)
{
    cbs->send = on_daemon_msg;
    cbs->output = on_daemon_output;
    cbs->arg = dvm;
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
    if (j->state == PX_JOB_RUNNING) {
        px_job_move(j, PX_JOB_TERMINATING, "killed");
    }
    if (now) {
        kill_now(-1, 0, j);
        return;
    }
    send_signal(j, PMIX_RANK_WILDCARD, SIGTERM);
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

void px_job_abort(px_job_t *j, pmix_rank_t rank, int status, const char *msg)
{
    job_fail(j, PX_WHY_ABORT, rank, status, msg ? msg : "");
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    px_job_t *j = arg;
    if (j->why == PX_WHY_NONE) {
        /* the ranks still running, as ranges */
        size_t cap = 64 + j->nprocs * 12, len = 0;
        char *list = calloc(1, cap);
        for (size_t r = 0; list != NULL && r < j->nprocs; r++) {
            if (!proc_alive(&j->procs[r])) {
                continue;
            }
            size_t e = r;
            while (e + 1 < j->nprocs && proc_alive(&j->procs[e + 1])) {
                e++;
            }
            len += (size_t)snprintf(list + len, cap - len, len ? ",%zu" : "%zu", r);
            if (e > r) {
                len += (size_t)snprintf(list + len, cap - len, "-%zu", e);
            }
            r = e;
        }
        job_fail(j, PX_WHY_TIMEOUT, PMIX_RANK_WILDCARD, j->timeout, list ? list : "");
        free(list);
    }
}

/* ---- the end ---- */

static const char *node_name(const px_job_t *j)
{
    return j->dvm->hostname;
}

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
    char *argv[2] = {j->exes[a], NULL};
    char *env[2] = {pathvar, NULL};
    px_child_spec_t spec = {
        .argv = argv,
        .env = j->paths[a][0] != '\0' ? env : NULL,
        .wdir = j->wdirs[a][0] != '\0' ? j->wdirs[a] : NULL,
        .cpuset = j->map.procs[rank].cpuset,
    };
    char *text = px_odls_error_text(&spec, j->why_code, j->why_text ? j->why_text : "setup",
                                    node_name(j), j->nspace, (unsigned)rank);
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
        *msg = px_help_render("help-prte.txt", "proc-exit", rank, j->nspace, node_name(j), pid, exe,
                              j->why_code);
        break;
    case PX_WHY_SIGNAL:
        r->status = PMIX_ERR_JOB_ABORTED_BY_SIG;
        r->exit_code = 128 + j->why_code;
        *msg = px_help_render("help-prte.txt", "proc-signal", rank, j->nspace, node_name(j), pid,
                              exe, j->why_code, strsignal(j->why_code));
        break;
    case PX_WHY_ABORT:
        r->status = PMIX_ERR_JOB_ABORTED;
        r->exit_code = (j->why_code > 0 && j->why_code < 256) ? j->why_code : 1;
        *msg = px_help_render("help-prte.txt", "proc-abort", rank, j->nspace, node_name(j), pid,
                              exe, j->why_code, j->why_text ? j->why_text : "");
        break;
    case PX_WHY_NOFINAL:
        r->status = PMIX_ERR_JOB_TERM_WO_SYNC;
        r->exit_code = 1;
        *msg = px_help_render("help-prte.txt", "proc-nofinalize", rank, j->nspace, node_name(j),
                              pid, exe);
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
    case PX_WHY_SETUP:
        r->status = j->why_status != PMIX_SUCCESS ? j->why_status : PMIX_ERR_JOB_FAILED_TO_MAP;
        r->exit_code = 1;
        *msg = j->why_msg ? strdup(j->why_msg) : NULL;
        break;
    }
    r->message = *msg;
}

static void notify_end(px_job_t *j, const px_job_result_t *r)
{
    pmix_proc_t target, affected;
    PMIx_Load_procid(&affected, j->nspace, PMIX_RANK_WILDCARD);
    PMIx_Load_procid(&target, j->nspace,
                     j->why_rank < j->nprocs ? j->why_rank : PMIX_RANK_WILDCARD);
    time_t now = time(NULL);
    void *list = PMIx_Info_list_start();
    PMIx_Info_list_add(list, PMIX_EVENT_CUSTOM_RANGE, &j->requester, PMIX_PROC);
    PMIx_Info_list_add(list, PMIX_EVENT_AFFECTED_PROC, &affected, PMIX_PROC);
    PMIx_Info_list_add(list, PMIX_JOB_TERM_STATUS, &r->status, PMIX_STATUS);
    PMIx_Info_list_add(list, PMIX_PROCID, &target, PMIX_PROC);
    PMIx_Info_list_add(list, PMIX_EXIT_CODE, &r->exit_code, PMIX_INT);
    PMIx_Info_list_add(list, PMIX_EVENT_TIMESTAMP, &now, PMIX_TIME);
    PMIx_Info_list_add(list, PMIX_NSPACE, j->nspace, PMIX_STRING);
    if (r->message != NULL) {
        PMIx_Info_list_add(list, PMIX_EVENT_TEXT_MESSAGE, r->message, PMIX_STRING);
    }
    pmix_data_array_t da = PMIX_DATA_ARRAY_STATIC_INIT;
    if (PMIx_Info_list_convert(list, &da) == PMIX_SUCCESS) {
        pmix_proc_t source;
        PMIx_Load_procid(&source, j->dvm->nspace, 0);
        PMIx_Notify_event(PMIX_EVENT_JOB_END, &source, PMIX_RANGE_CUSTOM, da.array, da.size, NULL,
                          NULL);
        PMIx_Data_array_destruct(&da);
    }
    PMIx_Info_list_release(list);
}

static void notify_simple(px_job_t *j, pmix_status_t code)
{
    pmix_proc_t source, affected;
    PMIx_Load_procid(&source, j->dvm->nspace, 0);
    PMIx_Load_procid(&affected, j->nspace, PMIX_RANK_WILDCARD);
    time_t now = time(NULL);
    pmix_info_t info[4];
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, &j->requester, PMIX_PROC);
    PMIX_INFO_LOAD(&info[1], PMIX_EVENT_AFFECTED_PROC, &affected, PMIX_PROC);
    PMIX_INFO_LOAD(&info[2], PMIX_NSPACE, j->nspace, PMIX_STRING);
    PMIX_INFO_LOAD(&info[3], PMIX_EVENT_TIMESTAMP, &now, PMIX_TIME);
    PMIx_Notify_event(code, &source, PMIX_RANGE_CUSTOM, info, 4, NULL, NULL);
    for (int i = 0; i < 4; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
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
        PMIx_server_delete_process_set(s->name);
        free(s->name);
        free(s);
    }
    pmix_data_buffer_t buf; /* the daemons forget the job */
    px_bfrops_buf_init(&buf);
    if (px_dp_cleanup_pack(&buf, j->nspace) == PMIX_SUCCESS) {
        to_daemons(j->dvm, PX_DP_JOB_CLEANUP, &buf);
    }
    px_bfrops_buf_free(&buf);
    if (j->registered) {
        for (size_t r = 0; r < j->nprocs; r++) {
            if (j->procs[r].registered) {
                PMIx_server_deregister_client(&j->procs[r].proc, NULL, NULL);
            }
        }
        PMIx_server_deregister_nspace(j->nspace, NULL, NULL);
    }
    px_job_reg_cleanup(j);
    free(j->node_map);
    free(j->proc_map);
    free(j->peers);
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
    free(j->why_text);
    free(j->why_msg);
    free(j);
}

/* Entering ENDED: tell the requester how the job ended (JOB_END), free it. */
static void job_end(px_job_t *j)
{
    px_job_result_t r;
    char *msg;
    result_of(j, &r, &msg);
    px_dvm_log(j->dvm, 1, "%s ended: %s (exit code %d)", j->nspace, PMIx_Error_string(r.status),
               r.exit_code);
    if (j->local) {
        notify_end(j, &r); /* to this process, like any requester that asked for it */
        if (j->local_cb.ended != NULL) {
            j->local_cb.ended(j->nspace, &r, j->local_cb.arg);
        }
    } else {
        if (j->spawn_cb != NULL) {
            /* never started: the reason first, then the failed spawn reply */
            notify_end(j, &r);
            pmix_spawn_cbfunc_t cb = j->spawn_cb;
            j->spawn_cb = NULL;
            cb(r.status == PMIX_SUCCESS ? PMIX_ERR_JOB_FAILED_TO_LAUNCH : r.status, NULL,
               j->spawn_cbdata);
        } else if (j->notify_completion) {
            notify_end(j, &r);
        }
    }
    free(msg);
    px_pubsub_job_ended(j->dvm->pubsub, j->nspace);
    px_job_end_children(j); /* the jobs it spawned (job_parent.c) */
    px_dvm_t *dvm = j->dvm;
    job_free(j);
    px_job_stdin_recheck(dvm); /* pushes held for this job's stdin are released */
    px_dvm_maybe_shutdown_done(dvm);
}

/* Entering RUNNING, every process confirmed its start: answer the spawn, raise
 * JOB_START and LAUNCH_COMPLETE. */
static void job_launched(px_job_t *j)
{
    if (j->spawn_cb != NULL) { /* a requester's job (this process's has none) */
        pmix_spawn_cbfunc_t cb = j->spawn_cb;
        j->spawn_cb = NULL;
        cb(PMIX_SUCCESS, j->nspace, j->spawn_cbdata);
    }
    if (j->local_cb.started != NULL) {
        j->local_cb.started(j->nspace, j->local_cb.arg);
    }
    notify_simple(j, PMIX_EVENT_JOB_START);
    notify_simple(j, PMIX_LAUNCH_COMPLETE);
    px_out_flush_held(j, false);
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
    if (to == PX_JOB_RUNNING) {
        job_launched(j);
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
            }
        }
    }
    if ((j->state == PX_JOB_RUNNING || j->state == PX_JOB_TERMINATING) && j->nalive == 0 &&
        j->nstarting == 0) {
        px_job_move(j, PX_JOB_ENDED, j->why == PX_WHY_NONE ? "every process ended" : "terminated");
    }
}

/* ---- spawn ---- */

static pmix_status_t add_u32(void *list, const char *key, uint32_t v)
{
    return PMIx_Info_list_add(list, key, &v, PMIX_UINT32);
}

static pmix_status_t add_array(void *outer, const char *key, void *inner)
{
    pmix_data_array_t da = PMIX_DATA_ARRAY_STATIC_INIT;
    pmix_status_t rc = PMIx_Info_list_convert(inner, &da);
    PMIx_Info_list_release(inner);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(outer, key, &da, PMIX_DATA_ARRAY);
        PMIx_Data_array_destruct(&da);
    }
    return rc;
}

static char *rank_list(const px_job_t *j, uint32_t app, bool all)
{
    size_t cap = j->nprocs * 12 + 2, len = 0;
    char *s = calloc(1, cap);
    for (size_t r = 0; s != NULL && r < j->nprocs; r++) {
        if (all || j->map.procs[r].app == app) {
            len += (size_t)snprintf(s + len, cap - len, len ? ",%zu" : "%zu", r);
        }
    }
    return s;
}

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

/* The namespace's job, app, node and proc data (single node). */
static pmix_status_t register_job(px_job_t *j, const pmix_app_t *apps, size_t napps)
{
    void *list = PMIx_Info_list_start();
    uint32_t size = (uint32_t)j->nprocs;
    pmix_status_t rc = PMIX_SUCCESS;
    pmix_rank_t zero = 0;
    if (rc == PMIX_SUCCESS) {
        PMIx_Info_list_add(list, PMIX_JOBID, j->nspace, PMIX_STRING);
        add_u32(list, PMIX_JOB_SIZE, size);
        add_u32(list, PMIX_UNIV_SIZE, size);
        add_u32(list, PMIX_MAX_PROCS, size);
        add_u32(list, PMIX_JOB_NUM_APPS, (uint32_t)napps);
        add_u32(list, PMIX_NUM_NODES, 1);
        add_u32(list, PMIX_LOCAL_SIZE, size);
        add_u32(list, PMIX_NODE_SIZE, size);
        add_u32(list, PMIX_NODEID, 0);
        PMIx_Info_list_add(list, PMIX_HOSTNAME, j->dvm->hostname, PMIX_STRING);
        rc = px_job_reg_host_keys(j, list);
        PMIx_Info_list_add(list, PMIX_LOCAL_PEERS, j->peers, PMIX_STRING);
        PMIx_Info_list_add(list, PMIX_LOCALLDR, &zero, PMIX_PROC_RANK);
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
    }
    for (size_t a = 0; rc == PMIX_SUCCESS && a < napps; a++) {
        void *al = PMIx_Info_list_start();
        add_u32(al, PMIX_APPNUM, (uint32_t)a);
        add_u32(al, PMIX_APP_SIZE, j->map.app_nprocs[a]);
        rc = app_realm(j, apps, a, al);
        if (rc == PMIX_SUCCESS) {
            rc = add_array(list, PMIX_APP_INFO_ARRAY, al);
        } else {
            PMIx_Info_list_release(al);
        }
    }
    /* PMIX_SPAWNED: a process of another job of this DVM asked for it */
    bool spawned = px_job_parent(j) != NULL;
    for (size_t r = 0; rc == PMIX_SUCCESS && r < j->nprocs; r++) {
        const px_map_proc_t *mp = &j->map.procs[r];
        void *pl = PMIx_Info_list_start();
        pmix_rank_t rank = (pmix_rank_t)r;
        PMIx_Info_list_add(pl, PMIX_RANK, &rank, PMIX_PROC_RANK);
        add_u32(pl, PMIX_APPNUM, mp->app);
        PMIx_Info_list_add(pl, PMIX_APP_RANK, &mp->app_rank, PMIX_PROC_RANK);
        PMIx_Info_list_add(pl, PMIX_GLOBAL_RANK, &rank, PMIX_PROC_RANK);
        PMIx_Info_list_add(pl, PMIX_LOCAL_RANK, &mp->local_rank, PMIX_UINT16);
        PMIx_Info_list_add(pl, PMIX_NODE_RANK, &mp->node_rank, PMIX_UINT16);
        add_u32(pl, PMIX_NODEID, 0);
        PMIx_Info_list_add(pl, PMIX_HOSTNAME, j->dvm->hostname, PMIX_STRING);
        px_job_reg_proc_keys(j, rank, spawned, pl);
        if (mp->cpuset != NULL) {
            /* "hwloc:<list>"; the server library adds PMIX_LOCALITY_STRING from it */
            char *cs = NULL;
            pmix_cpuset_t bound = {.source = "hwloc", .bitmap = mp->cpuset};
            if (PMIx_server_generate_cpuset_string(&bound, &cs) == PMIX_SUCCESS) {
                PMIx_Info_list_add(pl, PMIX_CPUSET, cs, PMIX_STRING);
                free(cs);
            }
        }
        rc = add_array(list, PMIX_PROC_INFO_ARRAY, pl);
    }
    pmix_data_array_t da = PMIX_DATA_ARRAY_STATIC_INIT;
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_convert(list, &da);
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_server_register_nspace(j->nspace, (int)j->nprocs, da.array, da.size, NULL, NULL);
        rc = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
        j->registered = (rc == PMIX_SUCCESS);
        PMIx_Data_array_destruct(&da);
    }
    PMIx_Info_list_release(list);
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
            rc = s ? PMIx_server_define_process_set(members.array, members.size, name)
                   : PMIX_ERR_NOMEM;
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

/* The spawn directives this DVM honours, and at which level: the one table the
 * job-info reader checks requests against (check_directives) and the
 * PMIX_QUERY_SPAWN_SUPPORT answer lists (px_job_spawn_support). Who reads each:
 * read_job_info below, px_map_job (mapping, binding), px_iof_opts_from_info (output
 * formatting and files), the server library (forwarding to the requester), app_pset,
 * the node agent's px_personality_env (checked by check_request).
 * A key added to a reader must be added here, and the other way round. */
enum { PX_AT_JOB = 1, PX_AT_APP = 2 };
static const struct {
    const char *key;
    unsigned where;
} spawn_attrs[] = {
    {PMIX_NOTIFY_COMPLETION, PX_AT_JOB},
    {PMIX_NOHUP, PX_AT_JOB},
    {PMIX_STDIN_TGT, PX_AT_JOB},
    {PMIX_JOB_TIMEOUT, PX_AT_JOB},
    {PMIX_DISPLAY_MAP, PX_AT_JOB},
    {PMIX_DISPLAY_ALLOCATION, PX_AT_JOB},
    {PMIX_REPORT_BINDINGS, PX_AT_JOB},
    {PMIX_MAPBY, PX_AT_JOB},
    {PMIX_RANKBY, PX_AT_JOB},
    {PMIX_BINDTO, PX_AT_JOB},
    {PMIX_CPUS_PER_PROC, PX_AT_JOB},
    {PMIX_FWD_STDOUT, PX_AT_JOB},
    {PMIX_FWD_STDERR, PX_AT_JOB},
    {PMIX_IOF_TAG_OUTPUT, PX_AT_JOB},
    {PMIX_IOF_RANK_OUTPUT, PX_AT_JOB},
    {PMIX_IOF_TIMESTAMP_OUTPUT, PX_AT_JOB},
    {PMIX_IOF_XML_OUTPUT, PX_AT_JOB},
    {PMIX_IOF_MERGE_STDERR_STDOUT, PX_AT_JOB},
    {PMIX_IOF_OUTPUT_RAW, PX_AT_JOB},
    {PMIX_IOF_FILE_ONLY, PX_AT_JOB},
    {PMIX_IOF_OUTPUT_TO_DIRECTORY, PX_AT_JOB},
    {PMIX_IOF_OUTPUT_TO_FILE, PX_AT_JOB},
    {PMIX_PSET_NAME, PX_AT_APP},
    {PMIX_PERSONALITY, PX_AT_JOB | PX_AT_APP}, /* the node agent: daemon/personality.c */
};

/* Refused whether marked required or not, until the debugger support exists: asking
 * for them and getting a plain job (debugger daemons ran as extra ranks of the target)
 * is worse than a refusal. */
static const char *const debugger_attrs[] = {
    PMIX_DEBUG_STOP_ON_EXEC, PMIX_DEBUG_STOP_IN_INIT, PMIX_DEBUG_STOP_IN_APP, PMIX_DEBUGGER_DAEMONS,
    PMIX_DEBUG_TARGET,       PMIX_FORKEXEC_AGENT,     PMIX_EXEC_AGENT,        PMIX_SPAWN_TOOL,
};

char *px_job_spawn_support(void)
{
    char **keys = NULL;
    for (size_t i = 0; i < sizeof(spawn_attrs) / sizeof(spawn_attrs[0]); i++) {
        if (PMIx_Argv_append_nosize(&keys, spawn_attrs[i].key) != PMIX_SUCCESS) {
            PMIx_Argv_free(keys);
            return NULL;
        }
    }
    char *s = PMIx_Argv_join(keys, ',');
    PMIx_Argv_free(keys);
    return s;
}

/* The first directive of info[] at level `where` the DVM will not act on: a debugger
 * attribute (any), or a required one the table does not list. NULL if none. */
static const char *unhonoured(const pmix_info_t *info, size_t ninfo, unsigned where, bool *debugger)
{
    const char *honoured[sizeof(spawn_attrs) / sizeof(spawn_attrs[0]) + 1];
    size_t n = 0;
    for (size_t i = 0; i < sizeof(spawn_attrs) / sizeof(spawn_attrs[0]); i++) {
        if (spawn_attrs[i].where & where) {
            honoured[n++] = spawn_attrs[i].key;
        }
    }
    honoured[n] = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        for (size_t k = 0; k < sizeof(debugger_attrs) / sizeof(debugger_attrs[0]); k++) {
            if (PMIX_CHECK_KEY(&info[i], debugger_attrs[k])) {
                *debugger = true;
                return info[i].key;
            }
        }
    }
    *debugger = false;
    return px_info_unhonoured(info, ninfo, honoured);
}

/* Refuse a request carrying a directive the DVM would not honour (Standard: a
 * required directive that cannot be honoured fails the call), naming it. */
static pmix_status_t check_directives(px_job_t *j, const pmix_info_t *info, size_t ninfo,
                                      const pmix_app_t *apps, size_t napps, char **msg)
{
    bool debugger = false;
    const char *key = unhonoured(info, ninfo, PX_AT_JOB, &debugger);
    for (size_t a = 0; key == NULL && a < napps; a++) {
        key = unhonoured(apps[a].info, apps[a].ninfo, PX_AT_APP, &debugger);
    }
    if (key == NULL) {
        return PMIX_SUCCESS;
    }
    *msg = px_help_render("help-prte.txt", debugger ? "spawn-debugger" : "spawn-unsupported",
                          j->nspace, key);
    return PMIX_ERR_NOT_SUPPORTED;
}

static void read_job_info(px_job_t *j, const pmix_info_t *info, size_t ninfo)
{
    j->stdin_rank = PMIX_RANK_INVALID; /* no PMIX_STDIN_TGT: nobody reads our stdin */
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *in = &info[i];
        if (PMIX_CHECK_KEY(in, PMIX_NOTIFY_COMPLETION)) {
            j->notify_completion = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_NOHUP)) {
            j->nohup = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_STDIN_TGT)) {
            uint32_t t = 0;
            if (PMIx_Value_get_number(&in->value, &t, PMIX_UINT32) == PMIX_SUCCESS) {
                j->stdin_rank = t;
            }
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

/* The LAUNCH message of the job: its map, apps and directives (docs/PROTOCOL.md). */
static pmix_status_t launch_msg(px_job_t *j, pmix_data_buffer_t *buf)
{
    px_dp_lnode_t node = {.name = j->dvm->hostname, .daemon = 0};
    px_dp_launch_t l = {.nodes = &node,
                        .nnodes = 1,
                        .nprocs = j->nprocs,
                        .apps = (pmix_app_t *)j->apps,
                        .napps = j->napps,
                        .info = (pmix_info_t *)j->info,
                        .ninfo = j->ninfo};
    PMIX_LOAD_NSPACE(l.nspace, j->nspace);
    l.procs = calloc(j->nprocs ? j->nprocs : 1, sizeof(*l.procs));
    pmix_status_t rc = l.procs != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    for (size_t r = 0; rc == PMIX_SUCCESS && r < j->nprocs; r++) {
        const px_map_proc_t *mp = &j->map.procs[r];
        l.procs[r] = (px_dp_lproc_t){
            .node = 0, .local_rank = mp->local_rank, .node_rank = mp->node_rank, .app = mp->app};
        char *list = NULL;
        if (mp->cpuset != NULL && (hwloc_bitmap_list_asprintf(&list, mp->cpuset) < 0 ||
                                   asprintf(&l.procs[r].cpuset, "hwloc:%s", list) < 0)) {
            l.procs[r].cpuset = NULL;
            rc = PMIX_ERR_NOMEM;
        }
        free(list);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dp_launch_pack(buf, &l);
    }
    for (size_t r = 0; l.procs != NULL && r < j->nprocs; r++) {
        free(l.procs[r].cpuset);
    }
    free(l.procs);
    return rc;
}

/* Register the clients, open their output streams, and send the job's LAUNCH to the
 * daemons (daemon 0 in-process); the processes' starts come back as PSTATE reports. */
static void start_procs(px_job_t *j)
{
    uid_t uid = getuid();
    gid_t gid = getgid();
    for (size_t r = 0; r < j->nprocs; r++) {
        px_proc_t *p = &j->procs[r];
        if (PMIx_server_register_client(&p->proc, uid, gid, p, NULL, NULL) == PMIX_SUCCESS) {
            p->registered = true;
        }
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
    pmix_status_t rc = launch_msg(j, &buf);
    if (rc != PMIX_SUCCESS) {
        px_bfrops_buf_free(&buf);
        job_fail(j, PX_WHY_START, 0, ENOMEM, "setup");
        return;
    }
    for (size_t r = 0; r < j->nprocs; r++) {
        j->procs[r].state = PX_PROC_STARTING;
    }
    j->nstarting = j->nalive = j->nprocs;
    to_daemons(j->dvm, PX_DP_LAUNCH, &buf);
    px_bfrops_buf_free(&buf);
}

static void show_map(px_job_t *j)
{
    char *text = px_map_render(&j->map, &j->dvm->node, 1, j->label);
    if (text != NULL) {
        px_out_emit(PMIX_FWD_STDOUT_CHANNEL, text, strlen(text), &j->procs[0]);
        free(text);
    }
}

/* --display allocation: the DVM's node as the pool sees it before this job starts (only
 * daemon 0's node: jobs are not mapped onto the other daemons' nodes yet). */
static void show_alloc(px_job_t *j)
{
    px_pool_t pool;
    if (px_pool_get(j->dvm, &pool) != 0) {
        return;
    }
    pool.node.slots_inuse -= (int)j->nprocs; /* this job is in the pool already */
    char *text = px_map_render_alloc(&pool.node, 1);
    px_pool_put(&pool);
    if (text != NULL) {
        px_out_emit(PMIX_FWD_STDOUT_CHANNEL, text, strlen(text), &j->procs[0]);
        free(text);
    }
}

static void show_bindings(px_job_t *j)
{
    for (size_t r = 0; r < j->nprocs; r++) {
        char *line = px_map_binding_line(&j->map, &j->dvm->node, (pmix_rank_t)r, j->label);
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

/* Make the job's maps (kept for its registration), then ask the library for the job's
 * setup data; the job waits for it (job_setup_done). */
static pmix_status_t setup_app(px_job_t *j)
{
    j->peers = rank_list(j, 0, true);
    pmix_status_t rc =
        j->peers ? PMIx_generate_regex(j->dvm->hostname, &j->node_map) : PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_generate_ppn(j->peers, &j->proc_map);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_job_setup_app(j, j->node_map, j->proc_map, j->info, j->ninfo, job_setup_done);
    }
    if (rc == PMIX_SUCCESS) {
        px_job_move(j, PX_JOB_SETUP, "waiting for the application setup");
    }
    return rc;
}

pmix_status_t px_job_spawn(px_dvm_t *dvm, const pmix_proc_t *requester, const px_dvm_local_t *local,
                           const pmix_info_t *info, size_t ninfo, const pmix_app_t *apps,
                           size_t napps, pmix_spawn_cbfunc_t cbfunc, void *cbdata)
{
    px_job_t *j = calloc(1, sizeof(*j));
    if (j == NULL) {
        return PMIX_ERR_NOMEM;
    }
    j->dvm = dvm;
    j->jobid = ++j->dvm->next_jobid;
    snprintf(j->label, sizeof(j->label), "%u", j->jobid);
    char ns[PMIX_MAX_NSLEN + 32];
    snprintf(ns, sizeof(ns), "%s@%u", j->dvm->nspace, j->jobid);
    PMIX_LOAD_NSPACE(j->nspace, ns);
    j->why_rank = PMIX_RANK_INVALID;
    if (local != NULL) {
        j->local = true;
        j->local_cb = *local;
        PMIx_Load_procid(&j->requester, dvm->nspace, 0); /* the events' range: this process */
    } else {
        j->requester = *requester;
        j->spawn_cb = cbfunc;
        j->spawn_cbdata = cbdata;
    }
    j->next = j->dvm->jobs;
    j->dvm->jobs = j;
    read_job_info(j, info, ninfo);
    px_job_adopt(j); /* spawned from inside a job (job_parent.c) */

    pmix_status_t rc = record_apps(j, apps, napps);
    char *msg = NULL;
    if (rc == PMIX_SUCCESS) {
        rc = check_directives(j, info, ninfo, apps, napps, &msg);
    }
    if (rc == PMIX_SUCCESS && j->dvm->shutting_down) {
        rc = PMIX_ERR_JOB_CANCELED;
        msg = px_help_render("help-prte.txt", "dvm-terminating", j->dvm->nspace);
    }
    if (rc == PMIX_SUCCESS) {
        px_pool_t pool; /* one pool: map onto what the running jobs leave free */
        if (px_pool_get(j->dvm, &pool) < 0) {
            rc = PMIX_ERR_NOMEM;
        } else {
            rc = px_map_job(&pool.node, 1, apps, napps, info, ninfo, &j->map, &msg);
            px_pool_put(&pool);
        }
    }
    if (rc == PMIX_SUCCESS) {
        j->nprocs = j->map.nprocs;
        j->procs = calloc(j->nprocs ? j->nprocs : 1, sizeof(*j->procs));
        rc = j->procs ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    for (size_t r = 0; rc == PMIX_SUCCESS && r < j->nprocs; r++) {
        j->procs[r].job = j;
        PMIx_Load_procid(&j->procs[r].proc, j->nspace, (pmix_rank_t)r);
    }
    j->apps = apps;
    j->napps = napps;
    j->info = info;
    j->ninfo = ninfo;
    if (rc == PMIX_SUCCESS) {
        rc = check_request(j, apps, napps, &msg);
    }
    if (rc == PMIX_SUCCESS) {
        rc = setup_app(j);
    }
    if (rc != PMIX_SUCCESS) {
        setup_failed(j, rc, msg);
        return PMIX_SUCCESS; /* answered through the callback */
    }
    free(msg);
    return PMIX_SUCCESS;
}

/* The library's application setup is there: register, then fork (Server chapter:
 * setup_application before launch, setup_local_support before the processes start). */
static void job_setup_done(px_job_t *j, pmix_status_t rc, pmix_info_t *info, size_t ninfo)
{
    if (px_job_ending(j)) {
        px_job_move(j, PX_JOB_ENDED, "killed during setup"); /* pterm, the requester left */
        return;
    }
    const pmix_app_t *apps = j->apps;
    size_t napps = j->napps;
    char *msg = NULL;
    if (rc == PMIX_SUCCESS) {
        rc = register_job(j, apps, napps);
    }
    if (rc == PMIX_SUCCESS) {
        rc = define_psets(j, apps, napps, &msg);
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_server_setup_local_support(j->nspace, info, ninfo, NULL, NULL);
        rc = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
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
    px_job_move(j, PX_JOB_LAUNCHING, "registered");
    start_procs(j);
    job_settle(j);
}
