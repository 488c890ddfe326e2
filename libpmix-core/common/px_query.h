/* common: the pieces of PMIx_Query_info shared by the client (client/client_query.c) and
 * the server (server/server_query.c): which keys the library answers, per-query answer
 * lists, the flat result form, the wire form of answers, the rendezvous-file scan
 * behind PMIX_QUERY_AVAIL_SERVERS and the library's own attribute table. Plain code,
 * callable from any thread (no state of its own).
 */
#ifndef PX_QUERY_H
#define PX_QUERY_H

#include <stdbool.h>

#include <pmix.h>

/* The answers found so far for one query: key/value pairs (owned), in any order. */
typedef struct px_qans {
    pmix_info_t *kv;
    size_t n;
} px_qans_t;

/* Append a copy of (key, val) / of info. PMIX_SUCCESS or PMIX_ERR_NOMEM. */
pmix_status_t px_qans_add(px_qans_t *a, const char *key, const pmix_value_t *val);
pmix_status_t px_qans_add_info(px_qans_t *a, const pmix_info_t *info);
/* Append (key, val) taking val's contents (val is left PMIX_UNDEF). */
pmix_status_t px_qans_take(px_qans_t *a, const char *key, pmix_value_t *val);
/* Free n lists and the array itself; accepts NULL. */
void px_qans_free(px_qans_t *a, size_t n);

/* Keys answered in the calling process, connected or not (PMIX_QUERY_AVAIL_SERVERS). */
bool px_query_key_local(const char *key);
/* Keys the server library answers from its own state (psets, namespaces, attribute
 * support, its URI); every other key goes to the host's query upcall. */
bool px_query_key_library(const char *key);
/* The query asks for attribute support (PMIX_QUERY_ATTRIBUTE_SUPPORT is keys[0]). Such a
 * query is one unit: the other keys are function names, not keys to answer. */
bool px_query_is_attr_support(const pmix_query_t *q);
/* PMIX_QUERY_REFRESH_CACHE is among q's qualifiers (and true). */
bool px_query_refresh(const pmix_query_t *q);
/* Qualifiers that make "the local server" ambiguous (anything but the cache directives). */
bool px_query_has_target(const pmix_query_t *q);

/* Deep copy of n queries (NULL + nomem on failure); free with PMIx_Query_free. */
pmix_query_t *px_query_dup(const pmix_query_t *q, size_t n);
/* Validate caller input: PMIX_SUCCESS or PMIX_ERR_BAD_PARAM. */
pmix_status_t px_query_check(const pmix_query_t *q, size_t n);

/* The result list for n queries from their answers, in the flat form programs read (the
 * form OpenPMIx answers in, which debuggers, tools and its examples count and index by
 * key): one info per key found, whose key is the query key, in the order of the queries and
 * of each query's keys; a key asked twice gets two entries. Qualifiers are not echoed. An
 * attribute-support query gives one PMIX_QUERY_ATTRIBUTE_SUPPORT info holding its answers
 * (a data array of infos: level keys and function names). Answers under no key of their
 * query are dropped. We do not wrap each query's results in PMIX_QUERY_RESULTS (with
 * PMIX_QUERY_QUALIFIERS first) as the v5.0 text describes: no program reads that form, and a
 * debugger asking one query with two keys would count one result (docs/ARCHITECTURE.md).
 * Returns PMIX_SUCCESS (every key answered), PMIX_QUERY_PARTIAL_SUCCESS (some),
 * PMIX_ERR_NOT_FOUND (none; *results NULL, *nresults 0), or PMIX_ERR_NOMEM. */
pmix_status_t px_query_assemble(const pmix_query_t *q, size_t n, const px_qans_t *ans,
                                pmix_info_t **results, size_t *nresults);

/* Wire form of n answer lists: size n, then n info arrays. */
pmix_status_t px_qans_pack(pmix_data_buffer_t *buf, const px_qans_t *ans, size_t n);
/* Unpack into a new array of *n lists (freed with px_qans_free). */
pmix_status_t px_qans_unpack(pmix_data_buffer_t *buf, px_qans_t **ans, size_t *n);

/* PMIX_QUERY_AVAIL_SERVERS: scan the rendezvous files of this node in dirs (NULL-ended;
 * NULL entries skipped, duplicates scanned once) the way a tool would. One
 * PMIX_SERVER_INFO_ARRAY per live server (by URI): PMIX_NSPACE, PMIX_RANK,
 * PMIX_SERVER_URI, PMIX_VERSION_INFO, PMIX_SERVER_PIDINFO, PMIX_SERVER_SYSTEM_SUPPORT
 * when found by a pmix.sys.<host> file. *val is a data array of PMIX_INFO;
 * PMIX_ERR_NOT_FOUND when there is no server. */
pmix_status_t px_query_avail_servers(const char *const *dirs, pmix_value_t *val);

/* name is one of this node's rendezvous files (host: px_hostname()): exactly
 * pmix.sys.<host> (*sys true) or pmix.<host>.tool[.<anything>] (*sys false), never a
 * file being written (".tmp" at the end) nor one of a node whose name starts with host.
 * The server's sweep of stale files, the tool's default search and the scan above use it. */
bool px_query_rndz_name(const char *name, const char *host, bool *sys);

/* The attributes the library itself handles for function fn at a level (PMIX_CLIENT_ATTRIBUTES
 * or PMIX_SERVER_ATTRIBUTES): a NULL-ended list of key strings, NULL when none. */
const char *const *px_query_lib_attrs(const char *level, const char *fn);
/* The functions with a table above, comma-joined (level PMIX_CLIENT_FUNCTIONS or
 * PMIX_SERVER_FUNCTIONS); NULL for other levels. */
const char *px_query_lib_functions(const char *level);
/* A regattr for key string k (name, type and description from the attribute dictionary;
 * unknown keys: name = key, PMIX_UNDEF). */
void px_query_regattr(pmix_regattr_t *r, const char *k);

#endif /* PX_QUERY_H */
