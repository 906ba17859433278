/* Summarised times (`merge --times summary`, docs/merged-format.md):
 * instead of every rank's gap and duration of every event, the merged file
 * keeps per merged event a few order statistics of the gaps over the ranks
 * taking part (all of them up to ALL ranks; beyond, the minimum, the
 * quartiles, and the largest, 2nd, 4th, 8th... largest down to the upper
 * quartile: a heavy tail, one rank stalled, stays one rank) and the mean
 * duration, each to 1/32 of an octave and stored as the difference from
 * its class's last event's (format version 4), and per rank one factor on
 * its gaps (its
 * compute over the compute the summary gives it). The file then no longer
 * grows with the ranks' count. Reading it deals each event's gaps out to
 * its ranks through a permutation drawn from the event's index, so the
 * spread of the ranks' times (who waits for whom) survives, and each rank's
 * total compute is its own; everything downstream works unchanged, on a
 * lossy trace. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "merge_internal.h"
#include "psk_mem.h"
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

/* the position in the sorted gaps of the np ranks of merged event i that
 * its j-th rank takes: (a j + b) mod np, a and b drawn from i */
static int position(int np, uint64_t i, int j)
{
    if (np == 1)
        return 0;
    uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    int b = (int)(h % (uint64_t)np), a = 1 + (int)((h >> 32) % (uint64_t)np);
    while (gcd(a, np) != 1)
        a = a % np + 1;
    return (int)(((int64_t)a * j + b) % np);
}

/* the value at position pos of the sorted values whose q[0..k) are kept at
 * positions at[0..k): between kept positions linearly */
static double interp(const int64_t *q, const int *at, int k, int pos)
{
    int lo = 0, hi = k - 1;
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

/* times to 1/QSTEPS of an octave (version 4): code round(QSTEPS log2(1 + |v|)),
 * signed as v; within 2.2 % either way */
#define QSTEPS 16
#define QCMAX (62 * QSTEPS) /* the code of GAP_MAX */

static int32_t qcode(int64_t v)
{
    int32_t c = (int32_t)llround(log2(1.0 + fabs((double)v)) * QSTEPS);
    c = c > QCMAX ? QCMAX : c;
    return v < 0 ? -c : c;
}

static int64_t qvalue(int32_t c)
{
    double x = exp2((double)(c < 0 ? -c : c) / QSTEPS) - 1;
    int64_t v = x < (double)GAP_MAX ? llround(x) : GAP_MAX;
    return c < 0 ? -v : v;
}

/* An event's codes (version 4): with up to ALL ranks each rank's own gap
 * and duration, in the order of the ranks taking part (the rank files'
 * times to 2.2 %); with more, the k kept order statistics of the gaps and
 * of the durations. Codes are stored as differences from its class's last
 * event's, or before a class's first from the last event's of the same
 * function and shape (its row: np up to ALL, else ALL + k). */
#define ROW (2 * QMAX)
#define NROWS (ALL + QMAX + 1)

static int shape(int np, int k) { return np <= ALL ? np : ALL + k; }

/* forgets every class's and function's last codes (and looks up exact()'s
 * functions) */
static void prev_reset(psk_merged *m)
{
    m->ts_init[0] = psk_fn_lookup("MPI_Init");
    m->ts_init[1] = psk_fn_lookup("MPI_Init_thread");
    if (m->ts_at)
        memset(m->ts_at, 0, (size_t)m->ts_ncls * sizeof *m->ts_at);
    if (m->ts_fnrow)
        memset(m->ts_fnrow, 0, (size_t)psk_fn_count() * NROWS * sizeof *m->ts_fnrow);
    m->ts_nprev = 0;
}

/* room for n codes in ts_prev: their offset, or -1 out of memory */
static int64_t arena(psk_merged *m, int n)
{
    if (MERGE_GROW(&m->ts_prev, &m->ts_capprev, m->ts_nprev + (size_t)n))
        return -1;
    m->ts_nprev += (size_t)n;
    return (int64_t)(m->ts_nprev - (size_t)n);
}

/* where the last codes of an event of function fn and shape row are (their
 * offset + 1; 0: none yet); NULL out of memory */
static uint64_t *fnrow(psk_merged *m, unsigned fn, int row)
{
    if (!m->ts_fnrow && !(m->ts_fnrow = calloc((size_t)psk_fn_count() * NROWS, sizeof *m->ts_fnrow)))
        return NULL;
    return &m->ts_fnrow[(size_t)fn * NROWS + (size_t)row];
}

/* class cls's last event's codes (n of them, of shape row); before its
 * first, the last event's of its function and shape (a loop whose every
 * iteration is a class of its own, a tag counting them), or zero; NULL
 * out of memory. After the event, note_fn */
static int32_t *prev_codes(psk_merged *m, uint32_t cls, int row, int n)
{
    if (psk_grow((void **)&m->ts_at, &m->ts_ncls, cls, sizeof *m->ts_at))
        return NULL;
    if (!m->ts_at[cls]) {
        uint64_t *f = fnrow(m, psk_merged_class_fn(m, cls), row);
        int64_t at = f ? arena(m, n) : -1;
        if (at < 0)
            return NULL;
        if (*f)
            memcpy(m->ts_prev + at, m->ts_prev + *f - 1, (size_t)n * sizeof *m->ts_prev);
        else
            memset(m->ts_prev + at, 0, (size_t)n * sizeof *m->ts_prev);
        m->ts_at[cls] = (uint64_t)at + 1;
    }
    return m->ts_prev + m->ts_at[cls] - 1;
}

/* an event's codes c[0..n) (not in ts_prev) as the last of its function
 * and shape; -1 out of memory */
static int note_fn(psk_merged *m, uint32_t cls, int row, const int32_t *c, int n)
{
    uint64_t *f = fnrow(m, psk_merged_class_fn(m, cls), row);
    if (!f)
        return -1;
    if (!*f) {
        int64_t at = arena(m, n);
        if (at < 0)
            return -1;
        *f = (uint64_t)at + 1;
    }
    memcpy(m->ts_prev + *f - 1, c, (size_t)n * sizeof *c);
    return 0;
}

int tsum_start(psk_merged *m)
{
    size_t P = (size_t)m->nranks + 1;
    free(m->ts_own), free(m->ts_got), free(m->ts_g), free(m->ts_d);
    m->ts_own = calloc(P, sizeof *m->ts_own);
    m->ts_got = calloc(P, sizeof *m->ts_got);
    m->ts_g = malloc(P * sizeof *m->ts_g);
    m->ts_d = malloc(P * sizeof *m->ts_d);
    prev_reset(m);
    return m->ts_own && m->ts_got && m->ts_g && m->ts_d ? 0 : -1;
}

/* the k values of v[0..np) an entry keeps (v clamped, and sorted when
 * more than ALL): q, and their codes c */
static void codes(int64_t *v, int np, const int *at, int k, int64_t *q, int32_t *c)
{
    for (int j = 0; j < np; j++)
        v[j] = v[j] > GAP_MAX ? GAP_MAX : v[j] < -GAP_MAX ? -GAP_MAX : v[j];
    if (np > ALL)
        qsort(v, (size_t)np, sizeof *v, cmp_i64);
    for (int x = 0; x < k; x++)
        q[x] = qvalue(c[x] = qcode(v[at[x]]));
}

/* MPI_Init's (MPI_Init_thread's) times are kept as they are: when each
 * rank's MPI_Init returned is when the replay starts it, and the call can
 * take seconds (a code's 2.2 % there is tens of ms of skew) */
static int exact(const psk_merged *m, uint32_t cls)
{
    unsigned fn = psk_merged_class_fn(m, cls);
    return fn == m->ts_init[0] || fn == m->ts_init[1];
}

/* an exact entry: every rank's gap as it is (s), in the order of the
 * ranks taking part, then every rank's duration, whatever their count */
static int put_exact(psk_merged *m, mbuf *out, const int32_t *ranks, int np, int64_t *g, int64_t *d)
{
    int rc = 0;
    for (int j = 0; j < np; j++) {
        g[j] = g[j] > GAP_MAX ? GAP_MAX : g[j] < -GAP_MAX ? -GAP_MAX : g[j];
        d[j] = d[j] > GAP_MAX ? GAP_MAX : d[j] < 0 ? 0 : d[j];
        m->ts_got[ranks[j]] += g[j] > 0 ? (double)g[j] : 0;
    }
    for (int x = 0; x < 2 * np && !rc; x++)
        rc = mbuf_put_svar(out, x < np ? g[x] : d[x - np]);
    return rc;
}

/* an event's entry: its codes, each less the same code of its class's
 * last event (a loop's event changes little from one iteration to the
 * next: small differences) */
int tsum_event(psk_merged *m, mbuf *out, uint64_t i, uint32_t cls, const int32_t *ranks, int np, int64_t *g,
               int64_t *d)
{
    int64_t q[QMAX], u[QMAX];
    int32_t c[ROW];
    int at[QMAX];
    for (int j = 0; j < np; j++) {
        int64_t v = g[j] > GAP_MAX ? GAP_MAX : g[j];
        m->ts_own[ranks[j]] += v > 0 ? (double)v : 0;
        d[j] = d[j] < 0 ? 0 : d[j]; /* (a reader refuses a negative one) */
    }
    if (exact(m, cls))
        return put_exact(m, out, ranks, np, g, d);
    int k = kept(np, at), rc = 0;
    codes(g, np, at, k, q, c);
    codes(d, np, at, k, u, c + k);
    /* the factors make up for what the codes lose: from the gaps read back */
    for (int j = 0; j < np; j++) {
        double v = interp(q, at, k, np <= ALL ? j : position(np, i, j));
        m->ts_got[ranks[j]] += v > 0 ? v : 0;
    }
    int row = shape(np, k);
    int32_t *pv = prev_codes(m, cls, row, 2 * k);
    if (!pv)
        return -1;
    for (int x = 0; x < 2 * k && !rc; x++) {
        rc = mbuf_put_svar(out, (int64_t)c[x] - pv[x]);
        pv[x] = c[x];
    }
    return rc || note_fn(m, cls, row, c, 2 * k);
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
        for (int j = 0; j < np && !rc; j++) {
            mbuf *t = &m->rank[ranks[j]].times;
            const uint8_t *p = t->p + pos[ranks[j]];
            uint64_t dur = 0;
            if (psk_get_svar(&p, t->p + t->len, &m->ts_g[j]) || psk_get_uvar(&p, t->p + t->len, &dur))
                rc = -2; /* a rank's times end early: the object is broken */
            pos[ranks[j]] = (size_t)(p - t->p);
            m->ts_d[j] = dur > (uint64_t)GAP_MAX ? GAP_MAX : (int64_t)dur;
        }
        if (!rc && tsum_event(m, out, i, m->cls[i], ranks, np, m->ts_g, m->ts_d))
            rc = -1;
    }
    if (!rc && tsum_factors(m, out))
        rc = -1;
    free(pos);
    return rc;
}

/* reads merged event i's entry: q[0..k) and u[0..k), each rank's gap and
 * duration (*own: with up to ALL ranks, and MPI_Init's with any, from
 * version 4; q and u hold P values), else the kept order statistics of
 * the gaps and durations (before version 4, the mean duration in u[0] for
 * every position); -1 malformed, -2 out of memory */
static int read_event(psk_merged *m, uint64_t i, const uint8_t **p, const uint8_t *end, int64_t *q, int64_t *u,
                      int *at, int *k, int *np, int *own, int coded)
{
    psk_merged_class_ranks(m, m->cls[i], np);
    *k = kept(*np, at);
    int sorted = *np > ALL || !coded; /* each half ascending */
    *own = coded && *np <= ALL;
    if (coded && exact(m, m->cls[i])) {
        *own = 1, *k = *np;
        for (int x = 0; x < 2 * *np; x++) {
            int64_t v;
            if (psk_get_svar(p, end, &v) || v > GAP_MAX || v < -GAP_MAX || (x >= *np && v < 0))
                return -1;
            (x < *np ? q : u)[x % *np] = v;
        }
        return 0;
    }
    if (coded) {
        int row = shape(*np, *k);
        int32_t *pv = prev_codes(m, m->cls[i], row, 2 * *k);
        if (!pv)
            return -2;
        for (int x = 0; x < 2 * *k; x++) {
            int64_t delta;
            if (psk_get_svar(p, end, &delta) || delta > 2 * QCMAX || delta < -2 * QCMAX)
                return -1;
            int32_t c = pv[x] + (int32_t)delta;
            int y = x % *k;
            if (c > QCMAX || c < -QCMAX || (sorted && y && c < pv[x - 1]) || (x >= *k && c < 0))
                return -1; /* beyond GAP_MAX, the statistics not ascending, a negative duration */
            pv[x] = c;
            (x < *k ? q : u)[y] = qvalue(c);
        }
        int32_t c[ROW];
        memcpy(c, pv, 2 * (size_t)*k * sizeof *c); /* note_fn may move pv */
        return note_fn(m, m->cls[i], row, c, 2 * *k) ? -2 : 0;
    }
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
    uint64_t d;
    if (psk_get_uvar(p, end, &d) || d > (1ull << 62))
        return -1;
    for (int x = 0; x < *k; x++)
        u[x] = (int64_t)d;
    return 0;
}

int tsum_decode(psk_merged *m, const uint8_t *p, const uint8_t *end, int version)
{
    uint64_t n, P = 0;
    size_t room = (size_t)m->nranks > QMAX ? (size_t)m->nranks : QMAX;
    int np, at[QMAX], k, own, coded = version >= 4, rc = 0;
    if (psk_get_uvar(&p, end, &n) || n != m->n || n > (uint64_t)(end - p) / 2)
        return -1;
    int64_t *q = malloc(2 * room * sizeof *q);
    double *f = malloc(((size_t)m->nranks + 1) * sizeof *f);
    uint64_t *cnt = calloc((size_t)m->nranks + 1, sizeof *cnt);
    if (!q || !f || !cnt)
        return free(q), free(f), free(cnt), -2;
    int64_t *u = q + room;
    const uint8_t *ev = p; /* the events, read again after the factors */
    prev_reset(m);
    for (uint64_t i = 0; i < n && !rc; i++)
        rc = read_event(m, i, &p, end, q, u, at, &k, &np, &own, coded);
    if (!rc && (psk_get_uvar(&p, end, &P) || P != (uint64_t)m->nranks))
        rc = -1;
    for (uint64_t r = 0; r < P && !rc; r++) {
        uint64_t v;
        if (psk_get_uvar(&p, end, &v) || v > FACTOR_MAX)
            rc = -1;
        f[r] = (double)v / FACTOR_ONE;
    }
    if (!rc && p != end)
        rc = -1;
    prev_reset(m);
    for (uint64_t i = 0; i < n && !rc; i++) {
        read_event(m, i, &ev, end, q, u, at, &k, &np, &own, coded); /* checked above */
        const int32_t *ranks = psk_merged_class_ranks(m, m->cls[i], &np);
        for (int j = 0; j < np && !rc; j++) {
            mrank *mr = &m->rank[ranks[j]];
            /* its own times where kept; else dealt, the rank dealt a
             * longer gap (arrived later, waited less) the duration from
             * the other end; positive gaps (compute) scale with the
             * rank's factor */
            int pos = own ? j : position(np, i, j);
            double v = own ? (double)q[j] : interp(q, at, k, pos), x = v > 0 ? v * f[ranks[j]] : v;
            int64_t rg = x < 0x1p62 ? llround(x) : GAP_MAX;
            uint64_t d = own ? (uint64_t)u[j] : (uint64_t)llround(interp(u, at, k, np - 1 - pos));
            cnt[ranks[j]]++;
            if (mbuf_put_svar(&mr->times, rg) || mbuf_put_uvar(&mr->times, d))
                rc = -2;
        }
    }
    /* every rank gets as many times as it has events */
    for (uint64_t r = 0; r < P && !rc; r++)
        if (cnt[r] != m->rank[r].n)
            rc = -1;
    free(q);
    free(f);
    free(cnt);
    return rc;
}
