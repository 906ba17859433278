/* Every run of a sequence in linear time, by the Runs Theorem (Bannai, I,
 * Inenaga, Nakashima, Takeda and Tsuruta, SIAM J. Comput. 2017): every run
 * of period p contains a Lyndon root, a Lyndon word of length p that is the
 * longest Lyndon word starting where it starts, under the order in which
 * the symbol ending the run is smaller than the one a period before it.
 * So: Lyndon arrays lambda[i] (the next suffix j > i smaller than suffix
 * i) for the natural order and for the inverted one; then for each
 * position and order with p = lambda[i], extend forward by comparing
 * suffixes i and i + p and backward by scanning at most p symbols. A run
 * is reported from its first Lyndon root only (backward extension < p),
 * and only in its own order, so exactly once, with no candidate list to
 * sort: all runs of the natural order by that root, then all of the
 * inverted one.
 *
 * Both Lyndon arrays come from the inverse suffix array, in one pass from
 * the right with a stack each. The natural order's is the next smaller
 * value of the inverse. In the inverted order a later (shorter) suffix j
 * is smaller than suffix i when it sorts after it in the natural order or
 * is a prefix of it (the end is smallest in both orders): the nearer of
 * the next greater value of the inverse and the start of suffix i's
 * longest border, which the prefix function of the reversed sequence
 * gives (computed in the same pass, from the right).
 *
 * Forward extensions compare symbols directly: the first root of a run
 * costs its length; any other position is mostly dropped after a symbol,
 * a backward scan, or the last symbol a square would need (a common
 * extension that makes no run stops before it as a rule). Should that
 * work pass 32 n (inputs made of long near-repeats), the rest are longest
 * common extension queries through range minima over the LCP array
 * (fold_suffix.h), built then. */
#include <stdlib.h>
#include <string.h>

#include "fold_internal.h"
#include "fold_suffix.h"
#include "psk_mem.h"

int fold_frlist_push(frlist *l, frun x)
{
    if (l->n == l->cap) {
        int64_t c = l->cap ? 2 * l->cap : 64;
        frun *t = realloc(l->r, (size_t)c * sizeof *t);
        if (!t)
            return -1;
        l->r = t;
        l->cap = c;
    }
    l->r[l->n++] = x;
    return 0;
}

typedef struct stk { /* a growable stack of positions and their ranks */
    int32_t *v, *rank, top, cap;
} stk;

static int stk_push(stk *st, int32_t x, int32_t rank)
{
    if (st->top == st->cap) {
        int32_t c = st->cap ? 2 * st->cap : 1024;
        int32_t *t = realloc(st->v, (size_t)c * sizeof *t);
        if (!t)
            return -1;
        st->v = t;
        t = realloc(st->rank, (size_t)c * sizeof *t);
        if (!t)
            return -1;
        st->rank = t;
        st->cap = c;
    }
    st->rank[st->top] = rank;
    st->v[st->top++] = x;
    return 0;
}

typedef struct fwd { /* forward extensions: direct, then by queries */
    const int32_t *s;
    int32_t n, k;
    int64_t work, budget; /* symbols compared, and how many before queries */
    sfx_lce *L;
} fwd;

/* the longest common prefix of suffixes i < j; -1 if memory runs out */
static int32_t forward(fwd *e, int32_t i, int32_t j)
{
    if (e->L)
        return sfx_lce_query(e->L, i, j);
    const int32_t *s = e->s;
    int32_t lim = e->n - j, d = 0;
    /* eight symbols at a time while they match, then one by one */
    while (d + 8 <= lim) {
        uint64_t x[4], y[4];
        memcpy(x, s + i + d, sizeof x);
        memcpy(y, s + j + d, sizeof y);
        if ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]))
            break;
        d += 8;
    }
    while (d < lim && s[i + d] == s[j + d])
        d++;
    e->work += d;
    if (e->work > e->budget && sfx_lce_build(s, e->n, e->k, &e->L))
        return -1;
    return d;
}

/* the run whose first Lyndon root in `order` starts at i, if any, with
 * p = lambda[i] in that order: 1 if *r is one, 0 if not, -1 on no memory */
static int root_run(fwd *e, int32_t i, int32_t p, int order, frun *r)
{
    const int32_t *s = e->s;
    int32_t n = e->n, j = i + p;
    if (j >= n || s[i] != s[j])
        return 0; /* no forward extension: it would need a backward one of p */
    int32_t b = 0;
    while (b < p && i - 1 - b >= 0 && s[i - 1 - b] == s[j - 1 - b])
        b++;
    if (b >= p)
        return 0; /* not the first root */
    /* a square needs f >= p - b: the last symbol that asks for first (a
     * common extension that makes no run stops before it, mostly) */
    int32_t w = p - b;
    if (j + w - 1 >= n || s[i + w - 1] != s[j + w - 1])
        return 0;
    int32_t f = forward(e, i, j);
    if (f < 0)
        return -1;
    if (b + f < p)
        return 0; /* no square */
    int32_t end = j + f;
    /* reported in the order of the symbol ending the run */
    int mine = end == n ? order == 0 : order == 0 ? s[end] < s[end - p] : s[end] > s[end - p];
    if (!mine)
        return 0;
    *r = (frun){i - b, p, end - (i - b)};
    return 1;
}

static void reverse(frun *r, int64_t m)
{
    for (int64_t a = 0, z = m - 1; a < z; a++, z--) {
        frun t = r[a];
        r[a] = r[z];
        r[z] = t;
    }
}

int fold_runs_linear(const int32_t *s, int32_t n, int32_t k, frun **out, int64_t *nout)
{
    return fold_runs_linear_in(s, n, k, NULL, out, nout);
}

int fold_runs_linear_in(const int32_t *s, int32_t n, int32_t k, fscratch *w, frun **out, int64_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (n < 2)
        return 0;
    int32_t *sa = w ? fscratch_get(w, 0, n) : psk_big_alloc((size_t)n * sizeof *sa);
    int32_t *isa = w ? fscratch_get(w, 1, n) : psk_big_alloc((size_t)n * sizeof *isa);
    stk lo = {0}, hi = {0}; /* next smaller and next greater value stacks */
    frlist r[2] = {{0}};     /* the runs of each order, last root first */
    fwd e = {s, n, k, 0, 32 * (int64_t)n + 4096, NULL};
    if (!sa || !isa || sfx_sais(s, sa, n, k))
        goto fail;
    for (int32_t i = 0; i < n; i++) {
        if (i + 32 < n)
            __builtin_prefetch(&isa[sa[i + 32]], 1);
        isa[sa[i]] = i;
    }
    /* sa is now the prefix function of the reversed sequence: pi[q] the
     * longest border of its first q + 1 symbols, the suffix at n - 1 - q */
    int32_t *pi = sa;
    for (int32_t i = n - 1; i >= 0; i--) {
        int32_t q = n - 1 - i, h = 0;
        if (q > 0) {
            h = pi[q - 1];
            while (h > 0 && s[i] != s[n - 1 - h])
                h = pi[h - 1];
            h += s[i] == s[n - 1 - h];
        }
        pi[q] = h;
        int32_t x = isa[i];
        while (lo.top && lo.rank[lo.top - 1] > x)
            lo.top--;
        while (hi.top && hi.rank[hi.top - 1] < x)
            hi.top--;
        int32_t nat = lo.top ? lo.v[lo.top - 1] : n, inv = hi.top ? hi.v[hi.top - 1] : n;
        if (h > 0 && n - h < inv)
            inv = n - h; /* suffix n - h, a prefix of suffix i */
        if (stk_push(&lo, i, x) || stk_push(&hi, i, x))
            goto fail;
        int32_t lam[2] = {nat - i, inv - i};
        for (int order = 0; order < 2; order++) {
            frun x;
            int rc = root_run(&e, i, lam[order], order, &x);
            if (rc < 0 || (rc && fold_frlist_push(&r[order], x)))
                goto fail;
        }
    }
    sfx_lce_free(e.L);
    if (!w)
        free(sa), free(isa);
    free(lo.v), free(lo.rank), free(hi.v), free(hi.rank);
    reverse(r[0].r, r[0].n);
    reverse(r[1].r, r[1].n);
    if (r[1].n) {
        if (r[0].n + r[1].n > r[0].cap) {
            frun *t = realloc(r[0].r, (size_t)(r[0].n + r[1].n) * sizeof *t);
            if (!t) {
                free(r[0].r), free(r[1].r);
                return -1;
            }
            r[0].r = t;
        }
        for (int64_t i = 0; i < r[1].n; i++)
            r[0].r[r[0].n + i] = r[1].r[i];
    }
    free(r[1].r);
    *out = r[0].r;
    *nout = r[0].n + r[1].n;
    return 0;
fail:
    sfx_lce_free(e.L);
    if (!w)
        free(sa), free(isa);
    free(lo.v), free(lo.rank), free(hi.v), free(hi.rank), free(r[0].r), free(r[1].r);
    return -1;
}
