/* test/pmi: the PMIx side of a job that mixes PMIx and PMI processes (t_pmi_wire.sh,
 * with pmi_raw's "mixed" mode): put "k<rank>" = "v<rank>", commit, fence collecting the
 * data (the PMI processes' barrier meets it), then get every rank's key — the PMI
 * processes' puts among them — and print "pmix rank R got N of N". Exit 2 on a failure.
 */
#include <pmix.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    pmix_proc_t me, peer;
    pmix_value_t *v = NULL;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        printf("FAIL PMIx_Init\n");
        return 2;
    }
    PMIx_Load_procid(&peer, me.nspace, PMIX_RANK_WILDCARD);
    uint32_t size = 0;
    if (PMIx_Get(&peer, PMIX_JOB_SIZE, NULL, 0, &v) == PMIX_SUCCESS) {
        PMIx_Value_get_number(v, &size, PMIX_UINT32);
        PMIx_Value_free(v, 1);
    }
    char key[32], val[32];
    snprintf(key, sizeof(key), "k%u", me.rank);
    snprintf(val, sizeof(val), "v%u", me.rank);
    pmix_value_t mine;
    PMIx_Value_construct(&mine);
    PMIx_Value_load(&mine, val, PMIX_STRING);
    int bad = PMIx_Put(PMIX_GLOBAL, key, &mine) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS;
    PMIx_Value_destruct(&mine);
    bool yes = true;
    pmix_info_t collect;
    PMIx_Info_load(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(NULL, 0, &collect, 1);
    PMIx_Info_destruct(&collect);
    if (rc != PMIX_SUCCESS) {
        printf("FAIL PMIx_Fence: %s\n", PMIx_Error_string(rc));
        bad = 1;
    }
    unsigned got = 0;
    for (uint32_t r = 0; r < size; r++) {
        PMIx_Load_procid(&peer, me.nspace, r);
        snprintf(key, sizeof(key), "k%u", r);
        snprintf(val, sizeof(val), "v%u", r);
        v = NULL;
        rc = PMIx_Get(&peer, key, NULL, 0, &v);
        if (rc == PMIX_SUCCESS && v->type == PMIX_STRING && strcmp(v->data.string, val) == 0) {
            got++;
        } else {
            printf("FAIL get %s of rank %u: %s\n", key, r, PMIx_Error_string(rc));
        }
        if (v != NULL) {
            PMIx_Value_free(v, 1);
        }
    }
    printf("pmix rank %u got %u of %u\n", me.rank, got, size);
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return bad || got != size ? 2 : 0;
}
