/* otf2prog: a small MPI program for tests/cli/otf2.sh (export and import
 * --otf2): blocking and nonblocking point-to-point on a ring, Sendrecv, a
 * send to MPI_PROC_NULL, collectives with roots other than 0, a
 * nonblocking Iallreduce, and an even/odd sub-communicator from
 * MPI_Comm_split used for a Bcast, an Allreduce and a ring of its own,
 * then freed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ITERS 4

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double buf[64] = {0}, in[64], sum = 0;
    int *all = calloc((size_t)size * 8, sizeof *all), *all2 = calloc((size_t)size * 8, sizeof *all2), mine[8] = {rank};

    for (int it = 0; it < ITERS; it++) {
        MPI_Request rq[2];
        MPI_Irecv(in, 16, MPI_DOUBLE, left, it, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(buf, 16, MPI_DOUBLE, right, it, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        if (rank % 2 == 0) {
            MPI_Send(buf, 8 + it, MPI_DOUBLE, right, 100, MPI_COMM_WORLD);
            MPI_Recv(in, 64, MPI_DOUBLE, left, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, 64, MPI_DOUBLE, left, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 8 + it, MPI_DOUBLE, right, 100, MPI_COMM_WORLD);
        }
        MPI_Sendrecv(buf, 4, MPI_DOUBLE, right, 7, in, 4, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        MPI_Allreduce(buf, in, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Bcast(buf, 10, MPI_DOUBLE, size - 1, MPI_COMM_WORLD);
    MPI_Reduce(buf, in, 3, MPI_DOUBLE, MPI_MAX, size / 2, MPI_COMM_WORLD);
    MPI_Gather(mine, 8, MPI_INT, all, 8, MPI_INT, 1 % size, MPI_COMM_WORLD);
    MPI_Scatter(all, 8, MPI_INT, mine, 8, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Alltoall(all, 8, MPI_INT, all2, 8, MPI_INT, MPI_COMM_WORLD);
    MPI_Request r;
    MPI_Iallreduce(buf, in, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Comm sub;
    int srank, ssize;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &sub);
    MPI_Comm_rank(sub, &srank);
    MPI_Comm_size(sub, &ssize);
    MPI_Bcast(buf, 6, MPI_DOUBLE, ssize - 1, sub);
    MPI_Allreduce(buf, in, 1, MPI_DOUBLE, MPI_SUM, sub);
    if (ssize > 1) {
        MPI_Request q[2];
        MPI_Irecv(in, 3, MPI_DOUBLE, (srank + ssize - 1) % ssize, 5, sub, &q[0]);
        MPI_Isend(buf, 3, MPI_DOUBLE, (srank + 1) % ssize, 5, sub, &q[1]);
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        MPI_Wait(&q[1], MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&sub);
    sum = in[0];
    if (rank == 0)
        printf("otf2prog %d ranks done %g\n", size, sum * 0);
    free(all), free(all2);
    MPI_Finalize();
    return 0;
}
