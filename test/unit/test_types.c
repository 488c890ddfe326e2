/* Unit tests of libpmix-core/types: the per-type registry (size, construct, copy,
 * destruct, compare, footprint) for every data type, and the sample elements the other
 * test_types_*.c files use. Single-threaded. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <pmix.h>

#include "types/px_type_ops.h"
#include "types/px_types.h"

/* Every data type of 4.2.2 and master this library knows (test_types_*.c use it too). */
const pmix_data_type_t tt_all_types[] = {PMIX_BOOL,
                                         PMIX_BYTE,
                                         PMIX_STRING,
                                         PMIX_SIZE,
                                         PMIX_PID,
                                         PMIX_INT,
                                         PMIX_INT8,
                                         PMIX_INT16,
                                         PMIX_INT32,
                                         PMIX_INT64,
                                         PMIX_UINT,
                                         PMIX_UINT8,
                                         PMIX_UINT16,
                                         PMIX_UINT32,
                                         PMIX_UINT64,
                                         PMIX_FLOAT,
                                         PMIX_DOUBLE,
                                         PMIX_TIMEVAL,
                                         PMIX_TIME,
                                         PMIX_STATUS,
                                         PMIX_VALUE,
                                         PMIX_PROC,
                                         PMIX_APP,
                                         PMIX_INFO,
                                         PMIX_PDATA,
                                         PMIX_BUFFER,
                                         PMIX_BYTE_OBJECT,
                                         PMIX_KVAL,
                                         PMIX_PERSIST,
                                         PMIX_POINTER,
                                         PMIX_SCOPE,
                                         PMIX_DATA_RANGE,
                                         PMIX_COMMAND,
                                         PMIX_INFO_DIRECTIVES,
                                         PMIX_DATA_TYPE,
                                         PMIX_PROC_STATE,
                                         PMIX_PROC_INFO,
                                         PMIX_DATA_ARRAY,
                                         PMIX_PROC_RANK,
                                         PMIX_QUERY,
                                         PMIX_COMPRESSED_STRING,
                                         PMIX_ALLOC_DIRECTIVE,
                                         PMIX_IOF_CHANNEL,
                                         PMIX_ENVAR,
                                         PMIX_COORD,
                                         PMIX_REGATTR,
                                         PMIX_REGEX,
                                         PMIX_JOB_STATE,
                                         PMIX_LINK_STATE,
                                         PMIX_PROC_CPUSET,
                                         PMIX_GEOMETRY,
                                         PMIX_DEVICE_DIST,
                                         PMIX_ENDPOINT,
                                         PMIX_TOPO,
                                         PMIX_DEVTYPE,
                                         PMIX_LOCTYPE,
                                         PMIX_COMPRESSED_BYTE_OBJECT,
                                         PMIX_PROC_NSPACE,
                                         PMIX_PROC_STATS,
                                         PMIX_DISK_STATS,
                                         PMIX_NET_STATS,
                                         PMIX_NODE_STATS,
                                         PMIX_DATA_BUFFER,
                                         PMIX_STOR_MEDIUM,
                                         PMIX_STOR_ACCESS,
                                         PMIX_STOR_PERSIST,
                                         PMIX_STOR_ACCESS_TYPE,
                                         PMIX_DEVICE,
                                         PMIX_RESBLOCK_DIRECTIVE,
                                         PMIX_RESOURCE_UNIT,
                                         PMIX_NODE_PID,
                                         PMIX_REGEX2,
                                         PMIX_ALLOC_INHERIT};
const size_t tt_num_types = sizeof(tt_all_types) / sizeof(tt_all_types[0]);

static char *xstrdup(const char *s)
{
    char *p = strdup(s);
    cr_assert_not_null(p);
    return p;
}

static void *xmemdup(const void *s, size_t n)
{
    void *p = malloc(n);
    cr_assert_not_null(p);
    memcpy(p, s, n);
    return p;
}

static char **xargv(const char *a, const char *b)
{
    char **v = calloc(3, sizeof(char *));
    cr_assert_not_null(v);
    v[0] = xstrdup(a);
    v[1] = NULL == b ? NULL : xstrdup(b);
    return v;
}

/* Fill elem (storage of px_type_size(t)) with a sample that owns heap memory where the
 * type can; `variant` changes the contents so two samples compare unequal. depth limits
 * the nesting of data arrays / values. */
void tt_fill_sample(void *elem, pmix_data_type_t t, int variant, int depth)
{
    int k = variant + 1;

    px_type_construct(elem, t);
    switch (t) {
    case PMIX_BOOL:
        *(bool *)elem = (variant & 1) == 0;
        break;
    case PMIX_BYTE:
    case PMIX_UINT8:
    case PMIX_PERSIST:
    case PMIX_SCOPE:
    case PMIX_DATA_RANGE:
    case PMIX_COMMAND:
    case PMIX_PROC_STATE:
    case PMIX_ALLOC_DIRECTIVE:
    case PMIX_JOB_STATE:
    case PMIX_LINK_STATE:
    case PMIX_RESBLOCK_DIRECTIVE:
    case PMIX_ALLOC_INHERIT:
        *(uint8_t *)elem = (uint8_t)(200 + k);
        break;
    case PMIX_INT8:
        *(int8_t *)elem = (int8_t)(-100 - k);
        break;
    case PMIX_INT16:
        *(int16_t *)elem = (int16_t)(-30000 - k);
        break;
    case PMIX_UINT16:
    case PMIX_DATA_TYPE:
    case PMIX_IOF_CHANNEL:
    case PMIX_LOCTYPE:
    case PMIX_STOR_ACCESS_TYPE:
        *(uint16_t *)elem = (uint16_t)(60000 + k);
        break;
    case PMIX_INT:
    case PMIX_INT32:
    case PMIX_STATUS:
        *(int32_t *)elem = -2000000000 - k;
        break;
    case PMIX_PID:
        *(pid_t *)elem = 4000 + k;
        break;
    case PMIX_UINT:
    case PMIX_UINT32:
    case PMIX_PROC_RANK:
    case PMIX_INFO_DIRECTIVES:
        *(uint32_t *)elem = 4000000000u + (uint32_t)k;
        break;
    case PMIX_INT64:
        *(int64_t *)elem = INT64_MIN + k;
        break;
    case PMIX_SIZE:
    case PMIX_UINT64:
    case PMIX_DEVTYPE:
    case PMIX_STOR_MEDIUM:
    case PMIX_STOR_ACCESS:
    case PMIX_STOR_PERSIST:
        *(uint64_t *)elem = UINT64_MAX - (uint64_t)k;
        break;
    case PMIX_FLOAT:
        *(float *)elem = 1.5f * (float)k;
        break;
    case PMIX_DOUBLE:
        *(double *)elem = -2.25 * k;
        break;
    case PMIX_TIMEVAL:
        ((struct timeval *)elem)->tv_sec = 1000 + k;
        ((struct timeval *)elem)->tv_usec = 7 * k;
        break;
    case PMIX_TIME:
        *(time_t *)elem = 1700000000 + k;
        break;
    case PMIX_STRING:
        *(char **)elem = xstrdup(variant ? "second string" : "first string");
        break;
    case PMIX_REGEX:
        *(char **)elem = xstrdup(variant ? "pmix:pxnode[1:0-3]" : "pmix:pxnode[1:0-1]");
        break;
    case PMIX_POINTER:
        *(void **)elem = (char *)NULL + 0x1000 * k;
        break;
    case PMIX_PROC:
        PMIx_Load_procid(elem, variant ? "ns-b" : "ns-a", (pmix_rank_t)k);
        break;
    case PMIX_PROC_NSPACE:
        PMIx_Load_nspace(elem, variant ? "nspace-b" : "nspace-a");
        break;
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_COMPRESSED_BYTE_OBJECT: {
        pmix_byte_object_t *b = elem;
        b->bytes = xmemdup(variant ? "\0\1\2\3x" : "\0\1\2\3", 5);
        b->size = variant ? 5 : 4;
        break;
    }
    case PMIX_VALUE:
        if (depth > 0) {
            pmix_data_array_t da;
            tt_fill_sample(&da, PMIX_DATA_ARRAY, variant, depth - 1);
            cr_assert_eq(PMIx_Value_load(elem, &da, PMIX_DATA_ARRAY), PMIX_SUCCESS);
            px_type_destruct(&da, PMIX_DATA_ARRAY);
        } else {
            cr_assert_eq(PMIx_Value_load(elem, variant ? "v1" : "v0", PMIX_STRING), PMIX_SUCCESS);
        }
        break;
    case PMIX_INFO:
    case PMIX_KVAL: {
        pmix_info_t *i = elem;
        PMIx_Load_key(i->key, variant ? "key.b" : "key.a");
        tt_fill_sample(&i->value, PMIX_VALUE, variant, depth);
        break;
    }
    case PMIX_PDATA: {
        pmix_pdata_t *p = elem;
        PMIx_Load_procid(&p->proc, "pdata-ns", (pmix_rank_t)k);
        PMIx_Load_key(p->key, "pdata.key");
        tt_fill_sample(&p->value, PMIX_VALUE, variant, depth);
        break;
    }
    case PMIX_APP: {
        pmix_app_t *a = elem;
        a->cmd = xstrdup(variant ? "/bin/false" : "/bin/true");
        a->argv = xargv("true", variant ? "x" : NULL);
        a->env = xargv("A=1", "B=2");
        a->cwd = xstrdup("/tmp");
        a->maxprocs = k;
        a->info = PMIx_Info_create(2);
        a->ninfo = 2;
        tt_fill_sample(&a->info[0], PMIX_INFO, variant, depth);
        tt_fill_sample(&a->info[1], PMIX_INFO, variant + 1, depth);
        break;
    }
    case PMIX_QUERY: {
        pmix_query_t *q = elem;
        q->keys = xargv("pmix.qry.a", "pmix.qry.b");
        q->qualifiers = PMIx_Info_create(1);
        q->nqual = 1;
        tt_fill_sample(&q->qualifiers[0], PMIX_INFO, variant, depth);
        break;
    }
    case PMIX_PROC_INFO: {
        pmix_proc_info_t *p = elem;
        PMIx_Load_procid(&p->proc, "pinfo", (pmix_rank_t)k);
        p->hostname = xstrdup(variant ? "node2" : "node1");
        p->executable_name = xstrdup("a.out");
        p->pid = 1234 + k;
        p->exit_code = -k;
        p->state = PMIX_PROC_STATE_RUNNING;
        break;
    }
    case PMIX_DATA_ARRAY: {
        /* an array of infos whose values hold arrays (while depth lasts) */
        pmix_data_array_t *d = elem;
        PMIx_Data_array_construct(d, 2, depth > 0 ? PMIX_INFO : PMIX_UINT32);
        cr_assert_not_null(d->array);
        for (size_t i = 0; i < d->size; i++) {
            tt_fill_sample((char *)d->array + i * px_type_size(d->type), d->type, variant + (int)i,
                           depth > 0 ? depth - 1 : 0);
        }
        break;
    }
    case PMIX_ENVAR:
        PMIx_Envar_load(elem, "PATH", variant ? "/usr/bin" : "/bin", ':');
        break;
    case PMIX_COORD: {
        pmix_coord_t *c = elem;
        c->view = PMIX_COORD_LOGICAL_VIEW;
        c->dims = 3;
        c->coord = calloc(3, sizeof(uint32_t));
        cr_assert_not_null(c->coord);
        c->coord[2] = (uint32_t)k;
        break;
    }
    case PMIX_REGATTR:
        PMIx_Regattr_load(elem, variant ? "NAME_B" : "NAME_A", "pmix.attr", PMIX_INT, "first line");
        PMIx_Regattr_load(elem, NULL, NULL, PMIX_INT, "second line");
        break;
    case PMIX_PROC_CPUSET: {
        /* a real hwloc bitmap, owned by the cpuset (types/px_hwtypes.h) */
        hwloc_bitmap_t bm = hwloc_bitmap_alloc();
        cr_assert_not_null(bm);
        hwloc_bitmap_set_range(bm, (unsigned)variant, (int)(variant + k + 1));
        ((pmix_cpuset_t *)elem)->source = xstrdup("hwloc");
        ((pmix_cpuset_t *)elem)->bitmap = bm;
        break;
    }
    case PMIX_TOPO: {
        /* a real (synthetic) hwloc topology: 1 package, k+1+variant cores of 2 PUs */
        hwloc_topology_t topo;
        char desc[64];
        snprintf(desc, sizeof(desc), "pack:1 core:%d pu:2", k + 1 + variant);
        cr_assert_eq(hwloc_topology_init(&topo), 0);
        cr_assert_eq(hwloc_topology_set_synthetic(topo, desc), 0);
        cr_assert_eq(hwloc_topology_load(topo), 0);
        ((pmix_topology_t *)elem)->source = xstrdup("hwloc");
        ((pmix_topology_t *)elem)->topology = topo;
        break;
    }
    case PMIX_GEOMETRY: {
        pmix_geometry_t *g = elem;
        g->fabric = (size_t)k;
        g->uuid = xstrdup("uuid-g");
        g->osname = xstrdup("mlx5_0");
        g->coordinates = PMIx_Coord_create(2, 2);
        g->ncoords = 2;
        g->coordinates[1].coord[1] = (uint32_t)k;
        break;
    }
    case PMIX_DEVICE_DIST: {
        pmix_device_distance_t *d = elem;
        d->uuid = xstrdup("uuid-d");
        d->osname = xstrdup(variant ? "eth1" : "eth0");
        d->type = PMIX_DEVTYPE_NETWORK;
        d->mindist = (uint16_t)k;
        d->maxdist = (uint16_t)(10 * k);
        break;
    }
    case PMIX_ENDPOINT: {
        pmix_endpoint_t *e = elem;
        e->uuid = xstrdup("uuid-e");
        e->osname = xstrdup("ib0");
        e->endpt.bytes = xmemdup("addr", 4);
        e->endpt.size = variant ? 3 : 4;
        break;
    }
    case PMIX_PROC_STATS: {
        pmix_proc_stats_t *p = elem;
        p->node = xstrdup("node");
        p->cmd = xstrdup("cmd");
        PMIx_Load_procid(&p->proc, "stats", (pmix_rank_t)k);
        p->percent_cpu = 0.5f;
        break;
    }
    case PMIX_DISK_STATS:
        ((pmix_disk_stats_t *)elem)->disk = xstrdup("sda");
        ((pmix_disk_stats_t *)elem)->num_reads_completed = (uint64_t)k;
        break;
    case PMIX_NET_STATS:
        ((pmix_net_stats_t *)elem)->net_interface = xstrdup("eth0");
        ((pmix_net_stats_t *)elem)->num_bytes_sent = (uint64_t)k;
        break;
    case PMIX_NODE_STATS: {
        pmix_node_stats_t *n = elem;
        n->node = xstrdup("node");
        n->la = 0.25f * (float)k;
        n->diskstats = calloc(2, sizeof(pmix_disk_stats_t));
        cr_assert_not_null(n->diskstats);
        n->ndiskstats = 2;
        tt_fill_sample(&n->diskstats[0], PMIX_DISK_STATS, variant, 0);
        tt_fill_sample(&n->diskstats[1], PMIX_DISK_STATS, variant + 1, 0);
        n->netstats = calloc(1, sizeof(pmix_net_stats_t));
        cr_assert_not_null(n->netstats);
        n->nnetstats = 1;
        tt_fill_sample(&n->netstats[0], PMIX_NET_STATS, variant, 0);
        break;
    }
    case PMIX_BUFFER:
    case PMIX_DATA_BUFFER: {
        pmix_data_buffer_t *b = elem;
        b->base_ptr = calloc(1, 64);
        cr_assert_not_null(b->base_ptr);
        memcpy(b->base_ptr, "packed-bytes", 12);
        b->base_ptr[0] = (char)('a' + variant);
        b->bytes_allocated = 64;
        b->bytes_used = 12;
        b->pack_ptr = b->base_ptr + 12;
        b->unpack_ptr = b->base_ptr + 2;
        break;
    }
    case PMIX_DEVICE: {
        pmix_device_t *d = elem;
        d->uuid = xstrdup("uuid-dev");
        d->osname = xstrdup(variant ? "gpu1" : "gpu0");
        d->type = PMIX_DEVTYPE_GPU;
        break;
    }
    case PMIX_RESOURCE_UNIT:
        ((pmix_resource_unit_t *)elem)->type = PMIX_DEVTYPE_CORE;
        ((pmix_resource_unit_t *)elem)->count = (size_t)k;
        break;
    case PMIX_NODE_PID: {
        pmix_node_pid_t *n = elem;
        n->hostname = xstrdup(variant ? "hostb" : "hosta");
        n->nodeid = (uint32_t)k;
        n->pid = 99;
        break;
    }
    case PMIX_REGEX2: {
        pmix_regex2_t *r = elem;
        r->type = xstrdup("pmix");
        r->bytes = xmemdup(variant ? "n[1-3]" : "n[1-2]", 6);
        r->len = 6;
        break;
    }
    default:
        cr_assert_fail("no sample for type %u", (unsigned)t);
    }
}

/* Types whose compare is a real order (px_type_compare of different samples is not
 * EQUAL and not "not available"). */
bool tt_type_comparable(pmix_data_type_t t)
{
    switch (t) {
    case PMIX_TOPO:
    case PMIX_PROC_STATS:
    case PMIX_DISK_STATS:
    case PMIX_NET_STATS:
    case PMIX_NODE_STATS:
    case PMIX_POINTER:
        return false;
    default:
        return true;
    }
}

/* ---- registry ---- */

Test(types_registry, every_type_known_with_its_size)
{
    static const struct {
        pmix_data_type_t t;
        size_t sz;
    } expect[] = {
        {PMIX_BOOL, sizeof(bool)},
        {PMIX_BYTE, 1},
        {PMIX_STRING, sizeof(char *)},
        {PMIX_SIZE, sizeof(size_t)},
        {PMIX_PID, sizeof(pid_t)},
        {PMIX_INT, sizeof(int)},
        {PMIX_INT8, 1},
        {PMIX_INT16, 2},
        {PMIX_INT32, 4},
        {PMIX_INT64, 8},
        {PMIX_UINT, sizeof(unsigned int)},
        {PMIX_UINT8, 1},
        {PMIX_UINT16, 2},
        {PMIX_UINT32, 4},
        {PMIX_UINT64, 8},
        {PMIX_FLOAT, sizeof(float)},
        {PMIX_DOUBLE, sizeof(double)},
        {PMIX_TIMEVAL, sizeof(struct timeval)},
        {PMIX_TIME, sizeof(time_t)},
        {PMIX_STATUS, sizeof(pmix_status_t)},
        {PMIX_VALUE, sizeof(pmix_value_t)},
        {PMIX_PROC, sizeof(pmix_proc_t)},
        {PMIX_APP, sizeof(pmix_app_t)},
        {PMIX_INFO, sizeof(pmix_info_t)},
        {PMIX_PDATA, sizeof(pmix_pdata_t)},
        {PMIX_BUFFER, sizeof(pmix_data_buffer_t)},
        {PMIX_BYTE_OBJECT, sizeof(pmix_byte_object_t)},
        {PMIX_KVAL, sizeof(pmix_info_t)},
        {PMIX_PERSIST, 1},
        {PMIX_POINTER, sizeof(void *)},
        {PMIX_SCOPE, 1},
        {PMIX_DATA_RANGE, 1},
        {PMIX_COMMAND, 1},
        {PMIX_INFO_DIRECTIVES, 4},
        {PMIX_DATA_TYPE, 2},
        {PMIX_PROC_STATE, 1},
        {PMIX_PROC_INFO, sizeof(pmix_proc_info_t)},
        {PMIX_DATA_ARRAY, sizeof(pmix_data_array_t)},
        {PMIX_PROC_RANK, 4},
        {PMIX_QUERY, sizeof(pmix_query_t)},
        {PMIX_COMPRESSED_STRING, sizeof(pmix_byte_object_t)},
        {PMIX_ALLOC_DIRECTIVE, 1},
        {PMIX_IOF_CHANNEL, 2},
        {PMIX_ENVAR, sizeof(pmix_envar_t)},
        {PMIX_COORD, sizeof(pmix_coord_t)},
        {PMIX_REGATTR, sizeof(pmix_regattr_t)},
        {PMIX_REGEX, sizeof(char *)},
        {PMIX_JOB_STATE, 1},
        {PMIX_LINK_STATE, 1},
        {PMIX_PROC_CPUSET, sizeof(pmix_cpuset_t)},
        {PMIX_GEOMETRY, sizeof(pmix_geometry_t)},
        {PMIX_DEVICE_DIST, sizeof(pmix_device_distance_t)},
        {PMIX_ENDPOINT, sizeof(pmix_endpoint_t)},
        {PMIX_TOPO, sizeof(pmix_topology_t)},
        {PMIX_DEVTYPE, 8},
        {PMIX_LOCTYPE, 2},
        {PMIX_COMPRESSED_BYTE_OBJECT, sizeof(pmix_byte_object_t)},
        {PMIX_PROC_NSPACE, PMIX_MAX_NSLEN + 1},
        {PMIX_PROC_STATS, sizeof(pmix_proc_stats_t)},
        {PMIX_DISK_STATS, sizeof(pmix_disk_stats_t)},
        {PMIX_NET_STATS, sizeof(pmix_net_stats_t)},
        {PMIX_NODE_STATS, sizeof(pmix_node_stats_t)},
        {PMIX_DATA_BUFFER, sizeof(pmix_data_buffer_t)},
        {PMIX_STOR_MEDIUM, 8},
        {PMIX_STOR_ACCESS, 8},
        {PMIX_STOR_PERSIST, 8},
        {PMIX_STOR_ACCESS_TYPE, 2},
        {PMIX_DEVICE, sizeof(pmix_device_t)},
        {PMIX_RESBLOCK_DIRECTIVE, 1},
        {PMIX_RESOURCE_UNIT, sizeof(pmix_resource_unit_t)},
        {PMIX_NODE_PID, sizeof(pmix_node_pid_t)},
        {PMIX_REGEX2, sizeof(pmix_regex2_t)},
        {PMIX_ALLOC_INHERIT, 1},
    };

    cr_assert_eq(sizeof(expect) / sizeof(expect[0]), tt_num_types);
    for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
        cr_expect(px_type_known(expect[i].t), "type %u", (unsigned)expect[i].t);
        cr_expect_eq(px_type_size(expect[i].t), expect[i].sz, "type %u", (unsigned)expect[i].t);
    }
}

Test(types_registry, unknown_types)
{
    const pmix_data_type_t bad[] = {PMIX_UNDEF, 29 /* MODEX */,     44 /* INFO_ARRAY */, 76,
                                    499,        PMIX_DATA_TYPE_MAX, UINT16_MAX};
    char buf[16] = "untouched";

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_expect_not(px_type_known(bad[i]));
        cr_expect_eq(px_type_size(bad[i]), 0);
        cr_expect_eq(px_type_copy(buf, "x", bad[i]), PMIX_ERR_UNKNOWN_DATA_TYPE);
        px_type_destruct(buf, bad[i]);
        px_type_construct(buf, bad[i]);
        cr_expect_eq(px_type_footprint(buf, bad[i]), 0);
        cr_expect_eq(px_type_compare(buf, buf, bad[i]), PMIX_VALUE_COMPARISON_NOT_AVAIL);
    }
    cr_expect_str_eq(buf, "untouched");
    cr_expect_eq(px_type_copy(NULL, buf, PMIX_INT), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(px_type_copy(buf, NULL, PMIX_INT), PMIX_ERR_BAD_PARAM);
    px_type_destruct(NULL, PMIX_STRING);
}

Test(types_registry, constructed_states)
{
    pmix_proc_t p;
    pmix_device_distance_t d;
    pmix_node_pid_t n;
    pmix_value_t v;
    pmix_pdata_t pd;

    memset(&p, 0x5a, sizeof(p));
    px_type_construct(&p, PMIX_PROC);
    cr_expect_eq(p.rank, PMIX_RANK_UNDEF);
    cr_expect_eq(p.nspace[0], '\0');
    px_type_construct(&d, PMIX_DEVICE_DIST);
    cr_expect_eq(d.mindist, UINT16_MAX);
    cr_expect_eq(d.maxdist, UINT16_MAX);
    cr_expect_null(d.uuid);
    px_type_construct(&n, PMIX_NODE_PID);
    cr_expect_eq(n.nodeid, UINT32_MAX);
    cr_expect_eq(n.pid, -1);
    memset(&v, 0x5a, sizeof(v));
    px_type_construct(&v, PMIX_VALUE);
    cr_expect_eq(v.type, PMIX_UNDEF);
    px_type_construct(&pd, PMIX_PDATA);
    cr_expect_eq(pd.proc.rank, PMIX_RANK_UNDEF);
    cr_expect_eq(pd.value.type, PMIX_UNDEF);
}

/* For every type: sample -> copy -> equal -> independent of the source -> destruct. */
Test(types_registry, copy_compare_destruct_every_type)
{
    for (size_t i = 0; i < tt_num_types; i++) {
        pmix_data_type_t t = tt_all_types[i];
        size_t sz = px_type_size(t);
        unsigned char *a = malloc(sz), *b = malloc(sz), *c = malloc(sz), *z = malloc(sz);

        cr_assert(a && b && c && z);
        tt_fill_sample(a, t, 0, 2);
        tt_fill_sample(c, t, 1, 2);
        memset(b, 0xa5, sz); /* copy must not care about garbage in dest */
        cr_assert_eq(px_type_copy(b, a, t), PMIX_SUCCESS, "type %u", (unsigned)t);
        cr_expect_eq(px_type_compare(a, b, t), PMIX_EQUAL, "type %u", (unsigned)t);
        cr_expect_eq(px_type_footprint(a, t), px_type_footprint(b, t), "type %u", (unsigned)t);
        cr_expect_geq(px_type_footprint(a, t), sz);
        if (tt_type_comparable(t)) {
            pmix_value_cmp_t r1 = px_type_compare(a, c, t), r2 = px_type_compare(c, a, t);
            cr_expect(r1 == PMIX_VALUE1_GREATER || r1 == PMIX_VALUE2_GREATER ||
                          r1 == PMIX_VALUE_INCOMPATIBLE_OBJECTS,
                      "type %u cmp %d", (unsigned)t, r1);
            if (r1 == PMIX_VALUE1_GREATER) {
                cr_expect_eq(r2, PMIX_VALUE2_GREATER, "type %u", (unsigned)t);
            } else if (r1 == PMIX_VALUE2_GREATER) {
                cr_expect_eq(r2, PMIX_VALUE1_GREATER, "type %u", (unsigned)t);
            }
        }
        /* destroying the source leaves the copy intact (valgrind checks the rest) */
        px_type_destruct(a, t);
        px_type_construct(z, t);
        cr_expect_eq(memcmp(a, z, sz), 0, "destruct leaves type %u constructed", (unsigned)t);
        cr_assert_eq(px_type_copy(a, b, t), PMIX_SUCCESS);
        cr_expect_eq(px_type_compare(a, b, t), PMIX_EQUAL, "type %u", (unsigned)t);
        px_type_destruct(a, t);
        px_type_destruct(b, t);
        px_type_destruct(c, t);
        /* destruct twice is harmless */
        px_type_destruct(b, t);
        free(a);
        free(b);
        free(c);
        free(z);
    }
}

Test(types_registry, empty_elements_copy)
{
    for (size_t i = 0; i < tt_num_types; i++) {
        pmix_data_type_t t = tt_all_types[i];
        size_t sz = px_type_size(t);
        unsigned char *a = malloc(sz), *b = malloc(sz);

        cr_assert(a && b);
        px_type_construct(a, t);
        memset(b, 0xff, sz);
        cr_assert_eq(px_type_copy(b, a, t), PMIX_SUCCESS, "type %u", (unsigned)t);
        cr_expect_eq(memcmp(a, b, sz), 0, "type %u", (unsigned)t);
        cr_expect_eq(px_type_footprint(b, t), sz);
        px_type_destruct(b, t);
        free(a);
        free(b);
    }
}

Test(types_registry, numbers_compare_by_value)
{
    int8_t a8 = -5, b8 = 3;
    uint64_t a64 = UINT64_MAX, b64 = 1;
    double da = 1.0, db = 0.0 / 0.0;
    struct timeval t1 = {1, 5}, t2 = {1, 6};

    cr_expect_eq(px_type_compare(&a8, &b8, PMIX_INT8), PMIX_VALUE2_GREATER);
    cr_expect_eq(px_type_compare(&a64, &b64, PMIX_UINT64), PMIX_VALUE1_GREATER);
    cr_expect_eq(px_type_compare(&da, &db, PMIX_DOUBLE), PMIX_VALUE_COMPARISON_NOT_AVAIL);
    cr_expect_eq(px_type_compare(&t1, &t2, PMIX_TIMEVAL), PMIX_VALUE2_GREATER);
}

Test(types_registry, strings_and_arrays_compare)
{
    char *s1 = NULL, *s2 = "a";
    pmix_data_array_t d1, d2;

    cr_expect_eq(px_type_compare(&s1, &s2, PMIX_STRING), PMIX_VALUE2_GREATER);
    cr_expect_eq(px_type_compare(&s1, &s1, PMIX_STRING), PMIX_EQUAL);
    PMIx_Data_array_construct(&d1, 2, PMIX_INT);
    PMIx_Data_array_construct(&d2, 3, PMIX_INT);
    cr_expect_eq(px_type_compare(&d1, &d2, PMIX_DATA_ARRAY), PMIX_VALUE2_GREATER);
    PMIx_Data_array_destruct(&d2);
    PMIx_Data_array_construct(&d2, 2, PMIX_UINT);
    cr_expect_eq(px_type_compare(&d1, &d2, PMIX_DATA_ARRAY), PMIX_VALUE_INCOMPATIBLE_OBJECTS);
    PMIx_Data_array_destruct(&d2);
    PMIx_Data_array_construct(&d2, 2, PMIX_INT);
    ((int *)d2.array)[1] = 7;
    cr_expect_eq(px_type_compare(&d1, &d2, PMIX_DATA_ARRAY), PMIX_VALUE2_GREATER);
    PMIx_Data_array_destruct(&d1);
    PMIx_Data_array_destruct(&d2);
}

Test(types_registry, data_buffer_copy_keeps_offsets)
{
    pmix_data_buffer_t a, b;

    tt_fill_sample(&a, PMIX_DATA_BUFFER, 0, 0);
    cr_assert_eq(px_type_copy(&b, &a, PMIX_DATA_BUFFER), PMIX_SUCCESS);
    cr_expect_neq(a.base_ptr, b.base_ptr);
    cr_expect_eq(b.pack_ptr - b.base_ptr, 12);
    cr_expect_eq(b.unpack_ptr - b.base_ptr, 2);
    cr_expect_eq(b.bytes_used, 12);
    cr_expect_eq(memcmp(b.base_ptr, a.base_ptr, 12), 0);
    px_type_destruct(&a, PMIX_DATA_BUFFER);
    px_type_destruct(&b, PMIX_DATA_BUFFER);
    cr_expect_null(b.base_ptr);
}

Test(types_registry, cpuset_topology_copy_deep)
{
    pmix_cpuset_t a, b;
    pmix_topology_t t, u;

    tt_fill_sample(&a, PMIX_PROC_CPUSET, 0, 0);
    cr_assert_eq(px_type_copy(&b, &a, PMIX_PROC_CPUSET), PMIX_SUCCESS);
    cr_expect_neq(a.bitmap, b.bitmap);
    cr_expect(hwloc_bitmap_isequal(a.bitmap, b.bitmap));
    cr_expect_neq(a.source, b.source);
    cr_expect_str_eq(b.source, "hwloc");
    cr_expect_eq(px_type_compare(&a, &b, PMIX_PROC_CPUSET), PMIX_EQUAL);
    hwloc_bitmap_set(b.bitmap, 40);
    cr_expect_eq(px_type_compare(&a, &b, PMIX_PROC_CPUSET), PMIX_VALUE2_GREATER);
    px_type_destruct(&a, PMIX_PROC_CPUSET);
    px_type_destruct(&b, PMIX_PROC_CPUSET);
    cr_expect_null(b.bitmap);
    tt_fill_sample(&t, PMIX_TOPO, 0, 0);
    cr_assert_eq(px_type_copy(&u, &t, PMIX_TOPO), PMIX_SUCCESS);
    cr_expect_neq(t.topology, u.topology);
    cr_expect_eq(hwloc_get_nbobjs_by_type(u.topology, HWLOC_OBJ_PU), 4);
    cr_expect_eq(px_type_compare(&t, &u, PMIX_TOPO), PMIX_EQUAL);
    PMIx_Topology_destruct(&t);
    PMIx_Topology_destruct(&u);
    cr_expect_null(u.source);
    cr_expect_null(u.topology);
}

/* A bitmap of a source we cannot interpret is refused, not shared. */
Test(types_registry, cpuset_other_source_refused)
{
    pmix_cpuset_t a = {.source = "other", .bitmap = &a}, b;
    pmix_topology_t t = {.source = "other", .topology = &t}, u;

    PMIx_Cpuset_construct(&b);
    PMIx_Topology_construct(&u);
    cr_expect_eq(px_type_copy(&b, &a, PMIX_PROC_CPUSET), PMIX_ERR_NOT_SUPPORTED);
    cr_expect_eq(px_type_copy(&u, &t, PMIX_TOPO), PMIX_ERR_NOT_SUPPORTED);
    cr_expect_null(b.bitmap);
    cr_expect_null(u.topology);
}

Test(types_registry, helpers)
{
    char **v = NULL;
    char *s = (char *)"x";
    char *const src[] = {"a", "bb", NULL};

    cr_expect(px_types_strdup(&s, NULL));
    cr_expect_null(s);
    cr_expect_eq(px_types_argv_copy(&v, NULL), PMIX_SUCCESS);
    cr_expect_null(v);
    cr_expect_eq(px_types_argv_copy(&v, src), PMIX_SUCCESS);
    cr_expect_str_eq(v[1], "bb");
    cr_expect_null(v[2]);
    px_types_argv_free(v);
    px_types_argv_free(NULL);
    cr_expect(px_type_is_number(PMIX_PROC_RANK));
    cr_expect_not(px_type_is_number(PMIX_BOOL));
    cr_expect_not(px_type_is_number(PMIX_STATUS));
}

/* The registry (types/px_type_table.c): every known type has one complete row - the
 * operations every area dispatches through are present, the row describes its own
 * type, and the wire minimum that bounds untrusted counts is never more than what the
 * encoder really writes for an element (else valid input would be rejected). */
Test(types_registry, every_known_type_has_a_complete_row)
{
    int known = 0;

    for (unsigned t = 0; t < 1000; t++) {
        const struct px_type_ops *o = px_type_ops((pmix_data_type_t)t);
        pmix_data_buffer_t buf;
        char elem[1024];

        cr_assert_eq(o != NULL, px_type_known((pmix_data_type_t)t), "type %u", t);
        if (o == NULL) {
            continue;
        }
        known++;
        cr_expect_eq(o->type, t, "row %u names type %u", t, o->type);
        cr_expect_eq(o->size, px_type_size((pmix_data_type_t)t), "type %u", t);
        cr_assert_leq(o->size, sizeof(elem), "type %u", t);
        cr_expect(o->pack != NULL && o->unpack != NULL && o->print != NULL, "type %u", t);
        cr_expect_geq(o->min_wire, 1, "type %u", t);
        /* a copy without an operation is a byte copy: only for types owning nothing */
        cr_expect(o->copy != NULL || (o->release == NULL && o->owned == NULL), "type %u", t);
        cr_expect(o->num == PX_NUM_NONE || o->wire > 0, "type %u", t);
        cr_expect(!o->number || o->num != PX_NUM_NONE, "type %u", t);

        px_type_construct(elem, (pmix_data_type_t)t);
        PMIx_Data_buffer_construct(&buf);
        cr_assert_eq(PMIx_Data_pack(NULL, &buf, elem, 1, (pmix_data_type_t)t), PMIX_SUCCESS,
                     "type %u", t);
        cr_expect_geq(buf.bytes_used - 6, o->min_wire, "type %u: %zu bytes < min_wire %u", t,
                      buf.bytes_used - 6, o->min_wire);
        PMIx_Data_buffer_destruct(&buf);
        px_type_destruct(elem, (pmix_data_type_t)t);
    }
    cr_expect_geq(known, 70, "%d known types", known);
}
