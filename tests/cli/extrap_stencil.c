/*
 * extrap_stencil (C): a weak-scaling 1-D stencil for process-count
 * extrapolation (docs/simulation.md): ranks on a non-periodic line made with
 * MPI_Cart_create, neighbours from MPI_Cart_shift (MPI_PROC_NULL at the
 * ends), each iteration some compute of a fixed size per rank, a halo of
 * H doubles each way with Irecv, Isend and Waitall, and an Allreduce every
 * 10 iterations. Every rank makes the same calls, so the merged trace is
 * rank-relative at any P; with "mirror", each iteration also swaps a
 * value with rank P-1-r, a peer no rank + c, ring or grid neighbour gives
 * (its ranks merge by partner: no range of ranks); with "irregular", a
 * Sendrecv with rank + 1 skipped (MPI_PROC_NULL) at every third rank (a
 * per-rank table of peers that no grid explains). A negative H gives halos of -H x 8 / P doubles,
 * shrinking with P (what a fit must find). A negative WORK sleeps -WORK
 * microseconds instead of computing (compute that does not need a core:
 * ranks oversubscribed on a few cores then keep their compute times).
 * usage: extrap_stencil [NITER [WORK [H [mirror|irregular]]]]
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep under -std=c11 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile double sink;

static void compute(long work)
{
    if (work < 0) {
        struct timespec ts = {-work / 1000000, (-work % 1000000) * 1000};
        nanosleep(&ts, NULL);
        return;
    }
    double s = 0;
    for (long i = 0; i < work; i++)
        s += (double)i * 1e-9;
    sink = s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int niter = argc > 1 ? atoi(argv[1]) : 200;
    long work = argc > 2 ? atol(argv[2]) : 20000;
    int h = argc > 3 ? atoi(argv[3]) : 512;
    int mirror = argc > 4 && !strcmp(argv[4], "mirror"), irregular = argc > 4 && !strcmp(argv[4], "irregular");
    int size, dims[1] = {0}, periods[1] = {0}, left, right, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (h < 0)
        h = -h * 8 / size;
    MPI_Dims_create(size, 1, dims);
    MPI_Comm line;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
    MPI_Comm_rank(line, &rank);
    MPI_Cart_shift(line, 0, 1, &left, &right);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    double *u = calloc((size_t)(4 * h), sizeof *u), sum = 0, local = rank;
    for (int it = 1; it <= niter; it++) {
        compute(work);
        MPI_Request rq[4];
        MPI_Irecv(u, h, MPI_DOUBLE, left, 1, line, &rq[0]);
        MPI_Irecv(u + h, h, MPI_DOUBLE, right, 2, line, &rq[1]);
        MPI_Isend(u + 2 * h, h, MPI_DOUBLE, right, 1, line, &rq[2]);
        MPI_Isend(u + 3 * h, h, MPI_DOUBLE, left, 2, line, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        if (irregular) {
            int to = rank + 1 < size && (rank + 1) % 3 ? rank + 1 : MPI_PROC_NULL;
            int from = rank > 0 && rank % 3 ? rank - 1 : MPI_PROC_NULL;
            double got;
            MPI_Sendrecv(&local, 1, MPI_DOUBLE, to, 4, &got, 1, MPI_DOUBLE, from, 4, line, MPI_STATUS_IGNORE);
        }
        if (mirror) {
            double got;
            MPI_Sendrecv(&local, 1, MPI_DOUBLE, size - 1 - rank, 3, &got, 1, MPI_DOUBLE, size - 1 - rank, 3, line,
                         MPI_STATUS_IGNORE);
        }
        if (it % 10 == 0)
            MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, line);
    }
    double t1 = MPI_Wtime();
    if (rank == 0) /* bench/extrapolate.sh reads the loop's time */
        printf("extrap_stencil %d ranks, %d iterations, sum %g, loop %.6f s\n", size, niter, sum, t1 - t0);
    free(u);
    MPI_Comm_free(&line);
    MPI_Finalize();
    return 0;
}
