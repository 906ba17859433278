/* Every run of a sequence that repeats one word from start to end (a
 * clean trace's main loop: s = u^c u', u primitive of length p, c >= 16),
 * without suffix structures over the whole: the runs are found in two
 * windows of a few periods and the middle ones copied a period at a time.
 *
 * Why that is exact (s of smallest period p, n >= 2p):
 * - [0, n) is the one run of period p; none has a longer period q (on
 *   2q >= p + q symbols it would have period gcd(p, q) by Fine and Wilf);
 * - any other run [a, b) of period q < p is shorter than p + q: longer,
 *   s[i] = s[i - p] = s[i - p - q] = s[i - q] past b (and the same before
 *   a) would extend it to the whole of s, of period q < p;
 * - so a run whose first Lyndon root rho (the key fold_split orders runs
 *   by, with its order) is at least 2p from the start and 2p from the end
 *   touches neither end, and shifted by p it is still a run, with the same
 *   order and its root shifted by p: the runs rooted in [2p, 3p) shifted
 *   by 0, p, 2p, ... are all the runs rooted in the middle.
 * The runs come out in fold_runs_linear's order (fold_split.c). */
#include <stdlib.h>
#include <string.h>

#include "fold_internal.h"

enum {
    PERIOD_MIN_N = 1 << 14, /* shorter: not worth trying */
    MIN_COPIES = 16,        /* the word repeats at least this often */
};

/* the smallest period of s[0..n) if it is at most n / MIN_COPIES, else 0;
 * the prefix function over n / 8 symbols (twice the largest period
 * wanted: a prefix that long has the same smallest period as s), stopped
 * as soon as the prefix's smallest period is too large; then the period
 * checked on the whole */
static int32_t small_period(const int32_t *s, int32_t n, int *oom)
{
    int32_t maxp = n / MIN_COPIES, m = 2 * maxp;
    int32_t *pi = malloc((size_t)m * sizeof *pi);
    if (!pi) {
        *oom = 1;
        return 0;
    }
    pi[0] = 0;
    for (int32_t i = 1; i < m; i++) {
        int32_t j = pi[i - 1];
        while (j > 0 && s[i] != s[j])
            j = pi[j - 1];
        j += s[i] == s[j];
        pi[i] = j;
        if (i + 1 - j > maxp) { /* a prefix's period never shrinks */
            free(pi);
            return 0;
        }
    }
    int32_t p = m - pi[m - 1];
    free(pi);
    return memcmp(s + p, s, (size_t)(n - p) * sizeof *s) ? 0 : p;
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
    int32_t p = small_period(s, n, &oom);
    if (oom)
        return -1;
    if (p == 0)
        return 1;
    /* roots in [0, 2p): the head; [2p, y): copies of those in [2p, 3p);
     * [y, n): the tail, with y at least 2p before the end */
    int32_t c = (n - 4 * p) / p, y = 2 * p + c * p;
    rlists head = {0}, mid = {0}, tail = {0};
    int32_t *map = malloc((size_t)k * sizeof *map);
    frun *r = NULL;
    int rc = -1;
    if (!map)
        goto done;
    for (int32_t x = 0; x < k; x++)
        map[x] = -1;
    /* every run rooted before 3p ends before 5p */
    if (window_runs(s, n, 0, 5 * p, map, 0, 2 * p, &head) || window_runs(s, n, 0, 5 * p, map, 2 * p, 3 * p, &mid) ||
        window_runs(s, n, y - p, n, map, y, n, &tail))
        goto done;
    int order;
    frun whole = {0, p, n};
    int32_t root = fold_run_root(s, n, whole, &order);
    if (add(&head, whole, order, root))
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
