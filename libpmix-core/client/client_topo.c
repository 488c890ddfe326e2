/* client: PMIx_Load_topology - the library's one local topology: the one already there
 * (a server's host gave it at PMIx_server_init, or an earlier load), else the server's
 * (PX_TAG_TOPOLOGY: hwloc XML, so clients do not each rediscover the node), else
 * discovered here. Any thread but the client loop (the fetch waits for the reply). */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "client/px_client.h"
#include "common/px_proto.h"
#include "common/px_common.h"
#include "types/px_hwtypes.h"

/* The server's topology, or NULL (not connected, the server has none to give, or its
 * XML does not load). */
static hwloc_topology_t fetch_from_server(void)
{
    if (!px_cl_initialized()) {
        return NULL;
    }
    pmix_data_buffer_t reply;
    px_bfrops_buf_init(&reply);
    char *xml = NULL;
    int32_t one = 1;
    hwloc_topology_t t = NULL;
    pmix_status_t rc = px_cl_request_wait(PX_TAG_TOPOLOGY, NULL, 0, &reply);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack(&reply, &xml, &one, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS && xml != NULL) {
        /* the server runs on this node: binding queries on it are ours */
        t = px_hw_from_xml(xml, true);
    }
    px_debug(2, "client", "topology from the server: %s", t != NULL ? "loaded" : "none");
    free(xml);
    px_bfrops_buf_free(&reply);
    return t;
}

PMIX_EXPORT pmix_status_t PMIx_Load_topology(pmix_topology_t *topo)
{
    if (topo == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (topo->source != NULL && !px_hw_is_source(topo->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    hwloc_topology_t t = px_hw_local_topology();
    if (t == NULL && (t = fetch_from_server()) != NULL) {
        t = px_hw_local_set(t);
    }
    if (t == NULL && (t = px_hw_discover()) != NULL) {
        t = px_hw_local_set(t);
    }
    if (t == NULL) {
        return PMIX_ERR_NOT_AVAILABLE;
    }
    if (topo->source == NULL && (topo->source = strdup(PX_HW_SOURCE)) == NULL) {
        return PMIX_ERR_NOMEM;
    }
    /* the library's, read-only: destruct leaves it, also after finalize (px_hwtypes.h) */
    topo->topology = px_hw_local_lend();
    if (topo->topology == NULL) { /* finalized meanwhile by another thread */
        return PMIX_ERR_NOT_AVAILABLE;
    }
    return PMIX_SUCCESS;
}

/* PMIx_Compute_distances_nb: computed in the call, answered later on the client's loop
 * (never inside the call). Partial: only a connected client or tool has that loop; a
 * process that is neither gets PMIX_ERR_INIT. */
typedef struct {
    pmix_status_t status;
    pmix_device_distance_t *dist; /* owned until release */
    size_t n;
    pmix_device_dist_cbfunc_t cb;
    void *cbdata;
} dist_req_t;

static void dist_release(void *arg)
{
    dist_req_t *r = arg;
    PMIx_Device_distance_free(r->dist, r->n);
    free(r);
}

static void dist_answer(void *arg)
{
    dist_req_t *r = arg;
    r->cb(r->status, r->dist, r->n, r->cbdata, dist_release, r);
}

PMIX_EXPORT pmix_status_t PMIx_Compute_distances_nb(pmix_topology_t *topo, pmix_cpuset_t *cpuset,
                                                    pmix_info_t info[], size_t ninfo,
                                                    pmix_device_dist_cbfunc_t cbfunc, void *cbdata)
{
    if (cbfunc == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    dist_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        return PMIX_ERR_NOMEM;
    }
    r->status = PMIx_Compute_distances(topo, cpuset, info, ninfo, &r->dist, &r->n);
    if (r->status == PMIX_ERR_BAD_PARAM || r->status == PMIX_ERR_NOT_SUPPORTED) {
        pmix_status_t refused = r->status; /* refused at once, without a callback */
        free(r);
        return refused;
    }
    r->cb = cbfunc;
    r->cbdata = cbdata;
    pmix_status_t rc = px_cl_later(dist_answer, r);
    if (rc != PMIX_SUCCESS) {
        PMIx_Device_distance_free(r->dist, r->n);
        free(r);
    }
    return rc;
}
