/* ompi_common.h - a failure helper for the Open MPI test programs (test/ompi/ompi_NAME.c),
 * compiled with Debian's mpicc.openmpi. Each program prints "<name> ok ..." lines when
 * its check passes and exits 0; a failed check prints "<name>: rank R: ..." on stderr
 * and aborts the job with MPI_Abort(3). */
#ifndef OMPI_COMMON_H
#define OMPI_COMMON_H

#include <stdarg.h>
#include <stdio.h>

#include <mpi.h>

static inline void ompi_fail(const char *prog, const char *fmt, ...)
{
    int rank = -1;
    va_list ap;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "%s: rank %d: ", prog, rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

#endif /* OMPI_COMMON_H */
