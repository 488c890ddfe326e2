/*
 * pxc_topo [--shared] [--cpusets] [--nodes K] - cpusets and topology as a client sees them
 * under pxhost --topology "pack:2 core:2 pu:2" (8 PUs; PU p is in core p/2, package p/4).
 *   --shared   PMIx_Load_topology gives the server's synthetic topology (its root's
 *              Backend info is "Synthetic", 8 PUs); without it, the server shares none
 *              (pxhost --no-share-topology) and the client discovers this machine.
 *   --cpusets  pxhost registered local rank k with PMIX_CPUSET "hwloc:k": the rank reads
 *              that, PMIX_LOCALITY_STRING "hwloc:NM0:SK<k/4>:L3:L2:L1:CR<k/2>:HT<k>",
 *              PMIX_LOCAL_CPUSETS "0:1:...", and its relative locality to local rank 0.
 *              Without it: no PMIX_CPUSET, a locality string covering the node.
 *   --destruct-after-finalize  keep a PMIx_Load_topology result past PMIx_Finalize and
 *              destruct it only then (the library cleaned up its topology at finalize: the
 *              destruct must not free it a second time; run under ASan to see it).
 * Prints "pxc_topo: rank R ok" when every check passed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <pmix.h>

#include "pxc_common.h"

static pmix_proc_t me;

/* A string value of rank, malloc'd; NULL with *rc set when absent. */
static char *get_str(pmix_rank_t rank, const char *key, pmix_status_t *rc)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    char *out = NULL;
    PMIx_Load_procid(&p, me.nspace, rank);
    *rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (*rc == PMIX_SUCCESS) {
        if (v->type != PMIX_STRING) {
            pxc_fail("PMIx_Get(%s): type %s", key, PMIx_Data_type_string(v->type));
        }
        out = strdup(v->data.string);
        PMIx_Value_free(v, 1);
    }
    return out;
}

static void check_topology(bool shared)
{
    pmix_topology_t t;
    PMIx_Topology_construct(&t);
    pmix_status_t rc = PMIx_Load_topology(&t);
    if (rc != PMIX_SUCCESS || t.topology == NULL) {
        pxc_fail("PMIx_Load_topology: %s", PMIx_Error_string(rc));
    }
    const char *backend = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t.topology), "Backend");
    bool synthetic = backend != NULL && strcmp(backend, "Synthetic") == 0;
    int pus = hwloc_get_nbobjs_by_type(t.topology, HWLOC_OBJ_PU);
    if (shared && (!synthetic || pus != 8)) {
        pxc_fail("PMIx_Load_topology: expected the server's synthetic topology, got backend %s, "
                 "%d PUs",
                 backend ? backend : "(none)", pus);
    }
    if (!shared && synthetic) {
        pxc_fail("PMIx_Load_topology: the server did not share its topology, got it anyway");
    }
    PMIx_Topology_destruct(&t);
}

static pthread_t caller;
static volatile bool called_inside;

static void dist_cb(pmix_status_t status, pmix_device_distance_t *dist, size_t ndist, void *cbdata,
                    pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)dist;
    (void)ndist;
    if (pthread_equal(pthread_self(), caller)) {
        called_inside = true; /* from the caller's own stack: inside the call */
    }
    pxc_cb_mark(cbdata, status);
    if (release_fn != NULL) {
        release_fn(release_cbdata);
    }
}

/* PMIx_Compute_distances_nb from this process's binding on the local topology: one
 * callback, after the call. The synthetic topology has no devices: PMIX_ERR_NOT_FOUND. */
static void check_distances_nb(bool shared)
{
    pxc_cb_t cb;
    pmix_cpuset_t c;
    pxc_cb_init(&cb);
    PMIx_Cpuset_construct(&c);
    pmix_status_t rc = PMIx_Get_cpuset(&c, PMIX_CPUBIND_PROCESS);
    if (rc != PMIX_SUCCESS) {
        pxc_fail("PMIx_Get_cpuset: %s", PMIx_Error_string(rc));
    }
    caller = pthread_self();
    rc = PMIx_Compute_distances_nb(NULL, &c, NULL, 0, dist_cb, &cb);
    if (rc != PMIX_SUCCESS) {
        pxc_fail("PMIx_Compute_distances_nb: %s", PMIx_Error_string(rc));
    }
    if (called_inside) {
        pxc_fail("PMIx_Compute_distances_nb called back inside the call");
    }
    if (!pxc_cb_wait(&cb, 5.0) || cb.calls != 1) {
        pxc_fail("PMIx_Compute_distances_nb: %d callbacks", cb.calls);
    }
    if (shared && cb.status != PMIX_ERR_NOT_FOUND) {
        pxc_fail("PMIx_Compute_distances_nb on a topology without devices: %s",
                 PMIx_Error_string(cb.status));
    }
    PMIx_Cpuset_destruct(&c);
}

static void expect_str(const char *what, const char *got, const char *want)
{
    if (got == NULL || strcmp(got, want) != 0) {
        pxc_fail("%s: expected \"%s\", got \"%s\"", what, want, got ? got : "(absent)");
    }
}

int main(int argc, char **argv)
{
    bool shared = false, cpusets = false, late_destruct = false;
    pmix_topology_t kept;
    int nodes = 1, size;
    pxc_name = "pxc_topo";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--shared") == 0) {
            shared = true;
        } else if (strcmp(argv[i], "--cpusets") == 0) {
            cpusets = true;
        } else if (strcmp(argv[i], "--destruct-after-finalize") == 0) {
            late_destruct = true;
        } else if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc) {
            nodes = pxc_parse_int(argv[i], argv[i + 1]);
            i++;
        } else {
            pxc_fail("unknown argument %s", argv[i]);
        }
    }
    pxc_init(&me, &size);
    int node = pxc_node_of(size, nodes, (int)me.rank);
    int first = pxc_node_start(size, nodes, node), nlocal = pxc_node_count(size, nodes, node);
    int k = (int)me.rank - first;
    check_topology(shared);

    pmix_status_t rc;
    char want[128], *s = get_str(me.rank, PMIX_CPUSET, &rc);
    if (cpusets) {
        snprintf(want, sizeof(want), "hwloc:%d", k);
        expect_str("PMIX_CPUSET", s, want);
        snprintf(want, sizeof(want), "hwloc:NM0:SK%d:L3:L2:L1:CR%d:HT%d", k / 4, k / 2, k);
    } else {
        if (s != NULL || rc != PMIX_ERR_NOT_FOUND) {
            pxc_fail("PMIX_CPUSET of an unbound rank: %s (%s)", s, PMIx_Error_string(rc));
        }
        snprintf(want, sizeof(want), "hwloc:NM0:SK0-1:L3:L2:L1:CR0-3:HT0-7");
    }
    free(s);
    char *mine = get_str(me.rank, PMIX_LOCALITY_STRING, &rc);
    expect_str("PMIX_LOCALITY_STRING", mine, want);

    /* the node's cpusets, local peers in order */
    char lcpus[512] = "";
    for (int i = 0; i < nlocal; i++) {
        snprintf(lcpus + strlen(lcpus), sizeof(lcpus) - strlen(lcpus), "%s%s", i ? ":" : "",
                 cpusets ? (char[16]){0} : "0-7");
        if (cpusets) {
            snprintf(lcpus + strlen(lcpus), sizeof(lcpus) - strlen(lcpus), "%d", i);
        }
    }
    s = get_str(PMIX_RANK_WILDCARD, PMIX_LOCAL_CPUSETS, &rc);
    expect_str("PMIX_LOCAL_CPUSETS", s, lcpus);
    free(s);

    /* relative locality to the node's first rank (local rank 0: PU 0) */
    char *other = get_str((pmix_rank_t)first, PMIX_LOCALITY_STRING, &rc);
    pmix_locality_t loc = 0;
    rc = PMIx_Get_relative_locality(mine, other, &loc);
    pmix_locality_t expect = PMIX_LOCALITY_SHARE_NODE | PMIX_LOCALITY_SHARE_NUMA;
    if (!cpusets || k < 4) {
        expect |= PMIX_LOCALITY_SHARE_PACKAGE;
    }
    if (!cpusets || k < 2) {
        expect |= PMIX_LOCALITY_SHARE_CORE;
    }
    if (!cpusets || k == 0) {
        expect |= PMIX_LOCALITY_SHARE_HWTHREAD;
    }
    if (rc != PMIX_SUCCESS || loc != expect) {
        pxc_fail("PMIx_Get_relative_locality(%s, %s): %s, 0x%x (expected 0x%x)", mine, other,
                 PMIx_Error_string(rc), (unsigned)loc, (unsigned)expect);
    }
    free(mine);
    free(other);
    check_distances_nb(shared);
    PMIx_Topology_construct(&kept);
    if (late_destruct && (rc = PMIx_Load_topology(&kept)) != PMIX_SUCCESS) {
        pxc_fail("PMIx_Load_topology: %s", PMIx_Error_string(rc));
    }
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        pxc_fail("PMIx_Finalize: %s", PMIx_Error_string(rc));
    }
    PMIx_Topology_destruct(&kept); /* after finalize: must leave the library's alone */
    if (kept.topology != NULL || kept.source != NULL) {
        pxc_fail("PMIx_Topology_destruct left the structure filled");
    }
    printf("pxc_topo: rank %u ok\n", me.rank);
    return 0;
}
