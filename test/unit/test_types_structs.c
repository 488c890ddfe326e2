/* Unit tests of libpmix-core/types: the struct families (proc, proc info, app, query,
 * pdata, byte object, envar, coord, regattr, cpuset, topology, geometry, device
 * distance, endpoint, device, resource unit, node pid, regex2, fabric) and the key /
 * namespace / proc-ID helpers. Single-threaded. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "types/px_types.h"

void tt_fill_sample(void *elem, pmix_data_type_t t, int variant, int depth);

/* create(n) gives n constructed elements, create(0) NULL, free(NULL) no-op; free of a
 * filled array releases everything (valgrind checks). */
#define CHECK_FAMILY(T, TYPE, Create, Free, Construct, Destruct)                                   \
    do {                                                                                           \
        T *arr = Create(3);                                                                        \
        T one, z;                                                                                  \
        cr_assert_not_null(arr, #T);                                                               \
        px_type_construct(&z, TYPE);                                                               \
        for (int i_ = 0; i_ < 3; i_++) {                                                           \
            cr_expect_eq(memcmp(&arr[i_], &z, sizeof(T)), 0, #T " constructed");                   \
        }                                                                                          \
        tt_fill_sample(&arr[0], TYPE, 0, 1);                                                       \
        tt_fill_sample(&arr[2], TYPE, 1, 1);                                                       \
        Free(arr, 3);                                                                              \
        cr_expect_null(Create(0), #T);                                                             \
        Free(NULL, 2);                                                                             \
        memset(&one, 0x5c, sizeof(one));                                                           \
        Construct(&one);                                                                           \
        cr_expect_eq(memcmp(&one, &z, sizeof(T)), 0, #T " construct");                             \
        tt_fill_sample(&one, TYPE, 0, 1);                                                          \
        Destruct(&one);                                                                            \
        cr_expect_eq(memcmp(&one, &z, sizeof(T)), 0, #T " destruct");                              \
        Destruct(&one);                                                                            \
        Construct(NULL);                                                                           \
        Destruct(NULL);                                                                            \
    } while (0)

Test(types_structs, families)
{
    CHECK_FAMILY(pmix_proc_t, PMIX_PROC, PMIx_Proc_create, PMIx_Proc_free, PMIx_Proc_construct,
                 PMIx_Proc_destruct);
    CHECK_FAMILY(pmix_proc_info_t, PMIX_PROC_INFO, PMIx_Proc_info_create, PMIx_Proc_info_free,
                 PMIx_Proc_info_construct, PMIx_Proc_info_destruct);
    CHECK_FAMILY(pmix_app_t, PMIX_APP, PMIx_App_create, PMIx_App_free, PMIx_App_construct,
                 PMIx_App_destruct);
    CHECK_FAMILY(pmix_query_t, PMIX_QUERY, PMIx_Query_create, PMIx_Query_free, PMIx_Query_construct,
                 PMIx_Query_destruct);
    CHECK_FAMILY(pmix_pdata_t, PMIX_PDATA, PMIx_Pdata_create, PMIx_Pdata_free, PMIx_Pdata_construct,
                 PMIx_Pdata_destruct);
    CHECK_FAMILY(pmix_byte_object_t, PMIX_BYTE_OBJECT, PMIx_Byte_object_create,
                 PMIx_Byte_object_free, PMIx_Byte_object_construct, PMIx_Byte_object_destruct);
    CHECK_FAMILY(pmix_envar_t, PMIX_ENVAR, PMIx_Envar_create, PMIx_Envar_free, PMIx_Envar_construct,
                 PMIx_Envar_destruct);
    CHECK_FAMILY(pmix_regattr_t, PMIX_REGATTR, PMIx_Regattr_create, PMIx_Regattr_free,
                 PMIx_Regattr_construct, PMIx_Regattr_destruct);
    CHECK_FAMILY(pmix_cpuset_t, PMIX_PROC_CPUSET, PMIx_Cpuset_create, PMIx_Cpuset_free,
                 PMIx_Cpuset_construct, PMIx_Cpuset_destruct);
    CHECK_FAMILY(pmix_topology_t, PMIX_TOPO, PMIx_Topology_create, PMIx_Topology_free,
                 PMIx_Topology_construct, PMIx_Topology_destruct);
    CHECK_FAMILY(pmix_geometry_t, PMIX_GEOMETRY, PMIx_Geometry_create, PMIx_Geometry_free,
                 PMIx_Geometry_construct, PMIx_Geometry_destruct);
    CHECK_FAMILY(pmix_device_distance_t, PMIX_DEVICE_DIST, PMIx_Device_distance_create,
                 PMIx_Device_distance_free, PMIx_Device_distance_construct,
                 PMIx_Device_distance_destruct);
    CHECK_FAMILY(pmix_endpoint_t, PMIX_ENDPOINT, PMIx_Endpoint_create, PMIx_Endpoint_free,
                 PMIx_Endpoint_construct, PMIx_Endpoint_destruct);
    CHECK_FAMILY(pmix_device_t, PMIX_DEVICE, PMIx_Device_create, PMIx_Device_free,
                 PMIx_Device_construct, PMIx_Device_destruct);
    CHECK_FAMILY(pmix_resource_unit_t, PMIX_RESOURCE_UNIT, PMIx_Resource_unit_create,
                 PMIx_Resource_unit_free, PMIx_Resource_unit_construct,
                 PMIx_Resource_unit_destruct);
    CHECK_FAMILY(pmix_node_pid_t, PMIX_NODE_PID, PMIx_Node_pid_create, PMIx_Node_pid_free,
                 PMIx_Node_pid_construct, PMIx_Node_pid_destruct);
    CHECK_FAMILY(pmix_regex2_t, PMIX_REGEX2, PMIx_Regex2_create, PMIx_Regex2_free,
                 PMIx_Regex2_construct, PMIx_Regex2_destruct);
}

Test(types_structs, constructed_values)
{
    pmix_proc_t p;
    pmix_device_distance_t d;
    pmix_node_pid_t n;
    pmix_coord_t c;
    pmix_regattr_t r;
    pmix_fabric_t f;

    PMIx_Proc_construct(&p);
    cr_expect_eq(p.rank, PMIX_RANK_UNDEF);
    cr_expect_str_eq(p.nspace, "");
    PMIx_Device_distance_construct(&d);
    cr_expect_eq(d.mindist, UINT16_MAX);
    cr_expect_eq(d.maxdist, UINT16_MAX);
    PMIx_Node_pid_construct(&n);
    cr_expect_eq(n.nodeid, UINT32_MAX);
    cr_expect_eq(n.pid, -1);
    cr_expect_null(n.hostname);
    PMIx_Coord_construct(&c);
    cr_expect_eq(c.view, PMIX_COORD_VIEW_UNDEF);
    cr_expect_null(c.coord);
    cr_expect_eq(c.dims, 0);
    PMIx_Regattr_construct(&r);
    cr_expect_eq(r.type, PMIX_UNDEF);
    cr_expect_null(r.name);
    cr_expect_null(r.description);
    memset(&f, 0x42, sizeof(f));
    PMIx_Fabric_construct(&f);
    cr_expect_null(f.name);
    cr_expect_null(f.info);
    cr_expect_null(f.module);
    cr_expect_eq(f.index, 0);
    cr_expect_eq(f.ninfo, 0);
    PMIx_Fabric_construct(NULL);
}

Test(types_structs, proc_load)
{
    pmix_proc_t p;
    char longns[300];

    memset(&p, 0x7e, sizeof(p));
    PMIx_Proc_load(&p, "job-1", 5);
    cr_expect_str_eq(p.nspace, "job-1");
    cr_expect_eq(p.rank, 5);
    cr_expect_eq(p.nspace[PMIX_MAX_NSLEN], '\0');
    memset(longns, 'x', sizeof(longns) - 1);
    longns[sizeof(longns) - 1] = '\0';
    PMIx_Proc_load(&p, longns, 1);
    cr_expect_eq(strlen(p.nspace), PMIX_MAX_NSLEN);
    PMIx_Proc_load(&p, NULL, 2);
    cr_expect_str_eq(p.nspace, "");
    PMIx_Proc_load(NULL, "x", 1);
}

Test(types_structs, app_info_and_release)
{
    pmix_app_t *a = PMIx_App_create(1);

    cr_assert_not_null(a);
    PMIx_App_info_create(a, 2);
    cr_expect_eq(a->ninfo, 2);
    cr_assert_not_null(a->info);
    cr_expect(PMIx_Info_is_end(&a->info[1]));
    PMIx_Info_load(&a->info[0], "pmix.wdir", "/tmp", PMIX_STRING);
    a->cmd = strdup("hostname");
    PMIx_App_release(a);
    PMIx_App_release(NULL);
    PMIx_App_info_create(NULL, 2);
}

Test(types_structs, query_qualifiers_and_release)
{
    pmix_query_t *q = PMIx_Query_create(1);

    cr_assert_not_null(q);
    PMIx_Query_qualifiers_create(q, 3);
    cr_expect_eq(q->nqual, 3);
    cr_expect(PMIx_Info_is_end(&q->qualifiers[2]));
    PMIx_Info_load(&q->qualifiers[0], "pmix.nsp", "ns", PMIX_STRING);
    PMIx_Query_release(q);
    PMIx_Query_release(NULL);
    q = PMIx_Query_create(1);
    PMIx_Query_qualifiers_create(q, 0);
    cr_expect_null(q->qualifiers);
    cr_expect_eq(q->nqual, 0);
    PMIx_Query_free(q, 1);
}

Test(types_structs, pdata_load_xfer)
{
    pmix_pdata_t a, b;
    pmix_proc_t p;
    int x = 12;

    PMIx_Load_procid(&p, "pub", 4);
    memset(&a, 0x3d, sizeof(a));
    PMIx_Pdata_load(&a, &p, "pmix.pub.key", "payload", PMIX_STRING);
    cr_expect_str_eq(a.proc.nspace, "pub");
    cr_expect_eq(a.proc.rank, 4);
    cr_expect_str_eq(a.key, "pmix.pub.key");
    cr_expect_str_eq(a.value.data.string, "payload");
    PMIx_Pdata_xfer(&b, &a);
    cr_expect_str_eq(b.key, "pmix.pub.key");
    cr_expect_neq(b.value.data.string, a.value.data.string);
    cr_expect_str_eq(b.value.data.string, "payload");
    PMIx_Pdata_destruct(&a);
    PMIx_Pdata_destruct(&b);
    PMIx_Pdata_load(&a, NULL, NULL, &x, PMIX_INT);
    cr_expect_eq(a.value.data.integer, 12);
    cr_expect_str_eq(a.key, "");
    PMIx_Pdata_destruct(&a);
    PMIx_Pdata_load(NULL, &p, "k", &x, PMIX_INT);
    PMIx_Pdata_xfer(NULL, &a);
    PMIx_Pdata_xfer(&a, NULL);
    cr_expect_eq(a.value.type, PMIX_UNDEF);
}

Test(types_structs, byte_object_load_takes_buffer)
{
    pmix_byte_object_t b;
    char *buf = malloc(8);

    cr_assert_not_null(buf);
    memcpy(buf, "12345678", 8);
    PMIx_Byte_object_construct(&b);
    PMIx_Byte_object_load(&b, buf, 8);
    cr_expect_eq(b.bytes, buf);
    cr_expect_eq(b.size, 8);
    PMIx_Byte_object_destruct(&b); /* frees buf */
    cr_expect_null(b.bytes);
    cr_expect_eq(b.size, 0);
    PMIx_Byte_object_load(&b, NULL, 5);
    cr_expect_eq(b.size, 0);
    PMIx_Byte_object_load(NULL, NULL, 0);
}

Test(types_structs, envar_load)
{
    pmix_envar_t e;

    PMIx_Envar_construct(&e);
    PMIx_Envar_load(&e, "LD_LIBRARY_PATH", "/opt/lib", ':');
    cr_expect_str_eq(e.envar, "LD_LIBRARY_PATH");
    cr_expect_str_eq(e.value, "/opt/lib");
    cr_expect_eq(e.separator, ':');
    PMIx_Envar_destruct(&e);
    cr_expect_null(e.envar);
    PMIx_Envar_load(&e, NULL, NULL, ',');
    cr_expect_null(e.envar);
    cr_expect_eq(e.separator, ',');
    PMIx_Envar_load(NULL, "a", "b", ':');
}

Test(types_structs, coord_create_free)
{
    pmix_coord_t *c = PMIx_Coord_create(3, 2);

    cr_assert_not_null(c);
    for (int i = 0; i < 2; i++) {
        cr_expect_eq(c[i].dims, 3);
        cr_assert_not_null(c[i].coord);
        cr_expect_eq(c[i].coord[0] + c[i].coord[1] + c[i].coord[2], 0);
        cr_expect_eq(c[i].view, PMIX_COORD_VIEW_UNDEF);
    }
    PMIx_Coord_free(c, 2);
    cr_expect_null(PMIx_Coord_create(3, 0));
    c = PMIx_Coord_create(0, 2);
    cr_assert_not_null(c);
    cr_expect_null(c[1].coord);
    PMIx_Coord_free(c, 2);
    PMIx_Coord_free(NULL, 1);
    PMIx_Coord_destruct(NULL);
}

Test(types_structs, regattr_load_xfer)
{
    pmix_regattr_t r, s;

    PMIx_Regattr_construct(&r);
    PMIx_Regattr_load(&r, "PMIX_TIMEOUT", "pmix.timeout", PMIX_INT, "seconds to wait");
    PMIx_Regattr_load(&r, NULL, NULL, PMIX_INT, "0 means forever");
    cr_expect_str_eq(r.name, "PMIX_TIMEOUT");
    cr_expect_str_eq(r.string, "pmix.timeout");
    cr_expect_eq(r.type, PMIX_INT);
    cr_assert_not_null(r.description);
    cr_expect_str_eq(r.description[0], "seconds to wait");
    cr_expect_str_eq(r.description[1], "0 means forever");
    cr_expect_null(r.description[2]);
    memset(&s, 0x61, sizeof(s));
    PMIx_Regattr_xfer(&s, &r);
    cr_expect_str_eq(s.name, "PMIX_TIMEOUT");
    cr_expect_neq(s.name, r.name);
    cr_expect_str_eq(s.string, "pmix.timeout");
    cr_expect_str_eq(s.description[1], "0 means forever");
    PMIx_Regattr_destruct(&r);
    PMIx_Regattr_destruct(&s);
    PMIx_Regattr_xfer(&s, NULL);
    cr_expect_null(s.name);
    PMIx_Regattr_xfer(NULL, &r);
    PMIx_Regattr_load(NULL, "a", "b", PMIX_INT, "c");
}

/* ---- keys, namespaces, proc IDs ---- */

Test(types_procid, keys)
{
    pmix_key_t k;
    char longkey[600];

    memset(k, 'z', sizeof(k));
    PMIx_Load_key(k, "pmix.foo");
    cr_expect_str_eq(k, "pmix.foo");
    cr_expect_eq(k[PMIX_MAX_KEYLEN], '\0');
    cr_expect_eq(k[100], '\0');
    PMIx_Load_key(k, NULL);
    cr_expect_str_eq(k, "");
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    PMIx_Load_key(k, longkey);
    cr_expect_eq(strlen(k), PMIX_MAX_KEYLEN);
    PMIx_Load_key(NULL, "x");
    cr_expect(PMIx_Check_key("pmix.a", "pmix.a"));
    cr_expect_not(PMIx_Check_key("pmix.a", "pmix.b"));
    cr_expect_not(PMIx_Check_key("pmix.a", NULL));
    cr_expect(PMIx_Check_key(NULL, NULL));
    cr_expect(PMIx_Check_reserved_key("pmix.x"));
    cr_expect_not(PMIx_Check_reserved_key("user.x"));
    cr_expect_not(PMIx_Check_reserved_key("pmi"));
    cr_expect_not(PMIx_Check_reserved_key(NULL));
}

Test(types_procid, nspaces)
{
    pmix_nspace_t n;

    memset(n, 'q', sizeof(n));
    PMIx_Load_nspace(n, "job");
    cr_expect_str_eq(n, "job");
    cr_expect_eq(n[PMIX_MAX_NSLEN], '\0');
    PMIx_Load_nspace(n, NULL);
    cr_expect_str_eq(n, "");
    PMIx_Load_nspace(NULL, "x");
    cr_expect(PMIx_Nspace_invalid(NULL));
    cr_expect(PMIx_Nspace_invalid(""));
    cr_expect_not(PMIx_Nspace_invalid("a"));
    cr_expect(PMIx_Check_nspace("a", "a"));
    cr_expect_not(PMIx_Check_nspace("a", "b"));
    cr_expect(PMIx_Check_nspace("a", ""));
    cr_expect(PMIx_Check_nspace(NULL, "b"));
}

Test(types_procid, procids_and_ranks)
{
    pmix_proc_t a, b;

    PMIx_Load_procid(&a, "job", 3);
    cr_expect_str_eq(a.nspace, "job");
    cr_expect_eq(a.rank, 3);
    PMIx_Xfer_procid(&b, &a);
    cr_expect_eq(memcmp(&a, &b, sizeof(a)), 0);
    PMIx_Xfer_procid(&b, NULL);
    PMIx_Load_procid(NULL, "x", 1);
    cr_expect(PMIx_Check_procid(&a, &b));
    b.rank = 4;
    cr_expect_not(PMIx_Check_procid(&a, &b));
    b.rank = PMIX_RANK_WILDCARD;
    cr_expect(PMIx_Check_procid(&a, &b));
    PMIx_Load_nspace(b.nspace, "other");
    cr_expect_not(PMIx_Check_procid(&a, &b));
    PMIx_Load_nspace(b.nspace, NULL);
    b.rank = 3;
    cr_expect(PMIx_Check_procid(&a, &b));
    cr_expect_not(PMIx_Check_procid(&a, NULL));
    cr_expect(PMIx_Check_rank(1, 1));
    cr_expect(PMIx_Check_rank(PMIX_RANK_WILDCARD, 1));
    cr_expect(PMIx_Check_rank(1, PMIX_RANK_WILDCARD));
    cr_expect_not(PMIx_Check_rank(1, 2));
    cr_expect(PMIx_Rank_valid(0));
    cr_expect(PMIx_Rank_valid(PMIX_RANK_VALID - 1));
    cr_expect_not(PMIx_Rank_valid(PMIX_RANK_VALID));
    cr_expect_not(PMIx_Rank_valid(PMIX_RANK_WILDCARD));
    cr_expect_not(PMIx_Rank_valid(PMIX_RANK_UNDEF));
    cr_expect_not(PMIx_Rank_valid(PMIX_RANK_INVALID));
    cr_expect_not(PMIx_Procid_invalid(&a));
    a.rank = PMIX_RANK_INVALID;
    cr_expect(PMIx_Procid_invalid(&a));
    PMIx_Load_procid(&a, "", 0);
    cr_expect(PMIx_Procid_invalid(&a));
    cr_expect(PMIx_Procid_invalid(NULL));
}

Test(types_procid, multicluster)
{
    pmix_nspace_t t, c, n, cl, ns;

    PMIx_Load_nspace(c, "clusterA");
    PMIx_Load_nspace(n, "job7");
    PMIx_Multicluster_nspace_construct(t, c, n);
    cr_expect_str_eq(t, "clusterA:job7");
    PMIx_Multicluster_nspace_parse(t, cl, ns);
    cr_expect_str_eq(cl, "clusterA");
    cr_expect_str_eq(ns, "job7");
    /* does not fit */
    memset(c, 'c', 200);
    c[200] = '\0';
    memset(n, 'n', 60);
    n[60] = '\0';
    PMIx_Multicluster_nspace_construct(t, c, n);
    cr_expect_str_eq(t, "");
    /* exactly fits: 200 + 1 + 54 = 255 */
    n[54] = '\0';
    PMIx_Multicluster_nspace_construct(t, c, n);
    cr_expect_eq(strlen(t), PMIX_MAX_NSLEN);
    /* no separator */
    PMIx_Load_nspace(t, "plain");
    PMIx_Multicluster_nspace_parse(t, cl, ns);
    cr_expect_str_eq(cl, "");
    cr_expect_str_eq(ns, "plain");
}
