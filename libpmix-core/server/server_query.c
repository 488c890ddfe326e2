/* server: PMIx_Query_info on the server side — a client's QUERY request, or the host's own
 * PMIx_Query_info(_nb) in the server process. Library keys (psets, namespaces, attribute
 * support, the server URI, available servers) are answered from the server's state; the
 * rest goes to the host's `query` upcall with the queries and their qualifiers intact
 * (PMIX_USERID/PMIX_GRPID appended). Runs on the loop with px_srv->lock held; the host's
 * callback may come from any thread and is shifted back.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "common/px_query.h"
#include "server/px_server.h"

typedef void (*qdone_fn)(pmix_status_t rc, px_qans_t *ans, void *cbdata);

/* One query request being answered. */
typedef struct {
    pmix_proc_t requester;
    uint32_t uid, gid;
    pmix_query_t *q; /* owned */
    size_t nq;
    px_qans_t *ans;   /* owned, nq lists */
    pmix_query_t *hq; /* owned: what the host is asked */
    size_t nhq;
    size_t *hmap;      /* owned: hq[i] belongs to q[hmap[i]] */
    pmix_info_t *hres; /* owned: copy of the host's answer */
    size_t nhres;
    pmix_status_t hstatus;
    qdone_fn done;
    void *cbdata;
} qreq_t;

static void qreq_free(qreq_t *r)
{
    if (r == NULL) {
        return;
    }
    PMIx_Query_free(r->q, r->nq);
    px_qans_free(r->ans, r->nq);
    PMIx_Query_free(r->hq, r->nhq);
    free(r->hmap);
    px_bfrops_info_array_free(r->hres, r->nhres);
    free(r);
}

/* ---- library keys ---- */

static const char *qual_string(const pmix_query_t *q, const char *key)
{
    for (size_t i = 0; i < q->nqual; i++) {
        if (PMIX_CHECK_KEY(&q->qualifiers[i], key) && q->qualifiers[i].value.type == PMIX_STRING) {
            return q->qualifiers[i].value.data.string;
        }
    }
    return NULL;
}

static pmix_status_t ans_namespaces(px_qans_t *a)
{
    char **names = NULL;
    for (px_nspace_t *ns = px_srv->store.nspaces; ns != NULL; ns = ns->next) {
        if (ns->complete) {
            PMIx_Argv_append_nosize(&names, ns->name);
        }
    }
    char *joined = names != NULL ? PMIx_Argv_join(names, ',') : strdup("");
    PMIx_Argv_free(names);
    if (joined == NULL) {
        return PMIX_ERR_NOMEM;
    }
    pmix_value_t v = {.type = PMIX_STRING, .data.string = joined};
    return px_qans_take(a, PMIX_QUERY_NAMESPACES, &v);
}

static size_t npsets(void)
{
    size_t n = 0;
    for (px_pset_t *p = px_srv->psets; p != NULL; p = p->next) {
        n++;
    }
    return n;
}

static pmix_status_t ans_pset_names(px_qans_t *a)
{
    size_t n = npsets();
    pmix_data_array_t *da = n > 0 ? PMIx_Data_array_create(n, PMIX_STRING) : calloc(1, sizeof(*da));
    if (da == NULL) {
        return PMIX_ERR_NOMEM;
    }
    da->type = PMIX_STRING;
    char **names = da->array;
    size_t k = n; /* the list is newest first: report in definition order */
    for (px_pset_t *p = px_srv->psets; p != NULL; p = p->next) {
        names[--k] = strdup(p->name);
    }
    pmix_value_t v = {.type = PMIX_DATA_ARRAY, .data.darray = da};
    return px_qans_take(a, PMIX_QUERY_PSET_NAMES, &v);
}

/* PMIX_ERR_NOT_FOUND: no PMIX_PSET_NAME qualifier or no such set. */
static pmix_status_t ans_pset_members(const pmix_query_t *q, px_qans_t *a)
{
    const char *name = qual_string(q, PMIX_PSET_NAME);
    px_pset_t *p = px_srv->psets;
    while (name != NULL && p != NULL && strcmp(p->name, name) != 0) {
        p = p->next;
    }
    if (p == NULL || name == NULL) {
        return PMIX_ERR_NOT_FOUND;
    }
    pmix_data_array_t *da =
        p->nmembers > 0 ? PMIx_Data_array_create(p->nmembers, PMIX_PROC) : calloc(1, sizeof(*da));
    if (da == NULL) {
        return PMIX_ERR_NOMEM;
    }
    da->type = PMIX_PROC;
    if (p->nmembers > 0) {
        memcpy(da->array, p->members, p->nmembers * sizeof(pmix_proc_t));
    }
    pmix_value_t v = {.type = PMIX_DATA_ARRAY, .data.darray = da};
    return px_qans_take(a, PMIX_QUERY_PSET_MEMBERSHIP, &v);
}

/* The host's registered attributes of fn (every PMIx_Register_attributes call for it). */
static char **host_attrs(const char *fn)
{
    char **all = NULL;
    for (size_t i = 0; i < px_srv->nattrs; i++) {
        if (PMIX_CHECK_KEY(&px_srv->attrs[i], fn) && px_srv->attrs[i].value.type == PMIX_STRING) {
            char **some = PMIx_Argv_split(px_srv->attrs[i].value.data.string, ',');
            for (size_t k = 0; some != NULL && some[k] != NULL; k++) {
                PMIx_Argv_append_unique_nosize(&all, some[k]);
            }
            PMIx_Argv_free(some);
        }
    }
    return all;
}

static char *host_functions(void)
{
    char **fns = NULL;
    for (size_t i = 0; i < px_srv->nattrs; i++) {
        PMIx_Argv_append_unique_nosize(&fns, px_srv->attrs[i].key);
    }
    char *joined = fns != NULL ? PMIx_Argv_join(fns, ',') : NULL;
    PMIx_Argv_free(fns);
    return joined;
}

/* One level of one function: a data array of PMIX_REGATTR, or PMIX_UNDEF when none. */
static void level_value(const char *level, const char *fn, pmix_value_t *v)
{
    char **keys = NULL;
    if (strcmp(level, PMIX_HOST_ATTRIBUTES) == 0) {
        keys = host_attrs(fn);
    } else {
        const char *const *lib = px_query_lib_attrs(level, fn);
        for (size_t i = 0; lib != NULL && lib[i] != NULL; i++) {
            PMIx_Argv_append_nosize(&keys, lib[i]);
        }
    }
    size_t n = (size_t)PMIx_Argv_count(keys);
    pmix_data_array_t *da = n > 0 ? PMIx_Data_array_create(n, PMIX_REGATTR) : NULL;
    v->type = PMIX_UNDEF;
    if (da != NULL) {
        pmix_regattr_t *r = da->array;
        for (size_t i = 0; i < n; i++) {
            px_query_regattr(&r[i], keys[i]);
        }
        v->type = PMIX_DATA_ARRAY;
        v->data.darray = da;
    }
    PMIx_Argv_free(keys);
}

/* PMIX_QUERY_ATTRIBUTE_SUPPORT (keys[0]; keys[1..] function names). Answers:
 *  - per requested *_FUNCTIONS level: (level key, comma-joined function names), when
 *    that level has any;
 *  - per function name: (function name, data array of PMIX_INFO with one entry per
 *    requested *_ATTRIBUTES level: (level key, data array of PMIX_REGATTR, or PMIX_UNDEF
 *    when nothing is supported at that level)).
 * Levels are the qualifiers set true; none given means every level. Client and server
 * levels come from the library's own table (common/query.c), host levels from
 * PMIx_Register_attributes, the tool level is empty (no tool library here yet). */
static pmix_status_t ans_attr_support(const pmix_query_t *q, px_qans_t *a)
{
    static const char *const fn_levels[] = {PMIX_CLIENT_FUNCTIONS, PMIX_SERVER_FUNCTIONS,
                                            PMIX_HOST_FUNCTIONS, PMIX_TOOL_FUNCTIONS};
    static const char *const at_levels[] = {PMIX_CLIENT_ATTRIBUTES, PMIX_SERVER_ATTRIBUTES,
                                            PMIX_HOST_ATTRIBUTES, PMIX_TOOL_ATTRIBUTES};
    bool want_fn[4] = {false}, want_at[4] = {false}, any = false;
    for (size_t i = 0; i < q->nqual; i++) {
        for (int l = 0; l < 4; l++) {
            if (PMIX_CHECK_KEY(&q->qualifiers[i], fn_levels[l])) {
                want_fn[l] = PMIX_INFO_TRUE(&q->qualifiers[i]);
                any = true;
            }
            if (PMIX_CHECK_KEY(&q->qualifiers[i], at_levels[l])) {
                want_at[l] = PMIX_INFO_TRUE(&q->qualifiers[i]);
                any = true;
            }
        }
    }
    if (!any) {
        for (int l = 0; l < 4; l++) {
            want_fn[l] = want_at[l] = true;
        }
    }
    pmix_status_t rc = PMIX_SUCCESS;
    for (int l = 0; l < 4 && rc == PMIX_SUCCESS; l++) {
        if (!want_fn[l]) {
            continue;
        }
        char *list = NULL;
        if (l == 2) {
            list = host_functions();
        } else if (px_query_lib_functions(fn_levels[l]) != NULL) {
            list = strdup(px_query_lib_functions(fn_levels[l]));
        }
        if (list != NULL) {
            pmix_value_t v = {.type = PMIX_STRING, .data.string = list};
            rc = px_qans_take(a, fn_levels[l], &v);
        }
    }
    for (size_t k = 1; q->keys[k] != NULL && rc == PMIX_SUCCESS; k++) {
        size_t n = 0;
        for (int l = 0; l < 4; l++) {
            n += want_at[l] ? 1 : 0;
        }
        if (n == 0) {
            break;
        }
        pmix_info_t *levels = PMIx_Info_create(n);
        pmix_data_array_t *da = levels ? calloc(1, sizeof(*da)) : NULL;
        if (da == NULL) {
            PMIx_Info_free(levels, n);
            return PMIX_ERR_NOMEM;
        }
        size_t m = 0;
        for (int l = 0; l < 4; l++) {
            if (want_at[l]) {
                PMIX_LOAD_KEY(levels[m].key, at_levels[l]);
                level_value(at_levels[l], q->keys[k], &levels[m].value);
                m++;
            }
        }
        da->type = PMIX_INFO;
        da->size = n;
        da->array = levels;
        pmix_value_t v = {.type = PMIX_DATA_ARRAY, .data.darray = da};
        rc = px_qans_take(a, q->keys[k], &v);
    }
    return rc;
}

static const char *const *avail_dirs(void)
{
    static const char *dirs[5];
    dirs[0] = px_srv->tmpdir;
    dirs[1] = px_srv->systmpdir;
    dirs[2] = px_tmpdir_default();
    dirs[3] = "/tmp";
    dirs[4] = NULL;
    return dirs;
}

/* Answer key (a library key) of query q into a; PMIX_ERR_NOT_FOUND leaves it unanswered. */
static pmix_status_t ans_library(const pmix_query_t *q, const char *key, px_qans_t *a)
{
    if (strcmp(key, PMIX_QUERY_NAMESPACES) == 0) {
        return ans_namespaces(a);
    }
    if (strcmp(key, PMIX_QUERY_NUM_PSETS) == 0) {
        size_t n = npsets();
        pmix_value_t v = {.type = PMIX_SIZE, .data.size = n};
        return px_qans_add(a, key, &v);
    }
    if (strcmp(key, PMIX_QUERY_PSET_NAMES) == 0) {
        return ans_pset_names(a);
    }
    if (strcmp(key, PMIX_QUERY_PSET_MEMBERSHIP) == 0) {
        return ans_pset_members(q, a);
    }
    if (strcmp(key, PMIX_QUERY_NUM_GROUPS) == 0 || strcmp(key, PMIX_QUERY_GROUP_NAMES) == 0 ||
        strcmp(key, PMIX_QUERY_GROUP_MEMBERSHIP) == 0) {
        return px_srv_group_query(q, key, a);
    }
    if (strcmp(key, PMIX_SERVER_URI) == 0) {
        pmix_value_t v = {.type = PMIX_STRING, .data.string = px_srv->uri};
        return px_qans_add(a, key, &v);
    }
    if (strcmp(key, PMIX_QUERY_AVAIL_SERVERS) == 0) {
        pmix_value_t v = {.type = PMIX_UNDEF};
        pmix_status_t rc = px_query_avail_servers(avail_dirs(), &v);
        return rc == PMIX_SUCCESS ? px_qans_take(a, key, &v) : rc;
    }
    return PMIX_ERR_NOT_FOUND;
}

/* The library's part of every query; the remaining keys become the host's queries. */
static pmix_status_t split(qreq_t *r)
{
    r->ans = calloc(r->nq + 1, sizeof(*r->ans));
    r->hq = PMIx_Query_create(r->nq);
    r->hmap = calloc(r->nq + 1, sizeof(*r->hmap));
    if (r->ans == NULL || r->hq == NULL || r->hmap == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < r->nq; i++) {
        const pmix_query_t *q = &r->q[i];
        if (px_query_is_attr_support(q)) {
            pmix_status_t rc = ans_attr_support(q, &r->ans[i]);
            if (rc != PMIX_SUCCESS) {
                return rc;
            }
            continue;
        }
        char **rest = NULL;
        for (size_t k = 0; q->keys[k] != NULL; k++) {
            const char *key = q->keys[k];
            /* the server URI is ours only when no qualifier names another target */
            bool lib = px_query_key_library(key) &&
                       !(strcmp(key, PMIX_SERVER_URI) == 0 && px_query_has_target(q));
            pmix_status_t rc = lib ? ans_library(q, key, &r->ans[i]) : PMIX_ERR_NOT_FOUND;
            if (rc == PMIX_ERR_NOMEM) {
                PMIx_Argv_free(rest);
                return rc;
            }
            if (!lib) {
                PMIx_Argv_append_nosize(&rest, key);
            }
        }
        if (rest != NULL) {
            pmix_query_t *h = &r->hq[r->nhq];
            h->keys = rest;
            h->nqual = q->nqual + 2;
            h->qualifiers = PMIx_Info_create(h->nqual);
            if (h->qualifiers == NULL) {
                h->nqual = 0;
                return PMIX_ERR_NOMEM;
            }
            for (size_t j = 0; j < q->nqual; j++) {
                PMIx_Info_xfer(&h->qualifiers[j], &q->qualifiers[j]);
            }
            PMIx_Info_load(&h->qualifiers[q->nqual], PMIX_USERID, &r->uid, PMIX_UINT32);
            PMIx_Info_load(&h->qualifiers[q->nqual + 1], PMIX_GRPID, &r->gid, PMIX_UINT32);
            r->hmap[r->nhq++] = i;
        }
    }
    return PMIX_SUCCESS;
}

/* ---- the host's answer ---- */

/* Distribute the host's results over the original queries. The Standard's form (one
 * PMIX_QUERY_RESULTS per host query, in order) maps by position; a flat list of
 * key/values (older hosts) maps each value to the first host query asking that key and
 * not answered yet. Values under keys nobody asked are dropped. */
static void host_merge(qreq_t *r)
{
    if (r->hstatus != PMIX_SUCCESS && r->hstatus != PMIX_QUERY_PARTIAL_SUCCESS &&
        r->hstatus != PMIX_ERR_PARTIAL_SUCCESS) {
        return;
    }
    bool v4 = r->nhres == r->nhq && r->nhres > 0;
    for (size_t i = 0; v4 && i < r->nhres; i++) {
        v4 = PMIX_CHECK_KEY(&r->hres[i], PMIX_QUERY_RESULTS) &&
             r->hres[i].value.type == PMIX_DATA_ARRAY && r->hres[i].value.data.darray != NULL &&
             r->hres[i].value.data.darray->type == PMIX_INFO;
    }
    if (v4) {
        for (size_t i = 0; i < r->nhres; i++) {
            const pmix_data_array_t *da = r->hres[i].value.data.darray;
            const pmix_info_t *kv = da->array;
            for (size_t j = 0; j < da->size; j++) {
                if (!PMIX_CHECK_KEY(&kv[j], PMIX_QUERY_QUALIFIERS)) {
                    px_qans_add_info(&r->ans[r->hmap[i]], &kv[j]);
                }
            }
        }
        return;
    }
    for (size_t i = 0; i < r->nhres; i++) {
        bool placed = false;
        for (size_t h = 0; !placed && h < r->nhq; h++) {
            px_qans_t *a = &r->ans[r->hmap[h]];
            for (size_t k = 0; !placed && r->hq[h].keys[k] != NULL; k++) {
                if (!PMIX_CHECK_KEY(&r->hres[i], r->hq[h].keys[k])) {
                    continue;
                }
                bool have = false;
                for (size_t j = 0; j < a->n; j++) {
                    have = have || PMIX_CHECK_KEY(&a->kv[j], r->hq[h].keys[k]);
                }
                if (!have) {
                    px_qans_add_info(a, &r->hres[i]);
                    placed = true;
                }
            }
        }
        if (!placed) {
            px_debug(1, "server", "query: the host answered key %s nobody asked", r->hres[i].key);
        }
    }
}

static void finish(qreq_t *r)
{
    host_merge(r);
    r->done(PMIX_SUCCESS, r->ans, r->cbdata);
    qreq_free(r);
}

static void host_done_on_loop(void *arg)
{
    finish(arg);
}

/* The host's callback, any thread. */
static void host_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t relfn, void *relcbdata)
{
    qreq_t *r = cbdata;
    r->hstatus = status;
    if (ninfo > 0 && info != NULL) {
        r->hres = PMIx_Info_create(ninfo);
        for (size_t i = 0; r->hres != NULL && i < ninfo; i++) {
            PMIx_Info_xfer(&r->hres[i], &info[i]);
        }
        r->nhres = r->hres != NULL ? ninfo : 0;
    }
    if (relfn != NULL) {
        relfn(relcbdata);
    }
    if (px_srv_shift(host_done_on_loop, r) != 0) {
        px_debug(1, "server", "cannot deliver the host's query answer");
    }
}

/* Loop, no lock held (px_srv_upcall). */
static void query_upcall(void *arg)
{
    qreq_t *r = arg;
    pmix_status_t rc = px_srv->module.query(&r->requester, r->hq, r->nhq, host_cb, r);
    if (rc != PMIX_SUCCESS) {
        /* answered at once (nothing to add) or refused: the library's answers stand */
        pthread_mutex_lock(&px_srv->lock);
        r->hstatus = rc;
        finish(r);
        pthread_mutex_unlock(&px_srv->lock);
    }
}

/* Start answering (loop, lock held). q is taken. done runs exactly once: inside this call
 * when the host is not involved, else later on the loop. */
static void query_start(const pmix_proc_t *requester, uint32_t uid, uint32_t gid, pmix_query_t *q,
                        size_t nq, qdone_fn done, void *cbdata)
{
    qreq_t *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        PMIx_Query_free(q, nq);
        done(PMIX_ERR_NOMEM, NULL, cbdata);
        return;
    }
    r->requester = *requester;
    r->uid = uid;
    r->gid = gid;
    r->q = q;
    r->nq = nq;
    r->done = done;
    r->cbdata = cbdata;
    pmix_status_t rc = split(r);
    if (rc != PMIX_SUCCESS) {
        done(rc, NULL, cbdata);
        qreq_free(r);
        return;
    }
    if (r->nhq == 0 || px_srv->module.query == NULL) {
        finish(r);
        return;
    }
    if (px_srv_upcall(query_upcall, r) != 0) {
        r->hstatus = PMIX_ERR_OUT_OF_RESOURCE;
        finish(r);
    }
}

/* ---- a client's request ---- */

typedef struct {
    px_srv_client_t *client; /* counted */
    uint32_t seq;
    size_t nq;
} creq_t;

static void client_done(pmix_status_t rc, px_qans_t *ans, void *cbdata)
{
    creq_t *c = cbdata;
    pmix_data_buffer_t body;
    px_bfrops_buf_init(&body);
    if (rc == PMIX_SUCCESS) {
        rc = px_qans_pack(&body, ans, c->nq);
    }
    px_srv_reply(c->client, c->seq, PX_TAG_QUERY, rc, rc == PMIX_SUCCESS ? &body : NULL);
    px_bfrops_buf_free(&body);
    px_srv_client_release(c->client);
    free(c);
}

void px_srv_query(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    size_t nq = 0;
    pmix_query_t *q = NULL;
    pmix_status_t rc = px_srv_count(payload, px_bfrops_wire_elem(PMIX_QUERY), 0, &nq);
    if (rc == PMIX_SUCCESS && nq == 0) {
        rc = PMIX_ERR_BAD_PARAM;
    }
    if (rc == PMIX_SUCCESS) {
        q = PMIx_Query_create(nq);
        rc = q != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    if (rc == PMIX_SUCCESS) {
        int32_t n = (int32_t)nq;
        rc = px_bfrops_unpack(payload, q, &n, PMIX_QUERY);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_query_check(q, nq);
    }
    creq_t *cr = rc == PMIX_SUCCESS ? calloc(1, sizeof(*cr)) : NULL;
    if (rc == PMIX_SUCCESS && cr == NULL) {
        rc = PMIX_ERR_NOMEM;
    }
    if (rc != PMIX_SUCCESS) {
        PMIx_Query_free(q, nq);
        px_srv_reply(c, seq, PX_TAG_QUERY, rc, NULL);
        return;
    }
    cr->client = c;
    px_srv_client_retain(c);
    cr->seq = seq;
    cr->nq = nq;
    query_start(&c->proc, (uint32_t)c->uid, (uint32_t)c->gid, q, nq, client_done, cr);
}

/* ---- the server process's own PMIx_Query_info_nb ---- */

typedef struct {
    pmix_query_t *q; /* owned: the caller's queries, copied */
    size_t nq;
    pmix_info_cbfunc_t cb;
    void *cbdata;
    pmix_info_t *results; /* owned until the callee releases them */
    size_t nresults;
} lreq_t;

static void lreq_release(void *arg)
{
    lreq_t *l = arg;
    PMIx_Query_free(l->q, l->nq);
    px_bfrops_info_array_free(l->results, l->nresults);
    free(l);
}

static void local_done(pmix_status_t rc, px_qans_t *ans, void *cbdata)
{
    lreq_t *l = cbdata;
    if (rc == PMIX_SUCCESS) {
        rc = px_query_assemble(l->q, l->nq, ans, &l->results, &l->nresults);
    }
    l->cb(rc, l->results, l->nresults, l->cbdata, lreq_release, l);
}

static void local_start(void *arg)
{
    lreq_t *l = arg;
    pmix_query_t *mine = px_query_dup(l->q, l->nq);
    if (mine == NULL) {
        local_done(PMIX_ERR_NOMEM, NULL, l);
        return;
    }
    query_start(&px_srv->myproc, (uint32_t)getuid(), (uint32_t)getgid(), mine, l->nq, local_done,
                l);
}

pmix_status_t px_srv_query_local(const pmix_query_t *queries, size_t nqueries,
                                 pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    lreq_t *l = calloc(1, sizeof(*l));
    if (l == NULL || (l->q = px_query_dup(queries, nqueries)) == NULL) {
        free(l);
        return PMIX_ERR_NOMEM;
    }
    l->nq = nqueries;
    l->cb = cbfunc;
    l->cbdata = cbdata;
    if (px_srv_shift(local_start, l) != 0) {
        PMIx_Query_free(l->q, l->nq);
        free(l);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

bool px_srv_on_loop(void)
{
    return px_srv != NULL && px_progress_on_loop(px_srv->prog);
}
