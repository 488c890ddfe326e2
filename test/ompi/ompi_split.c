/* ompi_split.c - MPI_Comm_split into even and odd ranks, ordered by descending rank;
 * each rank checks its new rank and size and the sum of the world ranks in its half
 * (an allreduce inside the new communicator), then prints
 * "split ok R color=C subrank=S subsize=Z". */
#include "ompi_common.h"

int main(int argc, char **argv)
{
    int rank, size, subrank, subsize, sum = 0, want = 0;
    MPI_Comm half;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int color = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &half);
    MPI_Comm_rank(half, &subrank);
    MPI_Comm_size(half, &subsize);
    int wantsize = color == 0 ? (size + 1) / 2 : size / 2;
    int wantrank = 0; /* the members of my color above me */
    for (int r = rank + 2; r < size; r += 2)
        wantrank++;
    for (int r = color; r < size; r += 2)
        want += r;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
    if (subsize != wantsize || subrank != wantrank || sum != want)
        ompi_fail("ompi_split", "color %d: rank %d of %d, sum %d; expected rank %d of %d, sum %d",
                  color, subrank, subsize, sum, wantrank, wantsize, want);
    printf("split ok %d color=%d subrank=%d subsize=%d\n", rank, color, subrank, subsize);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
