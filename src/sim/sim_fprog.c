/* The folded program of perfskel sim --folded (sim_fprog.h): built in one
 * walk of the loop tree over the merged events, replayed by one cursor per
 * rank that walks the tree again without expanding it into a trace.
 *
 * Each distinct parameter set (an event without its times) is kept once,
 * as int64 values in one pool, found again through a hash table. An event
 * of the tree keeps, per rank taking part, the sum of its compute gaps and
 * the parameter set of its first execution; only when an execution differs
 * does it get a table, one entry per execution (a mixed-radix number of
 * the iterations of the loops around it). A wildcard MPI_Irecv is kept with
 * the source its completing call recorded, as the replay of a trace
 * directory finds it by reading ahead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psk_mem.h"
#include "sim_fprog.h"

#define NONE UINT32_MAX

typedef struct slot {
    double gap_sum;
    uint32_t first;  /* parameter set of every execution, unless idx */
    uint32_t *idx;   /* per execution, or NULL */
} slot;

typedef struct symd {
    const int32_t *ranks; /* of its class, ascending */
    int nranks;
    slot *slots;          /* per taking part rank */
    uint64_t execs;
} symd;

typedef struct pset {
    uint32_t fn, fields;
    uint64_t off;         /* in vals: scalars in field order, then per array n and its values */
} pset;

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
    int ncand;
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
    uint64_t *execno;     /* per node: executions seen */
    pending **pend;       /* per rank */
    int *npend;
    int64_t *cappend;
    int64_t *scratch, capscratch;
    unsigned irecv;       /* MPI_Irecv's function id */
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
                break;
            }
    }
    return 0;
}

static int visit(void *arg, int64_t pos, int32_t node, const int64_t *iter, int depth)
{
    (void)pos, (void)iter, (void)depth;
    psk_fprog *p = arg;
    psk_mevent me;
    int rc = psk_mcursor_next(p->mc, &me);
    symd *d = &p->sd[node];
    /* the executions of one node may differ in their arguments (tags,
     * counts, ...: loop-variant parameters), never in who takes part */
    if (rc || me.nranks != d->nranks || (me.nranks && (me.ranks[0] != d->ranks[0] ||
                                                       me.ranks[me.nranks - 1] != d->ranks[d->nranks - 1])))
        return bfail(p, rc && rc != PSK_EOF ? rc : PSK_EINVAL, "the merged trace does not match its folding");
    uint64_t exec = p->execno[node]++;
    for (int j = 0; j < me.nranks; j++) {
        int q = me.ranks[j];
        const psk_event *ev = &me.ev[j];
        slot *s = &d->slots[j];
        s->gap_sum += (double)me.gap[j];
        psk_event pl;
        if (psk_fn_polled(ev->fn)) {
            /* a run of polls: the compute it overlapped (a mean, as gaps are),
             * then its test; how many polls it made is counted here, so its
             * executions are alike wherever they were but for timing */
            s->gap_sum += (double)ev->v[PSK_F_I2];
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
                    break;
                }
            if (psk_grow((void **)&p->pend[q], &p->cappend[q], p->npend[q], sizeof *p->pend[q]))
                return bfail(p, PSK_ENOMEM, "out of memory");
            p->pend[q][p->npend[q]++] =
                (pending){.req = ev->v[PSK_F_REQ], .node = node, .j = j, .exec = exec, .ev = *ev};
            continue;
        }
        if (assign(p, d, s, exec, intern(p, ev)))
            return p->rc;
        if (PSK_HAS(ev, PSK_F_STATUSES) && p->npend[q] && complete(p, q, ev))
            return p->rc;
    }
    return 0;
}

static int has_rank(const psk_fprog *p, int32_t node, int q)
{
    return (p->rset[(size_t)node * (size_t)p->W + (size_t)(q >> 6)] >> (q & 63)) & 1u;
}

/* 1 if every event under node repeats its parameter sets with period e
 * times the loops between them and node: e executions of node are one
 * iteration of the loop being checked, so its iterations are identical
 * (an inner loop's events may still differ from one inner iteration to
 * the next: loop-variant tags, request slots) */
static int repeats(const psk_fprog *p, int32_t node, uint64_t e)
{
    const psk_fnode *x = psk_folded_node(p->f, node);
    if (x->kind == PSK_FNODE_SYM) {
        const symd *d = &p->sd[node];
        for (int j = 0; j < d->nranks; j++)
            for (uint64_t k = e; d->slots[j].idx && k < d->execs; k++)
                if (d->slots[j].idx[k] != d->slots[j].idx[k % e])
                    return 0;
        return 1;
    }
    uint64_t inner = e * (uint64_t)(x->kind == PSK_FNODE_LOOP ? x->count : 1);
    const int32_t *ch = psk_folded_children(p->f, node);
    for (int32_t i = 0; i < x->nchild; i++)
        if (!repeats(p, ch[i], inner))
            return 0;
    return 1;
}

/* rank sets bottom-up, and the loops whose iterations are identical on
 * every rank (candidates for skipping) */
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
    if (x->kind == PSK_FNODE_LOOP && x->count >= 4) {
        int all = 1;
        for (int q = 0; q < p->P && all; q++)
            all = has_rank(p, node, q);
        for (int32_t i = 0; i < x->nchild && all; i++)
            all = repeats(p, ch[i], 1);
        p->cand[node] = (uint8_t)all;
    }
}

/* only the outermost candidates stay */
static void outermost(psk_fprog *p, int32_t node, int inside)
{
    const psk_fnode *x = psk_folded_node(p->f, node);
    if (inside)
        p->cand[node] = 0;
    p->ncand += p->cand[node];
    inside |= p->cand[node];
    const int32_t *ch = psk_folded_children(p->f, node);
    for (int32_t i = 0; x->kind != PSK_FNODE_SYM && i < x->nchild; i++)
        outermost(p, ch[i], inside);
}

/* executions of every node: those of its parent times the parent's count */
static void count_execs(psk_fprog *p, int32_t node, uint64_t execs)
{
    const psk_fnode *x = psk_folded_node(p->f, node);
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
    free(p->pend), free(p->npend), free(p->cappend), free(p->execno), free(p->scratch), free(p->hash);
    psk_mcursor_close(p->mc);
    p->pend = NULL, p->npend = NULL, p->cappend = NULL, p->execno = NULL, p->scratch = NULL, p->hash = NULL;
    p->mc = NULL;
}

int psk_fprog_build(psk_merged *m, const psk_folded *f, psk_fprog **out, char *err, size_t cap)
{
    psk_fprog *p = calloc(1, sizeof *p);
    *out = p;
    if (!p) {
        snprintf(err, cap, "out of memory");
        return PSK_ENOMEM;
    }
    p->f = f, p->err = err, p->errcap = cap;
    p->irecv = psk_fn_lookup("MPI_Irecv");
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
    p->execno = calloc((size_t)p->nnodes, sizeof *p->execno);
    p->pend = calloc((size_t)p->P, sizeof *p->pend);
    p->npend = calloc((size_t)p->P, sizeof *p->npend);
    p->cappend = calloc((size_t)p->P, sizeof *p->cappend);
    if (!p->sd || !p->rset || !p->cand || !p->execno || !p->pend || !p->npend || !p->cappend)
        return bfail(p, PSK_ENOMEM, "out of memory");
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
    summarise(p, 0);
    outermost(p, 0, 0);
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
    }
    free_building(p);
    free(p->sd), free(p->rset), free(p->cand), free(p->vals), free(p->set);
    free(p);
}

const psk_folded *psk_fprog_folded(const psk_fprog *p) { return p->f; }
uint64_t psk_fprog_poll_calls(const psk_fprog *p) { return p->poll_calls; }
int psk_fprog_nranks(const psk_fprog *p) { return p->P; }
int psk_fprog_ncandidates(const psk_fprog *p) { return p->ncand; }

/* ---- the cursor ---- */

typedef struct cframe {
    int32_t node, child;
    int64_t iter, exec;
    int entered;   /* its enter mark was given (or it gives none) */
} cframe;

struct psk_fcursor {
    const psk_fprog *p;
    int q, loop_depth;
    cframe *st;
    int d;
    int64_t cap;
    int cand;      /* the frame of the candidate loop it is in, or -1 */
    int cand_new;  /* an iteration of it began: its next event says so */
    int began;
    int64_t b_exec, b_iter;
    psk_fmark *mk;
    int nmk;
    int64_t capmk;
    uint64_t events;
};

static int push(psk_fcursor *c, cframe f)
{
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

int psk_fcursor_open(const psk_fprog *p, int rank, int loop_depth, psk_fcursor **out)
{
    psk_fcursor *c = calloc(1, sizeof *c);
    *out = c;
    if (!c)
        return PSK_ENOMEM;
    c->p = p, c->q = rank, c->loop_depth = loop_depth, c->cand = -1;
    if (push(c, (cframe){.node = 0, .entered = 1}))
        return PSK_ENOMEM;
    return PSK_OK;
}

/* the slot of rank q in a tree event, or -1 */
static int slot_of(const symd *d, int q)
{
    if (d->nranks > q && d->ranks[q] == q)
        return q;
    int lo = 0, hi = d->nranks - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (d->ranks[mid] == q)
            return mid;
        if (d->ranks[mid] < q)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int psk_fcursor_next(psk_fcursor *c, psk_event *ev, double *gap_ns)
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
        const symd *d = &p->sd[ch];
        int j = slot_of(d, c->q);
        if (j < 0)
            continue; /* not in its class: has_rank said otherwise, cannot happen */
        const slot *s = &d->slots[j];
        materialize(p, s->idx ? s->idx[exec] : s->first, ev);
        ev->t_entry = ev->t_exit = 0;
        *gap_ns = d->execs ? s->gap_sum / (double)d->execs : 0;
        c->events++;
        return PSK_OK;
    }
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
    *node = c->st[c->cand].node;
    *exec = c->b_exec, *iter = c->b_iter;
    *count = psk_folded_node(c->p->f, *node)->count;
    return 1;
}

void psk_fcursor_skip(psk_fcursor *c, int64_t S)
{
    if (c->cand >= 0)
        c->st[c->cand].iter += S;
}

uint64_t psk_fcursor_events(const psk_fcursor *c) { return c->events; }

void psk_fcursor_close(psk_fcursor *c)
{
    if (!c)
        return;
    free(c->st);
    free(c->mk);
    free(c);
}
