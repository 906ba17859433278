/*
 * trace_cmp ORIGINAL SKELETON: compares, rank by rank, the trace of a
 * program with the trace of its K = 1 performance skeleton (perfskel gen -K 1),
 * which must make every rank's communication calls in the same order with the
 * same peers (as world ranks), tags, byte counts, roots and communicators.
 * Prints the first difference of each rank that has one and exits 1; exits 0
 * if every rank matches, 2 on a usage error or an unreadable trace.
 *
 * What may legitimately differ, and how it is normalised (everything else is
 * compared exactly):
 *  - datatypes: the skeleton sends MPI_BYTE, so sizes are compared in bytes
 *    (count x datatype size), v-collective arrays element by element;
 *  - receive capacities: the skeleton offers the largest count of a loop (and
 *    MPI_Recv of RBUF_BYTES for MPI_Mrecv), so a receive may be larger, never
 *    smaller; the sender's count is what moves and is compared exactly;
 *  - Bsend/Rsend are Send (Ibsend/Irsend Isend, *_init likewise), Mprobe is
 *    Probe, Improbe Iprobe, Mrecv/Imrecv a Recv (on the Mprobe's comm);
 *  - wildcards: a receive's peer and tag are the ones it matched (from its
 *    status, or the completing call's for MPI_Irecv), so a wildcard receive
 *    and a receive from the recorded source compare equal;
 *  - polls: how many a program makes is timing (the skeleton polls until
 *    what it polls for is there, docs/folding.md), so Test-family calls that
 *    completed nothing and every MPI_Iprobe (it takes nothing) are left out
 *    on both sides, and the original's MPI_Improbe calls that found nothing
 *    (the skeleton replays them as MPI_Iprobe; each of its MPI_Improbe
 *    calls stands for one that found a message, which it may have found
 *    set aside);
 *  - completion: a Test-family call that completed something is the
 *    matching Wait (Test -> Wait, Testall -> Waitall,
 *    Testany -> Waitany, Testsome -> Waitsome); Waitany/Waitsome may complete
 *    other requests than in the original, so their request arrays may have
 *    MPI_REQUEST_NULL in other places; a request the skeleton completed
 *    earlier may reach a later Wait/Test as MPI_REQUEST_NULL;
 *  - request ids are mapped from original to skeleton where each request is
 *    made, and every later use must follow that map;
 *  - communicator ids are mapped one to one where communicators are made;
 *    every way of making one (dup, split, create, create_group) is one
 *    "new communicator" event whose parent and members (world ranks, in
 *    order) must match; group calls are not compared (the skeleton makes
 *    its own to recreate communicators);
 *  - the skeleton's additions: an MPI_Wait completing a request slot just
 *    before the slot is reused (newreq_), MPI_Wait on requests still open at
 *    its end, and its 3 MPI_Reduce on MPI_COMM_WORLD before MPI_Finalize;
 *  - MPI_Init and MPI_Finalize, op of reductions, and timing are ignored.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfskel/trace.h"

/* ---- one rank's events, kept in memory ---- */

typedef struct {
    psk_event e; /* arrays point into owned copies */
    long seq;    /* index in the rank's trace, as `perfskel dump` numbers it */
    int kind;
    int64_t src, tag; /* a receive's matched source and tag (resolved wildcards), or -1 */
} ev;

typedef struct {
    ev *v;
    long n, cap;
} evlist;

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "trace_cmp: out of memory\n");
        exit(2);
    }
    return p;
}

/* normalised kinds; K_COLL compares the function itself */
enum kind {
    K_IGNORE, K_SEND, K_SSEND, K_ISEND, K_ISSEND, K_RECV, K_IRECV, K_SENDRECV, K_SENDRECV_REPLACE,
    K_PROBE, K_IPROBE, K_SEND_INIT, K_SSEND_INIT, K_RECV_INIT, K_START, K_STARTALL,
    K_WAIT, K_WAITALL, K_WAITANY, K_WAITSOME, K_TEST_NONE, K_REQ_FREE, K_CANCEL,
    K_COLL, K_COMM_NEW, K_COMM_FREE, K_OTHER
};

static int is(unsigned fn, const char *name) { return !strcmp(psk_fn_name(fn), name); }

static int any_of(unsigned fn, const char *const *names)
{
    for (; *names; names++)
        if (is(fn, *names)) return 1;
    return 0;
}

static int kind_of(const psk_event *e, int skel)
{
    unsigned fn = e->fn;
    const char *name = psk_fn_name(fn);
    int cls = psk_fn_class(fn);
    static const char *const send[] = {"MPI_Send", "MPI_Bsend", "MPI_Rsend", NULL};
    static const char *const isend[] = {"MPI_Isend", "MPI_Ibsend", "MPI_Irsend", NULL};
    static const char *const recv[] = {"MPI_Recv", "MPI_Mrecv", "MPI_Imrecv", NULL};
    static const char *const sinit[] = {"MPI_Send_init", "MPI_Bsend_init", "MPI_Rsend_init", NULL};
    if (!name) return K_OTHER;
    if (any_of(fn, send)) return K_SEND;
    if (is(fn, "MPI_Ssend")) return K_SSEND;
    if (any_of(fn, isend)) return K_ISEND;
    if (is(fn, "MPI_Issend")) return K_ISSEND;
    if (any_of(fn, recv)) return K_RECV;
    if (is(fn, "MPI_Irecv")) return K_IRECV;
    if (is(fn, "MPI_Sendrecv")) return K_SENDRECV;
    if (is(fn, "MPI_Sendrecv_replace")) return K_SENDRECV_REPLACE;
    if (is(fn, "MPI_Probe") || is(fn, "MPI_Mprobe")) return K_PROBE;
    if (is(fn, "MPI_Iprobe")) return K_TEST_NONE;
    /* the skeleton replays an Improbe that found nothing as an Iprobe, one
     * that found a message as an Improbe (which may find it set aside) */
    if (is(fn, "MPI_Improbe")) return e->v[PSK_F_FLAG] || skel ? K_IPROBE : K_TEST_NONE;
    if (any_of(fn, sinit)) return K_SEND_INIT;
    if (is(fn, "MPI_Ssend_init")) return K_SSEND_INIT;
    if (is(fn, "MPI_Recv_init")) return K_RECV_INIT;
    if (is(fn, "MPI_Start")) return K_START;
    if (is(fn, "MPI_Startall")) return K_STARTALL;
    if (is(fn, "MPI_Wait")) return K_WAIT;
    if (is(fn, "MPI_Waitall")) return K_WAITALL;
    if (is(fn, "MPI_Waitany")) return K_WAITANY;
    if (is(fn, "MPI_Waitsome")) return K_WAITSOME;
    /* a Test that completed something is its Wait; one that did not is a poll */
    if (is(fn, "MPI_Test")) return e->v[PSK_F_FLAG] ? K_WAIT : K_TEST_NONE;
    if (is(fn, "MPI_Testall")) return e->v[PSK_F_FLAG] ? K_WAITALL : K_TEST_NONE;
    if (is(fn, "MPI_Testany"))
        return e->v[PSK_F_FLAG] && e->v[PSK_F_INDEX] != PSK_UNDEFINED ? K_WAITANY : K_TEST_NONE;
    if (is(fn, "MPI_Testsome")) return PSK_ARRN(e, PSK_F_INDICES) > 0 ? K_WAITSOME : K_TEST_NONE;
    if (is(fn, "MPI_Request_free")) return K_REQ_FREE;
    if (is(fn, "MPI_Cancel")) return K_CANCEL;
    if (cls == PSK_CLASS_COLL || cls == PSK_CLASS_ICOLL) return K_COLL;
    if (is(fn, "MPI_Comm_free")) return K_COMM_FREE;
    if (cls == PSK_CLASS_COMM) {
        /* communicators made by any means; groups (and Comm_group) are the
         * skeleton's own business */
        if (PSK_HAS(e, PSK_F_NEWID) && !is(fn, "MPI_Comm_group") && strncmp(name, "MPI_Group_", 10))
            return K_COMM_NEW;
        return K_IGNORE;
    }
    if (is(fn, "MPI_Init") || is(fn, "MPI_Init_thread") || is(fn, "MPI_Finalize")) return K_IGNORE;
    return K_OTHER;
}

static int makes_request(int k)
{
    return k == K_ISEND || k == K_ISSEND || k == K_IRECV || k == K_SEND_INIT || k == K_SSEND_INIT ||
           k == K_RECV_INIT;
}

static int coll_with_request(const psk_event *e) { return psk_fn_class(e->fn) == PSK_CLASS_ICOLL; }

static void load_rank(psk_trace *t, const char *dir, int rank, int skel, evlist *out)
{
    psk_rank_reader *rd;
    if (psk_rank_open(t, rank, &rd) != PSK_OK) {
        fprintf(stderr, "trace_cmp: %s: rank %d: %s\n", dir, rank, rd ? psk_rank_errmsg(rd) : "cannot open");
        exit(2);
    }
    psk_event e;
    int rc;
    long seq = 0;
    while ((rc = psk_rank_next(rd, &e)) == PSK_OK) {
        if (kind_of(&e, skel) == K_TEST_NONE) { /* a poll that found nothing: left out */
            seq++;
            continue;
        }
        if (out->n == out->cap) {
            out->cap = out->cap ? 2 * out->cap : 256;
            out->v = xrealloc(out->v, (size_t)out->cap * sizeof *out->v);
        }
        ev *x = &out->v[out->n];
        x->e = e;
        x->seq = seq++;
        out->n++;
        for (int f = PSK_F_FIRST_ARRAY; f < PSK_F_NFIELDS; f++) {
            size_t len = PSK_ARRN(&e, f) * (f == PSK_F_STATUSES ? 3u : 1u);
            int64_t *copy = NULL;
            if (PSK_HAS(&e, f) && len) {
                copy = xrealloc(NULL, len * sizeof *copy);
                memcpy(copy, PSK_ARR(&e, f), len * sizeof *copy);
            }
            PSK_ARR(&x->e, f) = copy;
        }
        x->kind = kind_of(&x->e, skel);
        x->src = x->tag = -1;
    }
    if (rc != PSK_EOF) {
        fprintf(stderr, "trace_cmp: %s\n", psk_rank_errmsg(rd));
        exit(2);
    }
    psk_rank_close(rd);
}

static void free_rank(evlist *l)
{
    for (long i = 0; i < l->n; i++)
        for (int f = PSK_F_FIRST_ARRAY; f < PSK_F_NFIELDS; f++) free((void *)PSK_ARR(&l->v[i].e, f));
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

/* ---- growable int64 tables indexed by small ids ---- */

typedef struct {
    int64_t *v;
    long n;
} table;

static int64_t tget(const table *t, int64_t i, int64_t dflt) { return i >= 0 && i < t->n ? t->v[i] : dflt; }

static void tset(table *t, int64_t i, int64_t val, int64_t fill)
{
    if (i < 0) return;
    if (i >= t->n) {
        long n = (long)i + 64;
        t->v = xrealloc(t->v, (size_t)n * sizeof *t->v);
        for (long k = t->n; k < n; k++) t->v[k] = fill;
        t->n = n;
    }
    t->v[i] = val;
}

/* ---- one side's state while walking a rank ---- */

typedef struct {
    int rank, nranks;
    /* communicators: members (world ranks) per id; NULL when unknown */
    int64_t **mem;
    uint32_t *nmem;
    long ncomm;
    int64_t mprobe_comm; /* the communicator of the last matched probe */
    /* requests: generation (bumped when the id is given to a new request),
     * open (made and not yet completed or freed), persistent */
    table gen, open, persistent;
    table creator; /* for the wildcard pre-pass: event index per open id */
} side;

static void side_init(side *s, int rank, int nranks)
{
    memset(s, 0, sizeof *s);
    s->rank = rank;
    s->nranks = nranks;
    s->mprobe_comm = 0;
}

static void side_free(side *s)
{
    for (long c = 0; c < s->ncomm; c++) free(s->mem[c]);
    free(s->mem);
    free(s->nmem);
    free(s->gen.v), free(s->open.v), free(s->persistent.v), free(s->creator.v);
}

static void comm_set(side *s, int64_t id, const int64_t *m, uint32_t n)
{
    if (id < 0) return;
    if (id >= s->ncomm) {
        long nc = (long)id + 16;
        s->mem = xrealloc(s->mem, (size_t)nc * sizeof *s->mem);
        s->nmem = xrealloc(s->nmem, (size_t)nc * sizeof *s->nmem);
        for (long c = s->ncomm; c < nc; c++) s->mem[c] = NULL, s->nmem[c] = 0;
        s->ncomm = nc;
    }
    free(s->mem[id]);
    s->mem[id] = NULL;
    s->nmem[id] = 0;
    if (m) {
        s->mem[id] = xrealloc(NULL, (n ? n : 1) * sizeof *m);
        memcpy(s->mem[id], m, n * sizeof *m);
        s->nmem[id] = n;
    }
}

/* a rank of communicator c as a world rank; MPI_PROC_NULL and wildcards
 * keep perfskel's negative values; -9 when c is unknown or p outside it */
static int64_t world(const side *s, int64_t c, int64_t p)
{
    if (p < 0) return p;
    if (c == 0) return p;
    if (c == 1) return p == 0 ? s->rank : -9;
    if (c < 0 || c >= s->ncomm || !s->mem[c] || p >= s->nmem[c]) return -9;
    return s->mem[c][p];
}

static void side_start(side *s)
{
    int64_t *w = xrealloc(NULL, (size_t)s->nranks * sizeof *w);
    for (int r = 0; r < s->nranks; r++) w[r] = r;
    comm_set(s, 0, w, (uint32_t)s->nranks);
    free(w);
    int64_t self = s->rank;
    comm_set(s, 1, &self, 1);
}

/* the request ids an event completes (a persistent request stays made) */
static void completed_ids(const psk_event *e, int kind, void (*fn)(side *, int64_t, int, void *), side *s,
                          void *arg)
{
    const int64_t *reqs = PSK_ARR(e, PSK_F_REQS);
    uint32_t nreq = PSK_HAS(e, PSK_F_REQS) ? PSK_ARRN(e, PSK_F_REQS) : 0;
    switch (kind) {
    case K_WAIT:
        fn(s, e->v[PSK_F_REQ], 0, arg);
        break;
    case K_WAITALL:
        for (uint32_t k = 0; k < nreq; k++) fn(s, reqs[k], (int)k, arg);
        break;
    case K_WAITANY:
        if (e->v[PSK_F_INDEX] >= 0 && e->v[PSK_F_INDEX] < nreq)
            fn(s, reqs[e->v[PSK_F_INDEX]], (int)e->v[PSK_F_INDEX], arg);
        break;
    case K_WAITSOME:
        for (uint32_t k = 0; k < PSK_ARRN(e, PSK_F_INDICES); k++) {
            int64_t i = PSK_ARR(e, PSK_F_INDICES)[k];
            if (i >= 0 && i < nreq) fn(s, reqs[i], (int)i, arg);
        }
        break;
    default:
        break;
    }
}

static void close_req(side *s, int64_t id, int pos, void *arg)
{
    (void)pos, (void)arg;
    if (id >= 0 && !tget(&s->persistent, id, 0)) tset(&s->open, id, 0, 0);
}

/* what an event does to its side's communicators and requests */
static void apply(side *s, const ev *x)
{
    const psk_event *e = &x->e;
    if (x->kind == K_COMM_NEW && e->v[PSK_F_NEWID] >= 0)
        comm_set(s, e->v[PSK_F_NEWID], PSK_ARR(e, PSK_F_MEMBERS), PSK_ARRN(e, PSK_F_MEMBERS));
    if (x->kind == K_COMM_FREE) comm_set(s, e->v[PSK_F_COMM], NULL, 0);
    /* a later Mrecv receives on the communicator of the message probed */
    if (is(e->fn, "MPI_Mprobe") || (is(e->fn, "MPI_Improbe") && e->v[PSK_F_FLAG]))
        s->mprobe_comm = e->v[PSK_F_COMM];
    if ((makes_request(x->kind) || (x->kind == K_COLL && coll_with_request(e))) && e->v[PSK_F_REQ] >= 0) {
        int64_t id = e->v[PSK_F_REQ];
        tset(&s->gen, id, tget(&s->gen, id, 0) + 1, 0);
        tset(&s->open, id, 1, 0);
        tset(&s->persistent, id, x->kind == K_SEND_INIT || x->kind == K_SSEND_INIT || x->kind == K_RECV_INIT, 0);
    }
    completed_ids(e, x->kind, close_req, s, NULL);
    if (x->kind == K_REQ_FREE && e->v[PSK_F_REQ] >= 0) {
        tset(&s->open, e->v[PSK_F_REQ], 0, 0);
        tset(&s->persistent, e->v[PSK_F_REQ], 0, 0);
    }
}

/* ---- the wildcard pre-pass: which source and tag each receive matched ---- */

static void resolve(side *s, evlist *l)
{
    for (long i = 0; i < l->n; i++) {
        ev *x = &l->v[i];
        psk_event *e = &x->e;
        if (x->kind == K_RECV || x->kind == K_PROBE || x->kind == K_SENDRECV || x->kind == K_SENDRECV_REPLACE) {
            /* a blocking receive's own status (Mrecv has no peer field) */
            int64_t p = PSK_HAS(e, PSK_F_RPEER) ? e->v[PSK_F_RPEER] : PSK_HAS(e, PSK_F_PEER) ? e->v[PSK_F_PEER]
                                                                                              : PSK_ANY_SOURCE;
            int64_t t = PSK_HAS(e, PSK_F_RTAG) ? e->v[PSK_F_RTAG] : PSK_HAS(e, PSK_F_TAG) ? e->v[PSK_F_TAG]
                                                                                           : PSK_ANY_TAG;
            x->src = p == PSK_ANY_SOURCE && PSK_HAS(e, PSK_F_ASRC) ? e->v[PSK_F_ASRC] : p;
            x->tag = t == PSK_ANY_TAG && PSK_HAS(e, PSK_F_ATAG) ? e->v[PSK_F_ATAG] : t;
        } else if (x->kind == K_IRECV || x->kind == K_RECV_INIT) {
            x->src = e->v[PSK_F_PEER];
            x->tag = e->v[PSK_F_TAG];
        }
        if (makes_request(x->kind) && e->v[PSK_F_REQ] >= 0) tset(&s->creator, e->v[PSK_F_REQ], i, -1);
        /* completing calls name the wildcard receives they completed */
        if (PSK_HAS(e, PSK_F_STATUSES)) {
            const int64_t *st = PSK_ARR(e, PSK_F_STATUSES);
            for (uint32_t k = 0; k < PSK_ARRN(e, PSK_F_STATUSES); k++) {
                int64_t pos = st[3 * k], id = -1;
                if (PSK_HAS(e, PSK_F_REQS) && pos >= 0 && pos < PSK_ARRN(e, PSK_F_REQS))
                    id = PSK_ARR(e, PSK_F_REQS)[pos];
                else if (PSK_HAS(e, PSK_F_REQ) && pos == 0)
                    id = e->v[PSK_F_REQ];
                int64_t at = tget(&s->creator, id, -1);
                if (at < 0 || at >= i || l->v[at].kind != K_IRECV) continue;
                if (l->v[at].src == PSK_ANY_SOURCE) l->v[at].src = st[3 * k + 1];
                if (l->v[at].tag == PSK_ANY_TAG) l->v[at].tag = st[3 * k + 2];
            }
        }
    }
    free(s->creator.v);
    s->creator.v = NULL;
    s->creator.n = 0;
}

/* ---- comparing one rank ---- */

typedef struct {
    side o, s;
    table c_o2s, c_s2o;   /* communicator ids, both ways */
    table r_id, r_gen;    /* original request id -> skeleton id and its generation */
    char why[256];
} cmpstate;

static int64_t bytes(const psk_event *e, int cf, int df)
{
    if (!PSK_HAS(e, cf)) return -1;
    int64_t sz = PSK_HAS(e, df) ? e->v[df] : PSK_HAS(e, PSK_F_DTSIZE) ? e->v[PSK_F_DTSIZE] : 1;
    return e->v[cf] * sz;
}

/* the communicator a comparison is about (Mrecv: its Mprobe's) */
static int64_t comm_of(const side *s, const psk_event *e)
{
    if (PSK_HAS(e, PSK_F_COMM)) return e->v[PSK_F_COMM];
    if (is(e->fn, "MPI_Mrecv") || is(e->fn, "MPI_Imrecv")) return s->mprobe_comm;
    return -1;
}

static void describe(const side *s, const ev *x, char *buf, size_t cap)
{
    const psk_event *e = &x->e;
    size_t at = 0;
#define ADD(...) (at += (size_t)snprintf(buf + (at < cap ? at : cap), at < cap ? cap - at : 0, __VA_ARGS__))
    ADD("%s", psk_fn_name(e->fn) ? psk_fn_name(e->fn) : "?");
    int64_t c = comm_of(s, e);
    if (c >= 0) ADD(" comm=%lld", (long long)c);
    if (x->kind == K_RECV || x->kind == K_IRECV || x->kind == K_PROBE || x->kind == K_RECV_INIT)
        ADD(" peer=%lld tag=%lld", (long long)world(s, c, x->src), (long long)x->tag);
    else if (PSK_HAS(e, PSK_F_PEER))
        ADD(" peer=%lld tag=%lld", (long long)world(s, c, e->v[PSK_F_PEER]), (long long)e->v[PSK_F_TAG]);
    if (PSK_HAS(e, PSK_F_COUNT)) ADD(" bytes=%lld", (long long)bytes(e, PSK_F_COUNT, PSK_F_DTSIZE));
    if (PSK_HAS(e, PSK_F_RPEER))
        ADD(" rpeer=%lld rtag=%lld", (long long)world(s, c, x->src), (long long)x->tag);
    if (PSK_HAS(e, PSK_F_RCOUNT)) ADD(" rbytes=%lld", (long long)bytes(e, PSK_F_RCOUNT, PSK_F_RDTSIZE));
    if (PSK_HAS(e, PSK_F_ROOT)) ADD(" root=%lld", (long long)world(s, c, e->v[PSK_F_ROOT]));
    if (PSK_HAS(e, PSK_F_REQ)) ADD(" req=%lld", (long long)e->v[PSK_F_REQ]);
    if (PSK_HAS(e, PSK_F_FLAG)) ADD(" flag=%lld", (long long)e->v[PSK_F_FLAG]);
    if (PSK_HAS(e, PSK_F_NEWID)) ADD(" newid=%lld", (long long)e->v[PSK_F_NEWID]);
    static const int arrs[] = {PSK_F_COUNTS, PSK_F_RCOUNTS, PSK_F_REQS, PSK_F_MEMBERS};
    static const char *const an[] = {"counts", "rcounts", "reqs", "members"};
    for (int k = 0; k < 4; k++) {
        if (!PSK_HAS(e, arrs[k])) continue;
        ADD(" %s=[", an[k]);
        for (uint32_t i = 0; i < PSK_ARRN(e, arrs[k]); i++)
            ADD("%s%lld", i ? "," : "", (long long)PSK_ARR(e, arrs[k])[i]);
        ADD("]");
    }
    ADD(" (event %ld)", x->seq);
#undef ADD
}

#define DIFF(...) (snprintf(st->why, sizeof st->why, __VA_ARGS__), 0)

/* does the skeleton's request id sid stand for the original's oid?
 * loose: the original or skeleton may hold MPI_REQUEST_NULL there instead
 * (Waitany/Waitsome and polls complete requests in another order) */
static int req_ok(cmpstate *st, int64_t oid, int64_t sid, int loose)
{
    if (oid == PSK_REQ_UNKNOWN) return 1;
    if (oid < 0 || sid < 0) {
        if (oid < 0 && sid < 0) return 1;
        if (loose) return 1;
        if (oid >= 0 && sid == PSK_REQ_NULL) {
            /* completed earlier in the skeleton (a poll that succeeded sooner) */
            int64_t m = tget(&st->r_id, oid, -1), g = tget(&st->r_gen, oid, -1);
            return m >= 0 && !(tget(&st->s.open, m, 0) && tget(&st->s.gen, m, 0) == g);
        }
        return 0;
    }
    return tget(&st->r_id, oid, -1) == sid && tget(&st->r_gen, oid, -1) == tget(&st->s.gen, sid, 0);
}

static int comm_ok(cmpstate *st, int64_t co, int64_t cs)
{
    if (co < 0 && cs < 0) return 1;
    if (co <= 1 || cs <= 1) return co == cs;
    return tget(&st->c_o2s, co, -1) == cs && tget(&st->c_s2o, cs, -1) == co;
}

static int same_arr(const psk_event *a, const psk_event *b, int f, int64_t ma, int64_t mb)
{
    if (PSK_HAS(a, f) != PSK_HAS(b, f)) return 0;
    if (!PSK_HAS(a, f)) return 1;
    if (PSK_ARRN(a, f) != PSK_ARRN(b, f)) return 0;
    for (uint32_t i = 0; i < PSK_ARRN(a, f); i++)
        if (PSK_ARR(a, f)[i] * ma != PSK_ARR(b, f)[i] * mb) return 0;
    return 1;
}

/* compares one original event with one skeleton event; on a difference
 * fills st->why and returns 0 */
static int same(cmpstate *st, const ev *xo, const ev *xs)
{
    const psk_event *a = &xo->e, *b = &xs->e;
    int ko = xo->kind, ks = xs->kind;
    if (ko != ks) return DIFF("different calls");
    if ((ko == K_COLL || ko == K_OTHER) && a->fn != b->fn) return DIFF("different calls");

    int64_t co = comm_of(&st->o, a), cs = comm_of(&st->s, b);
    if (ko == K_COMM_NEW) {
        if (!comm_ok(st, co, cs)) return DIFF("parent communicator differs");
        if ((a->v[PSK_F_NEWID] < 0) != (b->v[PSK_F_NEWID] < 0)) return DIFF("one side got MPI_COMM_NULL");
        if (!same_arr(a, b, PSK_F_MEMBERS, 1, 1)) return DIFF("members differ");
        return 1;
    }
    if (co >= 0 || cs >= 0)
        if (!comm_ok(st, co, cs)) return DIFF("communicator differs");
    if (ko == K_COMM_FREE) return 1;

    switch (ko) {
    case K_SEND:
    case K_SSEND:
    case K_ISEND:
    case K_ISSEND:
    case K_SEND_INIT:
    case K_SSEND_INIT:
    case K_SENDRECV:
    case K_SENDRECV_REPLACE:
        if (world(&st->o, co, a->v[PSK_F_PEER]) != world(&st->s, cs, b->v[PSK_F_PEER])) return DIFF("peer differs");
        if (a->v[PSK_F_TAG] != b->v[PSK_F_TAG]) return DIFF("tag differs");
        if (bytes(a, PSK_F_COUNT, PSK_F_DTSIZE) != bytes(b, PSK_F_COUNT, PSK_F_DTSIZE))
            return DIFF("message size differs");
        if (ko == K_SENDRECV || ko == K_SENDRECV_REPLACE) {
            if (world(&st->o, co, xo->src) != world(&st->s, cs, xs->src)) return DIFF("receive peer differs");
            if (xo->tag != xs->tag) return DIFF("receive tag differs");
            if (ko == K_SENDRECV && bytes(b, PSK_F_RCOUNT, PSK_F_RDTSIZE) < bytes(a, PSK_F_RCOUNT, PSK_F_RDTSIZE))
                return DIFF("receive buffer smaller");
        }
        break;
    case K_RECV:
    case K_IRECV:
    case K_RECV_INIT:
    case K_PROBE: {
        int64_t po = world(&st->o, co, xo->src), ps = world(&st->s, cs, xs->src);
        /* a wildcard never completed on one side cannot be pinned down */
        if (po != ps && po != PSK_ANY_SOURCE && ps != PSK_ANY_SOURCE) return DIFF("peer differs");
        if (xo->tag != xs->tag && xo->tag != PSK_ANY_TAG && xs->tag != PSK_ANY_TAG) return DIFF("tag differs");
        if (ko != K_PROBE && bytes(b, PSK_F_COUNT, PSK_F_DTSIZE) < bytes(a, PSK_F_COUNT, PSK_F_DTSIZE))
            return DIFF("receive buffer smaller");
        break;
    }
    case K_IPROBE:
        if (world(&st->o, co, a->v[PSK_F_PEER]) != world(&st->s, cs, b->v[PSK_F_PEER])) return DIFF("peer differs");
        if (a->v[PSK_F_TAG] != b->v[PSK_F_TAG]) return DIFF("tag differs");
        break;
    case K_COLL:
        if (PSK_HAS(a, PSK_F_ROOT) && world(&st->o, co, a->v[PSK_F_ROOT]) != world(&st->s, cs, b->v[PSK_F_ROOT]))
            return DIFF("root differs");
        if (bytes(a, PSK_F_COUNT, PSK_F_DTSIZE) != bytes(b, PSK_F_COUNT, PSK_F_DTSIZE))
            return DIFF("bytes differ");
        if (bytes(a, PSK_F_RCOUNT, PSK_F_RDTSIZE) != bytes(b, PSK_F_RCOUNT, PSK_F_RDTSIZE))
            return DIFF("receive bytes differ");
        {
            int64_t da = PSK_HAS(a, PSK_F_DTSIZE) ? a->v[PSK_F_DTSIZE] : 1;
            int64_t db = PSK_HAS(b, PSK_F_DTSIZE) ? b->v[PSK_F_DTSIZE] : 1;
            int64_t ra = PSK_HAS(a, PSK_F_RDTSIZE) ? a->v[PSK_F_RDTSIZE] : da;
            int64_t rb = PSK_HAS(b, PSK_F_RDTSIZE) ? b->v[PSK_F_RDTSIZE] : db;
            if (!same_arr(a, b, PSK_F_COUNTS, da, db)) return DIFF("send counts differ (in bytes)");
            if (!same_arr(a, b, PSK_F_RCOUNTS, ra, rb)) return DIFF("receive counts differ (in bytes)");
        }
        break;
    default:
        break;
    }
    /* requests used */
    int loose = ko == K_WAITANY || ko == K_WAITSOME;
    if (!makes_request(ko) && !(ko == K_COLL && coll_with_request(a)) && PSK_HAS(a, PSK_F_REQ) &&
        !req_ok(st, a->v[PSK_F_REQ], PSK_HAS(b, PSK_F_REQ) ? b->v[PSK_F_REQ] : PSK_REQ_NULL, loose))
        return DIFF("request differs");
    if (PSK_HAS(a, PSK_F_REQS)) {
        if (!PSK_HAS(b, PSK_F_REQS) || PSK_ARRN(a, PSK_F_REQS) != PSK_ARRN(b, PSK_F_REQS))
            return DIFF("number of requests differs");
        for (uint32_t i = 0; i < PSK_ARRN(a, PSK_F_REQS); i++)
            if (!req_ok(st, PSK_ARR(a, PSK_F_REQS)[i], PSK_ARR(b, PSK_F_REQS)[i], loose))
                return DIFF("request %u differs", i);
    }
    return 1;
}

/* maps what a matched pair makes: communicators and requests */
static void map_pair(cmpstate *st, const ev *xo, const ev *xs)
{
    const psk_event *a = &xo->e, *b = &xs->e;
    if (xo->kind == K_COMM_NEW && a->v[PSK_F_NEWID] >= 0 && b->v[PSK_F_NEWID] >= 0) {
        int64_t old_s = tget(&st->c_o2s, a->v[PSK_F_NEWID], -1), old_o = tget(&st->c_s2o, b->v[PSK_F_NEWID], -1);
        if (old_s >= 0) tset(&st->c_s2o, old_s, -1, -1);
        if (old_o >= 0) tset(&st->c_o2s, old_o, -1, -1);
        tset(&st->c_o2s, a->v[PSK_F_NEWID], b->v[PSK_F_NEWID], -1);
        tset(&st->c_s2o, b->v[PSK_F_NEWID], a->v[PSK_F_NEWID], -1);
    }
    if (xo->kind == K_COMM_FREE) {
        int64_t cs = tget(&st->c_o2s, a->v[PSK_F_COMM], -1);
        tset(&st->c_o2s, a->v[PSK_F_COMM], -1, -1);
        if (cs >= 0) tset(&st->c_s2o, cs, -1, -1);
    }
    if ((makes_request(xo->kind) || (xo->kind == K_COLL && coll_with_request(a))) && a->v[PSK_F_REQ] >= 0) {
        tset(&st->r_id, a->v[PSK_F_REQ], b->v[PSK_F_REQ], -1);
        tset(&st->r_gen, a->v[PSK_F_REQ], tget(&st->s.gen, b->v[PSK_F_REQ], 0), -1);
    }
}

/* the skeleton's own MPI_Wait: completing a request slot about to be
 * reused (the next call makes a request) */
static int skeleton_slot_wait(const evlist *s, long j)
{
    if (s->v[j].kind != K_WAIT || !is(s->v[j].e.fn, "MPI_Wait")) return 0;
    for (long k = j + 1; k < s->n; k++) {
        if (s->v[k].kind == K_WAIT && is(s->v[k].e.fn, "MPI_Wait")) continue; /* several slots in a row */
        return makes_request(s->v[k].kind) ||
               (s->v[k].kind == K_COLL && coll_with_request(&s->v[k].e));
    }
    return 0;
}

static long next_kept(const evlist *l, long i)
{
    while (i < l->n && l->v[i].kind == K_IGNORE) i++;
    return i;
}

/* 0 equal, 1 different (printed) */
static int compare_rank(int rank, int nranks, evlist *lo, evlist *ls)
{
    cmpstate st;
    memset(&st, 0, sizeof st);
    side_init(&st.o, rank, nranks);
    side_init(&st.s, rank, nranks);
    side_start(&st.o);
    side_start(&st.s);
    resolve(&st.o, lo);
    resolve(&st.s, ls);

    /* the skeleton's three reports: its last three MPI_Reduce on world */
    long end_s = ls->n, found = 0;
    for (long j = ls->n - 1; j >= 0 && found < 3; j--) {
        if (ls->v[j].kind == K_IGNORE) continue;
        if (!is(ls->v[j].e.fn, "MPI_Reduce") || ls->v[j].e.v[PSK_F_COMM] != 0) break;
        end_s = j, found++;
    }
    int result = 0;
    char d1[1024], d2[1024];
    if (found != 3) {
        printf("rank %d: the skeleton's trace does not end with its 3 MPI_Reduce reports\n", rank);
        result = 1;
        goto done;
    }

    long i = next_kept(lo, 0), j = next_kept(ls, 0);
    while (i < lo->n) {
        if (j < end_s && same(&st, &lo->v[i], &ls->v[j])) {
            apply(&st.o, &lo->v[i]);
            apply(&st.s, &ls->v[j]);
            map_pair(&st, &lo->v[i], &ls->v[j]); /* with the generations just given */
            i = next_kept(lo, i + 1);
            j = next_kept(ls, j + 1);
            continue;
        }
        if (j < end_s && skeleton_slot_wait(ls, j)) {
            apply(&st.s, &ls->v[j]);
            j = next_kept(ls, j + 1);
            continue;
        }
        describe(&st.o, &lo->v[i], d1, sizeof d1);
        if (j < end_s) {
            same(&st, &lo->v[i], &ls->v[j]); /* again, for its reason */
            describe(&st.s, &ls->v[j], d2, sizeof d2);
            printf("rank %d event %ld: original %s; skeleton %s: %s\n", rank, lo->v[i].seq, d1, d2, st.why);
        } else {
            printf("rank %d event %ld: original %s; skeleton has no more calls\n", rank, lo->v[i].seq, d1);
        }
        result = 1;
        goto done;
    }
    /* what the skeleton adds at its end: completing requests still open */
    for (; j < end_s; j = next_kept(ls, j + 1)) {
        if (is(ls->v[j].e.fn, "MPI_Wait")) continue;
        describe(&st.s, &ls->v[j], d2, sizeof d2);
        printf("rank %d event %ld: original has no more calls; skeleton %s\n", rank,
               lo->n ? lo->v[lo->n - 1].seq + 1 : 0, d2);
        result = 1;
        break;
    }
done:
    side_free(&st.o);
    side_free(&st.s);
    free(st.c_o2s.v), free(st.c_s2o.v), free(st.r_id.v), free(st.r_gen.v);
    return result;
}

static psk_trace *open_trace(const char *dir)
{
    psk_trace *t = NULL;
    if (psk_trace_open(dir, &t) != PSK_OK) {
        fprintf(stderr, "trace_cmp: %s: %s\n", dir, t ? psk_trace_errmsg(t) : "cannot open");
        exit(2);
    }
    return t;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: trace_cmp ORIGINAL_TRACE_DIR SKELETON_TRACE_DIR\n");
        return 2;
    }
    psk_trace *to = open_trace(argv[1]), *ts = open_trace(argv[2]);
    int P = psk_trace_job(to)->nranks;
    if (psk_trace_job(ts)->nranks != P) {
        printf("the original ran on %d ranks, the skeleton on %d\n", P, psk_trace_job(ts)->nranks);
        return 1;
    }
    int differ = 0;
    for (int r = 0; r < P; r++) {
        evlist lo = {0}, ls = {0};
        load_rank(to, argv[1], r, 0, &lo);
        load_rank(ts, argv[2], r, 1, &ls);
        differ |= compare_rank(r, P, &lo, &ls);
        free_rank(&lo);
        free_rank(&ls);
    }
    psk_trace_close(to);
    psk_trace_close(ts);
    return differ;
}
