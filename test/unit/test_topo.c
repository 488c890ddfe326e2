/* Unit tests of cpusets and topologies (types/px_hwtypes.c, common/topo.c,
 * server/server_topo.c's generate functions, client/client_topo.c without a server):
 * parse/generate, wire round trips, print, locality strings and relative locality on
 * synthetic hwloc topologies, the calling process's binding. */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <pmix.h>
#include <pmix_server.h>

#include "common/px_topo.h"
#include "types/px_hwtypes.h"
#include "types/px_types.h"

static hwloc_topology_t synthetic(const char *desc)
{
    hwloc_topology_t t;
    cr_assert_eq(hwloc_topology_init(&t), 0);
    cr_assert_eq(hwloc_topology_set_synthetic(t, desc), 0);
    cr_assert_eq(hwloc_topology_load(t), 0);
    return t;
}

static hwloc_bitmap_t cpus(const char *list)
{
    hwloc_bitmap_t b = hwloc_bitmap_alloc();
    cr_assert_eq(hwloc_bitmap_list_sscanf(b, list), 0);
    return b;
}

Test(topo, parse_and_generate_cpuset_string)
{
    pmix_cpuset_t c = PMIX_CPUSET_STATIC_INIT;
    char *s = NULL;

    cr_assert_eq(PMIx_Parse_cpuset_string("hwloc:0-3,8", &c), PMIX_SUCCESS);
    cr_expect_str_eq(c.source, "hwloc");
    cr_assert_not_null(c.bitmap);
    cr_expect_eq(hwloc_bitmap_weight(c.bitmap), 5);
    cr_expect(hwloc_bitmap_isset(c.bitmap, 8));
    cr_assert_eq(PMIx_server_generate_cpuset_string(&c, &s), PMIX_SUCCESS);
    cr_expect_str_eq(s, "hwloc:0-3,8");
    free(s);
    PMIx_Cpuset_destruct(&c);
    cr_expect_null(c.bitmap);

    /* the source is case-insensitive; an empty list is an empty set */
    cr_expect_eq(PMIx_Parse_cpuset_string("HWLOC:", &c), PMIX_SUCCESS);
    cr_expect(hwloc_bitmap_iszero(c.bitmap));
    PMIx_Cpuset_destruct(&c);
    /* hwloc's infinite set "a-": from a on, only as the last range */
    cr_expect_eq(PMIx_Parse_cpuset_string("hwloc:0,4-", &c), PMIX_SUCCESS);
    cr_expect(hwloc_bitmap_isset(c.bitmap, 4) && hwloc_bitmap_isset(c.bitmap, 100));
    cr_expect(!hwloc_bitmap_isset(c.bitmap, 2));
    PMIx_Cpuset_destruct(&c);
    cr_expect_eq(PMIx_server_generate_cpuset("hwloc:5", &c), PMIX_SUCCESS);
    cr_expect(hwloc_bitmap_isset(c.bitmap, 5));
    PMIx_Cpuset_destruct(&c);
}

Test(topo, bad_cpuset_strings_are_refused)
{
    pmix_cpuset_t c = PMIX_CPUSET_STATIC_INIT;
    const char *bad[] = {"0-3",        ":0-3",        "hwloc:3-1",      "hwloc:x",
                         "hwloc:1,,2", "hwloc:1,",    "hwloc:99999999", "hwloc:0-99999999",
                         "hwloc:-3",   "hwloc:1-2-3", "hwloc:4-,6"};

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_expect_eq(PMIx_Parse_cpuset_string(bad[i], &c), PMIX_ERR_BAD_PARAM, "%s", bad[i]);
        cr_expect_null(c.source, "%s", bad[i]);
        cr_expect_null(c.bitmap, "%s", bad[i]);
    }
    cr_expect_eq(PMIx_Parse_cpuset_string("linux:0-3", &c), PMIX_ERR_NOT_SUPPORTED);
    cr_expect_eq(PMIx_Parse_cpuset_string(NULL, &c), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Parse_cpuset_string("hwloc:1", NULL), PMIX_ERR_BAD_PARAM);

    char *s = NULL;
    pmix_cpuset_t other = {.source = "linux", .bitmap = &other};
    cr_expect_eq(PMIx_server_generate_cpuset_string(&c, &s), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_server_generate_cpuset_string(&other, &s), PMIX_ERR_NOT_SUPPORTED);
    cr_expect_eq(PMIx_server_generate_locality_string(&other, &s), PMIX_ERR_NOT_SUPPORTED);
    cr_expect_null(s);
}

/* Pack a cpuset and a topology, unpack them: the same bitmap, the same machine. */
Test(topo, wire_round_trip)
{
    pmix_data_buffer_t buf;
    pmix_cpuset_t c = {.source = strdup("hwloc"), .bitmap = cpus("1,4-6")}, c2;
    pmix_topology_t t = {.source = strdup("hwloc"), .topology = synthetic("pack:2 core:3 pu:2")},
                    t2;
    int32_t one = 1;

    PMIx_Data_buffer_construct(&buf);
    cr_assert_eq(PMIx_Data_pack(NULL, &buf, &c, 1, PMIX_PROC_CPUSET), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, &buf, &t, 1, PMIX_TOPO), PMIX_SUCCESS);
    PMIx_Cpuset_construct(&c2);
    PMIx_Topology_construct(&t2);
    cr_assert_eq(PMIx_Data_unpack(NULL, &buf, &c2, &one, PMIX_PROC_CPUSET), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_unpack(NULL, &buf, &t2, &one, PMIX_TOPO), PMIX_SUCCESS);
    cr_expect(hwloc_bitmap_isequal(c.bitmap, c2.bitmap));
    cr_expect_eq(px_type_compare(&c, &c2, PMIX_PROC_CPUSET), PMIX_EQUAL);
    cr_assert_not_null(t2.topology);
    cr_expect_eq(hwloc_get_nbobjs_by_type(t2.topology, HWLOC_OBJ_CORE), 6);
    cr_expect_eq(hwloc_get_nbobjs_by_type(t2.topology, HWLOC_OBJ_PU), 12);
    cr_expect_eq(px_type_compare(&t, &t2, PMIX_TOPO), PMIX_EQUAL);

    /* values holding them travel too */
    pmix_value_t v, *v2 = NULL;
    PMIx_Value_construct(&v);
    cr_assert_eq(PMIx_Value_load(&v, &c, PMIX_PROC_CPUSET), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Data_pack(NULL, &buf, &v, 1, PMIX_VALUE), PMIX_SUCCESS);
    v2 = PMIx_Value_create(1);
    cr_assert_eq(PMIx_Data_unpack(NULL, &buf, v2, &one, PMIX_VALUE), PMIX_SUCCESS);
    cr_expect_eq(PMIx_Value_compare(&v, v2), PMIX_EQUAL);
    PMIx_Value_destruct(&v);
    PMIx_Value_free(v2, 1);

    PMIx_Cpuset_destruct(&c);
    PMIx_Cpuset_destruct(&c2);
    PMIx_Topology_destruct(&t);
    PMIx_Topology_destruct(&t2);
    PMIx_Data_buffer_destruct(&buf);
}

/* Unpack one element of type t from raw wire bytes (status; the element is freed). */
static pmix_status_t unpack_raw(const uint8_t *bytes, size_t n, pmix_data_type_t t)
{
    pmix_data_buffer_t buf;
    pmix_byte_object_t bo = {.bytes = malloc(n), .size = n};
    char elem[256];
    int32_t one = 1;

    cr_assert_not_null(bo.bytes);
    memcpy(bo.bytes, bytes, n);
    PMIx_Data_buffer_construct(&buf);
    cr_assert_eq(PMIx_Data_load(&buf, &bo), PMIX_SUCCESS);
    px_type_construct(elem, t);
    pmix_status_t rc = PMIx_Data_unpack(NULL, &buf, elem, &one, t);
    if (rc == PMIX_SUCCESS) {
        px_type_destruct(elem, t);
    }
    PMIx_Data_buffer_destruct(&buf);
    return rc;
}

/* What arrives from a peer is checked before hwloc sees it. */
Test(topo, wire_rejects_bad_text)
{
#define HDR(t) 0, t, 0, 0, 0, 1, 0, 0, 0, 5, 'h', 'w', 'l', 'o', 'c'
    const uint8_t good[] = {HDR(PMIX_PROC_CPUSET), 0, 0, 0, 3, '0', '-', '3'};
    const uint8_t big[] = {HDR(PMIX_PROC_CPUSET), 0, 0, 0, 7, '9', '9', '9', '9', '9', '9', '9'};
    const uint8_t junk[] = {HDR(PMIX_PROC_CPUSET), 0, 0, 0, 3, '1', ';', '2'};
    const uint8_t xml[] = {HDR(PMIX_TOPO), 0, 0, 0, 5, '<', 'x', 'm', 'l', '>'};
#undef HDR

    cr_expect_eq(unpack_raw(good, sizeof(good), PMIX_PROC_CPUSET), PMIX_SUCCESS);
    cr_expect_eq(unpack_raw(big, sizeof(big), PMIX_PROC_CPUSET), PMIX_ERR_UNPACK_FAILURE);
    cr_expect_eq(unpack_raw(junk, sizeof(junk), PMIX_PROC_CPUSET), PMIX_ERR_UNPACK_FAILURE);
    cr_expect_eq(unpack_raw(xml, sizeof(xml), PMIX_TOPO), PMIX_ERR_UNPACK_FAILURE);
}

Test(topo, print)
{
    pmix_cpuset_t c = {.source = "hwloc", .bitmap = cpus("0-3,8")};
    pmix_topology_t t = {.source = "hwloc", .topology = synthetic("pack:2 core:3 pu:2")};
    char *s = NULL;

    cr_assert_eq(PMIx_Data_print(&s, NULL, &c, PMIX_PROC_CPUSET), PMIX_SUCCESS);
    cr_expect(strstr(s, "source=hwloc cpus=0-3,8") != NULL, "%s", s);
    free(s);
    cr_assert_eq(PMIx_Data_print(&s, NULL, &t, PMIX_TOPO), PMIX_SUCCESS);
    cr_expect(strstr(s, "source=hwloc packages=2 cores=6 pus=12") != NULL, "%s", s);
    free(s);
    hwloc_bitmap_free(c.bitmap);
    hwloc_topology_destroy(t.topology);
}

/* 2 packages, each one NUMA node and one L3 over 2 cores of 2 PUs. */
#define SYNTH "pack:2 [numa] l3:1 core:2 pu:2"

Test(topo, locality_strings)
{
    hwloc_topology_t t = synthetic(SYNTH);
    char *s = NULL;
    struct {
        const char *cpus, *want;
    } cases[] = {
        {"0-1", "hwloc:NM0:SK0:L30:L2:L1:CR0:HT0-1"},
        {"2", "hwloc:NM0:SK0:L30:L2:L1:CR1:HT2"},
        {"3-4", "hwloc:NM0-1:SK0-1:L30-1:L2:L1:CR1-2:HT3-4"},
        {"4-7", "hwloc:NM1:SK1:L31:L2:L1:CR2-3:HT4-7"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        hwloc_bitmap_t b = cpus(cases[i].cpus);
        cr_assert_eq(px_topo_locality_string(t, b, &s), PMIX_SUCCESS);
        cr_expect_str_eq(s, cases[i].want, "cpus %s", cases[i].cpus);
        free(s);
        hwloc_bitmap_free(b);
    }
    hwloc_topology_destroy(t);
}

Test(topo, generate_locality_uses_the_local_topology)
{
    pmix_cpuset_t c = {.source = "hwloc", .bitmap = cpus("6")};
    char *s = NULL;

    px_hw_local_set(synthetic(SYNTH));
    cr_assert_eq(PMIx_server_generate_locality_string(&c, &s), PMIX_SUCCESS);
    cr_expect_str_eq(s, "hwloc:NM1:SK1:L31:L2:L1:CR3:HT6");
    free(s);
    hwloc_bitmap_free(c.bitmap);
    px_hw_local_fini();
}

Test(topo, relative_locality)
{
    pmix_locality_t loc = 0;
    const char *a = "hwloc:NM0:SK0:L30:L2:L1:CR0:HT0-1";
    const char *b = "hwloc:NM0:SK0:L30:L2:L1:CR1:HT2";
    const char *c = "hwloc:NM1:SK1:L31:L2:L1:CR2-3:HT4-7";
    const char *d = "hwloc:NM0:SK0:L30:L2:L1:CR0:HT1";

    cr_assert_eq(PMIx_Get_relative_locality(a, b, &loc), PMIX_SUCCESS);
    cr_expect_eq(loc, PMIX_LOCALITY_SHARE_NODE | PMIX_LOCALITY_SHARE_NUMA |
                          PMIX_LOCALITY_SHARE_PACKAGE | PMIX_LOCALITY_SHARE_L3CACHE);
    cr_assert_eq(PMIx_Get_relative_locality(a, c, &loc), PMIX_SUCCESS);
    cr_expect_eq(loc, PMIX_LOCALITY_SHARE_NODE);
    cr_assert_eq(PMIx_Get_relative_locality(a, d, &loc), PMIX_SUCCESS);
    cr_expect_eq(loc, PMIX_LOCALITY_SHARE_NODE | PMIX_LOCALITY_SHARE_NUMA |
                          PMIX_LOCALITY_SHARE_PACKAGE | PMIX_LOCALITY_SHARE_L3CACHE |
                          PMIX_LOCALITY_SHARE_CORE | PMIX_LOCALITY_SHARE_HWTHREAD);

    loc = 0x77;
    cr_expect_eq(PMIx_Get_relative_locality("hwloc:NM0", a, &loc), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Get_relative_locality("NM0", a, &loc), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Get_relative_locality("hwloc:NM0:SK0:L30:L2:L1:CRx:HT1", a, &loc),
                 PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Get_relative_locality("other:NM0", a, &loc), PMIX_ERR_NOT_SUPPORTED);
    cr_expect_eq(PMIx_Get_relative_locality(NULL, a, &loc), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Get_relative_locality(a, b, NULL), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(loc, 0x77);
}

/* Without a server, the topology is discovered once and stays the library's. */
Test(topo, load_topology_and_get_cpuset)
{
    pmix_topology_t t = PMIX_TOPOLOGY_STATIC_INIT, t2 = PMIX_TOPOLOGY_STATIC_INIT;
    pmix_topology_t other = {.source = "linux", .topology = NULL};
    pmix_cpuset_t c = PMIX_CPUSET_STATIC_INIT;
    cpu_set_t mine;

    cr_expect_eq(PMIx_Load_topology(&other), PMIX_ERR_NOT_SUPPORTED);
    cr_expect_eq(PMIx_Load_topology(NULL), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Load_topology(&t), PMIX_SUCCESS);
    cr_expect_str_eq(t.source, "hwloc");
    cr_assert_not_null(t.topology);
    cr_assert_eq(PMIx_Load_topology(&t2), PMIX_SUCCESS);
    cr_expect_eq(t.topology, t2.topology);
    /* destructing what Load_topology gave leaves the library's topology alone */
    PMIx_Topology_destruct(&t2);
    cr_expect_eq(px_hw_local_topology(), t.topology);
    cr_expect_gt(hwloc_get_nbobjs_by_type(t.topology, HWLOC_OBJ_PU), 0);

    cr_expect_eq(PMIx_Get_cpuset(&c, (pmix_bind_envelope_t)7), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Get_cpuset(NULL, PMIX_CPUBIND_PROCESS), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(sched_getaffinity(0, sizeof(mine), &mine), 0);
    pmix_bind_envelope_t refs[] = {PMIX_CPUBIND_PROCESS, PMIX_CPUBIND_THREAD};
    for (size_t r = 0; r < 2; r++) {
        cr_assert_eq(PMIx_Get_cpuset(&c, refs[r]), PMIX_SUCCESS);
        cr_expect_str_eq(c.source, "hwloc");
        for (int i = 0; i < 64; i++) {
            cr_expect_eq(hwloc_bitmap_isset(c.bitmap, (unsigned)i), CPU_ISSET(i, &mine) != 0,
                         "cpu %d", i);
        }
        PMIx_Cpuset_destruct(&c);
    }
    PMIx_Topology_destruct(&t);
    px_hw_local_fini();
}

/* A synthetic topology with one network device under package 1, through hwloc XML (the
 * form a topology travels in): 2 packages of 2 cores of 2 PUs. */
static hwloc_topology_t with_device(void)
{
    hwloc_topology_t s = synthetic("pack:2 core:2 pu:2");
    char *xml;
    int len;
    cr_assert_eq(hwloc_topology_export_xmlbuffer(s, &xml, &len, 0), 0);
    const char *dev = "<object type=\"OSDev\" gp_index=\"100\" name=\"eth9\" osdev_type=\"2\">"
                      "<info name=\"Address\" value=\"aa:bb\"/></object>\n";
    /* package 1 is the machine's last child: insert before its closing tag */
    char *at = strstr(xml, "    </object>\n  </object>\n  <support");
    cr_assert_not_null(at);
    size_t head = (size_t)(at - xml);
    char *edited = malloc(strlen(xml) + strlen(dev) + 1);
    cr_assert_not_null(edited);
    memcpy(edited, xml, head);
    strcpy(edited + head, dev);
    strcat(edited, at);
    hwloc_free_xmlbuffer(s, xml);
    hwloc_topology_destroy(s);
    hwloc_topology_t t = px_hw_from_xml(edited, false);
    free(edited);
    cr_assert_not_null(t);
    return t;
}

Test(topo, compute_distances)
{
    pmix_topology_t topo = {.source = "hwloc", .topology = with_device()};
    pmix_cpuset_t all = {.source = "hwloc", .bitmap = cpus("0-7")};
    pmix_cpuset_t pu0 = {.source = "hwloc", .bitmap = cpus("0")};
    pmix_cpuset_t pu5 = {.source = "hwloc", .bitmap = cpus("5")};
    pmix_device_distance_t *d = NULL;
    size_t n = 0;

    cr_assert_eq(PMIx_Compute_distances(&topo, &all, NULL, 0, &d, &n), PMIX_SUCCESS);
    cr_assert_eq(n, 1);
    cr_expect_str_eq(d[0].osname, "eth9");
    cr_expect_str_eq(d[0].uuid, "aa:bb");
    cr_expect_eq(d[0].type, PMIX_DEVTYPE_NETWORK);
    /* PU 4-7 sit 2 hops below the device's package, PU 0-3 4 hops away via the machine */
    cr_expect_eq(d[0].mindist, 2);
    cr_expect_eq(d[0].maxdist, 4);
    PMIx_Device_distance_free(d, n);
    cr_assert_eq(PMIx_Compute_distances(&topo, &pu0, NULL, 0, &d, &n), PMIX_SUCCESS);
    cr_expect_eq(d[0].mindist, 4);
    cr_expect_eq(d[0].maxdist, 4);
    PMIx_Device_distance_free(d, n);

    /* directives: by type and by id */
    pmix_info_t info[1];
    pmix_device_type_t gpu = PMIX_DEVTYPE_GPU, net = PMIX_DEVTYPE_NETWORK;
    PMIx_Info_load(&info[0], PMIX_DEVICE_TYPE, &net, PMIX_DEVTYPE);
    cr_assert_eq(PMIx_Compute_distances(&topo, &pu5, info, 1, &d, &n), PMIX_SUCCESS);
    cr_expect_eq(d[0].mindist, 2);
    PMIx_Device_distance_free(d, n);
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_load(&info[0], PMIX_DEVICE_TYPE, &gpu, PMIX_DEVTYPE);
    cr_expect_eq(PMIx_Compute_distances(&topo, &pu5, info, 1, &d, &n), PMIX_ERR_NOT_FOUND);
    cr_expect_eq(n, 0);
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_load(&info[0], PMIX_DEVICE_ID, "aa:bb", PMIX_STRING);
    cr_assert_eq(PMIx_Compute_distances(&topo, &pu5, info, 1, &d, &n), PMIX_SUCCESS);
    PMIx_Device_distance_free(d, n);
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_load(&info[0], PMIX_TIMEOUT, &(int){1}, PMIX_INT);
    cr_expect_eq(PMIx_Compute_distances(&topo, &pu5, info, 1, &d, &n), PMIX_ERR_NOT_SUPPORTED);
    PMIx_Info_destruct(&info[0]);

    /* bad input */
    pmix_cpuset_t none = {.source = "hwloc", .bitmap = cpus("100")};
    cr_expect_eq(PMIx_Compute_distances(&topo, &none, NULL, 0, &d, &n), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Compute_distances(&topo, NULL, NULL, 0, &d, &n), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Compute_distances(&topo, &all, NULL, 0, NULL, &n), PMIX_ERR_BAD_PARAM);
    /* the non-blocking form needs a callback (its answer is tested in pxc_topo) */
    cr_expect_eq(PMIx_Compute_distances_nb(&topo, &all, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM);

    hwloc_bitmap_free(none.bitmap);
    hwloc_bitmap_free(all.bitmap);
    hwloc_bitmap_free(pu0.bitmap);
    hwloc_bitmap_free(pu5.bitmap);
    hwloc_topology_destroy(topo.topology);
}
