/* net: header encoding and the incremental message reader. Pure functions on the
 * caller's data; the peer code calls them on its loop thread.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bfrops/px_bfrops.h"
#include "net/px_msg.h"

static void px_msg_put32(uint8_t *p, uint32_t v)
{
    uint32_t be = htonl(v);

    memcpy(p, &be, 4);
}

static uint32_t px_msg_get32(const uint8_t *p)
{
    uint32_t be;

    memcpy(&be, p, 4);
    return ntohl(be);
}

void px_msg_hdr_encode(const px_msg_hdr_t *h, uint8_t out[PX_MSG_HDR_SIZE])
{
    px_msg_put32(out, h->len);
    px_msg_put32(out + 4, h->tag);
    px_msg_put32(out + 8, h->seq);
    px_msg_put32(out + 12, h->flags);
}

int px_msg_hdr_decode(const uint8_t in[PX_MSG_HDR_SIZE], px_msg_hdr_t *h)
{
    h->len = px_msg_get32(in);
    h->tag = px_msg_get32(in + 4);
    h->seq = px_msg_get32(in + 8);
    h->flags = px_msg_get32(in + 12);
    if (h->len > PX_MSG_MAX_PAYLOAD) {
        errno = EMSGSIZE;
        return -1;
    }
    if ((h->flags & ~PX_MSG_FLAGS_KNOWN) != 0) {
        errno = EPROTO;
        return -1;
    }
    return 0;
}

void px_msg_free(px_msg_t *m)
{
    if (m == NULL) {
        return;
    }
    px_bfrops_buf_free(&m->payload);
    free(m);
}

uint8_t *px_msg_reader_room(px_msg_reader_t *r, size_t *len)
{
    if (r->msg == NULL || r->body_have == r->msg->hdr.len) {
        *len = 0;
        return NULL;
    }
    *len = r->msg->hdr.len - r->body_have;
    return (uint8_t *)r->msg->payload.base_ptr + r->body_have;
}

void px_msg_reader_filled(px_msg_reader_t *r, size_t n, px_msg_t **out)
{
    *out = NULL;
    r->body_have += n;
    if (r->body_have == r->msg->hdr.len) {
        *out = r->msg;
        r->msg = NULL;
        r->hdr_have = 0;
        r->body_have = 0;
    }
}

void px_msg_reader_reset(px_msg_reader_t *r)
{
    px_msg_free(r->msg);
    memset(r, 0, sizeof(*r));
}

ssize_t px_msg_reader_feed(px_msg_reader_t *r, const uint8_t *data, size_t len, px_msg_t **out)
{
    size_t used = 0;

    *out = NULL;
    if (r->msg == NULL) {
        size_t n = PX_MSG_HDR_SIZE - r->hdr_have;
        px_msg_hdr_t hdr;
        char *body = NULL;

        if (n > len) {
            n = len;
        }
        memcpy(r->hdr_bytes + r->hdr_have, data, n);
        r->hdr_have += n;
        used = n;
        if (r->hdr_have < PX_MSG_HDR_SIZE) {
            return (ssize_t)used;
        }
        if (px_msg_hdr_decode(r->hdr_bytes, &hdr) != 0) {
            return -1;
        }
        r->msg = calloc(1, sizeof(*r->msg));
        if (r->msg == NULL) {
            return -1;
        }
        /* 64-byte aligned: bulk payloads are filled by recv and copied out, and large
         * kernel or memcpy copies to a cache-line-misaligned address are much slower. */
        if (hdr.len > 0 && posix_memalign((void **)&body, 64, hdr.len) != 0) {
            free(r->msg);
            r->msg = NULL;
            errno = ENOMEM;
            return -1;
        }
        r->msg->hdr = hdr;
        px_bfrops_buf_init(&r->msg->payload);
        px_bfrops_buf_adopt(&r->msg->payload, body, hdr.len);
        r->body_have = 0;
    }
    {
        px_msg_t *m = r->msg;
        size_t n = m->hdr.len - r->body_have;

        if (n > len - used) {
            n = len - used;
        }
        /* adopt set base_ptr to the region; fill it in place. */
        if (n > 0) {
            memcpy(m->payload.base_ptr + r->body_have, data + used, n);
        }
        r->body_have += n;
        used += n;
        if (r->body_have == m->hdr.len) {
            *out = m;
            r->msg = NULL;
            r->hdr_have = 0;
            r->body_have = 0;
        }
    }
    return (ssize_t)used;
}
