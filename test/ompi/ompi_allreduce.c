/* ompi_allreduce.c - MPI_Allreduce of the ranks (sum, max, min) and of a 100,000-element
 * vector (sum); every rank checks the results and prints "allreduce ok R sum=<sum>". */
#include <stdlib.h>

#include "ompi_common.h"

#define VEC 100000

int main(int argc, char **argv)
{
    int rank, size, sum, max, min;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&rank, &max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&rank, &min, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2 || max != size - 1 || min != 0)
        ompi_fail("ompi_allreduce", "sum %d max %d min %d of %d ranks", sum, max, min, size);
    double *in = malloc(VEC * sizeof(double)), *out = malloc(VEC * sizeof(double));
    if (in == NULL || out == NULL)
        ompi_fail("ompi_allreduce", "out of memory");
    for (int i = 0; i < VEC; i++)
        in[i] = rank + i;
    MPI_Allreduce(in, out, VEC, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < VEC; i++)
        if (out[i] != (double)sum + (double)size * i)
            ompi_fail("ompi_allreduce", "element %d is %g, expected %g", i, out[i],
                      (double)sum + (double)size * i);
    printf("allreduce ok %d sum=%d\n", rank, sum);
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
