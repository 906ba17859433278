/* perfskel gen: the performance skeleton of a recorded job,
 * one readable C file that compiles with any MPI's mpicc and runs with the
 * recorded number of ranks. The trace is merged without reordering (each
 * rank keeps its own order, so the skeleton is deadlock-free where the
 * original was), folded, and written out with loops scaled down K times. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "perfskel/gen.h"

/* what predict needs to know of the skeleton: the recorded run time and
 * the skeleton's likely one (gen_times.c), and what gen runs of each loop */
static int skel_info(const double *secs, int P, const psk_gen *g, psk_cli_skelinfo *info)
{
    info->nranks = P;
    info->pin = psk_gen_pinned(g);
    psk_gen_expected(g, secs, P, &info->recorded_seconds, &info->expected_seconds);
    int n;
    const psk_gen_loop *l = psk_gen_loops(g, &n);
    info->nloops = 0;
    info->loops = n ? malloc((size_t)n * sizeof *info->loops) : NULL;
    if (n && !info->loops)
        return PSK_ENOMEM;
    if (n)
        memcpy(info->loops, l, (size_t)n * sizeof *l);
    info->nloops = n;
    return 0;
}

/* a step of predict on stderr, with the time since the previous one */
static void say(const psk_cli_skelinfo *info, double *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(const psk_cli_skelinfo *info, double *t, const char *fmt, ...)
{
    if (!info || !info->progress)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", info->progress);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    *t = psk_cli_now();
}

int psk_cli_make_skeleton(const char *input, const psk_gen_opts *go, FILE *out, const char *outname,
                          psk_cli_skelinfo *info)
{
    psk_merged *m;
    double t = psk_cli_now();
    psk_cli_progress mp;
    psk_merge_opts mo = {0};
    psk_cli_merge_progress(&mp, &mo, info && info->progress ? info->progress : "gen", !info || !info->progress);
    say(info, &t, psk_merged_is_file(input) ? "reading %s ...\n" : "merging the trace in %s ...\n", input);
    psk_folded *f = psk_cli_load_folded_opts(input, &mo, &m); /* each rank keeps its own order */
    psk_cli_progress_done(&mp);
    if (!f)
        return PSK_EXIT_DATA;
    if (info && info->progress) {
        uint64_t events = 0;
        for (int r = 0; r < psk_merged_nranks(m); r++)
            events += psk_merged_rank_events(m, r);
        say(info, &t, "%llu events of %d ranks merged into %llu and folded in %.1f s; measuring the loops ...\n",
            (unsigned long long)events, psk_merged_nranks(m), (unsigned long long)psk_merged_length(m),
            psk_cli_now() - t);
    }
    /* each rank's recorded run time, for predict */
    int P = psk_merged_nranks(m);
    double *secs = NULL;
    int rc = psk_folded_stats(f, m);
    if (rc)
        psk_cli_error("%s: %s", input, psk_folded_errmsg(f));
    else if (info && (rc = (secs = calloc((size_t)(P > 0 ? P : 1), sizeof *secs)) ? psk_gen_rank_seconds(m, f, secs)
                                                                                  : PSK_ENOMEM) != 0)
        psk_cli_error("%s: %s", input,
                      rc == PSK_ENOMEM ? "out of memory" : "the merged trace does not match its folding");
    if (!rc) {
        say(info, &t, "measured in %.1f s; generating the skeleton ...\n", psk_cli_now() - t);
        psk_gen *g = NULL;
        if (psk_gen_open(m, f, go, &g)) {
            psk_cli_error("%s: %s", input, psk_gen_errmsg(g));
            rc = PSK_EXIT_DATA;
        } else if (psk_gen_write(g, out)) {
            psk_cli_error("%s: cannot write", outname);
            rc = PSK_EXIT_DATA;
        } else if (info && skel_info(secs, P, g, info)) {
            psk_cli_error("out of memory");
            rc = PSK_EXIT_DATA;
        }
        psk_gen_close(g);
    }
    free(secs);
    psk_folded_free(f);
    psk_merged_close(m);
    return rc ? PSK_EXIT_DATA : 0;
}

int psk_cli_parse_k(const char *s, int *K)
{
    char *end;
    long k = strtol(s, &end, 10);
    if (*end || k < 1 || k > 1000000)
        return -1;
    *K = (int)k;
    return 0;
}

enum { O_K, O_OUT, O_TABLE_MIN, O_MIN_SAMPLE, O_NO_PIN };
static const psk_cli_opt opts[] = {
    [O_K] = {"-K", NULL, PSK_OPT_VALUE},
    [O_OUT] = {"-o", NULL, PSK_OPT_VALUE},
    [O_TABLE_MIN] = {"--table-min", NULL, PSK_OPT_VALUE},
    [O_MIN_SAMPLE] = {"--min-sample", NULL, PSK_OPT_VALUE},
    [O_NO_PIN] = {"--no-pin", NULL, PSK_OPT_FLAG},
};
const psk_cli_opts cmd_gen_opts = {"gen", PSK_CLI_OPTS(opts), PSK_CLI_JOB_NONE, NULL, NULL};

int cmd_gen(int argc, char **argv)
{
    const char *input = NULL, *out = "skeleton.c";
    int K = 10, table_min = 0, k, no_pin = 0;
    double min_sample = -1;
    psk_cli_args a;
    psk_cli_begin(&a, &cmd_gen_opts, argc, argv);
    while ((k = psk_cli_next(&a)) != PSK_CLI_END) {
        if (k == PSK_CLI_STOP) {
            return a.status;
        } else if (k == O_K) {
            if (psk_cli_parse_k(a.val, &K))
                return psk_cli_usage("gen: -K takes a whole number of at least 1, not '%s'", a.val);
        } else if (k == O_OUT) {
            out = a.val;
        } else if (k == O_TABLE_MIN) {
            char *end;
            long v = strtol(a.val, &end, 10);
            if (*end || end == a.val || v < 1 || v > 1000000000)
                return psk_cli_usage("gen: --table-min takes a whole number of at least 1, not '%s'", a.val);
            table_min = (int)v;
        } else if (k == O_MIN_SAMPLE) {
            if (psk_cli_seconds(a.val, &min_sample))
                return psk_cli_usage("gen: --min-sample takes seconds (0 for no floor), not '%s'", a.val);
        } else if (k == O_NO_PIN) {
            no_pin = 1;
        } else if (!input) { /* an operand */
            input = a.val;
        } else {
            return psk_cli_usage("gen: one input only");
        }
    }
    if (!input)
        return psk_cli_usage("gen: no trace directory given");
    FILE *f = strcmp(out, "-") ? fopen(out, "w") : stdout;
    if (!f) {
        psk_cli_error("%s: %s", out, strerror(errno));
        return PSK_EXIT_DATA;
    }
    psk_gen_opts go = {.K = K, .table_min = table_min, .floor_seconds = min_sample, .no_pin = no_pin};
    int rc = psk_cli_make_skeleton(input, &go, f, out, NULL);
    if (f != stdout && fclose(f) && !rc) {
        psk_cli_error("%s: cannot write", out);
        rc = PSK_EXIT_DATA;
    }
    if (rc && f != stdout)
        remove(out);
    else if (f != stdout)
        fprintf(stderr, "perfskel: skeleton written to %s\n", out);
    return rc;
}
