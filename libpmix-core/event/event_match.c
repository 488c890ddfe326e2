/* event: turning registration directives into a px_evt_reg_t, deciding whether a
 * registration takes part in an event's chain, and ordering the chain. Parsing runs on
 * the registering thread without the lock; matching and ordering run with it held. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event/px_event_int.h"

void px_evt_reg_free(px_evt_reg_t *r)
{
    if (NULL == r) {
        return;
    }
    free(r->codes);
    free(r->name);
    free(r->before);
    free(r->after);
    free(r->custom);
    free(r->affected);
    free(r);
}

/* Append the procs of v (one PMIX_PROC, or a PMIX_DATA_ARRAY of PMIX_PROC) to *set. */
static pmix_status_t add_procs(const pmix_value_t *v, pmix_proc_t **set, size_t *n)
{
    const pmix_proc_t *src;
    size_t k;
    if (PMIX_PROC == v->type) {
        src = v->data.proc;
        k = 1;
    } else if (PMIX_DATA_ARRAY == v->type && NULL != v->data.darray &&
               PMIX_PROC == v->data.darray->type) {
        src = v->data.darray->array;
        k = v->data.darray->size;
    } else {
        return PMIX_ERR_BAD_PARAM;
    }
    if (0 == k) {
        return PMIX_SUCCESS;
    }
    if (NULL == src) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_proc_t *grown = realloc(*set, (*n + k) * sizeof(**set));
    if (NULL == grown) {
        return PMIX_ERR_NOMEM;
    }
    memcpy(&grown[*n], src, k * sizeof(*src));
    *set = grown;
    *n += k;
    return PMIX_SUCCESS;
}

/* A boolean directive as PMIX_INFO_TRUE reads it (Chap_API_Struct): PMIX_BOOL, or
 * PMIX_UNDEF (a key given with no value, as Open MPI 4.1 gives PMIX_EVENT_HDLR_PREPEND),
 * which is true. Any other type is refused. */
static pmix_status_t get_bool(const pmix_info_t *i, bool *out)
{
    if (PMIX_UNDEF == i->value.type) {
        *out = true;
        return PMIX_SUCCESS;
    }
    if (PMIX_BOOL != i->value.type) {
        return PMIX_ERR_BAD_PARAM;
    }
    *out = i->value.data.flag;
    return PMIX_SUCCESS;
}

static pmix_status_t get_string(const pmix_info_t *i, char **out)
{
    if (PMIX_STRING != i->value.type || NULL == i->value.data.string) {
        return PMIX_ERR_BAD_PARAM;
    }
    free(*out);
    *out = strdup(i->value.data.string);
    return NULL == *out ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

/* One directive into r (flags into the caller's locals). Unknown keys are ignored. */
static pmix_status_t parse_one(px_evt_reg_t *r, const pmix_info_t *i, bool *fic, bool *lic,
                               bool *prepend, bool *append, bool *has_range)
{
    const char *k = i->key;
    if (PMIx_Check_key(k, PMIX_EVENT_HDLR_NAME)) {
        return get_string(i, &r->name);
    }
    if (PMIx_Check_key(k, PMIX_EVENT_HDLR_FIRST)) {
        return get_bool(i, &r->first);
    }
    if (PMIx_Check_key(k, PMIX_EVENT_HDLR_LAST)) {
        return get_bool(i, &r->last);
    }
    if (PMIx_Check_key(k, PMIX_EVENT_HDLR_FIRST_IN_CATEGORY)) {
        return get_bool(i, fic);
    }
    if (PMIx_Check_key(k, PMIX_EVENT_HDLR_LAST_IN_CATEGORY)) {
        return get_bool(i, lic);
    }
    if (PMIx_Check_key(k, PMIX_EVENT_HDLR_PREPEND)) {
        return get_bool(i, prepend);
    }
    if (PMIx_Check_key(k, PMIX_EVENT_HDLR_APPEND)) {
        return get_bool(i, append);
    }
    if (PMIx_Check_key(k, PMIX_EVENT_HDLR_BEFORE)) {
        return get_string(i, &r->before);
    }
    if (PMIx_Check_key(k, PMIX_EVENT_HDLR_AFTER)) {
        return get_string(i, &r->after);
    }
    if (PMIx_Check_key(k, PMIX_RANGE)) {
        if (PMIX_DATA_RANGE != i->value.type) {
            return PMIX_ERR_BAD_PARAM;
        }
        r->range = i->value.data.range;
        *has_range = true;
        return PMIX_SUCCESS;
    }
    if (PMIx_Check_key(k, PMIX_EVENT_CUSTOM_RANGE)) {
        return add_procs(&i->value, &r->custom, &r->ncustom);
    }
    if (PMIx_Check_key(k, PMIX_EVENT_AFFECTED_PROC) ||
        PMIx_Check_key(k, PMIX_EVENT_AFFECTED_PROCS)) {
        r->has_affected = true;
        return add_procs(&i->value, &r->affected, &r->naffected);
    }
    if (PMIx_Check_key(k, PMIX_EVENT_RETURN_OBJECT)) {
        if (PMIX_POINTER != i->value.type) {
            return PMIX_ERR_BAD_PARAM;
        }
        r->retobj = i->value.data.ptr;
        r->has_retobj = true;
        return PMIX_SUCCESS;
    }
    return PMIX_SUCCESS;
}

pmix_status_t px_evt_reg_parse(const pmix_status_t codes[], size_t ncodes, const pmix_info_t info[],
                               size_t ninfo, pmix_notification_fn_t fn, px_evt_reg_t **out)
{
    pmix_status_t rc = PMIX_ERR_BAD_PARAM;
    bool fic = false, lic = false, prepend = false, append = false, has_range = false;
    px_evt_reg_t *r = NULL;

    *out = NULL;
    if (NULL == fn || (ncodes > 0 && NULL == codes) || (ninfo > 0 && NULL == info)) {
        goto error;
    }
    rc = PMIX_ERR_NOMEM;
    r = calloc(1, sizeof(*r));
    if (NULL == r) {
        goto error;
    }
    r->fn = fn;
    r->range = PMIX_RANGE_UNDEF;
    if (ncodes > 0) {
        r->codes = malloc(ncodes * sizeof(*codes));
        if (NULL == r->codes) {
            goto error;
        }
        memcpy(r->codes, codes, ncodes * sizeof(*codes));
        r->ncodes = ncodes;
    }
    for (size_t k = 0; k < ninfo; k++) {
        rc = parse_one(r, &info[k], &fic, &lic, &prepend, &append, &has_range);
        if (PMIX_SUCCESS != rc) {
            goto error;
        }
    }
    /* contradictory directives */
    rc = PMIX_ERR_BAD_PARAM;
    if ((r->first && r->last) || (fic && lic) || (prepend && append)) {
        goto error;
    }
    if (!has_range && NULL != r->custom) {
        r->range = PMIX_RANGE_CUSTOM; /* a custom range alone implies PMIX_RANGE_CUSTOM */
    }
    r->cat = 0 == ncodes ? PX_EVT_DEFAULT : 1 == ncodes ? PX_EVT_SINGLE : PX_EVT_MULTI;
    r->band = fic ? 0 : lic ? 2 : 1;
    r->pos = prepend ? -1 : 1; /* sign only; event.c turns it into a sequence number */
    *out = r;
    return PMIX_SUCCESS;
error:
    px_evt_reg_free(r);
    return rc;
}

void px_evt_reg_unref(px_evt_reg_t *r)
{
    if (0 == --r->refs && r->removed) {
        px_evt_reg_free(r);
    }
}

void px_evt_reg_key(const px_evt_reg_t *r, pmix_key_t key)
{
    if (NULL != r->name) {
        PMIx_Load_key(key, r->name);
    } else {
        snprintf(key, PMIX_MAX_KEYLEN + 1, "px.evhdlr.%zu", r->id);
    }
}

/* ---- matching ---- */

static bool same_nspace(const pmix_proc_t *a, const pmix_proc_t *b)
{
    return 0 == strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN);
}

/* p in set; a wildcard rank on either side matches any rank of that nspace. */
static bool proc_in(const pmix_proc_t *p, const pmix_proc_t *set, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (same_nspace(p, &set[k]) && PMIx_Check_rank(p->rank, set[k].rank)) {
            return true;
        }
    }
    return false;
}

/* The source range given at registration, judged against the event's source. */
static bool range_ok(const px_evt_reg_t *r, const px_evt_match_t *m)
{
    const pmix_proc_t *me = &px_evt_mod.self.me;
    switch (r->range) {
    case PMIX_RANGE_PROC_LOCAL:
        return same_nspace(&m->source, me) && m->source.rank == me->rank;
    case PMIX_RANGE_LOCAL:
        return m->src_local;
    case PMIX_RANGE_NAMESPACE:
        return same_nspace(&m->source, me);
    case PMIX_RANGE_RM:
        return m->src_rm;
    case PMIX_RANGE_CUSTOM:
        return proc_in(&m->source, r->custom, r->ncustom);
    default: /* UNDEF, SESSION, GLOBAL: anyone */
        return true;
    }
}

static bool codes_ok(const px_evt_reg_t *r, pmix_status_t status)
{
    if (0 == r->ncodes) {
        return true;
    }
    for (size_t k = 0; k < r->ncodes; k++) {
        if (r->codes[k] == status) {
            return true;
        }
    }
    return false;
}

static bool affected_ok(const px_evt_reg_t *r, const px_evt_match_t *m)
{
    if (!r->has_affected) {
        return true;
    }
    for (size_t k = 0; k < m->naffected; k++) {
        if (proc_in(&m->affected[k], r->affected, r->naffected)) {
            return true;
        }
    }
    return false;
}

static bool matches(const px_evt_reg_t *r, const px_evt_match_t *m)
{
    if (!r->active || r->removed || (0 != m->only && r->id != m->only)) {
        return false;
    }
    /* PMIX_EVENT_NON_DEFAULT skips every handler registered without codes, including a
     * FIRST or LAST one registered without codes */
    if (0 == r->ncodes && m->nondefault) {
        return false;
    }
    return codes_ok(r, m->status) && range_ok(r, m) && affected_ok(r, m);
}

/* ---- ordering ---- */

static bool before_in_category(const px_evt_reg_t *a, const px_evt_reg_t *b)
{
    return a->band != b->band ? a->band < b->band : a->pos < b->pos;
}

static bool named(const px_evt_reg_t *r, const char *name)
{
    return NULL != name && NULL != r->name && 0 == strcmp(r->name, name);
}

/* Reorder v (already in category order) so that every BEFORE/AFTER naming a handler
 * present in v holds; otherwise the category order is kept (a stable topological sort:
 * at each step the earliest handler with no unplaced predecessor). A cycle is broken by
 * taking the earliest remaining handler. Out of memory: the category order stays. */
static void apply_constraints(px_evt_reg_t **v, size_t n)
{
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        any = any || NULL != v[i]->before || NULL != v[i]->after;
    }
    if (!any || n < 2) {
        return;
    }
    bool *edge = calloc(n * n + n, sizeof(bool)); /* edge[i*n+j]: i runs before j */
    px_evt_reg_t **out = malloc(n * sizeof(*out));
    if (NULL == edge || NULL == out) {
        goto out;
    }
    bool *placed = edge + n * n;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            if (i == j) {
                continue;
            }
            if (named(v[j], v[i]->before)) {
                edge[i * n + j] = true;
            }
            if (named(v[j], v[i]->after)) {
                edge[j * n + i] = true;
            }
        }
    }
    for (size_t k = 0; k < n; k++) {
        size_t pick = n;
        for (size_t i = 0; i < n && pick == n; i++) {
            if (placed[i]) {
                continue;
            }
            bool free_of_preds = true;
            for (size_t j = 0; j < n && free_of_preds; j++) {
                free_of_preds = placed[j] || !edge[j * n + i];
            }
            if (free_of_preds) {
                pick = i;
            }
        }
        for (size_t i = 0; i < n && pick == n; i++) {
            if (!placed[i]) {
                pick = i; /* cycle */
            }
        }
        placed[pick] = true;
        out[k] = v[pick];
    }
    memcpy(v, out, n * sizeof(*v));
out:
    free(edge);
    free(out);
}

int px_evt_assemble(const px_evt_match_t *m, px_evt_reg_t ***out, size_t *n)
{
    size_t cap = 0, k = 0;
    *out = NULL;
    *n = 0;
    for (px_evt_reg_t *r = px_evt_mod.regs; NULL != r; r = r->next) {
        cap++;
    }
    if (0 == cap) {
        return 0;
    }
    px_evt_reg_t **v = malloc(cap * sizeof(*v));
    if (NULL == v) {
        return -1;
    }
    px_evt_reg_t *first = px_evt_mod.first_slot, *last = px_evt_mod.last_slot;
    if (NULL != first && matches(first, m)) {
        v[k++] = first;
    }
    for (int cat = 0; cat < PX_EVT_NCAT; cat++) {
        size_t start = k;
        for (px_evt_reg_t *r = px_evt_mod.regs; NULL != r; r = r->next) {
            if (r->first || r->last || r->cat != cat || !matches(r, m)) {
                continue;
            }
            /* insertion into category order */
            size_t at = k++;
            while (at > start && before_in_category(r, v[at - 1])) {
                v[at] = v[at - 1];
                at--;
            }
            v[at] = r;
        }
        apply_constraints(&v[start], k - start);
    }
    if (NULL != last && matches(last, m)) {
        v[k++] = last;
    }
    if (0 == k) {
        free(v);
        return 0;
    }
    for (size_t i = 0; i < k; i++) {
        v[i]->refs++;
    }
    *out = v;
    *n = k;
    return 0;
}
