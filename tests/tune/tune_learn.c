/* tune_learn: the program the learner's tests run (run_learn.sh) with the
 * tuning library preloaded: CALLS calls of a collective (MPI_Alltoall, or
 * the one named by -c: bcast, allreduce, allgather; mixed: call k is
 * alltoall, bcast, allreduce, allgather for k mod 4) of BYTES bytes (per
 * peer for alltoall and allgather, in all for bcast and allreduce) on the
 * world, alternating between SITES call sites (1 or 2), every result
 * checked; with a 4th argument, a split into halves whose calls (half of
 * them) go on the half communicator from a third site. Prints
 * "tune_learn: rank R: N calls, B wrong"; exit 1 if B > 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { A2A, BCAST, ALLREDUCE, ALLGATHER, MIXED };

static unsigned char val(int s, int d, long k, int i) { return (unsigned char)(s * 31 + d * 7 + k * 3 + i); }
static int ival(int s, long k, int i) { return s * 1000 + (int)(k % 1000) * 7 + i; }

/* the call from one of three sites (three distinct call instructions) */
static int call(int coll, int site, unsigned char *s, unsigned char *r, int bytes, int root, MPI_Comm comm)
{
    int n = bytes / (int)sizeof(int);
    switch (coll) {
    case BCAST:
        return site == 0 ? MPI_Bcast(r, bytes, MPI_BYTE, root, comm)
             : site == 1 ? MPI_Bcast(r, bytes, MPI_BYTE, root, comm)
                         : MPI_Bcast(r, bytes, MPI_BYTE, root, comm);
    case ALLREDUCE:
        return site == 0 ? MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, comm)
             : site == 1 ? MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, comm)
                         : MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, comm);
    case ALLGATHER:
        return site == 0 ? MPI_Allgather(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, comm)
             : site == 1 ? MPI_Allgather(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, comm)
                         : MPI_Allgather(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, comm);
    default:
        return site == 0 ? MPI_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, comm)
             : site == 1 ? MPI_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, comm)
                         : MPI_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, comm);
    }
}

static int one(int coll, MPI_Comm comm, long k, int bytes, unsigned char *s, unsigned char *r, int site)
{
    int me, np, bad = 0, root = 0, n = bytes / (int)sizeof(int);
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    int *si = (int *)s, *ri = (int *)r;
    switch (coll) {
    case BCAST:
        root = (int)(k % np);
        for (int i = 0; i < bytes; i++)
            r[i] = me == root ? val(root, 0, k, i) : 0;
        break;
    case ALLREDUCE:
        for (int i = 0; i < n; i++)
            si[i] = ival(me, k, i);
        break;
    case ALLGATHER:
        for (int i = 0; i < bytes; i++)
            s[i] = val(me, 0, k, i);
        break;
    default:
        for (int d = 0; d < np; d++)
            for (int i = 0; i < bytes; i++)
                s[(size_t)d * bytes + i] = val(me, d, k, i);
    }
    bad += call(coll, site, s, r, bytes, root, comm) != MPI_SUCCESS;
    switch (coll) {
    case BCAST:
        for (int i = 0; i < bytes; i++)
            bad += r[i] != val(root, 0, k, i);
        break;
    case ALLREDUCE:
        for (int i = 0; i < n; i++) {
            int sum = 0;
            for (int d = 0; d < np; d++)
                sum += ival(d, k, i);
            bad += ri[i] != sum;
        }
        break;
    case ALLGATHER:
        for (int d = 0; d < np; d++)
            for (int i = 0; i < bytes; i++)
                bad += r[(size_t)d * bytes + i] != val(d, 0, k, i);
        break;
    default:
        for (int d = 0; d < np; d++)
            for (int i = 0; i < bytes; i++)
                bad += r[(size_t)d * bytes + i] != val(d, me, k, i);
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np, coll = A2A;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc > 2 && !strcmp(argv[1], "-c")) {
        coll = !strcmp(argv[2], "bcast") ? BCAST : !strcmp(argv[2], "allreduce") ? ALLREDUCE
             : !strcmp(argv[2], "allgather") ? ALLGATHER : !strcmp(argv[2], "mixed") ? MIXED : A2A;
        argc -= 2, argv += 2;
    }
    if (argc < 3) {
        if (me == 0)
            fprintf(stderr, "usage: tune_learn [-c bcast|allreduce|allgather|mixed] CALLS BYTES [SITES [split]]\n");
        MPI_Finalize();
        return 2;
    }
    long calls = atol(argv[1]);
    int bytes = atoi(argv[2]), sites = argc > 3 ? atoi(argv[3]) : 1, split = argc > 4;
    MPI_Comm half = MPI_COMM_NULL;
    if (split)
        MPI_Comm_split(MPI_COMM_WORLD, me < np / 2, me, &half);
    unsigned char *s = malloc((size_t)bytes * np + sizeof(int)), *r = malloc((size_t)bytes * np + sizeof(int));
    long bad = 0, n = 0;
    for (long k = 0; k < calls; k++) {
        int c = coll == MIXED ? (int)(k % 4) : coll;
        bad += one(c, MPI_COMM_WORLD, k, bytes, s, r, sites > 1 ? (int)(k % 2) : 0);
        n++;
        if (split && k % 2) {
            bad += one(c, half, k, bytes, s, r, 2);
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
