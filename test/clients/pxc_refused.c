/*
 * pxc_refused.c - PMIx_Init must fail: run as a rank the server must refuse (never
 * registered, or running as another user than registered). Exit 0 if it failed.
 * Usage: pxc_refused
 */
#include <stdio.h>

#include "pxc_common.h"

int main(void)
{
    pmix_proc_t me;
    pmix_status_t rc;
    double t0 = pxc_now();

    pxc_name = "pxc_refused";
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("pxc_refused: PMIx_Init failed as expected after %.1f s: %s\n", pxc_now() - t0,
               PMIx_Error_string(rc));
        return 0;
    }
    pxc_rank = (int)me.rank;
    pxc_note("PMIx_Init succeeded as rank %u of %s, but this process must be refused", me.rank,
             me.nspace);
    PMIx_Finalize(NULL, 0);
    return 1;
}
