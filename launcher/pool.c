/* launcher: the DVM's one pool of resources — what its running jobs hold on the node
 * (live processes, the PUs they are bound to, per job), for px_map_job (px_map.h).
 * Controller loop only.
 */
#include <errno.h>
#include <stdlib.h>

#include "launcher/dvm_int.h"
#include "launcher/px_daemons.h"
#include <string.h>

/* A process holds its slot and its binding from its mapping until it is reaped. */
static bool holds(const px_proc_t *p)
{
    return p->state != PX_PROC_DONE;
}

int px_pool_get(px_dvm_t *dvm, px_pool_t *pool)
{
    size_t njobs = 0, k = 0;

    pool->node = dvm->node;
    pool->holds = NULL;
    pool->cpus = hwloc_bitmap_alloc();
    if (pool->cpus == NULL)
        goto nomem;
    for (px_job_t *j = dvm->jobs; j != NULL; j = j->next)
        njobs++;
    if ((pool->holds = calloc(njobs + 1, sizeof(*pool->holds))) == NULL)
        goto nomem;
    for (px_job_t *j = dvm->jobs; j != NULL; j = j->next) {
        int n = 0;
        for (size_t r = 0; r < j->nprocs; r++) {
            if (!holds(&j->procs[r]))
                continue;
            n++;
            if (j->map.procs[r].cpuset != NULL)
                hwloc_bitmap_or(pool->cpus, pool->cpus, j->map.procs[r].cpuset);
        }
        if (n > 0) {
            pool->holds[k].job = j->nspace;
            pool->holds[k++].slots = n;
            pool->node.slots_inuse += n;
        }
    }
    pool->node.holds = pool->holds;
    pool->node.nholds = k;
    pool->node.inuse_cpus = pool->cpus;
    return 0;

nomem:
    px_pool_put(pool);
    errno = ENOMEM;
    return -1;
}

void px_pool_put(px_pool_t *pool)
{
    if (pool == NULL)
        return;
    hwloc_bitmap_free(pool->cpus);
    free(pool->holds);
    pool->cpus = NULL;
    pool->holds = NULL;
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
