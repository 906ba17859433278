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

/* building: a tree event's recent executions as their merged events gave
 * them, when every rank's parameters follow from those (no wildcard or
 * poll to complete): if a later execution's merged event is of the same
 * class with the same pattern bytes and no communicator call came
 * between, each rank passes what it passed then (its values follow from
 * the patterns and from its communicators), and no rank's event need be
 * looked at for it. A tag that alternates (2i + 1 in a loop of two) makes
 * the last execution differ and the one before it the same: NHIST are
 * kept. */
#define NHIST 4
typedef struct lastx {
    int valid;
    uint64_t exec;
    uint64_t commgen;
    uint64_t index;       /* its merged event */
    int wild;             /* a rank's wildcard Irecv waited for its source */
} lastx;

/* more of the building's state */
struct bstate {
    psk_merged *m;
    uint64_t *execno;     /* per node: executions seen */
    lastx *last;          /* NHIST per node */
    uint64_t commgen;     /* communicator and group calls so far */
    int64_t npending;     /* wildcard Irecvs waiting for their sources, all ranks */
    uint64_t nwild;       /* and how many there have been */
    psk_fprog_each each;  /* called on each merged event in the same pass, or NULL */
    void *each_arg;
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

/* 1 if merged events i and k have the same class and pattern bytes */
static int same_event(psk_merged *m, uint64_t i, uint64_t k, uint32_t cls)
{
    if (psk_merged_classes(m)[k] != cls)
        return 0;
    size_t ni, nk;
    const uint8_t *a = psk_merged_event_patterns(m, i, &ni), *b = psk_merged_event_patterns(m, k, &nk);
    return ni == nk && (!ni || !memcmp(a, b, ni));
}

/* the earlier execution of tree event node whose merged event was me's
 * (execution exec), whose slots are set (then each rank's set is copied
 * from it, none interned); -1 if none, keeping me in one
 * of the node's NHIST entries. An MPI_Irecv's execution whose ranks all
 * named their sources is one (its equal executions name the same); one
 * where a rank's source was a wildcard is not (visit marks it wild: its
 * sets wait for the completing calls' statuses). */
static int64_t same_as_earlier(psk_fprog *p, int32_t node, const psk_mevent *me, uint64_t exec)
{
    lastx *h = &p->bs->last[(size_t)node * NHIST];
    if (me->nranks <= 0 || psk_fn_polled(me->fn) || (PSK_HAS(me, PSK_F_STATUSES) && p->bs->npending)) {
        for (int k = 0; k < NHIST; k++)
            h[k].valid = 0;
        return -1;
    }
    for (int k = 0; k < NHIST && exec > 0; k++)
        if (h[k].valid && !h[k].wild && h[k].commgen == p->bs->commgen &&
            same_event(p->bs->m, me->index, h[k].index, me->cls))
            return (int64_t)h[k].exec;
    h[exec % NHIST] = (lastx){.valid = 1, .exec = exec, .commgen = p->bs->commgen, .index = me->index};
    return -1;
}

/* ranks j0..j1-1 of tree event node's execution exec (merged event me)
 * get their parameter sets */
static int visit_ranks(psk_fprog *p, int32_t node, const psk_mevent *me, uint64_t exec, int j0, int j1)
{
    symd *d = &p->sd[node];
    for (int j = j0; j < j1; j++) {
        int q = me->ranks[j];
        const psk_event *ev = &me->ev[(uint32_t)j & me->jmask];
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
        if (psk_fn_op(ev->fn) == PSK_FNOP_IRECV && PSK_HAS(ev, PSK_F_PEER) && ev->v[PSK_F_PEER] == PSK_ANY_SOURCE &&
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
            p->bs->nwild++;
            continue;
        }
        if (assign(p, d, s, exec, psk_fprogi_intern(p, ev)))
            return p->rc;
        if (PSK_HAS(ev, PSK_F_STATUSES) && p->npend[q] && complete(p, q, ev))
            return p->rc;
    }
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
    uint64_t exec = p->bs->execno[node]++;
    if (psk_fn_class(me->fn) == PSK_CLASS_COMM) /* made, freed, ...: ranks' contexts may change */
        p->bs->commgen++;
    int64_t was = same_as_earlier(p, node, me, exec);
    uint64_t nwild = p->bs->nwild;
    /* a part of the ranks at a time: decoded, then each use of them */
    for (int j0 = 0; j0 < me->nranks; j0 += PSK_MCURSOR_CHUNK) {
        int j1 = me->nranks - j0 > PSK_MCURSOR_CHUNK ? j0 + PSK_MCURSOR_CHUNK : me->nranks;
        if ((rc = psk_mcursor_fill(st->cur, j1))) /* the merged trace's error, in its message */
            return rc;
        if (p->bs->each && (rc = p->bs->each(p->bs->each_arg, me, j0, j1, p->err, p->errcap)))
            return p->rc = rc;
        if (was < 0) {
            if (visit_ranks(p, node, me, exec, j0, j1))
                return p->rc;
        } else { /* every rank's set is that execution's */
            for (int j = j0; d->nidx && j < j1; j++)
                if (d->slots[j].idx)
                    d->slots[j].idx[exec] = d->slots[j].idx[was];
        }
    }
    lastx *h = &p->bs->last[(size_t)node * NHIST + exec % NHIST];
    if (p->bs->nwild != nwild && h->valid && h->exec == exec)
        h->wild = 1;
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

/* slot s's parameter set at execution e */
static uint32_t slot_id(const slot *s, uint64_t e) { return s->idx ? s->idx[e] : s->first; }

/* how set x, of a rank dq after the reference rank's, relates to set b,
 * the reference rank's in the same execution: 0 if they differ in more
 * than scalars; else 1, the scalars (bits by field) that are equal in *eq
 * and those that differ by dq in *rl */
static int relate(const psk_fprog *p, uint32_t b, uint32_t x, uint64_t dq, uint32_t *eq, uint32_t *rl)
{
    const pset *sb = &p->set[b], *sx = &p->set[x];
    uint32_t scal = sb->fields & ((1u << PSK_F_FIRST_ARRAY) - 1u);
    *eq = *rl = 0;
    if (x == b) {
        *eq = scal;
        return 1;
    }
    uint64_t len = set_len(p, b);
    int nsc = __builtin_popcount(scal);
    if (sx->fn != sb->fn || sx->fields != sb->fields || set_len(p, x) != len)
        return 0;
    const int64_t *bv = p->vals + sb->off, *xv = p->vals + sx->off;
    if (len > (uint64_t)nsc && memcmp(xv + nsc, bv + nsc, (size_t)(len - (uint64_t)nsc) * sizeof *xv))
        return 0;
    int i = 0;
    for (uint32_t f = scal; f; f &= f - 1, i++) {
        uint64_t dv = (uint64_t)xv[i] - (uint64_t)bv[i];
        *eq |= dv ? 0 : f & -f;
        *rl |= dv == dq ? f & -f : 0;
    }
    return 1;
}

/* the scalars every execution of slot j keeps equal to the reference
 * slot j0's (*eq) and the rank plus a constant (*rl); 0 if some execution
 * differs otherwise (then j is an exception). Each pair of sets is
 * compared once: a rank's executions repeat few pairs (tags that take a
 * few values), remembered in a small table. */
static int follows(const psk_fprog *p, const symd *d, int j0, int j, uint32_t scal, uint32_t *eq, uint32_t *rl)
{
    const slot *s0 = &d->slots[j0], *s = &d->slots[j];
    uint64_t dq = (uint64_t)d->ranks[j] - (uint64_t)d->ranks[j0];
    uint64_t ne = s->idx || s0->idx ? d->execs : 1;
    uint32_t mb[4] = {NONE, NONE, NONE, NONE}, mx[4], me[4], mr[4];
    *eq = *rl = scal;
    for (uint64_t e = 0; e < ne && (*eq | *rl) == scal; e++) {
        uint32_t b = slot_id(s0, e), x = slot_id(s, e), fe, fr;
        if (x == NONE)
            return 0;
        int k = 0;
        while (k < 4 && !(mb[k] == b && mx[k] == x))
            k++;
        if (k == 4) {
            if (!relate(p, b, x, dq, &fe, &fr))
                return 0;
            k = (int)(e & 3);
            mb[k] = b, mx[k] = x, me[k] = fe, mr[k] = fr;
        }
        *eq &= me[k], *rl &= mr[k];
    }
    return (*eq | *rl) == scal;
}

/* the ranks that do not follow reference slot j0 (ok[j] 0) and how many;
 * each scalar in *rel if rank-relative, as most following ranks have it
 * (else constant); -1 if j0 is no reference (its function or fields
 * change between executions) */
static int exceptions(const psk_fprog *p, const symd *d, int j0, uint32_t *meq, uint32_t *mrl, uint8_t *ok,
                      uint32_t *rel)
{
    const slot *s0 = &d->slots[j0];
    uint32_t b0 = slot_id(s0, 0);
    if (b0 == NONE)
        return -1;
    unsigned fn = p->set[b0].fn;
    uint32_t fields = p->set[b0].fields, scal = fields & ((1u << PSK_F_FIRST_ARRAY) - 1u);
    for (uint64_t e = 1; s0->idx && e < d->execs; e++)
        if (s0->idx[e] == NONE || p->set[s0->idx[e]].fn != fn || p->set[s0->idx[e]].fields != fields)
            return -1;
    int n = d->nranks;
    for (int j = 0; j < n; j++)
        ok[j] = j == j0 || follows(p, d, j0, j, scal, &meq[j], &mrl[j]);
    *rel = 0;
    for (uint32_t f = scal; f; f &= f - 1) {
        int nc = 0, nr = 0;
        for (int j = 0; j < n; j++)
            if (ok[j] && j != j0)
                nc += (meq[j] & f & -f) != 0, nr += (mrl[j] & f & -f) != 0;
        *rel |= nr > nc ? f & -f : 0;
    }
    int nexc = 0;
    for (int j = 0; j < n; j++) {
        if (j != j0 && ok[j])
            ok[j] = (*rel & ~mrl[j]) == 0 && (scal & ~*rel & ~meq[j]) == 0;
        nexc += !ok[j];
    }
    return nexc;
}

/* node's pattern (symd: uni, rel, unix, exc) from reference slot j0, the
 * exceptions ok[] 0 (nexc of them): 0, or -1 if memory ran out */
static int make_pattern(psk_fprog *p, symd *d, int j0, uint32_t rel, const uint8_t *ok, int nexc)
{
    /* the set of each execution, its rank-relative scalars less the rank */
    const slot *s0 = &d->slots[j0];
    uint64_t q0 = (uint64_t)d->ranks[j0];
    uint32_t prev = NONE, id = NONE;
    uint64_t ne = s0->idx ? d->execs : 1;
    for (uint64_t e = 0; e < ne; e++) {
        uint32_t b = slot_id(s0, e);
        if (b != prev) {
            psk_event ev;
            memset(&ev, 0, sizeof ev);
            psk_fprogi_materialize(p, b, &ev);
            for (uint32_t f = rel; f; f &= f - 1)
                ev.v[__builtin_ctz(f)] = (int64_t)((uint64_t)ev.v[__builtin_ctz(f)] - q0);
            if ((id = rel ? psk_fprogi_intern(p, &ev) : b) == NONE)
                return -1;
            prev = b;
        }
        if (e == 0)
            d->uni = id;
        else if (id != d->uni && !d->unix) {
            if (!(d->unix = malloc(d->execs * sizeof *d->unix)))
                return -1;
            for (uint64_t k = 0; k < e; k++)
                d->unix[k] = d->uni;
        }
        if (d->unix)
            d->unix[e] = id;
    }
    d->rel = rel;
    if (nexc) {
        if (!(d->exc = calloc(((size_t)d->nranks + 63) / 64, sizeof *d->exc)))
            return -1;
        for (int j = 0; j < d->nranks; j++)
            d->exc[j >> 6] |= ok[j] ? 0 : 1ull << (j & 63);
    }
    return 0;
}

/* node's pattern (symd: uni, rel, unix, exc), when its ranks pass in each
 * execution one set but for scalars that are constant or the rank plus a
 * constant (arrays equal), but for exceptions. The reference is the one
 * of a few ranks with the fewest exceptions: first one in the middle (a
 * boundary rank, whose neighbour may be MPI_PROC_NULL, is the exception
 * rather than the rule; one past the middle, as ranks on a grid whose
 * side is a power of two start a row there), then a third in, two thirds,
 * a fifth. The values are kept as interned (the per-rank sets stay, for
 * the exceptions and the skip's tag lookups); the cursors then read only
 * the pattern, shared by every rank but the exceptions. */
static int uniform(psk_fprog *p, int32_t node)
{
    symd *d = &p->sd[node];
    d->uni = NONE;
    if (!d->slots || d->nranks < 1 || !d->execs)
        return 0;
    int n = d->nranks;
    uint32_t *m = malloc(2 * (size_t)n * sizeof *m);
    uint8_t *ok = malloc((size_t)n);
    int rc = m && ok ? 0 : -1;
    const int ref[4] = {n / 2 + 1, n / 3 + 1, 2 * n / 3 + 1, n / 5 + 3};
    int best = -1, bexc = n + 1;
    uint32_t rel;
    for (int t = 0; t < 4 && !rc && bexc; t++) {
        int nexc = !t || ref[t] % n != ref[t - 1] % n ? exceptions(p, d, ref[t] % n, m, m + n, ok, &rel) : -1;
        if (nexc >= 0 && nexc < bexc)
            best = ref[t] % n, bexc = nexc;
    }
    /* the best's exceptions again (later references overwrote them) */
    if (!rc && best >= 0 && exceptions(p, d, best, m, m + n, ok, &rel) >= 0 && make_pattern(p, d, best, rel, ok, bexc))
        rc = -1;
    free(m), free(ok);
    if (rc < 0) {
        free(d->unix), free(d->exc);
        d->unix = NULL, d->exc = NULL, d->uni = NONE;
        return psk_fprogi_fail(p, PSK_ENOMEM, "out of memory");
    }
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
    if (p->bs)
        free(p->bs->last), free(p->bs->execno);
    free(p->bs);
    free(p->pend), free(p->npend), free(p->cappend), free(p->scratch), free(p->hash);
    free(p->keyid), free(p->itags);
    p->pend = NULL, p->npend = NULL, p->cappend = NULL, p->scratch = NULL, p->hash = NULL;
    p->bs = NULL;
    p->keyid = NULL, p->itags = NULL;
}

int psk_fprog_build(psk_merged *m, const psk_folded *f, int no_poll_loops, psk_fprog_each each, void *each_arg,
                    psk_fprog **out, char *err, size_t cap,
                    void (*progress)(void *arg, uint64_t done, uint64_t total), void *arg)
{
    psk_fprog *p = calloc(1, sizeof *p);
    *out = p;
    if (!p) {
        snprintf(err, cap, "out of memory");
        return PSK_ENOMEM;
    }
    p->f = f, p->err = err, p->errcap = cap, p->no_poll_loops = no_poll_loops;
    p->progress = progress, p->progress_arg = arg, p->length = (uint64_t)psk_merged_length(m);
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
        p->bs->last = calloc((size_t)p->nnodes * NHIST, sizeof *p->bs->last);
        p->bs->each = each, p->bs->each_arg = each_arg, p->bs->m = m;
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
    int rc = psk_folded_walk_heads(f, m, visit, p);
    if (p->rc || rc) /* the merged trace's own error (a block that does not decode), or a mismatch */
        return p->rc ? p->rc
                     : psk_fprogi_fail(p, rc, rc != PSK_EMISMATCH && rc != PSK_ENOMEM && psk_merged_errmsg(m)[0]
                                                  ? psk_merged_errmsg(m)
                                                  : rc == PSK_ENOMEM ? "out of memory"
                                                                     : "the merged trace does not match its folding");
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
        free(p->sd[i].pre), free(p->sd[i].unix), free(p->sd[i].exc);
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
        b += (d->unix ? d->execs * sizeof *d->unix : 0) + (d->exc ? ((uint64_t)d->nranks + 63) / 64 * 8 : 0);
    }
    return b;
}

int psk_fprog_pattern_events(const psk_fprog *p, int *events, uint64_t *exceptions)
{
    int n = 0;
    *events = 0, *exceptions = 0;
    for (int32_t i = 0; i < p->nnodes; i++) {
        const symd *d = &p->sd[i];
        *events += d->slots != NULL;
        n += d->slots && d->uni != NONE;
        for (int w = 0; d->exc && w < (d->nranks + 63) / 64; w++)
            *exceptions += (uint64_t)__builtin_popcountll(d->exc[w]);
    }
    return n;
}
