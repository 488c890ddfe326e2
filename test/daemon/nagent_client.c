/* test client of nagent_check's "facts" case: PMIx_Init, then one line with what its
 * server registered for it and its job (node facts, its place, a peer's node, its
 * binding), then PMIx_Finalize. Public API only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

static pmix_proc_t me;

static pmix_value_t *get(pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIx_Load_procid(&p, me.nspace, rank);
    return PMIx_Get(&p, key, NULL, 0, &v) == PMIX_SUCCESS ? v : NULL;
}

static long num(pmix_rank_t rank, const char *key)
{
    uint32_t n = 0;
    pmix_value_t *v = get(rank, key);
    if (v == NULL || PMIx_Value_get_number(v, &n, PMIX_UINT32) != PMIX_SUCCESS) {
        n = 0;
        if (v == NULL) {
            return -1;
        }
    }
    PMIx_Value_free(v, 1);
    return (long)n;
}

static const char *str(pmix_rank_t rank, const char *key, char *buf, size_t len)
{
    pmix_value_t *v = get(rank, key);
    snprintf(buf, len, "%s", v != NULL && v->type == PMIX_STRING ? v->data.string : "-");
    if (v != NULL) {
        PMIx_Value_free(v, 1);
    }
    return buf;
}

int main(int argc, char **argv)
{
    pmix_rank_t peer = argc > 1 ? (pmix_rank_t)atoi(argv[1]) : 0;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        printf("init failed\n");
        return 1;
    }
    pmix_rank_t wild = PMIX_RANK_WILDCARD;
    char host[64], peers[64], phost[64], cpuset[128], allowed[128] = "-";
    pmix_value_t *over = get(wild, PMIX_NODE_OVERSUBSCRIBED);
    FILE *f = fopen("/proc/self/status", "r");
    char line[512];
    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        if (sscanf(line, "Cpus_allowed_list: %127s", allowed) == 1) {
            break;
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    printf("rank %u nnodes %ld nodeid %ld/%ld lsize %ld nsize %ld peers %s lrank %ld nrank %ld "
           "host %s over %d peer %u on %s/%ld cpuset %s allowed %s\n",
           me.rank, num(wild, PMIX_NUM_NODES), num(wild, PMIX_NODEID), num(me.rank, PMIX_NODEID),
           num(wild, PMIX_LOCAL_SIZE), num(wild, PMIX_NODE_SIZE),
           str(wild, PMIX_LOCAL_PEERS, peers, sizeof(peers)), num(me.rank, PMIX_LOCAL_RANK),
           num(me.rank, PMIX_NODE_RANK), str(me.rank, PMIX_HOSTNAME, host, sizeof(host)),
           over != NULL && over->type == PMIX_BOOL ? (int)over->data.flag : -1, peer,
           str(peer, PMIX_HOSTNAME, phost, sizeof(phost)), num(peer, PMIX_NODEID),
           str(me.rank, PMIX_CPUSET, cpuset, sizeof(cpuset)), allowed);
    fflush(stdout);
    if (over != NULL) {
        PMIx_Value_free(over, 1);
    }
    PMIx_Finalize(NULL, 0);
    return 0;
}
