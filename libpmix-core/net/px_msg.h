/* net: message framing. A message is a fixed 16-byte header followed by the payload,
 * the bytes of a pmix_data_buffer_t (bfrops encoding). The reader below turns a byte
 * stream cut anywhere into whole messages; it is pure (no I/O, no threads).
 */
#ifndef PX_MSG_H
#define PX_MSG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pmix_common.h>

/* Header: four u32 in network byte order: payload length, tag, sequence, flags. */
#define PX_MSG_HDR_SIZE 16
/* A peer announcing a longer payload is dropped. */
#define PX_MSG_MAX_PAYLOAD (64u * 1024u * 1024u)
/* flags: this message answers the request whose sequence it carries. */
#define PX_MSG_FLAG_REPLY  0x1u
#define PX_MSG_FLAGS_KNOWN (PX_MSG_FLAG_REPLY)

typedef struct px_msg_hdr {
    uint32_t len;
    uint32_t tag;
    uint32_t seq;
    uint32_t flags;
} px_msg_hdr_t;

void px_msg_hdr_encode(const px_msg_hdr_t *h, uint8_t out[PX_MSG_HDR_SIZE]);
/* 0, or -1 with errno EMSGSIZE (len > PX_MSG_MAX_PAYLOAD) / EPROTO (unknown flags). */
int px_msg_hdr_decode(const uint8_t in[PX_MSG_HDR_SIZE], px_msg_hdr_t *h);

/* A received message; payload owned (unpack from it, or px_bfrops_buf_take it). */
typedef struct px_msg {
    px_msg_hdr_t hdr;
    pmix_data_buffer_t payload;
} px_msg_t;

void px_msg_free(px_msg_t *m); /* accepts NULL */

/* Incremental decoder; zero-initialise (or px_msg_reader_reset) before use. */
typedef struct px_msg_reader {
    uint8_t hdr_bytes[PX_MSG_HDR_SIZE];
    size_t hdr_have;
    px_msg_t *msg; /* owned: the message being filled, once its header is known */
    size_t body_have;
} px_msg_reader_t;

/* Consume bytes up to the end of at most one message. Returns the number consumed
 * and sets *out to a completed message (caller owns) or NULL when more bytes are
 * needed; -1 with errno EMSGSIZE/EPROTO (bad header) or ENOMEM. */
ssize_t px_msg_reader_feed(px_msg_reader_t *r, const uint8_t *data, size_t len, px_msg_t **out);
/* Direct filling of a large body (no copy through a staging chunk): room returns where
 * the unread rest of the current message's body goes and its length (*len), or NULL
 * when no body is pending (then feed). After writing n (<= *len) bytes there, filled
 * accounts for them and sets *out like feed. */
uint8_t *px_msg_reader_room(px_msg_reader_t *r, size_t *len);
void px_msg_reader_filled(px_msg_reader_t *r, size_t n, px_msg_t **out);
/* Drop a partial message. */
void px_msg_reader_reset(px_msg_reader_t *r);

#endif /* PX_MSG_H */
