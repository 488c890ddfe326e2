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

typedef struct {
    hwloc_topology_t topo;
    int ncores, npus, npkgs;
    int slots; /* as used: given, else the core count */
    int inuse; /* slots held by the DVM's running jobs */
    int cap;   /* processes placed before oversubscribing */
    int placed;
    bool *core_used, *pu_used; /* by this job */
    /* logical indices of the cores (PUs): those no running job holds first, then the
     * held ones; the order in which this job takes them */
    int *core_order, *pu_order;
} px_nstate_t;

typedef struct {
    uint32_t node;
    int k; /* index among the processes placed on its node */
    hwloc_obj_t target;
    hwloc_bitmap_t cpuset;
} px_place_t;

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
 * first), marking it used; NULL when none. */
static hwloc_obj_t px_map_take(px_nstate_t *ns, hwloc_obj_t within, bool pu)
{
    hwloc_obj_type_t type = pu ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE;
    bool *used = pu ? ns->pu_used : ns->core_used;
    const int *order = pu ? ns->pu_order : ns->core_order;
    int n = pu ? ns->npus : ns->ncores;

    for (int j = 0; j < n; j++) {
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
 * the process's first PU. */
static int px_map_objkey(const px_nstate_t *ns, const px_place_t *p, px_map_obj_t by)
{
    hwloc_const_bitmap_t set = p->cpuset != NULL   ? p->cpuset
                               : p->target != NULL ? p->target->cpuset
                                                   : NULL;
    hwloc_obj_t pu, o;
    int first;

    if (set == NULL || (first = hwloc_bitmap_first(set)) < 0)
        return 1 << 30;
    pu = hwloc_get_pu_obj_by_os_index(ns->topo, (unsigned)first);
    if (pu == NULL)
        return 1 << 30;
    o = by == PX_MAP_OBJ_HWTHREAD ? pu
                                  : hwloc_get_ancestor_obj_by_type(ns->topo, px_map_hwtype(by), pu);
    return o != NULL ? (int)o->logical_index : 0;
}

static char *px_map_fail(char *text, pmix_status_t *st, pmix_status_t code)
{
    *st = code;
    return text;
}

pmix_status_t px_map_job(const px_map_node_t *nodes, size_t nnodes, const pmix_app_t *apps,
                         size_t napps, const pmix_info_t *info, size_t ninfo, px_map_t *map,
                         char **msg)
{
    px_map_policy_t pol;
    px_map_obj_t rankby = PX_MAP_OBJ_NONE, bindto = PX_MAP_OBJ_NONE;
    const char *s_map = px_map_info_str(info, ninfo, PMIX_MAPBY);
    const char *s_rank = px_map_info_str(info, ninfo, PMIX_RANKBY);
    const char *s_bind = px_map_info_str(info, ninfo, PMIX_BINDTO);
    px_nstate_t *ns = NULL;
    px_place_t *pl = NULL;
    size_t *order = NULL;
    int *counts = NULL;
    long total_cap = 0, total_slots = 0, np = 0, used = 0, free_slots;
    bool any_given = false, any_held = false, allow_over;
    pmix_status_t st = PMIX_SUCCESS;
    char bad[64], *where = NULL, *err = NULL, *holders = NULL;
    size_t cur = 0, rr = 0;
    char polbuf[64];

    memset(map, 0, sizeof(*map));
    if (msg != NULL)
        *msg = NULL;
    if (nnodes == 0) {
        err = px_map_fail(px_help_render("help-prte-map.txt", "no-nodes"), &st, PMIX_ERR_BAD_PARAM);
        goto out;
    }
    if (s_map != NULL && px_map_parse_mapby(s_map, &pol, bad, sizeof(bad)) < 0) {
        err = px_map_fail(px_help_render("help-prte-map.txt", "bad-policy", "--map-by", s_map), &st,
                          PMIX_ERR_BAD_PARAM);
        goto out;
    }
    if (s_map == NULL) {
        memset(&pol, 0, sizeof(pol));
        pol.oversubscribe = -1;
    }
    if (pol.by == PX_MAP_OBJ_NONE)
        pol.by = PX_MAP_OBJ_SLOT;
    for (size_t i = 0; i < ninfo && pol.pe == 0; i++) {
        if (strcmp(info[i].key, PMIX_CPUS_PER_PROC) == 0 && info[i].value.type == PMIX_UINT32)
            pol.pe = (int)info[i].value.data.uint32;
    }
    if (s_rank != NULL && px_map_parse_rankby(s_rank, &rankby) < 0) {
        err = px_map_fail(px_help_render("help-prte-map.txt", "bad-policy", "--rank-by", s_rank),
                          &st, PMIX_ERR_BAD_PARAM);
        goto out;
    }
    if (s_bind != NULL && px_map_parse_bindto(s_bind, &bindto) < 0) {
        err = px_map_fail(px_help_render("help-prte-map.txt", "bad-policy", "--bind-to", s_bind),
                          &st, PMIX_ERR_BAD_PARAM);
        goto out;
    }

    /* the nodes */
    if ((ns = calloc(nnodes, sizeof(*ns))) == NULL)
        goto nomem;
    for (size_t i = 0; i < nnodes; i++) {
        px_nstate_t *n = &ns[i];
        n->topo = nodes[i].topo;
        n->ncores = hwloc_get_nbobjs_by_type(n->topo, HWLOC_OBJ_CORE);
        n->npus = hwloc_get_nbobjs_by_type(n->topo, HWLOC_OBJ_PU);
        n->npkgs = hwloc_get_nbobjs_by_type(n->topo, HWLOC_OBJ_PACKAGE);
        if (n->npus < 1)
            n->npus = 1;
        if (n->ncores < 1)
            n->ncores = n->npus;
        n->slots = nodes[i].slots_given && nodes[i].slots > 0 ? nodes[i].slots : n->ncores;
        n->inuse = nodes[i].slots_inuse > 0 ? nodes[i].slots_inuse : 0;
        /* given slots are shared by all the running jobs: this job gets the rest */
        free_slots = !nodes[i].slots_given ? n->slots
                     : n->slots > n->inuse ? n->slots - n->inuse
                                           : 0;
        any_given |= nodes[i].slots_given;
        any_held |= nodes[i].slots_given && n->inuse > 0;
        if (pol.pe > 0) {
            n->cap = n->ncores / pol.pe;
            if (nodes[i].slots_given && free_slots < n->cap)
                n->cap = free_slots;
        } else if (pol.by == PX_MAP_OBJ_PPR) {
            n->cap = pol.ppr_n *
                     (pol.ppr_obj == PX_MAP_OBJ_NODE ? 1 : px_map_nobjs(n->topo, pol.ppr_obj));
        } else {
            n->cap = free_slots;
        }
        total_cap += n->cap;
        total_slots += n->slots;
        n->core_used = calloc((size_t)n->ncores, sizeof(bool));
        n->pu_used = calloc((size_t)n->npus, sizeof(bool));
        n->core_order = px_map_order(n->topo, HWLOC_OBJ_CORE, n->ncores, nodes[i].inuse_cpus);
        n->pu_order = px_map_order(n->topo, HWLOC_OBJ_PU, n->npus, nodes[i].inuse_cpus);
        if (n->core_used == NULL || n->pu_used == NULL || n->core_order == NULL ||
            n->pu_order == NULL)
            goto nomem;
    }

    /* process counts; maxprocs 0 = the free slots */
    if ((counts = calloc(napps ? napps : 1, sizeof(int))) == NULL)
        goto nomem;
    for (size_t a = 0; a < napps; a++)
        used += apps[a].maxprocs > 0 ? apps[a].maxprocs : 0;
    for (size_t a = 0; a < napps; a++) {
        if (apps[a].maxprocs > 0) {
            counts[a] = apps[a].maxprocs;
        } else if (total_cap - used > 0) {
            counts[a] = (int)(total_cap - used);
            used = total_cap;
        } else if (any_held) {
            if ((where = px_map_where(nodes, nnodes)) == NULL ||
                (holders = px_map_holders(nodes, nnodes)) == NULL)
                goto nomem;
            err = px_map_fail(px_help_render("help-prte-map.txt", "no-free-slots-held", (int)a + 1,
                                             (int)total_slots, where, holders),
                              &st, PMIX_ERR_OUT_OF_RESOURCE);
            goto out;
        } else {
            err = px_map_fail(
                px_help_render("help-prte-map.txt", "no-free-slots", (int)a + 1, (int)total_cap),
                &st, PMIX_ERR_OUT_OF_RESOURCE);
            goto out;
        }
        np += counts[a];
    }

    /* enough room? */
    allow_over = pol.oversubscribe == 1 ||
                 (pol.oversubscribe == -1 && !any_given && pol.by != PX_MAP_OBJ_PPR);
    if (np > total_cap) {
        if ((where = px_map_where(nodes, nnodes)) == NULL)
            goto nomem;
        if (!allow_over && any_held && pol.by != PX_MAP_OBJ_PPR) { /* the DVM-wide limit */
            if ((holders = px_map_holders(nodes, nnodes)) == NULL)
                goto nomem;
            err = px_map_fail(px_help_render("help-prte-map.txt", "slots-held", (int)np,
                                             (int)total_cap, (int)total_slots, where, holders),
                              &st, PMIX_ERR_OUT_OF_RESOURCE);
            goto out;
        }
        if (pol.pe > 0) {
            long cores = 0;
            for (size_t i = 0; i < nnodes; i++)
                cores += ns[i].ncores;
            err = px_map_fail(px_help_render("help-prte-map.txt", "pe-not-enough-cores", (int)np,
                                             pol.pe, (int)np * pol.pe, (int)cores, where),
                              &st, PMIX_ERR_OUT_OF_RESOURCE);
            goto out;
        }
        if (!allow_over && pol.by == PX_MAP_OBJ_PPR) {
            err =
                px_map_fail(px_help_render("help-prte-map.txt", "ppr-too-many", (int)np, pol.ppr_n,
                                           px_map_obj_name(pol.ppr_obj), (int)total_cap, where),
                            &st, PMIX_ERR_OUT_OF_RESOURCE);
            goto out;
        }
        if (!allow_over) {
            err = px_map_fail(px_help_render("help-prte-map.txt", "too-many-procs", (int)np,
                                             (int)total_cap, where),
                              &st, PMIX_ERR_OUT_OF_RESOURCE);
            goto out;
        }
    }

    /* default binding */
    if (s_bind == NULL) {
        if (pol.pe > 0)
            bindto = PX_MAP_OBJ_CORE;
        else if (pol.by == PX_MAP_OBJ_CORE || pol.by == PX_MAP_OBJ_PACKAGE ||
                 pol.by == PX_MAP_OBJ_HWTHREAD)
            bindto = pol.by;
        else if (pol.by == PX_MAP_OBJ_PPR)
            bindto = pol.ppr_obj == PX_MAP_OBJ_NODE ? PX_MAP_OBJ_PACKAGE : pol.ppr_obj;
        else
            bindto = np <= 2 ? PX_MAP_OBJ_CORE : PX_MAP_OBJ_PACKAGE;
    }

    /* place, app after app */
    map->napps = napps;
    map->nprocs = (size_t)np;
    map->procs = calloc(np ? (size_t)np : 1, sizeof(*map->procs));
    map->app_nprocs = calloc(napps ? napps : 1, sizeof(uint32_t));
    pl = calloc(np ? (size_t)np : 1, sizeof(*pl));
    order = calloc(np ? (size_t)np : 1, sizeof(*order));
    if (map->procs == NULL || map->app_nprocs == NULL || pl == NULL || order == NULL)
        goto nomem;
    for (long p = 0; p < np; p++) {
        size_t node = 0;
        bool found = false;
        px_nstate_t *n;

        if (pol.by == PX_MAP_OBJ_NODE) {
            for (size_t t = 0; t < nnodes && !found; t++) {
                node = (rr + t) % nnodes;
                found = ns[node].placed < ns[node].cap;
            }
            if (found)
                rr = node + 1;
        } else {
            while (cur < nnodes && ns[cur].placed >= ns[cur].cap)
                cur++;
            found = cur < nnodes;
            node = cur;
        }
        if (!found) { /* oversubscribing (allowed: checked above) */
            node = rr % nnodes;
            rr = node + 1;
        }
        n = &ns[node];
        pl[p].node = (uint32_t)node;
        pl[p].k = n->placed++;
        switch (pol.by) {
        case PX_MAP_OBJ_CORE:
        case PX_MAP_OBJ_PACKAGE:
        case PX_MAP_OBJ_HWTHREAD:
            pl[p].target = px_map_nth(n, pol.by, pl[p].k);
            break;
        case PX_MAP_OBJ_PPR:
            if (pol.ppr_obj == PX_MAP_OBJ_NODE)
                pl[p].target = NULL;
            else
                pl[p].target = px_map_nth(n, pol.ppr_obj, pl[p].k / pol.ppr_n);
            break;
        default:
            pl[p].target = NULL;
        }
        pl[p].cpuset = px_map_bind(n, pl[p].target, pl[p].k, bindto, pol.pe);
    }

    /* rank, app after app */
    for (size_t a = 0, base = 0; a < napps; base += (size_t)counts[a], a++) {
        size_t cnt = (size_t)counts[a];
        for (size_t i = 0; i < cnt; i++)
            order[base + i] = base + i;
        if (rankby == PX_MAP_OBJ_SLOT || rankby == PX_MAP_OBJ_CORE ||
            rankby == PX_MAP_OBJ_PACKAGE || rankby == PX_MAP_OBJ_HWTHREAD) {
            /* stable insertion sort by (node, object) */
            for (size_t i = 1; i < cnt; i++) {
                size_t v = order[base + i], j = i;
                while (j > 0) {
                    const px_place_t *x = &pl[order[base + j - 1]], *y = &pl[v];
                    int kx = rankby == PX_MAP_OBJ_SLOT ? 0 : px_map_objkey(&ns[x->node], x, rankby);
                    int ky = rankby == PX_MAP_OBJ_SLOT ? 0 : px_map_objkey(&ns[y->node], y, rankby);
                    if (x->node < y->node || (x->node == y->node && kx <= ky))
                        break;
                    order[base + j] = order[base + j - 1];
                    j--;
                }
                order[base + j] = v;
            }
        } else if (rankby == PX_MAP_OBJ_NODE) {
            /* round-robin over the nodes, each node's processes in placement order */
            size_t out = 0, *tmp = malloc(cnt * sizeof(size_t) + 1);
            bool *taken = calloc(cnt + 1, sizeof(bool));
            if (tmp == NULL || taken == NULL) {
                free(tmp);
                free(taken);
                goto nomem;
            }
            while (out < cnt) {
                for (size_t nd = 0; nd < nnodes; nd++) {
                    for (size_t i = 0; i < cnt; i++) {
                        if (!taken[i] && pl[base + i].node == nd) {
                            taken[i] = true;
                            tmp[out++] = base + i;
                            break;
                        }
                    }
                }
            }
            memcpy(&order[base], tmp, cnt * sizeof(size_t));
            free(tmp);
            free(taken);
        }
        map->app_nprocs[a] = (uint32_t)cnt;
        for (size_t i = 0; i < cnt; i++) {
            px_map_proc_t *pr = &map->procs[base + i];
            px_place_t *src = &pl[order[base + i]];
            pr->rank = (pmix_rank_t)(base + i);
            pr->app = (uint32_t)a;
            pr->app_rank = (pmix_rank_t)i;
            pr->node = src->node;
            pr->cpuset = src->cpuset;
            src->cpuset = NULL;
        }
    }
    for (size_t i = 0; i < nnodes; i++)
        ns[i].placed = 0;
    for (size_t r = 0; r < map->nprocs; r++) {
        px_map_proc_t *pr = &map->procs[r];
        pr->local_rank = pr->node_rank = (uint16_t)ns[pr->node].placed++;
    }
    for (size_t i = 0; i < nnodes; i++)
        map->oversubscribed |= ns[i].placed + ns[i].inuse > ns[i].slots;

    /* the policies as applied */
    if (pol.by == PX_MAP_OBJ_PPR)
        snprintf(polbuf, sizeof(polbuf), "ppr:%d:%s", pol.ppr_n, px_map_obj_name(pol.ppr_obj));
    else
        snprintf(polbuf, sizeof(polbuf), "%s", px_map_obj_name(pol.by));
    if (pol.pe > 0)
        snprintf(polbuf + strlen(polbuf), sizeof(polbuf) - strlen(polbuf), ":PE=%d", pol.pe);
    if (pol.oversubscribe == 1)
        strncat(polbuf, ":OVERSUBSCRIBE", sizeof(polbuf) - strlen(polbuf) - 1);
    else if (pol.oversubscribe == 0)
        strncat(polbuf, ":NOOVERSUBSCRIBE", sizeof(polbuf) - strlen(polbuf) - 1);
    map->mapby = strdup(polbuf);
    map->rankby = strdup(rankby != PX_MAP_OBJ_NONE   ? px_map_obj_name(rankby)
                         : pol.by == PX_MAP_OBJ_NODE ? "node"
                                                     : "slot");
    map->bindto = strdup(px_map_obj_name(bindto));
    if (map->mapby == NULL || map->rankby == NULL || map->bindto == NULL)
        goto nomem;
    goto out;

nomem:
    st = PMIX_ERR_NOMEM;
out:
    if (st != PMIX_SUCCESS) {
        px_map_free(map);
        if (msg != NULL)
            *msg = err;
        else
            free(err);
    }
    for (long p = 0; pl != NULL && p < np; p++)
        hwloc_bitmap_free(pl[p].cpuset);
    for (size_t i = 0; ns != NULL && i < nnodes; i++) {
        free(ns[i].core_used);
        free(ns[i].pu_used);
        free(ns[i].core_order);
        free(ns[i].pu_order);
    }
    free(ns);
    free(pl);
    free(order);
    free(counts);
    free(where);
    free(holders);
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
    if (p->cpuset == NULL)
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

char *px_map_display(const px_map_t *map, const px_map_node_t *nodes, size_t nnodes,
                     const char *job)
{
    char *buf = NULL, *over, *unbound;
    size_t len = 0;
    FILE *f;

    if (map == NULL || (f = open_memstream(&buf, &len)) == NULL)
        return NULL;
    over = px_help_render("help-prte-map.txt", "map-oversubscribed");
    unbound = px_help_render("help-prte-map.txt", "not-bound");
    if (over != NULL)
        over[strcspn(over, "\n")] = '\0';
    if (unbound != NULL)
        unbound[strcspn(unbound, "\n")] = '\0';
    px_map_put(f, px_help_render("help-prte-map.txt", "map-header", job != NULL ? job : "?",
                                 (unsigned)map->nprocs, (unsigned)nnodes,
                                 map->mapby ? map->mapby : "?", map->rankby ? map->rankby : "?",
                                 map->bindto ? map->bindto : "?"));
    for (size_t n = 0; n < nnodes; n++) {
        int cnt = 0;
        for (size_t r = 0; r < map->nprocs; r++)
            cnt += map->procs[r].node == n;
        px_map_put(
            f, px_help_render(
                   "help-prte-map.txt", "map-node", nodes[n].name,
                   nodes[n].slots_given ? nodes[n].slots
                                        : hwloc_get_nbobjs_by_type(nodes[n].topo, HWLOC_OBJ_CORE),
                   cnt,
                   cnt > 0 && over != NULL &&
                           cnt > (nodes[n].slots_given
                                      ? nodes[n].slots
                                      : hwloc_get_nbobjs_by_type(nodes[n].topo, HWLOC_OBJ_CORE))
                       ? over
                       : ""));
        for (size_t r = 0; r < map->nprocs; r++) {
            const px_map_proc_t *p = &map->procs[r];
            char *where;
            if (p->node != n)
                continue;
            where = p->cpuset != NULL ? px_map_describe(nodes[n].topo, p->cpuset) : NULL;
            px_map_put(f, px_help_render("help-prte-map.txt", "map-proc", (unsigned)p->rank,
                                         (unsigned)p->app, (unsigned)p->local_rank,
                                         where != NULL ? where : (unbound ? unbound : "")));
            free(where);
        }
    }
    px_map_put(f, px_help_render("help-prte-map.txt", "map-footer"));
    free(over);
    free(unbound);
    fclose(f);
    return buf;
}
