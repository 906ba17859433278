/* Unit test of the fold stage's per loop-body statistics on a trace built
 * with the trace writer: 2 ranks, a loop of 12 iterations in which MPI_Send
 * counts grow linearly with the iteration, MPI_Recv counts follow a table,
 * MPI_Allreduce counts stay constant; compute gaps are known per rank. The
 * trace is merged, folded, and the statistics compared with what was
 * written. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_stats)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
