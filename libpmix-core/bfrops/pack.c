/* bfrops: the per-type wire facts and the encoder (memory -> big-endian bytes appended
 * at pack_ptr). Layout of every type: ENCODING.md. Any thread; no shared state. */
#include <stdlib.h>
#include <string.h>

#include "bfrops/bfrops_int.h"
#include "bfrops/px_bfrops.h"
#include "types/px_hwtypes.h"
#include "types/px_type_ops.h"
#include "types/px_types_int.h"

px_bfrops_tinfo_t px_bfrops_tinfo(pmix_data_type_t t)
{
    const struct px_type_ops *o = px_type_ops(t);
    px_bfrops_tinfo_t ti = {PX_BFROPS_K_COMPLEX, 0, false};

    if (!o)
        ti.kind = PX_BFROPS_K_UNKNOWN;
    else if (o->num == PX_NUM_BOOL)
        ti.kind = PX_BFROPS_K_BOOL;
    else if (o->num == PX_NUM_FLT)
        ti.kind = o->size == sizeof(float) ? PX_BFROPS_K_FLOAT : PX_BFROPS_K_DOUBLE;
    else if (o->wire)
        ti.kind = PX_BFROPS_K_INT;
    if (o) {
        ti.wire = o->wire;
        ti.is_signed = o->num == PX_NUM_SINT;
    }
    return ti;
}

size_t px_bfrops_min_wire(pmix_data_type_t t)
{
    const struct px_type_ops *o = px_type_ops(t);

    return o ? o->min_wire : 1;
}

px_bfrops_slot_t px_bfrops_value_slot(pmix_data_type_t t)
{
    enum px_value_storage vs = px_value_storage(t);

    if (t == PMIX_UNDEF)
        return PX_BFROPS_SLOT_EMPTY;
    return vs == PX_VS_INLINE  ? PX_BFROPS_SLOT_INLINE
           : vs == PX_VS_BOXED ? PX_BFROPS_SLOT_PTR
                               : PX_BFROPS_SLOT_BAD;
}

pmix_status_t px_bfrops_reserve(pmix_data_buffer_t *buf, size_t n)
{
    size_t used = buf->bytes_used, rd, cap;
    char *nb;

    if (n <= buf->bytes_allocated - used)
        return PMIX_SUCCESS;
    if (n > SIZE_MAX / 2 - used)
        return PMIX_ERR_NOMEM;
    cap = buf->bytes_allocated ? buf->bytes_allocated : 256;
    while (cap - used < n)
        cap *= 2;
    rd = buf->base_ptr ? (size_t)(buf->unpack_ptr - buf->base_ptr) : 0;
    nb = realloc(buf->base_ptr, cap);
    if (!nb)
        return PMIX_ERR_NOMEM;
    buf->base_ptr = nb;
    buf->pack_ptr = nb + used;
    buf->unpack_ptr = nb + rd;
    buf->bytes_allocated = cap;
    return PMIX_SUCCESS;
}

static pmix_status_t w_raw(pmix_data_buffer_t *b, const void *p, size_t n)
{
    pmix_status_t rc;

    if (n == 0)
        return PMIX_SUCCESS;
    rc = px_bfrops_reserve(b, n);
    if (rc != PMIX_SUCCESS)
        return rc;
    memcpy(b->pack_ptr, p, n);
    b->pack_ptr += n;
    b->bytes_used += n;
    return PMIX_SUCCESS;
}

static pmix_status_t w_uint(pmix_data_buffer_t *b, uint64_t v, size_t n)
{
    uint8_t tmp[8];

    px_bfrops_put_be(tmp, v, n);
    return w_raw(b, tmp, n);
}

/* A length-prefixed run of bytes (the length must be below PX_BFROPS_NONE). */
static pmix_status_t w_blob(pmix_data_buffer_t *b, const void *p, size_t n)
{
    pmix_status_t rc;

    if (n >= PX_BFROPS_NONE)
        return PMIX_ERR_PACK_FAILURE;
    if (n && !p)
        return PMIX_ERR_BAD_PARAM;
    rc = w_uint(b, n, 4);
    if (rc == PMIX_SUCCESS)
        rc = w_raw(b, p, n);
    return rc;
}

static pmix_status_t w_str(pmix_data_buffer_t *b, const char *s)
{
    if (!s)
        return w_uint(b, PX_BFROPS_NONE, 4);
    return w_blob(b, s, strlen(s));
}

/* A fixed-size char array (nspace, key): at most max characters are sent. */
static pmix_status_t w_strn(pmix_data_buffer_t *b, const char *s, size_t max)
{
    return w_blob(b, s, strnlen(s, max));
}

static pmix_status_t w_argv(pmix_data_buffer_t *b, char *const *argv)
{
    size_t n = 0;
    pmix_status_t rc;

    if (!argv)
        return w_uint(b, PX_BFROPS_NONE, 4);
    while (argv[n])
        n++;
    if (n >= PX_BFROPS_NONE)
        return PMIX_ERR_PACK_FAILURE;
    rc = w_uint(b, n, 4);
    for (size_t i = 0; i < n && rc == PMIX_SUCCESS; i++)
        rc = w_str(b, argv[i]);
    return rc;
}

/* A counted array of elements of type t (count u32, then the elements). */
static pmix_status_t w_array(pmix_data_buffer_t *b, const void *arr, size_t n, pmix_data_type_t t,
                             int depth)
{
    size_t es = px_type_size(t);
    pmix_status_t rc;

    if (n >= PX_BFROPS_NONE)
        return PMIX_ERR_PACK_FAILURE;
    if (n && !arr)
        return PMIX_ERR_BAD_PARAM;
    rc = w_uint(b, n, 4);
    for (size_t i = 0; i < n && rc == PMIX_SUCCESS; i++)
        rc = px_bfrops_enc_elem(b, (const char *)arr + i * es, t, depth + 1);
    return rc;
}

static pmix_status_t w_tv(pmix_data_buffer_t *b, const struct timeval *tv)
{
    pmix_status_t rc = w_uint(b, (uint64_t)(int64_t)tv->tv_sec, 8);

    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, (uint64_t)(int64_t)tv->tv_usec, 8);
    return rc;
}

static pmix_status_t w_float(pmix_data_buffer_t *b, float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return w_uint(b, u, 4);
}

static pmix_status_t w_proc(pmix_data_buffer_t *b, const pmix_proc_t *p)
{
    pmix_status_t rc = w_strn(b, p->nspace, PMIX_MAX_NSLEN);

    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, p->rank, 4);
    return rc;
}

/* ---- one element per type (the pack operation of each row of types/px_type_table.c) ---- */

/* The signature every encoder shares; o and depth are unused by most. */
#define PX_ENC_FN(n)                                                                               \
    pmix_status_t px_bfrops_enc_##n(pmix_data_buffer_t *b, const void *e,                          \
                                    const struct px_type_ops *o __attribute__((unused)),           \
                                    int depth __attribute__((unused)))

/* A scalar held in C storage of o->size bytes, sent in o->wire bytes. */
PX_ENC_FN(int)
{
    bool is_signed = o->num == PX_NUM_SINT;
    uint64_t u;
    int64_t s;

    if (o->size != 1 && o->size != 2 && o->size != 4 && o->size != 8)
        return PMIX_ERR_PACK_FAILURE;
    u = px_types_read_uint(e, o->size);
    s = px_types_read_sint(e, o->size);
    if (o->wire < 8) {
        int bits = 8 * o->wire;
        if (is_signed ? (s < -(INT64_C(1) << (bits - 1)) || s >= (INT64_C(1) << (bits - 1)))
                      : (u >> bits) != 0)
            return PMIX_ERR_PACK_FAILURE;
    }
    return w_uint(b, is_signed ? (uint64_t)s : u, o->wire);
}

PX_ENC_FN(bool)
{
    return w_uint(b, *(const bool *)e ? 1 : 0, 1);
}

PX_ENC_FN(float)
{
    return w_float(b, *(const float *)e);
}

PX_ENC_FN(double)
{
    uint64_t u;

    memcpy(&u, e, 8);
    return w_uint(b, u, 8);
}

PX_ENC_FN(string)
{
    return w_str(b, *(char *const *)e);
}

PX_ENC_FN(nspace)
{
    return w_strn(b, e, PMIX_MAX_NSLEN);
}

PX_ENC_FN(timeval)
{
    return w_tv(b, e);
}

PX_ENC_FN(proc)
{
    return w_proc(b, e);
}

PX_ENC_FN(value)
{
    const pmix_value_t *v = e;
    px_bfrops_slot_t slot = px_bfrops_value_slot(v->type);
    pmix_status_t rc;

    if (slot == PX_BFROPS_SLOT_BAD) /* an unknown type has no slot */
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    rc = w_uint(b, v->type, 2);
    if (rc != PMIX_SUCCESS || slot == PX_BFROPS_SLOT_EMPTY)
        return rc;
    if (slot == PX_BFROPS_SLOT_INLINE)
        return px_bfrops_enc_elem(b, &v->data, px_type_in_value(v->type), depth + 1);
    rc = w_uint(b, v->data.ptr ? 1 : 0, 1);
    if (rc == PMIX_SUCCESS && v->data.ptr)
        rc = px_bfrops_enc_elem(b, v->data.ptr, v->type, depth + 1);
    return rc;
}

PX_ENC_FN(info)
{
    const pmix_info_t *in = e;
    pmix_status_t rc = w_strn(b, in->key, PMIX_MAX_KEYLEN);

    /* The receiver always owns what it unpacks: "persistent" does not travel. */
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, in->flags & ~(pmix_info_directives_t)PMIX_INFO_PERSISTENT, 4);
    if (rc == PMIX_SUCCESS)
        rc = px_bfrops_enc_value(b, &in->value, o, depth);
    return rc;
}

PX_ENC_FN(pdata)
{
    const pmix_pdata_t *p = e;
    pmix_status_t rc = w_proc(b, &p->proc);

    if (rc == PMIX_SUCCESS)
        rc = w_strn(b, p->key, PMIX_MAX_KEYLEN);
    if (rc == PMIX_SUCCESS)
        rc = px_bfrops_enc_value(b, &p->value, o, depth);
    return rc;
}

PX_ENC_FN(app)
{
    const pmix_app_t *a = e;
    pmix_status_t rc = w_str(b, a->cmd);

    if (rc == PMIX_SUCCESS)
        rc = w_argv(b, a->argv);
    if (rc == PMIX_SUCCESS)
        rc = w_argv(b, a->env);
    if (rc == PMIX_SUCCESS)
        rc = w_str(b, a->cwd);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, (uint32_t)(int32_t)a->maxprocs, 4);
    if (rc == PMIX_SUCCESS)
        rc = w_array(b, a->info, a->ninfo, PMIX_INFO, depth);
    return rc;
}

PX_ENC_FN(query)
{
    const pmix_query_t *q = e;
    pmix_status_t rc = w_argv(b, q->keys);

    if (rc == PMIX_SUCCESS)
        rc = w_array(b, q->qualifiers, q->nqual, PMIX_INFO, depth);
    return rc;
}

PX_ENC_FN(bo)
{
    const pmix_byte_object_t *bo = e;

    return w_blob(b, bo->bytes, bo->size);
}

PX_ENC_FN(regex)
{
    /* the bytes a value of this type holds: the string with its NUL (NULL: empty) */
    const char *s = *(char *const *)e;

    return w_blob(b, s, s ? strlen(s) + 1 : 0);
}

PX_ENC_FN(darray)
{
    const pmix_data_array_t *d = e;
    pmix_status_t rc;

    if (d->size && !px_type_known(d->type))
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    rc = w_uint(b, d->type, 2);
    if (rc == PMIX_SUCCESS)
        rc = w_array(b, d->array, d->size, d->type, depth);
    return rc;
}

PX_ENC_FN(coord)
{
    const pmix_coord_t *c = e;
    pmix_status_t rc;

    if (c->dims >= PX_BFROPS_NONE)
        return PMIX_ERR_PACK_FAILURE;
    if (c->dims && !c->coord)
        return PMIX_ERR_BAD_PARAM;
    rc = w_uint(b, c->view, 1);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, c->dims, 4);
    for (size_t i = 0; i < c->dims && rc == PMIX_SUCCESS; i++)
        rc = w_uint(b, c->coord[i], 4);
    return rc;
}

PX_ENC_FN(regattr)
{
    const pmix_regattr_t *r = e;
    pmix_status_t rc = w_str(b, r->name);

    if (rc == PMIX_SUCCESS)
        rc = w_strn(b, r->string, PMIX_MAX_KEYLEN);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, r->type, 2);
    if (rc == PMIX_SUCCESS)
        rc = w_argv(b, r->description);
    return rc;
}

/* A cpuset or topology: str source, str text form (px_hwtypes.h: hwloc's list string or
 * XML; NULL when there is no bitmap/topology). text comes from px_hw_*_text (status rc)
 * and is freed here. */
static pmix_status_t enc_hw(pmix_data_buffer_t *b, const char *source, char *text, pmix_status_t rc)
{
    if (rc == PMIX_SUCCESS)
        rc = w_str(b, source);
    if (rc == PMIX_SUCCESS)
        rc = w_str(b, text);
    free(text);
    return rc;
}

PX_ENC_FN(cpuset)
{
    char *text = NULL;
    pmix_status_t rc = px_hw_cpuset_text(e, &text);

    return enc_hw(b, ((const pmix_cpuset_t *)e)->source, text, rc);
}

PX_ENC_FN(topo)
{
    char *text = NULL;
    pmix_status_t rc = px_hw_topology_text(e, &text);

    return enc_hw(b, ((const pmix_topology_t *)e)->source, text, rc);
}

PX_ENC_FN(geometry)
{
    const pmix_geometry_t *g = e;
    pmix_status_t rc;

    if (g->ncoords >= PX_BFROPS_NONE)
        return PMIX_ERR_PACK_FAILURE;
    if (g->ncoords && !g->coordinates)
        return PMIX_ERR_BAD_PARAM;
    rc = w_uint(b, g->fabric, 8);
    if (rc == PMIX_SUCCESS)
        rc = w_str(b, g->uuid);
    if (rc == PMIX_SUCCESS)
        rc = w_str(b, g->osname);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, g->ncoords, 4);
    for (size_t i = 0; i < g->ncoords && rc == PMIX_SUCCESS; i++)
        rc = px_bfrops_enc_coord(b, &g->coordinates[i], o, depth);
    return rc;
}

PX_ENC_FN(ndstats)
{
    const pmix_node_stats_t *n = e;
    const float f[] = {n->la,         n->la5,       n->la15,   n->total_mem,
                       n->free_mem,   n->buffers,   n->cached, n->swap_cached,
                       n->swap_total, n->swap_free, n->mapped};
    pmix_status_t rc = w_str(b, n->node);

    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]) && rc == PMIX_SUCCESS; i++)
        rc = w_float(b, f[i]);
    if (rc == PMIX_SUCCESS)
        rc = w_tv(b, &n->sample_time);
    if (rc == PMIX_SUCCESS)
        rc = w_array(b, n->diskstats, n->ndiskstats, PMIX_DISK_STATS, depth);
    if (rc == PMIX_SUCCESS)
        rc = w_array(b, n->netstats, n->nnetstats, PMIX_NET_STATS, depth);
    return rc;
}

PX_ENC_FN(dbuf)
{
    /* Only the part not yet unpacked travels (as PMIx_Data_copy_payload copies). */
    const pmix_data_buffer_t *d = e;

    if (!px_bfrops_buf_valid(d))
        return PMIX_ERR_BAD_PARAM;
    return w_blob(b, d->unpack_ptr, px_bfrops_buf_remaining(d));
}

/* Structs made only of strings and fixed-width numbers. */

PX_ENC_FN(pinfo)
{
    const pmix_proc_info_t *p = e;
    pmix_status_t rc = w_proc(b, &p->proc);

    if (rc == PMIX_SUCCESS)
        rc = w_str(b, p->hostname);
    if (rc == PMIX_SUCCESS)
        rc = w_str(b, p->executable_name);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, (uint32_t)(int32_t)p->pid, 4);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, (uint32_t)(int32_t)p->exit_code, 4);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, p->state, 1);
    return rc;
}

PX_ENC_FN(envar)
{
    const pmix_envar_t *v = e;
    pmix_status_t rc = w_str(b, v->envar);

    if (rc == PMIX_SUCCESS)
        rc = w_str(b, v->value);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, (uint8_t)v->separator, 1);
    return rc;
}

PX_ENC_FN(devdist)
{
    const pmix_device_distance_t *d = e;
    pmix_status_t rc = w_str(b, d->uuid);

    if (rc == PMIX_SUCCESS)
        rc = w_str(b, d->osname);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, d->type, 8);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, d->mindist, 2);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, d->maxdist, 2);
    return rc;
}

PX_ENC_FN(endpoint)
{
    const pmix_endpoint_t *d = e;
    pmix_status_t rc = w_str(b, d->uuid);

    if (rc == PMIX_SUCCESS)
        rc = w_str(b, d->osname);
    if (rc == PMIX_SUCCESS)
        rc = w_blob(b, d->endpt.bytes, d->endpt.size);
    return rc;
}

PX_ENC_FN(device)
{
    const pmix_device_t *d = e;
    pmix_status_t rc = w_str(b, d->uuid);

    if (rc == PMIX_SUCCESS)
        rc = w_str(b, d->osname);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, d->type, 8);
    return rc;
}

PX_ENC_FN(resunit)
{
    const pmix_resource_unit_t *u = e;
    pmix_status_t rc = w_uint(b, u->type, 8);

    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, u->count, 8);
    return rc;
}

PX_ENC_FN(nodepid)
{
    const pmix_node_pid_t *n = e;
    pmix_status_t rc = w_str(b, n->hostname);

    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, n->nodeid, 4);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, (uint32_t)(int32_t)n->pid, 4);
    return rc;
}

PX_ENC_FN(regex2)
{
    const pmix_regex2_t *x = e;
    pmix_status_t rc = w_str(b, x->type);

    if (rc == PMIX_SUCCESS)
        rc = w_blob(b, x->bytes, x->len);
    return rc;
}

PX_ENC_FN(pstats)
{
    const pmix_proc_stats_t *s = e;
    pmix_status_t rc = w_str(b, s->node);

    if (rc == PMIX_SUCCESS)
        rc = w_proc(b, &s->proc);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, (uint32_t)(int32_t)s->pid, 4);
    if (rc == PMIX_SUCCESS)
        rc = w_str(b, s->cmd);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, (uint8_t)s->state, 1);
    if (rc == PMIX_SUCCESS)
        rc = w_tv(b, &s->time);
    if (rc == PMIX_SUCCESS)
        rc = w_float(b, s->percent_cpu);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, (uint32_t)s->priority, 4);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, s->num_threads, 2);
    if (rc == PMIX_SUCCESS)
        rc = w_float(b, s->pss);
    if (rc == PMIX_SUCCESS)
        rc = w_float(b, s->vsize);
    if (rc == PMIX_SUCCESS)
        rc = w_float(b, s->rss);
    if (rc == PMIX_SUCCESS)
        rc = w_float(b, s->peak_vsize);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(b, s->processor, 2);
    if (rc == PMIX_SUCCESS)
        rc = w_tv(b, &s->sample_time);
    return rc;
}

PX_ENC_FN(dkstats)
{
    const pmix_disk_stats_t *d = e;
    const uint64_t f[] = {
        d->num_reads_completed,  d->num_reads_merged,        d->num_sectors_read,
        d->milliseconds_reading, d->num_writes_completed,    d->num_writes_merged,
        d->num_sectors_written,  d->milliseconds_writing,    d->num_ios_in_progress,
        d->milliseconds_io,      d->weighted_milliseconds_io};
    pmix_status_t rc = w_str(b, d->disk);

    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]) && rc == PMIX_SUCCESS; i++)
        rc = w_uint(b, f[i], 8);
    return rc;
}

PX_ENC_FN(netstats)
{
    const pmix_net_stats_t *d = e;
    const uint64_t f[] = {d->num_bytes_recvd, d->num_packets_recvd, d->num_recv_errs,
                          d->num_bytes_sent,  d->num_packets_sent,  d->num_send_errs};
    pmix_status_t rc = w_str(b, d->net_interface);

    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]) && rc == PMIX_SUCCESS; i++)
        rc = w_uint(b, f[i], 8);
    return rc;
}

#undef PX_ENC_FN

pmix_status_t px_bfrops_enc_elem(pmix_data_buffer_t *b, const void *e, pmix_data_type_t t,
                                 int depth)
{
    const struct px_type_ops *o = px_type_ops(t);

    if (depth > PX_BFROPS_MAX_DEPTH)
        return PMIX_ERR_PACK_FAILURE;
    if (!o)
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    return o->pack(b, e, o, depth);
}

pmix_status_t px_bfrops_pack(pmix_data_buffer_t *buf, const void *src, int32_t n,
                             pmix_data_type_t type)
{
    size_t es, used;
    pmix_status_t rc;

    if (!buf || !src || n < 0 || !px_bfrops_buf_valid(buf))
        return PMIX_ERR_BAD_PARAM;
    if (!px_type_known(type))
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    es = px_type_size(type);
    used = buf->bytes_used;
    rc = w_uint(buf, type, 2);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(buf, (uint32_t)n, 4);
    for (int32_t i = 0; i < n && rc == PMIX_SUCCESS; i++)
        rc = px_bfrops_enc_elem(buf, (const char *)src + (size_t)i * es, type, 0);
    if (rc != PMIX_SUCCESS) {
        /* roll back: nothing of this item stays in the buffer */
        buf->bytes_used = used;
        buf->pack_ptr = buf->base_ptr + used;
    }
    return rc;
}

pmix_status_t px_bfrops_pack_bo_head(pmix_data_buffer_t *buf, size_t size)
{
    size_t used;
    pmix_status_t rc;

    if (!buf || !px_bfrops_buf_valid(buf))
        return PMIX_ERR_BAD_PARAM;
    if (size >= PX_BFROPS_NONE)
        return PMIX_ERR_PACK_FAILURE;
    used = buf->bytes_used;
    rc = w_uint(buf, PMIX_BYTE_OBJECT, 2);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(buf, 1, 4);
    if (rc == PMIX_SUCCESS)
        rc = w_uint(buf, size, 4);
    if (rc != PMIX_SUCCESS) {
        buf->bytes_used = used;
        buf->pack_ptr = buf->base_ptr + used;
    }
    return rc;
}

pmix_status_t px_bfrops_pack_info_array(pmix_data_buffer_t *buf, const pmix_info_t *info,
                                        size_t ninfo)
{
    static const pmix_info_t none;

    if (ninfo > INT32_MAX || (ninfo && !info))
        return PMIX_ERR_BAD_PARAM;
    return px_bfrops_pack(buf, ninfo ? (const void *)info : (const void *)&none, (int32_t)ninfo,
                          PMIX_INFO);
}
