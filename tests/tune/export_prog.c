/* The program of tune.export.* (export_rules.sh): calls each collective
 * given as COLL:BYTES (alltoall and allgather: bytes per peer; bcast and
 * allreduce: bytes in all, allreduce of ints) once on MPI_COMM_WORLD and,
 * with --sub, once on a communicator of its first P - 1 ranks; checks
 * every result, and rank 0 prints "world|sub COLL BYTES ALG" per call,
 * ALG the Open MPI algorithm the test shim (export_shim.c) saw run first,
 * or "-" without it. Exit 1 if a result is wrong. Tests only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {"alltoall", "bcast", "allreduce", "allgather"};

static int run(MPI_Comm comm, int coll, int bytes)
{
    int P, r, bad = 0;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &r);
    unsigned char *s = malloc((size_t)bytes * P + 16), *d = malloc((size_t)bytes * P + 16);
    if (coll == 0) {
        for (int j = 0; j < P; j++)
            for (int k = 0; k < bytes; k++)
                s[(size_t)j * bytes + k] = (unsigned char)(r * 31 + j * 7 + k);
        MPI_Alltoall(s, bytes, MPI_BYTE, d, bytes, MPI_BYTE, comm);
        for (int j = 0; j < P; j++)
            for (int k = 0; k < bytes; k++)
                bad |= d[(size_t)j * bytes + k] != (unsigned char)(j * 31 + r * 7 + k);
    } else if (coll == 1) {
        for (int k = 0; k < bytes; k++)
            d[k] = r ? 0 : (unsigned char)(k * 13 + 5);
        MPI_Bcast(d, bytes, MPI_BYTE, 0, comm);
        for (int k = 0; k < bytes; k++)
            bad |= d[k] != (unsigned char)(k * 13 + 5);
    } else if (coll == 2) {
        int n = bytes / (int)sizeof(int);
        int *a = (int *)s, *b = (int *)d;
        for (int k = 0; k < n; k++)
            a[k] = r + 1 + k % 7;
        MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, comm);
        for (int k = 0; k < n; k++)
            bad |= b[k] != P * (P + 1) / 2 + P * (k % 7);
    } else {
        for (int k = 0; k < bytes; k++)
            s[k] = (unsigned char)(r * 17 + k);
        MPI_Allgather(s, bytes, MPI_BYTE, d, bytes, MPI_BYTE, comm);
        for (int j = 0; j < P; j++)
            for (int k = 0; k < bytes; k++)
                bad |= d[(size_t)j * bytes + k] != (unsigned char)(j * 17 + k);
    }
    free(s);
    free(d);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, sub = 0, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    void (*reset)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "psk_export_shim_reset");
    const char *(*first)(int) = (const char *(*)(int))dlsym(RTLD_DEFAULT, "psk_export_shim_first");
    MPI_Comm subc = MPI_COMM_NULL;
    for (int i = 1; i < argc; i++)
        sub |= !strcmp(argv[i], "--sub");
    if (sub)
        MPI_Comm_split(MPI_COMM_WORLD, rank < size - 1 ? 0 : MPI_UNDEFINED, rank, &subc);
    for (int pass = 0; pass < 1 + sub; pass++) {
        MPI_Comm comm = pass ? subc : MPI_COMM_WORLD;
        for (int i = 1; i < argc; i++) {
            char name[32];
            int bytes, coll = -1;
            if (!strcmp(argv[i], "--sub"))
                continue;
            if (sscanf(argv[i], "%31[a-z]:%d", name, &bytes) != 2 || bytes < 1) {
                if (!rank)
                    fprintf(stderr, "export_prog: bad argument %s\n", argv[i]);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            for (int c = 0; c < 4; c++)
                if (!strcmp(name, names[c]))
                    coll = c;
            if (coll < 0)
                MPI_Abort(MPI_COMM_WORLD, 2);
            if (comm == MPI_COMM_NULL)
                continue;
            if (reset)
                reset();
            int b = run(comm, coll, bytes);
            bad |= b;
            if (!rank) { /* flushed: a later call may abort the job */
                printf("%s %s %d %s%s\n", pass ? "sub" : "world", name, bytes, first ? first(coll) : "-",
                       b ? " WRONG" : "");
                fflush(stdout);
            }
        }
    }
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
    if (subc != MPI_COMM_NULL)
        MPI_Comm_free(&subc);
    MPI_Finalize();
    return all ? 1 : 0;
}
