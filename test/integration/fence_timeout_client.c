/* fence_timeout_client: PMIX_TIMEOUT bounds a fence a participant never joins in time.
 * Rank 0 fences (all ranks, PMIX_TIMEOUT 1) at once; the other ranks join 3 s later with
 * their own 1 s timeout (rank 0 stays connected meanwhile: a participant that has left
 * fails a fence at once instead). Every rank must get PMIX_ERR_TIMEOUT after about its
 * timeout (not at once, not hanging). Started by test/host/pxhost.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "fence_timeout_client: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (me.rank != 0) {
        sleep(3);
    }
    pmix_info_t info;
    int secs = 1;
    PMIx_Info_construct(&info);
    PMIx_Info_load(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
    double t0 = now();
    rc = PMIx_Fence(NULL, 0, &info, 1);
    double took = now() - t0;
    PMIx_Info_destruct(&info);
    if (me.rank == 0) {
        sleep(4); /* until the others' fences have timed out too */
    }
    int ok = rc == PMIX_ERR_TIMEOUT && took > 0.8 && took < 5.0;
    fprintf(stderr, "fence_timeout_client: rank %u: PMIx_Fence returned %s after %.2f s%s\n",
            me.rank, PMIx_Error_string(rc), took,
            ok ? "" : " — expected PMIX_ERR_TIMEOUT after about 1 s");
    PMIx_Finalize(NULL, 0);
    return ok ? 0 : 1;
}
