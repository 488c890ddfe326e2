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
#include <stdint.h>

#include <event2/event.h>
#include <hwloc.h>
#include <pmix_common.h>

#include "launcher/px_host.h"

typedef struct px_daemons px_daemons_t;

/* A message from daemon id (payload borrowed for the call; seq != 0: a request to
 * answer with px_daemons_reply). Daemon 0's come from this process's own node agent. */
typedef void (*px_daemons_msg_fn)(unsigned id, uint32_t tag, uint32_t seq,
                                  pmix_data_buffer_t *payload, void *arg);
/* Daemon id was lost after start-up (its connection ended, it sent something malformed):
 * the message naming it was shown; its processes are gone with it. */
typedef void (*px_daemons_lost_fn)(unsigned id, void *arg);
/* The answer to px_daemons_request: PMIX_SUCCESS with the reply payload (borrowed), or
 * PMIX_ERR_LOST_CONNECTION with NULL. Exactly once per successful request. */
typedef void (*px_daemons_reply_fn)(unsigned id, pmix_status_t status, pmix_data_buffer_t *reply,
                                    void *cbdata);

typedef struct {
    struct event_base *base;
    const char *prog;       /* borrowed: for messages */
    const char *node;       /* borrowed: this node's name (daemon 0) */
    const char *nspace;     /* borrowed: the DVM's namespace (given to each prted) */
    hwloc_topology_t topo;  /* borrowed: this node's topology (daemon 0's) */
    const px_host_t *hosts; /* borrowed: --host/--hostfile */
    size_t nhosts;
    /* borrowed: the remote shell, words separated by blanks, run as <agent> <host>
     * <prted command line> (--prtemca plm_ssh_agent / PRTE_MCA_plm_ssh_agent); NULL
     * when there is none (then every host must be this node) */
    const char *agent;
    /* daemon 0's end of a connected stream socket whose other end this process's node
     * agent reads (ownership passes, also on failure) */
    int self_fd;
    px_daemons_msg_fn msg;
    px_daemons_lost_fn lost;
    /* The start-up's end, on the loop (never inside px_daemons_start), at most once:
     * every daemon up (ok), or one failed to start (ok false, its message shown). Not
     * called when px_daemons_stop comes first. */
    void (*started)(bool ok, void *arg);
    /* A daemon added by px_daemons_add is up (ok; its node name and topology known) or
     * failed to start (its message shown), on the loop, once per add. */
    void (*joined)(unsigned id, bool ok, void *arg);
    void *arg;
    int verbose;
    /* Heartbeats (both 0: off): every hb_interval_ms a ping to each daemon that is up,
     * which answers it; a daemon that sends nothing for hb_timeout_ms is lost
     * (daemon-lost, then lost()), and a daemon hearing no ping for as long exits. */
    unsigned hb_interval_ms, hb_timeout_ms;
    /* --debug-daemons: each prted logs every message (prted --debug) to its stderr,
     * which reaches this process's (the agent's inherited, ssh's copied) */
    bool debug;
    /* borrowed: <prefix>/bin/prted is run on the other hosts (through the built-in ssh
     * client with <prefix>/bin and <prefix>/<libdir> first in PATH and
     * LD_LIBRARY_PATH); NULL: this process's own prted's path, or with noprefix
     * "prted" as the remote PATH finds it */
    const char *prefix;
    bool noprefix;
    /* Tree spawn (>= 1): daemon i's children in a tree of this radix over the ids of the
     * start-up are started by daemon i, once it is up (SPAWN); this process starts only
     * its own children. 0: every daemon is started by this process. Daemons added later
     * (px_daemons_add) are always started by this process. */
    unsigned tree_radix;
    /* Inside a Slurm allocation (and no agent given): the daemons are started by one
     * srun (one task per node, no binding, the step killed if one fails); the agent and
     * the tree are not used. Hosts added later get an srun each. */
    bool srun;
} px_daemons_opts_t;

/* True when name is this node (localhost, 127.0.0.1, its name or short name). */
bool px_daemons_is_here(const char *name, const char *node);

/* Start a prted on every host of o->hosts that is not this node (through the agent;
 * the caller has refused such hosts when there is none). The daemons come up on base's
 * loop, which the caller runs: once each has said hello and its topology is known, or
 * one fails (its agent exits, its connection is refused or lost, or the start timeout
 * passes: a message says which and why), o->started tells. The table, or NULL after the
 * message when the start cannot even begin. */
px_daemons_t *px_daemons_start(const px_daemons_opts_t *o);

/* Grow the DVM (prun --add-host): start a prted on host, once the start-up is over
 * (EBUSY before, and while stopping). Its id (the next one), then o->joined tells how
 * it went, later; -1 with errno when it cannot even begin (nothing told then). */
int px_daemons_add(px_daemons_t *d, const char *host);
/* The id of the daemon, not failed or gone, that runs on host (as the command line
 * named it, or as its node reported itself; daemon 0 for this node's names), or -1. */
int px_daemons_find(const px_daemons_t *d, const char *host);

/* Daemons in the table (daemon 0 included); ids are 0 .. count-1. */
size_t px_daemons_count(const px_daemons_t *d);
/* Daemon id's node name as it reported it, and its topology (borrowed, loaded). */
const char *px_daemons_node(const px_daemons_t *d, unsigned id);
hwloc_topology_t px_daemons_topo(const px_daemons_t *d, unsigned id);
/* The host as the command line named it (daemon 0: this node's name). */
const char *px_daemons_host(const px_daemons_t *d, unsigned id);
/* Whether id is up (started, not lost, not told to exit). */
bool px_daemons_up(const px_daemons_t *d, unsigned id);
/* Send a message, a request, a reply to daemon id. 0, or -1 + errno (ENOTCONN: the
 * daemon is not up). buf is borrowed (may be NULL: no fields). */
int px_daemons_send(px_daemons_t *d, unsigned id, uint32_t tag, const pmix_data_buffer_t *buf);
int px_daemons_request(px_daemons_t *d, unsigned id, uint32_t tag, const pmix_data_buffer_t *buf,
                       px_daemons_reply_fn cb, void *cbdata);
int px_daemons_reply(px_daemons_t *d, unsigned id, uint32_t seq, uint32_t tag,
                     const pmix_data_buffer_t *buf);

/* Send every daemon PX_DP_EXIT; done(arg) runs on the loop once each has closed its
 * connection and its agent has been reaped (those that do not, within a bound, are
 * killed). Called again, or with nothing to wait for, done runs later all the same. */
void px_daemons_stop(px_daemons_t *d, void (*done)(void *arg), void *arg);
bool px_daemons_stopped(const px_daemons_t *d); /* true for NULL */

/* Kill what is left (SIGKILL to each agent's process group), reap, free. Accepts NULL. */
void px_daemons_destroy(px_daemons_t *d);

#endif /* PX_DAEMONS_H */
