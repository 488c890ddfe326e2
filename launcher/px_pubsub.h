/* launcher: the DVM's name service datastore (PMIx_Publish / PMIx_Lookup /
 * PMIx_Unpublish between the jobs of one DVM). Pure bookkeeping on the controller's loop:
 * ranges, persistence, the publisher's user, lookups waiting for keys (PMIX_WAIT) with
 * their PMIX_TIMEOUT. The host upcalls that feed it are in dvm_pubsub.c.
 *
 * Scope rules (one DVM = one session on one node):
 *   - an entry published with PMIX_RANGE_PROC_LOCAL is visible to its publisher only,
 *     PMIX_RANGE_NAMESPACE to its publisher's namespace, PMIX_RANGE_LOCAL /
 *     PMIX_RANGE_SESSION to every process of the DVM, PMIX_RANGE_GLOBAL to everyone;
 *   - except for PMIX_RANGE_GLOBAL, an entry is visible only to processes of the
 *     publisher's user (PMIX_USERID);
 *   - a lookup's range restricts the publishers it searches the same way;
 *   - the same key may be published once per range scope and user
 *     (PMIX_ERR_DUPLICATE_KEY otherwise); a lookup prefers the narrowest range.
 * When the DVM grows beyond one node, PMIX_RANGE_LOCAL must compare nodes.
 */
#ifndef PX_PUBSUB_H
#define PX_PUBSUB_H

#include <stdint.h>

#include <event2/event.h>
#include <pmix_common.h>

typedef struct px_pubsub px_pubsub_t;

/* Who asks: the process and its user, as the server library reported them. */
typedef struct {
    pmix_proc_t proc;
    uint32_t uid, gid;
} px_pubsub_who_t;

/* A datastore whose waiting lookups time out on base. NULL (errno) on failure. */
px_pubsub_t *px_pubsub_create(struct event_base *base);
/* Answer every waiting lookup with PMIX_ERR_NOT_FOUND, free everything. NULL is fine. */
void px_pubsub_destroy(px_pubsub_t *ps);

/* Store each of data[0..ndata) (keys that are not directives) for who, with range
 * (PMIX_RANGE_UNDEF: session) and persist (PMIX_PERSIST_INVALID: app). All or nothing:
 * PMIX_ERR_DUPLICATE_KEY when one of them is already there in the same scope,
 * PMIX_ERR_NOT_SUPPORTED for the ranges PMIX_RANGE_RM / PMIX_RANGE_CUSTOM, an unknown
 * range or persistence. Waiting lookups that can now be answered are answered. */
pmix_status_t px_pubsub_publish(px_pubsub_t *ps, const px_pubsub_who_t *who,
                                pmix_data_range_t range, pmix_persistence_t persist,
                                const pmix_info_t *data, size_t ndata);

/* Look keys up for who within range (PMIX_RANGE_UNDEF: session). wait < 0: answer now;
 * wait >= 0: answer once at least wait of the keys (0: all of them) are visible, or with
 * PMIX_ERR_TIMEOUT after timeout seconds (0: no limit). cbfunc is called exactly once, on
 * the loop, possibly before this returns: PMIX_SUCCESS with the entries found (each
 * key's narrowest-range entry; PMIX_PERSIST_FIRST_READ entries are removed), or
 * PMIX_ERR_NOT_FOUND when none is. Returns PMIX_SUCCESS, or an error and no callback
 * (PMIX_ERR_NOT_SUPPORTED for an unsupported range, PMIX_ERR_BAD_PARAM for no keys). */
pmix_status_t px_pubsub_lookup(px_pubsub_t *ps, const px_pubsub_who_t *who, pmix_data_range_t range,
                               char **keys, int wait, int timeout, pmix_lookup_cbfunc_t cbfunc,
                               void *cbdata);

/* Remove who's entries named in keys (NULL: all of them) within range (PMIX_RANGE_UNDEF:
 * any range). PMIX_ERR_NOT_FOUND when keys were named and none was removed. */
pmix_status_t px_pubsub_unpublish(px_pubsub_t *ps, const px_pubsub_who_t *who,
                                  pmix_data_range_t range, char **keys);

/* A process ended: its PMIX_PERSIST_PROC entries go, its waiting lookups are answered
 * with PMIX_ERR_NOT_FOUND (nobody waits for them). */
void px_pubsub_proc_ended(px_pubsub_t *ps, const pmix_proc_t *proc);
/* A job (its application) ended: the PMIX_PERSIST_APP and PMIX_PERSIST_PROC entries of
 * its processes go, and its processes' waiting lookups are answered. */
void px_pubsub_job_ended(px_pubsub_t *ps, const char *nspace);

/* Number of entries stored (tests). */
size_t px_pubsub_count(const px_pubsub_t *ps);

#endif /* PX_PUBSUB_H */
