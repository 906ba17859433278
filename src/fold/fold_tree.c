/* psk_fold: folds a symbol sequence with the chosen algorithm and turns
 * the resulting grammar into the loop tree of include/perfskel/fold.h,
 * with walking (every input position with its loop iterations) and
 * printing. Input symbols are first renamed 0..k-1 by first appearance,
 * as the suffix-array methods need a dense alphabet. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fold_internal.h"


static const char *const algo_names[PSK_FOLD_NALGOS] = {"runs", "paper", "topdown", "bottomup"};

const char *psk_fold_algo_name(int algo) { return algo >= 0 && algo < PSK_FOLD_NALGOS ? algo_names[algo] : "?"; }

int psk_fold_algo_lookup(const char *name)
{
    for (int a = 0; a < PSK_FOLD_NALGOS; a++)
        if (!strcmp(name, algo_names[a]))
            return a;
    return -1;
}

int fail_folded(psk_folded *f, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->err, sizeof f->err, fmt, ap);
    va_end(ap);
    return status;
}

static int32_t new_node(psk_folded *f, int kind, int32_t parent)
{
    if (f->nnodes == f->ncap) {
        int32_t cap = f->ncap ? 2 * f->ncap : 64;
        psk_fnode *p = realloc(f->node, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        f->node = p;
        f->ncap = cap;
    }
    psk_fnode *x = &f->node[f->nnodes];
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->parent = parent;
    x->count = 1;
    x->depth = parent < 0 ? 0 : f->node[parent].depth + (f->node[parent].kind == PSK_FNODE_LOOP);
    return f->nnodes++;
}

/* the children of node id: the sequence seq[0..len) expanded; *pos is the
 * input position, advanced by one execution of the sequence */
static int build(psk_folded *f, const fgrammar *g, int32_t id, const int32_t *seq, int32_t len, int64_t *pos)
{
    int64_t first = f->kids.n;
    if (fvec_reserve(&f->kids, first + len))
        return -1;
    f->kids.n += len;
    f->node[id].child0 = (int32_t)first;
    f->node[id].nchild = len;
    int64_t begin = *pos;
    for (int32_t i = 0; i < len; i++) {
        int32_t x = seq[i];
        int32_t c = new_node(f, x < g->k0 ? PSK_FNODE_SYM : PSK_FNODE_LOOP, id);
        if (c < 0)
            return -1;
        f->kids.v[first + i] = c;
        f->node[c].start = *pos;
        if (x < g->k0) {
            f->node[c].sym = f->sym0 ? f->sym0[*pos] : f->names[x];
            f->node[c].span = 1;
            (*pos)++;
            continue;
        }
        const floop *l = &g->loop[x - g->k0];
        f->node[c].count = l->count;
        int64_t body = *pos;
        /* the pool may not move while building: g is not changed here */
        if (build(f, g, c, g->pool.v + l->body, l->len, pos))
            return -1;
        f->node[c].span = *pos - body;
        *pos += f->node[c].span * (l->count - 1);
    }
    f->node[id].span = *pos - begin;
    return 0;
}

int fold_tree_build(psk_folded *f, const fgrammar *g, const int32_t *s, int32_t len, const int32_t *sym0)
{
    for (int32_t i = 0; i < len; i++)
        f->flen += fsym_flen(g, s[i]);
    int64_t pos = 0;
    f->sym0 = sym0;
    int bad = new_node(f, PSK_FNODE_ROOT, -1) < 0 || build(f, g, 0, s, len, &pos);
    f->sym0 = NULL;
    if (bad)
        return fail_folded(f, PSK_ENOMEM, "out of memory");
    if (pos != f->n)
        return fail_folded(f, PSK_EFORMAT, "internal error: the loop tree covers %lld of %lld symbols",
                           (long long)pos, (long long)f->n);
    return PSK_OK;
}

int psk_fold(const int32_t *sym, int64_t n, int algo, psk_folded **out)
{
    psk_folded *f = calloc(1, sizeof *f);
    *out = f;
    if (!f)
        return PSK_ENOMEM;
    if (algo < 0 || algo >= PSK_FOLD_NALGOS)
        return fail_folded(f, PSK_EINVAL, "unknown folding algorithm %d", algo);
    if (n < 0 || n >= INT32_MAX / 2)
        return fail_folded(f, PSK_EINVAL, "%lld symbols: at most %d can be folded", (long long)n, INT32_MAX / 2 - 1);
    f->n = n;
    int32_t *s = malloc(((size_t)n + 1) * sizeof *s);
    psk_intern *dense = psk_intern_new();
    fvec names = {0};
    fgrammar g;
    int rc = PSK_OK;
    if (fgrammar_init(&g, 0, algo) || !s || !dense) {
        rc = fail_folded(f, PSK_ENOMEM, "out of memory");
        goto out;
    }
    /* small values (event classes usually are): renamed through an array
     * indexed by value, the same ids by first appearance as the table */
    int32_t top = -1;
    for (int64_t i = 0; i < n && top >= -1; i++)
        top = sym[i] < 0 ? -2 : sym[i] > top ? sym[i] : top;
    int32_t *id_of = top >= 0 && top <= 2 * n + 65536 ? malloc(((size_t)top + 1) * sizeof *id_of) : NULL;
    int by_table = !id_of;
    if (id_of) {
        memset(id_of, 0xff, ((size_t)top + 1) * sizeof *id_of);
        for (int64_t i = 0; i < n; i++) {
            int32_t *d = &id_of[sym[i]];
            if (*d < 0 && ((*d = (int32_t)names.n), fvec_push(&names, sym[i]))) {
                free(id_of);
                rc = fail_folded(f, PSK_ENOMEM, "out of memory");
                goto out;
            }
            s[i] = *d;
        }
        free(id_of);
    }
    for (int64_t i = 0; i < n && by_table; i++) {
        if (sym[i] < 0) {
            rc = fail_folded(f, PSK_EINVAL, "symbol %lld is negative (%d)", (long long)i, sym[i]);
            goto out;
        }
        int added;
        int64_t d = psk_intern_id(dense, &sym[i], sizeof sym[i], &added);
        if (d < 0 || (added && fvec_push(&names, sym[i]))) {
            rc = fail_folded(f, PSK_ENOMEM, "out of memory");
            goto out;
        }
        s[i] = (int32_t)d;
    }
    g.k0 = (int32_t)names.n;
    f->names = names.v;
    names.v = NULL;
    int32_t len = (int32_t)n;
    if (fold_sequence(&g, s, &len)) {
        rc = fail_folded(f, PSK_ENOMEM, "out of memory while folding");
        goto out;
    }
    f->rounds = g.rounds;
    rc = fold_tree_build(f, &g, s, len, NULL);
out:
    fgrammar_free(&g);
    psk_intern_free(dense);
    free(names.v);
    free(s);
    return rc;
}

const char *psk_folded_errmsg(const psk_folded *f) { return f ? f->err : "out of memory"; }

void psk_folded_free(psk_folded *f)
{
    if (!f)
        return;
    free(f->names);
    free(f->node);
    free(f->kids.v);
    for (int32_t i = 0; f->tables && i < f->nnodes; i++)
        free(f->tables[i]);
    free(f->tables);
    free(f->stats);
    fold_params_free(f);
    fold_outliers_free(f->outliers);
    free(f);
}

int64_t psk_folded_input_length(const psk_folded *f) { return f->n; }
int64_t psk_folded_length(const psk_folded *f) { return f->flen; }
int64_t psk_folded_rounds(const psk_folded *f) { return f->rounds; }
int32_t psk_folded_nnodes(const psk_folded *f) { return f->nnodes; }
const psk_fnode *psk_folded_node(const psk_folded *f, int32_t id) { return &f->node[id]; }
const int32_t *psk_folded_children(const psk_folded *f, int32_t id) { return f->kids.v + f->node[id].child0; }

typedef struct walker {
    const psk_folded *f;
    int (*fn)(void *, int64_t, int32_t, const int64_t *, int);
    void *arg;
    int64_t pos;
    int64_t iter[256];
} walker;

static int walk(walker *w, int32_t id, int depth)
{
    const psk_fnode *x = &w->f->node[id];
    if (x->kind == PSK_FNODE_SYM)
        return w->fn(w->arg, w->pos++, id, w->iter, depth);
    const int32_t *kid = w->f->kids.v + x->child0;
    int inner = depth + (x->kind == PSK_FNODE_LOOP);
    for (int64_t it = 0; it < x->count; it++) {
        if (x->kind == PSK_FNODE_LOOP && depth < 256)
            w->iter[depth] = it;
        for (int32_t c = 0; c < x->nchild; c++) {
            int rc = walk(w, kid[c], inner);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int psk_folded_walk(const psk_folded *f, int (*fn)(void *, int64_t, int32_t, const int64_t *, int), void *arg)
{
    walker w = {.f = f, .fn = fn, .arg = arg};
    return f->nnodes ? walk(&w, 0, 0) : 0;
}

static void print(const psk_folded *f, int32_t id, FILE *out, void (*name)(void *, int32_t, char *, size_t),
                  void *arg, int *first)
{
    const psk_fnode *x = &f->node[id];
    if (x->kind == PSK_FNODE_SYM) {
        char buf[256];
        if (name)
            name(arg, x->sym, buf, sizeof buf);
        else
            snprintf(buf, sizeof buf, "%d", x->sym);
        fprintf(out, "%s%s", *first ? "" : " ", buf);
        *first = 0;
        return;
    }
    if (x->kind == PSK_FNODE_LOOP) {
        fputs(*first ? "(" : " (", out);
        *first = 1;
    }
    const int32_t *kid = f->kids.v + x->child0;
    for (int32_t c = 0; c < x->nchild; c++)
        print(f, kid[c], out, name, arg, first);
    if (x->kind == PSK_FNODE_LOOP) {
        fprintf(out, ")x%lld", (long long)x->count);
        *first = 0;
    }
}

void psk_folded_print(const psk_folded *f, FILE *out, void (*name)(void *, int32_t, char *, size_t), void *arg)
{
    int first = 1;
    if (f->nnodes)
        print(f, 0, out, name, arg, &first);
}
