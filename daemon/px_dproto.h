/* daemon: the controller-daemon protocol (docs/PROTOCOL.md): tags, the hello, and
 * encode/decode of the messages implemented so far, on bfrops. Pure: no I/O, no
 * threads; every function touches only the buffers and structs it is given. Input is
 * untrusted: every count goes through px_bfrops_unpack_count before an allocation.
 */
#ifndef PX_DPROTO_H
#define PX_DPROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pmix_common.h>

/* The protocol's version, carried in the hello; a controller refuses another one. 2:
 * the hello carries the daemon's release after its id. */
#define PX_DP_VERSION 2
/* Bounds of what a hello may announce. */
#define PX_DP_NAME_MAX    255 /* node name and each alias, bytes */
#define PX_DP_ALIASES_MAX 64
#define PX_DP_SIG_MAX     1024 /* topology signature, bytes */
#define PX_DP_RELEASE_MAX 64   /* the release string, bytes */
/* Radix of the routing tree (xcast down, collectives up) unless set otherwise. */
#define PX_DP_RADIX_DEFAULT 64

/* Message tags (px_msg header). Values are fixed: new messages get new numbers. The
 * ones marked "specified" are written down in PROTOCOL.md and not implemented yet. */
enum {
    PX_DP_TOPO_ASK = 1,     /* ctl -> daemon, request: send your topology; reply PX_DP_TOPO */
    PX_DP_TOPO = 2,         /* daemon -> ctl, the reply: str signature, str XML */
    PX_DP_EXIT = 3,         /* ctl -> daemon: i32 reason; kill your processes and exit */
    PX_DP_XCAST = 4,        /* down the tree: a message for every daemon, relayed */
    PX_DP_LAUNCH = 5,       /* ctl -> daemon: one per job, the map (px_dp_launch_t) */
    PX_DP_PSTATE = 6,       /* daemon -> ctl: processes started / exited (px_dp_pstate_t) */
    PX_DP_SIGNAL = 7,       /* ctl -> daemon: nspace, rank, i32 signal */
    PX_DP_STDIN = 8,        /* ctl -> daemon, request: stdin bytes for one local process */
    PX_DP_IOF = 9,          /* daemon -> ctl: a local process's output */
    PX_DP_FENCE_UP = 10,    /* daemon -> ctl: a daemon's fence contribution */
    PX_DP_FENCE_REL = 11,   /* ctl -> daemon: the fence's release (allgathered data) */
    PX_DP_DMODEX_REQ = 12,  /* request, either way: a process's posted data */
    PX_DP_DMODEX_RESP = 13, /* its reply */
    PX_DP_EVENT = 14,       /* either way: an event beyond a node, by range */
    PX_DP_PSET = 15,        /* ctl -> daemon: define / delete a process set */
    PX_DP_JOB_CLEANUP = 16, /* ctl -> daemon: nspace; a job's end on every daemon */
    PX_DP_REPORT = 17,      /* daemon -> ctl: a rendered help message for the terminal */
    PX_DP_IOF_FLOW = 18,    /* ctl -> daemon: pause / resume reading a process's output */
    PX_DP_ABORT = 19,       /* daemon -> ctl: a local process called PMIx_Abort */
    PX_DP_JOBCTL = 20,      /* daemon -> ctl, request: a local process's PMIx_Job_control */
    PX_DP_PROC_SPAWN = 21,  /* daemon -> ctl, request: a local process's PMIx_Spawn */
    PX_DP_PUBSUB = 22,      /* daemon -> ctl, request: PMIx_Publish / Lookup / Unpublish */
    PX_DP_ADDR = 23,        /* ctl -> daemon, request: where is your tree listener */
    PX_DP_TREE = 24,        /* ctl -> daemon: the routing tree (radix, every address) */
    PX_DP_TREE_UP = 25,     /* daemon -> ctl: its children in the tree are connected */
    PX_DP_QUERY = 30,       /* daemon -> ctl, request: a local process's PMIx_Query_info */
    PX_DP_GROUP_UP = 40,    /* daemon -> ctl, request: a group / connect contribution */
    PX_DP_GROUP_REL = 41,   /* its reply: status and the collective's results */
    /* 50..59: the DVM's own management (issue 15: faults, tree spawn) */
    PX_DP_HEARTBEAT = 50, /* either way, no fields: the controller's ping, the daemon's echo */
    PX_DP_SPAWN = 51,     /* ctl -> daemon: start these children of the tree (px_dp_spawn_t) */
    PX_DP_CHILD_END = 52, /* daemon -> ctl: a child's agent or ssh session ended */
};

/* Reasons in PX_DP_EXIT. */
enum {
    PX_DP_EXIT_NORMAL = 0,  /* pterm / the DVM's end */
    PX_DP_EXIT_ABORTED = 1, /* the controller gives up on the DVM (a daemon failed) */
};

/* The hello (daemon -> controller, the handshake's payload after the DVM's secret). */
typedef struct {
    uint32_t version; /* PX_DP_VERSION */
    uint32_t id;      /* the daemon id the controller gave on the command line */
    char *release;    /* owned: the daemon's release (PMIX_RUNTIME_VERSION) */
    char *node;       /* owned: the node's name */
    char **aliases;   /* owned, NULL-terminated (may be NULL): other names of the node */
    size_t naliases;
    char *topo_sig; /* owned: the hwloc topology signature */
} px_dp_hello_t;

pmix_status_t px_dp_hello_pack(pmix_data_buffer_t *buf, const px_dp_hello_t *h);
/* Fills *h (owned by the caller then: px_dp_hello_free). Refuses (nothing allocated,
 * *h zeroed): a missing field, a count or name over the bounds above, an empty node
 * name, release or signature. Another protocol version: PMIX_ERR_NOT_SUPPORTED with
 * only h->version and h->id set (the first two fields keep their place in every
 * version; what follows is not read). */
pmix_status_t px_dp_hello_unpack(pmix_data_buffer_t *buf, px_dp_hello_t *h);
void px_dp_hello_free(px_dp_hello_t *h); /* accepts NULL; leaves *h zeroed */

/* PX_DP_TOPO: the signature and the topology as hwloc XML. */
pmix_status_t px_dp_topo_pack(pmix_data_buffer_t *buf, const char *sig, const char *xml);
pmix_status_t px_dp_topo_unpack(pmix_data_buffer_t *buf, char **sig, char **xml);

/* PX_DP_EXIT. */
pmix_status_t px_dp_exit_pack(pmix_data_buffer_t *buf, int32_t reason);
pmix_status_t px_dp_exit_unpack(pmix_data_buffer_t *buf, int32_t *reason);

/* ---- PX_DP_LAUNCH: one per job, the whole map; each daemon takes its part ---- */

/* Bounds of what a LAUNCH may announce (beyond the bytes it carries). */
#define PX_DP_NODES_MAX 65536
#define PX_DP_APPS_MAX  4096

/* Flags of a node, a process and the job in a LAUNCH. */
#define PX_DP_NODE_OVERSUB     0x1 /* more processes (of all jobs) than slots on the node */
#define PX_DP_PROC_BIND_LATER  0x1 /* bound by its node's daemon (bind_obj, pe) */
#define PX_DP_PROC_STOP_EXEC   0x2 /* stopped at its first instruction (PMIX_DEBUG_STOP_ON_EXEC) */
#define PX_DP_JOB_SPAWNED      0x1 /* requested by a process of another job (PMIX_SPAWNED) */
#define PX_DP_NODE_FLAGS_KNOWN PX_DP_NODE_OVERSUB
#define PX_DP_PROC_FLAGS_KNOWN (PX_DP_PROC_BIND_LATER | PX_DP_PROC_STOP_EXEC)
#define PX_DP_JOB_FLAGS_KNOWN  PX_DP_JOB_SPAWNED

/* What a daemon binds a PX_DP_PROC_BIND_LATER process to (with pe > 0: pe cores). */
enum {
    PX_DP_BIND_NONE = 0,
    PX_DP_BIND_CORE = 1,
    PX_DP_BIND_PACKAGE = 2,
    PX_DP_BIND_HWTHREAD = 3,
};
#define PX_DP_PE_MAX 4096

typedef struct {
    char *name;      /* owned: the node's name (1..PX_DP_NAME_MAX bytes) */
    uint32_t daemon; /* id of the daemon on it (the node's PMIX_NODEID) */
    uint8_t flags;   /* PX_DP_NODE_* */
} px_dp_lnode_t;

typedef struct {
    uint32_t node;       /* index into the launch's nodes (< nnodes) */
    uint16_t local_rank; /* among the job's processes on its node */
    uint16_t node_rank;  /* among all the DVM's live processes on its node */
    uint32_t app;        /* index into the apps (< napps) */
    uint8_t flags;       /* PX_DP_PROC_* */
    char *cpuset;        /* owned: "hwloc:<list>" binding, NULL = unbound or deferred */
} px_dp_lproc_t;

typedef struct {
    pmix_nspace_t nspace;
    px_dp_lnode_t *nodes; /* owned, nnodes */
    size_t nnodes;
    px_dp_lproc_t *procs; /* owned, nprocs, indexed by rank */
    size_t nprocs;
    uint8_t bind_obj; /* PX_DP_BIND_*: for PX_DP_PROC_BIND_LATER processes */
    uint16_t pe;      /* cores per process for those (0: one bind_obj) */
    uint8_t flags;    /* PX_DP_JOB_* */
    pmix_app_t *apps; /* owned, napps (PMIx_App_free) */
    size_t napps;
    pmix_info_t *info; /* owned, ninfo: the job's directives */
    size_t ninfo;
    pmix_info_t *reg; /* owned, nreg: job- and app-realm data every daemon registers */
    size_t nreg;
    pmix_info_t *setup; /* owned, nsetup: PMIx_server_setup_application's answer */
    size_t nsetup;
} px_dp_launch_t;

/* Wire: PROC_NSPACE; UINT32 nnodes, per node STRING name + UINT32 daemon + UINT8 flags;
 * UINT32 nprocs, per process UINT32 node, UINT16 local rank, UINT16 node rank, UINT32
 * app, UINT8 flags, STRING cpuset (NULL allowed); UINT8 bind object, UINT16 pe, UINT8
 * job flags; UINT32 napps then one APP item of napps; INFO arrays: directives,
 * registration data, setup data. Unknown flag bits, bind objects and pe > PX_DP_PE_MAX
 * are malformed. */
pmix_status_t px_dp_launch_pack(pmix_data_buffer_t *buf, const px_dp_launch_t *l);
/* Fills *l (the caller's then: px_dp_launch_free). Refuses, nothing left allocated and
 * *l zeroed: counts beyond the bytes or the bounds, an empty node name, a process whose
 * node or app index is out of range, an APP item whose count is not napps. */
pmix_status_t px_dp_launch_unpack(pmix_data_buffer_t *buf, px_dp_launch_t *l);
void px_dp_launch_free(px_dp_launch_t *l); /* accepts NULL; leaves *l zeroed */

/* ---- PX_DP_PSTATE: process states, daemon -> controller, batched per job ---- */

typedef enum {
    PX_DP_PS_STARTED = 1,   /* forked and exec'd: pid set (a PX_DP_PROC_STOP_EXEC process:
                             * and held stopped at its first instruction) */
    PX_DP_PS_EXITED = 2,    /* reaped: status is the wait status */
    PX_DP_PS_FAILED = 3,    /* could not start: status is the errno, stage where */
    PX_DP_PS_CONNECTED = 4, /* called PMIx_Init (its server's client_connected) */
    PX_DP_PS_FINALIZED = 5, /* called PMIx_Finalize */
    PX_DP_PS_STOPPED = 6,   /* stopped by a signal (SIGSTOP, SIGTSTP...; waitpid WUNTRACED) */
    PX_DP_PS_CONTINUED = 7, /* continued after a stop (SIGCONT; waitpid WCONTINUED) */
} px_dp_ps_t;

typedef struct {
    pmix_rank_t rank;
    uint8_t state;  /* px_dp_ps_t */
    pid_t pid;      /* 0 when it never started */
    int32_t status; /* EXITED: wait status; FAILED: errno; STARTED: 0 */
    char *stage;    /* owned, FAILED only ("fork", "exec", "chdir", ...), else NULL */
} px_dp_pstate_one_t;

typedef struct {
    pmix_nspace_t nspace;
    px_dp_pstate_one_t *procs; /* owned, n */
    size_t n;
} px_dp_pstate_t;

/* Wire: PROC_NSPACE; UINT32 n; n x (PROC_RANK, UINT8 state, PID, INT32 status, STRING
 * stage (NULL allowed)). Unpack refuses an unknown state and counts beyond the bytes. */
pmix_status_t px_dp_pstate_pack(pmix_data_buffer_t *buf, const px_dp_pstate_t *ps);
pmix_status_t px_dp_pstate_unpack(pmix_data_buffer_t *buf, px_dp_pstate_t *ps);
void px_dp_pstate_free(px_dp_pstate_t *ps); /* accepts NULL; leaves *ps zeroed */

/* ---- PX_DP_SIGNAL: PROC_NSPACE, PROC_RANK (WILDCARD = every local one), INT32 ---- */
pmix_status_t px_dp_signal_pack(pmix_data_buffer_t *buf, const pmix_proc_t *target, int32_t sig);
/* Refuses a signal outside 1..64. */
pmix_status_t px_dp_signal_unpack(pmix_data_buffer_t *buf, pmix_proc_t *target, int32_t *sig);

/* ---- PX_DP_JOB_CLEANUP: PROC_NSPACE ---- */
pmix_status_t px_dp_cleanup_pack(pmix_data_buffer_t *buf, const char *nspace);
pmix_status_t px_dp_cleanup_unpack(pmix_data_buffer_t *buf, pmix_nspace_t nspace);

/* ---- PX_DP_STDIN (request): PROC_NSPACE, PROC_RANK, BYTE_OBJECT (empty = close).
 * The reply (no fields) comes once the target's stdin queue is below the daemon's mark,
 * or the target is gone. ---- */
pmix_status_t px_dp_stdin_pack(pmix_data_buffer_t *buf, const pmix_proc_t *target, const void *data,
                               size_t len);
/* The ranks of a job whose stdin stays open, from its LAUNCH directives (the spawn's job
 * info): PMIX_STDIN_TGT and PMIX_FWD_STDIN (Tools chapter), each a rank or
 * PMIX_RANK_WILDCARD; both naming different ranks: every rank. PMIX_RANK_INVALID: none. */
pmix_rank_t px_dp_stdin_target(const pmix_info_t *info, size_t ninfo);

/* ---- PX_DP_IOF_FLOW: PROC_NSPACE, PROC_RANK, UINT8 pause (0 resume, 1 pause) ---- */
pmix_status_t px_dp_flow_pack(pmix_data_buffer_t *buf, const pmix_proc_t *target, bool pause);

/* ---- PX_DP_IOF: PROC_NSPACE, PROC_RANK, UINT16 channel (PMIX_FWD_STDOUT_CHANNEL or
 * PMIX_FWD_STDERR_CHANNEL), BYTE_OBJECT bytes (at least one). With data NULL only the
 * head is packed: the len bytes are sent right after it (px_peer_send_ext). ---- */
pmix_status_t px_dp_iof_pack(pmix_data_buffer_t *buf, const pmix_proc_t *src, uint16_t channel,
                             const void *data, size_t len);

/* ---- Fences. A daemon whose local participants are all in sends FENCE_UP: UINT32 n,
 * PROC item of n participants (n >= 1), UINT8 collect, BYTE_OBJECT its local data (the
 * server's blob). The controller answers every daemon involved with FENCE_REL: STRING
 * signature (px_dp_fence_sig of the participants), INT32 status, BYTE_OBJECT the
 * allgathered data (empty for a barrier or an error). ---- */
#define PX_DP_FENCE_PROCS_MAX (4u * 1024 * 1024)
pmix_status_t px_dp_fence_up_pack(pmix_data_buffer_t *buf, const pmix_proc_t *procs, size_t n,
                                  bool collect, const void *data, size_t len);
pmix_status_t px_dp_fence_rel_pack(pmix_data_buffer_t *buf, const char *sig, pmix_status_t status,
                                   const void *data, size_t len);
/* The canonical text of a participant list ("ns:rank;" sorted, "ns:*;" for a wildcard),
 * the same on every side for the same set. malloc'd; NULL on ENOMEM. procs is not
 * changed. */
char *px_dp_fence_sig(const pmix_proc_t *procs, size_t n);

/* ---- Direct modex. DMODEX_REQ (request): PROC target, INFO array (the asker's
 * directives). Reply DMODEX_RESP: INT32 status, BYTE_OBJECT the target's data (the
 * server's blob; empty on error). ---- */
pmix_status_t px_dp_dmodex_req_pack(pmix_data_buffer_t *buf, const pmix_proc_t *target,
                                    const pmix_info_t *info, size_t ninfo);
pmix_status_t px_dp_dmodex_resp_pack(pmix_data_buffer_t *buf, pmix_status_t status,
                                     const void *data, size_t len);
/* The reply's fields; bo->bytes points into buf (valid while buf is). */
pmix_status_t px_dp_dmodex_resp_unpack(pmix_data_buffer_t *buf, pmix_status_t *status,
                                       pmix_byte_object_t *bo);

/* ---- PX_DP_ABORT: PROC caller, INT32 status, STRING message (NULL allowed), UINT32 n,
 * PROC item of n (the processes to abort; none = the caller's namespace) ---- */
pmix_status_t px_dp_abort_pack(pmix_data_buffer_t *buf, const pmix_proc_t *caller, int32_t status,
                               const char *msg, const pmix_proc_t *procs, size_t n);

/* ---- PX_DP_JOBCTL (request): PROC requester, UINT32 n, PROC item of n targets, INFO
 * array directives. Reply: INT32 status, INFO array results. ---- */
pmix_status_t px_dp_jobctl_pack(pmix_data_buffer_t *buf, const pmix_proc_t *requester,
                                const pmix_proc_t *targets, size_t n, const pmix_info_t *info,
                                size_t ninfo);
pmix_status_t px_dp_status_info_pack(pmix_data_buffer_t *buf, pmix_status_t status,
                                     const pmix_info_t *info, size_t ninfo);
/* *info owned by the caller then (px_bfrops_info_array_free). */
pmix_status_t px_dp_status_info_unpack(pmix_data_buffer_t *buf, pmix_status_t *status,
                                       pmix_info_t **info, size_t *ninfo);

/* ---- PX_DP_QUERY (request): PROC requester, UINT32 n (1..PX_DP_QUERIES_MAX), then n x
 * (UINT32 k (1..PX_DP_QUERY_KEYS_MAX), k x STRING key (1..PMIX_MAX_KEYLEN bytes), INFO
 * array qualifiers). Reply: INT32 status, INFO array results (px_dp_status_info_*). The
 * controller answers as for a query of its own server's processes, the requester's
 * node being the asking daemon's. ---- */
#define PX_DP_QUERIES_MAX    1024
#define PX_DP_QUERY_KEYS_MAX 1024
pmix_status_t px_dp_query_pack(pmix_data_buffer_t *buf, const pmix_proc_t *requester,
                               const pmix_query_t *queries, size_t n);
/* Frees what the decoder made (queries, n); accepts NULL. */
void px_dp_queries_free(pmix_query_t *queries, size_t n);

/* ---- PX_DP_EVENT: INT32 code, PROC source, UINT8 range, INFO array. A daemon sends up
 * what its server's notify_event upcall gives it; the controller delivers it to its own
 * server and relays it to every other daemon, whose servers deliver it locally. ---- */
pmix_status_t px_dp_event_pack(pmix_data_buffer_t *buf, pmix_status_t code,
                               const pmix_proc_t *source, pmix_data_range_t range,
                               const pmix_info_t *info, size_t ninfo);

/* ---- Tree spawn. PX_DP_SPAWN: STRING agent (NULL: the built-in ssh client), UINT32 n
 * (1..PX_DP_NODES_MAX), n x (UINT32 id, STRING host (1..PX_DP_NAME_MAX bytes), STRING
 * command (1..PX_DP_CMD_MAX bytes): the shell command for ssh, or the words after the
 * host for the agent). PX_DP_CHILD_END: UINT32 id, INT32 status (the remote command's
 * exit status, the agent's, or -1 when the session failed), STRING why (NULL allowed).
 * ---- */
#define PX_DP_CMD_MAX 65536
typedef struct {
    uint32_t id; /* the child's daemon id */
    char *host;  /* owned */
    char *cmd;   /* owned */
} px_dp_child_t;

typedef struct {
    char *agent;             /* owned, NULL: the built-in ssh client */
    px_dp_child_t *children; /* owned, n */
    size_t n;
} px_dp_spawn_t;

pmix_status_t px_dp_spawn_pack(pmix_data_buffer_t *buf, const px_dp_spawn_t *sp);
/* Fills *sp (the caller's then: px_dp_spawn_free); nothing held on error. */
pmix_status_t px_dp_spawn_unpack(pmix_data_buffer_t *buf, px_dp_spawn_t *sp);
void px_dp_spawn_free(px_dp_spawn_t *sp); /* accepts NULL; leaves *sp zeroed */
pmix_status_t px_dp_child_end_pack(pmix_data_buffer_t *buf, uint32_t id, int32_t status,
                                   const char *why);
/* *why malloc'd (NULL when none was sent); nothing held on error; trailing bytes refused. */
pmix_status_t px_dp_child_end_unpack(pmix_data_buffer_t *buf, uint32_t *id, int32_t *status,
                                     char **why);

/* ---- Groups, connect and disconnect (dproto_grp.c). GROUP_UP (request): UINT8 kind
 * (PX_DP_GRP_*), STRING key (the group id; for connect/disconnect the participants'
 * signature, px_dp_fence_sig), UINT32 n then a PROC item of n (the membership as the
 * daemon's server knows it; may be none), INFO array (the upcall's directives). Its reply
 * GROUP_REL is px_dp_status_info_pack's: INT32 status, INFO array results. ---- */
enum {
    PX_DP_GRP_CONSTRUCT = 0,
    PX_DP_GRP_DESTRUCT = 1,
    PX_DP_GRP_CONNECT = 2,
    PX_DP_GRP_DISCONNECT = 3,
};
#define PX_DP_KEY_MAX (64u * 1024 * 1024) /* a key's bytes (a signature of many procs) */
/* The key of a connect or disconnect: its participants' signature (px_dp_fence_sig),
 * the same on every server. malloc'd; NULL with *rc PMIX_ERR_BAD_PARAM (no participants)
 * or PMIX_ERR_NOMEM. */
char *px_dp_connect_key(const pmix_proc_t *procs, size_t n, pmix_status_t *rc);
pmix_status_t px_dp_group_up_pack(pmix_data_buffer_t *buf, uint8_t kind, const char *key,
                                  const pmix_proc_t *procs, size_t n, const pmix_info_t *info,
                                  size_t ninfo);

/* ---- PX_DP_PSET (controller -> every daemon): UINT8 define (1) or delete (0), STRING
 * name (1..PX_DP_PSET_NAME_MAX bytes), UINT32 n then a PROC item of n members (none for a
 * delete). ---- */
#define PX_DP_PSET_NAME_MAX 4096
pmix_status_t px_dp_pset_pack(pmix_data_buffer_t *buf, bool define, const char *name,
                              const pmix_proc_t *members, size_t n);

/* ---- PX_DP_REPORT (daemon -> controller): STRING help file, STRING topic (each
 * 1..PX_DP_NAME_MAX bytes), STRING the rendered text (1..PX_DP_REPORT_MAX bytes). ---- */
#define PX_DP_REPORT_MAX (64u * 1024)
pmix_status_t px_dp_report_pack(pmix_data_buffer_t *buf, const char *file, const char *topic,
                                const char *text);

/* ---- PX_DP_PROC_SPAWN (request, daemon -> controller): PROC requester, INFO array job info,
 * UINT32 napps (1..PX_DP_APPS_MAX) then one APP item of napps. The reply (same tag):
 * INT32 status, STRING the new job's namespace (NULL when it did not start). ---- */
pmix_status_t px_dp_proc_spawn_pack(pmix_data_buffer_t *buf, const pmix_proc_t *requester,
                                    const pmix_info_t *info, size_t ninfo, const pmix_app_t *apps,
                                    size_t napps);
pmix_status_t px_dp_proc_spawn_reply_pack(pmix_data_buffer_t *buf, pmix_status_t status,
                                          const char *nspace);
/* *nspace malloc'd (NULL when none was sent); nothing held on error. */
pmix_status_t px_dp_proc_spawn_reply_unpack(pmix_data_buffer_t *buf, pmix_status_t *status,
                                            char **nspace);

/* ---- PX_DP_PUBSUB (request, daemon -> controller): UINT8 kind (PX_DP_PS_*), PROC the
 * caller, UINT32 nkeys (at most PX_DP_KEYS_MAX; at least one for a lookup, none for a
 * publish, none = all for an unpublish) then nkeys STRING
 * keys (each 1..PMIX_MAX_KEYLEN bytes), INFO array (the upcall's info: directives and,
 * for a publish, the data). The reply (same tag): INT32 status, UINT32 n then one PDATA
 * item of n (a lookup's answers; none otherwise). ---- */
enum { PX_DP_PS_PUBLISH = 0, PX_DP_PS_LOOKUP = 1, PX_DP_PS_UNPUBLISH = 2 };
#define PX_DP_KEYS_MAX 4096
pmix_status_t px_dp_pubsub_pack(pmix_data_buffer_t *buf, uint8_t kind, const pmix_proc_t *caller,
                                char *const *keys, const pmix_info_t *info, size_t ninfo);
pmix_status_t px_dp_pubsub_reply_pack(pmix_data_buffer_t *buf, pmix_status_t status,
                                      const pmix_pdata_t *data, size_t n);
/* *data PMIx_Pdata_create'd (the caller's: PMIx_Pdata_free), NULL when n is 0; nothing
 * held on error. */
pmix_status_t px_dp_pubsub_reply_unpack(pmix_data_buffer_t *buf, pmix_status_t *status,
                                        pmix_pdata_t **data, size_t *n);

/* ---- The routing tree (dproto_tree.c). ADDR (controller -> daemon, request; no fields),
 * its reply: STRING "a.b.c.d:port" (1..PX_DP_NAME_MAX bytes) of the daemon's tree listener
 * (px_dp_addr_pack; the controller's decoder takes it as an ADDR message). TREE (controller ->
 * every daemon): UINT32 radix (1..PX_DP_RADIX_MAX), UINT32 n (the daemons, 1..PX_DP_NODES_MAX),
 * then n STRING addresses (each NULL or 1..PX_DP_NAME_MAX bytes: NULL for daemon 0, whose children
 * use their controller connection). TREE_UP (daemon -> controller): no fields. XCAST (down the
 * tree): UINT32 inner tag, BYTE_OBJECT the inner message's payload. A child's hello on its parent's
 * listener (the handshake's payload after the secret): UINT32 PX_DP_VERSION, UINT32 its id. ---- */
#define PX_DP_RADIX_MAX 4096
typedef struct {
    uint32_t radix;
    uint32_t n;
    char **addrs; /* owned, n entries (NULL allowed) */
} px_dp_tree_t;
pmix_status_t px_dp_addr_pack(pmix_data_buffer_t *buf, const char *addr);
pmix_status_t px_dp_tree_pack(pmix_data_buffer_t *buf, const px_dp_tree_t *t);
void px_dp_tree_free(px_dp_tree_t *t); /* accepts NULL; leaves *t zeroed */
pmix_status_t px_dp_xcast_pack(pmix_data_buffer_t *buf, uint32_t tag,
                               const pmix_data_buffer_t *inner);
pmix_status_t px_dp_child_hello_pack(pmix_data_buffer_t *buf, uint32_t id);
/* Refuses another version and an id of 0 (the controller's). */
pmix_status_t px_dp_child_hello_unpack(pmix_data_buffer_t *buf, uint32_t *id);

/* A controller -> daemon message as the daemon decodes it (tag and contents). */
typedef struct {
    uint32_t tag;
    int32_t reason;          /* PX_DP_EXIT */
    px_dp_launch_t launch;   /* PX_DP_LAUNCH (owned: px_dp_ctl_msg_free) */
    pmix_proc_t target;      /* SIGNAL, STDIN, IOF_FLOW, DMODEX_REQ: whom; JOB_CLEANUP:
                                nspace, WILDCARD */
    int32_t signal;          /* PX_DP_SIGNAL */
    pmix_byte_object_t data; /* STDIN bytes, FENCE_REL data: views into the payload */
    bool pause;              /* PX_DP_IOF_FLOW */
    char *sig;               /* PX_DP_FENCE_REL: owned */
    pmix_status_t status;    /* PX_DP_FENCE_REL; PX_DP_EVENT: its code */
    pmix_proc_t source;      /* PX_DP_EVENT */
    uint8_t range;           /* PX_DP_EVENT */
    pmix_info_t *info;       /* DMODEX_REQ, EVENT: owned, ninfo */
    size_t ninfo;
    px_dp_spawn_t spawn; /* PX_DP_SPAWN (owned) */
    bool define;         /* PX_DP_PSET: define (true) or delete */
    char *name;          /* PX_DP_PSET: owned */
    pmix_proc_t *procs;  /* PX_DP_PSET: owned, nprocs members */
    size_t nprocs;
    px_dp_tree_t tree; /* PX_DP_TREE (owned) */
    uint32_t inner;    /* PX_DP_XCAST: the inner tag; data is its payload (a view) */
} px_dp_ctl_msg_t;

/* The daemon's decoder of everything the controller sends: a known tag with a
 * well-formed payload (and nothing after it) gives PMIX_SUCCESS (*m then owns what it
 * decoded: px_dp_ctl_msg_free); an unknown or not-yet-implemented tag
 * PMIX_ERR_NOT_SUPPORTED; a malformed payload the unpack error (nothing held).
 * This is the fuzz target's entry (test/fuzz/fuzz_dproto.c). */
pmix_status_t px_dp_ctl_decode(uint32_t tag, pmix_data_buffer_t *payload, px_dp_ctl_msg_t *m);
void px_dp_ctl_msg_free(px_dp_ctl_msg_t *m); /* accepts NULL */

/* A daemon -> controller message as the controller decodes it. */
typedef struct {
    uint32_t tag;
    px_dp_pstate_t pstate;   /* PX_DP_PSTATE (owned) */
    pmix_proc_t proc;        /* IOF, EVENT: source; DMODEX_REQ: target; ABORT: caller;
                                JOBCTL: requester */
    uint16_t channel;        /* PX_DP_IOF */
    pmix_byte_object_t data; /* IOF bytes, FENCE_UP data: views into the payload */
    pmix_proc_t *procs;      /* owned, nprocs: FENCE_UP participants, ABORT / JOBCTL targets */
    size_t nprocs;
    bool collect;      /* PX_DP_FENCE_UP */
    int32_t status;    /* PX_DP_ABORT; PX_DP_EVENT: its code */
    uint8_t range;     /* PX_DP_EVENT */
    char *msg;         /* PX_DP_ABORT: owned, may be NULL */
    pmix_info_t *info; /* DMODEX_REQ, JOBCTL, EVENT, GROUP_UP, PROC_SPAWN: owned, ninfo */
    size_t ninfo;
    pmix_query_t *queries; /* PX_DP_QUERY: owned, nqueries (requester in proc) */
    size_t nqueries;
    uint8_t kind;     /* PX_DP_GROUP_UP: PX_DP_GRP_* */
    char *key;        /* PX_DP_GROUP_UP: owned, the group id or participants' signature */
    char *file;       /* PX_DP_REPORT: owned, the help file */
    char *topic;      /* PX_DP_REPORT: owned */
    char *text;       /* PX_DP_REPORT: owned, the rendered message */
    pmix_app_t *apps; /* PX_DP_PROC_SPAWN: owned, napps (PMIx_App_free) */
    size_t napps;
    char **keys; /* PX_DP_PUBSUB: owned, NULL-terminated (NULL for a publish) */
    char *addr;  /* PX_DP_ADDR: owned */
} px_dp_dmn_msg_t;

/* The controller's decoder of what daemons send (PSTATE, IOF, FENCE_UP, DMODEX_REQ,
 * ABORT, JOBCTL, EVENT, QUERY, PROC_SPAWN, GROUP_UP, REPORT, PUBSUB, ADDR, TREE_UP, and
 * FENCE_UP from a child daemon), with the same contract as px_dp_ctl_decode. A view in *m
 * points into payload: use it before payload goes. Fuzzed with px_dp_ctl_decode. */
pmix_status_t px_dp_dmn_decode(uint32_t tag, pmix_data_buffer_t *payload, px_dp_dmn_msg_t *m);
void px_dp_dmn_msg_free(px_dp_dmn_msg_t *m); /* accepts NULL */

/* The routing tree over daemons 0..n-1 rooted at 0 with the given radix (>= 1): the
 * parent of id (none for 0: returns UINT32_MAX) and its children, the ids
 * radix*id+1 .. radix*id+radix below n. px_dp_tree_children stores at most max of
 * them in out and returns how many id has. */
uint32_t px_dp_tree_parent(uint32_t radix, uint32_t id);
size_t px_dp_tree_children(uint32_t radix, uint32_t id, uint32_t n, uint32_t *out, size_t max);

#endif /* PX_DPROTO_H */
