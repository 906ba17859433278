/*
 * redblack.c -- red-black Gauss-Seidel for the 2-D Poisson equation on a
 * strip (1-D, row-wise) decomposition.
 *
 * Each rank owns a band of full-width rows. A sweep updates the red points
 * ((i + j) even, in global indices) and then the black ones; before each
 * half-sweep the ghost rows are exchanged with blocking MPI_Send/MPI_Recv,
 * ordered so that the chain cannot deadlock: even ranks send (up, then
 * down) and then receive, odd ranks receive and then send.
 *
 * The bands are not equal: rank r has ROWS * (1 + r / (2P)) rows, so the
 * higher ranks carry up to half again as much work as rank 0 (a typical
 * result of a static partition of a graded mesh).
 *
 * usage: redblack [ROWS] [ITERS] [WIDTH]
 *   ROWS   base rows per rank (rank 0's band)   (default 500)
 *   ITERS  red-black sweeps                     (default 900)
 *   WIDTH  points per row                       (default 1024)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TAG_UP   1
#define TAG_DOWN 2

/* exchange ghost rows 0 and m+1 of the band with the ranks above/below */
static void exchange(double *u, int m, int w, int rank, int up, int down, MPI_Comm comm)
{
    MPI_Status st;
    double *first = u + (size_t)w, *last = u + (size_t)m * w;
    double *ghost_lo = u, *ghost_hi = u + (size_t)(m + 1) * w;

    if (rank % 2 == 0) {
        if (up != MPI_PROC_NULL)   MPI_Send(last, w, MPI_DOUBLE, up, TAG_UP, comm);
        if (down != MPI_PROC_NULL) MPI_Send(first, w, MPI_DOUBLE, down, TAG_DOWN, comm);
        if (up != MPI_PROC_NULL)   MPI_Recv(ghost_hi, w, MPI_DOUBLE, up, TAG_DOWN, comm, &st);
        if (down != MPI_PROC_NULL) MPI_Recv(ghost_lo, w, MPI_DOUBLE, down, TAG_UP, comm, &st);
    } else {
        if (down != MPI_PROC_NULL) MPI_Recv(ghost_lo, w, MPI_DOUBLE, down, TAG_UP, comm, &st);
        if (up != MPI_PROC_NULL)   MPI_Recv(ghost_hi, w, MPI_DOUBLE, up, TAG_DOWN, comm, &st);
        if (down != MPI_PROC_NULL) MPI_Send(first, w, MPI_DOUBLE, down, TAG_DOWN, comm);
        if (up != MPI_PROC_NULL)   MPI_Send(last, w, MPI_DOUBLE, up, TAG_UP, comm);
    }
}

/* update the points of one colour: (global row + column) % 2 == colour */
static void half_sweep(double *restrict u, const double *restrict f, int m, int w,
                       long grow0, int colour, double h2)
{
    for (int i = 1; i <= m; i++) {
        double *row = u + (size_t)i * w;
        const double *above = row + w, *below = row - w, *fr = f + (size_t)i * w;
        int j0 = 1 + (int)((grow0 + i + 1 + colour) % 2);
        for (int j = j0; j < w - 1; j += 2)
            row[j] = 0.25 * (below[j] + above[j] + row[j - 1] + row[j + 1] + h2 * fr[j]);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();

    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    int rows = argc > 1 ? atoi(argv[1]) : 500;
    int iters = argc > 2 ? atoi(argv[2]) : 900;
    int w = argc > 3 ? atoi(argv[3]) : 1024;
    if (rows < 1 || iters < 1 || w < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: redblack [ROWS>=1] [ITERS>=1] [WIDTH>=3]\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* band sizes: rows * (1 + r/(2P)), and this band's first global row */
    int m = 0;
    long grow0 = 0, gtotal = 0;
    for (int r = 0; r < nprocs; r++) {
        int mr = (int)(rows * (1.0 + (double)r / (2.0 * nprocs)) + 0.5);
        if (r < rank) grow0 += mr;
        if (r == rank) m = mr;
        gtotal += mr;
    }
    int down = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int up = rank < nprocs - 1 ? rank + 1 : MPI_PROC_NULL;

    size_t npts = (size_t)(m + 2) * w;
    double *u = calloc(npts, sizeof *u);
    double *f = calloc(npts, sizeof *f);
    if (!u || !f) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* point source pattern: a few hot spots */
    double h = 1.0 / (double)(gtotal + 1), h2 = h * h;
    for (int i = 1; i <= m; i++)
        for (int j = 1; j < w - 1; j++) {
            long gi = grow0 + i;
            f[(size_t)i * w + j] = ((gi / 64 + j / 64) % 3 == 0) ? 100.0 : 0.0;
        }

    for (int it = 0; it < iters; it++) {
        exchange(u, m, w, rank, up, down, MPI_COMM_WORLD);
        half_sweep(u, f, m, w, grow0, 0, h2);
        exchange(u, m, w, rank, up, down, MPI_COMM_WORLD);
        half_sweep(u, f, m, w, grow0, 1, h2);
    }

    /* final residual, 2-norm over the interior */
    exchange(u, m, w, rank, up, down, MPI_COMM_WORLD);
    double local = 0.0, total;
    for (int i = 1; i <= m; i++)
        for (int j = 1; j < w - 1; j++) {
            size_t k = (size_t)i * w + j;
            double r = h2 * f[k] - (4.0 * u[k] - u[k - 1] - u[k + 1] - u[k - w] - u[k + w]);
            local += r * r;
        }
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

    double elapsed = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("redblack: ranks=%d iters=%d seconds=%.3f\n", nprocs, iters, tmax);

    free(u); free(f);
    MPI_Finalize();
    return 0;
}
