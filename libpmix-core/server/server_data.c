/* server: the data path — commits, PMIx_Get requests (answered from the store, parked
 * until a local peer commits, or fetched through the host's direct_modex upcall), fence
 * trackers (completed locally when every participant is here, else through the host's
 * fence_nb upcall), and PMIx_server_dmodex_request for other servers.
 * Everything runs on the loop with px_srv->lock held; host callbacks are shifted there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "server/px_server.h"

/* Someone waiting for a rank's posted data: a local client's PMIx_Get (client counted)
 * or the host's PMIx_server_dmodex_request (hostcb). remote: the rank is not local and
 * the data comes from the host's direct_modex upcall. */
struct px_waiter {
    pmix_proc_t target;
    bool remote;
    px_srv_client_t *client;
    uint32_t seq;
    pmix_dmodex_response_fn_t hostcb;
    void *hostcbdata;
    px_waiter_t *next;
};

typedef struct {
    px_srv_client_t *client; /* counted */
    uint32_t seq;
} fence_part_t;

struct px_fence {
    char *sig;          /* owned: canonical participant list */
    pmix_proc_t *procs; /* owned */
    size_t nprocs;
    pmix_info_t *info; /* owned: the first caller's directives */
    size_t ninfo;
    bool collect;
    size_t nexpected;    /* local participants */
    fence_part_t *parts; /* owned */
    size_t nparts;
    bool in_host; /* the host's fence_nb has it */
    bool done;    /* answered; freed when the host returns */
    struct event *timer;
    px_fence_t *next;
};

/* ---- helpers ---- */

static px_ns_rank_t *rank_of(const pmix_proc_t *p, px_nspace_t **nsp)
{
    px_nspace_t *ns = px_store_find(&px_srv->store, p->nspace);
    if (nsp != NULL) {
        *nsp = ns;
    }
    return ns ? px_ns_rank(ns, p->rank) : NULL;
}

/* The rank's data as this server shows it: local-visible for a local rank asked by a
 * local client, remote-visible otherwise. */
static pmix_status_t pack_rank(pmix_data_buffer_t *buf, px_nspace_t *ns, pmix_rank_t r,
                               bool for_remote)
{
    if (r >= PMIX_RANK_VALID) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (r >= ns->nranks) {
        return PMIX_SUCCESS; /* a rank with no record has posted nothing (never grow here) */
    }
    px_ns_rank_t *pr = &ns->ranks[r];
    if (!for_remote && px_ns_rank_is_local(ns, r)) {
        return pr->have_local ? px_blob_pack(buf, ns->name, r, &pr->local) : PMIX_SUCCESS;
    }
    return pr->have_remote ? px_blob_pack(buf, ns->name, r, &pr->remote) : PMIX_SUCCESS;
}

static void waiter_free(px_waiter_t *w)
{
    px_srv_client_release(w->client);
    free(w);
}

/* Answer and remove every waiter for target (remote or local kind). */
static void waiters_answer(const pmix_proc_t *target, bool remote, pmix_status_t status)
{
    px_nspace_t *ns = px_store_find(&px_srv->store, target->nspace);
    for (px_waiter_t **pp = &px_srv->waiters; *pp != NULL;) {
        px_waiter_t *w = *pp;
        if (w->remote != remote || !PMIx_Check_procid(&w->target, target) ||
            w->target.rank != target->rank) {
            pp = &w->next;
            continue;
        }
        *pp = w->next;
        pmix_data_buffer_t body;
        px_bfrops_buf_init(&body);
        pmix_status_t rc = status;
        if (rc == PMIX_SUCCESS) {
            rc = ns ? pack_rank(&body, ns, target->rank, w->hostcb != NULL) : PMIX_ERR_NOT_FOUND;
        }
        if (w->hostcb != NULL) {
            w->hostcb(rc, rc == PMIX_SUCCESS ? body.base_ptr : NULL,
                      rc == PMIX_SUCCESS ? body.bytes_used : 0, w->hostcbdata);
        } else {
            px_srv_reply(w->client, w->seq, PX_TAG_GET, rc, rc == PMIX_SUCCESS ? &body : NULL);
        }
        px_bfrops_buf_free(&body);
        waiter_free(w);
    }
}

static pmix_status_t waiter_add(const pmix_proc_t *target, bool remote, px_srv_client_t *c,
                                uint32_t seq, pmix_dmodex_response_fn_t hostcb, void *hostcbdata)
{
    px_waiter_t *w = calloc(1, sizeof(*w));
    if (w == NULL) {
        return PMIX_ERR_NOMEM;
    }
    w->target = *target;
    w->remote = remote;
    w->client = c;
    if (c != NULL) {
        px_srv_client_retain(c);
    }
    w->seq = seq;
    w->hostcb = hostcb;
    w->hostcbdata = hostcbdata;
    /* append: answers go out in arrival order */
    px_waiter_t **pp = &px_srv->waiters;
    while (*pp != NULL) {
        pp = &(*pp)->next;
    }
    *pp = w;
    return PMIX_SUCCESS;
}

static bool waiting_remote(const pmix_proc_t *target)
{
    for (px_waiter_t *w = px_srv->waiters; w != NULL; w = w->next) {
        if (w->remote && PMIx_Check_procid(&w->target, target) && w->target.rank == target->rank) {
            return true;
        }
    }
    return false;
}

/* Store the entries of a blob that belong to ranks not on this node. */
void px_srv_store_remote_blob(pmix_data_buffer_t *buf)
{
    pmix_proc_t p;
    pmix_info_t *info;
    size_t n;
    pmix_status_t rc;
    while ((rc = px_blob_next(buf, &p, &info, &n)) == PMIX_SUCCESS) {
        px_nspace_t *ns;
        px_ns_rank_t *pr = rank_of(&p, &ns);
        if (pr != NULL && !px_ns_rank_is_local(ns, p.rank)) {
            px_kvset_put_infos(&pr->remote, info, n);
            pr->have_remote = true;
        }
        px_bfrops_info_array_free(info, n);
    }
    if (rc != PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER) {
        px_debug(1, "server", "malformed data blob from the host: %s", PMIx_Error_string(rc));
    }
}

pmix_status_t px_srv_pack_posted(pmix_data_buffer_t *buf, const pmix_proc_t *p, bool for_remote)
{
    px_nspace_t *ns = px_store_find(&px_srv->store, p->nspace);
    return ns != NULL ? pack_rank(buf, ns, p->rank, for_remote) : PMIX_SUCCESS;
}

/* ---- commit ---- */

void px_srv_commit(px_srv_client_t *c, pmix_data_buffer_t *payload)
{
    pmix_info_t *loc = NULL, *rem = NULL;
    size_t nloc = 0, nrem = 0;
    pmix_status_t rc = px_bfrops_unpack_info_array(payload, &loc, &nloc);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(payload, &rem, &nrem);
    }
    px_ns_rank_t *pr = rank_of(&c->proc, NULL);
    if (rc != PMIX_SUCCESS || pr == NULL) {
        px_debug(1, "server", "bad commit from %s:%u: %s", c->proc.nspace, c->proc.rank,
                 PMIx_Error_string(rc));
    } else {
        px_kvset_put_infos(&pr->local, loc, nloc);
        px_kvset_put_infos(&pr->remote, rem, nrem);
        pr->have_local = pr->have_remote = true;
        waiters_answer(&c->proc, false, PMIX_SUCCESS);
    }
    px_bfrops_info_array_free(loc, nloc);
    px_bfrops_info_array_free(rem, nrem);
}

/* ---- get ---- */

/* A host's modex answer (fence_nb or direct_modex), copied off the host's thread. */
typedef struct {
    pmix_proc_t target; /* direct_modex: whose data */
    px_fence_t *t;      /* fence_nb: the tracker */
    pmix_status_t status;
    char *data; /* owned copy */
    size_t size;
} modex_ans_t;

/* Copy the host's bytes (they are the host's again when we return), release them, and
 * finish on the loop. Any thread. */
static void modex_capture(modex_ans_t *a, pmix_status_t status, const char *data, size_t ndata,
                          pmix_release_cbfunc_t relfn, void *relcbdata, px_progress_fn_t on_loop)
{
    a->status = status;
    if (status == PMIX_SUCCESS && ndata > 0) {
        a->data = malloc(ndata);
        if (a->data == NULL) {
            a->status = PMIX_ERR_NOMEM;
        } else {
            memcpy(a->data, data, ndata);
            a->size = ndata;
        }
    }
    if (relfn != NULL) {
        relfn(relcbdata);
    }
    if (px_srv_shift(on_loop, a) != 0) {
        free(a->data);
        free(a);
    }
}

/* Store the remote ranks' entries of a successful answer; the bytes are consumed. */
static void modex_store(modex_ans_t *a)
{
    if (a->status == PMIX_SUCCESS && a->size > 0) {
        pmix_data_buffer_t buf;
        px_bfrops_buf_init(&buf);
        px_bfrops_buf_adopt(&buf, a->data, a->size);
        a->data = NULL;
        px_srv_store_remote_blob(&buf);
        px_bfrops_buf_free(&buf);
    }
}

static void dmodex_done_on_loop(void *arg)
{
    modex_ans_t *d = arg;
    modex_store(d);
    waiters_answer(&d->target, true, d->status);
    free(d->data);
    free(d);
}

/* The host's direct_modex answer; any thread. */
static void dmodex_cb(pmix_status_t status, const char *data, size_t ndata, void *cbdata,
                      pmix_release_cbfunc_t relfn, void *relcbdata)
{
    modex_capture(cbdata, status, data, ndata, relfn, relcbdata, dmodex_done_on_loop);
}

/* A direct_modex upcall waiting for the loop (px_srv_upcall). */
typedef struct {
    modex_ans_t *d;    /* owned until the module accepts it */
    pmix_info_t *info; /* owned copy of the client's directives */
    size_t ninfo;
} dmodex_up_t;

/* Loop, no lock held. A refusal fails the waiters under the lock. */
static void dmodex_upcall(void *arg)
{
    dmodex_up_t *r = arg;
    pmix_proc_t target = r->d->target;
    pmix_status_t rc = px_srv->module.direct_modex(&target, r->info, r->ninfo, dmodex_cb, r->d);
    if (rc != PMIX_SUCCESS) {
        free(r->d);
        pthread_mutex_lock(&px_srv->lock);
        waiters_answer(&target, true, rc == PMIX_OPERATION_SUCCEEDED ? PMIX_ERR_NOT_FOUND : rc);
        pthread_mutex_unlock(&px_srv->lock);
    }
    px_bfrops_info_array_free(r->info, r->ninfo);
    free(r);
}

/* Ask the host for target's data; PMIX_SUCCESS: the waiters are answered later. */
static pmix_status_t ask_host(const pmix_proc_t *target, const pmix_info_t *info, size_t ninfo)
{
    if (px_srv->module.direct_modex == NULL) {
        return PMIX_ERR_NOT_FOUND; /* no other way to reach a remote rank's data */
    }
    dmodex_up_t *r = calloc(1, sizeof(*r));
    if (r == NULL || (r->d = calloc(1, sizeof(*r->d))) == NULL ||
        (ninfo > 0 && (r->info = PMIx_Info_create(ninfo)) == NULL)) {
        if (r != NULL) {
            free(r->d);
        }
        free(r);
        return PMIX_ERR_NOMEM;
    }
    r->d->target = *target;
    for (size_t i = 0; i < ninfo; i++) {
        PMIx_Info_xfer(&r->info[i], &info[i]);
    }
    r->ninfo = ninfo;
    if (px_srv_upcall(dmodex_upcall, r) != 0) {
        px_bfrops_info_array_free(r->info, r->ninfo);
        free(r->d);
        free(r);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

void px_srv_get(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    pmix_proc_t target;
    char *key = NULL;
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    int32_t one = 1;
    pmix_data_buffer_t body;
    px_bfrops_buf_init(&body);
    pmix_status_t rc = px_bfrops_unpack(payload, &target, &one, PMIX_PROC);
    if (rc == PMIX_SUCCESS) {
        one = 1;
        rc = px_bfrops_unpack(payload, &key, &one, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(payload, &info, &ninfo);
    }
    if (rc != PMIX_SUCCESS || key == NULL) {
        rc = rc ? rc : PMIX_ERR_BAD_PARAM;
        goto reply;
    }
    px_nspace_t *ns = px_store_find(&px_srv->store, target.nspace);
    if (ns == NULL) {
        rc = PMIX_ERR_NOT_FOUND;
        goto reply;
    }
    /* A client's rank never grows the rank table (a rank of 2^30 would size it to
     * gigabytes): ranks come from the registration, or from the host's answers. A rank
     * past a registered job is not found; in a namespace registered without ranks
     * (PMIX_REGISTER_NODATA) the host is asked without a record. */
    px_ns_rank_t *pr = target.rank < ns->nranks ? &ns->ranks[target.rank] : NULL;
    bool proc_rank = target.rank < PMIX_RANK_VALID;
    if (pr == NULL && proc_rank && ns->nranks > 0) {
        rc = PMIX_ERR_NOT_FOUND;
        goto reply;
    }
    if (strcmp(key, PMIX_PSET_NAMES) == 0 || strcmp(key, PMIX_GROUP_NAMES) == 0) {
        pmix_value_t val;
        PMIx_Value_construct(&val);
        px_kvset_t one_kv;
        px_kvset_init(&one_kv);
        rc = strcmp(key, PMIX_PSET_NAMES) == 0 ? px_srv_pset_names(&target, &val)
                                               : px_srv_group_names(&target, &val);
        if (rc == PMIX_SUCCESS) {
            rc = px_kvset_put(&one_kv, key, &val);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_blob_pack(&body, target.nspace, target.rank, &one_kv);
        }
        PMIx_Value_destruct(&val);
        px_kvset_fini(&one_kv);
        goto reply;
    }
    if (pr == NULL && !proc_rank) {
        /* job-level data the client's copy may lack (added after it connected) */
        px_getq_t q;
        px_getq_parse(&q, info, ninfo);
        q.have_self = PMIx_Check_nspace(c->proc.nspace, target.nspace);
        q.self = c->proc.rank; /* its application realm, when it asks about its own job */
        const pmix_value_t *v = px_ns_lookup(ns, PMIX_RANK_WILDCARD, key, &q);
        px_kvset_t one_kv;
        px_kvset_init(&one_kv);
        rc = v ? px_kvset_put(&one_kv, key, v) : PMIX_ERR_NOT_FOUND;
        if (rc == PMIX_SUCCESS) {
            rc = px_blob_pack(&body, target.nspace, target.rank, &one_kv);
        }
        px_kvset_fini(&one_kv);
        goto reply;
    }
    if (pr != NULL && px_ns_rank_is_local(ns, target.rank)) {
        px_srv_client_t *owner = pr->ext;
        if (pr->have_local) {
            rc = pack_rank(&body, ns, target.rank, false);
        } else if (owner != NULL && owner->departed) {
            rc = PMIX_ERR_NOT_FOUND; /* it is gone and never committed */
        } else {
            rc = waiter_add(&target, false, c, seq, NULL, NULL);
            if (rc == PMIX_SUCCESS) {
                goto out; /* answered at the commit */
            }
        }
        goto reply;
    }
    if (pr != NULL && pr->have_remote && px_kvset_get(&pr->remote, key) != NULL) {
        rc = pack_rank(&body, ns, target.rank, false);
        goto reply;
    }
    /* Not fetched yet, or fetched before the rank posted this key: ask its server again
     * (it answers at once if the rank committed, else when it does). */
    bool asked = waiting_remote(&target);
    rc = waiter_add(&target, true, c, seq, NULL, NULL);
    if (rc == PMIX_SUCCESS && !asked) {
        rc = ask_host(&target, info, ninfo);
        if (rc != PMIX_SUCCESS) {
            waiters_answer(&target, true, rc);
        }
    }
    goto out;
reply:
    px_srv_reply(c, seq, PX_TAG_GET, rc, rc == PMIX_SUCCESS ? &body : NULL);
out:
    px_bfrops_buf_free(&body);
    free(key);
    px_bfrops_info_array_free(info, ninfo);
}

/* ---- PMIx_server_dmodex_request ---- */

typedef struct {
    pmix_proc_t target;
    pmix_dmodex_response_fn_t cb;
    void *cbdata;
} dmreq_t;

static void dmreq_on_loop(void *arg)
{
    dmreq_t *d = arg;
    px_nspace_t *ns;
    px_ns_rank_t *pr = rank_of(&d->target, &ns);
    pmix_status_t rc;
    if (pr == NULL || !px_ns_rank_is_local(ns, d->target.rank)) {
        rc = PMIX_ERR_NOT_FOUND;
    } else if (pr->have_remote) {
        pmix_data_buffer_t body;
        px_bfrops_buf_init(&body);
        rc = px_blob_pack(&body, ns->name, d->target.rank, &pr->remote);
        d->cb(rc, rc == PMIX_SUCCESS ? body.base_ptr : NULL,
              rc == PMIX_SUCCESS ? body.bytes_used : 0, d->cbdata);
        px_bfrops_buf_free(&body);
        free(d);
        return;
    } else if (pr->ext != NULL && ((px_srv_client_t *)pr->ext)->departed) {
        rc = PMIX_ERR_NOT_FOUND;
    } else {
        rc = waiter_add(&d->target, false, NULL, 0, d->cb, d->cbdata);
        if (rc == PMIX_SUCCESS) {
            free(d);
            return;
        }
    }
    d->cb(rc, NULL, 0, d->cbdata);
    free(d);
}

PMIX_EXPORT pmix_status_t PMIx_server_dmodex_request(const pmix_proc_t *proc,
                                                     pmix_dmodex_response_fn_t cbfunc, void *cbdata)
{
    if (px_srv == NULL) {
        return PMIX_ERR_INIT;
    }
    if (proc == NULL || cbfunc == NULL || proc->rank >= PMIX_RANK_VALID) {
        return PMIX_ERR_BAD_PARAM;
    }
    dmreq_t *d = malloc(sizeof(*d));
    if (d == NULL) {
        return PMIX_ERR_NOMEM;
    }
    *d = (dmreq_t){*proc, cbfunc, cbdata};
    if (px_srv_shift(dmreq_on_loop, d) != 0) {
        free(d);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

/* ---- fence ---- */

static int cmp_proc(const void *a, const void *b)
{
    const pmix_proc_t *x = a, *y = b;
    int c = strncmp(x->nspace, y->nspace, PMIX_MAX_NSLEN);
    if (c != 0) {
        return c;
    }
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

char *px_srv_proc_signature(pmix_proc_t *procs, size_t n)
{
    qsort(procs, n, sizeof(*procs), cmp_proc);
    size_t len = 1;
    for (size_t i = 0; i < n; i++) {
        len += strlen(procs[i].nspace) + 13;
    }
    char *sig = malloc(len);
    if (sig == NULL) {
        return NULL;
    }
    size_t off = 0;
    sig[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (procs[i].rank == PMIX_RANK_WILDCARD) {
            off += (size_t)snprintf(sig + off, len - off, "%s:*;", procs[i].nspace);
        } else {
            off += (size_t)snprintf(sig + off, len - off, "%s:%u;", procs[i].nspace, procs[i].rank);
        }
    }
    return sig;
}

bool px_srv_procs_involve(const pmix_proc_t *procs, size_t n, const pmix_proc_t *p)
{
    for (size_t i = 0; i < n; i++) {
        if (PMIx_Check_nspace(procs[i].nspace, p->nspace) &&
            (procs[i].rank == PMIX_RANK_WILDCARD || procs[i].rank == p->rank)) {
            return true;
        }
    }
    return false;
}

static bool fence_involves(const px_fence_t *t, const pmix_proc_t *p)
{
    return px_srv_procs_involve(t->procs, t->nprocs, p);
}

pmix_status_t px_srv_count_local(const pmix_proc_t *procs, size_t nprocs, size_t *nlocal,
                                 bool *all_local)
{
    size_t n = 0;
    *all_local = true;
    for (size_t i = 0; i < nprocs; i++) {
        px_nspace_t *ns = px_store_find(&px_srv->store, procs[i].nspace);
        if (ns == NULL) {
            return PMIX_ERR_NOT_FOUND;
        }
        if (procs[i].rank == PMIX_RANK_WILDCARD) {
            uint32_t size = 0;
            const pmix_value_t *v = px_kvset_get(&ns->job, PMIX_JOB_SIZE);
            if (v != NULL) {
                PMIx_Value_get_number(v, &size, PMIX_UINT32);
            }
            size_t local = ns->my_node >= 0 ? ns->nodes[ns->my_node].nranks : 0;
            n += local;
            if (local != size) {
                *all_local = false;
            }
        } else if (px_ns_rank_is_local(ns, procs[i].rank)) {
            n++;
        } else {
            *all_local = false;
        }
    }
    *nlocal = n;
    return PMIX_SUCCESS;
}

/* Local participants, and whether every participant is local. */
static pmix_status_t fence_count(px_fence_t *t, bool *all_local)
{
    return px_srv_count_local(t->procs, t->nprocs, &t->nexpected, all_local);
}

static void fence_unlink(px_fence_t *t)
{
    for (px_fence_t **pp = &px_srv->fences; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == t) {
            *pp = t->next;
            return;
        }
    }
}

static void fence_free(px_fence_t *t)
{
    for (size_t i = 0; i < t->nparts; i++) {
        px_srv_client_release(t->parts[i].client);
    }
    if (t->timer != NULL) {
        event_free(t->timer);
    }
    free(t->parts);
    free(t->sig);
    free(t->procs);
    PMIx_Info_free(t->info, t->ninfo);
    free(t);
}

pmix_status_t px_srv_pack_all(const pmix_proc_t *procs, size_t nprocs, pmix_data_buffer_t *body)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < nprocs && rc == PMIX_SUCCESS; i++) {
        px_nspace_t *ns = px_store_find(&px_srv->store, procs[i].nspace);
        if (ns == NULL) {
            continue;
        }
        if (procs[i].rank != PMIX_RANK_WILDCARD) {
            rc = pack_rank(body, ns, procs[i].rank, false);
            continue;
        }
        for (size_t r = 0; r < ns->nranks && rc == PMIX_SUCCESS; r++) {
            rc = pack_rank(body, ns, (pmix_rank_t)r, false);
        }
    }
    return rc;
}

/* Answer every participant and retire the tracker (kept until the host returns). */
static void fence_complete(px_fence_t *t, pmix_status_t status)
{
    pmix_data_buffer_t body;
    px_bfrops_buf_init(&body);
    if (status == PMIX_SUCCESS && t->collect) {
        status = px_srv_pack_all(t->procs, t->nprocs, &body);
    }
    px_debug(2, "server", "fence %s done: %s (%zu participants here)", t->sig,
             PMIx_Error_string(status), t->nparts);
    for (size_t i = 0; i < t->nparts; i++) {
        px_srv_reply(t->parts[i].client, t->parts[i].seq, PX_TAG_FENCE, status,
                     status == PMIX_SUCCESS ? &body : NULL);
        px_srv_client_release(t->parts[i].client);
    }
    px_bfrops_buf_free(&body);
    t->nparts = 0;
    t->done = true;
    fence_unlink(t);
    if (!t->in_host) {
        fence_free(t);
    }
}

static void fence_done_on_loop(void *arg)
{
    modex_ans_t *d = arg;
    px_fence_t *t = d->t;
    t->in_host = false;
    modex_store(d);
    if (t->done) {
        fence_free(t); /* already failed (timeout or a lost participant) */
    } else {
        fence_complete(t, d->status);
    }
    free(d->data);
    free(d);
}

/* The host's fence_nb answer; any thread. */
static void fence_cb(pmix_status_t status, const char *data, size_t ndata, void *cbdata,
                     pmix_release_cbfunc_t relfn, void *relcbdata)
{
    modex_ans_t *d = calloc(1, sizeof(*d));
    if (d == NULL) {
        return; /* cannot even record it; the tracker's timeout (if any) will fire */
    }
    d->t = cbdata;
    modex_capture(d, status, data, ndata, relfn, relcbdata, fence_done_on_loop);
}

static void fence_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    pthread_mutex_lock(&px_srv->lock);
    px_fence_t *t = arg;
    event_free(t->timer);
    t->timer = NULL;
    fence_complete(t, PMIX_ERR_TIMEOUT);
    pthread_mutex_unlock(&px_srv->lock);
}

/* A fence_nb upcall waiting for the loop (px_srv_upcall): t->in_host keeps t. */
typedef struct {
    px_fence_t *t;
    char *contrib; /* the host's once the module accepted it */
    size_t size;
} fence_up_t;

/* Loop, no lock held. A refusal completes (or frees an already failed) tracker. */
static void fence_upcall(void *arg)
{
    fence_up_t *r = arg;
    px_fence_t *t = r->t;
    pmix_status_t rc = px_srv->module.fence_nb(t->procs, t->nprocs, t->info, t->ninfo, r->contrib,
                                               r->size, fence_cb, t);
    if (rc != PMIX_SUCCESS) {
        if (rc != PMIX_OPERATION_SUCCEEDED) {
            free(r->contrib); /* refused: never became the host's */
        }
        pthread_mutex_lock(&px_srv->lock);
        t->in_host = false;
        if (t->done) {
            fence_free(t); /* failed meanwhile (timeout or a lost participant) */
        } else {
            fence_complete(t, rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc);
        }
        pthread_mutex_unlock(&px_srv->lock);
    }
    free(r);
}

/* Every local participant is in: finish here or hand over to the host. */
static void fence_all_local_in(px_fence_t *t, bool all_local)
{
    if (all_local) {
        fence_complete(t, PMIX_SUCCESS);
        return;
    }
    if (px_srv->module.fence_nb == NULL) {
        fence_complete(t, PMIX_ERR_NOT_SUPPORTED);
        return;
    }
    pmix_data_buffer_t mine;
    px_bfrops_buf_init(&mine);
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; t->collect && i < t->nparts && rc == PMIX_SUCCESS; i++) {
        px_nspace_t *ns;
        px_ns_rank_t *pr = rank_of(&t->parts[i].client->proc, &ns);
        if (pr != NULL && pr->have_remote) {
            rc = px_blob_pack(&mine, ns->name, t->parts[i].client->proc.rank, &pr->remote);
        }
    }
    if (rc != PMIX_SUCCESS) {
        px_bfrops_buf_free(&mine);
        fence_complete(t, rc);
        return;
    }
    /* The Server chapter makes the host responsible for freeing this contribution. */
    fence_up_t *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        px_bfrops_buf_free(&mine);
        fence_complete(t, PMIX_ERR_NOMEM);
        return;
    }
    px_bfrops_buf_take(&mine, &r->contrib, &r->size);
    r->t = t;
    t->in_host = true;
    if (px_srv_upcall(fence_upcall, r) != 0) {
        free(r->contrib);
        free(r);
        t->in_host = false;
        fence_complete(t, PMIX_ERR_OUT_OF_RESOURCE);
    }
}

/* A participant that can no longer arrive fails the fence. */
static pmix_status_t fence_check_departed(px_fence_t *t)
{
    for (px_srv_client_t *c = px_srv->clients; c != NULL; c = c->next) {
        if (c->departed && fence_involves(t, &c->proc)) {
            return c->finalized ? PMIX_ERR_LOST_CONNECTION : PMIX_ERR_PROC_TERM_WO_SYNC;
        }
    }
    return PMIX_SUCCESS;
}

void px_srv_fence(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    size_t nprocs = 0;
    pmix_proc_t *procs = NULL;
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    px_fence_t *t = NULL;
    bool all_local = false;
    pmix_status_t rc = px_srv_unpack_procs(payload, &procs, &nprocs);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(payload, &info, &ninfo);
    }
    if (rc != PMIX_SUCCESS) {
        goto fail;
    }
    if (nprocs == 0) {
        PMIx_Load_procid(&procs[0], c->proc.nspace, PMIX_RANK_WILDCARD);
        nprocs = 1;
    }
    /* a group's id stands for its members (Chap_API_Sets_Groups) */
    rc = px_srv_group_expand(&procs, &nprocs);
    if (rc != PMIX_SUCCESS) {
        goto fail;
    }
    char *sig = px_srv_proc_signature(procs, nprocs);
    if (sig == NULL) {
        rc = PMIX_ERR_NOMEM;
        goto fail;
    }
    for (t = px_srv->fences; t != NULL; t = t->next) {
        if (strcmp(t->sig, sig) == 0) {
            break;
        }
    }
    if (t == NULL) {
        t = calloc(1, sizeof(*t));
        if (t == NULL) {
            free(sig);
            rc = PMIX_ERR_NOMEM;
            goto fail;
        }
        t->sig = sig;
        t->procs = procs;
        t->nprocs = nprocs;
        procs = NULL;
        t->info = info;
        t->ninfo = ninfo;
        info = NULL;
        ninfo = 0;
        for (size_t i = 0; i < t->ninfo; i++) {
            if (PMIX_CHECK_KEY(&t->info[i], PMIX_COLLECT_DATA)) {
                t->collect = PMIX_INFO_TRUE(&t->info[i]);
            } else if (PMIX_CHECK_KEY(&t->info[i], PMIX_TIMEOUT)) {
                int secs = 0;
                PMIx_Value_get_number(&t->info[i].value, &secs, PMIX_INT);
                if (secs > 0) {
                    t->timer = evtimer_new(px_progress_base(px_srv->prog), fence_timeout, t);
                    struct timeval tv = {secs, 0};
                    if (t->timer != NULL) {
                        evtimer_add(t->timer, &tv);
                    }
                }
            }
        }
        t->next = px_srv->fences;
        px_srv->fences = t;
    } else {
        free(sig);
        /* a later caller asking for the data makes the fence collect it */
        for (size_t i = 0; i < ninfo; i++) {
            if (PMIX_CHECK_KEY(&info[i], PMIX_COLLECT_DATA) && PMIX_INFO_TRUE(&info[i])) {
                t->collect = true;
            }
        }
    }
    for (size_t i = 0; i < t->nparts; i++) {
        if (t->parts[i].client == c) {
            rc = PMIX_EXISTS; /* the same process twice in one fence */
            goto fail;
        }
    }
    fence_part_t *parts = realloc(t->parts, (t->nparts + 1) * sizeof(*parts));
    if (parts == NULL) {
        rc = PMIX_ERR_NOMEM;
        goto fail;
    }
    t->parts = parts;
    parts[t->nparts++] = (fence_part_t){c, seq};
    px_srv_client_retain(c);
    rc = fence_count(t, &all_local);
    if (rc == PMIX_SUCCESS) {
        rc = fence_check_departed(t);
    }
    if (rc != PMIX_SUCCESS) {
        fence_complete(t, rc);
    } else if (t->nparts >= t->nexpected) {
        fence_all_local_in(t, all_local);
    }
    goto out;
fail:
    px_srv_reply(c, seq, PX_TAG_FENCE, rc, NULL);
out:
    free(procs);
    px_bfrops_info_array_free(info, ninfo);
}

/* ---- departures ---- */

void px_srv_data_client_gone(px_srv_client_t *c, bool deregistered)
{
    px_srv_evt_client_gone(c); /* its event registrations end with it */
    /* the groups and connects it is in or expected in (its connection may end through
     * its deregistration, before its end of stream is read) */
    px_srv_group_client_gone(c);
    px_srv_connect_client_gone(c);
    /* its own pending Gets: nobody to answer */
    for (px_waiter_t **pp = &px_srv->waiters; *pp != NULL;) {
        px_waiter_t *w = *pp;
        if (w->client == c) {
            *pp = w->next;
            waiter_free(w);
        } else {
            pp = &w->next;
        }
    }
    /* Gets waiting for its data: it will never commit now */
    px_ns_rank_t *pr = rank_of(&c->proc, NULL);
    if (pr == NULL || !pr->have_local) {
        waiters_answer(&c->proc, false, PMIX_ERR_NOT_FOUND);
    }
    if (deregistered && pr != NULL && pr->ext == c) {
        pr->ext = NULL;
    }
    /* fences it was part of (or expected in) fail, unless the host already has them */
    for (px_fence_t *t = px_srv->fences; t != NULL;) {
        px_fence_t *next = t->next;
        if (!t->in_host && fence_involves(t, &c->proc)) {
            fence_complete(t, c->finalized ? PMIX_ERR_LOST_CONNECTION : PMIX_ERR_PROC_TERM_WO_SYNC);
        } else {
            for (size_t i = 0; i < t->nparts; i++) {
                if (t->parts[i].client == c) {
                    px_srv_client_release(c);
                    t->parts[i] = t->parts[--t->nparts];
                    break;
                }
            }
        }
        t = next;
    }
}

void px_srv_data_fini(void)
{
    while (px_srv->fences != NULL) {
        px_fence_t *t = px_srv->fences;
        px_srv->fences = t->next;
        t->in_host = false; /* the host will not be heard from again */
        t->done = true;
        fence_free(t);
    }
    while (px_srv->waiters != NULL) {
        px_waiter_t *w = px_srv->waiters;
        px_srv->waiters = w->next;
        if (w->hostcb != NULL) {
            w->hostcb(PMIX_ERR_LOST_CONNECTION, NULL, 0, w->hostcbdata);
        }
        waiter_free(w);
    }
}
