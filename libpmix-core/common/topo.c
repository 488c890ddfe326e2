/* common: cpusets and locality for every side - PMIx_Parse_cpuset_string,
 * PMIx_Get_cpuset, PMIx_Get_relative_locality, PMIx_Compute_distances (its _nb form is
 * client/client_topo.c), the local topology (px_topo_local) and the
 * locality string (px_topo.h). hwloc underneath; any thread, no state of its own (the
 * local topology is types/px_hwtypes.c's, loaded through PMIx_Load_topology). */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <pmix.h>

#include "common/px_topo.h"
#include "types/px_hwtypes.h"

/* The levels of a locality string, in order (see px_topo.h). */
static const struct {
    hwloc_obj_type_t type;
    const char *tag;
    pmix_locality_t bit;
} levels[] = {
    {HWLOC_OBJ_NUMANODE, "NM", PMIX_LOCALITY_SHARE_NUMA},
    {HWLOC_OBJ_PACKAGE, "SK", PMIX_LOCALITY_SHARE_PACKAGE},
    {HWLOC_OBJ_L3CACHE, "L3", PMIX_LOCALITY_SHARE_L3CACHE},
    {HWLOC_OBJ_L2CACHE, "L2", PMIX_LOCALITY_SHARE_L2CACHE},
    {HWLOC_OBJ_L1CACHE, "L1", PMIX_LOCALITY_SHARE_L1CACHE},
    {HWLOC_OBJ_CORE, "CR", PMIX_LOCALITY_SHARE_CORE},
    {HWLOC_OBJ_PU, "HT", PMIX_LOCALITY_SHARE_HWTHREAD},
};
#define NLEVELS (sizeof(levels) / sizeof(levels[0]))

pmix_status_t px_topo_local(hwloc_topology_t *out)
{
    pmix_topology_t t = {.source = NULL, .topology = NULL};
    pmix_status_t rc = PMIx_Load_topology(&t);
    /* the topology is the library's (read-only, px_hwtypes.h): only the source is ours */
    free(t.source);
    *out = rc == PMIX_SUCCESS ? t.topology : NULL;
    return rc;
}

pmix_status_t px_topo_locality_string(hwloc_topology_t topo, hwloc_const_bitmap_t cpus, char **out)
{
    pmix_status_t rc = PMIX_ERR_NOMEM;
    hwloc_bitmap_t idx = hwloc_bitmap_alloc();
    char *s = strdup(PX_HW_SOURCE ":");
    *out = NULL;
    for (size_t l = 0; l < NLEVELS && idx != NULL && s != NULL; l++) {
        hwloc_bitmap_zero(idx);
        int n = hwloc_get_nbobjs_by_type(topo, levels[l].type);
        for (int i = 0; i < n; i++) {
            hwloc_obj_t o = hwloc_get_obj_by_type(topo, levels[l].type, (unsigned)i);
            if (o != NULL && o->cpuset != NULL && hwloc_bitmap_intersects(o->cpuset, cpus)) {
                hwloc_bitmap_set(idx, o->logical_index);
            }
        }
        char *list = NULL, *next = NULL;
        if (hwloc_bitmap_list_asprintf(&list, idx) < 0 ||
            asprintf(&next, "%s%s%s%s", s, l ? ":" : "", levels[l].tag, list) < 0) {
            next = NULL;
        }
        free(list);
        free(s);
        s = next;
        if (l == NLEVELS - 1 && s != NULL) {
            *out = s;
            s = NULL;
            rc = PMIX_SUCCESS;
        }
    }
    free(s);
    hwloc_bitmap_free(idx);
    return rc;
}

/* "hwloc:<list>" (or "HWLOC:..."): the part after the colon; NULL when the source is
 * missing. *other: a source that is not hwloc. */
static const char *after_source(const char *s, bool *other)
{
    const char *colon = strchr(s, ':');
    *other = false;
    if (colon == NULL || colon == s) {
        return NULL;
    }
    *other = !(colon - s == (ptrdiff_t)strlen(PX_HW_SOURCE) &&
               strncasecmp(s, PX_HW_SOURCE, strlen(PX_HW_SOURCE)) == 0);
    return colon + 1;
}

PMIX_EXPORT pmix_status_t PMIx_Parse_cpuset_string(const char *cpuset_string, pmix_cpuset_t *cpuset)
{
    bool other;
    if (cpuset_string == NULL || cpuset == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    const char *list = after_source(cpuset_string, &other);
    if (list == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (other) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    pmix_cpuset_t c = {.source = strdup(PX_HW_SOURCE), .bitmap = NULL};
    if (c.source == NULL) {
        return PMIX_ERR_NOMEM;
    }
    pmix_status_t rc = px_hw_cpuset_from_text(&c, list);
    if (rc != PMIX_SUCCESS) {
        free(c.source);
        return rc;
    }
    *cpuset = c; /* the caller's cpuset is constructed (empty) on entry */
    return PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_Get_cpuset(pmix_cpuset_t *cpuset, pmix_bind_envelope_t ref)
{
    int flags;
    if (cpuset == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (ref == PMIX_CPUBIND_PROCESS) {
        flags = HWLOC_CPUBIND_PROCESS;
    } else if (ref == PMIX_CPUBIND_THREAD) {
        flags = HWLOC_CPUBIND_THREAD;
    } else {
        return PMIX_ERR_BAD_PARAM;
    }
    hwloc_topology_t local;
    pmix_status_t rc = px_topo_local(&local);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    pmix_cpuset_t c = {.source = strdup(PX_HW_SOURCE), .bitmap = hwloc_bitmap_alloc()};
    if (c.source == NULL || c.bitmap == NULL) {
        rc = PMIX_ERR_NOMEM;
    } else if (hwloc_get_cpubind(local, c.bitmap, flags) != 0) {
        rc = PMIX_ERROR;
    }
    if (rc != PMIX_SUCCESS) {
        free(c.source);
        hwloc_bitmap_free(c.bitmap);
        return rc;
    }
    *cpuset = c;
    return PMIX_SUCCESS;
}

/* One field of a locality string: the bitmap after tag, NULL when absent/malformed. */
static hwloc_bitmap_t level_of(const char *body, const char *tag)
{
    for (const char *f = body; f != NULL; f = strchr(f, ':') ? strchr(f, ':') + 1 : NULL) {
        if (strncmp(f, tag, 2) != 0) {
            continue;
        }
        size_t len = strcspn(f + 2, ":");
        char *list = strndup(f + 2, len);
        pmix_cpuset_t c = {.source = (char *)PX_HW_SOURCE, .bitmap = NULL};
        if (list != NULL && px_hw_cpuset_from_text(&c, list) != PMIX_SUCCESS) {
            c.bitmap = NULL;
        }
        free(list);
        return c.bitmap;
    }
    return NULL;
}

PMIX_EXPORT pmix_status_t PMIx_Get_relative_locality(const char *locality1, const char *locality2,
                                                     pmix_locality_t *locality)
{
    bool other1, other2;
    if (locality1 == NULL || locality2 == NULL || locality == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    const char *b1 = after_source(locality1, &other1);
    const char *b2 = after_source(locality2, &other2);
    if (b1 == NULL || b2 == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (other1 || other2) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    /* locality strings are given to local processes only: both are on this node */
    pmix_locality_t loc = PMIX_LOCALITY_SHARE_NODE;
    for (size_t l = 0; l < NLEVELS; l++) {
        hwloc_bitmap_t x = level_of(b1, levels[l].tag), y = level_of(b2, levels[l].tag);
        if (x == NULL || y == NULL) {
            hwloc_bitmap_free(x);
            hwloc_bitmap_free(y);
            return PMIX_ERR_BAD_PARAM; /* every level is written, even when empty */
        }
        if (hwloc_bitmap_intersects(x, y)) {
            loc |= levels[l].bit;
        }
        hwloc_bitmap_free(x);
        hwloc_bitmap_free(y);
    }
    *locality = loc;
    return PMIX_SUCCESS;
}

/* ---- device distances ---- */

/* What a hwloc OS device is in the Standard's terms (0: none we report). */
static pmix_device_type_t devtype(hwloc_obj_t osdev)
{
    switch (osdev->attr->osdev.type) {
    case HWLOC_OBJ_OSDEV_BLOCK:
        return PMIX_DEVTYPE_BLOCK;
    case HWLOC_OBJ_OSDEV_GPU:
        return PMIX_DEVTYPE_GPU;
    case HWLOC_OBJ_OSDEV_NETWORK:
        return PMIX_DEVTYPE_NETWORK;
    case HWLOC_OBJ_OSDEV_OPENFABRICS:
        return PMIX_DEVTYPE_OPENFABRICS;
    case HWLOC_OBJ_OSDEV_DMA:
        return PMIX_DEVTYPE_DMA;
    case HWLOC_OBJ_OSDEV_COPROC:
        return PMIX_DEVTYPE_COPROC;
    default:
        return 0;
    }
}

/* A device's identifier: the hardware's own (InfiniBand node GUID, network address)
 * when hwloc knows one, else its OS name. */
static const char *devid(hwloc_obj_t osdev)
{
    const char *names[] = {"NodeGUID", "Address"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *v = hwloc_obj_get_info_by_name(osdev, names[i]);
        if (v != NULL) {
            return v;
        }
    }
    return osdev->name;
}

/* Hops in the tree between a PU and the device's locality object. */
static unsigned hops(hwloc_topology_t topo, hwloc_obj_t pu, hwloc_obj_t at)
{
    hwloc_obj_t common = hwloc_get_common_ancestor_obj(topo, pu, at);
    return (unsigned)(pu->depth - common->depth) + (unsigned)(at->depth - common->depth);
}

/* Distances from cpus to every OS device of topo matching types (0: any) and id (NULL:
 * any), into a new array (PMIX_ERR_NOT_FOUND when none matches). */
static pmix_status_t distances(hwloc_topology_t topo, hwloc_const_bitmap_t cpus,
                               pmix_device_type_t types, const char *id,
                               pmix_device_distance_t **out, size_t *nout)
{
    size_t n = 0;
    for (hwloc_obj_t d = NULL; (d = hwloc_get_next_osdev(topo, d)) != NULL;) {
        n++;
    }
    pmix_device_distance_t *dist = n ? PMIx_Device_distance_create(n) : NULL;
    if (n > 0 && dist == NULL) {
        return PMIX_ERR_NOMEM;
    }
    size_t k = 0;
    for (hwloc_obj_t d = NULL; (d = hwloc_get_next_osdev(topo, d)) != NULL;) {
        pmix_device_type_t t = devtype(d);
        if (t == 0 || (types != 0 && (types & t) == 0) || d->name == NULL ||
            (id != NULL && strcmp(id, devid(d)) != 0 && strcmp(id, d->name) != 0)) {
            continue;
        }
        hwloc_obj_t at = hwloc_get_non_io_ancestor_obj(topo, d);
        unsigned lo = UINT16_MAX, hi = 0;
        for (hwloc_obj_t pu = NULL; (pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu));) {
            if (hwloc_bitmap_isset(cpus, pu->os_index)) {
                unsigned h = hops(topo, pu, at);
                lo = h < lo ? h : lo;
                hi = h > hi ? h : hi;
            }
        }
        if (hi < lo) {
            continue; /* cpus holds no PU of this topology: caught below */
        }
        dist[k].uuid = strdup(devid(d));
        dist[k].osname = strdup(d->name);
        if (dist[k].uuid == NULL || dist[k].osname == NULL) {
            PMIx_Device_distance_free(dist, n);
            return PMIX_ERR_NOMEM;
        }
        dist[k].type = t;
        dist[k].mindist = (uint16_t)lo;
        dist[k].maxdist = (uint16_t)hi;
        k++;
    }
    if (k == 0) {
        PMIx_Device_distance_free(dist, n);
        return PMIX_ERR_NOT_FOUND;
    }
    *out = dist;
    *nout = k; /* the array holds n; the elements past k are constructed (empty) */
    return PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_Compute_distances(pmix_topology_t *topo, pmix_cpuset_t *cpuset,
                                                 pmix_info_t info[], size_t ninfo,
                                                 pmix_device_distance_t *distances_out[],
                                                 size_t *ndist)
{
    if (cpuset == NULL || cpuset->bitmap == NULL || distances_out == NULL || ndist == NULL ||
        (ninfo > 0 && info == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    *distances_out = NULL;
    *ndist = 0;
    if (!px_hw_is_source(cpuset->source) ||
        (topo != NULL && topo->topology != NULL && !px_hw_is_source(topo->source))) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    pmix_device_type_t types = 0;
    const char *id = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_DEVICE_TYPE) && info[i].value.type == PMIX_DEVTYPE) {
            types |= info[i].value.data.devtype;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_DEVICE_ID) && info[i].value.type == PMIX_STRING) {
            id = info[i].value.data.string;
        } else {
            return PMIX_ERR_NOT_SUPPORTED; /* a directive we cannot honour */
        }
    }
    hwloc_topology_t t = topo != NULL ? topo->topology : NULL;
    if (t == NULL) {
        pmix_status_t rc = px_topo_local(&t);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    if (!hwloc_bitmap_intersects(cpuset->bitmap, hwloc_topology_get_topology_cpuset(t))) {
        return PMIX_ERR_BAD_PARAM; /* not a location on that node */
    }
    return distances(t, cpuset->bitmap, types, id, distances_out, ndist);
}
