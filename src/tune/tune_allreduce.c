/* The MPI_Allreduce arms: recursive doubling (log2 P exchanges of the
 * whole vector), ring (a reduce-scatter of P pieces in P - 1 steps, then a
 * ring allgather) and Rabenseifner's (recursive halving reduce-scatter,
 * recursive doubling allgather); the forms of Thakur, Rabenseifner and
 * Gropp, "Optimization of Collective Communication Operations in MPICH"
 * (IJHPCA 2005). On a P that is not a power of two, recursive doubling and
 * Rabenseifner's fold the extra ranks in first (see fold below). The arms combine partial
 * results in another order than the MPI library, so they take only calls
 * whose result cannot depend on the order: predefined ops on predefined
 * types where the op is exact (integers with any op, the logical and
 * bitwise ones, MIN and MAX on floating types); floating SUM and PROD,
 * MINLOC/MAXLOC, user-defined ops and derived types go native. Combining
 * is the MPI library's own (MPI_Reduce_local). The vector is contiguous
 * (a predefined type), the partial results in the communicator's scratch. */
#include <string.h>

#include "tune_internal.h"

enum { TAG_AR = 21 };

enum { K_INT, K_FINT, K_BYTE, K_BOOL, K_FLOAT, K_NONE };

static int one_of(MPI_Datatype t, const MPI_Datatype *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (t == v[i])
            return 1;
    return 0;
}

#define ONE_OF(t, v) one_of(t, v, sizeof v / sizeof v[0])

static int kind_of(MPI_Datatype t)
{
    static const MPI_Datatype ints[] = {
        MPI_INT, MPI_LONG, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG, MPI_LONG_LONG,
        MPI_UNSIGNED_LONG_LONG, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T,
        MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T, MPI_AINT, MPI_OFFSET, MPI_COUNT};
    static const MPI_Datatype fints[] = {MPI_INTEGER, MPI_INTEGER4, MPI_INTEGER8};
    static const MPI_Datatype bools[] = {MPI_C_BOOL, MPI_LOGICAL};
    static const MPI_Datatype floats[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION,
                                          MPI_REAL4, MPI_REAL8};
    if (t == MPI_DATATYPE_NULL)
        return K_NONE;
    if (ONE_OF(t, ints))
        return K_INT;
    if (ONE_OF(t, fints))
        return K_FINT;
    if (t == MPI_BYTE)
        return K_BYTE;
    if (ONE_OF(t, bools))
        return K_BOOL;
    if (ONE_OF(t, floats))
        return K_FLOAT;
    return K_NONE;
}

/* whether op on that kind of type is exact, whatever the order (and
 * allowed by MPI: MPI 3.1, 5.9.2) */
static int exact(MPI_Op op, int kind)
{
    int minmax = op == MPI_MIN || op == MPI_MAX, arith = minmax || op == MPI_SUM || op == MPI_PROD;
    int logical = op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR;
    int bitwise = op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR;
    switch (kind) {
    case K_INT: return arith || logical || bitwise;
    case K_FINT: return arith || bitwise;
    case K_BYTE: return bitwise;
    case K_BOOL: return logical;
    case K_FLOAT: return minmax;
    }
    return 0;
}

int psk_tune_ar_prepare(psk_tune_args *a)
{
    int size = 0;
    MPI_Aint lb;
    if (a->rcount < 0 || a->rbuf == MPI_IN_PLACE || !exact(a->op, kind_of(a->rtype)) ||
        PMPI_Type_size(a->rtype, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent(a->rtype, &lb, &a->rext) != MPI_SUCCESS ||
        lb != 0 || a->rext != size || size <= 0)
        return -1;
    a->inplace = a->sbuf == MPI_IN_PLACE;
    a->bytes = (size_t)a->rcount * (size_t)size;
    a->contig = 1;
    return 0;
}

typedef struct vec {
    char *r, *tmp; /* the result, received partial results */
    size_t es;     /* bytes per element */
    MPI_Datatype type;
    MPI_Op op;
    MPI_Comm comm;
} vec;

/* exchange elements [slo, slo + sn) of the result with peer for its
 * [rlo, rlo + rn), combined into the result (reduce: received op ours) or
 * stored (not) */
static int swap(const vec *v, int to, size_t slo, size_t sn, int from, size_t rlo, size_t rn, int reduce)
{
    char *at = reduce ? v->tmp : v->r + rlo * v->es;
    int rc = PMPI_Sendrecv(v->r + slo * v->es, (int)sn, v->type, to, TAG_AR, at, (int)rn, v->type, from, TAG_AR,
                           v->comm, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && reduce && rn)
        rc = PMPI_Reduce_local(v->tmp, v->r + rlo * v->es, (int)rn, v->type, v->op);
    return rc;
}

/* A P that is not a power of two: with p the largest power of two below
 * P and r = P - p, ranks 2i and 2i + 1 (i < r) pair up first, the even one
 * sending its vector to the odd one, which combines them (lower first);
 * the p ranks left (the odd ones of the pairs, then ranks 2r .. P - 1) run
 * the power-of-two algorithm as virtual ranks 0 .. p - 1, which keep the
 * real ranks' order; then each odd rank of a pair sends the result back.
 * Two more exchanges of the whole vector on the pairs' ranks, as the MPI
 * libraries do it for these algorithms. */
typedef struct fold {
    int p, r;  /* virtual ranks, pairs folded */
    int vme;   /* this rank's virtual rank, -1 for the even rank of a pair */
} fold;

static fold fold_of(int P, int me)
{
    fold f = {1, 0, -1};
    while (f.p * 2 <= P)
        f.p *= 2;
    f.r = P - f.p;
    f.vme = me < 2 * f.r ? (me & 1 ? me / 2 : -1) : me - f.r;
    return f;
}

static int real_rank(const fold *f, int v) { return v < f->r ? 2 * v + 1 : v + f->r; }

/* Both partners combine the lower ranks' part first (MPI_Reduce_local(in,
 * inout) makes inout = in op inout), so that every rank computes the same
 * expression and gets the same bits even where the op is not exactly
 * commutative (MIN/MAX of a NaN or of zeros of both signs); the other arms
 * combine each piece on one rank and pass it on. */
static int recdbl(const vec *v, const fold *f, size_t n)
{
    int rc = MPI_SUCCESS, vme = f->vme;
    for (int k = 1; k < f->p && rc == MPI_SUCCESS; k <<= 1) {
        int vpeer = vme ^ k, peer = real_rank(f, vpeer);
        if (vpeer < vme) {
            rc = swap(v, peer, 0, n, peer, 0, n, 1);
            continue;
        }
        rc = PMPI_Sendrecv(v->r, (int)n, v->type, peer, TAG_AR, v->tmp, (int)n, v->type, peer, TAG_AR, v->comm,
                           MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && (rc = PMPI_Reduce_local(v->r, v->tmp, (int)n, v->type, v->op)) == MPI_SUCCESS)
            memcpy(v->r, v->tmp, n * v->es);
    }
    return rc;
}

static int ring(const vec *v, int P, int me, size_t n)
{
    int rc = MPI_SUCCESS, right = (me + 1) % P, left = (me - 1 + P) % P;
#define OFF(i) psk_tune_piece(n, P, (i))
#define LEN(i) (OFF((i) + 1) - OFF(i))
    /* reduce-scatter: after step s, piece me - s - 1 holds s + 2 ranks' */
    for (int s = 0; s < P - 1 && rc == MPI_SUCCESS; s++) {
        int sp = ((me - s) % P + P) % P, rp = ((me - s - 1) % P + P) % P;
        rc = swap(v, right, OFF(sp), LEN(sp), left, OFF(rp), LEN(rp), 1);
    }
    /* allgather: rank me holds piece me + 1 whole */
    for (int s = 0; s < P - 1 && rc == MPI_SUCCESS; s++) {
        int sp = ((me + 1 - s) % P + P) % P, rp = ((me - s) % P + P) % P;
        rc = swap(v, right, OFF(sp), LEN(sp), left, OFF(rp), LEN(rp), 0);
    }
#undef OFF
#undef LEN
    return rc;
}

/* p pieces of the vector, piece i reduced on virtual rank i */
static int rabenseifner(const vec *v, const fold *f, size_t n)
{
#define OFF(i) psk_tune_piece(n, P, (i))
    int rc = MPI_SUCCESS, P = f->p, me = f->vme, lo = 0, hi = P; /* pieces this rank is reducing */
    for (int d = P / 2; d > 0 && rc == MPI_SUCCESS; d /= 2) {
        int mid = lo + d, peer = real_rank(f, me ^ d);
        if (me & d) { /* keeps the upper half */
            rc = swap(v, peer, OFF(lo), OFF(mid) - OFF(lo), peer, OFF(mid), OFF(hi) - OFF(mid), 1);
            lo = mid;
        } else {
            rc = swap(v, peer, OFF(mid), OFF(hi) - OFF(mid), peer, OFF(lo), OFF(mid) - OFF(lo), 1);
            hi = mid;
        }
    }
    /* lo == me: piece me is whole; doubling gathers the others back */
    for (int d = 1; d < P && rc == MPI_SUCCESS; d *= 2) {
        int peer = real_rank(f, me ^ d);
        if (me & d) {
            rc = swap(v, peer, OFF(lo), OFF(hi) - OFF(lo), peer, OFF(lo - d), OFF(lo) - OFF(lo - d), 0);
            lo -= d;
        } else {
            rc = swap(v, peer, OFF(lo), OFF(hi) - OFF(lo), peer, OFF(hi), OFF(hi + d) - OFF(hi), 0);
            hi += d;
        }
    }
#undef OFF
    return rc;
}

/* the arm on P ranks: the pairs folded in, the power-of-two algorithm on
 * the virtual ranks, the result sent back */
static int folded(const vec *v, int P, int me, size_t n, int (*pow2)(const vec *, const fold *, size_t))
{
    fold f = fold_of(P, me);
    int rc = MPI_SUCCESS;
    if (f.vme < 0) /* the even rank of a pair: its vector in, the result back */
        return (rc = PMPI_Send(v->r, (int)n, v->type, me + 1, TAG_AR, v->comm)) != MPI_SUCCESS
                   ? rc
                   : PMPI_Recv(v->r, (int)n, v->type, me + 1, TAG_AR, v->comm, MPI_STATUS_IGNORE);
    int paired = me < 2 * f.r;
    if (paired && ((rc = PMPI_Recv(v->tmp, (int)n, v->type, me - 1, TAG_AR, v->comm, MPI_STATUS_IGNORE)) !=
                       MPI_SUCCESS ||
                   (rc = PMPI_Reduce_local(v->tmp, v->r, (int)n, v->type, v->op)) != MPI_SUCCESS))
        return rc;
    if ((rc = pow2(v, &f, n)) != MPI_SUCCESS)
        return rc;
    return paired ? PMPI_Send(v->r, (int)n, v->type, me - 1, TAG_AR, v->comm) : MPI_SUCCESS;
}

int psk_tune_ar_run(int arm, psk_tune_comm *c, const psk_tune_args *a)
{
    if ((!c || !c->ready) && psk_tune_comm_setup(c, a->comm))
        return PSK_TUNE_FALLBACK;
    char *tmp = psk_tune_comm_scratch(c, a->bytes);
    if (!tmp)
        return PSK_TUNE_FALLBACK;
    vec v = {(char *)a->rbuf, tmp, (size_t)a->rext, a->rtype, a->op, c->priv};
    if (!a->inplace)
        memcpy(a->rbuf, a->sbuf, a->bytes);
    size_t n = (size_t)a->rcount;
    switch (arm) {
    case PSK_TUNE_ar_recdbl: return folded(&v, c->size, c->rank, n, recdbl);
    case PSK_TUNE_ar_ring: return ring(&v, c->size, c->rank, n);
    case PSK_TUNE_ar_rabenseifner: return folded(&v, c->size, c->rank, n, rabenseifner);
    default: return PSK_TUNE_FALLBACK; /* not reached: arms are checked */
    }
}
