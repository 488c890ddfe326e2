/* ompi_hello.c [--wait FILE] - MPI_Init, a barrier, "hello R of N", MPI_Finalize (the
 * program bench/bench_ompi.sh times). With --wait, every rank then waits (up to 60 s)
 * until FILE exists, and a second barrier comes before MPI_Finalize: a job that stays
 * up, past MPI_Init, until the test says. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ompi_common.h"

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("hello %d of %d\n", rank, size);
    fflush(stdout);
    if (argc == 3 && strcmp(argv[1], "--wait") == 0) {
        for (int i = 0; i < 6000 && access(argv[2], F_OK) != 0; i++)
            usleep(10000);
        if (access(argv[2], F_OK) != 0)
            ompi_fail("ompi_hello", "%s did not appear within 60 s", argv[2]);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
