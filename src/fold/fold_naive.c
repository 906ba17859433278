/* The quadratic methods: every run by direct comparison (the oracle the
 * fast finders are tested against), and the two O(n^2) baselines Zhang et
 * al. compare with ("Parallel Job Performance Prediction Based on the Case
 * Reconstruction", Journal of Software 2010, Tables 4-5, from Xu and
 * Subhlok; docs/folding.md, `topdown` and `bottomup`). Their own description
 * could not be found, so these are the natural quadratic scans: top-down
 * tries the longest period first, bottom-up the shortest; each folds a
 * repeat as soon as it sees one and starts over until nothing repeats. */
#include <stdlib.h>
#include <string.h>

#include "fold_internal.h"

int fold_runs_naive(const int32_t *s, int32_t n, frun **out, int64_t *nout)
{
    psk_intern *seen = psk_intern_new();
    int64_t cap = 16, m = 0;
    frun *r = malloc((size_t)cap * sizeof *r);
    if (!seen || !r)
        goto fail;
    for (int32_t p = 1; 2 * p <= n; p++) {
        int32_t a = 0;
        while (a + p < n) {
            if (s[a] != s[a + p]) {
                a++;
                continue;
            }
            int32_t b = a;
            while (b + p < n && s[b] == s[b + p])
                b++;
            /* s[j] == s[j + p] for j in [a, b): [a, b + p) has period p */
            if (b - a >= p) {
                int32_t key[2] = {a, b + p - a};
                int added;
                if (psk_intern_id(seen, key, sizeof key, &added) < 0)
                    goto fail;
                if (added) { /* a smaller period did not give this interval */
                    if (m == cap) {
                        frun *t = realloc(r, (size_t)(cap *= 2) * sizeof *r);
                        if (!t)
                            goto fail;
                        r = t;
                    }
                    r[m++] = (frun){a, p, b + p - a};
                }
            }
            a = b + 1;
        }
    }
    psk_intern_free(seen);
    *out = r;
    *nout = m;
    return 0;
fail:
    psk_intern_free(seen);
    free(r);
    return -1;
}

/* folds s[i .. i + k * p) into one loop (body folded recursively) */
static int fold_at(fgrammar *g, int32_t *s, int32_t *n, int32_t i, int32_t p, int64_t k)
{
    int32_t *body = malloc((size_t)p * sizeof *body);
    if (!body)
        return -1;
    memcpy(body, s + i, (size_t)p * sizeof *body);
    int32_t bn = p;
    int rc = fold_sequence(g, body, &bn);
    int64_t x = rc ? -1 : fgrammar_loop(g, body, bn, k);
    free(body);
    if (x < 0)
        return -1;
    s[i] = (int32_t)x;
    int32_t from = (int32_t)(i + k * p);
    memmove(s + i + 1, s + from, (size_t)(*n - from) * sizeof *s);
    *n -= (int32_t)(k * p - 1);
    return 0;
}

static int same(const int32_t *a, const int32_t *b, int32_t p)
{
    return !memcmp(a, b, (size_t)p * sizeof *a);
}

/* one scan at period p: fold every repeat of period p met left to right */
static int scan(fgrammar *g, int32_t *s, int32_t *n, int32_t p, int *changed)
{
    for (int32_t i = 0; i + 2 * p <= *n; i++) {
        if (s[i] != s[i + p] || !same(s + i, s + i + p, p))
            continue;
        int64_t k = 2;
        while (i + (k + 1) * p <= *n && same(s + i, s + i + k * p, p))
            k++;
        if (fold_at(g, s, n, i, p, k))
            return -1;
        *changed = 1;
    }
    return 0;
}

int fold_topdown(fgrammar *g, int32_t *s, int32_t *n)
{
    for (int changed = 1; changed;) {
        changed = 0;
        for (int32_t p = *n / 2; p >= 1 && !changed; p--)
            if (scan(g, s, n, p, &changed))
                return -1;
        g->rounds += changed;
    }
    return 0;
}

int fold_bottomup(fgrammar *g, int32_t *s, int32_t *n)
{
    for (int changed = 1; changed;) {
        changed = 0;
        for (int32_t p = 1; 2 * p <= *n; p++)
            if (scan(g, s, n, p, &changed))
                return -1;
        g->rounds += changed;
    }
    return 0;
}
