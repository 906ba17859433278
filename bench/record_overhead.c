/* record_overhead: the time one MPI call takes, for several kinds of
 * calls, so that running it plainly and under `perfskel record` gives the
 * time the recording library adds per call (bench/record_overhead.sh).
 * One rank; each kind is a tight loop of N iterations, timed R times; it
 * prints the minimum and the median ns per MPI call.
 *
 * usage: record_overhead [N] [R] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { SEND_NULL, ISEND_IRECV_WAITALL, TEST_NULL, IPROBE, ALLREDUCE, BARRIER, COMM_RANK, NKINDS };
static const char *const names[NKINDS] = {"MPI_Send(PROC_NULL)", "Irecv+Isend+Waitall(self)",
                                          "MPI_Test(REQUEST_NULL)", "MPI_Iprobe", "MPI_Allreduce(1 int)",
                                          "MPI_Barrier", "MPI_Comm_rank(unrecorded)"};
static const int calls_per_iter[NKINDS] = {1, 3, 1, 1, 1, 1, 1};

static void run(int kind, long n)
{
    int x = 1, y = 0, flag, rank;
    MPI_Request rq[2];
    MPI_Status st;
    switch (kind) {
    case SEND_NULL:
        for (long i = 0; i < n; i++)
            MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        break;
    case ISEND_IRECV_WAITALL:
        for (long i = 0; i < n; i++) {
            MPI_Irecv(&y, 1, MPI_INT, 0, 1, MPI_COMM_SELF, &rq[0]);
            MPI_Isend(&x, 1, MPI_INT, 0, 1, MPI_COMM_SELF, &rq[1]);
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        }
        break;
    case TEST_NULL:
        rq[0] = MPI_REQUEST_NULL;
        for (long i = 0; i < n; i++)
            MPI_Test(&rq[0], &flag, &st);
        break;
    case IPROBE:
        for (long i = 0; i < n; i++)
            MPI_Iprobe(0, 99, MPI_COMM_SELF, &flag, &st);
        break;
    case ALLREDUCE:
        for (long i = 0; i < n; i++)
            MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case BARRIER:
        for (long i = 0; i < n; i++)
            MPI_Barrier(MPI_COMM_WORLD);
        break;
    case COMM_RANK:
        for (long i = 0; i < n; i++)
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        break;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 200000;
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    double *t = malloc((size_t)reps * sizeof *t);
    for (int k = 0; k < NKINDS; k++) {
        run(k, n / 10); /* warm up */
        for (int r = 0; r < reps; r++) {
            double t0 = MPI_Wtime();
            run(k, n);
            t[r] = (MPI_Wtime() - t0) * 1e9 / ((double)n * calls_per_iter[k]);
        }
        qsort(t, (size_t)reps, sizeof *t, cmp);
        printf("%s\t%d\t%.1f\t%.1f\n", names[k], calls_per_iter[k], t[0], t[reps / 2]);
    }
    free(t);
    MPI_Finalize();
    return 0;
}
