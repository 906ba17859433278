/* Every run of a sequence in linear time, by the Runs Theorem (Bannai, I,
 * Inenaga, Nakashima, Takeda and Tsuruta, SIAM J. Comput. 2017): every run
 * of period p contains a Lyndon root, a Lyndon word of length p that is the
 * longest Lyndon word starting where it starts, under the order in which
 * the symbol ending the run is smaller than the one a period before it.
 * So: Lyndon arrays for the natural order (next smaller suffix, from the
 * inverse suffix array) and for the inverted one (the same with suffixes
 * compared in inverted symbol order by one LCE query each, on a stack);
 * then for each position and order with p = lambda[i], extend forward by an
 * LCE query and backward by scanning at most p symbols. A run is reported
 * from its first Lyndon root only (backward extension < p), and only in its
 * own order, so exactly once, with no candidate list to sort. */
#include <stdlib.h>

#include "fold_internal.h"
#include "fold_suffix.h"
#include "psk_mem.h"

/* suffix i before suffix j in the inverted symbol order (end smallest) */
static int inv_less(const sfx_lce *L, const int32_t *s, int32_t n, int32_t i, int32_t j)
{
    int32_t l = sfx_lce_query(L, i, j);
    if (i + l == n)
        return 1;
    if (j + l == n)
        return 0;
    return s[i + l] > s[j + l];
}

static int push(frun **r, int64_t *m, int64_t *cap, frun x)
{
    if (*m == *cap) {
        int64_t c = *cap ? 2 * *cap : 64;
        frun *t = realloc(*r, (size_t)c * sizeof *t);
        if (!t)
            return -1;
        *r = t;
        *cap = c;
    }
    (*r)[(*m)++] = x;
    return 0;
}

int fold_runs_linear(const int32_t *s, int32_t n, int32_t k, frun **out, int64_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (n < 2)
        return 0;
    sfx_lce *L = NULL;
    /* the stack grows as needed: it is as deep as the longest chain of
     * increasing suffixes, usually far less than n (fewer fresh pages) */
    int32_t scap = n < 4096 ? n : 4096;
    int32_t *lam = psk_big_alloc((size_t)n * sizeof *lam), *stack = malloc((size_t)scap * sizeof *stack);
    frun *r = NULL;
    int64_t m = 0, cap = 0;
    if (!lam || !stack || sfx_lce_build(s, n, k, &L))
        goto fail;
    const int32_t *isa = sfx_lce_isa(L);
    for (int order = 0; order < 2; order++) {
        /* lambda[i] = next j > i whose suffix is smaller (in this order) */
        int32_t top = 0;
        for (int32_t i = n - 1; i >= 0; i--) {
            if (order == 0)
                while (top && isa[stack[top - 1]] > isa[i])
                    top--;
            else
                while (top && !inv_less(L, s, n, stack[top - 1], i))
                    top--;
            lam[i] = top ? stack[top - 1] - i : n - i;
            if (top == scap) {
                int32_t c = scap < n / 2 ? 2 * scap : n;
                int32_t *t = realloc(stack, (size_t)c * sizeof *t);
                if (!t)
                    goto fail;
                stack = t;
                scap = c;
            }
            stack[top++] = i;
        }
        for (int32_t i = 0; i < n; i++) {
            int32_t p = lam[i], j = i + p;
            if (j >= n)
                continue;
            int32_t f = sfx_lce_query(L, i, j);
            if (f == 0)
                continue; /* would need a backward extension of p */
            int32_t b = 0;
            while (b < p && i - 1 - b >= 0 && s[i - 1 - b] == s[j - 1 - b])
                b++;
            if (b >= p || b + f < p)
                continue; /* not the first root, or no square */
            int32_t end = j + f;
            /* reported in the order of the symbol ending the run */
            int mine = end == n ? order == 0 : order == 0 ? s[end] < s[end - p] : s[end] > s[end - p];
            if (mine && push(&r, &m, &cap, (frun){i - b, p, end - (i - b)}))
                goto fail;
        }
    }
    sfx_lce_free(L);
    free(lam);
    free(stack);
    *out = r;
    *nout = m;
    return 0;
fail:
    sfx_lce_free(L);
    free(lam);
    free(stack);
    free(r);
    return -1;
}
