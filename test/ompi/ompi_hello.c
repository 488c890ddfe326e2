/* ompi_hello.c - MPI_Init, a barrier, "hello R of N", MPI_Finalize. Also the program
 * bench/bench_ompi.sh times. */
#include <stdio.h>

#include "ompi_common.h"

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("hello %d of %d\n", rank, size);
    MPI_Finalize();
    return 0;
}
