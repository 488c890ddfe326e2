/* client: internal state of the PMIx client library (one per process).
 * Threads: user threads call the API; replies arrive on the client's own progress loop.
 * cl.lock guards the store and the pending puts (short holds, never across a wait);
 * cl.init_lock serialises PMIx_Init/PMIx_Finalize; the peer is touched only on the loop.
 */
#ifndef PX_CLIENT_H
#define PX_CLIENT_H

#include <pthread.h>
#include <stdbool.h>

#include <pmix.h>

#include "net/px_peer.h"
#include "net/px_progress.h"
#include "store/px_store.h"

typedef struct px_client_state {
    pthread_mutex_t init_lock;
    pthread_mutex_t lock;
    int refs; /* PMIx_Init calls not yet finalized */
    px_progress_t *prog;
    px_peer_t *peer; /* loop only; NULL once lost */
    pmix_proc_t myproc;
    pmix_proc_t server;
    px_store_t store;
    px_kvset_t commit_local;  /* puts since the last commit, local-visible */
    px_kvset_t commit_remote; /* ... remote-visible */
    bool event_bound;         /* the event engine runs on our loop */
} px_client_state_t;

extern px_client_state_t px_cl;

/* A reply (positioned after its status) or NULL when status is an error of ours
 * (timeout, lost connection). Runs on the loop. */
typedef void (*px_creq_fn)(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata);

/* Send a request (msg's bytes taken, msg may be NULL; the caller still frees msg); cb runs exactly
 * once on the loop, never inside this call. timeout_ms <= 0: none. PMIX_SUCCESS, or an error and no
 * callback. */
pmix_status_t px_cl_request(uint32_t tag, pmix_data_buffer_t *msg, int timeout_ms, px_creq_fn cb,
                            void *cbdata);
/* The same, waiting for the answer (reply bytes after the status copied into *reply when
 * non-NULL and always initialised; caller frees). Refused on the loop thread
 * (PMIX_ERR_WOULD_BLOCK). */
pmix_status_t px_cl_request_wait(uint32_t tag, pmix_data_buffer_t *msg, int timeout_ms,
                                 pmix_data_buffer_t *reply);
/* Send a plain message (no reply). */
pmix_status_t px_cl_send(uint32_t tag, pmix_data_buffer_t *msg);
/* Run fn(arg) on the loop later (for callbacks that must not run inside the API call). */
pmix_status_t px_cl_later(px_progress_fn_t fn, void *arg);

bool px_cl_initialized(void);
/* Store a JOBINFO reply for nspace (cl.lock taken inside). */
pmix_status_t px_cl_store_jobinfo(const char *nspace, pmix_data_buffer_t *reply);
/* Store every entry of a posted-data blob except our own (cl.lock taken inside). */
pmix_status_t px_cl_store_blob(pmix_data_buffer_t *blob);
/* Keys whose value the server computes at the time of asking (never answered from the
 * cache). */
bool px_cl_key_dynamic(const char *key);
/* Drop the query cache (client_query.c); at finalize, after the loop stopped. */
void px_cl_query_fini(void);
/* PMIX_TIMEOUT (seconds) in info, as milliseconds; 0 if absent. */
int px_cl_timeout_ms(const pmix_info_t *info, size_t ninfo);

/* ---- client_event.c ---- */
/* Bind this process's event engine to the client loop (after px_cl.prog and myproc). */
pmix_status_t px_cl_event_bind(void);
/* A PX_TAG_EVENT from the server (loop). */
void px_cl_event_recv(pmix_data_buffer_t *payload);
/* The connection to the server is gone (loop): the local PMIX_ERR_LOST_CONNECTION event. */
void px_cl_event_lost(void);
/* An event of this process's own (source: itself, range PROC_LOCAL) that handlers
 * registered later still get: delivered now and kept with the server's (loop). */
void px_cl_event_keep_local(pmix_status_t status, const pmix_info_t info[], size_t ninfo);
/* Is who within an event's range (info: the event's, for PMIX_EVENT_CUSTOM_RANGE)? Every
 * range but the RM's holds it; a custom range only when it names who. */
/* A NOTIFY request's payload (status, source, range, info) into msg (initialised here;
 * the caller frees it). PMIX_SUCCESS, or the packing error (info it cannot carry). */
pmix_status_t px_cl_notify_pack(pmix_data_buffer_t *msg, pmix_status_t status,
                                const pmix_proc_t *source, pmix_data_range_t range,
                                const pmix_info_t info[], size_t ninfo);
bool px_cl_range_names(pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                       const pmix_proc_t *who);
/* An event for this process from its own server (a tool's, client/tool_srv.c): run the
 * chain and keep it for later registrations, like one from our server. Any thread. */
void px_cl_event_deliver_keep(pmix_status_t status, const pmix_proc_t *source,
                              pmix_data_range_t range, const pmix_info_t info[], size_t ninfo);
/* Drop the events kept for later registrations (at finalize, after px_evt_unbind). */
void px_cl_event_fini(void);
/* The handshake payload (px_proto.h): kind, nspace, rank, library version. hello is
 * initialised here; the caller frees it. */
pmix_status_t px_cl_hello_pack(pmix_data_buffer_t *hello, int32_t kind, const char *nspace,
                               pmix_rank_t rank);
/* Drop the connection (px_cl.peer), stop the loop, free the store. */
void px_cl_teardown(void);

/* What differs between PMIx_Init and PMIx_tool_init (and their finalizes); the rest is
 * px_cl_start / px_cl_stop, run under px_cl.init_lock. */
typedef struct px_cl_side {
    const char *helpfile;        /* help-pmix-<side>.txt: its "init-directive" topic */
    const char *const *honoured; /* directives acted on (px_info_unhonoured); NULL: none */
    /* First init only, before any state exists: read the side's directives and
     * environment, set px_cl.myproc if known. An error returns at once. */
    pmix_status_t (*identify)(const pmix_info_t info[], size_t ninfo);
    /* The store and the running loop exist: connect, bind the event engine. An error
     * makes px_cl_start call release (if any) and px_cl_teardown. */
    pmix_status_t (*join)(const pmix_info_t info[], size_t ninfo);
    /* Last finalize, not on the loop (refused with PMIX_ERR_WOULD_BLOCK there): say
     * goodbye to the server(s) while the loop runs. */
    void (*leave)(void);
    /* NULL, or undo what join left on the loop or in side state, before the teardown. */
    void (*release)(void);
    /* NULL, or run once the first start succeeded (the API usable, init_lock still held,
     * so a concurrent init waits too): a debugger's stop point. An error undoes the
     * start (release, teardown) and is the init's answer. */
    pmix_status_t (*hold)(void);
} px_cl_side_t;

/* PMIx_Init / PMIx_tool_init: refcounted; the first call runs identify, sets up the
 * store and the loop, then join. *proc (may be NULL) set on success. */
pmix_status_t px_cl_start(const px_cl_side_t *side, pmix_proc_t *proc, pmix_info_t info[],
                          size_t ninfo);
/* PMIx_Finalize / PMIx_tool_finalize: the last call runs leave, release, teardown. */
pmix_status_t px_cl_stop(const px_cl_side_t *side);

/* ---- client_debug.c ---- */
/* PMIX_DEBUG_STOP_IN_INIT: when the launcher registered this process as a target, say
 * PMIX_READY_FOR_DEBUG (breakpoint "pmix-init") and wait for a PMIX_DEBUGGER_RELEASE
 * whose custom range names us. PMIX_SUCCESS (released or not a target), or
 * PMIX_ERR_LOST_CONNECTION when the server went while we waited. The client side's hold. */
pmix_status_t px_cl_debug_hold(void);

/* ---- client_group.c ---- */
/* Drop what we kept of our groups (at finalize). */
void px_cl_group_fini(void);
/* PMIx_Get of key for proc with a PMIX_GROUP_CONTEXT_ID or PMIX_GROUP_ID qualifier: the
 * value proc contributed to that group with PMIX_GROUP_INFO (true, *val new), else false.
 * px_cl.lock held. */
bool px_cl_group_lookup(const pmix_proc_t *proc, const char *key, const pmix_info_t *info,
                        size_t ninfo, pmix_value_t **val);
/* The group event codes whose handlers' decisions the library acts on. */
bool px_cl_group_code(pmix_status_t code);
/* A chain for such an event ended (loop): act on what its handlers decided. */
void px_cl_group_chain_done(pmix_status_t code, const pmix_info_t *info, size_t ninfo,
                            pmix_status_t status, const pmix_info_t *results, size_t nresults,
                            void *cbdata);

/* ---- client_iof.c ---- */
/* A PX_TAG_IOF_DATA from a server (loop): matching PMIx_IOF_pull handlers, else our own
 * stdout (STDOUT channel) / stderr (STDERR, DIAG). */
void px_cl_iof_recv(pmix_data_buffer_t *payload);
/* client_iof_stdin.c: PMIX_IOF_PUSH_STDIN. Start reading our stdin and pushing it to
 * targets (copied): PMIX_SUCCESS, PMIX_EXISTS while another reader runs, NOMEM. */
pmix_status_t px_cl_iof_stdin_start(const pmix_proc_t *targets, size_t ntargets);
/* Stop the reader and join it; false when none was started (or called by the reader
 * itself: nothing done). */
bool px_cl_iof_stdin_stop(void);
/* Before the loop goes (teardown): the stdin reader stops, what pulls' formatting holds
 * is handed over, their states dropped. */
void px_cl_iof_quiesce(void);
/* Drop the handlers; at finalize, after the loop stopped. */
void px_cl_iof_fini(void);

/* tool.c: the PMIX_KEEPALIVE_PIPE given at tool init was closed (the parent tool
 * has gone). Runs on the loop. */
void px_cl_keepalive_closed(void);

#endif /* PX_CLIENT_H */
