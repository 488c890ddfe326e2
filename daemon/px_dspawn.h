/* daemon: tree spawn, a daemon's side (docs/PROTOCOL.md "SPAWN / CHILD_END"): on the
 * controller's SPAWN, start each child daemon of the tree as the controller would —
 * through the agent it names (a process in its own group, the DVM's secret on its
 * stdin) or the built-in ssh client (launcher/ssh.c, the secret on the channel's
 * stdin) — and report, once per child, how its agent or session ended. The children
 * connect to the controller themselves. prted's loop only.
 */
#ifndef PX_DSPAWN_H
#define PX_DSPAWN_H

#include <stdint.h>

#include <event2/event.h>

#include "daemon/px_dproto.h"

typedef struct px_dspawn px_dspawn_t;

/* Child id's agent or ssh session ended: status is its exit status, or -1 when it
 * failed (why says how; a message naming the host was shown on our stderr). */
typedef void (*px_dspawn_end_fn)(uint32_t id, int32_t status, const char *why, void *arg);

/* secret: the DVM's (copied; PX_TCP_SECRET_HEX digits). prog names us in messages.
 * NULL + errno on failure. */
px_dspawn_t *px_dspawn_create(struct event_base *base, const char *prog, const char *secret,
                              px_dspawn_end_fn end, void *arg);
/* Start every child of sp (borrowed for the call). A child that cannot even be
 * started is reported through end, later. */
void px_dspawn_start(px_dspawn_t *s, const px_dp_spawn_t *sp);
/* Close the ssh sessions and forget the agents (their daemons live on their own
 * connection to the controller); no callback after this. Accepts NULL. */
void px_dspawn_destroy(px_dspawn_t *s);

#endif /* PX_DSPAWN_H */
