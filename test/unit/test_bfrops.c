/* Unit tests of libpmix-core/bfrops: round trips of every data type, partial and
 * mismatched unpacks, truncated/corrupted/oversized input, buffer payload moves and
 * compression. Single thread. PX_BFROPS_CORPUS=dir writes fuzz seeds there. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/bfrops_int.h"
#include "bfrops/px_bfrops.h"
#include "types/px_types.h"

/* ---- helpers ---------------------------------------------------------------------- */

static char **argv_of(const char *a, const char *b)
{
    char **v = calloc(3, sizeof(char *));
    v[0] = a ? strdup(a) : NULL;
    v[1] = a && b ? strdup(b) : NULL;
    return v;
}

static void bo_set(pmix_byte_object_t *bo, const char *bytes, size_t n)
{
    bo->bytes = malloc(n);
    memcpy(bo->bytes, bytes, n);
    bo->size = n;
}

static void info_str(pmix_info_t *in, const char *key, const char *s)
{
    memset(in, 0, sizeof(*in));
    snprintf(in->key, sizeof(in->key), "%s", key);
    in->value.type = PMIX_STRING;
    in->value.data.string = strdup(s);
}

static void info_u32(pmix_info_t *in, const char *key, uint32_t u)
{
    memset(in, 0, sizeof(*in));
    snprintf(in->key, sizeof(in->key), "%s", key);
    in->flags = PMIX_INFO_REQD;
    in->value.type = PMIX_UINT32;
    in->value.data.uint32 = u;
}

static pmix_data_array_t *darray_new(pmix_data_type_t t, size_t n)
{
    pmix_data_array_t *d = calloc(1, sizeof(*d));
    d->type = t;
    d->size = n;
    d->array = n ? calloc(n, px_type_size(t)) : NULL;
    return d;
}

/* An info whose value is a data array of infos, one of which holds a data array of
 * strings: the nesting the wire carries for job/app/node info. */
static void info_nested(pmix_info_t *in, const char *key)
{
    pmix_data_array_t *outer = darray_new(PMIX_INFO, 3), *inner = darray_new(PMIX_STRING, 3);
    pmix_info_t *oi = outer->array;
    char **s = inner->array;

    memset(in, 0, sizeof(*in));
    snprintf(in->key, sizeof(in->key), "%s", key);
    s[0] = strdup("node1");
    s[1] = NULL;
    s[2] = strdup("");
    info_str(&oi[0], "pmix.hname", "node1");
    info_u32(&oi[1], "pmix.lrank", 3);
    memset(&oi[2], 0, sizeof(oi[2]));
    snprintf(oi[2].key, sizeof(oi[2].key), "pmix.nodes");
    oi[2].value.type = PMIX_DATA_ARRAY;
    oi[2].value.data.darray = inner;
    in->value.type = PMIX_DATA_ARRAY;
    in->value.data.darray = outer;
}

static void fill_coord(pmix_coord_t *c, size_t dims)
{
    c->view = 1;
    c->dims = dims;
    c->coord = calloc(dims, sizeof(uint32_t));
    for (size_t i = 0; i < dims; i++)
        c->coord[i] = (uint32_t)(i * 1000 + 7);
}

/* A representative, owned element of type t (release with px_type_destruct). */
static void sample(pmix_data_type_t t, void *e)
{
    px_bfrops_tinfo_t ti = px_bfrops_tinfo(t);

    memset(e, 0, px_type_size(t));
    if (ti.kind == PX_BFROPS_K_INT) {
        memset(e, 0xA5, px_type_size(t)); /* high bit set: exercises sign handling */
        return;
    }
    switch (t) {
    case PMIX_BOOL:
        *(bool *)e = true;
        break;
    case PMIX_FLOAT:
        *(float *)e = -1.5e-30f;
        break;
    case PMIX_DOUBLE:
        *(double *)e = 1.0e300;
        break;
    case PMIX_TIMEVAL:
        ((struct timeval *)e)->tv_sec = -5;
        ((struct timeval *)e)->tv_usec = 999999;
        break;
    case PMIX_STRING:
        *(char **)e = strdup("hello, world");
        break;
    case PMIX_REGEX:
        *(char **)e = strdup("pmix:pxnode[1:0-15]");
        break;
    case PMIX_PROC_NSPACE:
        memset(e, 'n', PMIX_MAX_NSLEN); /* the longest nspace there is */
        break;
    case PMIX_PROC: {
        pmix_proc_t *p = e;
        snprintf(p->nspace, sizeof(p->nspace), "job-1");
        p->rank = PMIX_RANK_UNDEF;
        break;
    }
    case PMIX_VALUE: {
        pmix_value_t *v = e;
        pmix_info_t tmp;
        info_nested(&tmp, "k");
        *v = tmp.value;
        break;
    }
    case PMIX_INFO:
    case PMIX_KVAL:
        info_nested(e, "pmix.job.info");
        break;
    case PMIX_PDATA: {
        pmix_pdata_t *p = e;
        snprintf(p->proc.nspace, sizeof(p->proc.nspace), "pub");
        p->proc.rank = 3;
        snprintf(p->key, sizeof(p->key), "my.key");
        p->value.type = PMIX_UINT64;
        p->value.data.uint64 = UINT64_MAX;
        break;
    }
    case PMIX_APP: {
        pmix_app_t *a = e;
        a->cmd = strdup("/bin/a.out");
        a->argv = argv_of("a.out", "-v");
        a->env = argv_of("A=1", "B=");
        a->cwd = NULL;
        a->maxprocs = -4;
        a->ninfo = 2;
        a->info = calloc(2, sizeof(pmix_info_t));
        info_str(&a->info[0], "pmix.wdir", "/tmp");
        info_nested(&a->info[1], "pmix.app.info");
        break;
    }
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_COMPRESSED_BYTE_OBJECT:
        bo_set(e, "a\0b\0\377", 5);
        break;
    case PMIX_PROC_INFO: {
        pmix_proc_info_t *p = e;
        snprintf(p->proc.nspace, sizeof(p->proc.nspace), "job");
        p->proc.rank = 12;
        p->hostname = strdup("host-12");
        p->executable_name = NULL;
        p->pid = 4242;
        p->exit_code = -9;
        p->state = 9;
        break;
    }
    case PMIX_DATA_ARRAY: {
        pmix_data_array_t *d = darray_new(PMIX_INFO, 2);
        info_nested(&((pmix_info_t *)d->array)[0], "a");
        info_u32(&((pmix_info_t *)d->array)[1], "b", 1);
        *(pmix_data_array_t *)e = *d;
        free(d);
        break;
    }
    case PMIX_QUERY: {
        pmix_query_t *q = e;
        q->keys = argv_of("pmix.qry.ns", "pmix.qry.jst");
        q->nqual = 1;
        q->qualifiers = calloc(1, sizeof(pmix_info_t));
        info_str(&q->qualifiers[0], "pmix.nspace", "job");
        break;
    }
    case PMIX_ENVAR: {
        pmix_envar_t *v = e;
        v->envar = strdup("PATH");
        v->value = strdup("/usr/bin");
        v->separator = ':';
        break;
    }
    case PMIX_COORD:
        fill_coord(e, 3);
        break;
    case PMIX_REGATTR: {
        pmix_regattr_t *r = e;
        r->name = strdup("PMIX_FOO");
        snprintf(r->string, sizeof(r->string), "pmix.foo");
        r->type = PMIX_INT;
        r->description = argv_of("first line", "second line");
        break;
    }
    case PMIX_PROC_CPUSET:
        ((pmix_cpuset_t *)e)->source = strdup("hwloc");
        break;
    case PMIX_TOPO:
        ((pmix_topology_t *)e)->source = strdup("hwloc:2.9");
        break;
    case PMIX_GEOMETRY: {
        pmix_geometry_t *g = e;
        g->fabric = 2;
        g->uuid = strdup("uuid-1");
        g->osname = strdup("ib0");
        g->ncoords = 2;
        g->coordinates = calloc(2, sizeof(pmix_coord_t));
        fill_coord(&g->coordinates[0], 2);
        fill_coord(&g->coordinates[1], 0);
        break;
    }
    case PMIX_DEVICE_DIST: {
        pmix_device_distance_t *d = e;
        d->uuid = strdup("gpu-0");
        d->osname = strdup("card0");
        d->type = 8;
        d->mindist = 1;
        d->maxdist = UINT16_MAX;
        break;
    }
    case PMIX_ENDPOINT: {
        pmix_endpoint_t *p = e;
        p->uuid = strdup("nic");
        p->osname = NULL;
        bo_set(&p->endpt, "\1\2\3", 3);
        break;
    }
    case PMIX_PROC_STATS: {
        pmix_proc_stats_t *s = e;
        s->node = strdup("n1");
        snprintf(s->proc.nspace, sizeof(s->proc.nspace), "j");
        s->pid = 77;
        s->cmd = strdup("a.out");
        s->state = 'R';
        s->time.tv_sec = 100;
        s->percent_cpu = 99.5f;
        s->priority = -20;
        s->num_threads = 4;
        s->rss = 1.25f;
        s->processor = 3;
        s->sample_time.tv_usec = 5;
        break;
    }
    case PMIX_DISK_STATS: {
        pmix_disk_stats_t *d = e;
        d->disk = strdup("sda");
        d->num_reads_completed = 1;
        d->weighted_milliseconds_io = UINT64_MAX;
        break;
    }
    case PMIX_NET_STATS: {
        pmix_net_stats_t *d = e;
        d->net_interface = strdup("eth0");
        d->num_send_errs = 42;
        break;
    }
    case PMIX_NODE_STATS: {
        pmix_node_stats_t *n = e;
        n->node = strdup("n1");
        n->la = 0.5f;
        n->mapped = 3.0f;
        n->ndiskstats = 1;
        n->diskstats = calloc(1, sizeof(pmix_disk_stats_t));
        sample(PMIX_DISK_STATS, n->diskstats);
        n->nnetstats = 2;
        n->netstats = calloc(2, sizeof(pmix_net_stats_t));
        sample(PMIX_NET_STATS, &n->netstats[0]);
        break;
    }
    case PMIX_DATA_BUFFER:
    case PMIX_BUFFER: {
        pmix_data_buffer_t *d = e;
        int32_t i = -7;
        char *s = "inner";
        cr_assert_eq(px_bfrops_pack(d, &i, 1, PMIX_INT32), PMIX_SUCCESS);
        cr_assert_eq(px_bfrops_pack(d, &s, 1, PMIX_STRING), PMIX_SUCCESS);
        break;
    }
    case PMIX_DEVICE: {
        pmix_device_t *d = e;
        d->uuid = strdup("dev");
        d->type = 4;
        break;
    }
    case PMIX_RESOURCE_UNIT: {
        pmix_resource_unit_t *u = e;
        u->type = 2;
        u->count = SIZE_MAX;
        break;
    }
    case PMIX_NODE_PID: {
        pmix_node_pid_t *n = e;
        n->hostname = strdup("h");
        n->nodeid = 5;
        n->pid = -1;
        break;
    }
    case PMIX_REGEX2: {
        pmix_regex2_t *x = e;
        x->type = strdup("pmix");
        x->bytes = malloc(4);
        memcpy(x->bytes, "r\0x", 4);
        x->len = 4;
        break;
    }
    default:
        cr_assert_fail("no sample for type %u", t);
    }
}

/* Types with an encoding: every type the registry knows. */
static bool packable(pmix_data_type_t t)
{
    return px_type_known(t) && px_bfrops_tinfo(t).kind != PX_BFROPS_K_UNKNOWN;
}

/* Unpack items one after another by their tags until the buffer ends or an error;
 * returns the number of whole items read and the last status. Releases everything. */
static pmix_status_t drain(pmix_data_buffer_t *b, int *items)
{
    pmix_status_t rc = PMIX_SUCCESS;
    *items = 0;

    while (px_bfrops_buf_remaining(b) > 0) {
        pmix_data_type_t t;
        int32_t cnt, n;
        void *dest;

        rc = px_bfrops_peek(b, &t, &cnt);
        if (rc != PMIX_SUCCESS)
            break;
        if (!packable(t)) {
            rc = PMIX_ERR_UNKNOWN_DATA_TYPE;
            break;
        }
        n = cnt < 8 ? cnt : 8;
        dest = calloc(n ? (size_t)n : 1, px_type_size(t));
        rc = px_bfrops_unpack(b, dest, &n, t);
        if (rc == PMIX_SUCCESS || rc == PMIX_ERR_UNPACK_INADEQUATE_SPACE) {
            for (int32_t i = 0; i < n; i++)
                px_type_destruct((char *)dest + (size_t)i * px_type_size(t), t);
        }
        free(dest);
        if (rc != PMIX_SUCCESS)
            break;
        (*items)++;
    }
    return rc;
}

static void load_copy(pmix_data_buffer_t *b, const void *bytes, size_t n)
{
    char *c = malloc(n ? n : 1);
    memcpy(c, bytes, n);
    PMIx_Data_buffer_construct(b);
    PMIx_Data_buffer_load(b, c, n);
}

/* Write one fuzz seed when PX_BFROPS_CORPUS names a directory. */
static void seed_bytes(const char *name, const void *bytes, size_t n)
{
    const char *dir = getenv("PX_BFROPS_CORPUS");
    char path[4096];
    FILE *f;

    if (!dir)
        return;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    cr_assert(f, "cannot write %s", path);
    fwrite(bytes, 1, n, f);
    fclose(f);
}

static void seed(const char *name, const pmix_data_buffer_t *b)
{
    seed_bytes(name, b->unpack_ptr, px_bfrops_buf_remaining(b));
}

/* ---- round trips ------------------------------------------------------------------ */

Test(bfrops, every_type_round_trips)
{
    for (pmix_data_type_t t = 1; t < 100; t++) {
        size_t es;
        char *a, *c;
        pmix_data_buffer_t b1, b2;
        int32_t n = 2;
        char name[64];

        if (!packable(t))
            continue;
        es = px_type_size(t);
        a = calloc(2, es);
        c = calloc(2, es);
        sample(t, a);
        sample(t, a + es);
        PMIx_Data_buffer_construct(&b1);
        PMIx_Data_buffer_construct(&b2);
        cr_assert_eq(PMIx_Data_pack(NULL, &b1, a, 2, t), PMIX_SUCCESS, "pack type %u", t);
        snprintf(name, sizeof(name), "type-%u", t);
        seed(name, &b1);
        cr_assert_eq(PMIx_Data_unpack(NULL, &b1, c, &n, t), PMIX_SUCCESS, "unpack type %u", t);
        cr_assert_eq(n, 2);
        cr_assert_eq(px_bfrops_buf_remaining(&b1), 0);
        /* canonical: what was unpacked packs to the same bytes */
        cr_assert_eq(PMIx_Data_pack(NULL, &b2, c, 2, t), PMIX_SUCCESS);
        cr_assert_eq(b1.bytes_used, b2.bytes_used, "type %u", t);
        cr_assert(!memcmp(b1.base_ptr, b2.base_ptr, b1.bytes_used), "type %u differs", t);
        {
            pmix_value_cmp_t cmp = px_type_compare(a, c, t);
            cr_assert(cmp == PMIX_EQUAL || cmp == PMIX_VALUE_COMPARISON_NOT_AVAIL,
                      "type %u compares %d", t, cmp);
        }
        for (int i = 0; i < 2; i++) {
            px_type_destruct(a + i * es, t);
            px_type_destruct(c + i * es, t);
        }
        free(a);
        free(c);
        PMIx_Data_buffer_destruct(&b1);
        PMIx_Data_buffer_destruct(&b2);
    }
}

Test(bfrops, every_type_in_a_value_round_trips)
{
    for (pmix_data_type_t t = 1; t < 100; t++) {
        pmix_value_t v, out;
        pmix_data_buffer_t b;
        int32_t n = 1;
        px_bfrops_slot_t slot = px_bfrops_value_slot(t);

        if (!packable(t) || slot == PX_BFROPS_SLOT_BAD)
            continue;
        memset(&v, 0, sizeof(v));
        v.type = t;
        if (t == PMIX_REGEX) {
            /* a value holds a regex as a byte object (types/px_types.h) */
            cr_assert_eq(PMIx_Value_load(&v, "pmix:pxnode[1:0-15]", t), PMIX_SUCCESS);
        } else if (slot == PX_BFROPS_SLOT_INLINE) {
            sample(t, &v.data);
        } else {
            v.data.ptr = calloc(1, px_type_size(t));
            sample(t, v.data.ptr);
        }
        PMIx_Data_buffer_construct(&b);
        cr_assert_eq(PMIx_Data_pack(NULL, &b, &v, 1, PMIX_VALUE), PMIX_SUCCESS, "type %u", t);
        cr_assert_eq(PMIx_Data_unpack(NULL, &b, &out, &n, PMIX_VALUE), PMIX_SUCCESS);
        cr_assert_eq(out.type, t);
        {
            pmix_value_cmp_t cmp = px_type_compare(&v, &out, PMIX_VALUE);
            cr_assert(cmp == PMIX_EQUAL || cmp == PMIX_VALUE_COMPARISON_NOT_AVAIL,
                      "type %u compares %d", t, cmp);
        }
        px_type_destruct(&v, PMIX_VALUE);
        px_type_destruct(&out, PMIX_VALUE);
        PMIx_Data_buffer_destruct(&b);
    }
}

Test(bfrops, integer_extremes)
{
    int8_t i8[] = {INT8_MIN, -1, 0, INT8_MAX}, o8[4];
    int16_t i16[] = {INT16_MIN, -1, 0, INT16_MAX}, o16[4];
    int32_t i32[] = {INT32_MIN, -1, 0, INT32_MAX}, o32[4];
    int64_t i64[] = {INT64_MIN, -1, 0, INT64_MAX}, o64[4];
    uint64_t u64[] = {0, 1, UINT32_MAX, UINT64_MAX}, ou64[4];
    int in[] = {INT_MIN, -1, 0, INT_MAX}, oin[4];
    size_t sz[] = {0, 1, SIZE_MAX - 1, SIZE_MAX}, osz[4];
    double d[] = {-0.0, 1e-300, -1e300, 3.25}, od[4];
    bool bl[] = {true, false, true, true}, obl[4];
    pmix_data_buffer_t b;
    int32_t n;

    PMIx_Data_buffer_construct(&b);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, i8, 4, PMIX_INT8), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, i16, 4, PMIX_INT16), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, i32, 4, PMIX_INT32), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, i64, 4, PMIX_INT64), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, u64, 4, PMIX_UINT64), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, in, 4, PMIX_INT), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, sz, 4, PMIX_SIZE), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, d, 4, PMIX_DOUBLE), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, bl, 4, PMIX_BOOL), PMIX_SUCCESS);
    n = 4;
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, o8, &n, PMIX_INT8), PMIX_SUCCESS);
    cr_assert(!memcmp(i8, o8, sizeof(i8)));
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, o16, &n, PMIX_INT16), PMIX_SUCCESS);
    cr_assert(!memcmp(i16, o16, sizeof(i16)));
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, o32, &n, PMIX_INT32), PMIX_SUCCESS);
    cr_assert(!memcmp(i32, o32, sizeof(i32)));
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, o64, &n, PMIX_INT64), PMIX_SUCCESS);
    cr_assert(!memcmp(i64, o64, sizeof(i64)));
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, ou64, &n, PMIX_UINT64), PMIX_SUCCESS);
    cr_assert(!memcmp(u64, ou64, sizeof(u64)));
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, oin, &n, PMIX_INT), PMIX_SUCCESS);
    cr_assert(!memcmp(in, oin, sizeof(in)));
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, osz, &n, PMIX_SIZE), PMIX_SUCCESS);
    cr_assert(!memcmp(sz, osz, sizeof(sz)));
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, od, &n, PMIX_DOUBLE), PMIX_SUCCESS);
    cr_assert(!memcmp(d, od, sizeof(d)));
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, obl, &n, PMIX_BOOL), PMIX_SUCCESS);
    cr_assert(!memcmp(bl, obl, sizeof(bl)));
    cr_assert_eq(n, 4);
    PMIx_Data_buffer_destruct(&b);
}

Test(bfrops, byte_order_is_big_endian)
{
    uint32_t v = 0x01020304;
    pmix_data_buffer_t b;
    const uint8_t want[] = {0x00, PMIX_UINT32, 0, 0, 0, 1, 1, 2, 3, 4};

    PMIx_Data_buffer_construct(&b);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, &v, 1, PMIX_UINT32), PMIX_SUCCESS);
    cr_assert_eq(b.bytes_used, sizeof(want));
    cr_assert(!memcmp(b.base_ptr, want, sizeof(want)));
    PMIx_Data_buffer_destruct(&b);
}

Test(bfrops, strings_null_empty_and_many)
{
    char *in[] = {"a", NULL, "", "longer string with spaces"}, *out[4];
    pmix_data_buffer_t b;
    int32_t n = 4;

    PMIx_Data_buffer_construct(&b);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, in, 4, PMIX_STRING), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, out, &n, PMIX_STRING), PMIX_SUCCESS);
    cr_assert_eq(n, 4);
    cr_assert_str_eq(out[0], "a");
    cr_assert_null(out[1]);
    cr_assert_str_eq(out[2], "");
    cr_assert_str_eq(out[3], in[3]);
    for (int i = 0; i < 4; i++)
        free(out[i]);
    PMIx_Data_buffer_destruct(&b);
}

Test(bfrops, app_fields_survive)
{
    pmix_app_t a, o;
    pmix_data_buffer_t b;
    int32_t n = 1;

    sample(PMIX_APP, &a);
    PMIx_Data_buffer_construct(&b);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, &a, 1, PMIX_APP), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, &o, &n, PMIX_APP), PMIX_SUCCESS);
    cr_assert_str_eq(o.cmd, "/bin/a.out");
    cr_assert_str_eq(o.argv[0], "a.out");
    cr_assert_str_eq(o.argv[1], "-v");
    cr_assert_null(o.argv[2]);
    cr_assert_str_eq(o.env[1], "B=");
    cr_assert_null(o.cwd);
    cr_assert_eq(o.maxprocs, -4);
    cr_assert_eq(o.ninfo, 2);
    cr_assert_str_eq(o.info[0].value.data.string, "/tmp");
    cr_assert_eq(o.info[1].value.type, PMIX_DATA_ARRAY);
    cr_assert_eq(o.info[1].value.data.darray->size, 3);
    {
        pmix_info_t *inner = o.info[1].value.data.darray->array;
        pmix_data_array_t *s = inner[2].value.data.darray;
        cr_assert_eq(inner[1].value.data.uint32, 3);
        cr_assert_eq(inner[1].flags, PMIX_INFO_REQD);
        cr_assert_eq(s->type, PMIX_STRING);
        cr_assert_str_eq(((char **)s->array)[0], "node1");
        cr_assert_null(((char **)s->array)[1]);
    }
    px_type_destruct(&a, PMIX_APP);
    px_type_destruct(&o, PMIX_APP);
    PMIx_Data_buffer_destruct(&b);
}

Test(bfrops, data_buffer_inside_buffer)
{
    pmix_data_buffer_t inner, outer, got;
    int32_t n = 1, i;
    char *s;

    sample(PMIX_DATA_BUFFER, &inner);
    PMIx_Data_buffer_construct(&outer);
    cr_assert_eq(PMIx_Data_pack(NULL, &outer, &inner, 1, PMIX_DATA_BUFFER), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_unpack(NULL, &outer, &got, &n, PMIX_DATA_BUFFER), PMIX_SUCCESS);
    n = 1;
    cr_assert_eq(PMIx_Data_unpack(NULL, &got, &i, &n, PMIX_INT32), PMIX_SUCCESS);
    cr_assert_eq(i, -7);
    cr_assert_eq(PMIx_Data_unpack(NULL, &got, &s, &n, PMIX_STRING), PMIX_SUCCESS);
    cr_assert_str_eq(s, "inner");
    free(s);
    PMIx_Data_buffer_destruct(&inner);
    PMIx_Data_buffer_destruct(&outer);
    PMIx_Data_buffer_destruct(&got);
}

Test(bfrops, info_array_helpers)
{
    pmix_info_t in[3], *out = NULL;
    size_t nout = 99;
    pmix_data_buffer_t b;

    info_str(&in[0], "a", "x");
    info_u32(&in[1], "b", 2);
    info_nested(&in[2], "c");
    in[1].flags |= PMIX_INFO_PERSISTENT; /* does not travel */
    PMIx_Data_buffer_construct(&b);
    cr_assert_eq(px_bfrops_pack_info_array(&b, in, 3), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_pack_info_array(&b, NULL, 0), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_unpack_info_array(&b, &out, &nout), PMIX_SUCCESS);
    cr_assert_eq(nout, 3);
    cr_assert_str_eq(out[2].key, "c");
    cr_assert_eq(out[1].flags, PMIX_INFO_REQD);
    px_bfrops_info_array_free(out, nout);
    cr_assert_eq(px_bfrops_unpack_info_array(&b, &out, &nout), PMIX_SUCCESS);
    cr_assert_eq(nout, 0);
    cr_assert_null(out);
    in[1].flags = 0;
    for (int i = 0; i < 3; i++)
        px_type_destruct(&in[i], PMIX_INFO);
    PMIx_Data_buffer_destruct(&b);
}

/* ---- counts and mismatches -------------------------------------------------------- */

Test(bfrops, partial_unpack_skips_rest_of_item)
{
    char *s[3] = {"x", "y", "z"}, *o[3] = {0};
    int32_t v = 5, ov = 0, n = 2;
    pmix_data_buffer_t b;

    PMIx_Data_buffer_construct(&b);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, s, 3, PMIX_STRING), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, &v, 1, PMIX_INT32), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, o, &n, PMIX_STRING), PMIX_ERR_UNPACK_INADEQUATE_SPACE);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(o[0], "x");
    cr_assert_str_eq(o[1], "y");
    cr_assert_null(o[2]);
    n = 1;
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, &ov, &n, PMIX_INT32), PMIX_SUCCESS);
    cr_assert_eq(ov, 5);
    free(o[0]);
    free(o[1]);
    PMIx_Data_buffer_destruct(&b);
}

Test(bfrops, asking_more_than_present)
{
    uint16_t in[2] = {1, 2}, out[5] = {0};
    int32_t n = 5;
    pmix_data_buffer_t b;

    PMIx_Data_buffer_construct(&b);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, in, 2, PMIX_UINT16), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, out, &n, PMIX_UINT16), PMIX_SUCCESS);
    cr_assert_eq(n, 2);
    cr_assert_eq(out[1], 2);
    /* nothing left */
    n = 1;
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, out, &n, PMIX_UINT16),
                 PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    PMIx_Data_buffer_destruct(&b);
}

Test(bfrops, wrong_type_leaves_buffer_alone)
{
    int64_t v = 42, o = 0;
    int32_t i, n = 1;
    pmix_data_buffer_t b;
    char *before;

    PMIx_Data_buffer_construct(&b);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, &v, 1, PMIX_INT64), PMIX_SUCCESS);
    before = b.unpack_ptr;
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, &i, &n, PMIX_INT32), PMIX_ERR_PACK_MISMATCH);
    cr_assert_eq(b.unpack_ptr, before);
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, &o, &n, PMIX_INT64), PMIX_SUCCESS);
    cr_assert_eq(o, 42);
    /* re-unpack by resetting the read position (unpack is non-destructive) */
    b.unpack_ptr = b.base_ptr;
    o = 0;
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, &o, &n, PMIX_INT64), PMIX_SUCCESS);
    cr_assert_eq(o, 42);
    PMIx_Data_buffer_destruct(&b);
}

Test(bfrops, bad_arguments)
{
    pmix_data_buffer_t b;
    int32_t v = 1, n = 1;

    PMIx_Data_buffer_construct(&b);
    cr_assert_eq(PMIx_Data_pack(NULL, NULL, &v, 1, PMIX_INT32), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, NULL, 1, PMIX_INT32), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, &v, -1, PMIX_INT32), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, &v, 1, 499), PMIX_ERR_UNKNOWN_DATA_TYPE);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, &v, 1, PMIX_UNDEF), PMIX_ERR_UNKNOWN_DATA_TYPE);
    cr_assert_eq(b.bytes_used, 0);
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, &v, &n, 499), PMIX_ERR_UNKNOWN_DATA_TYPE);
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, NULL, &n, PMIX_INT32), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, &v, NULL, PMIX_INT32), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, &v, &n, PMIX_INT32),
                 PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    /* an uninitialised-looking buffer is refused */
    b.pack_ptr = (char *)&v;
    cr_assert_eq(PMIx_Data_pack(NULL, &b, &v, 1, PMIX_INT32), PMIX_ERR_BAD_PARAM);
    PMIx_Data_buffer_construct(&b);
}

Test(bfrops, failed_pack_rolls_back)
{
    pmix_data_buffer_t b;
    pmix_value_t v[2];
    int32_t i = 3;
    size_t used;

    PMIx_Data_buffer_construct(&b);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, &i, 1, PMIX_INT32), PMIX_SUCCESS);
    used = b.bytes_used;
    memset(v, 0, sizeof(v));
    v[0].type = PMIX_INT32;
    v[1].type = 499; /* not a type */
    cr_assert_eq(PMIx_Data_pack(NULL, &b, v, 2, PMIX_VALUE), PMIX_ERR_UNKNOWN_DATA_TYPE);
    cr_assert_eq(b.bytes_used, used);
    cr_assert_eq(b.pack_ptr, b.base_ptr + used);
    PMIx_Data_buffer_destruct(&b);
}

/* ---- hostile input ---------------------------------------------------------------- */

/* A buffer with a bit of everything. */
static void complex_buffer(pmix_data_buffer_t *b)
{
    pmix_app_t app;
    pmix_info_t info[2];
    pmix_proc_info_t pi;
    pmix_data_buffer_t inner;
    int64_t i64[3] = {1, -2, INT64_MAX};
    char *strs[2] = {"alpha", NULL};

    sample(PMIX_APP, &app);
    info_nested(&info[0], "n");
    info_str(&info[1], "s", "v");
    sample(PMIX_PROC_INFO, &pi);
    sample(PMIX_DATA_BUFFER, &inner);
    PMIx_Data_buffer_construct(b);
    cr_assert_eq(PMIx_Data_pack(NULL, b, i64, 3, PMIX_INT64), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, b, &app, 1, PMIX_APP), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, b, strs, 2, PMIX_STRING), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, b, info, 2, PMIX_INFO), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, b, &pi, 1, PMIX_PROC_INFO), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, b, &inner, 1, PMIX_DATA_BUFFER), PMIX_SUCCESS);
    px_type_destruct(&app, PMIX_APP);
    px_type_destruct(&info[0], PMIX_INFO);
    px_type_destruct(&info[1], PMIX_INFO);
    px_type_destruct(&pi, PMIX_PROC_INFO);
    PMIx_Data_buffer_destruct(&inner);
}
#define COMPLEX_ITEMS 6

Test(bfrops, every_truncation_fails_cleanly)
{
    pmix_data_buffer_t full, b;
    int items;

    complex_buffer(&full);
    seed("complex", &full);
    load_copy(&b, full.base_ptr, full.bytes_used);
    cr_assert_eq(drain(&b, &items), PMIX_SUCCESS);
    cr_assert_eq(items, COMPLEX_ITEMS);
    PMIx_Data_buffer_destruct(&b);
    for (size_t len = 0; len < full.bytes_used; len++) {
        pmix_status_t rc;
        load_copy(&b, full.base_ptr, len);
        rc = drain(&b, &items);
        cr_assert(items < COMPLEX_ITEMS, "prefix %zu decoded everything", len);
        /* a prefix ending between items reads the whole items before it */
        cr_assert(rc == PMIX_SUCCESS || rc == PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER ||
                      rc == PMIX_ERR_UNPACK_FAILURE,
                  "prefix %zu: status %d", len, rc);
        PMIx_Data_buffer_destruct(&b);
    }
    PMIx_Data_buffer_destruct(&full);
}

Test(bfrops, corrupted_bytes_never_crash)
{
    pmix_data_buffer_t full, b;
    const uint8_t masks[] = {0x01, 0x80, 0xFF, 0x7F};
    int items;

    complex_buffer(&full);
    for (size_t pos = 0; pos < full.bytes_used; pos++) {
        for (size_t m = 0; m < sizeof(masks); m++) {
            load_copy(&b, full.base_ptr, full.bytes_used);
            b.base_ptr[pos] ^= (char)masks[m];
            (void)drain(&b, &items);
            PMIx_Data_buffer_destruct(&b);
        }
    }
    PMIx_Data_buffer_destruct(&full);
}

static pmix_status_t unpack_bytes(const uint8_t *bytes, size_t n, pmix_data_type_t t)
{
    pmix_data_buffer_t b;
    char dest[1024];
    int32_t cnt = 1;
    pmix_status_t rc;

    load_copy(&b, bytes, n);
    rc = px_bfrops_unpack(&b, dest, &cnt, t);
    if (rc == PMIX_SUCCESS || rc == PMIX_ERR_UNPACK_INADEQUATE_SPACE)
        px_type_destruct(dest, t);
    PMIx_Data_buffer_destruct(&b);
    return rc;
}

Test(bfrops, huge_counts_are_rejected_before_allocating)
{
    /* item count far beyond the bytes present */
    const uint8_t many[] = {0, PMIX_STRING, 0x7F, 0xFF, 0xFF, 0xFF, 0, 0, 0, 1, 'a'};
    /* a string claiming 4 GB */
    const uint8_t longstr[] = {0, PMIX_STRING, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xF0, 'a'};
    /* a value holding a data array of 2^32-16 infos */
    const uint8_t bigarr[] = {0, PMIX_VALUE, 0,         0,    0,    1,    0,    PMIX_DATA_ARRAY,
                              1, 0,          PMIX_INFO, 0xFF, 0xFF, 0xFF, 0xF0, 0};
    /* an app whose argv claims 2^31 entries */
    const uint8_t bigargv[] = {0,    PMIX_APP, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF,
                               0xFF, 0x80,     0, 0, 0, 0, 0,    0,    0};
    /* a count that does not fit an int32 */
    const uint8_t negcount[] = {0, PMIX_BYTE, 0x80, 0, 0, 0, 1, 2, 3};
    /* a geometry with 2^32-2 coordinates */
    const uint8_t bigcoords[] = {
        0, PMIX_GEOMETRY, 0,    0,    0,    1,    0,    0,    0,    0,    0,    0,    0,
        0, 0xFF,          0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE};

    cr_assert_eq(unpack_bytes(many, sizeof(many), PMIX_STRING),
                 PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    cr_assert_eq(unpack_bytes(longstr, sizeof(longstr), PMIX_STRING),
                 PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    cr_assert_eq(unpack_bytes(bigarr, sizeof(bigarr), PMIX_VALUE),
                 PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    cr_assert_eq(unpack_bytes(bigargv, sizeof(bigargv), PMIX_APP),
                 PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    cr_assert_neq(unpack_bytes(negcount, sizeof(negcount), PMIX_BYTE), PMIX_SUCCESS);
    cr_assert_eq(unpack_bytes(bigcoords, sizeof(bigcoords), PMIX_GEOMETRY),
                 PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
}

Test(bfrops, malformed_fields_are_rejected)
{
    const uint8_t badbool[] = {0, PMIX_BOOL, 0, 0, 0, 1, 2};
    uint8_t longns[6 + 4 + 256 + 4] = {0, PMIX_PROC, 0, 0, 0, 1, 0, 0, 1, 0}; /* 256 chars */
    const uint8_t nullns[] = {0, PMIX_PROC, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
    const uint8_t badvtype[] = {0, PMIX_VALUE, 0, 0, 0, 1, 0x01, 0xF3};   /* type 499 */
    const uint8_t valinval[] = {0, PMIX_VALUE, 0, 0, 0, 1, 0, PMIX_INFO}; /* no such slot */
    const uint8_t badflag[] = {0, PMIX_VALUE, 0, 0, 0, 1, 0, PMIX_PROC, 2};
    const uint8_t cpuset[] = {0, PMIX_PROC_CPUSET, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 'x'};

    cr_assert_eq(unpack_bytes(badbool, sizeof(badbool), PMIX_BOOL), PMIX_ERR_UNPACK_FAILURE);
    cr_assert_eq(unpack_bytes(longns, sizeof(longns), PMIX_PROC), PMIX_ERR_UNPACK_FAILURE);
    cr_assert_eq(unpack_bytes(nullns, sizeof(nullns), PMIX_PROC), PMIX_ERR_UNPACK_FAILURE);
    cr_assert_eq(unpack_bytes(badvtype, sizeof(badvtype), PMIX_VALUE), PMIX_ERR_UNPACK_FAILURE);
    cr_assert_eq(unpack_bytes(valinval, sizeof(valinval), PMIX_VALUE), PMIX_ERR_UNPACK_FAILURE);
    cr_assert_eq(unpack_bytes(badflag, sizeof(badflag), PMIX_VALUE), PMIX_ERR_UNPACK_FAILURE);
    cr_assert_eq(unpack_bytes(cpuset, sizeof(cpuset), PMIX_PROC_CPUSET), PMIX_ERR_UNPACK_FAILURE);
}

Test(bfrops, nesting_is_bounded)
{
    /* value -> data array of one value -> ... 2000 levels, in 5 + 9 bytes per level */
    size_t levels = 2000, n = 6 + levels * 9 + 2, o = 0;
    uint8_t *p = malloc(n);
    pmix_value_t v, *cur = &v;
    pmix_data_buffer_t b;

    p[o++] = 0;
    p[o++] = PMIX_VALUE;
    px_bfrops_put_be(p + o, 1, 4);
    o += 4;
    for (size_t i = 0; i < levels; i++) {
        const uint8_t lvl[] = {0, PMIX_DATA_ARRAY, 1, 0, PMIX_VALUE, 0, 0, 0, 1};
        memcpy(p + o, lvl, sizeof(lvl));
        o += sizeof(lvl);
    }
    p[o++] = 0;
    p[o++] = 0;
    cr_assert_eq(unpack_bytes(p, o, PMIX_VALUE), PMIX_ERR_UNPACK_FAILURE);
    free(p);

    /* the packer refuses the same depth; a moderate one is fine */
    memset(&v, 0, sizeof(v));
    for (int i = 0; i < 40; i++) {
        pmix_data_array_t *d = darray_new(PMIX_VALUE, 1);
        cur->type = PMIX_DATA_ARRAY;
        cur->data.darray = d;
        cur = d->array;
    }
    PMIx_Data_buffer_construct(&b);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, &v, 1, PMIX_VALUE), PMIX_ERR_PACK_FAILURE);
    cr_assert_eq(b.bytes_used, 0);
    px_type_destruct(&v, PMIX_VALUE);
    memset(&v, 0, sizeof(v));
    cur = &v;
    for (int i = 0; i < 20; i++) {
        pmix_data_array_t *d = darray_new(PMIX_VALUE, 1);
        cur->type = PMIX_DATA_ARRAY;
        cur->data.darray = d;
        cur = d->array;
    }
    cr_assert_eq(PMIx_Data_pack(NULL, &b, &v, 1, PMIX_VALUE), PMIX_SUCCESS);
    {
        pmix_value_t out;
        int32_t cnt = 1;
        cr_assert_eq(PMIx_Data_unpack(NULL, &b, &out, &cnt, PMIX_VALUE), PMIX_SUCCESS);
        cr_assert_eq(px_type_compare(&v, &out, PMIX_VALUE), PMIX_EQUAL);
        px_type_destruct(&out, PMIX_VALUE);
    }
    px_type_destruct(&v, PMIX_VALUE);
    PMIx_Data_buffer_destruct(&b);
}

/* ---- copy, print, payload moves --------------------------------------------------- */

Test(bfrops, copy_and_print)
{
    pmix_app_t a;
    pmix_app_t *c = NULL;
    char *s = NULL, *out = NULL;
    int32_t i = 42;
    pmix_info_t in;

    sample(PMIX_APP, &a);
    cr_assert_eq(PMIx_Data_copy((void **)&c, &a, PMIX_APP), PMIX_SUCCESS);
    cr_assert_str_eq(c->argv[1], "-v");
    cr_assert_neq(c->argv, a.argv);
    px_type_destruct(c, PMIX_APP);
    free(c);
    px_type_destruct(&a, PMIX_APP);
    cr_assert_eq(PMIx_Data_copy((void **)&s, "text", PMIX_STRING), PMIX_SUCCESS);
    cr_assert_str_eq(s, "text");
    free(s);
    cr_assert_eq(PMIx_Data_copy(NULL, &i, PMIX_INT32), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Data_copy((void **)&s, &i, 499), PMIX_ERR_UNKNOWN_DATA_TYPE);

    cr_assert_eq(PMIx_Data_print(&out, "pfx: ", &i, PMIX_INT32), PMIX_SUCCESS);
    cr_assert(!strncmp(out, "pfx: ", 5) && strstr(out, "42"), "got '%s'", out);
    free(out);
    cr_assert_eq(PMIx_Data_print(&out, NULL, "abc", PMIX_STRING), PMIX_SUCCESS);
    cr_assert(strstr(out, "abc"), "got '%s'", out);
    free(out);
    info_str(&in, "my.key", "val");
    cr_assert_eq(PMIx_Data_print(&out, "", &in, PMIX_INFO), PMIX_SUCCESS);
    cr_assert(strstr(out, "my.key") && strstr(out, "val"), "got '%s'", out);
    free(out);
    px_type_destruct(&in, PMIX_INFO);
    cr_assert_eq(PMIx_Data_print(&out, "", &i, 499), PMIX_ERR_BAD_PARAM);
}

Test(bfrops, copy_payload_appends_unread_part)
{
    pmix_data_buffer_t src, dst;
    int32_t a = 1, b = 2, c = 3, o, n = 1;

    PMIx_Data_buffer_construct(&src);
    PMIx_Data_buffer_construct(&dst);
    cr_assert_eq(PMIx_Data_pack(NULL, &src, &a, 1, PMIX_INT32), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, &src, &b, 1, PMIX_INT32), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, &dst, &c, 1, PMIX_INT32), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_unpack(NULL, &src, &o, &n, PMIX_INT32), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_copy_payload(&dst, &src), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_unpack(NULL, &dst, &o, &n, PMIX_INT32), PMIX_SUCCESS);
    cr_assert_eq(o, 3);
    cr_assert_eq(PMIx_Data_unpack(NULL, &dst, &o, &n, PMIX_INT32), PMIX_SUCCESS);
    cr_assert_eq(o, 2);
    cr_assert_eq(px_bfrops_buf_remaining(&dst), 0);
    /* the source is untouched */
    cr_assert_eq(PMIx_Data_unpack(NULL, &src, &o, &n, PMIX_INT32), PMIX_SUCCESS);
    cr_assert_eq(o, 2);
    /* onto itself */
    src.unpack_ptr = src.base_ptr;
    cr_assert_eq(PMIx_Data_copy_payload(&src, &src), PMIX_SUCCESS);
    cr_assert_eq(src.bytes_used, 40);
    cr_assert_eq(PMIx_Data_copy_payload(NULL, &src), PMIX_ERR_BAD_PARAM);
    PMIx_Data_buffer_destruct(&src);
    PMIx_Data_buffer_destruct(&dst);
}

Test(bfrops, load_unload_embed)
{
    pmix_data_buffer_t b, c;
    pmix_byte_object_t bo = {0}, bo2;
    int32_t a = 10, d = 20, o, n = 1;
    pmix_data_buffer_t *h = PMIx_Data_buffer_create();
    char *raw;
    size_t rawn;

    PMIx_Data_buffer_construct(&b);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, &a, 1, PMIX_INT32), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, &d, 1, PMIX_INT32), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, &o, &n, PMIX_INT32), PMIX_SUCCESS);
    /* unload: only the unread part, and the buffer lets go of it */
    cr_assert_eq(PMIx_Data_unload(&b, &bo), PMIX_SUCCESS);
    cr_assert_eq(bo.size, 10);
    cr_assert_null(b.base_ptr);
    cr_assert_eq(b.bytes_used, 0);
    /* embed copies and leaves the payload alone */
    PMIx_Data_buffer_construct(&c);
    cr_assert_eq(PMIx_Data_embed(&c, &bo), PMIX_SUCCESS);
    cr_assert_not_null(bo.bytes);
    cr_assert_eq(PMIx_Data_unpack(NULL, &c, &o, &n, PMIX_INT32), PMIX_SUCCESS);
    cr_assert_eq(o, 20);
    PMIx_Data_buffer_destruct(&c);
    /* load takes the payload over */
    bo2 = bo;
    cr_assert_eq(PMIx_Data_load(h, &bo), PMIX_SUCCESS);
    cr_assert_null(bo.bytes);
    cr_assert_eq(bo.size, 0);
    cr_assert_eq(h->base_ptr, bo2.bytes);
    cr_assert_eq(PMIx_Data_unpack(NULL, h, &o, &n, PMIX_INT32), PMIX_SUCCESS);
    cr_assert_eq(o, 20);
    /* the macro-level load/unload pair */
    h->unpack_ptr = h->base_ptr;
    PMIx_Data_buffer_unload(h, &raw, &rawn);
    cr_assert_eq(rawn, 10);
    PMIx_Data_buffer_load(&b, raw, rawn);
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, &o, &n, PMIX_INT32), PMIX_SUCCESS);
    cr_assert_eq(o, 20);
    cr_assert_eq(PMIx_Data_load(NULL, &bo), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Data_unload(&b, NULL), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Data_embed(&b, NULL), PMIX_ERR_BAD_PARAM);
    PMIx_Data_buffer_destruct(&b);
    PMIx_Data_buffer_release(h);
    PMIx_Data_buffer_release(NULL);
}

/* ---- compression ------------------------------------------------------------------ */

static uint8_t *text_block(size_t n)
{
    static const char *words[] = {"pmix.hname", "node", "rank", "job-info", "=", ",", "42"};
    uint8_t *p = malloc(n);
    uint64_t x = 1;

    for (size_t i = 0; i < n;) {
        const char *w;
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        w = words[(x >> 33) % 7];
        for (size_t k = 0; w[k] && i < n; k++)
            p[i++] = (uint8_t)w[k];
    }
    return p;
}

Test(bfrops, compress_round_trip)
{
    size_t sizes[] = {17, 100, 4096, 70000, 300000};

    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        uint8_t *in = text_block(sizes[s]), *z = NULL, *out = NULL;
        size_t zn = 0, on = 0;
        if (PMIx_Data_compress(in, sizes[s], &z, &zn)) {
            cr_assert_lt(zn, sizes[s]);
            if (sizes[s] == 4096)
                seed_bytes("compressed", z, zn);
            cr_assert(PMIx_Data_decompress(z, zn, &out, &on));
            cr_assert_eq(on, sizes[s]);
            cr_assert(!memcmp(in, out, on));
            free(z);
            free(out);
        } else {
            cr_assert_lt(sizes[s], 200, "text of %zu bytes did not compress", sizes[s]);
            cr_assert_null(z);
        }
        free(in);
    }
    {
        /* one long run: overlapping matches */
        uint8_t run[10000], *z, *out;
        size_t zn, on;
        memset(run, 'a', sizeof(run));
        cr_assert(PMIx_Data_compress(run, sizeof(run), &z, &zn));
        cr_assert_lt(zn, 400);
        cr_assert(PMIx_Data_decompress(z, zn, &out, &on));
        cr_assert_eq(on, sizeof(run));
        cr_assert(!memcmp(run, out, on));
        free(z);
        free(out);
    }
}

Test(bfrops, compress_refuses_what_does_not_shrink)
{
    uint8_t rnd[4096], *z = (uint8_t *)1;
    size_t zn = 1;
    uint64_t x = 7;

    for (size_t i = 0; i < sizeof(rnd); i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        rnd[i] = (uint8_t)(x >> 56);
    }
    cr_assert_not(PMIx_Data_compress(rnd, sizeof(rnd), &z, &zn));
    cr_assert_null(z);
    cr_assert_not(PMIx_Data_compress(rnd, 0, &z, &zn));
    cr_assert_not(PMIx_Data_compress(NULL, 10, &z, &zn));
}

Test(bfrops, decompress_rejects_corruption)
{
    uint8_t *in = text_block(5000), *z, *out;
    size_t zn, on;
    int accepted = 0;

    cr_assert(PMIx_Data_compress(in, 5000, &z, &zn));
    for (size_t len = 0; len < zn; len++)
        cr_assert_not(PMIx_Data_decompress(z, len, &out, &on), "prefix %zu accepted", len);
    for (size_t pos = 0; pos < zn; pos++) {
        for (int bit = 0; bit < 8; bit++) {
            z[pos] ^= (uint8_t)(1u << bit);
            if (PMIx_Data_decompress(z, zn, &out, &on)) {
                accepted++; /* only if the flip kept the output identical */
                cr_assert(on == 5000 && !memcmp(out, in, on));
                free(out);
            }
            z[pos] ^= (uint8_t)(1u << bit);
        }
    }
    cr_assert_lt(accepted, (int)zn); /* a flipped match offset may land on equal bytes */
    {
        /* a header claiming a huge original size is refused before allocating */
        uint8_t hdr[20] = {'P', 'X', 'Z', '1', 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
        cr_assert_not(PMIx_Data_decompress(hdr, sizeof(hdr), &out, &on));
    }
    free(z);
    free(in);
}

/* ---- zero-copy byte object halves ---------------------------------------------------- */

Test(bfrops, bo_head_plus_raw_bytes_equals_a_packed_byte_object)
{
    const char bytes[] = "some output\nwithout a copy";
    size_t n = sizeof(bytes) - 1;
    pmix_byte_object_t bo = {.bytes = (char *)bytes, .size = n}, view;
    pmix_data_buffer_t a, b;
    px_bfrops_buf_init(&a);
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_bfrops_pack(&a, &bo, 1, PMIX_BYTE_OBJECT), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_pack_bo_head(&b, n), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_buf_append(&b, bytes, n), PMIX_SUCCESS);
    cr_assert_eq(a.bytes_used, b.bytes_used);
    cr_assert_eq(memcmp(a.base_ptr, b.base_ptr, a.bytes_used), 0);
    /* the view points into the buffer and consumes the item */
    uint32_t after = 7;
    cr_assert_eq(px_bfrops_pack(&b, &after, 1, PMIX_UINT32), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_unpack_bo_view(&b, &view), PMIX_SUCCESS);
    cr_assert_eq(view.size, n);
    cr_assert(view.bytes > b.base_ptr && view.bytes < b.base_ptr + b.bytes_used);
    cr_assert_eq(memcmp(view.bytes, bytes, n), 0);
    uint32_t got = 0;
    int32_t one = 1;
    cr_assert_eq(px_bfrops_unpack(&b, &got, &one, PMIX_UINT32), PMIX_SUCCESS);
    cr_assert_eq(got, 7);
    /* an empty byte object: NULL bytes, size 0 */
    px_bfrops_buf_free(&a);
    cr_assert_eq(px_bfrops_pack_bo_head(&a, 0), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_unpack_bo_view(&a, &view), PMIX_SUCCESS);
    cr_assert_null(view.bytes);
    cr_assert_eq(view.size, 0);
    px_bfrops_buf_free(&a);
    px_bfrops_buf_free(&b);
}

Test(bfrops, bo_view_refuses_truncated_mismatched_and_counted_items)
{
    pmix_data_buffer_t b;
    pmix_byte_object_t view = {NULL, 0};
    px_bfrops_buf_init(&b);
    /* a head promising 100 bytes with only 10 behind it */
    cr_assert_eq(px_bfrops_pack_bo_head(&b, 100), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_buf_append(&b, "0123456789", 10), PMIX_SUCCESS);
    char *before = b.unpack_ptr;
    cr_assert_eq(px_bfrops_unpack_bo_view(&b, &view), PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    cr_assert_eq(b.unpack_ptr, before, "nothing consumed on error");
    px_bfrops_buf_free(&b);
    /* another type */
    uint32_t v = 1;
    cr_assert_eq(px_bfrops_pack(&b, &v, 1, PMIX_UINT32), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_unpack_bo_view(&b, &view), PMIX_ERR_PACK_MISMATCH);
    px_bfrops_buf_free(&b);
    /* two byte objects in one item: the view takes exactly one */
    pmix_byte_object_t two[2] = {{(char *)"ab", 2}, {(char *)"cd", 2}};
    cr_assert_eq(px_bfrops_pack(&b, two, 2, PMIX_BYTE_OBJECT), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_unpack_bo_view(&b, &view), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    /* a NULL-length marker is not a byte object */
    cr_assert_eq(px_bfrops_pack_bo_head(&b, 0), PMIX_SUCCESS);
    memset(b.base_ptr + 6, 0xff, 4);
    cr_assert_eq(px_bfrops_unpack_bo_view(&b, &view), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    cr_assert_eq(px_bfrops_pack_bo_head(&b, (size_t)UINT32_MAX), PMIX_ERR_PACK_FAILURE);
    cr_assert_eq(b.bytes_used, 0);
}

/* PMIX_REGEX is packed, unpacked, copied and printed as the string PMIx_generate_regex
 * returns (the Standard's "pack the returned expression declaring it PMIX_REGEX"). */
Test(bfrops, regex_strings_pack_unpack_copy)
{
    char *in[2] = {"pmix:pxnode[2:0-63]@pmix:[1:1-2,5]", NULL}, *out[2] = {NULL, NULL};
    char *copy = NULL;
    int32_t n = 2;
    pmix_data_buffer_t b;
    pmix_value_t v, w;

    PMIx_Data_buffer_construct(&b);
    cr_assert_eq(PMIx_Data_pack(NULL, &b, in, 2, PMIX_REGEX), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, out, &n, PMIX_REGEX), PMIX_SUCCESS);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(out[0], in[0]);
    cr_assert_null(out[1]);
    free(out[0]);
    cr_assert_eq(px_bfrops_buf_remaining(&b), 0);

    /* in a value: the byte object with the NUL travels and comes back the same */
    cr_assert_eq(PMIx_Value_load(&v, in[0], PMIX_REGEX), PMIX_SUCCESS);
    n = 1;
    cr_assert_eq(PMIx_Data_pack(NULL, &b, &v, 1, PMIX_VALUE), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, &w, &n, PMIX_VALUE), PMIX_SUCCESS);
    cr_assert_eq(w.type, PMIX_REGEX);
    cr_assert_eq(w.data.bo.size, strlen(in[0]) + 1);
    cr_assert_str_eq(w.data.bo.bytes, in[0]);
    cr_assert_eq(PMIx_Value_compare(&v, &w), PMIX_EQUAL);
    PMIx_Value_destruct(&v);
    PMIx_Value_destruct(&w);

    cr_assert_eq(PMIx_Data_copy((void **)&copy, in[0], PMIX_REGEX), PMIX_SUCCESS);
    cr_assert_str_eq(copy, in[0]);
    cr_assert_neq(copy, in[0]);
    free(copy);
    PMIx_Data_buffer_destruct(&b);
}

/* A regex element on the wire must be one string with its NUL. */
Test(bfrops, regex_element_without_nul_is_refused)
{
    pmix_byte_object_t bo = {.bytes = "pmix:x", .size = 6};
    pmix_data_buffer_t b;
    char *out = NULL;
    int32_t n = 1;

    PMIx_Data_buffer_construct(&b);
    /* the same bytes as a PMIX_REGEX item: tag, count, blob without its NUL */
    cr_assert_eq(PMIx_Data_pack(NULL, &b, &bo, 1, PMIX_BYTE_OBJECT), PMIX_SUCCESS);
    b.base_ptr[0] = (char)(PMIX_REGEX >> 8);
    b.base_ptr[1] = (char)(PMIX_REGEX & 0xff);
    cr_assert_eq(PMIx_Data_unpack(NULL, &b, &out, &n, PMIX_REGEX), PMIX_ERR_UNPACK_FAILURE);
    cr_assert_null(out);
    PMIx_Data_buffer_destruct(&b);
}

/* counts read from the wire: checked against the bytes left before anyone allocates */
Test(bfrops, counts_are_checked_against_the_bytes_left)
{
    pmix_data_buffer_t b;
    size_t n = 7, big = (size_t)1 << 40, three = 3;
    pmix_proc_t procs[3];

    memset(procs, 0, sizeof(procs));
    /* a count of 2^40 procs followed by three: refused, the count stays unread */
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_bfrops_pack(&b, &big, 1, PMIX_SIZE), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_pack(&b, procs, 3, PMIX_PROC), PMIX_SUCCESS);
    char *at = b.unpack_ptr;
    cr_assert_eq(px_bfrops_unpack_count(&b, PMIX_SIZE, px_bfrops_wire_elem(PMIX_PROC), 0, &n),
                 PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    cr_assert_eq(n, 0);
    cr_assert_eq(b.unpack_ptr, at);
    px_bfrops_buf_free(&b);

    /* the count that fits is taken; a protocol maximum below it refuses it */
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_bfrops_pack(&b, &three, 1, PMIX_SIZE), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_pack(&b, procs, 3, PMIX_PROC), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_unpack_count(&b, PMIX_SIZE, px_bfrops_wire_elem(PMIX_PROC), 2, &n),
                 PMIX_ERR_BAD_PARAM);
    cr_assert_eq(px_bfrops_unpack_count(&b, PMIX_SIZE, px_bfrops_wire_elem(PMIX_PROC), 3, &n),
                 PMIX_SUCCESS);
    cr_assert_eq(n, 3);
    int32_t k = 3;
    cr_assert_eq(px_bfrops_unpack(&b, procs, &k, PMIX_PROC), PMIX_SUCCESS);
    /* one byte short of the minimum per element is refused */
    px_bfrops_buf_free(&b);
    uint32_t u = 2;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_bfrops_pack(&b, &u, 1, PMIX_UINT32), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_pack(&b, &u, 1, PMIX_UINT32), PMIX_SUCCESS); /* 10 bytes */
    cr_assert_eq(px_bfrops_unpack_count(&b, PMIX_UINT32, 6, 0, &n),
                 PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    cr_assert_eq(px_bfrops_unpack_count(&b, PMIX_UINT32, 5, 0, &n), PMIX_SUCCESS);
    cr_assert_eq(n, 2);
    /* a count of the wrong type, or none at all */
    cr_assert_eq(px_bfrops_unpack_count(&b, PMIX_SIZE, 1, 0, &n), PMIX_ERR_PACK_MISMATCH);
    cr_assert_eq(px_bfrops_unpack_count(&b, PMIX_INT32, 1, 0, &n), PMIX_ERR_BAD_PARAM);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_bfrops_unpack_count(&b, PMIX_SIZE, 1, 0, &n),
                 PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    px_bfrops_buf_free(&b);
}
