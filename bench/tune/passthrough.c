/* passthrough.c: what a call through the tuning library costs over the
 * same call made directly, measured inside one job (bench/tune_bench.sh,
 * scenario pass; docs/tune.md, "What a call costs"). Run with the library
 * preloaded: MPI_Alltoall goes through it, PMPI_Alltoall does not. Per
 * size (bytes per peer, on MPI_COMM_WORLD, one call site each): W calls
 * through the library first (the learner decides and settles), then K
 * pairs of blocks of N calls each, direct and through the library in
 * turn (which goes first alternates), a barrier before each block. A
 * block's time is its slowest rank's; the machine's slow and fast spells
 * fall on both sides alike. A line per size on rank 0:
 *
 *   passthrough: bytes B direct_us D library_us L over_us O over_pct P
 *
 * D and L the medians over blocks of the time per call, O the median of
 * the K paired differences (library - direct) per call and P its percent
 * of D, over_lo and over_hi their quartiles. Checks every byte of one call
 * of each side per size.
 *
 *   passthrough [-s SIZES] [-n N] [-k K] [-w W] [-l LIFE]
 *
 * -l LIFE: short-lived groups instead of a settled one. Each pair is a
 * block of LIFE calls direct and a block of LIFE calls through the
 * library, each on a communicator duplicated for it just before (outside
 * the block) and freed after (the MPI's first calls on a communicator are
 * slower: both sides pay that): the library sets it up, makes its group
 * and learns within the block, as in a job that makes LIFE calls of the
 * size. (Groups on later communicators of the size start from what
 * earlier ones settled on, as the library shares it: "same size
 * elsewhere".) No warm-up.
 *
 * SIZES: comma-separated bytes per peer (default 0,8,64,1024,16384,262144);
 * N (default 2000 for sizes up to 1 KiB, scaled down for larger ones so a
 * block moves at most 64 MiB), K 21, W 20000 (scaled the same way). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[(int)(q * (n - 1) + 0.5)];
}

static unsigned char pattern(int src, int dst, long i) { return (unsigned char)(src * 131 + dst * 31 + i * 7); }

/* n calls, direct or through the library (on comm); the slowest rank's
 * seconds */
static double block_on(MPI_Comm comm, int lib, int n, char *sb, char *rb, int m)
{
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    if (lib)
        for (int i = 0; i < n; i++)
            MPI_Alltoall(sb, m, MPI_BYTE, rb, m, MPI_BYTE, comm);
    else
        for (int i = 0; i < n; i++)
            PMPI_Alltoall(sb, m, MPI_BYTE, rb, m, MPI_BYTE, comm);
    double mine = now() - t0, slowest = 0;
    PMPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

static double block(int lib, int n, char *sb, char *rb, int m) { return block_on(MPI_COMM_WORLD, lib, n, sb, rb, m); }

/* LIFE calls, direct or through the library, on a fresh duplicate of
 * the world: both sides pay what the MPI's first calls on a new
 * communicator cost */
static double fresh(int lib, int life, char *sb, char *rb, int m)
{
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    double t = block_on(dup, lib, life, sb, rb, m);
    MPI_Comm_free(&dup);
    return t;
}

static int check(const char *rb, int np, int me, long m)
{
    int bad = 0, any = 0;
    for (int s = 0; s < np && !bad; s++)
        for (long i = 0; i < m; i++)
            if ((unsigned char)rb[s * m + i] != pattern(s, me, i)) {
                bad = 1;
                break;
            }
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int np, me, opt, n0 = 0, k = 21, w0 = 0, life = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    char sizes[1024] = "0,8,64,1024,16384,262144";
    while ((opt = getopt(argc, argv, "s:n:k:w:l:")) != -1) {
        switch (opt) {
        case 's': snprintf(sizes, sizeof sizes, "%s", optarg); break;
        case 'n': n0 = atoi(optarg); break;
        case 'k': k = atoi(optarg); break;
        case 'w': w0 = atoi(optarg); break;
        case 'l': life = atoi(optarg); break;
        default:
            if (me == 0)
                fprintf(stderr, "usage: passthrough [-s SIZES] [-n N] [-k K] [-w W] [-l LIFE]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (k < 1 || n0 < 0 || w0 < 0 || life < 0) {
        if (me == 0)
            fprintf(stderr, "passthrough: N, K, W and LIFE must be positive\n");
        MPI_Finalize();
        return 2;
    }
    double *d = malloc(sizeof(double) * (size_t)k), *l = malloc(sizeof(double) * (size_t)k),
           *o = malloc(sizeof(double) * (size_t)k);
    int rc = 0;
    for (char *save = NULL, *tok = strtok_r(sizes, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long m = atol(tok);
        if (m < 0 || m > (64L << 20) / np) {
            if (me == 0)
                fprintf(stderr, "passthrough: size %s out of range (0 to 64 MiB over the ranks)\n", tok);
            rc = 2;
            break;
        }
        /* a block moves at most 64 MiB; at least 20 calls */
        long per = m * np > 0 ? m * np : 1;
        int n = n0 ? n0 : (int)(per <= 1024 * np ? 2000 : (64L << 20) / per < 20 ? 20 : (64L << 20) / per);
        int w = w0 ? w0 : 10 * n;
        char *sb = malloc((size_t)(m * np) + 1), *rb = malloc((size_t)(m * np) + 1);
        if (!d || !l || !o || !sb || !rb) {
            fprintf(stderr, "passthrough: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int s = 0; s < np; s++)
            for (long i = 0; i < m; i++)
                sb[s * m + i] = (char)pattern(me, s, i);
        /* each side's data right */
        for (int lib = 0; lib < 2; lib++) {
            memset(rb, 0, (size_t)(m * np) + 1);
            block(lib, 1, sb, rb, (int)m);
            if (check(rb, np, me, m)) {
                if (me == 0)
                    fprintf(stderr, "passthrough: WRONG data %s at %ld bytes per peer\n",
                            lib ? "through the library" : "direct", m);
                rc = 1;
            }
        }
        if (life)
            n = life;
        else {
            block(1, w, sb, rb, (int)m); /* the learner settles */
            block(0, n, sb, rb, (int)m);
        }
        for (int i = 0; i < k; i++) {
            int first = i & 1;
            double a = life ? fresh(first, n, sb, rb, (int)m) : block(first, n, sb, rb, (int)m);
            double b = life ? fresh(!first, n, sb, rb, (int)m) : block(!first, n, sb, rb, (int)m);
            l[i] = 1e6 * (first ? a : b) / n;
            d[i] = 1e6 * (first ? b : a) / n;
            o[i] = l[i] - d[i];
        }
        double od = quantile(o, k, 0.5), olo = quantile(o, k, 0.25), ohi = quantile(o, k, 0.75);
        double dm = quantile(d, k, 0.5), lm = quantile(l, k, 0.5);
        if (me == 0)
            printf("passthrough: bytes %ld calls %d x %d direct_us %.3f library_us %.3f over_us %.3f over_pct %.1f "
                   "over_lo %.3f over_hi %.3f\n",
                   m, k, n, dm, lm, od, dm > 0 ? 100 * od / dm : 0, olo, ohi);
        free(sb);
        free(rb);
    }
    free(d), free(l), free(o);
    MPI_Finalize();
    return rc;
}
