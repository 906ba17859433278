/* The MPI_Alltoall arms: spread, pair (XOR, power-of-two P), ring (shift),
 * Bruck (radix 2, packed blocks), and pair and ring with a light barrier
 * (LB: a 1-byte handshake with the next step's partners), a barrier before
 * every step (MB) or one before the loop (OB): STAR-MPI's Pair and Ring
 * algorithms (Faraj, Yuan and Lowenthal, ICS 2006; kept in SimGrid's
 * src/smpi/colls/alltoall; docs/tune.md, The arms). Every arm works on the
 * user's datatypes as they are (block j at buf + j * count * extent, in
 * integer arithmetic so that MPI_BOTTOM works), in place (what is sent
 * packed into scratch first, what arrives into packed staging), with zero
 * bytes and on one rank; all their traffic goes over the communicator's
 * private duplicate. Packed blocks rely on MPI_Pack writing exactly the
 * type size, as on homogeneous builds of both MPIs (checked per call). */
#include <limits.h>
#include <string.h>

#include "tune_internal.h"

enum { TAG_DATA = 1, TAG_SYNC = 2 };
enum { SYNC_NONE, SYNC_LB, SYNC_MB, SYNC_OB };

/* where the blocks of one side of the call are */
typedef struct side {
    uintptr_t base; /* integer arithmetic: base may be MPI_BOTTOM */
    MPI_Aint stride;
    int count;
    MPI_Datatype type;
} side;

static void *blk(const side *s, int j)
{
    return (void *)(s->base + (uintptr_t)((MPI_Aint)j * s->stride));
}

/* MPI_Pack (pack 1) or MPI_Unpack (0) of block j of side u, at position
 * *pos of the packed buffer buf */
static int pack_block(int pack, const side *u, int j, void *buf, int size, int *pos, MPI_Comm comm)
{
    return psk_tune_pack(pack, (uintptr_t)blk(u, j), u->count, u->type, buf, size, pos, comm);
}

static const unsigned char needs_pow2[PSK_TUNE_NARMS] = {
#define POW2(name, pow2, ...) pow2,
    PSK_TUNE_ARM_LIST(POW2)
#undef POW2
};

static int is_pow2(int p) { return p > 0 && (p & (p - 1)) == 0; }

int psk_tune_a2a_valid(int arm, int P, size_t bytes, int inplace)
{
    if (arm < 0 || arm >= PSK_TUNE_NARMS || P < 1)
        return 0;
    if (arm == PSK_TUNE_native)
        return 1;
    if (psk_tune_arm_coll(arm) != PSK_TUNE_C_alltoall || (needs_pow2[arm] && !is_pow2(P)))
        return 0;
    /* packed blocks: MPI_Pack positions and MPI_PACKED counts are ints */
    if ((arm == PSK_TUNE_bruck || inplace) && (bytes > (size_t)INT_MAX / (size_t)P))
        return 0;
    return 1;
}

int psk_tune_a2a_prepare(psk_tune_args *a)
{
    int rsize = 0, ssize = 0, packed = 0;
    MPI_Aint lb;
    if (a->rcount < 0 || a->rtype == MPI_DATATYPE_NULL || a->rbuf == MPI_IN_PLACE)
        return -1;
    if (PMPI_Type_size(a->rtype, &rsize) != MPI_SUCCESS || rsize < 0 ||
        PMPI_Type_get_extent(a->rtype, &lb, &a->rext) != MPI_SUCCESS)
        return -1;
    a->inplace = a->sbuf == MPI_IN_PLACE;
    a->bytes = (size_t)a->rcount * (size_t)rsize;
    /* (beyond INT_MAX bytes no arm packs: psk_tune_a2a_valid) */
    int check = a->bytes <= (size_t)INT_MAX;
    if (check && (PMPI_Pack_size(a->rcount, a->rtype, a->comm, &packed) != MPI_SUCCESS || (size_t)packed != a->bytes))
        return -1;
    if (!a->inplace) {
        /* what a rank sends to each peer is what it receives from each */
        if (a->scount < 0 || a->stype == MPI_DATATYPE_NULL || PMPI_Type_size(a->stype, &ssize) != MPI_SUCCESS ||
            ssize < 0 || (size_t)a->scount * (size_t)ssize != a->bytes ||
            PMPI_Type_get_extent(a->stype, &lb, &a->sext) != MPI_SUCCESS ||
            (check && (PMPI_Pack_size(a->scount, a->stype, a->comm, &packed) != MPI_SUCCESS ||
                       (size_t)packed != a->bytes)))
            return -1;
    }
    return 0;
}

/* ---- the arms ---- */

/* In place, what is sent is packed away first and what arrives lands in
 * packed staging, then is unpacked: packed data goes as MPI_PACKED to
 * MPI_PACKED only. (MPICH 4.0.2 over UCX refuses a contiguous message of
 * 13 KB or more into a struct with holes, "Message truncated": its own
 * in-place Alltoall fails so.) A landing of NULL: received in place. */
typedef struct landing {
    const side *user; /* where the blocks go */
    size_t B;
    MPI_Comm comm;
} landing;

static int unpack(const landing *l, const side *stage, int from, int to)
{
    int pos = 0;
    return pack_block(0, l->user, to, blk(stage, from), (int)l->B, &pos, l->comm);
}

static int run_spread(const psk_tune_comm *c, const side *s, const side *r, const landing *l)
{
    int P = c->size, me = c->rank, rc = MPI_SUCCESS;
    MPI_Request *q = c->reqs;
    for (int i = 0; i < P && rc == MPI_SUCCESS; i++) {
        int src = (me - i + P) % P;
        rc = PMPI_Irecv(blk(r, src), r->count, r->type, src, TAG_DATA, c->priv, &q[i]);
    }
    for (int i = 0; i < P && rc == MPI_SUCCESS; i++) {
        int dst = (me + i) % P;
        rc = PMPI_Isend(blk(s, dst), s->count, s->type, dst, TAG_DATA, c->priv, &q[P + i]);
    }
    /* GCC >= 11 takes MPICH's MPI_STATUSES_IGNORE for a zero-length array */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
    if (rc == MPI_SUCCESS)
        rc = PMPI_Waitall(2 * P, q, MPI_STATUSES_IGNORE);
#pragma GCC diagnostic pop
    for (int j = 0; l && j < P && rc == MPI_SUCCESS; j++)
        rc = unpack(l, r, j, j);
    return rc;
}

/* pair (xor) or ring, with one of the barrier schemes; landing: r is one
 * block of staging */
static int run_steps(const psk_tune_comm *c, const side *s, const side *r, const landing *l, int xor, int sync)
{
    int P = c->size, me = c->rank;
    int rc = PMPI_Sendrecv(blk(s, me), s->count, s->type, me, TAG_DATA, blk(r, me), r->count, r->type, me,
                           TAG_DATA, c->priv, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && l)
        rc = unpack(l, r, me, me);
    if (rc == MPI_SUCCESS && sync == SYNC_OB && P > 1)
        rc = PMPI_Barrier(c->priv);
    for (int i = 1; i < P && rc == MPI_SUCCESS; i++) {
        int dst = xor ? me ^ i : (me + i) % P;
        int src = xor ? me ^ i : (me - i + P) % P;
        if (sync == SYNC_MB)
            rc = PMPI_Barrier(c->priv);
        else if (sync == SYNC_LB && i > 1) {
            /* receiver ready: tell this step's source, hear from its
             * destination, before sending to it */
            char tok = 0, got;
            rc = PMPI_Sendrecv(&tok, 1, MPI_CHAR, src, TAG_SYNC, &got, 1, MPI_CHAR, dst, TAG_SYNC, c->priv,
                               MPI_STATUS_IGNORE);
        }
        if (rc == MPI_SUCCESS)
            rc = PMPI_Sendrecv(blk(s, dst), s->count, s->type, dst, TAG_DATA, blk(r, src), r->count, r->type,
                               src, TAG_DATA, c->priv, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && l)
            rc = unpack(l, r, src, src);
    }
    return rc;
}

/* Radix-2 Bruck in packed blocks T[0..P): T[i] starts as the block for
 * rank me + i; step k sends the blocks whose index has bit k to me + k and
 * gets the same positions from me - k; T[i] ends as the block from me - i. */
static int run_bruck(psk_tune_comm *c, const side *s, const side *r, size_t B)
{
    int P = c->size, me = c->rank, rc = MPI_SUCCESS;
    size_t nmax = 0;
    for (int k = 1; k < P; k <<= 1) {
        size_t n = 0;
        for (int i = 0; i < P; i++)
            n += (i & k) != 0;
        if (n > nmax)
            nmax = n;
    }
    char *T = psk_tune_comm_scratch(c, ((size_t)P + 2 * nmax) * B);
    if (!T)
        return PSK_TUNE_FALLBACK;
    char *S = T + (size_t)P * B, *R = S + nmax * B;
    int tsize = (int)((size_t)P * B);
    for (int i = 0; i < P && rc == MPI_SUCCESS; i++) {
        int pos = (int)((size_t)i * B);
        rc = pack_block(1, s, (me + i) % P, T, tsize, &pos, c->priv);
    }
    for (int k = 1; k < P && rc == MPI_SUCCESS; k <<= 1) {
        size_t n = 0;
        for (int i = 0; i < P; i++)
            if (i & k)
                memcpy(S + B * n++, T + (size_t)i * B, B);
        rc = PMPI_Sendrecv(S, (int)(n * B), MPI_PACKED, (me + k) % P, TAG_DATA, R, (int)(n * B), MPI_PACKED,
                           (me - k + P) % P, TAG_DATA, c->priv, MPI_STATUS_IGNORE);
        n = 0;
        for (int i = 0; i < P && rc == MPI_SUCCESS; i++)
            if (i & k)
                memcpy(T + (size_t)i * B, R + B * n++, B);
    }
    for (int i = 0; i < P && rc == MPI_SUCCESS; i++) {
        int pos = (int)((size_t)i * B);
        rc = pack_block(0, r, (me - i + P) % P, T, tsize, &pos, c->priv);
    }
    return rc;
}

int psk_tune_a2a_run(int arm, psk_tune_comm *c, const psk_tune_args *a)
{
    if ((!c || !c->ready) && psk_tune_comm_setup(c, a->comm))
        return PSK_TUNE_FALLBACK;
    int P = c->size, rc = MPI_SUCCESS;
    size_t B = a->bytes;
    side r = {(uintptr_t)a->rbuf, (MPI_Aint)a->rcount * a->rext, a->rcount, a->rtype};
    side s = {(uintptr_t)a->sbuf, (MPI_Aint)a->scount * a->sext, a->scount, a->stype};
    if (arm == PSK_TUNE_bruck) /* packs all it sends first */
        return run_bruck(c, a->inplace ? &r : &s, &r, B);
    side user = r;
    landing land = {&user, B, c->priv}, *l = NULL;
    if (a->inplace) {
        /* the data to send packed away, then staging: P blocks (spread) or one */
        size_t nstage = arm == PSK_TUNE_spread ? (size_t)P : 1;
        char *tmp = psk_tune_comm_scratch(c, ((size_t)P + nstage) * B);
        if (!tmp)
            return PSK_TUNE_FALLBACK;
        int size = (int)((size_t)P * B), pos = 0;
        for (int j = 0; j < P && rc == MPI_SUCCESS; j++)
            rc = pack_block(1, &user, j, tmp, size, &pos, c->priv);
        if (rc != MPI_SUCCESS)
            return rc;
        s = (side){(uintptr_t)tmp, (MPI_Aint)B, (int)B, MPI_PACKED};
        r = (side){(uintptr_t)tmp + (size_t)P * B, nstage > 1 ? (MPI_Aint)B : 0, (int)B, MPI_PACKED};
        l = &land;
    }
    switch (arm) {
    case PSK_TUNE_spread: return run_spread(c, &s, &r, l);
    case PSK_TUNE_pair: return run_steps(c, &s, &r, l, 1, SYNC_NONE);
    case PSK_TUNE_ring: return run_steps(c, &s, &r, l, 0, SYNC_NONE);
    case PSK_TUNE_pair_lb: return run_steps(c, &s, &r, l, 1, SYNC_LB);
    case PSK_TUNE_ring_lb: return run_steps(c, &s, &r, l, 0, SYNC_LB);
    case PSK_TUNE_pair_mb: return run_steps(c, &s, &r, l, 1, SYNC_MB);
    case PSK_TUNE_ring_mb: return run_steps(c, &s, &r, l, 0, SYNC_MB);
    case PSK_TUNE_pair_ob: return run_steps(c, &s, &r, l, 1, SYNC_OB);
    case PSK_TUNE_ring_ob: return run_steps(c, &s, &r, l, 0, SYNC_OB);
    default: return PSK_TUNE_FALLBACK; /* not reached: arms are checked */
    }
}
