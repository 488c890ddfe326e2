/* store: what a process knows about namespaces, shared by the server and the client.
 * A namespace record holds the job, application, node and process realms registered
 * by the host (plus what can be derived from the maps), and the data processes posted
 * with PMIx_Put/Commit split by visibility. Not thread-safe by itself: the owner (server
 * or client) holds its lock around every call.
 */
#ifndef PX_STORE_H
#define PX_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

/* ---- kvset: an array of pmix_info_t, one entry per key (last put wins) ---- */

typedef struct px_kvset {
    pmix_info_t *kv; /* owned */
    size_t n;
    size_t cap;
} px_kvset_t;

void px_kvset_init(px_kvset_t *s);
void px_kvset_fini(px_kvset_t *s);
/* Copy val in under key, replacing an earlier value. PMIX_SUCCESS / PMIX_ERR_NOMEM. */
pmix_status_t px_kvset_put(px_kvset_t *s, const char *key, const pmix_value_t *val);
/* Borrowed pointer into the set, or NULL. */
const pmix_value_t *px_kvset_get(const px_kvset_t *s, const char *key);
/* Put every entry of src (or of info[0..n)). */
pmix_status_t px_kvset_merge(px_kvset_t *dst, const px_kvset_t *src);
pmix_status_t px_kvset_put_infos(px_kvset_t *dst, const pmix_info_t *info, size_t n);

/* ---- a namespace ---- */

typedef struct px_ns_rank {
    px_kvset_t info;   /* process realm: registered or derived */
    px_kvset_t local;  /* posted data visible to processes on the rank's node */
    px_kvset_t remote; /* posted data visible to processes on other nodes */
    bool have_local;   /* local holds a commit (server) / a fetched copy (client) */
    bool have_remote;  /* remote holds the rank's remote-visible data */
    int32_t node;      /* index into nodes[], -1 unknown */
    void *ext;         /* borrowed: the owner's per-rank record (the server's client) */
} px_ns_rank_t;

typedef struct px_ns_node {
    char *hostname; /* owned */
    uint32_t nodeid;
    px_kvset_t info;    /* node realm */
    pmix_rank_t *ranks; /* owned: this job's ranks on the node, ascending */
    size_t nranks;
} px_ns_node_t;

typedef struct px_ns_app {
    uint32_t appnum;
    px_kvset_t info; /* application realm */
} px_ns_app_t;

typedef struct px_nspace {
    char name[PMIX_MAX_NSLEN + 1];
    px_kvset_t job;    /* job (and session) realm */
    px_ns_app_t *apps; /* owned */
    size_t napps;
    px_ns_node_t *nodes; /* owned */
    size_t nnodes;
    px_ns_rank_t *ranks; /* owned, indexed by rank */
    size_t nranks;
    int32_t my_node;     /* index of the owner's node in nodes[], -1 if none */
    int nlocal_expected; /* the host's nlocalprocs (server side), -1 unknown */
    bool complete;       /* registration data present (client: downloaded) */
    void *ext;           /* borrowed: the owner's per-namespace extension */
    struct px_nspace *next;
} px_nspace_t;

typedef struct px_store {
    px_nspace_t *nspaces; /* owned list */
    char *my_hostname;    /* owned: the node the owner runs on */
} px_store_t;

void px_store_init(px_store_t *st, const char *my_hostname);
void px_store_fini(px_store_t *st);
px_nspace_t *px_store_find(px_store_t *st, const char *nspace);
/* Find or add an (empty) namespace; NULL on ENOMEM. */
px_nspace_t *px_store_add(px_store_t *st, const char *nspace);
void px_store_remove(px_store_t *st, const char *nspace);

/* The rank's record, growing ranks[] as needed; NULL for a wildcard/invalid rank. */
px_ns_rank_t *px_ns_rank(px_nspace_t *ns, pmix_rank_t rank);
/* Is the rank on the owner's node? */
bool px_ns_rank_is_local(const px_nspace_t *ns, pmix_rank_t rank);
px_ns_node_t *px_ns_node_by_name(px_nspace_t *ns, const char *hostname);
px_ns_node_t *px_ns_node_by_id(px_nspace_t *ns, uint32_t nodeid);
px_ns_app_t *px_ns_app(px_nspace_t *ns, uint32_t appnum, bool create);

/* Load a PMIx_server_register_nspace info array: job keys, PMIX_APP_INFO_ARRAY,
 * PMIX_NODE_INFO_ARRAY, PMIX_PROC_INFO_ARRAY, PMIX_SESSION_INFO_ARRAY (job realm), then
 * derive what the maps give (hostnames, node ids, local/node ranks, local peers and
 * sizes, counts). Explicit values always win over derived ones. */
pmix_status_t px_ns_register(px_store_t *st, px_nspace_t *ns, const pmix_info_t *info,
                             size_t ninfo);

/* Realm qualifiers of a PMIx_Get. */
typedef struct px_getq {
    bool app;  /* PMIX_APP_INFO */
    bool node; /* PMIX_NODE_INFO */
    bool have_appnum;
    uint32_t appnum;
    const char *hostname; /* borrowed */
    bool have_nodeid;
    uint32_t nodeid;
    /* the caller's own rank when it belongs to the namespace asked about: a wildcard
     * lookup without PMIX_APPNUM then reads the caller's application realm (not set by
     * px_getq_parse; the caller fills it in) */
    bool have_self;
    pmix_rank_t self;
} px_getq_t;

/* Parse realm qualifiers from PMIx_Get's info. */
void px_getq_parse(px_getq_t *q, const pmix_info_t *info, size_t ninfo);

/* Look key up for rank (or PMIX_RANK_WILDCARD) as seen from the owner's node: the
 * realm the qualifiers name, else the process realm, its posted data, then its node,
 * application and job realms. The application of a wildcard lookup is the one
 * PMIX_APPNUM names, else q->self's, else the only one. Borrowed result or NULL. */
const pmix_value_t *px_ns_lookup(px_nspace_t *ns, pmix_rank_t rank, const char *key,
                                 const px_getq_t *q);

/* Recompute my_node from the store's hostname. */
void px_ns_locate(px_store_t *st, px_nspace_t *ns);

/* Registration transfer (server -> client at connect): every realm of ns. */
pmix_status_t px_ns_pack(pmix_data_buffer_t *buf, px_nspace_t *ns);
pmix_status_t px_ns_unpack(pmix_data_buffer_t *buf, px_nspace_t *ns);

/* Posted-data blobs: a sequence of (pmix_proc_t, info array) entries, concatenable.
 * Pack one rank's set. */
pmix_status_t px_blob_pack(pmix_data_buffer_t *buf, const char *nspace, pmix_rank_t rank,
                           const px_kvset_t *set);
/* Next entry of a blob: PMIX_SUCCESS with *info owned by the caller (free with
 * px_bfrops_info_array_free), PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER at the end, or an
 * unpack error. */
pmix_status_t px_blob_next(pmix_data_buffer_t *buf, pmix_proc_t *proc, pmix_info_t **info,
                           size_t *ninfo);

/* Derived values use the attribute table's type for key. */
pmix_status_t px_kvset_put_num(px_kvset_t *s, const char *key, uint64_t v, bool only_if_absent);
pmix_status_t px_kvset_put_str(px_kvset_t *s, const char *key, const char *v, bool only_if_absent);

#endif /* PX_STORE_H */
