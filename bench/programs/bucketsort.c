/*
 * bucketsort.c -- parallel bucket sort of integer keys, ranked repeatedly.
 *
 * Each rank holds KEYS keys drawn from a skewed distribution that changes
 * with every iteration (the seed and the skew follow the iteration), so the
 * number of keys each rank sends to each other rank differs from one
 * iteration to the next. One iteration: generate the keys, count them per
 * destination bucket (one bucket range per rank), MPI_Allreduce of the
 * bucket counts, MPI_Alltoall of the send counts, MPI_Alltoallv of the
 * keys, then a counting sort of the received keys and a local check.
 *
 * usage: bucketsort [KEYS] [ITERS] [MAXKEY]
 *   KEYS    keys per rank                     (default 2000000)
 *   ITERS   iterations                        (default 10)
 *   MAXKEY  keys are in [0, MAXKEY)           (default 1048576)
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;
static uint32_t next(void)
{
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return (uint32_t)(state >> 16);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nkeys = argc > 1 ? atoi(argv[1]) : 2000000, iters = argc > 2 ? atoi(argv[2]) : 10;
    int maxkey = argc > 3 ? atoi(argv[3]) : 1048576;
    int *keys = malloc((size_t)nkeys * sizeof *keys), *sorted = malloc((size_t)nkeys * sizeof *sorted);
    int *recv = malloc((size_t)nkeys * 2 * sizeof *recv), cap = nkeys * 2;
    int *sc = calloc((size_t)size, sizeof *sc), *rcnt = calloc((size_t)size, sizeof *rcnt);
    int *sd = calloc((size_t)size, sizeof *sd), *rd = calloc((size_t)size, sizeof *rd);
    int *bucket = calloc((size_t)size, sizeof *bucket), *total = calloc((size_t)size, sizeof *total);
    int range = (maxkey + size - 1) / size;
    int *hist = calloc((size_t)range, sizeof *hist);
    if (!keys || !sorted || !recv || !sc || !rcnt || !sd || !rd || !bucket || !total || !hist)
        MPI_Abort(MPI_COMM_WORLD, 1);
    long long checked = 0;
    for (int it = 0; it < iters; it++) {
        state = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)(rank + 1) << 32) ^ (uint64_t)(it + 1) * 0x2545f4914f6cdd1dULL;
        /* skew: the sum of s uniforms, s changing with the iteration */
        int s = 1 + it % 4;
        for (int k = 0; k < nkeys; k++) {
            uint64_t v = 0;
            for (int m = 0; m < s; m++)
                v += next() % (uint32_t)maxkey;
            keys[k] = (int)(v / (uint64_t)s);
        }
        memset(sc, 0, (size_t)size * sizeof *sc);
        for (int k = 0; k < nkeys; k++)
            sc[keys[k] / range]++;
        MPI_Allreduce(sc, total, size, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int d = 0, at = 0; d < size; d++)
            sd[d] = at, at += sc[d], bucket[d] = sd[d];
        for (int k = 0; k < nkeys; k++)
            sorted[bucket[keys[k] / range]++] = keys[k];
        MPI_Alltoall(sc, 1, MPI_INT, rcnt, 1, MPI_INT, MPI_COMM_WORLD);
        int nrecv = 0;
        for (int d = 0; d < size; d++)
            rd[d] = nrecv, nrecv += rcnt[d];
        if (nrecv > cap) {
            free(recv);
            cap = nrecv;
            recv = malloc((size_t)cap * sizeof *recv);
            if (!recv)
                MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Alltoallv(sorted, sc, sd, MPI_INT, recv, rcnt, rd, MPI_INT, MPI_COMM_WORLD);
        /* counting sort of this rank's range, and a check */
        memset(hist, 0, (size_t)range * sizeof *hist);
        for (int k = 0; k < nrecv; k++)
            hist[recv[k] - rank * range]++;
        long long n = 0;
        for (int v = 0; v < range; v++)
            n += hist[v];
        if (n != total[rank])
            fprintf(stderr, "bucketsort: rank %d iteration %d: %lld keys, expected %d\n", rank, it, n, total[rank]);
        checked += n;
    }
    double t = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("bucketsort: ranks=%d iters=%d seconds=%.3f keys=%lld\n", size, iters, tmax, checked);
    MPI_Finalize();
    return 0;
}
