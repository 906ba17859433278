/* threads: MPI_THREAD_MULTIPLE with several threads per rank calling MPI at
 * once, for the recorder's locked path. Each of T threads of each rank
 * exchanges N messages with the same thread of the partner rank (tag =
 * thread), with MPI_Isend, MPI_Irecv and MPI_Waitall. Prints the expected
 * per-rank counts in the format of tests/mpi (expect RANK FUNCTION COUNT)
 * and "threads several": perfskel sim and gen must refuse its trace
 * (tests/mpi/run_case.sh). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { T = 4 };
static int rank, size, n;

static void *work(void *arg)
{
    int tag = (int)(long)arg, peer = (rank + 1) % size, from = (rank + size - 1) % size;
    for (int i = 0; i < n; i++) {
        int out = i, in = -1;
        MPI_Request rq[2];
        MPI_Irecv(&in, 1, MPI_INT, from, tag, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(&out, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        if (in != i)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "threads: this MPI gives no MPI_THREAD_MULTIPLE (provided %d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = argc > 1 ? atoi(argv[1]) : 400;
    pthread_t th[T];
    for (long t = 0; t < T; t++)
        pthread_create(&th[t], NULL, work, (void *)t);
    for (int t = 0; t < T; t++)
        pthread_join(th[t], NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads several\n"); /* tests/mpi/run_case.sh: sim and gen must refuse the trace */
    if (rank == 0)
        for (int r = 0; r < size; r++)
            printf("expect %d MPI_Barrier 1\nexpect %d MPI_Finalize 1\nexpect %d MPI_Init_thread 1\n"
                   "expect %d MPI_Irecv %d\nexpect %d MPI_Isend %d\nexpect %d MPI_Waitall %d\n",
                   r, r, r, r, T * n, r, T * n, r, T * n);
    MPI_Finalize();
    return 0;
}
