/* The MPI_Allgather arms: ring (P - 1 steps, each passing the block last
 * received on to rank + 1), recursive doubling (log2 P exchanges of the
 * blocks gathered so far, contiguous in the receive buffer; the extra
 * ranks of a P that is not a power of two folded in) and Bruck's (ceil(log2 P) steps of packed blocks in the
 * communicator's scratch, then a rotation into place); the forms of
 * Thakur, Rabenseifner, Gropp (IJHPCA 2005). Ring and doubling move the user's
 * datatypes as they are (block j at rbuf + j x rcount x extent, in integer
 * arithmetic so that MPI_BOTTOM works); a rank's own block is copied into
 * place by a message to itself, or is there already (MPI_IN_PLACE). */
#include <limits.h>

#include "tune_internal.h"

enum { TAG_AG = 31 };

int psk_tune_ag_prepare(psk_tune_args *a)
{
    int rsize = 0, ssize = 0, packed = 0;
    MPI_Aint lb;
    if (a->rcount < 0 || a->rtype == MPI_DATATYPE_NULL || a->rbuf == MPI_IN_PLACE ||
        PMPI_Type_size(a->rtype, &rsize) != MPI_SUCCESS || rsize < 0 ||
        PMPI_Type_get_extent(a->rtype, &lb, &a->rext) != MPI_SUCCESS)
        return -1;
    a->inplace = a->sbuf == MPI_IN_PLACE;
    a->bytes = (size_t)a->rcount * (size_t)rsize;
    int check = a->bytes <= (size_t)INT_MAX; /* beyond, no arm runs */
    if (check && (PMPI_Pack_size(a->rcount, a->rtype, a->comm, &packed) != MPI_SUCCESS || (size_t)packed != a->bytes))
        return -1;
    if (!a->inplace &&
        (a->scount < 0 || a->stype == MPI_DATATYPE_NULL || PMPI_Type_size(a->stype, &ssize) != MPI_SUCCESS ||
         ssize < 0 || (size_t)a->scount * (size_t)ssize != a->bytes ||
         PMPI_Type_get_extent(a->stype, &lb, &a->sext) != MPI_SUCCESS ||
         (check && (PMPI_Pack_size(a->scount, a->stype, a->comm, &packed) != MPI_SUCCESS ||
                    (size_t)packed != a->bytes))))
        return -1;
    return 0;
}

static void *blk(const psk_tune_args *a, int j)
{
    return (void *)((uintptr_t)a->rbuf + (uintptr_t)((MPI_Aint)j * a->rcount * a->rext));
}

static int own_block(const psk_tune_comm *c, const psk_tune_args *a)
{
    if (a->inplace)
        return MPI_SUCCESS;
    return PMPI_Sendrecv(a->sbuf, a->scount, a->stype, c->rank, TAG_AG, blk(a, c->rank), a->rcount, a->rtype,
                         c->rank, TAG_AG, c->priv, MPI_STATUS_IGNORE);
}

static int ring(psk_tune_comm *c, const psk_tune_args *a)
{
    int P = c->size, me = c->rank, right = (me + 1) % P, left = (me - 1 + P) % P;
    int rc = own_block(c, a);
    for (int s = 0; s < P - 1 && rc == MPI_SUCCESS; s++) {
        int sb = ((me - s) % P + P) % P, rb = ((me - s - 1) % P + P) % P;
        rc = PMPI_Sendrecv(blk(a, sb), a->rcount, a->rtype, right, TAG_AG, blk(a, rb), a->rcount, a->rtype, left,
                           TAG_AG, c->priv, MPI_STATUS_IGNORE);
    }
    return rc;
}

/* Recursive doubling. On a P that is not a power of two the extra ranks
 * are folded in as for allreduce (tune_allreduce.c): with p the largest
 * power of two below P and r = P - p, rank 2i (i < r) sends its block to
 * rank 2i + 1 and later gets all P blocks from it; the p ranks left are
 * virtual ranks 0 .. p - 1 in the real ranks' order, virtual rank v
 * holding the blocks first(v) .. first(v + 1) - 1 (two for a pair), so an
 * aligned group of virtual ranks holds consecutive blocks: one message. */
static int first_block(int v, int r) { return v < r ? 2 * v : v + r; }

static int recdbl(psk_tune_comm *c, const psk_tune_args *a)
{
    int P = c->size, me = c->rank, p = 1;
    while (p * 2 <= P)
        p *= 2;
    int r = P - p, paired = me < 2 * r, rc = own_block(c, a);
    if (rc != MPI_SUCCESS)
        return rc;
    if (paired && !(me & 1)) /* the even rank of a pair */
        return (rc = PMPI_Send(blk(a, me), a->rcount, a->rtype, me + 1, TAG_AG, c->priv)) != MPI_SUCCESS
                   ? rc
                   : PMPI_Recv(blk(a, 0), P * a->rcount, a->rtype, me + 1, TAG_AG, c->priv, MPI_STATUS_IGNORE);
    if (paired && (rc = PMPI_Recv(blk(a, me - 1), a->rcount, a->rtype, me - 1, TAG_AG, c->priv,
                                  MPI_STATUS_IGNORE)) != MPI_SUCCESS)
        return rc;
    int v = paired ? me / 2 : me - r;
    /* before the step of distance d, a rank has the blocks of its aligned
     * group of d virtual ranks */
    for (int d = 1; d < p && rc == MPI_SUCCESS; d <<= 1) {
        int vpeer = v ^ d, mine = v & ~(d - 1), theirs = vpeer & ~(d - 1);
        int peer = vpeer < r ? 2 * vpeer + 1 : vpeer + r;
        int m0 = first_block(mine, r), m1 = first_block(mine + d, r);
        int t0 = first_block(theirs, r), t1 = first_block(theirs + d, r);
        rc = PMPI_Sendrecv(blk(a, m0), (m1 - m0) * a->rcount, a->rtype, peer, TAG_AG, blk(a, t0),
                           (t1 - t0) * a->rcount, a->rtype, peer, TAG_AG, c->priv, MPI_STATUS_IGNORE);
    }
    if (rc == MPI_SUCCESS && paired)
        rc = PMPI_Send(blk(a, 0), P * a->rcount, a->rtype, me - 1, TAG_AG, c->priv);
    return rc;
}

/* T[i] is the block of rank me + i: step k sends T[0, n) to me - k and
 * gets T[k, k + n) from me + k (n = min(k, P - k)) */
static int bruck(psk_tune_comm *c, const psk_tune_args *a)
{
    int P = c->size, me = c->rank, rc = MPI_SUCCESS;
    size_t B = a->bytes;
    char *T = psk_tune_comm_scratch(c, (size_t)P * B);
    if (!T)
        return PSK_TUNE_FALLBACK;
    int size = (int)((size_t)P * B), pos = 0;
    if (a->inplace)
        rc = psk_tune_pack(1, (uintptr_t)blk(a, me), a->rcount, a->rtype, T, size, &pos, c->priv);
    else
        rc = psk_tune_pack(1, (uintptr_t)a->sbuf, a->scount, a->stype, T, size, &pos, c->priv);
    for (int k = 1; k < P && rc == MPI_SUCCESS; k <<= 1) {
        int n = k < P - k ? k : P - k;
        rc = PMPI_Sendrecv(T, (int)((size_t)n * B), MPI_PACKED, (me - k + P) % P, TAG_AG, T + (size_t)k * B,
                           (int)((size_t)n * B), MPI_PACKED, (me + k) % P, TAG_AG, c->priv, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < P && rc == MPI_SUCCESS; i++) {
        pos = (int)((size_t)i * B);
        rc = psk_tune_pack(0, (uintptr_t)blk(a, (me + i) % P), a->rcount, a->rtype, T, size, &pos, c->priv);
    }
    return rc;
}

int psk_tune_ag_run(int arm, psk_tune_comm *c, const psk_tune_args *a)
{
    if ((!c || !c->ready) && psk_tune_comm_setup(c, a->comm))
        return PSK_TUNE_FALLBACK;
    switch (arm) {
    case PSK_TUNE_ag_ring: return ring(c, a);
    case PSK_TUNE_ag_recdbl: return recdbl(c, a);
    case PSK_TUNE_ag_bruck: return bruck(c, a);
    default: return PSK_TUNE_FALLBACK; /* not reached: arms are checked */
    }
}
