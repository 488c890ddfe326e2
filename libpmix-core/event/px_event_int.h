/* event: state shared by event.c (registry, API), event_match.c (parsing directives,
 * matching an event, ordering a chain) and event_chain.c (running chains). Not for use
 * outside event/. Every field below is guarded by px_evt_mod.lock unless marked
 * immutable (set before the object is published, never changed after).
 */
#ifndef PX_EVENT_INT_H
#define PX_EVENT_INT_H

#include <pthread.h>
#include <stdint.h>

#include "event/px_event.h"

/* Categories of a chain, in running order (FIRST and LAST are slots, not categories). */
enum { PX_EVT_SINGLE = 0, PX_EVT_MULTI = 1, PX_EVT_DEFAULT = 2, PX_EVT_NCAT = 3 };

/* One registration. Owned by the registry list while registered; each chain that
 * selected it holds a count (refs) so a deregistered one lives until those chains
 * have passed it. Freed when removed && refs == 0. */
typedef struct px_evt_reg {
    struct px_evt_reg *next;   /* registry list */
    size_t id;                 /* immutable */
    pmix_notification_fn_t fn; /* immutable */
    pmix_status_t *codes;      /* owned, immutable; NULL when ncodes == 0 */
    size_t ncodes;
    char *name;   /* owned, immutable; NULL: unnamed */
    char *before; /* owned, immutable: PMIX_EVENT_HDLR_BEFORE, or NULL */
    char *after;  /* owned, immutable: PMIX_EVENT_HDLR_AFTER, or NULL */
    bool first, last;
    int cat;     /* PX_EVT_SINGLE/MULTI/DEFAULT by ncodes */
    int band;    /* 0 FIRST_IN_CATEGORY, 1 plain, 2 LAST_IN_CATEGORY */
    int64_t pos; /* place in the category: appends count up, prepends count down */
    pmix_data_range_t range;
    pmix_proc_t *custom; /* owned: PMIX_EVENT_CUSTOM_RANGE */
    size_t ncustom;
    pmix_proc_t *affected; /* owned: PMIX_EVENT_AFFECTED_PROC(S) */
    size_t naffected;
    bool has_affected;
    void *retobj; /* borrowed: PMIX_EVENT_RETURN_OBJECT */
    bool has_retobj;
    bool active;
    bool removed;           /* deregistered (or unbound): no new invocation starts */
    unsigned refs;          /* chains holding it */
    unsigned entering;      /* invocations decided on the loop whose fn has not returned */
    pthread_t enter_thread; /* the thread running them (the loop) */
} px_evt_reg_t;

/* What a registration is matched against (computed in px_evt_deliver). */
typedef struct px_evt_match {
    pmix_status_t status;
    pmix_proc_t source;
    bool src_local, src_rm;      /* is_local(source), is_rm(source), asked outside the lock */
    const pmix_proc_t *affected; /* borrowed from the event info */
    size_t naffected;
    bool nondefault;
    size_t only; /* 0: every registration; else only the one with this id (a replay) */
} px_evt_match_t;

struct px_evt_chain;

typedef struct px_evt_module {
    pthread_mutex_t lock;
    pthread_cond_t cond; /* signalled when a reg's entering count drops */
    bool bound;
    px_progress_t *loop; /* borrowed from the binder */
    px_evt_self_t self;
    uint64_t gen; /* bumped by bind and unbind: a stale kick from an old loop is ignored */
    px_evt_reg_t *regs;
    px_evt_reg_t *first_slot, *last_slot; /* borrowed from regs */
    int64_t append_seq, prepend_seq;
    size_t next_id;              /* never reset: ids are not reused within the process */
    struct px_evt_chain *chains; /* every unfinished chain (each holds a ref) */
    struct px_evt_chain *ready, *ready_tail; /* chains with a step to run on the loop */
    bool kick_pending;                       /* a drain of ready is shifted to the loop */
} px_evt_module_t;

extern px_evt_module_t px_evt_mod;

/* event_match.c */
/* Parse codes and directives into a new registration (not yet in the registry, id 0).
 * PMIX_ERR_BAD_PARAM or PMIX_ERR_NOMEM; *out NULL then. */
pmix_status_t px_evt_reg_parse(const pmix_status_t codes[], size_t ncodes, const pmix_info_t info[],
                               size_t ninfo, pmix_notification_fn_t fn, px_evt_reg_t **out);
void px_evt_reg_free(px_evt_reg_t *r);
/* Lock held. Select and order the active registrations matching m: FIRST, single-code,
 * multi-code, default (unless nondefault), LAST. *out is a malloc'ed array (NULL when
 * *n == 0); each entry's refs is incremented. 0, or -1 on ENOMEM. */
int px_evt_assemble(const px_evt_match_t *m, px_evt_reg_t ***out, size_t *n);
/* Lock held. Drop a chain's count on r; frees it when removed and unused. */
void px_evt_reg_unref(px_evt_reg_t *r);
/* The key a handler's status is reported under in results: its name or px.evhdlr.<id>. */
void px_evt_reg_key(const px_evt_reg_t *r, pmix_key_t key);

/* event_chain.c */
/* Lock held: mark every chain dead and drop the module's counts on them; chains whose
 * count reaches zero are returned in a list (linked by their list field) for
 * px_evt_chains_free, to be called without the lock. */
struct px_evt_chain *px_evt_chains_kill(void);
void px_evt_chains_free(struct px_evt_chain *list);

#endif /* PX_EVENT_INT_H */
