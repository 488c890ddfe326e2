/* store: namespace records — registration (with derivation from the node and process
 * maps), lookup across realms, and the server-to-client transfer of a registration.
 * Callers hold the owner's lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "regex/px_regex.h"
#include "store/px_store.h"
#include "types/px_types.h"

void px_store_init(px_store_t *st, const char *my_hostname)
{
    st->nspaces = NULL;
    st->my_hostname = my_hostname ? strdup(my_hostname) : NULL;
}

static void ns_free(px_nspace_t *ns)
{
    px_kvset_fini(&ns->job);
    for (size_t i = 0; i < ns->napps; i++) {
        px_kvset_fini(&ns->apps[i].info);
    }
    free(ns->apps);
    for (size_t i = 0; i < ns->nnodes; i++) {
        free(ns->nodes[i].hostname);
        free(ns->nodes[i].ranks);
        px_kvset_fini(&ns->nodes[i].info);
    }
    free(ns->nodes);
    for (size_t i = 0; i < ns->nranks; i++) {
        px_kvset_fini(&ns->ranks[i].info);
        px_kvset_fini(&ns->ranks[i].local);
        px_kvset_fini(&ns->ranks[i].remote);
    }
    free(ns->ranks);
    free(ns);
}

void px_store_fini(px_store_t *st)
{
    while (st->nspaces != NULL) {
        px_nspace_t *ns = st->nspaces;
        st->nspaces = ns->next;
        ns_free(ns);
    }
    free(st->my_hostname);
    st->my_hostname = NULL;
}

px_nspace_t *px_store_find(px_store_t *st, const char *nspace)
{
    for (px_nspace_t *ns = st->nspaces; ns != NULL; ns = ns->next) {
        if (strncmp(ns->name, nspace, PMIX_MAX_NSLEN) == 0) {
            return ns;
        }
    }
    return NULL;
}

px_nspace_t *px_store_add(px_store_t *st, const char *nspace)
{
    px_nspace_t *ns = px_store_find(st, nspace);
    if (ns != NULL) {
        return ns;
    }
    ns = calloc(1, sizeof(*ns));
    if (ns == NULL) {
        return NULL;
    }
    PMIX_LOAD_NSPACE(ns->name, nspace);
    ns->my_node = -1;
    ns->nlocal_expected = -1;
    ns->next = st->nspaces;
    st->nspaces = ns;
    return ns;
}

void px_store_remove(px_store_t *st, const char *nspace)
{
    for (px_nspace_t **pp = &st->nspaces; *pp != NULL; pp = &(*pp)->next) {
        if (strncmp((*pp)->name, nspace, PMIX_MAX_NSLEN) == 0) {
            px_nspace_t *ns = *pp;
            *pp = ns->next;
            ns_free(ns);
            return;
        }
    }
}

px_ns_rank_t *px_ns_rank(px_nspace_t *ns, pmix_rank_t rank)
{
    if (rank >= PMIX_RANK_VALID) {
        return NULL;
    }
    if (rank >= ns->nranks) {
        size_t n = ns->nranks ? ns->nranks : 4;
        while (n <= rank) {
            n *= 2;
        }
        px_ns_rank_t *r = realloc(ns->ranks, n * sizeof(*r));
        if (r == NULL) {
            return NULL;
        }
        memset(r + ns->nranks, 0, (n - ns->nranks) * sizeof(*r));
        for (size_t i = ns->nranks; i < n; i++) {
            r[i].node = -1;
        }
        ns->ranks = r;
        ns->nranks = n;
    }
    return &ns->ranks[rank];
}

bool px_ns_rank_is_local(const px_nspace_t *ns, pmix_rank_t rank)
{
    return rank < ns->nranks && ns->my_node >= 0 && ns->ranks[rank].node == ns->my_node;
}

px_ns_node_t *px_ns_node_by_name(px_nspace_t *ns, const char *hostname)
{
    for (size_t i = 0; hostname != NULL && i < ns->nnodes; i++) {
        if (ns->nodes[i].hostname != NULL && strcmp(ns->nodes[i].hostname, hostname) == 0) {
            return &ns->nodes[i];
        }
    }
    return NULL;
}

px_ns_node_t *px_ns_node_by_id(px_nspace_t *ns, uint32_t nodeid)
{
    for (size_t i = 0; i < ns->nnodes; i++) {
        if (ns->nodes[i].nodeid == nodeid) {
            return &ns->nodes[i];
        }
    }
    return NULL;
}

static px_ns_node_t *node_add(px_nspace_t *ns, const char *hostname, uint32_t nodeid)
{
    px_ns_node_t *nodes = realloc(ns->nodes, (ns->nnodes + 1) * sizeof(*nodes));
    if (nodes == NULL) {
        return NULL;
    }
    ns->nodes = nodes;
    px_ns_node_t *n = &nodes[ns->nnodes++];
    memset(n, 0, sizeof(*n));
    n->hostname = hostname ? strdup(hostname) : NULL;
    n->nodeid = nodeid;
    return n;
}

px_ns_app_t *px_ns_app(px_nspace_t *ns, uint32_t appnum, bool create)
{
    for (size_t i = 0; i < ns->napps; i++) {
        if (ns->apps[i].appnum == appnum) {
            return &ns->apps[i];
        }
    }
    if (!create) {
        return NULL;
    }
    px_ns_app_t *apps = realloc(ns->apps, (ns->napps + 1) * sizeof(*apps));
    if (apps == NULL) {
        return NULL;
    }
    ns->apps = apps;
    px_ns_app_t *a = &apps[ns->napps++];
    memset(a, 0, sizeof(*a));
    a->appnum = appnum;
    return a;
}

/* ---- registration ---- */

static const pmix_info_t *infos_find(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&info[i], key)) {
            return &info[i];
        }
    }
    return NULL;
}

static bool value_u32(const pmix_value_t *v, uint32_t *out)
{
    uint32_t u;
    if (v == NULL || PMIx_Value_get_number(v, &u, PMIX_UINT32) != PMIX_SUCCESS) {
        return false;
    }
    *out = u;
    return true;
}

/* The info array inside a PMIX_*_INFO_ARRAY value. */
static bool info_array(const pmix_value_t *v, const pmix_info_t **arr, size_t *n)
{
    if (v->type != PMIX_DATA_ARRAY || v->data.darray == NULL || v->data.darray->type != PMIX_INFO) {
        return false;
    }
    *arr = v->data.darray->array;
    *n = v->data.darray->size;
    return true;
}

static int node_for(px_nspace_t *ns, const char *hostname, bool have_id, uint32_t nodeid)
{
    px_ns_node_t *n = NULL;
    if (have_id) {
        n = px_ns_node_by_id(ns, nodeid);
    }
    if (n == NULL && hostname != NULL) {
        n = px_ns_node_by_name(ns, hostname);
    }
    if (n == NULL) {
        n = node_add(ns, hostname, have_id ? nodeid : (uint32_t)ns->nnodes);
        if (n == NULL) {
            return -1;
        }
    } else {
        if (n->hostname == NULL && hostname != NULL) {
            n->hostname = strdup(hostname);
        }
        if (have_id) {
            n->nodeid = nodeid;
        }
    }
    return (int)(n - ns->nodes);
}

static pmix_status_t load_app(px_nspace_t *ns, const pmix_info_t *arr, size_t n)
{
    uint32_t appnum = 0;
    const pmix_info_t *a = infos_find(arr, n, PMIX_APPNUM);
    if (a != NULL && !value_u32(&a->value, &appnum)) {
        return PMIX_ERR_BAD_PARAM;
    }
    px_ns_app_t *app = px_ns_app(ns, appnum, true);
    return app ? px_kvset_put_infos(&app->info, arr, n) : PMIX_ERR_NOMEM;
}

static pmix_status_t load_node(px_nspace_t *ns, const pmix_info_t *arr, size_t n)
{
    const pmix_info_t *h = infos_find(arr, n, PMIX_HOSTNAME);
    const pmix_info_t *id = infos_find(arr, n, PMIX_NODEID);
    uint32_t nodeid = 0;
    bool have_id = id != NULL && value_u32(&id->value, &nodeid);
    const char *host = (h != NULL && h->value.type == PMIX_STRING) ? h->value.data.string : NULL;
    if (host == NULL && !have_id) {
        return PMIX_ERR_BAD_PARAM;
    }
    int idx = node_for(ns, host, have_id, nodeid);
    if (idx < 0) {
        return PMIX_ERR_NOMEM;
    }
    return px_kvset_put_infos(&ns->nodes[idx].info, arr, n);
}

static pmix_status_t load_proc(px_nspace_t *ns, const pmix_info_t *arr, size_t n)
{
    const pmix_info_t *r = infos_find(arr, n, PMIX_RANK);
    uint32_t rank;
    if (r == NULL || !value_u32(&r->value, &rank)) {
        return PMIX_ERR_BAD_PARAM;
    }
    px_ns_rank_t *pr = px_ns_rank(ns, rank);
    if (pr == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    return px_kvset_put_infos(&pr->info, arr, n);
}

static int cmp_rank(const void *a, const void *b)
{
    pmix_rank_t x = *(const pmix_rank_t *)a, y = *(const pmix_rank_t *)b;
    return x < y ? -1 : x > y;
}

static pmix_status_t node_add_rank(px_ns_node_t *node, pmix_rank_t rank)
{
    for (size_t i = 0; i < node->nranks; i++) {
        if (node->ranks[i] == rank) {
            return PMIX_SUCCESS;
        }
    }
    pmix_rank_t *r = realloc(node->ranks, (node->nranks + 1) * sizeof(*r));
    if (r == NULL) {
        return PMIX_ERR_NOMEM;
    }
    node->ranks = r;
    r[node->nranks++] = rank;
    return PMIX_SUCCESS;
}

/* The text of a map: a PMIX_STRING, or a PMIX_REGEX (a byte object holding one string
 * with its NUL, as PMIx_Value_load stores it). *text NULL: no map of a type we read.
 * False: a PMIX_REGEX whose bytes are not one NUL-terminated string. */
static bool map_text(const pmix_value_t *v, const char **text)
{
    *text = NULL;
    if (v != NULL && v->type == PMIX_STRING) {
        *text = v->data.string;
    } else if (v != NULL && v->type == PMIX_REGEX) {
        *text = px_value_regex_text(v);
        return *text != NULL;
    }
    return true;
}

/* Node list and per-node ranks from PMIX_NODE_MAP + PMIX_PROC_MAP (strings or regexes). */
static pmix_status_t load_maps(px_nspace_t *ns)
{
    const char *nm, *pm;
    char **names = NULL, **per_node = NULL;
    pmix_status_t rc = PMIX_ERR_BAD_PARAM;
    if (!map_text(px_kvset_get(&ns->job, PMIX_NODE_MAP), &nm) ||
        !map_text(px_kvset_get(&ns->job, PMIX_PROC_MAP), &pm)) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (nm == NULL) {
        return PMIX_SUCCESS;
    }
    if (px_regex_parse_nodes(nm, &names) != 0) {
        goto out;
    }
    if (pm != NULL && px_regex_parse_ppn(pm, &per_node) != 0) {
        goto out;
    }
    for (size_t i = 0; names[i] != NULL; i++) {
        int idx = node_for(ns, names[i], px_ns_node_by_name(ns, names[i]) == NULL, (uint32_t)i);
        if (idx < 0) {
            rc = PMIX_ERR_NOMEM;
            goto out;
        }
        if (per_node == NULL || per_node[i] == NULL) {
            continue;
        }
        char **ranks = PMIx_Argv_split(per_node[i], ',');
        for (size_t k = 0; ranks != NULL && ranks[k] != NULL; k++) {
            char *end;
            unsigned long r = strtoul(ranks[k], &end, 10);
            if (*end != '\0' || r >= PMIX_RANK_VALID) {
                PMIx_Argv_free(ranks);
                goto out;
            }
            if (node_add_rank(&ns->nodes[idx], (pmix_rank_t)r) != PMIX_SUCCESS ||
                px_ns_rank(ns, (pmix_rank_t)r) == NULL) {
                PMIx_Argv_free(ranks);
                rc = PMIX_ERR_NOMEM;
                goto out;
            }
        }
        PMIx_Argv_free(ranks);
    }
    rc = PMIX_SUCCESS;
out:
    px_regex_argv_free(names);
    px_regex_argv_free(per_node);
    return rc;
}

/* Ranks a node info array names in PMIX_LOCAL_PEERS, and ranks whose process info
 * names their node. */
static pmix_status_t collect_ranks(px_nspace_t *ns)
{
    for (size_t i = 0; i < ns->nnodes; i++) {
        const pmix_value_t *lp = px_kvset_get(&ns->nodes[i].info, PMIX_LOCAL_PEERS);
        if (lp == NULL || lp->type != PMIX_STRING || ns->nodes[i].nranks > 0) {
            continue;
        }
        char **ranks = PMIx_Argv_split(lp->data.string, ',');
        for (size_t k = 0; ranks != NULL && ranks[k] != NULL; k++) {
            unsigned long r = strtoul(ranks[k], NULL, 10);
            if (r < PMIX_RANK_VALID && px_ns_rank(ns, (pmix_rank_t)r) != NULL) {
                node_add_rank(&ns->nodes[i], (pmix_rank_t)r);
            }
        }
        PMIx_Argv_free(ranks);
    }
    for (size_t r = 0; r < ns->nranks; r++) {
        px_ns_rank_t *pr = &ns->ranks[r];
        const pmix_value_t *h = px_kvset_get(&pr->info, PMIX_HOSTNAME);
        uint32_t id = 0;
        bool have_id = value_u32(px_kvset_get(&pr->info, PMIX_NODEID), &id);
        const char *host = (h != NULL && h->type == PMIX_STRING) ? h->data.string : NULL;
        if (host == NULL && !have_id) {
            continue;
        }
        int idx = node_for(ns, host, have_id, id);
        if (idx < 0 || node_add_rank(&ns->nodes[idx], (pmix_rank_t)r) != PMIX_SUCCESS) {
            return PMIX_ERR_NOMEM;
        }
    }
    return PMIX_SUCCESS;
}

static void ns_locate(px_nspace_t *ns, const char *my_hostname)
{
    px_ns_node_t *me = px_ns_node_by_name(ns, my_hostname);
    ns->my_node = me ? (int32_t)(me - ns->nodes) : -1;
}

/* Fill in what the maps imply; explicit values are never overwritten. */
static pmix_status_t derive(px_nspace_t *ns)
{
    pmix_status_t rc = PMIX_SUCCESS;
    size_t highest = 0;
    bool any = false;
    char *nodelist = NULL;
    size_t listlen = 0;
    for (size_t i = 0; i < ns->nnodes && rc == PMIX_SUCCESS; i++) {
        px_ns_node_t *node = &ns->nodes[i];
        qsort(node->ranks, node->nranks, sizeof(*node->ranks), cmp_rank);
        size_t len = 0;
        char *peers = malloc(node->nranks * 11 + 1);
        if (peers == NULL) {
            return PMIX_ERR_NOMEM;
        }
        peers[0] = '\0';
        for (size_t k = 0; k < node->nranks; k++) {
            pmix_rank_t r = node->ranks[k];
            px_ns_rank_t *pr = px_ns_rank(ns, r);
            pr->node = (int32_t)i;
            len += (size_t)sprintf(peers + len, k ? ",%u" : "%u", r);
            if (node->hostname != NULL) {
                px_kvset_put_str(&pr->info, PMIX_HOSTNAME, node->hostname, true);
            }
            px_kvset_put_num(&pr->info, PMIX_NODEID, node->nodeid, true);
            px_kvset_put_num(&pr->info, PMIX_LOCAL_RANK, k, true);
            px_kvset_put_num(&pr->info, PMIX_NODE_RANK, k, true);
            if (!any || r > highest) {
                highest = r;
            }
            any = true;
        }
        if (node->hostname != NULL) {
            px_kvset_put_str(&node->info, PMIX_HOSTNAME, node->hostname, true);
            size_t hl = strlen(node->hostname);
            char *nl = realloc(nodelist, listlen + hl + 2);
            if (nl != NULL) {
                nodelist = nl;
                sprintf(nodelist + listlen, listlen ? ",%s" : "%s", node->hostname);
                listlen += hl + (listlen ? 1 : 0);
            }
        }
        px_kvset_put_num(&node->info, PMIX_NODEID, node->nodeid, true);
        px_kvset_put_num(&node->info, PMIX_LOCAL_SIZE, node->nranks, true);
        px_kvset_put_num(&node->info, PMIX_NODE_SIZE, node->nranks, true);
        rc = px_kvset_put_str(&node->info, PMIX_LOCAL_PEERS, peers, true);
        if (node->nranks > 0) {
            px_kvset_put_num(&node->info, PMIX_LOCALLDR, node->ranks[0], true);
        }
        free(peers);
    }
    if (rc != PMIX_SUCCESS) {
        free(nodelist);
        return rc;
    }
    if (ns->nnodes > 0) {
        px_kvset_put_num(&ns->job, PMIX_NUM_NODES, ns->nnodes, true);
    }
    if (nodelist != NULL) {
        px_kvset_put_str(&ns->job, PMIX_NODE_LIST, nodelist, true);
        free(nodelist);
    }
    uint32_t size;
    if (!value_u32(px_kvset_get(&ns->job, PMIX_JOB_SIZE), &size) && any) {
        size = (uint32_t)highest + 1;
        px_kvset_put_num(&ns->job, PMIX_JOB_SIZE, size, true);
    }
    if (value_u32(px_kvset_get(&ns->job, PMIX_JOB_SIZE), &size)) {
        if (size > 0 && px_ns_rank(ns, size - 1) == NULL) {
            return PMIX_ERR_NOMEM;
        }
        px_kvset_put_num(&ns->job, PMIX_UNIV_SIZE, size, true);
        px_kvset_put_num(&ns->job, PMIX_MAX_PROCS, size, true);
        if (ns->napps <= 1) {
            px_ns_app_t *app = ns->napps ? &ns->apps[0] : px_ns_app(ns, 0, true);
            if (app == NULL) {
                return PMIX_ERR_NOMEM;
            }
            px_kvset_put_num(&app->info, PMIX_APPNUM, app->appnum, true);
            px_kvset_put_num(&app->info, PMIX_APP_SIZE, size, true);
            px_kvset_put_num(&app->info, PMIX_APPLDR, 0, true);
            for (uint32_t r = 0; r < size; r++) {
                px_kvset_put_num(&ns->ranks[r].info, PMIX_APPNUM, app->appnum, true);
                px_kvset_put_num(&ns->ranks[r].info, PMIX_APP_RANK, r, true);
            }
        }
        for (uint32_t r = 0; r < size; r++) {
            px_kvset_put_num(&ns->ranks[r].info, PMIX_RANK, r, true);
            px_kvset_put_num(&ns->ranks[r].info, PMIX_GLOBAL_RANK, r, true);
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t px_ns_register(px_store_t *st, px_nspace_t *ns, const pmix_info_t *info, size_t ninfo)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < ninfo && rc == PMIX_SUCCESS; i++) {
        const pmix_info_t *arr;
        size_t n;
        const pmix_value_t *v = &info[i].value;
        if (PMIX_CHECK_KEY(&info[i], PMIX_APP_INFO_ARRAY) && info_array(v, &arr, &n)) {
            rc = load_app(ns, arr, n);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_NODE_INFO_ARRAY) && info_array(v, &arr, &n)) {
            rc = load_node(ns, arr, n);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_PROC_INFO_ARRAY) && info_array(v, &arr, &n)) {
            rc = load_proc(ns, arr, n);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_SESSION_INFO_ARRAY) && info_array(v, &arr, &n)) {
            rc = px_kvset_put_infos(&ns->job, arr, n);
        } else {
            rc = px_kvset_put(&ns->job, info[i].key, v);
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = load_maps(ns);
    }
    if (rc == PMIX_SUCCESS) {
        rc = collect_ranks(ns);
    }
    if (rc == PMIX_SUCCESS) {
        rc = derive(ns);
    }
    ns_locate(ns, st->my_hostname);
    ns->complete = (rc == PMIX_SUCCESS);
    return rc;
}

/* ---- lookup ---- */

void px_getq_parse(px_getq_t *q, const pmix_info_t *info, size_t ninfo)
{
    memset(q, 0, sizeof(*q));
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *in = &info[i];
        if (PMIX_CHECK_KEY(in, PMIX_APP_INFO)) {
            q->app = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_NODE_INFO)) {
            q->node = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_APPNUM)) {
            q->have_appnum = value_u32(&in->value, &q->appnum);
        } else if (PMIX_CHECK_KEY(in, PMIX_HOSTNAME) && in->value.type == PMIX_STRING) {
            q->hostname = in->value.data.string;
        } else if (PMIX_CHECK_KEY(in, PMIX_NODEID)) {
            q->have_nodeid = value_u32(&in->value, &q->nodeid);
        }
    }
    /* naming an app or node qualifies the request even without the realm flag */
    if (q->have_appnum && !q->node) {
        q->app = true;
    }
    if ((q->hostname != NULL || q->have_nodeid) && !q->app) {
        q->node = true;
    }
}

static px_ns_node_t *rank_node(px_nspace_t *ns, pmix_rank_t rank)
{
    if (rank < ns->nranks && ns->ranks[rank].node >= 0) {
        return &ns->nodes[ns->ranks[rank].node];
    }
    return ns->my_node >= 0 ? &ns->nodes[ns->my_node] : NULL;
}

static px_ns_app_t *rank_app(px_nspace_t *ns, pmix_rank_t rank)
{
    uint32_t appnum = 0;
    if (rank < ns->nranks) {
        value_u32(px_kvset_get(&ns->ranks[rank].info, PMIX_APPNUM), &appnum);
    } else if (ns->napps != 1) {
        return NULL;
    }
    return px_ns_app(ns, appnum, false);
}

const pmix_value_t *px_ns_lookup(px_nspace_t *ns, pmix_rank_t rank, const char *key,
                                 const px_getq_t *q)
{
    const pmix_value_t *v;
    /* the application realm of a wildcard request is the caller's own application
     * (Chap_API_Reserved_Keys, "application realm") */
    pmix_rank_t arank = (rank == PMIX_RANK_WILDCARD && q != NULL && q->have_self) ? q->self : rank;
    if (q != NULL && q->node) {
        px_ns_node_t *n = q->have_nodeid ? px_ns_node_by_id(ns, q->nodeid)
                          : q->hostname  ? px_ns_node_by_name(ns, q->hostname)
                                         : rank_node(ns, rank);
        return n ? px_kvset_get(&n->info, key) : NULL;
    }
    if (q != NULL && q->app) {
        px_ns_app_t *a = q->have_appnum ? px_ns_app(ns, q->appnum, false) : rank_app(ns, arank);
        if (a != NULL && (v = px_kvset_get(&a->info, key)) != NULL) {
            return v;
        }
        return px_kvset_get(&ns->job, key);
    }
    if (rank < ns->nranks) {
        px_ns_rank_t *pr = &ns->ranks[rank];
        if ((v = px_kvset_get(&pr->info, key)) != NULL) {
            return v;
        }
        const px_kvset_t *posted = px_ns_rank_is_local(ns, rank) ? &pr->local : &pr->remote;
        if ((v = px_kvset_get(posted, key)) != NULL) {
            return v;
        }
    }
    if ((v = px_kvset_get(&ns->job, key)) != NULL) {
        return v;
    }
    px_ns_node_t *n = rank_node(ns, rank);
    if (n != NULL && (v = px_kvset_get(&n->info, key)) != NULL) {
        return v;
    }
    px_ns_app_t *a = rank_app(ns, arank);
    return a ? px_kvset_get(&a->info, key) : NULL;
}

/* ---- transfer ---- */

pmix_status_t px_ns_pack(pmix_data_buffer_t *buf, px_nspace_t *ns)
{
    pmix_status_t rc = px_bfrops_pack_info_array(buf, ns->job.kv, ns->job.n);
    uint32_t n = (uint32_t)ns->napps;
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(buf, &n, 1, PMIX_UINT32);
    }
    for (size_t i = 0; i < ns->napps && rc == PMIX_SUCCESS; i++) {
        rc = px_bfrops_pack(buf, &ns->apps[i].appnum, 1, PMIX_UINT32);
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack_info_array(buf, ns->apps[i].info.kv, ns->apps[i].info.n);
        }
    }
    n = (uint32_t)ns->nnodes;
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(buf, &n, 1, PMIX_UINT32);
    }
    for (size_t i = 0; i < ns->nnodes && rc == PMIX_SUCCESS; i++) {
        px_ns_node_t *node = &ns->nodes[i];
        uint32_t nr = (uint32_t)node->nranks;
        rc = px_bfrops_pack(buf, &node->hostname, 1, PMIX_STRING);
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack(buf, &node->nodeid, 1, PMIX_UINT32);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack(buf, &nr, 1, PMIX_UINT32);
        }
        if (rc == PMIX_SUCCESS && nr > 0) {
            rc = px_bfrops_pack(buf, node->ranks, (int32_t)nr, PMIX_PROC_RANK);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack_info_array(buf, node->info.kv, node->info.n);
        }
    }
    n = (uint32_t)ns->nranks;
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(buf, &n, 1, PMIX_UINT32);
    }
    for (size_t i = 0; i < ns->nranks && rc == PMIX_SUCCESS; i++) {
        rc = px_bfrops_pack(buf, &ns->ranks[i].node, 1, PMIX_INT32);
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack_info_array(buf, ns->ranks[i].info.kv, ns->ranks[i].info.n);
        }
    }
    return rc;
}

static pmix_status_t unpack_into(pmix_data_buffer_t *buf, px_kvset_t *set)
{
    pmix_info_t *info;
    size_t n;
    pmix_status_t rc = px_bfrops_unpack_info_array(buf, &info, &n);
    if (rc == PMIX_SUCCESS) {
        rc = px_kvset_put_infos(set, info, n);
        px_bfrops_info_array_free(info, n);
    }
    return rc;
}

static pmix_status_t unpack_u32(pmix_data_buffer_t *buf, uint32_t *v)
{
    int32_t one = 1;
    return px_bfrops_unpack(buf, v, &one, PMIX_UINT32);
}

/* Least bytes on the wire of one app (appnum, info[]), one node (hostname, id, rank
 * count, info[]; its ranks counted separately) and one rank (node index, info[]): the
 * counts of px_ns_unpack are checked against them before anything is sized by them. */
#define APP_MIN (px_bfrops_wire_item(PMIX_UINT32, 1) + px_bfrops_wire_item(PMIX_INFO, 0))
#define NODE_MIN                                                                                   \
    (px_bfrops_wire_item(PMIX_STRING, 1) + 2 * px_bfrops_wire_item(PMIX_UINT32, 1) +               \
     px_bfrops_wire_item(PMIX_INFO, 0))
#define RANK_MIN (px_bfrops_wire_item(PMIX_INT32, 1) + px_bfrops_wire_item(PMIX_INFO, 0))

pmix_status_t px_ns_unpack(pmix_data_buffer_t *buf, px_nspace_t *ns)
{
    size_t n = 0;
    pmix_status_t rc = unpack_into(buf, &ns->job);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_count(buf, PMIX_UINT32, APP_MIN, 0, &n);
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        uint32_t appnum;
        rc = unpack_u32(buf, &appnum);
        px_ns_app_t *a = rc == PMIX_SUCCESS ? px_ns_app(ns, appnum, true) : NULL;
        rc = a ? unpack_into(buf, &a->info) : (rc ? rc : PMIX_ERR_NOMEM);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_count(buf, PMIX_UINT32, NODE_MIN, 0, &n);
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        char *host = NULL;
        int32_t one = 1;
        uint32_t id;
        size_t nr = 0;
        rc = px_bfrops_unpack(buf, &host, &one, PMIX_STRING);
        if (rc == PMIX_SUCCESS) {
            rc = unpack_u32(buf, &id);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_unpack_count(buf, PMIX_UINT32, px_bfrops_wire_elem(PMIX_PROC_RANK), 0,
                                        &nr);
        }
        px_ns_node_t *node = rc == PMIX_SUCCESS ? node_add(ns, host, id) : NULL;
        free(host);
        if (node == NULL) {
            rc = rc ? rc : PMIX_ERR_NOMEM;
            break;
        }
        if (nr > 0) {
            int32_t cnt = (int32_t)nr;
            node->ranks = malloc(nr * sizeof(*node->ranks));
            rc = node->ranks ? px_bfrops_unpack(buf, node->ranks, &cnt, PMIX_PROC_RANK)
                             : PMIX_ERR_NOMEM;
            node->nranks = rc == PMIX_SUCCESS ? nr : 0;
        }
        if (rc == PMIX_SUCCESS) {
            rc = unpack_into(buf, &node->info);
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_count(buf, PMIX_UINT32, RANK_MIN, 0, &n);
    }
    if (rc == PMIX_SUCCESS && n > 0 && px_ns_rank(ns, (pmix_rank_t)(n - 1)) == NULL) {
        rc = PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        int32_t one = 1;
        rc = px_bfrops_unpack(buf, &ns->ranks[i].node, &one, PMIX_INT32);
        if (rc == PMIX_SUCCESS && ns->ranks[i].node >= (int32_t)ns->nnodes) {
            rc = PMIX_ERR_UNPACK_FAILURE;
        }
        if (rc == PMIX_SUCCESS) {
            rc = unpack_into(buf, &ns->ranks[i].info);
        }
    }
    ns->complete = (rc == PMIX_SUCCESS);
    return rc;
}

void px_ns_locate(px_store_t *st, px_nspace_t *ns)
{
    ns_locate(ns, st->my_hostname);
}
