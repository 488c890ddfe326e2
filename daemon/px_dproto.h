/* daemon: the controller-daemon protocol (docs/PROTOCOL.md): tags, the hello, and
 * encode/decode of the messages implemented so far, on bfrops. Pure: no I/O, no
 * threads; every function touches only the buffers and structs it is given. Input is
 * untrusted: every count goes through px_bfrops_unpack_count before an allocation.
 */
#ifndef PX_DPROTO_H
#define PX_DPROTO_H

#include <stddef.h>
#include <stdint.h>

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
    PX_DP_LAUNCH = 5,      /* specified: one per job, the map */
    PX_DP_PSTATE = 6,      /* specified: process started / exited */
    PX_DP_SIGNAL = 7,      /* specified: signal / kill processes */
    PX_DP_STDIN = 8,       /* specified: stdin bytes for local processes */
    PX_DP_IOF = 9,         /* specified: output on its way to the tools */
    PX_DP_FENCE_UP = 10,   /* specified: a subtree's fence contribution */
    PX_DP_FENCE_REL = 11,  /* specified: the fence's release (allgathered data) */
    PX_DP_DMODEX_REQ = 12, /* specified: direct modex request to the peer's daemon */
    PX_DP_DMODEX_RESP = 13,
    PX_DP_EVENT = 14,       /* specified: an event routed by range */
    PX_DP_PSET = 15,        /* specified: define / delete a pset */
    PX_DP_JOB_CLEANUP = 16, /* specified: a job's end on every daemon */
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

/* A controller -> daemon message as the daemon decodes it (tag and contents). */
typedef struct {
    uint32_t tag;
    int32_t reason; /* PX_DP_EXIT */
} px_dp_ctl_msg_t;

/* The daemon's decoder of everything the controller sends: a known tag with a
 * well-formed payload (and nothing after it) gives PMIX_SUCCESS; an unknown or
 * not-yet-implemented tag PMIX_ERR_NOT_SUPPORTED; a malformed payload the unpack error.
 * This is the fuzz target's entry (test/fuzz/fuzz_dproto.c). */
pmix_status_t px_dp_ctl_decode(uint32_t tag, pmix_data_buffer_t *payload, px_dp_ctl_msg_t *m);

/* The routing tree over daemons 0..n-1 rooted at 0 with the given radix (>= 1): the
 * parent of id (none for 0: returns UINT32_MAX) and its children, the ids
 * radix*id+1 .. radix*id+radix below n. px_dp_tree_children stores at most max of
 * them in out and returns how many id has. */
uint32_t px_dp_tree_parent(uint32_t radix, uint32_t id);
size_t px_dp_tree_children(uint32_t radix, uint32_t id, uint32_t n, uint32_t *out, size_t max);

#endif /* PX_DPROTO_H */
