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
        t = px_hw_local_set(t, true);
    }
    if (t == NULL && (t = px_hw_discover()) != NULL) {
        t = px_hw_local_set(t, true);
    }
    if (t == NULL) {
        return PMIX_ERR_NOT_AVAILABLE;
    }
    if (topo->source == NULL && (topo->source = strdup(PX_HW_SOURCE)) == NULL) {
        return PMIX_ERR_NOMEM;
    }
    topo->topology = t; /* the library's, read-only: destruct leaves it (px_hwtypes.h) */
    return PMIX_SUCCESS;
}
