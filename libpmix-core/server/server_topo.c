/* server: cpusets and topology on the server side - the host's topology
 * (PMIX_TOPOLOGY2 at PMIx_server_init) becomes the library's local topology and is
 * given to clients as hwloc XML (PX_TAG_TOPOLOGY); each registered namespace's local
 * processes get PMIX_LOCALITY_STRING, their node PMIX_LOCAL_CPUSETS; and the
 * PMIx_server_generate_* functions. Registration runs on the host's thread, requests on
 * the progress loop; both with px_srv->lock held. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "common/px_topo.h"
#include "server/px_server.h"
#include "server/px_srv_topo.h"
#include "types/px_hwtypes.h"

static bool share = true; /* PMIX_SERVER_SHARE_TOPOLOGY (default: share) */
static char *xml_cache;   /* owned: the local topology as XML, once asked */

pmix_status_t px_srv_topo_init(const pmix_info_t *info, size_t ninfo)
{
    share = true;
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *in = &info[i];
        hwloc_topology_t given = NULL;
        if (PMIX_CHECK_KEY(in, PMIX_SERVER_SHARE_TOPOLOGY)) {
            share = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_TOPOLOGY2)) {
            const pmix_topology_t *t = in->value.data.topo;
            if (in->value.type != PMIX_TOPO || t == NULL || t->topology == NULL) {
                return PMIX_ERR_BAD_PARAM;
            }
            if (!px_hw_is_source(t->source)) {
                return PMIX_ERR_NOT_SUPPORTED;
            }
            given = t->topology;
        } else if (PMIX_CHECK_KEY(in, PMIX_TOPOLOGY)) {
            /* the older form: a bare hwloc_topology_t */
            if (in->value.type != PMIX_POINTER || in->value.data.ptr == NULL) {
                return PMIX_ERR_BAD_PARAM;
            }
            given = in->value.data.ptr;
        }
        if (given != NULL) {
            /* our own copy: the host's stays the host's, whatever it does with it */
            hwloc_topology_t mine;
            if (hwloc_topology_dup(&mine, given) != 0) {
                return PMIX_ERR_NOMEM;
            }
            px_hw_local_set(mine);
            px_debug(2, "server", "topology given by the host");
        }
    }
    return PMIX_SUCCESS;
}

void px_srv_topo_fini(void)
{
    free(xml_cache);
    xml_cache = NULL;
    px_hw_local_fini();
}

void px_srv_topology_req(px_srv_client_t *c, uint32_t seq)
{
    pmix_status_t rc = PMIX_ERR_NOT_AVAILABLE;
    pmix_data_buffer_t body;
    px_bfrops_buf_init(&body);
    hwloc_topology_t local;
    if (share && xml_cache == NULL && px_topo_local(&local) == PMIX_SUCCESS) {
        pmix_topology_t t = {.source = PX_HW_SOURCE, .topology = local};
        (void)px_hw_topology_text(&t, &xml_cache);
    }
    if (share && xml_cache != NULL) {
        rc = px_bfrops_pack(&body, &xml_cache, 1, PMIX_STRING);
    }
    px_srv_reply(c, seq, PX_TAG_TOPOLOGY, rc, rc == PMIX_SUCCESS ? &body : NULL);
    px_bfrops_buf_free(&body);
}

/* The local topology (loaded on first use), NULL when there is none. */
static hwloc_topology_t local_topo(void)
{
    hwloc_topology_t t;
    return px_topo_local(&t) == PMIX_SUCCESS ? t : NULL;
}

/* The cpus of a local rank: its PMIX_CPUSET, else (not bound) the whole node's. Owned
 * bitmap or NULL (a cpuset string we cannot read, or no memory). */
static hwloc_bitmap_t rank_cpus(hwloc_topology_t topo, const px_ns_rank_t *pr)
{
    const pmix_value_t *v = px_kvset_get(&pr->info, PMIX_CPUSET);
    if (v == NULL) {
        return hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(topo));
    }
    pmix_cpuset_t cs = {.source = NULL, .bitmap = NULL};
    if (v->type != PMIX_STRING || PMIx_Parse_cpuset_string(v->data.string, &cs) != PMIX_SUCCESS) {
        return NULL;
    }
    free(cs.source);
    return cs.bitmap;
}

/* Append ":"-separated list to *joined (malloc'd). */
static bool join(char **joined, hwloc_const_bitmap_t cpus)
{
    char *list = NULL, *next = NULL;
    bool ok = hwloc_bitmap_list_asprintf(&list, cpus) >= 0 &&
              asprintf(&next, "%s%s%s", *joined ? *joined : "", *joined ? ":" : "", list) >= 0;
    free(list);
    if (ok) {
        free(*joined);
        *joined = next;
    }
    return ok;
}

pmix_status_t px_srv_topo_ns(px_nspace_t *ns)
{
    if (ns->my_node < 0 || (size_t)ns->my_node >= ns->nnodes) {
        return PMIX_SUCCESS; /* none of its processes runs here */
    }
    px_ns_node_t *node = &ns->nodes[ns->my_node];
    if (node->nranks == 0) {
        return PMIX_SUCCESS;
    }
    hwloc_topology_t topo = local_topo();
    if (topo == NULL) {
        px_debug(1, "server", "no topology: no locality strings for %s", ns->name);
        return PMIX_SUCCESS;
    }
    pmix_status_t rc = PMIX_SUCCESS;
    char *cpusets = NULL; /* PMIX_LOCAL_CPUSETS, in PMIX_LOCAL_PEERS order */
    bool all = true;
    for (size_t k = 0; k < node->nranks && rc == PMIX_SUCCESS; k++) {
        px_ns_rank_t *pr = px_ns_rank(ns, node->ranks[k]);
        hwloc_bitmap_t cpus = pr != NULL ? rank_cpus(topo, pr) : NULL;
        if (cpus == NULL) {
            px_debug(1, "server", "%s rank %u: unreadable PMIX_CPUSET, no locality", ns->name,
                     node->ranks[k]);
            all = false;
            continue;
        }
        char *loc = NULL;
        if (px_kvset_get(&pr->info, PMIX_LOCALITY_STRING) == NULL &&
            (rc = px_topo_locality_string(topo, cpus, &loc)) == PMIX_SUCCESS) {
            rc = px_kvset_put_str(&pr->info, PMIX_LOCALITY_STRING, loc, true);
        }
        if (rc == PMIX_SUCCESS && all && !join(&cpusets, cpus)) {
            rc = PMIX_ERR_NOMEM;
        }
        free(loc);
        hwloc_bitmap_free(cpus);
    }
    if (rc == PMIX_SUCCESS && all && cpusets != NULL) {
        rc = px_kvset_put_str(&node->info, PMIX_LOCAL_CPUSETS, cpusets, true);
    }
    free(cpusets);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_server_generate_cpuset_string(const pmix_cpuset_t *cpuset,
                                                             char **cpuset_string)
{
    if (cpuset == NULL || cpuset_string == NULL || cpuset->bitmap == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    char *list = NULL;
    pmix_status_t rc = px_hw_cpuset_text(cpuset, &list);
    if (rc == PMIX_SUCCESS && asprintf(cpuset_string, "%s:%s", cpuset->source, list) < 0) {
        rc = PMIX_ERR_NOMEM;
    }
    free(list);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_server_generate_cpuset(const char *cpuset_string,
                                                      pmix_cpuset_t *cpuset)
{
    return PMIx_Parse_cpuset_string(cpuset_string, cpuset);
}

PMIX_EXPORT pmix_status_t PMIx_server_generate_locality_string(const pmix_cpuset_t *cpuset,
                                                               char **locality)
{
    if (cpuset == NULL || locality == NULL || cpuset->bitmap == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!px_hw_is_source(cpuset->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    hwloc_topology_t topo = local_topo();
    if (topo == NULL) {
        return PMIX_ERR_NOT_AVAILABLE;
    }
    return px_topo_locality_string(topo, cpuset->bitmap, locality);
}
