/* event: running event chains. px_evt_deliver (any thread) assembles a chain and queues
 * it; drain() runs on the bound loop and calls one handler of a chain at a time; a
 * handler's completion (any thread, even inside the handler) stores its outcome in the
 * chain and queues it again. The lock is never held while a handler, a release function
 * or a done callback runs.
 *
 * Lifetime: a chain is counted by (a) the module while unfinished (its chains list), (b)
 * a drain step while it runs it, (c) the handler it waits on until that handler's
 * completion. The ready queue holds no count: a queued chain is always unfinished.
 * px_evt_unbind marks chains dead and drops (a); a step that finds its chain dead stops;
 * a completion for a dead chain calls the handler's release function at once and drops
 * (c); whoever drops the last count frees the chain (and releases results still held).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "event/px_event_int.h"

typedef struct px_evt_release {
    pmix_op_cbfunc_t fn; /* the handler's release function, may be NULL */
    void *cbdata;
} px_evt_release_t;

typedef struct px_evt_chain {
    struct px_evt_chain *lprev, *lnext; /* px_evt_mod.chains (or a free list after unbind) */
    struct px_evt_chain *qnext;         /* px_evt_mod.ready */
    bool queued;
    unsigned refs;
    bool dead;     /* unbound: nothing more runs */
    bool awaiting; /* a handler was called and has not completed */
    /* the event: all owned */
    pmix_status_t status;
    pmix_proc_t source;
    pmix_info_t *info; /* ninfo + 1 slots: the last one carries a return object */
    size_t ninfo;
    /* the handlers: each entry holds a count on its registration */
    px_evt_reg_t **regs;
    size_t nregs, at; /* at: the next one to consider */
    /* aggregated results (owned) and the release functions of the handlers' own arrays */
    pmix_info_t *results;
    size_t nresults;
    px_evt_release_t *rels;
    size_t nrels;
    /* a completion not yet folded in by the loop */
    bool has_pending;
    pmix_status_t pstatus;
    pmix_info_t *presults; /* owned copy */
    size_t npresults;
    px_evt_release_t prel;
    pmix_key_t pkey; /* the completed handler's results key */
    /* outcome */
    bool ran_any, terminated;
    pmix_status_t last_status;
    px_evt_done_fn done;
    px_evt_done_res_fn done_res; /* or this one, with the aggregated results */
    void *cbdata;
} px_evt_chain_t;

static size_t nready;

static void drain(void *arg);

/* ---- helpers, lock held ---- */

static int kick_locked(void)
{
    if (px_evt_mod.kick_pending) {
        return 0;
    }
    if (!px_evt_mod.bound ||
        0 != px_progress_shift(px_evt_mod.loop, drain, (void *)(uintptr_t)px_evt_mod.gen)) {
        return -1;
    }
    px_evt_mod.kick_pending = true;
    return 0;
}

static void enqueue_locked(px_evt_chain_t *c)
{
    if (c->queued) {
        return;
    }
    c->queued = true;
    c->qnext = NULL;
    if (NULL == px_evt_mod.ready) {
        px_evt_mod.ready = c;
    } else {
        px_evt_mod.ready_tail->qnext = c;
    }
    px_evt_mod.ready_tail = c;
    nready++;
}

static void unlink_locked(px_evt_chain_t *c)
{
    if (NULL != c->lprev) {
        c->lprev->lnext = c->lnext;
    } else {
        px_evt_mod.chains = c->lnext;
    }
    if (NULL != c->lnext) {
        c->lnext->lprev = c->lprev;
    }
    c->lprev = c->lnext = NULL;
}

/* ---- freeing, lock not held ---- */

static void chain_free(px_evt_chain_t *c)
{
    pthread_mutex_lock(&px_evt_mod.lock);
    for (size_t k = 0; k < c->nregs; k++) {
        px_evt_reg_unref(c->regs[k]);
    }
    pthread_mutex_unlock(&px_evt_mod.lock);
    for (size_t k = 0; k < c->nrels; k++) {
        if (NULL != c->rels[k].fn) {
            c->rels[k].fn(PMIX_SUCCESS, c->rels[k].cbdata);
        }
    }
    if (c->has_pending && NULL != c->prel.fn) {
        c->prel.fn(PMIX_SUCCESS, c->prel.cbdata);
    }
    PMIx_Info_free(c->presults, c->npresults);
    PMIx_Info_free(c->results, c->nresults);
    PMIx_Info_free(c->info, c->ninfo + 1);
    free(c->regs);
    free(c->rels);
    free(c);
}

/* Lock held on entry and on return; drops one count and frees the chain (unlocking
 * meanwhile) when it was the last. */
static void unref_locked(px_evt_chain_t *c)
{
    if (0 == --c->refs) {
        pthread_mutex_unlock(&px_evt_mod.lock);
        chain_free(c);
        pthread_mutex_lock(&px_evt_mod.lock);
    }
}

px_evt_chain_t *px_evt_chains_kill(void)
{
    px_evt_chain_t *dead = NULL;
    px_evt_chain_t *c = px_evt_mod.chains;
    while (NULL != c) {
        px_evt_chain_t *next = c->lnext;
        c->dead = true;
        c->queued = false;
        c->lprev = c->lnext = NULL;
        if (0 == --c->refs) {
            c->lnext = dead;
            dead = c;
        }
        c = next;
    }
    px_evt_mod.chains = NULL;
    px_evt_mod.ready = px_evt_mod.ready_tail = NULL;
    nready = 0;
    return dead;
}

void px_evt_chains_free(px_evt_chain_t *list)
{
    while (NULL != list) {
        px_evt_chain_t *next = list->lnext;
        chain_free(list);
        list = next;
    }
}

/* ---- the completion function handed to handlers (any thread) ---- */

static pmix_info_t *copy_infos(const pmix_info_t *src, size_t n, size_t *out_n)
{
    *out_n = 0;
    if (0 == n || NULL == src) {
        return NULL;
    }
    pmix_info_t *dst = calloc(n, sizeof(*dst));
    if (NULL == dst) {
        return NULL;
    }
    for (size_t k = 0; k < n; k++) {
        if (PMIX_SUCCESS != PMIx_Info_xfer(&dst[k], &src[k])) {
            PMIx_Info_free(dst, k);
            return NULL;
        }
    }
    *out_n = n;
    return dst;
}

static void complete(pmix_status_t status, pmix_info_t *results, size_t nresults,
                     pmix_op_cbfunc_t cbfunc, void *thiscbdata, void *notification_cbdata)
{
    px_evt_chain_t *c = notification_cbdata;
    size_t ncopy;
    /* copied here, so results are ours to aggregate whatever the handler does next */
    pmix_info_t *copy = copy_infos(results, nresults, &ncopy);

    pthread_mutex_lock(&px_evt_mod.lock);
    if (!c->awaiting) {
        /* a second completion for one call (a handler's bug): give its array back */
        pthread_mutex_unlock(&px_evt_mod.lock);
        PMIx_Info_free(copy, ncopy);
        if (NULL != cbfunc) {
            cbfunc(PMIX_SUCCESS, thiscbdata);
        }
        return;
    }
    if (c->dead) {
        /* unbound meanwhile: nothing will read the results */
        c->awaiting = false;
        pthread_mutex_unlock(&px_evt_mod.lock);
        PMIx_Info_free(copy, ncopy);
        if (NULL != cbfunc) {
            cbfunc(PMIX_SUCCESS, thiscbdata);
        }
        pthread_mutex_lock(&px_evt_mod.lock);
        unref_locked(c);
        pthread_mutex_unlock(&px_evt_mod.lock);
        return;
    }
    c->awaiting = false;
    c->has_pending = true;
    c->pstatus = status;
    c->presults = copy;
    c->npresults = ncopy;
    c->prel.fn = cbfunc;
    c->prel.cbdata = thiscbdata;
    enqueue_locked(c);
    (void)kick_locked(); /* on failure the chain waits for unbind */
    unref_locked(c);     /* the module still counts it: never the last */
    pthread_mutex_unlock(&px_evt_mod.lock);
}

/* ---- running, on the loop ---- */

/* Lock held. Append the pending completion to the aggregated results: the handler's own
 * results, then one PMIX_STATUS entry keyed by the handler's name. */
static void fold_pending_locked(px_evt_chain_t *c)
{
    size_t n = c->nresults + c->npresults + 1;
    pmix_info_t *grown = realloc(c->results, n * sizeof(*grown));
    px_evt_release_t *rels = realloc(c->rels, (c->nrels + 1) * sizeof(*rels));
    px_evt_release_t now = {NULL, NULL};
    if (NULL != grown) {
        c->results = grown;
        if (c->npresults > 0) {
            memcpy(&grown[c->nresults], c->presults, c->npresults * sizeof(*grown));
        }
        PMIx_Info_construct(&grown[n - 1]);
        PMIx_Info_load(&grown[n - 1], c->pkey, &c->pstatus, PMIX_STATUS);
        c->nresults = n;
        free(c->presults); /* the entries moved */
    } else {
        PMIx_Info_free(c->presults, c->npresults); /* out of memory: results lost */
    }
    c->presults = NULL;
    c->npresults = 0;
    if (NULL != rels) {
        c->rels = rels;
        c->rels[c->nrels++] = c->prel;
    } else {
        now = c->prel; /* cannot keep it: release now (its array was copied) */
    }
    c->prel.fn = NULL;
    c->has_pending = false;
    c->ran_any = true;
    c->last_status = c->pstatus;
    c->terminated = PMIX_EVENT_ACTION_COMPLETE == c->pstatus;
    if (NULL != now.fn) {
        pthread_mutex_unlock(&px_evt_mod.lock);
        now.fn(PMIX_SUCCESS, now.cbdata);
        pthread_mutex_lock(&px_evt_mod.lock);
    }
}

/* Lock held on entry and return; the caller holds a step count on c. */
static void step_locked(px_evt_chain_t *c)
{
    if (c->dead) {
        return;
    }
    if (c->has_pending) {
        fold_pending_locked(c);
        if (c->terminated || c->dead) {
            goto finish;
        }
    }
    while (c->at < c->nregs && c->regs[c->at]->removed) {
        c->at++; /* deregistered since the chain was assembled */
    }
    if (c->at == c->nregs) {
        goto finish;
    }
    px_evt_reg_t *r = c->regs[c->at++];
    size_t n = c->ninfo;
    if (r->has_retobj) {
        pmix_info_t *slot = &c->info[n++];
        PMIx_Load_key(slot->key, PMIX_EVENT_RETURN_OBJECT);
        slot->value.type = PMIX_POINTER;
        slot->value.data.ptr = r->retobj;
    }
    px_evt_reg_key(r, c->pkey);
    r->entering++;
    r->enter_thread = pthread_self();
    c->awaiting = true;
    c->refs++; /* the handler's, until its completion */
    pmix_notification_fn_t fn = r->fn;
    size_t id = r->id;
    pthread_mutex_unlock(&px_evt_mod.lock);
    fn(id, c->status, &c->source, c->info, n, c->results, c->nresults, complete, c);
    pthread_mutex_lock(&px_evt_mod.lock);
    r->entering--;
    pthread_cond_broadcast(&px_evt_mod.cond);
    return;

finish:
    if (c->dead) {
        return;
    }
    unlink_locked(c);
    c->refs--; /* the module's; the step's count remains */
    pmix_status_t st = !c->ran_any     ? PMIX_ERR_NOT_FOUND
                       : c->terminated ? PMIX_EVENT_ACTION_COMPLETE
                                       : c->last_status;
    px_evt_done_fn done = c->done;
    px_evt_done_res_fn done_res = c->done_res;
    px_evt_release_t *rels = c->rels;
    size_t nrels = c->nrels;
    c->done = NULL;
    c->done_res = NULL;
    c->rels = NULL;
    c->nrels = 0;
    /* the handlers get their results back before the chain reports its end */
    pthread_mutex_unlock(&px_evt_mod.lock);
    for (size_t k = 0; k < nrels; k++) {
        if (NULL != rels[k].fn) {
            rels[k].fn(PMIX_SUCCESS, rels[k].cbdata);
        }
    }
    free(rels);
    if (NULL != done) {
        done(st, c->cbdata);
    }
    if (NULL != done_res) {
        /* the step's count keeps the chain (and its results) alive meanwhile */
        done_res(c->status, c->info, c->ninfo, st, c->results, c->nresults, c->cbdata);
    }
    pthread_mutex_lock(&px_evt_mod.lock);
}

/* Loop: run the chains queued when this started (later ones get another kick, so other
 * work on the loop is not starved). arg: the binding generation that shifted us. */
static void drain(void *arg)
{
    uint64_t gen = (uintptr_t)arg;
    pthread_mutex_lock(&px_evt_mod.lock);
    if (gen != px_evt_mod.gen) {
        pthread_mutex_unlock(&px_evt_mod.lock);
        return; /* shifted before an unbind */
    }
    px_evt_mod.kick_pending = false;
    size_t budget = nready;
    while (budget-- > 0 && NULL != px_evt_mod.ready && gen == px_evt_mod.gen) {
        px_evt_chain_t *c = px_evt_mod.ready;
        px_evt_mod.ready = c->qnext;
        if (NULL == px_evt_mod.ready) {
            px_evt_mod.ready_tail = NULL;
        }
        nready--;
        c->queued = false;
        c->refs++;
        step_locked(c);
        unref_locked(c);
    }
    if (NULL != px_evt_mod.ready && gen == px_evt_mod.gen) {
        (void)kick_locked();
    }
    pthread_mutex_unlock(&px_evt_mod.lock);
}

/* ---- delivery, any thread ---- */

static pmix_status_t affected_of(const pmix_info_t *info, size_t ninfo, pmix_proc_t **out,
                                 size_t *n)
{
    *out = NULL;
    *n = 0;
    for (size_t k = 0; k < ninfo; k++) {
        const pmix_value_t *v = &info[k].value;
        const pmix_proc_t *src = NULL;
        size_t cnt = 0;
        if (!PMIx_Check_key(info[k].key, PMIX_EVENT_AFFECTED_PROC) &&
            !PMIx_Check_key(info[k].key, PMIX_EVENT_AFFECTED_PROCS)) {
            continue;
        }
        if (PMIX_PROC == v->type && NULL != v->data.proc) {
            src = v->data.proc;
            cnt = 1;
        } else if (PMIX_DATA_ARRAY == v->type && NULL != v->data.darray &&
                   PMIX_PROC == v->data.darray->type && NULL != v->data.darray->array) {
            src = v->data.darray->array;
            cnt = v->data.darray->size;
        } else {
            return PMIX_ERR_BAD_PARAM;
        }
        pmix_proc_t *grown = realloc(*out, (*n + cnt + 1) * sizeof(**out));
        if (NULL == grown) {
            return PMIX_ERR_NOMEM;
        }
        memcpy(&grown[*n], src, cnt * sizeof(*src));
        *out = grown;
        *n += cnt;
    }
    return PMIX_SUCCESS;
}

/* px_evt_deliver (only 0) and px_evt_deliver_to (only = a registration's id). */
static pmix_status_t deliver(size_t only, pmix_status_t status, const pmix_proc_t *source,
                             const pmix_info_t info[], size_t ninfo, px_evt_done_fn done,
                             px_evt_done_res_fn done_res, void *cbdata)
{
    px_evt_match_t m = {.status = status, .only = only};
    px_evt_self_t self;
    pmix_proc_t *affected = NULL;
    px_evt_chain_t *c = NULL;
    pmix_status_t rc;

    if (ninfo > 0 && NULL == info) {
        return PMIX_ERR_BAD_PARAM;
    }
    pthread_mutex_lock(&px_evt_mod.lock);
    bool bound = px_evt_mod.bound;
    self = px_evt_mod.self;
    pthread_mutex_unlock(&px_evt_mod.lock);
    if (!bound) {
        return PMIX_ERR_INIT;
    }
    /* the source's locality is asked here, outside our lock (the callbacks may lock) */
    m.source = NULL != source ? *source : self.me;
    m.src_local = NULL != self.is_local
                      ? self.is_local(&m.source)
                      : (0 == strncmp(m.source.nspace, self.me.nspace, PMIX_MAX_NSLEN) &&
                         m.source.rank == self.me.rank);
    m.src_rm = NULL != self.is_rm && self.is_rm(&m.source);
    rc = affected_of(info, ninfo, &affected, &m.naffected);
    if (PMIX_SUCCESS != rc) {
        goto error;
    }
    m.affected = affected;
    for (size_t k = 0; k < ninfo; k++) {
        if (PMIx_Check_key(info[k].key, PMIX_EVENT_NON_DEFAULT)) {
            m.nondefault = PMIX_BOOL_TRUE == PMIx_Info_true(&info[k]);
        }
    }

    rc = PMIX_ERR_NOMEM;
    c = calloc(1, sizeof(*c));
    if (NULL == c || NULL == (c->info = PMIx_Info_create(ninfo + 1))) {
        goto error;
    }
    c->ninfo = ninfo;
    for (size_t k = 0; k < ninfo; k++) {
        if (PMIX_SUCCESS != PMIx_Info_xfer(&c->info[k], &info[k])) {
            goto error;
        }
    }
    c->status = status;
    c->source = m.source;
    c->done = done;
    c->done_res = done_res;
    c->cbdata = cbdata;

    pthread_mutex_lock(&px_evt_mod.lock);
    rc = PMIX_ERR_INIT;
    if (!px_evt_mod.bound) {
        goto error_locked;
    }
    rc = PMIX_ERR_NOMEM;
    if (0 != px_evt_assemble(&m, &c->regs, &c->nregs)) {
        goto error_locked;
    }
    /* kick before queueing: the drain cannot run before we unlock, and a loop that
     * refuses work leaves nothing to undo but the assembly */
    if (0 != kick_locked()) {
        for (size_t k = 0; k < c->nregs; k++) {
            px_evt_reg_unref(c->regs[k]);
        }
        c->nregs = 0;
        rc = PMIX_ERR_UNREACH;
        goto error_locked;
    }
    enqueue_locked(c);
    c->refs = 1; /* the module's */
    c->lnext = px_evt_mod.chains;
    if (NULL != c->lnext) {
        c->lnext->lprev = c;
    }
    px_evt_mod.chains = c;
    pthread_mutex_unlock(&px_evt_mod.lock);
    free(affected);
    return PMIX_SUCCESS;

error_locked:
    pthread_mutex_unlock(&px_evt_mod.lock);
error:
    free(affected);
    if (NULL != c) {
        c->done = NULL;
        c->done_res = NULL;
        chain_free(c);
    }
    return rc;
}

pmix_status_t px_evt_deliver(pmix_status_t status, const pmix_proc_t *source,
                             pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                             px_evt_done_fn done, void *cbdata)
{
    (void)range; /* the router has decided we are within it (see px_event.h) */
    return deliver(0, status, source, info, ninfo, done, NULL, cbdata);
}

pmix_status_t px_evt_deliver_res(pmix_status_t status, const pmix_proc_t *source,
                                 const pmix_info_t info[], size_t ninfo,
                                 px_evt_done_res_fn done_res, void *cbdata)
{
    return deliver(0, status, source, info, ninfo, NULL, done_res, cbdata);
}

pmix_status_t px_evt_deliver_to(size_t id, pmix_status_t status, const pmix_proc_t *source,
                                const pmix_info_t info[], size_t ninfo, px_evt_done_fn done,
                                void *cbdata)
{
    if (0 == id) {
        return PMIX_ERR_BAD_PARAM;
    }
    return deliver(id, status, source, info, ninfo, done, NULL, cbdata);
}
