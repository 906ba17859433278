/* neighbor.c ITERS [PERIODIC [COUNT [GRAPH]]]: MPI-3 neighborhood collectives on
 * MPI_Dims_create's 2-D Cartesian grid, periodic in both dimensions or in
 * neither (PERIODIC 1 or 0, default 1: then the edges have MPI_PROC_NULL
 * neighbours). Each iteration an MPI_Neighbor_alltoall (COUNT ints, default
 * 1, to and from each of the 2 * ndims neighbours) and an
 * MPI_Neighbor_allgather (COUNT ints from each), in MPI_Pcontrol interval
 * 2; then in interval 3 the same two exchanges written with MPI_Irecv,
 * MPI_Isend and MPI_Waitall (what sim's model of the collectives can be
 * held to); in interval 4 the nonblocking forms, MPI_Ineighbor_alltoall
 * and MPI_Ineighbor_allgather, each completed by MPI_Wait; then an
 * MPI_Neighbor_alltoall on the rows MPI_Cart_sub keeps
 * (dimension 0). With GRAPH 1, last, an MPI_Neighbor_alltoall on a ring
 * made by MPI_Dist_graph_create_adjacent (which perfskel does not record:
 * a communicator without a Cartesian grid). Every value received is
 * checked against what the neighbour holds. For tests/cli/neighbor.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 10, per = argc > 2 ? atoi(argv[2]) != 0 : 1;
    int count = argc > 3 ? atoi(argv[3]) : 1, p, me, dims[2] = {0, 0}, periods[2] = {per, per}, bad = 0;
    if (count < 1)
        count = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Dims_create(p, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &me);
    int nb[4]; /* the neighbours in MPI's order: -1, +1 of dimension 0, then 1 */
    MPI_Cart_shift(cart, 0, 1, &nb[0], &nb[1]);
    MPI_Cart_shift(cart, 1, 1, &nb[2], &nb[3]);
    int *s = malloc(4 * (size_t)count * sizeof *s), *r = malloc(4 * (size_t)count * sizeof *r);
    if (!s || !r)
        MPI_Abort(MPI_COMM_WORLD, 1);
    /* block k of rank x in iteration it, word w; -1 where nothing came */
    #define VAL(x, k, it, w) ((x) * 100 + (k) + (it) + 7 * (w))
    #define CHECK(k, want) (r[(k) * count + w] != (nb[k] == MPI_PROC_NULL ? -1 : (want)))
    MPI_Pcontrol(2);
    for (int it = 0; it < iters; it++) {
        for (int k = 0; k < 4; k++)
            for (int w = 0; w < count; w++)
                s[k * count + w] = VAL(me, k, it, w), r[k * count + w] = -1;
        MPI_Neighbor_alltoall(s, count, MPI_INT, r, count, MPI_INT, cart);
        /* block k came from neighbour k, which sent it as its block k ^ 1 */
        for (int k = 0; k < 4; k++)
            for (int w = 0; w < count; w++)
                bad += CHECK(k, VAL(nb[k], k ^ 1, it, w));
        for (int k = 0; k < 4 * count; k++)
            r[k] = -1;
        MPI_Neighbor_allgather(s, count, MPI_INT, r, count, MPI_INT, cart); /* everyone's block 0 */
        for (int k = 0; k < 4; k++)
            for (int w = 0; w < count; w++)
                bad += CHECK(k, VAL(nb[k], 0, it, w));
    }
    MPI_Pcontrol(-2);
    MPI_Pcontrol(3);
    for (int it = 0; it < iters; it++) {
        for (int x = 0; x < 2; x++) { /* the alltoall's exchange, then the allgather's */
            MPI_Request q[8];
            for (int k = 0; k < 4; k++)
                for (int w = 0; w < count; w++)
                    s[k * count + w] = VAL(me, x ? 0 : k, it, w), r[k * count + w] = -1;
            for (int k = 0; k < 4; k++) /* tag: the sender's block */
                MPI_Irecv(r + k * count, count, MPI_INT, nb[k], k ^ 1, cart, &q[k]);
            for (int k = 0; k < 4; k++)
                MPI_Isend(s + k * count, count, MPI_INT, nb[k], k, cart, &q[4 + k]);
            MPI_Waitall(8, q, MPI_STATUSES_IGNORE);
            for (int k = 0; k < 4; k++)
                for (int w = 0; w < count; w++)
                    bad += CHECK(k, VAL(nb[k], x ? 0 : k ^ 1, it, w));
        }
    }
    MPI_Pcontrol(-3);
    MPI_Pcontrol(4); /* the nonblocking forms, each completed by MPI_Wait */
    for (int it = 0; it < iters; it++) {
        MPI_Request q;
        for (int k = 0; k < 4; k++)
            for (int w = 0; w < count; w++)
                s[k * count + w] = VAL(me, k, it, w), r[k * count + w] = -1;
        MPI_Ineighbor_alltoall(s, count, MPI_INT, r, count, MPI_INT, cart, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        /* where both neighbours of a dimension are one rank (a periodic
         * extent of 2), Open MPI 4.1's nonblocking form matches its two
         * blocks the other way round: either order is taken */
        for (int k = 0; k < 4; k++)
            for (int w = 0; w < count; w++)
                bad += CHECK(k, VAL(nb[k], k ^ 1, it, w)) &&
                       (nb[k] != nb[k ^ 1] || CHECK(k, VAL(nb[k], k, it, w)));
        for (int k = 0; k < 4 * count; k++)
            r[k] = -1;
        MPI_Ineighbor_allgather(s, count, MPI_INT, r, count, MPI_INT, cart, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        for (int k = 0; k < 4; k++)
            for (int w = 0; w < count; w++)
                bad += CHECK(k, VAL(nb[k], 0, it, w));
    }
    MPI_Pcontrol(-4);
    /* the rows: dimension 0 kept, the neighbours of that dimension */
    MPI_Comm row;
    int keep[2] = {1, 0};
    MPI_Cart_sub(cart, keep, &row);
    for (int k = 0; k < 2 * count; k++)
        s[k] = VAL(me, k / count, 0, k % count), r[k] = -1;
    MPI_Neighbor_alltoall(s, count, MPI_INT, r, count, MPI_INT, row);
    for (int k = 0; k < 2; k++)
        for (int w = 0; w < count; w++)
            bad += CHECK(k, VAL(nb[k], k ^ 1, 0, w));
    MPI_Comm_free(&row);
    if (argc > 4 && atoi(argv[4])) { /* each rank's neighbours its world ranks -1 and +1, as a ring */
        int me_w, ring[2], got[2] = {-1, -1}, wt[2] = {1, 1}; /* (MPI_UNWEIGHTED: a warning of GCC's) */
        MPI_Comm graph;
        MPI_Comm_rank(MPI_COMM_WORLD, &me_w);
        ring[0] = (me_w + p - 1) % p, ring[1] = (me_w + 1) % p;
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, ring, wt, 2, ring, wt, MPI_INFO_NULL, 0, &graph);
        int mine[2] = {me_w, me_w};
        MPI_Neighbor_alltoall(mine, 1, MPI_INT, got, 1, MPI_INT, graph);
        bad += got[0] != ring[0] || got[1] != ring[1];
        MPI_Comm_free(&graph);
    }
    MPI_Comm_free(&cart);
    if (bad)
        fprintf(stderr, "neighbor: rank %d: %d wrong values\n", me, bad);
    free(s), free(r);
    MPI_Finalize();
    return bad != 0;
}
