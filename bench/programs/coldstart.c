/*
 * coldstart.c -- nonlinear diffusion with a tabulated conductivity.
 *
 * Solves u_t = div(k(u) grad u) with explicit sweeps on a strip-decomposed
 * 2-D grid. The conductivity k(u) comes from a model that is costly to
 * evaluate (a sum of exponential and rational terms), so it is tabulated on
 * a fine grid the first time it is needed and looked up (with linear
 * interpolation) from then on. The table is large (TABLE_PER_POINT entries
 * per grid cell), so the first iteration also pays for first-touching its
 * memory: it runs about ten times as long as each later one.
 *
 * One iteration: SWEEPS explicit sweeps, each with a ghost-row exchange
 * (MPI_Sendrecv up and down), then the global change norm by MPI_Allreduce.
 *
 * usage: coldstart [N] [ITERS] [SWEEPS]
 *   N       local grid is N x N              (default 720)
 *   ITERS   iterations                       (default 11)
 *   SWEEPS  explicit sweeps per iteration    (default 24)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TABLE_PER_POINT 6
#define MODEL_TERMS 10

static double *ktab = NULL;      /* k(u) on [0, 1], built on first use */
static long ktab_n = 0;
static long ktab_size_hint = 0;

/* the conductivity model: expensive, evaluated only to build the table */
static double k_model(double u)
{
    double s = 0.05;
    for (int m = 1; m <= MODEL_TERMS; m++) {
        double a = 1.0 / (m * m);
        s += a * exp(-m * u) + a * u / (1.0 + m * u * u) + 0.01 * a * log1p(m * u);
    }
    return s;
}

static void build_table(void)
{
    ktab_n = ktab_size_hint;
    ktab = malloc((size_t)(ktab_n + 1) * sizeof *ktab);
    if (!ktab) {
        fprintf(stderr, "out of memory for the conductivity table\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long k = 0; k <= ktab_n; k++)
        ktab[k] = k_model((double)k / ktab_n);
}

static inline double conductivity(double u)
{
    if (u <= 0.0) return ktab[0];
    if (u >= 1.0) return ktab[ktab_n];
    double x = u * ktab_n;
    long k = (long)x;
    double w = x - k;
    return (1.0 - w) * ktab[k] + w * ktab[k + 1];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();

    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    int n = argc > 1 ? atoi(argv[1]) : 720;
    int iters = argc > 2 ? atoi(argv[2]) : 11;
    int sweeps = argc > 3 ? atoi(argv[3]) : 24;
    if (n < 2 || iters < 1 || sweeps < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: coldstart [N>=2] [ITERS>=1] [SWEEPS>=1]\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int up = rank < nprocs - 1 ? rank + 1 : MPI_PROC_NULL;
    int down = rank > 0 ? rank - 1 : MPI_PROC_NULL;

    int ld = n + 2;
    size_t npts = (size_t)ld * (n + 2);
    double *u = calloc(npts, sizeof *u), *unew = calloc(npts, sizeof *unew);
    double *kc = calloc(npts, sizeof *kc);
    if (!u || !unew || !kc) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    ktab_size_hint = (long)TABLE_PER_POINT * n * n;

    /* initial state: a hot square in the middle of the global domain */
    long gn = (long)nprocs * n;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++) {
            long gi = (long)rank * n + i;
            int hot = gi > gn / 3 && gi < 2 * gn / 3 && j > n / 3 && j < 2 * n / 3;
            u[(size_t)i * ld + j] = hot ? 0.9 : 0.1;
        }

    const double dt = 0.1;
    double change = 0.0;
    MPI_Status st;
    for (int it = 0; it < iters; it++) {
        if (!ktab)
            build_table();
        double local = 0.0;
        for (int s = 0; s < sweeps; s++) {
            MPI_Sendrecv(&u[(size_t)n * ld], ld, MPI_DOUBLE, up, 0,
                         &u[0], ld, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &st);
            MPI_Sendrecv(&u[(size_t)ld], ld, MPI_DOUBLE, down, 1,
                         &u[(size_t)(n + 1) * ld], ld, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &st);
            /* insulated outer boundary */
            if (down == MPI_PROC_NULL)
                for (int j = 0; j < ld; j++) u[j] = u[(size_t)ld + j];
            if (up == MPI_PROC_NULL)
                for (int j = 0; j < ld; j++) u[(size_t)(n + 1) * ld + j] = u[(size_t)n * ld + j];
            for (int i = 0; i <= n + 1; i++) {
                u[(size_t)i * ld] = u[(size_t)i * ld + 1];
                u[(size_t)i * ld + n + 1] = u[(size_t)i * ld + n];
            }

            for (size_t k = 0; k < npts; k++)
                kc[k] = conductivity(u[k]);
            for (int i = 1; i <= n; i++)
                for (int j = 1; j <= n; j++) {
                    size_t c = (size_t)i * ld + j;
                    double fx = 0.5 * (kc[c] + kc[c + 1]) * (u[c + 1] - u[c]) -
                                0.5 * (kc[c] + kc[c - 1]) * (u[c] - u[c - 1]);
                    double fy = 0.5 * (kc[c] + kc[c + ld]) * (u[c + ld] - u[c]) -
                                0.5 * (kc[c] + kc[c - ld]) * (u[c] - u[c - ld]);
                    double d = dt * (fx + fy);
                    unew[c] = u[c] + d;
                    local += d * d;
                }
            double *t = u; u = unew; unew = t;
        }
        MPI_Allreduce(&local, &change, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }

    double elapsed = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("coldstart: ranks=%d iters=%d seconds=%.3f\n", nprocs, iters, tmax);

    free(u); free(unew); free(kc); free(ktab);
    MPI_Finalize();
    return 0;
}
