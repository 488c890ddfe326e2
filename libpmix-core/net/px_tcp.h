/* net: TCP (IPv4) listener and connector for tool connections. The listener accepts and
 * runs the handshake on the loop thread (non-blocking, bounded in size and time); the
 * connect helper blocks its caller (bounded by a timeout), never call it on a loop.
 */
#ifndef PX_TCP_H
#define PX_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

#include "net/px_hs.h"
#include "net/px_progress.h"

/* Handshake: px_hs's (net/px_hs.h) with the listener's secret, PX_TCP_SECRET_HEX
 * lower-case hex characters, as its prefix: the payload starts with the secret, then
 * the hello proper. The listener reads the header and the secret first and answers
 * PMIX_ERR_NO_PERMISSIONS (then closes) when the length cannot hold a secret or the
 * secret differs (compared in constant time) — the hello is never read then. A
 * connection that has not completed its handshake in PX_HS_TIMEOUT_MS is dropped. */
#define PX_TCP_SECRET_BYTES 16
#define PX_TCP_SECRET_HEX   (2 * PX_TCP_SECRET_BYTES)

typedef struct px_tcp_listener px_tcp_listener_t;

/* A connector presented the right secret. hello (after the secret) is borrowed for the
 * call. Return PMIX_SUCCESS to take the fd (blocking mode; then the callee's), or an
 * error status which is sent back before the fd is closed. */
typedef pmix_status_t (*px_tcp_accept_fn)(px_tcp_listener_t *l, int fd, pmix_data_buffer_t *hello,
                                          void *cbdata);

/* A fresh secret: PX_TCP_SECRET_BYTES from getrandom as hex, into out (at least
 * PX_TCP_SECRET_HEX + 1 bytes). 0 / -1 + errno. */
int px_tcp_secret_new(char *out);

/* Listen on an ephemeral IPv4 port: 127.0.0.1 unless remote, then every interface.
 * secret (PX_TCP_SECRET_HEX characters) is copied. On the loop thread. NULL + errno. */
px_tcp_listener_t *px_tcp_listen(px_progress_t *p, bool remote, const char *secret,
                                 px_tcp_accept_fn cb, void *cbdata);
/* The address to put in a URI (dotted quad: 127.0.0.1, or a non-loopback address of
 * this host for a remote listener) and the port. */
const char *px_tcp_listener_addr(const px_tcp_listener_t *l);
uint16_t px_tcp_listener_port(const px_tcp_listener_t *l);
/* Handshake time limit for later connections (default PX_HS_TIMEOUT_MS). */
void px_tcp_listener_set_hs_timeout(px_tcp_listener_t *l, int ms);
/* Connections still in handshake. */
size_t px_tcp_listener_pending(const px_tcp_listener_t *l);
/* Stop listening and drop connections still in handshake. Loop thread. Accepts NULL. */
void px_tcp_listener_destroy(px_tcp_listener_t *l);

/* Connect to addr:port (dotted IPv4), send secret + hello, wait for the answer, all
 * within timeout_ms. The fd (blocking mode, TCP_NODELAY) with *status PMIX_SUCCESS, or
 * -1 + errno (ECONNREFUSED with *status the listener's refusal, ETIMEDOUT, EINVAL for a
 * bad address or secret, EPROTO for a malformed answer). secret may be NULL (sent as
 * nothing: for tests of the refusal); hello may be NULL. */
int px_tcp_connect(const char *addr, uint16_t port, const char *secret,
                   const pmix_data_buffer_t *hello, int timeout_ms, pmix_status_t *status);

#endif /* PX_TCP_H */
