/* Beside the folding algorithms, what they are checked against: the exact
 * optimum of the folded length by interval dynamic programming (a span
 * folds to the best split of it, or, when it is w^k, to the best folding
 * of w), and the random nested-loop programs the quality is measured on. */
#include <stdlib.h>
#include <string.h>

#include "fold_internal.h"

int64_t psk_fold_optimal_length(const int32_t *s, int32_t n)
{
    if (n <= 0)
        return 0;
    /* per[i][len]: smallest p such that s[i..i+len) = w^(len/p), |w| = p
     * (p = len if none): from the failure function of each suffix */
    size_t N = (size_t)n + 1;
    int32_t *per = malloc(N * N * sizeof *per), *fail = malloc(N * sizeof *fail);
    int32_t *f = malloc(N * N * sizeof *f); /* f[i * N + len] */
    if (!per || !fail || !f) {
        free(per), free(fail), free(f);
        return -1;
    }
    for (int32_t i = 0; i < n; i++) {
        const int32_t *t = s + i;
        int32_t m = n - i;
        fail[0] = -1;
        for (int32_t q = 1, k = -1; q <= m; q++) {
            while (k >= 0 && t[k] != t[q - 1])
                k = fail[k];
            fail[q] = ++k;
        }
        /* fail[q] = longest proper border of t[0..q) */
        for (int32_t len = 1; len <= m; len++) {
            int32_t p = len - fail[len];
            per[(size_t)i * N + (size_t)len] = (len % p == 0 && len / p >= 2) ? p : len;
        }
    }
    for (int32_t len = 1; len <= n; len++)
        for (int32_t i = 0; i + len <= n; i++) {
            int32_t best = len;
            if (len == 1) {
                f[(size_t)i * N + 1] = 1;
                continue;
            }
            int32_t p = per[(size_t)i * N + (size_t)len];
            if (p < len && f[(size_t)i * N + (size_t)p] < best)
                best = f[(size_t)i * N + (size_t)p];
            for (int32_t m = 1; m < len && best > 2; m++) {
                int32_t v = f[(size_t)i * N + (size_t)m] + f[(size_t)(i + m) * N + (size_t)(len - m)];
                if (v < best)
                    best = v;
            }
            f[(size_t)i * N + (size_t)len] = best;
        }
    int64_t r = f[(size_t)n];
    free(per), free(fail), free(f);
    return r;
}

static uint64_t next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static int64_t gen_seq(const psk_fold_gen *p, uint64_t *rng, int depth, int32_t *out, int64_t cap, int64_t at)
{
    int items = 1 + (int)(next(rng) % (uint64_t)p->max_items);
    for (int i = 0; i < items; i++) {
        if (depth < p->max_depth && (int)(next(rng) % 100) < p->loop_pct) {
            int64_t iters = p->min_iter + (int64_t)(next(rng) % (uint64_t)(p->max_iter - p->min_iter + 1));
            int64_t body = at;
            at = gen_seq(p, rng, depth + 1, out, cap, at);
            int64_t len = at - body;
            for (int64_t k = 1; k < iters; k++) {
                for (int64_t j = 0; j < len; j++) {
                    if (at < cap && body + j < cap)
                        out[at] = out[body + j];
                    at++;
                }
            }
        } else {
            if (at < cap)
                out[at] = (int32_t)(next(rng) % (uint64_t)p->alphabet);
            at++;
        }
    }
    return at;
}

int64_t psk_fold_generate(const psk_fold_gen *p, uint64_t *rng, int32_t *out, int64_t cap)
{
    return gen_seq(p, rng, 0, out, cap, 0);
}
