/* The advisor on kernels whose answers are derived by hand from
 * docs/advise.md's formulas (decomposition.md, "Test kernels"): P = 16,
 * 8-byte elements, a bus with SAPFOR's constants (Ts = 7 us, Tb = 0.001
 * us/byte), ceil(N/p) blocks. Each test says the reasoning; the counts and
 * times asserted are exact (to rounding). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "advise_internal.h"

static void bus(psk_machine *m)
{
    psk_machine_default(m);
    m->type = PSK_NET_BUS;
    m->start_us = 7;
    m->byte_us = 0.001;
}

static psk_advice *advise(const char *text, const psk_machine *m, int64_t n, psk_adv_program **pp)
{
    psk_adv_define d = {"N", n};
    psk_adv_program *p = NULL;
    int rc = psk_adv_parse(text, strlen(text), "k.adv", &d, n ? 1 : 0, &p);
    if (rc)
        fprintf(stderr, "%s\n", psk_adv_program_errmsg(p));
    assert_int_equal(rc, PSK_OK);
    psk_advice *a = NULL;
    psk_adv_options o = {0, 0, 100, 0, 0, 0};
    rc = psk_adv_run(p, m, &o, &a);
    if (rc)
        fprintf(stderr, "%s\n", psk_advice_errmsg(a));
    assert_int_equal(rc, PSK_OK);
    *pp = p;
    return a;
}

static const adv_eval *best(const psk_advice *a)
{
    return &a->cand[a->rank[0]];
}

static void grid_is(const adv_eval *e, int naxes, int64_t e0, int64_t e1)
{
    assert_int_equal(e->layout.grid.naxes, naxes);
    assert_int_equal(e->layout.grid.extent[0], e0);
    if (naxes > 1)
        assert_int_equal(e->layout.grid.extent[1], e1);
}

static int nest_of(const psk_adv_program *p, const char *name)
{
    for (int n = 0; n < p->nnests; n++)
        if (!strcmp(p->nests[n].name, name))
            return n;
    fail_msg("no nest %s", name);
    return -1;
}

/* Jacobi 2-D, shadow width 1 on A in both dimensions, no corners. With
 * N a multiple of 16, per execution of the stencil:
 *   P(16):  30 messages (15 neighbour pairs, both ways) of one row, N
 *           elements: 30 Ts + 240 N Tb bytes... = 210 + 0.24 N us;
 *   P(2,8): 16 messages of N/8 and 28 of N/2 elements: 308 + 0.128 N;
 *   P(4,4): 48 messages of N/4 elements: 336 + 0.096 N.
 * All three tie at N = 875; below it the 1-D grid wins, above it 4 x 4
 * (work 0, so that ceil blocks' compute does not blur the comparison).
 * N = 864: 417.36 / 418.592 / 418.944 us; N = 880: 421.2 / 420.64 /
 * 420.48 us. */
static const char jacobi[] =
    "param N = 64; procs 16;\n"
    "array A[N][N] double; array B[N][N] double;\n"
    "nest relax { for i = 1 .. N-2 par for j = 1 .. N-2 par\n"
    "  B[i][j] = f(A[i-1][j], A[i+1][j], A[i][j-1], A[i][j+1]); }\n"
    "nest copy { for i = 1 .. N-2 par for j = 1 .. N-2 par A[i][j] = B[i][j]; }\n";

static void test_jacobi_bus(void **state)
{
    (void)state;
    psk_machine m;
    bus(&m);
    psk_adv_program *p;
    psk_advice *a = advise(jacobi, &m, 864, &p);
    const adv_eval *e = best(a);
    grid_is(e, 1, 16, 0);
    int r = nest_of(p, "relax"), c = nest_of(p, "copy");
    assert_int_equal(e->nest[r].shadow_msgs, 30);
    assert_int_equal(e->nest[r].shadow_bytes, 30 * 864 * 8);
    assert_float_equal(e->nest[r].shadow_us, 210 + 0.24 * 864, 1e-6);
    assert_int_equal(e->nest[c].shadow_msgs + e->nest[c].remote_msgs, 0);
    assert_true(a->plan_static);
    psk_advice_free(a);
    psk_adv_program_free(p);

    a = advise(jacobi, &m, 880, &p);
    e = best(a);
    grid_is(e, 2, 4, 4);
    assert_int_equal(e->nest[r].shadow_msgs, 48);
    assert_int_equal(e->nest[r].shadow_bytes, 48 * 220 * 8);
    assert_float_equal(e->nest[r].shadow_us, 336 + 0.096 * 880, 1e-6);
    /* the 2 x 8 layout next (after 4 x 4 with the classes swapped, which
     * costs the same), then 16 */
    for (int i = 0; i < a->ncand; i++) {
        const adv_eval *x = &a->cand[i];
        if (x->layout.grid.naxes == 2 && x->layout.grid.extent[0] == 2)
            assert_float_equal(x->nest[r].shadow_us, 308 + 0.128 * 880, 1e-6);
        if (x->layout.grid.naxes == 1)
            assert_float_equal(x->nest[r].shadow_us, 210 + 0.24 * 880, 1e-6);
    }
    assert_true(a->cand[a->rank[1]].layout.grid.extent[0] == 4);
    assert_true(a->cand[a->rank[2]].layout.grid.extent[0] != 16);
    psk_advice_free(a);
    psk_adv_program_free(p);
}

/* On a 4 x 4 grid machine only the longest distance and the largest
 * message there count: the 4 x 4 layout's neighbours are one hop apart,
 * Ts + Tb L with L = N/4 x 8 bytes, so the square grid wins at any N,
 * here N = 64, where the bus prefers 16 x 1. */
static void test_jacobi_grid(void **state)
{
    (void)state;
    psk_machine m;
    bus(&m);
    m.type = PSK_NET_GRID;
    m.topo[0] = m.topo[1] = 4;
    m.ntopo = 2;
    psk_adv_program *p;
    psk_advice *a = advise(jacobi, &m, 64, &p);
    const adv_eval *e = best(a);
    grid_is(e, 2, 4, 4);
    int r = nest_of(p, "relax");
    assert_float_equal(e->nest[r].shadow_us, 7 + 0.001 * 16 * 8, 1e-6);
    psk_advice_free(a);
    psk_adv_program_free(p);

    bus(&m);
    a = advise(jacobi, &m, 64, &p);
    grid_is(best(a), 1, 16, 0);
    psk_advice_free(a);
    psk_adv_program_free(p);
}

/* B[i][j] = A[j][i]: the arcs cross, A is aligned transposed and nothing
 * moves; every layout is free, so the tie-break picks one axis. */
static void test_transpose(void **state)
{
    (void)state;
    static const char t[] = "param N = 100; procs 16;\n"
                            "array A[N][N] double; array B[N][N] double;\n"
                            "nest tr { for i = 0 .. N-1 par for j = 0 .. N-1 par B[i][j] = A[j][i]; }\n";
    psk_machine m;
    bus(&m);
    psk_adv_program *p;
    psk_advice *a = advise(t, &m, 0, &p);
    const adv_eval *e = best(a);
    assert_int_equal(e->msgs, 0);
    assert_int_equal(e->bytes, 0);
    grid_is(e, 1, 16, 0);
    /* A's dimension 1 shares B's dimension 0's class */
    assert_int_equal(a->align.cls[0 * ADV_MAXDIM + 1], a->align.cls[1 * ADV_MAXDIM + 0]);
    assert_int_equal(a->align.cls[0 * ADV_MAXDIM + 0], a->align.cls[1 * ADV_MAXDIM + 1]);
    assert_int_equal(a->align.nrejected, 0);
    psk_advice_free(a);
    psk_adv_program_free(p);
}

/* A[i] = f(B[i+3], v[i]): B aligned at offset -3 (the template grows by
 * 3 below), v with A: no traffic at all. */
static void test_offset(void **state)
{
    (void)state;
    static const char t[] = "param N = 1000; procs 16;\n"
                            "array A[N] double; array B[N] double; array v[N] double readonly;\n"
                            "nest o { for i = 0 .. N-4 par A[i] = f(B[i+3], v[i]); }\n";
    psk_machine m;
    bus(&m);
    psk_adv_program *p;
    psk_advice *a = advise(t, &m, 0, &p);
    const adv_eval *e = best(a);
    assert_int_equal(e->msgs, 0);
    assert_int_equal(a->align.off[1 * ADV_MAXDIM], -3);
    assert_int_equal(a->align.off[0 * ADV_MAXDIM], 0);
    assert_int_equal(a->align.off[2 * ADV_MAXDIM], 0);
    assert_int_equal(a->align.clo[a->align.cls[0]], -3);
    assert_int_equal(a->align.chi[a->align.cls[0]], 999);
    assert_int_equal(e->layout.shadow_lo[1 * ADV_MAXDIM], 0);
    assert_int_equal(e->layout.shadow_hi[1 * ADV_MAXDIM], 0);
    psk_advice_free(a);
    psk_adv_program_free(p);
}

/* C[i][j] += A[i][k] * B[k][j], k sequential, A and B read-only: A rows
 * with C's, B columns with C's; on one axis B has no distributed
 * dimension and is replicated, on two A and B are replicated along
 * opposite axes: both communicate nothing, and one axis wins the tie. */
static void test_matmul(void **state)
{
    (void)state;
    static const char t[] = "param N = 256; procs 16;\n"
                            "array A[N][N] double readonly; array B[N][N] double readonly;\n"
                            "array C[N][N] double;\n"
                            "nest mm work 0.001 { for i = 0 .. N-1 par for j = 0 .. N-1 par\n"
                            "  for k = 0 .. N-1 seq C[i][j] += A[i][k] * B[k][j]; }\n";
    psk_machine m;
    bus(&m);
    psk_adv_program *p;
    psk_advice *a = advise(t, &m, 0, &p);
    const adv_eval *e = best(a);
    assert_int_equal(e->msgs, 0);
    grid_is(e, 1, 16, 0);
    /* the 4 x 4 layout holds less: A and B a quarter each, C a sixteenth */
    int sq = -1;
    for (int r = 0; r < a->ncand; r++)
        if (a->cand[r].layout.grid.naxes == 2 && a->cand[r].layout.grid.extent[0] == 4)
            sq = r;
    assert_true(sq >= 0);
    assert_int_equal(a->cand[sq].msgs, 0);
    assert_int_equal(a->cand[sq].mem_bytes, (256 * 64 * 2 + 64 * 64) * 8);
    assert_true(a->cand[sq].mem_bytes < e->mem_bytes);
    psk_advice_free(a);
    psk_adv_program_free(p);
}

/* s += x[i] * y[i] on P = 4, one axis (R = 4): the bus formula's R + P - 2
 * = 6 messages of 8 bytes, 6 (Ts + 8 Tb) = 42.048 us. */
static void test_dot(void **state)
{
    (void)state;
    static const char t[] = "param N = 1000; procs 4;\n"
                            "array x[N] double; array y[N] double; scalar s double;\n"
                            "nest dot { for i = 0 .. N-1 par s += x[i] * y[i]; }\n";
    psk_machine m;
    bus(&m);
    psk_adv_program *p;
    psk_advice *a = advise(t, &m, 0, &p);
    const adv_eval *e = best(a);
    grid_is(e, 1, 4, 0);
    assert_int_equal(e->nest[0].reduce_msgs, 6);
    assert_int_equal(e->nest[0].reduce_bytes, 48);
    assert_float_equal(e->nest[0].reduce_us, 6 * (7 + 0.008), 1e-9);
    psk_advice_free(a);
    psk_adv_program_free(p);
}

/* LU without pivoting, BLOCK only: for k, rows and columns k+1..N-1 of A
 * updated from column k and row k. N = 8, P = 4, work 1 us an
 * iteration. On rows (2 each: p0 0-1, p1 2-3, p2 4-5, p3 6-7) row k is
 * a remote read for every processor with rows after k that does not own
 * it: k = 0..6 give 3, 3, 2, 2, 1, 1, 0 messages of 7 - k elements, 12
 * messages and 62 elements (496 B) in all, 12 Ts + 496 Tb = 84.496 us;
 * column k is local. Compute: the slowest processor per k, 2 rows x (7 -
 * k) columns but at k = 6 (one row): 14+12+10+8+6+4+1 = 55 us, against a
 * mean of 140 / 4 = 35 (imbalance 1.57). On columns the same by symmetry.
 * On 2 x 2 the slowest block is 4 x 4 for k = 0..3: 78 us of compute
 * alone, so one axis wins. */
static void test_lu(void **state)
{
    (void)state;
    static const char t[] = "param N = 8; procs 4;\n"
                            "array A[N][N] double;\n"
                            "nest lu work 1 { for k = 0 .. N-2 seq for i = k+1 .. N-1 par\n"
                            "  for j = k+1 .. N-1 par A[i][j] -= A[i][k] * A[k][j]; }\n";
    psk_machine m;
    bus(&m);
    psk_adv_program *p;
    psk_advice *a = advise(t, &m, 0, &p);
    for (int r = 0; r < 2; r++) {
        const adv_eval *e = &a->cand[a->rank[r]];
        grid_is(e, 1, 4, 0);
        assert_int_equal(e->nest[0].remote_msgs, 12);
        assert_int_equal(e->nest[0].remote_bytes, 496);
        assert_float_equal(e->nest[0].remote_us, 84.496, 1e-9);
        assert_float_equal(e->nest[0].compute_us, 55, 1e-9);
        assert_float_equal(e->nest[0].compute_avg_us, 35, 1e-9);
        assert_int_equal(e->nest[0].shadow_msgs, 0);
    }
    /* the one-axis layouts are rows and columns */
    assert_int_not_equal(a->cand[a->rank[0]].cls[0], a->cand[a->rank[1]].cls[0]);
    const adv_eval *sq = &a->cand[a->rank[2]];
    grid_is(sq, 2, 2, 2);
    assert_float_equal(sq->nest[0].compute_us, 78, 1e-9);
    /* the report says the imbalance and what would cure it */
    char *txt = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&txt, &len);
    psk_adv_write_text(a, f);
    fclose(f);
    assert_non_null(strstr(txt, "note: lu: the slowest processor computes 1.57 times the mean"));
    assert_non_null(strstr(txt, "cyclic"));
    free(txt);
    psk_advice_free(a);
    psk_adv_program_free(p);
}

/* ADI without pipelining: a sweep along i (i seq, j par) and one along j
 * (j seq, i par), N = 4, P = 2, repeat 10, work W. A static layout (rows,
 * or columns: the same by symmetry) runs one sweep in parallel, 3 x 2W,
 * and serialises the other, 3 x 4W, with a shadow of one 4-element
 * column (32 B) from p0 to p1 before each of its 3 outer iterations:
 * 10 (18 W + 3 x 7.032) = 180 W + 210.96 us. Transposing between the
 * sweeps runs both in parallel, 12 W a repetition, and moves 2 x 4
 * elements each way each time: 2 x (7 + 0.032) = 14.064 us before the
 * second sweep every repetition, and before the first on the 9 that
 * follow another: 120 W + 10 x 14.064 + 9 x 14.064 = 120 W + 267.216. It
 * pays from W = 56.256 / 60 = 0.9376 us an iteration. */
static const char adi[] = "param N = 4; procs 2; repeat 10;\n"
                          "array X[N][N] double;\n"
                          "nest sweep_i work %s { for i = 1 .. N-1 seq for j = 0 .. N-1 par\n"
                          "  X[i][j] = f(X[i-1][j]); }\n"
                          "nest sweep_j work %s { for j = 1 .. N-1 seq for i = 0 .. N-1 par\n"
                          "  X[i][j] = f(X[i][j-1]); }\n";

static void test_adi(void **state)
{
    (void)state;
    char t[1024];
    psk_machine m;
    bus(&m);
    psk_adv_program *p;
    snprintf(t, sizeof t, adi, "0.9", "0.9");
    psk_advice *a = advise(t, &m, 0, &p);
    assert_true(a->plan_static);
    assert_float_equal(best(a)->total_us, 180 * 0.9 + 210.96, 1e-6);
    assert_float_equal(a->plan_us, 180 * 0.9 + 210.96, 1e-6);
    psk_advice_free(a);
    psk_adv_program_free(p);

    snprintf(t, sizeof t, adi, "1", "1");
    a = advise(t, &m, 0, &p);
    assert_false(a->plan_static);
    assert_float_equal(best(a)->total_us, 180 + 210.96, 1e-6);
    assert_float_equal(a->plan_us, 120 + 267.216, 1e-6);
    /* the two sweeps on different layouts, each moved into: 2 messages
     * of 32 B */
    assert_int_not_equal(a->plan[0], a->plan[1]);
    for (int n = 0; n < 2; n++) {
        assert_int_equal(a->redist_msgs[n], 2);
        assert_int_equal(a->redist_bytes[n], 64);
        assert_float_equal(a->redist_us[n], 14.064, 1e-9);
    }
    psk_advice_free(a);
    psk_adv_program_free(p);
}

/* An outer seq loop whose value changes nothing (a time loop) is costed
 * once and multiplied: 10^8 iterations cost 10^8 times one, at once; a
 * self-referring stencil (A[i] from A[i-1]) keeps A at offset 0. One whose
 * value matters is costed an iteration at a time, so past a million of
 * them the advisor refuses, naming the nest. */
static void test_outer_seq(void **state)
{
    (void)state;
    static const char once[] = "param N = 100; procs 4;\narray A[N] double;\n"
                               "nest n work 0.5 { for i = 1 .. N-2 par A[i] = f(A[i-1]); }\n";
    static const char many[] = "param N = 100; procs 4;\narray A[N] double;\n"
                               "nest n work 0.5 { for t = 0 .. 99999999 seq for i = 1 .. N-2 par A[i] = f(A[i-1]); }\n";
    psk_machine m;
    bus(&m);
    psk_adv_program *p1, *p2;
    psk_advice *a1 = advise(once, &m, 0, &p1), *a2 = advise(many, &m, 0, &p2);
    const adv_eval *e1 = best(a1), *e2 = best(a2);
    assert_int_equal(a1->align.off[0], 0);
    assert_int_equal(e2->nest[0].shadow_msgs, 100000000LL * e1->nest[0].shadow_msgs);
    assert_int_equal(e2->nest[0].shadow_bytes, 100000000LL * e1->nest[0].shadow_bytes);
    assert_float_equal(e2->nest[0].total_us, 1e8 * e1->nest[0].total_us, 1e-6 * e2->nest[0].total_us);
    assert_float_equal(e2->nest[0].compute_avg_us, 1e8 * e1->nest[0].compute_avg_us,
                       1e-6 * e2->nest[0].compute_avg_us);
    psk_advice_free(a1);
    psk_advice_free(a2);
    psk_adv_program_free(p1);
    psk_adv_program_free(p2);

    static const char used[] = "param N = 100; procs 4;\narray A[N] double;\n"
                               "nest n { for t = 0 .. 1000000 seq for i = 1 .. N-2 par A[i] = f(A[t]); }\n";
    psk_adv_program *p = NULL;
    assert_int_equal(psk_adv_parse(used, strlen(used), "k.adv", NULL, 0, &p), PSK_OK);
    psk_advice *a = NULL;
    psk_adv_options o = {0, 0, 0, 0, 0, 0};
    assert_int_equal(psk_adv_run(p, &m, &o, &a), PSK_EINVAL);
    assert_string_equal(psk_advice_errmsg(a), "k.adv:3:1: nest n: its outer seq loops run 1000001 times"
                                              " with a different cost each; the advisor costs at most 1000000");
    psk_advice_free(a);
    psk_adv_program_free(p);

    /* the whole search's processor-iterations: 1 layout x 4 processors x
     * 1001 outer iterations, refused under 4004 and costed at 4004 */
    static const char some[] = "param N = 100; procs 4;\narray A[N] double;\n"
                               "nest n { for t = 0 .. 1000 seq for i = 1 .. N-2 par A[i] = f(A[t]); }\n";
    assert_int_equal(psk_adv_parse(some, strlen(some), "k.adv", NULL, 0, &p), PSK_OK);
    o.max_steps = 4003;
    assert_int_equal(psk_adv_run(p, &m, &o, &a), PSK_EINVAL);
    assert_string_equal(psk_advice_errmsg(a), "k.adv: 1 layout x 4 processors x 1001 outer seq iterations whose"
                                              " cost differs: 4004 steps to cost, over the 4003 the advisor"
                                              " takes (fewer processors, --maxdims, or smaller params)");
    psk_advice_free(a);
    o.max_steps = 4004;
    assert_int_equal(psk_adv_run(p, &m, &o, &a), PSK_OK);
    psk_advice_free(a);
    psk_adv_program_free(p);
}

/* A small table c that no parallel loop computes (it is read alongside
 * B, and summed whole into every A[i]) may be replicated: where a layout
 * distributes B's class, c goes with it unless replicated, and the sum
 * over k then fetches all of c every execution; replicated, nothing moves.
 * A written array that is the home of a parallel loop (A, B) never is. */
static void test_small_table(void **state)
{
    (void)state;
    static const char t[] = "param N = 4096; procs 4;\n"
                            "array c[64] double; array A[N] double; array B[64] double;\n"
                            "nest mk work 0.01 { for i = 0 .. 63 par B[i] = f(c[i]); }\n"
                            "nest use work 0.01 { for i = 0 .. N-1 par for k = 0 .. 63 seq A[i] += c[k]; }\n";
    psk_machine m;
    bus(&m);
    psk_adv_program *p;
    psk_advice *a = advise(t, &m, 0, &p);
    int cb = a->align.cls[0 * ADV_MAXDIM], found = 0;
    assert_int_equal(cb, a->align.cls[2 * ADV_MAXDIM]);
    for (int i = 0; i < a->ncand; i++) {
        const adv_eval *e = &a->cand[i];
        assert_int_equal(e->layout.replicated[1], 0);
        assert_int_equal(e->layout.replicated[2], 0);
        if (e->cls[0] == cb) {
            found = 1;
            assert_int_equal(e->layout.replicated[0], 1);
            assert_int_equal(e->msgs, 0);
        }
    }
    assert_true(found);
    /* the best distributes A, and c and B are whole everywhere */
    const adv_eval *e = best(a);
    assert_int_equal(e->cls[0], a->align.cls[1 * ADV_MAXDIM]);
    assert_int_equal(e->msgs, 0);
    psk_advice_free(a);
    psk_adv_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jacobi_bus), cmocka_unit_test(test_jacobi_grid),
        cmocka_unit_test(test_transpose),  cmocka_unit_test(test_offset),
        cmocka_unit_test(test_matmul),     cmocka_unit_test(test_dot),
        cmocka_unit_test(test_lu),         cmocka_unit_test(test_adi),
        cmocka_unit_test(test_outer_seq),  cmocka_unit_test(test_small_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
