/* When perfskel sim --folded may skip iterations of a candidate loop, and
 * by how much every time moves: (1) the replay repeats exactly, and the
 * skip gives what replaying gives; (2) otherwise statistically, from a
 * window of replayed iterations measured until the advance's standard
 * error is small enough. Either needs every rank in the loop and no stray
 * message or receive whose tag the loop's following tags take. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psk_mem.h"
#include "sim_skip.h"

/* D is known (1) when the replay repeats exactly: for a period of p
 * iterations (a multiple of L, up to 8 or 2L), every rank's clock moved by
 * the same delta over each of the last p + 2 spans of p iterations and
 * everything else by the same amounts (gaps the same every iteration):
 * D = K x delta for S = K x p, as replaying them gives; (2) otherwise
 * statistically, from a window of replayed iterations. A surrogate g is
 * the advance if each iteration, or each segment, ended in a barrier: the
 * sum of the slowest rank's compute and MPI time not spent waiting. The
 * skipped iterations' g comes from their recorded gaps; what the replay
 * adds to g, or takes off, is the window's: D = their g + S / W x (the
 * window's advance - its g), with the surrogate whose residual is the
 * steadier. The window grows until D's standard error (from the spread of
 * the residual over batches of the window) is under PRECISION of the
 * predicted time. The waiting in D (D less compute and the MPI time not
 * spent waiting, as in the window) is shared between point to point,
 * collectives and waits where the segments' g puts it, calibrated on the
 * window; the rows of intervals inside the iterations grow as in the
 * window, scaled as their rank's totals. No window holds an iteration
 * where a message or receive from outside the loop waited with a tag that
 * one of the loop's tags that follow the index takes (it would match in
 * one iteration only), or one of the loop's own had waited long (left
 * over when another took its match: a tag S iterations on would be wrong
 * for it). docs/simulation.md, "How iterations are skipped". */

/* ---- (1) the replay repeats exactly ---- */

/* equal within what rounding leaves of sums of values of size mag (and
 * tiny, in their unit) */
static int same(double a, double b, double mag, double tiny)
{
    return fabs(a - b) <= 1e-12 * mag + 1e-9 * fabs(b) + tiny;
}

/* 1 if every rank's spans of p iterations from m - 2p - 1 .. m - p to
 * m - p - 1 .. m repeated the last one exactly; *delta: the clock's step
 * over p iterations (every rank's) */
static int periodic(psk_sim *s, int64_t m, int64_t p, double *delta)
{
    const snap *a0 = psk_simi_snap_find(s, &s->sk[0], m), *b0 = psk_simi_snap_find(s, &s->sk[0], m - p);
    if (!a0 || !b0)
        return 0;
    double d = a0->t - b0->t, mag = fabs(a0->t);
    if (!(d > 0))
        return 0;
    int w = PSK_M_N + 1;
    for (int q = 0; q < s->P; q++) {
        const skipr *k = &s->sk[q];
        const snap *a = psk_simi_snap_find(s, k, m), *b = psk_simi_snap_find(s, k, m - p);
        if (!a || !b || a->nrows != b->nrows)
            return 0;
        for (int64_t i = m - 2 * p - 1; i < m - p; i++) {
            const snap *x = psk_simi_snap_find(s, k, i + p), *y = psk_simi_snap_find(s, k, i);
            if (!x || !y || !same(x->t - y->t, d, mag, 1e-6) || x->nread - y->nread != a->nread - b->nread ||
                x->nunexp != y->nunexp || x->nposted != y->nposted || x->nmatched != y->nmatched ||
                x->nfol != y->nfol || x->age != y->age || x->nrows != a->nrows || y->nrows != a->nrows ||
                x->depth != y->depth)
                return 0;
            for (int c = 0; c < A_N; c++)
                if (!same(x->acc[c] - y->acc[c], a->acc[c] - b->acc[c], mag, 1e-6))
                    return 0;
            for (int j = 0; j < a->nrows * w; j++)
                if (!same(x->rows[j] - y->rows[j], a->rows[j] - b->rows[j], 1e-9 * mag + fabs(a->rows[j]), 1e-15))
                    return 0;
        }
    }
    *delta = d;
    return 1;
}

/* 1 if no rank's snapshot from iteration from on (to the one it is in)
 * saw a stray message or receive: none was taken by the iterations since,
 * which the skipped ones would not repeat, and none waits now (it would
 * have waited then) */
static int tags_apart(const psk_sim *s, int64_t from)
{
    for (int q = 0; q < s->P; q++) {
        const skipr *k = &s->sk[q];
        for (int64_t i = from; i <= k->iter; i++) {
            const snap *sn = psk_simi_snap_find(s, k, i);
            if (!sn || sn->stray)
                return 0;
        }
    }
    return 1;
}

/* the blocks' g of the p iterations before m, from the snapshots, each
 * rank's MPI time less waiting taken as its mean over them (as
 * psk_simi_skip() takes it for the skipped blocks: with the same gaps
 * every period, the skipped blocks' g is then this one's exactly) */
static double ring_g(const psk_sim *s, int64_t m, int64_t p)
{
    int64_t L = s->skg->L;
    double G = 0;
    for (int64_t b = m - p; b < m; b += L) {
        double gm = 0;
        for (int q = 0; q < s->P; q++) {
            const skipr *k = &s->sk[q];
            const snap *x = psk_simi_snap_find(s, k, b), *y = psk_simi_snap_find(s, k, b + L);
            const snap *a = psk_simi_snap_find(s, k, m), *z = psk_simi_snap_find(s, k, m - p);
            double v = y->acc[A_CPU] - x->acc[A_CPU] +
                       (double)L * (psk_simi_own_mpi(a) - psk_simi_own_mpi(z)) / (double)p;
            gm = v > gm ? v : gm;
        }
        G += gm;
    }
    return G;
}

/* (1) the replay repeats exactly: the skip that gives what replaying
 * gives. 1 if it skipped (or failed: *rc) */
int psk_simi_try_exact(psk_sim *s, int32_t node, int64_t exec, int64_t m, int64_t M, int64_t count, int qb, int *rc)
{
    const skipg *g = s->skg;
    int64_t L = g->L, pmax = 2 * L > MAXPERIOD ? 2 * L : MAXPERIOD;
    if (m < 3 || count - 1 - M < 1)
        return 0;
    for (int64_t p = L; p <= pmax && 2 * p + 1 <= m && M - (m - 2 * p - 1) < g->nsnap; p += L) {
        double delta;
        int64_t K = (count - 1 - M) / p;
        if (K >= 1 && periodic(s, m, p, &delta)) {
            if (!tags_apart(s, m - 2 * p - 1))
                return 0;
            win w = {.nw = p, .res = (delta - ring_g(s, m, p)) / (double)(p / L), .sur = SUR_BLOCK, .ring = 1};
            int done;
            *rc = psk_simi_skip(s, node, exec, K * p, m, qb, &w, &done);
            return done || *rc;
        }
    }
    return 0;
}

/* ---- the window ---- */

/* the oldest a waiting message or receive whose tag follows the index may
 * be, in iterations: older, it is one left over (or of a pipeline deeper
 * than skipping follows statistically). A window is longer: one left over
 * as a stray message took its match (the stray waited until then: no
 * window began before) is older than this by the end of the window */
static int64_t age_max(const psk_sim *s)
{
    int64_t L = s->skg->L;
    return (2 * L > MAXPERIOD ? 2 * L : MAXPERIOD) + 2;
}

/* block number nblk of the window advanced by a where the surrogate said g */
static void res_add(const skipg *g, resid *r, int64_t nblk, double gv, double a)
{
    r->G += gv;
    for (int k = 0; k < 2; k++) {
        r->rb[k] += a - gv;
        if (nblk % (k ? BIG * g->bat : g->bat) == 0) {
            r->R1[k] += r->rb[k], r->R2[k] += r->rb[k] * r->rb[k];
            r->nb[k]++;
            r->rb[k] = 0;
        }
    }
}

/* the standard error of the advance of S iterations estimated with r: the
 * skipped batches' residual is the window's mean, off by its own spread
 * and by the mean's; from the spread of the window's batches, the larger
 * of the two lengths' (the long ones once there are 4) */
static double res_se(const skipg *g, const resid *r, int64_t S)
{
    double se = 0;
    for (int k = 0; k < 2; k++) {
        double nb = (double)r->nb[k], K = (double)S / (double)(g->L * g->bat * (k ? BIG : 1));
        if (r->nb[k] < (k ? 4 : 2))
            continue;
        double var = (r->R2[k] - r->R1[k] * r->R1[k] / nb) / (nb - 1), e = sqrt(var > 0 ? var * (K + K * K / nb) : 0);
        se = e > se ? e : se;
    }
    return se;
}

/* x's times, totals and rows into d (not its segments) */
static int copy_snap(snap *d, const snap *x)
{
    double *rows = d->rows;
    int64_t cap = d->caprows;
    int w = PSK_M_N + 1;
    if (x->nrows && psk_grow((void **)&rows, &cap, (int64_t)x->nrows * w - 1, sizeof *rows))
        return PSK_ENOMEM;
    *d = *x;
    d->rows = rows, d->caprows = cap;
    d->nseg = 0, d->segc = d->sego = d->segw = NULL, d->spos = NULL, d->scls = NULL;
    d->capc = d->capo = d->capw = d->capspos = d->capscls = 0;
    if (x->nrows)
        memcpy(rows, x->rows, (size_t)x->nrows * (size_t)w * sizeof *rows);
    return PSK_OK;
}

/* iteration i is over on every rank (each has begun i + 1): measured into
 * the window, which it starts or, if stray messages or receives waited or
 * a snapshot is gone, ends */
int psk_simi_win_add(psk_sim *s, int64_t i)
{
    skipg *g = s->skg;
    int64_t amax = age_max(s);
    for (int q = 0; q < s->P; q++) {
        const skipr *k = &s->sk[q];
        const snap *x = psk_simi_snap_find(s, k, i), *y = psk_simi_snap_find(s, k, i + 1);
        if (!x || !y || x->stray || y->stray || x->maxage > amax || y->maxage > amax) {
            g->w0 = -1;
            return PSK_OK;
        }
    }
    if (g->w0 < 0) {
        if (i < g->first + WARM)
            return PSK_OK;
        g->w0 = i, g->nw = 0;
        g->ba = g->gb[SUR_ITER] = g->gb[SUR_SEG] = 0;
        memset(g->rs, 0, sizeof g->rs);
        g->noseg = g->segbase = g->bseg = 0;
        for (int q = 0; q < s->P; q++) {
            skipr *k = &s->sk[q];
            if (copy_snap(&k->base, psk_simi_snap_find(s, k, i)))
                return PSK_ENOMEM;
            for (int u = SUR_ITER; u <= SUR_SEG; u++)
                if (k->own[u])
                    memset(k->own[u], 0, (size_t)k->capown[u] * sizeof *k->own[u]);
            if (k->wmod)
                memset(k->wmod, 0, (size_t)k->capwm * sizeof *k->wmod);
            if (k->wact)
                memset(k->wact, 0, (size_t)k->capwa * sizeof *k->wact);
        }
    }
    double a = 0, gi = 0;
    int nseg = psk_simi_snap_find(s, &s->sk[0], i)->nseg;
    int64_t j = (i - g->w0) % g->L;
    for (int q = 0; q < s->P; q++) {
        skipr *k = &s->sk[q];
        const snap *x = psk_simi_snap_find(s, k, i), *y = psk_simi_snap_find(s, k, i + 1);
        double own = psk_simi_own_mpi(y) - psk_simi_own_mpi(x), c = y->acc[A_CPU] - x->acc[A_CPU];
        if (psk_grow((void **)&k->own[SUR_ITER], &k->capown[SUR_ITER], j, sizeof *k->own[SUR_ITER]))
            return PSK_ENOMEM;
        k->own[SUR_ITER][j] += own;
        gi = c + own > gi ? c + own : gi;
        a += y->t - x->t;
        g->noseg |= x->nseg != nseg;
    }
    g->gb[SUR_ITER] += gi;
    /* per segment, the slowest rank's compute and MPI time less waiting */
    for (int e = 0; e < nseg && !g->noseg; e++) {
        double gm = 0;
        for (int q = 0; q < s->P; q++) {
            skipr *k = &s->sk[q];
            const snap *x = psk_simi_snap_find(s, k, i);
            gm = x->segc[e] + x->sego[e] > gm ? x->segc[e] + x->sego[e] : gm;
            if (psk_grow((void **)&k->own[SUR_SEG], &k->capown[SUR_SEG], g->segbase + e, sizeof *k->own[SUR_SEG]))
                return PSK_ENOMEM;
            k->own[SUR_SEG][g->segbase + e] += x->sego[e];
        }
        for (int q = 0; q < s->P; q++) { /* the waiting g says, and the replay's */
            skipr *k = &s->sk[q];
            const snap *x = psk_simi_snap_find(s, k, i);
            if (psk_grow((void **)&k->wmod, &k->capwm, g->segbase + e, sizeof *k->wmod) ||
                psk_grow((void **)&k->wact, &k->capwa, g->segbase + e, sizeof *k->wact))
                return PSK_ENOMEM;
            k->wmod[g->segbase + e] += gm - (x->segc[e] + x->sego[e]);
            k->wact[g->segbase + e] += x->segw[e];
        }
        g->gb[SUR_SEG] += gm;
    }
    g->segbase += nseg;
    g->ba += a / s->P;
    if (++g->nw % g->L)
        return PSK_OK;
    int64_t nblk = g->nw / g->L; /* a block ends */
    g->noseg |= g->bseg && g->segbase != g->bseg;
    g->bseg = g->segbase;
    g->segbase = 0;
    for (int u = SUR_ITER; u <= SUR_SEG; u++)
        if (u == SUR_ITER || !g->noseg)
            res_add(g, &g->rs[u], nblk, g->gb[u], g->ba);
    g->ba = g->gb[SUR_ITER] = g->gb[SUR_SEG] = 0;
    return PSK_OK;
}

/* (2) the window measured enough iterations, precisely enough: the
 * statistical skip, with the surrogate whose residual is the steadier.
 * 1 if it skipped (or failed: *rc) */
int psk_simi_try_window(psk_sim *s, int32_t node, int64_t exec, int64_t m, int64_t M, int64_t count, int qb, int *rc)
{
    const skipg *g = s->skg;
    int64_t L = g->L, bl = L * g->bat;
    if (g->w0 < 0 || g->w0 + g->nw != m || g->nw < WIN_MIN || g->nw <= age_max(s) ||
        (double)g->nw < WIN_FRAC * (double)count ||
        g->rs[SUR_ITER].nb[0] < NB_MIN || g->nw % bl)
        return 0;
    int64_t S = (count - TAIL - M) / L * L;
    if (S < bl)
        return 0;
    double tm = 0, A = 0;
    for (int q = 0; q < s->P; q++) {
        const snap *a = psk_simi_snap_find(s, &s->sk[q], m);
        tm += a->t, A += a->t - s->sk[q].base.t;
    }
    tm /= s->P, A /= s->P;
    int sur = SUR_ITER;
    double se = res_se(g, &g->rs[SUR_ITER], S), e;
    if (!g->noseg && g->bseg > (int)L && (e = res_se(g, &g->rs[SUR_SEG], S)) < se)
        se = e, sur = SUR_SEG;
    if (se > PRECISION * (tm + (double)S * A / (double)g->nw))
        return 0;
    if (!tags_apart(s, m))
        return 0;
    win w = {.nw = g->nw, .res = (A - g->rs[sur].G) / (double)(g->nw / L), .sur = sur, .ring = 0, .se = se};
    int done;
    *rc = psk_simi_skip(s, node, exec, S, m, qb, &w, &done);
    return done || *rc;
}
