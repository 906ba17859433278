/* perfskel advise: how a nest reads under a layout, and who holds what.
 * A reference is local, read through a shadow edge or remote, against the
 * nest's home (docs/advise.md "What a layout means", owner computes). A
 * processor's part of an array is a box, tabulated once per array and
 * layout (adv_owntab) for the nest's cost and the redistributions to look
 * up; the owners a box meets are found by block arithmetic per axis, never
 * by scanning every processor. */
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"

/* ---- how a nest reads ---- */

int64_t psk_adv_array_bytes(const adv_array *x)
{
    int64_t n = x->elsize;
    for (int d = 0; d < x->ndim; d++)
        n *= x->extent[d];
    return n;
}

const adv_ref *psk_adv_home(const psk_adv_program *p, int n)
{
    const adv_nest *ns = &p->nests[n];
    if (ns->nstmts < 1)
        return NULL;
    if (ns->stmts[0].lhs_array >= 0)
        return &ns->stmts[0].lhs;
    const adv_ref *best = NULL; /* the largest array read, the first on ties */
    for (int s = 0; s < ns->nstmts; s++)
        for (int i = 0; i < ns->stmts[s].nreads; i++) {
            const adv_ref *r = &ns->stmts[s].reads[i];
            if (!best || psk_adv_array_bytes(&p->arrays[r->array]) > psk_adv_array_bytes(&p->arrays[best->array]))
                best = r;
        }
    return best;
}

int psk_adv_classify(const psk_adv_program *p, int n, const adv_layout *l, const adv_ref *r,
                     int64_t *off)
{
    const adv_ref *h = psk_adv_home(p, n);
    int x = r->array, kind = ADV_LOCAL;
    if (off)
        memset(off, 0, sizeof *off * ADV_MAXDIM);
    if (psk_adv_everywhere(p, l, x))
        return ADV_LOCAL;
    if (!h)
        return ADV_REMOTE;
    for (int d = 0; d < p->arrays[x].ndim; d++) {
        int ax, hax, e;
        if (!psk_adv_dim_axis(l, x, d, &ax))
            continue;
        const adv_dimmap *mx = &l->map[x * ADV_MAXDIM + d];
        for (e = 0; e < p->arrays[h->array].ndim; e++)
            if (psk_adv_dim_axis(l, h->array, e, &hax) && l->map[h->array * ADV_MAXDIM + e].tdim == mx->tdim)
                break;
        if (e == p->arrays[h->array].ndim)
            return ADV_REMOTE; /* the home is not on this template dimension */
        const adv_dimmap *mh = &l->map[h->array * ADV_MAXDIM + e];
        /* positions: mx->coef (c v + k) + mx->off against the home's */
        if (r->sub_var[d] != h->sub_var[e] || mx->coef * r->sub_coef[d] != mh->coef * h->sub_coef[e])
            return ADV_REMOTE;
        int64_t delta = (mx->coef * r->sub_off[d] + mx->off) - (mh->coef * h->sub_off[e] + mh->off);
        if (delta == 0)
            continue;
        if (r->sub_var[d] < 0 || mx->coef == 0 || delta > p->maxshadow || -delta > p->maxshadow || delta % mx->coef)
            return ADV_REMOTE;
        kind = ADV_SHADOW;
        if (off)
            off[d] = delta / mx->coef; /* index offset: the coefficient is +-1 */
    }
    return kind;
}

int psk_adv_collect_reads(const psk_adv_program *p, int n, const adv_layout *l, adv_readref **out, int *nout)
{
    const adv_nest *ns = &p->nests[n];
    int k = 0;
    for (int s = 0; s < ns->nstmts; s++)
        k += ns->stmts[s].nreads + (ns->stmts[s].lhs_array >= 0 && ns->stmts[s].assign == ADV_UPDATE);
    adv_readref *v = calloc((size_t)(k > 0 ? k : 1), sizeof *v);
    if (!v)
        return PSK_ENOMEM;
    k = 0;
    for (int s = 0; s < ns->nstmts; s++) {
        const adv_stmt *st = &ns->stmts[s];
        for (int i = 0; i < st->nreads; i++)
            v[k++].r = &st->reads[i];
        if (st->lhs_array >= 0 && st->assign == ADV_UPDATE)
            v[k++].r = &st->lhs;
    }
    for (int i = 0; i < k; i++)
        v[i].cls = psk_adv_classify(p, n, l, v[i].r, v[i].off);
    *out = v, *nout = k;
    return PSK_OK;
}

/* nest n's shadow widths per array dimension (max into lo/hi, narrays x
 * ADV_MAXDIM) and, per array, whether one reference is offset in two or
 * more dimensions at once (corners) */
int psk_adv_nest_widths(const psk_adv_program *p, int n, const adv_layout *l, int *lo, int *hi, int *corner)
{
    adv_readref *v;
    int k, rc = psk_adv_collect_reads(p, n, l, &v, &k);
    if (rc != PSK_OK)
        return rc;
    for (int i = 0; i < k; i++) {
        if (v[i].cls != ADV_SHADOW)
            continue;
        int a = v[i].r->array, dims = 0;
        for (int d = 0; d < p->arrays[a].ndim; d++) {
            int64_t o = v[i].off[d];
            int *w = o < 0 ? &lo[a * ADV_MAXDIM + d] : &hi[a * ADV_MAXDIM + d];
            if (o < 0)
                o = -o;
            if (o > *w)
                *w = (int)o;
            dims += o != 0;
        }
        if (corner && dims >= 2)
            corner[a] = 1;
    }
    free(v);
    return PSK_OK;
}

void psk_adv_shadows(const psk_adv_program *p, adv_layout *l)
{
    size_t n = (size_t)p->narrays * ADV_MAXDIM;
    memset(l->shadow_lo, 0, n * sizeof *l->shadow_lo);
    memset(l->shadow_hi, 0, n * sizeof *l->shadow_hi);
    for (int i = 0; i < p->nnests; i++)
        psk_adv_nest_widths(p, i, l, l->shadow_lo, l->shadow_hi, NULL); /* out of memory: the widths so far */
}

/* ---- what a processor owns, and who owns a box ---- */

int psk_adv_own_build(const psk_adv_program *p, const adv_layout *l, int a, adv_owntab *t)
{
    const adv_array *x = &p->arrays[a];
    size_t tot = 0, at = 0;
    t->ndim = x->ndim;
    for (int d = 0; d < x->ndim; d++) {
        if (!psk_adv_dim_axis(l, a, d, &t->axis[d]))
            t->axis[d] = -1;
        tot += t->axis[d] >= 0 ? (size_t)l->grid.extent[t->axis[d]] : 1;
    }
    t->buf = malloc((3 * tot + (size_t)x->ndim + 1) * sizeof *t->buf);
    if (!t->buf)
        return PSK_ENOMEM;
    for (int d = 0; d < x->ndim; d++) {
        int64_t n = t->axis[d] >= 0 ? l->grid.extent[t->axis[d]] : 1;
        t->lo[d] = t->buf + at, t->hi[d] = t->buf + at + n, t->pre[d] = t->buf + at + 2 * n;
        at += 3 * (size_t)n + 1;
        t->pre[d][0] = 0;
        for (int64_t c = 0; c < n; c++) {
            int64_t lo = 0, hi = x->extent[d] - 1;
            if (t->axis[d] >= 0) {
                const adv_dimmap *mp = &l->map[a * ADV_MAXDIM + d];
                int64_t blo, bhi, vlo, vhi;
                if (!psk_adv_block(l, mp->tdim, c, &blo, &bhi) ||
                    !psk_adv_preimage(mp->coef, mp->off, blo, bhi, &vlo, &vhi)) {
                    vlo = 1, vhi = 0;
                }
                lo = vlo > lo ? vlo : lo, hi = vhi < hi ? vhi : hi;
            }
            t->lo[d][c] = lo, t->hi[d][c] = hi;
            t->pre[d][c + 1] = t->pre[d][c] + (lo > hi ? 0 : hi - lo + 1);
        }
    }
    return PSK_OK;
}

void psk_adv_own_free(adv_owntab *t)
{
    free(t->buf);
    t->buf = NULL;
}

int psk_adv_parts_build(const psk_adv_program *p, const adv_layout *l, adv_parts **out)
{
    adv_parts *pt = calloc(1, sizeof *pt);
    *out = NULL;
    if (!pt || !(pt->t = calloc((size_t)(p->narrays > 0 ? p->narrays : 1), sizeof *pt->t))) {
        free(pt);
        return PSK_ENOMEM;
    }
    for (; pt->narrays < p->narrays; pt->narrays++)
        if (psk_adv_own_build(p, l, pt->narrays, &pt->t[pt->narrays])) {
            psk_adv_parts_free(pt);
            return PSK_ENOMEM;
        }
    *out = pt;
    return PSK_OK;
}

void psk_adv_parts_free(adv_parts *pt)
{
    if (!pt)
        return;
    for (int x = 0; x < pt->narrays; x++)
        psk_adv_own_free(&pt->t[x]);
    free(pt->t);
    free(pt);
}

/* the box the processor at coord holds; 0 if it holds nothing */
int psk_adv_own_get(const adv_owntab *t, const int64_t *coord, int64_t *lo, int64_t *hi)
{
    int any = 1;
    for (int d = 0; d < t->ndim; d++) {
        int64_t c = t->axis[d] >= 0 ? coord[t->axis[d]] : 0;
        lo[d] = t->lo[d][c], hi[d] = t->hi[d][c];
        if (lo[d] > hi[d])
            any = 0;
    }
    return any;
}

/* Per grid axis, the coordinates of the processors whose part of array a
 * can meet box lo..hi: along each distributed dimension the template
 * positions the box covers, pmin..pmax, fall in the blocks
 * (pmin - tlo) / b .. (pmax - tlo) / b; other axes are left whole. 0 if
 * none. */
int psk_adv_owner_range(const psk_adv_program *p, const adv_layout *l, int a, const int64_t *lo, const int64_t *hi,
                        int64_t *clo, int64_t *chi)
{
    for (int ax = 0; ax < l->grid.naxes; ax++)
        clo[ax] = 0, chi[ax] = l->grid.extent[ax] - 1;
    for (int d = 0; d < p->arrays[a].ndim; d++) {
        int ax;
        if (!psk_adv_dim_axis(l, a, d, &ax))
            continue;
        const adv_dimmap *mp = &l->map[a * ADV_MAXDIM + d];
        int64_t p1 = mp->coef * lo[d] + mp->off, p2 = mp->coef * hi[d] + mp->off;
        int64_t pmin = p1 < p2 ? p1 : p2, pmax = p1 < p2 ? p2 : p1;
        int64_t tlo = l->tlo[mp->tdim], thi = l->thi[mp->tdim];
        pmin = pmin > tlo ? pmin : tlo, pmax = pmax < thi ? pmax : thi;
        if (pmin > pmax)
            return 0;
        int64_t e = l->grid.extent[ax], b = (thi - tlo + e) / e; /* ceil(n / e) */
        int64_t c1 = (pmin - tlo) / b, c2 = (pmax - tlo) / b;
        clo[ax] = c1 > clo[ax] ? c1 : clo[ax];
        chi[ax] = c2 < chi[ax] ? c2 : chi[ax];
        if (clo[ax] > chi[ax])
            return 0;
    }
    return 1;
}

/* the next coordinates in the box lo..hi, row-major; 0 after the last */
int psk_adv_next_coord(int naxes, const int64_t *lo, const int64_t *hi, int64_t *c)
{
    for (int a = naxes - 1; a >= 0; a--) {
        if (++c[a] <= hi[a])
            return 1;
        c[a] = lo[a];
    }
    return 0;
}

int64_t psk_adv_rank_of(const adv_grid *g, const int64_t *coord)
{
    int64_t r = 0;
    for (int a = 0; a < g->naxes; a++)
        r = r * g->extent[a] + coord[a];
    return r;
}

/* axes array a is distributed on (bit per axis) */
unsigned psk_adv_dist_axes(const psk_adv_program *p, const adv_layout *l, int a)
{
    unsigned s = 0;
    int ax;
    for (int d = 0; d < p->arrays[a].ndim; d++)
        if (psk_adv_dim_axis(l, a, d, &ax))
            s |= 1u << ax;
    return s;
}
