/* neighbor.c ITERS: MPI-3 neighborhood collectives on a periodic Cartesian
 * grid (MPI_Dims_create's, 2-D): each iteration an MPI_Neighbor_alltoall
 * (one int to and from each of the 2 * ndims neighbours) and an
 * MPI_Neighbor_allgather (one int from each), checked against what the
 * neighbours hold. For tests/cli/neighbor.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 10, p, me, dims[2] = {0, 0}, periods[2] = {1, 1}, bad = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Dims_create(p, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &me);
    int nb[4]; /* the neighbours in MPI's order: -1, +1 of dimension 0, then 1 */
    MPI_Cart_shift(cart, 0, 1, &nb[0], &nb[1]);
    MPI_Cart_shift(cart, 1, 1, &nb[2], &nb[3]);
    for (int it = 0; it < iters; it++) {
        int s[4], r[4], g[4];
        for (int k = 0; k < 4; k++)
            s[k] = me * 100 + k + it;
        MPI_Neighbor_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, cart);
        /* block k came from neighbour k, which sent it as its block k ^ 1 */
        for (int k = 0; k < 4; k++)
            bad += r[k] != nb[k] * 100 + (k ^ 1) + it;
        int v = me + it;
        MPI_Neighbor_allgather(&v, 1, MPI_INT, g, 1, MPI_INT, cart);
        for (int k = 0; k < 4; k++)
            bad += g[k] != nb[k] + it;
    }
    MPI_Comm_free(&cart);
    if (bad)
        fprintf(stderr, "neighbor: rank %d: %d wrong values\n", me, bad);
    MPI_Finalize();
    return bad != 0;
}
