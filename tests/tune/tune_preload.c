/* tune_preload: the C counterpart of tune_fortran.F90, run by
 * run_preload.sh with the tuning library preloaded (perfskel tune --force
 * cycle): REPS rounds of four MPI_Alltoall calls from four call sites
 * (ints on the world, MPI_IN_PLACE, ints into a vector with holes that
 * must stay untouched, ints on an even/odd split), every result checked.
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
    }
    printf("tune_preload: rank %d: %d calls, %d wrong\n", me, calls, bad);
    free(s), free(r), free(v);
    MPI_Type_free(&vec);
    MPI_Type_free(&vec0);
    MPI_Comm_free(&sub);
    MPI_Finalize();
    return bad != 0;
}
