/* The grammar a folding builds: loop symbols, each a folded body and an
 * iteration count, interned so that equal loops are one symbol (which is
 * what lets an enclosing loop repeat), and a memo of bodies already folded. */
#include <stdlib.h>
#include <string.h>

#include "fold_internal.h"

int fvec_reserve(fvec *a, int64_t n)
{
    if (n <= a->cap)
        return 0;
    int64_t cap = a->cap ? a->cap : 64;
    while (cap < n)
        cap *= 2;
    int32_t *v = realloc(a->v, (size_t)cap * sizeof *v);
    if (!v)
        return -1;
    a->v = v;
    a->cap = cap;
    return 0;
}

int fvec_push(fvec *a, int32_t x)
{
    if (a->n == a->cap && fvec_reserve(a, a->n + 1))
        return -1;
    a->v[a->n++] = x;
    return 0;
}

int fgrammar_init(fgrammar *g, int32_t k0, int algo)
{
    memset(g, 0, sizeof *g);
    g->k0 = k0;
    g->algo = algo;
    g->ids = psk_intern_new();
    g->memo = psk_intern_new();
    return g->ids && g->memo ? 0 : -1;
}

void fgrammar_free(fgrammar *g)
{
    free(g->loop);
    free(g->pool.v);
    free(g->memo_val.v);
    free(g->memo_pool.v);
    psk_intern_free(g->ids);
    psk_intern_free(g->memo);
    fscratch_free(&g->scratch);
    memset(g, 0, sizeof *g);
}

int64_t fgrammar_loop(fgrammar *g, const int32_t *body, int32_t len, int64_t count)
{
    /* key: the body, then the count */
    int32_t small[64];
    int32_t *key = len + 2 <= 64 ? small : malloc(((size_t)len + 2) * sizeof *key);
    if (!key)
        return -1;
    memcpy(key, body, (size_t)len * sizeof *key);
    memcpy(key + len, &count, sizeof count);
    int added;
    int64_t id = psk_intern_id(g->ids, key, ((size_t)len + 2) * sizeof *key, &added);
    if (key != small)
        free(key);
    if (id < 0 || !added)
        return id < 0 ? -1 : g->k0 + id;
    if (id >= INT32_MAX - g->k0)
        return -1;
    if (id >= g->lcap) {
        int32_t cap = g->lcap ? 2 * g->lcap : 64;
        floop *l = realloc(g->loop, (size_t)cap * sizeof *l);
        if (!l)
            return -1;
        g->loop = l;
        g->lcap = cap;
    }
    floop *l = &g->loop[id];
    l->body = g->pool.n;
    l->len = len;
    l->count = count;
    l->flen = 0;
    l->xlen = 0;
    if (fvec_reserve(&g->pool, g->pool.n + len))
        return -1;
    for (int32_t i = 0; i < len; i++) {
        g->pool.v[g->pool.n++] = body[i];
        l->flen += fsym_flen(g, body[i]);
        l->xlen += fsym_xlen(g, body[i]);
    }
    l->xlen *= count;
    g->nloops = (int32_t)id + 1;
    return g->k0 + id;
}
