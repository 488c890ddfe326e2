/* ompi_abort.c RANK CODE - after a barrier, rank RANK prints "aborting with CODE" and
 * calls MPI_Abort(MPI_COMM_WORLD, CODE); the others wait in a second barrier that only
 * the job's end ends. */
#include <stdlib.h>

#include "ompi_common.h"

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 3)
        ompi_fail("ompi_abort", "usage: ompi_abort RANK CODE");
    int who = atoi(argv[1]), code = atoi(argv[2]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == who) {
        printf("aborting with %d\n", code);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, code);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
