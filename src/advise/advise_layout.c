/* perfskel advise: a layout and what it gives each processor. The two-stage
 * mapping of docs/advise.md "What a layout means" (DVM's, as in the DVM
 * Predictor's detailed design, 2000, section 4.1): array dimensions on
 * template positions coef * index + off, template dimensions cut in BLOCKs
 * of ceil(n / e) on grid axes (the last blocks may be empty), ranks
 * row-major on the grid. Everything here is exact integer interval
 * arithmetic: a processor's part of an array is a box, one interval per
 * dimension, never a set of elements. */
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"

static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t ceildiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

int psk_adv_layout_init(adv_layout *l, int narrays)
{
    memset(l, 0, sizeof *l);
    size_t n = (size_t)(narrays > 0 ? narrays : 1);
    l->grid.naxes = 1;
    l->grid.extent[0] = 1;
    l->map = calloc(n * ADV_MAXDIM, sizeof *l->map);
    l->replicated = calloc(n, sizeof *l->replicated);
    l->shadow_lo = calloc(n * ADV_MAXDIM, sizeof *l->shadow_lo);
    l->shadow_hi = calloc(n * ADV_MAXDIM, sizeof *l->shadow_hi);
    if (!l->map || !l->replicated || !l->shadow_lo || !l->shadow_hi) {
        psk_adv_layout_free(l);
        return PSK_ENOMEM;
    }
    for (size_t i = 0; i < n * ADV_MAXDIM; i++)
        l->map[i].tdim = -1, l->map[i].coef = 1;
    return PSK_OK;
}

void psk_adv_layout_free(adv_layout *l)
{
    if (!l)
        return;
    free(l->map);
    free(l->replicated);
    free(l->shadow_lo);
    free(l->shadow_hi);
    memset(l, 0, sizeof *l);
}

int psk_adv_layout_copy(adv_layout *dst, const adv_layout *src, int narrays)
{
    adv_layout t;
    int rc = psk_adv_layout_init(&t, narrays);
    if (rc != PSK_OK)
        return rc;
    size_t n = (size_t)(narrays > 0 ? narrays : 0);
    t.grid = src->grid;
    t.ntdim = src->ntdim;
    memcpy(t.tlo, src->tlo, sizeof t.tlo);
    memcpy(t.thi, src->thi, sizeof t.thi);
    memcpy(t.taxis, src->taxis, sizeof t.taxis);
    if (n) {
        memcpy(t.map, src->map, n * ADV_MAXDIM * sizeof *t.map);
        memcpy(t.replicated, src->replicated, n * sizeof *t.replicated);
        memcpy(t.shadow_lo, src->shadow_lo, n * ADV_MAXDIM * sizeof *t.shadow_lo);
        memcpy(t.shadow_hi, src->shadow_hi, n * ADV_MAXDIM * sizeof *t.shadow_hi);
    }
    /* dst may be src itself: freed only once copied */
    psk_adv_layout_free(dst);
    *dst = t;
    return PSK_OK;
}

int64_t psk_adv_nprocs(const adv_grid *g)
{
    int64_t P = 1;
    for (int a = 0; a < g->naxes; a++)
        P *= g->extent[a];
    return P;
}

void psk_adv_coords(const adv_grid *g, int64_t rank, int64_t *coord)
{
    for (int a = g->naxes - 1; a >= 0; a--) {
        coord[a] = rank % g->extent[a];
        rank /= g->extent[a];
    }
}

int psk_adv_block(const adv_layout *l, int t, int64_t c, int64_t *lo, int64_t *hi)
{
    int64_t tlo = l->tlo[t], thi = l->thi[t];
    int ax = l->taxis[t];
    if (ax < 0) {
        *lo = tlo, *hi = thi;
        return tlo <= thi;
    }
    int64_t n = thi - tlo + 1, e = l->grid.extent[ax];
    if (n <= 0)
        return *lo = 1, *hi = 0, 0;
    int64_t b = ceildiv(n, e);
    *lo = tlo + c * b;
    *hi = tlo + (c + 1) * b - 1;
    if (*hi > thi)
        *hi = thi;
    return *lo <= *hi;
}

int psk_adv_preimage(int64_t A, int64_t B, int64_t lo, int64_t hi, int64_t *vlo, int64_t *vhi)
{
    if (A == 0) { /* a constant position: every v, or none */
        *vlo = INT64_MIN / 4, *vhi = INT64_MAX / 4;
        return B >= lo && B <= hi;
    }
    if (A > 0)
        *vlo = ceildiv(lo - B, A), *vhi = floordiv(hi - B, A);
    else
        *vlo = ceildiv(hi - B, A), *vhi = floordiv(lo - B, A);
    return *vlo <= *vhi;
}

int psk_adv_dim_axis(const adv_layout *l, int a, int d, int *axis)
{
    if (l->replicated[a])
        return 0;
    int t = l->map[a * ADV_MAXDIM + d].tdim;
    if (t < 0 || t >= l->ntdim || l->taxis[t] < 0)
        return 0;
    *axis = l->taxis[t];
    return 1;
}

int psk_adv_everywhere(const psk_adv_program *p, const adv_layout *l, int a)
{
    int ax;
    for (int d = 0; d < p->arrays[a].ndim; d++)
        if (psk_adv_dim_axis(l, a, d, &ax))
            return 0;
    return 1;
}

int psk_adv_owned(const psk_adv_program *p, const adv_layout *l, int a, const int64_t *coord,
                  int64_t *lo, int64_t *hi)
{
    const adv_array *x = &p->arrays[a];
    int any = 1;
    for (int d = 0; d < x->ndim; d++) {
        lo[d] = 0, hi[d] = x->extent[d] - 1;
        int ax;
        if (psk_adv_dim_axis(l, a, d, &ax)) {
            const adv_dimmap *mp = &l->map[a * ADV_MAXDIM + d];
            int64_t blo, bhi, vlo, vhi;
            if (!psk_adv_block(l, mp->tdim, coord[ax], &blo, &bhi) ||
                !psk_adv_preimage(mp->coef, mp->off, blo, bhi, &vlo, &vhi)) {
                any = 0;
                continue;
            }
            if (vlo > lo[d])
                lo[d] = vlo;
            if (vhi < hi[d])
                hi[d] = vhi;
        }
        if (lo[d] > hi[d])
            any = 0;
    }
    return any;
}

/* The memory an array takes on a processor: its box widened by the
 * layout's shadow edges on each side (clipped to the array), elements x
 * element size; 0 where it holds nothing. */
int64_t psk_adv_local_bytes(const psk_adv_program *p, const adv_layout *l, int a, int64_t rank)
{
    int64_t coord[ADV_MAXDIM], lo[ADV_MAXDIM], hi[ADV_MAXDIM];
    const adv_array *x = &p->arrays[a];
    psk_adv_coords(&l->grid, rank, coord);
    if (!psk_adv_owned(p, l, a, coord, lo, hi))
        return 0;
    int64_t n = x->elsize;
    for (int d = 0; d < x->ndim; d++) {
        int ax;
        if (psk_adv_dim_axis(l, a, d, &ax)) {
            lo[d] -= l->shadow_lo[a * ADV_MAXDIM + d];
            hi[d] += l->shadow_hi[a * ADV_MAXDIM + d];
            if (lo[d] < 0)
                lo[d] = 0;
            if (hi[d] > x->extent[d] - 1)
                hi[d] = x->extent[d] - 1;
        }
        n *= hi[d] - lo[d] + 1;
    }
    return n;
}
