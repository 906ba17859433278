/*
 * polling_halo.c -- 2-D Jacobi relaxation with a polled halo exchange.
 *
 * The global grid is split over a 2-D Cartesian process grid (non-periodic).
 * Each step posts Irecv/Isend of the four edges, then relaxes the interior
 * of the local block in chunks of rows; between chunks it calls MPI_Testall
 * to drive progress, until the halos have arrived. What is left is waited
 * for, the halos are unpacked and the boundary ring is relaxed.
 *
 * Rank 0 also acts as the controller: in the last step it sends a "stop"
 * control message (tag 99) to every rank, itself included. Every rank polls
 * the control channel with MPI_Iprobe at the end of each step and, once it
 * has done its last step, keeps polling until the stop has come in.
 *
 * usage: polling_halo [N] [ITERS] [CHUNKS]
 *   N      local block is N x N points        (default 768)
 *   ITERS  relaxation steps                   (default 900)
 *   CHUNKS interior row chunks between polls  (default 8)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_HALO 10
#define TAG_CTRL 99
#define CTRL_STOP 1

#define IDX(i, j) ((size_t)(i) * (size_t)(ld) + (size_t)(j))

/* one Jacobi update of rows i0..i1-1, columns j0..j1-1 */
static void relax(double *restrict unew, const double *restrict u,
                  const double *restrict f, int ld, double h2,
                  int i0, int i1, int j0, int j1)
{
    for (int i = i0; i < i1; i++)
        for (int j = j0; j < j1; j++)
            unew[IDX(i, j)] = 0.25 * (u[IDX(i - 1, j)] + u[IDX(i + 1, j)] +
                                      u[IDX(i, j - 1)] + u[IDX(i, j + 1)] +
                                      h2 * f[IDX(i, j)]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();

    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    int n = argc > 1 ? atoi(argv[1]) : 768;
    int iters = argc > 2 ? atoi(argv[2]) : 900;
    int nchunks = argc > 3 ? atoi(argv[3]) : 8;
    if (n < 4 || iters < 1 || nchunks < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: polling_halo [N>=4] [ITERS>=1] [CHUNKS>=1]\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* process grid */
    int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
    MPI_Dims_create(nprocs, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Cart_coords(cart, rank, 2, coords);
    int north, south, west, east;
    MPI_Cart_shift(cart, 0, 1, &north, &south);
    MPI_Cart_shift(cart, 1, 1, &west, &east);

    /* local block with one ghost layer: rows/cols 0 and n+1 */
    int ld = n + 2;
    size_t npts = (size_t)ld * (size_t)ld;
    double *u = calloc(npts, sizeof *u);
    double *unew = calloc(npts, sizeof *unew);
    double *f = calloc(npts, sizeof *f);
    double *sbuf = malloc(4 * (size_t)n * sizeof *sbuf);
    double *rbuf = malloc(4 * (size_t)n * sizeof *rbuf);
    if (!u || !unew || !f || !sbuf || !rbuf) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    /* right-hand side: a smooth bump over the global domain */
    int gy0 = coords[0] * n, gx0 = coords[1] * n;
    double gny = (double)dims[0] * n, gnx = (double)dims[1] * n;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++) {
            double y = (gy0 + i - 0.5) / gny - 0.5, x = (gx0 + j - 0.5) / gnx - 0.5;
            f[IDX(i, j)] = 1.0 / (1.0 + 50.0 * (x * x + y * y));
        }
    double h = 1.0 / (gnx > gny ? gnx : gny), h2 = h * h;

    /* halo buffers: 0 north, 1 south, 2 west, 3 east */
    double *sN = sbuf, *sS = sbuf + n, *sW = sbuf + 2 * n, *sE = sbuf + 3 * n;
    double *rN = rbuf, *rS = rbuf + n, *rW = rbuf + 2 * n, *rE = rbuf + 3 * n;

    int rows_per_chunk = (n - 2 + nchunks - 1) / nchunks;
    int stopped = 0;

    for (int step = 0; step < iters; step++) {
        MPI_Request req[8];
        MPI_Status stat[8];
        MPI_Irecv(rN, n, MPI_DOUBLE, north, TAG_HALO, cart, &req[0]);
        MPI_Irecv(rS, n, MPI_DOUBLE, south, TAG_HALO, cart, &req[1]);
        MPI_Irecv(rW, n, MPI_DOUBLE, west, TAG_HALO, cart, &req[2]);
        MPI_Irecv(rE, n, MPI_DOUBLE, east, TAG_HALO, cart, &req[3]);

        memcpy(sN, &u[IDX(1, 1)], (size_t)n * sizeof *sN);
        memcpy(sS, &u[IDX(n, 1)], (size_t)n * sizeof *sS);
        for (int i = 1; i <= n; i++) {
            sW[i - 1] = u[IDX(i, 1)];
            sE[i - 1] = u[IDX(i, n)];
        }
        MPI_Isend(sN, n, MPI_DOUBLE, north, TAG_HALO, cart, &req[4]);
        MPI_Isend(sS, n, MPI_DOUBLE, south, TAG_HALO, cart, &req[5]);
        MPI_Isend(sW, n, MPI_DOUBLE, west, TAG_HALO, cart, &req[6]);
        MPI_Isend(sE, n, MPI_DOUBLE, east, TAG_HALO, cart, &req[7]);

        /* controller: last step, tell everyone to stop */
        int ctrl_msg = CTRL_STOP;
        MPI_Request *creq = NULL;
        MPI_Status *cstat = NULL;
        if (rank == 0 && step == iters - 1) {
            creq = malloc((size_t)nprocs * sizeof *creq);
            cstat = malloc((size_t)nprocs * sizeof *cstat);
            for (int p = 0; p < nprocs; p++)
                MPI_Isend(&ctrl_msg, 1, MPI_INT, p, TAG_CTRL, cart, &creq[p]);
        }

        /* interior rows 2..n-1, columns 2..n-1, in chunks; poll in between */
        int arrived = 0;
        for (int i0 = 2; i0 < n; i0 += rows_per_chunk) {
            int i1 = i0 + rows_per_chunk < n ? i0 + rows_per_chunk : n;
            relax(unew, u, f, ld, h2, i0, i1, 2, n);
            if (!arrived) {
                MPI_Testall(8, req, &arrived, stat);
            }
        }
        if (!arrived)
            MPI_Waitall(8, req, stat);

        /* unpack halos (MPI_PROC_NULL leaves the buffers untouched: zero) */
        if (north != MPI_PROC_NULL) memcpy(&u[IDX(0, 1)], rN, (size_t)n * sizeof *rN);
        if (south != MPI_PROC_NULL) memcpy(&u[IDX(n + 1, 1)], rS, (size_t)n * sizeof *rS);
        for (int i = 1; i <= n; i++) {
            if (west != MPI_PROC_NULL) u[IDX(i, 0)] = rW[i - 1];
            if (east != MPI_PROC_NULL) u[IDX(i, n + 1)] = rE[i - 1];
        }

        /* boundary ring of the local block */
        relax(unew, u, f, ld, h2, 1, 2, 1, n + 1);
        relax(unew, u, f, ld, h2, n, n + 1, 1, n + 1);
        relax(unew, u, f, ld, h2, 2, n, 1, 2);
        relax(unew, u, f, ld, h2, 2, n, n, n + 1);

        double *tmp = u; u = unew; unew = tmp;

        /* poll the control channel */
        int flag;
        MPI_Status st;
        MPI_Iprobe(0, TAG_CTRL, cart, &flag, &st);
        if (flag) {
            int msg;
            MPI_Recv(&msg, 1, MPI_INT, 0, TAG_CTRL, cart, &st);
            stopped = (msg == CTRL_STOP);
        }
        if (creq) {
            MPI_Waitall(nprocs, creq, cstat);
            free(creq);
            free(cstat);
        }
    }

    /* the stop may still be in flight: keep polling until it is here */
    while (!stopped) {
        int flag;
        MPI_Status st;
        MPI_Iprobe(0, TAG_CTRL, cart, &flag, &st);
        if (flag) {
            int msg;
            MPI_Recv(&msg, 1, MPI_INT, 0, TAG_CTRL, cart, &st);
            stopped = (msg == CTRL_STOP);
        }
    }

    /* a checksum of the solution */
    double local = 0.0, total = 0.0;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            local += u[IDX(i, j)];
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, cart);

    double elapsed = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("polling_halo: ranks=%d iters=%d seconds=%.3f\n", nprocs, iters, tmax);

    MPI_Comm_free(&cart);
    free(u); free(unew); free(f); free(sbuf); free(rbuf);
    MPI_Finalize();
    return 0;
}
