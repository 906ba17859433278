/* onethread: a program that asks for MPI_THREAD_MULTIPLE (as mpi4py does by
 * default) but makes every MPI call from its main thread: a ring exchange
 * with MPI_Irecv, MPI_Isend and MPI_Waitall, a halo exchange with
 * MPI_Sendrecv, and an MPI_Allreduce, around computation (20 ms a step
 * on this VM: few synchronisations, which another job on the cores would
 * stretch), ITER times (argv[1], default 100). Exits 3 if the MPI does
 * not provide MPI_THREAD_MULTIPLE (the test needs it). Rank 0 prints
 * "iterations N" and the checksum of the reductions. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 4096 };

/* about us microseconds of a dependent chain of floating-point operations */
static volatile double sink;
static void spin(double us)
{
    double x = sink + 1.0;
    for (long i = 0, n = (long)(us * 450); i < n; i++)
        x = x * 0.999999 + 1e-7;
    sink = x;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "onethread: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iter = argc > 1 ? atoi(argv[1]) : 100;
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    static double a[N], b[N], c[N];
    for (int k = 0; k < N; k++)
        a[k] = rank + k;
    double total = 0;
    for (int it = 0; it < iter; it++) {
        MPI_Request rq[2];
        MPI_Irecv(b, N, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(a, N, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &rq[1]);
        spin(8000);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        MPI_Sendrecv(b, N / 4, MPI_DOUBLE, left, 2, c, N / 4, MPI_DOUBLE, right, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        spin(12000);
        double s = b[0] + c[0], sum;
        MPI_Allreduce(&s, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        total += sum;
    }
    if (rank == 0)
        printf("iterations %d\nchecksum %.0f\n", iter, total);
    MPI_Finalize();
    return 0;
}
