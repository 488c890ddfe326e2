/*
 * pxh_query.c - pxhost's `query` upcall. The upcall (library progress thread) copies the
 * queries into a work item; the node loop answers them and calls back: flat (one info per
 * key found, the form PRRTE and our DVM give), or, when a query carries the qualifier
 * pxhost.qry.wrap, in the v5.0 text's form (one PMIX_QUERY_RESULTS per query, its
 * PMIX_QUERY_QUALIFIERS first), which the server library also accepts. Keys it answers:
 *   pxhost.qry.test   "pxhost-answer"
 *   pxhost.qry.count  uint32: query upcalls this node has received (cache tests)
 *   pxhost.qry.quals  string: the qualifiers received, "key=value;..." (string, bool and
 *                     uint32 values; others as key=?)
 *   PMIX_QUERY_PROC_TABLE (qualifier PMIX_NSPACE = the job): pmix_proc_info_t per rank
 * Every upcall is printed ("pxhost: node N: query upcall K from rank R: keys ...") and
 * must carry PMIX_USERID and PMIX_GRPID in every query's qualifiers (else an ERROR).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pxh_node.h"

#define PXH_QRY_TEST  "pxhost.qry.test"
#define PXH_QRY_COUNT "pxhost.qry.count"
#define PXH_QRY_QUALS "pxhost.qry.quals"
#define PXH_QRY_WRAP  "pxhost.qry.wrap"

static uint32_t nqueries_seen;

pmix_status_t pxh_query_upcall(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                               pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    pxh_reenter("query");
    pxh_work_t *w = calloc(1, sizeof(*w));

    if (!w)
        return PMIX_ERR_NOMEM;
    w->kind = PXH_W_QUERY;
    if (proct)
        w->proc = *proct;
    w->queries = PMIx_Query_create(nqueries);
    if (!w->queries) {
        free(w);
        return PMIX_ERR_NOMEM;
    }
    w->nqueries = nqueries;
    for (size_t i = 0; i < nqueries; i++) {
        w->queries[i].keys = PMIx_Argv_copy(queries[i].keys);
        w->queries[i].qualifiers = pxh_info_dup(queries[i].qualifiers, queries[i].nqual);
        w->queries[i].nqual = queries[i].nqual;
    }
    w->cb.info = cbfunc;
    w->cbdata = cbdata;
    pxh_node_post(w);
    return PMIX_SUCCESS;
}

static void render_quals(const pmix_query_t *q, char *buf, size_t sz)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < q->nqual && len < sz; i++) {
        const pmix_value_t *v = &q->qualifiers[i].value;
        const char *sep = i ? ";" : "";
        int n;

        if (v->type == PMIX_STRING)
            n = snprintf(buf + len, sz - len, "%s%s=%s", sep, q->qualifiers[i].key,
                         v->data.string ? v->data.string : "");
        else if (v->type == PMIX_BOOL)
            n = snprintf(buf + len, sz - len, "%s%s=%s", sep, q->qualifiers[i].key,
                         v->data.flag ? "true" : "false");
        else if (v->type == PMIX_UINT32)
            n = snprintf(buf + len, sz - len, "%s%s=%u", sep, q->qualifiers[i].key, v->data.uint32);
        else
            n = snprintf(buf + len, sz - len, "%s%s=?", sep, q->qualifiers[i].key);
        if (n < 0)
            break;
        len += (size_t)n;
    }
}

static const char *qual_str(const pmix_query_t *q, const char *key)
{
    for (size_t i = 0; i < q->nqual; i++)
        if (PMIX_CHECK_KEY(&q->qualifiers[i], key) && q->qualifiers[i].value.type == PMIX_STRING)
            return q->qualifiers[i].value.data.string;
    return NULL;
}

static bool has_qual(const pmix_query_t *q, const char *key)
{
    for (size_t i = 0; i < q->nqual; i++)
        if (PMIX_CHECK_KEY(&q->qualifiers[i], key))
            return true;
    return false;
}

static bool proc_table(const pmix_query_t *q, pmix_info_t *out)
{
    const char *ns = qual_str(q, PMIX_NSPACE);
    pmix_data_array_t *da;
    pmix_proc_info_t *pi;

    if (!ns || strcmp(ns, pxh_opts.nspace) != 0)
        return false;
    da = PMIx_Data_array_create((size_t)pxh_opts.nranks, PMIX_PROC_INFO);
    if (!da)
        return false;
    pi = da->array;
    for (int r = 0; r < pxh_opts.nranks; r++) {
        char host[32];
        int node = pxh_node_of(r);

        PMIx_Load_procid(&pi[r].proc, pxh_opts.nspace, (pmix_rank_t)r);
        snprintf(host, sizeof(host), "pxnode%d", node);
        pi[r].hostname = strdup(host);
        pi[r].executable_name = strdup(pxh_opts.client_argv[0]);
        pi[r].pid = 0;
        if (node == pxh_node.id)
            pi[r].pid = pxh_node.clients[r - pxh_node_start(node)].pid;
        pi[r].state = PMIX_PROC_STATE_RUNNING;
    }
    PMIX_LOAD_KEY(out->key, PMIX_QUERY_PROC_TABLE);
    out->value.type = PMIX_DATA_ARRAY;
    out->value.data.darray = da;
    return true;
}

static void release_results(void *cbdata)
{
    pxh_work_t *w = cbdata;

    pxh_work_free(w);
}

/* Flat copies of the answers of every query, in order (the form hosts such as PRRTE and
 * our DVM give). Takes the arrays. */
static pmix_info_t *flatten(pmix_info_t **arrs, size_t *counts, size_t nq, size_t *n)
{
    size_t total = 0, k = 0;
    pmix_info_t *flat;

    for (size_t i = 0; i < nq; i++)
        total += counts[i];
    flat = PMIx_Info_create(total ? total : 1);
    for (size_t i = 0; i < nq; i++) {
        for (size_t j = 0; j < counts[i]; j++)
            PMIx_Info_xfer(&flat[k++], &arrs[i][j]);
        PMIx_Info_free(arrs[i], counts[i] + 1);
    }
    *n = total ? total : 1;
    return flat;
}

/* Loop thread. Takes w (freed when the library releases the results). */
void pxh_query_work(pxh_work_t *w)
{
    size_t found = 0, asked = 0, nq = w->nqueries ? w->nqueries : 1;
    pmix_info_t **arrs = calloc(nq, sizeof(*arrs));
    size_t *counts = calloc(nq, sizeof(*counts));
    bool wrap = false;

    nqueries_seen++;
    for (size_t i = 0; i < w->nqueries; i++) {
        pmix_query_t *q = &w->queries[i];
        size_t nkeys = (size_t)PMIx_Argv_count(q->keys), m = 0;
        pmix_info_t *arr = PMIx_Info_create(nkeys + 1);
        char *joined = PMIx_Argv_join(q->keys, ',');
        char quals[1024];

        render_quals(q, quals, sizeof(quals));
        printf("pxhost: node %d: query upcall %u from rank %u: keys %s quals %s\n", pxh_node.id,
               nqueries_seen, w->proc.rank, joined ? joined : "", quals);
        fflush(stdout);
        free(joined);
        pxh_check_ids("query", w->proc.rank, q->qualifiers, q->nqual);
        wrap = wrap || has_qual(q, PXH_QRY_WRAP);
        for (size_t k = 0; k < nkeys; k++) {
            const char *key = q->keys[k];

            asked++;
            if (strcmp(key, PXH_QRY_TEST) == 0) {
                PMIx_Info_load(&arr[m++], key, "pxhost-answer", PMIX_STRING);
            } else if (strcmp(key, PXH_QRY_COUNT) == 0) {
                PMIx_Info_load(&arr[m++], key, &nqueries_seen, PMIX_UINT32);
            } else if (strcmp(key, PXH_QRY_QUALS) == 0) {
                PMIx_Info_load(&arr[m++], key, quals, PMIX_STRING);
            } else if (strcmp(key, PMIX_QUERY_PROC_TABLE) == 0 && proc_table(q, &arr[m])) {
                m++;
            } else {
                continue;
            }
            found++;
        }
        /* arr has nkeys + 1 slots, m used; the rest are empty */
        arrs[i] = arr;
        counts[i] = m;
    }
    if (wrap) {
        /* the v5.0 text's form: one PMIX_QUERY_RESULTS per query, its qualifiers first */
        pmix_info_t *res = PMIx_Info_create(nq);

        for (size_t i = 0; i < w->nqueries; i++) {
            pmix_query_t *q = &w->queries[i];
            pmix_data_array_t *da = PMIx_Data_array_create(counts[i] + 1, PMIX_INFO);
            pmix_data_array_t *qa = PMIx_Data_array_create(q->nqual ? q->nqual : 1, PMIX_INFO);
            pmix_info_t *out = da->array, *qi = qa->array;

            for (size_t j = 0; j < q->nqual; j++)
                PMIx_Info_xfer(&qi[j], &q->qualifiers[j]);
            qa->size = q->nqual;
            PMIX_LOAD_KEY(out[0].key, PMIX_QUERY_QUALIFIERS);
            out[0].value.type = PMIX_DATA_ARRAY;
            out[0].value.data.darray = qa;
            for (size_t j = 0; j < counts[i]; j++)
                PMIx_Info_xfer(&out[j + 1], &arrs[i][j]);
            PMIx_Info_free(arrs[i], counts[i] + 1);
            PMIX_LOAD_KEY(res[i].key, PMIX_QUERY_RESULTS);
            res[i].value.type = PMIX_DATA_ARRAY;
            res[i].value.data.darray = da;
        }
        w->info = res;
        w->ninfo = nq;
    } else {
        w->info = flatten(arrs, counts, w->nqueries, &w->ninfo);
    }
    free(arrs);
    free(counts);
    /* the results live in the work item until the library releases them */
    PMIx_Query_free(w->queries, w->nqueries);
    w->queries = NULL;
    w->nqueries = 0;
    if (found == 0)
        w->cb.info(PMIX_ERR_NOT_FOUND, NULL, 0, w->cbdata, release_results, w);
    else
        w->cb.info(found == asked ? PMIX_SUCCESS : PMIX_QUERY_PARTIAL_SUCCESS, w->info, w->ninfo,
                   w->cbdata, release_results, w);
}
