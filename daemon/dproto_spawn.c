/* daemon: encode/decode of the tree-spawn messages (docs/PROTOCOL.md "SPAWN /
 * CHILD_END"): the controller tells a daemon which children of the tree it starts, the
 * daemon tells how each child's agent or ssh session ended. Pure code on bfrops; any
 * thread. Input is untrusted: the count is checked before anything is allocated.
 */
#include <stdlib.h>
#include <string.h>

#include "bfrops/px_bfrops.h"
#include "daemon/dproto_int.h"
#include "daemon/px_dproto.h"

pmix_status_t px_dp_spawn_pack(pmix_data_buffer_t *buf, const px_dp_spawn_t *sp)
{
    pmix_status_t rc = px_dpi_pack_str(buf, sp->agent);
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_pack_u32(buf, (uint32_t)sp->n);
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < sp->n; i++) {
        rc = px_dpi_pack_u32(buf, sp->children[i].id);
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_pack_str(buf, sp->children[i].host);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_pack_str(buf, sp->children[i].cmd);
        }
    }
    return rc;
}

void px_dp_spawn_free(px_dp_spawn_t *sp)
{
    if (sp == NULL) {
        return;
    }
    for (size_t i = 0; sp->children != NULL && i < sp->n; i++) {
        free(sp->children[i].host);
        free(sp->children[i].cmd);
    }
    free(sp->children);
    free(sp->agent);
    memset(sp, 0, sizeof(*sp));
}

pmix_status_t px_dp_spawn_unpack(pmix_data_buffer_t *buf, px_dp_spawn_t *sp)
{
    memset(sp, 0, sizeof(*sp));
    size_t n = 0;
    pmix_status_t rc = px_dpi_unpack_str_opt(buf, &sp->agent);
    if (rc == PMIX_SUCCESS && sp->agent != NULL && sp->agent[0] == '\0') {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    if (rc == PMIX_SUCCESS) {
        /* each child is at least an id and two whole string items */
        rc = px_bfrops_unpack_count(buf, PMIX_UINT32,
                                    px_bfrops_wire_item(PMIX_UINT32, 1) +
                                        2 * px_bfrops_wire_item(PMIX_STRING, 1),
                                    PX_DP_NODES_MAX, &n);
    }
    if (rc == PMIX_SUCCESS && n == 0) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    if (rc == PMIX_SUCCESS && (sp->children = calloc(n, sizeof(*sp->children))) == NULL) {
        rc = PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        px_dp_child_t *c = &sp->children[i];
        sp->n = i + 1;
        rc = px_dpi_unpack_u32(buf, &c->id);
        if (rc == PMIX_SUCCESS && c->id == 0) {
            rc = PMIX_ERR_UNPACK_FAILURE; /* daemon 0 is the controller's own node */
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_unpack_str(buf, PX_DP_NAME_MAX, &c->host);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_dpi_unpack_str(buf, PX_DP_CMD_MAX, &c->cmd);
        }
    }
    if (rc != PMIX_SUCCESS) {
        px_dp_spawn_free(sp);
    }
    return rc;
}

pmix_status_t px_dp_child_end_pack(pmix_data_buffer_t *buf, uint32_t id, int32_t status,
                                   const char *why)
{
    pmix_status_t rc = px_dpi_pack_u32(buf, id);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(buf, &status, 1, PMIX_INT32);
    }
    return rc == PMIX_SUCCESS ? px_dpi_pack_str(buf, why) : rc;
}

pmix_status_t px_dp_child_end_unpack(pmix_data_buffer_t *buf, uint32_t *id, int32_t *status,
                                     char **why)
{
    int32_t one = 1;
    *why = NULL;
    pmix_status_t rc = px_dpi_unpack_u32(buf, id);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack(buf, status, &one, PMIX_INT32);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_dpi_unpack_str_opt(buf, why);
    }
    if (rc == PMIX_SUCCESS && (*status < -1 || px_bfrops_buf_remaining(buf) != 0 ||
                               (*why != NULL && strlen(*why) > PX_DP_CMD_MAX))) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    if (rc != PMIX_SUCCESS) {
        free(*why);
        *why = NULL;
    }
    return rc;
}
