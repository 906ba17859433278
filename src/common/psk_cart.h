/* Cartesian grids of MPI communicators (MPI_Cart_create, MPI_Cart_sub),
 * as sim and gen need them for the neighbourhood collectives: a grid from
 * its recorded dims and periods, a rank's neighbours in the standard's
 * order, and the sub-grid MPI_Cart_sub made, told by its members (its
 * remain_dims are not recorded). A rank of a grid is its place in the
 * communicator: its coordinates row-major, as MPI_Cart_coords gives them. */
#ifndef PSK_CART_H
#define PSK_CART_H

#include <stdint.h>

/* more dimensions than this are not followed (no grid) */
#define PSK_CART_MAXDIMS 16

typedef struct psk_cart {
    int ndims;
    int dims[PSK_CART_MAXDIMS];
    int periods[PSK_CART_MAXDIMS]; /* 0 or 1 */
} psk_cart;

/* the grid of ndims dims and periods (as recorded: periods any non-zero
 * true) for a communicator of nmembers ranks: 0, or -1 if it is not one
 * (too many dimensions, an extent below 1, a product other than nmembers) */
int psk_cart_make(psk_cart *g, int64_t ndims, const int64_t *dims, const int64_t *periods, int64_t nmembers);
/* the ranks of the grid */
int64_t psk_cart_size(const psk_cart *g);
/* rank's neighbours (MPI 4.0, 8.6: for each dimension in order, the
 * source and destination of MPI_Cart_shift by 1: -1 then +1) into nb,
 * -1 where there is none (MPI_PROC_NULL: the edge of a dimension that is
 * not periodic): returns how many, 2 x ndims */
int psk_cart_neighbors(const psk_cart *g, int64_t rank, int *nb);
/* the sub-grid of MPI_Cart_sub on parent (its members' world ranks by
 * grid rank: pm, np of them), whose communicator has the members sm (ns,
 * world ranks by its rank, each below nworld): the dimensions along which
 * the members' coordinates differ, in order, with their extents and
 * periods. A dimension of extent 1 cannot be told kept from dropped: it is
 * taken as dropped (kept, it would give neighbours that are the rank
 * itself, or none). 0; 1 if the members are no sub-grid of parent (not all
 * in it, or not in the order MPI_Cart_sub gives them); -1 out of memory */
int psk_cart_sub(const psk_cart *parent, const int64_t *pm, int64_t np, const int64_t *sm, int64_t ns, int64_t nworld,
                 psk_cart *sub);

#endif
