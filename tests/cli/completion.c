/* completion: every way a request completes, for sim and the skeleton to
 * replay. Each of ITER iterations (argv[1], default 60) on every rank:
 *
 * A. Updates in the manner of a random-access benchmark: one receive from
 *    MPI_ANY_SOURCE with MPI_ANY_TAG is always posted; the rank polls it
 *    with MPI_Testany (one request), handles what came (tag UPD: an update;
 *    tag FIN: a rank has sent all its updates) and posts it again; between
 *    polls it sends its own updates round the other ranks with MPI_Isend,
 *    each once MPI_Test found the previous one sent, then FIN to every
 *    other rank. When every other rank's FIN is in, the receive still
 *    posted is cancelled (MPI_Cancel, MPI_Wait); after a barrier the rank
 *    goes on to traffic on the same communicator, which that receive
 *    would match had it not been cancelled.
 * B. Request arrays holding MPI_REQUEST_NULL and inactive persistent
 *    requests: MPI_Waitall; MPI_Waitany until it answers MPI_UNDEFINED;
 *    MPI_Waitsome; MPI_Testsome, MPI_Testall and MPI_Testany polled between
 *    chunks of work while the left neighbour sends its messages some time
 *    apart (requests completed across polls); a started persistent receive
 *    polled by MPI_Test, then MPI_Wait and MPI_Test on it inactive, and
 *    MPI_Wait on MPI_REQUEST_NULL; an MPI_Allreduce.
 *
 * Work is a chain of floating-point operations (spin). Rank 0 prints "iterations N" and the
 * updates each rank received in all ("updates R COUNT"), which MPI's
 * matching makes the same on every run. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { UPD = 1, FIN = 2, NUPD = 6, N = 512 };

/* computation: about us microseconds of a dependent chain of floating-point
 * operations on this machine (work, not a wait on the clock: a loaded
 * machine slows it as it slows a skeleton's emulated work) */
static volatile double sink;
static void spin(double us)
{
    double x = sink + 1.0;
    for (long i = 0, n = (long)(us * 450); i < n; i++)
        x = x * 0.999999 + 1e-7;
    sink = x;
}

static int rank, size, left, right;
static double a[N], b[N], c[N], d[N];

/* A: returns the updates received */
static int updates(void)
{
    long in[4], out[4] = {0};
    MPI_Request rin, rout = MPI_REQUEST_NULL;
    MPI_Status st;
    int sent = 0, got = 0, fins = 0, flag, idx;
    MPI_Irecv(in, 4, MPI_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rin);
    while (sent < NUPD || fins < size - 1) {
        do {
            MPI_Testany(1, &rin, &idx, &flag, &st);
            if (flag && idx != MPI_UNDEFINED) {
                if (st.MPI_TAG == UPD) {
                    got++;
                    spin(20);
                } else {
                    fins++;
                }
                MPI_Irecv(in, 4, MPI_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rin);
            }
        } while (flag && fins < size - 1);
        if (sent < NUPD) {
            int done = 1;
            if (rout != MPI_REQUEST_NULL)
                MPI_Test(&rout, &done, MPI_STATUS_IGNORE);
            if (done) {
                spin(150);
                out[0] = sent;
                MPI_Isend(out, 4, MPI_LONG, (rank + 1 + sent % (size - 1)) % size, UPD, MPI_COMM_WORLD, &rout);
                if (++sent == NUPD) {
                    MPI_Wait(&rout, MPI_STATUS_IGNORE);
                    for (int r = 0; r < size; r++)
                        if (r != rank)
                            MPI_Send(out, 4, MPI_LONG, r, FIN, MPI_COMM_WORLD);
                }
            }
        } else {
            spin(5); /* all sent: a little of its own work between polls */
        }
    }
    MPI_Cancel(&rin);
    MPI_Wait(&rin, &st);
    MPI_Barrier(MPI_COMM_WORLD); /* no rank's next messages before every rank's cancel */
    return got;
}

/* B */
static void arrays(MPI_Request *pinactive, MPI_Request *psend, MPI_Request *precv)
{
    MPI_Request r[4];
    MPI_Status st[4];
    int i, n, flag, idx[4];
    /* Waitall: a receive, MPI_REQUEST_NULL, a send, an inactive persistent one */
    MPI_Irecv(a, N, MPI_DOUBLE, left, 10, MPI_COMM_WORLD, &r[0]);
    r[1] = MPI_REQUEST_NULL;
    MPI_Isend(b, N, MPI_DOUBLE, right, 10, MPI_COMM_WORLD, &r[2]);
    r[3] = *pinactive;
    spin(1000);
    MPI_Waitall(4, r, st);
    /* Waitany among nulls, until nothing is left */
    r[0] = MPI_REQUEST_NULL;
    MPI_Irecv(a, N, MPI_DOUBLE, left, 11, MPI_COMM_WORLD, &r[1]);
    r[2] = MPI_REQUEST_NULL;
    MPI_Isend(b, N, MPI_DOUBLE, right, 11, MPI_COMM_WORLD, &r[3]);
    spin(500);
    do
        MPI_Waitany(4, r, &i, st);
    while (i != MPI_UNDEFINED);
    /* Waitsome over two receives sent apart, a null and an inactive request */
    MPI_Irecv(a, N, MPI_DOUBLE, left, 12, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(c, N, MPI_DOUBLE, left, 13, MPI_COMM_WORLD, &r[1]);
    r[2] = MPI_REQUEST_NULL;
    r[3] = *pinactive;
    MPI_Send(b, N, MPI_DOUBLE, right, 12, MPI_COMM_WORLD);
    spin(300);
    MPI_Send(d, N, MPI_DOUBLE, right, 13, MPI_COMM_WORLD);
    int left_ = 2;
    while (left_ > 0) {
        MPI_Waitsome(4, r, &n, idx, st);
        left_ -= n == MPI_UNDEFINED ? left_ : n;
    }
    /* Testsome polled between chunks of work: the second message comes
     * later than the first, so the requests complete at different polls */
    MPI_Irecv(a, N, MPI_DOUBLE, left, 14, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(c, N, MPI_DOUBLE, left, 15, MPI_COMM_WORLD, &r[1]);
    r[2] = MPI_REQUEST_NULL;
    MPI_Isend(b, N, MPI_DOUBLE, right, 14, MPI_COMM_WORLD, &r[3]);
    spin(400);
    MPI_Send(d, N, MPI_DOUBLE, right, 15, MPI_COMM_WORLD);
    for (int want = 3; want > 0;) {
        MPI_Testsome(4, r, &n, idx, st);
        if (n == MPI_UNDEFINED)
            break;
        want -= n;
        if (want > 0)
            spin(50);
    }
    /* Testall polled, with a null among a receive and a send */
    MPI_Irecv(a, N, MPI_DOUBLE, left, 16, MPI_COMM_WORLD, &r[0]);
    r[1] = MPI_REQUEST_NULL;
    spin(200);
    MPI_Isend(b, N, MPI_DOUBLE, right, 16, MPI_COMM_WORLD, &r[2]);
    for (flag = 0; !flag;) {
        MPI_Testall(3, r, &flag, st);
        if (!flag)
            spin(40);
    }
    /* Testany polled over a null, an inactive persistent request and a receive */
    r[0] = MPI_REQUEST_NULL;
    r[1] = *pinactive;
    MPI_Irecv(a, N, MPI_DOUBLE, left, 17, MPI_COMM_WORLD, &r[2]);
    spin(300);
    MPI_Send(b, N, MPI_DOUBLE, right, 17, MPI_COMM_WORLD);
    for (flag = 0; !flag;) {
        MPI_Testany(3, r, &i, &flag, st);
        if (flag && i == MPI_UNDEFINED)
            break;
        if (!flag)
            spin(30);
    }
    /* a started persistent pair: the receive polled with MPI_Test, then
     * waited for and tested again once inactive; a wait on a null request */
    MPI_Start(precv);
    spin(200);
    MPI_Start(psend);
    for (flag = 0; !flag;) {
        MPI_Test(precv, &flag, MPI_STATUS_IGNORE);
        if (!flag)
            spin(25);
    }
    MPI_Wait(psend, MPI_STATUS_IGNORE);
    MPI_Wait(precv, MPI_STATUS_IGNORE);
    MPI_Test(precv, &flag, MPI_STATUS_IGNORE);
    MPI_Request none = MPI_REQUEST_NULL;
    MPI_Wait(&none, MPI_STATUS_IGNORE);
    double s = a[0] + c[0], sum;
    spin(8000);
    MPI_Allreduce(&s, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "completion: run with 2 ranks or more\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int iter = argc > 1 ? atoi(argv[1]) : 60;
    left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int k = 0; k < N; k++)
        b[k] = d[k] = rank + k;
    MPI_Request pinactive, psend, precv;
    MPI_Recv_init(d, N, MPI_DOUBLE, left, 99, MPI_COMM_WORLD, &pinactive); /* never started */
    MPI_Send_init(b, N, MPI_DOUBLE, right, 18, MPI_COMM_WORLD, &psend);
    MPI_Recv_init(c, N, MPI_DOUBLE, left, 18, MPI_COMM_WORLD, &precv);
    int got = 0;
    for (int it = 0; it < iter; it++) {
        got += updates();
        arrays(&pinactive, &psend, &precv);
    }
    MPI_Request_free(&pinactive);
    MPI_Request_free(&psend);
    MPI_Request_free(&precv);
    int *all = rank == 0 ? malloc((size_t)size * sizeof *all) : NULL;
    MPI_Gather(&got, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("iterations %d\n", iter);
        for (int r = 0; r < size; r++)
            printf("updates %d %d\n", r, all[r]);
    }
    free(all);
    MPI_Finalize();
    return 0;
}
