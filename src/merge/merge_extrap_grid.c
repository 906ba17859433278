/* The grid of process-count extrapolation: the world's grid at P (the
 * recorded MPI_Cart_create's if the peers and rank sets follow it, else
 * found from them) and at P2 (MPI_Dims_create's, with the dims kept
 * fixed), each rank set as a box of it whose ends keep their width, and
 * each P2 rank's template: a recorded rank in exactly the same boxes, so
 * that P -> P maps every rank to itself. */
#include <stdlib.h>
#include <string.h>

#include "merge_extrap.h"
#include "merge_internal.h"

/* ---- the grid: row-major coordinates, the last dimension fastest ---- */

void xgrid_coords(const int *D, int nd, int64_t r, int *c)
{
    for (int k = nd - 1; k >= 0; k--) {
        c[k] = (int)(r % D[k]);
        r /= D[k];
    }
}

int64_t xgrid_shift(const int *D, int nd, int64_t r, int dim, int64_t s, int periodic)
{
    int c[MAXD];
    xgrid_coords(D, nd, r, c);
    int64_t v = c[dim] + s;
    if (periodic)
        v = ((v % D[dim]) + D[dim]) % D[dim];
    else if (v < 0 || v >= D[dim])
        return PSK_PROC_NULL;
    int64_t out = 0;
    for (int k = 0; k < nd; k++)
        out = out * D[k] + (k == dim ? v : c[k]);
    return out;
}

/* MPI_Dims_create(n, nd): factors as equal as can be, non-increasing */
void xgrid_dims_create(int n, int nd, int *D)
{
    for (int k = 0; k < nd; k++)
        D[k] = 1;
    int f[64], nf = 0;
    for (int p = 2; (long long)p * p <= n; p++)
        while (n % p == 0 && nf < 64)
            f[nf++] = p, n /= p;
    if (n > 1)
        f[nf++] = n;
    for (int i = nf - 1; i >= 0; i--) { /* largest factor to the smallest dimension */
        int k = 0;
        for (int j = 1; j < nd; j++)
            if (D[j] < D[k])
                k = j;
        D[k] *= f[i];
    }
    for (int i = 0; i < nd; i++) /* sort non-increasing */
        for (int j = i + 1; j < nd; j++)
            if (D[j] > D[i]) {
                int t = D[i];
                D[i] = D[j];
                D[j] = t;
            }
}

/* MPI_Dims_create(n, nd) with the dims given: non-zero ones kept, the
 * others as equal as can be (non-increasing); -1 if the product of the
 * kept ones does not divide n */
int xgrid_dims_fixed(int n, int nd, const int *given, int *D)
{
    int fixed = 1, nfree = 0, F[MAXD];
    if (nd == 1) { /* a line: all the ranks, whatever was given */
        D[0] = n;
        return 0;
    }
    for (int k = 0; k < nd; k++) {
        if (given[k] > 0)
            fixed *= given[k];
        else
            nfree++;
    }
    if (fixed <= 0 || n % fixed || (!nfree && fixed != n))
        return -1;
    if (nfree)
        xgrid_dims_create(n / fixed, nfree, F);
    for (int k = 0, i = 0; k < nd; k++)
        D[k] = given[k] > 0 ? given[k] : F[i++];
    return 0;
}

/* known[k]: the periodicity of dimension k if recorded, else -1 (either) */
int xgrid_match_shift(const int *D, int nd, const int *known, const ptable *t, int *dim, int64_t *s, int *periodic)
{
    for (int k = 0; k < nd; k++)
        for (int per = 0; per < 2; per++)
            for (int64_t d = -(D[k] - 1); d < D[k] && (known[k] < 0 || known[k] == per); d++) {
                if (!d)
                    continue;
                int j;
                for (j = 0; j < t->np && t->v[j] == xgrid_shift(D, nd, t->crank[j], k, d, per); j++)
                    ;
                if (j == t->np) {
                    *dim = k, *s = d, *periodic = per;
                    return 1;
                }
            }
    return 0;
}

static const int unknown_per[MAXD] = {-1, -1, -1};

static int grid_fits(const int *D, int nd, const int *known, const ptable *t, int nt)
{
    int dim, per;
    int64_t s;
    for (int i = 0; i < nt; i++)
        if (!xgrid_match_shift(D, nd, known, &t[i], &dim, &s, &per))
            return 0;
    return 1;
}

/* 1 if every rank set of m is a box of the grid D */
static int sets_fit(const psk_merged *m, const int *D, int nd)
{
    uint32_t n = psk_intern_count(m->psets);
    for (uint32_t s = 0; s < n; s++) {
        size_t len;
        const int32_t *r = (const int32_t *)(const void *)psk_intern_key(m->psets, s, &len);
        int np = (int)(len / sizeof *r), mn[MAXD], mx[MAXD], c[MAXD];
        for (int k = 0; k < nd; k++)
            mn[k] = D[k], mx[k] = -1;
        for (int j = 0; j < np; j++) {
            xgrid_coords(D, nd, r[j], c);
            for (int k = 0; k < nd; k++)
                mn[k] = c[k] < mn[k] ? c[k] : mn[k], mx[k] = c[k] > mx[k] ? c[k] : mx[k];
        }
        long long vol = 1;
        for (int k = 0; k < nd; k++)
            vol *= mx[k] - mn[k] + 1;
        if (vol != np)
            return 0;
    }
    return 1;
}

/* The world's grid: 1-D if the peers (rank + c, rings) and rank sets fit
 * it; else MPI_Dims_create's shape for 2 or 3 dimensions whose shifts give
 * every peer that is not a constant (rank + c and rings too: a grid seen
 * in the rank sets alone may be chance) and whose boxes every rank set is */
int xgrid_find(xctx *x, const ptable *t, int nt)
{
    memcpy(x->per, unknown_per, sizeof x->per);
    if (x->rnd) {
        /* the recorded grid, if the peers and rank sets follow it
         * (dimensions of 1 and the periods are then known) */
        if (grid_fits(x->rD, x->rnd, x->rper, t, nt) && sets_fit(x->m, x->rD, x->rnd)) {
            x->nd = x->rnd;
            memcpy(x->D, x->rD, sizeof x->D);
            memcpy(x->per, x->rper, sizeof x->per);
            x->rep->grid_recorded = 1;
            return 0;
        }
        x->rnd = 0; /* another grid: inferred as for older traces */
    }
    x->nd = 1;
    x->D[0] = x->P;
    if (grid_fits(x->D, 1, unknown_per, t, nt) && sets_fit(x->m, x->D, 1))
        return 0;
    for (int nd = 2; nd <= MAXD; nd++) {
        int D[MAXD];
        xgrid_dims_create(x->P, nd, D);
        int ok = 1;
        for (int k = 0; k < nd; k++)
            ok &= D[k] > 1;
        if (ok && grid_fits(D, nd, unknown_per, t, nt) && sets_fit(x->m, D, nd)) {
            x->nd = nd;
            memcpy(x->D, D, sizeof D);
            return 0;
        }
    }
    /* some grid of another shape? say so: its shape at P2 is unknown */
    for (int a = 2; a < x->P; a++)
        if (x->P % a == 0) {
            int D[MAXD] = {a, x->P / a, 1};
            if (nt && grid_fits(D, 2, unknown_per, t, nt))
                return xrefuse(x, x->rep->base,
                               "the peers of event %llu (%s) are neighbours on a %dx%d grid, not MPI_Dims_create's "
                               "shape for %d ranks: its shape at %d ranks cannot be told",
                               (unsigned long long)t[0].event, xfname(t[0].fn), D[0], D[1], x->P, x->P2);
        }
    for (int i = 0; i < nt; i++)
        if (!grid_fits(x->D, 1, unknown_per, &t[i], 1))
            return xrefuse(x, x->rep->base,
                           "event %llu (%s): the peers are a per-rank table (no rank + c, ring or Cartesian "
                           "neighbour): it cannot be rebuilt for %d ranks",
                           (unsigned long long)t[i].event, xfname(t[i].fn), x->P2);
    return 0;
}

/* ---- rank sets: boxes of the grid ---- */

int xgrid_boxes(xctx *x)
{
    psk_merged *m = x->m;
    x->nsets = psk_intern_count(m->psets);
    x->box = calloc(x->nsets ? x->nsets : 1, sizeof *x->box);
    if (!x->box)
        return xnomem(x);
    for (uint32_t s = 0; s < x->nsets; s++) {
        size_t len;
        const int32_t *r = (const int32_t *)(const void *)psk_intern_key(m->psets, s, &len);
        int n = (int)(len / sizeof *r), mn[MAXD], mx[MAXD], c[MAXD];
        xbox *b = &x->box[s];
        b->id2 = -1;
        for (int k = 0; k < x->nd; k++)
            mn[k] = x->D[k], mx[k] = -1;
        for (int j = 0; j < n; j++) {
            xgrid_coords(x->D, x->nd, r[j], c);
            for (int k = 0; k < x->nd; k++)
                mn[k] = c[k] < mn[k] ? c[k] : mn[k], mx[k] = c[k] > mx[k] ? c[k] : mx[k];
        }
        long long vol = 1;
        for (int k = 0; k < x->nd; k++)
            vol *= mx[k] - mn[k] + 1;
        if (vol != n) {
            /* the first event of the set, for the message */
            uint64_t e = 0;
            while (e < m->n && m->cinfo[m->cls[e]].pset != s)
                e++;
            return xrefuse(x, x->rep->base,
                           "event %llu (%s): the %d ranks taking part (first %d, last %d) are no range of the "
                           "%d-rank grid: they cannot be rebuilt for %d ranks",
                           (unsigned long long)e, e < m->n ? xfname(m->cinfo[m->cls[e]].fn) : "?", n, r[0], r[n - 1],
                           x->P, x->P2);
        }
        for (int k = 0; k < x->nd; k++) {
            b->lo[k] = mn[k];
            b->hi[k] = x->D[k] - 1 - mx[k];
            b->len[k] = mx[k] - mn[k] + 1;
            /* a range no longer than what it leaves out keeps its length
             * (a root, the first row); else it stretches with the grid */
            b->fixed[k] = b->len[k] <= (b->lo[k] > b->hi[k] ? b->lo[k] : b->hi[k]);
        }
    }
    return 0;
}

/* the box's range in dimension k at P2: [*a, *z) */
void xgrid_box_range(const xctx *x, const xbox *b, int k, int *a, int *z)
{
    if (!b->fixed[k]) {
        *a = b->lo[k];
        *z = x->D2[k] - b->hi[k];
    } else if (b->lo[k] <= b->hi[k]) {
        *a = b->lo[k];
        *z = b->lo[k] + b->len[k];
    } else {
        *z = x->D2[k] - b->hi[k];
        *a = *z - b->len[k];
    }
}

int xgrid_in_box2(const xctx *x, const xbox *b, const int *c)
{
    for (int k = 0; k < x->nd; k++) {
        int a, z;
        xgrid_box_range(x, b, k, &a, &z);
        if (c[k] < a || c[k] >= z)
            return 0;
    }
    return 1;
}

static int in_box(const xctx *x, const xbox *b, const int *c)
{
    for (int k = 0; k < x->nd; k++)
        if (c[k] < b->lo[k] || c[k] >= x->D[k] - b->hi[k])
            return 0;
    return 1;
}

/* Each P2 rank's template: a recorded rank in exactly the same sets,
 * the one at the same place from the nearer end of each dimension if it
 * is (so P -> P maps every rank to itself), else the first found. */
int xgrid_templates(xctx *x)
{
    int W = (int)((x->nsets + 63) / 64);
    uint64_t *sig = calloc((size_t)x->P * (size_t)(W ? W : 1), sizeof *sig), *s2 = calloc((size_t)(W ? W : 1), sizeof *s2);
    x->tmpl = malloc((size_t)x->P2 * sizeof *x->tmpl);
    if (!sig || !s2 || !x->tmpl) {
        free(sig), free(s2);
        return xnomem(x);
    }
    int c[MAXD], c2[MAXD], B[MAXD] = {0};
    for (uint32_t s = 0; s < x->nsets; s++)
        for (int k = 0; k < x->nd; k++) {
            /* the boundary width: what a set leaves out at an end, or
             * the length of one kept at an end */
            const xbox *b = &x->box[s];
            int w = !b->fixed[k] ? (b->lo[k] > b->hi[k] ? b->lo[k] : b->hi[k])
                    : b->lo[k] <= b->hi[k] ? b->lo[k] + b->len[k] : b->hi[k] + b->len[k];
            B[k] = w > B[k] ? w : B[k];
        }
    for (int r = 0; r < x->P; r++) {
        xgrid_coords(x->D, x->nd, r, c);
        for (uint32_t s = 0; s < x->nsets; s++)
            if (in_box(x, &x->box[s], c))
                sig[(size_t)r * W + s / 64] |= 1ull << (s % 64);
    }
    int rc = 0;
    for (int r2 = 0; r2 < x->P2 && !rc; r2++) {
        xgrid_coords(x->D2, x->nd, r2, c2);
        memset(s2, 0, (size_t)W * sizeof *s2);
        for (uint32_t s = 0; s < x->nsets; s++)
            if (xgrid_in_box2(x, &x->box[s], c2))
                s2[s / 64] |= 1ull << (s % 64);
        int t = 0;
        for (int k = 0; k < x->nd; k++) {
            int D = x->D[k], D2 = x->D2[k], b = B[k] < D / 2 ? B[k] : D / 2, v;
            if (c2[k] < b)
                v = c2[k];
            else if (c2[k] >= D2 - b)
                v = D - (D2 - c2[k]);
            else
                v = D - 2 * b > 0 ? b + (c2[k] - b) % (D - 2 * b) : (c2[k] < D ? c2[k] : D - 1);
            t = t * D + (v < 0 ? 0 : v >= D ? D - 1 : v);
        }
        if (W && memcmp(&sig[(size_t)t * W], s2, (size_t)W * sizeof *s2)) {
            for (t = 0; t < x->P && memcmp(&sig[(size_t)t * W], s2, (size_t)W * sizeof *s2); t++)
                ;
            if (t == x->P)
                rc = xrefuse(x, -1, "--ranks %d: rank %d would take part in a combination of events no recorded rank "
                                    "took part in (a recording where every rank is at an end of the grid cannot tell "
                                    "the inner ranks' events: record more ranks per dimension, or pass "
                                    "MPI_PROC_NULL at the boundaries)",
                             x->P2, r2);
        }
        x->tmpl[r2] = t;
    }
    free(sig);
    free(s2);
    return rc;
}
