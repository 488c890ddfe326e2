/* dvm_locality - the client of t_topology.sh: what a launched process learns about its
 * binding and locality. Public PMIx API (plus hwloc to read the topology it is given).
 * Prints one line:
 *   loc rank R cpuset=<PMIX_CPUSET> locstr=<PMIX_LOCALITY_STRING> mine=<PMIx_Get_cpuset,
 *   process> thread=<the same, calling thread> allowed=<Cpus_allowed_list of
 *   /proc/self/status> lcpus=<PMIX_LOCAL_CPUSETS> rel0=<PMIx_Get_relative_locality with
 *   rank 0, hex> pus=<PUs of PMIx_Load_topology's topology> caches=<its caches>
 * A value that cannot be had is "ERR:<status>". Exit 0 after finalize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <pmix.h>

static pmix_proc_t me;

/* A string key of rank (PMIX_RANK_WILDCARD for the node/job realm), malloc'd. */
static char *get_str(pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    char *out = NULL;
    PMIx_Load_procid(&p, me.nspace, rank);
    pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc == PMIX_SUCCESS && v->type == PMIX_STRING) {
        out = strdup(v->data.string);
    } else if (asprintf(&out, "ERR:%s", rc == PMIX_SUCCESS ? "type" : PMIx_Error_string(rc)) < 0) {
        out = NULL;
    }
    if (v != NULL) {
        PMIx_Value_free(v, 1);
    }
    return out;
}

static char *my_cpuset(pmix_bind_envelope_t ref)
{
    pmix_cpuset_t c;
    char *out = NULL;
    PMIx_Cpuset_construct(&c);
    pmix_status_t rc = PMIx_Get_cpuset(&c, ref);
    if (rc != PMIX_SUCCESS || hwloc_bitmap_list_asprintf(&out, c.bitmap) < 0) {
        if (asprintf(&out, "ERR:%s", PMIx_Error_string(rc)) < 0) {
            out = NULL;
        }
    }
    PMIx_Cpuset_destruct(&c);
    return out;
}

static char *allowed(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[512];
    char *out = NULL;
    while (f != NULL && out == NULL && fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
            char *s = line + 18;
            s += strspn(s, " \t");
            s[strcspn(s, "\n")] = '\0';
            out = strdup(s);
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    return out;
}

int main(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "dvm_locality: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 99;
    }
    char *cpuset = get_str(me.rank, PMIX_CPUSET);
    char *locstr = get_str(me.rank, PMIX_LOCALITY_STRING);
    char *loc0 = get_str(0, PMIX_LOCALITY_STRING);
    char *lcpus = get_str(PMIX_RANK_WILDCARD, PMIX_LOCAL_CPUSETS);
    char *mine = my_cpuset(PMIX_CPUBIND_PROCESS);
    char *thread = my_cpuset(PMIX_CPUBIND_THREAD);
    char *al = allowed();
    pmix_locality_t rel = 0;
    rc = PMIx_Get_relative_locality(locstr, loc0, &rel);
    pmix_topology_t topo;
    PMIx_Topology_construct(&topo);
    int pus = -1, caches = -1;
    if (PMIx_Load_topology(&topo) == PMIX_SUCCESS) {
        pus = hwloc_get_nbobjs_by_type(topo.topology, HWLOC_OBJ_PU);
        caches = 0;
        for (hwloc_obj_type_t t = HWLOC_OBJ_L1CACHE; t <= HWLOC_OBJ_L3ICACHE; t++) {
            caches += hwloc_get_nbobjs_by_type(topo.topology, t);
        }
    }
    printf("loc rank %u cpuset=%s locstr=%s mine=%s thread=%s allowed=%s lcpus=%s rel0=%s%x "
           "pus=%d caches=%d\n",
           me.rank, cpuset, locstr, mine, thread, al, lcpus,
           rc == PMIX_SUCCESS ? "" : "ERR:", (unsigned)rel, pus, caches);
    PMIx_Topology_destruct(&topo);
    free(cpuset);
    free(locstr);
    free(loc0);
    free(lcpus);
    free(mine);
    free(thread);
    free(al);
    rc = PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS ? 0 : 98;
}
