/* Outlier iterations of the outermost loops: while psk_folded_stats walks
 * the merged trace, each rank's compute (the gaps before its calls, and
 * the compute inside its runs of polls) is summed per iteration of every
 * outermost loop of at least 4 iterations; then an iteration whose compute
 * (its slowest rank's) is far from the median iteration's, by a robust
 * test, is an outlier: a slow first iteration (tables built, pages first
 * touched), a checkpoint in the middle, a last one that writes results.
 * Skeletons run an outlier's extra compute once and scale only the steady
 * iterations (docs/skeletons.md); without this, a loop scaled K times
 * also multiplies its share of the outliers' compute. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fold_internal.h"

/* sums kept at most for this many (iteration, rank) pairs in all */
#define OUT_CELLS (1u << 22)
/* an iteration is an outlier when its compute is further from the median
 * than OUT_MADS robust standard deviations (1.4826 x MAD) and than
 * OUT_REL of the median itself (iterations of a steady loop differ by
 * a few per cent; a MAD of nearly zero must not make those outliers) */
#define OUT_MADS 6.0
#define OUT_REL 0.5

struct fold_outliers {
    int P;
    int32_t nn;
    int32_t *top;   /* per node: its outermost loop (4+ iterations, within the cap), or -1 */
    double **c;     /* per node that is such a loop: count x P sums, iteration-major */
    psk_foutlier **list;
    int *nlist;
    double *median; /* per loop: the median iteration's compute, slowest rank */
    double **out, **steady; /* per loop, per rank: compute of outlier / steady iterations */
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int64_t n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

fold_outliers *fold_outliers_new(const psk_folded *f, int P)
{
    fold_outliers *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    int32_t nn = f->nnodes;
    o->P = P;
    o->nn = nn;
    o->top = malloc((size_t)(nn ? nn : 1) * sizeof *o->top);
    o->c = calloc((size_t)(nn ? nn : 1), sizeof *o->c);
    if (!o->top || !o->c) {
        fold_outliers_free(o);
        return NULL;
    }
    uint64_t cells = 0;
    for (int32_t id = 0; id < nn; id++) { /* the outermost loops: sums if long enough and they fit */
        const psk_fnode *x = &f->node[id];
        int32_t par = x->parent;
        if (x->kind == PSK_FNODE_LOOP && (par < 0 || f->node[par].kind == PSK_FNODE_ROOT) && x->count >= 4 &&
            cells + (uint64_t)x->count * (uint64_t)P <= OUT_CELLS) {
            o->c[id] = calloc((size_t)x->count * (size_t)P, sizeof **o->c);
            if (!o->c[id]) {
                fold_outliers_free(o);
                return NULL;
            }
            cells += (uint64_t)x->count * (uint64_t)P;
        }
    }
    for (int32_t id = 0; id < nn; id++) { /* each node's outermost loop */
        int32_t a = id;
        while (f->node[a].parent >= 0 && f->node[f->node[a].parent].kind != PSK_FNODE_ROOT)
            a = f->node[a].parent;
        o->top[id] = o->c[a] ? a : -1;
    }
    return o;
}

void fold_outliers_add(fold_outliers *o, int32_t node, const int64_t *iter, int depth, int rank, double ns)
{
    int32_t t = o->top[node];
    if (t >= 0 && depth > 0 && rank >= 0 && rank < o->P)
        o->c[t][(size_t)iter[0] * (size_t)o->P + (size_t)rank] += ns;
}

int fold_outliers_finish(fold_outliers *o, const psk_folded *f)
{
    int32_t nn = f->nnodes;
    o->list = calloc((size_t)(nn ? nn : 1), sizeof *o->list);
    o->nlist = calloc((size_t)(nn ? nn : 1), sizeof *o->nlist);
    o->median = calloc((size_t)(nn ? nn : 1), sizeof *o->median);
    o->out = calloc((size_t)(nn ? nn : 1), sizeof *o->out);
    o->steady = calloc((size_t)(nn ? nn : 1), sizeof *o->steady);
    if (!o->list || !o->nlist || !o->median || !o->out || !o->steady)
        return PSK_ENOMEM;
    for (int32_t id = 0; id < nn; id++) {
        if (!o->c[id])
            continue;
        int64_t n = f->node[id].count;
        int P = o->P;
        double *t = malloc((size_t)n * sizeof *t), *s = malloc((size_t)n * sizeof *s);
        o->out[id] = calloc((size_t)P, sizeof **o->out);
        o->steady[id] = calloc((size_t)P, sizeof **o->steady);
        if (!t || !s || !o->out[id] || !o->steady[id]) {
            free(t), free(s);
            return PSK_ENOMEM;
        }
        for (int64_t i = 0; i < n; i++) { /* an iteration takes its slowest rank's compute */
            t[i] = 0;
            for (int r = 0; r < P; r++)
                t[i] = fmax(t[i], o->c[id][(size_t)i * (size_t)P + (size_t)r]);
        }
        memcpy(s, t, (size_t)n * sizeof *s);
        double med = median(s, n);
        for (int64_t i = 0; i < n; i++)
            s[i] = fabs(t[i] - med);
        double mad = median(s, n), lim = fmax(OUT_MADS * 1.4826 * mad, OUT_REL * med);
        o->median[id] = med;
        for (int64_t i = 0; i < n; i++) {
            int far = fabs(t[i] - med) > lim && lim > 0;
            if (far) {
                psk_foutlier *l = realloc(o->list[id], (size_t)(o->nlist[id] + 1) * sizeof *l);
                if (!l) {
                    free(t), free(s);
                    return PSK_ENOMEM;
                }
                o->list[id] = l;
                l[o->nlist[id]++] = (psk_foutlier){.iter = i, .compute = t[i]};
            }
            for (int r = 0; r < P; r++)
                (far ? o->out : o->steady)[id][r] += o->c[id][(size_t)i * (size_t)P + (size_t)r];
        }
        free(t), free(s);
        free(o->c[id]);
        o->c[id] = NULL;
    }
    return PSK_OK;
}

void fold_outliers_free(fold_outliers *o)
{
    if (!o)
        return;
    for (int32_t id = 0; id < o->nn; id++) {
        if (o->c)
            free(o->c[id]);
        if (o->list)
            free(o->list[id]);
        if (o->out)
            free(o->out[id]);
        if (o->steady)
            free(o->steady[id]);
    }
    free(o->c), free(o->list), free(o->nlist), free(o->median), free(o->out), free(o->steady), free(o->top);
    free(o);
}

const psk_foutlier *psk_folded_outliers(const psk_folded *f, int32_t id, int *n, double *median_ns)
{
    const fold_outliers *o = f->outliers;
    *n = 0;
    if (median_ns)
        *median_ns = 0;
    if (!o || !o->list || id < 0 || id >= o->nn)
        return NULL;
    *n = o->nlist[id];
    if (median_ns)
        *median_ns = o->median[id];
    return o->list[id];
}

int psk_folded_outlier_compute(const psk_folded *f, int32_t id, int rank, double *outlier_ns, double *steady_ns)
{
    const fold_outliers *o = f->outliers;
    *outlier_ns = *steady_ns = 0;
    if (!o || !o->out || id < 0 || id >= o->nn || !o->out[id] || rank < 0 || rank >= o->P)
        return 0;
    *outlier_ns = o->out[id][rank];
    *steady_ns = o->steady[id][rank];
    return o->nlist[id] > 0;
}
