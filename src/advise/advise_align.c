/* The alignment of array dimensions into template dimensions: data space
 * fusion ("Data Space Fusion Based Approach for Effective Alignment of
 * Computation and Data", Journal of Software 15(9), 2004), done greedily
 * (docs/advise.md "How it chooses", step 1). Every pair of references that
 * one loop variable subscripts (a statement's left side or the nest's home
 * against each read; a sequential loop's too, so that owner computes finds
 * what it reads at home) is an arc between two array dimensions, weighted
 * by the iterations that would move data if they were not aligned. Arcs
 * join classes heaviest first in a union-find that keeps each member's
 * orientation (+1/-1) relative to its root; an arc that would put two
 * dimensions of one array in a class, or give a member two orientations, is
 * left as communication. Offsets are then the weighted median of what the
 * arcs ask for, so that the rest become shadow edges. */
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"

typedef struct arc {
    int a, b;            /* nodes */
    int64_t rel;         /* orientation of b relative to a: +1 or -1 */
    int64_t delta;       /* off[b] - off[a] = coef[a] * delta when aligned */
    double w;
} arc;

/* iterations of a nest's loops, bounds taken at their widest (a hull) */
static double nest_iterations(const adv_nest *ne)
{
    double lo[ADV_MAXDIM], hi[ADV_MAXDIM], it = 1;
    psk_adv_loop_hulls(ne, lo, hi);
    for (int l = 0; l < ne->nloops; l++)
        it *= hi[l] >= lo[l] ? hi[l] - lo[l] + 1 : 0;
    return it;
}

static int is_par(const adv_nest *ne, int v)
{
    return v >= ne->first_par && v < ne->end_par;
}

static int add_arcs(const psk_adv_program *p, const adv_ref *x, const adv_ref *y, double w,
                    arc **arcs, int *narcs, int *cap)
{
    int nx = p->arrays[x->array].ndim, ny = p->arrays[y->array].ndim;
    for (int d1 = 0; d1 < nx; d1++) {
        int v = x->sub_var[d1];
        if (v < 0)
            continue;
        for (int d2 = 0; d2 < ny; d2++) {
            if (y->sub_var[d2] != v)
                continue;
            int64_t c1 = x->sub_coef[d1], c2 = y->sub_coef[d2];
            if (c1 != c2 && c1 != -c2)
                continue; /* strides that differ: communication, not alignment */
            if (*narcs == *cap) {
                int nc = *cap ? *cap * 2 : 64;
                arc *na = realloc(*arcs, (size_t)nc * sizeof *na);
                if (!na)
                    return PSK_ENOMEM;
                *arcs = na;
                *cap = nc;
            }
            /* x's element c1 v + k1 and y's c2 v + k2 at one position:
             * with y's orientation rel = c1 / c2 relative to x's,
             * off_y = off_x + o_x k1 - o_y k2; relative to x (o_x = 1):
             * delta = k1 - rel k2 */
            int64_t rel = c1 == c2 ? 1 : -1;
            arc *a = &(*arcs)[(*narcs)++];
            a->a = x->array * ADV_MAXDIM + d1;
            a->b = y->array * ADV_MAXDIM + d2;
            a->rel = rel;
            a->delta = x->sub_off[d1] - rel * y->sub_off[d2];
            a->w = w;
        }
    }
    return PSK_OK;
}

static int by_weight(const void *pa, const void *pb)
{
    const arc *a = pa, *b = pb;
    if (a->w != b->w)
        return a->w > b->w ? -1 : 1;
    if (a->a != b->a)
        return a->a - b->a;
    return a->b - b->b;
}

/* union-find with each node's orientation relative to its parent;
 * returns x's root and, in *o, x's orientation relative to it */
static int find(int *parent, int64_t *orient, int x, int64_t *o)
{
    if (parent[x] == x) {
        *o = 1;
        return x;
    }
    int64_t op;
    int r = find(parent, orient, parent[x], &op);
    orient[x] *= op;
    parent[x] = r;
    *o = orient[x];
    return r;
}

static int cmp_pair(const void *pa, const void *pb)
{
    const double *a = pa, *b = pb;
    return a[0] < b[0] ? -1 : a[0] > b[0];
}

int psk_adv_align(const psk_adv_program *p, adv_align *al)
{
    memset(al, 0, sizeof *al);
    int nn = p->narrays * ADV_MAXDIM;
    al->nnode = nn;
    arc *arcs = NULL;
    int narcs = 0, cap = 0, rc = PSK_ENOMEM;
    int *parent = malloc((size_t)(nn ? nn : 1) * sizeof *parent);
    int64_t *orient = malloc((size_t)(nn ? nn : 1) * sizeof *orient);
    int *root_of = NULL, *done = NULL;
    double *cand = NULL;
    al->cls = malloc((size_t)(nn ? nn : 1) * sizeof *al->cls);
    al->coef = calloc((size_t)(nn ? nn : 1), sizeof *al->coef);
    al->off = calloc((size_t)(nn ? nn : 1), sizeof *al->off);
    if (!parent || !orient || !al->cls || !al->coef || !al->off)
        goto out;

    for (int n = 0; n < p->nnests; n++) {
        const adv_nest *ne = &p->nests[n];
        const adv_ref *home = psk_adv_home(p, n);
        double w = (double)ne->count * (double)p->repeat * nest_iterations(ne);
        for (int s = 0; s < ne->nstmts; s++) {
            const adv_stmt *st = &ne->stmts[s];
            const adv_ref *lhs = st->lhs_array >= 0 ? &st->lhs : home;
            if (!lhs)
                continue;
            if (home && lhs != home && (rc = add_arcs(p, home, lhs, w, &arcs, &narcs, &cap)))
                goto out;
            for (int r = 0; r < st->nreads; r++)
                if ((rc = add_arcs(p, lhs, &st->reads[r], w, &arcs, &narcs, &cap)))
                    goto out;
        }
    }
    rc = PSK_ENOMEM;
    if (narcs)
        qsort(arcs, (size_t)narcs, sizeof *arcs, by_weight);
    al->narcs = narcs;

    for (int i = 0; i < nn; i++) {
        parent[i] = i;
        orient[i] = 1;
    }
    /* accepted[i]: arc i joined or agreed with its class */
    char *accepted = calloc((size_t)(narcs ? narcs : 1), 1);
    if (!accepted)
        goto out;
    for (int i = 0; i < narcs; i++) {
        arc *a = &arcs[i];
        int64_t oa, ob;
        int ra = find(parent, orient, a->a, &oa), rb = find(parent, orient, a->b, &ob);
        if (ra == rb) {
            /* b's orientation relative to a must be rel */
            accepted[i] = oa * ob == a->rel;
            continue;
        }
        /* two dimensions of one array may not share a class */
        int clash = 0;
        for (int x = 0; x < nn && !clash; x++) {
            int64_t ox;
            if (find(parent, orient, x, &ox) != ra)
                continue;
            for (int y = 0; y < nn; y++) {
                int64_t oy;
                if (y / ADV_MAXDIM == x / ADV_MAXDIM && y != x &&
                    find(parent, orient, y, &oy) == rb) {
                    clash = 1;
                    break;
                }
            }
        }
        if (clash)
            continue;
        /* attach rb under ra: o(b rel root a) = rel * oa must equal
         * orient[rb] * ob */
        parent[rb] = ra;
        orient[rb] = a->rel * oa * ob;
        accepted[i] = 1;
    }

    /* classes: one per root among existing dimensions */
    root_of = malloc((size_t)(nn ? nn : 1) * sizeof *root_of);
    if (!root_of) {
        free(accepted);
        goto out;
    }
    for (int i = 0; i < nn; i++)
        root_of[i] = -1;
    al->nclass = 0;
    for (int i = 0; i < nn; i++) {
        al->cls[i] = -1;
        if (i % ADV_MAXDIM >= p->arrays[i / ADV_MAXDIM].ndim)
            continue;
        int64_t o;
        int r = find(parent, orient, i, &o);
        if (root_of[r] < 0)
            root_of[r] = al->nclass++;
        al->cls[i] = root_of[r];
        al->coef[i] = o;
    }

    /* offsets: place the nodes of each class in the order of their
     * heaviest accepted arc, each at the weighted median of what its arcs
     * to placed nodes ask (an arc asks off_b = off_a + coef_a * delta) */
    done = calloc((size_t)(nn ? nn : 1), sizeof *done);
    cand = malloc((size_t)(2 * (narcs + 1)) * sizeof *cand);
    if (!done || !cand) {
        free(accepted);
        goto out;
    }
    for (int progress = 1; progress;) {
        progress = 0;
        for (int i = 0; i < narcs; i++) {
            /* an arc from a dimension to itself (A[i] from A[i-1]) places
             * nothing: it is a shadow edge whatever the offset */
            if (!accepted[i] || arcs[i].a == arcs[i].b)
                continue;
            int x = arcs[i].a, y = arcs[i].b, place = -1;
            if (done[x] && !done[y])
                place = y;
            else if (done[y] && !done[x])
                place = x;
            else if (!done[x] && !done[y]) {
                /* a class's first node: its heaviest arc's end, at 0 */
                int seen = 0;
                for (int k = 0; k < nn; k++)
                    if (done[k] && al->cls[k] == al->cls[x]) {
                        seen = 1;
                        break;
                    }
                if (seen)
                    continue;
                done[x] = 1;
                al->off[x] = 0;
                place = y;
            }
            if (place < 0)
                continue;
            /* weighted median over the accepted arcs joining place to
             * placed nodes */
            int nc = 0;
            double tot = 0;
            for (int k = 0; k < narcs; k++) {
                if (!accepted[k])
                    continue;
                int64_t want;
                if (arcs[k].a == arcs[k].b)
                    continue;
                if (arcs[k].b == place && done[arcs[k].a])
                    want = al->off[arcs[k].a] + al->coef[arcs[k].a] * arcs[k].delta;
                else if (arcs[k].a == place && done[arcs[k].b])
                    want = al->off[arcs[k].b] - al->coef[arcs[k].a] * arcs[k].delta;
                else
                    continue;
                cand[2 * nc] = (double)want;
                cand[2 * nc + 1] = arcs[k].w;
                tot += arcs[k].w;
                nc++;
            }
            qsort(cand, (size_t)nc, 2 * sizeof *cand, cmp_pair);
            double acc = 0;
            int64_t med = 0;
            for (int k = 0; k < nc; k++) {
                acc += cand[2 * k + 1];
                if (acc * 2 >= tot) {
                    med = (int64_t)cand[2 * k];
                    break;
                }
            }
            al->off[place] = med;
            done[place] = 1;
            progress = 1;
        }
    }
    int nrej = 0;
    for (int i = 0; i < narcs; i++)
        nrej += !accepted[i];
    al->nrejected = nrej;
    free(accepted);

    /* ranges and weights */
    al->clo = malloc((size_t)(al->nclass ? al->nclass : 1) * sizeof *al->clo);
    al->chi = malloc((size_t)(al->nclass ? al->nclass : 1) * sizeof *al->chi);
    al->weight = calloc((size_t)(al->nclass ? al->nclass : 1), sizeof *al->weight);
    if (!al->clo || !al->chi || !al->weight)
        goto out;
    for (int c = 0; c < al->nclass; c++) {
        al->clo[c] = INT64_MAX;
        al->chi[c] = INT64_MIN;
    }
    for (int i = 0; i < nn; i++) {
        int c = al->cls[i];
        if (c < 0)
            continue;
        int64_t n = p->arrays[i / ADV_MAXDIM].extent[i % ADV_MAXDIM];
        int64_t e0 = al->off[i], e1 = al->coef[i] * (n - 1) + al->off[i];
        int64_t lo = e0 < e1 ? e0 : e1, hi = e0 < e1 ? e1 : e0;
        if (lo < al->clo[c])
            al->clo[c] = lo;
        if (hi > al->chi[c])
            al->chi[c] = hi;
    }
    for (int n = 0; n < p->nnests; n++) {
        const adv_nest *ne = &p->nests[n];
        const adv_ref *home = psk_adv_home(p, n);
        if (!home)
            continue;
        double w = (double)ne->count * (double)p->repeat * nest_iterations(ne);
        for (int d = 0; d < p->arrays[home->array].ndim; d++) {
            int v = home->sub_var[d];
            if (v >= 0 && is_par(ne, v))
                al->weight[al->cls[home->array * ADV_MAXDIM + d]] += w > 0 ? w : 1;
        }
    }
    rc = PSK_OK;
out:
    free(arcs);
    free(parent);
    free(orient);
    free(root_of);
    free(done);
    free(cand);
    if (rc)
        psk_adv_align_free(al);
    return rc;
}

void psk_adv_align_free(adv_align *a)
{
    if (!a)
        return;
    free(a->cls);
    free(a->coef);
    free(a->off);
    free(a->clo);
    free(a->chi);
    free(a->weight);
    memset(a, 0, sizeof *a);
}
