/* Summarised times (`merge --times summary`, docs/merged-format.md):
 * instead of every rank's gap and duration of every event, the merged file
 * keeps per merged event a few order statistics of the gaps over the ranks
 * taking part (all of them up to ALL ranks; beyond, the minimum, the
 * quartiles, and the largest, 2nd, 4th, 8th... largest down to the upper
 * quartile: a heavy tail, one rank stalled, stays one rank) and the mean
 * duration, and per rank one factor on its gaps (its
 * compute over the compute the summary gives it). The file then no longer
 * grows with the ranks' count. Reading it deals each event's gaps out to
 * its ranks through a permutation drawn from the event's index, so the
 * spread of the ranks' times (who waits for whom) survives, and each rank's
 * total compute is its own; everything downstream works unchanged, on a
 * lossy trace. */
#include <math.h>
#include <stdlib.h>

#include "merge_internal.h"
#include "psk_varint.h"

#define ALL 8              /* up to this many ranks, every gap is kept */
#define QMAX 72            /* order statistics kept at most (2^31 ranks) */
#define FACTOR_ONE 65536.0 /* a rank's factor in 1/65536ths */
#define FACTOR_MAX (1ull << 40)
#define GAP_MAX ((int64_t)1 << 62)

/* the positions (ascending) in the sorted gaps of np ranks that are kept;
 * their count */
static int kept(int np, int *at)
{
    int k = 0;
    if (np <= ALL) {
        for (; k < np; k++)
            at[k] = k;
        return k;
    }
    for (int x = 0; x < 4; x++) /* minimum and quartiles */
        at[k++] = (int)(((int64_t)x * (np - 1) + 2) / 4);
    int q3 = at[3], top = k;
    for (int64_t d = 1; np - d > q3; d *= 2) /* the largest, 2nd, 4th, ... */
        at[k++] = (int)(np - d);
    for (int x = top, y = k - 1; x < y; x++, y--) { /* ascending */
        int t = at[x];
        at[x] = at[y];
        at[y] = t;
    }
    return k;
}

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* the gap dealt to the j-th of the np ranks of merged event i, from the
 * gaps q[0..k) kept at positions at[0..k) of the sorted gaps: rank j takes
 * position (a j + b) mod np, a and b drawn from i, between kept positions
 * linearly */
static double dealt(const int64_t *q, const int *at, int k, int np, uint64_t i, int j)
{
    if (np == 1)
        return (double)q[0];
    uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    int b = (int)(h % (uint64_t)np), a = 1 + (int)((h >> 32) % (uint64_t)np);
    while (gcd(a, np) != 1)
        a = a % np + 1;
    int pos = (int)(((int64_t)a * j + b) % np), lo = 0, hi = k - 1;
    while (hi - lo > 1) { /* at[lo] <= pos <= at[hi] */
        int mid = (lo + hi) / 2;
        if (at[mid] <= pos)
            lo = mid;
        else
            hi = mid;
    }
    if (at[hi] == at[lo])
        return (double)q[lo];
    return (double)q[lo] + (double)(pos - at[lo]) / (at[hi] - at[lo]) * (double)(q[hi] - q[lo]);
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

int tsum_start(psk_merged *m)
{
    size_t P = (size_t)m->nranks + 1;
    free(m->ts_own), free(m->ts_got), free(m->ts_g);
    m->ts_own = calloc(P, sizeof *m->ts_own);
    m->ts_got = calloc(P, sizeof *m->ts_got);
    m->ts_g = malloc(P * sizeof *m->ts_g);
    return m->ts_own && m->ts_got && m->ts_g ? 0 : -1;
}

int tsum_event(psk_merged *m, mbuf *out, uint64_t i, const int32_t *ranks, int np, int64_t *g, double sd)
{
    int64_t q[QMAX];
    int at[QMAX];
    for (int j = 0; j < np; j++) {
        g[j] = g[j] > GAP_MAX ? GAP_MAX : g[j] < -GAP_MAX ? -GAP_MAX : g[j];
        m->ts_own[ranks[j]] += g[j] > 0 ? (double)g[j] : 0;
    }
    qsort(g, (size_t)np, sizeof *g, cmp_i64);
    int k = kept(np, at), rc = 0;
    for (int x = 0; x < k; x++)
        q[x] = g[at[x]];
    for (int j = 0; j < np; j++) {
        double v = dealt(q, at, k, np, i, j);
        m->ts_got[ranks[j]] += v > 0 ? v : 0;
    }
    for (int x = 0; x < k && !rc; x++)
        rc = x ? mbuf_put_uvar(out, (uint64_t)(q[x] - q[x - 1])) : mbuf_put_svar(out, q[0]);
    return rc || mbuf_put_uvar(out, np ? (uint64_t)llround(sd / np) : 0);
}

int tsum_factors(psk_merged *m, mbuf *out)
{
    int rc = mbuf_put_uvar(out, (uint64_t)m->nranks);
    for (int r = 0; r < m->nranks && !rc; r++) {
        double f = m->ts_got[r] > 0 ? m->ts_own[r] / m->ts_got[r] * FACTOR_ONE : FACTOR_ONE;
        rc = mbuf_put_uvar(out, f < (double)FACTOR_MAX ? (uint64_t)llround(f) : FACTOR_MAX);
    }
    return rc;
}

int tsum_encode(psk_merged *m, mbuf *out)
{
    int P = m->nranks, rc = 0;
    size_t *pos = calloc((size_t)P + 1, sizeof *pos);
    if (!pos || tsum_start(m) || mbuf_put_uvar(out, m->n))
        rc = -1;
    for (uint64_t i = 0; i < m->n && !rc; i++) {
        int np;
        const int32_t *ranks = psk_merged_class_ranks(m, m->cls[i], &np);
        double sd = 0;
        for (int j = 0; j < np && !rc; j++) {
            mbuf *t = &m->rank[ranks[j]].times;
            const uint8_t *p = t->p + pos[ranks[j]];
            uint64_t dur = 0;
            if (psk_get_svar(&p, t->p + t->len, &m->ts_g[j]) || psk_get_uvar(&p, t->p + t->len, &dur))
                rc = -2; /* a rank's times end early: the object is broken */
            pos[ranks[j]] = (size_t)(p - t->p);
            sd += (double)dur;
        }
        if (!rc && tsum_event(m, out, i, ranks, np, m->ts_g, sd))
            rc = -1;
    }
    if (!rc && tsum_factors(m, out))
        rc = -1;
    free(pos);
    return rc;
}

/* reads merged event i's order statistics and mean duration; -1 malformed */
static int read_event(psk_merged *m, uint64_t i, const uint8_t **p, const uint8_t *end, int64_t *q, int *at, int *k,
                      uint64_t *d, int *np)
{
    psk_merged_class_ranks(m, m->cls[i], np);
    *k = kept(*np, at);
    for (int x = 0; x < *k; x++) {
        uint64_t delta;
        if (x == 0 ? psk_get_svar(p, end, &q[0]) : psk_get_uvar(p, end, &delta))
            return -1;
        if (x && delta > (uint64_t)GAP_MAX - (uint64_t)q[x - 1]) /* unsigned: no overflow */
            return -1;
        if (x)
            q[x] = q[x - 1] + (int64_t)delta;
        else if (q[0] > GAP_MAX || q[0] < -GAP_MAX)
            return -1;
    }
    return psk_get_uvar(p, end, d) || *d > (1ull << 62) ? -1 : 0;
}

int tsum_decode(psk_merged *m, const uint8_t *p, const uint8_t *end)
{
    uint64_t n, P, d;
    int64_t q[QMAX];
    int np, at[QMAX], k;
    if (psk_get_uvar(&p, end, &n) || n != m->n || n > (uint64_t)(end - p) / 2)
        return -1;
    const uint8_t *ev = p; /* the events, read again after the factors */
    for (uint64_t i = 0; i < n; i++)
        if (read_event(m, i, &p, end, q, at, &k, &d, &np))
            return -1;
    if (psk_get_uvar(&p, end, &P) || P != (uint64_t)m->nranks)
        return -1;
    double *f = malloc(((size_t)P + 1) * sizeof *f);
    uint64_t *cnt = calloc((size_t)P + 1, sizeof *cnt);
    if (!f || !cnt)
        return free(f), free(cnt), -2;
    for (uint64_t r = 0; r < P; r++) {
        uint64_t v;
        if (psk_get_uvar(&p, end, &v) || v > FACTOR_MAX)
            return free(f), free(cnt), -1;
        f[r] = (double)v / FACTOR_ONE;
    }
    if (p != end)
        return free(f), free(cnt), -1;
    int rc = 0;
    for (uint64_t i = 0; i < n && !rc; i++) {
        read_event(m, i, &ev, end, q, at, &k, &d, &np); /* checked above */
        const int32_t *ranks = psk_merged_class_ranks(m, m->cls[i], &np);
        for (int j = 0; j < np && !rc; j++) {
            mrank *mr = &m->rank[ranks[j]];
            /* positive gaps (compute) scale with the rank's factor */
            double v = dealt(q, at, k, np, i, j), x = v > 0 ? v * f[ranks[j]] : v;
            int64_t rg = x < 0x1p62 ? llround(x) : GAP_MAX;
            cnt[ranks[j]]++;
            if (mbuf_put_svar(&mr->times, rg) || mbuf_put_uvar(&mr->times, d))
                rc = -2;
        }
    }
    /* every rank gets as many times as it has events */
    for (uint64_t r = 0; r < P && !rc; r++)
        if (cnt[r] != m->rank[r].n)
            rc = -1;
    free(f);
    free(cnt);
    return rc;
}
