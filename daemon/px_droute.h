/* daemon: a prted's place in the routing tree (docs/PROTOCOL.md, "The routing tree"). It
 * listens for its children (their hello: the DVM's secret and their id), tells the
 * controller where when asked (ADDR), and once the controller sends the tree (TREE) connects to its
 * parent daemon (daemons whose parent is daemon 0 use their controller connection) and
 * says TREE_UP when its children are connected. Messages for every daemon come down as
 * XCAST and are relayed to the children before this daemon acts on them; fence
 * contributions go up: a daemon sends one FENCE_UP for its subtree once its own
 * participants and every child subtree hosting participants are in, and relays the
 * release to those children. A lost parent connection is the loss of the controller:
 * the daemon stops, so its subtree is lost with it. Daemon's loop only (the connect to
 * the parent runs on a helper thread and is shifted back).
 */
#ifndef PX_DROUTE_H
#define PX_DROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include <pmix_common.h>

#include "daemon/px_dlink.h"
#include "daemon/px_dproto.h"
#include "net/px_progress.h"

typedef struct px_droute px_droute_t;

typedef struct {
    px_progress_t *prog; /* borrowed: the daemon's loop */
    uint32_t self;       /* this daemon's id */
    const char *secret;  /* the DVM's secret (copied): what a child presents */
    px_dlink_t *link;    /* borrowed: the controller connection */
    /* A message that came from the parent daemon for this daemon (an XCAST's inner
     * message, a FENCE_REL): handled as if the controller had sent it (payload borrowed).
     * PMIX_SUCCESS, else the daemon stops. */
    pmix_status_t (*deliver)(uint32_t tag, pmix_data_buffer_t *payload, void *arg);
    /* Mark in mark[0..n) the daemons hosting any of procs; false when one is unknown. */
    bool (*where)(const pmix_proc_t *procs, size_t nprocs, bool *mark, size_t n, void *arg);
    /* The parent's connection is gone, or the tree could not be joined (why): the
     * daemon stops. */
    void (*lost)(const char *why, void *arg);
    void *arg;
} px_droute_opts_t;

/* Listen for children. NULL + errno. */
px_droute_t *px_droute_create(const px_droute_opts_t *o);
/* The listener's "a.b.c.d:port": the answer to the controller's ADDR request. */
const char *px_droute_addr(const px_droute_t *r);
/* Close every tree connection (children, parent), stop listening; the connect thread is
 * joined. NULL ok. */
void px_droute_destroy(px_droute_t *r);
/* The controller's TREE: the parent and children of this daemon. PMIX_SUCCESS, or
 * PMIX_ERR_BAD_PARAM for a tree this daemon has no place in (the daemon stops). */
pmix_status_t px_droute_tree(px_droute_t *r, const px_dp_tree_t *t);
/* Whether messages from the controller may come another way than its connection (the
 * parent is another daemon): job messages may then overtake the job's LAUNCH. */
bool px_droute_indirect(const px_droute_t *r);
/* Relay an XCAST (its inner tag and payload) to the children. */
void px_droute_xcast(px_droute_t *r, uint32_t tag, const pmix_byte_object_t *payload);
/* This daemon's own fence contribution (its server's fence_nb: the local participants
 * are in): aggregated with the children's, sent up when the subtree is complete.
 * PMIX_SUCCESS, or an error (nothing recorded). */
pmix_status_t px_droute_fence(px_droute_t *r, const pmix_proc_t *procs, size_t n, bool collect,
                              const void *data, size_t len);
/* A FENCE_REL from above: relayed to the children that contributed to that fence. */
void px_droute_fence_rel(px_droute_t *r, const px_dp_ctl_msg_t *m);
/* Whether the tree is in use for fences (a TREE came): px_droute_fence, else FENCE_UP
 * straight to the controller. */
bool px_droute_active(const px_droute_t *r);

#endif /* PX_DROUTE_H */
