/* wildcard: receives from MPI_ANY_SOURCE, blocking and nonblocking, whose
 * sources arrive in an order set by the workers' timing. Rank 0 prints the
 * source of every wildcard receive, in the order it posted them:
 *   recv_sources S1 S2 ...    (MPI_Recv, phase 1)
 *   irecv_sources S1 S2 ...   (MPI_Irecv + MPI_Waitall, then + MPI_Wait)
 * so a test can check that a skeleton receives from the same ranks in the
 * same order. Workers send 3 + 2 + 1 messages each. */
#include <mpi.h>
#include <stdio.h>

#define MAXP 16

static void spin(double s)
{
    double t = MPI_Wtime();
    while (MPI_Wtime() - t < s)
        ;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || size > MAXP) {
        if (rank == 0)
            fprintf(stderr, "wildcard: run with 2..%d ranks\n", MAXP);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int nw = size - 1, v = rank;
    if (rank == 0) {
        int src[3 * MAXP], n = 0;
        MPI_Status st;
        for (int k = 0; k < 3 * nw; k++) {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st);
            src[n++] = st.MPI_SOURCE;
        }
        printf("recv_sources");
        for (int k = 0; k < n; k++)
            printf(" %d", src[k]);
        printf("\n");
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Request rq[2 * MAXP];
        MPI_Status sts[2 * MAXP];
        int buf[2 * MAXP];
        for (int k = 0; k < 2 * nw; k++)
            MPI_Irecv(&buf[k], 1, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &rq[k]);
        MPI_Waitall(2 * nw, rq, sts);
        printf("irecv_sources");
        for (int k = 0; k < 2 * nw; k++)
            printf(" %d", sts[k].MPI_SOURCE);
        for (int k = 0; k < nw; k++) {
            MPI_Irecv(&buf[0], 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &rq[0]);
            MPI_Wait(&rq[0], &st);
            printf(" %d", st.MPI_SOURCE);
        }
        printf("\n");
    } else {
        /* workers' delays differ by rank and message, so the arrival order
         * interleaves them */
        for (int m = 0; m < 3; m++) {
            spin(1e-3 * ((rank * 7 + m * 3) % 5));
            MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int m = 0; m < 2; m++) {
            spin(1e-3 * ((rank * 5 + m) % 4));
            MPI_Send(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
        }
        spin(1e-3 * (size - rank));
        MPI_Send(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
