/* net: a peer = one connected stream socket carrying framed messages (px_msg.h): a
 * non-blocking read state machine, a send queue, and request/reply matching.
 * Every function here and every callback runs on the engine's loop thread.
 */
#ifndef PX_PEER_H
#define PX_PEER_H

#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

#include "net/px_progress.h"

typedef struct px_peer px_peer_t;

/* A message that is not a reply. payload is borrowed for the call (unpack from it, or
 * take its bytes with px_bfrops_buf_take). seq is non-zero for a request: answer with
 * px_peer_send_reply(peer, seq, ...). */
typedef void (*px_peer_recv_fn)(px_peer_t *peer, uint32_t tag, uint32_t seq,
                                pmix_data_buffer_t *payload, void *cbdata);
/* The connection is gone: err is 0 on orderly EOF, else an errno (EMSGSIZE oversized
 * header, EPROTO garbage header or unmatched reply, or the socket error). Called once;
 * pending requests have already been completed with an error. */
typedef void (*px_peer_lost_fn)(px_peer_t *peer, int err, void *cbdata);
/* Exactly once per successful px_peer_send_request: status PMIX_SUCCESS with the reply
 * payload (borrowed for the call), or PMIX_ERR_LOST_CONNECTION with NULL. */
typedef void (*px_peer_reply_fn)(px_peer_t *peer, pmix_status_t status, pmix_data_buffer_t *reply,
                                 void *cbdata);

/* Wrap a connected socket (ownership of fd passes to the peer, also on failure). Sets
 * O_NONBLOCK, and TCP_NODELAY on TCP sockets. Callbacks get cbdata (borrowed).
 * NULL + errno on failure. */
px_peer_t *px_peer_create(px_progress_t *p, int fd, px_peer_recv_fn recv_cb,
                          px_peer_lost_fn lost_cb, void *cbdata);
/* Close the fd, complete pending requests with PMIX_ERR_LOST_CONNECTION, free. No
 * lost callback. May be called from any of the peer's callbacks. Accepts NULL. */
void px_peer_destroy(px_peer_t *peer);

/* Queue a message (payload bytes copied; buf borrowed, may be NULL for empty). seq 0.
 * With nothing queued before it, it is written at once as far as the socket takes it.
 * 0 / -1 + errno (ENOTCONN once lost, EMSGSIZE, ENOMEM). */
int px_peer_send(px_peer_t *peer, uint32_t tag, const pmix_data_buffer_t *buf);
/* As px_peer_send for bulk data without copying it: the payload is head's bytes
 * (copied), then ext_size bytes at ext (borrowed: left untouched until release(arg)),
 * then tail's bytes (copied); head/tail may be NULL. release(arg) runs exactly once on
 * success, on the loop thread: when the last byte of ext was written, or when the
 * message is dropped (connection lost, peer destroyed) — possibly before this returns.
 * On -1 it is not called. */
int px_peer_send_ext(px_peer_t *peer, uint32_t tag, const pmix_data_buffer_t *head, const void *ext,
                     size_t ext_size, const pmix_data_buffer_t *tail, void (*release)(void *arg),
                     void *arg);
/* The queued message sent with release argument arg (px_peer_send_ext) takes its ext
 * segment from ext from now on: the same bytes elsewhere (the caller moved them; the old
 * segment is no longer touched). 0, or -1 when no such message is queued (it was written
 * or dropped: its release ran). */
int px_peer_ext_move(px_peer_t *peer, const void *arg, const void *ext);
/* Drop the queued message with release argument arg if none of it was written yet:
 * release(arg) runs now. 0, or -1 (not queued, or partly written: it stays). */
int px_peer_drop_unsent(px_peer_t *peer, const void *arg);
/* As px_peer_send with a fresh sequence number; reply_cb as described above. On -1 no
 * callback will come. */
int px_peer_send_request(px_peer_t *peer, uint32_t tag, const pmix_data_buffer_t *buf,
                         px_peer_reply_fn reply_cb, void *cbdata);
/* Answer request seq. */
int px_peer_send_reply(px_peer_t *peer, uint32_t seq, uint32_t tag, const pmix_data_buffer_t *buf);

/* Write what is queued, waiting for the socket at most until deadline_ms (a
 * CLOCK_MONOTONIC time in ms): used before a server closes its connections at finalize,
 * so answers already given are not lost. 0 when the queue is empty, -1 otherwise. */
int px_peer_flush(px_peer_t *peer, double deadline_ms);
/* Bytes queued and not yet written. */
size_t px_peer_queued_bytes(const px_peer_t *peer);
/* Requests waiting for their reply. */
size_t px_peer_pending_requests(const px_peer_t *peer);
int px_peer_fd(const px_peer_t *peer);

#endif /* PX_PEER_H */
