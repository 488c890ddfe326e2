/* types: construct/destruct/create/free (and load/xfer where the API has them) of the
 * struct families other than value/info/data array: proc, proc info, app, query, pdata,
 * byte object, envar, coord, regattr, cpuset, topology, geometry, device distance,
 * endpoint, device, resource unit, node pid, regex2, fabric. Any thread. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "types/px_types_int.h"

/* destruct n elements and free the array (NULL array: no-op) */
static void px_free_n(void *p, size_t n, pmix_data_type_t t)
{
    if (NULL == p) {
        return;
    }
    px_type_destruct_n(p, n, t);
    free(p);
}

/* ---- pmix_proc_t ---- */

/* Empty namespace, rank PMIX_RANK_UNDEF. */
void PMIx_Proc_construct(pmix_proc_t *p)
{
    px_type_construct(p, PMIX_PROC);
}

/* A proc owns nothing; destruct resets it to the constructed state. */
void PMIx_Proc_destruct(pmix_proc_t *p)
{
    px_type_construct(p, PMIX_PROC);
}

pmix_proc_t *PMIx_Proc_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_PROC);
}

void PMIx_Proc_free(pmix_proc_t *p, size_t n)
{
    px_free_n(p, n, PMIX_PROC);
}

void PMIx_Proc_load(pmix_proc_t *p, const char *nspace, pmix_rank_t rank)
{
    if (NULL == p) {
        return;
    }
    memset(p, 0, sizeof(*p));
    PMIx_Load_nspace(p->nspace, nspace);
    p->rank = rank;
}

/* ---- pmix_proc_info_t ---- */

void PMIx_Proc_info_construct(pmix_proc_info_t *p)
{
    px_type_construct(p, PMIX_PROC_INFO);
}

void PMIx_Proc_info_destruct(pmix_proc_info_t *p)
{
    px_type_destruct(p, PMIX_PROC_INFO);
}

pmix_proc_info_t *PMIx_Proc_info_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_PROC_INFO);
}

void PMIx_Proc_info_free(pmix_proc_info_t *p, size_t n)
{
    px_free_n(p, n, PMIX_PROC_INFO);
}

/* ---- pmix_app_t ---- */

void PMIx_App_construct(pmix_app_t *p)
{
    px_type_construct(p, PMIX_APP);
}

void PMIx_App_destruct(pmix_app_t *p)
{
    px_type_destruct(p, PMIX_APP);
}

pmix_app_t *PMIx_App_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_APP);
}

/* Gives p a new array of n infos (PMIx_Info_create); the previous info pointer is
 * overwritten, not freed. */
void PMIx_App_info_create(pmix_app_t *p, size_t n)
{
    if (NULL == p) {
        return;
    }
    p->info = PMIx_Info_create(n);
    p->ninfo = NULL == p->info ? 0 : n;
}

void PMIx_App_free(pmix_app_t *p, size_t n)
{
    px_free_n(p, n, PMIX_APP);
}

void PMIx_App_release(pmix_app_t *p)
{
    px_free_n(p, 1, PMIX_APP);
}

/* ---- pmix_query_t ---- */

void PMIx_Query_construct(pmix_query_t *p)
{
    px_type_construct(p, PMIX_QUERY);
}

void PMIx_Query_destruct(pmix_query_t *p)
{
    px_type_destruct(p, PMIX_QUERY);
}

pmix_query_t *PMIx_Query_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_QUERY);
}

/* Gives p a new array of n qualifier infos; the previous pointer is overwritten. */
void PMIx_Query_qualifiers_create(pmix_query_t *p, size_t n)
{
    if (NULL == p) {
        return;
    }
    p->qualifiers = PMIx_Info_create(n);
    p->nqual = NULL == p->qualifiers ? 0 : n;
}

void PMIx_Query_free(pmix_query_t *p, size_t n)
{
    px_free_n(p, n, PMIX_QUERY);
}

void PMIx_Query_release(pmix_query_t *p)
{
    px_free_n(p, 1, PMIX_QUERY);
}

/* ---- pmix_pdata_t ---- */

void PMIx_Pdata_construct(pmix_pdata_t *p)
{
    px_type_construct(p, PMIX_PDATA);
}

void PMIx_Pdata_destruct(pmix_pdata_t *p)
{
    px_type_destruct(p, PMIX_PDATA);
}

pmix_pdata_t *PMIx_Pdata_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_PDATA);
}

void PMIx_Pdata_free(pmix_pdata_t *p, size_t n)
{
    px_free_n(p, n, PMIX_PDATA);
}

/* dest is reset (not released) and gets proc p (if any), key (if any) and a copy of the
 * data (PMIx_Value_load conventions). NULL dest: no-op. */
void PMIx_Pdata_load(pmix_pdata_t *dest, const pmix_proc_t *p, const char *key, const void *data,
                     pmix_data_type_t type)
{
    if (NULL == dest) {
        return;
    }
    memset(dest, 0, sizeof(*dest));
    if (NULL != p) {
        memcpy(&dest->proc, p, sizeof(dest->proc));
    }
    if (NULL != key) {
        PMIx_Load_key(dest->key, key);
    }
    (void)PMIx_Value_load(&dest->value, data, type);
}

void PMIx_Pdata_xfer(pmix_pdata_t *dest, pmix_pdata_t *src)
{
    if (NULL == dest || dest == src) {
        return;
    }
    memset(dest, 0, sizeof(*dest));
    if (NULL == src) {
        return;
    }
    (void)px_type_copy(dest, src, PMIX_PDATA);
}

/* ---- pmix_byte_object_t ---- */

void PMIx_Byte_object_construct(pmix_byte_object_t *b)
{
    px_type_construct(b, PMIX_BYTE_OBJECT);
}

void PMIx_Byte_object_destruct(pmix_byte_object_t *g)
{
    px_type_destruct(g, PMIX_BYTE_OBJECT);
}

pmix_byte_object_t *PMIx_Byte_object_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_BYTE_OBJECT);
}

void PMIx_Byte_object_free(pmix_byte_object_t *g, size_t n)
{
    px_free_n(g, n, PMIX_BYTE_OBJECT);
}

/* Takes the caller's buffer (no copy): b now owns d (malloc'd) and frees it on destruct. */
void PMIx_Byte_object_load(pmix_byte_object_t *b, char *d, size_t sz)
{
    if (NULL == b) {
        return;
    }
    b->bytes = d;
    b->size = NULL == d ? 0 : sz;
}

/* ---- pmix_envar_t ---- */

void PMIx_Envar_construct(pmix_envar_t *e)
{
    px_type_construct(e, PMIX_ENVAR);
}

void PMIx_Envar_destruct(pmix_envar_t *e)
{
    px_type_destruct(e, PMIX_ENVAR);
}

pmix_envar_t *PMIx_Envar_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_ENVAR);
}

void PMIx_Envar_free(pmix_envar_t *e, size_t n)
{
    px_free_n(e, n, PMIX_ENVAR);
}

/* Copies of var and value (NULL ones skipped, leaving the field as it was) and the
 * separator. */
void PMIx_Envar_load(pmix_envar_t *e, char *var, char *value, char separator)
{
    if (NULL == e) {
        return;
    }
    if (NULL != var) {
        e->envar = strdup(var);
    }
    if (NULL != value) {
        e->value = strdup(value);
    }
    e->separator = separator;
}

/* ---- pmix_coord_t ---- */

void PMIx_Coord_construct(pmix_coord_t *m)
{
    px_type_construct(m, PMIX_COORD);
}

void PMIx_Coord_destruct(pmix_coord_t *m)
{
    px_type_destruct(m, PMIX_COORD);
}

/* number coords, each with dims zeroed coordinates (view undefined); NULL when number
 * is 0 or memory runs out. */
pmix_coord_t *PMIx_Coord_create(size_t dims, size_t number)
{
    pmix_coord_t *m = px_type_alloc_n(number, PMIX_COORD);

    if (NULL == m || 0 == dims) {
        return m;
    }
    for (size_t i = 0; i < number; i++) {
        m[i].coord = calloc(dims, sizeof(uint32_t));
        if (NULL == m[i].coord) {
            px_free_n(m, i, PMIX_COORD);
            return NULL;
        }
        m[i].dims = dims;
    }
    return m;
}

void PMIx_Coord_free(pmix_coord_t *m, size_t number)
{
    px_free_n(m, number, PMIX_COORD);
}

/* ---- pmix_regattr_t ---- */

void PMIx_Regattr_construct(pmix_regattr_t *p)
{
    px_type_construct(p, PMIX_REGATTR);
}

void PMIx_Regattr_destruct(pmix_regattr_t *p)
{
    px_type_destruct(p, PMIX_REGATTR);
}

pmix_regattr_t *PMIx_Regattr_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_REGATTR);
}

void PMIx_Regattr_free(pmix_regattr_t *p, size_t n)
{
    px_free_n(p, n, PMIX_REGATTR);
}

/* Copies name (if not NULL; replacing the previous one), loads key into string, sets
 * type and appends description (if not NULL) as one more line of the description argv. */
void PMIx_Regattr_load(pmix_regattr_t *info, const char *name, const char *key,
                       pmix_data_type_t type, const char *description)
{
    if (NULL == info) {
        return;
    }
    if (NULL != name) {
        char *n = strdup(name);
        if (NULL != n) {
            free(info->name);
            info->name = n;
        }
    }
    if (NULL != key) {
        PMIx_Load_key(info->string, key);
    }
    info->type = type;
    if (NULL != description) {
        size_t n = 0;
        char **argv;
        char *line = strdup(description);

        if (NULL == line) {
            return;
        }
        while (NULL != info->description && NULL != info->description[n]) {
            n++;
        }
        argv = realloc(info->description, (n + 2) * sizeof(char *));
        if (NULL == argv) {
            free(line);
            return;
        }
        argv[n] = line;
        argv[n + 1] = NULL;
        info->description = argv;
    }
}

/* dest is overwritten (not released) with a deep copy of src. */
void PMIx_Regattr_xfer(pmix_regattr_t *dest, const pmix_regattr_t *src)
{
    if (NULL == dest || dest == src) {
        return;
    }
    px_type_construct(dest, PMIX_REGATTR);
    if (NULL != src) {
        (void)px_type_copy(dest, src, PMIX_REGATTR);
    }
}

/* ---- pmix_cpuset_t / pmix_topology_t (ownership: see px_hwtypes.h) ---- */

void PMIx_Cpuset_construct(pmix_cpuset_t *cpuset)
{
    px_type_construct(cpuset, PMIX_PROC_CPUSET);
}

void PMIx_Cpuset_destruct(pmix_cpuset_t *cpuset)
{
    px_type_destruct(cpuset, PMIX_PROC_CPUSET);
}

pmix_cpuset_t *PMIx_Cpuset_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_PROC_CPUSET);
}

void PMIx_Cpuset_free(pmix_cpuset_t *c, size_t n)
{
    px_free_n(c, n, PMIX_PROC_CPUSET);
}

void PMIx_Topology_construct(pmix_topology_t *t)
{
    px_type_construct(t, PMIX_TOPO);
}

void PMIx_Topology_destruct(pmix_topology_t *topo)
{
    px_type_destruct(topo, PMIX_TOPO);
}

pmix_topology_t *PMIx_Topology_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_TOPO);
}

void PMIx_Topology_free(pmix_topology_t *t, size_t n)
{
    px_free_n(t, n, PMIX_TOPO);
}

/* ---- pmix_geometry_t ---- */

void PMIx_Geometry_construct(pmix_geometry_t *g)
{
    px_type_construct(g, PMIX_GEOMETRY);
}

void PMIx_Geometry_destruct(pmix_geometry_t *g)
{
    px_type_destruct(g, PMIX_GEOMETRY);
}

pmix_geometry_t *PMIx_Geometry_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_GEOMETRY);
}

void PMIx_Geometry_free(pmix_geometry_t *g, size_t n)
{
    px_free_n(g, n, PMIX_GEOMETRY);
}

/* ---- pmix_device_distance_t ---- */

/* Strings NULL, type 0, mindist = maxdist = UINT16_MAX. */
void PMIx_Device_distance_construct(pmix_device_distance_t *d)
{
    px_type_construct(d, PMIX_DEVICE_DIST);
}

void PMIx_Device_distance_destruct(pmix_device_distance_t *d)
{
    px_type_destruct(d, PMIX_DEVICE_DIST);
}

pmix_device_distance_t *PMIx_Device_distance_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_DEVICE_DIST);
}

void PMIx_Device_distance_free(pmix_device_distance_t *d, size_t n)
{
    px_free_n(d, n, PMIX_DEVICE_DIST);
}

/* ---- pmix_endpoint_t ---- */

void PMIx_Endpoint_construct(pmix_endpoint_t *e)
{
    px_type_construct(e, PMIX_ENDPOINT);
}

void PMIx_Endpoint_destruct(pmix_endpoint_t *e)
{
    px_type_destruct(e, PMIX_ENDPOINT);
}

pmix_endpoint_t *PMIx_Endpoint_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_ENDPOINT);
}

void PMIx_Endpoint_free(pmix_endpoint_t *e, size_t n)
{
    px_free_n(e, n, PMIX_ENDPOINT);
}

/* ---- pmix_device_t, pmix_resource_unit_t, pmix_node_pid_t, pmix_regex2_t (master) ---- */

void PMIx_Device_construct(pmix_device_t *d)
{
    px_type_construct(d, PMIX_DEVICE);
}

void PMIx_Device_destruct(pmix_device_t *d)
{
    px_type_destruct(d, PMIX_DEVICE);
}

pmix_device_t *PMIx_Device_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_DEVICE);
}

void PMIx_Device_free(pmix_device_t *d, size_t n)
{
    px_free_n(d, n, PMIX_DEVICE);
}

void PMIx_Resource_unit_construct(pmix_resource_unit_t *d)
{
    px_type_construct(d, PMIX_RESOURCE_UNIT);
}

void PMIx_Resource_unit_destruct(pmix_resource_unit_t *d)
{
    px_type_destruct(d, PMIX_RESOURCE_UNIT);
}

pmix_resource_unit_t *PMIx_Resource_unit_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_RESOURCE_UNIT);
}

void PMIx_Resource_unit_free(pmix_resource_unit_t *d, size_t n)
{
    px_free_n(d, n, PMIX_RESOURCE_UNIT);
}

/* Hostname NULL, nodeid UINT32_MAX, pid -1. */
void PMIx_Node_pid_construct(pmix_node_pid_t *d)
{
    px_type_construct(d, PMIX_NODE_PID);
}

void PMIx_Node_pid_destruct(pmix_node_pid_t *d)
{
    px_type_destruct(d, PMIX_NODE_PID);
}

pmix_node_pid_t *PMIx_Node_pid_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_NODE_PID);
}

void PMIx_Node_pid_free(pmix_node_pid_t *d, size_t n)
{
    px_free_n(d, n, PMIX_NODE_PID);
}

void PMIx_Regex2_construct(pmix_regex2_t *d)
{
    px_type_construct(d, PMIX_REGEX2);
}

void PMIx_Regex2_destruct(pmix_regex2_t *d)
{
    px_type_destruct(d, PMIX_REGEX2);
}

pmix_regex2_t *PMIx_Regex2_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_REGEX2);
}

void PMIx_Regex2_free(pmix_regex2_t *d, size_t n)
{
    px_free_n(d, n, PMIX_REGEX2);
}

/* ---- pmix_fabric_t ---- */

/* All fields zero/NULL (no name, index 0, no info, no module). */
void PMIx_Fabric_construct(pmix_fabric_t *p)
{
    if (NULL != p) {
        memset(p, 0, sizeof(*p));
    }
}
