/* SA-IS suffix sorting (Nong, Zhang and Chan 2009) over an integer
 * alphabet, the Phi-method LCP (Karkkainen, Manzini and Puglisi 2009), and
 * longest common extensions through range minima over LCP (fold_suffix.h).
 * SA-IS: classify suffixes S or L, sort the LMS substrings by induced
 * sorting, name them, recurse if names repeat, then induce the whole order
 * from the sorted LMS suffixes. The end of the text is a virtual sentinel
 * smaller than every symbol. */
#include <stdlib.h>
#include <string.h>

#include "fold_suffix.h"
#include "psk_mem.h"

/* Induced sorting keeps no type array: an entry of SA carries in its sign
 * whether the suffix before it is still to be induced. In the L pass, x > 0
 * is suffix x whose predecessor x - 1 is L type (induced when x is read),
 * ~x suffix x whose predecessor is S type or absent; the S pass reads that
 * ~x as "induce x - 1". 0 is an empty slot (suffix 0 always goes in as
 * ~0). A suffix's type follows from its successor's: before an L suffix j,
 * j - 1 is L iff T[j - 1] >= T[j]; before an S suffix, S iff T[j - 1] <=
 * T[j]. With `plain` the S pass leaves each entry as its position once
 * read; without, it sorts the LMS substrings (stage 1): every entry is
 * cleared once read, except those the S pass wrote positive, the S
 * suffixes after an L one: the LMS suffixes, in order. The scans' reads of
 * T (and the naming's of the LMS substrings) miss the cache: prefetched
 * some entries ahead. */
#define AHEAD 32

/* bucket starts (end = 0) or ends (end = 1) of each symbol */
static void buckets(const int32_t *cnt, int32_t *b, int32_t k, int end)
{
    int32_t sum = 0;
    for (int32_t c = 0; c < k; c++) {
        sum += cnt[c];
        b[c] = end ? sum : sum - cnt[c];
    }
}

/* L pass: from the LMS suffixes (x > 0 each, at their buckets' ends), the
 * L suffixes in order; b: bucket starts */
static inline void induce_l(const int32_t *T, int32_t *SA, int32_t n, int32_t *b, int plain)
{
    /* the suffix before the sentinel is L type: it comes first in its bucket */
    int32_t j = n - 1;
    SA[b[T[j]]++] = j > 0 && T[j - 1] >= T[j] ? j : ~j;
    for (int32_t i = 0; i < n; i++) {
        if (i + AHEAD < n) {
            int32_t y = SA[i + AHEAD];
            if (y > 0)
                __builtin_prefetch(&T[y - 1]);
        }
        int32_t x = SA[i];
        if (x > 0) {
            j = x - 1;
            int32_t c = T[j];
            int32_t v = j > 0 && T[j - 1] >= c ? j : ~j;
            if (v > 0) /* read again soon, maybe before AHEAD */
                __builtin_prefetch(&T[v - 1]);
            SA[b[c]++] = v;
            if (!plain)
                SA[i] = 0;
        }
    }
}

/* S pass, right to left; b: bucket ends */
static inline void induce_s(const int32_t *T, int32_t *SA, int32_t n, int32_t *b, int plain)
{
    for (int32_t i = n - 1; i >= 0; i--) {
        if (i >= AHEAD) {
            int32_t y = SA[i - AHEAD];
            if (y < -1)
                __builtin_prefetch(&T[~y - 1]);
        }
        int32_t x = SA[i];
        if (x < 0) {
            x = ~x;
            SA[i] = plain ? x : 0;
            if (x > 0) {
                int32_t j = x - 1, c = T[j];
                int32_t v = j > 0 && T[j - 1] <= c ? ~j : j;
                if (v < -1)
                    __builtin_prefetch(&T[~v - 1]);
                SA[--b[c]] = v;
            }
        }
    }
}

static int sais(const int32_t *T, int32_t *SA, int32_t n, int32_t k)
{
    if (n == 0)
        return 0;
    if (n == 1) {
        SA[0] = 0;
        return 0;
    }
    int32_t *cnt = psk_big_alloc((size_t)k * sizeof *cnt), *b = psk_big_alloc((size_t)k * sizeof *b);
    if (!cnt || !b) {
        free(cnt), free(b);
        return -1;
    }
    memset(cnt, 0, (size_t)k * sizeof *cnt);
    for (int32_t i = 0; i < n; i++)
        cnt[T[i]]++;
    /* stage 1: LMS suffixes into their buckets' ends (types from the
     * right: T[n-1] is L, the sentinel being smaller), induce */
    for (int32_t i = 0; i < n; i++)
        SA[i] = 0;
    buckets(cnt, b, k, 1);
    int32_t m = 0;
    for (int32_t i = n - 2, snext = 0; i >= 0; i--) {
        int si = T[i] < T[i + 1] || (T[i] == T[i + 1] && snext);
        if (!si && snext) {
            SA[--b[T[i + 1]]] = i + 1;
            m++;
        }
        snext = si;
    }
    buckets(cnt, b, k, 0);
    induce_l(T, SA, n, b, 0);
    buckets(cnt, b, k, 1);
    induce_s(T, SA, n, b, 0);
    /* the LMS substrings, sorted, to the front */
    for (int32_t i = 0, j = 0; i < n; i++)
        if (SA[i] > 0)
            SA[j++] = SA[i];
    /* each one's length to SA[m + p / 2] (LMS positions are at least 2
     * apart), the last one's (it holds the sentinel: like no other) n + 1;
     * two are equal if their lengths and symbols are (their types follow) */
    for (int32_t i = m; i < n; i++)
        SA[i] = -1;
    for (int32_t i = n - 2, snext = 0, q = n; i >= 0; i--) {
        int si = T[i] < T[i + 1] || (T[i] == T[i + 1] && snext);
        if (!si && snext) {
            SA[m + (i + 1) / 2] = q == n ? n + 1 : q - i;
            q = i + 1;
        }
        snext = si;
    }
    int32_t name = 0, prev = -1, plen = 0;
    for (int32_t i = 0; i < m; i++) {
        if (i + AHEAD < m) {
            int32_t y = SA[i + AHEAD];
            __builtin_prefetch(&T[y]);
            __builtin_prefetch(&SA[m + y / 2]);
        }
        int32_t pos = SA[i], len = SA[m + pos / 2], d = 0;
        if (len == plen && len <= n)
            while (d < len && T[pos + d] == T[prev + d])
                d++;
        if (prev < 0 || len != plen || len > n || d < len) {
            name++;
            prev = pos;
            plen = len;
        }
        SA[m + pos / 2] = name - 1;
    }
    /* the reduced string: names in text order, packed at the end of SA
     * (m <= n / 2: its suffix array fits before it, in SA[0, m)) */
    int32_t *s1 = SA + n - m, *sa1 = SA;
    for (int32_t i = n - 1, j = n - 1; i >= m; i--)
        if (SA[i] >= 0)
            SA[j--] = SA[i];
    /* stage 2: sort the LMS suffixes, recursing if names repeat */
    if (name < m) {
        if (sais(s1, sa1, m, name)) {
            free(cnt), free(b);
            return -1;
        }
    } else {
        for (int32_t i = 0; i < m; i++)
            sa1[s1[i]] = i;
    }
    /* stage 3: LMS positions in sorted order, then induce everything */
    for (int32_t i = n - 2, snext = 0, j = m; i >= 0; i--) {
        int si = T[i] < T[i + 1] || (T[i] == T[i + 1] && snext);
        if (!si && snext)
            s1[--j] = i + 1; /* s1 now: the j-th LMS position */
        snext = si;
    }
    for (int32_t i = 0; i < m; i++) {
        if (i + AHEAD < m)
            __builtin_prefetch(&s1[sa1[i + AHEAD]]);
        sa1[i] = s1[sa1[i]];
    }
    for (int32_t i = m; i < n; i++)
        SA[i] = 0;
    buckets(cnt, b, k, 1);
    /* the i-th LMS suffix goes to position i or later: moved from the
     * last, none is overwritten before it moves */
    for (int32_t i = m - 1; i >= 0; i--) {
        if (i >= AHEAD)
            __builtin_prefetch(&T[sa1[i - AHEAD]]);
        int32_t j = sa1[i];
        SA[i] = 0;
        SA[--b[T[j]]] = j;
    }
    buckets(cnt, b, k, 0);
    induce_l(T, SA, n, b, 1);
    buckets(cnt, b, k, 1);
    induce_s(T, SA, n, b, 1);
    free(cnt), free(b);
    return 0;
}

int sfx_sais(const int32_t *T, int32_t *SA, int32_t n, int32_t k)
{
    return sais(T, SA, n, k);
}

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
