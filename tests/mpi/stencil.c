/*
 * stencil (C): 1-D periodic halo exchange.  Each of NITER iterations posts
 * MPI_Irecv x2 + MPI_Isend x2 to the left/right neighbours and completes them
 * with one MPI_Waitall of 4 requests; every ALLRED_EVERY iterations an
 * MPI_Allreduce sums the field.  With 1 rank both neighbours are the rank
 * itself (it talks to itself), so the counts do not depend on the rank count.
 * First the ring is described with MPI_Dims_create and MPI_Cart_create
 * (periodic, freed at once): the recorded fields are stated in
 * "expectdump" lines run_case.sh checks.
 *
 * Per rank: Init 1, Dims_create 1, Cart_create 1, Comm_free 1,
 *           Irecv 2*NITER, Isend 2*NITER, Waitall NITER,
 *           Allreduce NITER/ALLRED_EVERY, Gather 1, Finalize 1.
 */
#include "ps_count.h"

#ifndef NITER /* bench/predict_accuracy.sh makes it longer */
#define NITER 20
#endif
#define ALLRED_EVERY 5
#define NLOC 8 /* interior cells per rank */
#define MOD 1000003

int main(int argc, char **argv)
{
    int rank, size;
    CALL(MPI_Init)(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dims[1] = {0}, periods[1] = {1};
    MPI_Comm ring;
    CALL(MPI_Dims_create)(size, 1, dims);
    CALL(MPI_Cart_create)(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    CALL(MPI_Comm_free)(&ring);
    if (rank == 0) {
        printf("expectdump 0 MPI_Dims_create i1=%d dims=[%d] dimsin=[0]\n", size, dims[0]);
        printf("expectdump 0 MPI_Cart_create dims=[%d] periods=[1]\n", dims[0]);
    }
    int left = (rank + size - 1) % size, right = (rank + 1) % size;

    int u[NLOC + 2], unew[NLOC + 2];
    for (int i = 1; i <= NLOC; i++) u[i] = rank * NLOC + i;

    int global = 0;
    for (int it = 1; it <= NITER; it++) {
        ps_compute(); /* benchmarks only (PS_WORK) */
        MPI_Request req[4];
        /* tag 1: data travelling right, tag 2: data travelling left (needed
         * to tell the two messages apart when left == right). */
        CALL(MPI_Irecv)(&u[0], 1, MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]);
        CALL(MPI_Irecv)(&u[NLOC + 1], 1, MPI_INT, right, 2, MPI_COMM_WORLD,
                        &req[1]);
        CALL(MPI_Isend)(&u[NLOC], 1, MPI_INT, right, 1, MPI_COMM_WORLD,
                        &req[2]);
        CALL(MPI_Isend)(&u[1], 1, MPI_INT, left, 2, MPI_COMM_WORLD, &req[3]);
        CALL(MPI_Waitall)(4, req, MPI_STATUSES_IGNORE);

        for (int i = 1; i <= NLOC; i++)
            unew[i] = (u[i - 1] + 2 * u[i] + 3 * u[i + 1] + it) % MOD;
        for (int i = 1; i <= NLOC; i++) u[i] = unew[i];

        if (it % ALLRED_EVERY == 0) {
            int local = 0;
            for (int i = 1; i <= NLOC; i++) local += u[i];
            CALL(MPI_Allreduce)(&local, &global, 1, MPI_INT, MPI_SUM,
                                MPI_COMM_WORLD);
        }
    }
    if (rank == 0) printf("stencil checksum %d\n", global);

    /* the loop perfskel fold must find as the main one: the Allreduce every ALLRED_EVERY iterations makes the trace repeat every ALLRED_EVERY iterations */
    if (rank == 0)
        printf("mainloop %d\n", NITER / ALLRED_EVERY);
    ps_report();
    MPI_Finalize(); /* counted by ps_report() */
    return 0;
}
