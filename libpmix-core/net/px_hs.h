/* net: the connection handshake, one module for every listener (the Unix socket, TCP
 * for tools, the daemon protocol to come). The listener side accepts and reads the
 * connector's hello on the loop thread (non-blocking, bounded in size and time); the
 * connector side blocks its caller, bounded by a deadline, never on a loop thread.
 */
#ifndef PX_HS_H
#define PX_HS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <pmix_common.h>

#include "net/px_progress.h"

/* Wire: the connector sends u8 version, 3 zero bytes, u32 length (network order), then
 * that many payload bytes (at most PX_HS_HELLO_MAX). A listener with a prefix (TCP: its
 * secret) wants the payload to start with exactly those bytes: it reads the header and
 * the prefix first and refuses before reading the rest. The listener answers u8
 * PX_HS_VERSION, 3 zero bytes, i32 status (PMIX_SUCCESS = accepted) and closes on a
 * refusal. Refusals: a wrong version PMIX_ERR_NOT_SUPPORTED (the payload is not read);
 * a length that cannot hold the prefix, or a wrong prefix (compared in constant time),
 * PMIX_ERR_NO_PERMISSIONS; a length over the bound PMIX_ERR_BAD_PARAM; else the
 * accept callback's status. A connection that has not finished in time is closed
 * without an answer. */
#define PX_HS_VERSION    1
#define PX_HS_HELLO_MAX  (64u * 1024u)
#define PX_HS_PREFIX_MAX 64
/* Default time limit for a connection's handshake. */
#define PX_HS_TIMEOUT_MS 10000

typedef struct px_hs_listener px_hs_listener_t;

/* A connector passed the checks. fd is in blocking mode; hello (the payload after the
 * prefix) is borrowed for the call. Return PMIX_SUCCESS to take the fd (then it is the
 * callee's), or an error status, which is the answer; the fd is then closed. Runs on
 * the loop thread; it must not destroy the listener. */
typedef pmix_status_t (*px_hs_accept_fn)(int fd, pmix_data_buffer_t *hello, void *cbdata);

/* Accept on lfd (bound, listening, non-blocking), which the listener owns from then on.
 * prefix (prefix_len bytes, at most PX_HS_PREFIX_MAX; NULL with 0 for none) is copied.
 * Loop thread. NULL + errno on failure (lfd is then still the caller's). */
px_hs_listener_t *px_hs_listen(px_progress_t *p, int lfd, const void *prefix, size_t prefix_len,
                               px_hs_accept_fn cb, void *cbdata);
/* Time limit for connections accepted from now on (default PX_HS_TIMEOUT_MS). */
void px_hs_set_timeout(px_hs_listener_t *l, int ms);
/* Connections still in handshake. */
size_t px_hs_pending(const px_hs_listener_t *l);
/* Stop accepting, close lfd, drop connections in handshake. Loop thread. Accepts NULL. */
void px_hs_listener_destroy(px_hs_listener_t *l);

/* Connector side. A deadline timeout_ms from now (CLOCK_MONOTONIC). */
void px_hs_deadline(struct timespec *deadline, int timeout_ms);
/* Wait until fd has events (POLLIN, POLLOUT) or the deadline passes: 0 / -1 + errno
 * (ETIMEDOUT). */
int px_hs_wait(int fd, short events, const struct timespec *deadline);
/* Run the handshake on a connected fd: send the header with version, the prefix and
 * hello (may be NULL), read the answer. 0 with *status PMIX_SUCCESS and fd in blocking
 * mode; or -1 + errno: EMSGSIZE (prefix + hello over the bound), ECONNREFUSED (*status
 * the listener's refusal, read even when the listener closed before taking all we
 * sent), EPROTO (no answer, or one that is not a handshake answer), ETIMEDOUT. The fd
 * stays the caller's either way. */
int px_hs_connect(int fd, uint8_t version, const void *prefix, size_t prefix_len,
                  const pmix_data_buffer_t *hello, const struct timespec *deadline,
                  pmix_status_t *status);

#endif /* PX_HS_H */
