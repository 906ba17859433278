/*
 * cart_stencil (C): a weak-scaling 2-D stencil on a Cartesian grid, for
 * recording MPI_Dims_create and MPI_Cart_create's dims and periods and
 * extrapolating with them (docs/simulation.md): the grid is
 * MPI_Dims_create(P, 2) with the dims given (0 = free, e.g. "0 1" forces P x
 * 1), periodic in the dimensions asked; each iteration some compute of a
 * fixed size per rank, a halo of H doubles with each of the 4 neighbours
 * (Cart_shift: MPI_PROC_NULL at non-periodic ends) by Irecv, Isend and
 * Waitall, and an Allreduce every 10 iterations.
 * usage: cart_stencil [NITER [WORK [H [DIM0 DIM1 [PER0 PER1]]]]]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

static void compute(long work)
{
    double s = 0;
    for (long i = 0; i < work; i++)
        s += (double)i * 1e-9;
    sink = s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int niter = argc > 1 ? atoi(argv[1]) : 100;
    long work = argc > 2 ? atol(argv[2]) : 20000;
    int h = argc > 3 ? atoi(argv[3]) : 256;
    int dims[2] = {argc > 5 ? atoi(argv[4]) : 0, argc > 5 ? atoi(argv[5]) : 0};
    int periods[2] = {argc > 7 ? atoi(argv[6]) : 0, argc > 7 ? atoi(argv[7]) : 0};
    int size, rank, nb[4];
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Comm_rank(grid, &rank);
    MPI_Cart_shift(grid, 0, 1, &nb[0], &nb[1]);
    MPI_Cart_shift(grid, 1, 1, &nb[2], &nb[3]);
    double *u = calloc((size_t)(8 * h), sizeof *u), sum = 0, local = rank;
    for (int it = 1; it <= niter; it++) {
        compute(work);
        MPI_Request rq[8];
        for (int k = 0; k < 4; k++) /* from nb[k], tagged by the direction it travels */
            MPI_Irecv(u + k * h, h, MPI_DOUBLE, nb[k], k, grid, &rq[k]);
        for (int k = 0; k < 4; k++) /* to nb[k]: it arrives from the opposite side */
            MPI_Isend(u + (4 + k) * h, h, MPI_DOUBLE, nb[k], k ^ 1, grid, &rq[4 + k]);
        MPI_Waitall(8, rq, MPI_STATUSES_IGNORE);
        if (it % 10 == 0)
            MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, grid);
    }
    if (rank == 0)
        printf("cart_stencil %d ranks, grid %dx%d, %d iterations, sum %g\n", size, dims[0], dims[1], niter, sum);
    free(u);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
