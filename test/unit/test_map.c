/* Unit tests of launcher/map.c on synthetic hwloc topologies (independent of this
 * machine): placement, ranks, cpusets, defaults, oversubscription rules, errors. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "launcher/px_map.h"

static hwloc_topology_t topos[8];

static hwloc_topology_t topo(int i, const char *synthetic)
{
    if (topos[i] != NULL) { /* a test that makes its nodes again */
        hwloc_topology_destroy(topos[i]);
        topos[i] = NULL;
    }
    cr_assert_eq(hwloc_topology_init(&topos[i]), 0);
    cr_assert_eq(hwloc_topology_set_synthetic(topos[i], synthetic), 0);
    cr_assert_eq(hwloc_topology_load(topos[i]), 0);
    return topos[i];
}

static void fini(void)
{
    for (int i = 0; i < 8; i++) {
        if (topos[i] != NULL)
            hwloc_topology_destroy(topos[i]);
        topos[i] = NULL;
    }
}

TestSuite(map, .fini = fini);

static const char *names[] = {"n0", "n1", "n2", "n3"};

/* nnodes nodes of one synthetic topology; slots < 0: not given */
static px_map_node_t *mknodes(size_t nnodes, const char *synthetic, int slots)
{
    static px_map_node_t nodes[4];
    for (size_t i = 0; i < nnodes; i++) {
        memset(&nodes[i], 0, sizeof(nodes[i])); /* nothing held by running jobs */
        nodes[i].name = (char *)names[i];
        nodes[i].topo = topo((int)i, synthetic);
        nodes[i].slots_given = slots > 0;
        nodes[i].slots =
            slots > 0 ? slots : hwloc_get_nbobjs_by_type(nodes[i].topo, HWLOC_OBJ_CORE);
    }
    return nodes;
}

static pmix_app_t apps[4];

static pmix_app_t *mkapps(int n0, int n1)
{
    memset(apps, 0, sizeof(apps));
    apps[0].maxprocs = n0;
    apps[1].maxprocs = n1;
    return apps;
}

static pmix_info_t infos[4];

/* up to three (key, string) pairs, NULL-terminated; returns the count */
static size_t mkinfo(const char *k1, const char *v1, const char *k2, const char *v2)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof(infos) / sizeof(infos[0]); i++) {
        PMIX_INFO_DESTRUCT(&infos[i]); /* what the previous call loaded */
    }
    memset(infos, 0, sizeof(infos));
    if (k1 != NULL)
        PMIx_Info_load(&infos[n++], k1, v1, PMIX_STRING);
    if (k2 != NULL)
        PMIx_Info_load(&infos[n++], k2, v2, PMIX_STRING);
    return n;
}

/* the logical index of the first core of a cpuset */
static int first_core(hwloc_topology_t t, hwloc_const_bitmap_t set)
{
    hwloc_obj_t o = hwloc_get_next_obj_covering_cpuset_by_type(t, set, HWLOC_OBJ_CORE, NULL);
    return o != NULL ? (int)o->logical_index : -1;
}

static bool is_obj(hwloc_topology_t t, hwloc_const_bitmap_t set, hwloc_obj_type_t type,
                   unsigned idx)
{
    hwloc_obj_t o = hwloc_get_obj_by_type(t, type, idx);
    return set != NULL && o != NULL && hwloc_bitmap_isequal(set, o->cpuset);
}

#define MAP_OK(nodes, nn, napps, ninfo)                                                            \
    do {                                                                                           \
        char *m_ = NULL;                                                                           \
        pmix_status_t s_ = px_map_job(nodes, nn, apps, napps, infos, ninfo, &map, &m_);            \
        cr_assert_eq(s_, PMIX_SUCCESS, "status %d: %s", s_, m_ ? m_ : "");                         \
        cr_assert_null(m_);                                                                        \
    } while (0)

Test(map, slot_default_small_job_binds_to_core)
{
    px_map_node_t *nodes = mknodes(1, "package:2 core:4 pu:2", -1);
    px_map_t map;
    mkapps(2, 0);
    MAP_OK(nodes, 1, 1, mkinfo(NULL, NULL, NULL, NULL));
    cr_assert_eq(map.nprocs, 2);
    cr_assert_str_eq(map.mapby, "slot");
    cr_assert_str_eq(map.rankby, "slot");
    cr_assert_str_eq(map.bindto, "core");
    cr_assert(!map.oversubscribed);
    for (int r = 0; r < 2; r++) {
        cr_assert_eq(map.procs[r].rank, (pmix_rank_t)r);
        cr_assert_eq(map.procs[r].node, 0);
        cr_assert_eq(map.procs[r].local_rank, r);
        cr_assert_eq(map.procs[r].node_rank, r);
        cr_assert(is_obj(nodes[0].topo, map.procs[r].cpuset, HWLOC_OBJ_CORE, (unsigned)r));
    }
    char *line = px_map_binding_line(&map, nodes, 1, "job");
    cr_assert_str_eq(line, "[n0:rank 1] bound to package[0][core:1]\n");
    free(line);
    px_map_free(&map);
}

Test(map, slot_default_bigger_job_binds_to_package)
{
    px_map_node_t *nodes = mknodes(1, "package:2 core:4 pu:2", -1);
    px_map_t map;
    mkapps(6, 0);
    MAP_OK(nodes, 1, 1, 0);
    cr_assert_str_eq(map.bindto, "package");
    for (int r = 0; r < 6; r++)
        cr_assert(is_obj(nodes[0].topo, map.procs[r].cpuset, HWLOC_OBJ_PACKAGE, r < 4 ? 0 : 1),
                  "rank %d", r);
    char *line = px_map_binding_line(&map, nodes, 5, NULL);
    cr_assert_str_eq(line, "[n0:rank 5] bound to package[1][core:4-7]\n");
    free(line);
    px_map_free(&map);
}

Test(map, no_slots_given_oversubscribes_without_binding_extra)
{
    px_map_node_t *nodes = mknodes(1, "package:1 core:2 pu:1", -1);
    px_map_t map;
    mkapps(7, 0);
    MAP_OK(nodes, 1, 1, 0);
    cr_assert_eq(map.nprocs, 7);
    cr_assert(map.oversubscribed);
    cr_assert_not_null(map.procs[0].cpuset);
    cr_assert_not_null(map.procs[1].cpuset);
    for (int r = 2; r < 7; r++) {
        cr_assert_null(map.procs[r].cpuset, "rank %d beyond the cores is not bound", r);
        cr_assert_eq(map.procs[r].node, 0);
    }
    char *line = px_map_binding_line(&map, nodes, 6, NULL);
    cr_assert_str_eq(line, "[n0:rank 6] not bound\n");
    free(line);
    px_map_free(&map);
}

Test(map, slots_given_too_many_is_an_error_naming_both_numbers)
{
    px_map_node_t *nodes = mknodes(1, "package:1 core:8 pu:1", 2);
    px_map_t map;
    char *msg = NULL;
    mkapps(3, 0);
    cr_assert_eq(px_map_job(nodes, 1, apps, 1, NULL, 0, &map, &msg), PMIX_ERR_OUT_OF_RESOURCE);
    cr_assert_not_null(msg);
    cr_assert(strstr(msg, "3 processes were asked for") != NULL, "%s", msg);
    cr_assert(strstr(msg, "only 2 slots are on node n0") != NULL, "%s", msg);
    cr_assert(strstr(msg, ":OVERSUBSCRIBE") != NULL);
    cr_assert_null(map.procs);
    free(msg);
}

Test(map, slots_given_many_nodes_message)
{
    px_map_node_t *nodes = mknodes(2, "package:1 core:8 pu:1", 2);
    px_map_t map;
    char *msg = NULL;
    mkapps(5, 0);
    cr_assert_eq(px_map_job(nodes, 2, apps, 1, NULL, 0, &map, &msg), PMIX_ERR_OUT_OF_RESOURCE);
    cr_assert(strstr(msg, "5 processes") != NULL && strstr(msg, "only 4 slots") != NULL &&
                  strstr(msg, "2 nodes (n0, n1)") != NULL,
              "%s", msg);
    free(msg);
}

Test(map, oversubscribe_modifier_allows_it)
{
    px_map_node_t *nodes = mknodes(1, "package:1 core:2 pu:1", 2);
    px_map_t map;
    mkapps(3, 0);
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_MAPBY, "slot:OVERSUBSCRIBE", NULL, NULL));
    cr_assert_eq(map.nprocs, 3);
    cr_assert(map.oversubscribed);
    cr_assert_null(map.procs[2].cpuset);
    cr_assert_str_eq(map.mapby, "slot:OVERSUBSCRIBE");
    px_map_free(&map);
}

/* max_slots: :OVERSUBSCRIBE passes the slots, never max_slots (held processes count);
 * oversubscription goes to the nodes still below their limit; the refusal names them */
Test(map, max_slots_is_a_hard_limit)
{
    px_map_node_t *nodes = mknodes(2, "package:1 core:4 pu:1", 2);
    px_map_t map;
    char *msg = NULL;
    nodes[0].max_slots = 3;
    nodes[1].max_slots = 5;
    nodes[1].slots_inuse = 1;
    mkapps(7, 0); /* n0: 2 + 1 over, n1: 1 free slot + 3 over within 5 - 1 held */
    MAP_OK(nodes, 2, 1, mkinfo(PMIX_MAPBY, "slot:OVERSUBSCRIBE", NULL, NULL));
    int on[2] = {0, 0};
    for (size_t r = 0; r < map.nprocs; r++)
        on[map.procs[r].node]++;
    cr_assert_eq(on[0], 3);
    cr_assert_eq(on[1], 4);
    px_map_free(&map);

    mkapps(8, 0);
    cr_assert_eq(px_map_job(nodes, 2, apps, 1, infos, 1, &map, &msg), PMIX_ERR_OUT_OF_RESOURCE);
    cr_assert(strstr(msg, "8 processes were asked for") != NULL &&
                  strstr(msg, "room for only 7 more") != NULL &&
                  strstr(msg, "n0 (max_slots 3, 0 in use), n1 (max_slots 5, 1 in use)") != NULL,
              "%s", msg);
    free(msg);

    /* without oversubscription max_slots below slots caps the node's slots */
    nodes = mknodes(1, "package:1 core:4 pu:1", 4);
    nodes[0].max_slots = 2;
    mkapps(3, 0);
    cr_assert_eq(px_map_job(nodes, 1, apps, 1, NULL, 0, &map, &msg), PMIX_ERR_OUT_OF_RESOURCE);
    cr_assert(strstr(msg, "only 2 slots are on node n0") != NULL, "%s", msg);
    free(msg);
    /* a node without a limit takes whatever is beyond the others' */
    nodes = mknodes(2, "package:1 core:4 pu:1", 1);
    nodes[0].max_slots = 1;
    mkapps(6, 0);
    MAP_OK(nodes, 2, 1, mkinfo(PMIX_MAPBY, "node:OVERSUBSCRIBE", NULL, NULL));
    cr_assert_eq(map.procs[0].node, 0);
    for (size_t r = 1; r < map.nprocs; r++)
        cr_assert_eq(map.procs[r].node, 1, "rank %zu", r);
    px_map_free(&map);
}

Test(map, nooversubscribe_refuses_even_without_slots)
{
    px_map_node_t *nodes = mknodes(1, "package:2 core:4 pu:1", -1);
    px_map_t map;
    char *msg = NULL;
    mkapps(9, 0);
    mkinfo(PMIX_MAPBY, ":NOOVERSUBSCRIBE", NULL, NULL);
    cr_assert_eq(px_map_job(nodes, 1, apps, 1, infos, 1, &map, &msg), PMIX_ERR_OUT_OF_RESOURCE);
    cr_assert(strstr(msg, "9 processes") != NULL && strstr(msg, "only 8 slots") != NULL, "%s", msg);
    free(msg);
}

Test(map, by_node_round_robin)
{
    px_map_node_t *nodes = mknodes(2, "package:1 core:2 pu:1", -1);
    px_map_t map;
    mkapps(4, 0);
    MAP_OK(nodes, 2, 1, mkinfo(PMIX_MAPBY, "node", NULL, NULL));
    cr_assert_str_eq(map.rankby, "node");
    uint32_t want_node[] = {0, 1, 0, 1};
    uint16_t want_local[] = {0, 0, 1, 1};
    for (int r = 0; r < 4; r++) {
        cr_assert_eq(map.procs[r].node, want_node[r], "rank %d", r);
        cr_assert_eq(map.procs[r].local_rank, want_local[r], "rank %d", r);
    }
    cr_assert(!map.oversubscribed);
    px_map_free(&map);
}

Test(map, by_node_rank_by_slot)
{
    px_map_node_t *nodes = mknodes(2, "package:1 core:2 pu:1", -1);
    px_map_t map;
    mkapps(4, 0);
    MAP_OK(nodes, 2, 1, mkinfo(PMIX_MAPBY, "node", PMIX_RANKBY, "slot"));
    uint32_t want_node[] = {0, 0, 1, 1};
    for (int r = 0; r < 4; r++)
        cr_assert_eq(map.procs[r].node, want_node[r], "rank %d", r);
    cr_assert_str_eq(map.rankby, "slot");
    px_map_free(&map);
}

Test(map, by_slot_rank_by_node)
{
    px_map_node_t *nodes = mknodes(2, "package:1 core:2 pu:1", -1);
    px_map_t map;
    mkapps(4, 0);
    MAP_OK(nodes, 2, 1, mkinfo(PMIX_RANKBY, "node", NULL, NULL));
    uint32_t want_node[] = {0, 1, 0, 1};
    for (int r = 0; r < 4; r++)
        cr_assert_eq(map.procs[r].node, want_node[r], "rank %d", r);
    px_map_free(&map);
}

Test(map, by_package_rotates)
{
    px_map_node_t *nodes = mknodes(1, "package:2 core:4 pu:2", -1);
    px_map_t map;
    mkapps(4, 0);
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_MAPBY, "package", NULL, NULL));
    cr_assert_str_eq(map.bindto, "package");
    for (int r = 0; r < 4; r++)
        cr_assert(is_obj(nodes[0].topo, map.procs[r].cpuset, HWLOC_OBJ_PACKAGE, r % 2), "rank %d",
                  r);
    px_map_free(&map);
}

Test(map, by_package_bind_core_and_rank_by_package)
{
    px_map_node_t *nodes = mknodes(1, "package:2 core:4 pu:2", -1);
    px_map_t map;
    mkapps(4, 0);
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_MAPBY, "package", PMIX_BINDTO, "core"));
    int want[] = {0, 4, 1, 5};
    for (int r = 0; r < 4; r++)
        cr_assert_eq(first_core(nodes[0].topo, map.procs[r].cpuset), want[r], "rank %d", r);
    px_map_free(&map);

    size_t n = mkinfo(PMIX_MAPBY, "package", PMIX_RANKBY, "package");
    MAP_OK(nodes, 1, 1, n);
    for (int r = 0; r < 4; r++)
        cr_assert(is_obj(nodes[0].topo, map.procs[r].cpuset, HWLOC_OBJ_PACKAGE, r < 2 ? 0 : 1),
                  "rank %d", r);
    px_map_free(&map);
}

Test(map, by_core_and_by_hwthread)
{
    px_map_node_t *nodes = mknodes(1, "package:2 core:4 pu:2", -1);
    px_map_t map;
    mkapps(5, 0);
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_MAPBY, "core", NULL, NULL));
    cr_assert_str_eq(map.bindto, "core");
    for (int r = 0; r < 5; r++)
        cr_assert(is_obj(nodes[0].topo, map.procs[r].cpuset, HWLOC_OBJ_CORE, (unsigned)r));
    px_map_free(&map);

    MAP_OK(nodes, 1, 1, mkinfo(PMIX_MAPBY, "hwthread", NULL, NULL));
    cr_assert_str_eq(map.bindto, "hwthread");
    for (int r = 0; r < 5; r++)
        cr_assert(is_obj(nodes[0].topo, map.procs[r].cpuset, HWLOC_OBJ_PU, (unsigned)r));
    char *line = px_map_binding_line(&map, nodes, 3, NULL);
    cr_assert_str_eq(line, "[n0:rank 3] bound to package[0][hwt:3]\n");
    free(line);
    px_map_free(&map);
}

Test(map, ppr)
{
    px_map_node_t *nodes = mknodes(1, "package:2 core:4 pu:1", -1);
    px_map_t map;
    char *msg = NULL;
    mkapps(4, 0);
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_MAPBY, "ppr:2:package", NULL, NULL));
    cr_assert_str_eq(map.mapby, "ppr:2:package");
    for (int r = 0; r < 4; r++)
        cr_assert(is_obj(nodes[0].topo, map.procs[r].cpuset, HWLOC_OBJ_PACKAGE, r / 2), "rank %d",
                  r);
    px_map_free(&map);

    mkapps(0, 0); /* no -n: fills what ppr allows */
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_MAPBY, "ppr:3:package", NULL, NULL));
    cr_assert_eq(map.nprocs, 6);
    px_map_free(&map);

    mkapps(3, 0);
    mkinfo(PMIX_MAPBY, "ppr:1:package", NULL, NULL);
    cr_assert_eq(px_map_job(nodes, 1, apps, 1, infos, 1, &map, &msg), PMIX_ERR_OUT_OF_RESOURCE);
    cr_assert(strstr(msg, "3 processes") != NULL && strstr(msg, "ppr:1:package") != NULL &&
                  strstr(msg, "at most 2") != NULL,
              "%s", msg);
    free(msg);
}

Test(map, pe_binds_to_n_cores)
{
    px_map_node_t *nodes = mknodes(1, "package:2 core:4 pu:2", -1);
    px_map_t map;
    char *msg = NULL;
    mkapps(4, 0);
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_MAPBY, "slot:PE=2", NULL, NULL));
    cr_assert_str_eq(map.mapby, "slot:PE=2");
    cr_assert_str_eq(map.bindto, "core");
    for (int r = 0; r < 4; r++) {
        cr_assert_eq(hwloc_bitmap_weight(map.procs[r].cpuset), 4, "2 cores x 2 pus");
        cr_assert_eq(first_core(nodes[0].topo, map.procs[r].cpuset), 2 * r);
    }
    char *line = px_map_binding_line(&map, nodes, 1, NULL);
    cr_assert_str_eq(line, "[n0:rank 1] bound to package[0][core:2-3]\n");
    free(line);
    px_map_free(&map);

    MAP_OK(nodes, 1, 1, mkinfo(PMIX_MAPBY, "package:PE=2", NULL, NULL));
    cr_assert_eq(first_core(nodes[0].topo, map.procs[0].cpuset), 0);
    cr_assert_eq(first_core(nodes[0].topo, map.procs[1].cpuset), 4);
    px_map_free(&map);

    mkapps(5, 0);
    mkinfo(PMIX_MAPBY, "core:PE=2:OVERSUBSCRIBE", NULL, NULL);
    cr_assert_eq(px_map_job(nodes, 1, apps, 1, infos, 1, &map, &msg), PMIX_ERR_OUT_OF_RESOURCE);
    cr_assert(strstr(msg, "5 processes with :PE=2 need 10 cores, but only 8") != NULL, "%s", msg);
    free(msg);
}

Test(map, bind_to_none_and_explicit)
{
    px_map_node_t *nodes = mknodes(1, "package:2 core:2 pu:2", -1);
    px_map_t map;
    mkapps(2, 0);
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_BINDTO, "none", NULL, NULL));
    cr_assert_str_eq(map.bindto, "none");
    cr_assert_null(map.procs[0].cpuset);
    cr_assert_null(map.procs[1].cpuset);
    px_map_free(&map);
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_BINDTO, "package", NULL, NULL));
    cr_assert(is_obj(nodes[0].topo, map.procs[1].cpuset, HWLOC_OBJ_PACKAGE, 0));
    px_map_free(&map);
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_BINDTO, "hwthread", NULL, NULL));
    cr_assert(is_obj(nodes[0].topo, map.procs[1].cpuset, HWLOC_OBJ_PU, 1));
    px_map_free(&map);
}

Test(map, apps_ranks_and_fill_free_slots)
{
    px_map_node_t *nodes = mknodes(1, "package:2 core:4 pu:1", -1);
    px_map_t map;
    char *msg = NULL;
    mkapps(3, 0);
    MAP_OK(nodes, 1, 2, 0);
    cr_assert_eq(map.nprocs, 8);
    cr_assert_eq(map.napps, 2);
    cr_assert_eq(map.app_nprocs[0], 3);
    cr_assert_eq(map.app_nprocs[1], 5);
    cr_assert_eq(map.procs[2].app, 0);
    cr_assert_eq(map.procs[3].app, 1);
    cr_assert_eq(map.procs[3].app_rank, 0);
    cr_assert_eq(map.procs[7].app_rank, 4);
    cr_assert_eq(map.procs[7].local_rank, 7);
    cr_assert(!map.oversubscribed);
    px_map_free(&map);

    mkapps(8, 0);
    cr_assert_eq(px_map_job(nodes, 1, apps, 2, NULL, 0, &map, &msg), PMIX_ERR_OUT_OF_RESOURCE);
    cr_assert(strstr(msg, "App 2") != NULL && strstr(msg, "8 slots") != NULL, "%s", msg);
    free(msg);
}

Test(map, bad_policies)
{
    px_map_node_t *nodes = mknodes(1, "package:1 core:2 pu:1", -1);
    px_map_t map;
    char *msg = NULL;
    mkapps(1, 0);
    mkinfo(PMIX_MAPBY, "bogus", NULL, NULL);
    cr_assert_eq(px_map_job(nodes, 1, apps, 1, infos, 1, &map, &msg), PMIX_ERR_BAD_PARAM);
    cr_assert(strstr(msg, "--map-by \"bogus\"") != NULL, "%s", msg);
    free(msg);
    mkinfo(PMIX_BINDTO, "slot", NULL, NULL);
    cr_assert_eq(px_map_job(nodes, 1, apps, 1, infos, 1, &map, &msg), PMIX_ERR_BAD_PARAM);
    cr_assert(strstr(msg, "--bind-to \"slot\"") != NULL, "%s", msg);
    free(msg);
    mkinfo(PMIX_RANKBY, "x", NULL, NULL);
    cr_assert_eq(px_map_job(nodes, 1, apps, 1, infos, 1, &map, &msg), PMIX_ERR_BAD_PARAM);
    free(msg);
    cr_assert_eq(px_map_job(nodes, 0, apps, 1, NULL, 0, &map, &msg), PMIX_ERR_BAD_PARAM);
    free(msg);
}

Test(map, display)
{
    px_map_node_t *nodes = mknodes(2, "package:2 core:2 pu:1", -1);
    px_map_t map;
    mkapps(2, 1);
    MAP_OK(nodes, 2, 2, mkinfo(PMIX_MAPBY, "node", NULL, NULL));
    char *d = px_map_render(&map, nodes, 2, "prte-x@1");
    cr_assert_not_null(d);
    cr_assert(strstr(d, "map of job prte-x@1") != NULL, "%s", d);
    cr_assert(strstr(d, "3 processes on 2 nodes; map-by node, rank-by node, bind-to package") !=
                  NULL,
              "%s", d);
    cr_assert(strstr(d, "Node n0: 4 slots, 2 processes\n") != NULL, "%s", d);
    cr_assert(strstr(d, "rank 2 (app 1, local rank 1): package[0][core:0-1]") != NULL, "%s", d);
    cr_assert(strstr(d, "Node n1: 4 slots, 1 processes\n    rank 1 (app 0, local rank 0)") != NULL,
              "%s", d);
    free(d);
    px_map_free(&map);
}

Test(map, policy_parsers)
{
    px_map_policy_t p;
    px_map_obj_t o;
    char bad[32];
    cr_assert_eq(px_map_parse_mapby("ppr:2:socket:PE=3:OVERSUBSCRIBE", &p, bad, sizeof(bad)), 0);
    cr_assert_eq(p.by, PX_MAP_OBJ_PPR);
    cr_assert_eq(p.ppr_n, 2);
    cr_assert_eq(p.ppr_obj, PX_MAP_OBJ_PACKAGE);
    cr_assert_eq(p.pe, 3);
    cr_assert_eq(p.oversubscribe, 1);
    cr_assert_eq(px_map_parse_mapby("core:PE=x", &p, bad, sizeof(bad)), -1);
    cr_assert_str_eq(bad, "PE=x");
    cr_assert_eq(px_map_parse_rankby("fill", &o), 0);
    cr_assert_eq(o, PX_MAP_OBJ_SLOT);
    cr_assert_eq(px_map_parse_bindto("NONE", &o), 0);
    cr_assert_eq(o, PX_MAP_OBJ_NONE);
    cr_assert_eq(px_map_parse_bindto("node", &o), -1);
}

/* ---- one pool: what the DVM's running jobs hold ---- */

static hwloc_bitmap_t held;

/* The node holds the cores first..last (logical) for running jobs, and slots_inuse. */
static void hold(px_map_node_t *node, int first, int last, int inuse, const px_map_hold_t *h,
                 size_t nh)
{
    hwloc_bitmap_free(held);
    held = hwloc_bitmap_alloc();
    for (int c = first; c <= last; c++)
        hwloc_bitmap_or(held, held, hwloc_get_obj_by_type(node->topo, HWLOC_OBJ_CORE, c)->cpuset);
    node->inuse_cpus = held;
    node->slots_inuse = inuse;
    node->holds = h;
    node->nholds = nh;
}

Test(map, pool_binds_to_cores_no_running_job_holds)
{
    px_map_node_t *nodes = mknodes(1, "package:1 core:4 pu:2", -1);
    px_map_hold_t h[] = {{"dvm@1", 2}};
    px_map_t map;
    hold(&nodes[0], 0, 1, 2, h, 1);
    mkapps(2, 0);
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_BINDTO, "core", NULL, NULL));
    cr_assert(is_obj(nodes[0].topo, map.procs[0].cpuset, HWLOC_OBJ_CORE, 2));
    cr_assert(is_obj(nodes[0].topo, map.procs[1].cpuset, HWLOC_OBJ_CORE, 3));
    cr_assert(!map.oversubscribed);
    px_map_free(&map);
    /* map-by core and hwthread target the free objects too */
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_MAPBY, "core", NULL, NULL));
    cr_assert(is_obj(nodes[0].topo, map.procs[0].cpuset, HWLOC_OBJ_CORE, 2));
    cr_assert(is_obj(nodes[0].topo, map.procs[1].cpuset, HWLOC_OBJ_CORE, 3));
    px_map_free(&map);
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_MAPBY, "hwthread", NULL, NULL));
    cr_assert(is_obj(nodes[0].topo, map.procs[0].cpuset, HWLOC_OBJ_PU, 4));
    cr_assert(is_obj(nodes[0].topo, map.procs[1].cpuset, HWLOC_OBJ_PU, 5));
    px_map_free(&map);
    /* :PE=2 takes the two free cores */
    mkapps(1, 0);
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_MAPBY, "slot:PE=2", NULL, NULL));
    cr_assert_eq(first_core(nodes[0].topo, map.procs[0].cpuset), 2);
    cr_assert_eq(hwloc_bitmap_weight(map.procs[0].cpuset), 4);
    px_map_free(&map);
    hwloc_bitmap_free(held);
    held = NULL;
}

Test(map, pool_free_cores_first_then_shared_when_no_slots_given)
{
    px_map_node_t *nodes = mknodes(1, "package:1 core:2 pu:1", -1);
    px_map_hold_t h[] = {{"dvm@1", 1}};
    px_map_t map;
    hold(&nodes[0], 1, 1, 1, h, 1);
    mkapps(2, 0); /* one free core: rank 0 gets it, rank 1 shares core 1 */
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_BINDTO, "core", NULL, NULL));
    cr_assert(is_obj(nodes[0].topo, map.procs[0].cpuset, HWLOC_OBJ_CORE, 0));
    cr_assert(is_obj(nodes[0].topo, map.procs[1].cpuset, HWLOC_OBJ_CORE, 1));
    cr_assert(map.oversubscribed); /* 3 processes on 2 slots, allowed: nobody gave slots */
    px_map_free(&map);
    hold(&nodes[0], 0, 1, 2, h, 1); /* everything held: still runs, as before the pool */
    mkapps(3, 0);
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_BINDTO, "core", NULL, NULL));
    cr_assert(is_obj(nodes[0].topo, map.procs[0].cpuset, HWLOC_OBJ_CORE, 0));
    cr_assert_null(map.procs[2].cpuset);
    px_map_free(&map);
    mkapps(0, 0); /* no -n: the node's slots, nobody gave a limit */
    MAP_OK(nodes, 1, 1, 0);
    cr_assert_eq(map.nprocs, 2);
    px_map_free(&map);
    hwloc_bitmap_free(held);
    held = NULL;
}

Test(map, pool_given_slots_are_a_dvm_wide_limit)
{
    px_map_node_t *nodes = mknodes(1, "package:1 core:8 pu:1", 4);
    px_map_hold_t h[] = {{"dvm@1", 1}, {"dvm@3", 2}};
    px_map_t map;
    char *msg = NULL;
    hold(&nodes[0], 0, 2, 3, h, 2);
    mkapps(2, 0);
    cr_assert_eq(px_map_job(nodes, 1, apps, 1, NULL, 0, &map, &msg), PMIX_ERR_OUT_OF_RESOURCE);
    cr_assert_not_null(msg);
    cr_assert(strstr(msg, "it needs 2, but only 1 of the 4") != NULL, "%s", msg);
    cr_assert(strstr(msg, "slots on node n0 are free") != NULL, "%s", msg);
    cr_assert(strstr(msg, "dvm@1 (1 on n0), dvm@3 (2 on n0)") != NULL, "%s", msg);
    cr_assert(strstr(msg, ":OVERSUBSCRIBE") != NULL, "%s", msg);
    free(msg);
    msg = NULL;
    mkapps(2, 0); /* :PE counts slots the same way */
    cr_assert_eq(px_map_job(nodes, 1, apps, 1, infos, mkinfo(PMIX_MAPBY, "slot:PE=1", NULL, NULL),
                            &map, &msg),
                 PMIX_ERR_OUT_OF_RESOURCE);
    cr_assert(strstr(msg, "only 1 of the 4") != NULL, "%s", msg);
    free(msg);
    msg = NULL;
    mkapps(1, 0);
    MAP_OK(nodes, 1, 1, 0);
    cr_assert(!map.oversubscribed);
    cr_assert_eq(first_core(nodes[0].topo, map.procs[0].cpuset), 3);
    px_map_free(&map);
    mkapps(0, 0); /* no -n: the one free slot */
    MAP_OK(nodes, 1, 1, 0);
    cr_assert_eq(map.nprocs, 1);
    px_map_free(&map);
    mkapps(2, 0);
    MAP_OK(nodes, 1, 1, mkinfo(PMIX_MAPBY, ":OVERSUBSCRIBE", NULL, NULL));
    cr_assert_eq(map.nprocs, 2);
    cr_assert(map.oversubscribed);
    px_map_free(&map);
    hold(&nodes[0], 0, 3, 4, h, 2); /* all held: no -n has nothing to fill */
    mkapps(0, 0);
    cr_assert_eq(px_map_job(nodes, 1, apps, 1, NULL, 0, &map, &msg), PMIX_ERR_OUT_OF_RESOURCE);
    cr_assert(strstr(msg, "App 1 of the job gives no process count") != NULL, "%s", msg);
    cr_assert(strstr(msg, "dvm@1 (1 on n0), dvm@3 (2 on n0)") != NULL, "%s", msg);
    free(msg);
    hwloc_bitmap_free(held);
    held = NULL;
}

/* ---- many nodes: different synthetic topologies, nodes without topology ---- */

static px_map_node_t het[4];

/* Node i of het: synthetic topology (NULL: none, slots only), slots (< 0: not given). */
static void hnode(int i, const char *synthetic, int slots)
{
    memset(&het[i], 0, sizeof(het[i]));
    het[i].name = (char *)names[i];
    het[i].topo = synthetic != NULL ? topo(4 + i, synthetic) : NULL;
    het[i].slots_given = slots >= 0;
    het[i].slots = slots >= 0            ? slots
                   : het[i].topo != NULL ? hwloc_get_nbobjs_by_type(het[i].topo, HWLOC_OBJ_CORE)
                                         : 0;
}

/* n0: 2 cores x 2 PUs in 1 package, n1: 2 packages x 2 cores, n2: 3 cores */
static void three_nodes(void)
{
    hnode(0, "package:1 core:2 pu:2", -1);
    hnode(1, "package:2 core:2 pu:1", -1);
    hnode(2, "package:1 core:3 pu:1", -1);
}

/* rank r of map: node, local rank (= node rank), and bound to the object type/idx of
 * its node (idx < 0: not bound) */
static void expect(const px_map_t *map, const uint32_t *node, const uint16_t *local,
                   hwloc_obj_type_t type, const int *idx)
{
    for (size_t r = 0; r < map->nprocs; r++) {
        const px_map_proc_t *p = &map->procs[r];
        cr_assert_eq(p->rank, (pmix_rank_t)r);
        cr_assert_eq(p->node, node[r], "rank %zu on node %u, not %u", r, p->node, node[r]);
        cr_assert_eq(p->local_rank, local[r], "rank %zu local rank %u", r, p->local_rank);
        cr_assert_eq(p->node_rank, local[r], "rank %zu node rank %u", r, p->node_rank);
        if (idx == NULL)
            continue;
        if (idx[r] < 0)
            cr_assert_null(p->cpuset, "rank %zu", r);
        else
            cr_assert(is_obj(het[node[r]].topo, p->cpuset, type, (unsigned)idx[r]),
                      "rank %zu not on object %d of node %u", r, idx[r], node[r]);
    }
}

Test(map, nodes_slot_fills_node_after_node)
{
    px_map_t map;
    three_nodes();
    mkapps(9, 0);
    MAP_OK(het, 3, 1, mkinfo(NULL, NULL, NULL, NULL));
    cr_assert_str_eq(map.bindto, "package");
    uint32_t node[] = {0, 0, 1, 1, 1, 1, 2, 2, 2};
    uint16_t local[] = {0, 1, 0, 1, 2, 3, 0, 1, 2};
    int pkg[] = {0, 0, 0, 0, 1, 1, 0, 0, 0};
    expect(&map, node, local, HWLOC_OBJ_PACKAGE, pkg);
    cr_assert(!map.oversubscribed);
    px_map_free(&map);

    MAP_OK(het, 3, 1, mkinfo(PMIX_BINDTO, "core", NULL, NULL));
    int core[] = {0, 1, 0, 1, 2, 3, 0, 1, 2};
    expect(&map, node, local, HWLOC_OBJ_CORE, core);
    px_map_free(&map);

    /* rank-by node: the k-th process of each node in turn */
    MAP_OK(het, 3, 1, mkinfo(PMIX_RANKBY, "node", PMIX_BINDTO, "core"));
    uint32_t node2[] = {0, 1, 2, 0, 1, 2, 1, 2, 1};
    uint16_t local2[] = {0, 0, 0, 1, 1, 1, 2, 2, 3};
    int core2[] = {0, 0, 0, 1, 1, 1, 2, 2, 3};
    expect(&map, node2, local2, HWLOC_OBJ_CORE, core2);
    px_map_free(&map);
}

Test(map, nodes_by_node_skips_full_nodes)
{
    px_map_t map;
    three_nodes();
    mkapps(8, 0);
    MAP_OK(het, 3, 1, mkinfo(PMIX_MAPBY, "node", PMIX_BINDTO, "core"));
    cr_assert_str_eq(map.rankby, "node");
    uint32_t node[] = {0, 1, 2, 0, 1, 2, 1, 2};
    uint16_t local[] = {0, 0, 0, 1, 1, 1, 2, 2};
    int core[] = {0, 0, 0, 1, 1, 1, 2, 2};
    expect(&map, node, local, HWLOC_OBJ_CORE, core);
    px_map_free(&map);

    /* rank-by slot: each node's processes together */
    MAP_OK(het, 3, 1, mkinfo(PMIX_MAPBY, "node", PMIX_RANKBY, "slot"));
    uint32_t node2[] = {0, 0, 1, 1, 1, 2, 2, 2};
    uint16_t local2[] = {0, 1, 0, 1, 2, 0, 1, 2};
    expect(&map, node2, local2, HWLOC_OBJ_CORE, NULL);
    px_map_free(&map);

    /* beyond every node's slots (none given): one more per node in turn */
    mkapps(11, 0);
    MAP_OK(het, 3, 1, mkinfo(PMIX_MAPBY, "node", PMIX_BINDTO, "core"));
    cr_assert(map.oversubscribed);
    uint32_t node3[] = {0, 1, 2, 0, 1, 2, 1, 2, 1, 2, 0};
    uint16_t local3[] = {0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 2};
    int core3[] = {0, 0, 0, 1, 1, 1, 2, 2, 3, -1, -1};
    expect(&map, node3, local3, HWLOC_OBJ_CORE, core3);
    px_map_free(&map);
}

Test(map, nodes_by_objects)
{
    px_map_t map;
    three_nodes();
    mkapps(9, 0);
    MAP_OK(het, 3, 1, mkinfo(PMIX_MAPBY, "core", NULL, NULL));
    uint32_t node[] = {0, 0, 1, 1, 1, 1, 2, 2, 2};
    uint16_t local[] = {0, 1, 0, 1, 2, 3, 0, 1, 2};
    int core[] = {0, 1, 0, 1, 2, 3, 0, 1, 2};
    expect(&map, node, local, HWLOC_OBJ_CORE, core);
    px_map_free(&map);

    MAP_OK(het, 3, 1, mkinfo(PMIX_MAPBY, "hwthread", NULL, NULL));
    int pu[] = {0, 1, 0, 1, 2, 3, 0, 1, 2}; /* n0: both PUs of core 0 */
    expect(&map, node, local, HWLOC_OBJ_PU, pu);
    px_map_free(&map);

    MAP_OK(het, 3, 1, mkinfo(PMIX_MAPBY, "package", NULL, NULL));
    int pkg[] = {0, 0, 0, 1, 0, 1, 0, 0, 0}; /* n1 alternates its two packages */
    expect(&map, node, local, HWLOC_OBJ_PACKAGE, pkg);
    px_map_free(&map);

    /* map-by package, bind-to core, rank-by core: n1's ranks follow its cores */
    MAP_OK(het, 3, 1, mkinfo(PMIX_MAPBY, "package", PMIX_BINDTO, "core"));
    int core2[] = {0, 1, 0, 2, 1, 3, 0, 1, 2};
    expect(&map, node, local, HWLOC_OBJ_CORE, core2);
    px_map_free(&map);
    infos[2] = infos[1];
    memset(&infos[1], 0, sizeof(infos[1]));
    PMIx_Info_load(&infos[1], PMIX_RANKBY, "core", PMIX_STRING);
    MAP_OK(het, 3, 1, 3);
    cr_assert_str_eq(map.rankby, "core");
    expect(&map, node, local, HWLOC_OBJ_CORE, core);
    px_map_free(&map);
    PMIX_INFO_DESTRUCT(&infos[2]);
    memset(&infos[2], 0, sizeof(infos[2]));
}

Test(map, nodes_ppr_and_pe)
{
    px_map_t map;
    char *msg = NULL;
    three_nodes();
    mkapps(0, 0); /* ppr:1:package: 1 + 2 + 1 */
    MAP_OK(het, 3, 1, mkinfo(PMIX_MAPBY, "ppr:1:package", NULL, NULL));
    cr_assert_eq(map.nprocs, 4);
    uint32_t node[] = {0, 1, 1, 2};
    uint16_t local[] = {0, 0, 1, 0};
    int pkg[] = {0, 0, 1, 0};
    expect(&map, node, local, HWLOC_OBJ_PACKAGE, pkg);
    px_map_free(&map);

    MAP_OK(het, 3, 1, mkinfo(PMIX_MAPBY, "ppr:2:node", NULL, NULL));
    cr_assert_eq(map.nprocs, 6);
    uint32_t node2[] = {0, 0, 1, 1, 2, 2};
    uint16_t local2[] = {0, 1, 0, 1, 0, 1};
    int pkg2[] = {0, 0, 0, 0, 0, 0}; /* ppr:N:node binds to package by default */
    expect(&map, node2, local2, HWLOC_OBJ_PACKAGE, pkg2);
    px_map_free(&map);

    /* :PE=2: each process's two cores on one node; n0 and n2 hold one, n1 two */
    mkapps(4, 0);
    MAP_OK(het, 3, 1, mkinfo(PMIX_MAPBY, "slot:PE=2", NULL, NULL));
    uint32_t node3[] = {0, 1, 1, 2};
    uint16_t local3[] = {0, 0, 1, 0};
    int first[] = {0, 0, 2, 0};
    expect(&map, node3, local3, HWLOC_OBJ_CORE, NULL);
    for (int r = 0; r < 4; r++) {
        cr_assert_eq(first_core(het[node3[r]].topo, map.procs[r].cpuset), first[r], "rank %d", r);
        cr_assert_eq(hwloc_bitmap_weight(map.procs[r].cpuset), r == 0 ? 4 : 2, "rank %d", r);
    }
    px_map_free(&map);

    mkapps(5, 0);
    mkinfo(PMIX_MAPBY, "node:PE=2", NULL, NULL);
    cr_assert_eq(px_map_job(het, 3, apps, 1, infos, 1, &map, &msg), PMIX_ERR_OUT_OF_RESOURCE);
    cr_assert(strstr(msg, "need 10 cores, but only 9") != NULL, "%s", msg);
    cr_assert(strstr(msg, "3 nodes (n0, n1, n2)") != NULL, "%s", msg);
    free(msg);
}

Test(map, nodes_given_slots_and_oversubscribe)
{
    px_map_t map;
    char *msg = NULL;
    hnode(0, "package:1 core:4 pu:1", 1);
    hnode(1, "package:1 core:4 pu:1", 2);
    mkapps(4, 0);
    mkinfo(NULL, NULL, NULL, NULL);
    cr_assert_eq(px_map_job(het, 2, apps, 1, infos, 0, &map, &msg), PMIX_ERR_OUT_OF_RESOURCE);
    cr_assert(strstr(msg, "only 3 slots are on 2 nodes (n0, n1)") != NULL, "%s", msg);
    free(msg);
    MAP_OK(het, 2, 1, mkinfo(PMIX_MAPBY, "slot:OVERSUBSCRIBE", PMIX_BINDTO, "core"));
    cr_assert(map.oversubscribed);
    uint32_t node[] = {0, 1, 1, 0};
    uint16_t local[] = {0, 0, 1, 1};
    int core[] = {0, 0, 1, 1};
    expect(&map, node, local, HWLOC_OBJ_CORE, core);
    px_map_free(&map);
}

Test(map, nodes_without_topology)
{
    px_map_t map;
    char *msg = NULL;
    hnode(0, "package:1 core:2 pu:1", -1);
    hnode(1, NULL, 3);  /* --host n1:3, not reported yet */
    hnode(2, NULL, -1); /* --host n2: one slot */
    mkapps(6, 0);
    MAP_OK(het, 3, 1, mkinfo(NULL, NULL, NULL, NULL));
    uint32_t node[] = {0, 0, 1, 1, 1, 2};
    uint16_t local[] = {0, 1, 0, 1, 2, 0};
    int pkg[] = {0, 0, -1, -1, -1, -1};
    expect(&map, node, local, HWLOC_OBJ_PACKAGE, pkg);
    cr_assert_eq(map.bind_obj, PX_MAP_OBJ_PACKAGE);
    for (int r = 0; r < 6; r++)
        cr_assert_eq(map.procs[r].bind_deferred, r >= 2, "rank %d", r);
    cr_assert(!map.oversubscribed);
    char *line = px_map_binding_line(&map, het, 3, NULL);
    cr_assert_str_eq(line, "[n1:rank 3] bound to package by the node's daemon (its topology is "
                           "not known here yet)\n");
    free(line);
    char *d = px_map_render(&map, het, 3, "j");
    cr_assert(strstr(d, "Node n1: 3 slots, 3 processes\n    rank 2 (app 0, local rank 0): "
                        "bind-to package by the node's daemon") != NULL,
              "%s", d);
    cr_assert(strstr(d, "Node n2: 1 slots, 1 processes\n    rank 5") != NULL, "%s", d);
    free(d);
    px_map_free(&map);

    /* their slots count as given: no more than them without :OVERSUBSCRIBE */
    mkapps(7, 0);
    cr_assert_eq(px_map_job(het, 3, apps, 1, NULL, 0, &map, &msg), PMIX_ERR_OUT_OF_RESOURCE);
    cr_assert(strstr(msg, "only 6 slots") != NULL, "%s", msg);
    free(msg);
    MAP_OK(het, 3, 1, mkinfo(PMIX_MAPBY, "node:OVERSUBSCRIBE", NULL, NULL));
    uint32_t node2[] = {0, 1, 2, 0, 1, 1, 2};
    uint16_t local2[] = {0, 0, 0, 1, 1, 2, 1};
    expect(&map, node2, local2, HWLOC_OBJ_PACKAGE, NULL);
    cr_assert(map.oversubscribed);
    px_map_free(&map);

    /* ppr over node, :PE and bind-to none */
    mkapps(0, 0);
    MAP_OK(het, 3, 1, mkinfo(PMIX_MAPBY, "ppr:2:node", NULL, NULL));
    cr_assert_eq(map.nprocs, 6);
    uint32_t node3[] = {0, 0, 1, 1, 2, 2};
    uint16_t local3[] = {0, 1, 0, 1, 0, 1};
    expect(&map, node3, local3, HWLOC_OBJ_PACKAGE, NULL);
    cr_assert(map.procs[5].bind_deferred);
    px_map_free(&map);
    mkapps(3, 0);
    MAP_OK(het, 3, 1, mkinfo(PMIX_MAPBY, "node:PE=2", NULL, NULL));
    cr_assert_eq(map.pe, 2);
    cr_assert_not_null(map.procs[0].cpuset);
    cr_assert(map.procs[1].bind_deferred && map.procs[2].bind_deferred);
    px_map_free(&map);
    MAP_OK(het, 3, 1, mkinfo(PMIX_BINDTO, "none", NULL, NULL));
    cr_assert(!map.procs[2].bind_deferred);
    line = px_map_binding_line(&map, het, 2, NULL);
    cr_assert_str_eq(line, "[n1:rank 2] not bound\n");
    free(line);
    px_map_free(&map);

    /* what needs the hardware is refused, naming the node */
    const char *refused[][2] = {{PMIX_MAPBY, "core"},
                                {PMIX_MAPBY, "package"},
                                {PMIX_MAPBY, "hwthread"},
                                {PMIX_MAPBY, "ppr:1:package"},
                                {PMIX_RANKBY, "core"}};
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        mkinfo(refused[i][0], refused[i][1], NULL, NULL);
        cr_assert_eq(px_map_job(het, 3, apps, 1, infos, 1, &map, &msg), PMIX_ERR_NOT_SUPPORTED,
                     "%s", refused[i][1]);
        cr_assert(strstr(msg, "topology of node n1") != NULL, "%s", msg);
        cr_assert_null(map.procs);
        free(msg);
    }
}

Test(map, render_groups_by_node_in_rank_order)
{
    px_map_t map;
    three_nodes();
    mkapps(5, 0);
    MAP_OK(het, 3, 1, mkinfo(PMIX_MAPBY, "node", PMIX_BINDTO, "core"));
    char *d = px_map_render(&map, het, 3, "j@1");
    cr_assert_not_null(d);
    cr_assert_str_eq(d, "======================== map of job j@1 ========================\n"
                        "5 processes on 3 nodes; map-by node, rank-by node, bind-to core\n"
                        "Node n0: 2 slots, 2 processes\n"
                        "    rank 0 (app 0, local rank 0): package[0][core:0]\n"
                        "    rank 3 (app 0, local rank 1): package[0][core:1]\n"
                        "Node n1: 4 slots, 2 processes\n"
                        "    rank 1 (app 0, local rank 0): package[0][core:0]\n"
                        "    rank 4 (app 0, local rank 1): package[0][core:1]\n"
                        "Node n2: 3 slots, 1 processes\n"
                        "    rank 2 (app 0, local rank 0): package[0][core:0]\n"
                        "================================================================\n");
    free(d);
    px_map_free(&map);
}

/* A large map: 512 nodes x 64 cores (32768 processes), every rank-by. Sorting on a key
 * keeps this O(P log P) (well under a second); the insertion sort and the round-robin
 * scans it replaced were quadratic in the processes of an app: map-by node with
 * rank-by core alone took far beyond the timeout. */
Test(map, large_map_is_not_quadratic, .timeout = 30)
{
    enum { NN = 512, PER = 64 };
    static px_map_node_t big[NN];
    static char bnames[NN][16];
    hwloc_topology_t t = topo(0, "package:2 core:32 pu:1");
    const char *policies[][2] = {{NULL, NULL},       {"node", NULL},   {"node", "slot"},
                                 {"slot", "node"},   {"node", "core"}, {"package", "core"},
                                 {"core", "package"}};
    for (int i = 0; i < NN; i++) {
        snprintf(bnames[i], sizeof(bnames[i]), "n%d", i);
        memset(&big[i], 0, sizeof(big[i]));
        big[i].name = bnames[i];
        big[i].topo = t;
        big[i].slots = PER;
        big[i].slots_given = true;
    }
    for (size_t k = 0; k < sizeof(policies) / sizeof(policies[0]); k++) {
        px_map_t map;
        size_t n = mkinfo(policies[k][0] ? PMIX_MAPBY : NULL, policies[k][0],
                          policies[k][1] ? PMIX_RANKBY : NULL, policies[k][1]);
        if (policies[k][0] == NULL && policies[k][1] != NULL)
            n = mkinfo(PMIX_RANKBY, policies[k][1], NULL, NULL);
        mkapps(0, 0);
        MAP_OK(big, NN, 1, n);
        cr_assert_eq(map.nprocs, (size_t)NN * PER);
        static int seen[NN];
        memset(seen, 0, sizeof(seen));
        for (size_t r = 0; r < map.nprocs; r++) {
            const px_map_proc_t *p = &map.procs[r];
            cr_assert_eq(p->rank, (pmix_rank_t)r);
            cr_assert_eq(p->local_rank, seen[p->node]++, "policy %zu rank %zu", k, r);
            cr_assert_not_null(p->cpuset);
        }
        for (int i = 0; i < NN; i++)
            cr_assert_eq(seen[i], PER);
        px_map_free(&map);
    }
}
