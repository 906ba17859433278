/* Every run of a long sequence, found piece by piece: a symbol that occurs
 * once in the sequence cannot be inside a run (each position of a run has
 * its symbol again a period away), so such symbols cut the sequence into
 * pieces whose runs are exactly the runs of the whole. With noise in a
 * trace (events seen once) the pieces are short: their runs are found by
 * direct comparison, or by fold_runs_linear on the piece with its symbols
 * renumbered, in cache instead of through suffix structures over millions
 * of symbols.
 *
 * The runs come out in the order fold_runs_linear gives for the whole
 * sequence (the folds chosen break ties by that order): a run is reported
 * there at its first Lyndon root, in the pass of the order in which the
 * symbol ending it is smaller than the one a period before it (the natural
 * order if it ends the sequence); all runs of the natural order by that
 * root, then all of the inverted one. */
#include <stdlib.h>
#include <string.h>

#include "fold_internal.h"

enum {
    SPLIT_MIN = 4096, /* shorter sequences: fold_runs_linear directly */
    DIRECT_MAX = 256, /* pieces up to this long: direct comparison (cheaper
                       * than the suffix structures' cache misses there) */
};

/* w[0..p) repeats no shorter word */
static int primitive(const int32_t *w, int32_t p)
{
    for (int32_t d = 1; d <= p / 2; d++) {
        if (p % d)
            continue;
        int32_t x = 0;
        while (x < p - d && w[x] == w[x + d])
            x++;
        if (x == p - d)
            return 0;
    }
    return 1;
}

/* the runs of s[0..n) by direct comparison, starts offset by `at`: for
 * each period p, the stretches where s[j] == s[j + p] that are p or longer
 * each hold a multiple of p, so only those are probed and extended */
static int runs_direct(const int32_t *s, int32_t n, int32_t at, frlist *out)
{
    for (int32_t p = 1; 2 * p <= n; p++) {
        for (int32_t q = 0; q + p < n; q += p) {
            if (s[q] != s[q + p])
                continue;
            int32_t a = q, b = q + 1;
            while (a > 0 && s[a - 1] == s[a - 1 + p])
                a--;
            while (b + p < n && s[b] == s[b + p])
                b++;
            /* [a, b + p) has period p; its smallest period if the root is
             * primitive (a smaller one would divide p) */
            if (b - a >= p && primitive(s + a, p) && fold_frlist_push(out, (frun){at + a, p, b + p - a}))
                return -1;
            q = b / p * p; /* the next probe is past this stretch */
        }
    }
    return 0;
}

/* offset of the smallest rotation of the run's period w[0..p) (w is
 * followed by at least p more symbols of the run), symbols compared in
 * the natural order or inverted */
static int32_t min_rotation(const int32_t *w, int32_t p, int inv)
{
    int32_t i = 0, j = 1, k = 0;
    while (i < p && j < p && k < p) {
        int32_t a = w[i + k], b = w[j + k];
        if (a == b) {
            k++;
            continue;
        }
        if (inv ? a < b : a > b)
            i += k + 1;
        else
            j += k + 1;
        if (i == j)
            j++;
        k = 0;
    }
    return i < j ? i : j;
}

int32_t fold_run_root(const int32_t *s, int32_t n, frun r, int *order)
{
    int32_t end = r.start + r.length;
    *order = end < n && s[end] > s[end - r.period];
    return r.start + min_rotation(s + r.start, r.period, *order);
}

typedef struct keyed {
    frun r;
    int32_t root; /* first Lyndon root */
    int order;
} keyed;

static int cmp_root(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    return (x->root > y->root) - (x->root < y->root);
}

static int cmp_val(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (*x > *y) - (*x < *y);
}

/* fold_runs_linear on s[0..n) with its symbols renamed 0..k-1 in the same
 * order (the same runs in the same order), for a short sequence over a
 * large alphabet, whose suffix sorting would otherwise walk all of it */
static int runs_renamed(const int32_t *s, int32_t n, frun **out, int64_t *nout)
{
    int64_t *v = malloc(((size_t)n ? (size_t)n : 1) * sizeof *v); /* value << 32 | position */
    int32_t *t = malloc(((size_t)n ? (size_t)n : 1) * sizeof *t);
    if (!v || !t) {
        free(v), free(t);
        return -1;
    }
    for (int32_t i = 0; i < n; i++)
        v[i] = (int64_t)s[i] << 32 | i;
    qsort(v, (size_t)n, sizeof *v, cmp_val);
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++) {
        if (i > 0 && v[i] >> 32 != v[i - 1] >> 32)
            k++;
        t[(int32_t)(v[i] & 0xffffffff)] = k;
    }
    free(v);
    int rc = fold_runs_linear(t, n, k + 1, out, nout);
    free(t);
    return rc;
}

int fold_runs_split(const int32_t *s, int32_t n, int32_t k, fscratch *w, frun **out, int64_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (n < SPLIT_MIN)
        return k > 4 * n + 64 ? runs_renamed(s, n, out, nout) : fold_runs_linear_in(s, n, k, w, out, nout);
    /* seen[x]: 0, 1 or 2 for x seen never, once or more; counted in four
     * tables, a position in each in turn (a symbol back a few positions
     * later does not wait for its count's store), then summed */
    uint8_t *seen = calloc(4 * ((size_t)k ? (size_t)k : 1), 1);
    if (!seen)
        return -1;
    int32_t i4 = 0;
    for (; i4 + 4 <= n; i4 += 4)
        for (int32_t t = 0; t < 4; t++) {
            uint8_t *c = &seen[(size_t)t * (size_t)k + (size_t)s[i4 + t]];
            *c += *c < 2;
        }
    for (; i4 < n; i4++)
        seen[s[i4]] += seen[s[i4]] < 2;
    int32_t once = 0;
    for (int32_t x = 0; x < k; x++) {
        int v = seen[x] + seen[k + x] + seen[2 * (size_t)k + x] + seen[3 * (size_t)k + x];
        seen[x] = (uint8_t)(v < 2 ? v : 2);
        once += v == 1;
    }
    if (once == 0) {
        free(seen);
        int rc = fold_runs_periodic(s, n, k, out, nout);
        return rc > 0 ? fold_runs_linear_in(s, n, k, w, out, nout) : rc;
    }
    int32_t *map = malloc((size_t)k * sizeof *map);
    frlist piece = {0}, nat = {0}, inv = {0};
    keyed *kr = NULL;
    int64_t kcap = 0;
    int32_t *tmp = NULL, tcap = 0;
    if (!map)
        goto fail;
    for (int32_t x = 0; x < k; x++)
        map[x] = -1;
    for (int32_t a = 0; a < n;) {
        if (seen[s[a]] == 1) {
            a++;
            continue;
        }
        int32_t b = a + 1;
        while (b < n && seen[s[b]] != 1)
            b++;
        /* the piece [a, b) */
        piece.n = 0;
        if (b - a <= DIRECT_MAX) {
            if (runs_direct(s + a, b - a, a, &piece))
                goto fail;
        } else {
            int32_t len = b - a, kp = 0;
            if (len > tcap) {
                int32_t *t = realloc(tmp, (size_t)len * sizeof *t);
                if (!t)
                    goto fail;
                tmp = t;
                tcap = len;
            }
            for (int32_t i = 0; i < len; i++) {
                int32_t x = s[a + i];
                if (map[x] < 0)
                    map[x] = kp++;
                tmp[i] = map[x];
            }
            for (int32_t i = 0; i < len; i++)
                map[s[a + i]] = -1;
            frun *r = NULL;
            int64_t nr = 0;
            int rc = fold_runs_periodic(tmp, len, kp, &r, &nr);
            if (rc > 0)
                rc = fold_runs_linear(tmp, len, kp, &r, &nr);
            if (rc)
                goto fail;
            for (int64_t i = 0; i < nr; i++)
                if (fold_frlist_push(&piece, (frun){r[i].start + a, r[i].period, r[i].length})) {
                    free(r);
                    goto fail;
                }
            free(r);
        }
        if (piece.n > kcap) {
            keyed *t = realloc(kr, (size_t)piece.n * sizeof *t);
            if (!t)
                goto fail;
            kr = t;
            kcap = piece.n;
        }
        for (int64_t i = 0; i < piece.n; i++) {
            int order;
            int32_t root = fold_run_root(s, n, piece.r[i], &order);
            kr[i] = (keyed){piece.r[i], root, order};
        }
        if (piece.n > 1)
            qsort(kr, (size_t)piece.n, sizeof *kr, cmp_root);
        for (int64_t i = 0; i < piece.n; i++)
            if (fold_frlist_push(kr[i].order ? &inv : &nat, kr[i].r))
                goto fail;
        a = b;
    }
    if (nat.n + inv.n > 0) {
        if (nat.n + inv.n > nat.cap) {
            frun *t = realloc(nat.r, (size_t)(nat.n + inv.n) * sizeof *t);
            if (!t)
                goto fail;
            nat.r = t;
        }
        if (inv.n)
            memcpy(nat.r + nat.n, inv.r, (size_t)inv.n * sizeof *inv.r);
    }
    *out = nat.r;
    *nout = nat.n + inv.n;
    free(seen), free(map), free(piece.r), free(inv.r), free(kr), free(tmp);
    return 0;
fail:
    free(seen), free(map), free(piece.r), free(nat.r), free(inv.r), free(kr), free(tmp);
    return -1;
}
