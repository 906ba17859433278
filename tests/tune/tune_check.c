/* tune_check: every arm of the tuning library against the native call,
 * byte for byte, linked with the library's objects (as a program linked
 * with the library would be). MPI_Alltoall first, then (run_colls)
 * MPI_Bcast (from rank 0 or the last), MPI_Allgather (the same types as
 * alltoall's, in place or not) and MPI_Allreduce (int sum, unsigned char
 * bxor, double max, long long min; double sum and a vector type, which
 * must go native untouched), over the same communicators and sizes. For each communicator (world,
 * an even/odd split with its ranks reversed, a 3-rank one made and freed
 * twice), datatype (bytes; a vector of ints with holes inside and after;
 * ints sent, that vector received; a struct with alignment holes; bytes at
 * MPI_BOTTOM with types holding the buffers' addresses), size
 * per peer (0 B to 1 MiB) and in place or not: the native result must be
 * the expected data (holes untouched), each arm (the internal entry point
 * psk_tune_alltoall_arm) and MPI_Alltoall itself (PSK_TUNE_FORCE=cycle:
 * one call per arm) must leave the receive buffer byte-identical to it and
 * the send buffer unchanged; an arm may skip only for its power-of-two
 * rule (pair; the recursive doubling and Rabenseifner arms of allreduce
 * and allgather fold the extra ranks in and run on every P).
 * Intercommunicators must go native untouched. Exit 1 on a failure. */
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune_internal.h"

enum { SENT = 0xEE, RECV = 0xA5, MAXPRINT = 20, WRAPPED = 3 };

static int wrank, wsize, failures, printed, runs, native_failed;
static int level = 2; /* how much to run: see run_comm */

/* what the failing run was */
typedef struct ctx {
    const char *comm, *type, *arm;
    size_t bytes;
    int inplace;
} ctx;

static void fail(const ctx *x, const char *fmt, ...)
{
    failures++;
    if (printed++ >= MAXPRINT)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "tune_check: rank %d of %d: %s, %s, %zu B/peer%s, %s: %s\n", wrank, wsize, x->comm, x->type,
            x->bytes, x->inplace ? ", in place" : "", x->arm, msg);
}

/* what rank s sends to rank d, byte k of the block: packed form */
static unsigned char pattern(int s, int d, size_t k) { return (unsigned char)(s * 131 + d * 29 + k * 7 + (k >> 8)); }

typedef struct mode {
    const char *name;
    MPI_Datatype stype, rtype;
    int sper, rper; /* elements of each per unit */
    size_t unit;    /* data bytes per unit */
    int bottom;     /* buffers passed as MPI_BOTTOM, types holding their addresses */
} mode;

/* one element: B bytes at buf's absolute address, extent B */
static MPI_Datatype absolute(void *buf, size_t B)
{
    MPI_Datatype bytes, t;
    MPI_Aint at;
    int one = 1;
    MPI_Get_address(buf, &at);
    MPI_Type_contiguous((int)B, MPI_BYTE, &bytes);
    MPI_Type_create_hindexed(1, &one, &at, bytes, &t);
    MPI_Type_commit(&t);
    MPI_Type_free(&bytes);
    return t;
}

static size_t extent_of(MPI_Datatype t)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    return (size_t)ext;
}

/* one case on comm: n units per peer */
static void run_case(MPI_Comm comm, const char *cname, const mode *m, size_t n, int inplace)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    int scount = (int)n * m->sper, rcount = (int)n * m->rper;
    size_t B = n * m->unit;
    size_t slen = (size_t)P * scount * extent_of(m->stype) + 1, rlen = (size_t)P * rcount * extent_of(m->rtype) + 1;
    unsigned char *spk = malloc((size_t)P * B + 1), *rpk = malloc((size_t)P * B + 1);
    unsigned char *sbuf = malloc(slen), *s0 = malloc(slen), *init = malloc(rlen), *exp = malloc(rlen),
                  *ref = malloc(rlen), *rbuf = malloc(rlen);
    if (!spk || !rpk || !sbuf || !s0 || !init || !exp || !ref || !rbuf) {
        fprintf(stderr, "tune_check: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* my blocks for each peer, and what each peer sends me, packed */
    for (int d = 0; d < P; d++)
        for (size_t k = 0; k < B; k++) {
            spk[(size_t)d * B + k] = pattern(me, d, k);
            rpk[(size_t)d * B + k] = pattern(d, me, k);
        }
    int pos = 0;
    memset(sbuf, SENT, slen);
    memset(init, RECV, rlen);
    memset(exp, RECV, rlen);
    if (inplace)
        MPI_Unpack(spk, (int)((size_t)P * B + 1), &pos, init, P * rcount, m->rtype, comm);
    else
        MPI_Unpack(spk, (int)((size_t)P * B + 1), &pos, sbuf, P * scount, m->stype, comm);
    pos = 0;
    MPI_Unpack(rpk, (int)((size_t)P * B + 1), &pos, exp, P * rcount, m->rtype, comm);
    memcpy(s0, sbuf, slen);
    /* the call's arguments: the buffers, or MPI_BOTTOM with types */
    const void *sarg = inplace ? MPI_IN_PLACE : sbuf;
    void *rarg = rbuf, *refarg = ref;
    MPI_Datatype st = m->stype, rt = m->rtype, reft = m->rtype;
    if (m->bottom) {
        st = absolute(sbuf, B);
        rt = absolute(rbuf, B);
        reft = absolute(ref, B);
        scount = rcount = 1;
        sarg = inplace ? MPI_IN_PLACE : MPI_BOTTOM;
        rarg = refarg = MPI_BOTTOM;
    }

    ctx x = {cname, m->name, "PMPI_Alltoall", B, inplace};
    memcpy(ref, init, rlen);
    int native_rc = PMPI_Alltoall(sarg, scount, st, refarg, rcount, reft, comm);
    if (native_rc != MPI_SUCCESS) {
        /* MPICH 4.0.2 fails in place with the struct from 13 KB a peer
         * ("Message truncated" in its Sendrecv_replace): the arms are
         * held to the expected data then */
        char err[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        MPI_Error_string(native_rc, err, &len);
        if (native_failed++ < 1)
            fprintf(stderr, "tune_check: rank %d of %d: %s, %s, %zu B/peer%s: the native call failed (%.*s); "
                    "results compared with the expected data\n", wrank, wsize, cname, m->name, B,
                    inplace ? ", in place" : "", (int)strcspn(err, "\n"), err);
        memcpy(ref, exp, rlen);
    } else if (memcmp(ref, exp, rlen))
        fail(&x, "the native result is not the expected data");

    /* every arm through the internal entry point, then MPI_Alltoall a few
     * times (its cycle goes on from case to case, through every arm) */
    int wrapped = level || P > 2 ? WRAPPED : PSK_TUNE_NARMS; /* --tiny: few cases */
    for (int k = 0; k < PSK_TUNE_NARMS + wrapped; k++) {
        int arm = k < PSK_TUNE_NARMS ? k : -1;
        if (arm > 0 && psk_tune_arm_coll(arm) != PSK_TUNE_C_alltoall)
            continue;
        x.arm = arm >= 0 ? psk_tune_arm_name(arm) : "MPI_Alltoall (cycle)";
        memcpy(rbuf, init, rlen);
        psk_tune_counts c0, c1;
        psk_tune_get_counts(&c0);
        int rc = arm >= 0 ? psk_tune_alltoall_arm(arm, sarg, scount, st, rarg, rcount, rt, comm)
                          : MPI_Alltoall(sarg, scount, st, rarg, rcount, rt, comm);
        psk_tune_get_counts(&c1);
        runs++;
        if (native_rc != MPI_SUCCESS && (arm == PSK_TUNE_native || c1.arm[0] > c0.arm[0]))
            continue; /* the native call, as broken as above */
        if (rc == PSK_TUNE_SKIP) {
            int pow2 = (P & (P - 1)) == 0;
            if (pow2 || strncmp(x.arm, "pair", 4))
                fail(&x, "skipped");
            continue;
        }
        if (rc != MPI_SUCCESS) {
            fail(&x, "returned %d", rc);
            continue;
        }
        for (size_t i = 0; i < rlen; i++)
            if (rbuf[i] != ref[i]) {
                fail(&x, "receive buffer differs from the native one at byte %zu", i);
                break;
            }
        for (size_t i = 0; i < slen; i++)
            if (sbuf[i] != s0[i]) {
                fail(&x, "send buffer changed at byte %zu", i);
                break;
            }
    }
    if (m->bottom) {
        MPI_Type_free(&st);
        MPI_Type_free(&rt);
        MPI_Type_free(&reft);
    }
    free(spk), free(rpk), free(sbuf), free(s0), free(init), free(exp), free(ref), free(rbuf);
}

/* How much to run (level): 2 everything (sizes 0 B to 1 MiB per peer: 1 MiB in
 * bytes on the world communicator only, for time); 1 (--quick) without
 * 100 B and 1 MiB, and only bytes and struct on the smaller communicators;
 * 0 (--tiny: MPICH busy-polls, slow on more ranks than cores) 1 B and 64 KiB
 * of bytes and struct on the world, 4000 B of bytes on the others, where
 * (on 1 or 2 ranks) MPI_Alltoall is called once per arm, not WRAPPED times.
 * run_colls at 1 and 0 only on the world and the first two ranks; at 0 on
 * the world 64 KiB of bytes (allreduce: int sum, double sum), on the first
 * two ranks 4000 B (int sum), without the same-bits case. */
static void run_comm(MPI_Comm comm, const char *cname, const mode *modes, int nmodes, int world)
{
    static const size_t sizes[] = {0, 1, 100, 4000, 65560, 1 << 20};
    for (int mi = 0; mi < nmodes; mi++)
        for (int si = 0; si < (int)(sizeof sizes / sizeof sizes[0]); si++) {
            size_t sz = sizes[si];
            int basic = mi == 0 || mi == 3; /* bytes, struct */
            if (sz > 65560 && (mi > 0 || !world || level < 2))
                continue;
            if (level == 1 && (sz == 100 || (!world && !basic)))
                continue;
            if (level == 0 && (world ? !basic || (sz != 1 && sz != 65560) : mi != 0 || sz != 4000))
                continue;
            const mode *m = &modes[mi];
            size_t n = (sz + m->unit - 1) / m->unit;
            for (int inplace = 0; inplace < 2; inplace++)
                run_case(comm, cname, m, n, inplace);
        }
}

/* ---- MPI_Bcast, MPI_Allreduce, MPI_Allgather ---- */

/* a call of a collective made one way: how -2 is PMPI_*, -1 MPI_* (the
 * library's dispatch, cycle), else that arm through the internal entry */
typedef struct call {
    int coll, root;
    const void *sarg;
    int scount, rcount;
    MPI_Datatype st, rt;
    void *rarg;
    MPI_Op op;
    MPI_Comm comm;
} call;

static int run_call(const call *c, int how)
{
    switch (c->coll) {
    case PSK_TUNE_C_bcast:
        return how == -2 ? PMPI_Bcast(c->rarg, c->rcount, c->rt, c->root, c->comm)
             : how == -1 ? MPI_Bcast(c->rarg, c->rcount, c->rt, c->root, c->comm)
                         : psk_tune_bcast_arm(how, c->rarg, c->rcount, c->rt, c->root, c->comm);
    case PSK_TUNE_C_allreduce:
        return how == -2 ? PMPI_Allreduce(c->sarg, c->rarg, c->rcount, c->rt, c->op, c->comm)
             : how == -1 ? MPI_Allreduce(c->sarg, c->rarg, c->rcount, c->rt, c->op, c->comm)
                         : psk_tune_allreduce_arm(how, c->sarg, c->rarg, c->rcount, c->rt, c->op, c->comm);
    default:
        return how == -2 ? PMPI_Allgather(c->sarg, c->scount, c->st, c->rarg, c->rcount, c->rt, c->comm)
             : how == -1 ? MPI_Allgather(c->sarg, c->scount, c->st, c->rarg, c->rcount, c->rt, c->comm)
                         : psk_tune_allgather_arm(how, c->sarg, c->scount, c->st, c->rarg, c->rcount, c->rt, c->comm);
    }
}

/* the native result (into ref), then every arm of the collective and
 * MPI_* itself (cycle) WRAPPED times, each from rbuf = init: the receive
 * buffer must be byte-identical to native's, sbuf (slen bytes) unchanged.
 * An arm may skip at 0 bytes (all of these arms run on every P), and
 * everywhere when the call is one the arms must not take (native_only); MPI_* must
 * then have gone native untouched */
static void compare(ctx *x, const call *c, unsigned char *rbuf, const unsigned char *init, size_t rlen,
                    const unsigned char *sbuf, size_t slen, int native_only)
{
    unsigned char *ref = malloc(rlen), *s0 = malloc(slen + 1);
    if (slen)
        memcpy(s0, sbuf, slen);
    memcpy(rbuf, init, rlen);
    x->arm = "PMPI";
    /* (Open MPI refuses predefined ops on derived types: MPI_* must then
     * fail as native does) */
    int native_rc = run_call(c, -2);
    if (native_rc != MPI_SUCCESS && !native_only)
        fail(x, "the native call failed");
    memcpy(ref, rbuf, rlen);
    for (int k = 0; k < PSK_TUNE_NARMS + WRAPPED; k++) {
        int arm = k < PSK_TUNE_NARMS ? k : -1;
        if (arm > 0 && psk_tune_arm_coll(arm) != c->coll)
            continue;
        x->arm = arm >= 0 ? psk_tune_arm_name(arm) : psk_tune_coll_mpi_name(c->coll);
        memcpy(rbuf, init, rlen);
        psk_tune_counts c0, c1;
        psk_tune_get_counts(&c0);
        int rc = run_call(c, arm);
        psk_tune_get_counts(&c1);
        runs++;
        if (rc == PSK_TUNE_SKIP) {
            if (!native_only && (arm == PSK_TUNE_native || x->bytes != 0))
                fail(x, "skipped");
            continue;
        }
        if (arm < 0 && native_only && c1.coll[c->coll].unsupported != c0.coll[c->coll].unsupported + 1)
            fail(x, "did not go native untouched");
        int cls = rc, ncls = native_rc; /* (MPICH's codes carry an instance) */
        if (rc != MPI_SUCCESS && rc != PSK_TUNE_FALLBACK)
            MPI_Error_class(rc, &cls);
        if (native_rc != MPI_SUCCESS)
            MPI_Error_class(native_rc, &ncls);
        if (cls != ncls)
            fail(x, "returned %d, native %d", rc, native_rc);
        if (rc != MPI_SUCCESS)
            continue;
        for (size_t i = 0; i < rlen; i++)
            if (rbuf[i] != ref[i]) {
                fail(x, "receive buffer differs from the native one at byte %zu", i);
                break;
            }
        if (slen && memcmp(sbuf, s0, slen))
            fail(x, "send buffer changed");
    }
    free(ref), free(s0);
}

/* MPI_Bcast of n units of mode m from root (the mode's receive type) */
static void bcast_case(MPI_Comm comm, const char *cname, const mode *m, size_t n, int root)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    size_t B = n * m->unit, rlen = n * m->rper * extent_of(m->rtype) + 1;
    unsigned char *pk = malloc(B + 1), *buf = malloc(rlen), *init = malloc(rlen);
    for (size_t k = 0; k < B; k++)
        pk[k] = pattern(root, 0, k);
    memset(init, RECV, rlen);
    int pos = 0;
    if (me == root)
        MPI_Unpack(pk, (int)B + 1, &pos, init, (int)n * m->rper, m->rtype, comm);
    call c = {PSK_TUNE_C_bcast, root, NULL, 0, (int)n * m->rper, MPI_DATATYPE_NULL, m->rtype, buf, MPI_OP_NULL, comm};
    if (m->bottom) {
        c.rt = absolute(buf, B);
        c.rcount = 1;
        c.rarg = MPI_BOTTOM;
    }
    ctx x = {cname, m->name, "", B, 0};
    compare(&x, &c, buf, init, rlen, NULL, 0, 0);
    if (m->bottom)
        MPI_Type_free(&c.rt);
    free(pk), free(buf), free(init);
}

/* MPI_Allgather of n units of mode m per rank, in place or not */
static void allgather_case(MPI_Comm comm, const char *cname, const mode *m, size_t n, int inplace)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    int scount = (int)n * m->sper, rcount = (int)n * m->rper;
    size_t B = n * m->unit, rext = extent_of(m->rtype);
    size_t slen = (size_t)scount * extent_of(m->stype) + 1, rlen = (size_t)P * rcount * rext + 1;
    unsigned char *pk = malloc(B + 1), *sbuf = malloc(slen), *rbuf = malloc(rlen), *init = malloc(rlen);
    for (size_t k = 0; k < B; k++)
        pk[k] = pattern(me, 0, k);
    memset(sbuf, SENT, slen);
    memset(init, RECV, rlen);
    int pos = 0;
    if (inplace)
        MPI_Unpack(pk, (int)B + 1, &pos, init + (size_t)me * rcount * rext, rcount, m->rtype, comm);
    else
        MPI_Unpack(pk, (int)B + 1, &pos, sbuf, scount, m->stype, comm);
    call c = {PSK_TUNE_C_allgather, 0, inplace ? MPI_IN_PLACE : sbuf, scount, rcount, m->stype, m->rtype, rbuf,
              MPI_OP_NULL, comm};
    if (m->bottom) {
        c.st = absolute(sbuf, B);
        c.rt = absolute(rbuf, B);
        c.scount = c.rcount = 1;
        c.sarg = inplace ? MPI_IN_PLACE : MPI_BOTTOM;
        c.rarg = MPI_BOTTOM;
    }
    ctx x = {cname, m->name, "", B, inplace};
    compare(&x, &c, rbuf, init, rlen, sbuf, slen, 0);
    if (m->bottom) {
        MPI_Type_free(&c.st);
        MPI_Type_free(&c.rt);
    }
    free(pk), free(sbuf), free(rbuf), free(init);
}

/* a reduction: type and op, and whether the arms may take it */
typedef struct red {
    const char *name;
    MPI_Datatype type; /* MPI_DATATYPE_NULL: 3 ints, a derived type */
    MPI_Op op;
    int native_only;
} red;

/* MPI_Allreduce of about `bytes` of r, in place or not; the values are
 * small integers (floating ones exact, never NaN) */
static void allreduce_case(MPI_Comm comm, const char *cname, const red *r, MPI_Datatype vec, size_t bytes,
                           int inplace)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    MPI_Datatype t = r->type != MPI_DATATYPE_NULL ? r->type : vec;
    int size;
    MPI_Type_size(t, &size);
    int count = (int)((bytes + (size_t)size - 1) / (size_t)size);
    size_t len = (size_t)count * extent_of(t) + 1;
    unsigned char *data = malloc(len), *sbuf = malloc(len), *rbuf = malloc(len), *init = malloc(len);
    memset(data, SENT, len);
    size_t nel = (size_t)count * (size_t)size;
    if (t == MPI_DOUBLE) {
        for (size_t i = 0; i < nel / sizeof(double); i++)
            ((double *)data)[i] = (double)(pattern(me, 1, i) % 97) - 40.5;
    } else if (t == vec) {
        for (size_t i = 0; i < nel / sizeof(int); i++)
            ((int *)data)[i] = pattern(me, 2, i) - 100;
    } else
        for (size_t i = 0; i < nel; i++)
            data[i] = pattern(me, 3, i);
    memset(init, RECV, len);
    memset(sbuf, SENT, len);
    memcpy(inplace ? init : sbuf, data, len);
    call c = {PSK_TUNE_C_allreduce, 0, inplace ? MPI_IN_PLACE : sbuf, 0, count, MPI_DATATYPE_NULL, t, rbuf, r->op,
              comm};
    ctx x = {cname, r->name, "", bytes, inplace};
    compare(&x, &c, rbuf, init, len, sbuf, len, r->native_only);
    free(data), free(sbuf), free(rbuf), free(init);
}

/* MPI_Allreduce MIN and MAX of doubles where the order matters (NaNs with
 * payloads that differ between ranks, zeros of both signs): each arm may
 * differ from native (docs/tune.md says so) but must give every rank the
 * same bits */
static void allreduce_same_bits(MPI_Comm comm, const char *cname)
{
    int me;
    MPI_Comm_rank(comm, &me);
    enum { N = 64 };
    double in[N], out[N];
    for (int i = 0; i < N; i++) {
        unsigned long long bits = 0x7ff8000000000000ull | (unsigned long long)(me * 131 + i); /* a quiet NaN */
        switch ((i + me) % 4) {
        case 0: memcpy(&in[i], &bits, sizeof bits); break;
        case 1: in[i] = 0.0; break;
        case 2: in[i] = -0.0; break;
        default: in[i] = (double)(i % 5);
        }
    }
    MPI_Op ops[2] = {MPI_MIN, MPI_MAX};
    for (int o = 0; o < 2; o++)
        for (int arm = 1; arm < PSK_TUNE_NARMS; arm++) {
            if (psk_tune_arm_coll(arm) != PSK_TUNE_C_allreduce)
                continue;
            int rc = psk_tune_allreduce_arm(arm, in, out, N, MPI_DOUBLE, ops[o], comm);
            if (rc == PSK_TUNE_SKIP)
                continue;
            unsigned long long h = 1469598103934665603ull, lo, hi;
            const unsigned char *b = (const unsigned char *)out;
            for (size_t i = 0; i < sizeof out; i++)
                h = (h ^ b[i]) * 1099511628211ull;
            PMPI_Allreduce(&h, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
            PMPI_Allreduce(&h, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
            ctx x = {cname, o ? "double max, NaNs and signed zeros" : "double min, NaNs and signed zeros",
                     psk_tune_arm_name(arm), sizeof in, 0};
            runs++;
            if (rc != MPI_SUCCESS)
                fail(&x, "returned %d", rc);
            else if (lo != hi)
                fail(&x, "the ranks' results differ");
        }
}

/* the three on comm, levels as run_comm's: 0 B to 1 MiB (the world only) */
static void run_colls(MPI_Comm comm, const char *cname, const mode *modes, int nmodes, int world, MPI_Datatype ints3)
{
    static const size_t sizes[] = {0, 1, 100, 4000, 65560, 1 << 20};
    const red reds[] = {
        {"int sum", MPI_INT, MPI_SUM, 0},        {"uchar bxor", MPI_UNSIGNED_CHAR, MPI_BXOR, 0},
        {"double max", MPI_DOUBLE, MPI_MAX, 0},  {"long long min", MPI_LONG_LONG, MPI_MIN, 0},
        {"double sum", MPI_DOUBLE, MPI_SUM, 1},  {"3 ints (derived), sum", MPI_DATATYPE_NULL, MPI_SUM, 1},
    };
    int P;
    MPI_Comm_size(comm, &P);
    if (world && level > 0)
        allreduce_same_bits(comm, cname);
    for (int si = 0; si < (int)(sizeof sizes / sizeof sizes[0]); si++) {
        size_t sz = sizes[si];
        if (sz > 65560 && (!world || level < 2))
            continue;
        if (level == 1 && sz == 100)
            continue;
        if (level == 0 && (world ? sz != 65560 : sz != 4000))
            continue;
        for (int mi = 0; mi < nmodes; mi++) {
            int basic = mi == 0 || mi == 3;
            if ((sz > 65560 && mi > 0) || (level < 2 && !world && !basic) || (level == 0 && mi > 0))
                continue;
            const mode *m = &modes[mi];
            size_t n = (sz + m->unit - 1) / m->unit;
            bcast_case(comm, cname, m, n, (int)(si % 2 ? P - 1 : 0));
            for (int inplace = 0; inplace < 2; inplace++)
                allgather_case(comm, cname, m, n, inplace);
        }
        for (int ri = 0; ri < (int)(sizeof reds / sizeof reds[0]); ri++) {
            if ((sz > 65560 && ri > 0) || (level == 0 && ri != 0 && (sz != 65560 || ri != 4)))
                continue;
            for (int inplace = 0; inplace < 2; inplace++)
                allreduce_case(comm, cname, &reds[ri], ints3, sz, inplace);
        }
    }
}

/* intercommunicators go to the native call untouched, every collective */
static void run_inter(void)
{
    if (wsize < 2)
        return;
    MPI_Comm half, inter;
    int low = wrank < wsize / 2;
    MPI_Comm_split(MPI_COMM_WORLD, low, wrank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? wsize / 2 : 0, 7, &inter);
    int R;
    MPI_Comm_remote_size(inter, &R);
    int *s = malloc(2 * sizeof(int) * (size_t)R), *r = malloc(2 * sizeof(int) * (size_t)R),
        *ref = malloc(2 * sizeof(int) * (size_t)R);
    for (int i = 0; i < 2 * R; i++)
        s[i] = wrank * 1000 + i;
    psk_tune_counts before, after;
    psk_tune_get_counts(&before);
    MPI_Alltoall(s, 2, MPI_INT, r, 2, MPI_INT, inter);
    psk_tune_get_counts(&after);
    PMPI_Alltoall(s, 2, MPI_INT, ref, 2, MPI_INT, inter);
    ctx x = {"intercommunicator", "int", "MPI_Alltoall", 8, 0};
    if (memcmp(r, ref, 2 * sizeof(int) * (size_t)R))
        fail(&x, "result differs from the native one");
    if (after.unsupported != before.unsupported + 1 || after.arm[PSK_TUNE_native] != before.arm[PSK_TUNE_native])
        fail(&x, "was not passed on untouched");

    /* the others: bcast from the high group's rank 0 (MPI_ROOT there, the
     * other high ranks MPI_PROC_NULL), allreduce, allgather */
    int hrank;
    MPI_Comm_rank(half, &hrank);
    for (int coll = PSK_TUNE_C_bcast; coll < PSK_TUNE_NCOLL; coll++) {
        int root = low ? 0 : hrank == 0 ? MPI_ROOT : MPI_PROC_NULL;
        for (int pass = 0; pass < 2; pass++) { /* MPI_*, then PMPI_* */
            int *out = pass ? ref : r;
            for (int i = 0; i < 2 * R; i++)
                out[i] = -1;
            if (coll == PSK_TUNE_C_bcast && root == MPI_ROOT)
                for (int i = 0; i < 2; i++)
                    out[i] = 4242 + i;
            psk_tune_get_counts(&before);
            int rc = coll == PSK_TUNE_C_bcast ? (pass ? PMPI_Bcast : MPI_Bcast)(out, 2, MPI_INT, root, inter)
                   : coll == PSK_TUNE_C_allreduce
                       ? (pass ? PMPI_Allreduce : MPI_Allreduce)(s, out, 2, MPI_INT, MPI_SUM, inter)
                       : (pass ? PMPI_Allgather : MPI_Allgather)(s, 2, MPI_INT, out, 2, MPI_INT, inter);
            psk_tune_get_counts(&after);
            x.arm = psk_tune_coll_mpi_name(coll);
            if (rc != MPI_SUCCESS)
                fail(&x, "returned %d", rc);
            if (!pass && (after.coll[coll].unsupported != before.coll[coll].unsupported + 1 ||
                          after.coll[coll].native != before.coll[coll].native))
                fail(&x, "was not passed on untouched");
        }
        if (memcmp(r, ref, 2 * sizeof(int) * (size_t)R))
            fail(&x, "result differs from the native one");
    }
    free(s), free(r), free(ref);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    setenv("PSK_TUNE_FORCE", PSK_TUNE_CYCLE_NAME, 1); /* read at the first MPI_Alltoall */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (argc > 1)
        level = !strcmp(argv[1], "--quick") ? 1 : !strcmp(argv[1], "--tiny") ? 0 : 2;

    /* 2 blocks of 3 ints, stride 5, extent 10 ints: holes inside and after */
    MPI_Datatype vec0, vec, st0, st;
    MPI_Type_vector(2, 3, 5, MPI_INT, &vec0);
    MPI_Type_create_resized(vec0, 0, 10 * sizeof(int), &vec);
    MPI_Type_commit(&vec);
    /* char, double, int: holes after the char and at the end */
    struct s {
        char c;
        double d;
        int i;
    };
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {offsetof(struct s, c), offsetof(struct s, d), offsetof(struct s, i)};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(3, bl, disp, types, &st0);
    MPI_Type_create_resized(st0, 0, sizeof(struct s), &st);
    MPI_Type_commit(&st);
    /* for MPI_Allreduce (Open MPI refuses its ops on types with holes) */
    MPI_Datatype ints3;
    MPI_Type_contiguous(3, MPI_INT, &ints3);
    MPI_Type_commit(&ints3);
    const mode modes[] = {
        {"bytes", MPI_BYTE, MPI_BYTE, 1, 1, 1, 0},
        {"vector", vec, vec, 1, 1, 6 * sizeof(int), 0},
        {"ints to vector", MPI_INT, vec, 6, 1, 6 * sizeof(int), 0},
        {"struct", st, st, 1, 1, sizeof(char) + sizeof(double) + sizeof(int), 0},
        {"MPI_BOTTOM", MPI_BYTE, MPI_BYTE, 1, 1, 1, 1},
    };
    int nmodes = (int)(sizeof modes / sizeof modes[0]);

    /* errors come back (the native call's own, see run_case) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    run_comm(MPI_COMM_WORLD, "world", modes, nmodes, 1);
    run_colls(MPI_COMM_WORLD, "world", modes, nmodes, 1, ints3);

    MPI_Comm split;
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wsize - wrank, &split);
    run_comm(split, "even/odd split, reversed", modes, nmodes, 0);
    if (level == 2) /* --quick, --tiny: the world and the first two ranks (a power of two) only */
        run_colls(split, "even/odd split, reversed", modes, nmodes, 0, ints3);
    MPI_Comm_free(&split);

    /* made, used and freed, then another: the library's state goes with
     * each (the second may get the same handle) */
    for (int k = 3; k >= 2; k--) {
        MPI_Comm first;
        MPI_Comm_split(MPI_COMM_WORLD, wrank < k ? 0 : MPI_UNDEFINED, wrank, &first);
        if (first != MPI_COMM_NULL) {
            run_comm(first, k == 3 ? "first three ranks" : "first two ranks", modes, nmodes, 0);
            if (level == 2 || k == 2)
                run_colls(first, k == 3 ? "first three ranks" : "first two ranks", modes, nmodes, 0, ints3);
            MPI_Comm_free(&first);
        }
    }
    run_inter();

    /* the collectives took every arm on some rank (the pair arms need a
     * power-of-two communicator: the 1- or 2-rank ones above) */
    psk_tune_counts c;
    uint64_t most[PSK_TUNE_NARMS];
    psk_tune_get_counts(&c);
    MPI_Allreduce(c.arm, most, PSK_TUNE_NARMS, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    ctx x = {"all", "all", "MPI_Alltoall", 0, 0};
    for (int a = 0; a < PSK_TUNE_NARMS; a++)
        if (!most[a] && wrank == 0)
            fail(&x, "arm %s never taken", psk_tune_arm_name(a));
    if (c.fallback)
        fail(&x, "%llu calls fell back to native", (unsigned long long)c.fallback);

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int nf = 0;
    MPI_Allreduce(&native_failed, &nf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("tune_check: %d ranks: %d runs on rank 0, %d failures; the native call failed %d times\n", wsize, runs,
               all, nf);
    MPI_Type_free(&vec);
    MPI_Type_free(&vec0);
    MPI_Type_free(&st);
    MPI_Type_free(&st0);
    MPI_Type_free(&ints3);
    MPI_Finalize();
    return all ? 1 : 0;
}
