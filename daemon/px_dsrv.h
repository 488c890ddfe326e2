/* daemon: prted's PMIx server — the library's server side for this node's processes,
 * with the host upcalls a daemon answers by asking the controller (docs/PROTOCOL.md):
 * client connected / finalized (PSTATE), abort (ABORT), fence_nb (FENCE_UP, answered
 * by FENCE_REL), direct_modex (DMODEX_REQ request), job_control (JOBCTL request),
 * query (QUERY request: proc tables and the rest the library leaves to its host),
 * notify_event beyond this node (EVENT), spawn (PROC_SPAWN request), group / connect /
 * disconnect (GROUP_UP request, answered by GROUP_REL), publish / lookup / unpublish
 * (PUBSUB request). The controller's PSET messages define and delete process sets here.
 * The upcalls come on the library's thread and are shifted to the daemon's loop;
 * everything else runs there. One per process (the library runs one server).
 */
#ifndef PX_DSRV_H
#define PX_DSRV_H

#include <stdint.h>

#include <hwloc.h>
#include <pmix_common.h>

#include "daemon/px_dlink.h"
#include "net/px_progress.h"

typedef struct px_dsrv px_dsrv_t;

typedef struct {
    px_progress_t *prog;   /* borrowed: the daemon's loop */
    const char *nspace;    /* the DVM's namespace (PMIX_SERVER_NSPACE) */
    uint32_t id;           /* this daemon (PMIX_SERVER_RANK) */
    const char *node;      /* this node's name (PMIX_HOSTNAME) */
    hwloc_topology_t topo; /* borrowed: given to the server (and so to the clients) */
} px_dsrv_opts_t;

/* PMIx_server_init with this daemon's identity. NULL + the library's status in *rc. */
px_dsrv_t *px_dsrv_start(const px_dsrv_opts_t *o, pmix_status_t *rc);
/* Where the upcalls' messages go (set once the link exists; NULL: nowhere, upcalls fail). */
void px_dsrv_attach(px_dsrv_t *s, px_dlink_t *link);
/* The routing tree: once it is made, fence contributions go up it (px_droute_fence)
 * instead of straight to the controller. NULL: none. */
struct px_droute;
void px_dsrv_route(px_dsrv_t *s, struct px_droute *route);
/* A controller message for the server: FENCE_REL, DMODEX_REQ (request seq), EVENT, PSET.
 * PMIX_ERR_NOT_SUPPORTED for another tag. */
pmix_status_t px_dsrv_ctl(px_dsrv_t *s, const px_dp_ctl_msg_t *m, uint32_t seq);
/* Answer what waits for the controller with PMIX_ERR_LOST_CONNECTION, finalize the
 * server (its socket is removed), free. Call after the loop stopped, with the link gone
 * or detached (px_dsrv_attach NULL). NULL ok. */
void px_dsrv_stop(px_dsrv_t *s);

#endif /* PX_DSRV_H */
