/* daemon: encode/decode of the routing tree's messages (docs/PROTOCOL.md: ADDR, TREE,
 * TREE_UP, XCAST, a child's hello on its parent's listener). Pure code on bfrops; any
 * thread. The address count goes through px_bfrops_unpack_count before the allocation.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "daemon/dproto_int.h"
#include "daemon/px_dproto.h"

pmix_status_t px_dp_addr_pack(pmix_data_buffer_t *buf, const char *addr)
{
    return px_dpi_pack_str(buf, addr);
}

pmix_status_t px_dp_tree_pack(pmix_data_buffer_t *buf, const px_dp_tree_t *t)
{
    pmix_status_t rc = px_dpi_pack_u32(buf, t->radix);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_u32(buf, t->n);
    }
    for (uint32_t i = 0; rc == PMIX_SUCCESS && i < t->n; i++) {
        rc = px_dpi_pack_str(buf, t->addrs[i]);
    }
    return rc;
}

void px_dp_tree_free(px_dp_tree_t *t)
{
    if (t == NULL) {
        return;
    }
    for (uint32_t i = 0; t->addrs != NULL && i < t->n; i++) {
        free(t->addrs[i]);
    }
    free(t->addrs);
    memset(t, 0, sizeof(*t));
}

static pmix_status_t tree_unpack(pmix_data_buffer_t *buf, px_dp_tree_t *t)
{
    size_t n = 0;
    pmix_status_t rc = px_dpi_unpack_u32(buf, &t->radix);
    if (rc == PMIX_SUCCESS && (t->radix == 0 || t->radix > PX_DP_RADIX_MAX)) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    if (rc == PMIX_SUCCESS) {
        /* each address is at least a whole string item (a NULL one included) */
        rc = px_bfrops_unpack_count(buf, PMIX_UINT32, px_bfrops_wire_item(PMIX_STRING, 0),
                                    PX_DP_NODES_MAX, &n);
    }
    if (rc == PMIX_SUCCESS && n == 0) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    if (rc == PMIX_SUCCESS) {
        t->addrs = calloc(n, sizeof(char *));
        rc = t->addrs != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
        t->n = t->addrs != NULL ? (uint32_t)n : 0; /* all NULL: freed whole on error */
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        rc = px_dpi_unpack_str_opt(buf, &t->addrs[i]);
        if (rc == PMIX_SUCCESS && t->addrs[i] != NULL &&
            (t->addrs[i][0] == '\0' || strlen(t->addrs[i]) > PX_DP_NAME_MAX)) {
            rc = PMIX_ERR_UNPACK_FAILURE;
        }
    }
    return rc;
}

pmix_status_t px_dp_xcast_pack(pmix_data_buffer_t *buf, uint32_t tag,
                               const pmix_data_buffer_t *inner)
{
    pmix_status_t rc = px_dpi_pack_u32(buf, tag);
    size_t len = inner != NULL ? inner->bytes_used : 0;
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_bo_head(buf, len);
    }
    if (rc == PMIX_SUCCESS && len > 0) {
        rc = px_bfrops_buf_append(buf, inner->base_ptr, len);
    }
    return rc;
}

pmix_status_t px_dp_child_hello_pack(pmix_data_buffer_t *buf, uint32_t id)
{
    pmix_status_t rc = px_dpi_pack_u32(buf, PX_DP_VERSION);
    return rc == PMIX_SUCCESS ? px_dpi_pack_u32(buf, id) : rc;
}

pmix_status_t px_dp_child_hello_unpack(pmix_data_buffer_t *buf, uint32_t *id)
{
    uint32_t v = 0;
    pmix_status_t rc = px_dpi_unpack_u32(buf, &v);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_u32(buf, id);
    }
    if (rc == PMIX_SUCCESS && v != PX_DP_VERSION) {
        rc = PMIX_ERR_NOT_SUPPORTED;
    }
    if (rc == PMIX_SUCCESS && (*id == 0 || px_bfrops_buf_remaining(buf) != 0)) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    return rc;
}

pmix_status_t px_dpi_ctl_decode_tree(uint32_t tag, pmix_data_buffer_t *payload, px_dp_ctl_msg_t *m)
{
    pmix_status_t rc;
    switch (tag) {
    case PX_DP_ADDR:
        return PMIX_SUCCESS; /* the request: no fields */
    case PX_DP_TREE:
        return tree_unpack(payload, &m->tree);
    case PX_DP_XCAST:
        rc = px_dpi_unpack_u32(payload, &m->inner);
        if (rc == PMIX_SUCCESS && (m->inner == PX_DP_XCAST || m->inner == 0)) {
            rc = PMIX_ERR_UNPACK_FAILURE; /* no envelope inside an envelope */
        }
        return rc == PMIX_SUCCESS ? px_bfrops_unpack_bo_view(payload, &m->data) : rc;
    default:
        return PMIX_ERR_NOT_SUPPORTED;
    }
}

pmix_status_t px_dpi_dmn_decode_tree(uint32_t tag, pmix_data_buffer_t *payload, px_dp_dmn_msg_t *m)
{
    switch (tag) {
    case PX_DP_ADDR:
        return px_dpi_unpack_str(payload, PX_DP_NAME_MAX, &m->addr);
    case PX_DP_TREE_UP:
        return PMIX_SUCCESS; /* no fields */
    default:
        return PMIX_ERR_NOT_SUPPORTED;
    }
}
