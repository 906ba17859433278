/* fold_speed: how fast each folding algorithm folds MPI-like nested-loop
 * traces, and how much memory it takes. Shapes (--shape):
 *   periodic  an SPMD time-step loop: per step a halo exchange with 6
 *             neighbours (6 Irecv, 6 Isend, Waitall), an inner Allreduce +
 *             Bcast loop of 3-5 iterations (3, 4, 5, 3, ...), a Reduce every
 *             10 steps and a checkpoint (Barrier, File-like calls) every 100
 *             steps (a period of 300 steps); the default
 *   nested    4 kernels, each an outer loop (5-200 iterations) of 1-3 inner
 *             loops (bodies of 3-12 calls, each run 2-5 times, a call
 *             between them), called in a random order with a stray call
 *             between calls: nested loops without one period
 *   phased    the same kernels' shape, but each phase a new kernel with
 *             calls of its own (a code that goes through phases)
 * With --noise, 2 % of the events are replaced by symbols drawn from a
 * million others.
 *
 * usage: fold_speed [--algo A] [--shape S] [--noise] [--repeat R] [--dump PREFIX] N...
 *   prints one line per N: events, folded length, levels, seconds,
 *   Mevents/s and peak memory per event (RSS growth while folding), and
 *   the CPU seconds of the fastest run by CPU time (steadier than the
 *   elapsed time when other programs share the machine);
 *   --dump also writes each generated trace to PREFIX<N>.txt, one symbol
 *   a line (for `perfskel fold --symbols`, to compare foldings). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "perfskel/fold.h"

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6))
            kb = atol(line + 6);
    if (f)
        fclose(f);
    return kb;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* a kernel: an outer loop of inner loops */
typedef struct kernel {
    int outer, ninner;
    int len[3], reps[3];
    int32_t body[3][12], between[3];
} kernel;

static void kernel_make(kernel *k, int32_t *next_id)
{
    k->outer = 5 + (int)(rnd() % 196);
    k->ninner = 1 + (int)(rnd() % 3);
    for (int j = 0; j < k->ninner; j++) {
        k->len[j] = 3 + (int)(rnd() % 10);
        k->reps[j] = 2 + (int)(rnd() % 4);
        for (int i = 0; i < k->len[j]; i++)
            k->body[j][i] = *next_id + (int32_t)(rnd() % 40); /* calls repeat within a kernel */
        k->between[j] = *next_id + 40 + j;
    }
    *next_id += 64;
}

/* the kernel's calls into s from m, up to n; the new m */
static int64_t kernel_emit(const kernel *k, int32_t *s, int64_t m, int64_t n)
{
    for (int o = 0; o < k->outer && m < n; o++)
        for (int j = 0; j < k->ninner && m < n; j++) {
            for (int r = 0; r < k->reps[j]; r++)
                for (int i = 0; i < k->len[j] && m < n; i++)
                    s[m++] = k->body[j][i];
            if (m < n)
                s[m++] = k->between[j];
        }
    return m;
}

static int64_t generate_kernels(int32_t *s, int64_t n, int phased)
{
    kernel ks[4];
    int32_t next_id = 100;
    for (int i = 0; i < 4; i++)
        kernel_make(&ks[i], &next_id);
    int64_t m = 0;
    while (m < n) {
        if (phased) { /* a new kernel each phase, its own calls */
            if (next_id > 900000)
                next_id = 100;
            kernel_make(&ks[0], &next_id);
        }
        m = kernel_emit(&ks[phased ? 0 : rnd() % 4], s, m, n);
        if (m < n)
            s[m++] = 90 + (int32_t)(rnd() % 8); /* a stray call */
    }
    return m;
}

static int64_t generate(int32_t *s, int64_t n, int noise, int shape)
{
    if (shape) {
        int64_t m = generate_kernels(s, n, shape == 2);
        for (int64_t i = 0; noise && i < m; i++)
            if (rnd() % 50 == 0)
                s[i] = (int32_t)(1000000 + rnd() % 1000000);
        return m;
    }
    int64_t m = 0;
    for (int64_t step = 0; m < n; step++) {
        int32_t ev[64];
        int k = 0;
        for (int i = 0; i < 6; i++) ev[k++] = 10 + i;       /* Irecv to each neighbour */
        for (int i = 0; i < 6; i++) ev[k++] = 20 + i;       /* Isend */
        ev[k++] = 30;                                       /* Waitall */
        int inner = 3 + (int)(step % 3); /* 3, 4, 5, 3, ... */
        for (int i = 0; i < inner; i++) ev[k++] = 40, ev[k++] = 41; /* Allreduce, Bcast */
        if (step % 10 == 9) ev[k++] = 50;                   /* Reduce */
        if (step % 100 == 99) ev[k++] = 60, ev[k++] = 61, ev[k++] = 62; /* checkpoint */
        for (int i = 0; i < k && m < n; i++)
            s[m++] = noise && rnd() % 50 == 0 ? (int32_t)(1000 + rnd() % 1000000) : ev[i];
    }
    return m;
}

int main(int argc, char **argv)
{
    int algo = PSK_FOLD_RUNS, noise = 0, repeat = 1, shape = 0;
    static const char *const shapes[] = {"periodic", "nested", "phased"};
    const char *dump = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--algo") && i + 1 < argc) {
            if ((algo = psk_fold_algo_lookup(argv[++i])) < 0) {
                fprintf(stderr, "fold_speed: unknown algorithm %s\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--shape") && i + 1 < argc) {
            for (shape = 0; shape < 3 && strcmp(argv[i + 1], shapes[shape]); shape++)
                ;
            if (shape == 3) {
                fprintf(stderr, "fold_speed: unknown shape %s (periodic, nested, phased)\n", argv[i + 1]);
                return 2;
            }
            i++;
        } else if (!strcmp(argv[i], "--noise")) {
            noise = 1;
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            repeat = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--dump") && i + 1 < argc) {
            dump = argv[++i];
        } else {
            int64_t n = (int64_t)atof(argv[i]);
            if (n <= 0) {
                fprintf(stderr,
                        "usage: fold_speed [--algo A] [--shape S] [--noise] [--repeat R] [--dump PREFIX] N...\n");
                return 2;
            }
            int32_t *s = malloc((size_t)n * sizeof *s);
            if (!s)
                return 1;
            rng = 0x9E3779B97F4A7C15ull; /* each N its own trace, the same every run */
            n = generate(s, n, noise, shape);
            if (dump) {
                char path[4096];
                snprintf(path, sizeof path, "%s%lld.txt", dump, (long long)n);
                FILE *o = fopen(path, "w");
                for (int64_t j = 0; o && j < n; j++)
                    fprintf(o, "%d\n", s[j]);
                if (!o || fclose(o)) {
                    fprintf(stderr, "fold_speed: cannot write %s\n", path);
                    return 1;
                }
            }
            double best = 1e30, best_cpu = 1e30;
            long before = rss_kb(), peak = 0;
            int64_t flen = 0, levels = 0;
            for (int r = 0; r < repeat; r++) {
                psk_folded *f;
                double t0 = now(), c0 = cpu();
                if (psk_fold(s, n, algo, &f)) {
                    fprintf(stderr, "fold_speed: %s\n", psk_folded_errmsg(f));
                    return 1;
                }
                double t = now() - t0, c = cpu() - c0;
                best = t < best ? t : best;
                best_cpu = c < best_cpu ? c : best_cpu;
                flen = psk_folded_length(f);
                levels = psk_folded_rounds(f);
                psk_folded_free(f);
                long p = rss_kb();
                peak = p > peak ? p : peak;
            }
            printf("%s %s %s n=%lld folded=%lld levels=%lld seconds=%.3f Mev/s=%.2f bytes/event=%.1f cpu=%.3f\n",
                   psk_fold_algo_name(algo), shapes[shape], noise ? "noisy" : "clean", (long long)n, (long long)flen,
                   (long long)levels, best, (double)n / best / 1e6,
                   (double)(peak - before) * 1024.0 / (double)n, best_cpu);
            fflush(stdout);
            free(s);
        }
    }
    return 0;
}
