/* types: compare and footprint - the generic px_type_compare/px_type_footprint and the
 * compare and owned-bytes operations of each type (rows in px_type_table.c). Pure
 * functions on caller memory; any thread. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "types/px_hwtypes.h"
#include "types/px_type_ops.h"
#include "types/px_types_int.h"

/* ---- compare ---- */

int64_t px_types_read_sint(const void *p, size_t sz)
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

uint64_t px_types_read_uint(const void *p, size_t sz)
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
    const struct px_type_ops *o = px_type_ops(t);

    if (NULL == o) {
        return PMIX_VALUE_COMPARISON_NOT_AVAIL;
    }
    if (NULL == a || NULL == b) {
        return a == b ? PMIX_EQUAL : NULL == a ? PMIX_VALUE2_GREATER : PMIX_VALUE1_GREATER;
    }
    if (NULL == o->cmp) {
        return px_flat_eq(a, b, o->size);
    }
    return o->cmp(a, b, o);
}

/* Numbers and enum-like scalars by value; a NaN has no order. */
pmix_value_cmp_t px_types_cmp_num(const void *a, const void *b, const struct px_type_ops *o)
{
    switch (o->num) { /* the four number representations, not data types */
    case PX_NUM_BOOL:
        return PX_CMP3(*(const bool *)a, *(const bool *)b);
    case PX_NUM_SINT:
        return PX_CMP3(px_types_read_sint(a, o->size), px_types_read_sint(b, o->size));
    case PX_NUM_UINT:
        return PX_CMP3(px_types_read_uint(a, o->size), px_types_read_uint(b, o->size));
    default: {
        double x = sizeof(float) == o->size ? *(const float *)a : *(const double *)a;
        double y = sizeof(float) == o->size ? *(const float *)b : *(const double *)b;
        return x == y  ? PMIX_EQUAL
               : x > y ? PMIX_VALUE1_GREATER
               : x < y ? PMIX_VALUE2_GREATER
                       : PMIX_VALUE_COMPARISON_NOT_AVAIL;
    }
    }
}

pmix_value_cmp_t px_types_cmp_timeval(const void *a, const void *b, const struct px_type_ops *o)
{
    const struct timeval *x = a, *y = b;

    (void)o;
    if (x->tv_sec != y->tv_sec) {
        return PX_CMP3(x->tv_sec, y->tv_sec);
    }
    return PX_CMP3(x->tv_usec, y->tv_usec);
}

pmix_value_cmp_t px_types_cmp_string(const void *a, const void *b, const struct px_type_ops *o)
{
    (void)o;
    return px_str_cmp(*(char *const *)a, *(char *const *)b);
}

pmix_value_cmp_t px_types_cmp_nspace(const void *a, const void *b, const struct px_type_ops *o)
{
    int r = strncmp(a, b, PMIX_MAX_NSLEN);

    (void)o;
    return PX_CMP3(r, 0);
}

pmix_value_cmp_t px_types_cmp_value(const void *a, const void *b, const struct px_type_ops *o)
{
    (void)o;
    return px_value_cmp(a, b);
}

pmix_value_cmp_t px_types_cmp_info(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_info_t *x = a, *y = b;
    int r = strncmp(x->key, y->key, PMIX_MAX_KEYLEN);

    (void)o;
    if (0 != r) {
        return PX_CMP3(r, 0);
    }
    return px_value_cmp(&x->value, &y->value);
}

pmix_value_cmp_t px_types_cmp_pdata(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_pdata_t *x = a, *y = b;
    pmix_value_cmp_t c;
    int r;

    (void)o;
    if (PMIX_EQUAL != (c = px_proc_cmp(&x->proc, &y->proc))) {
        return c;
    }
    r = strncmp(x->key, y->key, PMIX_MAX_KEYLEN);
    if (0 != r) {
        return PX_CMP3(r, 0);
    }
    return px_value_cmp(&x->value, &y->value);
}

pmix_value_cmp_t px_types_cmp_proc(const void *a, const void *b, const struct px_type_ops *o)
{
    (void)o;
    return px_proc_cmp(a, b);
}

pmix_value_cmp_t px_types_cmp_bo(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_byte_object_t *x = a, *y = b;

    (void)o;
    return px_bytes_cmp(x->bytes, x->size, y->bytes, y->size);
}

pmix_value_cmp_t px_types_cmp_darray(const void *a, const void *b, const struct px_type_ops *o)
{
    (void)o;
    return px_darray_cmp(a, b);
}

pmix_value_cmp_t px_types_cmp_envar(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_envar_t *x = a, *y = b;
    pmix_value_cmp_t c;

    (void)o;
    if (PMIX_EQUAL != (c = px_str_cmp(x->envar, y->envar)) ||
        PMIX_EQUAL != (c = px_str_cmp(x->value, y->value))) {
        return c;
    }
    return PX_CMP3(x->separator, y->separator);
}

pmix_value_cmp_t px_types_cmp_coord(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_coord_t *x = a, *y = b;

    (void)o;
    if (x->view != y->view) {
        return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
    }
    return px_bytes_cmp(x->coord, x->dims * sizeof(uint32_t), y->coord, y->dims * sizeof(uint32_t));
}

pmix_value_cmp_t px_types_cmp_pinfo(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_proc_info_t *x = a, *y = b;
    pmix_value_cmp_t c;

    (void)o;
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

pmix_value_cmp_t px_types_cmp_regattr(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_regattr_t *x = a, *y = b;
    int r = strncmp(x->string, y->string, PMIX_MAX_KEYLEN);

    (void)o;
    if (0 != r) {
        return PX_CMP3(r, 0);
    }
    return px_str_cmp(x->name, y->name);
}

pmix_value_cmp_t px_types_cmp_devdist(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_device_distance_t *x = a, *y = b;
    pmix_value_cmp_t c;

    (void)o;
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

pmix_value_cmp_t px_types_cmp_endpoint(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_endpoint_t *x = a, *y = b;
    pmix_value_cmp_t c;

    (void)o;
    if (PMIX_EQUAL != (c = px_str_cmp(x->uuid, y->uuid)) ||
        PMIX_EQUAL != (c = px_str_cmp(x->osname, y->osname))) {
        return c;
    }
    return px_bytes_cmp(x->endpt.bytes, x->endpt.size, y->endpt.bytes, y->endpt.size);
}

pmix_value_cmp_t px_types_cmp_device(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_device_t *x = a, *y = b;
    pmix_value_cmp_t c;

    (void)o;
    if (PMIX_EQUAL != (c = px_str_cmp(x->uuid, y->uuid)) ||
        PMIX_EQUAL != (c = px_str_cmp(x->osname, y->osname))) {
        return c;
    }
    return x->type == y->type ? PMIX_EQUAL : PMIX_VALUE_INCOMPATIBLE_OBJECTS;
}

pmix_value_cmp_t px_types_cmp_resunit(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_resource_unit_t *x = a, *y = b;

    (void)o;
    if (x->type != y->type) {
        return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
    }
    return PX_CMP3(x->count, y->count);
}

pmix_value_cmp_t px_types_cmp_nodepid(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_node_pid_t *x = a, *y = b;
    pmix_value_cmp_t c;

    (void)o;
    if (PMIX_EQUAL != (c = px_str_cmp(x->hostname, y->hostname))) {
        return c;
    }
    if (x->nodeid != y->nodeid) {
        return PX_CMP3(x->nodeid, y->nodeid);
    }
    return PX_CMP3(x->pid, y->pid);
}

pmix_value_cmp_t px_types_cmp_regex2(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_regex2_t *x = a, *y = b;
    pmix_value_cmp_t c;

    (void)o;
    if (PMIX_EQUAL != (c = px_str_cmp(x->type, y->type))) {
        return c;
    }
    return px_bytes_cmp(x->bytes, x->len, y->bytes, y->len);
}

pmix_value_cmp_t px_types_cmp_pointer(const void *a, const void *b, const struct px_type_ops *o)
{
    (void)o;
    return *(void *const *)a == *(void *const *)b ? PMIX_EQUAL : PMIX_VALUE_COMPARISON_NOT_AVAIL;
}

pmix_value_cmp_t px_types_cmp_app(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_app_t *x = a, *y = b;
    pmix_value_cmp_t c;

    (void)o;
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

pmix_value_cmp_t px_types_cmp_query(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_query_t *x = a, *y = b;
    pmix_value_cmp_t c;

    (void)o;
    if (PMIX_EQUAL != (c = px_argv_cmp(x->keys, y->keys))) {
        return c;
    }
    return px_array_cmp(x->qualifiers, x->nqual, y->qualifiers, y->nqual, PMIX_INFO);
}

pmix_value_cmp_t px_types_cmp_cpuset(const void *a, const void *b, const struct px_type_ops *o)
{
    (void)o;
    return px_hw_cpuset_cmp(a, b);
}

pmix_value_cmp_t px_types_cmp_topo(const void *a, const void *b, const struct px_type_ops *o)
{
    (void)o;
    return px_hw_topology_cmp(a, b);
}

pmix_value_cmp_t px_types_cmp_geometry(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_geometry_t *x = a, *y = b;
    pmix_value_cmp_t c;

    (void)o;
    if (x->fabric != y->fabric) {
        return PX_CMP3(x->fabric, y->fabric);
    }
    if (PMIX_EQUAL != (c = px_str_cmp(x->uuid, y->uuid)) ||
        PMIX_EQUAL != (c = px_str_cmp(x->osname, y->osname))) {
        return c;
    }
    return px_array_cmp(x->coordinates, x->ncoords, y->coordinates, y->ncoords, PMIX_COORD);
}

/* The statistics structures compare their strings, then all their numbers as bytes. */
pmix_value_cmp_t px_types_cmp_pstats(const void *a, const void *b, const struct px_type_ops *o)
{
    pmix_proc_stats_t x, y;
    pmix_value_cmp_t c;

    (void)o;
    memcpy(&x, a, sizeof(x));
    memcpy(&y, b, sizeof(y));
    if (PMIX_EQUAL != (c = px_str_cmp(x.node, y.node)) ||
        PMIX_EQUAL != (c = px_str_cmp(x.cmd, y.cmd))) {
        return c;
    }
    x.node = y.node = x.cmd = y.cmd = NULL;
    return px_flat_eq(&x, &y, sizeof(x));
}

pmix_value_cmp_t px_types_cmp_dkstats(const void *a, const void *b, const struct px_type_ops *o)
{
    pmix_disk_stats_t x, y;
    pmix_value_cmp_t c;

    (void)o;
    memcpy(&x, a, sizeof(x));
    memcpy(&y, b, sizeof(y));
    if (PMIX_EQUAL != (c = px_str_cmp(x.disk, y.disk))) {
        return c;
    }
    x.disk = y.disk = NULL;
    return px_flat_eq(&x, &y, sizeof(x));
}

pmix_value_cmp_t px_types_cmp_netstats(const void *a, const void *b, const struct px_type_ops *o)
{
    pmix_net_stats_t x, y;
    pmix_value_cmp_t c;

    (void)o;
    memcpy(&x, a, sizeof(x));
    memcpy(&y, b, sizeof(y));
    if (PMIX_EQUAL != (c = px_str_cmp(x.net_interface, y.net_interface))) {
        return c;
    }
    x.net_interface = y.net_interface = NULL;
    return px_flat_eq(&x, &y, sizeof(x));
}

pmix_value_cmp_t px_types_cmp_ndstats(const void *a, const void *b, const struct px_type_ops *o)
{
    pmix_node_stats_t x, y;
    pmix_value_cmp_t c;

    (void)o;
    memcpy(&x, a, sizeof(x));
    memcpy(&y, b, sizeof(y));
    if (PMIX_EQUAL != (c = px_str_cmp(x.node, y.node)) ||
        PMIX_EQUAL != (c = px_array_cmp(x.diskstats, x.ndiskstats, y.diskstats, y.ndiskstats,
                                        PMIX_DISK_STATS)) ||
        PMIX_EQUAL !=
            (c = px_array_cmp(x.netstats, x.nnetstats, y.netstats, y.nnetstats, PMIX_NET_STATS))) {
        return c;
    }
    x.node = y.node = NULL;
    x.diskstats = y.diskstats = NULL;
    x.netstats = y.netstats = NULL;
    return px_flat_eq(&x, &y, sizeof(x));
}

pmix_value_cmp_t px_types_cmp_dbuf(const void *a, const void *b, const struct px_type_ops *o)
{
    const pmix_data_buffer_t *x = a, *y = b;
    size_t nx = NULL == x->base_ptr ? 0 : x->bytes_used,
           ny = NULL == y->base_ptr ? 0 : y->bytes_used;
    pmix_value_cmp_t c;

    (void)o;
    if (PMIX_EQUAL != (c = px_bytes_cmp(x->base_ptr, nx, y->base_ptr, ny))) {
        return c;
    }
    if ((x->pack_ptr - x->base_ptr) != (y->pack_ptr - y->base_ptr) ||
        (x->unpack_ptr - x->base_ptr) != (y->unpack_ptr - y->base_ptr)) {
        return PMIX_VALUE_COMPARISON_NOT_AVAIL;
    }
    return PMIX_EQUAL;
}

/* ---- footprint ---- */

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

static size_t px_owned_bytes(const void *elem, pmix_data_type_t t)
{
    const struct px_type_ops *o = px_type_ops(t);

    if (NULL == o || NULL == elem || NULL == o->owned) {
        return 0;
    }
    return o->owned(elem);
}

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

size_t px_type_footprint(const void *elem, pmix_data_type_t t)
{
    size_t sz = px_type_size(t);

    if (0 == sz) {
        return 0;
    }
    return sz + px_owned_bytes(elem, t);
}

size_t px_types_owned_string(const void *e)
{
    return px_str_bytes(*(char *const *)e);
}

size_t px_types_owned_value(const void *e)
{
    return px_value_owned_bytes(e);
}

size_t px_types_owned_info(const void *e)
{
    const pmix_info_t *i = e;

    return (PMIX_INFO_PERSISTENT & i->flags) ? 0 : px_value_owned_bytes(&i->value);
}

size_t px_types_owned_pdata(const void *e)
{
    return px_value_owned_bytes(&((const pmix_pdata_t *)e)->value);
}

size_t px_types_owned_app(const void *e)
{
    const pmix_app_t *a = e;

    return px_str_bytes(a->cmd) + px_str_bytes(a->cwd) + px_argv_bytes(a->argv) +
           px_argv_bytes(a->env) + px_owned_bytes_n(a->info, a->ninfo, PMIX_INFO);
}

size_t px_types_owned_bo(const void *e)
{
    const pmix_byte_object_t *bo = e;

    return NULL == bo->bytes ? 0 : bo->size;
}

size_t px_types_owned_pinfo(const void *e)
{
    return px_str_bytes(((const pmix_proc_info_t *)e)->hostname) +
           px_str_bytes(((const pmix_proc_info_t *)e)->executable_name);
}

size_t px_types_owned_darray(const void *e)
{
    const pmix_data_array_t *d = e;

    return px_owned_bytes_n(d->array, d->size, d->type);
}

size_t px_types_owned_query(const void *e)
{
    const pmix_query_t *q = e;

    return px_argv_bytes(q->keys) + px_owned_bytes_n(q->qualifiers, q->nqual, PMIX_INFO);
}

size_t px_types_owned_envar(const void *e)
{
    return px_str_bytes(((const pmix_envar_t *)e)->envar) +
           px_str_bytes(((const pmix_envar_t *)e)->value);
}

size_t px_types_owned_coord(const void *e)
{
    const pmix_coord_t *c = e;

    return NULL == c->coord ? 0 : c->dims * sizeof(uint32_t);
}

size_t px_types_owned_regattr(const void *e)
{
    return px_str_bytes(((const pmix_regattr_t *)e)->name) +
           px_argv_bytes(((const pmix_regattr_t *)e)->description);
}

size_t px_types_owned_cpuset(const void *e)
{
    return px_str_bytes(((const pmix_cpuset_t *)e)->source);
}

size_t px_types_owned_topo(const void *e)
{
    return px_str_bytes(((const pmix_topology_t *)e)->source);
}

size_t px_types_owned_geometry(const void *e)
{
    const pmix_geometry_t *g = e;

    return px_str_bytes(g->uuid) + px_str_bytes(g->osname) +
           px_owned_bytes_n(g->coordinates, g->ncoords, PMIX_COORD);
}

size_t px_types_owned_devdist(const void *e)
{
    return px_str_bytes(((const pmix_device_distance_t *)e)->uuid) +
           px_str_bytes(((const pmix_device_distance_t *)e)->osname);
}

size_t px_types_owned_endpoint(const void *e)
{
    const pmix_endpoint_t *p = e;

    return px_str_bytes(p->uuid) + px_str_bytes(p->osname) +
           (NULL == p->endpt.bytes ? 0 : p->endpt.size);
}

size_t px_types_owned_pstats(const void *e)
{
    return px_str_bytes(((const pmix_proc_stats_t *)e)->node) +
           px_str_bytes(((const pmix_proc_stats_t *)e)->cmd);
}

size_t px_types_owned_dkstats(const void *e)
{
    return px_str_bytes(((const pmix_disk_stats_t *)e)->disk);
}

size_t px_types_owned_netstats(const void *e)
{
    return px_str_bytes(((const pmix_net_stats_t *)e)->net_interface);
}

size_t px_types_owned_ndstats(const void *e)
{
    const pmix_node_stats_t *n = e;

    return px_str_bytes(n->node) + px_owned_bytes_n(n->diskstats, n->ndiskstats, PMIX_DISK_STATS) +
           px_owned_bytes_n(n->netstats, n->nnetstats, PMIX_NET_STATS);
}

size_t px_types_owned_dbuf(const void *e)
{
    const pmix_data_buffer_t *d = e;

    return NULL == d->base_ptr ? 0 : d->bytes_allocated;
}

size_t px_types_owned_device(const void *e)
{
    return px_str_bytes(((const pmix_device_t *)e)->uuid) +
           px_str_bytes(((const pmix_device_t *)e)->osname);
}

size_t px_types_owned_nodepid(const void *e)
{
    return px_str_bytes(((const pmix_node_pid_t *)e)->hostname);
}

size_t px_types_owned_regex2(const void *e)
{
    const pmix_regex2_t *r = e;

    return px_str_bytes(r->type) + (NULL == r->bytes ? 0 : r->len);
}
