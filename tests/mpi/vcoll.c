/*
 * vcoll (C): vector collectives with rank-dependent counts (rank i
 * contributes i+1 ints; MPI_Alltoallv sends (i+j)%3+1 ints from i to j).
 * NITER iterations of MPI_Gatherv and MPI_Scatterv (root 0), MPI_Allgatherv,
 * MPI_Alltoallv and MPI_Reduce_scatter; then one MPI_Allreduce with
 * MPI_IN_PLACE and one MPI_Gather with MPI_IN_PLACE at the root.
 *
 * Per rank: Init 1, Gatherv NITER, Scatterv NITER, Allgatherv NITER,
 *   Alltoallv NITER, Reduce_scatter NITER, Allreduce 1,
 *   Gather 2 (the MPI_IN_PLACE one + the count report), Finalize 1.
 */
#include "ps_count.h"

#ifndef NITER /* bench/predict_accuracy.sh makes it longer */
#define NITER 3
#endif
#define MOD 1000003
#define MAXP 16
#define MAXTOT (MAXP * (MAXP + 1) / 2)

static int mix(int acc, int x) { return (acc * 31 + x) % MOD; }

int main(int argc, char **argv)
{
    int rank, size;
    CALL(MPI_Init)(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXP) MPI_Abort(MPI_COMM_WORLD, 1);

    /* rank i owns i+1 elements, stored at offset i*(i+1)/2 */
    int counts[MAXP], displs[MAXP], a2a_sc[MAXP], a2a_sd[MAXP], a2a_rc[MAXP],
        a2a_rd[MAXP];
    for (int i = 0; i < size; i++) {
        counts[i] = i + 1;
        displs[i] = i * (i + 1) / 2;
        a2a_sc[i] = (rank + i) % 3 + 1; /* what I send to i */
        a2a_rc[i] = (i + rank) % 3 + 1; /* what i sends to me */
        a2a_sd[i] = i == 0 ? 0 : a2a_sd[i - 1] + a2a_sc[i - 1];
        a2a_rd[i] = i == 0 ? 0 : a2a_rd[i - 1] + a2a_rc[i - 1];
    }
    const int total = size * (size + 1) / 2, mine = rank + 1;

    int acc = 0;
    for (int it = 1; it <= NITER; it++) {
        ps_compute(); /* benchmarks only (PS_WORK) */
        int sbuf[MAXTOT], rbuf[MAXTOT], piece[MAXP];

        /* Gatherv to 0 */
        for (int k = 0; k < mine; k++) piece[k] = rank * 100 + k + it;
        CALL(MPI_Gatherv)(piece, mine, MPI_INT, rbuf, counts, displs, MPI_INT,
                          0, MPI_COMM_WORLD);
        if (rank == 0)
            for (int k = 0; k < total; k++) acc = mix(acc, rbuf[k]);

        /* Scatterv from 0 */
        if (rank == 0)
            for (int k = 0; k < total; k++) sbuf[k] = it * 1000 + k;
        CALL(MPI_Scatterv)(sbuf, counts, displs, MPI_INT, piece, mine,
                           MPI_INT, 0, MPI_COMM_WORLD);
        for (int k = 0; k < mine; k++) acc = mix(acc, piece[k]);

        /* Allgatherv */
        for (int k = 0; k < mine; k++) piece[k] = rank * 10 + k * it;
        CALL(MPI_Allgatherv)(piece, mine, MPI_INT, rbuf, counts, displs,
                             MPI_INT, MPI_COMM_WORLD);
        for (int k = 0; k < total; k++) acc = mix(acc, rbuf[k]);

        /* Alltoallv: element m of the block for j is rank*100 + j*10 + m */
        for (int j = 0; j < size; j++)
            for (int m = 0; m < a2a_sc[j]; m++)
                sbuf[a2a_sd[j] + m] = rank * 100 + j * 10 + m + it;
        CALL(MPI_Alltoallv)(sbuf, a2a_sc, a2a_sd, MPI_INT, rbuf, a2a_rc,
                            a2a_rd, MPI_INT, MPI_COMM_WORLD);
        for (int k = 0; k < a2a_rd[size - 1] + a2a_rc[size - 1]; k++)
            acc = mix(acc, rbuf[k]);

        /* Reduce_scatter: rank i gets i+1 summed elements */
        for (int k = 0; k < total; k++) sbuf[k] = rank + k * it;
        CALL(MPI_Reduce_scatter)(sbuf, piece, counts, MPI_INT, MPI_SUM,
                                 MPI_COMM_WORLD);
        for (int k = 0; k < mine; k++) acc = mix(acc, piece[k]);
    }

    int sum = acc;
    CALL(MPI_Allreduce)(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM,
                        MPI_COMM_WORLD);

    int all[MAXP];
    if (rank == 0) {
        all[0] = acc;
        CALL(MPI_Gather)(MPI_IN_PLACE, 1, MPI_INT, all, 1, MPI_INT, 0,
                         MPI_COMM_WORLD);
        int g = 0;
        for (int i = 0; i < size; i++) g = (g + (i + 1) * all[i]) % MOD;
        printf("vcoll allreduce %d gather %d\n", sum, g);
    } else {
        CALL(MPI_Gather)(&acc, 1, MPI_INT, NULL, 0, MPI_INT, 0,
                         MPI_COMM_WORLD);
    }

    /* the loop perfskel fold must find as the main one: one round of v-collectives per iteration */
    if (rank == 0)
        printf("mainloop %d\n", NITER);
    ps_report();
    MPI_Finalize(); /* counted by ps_report() */
    return 0;
}
