/* perfskel gen: runs of calls outside loops replayed from data. Each
 * rank's calls of a run become one string of numbers read by replay_
 * (skel_runtime.c, whose switch takes the arguments in the order written
 * here): function id, work units, event id minus the previous one, then
 * the call's arguments with the recorded values of that rank, each a
 * signed varint in base64. Values go into the skeleton only as these
 * digits, so the source stays small whatever the trace. */
#include <stdlib.h>
#include <string.h>

#include "gen_internal.h"
#include "psk_mem.h"

typedef struct stream {
    char *p;
    int64_t n, cap;
} stream;

static int put(stream *s, int64_t v)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    if (psk_grow((void **)&s->p, &s->cap, s->n + 13, 1)) /* 64 bits: at most 13 digits */
        return -1;
    do {
        int d = (int)(z & 31);
        z >>= 5;
        s->p[s->n++] = b64[d | (z ? 32 : 0)];
    } while (z);
    return 0;
}

/* element k of array field f in bytes: scaled by sf (scalar or array) */
static int64_t arr_bytes(const psk_event *e, int f, int sf, uint32_t k)
{
    int64_t v = PSK_ARR(e, f)[k], sz = 1;
    if (sf >= PSK_F_FIRST_ARRAY)
        sz = k < PSK_ARRN(e, sf) ? PSK_ARR(e, sf)[k] : 1;
    else if (sf >= 0 && PSK_HAS(e, sf))
        sz = e->v[sf];
    return v * sz;
}

static int64_t ev_bytes(const psk_event *e, int cf, int sf)
{
    return e->v[cf] * (PSK_HAS(e, sf) ? e->v[sf] : 1);
}

/* whether node id (executed once: outside loops) can be replayed from data */
static int tabulable(const gen *g, int32_t id)
{
    const gnode *n = &g->node[id];
    if (!n->seen || n->np == 0 || n->hidden)
        return 0;
    int np;
    const psk_fparam *ps = psk_folded_params(g->f, id, &np);
    for (int i = 0; i < np; i++) /* each value computable here */
        for (int j = 0; j < n->np; j++)
            if (gen_value_at(g, id, ps[i].field, j, (int64_t[64]){0}, 0) == INT64_MIN)
                return 0;
    return gen_replayable(n->first[0].fn);
}

int gen_replayable(unsigned fn)
{
    switch (psk_fn_op(fn)) {
    case PSK_FNOP_SEND: case PSK_FNOP_ISEND: case PSK_FNOP_RECV: case PSK_FNOP_IRECV: case PSK_FNOP_SENDRECV:
    case PSK_FNOP_SENDRECV_REPLACE: case PSK_FNOP_PROBE: case PSK_FNOP_IPROBE: case PSK_FNOP_SEND_INIT:
    case PSK_FNOP_RECV_INIT: case PSK_FNOP_START: case PSK_FNOP_STARTALL: case PSK_FNOP_WAIT: case PSK_FNOP_WAITALL:
    case PSK_FNOP_WAITANY: case PSK_FNOP_WAITSOME: case PSK_FNOP_TEST: case PSK_FNOP_TESTALL: case PSK_FNOP_TESTANY:
    case PSK_FNOP_TESTSOME: case PSK_FNOP_FREE: case PSK_FNOP_CANCEL: case PSK_FNOP_COLL: case PSK_FNOP_ICOLL:
    case PSK_FNOP_COMM_FREE: case PSK_FNOP_PCONTROL:
        return 1;
    default:
        return 0;
    }
}

/* rank j's call of node id in its execution k at iteration indices iter
 * onto s; *last: the rank's previous event id */
static int encode_call(gen *g, int32_t id, int j, stream *s, int32_t *last, const int64_t *iter, int64_t k)
{
    const gnode *n = &g->node[id];
    /* the first execution with this execution's values */
    psk_event ev = n->first[j];
    int np;
    const psk_fparam *ps = psk_folded_params(g->f, id, &np);
    for (int i = 0; i < np; i++)
        ev.v[ps[i].field] = gen_value_at(g, id, ps[i].field, j, iter, k);
    if (n->srcf && !n->hidden && n->nsrc && k < n->nsrc[j]) /* a wildcard's recorded source */
        ev.v[n->srcf] = n->src[j][k];
    if (n->reqsvary && !n->reqsbig && n->xr) { /* this execution's request array */
        uint64_t at = 0;
        for (int64_t x = 0; x < k && at < n->nxr[j]; x++)
            at += 1 + (uint64_t)n->xr[j][at];
        if (at < n->nxr[j]) {
            PSK_ARR(&ev, PSK_F_REQS) = &n->xr[j][at + 1];
            PSK_ARRN(&ev, PSK_F_REQS) = (uint32_t)n->xr[j][at];
        }
    }
    /* v-collective arrays that differ between executions: this one's bytes */
    const int64_t *vb = n->varr > 0 && n->va && n->va[j] && (uint64_t)k < n->execs ? n->va[j] + (uint64_t)k * n->vw
                                                                                  : NULL;
#define ARR_BYTES(e, f, sf, k) (vb ? vb[((f) == PSK_F_COUNTS ? 0 : n->vw1) + (k)] : arr_bytes(e, f, sf, k))
    const psk_event *e = &ev;
    unsigned fn = e->fn;
    int cls = psk_fn_class(fn), rc = 0;
    int nb = cls == PSK_CLASS_ICOLL;
    int64_t big = 0; /* the most bytes a buffer must hold for it */
    rc |= put(s, fn) | put(s, gen_gap_units(g, n, j)) | put(s, id - *last);
    *last = id;
    int64_t comm = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
    gen_bump(&g->max_comm, comm);
    int64_t by = PSK_HAS(e, PSK_F_COUNT) ? ev_bytes(e, PSK_F_COUNT, PSK_F_DTSIZE) : 0;
    int rsf = PSK_HAS(e, PSK_F_RDTSIZE) ? PSK_F_RDTSIZE : PSK_F_DTSIZE;
    int64_t rby = PSK_HAS(e, PSK_F_RCOUNT) ? ev_bytes(e, PSK_F_RCOUNT, rsf) : 0;
    int64_t peer = PSK_HAS(e, PSK_F_PEER) ? e->v[PSK_F_PEER] : 0, tag = PSK_HAS(e, PSK_F_TAG) ? e->v[PSK_F_TAG] : 0;
    int64_t req = PSK_HAS(e, PSK_F_REQ) ? e->v[PSK_F_REQ] : 0;
    int64_t dts = PSK_HAS(e, PSK_F_DTSIZE) ? e->v[PSK_F_DTSIZE] : 1, op = PSK_HAS(e, PSK_F_OP) ? e->v[PSK_F_OP] : 0;
    int64_t root = PSK_HAS(e, PSK_F_ROOT) ? e->v[PSK_F_ROOT] : 0;
    if (PSK_HAS(e, PSK_F_REQ))
        gen_bump(&g->max_req, req);
    int done = n->done && k < n->ndone[j] ? n->done[j][k] != 0 : 0;
    int fop = psk_fn_op(fn);
    if (psk_fn_polled(fn)) { /* a run of polls: how, done, work, polls, then what it polls (pollr_, pollp_) */
        int how = fop == PSK_FNOP_TEST ? 0 : fop == PSK_FNOP_IPROBE ? 7 : gen_reqs_how(fn) + 3;
        rc |= put(s, how) | put(s, done) | put(s, gen_poll_units(g, n, j)) | put(s, gen_poll_calls(n, j));
        if (how == 7) {
            rc |= put(s, peer) | put(s, tag) | put(s, comm);
        } else if (how == 0) {
            rc |= put(s, 1) | put(s, req);
        } else {
            uint32_t q, nq = PSK_ARRN(e, PSK_F_REQS);
            rc |= put(s, nq);
            for (q = 0; q < nq; q++) {
                rc |= put(s, PSK_ARR(e, PSK_F_REQS)[q]);
                gen_bump_req(g, PSK_ARR(e, PSK_F_REQS)[q]);
            }
        }
        fop = -1;
    }
    switch (fop) {
    case -1:
        break;
    case PSK_FNOP_SEND: case PSK_FNOP_RECV:
        rc |= put(s, by) | put(s, peer) | put(s, tag) | put(s, comm);
        big = by;
        break;
    case PSK_FNOP_ISEND: case PSK_FNOP_IRECV: case PSK_FNOP_SEND_INIT: case PSK_FNOP_RECV_INIT:
        rc |= put(s, by) | put(s, peer) | put(s, tag) | put(s, comm) | put(s, req);
        big = by;
        break;
    case PSK_FNOP_SENDRECV:
        rc |= put(s, by) | put(s, peer) | put(s, tag) | put(s, rby) | put(s, e->v[PSK_F_RPEER]) |
              put(s, e->v[PSK_F_RTAG]) | put(s, comm);
        big = by > rby ? by : rby;
        break;
    case PSK_FNOP_SENDRECV_REPLACE:
        rc |= put(s, by) | put(s, peer) | put(s, tag) | put(s, e->v[PSK_F_RPEER]) | put(s, e->v[PSK_F_RTAG]) |
              put(s, comm);
        big = by;
        break;
    case PSK_FNOP_PROBE: case PSK_FNOP_IPROBE:
        rc |= put(s, peer) | put(s, tag) | put(s, comm);
        break;
    case PSK_FNOP_START: case PSK_FNOP_WAIT: case PSK_FNOP_FREE: case PSK_FNOP_CANCEL:
        rc |= put(s, req);
        break;
    case PSK_FNOP_TEST:
        rc |= put(s, req) | put(s, done);
        break;
    case PSK_FNOP_STARTALL: case PSK_FNOP_WAITALL: case PSK_FNOP_WAITANY: case PSK_FNOP_WAITSOME:
    case PSK_FNOP_TESTALL: case PSK_FNOP_TESTANY: case PSK_FNOP_TESTSOME: {
        int wait = gen_reqs_how(fn);
        int how = gen_completion(e) >= 0 && !done ? wait + 3 : wait;
        uint32_t k, nq = PSK_ARRN(e, PSK_F_REQS);
        rc |= put(s, how) | put(s, nq);
        for (k = 0; k < nq; k++) {
            rc |= put(s, PSK_ARR(e, PSK_F_REQS)[k]);
            gen_bump_req(g, PSK_ARR(e, PSK_F_REQS)[k]);
        }
        break;
    }
    case PSK_FNOP_COMM_FREE:
        rc |= put(s, comm);
        break;
    case PSK_FNOP_PCONTROL:
        return rc | put(s, e->v[PSK_F_I1]);
    default: { /* the collectives (tabulable() lets no other through); a
                * nonblocking one's request after the switch */
        int coll = psk_fn_coll(fn), form = psk_fn_form(fn);
        if (coll == PSK_COLL_BARRIER) {
            rc |= put(s, comm);
        } else if (coll == PSK_COLL_BCAST) {
            rc |= put(s, by) | put(s, root) | put(s, comm);
            big = by;
        } else if (coll == PSK_COLL_REDUCE) {
            rc |= put(s, by) | put(s, dts) | put(s, op) | put(s, root) | put(s, comm);
            big = by;
        } else if (coll == PSK_COLL_ALLREDUCE || coll == PSK_COLL_SCAN) {
            rc |= put(s, by) | put(s, dts) | put(s, op) | put(s, comm);
            big = by;
        } else if (coll == PSK_COLL_REDUCE_SCATTER && form == PSK_FORM_PLAIN) { /* Reduce_scatter_block */
            rc |= put(s, e->v[PSK_F_RCOUNT] * dts) | put(s, dts) | put(s, op) | put(s, comm);
            big = e->v[PSK_F_RCOUNT] * dts * g->P; /* one block per rank sent */
        } else if (coll == PSK_COLL_REDUCE_SCATTER) {
            uint32_t k, na = PSK_ARRN(e, PSK_F_RCOUNTS);
            rc |= put(s, dts) | put(s, op) | put(s, na);
            for (k = 0; k < na; k++) {
                int64_t b = ARR_BYTES(e, PSK_F_RCOUNTS, PSK_F_DTSIZE, k);
                rc |= put(s, b);
                big += b > 0 ? b : 0;
            }
            rc |= put(s, comm);
        } else if (form == PSK_FORM_PLAIN && (coll == PSK_COLL_GATHER || coll == PSK_COLL_SCATTER)) {
            rc |= put(s, by) | put(s, rby) | put(s, root) | put(s, comm);
            big = (by > rby ? by : rby) * g->P;
        } else if (form == PSK_FORM_PLAIN) { /* allgather, alltoall */
            rc |= put(s, by) | put(s, rby) | put(s, comm);
            big = (by > rby ? by : rby) * g->P;
        } else { /* the v- and w-forms: byte counts per rank */
            int sf = PSK_HAS(e, PSK_F_DTSIZES) ? PSK_F_DTSIZES : PSK_F_DTSIZE;
            int rf = PSK_HAS(e, PSK_F_RDTSIZES) ? PSK_F_RDTSIZES : PSK_HAS(e, PSK_F_RDTSIZE) ? PSK_F_RDTSIZE
                                                                                              : PSK_F_DTSIZE;
            int gath = coll == PSK_COLL_GATHER || coll == PSK_COLL_ALLGATHER;
            int scat = coll == PSK_COLL_SCATTER;
            int64_t st = 0, rt = 0;
            if (gath)
                rc |= put(s, by);
            if (!gath) { /* Scatterv, Alltoallv, Alltoallw: what it sends */
                rc |= put(s, PSK_ARRN(e, PSK_F_COUNTS));
                for (uint32_t k = 0; k < PSK_ARRN(e, PSK_F_COUNTS); k++) {
                    int64_t b = ARR_BYTES(e, PSK_F_COUNTS, sf, k);
                    rc |= put(s, b);
                    st += b > 0 ? b : 0;
                }
            }
            if (!scat) { /* Gatherv, Allgatherv, Alltoallv, Alltoallw: what it receives */
                rc |= put(s, PSK_ARRN(e, PSK_F_RCOUNTS));
                for (uint32_t k = 0; k < PSK_ARRN(e, PSK_F_RCOUNTS); k++) {
                    int64_t b = ARR_BYTES(e, PSK_F_RCOUNTS, rf, k);
                    rc |= put(s, b);
                    rt += b > 0 ? b : 0;
                }
            }
            if (scat)
                rc |= put(s, rby);
            if (coll == PSK_COLL_GATHER || scat)
                rc |= put(s, root);
            rc |= put(s, comm);
            big = st > rt ? st : rt;
            big = big > by * g->P ? big : by * g->P;
            big = big > rby * g->P ? big : rby * g->P;
        }
        break;
    }
    }
    if (nb) /* a nonblocking collective's request: its last argument */
        rc |= put(s, req);
    gen_bump(&g->max_sbytes, big);
    gen_bump(&g->max_rbytes, big);
    return rc;
#undef ARR_BYTES
}

/* loops of at most this many calls (all iterations) go into data whole */
#define UNROLL_MAX 64

/* the calls node id (a call, or a small loop of such) stands for when it
 * can be replayed from data, else 0 */
int64_t gen_data_calls(const gen *g, int32_t id)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    if (x->kind == PSK_FNODE_SYM)
        return tabulable(g, id);
    if (x->kind != PSK_FNODE_LOOP || x->depth >= 64 || x->count * x->span > UNROLL_MAX ||
        (g->plan && g->plan[id].scaled))
        return 0; /* a sampled loop stays code */
    const int32_t *kid = psk_folded_children(g->f, id);
    int64_t one = 0;
    for (int32_t i = 0; i < x->nchild; i++) {
        int64_t c = gen_data_calls(g, kid[i]);
        if (!c)
            return 0;
        one += c;
    }
    return one * x->count;
}

typedef struct runwalk {
    stream *s;
    int32_t *last;   /* per rank: its previous event id */
    int64_t iter[64];
    int64_t *execs;  /* per node: its executions written so far */
} runwalk;

static void encode_node(gen *g, int32_t id, runwalk *w)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    if (x->kind == PSK_FNODE_LOOP) {
        const int32_t *kid = psk_folded_children(g->f, id);
        for (int64_t it = 0; it < x->count && !g->failed; it++) {
            w->iter[x->depth] = it;
            for (int32_t i = 0; i < x->nchild; i++)
                encode_node(g, kid[i], w);
        }
        return;
    }
    const gnode *n = &g->node[id];
    for (int j = 0; j < n->np; j++)
        if (encode_call(g, id, j, &w->s[n->ranks[j]], &w->last[n->ranks[j]], w->iter, w->execs[id]))
            gen_oom(g);
    w->execs[id]++;
    g->fnused[n->first[0].fn & 255] = 1;
}

/* whether a table by execution repeats with period per (the executions
 * of its node in one execution of the run) */
static int periodic(const psk_fparam *p, int64_t per)
{
    int64_t m = p->kind == PSK_VARY_RANKEXEC ? (p->m > 0 ? p->m : 1) : 1, E = p->n / m;
    for (int64_t k = per; k < E; k++)
        for (int64_t j = 0; j < m; j++)
            if (p->table[k * m + j] != p->table[(k % per) * m + j])
                return 0;
    return 1;
}

/* whether the calls of node id, in a run D loops deep, may differ between
 * the run's executions: a value following an enclosing loop's index, or
 * by execution unless it repeats with each execution of the run (per:
 * the node's executions in one); sources of wildcard receives, request
 * arrays or Test completions that change from one execution to the next */
static int varies(const gen *g, int32_t id, int D, int64_t per)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    if (x->kind == PSK_FNODE_LOOP) {
        const int32_t *kid = psk_folded_children(g->f, id);
        for (int32_t i = 0; i < x->nchild; i++)
            if (varies(g, kid[i], D, per * x->count))
                return 1;
        return 0;
    }
    const gnode *n = &g->node[id];
    int np;
    const psk_fparam *ps = psk_folded_params(g->f, id, &np);
    for (int i = 0; i < np; i++)
        if (ps[i].kind > PSK_VARY_ITER ? !periodic(&ps[i], per) : ps[i].depth < D)
            return 1;
    if (n->varsrc || n->reqsvary || n->varr)
        return 1;
    for (int j = 0; n->done && j < n->np; j++)
        for (uint32_t k = 1; k < n->ndone[j]; k++)
            if (n->done[j][k] != n->done[j][0])
                return 1;
    return 0;
}

/* calls of all executions of one run stored per execution, at most */
#define DATA_MAX (1 << 21)

int gen_run_mode(const gen *g, const int32_t *kid, int32_t from, int32_t to, int64_t calls)
{
    int32_t chain[64];
    int D = gen_loops_around(g, kid[from], chain);
    if (D == 0)
        return 1; /* outside loops: executed once */
    int vary = 0;
    for (int32_t i = from; i < to && !vary; i++)
        vary = varies(g, kid[i], D, 1);
    if (!vary)
        return 1;
    int64_t E = 1;
    for (int d = 0; d < D && E <= DATA_MAX; d++)
        E *= psk_folded_node(g->f, chain[d])->count;
    return E <= DATA_MAX && E * calls <= DATA_MAX ? 2 : 0;
}

/* stream b appended to a as its length then its characters */
static int append(stream *a, const stream *b)
{
    if (put(a, b->n) || psk_grow((void **)&a->p, &a->cap, a->n + b->n, 1))
        return -1;
    if (b->n)
        memcpy(a->p + a->n, b->p, (size_t)b->n);
    a->n += b->n;
    return 0;
}

void gen_emit_run(gen *g, const int32_t *kid, int32_t from, int32_t to, int64_t calls, int mode, int d)
{
    stream *s = calloc((size_t)g->P, sizeof *s), *t = calloc((size_t)g->P, sizeof *t);
    int32_t *last = calloc((size_t)g->P, sizeof *last), chain[64];
    int64_t *total = calloc((size_t)g->P, sizeof *total);
    if (!g->execs) /* each node is in one run only: one set of counters serves all */
        g->execs = calloc((size_t)psk_folded_nnodes(g->f), sizeof *g->execs);
    runwalk w = {.s = mode == 2 ? t : s, .last = last, .execs = g->execs};
    if (!s || !t || !last || !total || !w.execs) {
        free(s), free(t), free(last), free(total);
        gen_oom(g);
        return;
    }
    int D = gen_loops_around(g, kid[from], chain);
    int64_t E = 1;
    for (int k = 0; mode == 2 && k < D; k++)
        E *= psk_folded_node(g->f, chain[k])->count;
    /* execution e at the loop indices of e in mixed radix, the innermost
     * loop's index the fastest */
    for (int64_t e = 0; e < E && !g->failed; e++) {
        int64_t q = e;
        for (int k = D - 1; mode == 2 && k >= 0; k--) {
            const psk_fnode *L = psk_folded_node(g->f, chain[k]);
            w.iter[L->depth & 63] = q % L->count, q /= L->count;
        }
        for (int r = 0; r < g->P; r++)
            last[r] = 0, t[r].n = 0;
        for (int32_t i = from; i < to && !g->failed; i++)
            encode_node(g, kid[i], &w);
        for (int r = 0; mode == 2 && r < g->P && !g->failed; r++) {
            total[r] += t[r].n;
            if (append(&s[r], &t[r]))
                gen_oom(g);
        }
    }
    int32_t first = kid[from];
    for (int r = 0; r < g->P && !g->failed; r++) {
        if (mode == 2 && !total[r])
            s[r].n = 0; /* no calls of this rank: no string */
        if (!s[r].n)
            continue;
        fprintf(g->tabs, "static const char R%d_%d[] =", first, r);
        for (int64_t at = 0; at < s[r].n; at += 16000)
            fprintf(g->tabs, "\n    \"%.*s\"", (int)(s[r].n - at < 16000 ? s[r].n - at : 16000), s[r].p + at);
        fprintf(g->tabs, ";\n");
    }
    fprintf(g->tabs, "static const char *const R%d[NRANKS] = {", first);
    for (int r = 0; r < g->P; r++) {
        if (s[r].n)
            fprintf(g->tabs, "%sR%d_%d", r ? ", " : "", first, r);
        else
            fprintf(g->tabs, "%s0", r ? ", " : "");
        free(s[r].p), free(t[r].p);
    }
    fprintf(g->tabs, "};\n");
    /* where the rank is: the innermost loop around, its index */
    char at[48] = "-1, 0";
    if (D > 0)
        snprintf(at, sizeof at, "%d, i%d", chain[D - 1], chain[D - 1]);
    double cf = gen_compute_factor(g, kid[from]);
    if (cf > 1) { /* compute scaled (gen_plan.c) in these calls too */
        gen_indent(g, d);
        fprintf(g->body, "rfac_ = %.6g;\n", cf);
    }
    gen_indent(g, d);
    if (mode == 2) {
        /* the execution: the loops' indices in mixed radix (a sampled loop
         * runs iterations with the original's indices) */
        char ex[64 * 48] = "0LL";
        int fits = 1;
        for (int k = 0; k < D && fits; k++) {
            char nx[sizeof ex];
            fits = snprintf(nx, sizeof nx, "(%s * %lldLL + (long long)i%d)", ex,
                            (long long)psk_folded_node(g->f, chain[k])->count, chain[k]) < (int)sizeof nx;
            if (fits)
                memcpy(ex, nx, sizeof ex);
            else
                gen_fail(g, "node %d: its loops' index expression is longer than %zu bytes", first, sizeof nx - 1);
        }
        fprintf(g->tabs, "static rpos_ X%d;\n", first);
        if (fits)
            fprintf(g->body, "replayx_(R%d[rank_], &X%d, %s, %s, fname_); /* nodes %d-%d: %lld calls an execution, "
                             "replayed from data (%lld executions) */\n",
                    first, first, ex, at, first, kid[to - 1], (long long)calls, (long long)E);
    } else {
        fprintf(g->body, "replay_(R%d[rank_], -1, %s, fname_); /* nodes %d-%d: %lld calls, replayed from data */\n",
                first, at, first, kid[to - 1], (long long)calls);
    }
    if (cf > 1) {
        gen_indent(g, d);
        fprintf(g->body, "rfac_ = 1.0;\n");
    }
    free(s), free(t), free(last), free(total);
}
