/* daemon: a node's hardware topology as the daemon protocol carries it: a signature
 * (identical hardware => identical signature, whatever the node's name) and hwloc XML.
 * Any thread; each call touches only the topology it is given.
 */
#ifndef PX_DTOPO_H
#define PX_DTOPO_H

#include <stddef.h>

#include <hwloc.h>

/* Longest signature with its NUL. */
#define PX_DTOPO_SIG_LEN 96

/* "hwloc:<packages>P<numa>N<cores>C<pus>H:<16 hex digits>": object counts, then a
 * 64-bit FNV-1a hash over every object's type, depth, OS index and cpuset (names,
 * info attributes such as the host name, and allowed sets are left out). */
void px_dtopo_signature(hwloc_topology_t topo, char out[PX_DTOPO_SIG_LEN]);

/* Load this node's topology as the controller does (no caches, no I/O devices). When the
 * developer-only variable PX_PRTED_TEST_SYNTHETIC is set (tests: a node with other
 * hardware), its value is loaded as an hwloc synthetic description instead. 0 / -1. */
int px_dtopo_load(hwloc_topology_t *topo);

#endif /* PX_DTOPO_H */
