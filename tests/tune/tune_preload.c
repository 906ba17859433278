/* tune_preload: the C counterpart of tune_fortran.F90, run by
 * run_preload.sh with the tuning library preloaded (perfskel tune --force
 * cycle): REPS rounds of four MPI_Alltoall calls from four call sites
 * (ints on the world, MPI_IN_PLACE, ints into a vector with holes that
 * must stay untouched, ints on an even/odd split), two MPI_Bcast (ints
 * from a root that moves, the vector from rank 0), two MPI_Allreduce (int
 * sum on the world, max in place on the split) and three MPI_Allgather
 * (ints, in place, into the vector on the split), every result checked.
 * Prints "tune_preload: rank R: N calls, B wrong"; exit 1 if B > 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 3, REPS = 11 };

static int val(int s, int d, int k) { return 10000 * s + 100 * d + k; }

int main(int argc, char **argv)
{
    int me, np, sme, snp, bad = 0, calls = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &sub);
    MPI_Comm_rank(sub, &sme);
    MPI_Comm_size(sub, &snp);
    MPI_Datatype vec0, vec; /* N ints two apart, extent 2N: a hole after each */
    MPI_Type_vector(N, 1, 2, MPI_INT, &vec0);
    MPI_Type_create_resized(vec0, 0, 2 * N * sizeof(int), &vec);
    MPI_Type_commit(&vec);
    int *s = malloc(sizeof(int) * N * np), *r = malloc(sizeof(int) * N * np), *v = malloc(sizeof(int) * 2 * N * np);
    for (int rep = 0; rep < REPS; rep++) {
        for (int j = 0; j < np * N; j++)
            s[j] = val(me, j / N, j % N);
        for (int j = 0; j < np * N; j++)
            r[j] = -1;
        bad += MPI_Alltoall(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS;
        calls++;
        for (int j = 0; j < np * N; j++)
            bad += r[j] != val(j / N, me, j % N);

        for (int j = 0; j < np * N; j++)
            r[j] = s[j];
        bad += MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, N, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS;
        calls++;
        for (int j = 0; j < np * N; j++)
            bad += r[j] != val(j / N, me, j % N);

        for (int j = 0; j < 2 * np * N; j++)
            v[j] = -7;
        bad += MPI_Alltoall(s, N, MPI_INT, v, 1, vec, MPI_COMM_WORLD) != MPI_SUCCESS;
        calls++;
        for (int j = 0; j < np * N; j++)
            bad += (v[2 * j] != val(j / N, me, j % N)) + (v[2 * j + 1] != -7);

        for (int j = 0; j < snp * N; j++)
            s[j] = val(sme, j / N, j % N) + 7;
        for (int j = 0; j < snp * N; j++)
            r[j] = -1;
        bad += MPI_Alltoall(s, N, MPI_INT, r, N, MPI_INT, sub) != MPI_SUCCESS;
        calls++;
        for (int j = 0; j < snp * N; j++)
            bad += r[j] != val(j / N, sme, j % N) + 7;

        int root = rep % np;
        for (int j = 0; j < np * N; j++)
            r[j] = me == root ? 100000 * root + 1000 * rep + j : -1;
        bad += MPI_Bcast(r, N * np, MPI_INT, root, MPI_COMM_WORLD) != MPI_SUCCESS;
        calls++;
        for (int j = 0; j < np * N; j++)
            bad += r[j] != 100000 * root + 1000 * rep + j;
        for (int j = 0; j < 2 * np * N; j++)
            v[j] = me == 0 && j % 2 == 0 ? 1000 * rep + j : -7;
        bad += MPI_Bcast(v, np, vec, 0, MPI_COMM_WORLD) != MPI_SUCCESS;
        calls++;
        for (int j = 0; j < 2 * np * N; j++)
            bad += v[j] != (j % 2 == 0 ? 1000 * rep + j : -7);

        for (int j = 0; j < np * N; j++)
            s[j] = 1000 * me + j + rep;
        bad += MPI_Allreduce(s, r, N * np, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS;
        calls++;
        for (int j = 0; j < np * N; j++)
            bad += r[j] != 1000 * (np * (np - 1) / 2) + np * (j + rep);
        for (int j = 0; j < np * N; j++)
            r[j] = 1000 * sme + j;
        bad += MPI_Allreduce(MPI_IN_PLACE, r, N * np, MPI_INT, MPI_MAX, sub) != MPI_SUCCESS;
        calls++;
        for (int j = 0; j < np * N; j++)
            bad += r[j] != 1000 * (snp - 1) + j;

        for (int k = 0; k < N; k++)
            s[k] = val(me, 0, k) + rep;
        for (int j = 0; j < np * N; j++)
            r[j] = -1;
        bad += MPI_Allgather(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS;
        calls++;
        for (int j = 0; j < np * N; j++)
            bad += r[j] != val(j / N, 0, j % N) + rep;
        for (int j = 0; j < np * N; j++)
            r[j] = j / N == me ? val(me, 0, j % N) + rep + 1 : -1;
        bad += MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, N, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS;
        calls++;
        for (int j = 0; j < np * N; j++)
            bad += r[j] != val(j / N, 0, j % N) + rep + 1;
        for (int k = 0; k < N; k++)
            s[k] = val(sme, 0, k) + rep + 2;
        for (int j = 0; j < 2 * np * N; j++)
            v[j] = -7;
        bad += MPI_Allgather(s, N, MPI_INT, v, 1, vec, sub) != MPI_SUCCESS;
        calls++;
        for (int j = 0; j < snp * N; j++)
            bad += (v[2 * j] != val(j / N, 0, j % N) + rep + 2) + (v[2 * j + 1] != -7);
        for (int j = 2 * snp * N; j < 2 * np * N; j++)
            bad += v[j] != -7;
    }
    printf("tune_preload: rank %d: %d calls, %d wrong\n", me, calls, bad);
    free(s), free(r), free(v);
    MPI_Type_free(&vec);
    MPI_Type_free(&vec0);
    MPI_Comm_free(&sub);
    MPI_Finalize();
    return bad != 0;
}
