/* daemon: the node agent — what a daemon does with the controller's job messages
 * (docs/PROTOCOL.md): LAUNCH starts this node's part of a job through odls, SIGNAL
 * signals its processes, JOB_CLEANUP forgets the job; process states go back as PSTATE
 * payloads, batched per job per loop turn, and output as it is read. The controller's
 * own node (daemon 0) runs this code in-process on the controller's loop; prted is to
 * run the same code (not yet: it has no embedded PMIx server). Daemon's loop only.
 *
 * Partial (issue 14 step 2): the namespace and its clients are still registered with
 * the PMIx server by the controller (launcher/job.c) before it delivers LAUNCH, not by
 * this agent from the per-node facts; bindings deferred to the daemon
 * (bind_deferred) are not computed here yet (such processes run unbound).
 */
#ifndef PX_NAGENT_H
#define PX_NAGENT_H

#include <stdint.h>

#include <event2/event.h>
#include <hwloc.h>
#include <pmix_common.h>

#include "daemon/px_dproto.h"
#include "daemon/px_odls.h"

typedef struct px_nagent px_nagent_t;

typedef struct {
    /* A message for the controller (today PX_DP_PSTATE): the payload is borrowed for the
     * call. Never called from inside px_nagent_handle. */
    void (*send)(uint32_t tag, pmix_data_buffer_t *payload, void *arg);
    /* Output of a local process, as read (PX_CHILD_STDOUT / PX_CHILD_STDERR). */
    void (*output)(const pmix_proc_t *proc, int channel, const char *data, size_t len, void *arg);
    void *arg;
} px_nagent_cbs_t;

/* The agent of daemon `self` on base; topo is borrowed (what children bind with). It
 * owns the node's odls (and so the SIGCHLD handler). NULL + errno on failure. */
px_nagent_t *px_nagent_create(struct event_base *base, hwloc_topology_t topo, uint32_t self,
                              const px_nagent_cbs_t *cbs);
/* SIGKILLs and reaps every process (px_odls_destroy), drops unsent reports. NULL ok. */
void px_nagent_destroy(px_nagent_t *a);

/* Act on a decoded controller message (m stays the caller's). PMIX_SUCCESS, or
 * PMIX_ERR_NOT_SUPPORTED for a tag the agent does not handle, PMIX_EXISTS for a LAUNCH
 * of a job it already has, PMIX_ERR_NOMEM. A process that cannot be forked is reported
 * (PSTATE failed, pid 0, stage "fork") like any other start failure. */
pmix_status_t px_nagent_handle(px_nagent_t *a, const px_dp_ctl_msg_t *m);

/* The local child of proc while it has not been reaped, else NULL. Daemon 0's in-process
 * handle for stdin and output flow control (launcher/job_stdin.c, output.c) until the
 * STDIN message and per-daemon IOF flow control are implemented. */
px_child_t *px_nagent_child(px_nagent_t *a, const pmix_proc_t *proc);

#endif /* PX_NAGENT_H */
