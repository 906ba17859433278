/*
 * tagged_ring.c -- a ring pipeline of particle blocks with per-step control
 * broadcasts.
 *
 * Each rank owns a block of "particles" (positions and velocities). Every
 * step:
 *   - the step's parameters (time step, damping) are broadcast from a root
 *     that rotates with the step (MPI_Bcast, root = step % P);
 *   - every rank passes a copy of its block to the right neighbour and takes
 *     the left one's (MPI_Irecv/MPI_Isend, tag = step number), while a field
 *     table is broadcast from another rotating root with MPI_Ibcast;
 *   - while those requests are in flight the rank advances its own block
 *     against the table; then it waits for them and computes the pairwise
 *     interaction of its block with the block that came in.
 * The tag is the step number (modulo MPI_TAG_UB + 1 for very long runs).
 *
 * usage: tagged_ring [N] [ITERS]
 *   N      particles per rank        (default 1200)
 *   ITERS  steps                     (default 240)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NTABLE 4096

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();

    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    int n = argc > 1 ? atoi(argv[1]) : 1200;
    int iters = argc > 2 ? atoi(argv[2]) : 240;
    if (n < 1 || iters < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: tagged_ring [N>=1] [ITERS>=1]\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    int *tag_ub_p, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub_p, &flag);
    long tag_mod = flag ? (long)*tag_ub_p + 1 : 32768;

    int right = (rank + 1) % nprocs, left = (rank + nprocs - 1) % nprocs;

    /* block layout: x[0..n), v[0..n) */
    double *mine = malloc(2 * (size_t)n * sizeof *mine);
    double *outgoing = malloc(2 * (size_t)n * sizeof *outgoing);
    double *incoming = malloc(2 * (size_t)n * sizeof *incoming);
    double *force = malloc((size_t)n * sizeof *force);
    double *table = malloc(NTABLE * sizeof *table);
    if (!mine || !outgoing || !incoming || !force || !table) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *x = mine, *v = mine + n;
    for (int i = 0; i < n; i++) {
        x[i] = (double)(rank * n + i) / ((double)nprocs * n);
        v[i] = 0.0;
    }
    for (int k = 0; k < NTABLE; k++)
        table[k] = 0.0;

    for (int step = 0; step < iters; step++) {
        /* step parameters from a rotating root */
        double params[2];
        int proot = step % nprocs;
        if (rank == proot) {
            params[0] = 1.0e-3 / (1.0 + 0.001 * step);   /* dt */
            params[1] = 0.999;                          /* damping */
        }
        MPI_Bcast(params, 2, MPI_DOUBLE, proot, MPI_COMM_WORLD);
        double dt = params[0], damp = params[1];

        /* ring exchange of a snapshot of the block, tagged by step */
        int tag = (int)(step % tag_mod);
        for (int i = 0; i < 2 * n; i++)
            outgoing[i] = mine[i];
        MPI_Request req[3];
        MPI_Status stat[3];
        MPI_Irecv(incoming, 2 * n, MPI_DOUBLE, left, tag, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(outgoing, 2 * n, MPI_DOUBLE, right, tag, MPI_COMM_WORLD, &req[1]);

        /* field table from the next root, overlapping the ring messages */
        int troot = (step + 1) % nprocs;
        if (rank == troot)
            for (int k = 0; k < NTABLE; k++)
                table[k] = 0.5 * sin(6.283185307179586 * k / NTABLE + 0.01 * step);
        MPI_Ibcast(table, NTABLE, MPI_DOUBLE, troot, MPI_COMM_WORLD, &req[2]);

        /* self interaction: O(n^2) over the own block */
        for (int i = 0; i < n; i++) {
            double fi = 0.0, xi = x[i];
            for (int j = 0; j < n; j++) {
                double d = xi - x[j];
                fi += d / (1.0e-2 + d * d);
            }
            force[i] = fi / n;
        }

        MPI_Waitall(3, req, stat);

        /* external field from the (just broadcast) table, then the
         * interaction with the neighbour's block */
        const double *xo = incoming;
        for (int i = 0; i < n; i++) {
            double xi = x[i], fi = 0.0;
            for (int j = 0; j < n; j++) {
                double d = xi - xo[j];
                fi += d / (1.0e-2 + d * d);
            }
            double s = xi - floor(xi);
            int k = (int)(s * (NTABLE - 1));
            force[i] += fi / n + table[k];
        }

        for (int i = 0; i < n; i++) {
            v[i] = damp * v[i] + dt * force[i];
            x[i] += dt * v[i];
        }
    }

    double local = 0.0, total = 0.0;
    for (int i = 0; i < n; i++)
        local += x[i] * x[i];
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

    double elapsed = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("tagged_ring: ranks=%d iters=%d seconds=%.3f\n", nprocs, iters, tmax);

    free(mine); free(outgoing); free(incoming); free(force); free(table);
    MPI_Finalize();
    return 0;
}
