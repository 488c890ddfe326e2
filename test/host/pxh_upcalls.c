/*
 * pxh_upcalls.c - the server module pxhost gives the library, and the loop-thread side of
 * its cross-node operations: fences (all-to-all exchange of the contributions between
 * participating nodes) and direct modex (ask the node hosting the rank).
 * The module functions run on the library's progress thread and only post work items.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pxh_node.h"

void pxh_check_ids(const char *what, pmix_rank_t rank, const pmix_info_t *info, size_t n)
{
    bool uid = false, gid = false;
    uint32_t u = 0, g = 0;

    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_USERID))
            uid = PMIx_Value_get_number(&info[i].value, &u, PMIX_UINT32) == PMIX_SUCCESS;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_GRPID))
            gid = PMIx_Value_get_number(&info[i].value, &g, PMIX_UINT32) == PMIX_SUCCESS;
    }
    if (!uid || !gid)
        pxh_host_error("%s upcall for rank %u: the library did not add %s%s%s to the info", what,
                       rank, uid ? "" : "PMIX_USERID", !uid && !gid ? " and " : "",
                       gid ? "" : "PMIX_GRPID");
    else if (u != (uint32_t)geteuid() || g != (uint32_t)getegid())
        pxh_host_error("%s upcall for rank %u: PMIX_USERID %u / PMIX_GRPID %u, but the requester "
                       "runs as %u / %u",
                       what, rank, u, g, (unsigned)geteuid(), (unsigned)getegid());
}

/* ---- upcalls (progress thread): copy, post, return ---- */

static pxh_work_t *work_new(int kind, const pmix_proc_t *proc)
{
    pxh_work_t *w = calloc(1, sizeof(*w));

    if (!w)
        return NULL;
    w->kind = kind;
    if (proc)
        w->proc = *proc;
    return w;
}

static char **keys_dup(char **keys)
{
    return keys ? PMIx_Argv_copy(keys) : NULL;
}

static pmix_status_t up_connected2(const pmix_proc_t *proc, void *server_object, pmix_info_t info[],
                                   size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pxh_reenter("client_connected2");
    pxh_work_t *w = work_new(PXH_W_CONNECTED, proc);

    if (!w)
        return PMIX_ERR_NOMEM;
    w->cb.op = cbfunc;
    w->cbdata = cbdata;
    pxh_node_post(w);
    return PMIX_SUCCESS;
}

static pmix_status_t up_connected(const pmix_proc_t *proc, void *server_object,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return up_connected2(proc, server_object, NULL, 0, cbfunc, cbdata);
}

static pmix_status_t up_finalized(const pmix_proc_t *proc, void *server_object,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pxh_reenter("client_finalized");
    pxh_work_t *w = work_new(PXH_W_FINALIZED, proc);

    if (!w)
        return PMIX_ERR_NOMEM;
    w->cb.op = cbfunc;
    w->cbdata = cbdata;
    pxh_node_post(w);
    return PMIX_SUCCESS;
}

static pmix_status_t up_abort(const pmix_proc_t *proc, void *server_object, int status,
                              const char msg[], pmix_proc_t procs[], size_t nprocs,
                              pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pxh_reenter("abort");
    pxh_work_t *w = work_new(PXH_W_ABORT, proc);

    if (!w)
        return PMIX_ERR_NOMEM;
    w->status = status;
    w->msg = strdup(msg ? msg : "");
    w->cb.op = cbfunc;
    w->cbdata = cbdata;
    pxh_node_post(w);
    return PMIX_SUCCESS;
}

static pmix_status_t up_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                              void *cbdata)
{
    pxh_reenter("fence_nb");
    pxh_work_t *w = work_new(PXH_W_FENCE, NULL);

    if (!w)
        return PMIX_ERR_NOMEM;
    w->procs = calloc(nprocs ? nprocs : 1, sizeof(pmix_proc_t));
    if (nprocs)
        memcpy(w->procs, procs, nprocs * sizeof(pmix_proc_t));
    w->nprocs = nprocs;
    w->info = pxh_info_dup(info, ninfo);
    w->ninfo = ninfo;
    /* The Standard makes the host responsible for freeing data: take it over. */
    w->data = data;
    w->ndata = ndata;
    w->cb.modex = cbfunc;
    w->cbdata = cbdata;
    pxh_node_post(w);
    return PMIX_SUCCESS;
}

static pmix_status_t up_dmodex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                               pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    pxh_reenter("direct_modex");
    pxh_work_t *w = work_new(PXH_W_DMODEX, proc);

    if (!w)
        return PMIX_ERR_NOMEM;
    w->info = pxh_info_dup(info, ninfo);
    w->ninfo = ninfo;
    w->cb.modex = cbfunc;
    w->cbdata = cbdata;
    pxh_node_post(w);
    return PMIX_SUCCESS;
}

static pmix_status_t up_publish(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pxh_reenter("publish");
    pxh_work_t *w = work_new(PXH_W_PUBLISH, proc);

    if (!w)
        return PMIX_ERR_NOMEM;
    w->info = pxh_info_dup(info, ninfo);
    w->ninfo = ninfo;
    w->cb.op = cbfunc;
    w->cbdata = cbdata;
    pxh_node_post(w);
    return PMIX_SUCCESS;
}

static pmix_status_t up_lookup(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                               size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    pxh_reenter("lookup");
    pxh_work_t *w = work_new(PXH_W_LOOKUP, proc);

    if (!w)
        return PMIX_ERR_NOMEM;
    w->keys = keys_dup(keys);
    w->info = pxh_info_dup(info, ninfo);
    w->ninfo = ninfo;
    w->cb.lookup = cbfunc;
    w->cbdata = cbdata;
    pxh_node_post(w);
    return PMIX_SUCCESS;
}

static pmix_status_t up_unpublish(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                                  size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pxh_reenter("unpublish");
    pxh_work_t *w = work_new(PXH_W_UNPUBLISH, proc);

    if (!w)
        return PMIX_ERR_NOMEM;
    w->keys = keys_dup(keys);
    w->info = pxh_info_dup(info, ninfo);
    w->ninfo = ninfo;
    w->cb.op = cbfunc;
    w->cbdata = cbdata;
    pxh_node_post(w);
    return PMIX_SUCCESS;
}

static pmix_status_t up_job_control(const pmix_proc_t *requestor, const pmix_proc_t targets[],
                                    size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                    pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    pxh_reenter("job_control");
    pxh_work_t *w = work_new(PXH_W_JOBCTL, requestor);

    if (!w)
        return PMIX_ERR_NOMEM;
    w->info = pxh_info_dup(directives, ndirs);
    w->ninfo = ndirs;
    w->cb.info = cbfunc;
    w->cbdata = cbdata;
    pxh_node_post(w);
    return PMIX_SUCCESS;
}

static pmix_status_t up_log2(const pmix_proc_t *client, const pmix_info_t data[], size_t ndata,
                             const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
                             void *cbdata)
{
    pxh_reenter("log2");
    pxh_work_t *w = work_new(PXH_W_LOG, client);

    if (!w)
        return PMIX_ERR_NOMEM;
    w->info = pxh_info_dup(data, ndata);
    w->ninfo = ndata;
    w->info2 = pxh_info_dup(directives, ndirs);
    w->ninfo2 = ndirs;
    w->cb.op = cbfunc;
    w->cbdata = cbdata;
    pxh_node_post(w);
    return PMIX_SUCCESS;
}

static void up_log(const pmix_proc_t *client, const pmix_info_t data[], size_t ndata,
                   const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
                   void *cbdata)
{
    if (up_log2(client, data, ndata, directives, ndirs, cbfunc, cbdata) != PMIX_SUCCESS && cbfunc)
        cbfunc(PMIX_ERR_NOMEM, cbdata);
}

pmix_server_module_t pxh_module = {
    .client_connected = up_connected,
    .client_finalized = up_finalized,
    .abort = up_abort,
    .fence_nb = up_fence,
    .direct_modex = up_dmodex,
    .publish = up_publish,
    .lookup = up_lookup,
    .unpublish = up_unpublish,
    .log = up_log,
    .job_control = up_job_control,
    .client_connected2 = up_connected2,
    .log2 = up_log2,
    .notify_event = pxh_up_notify_event,
    .register_events = pxh_up_register_events,
    .deregister_events = pxh_up_deregister_events,
    .query = pxh_query_upcall,
    .tool_connected = pxh_tool_connected,
};

/* ---- fences (loop thread) ---- */

typedef struct pxh_fence {
    char *sig;
    uint32_t seq;
    bool participant[PXH_MAX_NODES];
    bool have[PXH_MAX_NODES];
    char *data[PXH_MAX_NODES];
    size_t ndata[PXH_MAX_NODES];
    pmix_status_t status;
    bool local; /* the library's call arrived: cb, procs valid */
    pmix_modex_cbfunc_t cb;
    void *cbdata;
    pmix_proc_t *procs;
    size_t nprocs;
    struct pxh_fence *next;
} pxh_fence_t;

typedef struct pxh_sigcount {
    char *sig;
    uint32_t next;
    struct pxh_sigcount *link;
} pxh_sigcount_t;

static int cmp_proc(const void *a, const void *b)
{
    const pmix_proc_t *p = a, *q = b;
    int c = strncmp(p->nspace, q->nspace, PMIX_MAX_NSLEN);

    if (c)
        return c;
    return p->rank < q->rank ? -1 : p->rank > q->rank;
}

/* Participant-set signature: the sorted procs, e.g. "pxjob.12:*" or "pxjob.12:0,2". */
static char *fence_sig(pmix_proc_t *procs, size_t n)
{
    size_t cap = 64 + n * (PMIX_MAX_NSLEN + 16), len = 0;
    char *s = malloc(cap);

    qsort(procs, n, sizeof(*procs), cmp_proc);
    s[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (procs[i].rank == PMIX_RANK_WILDCARD)
            len += (size_t)snprintf(s + len, cap - len, "%s:*;", procs[i].nspace);
        else
            len += (size_t)snprintf(s + len, cap - len, "%s:%u;", procs[i].nspace, procs[i].rank);
    }
    return s;
}

static bool includes_rank(const pxh_fence_t *f, int rank)
{
    for (size_t i = 0; i < f->nprocs; i++) {
        if (f->procs[i].rank == PMIX_RANK_WILDCARD || (int)f->procs[i].rank == rank)
            return true;
    }
    return false;
}

static pxh_fence_t *fence_find(const char *sig, uint32_t seq)
{
    pxh_fence_t *f;

    for (f = pxh_node.fences; f; f = f->next) {
        if (f->seq == seq && strcmp(f->sig, sig) == 0)
            return f;
    }
    f = calloc(1, sizeof(*f));
    f->sig = strdup(sig);
    f->seq = seq;
    f->status = PMIX_SUCCESS;
    f->next = pxh_node.fences;
    pxh_node.fences = f;
    return f;
}

static void fence_free(pxh_fence_t *f)
{
    pxh_fence_t **pp;

    for (pp = &pxh_node.fences; *pp; pp = &(*pp)->next) {
        if (*pp == f) {
            *pp = f->next;
            break;
        }
    }
    for (int j = 0; j < PXH_MAX_NODES; j++)
        free(f->data[j]);
    free(f->sig);
    free(f->procs);
    free(f);
}

static void release_blob(void *cbdata)
{
    free(cbdata);
}

static void fence_check(pxh_fence_t *f)
{
    size_t total = 0, off = 0;
    char *blob;

    if (!f->local)
        return;
    if (f->status == PMIX_SUCCESS) {
        for (int j = 0; j < pxh_opts.nnodes; j++) {
            if (f->participant[j] && !f->have[j])
                return;
        }
    }
    if (f->status != PMIX_SUCCESS) {
        f->cb(f->status, NULL, 0, f->cbdata, NULL, NULL);
        fence_free(f);
        return;
    }
    for (int j = 0; j < pxh_opts.nnodes; j++)
        total += f->ndata[j];
    blob = malloc(total ? total : 1);
    for (int j = 0; j < pxh_opts.nnodes; j++) {
        if (f->ndata[j])
            memcpy(blob + off, f->data[j], f->ndata[j]);
        off += f->ndata[j];
    }
    f->cb(PMIX_SUCCESS, blob, total, f->cbdata, release_blob, blob);
    fence_free(f);
}

static uint32_t next_seq(const char *sig)
{
    pxh_sigcount_t *c;

    for (c = pxh_node.sigcounts; c; c = c->link) {
        if (strcmp(c->sig, sig) == 0)
            return c->next++;
    }
    c = calloc(1, sizeof(*c));
    c->sig = strdup(sig);
    c->next = 1;
    c->link = pxh_node.sigcounts;
    pxh_node.sigcounts = c;
    return 0;
}

static void fence_local(pxh_work_t *w)
{
    char *sig = fence_sig(w->procs, w->nprocs);
    uint32_t seq = next_seq(sig);
    pxh_fence_t *f = fence_find(sig, seq);

    pxh_debug("fence_nb %s #%u: %zu bytes, %zu info", sig, seq, w->ndata, w->ninfo);
    pmix_status_t local_status = PMIX_SUCCESS;
    int32_t st;

    for (size_t i = 0; i < w->ninfo; i++) {
        if (strcmp(w->info[i].key, PMIX_LOCAL_COLLECTIVE_STATUS) == 0 &&
            w->info[i].value.type == PMIX_STATUS)
            local_status = w->info[i].value.data.status;
    }
    for (size_t i = 0; i < w->nprocs; i++) {
        if (strncmp(w->procs[i].nspace, pxh_opts.nspace, PMIX_MAX_NSLEN) != 0) {
            pxh_host_error("fence_nb with a proc of unknown namespace %s", w->procs[i].nspace);
            local_status = PMIX_ERR_BAD_PARAM;
            continue;
        }
        if (w->procs[i].rank == PMIX_RANK_WILDCARD) {
            for (int j = 0; j < pxh_opts.nnodes; j++)
                f->participant[j] = true;
        } else if ((int)w->procs[i].rank < pxh_opts.nranks) {
            f->participant[pxh_node_of((int)w->procs[i].rank)] = true;
        } else {
            pxh_host_error("fence_nb with rank %u out of range", w->procs[i].rank);
            local_status = PMIX_ERR_BAD_PARAM;
        }
    }
    if (!f->participant[pxh_node.id])
        pxh_host_error("fence_nb (%s) without any participant on this node", sig);
    f->local = true;
    f->cb = w->cb.modex;
    f->cbdata = w->cbdata;
    f->procs = w->procs;
    f->nprocs = w->nprocs;
    w->procs = NULL;
    f->have[pxh_node.id] = true;
    f->data[pxh_node.id] = w->data;
    f->ndata[pxh_node.id] = w->ndata;
    w->data = NULL;
    if (local_status != PMIX_SUCCESS && f->status == PMIX_SUCCESS)
        f->status = local_status;
    for (int r = 0; r < pxh_opts.nranks; r++) {
        if (pxh_node.dead[r] && includes_rank(f, r) && f->status == PMIX_SUCCESS)
            f->status = PMIX_ERR_PROC_TERM_WO_SYNC;
    }
    st = local_status;
    for (int j = 0; j < pxh_opts.nnodes; j++) {
        pmix_byte_object_t bo = {f->data[pxh_node.id], f->ndata[pxh_node.id]};
        pmix_data_buffer_t *b;

        if (j == pxh_node.id || !f->participant[j])
            continue;
        b = pxh_msg_new(PXH_MSG_FENCE);
        pxh_pack(b, &sig, 1, PMIX_STRING);
        pxh_pack(b, &seq, 1, PMIX_UINT32);
        pxh_pack(b, &st, 1, PMIX_INT32);
        pxh_pack(b, &bo, 1, PMIX_BYTE_OBJECT);
        pxh_send(j, b);
    }
    free(sig);
    fence_check(f);
}

static void fence_remote(int from, pmix_data_buffer_t *buf)
{
    char *sig = NULL;
    uint32_t seq;
    int32_t st;
    pmix_byte_object_t bo = {NULL, 0};
    pxh_fence_t *f;

    if (!pxh_unpack(buf, &sig, 1, PMIX_STRING) || !pxh_unpack(buf, &seq, 1, PMIX_UINT32) ||
        !pxh_unpack(buf, &st, 1, PMIX_INT32) || !pxh_unpack(buf, &bo, 1, PMIX_BYTE_OBJECT)) {
        free(sig);
        return;
    }
    f = fence_find(sig, seq);
    f->have[from] = true;
    f->data[from] = bo.bytes;
    f->ndata[from] = bo.size;
    if (st != PMIX_SUCCESS && f->status == PMIX_SUCCESS)
        f->status = st;
    free(sig);
    fence_check(f);
}

void pxh_proc_died(int rank)
{
    pxh_fence_t *f, *next;

    if (rank < 0 || rank >= pxh_opts.nranks)
        return;
    pxh_node.dead[rank] = true;
    for (f = pxh_node.fences; f; f = next) {
        next = f->next;
        if (f->local && includes_rank(f, rank)) {
            fprintf(stderr, "pxhost: node %d: rank %d died without finalizing: failing its fence\n",
                    pxh_node.id, rank);
            f->status = PMIX_ERR_PROC_TERM_WO_SYNC;
            fence_check(f);
        }
    }
}

/* ---- direct modex (loop thread) ---- */

typedef struct pxh_dmx {
    uint32_t id;
    int rank;
    double deadline; /* 0: none */
    pmix_modex_cbfunc_t cb;
    void *cbdata;
    struct pxh_dmx *next;
} pxh_dmx_t;

static void dmx_serve_cb(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
    pxh_work_t *w = cbdata;

    w->status = status;
    if (sz && data) {
        w->data = malloc(sz);
        memcpy(w->data, data, sz);
        w->ndata = sz;
    }
    pxh_node_post(w);
}

static void dmx_reply(int to, uint32_t id, int32_t status, char *data, size_t ndata)
{
    pmix_data_buffer_t *b = pxh_msg_new(PXH_MSG_DMX_RESP);
    pmix_byte_object_t bo = {data, ndata};

    pxh_pack(b, &id, 1, PMIX_UINT32);
    pxh_pack(b, &status, 1, PMIX_INT32);
    pxh_pack(b, &bo, 1, PMIX_BYTE_OBJECT);
    pxh_send(to, b);
}

static void dmx_request(int from, pmix_data_buffer_t *buf)
{
    uint32_t id;
    pmix_proc_t proc;
    pxh_work_t *w;
    pmix_status_t rc;

    if (!pxh_unpack(buf, &id, 1, PMIX_UINT32) || !pxh_unpack(buf, &proc, 1, PMIX_PROC))
        return;
    pxh_debug("node %d asks for the data of rank %u", from, proc.rank);
    w = work_new(PXH_W_DMX_SERVED, &proc);
    w->from_node = from;
    w->id = id;
    rc = PMIx_server_dmodex_request(&proc, dmx_serve_cb, w);
    if (rc != PMIX_SUCCESS) {
        dmx_reply(from, id, rc, NULL, 0);
        pxh_work_free(w);
    }
}

static void dmx_local(pxh_work_t *w)
{
    int rank = (int)w->proc.rank, node;
    pxh_dmx_t *d;
    pmix_data_buffer_t *b;

    if (strncmp(w->proc.nspace, pxh_opts.nspace, PMIX_MAX_NSLEN) != 0 || rank < 0 ||
        rank >= pxh_opts.nranks) {
        w->cb.modex(PMIX_ERR_NOT_FOUND, NULL, 0, w->cbdata, NULL, NULL);
        return;
    }
    node = pxh_node_of(rank);
    if (node == pxh_node.id) {
        fprintf(stderr, "pxhost: node %d: direct_modex asked for local rank %d\n", pxh_node.id,
                rank);
        w->cb.modex(PMIX_ERR_NOT_FOUND, NULL, 0, w->cbdata, NULL, NULL);
        return;
    }
    pxh_debug("direct_modex for rank %d: asking node %d", rank, node);
    d = calloc(1, sizeof(*d));
    d->id = pxh_node.next_id++;
    d->rank = rank;
    d->cb = w->cb.modex;
    d->cbdata = w->cbdata;
    for (size_t i = 0; i < w->ninfo; i++) {
        if (strcmp(w->info[i].key, PMIX_TIMEOUT) == 0 && w->info[i].value.type == PMIX_INT &&
            w->info[i].value.data.integer > 0)
            d->deadline = pxh_now() + w->info[i].value.data.integer;
    }
    d->next = pxh_node.dmx;
    pxh_node.dmx = d;
    b = pxh_msg_new(PXH_MSG_DMX_REQ);
    pxh_pack(b, &d->id, 1, PMIX_UINT32);
    pxh_pack(b, &w->proc, 1, PMIX_PROC);
    pxh_send(node, b);
}

static pxh_dmx_t *dmx_take(uint32_t id)
{
    for (pxh_dmx_t **pp = &pxh_node.dmx; *pp; pp = &(*pp)->next) {
        pxh_dmx_t *d = *pp;
        if (d->id == id) {
            *pp = d->next;
            return d;
        }
    }
    return NULL;
}

static void dmx_response(pmix_data_buffer_t *buf)
{
    uint32_t id;
    int32_t status;
    pmix_byte_object_t bo = {NULL, 0};
    pxh_dmx_t *d;

    if (!pxh_unpack(buf, &id, 1, PMIX_UINT32) || !pxh_unpack(buf, &status, 1, PMIX_INT32) ||
        !pxh_unpack(buf, &bo, 1, PMIX_BYTE_OBJECT))
        return;
    d = dmx_take(id);
    if (!d) { /* timed out already */
        free(bo.bytes);
        return;
    }
    if (bo.size)
        d->cb(status, bo.bytes, bo.size, d->cbdata, release_blob, bo.bytes);
    else {
        d->cb(status, NULL, 0, d->cbdata, NULL, NULL);
        free(bo.bytes);
    }
    free(d);
}

int pxh_next_deadline_ms(void)
{
    double now = pxh_now(), first = 0;
    int ps = pxh_pubsub_deadline_ms();

    for (pxh_dmx_t *d = pxh_node.dmx; d; d = d->next) {
        if (d->deadline > 0 && (first == 0 || d->deadline < first))
            first = d->deadline;
    }
    if (first == 0)
        return ps;
    int ms = first <= now ? 0 : (int)((first - now) * 1000) + 1;
    return ps >= 0 && ps < ms ? ps : ms;
}

void pxh_expire(void)
{
    double now = pxh_now();
    pxh_dmx_t **pp = &pxh_node.dmx;

    while (*pp) {
        pxh_dmx_t *d = *pp;
        if (d->deadline > 0 && d->deadline <= now) {
            *pp = d->next;
            d->cb(PMIX_ERR_TIMEOUT, NULL, 0, d->cbdata, NULL, NULL);
            free(d);
        } else {
            pp = &d->next;
        }
    }
    pxh_pubsub_expire();
}

/* ---- dispatch (loop thread) ---- */

static const char *rank_str(const pmix_proc_t *p, char *buf, size_t sz)
{
    if (p->rank == PMIX_RANK_WILDCARD)
        snprintf(buf, sz, "*");
    else
        snprintf(buf, sz, "%u", p->rank);
    return buf;
}

static void print_infos(const char *what, const pmix_proc_t *p, pmix_info_t *info, size_t n)
{
    char rb[16];

    fprintf(stderr, "pxhost: node %d: %s from rank %s:", pxh_node.id, what,
            rank_str(p, rb, sizeof(rb)));
    for (size_t i = 0; i < n; i++) {
        char *s = PMIx_Info_string(&info[i]);
        fprintf(stderr, " [%s]", s ? s : info[i].key);
        free(s);
    }
    fputc('\n', stderr);
}

static void job_control(pxh_work_t *w)
{
    print_infos("job_control", &w->proc, w->info, w->ninfo);
    for (size_t i = 0; i < w->ninfo; i++) {
        if ((strcmp(w->info[i].key, PMIX_REGISTER_CLEANUP) == 0 ||
             strcmp(w->info[i].key, PMIX_REGISTER_CLEANUP_DIR) == 0) &&
            w->info[i].value.type == PMIX_STRING && pxh_node.ncleanup < 64) {
            char **paths = PMIx_Argv_split(w->info[i].value.data.string, ',');
            for (int k = 0; paths && paths[k] && pxh_node.ncleanup < 64; k++)
                pxh_node.cleanup[pxh_node.ncleanup++] = strdup(paths[k]);
            PMIx_Argv_free(paths);
        }
    }
    if (w->cb.info)
        w->cb.info(PMIX_SUCCESS, NULL, 0, w->cbdata, NULL, NULL);
}

static pxh_client_t *client_of(const pmix_proc_t *p)
{
    int i = (int)p->rank - pxh_node_start(pxh_node.id);

    if (p->rank == PMIX_RANK_WILDCARD || i < 0 || i >= pxh_node.nclients)
        return NULL;
    return &pxh_node.clients[i];
}

void pxh_handle_work(pxh_work_t *w)
{
    pxh_client_t *c;
    pmix_data_buffer_t *b;

    switch (w->kind) {
    case PXH_W_CONNECTED:
    case PXH_W_FINALIZED:
        c = client_of(&w->proc);
        if (!c)
            pxh_host_error("client %s upcall for rank %u which is not local",
                           w->kind == PXH_W_CONNECTED ? "connected" : "finalized", w->proc.rank);
        else if (w->kind == PXH_W_CONNECTED && !c->registered)
            pxh_host_error("client connected upcall for rank %u, which was never registered",
                           w->proc.rank);
        else if (w->kind == PXH_W_CONNECTED && c->connected)
            pxh_host_error("second client connected upcall for rank %u", w->proc.rank);
        else if (w->kind == PXH_W_CONNECTED)
            c->connected = true;
        else if (!c->connected)
            pxh_host_error("client finalized upcall for rank %u, which never connected",
                           w->proc.rank);
        else if (c->finalized)
            pxh_host_error("second client finalized upcall for rank %u", w->proc.rank);
        else
            c->finalized = true;
        if (w->cb.op)
            w->cb.op(PMIX_SUCCESS, w->cbdata);
        break;
    case PXH_W_ABORT:
        fprintf(stderr, "pxhost: rank %u of %s aborted with status %d: %s\n", w->proc.rank,
                w->proc.nspace, w->status, w->msg);
        b = pxh_msg_new(PXH_MSG_ABORT);
        {
            int32_t r = (int32_t)w->proc.rank, st = w->status;
            pxh_pack(b, &r, 1, PMIX_INT32);
            pxh_pack(b, &st, 1, PMIX_INT32);
        }
        pxh_send(-1, b);
        if (w->cb.op)
            w->cb.op(PMIX_SUCCESS, w->cbdata);
        break;
    case PXH_W_FENCE:
        fence_local(w);
        break;
    case PXH_W_DMODEX:
        dmx_local(w);
        break;
    case PXH_W_DMX_SERVED:
        pxh_debug("data of rank %u for node %d: %s, %zu bytes", w->proc.rank, w->from_node,
                  PMIx_Error_string(w->status), w->ndata);
        dmx_reply(w->from_node, w->id, w->status, w->data, w->ndata);
        break;
    case PXH_W_PUBLISH:
    case PXH_W_LOOKUP:
    case PXH_W_UNPUBLISH:
        pxh_pubsub_work(w);
        break;
    case PXH_W_JOBCTL:
        job_control(w);
        break;
    case PXH_W_NOTIFY:
        pxh_event_work(w);
        break;
    case PXH_W_QUERY:
        pxh_query_work(w);
        return;
    case PXH_W_SPAWN:
    case PXH_W_PUSH:
        pxh_spawn_work(w);
        return;
    case PXH_W_LOG:
        print_infos("log", &w->proc, w->info, w->ninfo);
        if (w->cb.op)
            w->cb.op(PMIX_SUCCESS, w->cbdata);
        break;
    default:
        break;
    }
    pxh_work_free(w);
}

void pxh_handle_msg(int from, uint8_t cmd, pmix_data_buffer_t *buf)
{
    int32_t rank;

    switch (cmd) {
    case PXH_MSG_FENCE:
        fence_remote(from, buf);
        break;
    case PXH_MSG_DMX_REQ:
        dmx_request(from, buf);
        break;
    case PXH_MSG_DMX_RESP:
        dmx_response(buf);
        break;
    case PXH_MSG_EVENT:
        pxh_event_msg(from, buf);
        break;
    case PXH_MSG_PROC_DIED:
        if (pxh_unpack(buf, &rank, 1, PMIX_INT32))
            pxh_proc_died(rank);
        break;
    default:
        pxh_pubsub_msg(from, cmd, buf);
        break;
    }
}
