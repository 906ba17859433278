/* Unit tests of the fold stage against naive oracles, on thousands of
 * random inputs: every run finder returns exactly the runs the quadratic
 * enumeration finds; every algorithm's loop tree expands back to its input
 * and leaves no repeat unfolded; no folding beats the exact interval DP,
 * and the default one reaches it on at least 95 % of random nested-loop
 * programs (the `paper` method, the probing of Zhang et al., Journal of
 * Software 2010: about 88 %). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fold_internal.h"
#include "fold_suffix.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int cmp_run(const void *a, const void *b)
{
    const frun *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->period > y->period) - (x->period < y->period);
}

/* random strings of every alphabet size, and structured ones */
static int32_t make_input(int32_t *s, int32_t cap, int kind)
{
    int32_t n = (int32_t)(next() % (uint64_t)cap);
    static const int alpha[] = {1, 2, 3, 4, 8, 26, 1000};
    int k = alpha[kind % 7];
    if (kind % 9 == 8) { /* a prefix of the Fibonacci word: 0 -> 01, 1 -> 0 */
        int32_t t[600], m = 1;
        t[0] = 0;
        while (m < n) {
            int32_t u[1200], q = 0;
            for (int32_t i = 0; i < m; i++) {
                u[q++] = 0;
                if (t[i] == 0)
                    u[q++] = 1;
            }
            m = q < 600 ? q : 600;
            memcpy(t, u, (size_t)m * sizeof *t);
        }
        memcpy(s, t, (size_t)n * sizeof *s);
        return n;
    }
    for (int32_t i = 0; i < n; i++)
        s[i] = (int32_t)(next() % (uint64_t)k);
    return n;
}

static void check_runs(const int32_t *s, int32_t n, int which)
{
    frun *want, *got;
    int64_t nw, ng;
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++)
        if (s[i] + 1 > k)
            k = s[i] + 1;
    assert_int_equal(fold_runs_naive(s, n, &want, &nw), 0);
    int rc = which ? fold_runs_probe(s, n, k, &got, &ng) : fold_runs_linear(s, n, k, &got, &ng);
    assert_int_equal(rc, 0);
    if (ng != nw)
        fail_msg("%s finder: %lld runs, the naive enumeration %lld (n = %d)", which ? "probe" : "linear",
                 (long long)ng, (long long)nw, n);
    if (nw) {
        qsort(want, (size_t)nw, sizeof *want, cmp_run);
        qsort(got, (size_t)ng, sizeof *got, cmp_run);
    }
    for (int64_t i = 0; i < nw; i++)
        if (cmp_run(&want[i], &got[i]) || want[i].length != got[i].length)
            fail_msg("run %lld differs: (%d, p%d, %d) vs (%d, p%d, %d)", (long long)i, want[i].start,
                     want[i].period, want[i].length, got[i].start, got[i].period, got[i].length);
    /* the Runs Theorem: fewer runs than symbols */
    assert_true(nw < (n > 0 ? n : 1));
    free(want);
    free(got);
}

static const int32_t *cmp_text;
/* PSK_TEST_QUICK=N (the sanitizer pass): the first 1/N of the random
 * cases of the long tests, and their floors on what the cases exercise
 * scaled alike */
static int quick = 1;

static int32_t cmp_n;
static int cmp_suffix(const void *a, const void *b)
{
    int32_t i = *(const int32_t *)a, j = *(const int32_t *)b;
    while (i < cmp_n && j < cmp_n && cmp_text[i] == cmp_text[j])
        i++, j++;
    if (i == cmp_n || j == cmp_n)
        return i == cmp_n ? -1 : 1; /* the end is smallest */
    return cmp_text[i] < cmp_text[j] ? -1 : 1;
}

/* suffix array, LCP and LCE against sorting and direct comparison */
static void test_suffix_array(void **state)
{
    (void)state;
    int32_t s[300], sa[300], want[300], lcp[300];
    for (int t = 0; t < 3000 / quick; t++) {
        int32_t n = make_input(s, 300, t), k = 0;
        for (int32_t i = 0; i < n; i++)
            k = s[i] + 1 > k ? s[i] + 1 : k;
        assert_int_equal(sfx_sais(s, sa, n, k), 0);
        for (int32_t i = 0; i < n; i++)
            want[i] = i;
        cmp_text = s;
        cmp_n = n;
        qsort(want, (size_t)n, sizeof *want, cmp_suffix);
        for (int32_t i = 0; i < n; i++)
            if (sa[i] != want[i])
                fail_msg("SA-IS differs at %d (n = %d, k = %d)", i, n, k);
        assert_int_equal(sfx_lcp(s, sa, n, lcp), 0);
        for (int32_t i = 1; i < n; i++) {
            int32_t h = 0;
            while (sa[i] + h < n && sa[i - 1] + h < n && s[sa[i] + h] == s[sa[i - 1] + h])
                h++;
            if (lcp[i] != h)
                fail_msg("LCP[%d] = %d, not %d", i, lcp[i], h);
        }
        sfx_lce *L;
        assert_int_equal(sfx_lce_build(s, n, k, &L), 0);
        for (int q = 0; q < 50 && n > 0; q++) {
            int32_t i = (int32_t)(next() % (uint64_t)n), j = (int32_t)(next() % (uint64_t)n), h = 0;
            while (i + h < n && j + h < n && s[i + h] == s[j + h])
                h++;
            if (sfx_lce_query(L, i, j) != h)
                fail_msg("LCE(%d, %d) = %d, not %d", i, j, sfx_lce_query(L, i, j), h);
        }
        sfx_lce_free(L);
    }
}

/* sfx_sais on s[0..n) checked in linear time: a permutation, each suffix
 * before the next by its first symbol, then by the ranks of the suffixes
 * one symbol on (the end smallest) */
static void check_sa_linear(const int32_t *s, int32_t n, int32_t k)
{
    int32_t *sa = malloc((size_t)n * sizeof *sa), *rank = malloc((size_t)n * sizeof *rank);
    assert_non_null(sa);
    assert_non_null(rank);
    assert_int_equal(sfx_sais(s, sa, n, k), 0);
    for (int32_t i = 0; i < n; i++)
        rank[i] = -1;
    for (int32_t i = 0; i < n; i++) {
        if (sa[i] < 0 || sa[i] >= n || rank[sa[i]] >= 0)
            fail_msg("SA[%d] = %d: not a permutation (n = %d, k = %d)", i, sa[i], n, k);
        rank[sa[i]] = i;
    }
    for (int32_t i = 1; i < n; i++) {
        int32_t a = sa[i - 1], b = sa[i];
        int ok = s[a] < s[b] || (s[a] == s[b] && (a + 1 == n || (b + 1 < n && rank[a + 1] < rank[b + 1])));
        if (!ok)
            fail_msg("suffix %d before %d (SA[%d], n = %d, k = %d)", a, b, i, n, k);
    }
    free(sa);
    free(rank);
}

/* texts long enough for SA-IS's copies of one and two bytes a symbol, and
 * past them: random ones, and nested repeats of random words (long common
 * prefixes) */
static void test_suffix_array_long(void **state)
{
    (void)state;
    const int32_t n = 300000;
    int32_t *s = malloc((size_t)n * sizeof *s);
    assert_non_null(s);
    static const int32_t alpha[] = {3, 200, 5000, 70000};
    for (int a = 0; a < 4; a++) {
        for (int32_t i = 0; i < n; i++)
            s[i] = (int32_t)(next() % (uint64_t)alpha[a]);
        check_sa_linear(s, n, alpha[a]);
        int32_t m = 0;
        while (m < n) { /* a word repeated, sometimes twice nested */
            int32_t w[40], len = 1 + (int32_t)(next() % 40), reps = 2 + (int32_t)(next() % 50);
            for (int32_t i = 0; i < len; i++)
                w[i] = (int32_t)(next() % (uint64_t)alpha[a]);
            for (int32_t r = 0; r < reps && m < n; r++)
                for (int32_t i = 0; i < len && m < n; i++)
                    s[m++] = w[i];
            if (next() % 3 == 0 && m > 2000) {
                int32_t from = m - 1000 - (int32_t)(next() % 1000);
                for (int32_t r = 0, l = m - from; r < 3; r++)
                    for (int32_t i = 0; i < l && m < n; i++, m++)
                        s[m] = s[from + i];
            }
        }
        check_sa_linear(s, n, alpha[a]);
    }
    free(s);
}

static void test_run_finders(void **state)
{
    (void)state;
    int32_t s[300];
    for (int t = 0; t < 3000 / quick; t++) {
        int32_t n = make_input(s, 300, t);
        check_runs(s, n, 0);
        check_runs(s, n, 1);
    }
    /* all equal */
    for (int32_t i = 0; i < 300; i++)
        s[i] = 7;
    check_runs(s, 300, 0);
    check_runs(s, 300, 1);
}

/* got[0..ng) from the finder called `who` against fold_runs_linear's
 * want[0..nw) for s[0..n): the same runs in the same order; frees both */
static void same_run_list(frun *want, int64_t nw, frun *got, int64_t ng, const char *who, int t, int32_t n)
{
    if (ng != nw)
        fail_msg("case %d: %lld runs from the %s finder, %lld from the linear one (n = %d)", t, (long long)ng, who,
                 (long long)nw, n);
    for (int64_t i = 0; i < nw; i++)
        if (want[i].start != got[i].start || want[i].period != got[i].period || want[i].length != got[i].length)
            fail_msg("case %d, run %lld: (%d, p%d, %d) from the %s finder, (%d, p%d, %d) from the linear one", t,
                     (long long)i, got[i].start, got[i].period, got[i].length, who, want[i].start, want[i].period,
                     want[i].length);
    free(want);
    free(got);
}

/* runs of s[0..n) from fold_runs_split and fold_runs_linear: the same
 * runs in the same order */
static void same_runs(const int32_t *s, int32_t n, int32_t k, int t)
{
    frun *want, *got;
    int64_t nw, ng;
    assert_int_equal(fold_runs_linear(s, n, k, &want, &nw), 0);
    assert_int_equal(fold_runs_split(s, n, k, NULL, &got, &ng), 0);
    same_run_list(want, nw, got, ng, "split", t, n);
}

/* fold_runs_split gives fold_runs_linear's runs in fold_runs_linear's
 * order (the choice of folds breaks ties by it), on long sequences cut by
 * symbols seen once: random text or repeated patterns over small
 * alphabets, with such symbols at various rates, at the ends too */
static void test_split_runs(void **state)
{
    (void)state;
    enum { MAXN = 20000 };
    int32_t *s = malloc(MAXN * sizeof *s);
    assert_non_null(s);
    static const int alpha[] = {1, 2, 3, 5, 26};
    static const int per_mille[] = {0, 1, 20, 200, 600};
    for (int t = 0; t < 60 / quick; t++) {
        int32_t n = 4096 + (int32_t)(next() % (MAXN - 4096));
        int32_t k = alpha[t % 5], u = k;
        int32_t pat[40], plen = 1 + (int32_t)(next() % 40);
        for (int32_t i = 0; i < plen; i++)
            pat[i] = (int32_t)(next() % (uint64_t)k);
        for (int32_t i = 0; i < n; i++) {
            s[i] = t % 2 ? pat[i % plen] : (int32_t)(next() % (uint64_t)k);
            if (t % 2 && next() % 50 == 0) /* perturbed copies */
                s[i] = (int32_t)(next() % (uint64_t)k);
            if ((int)(next() % 1000) < per_mille[(t / 5) % 5])
                s[i] = u++;
        }
        if (t % 3 == 0)
            s[0] = u++, s[n - 1] = u++;
        same_runs(s, n, u, t);
    }
    /* short sequences over a large alphabet (renamed in order) */
    for (int t = 0; t < 300; t++) {
        int32_t n = (int32_t)(next() % 300), k = 100000, base = (int32_t)(next() % 90000);
        int32_t spread = 1 + (int32_t)(next() % 8);
        for (int32_t i = 0; i < n; i++)
            s[i] = base + (int32_t)(next() % (uint64_t)spread) * 1000;
        frun *want, *got;
        int64_t nw, ng;
        assert_int_equal(fold_runs_linear(s, n, k, &want, &nw), 0);
        assert_int_equal(fold_runs_split(s, n, k, NULL, &got, &ng), 0);
        assert_int_equal(ng, nw);
        for (int64_t i = 0; i < nw; i++)
            if (want[i].start != got[i].start || want[i].period != got[i].period || want[i].length != got[i].length)
                fail_msg("short case %d, run %lld differs", t, (long long)i);
        free(want);
        free(got);
    }
    free(s);
}


/* fold_runs_periodic on s[0..n): declines (1), or gives fold_runs_linear's
 * runs in its order (0) */
static int periodic_or_not(const int32_t *s, int32_t n, int32_t k, int t)
{
    frun *want, *got;
    int64_t nw, ng;
    int rc = fold_runs_periodic(s, n, k, &got, &ng);
    assert_true(rc == 0 || rc == 1);
    if (rc)
        return rc;
    assert_int_equal(fold_runs_linear(s, n, k, &want, &nw), 0);
    same_run_list(want, nw, got, ng, "periodic", t, n);
    return 0;
}

/* a main loop (a word repeated) is searched in a few periods by
 * fold_runs_periodic: the same runs in the same order as the linear
 * finder over the whole, for random nested-loop words of every length,
 * repeated from end to end, cut anywhere, not primitive, rotated; with a
 * random head and tail over the same symbols (up to a fifth of the loop's
 * length each, or half), or squares reaching into the loop from both sides; with one symbol changed anywhere (it declines unless the
 * loop left is long enough); and inside pieces between symbols seen once */
static void test_periodic_runs(void **state)
{
    (void)state;
    enum { MAXN = 160000, MAXP = 3000 };
    int32_t *s = malloc(MAXN * sizeof *s), *u = malloc(2 * MAXP * sizeof *u);
    assert_non_null(s);
    assert_non_null(u);
    uint64_t g = 0x9E3779B97F4A7C15ull;
    int whole = 0, ends = 0, changed = 0;
    for (int t = 0; t < 150 / quick; t++) {
        psk_fold_gen gp = {.alphabet = 2 + t % 7, .max_items = 2 + t % 5, .min_iter = 2, .max_iter = 2 + t % 6,
                           .max_depth = 1 + t % 4, .loop_pct = 30 + t % 40};
        int64_t p = psk_fold_generate(&gp, &g, u, MAXP);
        if (p < 1 || p > MAXP)
            continue;
        if (t % 5 == 1 && 2 * p <= MAXP) { /* not primitive: u u */
            memcpy(u + p, u, (size_t)p * sizeof *u);
            p *= 2;
        }
        int64_t lo = 16 * p > 16384 ? 16 * p : 16384, hi = 40 * p > lo + 5000 ? 40 * p : lo + 5000;
        if (lo >= MAXN / 2)
            continue;
        hi = hi < MAXN / 2 ? hi : MAXN / 2;
        int32_t n = (int32_t)(lo + (int64_t)(next() % (uint64_t)(hi - lo)));
        int64_t rot = (int64_t)(next() % (uint64_t)p);
        for (int32_t i = 0; i < n; i++)
            s[i] = u[(i + rot) % p];
        int32_t k = gp.alphabet + 3;
        whole += periodic_or_not(s, n, k, t) == 0;
        same_runs(s, n, k, t);
        /* a head and a tail of random symbols (the loop's own ones) */
        int32_t h = (int32_t)(next() % (uint64_t)(n / 5 + 1)), tl = (int32_t)(next() % (uint64_t)(n / 5 + 1));
        if (t % 3 == 0)
            h = (int32_t)(next() % 8), tl = (int32_t)(next() % 8);
        if (t % 6 == 2) /* too long for the finder, which must decline or be right */
            h = (int32_t)(next() % (uint64_t)(n / 2 + 1)), tl = (int32_t)(next() % (uint64_t)(n / 2 + 1));
        /* or W u^m W before and W' u^m' W' after: squares of a period
         * longer than the loop's that reach m periods into it */
        int32_t w = 1 + (int32_t)(next() % 40), mh = 1 + (int32_t)(next() % 8), mt = 1 + (int32_t)(next() % 8);
        int squares = t % 3 == 1 && 2 * w + mh * p <= n / 5 && 2 * w + mt * p <= n / 5;
        if (squares)
            h = 2 * w + mh * (int32_t)p, tl = 2 * w + mt * (int32_t)p;
        memmove(s + h, s, (size_t)n * sizeof *s);
        for (int32_t i = 0; i < h; i++)
            s[i] = (int32_t)(next() % (uint64_t)gp.alphabet);
        for (int32_t i = 0; i < tl; i++)
            s[h + n + i] = (int32_t)(next() % (uint64_t)gp.alphabet);
        if (squares) {
            for (int32_t i = 0; i < mh * p; i++) /* the loop's phase at its start */
                s[w + i] = s[h + (i % p)];
            memcpy(s + w + mh * p, s, (size_t)w * sizeof *s);
            for (int32_t i = 0; i < mt * p; i++) /* the phase after its end */
                s[h + n + w + i] = s[h + n - p + (i % p)];
            memcpy(s + h + n + w + mt * p, s + h + n, (size_t)w * sizeof *s);
        }
        ends += periodic_or_not(s, h + n + tl, k, t) == 0;
        same_runs(s, h + n + tl, k, t);
        memmove(s, s + h, (size_t)n * sizeof *s);
        /* one symbol changed: the loop is what is left on one side */
        int32_t at = (int32_t)(next() % (uint64_t)n), was = s[at];
        s[at] = (s[at] + 1) % gp.alphabet;
        changed += periodic_or_not(s, n, k, t) == 0;
        s[at] = was;
        /* pieces: symbols seen once at the ends and inside */
        s[0] = k, s[n - 1] = k + 1;
        if (t % 2)
            s[n / 2] = k + 2;
        same_runs(s, n, k + 3, t);
    }
    /* the fast finder was used in most cases of each kind */
    print_message("periodic finder used in %d, %d and %d of %d cases\n", whole, ends, changed, 150 / quick);
    assert_true(whole >= 100 / quick && ends >= 80 / quick && changed >= 10 / quick);
    free(s);
    free(u);
}

/* s[0..n) folded by fold_sequence with the shortcuts (periodic runs,
 * cached bodies) and without (g.plain): the same top sequence and the same
 * loops, made in the same order */
static void fold_both_ways(const int32_t *s, int32_t n, int32_t k, int t)
{
    int32_t *a = malloc(((size_t)n + 1) * sizeof *a), *b = malloc(((size_t)n + 1) * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    memcpy(a, s, (size_t)n * sizeof *a);
    memcpy(b, s, (size_t)n * sizeof *b);
    fgrammar ga, gb;
    assert_int_equal(fgrammar_init(&ga, k, PSK_FOLD_RUNS), 0);
    assert_int_equal(fgrammar_init(&gb, k, PSK_FOLD_RUNS), 0);
    gb.plain = 1;
    int32_t na = n, nb = n;
    assert_int_equal(fold_sequence(&ga, a, &na), 0);
    assert_int_equal(fold_sequence(&gb, b, &nb), 0);
    if (na != nb || memcmp(a, b, (size_t)na * sizeof *a))
        fail_msg("case %d (n = %d): top sequences of %d and %d symbols differ", t, n, na, nb);
    if (ga.nloops != gb.nloops)
        fail_msg("case %d: %d loops with the shortcuts, %d without", t, ga.nloops, gb.nloops);
    for (int32_t i = 0; i < ga.nloops; i++) {
        const floop *x = &ga.loop[i], *y = &gb.loop[i];
        if (x->len != y->len || x->count != y->count ||
            memcmp(ga.pool.v + x->body, gb.pool.v + y->body, (size_t)x->len * sizeof *ga.pool.v))
            fail_msg("case %d: loop %d differs", t, i);
    }
    fgrammar_free(&ga);
    fgrammar_free(&gb);
    free(a);
    free(b);
}

/* random nested-loop programs as a trace's main loop: the program's word
 * repeated up to 170,000 symbols (or 2 to 20 times, sometimes too few for
 * the periodic finder), cut anywhere, with an init and a finalize part (symbols seen
 * once), and in some cases a few symbols changed (noise) */
static void test_fold_both_ways(void **state)
{
    (void)state;
    enum { MAXN = 200000, MAXP = 6000 };
    int32_t *s = malloc(MAXN * sizeof *s), *u = malloc(MAXP * sizeof *u);
    assert_non_null(s);
    assert_non_null(u);
    uint64_t g = 0x2545F4914F6CDD1Dull;
    int big = 0;
    for (int t = 0; t < 60 / quick; t++) {
        psk_fold_gen gp = {.alphabet = 3 + t % 9, .max_items = 3 + t % 4, .min_iter = 2, .max_iter = 3 + t % 5,
                           .max_depth = 2 + t % 3, .loop_pct = 35 + t % 30};
        int64_t p = psk_fold_generate(&gp, &g, u, MAXP);
        if (p < 1 || p > MAXP)
            continue;
        int64_t want = t % 5 ? 20000 + (int64_t)(next() % 150000) : 2 + (int64_t)(next() % 19) * p;
        int64_t reps = want / p > 2 ? want / p : 2;
        int32_t n = 0;
        int32_t k = gp.alphabet + 64;
        int32_t init = t % 3 ? (int32_t)(next() % 5) : 0;
        for (int32_t i = 0; i < init; i++)
            s[n++] = gp.alphabet + i;
        int64_t body = reps * p - (int64_t)(next() % (uint64_t)p);
        for (int64_t i = 0; i < body && n < MAXN - 8; i++)
            s[n++] = u[i % p];
        if (t % 3)
            s[n++] = gp.alphabet + 10, s[n++] = gp.alphabet + 11;
        for (int i = 0; t % 4 == 3 && i < 3; i++) /* noise */
            s[next() % (uint64_t)n] = gp.alphabet + 20 + i;
        fold_both_ways(s, n, k, t);
        big += n >= 16384;
    }
    /* enough of them long enough for the shortcuts */
    print_message("%d of %d programs of 16,384 symbols or more\n", big, 60 / quick);
    assert_true(big >= 20 / quick);
    free(s);
    free(u);
}

typedef struct expander {
    const psk_folded *f;
    const int32_t *s;
    int64_t n, bad;
} expander;

static int same(void *arg, int64_t pos, int32_t node, const int64_t *iter, int depth)
{
    (void)iter, (void)depth;
    expander *e = arg;
    if (pos >= e->n || psk_folded_node(e->f, node)->sym != e->s[pos]) {
        e->bad = pos;
        return 1;
    }
    return 0;
}

/* a child sequence of the tree with no two equal adjacent blocks: each
 * node gets a canonical id (symbol, or loop count + body ids) */
static int64_t canon(const psk_folded *f, int32_t id, psk_intern *ids)
{
    const psk_fnode *x = psk_folded_node(f, id);
    int64_t key[130];
    int nk = 0;
    if (x->kind == PSK_FNODE_SYM) {
        key[nk++] = -1;
        key[nk++] = x->sym;
    } else {
        key[nk++] = -2;
        key[nk++] = x->count;
        const int32_t *kid = psk_folded_children(f, id);
        for (int32_t c = 0; c < x->nchild && nk < 128; c++)
            key[nk++] = canon(f, kid[c], ids);
    }
    return psk_intern_id(ids, key, (size_t)nk * sizeof *key, NULL);
}

static void no_repeat_left(const psk_folded *f, int32_t id, psk_intern *ids)
{
    const psk_fnode *x = psk_folded_node(f, id);
    if (x->kind == PSK_FNODE_SYM)
        return;
    const int32_t *kid = psk_folded_children(f, id);
    int32_t seq[1024];
    int32_t m = x->nchild < 1024 ? x->nchild : 1024;
    for (int32_t c = 0; c < m; c++) {
        seq[c] = (int32_t)canon(f, kid[c], ids);
        no_repeat_left(f, kid[c], ids);
    }
    frun *r;
    int64_t nr;
    assert_int_equal(fold_runs_naive(seq, m, &r, &nr), 0);
    free(r);
    if (nr)
        fail_msg("a repeat is left unfolded in a sequence of %d items", m);
}

static void fold_and_check(const int32_t *s, int32_t n, int algo, int64_t *len)
{
    psk_folded *f;
    assert_int_equal(psk_fold(s, n, algo, &f), PSK_OK);
    expander e = {f, s, n, -1};
    if (psk_folded_walk(f, same, &e))
        fail_msg("%s: expansion differs at %lld (n = %d)", psk_fold_algo_name(algo), (long long)e.bad, n);
    assert_int_equal(psk_folded_node(f, 0)->span, n);
    psk_intern *ids = psk_intern_new();
    no_repeat_left(f, 0, ids);
    psk_intern_free(ids);
    *len = psk_folded_length(f);
    psk_folded_free(f);
}

static void test_expand_and_minimal(void **state)
{
    (void)state;
    int32_t s[200];
    for (int t = 0; t < 2000 / quick; t++) {
        int32_t n = make_input(s, 120, t);
        int64_t opt = psk_fold_optimal_length(s, n);
        for (int a = 0; a < PSK_FOLD_NALGOS; a++) {
            int64_t len;
            fold_and_check(s, n, a, &len);
            if (len < opt)
                fail_msg("%s folded to %lld, below the optimum %lld", psk_fold_algo_name(a), (long long)len,
                         (long long)opt);
        }
    }
}

static void test_quality_nested(void **state)
{
    (void)state;
    psk_fold_gen p = {.alphabet = 4, .max_items = 4, .min_iter = 2, .max_iter = 6, .max_depth = 3, .loop_pct = 40};
    uint64_t g = 88172645463325252ull;
    int32_t s[160];
    int done = 0, optimal[PSK_FOLD_NALGOS] = {0};
    while (done < 1500) {
        int64_t n = psk_fold_generate(&p, &g, s, 160);
        if (n < 8 || n > 160)
            continue;
        int64_t opt = psk_fold_optimal_length(s, (int32_t)n);
        for (int a = 0; a < PSK_FOLD_NALGOS; a++) {
            int64_t len;
            fold_and_check(s, (int32_t)n, a, &len);
            optimal[a] += len == opt;
        }
        done++;
    }
    double runs = 100.0 * optimal[PSK_FOLD_RUNS] / done, paper = 100.0 * optimal[PSK_FOLD_PAPER] / done;
    print_message("optimal: runs %.1f %%, paper %.1f %%\n", runs, paper);
    assert_true(runs >= 95.0);
    assert_true(runs > paper);
}

static void test_examples(void **state)
{
    (void)state;
    /* ABCABCABCA folds to length 4 */
    int32_t s1[] = {0, 1, 2, 0, 1, 2, 0, 1, 2, 0};
    int64_t len;
    for (int a = 0; a < PSK_FOLD_NALGOS; a++) {
        fold_and_check(s1, 10, a, &len);
        assert_int_equal(len, 4);
    }
    /* (A B (C D)x4 E)x200 */
    int32_t *s2 = malloc(2200 * sizeof *s2);
    int32_t n = 0;
    for (int i = 0; i < 200; i++) {
        s2[n++] = 0, s2[n++] = 1;
        for (int j = 0; j < 4; j++)
            s2[n++] = 2, s2[n++] = 3;
        s2[n++] = 4;
    }
    psk_folded *f;
    assert_int_equal(psk_fold(s2, n, PSK_FOLD_RUNS, &f), PSK_OK);
    assert_int_equal(psk_folded_length(f), 5);
    char *buf = NULL;
    size_t blen = 0;
    FILE *o = open_memstream(&buf, &blen);
    psk_folded_print(f, o, NULL, NULL);
    fclose(o);
    assert_string_equal(buf, "(0 1 (2 3)x4 4)x200");
    free(buf);
    psk_folded_free(f);
    free(s2);
    /* the empty sequence */
    assert_int_equal(psk_fold(s1, 0, PSK_FOLD_RUNS, &f), PSK_OK);
    assert_int_equal(psk_folded_length(f), 0);
    psk_folded_free(f);
    /* negative symbols are refused */
    int32_t bad[] = {1, -2};
    assert_int_equal(psk_fold(bad, 2, PSK_FOLD_RUNS, &f), PSK_EINVAL);
    psk_folded_free(f);
}

int main(void)
{
    if (getenv("PSK_TEST_QUICK") && atoi(getenv("PSK_TEST_QUICK")) > 1)
        quick = atoi(getenv("PSK_TEST_QUICK"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_suffix_array),
        cmocka_unit_test(test_suffix_array_long),
        cmocka_unit_test(test_run_finders),
        cmocka_unit_test(test_split_runs),
        cmocka_unit_test(test_periodic_runs),
        cmocka_unit_test(test_fold_both_ways),
        cmocka_unit_test(test_expand_and_minimal),
        cmocka_unit_test(test_quality_nested),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
