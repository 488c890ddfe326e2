/* launcher: the hosts a job names (prun --host / --add-host, cli/opts_alloc.c).
 * PMIX_ADD_HOST: hosts the DVM grows by before the job is mapped — a daemon is started on
 * each (px_daemons_add), the job waits in INIT (waiting_dvm) until every one is up, then
 * is mapped like any other; one that does not come up ends the job, the DVM goes on.
 * PMIX_HOST: the DVM's nodes the job is mapped onto; "name:N" caps the job's processes
 * there at N, a bare name lets it use the node's free slots. Both are read from the apps'
 * info (every app the same list: the mapper places a job, not each app, on a node set)
 * or, when no app gives one, the job info. Controller loop only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "help/px_help.h"
#include "launcher/dvm_int.h"
#include "launcher/px_daemons.h"

/* One job waiting for the daemons it added. */
typedef struct px_grow_wait {
    struct px_grow_wait *next;
    pmix_nspace_t nspace; /* the job (found again by name: it may end meanwhile) */
    unsigned *ids;        /* owned, n: the daemons it waits for */
    size_t n, left;
    char *failed; /* owned: the first host that did not come up */
} px_grow_wait_t;

struct px_grow {
    px_grow_wait_t *waits;
    int *slots; /* owned, by daemon id: --add-host's ":N" (0: the node's cores) */
    size_t nslots;
};

typedef struct {
    char *name; /* owned */
    int slots;  /* 0: not given */
} hent_t;

static void hents_free(hent_t *h, size_t n)
{
    for (size_t i = 0; h != NULL && i < n; i++) {
        free(h[i].name);
    }
    free(h);
}

/* "a:2,b" (as cli/opts_alloc.c writes it, but from any requester: checked) */
static int hents_parse(const char *list, hent_t **out, size_t *n)
{
    char **words = PMIx_Argv_split(list, ',');
    size_t cnt = words != NULL ? (size_t)PMIx_Argv_count(words) : 0;
    hent_t *h = calloc(cnt ? cnt : 1, sizeof(*h));
    int rc = words != NULL && cnt > 0 && h != NULL ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < cnt; i++) {
        char *colon = strchr(words[i], ':');
        char *end = NULL;
        if (colon != NULL) {
            long v = strtol(colon + 1, &end, 10);
            rc = colon == words[i] || *end != '\0' || v <= 0 || v > 1000000 ? -1 : 0;
            h[i].slots = (int)v;
            *colon = '\0';
        }
        rc = rc == 0 && words[i][0] != '\0' && (h[i].name = strdup(words[i])) != NULL ? 0 : -1;
    }
    PMIx_Argv_free(words);
    if (rc != 0) {
        hents_free(h, cnt);
        return -1;
    }
    *out = h;
    *n = cnt;
    return 0;
}

static const char *info_str(const pmix_info_t *info, size_t ninfo, const char *key)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIx_Check_key(info[i].key, key) && info[i].value.type == PMIX_STRING) {
            return info[i].value.data.string;
        }
    }
    return NULL;
}

/* key's host list for the job (NULL: none); a list the DVM cannot honour (apps that
 * differ, a malformed list) is refused with a message. */
static pmix_status_t job_hosts(px_job_t *j, const char *key, const char *opt, hent_t **h, size_t *n,
                               char **msg)
{
    const char *val = NULL;
    bool differ = false;
    for (size_t a = 0; a < j->napps; a++) {
        const char *v = info_str(j->apps[a].info, j->apps[a].ninfo, key);
        differ = differ || (a > 0 && (v == NULL) != (val == NULL)) ||
                 (a > 0 && v != NULL && val != NULL && strcmp(v, val) != 0);
        val = a == 0 ? v : val;
    }
    if (differ) {
        *msg = px_help_render("help-prte.txt", "host-per-app", j->nspace, key);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (val == NULL) {
        val = info_str(j->info, j->ninfo, key);
    }
    *h = NULL;
    *n = 0;
    if (val == NULL) {
        return PMIX_SUCCESS;
    }
    if (hents_parse(val, h, n) != 0) {
        *msg = px_help_render("help-prte.txt", "host-list-bad", j->nspace, opt, val);
        return PMIX_ERR_BAD_PARAM;
    }
    return PMIX_SUCCESS;
}

/* "a, b, c": the nodes of the DVM that are up */
static char *dvm_nodes(px_dvm_t *dvm)
{
    char **names = NULL;
    for (size_t id = 0; id < dvm->nnodes_used; id++) {
        if (px_daemons_up(dvm->daemons, (unsigned)id)) {
            PMIx_Argv_append_nosize(&names, dvm->nodes[id].name);
        }
    }
    char *s = names != NULL ? PMIx_Argv_join(names, ',') : strdup("");
    PMIx_Argv_free(names);
    return s;
}

pmix_status_t px_job_hosts_pool(px_job_t *j, px_pool_t *pool, char **msg)
{
    px_dvm_t *dvm = j->dvm;
    hent_t *h = NULL;
    size_t n = 0;
    pmix_status_t rc = job_hosts(j, PMIX_HOST, "--host", &h, &n, msg);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (n == 0) {
        return px_pool_get(dvm, pool) == 0 ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    size_t nn = dvm->nnodes_used;
    bool *use = calloc(nn ? nn : 1, sizeof(*use));
    int *cap = calloc(nn ? nn : 1, sizeof(*cap)); /* -1: no cap */
    rc = use != NULL && cap != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        int id = px_daemons_find(dvm->daemons, h[i].name);
        if (id < 0 || (size_t)id >= nn || !px_daemons_up(dvm->daemons, (unsigned)id)) {
            char *nodes = dvm_nodes(dvm);
            *msg = px_help_render("help-prte.txt", "host-not-in-dvm", j->nspace, h[i].name,
                                  dvm->nspace, nodes ? nodes : "", h[i].name);
            free(nodes);
            rc = PMIX_ERR_NOT_FOUND;
            break;
        }
        use[id] = true;
        cap[id] = h[i].slots == 0 || cap[id] < 0 ? -1 : cap[id] + h[i].slots;
    }
    if (rc == PMIX_SUCCESS && px_pool_get_on(dvm, pool, use) != 0) {
        rc = PMIX_ERR_NOMEM;
    }
    for (size_t k = 0; rc == PMIX_SUCCESS && k < pool->nnodes; k++) {
        px_map_node_t *node = &pool->nodes[k];
        int c = cap[pool->ids[k]];
        if (c > 0) {
            int want = node->slots_inuse + c;
            node->slots = node->slots_given && node->slots < want ? node->slots : want;
            node->slots_given = true;
        }
    }
    px_dvm_log(dvm, 1, "%s: --host gives %zu of the DVM's nodes", j->nspace,
               rc == PMIX_SUCCESS ? pool->nnodes : 0);
    free(use);
    free(cap);
    hents_free(h, n);
    return rc;
}

/* ---- growing the DVM ---- */

/* The DVM's node entries up to the daemon table's size: name and topology from the
 * daemon (its host until it said hello), slots as --add-host gave them, else its
 * cores. Entries of daemons that never came up stay out of the pool (not up). */
static int nodes_sync(px_dvm_t *dvm)
{
    size_t count = px_daemons_count(dvm->daemons);
    struct px_grow *g = dvm->grow;
    if (count > dvm->nnodes) {
        px_map_node_t *nodes = realloc(dvm->nodes, count * sizeof(*nodes));
        if (nodes == NULL) {
            return -1;
        }
        memset(nodes + dvm->nnodes, 0, (count - dvm->nnodes) * sizeof(*nodes));
        dvm->nodes = nodes;
        dvm->nnodes = dvm->nnodes_used = count;
    }
    for (size_t id = 0; id < count; id++) {
        px_map_node_t *node = &dvm->nodes[id];
        if (g == NULL || id >= g->nslots || node->topo != NULL ||
            !px_daemons_up(dvm->daemons, (unsigned)id)) {
            if (node->name == NULL) {
                node->name = (char *)px_daemons_host(dvm->daemons, (unsigned)id);
            }
            continue;
        }
        node->name = (char *)px_daemons_node(dvm->daemons, (unsigned)id);
        node->topo = px_daemons_topo(dvm->daemons, (unsigned)id);
        node->slots_given = g->slots[id] > 0;
        int cores = node->topo ? hwloc_get_nbobjs_by_type(node->topo, HWLOC_OBJ_CORE) : 0;
        node->slots = g->slots[id] > 0 ? g->slots[id] : cores > 0 ? cores : 1;
    }
    return 0;
}

static void wait_free(px_grow_wait_t *w)
{
    free(w->ids);
    free(w->failed);
    free(w);
}

/* Every daemon w waited for came up (the job is mapped) or one did not (it ends). */
static void wait_settled(px_dvm_t *dvm, px_grow_wait_t *w)
{
    px_job_t *j = px_job_find(dvm, w->nspace);
    if (j == NULL || !j->waiting_dvm) {
        return; /* ended meanwhile */
    }
    j->waiting_dvm = false;
    if (w->failed != NULL) {
        px_job_setup_failed(
            j, PMIX_ERR_UNREACH,
            px_help_render("help-prte.txt", "add-host-failed", j->nspace, w->failed));
    } else {
        px_job_map(j);
    }
}

void px_job_hosts_joined(px_dvm_t *dvm, unsigned id, bool ok)
{
    if (ok && nodes_sync(dvm) != 0) {
        px_dvm_log(dvm, 0, "daemon %u: no memory for its node", id);
        ok = false;
    }
    px_dvm_log(dvm, 1, "daemon %u (%s) %s the DVM", id, px_daemons_host(dvm->daemons, id),
               ok ? "joined" : "did not join");
    struct px_grow *g = dvm->grow;
    for (px_grow_wait_t **pw = g != NULL ? &g->waits : NULL; pw != NULL && *pw != NULL;) {
        px_grow_wait_t *w = *pw;
        bool mine = false;
        for (size_t i = 0; i < w->n; i++) {
            mine = mine || w->ids[i] == id;
        }
        if (mine) {
            w->left--;
            if (!ok && w->failed == NULL) {
                w->failed = strdup(px_daemons_host(dvm->daemons, id));
            }
        }
        if (mine && w->left == 0) {
            *pw = w->next;
            wait_settled(dvm, w); /* may end jobs; the list is past w */
            wait_free(w);
        } else {
            pw = &w->next;
        }
    }
}

/* Record --add-host's slots for daemon id. */
static int grow_slots(px_dvm_t *dvm, unsigned id, int slots)
{
    struct px_grow *g = dvm->grow;
    if (g == NULL && (g = dvm->grow = calloc(1, sizeof(*g))) == NULL) {
        return -1;
    }
    if (id >= g->nslots) {
        size_t n = id + 8;
        int *s = realloc(g->slots, n * sizeof(*s));
        if (s == NULL) {
            return -1;
        }
        memset(s + g->nslots, 0, (n - g->nslots) * sizeof(*s));
        g->slots = s;
        g->nslots = n;
    }
    g->slots[id] = slots;
    return 0;
}

pmix_status_t px_job_hosts_add(px_job_t *j, char **msg)
{
    px_dvm_t *dvm = j->dvm;
    hent_t *h = NULL;
    size_t n = 0;
    if (j->hosts_added) {
        return PMIX_SUCCESS; /* mapped again after its daemons came up */
    }
    j->hosts_added = true;
    pmix_status_t rc = job_hosts(j, PMIX_ADD_HOST, "--add-host", &h, &n, msg);
    if (rc != PMIX_SUCCESS || n == 0) {
        return rc;
    }
    /* first the refusals, so nothing is started for a request that fails */
    for (size_t i = 0; i < n; i++) {
        int id = px_daemons_find(dvm->daemons, h[i].name);
        for (size_t k = 0; k < i && rc == PMIX_SUCCESS; k++) {
            if (strcmp(h[k].name, h[i].name) == 0) {
                *msg = px_help_render("help-prte.txt", "add-host-twice", j->nspace, h[i].name);
                rc = PMIX_ERR_BAD_PARAM;
            }
        }
        if (rc == PMIX_SUCCESS && id >= 0 && px_daemons_up(dvm->daemons, (unsigned)id)) {
            *msg = px_help_render("help-prte.txt", "add-host-exists", j->nspace, h[i].name,
                                  dvm->nspace, px_daemons_node(dvm->daemons, (unsigned)id),
                                  (unsigned)id, h[i].name);
            rc = PMIX_ERR_EXISTS;
        }
        if (rc != PMIX_SUCCESS) {
            hents_free(h, n);
            return rc;
        }
    }
    px_grow_wait_t *w = calloc(1, sizeof(*w));
    if (dvm->grow == NULL) {
        dvm->grow = calloc(1, sizeof(*dvm->grow));
    }
    if (dvm->grow == NULL || w == NULL || (w->ids = calloc(n, sizeof(*w->ids))) == NULL) {
        free(w);
        hents_free(h, n);
        return PMIX_ERR_NOMEM;
    }
    PMIX_LOAD_NSPACE(w->nspace, j->nspace);
    for (size_t i = 0; i < n && rc == PMIX_SUCCESS; i++) {
        /* one being added for another job: wait for it too */
        int id = px_daemons_find(dvm->daemons, h[i].name);
        if (id < 0) {
            id = px_daemons_add(dvm->daemons, h[i].name);
            if (id < 0 || grow_slots(dvm, (unsigned)id, h[i].slots) != 0) {
                *msg = px_help_render("help-prte.txt", "add-host-failed", j->nspace, h[i].name);
                w->failed = strdup(h[i].name);
                rc = PMIX_ERR_UNREACH;
                break;
            }
        }
        w->ids[w->n++] = (unsigned)id;
    }
    hents_free(h, n);
    if (rc != PMIX_SUCCESS && w->n == 0) {
        wait_free(w);
        return rc;
    }
    /* the job waits for those started, also when a later one could not be (it ends
     * then, with that host named, once they settled) */
    if (rc != PMIX_SUCCESS) {
        free(*msg);
        *msg = NULL;
    }
    w->left = w->n;
    w->next = dvm->grow->waits;
    dvm->grow->waits = w;
    j->waiting_dvm = true;
    px_dvm_log(dvm, 1, "%s waits for %zu added host(s)", j->nspace, w->n);
    return PMIX_OPERATION_IN_PROGRESS;
}

void px_job_hosts_fini(px_dvm_t *dvm)
{
    struct px_grow *g = dvm->grow;
    if (g == NULL) {
        return;
    }
    while (g->waits != NULL) {
        px_grow_wait_t *w = g->waits;
        g->waits = w->next;
        wait_free(w);
    }
    free(g->slots);
    free(g);
    dvm->grow = NULL;
}
