/* daemon: the node agent's state (nagent.c), shared with its registration and binding
 * code (nagent_reg.c). Daemon's loop only.
 */
#ifndef PX_NAGENT_INT_H
#define PX_NAGENT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/px_nagent.h"

typedef struct na_job na_job_t;
typedef struct na_agents na_agents_t; /* nagent_agent.c: a job's debugger agents */

/* How many cleaned-up jobs an agent remembers (px_nagent_launch_due). */
#define PX_NA_CLEANED 256

typedef struct {
    na_job_t *job;    /* borrowed: the owner */
    pmix_rank_t rank; /* in the job */
    bool local;       /* on this node */
    bool registered;  /* PMIx_server_register_client done */
    char *cpuset;     /* owned: "hwloc:<list>" it is bound to, NULL = unbound (local only) */
    uint16_t node_rank;
    uint32_t daemon;   /* the daemon of its node */
    px_child_t *child; /* borrowed from odls until exited(); NULL = not (or no more) here */
    size_t inflight;   /* output bytes handed to the link and not written yet */
    bool paused_ctl;   /* the controller asked to stop reading its output (IOF_FLOW) */
    bool paused_link;  /* too much of its output is not on its way yet */
} na_proc_t;

struct na_job {
    na_job_t *next;
    px_nagent_t *agent;
    pmix_nspace_t nspace;
    na_proc_t *procs; /* owned (the job's size), indexed by rank */
    size_t nprocs;
    size_t nalive;               /* children not through exited() yet */
    px_dp_pstate_one_t *pending; /* owned, npending: reports of this loop turn */
    size_t npending, cap;
    struct event *flush_ev; /* owned: sends pending on the next loop turn */
    bool cleaned;           /* JOB_CLEANUP came: free once nalive is 0 */
    bool flushing;          /* inside flush(): it frees the job if need be */
    bool registered;        /* its namespace is registered with the server */
    char *nsdir;            /* owned: PMIX_NSDIR, removed with its content at the end */
    na_agents_t *agents;    /* owned: its fork/exec or exec agent (nagent_agent.c); NULL */
};

struct px_nagent {
    px_nagent_opts_t o;
    char *node;      /* owned: o.node */
    px_odls_t *odls; /* owned */
    px_nagent_cbs_t cbs;
    na_job_t *jobs;                       /* owned list */
    struct na_stdin_wait *stdin_waits;    /* owned: STDIN requests waiting for room */
    unsigned ndirs;                       /* job directories made so far (their names) */
    pmix_nspace_t cleaned[PX_NA_CLEANED]; /* the jobs cleaned last (a ring) */
    size_t ncleaned;                      /* cleaned so far */
};

/* nagent.c: queue a process-state report (sent in this loop turn's PSTATE batch) */
void px_na_report(na_job_t *j, pmix_rank_t rank, uint8_t state, pid_t pid, int32_t status,
                  const char *stage);

/* nagent_agent.c: PMIX_FORKEXEC_AGENT / PMIX_EXEC_AGENT of a job */
/* Read the job's agent from its directives (none: j->agents stays NULL). 0 / -1 ENOMEM. */
int px_na_agents_setup(px_nagent_t *a, na_job_t *j, const px_dp_launch_t *l);
/* Rank r (local) is about to be forked as spec says: start its agent instead (spec's
 * argv, and env for a fork/exec agent, replaced by arrays returned in *argv_owned,
 * *env_owned, which the caller frees after px_odls_start); a fork/exec agent's
 * description is kept for px_na_agents_register. 0 / -1 ENOMEM. */
int px_na_agent_spec(na_job_t *j, pmix_rank_t r, px_child_spec_t *spec, char ***argv_owned,
                     char ***env_owned);
/* Its agent was forked as pid: the connect deadline starts. */
void px_na_agent_forked(na_job_t *j, pmix_rank_t r, pid_t pid);
/* odls said p started (err: it could not): true when that is not to be reported now (a
 * fork/exec agent that has not connected back yet, or has failed already). */
bool px_na_agent_started(na_proc_t *p, int err);
/* p's agent (pid) was reaped: a fork/exec agent that never connected is reported failed
 * (stage agent-exited, status its wait status); what it started is killed. Before the
 * EXITED report. */
void px_na_agent_exited(na_proc_t *p, pid_t pid, int wstatus);
/* After the local ranks' forks (on the same loop turn, so before any agent's connection
 * is approved): register the agents' namespace with each local agent's description. */
pmix_status_t px_na_agents_register(px_nagent_t *a, na_job_t *j);
void px_na_agents_free(na_job_t *j);

/* nagent_reg.c */
/* Compute the bindings of this node's PX_DP_PROC_BIND_LATER processes of l from the
 * agent's topology (what other jobs' live processes hold taken last); each goes into
 * j->procs[r].cpuset. 0, or -1 (ENOMEM). */
int px_na_bind_later(px_nagent_t *a, na_job_t *j, const px_dp_launch_t *l);
/* Register the namespace (every daemon does, with its node's facts) and this node's
 * clients; the job's directory is made. PMIX_SUCCESS or the server's error. */
pmix_status_t px_na_register(px_nagent_t *a, na_job_t *j, const px_dp_launch_t *l);
/* Deregister what px_na_register registered, remove the job's directory. */
void px_na_deregister(na_job_t *j);
/* Remove the job directories ("prte.<pid>.<n>" in $TMPDIR) of daemons whose pid is gone
 * (killed without cleaning up): what a new agent on the node does first. */
void px_na_sweep_stale_dirs(void);

#endif /* PX_NAGENT_INT_H */
