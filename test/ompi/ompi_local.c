/* ompi_local.c - which ranks Open MPI believes share this node: MPI_Comm_split_type
 * (MPI_COMM_TYPE_SHARED), the world ranks of that communicator gathered in order, and
 * MPI_Get_processor_name. Each rank prints "local R L/N ranks A,B,... host H" (L ranks
 * of N on this node). Open MPI takes the node's ranks from its PMIx locality keys; a
 * message inside the communicator then goes through shared memory, beyond it through
 * TCP, and an allreduce in it checks that it works. */
#include <stdlib.h>
#include <string.h>

#include "ompi_common.h"

int main(int argc, char **argv)
{
    int rank, size, lsize, lsum = 0, want = 0, hlen = 0;
    char host[MPI_MAX_PROCESSOR_NAME], list[4096] = "";
    MPI_Comm node;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &lsize);
    int *peers = calloc((size_t)lsize, sizeof(int));
    if (peers == NULL)
        ompi_fail("ompi_local", "out of memory");
    MPI_Allgather(&rank, 1, MPI_INT, peers, 1, MPI_INT, node);
    MPI_Allreduce(&rank, &lsum, 1, MPI_INT, MPI_SUM, node);
    for (int i = 0; i < lsize; i++)
        want += peers[i];
    if (lsum != want)
        ompi_fail("ompi_local", "the node's allreduce gave %d, expected %d", lsum, want);
    MPI_Get_processor_name(host, &hlen);
    for (int i = 0, at = 0; i < lsize && at < (int)sizeof(list) - 12; i++)
        at += snprintf(list + at, sizeof(list) - (size_t)at, "%s%d", i ? "," : "", peers[i]);
    printf("local %d %d/%d ranks %s host %s\n", rank, lsize, size, list, host);
    free(peers);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
