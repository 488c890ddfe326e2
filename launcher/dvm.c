/* launcher: the controller — server init with tool support, daemon 0's link and the
 * daemons' start (on the loop: opts.ready), the host upcalls (spawn, abort, client
 * connected/finalized, tool approval, query, job control, stdin, fence, direct modex,
 * events beyond this node), a remote daemon's abort / job control / events, the lost
 * launcher rule, and DVM shutdown. Upcalls arrive on the server library's thread and are
 * shifted to the controller's loop (main thread), where all state lives.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/thread.h>
#include <pmix.h>
#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "help/px_help.h"
#include "launcher/dvm_int.h"
#include "launcher/px_daemons.h"
#include "server/px_srv_host.h"

/* The DVM this process's PMIx server serves (px_dvm_served). */
static px_dvm_t *served;

px_dvm_t *px_dvm_served(void)
{
    return served;
}

void px_dvm_log(const px_dvm_t *dvm, int level, const char *fmt, ...)
{
    if (dvm->verbose < level) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[%s:%d] ", dvm->prog ? dvm->prog : "prte", (int)getpid());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- the thread shift ---- */

int px_dvm_shift(px_dvm_t *dvm, void (*fn)(void *), void *arg)
{
    return px_progress_shift(dvm->progress, fn, arg);
}

/* ---- spawn ---- */

typedef struct {
    px_dvm_t *dvm;
    pmix_proc_t requester;
    const pmix_info_t *info;
    size_t ninfo;
    const pmix_app_t *apps;
    size_t napps;
    pmix_spawn_cbfunc_t cbfunc;
    void *cbdata;
} spawn_req_t;

static void spawn_on_loop(void *arg)
{
    spawn_req_t *s = arg;
    pmix_status_t rc = PMIX_ERR_NO_PERMISSIONS;
    if (px_dvm_auth_may_act(s->dvm, &s->requester, "spawn")) {
        rc = px_job_spawn(s->dvm, &s->requester, NULL, s->info, s->ninfo, s->apps, s->napps,
                          s->cbfunc, s->cbdata);
    }
    if (rc != PMIX_SUCCESS) {
        s->cbfunc(rc, NULL, s->cbdata);
    }
    free(s);
}

static pmix_status_t up_spawn(const pmix_proc_t *proc, const pmix_info_t job_info[], size_t ninfo,
                              const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                              void *cbdata)
{
    spawn_req_t *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return PMIX_ERR_NOMEM;
    }
    s->dvm = served;
    s->requester = *proc;
    s->info = job_info;
    s->ninfo = ninfo;
    s->apps = apps;
    s->napps = napps;
    s->cbfunc = cbfunc;
    s->cbdata = cbdata;
    if (px_dvm_shift(s->dvm, spawn_on_loop, s) != 0) {
        free(s);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

/* ---- client connected / finalized / abort ---- */

typedef struct {
    px_dvm_t *dvm;
    pmix_proc_t proc;
    int what; /* 0 connected, 1 finalized, 2 abort */
    int status;
    char *msg;
    pmix_proc_t *procs;
    size_t nprocs;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
} op_req_t;

static void op_on_loop(void *arg)
{
    op_req_t *o = arg;
    px_proc_t *p = px_job_proc(o->dvm, &o->proc);
    if (p != NULL && o->what == 0) {
        p->connected = true;
        px_jagents_connected(p, px_srv_client_pid(&o->proc)); /* job_agents.c */
    } else if (p != NULL && o->what == 1) {
        p->finalized = true;
    } else if (o->what == 2) {
        px_dvm_abort(o->dvm, &o->proc, o->status, o->msg, o->procs, o->nprocs);
    }
    if (o->cbfunc != NULL) {
        o->cbfunc(PMIX_SUCCESS, o->cbdata);
    }
    free(o->msg);
    free(o->procs);
    free(o);
}

void px_dvm_abort(px_dvm_t *dvm, const pmix_proc_t *caller, int status, const char *msg,
                  const pmix_proc_t *procs, size_t nprocs)
{
    px_proc_t *p = px_job_proc(dvm, caller);
    if (p == NULL) {
        return;
    }
    /* the targets: the caller's whole namespace unless others were named */
    px_job_abort(p->job, caller->rank, status, msg);
    for (size_t i = 0; i < nprocs; i++) {
        px_job_t *j = px_job_find(dvm, procs[i].nspace);
        if (j != NULL && j != p->job) {
            px_job_kill(j, PX_WHY_KILLED, false);
        }
    }
}

static pmix_status_t op_post(const pmix_proc_t *proc, int what, pmix_op_cbfunc_t cbfunc,
                             void *cbdata, op_req_t **out)
{
    op_req_t *o = calloc(1, sizeof(*o));
    if (o == NULL) {
        return PMIX_ERR_NOMEM;
    }
    o->dvm = served;
    o->proc = *proc;
    o->what = what;
    o->cbfunc = cbfunc;
    o->cbdata = cbdata;
    if (out != NULL) {
        *out = o;
        return PMIX_SUCCESS;
    }
    if (px_dvm_shift(o->dvm, op_on_loop, o) != 0) {
        free(o);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

static pmix_status_t up_connected(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cbfunc,
                                  void *cbdata)
{
    (void)obj;
    return op_post(proc, 0, cbfunc, cbdata, NULL);
}

static pmix_status_t up_finalized(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cbfunc,
                                  void *cbdata)
{
    (void)obj;
    return op_post(proc, 1, cbfunc, cbdata, NULL);
}

static pmix_status_t up_abort(const pmix_proc_t *proc, void *obj, int status, const char msg[],
                              pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cbfunc,
                              void *cbdata)
{
    (void)obj;
    op_req_t *o = NULL;
    pmix_status_t rc = op_post(proc, 2, cbfunc, cbdata, &o);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    o->status = status;
    o->msg = strdup(msg ? msg : "");
    if (nprocs > 0 && procs != NULL) {
        o->procs = calloc(nprocs, sizeof(*procs));
        if (o->procs != NULL) {
            memcpy(o->procs, procs, nprocs * sizeof(*procs));
            o->nprocs = nprocs;
        }
    }
    if (px_dvm_shift(o->dvm, op_on_loop, o) != 0) {
        free(o->msg);
        free(o->procs);
        free(o);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

/* ---- tools ---- */

typedef struct {
    px_dvm_t *dvm;
    pmix_proc_t proc;
    bool have_id;
    bool have_uid, have_gid; /* PMIX_USERID / PMIX_GRPID: a Unix-socket peer */
    uid_t uid;
    gid_t gid;
    pid_t pid; /* PMIX_PROC_PID (0: not told): a fork/exec agent is recognised by it */
    pmix_tool_connection_cbfunc_t cbfunc;
    void *cbdata;
} tool_req_t;

static void tool_on_loop(void *arg)
{
    tool_req_t *t = arg;
    px_dvm_t *dvm = t->dvm;
    bool foreign = false;
    pmix_status_t rc =
        px_dvm_auth_tool(dvm, t->have_uid, t->uid, t->have_gid ? t->gid : (gid_t)-1, &foreign);
    if (rc != PMIX_SUCCESS) {
        px_dvm_log(dvm, 1,
                   "tool of uid %u gid %u refused: this DVM (uid %u) does not serve that user",
                   (unsigned)t->uid, (unsigned)t->gid, (unsigned)geteuid());
        t->cbfunc(rc, NULL, t->cbdata);
        free(t);
        return;
    }
    if (!foreign && dvm->d0 != NULL &&
        px_nagent_agent_claim(px_dlink_agent(dvm->d0), t->pid, &t->proc)) {
        /* a fork/exec agent of this node's daemon 0 (daemon/nagent_agent.c) */
        px_dvm_log(dvm, 1, "fork/exec agent %s:%u connected", t->proc.nspace, t->proc.rank);
        t->cbfunc(PMIX_SUCCESS, &t->proc, t->cbdata);
        free(t);
        return;
    }
    if (!t->have_id || foreign) {
        /* another user's tool always gets a fresh id of ours: one it chose could be one
         * the library then refuses as taken, and we would remember it wrongly */
        char ns[PMIX_MAX_NSLEN + 32];
        snprintf(ns, sizeof(ns), "%s.tool%u", dvm->nspace, ++dvm->next_tool);
        PMIx_Load_procid(&t->proc, ns, 0);
    }
    rc = dvm->shutting_down ? PMIX_ERR_NO_PERMISSIONS : PMIX_SUCCESS;
    if (rc == PMIX_SUCCESS && foreign && px_dvm_auth_add_foreign(dvm, &t->proc, t->uid) != 0) {
        rc = PMIX_ERR_NOMEM;
    }
    px_dvm_log(dvm, 1, "tool %s:%u%s connected", t->proc.nspace, t->proc.rank,
               foreign ? " (another user's, queries only)" : "");
    t->cbfunc(rc, &t->proc, t->cbdata);
    free(t);
}

static void up_tool(pmix_info_t *info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                    void *cbdata)
{
    tool_req_t *t = calloc(1, sizeof(*t));
    if (t == NULL) {
        cbfunc(PMIX_ERR_NOMEM, NULL, cbdata);
        return;
    }
    t->dvm = served;
    t->cbfunc = cbfunc;
    t->cbdata = cbdata;
    bool have_ns = false, have_rank = false;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_TOOL_NSPACE) && info[i].value.type == PMIX_STRING) {
            PMIX_LOAD_NSPACE(t->proc.nspace, info[i].value.data.string);
            have_ns = true;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_TOOL_RANK)) {
            have_rank = PMIx_Value_get_number(&info[i].value, &t->proc.rank, PMIX_PROC_RANK) ==
                        PMIX_SUCCESS;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_USERID)) {
            uint32_t v = 0;
            t->have_uid = PMIx_Value_get_number(&info[i].value, &v, PMIX_UINT32) == PMIX_SUCCESS;
            t->uid = (uid_t)v;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_GRPID)) {
            uint32_t v = 0;
            t->have_gid = PMIx_Value_get_number(&info[i].value, &v, PMIX_UINT32) == PMIX_SUCCESS;
            t->gid = (gid_t)v;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_PROC_PID)) {
            PMIx_Value_get_number(&info[i].value, &t->pid, PMIX_PID);
        }
    }
    t->have_id = have_ns;
    if (have_ns && !have_rank) {
        t->proc.rank = 0;
    }
    if (px_dvm_shift(t->dvm, tool_on_loop, t) != 0) {
        free(t);
        cbfunc(PMIX_ERR_OUT_OF_RESOURCE, NULL, cbdata);
    }
}

/* A launcher (tool) that asked for jobs went away: its jobs go too, unless PMIX_NOHUP. */
typedef struct {
    px_dvm_t *dvm;
    pmix_proc_t gone;
} lost_t;

static void lost_on_loop(void *arg)
{
    lost_t *l = arg;
    px_dvm_t *dvm = l->dvm;
    for (px_job_t *j = dvm->jobs; j != NULL; j = j->next) {
        if (!j->local && !j->nohup && !px_job_ending(j) &&
            PMIx_Check_procid(&j->requester, &l->gone)) {
            px_dvm_log(dvm, 1, "%s: its launcher %s:%u is gone: terminating it", j->nspace,
                       l->gone.nspace, l->gone.rank);
            px_job_kill(j, PX_WHY_KILLED, false);
        }
    }
    px_job_stdin_forget(dvm, &l->gone); /* its pushes still held: nobody waits for them */
    px_dvm_auth_forget(dvm, &l->gone);
    /* a tool's published data ends with it (its process and its "application") */
    px_pubsub_proc_ended(dvm->pubsub, &l->gone);
    if (px_job_find(dvm, l->gone.nspace) == NULL) {
        px_pubsub_job_ended(dvm->pubsub, l->gone.nspace);
    }
    free(l);
}

static void on_lost(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                    size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    lost_t *l = source ? calloc(1, sizeof(*l)) : NULL;
    if (l != NULL) {
        l->dvm = served; /* the handler carries no context of ours */
        l->gone = *source;
        if (px_dvm_shift(l->dvm, lost_on_loop, l) != 0) {
            free(l);
        }
    }
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

/* The lifecycle events of this process's own jobs (prterun) come back to it, as they
 * come to prun: logged (developer log). Library thread: reads only what create set. */
/* A JOB_END delivered to our own handler, on its way to the loop (job.c waits for it
 * before a job of this process is told it ended). */
typedef struct {
    px_dvm_t *dvm;
    pmix_nspace_t nspace;
} end_seen_t;

static void end_seen_on_loop(void *arg)
{
    end_seen_t *e = arg;
    px_job_end_delivered(e->dvm, e->nspace);
    free(e);
}

static void on_lifecycle(size_t id, pmix_status_t status, const pmix_proc_t *source,
                         pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                         pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)results;
    (void)nresults;
    const char *ns = "?";
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING) {
            ns = info[i].value.data.string;
        }
    }
    if (served != NULL) {
        px_dvm_log(served, 1, "%s: event %s", ns, PMIx_Error_string(status));
        if (status == PMIX_EVENT_JOB_END) {
            end_seen_t *e = malloc(sizeof(*e));
            if (e != NULL) {
                e->dvm = served;
                PMIX_LOAD_NSPACE(e->nspace, ns);
                if (px_dvm_shift(served, end_seen_on_loop, e) != 0) {
                    free(e);
                }
            }
        }
    }
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

/* ---- stdin ---- */

/* A push on its way to the loop. Its completion waits there for room in the targets'
 * queues (job_stdin.c). */
typedef struct {
    px_dvm_t *dvm;
    bool has_source;
    pmix_proc_t source;
    bool local;           /* targets: every job of this process, found on the loop */
    pmix_proc_t *targets; /* owned */
    size_t ntargets;
    const char *data; /* borrowed until cbfunc */
    size_t len;
    bool complete;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
} stdin_req_t;

static void stdin_on_loop(void *arg)
{
    stdin_req_t *s = arg;
    px_dvm_t *dvm = s->dvm;
    if (!px_dvm_auth_may_act(dvm, s->has_source ? &s->source : NULL, "stdin")) {
        s->cbfunc(PMIX_ERR_NO_PERMISSIONS, s->cbdata);
        free(s->targets);
        free(s);
        return;
    }
    pmix_status_t rc = s->local ? PMIX_SUCCESS : px_job_stdin_check(dvm, s->targets, s->ntargets);
    if (rc != PMIX_SUCCESS) {
        /* a process whose stdin its spawn did not keep open (PMIX_STDIN_TGT, PMIX_FWD_STDIN) */
        s->cbfunc(rc, s->cbdata);
        free(s->targets);
        free(s);
        return;
    }
    if (s->local) {
        size_t n = 0;
        for (px_job_t *j = dvm->jobs; j != NULL; j = j->next) {
            n += j->local ? 1 : 0;
        }
        s->targets = calloc(n ? n : 1, sizeof(*s->targets));
        for (px_job_t *j = dvm->jobs; s->targets != NULL && j != NULL; j = j->next) {
            if (j->local) {
                PMIx_Load_procid(&s->targets[s->ntargets++], j->nspace, PMIX_RANK_WILDCARD);
            }
        }
    }
    px_job_stdin_push(dvm, s->has_source ? &s->source : NULL, s->targets, s->ntargets, s->data,
                      s->len, s->complete, s->cbfunc, s->cbdata);
    free(s->targets);
    free(s);
}

/* The bytes stay the library's until cbfunc, which comes once the targets' queues have
 * room: the pusher (prun, one push in flight) reads no more meanwhile. */
static pmix_status_t up_stdin(const pmix_proc_t *source, const pmix_proc_t targets[],
                              size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                              const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    stdin_req_t *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return PMIX_ERR_NOMEM;
    }
    s->dvm = served;
    if (source != NULL) {
        s->has_source = true;
        s->source = *source;
    }
    if (ntargets > 0 && targets != NULL) {
        s->targets = calloc(ntargets, sizeof(*targets));
        if (s->targets == NULL) {
            free(s);
            return PMIX_ERR_NOMEM;
        }
        memcpy(s->targets, targets, ntargets * sizeof(*targets));
        s->ntargets = ntargets;
    }
    if (bo != NULL) {
        s->data = bo->bytes;
        s->len = bo->size;
    }
    for (size_t i = 0; i < ndirs; i++) {
        s->complete |=
            PMIX_CHECK_KEY(&directives[i], PMIX_IOF_COMPLETE) && PMIX_INFO_TRUE(&directives[i]);
    }
    s->cbfunc = cbfunc;
    s->cbdata = cbdata;
    if (px_dvm_shift(s->dvm, stdin_on_loop, s) != 0) {
        free(s->targets);
        free(s);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

/* ---- job control ---- */

typedef struct {
    px_dvm_t *dvm;
    pmix_proc_t requester;
    pmix_proc_t *targets;
    size_t ntargets;
    int signal;
    bool kill, terminate, pause, resume;
    pmix_info_cbfunc_t cbfunc;
    void *cbdata;
    pmix_info_t result[2];
} jctl_req_t;

static void jctl_release(void *arg)
{
    jctl_req_t *c = arg;
    PMIX_INFO_DESTRUCT(&c->result[0]);
    PMIX_INFO_DESTRUCT(&c->result[1]);
    free(c->targets);
    free(c);
}

static void shutdown_after_reply(void *arg)
{
    px_dvm_t *dvm = arg;
    if (!dvm->shutting_down && dvm->terminate != NULL) {
        dvm->terminate(dvm->terminate_arg); /* the command runs its orderly shutdown */
    }
}

/* One target (a namespace with a rank or the wildcard): kill or terminate (the whole
 * job ends as killed; one process gets SIGKILL, or SIGTERM then SIGCONT, and its end is
 * judged as any process's), pause (SIGSTOP) or resume (SIGCONT), or a signal. Every kind
 * goes to the target's daemon as SIGNAL (to the process group). false: no such job or
 * rank. */
static bool jctl_one(jctl_req_t *c, px_job_t *j, pmix_rank_t rank)
{
    if (rank != PMIX_RANK_WILDCARD && rank >= j->nprocs) {
        return false;
    }
    if ((c->kill || c->terminate) && rank == PMIX_RANK_WILDCARD) {
        px_job_kill(j, PX_WHY_KILLED, c->kill);
    } else if (c->kill) {
        px_job_signal(j, rank, SIGKILL);
    } else if (c->terminate) {
        px_job_signal(j, rank, SIGTERM);
        px_job_signal(j, rank, SIGCONT); /* a stopped process takes it then */
    } else if (c->pause) {
        j->sent_stop = true; /* its end needs a SIGCONT after the SIGTERM (px_job_kill) */
        px_job_signal(j, rank, SIGSTOP);
    } else if (c->resume) {
        px_job_signal(j, rank, SIGCONT);
    } else {
        px_job_signal(j, rank, c->signal);
    }
    return true;
}

/* Every target of c (none given by a process of a job: its own job, as the Standard
 * says of a NULL target). false when none names a job (or a rank) of the DVM. */
static bool jctl_targets(px_dvm_t *dvm, jctl_req_t *c)
{
    bool found = false;
    if (c->ntargets == 0) {
        px_job_t *j = px_job_find(dvm, c->requester.nspace);
        return j != NULL && jctl_one(c, j, PMIX_RANK_WILDCARD);
    }
    for (size_t i = 0; i < c->ntargets; i++) {
        px_job_t *j = px_job_find(dvm, c->targets[i].nspace);
        if (j != NULL && jctl_one(c, j, c->targets[i].rank)) {
            found = true;
        }
    }
    return found;
}

static void jctl_on_loop(void *arg)
{
    jctl_req_t *c = arg;
    px_dvm_t *dvm = c->dvm;
    /* no target: the DVM for a tool (pterm), the caller's own job for its processes */
    bool whole_dvm = c->ntargets == 0 && px_job_find(dvm, c->requester.nspace) == NULL;
    uint32_t njobs = 0;
    if (!px_dvm_auth_may_act(dvm, &c->requester, "job control")) {
        c->cbfunc(PMIX_ERR_NO_PERMISSIONS, NULL, 0, c->cbdata, jctl_release, c);
        return;
    }
    for (size_t i = 0; i < c->ntargets; i++) {
        whole_dvm |= PMIx_Check_nspace(c->targets[i].nspace, dvm->nspace);
    }
    pmix_status_t rc = PMIX_SUCCESS;
    if (whole_dvm && (c->terminate || c->kill)) {
        for (px_job_t *j = dvm->jobs; j != NULL; j = j->next) {
            njobs++;
        }
        pid_t me = getpid();
        PMIX_INFO_LOAD(&c->result[0], PMIX_PROC_PID, &me, PMIX_PID);
        PMIX_INFO_LOAD(&c->result[1], "px.dvm.njobs", &njobs, PMIX_UINT32);
        px_dvm_log(dvm, 1, "termination requested by %s:%u", c->requester.nspace,
                   c->requester.rank);
        /* c may be released inside the callback: nothing of it is used after */
        c->cbfunc(PMIX_SUCCESS, c->result, 2, c->cbdata, jctl_release, c);
        px_dvm_shift(dvm, shutdown_after_reply, dvm);
        return;
    }
    if (c->pause && c->resume) {
        rc = PMIX_ERR_BAD_PARAM; /* one or the other */
    } else if (!c->kill && !c->terminate && !c->pause && !c->resume && c->signal <= 0) {
        rc = PMIX_ERR_NOT_SUPPORTED; /* nothing the DVM acts on */
    } else {
        rc = jctl_targets(dvm, c) ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
    }
    c->cbfunc(rc, NULL, 0, c->cbdata, jctl_release, c);
}

/* The job-control directives the DVM acts on: the one table up_jobctl reads with and
 * px_dvm_jobctl_keys lists (the host attributes of PMIx_Job_control, dvm_attrs.c). */
enum { JC_KILL, JC_TERMINATE, JC_SIGNAL, JC_PAUSE, JC_RESUME, JC_COUNT };
static const char *const jctl_keys[JC_COUNT] = {
    [JC_KILL] = PMIX_JOB_CTRL_KILL,     [JC_TERMINATE] = PMIX_JOB_CTRL_TERMINATE,
    [JC_SIGNAL] = PMIX_JOB_CTRL_SIGNAL, [JC_PAUSE] = PMIX_JOB_CTRL_PAUSE,
    [JC_RESUME] = PMIX_JOB_CTRL_RESUME,
};

char **px_dvm_jobctl_keys(void)
{
    char **keys = NULL;
    for (size_t i = 0; i < JC_COUNT; i++) {
        if (PMIx_Argv_append_nosize(&keys, jctl_keys[i]) != PMIX_SUCCESS) {
            PMIx_Argv_free(keys);
            return NULL;
        }
    }
    return keys;
}

/* A request of job control as the loop takes it (NULL + nothing to free on ENOMEM). */
static jctl_req_t *jctl_new(px_dvm_t *dvm, const pmix_proc_t *requestor,
                            const pmix_proc_t targets[], size_t ntargets,
                            const pmix_info_t directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc,
                            void *cbdata)
{
    jctl_req_t *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        return NULL;
    }
    c->dvm = dvm;
    c->requester = *requestor;
    if (ntargets > 0) {
        c->targets = calloc(ntargets, sizeof(*targets));
        if (c->targets == NULL) {
            free(c);
            return NULL;
        }
        memcpy(c->targets, targets, ntargets * sizeof(*targets));
        c->ntargets = ntargets;
    }
    for (size_t i = 0; i < ndirs; i++) {
        size_t k = 0;
        while (k < JC_COUNT && !PMIX_CHECK_KEY(&directives[i], jctl_keys[k])) {
            k++;
        }
        if (k == JC_KILL) {
            c->kill = PMIX_INFO_TRUE(&directives[i]);
        } else if (k == JC_TERMINATE) {
            c->terminate = PMIX_INFO_TRUE(&directives[i]);
        } else if (k == JC_SIGNAL) {
            PMIx_Value_get_number(&directives[i].value, &c->signal, PMIX_INT);
        } else if (k == JC_PAUSE) {
            c->pause = PMIX_INFO_TRUE(&directives[i]);
        } else if (k == JC_RESUME) {
            c->resume = PMIX_INFO_TRUE(&directives[i]);
        }
    }
    c->cbfunc = cbfunc;
    c->cbdata = cbdata;
    return c;
}

static pmix_status_t up_jobctl(const pmix_proc_t *requestor, const pmix_proc_t targets[],
                               size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                               pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    jctl_req_t *c =
        jctl_new(served, requestor, targets, ntargets, directives, ndirs, cbfunc, cbdata);
    if (c == NULL) {
        return PMIX_ERR_NOMEM;
    }
    if (px_dvm_shift(c->dvm, jctl_on_loop, c) != 0) {
        free(c->targets);
        free(c);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

/* A remote daemon's JOBCTL request: the answer goes back to it. */
typedef struct {
    px_dvm_t *dvm;
    unsigned id;
    uint32_t seq;
} jctl_remote_t;

static void jctl_remote_reply(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                              pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    jctl_remote_t *r = cbdata;
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    if (px_dp_status_info_pack(&b, status, info, ninfo) == PMIX_SUCCESS) {
        px_daemons_reply(r->dvm->daemons, r->id, r->seq, PX_DP_JOBCTL, &b);
    }
    px_bfrops_buf_free(&b);
    if (release_fn != NULL) {
        release_fn(release_cbdata);
    }
    free(r);
}

void px_dvm_jobctl(px_dvm_t *dvm, unsigned id, uint32_t seq, const pmix_proc_t *requester,
                   const pmix_proc_t *targets, size_t ntargets, const pmix_info_t *info,
                   size_t ninfo)
{
    jctl_remote_t *r = malloc(sizeof(*r));
    jctl_req_t *c =
        r != NULL ? jctl_new(dvm, requester, targets, ntargets, info, ninfo, jctl_remote_reply, r)
                  : NULL;
    if (c == NULL) {
        free(r);
        pmix_data_buffer_t b;
        px_bfrops_buf_init(&b);
        if (px_dp_status_info_pack(&b, PMIX_ERR_NOMEM, NULL, 0) == PMIX_SUCCESS) {
            px_daemons_reply(dvm->daemons, id, seq, PX_DP_JOBCTL, &b);
        }
        px_bfrops_buf_free(&b);
        return;
    }
    *r = (jctl_remote_t){dvm, id, seq};
    jctl_on_loop(c);
}

/* ---- events beyond a node ---- */

void px_dvm_event(px_dvm_t *dvm, unsigned from, pmix_status_t code, const pmix_proc_t *source,
                  pmix_data_range_t range, const pmix_info_t *info, size_t ninfo)
{
    px_dvm_group_event(dvm, code, info, ninfo); /* a group's decision (dvm_group.c) */
    if (px_jdbg_event(dvm, code, source, info, ninfo)) {
        return; /* a target at its stop point: the job's PMIX_READY_FOR_DEBUG tells it */
    }
    if (from != 0) {
        /* not this server's own source: delivered here, not sent up again */
        PMIx_Notify_event(code, source, range, (pmix_info_t *)info, ninfo, NULL, NULL);
    }
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    size_t n = px_daemons_count(dvm->daemons);
    if (px_dp_event_pack(&b, code, source, range, info, ninfo) == PMIX_SUCCESS) {
        for (size_t id = 1; id < n; id++) {
            if (id != from && px_daemons_up(dvm->daemons, (unsigned)id)) {
                px_daemons_send(dvm->daemons, (unsigned)id, PX_DP_EVENT, &b);
            }
        }
    }
    px_bfrops_buf_free(&b);
}

typedef struct {
    px_dvm_t *dvm;
    pmix_status_t code;
    pmix_proc_t source;
    pmix_data_range_t range;
    pmix_info_t *info; /* owned copy */
    size_t ninfo;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
} event_req_t;

static void event_on_loop(void *arg)
{
    event_req_t *e = arg;
    px_dvm_event(e->dvm, 0, e->code, &e->source, e->range, e->info, e->ninfo);
    if (e->cbfunc != NULL) {
        e->cbfunc(PMIX_SUCCESS, e->cbdata);
    }
    PMIx_Info_free(e->info, e->ninfo);
    free(e);
}

/* This server's event whose range reaches beyond this node: to the other daemons. */
static pmix_status_t up_notify(pmix_status_t code, const pmix_proc_t *source,
                               pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    event_req_t *e = calloc(1, sizeof(*e));
    if (e == NULL || (ninfo > 0 && (e->info = PMIx_Info_create(ninfo)) == NULL)) {
        free(e);
        return PMIX_ERR_NOMEM;
    }
    *e = (event_req_t){.dvm = served,
                       .code = code,
                       .source = *source,
                       .range = range,
                       .info = e->info,
                       .ninfo = ninfo,
                       .cbfunc = cbfunc,
                       .cbdata = cbdata};
    for (size_t i = 0; i < ninfo; i++) {
        PMIx_Info_xfer(&e->info[i], &info[i]);
    }
    if (px_dvm_shift(e->dvm, event_on_loop, e) != 0) {
        PMIx_Info_free(e->info, e->ninfo);
        free(e);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

/* ---- fences and direct modex of this node's processes (fence.c) ---- */

typedef struct {
    px_dvm_t *dvm;
    pmix_proc_t *procs; /* owned */
    size_t nprocs;
    bool collect;
    char *data; /* owned: the library gave it to us (the Server chapter) */
    size_t ndata;
    pmix_modex_cbfunc_t cbfunc;
    void *cbdata;
} fence_req_t;

static void fence_on_loop(void *arg)
{
    fence_req_t *f = arg;
    pmix_status_t rc = px_fence_contribute(f->dvm, 0, f->procs, f->nprocs, f->collect, f->data,
                                           f->ndata, f->cbfunc, f->cbdata);
    if (rc != PMIX_SUCCESS) {
        f->cbfunc(rc, NULL, 0, f->cbdata, NULL, NULL);
    }
    free(f->procs);
    free(f->data);
    free(f);
}

static pmix_status_t up_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                              void *cbdata)
{
    fence_req_t *f = calloc(1, sizeof(*f));
    if (f == NULL || (f->procs = calloc(nprocs ? nprocs : 1, sizeof(*procs))) == NULL) {
        free(f);
        return PMIX_ERR_NOMEM;
    }
    f->dvm = served;
    memcpy(f->procs, procs, nprocs * sizeof(*procs));
    f->nprocs = nprocs;
    for (size_t i = 0; i < ninfo; i++) {
        f->collect |= PMIX_CHECK_KEY(&info[i], PMIX_COLLECT_DATA) && PMIX_INFO_TRUE(&info[i]);
    }
    f->data = data;
    f->ndata = ndata;
    f->cbfunc = cbfunc;
    f->cbdata = cbdata;
    if (px_dvm_shift(f->dvm, fence_on_loop, f) != 0) {
        free(f->procs);
        free(f);
        return PMIX_ERR_OUT_OF_RESOURCE; /* the data stays the library's */
    }
    return PMIX_SUCCESS;
}

typedef struct {
    px_dvm_t *dvm;
    pmix_proc_t target;
    pmix_info_t *info; /* owned copy */
    size_t ninfo;
    pmix_modex_cbfunc_t cbfunc;
    void *cbdata;
} dmodex_req_t;

static void dmodex_on_loop(void *arg)
{
    dmodex_req_t *d = arg;
    pmix_status_t rc =
        px_dmodex_route(d->dvm, 0, 0, &d->target, d->info, d->ninfo, d->cbfunc, d->cbdata);
    if (rc != PMIX_SUCCESS) {
        d->cbfunc(rc, NULL, 0, d->cbdata, NULL, NULL);
    }
    PMIx_Info_free(d->info, d->ninfo);
    free(d);
}

static pmix_status_t up_dmodex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                               pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    dmodex_req_t *d = calloc(1, sizeof(*d));
    if (d == NULL || (ninfo > 0 && (d->info = PMIx_Info_create(ninfo)) == NULL)) {
        free(d);
        return PMIX_ERR_NOMEM;
    }
    d->dvm = served;
    d->target = *proc;
    for (size_t i = 0; i < ninfo; i++) {
        PMIx_Info_xfer(&d->info[i], &info[i]);
    }
    d->ninfo = ninfo;
    d->cbfunc = cbfunc;
    d->cbdata = cbdata;
    if (px_dvm_shift(d->dvm, dmodex_on_loop, d) != 0) {
        PMIx_Info_free(d->info, d->ninfo);
        free(d);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

/* ---- queries (dvm_query.c) ---- */

pmix_status_t px_dvm_query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                           pmix_info_cbfunc_t cbfunc, void *cbdata);

/* ---- init / shutdown ---- */

static pmix_server_module_t module = {
    .client_connected = up_connected,
    .client_finalized = up_finalized,
    .abort = up_abort,
    .fence_nb = up_fence,
    .direct_modex = up_dmodex,
    .notify_event = up_notify,
    .spawn = up_spawn,
    .query = px_dvm_query,
    .tool_connected = up_tool,
    .job_control = up_jobctl,
    .push_stdin = up_stdin,
    .iof_pull = px_dvm_iof_pull, /* dvm_iof.c */
    .publish = px_dvm_publish,
    .lookup = px_dvm_lookup,
    .unpublish = px_dvm_unpublish,
    .group = px_dvm_group,
    .connect = px_dvm_connect,
    .disconnect = px_dvm_disconnect,
};

/* Without a remote shell, every host given must be this node. */
/* The DVM's nodes, one per daemon (id order): name and topology from the daemon table;
 * slots as --host/--hostfile gave them for that host (an entry without a count is one
 * slot, entries of the same host add up), else the node's cores. */
static int make_nodes(px_dvm_t *dvm)
{
    const px_dvm_opts_t *o = &dvm->opts;
    size_t n = px_daemons_count(dvm->daemons);
    dvm->nodes = calloc(n ? n : 1, sizeof(*dvm->nodes));
    if (dvm->nodes == NULL) {
        return -1;
    }
    for (size_t id = 0; id < n; id++) {
        px_map_node_t *node = &dvm->nodes[id];
        node->name = (char *)px_daemons_node(dvm->daemons, (unsigned)id);
        node->topo = px_daemons_topo(dvm->daemons, (unsigned)id);
        node->slots_given = o->nhosts > 0;
        const char *host = px_daemons_host(dvm->daemons, (unsigned)id);
        for (size_t i = 0; i < o->nhosts; i++) {
            const char *h = o->hosts[i].name;
            bool match = id == 0 ? px_daemons_is_here(h, dvm->hostname) : strcmp(h, host) == 0;
            node->slots += match ? (o->hosts[i].slots > 0 ? o->hosts[i].slots : 1) : 0;
        }
        if (!node->slots_given) {
            int cores = node->topo ? hwloc_get_nbobjs_by_type(node->topo, HWLOC_OBJ_CORE) : 0;
            node->slots = cores > 0 ? cores : 1;
        }
        /* the hostfile's max_slots (0: none); this node's names add up (px_pool_max_slots) */
        if (id == 0) {
            node->max_slots = px_pool_max_slots(o->hosts, o->nhosts, dvm->hostname);
        } else {
            for (size_t i = 0; i < o->nhosts; i++) {
                if (strcmp(o->hosts[i].name, host) == 0 && o->hosts[i].max_slots > 0) {
                    node->max_slots = o->hosts[i].max_slots;
                }
            }
        }
    }
    dvm->nnodes = dvm->nnodes_used = n;
    return 0;
}

/* Daemon 0's link (this node's agent) failed: cannot happen short of memory. */
static void d0_failed(int err, uint32_t tag, pmix_status_t rc, void *arg)
{
    px_dvm_log(arg, 0, "daemon 0's link failed (tag %u): %s %s", tag, PMIx_Error_string(rc),
               err ? strerror(err) : "");
}

static void on_daemon_msg(unsigned id, uint32_t tag, uint32_t seq, pmix_data_buffer_t *payload,
                          void *arg)
{
    px_job_daemon_msg(arg, id, tag, seq, payload);
}

static void on_daemon_lost(unsigned id, void *arg)
{
    px_route_daemon_lost(arg, id); /* (a tree being made fails) */
    px_job_daemon_lost(arg, id);
}

static void on_daemon_joined(unsigned id, bool ok, void *arg)
{
    px_job_hosts_joined(arg, id, ok); /* prun --add-host (job_hosts.c) */
}

/* The daemons' start-up ended: the DVM is up (its nodes known) or failed. */
static void dvm_started(px_dvm_t *dvm, bool ok)
{
    if (ok && make_nodes(dvm) != 0) {
        px_show_help("help-prte.txt", "server-init", dvm->prog, strerror(ENOMEM));
        ok = false;
    }
    dvm->up = ok;
    dvm->start_failed = !ok;
    if (ok) {
        px_dvm_log(dvm, 1, "DVM %s up at %s (%zu nodes, %d slots here%s)", dvm->nspace,
                   dvm->uri ? dvm->uri : "?", dvm->nnodes, dvm->nodes[0].slots,
                   dvm->nodes[0].slots_given ? ", given" : " from hwloc");
    }
    px_job_dvm_started(dvm, ok); /* the jobs asked for meanwhile */
    if (dvm->ready != NULL) {
        dvm->ready(ok, dvm->ready_arg);
    }
}

/* Every daemon is up (or one failed): with them all, the routing tree first (route.c). */
static void on_daemons_started(bool ok, void *arg)
{
    px_dvm_t *dvm = arg;
    if (!ok) {
        dvm_started(dvm, false);
        return;
    }
    px_route_start(dvm, dvm_started);
}

static char *read_uri(const px_dvm_t *dvm)
{
    const char *tmp = getenv("TMPDIR");
    char *path = NULL;
    if (asprintf(&path, "%s/pmix.%s.tool.%d", tmp && *tmp ? tmp : "/tmp", dvm->hostname,
                 (int)getpid()) < 0) {
        return NULL;
    }
    FILE *f = fopen(path, "r");
    free(path);
    if (f == NULL) {
        return NULL;
    }
    char line[4096];
    char *uri = NULL;
    if (fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        uri = strdup(line);
    }
    fclose(f);
    return uri;
}

px_dvm_t *px_dvm_create(struct event_base *base, const px_dvm_opts_t *o)
{
    if (served != NULL) { /* the library runs one server per process */
        errno = EBUSY;
        px_show_help("help-prte.txt", "server-init", o->prog, strerror(errno));
        return NULL;
    }
    px_dvm_t *dvm = calloc(1, sizeof(*dvm));
    if (dvm == NULL) {
        px_show_help("help-prte.txt", "server-init", o->prog, strerror(errno));
        return NULL;
    }
    dvm->base = base;
    dvm->verbose = o->verbose;
    dvm->terminate = o->terminate;
    dvm->terminate_arg = o->terminate_arg;
    dvm->ready = o->ready;
    dvm->ready_arg = o->ready_arg;
    dvm->opts = *o; /* its hosts are the caller's, borrowed until the DVM is up */
    dvm->prog = strdup(o->prog ? o->prog : "prte");
    dvm->progress = px_progress_create(base);
    if (dvm->progress == NULL || dvm->prog == NULL) {
        px_show_help("help-prte.txt", "server-init", o->prog, strerror(errno));
        goto error;
    }
    char host[HOST_NAME_MAX + 1] = "localhost";
    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = '\0';
    dvm->hostname = strdup(host);
    /* the hosts are checked by starting their daemons: an unknown one fails its start,
     * two names of one node are found from the daemons' hellos (launcher/daemons.c) */
    if (dvm->hostname == NULL) {
        goto error;
    }
    /* mapping and binding use packages, cores and hardware threads: caches and I/O
     * devices are not discovered, and hwloc's I/O plugins (GL, OpenCL, CUDA, PCI...,
     * dlopen'ed at its first init) are not loaded, unless the user points
     * HWLOC_PLUGINS_PATH somewhere; the variable is not left for the children */
    bool plugins_off = getenv("HWLOC_PLUGINS_PATH") == NULL &&
                       setenv("HWLOC_PLUGINS_PATH", "/nonexistent-px-no-plugins", 0) == 0;
    int topo_rc = hwloc_topology_init(&dvm->topo);
    if (plugins_off) {
        unsetenv("HWLOC_PLUGINS_PATH");
    }
    if (topo_rc != 0 ||
        hwloc_topology_set_cache_types_filter(dvm->topo, HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
        hwloc_topology_set_icache_types_filter(dvm->topo, HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
        hwloc_topology_set_io_types_filter(dvm->topo, HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
        hwloc_topology_load(dvm->topo) != 0) {
        px_show_help("help-prte.txt", "no-topology", o->prog, strerror(errno));
        goto error;
    }
    dvm->topo_loaded = true;

    if (px_dvm_auth_init(dvm, o) != 0) {
        px_show_help("help-prte.txt", "server-init", o->prog, strerror(errno));
        goto error;
    }
    if (o->nspace != NULL && o->nspace[0] != '\0' && strlen(o->nspace) < sizeof(dvm->nspace)) {
        snprintf(dvm->nspace, sizeof(dvm->nspace), "%s", o->nspace);
    } else {
        snprintf(dvm->nspace, sizeof(dvm->nspace), "prte-%s-%d", dvm->hostname, (int)getpid());
    }
    pmix_rank_t zero = 0;
    bool yes = true;
    pmix_info_t info[6];
    size_t n = 0;
    /* the server library takes our topology (its own copy) and gives it to the clients,
     * which then do not each discover the node (docs/ARCHITECTURE.md, "Cpusets") */
    pmix_topology_t topo = {.source = "hwloc", .topology = dvm->topo};
    PMIX_INFO_LOAD(&info[n++], PMIX_TOPOLOGY2, &topo, PMIX_TOPO);
    PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_NSPACE, dvm->nspace, PMIX_STRING);
    PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_RANK, &zero, PMIX_PROC_RANK);
    if (o->system_server) {
        PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_SYSTEM_SUPPORT, &yes, PMIX_BOOL);
    }
    if (o->rndz_file != NULL) {
        PMIX_INFO_LOAD(&info[n++], PMIX_LAUNCHER_RENDEZVOUS_FILE, o->rndz_file, PMIX_STRING);
    }
    served = dvm; /* upcalls may come as soon as the server is up */
    pmix_status_t rc = PMIx_server_init(&module, info, n);
    for (size_t i = 0; i < n; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    if (rc != PMIX_SUCCESS) {
        px_show_help("help-prte.txt", "server-init", o->prog, PMIx_Error_string(rc));
        goto error;
    }
    dvm->server_up = true;
    rc = px_dvm_attrs_register(); /* the host level of attribute support (dvm_attrs.c) */
    if (rc != PMIX_SUCCESS) {
        px_show_help("help-prte.txt", "server-init", o->prog, PMIx_Error_string(rc));
        goto error;
    }
    dvm->uri = read_uri(dvm);
    /* daemon 0: this node's agent, at the other end of a socket pair from the daemon
     * table's entry 0 (the same messages as every prted, docs/PROTOCOL.md) */
    int sv[2] = {-1, -1};
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        px_show_help("help-prte.txt", "server-init", o->prog, strerror(errno));
        goto error;
    }
    px_nagent_opts_t ao = {.base = base, .topo = dvm->topo, .self = 0, .node = dvm->hostname};
    px_dlink_cbs_t lcbs = {.failed = d0_failed, .arg = dvm};
    dvm->d0 = px_dlink_create(dvm->progress, sv[1], &ao, &lcbs);
    if (dvm->d0 != NULL) {
        /* what daemon 0's output may have on its way to us, beyond the agent's own bound
         * per process: a small socket buffer (px_peer asks for a large one), so output
         * flow control holds the controller's memory as it did without the link */
        int sz = 256 * 1024;
        (void)setsockopt(px_peer_fd(px_dlink_peer(dvm->d0)), SOL_SOCKET, SO_SNDBUF, &sz,
                         sizeof(sz));
    }
    dvm->pubsub = px_pubsub_create(base);
    if (dvm->d0 == NULL || dvm->pubsub == NULL) {
        close(sv[0]);
        px_show_help("help-prte.txt", "server-init", o->prog, strerror(errno));
        goto error;
    }
    pmix_status_t code = PMIX_ERR_LOST_CONNECTION;
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_lost, NULL, NULL);
    if (rc >= 0) {
        dvm->evhdlr = (size_t)rc;
    }
    pmix_status_t life[] = {PMIX_EVENT_JOB_START, PMIX_LAUNCH_COMPLETE, PMIX_EVENT_JOB_END};
    rc = PMIx_Register_event_handler(life, 3, NULL, 0, on_lifecycle, NULL, NULL);
    if (rc >= 0) {
        dvm->evhdlr_life = (size_t)rc;
    }
    /* daemons: one prted per other host, up before the DVM says it is ready */
    px_daemons_opts_t dopts = {.base = base,
                               .prog = o->prog,
                               .node = dvm->hostname,
                               .nspace = dvm->nspace,
                               .topo = dvm->topo,
                               .hosts = o->hosts,
                               .nhosts = o->nhosts,
                               .agent = o->ssh_agent,
                               .hb_interval_ms = o->hb_interval_ms,
                               .hb_timeout_ms = o->hb_timeout_ms,
                               .debug = o->debug_daemons,
                               .prefix = o->prted_prefix,
                               .noprefix = o->noprefix,
                               .tree_radix = o->tree_radix,
                               .srun = o->srun,
                               .self_fd = sv[0],
                               .msg = on_daemon_msg,
                               .lost = on_daemon_lost,
                               .started = on_daemons_started,
                               .joined = on_daemon_joined,
                               .arg = dvm,
                               .verbose = dvm->verbose};
    if ((dvm->daemons = px_daemons_start(&dopts)) == NULL) {
        goto error;
    }
    return dvm;

error:
    px_dvm_destroy(dvm);
    return NULL;
}

const char *px_dvm_uri(const px_dvm_t *dvm)
{
    return dvm->uri;
}

const char *px_dvm_nspace(const px_dvm_t *dvm)
{
    return dvm->nspace;
}

static void shutdown_done_cb(void *arg)
{
    px_dvm_t *dvm = arg;
    void (*done)(void *) = dvm->shutdown_done;
    dvm->shutdown_done = NULL;
    if (done != NULL) {
        done(dvm->shutdown_arg);
    }
}

static void daemons_stopped(void *arg)
{
    px_dvm_maybe_shutdown_done(arg);
}

/* Shutting down: once no job is left (their processes' ends came from their daemons),
 * the daemons are told to exit; once they are gone, the shutdown is done. */
void px_dvm_maybe_shutdown_done(px_dvm_t *dvm)
{
    if (!dvm->shutting_down || dvm->jobs != NULL) {
        return;
    }
    if (!dvm->daemons_stopping) {
        dvm->daemons_stopping = true;
        px_daemons_stop(dvm->daemons, daemons_stopped, dvm); /* done comes later */
        return;
    }
    if (dvm->shutdown_done != NULL && px_daemons_stopped(dvm->daemons)) {
        px_dvm_shift(dvm, shutdown_done_cb, dvm);
    }
}

void px_dvm_shutdown(px_dvm_t *dvm, void (*done)(void *arg), void *arg)
{
    if (dvm->shutting_down) {
        return;
    }
    dvm->shutting_down = true;
    dvm->shutdown_done = done;
    dvm->shutdown_arg = arg;
    /* the jobs waiting for the daemons (of the start, or added for them) end */
    px_job_dvm_started(dvm, false);
    for (px_job_t *j = dvm->jobs; j != NULL; j = j->next) {
        if (!px_job_ending(j)) {
            px_job_kill(j, PX_WHY_KILLED, false);
        }
    }
    px_dvm_maybe_shutdown_done(dvm);
}

void px_dvm_destroy(px_dvm_t *dvm)
{
    if (dvm == NULL) {
        return;
    }
    if (dvm->server_up) {
        if (dvm->evhdlr != 0) {
            PMIx_Deregister_event_handler(dvm->evhdlr, NULL, NULL);
        }
        if (dvm->evhdlr_life != 0) {
            PMIx_Deregister_event_handler(dvm->evhdlr_life, NULL, NULL);
        }
        px_job_stdin_release_all(dvm); /* before the server goes (it flushes their answers) */
        px_dvm_group_fini(dvm);
    }
    px_pubsub_destroy(dvm->pubsub);   /* the session ends: waiting lookups are answered */
    px_dlink_destroy(dvm->d0);        /* this node's processes are killed */
    px_daemons_destroy(dvm->daemons); /* daemons: whatever did not exit is killed */
    px_fence_fini(dvm);               /* this node's fences fail before the server goes */
    px_job_hosts_fini(dvm);
    free(dvm->nodes);
    if (dvm->server_up) {
        PMIx_server_finalize();
    }
    served = NULL;
    px_dvm_auth_fini(dvm);
    px_dvm_remote_fini(dvm); /* the daemons' repeated messages, counted */
    px_route_fini(dvm);
    px_out_fini(dvm);
    px_progress_destroy(dvm->progress); /* shifts that never ran are dropped */
    px_job_local_ends_free(dvm);        /* local job ends whose shift was dropped */
    if (dvm->topo_loaded) {
        hwloc_topology_destroy(dvm->topo);
    }
    free(dvm->uri);
    free(dvm->hostname);
    free(dvm->prog);
    free(dvm);
}

/* ---- jobs of this process (prterun) ---- */

int px_dvm_spawn_local(px_dvm_t *dvm, const pmix_app_t *apps, size_t napps, const pmix_info_t *info,
                       size_t ninfo, const px_dvm_local_t *cb)
{
    pmix_status_t rc = px_job_spawn(dvm, NULL, cb, info, ninfo, apps, napps, NULL, NULL);
    return rc == PMIX_SUCCESS ? 0 : -1;
}

void px_dvm_signal_local(px_dvm_t *dvm, int sig, bool kill)
{
    for (px_job_t *j = dvm->jobs; j != NULL; j = j->next) {
        if (!j->local) {
            continue;
        }
        if (kill) {
            px_job_kill(j, PX_WHY_KILLED, true);
        } else {
            px_job_signal(j, PMIX_RANK_WILDCARD, sig);
        }
    }
}

int px_dvm_stdin_local(px_dvm_t *dvm, const char *data, size_t len, pmix_op_cbfunc_t done,
                       void *cbdata)
{
    stdin_req_t *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return -1;
    }
    s->dvm = dvm;
    s->local = true;
    s->data = data;
    s->len = len;
    s->complete = len == 0;
    s->cbfunc = done;
    s->cbdata = cbdata;
    if (px_dvm_shift(s->dvm, stdin_on_loop, s) != 0) {
        free(s);
        return -1;
    }
    return 0;
}
