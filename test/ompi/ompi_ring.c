/* ompi_ring.c - a token of 64 Ki ints (256 KiB: past the shared-memory transport's eager
 * limit) goes round the ring three times; each rank adds its rank to every element and
 * checks what it received. Rank 0 prints "ring ok N=<size> token=<value>". */
#include <stdlib.h>

#include "ompi_common.h"

#define COUNT 65536
#define LAPS  3

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *in = calloc(COUNT, sizeof(int)), *out = calloc(COUNT, sizeof(int));
    if (in == NULL || out == NULL)
        ompi_fail("ompi_ring", "out of memory");
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long sum = (long)size * (size - 1) / 2; /* added per lap */
    for (int lap = 0; lap < LAPS; lap++) {
        if (rank == 0) {
            for (int i = 0; i < COUNT; i++)
                out[i] = (int)(lap * sum) + i;
            MPI_Isend(out, COUNT, MPI_INT, next, lap, MPI_COMM_WORLD, &req);
            MPI_Recv(in, COUNT, MPI_INT, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            for (int i = 0; i < COUNT; i++)
                if (in[i] != (int)((lap + 1) * sum) + i)
                    ompi_fail("ompi_ring", "lap %d: element %d is %d, expected %ld", lap, i, in[i],
                              (lap + 1) * sum + i);
        } else {
            long before = lap * sum + (long)rank * (rank - 1) / 2; /* ranks 1..rank-1 added */
            MPI_Recv(in, COUNT, MPI_INT, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < COUNT; i++) {
                if (in[i] != (int)before + i)
                    ompi_fail("ompi_ring", "lap %d: element %d is %d, expected %ld", lap, i, in[i],
                              before + i);
                out[i] = in[i] + rank;
            }
            MPI_Send(out, COUNT, MPI_INT, next, lap, MPI_COMM_WORLD);
        }
    }
    if (rank == 0)
        printf("ring ok N=%d token=%d\n", size, in[0]);
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
