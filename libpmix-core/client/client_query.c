/* client: PMIx_Query_info(_nb). Keys answered in this process (PMIX_QUERY_AVAIL_SERVERS)
 * never leave it; host-answered keys come from the query cache unless the query carries
 * PMIX_QUERY_REFRESH_CACHE; the rest travels as one QUERY request. In a server process
 * the query goes to server/server_query.c instead. User threads call the API; replies and
 * callbacks run on the client's loop, never inside the call. The cache has its own lock.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "client/px_client.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "common/px_query.h"
#include "server/px_server.h"

/* ---- the query cache ----
 * Why: the Standard asks implementations to keep what a query returned and to answer
 * later queries from it, bypassed by PMIX_QUERY_REFRESH_CACHE. What: the answers the
 * *host* gave (keys the library does not answer itself), per (key, qualifiers without
 * REFRESH_CACHE; never the volatile keys of cache_volatile). A query whose every key is cached is
 * answered here without asking the server; REFRESH_CACHE sends it and replaces the cached answers.
 * Library keys (psets, namespaces, attribute support, servers) are cheap and change, so they are
 * always computed at the time of asking. */

typedef struct qcache {
    pmix_info_t kv;     /* key and answer */
    pmix_info_t *quals; /* owned, REFRESH_CACHE left out */
    size_t nquals;
    struct qcache *next;
} qcache_t;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static qcache_t *cache;

static bool is_directive(const pmix_info_t *i)
{
    return PMIX_CHECK_KEY(i, PMIX_QUERY_REFRESH_CACHE);
}

static bool same_quals(const qcache_t *c, const pmix_query_t *q)
{
    size_t j = 0;
    for (size_t i = 0; i < q->nqual; i++) {
        if (is_directive(&q->qualifiers[i])) {
            continue;
        }
        if (j >= c->nquals || !PMIX_CHECK_KEY(&c->quals[j], q->qualifiers[i].key) ||
            PMIx_Value_compare((pmix_value_t *)&c->quals[j].value,
                               (pmix_value_t *)&q->qualifiers[i].value) != PMIX_EQUAL) {
            return false;
        }
        j++;
    }
    return j == c->nquals;
}

/* cache_lock held */
static qcache_t *cache_find(const char *key, const pmix_query_t *q)
{
    for (qcache_t *c = cache; c != NULL; c = c->next) {
        if (PMIX_CHECK_KEY(&c->kv, key) && same_quals(c, q)) {
            return c;
        }
    }
    return NULL;
}

/* Keys that describe the state of running jobs and resources: an answer is stale as
 * soon as it is given, so it is never cached (a tool polling PMIX_QUERY_PROC_TABLE must
 * see the job table of now). */
static bool cache_volatile(const char *key)
{
    static const char *const keys[] = {
        PMIX_QUERY_PROC_TABLE,     PMIX_QUERY_LOCAL_PROC_TABLE, PMIX_QUERY_JOB_STATUS,
        PMIX_QUERY_NAMESPACE_INFO, PMIX_QUERY_QUEUE_STATUS,     PMIX_QUERY_MEMORY_USAGE,
        PMIX_QUERY_ALLOC_STATUS,
    };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (strcmp(key, keys[i]) == 0) {
            return true;
        }
    }
    return false;
}

static void cache_store(const pmix_query_t *q, const pmix_info_t *answer)
{
    if (cache_volatile(answer->key)) {
        return;
    }
    pthread_mutex_lock(&cache_lock);
    qcache_t *c = cache_find(answer->key, q);
    if (c != NULL) {
        PMIx_Info_destruct(&c->kv);
        PMIx_Info_xfer(&c->kv, answer);
    } else if ((c = calloc(1, sizeof(*c))) != NULL) {
        PMIx_Info_xfer(&c->kv, answer);
        c->quals = q->nqual > 0 ? PMIx_Info_create(q->nqual) : NULL;
        for (size_t i = 0; c->quals != NULL && i < q->nqual; i++) {
            if (!is_directive(&q->qualifiers[i])) {
                PMIx_Info_xfer(&c->quals[c->nquals++], &q->qualifiers[i]);
            }
        }
        c->next = cache;
        cache = c;
    }
    pthread_mutex_unlock(&cache_lock);
}

/* Answer every key of q in keys from the cache into a, or nothing (false). */
static bool cache_answer(const pmix_query_t *q, char **keys, px_qans_t *a)
{
    bool all = true;
    pthread_mutex_lock(&cache_lock);
    for (size_t k = 0; all && keys[k] != NULL; k++) {
        all = !px_query_key_library(keys[k]) && cache_find(keys[k], q) != NULL;
    }
    for (size_t k = 0; all && keys[k] != NULL; k++) {
        px_qans_add_info(a, &cache_find(keys[k], q)->kv);
    }
    pthread_mutex_unlock(&cache_lock);
    return all;
}

void px_cl_query_fini(void)
{
    pthread_mutex_lock(&cache_lock);
    while (cache != NULL) {
        qcache_t *c = cache;
        cache = c->next;
        PMIx_Info_destruct(&c->kv);
        px_bfrops_info_array_free(c->quals, c->nquals);
        free(c);
    }
    pthread_mutex_unlock(&cache_lock);
}

/* ---- one request ---- */

typedef struct {
    pmix_query_t *q; /* owned copy of the caller's queries */
    size_t nq;
    px_qans_t *ans;   /* owned: nq answer lists */
    pmix_query_t *sq; /* owned: what is sent to the server */
    size_t nsq;
    size_t *smap; /* sq[i] belongs to q[smap[i]] */
    pmix_info_cbfunc_t cb;
    void *cbdata;
    pmix_status_t status; /* the server's, when it failed */
    pmix_info_t *results; /* owned until the callee releases them */
    size_t nresults;
} cq_t;

static void cq_free(void *arg)
{
    cq_t *r = arg;
    PMIx_Query_free(r->q, r->nq);
    px_qans_free(r->ans, r->nq);
    PMIx_Query_free(r->sq, r->nsq);
    free(r->smap);
    px_bfrops_info_array_free(r->results, r->nresults);
    free(r);
}

static const char *const *local_dirs(void)
{
    static const char *dirs[5];
    dirs[0] = getenv(PX_ENV_TMPDIR);
    dirs[1] = getenv(PX_ENV_SYSTMPDIR);
    dirs[2] = px_tmpdir_default();
    dirs[3] = "/tmp";
    dirs[4] = NULL;
    /* NULL entries end the list early: compact it */
    size_t m = 0;
    for (size_t i = 0; i < 4; i++) {
        if (dirs[i] != NULL && dirs[i][0] != '\0') {
            dirs[m++] = dirs[i];
        }
    }
    dirs[m] = NULL;
    return dirs;
}

static bool all_local(const pmix_query_t *q, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; q[i].keys[k] != NULL; k++) {
            if (!px_query_key_local(q[i].keys[k])) {
                return false;
            }
        }
    }
    return true;
}

/* Answer the local keys, take cached answers, and list what the server must answer. */
static pmix_status_t cq_prepare(cq_t *r, bool connected)
{
    r->ans = calloc(r->nq + 1, sizeof(*r->ans));
    r->sq = PMIx_Query_create(r->nq);
    r->smap = calloc(r->nq + 1, sizeof(*r->smap));
    if (r->ans == NULL || r->sq == NULL || r->smap == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < r->nq; i++) {
        const pmix_query_t *q = &r->q[i];
        char **rest = NULL;
        if (px_query_is_attr_support(q)) {
            rest = PMIx_Argv_copy(q->keys);
        } else {
            for (size_t k = 0; q->keys[k] != NULL; k++) {
                if (!px_query_key_local(q->keys[k])) {
                    PMIx_Argv_append_nosize(&rest, q->keys[k]);
                    continue;
                }
                pmix_value_t v = {.type = PMIX_UNDEF};
                pmix_status_t rc = px_query_avail_servers(local_dirs(), &v);
                if (rc == PMIX_SUCCESS) {
                    rc = px_qans_take(&r->ans[i], q->keys[k], &v);
                }
                if (rc == PMIX_ERR_NOMEM) {
                    PMIx_Argv_free(rest);
                    return rc;
                }
            }
        }
        if (rest == NULL || !connected ||
            (!px_query_refresh(q) && cache_answer(q, rest, &r->ans[i]))) {
            PMIx_Argv_free(rest);
            continue;
        }
        pmix_query_t *s = &r->sq[r->nsq];
        s->keys = rest;
        if (q->nqual > 0) {
            s->qualifiers = PMIx_Info_create(q->nqual);
            if (s->qualifiers == NULL) {
                return PMIX_ERR_NOMEM;
            }
            s->nqual = q->nqual;
            for (size_t j = 0; j < q->nqual; j++) {
                PMIx_Info_xfer(&s->qualifiers[j], &q->qualifiers[j]);
            }
        }
        r->smap[r->nsq++] = i;
    }
    return PMIX_SUCCESS;
}

static void cq_finish(cq_t *r)
{
    pmix_status_t rc = px_query_assemble(r->q, r->nq, r->ans, &r->results, &r->nresults);
    if (rc == PMIX_ERR_NOT_FOUND && r->status != PMIX_SUCCESS) {
        rc = r->status; /* nothing at all: say why the server could not help */
    }
    r->cb(rc, r->results, r->nresults, r->cbdata, cq_free, r);
}

static void cq_finish_on_loop(void *arg)
{
    cq_finish(arg);
}

static void cq_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
    cq_t *r = cbdata;
    px_qans_t *got = NULL;
    size_t ngot = 0;
    if (st == PMIX_SUCCESS && reply != NULL) {
        st = px_qans_unpack(reply, &got, &ngot);
        if (st == PMIX_SUCCESS && ngot != r->nsq) {
            st = PMIX_ERR_UNPACK_FAILURE;
        }
    }
    for (size_t j = 0; st == PMIX_SUCCESS && j < ngot; j++) {
        const pmix_query_t *q = &r->q[r->smap[j]];
        for (size_t k = 0; k < got[j].n; k++) {
            px_qans_add_info(&r->ans[r->smap[j]], &got[j].kv[k]);
            if (!px_query_is_attr_support(q) && !px_query_key_library(got[j].kv[k].key) &&
                !px_query_key_local(got[j].kv[k].key)) {
                cache_store(q, &got[j].kv[k]);
            }
        }
    }
    px_qans_free(got, ngot);
    r->status = st;
    cq_finish(r);
}

/* Start a query in a client (connected) or, when not connected, answer it here (only
 * keys of px_query_key_local; the caller checked). done later on the loop when
 * connected, else inside this call (used by the blocking form only). */
static pmix_status_t cq_start(const pmix_query_t *queries, size_t n, bool connected,
                              pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    cq_t *r = calloc(1, sizeof(*r));
    if (r == NULL || (r->q = px_query_dup(queries, n)) == NULL) {
        free(r);
        return PMIX_ERR_NOMEM;
    }
    r->nq = n;
    r->cb = cbfunc;
    r->cbdata = cbdata;
    pmix_status_t rc = cq_prepare(r, connected);
    if (rc != PMIX_SUCCESS) {
        cq_free(r);
        return rc;
    }
    if (!connected) {
        cq_finish(r);
        return PMIX_SUCCESS;
    }
    if (r->nsq == 0) {
        rc = px_cl_later(cq_finish_on_loop, r);
    } else {
        pmix_data_buffer_t msg;
        px_bfrops_buf_init(&msg);
        rc = px_bfrops_pack(&msg, &r->nsq, 1, PMIX_SIZE);
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack(&msg, r->sq, (int32_t)r->nsq, PMIX_QUERY);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_cl_request(PX_TAG_QUERY, &msg, 0, cq_reply, r);
        }
        px_bfrops_buf_free(&msg);
    }
    if (rc != PMIX_SUCCESS) {
        cq_free(r);
    }
    return rc;
}

/* ---- API ---- */

PMIX_EXPORT pmix_status_t PMIx_Query_info_nb(pmix_query_t queries[], size_t nqueries,
                                             pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    /* a tool running its own server (PMIX_LAUNCHER) asks its primary server */
    bool server = px_srv != NULL && !px_cl_initialized();
    if (!server && !px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (cbfunc == NULL || px_query_check(queries, nqueries) != PMIX_SUCCESS) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (server) {
        return px_srv_query_local(queries, nqueries, cbfunc, cbdata);
    }
    return cq_start(queries, nqueries, true, cbfunc, cbdata);
}

typedef struct {
    px_latch_t latch;
    pmix_status_t status;
    pmix_info_t *results;
    size_t nresults;
} qsync_t;

static void sync_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t relfn, void *relcbdata)
{
    qsync_t *s = cbdata;
    s->status = status;
    if (ninfo > 0 && info != NULL) {
        s->results = PMIx_Info_create(ninfo);
        for (size_t i = 0; s->results != NULL && i < ninfo; i++) {
            PMIx_Info_xfer(&s->results[i], &info[i]);
        }
        s->nresults = s->results != NULL ? ninfo : 0;
        if (s->results == NULL) {
            s->status = PMIX_ERR_NOMEM;
        }
    }
    if (relfn != NULL) {
        relfn(relcbdata);
    }
    px_latch_release(&s->latch);
}

PMIX_EXPORT pmix_status_t PMIx_Query_info(pmix_query_t queries[], size_t nqueries,
                                          pmix_info_t **results, size_t *nresults)
{
    bool client = px_cl_initialized(), server = px_srv != NULL && !client;
    bool valid = px_query_check(queries, nqueries) == PMIX_SUCCESS;
    if (results != NULL) {
        *results = NULL;
    }
    if (nresults != NULL) {
        *nresults = 0;
    }
    /* Not initialized: only what needs no server (as a tool would scan for servers). */
    if (!server && !client && !(valid && all_local(queries, nqueries))) {
        return PMIX_ERR_INIT;
    }
    if (!valid || results == NULL || nresults == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if ((server && px_srv_on_loop()) || (!server && client && px_progress_on_loop(px_cl.prog))) {
        return PMIX_ERR_WOULD_BLOCK;
    }
    qsync_t s = {.status = PMIX_SUCCESS};
    if (px_latch_init(&s.latch, 1) != 0) {
        return PMIX_ERR_NOMEM;
    }
    pmix_status_t rc;
    if (server) {
        rc = px_srv_query_local(queries, nqueries, sync_cb, &s);
    } else {
        rc = cq_start(queries, nqueries, client, sync_cb, &s);
    }
    if (rc == PMIX_SUCCESS) {
        px_latch_wait(&s.latch, -1);
        rc = s.status;
        if (rc == PMIX_SUCCESS || rc == PMIX_QUERY_PARTIAL_SUCCESS) {
            *results = s.results;
            *nresults = s.nresults;
            s.results = NULL;
        }
        px_bfrops_info_array_free(s.results, s.nresults);
    }
    px_latch_fini(&s.latch);
    return rc;
}
