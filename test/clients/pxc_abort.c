/*
 * pxc_abort.c - rank 1 calls PMIx_Abort(42, "test abort", NULL, 0) while the other ranks
 * wait in a fence; the host must kill the job and exit with status 42.
 * Usage: pxc_abort   (needs at least 2 ranks)
 */
#include <stdio.h>
#include <unistd.h>

#include "pxc_common.h"

int main(void)
{
    pmix_proc_t me, all;
    pmix_status_t rc;
    int nranks;

    pxc_name = "pxc_abort";
    pxc_init(&me, &nranks);
    if (nranks < 2)
        pxc_fail("needs at least 2 ranks, got %d", nranks);
    if (me.rank == 1) {
        rc = PMIx_Abort(42, "test abort", NULL, 0);
        /* The host kills us; returning is allowed, surviving is not. */
        pxc_note("PMIx_Abort returned %s; waiting to be killed", PMIx_Error_string(rc));
        sleep(60);
        pxc_fail("still alive 60 s after PMIx_Abort");
    }
    PMIx_Load_procid(&all, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Fence(&all, 1, NULL, 0);
    /* Rank 1 never joins: the fence cannot succeed. */
    pxc_fail("PMIx_Fence returned %s although rank 1 aborted", PMIx_Error_string(rc));
}
