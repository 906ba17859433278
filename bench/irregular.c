/* irregular: an MPI program whose calls do not repeat in any loop, for the
 * size of its skeleton (bench/skeleton_size.sh). Each step every rank draws
 * the same pseudo-random choice (one seed for all: deadlock-free) among a
 * ring Sendrecv, Isend/Irecv/Waitall with both neighbours, an Allreduce, a
 * Bcast from a drawn root and a Barrier, with drawn sizes and tags. With REPEATS, the same
 * STEPS are made that many times (a loop whose long body does not fold);
 * with SHIFT 1, each repetition adds its index to the tags (values that
 * follow the loop's index).
 * usage: irregular [STEPS] [REPEATS] [SHIFT] (default 100000 1 0) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long long rng = 88172645463325252ULL;
static unsigned draw(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    long steps = argc > 1 ? atol(argv[1]) : 100000, reps = argc > 2 ? atol(argv[2]) : 1;
    int shift = argc > 3 ? atoi(argv[3]) : 0;
    static double a[4096], b[4096], c[4096];
    static MPI_Status st[4];
    int right = (r + 1) % P, left = (r + P - 1) % P;
    for (long rep = 0; rep < reps; rep++) {
    rng = 88172645463325252ULL;
    for (long s = 0; s < steps; s++) {
        int n = 1 + (int)draw(4096), tag = (int)draw(1000) + (shift ? (int)rep : 0);
        MPI_Request q[4];
        switch (draw(5)) {
        case 0:
            MPI_Sendrecv(a, n, MPI_DOUBLE, right, tag, b, n, MPI_DOUBLE, left, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            break;
        case 1:
            MPI_Irecv(b, n, MPI_DOUBLE, left, tag, MPI_COMM_WORLD, &q[0]);
            MPI_Irecv(c, n, MPI_DOUBLE, right, tag + 1, MPI_COMM_WORLD, &q[1]);
            MPI_Isend(a, n, MPI_DOUBLE, right, tag, MPI_COMM_WORLD, &q[2]);
            MPI_Isend(a, n, MPI_DOUBLE, left, tag + 1, MPI_COMM_WORLD, &q[3]);
            MPI_Waitall(4, q, st);
            break;
        case 2:
            MPI_Allreduce(a, b, 1 + n % 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            break;
        case 3:
            MPI_Bcast(a, n, MPI_DOUBLE, (int)draw((unsigned)P), MPI_COMM_WORLD);
            break;
        default:
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    }
    if (r == 0)
        printf("irregular: %ld steps x %ld on %d ranks\n", steps, reps, P);
    MPI_Finalize();
    return 0;
}
