/* daemon: topology signature and loading for the daemon protocol (px_dtopo.h). Any
 * thread.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/px_dtopo.h"

static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

void px_dtopo_signature(hwloc_topology_t topo, char out[PX_DTOPO_SIG_LEN])
{
    uint64_t h = 0xcbf29ce484222325ull;
    int depth = hwloc_topology_get_depth(topo);
    for (int d = 0; d < depth; d++) {
        unsigned n = (unsigned)hwloc_get_nbobjs_by_depth(topo, d);
        for (unsigned i = 0; i < n; i++) {
            hwloc_obj_t o = hwloc_get_obj_by_depth(topo, d, i);
            uint32_t f[3] = {(uint32_t)o->type, (uint32_t)d, o->os_index};
            h = fnv(h, f, sizeof(f));
            char *set = NULL;
            if (o->cpuset != NULL && hwloc_bitmap_list_asprintf(&set, o->cpuset) >= 0) {
                h = fnv(h, set, strlen(set));
            }
            free(set);
        }
    }
    /* NUMA nodes live at a virtual depth */
    int numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < numa; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
        h = fnv(h, &o->os_index, sizeof(o->os_index));
    }
    snprintf(out, PX_DTOPO_SIG_LEN, "hwloc:%dP%dN%dC%dH:%016llx",
             hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE), numa,
             hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE),
             hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU), (unsigned long long)h);
}

int px_dtopo_load(hwloc_topology_t *topo)
{
    const char *synth = getenv("PX_PRTED_TEST_SYNTHETIC");
    bool plugins_off = getenv("HWLOC_PLUGINS_PATH") == NULL &&
                       setenv("HWLOC_PLUGINS_PATH", "/nonexistent-px-no-plugins", 0) == 0;
    int rc = hwloc_topology_init(topo);
    if (plugins_off) {
        unsetenv("HWLOC_PLUGINS_PATH");
    }
    if (rc != 0) {
        return -1;
    }
    if ((synth != NULL && *synth != '\0' && hwloc_topology_set_synthetic(*topo, synth) != 0) ||
        hwloc_topology_set_cache_types_filter(*topo, HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
        hwloc_topology_set_icache_types_filter(*topo, HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
        hwloc_topology_set_io_types_filter(*topo, HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
        hwloc_topology_load(*topo) != 0) {
        hwloc_topology_destroy(*topo);
        *topo = NULL;
        return -1;
    }
    return 0;
}
