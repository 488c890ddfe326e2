/* launcher: the DVM's one pool of resources — what its running jobs hold on each node
 * (live processes, the PUs they are bound to, per job, their node ranks), for
 * px_map_job (px_map.h) and the node ranks of a new job. Controller loop only.
 */
#include <errno.h>
#include <stdlib.h>

#include "launcher/dvm_int.h"
#include "launcher/px_daemons.h"
#include <string.h>

/* A process holds its slot, its binding and its node rank from its mapping until it
 * is reaped. */
static bool holds(const px_proc_t *p)
{
    return p->state != PX_PROC_DONE;
}

int px_pool_get(px_dvm_t *dvm, px_pool_t *pool)
{
    return px_pool_get_on(dvm, pool, NULL);
}

int px_pool_get_on(px_dvm_t *dvm, px_pool_t *pool, const bool *use)
{
    size_t njobs = 0, nd = dvm->nnodes_used, nn = 0;
    int *index_of = calloc(nd ? nd : 1, sizeof(*index_of)); /* daemon id -> pool index */

    *pool = (px_pool_t){0};
    for (px_job_t *j = dvm->jobs; j != NULL; j = j->next)
        njobs++;
    pool->ids = calloc(nd ? nd : 1, sizeof(*pool->ids));
    if (index_of == NULL || pool->ids == NULL)
        goto nomem;
    /* the nodes whose daemon is up: a lost daemon's node takes nothing any more */
    for (size_t id = 0; id < nd; id++) {
        index_of[id] = -1;
        if (px_daemons_up(dvm->daemons, (unsigned)id) && (use == NULL || use[id])) {
            index_of[id] = (int)nn;
            pool->ids[nn++] = (unsigned)id;
        }
    }
    pool->nnodes = nn;
    pool->nodes = calloc(nn ? nn : 1, sizeof(*pool->nodes));
    pool->cpus = calloc(nn ? nn : 1, sizeof(*pool->cpus));
    pool->holds = calloc((nn ? nn : 1) * (njobs + 1), sizeof(*pool->holds));
    pool->used = calloc(nn ? nn : 1, sizeof(*pool->used));
    pool->nused = calloc(nn ? nn : 1, sizeof(*pool->nused));
    if (pool->nodes == NULL || pool->cpus == NULL || pool->holds == NULL || pool->used == NULL ||
        pool->nused == NULL)
        goto nomem;
    for (size_t n = 0; n < nn; n++) {
        pool->nodes[n] = dvm->nodes[pool->ids[n]];
        pool->nodes[n].holds = &pool->holds[n * (njobs + 1)];
        if ((pool->cpus[n] = hwloc_bitmap_alloc()) == NULL)
            goto nomem;
        pool->nodes[n].inuse_cpus = pool->cpus[n];
    }
    for (px_job_t *j = dvm->jobs; j != NULL; j = j->next) {
        for (size_t r = 0; r < j->nprocs; r++) {
            const px_map_proc_t *mp = &j->map.procs[r];
            if (!holds(&j->procs[r]) || mp->node >= nd || index_of[mp->node] < 0)
                continue;
            size_t n = (size_t)index_of[mp->node];
            px_map_node_t *node = &pool->nodes[n];
            size_t k = node->nholds;
            /* debugger daemons hold no slot and no CPU, only their node rank */
            bool takes = !px_dbg_is_daemons(j);
            if (takes && (k == 0 || node->holds[k - 1].job != j->nspace)) {
                pool->holds[n * (njobs + 1) + k] = (px_map_hold_t){.job = j->nspace};
                node->nholds = ++k;
            }
            if (takes) {
                pool->holds[n * (njobs + 1) + k - 1].slots++;
                node->slots_inuse++;
            }
            if (takes && mp->cpuset != NULL)
                hwloc_bitmap_or(pool->cpus[n], pool->cpus[n], mp->cpuset);
            if (mp->node_rank >= pool->nused[n]) {
                size_t cap = (size_t)mp->node_rank + 1;
                bool *u = realloc(pool->used[n], cap * sizeof(*u));
                if (u == NULL)
                    goto nomem;
                for (size_t i = pool->nused[n]; i < cap; i++)
                    u[i] = false;
                pool->used[n] = u;
                pool->nused[n] = cap;
            }
            pool->used[n][mp->node_rank] = true;
        }
    }
    free(index_of);
    return 0;

nomem:
    free(index_of);
    px_pool_put(pool);
    errno = ENOMEM;
    return -1;
}

void px_pool_put(px_pool_t *pool)
{
    if (pool == NULL)
        return;
    for (size_t n = 0; n < pool->nnodes; n++) {
        if (pool->cpus != NULL)
            hwloc_bitmap_free(pool->cpus[n]);
        if (pool->used != NULL)
            free(pool->used[n]);
    }
    free(pool->cpus);
    free(pool->used);
    free(pool->nused);
    free(pool->holds);
    free(pool->nodes);
    free(pool->ids);
    *pool = (px_pool_t){0};
}

int px_pool_max_slots(const px_host_t *hosts, size_t nhosts, const char *hostname)
{
    int sum = 0;

    for (size_t i = 0; i < nhosts; i++) {
        int max = 0;
        bool first = true;
        if (!px_daemons_is_here(hosts[i].name, hostname))
            continue;
        for (size_t k = 0; k < nhosts; k++) { /* the name's limit, counted at its first entry */
            if (strcmp(hosts[k].name, hosts[i].name) != 0)
                continue;
            first = first && k >= i;
            if (hosts[k].max_slots > 0)
                max = hosts[k].max_slots;
        }
        if (!first)
            continue;
        if (max == 0)
            return 0;
        sum += max;
    }
    return sum;
}
