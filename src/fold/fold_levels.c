/* Folding by levels of detail: the sequence is folded by its finest
 * symbols, then every sequence of the result (the top and each loop body,
 * innermost first) is translated to the next coarser symbols and folded
 * again, so that iterations differing only in a tag, a root, a count or a
 * peer offset become one loop (what differs is then a parameter, fitted
 * by fold_params.c). The finest level decides first: a V-cycle whose levels
 * differ in message size folds into its cycle before sizes are dropped.
 * Invariant: a coarser symbol is a function of the finer one, so every
 * translated loop still covers the same input positions. */
#include <stdlib.h>
#include <string.h>

#include "fold_internal.h"
#include "perfskel/merge.h"

typedef struct relevel {
    const fgrammar *from;
    fgrammar *to;
    const int32_t *map;  /* from's input symbols -> to's */
    int64_t *memo;       /* from's loops -> to's symbol, -1 not yet */
} relevel;

/* to's symbol for from's symbol x; -1 if memory runs out */
static int64_t translate(relevel *r, int32_t x)
{
    const fgrammar *a = r->from;
    if (x < a->k0)
        return r->map[x];
    int32_t L = x - a->k0;
    if (r->memo[L] >= 0)
        return r->memo[L];
    const floop *l = &a->loop[L];
    int32_t len = l->len;
    int32_t *body = malloc(((size_t)len ? (size_t)len : 1) * sizeof *body);
    if (!body)
        return -1;
    for (int32_t i = 0; i < len; i++) {
        int64_t y = translate(r, a->pool.v[l->body + i]);
        if (y < 0) {
            free(body);
            return -1;
        }
        body[i] = (int32_t)y;
    }
    /* a body that became one loop stays nested, ((B)xc)xcount: the finer
     * level's loop (a V-cycle's cycle) is kept as the outer one */
    int64_t id = fold_sequence(r->to, body, &len) ? -1 : fgrammar_loop(r->to, body, len, l->count);
    free(body);
    r->memo[L] = id;
    return id;
}

/* dense ids 0..k-1 by first appearance of sym[0..n) into out; k, or -1 */
static int64_t densify(const int32_t *sym, int64_t n, int32_t *out)
{
    psk_intern *d = psk_intern_new();
    if (!d)
        return -1;
    for (int64_t i = 0; i < n; i++) {
        int64_t id = sym[i] < 0 ? -1 : psk_intern_id(d, &sym[i], sizeof sym[i], NULL);
        if (id < 0) {
            psk_intern_free(d);
            return -1;
        }
        out[i] = (int32_t)id;
    }
    int64_t k = psk_intern_count(d);
    psk_intern_free(d);
    return k;
}

int psk_fold_levels(const int32_t *const *levels, int nlevels, const int32_t *sym0, int64_t n, int algo,
                    psk_folded **out)
{
    psk_folded *f = calloc(1, sizeof *f);
    *out = f;
    if (!f)
        return PSK_ENOMEM;
    if (algo < 0 || algo >= PSK_FOLD_NALGOS || nlevels < 1)
        return fail_folded(f, PSK_EINVAL, "unknown folding algorithm %d", algo);
    if (n < 0 || n >= INT32_MAX / 2)
        return fail_folded(f, PSK_EINVAL, "%lld symbols: at most %d can be folded", (long long)n, INT32_MAX / 2 - 1);
    f->n = n;
    int rc = PSK_OK;
    int32_t *s = malloc(((size_t)n + 1) * sizeof *s), *fine = malloc(((size_t)n + 1) * sizeof *fine),
            *coarse = malloc(((size_t)n + 1) * sizeof *coarse), *map = NULL;
    int64_t *memo = NULL;
    fgrammar g[2];
    memset(g, 0, sizeof g);
    int cur = 0;
    int64_t k = s && fine && coarse ? densify(levels[0], n, fine) : -1;
    if (k < 0 || fgrammar_init(&g[0], (int32_t)k, algo)) {
        rc = fail_folded(f, PSK_ENOMEM, "out of memory");
        goto out;
    }
    memcpy(s, fine, (size_t)n * sizeof *s);
    int32_t len = (int32_t)n;
    if (fold_sequence(&g[0], s, &len)) {
        rc = fail_folded(f, PSK_ENOMEM, "out of memory while folding");
        goto out;
    }
    int64_t rounds = g[0].rounds;
    for (int l = 1; l < nlevels; l++) {
        int64_t kc = densify(levels[l], n, coarse);
        int32_t *mp = realloc(map, ((size_t)g[cur].k0 + 1) * sizeof *map);
        if (kc < 0 || !mp) {
            rc = fail_folded(f, PSK_ENOMEM, "out of memory");
            goto out;
        }
        map = mp;
        /* each finer symbol's coarser one, which must be unique */
        for (int32_t x = 0; x < g[cur].k0; x++)
            map[x] = -1;
        for (int64_t i = 0; i < n; i++) {
            if (map[fine[i]] >= 0 && map[fine[i]] != coarse[i]) {
                rc = fail_folded(f, PSK_EINVAL, "level %d is not a function of level %d (symbol %lld)", l, l - 1,
                                 (long long)i);
                goto out;
            }
            map[fine[i]] = coarse[i];
        }
        int nx = 1 - cur;
        int64_t *mm = realloc(memo, ((size_t)g[cur].nloops + 1) * sizeof *memo);
        if (mm)
            memo = mm;
        if (!mm || fgrammar_init(&g[nx], (int32_t)kc, algo)) {
            rc = fail_folded(f, PSK_ENOMEM, "out of memory");
            goto out;
        }
        for (int32_t x = 0; x < g[cur].nloops; x++)
            memo[x] = -1;
        relevel r = {&g[cur], &g[nx], map, memo};
        for (int32_t i = 0; i < len; i++) {
            int64_t y = translate(&r, s[i]);
            if (y < 0) {
                rc = fail_folded(f, PSK_ENOMEM, "out of memory while folding");
                goto out;
            }
            s[i] = (int32_t)y;
        }
        if (fold_sequence(&g[nx], s, &len)) {
            rc = fail_folded(f, PSK_ENOMEM, "out of memory while folding");
            goto out;
        }
        rounds += g[nx].rounds;
        fgrammar_free(&g[cur]);
        cur = nx;
        int32_t *t = fine;
        fine = coarse;
        coarse = t;
    }
    /* the coarsest symbols folded afresh: where values that repeat by
     * chance made finer loops that differ from one iteration to the next,
     * this folds further; the finer structure is kept on ties */
    if (nlevels > 1) {
        fgrammar alt;
        memset(&alt, 0, sizeof alt);
        int32_t alen = (int32_t)n;
        int64_t ka = densify(levels[nlevels - 1], n, coarse), la = 0, lc = 0;
        if (ka < 0 || fgrammar_init(&alt, (int32_t)ka, algo) || fold_sequence(&alt, coarse, &alen)) {
            fgrammar_free(&alt);
            rc = fail_folded(f, PSK_ENOMEM, "out of memory while folding");
            goto out;
        }
        for (int32_t i = 0; i < alen; i++)
            la += fsym_flen(&alt, coarse[i]);
        for (int32_t i = 0; i < len; i++)
            lc += fsym_flen(&g[cur], s[i]);
        if (la < lc) {
            fgrammar_free(&g[cur]);
            g[cur] = alt;
            memcpy(s, coarse, (size_t)alen * sizeof *s);
            len = alen;
            rounds = alt.rounds;
        } else {
            fgrammar_free(&alt);
        }
    }
    f->rounds = rounds;
    rc = fold_tree_build(f, &g[cur], s, len, sym0 ? sym0 : levels[0]);
out:
    fgrammar_free(&g[0]);
    fgrammar_free(&g[1]);
    free(s), free(fine), free(coarse), free(map), free(memo);
    return rc;
}

int psk_fold_merged(psk_merged *m, int algo, psk_folded **out)
{
    int32_t *lv[PSK_FOLD_LEVELS] = {0};
    int rc = psk_fold_keys(m, lv);
    if (rc) {
        psk_folded *f = calloc(1, sizeof *f);
        *out = f;
        return f ? fail_folded(f, rc, "cannot read the merged trace to fold it (%s)", psk_merged_errmsg(m))
                 : PSK_ENOMEM;
    }
    rc = psk_fold_levels((const int32_t *const *)lv, PSK_FOLD_LEVELS, (const int32_t *)psk_merged_classes(m),
                         (int64_t)psk_merged_length(m), algo, out);
    for (int l = 0; l < PSK_FOLD_LEVELS; l++)
        free(lv[l]);
    return rc;
}
