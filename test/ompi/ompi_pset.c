/* ompi_pset.c - an Open MPI program that also uses PMIx itself (Open MPI 4.1 has no
 * MPI_Session): after MPI_Init, a nested PMIx_Init in the same process (the library Open
 * MPI's component loaded: ours), PMIX_PSET_NAMES of this process, PMIx_Finalize of the
 * inner init, then an MPI_Allreduce to show MPI is intact, and MPI_Finalize. Prints
 * "pset rank R of N psets=<names> sum=<sum of ranks>". */
#include <stdio.h>
#include <string.h>

#include <pmix.h>

#include "ompi_common.h"

int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    pmix_proc_t me;
    pmix_value_t *v = NULL;
    char psets[256] = "";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS)
        ompi_fail("ompi_pset", "PMIx_Init: %s", PMIx_Error_string(rc));
    if ((int)me.rank != rank)
        ompi_fail("ompi_pset", "PMIx rank %u, MPI rank %d", me.rank, rank);
    rc = PMIx_Get(&me, PMIX_PSET_NAMES, NULL, 0, &v);
    if (rc == PMIX_SUCCESS && v != NULL && v->type == PMIX_DATA_ARRAY && v->data.darray) {
        char **names = v->data.darray->array;
        for (size_t i = 0; i < v->data.darray->size; i++) {
            strncat(psets, i ? "," : "", sizeof(psets) - strlen(psets) - 1);
            strncat(psets, names[i], sizeof(psets) - strlen(psets) - 1);
        }
    } else if (rc != PMIX_SUCCESS) {
        ompi_fail("ompi_pset", "PMIx_Get(PMIX_PSET_NAMES): %s", PMIx_Error_string(rc));
    }
    if (v != NULL)
        PMIx_Value_free(v, 1);
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS || !PMIx_Initialized())
        ompi_fail("ompi_pset", "inner PMIx_Finalize: %s, still initialized: %d",
                  PMIx_Error_string(rc), PMIx_Initialized());
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("pset rank %d of %d psets=%s sum=%d\n", rank, size, psets[0] ? psets : "-", sum);
    MPI_Finalize();
    return 0;
}
