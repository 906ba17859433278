/* The folding driver shared by the runs and paper algorithms: find every
 * run of the sequence, choose a set of non-overlapping folds, replace each
 * by a loop symbol whose body is folded the same way (memoised), repeat
 * until nothing repeats (Algorithm 4 of Zhang et al., "Parallel Job
 * Performance Prediction Based on the Case Reconstruction", Journal of
 * Software 2010; docs/folding.md, The algorithms).
 *
 * The paper chooses longest first, leftmost first (§3.3). The runs
 * algorithm instead picks, per level, the set of folds that removes the
 * most input symbols (weighted interval scheduling), trying each run at its
 * left and right alignment and with one iteration fewer, so that a run
 * that would swallow the start of a better neighbour gives way. */
#include <stdlib.h>
#include <string.h>

#include "fold_internal.h"
#include "psk_mem.h"

/* 32-bit fields: a count, a weight and every sum of folded lengths below
 * are at most the input length, under INT32_MAX / 2 (psk_fold checks) */
typedef struct cand {
    int32_t start, period;
    int32_t count;
    int32_t weight; /* input symbols removed */
} cand;

/* the folded form of body[0..len), memoised; *out points into g's memo
 * pool (valid until the next fold) */
static int fold_body(fgrammar *g, const int32_t *body, int32_t len, const int32_t **out, int32_t *outlen)
{
    int added;
    int64_t id = psk_intern_id(g->memo, body, (size_t)len * sizeof *body, &added);
    if (id < 0)
        return -1;
    if (!added) {
        int64_t off = g->memo_val.v[id];
        *outlen = g->memo_pool.v[off];
        *out = g->memo_pool.v + off + 1;
        return 0;
    }
    /* the slot of this id now: folding the body makes more memo entries */
    if (fvec_push(&g->memo_val, -1))
        return -1;
    int32_t *tmp = malloc(((size_t)len ? (size_t)len : 1) * sizeof *tmp);
    if (!tmp)
        return -1;
    memcpy(tmp, body, (size_t)len * sizeof *tmp);
    int32_t n = len;
    if (fold_sequence(g, tmp, &n)) {
        free(tmp);
        return -1;
    }
    int64_t off = g->memo_pool.n;
    if (off > INT32_MAX - n - 1 || fvec_reserve(&g->memo_pool, off + 1 + n)) {
        free(tmp);
        return -1;
    }
    g->memo_val.v[id] = (int32_t)off;
    g->memo_pool.v[g->memo_pool.n++] = n;
    memcpy(g->memo_pool.v + g->memo_pool.n, tmp, (size_t)n * sizeof *tmp);
    g->memo_pool.n += n;
    free(tmp);
    *outlen = n;
    *out = g->memo_pool.v + off + 1;
    return 0;
}

typedef struct bcache { /* a body s[st, st + p) and its folded length */
    int32_t st, p, len;
} bcache;

/* the folded length (in input symbols) of the body s[st, st + p), from
 * the cache bc (mask + 1 slots, none if mask is 0) if an equal body is
 * there, else from the memo (fold_body), then cached; -1 if memory runs
 * out. An equal body found in the cache was given to fold_body before:
 * asking again would change nothing in g. */
static int32_t body_folded_len(fgrammar *g, const int32_t *s, int32_t st, int32_t p, bcache *bc, int32_t mask)
{
    bcache *e = NULL;
    if (mask) {
        uint32_t x = (uint32_t)p * 0x9E3779B1u ^ (uint32_t)s[st] * 0x85EBCA77u ^
                     (uint32_t)s[st + p - 1] * 0xC2B2AE3Du ^ (uint32_t)s[st + p / 2] * 0x27D4EB2Fu;
        e = &bc[(x ^ x >> 15) & (uint32_t)mask];
        if (e->p == p && !memcmp(s + e->st, s + st, (size_t)p * sizeof *s))
            return e->len;
    }
    const int32_t *fb;
    int32_t fl;
    if (fold_body(g, s + st, p, &fb, &fl))
        return -1;
    int64_t folded = 0;
    for (int32_t j = 0; j < fl; j++)
        folded += fsym_flen(g, fb[j]);
    if (e)
        *e = (bcache){st, p, (int32_t)folded};
    return (int32_t)folded;
}

/* replaces the chosen folds (sorted by start, not overlapping) by loops */
static int apply(fgrammar *g, int32_t *s, int32_t *n, const cand *c, int64_t nc)
{
    int32_t w = 0, r = 0;
    int32_t *body = NULL;
    int32_t bcap = 0;
    for (int64_t i = 0; i < nc; i++) {
        while (r < c[i].start)
            s[w++] = s[r++];
        if (c[i].period > bcap) {
            int32_t *b = realloc(body, (size_t)c[i].period * sizeof *b);
            if (!b) {
                free(body);
                return -1;
            }
            body = b;
            bcap = c[i].period;
        }
        memcpy(body, s + r, (size_t)c[i].period * sizeof *body);
        const int32_t *fb;
        int32_t fl;
        if (fold_body(g, body, c[i].period, &fb, &fl)) {
            free(body);
            return -1;
        }
        int64_t x = fgrammar_loop(g, fb, fl, c[i].count);
        if (x < 0) {
            free(body);
            return -1;
        }
        s[w++] = (int32_t)x;
        r += (int32_t)((int64_t)c[i].period * c[i].count);
    }
    while (r < *n)
        s[w++] = s[r++];
    *n = w;
    free(body);
    return 0;
}

static int cmp_paper(const void *a, const void *b)
{
    const frun *x = a, *y = b;
    if (x->length != y->length)
        return x->length > y->length ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

static int cmp_start(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* Zhang et al. 2010, §3.3: longest first, then leftmost; skip what overlaps */
static int64_t choose_paper(frun *runs, int64_t nr, int32_t n, cand *out)
{
    qsort(runs, (size_t)nr, sizeof *runs, cmp_paper);
    uint64_t *used = calloc(((size_t)n + 63) / 64 + 1, sizeof *used);
    if (!used)
        return -1;
    int64_t nc = 0;
    for (int64_t i = 0; i < nr; i++) {
        int32_t a = runs[i].start, p = runs[i].period;
        int64_t k = runs[i].length / p;
        int32_t b = (int32_t)(a + k * p), j;
        for (j = a; j < b && !((used[j >> 6] >> (j & 63)) & 1u); j++)
            ;
        if (j < b)
            continue;
        for (j = a; j < b; j++)
            used[j >> 6] |= 1ull << (j & 63);
        out[nc++] = (cand){a, p, (int32_t)k, 0};
    }
    free(used);
    qsort(out, (size_t)nc, sizeof *out, cmp_start);
    return nc;
}

/* the heaviest set of non-overlapping candidates (weighted interval
 * scheduling over positions); ties keep the earlier-listed candidate */
static int64_t choose_best(fgrammar *g, const int32_t *s, int32_t n, const frun *runs, int64_t nr, fscratch *w,
                           cand **outp)
{
    /* pre and head: w's arrays if it is given, else allocated (own: free) */
    int own = !w;
    int32_t *pre = w ? fscratch_get(w, 0, (int64_t)n + 1) : psk_big_alloc(((size_t)n + 1) * sizeof *pre);
    if (!pre)
        return -1;
    pre[0] = 0;
    for (int32_t i = 0; i < n; i++) {
        int64_t x = pre[i] + fsym_flen(g, s[i]);
        if (x >= INT32_MAX / 2) { /* cannot be: more than the input */
            if (own)
                free(pre);
            return -1;
        }
        pre[i + 1] = (int32_t)x;
    }
    /* candidates: each run left- and right-aligned, with all its
     * iterations and with one fewer */
    int64_t cap = 0, nc = 0;
    for (int64_t i = 0; i < nr; i++) {
        int64_t kmax = runs[i].length / runs[i].period;
        for (int64_t k = kmax; k >= 2 && k >= kmax - 1; k--) {
            int64_t spread = runs[i].length - k * runs[i].period;
            cap += spread <= 8 ? spread + 1 : 2;
        }
    }
    cand *c = psk_big_alloc(((size_t)cap ? (size_t)cap : 1) * sizeof *c);
    /* many runs: a cache of bodies already folded (a main loop's runs
     * come back every iteration) */
    int32_t bmask = 0;
    while (!g->plain && nr >= 64 && bmask < 4095 && bmask < nr)
        bmask = 2 * bmask + 1;
    bcache *bc = bmask ? calloc((size_t)bmask + 1, sizeof *bc) : NULL;
    if (!c || (bmask && !bc)) {
        if (own)
            free(pre);
        free(c), free(bc);
        return -1;
    }
    for (int64_t i = 0; i < nr; i++) {
        int32_t a = runs[i].start, p = runs[i].period, L = runs[i].length;
        int64_t kmax = L / p;
        /* bodies a period apart in the run are the same word: each
         * rotation's folded length is looked up once (a lookup of a body
         * already seen changes nothing in g) */
        int32_t seen_off[20], seen_len[20], nseen = 0;
        for (int64_t k = kmax; k >= 2 && k >= kmax - 1; k--) {
            int32_t last = (int32_t)(a + L - k * p); /* rightmost start */
            int32_t step = last - a <= 8 ? 1 : last - a;
            for (int32_t st = a; st <= last; st += step) {
                /* what folding it saves: k copies of the body become one,
                 * folded itself */
                int32_t off = (st - a) % p, h = 0;
                while (h < nseen && seen_off[h] != off)
                    h++;
                if (g->plain)
                    h = nseen = 0; /* every body looked up */
                if (h == nseen) {
                    int32_t folded = body_folded_len(g, s, st, p, bc, bmask);
                    if (folded < 0) {
                        if (own)
                            free(pre);
                        free(c), free(bc);
                        return -1;
                    }
                    seen_off[h] = off;
                    seen_len[h] = folded;
                    nseen++;
                }
                c[nc++] = (cand){st, p, (int32_t)k, (int32_t)(k * (pre[st + p] - pre[st]) - seen_len[h])};
            }
        }
    }
    free(bc);
    /* bucket candidates by end position; then best[e], the heaviest set
     * ending by e, in pre's array (no longer needed), and pick[e], the
     * candidate ending at e that gives it, over head[e] once read */
    int32_t *head = w ? fscratch_get(w, 1, (int64_t)n + 1) : psk_big_alloc(((size_t)n + 1) * sizeof *head);
    int32_t *nxt = psk_big_alloc(((size_t)nc ? (size_t)nc : 1) * sizeof *nxt);
    int32_t *best = pre, *pick = head;
    if (!head || !nxt) {
        if (own)
            free(pre), free(head);
        free(c), free(nxt);
        return -1;
    }
    for (int32_t i = 0; i <= n; i++)
        head[i] = -1;
    for (int64_t i = nc; i-- > 0;) {
        int64_t e = c[i].start + (int64_t)c[i].period * c[i].count;
        nxt[i] = head[e];
        head[e] = (int32_t)i;
    }
    best[0] = 0;
    pick[0] = -1;
    for (int32_t e = 1; e <= n; e++) {
        int32_t b = best[e - 1], pk = -1;
        for (int32_t i = head[e]; i >= 0; i = nxt[i])
            if ((int64_t)best[c[i].start] + c[i].weight > b) {
                b = best[c[i].start] + c[i].weight;
                pk = i;
            }
        best[e] = b;
        pick[e] = pk;
    }
    /* back from the end: the chosen ones, last first */
    cand *out = psk_big_alloc(((size_t)n / 2 + 1) * sizeof *out);
    int64_t m = 0;
    for (int32_t e = n; out && e > 0;) {
        if (pick[e] < 0) {
            e--;
            continue;
        }
        out[m++] = c[pick[e]];
        e = c[pick[e]].start;
    }
    for (int64_t i = 0; i < m / 2; i++) {
        cand t = out[i];
        out[i] = out[m - 1 - i];
        out[m - 1 - i] = t;
    }
    if (own)
        free(pre), free(head);
    free(c), free(nxt);
    *outp = out;
    return out ? m : -1;
}

/* one round: every run, the folds chosen, applied; 1 if there was no run
 * left, 0 if folds were made, -1 if memory ran out */
static int fold_round(fgrammar *g, int32_t *s, int32_t *n, fscratch *w)
{
    frun *runs = NULL;
    int64_t nr = 0;
    int32_t k = g->k0 + g->nloops;
    int rc = g->algo == PSK_FOLD_PAPER ? fold_runs_probe(s, *n, k, &runs, &nr)
             : g->plain                ? fold_runs_linear(s, *n, k, &runs, &nr)
                                       : fold_runs_split(s, *n, k, w, &runs, &nr);
    if (rc)
        return -1;
    if (nr == 0) {
        free(runs);
        return 1;
    }
    cand *c = NULL;
    int64_t nc;
    if (g->algo == PSK_FOLD_PAPER) {
        c = malloc((size_t)nr * sizeof *c);
        nc = c ? choose_paper(runs, nr, *n, c) : -1;
    } else {
        nc = choose_best(g, s, *n, runs, nr, w, &c);
    }
    free(runs);
    if (nc < 0 || apply(g, s, n, c, nc)) {
        free(c);
        return -1;
    }
    free(c);
    g->rounds++;
    return 0;
}

int fold_sequence(fgrammar *g, int32_t *s, int32_t *n)
{
    if (g->algo == PSK_FOLD_TOPDOWN)
        return fold_topdown(g, s, n);
    if (g->algo == PSK_FOLD_BOTTOMUP)
        return fold_bottomup(g, s, n);
    /* the big arrays are this call's unless an enclosing round holds them
     * (a body folded while choosing) */
    fscratch *w = g->scratch.busy ? NULL : &g->scratch;
    if (w)
        w->busy = 1;
    int rc;
    while ((rc = fold_round(g, s, n, w)) == 0)
        ;
    if (w) /* what follows the folding (building its tree) has the memory */
        fscratch_free(w);
    return rc < 0 ? -1 : 0;
}
