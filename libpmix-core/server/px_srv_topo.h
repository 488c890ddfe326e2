/* server: cpusets and topology on the server side (server_topo.c). */
#ifndef PX_SRV_TOPO_H
#define PX_SRV_TOPO_H

#include <pmix_common.h>

#include "server/px_server.h"
#include "store/px_store.h"

/* PMIx_server_init's topology attributes: PMIX_TOPOLOGY2 (source "hwloc", else
 * PMIX_ERR_NOT_SUPPORTED) or PMIX_TOPOLOGY (a bare hwloc_topology_t) - a copy becomes
 * the library's local topology; PMIX_SERVER_SHARE_TOPOLOGY (default true). */
pmix_status_t px_srv_topo_init(const pmix_info_t *info, size_t ninfo);
/* At finalize: drop the local topology and its XML. */
void px_srv_topo_fini(void);
/* PX_TAG_TOPOLOGY (loop, lock held): reply with the local topology as XML
 * (PMIX_ERR_NOT_AVAILABLE when sharing is off or there is none). */
void px_srv_topology_req(px_srv_client_t *c, uint32_t seq);
/* After a namespace's registration (lock held): each local rank without one gets
 * PMIX_LOCALITY_STRING from its PMIX_CPUSET ("hwloc:<list>"; unbound: the whole node)
 * and the local node PMIX_LOCAL_CPUSETS (each local peer's list, ':'-separated, in
 * PMIX_LOCAL_PEERS order), unless the host gave them. No topology: nothing is added. */
pmix_status_t px_srv_topo_ns(px_nspace_t *ns);

#endif /* PX_SRV_TOPO_H */
