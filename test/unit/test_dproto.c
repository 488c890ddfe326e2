/* unit tests of daemon/dproto.c and daemon/dtopo.c: the daemon protocol's messages
 * round-trip, every truncation and each malformed field is refused without a leak,
 * counts beyond the bytes or the bound are refused before any allocation, the daemon's
 * decoder refuses unknown tags and trailing bytes, the tree arithmetic, and topology
 * signatures (equal for equal hardware, different otherwise). */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "bfrops/px_bfrops.h"
#include "daemon/px_dproto.h"
#include "daemon/px_dtopo.h"

static void hello_buf(pmix_data_buffer_t *b, size_t naliases)
{
    char *aliases[3] = {"n1", "n1.example", "10.0.0.1"};
    px_dp_hello_t h = {.version = PX_DP_VERSION,
                       .id = 7,
                       .release = "1.2.3",
                       .node = "n1.cluster",
                       .aliases = aliases,
                       .naliases = naliases,
                       .topo_sig = "hwloc:1P1N4C8H:0123456789abcdef"};
    px_bfrops_buf_init(b);
    cr_assert_eq(px_dp_hello_pack(b, &h), PMIX_SUCCESS);
}

/* A buffer holding a copy of the first len bytes of src. */
static void prefix_of(pmix_data_buffer_t *dst, const pmix_data_buffer_t *src, size_t len)
{
    px_bfrops_buf_init(dst);
    cr_assert_eq(px_bfrops_buf_append(dst, src->base_ptr, len), PMIX_SUCCESS);
}

Test(dproto, hello_roundtrip)
{
    pmix_data_buffer_t b;
    hello_buf(&b, 3);
    px_dp_hello_t h;
    cr_assert_eq(px_dp_hello_unpack(&b, &h), PMIX_SUCCESS);
    cr_assert_eq(h.version, PX_DP_VERSION);
    cr_assert_eq(h.id, 7);
    cr_assert_str_eq(h.release, "1.2.3");
    cr_assert_str_eq(h.node, "n1.cluster");
    cr_assert_eq(h.naliases, 3);
    cr_assert_str_eq(h.aliases[2], "10.0.0.1");
    cr_assert_null(h.aliases[3]);
    cr_assert_str_eq(h.topo_sig, "hwloc:1P1N4C8H:0123456789abcdef");
    cr_assert_eq(px_bfrops_buf_remaining(&b), 0);
    px_dp_hello_free(&h);
    cr_assert_null(h.node);
    px_dp_hello_free(NULL);
    px_bfrops_buf_free(&b);
}

Test(dproto, hello_every_truncation_refused)
{
    pmix_data_buffer_t full;
    hello_buf(&full, 2);
    size_t len = (size_t)(full.pack_ptr - full.base_ptr);
    for (size_t cut = 0; cut < len; cut++) {
        pmix_data_buffer_t b;
        prefix_of(&b, &full, cut);
        px_dp_hello_t h;
        cr_assert_neq(px_dp_hello_unpack(&b, &h), PMIX_SUCCESS, "cut at %zu accepted", cut);
        cr_assert_null(h.node);
        cr_assert_null(h.aliases);
        px_bfrops_buf_free(&b);
    }
    px_bfrops_buf_free(&full);
}

/* version, id, release, node, then a count the message cannot hold */
static void hello_with_count(pmix_data_buffer_t *b, uint32_t count, size_t nstrings)
{
    uint32_t v = PX_DP_VERSION, id = 1;
    const char *node = "n", *s = "a", *rel = "1.0";
    px_bfrops_buf_init(b);
    px_bfrops_pack(b, &v, 1, PMIX_UINT32);
    px_bfrops_pack(b, &id, 1, PMIX_UINT32);
    px_bfrops_pack(b, &rel, 1, PMIX_STRING);
    px_bfrops_pack(b, &node, 1, PMIX_STRING);
    px_bfrops_pack(b, &count, 1, PMIX_UINT32);
    for (size_t i = 0; i < nstrings; i++) {
        px_bfrops_pack(b, &s, 1, PMIX_STRING);
    }
}

Test(dproto, hello_count_checked_before_allocation)
{
    pmix_data_buffer_t b;
    px_dp_hello_t h;
    /* four billion aliases announced in a few bytes */
    hello_with_count(&b, UINT32_MAX, 1);
    cr_assert_eq(px_dp_hello_unpack(&b, &h), PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    px_bfrops_buf_free(&b);
    /* over the protocol's bound, though the bytes are there */
    hello_with_count(&b, PX_DP_ALIASES_MAX + 1, PX_DP_ALIASES_MAX + 2);
    cr_assert_eq(px_dp_hello_unpack(&b, &h), PMIX_ERR_BAD_PARAM);
    px_bfrops_buf_free(&b);
    /* the bound itself is fine (then the signature is missing) */
    hello_with_count(&b, PX_DP_ALIASES_MAX, PX_DP_ALIASES_MAX);
    cr_assert_neq(px_dp_hello_unpack(&b, &h), PMIX_SUCCESS);
    px_bfrops_buf_free(&b);
}

Test(dproto, hello_bad_fields_refused)
{
    const char *bad[] = {NULL, "", NULL};
    char longname[PX_DP_NAME_MAX + 2];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    bad[2] = longname;
    for (size_t i = 0; i < 3; i++) {
        px_dp_hello_t h = {.version = PX_DP_VERSION,
                           .id = 1,
                           .release = "1",
                           .node = (char *)bad[i],
                           .topo_sig = "s"};
        pmix_data_buffer_t b;
        px_bfrops_buf_init(&b);
        cr_assert_eq(px_dp_hello_pack(&b, &h), PMIX_SUCCESS);
        px_dp_hello_t out;
        cr_assert_eq(px_dp_hello_unpack(&b, &out), PMIX_ERR_UNPACK_FAILURE, "node %zu", i);
        px_bfrops_buf_free(&b);
    }
    /* the release missing, empty or over its bound */
    for (size_t i = 0; i < 3; i++) {
        char longrel[PX_DP_RELEASE_MAX + 2];
        memset(longrel, '9', sizeof(longrel) - 1);
        longrel[sizeof(longrel) - 1] = '\0';
        const char *rels[3] = {NULL, "", longrel};
        px_dp_hello_t h = {.version = PX_DP_VERSION,
                           .id = 1,
                           .release = (char *)rels[i],
                           .node = "n",
                           .topo_sig = "s"};
        pmix_data_buffer_t b;
        px_bfrops_buf_init(&b);
        cr_assert_eq(px_dp_hello_pack(&b, &h), PMIX_SUCCESS);
        px_dp_hello_t out;
        cr_assert_eq(px_dp_hello_unpack(&b, &out), PMIX_ERR_UNPACK_FAILURE, "release %zu", i);
        cr_assert_null(out.node);
        px_bfrops_buf_free(&b);
    }
    /* another protocol version: its version and id, nothing else read or held */
    {
        uint32_t v = PX_DP_VERSION + 1, id = 9;
        int64_t later = 5; /* whatever a later layout puts there */
        pmix_data_buffer_t b;
        px_bfrops_buf_init(&b);
        px_bfrops_pack(&b, &v, 1, PMIX_UINT32);
        px_bfrops_pack(&b, &id, 1, PMIX_UINT32);
        px_bfrops_pack(&b, &later, 1, PMIX_INT64);
        px_dp_hello_t out;
        cr_assert_eq(px_dp_hello_unpack(&b, &out), PMIX_ERR_NOT_SUPPORTED);
        cr_assert_eq(out.version, PX_DP_VERSION + 1);
        cr_assert_eq(out.id, 9);
        cr_assert_null(out.release);
        cr_assert_null(out.node);
        px_dp_hello_free(&out);
        px_bfrops_buf_free(&b);
    }
    /* a wrong type where the version belongs */
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    int64_t v = 1;
    px_bfrops_pack(&b, &v, 1, PMIX_INT64);
    px_dp_hello_t out;
    cr_assert_eq(px_dp_hello_unpack(&b, &out), PMIX_ERR_PACK_MISMATCH);
    px_bfrops_buf_free(&b);
}

Test(dproto, topo_and_exit_roundtrip)
{
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_topo_pack(&b, "sig", "<topology/>"), PMIX_SUCCESS);
    char *sig, *xml;
    cr_assert_eq(px_dp_topo_unpack(&b, &sig, &xml), PMIX_SUCCESS);
    cr_assert_str_eq(sig, "sig");
    cr_assert_str_eq(xml, "<topology/>");
    free(sig);
    free(xml);
    /* the XML missing: nothing leaks, both NULL */
    cr_assert_eq(px_dp_topo_pack(&b, "sig", NULL), PMIX_SUCCESS);
    cr_assert_eq(px_dp_topo_unpack(&b, &sig, &xml), PMIX_ERR_UNPACK_FAILURE);
    cr_assert_null(sig);
    cr_assert_null(xml);
    px_bfrops_buf_free(&b);

    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_exit_pack(&b, PX_DP_EXIT_ABORTED), PMIX_SUCCESS);
    px_dp_ctl_msg_t m;
    cr_assert_eq(px_dp_ctl_decode(PX_DP_EXIT, &b, &m), PMIX_SUCCESS);
    cr_assert_eq(m.tag, PX_DP_EXIT);
    cr_assert_eq(m.reason, PX_DP_EXIT_ABORTED);
    px_bfrops_buf_free(&b);
}

Test(dproto, ctl_decode_refusals)
{
    pmix_data_buffer_t b;
    px_dp_ctl_msg_t m;
    px_bfrops_buf_init(&b);
    /* topology request: no fields; an empty payload is right */
    cr_assert_eq(px_dp_ctl_decode(PX_DP_TOPO_ASK, &b, &m), PMIX_SUCCESS);
    /* the controller's heartbeat: no fields either */
    cr_assert_eq(px_dp_ctl_decode(PX_DP_HEARTBEAT, &b, &m), PMIX_SUCCESS);
    cr_assert_eq(m.tag, PX_DP_HEARTBEAT);
    /* unknown and specified-only tags */
    cr_assert_eq(px_dp_ctl_decode(0, &b, &m), PMIX_ERR_NOT_SUPPORTED);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_GROUP_UP, &b, &m), PMIX_ERR_NOT_SUPPORTED);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_TREE_UP, &b, &m), PMIX_ERR_NOT_SUPPORTED);
    cr_assert_eq(px_dp_ctl_decode(9999, &b, &m), PMIX_ERR_NOT_SUPPORTED);
    /* exit without its reason, with an unknown reason, with trailing bytes */
    cr_assert_neq(px_dp_ctl_decode(PX_DP_EXIT, &b, &m), PMIX_SUCCESS);
    int32_t r = 42;
    px_bfrops_pack(&b, &r, 1, PMIX_INT32);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_EXIT, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    px_dp_exit_pack(&b, PX_DP_EXIT_NORMAL);
    px_bfrops_pack(&b, &r, 1, PMIX_INT32);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_EXIT, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    /* a topology request with something in it */
    px_bfrops_buf_init(&b);
    px_bfrops_pack(&b, &r, 1, PMIX_INT32);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_TOPO_ASK, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_HEARTBEAT, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
}

Test(dproto, tree)
{
    uint32_t c[64];
    /* radix 2 over 6 daemons: 0 -> 1,2; 1 -> 3,4; 2 -> 5 */
    cr_assert_eq(px_dp_tree_children(2, 0, 6, c, 64), 2);
    cr_assert(c[0] == 1 && c[1] == 2);
    cr_assert_eq(px_dp_tree_children(2, 1, 6, c, 64), 2);
    cr_assert(c[0] == 3 && c[1] == 4);
    cr_assert_eq(px_dp_tree_children(2, 2, 6, c, 64), 1);
    cr_assert_eq(c[0], 5);
    cr_assert_eq(px_dp_tree_children(2, 3, 6, c, 64), 0);
    cr_assert_eq(px_dp_tree_parent(2, 5), 2);
    cr_assert_eq(px_dp_tree_parent(2, 0), UINT32_MAX);
    /* every daemon but 0 is the child of its parent, exactly once (default radix) */
    uint32_t n = 5000, seen = 0;
    uint32_t *kids = calloc(PX_DP_RADIX_DEFAULT, sizeof(uint32_t));
    for (uint32_t id = 0; id < n; id++) {
        size_t k = px_dp_tree_children(PX_DP_RADIX_DEFAULT, id, n, kids, PX_DP_RADIX_DEFAULT);
        for (size_t i = 0; i < k; i++) {
            cr_assert_eq(px_dp_tree_parent(PX_DP_RADIX_DEFAULT, kids[i]), id);
            seen++;
        }
    }
    cr_assert_eq(seen, n - 1);
    free(kids);
    /* no overflow near the top of the id space */
    cr_assert_eq(px_dp_tree_children(64, UINT32_MAX - 1, UINT32_MAX, c, 64), 0);
}

/* through px_dtopo_load and its test-only variable, as prted loads one */
static hwloc_topology_t synthetic(const char *desc)
{
    hwloc_topology_t t = NULL;
    cr_assert_eq(setenv("PX_PRTED_TEST_SYNTHETIC", desc, 1), 0);
    cr_assert_eq(px_dtopo_load(&t), 0);
    unsetenv("PX_PRTED_TEST_SYNTHETIC");
    return t;
}

Test(dproto, topology_signature)
{
    hwloc_topology_t a = synthetic("pack:2 core:4 pu:2");
    hwloc_topology_t b = synthetic("pack:2 core:4 pu:2");
    hwloc_topology_t c = synthetic("pack:2 core:2 pu:4");
    char sa[PX_DTOPO_SIG_LEN], sb[PX_DTOPO_SIG_LEN], sc[PX_DTOPO_SIG_LEN];
    px_dtopo_signature(a, sa);
    px_dtopo_signature(b, sb);
    px_dtopo_signature(c, sc);
    cr_assert_str_eq(sa, sb);
    cr_assert_str_neq(sa, sc, "same counts of packages and PUs, different cores");
    cr_assert_eq(strncmp(sa, "hwloc:2P1N8C16H:", 16), 0, "%s", sa);
    hwloc_topology_destroy(a);
    hwloc_topology_destroy(b);
    hwloc_topology_destroy(c);
}

/* found by fuzz_dproto: an item of several strings where one belongs leaked the first */
Test(dproto, several_strings_in_one_item)
{
    const char *two[2] = {"a", "b"};
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    px_bfrops_pack(&b, two, 2, PMIX_STRING);
    char *sig = NULL, *xml = NULL;
    cr_assert_eq(px_dp_topo_unpack(&b, &sig, &xml), PMIX_ERR_UNPACK_INADEQUATE_SPACE);
    cr_assert_null(sig);
    px_bfrops_buf_free(&b);
}

/* ---- the job messages: LAUNCH, PSTATE, SIGNAL, JOB_CLEANUP ---- */

/* Two nodes, three processes, two apps, one directive, registration and setup data. */
static void launch_buf(pmix_data_buffer_t *b)
{
    px_dp_lnode_t nodes[2] = {{.name = "n0", .daemon = 0},
                              {.name = "n1", .daemon = 3, .flags = PX_DP_NODE_OVERSUB}};
    px_dp_lproc_t procs[3] = {
        {.node = 0, .local_rank = 0, .node_rank = 0, .app = 0, .cpuset = "hwloc:0-1"},
        {.node = 1,
         .local_rank = 0,
         .node_rank = 2,
         .app = 0,
         .flags = PX_DP_PROC_BIND_LATER | PX_DP_PROC_STOP_EXEC},
        {.node = 0, .local_rank = 1, .node_rank = 1, .app = 1, .cpuset = NULL},
    };
    char *argv0[] = {"hostname", NULL}, *argv1[] = {"true", "x", NULL};
    pmix_app_t apps[2] = {{.cmd = "hostname", .argv = argv0, .maxprocs = 2},
                          {.cmd = "true", .argv = argv1, .maxprocs = 1}};
    pmix_info_t info[1], reg[2], setup[1];
    uint32_t size = 3;
    PMIX_INFO_LOAD(&info[0], PMIX_MAPBY, "node", PMIX_STRING);
    PMIX_INFO_LOAD(&reg[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&reg[1], PMIX_NODE_LIST, "n0,n1", PMIX_STRING);
    PMIX_INFO_LOAD(&setup[0], "setup.key", "v", PMIX_STRING);
    px_dp_launch_t l = {.nodes = nodes,
                        .nnodes = 2,
                        .procs = procs,
                        .nprocs = 3,
                        .bind_obj = PX_DP_BIND_CORE,
                        .pe = 2,
                        .flags = PX_DP_JOB_SPAWNED,
                        .apps = apps,
                        .napps = 2,
                        .info = info,
                        .ninfo = 1,
                        .reg = reg,
                        .nreg = 2,
                        .setup = setup,
                        .nsetup = 1};
    PMIX_LOAD_NSPACE(l.nspace, "dvm@1");
    px_bfrops_buf_init(b);
    cr_assert_eq(px_dp_launch_pack(b, &l), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&reg[0]);
    PMIX_INFO_DESTRUCT(&reg[1]);
    PMIX_INFO_DESTRUCT(&setup[0]);
}

Test(dproto, launch_roundtrip)
{
    pmix_data_buffer_t b;
    launch_buf(&b);
    px_dp_ctl_msg_t m;
    cr_assert_eq(px_dp_ctl_decode(PX_DP_LAUNCH, &b, &m), PMIX_SUCCESS);
    px_dp_launch_t *l = &m.launch;
    cr_assert_str_eq(l->nspace, "dvm@1");
    cr_assert_eq(l->nnodes, 2);
    cr_assert_str_eq(l->nodes[1].name, "n1");
    cr_assert_eq(l->nodes[1].daemon, 3);
    cr_assert_eq(l->nprocs, 3);
    cr_assert_str_eq(l->procs[0].cpuset, "hwloc:0-1");
    cr_assert_null(l->procs[1].cpuset);
    cr_assert_eq(l->procs[1].node, 1);
    cr_assert_eq(l->procs[1].node_rank, 2);
    cr_assert_eq(l->procs[2].local_rank, 1);
    cr_assert_eq(l->procs[2].app, 1);
    cr_assert_eq(l->napps, 2);
    cr_assert_str_eq(l->apps[1].cmd, "true");
    cr_assert_str_eq(l->apps[1].argv[1], "x");
    cr_assert_eq(l->apps[0].maxprocs, 2);
    cr_assert_eq(l->ninfo, 1);
    cr_assert_str_eq(l->info[0].key, PMIX_MAPBY);
    cr_assert_str_eq(l->info[0].value.data.string, "node");
    cr_assert_eq(l->nodes[0].flags, 0);
    cr_assert_eq(l->nodes[1].flags, PX_DP_NODE_OVERSUB);
    cr_assert_eq(l->procs[1].flags, PX_DP_PROC_BIND_LATER | PX_DP_PROC_STOP_EXEC);
    cr_assert_eq(l->procs[0].flags, 0);
    cr_assert_eq(l->bind_obj, PX_DP_BIND_CORE);
    cr_assert_eq(l->pe, 2);
    cr_assert_eq(l->flags, PX_DP_JOB_SPAWNED);
    cr_assert_eq(l->nreg, 2);
    cr_assert_str_eq(l->reg[1].key, PMIX_NODE_LIST);
    cr_assert_str_eq(l->reg[1].value.data.string, "n0,n1");
    cr_assert_eq(l->nsetup, 1);
    cr_assert_str_eq(l->setup[0].key, "setup.key");
    px_dp_ctl_msg_free(&m);
    cr_assert_null(m.launch.procs);
    px_dp_ctl_msg_free(NULL);
    px_bfrops_buf_free(&b);
}

/* Every strict prefix of full is refused by decode (which also checks that nothing is
 * left allocated). */
static void every_cut_refused(pmix_data_buffer_t *full,
                              pmix_status_t (*decode)(pmix_data_buffer_t *))
{
    size_t len = (size_t)(full->pack_ptr - full->base_ptr);
    for (size_t cut = 0; cut < len; cut++) {
        pmix_data_buffer_t b;
        prefix_of(&b, full, cut);
        cr_assert_neq(decode(&b), PMIX_SUCCESS, "cut at %zu accepted", cut);
        px_bfrops_buf_free(&b);
    }
}

static pmix_status_t decode_launch(pmix_data_buffer_t *b)
{
    px_dp_launch_t l;
    pmix_status_t rc = px_dp_launch_unpack(b, &l);
    if (rc != PMIX_SUCCESS) {
        cr_assert(l.procs == NULL && l.nodes == NULL && l.apps == NULL);
    }
    px_dp_launch_free(&l);
    return rc;
}

static pmix_status_t decode_pstate(pmix_data_buffer_t *b)
{
    px_dp_pstate_t ps;
    pmix_status_t rc = px_dp_pstate_unpack(b, &ps);
    if (rc != PMIX_SUCCESS) {
        cr_assert_null(ps.procs);
    }
    px_dp_pstate_free(&ps);
    return rc;
}

Test(dproto, launch_every_truncation_refused)
{
    pmix_data_buffer_t full;
    launch_buf(&full);
    every_cut_refused(&full, decode_launch);
    px_bfrops_buf_free(&full);
}

/* nspace, one node, then a process whose node or app index is out of range, or a flag,
 * bind object or pe the protocol does not know */
typedef struct {
    uint32_t node, app;
    uint8_t node_flags, proc_flags, bind_obj, job_flags;
    uint16_t pe;
} bad_launch_t;

static pmix_status_t launch_with(bad_launch_t b0)
{
    px_dp_lnode_t nodes[1] = {{.name = "n0", .daemon = 0, .flags = b0.node_flags}};
    px_dp_lproc_t procs[1] = {{.node = b0.node, .app = b0.app, .flags = b0.proc_flags}};
    char *argv[] = {"true", NULL};
    pmix_app_t apps[1] = {{.cmd = "true", .argv = argv, .maxprocs = 1}};
    px_dp_launch_t l = {.nodes = nodes,
                        .nnodes = 1,
                        .procs = procs,
                        .nprocs = 1,
                        .bind_obj = b0.bind_obj,
                        .pe = b0.pe,
                        .flags = b0.job_flags,
                        .apps = apps,
                        .napps = 1};
    PMIX_LOAD_NSPACE(l.nspace, "dvm@2");
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_launch_pack(&b, &l), PMIX_SUCCESS);
    px_dp_launch_t out;
    pmix_status_t rc = px_dp_launch_unpack(&b, &out);
    px_dp_launch_free(&out);
    px_bfrops_buf_free(&b);
    return rc;
}

Test(dproto, launch_bad_fields_refused)
{
    cr_assert_eq(launch_with((bad_launch_t){0}), PMIX_SUCCESS);
    cr_assert_eq(launch_with((bad_launch_t){.node = 1}), PMIX_ERR_UNPACK_FAILURE); /* no node 1 */
    cr_assert_eq(launch_with((bad_launch_t){.app = 1}), PMIX_ERR_UNPACK_FAILURE);  /* no app 1 */
    cr_assert_eq(launch_with((bad_launch_t){.node_flags = 2}), PMIX_ERR_UNPACK_FAILURE);
    cr_assert_eq(launch_with((bad_launch_t){.proc_flags = 0x80}), PMIX_ERR_UNPACK_FAILURE);
    cr_assert_eq(launch_with((bad_launch_t){.job_flags = 4}), PMIX_ERR_UNPACK_FAILURE);
    cr_assert_eq(launch_with((bad_launch_t){.bind_obj = PX_DP_BIND_HWTHREAD + 1}),
                 PMIX_ERR_UNPACK_FAILURE);
    cr_assert_eq(launch_with((bad_launch_t){.pe = PX_DP_PE_MAX + 1}), PMIX_ERR_UNPACK_FAILURE);
    cr_assert_eq(launch_with((bad_launch_t){.pe = PX_DP_PE_MAX, .bind_obj = PX_DP_BIND_PACKAGE}),
                 PMIX_SUCCESS);
    /* a node count far beyond the bytes: refused before allocating */
    pmix_data_buffer_t b;
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, "dvm@3");
    uint32_t huge = 60000;
    px_bfrops_buf_init(&b);
    px_bfrops_pack(&b, ns, 1, PMIX_PROC_NSPACE);
    px_bfrops_pack(&b, &huge, 1, PMIX_UINT32);
    px_dp_launch_t l;
    cr_assert_eq(px_dp_launch_unpack(&b, &l), PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    px_bfrops_buf_free(&b);
    /* an empty namespace */
    px_bfrops_buf_init(&b);
    memset(ns, 0, sizeof(ns));
    px_bfrops_pack(&b, ns, 1, PMIX_PROC_NSPACE);
    cr_assert_eq(px_dp_launch_unpack(&b, &l), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
}

Test(dproto, pstate_roundtrip_and_refusals)
{
    px_dp_pstate_one_t one[3] = {
        {.rank = 0, .state = PX_DP_PS_STARTED, .pid = 1234},
        {.rank = 5, .state = PX_DP_PS_EXITED, .pid = 1235, .status = 0x0100},
        {.rank = 7, .state = PX_DP_PS_FAILED, .status = 2, .stage = "exec"},
    };
    px_dp_pstate_t ps = {.procs = one, .n = 3};
    PMIX_LOAD_NSPACE(ps.nspace, "dvm@4");
    pmix_data_buffer_t full;
    px_bfrops_buf_init(&full);
    cr_assert_eq(px_dp_pstate_pack(&full, &ps), PMIX_SUCCESS);
    every_cut_refused(&full, decode_pstate);
    px_dp_pstate_t out;
    cr_assert_eq(px_dp_pstate_unpack(&full, &out), PMIX_SUCCESS);
    cr_assert_str_eq(out.nspace, "dvm@4");
    cr_assert_eq(out.n, 3);
    cr_assert_eq(out.procs[0].pid, 1234);
    cr_assert_eq(out.procs[1].rank, 5);
    cr_assert_eq(out.procs[1].status, 0x0100);
    cr_assert_null(out.procs[1].stage);
    cr_assert_str_eq(out.procs[2].stage, "exec");
    px_dp_pstate_free(&out);
    px_dp_pstate_free(NULL);
    px_bfrops_buf_free(&full);
    /* connected and finalized are states too; beyond them, unknown */
    one[0].state = PX_DP_PS_FINALIZED;
    ps.n = 1;
    px_bfrops_buf_init(&full);
    cr_assert_eq(px_dp_pstate_pack(&full, &ps), PMIX_SUCCESS);
    cr_assert_eq(px_dp_pstate_unpack(&full, &out), PMIX_SUCCESS);
    cr_assert_eq(out.procs[0].state, PX_DP_PS_FINALIZED);
    px_dp_pstate_free(&out);
    px_bfrops_buf_free(&full);
    /* stopped and continued (waitpid WUNTRACED / WCONTINUED) too */
    for (uint8_t st = PX_DP_PS_STOPPED; st <= PX_DP_PS_CONTINUED; st++) {
        one[0].state = st;
        px_bfrops_buf_init(&full);
        cr_assert_eq(px_dp_pstate_pack(&full, &ps), PMIX_SUCCESS);
        cr_assert_eq(px_dp_pstate_unpack(&full, &out), PMIX_SUCCESS);
        cr_assert_eq(out.procs[0].state, st);
        px_dp_pstate_free(&out);
        px_bfrops_buf_free(&full);
    }
    one[0].state = 9;
    ps.n = 1;
    px_bfrops_buf_init(&full);
    cr_assert_eq(px_dp_pstate_pack(&full, &ps), PMIX_SUCCESS);
    cr_assert_eq(px_dp_pstate_unpack(&full, &out), PMIX_ERR_UNPACK_FAILURE);
    cr_assert_null(out.procs);
    px_bfrops_buf_free(&full);
}

Test(dproto, signal_and_cleanup)
{
    pmix_data_buffer_t b;
    pmix_proc_t t;
    PMIx_Load_procid(&t, "dvm@5", PMIX_RANK_WILDCARD);
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_signal_pack(&b, &t, 9), PMIX_SUCCESS);
    px_dp_ctl_msg_t m;
    cr_assert_eq(px_dp_ctl_decode(PX_DP_SIGNAL, &b, &m), PMIX_SUCCESS);
    cr_assert_str_eq(m.target.nspace, "dvm@5");
    cr_assert_eq(m.target.rank, PMIX_RANK_WILDCARD);
    cr_assert_eq(m.signal, 9);
    px_bfrops_buf_free(&b);
    /* a signal number out of range */
    px_bfrops_buf_init(&b);
    px_dp_signal_pack(&b, &t, 0);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_SIGNAL, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    /* cleanup, then with trailing bytes */
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_cleanup_pack(&b, "dvm@5"), PMIX_SUCCESS);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_JOB_CLEANUP, &b, &m), PMIX_SUCCESS);
    cr_assert_str_eq(m.target.nspace, "dvm@5");
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    px_dp_cleanup_pack(&b, "dvm@5");
    px_dp_cleanup_pack(&b, "dvm@6");
    cr_assert_eq(px_dp_ctl_decode(PX_DP_JOB_CLEANUP, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
}

/* ---- stdin, output, flow, fences, direct modex, abort, job control, events ---- */

static pmix_status_t decode_ctl_stdin(pmix_data_buffer_t *b)
{
    px_dp_ctl_msg_t m;
    pmix_status_t rc = px_dp_ctl_decode(PX_DP_STDIN, b, &m);
    px_dp_ctl_msg_free(&m);
    return rc;
}

static uint32_t cut_tag; /* the tag every_cut_refused's decoders decode */

static pmix_status_t decode_ctl(pmix_data_buffer_t *b)
{
    px_dp_ctl_msg_t m;
    pmix_status_t rc = px_dp_ctl_decode(cut_tag, b, &m);
    if (rc != PMIX_SUCCESS) {
        cr_assert(m.sig == NULL && m.info == NULL && m.launch.procs == NULL && m.name == NULL &&
                  m.procs == NULL);
    }
    px_dp_ctl_msg_free(&m);
    return rc;
}

static pmix_status_t decode_dmn(pmix_data_buffer_t *b)
{
    px_dp_dmn_msg_t m;
    pmix_status_t rc = px_dp_dmn_decode(cut_tag, b, &m);
    if (rc != PMIX_SUCCESS) {
        cr_assert(m.procs == NULL && m.msg == NULL && m.info == NULL && m.pstate.procs == NULL);
        cr_assert(m.key == NULL && m.file == NULL && m.topic == NULL && m.text == NULL &&
                  m.apps == NULL);
    }
    px_dp_dmn_msg_free(&m);
    return rc;
}

Test(dproto, stdin_flow_roundtrip)
{
    pmix_proc_t t;
    PMIx_Load_procid(&t, "dvm@7", 3);
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_stdin_pack(&b, &t, "abc\n", 4), PMIX_SUCCESS);
    cut_tag = PX_DP_STDIN;
    every_cut_refused(&b, decode_ctl);
    px_dp_ctl_msg_t m;
    cr_assert_eq(px_dp_ctl_decode(PX_DP_STDIN, &b, &m), PMIX_SUCCESS);
    cr_assert_str_eq(m.target.nspace, "dvm@7");
    cr_assert_eq(m.target.rank, 3);
    cr_assert_eq(m.data.size, 4);
    cr_assert(memcmp(m.data.bytes, "abc\n", 4) == 0);
    px_dp_ctl_msg_free(&m);
    px_bfrops_buf_free(&b);
    /* end of input: no bytes */
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_stdin_pack(&b, &t, NULL, 0), PMIX_SUCCESS);
    cr_assert_eq(decode_ctl_stdin(&b), PMIX_SUCCESS);
    px_bfrops_buf_free(&b);
    /* pause, resume, and a pause value that is neither */
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_flow_pack(&b, &t, true), PMIX_SUCCESS);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_IOF_FLOW, &b, &m), PMIX_SUCCESS);
    cr_assert(m.pause);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, "dvm@7");
    uint8_t two = 2;
    px_bfrops_pack(&b, ns, 1, PMIX_PROC_NSPACE);
    px_bfrops_pack(&b, &t.rank, 1, PMIX_PROC_RANK);
    px_bfrops_pack(&b, &two, 1, PMIX_UINT8);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_IOF_FLOW, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
}

Test(dproto, iof_roundtrip_and_refusals)
{
    pmix_proc_t src;
    PMIx_Load_procid(&src, "dvm@8", 1);
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_iof_pack(&b, &src, PMIX_FWD_STDERR_CHANNEL, "hello\n", 6), PMIX_SUCCESS);
    cut_tag = PX_DP_IOF;
    every_cut_refused(&b, decode_dmn);
    px_dp_dmn_msg_t m;
    cr_assert_eq(px_dp_dmn_decode(PX_DP_IOF, &b, &m), PMIX_SUCCESS);
    cr_assert_eq(m.proc.rank, 1);
    cr_assert_eq(m.channel, PMIX_FWD_STDERR_CHANNEL);
    cr_assert_eq(m.data.size, 6);
    cr_assert(memcmp(m.data.bytes, "hello\n", 6) == 0);
    px_dp_dmn_msg_free(&m);
    px_bfrops_buf_free(&b);
    /* the head alone, then the bytes (as px_peer_send_ext puts them): the same message */
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_iof_pack(&b, &src, PMIX_FWD_STDOUT_CHANNEL, NULL, 3), PMIX_SUCCESS);
    px_bfrops_buf_append(&b, "xyz", 3);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_IOF, &b, &m), PMIX_SUCCESS);
    cr_assert(m.data.size == 3 && memcmp(m.data.bytes, "xyz", 3) == 0);
    px_bfrops_buf_free(&b);
    /* no bytes, or a channel that is neither stdout nor stderr */
    px_bfrops_buf_init(&b);
    px_dp_iof_pack(&b, &src, PMIX_FWD_STDOUT_CHANNEL, NULL, 0);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_IOF, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    px_dp_iof_pack(&b, &src, 0x40, "x", 1);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_IOF, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
}

Test(dproto, fence_roundtrip_and_signature)
{
    pmix_proc_t p[3];
    PMIx_Load_procid(&p[0], "dvm@9", 4);
    PMIx_Load_procid(&p[1], "dvm@9", 1);
    PMIx_Load_procid(&p[2], "dvm@10", PMIX_RANK_WILDCARD);
    char *sig = px_dp_fence_sig(p, 3);
    cr_assert_str_eq(sig, "dvm@10:*;dvm@9:1;dvm@9:4;");
    /* the same set in another order, a participant twice: the same signature */
    pmix_proc_t q[4] = {p[2], p[0], p[1], p[0]};
    char *sig2 = px_dp_fence_sig(q, 4);
    cr_assert_str_eq(sig, sig2);
    cr_assert_eq(q[1].rank, 4, "the caller's array is left alone");
    free(sig2);
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_fence_up_pack(&b, p, 3, true, "blob", 4), PMIX_SUCCESS);
    cut_tag = PX_DP_FENCE_UP;
    every_cut_refused(&b, decode_dmn);
    px_dp_dmn_msg_t m;
    cr_assert_eq(px_dp_dmn_decode(PX_DP_FENCE_UP, &b, &m), PMIX_SUCCESS);
    cr_assert_eq(m.nprocs, 3);
    cr_assert_str_eq(m.procs[2].nspace, "dvm@10");
    cr_assert(m.collect);
    cr_assert(m.data.size == 4 && memcmp(m.data.bytes, "blob", 4) == 0);
    px_dp_dmn_msg_free(&m);
    px_bfrops_buf_free(&b);
    /* no participant */
    px_bfrops_buf_init(&b);
    px_dp_fence_up_pack(&b, NULL, 0, false, NULL, 0);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_FENCE_UP, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    /* a count of participants the message cannot hold: refused before allocating */
    px_bfrops_buf_init(&b);
    uint32_t huge = 3000000;
    px_bfrops_pack(&b, &huge, 1, PMIX_UINT32);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_FENCE_UP, &b, &m), PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    px_bfrops_buf_free(&b);
    /* the release */
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_fence_rel_pack(&b, sig, PMIX_ERR_TIMEOUT, "all", 3), PMIX_SUCCESS);
    cut_tag = PX_DP_FENCE_REL;
    every_cut_refused(&b, decode_ctl);
    px_dp_ctl_msg_t c;
    cr_assert_eq(px_dp_ctl_decode(PX_DP_FENCE_REL, &b, &c), PMIX_SUCCESS);
    cr_assert_str_eq(c.sig, sig);
    cr_assert_eq(c.status, PMIX_ERR_TIMEOUT);
    cr_assert(c.data.size == 3 && memcmp(c.data.bytes, "all", 3) == 0);
    px_dp_ctl_msg_free(&c);
    px_bfrops_buf_free(&b);
    free(sig);
}

Test(dproto, dmodex_roundtrip_and_refusals)
{
    pmix_proc_t t;
    PMIx_Load_procid(&t, "dvm@11", 5);
    pmix_info_t info[1];
    int secs = 3;
    PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &secs, PMIX_INT);
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_dmodex_req_pack(&b, &t, info, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info[0]);
    cut_tag = PX_DP_DMODEX_REQ;
    every_cut_refused(&b, decode_dmn);
    every_cut_refused(&b, decode_ctl);
    pmix_data_buffer_t copy;
    prefix_of(&copy, &b, (size_t)(b.pack_ptr - b.base_ptr));
    px_dp_dmn_msg_t m;
    cr_assert_eq(px_dp_dmn_decode(PX_DP_DMODEX_REQ, &b, &m), PMIX_SUCCESS);
    cr_assert_eq(m.proc.rank, 5);
    cr_assert_eq(m.ninfo, 1);
    cr_assert_str_eq(m.info[0].key, PMIX_TIMEOUT);
    px_dp_dmn_msg_free(&m);
    px_dp_ctl_msg_t c;
    cr_assert_eq(px_dp_ctl_decode(PX_DP_DMODEX_REQ, &copy, &c), PMIX_SUCCESS);
    cr_assert_str_eq(c.target.nspace, "dvm@11");
    px_dp_ctl_msg_free(&c);
    px_bfrops_buf_free(&copy);
    px_bfrops_buf_free(&b);
    /* the data of a wildcard is not one process's */
    PMIx_Load_procid(&t, "dvm@11", PMIX_RANK_WILDCARD);
    px_bfrops_buf_init(&b);
    px_dp_dmodex_req_pack(&b, &t, NULL, 0);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_DMODEX_REQ, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    /* the reply */
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_dmodex_resp_pack(&b, PMIX_SUCCESS, "data", 4), PMIX_SUCCESS);
    pmix_status_t st;
    pmix_byte_object_t bo;
    cr_assert_eq(px_dp_dmodex_resp_unpack(&b, &st, &bo), PMIX_SUCCESS);
    cr_assert(st == PMIX_SUCCESS && bo.size == 4 && memcmp(bo.bytes, "data", 4) == 0);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    px_dp_dmodex_resp_pack(&b, PMIX_ERR_NOT_FOUND, NULL, 0);
    cr_assert_eq(px_dp_dmodex_resp_unpack(&b, &st, &bo), PMIX_SUCCESS);
    cr_assert_eq(st, PMIX_ERR_NOT_FOUND);
    px_bfrops_buf_free(&b);
}

Test(dproto, abort_jobctl_event)
{
    pmix_proc_t caller, targets[2];
    PMIx_Load_procid(&caller, "dvm@12", 2);
    PMIx_Load_procid(&targets[0], "dvm@13", PMIX_RANK_WILDCARD);
    PMIx_Load_procid(&targets[1], "dvm@14", 0);
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_abort_pack(&b, &caller, 42, "bye", targets, 2), PMIX_SUCCESS);
    cut_tag = PX_DP_ABORT;
    every_cut_refused(&b, decode_dmn);
    px_dp_dmn_msg_t m;
    cr_assert_eq(px_dp_dmn_decode(PX_DP_ABORT, &b, &m), PMIX_SUCCESS);
    cr_assert(m.proc.rank == 2 && m.status == 42 && strcmp(m.msg, "bye") == 0);
    cr_assert(m.nprocs == 2 && m.procs[1].rank == 0);
    px_dp_dmn_msg_free(&m);
    px_bfrops_buf_free(&b);
    /* no message, no targets */
    px_bfrops_buf_init(&b);
    px_dp_abort_pack(&b, &caller, 1, NULL, NULL, 0);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_ABORT, &b, &m), PMIX_SUCCESS);
    cr_assert(m.msg == NULL && m.procs == NULL && m.nprocs == 0);
    px_bfrops_buf_free(&b);

    pmix_info_t dir[1];
    int sig = 1;
    PMIX_INFO_LOAD(&dir[0], PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT);
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_jobctl_pack(&b, &caller, targets, 1, dir, 1), PMIX_SUCCESS);
    cut_tag = PX_DP_JOBCTL;
    every_cut_refused(&b, decode_dmn);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_JOBCTL, &b, &m), PMIX_SUCCESS);
    cr_assert(m.nprocs == 1 && m.ninfo == 1);
    cr_assert_str_eq(m.info[0].key, PMIX_JOB_CTRL_SIGNAL);
    px_dp_dmn_msg_free(&m);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_status_info_pack(&b, PMIX_ERR_NOT_FOUND, dir, 1), PMIX_SUCCESS);
    pmix_status_t st;
    pmix_info_t *res;
    size_t nres;
    cr_assert_eq(px_dp_status_info_unpack(&b, &st, &res, &nres), PMIX_SUCCESS);
    cr_assert(st == PMIX_ERR_NOT_FOUND && nres == 1);
    px_bfrops_info_array_free(res, nres);
    px_bfrops_buf_free(&b);

    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_event_pack(&b, PMIX_ERR_PROC_ABORTED, &caller, PMIX_RANGE_GLOBAL, dir, 1),
                 PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&dir[0]);
    cut_tag = PX_DP_EVENT;
    every_cut_refused(&b, decode_dmn);
    every_cut_refused(&b, decode_ctl);
    px_dp_ctl_msg_t c;
    cr_assert_eq(px_dp_ctl_decode(PX_DP_EVENT, &b, &c), PMIX_SUCCESS);
    cr_assert(c.status == PMIX_ERR_PROC_ABORTED && c.range == PMIX_RANGE_GLOBAL);
    cr_assert(c.source.rank == 2 && c.ninfo == 1);
    px_dp_ctl_msg_free(&c);
    px_bfrops_buf_free(&b);
    /* a range beyond the known ones */
    px_bfrops_buf_init(&b);
    px_dp_event_pack(&b, PMIX_ERR_PROC_ABORTED, &caller, 200, NULL, 0);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_EVENT, &b, &c), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    /* the controller's decoder does not take the daemon's messages, nor the reverse */
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_LAUNCH, &b, &m), PMIX_ERR_NOT_SUPPORTED);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_ABORT, &b, &c), PMIX_ERR_NOT_SUPPORTED);
    px_bfrops_buf_free(&b);
}

/* QUERY (issue 17: a debugger daemon's proc-table query on a prted node): round trip,
 * every truncation, no query, no key, a count beyond the bound or the bytes. */
Test(dproto, query_roundtrip_and_refusals)
{
    pmix_proc_t who;
    PMIx_Load_procid(&who, "dvm@3", 1);
    pmix_query_t q[2];
    PMIX_QUERY_CONSTRUCT(&q[0]);
    PMIX_QUERY_CONSTRUCT(&q[1]);
    char *k0[] = {PMIX_QUERY_LOCAL_PROC_TABLE, PMIX_QUERY_PROC_TABLE, NULL};
    char *k1[] = {PMIX_QUERY_NAMESPACES, NULL};
    q[0].keys = k0;
    q[1].keys = k1;
    pmix_info_t qual;
    PMIX_INFO_LOAD(&qual, PMIX_NSPACE, "dvm@2", PMIX_STRING);
    q[0].qualifiers = &qual;
    q[0].nqual = 1;
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_query_pack(&b, &who, q, 2), PMIX_SUCCESS);
    cut_tag = PX_DP_QUERY;
    every_cut_refused(&b, decode_dmn);
    px_dp_dmn_msg_t m;
    cr_assert_eq(px_dp_dmn_decode(PX_DP_QUERY, &b, &m), PMIX_SUCCESS);
    cr_assert(m.proc.rank == 1 && strcmp(m.proc.nspace, "dvm@3") == 0 && m.nqueries == 2);
    cr_assert_str_eq(m.queries[0].keys[1], PMIX_QUERY_PROC_TABLE);
    cr_assert_null(m.queries[0].keys[2]);
    cr_assert(m.queries[0].nqual == 1 && m.queries[1].nqual == 0);
    cr_assert_str_eq(m.queries[0].qualifiers[0].value.data.string, "dvm@2");
    cr_assert_str_eq(m.queries[1].keys[0], PMIX_QUERY_NAMESPACES);
    px_dp_dmn_msg_free(&m);
    px_bfrops_buf_free(&b);
    PMIX_INFO_DESTRUCT(&qual);
    /* no query; a query with no key */
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_query_pack(&b, &who, q, 0), PMIX_SUCCESS);
    cr_assert_neq(px_dp_dmn_decode(PX_DP_QUERY, &b, &m), PMIX_SUCCESS);
    px_bfrops_buf_free(&b);
    char *none[] = {NULL};
    q[1].keys = none;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_query_pack(&b, &who, &q[1], 1), PMIX_SUCCESS);
    cr_assert_neq(px_dp_dmn_decode(PX_DP_QUERY, &b, &m), PMIX_SUCCESS);
    px_bfrops_buf_free(&b);
    /* counts beyond the bound, and beyond the bytes, refused before any allocation */
    uint32_t huge[2] = {PX_DP_QUERIES_MAX + 1, 1000};
    for (int i = 0; i < 2; i++) {
        px_bfrops_buf_init(&b);
        cr_assert_eq(px_bfrops_pack(&b, &who, 1, PMIX_PROC), PMIX_SUCCESS);
        cr_assert_eq(px_bfrops_pack(&b, &huge[i], 1, PMIX_UINT32), PMIX_SUCCESS);
        cr_assert_neq(px_dp_dmn_decode(PX_DP_QUERY, &b, &m), PMIX_SUCCESS);
        px_bfrops_buf_free(&b);
    }
}

/* tree spawn: SPAWN round-trips through the daemon's decoder, every truncation and each
 * bad field is refused; CHILD_END likewise */
static void spawn_buf(pmix_data_buffer_t *b, const char *agent)
{
    px_dp_child_t ch[2] = {{.id = 3, .host = "node3", .cmd = "'/p/prted' --id 3"},
                           {.id = 4, .host = "node4", .cmd = "'/p/prted' --id 4"}};
    px_dp_spawn_t sp = {.agent = (char *)agent, .children = ch, .n = 2};
    px_bfrops_buf_init(b);
    cr_assert_eq(px_dp_spawn_pack(b, &sp), PMIX_SUCCESS);
}

Test(dproto, spawn_roundtrip_and_refusals)
{
    pmix_data_buffer_t b;
    px_dp_ctl_msg_t m;
    spawn_buf(&b, NULL);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_SPAWN, &b, &m), PMIX_SUCCESS);
    cr_assert_null(m.spawn.agent);
    cr_assert_eq(m.spawn.n, 2);
    cr_assert_eq(m.spawn.children[1].id, 4);
    cr_assert_str_eq(m.spawn.children[1].host, "node4");
    cr_assert_str_eq(m.spawn.children[0].cmd, "'/p/prted' --id 3");
    px_dp_ctl_msg_free(&m);
    cr_assert_null(m.spawn.children);
    px_bfrops_buf_free(&b);
    spawn_buf(&b, "ssh -x");
    cr_assert_eq(px_dp_ctl_decode(PX_DP_SPAWN, &b, &m), PMIX_SUCCESS);
    cr_assert_str_eq(m.spawn.agent, "ssh -x");
    px_dp_ctl_msg_free(&m);
    size_t len = (size_t)(b.pack_ptr - b.base_ptr);
    for (size_t cut = 0; cut < len; cut++) {
        pmix_data_buffer_t c;
        prefix_of(&c, &b, cut);
        cr_assert_neq(px_dp_ctl_decode(PX_DP_SPAWN, &c, &m), PMIX_SUCCESS, "cut %zu", cut);
        cr_assert_null(m.spawn.children);
        px_bfrops_buf_free(&c);
    }
    px_bfrops_buf_free(&b);
    /* no children, daemon 0 as a child, an empty host, a huge count */
    px_dp_child_t zero = {.id = 0, .host = "h", .cmd = "c"},
                  nohost = {.id = 2, .host = "", .cmd = "c"};
    px_dp_spawn_t bad[3] = {{.n = 0}, {.children = &zero, .n = 1}, {.children = &nohost, .n = 1}};
    for (size_t i = 0; i < 3; i++) {
        px_bfrops_buf_init(&b);
        cr_assert_eq(px_dp_spawn_pack(&b, &bad[i]), PMIX_SUCCESS);
        cr_assert_eq(px_dp_ctl_decode(PX_DP_SPAWN, &b, &m), PMIX_ERR_UNPACK_FAILURE, "bad %zu", i);
        px_bfrops_buf_free(&b);
    }
    px_bfrops_buf_init(&b);
    const char *none = NULL;
    uint32_t huge = UINT32_MAX;
    px_bfrops_pack(&b, &none, 1, PMIX_STRING);
    px_bfrops_pack(&b, &huge, 1, PMIX_UINT32);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_SPAWN, &b, &m), PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    px_bfrops_buf_free(&b);

    uint32_t id = 0;
    int32_t st = 0;
    char *why = NULL;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_child_end_pack(&b, 7, 127, "prted not found"), PMIX_SUCCESS);
    cr_assert_eq(px_dp_child_end_unpack(&b, &id, &st, &why), PMIX_SUCCESS);
    cr_assert_eq(id, 7);
    cr_assert_eq(st, 127);
    cr_assert_str_eq(why, "prted not found");
    free(why);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_child_end_pack(&b, 7, -2, NULL), PMIX_SUCCESS);
    cr_assert_eq(px_dp_child_end_unpack(&b, &id, &st, &why), PMIX_ERR_UNPACK_FAILURE);
    cr_assert_null(why);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_child_end_pack(&b, 7, -1, NULL), PMIX_SUCCESS);
    px_bfrops_pack(&b, &id, 1, PMIX_UINT32); /* trailing */
    cr_assert_eq(px_dp_child_end_unpack(&b, &id, &st, &why), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
}

/* ---- groups, process sets, reports, spawn (dproto_grp.c) ---- */

Test(dproto, group_up_roundtrip_and_refusals)
{
    pmix_proc_t procs[2];
    PMIx_Load_procid(&procs[0], "dvm@3", 0);
    PMIx_Load_procid(&procs[1], "dvm@4", PMIX_RANK_WILDCARD);
    pmix_info_t dir[1];
    bool yes = true;
    PMIX_INFO_LOAD(&dir[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_group_up_pack(&b, PX_DP_GRP_CONSTRUCT, "g1", procs, 2, dir, 1),
                 PMIX_SUCCESS);
    cut_tag = PX_DP_GROUP_UP;
    every_cut_refused(&b, decode_dmn);
    px_dp_dmn_msg_t m;
    cr_assert_eq(px_dp_dmn_decode(PX_DP_GROUP_UP, &b, &m), PMIX_SUCCESS);
    cr_assert(m.kind == PX_DP_GRP_CONSTRUCT && strcmp(m.key, "g1") == 0);
    cr_assert(m.nprocs == 2 && m.procs[1].rank == PMIX_RANK_WILDCARD && m.ninfo == 1);
    cr_assert_str_eq(m.info[0].key, PMIX_GROUP_ASSIGN_CONTEXT_ID);
    px_dp_dmn_msg_free(&m);
    px_bfrops_buf_free(&b);
    /* no procs (an added member of a bootstrap) */
    px_bfrops_buf_init(&b);
    px_dp_group_up_pack(&b, PX_DP_GRP_DISCONNECT, "dvm@3:*;", NULL, 0, NULL, 0);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_GROUP_UP, &b, &m), PMIX_SUCCESS);
    cr_assert(m.kind == PX_DP_GRP_DISCONNECT && m.procs == NULL && m.nprocs == 0);
    px_dp_dmn_msg_free(&m);
    px_bfrops_buf_free(&b);
    /* an unknown kind, an empty key, trailing bytes */
    px_bfrops_buf_init(&b);
    px_dp_group_up_pack(&b, 4, "g1", procs, 1, NULL, 0);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_GROUP_UP, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    px_dp_group_up_pack(&b, PX_DP_GRP_DESTRUCT, "", procs, 1, NULL, 0);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_GROUP_UP, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    px_dp_group_up_pack(&b, PX_DP_GRP_DESTRUCT, "g1", procs, 1, NULL, 0);
    px_bfrops_pack(&b, &yes, 1, PMIX_BOOL);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_GROUP_UP, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    /* a count of procs beyond the bytes is refused before any allocation */
    px_bfrops_buf_init(&b);
    uint8_t kind = PX_DP_GRP_CONNECT;
    uint32_t huge = 3000000;
    const char *key = "k";
    px_bfrops_pack(&b, &kind, 1, PMIX_UINT8);
    px_bfrops_pack(&b, &key, 1, PMIX_STRING);
    px_bfrops_pack(&b, &huge, 1, PMIX_UINT32);
    cr_assert_neq(px_dp_dmn_decode(PX_DP_GROUP_UP, &b, &m), PMIX_SUCCESS);
    px_bfrops_buf_free(&b);
    /* the daemon's decoder does not take it */
    px_bfrops_buf_init(&b);
    px_dp_ctl_msg_t c;
    cr_assert_eq(px_dp_ctl_decode(PX_DP_GROUP_UP, &b, &c), PMIX_ERR_NOT_SUPPORTED);
    px_bfrops_buf_free(&b);
    PMIX_INFO_DESTRUCT(&dir[0]);
}

Test(dproto, pset_roundtrip_and_refusals)
{
    pmix_proc_t procs[2];
    PMIx_Load_procid(&procs[0], "dvm@3", 0);
    PMIx_Load_procid(&procs[1], "dvm@3", 2);
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_pset_pack(&b, true, "evens", procs, 2), PMIX_SUCCESS);
    cut_tag = PX_DP_PSET;
    every_cut_refused(&b, decode_ctl);
    px_dp_ctl_msg_t m;
    cr_assert_eq(px_dp_ctl_decode(PX_DP_PSET, &b, &m), PMIX_SUCCESS);
    cr_assert(m.define && strcmp(m.name, "evens") == 0 && m.nprocs == 2);
    cr_assert(m.procs[1].rank == 2);
    px_dp_ctl_msg_free(&m);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_pset_pack(&b, false, "evens", procs, 2), PMIX_SUCCESS);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_PSET, &b, &m), PMIX_SUCCESS);
    cr_assert(!m.define && m.nprocs == 0 && m.procs == NULL);
    px_dp_ctl_msg_free(&m);
    px_bfrops_buf_free(&b);
    /* a define without members, an operation beyond delete/define, an empty name */
    px_bfrops_buf_init(&b);
    px_dp_pset_pack(&b, true, "none", NULL, 0);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_PSET, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    uint8_t op = 2;
    const char *name = "x";
    uint32_t zero = 0;
    px_bfrops_pack(&b, &op, 1, PMIX_UINT8);
    px_bfrops_pack(&b, &name, 1, PMIX_STRING);
    px_bfrops_pack(&b, &zero, 1, PMIX_UINT32);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_PSET, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    px_dp_pset_pack(&b, false, "", NULL, 0);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_PSET, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
}

Test(dproto, report_and_spawn)
{
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_report_pack(&b, "help-prted.txt", "iof-file", "text\n"), PMIX_SUCCESS);
    cut_tag = PX_DP_REPORT;
    every_cut_refused(&b, decode_dmn);
    px_dp_dmn_msg_t m;
    cr_assert_eq(px_dp_dmn_decode(PX_DP_REPORT, &b, &m), PMIX_SUCCESS);
    cr_assert_str_eq(m.file, "help-prted.txt");
    cr_assert_str_eq(m.topic, "iof-file");
    cr_assert_str_eq(m.text, "text\n");
    px_dp_dmn_msg_free(&m);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    px_dp_report_pack(&b, "help-prted.txt", NULL, "text");
    cr_assert_eq(px_dp_dmn_decode(PX_DP_REPORT, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);

    pmix_proc_t req;
    PMIx_Load_procid(&req, "dvm@5", 1);
    pmix_app_t *apps = PMIx_App_create(2);
    apps[0].cmd = strdup("/bin/true");
    apps[0].maxprocs = 2;
    apps[1].cmd = strdup("/bin/false");
    apps[1].maxprocs = 1;
    pmix_info_t dir[1];
    PMIX_INFO_LOAD(&dir[0], PMIX_MAPBY, "node", PMIX_STRING);
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_proc_spawn_pack(&b, &req, dir, 1, apps, 2), PMIX_SUCCESS);
    cut_tag = PX_DP_PROC_SPAWN;
    every_cut_refused(&b, decode_dmn);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_PROC_SPAWN, &b, &m), PMIX_SUCCESS);
    cr_assert(m.proc.rank == 1 && m.ninfo == 1 && m.napps == 2);
    cr_assert_str_eq(m.apps[1].cmd, "/bin/false");
    cr_assert_eq(m.apps[0].maxprocs, 2);
    px_dp_dmn_msg_free(&m);
    px_bfrops_buf_free(&b);
    /* no app */
    px_bfrops_buf_init(&b);
    px_dp_proc_spawn_pack(&b, &req, dir, 1, apps, 0);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_PROC_SPAWN, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    PMIx_App_free(apps, 2);
    PMIX_INFO_DESTRUCT(&dir[0]);
    /* the reply */
    pmix_status_t st;
    char *ns;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_proc_spawn_reply_pack(&b, PMIX_SUCCESS, "dvm@9"), PMIX_SUCCESS);
    cr_assert_eq(px_dp_proc_spawn_reply_unpack(&b, &st, &ns), PMIX_SUCCESS);
    cr_assert(st == PMIX_SUCCESS && strcmp(ns, "dvm@9") == 0);
    free(ns);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    px_dp_proc_spawn_reply_pack(&b, PMIX_ERR_JOB_EXE_NOT_FOUND, NULL);
    cr_assert_eq(px_dp_proc_spawn_reply_unpack(&b, &st, &ns), PMIX_SUCCESS);
    cr_assert(st == PMIX_ERR_JOB_EXE_NOT_FOUND && ns == NULL);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    px_dp_proc_spawn_reply_pack(&b, PMIX_SUCCESS, "");
    cr_assert_eq(px_dp_proc_spawn_reply_unpack(&b, &st, &ns), PMIX_ERR_UNPACK_FAILURE);
    cr_assert_null(ns);
    px_bfrops_buf_free(&b);
}

/* ---- the routing tree (dproto_tree.c) ---- */

Test(dproto, tree_messages)
{
    char *addrs[3] = {NULL, "10.0.0.2:4000", "10.0.0.3:4001"};
    px_dp_tree_t t = {.radix = 2, .n = 3, .addrs = addrs};
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_tree_pack(&b, &t), PMIX_SUCCESS);
    cut_tag = PX_DP_TREE;
    every_cut_refused(&b, decode_ctl);
    px_dp_ctl_msg_t m;
    cr_assert_eq(px_dp_ctl_decode(PX_DP_TREE, &b, &m), PMIX_SUCCESS);
    cr_assert(m.tree.radix == 2 && m.tree.n == 3 && m.tree.addrs[0] == NULL);
    cr_assert_str_eq(m.tree.addrs[2], "10.0.0.3:4001");
    px_dp_ctl_msg_free(&m);
    px_bfrops_buf_free(&b);
    /* radix 0, an empty address, more addresses than bytes */
    t.radix = 0;
    px_bfrops_buf_init(&b);
    px_dp_tree_pack(&b, &t);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_TREE, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    t.radix = 2;
    addrs[1] = "";
    px_bfrops_buf_init(&b);
    px_dp_tree_pack(&b, &t);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_TREE, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    uint32_t radix = 2, huge = 60000;
    px_bfrops_pack(&b, &radix, 1, PMIX_UINT32);
    px_bfrops_pack(&b, &huge, 1, PMIX_UINT32);
    cr_assert_neq(px_dp_ctl_decode(PX_DP_TREE, &b, &m), PMIX_SUCCESS);
    px_bfrops_buf_free(&b);

    /* XCAST: the inner message's tag and payload */
    pmix_data_buffer_t inner;
    px_bfrops_buf_init(&inner);
    px_dp_cleanup_pack(&inner, "dvm@4");
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_xcast_pack(&b, PX_DP_JOB_CLEANUP, &inner), PMIX_SUCCESS);
    cut_tag = PX_DP_XCAST;
    every_cut_refused(&b, decode_ctl);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_XCAST, &b, &m), PMIX_SUCCESS);
    cr_assert(m.inner == PX_DP_JOB_CLEANUP && m.data.size == inner.bytes_used);
    cr_assert(memcmp(m.data.bytes, inner.base_ptr, inner.bytes_used) == 0);
    px_dp_ctl_msg_free(&m);
    px_bfrops_buf_free(&b);
    /* no envelope in an envelope */
    px_bfrops_buf_init(&b);
    px_dp_xcast_pack(&b, PX_DP_XCAST, &inner);
    cr_assert_eq(px_dp_ctl_decode(PX_DP_XCAST, &b, &m), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_free(&inner);

    /* ADDR, TREE_UP */
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_addr_pack(&b, "10.0.0.2:4000"), PMIX_SUCCESS);
    px_dp_dmn_msg_t d;
    cr_assert_eq(px_dp_dmn_decode(PX_DP_ADDR, &b, &d), PMIX_SUCCESS);
    cr_assert_str_eq(d.addr, "10.0.0.2:4000");
    px_dp_dmn_msg_free(&d);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    px_dp_addr_pack(&b, NULL);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_ADDR, &b, &d), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_TREE_UP, &b, &d), PMIX_SUCCESS);
    px_bfrops_pack(&b, &radix, 1, PMIX_UINT32);
    cr_assert_eq(px_dp_dmn_decode(PX_DP_TREE_UP, &b, &d), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);

    /* a child's hello: its id, not 0, this version */
    uint32_t id = 0;
    px_bfrops_buf_init(&b);
    cr_assert_eq(px_dp_child_hello_pack(&b, 5), PMIX_SUCCESS);
    cr_assert_eq(px_dp_child_hello_unpack(&b, &id), PMIX_SUCCESS);
    cr_assert_eq(id, 5);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    px_dp_child_hello_pack(&b, 0);
    cr_assert_eq(px_dp_child_hello_unpack(&b, &id), PMIX_ERR_UNPACK_FAILURE);
    px_bfrops_buf_free(&b);
    px_bfrops_buf_init(&b);
    uint32_t v = PX_DP_VERSION + 1;
    px_bfrops_pack(&b, &v, 1, PMIX_UINT32);
    px_bfrops_pack(&b, &v, 1, PMIX_UINT32);
    cr_assert_eq(px_dp_child_hello_unpack(&b, &id), PMIX_ERR_NOT_SUPPORTED);
    px_bfrops_buf_free(&b);
}
