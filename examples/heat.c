/* heat: the example perfskel's demo records. A 2-D Jacobi heat solver on
 * a grid split into row blocks, one per rank: every step exchanges halo
 * rows with the neighbours (MPI_Irecv, MPI_Isend, MPI_Waitall), every 10th
 * step agrees on the residual (MPI_Allreduce), and the end gathers a
 * checksum (MPI_Reduce). MPI_Pcontrol(2) ... (-2) marks the time steps and
 * MPI_Pcontrol(3) ... (-3) each halo exchange as intervals for perfskel
 * sim. Usage: heat [N [STEPS]] (default 512 400). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 512, steps = argc > 2 ? atoi(argv[2]) : 400;
    int rows = n / size + (rank < n % size);
    double *u = calloc((size_t)(rows + 2) * (size_t)n, sizeof *u);
    double *v = calloc((size_t)(rows + 2) * (size_t)n, sizeof *v);
    if (!u || !v)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0) /* a hot top edge: rank 0's upper halo row, never received */
        for (int j = 0; j < n; j++)
            u[j] = v[j] = 100.0;
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double residual = 0.0;
    MPI_Pcontrol(2); /* interval 2, "the time steps", for perfskel sim; profilers ignore levels > 1 */
    for (int s = 0; s < steps; s++) {
        MPI_Request rq[4];
        MPI_Pcontrol(3); /* interval 3: the halo exchange */
        MPI_Irecv(u, n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Irecv(u + (size_t)(rows + 1) * n, n, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &rq[1]);
        MPI_Isend(u + n, n, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &rq[2]);
        MPI_Isend(u + (size_t)rows * n, n, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        MPI_Pcontrol(-3);
        double local = 0.0;
        for (int i = 1; i <= rows; i++)
            for (int j = 1; j < n - 1; j++) {
                size_t k = (size_t)i * n + j;
                v[k] = 0.25 * (u[k - n] + u[k + n] + u[k - 1] + u[k + 1]);
                local += fabs(v[k] - u[k]);
            }
        double *t = u;
        u = v;
        v = t;
        if (s % 10 == 9)
            MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Pcontrol(-2);
    double sum = 0.0, total = 0.0;
    for (int i = 1; i <= rows; i++)
        for (int j = 0; j < n; j++)
            sum += u[(size_t)i * n + j];
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("heat: %dx%d grid, %d steps on %d ranks: residual %.6g, heat %.6g\n", n, n, steps, size,
               residual, total);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
