/* Uses every macro and static inline helper of the public headers at least once, so
 * that test/abi/meson.build compiles them all with -Werror (built, not run: the
 * behaviour belongs to the library's unit tests).  Single-threaded, no event loop. */
#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>
#include <stdio.h>

/* The static initializers, at file scope (they must be constant expressions). */
static pmix_coord_t s_coord = PMIX_COORD_STATIC_INIT;
static pmix_cpuset_t s_cpuset = PMIX_CPUSET_STATIC_INIT;
static pmix_topology_t s_topo = PMIX_TOPOLOGY_STATIC_INIT;
static pmix_geometry_t s_geo = PMIX_GEOMETRY_STATIC_INIT;
static pmix_device_distance_t s_dist = PMIX_DEVICE_DIST_STATIC_INIT;
static pmix_byte_object_t s_bo = PMIX_BYTE_OBJECT_STATIC_INIT;
static pmix_endpoint_t s_ep = PMIX_ENDPOINT_STATIC_INIT;
static pmix_envar_t s_envar = PMIX_ENVAR_STATIC_INIT;
static pmix_data_buffer_t s_buf = PMIX_DATA_BUFFER_STATIC_INIT;
static pmix_proc_t s_proc = PMIX_PROC_STATIC_INIT;
static pmix_proc_info_t s_pinfo = PMIX_PROC_INFO_STATIC_INIT;
static pmix_data_array_t s_darray = PMIX_DATA_ARRAY_STATIC_INIT;
static pmix_proc_stats_t s_pstats = PMIX_PROC_STATS_STATIC_INIT;
static pmix_disk_stats_t s_dstats = PMIX_DISK_STATS_STATIC_INIT;
static pmix_net_stats_t s_nstats = PMIX_NET_STATS_STATIC_INIT;
static pmix_node_stats_t s_ndstats = PMIX_NODE_STATS_STATIC_INIT;
static pmix_value_t s_value = PMIX_VALUE_STATIC_INIT;
static pmix_info_t s_info = PMIX_INFO_STATIC_INIT;
static pmix_pdata_t s_pdata = PMIX_LOOKUP_STATIC_INIT;
static pmix_app_t s_app = PMIX_APP_STATIC_INIT;
static pmix_query_t s_query = PMIX_QUERY_STATIC_INIT;
static pmix_regattr_t s_regattr = PMIX_REGATTR_STATIC_INIT;
static pmix_fabric_t s_fabric = PMIX_FABRIC_STATIC_INIT;
static pmix_device_t s_device = PMIX_DEVICE_STATIC_INIT;
static pmix_resource_unit_t s_unit = PMIX_RESOURCE_UNIT_STATIC_INIT;
static pmix_node_pid_t s_nodepid = PMIX_NODE_PID_STATIC_INIT;
static pmix_regex2_t s_regex2 = PMIX_REGEX2_STATIC_INIT;

static int use_identifiers(void)
{
    pmix_proc_t a, b;
    pmix_key_t key;
    pmix_nspace_t ns, cluster, target;
    pmix_info_t info;
    int n = 0;

    PMIX_LOAD_KEY(key, "pmix.test");
    PMIX_LOAD_NSPACE(ns, "job1");
    PMIX_LOAD_PROCID(&a, ns, 0);
    PMIX_XFER_PROCID(&b, &a);
    PMIX_PROCID_XFER(&b, &a);
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_LOAD_KEY(info.key, key);
    n += PMIX_CHECK_KEY(&info, "pmix.test");
    n += PMIX_CHECK_RESERVED_KEY(key);
    n += PMIX_CHECK_NSPACE(a.nspace, b.nspace);
    n += PMIX_CHECK_PROCID(&a, &b);
    n += PMIX_CHECK_RANK(a.rank, PMIX_RANK_WILDCARD);
    n += PMIX_NSPACE_INVALID(ns);
    n += PMIX_PROCID_INVALID(&a);
    n += PMIX_RANK_IS_VALID(a.rank);
    n += PMIX_SYSTEM_EVENT(PMIX_EVENT_NODE_DOWN);
    PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(target, cluster, ns);
    PMIX_MULTICLUSTER_NSPACE_PARSE(target, cluster, ns);
    PMIX_INFO_DESTRUCT(&info);
    return n;
}

static int use_argv(void)
{
    char **argv = NULL, **copy = NULL, **split = NULL, **env = NULL;
    char *joined = NULL;
    pmix_status_t rc;
    int count;

    PMIX_ARGV_APPEND(rc, argv, "one");
    PMIX_ARGV_PREPEND(rc, argv, "zero");
    PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "one");
    PMIX_ARGV_COUNT(count, argv);
    PMIX_ARGV_JOIN(joined, argv, ',');
    PMIX_ARGV_SPLIT(split, joined, ',');
    PMIX_ARGV_COPY(copy, split);
    PMIX_SETENV(rc, "PX_TEST", "1", &env);
    free(joined);
    PMIX_ARGV_FREE(argv);
    PMIX_ARGV_FREE(copy);
    PMIX_ARGV_FREE(split);
    PMIX_ARGV_FREE(env);

    /* the lower-case helpers */
    argv = NULL;
    rc = pmix_argv_append_nosize(&argv, "a");
    rc = pmix_argv_prepend_nosize(&argv, "b");
    rc = pmix_argv_append_unique_nosize(&argv, "a");
    count += pmix_argv_count(argv);
    joined = pmix_argv_join(argv, ':');
    split = pmix_argv_split(joined, ':');
    copy = pmix_argv_split_with_empty(joined, ':');
    pmix_argv_free(copy);
    copy = pmix_argv_split_inter(joined, ':', true);
    pmix_argv_free(copy);
    copy = pmix_argv_copy(split);
    env = NULL;
    rc = pmix_setenv("PX_TEST", "2", true, &env);
    pmix_free(joined);
    pmix_argv_free(argv);
    pmix_argv_free(split);
    pmix_argv_free(copy);
    pmix_argv_free(env);
    return count + (int)rc;
}

static size_t use_small_helpers(void)
{
    char dst[8];
    char *p = (char *)pmix_malloc(4);
    char *q = (char *)pmix_calloc(2, 4);

    pmix_strncpy(dst, "abcdefghij", sizeof(dst) - 1);
    pmix_free(p);
    pmix_free(q);
    return pmix_keylen(dst) + pmix_nslen("job");
}

static void use_structs(void)
{
    pmix_coord_t *coord = NULL, c1;
    pmix_cpuset_t *cpuset = NULL, cs;
    pmix_topology_t *topo = NULL, tp;
    pmix_geometry_t *geo = NULL, g1;
    pmix_device_distance_t *dist = NULL, d1;
    pmix_device_t *dev = NULL, dv;
    pmix_resource_unit_t *unit = NULL, ru;
    pmix_byte_object_t *bos = NULL, bo;
    pmix_endpoint_t *ep = NULL, e1;
    pmix_envar_t *envar = NULL, ev;
    pmix_data_buffer_t *buf = NULL, db;
    pmix_proc_t *procs = NULL, pr;
    pmix_proc_info_t *pinfo = NULL, pi;
    char *bytes;
    size_t nbytes;

    PMIX_COORD_CREATE(coord, 2, 3);
    PMIX_COORD_CONSTRUCT(&c1);
    PMIX_COORD_DESTRUCT(&c1);
    PMIX_COORD_FREE(coord, 2);

    PMIX_CPUSET_CREATE(cpuset, 1);
    PMIX_CPUSET_CONSTRUCT(&cs);
    PMIX_CPUSET_DESTRUCT(&cs);
    PMIX_CPUSET_FREE(cpuset, 1);

    PMIX_TOPOLOGY_CREATE(topo, 1);
    PMIX_TOPOLOGY_CONSTRUCT(&tp);
    PMIX_TOPOLOGY_DESTRUCT(&tp);
    PMIX_TOPOLOGY_FREE(topo, 1);

    PMIX_GEOMETRY_CREATE(geo, 1);
    if (NULL != geo)
        PMIX_GEOMETRY_CONSTRUCT(&g1); /* usable before else (no trailing ';') */
    else
        PMIX_GEOMETRY_CONSTRUCT(&g1);
    PMIX_GEOMETRY_DESTRUCT(&g1);
    PMIX_GEOMETRY_FREE(geo, 1);

    PMIX_DEVICE_DIST_CREATE(dist, 1);
    PMIX_DEVICE_DIST_CONSTRUCT(&d1);
    PMIX_DEVICE_DIST_DESTRUCT(&d1);
    PMIX_DEVICE_DIST_FREE(dist, 1);

    PMIX_DEVICE_CREATE(dev, 1);
    PMIX_DEVICE_CONSTRUCT(&dv);
    PMIX_DEVICE_DESTRUCT(&dv);
    PMIX_DEVICE_FREE(dev, 1);

    PMIX_RESOURCE_UNIT_CREATE(unit, 1);
    PMIX_RESOURCE_UNIT_CONSTRUCT(&ru);
    PMIX_RESOURCE_UNIT_DESTRUCT(&ru);
    PMIX_RESOURCE_UNIT_FREE(unit, 1);

    PMIX_BYTE_OBJECT_CREATE(bos, 1);
    PMIX_BYTE_OBJECT_CONSTRUCT(&bo);
    bytes = (char *)malloc(4);
    nbytes = 4;
    PMIX_BYTE_OBJECT_LOAD(&bo, bytes, nbytes);
    PMIX_BYTE_OBJECT_DESTRUCT(&bo);
    PMIX_BYTE_OBJECT_FREE(bos, 1);

    PMIX_ENDPOINT_CREATE(ep, 1);
    PMIX_ENDPOINT_CONSTRUCT(&e1);
    PMIX_ENDPOINT_DESTRUCT(&e1);
    PMIX_ENDPOINT_FREE(ep, 1);

    PMIX_ENVAR_CREATE(envar, 1);
    PMIX_ENVAR_CONSTRUCT(&ev);
    PMIX_ENVAR_LOAD(&ev, "PATH", "/bin", ':');
    PMIX_ENVAR_DESTRUCT(&ev);
    PMIX_ENVAR_FREE(envar, 1);

    PMIX_DATA_BUFFER_CREATE(buf);
    PMIX_DATA_BUFFER_CONSTRUCT(&db);
    bytes = (char *)malloc(4);
    PMIX_DATA_BUFFER_LOAD(&db, bytes, 4);
    PMIX_DATA_BUFFER_UNLOAD(&db, bytes, nbytes);
    free(bytes);
    PMIX_DATA_BUFFER_DESTRUCT(&db);
    PMIX_DATA_BUFFER_RELEASE(buf);

    PMIX_PROC_CREATE(procs, 2);
    PMIX_PROC_CONSTRUCT(&pr);
    PMIX_PROC_LOAD(&pr, "job", 1);
    PMIX_PROC_DESTRUCT(&pr);
    PMIX_PROC_FREE(procs, 2);
    PMIX_PROC_CREATE(procs, 1);
    PMIX_PROC_RELEASE(procs);

    PMIX_PROC_INFO_CREATE(pinfo, 2);
    PMIX_PROC_INFO_CONSTRUCT(&pi);
    PMIX_PROC_INFO_DESTRUCT(&pi);
    PMIX_PROC_INFO_FREE(pinfo, 2);
    PMIX_PROC_INFO_CREATE(pinfo, 1);
    PMIX_PROC_INFO_RELEASE(pinfo);
}

static void use_stats(void)
{
    pmix_proc_stats_t *ps = NULL, p1;
    pmix_disk_stats_t *ds = NULL, d1;
    pmix_net_stats_t *ns = NULL, n1;
    pmix_node_stats_t *nd = NULL, nd1;

    PMIX_PROC_STATS_CREATE(ps, 2);
    PMIX_PROC_STATS_CONSTRUCT(&p1);
    PMIX_PROC_STATS_DESTRUCT(&p1);
    PMIX_PROC_STATS_FREE(ps, 2);
    PMIX_PROC_STATS_CREATE(ps, 1);
    PMIX_PROC_STATS_RELEASE(ps);
    pmix_proc_stats_free(&p1, 1);

    PMIX_DISK_STATS_CREATE(ds, 2);
    PMIX_DISK_STATS_CONSTRUCT(&d1);
    PMIX_DISK_STATS_DESTRUCT(&d1);
    PMIX_DISK_STATS_FREE(ds, 2);
    PMIX_DISK_STATS_CREATE(ds, 1);
    PMIX_DISK_STATS_RELEASE(ds);
    pmix_disk_stats_free(&d1, 1);

    PMIX_NET_STATS_CREATE(ns, 2);
    PMIX_NET_STATS_CONSTRUCT(&n1);
    PMIX_NET_STATS_DESTRUCT(&n1);
    PMIX_NET_STATS_FREE(ns, 2);
    PMIX_NET_STATS_CREATE(ns, 1);
    PMIX_NET_STATS_RELEASE(ns);
    pmix_net_stats_free(&n1, 1);

    PMIX_NODE_STATS_CREATE(nd, 2);
    PMIX_NODE_STATS_CONSTRUCT(&nd1);
    PMIX_NODE_STATS_DESTRUCT(&nd1);
    PMIX_NODE_STATS_FREE(nd, 2);
    PMIX_NODE_STATS_CREATE(nd, 1);
    PMIX_NODE_STATS_RELEASE(nd); /* destructs only, as in 4.2.2 */
    free(nd);
    pmix_node_stats_free(&nd1, 1);
}

static int use_values_and_infos(void)
{
    pmix_value_t *vals = NULL, v1, *pv = NULL;
    pmix_info_t *infos = NULL, i1, i2;
    pmix_data_array_t *da = NULL, da1;
    pmix_pdata_t *pd = NULL, pd1, pd2;
    pmix_proc_t me;
    pmix_status_t rc;
    uint32_t u32 = 5;
    int64_t num = 0;
    void *list = NULL;
    void *out = NULL;
    size_t sz = 0;
    int n = 0;

    PMIX_VALUE_CREATE(vals, 2);
    PMIX_VALUE_CONSTRUCT(&v1);
    PMIX_VALUE_LOAD(&v1, &u32, PMIX_UINT32);
    PMIX_VALUE_GET_NUMBER(rc, &v1, num, int64_t);
    PMIX_VALUE_UNLOAD(rc, &v1, &out, &sz);
    free(out);
    PMIX_VALUE_XFER(rc, pv, &v1);
    PMIX_VALUE_XFER_DIRECT(rc, &vals[0], &v1);
    n += PMIX_CHECK_TRUE(&v1);
    n += PMIX_CHECK_BOOL(&v1);
    n += pmix_check_true(&v1) == PMIX_NON_BOOL;
    PMIX_VALUE_DESTRUCT(&v1);
    PMIX_VALUE_RELEASE(pv);
    PMIX_VALUE_FREE(vals, 2);

    PMIX_INFO_CREATE(infos, 3);
    PMIX_INFO_CONSTRUCT(&i1);
    PMIX_INFO_LOAD(&i1, PMIX_TIMEOUT, &u32, PMIX_UINT32);
    PMIX_INFO_LOAD(&i2, PMIX_WAIT, NULL, PMIX_BOOL);
    PMIX_INFO_XFER(&infos[0], &i1);
    PMIX_INFO_REQUIRED(&i1);
    PMIX_INFO_OPTIONAL(&i1);
    n += PMIX_INFO_IS_REQUIRED(&i1);
    n += PMIX_INFO_IS_OPTIONAL(&i1);
    PMIX_INFO_PROCESSED(&i1);
    n += PMIX_INFO_WAS_PROCESSED(&i1);
    PMIX_INFO_SET_END(&i1);
    n += PMIX_INFO_IS_END(&i1);
    PMIX_INFO_SET_QUALIFIER(&i1);
    n += PMIX_INFO_IS_QUALIFIER(&i1);
    PMIX_INFO_SET_PERSISTENT(&i1);
    n += PMIX_INFO_IS_PERSISTENT(&i1);
    n += PMIX_INFO_TRUE(&i2);
    PMIX_INFO_DESTRUCT(&i1);
    PMIX_INFO_DESTRUCT(&i2);
    PMIX_INFO_FREE(infos, 3);

    PMIX_INFO_LIST_START(list);
    PMIX_INFO_LIST_ADD(rc, list, PMIX_TIMEOUT, &u32, PMIX_UINT32);
    PMIX_INFO_LIST_PREPEND(rc, list, PMIX_WAIT, NULL, PMIX_BOOL);
    PMIX_INFO_CONSTRUCT(&i1);
    PMIX_INFO_LOAD(&i1, PMIX_TIMEOUT, &u32, PMIX_UINT32);
    PMIX_INFO_LIST_XFER(rc, list, &i1);
    PMIX_INFO_LIST_INSERT(rc, list, &i1);
    PMIX_DATA_ARRAY_INIT(&da1, PMIX_INFO);
    PMIX_INFO_LIST_CONVERT(rc, list, &da1);
    PMIX_INFO_LIST_RELEASE(list);
    PMIX_DATA_ARRAY_DESTRUCT(&da1);
    PMIX_DATA_ARRAY_CONSTRUCT(&da1, 2, PMIX_UINT32);
    PMIX_DATA_ARRAY_DESTRUCT(&da1);
    PMIX_DATA_ARRAY_CREATE(da, 2, PMIX_PROC);
    PMIX_DATA_ARRAY_FREE(da);

    PMIX_PDATA_CREATE(pd, 2);
    PMIX_PDATA_CONSTRUCT(&pd1);
    PMIX_LOAD_PROCID(&me, "job", 0);
    PMIX_PDATA_LOAD(&pd1, &me, "key", &u32, PMIX_UINT32);
    PMIX_PDATA_XFER(&pd2, &pd1);
    PMIX_PDATA_DESTRUCT(&pd1);
    pmix_pdata_free(&pd2, 1);
    PMIX_PDATA_FREE(pd, 2);
    PMIX_PDATA_CREATE(pd, 1);
    PMIX_PDATA_RELEASE(pd);
    return n + (int)rc + (int)num;
}

static void use_apps_queries_attrs(void)
{
    pmix_app_t *apps = NULL, a1;
    pmix_query_t *queries = NULL, q1;
    pmix_regattr_t *attrs = NULL, r1, r2;
    pmix_fabric_t fabric;

    PMIX_APP_CREATE(apps, 2);
    PMIX_APP_CONSTRUCT(&a1);
    PMIX_APP_INFO_CREATE(&a1, 2);
    PMIX_APP_DESTRUCT(&a1);
    pmix_app_free(&a1, 1);
    PMIX_APP_FREE(apps, 2);
    PMIX_APP_CREATE(apps, 1);
    PMIX_APP_RELEASE(apps);

    PMIX_QUERY_CREATE(queries, 2);
    PMIX_QUERY_CONSTRUCT(&q1);
    PMIX_QUERY_QUALIFIERS_CREATE(&q1, 1);
    PMIX_QUERY_DESTRUCT(&q1);
    PMIX_QUERY_FREE(queries, 2);
    PMIX_QUERY_CREATE(queries, 1);
    PMIX_QUERY_RELEASE(queries);

    PMIX_REGATTR_CREATE(attrs, 2);
    PMIX_REGATTR_CONSTRUCT(&r1);
    PMIX_REGATTR_LOAD(&r1, "PMIX_TIMEOUT", PMIX_TIMEOUT, PMIX_INT, "seconds");
    PMIX_REGATTR_XFER(&r2, &r1);
    PMIX_REGATTR_DESTRUCT(&r1);
    PMIX_REGATTR_DESTRUCT(&r2);
    PMIX_REGATTR_FREE(attrs, 2);

    PMIX_FABRIC_CONSTRUCT(&fabric);
}

int main(void)
{
    int n = 0;

    PMIx_Heartbeat(); /* a function (master), not a macro */
    n += use_identifiers();
    n += use_argv();
    n += (int)use_small_helpers();
    use_structs();
    use_stats();
    n += use_values_and_infos();
    use_apps_queries_attrs();
    n += s_coord.dims == 0 && s_cpuset.source == NULL;
    n += s_topo.source == NULL && s_geo.uuid == NULL && s_dist.uuid == NULL && s_bo.bytes == NULL;
    n += s_ep.uuid == NULL && s_envar.envar == NULL && s_buf.base_ptr == NULL;
    n += s_proc.rank == PMIX_RANK_UNDEF && s_pinfo.hostname == NULL && s_darray.array == NULL;
    n += s_pstats.node == NULL && s_dstats.disk == NULL && s_nstats.net_interface == NULL;
    n += s_ndstats.node == NULL && s_value.type == PMIX_UNDEF && s_info.flags == 0;
    n += s_pdata.value.type == PMIX_UNDEF && s_app.cmd == NULL && s_query.keys == NULL;
    n += s_regattr.name == NULL && s_fabric.name == NULL && s_device.uuid == NULL;
    n += s_unit.count == 0 && s_nodepid.pid == -1 && s_regex2.len == 0;
    printf("macro use: %d\n", n);
    return 0;
}
