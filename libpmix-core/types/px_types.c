/* types: the data-type registry (size, construct, deep copy, destruct, compare and
 * footprint of one element of every known pmix_data_type_t; see px_types.h).
 * Pure functions on caller memory; any thread. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "types/px_hwtypes.h"
#include "types/px_types_int.h"

/* What the generic code must do with an element: the "kind" of its representation. */
enum px_kind {
    PX_K_UNKNOWN = 0,
    PX_K_BOOL,
    PX_K_SINT, /* signed integer of px_type_size() bytes */
    PX_K_UINT, /* unsigned integer of px_type_size() bytes */
    PX_K_FLT,  /* float or double */
    PX_K_TIMEVAL,
    PX_K_STRING,
    PX_K_VALUE,
    PX_K_PROC,
    PX_K_APP,
    PX_K_INFO,
    PX_K_PDATA,
    PX_K_BO,
    PX_K_POINTER,
    PX_K_PINFO,
    PX_K_DARRAY,
    PX_K_QUERY,
    PX_K_ENVAR,
    PX_K_COORD,
    PX_K_REGATTR,
    PX_K_CPUSET,
    PX_K_GEOMETRY,
    PX_K_DEVDIST,
    PX_K_ENDPOINT,
    PX_K_TOPO,
    PX_K_NSPACE,
    PX_K_PSTATS,
    PX_K_DKSTATS,
    PX_K_NETSTATS,
    PX_K_NDSTATS,
    PX_K_DBUF,
    PX_K_DEVICE,
    PX_K_RESUNIT,
    PX_K_NODEPID,
    PX_K_REGEX2
};

struct px_type_entry {
    size_t size;
    enum px_kind kind;
    enum px_value_storage vs;
};

#define PX_TYPE_TABLE_LEN (PMIX_ALLOC_INHERIT + 1)
#define E(sz, k, v)                                                                                \
    {                                                                                              \
        (sz), (k), (v)                                                                             \
    }
#define SI(T) E(sizeof(T), PX_K_SINT, PX_VS_INLINE)
#define UI(T) E(sizeof(T), PX_K_UINT, PX_VS_INLINE)

static const struct px_type_entry px_type_table[PX_TYPE_TABLE_LEN] = {
    [PMIX_BOOL] = E(sizeof(bool), PX_K_BOOL, PX_VS_INLINE),
    [PMIX_BYTE] = UI(uint8_t),
    [PMIX_STRING] = E(sizeof(char *), PX_K_STRING, PX_VS_INLINE),
    [PMIX_SIZE] = UI(size_t),
    [PMIX_PID] = SI(pid_t),
    [PMIX_INT] = SI(int),
    [PMIX_INT8] = SI(int8_t),
    [PMIX_INT16] = SI(int16_t),
    [PMIX_INT32] = SI(int32_t),
    [PMIX_INT64] = SI(int64_t),
    [PMIX_UINT] = UI(unsigned int),
    [PMIX_UINT8] = UI(uint8_t),
    [PMIX_UINT16] = UI(uint16_t),
    [PMIX_UINT32] = UI(uint32_t),
    [PMIX_UINT64] = UI(uint64_t),
    [PMIX_FLOAT] = E(sizeof(float), PX_K_FLT, PX_VS_INLINE),
    [PMIX_DOUBLE] = E(sizeof(double), PX_K_FLT, PX_VS_INLINE),
    [PMIX_TIMEVAL] = E(sizeof(struct timeval), PX_K_TIMEVAL, PX_VS_INLINE),
    [PMIX_TIME] = SI(time_t),
    [PMIX_STATUS] = SI(pmix_status_t),
    [PMIX_VALUE] = E(sizeof(pmix_value_t), PX_K_VALUE, PX_VS_NONE),
    [PMIX_PROC] = E(sizeof(pmix_proc_t), PX_K_PROC, PX_VS_BOXED),
    [PMIX_APP] = E(sizeof(pmix_app_t), PX_K_APP, PX_VS_NONE),
    [PMIX_INFO] = E(sizeof(pmix_info_t), PX_K_INFO, PX_VS_NONE),
    [PMIX_PDATA] = E(sizeof(pmix_pdata_t), PX_K_PDATA, PX_VS_NONE),
    [PMIX_BUFFER] = E(sizeof(pmix_data_buffer_t), PX_K_DBUF, PX_VS_NONE),
    [PMIX_BYTE_OBJECT] = E(sizeof(pmix_byte_object_t), PX_K_BO, PX_VS_INLINE),
    [PMIX_KVAL] = E(sizeof(pmix_info_t), PX_K_INFO, PX_VS_NONE),
    [PMIX_PERSIST] = UI(pmix_persistence_t),
    [PMIX_POINTER] = E(sizeof(void *), PX_K_POINTER, PX_VS_INLINE),
    [PMIX_SCOPE] = UI(pmix_scope_t),
    [PMIX_DATA_RANGE] = UI(pmix_data_range_t),
    [PMIX_COMMAND] = UI(uint8_t),
    [PMIX_INFO_DIRECTIVES] = UI(pmix_info_directives_t),
    [PMIX_DATA_TYPE] = UI(pmix_data_type_t),
    [PMIX_PROC_STATE] = UI(pmix_proc_state_t),
    [PMIX_PROC_INFO] = E(sizeof(pmix_proc_info_t), PX_K_PINFO, PX_VS_BOXED),
    [PMIX_DATA_ARRAY] = E(sizeof(pmix_data_array_t), PX_K_DARRAY, PX_VS_BOXED),
    [PMIX_PROC_RANK] = UI(pmix_rank_t),
    [PMIX_QUERY] = E(sizeof(pmix_query_t), PX_K_QUERY, PX_VS_NONE),
    [PMIX_COMPRESSED_STRING] = E(sizeof(pmix_byte_object_t), PX_K_BO, PX_VS_INLINE),
    [PMIX_ALLOC_DIRECTIVE] = UI(pmix_alloc_directive_t),
    [PMIX_IOF_CHANNEL] = UI(pmix_iof_channel_t),
    [PMIX_ENVAR] = E(sizeof(pmix_envar_t), PX_K_ENVAR, PX_VS_INLINE),
    [PMIX_COORD] = E(sizeof(pmix_coord_t), PX_K_COORD, PX_VS_BOXED),
    [PMIX_REGATTR] = E(sizeof(pmix_regattr_t), PX_K_REGATTR, PX_VS_NONE),
    [PMIX_REGEX] = E(sizeof(char *), PX_K_STRING, PX_VS_INLINE),
    [PMIX_JOB_STATE] = UI(pmix_job_state_t),
    [PMIX_LINK_STATE] = UI(pmix_link_state_t),
    [PMIX_PROC_CPUSET] = E(sizeof(pmix_cpuset_t), PX_K_CPUSET, PX_VS_BOXED),
    [PMIX_GEOMETRY] = E(sizeof(pmix_geometry_t), PX_K_GEOMETRY, PX_VS_BOXED),
    [PMIX_DEVICE_DIST] = E(sizeof(pmix_device_distance_t), PX_K_DEVDIST, PX_VS_BOXED),
    [PMIX_ENDPOINT] = E(sizeof(pmix_endpoint_t), PX_K_ENDPOINT, PX_VS_BOXED),
    [PMIX_TOPO] = E(sizeof(pmix_topology_t), PX_K_TOPO, PX_VS_BOXED),
    [PMIX_DEVTYPE] = UI(pmix_device_type_t),
    [PMIX_LOCTYPE] = UI(pmix_locality_t),
    [PMIX_COMPRESSED_BYTE_OBJECT] = E(sizeof(pmix_byte_object_t), PX_K_BO, PX_VS_INLINE),
    [PMIX_PROC_NSPACE] = E(sizeof(pmix_nspace_t), PX_K_NSPACE, PX_VS_BOXED),
    [PMIX_PROC_STATS] = E(sizeof(pmix_proc_stats_t), PX_K_PSTATS, PX_VS_BOXED),
    [PMIX_DISK_STATS] = E(sizeof(pmix_disk_stats_t), PX_K_DKSTATS, PX_VS_BOXED),
    [PMIX_NET_STATS] = E(sizeof(pmix_net_stats_t), PX_K_NETSTATS, PX_VS_BOXED),
    [PMIX_NODE_STATS] = E(sizeof(pmix_node_stats_t), PX_K_NDSTATS, PX_VS_BOXED),
    [PMIX_DATA_BUFFER] = E(sizeof(pmix_data_buffer_t), PX_K_DBUF, PX_VS_BOXED),
    [PMIX_STOR_MEDIUM] = UI(pmix_storage_medium_t),
    [PMIX_STOR_ACCESS] = UI(pmix_storage_accessibility_t),
    [PMIX_STOR_PERSIST] = UI(pmix_storage_persistence_t),
    [PMIX_STOR_ACCESS_TYPE] = UI(pmix_storage_access_type_t),
    [PMIX_DEVICE] = E(sizeof(pmix_device_t), PX_K_DEVICE, PX_VS_BOXED),
    [PMIX_RESBLOCK_DIRECTIVE] = UI(pmix_resource_block_directive_t),
    [PMIX_RESOURCE_UNIT] = E(sizeof(pmix_resource_unit_t), PX_K_RESUNIT, PX_VS_BOXED),
    [PMIX_NODE_PID] = E(sizeof(pmix_node_pid_t), PX_K_NODEPID, PX_VS_BOXED),
    [PMIX_REGEX2] = E(sizeof(pmix_regex2_t), PX_K_REGEX2, PX_VS_BOXED),
    [PMIX_ALLOC_INHERIT] = UI(pmix_alloc_inheritance_t),
};

#undef E
#undef SI
#undef UI

static const struct px_type_entry *px_type_entry(pmix_data_type_t t)
{
    if (t >= PX_TYPE_TABLE_LEN || PX_K_UNKNOWN == px_type_table[t].kind) {
        return NULL;
    }
    return &px_type_table[t];
}

size_t px_type_size(pmix_data_type_t t)
{
    const struct px_type_entry *e = px_type_entry(t);

    return NULL == e ? 0 : e->size;
}

bool px_type_known(pmix_data_type_t t)
{
    return NULL != px_type_entry(t);
}

enum px_value_storage px_value_storage(pmix_data_type_t t)
{
    const struct px_type_entry *e = px_type_entry(t);

    return NULL == e ? PX_VS_NONE : e->vs;
}

pmix_data_type_t px_type_in_value(pmix_data_type_t t)
{
    return PMIX_REGEX == t ? PMIX_BYTE_OBJECT : t;
}

bool px_type_is_number(pmix_data_type_t t)
{
    switch (t) {
    case PMIX_SIZE:
    case PMIX_PID:
    case PMIX_INT:
    case PMIX_INT8:
    case PMIX_INT16:
    case PMIX_INT32:
    case PMIX_INT64:
    case PMIX_UINT:
    case PMIX_UINT8:
    case PMIX_UINT16:
    case PMIX_UINT32:
    case PMIX_UINT64:
    case PMIX_FLOAT:
    case PMIX_DOUBLE:
    case PMIX_PROC_RANK:
        return true;
    default:
        return false;
    }
}

/* ---- small shared helpers ---- */

bool px_types_strdup(char **dest, const char *src)
{
    *dest = NULL;
    if (NULL == src) {
        return true;
    }
    *dest = strdup(src);
    return NULL != *dest;
}

void px_types_argv_free(char **argv)
{
    if (NULL == argv) {
        return;
    }
    for (char **p = argv; NULL != *p; p++) {
        free(*p);
    }
    free(argv);
}

pmix_status_t px_types_argv_copy(char ***dest, char *const *src)
{
    size_t n = 0;
    char **out;

    *dest = NULL;
    if (NULL == src) {
        return PMIX_SUCCESS;
    }
    while (NULL != src[n]) {
        n++;
    }
    out = calloc(n + 1, sizeof(char *));
    if (NULL == out) {
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        out[i] = strdup(src[i]);
        if (NULL == out[i]) {
            px_types_argv_free(out);
            return PMIX_ERR_NOMEM;
        }
    }
    *dest = out;
    return PMIX_SUCCESS;
}

static size_t px_str_bytes(const char *s)
{
    return NULL == s ? 0 : strlen(s) + 1;
}

static size_t px_argv_bytes(char *const *argv)
{
    size_t n = 0;

    if (NULL == argv) {
        return 0;
    }
    for (char *const *p = argv; NULL != *p; p++) {
        n += sizeof(char *) + strlen(*p) + 1;
    }
    return n + sizeof(char *);
}

/* Copy a byte object's bytes (an empty or NULL source gives an empty object). */
static pmix_status_t px_bo_copy(pmix_byte_object_t *d, const pmix_byte_object_t *s)
{
    d->bytes = NULL;
    d->size = 0;
    if (NULL == s->bytes || 0 == s->size) {
        return PMIX_SUCCESS;
    }
    d->bytes = malloc(s->size);
    if (NULL == d->bytes) {
        return PMIX_ERR_NOMEM;
    }
    memcpy(d->bytes, s->bytes, s->size);
    d->size = s->size;
    return PMIX_SUCCESS;
}

static void px_bo_release(pmix_byte_object_t *b)
{
    free(b->bytes);
    b->bytes = NULL;
    b->size = 0;
}

/* ---- construct ---- */

void px_type_construct(void *elem, pmix_data_type_t t)
{
    const struct px_type_entry *e = px_type_entry(t);

    if (NULL == elem || NULL == e) {
        return;
    }
    memset(elem, 0, e->size);
    switch (e->kind) {
    case PX_K_PROC:
        ((pmix_proc_t *)elem)->rank = PMIX_RANK_UNDEF;
        break;
    case PX_K_PINFO:
        ((pmix_proc_info_t *)elem)->proc.rank = PMIX_RANK_UNDEF;
        break;
    case PX_K_PDATA:
        ((pmix_pdata_t *)elem)->proc.rank = PMIX_RANK_UNDEF;
        break;
    case PX_K_PSTATS:
        ((pmix_proc_stats_t *)elem)->proc.rank = PMIX_RANK_UNDEF;
        break;
    case PX_K_DEVDIST:
        ((pmix_device_distance_t *)elem)->mindist = UINT16_MAX;
        ((pmix_device_distance_t *)elem)->maxdist = UINT16_MAX;
        break;
    case PX_K_NODEPID:
        ((pmix_node_pid_t *)elem)->nodeid = UINT32_MAX;
        ((pmix_node_pid_t *)elem)->pid = -1;
        break;
    default:
        break;
    }
}

void px_type_construct_n(void *array, size_t n, pmix_data_type_t t)
{
    size_t sz = px_type_size(t);

    if (NULL == array) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        px_type_construct((char *)array + i * sz, t);
    }
}

void *px_type_alloc_n(size_t n, pmix_data_type_t t)
{
    size_t sz = px_type_size(t);
    void *a;

    if (0 == n || 0 == sz) {
        return NULL;
    }
    a = calloc(n, sz);
    if (NULL != a) {
        px_type_construct_n(a, n, t);
    }
    return a;
}

/* ---- destruct ---- */

static void px_darray_release(pmix_data_array_t *d)
{
    px_type_destruct_n(d->array, d->size, d->type);
    free(d->array);
    d->array = NULL;
    d->size = 0;
}

static void px_coord_release(pmix_coord_t *c)
{
    free(c->coord);
    c->coord = NULL;
    c->dims = 0;
    c->view = PMIX_COORD_VIEW_UNDEF;
}

void px_type_destruct(void *elem, pmix_data_type_t t)
{
    const struct px_type_entry *e = px_type_entry(t);

    if (NULL == elem || NULL == e) {
        return;
    }
    switch (e->kind) {
    case PX_K_STRING:
        free(*(char **)elem);
        break;
    case PX_K_VALUE:
        px_value_release(elem);
        break;
    case PX_K_APP: {
        pmix_app_t *a = elem;
        free(a->cmd);
        px_types_argv_free(a->argv);
        px_types_argv_free(a->env);
        free(a->cwd);
        px_type_destruct_n(a->info, a->ninfo, PMIX_INFO);
        free(a->info);
        break;
    }
    case PX_K_INFO:
        px_info_release(elem);
        break;
    case PX_K_PDATA:
        px_value_release(&((pmix_pdata_t *)elem)->value);
        break;
    case PX_K_BO:
        px_bo_release(elem);
        break;
    case PX_K_PINFO:
        free(((pmix_proc_info_t *)elem)->hostname);
        free(((pmix_proc_info_t *)elem)->executable_name);
        break;
    case PX_K_DARRAY:
        px_darray_release(elem);
        break;
    case PX_K_QUERY: {
        pmix_query_t *q = elem;
        px_types_argv_free(q->keys);
        px_type_destruct_n(q->qualifiers, q->nqual, PMIX_INFO);
        free(q->qualifiers);
        break;
    }
    case PX_K_ENVAR:
        free(((pmix_envar_t *)elem)->envar);
        free(((pmix_envar_t *)elem)->value);
        break;
    case PX_K_COORD:
        px_coord_release(elem);
        break;
    case PX_K_REGATTR:
        free(((pmix_regattr_t *)elem)->name);
        px_types_argv_free(((pmix_regattr_t *)elem)->description);
        break;
    case PX_K_CPUSET:
        px_hw_cpuset_release(elem);
        break;
    case PX_K_TOPO:
        px_hw_topology_release(elem);
        break;
    case PX_K_GEOMETRY: {
        pmix_geometry_t *g = elem;
        free(g->uuid);
        free(g->osname);
        px_type_destruct_n(g->coordinates, g->ncoords, PMIX_COORD);
        free(g->coordinates);
        break;
    }
    case PX_K_DEVDIST:
        free(((pmix_device_distance_t *)elem)->uuid);
        free(((pmix_device_distance_t *)elem)->osname);
        break;
    case PX_K_ENDPOINT:
        free(((pmix_endpoint_t *)elem)->uuid);
        free(((pmix_endpoint_t *)elem)->osname);
        px_bo_release(&((pmix_endpoint_t *)elem)->endpt);
        break;
    case PX_K_PSTATS:
        free(((pmix_proc_stats_t *)elem)->node);
        free(((pmix_proc_stats_t *)elem)->cmd);
        break;
    case PX_K_DKSTATS:
        free(((pmix_disk_stats_t *)elem)->disk);
        break;
    case PX_K_NETSTATS:
        free(((pmix_net_stats_t *)elem)->net_interface);
        break;
    case PX_K_NDSTATS: {
        pmix_node_stats_t *n = elem;
        free(n->node);
        px_type_destruct_n(n->diskstats, n->ndiskstats, PMIX_DISK_STATS);
        free(n->diskstats);
        px_type_destruct_n(n->netstats, n->nnetstats, PMIX_NET_STATS);
        free(n->netstats);
        break;
    }
    case PX_K_DBUF:
        free(((pmix_data_buffer_t *)elem)->base_ptr);
        break;
    case PX_K_DEVICE:
        free(((pmix_device_t *)elem)->uuid);
        free(((pmix_device_t *)elem)->osname);
        break;
    case PX_K_NODEPID:
        free(((pmix_node_pid_t *)elem)->hostname);
        break;
    case PX_K_REGEX2:
        free(((pmix_regex2_t *)elem)->type);
        free(((pmix_regex2_t *)elem)->bytes);
        break;
    default:
        /* scalars, procs, timevals, pointers, nspaces, resource units own nothing */
        break;
    }
    px_type_construct(elem, t);
}

void px_type_destruct_n(void *array, size_t n, pmix_data_type_t t)
{
    size_t sz = px_type_size(t);

    if (NULL == array) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        px_type_destruct((char *)array + i * sz, t);
    }
}

/* ---- copy ---- */

pmix_status_t px_type_dup_n(void **dest, const void *src, size_t n, pmix_data_type_t t)
{
    size_t sz = px_type_size(t);
    char *out;

    *dest = NULL;
    if (NULL == src || 0 == n) {
        return PMIX_SUCCESS;
    }
    if (0 == sz) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    out = px_type_alloc_n(n, t);
    if (NULL == out) {
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        pmix_status_t rc = px_type_copy(out + i * sz, (const char *)src + i * sz, t);
        if (PMIX_SUCCESS != rc) {
            px_type_destruct_n(out, i, t);
            free(out);
            return rc;
        }
    }
    *dest = out;
    return PMIX_SUCCESS;
}

static pmix_status_t px_darray_copy(pmix_data_array_t *d, const pmix_data_array_t *s)
{
    pmix_status_t rc;

    d->type = s->type;
    d->size = 0;
    d->array = NULL;
    if (NULL == s->array || 0 == s->size) {
        return PMIX_SUCCESS;
    }
    rc = px_type_dup_n(&d->array, s->array, s->size, s->type);
    if (PMIX_SUCCESS == rc) {
        d->size = s->size;
    }
    return rc;
}

static pmix_status_t px_coord_copy(pmix_coord_t *d, const pmix_coord_t *s)
{
    d->view = s->view;
    if (NULL == s->coord || 0 == s->dims) {
        return PMIX_SUCCESS;
    }
    d->coord = malloc(s->dims * sizeof(uint32_t));
    if (NULL == d->coord) {
        return PMIX_ERR_NOMEM;
    }
    memcpy(d->coord, s->coord, s->dims * sizeof(uint32_t));
    d->dims = s->dims;
    return PMIX_SUCCESS;
}

static pmix_status_t px_dbuf_copy(pmix_data_buffer_t *d, const pmix_data_buffer_t *s)
{
    if (NULL == s->base_ptr || 0 == s->bytes_allocated) {
        return PMIX_SUCCESS;
    }
    d->base_ptr = malloc(s->bytes_allocated);
    if (NULL == d->base_ptr) {
        return PMIX_ERR_NOMEM;
    }
    memcpy(d->base_ptr, s->base_ptr, s->bytes_used);
    d->bytes_allocated = s->bytes_allocated;
    d->bytes_used = s->bytes_used;
    d->pack_ptr = NULL == s->pack_ptr ? NULL : d->base_ptr + (s->pack_ptr - s->base_ptr);
    d->unpack_ptr = NULL == s->unpack_ptr ? NULL : d->base_ptr + (s->unpack_ptr - s->base_ptr);
    return PMIX_SUCCESS;
}

#define PX_DUP(field)                                                                              \
    do {                                                                                           \
        if (!px_types_strdup(&d->field, s->field)) {                                               \
            goto error;                                                                            \
        }                                                                                          \
    } while (0)

/* Copy of the struct kinds; dest is constructed on entry. Returns 0 or a status; on
 * error the caller destructs dest (every owned field assigned so far is dest's own). */
static pmix_status_t px_copy_struct(void *dest, const void *src, enum px_kind kind)
{
    pmix_status_t rc = PMIX_ERR_NOMEM;

    switch (kind) {
    case PX_K_STRING:
        if (!px_types_strdup(dest, *(char *const *)src)) {
            goto error;
        }
        break;
    case PX_K_VALUE:
        return px_value_copy(dest, src);
    case PX_K_INFO:
        return px_info_copy(dest, src);
    case PX_K_PDATA: {
        pmix_pdata_t *d = dest;
        const pmix_pdata_t *s = src;
        memcpy(&d->proc, &s->proc, sizeof(d->proc));
        memcpy(d->key, s->key, sizeof(d->key));
        return px_value_copy(&d->value, &s->value);
    }
    case PX_K_APP: {
        pmix_app_t *d = dest;
        const pmix_app_t *s = src;
        PX_DUP(cmd);
        PX_DUP(cwd);
        d->maxprocs = s->maxprocs;
        if (PMIX_SUCCESS != (rc = px_types_argv_copy(&d->argv, s->argv)) ||
            PMIX_SUCCESS != (rc = px_types_argv_copy(&d->env, s->env)) ||
            PMIX_SUCCESS != (rc = px_type_dup_n((void **)&d->info, s->info, s->ninfo, PMIX_INFO))) {
            goto error;
        }
        d->ninfo = NULL == d->info ? 0 : s->ninfo;
        break;
    }
    case PX_K_BO:
        return px_bo_copy(dest, src);
    case PX_K_PINFO: {
        pmix_proc_info_t *d = dest;
        const pmix_proc_info_t *s = src;
        memcpy(&d->proc, &s->proc, sizeof(d->proc));
        d->pid = s->pid;
        d->exit_code = s->exit_code;
        d->state = s->state;
        PX_DUP(hostname);
        PX_DUP(executable_name);
        break;
    }
    case PX_K_DARRAY:
        return px_darray_copy(dest, src);
    case PX_K_QUERY: {
        pmix_query_t *d = dest;
        const pmix_query_t *s = src;
        if (PMIX_SUCCESS != (rc = px_types_argv_copy(&d->keys, s->keys)) ||
            PMIX_SUCCESS !=
                (rc = px_type_dup_n((void **)&d->qualifiers, s->qualifiers, s->nqual, PMIX_INFO))) {
            goto error;
        }
        d->nqual = NULL == d->qualifiers ? 0 : s->nqual;
        break;
    }
    case PX_K_ENVAR: {
        pmix_envar_t *d = dest;
        const pmix_envar_t *s = src;
        d->separator = s->separator;
        PX_DUP(envar);
        PX_DUP(value);
        break;
    }
    case PX_K_COORD:
        return px_coord_copy(dest, src);
    case PX_K_REGATTR: {
        pmix_regattr_t *d = dest;
        const pmix_regattr_t *s = src;
        memcpy(d->string, s->string, sizeof(d->string));
        d->type = s->type;
        PX_DUP(name);
        if (PMIX_SUCCESS != (rc = px_types_argv_copy(&d->description, s->description))) {
            goto error;
        }
        break;
    }
    case PX_K_CPUSET:
        return px_hw_cpuset_copy(dest, src);
    case PX_K_TOPO:
        return px_hw_topology_copy(dest, src);
    case PX_K_GEOMETRY: {
        pmix_geometry_t *d = dest;
        const pmix_geometry_t *s = src;
        d->fabric = s->fabric;
        PX_DUP(uuid);
        PX_DUP(osname);
        rc = px_type_dup_n((void **)&d->coordinates, s->coordinates, s->ncoords, PMIX_COORD);
        if (PMIX_SUCCESS != rc) {
            goto error;
        }
        d->ncoords = NULL == d->coordinates ? 0 : s->ncoords;
        break;
    }
    case PX_K_DEVDIST: {
        pmix_device_distance_t *d = dest;
        const pmix_device_distance_t *s = src;
        d->type = s->type;
        d->mindist = s->mindist;
        d->maxdist = s->maxdist;
        PX_DUP(uuid);
        PX_DUP(osname);
        break;
    }
    case PX_K_ENDPOINT: {
        pmix_endpoint_t *d = dest;
        const pmix_endpoint_t *s = src;
        PX_DUP(uuid);
        PX_DUP(osname);
        if (PMIX_SUCCESS != (rc = px_bo_copy(&d->endpt, &s->endpt))) {
            goto error;
        }
        break;
    }
    case PX_K_NSPACE:
        /* both are full pmix_nspace_t storage; keep it NUL-terminated */
        memcpy(dest, src, sizeof(pmix_nspace_t));
        ((char *)dest)[PMIX_MAX_NSLEN] = '\0';
        break;
    case PX_K_PSTATS: {
        pmix_proc_stats_t *d = dest;
        const pmix_proc_stats_t *s = src;
        memcpy(d, s, sizeof(*d));
        d->node = NULL;
        d->cmd = NULL;
        PX_DUP(node);
        PX_DUP(cmd);
        break;
    }
    case PX_K_DKSTATS: {
        pmix_disk_stats_t *d = dest;
        const pmix_disk_stats_t *s = src;
        memcpy(d, s, sizeof(*d));
        d->disk = NULL;
        PX_DUP(disk);
        break;
    }
    case PX_K_NETSTATS: {
        pmix_net_stats_t *d = dest;
        const pmix_net_stats_t *s = src;
        memcpy(d, s, sizeof(*d));
        d->net_interface = NULL;
        PX_DUP(net_interface);
        break;
    }
    case PX_K_NDSTATS: {
        pmix_node_stats_t *d = dest;
        const pmix_node_stats_t *s = src;
        memcpy(d, s, sizeof(*d));
        d->node = NULL;
        d->diskstats = NULL;
        d->ndiskstats = 0;
        d->netstats = NULL;
        d->nnetstats = 0;
        PX_DUP(node);
        rc = px_type_dup_n((void **)&d->diskstats, s->diskstats, s->ndiskstats, PMIX_DISK_STATS);
        if (PMIX_SUCCESS != rc) {
            goto error;
        }
        d->ndiskstats = NULL == d->diskstats ? 0 : s->ndiskstats;
        rc = px_type_dup_n((void **)&d->netstats, s->netstats, s->nnetstats, PMIX_NET_STATS);
        if (PMIX_SUCCESS != rc) {
            goto error;
        }
        d->nnetstats = NULL == d->netstats ? 0 : s->nnetstats;
        break;
    }
    case PX_K_DBUF:
        return px_dbuf_copy(dest, src);
    case PX_K_DEVICE: {
        pmix_device_t *d = dest;
        const pmix_device_t *s = src;
        d->type = s->type;
        PX_DUP(uuid);
        PX_DUP(osname);
        break;
    }
    case PX_K_NODEPID: {
        pmix_node_pid_t *d = dest;
        const pmix_node_pid_t *s = src;
        d->nodeid = s->nodeid;
        d->pid = s->pid;
        PX_DUP(hostname);
        break;
    }
    case PX_K_REGEX2: {
        pmix_regex2_t *d = dest;
        const pmix_regex2_t *s = src;
        PX_DUP(type);
        if (NULL != s->bytes && 0 < s->len) {
            d->bytes = malloc(s->len);
            if (NULL == d->bytes) {
                goto error;
            }
            memcpy(d->bytes, s->bytes, s->len);
            d->len = s->len;
        }
        break;
    }
    default:
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    return PMIX_SUCCESS;

error:
    return rc;
}

#undef PX_DUP

pmix_status_t px_type_copy(void *dest, const void *src, pmix_data_type_t t)
{
    const struct px_type_entry *e = px_type_entry(t);
    pmix_status_t rc;

    if (NULL == dest || NULL == src) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (NULL == e) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    switch (e->kind) {
    case PX_K_BOOL:
    case PX_K_SINT:
    case PX_K_UINT:
    case PX_K_FLT:
    case PX_K_TIMEVAL:
    case PX_K_PROC:
    case PX_K_POINTER:
    case PX_K_RESUNIT:
        memmove(dest, src, e->size);
        return PMIX_SUCCESS;
    default:
        break;
    }
    px_type_construct(dest, t);
    rc = px_copy_struct(dest, src, e->kind);
    if (PMIX_SUCCESS != rc) {
        px_type_destruct(dest, t);
    }
    return rc;
}

/* ---- compare ---- */

static int64_t px_read_sint(const void *p, size_t sz)
{
    switch (sz) {
    case 1:
        return *(const int8_t *)p;
    case 2:
        return *(const int16_t *)p;
    case 4:
        return *(const int32_t *)p;
    default:
        return *(const int64_t *)p;
    }
}

static uint64_t px_read_uint(const void *p, size_t sz)
{
    switch (sz) {
    case 1:
        return *(const uint8_t *)p;
    case 2:
        return *(const uint16_t *)p;
    case 4:
        return *(const uint32_t *)p;
    default:
        return *(const uint64_t *)p;
    }
}

#define PX_CMP3(a, b)                                                                              \
    ((a) == (b) ? PMIX_EQUAL : (a) > (b) ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER)

static pmix_value_cmp_t px_str_cmp(const char *a, const char *b)
{
    int c;

    if (NULL == a || NULL == b) {
        return NULL == a && NULL == b ? PMIX_EQUAL
               : NULL == a            ? PMIX_VALUE2_GREATER
                                      : PMIX_VALUE1_GREATER;
    }
    c = strcmp(a, b);
    return PX_CMP3(c, 0);
}

static pmix_value_cmp_t px_bytes_cmp(const void *a, size_t na, const void *b, size_t nb)
{
    int c;

    if (na != nb) {
        return PX_CMP3(na, nb);
    }
    if (0 == na || a == b) {
        return PMIX_EQUAL;
    }
    if (NULL == a || NULL == b) {
        return NULL == a ? PMIX_VALUE2_GREATER : PMIX_VALUE1_GREATER;
    }
    c = memcmp(a, b, na);
    return PX_CMP3(c, 0);
}

static pmix_value_cmp_t px_proc_cmp(const pmix_proc_t *a, const pmix_proc_t *b)
{
    int c = strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN);

    if (0 != c) {
        return PX_CMP3(c, 0);
    }
    return PX_CMP3(a->rank, b->rank);
}

static pmix_value_cmp_t px_darray_cmp(const pmix_data_array_t *a, const pmix_data_array_t *b)
{
    size_t sz = px_type_size(a->type);
    size_t na = NULL == a->array ? 0 : a->size;
    size_t nb = NULL == b->array ? 0 : b->size;

    if (a->type != b->type) {
        return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
    }
    if (na != nb) {
        return PX_CMP3(na, nb);
    }
    for (size_t i = 0; i < na; i++) {
        pmix_value_cmp_t c = px_type_compare((const char *)a->array + i * sz,
                                             (const char *)b->array + i * sz, a->type);
        if (PMIX_EQUAL != c) {
            return c;
        }
    }
    return PMIX_EQUAL;
}

/* Element-wise order of two arrays of n elements (a missing array counts as empty). */
static pmix_value_cmp_t px_array_cmp(const void *a, size_t na, const void *b, size_t nb,
                                     pmix_data_type_t t)
{
    pmix_data_array_t x = {t, NULL == a ? 0 : na, (void *)a};
    pmix_data_array_t y = {t, NULL == b ? 0 : nb, (void *)b};

    return px_darray_cmp(&x, &y);
}

static pmix_value_cmp_t px_argv_cmp(char *const *a, char *const *b)
{
    size_t i = 0;

    if (NULL == a || NULL == b) {
        return a == b ? PMIX_EQUAL : NULL == a ? PMIX_VALUE2_GREATER : PMIX_VALUE1_GREATER;
    }
    for (; NULL != a[i] && NULL != b[i]; i++) {
        pmix_value_cmp_t c = px_str_cmp(a[i], b[i]);
        if (PMIX_EQUAL != c) {
            return c;
        }
    }
    return NULL == a[i] && NULL == b[i] ? PMIX_EQUAL
           : NULL == a[i]               ? PMIX_VALUE2_GREATER
                                        : PMIX_VALUE1_GREATER;
}

/* Structures of measurements without a meaningful order: equal bytes or not comparable. */
static pmix_value_cmp_t px_flat_eq(const void *a, const void *b, size_t n)
{
    return 0 == memcmp(a, b, n) ? PMIX_EQUAL : PMIX_VALUE_COMPARISON_NOT_AVAIL;
}

pmix_value_cmp_t px_type_compare(const void *a, const void *b, pmix_data_type_t t)
{
    const struct px_type_entry *e = px_type_entry(t);
    pmix_value_cmp_t c;

    if (NULL == e) {
        return PMIX_VALUE_COMPARISON_NOT_AVAIL;
    }
    if (NULL == a || NULL == b) {
        return a == b ? PMIX_EQUAL : NULL == a ? PMIX_VALUE2_GREATER : PMIX_VALUE1_GREATER;
    }
    switch (e->kind) {
    case PX_K_BOOL:
        return PX_CMP3(*(const bool *)a, *(const bool *)b);
    case PX_K_SINT:
        return PX_CMP3(px_read_sint(a, e->size), px_read_sint(b, e->size));
    case PX_K_UINT:
        return PX_CMP3(px_read_uint(a, e->size), px_read_uint(b, e->size));
    case PX_K_FLT:
        if (PMIX_FLOAT == t) {
            float x = *(const float *)a, y = *(const float *)b;
            return x == y  ? PMIX_EQUAL
                   : x > y ? PMIX_VALUE1_GREATER
                   : x < y ? PMIX_VALUE2_GREATER
                           : PMIX_VALUE_COMPARISON_NOT_AVAIL;
        } else {
            double x = *(const double *)a, y = *(const double *)b;
            return x == y  ? PMIX_EQUAL
                   : x > y ? PMIX_VALUE1_GREATER
                   : x < y ? PMIX_VALUE2_GREATER
                           : PMIX_VALUE_COMPARISON_NOT_AVAIL;
        }
    case PX_K_TIMEVAL: {
        const struct timeval *x = a, *y = b;
        if (x->tv_sec != y->tv_sec) {
            return PX_CMP3(x->tv_sec, y->tv_sec);
        }
        return PX_CMP3(x->tv_usec, y->tv_usec);
    }
    case PX_K_STRING:
        return px_str_cmp(*(char *const *)a, *(char *const *)b);
    case PX_K_NSPACE: {
        int r = strncmp(a, b, PMIX_MAX_NSLEN);
        return PX_CMP3(r, 0);
    }
    case PX_K_VALUE:
        return px_value_cmp(a, b);
    case PX_K_INFO: {
        int r =
            strncmp(((const pmix_info_t *)a)->key, ((const pmix_info_t *)b)->key, PMIX_MAX_KEYLEN);
        if (0 != r) {
            return PX_CMP3(r, 0);
        }
        return px_value_cmp(&((const pmix_info_t *)a)->value, &((const pmix_info_t *)b)->value);
    }
    case PX_K_PDATA: {
        const pmix_pdata_t *x = a, *y = b;
        int r;
        if (PMIX_EQUAL != (c = px_proc_cmp(&x->proc, &y->proc))) {
            return c;
        }
        r = strncmp(x->key, y->key, PMIX_MAX_KEYLEN);
        if (0 != r) {
            return PX_CMP3(r, 0);
        }
        return px_value_cmp(&x->value, &y->value);
    }
    case PX_K_PROC:
        return px_proc_cmp(a, b);
    case PX_K_BO: {
        const pmix_byte_object_t *x = a, *y = b;
        return px_bytes_cmp(x->bytes, x->size, y->bytes, y->size);
    }
    case PX_K_DARRAY:
        return px_darray_cmp(a, b);
    case PX_K_ENVAR: {
        const pmix_envar_t *x = a, *y = b;
        if (PMIX_EQUAL != (c = px_str_cmp(x->envar, y->envar)) ||
            PMIX_EQUAL != (c = px_str_cmp(x->value, y->value))) {
            return c;
        }
        return PX_CMP3(x->separator, y->separator);
    }
    case PX_K_COORD: {
        const pmix_coord_t *x = a, *y = b;
        if (x->view != y->view) {
            return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
        }
        return px_bytes_cmp(x->coord, x->dims * sizeof(uint32_t), y->coord,
                            y->dims * sizeof(uint32_t));
    }
    case PX_K_PINFO: {
        const pmix_proc_info_t *x = a, *y = b;
        if (PMIX_EQUAL != (c = px_proc_cmp(&x->proc, &y->proc)) ||
            PMIX_EQUAL != (c = px_str_cmp(x->hostname, y->hostname)) ||
            PMIX_EQUAL != (c = px_str_cmp(x->executable_name, y->executable_name))) {
            return c;
        }
        if (x->pid != y->pid) {
            return PX_CMP3(x->pid, y->pid);
        }
        if (x->exit_code != y->exit_code) {
            return PX_CMP3(x->exit_code, y->exit_code);
        }
        return PX_CMP3(x->state, y->state);
    }
    case PX_K_REGATTR: {
        const pmix_regattr_t *x = a, *y = b;
        int r = strncmp(x->string, y->string, PMIX_MAX_KEYLEN);
        if (0 != r) {
            return PX_CMP3(r, 0);
        }
        return px_str_cmp(x->name, y->name);
    }
    case PX_K_DEVDIST: {
        const pmix_device_distance_t *x = a, *y = b;
        if (PMIX_EQUAL != (c = px_str_cmp(x->uuid, y->uuid)) ||
            PMIX_EQUAL != (c = px_str_cmp(x->osname, y->osname))) {
            return c;
        }
        if (x->type != y->type) {
            return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
        }
        if (x->mindist != y->mindist) {
            return PX_CMP3(x->mindist, y->mindist);
        }
        return PX_CMP3(x->maxdist, y->maxdist);
    }
    case PX_K_ENDPOINT: {
        const pmix_endpoint_t *x = a, *y = b;
        if (PMIX_EQUAL != (c = px_str_cmp(x->uuid, y->uuid)) ||
            PMIX_EQUAL != (c = px_str_cmp(x->osname, y->osname))) {
            return c;
        }
        return px_bytes_cmp(x->endpt.bytes, x->endpt.size, y->endpt.bytes, y->endpt.size);
    }
    case PX_K_DEVICE: {
        const pmix_device_t *x = a, *y = b;
        if (PMIX_EQUAL != (c = px_str_cmp(x->uuid, y->uuid)) ||
            PMIX_EQUAL != (c = px_str_cmp(x->osname, y->osname))) {
            return c;
        }
        return x->type == y->type ? PMIX_EQUAL : PMIX_VALUE_INCOMPATIBLE_OBJECTS;
    }
    case PX_K_RESUNIT: {
        const pmix_resource_unit_t *x = a, *y = b;
        if (x->type != y->type) {
            return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
        }
        return PX_CMP3(x->count, y->count);
    }
    case PX_K_NODEPID: {
        const pmix_node_pid_t *x = a, *y = b;
        if (PMIX_EQUAL != (c = px_str_cmp(x->hostname, y->hostname))) {
            return c;
        }
        if (x->nodeid != y->nodeid) {
            return PX_CMP3(x->nodeid, y->nodeid);
        }
        return PX_CMP3(x->pid, y->pid);
    }
    case PX_K_REGEX2: {
        const pmix_regex2_t *x = a, *y = b;
        if (PMIX_EQUAL != (c = px_str_cmp(x->type, y->type))) {
            return c;
        }
        return px_bytes_cmp(x->bytes, x->len, y->bytes, y->len);
    }
    case PX_K_POINTER:
        return *(void *const *)a == *(void *const *)b ? PMIX_EQUAL
                                                      : PMIX_VALUE_COMPARISON_NOT_AVAIL;
    case PX_K_APP: {
        const pmix_app_t *x = a, *y = b;
        if (PMIX_EQUAL != (c = px_str_cmp(x->cmd, y->cmd)) ||
            PMIX_EQUAL != (c = px_argv_cmp(x->argv, y->argv)) ||
            PMIX_EQUAL != (c = px_argv_cmp(x->env, y->env)) ||
            PMIX_EQUAL != (c = px_str_cmp(x->cwd, y->cwd))) {
            return c;
        }
        if (x->maxprocs != y->maxprocs) {
            return PX_CMP3(x->maxprocs, y->maxprocs);
        }
        return px_array_cmp(x->info, x->ninfo, y->info, y->ninfo, PMIX_INFO);
    }
    case PX_K_QUERY: {
        const pmix_query_t *x = a, *y = b;
        if (PMIX_EQUAL != (c = px_argv_cmp(x->keys, y->keys))) {
            return c;
        }
        return px_array_cmp(x->qualifiers, x->nqual, y->qualifiers, y->nqual, PMIX_INFO);
    }
    case PX_K_CPUSET:
        return px_hw_cpuset_cmp(a, b);
    case PX_K_TOPO:
        return px_hw_topology_cmp(a, b);
    case PX_K_GEOMETRY: {
        const pmix_geometry_t *x = a, *y = b;
        if (x->fabric != y->fabric) {
            return PX_CMP3(x->fabric, y->fabric);
        }
        if (PMIX_EQUAL != (c = px_str_cmp(x->uuid, y->uuid)) ||
            PMIX_EQUAL != (c = px_str_cmp(x->osname, y->osname))) {
            return c;
        }
        return px_array_cmp(x->coordinates, x->ncoords, y->coordinates, y->ncoords, PMIX_COORD);
    }
    case PX_K_PSTATS: {
        pmix_proc_stats_t x, y;
        memcpy(&x, a, sizeof(x));
        memcpy(&y, b, sizeof(y));
        if (PMIX_EQUAL != (c = px_str_cmp(x.node, y.node)) ||
            PMIX_EQUAL != (c = px_str_cmp(x.cmd, y.cmd))) {
            return c;
        }
        x.node = y.node = x.cmd = y.cmd = NULL;
        return px_flat_eq(&x, &y, sizeof(x));
    }
    case PX_K_DKSTATS: {
        pmix_disk_stats_t x, y;
        memcpy(&x, a, sizeof(x));
        memcpy(&y, b, sizeof(y));
        if (PMIX_EQUAL != (c = px_str_cmp(x.disk, y.disk))) {
            return c;
        }
        x.disk = y.disk = NULL;
        return px_flat_eq(&x, &y, sizeof(x));
    }
    case PX_K_NETSTATS: {
        pmix_net_stats_t x, y;
        memcpy(&x, a, sizeof(x));
        memcpy(&y, b, sizeof(y));
        if (PMIX_EQUAL != (c = px_str_cmp(x.net_interface, y.net_interface))) {
            return c;
        }
        x.net_interface = y.net_interface = NULL;
        return px_flat_eq(&x, &y, sizeof(x));
    }
    case PX_K_NDSTATS: {
        pmix_node_stats_t x, y;
        memcpy(&x, a, sizeof(x));
        memcpy(&y, b, sizeof(y));
        if (PMIX_EQUAL != (c = px_str_cmp(x.node, y.node)) ||
            PMIX_EQUAL != (c = px_array_cmp(x.diskstats, x.ndiskstats, y.diskstats, y.ndiskstats,
                                            PMIX_DISK_STATS)) ||
            PMIX_EQUAL != (c = px_array_cmp(x.netstats, x.nnetstats, y.netstats, y.nnetstats,
                                            PMIX_NET_STATS))) {
            return c;
        }
        x.node = y.node = NULL;
        x.diskstats = y.diskstats = NULL;
        x.netstats = y.netstats = NULL;
        return px_flat_eq(&x, &y, sizeof(x));
    }
    case PX_K_DBUF: {
        const pmix_data_buffer_t *x = a, *y = b;
        size_t nx = NULL == x->base_ptr ? 0 : x->bytes_used,
               ny = NULL == y->base_ptr ? 0 : y->bytes_used;
        if (PMIX_EQUAL != (c = px_bytes_cmp(x->base_ptr, nx, y->base_ptr, ny))) {
            return c;
        }
        if ((x->pack_ptr - x->base_ptr) != (y->pack_ptr - y->base_ptr) ||
            (x->unpack_ptr - x->base_ptr) != (y->unpack_ptr - y->base_ptr)) {
            return PMIX_VALUE_COMPARISON_NOT_AVAIL;
        }
        return PMIX_EQUAL;
    }
    default:
        return 0 == memcmp(a, b, e->size) ? PMIX_EQUAL : PMIX_VALUE_COMPARISON_NOT_AVAIL;
    }
}

/* ---- footprint ---- */

static size_t px_owned_bytes(const void *elem, pmix_data_type_t t);

static size_t px_owned_bytes_n(const void *array, size_t n, pmix_data_type_t t)
{
    size_t sz = px_type_size(t);
    size_t total;

    if (NULL == array || 0 == sz) {
        return 0;
    }
    total = n * sz;
    for (size_t i = 0; i < n; i++) {
        total += px_owned_bytes((const char *)array + i * sz, t);
    }
    return total;
}

static size_t px_owned_bytes(const void *elem, pmix_data_type_t t)
{
    const struct px_type_entry *e = px_type_entry(t);

    if (NULL == e || NULL == elem) {
        return 0;
    }
    switch (e->kind) {
    case PX_K_STRING:
        return px_str_bytes(*(char *const *)elem);
    case PX_K_VALUE:
        return px_value_owned_bytes(elem);
    case PX_K_INFO:
        if (PMIX_INFO_PERSISTENT & ((const pmix_info_t *)elem)->flags) {
            return 0;
        }
        return px_value_owned_bytes(&((const pmix_info_t *)elem)->value);
    case PX_K_PDATA:
        return px_value_owned_bytes(&((const pmix_pdata_t *)elem)->value);
    case PX_K_APP: {
        const pmix_app_t *a = elem;
        return px_str_bytes(a->cmd) + px_str_bytes(a->cwd) + px_argv_bytes(a->argv) +
               px_argv_bytes(a->env) + px_owned_bytes_n(a->info, a->ninfo, PMIX_INFO);
    }
    case PX_K_BO:
        return NULL == ((const pmix_byte_object_t *)elem)->bytes
                   ? 0
                   : ((const pmix_byte_object_t *)elem)->size;
    case PX_K_PINFO:
        return px_str_bytes(((const pmix_proc_info_t *)elem)->hostname) +
               px_str_bytes(((const pmix_proc_info_t *)elem)->executable_name);
    case PX_K_DARRAY: {
        const pmix_data_array_t *d = elem;
        return px_owned_bytes_n(d->array, d->size, d->type);
    }
    case PX_K_QUERY: {
        const pmix_query_t *q = elem;
        return px_argv_bytes(q->keys) + px_owned_bytes_n(q->qualifiers, q->nqual, PMIX_INFO);
    }
    case PX_K_ENVAR:
        return px_str_bytes(((const pmix_envar_t *)elem)->envar) +
               px_str_bytes(((const pmix_envar_t *)elem)->value);
    case PX_K_COORD:
        return NULL == ((const pmix_coord_t *)elem)->coord
                   ? 0
                   : ((const pmix_coord_t *)elem)->dims * sizeof(uint32_t);
    case PX_K_REGATTR:
        return px_str_bytes(((const pmix_regattr_t *)elem)->name) +
               px_argv_bytes(((const pmix_regattr_t *)elem)->description);
    case PX_K_CPUSET:
        return px_str_bytes(((const pmix_cpuset_t *)elem)->source);
    case PX_K_TOPO:
        return px_str_bytes(((const pmix_topology_t *)elem)->source);
    case PX_K_GEOMETRY: {
        const pmix_geometry_t *g = elem;
        return px_str_bytes(g->uuid) + px_str_bytes(g->osname) +
               px_owned_bytes_n(g->coordinates, g->ncoords, PMIX_COORD);
    }
    case PX_K_DEVDIST:
        return px_str_bytes(((const pmix_device_distance_t *)elem)->uuid) +
               px_str_bytes(((const pmix_device_distance_t *)elem)->osname);
    case PX_K_ENDPOINT: {
        const pmix_endpoint_t *p = elem;
        return px_str_bytes(p->uuid) + px_str_bytes(p->osname) +
               (NULL == p->endpt.bytes ? 0 : p->endpt.size);
    }
    case PX_K_PSTATS:
        return px_str_bytes(((const pmix_proc_stats_t *)elem)->node) +
               px_str_bytes(((const pmix_proc_stats_t *)elem)->cmd);
    case PX_K_DKSTATS:
        return px_str_bytes(((const pmix_disk_stats_t *)elem)->disk);
    case PX_K_NETSTATS:
        return px_str_bytes(((const pmix_net_stats_t *)elem)->net_interface);
    case PX_K_NDSTATS: {
        const pmix_node_stats_t *n = elem;
        return px_str_bytes(n->node) +
               px_owned_bytes_n(n->diskstats, n->ndiskstats, PMIX_DISK_STATS) +
               px_owned_bytes_n(n->netstats, n->nnetstats, PMIX_NET_STATS);
    }
    case PX_K_DBUF:
        return NULL == ((const pmix_data_buffer_t *)elem)->base_ptr
                   ? 0
                   : ((const pmix_data_buffer_t *)elem)->bytes_allocated;
    case PX_K_DEVICE:
        return px_str_bytes(((const pmix_device_t *)elem)->uuid) +
               px_str_bytes(((const pmix_device_t *)elem)->osname);
    case PX_K_NODEPID:
        return px_str_bytes(((const pmix_node_pid_t *)elem)->hostname);
    case PX_K_REGEX2:
        return px_str_bytes(((const pmix_regex2_t *)elem)->type) +
               (NULL == ((const pmix_regex2_t *)elem)->bytes ? 0
                                                             : ((const pmix_regex2_t *)elem)->len);
    default:
        return 0;
    }
}

size_t px_type_footprint(const void *elem, pmix_data_type_t t)
{
    size_t sz = px_type_size(t);

    if (0 == sz) {
        return 0;
    }
    return sz + px_owned_bytes(elem, t);
}
