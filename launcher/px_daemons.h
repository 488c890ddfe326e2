/* launcher: the controller's side of the daemon protocol (docs/PROTOCOL.md): a TCP
 * listener with the DVM's secret, the daemon table (daemon 0 = this node, in-process;
 * one prted per other host, started through a remote-shell agent), topologies stored
 * once per signature, and the daemons' exit. Everything runs on the controller's
 * libevent loop (main thread).
 */
#ifndef PX_DAEMONS_H
#define PX_DAEMONS_H

#include <stdbool.h>
#include <stddef.h>

#include <event2/event.h>
#include <hwloc.h>

#include "launcher/px_host.h"

typedef struct px_daemons px_daemons_t;

typedef struct {
    struct event_base *base;
    const char *prog;       /* borrowed: for messages */
    const char *node;       /* borrowed: this node's name (daemon 0) */
    hwloc_topology_t topo;  /* borrowed: this node's topology (daemon 0's) */
    const px_host_t *hosts; /* borrowed: --host/--hostfile */
    size_t nhosts;
    int verbose;
} px_daemons_opts_t;

/* The remote-shell agent: PRTE_MCA_plm_ssh_agent from the environment (a command,
 * words separated by blanks, run as <agent> <host> <prted command line>); NULL when
 * unset or empty. */
const char *px_daemons_agent(void);

/* True when name is this node (localhost, 127.0.0.1, its name or short name). */
bool px_daemons_is_here(const char *name, const char *node);

/* Start a prted on every host of o->hosts that is not this node (through the agent;
 * the caller has refused such hosts when there is none) and wait, on base, until each
 * has said hello and its topology is known, or one fails (its agent exits, its
 * connection is refused or lost, or the start timeout passes: a message says which and
 * why). This runs base's loop until then and must be called before the caller runs the
 * loop itself (controller start-up). The table, or NULL after the message. */
px_daemons_t *px_daemons_start(const px_daemons_opts_t *o);

/* Send every daemon PX_DP_EXIT; done(arg) runs on the loop once each has closed its
 * connection and its agent has been reaped (those that do not, within a bound, are
 * killed). Called again, or with nothing to wait for, done runs later all the same. */
void px_daemons_stop(px_daemons_t *d, void (*done)(void *arg), void *arg);
bool px_daemons_stopped(const px_daemons_t *d); /* true for NULL */

/* Kill what is left (SIGKILL to each agent's process group), reap, free. Accepts NULL. */
void px_daemons_destroy(px_daemons_t *d);

#endif /* PX_DAEMONS_H */
