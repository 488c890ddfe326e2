/* client: PMIx_Get / PMIx_Get_nb (local store first, then the server), PMIx_Store_internal,
 * PMIx_Resolve_peers / PMIx_Resolve_nodes. One state machine (get_step) serves both the
 * blocking form (driven on the caller's thread) and the non-blocking one (on the loop).
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "client/px_client.h"
#include "server/px_server.h"

typedef struct get_op {
    pmix_proc_t proc;
    char key[PMIX_MAX_KEYLEN + 1];
    pmix_info_t *info; /* owned copy */
    size_t ninfo;
    px_getq_t q;   /* points into info */
    bool optional; /* PMIX_OPTIONAL or PMIX_IMMEDIATE: never ask the server */
    bool refresh;  /* PMIX_GET_REFRESH_CACHE: ask the server even if cached */
    bool asked;    /* the server has answered once already */
    int timeout_ms;
    pmix_status_t status;
    pmix_value_t *value; /* owned result */
    pmix_value_cbfunc_t cb;
    void *cbdata;
} get_op_t;

enum get_next { GET_DONE, GET_NEED_NS, GET_NEED_SERVER };

static void get_op_free(get_op_t *op)
{
    PMIx_Info_free(op->info, op->ninfo);
    if (op->value != NULL) {
        PMIx_Value_free(op->value, 1);
    }
    free(op);
}

static pmix_status_t get_op_new(const pmix_proc_t *proc, const char *key, const pmix_info_t *info,
                                size_t ninfo, get_op_t **out)
{
    if (key == NULL || key[0] == '\0' || strlen(key) > PMIX_MAX_KEYLEN ||
        (ninfo > 0 && info == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    get_op_t *op = calloc(1, sizeof(*op));
    if (op == NULL) {
        return PMIX_ERR_NOMEM;
    }
    if (proc == NULL) {
        op->proc = px_cl.myproc;
    } else {
        op->proc = *proc;
        if (op->proc.nspace[0] == '\0') {
            PMIX_LOAD_NSPACE(op->proc.nspace, px_cl.myproc.nspace);
        }
    }
    if (op->proc.rank == PMIX_RANK_UNDEF) {
        op->proc.rank = PMIX_RANK_WILDCARD;
    }
    PMIX_LOAD_KEY(op->key, key);
    if (ninfo > 0) {
        op->info = PMIx_Info_create(ninfo);
        if (op->info == NULL) {
            free(op);
            return PMIX_ERR_NOMEM;
        }
        for (size_t i = 0; i < ninfo; i++) {
            PMIx_Info_xfer(&op->info[i], &info[i]);
            if (PMIX_CHECK_KEY(&info[i], PMIX_OPTIONAL) ||
                PMIX_CHECK_KEY(&info[i], PMIX_IMMEDIATE)) {
                op->optional = op->optional || PMIX_INFO_TRUE(&info[i]);
            } else if (PMIX_CHECK_KEY(&info[i], PMIX_GET_REFRESH_CACHE)) {
                op->refresh = PMIX_INFO_TRUE(&info[i]);
            }
        }
        op->ninfo = ninfo;
    }
    px_getq_parse(&op->q, op->info, op->ninfo);
    if (PMIx_Check_nspace(op->proc.nspace, px_cl.myproc.nspace)) {
        op->q.have_self = true; /* a wildcard app-realm key: my application's */
        op->q.self = px_cl.myproc.rank;
    }
    op->timeout_ms = px_cl_timeout_ms(op->info, op->ninfo);
    *out = op;
    return PMIX_SUCCESS;
}

/* One step: answer from the store, or say what to fetch. */
static enum get_next get_step(get_op_t *op)
{
    enum get_next next = GET_DONE;
    pthread_mutex_lock(&px_cl.lock);
    if (!op->asked && px_cl_group_lookup(&op->proc, op->key, op->info, op->ninfo, &op->value)) {
        op->status = PMIX_SUCCESS; /* a member's PMIX_GROUP_INFO contribution */
        goto out;
    }
    px_nspace_t *ns = px_store_find(&px_cl.store, op->proc.nspace);
    if (ns != NULL && !ns->complete && op->proc.nspace[0] != '\0' &&
        PMIx_Check_procid(&op->proc, &px_cl.myproc) && op->proc.rank == px_cl.myproc.rank) {
        /* what a tool knows of itself without a server (PMIX_MYSERVER_URI of its own
         * listener) */
        const pmix_value_t *own = px_ns_lookup(ns, op->proc.rank, op->key, &op->q);
        if (own != NULL) {
            op->value = PMIx_Value_create(1);
            op->status = op->value ? PMIx_Value_xfer(op->value, own) : PMIX_ERR_NOMEM;
            goto out;
        }
    }
    if (ns == NULL || !ns->complete) {
        if (op->optional || op->asked) {
            op->status = PMIX_ERR_NOT_FOUND;
        } else {
            next = GET_NEED_NS;
        }
        goto out;
    }
    bool fresh = px_cl_key_dynamic(op->key) || op->refresh;
    const pmix_value_t *v =
        (fresh && !op->asked) ? NULL : px_ns_lookup(ns, op->proc.rank, op->key, &op->q);
    if (v != NULL) {
        op->value = PMIx_Value_create(1);
        op->status = op->value ? PMIx_Value_xfer(op->value, v) : PMIX_ERR_NOMEM;
        goto out;
    }
    bool mine = PMIx_Check_nspace(op->proc.nspace, px_cl.myproc.nspace) &&
                op->proc.rank == px_cl.myproc.rank;
    bool final = op->asked || op->optional ||
                 (!fresh && (mine || op->q.app || op->q.node || px_key_reserved(op->key) ||
                             op->proc.rank == PMIX_RANK_WILDCARD));
    if (final) {
        op->status = PMIX_ERR_NOT_FOUND;
    } else {
        next = GET_NEED_SERVER;
    }
out:
    pthread_mutex_unlock(&px_cl.lock);
    return next;
}

static pmix_status_t pack_jobinfo_req(get_op_t *op, pmix_data_buffer_t *msg)
{
    px_bfrops_buf_init(msg);
    const char *ns = op->proc.nspace;
    return px_bfrops_pack(msg, &ns, 1, PMIX_STRING);
}

static pmix_status_t pack_get_req(get_op_t *op, pmix_data_buffer_t *msg)
{
    px_bfrops_buf_init(msg);
    const char *key = op->key;
    pmix_status_t rc = px_bfrops_pack(msg, &op->proc, 1, PMIX_PROC);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(msg, &key, 1, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(msg, op->info, op->ninfo);
    }
    return rc;
}

/* What came back from the server for op: stored, or the op ends with the error. */
static bool get_absorb(get_op_t *op, enum get_next asked, pmix_status_t st,
                       pmix_data_buffer_t *reply)
{
    if (st == PMIX_SUCCESS && reply != NULL) {
        st = asked == GET_NEED_NS ? px_cl_store_jobinfo(op->proc.nspace, reply)
                                  : px_cl_store_blob(reply);
    }
    if (asked == GET_NEED_SERVER) {
        op->asked = true;
    }
    if (st != PMIX_SUCCESS) {
        op->status = st;
        return false;
    }
    return true;
}

PMIX_EXPORT pmix_status_t PMIx_Get(const pmix_proc_t *proc, const char key[],
                                   const pmix_info_t info[], size_t ninfo, pmix_value_t **val)
{
    if (!px_cl_initialized() && px_srv != NULL && val != NULL && key != NULL) {
        /* a server process (a launcher started by a tool) asks what that tool registered
         * for it: its launch directives, its parent (server/server_uplink.c) */
        pmix_proc_t me = px_srv->myproc;
        if (proc != NULL && PMIx_Check_nspace(proc->nspace, me.nspace)) {
            me.rank = proc->rank;
        } else if (proc != NULL) {
            return PMIX_ERR_NOT_FOUND;
        }
        return px_srv_uplink_get(&me, key, val);
    }
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (val == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    get_op_t *op;
    pmix_status_t rc = get_op_new(proc, key, info, ninfo, &op);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    enum get_next next;
    while ((next = get_step(op)) != GET_DONE) {
        pmix_data_buffer_t msg, reply;
        px_bfrops_buf_init(&reply);
        rc = next == GET_NEED_NS ? pack_jobinfo_req(op, &msg) : pack_get_req(op, &msg);
        if (rc == PMIX_SUCCESS) {
            rc = px_cl_request_wait(next == GET_NEED_NS ? PX_TAG_JOBINFO : PX_TAG_GET, &msg,
                                    op->timeout_ms, &reply);
        }
        px_bfrops_buf_free(&msg);
        bool more = get_absorb(op, next, rc, rc == PMIX_SUCCESS ? &reply : NULL);
        px_bfrops_buf_free(&reply);
        if (!more) {
            break;
        }
    }
    rc = op->status;
    if (rc == PMIX_SUCCESS) {
        bool static_values = false;
        for (size_t i = 0; i < ninfo; i++) {
            if (PMIX_CHECK_KEY(&info[i], PMIX_GET_STATIC_VALUES)) {
                static_values = PMIX_INFO_TRUE(&info[i]);
            }
        }
        if (static_values && *val != NULL) {
            rc = PMIx_Value_xfer(*val, op->value); /* into the caller's storage */
        } else {
            *val = op->value;
            op->value = NULL;
        }
    }
    get_op_free(op);
    return rc;
}

/* ---- non-blocking ---- */

static void get_advance(void *arg);

static void get_reply_ns(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
    get_op_t *op = cbdata;
    if (get_absorb(op, GET_NEED_NS, st, reply)) {
        get_advance(op);
    } else {
        op->cb(op->status, NULL, op->cbdata);
        get_op_free(op);
    }
}

static void get_reply_server(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
    get_op_t *op = cbdata;
    if (get_absorb(op, GET_NEED_SERVER, st, reply)) {
        get_advance(op);
    } else {
        op->cb(op->status, NULL, op->cbdata);
        get_op_free(op);
    }
}

/* On the loop: step until done or a request is out. */
static void get_advance(void *arg)
{
    get_op_t *op = arg;
    enum get_next next = get_step(op);
    if (next != GET_DONE) {
        pmix_data_buffer_t msg;
        pmix_status_t rc =
            next == GET_NEED_NS ? pack_jobinfo_req(op, &msg) : pack_get_req(op, &msg);
        if (rc == PMIX_SUCCESS) {
            rc = px_cl_request(next == GET_NEED_NS ? PX_TAG_JOBINFO : PX_TAG_GET, &msg,
                               op->timeout_ms,
                               next == GET_NEED_NS ? get_reply_ns : get_reply_server, op);
        }
        px_bfrops_buf_free(&msg);
        if (rc == PMIX_SUCCESS) {
            return;
        }
        op->status = rc;
    }
    /* the value is the callback's to read during the call only */
    op->cb(op->status, op->status == PMIX_SUCCESS ? op->value : NULL, op->cbdata);
    get_op_free(op);
}

PMIX_EXPORT pmix_status_t PMIx_Get_nb(const pmix_proc_t *proc, const char key[],
                                      const pmix_info_t info[], size_t ninfo,
                                      pmix_value_cbfunc_t cbfunc, void *cbdata)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (cbfunc == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    get_op_t *op;
    pmix_status_t rc = get_op_new(proc, key, info, ninfo, &op);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    op->cb = cbfunc;
    op->cbdata = cbdata;
    rc = px_cl_later(get_advance, op);
    if (rc != PMIX_SUCCESS) {
        get_op_free(op);
    }
    return rc;
}

/* ---- local store ---- */

PMIX_EXPORT pmix_status_t PMIx_Store_internal(const pmix_proc_t *proc, const char key[],
                                              pmix_value_t *val)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (proc == NULL || key == NULL || val == NULL || strlen(key) > PMIX_MAX_KEYLEN) {
        return PMIX_ERR_BAD_PARAM;
    }
    pthread_mutex_lock(&px_cl.lock);
    pmix_status_t rc = PMIX_ERR_NOMEM;
    px_nspace_t *ns =
        px_store_add(&px_cl.store, proc->nspace[0] ? proc->nspace : px_cl.myproc.nspace);
    if (ns != NULL && proc->rank == PMIX_RANK_WILDCARD) {
        rc = px_kvset_put(&ns->job, key, val);
    } else if (ns != NULL) {
        px_ns_rank_t *pr = px_ns_rank(ns, proc->rank);
        if (pr == NULL) {
            rc = PMIX_ERR_BAD_PARAM;
        } else {
            rc = px_kvset_put(px_ns_rank_is_local(ns, proc->rank) ? &pr->local : &pr->remote, key,
                              val);
        }
    }
    pthread_mutex_unlock(&px_cl.lock);
    return rc;
}

/* Make sure we hold nspace's registration (asks the server once). */
static pmix_status_t ensure_nspace(const char *nspace)
{
    pthread_mutex_lock(&px_cl.lock);
    px_nspace_t *ns = px_store_find(&px_cl.store, nspace);
    bool have = ns != NULL && ns->complete;
    pthread_mutex_unlock(&px_cl.lock);
    if (have) {
        return PMIX_SUCCESS;
    }
    pmix_data_buffer_t msg, reply;
    px_bfrops_buf_init(&msg);
    pmix_status_t rc = px_bfrops_pack(&msg, &nspace, 1, PMIX_STRING);
    if (rc == PMIX_SUCCESS) {
        rc = px_cl_request_wait(PX_TAG_JOBINFO, &msg, 0, &reply);
        if (rc == PMIX_SUCCESS) {
            rc = px_cl_store_jobinfo(nspace, &reply);
        }
        px_bfrops_buf_free(&reply);
    }
    px_bfrops_buf_free(&msg);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Resolve_peers(const char *nodename, const pmix_nspace_t nspace,
                                             pmix_proc_t **procs, size_t *nprocs)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (procs == NULL || nprocs == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    *procs = NULL;
    *nprocs = 0;
    if (nspace != NULL && nspace[0] != '\0') {
        pmix_status_t rc = ensure_nspace(nspace);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    pthread_mutex_lock(&px_cl.lock);
    const char *host = nodename ? nodename : px_cl.store.my_hostname;
    size_t n = 0;
    pmix_status_t rc = PMIX_SUCCESS;
    for (int pass = 0; pass < 2 && rc == PMIX_SUCCESS; pass++) {
        for (px_nspace_t *ns = px_cl.store.nspaces; ns != NULL; ns = ns->next) {
            if (nspace != NULL && nspace[0] != '\0' && !PMIx_Check_nspace(ns->name, nspace)) {
                continue;
            }
            px_ns_node_t *node = px_ns_node_by_name(ns, host);
            for (size_t k = 0; node != NULL && k < node->nranks; k++) {
                if (pass == 1) {
                    PMIx_Load_procid(&(*procs)[n], ns->name, node->ranks[k]);
                }
                n++;
            }
        }
        if (pass == 0) {
            if (n == 0) {
                rc = PMIX_ERR_NOT_FOUND;
                break;
            }
            *procs = PMIx_Proc_create(n);
            rc = *procs ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
            *nprocs = n;
            n = 0;
        }
    }
    pthread_mutex_unlock(&px_cl.lock);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_Resolve_nodes(const pmix_nspace_t nspace, char **nodelist)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (nodelist == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    *nodelist = NULL;
    if (nspace != NULL && nspace[0] != '\0') {
        pmix_status_t rc = ensure_nspace(nspace);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    pthread_mutex_lock(&px_cl.lock);
    char **names = NULL;
    for (px_nspace_t *ns = px_cl.store.nspaces; ns != NULL; ns = ns->next) {
        if (nspace != NULL && nspace[0] != '\0' && !PMIx_Check_nspace(ns->name, nspace)) {
            continue;
        }
        for (size_t i = 0; i < ns->nnodes; i++) {
            const char *h = ns->nodes[i].hostname;
            bool dup = false;
            for (size_t k = 0; h != NULL && names != NULL && names[k] != NULL; k++) {
                dup = dup || strcmp(names[k], h) == 0;
            }
            if (h != NULL && !dup && ns->nodes[i].nranks > 0) {
                PMIx_Argv_append_nosize(&names, h);
            }
        }
    }
    pthread_mutex_unlock(&px_cl.lock);
    if (names == NULL) {
        return PMIX_ERR_NOT_FOUND;
    }
    *nodelist = PMIx_Argv_join(names, ',');
    PMIx_Argv_free(names);
    return *nodelist ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}
