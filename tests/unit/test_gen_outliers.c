/* Skeletons of loops with outlier iterations (src/gen/gen_skeleton.c,
 * emit_outliers): random 2-rank traces of a loop of Allreduce and Barrier
 * with per-rank compute gaps, whose first, last or a middle iteration
 * computes 5-30 times as long. At K = 10 the skeleton must run, once and
 * before the scaled loop, each rank's compute in the outlier beyond a
 * steady iteration's, and give the loop's events the steady compute (the
 * mean without the outlier); with the same trace without the outlier, or
 * at K = 1 (nothing scaled), no outlier work is written. Work units are
 * 1 ns here (job.json "work"), so units are nanoseconds minus each rank's
 * shortest gap (docs/skeletons.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "perfskel/fold.h"
#include "perfskel/gen.h"
#include "perfskel/merge.h"
#include "synth_trace.h"

static uint64_t rng = 0x1d8e4e27c47d124full;
static uint64_t rnd(void) { return synth_next(&rng); }

static void put(psk_trace_writer *w, int r, const char *fn, uint64_t *clock, uint64_t gap)
{
    psk_event ev;
    memset(&ev, 0, sizeof ev);
    ev.fn = psk_fn_lookup(fn);
    ev.fields = psk_fn_fields(ev.fn);
    *clock += gap;
    ev.t_entry = *clock;
    *clock += 500;
    ev.t_exit = *clock;
    ev.v[PSK_F_COUNT] = 4;
    ev.v[PSK_F_DTSIZE] = 8;
    ev.v[PSK_F_OP] = PSK_OP_SUM;
    assert_int_equal(psk_writer_event(w, r, &ev), PSK_OK);
}

/* the skeleton of a trace: loop of iters, per rank gaps a[r], b[r], the
 * iteration `slow` (or -1) x factor; returns the C text (malloc'd) */
static char *skeleton(int iters, const uint64_t *a, const uint64_t *b, int slow, int factor, int K)
{
    char *dir = synth_tempdir();
    static const double unit[2] = {1.0, 1.0};
    static const char *const hosts[2] = {"h", "h"};
    psk_job job = {.job_id = 79, .nranks = 2, .flavour = PSK_MPI_OPENMPI, .mpi_version = "test",
                   .work_kernel = "fma-chain-1", .work_ns_per_unit = unit, .hosts = hosts};
    psk_trace_writer *w;
    assert_int_equal(psk_writer_open(dir, &job, NULL, &w), PSK_OK);
    for (int r = 0; r < 2; r++) {
        uint64_t clock = 0;
        put(w, r, "MPI_Init", &clock, 0);
        for (int i = 0; i < iters; i++) {
            uint64_t m = i == slow ? (uint64_t)factor : 1;
            put(w, r, "MPI_Allreduce", &clock, a[r] * m);
            put(w, r, "MPI_Barrier", &clock, b[r] * m);
        }
        put(w, r, "MPI_Finalize", &clock, 1000);
    }
    assert_int_equal(psk_writer_close(w), PSK_OK);
    psk_writer_free(w);
    psk_trace *t;
    psk_merged *m;
    psk_folded *f;
    psk_merge_opts mo = {.window = 64, .no_reorder = 1};
    assert_int_equal(psk_trace_open(dir, &t), PSK_OK);
    assert_int_equal(psk_merge(t, &mo, &m), PSK_OK);
    assert_int_equal(psk_fold_merged(m, PSK_FOLD_RUNS, &f), PSK_OK);
    assert_int_equal(psk_folded_stats(f, m), PSK_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    psk_gen_opts o = {.K = K, .table_min = 1 << 30};
    psk_gen *g = NULL;
    if (psk_gen_open(m, f, &o, &g) || psk_gen_write(g, out))
        fail_msg("gen: %s", psk_gen_errmsg(g));
    psk_gen_close(g);
    fclose(out);
    psk_folded_free(f);
    psk_merged_close(m);
    psk_trace_close(t);
    synth_rmdir(dir);
    free(dir);
    return text;
}

/* the two values of "NAME[NRANKS] = {x, y}" in text, or 0 if absent */
static int pair(const char *text, const char *name, long long v[2])
{
    const char *p = strstr(text, name);
    return p && (p = strchr(p, '{')) && sscanf(p, "{%lld, %lld}", &v[0], &v[1]) == 2;
}

/* the work before the loop's Allreduce and Barrier, per rank: a literal
 * psk_work(N) when the ranks agree, else a T<id>_work table */
static void body_work(const char *text, const char *fn, long long v[2])
{
    char key[64];
    snprintf(key, sizeof key, "/* %s", fn);
    const char *p = strstr(text, "iterations of 2 events");
    assert_non_null(p);
    p = strstr(p, key);
    assert_non_null(p);
    const char *wk = strstr(p, "psk_work(");
    assert_non_null(wk);
    wk += strlen("psk_work(");
    if (!strncmp(wk, "cunits_(", 8)) /* compute scaled: the units, then the factor */
        wk += 8;
    if (sscanf(wk, "%lld", &v[0]) == 1) {
        v[1] = v[0];
        return;
    }
    char table[32];
    assert_int_equal(sscanf(wk, "(uint64_t)%31[A-Za-z0-9_]", table), 1);
    strcat(table, "[NRANKS] =");
    assert_true(pair(text, table, v));
}

static void test_outlier_work(void **state)
{
    (void)state;
    for (int round = 0; round < 12; round++) {
        int iters = 20 + (int)(rnd() % 60), factor = 5 + (int)(rnd() % 26);
        int slow = round % 3 == 0 ? 0 : round % 3 == 1 ? iters - 1 : 1 + (int)(rnd() % (uint64_t)(iters - 2));
        uint64_t a[2], b[2];
        for (int r = 0; r < 2; r++)
            a[r] = 20000 + rnd() % 80000, b[r] = 20000 + rnd() % 80000;
        char *s = skeleton(iters, a, b, slow, factor, 10);
        long long extra[2], wa[2], wb[2];
        if (!pair(s, "_outlier_work[NRANKS] =", extra))
            fail_msg("round %d: no outlier work for iteration %d of %d (x%d)", round, slow, iters, factor);
        body_work(s, "MPI_Allreduce", wa);
        body_work(s, "MPI_Barrier", wb);
        for (int r = 0; r < 2; r++) {
            /* the shortest gap on the rank: a steady one, or Finalize's 1 us */
            long long ming = (long long)(a[r] < b[r] ? a[r] : b[r]);
            ming = ming < 1000 ? ming : 1000;
            long long want = (long long)(factor - 1) * (long long)(a[r] + b[r]);
            if (llabs(extra[r] - want) > 2)
                fail_msg("round %d rank %d: outlier work %lld, want %lld", round, r, extra[r], want);
            if (llabs(wa[r] - ((long long)a[r] - ming)) > 2 || llabs(wb[r] - ((long long)b[r] - ming)) > 2)
                fail_msg("round %d rank %d: body work %lld + %lld, want the steady %lld + %lld", round, r, wa[r],
                         wb[r], (long long)a[r] - ming, (long long)b[r] - ming);
        }
        free(s);
        /* controls: no outlier; K = 1 */
        s = skeleton(iters, a, b, -1, 1, 10);
        assert_null(strstr(s, "_outlier_work"));
        free(s);
        s = skeleton(iters, a, b, slow, factor, 1);
        assert_null(strstr(s, "_outlier_work"));
        free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_outlier_work)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
