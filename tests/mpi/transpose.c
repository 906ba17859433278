/*
 * transpose (C): NITER iterations of a distributed matrix transpose.  Each
 * iteration rank 0 broadcasts a seed (MPI_Bcast), every rank fills its block
 * row from it, MPI_Alltoall transposes the blocks, and a checksum of the
 * result goes to rank 0 with MPI_Reduce.
 *
 * Per rank: Init 1, Bcast NITER, Alltoall NITER, Reduce NITER, Gather 1,
 *           Finalize 1.
 */
#include "ps_count.h"

#ifndef NITER /* bench/predict_accuracy.sh makes it longer */
#define NITER 10
#endif
#define BLK 2 /* ints per (source, destination) block */
#define MOD 1000003
#define MAXP 64

int main(int argc, char **argv)
{
    int rank, size;
    CALL(MPI_Init)(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXP) MPI_Abort(MPI_COMM_WORLD, 1);

    int a[MAXP * BLK], b[MAXP * BLK];
    int total = 0;
    for (int it = 1; it <= NITER; it++) {
        ps_compute(); /* benchmarks only (PS_WORK) */
        int seed = 0;
        if (rank == 0) seed = it * 13 + 7;
        CALL(MPI_Bcast)(&seed, 1, MPI_INT, 0, MPI_COMM_WORLD);

        for (int j = 0; j < size; j++)
            for (int k = 0; k < BLK; k++)
                a[j * BLK + k] = (seed * (rank + 1) + j * 7 + k) % MOD;
        CALL(MPI_Alltoall)(a, BLK, MPI_INT, b, BLK, MPI_INT, MPI_COMM_WORLD);

        int local = 0, red = 0;
        for (int i = 0; i < size * BLK; i++)
            local = (local + (i + 1) * b[i]) % MOD;
        CALL(MPI_Reduce)(&local, &red, 1, MPI_INT, MPI_SUM, 0,
                         MPI_COMM_WORLD);
        if (rank == 0) total = (total * 3 + red) % MOD;
    }
    if (rank == 0) printf("transpose checksum %d\n", total);

    /* the loop perfskel fold must find as the main one: one transpose per iteration */
    if (rank == 0)
        printf("mainloop %d\n", NITER);
    ps_report();
    MPI_Finalize(); /* counted by ps_report() */
    return 0;
}
