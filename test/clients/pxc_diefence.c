/*
 * pxc_diefence.c - rank 1 dies without PMIx_Finalize, either right after entering a fence
 * (--mode in-fence: PMIx_Fence_nb then _exit) or before entering it (--mode before-fence),
 * after a start-up fence that all ranks pass.
 * The other ranks then fence over the whole job: it must fail, not hang and not succeed.
 * Usage: pxc_diefence [--mode in-fence|before-fence]   (needs at least 2 ranks)
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pxc_common.h"

static void ignore_cb(pmix_status_t status, void *cbdata)
{
}

int main(int argc, char **argv)
{
    pmix_proc_t me, all;
    pmix_status_t rc;
    const char *mode = "in-fence";
    int nranks;
    double t0;

    pxc_name = "pxc_diefence";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc)
            mode = argv[++i];
        else {
            fprintf(stderr, "pxc_diefence: unknown argument \"%s\"\n", argv[i]);
            return 2;
        }
    }
    if (strcmp(mode, "in-fence") && strcmp(mode, "before-fence")) {
        fprintf(stderr, "pxc_diefence: --mode wants in-fence or before-fence\n");
        return 2;
    }
    pxc_init(&me, &nranks);
    if (nranks < 2)
        pxc_fail("needs at least 2 ranks, got %d", nranks);
    PMIx_Load_procid(&all, me.nspace, PMIX_RANK_WILDCARD);
    /* Everyone is up before the scenario starts, so the delays below are measured from
     * the same moment (process start-up is slow under sanitizers). */
    rc = PMIx_Fence(&all, 1, NULL, 0);
    if (rc != PMIX_SUCCESS)
        pxc_fail("start-up PMIx_Fence failed: %s", PMIx_Error_string(rc));
    if (me.rank == 1) {
        if (strcmp(mode, "in-fence") == 0) {
            rc = PMIx_Fence_nb(&all, 1, NULL, 0, ignore_cb, NULL);
            if (rc != PMIX_SUCCESS)
                pxc_fail("PMIx_Fence_nb failed: %s", PMIx_Error_string(rc));
            /* give the request a moment to reach the server, then vanish */
            usleep(50000);
        }
        _exit(0);
    }
    usleep(500000);
    t0 = pxc_now();
    rc = PMIx_Fence(&all, 1, NULL, 0);
    if (rc == PMIX_SUCCESS)
        pxc_fail("PMIx_Fence over all ranks succeeded although rank 1 died (%s)", mode);
    printf("pxc_diefence: rank %u: PMIx_Fence failed as expected after %.1f s: %s\n", me.rank,
           pxc_now() - t0, PMIx_Error_string(rc));
    PMIx_Finalize(NULL, 0);
    return 0;
}
