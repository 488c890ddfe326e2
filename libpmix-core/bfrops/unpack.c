/* bfrops: the decoder (bytes at unpack_ptr -> memory). Input is untrusted: every length
 * is checked against the bytes left before anything is allocated. Any thread. */
#include <stdlib.h>
#include <string.h>

#include "bfrops/bfrops_int.h"
#include "bfrops/px_bfrops.h"
#include "types/px_hwtypes.h"
#include "types/px_type_ops.h"
#include "types/px_types_int.h"

#define EOB PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER
#define BAD PMIX_ERR_UNPACK_FAILURE

static pmix_status_t r_raw(px_bfrops_reader_t *r, void *p, size_t n)
{
    if (n > r->left)
        return EOB;
    if (n)
        memcpy(p, r->p, n);
    r->p += n;
    r->left -= n;
    return PMIX_SUCCESS;
}

static pmix_status_t r_uint(px_bfrops_reader_t *r, uint64_t *v, size_t n)
{
    if (n > r->left)
        return EOB;
    *v = px_bfrops_get_be(r->p, n);
    r->p += n;
    r->left -= n;
    return PMIX_SUCCESS;
}

static pmix_status_t r_u32(px_bfrops_reader_t *r, uint32_t *v)
{
    uint64_t u = 0;
    pmix_status_t rc = r_uint(r, &u, 4);

    *v = (uint32_t)u;
    return rc;
}

static pmix_status_t r_u16(px_bfrops_reader_t *r, uint16_t *v)
{
    uint64_t u = 0;
    pmix_status_t rc = r_uint(r, &u, 2);

    *v = (uint16_t)u;
    return rc;
}

static pmix_status_t r_u8(px_bfrops_reader_t *r, uint8_t *v)
{
    uint64_t u = 0;
    pmix_status_t rc = r_uint(r, &u, 1);

    *v = (uint8_t)u;
    return rc;
}

static pmix_status_t r_i32(px_bfrops_reader_t *r, int32_t *v)
{
    uint32_t u = 0;
    pmix_status_t rc = r_u32(r, &u);

    *v = (int32_t)u;
    return rc;
}

/* A count of elements of type t: rejected unless that many could fit in what is left. */
static pmix_status_t r_count(px_bfrops_reader_t *r, uint32_t *n, pmix_data_type_t t)
{
    pmix_status_t rc = r_u32(r, n);

    if (rc == PMIX_SUCCESS && *n > r->left / px_bfrops_min_wire(t))
        rc = EOB;
    return rc;
}

/* Length-prefixed bytes into a fresh allocation with a NUL after them (NULL when empty). */
static pmix_status_t r_blob(px_bfrops_reader_t *r, char **out, size_t *size)
{
    uint32_t n;
    pmix_status_t rc = r_u32(r, &n);

    if (rc != PMIX_SUCCESS)
        return rc;
    if (n == PX_BFROPS_NONE)
        return BAD;
    if (n > r->left)
        return EOB;
    *size = n;
    if (n == 0)
        return PMIX_SUCCESS;
    *out = malloc((size_t)n + 1);
    if (!*out)
        return PMIX_ERR_NOMEM;
    memcpy(*out, r->p, n);
    (*out)[n] = '\0';
    r->p += n;
    r->left -= n;
    return PMIX_SUCCESS;
}

static pmix_status_t r_str(px_bfrops_reader_t *r, char **out)
{
    uint32_t n;
    pmix_status_t rc = r_u32(r, &n);

    if (rc != PMIX_SUCCESS || n == PX_BFROPS_NONE)
        return rc;
    if (n > r->left)
        return EOB;
    *out = malloc((size_t)n + 1);
    if (!*out)
        return PMIX_ERR_NOMEM;
    memcpy(*out, r->p, n);
    (*out)[n] = '\0';
    r->p += n;
    r->left -= n;
    return PMIX_SUCCESS;
}

/* Into a char[max + 1] (nspace, key). */
static pmix_status_t r_strn(px_bfrops_reader_t *r, char *dst, size_t max)
{
    uint32_t n;
    pmix_status_t rc = r_u32(r, &n);

    if (rc != PMIX_SUCCESS)
        return rc;
    if (n == PX_BFROPS_NONE || n > max)
        return BAD;
    rc = r_raw(r, dst, n);
    if (rc == PMIX_SUCCESS)
        dst[n] = '\0';
    return rc;
}

static pmix_status_t r_argv(px_bfrops_reader_t *r, char ***argv)
{
    uint32_t n;
    pmix_status_t rc = r_u32(r, &n);

    if (rc != PMIX_SUCCESS || n == PX_BFROPS_NONE)
        return rc;
    if (n > r->left / 4)
        return EOB;
    *argv = calloc((size_t)n + 1, sizeof(char *));
    if (!*argv)
        return PMIX_ERR_NOMEM;
    for (uint32_t i = 0; i < n && rc == PMIX_SUCCESS; i++) {
        rc = r_str(r, &(*argv)[i]);
        if (rc == PMIX_SUCCESS && !(*argv)[i])
            rc = BAD; /* a NULL entry would end the list early */
    }
    return rc;
}

/* A counted array of elements of type t, stored through *arr / *n as soon as allocated so
 * that the owner's destruct releases a partial array. */
static pmix_status_t r_array(px_bfrops_reader_t *r, void **arr, size_t *n, pmix_data_type_t t,
                             int depth)
{
    uint32_t cnt;
    size_t es = px_type_size(t);
    pmix_status_t rc = r_count(r, &cnt, t);

    if (rc != PMIX_SUCCESS || cnt == 0)
        return rc;
    *arr = calloc(cnt, es);
    if (!*arr)
        return PMIX_ERR_NOMEM;
    *n = cnt;
    for (uint32_t i = 0; i < cnt && rc == PMIX_SUCCESS; i++)
        rc = px_bfrops_dec_elem(r, (char *)*arr + (size_t)i * es, t, depth + 1);
    return rc;
}

static pmix_status_t r_tv(px_bfrops_reader_t *r, struct timeval *tv)
{
    uint64_t s, u;
    pmix_status_t rc = r_uint(r, &s, 8);

    if (rc == PMIX_SUCCESS)
        rc = r_uint(r, &u, 8);
    if (rc == PMIX_SUCCESS) {
        tv->tv_sec = (time_t)(int64_t)s;
        tv->tv_usec = (suseconds_t)(int64_t)u;
    }
    return rc;
}

static pmix_status_t r_float(px_bfrops_reader_t *r, float *f)
{
    uint32_t u = 0;
    pmix_status_t rc = r_u32(r, &u);

    memcpy(f, &u, 4);
    return rc;
}

static pmix_status_t r_proc(px_bfrops_reader_t *r, pmix_proc_t *p)
{
    pmix_status_t rc = r_strn(r, p->nspace, PMIX_MAX_NSLEN);

    if (rc == PMIX_SUCCESS)
        rc = r_u32(r, &p->rank);
    return rc;
}

/* ---- one element per type (the unpack operation of each row of types/px_type_table.c) ---- */

/* The signature every decoder shares; o and depth are unused by most. */
#define PX_DEC_FN(n)                                                                               \
    pmix_status_t px_bfrops_dec_##n(px_bfrops_reader_t *r, void *e,                                \
                                    const struct px_type_ops *o __attribute__((unused)),           \
                                    int depth __attribute__((unused)))

/* A scalar sent in o->wire bytes into C storage of o->size bytes. */
PX_DEC_FN(int)
{
    bool is_signed = o->num == PX_NUM_SINT;
    uint64_t u = 0;
    int64_t s;
    pmix_status_t rc = r_uint(r, &u, o->wire);

    if (rc != PMIX_SUCCESS)
        return rc;
    s = (int64_t)u;
    if (is_signed && o->wire < 8 && (u >> (8 * o->wire - 1)))
        s = (int64_t)(u | ~((UINT64_C(1) << (8 * o->wire)) - 1)); /* sign-extend */
    if (o->size < 8) {
        int bits = 8 * (int)o->size;
        if (is_signed ? (s < -(INT64_C(1) << (bits - 1)) || s >= (INT64_C(1) << (bits - 1)))
                      : (u >> bits) != 0)
            return BAD; /* does not fit this platform's type */
    }
    switch (o->size) { /* C sizes, not data types */
    case 1:
        *(uint8_t *)e = (uint8_t)s;
        break;
    case 2:
        *(uint16_t *)e = (uint16_t)s;
        break;
    case 4:
        *(uint32_t *)e = (uint32_t)s;
        break;
    case 8:
        *(uint64_t *)e = (uint64_t)s;
        break;
    default:
        return BAD;
    }
    return PMIX_SUCCESS;
}

PX_DEC_FN(bool)
{
    uint64_t u = 0;
    pmix_status_t rc = r_uint(r, &u, 1);

    if (rc == PMIX_SUCCESS && u > 1)
        rc = BAD;
    if (rc == PMIX_SUCCESS)
        *(bool *)e = (u == 1);
    return rc;
}

PX_DEC_FN(float)
{
    return r_float(r, e);
}

PX_DEC_FN(double)
{
    uint64_t u = 0;
    pmix_status_t rc = r_uint(r, &u, 8);

    if (rc == PMIX_SUCCESS)
        memcpy(e, &u, 8);
    return rc;
}

PX_DEC_FN(string)
{
    return r_str(r, (char **)e);
}

PX_DEC_FN(nspace)
{
    return r_strn(r, e, PMIX_MAX_NSLEN);
}

PX_DEC_FN(timeval)
{
    return r_tv(r, e);
}

PX_DEC_FN(proc)
{
    return r_proc(r, e);
}

PX_DEC_FN(value)
{
    pmix_value_t *v = e;
    uint16_t t;
    uint8_t present;
    void *p = NULL;
    px_bfrops_slot_t slot;
    pmix_status_t rc = r_u16(r, &t);

    if (rc != PMIX_SUCCESS)
        return rc;
    slot = px_bfrops_value_slot(t);
    if (slot == PX_BFROPS_SLOT_BAD) /* an unknown type has no slot */
        return BAD;
    if (slot == PX_BFROPS_SLOT_EMPTY) {
        v->type = PMIX_UNDEF;
        return PMIX_SUCCESS;
    }
    if (slot == PX_BFROPS_SLOT_INLINE) {
        rc = px_bfrops_dec_elem(r, &v->data, px_type_in_value(t), depth + 1);
        if (rc != PMIX_SUCCESS) {
            px_type_destruct(&v->data, px_type_in_value(t));
            memset(&v->data, 0, sizeof(v->data));
            return rc;
        }
        v->type = t;
        return PMIX_SUCCESS;
    }
    rc = r_u8(r, &present);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (present > 1)
        return BAD;
    if (present) {
        p = calloc(1, px_type_size(t));
        if (!p)
            return PMIX_ERR_NOMEM;
        rc = px_bfrops_dec_elem(r, p, t, depth + 1);
        if (rc != PMIX_SUCCESS) {
            px_type_destruct(p, t);
            free(p);
            return rc;
        }
    }
    v->data.ptr = p;
    v->type = t;
    return PMIX_SUCCESS;
}

PX_DEC_FN(info)
{
    pmix_info_t *in = e;
    pmix_status_t rc = r_strn(r, in->key, PMIX_MAX_KEYLEN);

    if (rc == PMIX_SUCCESS)
        rc = r_u32(r, &in->flags);
    /* What we unpack is ours to release: never mark it persistent. */
    in->flags &= ~(pmix_info_directives_t)PMIX_INFO_PERSISTENT;
    if (rc == PMIX_SUCCESS)
        rc = px_bfrops_dec_value(r, &in->value, o, depth);
    return rc;
}

PX_DEC_FN(pdata)
{
    pmix_pdata_t *p = e;
    pmix_status_t rc = r_proc(r, &p->proc);

    if (rc == PMIX_SUCCESS)
        rc = r_strn(r, p->key, PMIX_MAX_KEYLEN);
    if (rc == PMIX_SUCCESS)
        rc = px_bfrops_dec_value(r, &p->value, o, depth);
    return rc;
}

PX_DEC_FN(app)
{
    pmix_app_t *a = e;
    int32_t mp;
    pmix_status_t rc = r_str(r, &a->cmd);

    if (rc == PMIX_SUCCESS)
        rc = r_argv(r, &a->argv);
    if (rc == PMIX_SUCCESS)
        rc = r_argv(r, &a->env);
    if (rc == PMIX_SUCCESS)
        rc = r_str(r, &a->cwd);
    if (rc == PMIX_SUCCESS && (rc = r_i32(r, &mp)) == PMIX_SUCCESS)
        a->maxprocs = mp;
    if (rc == PMIX_SUCCESS)
        rc = r_array(r, (void **)&a->info, &a->ninfo, PMIX_INFO, depth);
    return rc;
}

PX_DEC_FN(query)
{
    pmix_query_t *q = e;
    pmix_status_t rc = r_argv(r, &q->keys);

    if (rc == PMIX_SUCCESS)
        rc = r_array(r, (void **)&q->qualifiers, &q->nqual, PMIX_INFO, depth);
    return rc;
}

PX_DEC_FN(bo)
{
    pmix_byte_object_t *bo = e;

    return r_blob(r, &bo->bytes, &bo->size);
}

PX_DEC_FN(regex)
{
    /* a string element: the blob must be one string with its NUL (empty: NULL) */
    char *s = NULL;
    size_t n = 0;
    pmix_status_t rc = r_blob(r, &s, &n);

    if (rc == PMIX_SUCCESS && n != 0 && strlen(s) + 1 != n) {
        free(s);
        return BAD;
    }
    *(char **)e = s;
    return rc;
}

PX_DEC_FN(darray)
{
    pmix_data_array_t *d = e;
    uint16_t et;
    pmix_status_t rc = r_u16(r, &et);

    if (rc != PMIX_SUCCESS)
        return rc;
    d->type = et;
    if (r->left >= 4 && px_bfrops_get_be(r->p, 4) != 0 && !px_type_known(et))
        return BAD;
    return r_array(r, &d->array, &d->size, et, depth);
}

PX_DEC_FN(coord)
{
    pmix_coord_t *c = e;
    uint32_t dims;
    pmix_status_t rc = r_u8(r, &c->view);

    if (rc == PMIX_SUCCESS)
        rc = r_count(r, &dims, PMIX_UINT32);
    if (rc != PMIX_SUCCESS || dims == 0)
        return rc;
    c->coord = calloc(dims, sizeof(uint32_t));
    if (!c->coord)
        return PMIX_ERR_NOMEM;
    c->dims = dims;
    for (uint32_t i = 0; i < dims && rc == PMIX_SUCCESS; i++)
        rc = r_u32(r, &c->coord[i]);
    return rc;
}

PX_DEC_FN(regattr)
{
    pmix_regattr_t *ra = e;
    uint16_t rt;
    pmix_status_t rc = r_str(r, &ra->name);

    if (rc == PMIX_SUCCESS)
        rc = r_strn(r, ra->string, PMIX_MAX_KEYLEN);
    if (rc == PMIX_SUCCESS && (rc = r_u16(r, &rt)) == PMIX_SUCCESS)
        ra->type = rt;
    if (rc == PMIX_SUCCESS)
        rc = r_argv(r, &ra->description);
    return rc;
}

PX_DEC_FN(cpuset)
{
    char *text = NULL;
    pmix_cpuset_t *c = e;
    pmix_status_t rc = r_str(r, &c->source);

    if (rc == PMIX_SUCCESS && (rc = r_str(r, &text)) == PMIX_SUCCESS)
        rc = px_hw_cpuset_from_text(c, text) == PMIX_SUCCESS ? PMIX_SUCCESS : BAD;
    free(text);
    return rc;
}

PX_DEC_FN(topo)
{
    char *text = NULL;
    pmix_topology_t *tp = e;
    pmix_status_t rc = r_str(r, &tp->source);

    if (rc == PMIX_SUCCESS && (rc = r_str(r, &text)) == PMIX_SUCCESS)
        rc = px_hw_topology_from_text(tp, text) == PMIX_SUCCESS ? PMIX_SUCCESS : BAD;
    free(text);
    return rc;
}

PX_DEC_FN(geometry)
{
    pmix_geometry_t *g = e;
    uint64_t fab;
    uint32_t u32;
    pmix_status_t rc = r_uint(r, &fab, 8);

    if (rc == PMIX_SUCCESS && fab > SIZE_MAX)
        rc = BAD;
    if (rc == PMIX_SUCCESS) {
        g->fabric = (size_t)fab;
        rc = r_str(r, &g->uuid);
    }
    if (rc == PMIX_SUCCESS)
        rc = r_str(r, &g->osname);
    if (rc == PMIX_SUCCESS)
        rc = r_count(r, &u32, PMIX_COORD);
    if (rc != PMIX_SUCCESS || u32 == 0)
        return rc;
    g->coordinates = calloc(u32, sizeof(pmix_coord_t));
    if (!g->coordinates)
        return PMIX_ERR_NOMEM;
    g->ncoords = u32;
    for (uint32_t i = 0; i < u32 && rc == PMIX_SUCCESS; i++)
        rc = px_bfrops_dec_coord(r, &g->coordinates[i], o, depth);
    return rc;
}

PX_DEC_FN(ndstats)
{
    pmix_node_stats_t *n = e;
    float *f[] = {&n->la,         &n->la5,       &n->la15,   &n->total_mem,
                  &n->free_mem,   &n->buffers,   &n->cached, &n->swap_cached,
                  &n->swap_total, &n->swap_free, &n->mapped};
    pmix_status_t rc = r_str(r, &n->node);

    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]) && rc == PMIX_SUCCESS; i++)
        rc = r_float(r, f[i]);
    if (rc == PMIX_SUCCESS)
        rc = r_tv(r, &n->sample_time);
    if (rc == PMIX_SUCCESS)
        rc = r_array(r, (void **)&n->diskstats, &n->ndiskstats, PMIX_DISK_STATS, depth);
    if (rc == PMIX_SUCCESS)
        rc = r_array(r, (void **)&n->netstats, &n->nnetstats, PMIX_NET_STATS, depth);
    return rc;
}

PX_DEC_FN(dbuf)
{
    pmix_data_buffer_t *d = e;
    char *bytes = NULL;
    size_t n = 0;
    pmix_status_t rc = r_blob(r, &bytes, &n);

    if (rc == PMIX_SUCCESS)
        px_bfrops_buf_adopt(d, bytes, n);
    return rc;
}

/* Structs made only of strings and fixed-width numbers. */

PX_DEC_FN(pinfo)
{
    pmix_proc_info_t *p = e;
    int32_t i32;
    pmix_status_t rc = r_proc(r, &p->proc);

    if (rc == PMIX_SUCCESS)
        rc = r_str(r, &p->hostname);
    if (rc == PMIX_SUCCESS)
        rc = r_str(r, &p->executable_name);
    if (rc == PMIX_SUCCESS && (rc = r_i32(r, &i32)) == PMIX_SUCCESS)
        p->pid = (pid_t)i32;
    if (rc == PMIX_SUCCESS && (rc = r_i32(r, &i32)) == PMIX_SUCCESS)
        p->exit_code = i32;
    if (rc == PMIX_SUCCESS)
        rc = r_u8(r, &p->state);
    return rc;
}

PX_DEC_FN(envar)
{
    pmix_envar_t *v = e;
    uint8_t u8;
    pmix_status_t rc = r_str(r, &v->envar);

    if (rc == PMIX_SUCCESS)
        rc = r_str(r, &v->value);
    if (rc == PMIX_SUCCESS && (rc = r_u8(r, &u8)) == PMIX_SUCCESS)
        v->separator = (char)u8;
    return rc;
}

PX_DEC_FN(devdist)
{
    pmix_device_distance_t *d = e;
    pmix_status_t rc = r_str(r, &d->uuid);

    if (rc == PMIX_SUCCESS)
        rc = r_str(r, &d->osname);
    if (rc == PMIX_SUCCESS)
        rc = r_uint(r, &d->type, 8);
    if (rc == PMIX_SUCCESS)
        rc = r_u16(r, &d->mindist);
    if (rc == PMIX_SUCCESS)
        rc = r_u16(r, &d->maxdist);
    return rc;
}

PX_DEC_FN(endpoint)
{
    pmix_endpoint_t *d = e;
    pmix_status_t rc = r_str(r, &d->uuid);

    if (rc == PMIX_SUCCESS)
        rc = r_str(r, &d->osname);
    if (rc == PMIX_SUCCESS)
        rc = r_blob(r, &d->endpt.bytes, &d->endpt.size);
    return rc;
}

PX_DEC_FN(device)
{
    pmix_device_t *d = e;
    pmix_status_t rc = r_str(r, &d->uuid);

    if (rc == PMIX_SUCCESS)
        rc = r_str(r, &d->osname);
    if (rc == PMIX_SUCCESS)
        rc = r_uint(r, &d->type, 8);
    return rc;
}

PX_DEC_FN(resunit)
{
    pmix_resource_unit_t *u = e;
    uint64_t u64;
    pmix_status_t rc = r_uint(r, &u->type, 8);

    if (rc == PMIX_SUCCESS)
        rc = r_uint(r, &u64, 8);
    if (rc == PMIX_SUCCESS && u64 > SIZE_MAX)
        rc = BAD;
    if (rc == PMIX_SUCCESS)
        u->count = (size_t)u64;
    return rc;
}

PX_DEC_FN(nodepid)
{
    pmix_node_pid_t *n = e;
    int32_t i32;
    pmix_status_t rc = r_str(r, &n->hostname);

    if (rc == PMIX_SUCCESS)
        rc = r_u32(r, &n->nodeid);
    if (rc == PMIX_SUCCESS && (rc = r_i32(r, &i32)) == PMIX_SUCCESS)
        n->pid = (pid_t)i32;
    return rc;
}

PX_DEC_FN(regex2)
{
    pmix_regex2_t *x = e;
    char *bytes = NULL;
    pmix_status_t rc = r_str(r, &x->type);

    if (rc == PMIX_SUCCESS)
        rc = r_blob(r, &bytes, &x->len);
    x->bytes = (uint8_t *)bytes;
    return rc;
}

PX_DEC_FN(pstats)
{
    pmix_proc_stats_t *s = e;
    uint16_t u16;
    uint8_t u8;
    int32_t i32;
    pmix_status_t rc = r_str(r, &s->node);

    if (rc == PMIX_SUCCESS)
        rc = r_proc(r, &s->proc);
    if (rc == PMIX_SUCCESS && (rc = r_i32(r, &i32)) == PMIX_SUCCESS)
        s->pid = (pid_t)i32;
    if (rc == PMIX_SUCCESS)
        rc = r_str(r, &s->cmd);
    if (rc == PMIX_SUCCESS && (rc = r_u8(r, &u8)) == PMIX_SUCCESS)
        s->state = (char)u8;
    if (rc == PMIX_SUCCESS)
        rc = r_tv(r, &s->time);
    if (rc == PMIX_SUCCESS)
        rc = r_float(r, &s->percent_cpu);
    if (rc == PMIX_SUCCESS)
        rc = r_i32(r, &s->priority);
    if (rc == PMIX_SUCCESS)
        rc = r_u16(r, &s->num_threads);
    if (rc == PMIX_SUCCESS)
        rc = r_float(r, &s->pss);
    if (rc == PMIX_SUCCESS)
        rc = r_float(r, &s->vsize);
    if (rc == PMIX_SUCCESS)
        rc = r_float(r, &s->rss);
    if (rc == PMIX_SUCCESS)
        rc = r_float(r, &s->peak_vsize);
    if (rc == PMIX_SUCCESS && (rc = r_u16(r, &u16)) == PMIX_SUCCESS)
        s->processor = u16;
    if (rc == PMIX_SUCCESS)
        rc = r_tv(r, &s->sample_time);
    return rc;
}

PX_DEC_FN(dkstats)
{
    pmix_disk_stats_t *d = e;
    uint64_t *f[] = {&d->num_reads_completed,  &d->num_reads_merged,        &d->num_sectors_read,
                     &d->milliseconds_reading, &d->num_writes_completed,    &d->num_writes_merged,
                     &d->num_sectors_written,  &d->milliseconds_writing,    &d->num_ios_in_progress,
                     &d->milliseconds_io,      &d->weighted_milliseconds_io};
    pmix_status_t rc = r_str(r, &d->disk);

    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]) && rc == PMIX_SUCCESS; i++)
        rc = r_uint(r, f[i], 8);
    return rc;
}

PX_DEC_FN(netstats)
{
    pmix_net_stats_t *d = e;
    uint64_t *f[] = {&d->num_bytes_recvd, &d->num_packets_recvd, &d->num_recv_errs,
                     &d->num_bytes_sent,  &d->num_packets_sent,  &d->num_send_errs};
    pmix_status_t rc = r_str(r, &d->net_interface);

    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]) && rc == PMIX_SUCCESS; i++)
        rc = r_uint(r, f[i], 8);
    return rc;
}

#undef PX_DEC_FN

pmix_status_t px_bfrops_dec_elem(px_bfrops_reader_t *r, void *e, pmix_data_type_t t, int depth)
{
    const struct px_type_ops *o = px_type_ops(t);

    if (depth > PX_BFROPS_MAX_DEPTH || !o)
        return BAD;
    return o->unpack(r, e, o, depth);
}

/* Destruct and zero elements [0, n) of an array of type t. */
static void release_elems(void *arr, size_t n, pmix_data_type_t t)
{
    size_t es = px_type_size(t);

    for (size_t i = 0; i < n; i++) {
        px_type_destruct((char *)arr + i * es, t);
        memset((char *)arr + i * es, 0, es);
    }
}

pmix_status_t px_bfrops_peek(const pmix_data_buffer_t *buf, pmix_data_type_t *type, int32_t *count)
{
    const uint8_t *p;

    if (!buf || !px_bfrops_buf_valid(buf))
        return PMIX_ERR_BAD_PARAM;
    if (px_bfrops_buf_remaining(buf) < PX_BFROPS_HDR)
        return EOB;
    p = (const uint8_t *)buf->unpack_ptr;
    if (type)
        *type = (pmix_data_type_t)px_bfrops_get_be(p, 2);
    if (px_bfrops_get_be(p + 2, 4) > INT32_MAX)
        return BAD;
    if (count)
        *count = (int32_t)px_bfrops_get_be(p + 2, 4);
    return PMIX_SUCCESS;
}

pmix_status_t px_bfrops_unpack_bo_view(pmix_data_buffer_t *buf, pmix_byte_object_t *bo)
{
    px_bfrops_reader_t r;
    uint16_t tag;
    uint32_t cnt, len;
    pmix_status_t rc;

    if (!buf || !bo || !px_bfrops_buf_valid(buf))
        return PMIX_ERR_BAD_PARAM;
    r.p = (const uint8_t *)buf->unpack_ptr;
    r.left = px_bfrops_buf_remaining(buf);
    rc = r_u16(&r, &tag);
    if (rc == PMIX_SUCCESS && tag != PMIX_BYTE_OBJECT)
        return PMIX_ERR_PACK_MISMATCH;
    if (rc == PMIX_SUCCESS)
        rc = r_u32(&r, &cnt);
    if (rc == PMIX_SUCCESS && cnt != 1)
        rc = BAD;
    if (rc == PMIX_SUCCESS)
        rc = r_u32(&r, &len);
    if (rc == PMIX_SUCCESS && len == PX_BFROPS_NONE)
        rc = BAD;
    if (rc == PMIX_SUCCESS && len > r.left)
        rc = EOB;
    if (rc != PMIX_SUCCESS)
        return rc;
    bo->bytes = len > 0 ? (char *)r.p : NULL;
    bo->size = len;
    buf->unpack_ptr = (char *)r.p + len;
    return PMIX_SUCCESS;
}

pmix_status_t px_bfrops_unpack(pmix_data_buffer_t *buf, void *dest, int32_t *n,
                               pmix_data_type_t type)
{
    px_bfrops_reader_t r;
    uint16_t tag;
    uint32_t cnt, want, i = 0;
    size_t es;
    void *tmp = NULL;
    pmix_status_t rc;

    if (!buf || !dest || !n || *n < 0 || !px_bfrops_buf_valid(buf))
        return PMIX_ERR_BAD_PARAM;
    if (!px_type_known(type))
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    es = px_type_size(type);
    r.p = (const uint8_t *)buf->unpack_ptr;
    r.left = px_bfrops_buf_remaining(buf);
    rc = r_u16(&r, &tag);
    if (rc == PMIX_SUCCESS && tag != type)
        return PMIX_ERR_PACK_MISMATCH;
    if (rc == PMIX_SUCCESS)
        rc = r_count(&r, &cnt, type);
    if (rc == PMIX_SUCCESS && cnt > INT32_MAX)
        rc = BAD;
    if (rc != PMIX_SUCCESS)
        return rc;
    want = cnt < (uint32_t)*n ? cnt : (uint32_t)*n;
    for (i = 0; i < want; i++) {
        memset((char *)dest + (size_t)i * es, 0, es);
        rc = px_bfrops_dec_elem(&r, (char *)dest + (size_t)i * es, type, 0);
        if (rc != PMIX_SUCCESS) {
            i++; /* the partial element is released too */
            goto error;
        }
    }
    /* Elements beyond the caller's space are decoded and dropped, so the item stays
     * whole (validated) and the next unpack starts at the next item. */
    if (want < cnt) {
        tmp = calloc(1, es);
        if (!tmp) {
            rc = PMIX_ERR_NOMEM;
            goto error;
        }
        for (uint32_t k = want; k < cnt && rc == PMIX_SUCCESS; k++) {
            rc = px_bfrops_dec_elem(&r, tmp, type, 0);
            px_type_destruct(tmp, type);
            memset(tmp, 0, es);
        }
        free(tmp);
        if (rc != PMIX_SUCCESS)
            goto error;
    }
    buf->unpack_ptr = (char *)r.p;
    *n = (int32_t)want;
    return want < cnt ? PMIX_ERR_UNPACK_INADEQUATE_SPACE : PMIX_SUCCESS;

error:
    release_elems(dest, i, type);
    return rc;
}

pmix_status_t px_bfrops_unpack_info_array(pmix_data_buffer_t *buf, pmix_info_t **info,
                                          size_t *ninfo)
{
    pmix_data_type_t t;
    int32_t cnt;
    pmix_info_t *arr = NULL;
    pmix_status_t rc;

    if (!info || !ninfo)
        return PMIX_ERR_BAD_PARAM;
    rc = px_bfrops_peek(buf, &t, &cnt);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (t != PMIX_INFO)
        return PMIX_ERR_PACK_MISMATCH;
    /* bound the allocation by what the buffer can hold before trusting the count */
    if ((size_t)cnt > (px_bfrops_buf_remaining(buf) - PX_BFROPS_HDR) / px_bfrops_min_wire(t))
        return EOB;
    if (cnt > 0) {
        arr = calloc((size_t)cnt, sizeof(*arr));
        if (!arr)
            return PMIX_ERR_NOMEM;
        rc = px_bfrops_unpack(buf, arr, &cnt, PMIX_INFO);
    } else {
        pmix_info_t none;
        cnt = 0;
        rc = px_bfrops_unpack(buf, &none, &cnt, PMIX_INFO);
    }
    if (rc != PMIX_SUCCESS) {
        if (rc == PMIX_ERR_UNPACK_INADEQUATE_SPACE)
            release_elems(arr, (size_t)cnt, PMIX_INFO);
        free(arr);
        return rc;
    }
    *info = arr;
    *ninfo = (size_t)cnt;
    return PMIX_SUCCESS;
}

void px_bfrops_info_array_free(pmix_info_t *info, size_t ninfo)
{
    if (!info)
        return;
    release_elems(info, ninfo, PMIX_INFO);
    free(info);
}

size_t px_bfrops_wire_elem(pmix_data_type_t t)
{
    return px_bfrops_min_wire(t);
}

size_t px_bfrops_wire_item(pmix_data_type_t t, size_t k)
{
    return PX_BFROPS_HDR + k * px_bfrops_min_wire(t);
}

pmix_status_t px_bfrops_unpack_count(pmix_data_buffer_t *buf, pmix_data_type_t ctype, size_t each,
                                     size_t max, size_t *n)
{
    char *at;
    int32_t one = 1;
    size_t v = 0;
    uint32_t u = 0;
    pmix_status_t rc;

    if (!n)
        return PMIX_ERR_BAD_PARAM;
    *n = 0;
    if (!buf || each == 0 || (ctype != PMIX_SIZE && ctype != PMIX_UINT32) ||
        !px_bfrops_buf_valid(buf))
        return PMIX_ERR_BAD_PARAM;
    at = buf->unpack_ptr;
    if (ctype == PMIX_SIZE) {
        rc = px_bfrops_unpack(buf, &v, &one, PMIX_SIZE);
    } else {
        rc = px_bfrops_unpack(buf, &u, &one, PMIX_UINT32);
        v = u;
    }
    if (rc != PMIX_SUCCESS)
        return rc;
    /* what is announced must be there: n things of at least `each` bytes */
    if (v > px_bfrops_buf_remaining(buf) / each)
        rc = EOB;
    else if (max > 0 && v > max)
        rc = PMIX_ERR_BAD_PARAM;
    if (rc != PMIX_SUCCESS) {
        buf->unpack_ptr = at;
        return rc;
    }
    *n = v;
    return PMIX_SUCCESS;
}
