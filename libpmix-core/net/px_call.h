/* net: a request sent on a peer of a loop and waited for on a caller's thread (never the
 * loop): a tool's requests to one of its servers (client/tool.c), a launcher's to the
 * tool that started it (server/server_uplink.c). The peer is found on the loop, when the
 * request goes out; the reply may come after the waiter gave up (the request is counted:
 * waiter + callback).
 */
#ifndef PX_CALL_H
#define PX_CALL_H

#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

#include "net/px_peer.h"
#include "net/px_progress.h"

/* On the loop: the peer to send on for key (borrowed for the call), NULL when there is
 * none. */
typedef px_peer_t *(*px_call_peer_fn)(const void *key);

/* Send tag + msg (bytes copied; NULL: empty) on peer(key) (key: keysize bytes, copied),
 * wait at most ms. The reply's status, or PMIX_ERR_UNREACH (no peer, or it refused the
 * message), PMIX_ERR_LOST_CONNECTION (gone before it answered), PMIX_ERR_TIMEOUT,
 * PMIX_ERR_NOMEM, PMIX_ERR_OUT_OF_RESOURCE (the loop refused the work). reply (may be
 * NULL) is initialised here and gets the reply's bytes after its status. */
pmix_status_t px_call_wait(px_progress_t *prog, px_call_peer_fn peer, const void *key,
                           size_t keysize, uint32_t tag, const pmix_data_buffer_t *msg, int ms,
                           pmix_data_buffer_t *reply);

#endif /* PX_CALL_H */
