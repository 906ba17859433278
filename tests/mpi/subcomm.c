/*
 * subcomm (C): communicator and group management.  MPI_Comm_split makes
 * even/odd sub-communicators, MPI_Comm_dup a copy of MPI_COMM_WORLD, and
 * MPI_Comm_create a "low half" communicator (world ranks < (np+1)/2) from a
 * group built with MPI_Comm_group + MPI_Group_incl (both groups then freed
 * with MPI_Group_free).  On the split communicator: MPI_Allreduce, MPI_Bcast
 * and NRING steps of a point-to-point ring (MPI_Irecv + MPI_Send + MPI_Wait;
 * a 1-rank ring talks to itself); on the low half: MPI_Bcast + MPI_Allreduce;
 * on the duplicate: one MPI_Allreduce of the checksum.  Every communicator is
 * released with MPI_Comm_free.
 *
 * Per rank (low = 1 if rank < (np+1)/2 else 0): Init 1, Comm_split 1,
 *   Comm_dup 1, Comm_group 1, Group_incl 1, Comm_create 1, Group_free 2,
 *   Allreduce 2+low, Bcast 1+low, Irecv NRING, Send NRING, Wait NRING,
 *   Comm_free 2+low, Gather 1, Finalize 1.
 */
#include "ps_count.h"

#ifndef NRING /* bench/predict_accuracy.sh makes it longer */
#define NRING 5
#endif
#define MOD 1000003
#define MAXP 64

int main(int argc, char **argv)
{
    int rank, size;
    CALL(MPI_Init)(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXP) MPI_Abort(MPI_COMM_WORLD, 1);

    MPI_Comm sub, dup, low;
    CALL(MPI_Comm_split)(MPI_COMM_WORLD, rank % 2, rank, &sub);
    CALL(MPI_Comm_dup)(MPI_COMM_WORLD, &dup);

    MPI_Group world_group, low_group;
    int nlow = (size + 1) / 2, low_ranks[MAXP];
    for (int i = 0; i < nlow; i++) low_ranks[i] = i;
    CALL(MPI_Comm_group)(MPI_COMM_WORLD, &world_group);
    CALL(MPI_Group_incl)(world_group, nlow, low_ranks, &low_group);
    CALL(MPI_Comm_create)(MPI_COMM_WORLD, low_group, &low);
    CALL(MPI_Group_free)(&low_group);
    CALL(MPI_Group_free)(&world_group);

    /* even/odd sub-communicator */
    int subrank, subsize, subsum, val = 0;
    MPI_Comm_rank(sub, &subrank);
    MPI_Comm_size(sub, &subsize);
    CALL(MPI_Allreduce)(&rank, &subsum, 1, MPI_INT, MPI_SUM, sub);
    if (subrank == 0) val = rank * 10 + 5;
    CALL(MPI_Bcast)(&val, 1, MPI_INT, 0, sub);

    int subleft = (subrank + subsize - 1) % subsize;
    int subright = (subrank + 1) % subsize;
    int token = rank + 1, acc = 0;
    for (int step = 1; step <= NRING; step++) {
        ps_compute(); /* benchmarks only (PS_WORK) */
        int in;
        MPI_Request req;
        CALL(MPI_Irecv)(&in, 1, MPI_INT, subleft, 7, sub, &req);
        CALL(MPI_Send)(&token, 1, MPI_INT, subright, 7, sub);
        CALL(MPI_Wait)(&req, MPI_STATUS_IGNORE);
        token = (in * 3 + subrank + step) % MOD;
        acc = (acc * 5 + token) % MOD;
    }

    /* low half */
    int lowpart = 0;
    if (low != MPI_COMM_NULL) {
        int x = 0, lowsum;
        if (rank == 0) x = 42;
        CALL(MPI_Bcast)(&x, 1, MPI_INT, 0, low);
        CALL(MPI_Allreduce)(&rank, &lowsum, 1, MPI_INT, MPI_SUM, low);
        lowpart = x + lowsum;
    }

    /* duplicate of MPI_COMM_WORLD */
    int local = (subsum + val * 3 + acc * 5 + lowpart * 7) % MOD, total;
    CALL(MPI_Allreduce)(&local, &total, 1, MPI_INT, MPI_SUM, dup);
    if (rank == 0) printf("subcomm checksum %d\n", total);

    CALL(MPI_Comm_free)(&sub);
    CALL(MPI_Comm_free)(&dup);
    if (low != MPI_COMM_NULL) CALL(MPI_Comm_free)(&low);

    /* the loop perfskel fold must find as the main one: the ring steps */
    if (rank == 0)
        printf("mainloop %d\n", NRING);
    ps_report();
    MPI_Finalize(); /* counted by ps_report() */
    return 0;
}
