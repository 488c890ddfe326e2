/* net: Unix-domain sockets. A listener (bind, accept on the loop thread, SO_PEERCRED,
 * handshake) and a blocking connect helper for the connecting side (any thread but a
 * loop thread). Listener functions and the accept callback run on the loop thread.
 */
#ifndef PX_USOCK_H
#define PX_USOCK_H

#include <stdint.h>
#include <sys/types.h>

#include <pmix_common.h>

#include "net/px_hs.h"
#include "net/px_progress.h"

/* Handshake: px_hs's (net/px_hs.h) without a prefix; the listener adds the connector's
 * SO_PEERCRED, and answers PMIX_ERR_INVALID_CRED when it cannot read them. */

typedef struct px_usock_cred {
    uid_t uid;
    gid_t gid;
    pid_t pid;
} px_usock_cred_t;

typedef struct px_usock_listener px_usock_listener_t;

/* A connector passed the version check. hello is borrowed for the call. Return
 * PMIX_SUCCESS to take the fd (it is then the callee's, e.g. for px_peer_create), or
 * an error status, which is sent back and the fd is closed. */
typedef pmix_status_t (*px_usock_accept_fn)(px_usock_listener_t *l, int fd,
                                            const px_usock_cred_t *cred, pmix_data_buffer_t *hello,
                                            void *cbdata);

/* Listen on path. A missing parent directory is created with mode 0700; the socket
 * is made 0600; a stale socket (nobody listening) is replaced, a live one is EADDRINUSE.
 * NULL + errno on failure (ENAMETOOLONG for a path that does not fit sun_path). */
px_usock_listener_t *px_usock_listen(px_progress_t *p, const char *path, px_usock_accept_fn cb,
                                     void *cbdata);
/* Stop listening, drop connections still in handshake, unlink the socket (and the
 * directory if we created it and it is empty). Accepts NULL. */
void px_usock_listener_destroy(px_usock_listener_t *l);

/* SO_PEERCRED of a connected Unix socket. 0 / -1 + errno. */
int px_usock_peercred(int fd, px_usock_cred_t *cred);

/* Connect to path and run the handshake with PX_HS_VERSION (or version), waiting at
 * most timeout_ms in total. Returns the connected fd (blocking mode) with *status
 * PMIX_SUCCESS; or -1 with errno (px_hs_connect's: ECONNREFUSED when the listener
 * refused, *status then holds its answer; ETIMEDOUT; EPROTO for a malformed answer;
 * EMSGSIZE; or connect's). hello may be NULL. */
int px_usock_connect(const char *path, const pmix_data_buffer_t *hello, int timeout_ms,
                     pmix_status_t *status);
int px_usock_connect_version(const char *path, uint8_t version, const pmix_data_buffer_t *hello,
                             int timeout_ms, pmix_status_t *status);

#endif /* PX_USOCK_H */
