/* server: PMI-1 / PMI-2 connections (server_pmi.c, docs/PMI.md) — what a host's node
 * agent calls to hand the server one end of a socketpair whose other end a process it
 * starts inherits as PMI_FD. The server serves that connection as the process it belongs
 * to, on the same job data, fence and publish machinery as a PMIx client's. Any thread.
 */
#ifndef PX_SRV_PMI_H
#define PX_SRV_PMI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pmix_common.h>

/* A PMI spawn's preput keys (PMIX_DATA_ARRAY of PMIX_INFO, string values) in the job
 * info of the SPAWN request the server makes of it: the host registers them as job-level
 * data of the new job (its processes' PMI get finds them there). */
#define PX_PMI_PREPUT "px.pmi.preput"

/* The server is up and can take PMI connections. */
bool px_srv_pmi_ready(void);

/* Serve fd (a connected stream socket, owned by the library from here on: closed on
 * failure too) as the PMI connection of proc, whose process pid holds the other end. The
 * proc need not be registered yet: it must be by the time the process says init. 0, or
 * -1 + errno (the server is not up, out of memory). */
int px_srv_pmi_attach(int fd, const pmix_proc_t *proc, pid_t pid);

/* proc's process is gone: what its connection still holds is read and served, then the
 * connection is closed as if the process had closed it; an offer of PMI_PORT it never
 * took up is withdrawn. Any thread; later on the loop. */
void px_srv_pmi_detach(const pmix_proc_t *proc);

/* PMI_PORT instead of PMI_FD (server_pmi_port.c): offer proc's process, of a job of size
 * ranks, the server's loopback TCP port. port (portlen bytes) receives
 * "127.0.0.1:<port>" for its PMI_PORT and *id a random number (1..INT32_MAX) for its
 * PMI_ID, good for one connection that says "cmd=initack pmiid=<id>". 0, or -1 + errno
 * (the server is not up, the listener cannot be made, out of memory). Any thread. */
int px_srv_pmi_offer_port(const pmix_proc_t *proc, uint32_t size, char *port, size_t portlen,
                          uint32_t *id);
/* proc's process, offered id, started as pid, or did not start (pid <= 0: the offer is
 * withdrawn). Any thread. */
void px_srv_pmi_port_started(uint32_t id, const pmix_proc_t *proc, pid_t pid);

#endif /* PX_SRV_PMI_H */
