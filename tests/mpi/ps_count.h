/*
 * ps_count.h - per-rank bookkeeping of the MPI calls a C test program makes.
 *
 * Every recorded MPI function a test program calls is written as
 *     CALL(MPI_Send)(buf, n, MPI_INT, dest, tag, comm);
 * which bumps this rank's counter for MPI_Send and then calls MPI_Send.
 * At the end, ps_report() (which counts its own MPI_Gather and the
 * MPI_Finalize that must follow it) gathers every rank's counters on rank 0,
 * which prints one line per (rank, function) with a nonzero count:
 *     expect <rank> <MPI_Function_name> <count>
 * in rank order, then function name in ASCII order.  The test harness
 * (run_case.sh + check_counts) compares these lines with what the perfskel
 * recorder saw.
 *
 * Only the functions perfskel records are listed; MPI_Comm_rank, MPI_Comm_size
 * and friends are called directly and never counted.
 */
#ifndef PS_COUNT_H
#define PS_COUNT_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every recorded function any of the test programs uses. */
#define PS_FUNCS(X)                                                          \
    X(MPI_Allgatherv) X(MPI_Allreduce) X(MPI_Alltoall) X(MPI_Alltoallv)      \
    X(MPI_Barrier) X(MPI_Bcast) X(MPI_Cart_create) X(MPI_Comm_create)        \
    X(MPI_Comm_dup) X(MPI_Comm_free) X(MPI_Comm_group) X(MPI_Comm_split)     \
    X(MPI_Dims_create) X(MPI_Finalize)                                       \
    X(MPI_Gather) X(MPI_Gatherv) X(MPI_Group_free) X(MPI_Group_incl)         \
    X(MPI_Ibarrier) X(MPI_Init) X(MPI_Irecv) X(MPI_Isend) X(MPI_Recv)        \
    X(MPI_Recv_init) X(MPI_Reduce) X(MPI_Reduce_scatter)                     \
    X(MPI_Request_free) X(MPI_Scatterv) X(MPI_Send) X(MPI_Send_init)         \
    X(MPI_Sendrecv) X(MPI_Startall) X(MPI_Wait) X(MPI_Waitall)               \
    X(MPI_Waitany)

#define PS_ENUM(f) PS_IDX_##f,
#define PS_NAME(f) #f,
enum { PS_FUNCS(PS_ENUM) PS_NFUNC };
static const char *const ps_names[PS_NFUNC] = { PS_FUNCS(PS_NAME) };
static int ps_counts[PS_NFUNC];

/* Count one call of fn, then evaluate to fn itself so it can be called.
 * The first counted call after MPI_Init also starts the wall clock that
 * ps_report prints when PS_WALL is set (bench/predict_accuracy.sh). */
static double ps_t0;
static int ps_tick(int idx)
{
    ps_counts[idx]++;
    if (!ps_t0 && idx != PS_IDX_MPI_Init) ps_t0 = MPI_Wtime();
    return 0;
}
#define CALL(fn) (ps_tick(PS_IDX_##fn), fn)

/* Computation between calls, for benchmarks (bench/predict_accuracy.sh):
 * ps_compute() runs PS_WORK sweeps over a 512-double array, a quarter more
 * on odd ranks so that ranks are imbalanced. PS_WORK is 0 in the tests, and
 * then it does nothing. The array is global and checked in ps_report, so the
 * compiler must keep the work. */
#ifndef PS_WORK
#define PS_WORK 0
#endif
double ps_work_a[512];
static void ps_compute(void)
{
#if PS_WORK > 0
    static int n = -1;
    if (n < 0) {
        int r;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        n = PS_WORK + (r % 2) * (PS_WORK / 4);
    }
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < 511; i++)
            ps_work_a[i] = 0.5 * ps_work_a[i] + 0.25 * ps_work_a[i + 1] + 1.0;
        ps_work_a[511] = 0.5 * ps_work_a[511] + 0.25 * ps_work_a[0] + 1.0;
    }
#endif
}

static int ps_cmp_name(const void *a, const void *b)
{
    return strcmp(ps_names[*(const int *)a], ps_names[*(const int *)b]);
}

/* Collective over MPI_COMM_WORLD; the caller must call MPI_Finalize (and
 * nothing else recorded) right after it. */
static void ps_report(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (getenv("PS_WALL")) { /* uncounted: only for benchmarks */
        double mine = MPI_Wtime() - ps_t0, most = 0;
        MPI_Reduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0) printf("wall %.6f\n", most);
    }
    if (ps_work_a[0] != ps_work_a[0]) printf("work: NaN\n"); /* never */
    ps_counts[PS_IDX_MPI_Finalize]++; /* the call that follows this report */
    int *all = NULL;
    if (rank == 0) {
        all = malloc(sizeof(int) * PS_NFUNC * (size_t)size);
        if (!all) MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* The counters are copied into the send buffer only after this gather
     * has been counted. */
    ps_counts[PS_IDX_MPI_Gather]++;
    int mine[PS_NFUNC];
    memcpy(mine, ps_counts, sizeof mine);
    MPI_Gather(mine, PS_NFUNC, MPI_INT, all, PS_NFUNC, MPI_INT, 0,
               MPI_COMM_WORLD);

    if (rank == 0) {
        int order[PS_NFUNC];
        for (int i = 0; i < PS_NFUNC; i++) order[i] = i;
        qsort(order, PS_NFUNC, sizeof order[0], ps_cmp_name);
        for (int r = 0; r < size; r++)
            for (int k = 0; k < PS_NFUNC; k++) {
                int c = all[(size_t)r * PS_NFUNC + order[k]];
                if (c) printf("expect %d %s %d\n", r, ps_names[order[k]], c);
            }
        fflush(stdout);
        free(all);
    }
}

#endif
