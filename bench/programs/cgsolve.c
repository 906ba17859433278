/*
 * cgsolve.c -- conjugate gradient with restarts on a 2-D Poisson matrix.
 *
 * The 5-point Laplacian of an NX x NY grid split into row strips is solved
 * by unpreconditioned conjugate gradient, restarted OUTER times from the
 * current solution with a fresh residual (an outer loop of OUTER solves of
 * INNER iterations each, as power-method style benchmarks do). One CG
 * iteration: a ghost-row exchange (MPI_Sendrecv up and down), the matrix-
 * vector product, two dot products (MPI_Allreduce each) and three vector
 * updates. Each outer step also computes the true residual norm (one more
 * exchange and MPI_Allreduce).
 *
 * usage: cgsolve [NX] [ROWS] [OUTER] [INNER]
 *   NX     grid width                          (default 1024)
 *   ROWS   rows per rank                       (default 128)
 *   OUTER  restarts                            (default 15)
 *   INNER  CG iterations per restart           (default 25)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int nx, rows, rank, size, up, down;

/* y = A x on the local strip; x has a ghost row above and below */
static void matvec(double *x, double *y)
{
    MPI_Sendrecv(x + nx, nx, MPI_DOUBLE, up, 0, x + (size_t)(rows + 1) * nx, nx, MPI_DOUBLE, down, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(x + (size_t)rows * nx, nx, MPI_DOUBLE, down, 1, x, nx, MPI_DOUBLE, up, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 1; i <= rows; i++)
        for (int j = 0; j < nx; j++) {
            size_t k = (size_t)i * nx + j;
            double w = j > 0 ? x[k - 1] : 0.0, e = j < nx - 1 ? x[k + 1] : 0.0;
            y[k] = 4.0 * x[k] - w - e - x[k - nx] - x[k + nx];
        }
}

static double dot(const double *a, const double *b)
{
    double s = 0.0, all;
    for (size_t k = (size_t)nx; k < (size_t)(rows + 1) * nx; k++)
        s += a[k] * b[k];
    MPI_Allreduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    nx = argc > 1 ? atoi(argv[1]) : 1024;
    rows = argc > 2 ? atoi(argv[2]) : 128;
    int outer = argc > 3 ? atoi(argv[3]) : 15, inner = argc > 4 ? atoi(argv[4]) : 25;
    up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    size_t n = (size_t)(rows + 2) * nx;
    double *x = calloc(n, sizeof *x), *b = calloc(n, sizeof *b), *r = calloc(n, sizeof *r);
    double *p = calloc(n, sizeof *p), *q = calloc(n, sizeof *q);
    if (!x || !b || !r || !p || !q)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 1; i <= rows; i++)
        for (int j = 0; j < nx; j++)
            b[(size_t)i * nx + j] = sin(0.01 * (rank * rows + i)) * cos(0.02 * j);
    double res = 0.0;
    for (int o = 0; o < outer; o++) {
        /* r = b - A x, p = r */
        matvec(x, q);
        for (size_t k = (size_t)nx; k < (size_t)(rows + 1) * nx; k++)
            r[k] = p[k] = b[k] - q[k];
        double rr = dot(r, r);
        for (int it = 0; it < inner; it++) {
            matvec(p, q);
            double alpha = rr / dot(p, q);
            for (size_t k = (size_t)nx; k < (size_t)(rows + 1) * nx; k++) {
                x[k] += alpha * p[k];
                r[k] -= alpha * q[k];
            }
            double rr2 = dot(r, r);
            for (size_t k = (size_t)nx; k < (size_t)(rows + 1) * nx; k++)
                p[k] = r[k] + (rr2 / rr) * p[k];
            rr = rr2;
        }
        res = sqrt(rr);
    }
    double t = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("cgsolve: ranks=%d iters=%d seconds=%.3f residual=%.3e\n", size, outer * inner, tmax, res);
    free(x), free(b), free(r), free(p), free(q);
    MPI_Finalize();
    return 0;
}
