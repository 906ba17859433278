/* Unit test of the fold stage's per loop-body statistics on a trace built
 * with the trace writer: 2 ranks, a loop of 12 iterations in which MPI_Send
 * counts grow linearly with the iteration, MPI_Recv counts follow a table,
 * MPI_Allreduce counts stay constant; compute gaps are known per rank. The
 * trace is merged, folded, and the statistics compared with what was
 * written. Then outlier iterations (fold_outliers.c) on random loops: 3
 * ranks, 8-300 iterations whose compute wanders by up to +-15 %, with 0-3
 * iterations (first, last or anywhere) made 3-20 times slower or 10 times
 * faster on one rank: exactly those are found, with each rank's compute
 * in them and in the others. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "perfskel/fold.h"
#include "perfskel/merge.h"
#include "synth_trace.h"

#define ITERS 12
static const int64_t table[ITERS] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8};

static void put(psk_trace_writer *w, int r, const char *fn, uint64_t *clock, uint64_t gap, uint64_t dur,
                int64_t peer, int64_t count)
{
    psk_event ev;
    memset(&ev, 0, sizeof ev);
    ev.fn = psk_fn_lookup(fn);
    ev.fields = psk_fn_fields(ev.fn);
    *clock += gap;
    ev.t_entry = *clock;
    *clock += dur;
    ev.t_exit = *clock;
    ev.v[PSK_F_PEER] = peer;
    ev.v[PSK_F_ASRC] = peer;
    ev.v[PSK_F_TAG] = 7;
    ev.v[PSK_F_ATAG] = 7;
    ev.v[PSK_F_COUNT] = count;
    ev.v[PSK_F_DTSIZE] = 8;
    ev.v[PSK_F_OP] = PSK_OP_SUM;
    assert_int_equal(psk_writer_event(w, r, &ev), PSK_OK);
}

static int32_t find(const psk_folded *f, psk_merged *m, const char *fn)
{
    for (int32_t id = 0; id < psk_folded_nnodes(f); id++) {
        const psk_fnode *x = psk_folded_node(f, id);
        if (x->kind == PSK_FNODE_SYM && !strcmp(psk_fn_name(psk_merged_class_fn(m, (uint32_t)x->sym)), fn))
            return id;
    }
    fail_msg("no %s in the tree", fn);
    return -1;
}

static void test_stats(void **state)
{
    (void)state;
    char *dir = synth_tempdir();
    psk_job job = {.job_id = 77, .nranks = 2, .flavour = PSK_MPI_MPICH, .mpi_version = "test"};
    psk_trace_writer *w;
    assert_int_equal(psk_writer_open(dir, &job, NULL, &w), PSK_OK);
    for (int r = 0; r < 2; r++) {
        uint64_t clock = 0;
        put(w, r, "MPI_Init", &clock, 0, 1000, 0, 0);
        for (int i = 0; i < ITERS; i++) {
            /* rank 1 computes 3 us before each send, rank 0 1 us */
            put(w, r, "MPI_Send", &clock, r ? 3000 : 1000, 200, 1 - r, 100 + 5 * i);
            put(w, r, "MPI_Recv", &clock, 500, 300, 1 - r, table[i]);
            put(w, r, "MPI_Allreduce", &clock, 700, 400, 0, 4);
        }
        put(w, r, "MPI_Finalize", &clock, 100, 100, 0, 0);
    }
    assert_int_equal(psk_writer_close(w), PSK_OK);
    psk_writer_free(w);

    psk_trace *t;
    psk_merged *m;
    psk_folded *f;
    assert_int_equal(psk_trace_open(dir, &t), PSK_OK);
    assert_int_equal(psk_merge(t, NULL, &m), PSK_OK);
    assert_int_equal(psk_merged_length(m), 2 + 3 * ITERS);
    assert_int_equal(psk_fold((const int32_t *)psk_merged_classes(m), (int64_t)psk_merged_length(m),
                              PSK_FOLD_RUNS, &f), PSK_OK);
    assert_int_equal(psk_folded_length(f), 5);
    assert_int_equal(psk_folded_stats(f, m), PSK_OK);

    const psk_fstats *s = psk_folded_node_stats(f, find(f, m, "MPI_Send"));
    assert_int_equal(s->execs, ITERS);
    assert_int_equal(s->samples, 2 * ITERS);
    assert_true(s->gap_mean == 2000.0);
    assert_true(s->gap_min == 1000.0 && s->gap_max == 3000.0);
    assert_true(s->gap_sd == 1000.0);
    assert_true(s->mpi_mean == 200.0 && s->mpi_sd == 0.0);
    assert_int_equal(s->slowest_rank, 1);
    assert_int_equal(s->count_kind, PSK_COUNT_LINEAR);
    assert_int_equal(s->count_a, 100);
    assert_int_equal(s->count_b, 5);

    s = psk_folded_node_stats(f, find(f, m, "MPI_Recv"));
    assert_int_equal(s->count_kind, PSK_COUNT_TABLE);
    assert_int_equal(s->count_by_iter, 1);
    assert_int_equal(s->ncount, ITERS);
    assert_memory_equal(s->count_table, table, sizeof table);

    s = psk_folded_node_stats(f, find(f, m, "MPI_Allreduce"));
    assert_int_equal(s->count_kind, PSK_COUNT_CONST);
    assert_int_equal(s->count_a, 4);
    assert_true(s->gap_mean == 700.0 && s->mpi_mean == 400.0);

    psk_folded_free(f);
    psk_merged_close(m);
    psk_trace_close(t);
    synth_rmdir(dir);
    free(dir);
}

static uint64_t rng = 0x853c49e6748fea9bull;
static uint64_t rnd(void) { return synth_next(&rng); }

static void test_outliers(void **state)
{
    (void)state;
    enum { P = 3, MAXIT = 300 };
    static double comp[MAXIT][P];
    for (int round = 0; round < 40; round++) {
        int iters = 8 + (int)(rnd() % (MAXIT - 8)), nout = (int)(rnd() % 4);
        uint8_t is_out[MAXIT] = {0};
        for (int i = 0; i < iters; i++)
            for (int r = 0; r < P; r++) /* 100 us +- 15 %, per event share below */
                comp[i][r] = 100000.0 * (0.85 + 0.3 * (double)(rnd() % 1000) / 1000.0);
        for (int k = 0; k < nout; k++) {
            int64_t i = k == 0 && rnd() % 2 ? 0 : k == 1 && rnd() % 2 ? iters - 1 : (int64_t)(rnd() % (uint64_t)iters);
            if (is_out[i])
                continue;
            is_out[i] = 1;
            int slow = rnd() % 4 != 0, r = (int)(rnd() % P);
            comp[i][r] *= slow ? 3.0 + (double)(rnd() % 17) : 0.02;
            if (!slow) /* faster on every rank, or the slowest rank still makes it a steady one */
                for (int q = 0; q < P; q++)
                    comp[i][q] = comp[i][r];
        }
        char *dir = synth_tempdir();
        psk_job job = {.job_id = 78, .nranks = P, .flavour = PSK_MPI_OPENMPI, .mpi_version = "test"};
        psk_trace_writer *w;
        assert_int_equal(psk_writer_open(dir, &job, NULL, &w), PSK_OK);
        for (int r = 0; r < P; r++) {
            uint64_t clock = 0;
            put(w, r, "MPI_Init", &clock, 0, 1000, 0, 0);
            for (int i = 0; i < iters; i++) { /* the iteration's compute before its two calls */
                uint64_t a = (uint64_t)(0.25 * comp[i][r]), b = (uint64_t)comp[i][r] - a;
                put(w, r, "MPI_Allreduce", &clock, a, 300, 0, 4);
                put(w, r, "MPI_Barrier", &clock, b, 200, 0, 0);
                comp[i][r] = (double)(a + b);
            }
            put(w, r, "MPI_Finalize", &clock, 100, 100, 0, 0);
        }
        assert_int_equal(psk_writer_close(w), PSK_OK);
        psk_writer_free(w);
        psk_trace *t;
        psk_merged *m;
        psk_folded *f;
        assert_int_equal(psk_trace_open(dir, &t), PSK_OK);
        assert_int_equal(psk_merge(t, NULL, &m), PSK_OK);
        assert_int_equal(psk_fold_merged(m, PSK_FOLD_RUNS, &f), PSK_OK);
        assert_int_equal(psk_folded_stats(f, m), PSK_OK);
        int32_t loop = -1;
        for (int32_t id = 0; id < psk_folded_nnodes(f); id++)
            if (psk_folded_node(f, id)->kind == PSK_FNODE_LOOP && psk_folded_node(f, id)->count == iters)
                loop = id;
        if (loop < 0)
            fail_msg("round %d: no loop of %d iterations", round, iters);
        int n;
        double med;
        const psk_foutlier *o = psk_folded_outliers(f, loop, &n, &med);
        int want = 0;
        for (int i = 0; i < iters; i++)
            want += is_out[i];
        if (n != want)
            fail_msg("round %d: %d iterations, %d outliers found, %d made", round, iters, n, want);
        for (int k = 0; k < n; k++)
            if (!is_out[o[k].iter])
                fail_msg("round %d: iteration %lld is no outlier", round, (long long)o[k].iter);
        for (int r = 0; r < P; r++) {
            double out, steady, wo = 0, ws = 0;
            for (int i = 0; i < iters; i++)
                *(is_out[i] ? &wo : &ws) += comp[i][r];
            assert_int_equal(psk_folded_outlier_compute(f, loop, r, &out, &steady), want > 0);
            if (out != wo || steady != ws)
                fail_msg("round %d rank %d: outliers %.0f steady %.0f ns, written %.0f and %.0f", round, r, out,
                         steady, wo, ws);
        }
        psk_folded_free(f);
        psk_merged_close(m);
        psk_trace_close(t);
        synth_rmdir(dir);
        free(dir);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_stats), cmocka_unit_test(test_outliers)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
