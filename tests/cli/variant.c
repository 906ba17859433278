/* Loops whose arguments change from one iteration to the next (issue 12,
 * points 1, 2 and 4): a ring exchange tagged with the iteration number, a
 * broadcast whose root rotates, an Ibcast sharing a loop with
 * point-to-point requests, a V-cycle whose message size halves per level
 * and whose two receives from one neighbour (left == right on 2 ranks)
 * are in flight at once, and two MPI_Comm_dup in a row used afterwards.
 * `variant MODE [N]`: MODE ring | root | ibcast | vcycle | dup | all;
 * prints "mainloop N" for the loop the fold must find. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char sbuf[1 << 16], rbuf[2][1 << 16];

static void ring(int rank, int size, int n)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < n; i++) {
        MPI_Request r[2];
        MPI_Irecv(rbuf[0], 64, MPI_BYTE, left, i, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(sbuf, 64, MPI_BYTE, right, i, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
}

static void root(int rank, int size, int n)
{
    (void)rank;
    for (int i = 0; i < n; i++)
        MPI_Bcast(rbuf[0], 128, MPI_BYTE, i % size, MPI_COMM_WORLD);
}

static void ibcast(int rank, int size, int n)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < n; i++) {
        MPI_Request r[3];
        MPI_Ibcast(rbuf[1], 32, MPI_BYTE, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(rbuf[0], 64, MPI_BYTE, left, 5, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(sbuf, 64, MPI_BYTE, right, 5, MPI_COMM_WORLD, &r[2]);
        MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
    }
}

/* one V-cycle: levels 0..L-1 down then up; at each level both
 * neighbours' messages are received into separate requests before any
 * is sent */
static void vcycle(int rank, int size, int n)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    const int L = 4;
    for (int c = 0; c < n; c++)
        for (int k = 0; k < 2 * L - 1; k++) {
            int lev = k < L ? k : 2 * L - 2 - k;
            int bytes = 8192 >> lev;
            MPI_Request r[4];
            MPI_Irecv(rbuf[0], bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD, &r[0]);
            MPI_Irecv(rbuf[1], bytes, MPI_BYTE, right, 2, MPI_COMM_WORLD, &r[1]);
            MPI_Isend(sbuf, bytes, MPI_BYTE, right, 1, MPI_COMM_WORLD, &r[2]);
            MPI_Isend(sbuf, bytes, MPI_BYTE, left, 2, MPI_COMM_WORLD, &r[3]);
            MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        }
}

static void dup2(int rank, int size, int n)
{
    (void)rank, (void)size;
    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    for (int i = 0; i < n; i++) {
        MPI_Allreduce(sbuf, rbuf[0], 4, MPI_INT, MPI_SUM, a);
        MPI_Barrier(b);
    }
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "all";
    int n = argc > 2 ? atoi(argv[2]) : 40;
    memset(sbuf, rank, sizeof sbuf);
    int all = !strcmp(mode, "all");
    if (all || !strcmp(mode, "ring"))
        ring(rank, size, n);
    if (all || !strcmp(mode, "root"))
        root(rank, size, n);
    if (all || !strcmp(mode, "ibcast"))
        ibcast(rank, size, n);
    if (all || !strcmp(mode, "vcycle"))
        vcycle(rank, size, n);
    if (all || !strcmp(mode, "dup"))
        dup2(rank, size, n);
    if (rank == 0 && !all)
        printf("mainloop %d\n", n);
    MPI_Finalize();
    return 0;
}
