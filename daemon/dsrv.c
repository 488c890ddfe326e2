/* daemon: prted's PMIx server and its host upcalls (px_dsrv.h). Upcalls: library thread,
 * shifted to the daemon's loop with px_progress_shift; the rest on the loop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "daemon/px_dproto.h"
#include "daemon/px_droute.h"
#include "daemon/px_dsrv.h"
#include "help/px_help.h"
#include "server/px_srv_host.h"

/* A fence handed to the controller, waiting for its FENCE_REL. */
typedef struct dfence {
    struct dfence *next;
    char *sig; /* owned */
    pmix_modex_cbfunc_t cbfunc;
    void *cbdata;
} dfence_t;

struct px_dsrv {
    px_dsrv_opts_t o;
    char *node;         /* owned: o.node */
    px_dlink_t *link;   /* borrowed */
    px_droute_t *route; /* borrowed: the routing tree (fences go up it once it is made) */
    dfence_t *fences;   /* owned */
};

/* The server library's upcalls carry no host context: the one server of this process. */
static px_dsrv_t *srv;

static px_peer_t *peer(void)
{
    return srv != NULL && srv->link != NULL ? px_dlink_peer(srv->link) : NULL;
}

/* Send a message to the controller; PMIX_SUCCESS or PMIX_ERR_UNREACH. */
static pmix_status_t up(uint32_t tag, const pmix_data_buffer_t *buf)
{
    px_peer_t *p = peer();
    return p != NULL && px_peer_send(p, tag, buf) == 0 ? PMIX_SUCCESS : PMIX_ERR_UNREACH;
}

/* ---- connected, finalized, abort: a message up, then the library's answer ---- */

typedef struct {
    uint32_t tag;
    pmix_data_buffer_t buf;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
} op_t;

static void op_on_loop(void *arg)
{
    op_t *o = arg;
    pmix_status_t rc = up(o->tag, &o->buf);
    if (o->cbfunc != NULL) {
        o->cbfunc(rc, o->cbdata);
    }
    px_bfrops_buf_free(&o->buf);
    free(o);
}

/* o's message is packed: to the loop. */
static pmix_status_t op_shift(op_t *o, pmix_status_t packed)
{
    if (packed != PMIX_SUCCESS || srv == NULL ||
        px_progress_shift(srv->o.prog, op_on_loop, o) != 0) {
        px_bfrops_buf_free(&o->buf);
        free(o);
        return packed != PMIX_SUCCESS ? packed : PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

static op_t *op_new(uint32_t tag, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    op_t *o = calloc(1, sizeof(*o));
    if (o != NULL) {
        o->tag = tag;
        o->cbfunc = cbfunc;
        o->cbdata = cbdata;
        px_bfrops_buf_init(&o->buf);
    }
    return o;
}

/* PSTATE with one report: connected (with the pid that connected: a fork/exec agent's
 * process is not the one this daemon started) or finalized. */
static pmix_status_t proc_state(const pmix_proc_t *proc, uint8_t state, pmix_op_cbfunc_t cbfunc,
                                void *cbdata)
{
    op_t *o = op_new(PX_DP_PSTATE, cbfunc, cbdata);
    if (o == NULL) {
        return PMIX_ERR_NOMEM;
    }
    px_dp_pstate_one_t one = {.rank = proc->rank,
                              .state = state,
                              .pid = state == PX_DP_PS_CONNECTED ? px_srv_client_pid(proc) : 0};
    px_dp_pstate_t ps = {.procs = &one, .n = 1};
    PMIX_LOAD_NSPACE(ps.nspace, proc->nspace);
    return op_shift(o, px_dp_pstate_pack(&o->buf, &ps));
}

static pmix_status_t up_connected(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cbfunc,
                                  void *cbdata)
{
    (void)obj;
    return proc_state(proc, PX_DP_PS_CONNECTED, cbfunc, cbdata);
}

static pmix_status_t up_finalized(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cbfunc,
                                  void *cbdata)
{
    (void)obj;
    return proc_state(proc, PX_DP_PS_FINALIZED, cbfunc, cbdata);
}

static pmix_status_t up_abort(const pmix_proc_t *proc, void *obj, int status, const char msg[],
                              pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cbfunc,
                              void *cbdata)
{
    (void)obj;
    op_t *o = op_new(PX_DP_ABORT, cbfunc, cbdata);
    if (o == NULL) {
        return PMIX_ERR_NOMEM;
    }
    return op_shift(o, px_dp_abort_pack(&o->buf, proc, status, msg, procs, nprocs));
}

/* ---- events beyond this node: up to the controller, which relays them ---- */

static pmix_status_t up_notify(pmix_status_t code, const pmix_proc_t *source,
                               pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    op_t *o = op_new(PX_DP_EVENT, cbfunc, cbdata);
    if (o == NULL) {
        return PMIX_ERR_NOMEM;
    }
    return op_shift(o, px_dp_event_pack(&o->buf, code, source, range, info, ninfo));
}

/* ---- fences ---- */

typedef struct {
    pmix_proc_t *procs; /* owned */
    size_t nprocs;
    bool collect;
    char *data; /* owned (the library gave it to the host) */
    size_t ndata;
    pmix_modex_cbfunc_t cbfunc;
    void *cbdata;
} fence_req_t;

static void fence_on_loop(void *arg)
{
    fence_req_t *f = arg;
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    dfence_t *t = calloc(1, sizeof(*t));
    pmix_status_t rc = t != NULL && (t->sig = px_dp_fence_sig(f->procs, f->nprocs)) != NULL
                           ? PMIX_SUCCESS
                           : PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS && px_droute_active(srv->route)) {
        /* up the tree, with the rest of this daemon's subtree */
        rc = px_droute_fence(srv->route, f->procs, f->nprocs, f->collect, f->data, f->ndata);
    } else if (rc == PMIX_SUCCESS) {
        rc = px_dp_fence_up_pack(&b, f->procs, f->nprocs, f->collect, f->data, f->ndata);
        if (rc == PMIX_SUCCESS) {
            rc = up(PX_DP_FENCE_UP, &b);
        }
    }
    if (rc == PMIX_SUCCESS) {
        t->cbfunc = f->cbfunc;
        t->cbdata = f->cbdata;
        t->next = srv->fences;
        srv->fences = t;
    } else {
        if (t != NULL) {
            free(t->sig);
        }
        free(t);
        f->cbfunc(rc, NULL, 0, f->cbdata, NULL, NULL);
    }
    px_bfrops_buf_free(&b);
    free(f->procs);
    free(f->data);
    free(f);
}

static pmix_status_t up_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                              void *cbdata)
{
    fence_req_t *f = calloc(1, sizeof(*f));
    if (f == NULL || nprocs == 0 || (f->procs = calloc(nprocs, sizeof(*procs))) == NULL) {
        free(f);
        return nprocs == 0 ? PMIX_ERR_BAD_PARAM : PMIX_ERR_NOMEM;
    }
    memcpy(f->procs, procs, nprocs * sizeof(*procs));
    f->nprocs = nprocs;
    for (size_t i = 0; i < ninfo; i++) {
        f->collect |= PMIX_CHECK_KEY(&info[i], PMIX_COLLECT_DATA) && PMIX_INFO_TRUE(&info[i]);
    }
    f->data = data;
    f->ndata = ndata;
    f->cbfunc = cbfunc;
    f->cbdata = cbdata;
    if (srv == NULL || px_progress_shift(srv->o.prog, fence_on_loop, f) != 0) {
        free(f->procs);
        free(f);
        return PMIX_ERR_OUT_OF_RESOURCE; /* the data stays the library's */
    }
    return PMIX_SUCCESS;
}

static void fence_release(px_dsrv_t *s, const px_dp_ctl_msg_t *m)
{
    for (dfence_t **pp = &s->fences; *pp != NULL; pp = &(*pp)->next) {
        dfence_t *t = *pp;
        if (strcmp(t->sig, m->sig) == 0) {
            *pp = t->next;
            /* the library copies the bytes before it returns */
            t->cbfunc(m->status, m->data.bytes, m->data.size, t->cbdata, NULL, NULL);
            free(t->sig);
            free(t);
            return;
        }
    }
}

/* ---- direct modex: a request through the controller to the target's daemon ---- */

typedef struct {
    pmix_proc_t target;
    pmix_info_t *info; /* owned */
    size_t ninfo;
    pmix_modex_cbfunc_t cbfunc;
    void *cbdata;
} dmx_t;

static void dmx_reply(px_peer_t *p, pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)p;
    dmx_t *d = cbdata;
    pmix_byte_object_t bo = {0};
    pmix_status_t st = status;
    if (status == PMIX_SUCCESS && px_dp_dmodex_resp_unpack(reply, &st, &bo) != PMIX_SUCCESS) {
        st = PMIX_ERR_UNPACK_FAILURE;
    }
    d->cbfunc(st, st == PMIX_SUCCESS ? bo.bytes : NULL, st == PMIX_SUCCESS ? bo.size : 0, d->cbdata,
              NULL, NULL);
    free(d);
}

static void dmx_on_loop(void *arg)
{
    dmx_t *d = arg;
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    pmix_status_t rc = px_dp_dmodex_req_pack(&b, &d->target, d->info, d->ninfo);
    PMIx_Info_free(d->info, d->ninfo);
    d->info = NULL;
    px_peer_t *p = peer();
    if (rc == PMIX_SUCCESS &&
        (p == NULL || px_peer_send_request(p, PX_DP_DMODEX_REQ, &b, dmx_reply, d) != 0)) {
        rc = PMIX_ERR_UNREACH;
    }
    px_bfrops_buf_free(&b);
    if (rc != PMIX_SUCCESS) {
        d->cbfunc(rc, NULL, 0, d->cbdata, NULL, NULL);
        free(d);
    }
}

static pmix_status_t up_dmodex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                               pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    dmx_t *d = calloc(1, sizeof(*d));
    if (d == NULL || (ninfo > 0 && (d->info = PMIx_Info_create(ninfo)) == NULL)) {
        free(d);
        return PMIX_ERR_NOMEM;
    }
    d->target = *proc;
    for (size_t i = 0; i < ninfo; i++) {
        PMIx_Info_xfer(&d->info[i], &info[i]);
    }
    d->ninfo = ninfo;
    d->cbfunc = cbfunc;
    d->cbdata = cbdata;
    if (srv == NULL || px_progress_shift(srv->o.prog, dmx_on_loop, d) != 0) {
        PMIx_Info_free(d->info, d->ninfo);
        free(d);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

/* The controller asks for one of our processes' data. */
typedef struct {
    px_dsrv_t *s;
    uint32_t seq;
    pmix_status_t status;
    char *data; /* owned copy */
    size_t size;
} dmx_serve_t;

static void dmx_serve_on_loop(void *arg)
{
    dmx_serve_t *x = arg;
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    px_peer_t *p = peer();
    if (p != NULL && px_dp_dmodex_resp_pack(&b, x->status, x->data, x->size) == PMIX_SUCCESS) {
        px_peer_send_reply(p, x->seq, PX_DP_DMODEX_RESP, &b);
    }
    px_bfrops_buf_free(&b);
    free(x->data);
    free(x);
}

/* PMIx_server_dmodex_request's answer: library thread. */
static void dmx_serve_cb(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
    dmx_serve_t *x = cbdata;
    x->status = status;
    if (status == PMIX_SUCCESS && sz > 0) {
        x->data = malloc(sz);
        if (x->data == NULL) {
            x->status = PMIX_ERR_NOMEM;
        } else {
            memcpy(x->data, data, sz);
            x->size = sz;
        }
    }
    if (px_progress_shift(x->s->o.prog, dmx_serve_on_loop, x) != 0) {
        free(x->data);
        free(x);
    }
}

static void dmx_serve(px_dsrv_t *s, const px_dp_ctl_msg_t *m, uint32_t seq)
{
    dmx_serve_t *x = calloc(1, sizeof(*x));
    pmix_status_t rc = PMIX_ERR_NOMEM;
    if (x != NULL) {
        *x = (dmx_serve_t){.s = s, .seq = seq};
        rc = PMIx_server_dmodex_request(&m->target, dmx_serve_cb, x);
    }
    if (rc != PMIX_SUCCESS) {
        free(x);
        pmix_data_buffer_t b;
        px_bfrops_buf_init(&b);
        px_peer_t *p = peer();
        if (p != NULL && px_dp_dmodex_resp_pack(&b, rc, NULL, 0) == PMIX_SUCCESS) {
            px_peer_send_reply(p, seq, PX_DP_DMODEX_RESP, &b);
        }
        px_bfrops_buf_free(&b);
    }
}

/* ---- requests answered with a status and results: job control, groups, connect ---- */

/* A request answered with a status and results: JOBCTL, QUERY, GROUP_UP, PUBSUB. */
typedef struct {
    uint32_t tag; /* PX_DP_JOBCTL, PX_DP_QUERY, PX_DP_GROUP_UP or PX_DP_PUBSUB */
    pmix_data_buffer_t buf;
    pmix_info_cbfunc_t icb;   /* job control, group construct/destruct */
    pmix_op_cbfunc_t ocb;     /* connect, disconnect, publish, unpublish */
    pmix_lookup_cbfunc_t lcb; /* lookup */
    void *cbdata;
    pmix_info_t *info; /* owned: the answer's results, until the library releases them */
    size_t ninfo;
} req_t;

static void req_release(void *arg)
{
    req_t *c = arg;
    px_bfrops_info_array_free(c->info, c->ninfo);
    free(c);
}

/* The answer (or st without one) to the library's callback. */
static void req_answer(req_t *c, pmix_status_t st)
{
    if (c->lcb != NULL) {
        c->lcb(st, NULL, 0, c->cbdata);
        req_release(c);
    } else if (c->ocb != NULL) {
        c->ocb(st, c->cbdata);
        req_release(c);
    } else {
        c->icb(st, c->info, c->ninfo, c->cbdata, req_release, c);
    }
}

static void req_reply(px_peer_t *p, pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)p;
    req_t *c = cbdata;
    pmix_status_t st = status;
    if (status == PMIX_SUCCESS && c->tag == PX_DP_PUBSUB) {
        pmix_pdata_t *d = NULL;
        size_t n = 0;
        if (px_dp_pubsub_reply_unpack(reply, &st, &d, &n) != PMIX_SUCCESS) {
            st = PMIX_ERR_UNPACK_FAILURE;
        } else if (c->lcb != NULL) {
            c->lcb(st, d, n, c->cbdata); /* the library copies what it keeps */
            if (d != NULL) {
                PMIx_Pdata_free(d, n);
            }
            req_release(c);
            return;
        }
    } else if (status == PMIX_SUCCESS &&
               px_dp_status_info_unpack(reply, &st, &c->info, &c->ninfo) != PMIX_SUCCESS) {
        st = PMIX_ERR_UNPACK_FAILURE;
    }
    req_answer(c, st);
}

static void req_on_loop(void *arg)
{
    req_t *c = arg;
    px_peer_t *p = peer();
    int rc = p != NULL ? px_peer_send_request(p, c->tag, &c->buf, req_reply, c) : -1;
    px_bfrops_buf_free(&c->buf);
    if (rc != 0) {
        req_answer(c, PMIX_ERR_UNREACH);
    }
}

static req_t *req_new(uint32_t tag, pmix_info_cbfunc_t icb, pmix_op_cbfunc_t ocb, void *cbdata)
{
    req_t *c = calloc(1, sizeof(*c));
    if (c != NULL) {
        px_bfrops_buf_init(&c->buf);
        c->tag = tag;
        c->icb = icb;
        c->ocb = ocb;
        c->cbdata = cbdata;
    }
    return c;
}

/* c's message is packed (or not: rc): to the loop. Library thread. */
static pmix_status_t req_shift(req_t *c, pmix_status_t rc)
{
    if (rc == PMIX_SUCCESS &&
        (srv == NULL || px_progress_shift(srv->o.prog, req_on_loop, c) != 0)) {
        rc = PMIX_ERR_OUT_OF_RESOURCE;
    }
    if (rc != PMIX_SUCCESS) {
        px_bfrops_buf_free(&c->buf);
        free(c);
    }
    return rc;
}

static pmix_status_t up_jobctl(const pmix_proc_t *requestor, const pmix_proc_t targets[],
                               size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                               pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    req_t *c = req_new(PX_DP_JOBCTL, cbfunc, NULL, cbdata);
    if (c == NULL) {
        return PMIX_ERR_NOMEM;
    }
    return req_shift(c,
                     px_dp_jobctl_pack(&c->buf, requestor, targets, ntargets, directives, ndirs));
}

/* ---- queries the library leaves to its host: the controller answers (QUERY) ---- */

static pmix_status_t up_query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                              pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    req_t *c = req_new(PX_DP_QUERY, cbfunc, NULL, cbdata);
    if (c == NULL) {
        return PMIX_ERR_NOMEM;
    }
    return req_shift(c, px_dp_query_pack(&c->buf, proct, queries, nqueries));
}

/* ---- tools: only this node's fork/exec agents, recognised by pid (nagent_agent.c) ---- */

typedef struct {
    pmix_tool_connection_cbfunc_t cbfunc;
    void *cbdata;
    pid_t pid; /* 0: not told */
    uint32_t uid;
    bool have_uid;
} dtool_t;

static void tool_on_loop(void *arg)
{
    dtool_t *t = arg;
    pmix_proc_t proc;
    bool ok = srv != NULL && srv->link != NULL && t->pid > 0 && t->have_uid &&
              t->uid == (uint32_t)geteuid() &&
              px_nagent_agent_claim(px_dlink_agent(srv->link), t->pid, &proc);
    t->cbfunc(ok ? PMIX_SUCCESS : PMIX_ERR_NOT_SUPPORTED, ok ? &proc : NULL, t->cbdata);
    free(t);
}

static void up_tool(pmix_info_t *info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                    void *cbdata)
{
    dtool_t *t = calloc(1, sizeof(*t));
    if (t == NULL) {
        cbfunc(PMIX_ERR_NOMEM, NULL, cbdata);
        return;
    }
    t->cbfunc = cbfunc;
    t->cbdata = cbdata;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_PROC_PID)) {
            PMIx_Value_get_number(&info[i].value, &t->pid, PMIX_PID);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_USERID)) {
            t->have_uid =
                PMIx_Value_get_number(&info[i].value, &t->uid, PMIX_UINT32) == PMIX_SUCCESS;
        }
    }
    if (srv == NULL || px_progress_shift(srv->o.prog, tool_on_loop, t) != 0) {
        free(t);
        cbfunc(PMIX_ERR_OUT_OF_RESOURCE, NULL, cbdata);
    }
}

/* Group construct/destruct, connect, disconnect: one contribution of this server to the
 * controller's collective (launcher/dvm_group.c), answered by GROUP_REL. */
static pmix_status_t up_collective(uint8_t kind, const char *key, const pmix_proc_t procs[],
                                   size_t nprocs, const pmix_info_t info[], size_t ninfo,
                                   pmix_info_cbfunc_t icb, pmix_op_cbfunc_t ocb, void *cbdata)
{
    req_t *c = req_new(PX_DP_GROUP_UP, icb, ocb, cbdata);
    if (c == NULL) {
        return PMIX_ERR_NOMEM;
    }
    return req_shift(c, px_dp_group_up_pack(&c->buf, kind, key, procs, nprocs, info, ninfo));
}

static pmix_status_t up_group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
                              size_t nprocs, const pmix_info_t directives[], size_t ndirs,
                              pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    if (op != PMIX_GROUP_CONSTRUCT && op != PMIX_GROUP_DESTRUCT) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (grp == NULL || grp[0] == '\0' || cbfunc == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    return up_collective(op == PMIX_GROUP_CONSTRUCT ? PX_DP_GRP_CONSTRUCT : PX_DP_GRP_DESTRUCT, grp,
                         procs, nprocs, directives, ndirs, cbfunc, NULL, cbdata);
}

static pmix_status_t up_connect_any(uint8_t kind, const pmix_proc_t procs[], size_t nprocs,
                                    const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                    void *cbdata)
{
    pmix_status_t rc = PMIX_ERR_BAD_PARAM;
    char *sig = cbfunc != NULL ? px_dp_connect_key(procs, nprocs, &rc) : NULL;
    if (sig == NULL) {
        return rc;
    }
    rc = up_collective(kind, sig, procs, nprocs, info, ninfo, NULL, cbfunc, cbdata);
    free(sig);
    return rc;
}

static pmix_status_t up_connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return up_connect_any(PX_DP_GRP_CONNECT, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

static pmix_status_t up_disconnect(const pmix_proc_t procs[], size_t nprocs,
                                   const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                   void *cbdata)
{
    return up_connect_any(PX_DP_GRP_DISCONNECT, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

/* ---- spawn: the controller starts the job (as for a process of its own node) ---- */

typedef struct {
    pmix_data_buffer_t buf;
    pmix_spawn_cbfunc_t cbfunc;
    void *cbdata;
} spawn_t;

static void spawn_reply(px_peer_t *p, pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)p;
    spawn_t *x = cbdata;
    pmix_status_t st = status;
    char *ns = NULL;
    if (status == PMIX_SUCCESS && px_dp_proc_spawn_reply_unpack(reply, &st, &ns) != PMIX_SUCCESS) {
        st = PMIX_ERR_UNPACK_FAILURE;
    }
    x->cbfunc(st, st == PMIX_SUCCESS ? ns : NULL, x->cbdata); /* the library copies it */
    free(ns);
    free(x);
}

static void spawn_on_loop(void *arg)
{
    spawn_t *x = arg;
    px_peer_t *p = peer();
    int rc = p != NULL ? px_peer_send_request(p, PX_DP_PROC_SPAWN, &x->buf, spawn_reply, x) : -1;
    px_bfrops_buf_free(&x->buf);
    if (rc != 0) {
        x->cbfunc(PMIX_ERR_UNREACH, NULL, x->cbdata);
        free(x);
    }
}

static pmix_status_t up_spawn(const pmix_proc_t *proc, const pmix_info_t job_info[], size_t ninfo,
                              const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                              void *cbdata)
{
    if (napps == 0 || apps == NULL || cbfunc == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    spawn_t *x = calloc(1, sizeof(*x));
    if (x == NULL) {
        return PMIX_ERR_NOMEM;
    }
    px_bfrops_buf_init(&x->buf);
    x->cbfunc = cbfunc;
    x->cbdata = cbdata;
    pmix_status_t rc = px_dp_proc_spawn_pack(&x->buf, proc, job_info, ninfo, apps, napps);
    if (rc == PMIX_SUCCESS &&
        (srv == NULL || px_progress_shift(srv->o.prog, spawn_on_loop, x) != 0)) {
        rc = PMIX_ERR_OUT_OF_RESOURCE;
    }
    if (rc != PMIX_SUCCESS) {
        px_bfrops_buf_free(&x->buf);
        free(x);
    }
    return rc;
}

/* ---- the name service: the controller's datastore serves every node ---- */

static pmix_status_t up_pubsub(uint8_t kind, const pmix_proc_t *proc, char **keys,
                               const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t ocb,
                               pmix_lookup_cbfunc_t lcb, void *cbdata)
{
    req_t *c = req_new(PX_DP_PUBSUB, NULL, ocb, cbdata);
    if (c == NULL) {
        return PMIX_ERR_NOMEM;
    }
    c->lcb = lcb;
    return req_shift(c, px_dp_pubsub_pack(&c->buf, kind, proc, keys, info, ninfo));
}

static pmix_status_t up_publish(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return up_pubsub(PX_DP_PS_PUBLISH, proc, NULL, info, ninfo, cbfunc, NULL, cbdata);
}

static pmix_status_t up_lookup(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                               size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    if (keys == NULL || keys[0] == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    return up_pubsub(PX_DP_PS_LOOKUP, proc, keys, info, ninfo, NULL, cbfunc, cbdata);
}

static pmix_status_t up_unpublish(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                                  size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return up_pubsub(PX_DP_PS_UNPUBLISH, proc, keys, info, ninfo, cbfunc, NULL, cbdata);
}

static pmix_server_module_t module = {
    .client_connected = up_connected,
    .client_finalized = up_finalized,
    .abort = up_abort,
    .fence_nb = up_fence,
    .direct_modex = up_dmodex,
    .spawn = up_spawn,
    .notify_event = up_notify,
    .job_control = up_jobctl,
    .query = up_query,
    .tool_connected = up_tool,
    .group = up_group,
    .connect = up_connect,
    .disconnect = up_disconnect,
    .publish = up_publish,
    .lookup = up_lookup,
    .unpublish = up_unpublish,
};

px_dsrv_t *px_dsrv_start(const px_dsrv_opts_t *o, pmix_status_t *rc)
{
    px_dsrv_t *s = calloc(1, sizeof(*s));
    if (s == NULL || (s->node = strdup(o->node)) == NULL) {
        free(s);
        *rc = PMIX_ERR_NOMEM;
        return NULL;
    }
    s->o = *o;
    s->o.node = s->node;
    pmix_rank_t rank = o->id;
    pmix_topology_t topo = {.source = "hwloc", .topology = o->topo};
    bool yes = true;
    pmix_info_t info[6];
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_NSPACE, o->nspace, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SERVER_RANK, &rank, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&info[2], PMIX_HOSTNAME, o->node, PMIX_STRING);
    PMIX_INFO_LOAD(&info[3], PMIX_TOPOLOGY2, &topo, PMIX_TOPO);
    /* tools: this node's fork/exec agents, by the URI they are given (no rendezvous) */
    PMIX_INFO_LOAD(&info[4], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[5], PX_SRV_NO_RNDZ, &yes, PMIX_BOOL);
    srv = s; /* upcalls may come as soon as the server is up */
    *rc = PMIx_server_init(&module, info, 6);
    for (size_t i = 0; i < 6; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    if (*rc != PMIX_SUCCESS) {
        srv = NULL;
        free(s->node);
        free(s);
        return NULL;
    }
    return s;
}

void px_dsrv_attach(px_dsrv_t *s, px_dlink_t *link)
{
    s->link = link;
}

void px_dsrv_route(px_dsrv_t *s, px_droute_t *route)
{
    s->route = route;
}

pmix_status_t px_dsrv_ctl(px_dsrv_t *s, const px_dp_ctl_msg_t *m, uint32_t seq)
{
    switch (m->tag) {
    case PX_DP_FENCE_REL:
        fence_release(s, m);
        return PMIX_SUCCESS;
    case PX_DP_DMODEX_REQ:
        dmx_serve(s, m, seq);
        return PMIX_SUCCESS;
    case PX_DP_EVENT:
        /* from another node: our server delivers it to the local processes in range
         * (it does not send it back up: the source is not this server) */
        PMIx_Notify_event(m->status, &m->source, m->range, m->info, m->ninfo, NULL, NULL);
        return PMIX_SUCCESS;
    case PX_DP_PSET: {
        /* the DVM's process sets, as the controller's server has them: our server
         * answers its processes' gets and queries, and raises the define/delete events
         * to them */
        pmix_status_t rc = m->define ? PMIx_server_define_process_set(m->procs, m->nprocs, m->name)
                                     : PMIx_server_delete_process_set(m->name);
        if (rc != PMIX_SUCCESS) {
            px_debug(1, "prted", "process set %s: %s %s", m->name, m->define ? "define" : "delete",
                     PMIx_Error_string(rc));
        }
        return PMIX_SUCCESS;
    }
    default:
        return PMIX_ERR_NOT_SUPPORTED;
    }
}

void px_dsrv_stop(px_dsrv_t *s)
{
    if (s == NULL) {
        return;
    }
    s->link = NULL;
    while (s->fences != NULL) {
        dfence_t *t = s->fences;
        s->fences = t->next;
        t->cbfunc(PMIX_ERR_LOST_CONNECTION, NULL, 0, t->cbdata, NULL, NULL);
        free(t->sig);
        free(t);
    }
    PMIx_server_finalize();
    srv = NULL;
    free(s->node);
    free(s);
}
