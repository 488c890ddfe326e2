/* daemon: the controller-daemon protocol (docs/PROTOCOL.md): tags, the hello, and
 * encode/decode of the messages implemented so far, on bfrops. Pure: no I/O, no
 * threads; every function touches only the buffers and structs it is given. Input is
 * untrusted: every count goes through px_bfrops_unpack_count before an allocation.
 */
#ifndef PX_DPROTO_H
#define PX_DPROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pmix_common.h>

/* The protocol's version, carried in the hello; a controller refuses another one. */
#define PX_DP_VERSION 1
/* Bounds of what a hello may announce. */
#define PX_DP_NAME_MAX    255 /* node name and each alias, bytes */
#define PX_DP_ALIASES_MAX 64
#define PX_DP_SIG_MAX     1024 /* topology signature, bytes */
/* Radix of the routing tree (xcast down, collectives up) unless set otherwise. */
#define PX_DP_RADIX_DEFAULT 64

/* Message tags (px_msg header). Values are fixed: new messages get new numbers. The
 * ones marked "specified" are written down in PROTOCOL.md and not implemented yet. */
enum {
    PX_DP_TOPO_ASK = 1,    /* ctl -> daemon, request: send your topology; reply PX_DP_TOPO */
    PX_DP_TOPO = 2,        /* daemon -> ctl, the reply: str signature, str XML */
    PX_DP_EXIT = 3,        /* ctl -> daemon: i32 reason; kill your processes and exit */
    PX_DP_XCAST = 4,       /* specified: envelope relayed down the tree */
    PX_DP_LAUNCH = 5,      /* ctl -> daemon: one per job, the map (px_dp_launch_t) */
    PX_DP_PSTATE = 6,      /* daemon -> ctl: processes started / exited (px_dp_pstate_t) */
    PX_DP_SIGNAL = 7,      /* ctl -> daemon: nspace, rank, i32 signal */
    PX_DP_STDIN = 8,       /* specified: stdin bytes for local processes */
    PX_DP_IOF = 9,         /* specified: output on its way to the tools */
    PX_DP_FENCE_UP = 10,   /* specified: a subtree's fence contribution */
    PX_DP_FENCE_REL = 11,  /* specified: the fence's release (allgathered data) */
    PX_DP_DMODEX_REQ = 12, /* specified: direct modex request to the peer's daemon */
    PX_DP_DMODEX_RESP = 13,
    PX_DP_EVENT = 14,       /* specified: an event routed by range */
    PX_DP_PSET = 15,        /* specified: define / delete a pset */
    PX_DP_JOB_CLEANUP = 16, /* ctl -> daemon: nspace; a job's end on every daemon */
    PX_DP_REPORT = 17,      /* specified: a rendered help message for the controller */
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
    char *node;       /* owned: the node's name */
    char **aliases;   /* owned, NULL-terminated (may be NULL): other names of the node */
    size_t naliases;
    char *topo_sig; /* owned: the hwloc topology signature */
} px_dp_hello_t;

pmix_status_t px_dp_hello_pack(pmix_data_buffer_t *buf, const px_dp_hello_t *h);
/* Fills *h (owned by the caller then: px_dp_hello_free). Refuses (nothing allocated,
 * *h zeroed): a missing field, a count or name over the bounds above, an empty node
 * name or signature. */
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

typedef struct {
    char *name;      /* owned: the node's name (1..PX_DP_NAME_MAX bytes) */
    uint32_t daemon; /* id of the daemon on it */
} px_dp_lnode_t;

typedef struct {
    uint32_t node;       /* index into the launch's nodes (< nnodes) */
    uint16_t local_rank; /* among the job's processes on its node */
    uint16_t node_rank;  /* among all the DVM's processes on its node */
    uint32_t app;        /* index into the apps (< napps) */
    char *cpuset;        /* owned: "hwloc:<list>" binding, NULL = unbound or deferred */
} px_dp_lproc_t;

typedef struct {
    pmix_nspace_t nspace;
    px_dp_lnode_t *nodes; /* owned, nnodes */
    size_t nnodes;
    px_dp_lproc_t *procs; /* owned, nprocs, indexed by rank */
    size_t nprocs;
    pmix_app_t *apps; /* owned, napps (PMIx_App_free) */
    size_t napps;
    pmix_info_t *info; /* owned, ninfo: the job's directives */
    size_t ninfo;
} px_dp_launch_t;

/* Wire: PROC_NSPACE; UINT32 nnodes, per node STRING name + UINT32 daemon; UINT32 nprocs,
 * per process UINT32 node, UINT16 local rank, UINT16 node rank, UINT32 app, STRING cpuset
 * (NULL allowed); UINT32 napps then one APP item of napps; INFO array. */
pmix_status_t px_dp_launch_pack(pmix_data_buffer_t *buf, const px_dp_launch_t *l);
/* Fills *l (the caller's then: px_dp_launch_free). Refuses, nothing left allocated and
 * *l zeroed: counts beyond the bytes or the bounds, an empty node name, a process whose
 * node or app index is out of range, an APP item whose count is not napps. */
pmix_status_t px_dp_launch_unpack(pmix_data_buffer_t *buf, px_dp_launch_t *l);
void px_dp_launch_free(px_dp_launch_t *l); /* accepts NULL; leaves *l zeroed */

/* ---- PX_DP_PSTATE: process states, daemon -> controller, batched per job ---- */

typedef enum {
    PX_DP_PS_STARTED = 1, /* forked and exec'd: pid set */
    PX_DP_PS_EXITED = 2,  /* reaped: status is the wait status */
    PX_DP_PS_FAILED = 3,  /* could not start: status is the errno, stage where */
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

/* A controller -> daemon message as the daemon decodes it (tag and contents). */
typedef struct {
    uint32_t tag;
    int32_t reason;        /* PX_DP_EXIT */
    px_dp_launch_t launch; /* PX_DP_LAUNCH (owned: px_dp_ctl_msg_free) */
    pmix_proc_t target;    /* PX_DP_SIGNAL: whom; PX_DP_JOB_CLEANUP: nspace, WILDCARD */
    int32_t signal;        /* PX_DP_SIGNAL */
} px_dp_ctl_msg_t;

/* The daemon's decoder of everything the controller sends: a known tag with a
 * well-formed payload (and nothing after it) gives PMIX_SUCCESS (*m then owns what it
 * decoded: px_dp_ctl_msg_free); an unknown or not-yet-implemented tag
 * PMIX_ERR_NOT_SUPPORTED; a malformed payload the unpack error (nothing held).
 * This is the fuzz target's entry (test/fuzz/fuzz_dproto.c). */
pmix_status_t px_dp_ctl_decode(uint32_t tag, pmix_data_buffer_t *payload, px_dp_ctl_msg_t *m);
void px_dp_ctl_msg_free(px_dp_ctl_msg_t *m); /* accepts NULL */

/* The routing tree over daemons 0..n-1 rooted at 0 with the given radix (>= 1): the
 * parent of id (none for 0: returns UINT32_MAX) and its children, the ids
 * radix*id+1 .. radix*id+radix below n. px_dp_tree_children stores at most max of
 * them in out and returns how many id has. */
uint32_t px_dp_tree_parent(uint32_t radix, uint32_t id);
size_t px_dp_tree_children(uint32_t radix, uint32_t id, uint32_t n, uint32_t *out, size_t max);

#endif /* PX_DPROTO_H */
