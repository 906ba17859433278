/* The grid of process-count extrapolation from a recorded MPI_Cart_create
 * (trace format 3, src/merge/merge_extrap.c): a 4-rank trace whose
 * MPI_Dims_create made a 2x2 grid (or 4x1 with the second dimension kept
 * at 1) and whose MPI_Cart_create recorded it, extrapolated to 8 and 16
 * ranks: the report says the grid was recorded, with its periods and the
 * dims kept fixed, and the rebuilt MPI_Dims_create and MPI_Cart_create
 * events carry MPI_Dims_create's grid at P2 (4x2, 4x4; 8x1, 16x1) on
 * every rank. The same trace written in format 1 (no grid recorded) is
 * extrapolated with the grid inferred, as before. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "perfskel/extrap.h"
#include "perfskel/merge.h"
#include "perfskel/trace.h"
#include "synth_trace.h"

#define P 4

static psk_event mk(const char *name, uint64_t *clock)
{
    psk_event e;
    memset(&e, 0, sizeof e);
    e.fn = psk_fn_lookup(name);
    assert_true(e.fn != 0);
    e.fields = psk_fn_fields(e.fn);
    e.t_entry = *clock += 1000;
    e.t_exit = *clock += 500;
    return e;
}

/* the trace: Init, Dims_create(4, 2, given), Cart_create (periods 1, 0),
 * Allreduce on it, Comm_free, Finalize; format version v */
static char *write_trace(const int *given, int v)
{
    char *dir = synth_tempdir();
    psk_job job = {.job_id = 77, .nranks = P, .flavour = PSK_MPI_OPENMPI, .format_version = v};
    psk_trace_writer *w;
    uint64_t start[P] = {0};
    assert_int_equal(psk_writer_open(dir, &job, start, &w), PSK_OK);
    int64_t din[2] = {given[0], given[1]}, dout[2], per[2] = {1, 0}, mem[P];
    dout[1] = given[1] ? given[1] : 2;
    dout[0] = P / dout[1];
    for (int r = 0; r < P; r++)
        mem[r] = r;
    for (int r = 0; r < P; r++) {
        uint64_t clock = 0;
        psk_event e = mk("MPI_Init", &clock);
        assert_int_equal(psk_writer_event(w, r, &e), PSK_OK);
        if (v == 0 || v >= 3) {
            e = mk("MPI_Dims_create", &clock);
            e.v[PSK_F_I1] = P;
            PSK_ARRN(&e, PSK_F_DIMSIN) = 2, PSK_ARR(&e, PSK_F_DIMSIN) = din;
            PSK_ARRN(&e, PSK_F_DIMS) = 2, PSK_ARR(&e, PSK_F_DIMS) = dout;
            assert_int_equal(psk_writer_event(w, r, &e), PSK_OK);
        }
        e = mk("MPI_Cart_create", &clock);
        e.v[PSK_F_COMM] = 0, e.v[PSK_F_NEWID] = 2;
        PSK_ARRN(&e, PSK_F_MEMBERS) = P, PSK_ARR(&e, PSK_F_MEMBERS) = mem;
        PSK_ARRN(&e, PSK_F_DIMS) = 2, PSK_ARR(&e, PSK_F_DIMS) = dout;
        PSK_ARRN(&e, PSK_F_PERIODS) = 2, PSK_ARR(&e, PSK_F_PERIODS) = per;
        assert_int_equal(psk_writer_event(w, r, &e), PSK_OK);
        e = mk("MPI_Allreduce", &clock);
        e.v[PSK_F_COMM] = 2, e.v[PSK_F_COUNT] = 1, e.v[PSK_F_DTSIZE] = 8, e.v[PSK_F_OP] = PSK_OP_SUM;
        assert_int_equal(psk_writer_event(w, r, &e), PSK_OK);
        e = mk("MPI_Comm_free", &clock);
        e.v[PSK_F_COMM] = 2;
        assert_int_equal(psk_writer_event(w, r, &e), PSK_OK);
        e = mk("MPI_Finalize", &clock);
        assert_int_equal(psk_writer_event(w, r, &e), PSK_OK);
    }
    assert_int_equal(psk_writer_close(w), PSK_OK);
    psk_writer_free(w);
    return dir;
}

typedef struct seen {
    int rank, P2, ndims, dims[2], dc, cart;
} seen;

static int check_event(void *arg, const psk_event *e)
{
    seen *s = arg;
    const char *name = psk_fn_name(e->fn);
    if (!strcmp(name, "MPI_Dims_create")) {
        s->dc++;
        assert_int_equal(e->v[PSK_F_I1], s->P2);
        assert_int_equal(PSK_ARRN(e, PSK_F_DIMS), 2);
        assert_int_equal(PSK_ARR(e, PSK_F_DIMS)[0], s->dims[0]);
        assert_int_equal(PSK_ARR(e, PSK_F_DIMS)[1], s->dims[1]);
    } else if (!strcmp(name, "MPI_Cart_create")) {
        s->cart++;
        assert_int_equal(PSK_ARRN(e, PSK_F_MEMBERS), s->P2);
        assert_int_equal(PSK_ARRN(e, PSK_F_DIMS), s->ndims);
        for (int k = 0; k < s->ndims; k++)
            assert_int_equal(PSK_ARR(e, PSK_F_DIMS)[k], s->dims[k]);
        assert_int_equal(PSK_ARRN(e, PSK_F_PERIODS), s->ndims);
        if (s->ndims)
            assert_true(PSK_ARR(e, PSK_F_PERIODS)[0] == 1 && PSK_ARR(e, PSK_F_PERIODS)[1] == 0);
    }
    return 0;
}

static void extrapolate(const char *dir, int P2, int recorded, const int *want_fixed, const int *want)
{
    psk_trace *t;
    psk_merged *m, *m2;
    assert_int_equal(psk_trace_open(dir, &t), PSK_OK);
    psk_merge_opts mo = {.window = 64, .no_reorder = 1};
    assert_int_equal(psk_merge(t, &mo, &m), PSK_OK);
    psk_extrap_opts o = {.ranks = P2, .scale = PSK_SCALE_WEAK};
    psk_extrap_report rep;
    int rc = psk_merged_extrapolate(m, &o, &m2, &rep);
    if (rc)
        fail_msg("%s", psk_merged_errmsg(m2));
    assert_int_equal(rep.grid_recorded, recorded);
    if (recorded) {
        assert_int_equal(rep.ndims, 2);
        assert_true(rep.periods[0] == 1 && rep.periods[1] == 0);
        assert_true(rep.fixed[0] == want_fixed[0] && rep.fixed[1] == want_fixed[1]);
        assert_true(rep.dims_to[0] == want[0] && rep.dims_to[1] == want[1]);
    }
    assert_int_equal(psk_merged_nranks(m2), P2);
    for (int r = 0; r < P2; r++) {
        seen s = {r, P2, recorded ? 2 : 0, {want[0], want[1]}, 0, 0};
        assert_int_equal(psk_merged_expand(m2, r, check_event, &s), 0);
        assert_int_equal(s.dc, recorded);
        assert_int_equal(s.cart, 1);
    }
    psk_merged_close(m2);
    psk_merged_close(m);
    psk_trace_close(t);
}

static void test_recorded(void **state)
{
    (void)state;
    static const int given[2][2] = {{0, 0}, {0, 1}};
    static const int want[2][2][2] = {{{4, 2}, {4, 4}}, {{8, 1}, {16, 1}}};
    for (int g = 0; g < 2; g++) {
        char *dir = write_trace(given[g], 0);
        extrapolate(dir, 8, 1, given[g], want[g][0]);
        extrapolate(dir, 16, 1, given[g], want[g][1]);
        synth_rmdir(dir);
        free(dir);
    }
}

/* format 1: no grid recorded, Cart_create's dims empty at P2 too */
static void test_inferred(void **state)
{
    (void)state;
    static const int given[2] = {0, 0}, none[2] = {0, 0};
    char *dir = write_trace(given, 1);
    extrapolate(dir, 8, 0, none, none);
    synth_rmdir(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded),
        cmocka_unit_test(test_inferred),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
