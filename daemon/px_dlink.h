/* daemon: a daemon's end of its connection to the controller — the framed messages in,
 * decoded (px_dp_ctl_decode); the job messages handed to this node's agent (px_nagent),
 * whose reports and output go back up the same connection; the rest handed to the
 * daemon's own code. prted runs one over TCP; prte runs one over a socket pair for its
 * own node (daemon 0), so both see the same messages the same way. Loop thread only.
 */
#ifndef PX_DLINK_H
#define PX_DLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/px_dproto.h"
#include "daemon/px_nagent.h"
#include "net/px_peer.h"
#include "net/px_progress.h"

typedef struct px_dlink px_dlink_t;

typedef struct {
    /* A well-formed controller message the agent does not take (TOPO_ASK, EXIT,
     * FENCE_REL, DMODEX_REQ); m is borrowed for the call, seq != 0 for a request.
     * Return PMIX_ERR_NOT_SUPPORTED when the daemon does not take it either. */
    pmix_status_t (*other)(const px_dp_ctl_msg_t *m, uint32_t seq, void *arg);
    /* The link is unusable: the connection ended (err: 0 at EOF, else an errno), or
     * the controller sent something malformed or not taken (tag and rc say what). The
     * daemon stops; the link sends nothing more. */
    void (*failed)(int err, uint32_t tag, pmix_status_t rc, void *arg);
    /* Optional (prted --debug): every message in (in: true, before it is handled) and
     * every message the agent sends out, by tag, with its payload's size. */
    void (*trace)(bool in, uint32_t tag, size_t bytes, void *arg);
    /* Optional: an XCAST arrived (its inner tag and payload, borrowed for the call):
     * relay it down the tree; then the inner message is handled here. */
    void (*xcast)(uint32_t tag, const pmix_byte_object_t *payload, void *arg);
    /* Optional: whether messages from the controller may come another way than this
     * connection (the tree): a job message (SIGNAL, STDIN, IOF_FLOW, DMODEX_REQ) about a
     * job whose LAUNCH has not come yet (px_nagent_launch_due) then waits for it. */
    bool (*indirect)(void *arg);
    void *arg;
} px_dlink_cbs_t;

/* The link over fd (ownership passes, also on failure) with a node agent made from ao
 * (the PMIx server must be up). NULL + errno on failure. */
px_dlink_t *px_dlink_create(px_progress_t *prog, int fd, const px_nagent_opts_t *ao,
                            const px_dlink_cbs_t *cbs);
/* Before px_dlink_destroy, with the loop stopped: write what is queued on the connection
 * (until deadline_ms, CLOCK_MONOTONIC ms), then kill and reap the agent's processes and
 * remove its jobs' directories while the connection stays open, so a controller that
 * ends the daemon once its connection closes finds that done. Without the flush nothing
 * is done here (px_dlink_destroy does it). NULL ok. */
void px_dlink_stop_agent(px_dlink_t *l, double deadline_ms);
/* The agent's processes are killed and reaped, the connection closed. NULL ok. */
void px_dlink_destroy(px_dlink_t *l);
/* A controller message that came another way (the tree: from the parent daemon), handled
 * as if it had come on the connection. PMIX_SUCCESS, or the error that makes the link
 * unusable (the caller stops the daemon). */
pmix_status_t px_dlink_deliver(px_dlink_t *l, uint32_t tag, pmix_data_buffer_t *payload);
/* The connection (send requests, replies, messages of the daemon's own). */
px_peer_t *px_dlink_peer(px_dlink_t *l);
px_nagent_t *px_dlink_agent(px_dlink_t *l);

#endif /* PX_DLINK_H */
