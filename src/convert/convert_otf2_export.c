/* perfskel export --otf2: a recorded trace directory as an OTF2 archive
 * (OUT/traces.otf2, OUT/traces.def, OUT/traces/N.evt), readable by
 * otf2-print, Vampir, Scalasca and perfskel import --otf2.
 *
 * Definitions: a system tree (the job, one node per host), a location
 * group (process) and a location (its thread) per rank, location r for
 * rank r; a region per MPI function the trace uses (its role, paradigm
 * MPI); MPI_COMM_WORLD, MPI_COMM_SELF and one communicator per one the
 * trace creates, each with its group of world ranks (a group of type
 * COMM_LOCATIONS lists the locations in rank order); the clock: ns, the
 * first event's time as the global offset, the trace's length.
 *
 * Events: Enter and Leave at every call's recorded entry and exit (moved
 * to rank 0's clock: psk_clock_offsets, as sim does); inside them the MPI
 * records OTF2 has: MpiSend, MpiIsend (and MpiIsendComplete where a wait
 * or test completes it), MpiIrecvRequest (and MpiIrecv at completion),
 * MpiRecv, MpiRequestTest for a test that found nothing, MpiRequestCancelled,
 * MpiCollectiveBegin/End with the operation, communicator, root and bytes
 * sent and received as Score-P counts them (totals over the peers: a
 * Bcast's root sends size x count bytes),
 * NonBlockingCollectiveRequest/Complete for I-collectives, and for a call
 * that makes or frees a communicator a collective CREATE_HANDLE or
 * DESTROY_HANDLE on its parent with CommCreate or CommDestroy. Persistent
 * requests are written at MPI_Start as an Isend or Irecv of their own.
 * What OTF2 cannot hold (datatypes, wildcards as passed, reduction ops,
 * MPI_PROC_NULL messages, group calls' arguments) is not written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "convert_internal.h"
#include "convert_otf2.h"
#include "perfskel/trace.h"
#include "psk_mem.h"

#define UNDEF32 OTF2_UNDEFINED_UINT32

typedef struct cinst { /* a communicator the trace creates */
    uint32_t parent;
    uint64_t seq; /* its creating call's place among those on the parent */
    uint32_t n;
    uint64_t *mem; /* world ranks */
} cinst;

typedef struct xreq { /* a request of this rank, by perfskel's id */
    int kind;         /* 0 none (or a message OTF2 does not hold), 1 send, 2 receive, 3 collective */
    int persistent, active;
    uint64_t oid;     /* the OTF2 request id of its current instance */
    int64_t peer, tag;
    uint64_t bytes, rbytes;
    uint32_t comm, root;
    OTF2_CollectiveOp op;
} xreq;

typedef struct ex {
    OTF2_EvtWriter *w;
    int rank, P;
    int64_t offset; /* this rank's clock minus rank 0's */
    char **str;
    int64_t nstr, capstr;
    uint32_t *region; /* fn -> region ref + 1 */
    unsigned *region_fn;
    uint32_t nregion;
    cinst *ci;
    int64_t nci, capci;
    uint32_t *cmap; /* this rank: perfskel comm id -> ref + 1 */
    int64_t ncmap;
    uint64_t *seq; /* this rank: creations on each parent ref */
    int64_t nseq;
    xreq *rq;
    int64_t nrq;
    uint64_t next_oid;
    uint64_t tmin, tmax;
    int any;
    uint64_t no_comm, no_req; /* records left out: communicator or request unknown */
    char err[1024]; /* room for libotf2's message (psk_otf2_err) */
    psk_otf2_err *oe; /* libotf2's last message */
} ex;

static uint32_t string_ref(ex *x, const char *s)
{
    for (int64_t i = 0; i < x->nstr; i++)
        if (!strcmp(x->str[i], s))
            return (uint32_t)i;
    if (x->nstr == x->capstr) {
        int64_t cap = x->capstr ? 2 * x->capstr : 64;
        char **n = realloc(x->str, (size_t)cap * sizeof *n);
        if (!n)
            return UNDEF32;
        x->str = n, x->capstr = cap;
    }
    if (!(x->str[x->nstr] = strdup(s)))
        return UNDEF32;
    return (uint32_t)x->nstr++;
}

static uint32_t region_of(ex *x, unsigned fn)
{
    if (!x->region[fn]) {
        x->region_fn[x->nregion] = fn;
        x->region[fn] = ++x->nregion;
    }
    return x->region[fn] - 1;
}

/* rank 0's clock */
static uint64_t ts(ex *x, uint64_t t)
{
    uint64_t v = (uint64_t)((int64_t)t - x->offset);
    if (!x->any || v < x->tmin)
        x->tmin = v;
    if (!x->any || v > x->tmax)
        x->tmax = v;
    x->any = 1;
    return v;
}

static uint32_t comm_ref(ex *x, const psk_event *e)
{
    if (!PSK_HAS(e, PSK_F_COMM))
        return UNDEF32;
    int64_t id = e->v[PSK_F_COMM];
    if (id == 0 || id == 1)
        return (uint32_t)id;
    if (id > 1 && id < x->ncmap && x->cmap[id])
        return x->cmap[id] - 1;
    return UNDEF32;
}

/* a collective's OTF2 operation, from its collective and form
 * (mpi_functions.def) */
static OTF2_CollectiveOp coll_op(unsigned fn)
{
    static const OTF2_CollectiveOp op[PSK_COLL_N][4] = {
        [PSK_COLL_BARRIER] = {OTF2_COLLECTIVE_OP_BARRIER},
        [PSK_COLL_BCAST] = {OTF2_COLLECTIVE_OP_BCAST},
        [PSK_COLL_REDUCE] = {OTF2_COLLECTIVE_OP_REDUCE},
        [PSK_COLL_ALLREDUCE] = {OTF2_COLLECTIVE_OP_ALLREDUCE},
        [PSK_COLL_GATHER] = {OTF2_COLLECTIVE_OP_GATHER, OTF2_COLLECTIVE_OP_GATHERV},
        [PSK_COLL_SCATTER] = {OTF2_COLLECTIVE_OP_SCATTER, OTF2_COLLECTIVE_OP_SCATTERV},
        [PSK_COLL_ALLGATHER] = {OTF2_COLLECTIVE_OP_ALLGATHER, OTF2_COLLECTIVE_OP_ALLGATHERV},
        [PSK_COLL_ALLTOALL] = {OTF2_COLLECTIVE_OP_ALLTOALL, OTF2_COLLECTIVE_OP_ALLTOALLV,
                               OTF2_COLLECTIVE_OP_ALLTOALLW},
        [PSK_COLL_REDUCE_SCATTER] = {OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
        [PSK_COLL_SCAN] = {OTF2_COLLECTIVE_OP_SCAN, [PSK_FORM_EX] = OTF2_COLLECTIVE_OP_EXSCAN},
    };
    int c = psk_fn_coll(fn), f = psk_fn_form(fn);
    return c >= 0 && c < PSK_COLL_N ? op[c][f] : OTF2_COLLECTIVE_OP_EXSCAN;
}

static OTF2_RegionRole role_of(unsigned fn)
{
    switch (psk_fn_class(fn)) {
    case PSK_CLASS_P2P: case PSK_CLASS_PERSIST: case PSK_CLASS_WAIT: return OTF2_REGION_ROLE_POINT2POINT;
    case PSK_CLASS_COLL: case PSK_CLASS_ICOLL:
        switch (coll_op(fn)) {
        case OTF2_COLLECTIVE_OP_BARRIER: return OTF2_REGION_ROLE_BARRIER;
        case OTF2_COLLECTIVE_OP_BCAST: case OTF2_COLLECTIVE_OP_SCATTER: case OTF2_COLLECTIVE_OP_SCATTERV:
            return OTF2_REGION_ROLE_COLL_ONE2ALL;
        case OTF2_COLLECTIVE_OP_GATHER: case OTF2_COLLECTIVE_OP_GATHERV: case OTF2_COLLECTIVE_OP_REDUCE:
            return OTF2_REGION_ROLE_COLL_ALL2ONE;
        case OTF2_COLLECTIVE_OP_SCAN: case OTF2_COLLECTIVE_OP_EXSCAN: return OTF2_REGION_ROLE_COLL_OTHER;
        default: return OTF2_REGION_ROLE_COLL_ALL2ALL;
        }
    default: return OTF2_REGION_ROLE_FUNCTION;
    }
}

static uint64_t sum_arr(const psk_event *e, int f, const psk_event *sz, int sf, int sf2)
{
    uint64_t t = 0, ds = PSK_HAS(sz, sf) ? (uint64_t)sz->v[sf] : PSK_HAS(sz, sf2) ? (uint64_t)sz->v[sf2] : 1;
    int per = (f == PSK_F_COUNTS && PSK_HAS(e, PSK_F_DTSIZES)) ? PSK_F_DTSIZES
              : (f == PSK_F_RCOUNTS && PSK_HAS(e, PSK_F_RDTSIZES)) ? PSK_F_RDTSIZES : -1;
    for (uint32_t k = 0; PSK_HAS(e, f) && k < PSK_ARRN(e, f); k++) {
        uint64_t d = ds;
        if (per >= 0)
            d = k < PSK_ARRN(e, per) ? (uint64_t)PSK_ARR(e, per)[k] : 0;
        t += (uint64_t)PSK_ARR(e, f)[k] * d;
    }
    return t;
}

/* the size of a communicator (by ref) and this rank's place in it */
static uint32_t comm_geom(const ex *x, uint32_t ref, uint32_t *me)
{
    *me = 0;
    if (ref == 0) {
        *me = (uint32_t)x->rank;
        return (uint32_t)x->P;
    }
    if (ref < 2 || ref - 2 >= (uint64_t)x->nci)
        return 1;
    const cinst *c = &x->ci[ref - 2];
    for (uint32_t k = 0; k < c->n; k++)
        if (c->mem[k] == (uint64_t)x->rank)
            *me = k;
    return c->n ? c->n : 1;
}

/* a collective's bytes as Score-P counts them (totals over the peers;
 * README, OTF2): from the call's arguments as recorded, so that an
 * in-place call (recorded with a send side of 0) counts as Score-P's */
static void coll_bytes(const ex *x, const psk_event *e, uint32_t comm, uint64_t *sent, uint64_t *recvd)
{
    uint32_t me, N = comm_geom(x, comm, &me);
    int root = PSK_HAS(e, PSK_F_ROOT) && e->v[PSK_F_ROOT] == (int64_t)me;
    uint64_t dt = PSK_HAS(e, PSK_F_DTSIZE) ? (uint64_t)e->v[PSK_F_DTSIZE] : 1;
    uint64_t bs = PSK_HAS(e, PSK_F_COUNT) ? (uint64_t)e->v[PSK_F_COUNT] * dt : 0;
    uint64_t br = PSK_HAS(e, PSK_F_RCOUNT) ? (uint64_t)e->v[PSK_F_RCOUNT] *
                                                  (PSK_HAS(e, PSK_F_RDTSIZE) ? (uint64_t)e->v[PSK_F_RDTSIZE] : dt)
                                            : 0;
    uint64_t cs = sum_arr(e, PSK_F_COUNTS, e, PSK_F_DTSIZE, PSK_F_DTSIZE);
    uint64_t cr = sum_arr(e, PSK_F_RCOUNTS, e, PSK_F_RDTSIZE, PSK_F_DTSIZE);
    *sent = *recvd = 0;
    switch (coll_op(e->fn)) {
    case OTF2_COLLECTIVE_OP_BARRIER: break;
    case OTF2_COLLECTIVE_OP_BCAST: *sent = root ? N * bs : 0, *recvd = bs; break;
    case OTF2_COLLECTIVE_OP_REDUCE: *sent = bs, *recvd = root ? N * bs : 0; break;
    case OTF2_COLLECTIVE_OP_GATHER: *sent = bs, *recvd = root ? N * br : 0; break;
    case OTF2_COLLECTIVE_OP_GATHERV: *sent = bs, *recvd = root ? cr : 0; break;
    case OTF2_COLLECTIVE_OP_SCATTER: *sent = root ? N * bs : 0, *recvd = br; break;
    case OTF2_COLLECTIVE_OP_SCATTERV: *sent = root ? cs : 0, *recvd = br; break;
    case OTF2_COLLECTIVE_OP_ALLGATHER: case OTF2_COLLECTIVE_OP_ALLTOALL: *sent = N * bs, *recvd = N * br; break;
    case OTF2_COLLECTIVE_OP_ALLGATHERV: *sent = N * bs, *recvd = cr; break;
    case OTF2_COLLECTIVE_OP_ALLTOALLV: case OTF2_COLLECTIVE_OP_ALLTOALLW: *sent = cs, *recvd = cr; break;
    case OTF2_COLLECTIVE_OP_ALLREDUCE: *sent = *recvd = N * bs; break;
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK: *sent = *recvd = N * br; break;
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER: {
        uint64_t mine = PSK_HAS(e, PSK_F_RCOUNTS) && me < PSK_ARRN(e, PSK_F_RCOUNTS)
                            ? (uint64_t)PSK_ARR(e, PSK_F_RCOUNTS)[me] * dt : 0;
        *sent = cr, *recvd = N * mine;
        break;
    }
    case OTF2_COLLECTIVE_OP_SCAN: *sent = (N - me) * bs, *recvd = (me + 1) * bs; break;
    default: *sent = (N - me - 1) * bs, *recvd = me * bs; break; /* Exscan */
    }
}

static uint64_t p2p_bytes(const psk_event *e)
{
    return (PSK_HAS(e, PSK_F_COUNT) ? (uint64_t)e->v[PSK_F_COUNT] : 0) *
           (PSK_HAS(e, PSK_F_DTSIZE) ? (uint64_t)e->v[PSK_F_DTSIZE] : 1);
}

static xreq *req_of(ex *x, int64_t id)
{
    if (id < 0 || id > (1 << 24) || psk_grow((void **)&x->rq, &x->nrq, id, sizeof *x->rq))
        return NULL;
    return &x->rq[id];
}

#define CK(call)                                                                                             \
    do {                                                                                                     \
        OTF2_ErrorCode c_ = (call);                                                                          \
        if (c_ != OTF2_SUCCESS) {                                                                            \
            snprintf(x->err, sizeof x->err, "rank %d: %s", x->rank,                                          \
                     x->oe->msg[0] ? x->oe->msg : OTF2_Error_GetDescription(c_));             \
            return -1;                                                                                       \
        }                                                                                                    \
    } while (0)

/* a request's start: MpiIsend, MpiIrecvRequest or NonBlockingCollectiveRequest */
static int start_req(ex *x, xreq *q, uint64_t t)
{
    if (!q || !q->kind)
        return 0;
    q->oid = ++x->next_oid;
    q->active = 1;
    if (q->kind == 1)
        CK(OTF2_EvtWriter_MpiIsend(x->w, NULL, t, (uint32_t)q->peer, q->comm, (uint32_t)q->tag, q->bytes, q->oid));
    else if (q->kind == 2)
        CK(OTF2_EvtWriter_MpiIrecvRequest(x->w, NULL, t, q->oid));
    else
        CK(OTF2_EvtWriter_NonBlockingCollectiveRequest(x->w, NULL, t, q->oid));
    return 0;
}

/* its completion, with the actual source and tag of a receive (-1: as posted) */
static int complete_req(ex *x, xreq *q, uint64_t t, int64_t src, int64_t tag)
{
    if (!q || !q->kind || !q->active)
        return 0;
    q->active = 0;
    if (q->kind == 1) {
        CK(OTF2_EvtWriter_MpiIsendComplete(x->w, NULL, t, q->oid));
    } else if (q->kind == 2) {
        int64_t s = q->peer >= 0 ? q->peer : src, g = q->tag >= 0 ? q->tag : tag;
        CK(OTF2_EvtWriter_MpiIrecv(x->w, NULL, t, s >= 0 ? (uint32_t)s : UNDEF32, q->comm,
                                   g >= 0 ? (uint32_t)g : UNDEF32, q->bytes, q->oid));
    } else {
        CK(OTF2_EvtWriter_NonBlockingCollectiveComplete(x->w, NULL, t, q->op, q->comm, q->root, q->bytes, q->rbytes,
                                                       q->oid));
    }
    if (!q->persistent)
        q->kind = 0;
    return 0;
}

/* the actual source and tag of the k-th request of a wait or test's list */
static void status_of(const psk_event *e, int64_t k, int64_t *src, int64_t *tag)
{
    *src = *tag = -1;
    if (PSK_HAS(e, PSK_F_STATUSES))
        for (uint32_t i = 0; i < PSK_ARRN(e, PSK_F_STATUSES); i++)
            if (PSK_ARR(e, PSK_F_STATUSES)[3 * i] == k)
                *src = PSK_ARR(e, PSK_F_STATUSES)[3 * i + 1], *tag = PSK_ARR(e, PSK_F_STATUSES)[3 * i + 2];
}

static int list_req(ex *x, const psk_event *e, int64_t k, xreq **q)
{
    *q = NULL;
    if (k < 0 || k >= (int64_t)PSK_ARRN(e, PSK_F_REQS))
        return 0;
    *q = req_of(x, PSK_ARR(e, PSK_F_REQS)[k]);
    return 0;
}

static int is_comm_maker(unsigned fn)
{
    switch (psk_fn_op(fn)) {
    case PSK_FNOP_NEWCOMM: case PSK_FNOP_NEWCOMM_GROUP: case PSK_FNOP_INTERCOMM: case PSK_FNOP_INTERCOMM_MERGE:
        return 1;
    default:
        return 0;
    }
}

/* the communicator a creating call made: an instance shared by the ranks
 * making the same call on the same parent with the same members */
static int made_comm(ex *x, const psk_event *e, uint32_t parent, uint32_t *ref)
{
    *ref = UNDEF32;
    uint64_t seq = 0;
    if (parent != UNDEF32) {
        if (psk_grow((void **)&x->seq, &x->nseq, parent, sizeof *x->seq))
            return -1;
        seq = ++x->seq[parent];
    }
    int64_t id = e->v[PSK_F_NEWID];
    if (id < 2 || !PSK_HAS(e, PSK_F_MEMBERS) || !PSK_ARRN(e, PSK_F_MEMBERS))
        return 0;
    uint32_t n = PSK_ARRN(e, PSK_F_MEMBERS);
    const int64_t *m = PSK_ARR(e, PSK_F_MEMBERS);
    for (int64_t i = 0; i < x->nci && *ref == UNDEF32; i++) {
        cinst *c = &x->ci[i];
        if (c->parent != parent || c->seq != seq || c->n != n)
            continue;
        uint32_t k = 0;
        while (k < n && c->mem[k] == (uint64_t)m[k])
            k++;
        if (k == n)
            *ref = (uint32_t)(2 + i);
    }
    if (*ref == UNDEF32) {
        if (x->nci == x->capci) {
            int64_t cap = x->capci ? 2 * x->capci : 16;
            cinst *nc = realloc(x->ci, (size_t)cap * sizeof *nc);
            if (!nc)
                return -1;
            x->ci = nc, x->capci = cap;
        }
        cinst *c = &x->ci[x->nci];
        if (!(c->mem = malloc(n * sizeof *c->mem)))
            return -1;
        for (uint32_t k = 0; k < n; k++)
            c->mem[k] = (uint64_t)m[k];
        c->parent = parent, c->seq = seq, c->n = n;
        *ref = (uint32_t)(2 + x->nci++);
    }
    if (psk_grow((void **)&x->cmap, &x->ncmap, id, sizeof *x->cmap))
        return -1;
    x->cmap[id] = *ref + 1;
    return 0;
}

/* one event: Enter, its MPI records, Leave */
static int write_event(ex *x, const psk_event *e)
{
    unsigned fn = e->fn;
    uint64_t t0 = ts(x, e->t_entry), t1 = ts(x, e->t_exit);
    uint32_t reg = region_of(x, fn), comm = comm_ref(x, e);
    int cls = psk_fn_class(fn), op = psk_fn_polled(fn) ? -1 : psk_fn_op(fn); /* (no runs of polls here) */
    int64_t peer = PSK_HAS(e, PSK_F_PEER) ? e->v[PSK_F_PEER] : -2, tag = PSK_HAS(e, PSK_F_TAG) ? e->v[PSK_F_TAG] : 0;
    int64_t asrc = PSK_HAS(e, PSK_F_ASRC) ? e->v[PSK_F_ASRC] : -1, atag = PSK_HAS(e, PSK_F_ATAG) ? e->v[PSK_F_ATAG] : -1;
    if (psk_fn_op(fn) == PSK_FNOP_NCOLL) { /* OTF2 3.0 has no collective op for them */
        snprintf(x->err, sizeof x->err, "rank %d: %s is not exported (OTF2 has no neighborhood collectives)", x->rank,
                 psk_fn_name(fn));
        return -1;
    }
    CK(OTF2_EvtWriter_Enter(x->w, NULL, t0, reg));
    if (PSK_HAS(e, PSK_F_COMM) && comm == UNDEF32 && op != PSK_FNOP_COMM_FREE && !is_comm_maker(fn)) {
        x->no_comm++; /* a communicator made by a call perfskel does not record */
        CK(OTF2_EvtWriter_Leave(x->w, NULL, t1, reg));
        return 0;
    }
    switch (op) {
    case PSK_FNOP_SEND:
        if (peer >= 0)
            CK(OTF2_EvtWriter_MpiSend(x->w, NULL, t0, (uint32_t)peer, comm, (uint32_t)tag, p2p_bytes(e)));
        break;
    case PSK_FNOP_RECV: {
        int64_t s = peer >= 0 ? peer : asrc, g = tag >= 0 ? tag : atag;
        if (peer != PSK_PROC_NULL && s >= 0)
            CK(OTF2_EvtWriter_MpiRecv(x->w, NULL, t1, (uint32_t)s, comm, g >= 0 ? (uint32_t)g : UNDEF32,
                                      p2p_bytes(e)));
        break;
    }
    case PSK_FNOP_SENDRECV: case PSK_FNOP_SENDRECV_REPLACE: {
        int64_t rp = e->v[PSK_F_RPEER], rt = e->v[PSK_F_RTAG];
        int64_t s = rp >= 0 ? rp : asrc, g = rt >= 0 ? rt : atag;
        uint64_t rb = op == PSK_FNOP_SENDRECV
                          ? (uint64_t)e->v[PSK_F_RCOUNT] * (PSK_HAS(e, PSK_F_RDTSIZE) ? (uint64_t)e->v[PSK_F_RDTSIZE] : 1)
                          : p2p_bytes(e);
        if (peer >= 0)
            CK(OTF2_EvtWriter_MpiSend(x->w, NULL, t0, (uint32_t)peer, comm, (uint32_t)tag, p2p_bytes(e)));
        if (rp != PSK_PROC_NULL && s >= 0)
            CK(OTF2_EvtWriter_MpiRecv(x->w, NULL, t1, (uint32_t)s, comm, g >= 0 ? (uint32_t)g : UNDEF32, rb));
        break;
    }
    case PSK_FNOP_ISEND: case PSK_FNOP_IRECV: case PSK_FNOP_SEND_INIT: case PSK_FNOP_RECV_INIT: {
        xreq *q = req_of(x, PSK_HAS(e, PSK_F_REQ) ? e->v[PSK_F_REQ] : -1);
        if (!q) {
            x->no_req++;
            break;
        }
        int recv = op == PSK_FNOP_IRECV || op == PSK_FNOP_RECV_INIT;
        *q = (xreq){.kind = peer >= 0 || (recv && peer == PSK_ANY_SOURCE) ? 1 + recv : 0,
                    .persistent = cls == PSK_CLASS_PERSIST, .peer = peer, .tag = tag, .bytes = p2p_bytes(e),
                    .comm = comm};
        if (!q->persistent && start_req(x, q, recv ? t1 : t0))
            return -1;
        break;
    }
    case PSK_FNOP_START:
        if (start_req(x, req_of(x, e->v[PSK_F_REQ]), t0))
            return -1;
        break;
    case PSK_FNOP_STARTALL:
        for (uint32_t k = 0; k < PSK_ARRN(e, PSK_F_REQS); k++)
            if (start_req(x, req_of(x, PSK_ARR(e, PSK_F_REQS)[k]), t0))
                return -1;
        break;
    case PSK_FNOP_WAIT: case PSK_FNOP_TEST: {
        xreq *q = req_of(x, e->v[PSK_F_REQ]);
        if (op == PSK_FNOP_TEST && !e->v[PSK_F_FLAG]) {
            if (q && q->kind && q->active)
                CK(OTF2_EvtWriter_MpiRequestTest(x->w, NULL, t1, q->oid));
        } else {
            status_of(e, 0, &asrc, &atag);
            if (complete_req(x, q, t1, asrc, atag))
                return -1;
        }
        break;
    }
    case PSK_FNOP_WAITALL: case PSK_FNOP_TESTALL:
        for (uint32_t k = 0; k < PSK_ARRN(e, PSK_F_REQS); k++) {
            xreq *q;
            int64_t s, g;
            list_req(x, e, k, &q);
            status_of(e, k, &s, &g);
            if (op == PSK_FNOP_TESTALL && !e->v[PSK_F_FLAG]) {
                if (q && q->kind && q->active)
                    CK(OTF2_EvtWriter_MpiRequestTest(x->w, NULL, t1, q->oid));
            } else if (complete_req(x, q, t1, s, g)) {
                return -1;
            }
        }
        break;
    case PSK_FNOP_WAITANY: case PSK_FNOP_TESTANY: {
        xreq *q;
        if (op == PSK_FNOP_TESTANY && !e->v[PSK_F_FLAG])
            break;
        list_req(x, e, e->v[PSK_F_INDEX], &q);
        status_of(e, e->v[PSK_F_INDEX], &asrc, &atag);
        if (complete_req(x, q, t1, asrc, atag))
            return -1;
        break;
    }
    case PSK_FNOP_WAITSOME: case PSK_FNOP_TESTSOME:
        for (uint32_t i = 0; i < PSK_ARRN(e, PSK_F_INDICES); i++) {
            xreq *q;
            int64_t k = PSK_ARR(e, PSK_F_INDICES)[i], s, g;
            list_req(x, e, k, &q);
            status_of(e, k, &s, &g);
            if (complete_req(x, q, t1, s, g))
                return -1;
        }
        break;
    case PSK_FNOP_FREE: {
        xreq *q = req_of(x, e->v[PSK_F_REQ]);
        if (q)
            q->kind = 0;
        break;
    }
    case PSK_FNOP_CANCEL: {
        xreq *q = req_of(x, e->v[PSK_F_REQ]);
        if (q && q->kind && q->active) {
            CK(OTF2_EvtWriter_MpiRequestCancelled(x->w, NULL, t1, q->oid));
            q->active = 0;
        }
        break;
    }
    case PSK_FNOP_COMM_FREE:
        if (comm != UNDEF32) {
            CK(OTF2_EvtWriter_MpiCollectiveBegin(x->w, NULL, t0));
            CK(OTF2_EvtWriter_CommDestroy(x->w, NULL, t1, comm));
            CK(OTF2_EvtWriter_MpiCollectiveEnd(x->w, NULL, t1, OTF2_COLLECTIVE_OP_DESTROY_HANDLE, comm, UNDEF32, 0, 0));
        }
        break;
    default:
        if (is_comm_maker(fn)) {
            uint32_t made;
            if (made_comm(x, e, comm, &made)) {
                snprintf(x->err, sizeof x->err, "out of memory");
                return -1;
            }
            if (comm != UNDEF32) {
                CK(OTF2_EvtWriter_MpiCollectiveBegin(x->w, NULL, t0));
                if (made != UNDEF32)
                    CK(OTF2_EvtWriter_CommCreate(x->w, NULL, t1, made));
                CK(OTF2_EvtWriter_MpiCollectiveEnd(x->w, NULL, t1, OTF2_COLLECTIVE_OP_CREATE_HANDLE, comm, UNDEF32, 0,
                                                   0));
            }
        } else if (cls == PSK_CLASS_COLL || cls == PSK_CLASS_ICOLL) {
            uint64_t sent, recvd;
            coll_bytes(x, e, comm, &sent, &recvd);
            uint32_t root = PSK_HAS(e, PSK_F_ROOT) && e->v[PSK_F_ROOT] >= 0 ? (uint32_t)e->v[PSK_F_ROOT] : UNDEF32;
            if (cls == PSK_CLASS_COLL) {
                CK(OTF2_EvtWriter_MpiCollectiveBegin(x->w, NULL, t0));
                CK(OTF2_EvtWriter_MpiCollectiveEnd(x->w, NULL, t1, coll_op(fn), comm, root, sent, recvd));
            } else {
                xreq *q = req_of(x, PSK_HAS(e, PSK_F_REQ) ? e->v[PSK_F_REQ] : -1);
                if (!q) {
                    x->no_req++;
                    break;
                }
                *q = (xreq){.kind = 3, .comm = comm, .root = root, .bytes = sent, .rbytes = recvd, .op = coll_op(fn)};
                if (start_req(x, q, t0))
                    return -1;
            }
        }
        break;
    }
    CK(OTF2_EvtWriter_Leave(x->w, NULL, t1, reg));
    return 0;
}

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd, bool final)
{
    (void)ud, (void)ft, (void)loc, (void)cd, (void)final;
    return OTF2_FLUSH;
}
static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)ud, (void)ft, (void)loc;
    return 0;
}
static OTF2_FlushCallbacks flush_cb = {.otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush};

/* one rank's events; 0, or -1 with x->err set */
static int export_rank(ex *x, psk_trace *t, OTF2_Archive *a, uint64_t *nevents)
{
    psk_rank_reader *rd;
    if (psk_rank_open(t, x->rank, &rd)) {
        snprintf(x->err, sizeof x->err, "%s", psk_trace_errmsg(t));
        return -1;
    }
    x->w = OTF2_Archive_GetEvtWriter(a, (OTF2_LocationRef)x->rank);
    if (!x->w) {
        snprintf(x->err, sizeof x->err, "rank %d: no event writer: %s", x->rank, x->oe->msg);
        psk_rank_close(rd);
        return -1;
    }
    x->ncmap = 0, free(x->cmap), x->cmap = NULL;
    x->nseq = 0, free(x->seq), x->seq = NULL;
    x->nrq = 0, free(x->rq), x->rq = NULL;
    x->next_oid = 0;
    psk_event e;
    int rc;
    while ((rc = psk_rank_next(rd, &e)) == PSK_OK)
        if (write_event(x, &e)) {
            rc = -1;
            break;
        }
    if (rc == PSK_EOF)
        rc = 0;
    else if (rc != -1)
        snprintf(x->err, sizeof x->err, "%s", psk_rank_errmsg(rd)), rc = -1;
    psk_rank_close(rd);
    OTF2_EvtWriter_GetNumberOfEvents(x->w, nevents);
    if (OTF2_Archive_CloseEvtWriter(a, x->w) != OTF2_SUCCESS && !rc)
        snprintf(x->err, sizeof x->err, "rank %d: %s", x->rank, x->oe->msg), rc = -1;
    x->w = NULL;
    return rc;
}

/* ns since 1970 of an ISO 8601 UTC time, or OTF2's undefined time */
static uint64_t realtime_of(const char *iso)
{
    struct tm tm = {0};
    if (!iso || !strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm))
        return OTF2_UNDEFINED_TIMESTAMP;
    time_t s = timegm(&tm);
    return s < 0 ? OTF2_UNDEFINED_TIMESTAMP : (uint64_t)s * 1000000000u;
}

#undef CK
#define CK(call)                                                                                             \
    do {                                                                                                     \
        if ((call) != OTF2_SUCCESS)                                                                          \
            goto otf2_fail;                                                                                  \
    } while (0)

static int write_defs(ex *x, OTF2_Archive *a, const psk_job *job, const uint64_t *nevents)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    if (!g)
        goto otf2_fail;
    char name[64];
    /* every string first, so that none is referred to before it is defined */
    uint32_t s_empty = string_ref(x, ""), s_mpi = string_ref(x, "MPI");
    string_ref(x, "perfskel job"), string_ref(x, "machine"), string_ref(x, "node"), string_ref(x, "Master thread");
    string_ref(x, "MPI_COMM_WORLD"), string_ref(x, "MPI_COMM_SELF"), string_ref(x, CORES_PROPERTY);
    string_ref(x, MPI_PROPERTY), string_ref(x, psk_flavour_name(job->flavour));
    for (int r = 0; r < x->P; r++) {
        string_ref(x, job->hosts && job->hosts[r] ? job->hosts[r] : "host");
        snprintf(name, sizeof name, "MPI Rank %d", r);
        string_ref(x, name);
    }
    for (uint32_t i = 0; i < x->nregion; i++)
        string_ref(x, psk_fn_name(x->region_fn[i]));
    for (int64_t i = 0; i < x->nci; i++) {
        snprintf(name, sizeof name, "MPI_Comm %lld", (long long)(2 + i));
        string_ref(x, name);
    }
    if (x->nstr >= UINT32_MAX - 1 || string_ref(x, "") == UNDEF32)
        goto otf2_fail;
    CK(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, x->any ? x->tmin : 0,
                                                 x->any ? x->tmax - x->tmin + 1 : 0, realtime_of(job->start_time)));
    for (int64_t i = 0; i < x->nstr; i++)
        CK(OTF2_GlobalDefWriter_WriteString(g, (uint32_t)i, x->str[i]));
    CK(OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, s_mpi, OTF2_PARADIGM_CLASS_PROCESS));
    /* the system tree: the job, then its hosts */
    uint32_t *host = malloc((size_t)x->P * sizeof *host);
    if (!host)
        goto otf2_fail;
    uint32_t nhost = 0, *hstr = malloc((size_t)x->P * sizeof *hstr);
    if (!hstr) {
        free(host);
        goto otf2_fail;
    }
    for (int r = 0; r < x->P; r++) {
        uint32_t s = string_ref(x, job->hosts && job->hosts[r] ? job->hosts[r] : "host");
        uint32_t h = 0;
        while (h < nhost && hstr[h] != s)
            h++;
        if (h == nhost)
            hstr[nhost++] = s;
        host[r] = 1 + h;
    }
    int bad = 0;
    bad |= OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, string_ref(x, "perfskel job"), string_ref(x, "machine"),
                                                    OTF2_UNDEFINED_SYSTEM_TREE_NODE) != OTF2_SUCCESS;
    for (uint32_t h = 0; h < nhost && !bad; h++)
        bad |= OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 1 + h, hstr[h], string_ref(x, "node"), 0) != OTF2_SUCCESS;
    if (!bad && job->flavour != PSK_MPI_UNKNOWN) {
        OTF2_AttributeValue v = {.stringRef = string_ref(x, psk_flavour_name(job->flavour))};
        bad |= OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(g, 0, string_ref(x, MPI_PROPERTY), OTF2_TYPE_STRING,
                                                                v) != OTF2_SUCCESS;
    }
    /* each host's cores, where job.json has them (sim models ranks
     * sharing them): a property of its node, read back by import */
    for (uint32_t h = 0; h < nhost && !bad && job->cores; h++)
        for (int r = 0; r < x->P; r++)
            if (host[r] == 1 + h && job->cores[r] > 0) {
                OTF2_AttributeValue v = {.uint32 = (uint32_t)job->cores[r]};
                bad |= OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(g, 1 + h, string_ref(x, CORES_PROPERTY),
                                                                        OTF2_TYPE_UINT32, v) != OTF2_SUCCESS;
                break;
            }
    for (int r = 0; r < x->P && !bad; r++) {
        snprintf(name, sizeof name, "MPI Rank %d", r);
        bad |= OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)r, string_ref(x, name),
                                                       OTF2_LOCATION_GROUP_TYPE_PROCESS, host[r],
                                                       OTF2_UNDEFINED_LOCATION_GROUP) != OTF2_SUCCESS;
        bad |= OTF2_GlobalDefWriter_WriteLocation(g, (uint64_t)r, string_ref(x, "Master thread"),
                                                  OTF2_LOCATION_TYPE_CPU_THREAD, nevents[r], (uint32_t)r) !=
               OTF2_SUCCESS;
    }
    free(host), free(hstr);
    if (bad)
        goto otf2_fail;
    for (uint32_t i = 0; i < x->nregion; i++) {
        uint32_t s = string_ref(x, psk_fn_name(x->region_fn[i]));
        CK(OTF2_GlobalDefWriter_WriteRegion(g, i, s, s, s_empty, role_of(x->region_fn[i]), OTF2_PARADIGM_MPI,
                                            OTF2_REGION_FLAG_NONE, s_empty, 0, 0));
    }
    /* groups: 0 the locations in rank order, 1 world, 2 self, 3 + k the k-th made communicator */
    uint64_t *all = malloc((size_t)x->P * sizeof *all);
    if (!all)
        goto otf2_fail;
    for (int r = 0; r < x->P; r++)
        all[r] = (uint64_t)r;
    bad = OTF2_GlobalDefWriter_WriteGroup(g, 0, s_empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, (uint32_t)x->P, all) != OTF2_SUCCESS;
    bad |= OTF2_GlobalDefWriter_WriteGroup(g, 1, s_empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                           OTF2_GROUP_FLAG_NONE, (uint32_t)x->P, all) != OTF2_SUCCESS;
    free(all);
    bad |= OTF2_GlobalDefWriter_WriteGroup(g, 2, s_empty, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                           OTF2_GROUP_FLAG_NONE, 0, NULL) != OTF2_SUCCESS;
    for (int64_t i = 0; i < x->nci && !bad; i++)
        bad |= OTF2_GlobalDefWriter_WriteGroup(g, (uint32_t)(3 + i), s_empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                               OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, x->ci[i].n, x->ci[i].mem) !=
               OTF2_SUCCESS;
    if (bad)
        goto otf2_fail;
    CK(OTF2_GlobalDefWriter_WriteComm(g, 0, string_ref(x, "MPI_COMM_WORLD"), 1, OTF2_UNDEFINED_COMM,
                                      OTF2_COMM_FLAG_NONE));
    CK(OTF2_GlobalDefWriter_WriteComm(g, 1, string_ref(x, "MPI_COMM_SELF"), 2, OTF2_UNDEFINED_COMM,
                                      OTF2_COMM_FLAG_NONE));
    for (int64_t i = 0; i < x->nci; i++) {
        snprintf(name, sizeof name, "MPI_Comm %lld", (long long)(2 + i));
        CK(OTF2_GlobalDefWriter_WriteComm(g, (uint32_t)(2 + i), string_ref(x, name), (uint32_t)(3 + i),
                                          x->ci[i].parent, OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS));
    }
    return 0;
otf2_fail:
    snprintf(x->err, sizeof x->err, "the definitions: %s",
             x->oe->msg[0] ? x->oe->msg : "out of memory");
    return -1;
}

/* an archive of an earlier export is replaced */
static int remove_old(const char *out, char *err, size_t cap)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/traces", out);
    struct stat st;
    if (stat(p, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(err, cap, "%s: not a directory: cannot write an OTF2 archive there", p);
            return -1;
        }
        for (int64_t r = 0;; r++) { /* N.evt and N.def, by location */
            char f[4200];
            int gone = 0;
            snprintf(f, sizeof f, "%s/%lld.evt", p, (long long)r);
            gone += unlink(f) == 0;
            snprintf(f, sizeof f, "%s/%lld.def", p, (long long)r);
            gone += unlink(f) == 0;
            if (!gone)
                break;
        }
        if (rmdir(p)) {
            snprintf(err, cap, "%s: %s (remove it first)", p, strerror(errno));
            return -1;
        }
    }
    snprintf(p, sizeof p, "%s/traces.otf2", out);
    unlink(p);
    snprintf(p, sizeof p, "%s/traces.def", out);
    unlink(p);
    return 0;
}

int psk_convert_export_otf2(const char *input, const char *out, const psk_convert_opts *o, char *err, size_t errcap)
{
    psk_convert_opts none = {0};
    if (!o)
        o = &none;
    err[0] = 0;
    psk_trace *t;
    if (psk_trace_open(input, &t)) {
        psk_convert_fail(err, errcap, "%s", psk_trace_errmsg(t));
        psk_trace_close(t);
        return PSK_EFORMAT;
    }
    const psk_job *job = psk_trace_job(t);
    if (mkdir(out, 0755) && errno != EEXIST) {
        psk_convert_fail(err, errcap, "%s: %s", out, strerror(errno));
        psk_trace_close(t);
        return PSK_EIO;
    }
    if (remove_old(out, err, errcap)) {
        psk_trace_close(t);
        return PSK_EIO;
    }
    psk_otf2_err oe;
    psk_otf2_err_catch(&oe);
    ex x = {.P = job->nranks, .oe = &oe};
    unsigned nfn = psk_fn_count();
    x.region = calloc(nfn, sizeof *x.region);
    x.region_fn = calloc(nfn, sizeof *x.region_fn);
    uint64_t *nevents = calloc((size_t)x.P, sizeof *nevents);
    int64_t *offs = calloc((size_t)(x.P ? x.P : 1), sizeof *offs);
    int rc = 0;
    OTF2_Archive *a = NULL;
    if (!x.region || !x.region_fn || !nevents || !offs || psk_clock_offsets(job, offs)) {
        psk_convert_fail(err, errcap, "%s: out of memory", input);
        rc = PSK_EFORMAT;
        goto done;
    }
    a = OTF2_Archive_Open(out, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20, OTF2_SUBSTRATE_POSIX,
                          OTF2_COMPRESSION_NONE);
    if (!a || OTF2_Archive_SetFlushCallbacks(a, &flush_cb, NULL) != OTF2_SUCCESS ||
        OTF2_Archive_SetSerialCollectiveCallbacks(a) != OTF2_SUCCESS ||
        OTF2_Archive_SetCreator(a, "perfskel " PSK_VERSION) != OTF2_SUCCESS ||
        OTF2_Archive_SetDescription(a, job->command ? job->command : "") != OTF2_SUCCESS ||
        OTF2_Archive_OpenEvtFiles(a) != OTF2_SUCCESS) {
        psk_convert_fail(err, errcap, "%s/traces.otf2: cannot write: %s", out, oe.msg);
        rc = PSK_EFORMAT;
        goto done;
    }
    const char *step = "writing the ranks' events";
    psk_convert_progress(o, step, 0, (uint64_t)x.P);
    for (int r = 0; r < x.P && !rc; r++) {
        x.rank = r;
        x.offset = offs[r];
        if (export_rank(&x, t, a, &nevents[r])) {
            psk_convert_progress(o, NULL, 0, 0);
            psk_convert_fail(err, errcap, "%s: %s", input, x.err);
            rc = PSK_EFORMAT;
        }
        if (!rc)
            psk_convert_progress(o, step, (uint64_t)r + 1, (uint64_t)x.P);
    }
    psk_convert_progress(o, NULL, 0, 0);
    if (!rc && OTF2_Archive_CloseEvtFiles(a) != OTF2_SUCCESS) {
        psk_convert_fail(err, errcap, "%s/traces: cannot write the events: %s", out, oe.msg);
        rc = PSK_EFORMAT;
    }
    /* local definitions: none (the global ones use no mapping), but every
     * location has its (empty) file, as readers expect */
    if (!rc && OTF2_Archive_OpenDefFiles(a) == OTF2_SUCCESS) {
        for (int r = 0; r < x.P && !rc; r++) {
            OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, (OTF2_LocationRef)r);
            if (!dw || OTF2_Archive_CloseDefWriter(a, dw) != OTF2_SUCCESS)
                rc = PSK_EFORMAT;
        }
        if (OTF2_Archive_CloseDefFiles(a) != OTF2_SUCCESS)
            rc = PSK_EFORMAT;
        if (rc)
            psk_convert_fail(err, errcap, "%s/traces: cannot write the local definitions: %s", out, oe.msg);
    } else if (!rc) {
        psk_convert_fail(err, errcap, "%s/traces: cannot write the local definitions: %s", out, oe.msg);
        rc = PSK_EFORMAT;
    }
    if (!rc && write_defs(&x, a, job, nevents)) {
        psk_convert_fail(err, errcap, "%s/traces.def: %s", out, x.err);
        rc = PSK_EFORMAT;
    }
    if (OTF2_Archive_Close(a) != OTF2_SUCCESS && !rc) {
        psk_convert_fail(err, errcap, "%s/traces.otf2: cannot write: %s", out, oe.msg);
        rc = PSK_EFORMAT;
    }
    a = NULL;
    if (!rc && (x.no_comm || x.no_req) && o->note) {
        char line[4400];
        snprintf(line, sizeof line,
                 "%s: %llu calls on communicators made by calls perfskel does not record and %llu "
                 "with requests out of range written without their MPI records",
                 input, (unsigned long long)x.no_comm, (unsigned long long)x.no_req);
        o->note(o->note_arg, line);
    }
done:
    if (a)
        OTF2_Archive_Close(a);
    for (int64_t i = 0; i < x.nstr; i++)
        free(x.str[i]);
    for (int64_t i = 0; i < x.nci; i++)
        free(x.ci[i].mem);
    free(x.str), free(x.ci), free(x.cmap), free(x.seq), free(x.rq), free(x.region), free(x.region_fn), free(nevents), free(offs);
    psk_trace_close(t);
    psk_otf2_err_release(&oe);
    return rc;
}
