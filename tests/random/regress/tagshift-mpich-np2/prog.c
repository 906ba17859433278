/* Tags that follow a loop's index, each rank's receives one iteration
 * behind its peer's sends (2 ranks): every rank sends tag 0, then in
 * iteration i sends tag i + 1 and receives tag i, then receives tag N - 1.
 * Merged and folded: Send (Send Recv)x(N-1) Recv, with tag = i + 1 on the
 * send and i on the receive. Each iteration balances in message counts but
 * not in tags: a K = 2 skeleton that ran (N-1)/2 iterations left the last
 * receive waiting for tag N - 1, which was never sent (a hang under both
 * MPIs), until gen_closed_loop checked tags per iteration.
 * Build: mpicc -O2 -o prog prog.c; record on 2 ranks. */
#include <mpi.h>
#include <stdio.h>

#define N 40

static void spin_(double us)
{
    double t0 = MPI_Wtime();
    while ((MPI_Wtime() - t0) * 1e6 < us)
        ;
}

int main(int argc, char **argv)
{
    int rank, size, s = 0, r = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = (rank + 1) % size;
    MPI_Send(&s, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
    for (int i = 0; i < N - 1; i++) {
        spin_(20);
        s = i + 1;
        MPI_Send(&s, 1, MPI_INT, peer, i + 1, MPI_COMM_WORLD);
        MPI_Recv(&r, 1, MPI_INT, peer, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (r != i) {
            fprintf(stderr, "prog: rank %d: got %d with tag %d\n", rank, r, i);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
    MPI_Recv(&r, 1, MPI_INT, peer, N - 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (r != N - 1) {
        fprintf(stderr, "prog: rank %d: got %d with tag %d\n", rank, r, N - 1);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Finalize();
    return 0;
}
