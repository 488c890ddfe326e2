/* launcher: the DVM's name service datastore (px_pubsub.h): published entries with their
 * range, persistence and user, and the lookups waiting for keys. Controller loop only.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "launcher/px_pubsub.h"

typedef struct entry {
    struct entry *next;
    px_pubsub_who_t who;
    pmix_data_range_t range;
    pmix_persistence_t persist;
    pmix_key_t key;
    pmix_value_t value; /* owned */
} entry_t;

typedef struct waiter {
    struct waiter *next;
    px_pubsub_t *ps;
    px_pubsub_who_t who;
    pmix_data_range_t range;
    char **keys;         /* owned */
    int need;            /* keys that must be visible */
    struct event *timer; /* owned; NULL: no limit */
    pmix_lookup_cbfunc_t cbfunc;
    void *cbdata;
} waiter_t;

struct px_pubsub {
    struct event_base *base; /* borrowed */
    entry_t *entries;
    waiter_t *waiters;
};

px_pubsub_t *px_pubsub_create(struct event_base *base)
{
    px_pubsub_t *ps = calloc(1, sizeof(*ps));
    if (ps != NULL) {
        ps->base = base;
    }
    return ps;
}

static void entry_free(entry_t *e)
{
    PMIx_Value_destruct(&e->value);
    free(e);
}

static void waiter_free(waiter_t *w)
{
    if (w->timer != NULL) {
        event_free(w->timer);
    }
    PMIx_Argv_free(w->keys);
    free(w);
}

/* Unlink w (not answered: waiter_answer does that). */
static void waiter_unlink(px_pubsub_t *ps, waiter_t *w)
{
    for (waiter_t **pp = &ps->waiters; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == w) {
            *pp = w->next;
            return;
        }
    }
}

static void waiter_answer(px_pubsub_t *ps, waiter_t *w, pmix_status_t status)
{
    waiter_unlink(ps, w);
    w->cbfunc(status, NULL, 0, w->cbdata);
    waiter_free(w);
}

void px_pubsub_destroy(px_pubsub_t *ps)
{
    if (ps == NULL) {
        return;
    }
    while (ps->waiters != NULL) {
        waiter_answer(ps, ps->waiters, PMIX_ERR_NOT_FOUND);
    }
    while (ps->entries != NULL) {
        entry_t *e = ps->entries;
        ps->entries = e->next;
        entry_free(e);
    }
    free(ps);
}

size_t px_pubsub_count(const px_pubsub_t *ps)
{
    size_t n = 0;
    for (const entry_t *e = ps->entries; e != NULL; e = e->next) {
        n++;
    }
    return n;
}

/* ---- scope rules ---- */

/* Narrower ranges first: a lookup prefers them. -1: not a range we keep. */
static int range_width(pmix_data_range_t r)
{
    switch (r) {
    case PMIX_RANGE_PROC_LOCAL:
        return 0;
    case PMIX_RANGE_NAMESPACE:
        return 1;
    case PMIX_RANGE_LOCAL:
        return 2;
    case PMIX_RANGE_SESSION:
        return 3;
    case PMIX_RANGE_GLOBAL:
        return 4;
    default:
        return -1;
    }
}

/* Does range, taken from a's point of view, include b? (one node, one session) */
static bool range_includes(pmix_data_range_t range, const pmix_proc_t *a, const pmix_proc_t *b)
{
    switch (range) {
    case PMIX_RANGE_PROC_LOCAL:
        return PMIx_Check_procid(a, b);
    case PMIX_RANGE_NAMESPACE:
        return PMIx_Check_nspace(a->nspace, b->nspace);
    default:
        return true;
    }
}

/* May who, searching within range, see e? */
static bool visible(const entry_t *e, const px_pubsub_who_t *who, pmix_data_range_t range)
{
    if (e->range != PMIX_RANGE_GLOBAL && e->who.uid != who->uid) {
        return false;
    }
    return range_includes(e->range, &e->who.proc, &who->proc) &&
           range_includes(range, &who->proc, &e->who.proc);
}

static entry_t *find_visible(px_pubsub_t *ps, const char *key, const px_pubsub_who_t *who,
                             pmix_data_range_t range)
{
    entry_t *best = NULL;
    for (entry_t *e = ps->entries; e != NULL; e = e->next) {
        if (PMIx_Check_key(e->key, key) && visible(e, who, range) &&
            (best == NULL || range_width(e->range) < range_width(best->range))) {
            best = e;
        }
    }
    return best;
}

/* Same key in the same scope: same range, same scope within it, same user (the global
 * range has one scope for everyone). */
static bool duplicate(px_pubsub_t *ps, const char *key, const px_pubsub_who_t *who,
                      pmix_data_range_t range)
{
    for (entry_t *e = ps->entries; e != NULL; e = e->next) {
        if (PMIx_Check_key(e->key, key) && e->range == range &&
            range_includes(range, &e->who.proc, &who->proc) &&
            (range == PMIX_RANGE_GLOBAL || e->who.uid == who->uid)) {
            return true;
        }
    }
    return false;
}

static void remove_entry(px_pubsub_t *ps, entry_t *gone)
{
    for (entry_t **pp = &ps->entries; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == gone) {
            *pp = gone->next;
            entry_free(gone);
            return;
        }
    }
}

/* ---- lookups ---- */

/* Answer w if at least need of its keys are visible (or when forced); true if answered
 * (w is then unlinked and freed). */
static bool try_answer(px_pubsub_t *ps, waiter_t *w, bool force)
{
    size_t nkeys = (size_t)PMIx_Argv_count(w->keys), found = 0;
    entry_t **hits = calloc(nkeys ? nkeys : 1, sizeof(*hits));
    if (hits == NULL) {
        waiter_answer(ps, w, PMIX_ERR_NOMEM);
        return true;
    }
    for (size_t k = 0; k < nkeys; k++) {
        hits[k] = find_visible(ps, w->keys[k], &w->who, w->range);
        found += hits[k] != NULL;
    }
    size_t need = w->need <= 0 || (size_t)w->need > nkeys ? nkeys : (size_t)w->need;
    if (found < need && !force) {
        free(hits);
        return false;
    }
    pmix_pdata_t *pd = found ? PMIx_Pdata_create(found) : NULL;
    pmix_status_t rc = found == 0 ? PMIX_ERR_NOT_FOUND : pd ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    size_t n = 0;
    for (size_t k = 0; rc == PMIX_SUCCESS && k < nkeys; k++) {
        if (hits[k] == NULL) {
            continue;
        }
        pd[n].proc = hits[k]->who.proc;
        PMIx_Load_key(pd[n].key, hits[k]->key);
        PMIx_Value_xfer(&pd[n].value, &hits[k]->value);
        n++;
    }
    /* first-read entries are gone once read (a key asked twice is read once) */
    for (size_t k = 0; rc == PMIX_SUCCESS && k < nkeys; k++) {
        entry_t *e = hits[k];
        if (e != NULL && e->persist == PMIX_PERSIST_FIRST_READ) {
            for (size_t l = k; l < nkeys; l++) {
                hits[l] = hits[l] == e ? NULL : hits[l];
            }
            remove_entry(ps, e);
        }
    }
    free(hits);
    waiter_unlink(ps, w);
    w->cbfunc(rc, rc == PMIX_SUCCESS ? pd : NULL, rc == PMIX_SUCCESS ? n : 0, w->cbdata);
    PMIx_Pdata_free(pd, found);
    waiter_free(w);
    return true;
}

static void recheck(px_pubsub_t *ps)
{
    waiter_t *w = ps->waiters;
    while (w != NULL) {
        waiter_t *next = w->next;
        /* an answer may remove first-read entries but never adds waiters */
        try_answer(ps, w, false);
        w = next;
    }
}

static void on_wait_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    waiter_t *w = arg;
    waiter_answer(w->ps, w, PMIX_ERR_TIMEOUT);
}

static bool range_ok(pmix_data_range_t range)
{
    return range == PMIX_RANGE_UNDEF || range_width(range) >= 0;
}

pmix_status_t px_pubsub_lookup(px_pubsub_t *ps, const px_pubsub_who_t *who, pmix_data_range_t range,
                               char **keys, int wait, int timeout, pmix_lookup_cbfunc_t cbfunc,
                               void *cbdata)
{
    if (keys == NULL || keys[0] == NULL || cbfunc == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!range_ok(range)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    waiter_t *w = calloc(1, sizeof(*w));
    if (w == NULL || (w->keys = PMIx_Argv_copy(keys)) == NULL) {
        free(w);
        return PMIX_ERR_NOMEM;
    }
    w->ps = ps;
    w->who = *who;
    w->range = range == PMIX_RANGE_UNDEF ? PMIX_RANGE_SESSION : range;
    w->need = wait;
    w->cbfunc = cbfunc;
    w->cbdata = cbdata;
    if (wait >= 0 && timeout > 0) {
        w->timer = evtimer_new(ps->base, on_wait_timeout, w);
        struct timeval tv = {timeout, 0};
        if (w->timer == NULL || evtimer_add(w->timer, &tv) != 0) {
            waiter_free(w);
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
    }
    w->next = ps->waiters;
    ps->waiters = w;
    try_answer(ps, w, wait < 0);
    return PMIX_SUCCESS;
}

/* ---- publish / unpublish ---- */

pmix_status_t px_pubsub_publish(px_pubsub_t *ps, const px_pubsub_who_t *who,
                                pmix_data_range_t range, pmix_persistence_t persist,
                                const pmix_info_t *data, size_t ndata)
{
    if (range == PMIX_RANGE_UNDEF) {
        range = PMIX_RANGE_SESSION; /* the Standard's default */
    }
    if (persist == PMIX_PERSIST_INVALID) {
        persist = PMIX_PERSIST_APP;
    }
    if (!range_ok(range) || persist > PMIX_PERSIST_SESSION) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (ndata == 0 || data == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    for (size_t i = 0; i < ndata; i++) {
        if (duplicate(ps, data[i].key, who, range)) {
            return PMIX_ERR_DUPLICATE_KEY;
        }
        for (size_t k = 0; k < i; k++) {
            if (PMIx_Check_key(data[k].key, data[i].key)) {
                return PMIX_ERR_DUPLICATE_KEY;
            }
        }
    }
    entry_t *added = NULL;
    for (size_t i = 0; i < ndata; i++) {
        entry_t *e = calloc(1, sizeof(*e));
        if (e == NULL || PMIx_Value_xfer(&e->value, &data[i].value) != PMIX_SUCCESS) {
            free(e);
            while (added != NULL) {
                entry_t *next = added->next;
                entry_free(added);
                added = next;
            }
            return PMIX_ERR_NOMEM;
        }
        e->who = *who;
        e->range = range;
        e->persist = persist;
        PMIx_Load_key(e->key, data[i].key);
        e->next = added;
        added = e;
    }
    while (added != NULL) {
        entry_t *e = added;
        added = e->next;
        e->next = ps->entries;
        ps->entries = e;
    }
    recheck(ps);
    return PMIX_SUCCESS;
}

static bool named(char **keys, const char *key)
{
    for (size_t k = 0; keys != NULL && keys[k] != NULL; k++) {
        if (PMIx_Check_key(key, keys[k])) {
            return true;
        }
    }
    return false;
}

pmix_status_t px_pubsub_unpublish(px_pubsub_t *ps, const px_pubsub_who_t *who,
                                  pmix_data_range_t range, char **keys)
{
    if (!range_ok(range)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    bool any = false;
    for (entry_t **pp = &ps->entries; *pp != NULL;) {
        entry_t *e = *pp;
        if (PMIx_Check_procid(&e->who.proc, &who->proc) &&
            (range == PMIX_RANGE_UNDEF || e->range == range) &&
            (keys == NULL || named(keys, e->key))) {
            *pp = e->next;
            entry_free(e);
            any = true;
        } else {
            pp = &e->next;
        }
    }
    return any || keys == NULL ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
}

/* ---- persistence ---- */

/* Drop the entries of the processes matched (proc, or a whole nspace when proc is NULL)
 * whose persistence ended, and answer their waiting lookups. */
static void ended(px_pubsub_t *ps, const pmix_proc_t *proc, const char *nspace)
{
    for (entry_t **pp = &ps->entries; *pp != NULL;) {
        entry_t *e = *pp;
        bool gone = proc != NULL
                        ? e->persist == PMIX_PERSIST_PROC && PMIx_Check_procid(&e->who.proc, proc)
                        : (e->persist == PMIX_PERSIST_PROC || e->persist == PMIX_PERSIST_APP) &&
                              PMIx_Check_nspace(e->who.proc.nspace, nspace);
        if (gone) {
            *pp = e->next;
            entry_free(e);
        } else {
            pp = &e->next;
        }
    }
    waiter_t *w = ps->waiters;
    while (w != NULL) {
        waiter_t *next = w->next;
        if (proc != NULL ? PMIx_Check_procid(&w->who.proc, proc)
                         : PMIx_Check_nspace(w->who.proc.nspace, nspace)) {
            waiter_answer(ps, w, PMIX_ERR_NOT_FOUND);
        }
        w = next;
    }
}

void px_pubsub_proc_ended(px_pubsub_t *ps, const pmix_proc_t *proc)
{
    if (ps != NULL && proc != NULL) {
        ended(ps, proc, NULL);
    }
}

void px_pubsub_job_ended(px_pubsub_t *ps, const char *nspace)
{
    if (ps != NULL && nspace != NULL) {
        ended(ps, NULL, nspace);
    }
}
