/* memo_prog.c: the calls that could make the dispatcher's memo of calls
 * (src/tune/tune_memo.c) hand a call another call's state, each checked
 * byte for byte (run_memo.sh runs it with the library preloaded):
 *   freed   a communicator split, used and freed, again and again: the
 *           next one may get the freed one's handle, with another size;
 *           then duplicates of the world used once and freed (with the
 *           learning gate on, each is freed while the check it started
 *           after its first call is under way)
 *   types   a derived datatype made and freed, again and again, from one
 *           call site: the next one may get the freed one's handle, with
 *           another layout
 *   place   one call site in place and not, in turn
 *   counts  one call site with 1, 2 and 3 elements in turn
 *   ops     one MPI_Allreduce site with MPI_SUM and MPI_MAX in turn
 *   self    an MPI_Allreduce on MPI_COMM_SELF (its state is an attribute
 *           of MPI_COMM_SELF, which MPI_Finalize deletes after the
 *           report is written)
 *   steady  N MPI_Alltoall calls of 8 bytes a peer on MPI_COMM_WORLD (the
 *           memo's and the learner's steady state, for run_memo.sh's
 *           counts)
 * Prints "memo_prog: rank R: C calls, W wrong" per rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long calls, wrong;

static int val(int src, int dst, int i, int round) { return src * 1000 + dst * 100 + i * 7 + round; }

/* one alltoall site: n ints a peer on comm, in place or not, checked */
static void a2a(MPI_Comm comm, int n, int inplace, int round)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    int *s = malloc(sizeof(int) * (size_t)(n * P)), *r = malloc(sizeof(int) * (size_t)(n * P));
    for (int d = 0; d < P; d++)
        for (int i = 0; i < n; i++)
            (inplace ? r : s)[d * n + i] = val(me, d, i, round);
    MPI_Alltoall(inplace ? MPI_IN_PLACE : s, n, MPI_INT, r, n, MPI_INT, comm);
    calls++;
    for (int src = 0; src < P; src++)
        for (int i = 0; i < n; i++)
            wrong += r[src * n + i] != val(src, me, i, round);
    free(s);
    free(r);
}

/* one alltoall site with a derived type t of k ints (stride apart) */
static void a2a_type(MPI_Datatype t, int k, int stride, int round)
{
    int P, me;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    size_t span = (size_t)((k - 1) * stride + 1);
    int *s = calloc(span * (size_t)P, sizeof(int)), *r = calloc(span * (size_t)P, sizeof(int));
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    size_t e = (size_t)ext / sizeof(int);
    for (int d = 0; d < P; d++)
        for (int i = 0; i < k; i++)
            s[(size_t)d * e + (size_t)(i * stride)] = val(me, d, i, round);
    MPI_Alltoall(s, 1, t, r, 1, t, MPI_COMM_WORLD);
    calls++;
    for (int src = 0; src < P; src++)
        for (int i = 0; i < k; i++)
            wrong += r[(size_t)src * e + (size_t)(i * stride)] != val(src, me, i, round);
    free(s);
    free(r);
}

static void reduce(MPI_Op op, int round)
{
    int P, me, x, y = -1;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    x = me + round;
    MPI_Allreduce(&x, &y, 1, MPI_INT, op, MPI_COMM_WORLD);
    calls++;
    int want = op == MPI_SUM ? P * round + P * (P - 1) / 2 : P - 1 + round;
    wrong += y != want;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    long steady = argc > 1 ? atol(argv[1]) : 20000;
    /* freed: halves, then the whole, then halves again (other sizes,
     * handles reused) */
    for (int round = 0; round < 60; round++) {
        MPI_Comm c;
        int color = round % 3 == 1 ? 0 : me % 2;
        MPI_Comm_split(MPI_COMM_WORLD, color, me, &c);
        for (int i = 0; i < 3; i++)
            a2a(c, 2, 0, round * 3 + i);
        MPI_Comm_free(&c);
    }
    for (int round = 0; round < 30; round++) {
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        a2a(c, 3, 0, round);
        MPI_Comm_free(&c);
    }
    /* types: contiguous and strided layouts of 2 and 3 ints in turn */
    for (int round = 0; round < 60; round++) {
        MPI_Datatype t;
        int k = 2 + round % 2, stride = round % 3 == 0 ? 1 : 2;
        MPI_Type_vector(k, 1, stride, MPI_INT, &t);
        MPI_Type_commit(&t);
        for (int i = 0; i < 2; i++)
            a2a_type(t, k, stride, round * 2 + i);
        MPI_Type_free(&t);
    }
    for (int round = 0; round < 200; round++) {
        a2a(MPI_COMM_WORLD, 1, round % 2, round);     /* place */
        a2a(MPI_COMM_WORLD, 1 + round % 3, 0, round); /* counts */
        reduce(round % 2 ? MPI_MAX : MPI_SUM, round); /* ops */
    }
    {
        int x = me, y = -1;
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
        calls++;
        wrong += y != me;
    }
    /* steady: the last, 8 bytes a peer (2 ints), one site */
    int *s = malloc(sizeof(int) * 2 * (size_t)P), *r = malloc(sizeof(int) * 2 * (size_t)P);
    for (long n = 0; n < steady; n++) {
        for (int d = 0; d < P; d++)
            s[2 * d] = s[2 * d + 1] = val(me, d, 0, (int)(n % 1000));
        MPI_Alltoall(s, 2, MPI_INT, r, 2, MPI_INT, MPI_COMM_WORLD);
        calls++;
        for (int src = 0; src < P; src++)
            wrong += r[2 * src] != val(src, me, 0, (int)(n % 1000)) || r[2 * src + 1] != r[2 * src];
    }
    free(s);
    free(r);
    printf("memo_prog: rank %d: %ld calls, %ld wrong\n", me, calls, wrong);
    MPI_Finalize();
    return wrong != 0;
}
