/* types: the generic element operations of the data-type registry (size, construct,
 * deep copy, destruct; see px_types.h) and the construct/copy/release operations of each
 * structure (rows in px_type_table.c). Pure functions on caller memory; any thread. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "types/px_hwtypes.h"
#include "types/px_type_ops.h"
#include "types/px_types_int.h"

size_t px_type_size(pmix_data_type_t t)
{
    const struct px_type_ops *o = px_type_ops(t);

    return NULL == o ? 0 : o->size;
}

bool px_type_known(pmix_data_type_t t)
{
    return NULL != px_type_ops(t);
}

enum px_value_storage px_value_storage(pmix_data_type_t t)
{
    const struct px_type_ops *o = px_type_ops(t);

    return NULL == o ? PX_VS_NONE : (enum px_value_storage)o->vs;
}

pmix_data_type_t px_type_in_value(pmix_data_type_t t)
{
    return PMIX_REGEX == t ? PMIX_BYTE_OBJECT : t;
}

const char *px_value_regex_text(const pmix_value_t *v)
{
    if (v == NULL || v->type != PMIX_REGEX) {
        return NULL;
    }
    const pmix_byte_object_t *bo = &v->data.bo;
    if (bo->bytes == NULL || bo->size == 0 ||
        memchr(bo->bytes, '\0', bo->size) != bo->bytes + bo->size - 1) {
        return NULL;
    }
    return bo->bytes;
}

bool px_type_is_number(pmix_data_type_t t)
{
    const struct px_type_ops *o = px_type_ops(t);

    return NULL != o && o->number;
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

/* ---- construct ---- */

void px_types_init_proc(void *e)
{
    ((pmix_proc_t *)e)->rank = PMIX_RANK_UNDEF;
}

void px_types_init_pinfo(void *e)
{
    ((pmix_proc_info_t *)e)->proc.rank = PMIX_RANK_UNDEF;
}

void px_types_init_pdata(void *e)
{
    ((pmix_pdata_t *)e)->proc.rank = PMIX_RANK_UNDEF;
}

void px_types_init_pstats(void *e)
{
    ((pmix_proc_stats_t *)e)->proc.rank = PMIX_RANK_UNDEF;
}

void px_types_init_devdist(void *e)
{
    ((pmix_device_distance_t *)e)->mindist = UINT16_MAX;
    ((pmix_device_distance_t *)e)->maxdist = UINT16_MAX;
}

void px_types_init_nodepid(void *e)
{
    ((pmix_node_pid_t *)e)->nodeid = UINT32_MAX;
    ((pmix_node_pid_t *)e)->pid = -1;
}

static void px_construct_with(void *elem, const struct px_type_ops *o)
{
    memset(elem, 0, o->size);
    if (NULL != o->init) {
        o->init(elem);
    }
}

void px_type_construct(void *elem, pmix_data_type_t t)
{
    const struct px_type_ops *o = px_type_ops(t);

    if (NULL == elem || NULL == o) {
        return;
    }
    px_construct_with(elem, o);
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

void px_type_destruct(void *elem, pmix_data_type_t t)
{
    const struct px_type_ops *o = px_type_ops(t);

    if (NULL == elem || NULL == o) {
        return;
    }
    if (NULL != o->release) {
        o->release(elem);
    }
    px_construct_with(elem, o);
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

/* What each structure owns; the generic destruct re-constructs the element afterwards. */

void px_types_release_string(void *e)
{
    free(*(char **)e);
}

void px_types_release_value(void *e)
{
    px_value_release(e);
}

void px_types_release_app(void *e)
{
    pmix_app_t *a = e;

    free(a->cmd);
    px_types_argv_free(a->argv);
    px_types_argv_free(a->env);
    free(a->cwd);
    px_type_destruct_n(a->info, a->ninfo, PMIX_INFO);
    free(a->info);
}

void px_types_release_info(void *e)
{
    px_info_release(e);
}

void px_types_release_pdata(void *e)
{
    px_value_release(&((pmix_pdata_t *)e)->value);
}

void px_types_release_bo(void *e)
{
    pmix_byte_object_t *b = e;

    free(b->bytes);
    b->bytes = NULL;
    b->size = 0;
}

void px_types_release_pinfo(void *e)
{
    free(((pmix_proc_info_t *)e)->hostname);
    free(((pmix_proc_info_t *)e)->executable_name);
}

void px_types_release_darray(void *e)
{
    pmix_data_array_t *d = e;

    px_type_destruct_n(d->array, d->size, d->type);
    free(d->array);
    d->array = NULL;
    d->size = 0;
}

void px_types_release_query(void *e)
{
    pmix_query_t *q = e;

    px_types_argv_free(q->keys);
    px_type_destruct_n(q->qualifiers, q->nqual, PMIX_INFO);
    free(q->qualifiers);
}

void px_types_release_envar(void *e)
{
    free(((pmix_envar_t *)e)->envar);
    free(((pmix_envar_t *)e)->value);
}

void px_types_release_coord(void *e)
{
    pmix_coord_t *c = e;

    free(c->coord);
    c->coord = NULL;
    c->dims = 0;
    c->view = PMIX_COORD_VIEW_UNDEF;
}

void px_types_release_regattr(void *e)
{
    free(((pmix_regattr_t *)e)->name);
    px_types_argv_free(((pmix_regattr_t *)e)->description);
}

void px_types_release_cpuset(void *e)
{
    px_hw_cpuset_release(e); /* owns its hwloc bitmap (px_hwtypes.h) */
}

void px_types_release_topo(void *e)
{
    px_hw_topology_release(e); /* owns its hwloc topology (px_hwtypes.h) */
}

void px_types_release_geometry(void *e)
{
    pmix_geometry_t *g = e;

    free(g->uuid);
    free(g->osname);
    px_type_destruct_n(g->coordinates, g->ncoords, PMIX_COORD);
    free(g->coordinates);
}

void px_types_release_devdist(void *e)
{
    free(((pmix_device_distance_t *)e)->uuid);
    free(((pmix_device_distance_t *)e)->osname);
}

void px_types_release_endpoint(void *e)
{
    free(((pmix_endpoint_t *)e)->uuid);
    free(((pmix_endpoint_t *)e)->osname);
    px_types_release_bo(&((pmix_endpoint_t *)e)->endpt);
}

void px_types_release_pstats(void *e)
{
    free(((pmix_proc_stats_t *)e)->node);
    free(((pmix_proc_stats_t *)e)->cmd);
}

void px_types_release_dkstats(void *e)
{
    free(((pmix_disk_stats_t *)e)->disk);
}

void px_types_release_netstats(void *e)
{
    free(((pmix_net_stats_t *)e)->net_interface);
}

void px_types_release_ndstats(void *e)
{
    pmix_node_stats_t *n = e;

    free(n->node);
    px_type_destruct_n(n->diskstats, n->ndiskstats, PMIX_DISK_STATS);
    free(n->diskstats);
    px_type_destruct_n(n->netstats, n->nnetstats, PMIX_NET_STATS);
    free(n->netstats);
}

void px_types_release_dbuf(void *e)
{
    free(((pmix_data_buffer_t *)e)->base_ptr);
}

void px_types_release_device(void *e)
{
    free(((pmix_device_t *)e)->uuid);
    free(((pmix_device_t *)e)->osname);
}

void px_types_release_nodepid(void *e)
{
    free(((pmix_node_pid_t *)e)->hostname);
}

void px_types_release_regex2(void *e)
{
    free(((pmix_regex2_t *)e)->type);
    free(((pmix_regex2_t *)e)->bytes);
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

pmix_status_t px_type_copy(void *dest, const void *src, pmix_data_type_t t)
{
    const struct px_type_ops *o = px_type_ops(t);
    pmix_status_t rc;

    if (NULL == dest || NULL == src) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (NULL == o) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    if (NULL == o->copy) {
        /* owns nothing: the bytes are the element */
        memmove(dest, src, o->size);
        return PMIX_SUCCESS;
    }
    px_construct_with(dest, o);
    rc = o->copy(dest, src);
    if (PMIX_SUCCESS != rc) {
        px_type_destruct(dest, t);
    }
    return rc;
}

/* The copy operations below fill a constructed dest; on error the caller (px_type_copy)
 * destructs it, so every owned field assigned so far is dest's own. */

#define PX_DUP(field)                                                                              \
    do {                                                                                           \
        if (!px_types_strdup(&d->field, s->field)) {                                               \
            return PMIX_ERR_NOMEM;                                                                 \
        }                                                                                          \
    } while (0)

/* Copy n elements of type t into *arr / *n (a NULL or empty source gives NULL, 0). */
static pmix_status_t px_dup_array(void **arr, size_t *n, const void *src, size_t sn,
                                  pmix_data_type_t t)
{
    pmix_status_t rc = px_type_dup_n(arr, src, sn, t);

    *n = NULL == *arr ? 0 : sn;
    return rc;
}

pmix_status_t px_types_copy_string(void *dest, const void *src)
{
    return px_types_strdup(dest, *(char *const *)src) ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

pmix_status_t px_types_copy_value(void *dest, const void *src)
{
    return px_value_copy(dest, src);
}

pmix_status_t px_types_copy_info(void *dest, const void *src)
{
    return px_info_copy(dest, src);
}

pmix_status_t px_types_copy_pdata(void *dest, const void *src)
{
    pmix_pdata_t *d = dest;
    const pmix_pdata_t *s = src;

    memcpy(&d->proc, &s->proc, sizeof(d->proc));
    memcpy(d->key, s->key, sizeof(d->key));
    return px_value_copy(&d->value, &s->value);
}

pmix_status_t px_types_copy_app(void *dest, const void *src)
{
    pmix_app_t *d = dest;
    const pmix_app_t *s = src;
    pmix_status_t rc;

    PX_DUP(cmd);
    PX_DUP(cwd);
    d->maxprocs = s->maxprocs;
    if (PMIX_SUCCESS != (rc = px_types_argv_copy(&d->argv, s->argv)) ||
        PMIX_SUCCESS != (rc = px_types_argv_copy(&d->env, s->env))) {
        return rc;
    }
    return px_dup_array((void **)&d->info, &d->ninfo, s->info, s->ninfo, PMIX_INFO);
}

/* Copy a byte object's bytes (an empty or NULL source gives an empty object). */
pmix_status_t px_types_copy_bo(void *dest, const void *src)
{
    pmix_byte_object_t *d = dest;
    const pmix_byte_object_t *s = src;

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

pmix_status_t px_types_copy_pinfo(void *dest, const void *src)
{
    pmix_proc_info_t *d = dest;
    const pmix_proc_info_t *s = src;

    memcpy(&d->proc, &s->proc, sizeof(d->proc));
    d->pid = s->pid;
    d->exit_code = s->exit_code;
    d->state = s->state;
    PX_DUP(hostname);
    PX_DUP(executable_name);
    return PMIX_SUCCESS;
}

pmix_status_t px_types_copy_darray(void *dest, const void *src)
{
    pmix_data_array_t *d = dest;
    const pmix_data_array_t *s = src;

    d->type = s->type;
    if (NULL == s->array || 0 == s->size) {
        return PMIX_SUCCESS;
    }
    return px_dup_array(&d->array, &d->size, s->array, s->size, s->type);
}

pmix_status_t px_types_copy_query(void *dest, const void *src)
{
    pmix_query_t *d = dest;
    const pmix_query_t *s = src;
    pmix_status_t rc = px_types_argv_copy(&d->keys, s->keys);

    if (PMIX_SUCCESS != rc) {
        return rc;
    }
    return px_dup_array((void **)&d->qualifiers, &d->nqual, s->qualifiers, s->nqual, PMIX_INFO);
}

pmix_status_t px_types_copy_envar(void *dest, const void *src)
{
    pmix_envar_t *d = dest;
    const pmix_envar_t *s = src;

    d->separator = s->separator;
    PX_DUP(envar);
    PX_DUP(value);
    return PMIX_SUCCESS;
}

pmix_status_t px_types_copy_coord(void *dest, const void *src)
{
    pmix_coord_t *d = dest;
    const pmix_coord_t *s = src;

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

pmix_status_t px_types_copy_regattr(void *dest, const void *src)
{
    pmix_regattr_t *d = dest;
    const pmix_regattr_t *s = src;

    memcpy(d->string, s->string, sizeof(d->string));
    d->type = s->type;
    PX_DUP(name);
    return px_types_argv_copy(&d->description, s->description);
}

pmix_status_t px_types_copy_cpuset(void *dest, const void *src)
{
    return px_hw_cpuset_copy(dest, src);
}

pmix_status_t px_types_copy_topo(void *dest, const void *src)
{
    return px_hw_topology_copy(dest, src);
}

pmix_status_t px_types_copy_geometry(void *dest, const void *src)
{
    pmix_geometry_t *d = dest;
    const pmix_geometry_t *s = src;

    d->fabric = s->fabric;
    PX_DUP(uuid);
    PX_DUP(osname);
    return px_dup_array((void **)&d->coordinates, &d->ncoords, s->coordinates, s->ncoords,
                        PMIX_COORD);
}

pmix_status_t px_types_copy_devdist(void *dest, const void *src)
{
    pmix_device_distance_t *d = dest;
    const pmix_device_distance_t *s = src;

    d->type = s->type;
    d->mindist = s->mindist;
    d->maxdist = s->maxdist;
    PX_DUP(uuid);
    PX_DUP(osname);
    return PMIX_SUCCESS;
}

pmix_status_t px_types_copy_endpoint(void *dest, const void *src)
{
    pmix_endpoint_t *d = dest;
    const pmix_endpoint_t *s = src;

    PX_DUP(uuid);
    PX_DUP(osname);
    return px_types_copy_bo(&d->endpt, &s->endpt);
}

pmix_status_t px_types_copy_nspace(void *dest, const void *src)
{
    /* both are full pmix_nspace_t storage; keep it NUL-terminated */
    memcpy(dest, src, sizeof(pmix_nspace_t));
    ((char *)dest)[PMIX_MAX_NSLEN] = '\0';
    return PMIX_SUCCESS;
}

pmix_status_t px_types_copy_pstats(void *dest, const void *src)
{
    pmix_proc_stats_t *d = dest;
    const pmix_proc_stats_t *s = src;

    memcpy(d, s, sizeof(*d));
    d->node = NULL;
    d->cmd = NULL;
    PX_DUP(node);
    PX_DUP(cmd);
    return PMIX_SUCCESS;
}

pmix_status_t px_types_copy_dkstats(void *dest, const void *src)
{
    pmix_disk_stats_t *d = dest;
    const pmix_disk_stats_t *s = src;

    memcpy(d, s, sizeof(*d));
    d->disk = NULL;
    PX_DUP(disk);
    return PMIX_SUCCESS;
}

pmix_status_t px_types_copy_netstats(void *dest, const void *src)
{
    pmix_net_stats_t *d = dest;
    const pmix_net_stats_t *s = src;

    memcpy(d, s, sizeof(*d));
    d->net_interface = NULL;
    PX_DUP(net_interface);
    return PMIX_SUCCESS;
}

pmix_status_t px_types_copy_ndstats(void *dest, const void *src)
{
    pmix_node_stats_t *d = dest;
    const pmix_node_stats_t *s = src;
    pmix_status_t rc;

    memcpy(d, s, sizeof(*d));
    d->node = NULL;
    d->diskstats = NULL;
    d->ndiskstats = 0;
    d->netstats = NULL;
    d->nnetstats = 0;
    PX_DUP(node);
    rc = px_dup_array((void **)&d->diskstats, &d->ndiskstats, s->diskstats, s->ndiskstats,
                      PMIX_DISK_STATS);
    if (PMIX_SUCCESS != rc) {
        return rc;
    }
    return px_dup_array((void **)&d->netstats, &d->nnetstats, s->netstats, s->nnetstats,
                        PMIX_NET_STATS);
}

pmix_status_t px_types_copy_dbuf(void *dest, const void *src)
{
    pmix_data_buffer_t *d = dest;
    const pmix_data_buffer_t *s = src;

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

pmix_status_t px_types_copy_device(void *dest, const void *src)
{
    pmix_device_t *d = dest;
    const pmix_device_t *s = src;

    d->type = s->type;
    PX_DUP(uuid);
    PX_DUP(osname);
    return PMIX_SUCCESS;
}

pmix_status_t px_types_copy_nodepid(void *dest, const void *src)
{
    pmix_node_pid_t *d = dest;
    const pmix_node_pid_t *s = src;

    d->nodeid = s->nodeid;
    d->pid = s->pid;
    PX_DUP(hostname);
    return PMIX_SUCCESS;
}

pmix_status_t px_types_copy_regex2(void *dest, const void *src)
{
    pmix_regex2_t *d = dest;
    const pmix_regex2_t *s = src;

    PX_DUP(type);
    if (NULL != s->bytes && 0 < s->len) {
        d->bytes = malloc(s->len);
        if (NULL == d->bytes) {
            return PMIX_ERR_NOMEM;
        }
        memcpy(d->bytes, s->bytes, s->len);
        d->len = s->len;
    }
    return PMIX_SUCCESS;
}

#undef PX_DUP
