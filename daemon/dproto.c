/* daemon: encode/decode of the controller-daemon messages (docs/PROTOCOL.md) and the
 * routing tree's arithmetic. Pure code on bfrops; any thread.
 */
#include <stdlib.h>
#include <string.h>

#include "bfrops/px_bfrops.h"
#include "daemon/px_dproto.h"

static pmix_status_t pack_str(pmix_data_buffer_t *buf, const char *s)
{
    return px_bfrops_pack(buf, &s, 1, PMIX_STRING);
}

static pmix_status_t pack_u32(pmix_data_buffer_t *buf, uint32_t v)
{
    return px_bfrops_pack(buf, &v, 1, PMIX_UINT32);
}

/* One string item, bounded: NULL, empty or longer than max is malformed. */
static pmix_status_t unpack_str(pmix_data_buffer_t *buf, size_t max, char **out)
{
    int32_t one = 1;
    *out = NULL;
    pmix_status_t rc = px_bfrops_unpack(buf, out, &one, PMIX_STRING);
    if (rc == PMIX_ERR_UNPACK_INADEQUATE_SPACE) {
        /* an item of several strings where one belongs: the first was stored */
        free(*out);
        *out = NULL;
    } else if (rc == PMIX_SUCCESS && (*out == NULL || **out == '\0' || strlen(*out) > max)) {
        free(*out);
        *out = NULL;
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    return rc;
}

static pmix_status_t unpack_u32(pmix_data_buffer_t *buf, uint32_t *v)
{
    int32_t one = 1;
    return px_bfrops_unpack(buf, v, &one, PMIX_UINT32);
}

/* ---- hello: u32 version, u32 id, str node, u32 n + n x str aliases, str signature ---- */

pmix_status_t px_dp_hello_pack(pmix_data_buffer_t *buf, const px_dp_hello_t *h)
{
    pmix_status_t rc = pack_u32(buf, h->version);
    if (rc == PMIX_SUCCESS) {
        rc = pack_u32(buf, h->id);
    }
    if (rc == PMIX_SUCCESS) {
        rc = pack_str(buf, h->node);
    }
    if (rc == PMIX_SUCCESS) {
        rc = pack_u32(buf, (uint32_t)h->naliases);
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < h->naliases; i++) {
        rc = pack_str(buf, h->aliases[i]);
    }
    if (rc == PMIX_SUCCESS) {
        rc = pack_str(buf, h->topo_sig);
    }
    return rc;
}

void px_dp_hello_free(px_dp_hello_t *h)
{
    if (h == NULL) {
        return;
    }
    free(h->node);
    for (size_t i = 0; h->aliases != NULL && i < h->naliases; i++) {
        free(h->aliases[i]);
    }
    free(h->aliases);
    free(h->topo_sig);
    memset(h, 0, sizeof(*h));
}

pmix_status_t px_dp_hello_unpack(pmix_data_buffer_t *buf, px_dp_hello_t *h)
{
    memset(h, 0, sizeof(*h));
    size_t n = 0;
    pmix_status_t rc = unpack_u32(buf, &h->version);
    if (rc == PMIX_SUCCESS) {
        rc = unpack_u32(buf, &h->id);
    }
    if (rc == PMIX_SUCCESS) {
        rc = unpack_str(buf, PX_DP_NAME_MAX, &h->node);
    }
    if (rc == PMIX_SUCCESS) {
        /* each alias is at least a whole (non-NULL) string item */
        rc = px_bfrops_unpack_count(buf, PMIX_UINT32, px_bfrops_wire_item(PMIX_STRING, 1),
                                    PX_DP_ALIASES_MAX, &n);
    }
    if (rc == PMIX_SUCCESS) {
        h->aliases = calloc(n + 1, sizeof(char *));
        rc = h->aliases != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        rc = unpack_str(buf, PX_DP_NAME_MAX, &h->aliases[i]);
        if (rc == PMIX_SUCCESS) {
            h->naliases = i + 1;
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = unpack_str(buf, PX_DP_SIG_MAX, &h->topo_sig);
    }
    if (rc != PMIX_SUCCESS) {
        px_dp_hello_free(h);
    }
    return rc;
}

/* ---- topology: str signature, str xml ---- */

pmix_status_t px_dp_topo_pack(pmix_data_buffer_t *buf, const char *sig, const char *xml)
{
    pmix_status_t rc = pack_str(buf, sig);
    return rc == PMIX_SUCCESS ? pack_str(buf, xml) : rc;
}

pmix_status_t px_dp_topo_unpack(pmix_data_buffer_t *buf, char **sig, char **xml)
{
    *xml = NULL;
    pmix_status_t rc = unpack_str(buf, PX_DP_SIG_MAX, sig);
    if (rc == PMIX_SUCCESS) {
        /* the XML is bounded by the message size (PX_MSG_MAX_PAYLOAD) */
        rc = unpack_str(buf, SIZE_MAX, xml);
        if (rc != PMIX_SUCCESS) {
            free(*sig);
            *sig = NULL;
        }
    }
    return rc;
}

/* ---- exit: i32 reason ---- */

pmix_status_t px_dp_exit_pack(pmix_data_buffer_t *buf, int32_t reason)
{
    return px_bfrops_pack(buf, &reason, 1, PMIX_INT32);
}

pmix_status_t px_dp_exit_unpack(pmix_data_buffer_t *buf, int32_t *reason)
{
    int32_t one = 1;
    pmix_status_t rc = px_bfrops_unpack(buf, reason, &one, PMIX_INT32);
    if (rc == PMIX_SUCCESS && *reason != PX_DP_EXIT_NORMAL && *reason != PX_DP_EXIT_ABORTED) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    return rc;
}

/* ---- the daemon's decoder ---- */

pmix_status_t px_dp_ctl_decode(uint32_t tag, pmix_data_buffer_t *payload, px_dp_ctl_msg_t *m)
{
    memset(m, 0, sizeof(*m));
    m->tag = tag;
    pmix_status_t rc;
    switch (tag) {
    case PX_DP_TOPO_ASK:
        rc = PMIX_SUCCESS; /* no fields */
        break;
    case PX_DP_EXIT:
        rc = px_dp_exit_unpack(payload, &m->reason);
        break;
    default:
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (rc == PMIX_SUCCESS && px_bfrops_buf_remaining(payload) != 0) {
        rc = PMIX_ERR_UNPACK_FAILURE; /* trailing bytes: not a message we wrote */
    }
    return rc;
}

/* ---- the routing tree ---- */

uint32_t px_dp_tree_parent(uint32_t radix, uint32_t id)
{
    if (id == 0 || radix == 0) {
        return UINT32_MAX;
    }
    return (id - 1) / radix;
}

size_t px_dp_tree_children(uint32_t radix, uint32_t id, uint32_t n, uint32_t *out, size_t max)
{
    if (radix == 0) {
        return 0;
    }
    uint64_t first = (uint64_t)id * radix + 1;
    size_t count = 0;
    for (uint64_t c = first; c < first + radix && c < n; c++) {
        if (count < max) {
            out[count] = (uint32_t)c;
        }
        count++;
    }
    return count;
}
