/* Every run of a sequence that is mostly one word repeated (a main loop:
 * a stretch [A, B) of smallest period p, at least 16 periods long, with at
 * most a quarter of its length before and after it), without suffix
 * structures over the whole: the runs are found in a window at each end
 * and the middle ones copied a period at a time. L = B - A, t = n - B.
 *
 * Why that is exact. A run r = [a, b) of period q other than [A, B) meets
 * [A, B) in fewer than p + q symbols: on p + q symbols it would have
 * period gcd(p, q) (Fine and Wilf), a proper divisor of q if q > p (a
 * run's period is primitive), and if q divides p, s[i] = s[i - p] =
 * s[i - p - q] would carry it to all of [A, B), of smallest period p > q;
 * for q = p, two runs of one period that overlap by p are one. So, with
 * rho the first Lyndon root of r (the key fold_split orders runs by, with
 * its order):
 * - if q > p and r crosses A, its part before A is over q - p long: q <
 *   A + p, and rho < A + 2p (else r would meet [A, B) in rho + q - A >=
 *   p + q symbols); if q > p and r crosses B, q < t + p the same way and
 *   rho >= a > B - p - q > B - 2p - t (a root is where a run starts, not
 *   where it ends: this side needs the margin t);
 * - rho in [A + 2p, B - 2p - t): r lies inside (A, B) and is shorter than
 *   2p; shifted by p it is still a run, with the same order and rho + p:
 *   the runs rooted in [A + 2p, A + 3p) copied every period are all of
 *   them;
 * - rho before A + 2p: r ends before 2A + 4p (it cannot reach B as
 *   L > 4A + 4p); rho from B - 3p - t: r starts after B - t - 5p. Those
 *   are found in [0, 2A + 5p) and [B - t - 5p, n).
 * The runs come out in fold_runs_linear's order (fold_split.c). */
#include <stdlib.h>
#include <string.h>

#include "fold_internal.h"

enum {
    PERIOD_MIN_N = 1 << 14, /* shorter: not worth trying */
    MIN_COPIES = 16,        /* the word repeats at least this often */
};

/* a main loop: the maximal stretch [*a, *b) of one period p through the
 * middle of s, repeated at least MIN_COPIES times, with at most a quarter
 * of its length before and after it; p, or 0 if there is none. The
 * prefix function over n / 8 symbols in the middle (twice the largest
 * period wanted: that long, the window has the stretch's smallest
 * period), stopped as soon as the window's prefix has a longer period;
 * then the period followed both ways */
static int32_t main_loop(const int32_t *s, int32_t n, int32_t *a, int32_t *b, int *oom)
{
    int32_t m = n / 8, maxp = m / 2;
    const int32_t *w = s + (n - m) / 2;
    int32_t *pi = malloc((size_t)m * sizeof *pi);
    if (!pi) {
        *oom = 1;
        return 0;
    }
    pi[0] = 0;
    for (int32_t i = 1; i < m; i++) {
        int32_t j = pi[i - 1];
        while (j > 0 && w[i] != w[j])
            j = pi[j - 1];
        j += w[i] == w[j];
        pi[i] = j;
        if (i + 1 - j > maxp) { /* a prefix's period never shrinks */
            free(pi);
            return 0;
        }
    }
    int32_t p = m - pi[m - 1], lo = (n - m) / 2, hi = lo + m;
    free(pi);
    while (lo > 0 && s[lo - 1] == s[lo - 1 + p])
        lo--;
    while (hi < n && s[hi] == s[hi - p])
        hi++;
    int32_t len = hi - lo;
    if (len / MIN_COPIES < p || lo > len / 4 || n - hi > len / 4)
        return 0;
    *a = lo;
    *b = hi;
    return p;
}

typedef struct rooted {
    frun r;
    int32_t root;
} rooted;

typedef struct rlists { /* the runs of each order, with their roots */
    rooted *v[2];
    int64_t n[2], cap[2];
} rlists;

static int add(rlists *l, frun r, int order, int32_t root)
{
    if (l->n[order] == l->cap[order]) {
        int64_t c = l->cap[order] ? 2 * l->cap[order] : 64;
        rooted *t = realloc(l->v[order], (size_t)c * sizeof *t);
        if (!t)
            return -1;
        l->v[order] = t;
        l->cap[order] = c;
    }
    l->v[order][l->n[order]++] = (rooted){r, root};
    return 0;
}

static int cmp_rooted(const void *a, const void *b)
{
    const rooted *x = a, *y = b;
    return (x->root > y->root) - (x->root < y->root);
}

/* the runs of the window s[w0, w1) (symbols renamed through map, all -1
 * on entry and on return) that are runs of s: not touching a window end
 * that is not an end of s; each filed by order under its root if the root
 * is in [lo, hi) */
static int window_runs(const int32_t *s, int32_t n, int32_t w0, int32_t w1, int32_t *map, int32_t lo, int32_t hi,
                       rlists *out)
{
    int32_t len = w1 - w0, kw = 0;
    int32_t *t = malloc((size_t)len * sizeof *t);
    if (!t)
        return -1;
    for (int32_t i = 0; i < len; i++) {
        int32_t x = s[w0 + i];
        if (map[x] < 0)
            map[x] = kw++;
        t[i] = map[x];
    }
    for (int32_t i = 0; i < len; i++)
        map[s[w0 + i]] = -1;
    frun *r = NULL;
    int64_t nr = 0;
    int rc = fold_runs_linear(t, len, kw, &r, &nr);
    free(t);
    for (int64_t i = 0; rc == 0 && i < nr; i++) {
        frun x = {r[i].start + w0, r[i].period, r[i].length};
        if ((x.start == w0 && w0 > 0) || (x.start + x.length == w1 && w1 < n))
            continue;
        int order;
        int32_t root = fold_run_root(s, n, x, &order);
        if (root >= lo && root < hi && add(out, x, order, root))
            rc = -1;
    }
    free(r);
    return rc;
}

int fold_runs_periodic(const int32_t *s, int32_t n, int32_t k, frun **out, int64_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (n < PERIOD_MIN_N)
        return 1;
    int oom = 0;
    int32_t A, B, p = main_loop(s, n, &A, &B, &oom);
    if (oom)
        return -1;
    if (p == 0)
        return 1;
    /* roots before A + 2p: the head; in [A + 2p, y): copies of those in
     * [A + 2p, A + 3p); from y: the tail, y at least 2p + t before B */
    int32_t t = n - B, c = (B - A - 4 * p - t) / p, y = A + 2 * p + c * p;
    rlists head = {0}, mid = {0}, tail = {0};
    int32_t *map = malloc((size_t)k * sizeof *map);
    frun *r = NULL;
    int rc = -1;
    if (!map)
        goto done;
    for (int32_t x = 0; x < k; x++)
        map[x] = -1;
    /* (bounds at the top of the file) every run rooted before A + 3p
     * ends before 2A + 5p, every run rooted from y starts after
     * B - t - 5p */
    if (window_runs(s, n, 0, 2 * A + 5 * p, map, 0, A + 2 * p, &head) ||
        window_runs(s, n, 0, 2 * A + 5 * p, map, A + 2 * p, A + 3 * p, &mid) ||
        window_runs(s, n, B - t - 5 * p, n, map, y, n, &tail))
        goto done;
    int order;
    frun loop = {A, p, B - A};
    int32_t root = fold_run_root(s, n, loop, &order);
    if (add(&head, loop, order, root))
        goto done;
    int64_t total = 0;
    for (int o = 0; o < 2; o++) {
        total += head.n[o] + (int64_t)c * mid.n[o] + tail.n[o];
        if (head.n[o] > 1)
            qsort(head.v[o], (size_t)head.n[o], sizeof *head.v[o], cmp_rooted);
        if (mid.n[o] > 1)
            qsort(mid.v[o], (size_t)mid.n[o], sizeof *mid.v[o], cmp_rooted);
        if (tail.n[o] > 1)
            qsort(tail.v[o], (size_t)tail.n[o], sizeof *tail.v[o], cmp_rooted);
    }
    r = malloc((size_t)(total ? total : 1) * sizeof *r);
    if (!r)
        goto done;
    int64_t m = 0;
    for (int o = 0; o < 2; o++) {
        for (int64_t i = 0; i < head.n[o]; i++)
            r[m++] = head.v[o][i].r;
        for (int32_t j = 0; j < c; j++)
            for (int64_t i = 0; i < mid.n[o]; i++) {
                frun x = mid.v[o][i].r;
                x.start += j * p;
                r[m++] = x;
            }
        for (int64_t i = 0; i < tail.n[o]; i++)
            r[m++] = tail.v[o][i].r;
    }
    *out = r;
    *nout = m;
    r = NULL;
    rc = 0;
done:
    free(map), free(r);
    for (int o = 0; o < 2; o++)
        free(head.v[o]), free(mid.v[o]), free(tail.v[o]);
    return rc;
}
