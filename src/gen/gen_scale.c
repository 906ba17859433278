/* perfskel gen: which loops may be scaled (run count/K iterations).
 * Those whose every iteration is closed: each message sent in it is
 * received in it, counted in world ranks through the recorded members of
 * each communicator (persistent requests by what their init call said),
 * in bytes too where a message size follows the loop's index and in tags
 * where a tag does (where tags come from tables by execution, it must
 * begin with no message in flight); each collective in it has every
 * member of its communicator taking part, each the same numbered
 * collective on every rank; the objects it makes it frees; and each
 * request it completes it made. Values from tables by execution are
 * followed at the executions the skeleton reads them (the indices of the
 * loops around, in mixed radix), so iterations that differ in message
 * sizes are checked one by one. Then running fewer iterations on every rank leaves nobody
 * waiting. */
#include <stdlib.h>
#include <string.h>

#include "gen_internal.h"

/* values of one kind (message sizes, tags) in the walk: vary: some follow
 * the loop's index (sizes: or execution); nonaffine: not as a * i + b;
 * unknown: one the walk cannot tell */
typedef struct follow {
    int vary, nonaffine, unknown;
    int exec; /* tags: some from a table by execution */
} follow;

typedef struct balance {
    int depth;       /* of the loop: its iteration index is iter[depth] */
    int64_t objs;    /* objects made minus freed (persistent requests, communicators, groups) */
    int P;
    int64_t *sent;   /* P x P: [from * P + to] */
    int64_t *wild;   /* per receiver: receives from MPI_ANY_SOURCE */
    /* message sizes at the loop's iteration iter[depth]: bytes sent minus
     * received [from * P + to], bytes offered by wildcard receives per
     * receiver; fb: whether sizes follow the index */
    int64_t *bytes, *wbytes;
    follow fb;
    /* tags alike, as sums of tag_hash (a multiset of tags as one number):
     * sent minus received [from * P + to], of wildcard receives per
     * receiver; anytag: the receiver has an MPI_ANY_TAG receive, which
     * takes any of them; ft: whether tags follow the index */
    uint64_t *tags, *wtags;
    unsigned char *anytag;
    follow ft;
    int ok;
    int rerun; /* the loop is inside another of 2 or more iterations: it runs more than once */
    /* loops inside whose peers follow their iteration are walked iteration
     * by iteration (iter[depth], enumd[depth]) while budget lasts */
    int64_t iter[64];
    int enumd[64];
    int64_t budget;
} balance;

/* one message of the loop: from sends to to in world ranks; a wildcard
 * receive when from is PSK_ANY_SOURCE */
static void count_send(balance *b, const gen *g, int32_t me, int64_t comm, int64_t peer, int64_t mult)
{
    if (peer == PSK_PROC_NULL)
        return;
    int64_t to = gen_to_world(g, me, comm, peer);
    if (to < 0 || to >= g->P)
        b->ok = 0;
    else
        b->sent[(size_t)me * (size_t)g->P + (size_t)to] += mult;
}

static void count_recv(balance *b, const gen *g, int32_t me, int64_t comm, int64_t peer, int64_t mult)
{
    if (peer == PSK_PROC_NULL)
        return;
    if (peer == PSK_ANY_SOURCE) {
        b->wild[me] += mult;
        return;
    }
    int64_t from = gen_to_world(g, me, comm, peer);
    if (from < 0 || from >= g->P)
        b->ok = 0;
    else
        b->sent[(size_t)from * (size_t)g->P + (size_t)me] -= mult;
}

/* v bytes sent (v > 0) or received (v < 0) by me from or to peer */
static void count_bytes(balance *b, const gen *g, int32_t me, int64_t comm, int64_t peer, int sent, int64_t v)
{
    if (peer == PSK_PROC_NULL)
        return;
    if (!sent && peer == PSK_ANY_SOURCE) {
        b->wbytes[me] += v;
        return;
    }
    int64_t w = gen_to_world(g, me, comm, peer);
    if (w >= 0 && w < g->P)
        b->bytes[sent ? (size_t)me * (size_t)g->P + (size_t)w : (size_t)w * (size_t)g->P + (size_t)me] +=
            sent ? v : -v;
}


/* the execution of node id at the walk's iterations: the indices of the
 * loops around it in mixed radix, as the skeleton finds it (T<id>_k);
 * 0 where the walk does not know them (an inner loop counted, not walked;
 * or the loop checked runs more than once, its other runs not walked) */
static int exec_index(const gen *g, int32_t id, const balance *b, int64_t *k)
{
    int32_t chain[64];
    int D = gen_loops_around(g, id, chain);
    *k = 0;
    for (int d = 0; d < D; d++) {
        int64_t i = 0;
        if (d < b->depth) {
            if (b->rerun)
                return 0;
        } else if (d == b->depth || b->enumd[d]) {
            i = b->iter[d];
        } else {
            return 0;
        }
        *k = *k * psk_folded_node(g->f, chain[d])->count + i;
    }
    return 1;
}

/* field f of node id on its j-th rank at the walk's iterations; whether
 * it follows the loop's index goes into fl */
static int64_t walked_value(const gen *g, int32_t id, int f, int j, balance *b, follow *fl)
{
    const psk_fparam *p = gen_param_of(g, id, f);
    int64_t k;
    if (!p)
        return g->node[id].first[j].v[f];
    if (p->kind > PSK_VARY_ITER && b->depth < 64 && exec_index(g, id, b, &k)) {
        /* a table by execution (iterations that differ): followed
         * iteration by iteration at the executions the skeleton reads */
        fl->vary = fl->nonaffine = 1;
        return gen_value_at(g, id, f, j, b->iter, k);
    }
    if (p->kind > PSK_VARY_ITER || (p->depth == b->depth && b->depth >= 64)) {
        fl->vary = fl->unknown = 1; /* by execution: not followed */
        return 0;
    }
    if (p->depth == b->depth) {
        fl->vary = 1;
        fl->nonaffine |= p->kind != PSK_VARY_AFFINE;
    } else if (p->depth > b->depth && (p->depth >= 64 || !b->enumd[p->depth])) {
        fl->unknown = 1; /* an inner loop's index, counted not walked */
        return 0;
    } /* an outer loop's index (iter 0 there): the same in every iteration of this one */
    return gen_value_at(g, id, f, j, b->iter, 0);
}

/* the bytes of count field cf (dtsize sf) of node id on its j-th rank at
 * the walk's iterations */
static int64_t msg_bytes(const gen *g, int32_t id, int cf, int sf, int j, balance *b)
{
    const psk_event *e = &g->node[id].first[j];
    int64_t dts = PSK_HAS(e, sf) ? e->v[sf] : 1;
    if (!PSK_HAS(e, cf))
        return 0;
    return walked_value(g, id, cf, j, b, &b->fb) * dts;
}

/* a tag as a number whose sums tell multisets of tags apart (but for a
 * 2^-64 chance): splitmix64's finaliser */
static uint64_t tag_hash(int64_t t)
{
    uint64_t z = (uint64_t)t + 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* the tag (field f) of node id's message on its j-th rank at the walk's
 * iterations, sent (sent) to or received from peer, as count_bytes does
 * for its size. A tag tabled by execution is not followed (unknown), and
 * unlike a size it does not by itself keep the loop from being scaled: a
 * tag drawn per iteration of an outer loop, + 1 for the second neighbour
 * (bench/irregular.c's Irecv/Isend pairs), is tabled so, and such loops
 * balance. */
static void count_tag(balance *b, const gen *g, int32_t id, int f, int j, int64_t comm, int64_t peer, int sent,
                      int64_t mult)
{
    int32_t me = g->node[id].ranks[j];
    const psk_fparam *p = gen_param_of(g, id, f);
    if (peer == PSK_PROC_NULL || !PSK_HAS(&g->node[id].first[j], f))
        return;
    int64_t k;
    if (p && p->kind > PSK_VARY_ITER && !(b->depth < 64 && exec_index(g, id, b, &k))) {
        b->ft.unknown = b->ft.exec = 1;
        return;
    }
    int64_t t = walked_value(g, id, f, j, b, &b->ft);
    if (!sent && t == PSK_ANY_TAG) {
        b->anytag[me] = 1;
        return;
    }
    uint64_t h = (uint64_t)mult * tag_hash(t);
    if (!sent && peer == PSK_ANY_SOURCE) {
        b->wtags[me] += h;
        return;
    }
    int64_t w = gen_to_world(g, me, comm, peer);
    if (w >= 0 && w < g->P) {
        if (sent)
            b->tags[(size_t)me * (size_t)g->P + (size_t)w] += h;
        else
            b->tags[(size_t)w * (size_t)g->P + (size_t)me] -= h;
    }
}

/* MPI_Start / MPI_Startall of persistent request q: the message its init
 * call described */
static void count_start(balance *b, const gen *g, int32_t me, int64_t q, int64_t mult)
{
    if (q < 0 || q >= g->npreqs[me] || !g->preqs[me][q].kind || g->preqs[me][q].ambiguous) {
        b->ok = 0;
        return;
    }
    const preq *p = &g->preqs[me][q];
    if (p->kind == 1)
        count_send(b, g, me, p->comm, p->peer, mult);
    else
        count_recv(b, g, me, p->comm, p->peer, mult);
}

/* a collective whose every participant's communicator has all its members
 * (in world ranks, as recorded) among the node's ranks; a subset making the
 * call here does the others' part elsewhere, and scaling this loop alone
 * would leave them waiting */
static int coll_complete(const gen *g, const gnode *n)
{
    unsigned char *in = calloc((size_t)g->P, 1);
    if (!in)
        return 0;
    for (int j = 0; j < n->np; j++)
        if (n->ranks[j] >= 0 && n->ranks[j] < g->P)
            in[n->ranks[j]] = 1;
    int ok = 1;
    for (int j = 0; j < n->np && ok; j++) {
        const psk_event *e = &n->first[j];
        int64_t comm = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
        int32_t me = n->ranks[j];
        if (comm == 0) {
            ok = n->np == g->P;
        } else if (comm != 1) {
            const cmembers *m = comm > 0 && comm < g->ncmem[me] ? &g->cmem[me][comm] : NULL;
            if (!m || !m->known || m->ambiguous)
                ok = 0;
            for (uint32_t k = 0; ok && k < m->n; k++)
                ok = m->w[k] >= 0 && m->w[k] < g->P && in[m->w[k]];
        }
    }
    free(in);
    return ok;
}

/* whether a peer of some event inside node id follows the index of the
 * loop at depth d */
static int peers_follow(const gen *g, int32_t id, int d)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    if (x->kind == PSK_FNODE_SYM) {
        const psk_fparam *p = gen_param_of(g, id, PSK_F_PEER), *q = gen_param_of(g, id, PSK_F_RPEER);
        return (p && p->depth == d) || (q && q->depth == d);
    }
    const int32_t *kid = psk_folded_children(g->f, id);
    for (int32_t i = 0; i < x->nchild; i++)
        if (peers_follow(g, kid[i], d))
            return 1;
    return 0;
}

/* a varying peer the walk can evaluate: a function of the index of a loop
 * inside the one checked, walked iteration by iteration */
static int peer_walked(const balance *b, const psk_fparam *p)
{
    return !p || (p->kind <= PSK_VARY_ITER && p->depth > b->depth && p->depth < 64 && b->enumd[p->depth]);
}


/* rank j's peer (field f) of node id at the walk's iterations */
static int64_t peer_at(const gen *g, int32_t id, int f, int j, const balance *b)
{
    return gen_value_at(g, id, f, j, b->iter, 0);
}

/* a probe, or a receive of the message a probe matched (a run of polls
 * of Iprobe is not: tally takes it as a poll) */
static int probes(unsigned fn)
{
    switch (psk_fn_op(fn)) {
    case PSK_FNOP_PROBE: case PSK_FNOP_MPROBE: case PSK_FNOP_IPROBE: case PSK_FNOP_IMPROBE:
    case PSK_FNOP_MRECV: case PSK_FNOP_IMRECV:
        return !psk_fn_polled(fn);
    default:
        return 0;
    }
}

static void tally(gen *g, int32_t id, int64_t mult, balance *b)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    if (x->kind == PSK_FNODE_LOOP && x->depth < 64 && x->count * x->span <= b->budget &&
        peers_follow(g, id, x->depth)) {
        /* peers follow this loop's index: iteration by iteration */
        const int32_t *kid = psk_folded_children(g->f, id);
        b->budget -= x->count * x->span;
        b->enumd[x->depth] = 1;
        for (int64_t it = 0; it < x->count && b->ok; it++) {
            b->iter[x->depth] = it;
            for (int32_t i = 0; i < x->nchild && b->ok; i++)
                tally(g, kid[i], mult, b);
        }
        b->enumd[x->depth] = 0;
        return;
    }
    if (x->kind == PSK_FNODE_LOOP || x->kind == PSK_FNODE_ROOT) {
        const int32_t *kid = psk_folded_children(g->f, id);
        for (int32_t i = 0; i < x->nchild && b->ok; i++)
            tally(g, kid[i], mult * (x->kind == PSK_FNODE_LOOP ? x->count : 1), b);
        return;
    }
    const gnode *n = &g->node[id];
    if (!n->seen)
        return;
    unsigned fn = n->first[0].fn;
    int cls = psk_fn_class(fn), op = psk_fn_op(fn);
    if ((cls == PSK_CLASS_COLL || cls == PSK_CLASS_ICOLL || cls == PSK_CLASS_COMM) && !coll_complete(g, n)) {
        b->ok = 0; /* a collective without every member of its communicator */
        return;
    }
    for (int j = 1; n->collpre && j < n->np; j++)
        if (n->collpre[j] != n->collpre[0]) {
            /* the ranks' calls merged here are different instances of
             * the collective (one rank's loop a call ahead of another's):
             * running fewer iterations pairs calls of other kinds */
            b->ok = 0;
            return;
        }
    if (probes(fn)) {
        b->ok = 0; /* probes: not followed */
        return;
    }
    if (n->polled) {
        /* a poll: how often it ran was the time some message took, which
         * running fewer iterations does not scale */
        b->ok = 0;
        return;
    }
    const psk_fparam *rq = gen_param_of(g, id, PSK_F_REQ);
    if (n->reqsbig || (rq && (rq->depth == b->depth || rq->kind == PSK_VARY_EXEC || rq->kind == PSK_VARY_RANKEXEC))) {
        /* requests that change with the loop's own iteration: made in one
         * iteration and completed in another (or before or after the loop) */
        b->ok = 0;
        return;
    }
    if (!peer_walked(b, gen_param_of(g, id, PSK_F_PEER)) || !peer_walked(b, gen_param_of(g, id, PSK_F_RPEER)) ||
        ((op == PSK_FNOP_START || op == PSK_FNOP_STARTALL) && gen_param_of(g, id, PSK_F_REQ))) {
        b->ok = 0; /* peers that change with this loop's (or an outer) iteration: balance not followed */
        return;
    }
    /* what a loop makes must outlive it, or be freed in it: a loop that
     * leaves objects behind (or frees earlier ones) runs in full */
    if ((cls == PSK_CLASS_PERSIST && op != PSK_FNOP_START && op != PSK_FNOP_STARTALL) ||
        (cls == PSK_CLASS_COMM && PSK_HAS(&n->first[0], PSK_F_NEWID)))
        b->objs += mult;
    if (psk_fn_frees(fn))
        b->objs -= mult;
    if (op == PSK_FNOP_FREE) {
        int64_t q = n->first[0].v[PSK_F_REQ];
        int32_t me = n->ranks[0];
        if (q >= 0 && q < g->npreqs[me] && g->preqs[me][q].kind)
            b->objs -= mult;
    }
    for (int j = 0; j < n->np; j++) {
        const psk_event *e = &n->first[j];
        int32_t me = n->ranks[j];
        int64_t comm = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
        if (op == PSK_FNOP_START || op == PSK_FNOP_STARTALL)
            b->fb.unknown = b->ft.unknown = 1; /* the size and tag its init call gave: not followed */
        if (op == PSK_FNOP_START)
            count_start(b, g, me, e->v[PSK_F_REQ], mult);
        else if (op == PSK_FNOP_STARTALL)
            for (uint32_t k = 0; k < PSK_ARRN(e, PSK_F_REQS); k++)
                count_start(b, g, me, PSK_ARR(e, PSK_F_REQS)[k], mult);
        /* Send_init, Recv_init, ...: no message until started */
        int64_t peer = PSK_HAS(e, PSK_F_PEER) ? peer_at(g, id, PSK_F_PEER, j, b) : 0;
        int64_t rpeer = PSK_HAS(e, PSK_F_RPEER) ? peer_at(g, id, PSK_F_RPEER, j, b) : 0;
        if (peer == INT64_MIN || rpeer == INT64_MIN) {
            b->ok = 0;
            return;
        }
        if (gen_sends(fn)) {
            count_send(b, g, me, comm, peer, mult);
            count_bytes(b, g, me, comm, peer, 1, mult * msg_bytes(g, id, PSK_F_COUNT, PSK_F_DTSIZE, j, b));
            count_tag(b, g, id, PSK_F_TAG, j, comm, peer, 1, mult);
        }
        if (gen_receives(fn)) {
            count_recv(b, g, me, comm, peer, mult);
            count_bytes(b, g, me, comm, peer, 0, mult * msg_bytes(g, id, PSK_F_COUNT, PSK_F_DTSIZE, j, b));
            count_tag(b, g, id, PSK_F_TAG, j, comm, peer, 0, mult);
        } else if (op == PSK_FNOP_SENDRECV || op == PSK_FNOP_SENDRECV_REPLACE) {
            int cf = PSK_HAS(e, PSK_F_RCOUNT) ? PSK_F_RCOUNT : PSK_F_COUNT;
            int sf = cf == PSK_F_RCOUNT && PSK_HAS(e, PSK_F_RDTSIZE) ? PSK_F_RDTSIZE : PSK_F_DTSIZE;
            count_recv(b, g, me, comm, rpeer, mult);
            count_bytes(b, g, me, comm, rpeer, 0, mult * msg_bytes(g, id, cf, sf, j, b));
            count_tag(b, g, id, PSK_F_RTAG, j, comm, rpeer, 0, mult);
        }
    }
}

/* ---- requests in a loop: every request an iteration completes must be
 * made (or started) in that iteration, else running fewer iterations
 * leaves requests made before the loop active (a persistent one then
 * started again) ---- */

typedef struct idset {
    int64_t *lo, *hi; /* ranges of ids */
    int n, cap;
} idset;

static int idset_add(idset *s, int64_t lo, int64_t hi)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        int64_t *a = realloc(s->lo, (size_t)cap * sizeof *a), *b;
        if (!a)
            return -1;
        s->lo = a;
        b = realloc(s->hi, (size_t)cap * sizeof *b);
        if (!b)
            return -1;
        s->hi = b, s->cap = cap;
    }
    s->lo[s->n] = lo, s->hi[s->n] = hi, s->n++;
    return 0;
}

static int idset_has(const idset *s, int64_t v)
{
    for (int i = 0; i < s->n; i++)
        if (v >= s->lo[i] && v <= s->hi[i])
            return 1;
    return 0;
}

/* the request ids field f (PSK_F_REQ or PSK_F_REQS) of node id names on
 * its j-th rank over all executions, as ranges: fn(arg, j, lo, hi); 0, or
 * the first non-zero fn returned */
static int node_ids(const gen *g, int32_t id, int f, int (*fn)(void *, int, int64_t, int64_t), void *arg)
{
    const gnode *n = &g->node[id];
    int rc = 0;
    for (int j = 0; j < n->np && !rc; j++) {
        if (f == PSK_F_REQ) {
            const psk_fparam *p = gen_param_of(g, id, PSK_F_REQ);
            rc = p ? fn(arg, j, p->lo, p->hi) : fn(arg, j, n->first[j].v[PSK_F_REQ], n->first[j].v[PSK_F_REQ]);
            continue;
        }
        if (n->xr && !n->reqsbig) {
            for (uint64_t at = 0; at < n->nxr[j] && !rc; at += 1 + (uint64_t)n->xr[j][at])
                for (int64_t k = 0; k < n->xr[j][at] && !rc; k++)
                    rc = fn(arg, j, gen_req_id(n->xr[j][at + 1 + k]), gen_req_id(n->xr[j][at + 1 + k]));
            continue;
        }
        for (uint32_t k = 0; k < PSK_ARRN(&n->first[j], PSK_F_REQS) && !rc; k++)
            rc = fn(arg, j, gen_req_id(PSK_ARR(&n->first[j], PSK_F_REQS)[k]),
                    gen_req_id(PSK_ARR(&n->first[j], PSK_F_REQS)[k]));
    }
    return rc;
}

typedef struct reqwalk {
    const gen *g;
    int32_t id;
    idset *made; /* per world rank */
    int ok;
} reqwalk;

static int add_made(void *arg, int j, int64_t lo, int64_t hi)
{
    reqwalk *w = arg;
    return lo >= 0 && idset_add(&w->made[w->g->node[w->id].ranks[j]], lo, hi);
}

static int check_done(void *arg, int j, int64_t lo, int64_t hi)
{
    reqwalk *w = arg;
    if (hi < 0)
        return 0; /* MPI_REQUEST_NULL */
    if (hi - lo > 4096)
        return w->ok = 0, 1;
    for (int64_t q = lo < 0 ? 0 : lo; q <= hi; q++)
        if (!idset_has(&w->made[w->g->node[w->id].ranks[j]], q))
            return w->ok = 0, 1;
    return 0;
}

/* pass 0: collect what the subtree of node id makes or starts; pass 1:
 * check what it completes */
static void walk_reqs(reqwalk *w, int32_t id, int pass)
{
    const gen *g = w->g;
    const psk_fnode *x = psk_folded_node(g->f, id);
    if (x->kind != PSK_FNODE_SYM) {
        const int32_t *kid = psk_folded_children(g->f, id);
        for (int32_t i = 0; i < x->nchild && w->ok; i++)
            walk_reqs(w, kid[i], pass);
        return;
    }
    const gnode *n = &g->node[id];
    if (!n->seen)
        return;
    unsigned fn = n->first[0].fn;
    int op = psk_fn_op(fn), ends = op == PSK_FNOP_FREE || op == PSK_FNOP_CANCEL;
    int wait = psk_fn_class(fn) == PSK_CLASS_WAIT && !ends;
    w->id = id;
    if (pass == 0 && PSK_HAS(&n->first[0], PSK_F_REQ) && !wait && !ends) {
        if (node_ids(g, id, PSK_F_REQ, add_made, w))
            w->ok = 0;
    } else if (pass == 0 && op == PSK_FNOP_STARTALL) {
        if (node_ids(g, id, PSK_F_REQS, add_made, w))
            w->ok = 0;
    } else if (pass == 1 && wait) {
        node_ids(g, id, PSK_HAS(&n->first[0], PSK_F_REQ) ? PSK_F_REQ : PSK_F_REQS, check_done, w);
    }
}

static int requests_closed(const gen *g, int32_t id)
{
    reqwalk w = {.g = g, .ok = 1};
    w.made = calloc((size_t)(g->P ? g->P : 1), sizeof *w.made);
    if (!w.made)
        return 0;
    walk_reqs(&w, id, 0);
    if (w.ok)
        walk_reqs(&w, id, 1);
    for (int r = 0; r < g->P; r++)
        free(w.made[r].lo), free(w.made[r].hi);
    free(w.made);
    return w.ok;
}

/* Each iteration must also balance in bytes where a message size follows
 * the loop's index: else a rank's loop receives in iteration i what its
 * peer sent in iteration i + 1 (a merged loop rotated against its peer's,
 * its first receive before the loop and its peer's last send after it),
 * which counts balance but running fewer iterations pairs a receive with
 * a message of another iteration's size (MPI_ERR_TRUNCATE). Likewise in
 * tags where a tag follows the index: there the receive waits for a tag
 * the fewer iterations never send (a hang) or takes another message.
 * Checked at iterations 0 and 1 where sizes and tags are affine in the
 * index, else at each. */
int gen_closed_loop(gen *g, int32_t id)
{
    return gen_closed_group(g, &id, 1);
}

int gen_closed_group(gen *g, const int32_t *ids, int n)
{
    int32_t id = ids[0];
    const psk_fnode *x = psk_folded_node(g->f, id);
    balance b = {.P = g->P, .ok = 1, .depth = x->depth, .budget = 1 << 20};
    int32_t chain[64];
    for (int d = gen_loops_around(g, id, chain) - 1; d >= 0; d--)
        b.rerun |= psk_folded_node(g->f, chain[d])->count > 1;
    size_t PP = (size_t)g->P * (size_t)g->P;
    b.sent = calloc(PP, sizeof *b.sent);
    b.wild = calloc((size_t)g->P, sizeof *b.wild);
    b.bytes = calloc(PP, sizeof *b.bytes);
    b.wbytes = calloc((size_t)g->P, sizeof *b.wbytes);
    b.tags = calloc(PP, sizeof *b.tags);
    b.wtags = calloc((size_t)g->P, sizeof *b.wtags);
    b.anytag = calloc((size_t)g->P, 1);
    if (!b.sent || !b.wild || !b.bytes || !b.wbytes || !b.tags || !b.wtags || !b.anytag) {
        free(b.sent), free(b.wild), free(b.bytes), free(b.wbytes), free(b.tags), free(b.wtags), free(b.anytag);
        return 0;
    }
    int64_t iters = 1;
    for (int64_t it = 0; it < iters && b.ok; it++) {
        memset(b.sent, 0, PP * sizeof *b.sent), memset(b.bytes, 0, PP * sizeof *b.bytes);
        memset(b.wild, 0, (size_t)g->P * sizeof *b.wild), memset(b.wbytes, 0, (size_t)g->P * sizeof *b.wbytes);
        memset(b.tags, 0, PP * sizeof *b.tags), memset(b.wtags, 0, (size_t)g->P * sizeof *b.wtags);
        memset(b.anytag, 0, (size_t)g->P);
        b.objs = 0;
        if (b.depth >= 0 && b.depth < 64)
            b.iter[b.depth] = it;
        for (int k = 0; k < n && b.ok; k++) { /* every loop of the group at this iteration */
            const psk_fnode *y = psk_folded_node(g->f, ids[k]);
            const int32_t *kid = psk_folded_children(g->f, ids[k]);
            for (int32_t i = 0; i < y->nchild && b.ok; i++)
                tally(g, kid[i], 1, &b);
        }
        /* what each rank got from specific senders, the rest from wildcards
         * (of any tag where it has an MPI_ANY_TAG receive) */
        for (int r = 0; r < g->P && b.ok; r++) {
            int64_t owed = 0, owedb = 0;
            uint64_t owedt = 0;
            int tagged = b.ft.vary && !b.anytag[r];
            for (int s = 0; s < g->P; s++) {
                size_t sr = (size_t)s * (size_t)g->P + (size_t)r;
                int64_t d = b.sent[sr];
                if (d < 0)
                    b.ok = 0;
                owed += d;
                owedb += b.bytes[sr];
                owedt += b.tags[sr];
                if (b.fb.vary && !b.wbytes[r] && b.bytes[sr])
                    b.ok = 0;
                if (tagged && !b.wild[r] && b.tags[sr])
                    b.ok = 0;
            }
            if (owed != b.wild[r] || (b.fb.vary && owedb != b.wbytes[r]) || (tagged && owedt != b.wtags[r]))
                b.ok = 0;
        }
        if (b.objs || (b.fb.vary && b.fb.unknown) || (b.ft.vary && b.ft.unknown))
            b.ok = 0;
        /* tags by execution are not followed per iteration: the loop's
         * ranks must at least start it with no message between them in
         * flight, as a loop merged a call behind its peer's does not */
        for (int k = 0; k < n && b.ft.exec; k++)
            if (g->entry[ids[k]] != 0)
                b.ok = 0;
        if (it == 0 && (b.fb.vary || b.ft.vary)) {
            int nonaffine = (b.fb.vary && b.fb.nonaffine) || (b.ft.vary && b.ft.nonaffine);
            iters = nonaffine ? x->count : x->count < 2 ? x->count : 2;
        }
        if (iters > 4096)
            b.ok = 0;
    }
    free(b.sent), free(b.wild), free(b.bytes), free(b.wbytes), free(b.tags), free(b.wtags), free(b.anytag);
    for (int k = 0; k < n && b.ok; k++)
        b.ok = requests_closed(g, ids[k]);
    return b.ok;
}
