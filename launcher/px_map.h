/* launcher: mapping, ranking and binding of a job's processes onto the DVM's nodes
 * (PRRTE's --map-by / --rank-by / --bind-to), with hwloc. Pure computation on the
 * controller's loop; nothing here starts a process.
 *
 * Slots: a node's slot count is what --host h:N, a hostfile or a resource manager gave
 * (slots_given), else the number of cores hwloc finds. When slots were given, placing
 * more processes than slots without :OVERSUBSCRIBE is an error naming both numbers;
 * when nobody gave slots, oversubscription is allowed and the processes beyond the
 * cores are not bound (map->oversubscribed tells).
 *
 * One pool: the caller says what the DVM's running jobs hold on each node (slots_inuse,
 * inuse_cpus, holds). A job is mapped onto what is free: given slots minus the held ones
 * are the limit (the error names the jobs holding the rest), and processes are bound to
 * cores (PUs for hwthread) that no running process is bound to; those beyond the free
 * cores are not bound. Without given slots, a job may still oversubscribe.
 *
 * max_slots (a hostfile's max_slots=M): a hard limit on the node's processes, the running
 * jobs' included; :OVERSUBSCRIBE goes beyond the slots, never beyond max_slots. A job
 * that cannot fit within the limits is refused (help-prte-map.txt over-max-slots, naming
 * each limited node with its limit and what is in use).
 *
 * Many nodes: every policy works across the nodes given, in their order (slot and the
 * object policies fill node after node, node deals one process per node in turn, ranks
 * and local ranks are per the policies below). A node whose topology is not known yet
 * (topo == NULL: a remote node before its daemon reported it) has slots only: its
 * slots count as given (1 when slots <= 0), it takes processes under --map-by slot,
 * node and ppr:N:node and --rank-by slot or node (a policy naming cores, packages or
 * hwthreads is refused with PMIX_ERR_NOT_SUPPORTED naming the node), and its processes
 * are not bound here: each is marked bind_deferred, and the node's daemon computes
 * the binding from map->bind_obj / map->pe and the process's local rank. A node with
 * a topology is mapped exactly like the local node.
 *
 * Cost: O(P log P + nnodes + cores) for P processes (ranking sorts on a key); binding
 * inside a target object (map-by package with bind-to core, ppr, :PE) scans the node's
 * cores: O(P x cores per node) at worst.
 */
#ifndef PX_MAP_H
#define PX_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>
#include <pmix_common.h>

/* The objects of the policies (parsers below). */
typedef enum {
    PX_MAP_OBJ_NONE = 0,
    PX_MAP_OBJ_SLOT,
    PX_MAP_OBJ_NODE,
    PX_MAP_OBJ_PACKAGE,
    PX_MAP_OBJ_CORE,
    PX_MAP_OBJ_HWTHREAD,
    PX_MAP_OBJ_PPR, /* map-by only */
} px_map_obj_t;

/* A running job's share of a node (for the message when slots run out). */
typedef struct {
    const char *job; /* borrowed: its namespace */
    int slots;       /* its processes on the node */
} px_map_hold_t;

typedef struct {
    char *name;            /* borrowed: host name */
    int slots;             /* slot count */
    bool slots_given;      /* from --host/--hostfile/RM (else: hwloc's core count) */
    int max_slots;         /* hostfile max_slots: the node never runs more processes (all
                              jobs, even oversubscribed); 0 = no limit */
    hwloc_topology_t topo; /* borrowed, loaded; NULL = not known yet (slots only) */
    /* what the DVM's running jobs hold here; all zero/NULL = nothing */
    int slots_inuse;                 /* their live processes */
    hwloc_const_bitmap_t inuse_cpus; /* borrowed: the PUs those are bound to; NULL = none */
    const px_map_hold_t *holds;      /* borrowed, nholds: which jobs hold the slots */
    size_t nholds;
} px_map_node_t;

typedef struct {
    pmix_rank_t rank;      /* in the job */
    uint32_t app;          /* index of its app */
    pmix_rank_t app_rank;  /* rank within its app */
    uint32_t node;         /* index into the nodes */
    uint16_t local_rank;   /* among the job's processes on its node */
    uint16_t node_rank;    /* among all the job's processes on the node (same here) */
    hwloc_bitmap_t cpuset; /* owned: where it is bound (what it holds in the DVM's pool);
                              NULL = not bound */
    bool bind_deferred;    /* its node has no topology: the node's daemon binds it (per
                              the map's bind_obj and pe) */
} px_map_proc_t;

typedef struct {
    px_map_proc_t *procs; /* owned, nprocs, indexed by rank */
    size_t nprocs;
    uint32_t *app_nprocs; /* owned, one per app: processes of the app */
    size_t napps;
    bool oversubscribed; /* more processes than slots on some node */
    char *mapby;         /* owned: the policies as applied, PRRTE spellings */
    char *rankby;
    char *bindto;
    px_map_obj_t bind_obj; /* bind-to as applied (NONE, CORE, PACKAGE, HWTHREAD) */
    int pe;                /* :PE=n, cores per process; 0 = none */
} px_map_t;

/* Map a job. Policies come from the job info (PMIX_MAPBY "slot|node|core|package|
 * hwthread|ppr:N:obj" with ":OVERSUBSCRIBE", ":NOOVERSUBSCRIBE", ":PE=n" modifiers;
 * PMIX_RANKBY; PMIX_BINDTO "none|core|package|hwthread"; PMIX_CPUS_PER_PROC); process
 * counts from apps[i].maxprocs (0: as many as the free slots; the node's slots when none
 * were given: no limit then). Free = not held by the nodes' slots_inuse / inuse_cpus.
 * PMIX_SUCCESS, or an
 * error status with *msg set to the rendered help text (what, why, how to fix; the
 * caller frees it). */
pmix_status_t px_map_job(const px_map_node_t *nodes, size_t nnodes, const pmix_app_t *apps,
                         size_t napps, const pmix_info_t *info, size_t ninfo, px_map_t *map,
                         char **msg);
void px_map_free(px_map_t *map);

/* --display map: the map as text in a malloc'd buffer: a header (job, processes, nodes,
 * policies), one line per node (slots, processes, oversubscribed), under it one line
 * per process on it in rank order (rank, app, local rank, binding or "bound by the
 * node's daemon"). O(P + nnodes). NULL when out of memory. */
char *px_map_render(const px_map_t *map, const px_map_node_t *nodes, size_t nnodes,
                    const char *job);

/* --display allocation (launcher/map_alloc.c): the nodes as text in a malloc'd buffer: a
 * header (nodes, slots, in use), one line per node (slots and where they come from,
 * max_slots, slots the running jobs hold). O(nnodes). NULL when out of memory. */
char *px_map_render_alloc(const px_map_node_t *nodes, size_t nnodes);

/* --report-bindings / --display bind: one process's binding line, malloc'd. */
char *px_map_binding_line(const px_map_t *map, const px_map_node_t *nodes, pmix_rank_t rank,
                          const char *job);

/* ---- Policy strings (launcher/map_policy.c; also used by cli/ to validate options) ----
 * Compatible addition to the contract: the parsers px_map_job() itself uses, so that
 * the command line rejects exactly what the mapper would. Case-insensitive; "socket"
 * is accepted for "package". */

typedef struct {
    px_map_obj_t by;      /* PX_MAP_OBJ_NONE when only modifiers were given */
    int ppr_n;            /* ppr:N:obj */
    px_map_obj_t ppr_obj; /* PACKAGE, CORE, HWTHREAD or NODE */
    int oversubscribe;    /* -1 not said, 0 :NOOVERSUBSCRIBE, 1 :OVERSUBSCRIBE */
    int pe;               /* :PE=n, 0 when absent */
} px_map_policy_t;

/* Parse a --map-by value. 0, or -1 with errno = EINVAL and the first part not
 * understood copied into bad (NUL-terminated, truncated to badlen). */
int px_map_parse_mapby(const char *s, px_map_policy_t *p, char *bad, size_t badlen);
/* --rank-by: slot|fill -> SLOT, node|span -> NODE, core, package, hwthread. 0 / -1. */
int px_map_parse_rankby(const char *s, px_map_obj_t *obj);
/* --bind-to: none, core, package, hwthread. 0 / -1. */
int px_map_parse_bindto(const char *s, px_map_obj_t *obj);
/* "slot", "node", "core", "package", "hwthread", "none", "ppr" */
const char *px_map_obj_name(px_map_obj_t obj);

#endif /* PX_MAP_H */
