/*
 * wavefront (C): pipeline of blocking MPI_Send/MPI_Recv from rank r-1 to
 * rank r+1.  Each of NSWEEP sweeps pushes NCHUNK chunks through the pipeline
 * (rank 0 only sends, the last rank only receives), followed by an
 * MPI_Barrier.  At the end the last rank sends its checksum to rank 0.
 * With 1 rank there is no message at all.
 *
 * Per rank (S = NSWEEP*NCHUNK): Init 1, Barrier NSWEEP, Gather 1, Finalize 1,
 *   np == 1:           nothing else
 *   rank 0:            Send S, Recv 1
 *   0 < rank < np-1:   Recv S, Send S
 *   rank np-1:         Recv S, Send 1
 */
#include "ps_count.h"

#ifndef NSWEEP /* bench/predict_accuracy.sh makes it longer */
#define NSWEEP 4
#endif
#define NCHUNK 5
#define CLEN 4
#define MOD 1000003

int main(int argc, char **argv)
{
    int rank, size;
    CALL(MPI_Init)(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int last = size - 1;

    int acc = 0;
    for (int s = 1; s <= NSWEEP; s++) {
        for (int c = 1; c <= NCHUNK; c++) {
            ps_compute(); /* benchmarks only (PS_WORK) */
            int buf[CLEN];
            if (rank == 0)
                for (int i = 0; i < CLEN; i++) buf[i] = s * 100 + c * 10 + i + 1;
            else
                CALL(MPI_Recv)(buf, CLEN, MPI_INT, rank - 1, c,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            int sum = 0;
            for (int i = 0; i < CLEN; i++) {
                buf[i] = (buf[i] * 3 + rank + 1) % MOD;
                sum += buf[i];
            }
            if (rank < last)
                CALL(MPI_Send)(buf, CLEN, MPI_INT, rank + 1, c,
                               MPI_COMM_WORLD);
            else
                acc = (acc * 7 + sum) % MOD;
        }
        CALL(MPI_Barrier)(MPI_COMM_WORLD);
    }

    if (size > 1 && rank == last)
        CALL(MPI_Send)(&acc, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
    if (size > 1 && rank == 0)
        CALL(MPI_Recv)(&acc, 1, MPI_INT, last, 99, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
    if (rank == 0) printf("wavefront checksum %d\n", acc);

    /* the loop perfskel fold must find as the main one: one sweep per iteration */
    if (rank == 0)
        printf("mainloop %d\n", NSWEEP);
    ps_report();
    MPI_Finalize(); /* counted by ps_report() */
    return 0;
}
