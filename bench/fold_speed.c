/* fold_speed: how fast each folding algorithm folds MPI-like nested-loop
 * traces, and how much memory it takes. The generated trace is shaped like
 * an SPMD time-step loop: per step a halo exchange with 6 neighbours
 * (6 Irecv, 6 Isend, Waitall), an inner Allreduce + Bcast loop of 3-5
 * iterations (3, 4, 5, 3, ...), a Reduce every 10 steps and a checkpoint
 * (Barrier, File-like calls) every 100 steps (a period of 300 steps); with
 * --noise, 2 % of the
 * events are replaced by symbols drawn from a million others.
 *
 * usage: fold_speed [--algo A] [--noise] [--repeat R] [--dump PREFIX] N...
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

static int64_t generate(int32_t *s, int64_t n, int noise)
{
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
    int algo = PSK_FOLD_RUNS, noise = 0, repeat = 1;
    const char *dump = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--algo") && i + 1 < argc) {
            if ((algo = psk_fold_algo_lookup(argv[++i])) < 0) {
                fprintf(stderr, "fold_speed: unknown algorithm %s\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--noise")) {
            noise = 1;
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            repeat = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--dump") && i + 1 < argc) {
            dump = argv[++i];
        } else {
            int64_t n = (int64_t)atof(argv[i]);
            if (n <= 0) {
                fprintf(stderr, "usage: fold_speed [--algo A] [--noise] [--repeat R] [--dump PREFIX] N...\n");
                return 2;
            }
            int32_t *s = malloc((size_t)n * sizeof *s);
            if (!s)
                return 1;
            n = generate(s, n, noise);
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
            printf("%s %s n=%lld folded=%lld levels=%lld seconds=%.3f Mev/s=%.2f bytes/event=%.1f cpu=%.3f\n",
                   psk_fold_algo_name(algo), noise ? "noisy" : "clean", (long long)n, (long long)flen,
                   (long long)levels, best, (double)n / best / 1e6,
                   (double)(peak - before) * 1024.0 / (double)n, best_cpu);
            fflush(stdout);
            free(s);
        }
    }
    return 0;
}
