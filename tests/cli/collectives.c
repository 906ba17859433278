/* collectives: every kind of collective the skeleton writer handles, blocking
 * and nonblocking, rooted, v-forms, reductions on ints and doubles, on
 * MPI_COMM_WORLD and on a split communicator, for the skeleton tests in
 * faults.sh (recorded, then predicted: the skeleton must build and run). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, s;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    int x[256] = {0}, y[1024], cnt[64], d[64];
    double dx[8] = {0}, dy[8];
    MPI_Request q;
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, r % 2, -r, &half);
    for (int i = 0; i < s && i < 64; i++) {
        cnt[i] = i + 1;
        d[i] = i * 8;
    }
    for (int it = 0; it < 6; it++) {
        MPI_Igather(x, 2, MPI_INT, y, 2, MPI_INT, 0, MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Iallgather(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Ialltoall(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Iscatterv(x, cnt, d, MPI_INT, y, r + 1, MPI_INT, 0, MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Ibcast(x, 4, MPI_INT, 0, MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Iallreduce(x, y, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Scan(dx, dy, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Exscan(x, y, 2, MPI_INT, MPI_BXOR, MPI_COMM_WORLD);
        MPI_Reduce_scatter_block(x, y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(dx, dy, 1, MPI_DOUBLE, MPI_MIN, half);
        MPI_Bcast(x, 3, MPI_INT, 0, half);
        MPI_Barrier(half);
        MPI_Ibarrier(MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&half);
    if (r == 0)
        printf("collectives done\n");
    MPI_Finalize();
    return 0;
}
