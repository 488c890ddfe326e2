/* event: the process's registry of event handlers and its binding to a progress loop
 * (see README.md). These functions run on any thread, under px_evt_mod.lock; none of
 * them calls a handler. Chains are run by event_chain.c. */
#include <stdlib.h>

#include "event/px_event_int.h"

px_evt_module_t px_evt_mod = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .cond = PTHREAD_COND_INITIALIZER,
    .next_id = 1,
};

pmix_status_t px_evt_bind(px_progress_t *loop, const px_evt_self_t *self)
{
    pmix_status_t rc = PMIX_SUCCESS;
    if (NULL == loop || NULL == self) {
        return PMIX_ERR_BAD_PARAM;
    }
    pthread_mutex_lock(&px_evt_mod.lock);
    if (px_evt_mod.bound) {
        rc = PMIX_EXISTS;
        goto out;
    }
    px_evt_mod.bound = true;
    px_evt_mod.loop = loop;
    px_evt_mod.self = *self;
    px_evt_mod.gen++;
    px_evt_mod.kick_pending = false;
out:
    pthread_mutex_unlock(&px_evt_mod.lock);
    return rc;
}

/* Everything goes: registrations are marked removed (freed now unless a dead chain still
 * holds them), chains are marked dead. A handler running on the loop right now returns
 * into a dead chain; its completion, whenever it comes, only releases its results and
 * frees what is left (see event_chain.c). */
void px_evt_unbind(void)
{
    px_evt_reg_t *regs;
    struct px_evt_chain *dead;

    pthread_mutex_lock(&px_evt_mod.lock);
    if (!px_evt_mod.bound) {
        pthread_mutex_unlock(&px_evt_mod.lock);
        return;
    }
    px_evt_mod.bound = false;
    px_evt_mod.loop = NULL;
    px_evt_mod.gen++;
    px_evt_mod.kick_pending = false;
    regs = px_evt_mod.regs;
    px_evt_mod.regs = NULL;
    px_evt_mod.first_slot = NULL;
    px_evt_mod.last_slot = NULL;
    while (NULL != regs) {
        px_evt_reg_t *next = regs->next;
        regs->removed = true;
        if (0 == regs->refs) {
            px_evt_reg_free(regs);
        }
        regs = next;
    }
    dead = px_evt_chains_kill();
    pthread_mutex_unlock(&px_evt_mod.lock);
    px_evt_chains_free(dead);
}

bool px_evt_bound(void)
{
    pthread_mutex_lock(&px_evt_mod.lock);
    bool b = px_evt_mod.bound;
    pthread_mutex_unlock(&px_evt_mod.lock);
    return b;
}

pmix_status_t px_evt_register(const pmix_status_t codes[], size_t ncodes, const pmix_info_t info[],
                              size_t ninfo, pmix_notification_fn_t fn, size_t *id)
{
    px_evt_reg_t *r = NULL;
    pmix_status_t rc;

    if (NULL == id) {
        return PMIX_ERR_BAD_PARAM;
    }
    rc = px_evt_reg_parse(codes, ncodes, info, ninfo, fn, &r);
    if (PMIX_SUCCESS != rc) {
        return rc;
    }
    pthread_mutex_lock(&px_evt_mod.lock);
    if (!px_evt_mod.bound) {
        rc = PMIX_ERR_INIT;
        goto error;
    }
    if ((r->first && NULL != px_evt_mod.first_slot) || (r->last && NULL != px_evt_mod.last_slot)) {
        rc = PMIX_EXISTS;
        goto error;
    }
    if (r->first) {
        px_evt_mod.first_slot = r;
    }
    if (r->last) {
        px_evt_mod.last_slot = r;
    }
    r->pos = r->pos < 0 ? --px_evt_mod.prepend_seq : ++px_evt_mod.append_seq;
    r->id = px_evt_mod.next_id++;
    r->next = px_evt_mod.regs;
    px_evt_mod.regs = r;
    *id = r->id;
    pthread_mutex_unlock(&px_evt_mod.lock);
    return PMIX_SUCCESS;
error:
    pthread_mutex_unlock(&px_evt_mod.lock);
    px_evt_reg_free(r);
    return rc;
}

static px_evt_reg_t *find(size_t id, px_evt_reg_t ***link)
{
    px_evt_reg_t **p = &px_evt_mod.regs;
    for (; NULL != *p; p = &(*p)->next) {
        if ((*p)->id == id) {
            if (NULL != link) {
                *link = p;
            }
            return *p;
        }
    }
    return NULL;
}

void px_evt_activate(size_t id)
{
    pthread_mutex_lock(&px_evt_mod.lock);
    px_evt_reg_t *r = find(id, NULL);
    if (NULL != r) {
        r->active = true;
    }
    pthread_mutex_unlock(&px_evt_mod.lock);
}

/* Does a registration other than r name code? Lock held. */
static bool held_elsewhere(const px_evt_reg_t *r, pmix_status_t code)
{
    for (const px_evt_reg_t *o = px_evt_mod.regs; NULL != o; o = o->next) {
        for (size_t k = 0; o != r && k < o->ncodes; k++) {
            if (o->codes[k] == code) {
                return true;
            }
        }
    }
    return false;
}

/* r's codes that no other registration names, each once, into *gone (NULL, 0 when none or
 * out of memory). Lock held. */
static void released_codes(const px_evt_reg_t *r, pmix_status_t **gone, size_t *ngone)
{
    *gone = NULL;
    *ngone = 0;
    pmix_status_t *out = 0 < r->ncodes ? calloc(r->ncodes, sizeof(*out)) : NULL;
    for (size_t i = 0; NULL != out && i < r->ncodes; i++) {
        bool dup = false;
        for (size_t k = 0; k < *ngone; k++) {
            dup |= out[k] == r->codes[i];
        }
        if (!dup && !held_elsewhere(r, r->codes[i])) {
            out[(*ngone)++] = r->codes[i];
        }
    }
    if (0 == *ngone) {
        free(out);
        out = NULL;
    }
    *gone = out;
}

pmix_status_t px_evt_deregister(size_t id)
{
    return px_evt_deregister_released(id, NULL, NULL);
}

/* How "no invocation starts once this returns" holds: the loop decides to call a handler
 * under the lock, after checking removed, and counts the call in entering until fn
 * returns. We set removed under the lock, so any later decision skips it; a decision
 * already taken is waited for (the call has then begun and returned) unless we are that
 * very call (a handler deregistering itself or another one from the loop thread). */
pmix_status_t px_evt_deregister_released(size_t id, pmix_status_t **gone, size_t *ngone)
{
    px_evt_reg_t **link = NULL;
    pmix_status_t rc = PMIX_SUCCESS;

    pthread_mutex_lock(&px_evt_mod.lock);
    px_evt_reg_t *r = find(id, &link);
    if (NULL == r) {
        rc = PMIX_ERR_BAD_PARAM;
        goto out;
    }
    if (NULL != gone) {
        released_codes(r, gone, ngone);
    }
    *link = r->next;
    r->removed = true;
    if (px_evt_mod.first_slot == r) {
        px_evt_mod.first_slot = NULL;
    }
    if (px_evt_mod.last_slot == r) {
        px_evt_mod.last_slot = NULL;
    }
    r->refs++; /* ours while waiting: the chain may drop its count meanwhile */
    while (r->entering > 0 && !pthread_equal(r->enter_thread, pthread_self())) {
        pthread_cond_wait(&px_evt_mod.cond, &px_evt_mod.lock);
    }
    px_evt_reg_unref(r); /* frees it unless a chain still holds it */
out:
    pthread_mutex_unlock(&px_evt_mod.lock);
    return rc;
}

size_t px_evt_count(void)
{
    size_t n = 0;
    pthread_mutex_lock(&px_evt_mod.lock);
    for (px_evt_reg_t *r = px_evt_mod.regs; NULL != r; r = r->next) {
        n += r->active ? 1 : 0;
    }
    pthread_mutex_unlock(&px_evt_mod.lock);
    return n;
}
