/* The folded program of perfskel sim --folded (sim_fprog.h): built in one
 * walk of the loop tree over the merged events, replayed by one cursor per
 * rank that walks the tree again without expanding it into a trace.
 *
 * Each distinct parameter set (an event without its times) is kept once,
 * as int64 values in one pool, found again through a hash table. An event
 * of the tree keeps, per rank taking part, the parameter set of its first
 * execution; only when an execution differs does it get a table, one entry
 * per execution (a mixed-radix number of the iterations of the loops
 * around it). A wildcard MPI_Irecv is kept with the source its completing
 * call recorded, as the replay of a trace directory finds it by reading
 * ahead. The compute gaps are not kept: psk_fgaps reads each rank's
 * recorded gaps from the merged trace as its cursor needs them, in the
 * same order (a rank's events in the tree are its events in merged order).
 *
 * The loops whose iterations may be skipped (candidates) are found top
 * down: a loop every rank takes part in, or consecutive loops of as many
 * iterations whose ranks are apart and together all (each rank runs its
 * own), whose iterations repeat with a period of L <= 64 in everything but
 * their tags, and whose tags either repeat too or follow the index
 * (t(i + L) = t(i) + D, one D for the loop, never a value a repeating tag
 * takes): then iterations i and i + L match their messages alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psk_mem.h"
#include "psk_varint.h"
#include "sim_fprog.h"

#define NONE UINT32_MAX
#define LMAX 64 /* longest period of a candidate's iterations */

typedef struct slot {
    uint32_t first;  /* parameter set of every execution, unless idx */
    uint32_t *idx;   /* per execution, or NULL */
} slot;

typedef struct symd {
    const int32_t *ranks; /* of its class, ascending */
    int nranks;
    int nidx;             /* slots with a table */
    slot *slots;          /* per taking part rank */
    uint64_t execs;
    uint32_t *pre;        /* per 64-rank word of the node's rank set: its ranks before it */
    /* the pattern, when every rank passes the same parameter set in every
     * execution but for scalars that are the rank plus a constant (a
     * neighbour): that set, with those scalars less the rank (the bits of
     * rel), so that a cursor needs nothing per rank; else NONE */
    uint32_t uni;
    uint32_t rel;
} symd;

/* building: a tree event's last execution as its merged event gave it,
 * when every rank's parameters follow from that (no table pattern, no
 * wildcard or poll to complete): if the next execution's is the same and
 * no communicator call came between, each rank passes what it passed then */
typedef struct lastx {
    int valid;
    uint64_t commgen;
    uint8_t kind[PSK_F_NFIELDS];
    int64_t c[PSK_F_FIRST_ARRAY];
    int64_t *v;           /* rank 0's set (flatten), n values */
    int64_t n, cap;
} lastx;

/* more of the building's state */
struct bstate {
    uint64_t *execno;     /* per node: executions seen */
    lastx *last;          /* per node */
    uint64_t commgen;     /* communicator and group calls so far */
    int64_t npending;     /* wildcard Irecvs waiting for their sources, all ranks */
    psk_fgaps *gaps;      /* filled in the same pass, or NULL */
};

typedef struct pset {
    uint32_t fn, fields;
    uint64_t off;         /* in vals: scalars in field order, then per array n and its values */
} pset;

/* a candidate loop (the first of its group): its iterations repeat every
 * period; the sorted values its tags that follow the index take */
typedef struct cinfo {
    int64_t period;
    int64_t *lin;
    size_t nlin;
} cinfo;

typedef struct pending {
    int64_t req;
    int32_t node;
    int j;
    uint64_t exec;
    psk_event ev;
} pending;

struct psk_fprog {
    const psk_folded *f;
    int P, W;             /* ranks, 64-bit words of a rank set */
    int32_t nnodes;
    symd *sd;             /* per node (SYM nodes only) */
    uint64_t *rset;       /* per node: the ranks taking part in it, W words */
    uint8_t *cand;        /* per node: a loop that can be skipped */
    int32_t *grp;         /* per node: a candidate's group's first loop, else -1 */
    int32_t *cof;         /* per SYM node: the candidate (group's first loop) it is in, or -1 */
    uint64_t *inner;      /* per SYM node in a candidate: its executions per iteration */
    uint64_t *nexec;      /* per node: executions */
    cinfo *ci;            /* per node: for the first loop of each candidate */
    int64_t maxperiod;
    int ncand;
    int no_poll_loops;    /* loops with runs of polls are not candidates */
    void (*progress)(void *arg, uint64_t done, uint64_t total);
    void *progress_arg;
    uint64_t length;      /* merged events, for progress */
    uint32_t *keyid;      /* per parameter set: the set without its tags */
    int64_t *itags;       /* tags of persistent requests' inits (MPI_Send_init, ...) */
    size_t nitags;
    int64_t capitags;
    uint64_t poll_calls;  /* calls in runs of polls beyond one per run */
    int64_t *vals;
    uint64_t nvals;
    int64_t capvals;
    pset *set;
    uint32_t nset;
    int64_t capset;
    uint32_t *hash;       /* open addressing, ids + 1, 0 empty */
    uint32_t hcap;
    /* building */
    psk_mcursor *mc;
    struct bstate *bs;
    pending **pend;       /* per rank */
    int *npend;
    int64_t *cappend;
    int64_t *scratch, capscratch;
    unsigned irecv;       /* MPI_Irecv's function id, and MPI_Mrecv's and MPI_Imrecv's */
    unsigned mrecv, imrecv;
    int rc;
    char *err;
    size_t errcap;
};

/* ---- parameter sets ---- */

/* ev's values (not its times) into p->scratch; how many */
static int64_t flatten(psk_fprog *p, const psk_event *ev)
{
    size_t need = PSK_F_FIRST_ARRAY + 1;
    for (int k = 0; k < PSK_F_NFIELDS - PSK_F_FIRST_ARRAY; k++)
        if ((ev->fields >> (PSK_F_FIRST_ARRAY + k)) & 1u)
            need += 1 + (size_t)ev->n[k] * (PSK_F_FIRST_ARRAY + k == PSK_F_STATUSES ? 3 : 1);
    if (psk_grow((void **)&p->scratch, &p->capscratch, (int64_t)need - 1, sizeof *p->scratch))
        return -1;
    int64_t n = 0;
    for (uint32_t f = ev->fields & ((1u << PSK_F_FIRST_ARRAY) - 1u); f; f &= f - 1)
        p->scratch[n++] = ev->v[__builtin_ctz(f)];
    for (uint32_t f = ev->fields >> PSK_F_FIRST_ARRAY; f; f &= f - 1) {
        int k = __builtin_ctz(f);
        size_t nv = (size_t)ev->n[k] * (PSK_F_FIRST_ARRAY + k == PSK_F_STATUSES ? 3 : 1);
        p->scratch[n++] = ev->n[k];
        if (nv)
            memcpy(p->scratch + n, ev->arr[k], nv * sizeof *p->scratch);
        n += (int64_t)nv;
    }
    return n;
}

static uint64_t hash_of(uint32_t fn, const int64_t *v, int64_t n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ fn;
    for (int64_t i = 0; i < n; i++)
        h = (h ^ (uint64_t)v[i]) * 0x100000001b3ull, h ^= h >> 29;
    return h;
}

static uint64_t set_len(const psk_fprog *p, uint32_t id)
{
    uint64_t end = id + 1 < p->nset ? p->set[id + 1].off : p->nvals;
    return end - p->set[id].off;
}

static int rehash(psk_fprog *p)
{
    uint32_t cap = p->hcap ? 2 * p->hcap : 1024;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h)
        return -1;
    for (uint32_t id = 0; id < p->nset; id++) {
        uint64_t x = hash_of(p->set[id].fn, p->vals + p->set[id].off, (int64_t)set_len(p, id));
        uint32_t i = (uint32_t)x & (cap - 1);
        while (h[i])
            i = (i + 1) & (cap - 1);
        h[i] = id + 1;
    }
    free(p->hash);
    p->hash = h, p->hcap = cap;
    return 0;
}

/* the id of ev's parameter set, added if new; NONE if memory ran out */
static uint32_t intern(psk_fprog *p, const psk_event *ev)
{
    int64_t n = flatten(p, ev);
    if (n < 0 || (2 * (p->nset + 1) > p->hcap && rehash(p)))
        return NONE;
    uint64_t x = hash_of(ev->fn, p->scratch, n);
    uint32_t i = (uint32_t)x & (p->hcap - 1);
    for (; p->hash[i]; i = (i + 1) & (p->hcap - 1)) {
        uint32_t id = p->hash[i] - 1;
        if (p->set[id].fn == ev->fn && set_len(p, id) == (uint64_t)n &&
            (!n || !memcmp(p->vals + p->set[id].off, p->scratch, (size_t)n * sizeof *p->scratch)))
            return id;
    }
    if (p->nset == NONE - 1 || psk_grow((void **)&p->set, &p->capset, p->nset, sizeof *p->set) ||
        (n && psk_grow((void **)&p->vals, &p->capvals, (int64_t)(p->nvals + (uint64_t)n) - 1, sizeof *p->vals)))
        return NONE;
    if (n) /* an event without fields (MPI_Finalize) may be the first */
        memcpy(p->vals + p->nvals, p->scratch, (size_t)n * sizeof *p->scratch);
    p->set[p->nset] = (pset){.fn = ev->fn, .fields = ev->fields, .off = p->nvals};
    p->nvals += (uint64_t)n;
    p->hash[i] = p->nset + 1;
    return p->nset++;
}

/* the parameter set id as an event (arrays point into the pool) */
static void materialize(const psk_fprog *p, uint32_t id, psk_event *ev)
{
    const pset *s = &p->set[id];
    const int64_t *v = p->vals + s->off;
    ev->fn = s->fn;
    ev->fields = s->fields;
    for (uint32_t f = s->fields & ((1u << PSK_F_FIRST_ARRAY) - 1u); f; f &= f - 1)
        ev->v[__builtin_ctz(f)] = *v++;
    for (uint32_t f = s->fields >> PSK_F_FIRST_ARRAY; f; f &= f - 1) {
        int k = __builtin_ctz(f);
        ev->n[k] = (uint32_t)*v++;
        ev->arr[k] = v;
        v += (size_t)ev->n[k] * (PSK_F_FIRST_ARRAY + k == PSK_F_STATUSES ? 3 : 1);
    }
}

/* ---- building ---- */

static int bfail(psk_fprog *p, int rc, const char *msg)
{
    if (!p->rc) {
        p->rc = rc;
        snprintf(p->err, p->errcap, "%s", msg);
    }
    return rc;
}

/* execution exec of a tree event's slot has parameter set id */
static int assign(psk_fprog *p, symd *d, slot *s, uint64_t exec, uint32_t id)
{
    if (id == NONE)
        return bfail(p, PSK_ENOMEM, "out of memory");
    if (s->first == NONE) {
        s->first = id;
    } else if (s->idx || id != s->first) {
        if (!s->idx) {
            if (!(s->idx = malloc(d->execs * sizeof *s->idx)))
                return bfail(p, PSK_ENOMEM, "out of memory");
            for (uint64_t k = 0; k < d->execs; k++)
                s->idx[k] = s->first;
            d->nidx++;
        }
        s->idx[exec] = id;
    }
    return 0;
}

static int flush(psk_fprog *p, pending *x)
{
    symd *d = &p->sd[x->node];
    return assign(p, d, &d->slots[x->j], x->exec, intern(p, &x->ev));
}

/* rank q's completion event ev: its wildcard Irecvs get their sources */
static int complete(psk_fprog *p, int q, const psk_event *ev)
{
    const int64_t *st = PSK_ARR(ev, PSK_F_STATUSES);
    for (uint32_t k = 0; k < PSK_ARRN(ev, PSK_F_STATUSES); k++) {
        int64_t i = st[3 * k], id = -1;
        if (PSK_HAS(ev, PSK_F_REQ))
            id = ev->v[PSK_F_REQ];
        else if (PSK_HAS(ev, PSK_F_REQS) && i >= 0 && i < (int64_t)PSK_ARRN(ev, PSK_F_REQS))
            id = PSK_ARR(ev, PSK_F_REQS)[i];
        for (int x = 0; x < p->npend[q]; x++)
            if (p->pend[q][x].req == id) {
                pending *w = &p->pend[q][x];
                w->ev.v[PSK_F_PEER] = st[3 * k + 1];
                if (flush(p, w))
                    return p->rc;
                *w = p->pend[q][--p->npend[q]];
                p->bs->npending--;
                break;
            }
    }
    return 0;
}

/* 1 if every rank's parameters in merged event me (execution exec of tree
 * event node) are those of the node's last execution, whose slots are set
 * (then nothing per rank needs doing but copying the tables' entries); 0
 * if not, keeping me as the node's last execution when it can tell next
 * time; -1 if memory ran out. A rank's values follow from the patterns
 * (constants, offsets from its rank in the communicator) and from what its
 * communicators are, which only communicator and group calls change. */
static int same_as_last(psk_fprog *p, int32_t node, const psk_mevent *me, uint64_t exec)
{
    lastx *x = &p->bs->last[node];
    int ok = me->nranks > 0 && !psk_fn_polled(me->fn) && me->fn != p->irecv &&
             !(PSK_HAS(me, PSK_F_STATUSES) && p->bs->npending);
    for (uint32_t fs = me->fields; ok && fs; fs &= fs - 1)
        ok = me->kind[__builtin_ctz(fs)] != PSK_PAT_TABLE;
    if (!ok) {
        x->valid = 0;
        return 0;
    }
    int64_t n = flatten(p, &me->ev[0]);
    if (n < 0)
        return -1;
    if (x->valid && exec > 0 && x->commgen == p->bs->commgen && x->n == n &&
        !memcmp(x->kind, me->kind, sizeof x->kind) && !memcmp(x->c, me->c, sizeof x->c) &&
        (!n || !memcmp(x->v, p->scratch, (size_t)n * sizeof *x->v)))
        return 1;
    if (n && psk_grow((void **)&x->v, &x->cap, n - 1, sizeof *x->v))
        return -1;
    if (n)
        memcpy(x->v, p->scratch, (size_t)n * sizeof *x->v);
    x->n = n;
    memcpy(x->kind, me->kind, sizeof x->kind);
    memcpy(x->c, me->c, sizeof x->c);
    x->commgen = p->bs->commgen;
    x->valid = 1;
    return 0;
}

static int visit(void *arg, int64_t pos, int32_t node, const int64_t *iter, int depth)
{
    (void)iter, (void)depth;
    psk_fprog *p = arg;
    if (p->progress && (pos & 0xffff) == 0)
        p->progress(p->progress_arg, (uint64_t)pos, p->length);
    psk_mevent me;
    int rc = psk_mcursor_next(p->mc, &me);
    symd *d = &p->sd[node];
    /* the executions of one node may differ in their arguments (tags,
     * counts, ...: loop-variant parameters), never in who takes part */
    if (rc || me.nranks != d->nranks || (me.nranks && (me.ranks[0] != d->ranks[0] ||
                                                       me.ranks[me.nranks - 1] != d->ranks[d->nranks - 1])))
        return bfail(p, rc && rc != PSK_EOF ? rc : PSK_EINVAL, "the merged trace does not match its folding");
    if (p->bs->gaps && (rc = psk_fgaps_add(p->bs->gaps, &me)))
        return bfail(p, rc, rc == PSK_ENOMEM ? "out of memory" : psk_fgaps_errmsg(p->bs->gaps));
    uint64_t exec = p->bs->execno[node]++;
    if (psk_fn_class(me.fn) == PSK_CLASS_COMM) /* made, freed, ...: ranks' contexts may change */
        p->bs->commgen++;
    int reuse = same_as_last(p, node, &me, exec);
    if (reuse < 0)
        return bfail(p, PSK_ENOMEM, "out of memory");
    if (reuse) { /* every rank's set is its last execution's */
        for (int j = 0; d->nidx && j < me.nranks; j++)
            if (d->slots[j].idx)
                d->slots[j].idx[exec] = d->slots[j].idx[exec - 1];
        return 0;
    }
    for (int j = 0; j < me.nranks; j++) {
        int q = me.ranks[j];
        const psk_event *ev = &me.ev[j];
        slot *s = &d->slots[j];
        psk_event pl;
        if (psk_fn_polled(ev->fn)) {
            /* a run of polls: the compute it overlapped (counted in its gap,
             * psk_fgaps), then its test; how many polls it made is counted
             * here, so its executions are alike wherever they were but for
             * timing */
            p->poll_calls += ev->v[PSK_F_I1] > 1 ? (uint64_t)(ev->v[PSK_F_I1] - 1) : 0;
            pl = *ev;
            pl.v[PSK_F_I1] = pl.v[PSK_F_I2] = 0;
            ev = &pl;
        }
        if (ev->fn == p->irecv && PSK_HAS(ev, PSK_F_PEER) && ev->v[PSK_F_PEER] == PSK_ANY_SOURCE &&
            PSK_HAS(ev, PSK_F_REQ) && !(ev->fields >> PSK_F_FIRST_ARRAY)) {
            /* a wildcard Irecv waits for its completion's status */
            for (int x = 0; x < p->npend[q]; x++)
                if (p->pend[q][x].req == ev->v[PSK_F_REQ]) { /* never completed: kept as it is */
                    if (flush(p, &p->pend[q][x]))
                        return p->rc;
                    p->pend[q][x] = p->pend[q][--p->npend[q]];
                    p->bs->npending--;
                    break;
                }
            if (psk_grow((void **)&p->pend[q], &p->cappend[q], p->npend[q], sizeof *p->pend[q]))
                return bfail(p, PSK_ENOMEM, "out of memory");
            p->pend[q][p->npend[q]++] =
                (pending){.req = ev->v[PSK_F_REQ], .node = node, .j = j, .exec = exec, .ev = *ev};
            p->bs->npending++;
            continue;
        }
        if (assign(p, d, s, exec, intern(p, ev)))
            return p->rc;
        if (PSK_HAS(ev, PSK_F_STATUSES) && p->npend[q] && complete(p, q, ev))
            return p->rc;
    }
    return 0;
}

/* the slot of rank q in a tree event, or -1 */
static int has_rank(const psk_fprog *p, int32_t node, int q);

/* rank q's slot in tree event node (its rank among the node's ranks), or
 * -1: from the node's rank set and the prefix counts, O(1) */
static int slot_of(const psk_fprog *p, int32_t node, int q)
{
    const symd *d = &p->sd[node];
    if (d->nranks == p->P)
        return q;
    if (q < 0 || q >= p->P || !d->pre || !has_rank(p, node, q))
        return -1;
    uint64_t w = p->rset[(size_t)node * (size_t)p->W + (size_t)(q >> 6)] & ((1ull << (q & 63)) - 1u);
    return (int)d->pre[q >> 6] + __builtin_popcountll(w);
}

static int has_rank(const psk_fprog *p, int32_t node, int q)
{
    return (p->rset[(size_t)node * (size_t)p->W + (size_t)(q >> 6)] >> (q & 63)) & 1u;
}

/* ---- what the cursors read: the rank's slot, or the node's pattern ---- */

/* per SYM node: the prefix counts of its rank set (after summarise) */
static int prefixes(psk_fprog *p)
{
    for (int32_t i = 0; i < p->nnodes; i++) {
        symd *d = &p->sd[i];
        if (!d->slots || d->nranks == p->P)
            continue;
        if (!(d->pre = malloc((size_t)p->W * sizeof *d->pre)))
            return bfail(p, PSK_ENOMEM, "out of memory");
        uint32_t n = 0;
        for (int w = 0; w < p->W; w++) {
            d->pre[w] = n;
            n += (uint32_t)__builtin_popcountll(p->rset[(size_t)i * (size_t)p->W + (size_t)w]);
        }
    }
    return 0;
}

/* node's pattern (symd.uni, .rel) if every rank's executions pass one set
 * and the sets of its ranks differ only in scalars that are constant or
 * the rank plus a constant; arrays must be equal. The values are kept as
 * interned (the per-rank sets stay, for the skip's tag lookups); the
 * cursors then read only the pattern, shared by every rank. */
static int uniform(psk_fprog *p, int32_t node)
{
    symd *d = &p->sd[node];
    d->uni = NONE;
    if (!d->slots || d->nranks < 1 || !d->execs)
        return 0;
    uint32_t base = d->slots[0].first;
    if (base == NONE || d->slots[0].idx)
        return 0;
    const pset *b = &p->set[base];
    uint32_t scal = b->fields & ((1u << PSK_F_FIRST_ARRAY) - 1u);
    int nsc = __builtin_popcount(scal);
    uint64_t len = set_len(p, base);
    const int64_t *bv = p->vals + b->off;
    uint64_t q0 = (uint64_t)d->ranks[0];
    uint32_t can_c = scal, can_r = scal; /* scalars still constant, still rank-relative (bits by position) */
    int fpos[32];
    int k = 0;
    for (uint32_t f = scal; f; f &= f - 1)
        fpos[k++] = __builtin_ctz(f);
    for (int j = 1; j < d->nranks; j++) {
        uint32_t id = d->slots[j].first;
        if (id == NONE || d->slots[j].idx)
            return 0;
        if (id == base)
            continue;
        const pset *x = &p->set[id];
        if (x->fn != b->fn || x->fields != b->fields || set_len(p, id) != len)
            return 0;
        const int64_t *xv = p->vals + x->off;
        if (len > (uint64_t)nsc && memcmp(xv + nsc, bv + nsc, (size_t)(len - (uint64_t)nsc) * sizeof *xv))
            return 0;
        uint64_t dq = (uint64_t)d->ranks[j] - q0;
        for (int i = 0; i < nsc; i++) {
            uint64_t dv = (uint64_t)xv[i] - (uint64_t)bv[i];
            if (dv)
                can_c &= ~(1u << fpos[i]);
            if (dv != dq)
                can_r &= ~(1u << fpos[i]);
        }
        if ((can_c | can_r) != scal)
            return 0;
    }
    uint32_t rel = can_r & ~can_c;
    if (!rel) {
        d->uni = base, d->rel = 0;
        return 0;
    }
    psk_event ev;
    memset(&ev, 0, sizeof ev);
    materialize(p, base, &ev);
    for (uint32_t f = rel; f; f &= f - 1)
        ev.v[__builtin_ctz(f)] = (int64_t)((uint64_t)ev.v[__builtin_ctz(f)] - q0);
    uint32_t id = intern(p, &ev);
    if (id == NONE)
        return bfail(p, PSK_ENOMEM, "out of memory");
    d->uni = id, d->rel = rel;
    return 0;
}

/* rank q's parameters at execution exec of tree event node (slot j, or
 * -1 if the node has a pattern) */
static void node_event(const psk_fprog *p, int32_t node, int j, int q, int64_t exec, psk_event *ev)
{
    const symd *d = &p->sd[node];
    if (d->uni != NONE) {
        materialize(p, d->uni, ev);
        for (uint32_t f = d->rel; f; f &= f - 1)
            ev->v[__builtin_ctz(f)] = (int64_t)((uint64_t)ev->v[__builtin_ctz(f)] + (uint64_t)q);
        return;
    }
    const slot *s = &d->slots[j];
    materialize(p, s->idx ? s->idx[exec] : s->first, ev);
}

/* ---- candidates ---- */

/* the value of scalar field f in parameter set id; 0 if it has none */
static int64_t set_field(const psk_fprog *p, uint32_t id, int f, int *has)
{
    const pset *x = &p->set[id];
    *has = (x->fields >> f) & 1u;
    if (!*has)
        return 0;
    return p->vals[x->off + (uint64_t)__builtin_popcount(x->fields & ((1u << f) - 1u))];
}

/* MPI_Send_init, MPI_Recv_init, ...: the tag they give is used by later
 * MPI_Start calls, so it counts as timing */
static int is_init(unsigned fn)
{
    const char *n = psk_fn_name(fn);
    size_t len = strlen(n);
    return len > 5 && !strcmp(n + len - 5, "_init");
}

/* each parameter set's key: the set with its tags (tag, rtag, the status
 * tag and the statuses' tags) cleared, which the replay's timing follows
 * but for the matching of messages; and the tags persistent inits give */
static int key_sets(psk_fprog *p)
{
    uint32_t n = p->nset;
    int64_t cap = 0, capst = 0;
    int64_t *st = NULL;
    int oom = psk_grow((void **)&p->keyid, &cap, n ? n - 1 : 0, sizeof *p->keyid);
    for (uint32_t id = 0; id < n && !oom; id++) {
        psk_event ev;
        memset(&ev, 0, sizeof ev);
        materialize(p, id, &ev);
        int init = is_init(ev.fn);
        if (init && PSK_HAS(&ev, PSK_F_TAG)) {
            if ((oom = psk_grow((void **)&p->itags, &p->capitags, (int64_t)p->nitags, sizeof *p->itags)))
                break;
            p->itags[p->nitags++] = ev.v[PSK_F_TAG];
        }
        uint32_t nst = PSK_HAS(&ev, PSK_F_STATUSES) ? PSK_ARRN(&ev, PSK_F_STATUSES) : 0;
        uint32_t tagbits = (1u << PSK_F_TAG) | (1u << PSK_F_RTAG) | (1u << PSK_F_ATAG);
        if ((init || !(ev.fields & tagbits)) && !nst) {
            p->keyid[id] = id;
            continue;
        }
        if (!init)
            ev.v[PSK_F_TAG] = ev.v[PSK_F_RTAG] = ev.v[PSK_F_ATAG] = 0;
        if (nst) { /* a copy: the event's arrays are in the pool, which interning may move */
            if ((oom = psk_grow((void **)&st, &capst, 3 * (int64_t)nst - 1, sizeof *st)))
                break;
            memcpy(st, PSK_ARR(&ev, PSK_F_STATUSES), 3 * (size_t)nst * sizeof *st);
            for (uint32_t k = 0; k < nst; k++)
                st[3 * k + 2] = 0;
            PSK_ARR(&ev, PSK_F_STATUSES) = st;
        }
        uint32_t k = intern(p, &ev);
        oom = k == NONE;
        p->keyid[id] = k;
    }
    free(st);
    return oom ? bfail(p, PSK_ENOMEM, "out of memory") : 0;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b, b = t;
    }
    return a;
}

/* the smallest p such that x[i] = x[i + p] for every i (prefix function) */
static int64_t min_period(const int64_t *x, int64_t n, int64_t *pi)
{
    pi[0] = 0;
    for (int64_t i = 1; i < n; i++) {
        int64_t k = pi[i - 1];
        while (k > 0 && x[i] != x[k])
            k = pi[k - 1];
        pi[i] = k + (x[i] == x[k]);
    }
    return n - pi[n - 1];
}

/* a tag value and its step: what it grows by over a period of the loop */
typedef struct tval {
    int64_t v, step;
} tval;

typedef struct ana {
    int pass;            /* 1: the period L; 2: tags against it */
    int64_t C, L;        /* iterations, period */
    int64_t *seq, *pi;   /* C each, once an event's parameters change */
    tval *tv;            /* every value a tag takes in the loop, with its step */
    int64_t ntv, captv;
    int bad;             /* not a candidate (or out of memory: nomem) */
    int nomem;
} ana;

static int cmp_tval(const void *x, const void *y)
{
    const tval *a = x, *b = y;
    return a->v != b->v ? (a->v > b->v) - (a->v < b->v) : (a->step > b->step) - (a->step < b->step);
}

/* sorted, each (value, step) once */
static void compact(ana *a)
{
    if (a->ntv < 2)
        return;
    qsort(a->tv, (size_t)a->ntv, sizeof *a->tv, cmp_tval);
    int64_t k = 0;
    for (int64_t i = 0; i < a->ntv; i++)
        if (!k || a->tv[i].v != a->tv[k - 1].v || a->tv[i].step != a->tv[k - 1].step)
            a->tv[k++] = a->tv[i];
    a->ntv = k;
}

static void push_val(ana *a, int64_t v, int64_t step)
{
    int oom = 0;
    if (a->ntv == a->captv && a->ntv >= 4096) { /* ranks and events repeat values: keep each once */
        compact(a);
        if (a->ntv > a->captv / 2) /* and room for as many again */
            oom = psk_grow((void **)&a->tv, &a->captv, a->captv, sizeof *a->tv);
    }
    if (oom || psk_grow((void **)&a->tv, &a->captv, a->ntv, sizeof *a->tv)) {
        a->bad = a->nomem = 1;
        return;
    }
    a->tv[a->ntv++] = (tval){.v = v, .step = step};
}

static void lcm_into(ana *a, int64_t per)
{
    a->L = a->L / gcd64(a->L, per) * per;
    if (a->L > LMAX)
        a->bad = 1;
}

/* 1 if x[i + L] - x[i] depends on i mod L only (the same for i and i - L) */
static int steps_repeat(const int64_t *x, int64_t C, int64_t L)
{
    for (int64_t i = L; i + L < C; i++)
        if (x[i + L] - x[i] != x[i] - x[i - L])
            return 0;
    return 1;
}

/* one sequence over the candidate's iterations: a set key (f < 0), which
 * must repeat, or a tag, whose steps over a period must */
static void ana_seq(ana *a, const int64_t *x, int f)
{
    int64_t C = a->C, L = a->L, i = 1;
    while (i < C && x[i] == x[0])
        i++;
    if (i == C) { /* the same in every iteration */
        if (a->pass == 2 && f >= 0)
            push_val(a, x[0], 0);
        return;
    }
    if (a->pass == 1 && f < 0) {
        lcm_into(a, min_period(x, C, a->pi));
        return;
    }
    if (a->pass == 1) {
        int64_t q = 1;
        while (q <= LMAX && 2 * q < C && !steps_repeat(x, C, q))
            q++;
        if (q > LMAX || 2 * q >= C)
            a->bad = 1;
        else
            lcm_into(a, q);
        return;
    }
    if (2 * L >= C || !steps_repeat(x, C, L)) {
        a->bad = 1;
        return;
    }
    for (i = 0; i < C; i++) {
        int64_t step = x[i % L + L] - x[i % L];
        if (step || i < L) /* a tag that repeats takes L values at most */
            push_val(a, x[i], step);
    }
}

/* 1 if the replay matches by tag field f of function fn's events: tag and
 * rtag (but a persistent request's init, whose tag is timing), and the
 * status tag of MPI_Mrecv and MPI_Imrecv (which message a matched probe
 * took) */
static int tag_used(const psk_fprog *p, unsigned fn, int f)
{
    if (f == PSK_F_ATAG)
        return fn == p->mrecv || fn == p->imrecv;
    return !is_init(fn);
}

/* SYM node d under a candidate loop of ex executions, inner executions of
 * d per iteration */
static void ana_sym(const psk_fprog *p, ana *a, int32_t node, uint64_t ex, uint64_t inner)
{
    static const int tagf[3] = {PSK_F_TAG, PSK_F_RTAG, PSK_F_ATAG};
    const symd *d = &p->sd[node];
    int has;
    for (int j = 0; j < d->nranks && !a->bad; j++) {
        const slot *s = &d->slots[j];
        if (p->no_poll_loops && psk_fn_polled(p->set[s->idx ? s->idx[0] : s->first].fn)) {
            a->bad = 1;
            return;
        }
        if (!s->idx) {
            for (int t = 0; a->pass == 2 && t < 3; t++) {
                int64_t v = set_field(p, s->first, tagf[t], &has);
                if (has && tag_used(p, p->set[s->first].fn, tagf[t]))
                    push_val(a, v, 0);
            }
            continue;
        }
        if (!a->seq && (!(a->seq = malloc((size_t)a->C * sizeof *a->seq)) ||
                        !(a->pi = malloc((size_t)a->C * sizeof *a->pi)))) {
            a->bad = a->nomem = 1;
            return;
        }
        for (uint64_t e = 0; e < ex && !a->bad; e++)
            for (uint64_t r = 0; r < inner && !a->bad; r++) {
                const uint32_t *ids = s->idx + (e * (uint64_t)a->C * inner + r);
                if (a->pass == 1) {
                    for (int64_t i = 0; i < a->C; i++)
                        a->seq[i] = p->keyid[ids[(uint64_t)i * inner]];
                    ana_seq(a, a->seq, -1);
                }
                for (int t = 0; t < 3 && !a->bad; t++) {
                    set_field(p, ids[0], tagf[t], &has);
                    if (!has || !tag_used(p, p->set[ids[0]].fn, tagf[t]))
                        continue;
                    for (int64_t i = 0; i < a->C; i++)
                        a->seq[i] = set_field(p, ids[(uint64_t)i * inner], tagf[t], &has);
                    ana_seq(a, a->seq, tagf[t]);
                }
            }
    }
}

static void ana_node(const psk_fprog *p, ana *a, int32_t node, uint64_t ex, uint64_t inner)
{
    const psk_fnode *x = psk_folded_node(p->f, node);
    if (x->kind == PSK_FNODE_SYM) {
        ana_sym(p, a, node, ex, inner);
        return;
    }
    uint64_t in = inner * (uint64_t)(x->kind == PSK_FNODE_LOOP ? x->count : 1);
    const int32_t *ch = psk_folded_children(p->f, node);
    for (int32_t i = 0; i < x->nchild && !a->bad; i++)
        ana_node(p, a, ch[i], ex, in);
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* 1 if the n loops at lp make a candidate: their iterations repeat with a
 * period L but for their tags, and each tag grows by a step over a period
 * that depends only on where in the period it is (0: it repeats), no
 * value being taken with two steps (with a persistent request's tag, whose
 * step is 0), nor MPI_ANY_TAG with a step: then a message and a receive of
 * the loop match iff they match L iterations on. Its period and the values
 * of steps other than 0 go in ci. -1: out of memory. */
static int analyse(psk_fprog *p, const int32_t *lp, int n, cinfo *ci)
{
    ana a = {.C = psk_folded_node(p->f, lp[0])->count, .L = 1};
    for (a.pass = 1; a.pass <= 2 && !a.bad; a.pass++)
        for (int k = 0; k < n && !a.bad; k++) {
            const psk_fnode *x = psk_folded_node(p->f, lp[k]);
            const int32_t *ch = psk_folded_children(p->f, lp[k]);
            for (int32_t i = 0; i < x->nchild && !a.bad; i++)
                ana_node(p, &a, ch[i], p->nexec[lp[k]], 1);
        }
    /* too few iterations to see three spans of a period and skip one */
    if (!a.bad && a.C < 3 * a.L + 2)
        a.bad = 1;
    for (size_t i = 0; !a.bad && i < p->nitags; i++)
        push_val(&a, p->itags[i], 0);
    int64_t nl = 0;
    if (!a.bad) {
        compact(&a);
        for (int64_t i = 0; i < a.ntv && !a.bad; i++) {
            const tval *t = &a.tv[i];
            if ((i && t->v == t[-1].v && t->step != t[-1].step) || (t->v == PSK_ANY_TAG && t->step))
                a.bad = 1; /* matched in one iteration, not in the next */
            nl += t->step != 0;
        }
    }
    int64_t *lin = NULL;
    if (!a.bad && nl) { /* the values with a step, for psk_fprog_tag_follows */
        nl = 0;
        for (int64_t i = 0; i < a.ntv; i++)
            if (a.tv[i].step && (!nl || a.tv[nl - 1].v != a.tv[i].v))
                a.tv[nl++].v = a.tv[i].v;
        if (!(lin = malloc((size_t)nl * sizeof *lin)))
            a.bad = a.nomem = 1;
        for (int64_t i = 0; lin && i < nl; i++)
            lin[i] = a.tv[i].v;
    }
    free(a.seq), free(a.pi), free(a.tv);
    if (a.bad) {
        free(lin);
        return a.nomem ? -1 : 0;
    }
    *ci = (cinfo){.period = a.L, .lin = lin, .nlin = (size_t)nl};
    return 1;
}

/* SYM nodes under candidate loop node (group's first: cand) with inner
 * executions per iteration */
static void mark_in(psk_fprog *p, int32_t node, int32_t cand, uint64_t inner)
{
    const psk_fnode *x = psk_folded_node(p->f, node);
    if (x->kind == PSK_FNODE_SYM) {
        p->cof[node] = cand;
        p->inner[node] = inner;
        return;
    }
    uint64_t in = inner * (uint64_t)(x->kind == PSK_FNODE_LOOP ? x->count : 1);
    const int32_t *ch = psk_folded_children(p->f, node);
    for (int32_t i = 0; i < x->nchild; i++)
        mark_in(p, ch[i], cand, in);
}

/* how many loops from ch make a group every rank takes part in: one that
 * all take part in, or consecutive loops of as many iterations whose ranks
 * are apart and make all of them together; 0 if none */
static int group_len(const psk_fprog *p, const int32_t *ch, int32_t n)
{
    const psk_fnode *x0 = psk_folded_node(p->f, ch[0]);
    uint64_t *u = calloc((size_t)p->W, sizeof *u);
    if (!u)
        return 0;
    int k = 0, all = 0;
    for (; k < n && !all; k++) {
        const psk_fnode *x = psk_folded_node(p->f, ch[k]);
        const uint64_t *rs = p->rset + (size_t)ch[k] * (size_t)p->W;
        int apart = x->kind == PSK_FNODE_LOOP && x->count == x0->count;
        for (int w = 0; w < p->W && apart; w++)
            apart = !(u[w] & rs[w]);
        if (!apart)
            break;
        all = 1;
        for (int w = 0; w < p->W; w++) {
            u[w] |= rs[w];
            uint64_t full = w < p->W - 1 || p->P % 64 == 0 ? ~0ull : (1ull << (p->P % 64)) - 1;
            all &= u[w] == full;
        }
    }
    free(u);
    return all ? k : 0;
}

/* the outermost candidates under node */
static int find_cands(psk_fprog *p, int32_t node)
{
    const psk_fnode *x = psk_folded_node(p->f, node);
    if (x->kind == PSK_FNODE_SYM)
        return 0;
    const int32_t *ch = psk_folded_children(p->f, node);
    for (int32_t i = 0; i < x->nchild;) {
        const psk_fnode *c = psk_folded_node(p->f, ch[i]);
        int n = c->kind == PSK_FNODE_LOOP && c->count >= 4 ? group_len(p, ch + i, x->nchild - i) : 0;
        int ok = n ? analyse(p, ch + i, n, &p->ci[ch[i]]) : 0;
        if (ok < 0)
            return bfail(p, PSK_ENOMEM, "out of memory");
        if (ok) {
            for (int k = 0; k < n; k++) {
                const psk_fnode *m = psk_folded_node(p->f, ch[i + k]);
                const int32_t *mc = psk_folded_children(p->f, ch[i + k]);
                p->cand[ch[i + k]] = 1;
                p->grp[ch[i + k]] = ch[i];
                for (int32_t j = 0; j < m->nchild; j++)
                    mark_in(p, mc[j], ch[i], 1);
            }
            p->ncand++;
            if (p->ci[ch[i]].period > p->maxperiod)
                p->maxperiod = p->ci[ch[i]].period;
            i += n;
            continue;
        }
        if (find_cands(p, ch[i]))
            return p->rc;
        i++;
    }
    return 0;
}

/* rank sets, bottom-up */
static void summarise(psk_fprog *p, int32_t node)
{
    const psk_fnode *x = psk_folded_node(p->f, node);
    uint64_t *rs = p->rset + (size_t)node * (size_t)p->W;
    if (x->kind == PSK_FNODE_SYM) {
        symd *d = &p->sd[node];
        for (int j = 0; j < d->nranks; j++)
            rs[d->ranks[j] >> 6] |= 1ull << (d->ranks[j] & 63);
        return;
    }
    const int32_t *ch = psk_folded_children(p->f, node);
    for (int32_t i = 0; i < x->nchild; i++) {
        summarise(p, ch[i]);
        const uint64_t *cs = p->rset + (size_t)ch[i] * (size_t)p->W;
        for (int w = 0; w < p->W; w++)
            rs[w] |= cs[w];
    }
}

/* executions of every node: those of its parent times the parent's count */
static void count_execs(psk_fprog *p, int32_t node, uint64_t execs)
{
    const psk_fnode *x = psk_folded_node(p->f, node);
    p->nexec[node] = execs;
    if (x->kind == PSK_FNODE_SYM) {
        p->sd[node].execs = execs;
        return;
    }
    uint64_t inner = execs * (uint64_t)(x->kind == PSK_FNODE_LOOP ? x->count : 1);
    const int32_t *ch = psk_folded_children(p->f, node);
    for (int32_t i = 0; i < x->nchild; i++)
        count_execs(p, ch[i], inner);
}

/* what only building needs */
static void free_building(psk_fprog *p)
{
    for (int q = 0; p->pend && q < p->P; q++)
        free(p->pend[q]);
    for (int32_t i = 0; p->bs && p->bs->last && i < p->nnodes; i++)
        free(p->bs->last[i].v);
    if (p->bs)
        free(p->bs->last), free(p->bs->execno);
    free(p->bs);
    free(p->pend), free(p->npend), free(p->cappend), free(p->scratch), free(p->hash);
    free(p->keyid), free(p->itags);
    psk_mcursor_close(p->mc);
    p->pend = NULL, p->npend = NULL, p->cappend = NULL, p->scratch = NULL, p->hash = NULL;
    p->bs = NULL;
    p->keyid = NULL, p->itags = NULL;
    p->mc = NULL;
}

int psk_fprog_build(psk_merged *m, const psk_folded *f, int no_poll_loops, psk_fgaps *gaps, psk_fprog **out,
                    char *err, size_t cap, void (*progress)(void *arg, uint64_t done, uint64_t total),
                    void *arg)
{
    psk_fprog *p = calloc(1, sizeof *p);
    *out = p;
    if (!p) {
        snprintf(err, cap, "out of memory");
        return PSK_ENOMEM;
    }
    p->f = f, p->err = err, p->errcap = cap, p->no_poll_loops = no_poll_loops;
    p->progress = progress, p->progress_arg = arg, p->length = (uint64_t)psk_merged_length(m);
    p->irecv = psk_fn_lookup("MPI_Irecv");
    p->mrecv = psk_fn_lookup("MPI_Mrecv");
    p->imrecv = psk_fn_lookup("MPI_Imrecv");
    p->P = psk_merged_nranks(m);
    p->W = (p->P + 63) / 64;
    p->nnodes = psk_folded_nnodes(f);
    for (int q = 0; q < p->P; q++)
        if (psk_merged_rank_reordered(m, q)) {
            snprintf(err, cap, "the merged trace was reordered (Algorithm 1); "
                               "merge with --no-reorder to simulate it folded");
            return PSK_EINVAL;
        }
    p->sd = calloc((size_t)p->nnodes, sizeof *p->sd);
    p->rset = calloc((size_t)p->nnodes * (size_t)p->W, sizeof *p->rset);
    p->cand = calloc((size_t)p->nnodes, 1);
    p->grp = malloc((size_t)p->nnodes * sizeof *p->grp);
    p->cof = malloc((size_t)p->nnodes * sizeof *p->cof);
    p->inner = calloc((size_t)p->nnodes, sizeof *p->inner);
    p->nexec = calloc((size_t)p->nnodes, sizeof *p->nexec);
    p->ci = calloc((size_t)p->nnodes, sizeof *p->ci);
    if ((p->bs = calloc(1, sizeof *p->bs))) {
        p->bs->execno = calloc((size_t)p->nnodes, sizeof *p->bs->execno);
        p->bs->last = calloc((size_t)p->nnodes, sizeof *p->bs->last);
        p->bs->gaps = gaps;
    }
    p->pend = calloc((size_t)p->P, sizeof *p->pend);
    p->npend = calloc((size_t)p->P, sizeof *p->npend);
    p->cappend = calloc((size_t)p->P, sizeof *p->cappend);
    if (!p->sd || !p->rset || !p->cand || !p->grp || !p->cof || !p->inner || !p->nexec || !p->ci || !p->bs || !p->bs->execno ||
        !p->bs->last || !p->pend || !p->npend || !p->cappend)
        return bfail(p, PSK_ENOMEM, "out of memory");
    for (int32_t i = 0; i < p->nnodes; i++) {
        p->grp[i] = p->cof[i] = -1;
        p->sd[i].uni = NONE;
    }
    count_execs(p, 0, 1);
    for (int32_t i = 0; i < p->nnodes; i++) {
        const psk_fnode *x = psk_folded_node(f, i);
        if (x->kind != PSK_FNODE_SYM)
            continue;
        symd *d = &p->sd[i];
        d->ranks = psk_merged_class_ranks(m, (uint32_t)x->sym, &d->nranks);
        if (!(d->slots = calloc((size_t)(d->nranks ? d->nranks : 1), sizeof *d->slots)))
            return bfail(p, PSK_ENOMEM, "out of memory");
        for (int j = 0; j < d->nranks; j++)
            d->slots[j].first = NONE;
    }
    if (psk_mcursor_open(m, &p->mc))
        return bfail(p, PSK_ENOMEM, "out of memory");
    int rc = psk_folded_walk(f, visit, p);
    psk_mcursor_close(p->mc);
    p->mc = NULL;
    if (p->rc || rc)
        return p->rc ? p->rc : bfail(p, rc, "the merged trace does not match its folding");
    for (int q = 0; q < p->P; q++)
        for (int x = 0; x < p->npend[q]; x++)
            if (flush(p, &p->pend[q][x]))
                return p->rc;
    if (key_sets(p))
        return p->rc;
    summarise(p, 0);
    if (find_cands(p, 0) || prefixes(p))
        return p->rc;
    for (int32_t i = 0; i < p->nnodes; i++)
        if (p->sd[i].slots && uniform(p, i))
            return p->rc;
    free_building(p);
    return PSK_OK;
}

void psk_fprog_free(psk_fprog *p)
{
    if (!p)
        return;
    for (int32_t i = 0; p->sd && i < p->nnodes; i++) {
        for (int j = 0; j < p->sd[i].nranks && p->sd[i].slots; j++)
            free(p->sd[i].slots[j].idx);
        free(p->sd[i].slots);
        free(p->sd[i].pre);
    }
    free_building(p);
    for (int32_t i = 0; p->ci && i < p->nnodes; i++)
        free(p->ci[i].lin);
    free(p->sd), free(p->rset), free(p->cand), free(p->vals), free(p->set);
    free(p->grp), free(p->cof), free(p->inner), free(p->nexec), free(p->ci);
    free(p);
}

const psk_folded *psk_fprog_folded(const psk_fprog *p) { return p->f; }
uint64_t psk_fprog_poll_calls(const psk_fprog *p) { return p->poll_calls; }
int psk_fprog_nranks(const psk_fprog *p) { return p->P; }
int psk_fprog_ncandidates(const psk_fprog *p) { return p->ncand; }

uint64_t psk_fprog_bytes(const psk_fprog *p)
{
    uint64_t b = sizeof *p + p->nvals * sizeof *p->vals + (uint64_t)p->nset * sizeof *p->set;
    b += (uint64_t)p->nnodes * (sizeof *p->sd + (uint64_t)p->W * sizeof *p->rset + 1 + 2 * sizeof *p->grp +
                                sizeof *p->inner + sizeof *p->nexec + sizeof *p->ci);
    for (int32_t i = 0; i < p->nnodes; i++) {
        const symd *d = &p->sd[i];
        if (!d->slots)
            continue;
        b += (uint64_t)d->nranks * sizeof *d->slots + (d->pre ? (uint64_t)p->W * sizeof *d->pre : 0);
        for (int j = 0; j < d->nranks; j++)
            b += d->slots[j].idx ? d->execs * sizeof *d->slots[j].idx : 0;
    }
    return b;
}

int psk_fprog_pattern_events(const psk_fprog *p)
{
    int n = 0;
    for (int32_t i = 0; i < p->nnodes; i++)
        n += p->sd[i].slots && p->sd[i].uni != NONE;
    return n;
}
int64_t psk_fprog_max_period(const psk_fprog *p) { return p->maxperiod; }
int64_t psk_fprog_period(const psk_fprog *p, int32_t cand) { return p->ci[cand].period; }

int psk_fprog_tag_follows(const psk_fprog *p, int32_t cand, int64_t tag)
{
    const cinfo *ci = &p->ci[cand];
    return ci->nlin && bsearch(&tag, ci->lin, ci->nlin, sizeof tag, cmp_i64) != NULL;
}

/* the slot and iteration of rank q's element (tree event node, execution
 * exec, tag field f) in execution cexec of candidate cand; -1 if not in it */
static int64_t elem_iter(const psk_fprog *p, int32_t cand, int64_t cexec, int q, int32_t node, int64_t exec, int f,
                         const slot **sl)
{
    if (node < 0 || node >= p->nnodes || p->cof[node] != cand || (f != PSK_F_TAG && f != PSK_F_RTAG) || exec < 0)
        return -1;
    const symd *d = &p->sd[node];
    uint64_t in = p->inner[node], C = (uint64_t)psk_folded_node(p->f, cand)->count;
    int j = slot_of(p, node, q);
    if ((uint64_t)exec / in / C != (uint64_t)cexec || (uint64_t)exec >= d->execs || j < 0)
        return -1;
    *sl = &d->slots[j];
    return (int64_t)((uint64_t)exec / in % C);
}

int psk_fprog_shift_tag(const psk_fprog *p, int32_t cand, int64_t cexec, int q, int32_t node, int64_t *exec, int f,
                        int64_t S, int64_t *tag)
{
    const slot *s;
    if (elem_iter(p, cand, cexec, q, node, *exec, f, &s) < 0)
        return 0;
    uint64_t e = (uint64_t)*exec + (uint64_t)S * p->inner[node];
    if (e >= p->sd[node].execs)
        return 0;
    *exec = (int64_t)e;
    int has;
    int64_t v = set_field(p, s->idx ? s->idx[e] : s->first, f, &has);
    if (has)
        *tag = v;
    return 1;
}

int64_t psk_fprog_follower(const psk_fprog *p, int32_t cand, int64_t cexec, int q, int32_t node, int64_t exec, int f)
{
    const slot *s;
    int64_t i = elem_iter(p, cand, cexec, q, node, exec, f, &s);
    if (i < 0 || !s->idx)
        return -1;
    /* the same event a period on (or back, near the loop's end) */
    int64_t L = p->ci[cand].period, C = psk_folded_node(p->f, cand)->count;
    int64_t other = exec + (i + L < C ? L : -L) * (int64_t)p->inner[node];
    if (other < 0)
        return -1;
    int h1, h2;
    return set_field(p, s->idx[exec], f, &h1) != set_field(p, s->idx[other], f, &h2) ? i : -1;
}

/* ---- the cursor ---- */

typedef struct cframe {
    int32_t node, child;
    int64_t iter, exec;
    int entered;   /* its enter mark was given (or it gives none) */
} cframe;

#define CF_INLINE 4 /* frames held in the cursor itself (deeper: on the heap) */

struct psk_fcursor {
    const psk_fprog *p;
    int q, loop_depth;
    cframe *st;
    int d;
    int inblock;   /* one of psk_fcursor_open_all's block: not freed alone */
    int64_t cap;
    int cand;      /* the frame of the candidate loop it is in, or -1 */
    int cand_new;  /* an iteration of it began: its next event says so */
    int began;
    int64_t b_exec, b_iter;
    int32_t last;  /* the tree event last handed out, and its execution */
    int64_t last_exec;
    psk_fmark *mk;
    int nmk;
    int64_t capmk;
    uint64_t events;
    /* the first frames live here, next to the fields above: a rank's next
     * event reads one or two cache lines, not a second allocation too */
    cframe in[CF_INLINE];
};

static int push(psk_fcursor *c, cframe f)
{
    if (c->d == c->cap && c->st == c->in) { /* leaving the inline frames */
        cframe *h = calloc(2 * CF_INLINE, sizeof *h);
        if (!h)
            return -1;
        memcpy(h, c->in, sizeof c->in);
        c->st = h, c->cap = 2 * CF_INLINE;
    }
    if (psk_grow((void **)&c->st, &c->cap, c->d, sizeof *c->st))
        return -1;
    c->st[c->d++] = f;
    return 0;
}

static int mark(psk_fcursor *c, int32_t node, int enter, int inner)
{
    if (psk_grow((void **)&c->mk, &c->capmk, c->nmk, sizeof *c->mk))
        return -1;
    c->mk[c->nmk++] = (psk_fmark){.node = node, .enter = (int8_t)enter, .inner = (int8_t)inner};
    return 0;
}

/* on a cache line of its own: its hot fields and first frames in as few
 * lines as they can be */
#define CURSOR_BYTES ((sizeof(psk_fcursor) + 63) / 64 * 64)

static void cursor_init(psk_fcursor *c, const psk_fprog *p, int rank, int loop_depth)
{
    memset(c, 0, CURSOR_BYTES);
    c->p = p, c->q = rank, c->loop_depth = loop_depth, c->cand = -1, c->last = -1;
    c->st = c->in, c->cap = CF_INLINE;
    c->st[c->d++] = (cframe){.node = 0, .entered = 1};
}

int psk_fcursor_open(const psk_fprog *p, int rank, int loop_depth, psk_fcursor **out)
{
    psk_fcursor *c = aligned_alloc(64, CURSOR_BYTES);
    *out = c;
    if (!c)
        return PSK_ENOMEM;
    cursor_init(c, p, rank, loop_depth);
    return PSK_OK;
}

int psk_fcursor_open_all(const psk_fprog *p, int n, int loop_depth, psk_fcursor **out, void **block)
{
    size_t bytes = (size_t)(n > 0 ? n : 1) * CURSOR_BYTES;
    char *b = bytes >= (2u << 20) ? psk_big_alloc(bytes) : aligned_alloc(64, bytes);
    *block = b;
    if (!b)
        return PSK_ENOMEM;
    for (int q = 0; q < n; q++) {
        out[q] = (psk_fcursor *)(b + (size_t)q * CURSOR_BYTES);
        cursor_init(out[q], p, q, loop_depth);
        out[q]->inblock = 1;
    }
    return PSK_OK;
}

void psk_fcursor_block_free(void *block) { free(block); }

const psk_fcursor *psk_fcursor_in_block(const void *block, int q)
{
    return (const psk_fcursor *)((const char *)block + (size_t)q * CURSOR_BYTES);
}

int psk_fcursor_next(psk_fcursor *c, psk_event *ev)
{
    const psk_fprog *p = c->p;
    c->nmk = 0;
    c->began = 0;
    for (;;) {
        if (c->d == 0)
            return PSK_EOF;
        cframe *f = &c->st[c->d - 1];
        const psk_fnode *nd = psk_folded_node(p->f, f->node);
        if (f->child == nd->nchild) {
            if (nd->kind == PSK_FNODE_LOOP && f->iter + 1 < nd->count) {
                f->iter++, f->child = 0;
                c->cand_new |= c->d - 1 == c->cand;
                continue;
            }
            if (f->entered == 2 && mark(c, f->node, 0, c->cand >= 0 && c->d - 1 > c->cand))
                return PSK_ENOMEM;
            if (c->d - 1 == c->cand)
                c->cand = -1;
            c->d--;
            continue;
        }
        int32_t ch = psk_folded_children(p->f, f->node)[f->child++];
        if (!has_rank(p, ch, c->q))
            continue;
        const psk_fnode *cn = psk_folded_node(p->f, ch);
        int64_t exec = f->exec * (nd->kind == PSK_FNODE_LOOP ? nd->count : 1) + f->iter;
        if (cn->kind == PSK_FNODE_LOOP) {
            if (push(c, (cframe){.node = ch, .exec = exec}))
                return PSK_ENOMEM;
            if (c->cand < 0 && p->cand[ch])
                c->cand = c->d - 1, c->cand_new = 1;
            continue;
        }
        /* an event of this rank: the loops it begins are entered first */
        for (int i = 1; i < c->d; i++)
            if (!c->st[i].entered) {
                const psk_fnode *l = psk_folded_node(p->f, c->st[i].node);
                int give = c->loop_depth >= 0 && (c->loop_depth == 0 || l->depth < c->loop_depth);
                c->st[i].entered = give ? 2 : 1;
                if (give && mark(c, c->st[i].node, 1, c->cand >= 0 && i > c->cand))
                    return PSK_ENOMEM;
            }
        if (c->cand >= 0 && c->cand_new) {
            c->began = 1, c->cand_new = 0;
            c->b_exec = c->st[c->cand].exec, c->b_iter = c->st[c->cand].iter;
        }
        int j = p->sd[ch].uni != NONE ? -1 : slot_of(p, ch, c->q);
        if (j < 0 && p->sd[ch].uni == NONE)
            continue; /* not in its class: has_rank said otherwise, cannot happen */
        node_event(p, ch, j, c->q, exec, ev);
        ev->t_entry = ev->t_exit = 0;
        c->last = ch, c->last_exec = exec;
        c->events++;
        return PSK_OK;
    }
}

void psk_fcursor_prefetch(const psk_fcursor *c)
{
    __builtin_prefetch(c, 1);
    __builtin_prefetch((const char *)c + 64, 1);
    __builtin_prefetch((const char *)c + 128, 1);
    __builtin_prefetch((const char *)c + 192, 1);
}

const psk_fmark *psk_fcursor_marks(const psk_fcursor *c, int *n)
{
    *n = c->nmk;
    return c->mk;
}

int psk_fcursor_began(const psk_fcursor *c, int32_t *node, int64_t *exec, int64_t *iter, int64_t *count)
{
    if (!c->began)
        return 0;
    *node = c->p->grp[c->st[c->cand].node];
    *exec = c->b_exec, *iter = c->b_iter;
    *count = psk_folded_node(c->p->f, *node)->count;
    return 1;
}

int psk_fcursor_in_candidate(const psk_fcursor *c) { return c->cand >= 0; }

void psk_fcursor_origin(const psk_fcursor *c, int32_t *node, int64_t *exec)
{
    *node = c->last, *exec = c->last_exec;
}

void psk_fcursor_skip(psk_fcursor *c, int64_t S)
{
    if (c->cand < 0)
        return;
    c->st[c->cand].iter += S;
    /* the loops inside the iteration, and the event last handed out, are
     * in the iteration S on: their executions move with it */
    int64_t mult = 1;
    for (int i = c->cand + 1; i < c->d; i++) {
        const psk_fnode *l = psk_folded_node(c->p->f, c->st[i].node);
        c->st[i].exec += S * mult;
        mult *= l->kind == PSK_FNODE_LOOP ? l->count : 1;
    }
    if (c->last >= 0 && c->p->cof[c->last] == c->p->grp[c->st[c->cand].node])
        c->last_exec += S * mult;
}

void psk_fcursor_reload(const psk_fcursor *c, psk_event *ev)
{
    if (c->last < 0)
        return;
    const symd *d = &c->p->sd[c->last];
    int j = slot_of(c->p, c->last, c->q);
    if (j < 0 || (uint64_t)c->last_exec >= d->execs)
        return;
    node_event(c->p, c->last, j, c->q, c->last_exec, ev);
    ev->t_entry = ev->t_exit = 0;
}

uint64_t psk_fcursor_events(const psk_fcursor *c) { return c->events; }

uint64_t psk_fcursor_bytes(const psk_fcursor *c)
{
    return sizeof *c + (c->st != c->in ? (uint64_t)c->cap * sizeof *c->st : 0) + (uint64_t)c->capmk * sizeof *c->mk;
}

void psk_fcursor_close(psk_fcursor *c)
{
    if (!c)
        return;
    if (c->st != c->in)
        free(c->st);
    free(c->mk);
    if (!c->inblock)
        free(c);
}

/* ---- the recorded gaps (psk_fgaps) ----
 * Read once, when opened: one pass over the merged events appends each
 * rank's gaps to a byte stream of its own (varints: the gap, and for a run
 * of polls or a call whose polls are not one that found, what it adds).
 * The replay then reads each rank's stream in order: a rank's next gaps
 * lie together, where a queue per rank filled by one reader as the
 * fastest rank needs them held as many gaps per rank as the ranks are
 * apart in the merged order (in a pipeline, a number that grows with the
 * ranks: memory and cache misses growing faster than the ranks). Memory:
 * about 2-3 bytes an event, linear in the trace. */

typedef struct gaps1 {
    uint8_t *b;          /* the stream */
    int64_t cap;         /* bytes allocated */
    uint64_t n, pos;     /* bytes written, read */
} gaps1;

struct psk_fgaps {
    psk_merged *m;
    int P;
    gaps1 *q;
    uint8_t *pack;       /* the streams, once read (NULL: each its own) */
    int rc;              /* why the pass failed (psk_fgaps_errmsg) */
    char err[152];
};

/* flags of a gap's first varint (its 2 low bits) */
#define GAP_POLLS 1u   /* a run of polls: the compute it overlapped follows */
#define GAP_CALLS 2u   /* calls and failed polls other than 1 and 0 follow */

static int put_gap(gaps1 *y, const psk_mevent *me, int j)
{
    const psk_event *ev = &me->ev[j];
    uint64_t calls, failed = psk_event_failed_polls(ev, &calls);
    unsigned fl = (psk_fn_polled(ev->fn) ? GAP_POLLS : 0u) | (calls != 1 || failed ? GAP_CALLS : 0u);
    if (me->gap[j] >> 61)
        return PSK_EFORMAT;
    if (psk_grow((void **)&y->b, &y->cap, (int64_t)y->n + 40, 1))
        return PSK_ENOMEM;
    uint8_t *p = psk_put_uvar(y->b + y->n, me->gap[j] << 2 | fl);
    if (fl & GAP_POLLS)
        p = psk_put_svar(p, ev->v[PSK_F_I2]);
    if (fl & GAP_CALLS)
        p = psk_put_uvar(psk_put_uvar(p, calls), failed);
    y->n = (uint64_t)(p - y->b);
    return PSK_OK;
}

int psk_fgaps_new(psk_merged *m, psk_fgaps **out)
{
    psk_fgaps *g = calloc(1, sizeof *g);
    *out = g;
    if (!g)
        return PSK_ENOMEM;
    g->m = m;
    g->P = psk_merged_nranks(m);
    if (!(g->q = calloc((size_t)(g->P ? g->P : 1), sizeof *g->q)))
        return PSK_ENOMEM;
    return PSK_OK;
}

int psk_fgaps_add(psk_fgaps *g, const psk_mevent *me)
{
    int rc = PSK_OK;
    for (int j = 0; j < me->nranks && !rc; j++)
        if (me->ranks[j] < 0 || me->ranks[j] >= g->P || (rc = put_gap(&g->q[me->ranks[j]], me, j)) == PSK_EFORMAT)
            snprintf(g->err, sizeof g->err, "merged event %llu: rank %d's compute gap is not a time",
                     (unsigned long long)me->index, me->ranks[j]),
                rc = PSK_EFORMAT;
    return g->rc = rc;
}

void psk_fgaps_seal(psk_fgaps *g)
{
    /* a stream is not grown again: the streams go into one block, rank
     * after rank (in huge pages: the replay reads them in no order) */
    uint64_t total = 0;
    for (int q = 0; !g->pack && q < g->P; q++)
        total += g->q[q].n;
    if (!g->pack && total && (g->pack = psk_big_alloc((size_t)total)))
        for (uint64_t q = 0, at = 0; q < (uint64_t)g->P; q++) {
            gaps1 *y = &g->q[q];
            if (!y->n)
                continue;
            memcpy(g->pack + at, y->b, y->n);
            free(y->b);
            y->b = g->pack + at, y->cap = (int64_t)y->n;
            at += y->n;
        }
}

void psk_fgaps_prefetch(const psk_fgaps *g, int q)
{
    __builtin_prefetch(&g->q[q]);
}

void psk_fgaps_prefetch_gap(const psk_fgaps *g, int q)
{
    const gaps1 *x = &g->q[q];
    __builtin_prefetch(x->b + x->pos);
}

int psk_fgaps_next(psk_fgaps *g, int q, psk_fgap *gap)
{
    gaps1 *x = &g->q[q];
    if (x->pos >= x->n)
        return PSK_EOF;
    /* written by put_gap: complete, so read unchecked */
    uint64_t h = 0, calls = 1, failed = 0;
    const uint8_t *p = psk_get_uvar_unchecked(x->b + x->pos, &h);
    gap->gap = (double)(h >> 2);
    if (h & GAP_POLLS) {
        uint64_t z = 0;
        p = psk_get_uvar_unchecked(p, &z);
        gap->gap += (double)psk_unzigzag(z);
    }
    if (h & GAP_CALLS)
        p = psk_get_uvar_unchecked(psk_get_uvar_unchecked(p, &calls), &failed);
    gap->calls = (double)calls;
    gap->failed = (double)failed;
    x->pos = (uint64_t)(p - x->b);
    return PSK_OK;
}

const char *psk_fgaps_errmsg(const psk_fgaps *g) { return g->err[0] ? g->err : psk_merged_errmsg(g->m); }

uint64_t psk_fgaps_bytes(const psk_fgaps *g)
{
    uint64_t b = sizeof *g + (uint64_t)g->P * sizeof *g->q;
    for (int q = 0; q < g->P; q++)
        b += (uint64_t)g->q[q].cap;
    return b;
}

void psk_fgaps_close(psk_fgaps *g)
{
    if (!g)
        return;
    for (int q = 0; g->q && q < g->P && !g->pack; q++)
        free(g->q[q].b);
    free(g->pack);
    free(g->q);
    free(g);
}
