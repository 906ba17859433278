/* crash: a job that ends badly on purpose, for perfskel's fault tests.
 * Usage: crash MODE N. Every rank runs N iterations of an MPI_Allreduce;
 * then rank 1 (rank 0 in a 1-rank job) does MODE: ok (finishes normally),
 * kill (SIGKILL: loses its unwritten block), term (SIGTERM: writes what it
 * holds), segv (a segmentation fault: writes what it holds, then the MPI's
 * own handler runs), abort (MPI_Abort), exit (exit(3) without MPI_Finalize),
 * hang (sleeps for ever while the others wait in MPI_Barrier), late
 * (finishes normally, but computes 300 ms more than the others after the
 * last barrier: the slowest rank is not rank 0),
 * clock (every rank busy-waits N ms between two barriers and prints the
 * time it measured with MPI_Wtime, to check the recorded clock), reqs (N
 * rounds of 8 small MPI_Isends and 8 MPI_Irecvs between ranks 0 and 1, then
 * MPI_Waitall: eager sends may all return one shared handle, and the trace
 * must still name 16 different requests), overflow (a stack overflow:
 * the rank's handler runs on its own stack and writes what it holds),
 * locale (takes its locale from the environment before MPI_Init, as a
 * program may: the recorder's job.json must not follow it). */
#include <locale.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* recursion without end: a stack overflow, which the compiler must not
 * turn into a loop (the frame's array is used after the call) */
static int deep(volatile char *up)
{
    volatile char frame[1024];
    frame[0] = up ? up[0] : 1;
    return deep(frame) + frame[1023];
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "locale"))
        setlocale(LC_ALL, "");
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "ok";
    long n = argc > 2 ? atol(argv[2]) : 1000;
    int victim = size > 1 ? 1 : 0, x = 1, y = 0;
    if (!strcmp(mode, "clock")) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime(), t1;
        while ((t1 = MPI_Wtime()) - t0 < (double)n * 1e-3)
            ;
        MPI_Barrier(MPI_COMM_WORLD);
        printf("clock rank %d: %.0f ns\n", rank, (t1 - t0) * 1e9);
        MPI_Finalize();
        return 0;
    }
    if (!strcmp(mode, "reqs")) {
        int out[8], in[8], peer = size > 1 ? 1 - rank : 0;
        MPI_Request rq[16];
        for (long i = 0; i < n; i++) {
            for (int k = 0; rank < 2 && k < 8; k++) {
                out[k] = k;
                MPI_Irecv(&in[k], 1, MPI_INT, peer, k, MPI_COMM_WORLD, &rq[k]);
                MPI_Isend(&out[k], 1, MPI_INT, peer, k, MPI_COMM_WORLD, &rq[8 + k]);
            }
            if (rank < 2)
                MPI_Waitall(16, rq, MPI_STATUSES_IGNORE);
        }
        MPI_Finalize();
        return 0;
    }
    for (long i = 0; i < n; i++)
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == victim) {
        if (!strcmp(mode, "kill"))
            raise(SIGKILL);
        else if (!strcmp(mode, "term"))
            raise(SIGTERM);
        else if (!strcmp(mode, "segv"))
            *(volatile int *)(argv[0] - (size_t)argv[0]) = 1;
        else if (!strcmp(mode, "abort"))
            MPI_Abort(MPI_COMM_WORLD, 3);
        else if (!strcmp(mode, "exit"))
            exit(3);
        else if (!strcmp(mode, "hang"))
            for (;;)
                pause();
        else if (!strcmp(mode, "overflow"))
            x = deep(NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == victim && !strcmp(mode, "late"))
        for (double t0 = MPI_Wtime(); MPI_Wtime() - t0 < 0.3;)
            ;
    if (rank == 0)
        printf("crash: %s after %ld iterations on %d ranks\n", mode, n, size);
    MPI_Finalize();
    return 0;
}
