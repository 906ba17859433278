/* Loops whose arguments change from one iteration to the next
 * (docs/folding.md, Loops whose arguments change): a ring exchange tagged
 * with the iteration number, a broadcast whose root rotates, an Ibcast
 * sharing a loop with point-to-point requests, a V-cycle whose message size
 * halves per level and whose two receives from one neighbour (left == right
 * on 2 ranks) are in flight at once, and two MPI_Comm_dup in a row used
 * afterwards.
 * And what skeletons got wrong (src/gen): waits in an order that changes
 * with rank and iteration (one table read twice), matched probes among
 * other messages, persistent requests completed in a loop of their own,
 * Testall / Testsome that complete on one rank and not on the other, and
 * Iprobe polling whose length is the time a message takes.
 * `variant MODE [N]`: MODE ring | root | ibcast | vcycle | dup | waitorder |
 * mprobe | persist | testpoll | poll | all (the first five); prints
 * "mainloop N" for the loop the fold must find. */
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

/* two requests waited for one by one, in an order that depends on the rank
 * and the iteration: the first MPI_Wait's request id is a table by rank and
 * execution, which its call names twice */
static void waitorder(int rank, int size, int n)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < n; i++) {
        MPI_Request r[2];
        MPI_Irecv(rbuf[0], 64, MPI_BYTE, left, 3, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(sbuf, 64, MPI_BYTE, right, 3, MPI_COMM_WORLD, &r[1]);
        int k = (i * 7 + rank * 3) % 5 < 2;
        MPI_Wait(&r[k], MPI_STATUS_IGNORE);
        MPI_Wait(&r[1 - k], MPI_STATUS_IGNORE);
    }
}

/* three messages from the left neighbour per iteration: the one with tag
 * 2 taken by MPI_Mprobe + MPI_Mrecv, the one with tag 3 found by polling
 * MPI_Improbe from MPI_ANY_SOURCE and taken by MPI_Mrecv, and only then
 * the one with tag 1 (sent first) by MPI_Recv: a matched receive replayed
 * as any receive would take the tag 1 message and leave the MPI_Recv
 * waiting */
static void mprobe(int rank, int size, int n)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < n; i++) {
        MPI_Request r[3];
        MPI_Message m;
        MPI_Isend(sbuf, 64, MPI_BYTE, right, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(sbuf, 128, MPI_BYTE, right, 2, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(sbuf, 32, MPI_BYTE, right, 3, MPI_COMM_WORLD, &r[2]);
        MPI_Mprobe(left, 2, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE);
        MPI_Mrecv(rbuf[0], 128, MPI_BYTE, &m, MPI_STATUS_IGNORE);
        for (int f = 0; !f;)
            MPI_Improbe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &f, &m, MPI_STATUS_IGNORE);
        MPI_Mrecv(rbuf[1], 32, MPI_BYTE, &m, MPI_STATUS_IGNORE);
        MPI_Recv(rbuf[0], 64, MPI_BYTE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
    }
}

/* twelve persistent requests (six each way, tags 0-5), started together
 * and completed one MPI_Wait each, in 3 rounds (too few to scale): a loop
 * of twelve waits, which must not run fewer times than there are requests;
 * freed at the end */
static void persist(int rank, int size, int n)
{
    n = 3;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request q[12];
    for (int t = 0; t < 6; t++) {
        MPI_Recv_init(rbuf[0] + 64 * t, 64, MPI_BYTE, left, t, MPI_COMM_WORLD, &q[t]);
        MPI_Send_init(sbuf + 64 * t, 64, MPI_BYTE, right, t, MPI_COMM_WORLD, &q[6 + t]);
    }
    for (int i = 0; i < n; i++) {
        MPI_Startall(12, q);
        for (int k = 0; k < 12; k++)
            MPI_Wait(&q[k], MPI_STATUS_IGNORE);
    }
    for (int k = 0; k < 12; k++)
        MPI_Request_free(&q[k]);
}

/* rank 0's receive is matched by rank 1's MPI_Ssend before a barrier,
 * rank 1's only after a second barrier: the same MPI_Testall (then
 * MPI_Testsome) completes on rank 0 and finds nothing on rank 1, whose
 * replay as a wait would never return */
static void testpoll(int rank, int size, int n)
{
    int other = (rank + 1) % size;
    for (int i = 0; i < 2 * n; i++) {
        MPI_Request q = MPI_REQUEST_NULL;
        int f = 0, idx[1];
        MPI_Irecv(rbuf[0], 16, MPI_BYTE, other, rank == 0 ? 11 : 12, MPI_COMM_WORLD, &q);
        if (rank == 1)
            MPI_Ssend(sbuf, 16, MPI_BYTE, 0, 11, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        if (i < n)
            MPI_Testall(1, &q, &f, MPI_STATUSES_IGNORE);
        else
            MPI_Testsome(1, &q, &f, idx, MPI_STATUSES_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            MPI_Send(sbuf, 16, MPI_BYTE, 1, 12, MPI_COMM_WORLD);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
}

/* rank 0 polls with MPI_Iprobe until rank 1's message, sent after 2 ms,
 * is there: how many polls ran is how long the message took */
static void poll(int rank, int size, int n)
{
    (void)size;
    for (int i = 0; i < n; i++) {
        if (rank == 1) {
            double t = MPI_Wtime();
            while (MPI_Wtime() - t < 0.002)
                ;
            MPI_Send(sbuf, 16, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
        } else if (rank == 0) {
            for (int f = 0; !f;)
                MPI_Iprobe(1, 9, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE);
            MPI_Recv(rbuf[0], 16, MPI_BYTE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

/* a loop whose first iteration computes ten times longer than the rest
 * (a cold start): fold keeps it apart as an outlier, the skeleton replays
 * it once and scales the steady ones */
static void coldstart(int rank, int size, int n)
{
    double x = rank, y;
    for (int i = 0; i < n; i++) {
        double t = MPI_Wtime(), ms = i == 0 ? 20.0 : 2.0;
        while (MPI_Wtime() - t < ms * 1e-3)
            ;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Sendrecv(sbuf, 64, MPI_BYTE, (rank + 1) % size, 5, rbuf[0], 64, MPI_BYTE, (rank + size - 1) % size, 5,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
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
    if (!strcmp(mode, "waitorder"))
        waitorder(rank, size, n);
    if (!strcmp(mode, "mprobe"))
        mprobe(rank, size, n);
    if (!strcmp(mode, "persist"))
        persist(rank, size, n);
    if (!strcmp(mode, "testpoll") && size == 2)
        testpoll(rank, size, n);
    if (!strcmp(mode, "poll") && size == 2)
        poll(rank, size, n);
    if (!strcmp(mode, "coldstart"))
        coldstart(rank, size, n);
    if (rank == 0 && !all)
        printf("mainloop %d\n", n);
    MPI_Finalize();
    return 0;
}
