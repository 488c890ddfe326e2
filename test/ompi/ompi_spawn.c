/* ompi_spawn.c [NCHILD [late]] - MPI_Comm_spawn: the parents (every rank of the job, collectively)
 * start NCHILD (default 2) copies of this program; the two sides talk over the
 * intercommunicator: parent rank 0 sends each child its number, each child answers with
 * number * 10 + its rank; then MPI_Intercomm_merge and an MPI_Allreduce over parents and
 * children, and MPI_Comm_disconnect. Parent rank 0 prints "spawn ok parents=P children=C
 * sum=S", each child "child R of C ok", each parent "parent R done". With "late", the
 * parents wait 2 s after MPI_Comm_disconnect before MPI_Finalize, so the children end
 * while their parents still run. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ompi_common.h"

int main(int argc, char **argv)
{
    int rank, size, nchild = argc > 1 ? atoi(argv[1]) : 2;
    MPI_Comm parent, inter, merged;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        int errs[64];
        if (nchild < 1 || nchild > 64)
            ompi_fail("ompi_spawn", "NCHILD must be 1..64");
        char *cargv[] = {"child", NULL};
        MPI_Comm_spawn(argv[0], cargv, nchild, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
        int rsize = 0;
        MPI_Comm_remote_size(inter, &rsize);
        if (rsize != nchild)
            ompi_fail("ompi_spawn", "the intercommunicator has %d children, expected %d", rsize,
                      nchild);
        if (rank == 0) {
            for (int c = 0; c < nchild; c++) {
                int v = 1000 + c, back = -1;
                MPI_Send(&v, 1, MPI_INT, c, 1, inter);
                MPI_Recv(&back, 1, MPI_INT, c, 2, inter, MPI_STATUS_IGNORE);
                if (back != v * 10 + c)
                    ompi_fail("ompi_spawn", "child %d answered %d, expected %d", c, back,
                              v * 10 + c);
            }
        }
        MPI_Intercomm_merge(inter, 0, &merged);
    } else {
        int v = -1;
        if (argc < 2 || strcmp(argv[1], "child") != 0)
            ompi_fail("ompi_spawn", "a child must be started with the argument \"child\"");
        MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE);
        v = v * 10 + rank;
        MPI_Send(&v, 1, MPI_INT, 0, 2, parent);
        inter = parent;
        MPI_Intercomm_merge(inter, 1, &merged);
    }
    int msize = 0, one = 1, sum = 0;
    MPI_Comm_size(merged, &msize);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    if (sum != msize)
        ompi_fail("ompi_spawn", "the merged communicator's allreduce gave %d, expected %d", sum,
                  msize);
    if (parent == MPI_COMM_NULL) {
        if (rank == 0)
            printf("spawn ok parents=%d children=%d sum=%d\n", size, msize - size, sum);
        printf("parent %d done\n", rank);
    } else {
        printf("child %d of %d ok\n", rank, size);
    }
    fflush(stdout);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    if (parent == MPI_COMM_NULL && argc > 2 && strcmp(argv[2], "late") == 0)
        sleep(2);
    MPI_Finalize();
    return 0;
}
