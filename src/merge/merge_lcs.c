/* Pairwise alignment for the merge: a rank's calls (a) against the merged
 * list (b) as a longest common subsequence: b's calls skipped freely, each
 * unmatched call of a an event of its own. DP layers counting unmatched
 * calls (O(m (e + 1)), Nakatsu et al. 1982) with b searched through per-key
 * position lists, so long skips stay linear; past their cost, bit vectors
 * (O(m n / 64), Allison-Dix / Hyyro). Both keep O(sqrt) of their rows and
 * recompute the rest going back. Calls whose key b lacks never enter. */
#include <stdlib.h>
#include <string.h>

#include "merge_internal.h"

#define NONE UINT32_MAX
/* DP cells kept at once (16 MiB) */
#define LCS_KEEP (1u << 22)

struct lcs_ws {
    const keymatch *km;
    uint32_t stamp;
    /* per key (exact, loose, loose with a PROC_NULL node): where its
     * positions start in the pool and how many; valid where stamp matches */
    uint32_t *kst, *kstart, *klen;
    uint32_t *lst, *lstart, *llen, *nstart, *nlen; /* nulls share lst */
    uint32_t *touched, *ltouched; /* distinct (loose) keys of b */
    /* per (loose) key, where the last forward query of this DP layer
     * stopped in its list; valid where the layer stamp matches */
    uint32_t lstamp, *kcs, *kcur, *lcs, *lcur, *ncs, *ncur;
    uint32_t *pool, *lpool, *npool;
    size_t bcap;
    const uint32_t *b; /* the indexed keys */
    uint32_t n;
    uint32_t *ai; /* a's calls that may match, as indices into a */
    size_t acap;
    uint32_t *L, *blk; /* the DP's kept layers, and a block of them */
    size_t Lcap, blkcap;
    uint64_t cells;    /* DP cells the last alignment computed going forward */
    uint64_t *bits;    /* bit vectors: a mask per key of a, then a row per call */
    size_t bitscap;
    uint32_t mstamp, *kms, *kmi; /* per key: stamp and index of its mask */
    uint32_t *dk;      /* the distinct keys of a */
    size_t dkcap;
    int force;         /* tests: 1 layers only, 2 bit vectors only */
};

lcs_ws *lcs_new(const keymatch *km)
{
    lcs_ws *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->km = km;
    size_t nk = km->nkeys ? km->nkeys : 1, nl = km->nloose ? km->nloose : 1;
    w->kst = calloc(nk, sizeof *w->kst);
    w->kstart = malloc(nk * sizeof *w->kstart);
    w->klen = malloc(nk * sizeof *w->klen);
    w->touched = malloc(nk * sizeof *w->touched);
    w->kcs = calloc(nk, sizeof *w->kcs);
    w->kms = calloc(nk, sizeof *w->kms);
    w->kmi = malloc(nk * sizeof *w->kmi);
    w->kcur = malloc(nk * sizeof *w->kcur);
    if (km->anynull) {
        w->lst = calloc(nl, sizeof *w->lst);
        w->lstart = malloc(nl * sizeof *w->lstart);
        w->llen = malloc(nl * sizeof *w->llen);
        w->nstart = malloc(nl * sizeof *w->nstart);
        w->lcs = calloc(nl, sizeof *w->lcs);
        w->lcur = malloc(nl * sizeof *w->lcur);
        w->ncs = calloc(nl, sizeof *w->ncs);
        w->ncur = malloc(nl * sizeof *w->ncur);
        w->nlen = malloc(nl * sizeof *w->nlen);
    }
    if (!w->kst || !w->kstart || !w->klen || !w->touched || !w->kcs || !w->kcur || !w->kms || !w->kmi ||
        (km->anynull && (!w->lst || !w->lstart || !w->llen || !w->nstart || !w->nlen || !w->lcs || !w->lcur ||
                         !w->ncs || !w->ncur))) {
        lcs_free(w);
        return NULL;
    }
    return w;
}

void lcs_free(lcs_ws *w)
{
    if (!w)
        return;
    free(w->kst);
    free(w->kstart);
    free(w->klen);
    free(w->lst);
    free(w->lstart);
    free(w->llen);
    free(w->nstart);
    free(w->nlen);
    free(w->touched);
    free(w->kcs);
    free(w->kms);
    free(w->kmi);
    free(w->bits);
    free(w->dk);
    free(w->kcur);
    free(w->lcs);
    free(w->lcur);
    free(w->ncs);
    free(w->ncur);
    free(w->ltouched);
    free(w->pool);
    free(w->lpool);
    free(w->npool);
    free(w->ai);
    free(w->L);
    free(w->blk);
    free(w);
}

/* Lays out one position list per key of b (counting sort): lists come out
 * ascending. With PROC_NULL about, also per loose key: all of b's calls,
 * and those passing PROC_NULL. */
int lcs_index(lcs_ws *w, const uint32_t *b, uint32_t n)
{
    w->b = b;
    w->n = n;
    const keymatch *km = w->km;
    size_t need = n ? n : 1, cap = w->bcap;
    if (MERGE_GROW(&w->pool, &cap, need))
        return -1;
    if (km->anynull) {
        size_t c2 = w->bcap, c3 = w->bcap, c4 = w->bcap;
        if (MERGE_GROW(&w->lpool, &c2, need) || MERGE_GROW(&w->npool, &c3, need) || MERGE_GROW(&w->ltouched, &c4, need))
            return -1;
    }
    w->bcap = cap;
    if (++w->stamp == 0) { /* wrapped: forget every old stamp */
        memset(w->kst, 0, (km->nkeys ? km->nkeys : 1) * sizeof *w->kst);
        if (km->anynull)
            memset(w->lst, 0, (km->nloose ? km->nloose : 1) * sizeof *w->lst);
        w->stamp = 1;
    }
    uint32_t s = w->stamp, nt = 0, nlt = 0;
    for (uint32_t y = 0; y < n; y++) {
        uint32_t k = b[y];
        if (w->kst[k] != s) {
            w->kst[k] = s;
            w->klen[k] = 0;
            w->touched[nt++] = k;
        }
        w->klen[k]++;
        if (km->anynull) {
            uint32_t l = km->loose[k];
            if (w->lst[l] != s) {
                w->lst[l] = s;
                w->llen[l] = w->nlen[l] = 0;
                w->ltouched[nlt++] = l;
            }
            w->llen[l]++;
            w->nlen[l] += km->hasnull[k];
        }
    }
    /* starts; the lengths count back up as the positions go in */
    uint32_t at = 0;
    for (uint32_t i = 0; i < nt; i++) {
        uint32_t k = w->touched[i];
        w->kstart[k] = at;
        at += w->klen[k];
        w->klen[k] = 0;
    }
    uint32_t lat = 0, nat = 0;
    for (uint32_t i = 0; i < nlt; i++) {
        uint32_t l = w->ltouched[i];
        w->lstart[l] = lat;
        lat += w->llen[l];
        w->llen[l] = 0;
        w->nstart[l] = nat;
        nat += w->nlen[l];
        w->nlen[l] = 0;
    }
    for (uint32_t y = 0; y < n; y++) {
        uint32_t k = b[y];
        w->pool[w->kstart[k] + w->klen[k]++] = y;
        if (km->anynull) {
            uint32_t l = km->loose[k];
            w->lpool[w->lstart[l] + w->llen[l]++] = y;
            if (km->hasnull[k])
                w->npool[w->nstart[l] + w->nlen[l]++] = y;
        }
    }
    return 0;
}

/* first entry >= y of the ascending list p[0..n), or NONE */
static uint32_t lower(const uint32_t *p, uint32_t n, uint32_t y)
{
    if (!n || p[n - 1] < y)
        return NONE;
    uint32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p[mid] < y)
            lo = mid + 1;
        else
            hi = mid;
    }
    return p[lo];
}

/* the first entry >= y of the ascending list p[0..n) from index *c on
 * (entries before *c are below y), galloping; moves *c there */
static uint32_t seek(const uint32_t *p, uint32_t n, uint32_t *c, uint32_t y)
{
    uint32_t i = *c;
    if (i < n && p[i] < y) {
        uint32_t step = 1;
        while (i + step < n && p[i + step] < y)
            i += step, step *= 2;
        uint32_t hi = i + step < n ? i + step : n; /* p[i] < y <= p[hi] */
        while (hi - i > 1) {
            uint32_t mid = i + (hi - i) / 2;
            if (p[mid] < y)
                i = mid;
            else
                hi = mid;
        }
        i = hi;
    }
    *c = i;
    return i < n ? p[i] : NONE;
}

/* b's first call in [y, y1) that a call of key k matches, or NONE. With
 * fwd, queries for one key come with y not decreasing (as in a DP layer,
 * whose L grows with x) and resume where the last one stopped. */
static uint32_t next_match(lcs_ws *w, uint32_t k, uint32_t y, uint32_t y1, int fwd)
{
    const keymatch *km = w->km;
    if (y >= y1)
        return NONE;
    if (keys_match(km, k, w->b[y])) /* in step: the common case */
        return y;
    uint32_t s = w->stamp, best = NONE;
    if (w->kst[k] == s) {
        if (!fwd) {
            best = lower(w->pool + w->kstart[k], w->klen[k], y);
        } else {
            if (w->kcs[k] != w->lstamp) {
                w->kcs[k] = w->lstamp;
                w->kcur[k] = 0;
            }
            best = seek(w->pool + w->kstart[k], w->klen[k], &w->kcur[k], y);
        }
    }
    if (km->anynull && w->lst[km->loose[k]] == s) {
        uint32_t l = km->loose[k], q;
        const uint32_t *list = km->hasnull[k] ? w->lpool + w->lstart[l] : w->npool + w->nstart[l];
        uint32_t n = km->hasnull[k] ? w->llen[l] : w->nlen[l];
        if (!fwd) {
            q = lower(list, n, y);
        } else {
            uint32_t *cs = km->hasnull[k] ? w->lcs : w->ncs, *cur = km->hasnull[k] ? w->lcur : w->ncur;
            if (cs[l] != w->lstamp) {
                cs[l] = w->lstamp;
                cur[l] = 0;
            }
            q = seek(list, n, &cur[l], y);
        }
        if (q < best)
            best = q;
    }
    return best < y1 ? best : NONE;
}

/* 1 if some call of b matches a call of key k */
static int in_b(const lcs_ws *w, uint32_t k)
{
    const keymatch *km = w->km;
    if (w->kst[k] == w->stamp)
        return 1;
    if (!km->anynull || w->lst[km->loose[k]] != w->stamp)
        return 0;
    return (km->hasnull[k] ? w->llen[km->loose[k]] : w->nlen[km->loose[k]]) > 0;
}

/* layer p of the DP from layer p - 1 (Lq; NULL for p = 0) */
static void dp_layer(lcs_ws *w, const uint32_t *a, uint32_t mm, uint32_t y0, uint32_t y1,
                     const uint32_t *Lq, uint32_t *Lp)
{
    if (++w->lstamp == 0) { /* wrapped: forget every cursor */
        memset(w->kcs, 0, (w->km->nkeys ? w->km->nkeys : 1) * sizeof *w->kcs);
        if (w->km->anynull) {
            memset(w->lcs, 0, (w->km->nloose ? w->km->nloose : 1) * sizeof *w->lcs);
            memset(w->ncs, 0, (w->km->nloose ? w->km->nloose : 1) * sizeof *w->ncs);
        }
        w->lstamp = 1;
    }
    Lp[0] = y0;
    for (uint32_t x = 1; x <= mm; x++) {
        uint32_t best = Lq ? Lq[x - 1] : NONE;
        if (Lp[x - 1] != NONE) {
            uint32_t y = next_match(w, a[w->ai[x - 1]], Lp[x - 1], y1, 1);
            if (y != NONE && y + 1 < best)
                best = y + 1;
        }
        Lp[x] = best;
    }
}

/* The other way to the same answer when many calls go unmatched, whatever
 * their number: a longest common subsequence by bit vectors (Allison and
 * Dix 1986, Hyyro 2004). Row i holds one bit per call of b: 0 where the
 * LCS of a's first i possible calls and b's prefix grows by one there.
 * Every K-th row (K ~ sqrt of the rows) is kept, and going back recomputes
 * the K after one; a match mask per distinct key. */
/* row V after a call whose match mask is M, into U (W words) */
static void bp_row(const uint64_t *V, const uint64_t *M, uint64_t *U, size_t W)
{
    uint64_t carry = 0;
    for (size_t t = 0; t < W; t++) {
        uint64_t v = V[t], u = v & M[t], s1 = v + u, s2 = s1 + carry;
        carry = (s1 < v) | (s2 < s1);
        U[t] = s2 | (v & ~M[t]);
    }
}

static int bp_align(lcs_ws *w, const uint32_t *a, uint32_t mm, uint32_t y0, uint32_t y1, int32_t *out)
{
    const keymatch *km = w->km;
    uint32_t n = y1 - y0;
    size_t W = ((size_t)n + 63) / 64;
    /* a mask per distinct key of a (kms/kmi: its stamp and index) */
    if (++w->mstamp == 0) {
        memset(w->kms, 0, (km->nkeys ? km->nkeys : 1) * sizeof *w->kms);
        w->mstamp = 1;
    }
    uint32_t nd = 0;
    if (MERGE_GROW(&w->dk, &w->dkcap, mm))
        return -1;
    for (uint32_t x = 0; x < mm; x++) {
        uint32_t k = a[w->ai[x]];
        if (w->kms[k] != w->mstamp) {
            w->kms[k] = w->mstamp;
            w->kmi[k] = nd;
            w->dk[nd++] = k;
        }
    }
    /* rows kept: every K-th, and the block being gone back through */
    size_t K = 1;
    while (K * K < (size_t)mm + 1)
        K++;
    size_t nck = (size_t)mm / K + 1;
    if (((size_t)nd + nck + K) * W > LCS_KEEP / 2)
        return 1; /* as many cells as the layers may keep, in 64-bit words */
    if (MERGE_GROW(&w->bits, &w->bitscap, ((size_t)nd + nck + K) * W))
        return -1;
    uint64_t *mask = w->bits, *ck = w->bits + (size_t)nd * W, *blk = ck + nck * W;
    memset(mask, 0, (size_t)nd * W * sizeof *mask);
    for (uint32_t d = 0; d < nd; d++) {
        uint32_t k = w->dk[d], lk = km->loose[k];
        uint64_t *mk = mask + (size_t)d * W;
        /* b's calls it matches: its own key's, and with PROC_NULL about
         * those of its loose key (all, or those passing PROC_NULL) */
        for (int list = 0; list < 3; list++) {
            const uint32_t *l = NULL;
            uint32_t len = 0, i = 0, y;
            if (list == 0 && w->kst[k] == w->stamp)
                l = w->pool + w->kstart[k], len = w->klen[k];
            else if (list > 0 && km->anynull && w->lst[lk] == w->stamp && (list == 1) == !!km->hasnull[k])
                l = list == 1 ? w->lpool + w->lstart[lk] : w->npool + w->nstart[lk],
                len = list == 1 ? w->llen[lk] : w->nlen[lk];
            while (l && (y = seek(l, len, &i, y0)) != NONE && y < y1) {
                mk[(y - y0) / 64] |= 1ull << ((y - y0) % 64);
                i++;
            }
        }
    }
    /* forward: V' = (V + (V & M)) | (V & ~M), from all ones */
    for (size_t t = 0; t < W; t++)
        ck[t] = ~0ull;
    memcpy(blk, ck, W * sizeof *blk);
    for (uint32_t x = 0; x < mm; x++) {
        bp_row(blk + (x % 2) * W, mask + (size_t)w->kmi[a[w->ai[x]]] * W, blk + ((x + 1) % 2) * W, W);
        if ((x + 1) % K == 0)
            memcpy(ck + (x + 1) / K * W, blk + ((x + 1) % 2) * W, W * sizeof *ck);
    }
    /* back from the end: skip b's call where that loses nothing (a's calls
     * go as early in b as they can), else match, else a's call is unmatched */
    uint32_t x = mm, j = n, lo = NONE;
    while (x > 0 && j > 0) {
        if (lo == NONE || x < lo) { /* rows lo..x again from their checkpoint */
            lo = x - x % (uint32_t)K;
            memcpy(blk, ck + lo / K * W, W * sizeof *blk);
            for (uint32_t q = lo; q < x; q++)
                bp_row(blk + (q - lo) * W, mask + (size_t)w->kmi[a[w->ai[q]]] * W, blk + (q - lo + 1) * W, W);
        }
        const uint64_t *V = blk + (size_t)(x - lo) * W;
        if (V[(j - 1) / 64] >> ((j - 1) % 64) & 1u) {
            j--;
        } else if (keys_match(km, a[w->ai[x - 1]], w->b[y0 + j - 1])) {
            out[w->ai[x - 1]] = (int32_t)(y0 + j - 1);
            x--;
            j--;
        } else {
            x--;
        }
    }
    return 0;
}

int lcs_align(lcs_ws *w, const uint32_t *a, uint32_t m, uint32_t y0, uint32_t y1, uint64_t budget,
              int32_t *out)
{
    w->cells = 0;
    for (uint32_t x = 0; x < m; x++)
        out[x] = -1;
    if (y1 > w->n)
        y1 = w->n;
    if (!m || y0 >= y1)
        return 0;
    if (MERGE_GROW(&w->ai, &w->acap, m))
        return -1;
    uint32_t mm = 0; /* calls that may match: the others cannot */
    int whole = y0 == 0 && y1 == w->n;
    for (uint32_t x = 0; x < m; x++)
        if (whole ? in_b(w, a[x]) : next_match(w, a[x], y0, y1, 0) != NONE)
            w->ai[mm++] = x;
    if (!mm)
        return 0;
    /* L[p][x]: the shortest prefix of b that a's first x possible calls fit
     * in with at most p of them unmatched (NONE: they do not fit). Layer p
     * needs only layer p - 1, and going back only layer p: every K-th
     * layer is kept (L) and the ones after it recomputed when going back
     * reaches them (blk), in LCS_KEEP cells at most. */
    size_t row = (size_t)mm + 1, K = LCS_KEEP / 2 / row, maxck = K;
    if (K < 2)
        K = 2, maxck = 2;
    if (MERGE_GROW(&w->blk, &w->blkcap, 2 * row)) /* going forward: two layers */
        return -1;
    /* the bit vectors' cost in the same units: a word step (done about
     * twice, forward and going back) is some 4 times cheaper than a cell,
     * which searches b */
    uint64_t W = ((uint64_t)(y1 - y0) + 63) / 64, bpcost = W * row / 2 + row;
    int bp_fits = 1; /* until bp_align finds it cannot keep its rows */
    uint32_t p;
    for (p = 0;; p++) {
        w->cells += row;
        /* layers until they have cost half the bit vectors' price: each
         * way then costs at most 1.5 times the cheaper one */
        if (bp_fits && w->force != 1 && (2 * w->cells > bpcost || w->force == 2) &&
            w->cells - row + bpcost <= budget) {
            int rc = bp_align(w, a, mm, y0, y1, out);
            if (rc != 1) {
                w->cells += bpcost - row;
                return rc;
            }
            bp_fits = 0; /* too big to keep: on with the layers */
        }
        if (w->cells > budget || p / K >= maxck)
            return 1;
        uint32_t *Lp = w->blk + (p % 2) * row;
        dp_layer(w, a, mm, y0, y1, p ? w->blk + ((p + 1) % 2) * row : NULL, Lp);
        if (p % K == 0) {
            if (MERGE_GROW(&w->L, &w->Lcap, (p / K + 1) * row))
                return -1;
            memcpy(w->L + (p / K) * row, Lp, row * sizeof *Lp);
        }
        if (Lp[mm] != NONE)
            break;
    }
    /* back from the end, matching where that is as good; in layer 0 every
     * call is matched, where its L says */
    uint32_t lo = NONE, *Lp = NULL;
    for (uint32_t x = mm; x > 0; x--) {
        if (lo == NONE || p < lo) { /* recompute p's block up to p */
            lo = p - p % (uint32_t)K;
            if (MERGE_GROW(&w->blk, &w->blkcap, (size_t)(p - lo + 1) * row))
                return -1;
            memcpy(w->blk, w->L + (lo / K) * row, row * sizeof *w->blk);
            for (uint32_t q = lo + 1; q <= p; q++)
                dp_layer(w, a, mm, y0, y1, w->blk + (q - lo - 1) * row, w->blk + (q - lo) * row);
        }
        Lp = w->blk + (p - lo) * row;
        if (!p) {
            out[w->ai[x - 1]] = (int32_t)(Lp[x] - 1);
            continue;
        }
        if (Lp[x - 1] != NONE) {
            uint32_t y = next_match(w, a[w->ai[x - 1]], Lp[x - 1], y1, 0);
            if (y != NONE && y + 1 == Lp[x]) {
                out[w->ai[x - 1]] = (int32_t)y;
                continue;
            }
        }
        p--; /* unmatched: its layer's count included it */
    }
    return 0;
}

uint64_t lcs_cells(const lcs_ws *w) { return w->cells; }

void lcs_force(lcs_ws *w, int how) { w->force = how; }
