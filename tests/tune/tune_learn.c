/* tune_learn: the program the learner's tests run (run_learn.sh) with the
 * tuning library preloaded: CALLS MPI_Alltoall calls of BYTES bytes per
 * peer on the world, alternating between SITES call sites (1 or 2), every
 * result checked; with a 4th argument, a split into halves whose calls
 * (half of them) go on the half communicator from a third site. Prints
 * "tune_learn: rank R: N calls, B wrong"; exit 1 if B > 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned char val(int s, int d, long k, int i) { return (unsigned char)(s * 31 + d * 7 + k * 3 + i); }

static int one(MPI_Comm comm, long k, int bytes, unsigned char *s, unsigned char *r, int site)
{
    int me, np, bad = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    for (int d = 0; d < np; d++)
        for (int i = 0; i < bytes; i++)
            s[(size_t)d * bytes + i] = val(me, d, k, i);
    int rc;
    if (site == 0) /* the call sites: three distinct calls */
        rc = MPI_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, comm);
    else if (site == 1)
        rc = MPI_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, comm);
    else
        rc = MPI_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, comm);
    bad += rc != MPI_SUCCESS;
    for (int d = 0; d < np; d++)
        for (int i = 0; i < bytes; i++)
            bad += r[(size_t)d * bytes + i] != val(d, me, k, i);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 3) {
        if (me == 0)
            fprintf(stderr, "usage: tune_learn CALLS BYTES [SITES [split]]\n");
        MPI_Finalize();
        return 2;
    }
    long calls = atol(argv[1]);
    int bytes = atoi(argv[2]), sites = argc > 3 ? atoi(argv[3]) : 1, split = argc > 4;
    MPI_Comm half = MPI_COMM_NULL;
    if (split)
        MPI_Comm_split(MPI_COMM_WORLD, me < np / 2, me, &half);
    unsigned char *s = malloc((size_t)bytes * np), *r = malloc((size_t)bytes * np);
    long bad = 0, n = 0;
    for (long k = 0; k < calls; k++) {
        bad += one(MPI_COMM_WORLD, k, bytes, s, r, sites > 1 ? (int)(k % 2) : 0);
        n++;
        if (split && k % 2) {
            bad += one(half, k, bytes, s, r, 2);
            n++;
        }
    }
    printf("tune_learn: rank %d: %ld calls, %ld wrong\n", me, n, bad);
    free(s);
    free(r);
    if (split)
        MPI_Comm_free(&half);
    MPI_Finalize();
    return bad != 0;
}
