/* daemon: offering PMI to the processes a node agent starts (docs/PMI.md). Like Hydra,
 * every process gets one end of a socketpair as PMI_FD (fd 4) with PMI_RANK and PMI_SIZE;
 * the other end goes to this node's PMIx server, which serves it as that process
 * (libpmix-core/server/server_pmi.c). A process that never speaks PMI (a PMIx program)
 * just holds an idle descriptor. With PX_PMI=port in its environment a process gets
 * PMI_PORT and PMI_ID instead (the server's loopback port and a one-use number), for
 * programs started through something that closes inherited descriptors. Daemon's loop.
 *
 * The three calls, in order, around px_odls_start:
 *   px_pmi_child_prepare(&pc, proc, size, spawned, &env)  spec.pass_fd = px_pmi_child_fd(&pc)
 *   px_pmi_child_started(&pc, proc, pid)         pid 0 when it did not start
 *   px_pmi_child_ended(proc)                      when it was reaped
 */
#ifndef PX_PMI_CHILD_H
#define PX_PMI_CHILD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <pmix_common.h>

typedef struct {
    int child_fd;     /* the process's end (it inherits it), -1 when PMI_FD is not offered */
    int server_fd;    /* the server's end until it is handed over, else -1 */
    uint32_t port_id; /* its PMI_ID when PMI_PORT is offered, else 0 */
} px_pmi_child_t;

typedef enum { PX_PMI_OFFER_NONE, PX_PMI_OFFER_FD, PX_PMI_OFFER_PORT } px_pmi_offer_t;

/* How a process whose environment is env is offered PMI: PMI_FD unless PX_PMI says
 * otherwise there (set it in the DVM's environment, or per job with -x): "0", "no" or
 * "off" nothing, "port" PMI_PORT/PMI_ID; and nothing unless a PMIx server runs in this
 * process to serve it. The one place this is decided. */
px_pmi_offer_t px_pmi_offer(char *const *env);

/* When offered: the socketpair, and PMI_FD, PMI_RANK, PMI_SIZE set in *env; or the
 * port's offer and PMI_PORT, PMI_ID (and PMI_RANK, PMI_SIZE) set; PMI_SPAWNED=1 for a job
 * spawned from another (MPICH then looks for its parent). Never fails the start: without
 * a socketpair or a port the process simply gets no PMI. */
void px_pmi_child_prepare(px_pmi_child_t *pc, const pmix_proc_t *proc, uint32_t size, bool spawned,
                          char ***env);
/* What to put in px_child_spec_t.pass_fd: NULL or &pc->child_fd. */
const int *px_pmi_child_fd(const px_pmi_child_t *pc);
/* After px_odls_start: our copy of the child's end is closed; the server's end goes to
 * the server (pid > 0) or is closed (the process did not start); a port's offer learns
 * the pid, or is withdrawn. */
void px_pmi_child_started(px_pmi_child_t *pc, const pmix_proc_t *proc, pid_t pid);
/* The process was reaped: what it still wrote is served, then its connection closes. */
void px_pmi_child_ended(const pmix_proc_t *proc);

#endif /* PX_PMI_CHILD_H */
