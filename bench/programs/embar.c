/*
 * embar.c -- an embarrassingly parallel Monte Carlo kernel.
 *
 * Each rank draws PAIRS pairs of uniform deviates (a linear congruential
 * generator), turns the pairs inside the unit circle into Gaussian pairs
 * (Marsaglia's polar method) and counts them in ten annuli. The counts and
 * the sums of the deviates are combined at the end (MPI_Allreduce three
 * times). All the time is computation between two calls.
 *
 * usage: embar [PAIRS] [BATCHES]
 *   PAIRS    pairs per rank, in millions       (default 24)
 *   BATCHES  the work is done in this many batches, a barrier between
 *            them                              (default 1)
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long pairs = (argc > 1 ? atol(argv[1]) : 24) * 1000000L;
    int batches = argc > 2 ? atoi(argv[2]) : 1;
    uint64_t x = 271828183ULL + 2ULL * (uint64_t)rank * 314159265ULL;
    double q[10] = {0}, sx = 0, sy = 0;
    for (int b = 0; b < batches; b++) {
        for (long k = 0; k < pairs / batches; k++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            double u = 2.0 * (double)(x >> 11) / 9007199254740992.0 - 1.0;
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            double v = 2.0 * (double)(x >> 11) / 9007199254740992.0 - 1.0;
            double t = u * u + v * v;
            if (t <= 1.0 && t > 0.0) {
                double f = sqrt(-2.0 * log(t) / t), gx = u * f, gy = v * f;
                int l = (int)fmax(fabs(gx), fabs(gy));
                if (l < 10)
                    q[l] += 1.0;
                sx += gx, sy += gy;
            }
        }
        if (b + 1 < batches)
            MPI_Barrier(MPI_COMM_WORLD);
    }
    double all[10], s[2] = {sx, sy}, sall[2];
    MPI_Allreduce(q, all, 10, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(s, sall, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double n = 0;
    for (int l = 0; l < 10; l++)
        n += all[l];
    MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("embar: ranks=%d iters=%d seconds=%.3f gaussians=%.0f sx=%.6g sy=%.6g\n", size, batches, tmax, n,
               sall[0], sall[1]);
    MPI_Finalize();
    return 0;
}
