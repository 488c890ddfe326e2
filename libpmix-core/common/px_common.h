/* common: small helpers every side shares — developer logging, server URIs, the
 * required-directive check (px_info_unhonoured) and px_pid_gone.
 * Thread-safe.
 */
#ifndef PX_COMMON_H
#define PX_COMMON_H

#include <stdbool.h>
#include <sys/types.h>

#include <pmix_common.h>

/* Developer logging, off by default: PMIX_RUNTIME_DEBUG=<level> in the environment
 * prints messages of that level and below on stderr, prefixed with the side and pid.
 * Never used for what a user must see (that comes from share/help). */
bool px_debug_on(int level);
void px_debug(int level, const char *side, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "<nspace>.<rank>;usock:<path>" -> server identity and socket path (malloc'd).
 * 0 / -1 with errno EINVAL (also for a TCP URI: clients connect only by socket). */
int px_uri_parse(const char *uri, pmix_proc_t *server, char **path);
/* The reverse; malloc'd string or NULL. */
char *px_uri_make(const pmix_proc_t *server, const char *path);

/* Either URI form (px_proto.h): "<nspace>.<rank>;usock:<path>" or
 * "<nspace>.<rank>;tcp4://<a.b.c.d>:<port>;secret=<32 hex digits>". */
typedef struct px_uri {
    pmix_proc_t server;
    bool tcp;
    char *path; /* owned: usock socket path, NULL for tcp */
    char addr[16];
    unsigned short port;
    char secret[33];
} px_uri_t;
/* 0 / -1 with errno EINVAL (out then holds nothing to free). */
int px_uri_parse_any(const char *uri, px_uri_t *out);
void px_uri_fini(px_uri_t *u);
/* A TCP URI; malloc'd string or NULL. */
char *px_uri_make_tcp(const pmix_proc_t *server, const char *addr, unsigned short port,
                      const char *secret);

/* gethostname(), never NULL (static storage). */
const char *px_hostname(void);

/* The directory used when nobody names one (a server's PMIX_SERVER_TMPDIR /
 * PMIX_SYSTEM_TMPDIR, where a tool searches for rendezvous files): $TMPDIR when set and not
 * empty, else /tmp. Borrowed (the environment's string or a literal). */
const char *px_tmpdir_default(void);
/* The string value of key in info[0..ninfo), else px_tmpdir_default(). Borrowed. */
const char *px_tmpdir_pick(const pmix_info_t *info, size_t ninfo, const char *key);

/* True when process pid no longer runs: no such process, or a zombie (it holds nothing;
 * its parent may never reap it, e.g. a daemonized process under an init that does not
 * reap). False for pid <= 0 and for a live process of another user. */
bool px_pid_gone(pid_t pid);

/* Is the key one of the Standard's reserved "pmix." keys? */
bool px_key_reserved(const char *key);

/* The key of the first directive of info[] marked PMIX_INFO_REQD that is not in
 * honoured[] (NULL-terminated; NULL: none is), or NULL when every required one is. The
 * Standard: a call given a required directive it cannot honour returns an error
 * (PMIX_ERR_NOT_SUPPORTED here). Borrowed from info. */
const char *px_info_unhonoured(const pmix_info_t *info, size_t ninfo, const char *const honoured[]);

/* The processes an event's PMIX_EVENT_CUSTOM_RANGE names (one proc, or an array of
 * them; borrowed from info), *n of them; NULL (and *n 0) without one, or when its value is
 * of another type. */
const pmix_proc_t *px_event_custom_range(const pmix_info_t *info, size_t ninfo, size_t *n);

/* A process stopped (by a signal, or held at a debugger's stop point) in a proc table
 * (pmix_proc_info_t.state). The Standard has no such state: this value lies among the
 * live ones (below PMIX_PROC_STATE_UNTERMINATED, the Standard's boundary between live
 * and ended processes), unused by the Standard's table; PMIx_Proc_state_string names it
 * "STOPPED". */
#define PX_PROC_STATE_STOPPED 7

/* The ranks a stop directive's value names (PMIX_DEBUG_STOP_ON_EXEC/_IN_INIT/_IN_APP):
 * 1 and *rank set: one rank, or PMIX_RANK_WILDCARD for every rank (bool true, a bare
 * key); 0: none (bool false); -1: a value this runtime does not read (a process array,
 * a string, a negative number). Used by the launcher and the client library alike. */
int px_debug_stop_rank(const pmix_value_t *v, pmix_rank_t *rank);

/* A stop directive's value given as a list of processes (a pmix_data_array_t of
 * pmix_proc_t, which the Standard allows for these attributes): 1 with *procs and *n (n
 * may be 0: none), else 0 (another type; px_debug_stop_rank reads those). */
int px_debug_stop_list(const pmix_value_t *v, const pmix_proc_t **procs, size_t *n);

/* Whether a stop directive's value names process who: true or the wildcard, who's rank,
 * or a list holding who (an entry of who's namespace, or an empty one: the requester
 * does not know the namespace before the spawn, with who's rank or the wildcard). A
 * value not read names no one. */
bool px_debug_stop_names(const pmix_value_t *v, const pmix_proc_t *who);

#endif /* PX_COMMON_H */
