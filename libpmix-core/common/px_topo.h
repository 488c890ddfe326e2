/* common: locality strings and the process's local topology, shared by the client,
 * server and tool sides (common/topo.c). Any thread. */
#ifndef PX_TOPO_H
#define PX_TOPO_H

#include <hwloc.h>
#include <pmix_common.h>

/* The locality of cpus in topo: "hwloc:" then, colon-separated, one field per level -
 * NM (NUMA nodes), SK (packages), L3, L2, L1 (caches), CR (cores), HT (PUs) - each the
 * two letters followed by hwloc's list string of the logical indexes of the objects of
 * that level whose cpuset intersects cpus ("hwloc:NM0:SK0:L3:L2:L1:CR0-1:HT0-3"; the
 * field is empty when the topology has no such level or nothing intersects). This is
 * OpenPMIx's documented form. Malloc'd into *out. */
pmix_status_t px_topo_locality_string(hwloc_topology_t topo, hwloc_const_bitmap_t cpus, char **out);

/* The process's local topology (PMIx_Load_topology: the one the server gave, else
 * discovered once), read-only and the library's. PMIX_SUCCESS with *out set, or the
 * loader's error. */
pmix_status_t px_topo_local(hwloc_topology_t *out);

#endif /* PX_TOPO_H */
