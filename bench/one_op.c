/* one_op.c: one MPI operation repeated, for bench/sim_turns.sh (how sim's
 * model of ranks taking turns on shared cores prices each kind of message).
 *
 * usage: one_op OP N BYTES
 *   OP     ring (MPI_Irecv from the left, MPI_Isend to the right, MPI_Waitall),
 *          alltoall (MPI_Alltoall of BYTES blocks), bcast (MPI_Bcast from
 *          root i % P), ibcast (the same with MPI_Ibcast and MPI_Wait)
 *   N      repetitions
 *   BYTES  bytes a message (a block) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 4 || atoi(argv[2]) < 1 || atoi(argv[3]) < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: one_op ring|alltoall|bcast|ibcast N BYTES\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *op = argv[1];
    int n = atoi(argv[2]), bytes = atoi(argv[3]);
    char *out = calloc((size_t)bytes * size + 1, 1), *in = calloc((size_t)bytes * size + 1, 1);
    if (!out || !in)
        MPI_Abort(MPI_COMM_WORLD, 3);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        if (!strcmp(op, "ring")) {
            MPI_Request q[2];
            MPI_Status st[2];
            MPI_Irecv(in, bytes, MPI_BYTE, left, 0, MPI_COMM_WORLD, &q[0]);
            MPI_Isend(out, bytes, MPI_BYTE, right, 0, MPI_COMM_WORLD, &q[1]);
            MPI_Waitall(2, q, st);
        } else if (!strcmp(op, "alltoall")) {
            MPI_Alltoall(out, bytes, MPI_BYTE, in, bytes, MPI_BYTE, MPI_COMM_WORLD);
        } else if (!strcmp(op, "bcast")) {
            MPI_Bcast(out, bytes, MPI_BYTE, i % size, MPI_COMM_WORLD);
        } else if (!strcmp(op, "ibcast")) {
            MPI_Request q;
            MPI_Ibcast(out, bytes, MPI_BYTE, i % size, MPI_COMM_WORLD, &q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        } else {
            if (rank == 0)
                fprintf(stderr, "one_op: unknown operation '%s'\n", op);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0)
        printf("one_op %s %d B: ranks=%d iters=%d seconds=%.6f\n", op, bytes, size, n, t);
    free(out), free(in);
    MPI_Finalize();
    return 0;
}
