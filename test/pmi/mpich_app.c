/* test/pmi: an MPI program built with Debian's mpicc.mpich, so it reaches the DVM over
 * PMI-1 (PMI_FD). Modes:
 *   hello            a barrier, then "hello R/N" from each rank (the program bench_ompi.py
 *                    times for MPICH)
 *   ring             a token passed around the ring 3 times; rank 0 prints "ring N ok"
 *   allreduce        MPI_Allreduce of the ranks; each prints "sum S" and checks it
 *   local            MPI_Comm_split_type(SHARED): "local R L/N ranks A,B,... host H" (the L
 *                    world ranks that share this node as MPICH understood
 *                    PMI_process_mapping, in order; H is MPI_Get_processor_name)
 *   abort CODE       the last rank calls MPI_Abort(CODE) while the others wait in a barrier
 * Exit 0 when the mode's check held, 2 otherwise.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "hello";
    MPI_Init(&argc, &argv);
    int rank, size, ok = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "hello") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        printf("hello %d/%d\n", rank, size);
    } else if (strcmp(mode, "ring") == 0) {
        int token = 0, next = (rank + 1) % size, prev = (rank + size - 1) % size;
        for (int lap = 0; lap < 3; lap++) {
            if (rank == 0) {
                token++;
                MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
                MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                token++;
                MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
            }
        }
        if (rank == 0) {
            ok = token == 3 * size;
            printf("ring %d %s (token %d)\n", size, ok ? "ok" : "WRONG", token);
        }
    } else if (strcmp(mode, "allreduce") == 0) {
        long mine = rank + 1, sum = 0;
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        ok = sum == (long)size * (size + 1) / 2;
        printf("sum %ld %s\n", sum, ok ? "ok" : "WRONG");
    } else if (strcmp(mode, "local") == 0) {
        MPI_Comm node;
        int lsize = 0;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &lsize);
        int *peers = calloc((size_t)lsize, sizeof(int));
        char host[MPI_MAX_PROCESSOR_NAME], list[4096] = "";
        int hlen = 0;
        MPI_Allgather(&rank, 1, MPI_INT, peers, 1, MPI_INT, node);
        MPI_Get_processor_name(host, &hlen);
        for (int i = 0, at = 0; i < lsize && at < (int)sizeof(list) - 12; i++) {
            at += snprintf(list + at, sizeof(list) - (size_t)at, "%s%d", i ? "," : "", peers[i]);
        }
        printf("local %d %d/%d ranks %s host %s\n", rank, lsize, size, list, host);
        free(peers);
        MPI_Comm_free(&node);
    } else if (strcmp(mode, "abort") == 0) {
        int code = argc > 2 ? atoi(argv[2]) : 1;
        if (rank == size - 1) {
            MPI_Abort(MPI_COMM_WORLD, code);
        }
        MPI_Barrier(MPI_COMM_WORLD); /* never completes: the job is ended */
        printf("rank %d passed a barrier it should not have\n", rank);
        ok = 0;
    } else {
        fprintf(stderr, "mpich_app: unknown mode %s\n", mode);
        ok = 0;
    }
    fflush(stdout);
    MPI_Finalize();
    return ok ? 0 : 2;
}
