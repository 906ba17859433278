/* Cartesian grids (psk_cart.h): made from recorded dims and periods,
 * neighbours in the standard's order, and the sub-grid of MPI_Cart_sub
 * told by its members. Ranks are row-major: the last dimension varies
 * fastest. */
#include <stdlib.h>

#include "psk_cart.h"

int psk_cart_make(psk_cart *g, int64_t ndims, const int64_t *dims, const int64_t *periods, int64_t nmembers)
{
    if (ndims < 0 || ndims > PSK_CART_MAXDIMS || (ndims && (!dims || !periods)))
        return -1;
    int64_t prod = 1;
    g->ndims = (int)ndims;
    for (int d = 0; d < g->ndims; d++) {
        if (dims[d] < 1 || dims[d] > nmembers || (prod *= dims[d]) > nmembers)
            return -1;
        g->dims[d] = (int)dims[d];
        g->periods[d] = periods[d] != 0;
    }
    return prod == nmembers ? 0 : -1;
}

int64_t psk_cart_size(const psk_cart *g)
{
    int64_t n = 1;
    for (int d = 0; d < g->ndims; d++)
        n *= g->dims[d];
    return n;
}

int psk_cart_neighbors(const psk_cart *g, int64_t rank, int *nb)
{
    int64_t stride = psk_cart_size(g);
    for (int d = 0; d < g->ndims; d++) {
        stride /= g->dims[d];
        int64_t c = rank / stride % g->dims[d];
        for (int s = 0; s < 2; s++) {
            int64_t x = c + (s ? 1 : -1);
            if (x < 0 || x >= g->dims[d]) {
                if (!g->periods[d]) {
                    nb[2 * d + s] = -1;
                    continue;
                }
                x = (x + g->dims[d]) % g->dims[d];
            }
            nb[2 * d + s] = (int)(rank + (x - c) * stride);
        }
    }
    return 2 * g->ndims;
}

/* coordinate d of grid rank p */
static int64_t coord(const psk_cart *g, int64_t p, int d)
{
    int64_t stride = 1;
    for (int k = g->ndims - 1; k > d; k--)
        stride *= g->dims[k];
    return p / stride % g->dims[d];
}

int psk_cart_sub(const psk_cart *parent, const int64_t *pm, int64_t np, const int64_t *sm, int64_t ns, int64_t nworld,
                 psk_cart *sub)
{
    if (ns < 1 || np != psk_cart_size(parent) || nworld < 1)
        return 1;
    int64_t *at = malloc((size_t)nworld * sizeof *at); /* by world rank: its grid rank in parent, -1 */
    if (!at)
        return -1;
    for (int64_t w = 0; w < nworld; w++)
        at[w] = -1;
    for (int64_t p = 0; p < np; p++)
        if (pm[p] >= 0 && pm[p] < nworld)
            at[pm[p]] = p;
    int rc = 0;
    int64_t *ps = malloc((size_t)ns * sizeof *ps); /* the members' grid ranks in parent */
    if (!ps) {
        free(at);
        return -1;
    }
    for (int64_t k = 0; k < ns && !rc; k++)
        rc = sm[k] < 0 || sm[k] >= nworld || (ps[k] = at[sm[k]]) < 0;
    int kept[PSK_CART_MAXDIMS] = {0};
    *sub = (psk_cart){0};
    for (int d = 0; d < parent->ndims && !rc; d++) {
        for (int64_t k = 1; k < ns && !kept[d]; k++)
            kept[d] = coord(parent, ps[k], d) != coord(parent, ps[0], d);
        if (kept[d]) {
            sub->dims[sub->ndims] = parent->dims[d];
            sub->periods[sub->ndims++] = parent->periods[d];
        }
    }
    /* each member where MPI_Cart_sub puts it: its kept coordinates row-major */
    rc = rc || psk_cart_size(sub) != ns;
    for (int64_t k = 0; k < ns && !rc; k++) {
        int64_t r = 0;
        for (int d = 0; d < parent->ndims; d++)
            if (kept[d])
                r = r * parent->dims[d] + coord(parent, ps[k], d);
            else
                rc |= coord(parent, ps[k], d) != coord(parent, ps[0], d);
        rc |= r != k;
    }
    free(at), free(ps);
    return rc;
}
