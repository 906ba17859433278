/* The merged trace's cursor read through a window (psk_mcursor_window, as
 * sim --folded's building reads it): on random SPMD traces of 65 to 200
 * ranks (so that the window wraps) whose events carry scalars and arrays
 * that are the same on every rank, follow the rank, or differ by rank,
 * every rank's event, gap and place in its times read through the window
 * in parts of random sizes is the one the whole cursor gives; and each
 * place is that event's gap in the rank's times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "perfskel/merge.h"
#include "psk_varint.h"
#include "synth_trace.h"

typedef struct writer {
    psk_trace_writer *w;
    uint64_t *clock, rng;
} writer;

static void put(writer *w, int r, const char *fn, const int64_t *v, const int64_t *reqs, uint32_t nreqs)
{
    psk_event e;
    memset(&e, 0, sizeof e);
    e.fn = psk_fn_lookup(fn);
    assert_true(e.fn != 0);
    e.fields = psk_fn_fields(e.fn);
    w->clock[r] += 100 + synth_next(&w->rng) % 5000;
    e.t_entry = w->clock[r];
    w->clock[r] += 50 + synth_next(&w->rng) % 400;
    e.t_exit = w->clock[r];
    for (int f = 0; v && f < PSK_F_FIRST_ARRAY; f++)
        e.v[f] = v[f];
    if (reqs) {
        PSK_ARRN(&e, PSK_F_REQS) = nreqs;
        PSK_ARR(&e, PSK_F_REQS) = reqs;
    }
    assert_int_equal(psk_writer_event(w->w, r, &e), 0);
}

/* iterations of an exchange with the ranks d apart (MPI_PROC_NULL past the
 * ends), a Waitall whose requests are the same everywhere or swapped on
 * odd ranks, and an Allreduce whose count is the same or the rank's */
static void write_trace(const char *dir, uint64_t seed, int P)
{
    psk_job job = {.job_id = 11, .nranks = P, .flavour = PSK_MPI_OPENMPI, .mpi_version = "synthetic",
                   .command = "test_mcursor"};
    writer w = {.clock = calloc((size_t)P, sizeof *w.clock), .rng = seed | 1};
    assert_non_null(w.clock);
    assert_int_equal(psk_writer_open(dir, &job, NULL, &w.w), 0);
    for (int r = 0; r < P; r++)
        put(&w, r, "MPI_Init", NULL, NULL, 0);
    int iters = 3 + (int)(synth_next(&w.rng) % 6);
    for (int it = 0; it < iters; it++) {
        int d = 1 + (int)(synth_next(&w.rng) % 3), swap = (int)(synth_next(&w.rng) % 2);
        int bycount = (int)(synth_next(&w.rng) % 2), tag = (int)(synth_next(&w.rng) % 50);
        for (int r = 0; r < P; r++) {
            int64_t v[PSK_F_FIRST_ARRAY] = {0};
            v[PSK_F_COMM] = 0, v[PSK_F_TAG] = tag, v[PSK_F_COUNT] = 64, v[PSK_F_DTSIZE] = 8;
            v[PSK_F_PEER] = r - d >= 0 ? r - d : PSK_PROC_NULL, v[PSK_F_REQ] = 0;
            put(&w, r, "MPI_Irecv", v, NULL, 0);
            v[PSK_F_PEER] = r + d < P ? r + d : PSK_PROC_NULL, v[PSK_F_REQ] = 1;
            put(&w, r, "MPI_Isend", v, NULL, 0);
            int64_t reqs[2] = {swap && r % 2 ? 1 : 0, swap && r % 2 ? 0 : 1};
            put(&w, r, "MPI_Waitall", NULL, reqs, 2);
            memset(v, 0, sizeof v);
            v[PSK_F_COMM] = 0, v[PSK_F_COUNT] = bycount ? 1 + r : 5, v[PSK_F_DTSIZE] = 8, v[PSK_F_OP] = PSK_OP_SUM;
            put(&w, r, "MPI_Allreduce", v, NULL, 0);
        }
    }
    for (int r = 0; r < P; r++)
        put(&w, r, "MPI_Finalize", NULL, NULL, 0);
    assert_int_equal(psk_writer_close(w.w), 0);
    psk_writer_free(w.w);
    free(w.clock);
}

/* how many merged events had their requests by rank (a table) */
static int one(uint64_t seed)
{
    uint64_t rng = seed * 2654435761u + 7;
    int P = 65 + (int)(synth_next(&rng) % 136);
    char *dir = synth_tempdir();
    rmdir(dir);
    write_trace(dir, seed, P);
    psk_trace *t;
    assert_int_equal(psk_trace_open(dir, &t), 0);
    psk_merged *m;
    psk_merge_opts o = {.window = 64, .no_reorder = 1};
    assert_int_equal(psk_merge(t, &o, &m), 0);
    psk_mcursor *whole, *win;
    assert_int_equal(psk_mcursor_open(m, &whole), 0);
    assert_int_equal(psk_mcursor_open(m, &win), 0);
    psk_mcursor_window(win);
    psk_mevent a, b;
    int rc, arrays = 0, tables = 0;
    while ((rc = psk_mcursor_next(whole, &a)) == PSK_OK) {
        assert_int_equal(psk_mcursor_head(win, &b), PSK_OK);
        assert_int_equal(a.jmask, ~0u);
        assert_int_equal(b.jmask, PSK_MCURSOR_CHUNK - 1);
        assert_int_equal(a.nranks, b.nranks);
        arrays += PSK_HAS(&a, PSK_F_REQS) && a.kind[PSK_F_REQS] == PSK_PAT_CONST;
        tables += PSK_HAS(&a, PSK_F_REQS) && a.kind[PSK_F_REQS] == PSK_PAT_TABLE;
        for (int j0 = 0; j0 < b.nranks;) {
            /* up to the next multiple of the chunk, or short of it */
            int next = (j0 / PSK_MCURSOR_CHUNK + 1) * PSK_MCURSOR_CHUNK;
            int j1 = j0 + 1 + (int)(synth_next(&rng) % (uint64_t)(next - j0));
            assert_int_equal(psk_mcursor_fill(win, j1), PSK_OK);
            j1 = j1 < b.nranks ? j1 : b.nranks;
            for (int j = j0; j < j1; j++) {
                uint32_t J = (uint32_t)j & b.jmask;
                assert_true(synth_event_equal(&a.ev[j], &b.ev[J]));
                assert_int_equal(a.ev[j].thread, b.ev[J].thread);
                assert_int_equal(a.gap[j], b.gap[J]);
                assert_ptr_equal(a.tat[j], b.tat[J]);
                /* where the event's gap is in the rank's times */
                size_t len;
                const uint8_t *tp = psk_merged_rank_times(m, a.ranks[j], &len);
                assert_true(a.tat[j] >= tp && a.tat[j] < tp + len);
                const uint8_t *p = a.tat[j];
                int64_t g;
                assert_int_equal(psk_get_svar(&p, tp + len, &g), 0);
                assert_int_equal(a.gap[j], g > 0 ? (uint64_t)g : 0);
            }
            j0 = j1;
        }
    }
    assert_int_equal(rc, PSK_EOF);
    assert_int_equal(psk_mcursor_head(win, &b), PSK_EOF);
    assert_true(arrays > 0);
    psk_mcursor_close(whole);
    psk_mcursor_close(win);
    psk_merged_close(m);
    psk_trace_close(t);
    synth_rmdir(dir);
    free(dir);
    return tables;
}

static void window_gives_the_whole_cursors_events(void **state)
{
    (void)state;
    int tables = 0;
    for (uint64_t seed = 1; seed <= 12; seed++)
        tables += one(seed);
    assert_true(tables > 0); /* arrays that differ by rank were read too */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(window_gives_the_whole_cursors_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
