/* server: internal state of the PMIx server library (one per process).
 * Threads: the state below is touched with srv->lock held — on the progress loop by
 * message handlers and host callbacks shifted there, and by the host's threads in the
 * synchronous server APIs. It is never held across an upcall (px_srv_upcall); it stays
 * recursive because some callbacks into the host still run with it held and may call
 * those APIs: a dmodex request's answer, the server process's own event handlers, the
 * completion callbacks of a deregistration (dereg_on_loop) and of the server's own
 * PMIx_Notify_event (api_notify_on_loop).
 * Peers (net/) are touched only on the loop.
 */
#ifndef PX_SERVER_H
#define PX_SERVER_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include <pmix_server.h>

#include "net/px_peer.h"
#include "net/px_progress.h"
#include "net/px_usock.h"
#include "store/px_store.h"

/* A client the host registered (PMIx_server_register_client). Counted: requests in
 * flight in the host hold a reference; deregistration unlinks it. */
typedef struct px_srv_client {
    pmix_proc_t proc;
    uid_t uid;
    gid_t gid;
    void *server_object; /* borrowed: the host's */
    px_peer_t *peer;     /* owned while connected, else NULL */
    pid_t pid;
    bool connected_once;
    bool finalized;
    bool departed;   /* connection gone (after finalize or not) */
    bool registered; /* still in the list */
    int refs;
    char **cleanup_files;  /* owned argv: PMIX_REGISTER_CLEANUP */
    char **cleanup_dirs;   /* owned argv: PMIX_REGISTER_CLEANUP_DIR */
    char **cleanup_ignore; /* owned argv: PMIX_CLEANUP_IGNORE (names or absolute paths) */
    bool cleanup_recursive, cleanup_empty, cleanup_leave_top;
    bool is_tool;  /* a tool connection (server_tool.c); lives on px_srv->tools */
    bool approved; /* tools: the host's tool_connected approved it (clients: unused) */
    /* events (server_event.c): codes it registered for, and the cached events already
     * sent to it (ids; pruned to what the cache still holds) */
    pmix_status_t *ev_codes; /* owned */
    size_t nev_codes;
    bool ev_all; /* registered a default handler: every code */
    /* what it registered with PMIX_EVENT_AFFECTED_PROC(S): events raised "to the
     * interested" (PX_EVT_TO_INTERESTED) naming one of these processes reach it */
    struct px_srv_interest *ev_int; /* owned */
    size_t nev_int;
    uint64_t *ev_sent; /* owned */
    size_t nev_sent, cap_ev_sent;

    bool tool_attaching; /* tools: the attach request was taken (one per connection) */
    bool tool_cred;      /* tools: uid/gid/pid are SO_PEERCRED's (Unix socket; not TCP) */
    uint64_t iof_mark;   /* server_iof.c: last delivery sent to it (one copy per delivery) */
    /* server_iof.c: its output messages not yet written (oldest first; each holds a
     * reference on it), their bytes, those of them still in the host's buffers, and
     * whether it fell behind (dropping; PMIX_ERR_IOF_FAILURE raised) */
    struct px_iof_send *iof_sends, *iof_sends_tail;
    size_t iof_queued, iof_held, iof_rearm;
    bool iof_behind, iof_dropping;

    /* owned by server_pmi.c: its PMI connection once it said init (it then has no peer;
     * replies go there) */
    struct px_pmi_conn *pmi;
    struct px_srv_client *next;
} px_srv_client_t;

typedef struct px_fence px_fence_t;
struct px_qans; /* common/px_query.h */
typedef struct px_waiter px_waiter_t;

typedef struct px_pset {
    char *name;           /* owned */
    pmix_proc_t *members; /* owned */
    size_t nmembers;
    struct px_pset *next;
} px_pset_t;

/* A tool initialised with PMIX_LAUNCHER runs this server inside its own process
 * (client/tool_srv.c), so that a launcher it starts can connect back to it. Its init
 * info then holds PX_ATTR_SRV_EMBED (PMIX_POINTER to a px_srv_embed_t that outlives the
 * server): no generic pmix.<host>.tool file is written (it would take the default search
 * of every tool on the node), and what the server process's own handlers would get goes
 * to deliver instead (the tool's event engine and cache), on the server's loop, no lock
 * held, inputs borrowed for the call. */
#define PX_ATTR_SRV_EMBED "px.srv.embed"
typedef struct px_srv_embed {
    void (*deliver)(pmix_status_t status, const pmix_proc_t *source, pmix_data_range_t range,
                    const pmix_info_t info[], size_t ninfo);
} px_srv_embed_t;

typedef struct px_server {
    pthread_mutex_t lock; /* recursive */
    px_progress_t *prog;
    pmix_server_module_t module; /* copied; members past a 4.2.2 module are NULL */
    px_store_t store;
    px_usock_listener_t *listener;
    pmix_proc_t myproc;
    char *tmpdir;      /* owned: PMIX_SERVER_TMPDIR */
    char *systmpdir;   /* owned: PMIX_SYSTEM_TMPDIR */
    char *sockpath;    /* owned */
    char *uri;         /* owned */
    char **rndz_files; /* owned argv: rendezvous files we created */
    bool host_base;    /* the host gave PMIX_EVENT_BASE and runs the loop */
    bool tool_support, system_support, remote_connections;
    bool no_rndz; /* PX_SRV_NO_RNDZ: tools only by the URI we hand out (no files) */
    px_srv_client_t *clients;
    px_srv_client_t *tools; /* connected tools (server_tool.c) */
    px_fence_t *fences;
    px_waiter_t *waiters;
    px_pset_t *psets;
    pmix_info_t *attrs; /* owned: PMIx_Register_attributes, key = function name */
    size_t nattrs;
    /* tools (server_tool.c) */
    struct px_tcp_listener *tcp_listener; /* owned, loop only; NULL without tool support */
    char *tcp_uri;                        /* owned: its URI (rendezvous line 4), or NULL */
    char *launcher_rndz_uri;              /* owned: $PMIX_LAUNCHER_RNDZ_URI at init, or NULL */
    int keepalive_fd;                     /* $PMIX_KEEPALIVE_PIPE at init, or -1 */
    /* owned: what this process inherited in $PMIX_LAUNCHER_RNDZ_FILE / $PMIX_KEEPALIVE_PIPE
     * (NULL: nothing); setup_fork strips exactly these values (and launcher_rndz_uri's) */
    char *launcher_rndz_file;
    char *keepalive_str;
    bool msg_malformed;    /* the message being dispatched broke the protocol (px_srv_count) */
    struct px_grp *groups; /* owned: process groups with a member here (server_group.c) */
    struct px_conn *conns; /* owned: connect/disconnect operations (server_connect.c) */

    struct px_srv_pmi *pmi;      /* owned by server_pmi.c: PMI connections, node attributes */
    const px_srv_embed_t *embed; /* borrowed: set when a tool runs this server (see above) */
} px_server_t;

/* The one server of this process, NULL when not initialised. */
extern px_server_t *px_srv;

/* ---- server.c ---- */
void px_srv_client_retain(px_srv_client_t *c);
void px_srv_client_release(px_srv_client_t *c);
px_srv_client_t *px_srv_client_find(const char *nspace, pmix_rank_t rank);
/* Send a reply (status first, then body's bytes if any) to a client's request. */
void px_srv_reply(px_srv_client_t *c, uint32_t seq, uint32_t tag, pmix_status_t status,
                  const pmix_data_buffer_t *body);
/* Every count a handler reads from a client's message: px_bfrops_unpack_count (PMIX_SIZE
 * count of things of at least `each` bytes, max 0 = no protocol bound). A count the
 * message cannot hold marks the message malformed: the dispatcher then drops that
 * connection (after the handler's own error handling). */
pmix_status_t px_srv_count(pmix_data_buffer_t *payload, size_t each, size_t max, size_t *n);
/* Unpack "size n, proc[n]" (n bounded) into a new array of at least one slot. */
pmix_status_t px_srv_unpack_procs(pmix_data_buffer_t *payload, pmix_proc_t **procs, size_t *n);
/* c is now connected (a PMIx handshake, or a PMI init): tell the host's
 * client_connected(2), later on the loop. */
void px_srv_client_connected(px_srv_client_t *c);
/* Shift fn to the loop; fn runs with the lock held. 0 / -1. */
int px_srv_shift(px_progress_fn_t fn, void *arg);
/* The rule for calling the host's module: no library lock is held across an upcall
 * (hosts call back into the library from upcalls, from any thread). fn(arg) runs on the
 * loop later, without px_srv->lock: it makes the upcall and takes the lock itself, only
 * before or after, for the state it touches. Everything the upcall borrows lives in arg.
 * Every pmix_server_module_t call goes through here. 0 / -1. */
int px_srv_upcall(px_progress_fn_t fn, void *arg);

/* Peer callbacks of client connections: tool connections made in server_tool.c are
 * dispatched through them once approved. */
void px_srv_peer_recv(px_peer_t *peer, uint32_t tag, uint32_t seq, pmix_data_buffer_t *payload,
                      void *cbdata);
void px_srv_peer_lost(px_peer_t *peer, int err, void *cbdata);

/* ---- server_tool.c: tool connections ---- */
/* At init: keep and unset $PMIX_LAUNCHER_RNDZ_URI and $PMIX_KEEPALIVE_PIPE. */
void px_srv_tool_env(px_server_t *s);
/* On the loop at init: the TCP listener and s->tcp_uri when tools may connect. */
void px_srv_tool_listen(px_server_t *s);
/* A hello of kind PX_HELLO_TOOL (cred NULL over TCP): a pending tool record. */
pmix_status_t px_srv_tool_hello(int fd, const px_usock_cred_t *cred, const char *nspace,
                                pmix_rank_t rank, const char *version);
/* Is proc an approved tool connected here now? Lock held. */
bool px_srv_tool_is_connected(const pmix_proc_t *proc);
/* A tool's connection is gone (from the lost handler): off px_srv->tools. */
void px_srv_tool_gone(px_srv_client_t *c);
/* On the loop at finalize: drop the listener and every tool; free the tool fields. */
void px_srv_tool_fini(void);

/* ---- server_reg.c ---- */
void px_srv_reg_fini(void);

/* ---- server_data.c: commit, get, fence, dmodex ---- */
void px_srv_commit(px_srv_client_t *c, pmix_data_buffer_t *payload);
void px_srv_get(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
void px_srv_fence(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
/* A client's connection is gone: fail what waits on it, drop what it waits for. */
void px_srv_data_client_gone(px_srv_client_t *c, bool deregistered);
void px_srv_data_fini(void);
/* pack PMIX_PSET_NAMES of proc as a value; NULL-safe for no membership */
pmix_status_t px_srv_pset_names(const pmix_proc_t *proc, pmix_value_t *val);
/* Store the entries of a posted-data blob that belong to ranks of other nodes. */
void px_srv_store_remote_blob(pmix_data_buffer_t *buf);
/* Append p's posted data to buf as a blob entry (nothing when it posted nothing): the
 * remote-visible set when for_remote or p is not on this node, else the local one. */
pmix_status_t px_srv_pack_posted(pmix_data_buffer_t *buf, const pmix_proc_t *p, bool for_remote);

/* Sort procs and return their canonical signature "ns:rank;..." ("ns:*" for a wildcard);
 * NULL on ENOMEM. */
char *px_srv_proc_signature(pmix_proc_t *procs, size_t n);
/* Does the list name p (exactly or through a wildcard)? */
bool px_srv_procs_involve(const pmix_proc_t *procs, size_t n, const pmix_proc_t *p);
/* How many of the processes named (wildcards: every rank of the job) are on this node,
 * and whether all are. PMIX_ERR_NOT_FOUND for a namespace this server does not know. */
pmix_status_t px_srv_count_local(const pmix_proc_t *procs, size_t n, size_t *nlocal,
                                 bool *all_local);
/* Pack the posted data of every process named, as a participant on this node sees it. */
pmix_status_t px_srv_pack_all(const pmix_proc_t *procs, size_t n, pmix_data_buffer_t *body);

/* ---- server_group.c: process groups ---- */
void px_srv_grp_construct(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
void px_srv_grp_destruct(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
void px_srv_grp_invite(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
void px_srv_grp_join(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
void px_srv_grp_leave(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
/* c's connection is gone: the groups it is in or being built with it react (events,
 * fault-tolerant trackers, failures). */
void px_srv_group_client_gone(px_srv_client_t *c);
/* A NOTIFY from c: PMIX_GROUP_CONSTRUCT_ABORT and PMIX_GROUP_LEADER_SELECTED naming a
 * group (PMIX_GROUP_ID) being built here act on it and are consumed (true); the group
 * code raises the events itself. Anything else: false. */
/* An event the host passed down (PMIx_Notify_event from the host: another server's) that
 * tells of a group member elsewhere leaving, failing or leading: the group's record here is
 * updated. Loop, lock not held. */
void px_srv_group_host_event(pmix_status_t code, const pmix_info_t info[], size_t ninfo);
bool px_srv_group_notified(px_srv_client_t *c, pmix_status_t status, const pmix_info_t info[],
                           size_t ninfo);
/* Replace every proc naming an active group (its id as namespace) by its members (rank
 * wildcard) or by its member of that group rank. *procs is reallocated. PMIX_ERR_BAD_PARAM
 * for a group rank out of range. */
pmix_status_t px_srv_group_expand(pmix_proc_t **procs, size_t *nprocs);
/* PMIX_GROUP_NAMES of proc: the active groups it is a member of (an empty array: none). */
pmix_status_t px_srv_group_names(const pmix_proc_t *proc, pmix_value_t *val);
/* PMIX_QUERY_NUM_GROUPS / GROUP_NAMES / GROUP_MEMBERSHIP (qualifier PMIX_GROUP_ID) into
 * a; PMIX_ERR_NOT_FOUND for another key or an unknown group. */
pmix_status_t px_srv_group_query(const pmix_query_t *q, const char *key, struct px_qans *a);
void px_srv_group_fini(void);

/* ---- server_connect.c: PMIx_Connect / PMIx_Disconnect ---- */
void px_srv_connect(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
void px_srv_disconnect(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
void px_srv_connect_client_gone(px_srv_client_t *c);
void px_srv_connect_fini(void);

/* ---- server_event.c: event registration, notification, the event cache ---- */
/* At init (before the listener exists): cache size, and bind the event engine to our loop
 * unless another side of this process already did. */
pmix_status_t px_srv_event_init(const pmix_info_t info[], size_t ninfo);
/* At finalize, not on the loop, after the loop's last handler ran. */
void px_srv_event_fini(void);
void px_srv_evt_register(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
void px_srv_evt_deregister(px_srv_client_t *c, pmix_data_buffer_t *payload);
void px_srv_notify(px_srv_client_t *c, pmix_data_buffer_t *payload);
/* c's connection is gone: its registrations of host-only codes end (the host's
 * deregister_events for those no one else registered). Idempotent; lock held. */
void px_srv_evt_client_gone(px_srv_client_t *c);
/* An event the server itself raises (pset define/delete...), source = the server; any
 * thread. Handed to the host only when the range reaches beyond this node. */
void px_srv_event_raise(pmix_status_t status, pmix_data_range_t range, const pmix_info_t info[],
                        size_t ninfo);
/* An event for the given targets only (custom range) from source; loop, lock held; info
 * copied; handed to the host when a target is not this server's. */
void px_srv_event_emit(pmix_status_t status, const pmix_proc_t *source, const pmix_proc_t *targets,
                       size_t ntargets, const pmix_info_t info[], size_t ninfo);
/* The server-process side of the event API (PMIx_* in client/client_event.c call these
 * when this process is a server and not a client). */
pmix_status_t px_srv_api_register(const pmix_status_t codes[], size_t ncodes,
                                  const pmix_info_t info[], size_t ninfo, pmix_notification_fn_t fn,
                                  pmix_hdlr_reg_cbfunc_t cbfunc, void *cbdata);
pmix_status_t px_srv_api_deregister(size_t id, pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t px_srv_api_notify(pmix_status_t status, const pmix_proc_t *source,
                                pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                                pmix_op_cbfunc_t cbfunc, void *cbdata);

/* An event the process around an embedded server raised itself (the tool's
 * PMIx_Notify_event, which already ran its own handlers): relayed to the connected
 * clients and tools in range, except skip (NULL: none), and cached; neither delivered
 * here nor handed to the host. Any thread; info copied. */
pmix_status_t px_srv_event_relay(pmix_status_t status, const pmix_proc_t *source,
                                 pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                                 const pmix_proc_t *skip);

/* An EVENT from the tool that started us (server_uplink.c), on the loop: to our own
 * handlers and to our connections in range, as a connected tool's notification would
 * go (never back to that tool), cached; not to the host. */
void px_srv_event_from_uplink(pmix_data_buffer_t *payload);

/* ---- server_uplink.c: a launcher's link back to the tool that started it ---- */
/* At init, on the host's thread, after the listener: attach to $PMIX_LAUNCHER_RNDZ_URI
 * (s->launcher_rndz_uri; nothing to do without it), register for its events, fetch the
 * namespace it registered for us. PMIX_SUCCESS or the error (help message printed). */
pmix_status_t px_srv_uplink_start(px_server_t *s);
/* At init: watch $PMIX_KEEPALIVE_PIPE (s->keepalive_fd): its closure raises
 * PMIX_EVENT_JOB_END for the namespace of the tool that started us (PMIX_NSPACE,
 * PMIX_EVENT_AFFECTED_PROC) to our own handlers. */
void px_srv_keepalive_start(px_server_t *s);
/* At finalize, on the loop (the link's queued events are flushed first). */
void px_srv_uplink_fini(void);
/* The tool we are attached to (true), or false when none. Any thread. */
bool px_srv_uplink_parent(pmix_proc_t *parent);
/* Send it an event (the EVENT/NOTIFY payload). Loop. */
void px_srv_uplink_send(const pmix_data_buffer_t *event);
/* This process's own PMIx_Get (it is a server, not a client): a key of the namespace the
 * tool that started us registered for us (PMIX_LAUNCH_DIRECTIVES...), and PMIX_PARENT_ID
 * = that tool. *val new. PMIX_ERR_NOT_FOUND otherwise. Any thread. */
pmix_status_t px_srv_uplink_get(const pmix_proc_t *proc, const char *key, pmix_value_t **val);

/* ---- server_spawn.c: PMIx_Spawn requests ---- */
void px_srv_spawn(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);

/* ---- server_iof.c: IO forwarding (sinks, PMIx_server_IOF_deliver, pull, push) ---- */
/* How a sink takes output it cannot keep up with (server_iof.c, "a sink that lags"). */
typedef struct {
    size_t cap;       /* PMIX_IOF_CACHE_SIZE: bytes kept for it while it lags */
    bool drop_oldest; /* PMIX_IOF_DROP_OLDEST, else PMIX_IOF_DROP_NEWEST (the default) */
    bool copy;        /* a pull's PMIX_IOF_COPY, else it redirects (PMIX_IOF_REDIRECT) */
    bool is_default;  /* the output's default destination (a spawn's requester) */
} px_srv_iof_opts_t;
/* Read those directives from info (the rest is ignored); defaults for what is absent.
 * PMIX_ERR_BAD_PARAM for a wrong type, both policies, both modes, or a zero cache
 * size. */
pmix_status_t px_srv_iof_opts(const pmix_info_t *info, size_t ninfo, px_srv_iof_opts_t *o);
/* Make c a sink of channels (PMIX_FWD_STD*_CHANNEL bits) of proc (rank may be the
 * wildcard); o NULL: the defaults. One record per call; each DEREG removes one.
 * PMIX_SUCCESS or NOMEM. */
pmix_status_t px_srv_iof_add_sink(px_srv_client_t *c, const pmix_proc_t *proc,
                                  pmix_iof_channel_t channels, const px_srv_iof_opts_t *o);
void px_srv_iof_pull(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
void px_srv_iof_dereg(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
void px_srv_iof_push(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
/* c's connection is gone: drop its sinks. */
void px_srv_iof_client_gone(px_srv_client_t *c);
/* A spawn asked PMIX_IOF_CACHE_SIZE: the output of nspace kept for late pulls. */
void px_srv_iof_cache_size(const char *nspace, size_t size);
/* The namespace is deregistered: the output kept for it goes. */
void px_srv_iof_ns_gone(const char *nspace);

/* At finalize, on the loop: drop every sink. */
void px_srv_iof_fini(void);
/* nspace was deregistered: the output links it was part of go (px_srv_iof_inherit). */
void px_srv_iof_ns_gone(const char *nspace);

/* ---- server_event.c (continued) ---- */
/* Run the server process's own handlers only (no relay, no cache, no host upcall), on
 * the loop later, with range PMIX_RANGE_PROC_LOCAL. Info copied. */
void px_srv_event_local(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t info[],
                        size_t ninfo);

/* ---- server_ops.c: requests forwarded to the host ---- */
void px_srv_finalize_req(px_srv_client_t *c, uint32_t seq);
void px_srv_publish(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
void px_srv_lookup(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
void px_srv_unpublish(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
void px_srv_abort(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
void px_srv_jobctl(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
void px_srv_log(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
/* Run a client's registered cleanups (files and directories). */
void px_srv_run_cleanup(px_srv_client_t *c);

/* ---- server_pmi.c: PMI-1 / PMI-2 connections (the host's side: px_srv_pmi.h) ---- */
/* px_srv_reply to a client bound to a PMI connection: the answer in PMI text. */
void px_srv_pmi_reply(px_srv_client_t *c, uint32_t seq, uint32_t tag, pmix_status_t status,
                      const pmix_data_buffer_t *body);
/* c is deregistered: its PMI connection (if any) closes without c being handled as lost
 * (the caller does that). */
void px_srv_pmi_unbind(px_srv_client_t *c);
/* The namespace is deregistered: its connections close, its node attributes go. */
void px_srv_pmi_ns_gone(const char *nspace);
/* On the loop at finalize: every PMI connection closes. */
void px_srv_pmi_fini(void);

/* ---- server_query.c: PMIx_Query_info ---- */
void px_srv_query(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload);
/* The server process's own query (checked input, copied): answered on the loop, cbfunc
 * later with the Standard's result list. PMIX_SUCCESS, or an error and no callback. */
pmix_status_t px_srv_query_local(const pmix_query_t *queries, size_t nqueries,
                                 pmix_info_cbfunc_t cbfunc, void *cbdata);
/* ---- server_ops.c: the server process's own PMIx_Log/_nb (cbfunc NULL: blocking) ---- */
pmix_status_t px_srv_api_log(const pmix_info_t data[], size_t ndata, const pmix_info_t dirs[],
                             size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata);
/* The caller is the server's own loop thread (blocking calls must refuse). */
bool px_srv_on_loop(void);

#endif /* PX_SERVER_H */
