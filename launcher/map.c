/* launcher: mapping, ranking and binding of a job's processes onto the DVM's nodes with
 * hwloc (px_map.h). Pure computation; runs on the controller's loop.
 *
 * Defaults (PRRTE-like, documented in --help bind-to):
 *   map-by  slot (fill each node's slots in order, then the next node).
 *   rank-by the mapping order (slot for slot/core/package/hwthread/ppr, node for node).
 *   bind-to :PE=n -> the n cores; map-by core/package/hwthread -> that object;
 *           ppr:N:obj -> obj (package for ppr:N:node); otherwise core when the job has at
 *           most 2 processes, package when more. A process placed beyond its node's
 *           cores (hwthreads for bind-to hwthread) is not bound.
 *   oversubscription: allowed unless a node's slots were given (or :NOOVERSUBSCRIBE);
 *           :OVERSUBSCRIBE always allows it. :PE=n never oversubscribes cores.
 *
 * The DVM's pool (px_map_node_t's slots_inuse / inuse_cpus / holds): given slots are a
 * limit for all the running jobs together, so a node offers its slots minus the held
 * ones. Cores (PUs) are tried free first, then those held by other jobs: a job shares
 * another's core only when no free one is left, as every job did before the pool, and
 * within a job a process beyond the node's cores is still not bound. Slots nobody gave
 * are no limit, so they are not reduced by the pool.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "help/px_help.h"
#include "launcher/px_map.h"

/* A node as the mapper sees it during one px_map_job. */
typedef struct {
    hwloc_topology_t topo; /* borrowed; NULL: slots only (binding left to its daemon) */
    int ncores, npus;      /* 0 without a topology */
    int slots;             /* as used: given, else the core count */
    int inuse;             /* slots held by the DVM's running jobs */
    int cap;               /* processes placed before oversubscribing */
    int hard;              /* max_slots minus inuse: never more here; -1 = no limit */
    int placed;
    bool *core_used, *pu_used; /* by this job */
    /* logical indices of the cores (PUs): those no running job holds first, then the
     * held ones; the order in which this job takes them */
    int *core_order, *pu_order;
    int core_next, pu_next; /* entries of the orders before these are all used */
} px_nstate_t;

typedef struct {
    uint32_t node;
    int k; /* index among the processes placed on its node */
    hwloc_obj_t target;
    hwloc_bitmap_t cpuset;
} px_place_t;

/* One job being mapped: the inputs (borrowed), then what each phase leaves for the
 * next. The phases run in order; each returns PMIX_SUCCESS or sets err (owned, the
 * rendered help text) and returns the failure. */
typedef struct {
    const px_map_node_t *nodes;
    size_t nnodes;
    const pmix_app_t *apps;
    size_t napps;
    const pmix_info_t *info;
    size_t ninfo;
    /* policy */
    px_map_policy_t pol;
    px_map_obj_t rankby, bindto;
    bool bind_given;
    /* capacity */
    px_nstate_t *ns; /* owned, nnodes */
    int *counts;     /* owned, napps: processes of each app */
    long np;
    /* placement */
    px_place_t *pl; /* owned, np, in placement order (app after app) */
    /* ranking */
    size_t *order; /* owned, np: order[rank] = the process's index in pl */
    char *err;
} px_mjob_t;

static hwloc_obj_type_t px_map_hwtype(px_map_obj_t o)
{
    switch (o) {
    case PX_MAP_OBJ_PACKAGE:
        return HWLOC_OBJ_PACKAGE;
    case PX_MAP_OBJ_CORE:
        return HWLOC_OBJ_CORE;
    case PX_MAP_OBJ_HWTHREAD:
        return HWLOC_OBJ_PU;
    default:
        return HWLOC_OBJ_MACHINE;
    }
}

static bool px_map_is_hwobj(px_map_obj_t o)
{
    return o == PX_MAP_OBJ_PACKAGE || o == PX_MAP_OBJ_CORE || o == PX_MAP_OBJ_HWTHREAD;
}

static int px_map_nobjs(hwloc_topology_t t, px_map_obj_t o)
{
    int n = hwloc_get_nbobjs_by_type(t, px_map_hwtype(o));
    return n > 0 ? n : 1;
}

static hwloc_obj_t px_map_obj(hwloc_topology_t t, px_map_obj_t o, int idx)
{
    hwloc_obj_t obj = hwloc_get_obj_by_type(t, px_map_hwtype(o), (unsigned)idx);
    return obj != NULL ? obj : hwloc_get_root_obj(t);
}

static const char *px_map_info_str(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(info[i].key, key) == 0 && info[i].value.type == PMIX_STRING)
            return info[i].value.data.string;
    }
    return NULL;
}

/* A node's slot count as the map shows it: given, else its cores (1 without either). */
static int px_map_node_slots(const px_map_node_t *n)
{
    int cores;

    if (n->slots_given || n->topo == NULL)
        return n->slots > 0 ? n->slots : 1;
    cores = hwloc_get_nbobjs_by_type(n->topo, HWLOC_OBJ_CORE);
    return cores > 0 ? cores : 1;
}

/* "node n1" or "3 nodes (n1, n2, n3)" */
static char *px_map_where(const px_map_node_t *nodes, size_t nnodes)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (f == NULL)
        return NULL;
    if (nnodes == 1) {
        fprintf(f, "node %s", nodes[0].name);
    } else {
        fprintf(f, "%zu nodes (", nnodes);
        for (size_t i = 0; i < nnodes; i++)
            fprintf(f, "%s%s", i ? ", " : "", nodes[i].name);
        fputc(')', f);
    }
    fclose(f);
    return buf;
}

/* The jobs holding the nodes' slots: "ns@1 (1 on n1), ns@2 (2 on n1)". Malloc'd; NULL
 * when out of memory. */
static char *px_map_holders(const px_map_node_t *nodes, size_t nnodes)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bool first = true;

    if (f == NULL)
        return NULL;
    for (size_t i = 0; i < nnodes; i++) {
        for (size_t h = 0; h < nodes[i].nholds; h++) {
            fprintf(f, "%s%s (%d on %s)", first ? "" : ", ", nodes[i].holds[h].job,
                    nodes[i].holds[h].slots, nodes[i].name);
            first = false;
        }
    }
    fclose(f);
    return buf;
}

/* The k-th core or PU in the node's order (free ones first), else as px_map_obj. */
static hwloc_obj_t px_map_nth(const px_nstate_t *ns, px_map_obj_t o, int k)
{
    if (o == PX_MAP_OBJ_CORE && ns->ncores > 0)
        return px_map_obj(ns->topo, o, ns->core_order[k % ns->ncores]);
    if (o == PX_MAP_OBJ_HWTHREAD && ns->npus > 0)
        return px_map_obj(ns->topo, o, ns->pu_order[k % ns->npus]);
    return px_map_obj(ns->topo, o, k % px_map_nobjs(ns->topo, o));
}

/* Fill the node's take order: the cores (PUs) not in held first, then the others. */
static int *px_map_order(hwloc_topology_t topo, hwloc_obj_type_t type, int n,
                         hwloc_const_bitmap_t held)
{
    int *order = calloc((size_t)n + 1, sizeof(int)), k = 0;

    if (order == NULL)
        return NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n; i++) {
            hwloc_obj_t o = hwloc_get_obj_by_type(topo, type, (unsigned)i);
            bool busy = held != NULL && o != NULL && hwloc_bitmap_intersects(o->cpuset, held);
            if (busy == (pass == 1))
                order[k++] = i;
        }
    }
    return order;
}

/* First core (or PU) inside obj not used by this job, in the node's order (free ones
 * first), marking it used; NULL when none. Without obj this is O(1) amortized (the
 * cursor skips the used prefix of the order); within an object it scans the rest of
 * the node's order: O(cores of the node). */
static hwloc_obj_t px_map_take(px_nstate_t *ns, hwloc_obj_t within, bool pu)
{
    hwloc_obj_type_t type = pu ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE;
    bool *used = pu ? ns->pu_used : ns->core_used;
    const int *order = pu ? ns->pu_order : ns->core_order;
    int n = pu ? ns->npus : ns->ncores;
    int *next = pu ? &ns->pu_next : &ns->core_next;

    while (*next < n && used[order[*next]])
        (*next)++;
    for (int j = *next; j < n; j++) {
        int i = order[j];
        hwloc_obj_t o = hwloc_get_obj_by_type(ns->topo, type, (unsigned)i);
        if (o == NULL || used[i])
            continue;
        if (within != NULL && !hwloc_bitmap_isincluded(o->cpuset, within->cpuset))
            continue;
        used[i] = true;
        return o;
    }
    return NULL;
}

static hwloc_obj_t px_map_take_any(px_nstate_t *ns, hwloc_obj_t within, bool pu)
{
    hwloc_obj_t o = px_map_take(ns, within, pu);
    return o != NULL ? o : px_map_take(ns, NULL, pu);
}

/* Where a process placed at (target, k) on ns is bound, or NULL. */
static hwloc_bitmap_t px_map_bind(px_nstate_t *ns, hwloc_obj_t target, int k, px_map_obj_t bind,
                                  int pe)
{
    hwloc_obj_t o = NULL;

    if (pe > 0) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        for (int i = 0; i < pe && set != NULL; i++) {
            if ((o = px_map_take_any(ns, target, false)) == NULL) {
                hwloc_bitmap_free(set);
                return NULL;
            }
            hwloc_bitmap_or(set, set, o->cpuset);
        }
        return set;
    }
    if (bind == PX_MAP_OBJ_NONE)
        return NULL;
    if (k >= (bind == PX_MAP_OBJ_HWTHREAD ? ns->npus : ns->ncores))
        return NULL; /* beyond the node's cores: oversubscribed, not bound */
    if (bind == PX_MAP_OBJ_HWTHREAD) {
        o = (target != NULL && target->type == HWLOC_OBJ_PU) ? target
                                                             : px_map_take_any(ns, target, true);
    } else if (target != NULL && target->type == HWLOC_OBJ_PU) {
        o = hwloc_get_ancestor_obj_by_type(ns->topo, HWLOC_OBJ_CORE, target);
    } else if (target != NULL && target->type == HWLOC_OBJ_CORE) {
        o = target;
    } else if (bind == PX_MAP_OBJ_PACKAGE && target != NULL && target->type == HWLOC_OBJ_PACKAGE) {
        o = target;
    } else {
        o = px_map_take_any(ns, target, false);
    }
    if (o == NULL)
        return NULL;
    if (bind == PX_MAP_OBJ_PACKAGE && o->type != HWLOC_OBJ_PACKAGE) {
        hwloc_obj_t p = hwloc_get_ancestor_obj_by_type(ns->topo, HWLOC_OBJ_PACKAGE, o);
        o = p != NULL ? p : hwloc_get_root_obj(ns->topo);
    }
    return hwloc_bitmap_dup(o->cpuset);
}

/* Sort key for rank-by core/package/hwthread: the logical index of that object holding
 * the process's first PU. O(PUs of the node) (hwloc's lookup by OS index). */
static uint64_t px_map_objkey(const px_nstate_t *ns, const px_place_t *p, px_map_obj_t by)
{
    hwloc_const_bitmap_t set = p->cpuset != NULL   ? p->cpuset
                               : p->target != NULL ? p->target->cpuset
                                                   : NULL;
    hwloc_obj_t pu, o;
    int first;

    if (set == NULL || (first = hwloc_bitmap_first(set)) < 0)
        return UINT32_MAX;
    pu = hwloc_get_pu_obj_by_os_index(ns->topo, (unsigned)first);
    if (pu == NULL)
        return UINT32_MAX;
    o = by == PX_MAP_OBJ_HWTHREAD ? pu
                                  : hwloc_get_ancestor_obj_by_type(ns->topo, px_map_hwtype(by), pu);
    return o != NULL ? o->logical_index : 0;
}

static pmix_status_t px_map_fail(px_mjob_t *m, pmix_status_t code, char *text)
{
    m->err = text;
    return code;
}

/* ---- phase 1: policy ----------------------------------------------------------------
 * In: the job info. Out: pol (map-by slot when absent, :PE from PMIX_CPUS_PER_PROC when
 * the map-by string has none), rankby (NONE = the placement order), bindto and whether
 * it was given (the default depends on the process count: chosen by the capacity phase).
 * A string the parsers refuse: PMIX_ERR_BAD_PARAM. */
static pmix_status_t map_policy(px_mjob_t *m)
{
    const char *s_map = px_map_info_str(m->info, m->ninfo, PMIX_MAPBY);
    const char *s_rank = px_map_info_str(m->info, m->ninfo, PMIX_RANKBY);
    const char *s_bind = px_map_info_str(m->info, m->ninfo, PMIX_BINDTO);
    char bad[64];

    if (m->nnodes == 0)
        return px_map_fail(m, PMIX_ERR_BAD_PARAM, px_help_render("help-prte-map.txt", "no-nodes"));
    if (s_map != NULL && px_map_parse_mapby(s_map, &m->pol, bad, sizeof(bad)) < 0)
        return px_map_fail(m, PMIX_ERR_BAD_PARAM,
                           px_help_render("help-prte-map.txt", "bad-policy", "--map-by", s_map));
    if (s_map == NULL) {
        memset(&m->pol, 0, sizeof(m->pol));
        m->pol.oversubscribe = -1;
    }
    if (m->pol.by == PX_MAP_OBJ_NONE)
        m->pol.by = PX_MAP_OBJ_SLOT;
    for (size_t i = 0; i < m->ninfo && m->pol.pe == 0; i++) {
        if (strcmp(m->info[i].key, PMIX_CPUS_PER_PROC) == 0 && m->info[i].value.type == PMIX_UINT32)
            m->pol.pe = (int)m->info[i].value.data.uint32;
    }
    m->rankby = PX_MAP_OBJ_NONE;
    if (s_rank != NULL && px_map_parse_rankby(s_rank, &m->rankby) < 0)
        return px_map_fail(m, PMIX_ERR_BAD_PARAM,
                           px_help_render("help-prte-map.txt", "bad-policy", "--rank-by", s_rank));
    m->bindto = PX_MAP_OBJ_NONE;
    m->bind_given = s_bind != NULL;
    if (s_bind != NULL && px_map_parse_bindto(s_bind, &m->bindto) < 0)
        return px_map_fail(m, PMIX_ERR_BAD_PARAM,
                           px_help_render("help-prte-map.txt", "bad-policy", "--bind-to", s_bind));
    return PMIX_SUCCESS;
}

/* ---- phase 2: capacity --------------------------------------------------------------- */

/* Node i's state: cores, slots, what the pool leaves free, the cap under the policy.
 * A node without a topology has its slots only (given, else 1): the policies that name
 * hardware objects are refused there (PMIX_ERR_NOT_SUPPORTED, naming the node). */
static pmix_status_t map_node_init(px_mjob_t *m, size_t i, int *free_slots)
{
    const px_map_node_t *nd = &m->nodes[i];
    px_nstate_t *n = &m->ns[i];
    const px_map_policy_t *pol = &m->pol;
    bool given = nd->slots_given || nd->topo == NULL;

    n->topo = nd->topo;
    if (n->topo == NULL) {
        const char *opt = NULL, *val = NULL;
        if (px_map_is_hwobj(pol->by) ||
            (pol->by == PX_MAP_OBJ_PPR && pol->ppr_obj != PX_MAP_OBJ_NODE)) {
            opt = "--map-by";
            val = pol->by == PX_MAP_OBJ_PPR ? px_map_obj_name(pol->ppr_obj)
                                            : px_map_obj_name(pol->by);
        } else if (px_map_is_hwobj(m->rankby)) {
            opt = "--rank-by";
            val = px_map_obj_name(m->rankby);
        }
        if (opt != NULL)
            return px_map_fail(m, PMIX_ERR_NOT_SUPPORTED,
                               px_help_render("help-prte-map.txt", "no-topology", opt, val,
                                              nd->name != NULL ? nd->name : "?"));
    } else {
        n->ncores = hwloc_get_nbobjs_by_type(n->topo, HWLOC_OBJ_CORE);
        n->npus = hwloc_get_nbobjs_by_type(n->topo, HWLOC_OBJ_PU);
        if (n->npus < 1)
            n->npus = 1;
        if (n->ncores < 1)
            n->ncores = n->npus;
    }
    n->slots = px_map_node_slots(nd);
    n->inuse = nd->slots_inuse > 0 ? nd->slots_inuse : 0;
    /* given slots are shared by all the running jobs: this job gets the rest */
    *free_slots = !given ? n->slots : n->slots > n->inuse ? n->slots - n->inuse : 0;
    if (pol->pe > 0 && n->topo != NULL) {
        n->cap = n->ncores / pol->pe;
        if (given && *free_slots < n->cap)
            n->cap = *free_slots;
    } else if (pol->by == PX_MAP_OBJ_PPR) {
        n->cap = pol->ppr_n *
                 (pol->ppr_obj == PX_MAP_OBJ_NODE ? 1 : px_map_nobjs(n->topo, pol->ppr_obj));
    } else {
        /* also :PE=n on a node without topology: its daemon checks the cores */
        n->cap = *free_slots;
    }
    n->hard = -1;
    if (nd->max_slots > 0) {
        n->hard = nd->max_slots > n->inuse ? nd->max_slots - n->inuse : 0;
        if (n->cap > n->hard)
            n->cap = n->hard;
    }
    if (n->topo != NULL) {
        n->core_used = calloc((size_t)n->ncores, sizeof(bool));
        n->pu_used = calloc((size_t)n->npus, sizeof(bool));
        n->core_order = px_map_order(n->topo, HWLOC_OBJ_CORE, n->ncores, nd->inuse_cpus);
        n->pu_order = px_map_order(n->topo, HWLOC_OBJ_PU, n->npus, nd->inuse_cpus);
        if (n->core_used == NULL || n->pu_used == NULL || n->core_order == NULL ||
            n->pu_order == NULL)
            return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}

/* The limited nodes: "n1 (max_slots 4, 2 in use), n2 (max_slots 2, 0 in use)". Malloc'd;
 * NULL when out of memory. */
static char *px_map_limited(const px_map_node_t *nodes, size_t nnodes)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bool first = true;

    if (f == NULL)
        return NULL;
    for (size_t i = 0; i < nnodes; i++) {
        if (nodes[i].max_slots <= 0)
            continue;
        fprintf(f, "%s%s (max_slots %d, %d in use)", first ? "" : ", ", nodes[i].name,
                nodes[i].max_slots, nodes[i].slots_inuse > 0 ? nodes[i].slots_inuse : 0);
        first = false;
    }
    fclose(f);
    return buf;
}

/* Oversubscription allowed: the processes must still fit within the nodes' max_slots
 * (a node without one takes any number). */
static pmix_status_t map_hard_room(px_mjob_t *m)
{
    long room = 0;
    char *limited, *text;

    for (size_t i = 0; i < m->nnodes; i++) {
        if (m->ns[i].hard < 0)
            return PMIX_SUCCESS;
        room += m->ns[i].hard;
    }
    if (m->np <= room)
        return PMIX_SUCCESS;
    if ((limited = px_map_limited(m->nodes, m->nnodes)) == NULL)
        return PMIX_ERR_NOMEM;
    text = px_help_render("help-prte-map.txt", "over-max-slots", (int)m->np, (int)room, limited);
    free(limited);
    return px_map_fail(m, PMIX_ERR_OUT_OF_RESOURCE, text);
}

/* The room check: np processes against the caps; the error names the numbers, the
 * nodes and (with the pool) the jobs holding slots. */
static pmix_status_t map_room(px_mjob_t *m, long total_cap, long total_slots, bool any_given,
                              bool any_held)
{
    const px_map_policy_t *pol = &m->pol;
    bool allow_over = pol->oversubscribe == 1 ||
                      (pol->oversubscribe == -1 && !any_given && pol->by != PX_MAP_OBJ_PPR);
    char *where = NULL, *holders = NULL, *text = NULL;
    pmix_status_t st = PMIX_ERR_OUT_OF_RESOURCE;

    if (m->np <= total_cap || (allow_over && pol->pe == 0))
        return map_hard_room(m);
    if ((where = px_map_where(m->nodes, m->nnodes)) == NULL)
        return PMIX_ERR_NOMEM;
    if (!allow_over && any_held && pol->by != PX_MAP_OBJ_PPR) { /* the DVM-wide limit */
        if ((holders = px_map_holders(m->nodes, m->nnodes)) == NULL)
            st = PMIX_ERR_NOMEM;
        else
            text = px_help_render("help-prte-map.txt", "slots-held", (int)m->np, (int)total_cap,
                                  (int)total_slots, where, holders);
    } else if (pol->pe > 0) {
        long cores = 0;
        for (size_t i = 0; i < m->nnodes; i++)
            cores += m->ns[i].ncores;
        text = px_help_render("help-prte-map.txt", "pe-not-enough-cores", (int)m->np, pol->pe,
                              (int)m->np * pol->pe, (int)cores, where);
    } else if (pol->by == PX_MAP_OBJ_PPR) {
        text = px_help_render("help-prte-map.txt", "ppr-too-many", (int)m->np, pol->ppr_n,
                              px_map_obj_name(pol->ppr_obj), (int)total_cap, where);
    } else {
        text = px_help_render("help-prte-map.txt", "too-many-procs", (int)m->np, (int)total_cap,
                              where);
    }
    free(where);
    free(holders);
    return px_map_fail(m, st, text);
}

/* In: the policy. Out: ns (each node's state and cap), counts (each app's processes:
 * apps[a].maxprocs, or 0 = what the caps leave), np, the default binding (:PE -> core;
 * map-by core/package/hwthread -> it; ppr:N:obj -> obj, package for node; else core
 * for at most 2 processes, package above). Errors: no room (OUT_OF_RESOURCE), an object
 * policy on a node without topology (NOT_SUPPORTED). O(nnodes + cores + napps). */
static pmix_status_t map_capacity(px_mjob_t *m)
{
    long total_cap = 0, total_slots = 0, used = 0;
    bool any_given = false, any_held = false;
    pmix_status_t st;

    if ((m->ns = calloc(m->nnodes, sizeof(*m->ns))) == NULL ||
        (m->counts = calloc(m->napps ? m->napps : 1, sizeof(int))) == NULL)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < m->nnodes; i++) {
        int free_slots;
        bool given = m->nodes[i].slots_given || m->nodes[i].topo == NULL;
        if ((st = map_node_init(m, i, &free_slots)) != PMIX_SUCCESS)
            return st;
        any_given |= given;
        any_held |= given && m->ns[i].inuse > 0;
        total_cap += m->ns[i].cap;
        total_slots += m->ns[i].slots;
    }

    for (size_t a = 0; a < m->napps; a++)
        used += m->apps[a].maxprocs > 0 ? m->apps[a].maxprocs : 0;
    for (size_t a = 0; a < m->napps; a++) {
        if (m->apps[a].maxprocs > 0) {
            m->counts[a] = m->apps[a].maxprocs;
        } else if (total_cap - used > 0) {
            m->counts[a] = (int)(total_cap - used);
            used = total_cap;
        } else if (any_held) {
            char *where = px_map_where(m->nodes, m->nnodes);
            char *holders = px_map_holders(m->nodes, m->nnodes);
            char *text = where != NULL && holders != NULL
                             ? px_help_render("help-prte-map.txt", "no-free-slots-held", (int)a + 1,
                                              (int)total_slots, where, holders)
                             : NULL;
            free(where);
            free(holders);
            return px_map_fail(m, text != NULL ? PMIX_ERR_OUT_OF_RESOURCE : PMIX_ERR_NOMEM, text);
        } else {
            return px_map_fail(
                m, PMIX_ERR_OUT_OF_RESOURCE,
                px_help_render("help-prte-map.txt", "no-free-slots", (int)a + 1, (int)total_cap));
        }
        m->np += m->counts[a];
    }
    if ((st = map_room(m, total_cap, total_slots, any_given, any_held)) != PMIX_SUCCESS)
        return st;

    if (!m->bind_given) {
        const px_map_policy_t *pol = &m->pol;
        if (pol->pe > 0)
            m->bindto = PX_MAP_OBJ_CORE;
        else if (px_map_is_hwobj(pol->by))
            m->bindto = pol->by;
        else if (pol->by == PX_MAP_OBJ_PPR)
            m->bindto = pol->ppr_obj == PX_MAP_OBJ_NODE ? PX_MAP_OBJ_PACKAGE : pol->ppr_obj;
        else
            m->bindto = m->np <= 2 ? PX_MAP_OBJ_CORE : PX_MAP_OBJ_PACKAGE;
    }
    return PMIX_SUCCESS;
}

/* ---- phase 3: placement -------------------------------------------------------------- */

/* Which node takes the next process. */
typedef struct {
    size_t *ring, nring, pos; /* map-by node: the nodes below their cap, in order */
    size_t cur;               /* other policies: no node before it is below its cap */
    size_t rr;                /* beyond every cap: the next node in turn */
} px_cursor_t;

/* The next node, O(1) amortized: map-by node deals one process to each node below its
 * cap in turn (the full ones are dropped from the ring when a round ends, so a round
 * costs what it places); the other policies fill node after node; beyond every cap
 * (oversubscription, allowed by then) one process per node in turn. */
static size_t map_next_node(px_mjob_t *m, px_cursor_t *c)
{
    size_t node;

    if (m->pol.by == PX_MAP_OBJ_NODE) {
        if (c->pos >= c->nring) {
            size_t k = 0;
            for (size_t i = 0; i < c->nring; i++) {
                if (m->ns[c->ring[i]].placed < m->ns[c->ring[i]].cap)
                    c->ring[k++] = c->ring[i];
            }
            c->nring = k;
            c->pos = 0;
        }
        if (c->nring > 0) {
            node = c->ring[c->pos++];
            c->rr = node + 1;
            return node;
        }
    } else {
        while (c->cur < m->nnodes && m->ns[c->cur].placed >= m->ns[c->cur].cap)
            c->cur++;
        if (c->cur < m->nnodes)
            return c->cur;
    }
    /* the room check left a node below its max_slots (or without one) */
    node = c->rr % m->nnodes;
    for (size_t k = 0; k < m->nnodes; k++) {
        node = (c->rr + k) % m->nnodes;
        if (m->ns[node].hard < 0 || m->ns[node].placed < m->ns[node].hard)
            break;
    }
    c->rr = node + 1;
    return node;
}

/* In: ns, counts, the policies. Out: pl, one entry per process in placement order (app
 * after app): its node, its index k among the node's processes, its target object
 * (map-by core/package/hwthread: the k-th; ppr:N:obj: the (k/N)-th obj) and its binding
 * (NULL: not bound, or left to the daemon of a node without topology). O(P + nnodes)
 * node choices; a binding takes cores in O(1) amortized, or O(cores of the node) when
 * it must be inside a target object. */
static pmix_status_t map_place(px_mjob_t *m)
{
    px_cursor_t c = {0};
    const px_map_policy_t *pol = &m->pol;

    if ((m->pl = calloc(m->np ? (size_t)m->np : 1, sizeof(*m->pl))) == NULL ||
        (c.ring = calloc(m->nnodes, sizeof(size_t))) == NULL)
        goto nomem;
    for (size_t i = 0; i < m->nnodes; i++)
        c.ring[c.nring++] = i;
    for (long p = 0; p < m->np; p++) {
        size_t node = map_next_node(m, &c);
        px_nstate_t *n = &m->ns[node];
        px_place_t *pl = &m->pl[p];

        pl->node = (uint32_t)node;
        pl->k = n->placed++;
        if (n->topo == NULL) /* slots only: the node's daemon binds */
            continue;
        if (px_map_is_hwobj(pol->by))
            pl->target = px_map_nth(n, pol->by, pl->k);
        else if (pol->by == PX_MAP_OBJ_PPR && pol->ppr_obj != PX_MAP_OBJ_NODE)
            pl->target = px_map_nth(n, pol->ppr_obj, pl->k / pol->ppr_n);
        pl->cpuset = px_map_bind(n, pl->target, pl->k, m->bindto, pol->pe);
    }
    free(c.ring);
    return PMIX_SUCCESS;
nomem:
    free(c.ring);
    return PMIX_ERR_NOMEM;
}

/* ---- phase 4: ranking ----------------------------------------------------------------- */

typedef struct {
    uint64_t k1, k2;
    size_t p; /* index in pl: the placement order breaks ties */
} px_rkey_t;

static int px_rkey_cmp(const void *a, const void *b)
{
    const px_rkey_t *x = a, *y = b;
    if (x->k1 != y->k1)
        return x->k1 < y->k1 ? -1 : 1;
    if (x->k2 != y->k2)
        return x->k2 < y->k2 ? -1 : 1;
    return x->p < y->p ? -1 : x->p > y->p;
}

/* In: pl. Out: order (rank -> index in pl). Ranks go app after app; within an app the
 * processes are sorted on a key: rank-by slot (node, placement), node (index on its
 * node, node: one per node in turn), core/package/hwthread (node, that object's
 * logical index, placement); no rank-by: the placement order. O(P log P) (plus one
 * hwloc lookup per process for the object keys). */
static pmix_status_t map_rank(px_mjob_t *m)
{
    px_rkey_t *keys;
    size_t np = (size_t)m->np;

    if ((m->order = calloc(np ? np : 1, sizeof(*m->order))) == NULL ||
        (keys = calloc(np ? np : 1, sizeof(*keys))) == NULL)
        return PMIX_ERR_NOMEM;
    for (size_t a = 0, base = 0; a < m->napps; base += (size_t)m->counts[a], a++) {
        size_t cnt = (size_t)m->counts[a];
        for (size_t i = base; i < base + cnt; i++) {
            const px_place_t *pl = &m->pl[i];
            keys[i].p = i;
            if (m->rankby == PX_MAP_OBJ_SLOT) {
                keys[i].k1 = pl->node;
            } else if (m->rankby == PX_MAP_OBJ_NODE) {
                keys[i].k1 = (uint64_t)pl->k;
                keys[i].k2 = pl->node;
            } else if (px_map_is_hwobj(m->rankby)) {
                keys[i].k1 = pl->node;
                keys[i].k2 = px_map_objkey(&m->ns[pl->node], pl, m->rankby);
            }
        }
        if (m->rankby != PX_MAP_OBJ_NONE)
            qsort(&keys[base], cnt, sizeof(*keys), px_rkey_cmp);
        for (size_t i = base; i < base + cnt; i++)
            m->order[i] = keys[i].p;
    }
    free(keys);
    return PMIX_SUCCESS;
}

/* ---- phase 5: naming ------------------------------------------------------------------ */

/* In: pl, order. Out: map->procs in rank order (rank, app, app rank, node, binding
 * moved from pl, deferred binding), local and node ranks (counted per node in rank
 * order), oversubscribed, the policies as applied. O(P + nnodes). */
static pmix_status_t map_name(px_mjob_t *m, px_map_t *map)
{
    const px_map_policy_t *pol = &m->pol;
    bool defer = m->bindto != PX_MAP_OBJ_NONE || pol->pe > 0;
    char polbuf[64];

    map->napps = m->napps;
    map->nprocs = (size_t)m->np;
    map->procs = calloc(m->np ? (size_t)m->np : 1, sizeof(*map->procs));
    map->app_nprocs = calloc(m->napps ? m->napps : 1, sizeof(uint32_t));
    if (map->procs == NULL || map->app_nprocs == NULL)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < m->nnodes; i++)
        m->ns[i].placed = 0;
    for (size_t a = 0, base = 0; a < m->napps; base += (size_t)m->counts[a], a++) {
        map->app_nprocs[a] = (uint32_t)m->counts[a];
        for (size_t i = 0; i < (size_t)m->counts[a]; i++) {
            px_map_proc_t *pr = &map->procs[base + i];
            px_place_t *src = &m->pl[m->order[base + i]];
            pr->rank = (pmix_rank_t)(base + i);
            pr->app = (uint32_t)a;
            pr->app_rank = (pmix_rank_t)i;
            pr->node = src->node;
            pr->cpuset = src->cpuset;
            src->cpuset = NULL;
            pr->bind_deferred = defer && m->ns[pr->node].topo == NULL;
            pr->local_rank = pr->node_rank = (uint16_t)m->ns[pr->node].placed++;
        }
    }
    for (size_t i = 0; i < m->nnodes; i++)
        map->oversubscribed |= m->ns[i].placed + m->ns[i].inuse > m->ns[i].slots;

    if (pol->by == PX_MAP_OBJ_PPR)
        snprintf(polbuf, sizeof(polbuf), "ppr:%d:%s", pol->ppr_n, px_map_obj_name(pol->ppr_obj));
    else
        snprintf(polbuf, sizeof(polbuf), "%s", px_map_obj_name(pol->by));
    if (pol->pe > 0)
        snprintf(polbuf + strlen(polbuf), sizeof(polbuf) - strlen(polbuf), ":PE=%d", pol->pe);
    if (pol->oversubscribe == 1)
        strncat(polbuf, ":OVERSUBSCRIBE", sizeof(polbuf) - strlen(polbuf) - 1);
    else if (pol->oversubscribe == 0)
        strncat(polbuf, ":NOOVERSUBSCRIBE", sizeof(polbuf) - strlen(polbuf) - 1);
    map->bind_obj = m->bindto;
    map->pe = pol->pe;
    map->mapby = strdup(polbuf);
    map->rankby = strdup(m->rankby != PX_MAP_OBJ_NONE ? px_map_obj_name(m->rankby)
                         : pol->by == PX_MAP_OBJ_NODE ? "node"
                                                      : "slot");
    map->bindto = strdup(px_map_obj_name(m->bindto));
    if (map->mapby == NULL || map->rankby == NULL || map->bindto == NULL)
        return PMIX_ERR_NOMEM;
    return PMIX_SUCCESS;
}

pmix_status_t px_map_job(const px_map_node_t *nodes, size_t nnodes, const pmix_app_t *apps,
                         size_t napps, const pmix_info_t *info, size_t ninfo, px_map_t *map,
                         char **msg)
{
    px_mjob_t m = {.nodes = nodes,
                   .nnodes = nnodes,
                   .apps = apps,
                   .napps = napps,
                   .info = info,
                   .ninfo = ninfo};
    pmix_status_t st;

    memset(map, 0, sizeof(*map));
    if (msg != NULL)
        *msg = NULL;
    if ((st = map_policy(&m)) == PMIX_SUCCESS && (st = map_capacity(&m)) == PMIX_SUCCESS &&
        (st = map_place(&m)) == PMIX_SUCCESS && (st = map_rank(&m)) == PMIX_SUCCESS)
        st = map_name(&m, map);

    if (st != PMIX_SUCCESS) {
        px_map_free(map);
        if (msg != NULL)
            *msg = m.err;
        else
            free(m.err);
    }
    for (long p = 0; m.pl != NULL && p < m.np; p++)
        hwloc_bitmap_free(m.pl[p].cpuset);
    for (size_t i = 0; m.ns != NULL && i < nnodes; i++) {
        free(m.ns[i].core_used);
        free(m.ns[i].pu_used);
        free(m.ns[i].core_order);
        free(m.ns[i].pu_order);
    }
    free(m.ns);
    free(m.pl);
    free(m.order);
    free(m.counts);
    return st;
}

void px_map_free(px_map_t *map)
{
    if (map == NULL)
        return;
    for (size_t i = 0; map->procs != NULL && i < map->nprocs; i++)
        hwloc_bitmap_free(map->procs[i].cpuset);
    free(map->procs);
    free(map->app_nprocs);
    free(map->mapby);
    free(map->rankby);
    free(map->bindto);
    memset(map, 0, sizeof(*map));
}

/* ---- display --------------------------------------------------------------------- */

/* "0-3,6" from a list of sorted indices. */
static void px_map_ranges(FILE *f, const int *idx, int n)
{
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && idx[j + 1] == idx[j] + 1)
            j++;
        fprintf(f, "%s%d", i ? "," : "", idx[i]);
        if (j > i)
            fprintf(f, "-%d", idx[j]);
        i = j + 1;
    }
}

/* "package[0][core:0-1]" (hwloc logical indices; hwt: when cores are only partly in
 * the set), packages joined with ",". Malloc'd. */
static char *px_map_describe(hwloc_topology_t topo, hwloc_const_bitmap_t set)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int npk = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE), first = 1;
    int nc = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    int npu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    int *idx = calloc((size_t)(npu > nc ? npu : nc) + 1, sizeof(int));

    if (f == NULL || idx == NULL) {
        if (f != NULL)
            fclose(f);
        free(buf);
        free(idx);
        return NULL;
    }
    for (int p = 0; p < (npk > 0 ? npk : 1); p++) {
        hwloc_obj_t pkg = npk > 0 ? hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, (unsigned)p)
                                  : hwloc_get_root_obj(topo);
        int n = 0;
        bool partial = false;
        if (!hwloc_bitmap_intersects(pkg->cpuset, set))
            continue;
        for (int c = 0; c < nc; c++) {
            hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)c);
            if (!hwloc_bitmap_isincluded(core->cpuset, pkg->cpuset) ||
                !hwloc_bitmap_intersects(core->cpuset, set))
                continue;
            partial |= !hwloc_bitmap_isincluded(core->cpuset, set);
            idx[n++] = (int)core->logical_index;
        }
        if (partial || nc == 0) {
            n = 0;
            for (int u = 0; u < npu; u++) {
                hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)u);
                if (hwloc_bitmap_isincluded(pu->cpuset, pkg->cpuset) &&
                    hwloc_bitmap_isset(set, pu->os_index))
                    idx[n++] = (int)pu->logical_index;
            }
        }
        fprintf(f, "%spackage[%d][%s:", first ? "" : ",", p, partial || nc == 0 ? "hwt" : "core");
        px_map_ranges(f, idx, n);
        fputc(']', f);
        first = 0;
    }
    fclose(f);
    free(idx);
    return buf;
}

char *px_map_binding_line(const px_map_t *map, const px_map_node_t *nodes, pmix_rank_t rank,
                          const char *job)
{
    const px_map_proc_t *p;
    char *where, *line;

    (void)job;
    if (map == NULL || rank >= map->nprocs) {
        errno = EINVAL;
        return NULL;
    }
    p = &map->procs[rank];
    if (p->bind_deferred)
        return px_help_render("help-prte-map.txt", "binding-deferred", nodes[p->node].name,
                              (unsigned)rank, map->bindto != NULL ? map->bindto : "?");
    if (p->cpuset == NULL || nodes[p->node].topo == NULL)
        return px_help_render("help-prte-map.txt", "binding-none", nodes[p->node].name,
                              (unsigned)rank);
    if ((where = px_map_describe(nodes[p->node].topo, p->cpuset)) == NULL)
        return NULL;
    line = px_help_render("help-prte-map.txt", "binding-line", nodes[p->node].name, (unsigned)rank,
                          where);
    free(where);
    return line;
}

static void px_map_put(FILE *f, char *text)
{
    if (text != NULL)
        fputs(text, f);
    free(text);
}

/* A short topic rendered without its final newline (for a %s of another topic). */
static char *px_map_phrase(const char *topic, const char *arg)
{
    char *t = px_help_render("help-prte-map.txt", topic, arg);
    if (t != NULL)
        t[strcspn(t, "\n")] = '\0';
    return t;
}

/* The processes grouped by node, each group in rank order (a counting sort):
 * byrank[first[n] .. first[n + 1]) are node n's ranks. O(P + nnodes). */
static int px_map_group(const px_map_t *map, size_t nnodes, size_t **first, size_t **byrank)
{
    size_t *f = calloc(nnodes + 2, sizeof(size_t)), *b = calloc(map->nprocs + 1, sizeof(size_t));

    if (f == NULL || b == NULL) {
        free(f);
        free(b);
        return -1;
    }
    for (size_t r = 0; r < map->nprocs; r++) {
        if (map->procs[r].node < nnodes)
            f[map->procs[r].node + 2]++;
    }
    for (size_t n = 0; n < nnodes; n++)
        f[n + 2] += f[n + 1];
    for (size_t r = 0; r < map->nprocs; r++) { /* f[n + 1]: the next free place of node n */
        if (map->procs[r].node < nnodes)
            b[f[map->procs[r].node + 1]++] = r;
    }
    *first = f;
    *byrank = b;
    return 0;
}

char *px_map_render(const px_map_t *map, const px_map_node_t *nodes, size_t nnodes, const char *job)
{
    char *buf = NULL, *over = NULL, *unbound = NULL, *deferred = NULL;
    size_t len = 0, *first = NULL, *byrank = NULL;
    FILE *f;

    if (map == NULL || px_map_group(map, nnodes, &first, &byrank) < 0)
        return NULL;
    if ((f = open_memstream(&buf, &len)) == NULL)
        goto out;
    over = px_map_phrase("map-oversubscribed", NULL);
    unbound = px_map_phrase("not-bound", NULL);
    deferred = px_map_phrase("map-deferred", map->bindto != NULL ? map->bindto : "?");
    px_map_put(f, px_help_render("help-prte-map.txt", "map-header", job != NULL ? job : "?",
                                 (unsigned)map->nprocs, (unsigned)nnodes,
                                 map->mapby ? map->mapby : "?", map->rankby ? map->rankby : "?",
                                 map->bindto ? map->bindto : "?"));
    for (size_t n = 0; n < nnodes; n++) {
        int cnt = (int)(first[n + 1] - first[n]), slots = px_map_node_slots(&nodes[n]);
        px_map_put(f, px_help_render("help-prte-map.txt", "map-node", nodes[n].name, slots, cnt,
                                     cnt > slots && over != NULL ? over : ""));
        for (size_t i = first[n]; i < first[n + 1]; i++) {
            const px_map_proc_t *p = &map->procs[byrank[i]];
            char *where = p->cpuset != NULL && nodes[n].topo != NULL
                              ? px_map_describe(nodes[n].topo, p->cpuset)
                              : NULL;
            const char *text = where != NULL ? where : p->bind_deferred ? deferred : unbound;
            px_map_put(f, px_help_render("help-prte-map.txt", "map-proc", (unsigned)p->rank,
                                         (unsigned)p->app, (unsigned)p->local_rank,
                                         text != NULL ? text : ""));
            free(where);
        }
    }
    px_map_put(f, px_help_render("help-prte-map.txt", "map-footer"));
    fclose(f);
out:
    free(over);
    free(unbound);
    free(deferred);
    free(first);
    free(byrank);
    return buf;
}
