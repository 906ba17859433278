/*
 * vcycle.c -- cell-centred geometric multigrid V-cycles for the 2-D Poisson
 * equation  -lap(u) = f  (homogeneous Dirichlet boundary), strip-decomposed.
 *
 * Rank r owns N rows of an (N*P) x N grid of cells. Level l has N/2^l rows
 * and columns per rank, so the halo messages of level l carry N/2^l values.
 * One V-cycle:
 *   down:  NU1 weighted-Jacobi sweeps (each with a halo exchange), the
 *          residual (one more exchange), restriction (mean of the 4 child
 *          cells, local) to the right-hand side of the next level;
 *   bottom: NUC sweeps on the coarsest level;
 *   up:    halo exchange of the coarse correction, bilinear prolongation
 *          into the finer level, NU2 sweeps.
 * After each cycle the residual 2-norm of the finest level is summed over
 * the ranks with MPI_Allreduce.
 *
 * usage: vcycle [N] [CYCLES] [LEVELS]
 *   N       cells per rank per side, a multiple of 2^(LEVELS-1)  (default 512)
 *   CYCLES  V-cycles                                           (default 250)
 *   LEVELS  grid levels (0: as many as keep >= 4 rows/rank)    (default 0)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NU1 2
#define NU2 2
#define NUC 16
#define OMEGA 0.8
#define MAXLEV 16

typedef struct {
    int n;          /* interior rows = columns on this rank */
    int ld;         /* n + 2 */
    double h;       /* cell width */
    double *u, *f, *r, *tmp;
} level_t;

static int rank, nprocs, up, down;
static MPI_Comm comm;

#define AT(L, a, i, j) ((a)[(size_t)(i) * (L)->ld + (j)])

/* fill the ghost layer of a: neighbour rows by message, physical
 * boundaries by odd reflection (Dirichlet zero on the cell face) */
static void halo(level_t *L, double *a, int tag)
{
    int n = L->n;
    MPI_Request req[4];
    MPI_Status st[4];
    MPI_Irecv(&AT(L, a, 0, 1), n, MPI_DOUBLE, down, tag, comm, &req[0]);
    MPI_Irecv(&AT(L, a, n + 1, 1), n, MPI_DOUBLE, up, tag, comm, &req[1]);
    MPI_Isend(&AT(L, a, 1, 1), n, MPI_DOUBLE, down, tag, comm, &req[2]);
    MPI_Isend(&AT(L, a, n, 1), n, MPI_DOUBLE, up, tag, comm, &req[3]);
    MPI_Waitall(4, req, st);
    if (down == MPI_PROC_NULL)
        for (int j = 1; j <= n; j++) AT(L, a, 0, j) = -AT(L, a, 1, j);
    if (up == MPI_PROC_NULL)
        for (int j = 1; j <= n; j++) AT(L, a, n + 1, j) = -AT(L, a, n, j);
    for (int i = 0; i <= n + 1; i++) {
        AT(L, a, i, 0) = -AT(L, a, i, 1);
        AT(L, a, i, n + 1) = -AT(L, a, i, n);
    }
}

static void smooth(level_t *L, int sweeps, int tag)
{
    int n = L->n;
    double h2 = L->h * L->h;
    for (int s = 0; s < sweeps; s++) {
        halo(L, L->u, tag);
        for (int i = 1; i <= n; i++)
            for (int j = 1; j <= n; j++) {
                double nb = AT(L, L->u, i - 1, j) + AT(L, L->u, i + 1, j) +
                            AT(L, L->u, i, j - 1) + AT(L, L->u, i, j + 1);
                AT(L, L->tmp, i, j) = (1.0 - OMEGA) * AT(L, L->u, i, j) +
                                      OMEGA * 0.25 * (h2 * AT(L, L->f, i, j) + nb);
            }
        double *t = L->u; L->u = L->tmp; L->tmp = t;
    }
}

/* r = f - A u; returns the local sum of r^2 */
static double residual(level_t *L, int tag)
{
    int n = L->n;
    double ih2 = 1.0 / (L->h * L->h), sum = 0.0;
    halo(L, L->u, tag);
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++) {
            double au = (4.0 * AT(L, L->u, i, j) - AT(L, L->u, i - 1, j) - AT(L, L->u, i + 1, j) -
                         AT(L, L->u, i, j - 1) - AT(L, L->u, i, j + 1)) * ih2;
            double rr = AT(L, L->f, i, j) - au;
            AT(L, L->r, i, j) = rr;
            sum += rr * rr;
        }
    return sum;
}

static void restrict_to(level_t *F, level_t *C)
{
    for (int I = 1; I <= C->n; I++)
        for (int J = 1; J <= C->n; J++) {
            int i = 2 * I - 1, j = 2 * J - 1;
            AT(C, C->f, I, J) = 0.25 * (AT(F, F->r, i, j) + AT(F, F->r, i + 1, j) +
                                        AT(F, F->r, i, j + 1) + AT(F, F->r, i + 1, j + 1));
        }
    memset(C->u, 0, (size_t)C->ld * C->ld * sizeof *C->u);
}

static void prolong_add(level_t *C, level_t *F, int tag)
{
    halo(C, C->u, tag);
    for (int i = 1; i <= F->n; i++) {
        int I = (i + 1) / 2, I2 = (i % 2) ? I - 1 : I + 1;
        for (int j = 1; j <= F->n; j++) {
            int J = (j + 1) / 2, J2 = (j % 2) ? J - 1 : J + 1;
            AT(F, F->u, i, j) += 0.5625 * AT(C, C->u, I, J) + 0.1875 * AT(C, C->u, I2, J) +
                                 0.1875 * AT(C, C->u, I, J2) + 0.0625 * AT(C, C->u, I2, J2);
        }
    }
}

static void vcycle(level_t *lev, int l, int nlev)
{
    if (l == nlev - 1) {
        smooth(&lev[l], NUC, l);
        return;
    }
    smooth(&lev[l], NU1, l);
    residual(&lev[l], l);
    restrict_to(&lev[l], &lev[l + 1]);
    vcycle(lev, l + 1, nlev);
    prolong_add(&lev[l + 1], &lev[l], l + 1);
    smooth(&lev[l], NU2, l);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();

    comm = MPI_COMM_WORLD;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nprocs);
    down = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    up = rank < nprocs - 1 ? rank + 1 : MPI_PROC_NULL;

    int n = argc > 1 ? atoi(argv[1]) : 512;
    int cycles = argc > 2 ? atoi(argv[2]) : 250;
    int nlev = argc > 3 ? atoi(argv[3]) : 0;
    if (nlev <= 0)
        for (nlev = 1; nlev < MAXLEV && (n >> nlev) >= 4 && (n >> nlev) << nlev == n; nlev++)
            ;
    if (n < 2 || cycles < 1 || nlev > MAXLEV || (n >> (nlev - 1)) << (nlev - 1) != n) {
        if (rank == 0)
            fprintf(stderr, "usage: vcycle [N] [CYCLES] [LEVELS]; N a multiple of 2^(LEVELS-1)\n");
        MPI_Abort(comm, 1);
    }

    level_t lev[MAXLEV];
    for (int l = 0; l < nlev; l++) {
        level_t *L = &lev[l];
        L->n = n >> l;
        L->ld = L->n + 2;
        L->h = (1.0 / n) * (double)(1 << l);
        size_t sz = (size_t)L->ld * L->ld;
        L->u = calloc(sz, sizeof(double));
        L->f = calloc(sz, sizeof(double));
        L->r = calloc(sz, sizeof(double));
        L->tmp = calloc(sz, sizeof(double));
        if (!L->u || !L->f || !L->r || !L->tmp) {
            fprintf(stderr, "rank %d: out of memory\n", rank);
            MPI_Abort(comm, 2);
        }
    }

    /* f: a smooth source over the whole (P*N) x N domain */
    level_t *F = &lev[0];
    double gh = (double)nprocs * n;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++) {
            double y = ((double)rank * n + i - 0.5) / gh, x = (j - 0.5) / n;
            AT(F, F->f, i, j) = sin(3.141592653589793 * x) * sin(3.141592653589793 * y) + x * y;
        }

    double res = 0.0;
    for (int c = 0; c < cycles; c++) {
        vcycle(lev, 0, nlev);
        double local = residual(&lev[0], 0);
        MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, comm);
        res = sqrt(res);
    }

    double elapsed = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    if (rank == 0)
        printf("vcycle: ranks=%d iters=%d seconds=%.3f\n", nprocs, cycles, tmax);

    for (int l = 0; l < nlev; l++) {
        free(lev[l].u); free(lev[l].f); free(lev[l].r); free(lev[l].tmp);
    }
    MPI_Finalize();
    return 0;
}
