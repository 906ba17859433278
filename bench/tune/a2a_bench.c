/* a2a_bench.c: an MPI_Alltoall micro-benchmark for the tuning library's
 * benchmarks (bench/tune_bench.sh; docs/tune.md, Benchmarks). All calls on
 * MPI_COMM_WORLD from one call site, bytes (MPI_BYTE) per peer.
 *
 *   a2a_bench [-b MIN] [-B MAX] [-f FACTOR] [-n N] [-r R] [-t SECONDS] [-o FILE] [-q]
 *
 * Sweep (default): sizes MIN, MIN x FACTOR, ... up to MAX, and MAX itself
 * (defaults 8 B, 4 MiB, 4); per size R repetitions (5) of N calls (20), a
 * barrier before each; a line per size: bytes per peer, the median over
 * repetitions of the slowest rank's time per call, and the least and most
 * of them (us). With -t, a loop for a neighbour job: repetitions of N calls
 * at MIN until SECONDS have passed (all ranks agree after each), printing
 * when the loop started and ended (Unix time). -o FILE: rank 0 writes
 * every call: index, bytes, Unix start time (s) and the slowest rank's
 * time of that call (us; the ranks' own clocks, no barrier). The first
 * repetition of each size checks every byte received. The last line is
 * the slowest rank's elapsed time and its total time in MPI_Alltoall. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, getopt */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double now(void) { return clock_s(CLOCK_MONOTONIC); }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the byte rank src sends to rank dst at offset i of their block */
static unsigned char pattern(int src, int dst, long i) { return (unsigned char)(src * 131 + dst * 31 + i * 7 + (i >> 8)); }

static void die(const char *what)
{
    fprintf(stderr, "a2a_bench: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int np, me;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    long lo = 8, hi = 4L << 20, factor = 4;
    int n = 20, reps = 5, quiet = 0, opt;
    double seconds = 0;
    const char *trace = NULL;
    while ((opt = getopt(argc, argv, "b:B:f:n:r:t:o:q")) != -1) {
        switch (opt) {
        case 'b': lo = atol(optarg); break;
        case 'B': hi = atol(optarg); break;
        case 'f': factor = atol(optarg); break;
        case 'n': n = atoi(optarg); break;
        case 'r': reps = atoi(optarg); break;
        case 't': seconds = atof(optarg); break;
        case 'o': trace = optarg; break;
        case 'q': quiet = 1; break;
        default:
            if (me == 0)
                fprintf(stderr, "usage: a2a_bench [-b MIN] [-B MAX] [-f FACTOR] [-n N] [-r R] [-t SECONDS] "
                                "[-o FILE] [-q]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (seconds > 0)
        hi = lo;
    if (lo < 1 || hi < lo || factor < 2 || n < 1 || reps < 1 || hi > (1L << 30) / np)
        die("bad sizes or counts (1 <= MIN <= MAX, FACTOR >= 2, N and R >= 1, MAX x ranks <= 1 GiB)");
    char *sb = malloc((size_t)(hi * np)), *rb = malloc((size_t)(hi * np));
    /* the per-call record: sizes' calls in order (grown as needed) */
    size_t tcap = 0, tn = 0;
    double *tstart = NULL, *tdur = NULL;
    long *tbytes = NULL;
    if (!sb || !rb)
        die("out of memory");

    double *per = malloc(sizeof(double) * (size_t)reps);
    if (!per)
        die("out of memory");
    double a2a = 0, t0;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = now();
    for (long m = lo;; m = m * factor > hi && m < hi ? hi : m * factor) {
        if (m > hi)
            break;
        for (int d = 0; d < np; d++)
            for (long i = 0; i < m; i++)
                sb[d * m + i] = (char)pattern(me, d, i);
        double loop_start = clock_s(CLOCK_REALTIME);
        int r = 0, more = 1;
        for (; more; r++) {
            if (trace && tn + (size_t)n > tcap) {
                tcap = (tn + (size_t)n) * 2;
                tstart = realloc(tstart, sizeof(double) * tcap);
                tdur = realloc(tdur, sizeof(double) * tcap);
                tbytes = realloc(tbytes, sizeof(long) * tcap);
                if (!tstart || !tdur || !tbytes)
                    die("out of memory");
            }
            MPI_Barrier(MPI_COMM_WORLD);
            double r0 = now();
            for (int c = 0; c < n; c++) {
                double c0 = now();
                if (trace)
                    tstart[tn] = clock_s(CLOCK_REALTIME);
                MPI_Alltoall(sb, (int)m, MPI_BYTE, rb, (int)m, MPI_BYTE, MPI_COMM_WORLD);
                if (trace) {
                    tdur[tn] = 1e6 * (now() - c0);
                    tbytes[tn++] = m;
                }
            }
            double mine = now() - r0, slowest;
            a2a += mine;
            MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (r < reps)
                per[r] = 1e6 * slowest / n;
            if (r == 0) {
                int bad = 0, anybad;
                for (int s = 0; s < np && !bad; s++)
                    for (long i = 0; i < m; i++)
                        if ((unsigned char)rb[s * m + i] != pattern(s, me, i)) {
                            bad = 1;
                            break;
                        }
                MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
                if (anybad && me == 0)
                    fprintf(stderr, "a2a_bench: WRONG data received at %ld bytes per peer\n", m);
            }
            if (seconds > 0) { /* loop mode: go on until all ranks agree it is time */
                int go = now() - t0 < seconds, all;
                MPI_Allreduce(&go, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
                more = all;
            } else
                more = r + 1 < reps;
        }
        int got = r < reps ? r : reps;
        qsort(per, (size_t)got, sizeof(double), cmp_double);
        if (me == 0 && seconds > 0)
            printf("a2a_bench: loop of %ld bytes per peer from %.6f to %.6f (Unix s), %d x %d calls, median "
                   "%.3f us a call\n",
                   m, loop_start, clock_s(CLOCK_REALTIME), r, n, per[(got - 1) / 2]);
        else if (me == 0 && !quiet)
            printf("a2a_bench: bytes %ld calls %d x %d us_per_call %.3f min %.3f max %.3f\n", m, reps, n,
                   got % 2 ? per[got / 2] : 0.5 * (per[got / 2 - 1] + per[got / 2]), per[0], per[got - 1]);
        fflush(stdout);
        if (m == hi)
            break;
    }
    double el = now() - t0, mine[2] = {el, a2a}, mx[2];
    MPI_Reduce(mine, mx, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (trace) { /* the slowest rank's time of every call, rank 0's start times */
        double *slow = me == 0 ? malloc(sizeof(double) * (tn ? tn : 1)) : NULL;
        if (me == 0 && !slow)
            die("out of memory");
        MPI_Reduce(tdur, slow, (int)tn, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0) {
            FILE *f = fopen(trace, "w");
            if (!f)
                die("cannot write the -o file");
            fprintf(f, "# call bytes unix_start_s slowest_us\n");
            for (size_t i = 0; i < tn; i++)
                fprintf(f, "%zu %ld %.6f %.3f\n", i, tbytes[i], tstart[i], slow[i]);
            fclose(f);
        }
        free(slow);
    }
    if (me == 0)
        printf("a2a_bench: ranks %d elapsed %.6f s alltoall %.6f s\n", np, mx[0], mx[1]);
    free(sb);
    free(rb);
    free(per);
    free(tstart);
    free(tdur);
    free(tbytes);
    MPI_Finalize();
    return 0;
}
