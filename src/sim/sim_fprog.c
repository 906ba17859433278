/* The folded program of perfskel sim --folded (sim_fprog.h): built in one
 * walk of the loop tree over the merged events, replayed by one cursor per
 * rank (sim_fcursor.c) that walks the tree again without expanding it into
 * a trace. This file keeps the program's parameter sets and builds it; the
 * loops that can be skipped are found by sim_fpcand.c, the recorded
 * compute gaps are kept by psk_fgaps (sim_fgaps.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psk_mem.h"
#include "sim_fprog_internal.h"

/* Each distinct parameter set (an event without its times) is kept once,
 * as int64 values in one pool, found again through a hash table. An event
 * of the tree keeps, per rank taking part, the parameter set of its first
 * execution; only when an execution differs does it get a table, one entry
 * per execution (a mixed-radix number of the iterations of the loops
 * around it). A wildcard MPI_Irecv is kept with the source its completing
 * call recorded, as the replay of a trace directory finds it by reading
 * ahead. The compute gaps are not kept: psk_fgaps reads each rank's
 * recorded gaps from the merged trace as its cursor needs them, in the
 * same order (a rank's events in the tree are its events in merged order). */

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
uint32_t psk_fprogi_intern(psk_fprog *p, const psk_event *ev)
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

/* ---- building ---- */

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

int psk_fprogi_fail(psk_fprog *p, int rc, const char *msg)
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
        return psk_fprogi_fail(p, PSK_ENOMEM, "out of memory");
    if (s->first == NONE) {
        s->first = id;
    } else if (s->idx || id != s->first) {
        if (!s->idx) {
            if (!(s->idx = malloc(d->execs * sizeof *s->idx)))
                return psk_fprogi_fail(p, PSK_ENOMEM, "out of memory");
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
    return assign(p, d, &d->slots[x->j], x->exec, psk_fprogi_intern(p, &x->ev));
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

static int visit(void *arg, const psk_fstep *st)
{
    psk_fprog *p = arg;
    int32_t node = st->node;
    if (p->progress && (st->pos & 0xffff) == 0)
        p->progress(p->progress_arg, (uint64_t)st->pos, p->length);
    const psk_mevent *me = st->ev;
    int rc;
    symd *d = &p->sd[node];
    /* the executions of one node may differ in their arguments (tags,
     * counts, ...: loop-variant parameters), never in who takes part */
    if (me->nranks != d->nranks || (me->nranks && (me->ranks[0] != d->ranks[0] ||
                                                 me->ranks[me->nranks - 1] != d->ranks[d->nranks - 1])))
        return psk_fprogi_fail(p, PSK_EINVAL, "the merged trace does not match its folding");
    if (p->bs->gaps && (rc = psk_fgaps_add(p->bs->gaps, me)))
        return psk_fprogi_fail(p, rc, rc == PSK_ENOMEM ? "out of memory" : psk_fgaps_errmsg(p->bs->gaps));
    uint64_t exec = p->bs->execno[node]++;
    if (psk_fn_class(me->fn) == PSK_CLASS_COMM) /* made, freed, ...: ranks' contexts may change */
        p->bs->commgen++;
    int reuse = same_as_last(p, node, me, exec);
    if (reuse < 0)
        return psk_fprogi_fail(p, PSK_ENOMEM, "out of memory");
    if (reuse) { /* every rank's set is its last execution's */
        for (int j = 0; d->nidx && j < me->nranks; j++)
            if (d->slots[j].idx)
                d->slots[j].idx[exec] = d->slots[j].idx[exec - 1];
        return 0;
    }
    for (int j = 0; j < me->nranks; j++) {
        int q = me->ranks[j];
        const psk_event *ev = &me->ev[j];
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
                return psk_fprogi_fail(p, PSK_ENOMEM, "out of memory");
            p->pend[q][p->npend[q]++] =
                (pending){.req = ev->v[PSK_F_REQ], .node = node, .j = j, .exec = exec, .ev = *ev};
            p->bs->npending++;
            continue;
        }
        if (assign(p, d, s, exec, psk_fprogi_intern(p, ev)))
            return p->rc;
        if (PSK_HAS(ev, PSK_F_STATUSES) && p->npend[q] && complete(p, q, ev))
            return p->rc;
    }
    return 0;
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
            return psk_fprogi_fail(p, PSK_ENOMEM, "out of memory");
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
    psk_fprogi_materialize(p, base, &ev);
    for (uint32_t f = rel; f; f &= f - 1)
        ev.v[__builtin_ctz(f)] = (int64_t)((uint64_t)ev.v[__builtin_ctz(f)] - q0);
    uint32_t id = psk_fprogi_intern(p, &ev);
    if (id == NONE)
        return psk_fprogi_fail(p, PSK_ENOMEM, "out of memory");
    d->uni = id, d->rel = rel;
    return 0;
}

/* ---- the whole build, and what the program holds ---- */

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
    p->pend = NULL, p->npend = NULL, p->cappend = NULL, p->scratch = NULL, p->hash = NULL;
    p->bs = NULL;
    p->keyid = NULL, p->itags = NULL;
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
        return psk_fprogi_fail(p, PSK_ENOMEM, "out of memory");
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
            return psk_fprogi_fail(p, PSK_ENOMEM, "out of memory");
        for (int j = 0; j < d->nranks; j++)
            d->slots[j].first = NONE;
    }
    int rc = psk_folded_walk_merged(f, m, visit, p);
    if (p->rc || rc)
        return p->rc ? p->rc : psk_fprogi_fail(p, rc, "the merged trace does not match its folding");
    for (int q = 0; q < p->P; q++)
        for (int x = 0; x < p->npend[q]; x++)
            if (flush(p, &p->pend[q][x]))
                return p->rc;
    if (psk_fprogi_key_sets(p))
        return p->rc;
    summarise(p, 0);
    if (psk_fprogi_find_cands(p, 0) || prefixes(p))
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
