/* The Phi-method LCP (Karkkainen, Manzini and Puglisi 2009) and longest
 * common extensions through range minima over LCP (fold_suffix.h); the
 * suffix array itself comes from fold_sais.c. */
#include <stdlib.h>
#include <string.h>

#include "fold_suffix.h"
#include "psk_mem.h"

/* sfx_lcp with phi[0..n) as its work array */
static void lcp_phi(const int32_t *T, const int32_t *SA, int32_t n, int32_t *LCP, int32_t *phi)
{
    phi[SA[0]] = -1;
    for (int32_t i = 1; i < n; i++)
        phi[SA[i]] = SA[i - 1];
    /* PLCP in text order: h drops by at most one per step */
    for (int32_t i = 0, h = 0; i < n; i++) {
        int32_t j = phi[i];
        if (j < 0) {
            phi[i] = 0;
            h = 0;
            continue;
        }
        while (i + h < n && j + h < n && T[i + h] == T[j + h])
            h++;
        phi[i] = h; /* phi becomes PLCP */
        if (h > 0)
            h--;
    }
    for (int32_t i = 0; i < n; i++)
        LCP[i] = phi[SA[i]];
    LCP[0] = 0;
}

int sfx_lcp(const int32_t *T, const int32_t *SA, int32_t n, int32_t *LCP)
{
    if (n == 0)
        return 0;
    int32_t *phi = psk_big_alloc((size_t)n * sizeof *phi);
    if (!phi)
        return -1;
    lcp_phi(T, SA, n, LCP, phi);
    free(phi);
    return 0;
}

#define BLOCK 32

struct sfx_lce {
    const int32_t *T;
    int32_t n, nb, levels;
    int32_t *sa, *isa, *lcp;
    int32_t *pre, *suf; /* minimum of lcp from its block's start to i / from i to its block's end */
    int32_t *sparse;    /* levels x nb: minima of 2^l blocks from each block */
};

void sfx_lce_free(sfx_lce *L)
{
    if (!L)
        return;
    free(L->sa), free(L->isa), free(L->lcp), free(L->pre), free(L->suf), free(L->sparse), free(L);
}

int sfx_lce_build(const int32_t *T, int32_t n, int32_t k, sfx_lce **out)
{
    sfx_lce *L = calloc(1, sizeof *L);
    *out = L;
    if (!L)
        return -1;
    L->T = T;
    L->n = n;
    size_t sz = (size_t)(n ? n : 1);
    L->sa = psk_big_alloc(sz * sizeof *L->sa);
    L->isa = psk_big_alloc(sz * sizeof *L->isa);
    L->lcp = psk_big_alloc(sz * sizeof *L->lcp);
    if (!L->sa || !L->isa || !L->lcp || sfx_sais(T, L->sa, n, k))
        goto fail;
    if (n) /* the inverse's array is the LCP's work array first */
        lcp_phi(T, L->sa, n, L->lcp, L->isa);
    for (int32_t i = 0; i < n; i++)
        L->isa[L->sa[i]] = i;
    L->nb = (n + BLOCK - 1) / BLOCK;
    L->levels = 1;
    while ((1 << L->levels) <= L->nb)
        L->levels++;
    L->sparse = psk_big_alloc((size_t)L->levels * (size_t)(L->nb ? L->nb : 1) * sizeof *L->sparse);
    L->pre = psk_big_alloc(sz * sizeof *L->pre);
    L->suf = psk_big_alloc(sz * sizeof *L->suf);
    if (!L->sparse || !L->pre || !L->suf)
        goto fail;
    for (int32_t i = 0; i < n; i++)
        L->pre[i] = i % BLOCK && L->pre[i - 1] < L->lcp[i] ? L->pre[i - 1] : L->lcp[i];
    for (int32_t i = n - 1; i >= 0; i--)
        L->suf[i] = (i + 1) % BLOCK && i + 1 < n && L->suf[i + 1] < L->lcp[i] ? L->suf[i + 1] : L->lcp[i];
    for (int32_t bl = 0; bl < L->nb; bl++) {
        int32_t m = INT32_MAX;
        for (int32_t i = bl * BLOCK; i < n && i < (bl + 1) * BLOCK; i++)
            m = L->lcp[i] < m ? L->lcp[i] : m;
        L->sparse[bl] = m;
    }
    for (int32_t l = 1; l < L->levels; l++) {
        int32_t *cur = L->sparse + (size_t)l * (size_t)L->nb, *prev = cur - L->nb;
        for (int32_t bl = 0; bl + (1 << l) <= L->nb; bl++) {
            int32_t a = prev[bl], b = prev[bl + (1 << (l - 1))];
            cur[bl] = a < b ? a : b;
        }
    }
    return 0;
fail:
    sfx_lce_free(L);
    *out = NULL;
    return -1;
}

static int32_t scan_min(const int32_t *a, int32_t lo, int32_t hi)
{
    int32_t m = a[lo];
    for (int32_t i = lo + 1; i <= hi; i++)
        m = a[i] < m ? a[i] : m;
    return m;
}

/* minimum of lcp[lo..hi] */
static int32_t range_min(const sfx_lce *L, int32_t lo, int32_t hi)
{
    int32_t bl = lo / BLOCK, bh = hi / BLOCK;
    if (bl == bh)
        return scan_min(L->lcp, lo, hi);
    int32_t m = L->suf[lo] < L->pre[hi] ? L->suf[lo] : L->pre[hi];
    if (bh - bl == 1)
        return m;
    int32_t a = bl + 1, b = bh - 1; /* whole blocks a..b */
    int32_t l = 31 - __builtin_clz((uint32_t)(b - a + 1));
    const int32_t *lv = L->sparse + (size_t)l * (size_t)L->nb;
    int32_t x = lv[a], y = lv[b - (1 << l) + 1];
    x = x < y ? x : y;
    return x < m ? x : m;
}

int32_t sfx_lce_query(const sfx_lce *L, int32_t i, int32_t j)
{
    if (i == j)
        return L->n - i;
    if (i >= L->n || j >= L->n)
        return 0;
    /* short extensions are the common case: compare a few symbols first */
    const int32_t *T = L->T;
    int32_t lim = L->n - (i > j ? i : j), d = 0;
    while (d < 8 && d < lim && T[i + d] == T[j + d])
        d++;
    if (d < 8 || d == lim)
        return d;
    int32_t a = L->isa[i], b = L->isa[j];
    if (a > b) {
        int32_t t = a;
        a = b;
        b = t;
    }
    return range_min(L, a + 1, b);
}

const int32_t *sfx_lce_sa(const sfx_lce *L) { return L->sa; }
const int32_t *sfx_lce_isa(const sfx_lce *L) { return L->isa; }
