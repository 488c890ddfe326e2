/* server: process groups (Chap_API_Sets_Groups), building them — the construct, invite
 * and join requests of local clients, the group events, the fault-tolerant trackers, and
 * the host's `group` upcall for what reaches beyond this server (members on other nodes,
 * context ids). A group's life is one enum moved only by px_grp_move (the diagram:
 * px_srv_grp_int.h); what follows once a group is built is in server_group_use.c. Runs on
 * the loop with px_srv->lock held; the host's answers are shifted back there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "common/px_query.h"
#include "server/px_server.h"
#include "server/px_srv_host.h"
#include "server/px_srv_grp_int.h"
#include "types/px_types.h"

static const char *const state_names[GRP_NSTATES] = {"COLLECTING",  "IN_HOST",          "ACTIVE",
                                                     "DESTRUCTING", "DESTRUCT_IN_HOST", "ENDED"};

static const bool moves[GRP_NSTATES][GRP_NSTATES] = {
    [GRP_COLLECTING] = {[GRP_IN_HOST] = true, [GRP_ACTIVE] = true, [GRP_ENDED] = true},
    [GRP_IN_HOST] = {[GRP_ACTIVE] = true, [GRP_ENDED] = true},
    [GRP_ACTIVE] = {[GRP_DESTRUCTING] = true, [GRP_ENDED] = true},
    [GRP_DESTRUCTING] = {[GRP_DESTRUCT_IN_HOST] = true, [GRP_ACTIVE] = true, [GRP_ENDED] = true},
    [GRP_DESTRUCT_IN_HOST] = {[GRP_ACTIVE] = true, [GRP_ENDED] = true},
};

const char *px_grp_state_name(grp_state_t st)
{
    return st < GRP_NSTATES ? state_names[st] : "?";
}

/* ---- small helpers ---- */

bool px_grp_same_proc(const pmix_proc_t *a, const pmix_proc_t *b)
{
    return PMIx_Check_nspace(a->nspace, b->nspace) && a->rank == b->rank;
}

px_grp_t *px_grp_find(const char *id)
{
    for (px_grp_t *g = px_srv->groups; g != NULL; g = g->next) {
        if (strncmp(g->id, id, PMIX_MAX_NSLEN) == 0) {
            return g;
        }
    }
    return NULL;
}

mem_t *px_grp_mem_find(px_grp_t *g, const pmix_proc_t *p)
{
    for (size_t i = 0; i < g->nm; i++) {
        if (px_grp_same_proc(&g->m[i].proc, p)) {
            return &g->m[i];
        }
    }
    return NULL;
}

/* Built and not yet gone: what queries, PMIX_GROUP_NAMES and fences see. */
bool px_grp_exists(const px_grp_t *g)
{
    return g->state == GRP_ACTIVE || g->state == GRP_DESTRUCTING ||
           g->state == GRP_DESTRUCT_IN_HOST;
}

/* Is p still a member (of an active group, or of one being built)? */
bool px_grp_mem_alive(const mem_t *m)
{
    return m->st == MEM_WAITING || m->st == MEM_IN || m->st == MEM_DONE;
}

static bool rank_local(const pmix_proc_t *p)
{
    px_nspace_t *ns = px_store_find(&px_srv->store, p->nspace);
    return ns != NULL && px_ns_rank_is_local(ns, p->rank);
}

static mem_t *mem_add(px_grp_t *g, const pmix_proc_t *p)
{
    mem_t *m = px_grp_mem_find(g, p);
    if (m != NULL) {
        return m;
    }
    if (g->nm == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 8;
        mem_t *grown = realloc(g->m, cap * sizeof(*grown));
        if (grown == NULL) {
            return NULL;
        }
        g->m = grown;
        g->cap = cap;
    }
    m = &g->m[g->nm++];
    memset(m, 0, sizeof(*m));
    m->proc = *p;
    m->st = MEM_WAITING;
    m->local = rank_local(p);
    m->order = SIZE_MAX / 2 + g->nm; /* after the named members, in arrival order */
    return m;
}

void px_grp_mem_release(mem_t *m)
{
    px_srv_client_release(m->client);
    m->client = NULL;
}

bool px_grp_state_allowed(grp_state_t from, grp_state_t to)
{
    return from < GRP_NSTATES && to < GRP_NSTATES && moves[from][to];
}

void px_grp_move(px_grp_t *g, grp_state_t to, const char *why)
{
    if (!px_grp_state_allowed(g->state, to)) {
        px_debug(1, "server", "group %s: refused move %s -> %s (%s)", g->id,
                 px_grp_state_name(g->state), px_grp_state_name(to), why);
        return;
    }
    px_debug(2, "server", "group %s: %s -> %s (%s)", g->id, px_grp_state_name(g->state),
             px_grp_state_name(to), why);
    g->state = to;
}

static void grp_unlink(px_grp_t *g)
{
    for (px_grp_t **pp = &px_srv->groups; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == g) {
            *pp = g->next;
            return;
        }
    }
}

void px_grp_free(px_grp_t *g)
{
    for (size_t i = 0; i < g->nm; i++) {
        px_grp_mem_release(&g->m[i]);
        PMIx_Info_free(g->m[i].ginfo, g->m[i].nginfo);
    }
    if (g->timer != NULL) {
        event_free(g->timer);
    }
    free(g->m);
    PMIx_Info_free(g->dirs, g->ndirs);
    free(g->order);
    free(g->raw);
    px_bfrops_buf_free(&g->ginfo);
    free(g);
}

void px_grp_timer_stop(px_grp_t *g)
{
    if (g->timer != NULL) {
        event_free(g->timer);
        g->timer = NULL;
    }
}

/* Move to ENDED, off the table; freed now unless an upcall holds it. */
void px_grp_end(px_grp_t *g, const char *why)
{
    px_grp_move(g, GRP_ENDED, why);
    px_grp_timer_stop(g);
    grp_unlink(g);
    for (size_t i = 0; i < g->nm; i++) {
        px_grp_mem_release(&g->m[i]);
    }
    if (g->upcalls == 0) {
        px_grp_free(g);
    }
}

/* The members still in the group, in order (owned by the caller; NULL when none). */
pmix_proc_t *px_grp_alive_procs(const px_grp_t *g, size_t *n, const pmix_proc_t *except)
{
    pmix_proc_t *p = calloc(g->nm ? g->nm : 1, sizeof(*p));
    *n = 0;
    for (size_t i = 0; p != NULL && i < g->nm; i++) {
        if (px_grp_mem_alive(&g->m[i]) &&
            (except == NULL || !px_grp_same_proc(&g->m[i].proc, except))) {
            p[(*n)++] = g->m[i].proc;
        }
    }
    return p;
}

static pmix_status_t load_procs(pmix_info_t *info, const char *key, const pmix_proc_t *p, size_t n)
{
    pmix_data_array_t da = {.type = PMIX_PROC, .size = n, .array = (void *)p};
    return PMIx_Info_load(info, key, &da, PMIX_DATA_ARRAY);
}

/* ---- events ---- */

/* Raise code about the group to targets (NULL: every member still in it but `about`):
 * PMIX_GROUP_ID, PMIX_EVENT_AFFECTED_PROC = about (if any), and with `membership` the
 * members still in the group and the context id. */
void px_grp_event(px_grp_t *g, pmix_status_t code, const pmix_proc_t *source,
                  const pmix_proc_t *about, const pmix_proc_t *targets, size_t ntargets,
                  bool membership)
{
    size_t nall = 0;
    pmix_proc_t *all = NULL;
    if (targets == NULL || membership) {
        all = px_grp_alive_procs(g, &nall, NULL);
        if (all == NULL) {
            return;
        }
    }
    size_t nt = ntargets;
    pmix_proc_t *t = NULL;
    if (targets == NULL) {
        t = px_grp_alive_procs(g, &nt, about);
        targets = t;
    }
    pmix_info_t info[4];
    size_t n = 0;
    PMIx_Info_load(&info[n++], PMIX_GROUP_ID, g->id, PMIX_STRING);
    if (about != NULL) {
        PMIx_Info_load(&info[n++], PMIX_EVENT_AFFECTED_PROC, about, PMIX_PROC);
    }
    if (membership) {
        load_procs(&info[n++], PMIX_GROUP_MEMBERSHIP, all, nall);
        if (g->has_ctx) {
            PMIx_Info_load(&info[n++], PMIX_GROUP_CONTEXT_ID, &g->ctxid, PMIX_SIZE);
        }
    }
    px_debug(2, "server", "group %s: event %s to %zu process(es)", g->id, PMIx_Error_string(code),
             nt);
    if (targets != NULL && nt > 0) {
        px_srv_event_emit(code, source != NULL ? source : &px_srv->myproc, targets, nt, info, n);
    }
    for (size_t i = 0; i < n; i++) {
        PMIx_Info_destruct(&info[i]);
    }
    free(all);
    free(t);
}

/* To the leader when there is one still in the group, else to every member. */
void px_grp_event_leader(px_grp_t *g, pmix_status_t code, const pmix_proc_t *source,
                         const pmix_proc_t *about)
{
    mem_t *l = g->has_leader ? px_grp_mem_find(g, &g->leader) : NULL;
    if (l != NULL && px_grp_mem_alive(l)) {
        px_grp_event(g, code, source, about, &g->leader, 1, false);
    } else {
        px_grp_event(g, code, source, about, NULL, 0, false);
    }
}

/* ---- answers ---- */

/* The group's results: context id (first, as programs read results[0]), id, membership;
 * then the PMIX_GROUP_INFO blob. */
static pmix_status_t pack_results(px_grp_t *g, pmix_data_buffer_t *body)
{
    size_t n = 0;
    pmix_proc_t *p = px_grp_alive_procs(g, &n, NULL);
    if (p == NULL) {
        return PMIX_ERR_NOMEM;
    }
    pmix_info_t res[3];
    size_t k = 0;
    if (g->has_ctx) {
        PMIx_Info_load(&res[k++], PMIX_GROUP_CONTEXT_ID, &g->ctxid, PMIX_SIZE);
    }
    PMIx_Info_load(&res[k++], PMIX_GROUP_ID, g->id, PMIX_STRING);
    load_procs(&res[k++], PMIX_GROUP_MEMBERSHIP, p, n);
    pmix_status_t rc = px_bfrops_pack_info_array(body, res, k);
    if (rc == PMIX_SUCCESS && g->ginfo.bytes_used > 0) {
        rc = px_bfrops_buf_append(body, g->ginfo.base_ptr, g->ginfo.bytes_used);
    }
    for (size_t i = 0; i < k; i++) {
        PMIx_Info_destruct(&res[i]);
    }
    free(p);
    return rc;
}

static void answer(mem_t *m, pmix_status_t status, const pmix_data_buffer_t *body)
{
    if (m->client != NULL) {
        px_srv_reply(m->client, m->seq, m->tag, status, body);
        px_grp_mem_release(m);
    }
}

/* Answer every parked request with status (no body). */
void px_grp_answer_all(px_grp_t *g, pmix_status_t status)
{
    for (size_t i = 0; i < g->nm; i++) {
        answer(&g->m[i], status, NULL);
    }
}

void px_grp_park(mem_t *m, px_srv_client_t *c, uint32_t seq, uint32_t tag)
{
    px_grp_mem_release(m);
    m->client = c;
    px_srv_client_retain(c);
    m->seq = seq;
    m->tag = tag;
    m->st = MEM_IN;
}

/* ---- directives ---- */

/* The directives the library acts on (any other PMIX_INFO_REQD one is refused). */
static const char *const honoured[] = {PMIX_GROUP_ID,
                                       PMIX_GROUP_LEADER,
                                       PMIX_GROUP_OPTIONAL,
                                       PMIX_GROUP_NOTIFY_TERMINATION,
                                       PMIX_GROUP_FT_COLLECTIVE,
                                       PMIX_GROUP_ASSIGN_CONTEXT_ID,
                                       PMIX_GROUP_LOCAL_ONLY,
                                       PMIX_GROUP_INFO,
                                       PMIX_GROUP_BOOTSTRAP,
                                       PMIX_GROUP_ADD_MEMBERS,
                                       PMIX_GROUP_FINAL_MEMBERSHIP_ORDER,
                                       PMIX_TIMEOUT,
                                       PMIX_RANGE,
                                       NULL};

pmix_status_t px_grp_parse_dirs(const pmix_info_t *info, size_t n, dirs_t *d)
{
    memset(d, 0, sizeof(*d));
    const char *reqd = px_info_unhonoured(info, n, honoured);
    if (reqd != NULL) {
        px_debug(1, "server", "group request: required directive %s not supported", reqd);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    for (size_t i = 0; i < n; i++) {
        const pmix_info_t *x = &info[i];
        if (PMIX_CHECK_KEY(x, PMIX_GROUP_OPTIONAL)) {
            d->optional = PMIX_INFO_TRUE(x);
        } else if (PMIX_CHECK_KEY(x, PMIX_GROUP_NOTIFY_TERMINATION)) {
            d->notify = PMIX_INFO_TRUE(x);
        } else if (PMIX_CHECK_KEY(x, PMIX_GROUP_FT_COLLECTIVE)) {
            d->ft = PMIX_INFO_TRUE(x);
        } else if (PMIX_CHECK_KEY(x, PMIX_GROUP_ASSIGN_CONTEXT_ID)) {
            d->ctx = PMIX_INFO_TRUE(x);
        } else if (PMIX_CHECK_KEY(x, PMIX_GROUP_LOCAL_ONLY)) {
            d->local_only = PMIX_INFO_TRUE(x);
            d->local_only_given = true;
        } else if (PMIX_CHECK_KEY(x, PMIX_GROUP_LEADER)) {
            d->leader = PMIX_INFO_TRUE(x);
        } else if (PMIX_CHECK_KEY(x, PMIX_TIMEOUT)) {
            if (PMIx_Value_get_number(&x->value, &d->timeout, PMIX_INT) != PMIX_SUCCESS) {
                return PMIX_ERR_BAD_PARAM;
            }
        } else if (PMIX_CHECK_KEY(x, PMIX_GROUP_BOOTSTRAP)) {
            if (PMIx_Value_get_number(&x->value, &d->bootstrap, PMIX_SIZE) != PMIX_SUCCESS ||
                d->bootstrap == 0) {
                return PMIX_ERR_BAD_PARAM;
            }
        } else if (PMIX_CHECK_KEY(x, PMIX_GROUP_ADD_MEMBERS)) {
            if ((d->add = px_value_procs(&x->value, &d->nadd)) == NULL) {
                return PMIX_ERR_BAD_PARAM;
            }
        } else if (PMIX_CHECK_KEY(x, PMIX_GROUP_FINAL_MEMBERSHIP_ORDER)) {
            if ((d->order = px_value_procs(&x->value, &d->norder)) == NULL) {
                return PMIX_ERR_BAD_PARAM;
            }
        } else if (PMIX_CHECK_KEY(x, PMIX_GROUP_INFO)) {
            const pmix_value_t *v = &x->value;
            if (v->type != PMIX_DATA_ARRAY || v->data.darray == NULL ||
                (v->data.darray->size > 0 && v->data.darray->type != PMIX_INFO)) {
                return PMIX_ERR_BAD_PARAM;
            }
            d->ginfo = v->data.darray->array;
            d->nginfo = v->data.darray->size;
        }
    }
    return PMIX_SUCCESS;
}

/* The members named by procs[0..n): a wildcard stands for every rank of its namespace,
 * in order; duplicates keep their first place. */
static pmix_status_t expand(const pmix_proc_t *procs, size_t n, pmix_proc_t **out, size_t *nout)
{
    size_t cap = n + 1, k = 0;
    pmix_proc_t *o = calloc(cap, sizeof(*o));
    if (o == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t first = procs[i].rank, count = 1;
        if (procs[i].rank == PMIX_RANK_WILDCARD) {
            px_nspace_t *ns = px_store_find(&px_srv->store, procs[i].nspace);
            const pmix_value_t *v = ns ? px_kvset_get(&ns->job, PMIX_JOB_SIZE) : NULL;
            if (v == NULL || PMIx_Value_get_number(v, &count, PMIX_UINT32) != PMIX_SUCCESS) {
                free(o);
                return PMIX_ERR_NOT_FOUND;
            }
            first = 0;
        } else {
            /* a rank the job does not have names nobody */
            px_nspace_t *ns = px_store_find(&px_srv->store, procs[i].nspace);
            const pmix_value_t *v = ns ? px_kvset_get(&ns->job, PMIX_JOB_SIZE) : NULL;
            uint32_t size = 0;
            if (procs[i].rank >= PMIX_RANK_VALID ||
                (v != NULL && PMIx_Value_get_number(v, &size, PMIX_UINT32) == PMIX_SUCCESS &&
                 procs[i].rank >= size)) {
                free(o);
                return PMIX_ERR_BAD_PARAM;
            }
        }
        for (uint32_t r = first; r < first + count; r++) {
            pmix_proc_t p;
            PMIx_Load_procid(&p, procs[i].nspace, r);
            bool dup = false;
            for (size_t j = 0; j < k && !dup; j++) {
                dup = px_grp_same_proc(&o[j], &p);
            }
            if (dup) {
                continue;
            }
            if (k == cap) {
                cap *= 2;
                pmix_proc_t *grown = realloc(o, cap * sizeof(*o));
                if (grown == NULL) {
                    free(o);
                    return PMIX_ERR_NOMEM;
                }
                o = grown;
            }
            o[k++] = p;
        }
    }
    *out = o;
    *nout = k;
    return PMIX_SUCCESS;
}

static int cmp_proc(const void *a, const void *b)
{
    const pmix_proc_t *x = a, *y = b;
    int c = strncmp(x->nspace, y->nspace, PMIX_MAX_NSLEN);
    return c != 0 ? c : (x->rank < y->rank ? -1 : x->rank > y->rank);
}

static int cmp_mem(const void *a, const void *b)
{
    return cmp_proc(&((const mem_t *)a)->proc, &((const mem_t *)b)->proc);
}

static int cmp_order(const void *a, const void *b)
{
    const mem_t *x = a, *y = b;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* ---- completion ---- */

void px_grp_timer_start(px_grp_t *g, int secs)
{
    if (secs <= 0 || g->timer != NULL) {
        return;
    }
    g->timer = evtimer_new(px_progress_base(px_srv->prog), px_grp_timeout, g);
    struct timeval tv = {secs, 0};
    if (g->timer != NULL) {
        evtimer_add(g->timer, &tv);
    }
}

/* Members that will not be in the final group leave the array; the rest take their final
 * order: PMIX_GROUP_FINAL_MEMBERSHIP_ORDER, else the order the members were named in when
 * every caller named them alike, else sorted by namespace and rank (a bootstrap too). */
static void settle_order(px_grp_t *g)
{
    size_t k = 0;
    for (size_t i = 0; i < g->nm; i++) {
        if (px_grp_mem_alive(&g->m[i])) {
            g->m[k++] = g->m[i];
        } else {
            px_grp_mem_release(&g->m[i]);
            PMIx_Info_free(g->m[i].ginfo, g->m[i].nginfo);
        }
    }
    g->nm = k;
    if (g->order != NULL) {
        size_t pos = 0;
        for (size_t o = 0; o < g->norder; o++) {
            for (size_t i = pos; i < g->nm; i++) {
                if (px_grp_same_proc(&g->m[i].proc, &g->order[o])) {
                    mem_t t = g->m[pos];
                    g->m[pos++] = g->m[i];
                    g->m[i] = t;
                    break;
                }
            }
        }
    } else if (g->unordered || g->kind == KIND_BOOTSTRAP) {
        qsort(g->m, g->nm, sizeof(*g->m), cmp_mem);
    } else {
        qsort(g->m, g->nm, sizeof(*g->m), cmp_order);
    }
}

/* The members' PMIX_GROUP_INFO contributions as this server knows them. */
static pmix_status_t local_ginfo(px_grp_t *g, pmix_data_buffer_t *buf)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < g->nm && rc == PMIX_SUCCESS; i++) {
        mem_t *m = &g->m[i];
        if (m->nginfo == 0) {
            continue;
        }
        rc = px_bfrops_pack(buf, &m->proc, 1, PMIX_PROC);
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack_info_array(buf, m->ginfo, m->nginfo);
        }
    }
    return rc;
}

/* The group is built: every parked member gets the results, the members become DONE. */
static void grp_built(px_grp_t *g, pmix_status_t status)
{
    px_grp_timer_stop(g);
    px_grp_move(g, GRP_ACTIVE, "built");
    pmix_data_buffer_t body;
    px_bfrops_buf_init(&body);
    pmix_status_t rc = pack_results(g, &body);
    for (size_t i = 0; i < g->nm; i++) {
        answer(&g->m[i], rc == PMIX_SUCCESS ? status : rc, rc == PMIX_SUCCESS ? &body : NULL);
        g->m[i].st = MEM_DONE;
    }
    px_bfrops_buf_free(&body);
    /* every server hosting members builds the group and tells its own members: another
     * server's hear it from theirs (once) */
    pmix_proc_t *here = calloc(g->nm ? g->nm : 1, sizeof(*here));
    size_t nhere = 0;
    for (size_t i = 0; here != NULL && i < g->nm; i++) {
        if (g->m[i].local && px_grp_mem_alive(&g->m[i])) {
            here[nhere++] = g->m[i].proc;
        }
    }
    if (g->kind == KIND_INVITE && nhere > 0) {
        /* what releases the joiners in the Standard's invite procedure, raised here for the
         * leader: the final membership and context id */
        px_grp_event(g, PMIX_GROUP_CONSTRUCT_COMPLETE, g->has_leader ? &g->leader : NULL, NULL,
                     here, nhere, true);
    }
    if (g->has_ctx && nhere > 0) {
        px_grp_event(g, PMIX_GROUP_CONTEXT_ID_ASSIGNED, NULL, NULL, here, nhere, true);
    }
    free(here);
}

/* ---- the host's group upcall ---- */

typedef struct {
    px_grp_t *g; /* counted in g->upcalls */
    char id[PMIX_MAX_NSLEN + 1];
    pmix_group_operation_t op;
    pmix_proc_t *procs; /* owned */
    size_t nprocs;
    pmix_info_t *dirs; /* owned */
    size_t ndirs;
    pmix_proc_t *carried; /* owned: the members whose requests the answer releases */
    size_t ncarried;
    pmix_status_t status;
    pmix_info_t *res; /* owned copy of the host's answer */
    size_t nres;
} grp_up_t;

static void up_free(grp_up_t *u)
{
    free(u->procs);
    PMIx_Info_free(u->dirs, u->ndirs);
    free(u->carried);
    PMIx_Info_free(u->res, u->nres);
    free(u);
}

static void up_answer(grp_up_t *u);

static void up_answer_on_loop(void *arg)
{
    up_answer(arg);
}

/* The host's answer; any thread. */
static void host_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    grp_up_t *u = cbdata;
    u->status = status;
    if (ninfo > 0 && px_info_array_dup(info, ninfo, &u->res) == PMIX_SUCCESS) {
        u->nres = ninfo;
    }
    if (release_fn != NULL) {
        release_fn(release_cbdata);
    }
    if (px_srv_shift(up_answer_on_loop, u) != 0) {
        px_debug(1, "server", "group %s: the host's answer is lost (loop gone)", u->id);
    }
}

/* Loop, no lock held. */
static void group_upcall(void *arg)
{
    grp_up_t *u = arg;
    pmix_status_t rc =
        px_srv->module.group(u->op, u->id, u->procs, u->nprocs, u->dirs, u->ndirs, host_cb, u);
    if (rc != PMIX_SUCCESS) {
        pthread_mutex_lock(&px_srv->lock);
        u->status = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
        up_answer(u);
        pthread_mutex_unlock(&px_srv->lock);
    }
}

#define NEXTRA 8 /* what px_grp_to_host adds to the directives, at most */

/* Hand op to the host, carrying the members in carried[] (their parked requests are
 * answered by the host's answer). procs: the membership as this server knows it.
 * PMIX_SUCCESS or an error (nothing handed up). */
pmix_status_t px_grp_to_host(px_grp_t *g, pmix_group_operation_t op, const mem_t *const *carried,
                             size_t ncarried)
{
    grp_up_t *u = calloc(1, sizeof(*u));
    pmix_info_t *extra = PMIx_Info_create(NEXTRA);
    pmix_status_t rc = PMIX_ERR_NOMEM;
    if (u == NULL || extra == NULL) {
        goto error;
    }
    u->g = g;
    memcpy(u->id, g->id, sizeof(u->id));
    u->op = op;
    u->procs = px_grp_alive_procs(g, &u->nprocs, NULL);
    u->carried = calloc(ncarried ? ncarried : 1, sizeof(*u->carried));
    if (u->procs == NULL || u->carried == NULL) {
        goto error;
    }
    bool boot = g->kind == KIND_BOOTSTRAP;
    if (boot) {
        /* one participant: a leader names itself, an added member nobody */
        u->nprocs = ncarried == 1 && carried[0]->leader ? 1 : 0;
        u->procs[0] = carried[0]->proc;
    }
    for (size_t i = 0; i < ncarried; i++) {
        u->carried[i] = carried[i]->proc;
    }
    u->ncarried = ncarried;
    /* what the host gets beyond the caller's directives: the local collective status, our
     * participants, their endpoint data and group info */
    size_t ne = 0;
    pmix_status_t lst = PMIX_SUCCESS;
    PMIx_Info_load(&extra[ne++], PMIX_LOCAL_COLLECTIVE_STATUS, &lst, PMIX_STATUS);
    load_procs(&extra[ne++], PX_GRP_PARTS, u->carried, ncarried);
    if (op == PMIX_GROUP_CONSTRUCT) {
        pmix_data_buffer_t ep, gi;
        px_bfrops_buf_init(&ep);
        px_bfrops_buf_init(&gi);
        rc = PMIX_SUCCESS;
        for (size_t i = 0; i < ncarried && rc == PMIX_SUCCESS; i++) {
            rc = px_srv_pack_posted(&ep, &carried[i]->proc, true);
            if (rc == PMIX_SUCCESS && carried[i]->nginfo > 0) {
                rc = px_bfrops_pack(&gi, &carried[i]->proc, 1, PMIX_PROC);
                if (rc == PMIX_SUCCESS) {
                    rc = px_bfrops_pack_info_array(&gi, carried[i]->ginfo, carried[i]->nginfo);
                }
            }
        }
        pmix_byte_object_t bo = {.bytes = ep.base_ptr, .size = ep.bytes_used};
        if (rc == PMIX_SUCCESS) {
            rc = PMIx_Info_load(&extra[ne++], PMIX_GROUP_ENDPT_DATA, &bo, PMIX_BYTE_OBJECT);
        }
        bo = (pmix_byte_object_t){.bytes = gi.base_ptr, .size = gi.bytes_used};
        if (rc == PMIX_SUCCESS) {
            rc = PMIx_Info_load(&extra[ne++], PX_GRP_GINFO, &bo, PMIX_BYTE_OBJECT);
        }
        if (rc == PMIX_SUCCESS && g->unordered) {
            bool yes = true;
            rc = PMIx_Info_load(&extra[ne++], PX_GRP_UNORDERED, &yes, PMIX_BOOL);
        }
        if (rc == PMIX_SUCCESS && boot) {
            bool yes = true;
            rc = PMIx_Info_load(&extra[ne++], PX_GRP_BOOT, &yes, PMIX_BOOL);
        }
        if (rc == PMIX_SUCCESS && boot && u->nprocs == 1) {
            /* the number of leaders, and the members added as this server knows them */
            rc = PMIx_Info_load(&extra[ne++], PMIX_GROUP_BOOTSTRAP, &g->bootstrap, PMIX_SIZE);
            pmix_proc_t *adds = calloc(g->nm ? g->nm : 1, sizeof(*adds));
            size_t na = 0;
            for (size_t i = 0; adds != NULL && i < g->nm; i++) {
                if (!g->m[i].leader) {
                    adds[na++] = g->m[i].proc;
                }
            }
            if (rc == PMIX_SUCCESS) {
                rc = adds != NULL ? load_procs(&extra[ne++], PMIX_GROUP_ADD_MEMBERS, adds, na)
                                  : PMIX_ERR_NOMEM;
            }
            free(adds);
        }
        px_bfrops_buf_free(&ep);
        px_bfrops_buf_free(&gi);
        if (rc != PMIX_SUCCESS) {
            goto error;
        }
    }
    rc = PMIX_ERR_NOMEM;
    u->dirs = PMIx_Info_create(g->ndirs + ne);
    if (u->dirs == NULL) {
        goto error;
    }
    for (size_t i = 0; i < g->ndirs; i++) {
        if (boot && (PMIX_CHECK_KEY(&g->dirs[i], PMIX_GROUP_BOOTSTRAP) ||
                     PMIX_CHECK_KEY(&g->dirs[i], PMIX_GROUP_ADD_MEMBERS))) {
            continue; /* said per participant above */
        }
        PMIx_Info_xfer(&u->dirs[u->ndirs++], &g->dirs[i]);
    }
    for (size_t i = 0; i < ne; i++) {
        PMIx_Info_xfer(&u->dirs[u->ndirs++], &extra[i]);
    }
    PMIx_Info_free(extra, NEXTRA);
    extra = NULL;
    g->upcalls++;
    if (px_srv_upcall(group_upcall, u) != 0) {
        g->upcalls--;
        rc = PMIX_ERR_OUT_OF_RESOURCE;
        goto error;
    }
    return PMIX_SUCCESS;
error:
    PMIx_Info_free(extra, NEXTRA);
    if (u != NULL) {
        up_free(u);
    }
    return rc;
}

/* Read the host's construct answer into g. */
static void take_host_results(px_grp_t *g, grp_up_t *u)
{
    for (size_t i = 0; i < u->nres; i++) {
        pmix_info_t *x = &u->res[i];
        if (PMIX_CHECK_KEY(x, PMIX_GROUP_CONTEXT_ID)) {
            g->has_ctx = PMIx_Value_get_number(&x->value, &g->ctxid, PMIX_SIZE) == PMIX_SUCCESS;
        } else if (PMIX_CHECK_KEY(x, PMIX_GROUP_MEMBERSHIP)) {
            size_t n = 0;
            const pmix_proc_t *p = px_value_procs(&x->value, &n);
            if (p == NULL) {
                continue;
            }
            /* the host's membership is the final one, in its order */
            mem_t *m = calloc(n ? n : 1, sizeof(*m));
            if (m == NULL) {
                continue;
            }
            for (size_t k = 0; k < n; k++) {
                mem_t *old = px_grp_mem_find(g, &p[k]);
                if (old != NULL) {
                    m[k] = *old;
                    old->client = NULL;
                    old->ginfo = NULL;
                    old->nginfo = 0;
                } else {
                    m[k].proc = p[k];
                    m[k].local = rank_local(&p[k]);
                }
                m[k].st = MEM_DONE;
            }
            for (size_t k = 0; k < g->nm; k++) {
                answer(&g->m[k], PMIX_ERR_NOT_A_MEMBER, NULL); /* the host left it out */
                PMIx_Info_free(g->m[k].ginfo, g->m[k].nginfo);
            }
            free(g->m);
            g->m = m;
            g->nm = g->cap = n;
        } else if (PMIX_CHECK_KEY(x, PMIX_GROUP_ENDPT_DATA) && x->value.type == PMIX_BYTE_OBJECT &&
                   x->value.data.bo.size > 0) {
            pmix_data_buffer_t b;
            px_bfrops_buf_init(&b);
            if (px_bfrops_buf_append(&b, x->value.data.bo.bytes, x->value.data.bo.size) ==
                PMIX_SUCCESS) {
                px_srv_store_remote_blob(&b);
            }
            px_bfrops_buf_free(&b);
        } else if (PMIX_CHECK_KEY(x, PX_GRP_GINFO) && x->value.type == PMIX_BYTE_OBJECT) {
            px_bfrops_buf_free(&g->ginfo);
            px_bfrops_buf_init(&g->ginfo);
            px_bfrops_buf_append(&g->ginfo, x->value.data.bo.bytes, x->value.data.bo.size);
        }
    }
}

/* Answer only the carried members (a bootstrap participant, a failure). */
static void answer_carried(px_grp_t *g, grp_up_t *u, pmix_status_t status,
                           const pmix_data_buffer_t *body)
{
    for (size_t i = 0; i < u->ncarried; i++) {
        mem_t *m = px_grp_mem_find(g, &u->carried[i]);
        if (m != NULL && m->client != NULL) {
            answer(m, status, body);
        }
    }
}

/* Lock held, on the loop. */
static void up_answer(grp_up_t *u)
{
    px_grp_t *g = u->g;
    g->upcalls--;
    pmix_status_t st = u->status;
    px_debug(2, "server", "group %s: the host answered %s", g->id, PMIx_Error_string(st));
    bool ok = st == PMIX_SUCCESS || st == PMIX_ERR_PARTIAL_SUCCESS;
    if (g->state == GRP_ENDED) {
        if (g->upcalls == 0) {
            px_grp_free(g);
        }
    } else if (u->op == PMIX_GROUP_DESTRUCT) {
        if (ok) {
            px_grp_answer_all(g, PMIX_SUCCESS);
            px_grp_end(g, "destructed");
        } else {
            px_grp_answer_all(g, st);
            for (size_t i = 0; i < g->nm; i++) {
                g->m[i].st = g->m[i].st == MEM_IN ? MEM_DONE : g->m[i].st;
            }
            px_grp_move(g, GRP_ACTIVE, "the host's destruct failed");
        }
    } else if (g->kind == KIND_BOOTSTRAP) {
        if (ok && g->state == GRP_COLLECTING) {
            take_host_results(g, u);
            px_grp_timer_stop(g);
            px_grp_move(g, GRP_ACTIVE, "bootstrap built");
        }
        pmix_data_buffer_t body;
        px_bfrops_buf_init(&body);
        pmix_status_t rc = ok ? pack_results(g, &body) : st;
        answer_carried(g, u, ok ? (rc == PMIX_SUCCESS ? st : rc) : st,
                       ok && rc == PMIX_SUCCESS ? &body : NULL);
        px_bfrops_buf_free(&body);
        for (size_t i = 0; ok && i < g->nm; i++) {
            g->m[i].st = g->m[i].client != NULL ? MEM_IN : MEM_DONE;
        }
        if (!ok && g->state == GRP_COLLECTING && g->upcalls == 0) {
            px_grp_answer_all(g, st);
            px_grp_end(g, "the host refused the bootstrap");
        }
    } else if (ok) {
        take_host_results(g, u);
        grp_built(g, g->named > g->nm && g->optional ? PMIX_ERR_PARTIAL_SUCCESS : st);
    } else {
        px_grp_answer_all(g, st);
        px_grp_end(g, "the host's construct failed");
    }
    up_free(u);
}

/* ---- construct ---- */

pmix_status_t px_grp_fail_status(const px_srv_client_t *c)
{
    return c != NULL && c->finalized ? PMIX_ERR_LOST_CONNECTION : PMIX_ERR_PROC_TERM_WO_SYNC;
}

/* Every member of this server has answered (or is known gone): finish here, or hand the
 * collective to the host. */
static void construct_ready(px_grp_t *g)
{
    bool remote = false;
    size_t nin = 0;
    for (size_t i = 0; i < g->nm; i++) {
        remote |= px_grp_mem_alive(&g->m[i]) && !g->m[i].local;
        nin += g->m[i].st == MEM_IN;
    }
    if (nin == 0) {
        px_grp_end(g, "no member left to build it");
        return;
    }
    settle_order(g);
    pmix_status_t status =
        g->named > g->nm && g->optional ? PMIX_ERR_PARTIAL_SUCCESS : PMIX_SUCCESS;
    if (!remote && !g->ctx_wanted) {
        /* every member is here and no context id is asked for: no global collective
         * (Chap_API_Sets_Groups, PMIX_GROUP_LOCAL_ONLY) */
        px_bfrops_buf_free(&g->ginfo);
        px_bfrops_buf_init(&g->ginfo);
        pmix_status_t rc = local_ginfo(g, &g->ginfo);
        if (rc != PMIX_SUCCESS) {
            px_grp_answer_all(g, rc);
            px_grp_end(g, "out of memory");
            return;
        }
        grp_built(g, status);
        return;
    }
    if (px_srv->module.group == NULL) {
        /* members elsewhere or a context id need the host */
        px_grp_answer_all(g, PMIX_ERR_NOT_SUPPORTED);
        px_grp_end(g, "the host has no group function");
        return;
    }
    const mem_t **carried = calloc(g->nm ? g->nm : 1, sizeof(*carried));
    size_t nc = 0;
    for (size_t i = 0; carried != NULL && i < g->nm; i++) {
        if (g->m[i].st == MEM_IN) {
            carried[nc++] = &g->m[i];
        }
    }
    px_grp_timer_stop(g); /* the host's collective is bounded by its own handling of PMIX_TIMEOUT */
    px_grp_move(g, GRP_IN_HOST, "every local member is in");
    pmix_status_t rc =
        carried ? px_grp_to_host(g, PMIX_GROUP_CONSTRUCT, carried, nc) : PMIX_ERR_NOMEM;
    free(carried);
    if (rc != PMIX_SUCCESS) {
        px_grp_answer_all(g, rc);
        px_grp_end(g, "cannot reach the host");
    }
}

/* Has every member of this server answered? (A bootstrap with a host: the host decides.) */
void px_grp_construct_check(px_grp_t *g)
{
    if (g->state != GRP_COLLECTING || !g->kind_known) {
        return; /* only added members so far: nobody has said who the group is */
    }
    size_t leaders = 0;
    for (size_t i = 0; i < g->nm; i++) {
        const mem_t *m = &g->m[i];
        if (m->local && m->st == MEM_WAITING) {
            return;
        }
        leaders += m->leader && m->st == MEM_IN;
    }
    if (g->kind == KIND_BOOTSTRAP) {
        if (px_srv->module.group != NULL || leaders < g->bootstrap) {
            return; /* the host counts; or not every leader has called yet */
        }
    } else if (g->kind == KIND_INVITE) {
        size_t nin = 0;
        for (size_t i = 0; i < g->nm; i++) {
            nin += g->m[i].st == MEM_IN;
        }
        bool all = true;
        for (size_t i = 0; i < g->nm; i++) {
            all &= g->m[i].st == MEM_IN || g->m[i].st == MEM_DONE;
        }
        if (nin == 0) {
            px_grp_end(g, "no member left to build it");
            return;
        }
        /* some declined or failed: the group is built without them */
        g->optional = !all;
    }
    construct_ready(g);
}

/* A member of a group being built is gone (its connection, its invitation's timeout). */
void px_grp_member_gone(px_grp_t *g, mem_t *m, pmix_status_t why)
{
    mem_state_t was = m->st;
    m->st = MEM_FAILED;
    px_grp_mem_release(m);
    if (g->kind == KIND_INVITE) {
        if (g->has_leader && px_grp_same_proc(&m->proc, &g->leader)) {
            g->has_leader = false;
            px_grp_event(g, PMIX_GROUP_LEADER_FAILED, NULL, &m->proc, NULL, 0, false);
        } else if (was == MEM_WAITING) {
            px_grp_event_leader(g, PMIX_GROUP_INVITE_FAILED, NULL, &m->proc);
        } else {
            px_grp_event_leader(g, PMIX_GROUP_MEMBER_FAILED, NULL, &m->proc);
        }
        px_grp_construct_check(g);
        return;
    }
    if (g->optional || (g->ft && !g->notify)) {
        px_grp_construct_check(g); /* no events (PMIX_GROUP_OPTIONAL) */
        return;
    }
    if (g->notify) {
        if (g->has_leader && px_grp_same_proc(&m->proc, &g->leader)) {
            g->has_leader = false;
            px_grp_event(g, PMIX_GROUP_LEADER_FAILED, NULL, &m->proc, NULL, 0, false);
        } else {
            px_grp_event_leader(g, PMIX_GROUP_MEMBER_FAILED, NULL, &m->proc);
        }
        px_grp_construct_check(g);
        return;
    }
    /* without NOTIFY_TERMINATION, OPTIONAL or FT_COLLECTIVE a member's end fails it */
    px_debug(1, "server", "group %s: member %s:%u ended before the group was built", g->id,
             m->proc.nspace, m->proc.rank);
    px_grp_answer_all(g, why);
    px_grp_end(g, "a member ended");
}

/* Local members whose connection is already gone count as ended now. */
static void check_departed(px_grp_t *g)
{
    /* members added since the last check only: later departures come through
     * px_srv_group_client_gone */
    size_t from = g->nchecked;
    g->nchecked = g->nm;
    for (size_t i = from; i < g->nm && g->state == GRP_COLLECTING; i++) {
        mem_t *m = &g->m[i];
        if (!m->local || (m->st != MEM_WAITING && m->st != MEM_IN)) {
            continue;
        }
        px_srv_client_t *c = px_srv_client_find(m->proc.nspace, m->proc.rank);
        if (c != NULL && c->departed) {
            px_grp_member_gone(g, m, px_grp_fail_status(c));
        }
    }
}

static pmix_status_t take_ginfo(mem_t *m, const dirs_t *d)
{
    PMIx_Info_free(m->ginfo, m->nginfo);
    m->ginfo = NULL;
    m->nginfo = 0;
    if (d->nginfo > 0) {
        pmix_status_t rc = px_info_array_dup(d->ginfo, d->nginfo, &m->ginfo);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
        m->nginfo = d->nginfo;
    }
    return PMIX_SUCCESS;
}

static px_grp_t *grp_new(const char *id, grp_kind_t kind, const dirs_t *d, const pmix_info_t *info,
                         size_t ninfo)
{
    px_grp_t *g = calloc(1, sizeof(*g));
    if (g == NULL) {
        return NULL;
    }
    PMIX_LOAD_NSPACE(g->id, id);
    g->state = GRP_COLLECTING;
    g->kind = kind;
    g->kind_known = kind == KIND_INVITE; /* a construct's: set by its first named caller */
    g->optional = d->optional;
    g->notify = d->notify;
    g->ft = d->ft;
    g->ctx_wanted = d->ctx;
    g->bootstrap = d->bootstrap;
    px_bfrops_buf_init(&g->ginfo);
    if (ninfo > 0 && px_info_array_dup(info, ninfo, &g->dirs) != PMIX_SUCCESS) {
        free(g);
        return NULL;
    }
    g->ndirs = ninfo;
    if (d->norder > 0) {
        g->order = calloc(d->norder, sizeof(*g->order));
        if (g->order == NULL) {
            px_grp_free(g);
            return NULL;
        }
        memcpy(g->order, d->order, d->norder * sizeof(*g->order));
        g->norder = d->norder;
    }
    g->next = px_srv->groups;
    px_srv->groups = g;
    return g;
}

/* Unpack "string grp[, size n, proc[n]], info[]". */
pmix_status_t px_grp_unpack_req(pmix_data_buffer_t *payload, bool with_procs, char **grp,
                                pmix_proc_t **procs, size_t *nprocs, pmix_info_t **info,
                                size_t *ninfo)
{
    int32_t one = 1;
    pmix_status_t rc = px_bfrops_unpack(payload, grp, &one, PMIX_STRING);
    if (rc == PMIX_SUCCESS && with_procs) {
        rc = px_srv_unpack_procs(payload, procs, nprocs);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(payload, info, ninfo);
    }
    if (rc == PMIX_SUCCESS &&
        (*grp == NULL || (*grp)[0] == '\0' || strlen(*grp) > PMIX_MAX_NSLEN)) {
        rc = PMIX_ERR_BAD_PARAM;
    }
    return rc;
}

/* A collective construct's membership from the first caller; a later caller must name
 * the same members (in any order). */
static pmix_status_t collective_members(px_grp_t *g, const pmix_proc_t *procs, size_t n, bool first)
{
    if (!first && g->raw != NULL && n == g->nraw &&
        memcmp(procs, g->raw, n * sizeof(*procs)) == 0) {
        return PMIX_SUCCESS; /* the first caller's very list: the same members, in order */
    }
    if (first && n > 0 && (g->raw = calloc(n, sizeof(*procs))) != NULL) {
        memcpy(g->raw, procs, n * sizeof(*procs));
        g->nraw = n;
    }
    pmix_proc_t *all = NULL;
    size_t nall = 0;
    pmix_status_t rc = expand(procs, n, &all, &nall);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (first) {
        for (size_t i = 0; i < nall && rc == PMIX_SUCCESS; i++) {
            mem_t *m = mem_add(g, &all[i]);
            rc = m != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
            if (m != NULL) {
                m->order = i;
            }
        }
        g->named = nall;
    } else if (nall != g->named) {
        rc = PMIX_ERR_BAD_PARAM;
    } else {
        for (size_t i = 0; i < nall && rc == PMIX_SUCCESS; i++) {
            const mem_t *m = px_grp_mem_find(g, &all[i]);
            if (m == NULL || m->order >= nall) {
                rc = PMIX_ERR_BAD_PARAM; /* names someone the others did not */
            } else if (m->order != i) {
                g->unordered = true;
            }
        }
    }
    free(all);
    return rc;
}

/* A bootstrap with a host: each participant goes to the host on its own (the host
 * counts the leaders and added members across servers). */
static void bootstrap_up(px_grp_t *g)
{
    for (size_t i = 0; i < g->nm; i++) {
        mem_t *m = &g->m[i];
        if (m->st != MEM_IN || m->up) {
            continue;
        }
        const mem_t *one[1] = {m};
        pmix_status_t rc = px_grp_to_host(g, PMIX_GROUP_CONSTRUCT, one, 1);
        m->up = true;
        if (rc != PMIX_SUCCESS) {
            answer(m, rc, NULL);
            m->st = MEM_FAILED;
        }
    }
}

/* The caller's place in a construct: a leader of a bootstrap names itself only; a
 * collective caller names the members (the first caller's list is the group's); an added
 * member (procs NULL) names nobody. */
static pmix_status_t construct_join(px_grp_t *g, px_srv_client_t *c, const pmix_proc_t *procs,
                                    size_t nprocs, const dirs_t *d, mem_t **me)
{
    bool follower = nprocs == 0, boot = d->bootstrap > 0;
    pmix_status_t rc = PMIX_SUCCESS;
    if (!follower) {
        bool first = !g->kind_known;
        if (first) {
            g->kind = boot ? KIND_BOOTSTRAP : KIND_COLLECTIVE;
            g->kind_known = true;
        } else if ((g->kind == KIND_BOOTSTRAP) != boot) {
            return PMIX_ERR_BAD_PARAM; /* the same id built two ways at once */
        }
        if (boot) {
            if (g->bootstrap != 0 && d->bootstrap != g->bootstrap) {
                return PMIX_ERR_BAD_PARAM; /* leaders must agree on their number */
            }
            g->bootstrap = d->bootstrap;
            for (size_t i = 0; i < nprocs; i++) {
                if (!px_grp_same_proc(&procs[i], &c->proc)) {
                    return PMIX_ERR_BAD_PARAM;
                }
            }
        } else {
            rc = collective_members(g, procs, nprocs, first);
        }
    }
    if (follower && !g->kind_known && px_srv->module.group != NULL) {
        /* only a bootstrap's added member names nobody: with a host that counts the
         * participants it goes up on its own, whether or not a leader is here */
        g->kind = KIND_BOOTSTRAP;
        g->kind_known = true;
    }
    for (size_t i = 0; i < d->nadd && rc == PMIX_SUCCESS; i++) {
        rc = mem_add(g, &d->add[i]) != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    *me = (follower || g->kind == KIND_BOOTSTRAP) ? mem_add(g, &c->proc)
                                                  : px_grp_mem_find(g, &c->proc);
    if (*me == NULL) {
        return follower || g->kind == KIND_BOOTSTRAP ? PMIX_ERR_NOMEM : PMIX_ERR_NOT_A_MEMBER;
    }
    if ((*me)->st == MEM_IN) {
        return PMIX_EXISTS; /* the same process twice in one construct */
    }
    if (d->local_only_given && d->local_only) {
        for (size_t i = 0; i < g->nm; i++) {
            if (!g->m[i].local) {
                return PMIX_ERR_BAD_PARAM; /* PMIX_GROUP_LOCAL_ONLY with a member elsewhere */
            }
        }
    }
    (*me)->leader = boot;
    return take_ginfo(*me, d);
}

void px_srv_grp_construct(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    char *id = NULL;
    pmix_proc_t *procs = NULL;
    size_t nprocs = 0, ninfo = 0;
    pmix_info_t *info = NULL;
    dirs_t d;
    px_grp_t *g = NULL;
    bool fresh = false;
    mem_t *me = NULL;
    pmix_status_t rc = px_grp_unpack_req(payload, true, &id, &procs, &nprocs, &info, &ninfo);
    if (rc == PMIX_SUCCESS) {
        rc = px_grp_parse_dirs(info, ninfo, &d);
    }
    if (rc != PMIX_SUCCESS) {
        goto reply;
    }
    g = px_grp_find(id);
    if (g != NULL && (g->state != GRP_COLLECTING || g->kind == KIND_INVITE)) {
        rc = PMIX_EXISTS; /* built, or being built another way */
        g = NULL;
        goto reply;
    }
    if (g == NULL) {
        fresh = true;
        g = grp_new(id, KIND_COLLECTIVE, &d, info, ninfo);
        if (g == NULL) {
            rc = PMIX_ERR_NOMEM;
            goto reply;
        }
    }
    rc = construct_join(g, c, procs, nprocs, &d, &me);
    if (rc != PMIX_SUCCESS) {
        if (fresh) {
            px_grp_end(g, "refused request");
        }
        goto reply;
    }
    if (d.leader && !g->has_leader) {
        g->has_leader = true;
        g->leader = c->proc;
    }
    g->ctx_wanted |= d.ctx;
    g->notify |= d.notify;
    g->ft |= d.ft;
    g->optional |= d.optional;
    px_grp_park(me, c, seq, PX_TAG_GRP_CONSTRUCT);
    px_grp_timer_start(g, d.timeout);
    px_debug(2, "server", "group %s: construct from %s:%u", g->id, c->proc.nspace, c->proc.rank);
    if (g->kind == KIND_BOOTSTRAP && px_srv->module.group != NULL) {
        bootstrap_up(g);
    }
    check_departed(g);
    px_grp_construct_check(g);
    goto out;
reply:
    px_srv_reply(c, seq, PX_TAG_GRP_CONSTRUCT, rc, NULL);
out:
    free(id);
    free(procs);
    px_bfrops_info_array_free(info, ninfo);
}

/* ---- invite / join ---- */

void px_srv_grp_invite(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    char *id = NULL;
    pmix_proc_t *procs = NULL, *all = NULL;
    size_t nprocs = 0, ninfo = 0, nall = 0;
    pmix_info_t *info = NULL;
    dirs_t d;
    pmix_status_t rc = px_grp_unpack_req(payload, true, &id, &procs, &nprocs, &info, &ninfo);
    if (rc == PMIX_SUCCESS) {
        rc = px_grp_parse_dirs(info, ninfo, &d);
    }
    if (rc == PMIX_SUCCESS && nprocs == 0) {
        rc = PMIX_ERR_BAD_PARAM;
    }
    if (rc == PMIX_SUCCESS) {
        rc = expand(procs, nprocs, &all, &nall);
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < nall; i++) {
        /* invitations travel as events this server raises and answers it tracks: an
         * invitee of another server could neither see nor answer it (not yet) */
        if (px_store_find(&px_srv->store, all[i].nspace) == NULL) {
            rc = PMIX_ERR_NOT_FOUND;
        } else if (!rank_local(&all[i])) {
            rc = PMIX_ERR_NOT_SUPPORTED;
        }
    }
    if (rc == PMIX_SUCCESS && px_grp_find(id) != NULL) {
        rc = PMIX_EXISTS;
    }
    px_grp_t *g = NULL;
    if (rc == PMIX_SUCCESS && (g = grp_new(id, KIND_INVITE, &d, info, ninfo)) == NULL) {
        rc = PMIX_ERR_NOMEM;
    }
    mem_t *me = NULL;
    if (rc == PMIX_SUCCESS) {
        /* the inviter leads (and is the first member); then the invitees in order */
        g->has_leader = true;
        g->leader = c->proc;
        me = mem_add(g, &c->proc);
        for (size_t i = 0; me != NULL && i < nall; i++) {
            if (mem_add(g, &all[i]) == NULL) {
                me = NULL;
            }
        }
        for (size_t i = 0; me != NULL && i < g->nm; i++) {
            g->m[i].order = i; /* the leader, then the invitees as named */
        }
        me = me != NULL ? px_grp_mem_find(g, &c->proc) : NULL;
        rc = me != NULL ? take_ginfo(me, &d) : PMIX_ERR_NOMEM;
        if (rc != PMIX_SUCCESS) {
            px_grp_end(g, "refused request");
        }
    }
    if (rc != PMIX_SUCCESS) {
        px_srv_reply(c, seq, PX_TAG_GRP_INVITE, rc, NULL);
        goto out;
    }
    g->named = g->nm;
    px_grp_park(me, c, seq, PX_TAG_GRP_INVITE);
    px_grp_timer_start(g, d.timeout);
    /* the invitation: who leads (the source), the group and who else is asked */
    size_t ninv = 0;
    pmix_proc_t *inv = px_grp_alive_procs(g, &ninv, &c->proc);
    if (inv != NULL) {
        px_grp_event(g, PMIX_GROUP_INVITED, &c->proc, NULL, inv, ninv, true);
    }
    free(inv);
    check_departed(g);
    px_grp_construct_check(g);
out:
    free(id);
    free(procs);
    free(all);
    px_bfrops_info_array_free(info, ninfo);
}

void px_srv_grp_join(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    char *id = NULL;
    pmix_proc_t leader;
    uint8_t accept = 0;
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    dirs_t d;
    int32_t one = 1;
    pmix_status_t rc = px_bfrops_unpack(payload, &id, &one, PMIX_STRING);
    if (rc == PMIX_SUCCESS) {
        one = 1;
        rc = px_bfrops_unpack(payload, &leader, &one, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) {
        one = 1;
        rc = px_bfrops_unpack(payload, &accept, &one, PMIX_UINT8);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(payload, &info, &ninfo);
    }
    if (rc == PMIX_SUCCESS && (id == NULL || id[0] == '\0')) {
        rc = PMIX_ERR_BAD_PARAM;
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_grp_parse_dirs(info, ninfo, &d);
    }
    px_grp_t *g = rc == PMIX_SUCCESS ? px_grp_find(id) : NULL;
    mem_t *me = g != NULL ? px_grp_mem_find(g, &c->proc) : NULL;
    if (rc == PMIX_SUCCESS &&
        (g == NULL || g->kind != KIND_INVITE || me == NULL || g->state != GRP_COLLECTING)) {
        rc = PMIX_ERR_NOT_FOUND; /* no invitation of ours for it */
    } else if (rc == PMIX_SUCCESS && me->st != MEM_WAITING) {
        rc = PMIX_EXISTS; /* already answered */
    }
    if (rc == PMIX_SUCCESS && accept) {
        rc = take_ginfo(me, &d);
    }
    if (rc != PMIX_SUCCESS || !accept) {
        px_srv_reply(c, seq, PX_TAG_GRP_JOIN, rc, NULL);
        if (rc == PMIX_SUCCESS) {
            me->st = MEM_DECLINED;
            px_grp_event_leader(g, PMIX_GROUP_INVITE_DECLINED, &c->proc, &c->proc);
            px_grp_construct_check(g);
        }
        goto out;
    }
    px_grp_park(me, c, seq, PX_TAG_GRP_JOIN);
    px_grp_timer_start(g, d.timeout);
    px_grp_event_leader(g, PMIX_GROUP_INVITE_ACCEPTED, &c->proc, &c->proc);
    px_grp_construct_check(g);
out:
    free(id);
    px_bfrops_info_array_free(info, ninfo);
}
