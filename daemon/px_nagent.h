/* daemon: the node agent — what a daemon does with the controller's job messages
 * (docs/PROTOCOL.md): LAUNCH registers the job's namespace with this node's facts and
 * its local clients with the PMIx server the process runs, then starts this node's part
 * of the job through odls; SIGNAL signals its processes; STDIN feeds a process's stdin
 * (answered once its queue has room); IOF_FLOW pauses or resumes reading a process's
 * output; JOB_CLEANUP deregisters and forgets the job. Process states go back as PSTATE
 * payloads (batched per job per loop turn), output as IOF payloads, as it is read. The
 * controller's own node (daemon 0, in prte) and every prted run this code on their
 * loop. Daemon's loop only.
 */
#ifndef PX_NAGENT_H
#define PX_NAGENT_H

#include <stdbool.h>
#include <stdint.h>

#include <event2/event.h>
#include <hwloc.h>
#include <pmix_common.h>

#include "daemon/px_dproto.h"
#include "daemon/px_odls.h"

typedef struct px_nagent px_nagent_t;

typedef struct {
    /* A message for the controller (PSTATE, IOF): the payload is borrowed for the call.
     * Never called from inside px_nagent_handle. */
    void (*send)(uint32_t tag, pmix_data_buffer_t *payload, void *arg);
    /* The answer to request seq (STDIN); may be called from inside px_nagent_handle. */
    void (*reply)(uint32_t seq, uint32_t tag, pmix_data_buffer_t *payload, void *arg);
    /* Optional: a message whose payload is head's bytes then len bytes at data, which
     * stay untouched until done(done_arg) runs, exactly once: when they were written, or
     * dropped (connection lost). 0, or -1 (then done never runs). Output goes this way,
     * so a process whose bytes are not on their way yet stops being read (flow control
     * towards the controller); without it, output is sent with send. */
    int (*send_bulk)(uint32_t tag, const pmix_data_buffer_t *head, const void *data, size_t len,
                     void (*done)(void *), void *done_arg, void *arg);
    void *arg;
} px_nagent_cbs_t;

typedef struct {
    struct event_base *base; /* borrowed */
    hwloc_topology_t topo;   /* borrowed: what children bind with (deferred bindings too) */
    uint32_t self;           /* this daemon's id (PMIX_SERVER_RANK, the node's PMIX_NODEID) */
    const char *node;        /* this node's name as the LAUNCH messages name it (copied) */
} px_nagent_opts_t;

/* The agent; it owns the node's odls (and so the SIGCHLD handler). The PMIx server of
 * the process must be up: the agent registers namespaces and clients with it. NULL +
 * errno on failure. */
px_nagent_t *px_nagent_create(const px_nagent_opts_t *o, const px_nagent_cbs_t *cbs);
/* SIGKILLs and reaps every process (px_odls_destroy), deregisters the jobs, drops unsent
 * reports and unanswered requests. NULL ok. */
void px_nagent_destroy(px_nagent_t *a);

/* Act on a decoded controller message (m stays the caller's); seq is the request's
 * sequence (STDIN), else 0. PMIX_SUCCESS, or PMIX_ERR_NOT_SUPPORTED for a tag the agent
 * does not handle, PMIX_EXISTS for a LAUNCH of a job it already has, PMIX_ERR_NOMEM.
 * A LAUNCH whose registration fails reports each local process as failed to start
 * (stage "setup"); a process that cannot be forked is reported likewise (stage "fork"),
 * one whose cpuset does not parse at stage "bind" (EINVAL). */
pmix_status_t px_nagent_handle(px_nagent_t *a, const px_dp_ctl_msg_t *m, uint32_t seq);

/* Children of every job not yet through exited(). */
size_t px_nagent_count(const px_nagent_t *a);

/* Debugger agents (nagent_agent.c). The key under which a fork/exec agent finds the
 * process it starts, in its own process realm (PMIx_Get of its own name): a
 * PMIX_DATA_ARRAY of one PMIX_APP (cmd, argv, env, cwd). */
#define PX_NA_FEA_APP "px.fea.app"
/* The fork/exec agents of job NS form namespace NS PX_NA_AGENTS_SUFFIX: rank k is the
 * agent of the job's k-th process (in rank order) that runs under a fork/exec agent (all
 * of them, the same rank, when the whole job does). The controller numbers them alike. */
#define PX_NA_AGENTS_SUFFIX ".fea"
/* A PSTATE "failed to start" report of stage "agent-exited" (a fork/exec agent that ended
 * before connecting back) carries 0x10000 | its wait status: never 0, which would read as
 * a success. */
#define PX_NA_AGENT_EXITED_BIT 0x10000
/* A tool of this node's server asks to connect from pid: when pid is a fork/exec agent
 * of a local rank still to connect, *proc is its identity ("<job>.fea", its rank), its
 * rank counts as started, and true is returned (approve it); else false. */
bool px_nagent_agent_claim(px_nagent_t *a, pid_t pid, pmix_proc_t *proc);
/* Whether nspace's LAUNCH is still to come: a job the agent does not have and did not
 * clean up lately. A message about it that came another way than the LAUNCH (the tree)
 * waits for it. */
bool px_nagent_launch_due(px_nagent_t *a, const char *nspace);
/* Mark in mark[0..nd) the daemons whose nodes run any of procs (a wildcard: every rank of
 * its job), from the jobs' LAUNCH maps; false when a job or rank is unknown here. */
bool px_nagent_where(px_nagent_t *a, const pmix_proc_t *procs, size_t n, bool *mark, size_t nd);

#endif /* PX_NAGENT_H */
