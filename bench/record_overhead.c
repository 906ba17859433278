/* record_overhead: how long one MPI call takes, for several kinds of call,
 * so that running it plainly and under `perfskel record` gives the time the
 * recording library adds per call (bench/record_overhead.sh does both).
 * One rank only. Each kind is a tight loop of N iterations, timed R times
 * after an untimed warm-up; one line per kind on stdout:
 *   kind calls_per_iter ns_per_call_min ns_per_call_median
 * A loop making several MPI calls per iteration is divided by all of them.
 * MPI_Comm_rank is not recorded by perfskel: it is the control (~0 added).
 * usage: record_overhead [N [R]]   (default 200000 7) */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { SEND_NULL, IRECV_ISEND_WAITALL, TEST_NULL, TEST_DONE, IPROBE, ALLREDUCE, BARRIER, COMM_RANK, NKINDS };

static const struct {
    const char *name;
    int calls; /* MPI calls per iteration */
} kinds[NKINDS] = {
    [SEND_NULL] = {"send_proc_null", 1},
    [IRECV_ISEND_WAITALL] = {"irecv_isend_waitall_self", 3},
    [TEST_NULL] = {"test_request_null", 1},
    [TEST_DONE] = {"test_completed", 1},
    [IPROBE] = {"iprobe_nothing", 1},
    [ALLREDUCE] = {"allreduce_1int", 1},
    [BARRIER] = {"barrier", 1},
    [COMM_RANK] = {"comm_rank_unrecorded", 1},
};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* `done` is an inactive persistent request: MPI_Test on it completes at
 * once with flag = 1 but, unlike MPI_REQUEST_NULL, it has an id to record. */
static void run(int kind, long n, MPI_Request done)
{
    int x = 1, y = 0, flag, rank;
    MPI_Request rq[2];
    MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: gcc 12 warns on MPICH's */
    switch (kind) {
    case SEND_NULL:
        for (long i = 0; i < n; i++)
            MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        break;
    case IRECV_ISEND_WAITALL:
        for (long i = 0; i < n; i++) {
            MPI_Irecv(&y, 1, MPI_INT, 0, 1, MPI_COMM_SELF, &rq[0]);
            MPI_Isend(&x, 1, MPI_INT, 0, 1, MPI_COMM_SELF, &rq[1]);
            MPI_Waitall(2, rq, st);
        }
        break;
    case TEST_NULL:
        for (long i = 0; i < n; i++) {
            rq[0] = MPI_REQUEST_NULL;
            MPI_Test(&rq[0], &flag, &st[0]);
        }
        break;
    case TEST_DONE:
        for (long i = 0; i < n; i++)
            MPI_Test(&done, &flag, &st[0]);
        break;
    case IPROBE: /* nothing is ever sent with tag 99: flag stays 0 */
        for (long i = 0; i < n; i++)
            MPI_Iprobe(0, 99, MPI_COMM_SELF, &flag, &st[0]);
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
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 200000;
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    if (size != 1 || n < 1 || reps < 1) {
        fprintf(stderr, "usage: mpirun -np 1 record_overhead [N [R]] (N, R >= 1)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *t = malloc((size_t)reps * sizeof *t);
    if (!t)
        MPI_Abort(MPI_COMM_WORLD, 1);

    int x = 1;
    MPI_Request done;
    MPI_Send_init(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &done);
    MPI_Start(&done);
    MPI_Wait(&done, MPI_STATUS_IGNORE);

    for (int k = 0; k < NKINDS; k++) {
        run(k, n / 10 + 1, done);
        for (int r = 0; r < reps; r++) {
            double t0 = now_ns();
            run(k, n, done);
            t[r] = (now_ns() - t0) / ((double)n * kinds[k].calls);
        }
        qsort(t, (size_t)reps, sizeof *t, cmp_double);
        printf("%s %d %.1f %.1f\n", kinds[k].name, kinds[k].calls, t[0], t[reps / 2]);
        fflush(stdout);
    }
    MPI_Request_free(&done);
    free(t);
    MPI_Finalize();
    return 0;
}
