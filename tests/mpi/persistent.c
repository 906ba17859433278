/*
 * persistent (C): persistent point-to-point.  MPI_Recv_init from / MPI_Send_init
 * to both ring neighbours once (a 1-rank ring talks to itself), NITER
 * iterations of MPI_Startall + MPI_Waitall on the 4 requests, MPI_Request_free
 * of each; then one MPI_Sendrecv ring shift, one MPI_Ibarrier + MPI_Wait and
 * an MPI_Reduce of the checksum to rank 0.
 *
 * Per rank: Init 1, Send_init 2, Recv_init 2, Startall NITER, Waitall NITER,
 *   Request_free 4, Sendrecv 1, Ibarrier 1, Wait 1, Reduce 1, Gather 1,
 *   Finalize 1.
 */
#include "ps_count.h"

#ifndef NITER /* bench/predict_accuracy.sh makes it longer */
#define NITER 20
#endif
#define MOD 1000003

int main(int argc, char **argv)
{
    int rank, size;
    CALL(MPI_Init)(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;

    /* tag 1: travelling right, tag 2: travelling left */
    int from_left[2], from_right[2], to_right[2], to_left[2];
    MPI_Request req[4];
    CALL(MPI_Recv_init)(from_left, 2, MPI_INT, left, 1, MPI_COMM_WORLD,
                        &req[0]);
    CALL(MPI_Recv_init)(from_right, 2, MPI_INT, right, 2, MPI_COMM_WORLD,
                        &req[1]);
    CALL(MPI_Send_init)(to_right, 2, MPI_INT, right, 1, MPI_COMM_WORLD,
                        &req[2]);
    CALL(MPI_Send_init)(to_left, 2, MPI_INT, left, 2, MPI_COMM_WORLD,
                        &req[3]);

    int v = rank + 1;
    for (int it = 1; it <= NITER; it++) {
        ps_compute(); /* benchmarks only (PS_WORK) */
        to_right[0] = v;
        to_right[1] = it;
        to_left[0] = v + 1;
        to_left[1] = -it;
        CALL(MPI_Startall)(4, req);
        CALL(MPI_Waitall)(4, req, MPI_STATUSES_IGNORE);
        v = (from_left[0] + 2 * from_right[0] + 3 * v + from_left[1] +
             from_right[1] + it) % MOD;
    }
    for (int i = 0; i < 4; i++) CALL(MPI_Request_free)(&req[i]);

    int w;
    CALL(MPI_Sendrecv)(&v, 1, MPI_INT, right, 3, &w, 1, MPI_INT, left, 3,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    MPI_Request breq;
    CALL(MPI_Ibarrier)(MPI_COMM_WORLD, &breq);
    CALL(MPI_Wait)(&breq, MPI_STATUS_IGNORE);

    int local = (v + 2 * w) % MOD, total = 0;
    CALL(MPI_Reduce)(&local, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("persistent checksum %d\n", total);

    /* the loop perfskel fold must find as the main one: one Startall/Waitall per iteration */
    if (rank == 0)
        printf("mainloop %d\n", NITER);
    ps_report();
    MPI_Finalize(); /* counted by ps_report() */
    return 0;
}
