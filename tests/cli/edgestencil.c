/*
 * edgestencil: a stencil whose boundary ranks make fewer calls
 * (docs/merged-format.md, How ranks are merged).
 * Ranks sit on a 1-D line (or, with the argument "2d", a 2-D grid from
 * MPI_Dims_create); a rank with no neighbour on a side skips the calls to
 * it instead of passing MPI_PROC_NULL, so edge ranks' sequences are the
 * interior ranks' with calls deleted. Each of NITER iterations: a halo
 * exchange (Irecv per neighbour, Isend per neighbour, one Waitall), a
 * blocking pipeline sweep (Recv from the west, Send to the east) and an
 * MPI_Allreduce on MPI_COMM_WORLD. The merge must align the ranks: one
 * merged event per call site, so per Allreduce one with every rank in it.
 * Before the merge aligned ranks, Algorithm 1 turned the interior ranks'
 * sweep into 2 x NPLANES sends then receives, longer than the look-ahead
 * window, and rank 0 ran ahead of the others for the whole trace.
 * An optional number (1-8) exchanges that many fields per iteration.
 *
 * Prints its call counts (ps_count.h), "mainloop NITER", "allreduce NITER"
 * and "sites N": the call sites of all ranks together, the merged length.
 */
#include "ps_count.h"

#ifndef NITER
#define NITER 200
#endif
#define NLOC 16 /* interior cells per rank and direction */
#define NFMAX 8
#ifndef NPLANES
#define NPLANES 80
#endif

int main(int argc, char **argv)
{
    int rank, size, dims[2] = {0, 0}, two_d = 0, nf = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "2d")) two_d = 1;
        else nf = atoi(argv[i]);
    }
    if (nf < 1 || nf > NFMAX) nf = 1;
    CALL(MPI_Init)(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (two_d) {
        CALL(MPI_Dims_create)(size, 2, dims); /* recorded (trace format 3) */
    } else {
        dims[0] = size;
        dims[1] = 1;
    }
    int x = rank % dims[0], y = rank / dims[0];
    /* neighbours in the order west, east, north, south; -1: none (skipped) */
    int nb[4] = {x > 0 ? rank - 1 : -1, x < dims[0] - 1 ? rank + 1 : -1,
                 y > 0 ? rank - dims[0] : -1, y < dims[1] - 1 ? rank + dims[0] : -1};

    double u[4][NLOC], halo[4][NLOC], local = rank, global = 0;
    for (int d = 0; d < 4; d++)
        for (int i = 0; i < NLOC; i++) u[d][i] = rank + 0.01 * i;

    for (int it = 1; it <= NITER; it++) {
        ps_compute();
        for (int f = 0; f < nf; f++) {
            MPI_Request req[8];
            int n = 0;
            /* tag 10 + d (+ 4 per field): the message arriving from
             * direction d; it was sent towards d ^ 1 */
            for (int d = 0; d < 4; d++)
                if (nb[d] >= 0)
                    CALL(MPI_Irecv)(halo[d], NLOC, MPI_DOUBLE, nb[d], 10 + d + 4 * f, MPI_COMM_WORLD, &req[n++]);
            for (int d = 0; d < 4; d++)
                if (nb[d] >= 0)
                    CALL(MPI_Isend)(u[d], NLOC, MPI_DOUBLE, nb[d], 10 + (d ^ 1) + 4 * f, MPI_COMM_WORLD,
                                    &req[n++]);
            CALL(MPI_Waitall)(n, req, MPI_STATUSES_IGNORE);
        }
        for (int d = 0; d < 4; d++)
            if (nb[d] >= 0)
                for (int i = 0; i < NLOC; i++) u[d][i] = 0.5 * (u[d][i] + halo[d][i]);

        /* a pipelined sweep along x over the planes, as LU's: wait for the
         * west's plane, pass it east */
        double carry = 0;
        for (int k = 0; k < NPLANES; k++) {
            if (nb[0] >= 0)
                CALL(MPI_Recv)(&carry, 1, MPI_DOUBLE, nb[0], 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            carry += u[0][k % NLOC];
            if (nb[1] >= 0)
                CALL(MPI_Send)(&carry, 1, MPI_DOUBLE, nb[1], 3, MPI_COMM_WORLD);
        }

        local = u[0][0] + carry * 1e-6;
        CALL(MPI_Allreduce)(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0) {
        printf("edgestencil %s %d x %d checksum %.6e\n", two_d ? "2d" : "1d", dims[0], dims[1], global);
        printf("mainloop %d\n", NITER);
        printf("allreduce %d\n", NITER);
        /* per iteration: Irecv and Isend per direction some rank has, per
         * field, a Waitall per field, the sweep's Send and Recv sites, the
         * Allreduce; then Init, ps_report's Gather, Finalize, and in 2-D
         * the Dims_create */
        int ndirs = 2 * (dims[0] > 1) + 2 * (dims[1] > 1);
        long sites = 3 + two_d + (long)NITER * (nf * (2 * ndirs + 1) + (dims[0] > 1 ? 2 * NPLANES : 0) + 1);
        printf("sites %ld\n", sites);
    }
    ps_report();
    MPI_Finalize(); /* counted by ps_report() */
    return 0;
}
