/*
 * pxh_node.h - state of one simulated node process. Upcalls (library progress thread)
 * only copy their arguments into a work item and post it; everything else runs on the
 * node's loop thread (its main thread).
 */
#ifndef PXH_NODE_H
#define PXH_NODE_H

#include "pxhost.h"

enum {
    PXH_W_FENCE = 1,
    PXH_W_DMODEX,
    PXH_W_DMX_SERVED, /* result of PMIx_server_dmodex_request for another node */
    PXH_W_PUBLISH,
    PXH_W_LOOKUP,
    PXH_W_UNPUBLISH,
    PXH_W_ABORT,
    PXH_W_CONNECTED,
    PXH_W_FINALIZED,
    PXH_W_JOBCTL,
    PXH_W_LOG,
    PXH_W_NOTIFY, /* notify_event upcall (pxh_event.c) */
    PXH_W_QUERY,  /* pxh_query.c */
    PXH_W_SPAWN,  /* pxh_spawn.c */
    PXH_W_PUSH,   /* pxh_spawn.c: push_stdin */
};

/* A copy of an upcall's arguments (all owned), or of a library callback's result. */
typedef struct pxh_work {
    int kind;
    pmix_proc_t proc;
    pmix_proc_t *procs;
    size_t nprocs;
    pmix_info_t *info;
    size_t ninfo;
    pmix_info_t *info2; /* log directives */
    size_t ninfo2;
    char **keys;
    char *data;
    size_t ndata;
    int status;
    char *msg;
    int from_node; /* PXH_W_DMX_SERVED: the asking node and its request id */
    uint32_t id;
    union {
        pmix_op_cbfunc_t op;
        pmix_modex_cbfunc_t modex;
        pmix_lookup_cbfunc_t lookup;
        pmix_info_cbfunc_t info;
        pmix_spawn_cbfunc_t spawn;
    } cb;
    void *cbdata;
    pmix_query_t *queries; /* PXH_W_QUERY */
    size_t nqueries;
    struct pxh_work *next;
} pxh_work_t;

/* One local client. */
typedef struct {
    int rank;
    pid_t pid; /* 0: not started */
    bool registered;
    bool exited;
    bool killed; /* by pxhost (abort, timeout) */
    bool connected;
    bool finalized;
} pxh_client_t;

typedef struct pxh_node {
    int id;
    pxh_link_t links[PXH_MAX_NODES]; /* towards node j (closed for ourselves) */
    pxh_link_t ctl;                  /* towards the top process */
    pxh_client_t *clients;           /* owned, pxh_node_count(id) entries */
    int nclients;
    bool local_done_sent;
    bool shutdown;
    bool dead[PXH_MAX_RANKS]; /* remote ranks that died without finalizing */
    int host_errors;          /* problems found in what the library passed us */
    char *cleanup[64];        /* PMIX_REGISTER_CLEANUP paths (owned) */
    int ncleanup;
    struct pxh_fence *fences;
    struct pxh_sigcount *sigcounts;
    struct pxh_dmx *dmx;
    uint32_t next_id;
    struct pxh_pending *pending; /* pub/lookup/unpub forwarded to node 0 */
    struct pxh_pubentry *store;  /* node 0 only */
    struct pxh_waitlookup *waiting;
} pxh_node_t;

extern pxh_node_t pxh_node;
extern pmix_server_module_t pxh_module;
pmix_status_t pxh_up_notify_event(pmix_status_t code, const pmix_proc_t *source,
                                  pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata);
/* register_events / deregister_events (pxh_event.c): printed; a code asked for twice, or
 * released without being asked for, is a host error. */
pmix_status_t pxh_up_register_events(pmix_status_t *codes, size_t ncodes, const pmix_info_t info[],
                                     size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t pxh_up_deregister_events(pmix_status_t *codes, size_t ncodes, pmix_op_cbfunc_t cbfunc,
                                       void *cbdata);

/* The tool_connected upcall (pxh_tool.c), and the number of tools it approved. */
void pxh_tool_connected(pmix_info_t *info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                        void *cbdata);
int pxh_tools_approved(void);

/* --reenter (pxh_reenter.c): called first in every upcall; another thread calls back
 * into the library and this waits (bounded) for it; a timeout is a host error. */
void pxh_reenter(const char *upcall);

/* Hand a work item to the loop thread (any thread). */
void pxh_node_post(pxh_work_t *w);
void pxh_work_free(pxh_work_t *w);
pmix_info_t *pxh_info_dup(const pmix_info_t *info, size_t n);
/* The requester's PMIX_USERID / PMIX_GRPID the library must add to what upcall `what`
 * (from rank) hands up: both present, and this host's effective ids (every client and
 * tool of a pxhost job runs as the host's user, TCP tools included); else a host error. */
void pxh_check_ids(const char *what, pmix_rank_t rank, const pmix_info_t *info, size_t n);

/* Loop-thread handlers (pxh_upcalls.c / pxh_pubsub.c). */
void pxh_handle_work(pxh_work_t *w);
void pxh_handle_msg(int from, uint8_t cmd, pmix_data_buffer_t *buf);
void pxh_proc_died(int rank);
int pxh_next_deadline_ms(void); /* -1: none */
void pxh_expire(void);
void pxh_pubsub_work(pxh_work_t *w);
pmix_status_t pxh_query_upcall(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                               pmix_info_cbfunc_t cbfunc, void *cbdata);
void pxh_query_work(pxh_work_t *w); /* takes w */
void pxh_pubsub_msg(int from, uint8_t cmd, pmix_data_buffer_t *buf);
int pxh_pubsub_deadline_ms(void);
void pxh_pubsub_expire(void);
void pxh_event_work(pxh_work_t *w);
void pxh_event_msg(int from, pmix_data_buffer_t *buf);
/* --host-event: the host's own event, before the clients start (pxh_event.c). */
void pxh_event_host_raise(void);

/* pxh_spawn.c: the spawn and push_stdin upcalls (--spawn), their loop-thread work
 * (takes w), the host's handler of PMIX_ERR_LOST_CONNECTION (tools leaving) and the
 * end-of-run check that every PMIx_server_IOF_deliver callback came once. */
pmix_status_t pxh_spawn_upcall(const pmix_proc_t *proc, const pmix_info_t job_info[], size_t ninfo,
                               const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                               void *cbdata);
pmix_status_t pxh_push_stdin_upcall(const pmix_proc_t *source, const pmix_proc_t targets[],
                                    size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                    const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc,
                                    void *cbdata);
void pxh_spawn_work(pxh_work_t *w);
void pxh_spawn_init(void);
void pxh_spawn_check(void);
/* At the shutdown, before the server goes: until the handler heard every approved tool
 * leave (a tool ends with its rank, its departure may still be on its way), at most
 * 10 s. */
void pxh_spawn_wait_tools(void);

/* Send buf (released here) to node j, or to the top when j < 0. */
void pxh_send(int j, pmix_data_buffer_t *buf);
void pxh_host_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double pxh_now(void);
/* Developer trace of the host's own traffic, on stderr when PXHOST_DEBUG is set. */
void pxh_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* PXH_NODE_H */
