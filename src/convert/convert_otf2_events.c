/* One rank's OTF2 events turned into perfskel's calls (perfskel import
 * --otf2): an outermost Enter/Leave pair of a region named like a function
 * perfskel records is a call; the MPI records inside it (messages,
 * requests and their completions, collectives, communicators) give its
 * arguments. A nonblocking call waits in a queue until a later wait or
 * test completes it and says its source, tag and size. What cannot be
 * mapped is counted by kind (note). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_otf2_read.h"
#include "psk_mem.h"

#define FAIL(...)                                                                                            \
    do {                                                                                                     \
        snprintf(x->err, sizeof x->err, __VA_ARGS__);                                                        \
        return OTF2_CALLBACK_INTERRUPT;                                                                      \
    } while (0)

static void note(imp *x, int k, const char *example)
{
    x->count[k]++;
    if (example && !x->example[k][0])
        snprintf(x->example[k], sizeof x->example[k], "%s", example);
}

static uint64_t ns_of(const imp *x, uint64_t t)
{
    uint64_t d = t - x->d->goff, res = x->d->res;
    if (res == 1000000000u)
        return d;
    return d / res * 1000000000u + (uint64_t)((long double)(d % res) * 1e9L / (long double)res);
}

/* a communicator's size, and this rank's place in it (-1 if not a member) */
static uint32_t comm_size(const imp *x, uint32_t ref)
{
    const ggrp *g = &x->d->grp[x->d->com[ref].group];
    return g->type == OTF2_GROUP_TYPE_COMM_SELF ? 1 : g->n;
}

static int comm_ok(imp *x, uint32_t ref)
{
    return ref < x->d->ncom && x->d->com[ref].defined;
}

/* perfskel's id of a communicator on this rank */
static int64_t comm_id(imp *x, uint32_t ref)
{
    if (ref == x->world)
        return 0;
    if (ref == x->self)
        return 1;
    if (ref < x->ncomm_id && x->comm_id[ref])
        return x->comm_id[ref] - 1;
    note(x, K_COMM_NOCREATE, NULL);
    int64_t id = 2;
    while (id < x->ncomm_used && x->comm_used[id])
        id++;
    if (psk_grow((void **)&x->comm_used, &x->ncomm_used, id, 1) ||
        psk_grow((void **)&x->comm_id, &x->ncomm_id, ref, sizeof *x->comm_id))
        return 0;
    x->comm_used[id] = 1;
    x->comm_id[ref] = id + 1;
    return id;
}

static uint32_t rslot(uint64_t oid) { return (uint32_t)((oid * 0x9E3779B97F4A7C15u) >> (64 - HBITS)); }

/* the lowest free request id (-1: MAXREQ outstanding), marked used if take */
static int64_t req_alloc(imp *x, int take)
{
    int64_t id = x->req_hint;
    while (id < MAXREQ && x->rq[id].used)
        id++;
    if (id == MAXREQ)
        return -1;
    x->req_hint = id + take;
    x->rq[id].used = take;
    return id;
}

/* the id of the outstanding request of OTF2 id oid, or -1 */
static int64_t req_find(const imp *x, uint64_t oid)
{
    for (uint32_t i = rslot(oid);; i = (i + 1) & ((1u << HBITS) - 1)) {
        if (!x->rhash[i])
            return -1;
        if (x->rq[x->rhash[i] - 1].oid == oid)
            return x->rhash[i] - 1;
    }
}

static void req_insert(imp *x, int64_t id)
{
    uint32_t i = rslot(x->rq[id].oid);
    while (x->rhash[i])
        i = (i + 1) & ((1u << HBITS) - 1);
    x->rhash[i] = (uint32_t)id + 1;
}

/* request id done: out of the table (the slots after it moved back so
 * that every probe still finds its key), its id free */
static void req_drop(imp *x, int64_t id)
{
    const uint32_t mask = (1u << HBITS) - 1;
    uint32_t i = rslot(x->rq[id].oid);
    while (x->rhash[i] != (uint32_t)id + 1)
        i = (i + 1) & mask;
    for (uint32_t j = i;;) {
        j = (j + 1) & mask;
        if (!x->rhash[j])
            break;
        uint32_t k = rslot(x->rq[x->rhash[j] - 1].oid);
        /* the entry at j may fill the hole at i unless its home lies in (i, j] */
        if ((i <= j) ? (k <= i || k > j) : (k <= i && k > j)) {
            x->rhash[i] = x->rhash[j];
            i = j;
        }
    }
    x->rhash[i] = 0;
    x->rq[id].used = 0;
    if (id < x->req_hint)
        x->req_hint = id;
}

/* a new event at the end of the queue (NULL if memory ran out) */
static qev *emit(imp *x, unsigned fn, uint64_t t0, uint64_t t1)
{
    if (x->qn == x->qcap) {
        int64_t cap = x->qcap ? 2 * x->qcap : 256;
        qev *n = realloc(x->q, (size_t)cap * sizeof *n);
        if (!n)
            return NULL;
        x->q = n, x->qcap = cap;
    }
    qev *q = &x->q[x->qn++];
    memset(q, 0, sizeof *q);
    q->e.fn = fn;
    q->e.fields = psk_fn_fields(fn);
    q->e.t_entry = t0, q->e.t_exit = t1;
    return q;
}

#define OWN(q, f) ((q)->own[(f) - PSK_F_FIRST_ARRAY])

static int set_arr(qev *q, int f, int64_t n)
{
    int k = f - PSK_F_FIRST_ARRAY;
    free(q->own[k]);
    q->own[k] = n ? calloc((size_t)n * (f == PSK_F_STATUSES ? 3 : 1), sizeof(int64_t)) : NULL;
    if (n && !q->own[k])
        return -1;
    q->e.arr[k] = q->own[k];
    q->e.n[k] = (uint32_t)n;
    return 0;
}

static void free_qev(qev *q)
{
    for (int k = 0; k < PSK_F_NFIELDS - PSK_F_FIRST_ARRAY; k++)
        free(q->own[k]), q->own[k] = NULL;
}

/* writes the queue's events up to the first pending one (all with force) */
static int flush(imp *x, int force)
{
    while (x->qhead < x->qn) {
        qev *q = &x->q[x->qhead];
        if (q->pending && !force && x->qn - x->qhead < QUEUE_MAX)
            break;
        if (q->pending)
            note(x, force ? K_NEVER_DONE : K_FORCED, NULL);
        int rc = psk_writer_event(x->w, x->rank, &q->e);
        free_qev(q);
        x->qhead++;
        if (rc != PSK_OK) {
            snprintf(x->err, sizeof x->err, "%s", psk_writer_errmsg(x->w));
            return -1;
        }
    }
    if (x->qhead == x->qn) {
        x->qbase += x->qn;
        x->qhead = x->qn = 0;
    } else if (x->qhead >= 1024 && 2 * x->qhead >= x->qn) { /* never empty: the written part let go */
        memmove(x->q, x->q + x->qhead, (size_t)(x->qn - x->qhead) * sizeof *x->q);
        x->qbase += x->qhead;
        x->qn -= x->qhead;
        x->qhead = 0;
    }
    return 0;
}

static qev *queued(imp *x, int64_t qi)
{
    int64_t i = qi - x->qbase;
    return i >= x->qhead && i < x->qn ? &x->q[i] : NULL;
}

static int has_fn_field(unsigned fn, int f) { return (psk_fn_fields(fn) >> f) & 1u; }

/* a collective's arguments from its record (NULL: none) */
static int fill_coll(imp *x, qev *q, const rec *r)
{
    psk_event *e = &q->e;
    unsigned fn = e->fn;
    uint64_t sent = r ? r->bytes : 0, recvd = r ? r->rbytes : 0;
    int64_t comm = r ? comm_id(x, r->comm) : 0;
    uint32_t size = r ? comm_size(x, r->comm) : (uint32_t)x->P;
    if (PSK_HAS(e, PSK_F_COMM))
        e->v[PSK_F_COMM] = comm;
    if (PSK_HAS(e, PSK_F_ROOT)) {
        if (r && r->root != OTF2_UNDEFINED_UINT32)
            e->v[PSK_F_ROOT] = r->root;
        else
            note(x, K_ROOT, NULL);
    }
    if (PSK_HAS(e, PSK_F_OP))
        e->v[PSK_F_OP] = PSK_OP_SUM;
    /* this rank's place in the communicator, and whether it is the root */
    uint32_t me = 0;
    int is_root = 0;
    if (r) {
        const ggrp *g = &x->d->grp[x->d->com[r->comm].group];
        for (uint32_t k = 0; g->type != OTF2_GROUP_TYPE_COMM_SELF && k < g->n; k++)
            if (g->mem[k] == (uint64_t)x->rank)
                me = k;
        is_root = r->root != OTF2_UNDEFINED_UINT32 && r->root == me;
    }
    /* the arguments back from the bytes as Score-P counts them (totals
     * over the peers: README, OTF2) */
    uint64_t N = size ? size : 1, cnt = 0, rcnt = 0;
    /* by collective and form (mpi_functions.def) */
    int coll = psk_fn_op(fn) == PSK_FNOP_COLL || psk_fn_op(fn) == PSK_FNOP_ICOLL ? psk_fn_coll(fn) : -1,
        form = psk_fn_form(fn);
    switch (coll < 0 ? -1 : coll * 4 + form) {
    case PSK_COLL_BCAST * 4: cnt = recvd ? recvd : sent / N; break;
    case PSK_COLL_REDUCE * 4: cnt = sent || !is_root ? sent : recvd / (N > 1 ? N - 1 : 1); break;
    case PSK_COLL_GATHER * 4: cnt = sent, rcnt = is_root ? recvd / N : 0; break;
    case PSK_COLL_GATHER * 4 + PSK_FORM_V: cnt = sent; break;
    case PSK_COLL_SCATTER * 4: cnt = is_root ? sent / N : 0, rcnt = recvd; break;
    case PSK_COLL_SCATTER * 4 + PSK_FORM_V: rcnt = recvd; break;
    case PSK_COLL_ALLGATHER * 4: case PSK_COLL_ALLTOALL * 4:
        cnt = sent / N, rcnt = recvd / N;
        break;
    case PSK_COLL_ALLGATHER * 4 + PSK_FORM_V: cnt = sent / N; break;
    case PSK_COLL_ALLREDUCE * 4: cnt = (sent ? sent : recvd) / N; break;
    case PSK_COLL_REDUCE_SCATTER * 4: rcnt = recvd / N; break;
    case PSK_COLL_SCAN * 4: cnt = recvd / (me + 1); break;
    case PSK_COLL_SCAN * 4 + PSK_FORM_EX: cnt = me ? recvd / me : sent / (N > 1 ? N - 1 : 1); break;
    default: break;
    }
    if (PSK_HAS(e, PSK_F_COUNT))
        e->v[PSK_F_COUNT] = (int64_t)cnt;
    if (PSK_HAS(e, PSK_F_DTSIZE))
        e->v[PSK_F_DTSIZE] = 1;
    if (PSK_HAS(e, PSK_F_RCOUNT))
        e->v[PSK_F_RCOUNT] = (int64_t)rcnt;
    if (PSK_HAS(e, PSK_F_RDTSIZE))
        e->v[PSK_F_RDTSIZE] = 1;
    /* v-collectives: the bytes spread over the communicator (only at the
     * root for Gatherv's receive and Scatterv's send counts) */
    for (int f = PSK_F_COUNTS; f <= PSK_F_RCOUNTS; f++) {
        if (!PSK_HAS(e, f))
            continue;
        int rooted = coll == PSK_COLL_GATHER ? f == PSK_F_RCOUNTS : coll == PSK_COLL_SCATTER ? f == PSK_F_COUNTS : 0;
        uint32_t n = rooted && !is_root ? 0 : size;
        uint64_t tot = f == PSK_F_COUNTS || coll == PSK_COLL_REDUCE_SCATTER ? sent : recvd;
        if (set_arr(q, f, n))
            return -1;
        for (uint32_t k = 0; k < n; k++)
            OWN(q, f)[k] = (int64_t)(tot / n + (k < tot % n));
        if (n)
            note(x, K_VCOUNTS, NULL);
    }
    for (int f = PSK_F_DTSIZES; f <= PSK_F_RDTSIZES; f++) {
        if (!PSK_HAS(e, f))
            continue;
        if (set_arr(q, f, size))
            return -1;
        for (uint32_t k = 0; k < size; k++)
            OWN(q, f)[k] = 1;
    }
    return 0;
}

/* a point-to-point call's arguments from its message record (NULL: none) */
static void fill_p2p(imp *x, psk_event *e, const rec *r, int recv)
{
    if (!r) {
        e->v[PSK_F_PEER] = PSK_PROC_NULL;
        e->v[PSK_F_DTSIZE] = 1;
        if (PSK_HAS(e, PSK_F_ASRC))
            e->v[PSK_F_ASRC] = PSK_PROC_NULL, e->v[PSK_F_ATAG] = PSK_ANY_TAG;
        return;
    }
    int64_t peer = r->peer == OTF2_UNDEFINED_UINT32 ? PSK_ANY_SOURCE : (int64_t)r->peer;
    int64_t tag = r->tag == OTF2_UNDEFINED_UINT32 ? PSK_ANY_TAG : (int64_t)r->tag;
    e->v[PSK_F_COMM] = comm_id(x, r->comm);
    e->v[PSK_F_PEER] = peer, e->v[PSK_F_TAG] = tag;
    e->v[PSK_F_COUNT] = (int64_t)r->bytes, e->v[PSK_F_DTSIZE] = 1;
    if (recv && PSK_HAS(e, PSK_F_ASRC))
        e->v[PSK_F_ASRC] = peer, e->v[PSK_F_ATAG] = tag;
}

static const rec *find_rec(const imp *x, int type, int nth)
{
    for (int64_t i = 0; i < x->nrec; i++)
        if (x->rec[i].type == type && nth-- == 0)
            return &x->rec[i];
    return NULL;
}

#define OOM()                                                                                                \
    do {                                                                                                     \
        snprintf(x->err, sizeof x->err, "out of memory");                                                    \
        return -1;                                                                                           \
    } while (0)

/* a started request: its id, its event pending until completion (recv, collective) */
static int start(imp *x, qev *q, uint64_t oid, int kind, int pending)
{
    int64_t old = req_find(x, oid);
    if (old >= 0) { /* an id reused before completion: the old one is forgotten */
        qev *o = queued(x, x->rq[old].q);
        if (o)
            o->pending = 0;
        req_drop(x, old);
    }
    int64_t id = req_alloc(x, 1);
    if (id < 0) {
        snprintf(x->err, sizeof x->err, "location %llu: more than %d requests outstanding at once",
                 (unsigned long long)x->loc, MAXREQ);
        return -1;
    }
    q->e.v[PSK_F_REQ] = id;
    q->pending = pending;
    x->rq[id] = (rmap){.oid = oid, .q = pending ? x->qbase + (q - x->q) : -1, .kind = kind, .used = 1};
    req_insert(x, id);
    return 0;
}

/* the completion records of a wait or test: the ids of the requests they complete, in order */
static int completions(imp *x, int64_t **ids, int64_t *n, int64_t **tested, int64_t *ntested)
{
    *n = *ntested = 0;
    *ids = malloc((size_t)(x->nrec + 1) * sizeof **ids);
    *tested = malloc((size_t)(x->nrec + 1) * sizeof **tested);
    if (!*ids || !*tested)
        OOM();
    for (int64_t i = 0; i < x->nrec; i++) {
        const rec *r = &x->rec[i];
        if (r->type != R_ISEND_DONE && r->type != R_IRECV_DONE && r->type != R_NBC_DONE && r->type != R_TEST &&
            r->type != R_CANCEL)
            continue;
        int64_t id = req_find(x, r->req);
        if (id < 0) {
            note(x, K_UNKNOWN_REQ, NULL);
            continue;
        }
        if (r->type == R_TEST || r->type == R_CANCEL) {
            (*tested)[(*ntested)++] = id;
            continue;
        }
        (*ids)[(*n)++] = id;
        const rmap *m = &x->rq[id];
        qev *o = queued(x, m->q);
        if (o) { /* the receive or collective it completes gets its arguments */
            if (r->type == R_IRECV_DONE && m->kind == R_IRECV_REQ)
                fill_p2p(x, &o->e, r, 1);
            else if (r->type == R_NBC_DONE && m->kind == R_NBC_REQ && fill_coll(x, o, r))
                OOM();
            o->pending = 0;
        }
        req_drop(x, id);
    }
    return 0;
}

/* the MPI call just left: its event(s), from its records */
static int finish_call(imp *x, uint64_t t0, uint64_t t1)
{
    unsigned fn = x->fn_as;
    int cls = psk_fn_class(fn);
    qev *q;
    switch (psk_fn_op(fn)) { /* the cases that need no event */
    case PSK_FNOP_PCONTROL: case PSK_FNOP_PROBE: case PSK_FNOP_IPROBE: case PSK_FNOP_MPROBE: case PSK_FNOP_IMPROBE:
    case PSK_FNOP_LOCAL:
        note(x, K_NOINFO, psk_fn_name(fn));
        return 0;
    case PSK_FNOP_SEND_INIT: case PSK_FNOP_RECV_INIT: case PSK_FNOP_FREE:
        note(x, K_PERSIST, NULL);
        return 0;
    default:
        break;
    }
    switch (psk_fn_op(fn)) {
    case PSK_FNOP_START: case PSK_FNOP_STARTALL: { /* each request it starts, as an Isend or Irecv */
        int64_t n = 0;
        for (int64_t i = 0; i < x->nrec; i++)
            n += x->rec[i].type == R_ISEND || x->rec[i].type == R_IRECV_REQ;
        int64_t k = 0;
        for (int64_t i = 0; i < x->nrec; i++) {
            const rec *r = &x->rec[i];
            if (r->type != R_ISEND && r->type != R_IRECV_REQ)
                continue;
            uint64_t a = t0 + (uint64_t)((long double)(t1 - t0) * (long double)k / (long double)n);
            uint64_t b = t0 + (uint64_t)((long double)(t1 - t0) * (long double)(k + 1) / (long double)n);
            k++;
            if (!(q = emit(x, psk_fn_of_op(r->type == R_ISEND ? PSK_FNOP_ISEND : PSK_FNOP_IRECV), a, b)))
                OOM();
            if (r->type == R_ISEND)
                fill_p2p(x, &q->e, r, 0);
            else
                q->e.v[PSK_F_PEER] = PSK_ANY_SOURCE, q->e.v[PSK_F_TAG] = PSK_ANY_TAG;
            if (start(x, q, r->req, r->type, r->type == R_IRECV_REQ))
                return -1;
        }
        return 0;
    }
    default:
        break;
    }
    if (!(q = emit(x, fn, t0, t1)))
        OOM();
    psk_event *e = &q->e;
    const rec *r;
    switch (psk_fn_op(fn)) {
    case PSK_FNOP_INIT: /* Init_thread's levels: not known */
        e->v[PSK_F_I1] = e->v[PSK_F_I2] = 0;
        break;
    case PSK_FNOP_SEND:
        if (!(r = find_rec(x, R_SEND, 0)))
            note(x, K_NOREC_P2P, NULL);
        fill_p2p(x, e, r, 0);
        break;
    case PSK_FNOP_RECV:
        if (!(r = find_rec(x, R_RECV, 0)))
            note(x, K_NOREC_P2P, NULL);
        fill_p2p(x, e, r, 1);
        break;
    case PSK_FNOP_SENDRECV: case PSK_FNOP_SENDRECV_REPLACE: {
        const rec *s = find_rec(x, R_SEND, 0);
        r = find_rec(x, R_RECV, 0);
        if (!s || !r)
            note(x, K_NOREC_P2P, NULL);
        fill_p2p(x, e, s, 0);
        if (r) {
            e->v[PSK_F_COMM] = comm_id(x, r->comm);
            e->v[PSK_F_RPEER] = r->peer == OTF2_UNDEFINED_UINT32 ? PSK_ANY_SOURCE : (int64_t)r->peer;
            e->v[PSK_F_RTAG] = r->tag == OTF2_UNDEFINED_UINT32 ? PSK_ANY_TAG : (int64_t)r->tag;
            e->v[PSK_F_ASRC] = e->v[PSK_F_RPEER], e->v[PSK_F_ATAG] = e->v[PSK_F_RTAG];
            if (PSK_HAS(e, PSK_F_RCOUNT))
                e->v[PSK_F_RCOUNT] = (int64_t)r->bytes, e->v[PSK_F_RDTSIZE] = 1;
        } else {
            e->v[PSK_F_RPEER] = PSK_PROC_NULL, e->v[PSK_F_ASRC] = PSK_PROC_NULL, e->v[PSK_F_ATAG] = PSK_ANY_TAG;
            if (PSK_HAS(e, PSK_F_RCOUNT))
                e->v[PSK_F_RDTSIZE] = 1;
        }
        if (!s && !PSK_HAS(e, PSK_F_RCOUNT) && r) /* Sendrecv_replace: one buffer */
            e->v[PSK_F_COUNT] = (int64_t)r->bytes, e->v[PSK_F_DTSIZE] = 1;
        break;
    }
    case PSK_FNOP_ISEND:
        if (!(r = find_rec(x, R_ISEND, 0))) {
            note(x, K_NOREC_P2P, NULL);
            fill_p2p(x, e, NULL, 0);
            e->v[PSK_F_REQ] = req_alloc(x, 0); /* completes at once: not kept */
            break;
        }
        fill_p2p(x, e, r, 0);
        if (start(x, q, r->req, R_ISEND, 0))
            return -1;
        break;
    case PSK_FNOP_IRECV:
        e->v[PSK_F_PEER] = PSK_ANY_SOURCE, e->v[PSK_F_TAG] = PSK_ANY_TAG;
        if (!(r = find_rec(x, R_IRECV_REQ, 0))) {
            note(x, K_NOREC_P2P, NULL);
            fill_p2p(x, e, NULL, 1);
            e->v[PSK_F_REQ] = req_alloc(x, 0);
            break;
        }
        if (start(x, q, r->req, R_IRECV_REQ, 1))
            return -1;
        break;
    case PSK_FNOP_COMM_FREE:
        if ((r = find_rec(x, R_COMM_DESTROY, 0)) || (r = find_rec(x, R_COLL_END, 0))) {
            int64_t id = comm_id(x, r->comm);
            e->v[PSK_F_COMM] = id;
            if (id >= 2 && id < x->ncomm_used)
                x->comm_used[id] = 0;
            if (r->comm < x->ncomm_id)
                x->comm_id[r->comm] = 0;
        } else {
            note(x, K_NOREC_COLL, NULL);
            e->v[PSK_F_COMM] = 0;
        }
        break;
    default:
        if (cls == PSK_CLASS_WAIT) {
            int64_t *ids, n, *tested, nt;
            if (completions(x, &ids, &n, &tested, &nt)) {
                free(ids), free(tested);
                return -1;
            }
            int op = psk_fn_op(fn),
                test = op == PSK_FNOP_TEST || op == PSK_FNOP_TESTALL || op == PSK_FNOP_TESTANY || op == PSK_FNOP_TESTSOME;
            if (PSK_HAS(e, PSK_F_FLAG))
                e->v[PSK_F_FLAG] = !(test && nt && !n);
            if (PSK_HAS(e, PSK_F_REQ))
                e->v[PSK_F_REQ] = n ? ids[0] : nt ? tested[0] : PSK_REQ_NULL;
            int rc = 0;
            if (PSK_HAS(e, PSK_F_REQS)) {
                const int64_t *src = n ? ids : tested;
                int64_t m = n ? n : nt;
                rc |= set_arr(q, PSK_F_REQS, m);
                for (int64_t k = 0; k < m && !rc; k++)
                    OWN(q, PSK_F_REQS)[k] = src[k];
            }
            if (PSK_HAS(e, PSK_F_INDEX))
                e->v[PSK_F_INDEX] = n ? 0 : PSK_UNDEFINED;
            if (PSK_HAS(e, PSK_F_INDICES)) {
                rc |= set_arr(q, PSK_F_INDICES, n);
                for (int64_t k = 0; k < n && !rc; k++)
                    OWN(q, PSK_F_INDICES)[k] = k;
            }
            free(ids), free(tested);
            if (rc)
                OOM();
        } else if (cls == PSK_CLASS_COLL) {
            if (!(r = find_rec(x, R_COLL_END, 0)))
                note(x, K_NOREC_COLL, NULL);
            if (fill_coll(x, q, r))
                OOM();
        } else if (cls == PSK_CLASS_ICOLL) {
            if (!(r = find_rec(x, R_NBC_REQ, 0))) {
                note(x, K_NOREC_COLL, NULL);
                if (fill_coll(x, q, NULL))
                    OOM();
                e->v[PSK_F_REQ] = PSK_REQ_NULL;
                break;
            }
            if (fill_coll(x, q, NULL) || start(x, q, r->req, R_NBC_REQ, 1))
                return -1;
        } else if (cls == PSK_CLASS_COMM) { /* makes a communicator */
            const rec *c = find_rec(x, R_COMM_CREATE, 0), *p = find_rec(x, R_COLL_END, 0);
            uint32_t parent = p ? p->comm : c ? x->d->com[c->comm].parent : x->world;
            if (!comm_ok(x, parent)) {
                note(x, K_NOREC_COLL, NULL);
                parent = x->world;
            }
            e->v[PSK_F_COMM] = comm_id(x, parent);
            if (PSK_HAS(e, PSK_F_GROUP))
                e->v[PSK_F_GROUP] = -1;
            e->v[PSK_F_NEWID] = -1;
            if (has_fn_field(fn, PSK_F_I1))
                e->v[PSK_F_I1] = PSK_UNDEFINED;
            if (c) {
                const ggrp *g = &x->d->grp[x->d->com[c->comm].group];
                int64_t id = 2;
                while (id < x->ncomm_used && x->comm_used[id])
                    id++;
                if (psk_grow((void **)&x->comm_used, &x->ncomm_used, id, 1) ||
                    psk_grow((void **)&x->comm_id, &x->ncomm_id, c->comm, sizeof *x->comm_id) ||
                    set_arr(q, PSK_F_MEMBERS, g->n))
                    OOM();
                x->comm_used[id] = 1;
                x->comm_id[c->comm] = id + 1;
                e->v[PSK_F_NEWID] = id;
                for (uint32_t k = 0; k < g->n; k++) {
                    OWN(q, PSK_F_MEMBERS)[k] = (int64_t)g->mem[k];
                    if (g->mem[k] == (uint64_t)x->rank && has_fn_field(fn, PSK_F_I2))
                        e->v[PSK_F_I2] = k; /* a split's key: its place */
                }
                if (has_fn_field(fn, PSK_F_I1) && g->n) /* a split's color: its lowest world rank */
                    e->v[PSK_F_I1] = (int64_t)g->mem[0];
                for (uint32_t k = 0; k < g->n && has_fn_field(fn, PSK_F_I1); k++)
                    if ((int64_t)g->mem[k] < e->v[PSK_F_I1])
                        e->v[PSK_F_I1] = (int64_t)g->mem[k];
            }
            /* I1 taken as a split's colour above; not known (0) where it is
             * no colour: the intercommunicator calls' leader or high, a
             * Cartesian communicator's reorder (the call with DIMS) */
            int op = psk_fn_op(fn);
            if (op == PSK_FNOP_INTERCOMM || op == PSK_FNOP_INTERCOMM_MERGE || has_fn_field(fn, PSK_F_DIMS))
                e->v[PSK_F_I1] = 0;
        }
        break;
    }
    return 0;
}

/* ---- event callbacks ---- */

static OTF2_CallbackCode order(imp *x, uint64_t t, uint64_t pos)
{
    if (t < x->d->goff)
        FAIL("location %llu, event %llu: time %llu is before the clock's global offset %llu",
             (unsigned long long)x->loc, (unsigned long long)pos, (unsigned long long)t,
             (unsigned long long)x->d->goff);
    if (x->any && t < x->last)
        FAIL("location %llu, event %llu: time goes backwards (%llu after %llu)", (unsigned long long)x->loc,
             (unsigned long long)pos, (unsigned long long)t, (unsigned long long)x->last);
    x->any = 1, x->last = t;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef reg)
{
    imp *x = ud;
    (void)loc, (void)al;
    if (order(x, t, pos))
        return OTF2_CALLBACK_INTERRUPT;
    if (reg >= x->d->nreg || !x->d->reg[reg].defined)
        FAIL("location %llu, event %llu: Enter of region %u, which is not defined", (unsigned long long)x->loc,
             (unsigned long long)pos, reg);
    if (x->depth > (1 << 20))
        FAIL("location %llu, event %llu: regions nested more than 2^20 deep", (unsigned long long)x->loc,
             (unsigned long long)pos);
    if (x->depth == x->nstack && psk_grow((void **)&x->stack, &x->nstack, x->depth, sizeof *x->stack))
        FAIL("out of memory");
    x->stack[x->depth++] = reg;
    const greg *g = &x->d->reg[reg];
    if (x->pass == 1) {
        if (g->fn && !x->first_mpi)
            x->first_mpi = ns_of(x, t) + 1;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (x->call >= 0) {
        if (g->mpi)
            note(x, K_NESTED, NULL);
        return OTF2_CALLBACK_SUCCESS;
    }
    if (g->fn) {
        x->call = x->depth - 1, x->fn = g->fn, x->call_region = reg, x->t_entry = t, x->nrec = 0;
        int op = psk_fn_op(g->fn); /* a matched receive as the plain one */
        x->fn_as = op == PSK_FNOP_MRECV ? psk_fn_of_op(PSK_FNOP_RECV)
                   : op == PSK_FNOP_IMRECV ? psk_fn_of_op(PSK_FNOP_IRECV) : g->fn;
        if (x->fn_as != g->fn)
            note(x, K_MRECV, NULL);
    } else if (g->mpi) {
        note(x, K_MPI_OTHER, psk_otf2in_string(x->d, g->name));
    } else {
        note(x, K_USER, NULL);
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef reg)
{
    imp *x = ud;
    (void)loc, (void)al;
    if (order(x, t, pos))
        return OTF2_CALLBACK_INTERRUPT;
    if (!x->depth)
        FAIL("location %llu, event %llu: Leave of region %u outside any region", (unsigned long long)x->loc,
             (unsigned long long)pos, reg);
    if (x->stack[x->depth - 1] != reg)
        FAIL("location %llu, event %llu: Leave of region %u inside region %u", (unsigned long long)x->loc,
             (unsigned long long)pos, reg, x->stack[x->depth - 1]);
    x->depth--;
    if (x->pass == 1 || x->call != x->depth)
        return OTF2_CALLBACK_SUCCESS;
    x->call = -1;
    if (finish_call(x, ns_of(x, x->t_entry), ns_of(x, t)) || flush(x, 0))
        return OTF2_CALLBACK_INTERRUPT;
    return OTF2_CALLBACK_SUCCESS;
}

/* a record inside the current MPI call, its references checked */
static OTF2_CallbackCode add(imp *x, uint64_t t, uint64_t pos, rec r, int has_comm, int has_peer, int has_root)
{
    if (order(x, t, pos))
        return OTF2_CALLBACK_INTERRUPT;
    if (x->pass == 1)
        return OTF2_CALLBACK_SUCCESS;
    if (has_comm) {
        if (!comm_ok(x, r.comm))
            FAIL("location %llu, event %llu: communicator %u is not defined", (unsigned long long)x->loc,
                 (unsigned long long)pos, r.comm);
        uint32_t n = comm_size(x, r.comm);
        if (has_peer && r.peer != OTF2_UNDEFINED_UINT32 && r.peer >= n)
            FAIL("location %llu, event %llu: rank %u out of range for communicator %u of %u ranks",
                 (unsigned long long)x->loc, (unsigned long long)pos, r.peer, r.comm, n);
        if (has_root && r.root != OTF2_UNDEFINED_UINT32 && r.root >= n)
            FAIL("location %llu, event %llu: root %u out of range for communicator %u of %u ranks",
                 (unsigned long long)x->loc, (unsigned long long)pos, r.root, r.comm, n);
    }
    if (x->call < 0) {
        note(x, K_OUTSIDE, NULL);
        return OTF2_CALLBACK_SUCCESS;
    }
    if (x->nrec == x->caprec && psk_grow((void **)&x->rec, &x->caprec, x->nrec, sizeof *x->rec))
        FAIL("out of memory");
    x->rec[x->nrec++] = r;
    return OTF2_CALLBACK_SUCCESS;
}

#define EVARGS OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud, OTF2_AttributeList *al
#define UNUSED (void)loc, (void)al

static OTF2_CallbackCode ev_send(EVARGS, uint32_t to, OTF2_CommRef c, uint32_t tag, uint64_t len)
{
    UNUSED;
    return add(ud, t, pos, (rec){.type = R_SEND, .peer = to, .comm = c, .tag = tag, .bytes = len}, 1, 1, 0);
}
static OTF2_CallbackCode ev_isend(EVARGS, uint32_t to, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req)
{
    UNUSED;
    return add(ud, t, pos, (rec){.type = R_ISEND, .peer = to, .comm = c, .tag = tag, .bytes = len, .req = req}, 1, 1,
               0);
}
static OTF2_CallbackCode ev_isend_done(EVARGS, uint64_t req)
{
    UNUSED;
    return add(ud, t, pos, (rec){.type = R_ISEND_DONE, .req = req}, 0, 0, 0);
}
static OTF2_CallbackCode ev_irecv_req(EVARGS, uint64_t req)
{
    UNUSED;
    return add(ud, t, pos, (rec){.type = R_IRECV_REQ, .req = req}, 0, 0, 0);
}
static OTF2_CallbackCode ev_recv(EVARGS, uint32_t from, OTF2_CommRef c, uint32_t tag, uint64_t len)
{
    UNUSED;
    return add(ud, t, pos, (rec){.type = R_RECV, .peer = from, .comm = c, .tag = tag, .bytes = len}, 1, 1, 0);
}
static OTF2_CallbackCode ev_irecv(EVARGS, uint32_t from, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req)
{
    UNUSED;
    return add(ud, t, pos, (rec){.type = R_IRECV_DONE, .peer = from, .comm = c, .tag = tag, .bytes = len, .req = req},
               1, 1, 0);
}
static OTF2_CallbackCode ev_test(EVARGS, uint64_t req)
{
    UNUSED;
    return add(ud, t, pos, (rec){.type = R_TEST, .req = req}, 0, 0, 0);
}
static OTF2_CallbackCode ev_cancel(EVARGS, uint64_t req)
{
    UNUSED;
    return add(ud, t, pos, (rec){.type = R_CANCEL, .req = req}, 0, 0, 0);
}
static OTF2_CallbackCode ev_coll_begin(EVARGS)
{
    UNUSED;
    imp *x = ud;
    return order(x, t, pos);
}
static OTF2_CallbackCode ev_coll_end(EVARGS, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t s,
                                     uint64_t r)
{
    UNUSED;
    return add(ud, t, pos, (rec){.type = R_COLL_END, .op = op, .comm = c, .root = root, .bytes = s, .rbytes = r}, 1, 0,
               1);
}
static OTF2_CallbackCode ev_nbc_req(EVARGS, uint64_t req)
{
    UNUSED;
    return add(ud, t, pos, (rec){.type = R_NBC_REQ, .req = req}, 0, 0, 0);
}
static OTF2_CallbackCode ev_nbc_done(EVARGS, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t s,
                                     uint64_t r, uint64_t req)
{
    UNUSED;
    return add(ud, t, pos,
               (rec){.type = R_NBC_DONE, .op = op, .comm = c, .root = root, .bytes = s, .rbytes = r, .req = req}, 1, 0,
               1);
}
static OTF2_CallbackCode ev_comm_create(EVARGS, OTF2_CommRef c)
{
    UNUSED;
    imp *x = ud;
    if (x->pass == 2 && comm_ok(x, c)) { /* this rank must be one of its members */
        const ggrp *g = &x->d->grp[x->d->com[c].group];
        uint32_t k = 0;
        while (g->type != OTF2_GROUP_TYPE_COMM_SELF && k < g->n && g->mem[k] != (uint64_t)x->rank)
            k++;
        if (g->type != OTF2_GROUP_TYPE_COMM_SELF && k == g->n)
            FAIL("location %llu, event %llu: creates communicator %u, whose group does not hold rank %d",
                 (unsigned long long)x->loc, (unsigned long long)pos, c, x->rank);
    }
    return add(x, t, pos, (rec){.type = R_COMM_CREATE, .comm = c}, 1, 0, 0);
}
static OTF2_CallbackCode ev_comm_destroy(EVARGS, OTF2_CommRef c)
{
    UNUSED;
    return add(ud, t, pos, (rec){.type = R_COMM_DESTROY, .comm = c}, 1, 0, 0);
}

/* ---- the archive ---- */

OTF2_EvtReaderCallbacks *psk_otf2in_callbacks(void)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, ev_isend_done);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, ev_irecv_req);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(cb, ev_test);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, ev_cancel);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, ev_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, ev_nbc_req);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, ev_nbc_done);
    OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, ev_comm_create);
    OTF2_EvtReaderCallbacks_SetCommDestroyCallback(cb, ev_comm_destroy);
    return cb;
}

void psk_otf2in_reset_rank(imp *x)
{
    for (int64_t i = x->qhead; i < x->qn; i++)
        free_qev(&x->q[i]);
    x->depth = 0, x->call = -1, x->nrec = 0, x->qhead = x->qn = x->qbase = 0, x->any = 0, x->last = 0;
    x->req_hint = 0;
    if (x->rq)
        memset(x->rq, 0, MAXREQ * sizeof *x->rq);
    if (x->rhash)
        memset(x->rhash, 0, (sizeof *x->rhash) << HBITS);
    if (x->comm_used)
        memset(x->comm_used, 0, (size_t)x->ncomm_used);
    if (x->comm_id)
        memset(x->comm_id, 0, (size_t)x->ncomm_id * sizeof *x->comm_id);
}

int psk_otf2in_read_rank(imp *x, OTF2_Reader *rd, OTF2_EvtReaderCallbacks *cb)
{
    psk_otf2in_reset_rank(x);
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, x->loc);
    if (!er) {
        snprintf(x->err, sizeof x->err, "location %llu: no events: %s", (unsigned long long)x->loc,
                 x->oe->msg);
        return -1;
    }
    uint64_t n = 0;
    OTF2_ErrorCode c = OTF2_Reader_RegisterEvtCallbacks(rd, er, cb, x);
    if (c == OTF2_SUCCESS)
        c = OTF2_Reader_ReadAllLocalEvents(rd, er, &n);
    OTF2_Reader_CloseEvtReader(rd, er);
    if (x->err[0])
        return -1;
    if (c != OTF2_SUCCESS) {
        snprintf(x->err, sizeof x->err, "location %llu: %s", (unsigned long long)x->loc,
                 x->oe->msg[0] ? x->oe->msg : OTF2_Error_GetDescription(c));
        return -1;
    }
    if (x->pass == 2) {
        if (x->call >= 0) /* cut inside a call: the call is left out */
            note(x, K_NEVER_DONE, NULL);
        if (flush(x, 1))
            return -1;
        if (psk_writer_end_rank(x->w, x->rank) != PSK_OK) {
            snprintf(x->err, sizeof x->err, "%s", psk_writer_errmsg(x->w));
            return -1;
        }
    }
    return 0;
}
