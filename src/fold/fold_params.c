/* Loop-variant parameters: for every loop-body event, the arguments that
 * change from one execution to the next (tags, roots, counts, peers,
 * request and communicator ids) written as an expression of the iteration
 * index of one enclosing loop: a * i + b, (a * i + b) mod m, periodic with
 * a short period, or failing that a table per iteration, per execution, or
 * per execution and rank. Every fit is checked against every execution,
 * so evaluating a parameter gives back exactly what was recorded. The k-th
 * execution of a node at depth D runs at the iteration indices of k written
 * in the mixed radix of its enclosing loops' counts, so no index is kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold_internal.h"
#include "perfskel/merge.h"

/* fields that may vary between executions of one folded event */
static const int var_fields[] = {PSK_F_PEER, PSK_F_TAG, PSK_F_COUNT, PSK_F_RPEER, PSK_F_RTAG,
                                 PSK_F_RCOUNT, PSK_F_ROOT, PSK_F_REQ, PSK_F_NEWID};
#define NVAR ((int)(sizeof var_fields / sizeof var_fields[0]))
#define PERIOD_MAX 64

typedef struct pacc {
    int mode, broken, used;
    int kinds;        /* OFFSET: 1 some rank + c had MPI_PROC_NULL, 2 some was a ring */
    int64_t first;    /* the value (VALUE, OFFSET) of execution 0 */
    int64_t *base;    /* DELTA: per rank, execution 0's value */
    int nbase;
    int64_t *vals;    /* per execution, once a value differs from first */
    int64_t *rk;      /* RANKEXEC: per execution and rank */
    int64_t nvals, cap, nrk;
} pacc;

typedef struct fparams {
    psk_fparam *p;
    int n;
} fparams;

typedef struct pwalk {
    psk_folded *f;
    pacc *acc;        /* nnodes x NVAR */
    int64_t *execs;   /* per node */
    int pass;         /* 1: fit, 2: per-rank tables of broken ones */
    int rc;
} pwalk;

static int push(pacc *a, int64_t v, int64_t k)
{
    if (!a->vals && v == a->first)
        return 0;
    if (k >= a->cap) {
        int64_t cap = a->cap ? a->cap : 16;
        while (cap <= k)
            cap *= 2;
        int64_t *x = realloc(a->vals, (size_t)cap * sizeof *x);
        if (!x)
            return -1;
        if (!a->vals)
            for (int64_t i = 0; i < k; i++)
                x[i] = a->first;
        a->vals = x;
        a->cap = cap;
    }
    a->vals[k] = v;
    a->nvals = k + 1;
    return 0;
}

/* how a peer pattern treats ranks past the end: 1 MPI_PROC_NULL (a rank
 * has it), 2 wraps around, 0 neither shows (rank + c within the
 * communicator: either describes it) */
static int offset_kind(const psk_mevent *me, int f)
{
    if (me->kind[f] == PSK_PAT_RING)
        return 2;
    for (int j = 0; j < me->nranks; j++)
        if (me->ev[j].v[f] == PSK_PROC_NULL)
            return 1;
    return 0;
}

/* the value of execution k in a's mode, or broken */
static int observe(pacc *a, const psk_mevent *me, int f, int64_t k)
{
    int peer = f == PSK_F_PEER || f == PSK_F_RPEER;
    if (k == 0) {
        a->used = 1;
        int same = 1;
        for (int j = 1; j < me->nranks; j++)
            same &= me->ev[j].v[f] == me->ev[0].v[f];
        if (peer && (me->kind[f] == PSK_PAT_RANK || me->kind[f] == PSK_PAT_RING)) {
            a->mode = PSK_PMODE_OFFSET;
            a->first = me->c[f];
            a->kinds = offset_kind(me, f);
        } else if (same) {
            a->mode = PSK_PMODE_VALUE;
            a->first = me->nranks ? me->ev[0].v[f] : 0;
        } else {
            a->mode = PSK_PMODE_DELTA;
            a->first = 0;
            a->base = malloc((size_t)me->nranks * sizeof *a->base);
            if (!a->base)
                return -1;
            for (int j = 0; j < me->nranks; j++)
                a->base[j] = me->ev[j].v[f];
            a->nbase = me->nranks;
        }
        return 0;
    }
    if (a->broken)
        return 0;
    if (a->mode == PSK_PMODE_OFFSET) {
        a->kinds |= me->kind[f] == PSK_PAT_RANK || me->kind[f] == PSK_PAT_RING ? offset_kind(me, f) : 3;
        if (a->kinds == 3) { /* wraps in some executions, not in others */
            a->broken = 1;
            return 0;
        }
        return push(a, me->c[f], k);
    }
    if (a->mode == PSK_PMODE_VALUE) {
        for (int j = 1; j < me->nranks; j++)
            if (me->ev[j].v[f] != me->ev[0].v[f]) {
                a->broken = 1;
                return 0;
            }
        return push(a, me->nranks ? me->ev[0].v[f] : 0, k);
    }
    int64_t d = me->nranks ? me->ev[0].v[f] - a->base[0] : 0;
    for (int j = 1; j < me->nranks; j++)
        if (me->ev[j].v[f] - a->base[j] != d) {
            a->broken = 1;
            return 0;
        }
    return push(a, d, k);
}

static int visit(void *arg, const psk_fstep *st)
{
    pwalk *w = arg;
    const psk_mevent *me = st->ev;
    int32_t node = st->node;
    int64_t k = w->execs[node]++;
    for (int v = 0; v < NVAR; v++) {
        int f = var_fields[v];
        if (!PSK_HAS(me, f))
            continue;
        pacc *a = &w->acc[(size_t)node * NVAR + (size_t)v];
        if (w->pass == 1) {
            if (observe(a, me, f, k))
                return w->rc = PSK_ENOMEM;
            continue;
        }
        if (!a->broken)
            continue;
        if (!a->rk) {
            a->nrk = me->nranks;
            a->rk = malloc(((size_t)a->nvals ? (size_t)a->nvals : 1) * (size_t)me->nranks * sizeof *a->rk);
            if (!a->rk)
                return w->rc = PSK_ENOMEM;
        }
        for (int j = 0; j < me->nranks && j < a->nrk; j++)
            a->rk[k * a->nrk + j] = me->ev[j].v[f];
    }
    return 0;
}

/* ---- fitting one value sequence ---- */

typedef struct radix {
    int D;
    int64_t count[64], stride[64];
} radix;

static int64_t idx(const radix *r, int d, int64_t k) { return (k / r->stride[d]) % r->count[d]; }

static int64_t mod(int64_t x, int64_t m) { return ((x % m) + m) % m; }

static int fit_affine(const int64_t *v, int64_t E, const radix *r, int d, psk_fparam *p)
{
    if (r->count[d] < 2 || r->stride[d] >= E)
        return 0;
    int64_t b = v[0], a = v[r->stride[d]] - v[0];
    for (int64_t k = 0; k < E; k++)
        if (v[k] != a * idx(r, d, k) + b)
            return 0;
    p->kind = PSK_VARY_AFFINE, p->a = a, p->b = b;
    return 1;
}

static int fit_mod(const int64_t *v, int64_t E, const radix *r, int d, int64_t lo, int64_t hi, psk_fparam *p)
{
    if (r->count[d] < 2 || r->stride[d] >= E || lo < 0 || hi < 1)
        return 0;
    int64_t m = hi + 1, b = v[0], a = mod(v[r->stride[d]] - v[0], m);
    for (int64_t k = 0; k < E; k++)
        if (v[k] != mod(a * idx(r, d, k) + b, m))
            return 0;
    p->kind = PSK_VARY_MOD, p->a = a, p->b = b, p->m = m;
    return 1;
}

/* table[i] = the value at iteration i of loop d (period: i mod per) */
static int64_t *fit_table(const int64_t *v, int64_t E, const radix *r, int d, int64_t per)
{
    int64_t *t = malloc((size_t)per * sizeof *t);
    if (!t)
        return NULL;
    for (int64_t i = 0; i < per; i++)
        t[i] = i * r->stride[d] < E ? v[i * r->stride[d]] : 0;
    for (int64_t k = 0; k < E; k++)
        if (v[k] != t[idx(r, d, k) % per]) {
            free(t);
            return NULL;
        }
    return t;
}

/* the simplest description of v[0..E): affine, mod, periodic, per
 * iteration, each at the innermost loop first; else per execution.
 * 0, or -1 when memory runs out. */
static int fit(int64_t *v, int64_t E, const radix *r, psk_fparam *p)
{
    int64_t lo = v[0], hi = v[0];
    for (int64_t k = 1; k < E; k++) {
        lo = v[k] < lo ? v[k] : lo;
        hi = v[k] > hi ? v[k] : hi;
    }
    p->lo = lo, p->hi = hi;
    for (int d = r->D - 1; d >= 0; d--)
        if (fit_affine(v, E, r, d, p)) {
            p->depth = d;
            return 0;
        }
    for (int d = r->D - 1; d >= 0; d--)
        if (fit_mod(v, E, r, d, lo, hi, p)) {
            p->depth = d;
            return 0;
        }
    for (int d = r->D - 1; d >= 0; d--)
        for (int64_t per = 2; per <= PERIOD_MAX && 2 * per <= r->count[d]; per++) {
            int64_t *t = fit_table(v, E, r, d, per);
            if (t) {
                p->kind = PSK_VARY_PERIODIC, p->m = per, p->n = per, p->table = t, p->depth = d;
                return 0;
            }
        }
    for (int d = r->D - 1; d >= 0; d--) {
        int64_t *t = r->count[d] <= E ? fit_table(v, E, r, d, r->count[d]) : NULL;
        if (t) {
            p->kind = PSK_VARY_ITER, p->n = r->count[d], p->table = t, p->depth = d;
            return 0;
        }
    }
    int64_t *t = malloc((size_t)E * sizeof *t);
    if (!t)
        return -1;
    memcpy(t, v, (size_t)E * sizeof *t);
    p->kind = PSK_VARY_EXEC, p->n = E, p->table = t, p->depth = r->D - 1;
    return 0;
}

static void node_radix(const psk_folded *f, int32_t id, radix *r)
{
    int D = 0;
    int32_t chain[64];
    for (int32_t x = f->node[id].parent; x > 0; x = f->node[x].parent)
        if (f->node[x].kind == PSK_FNODE_LOOP && D < 64)
            chain[D++] = x;
    r->D = D;
    int64_t s = 1;
    for (int d = D - 1; d >= 0; d--) { /* chain is innermost first */
        int32_t x = chain[D - 1 - d];
        r->count[d] = f->node[x].count;
        r->stride[d] = s;
        s *= f->node[x].count;
    }
}

static void pacc_free(pacc *a)
{
    free(a->base), free(a->vals), free(a->rk);
}

static int finish_node(psk_folded *f, int32_t id, pacc *acc, int64_t E)
{
    fparams *fp = &f->params[id];
    radix r;
    node_radix(f, id, &r);
    for (int v = 0; v < NVAR; v++) {
        pacc *a = &acc[v];
        if (!a->used || (!a->broken && !a->vals))
            continue;
        psk_fparam p = {.field = var_fields[v], .mode = a->mode, .depth = r.D - 1, .ring = a->kinds == 2};
        if (a->broken) {
            p.kind = PSK_VARY_RANKEXEC, p.n = E * a->nrk, p.table = a->rk, p.m = a->nrk;
            p.lo = p.hi = a->rk && p.n ? a->rk[0] : 0;
            for (int64_t i = 0; i < p.n; i++) {
                p.lo = a->rk[i] < p.lo ? a->rk[i] : p.lo;
                p.hi = a->rk[i] > p.hi ? a->rk[i] : p.hi;
            }
            a->rk = NULL;
            if (!p.table)
                return -1;
        } else {
            int64_t had = a->nvals;
            if (had < E && push(a, a->first, E - 1))
                return -1;
            for (int64_t k = had; k < E; k++) /* trailing executions equal to the first */
                a->vals[k] = a->first;
            if (fit(a->vals, E, &r, &p))
                return -1;
            if (a->mode == PSK_PMODE_DELTA) { /* lo, hi over the ranks' values */
                int64_t blo = a->base[0], bhi = a->base[0];
                for (int j = 1; j < a->nbase; j++) {
                    blo = a->base[j] < blo ? a->base[j] : blo;
                    bhi = a->base[j] > bhi ? a->base[j] : bhi;
                }
                p.lo += blo, p.hi += bhi;
            }
        }
        psk_fparam *np = realloc(fp->p, ((size_t)fp->n + 1) * sizeof *np);
        if (!np) {
            free((void *)p.table);
            return -1;
        }
        fp->p = np;
        fp->p[fp->n++] = p;
    }
    return 0;
}

void fold_params_free(psk_folded *f)
{
    for (int32_t id = 0; f->params && id < f->nnodes; id++) {
        for (int i = 0; i < f->params[id].n; i++)
            free((void *)f->params[id].p[i].table);
        free(f->params[id].p);
    }
    free(f->params);
    f->params = NULL;
}

/* one walk of the tree over the merged trace in w's pass */
static int walk_pass(psk_folded *f, psk_merged *m, pwalk *w)
{
    int rc = psk_folded_walk_merged(f, m, visit, w);
    return w->rc ? w->rc : rc;
}

int fold_params_compute(psk_folded *f, psk_merged *m)
{
    fold_params_free(f);
    int32_t nn = f->nnodes;
    pwalk w = {.f = f, .pass = 1};
    w.acc = calloc((size_t)nn * NVAR, sizeof *w.acc);
    w.execs = calloc((size_t)nn + 1, sizeof *w.execs);
    f->params = calloc((size_t)nn + 1, sizeof *f->params);
    int rc = PSK_ENOMEM, broken = 0;
    if (!w.acc || !w.execs || !f->params || (rc = walk_pass(f, m, &w)))
        goto out;
    for (size_t i = 0; i < (size_t)nn * NVAR; i++)
        broken |= w.acc[i].broken;
    if (broken) { /* the per-rank values of what fits no per-execution value */
        for (size_t i = 0; i < (size_t)nn * NVAR; i++)
            if (w.acc[i].broken)
                w.acc[i].nvals = w.execs[i / NVAR];
        memset(w.execs, 0, ((size_t)nn + 1) * sizeof *w.execs);
        w.pass = 2;
        if ((rc = walk_pass(f, m, &w)))
            goto out;
    }
    rc = PSK_ENOMEM;
    for (int32_t id = 0; id < nn; id++)
        if (f->node[id].kind == PSK_FNODE_SYM && w.execs[id] > 1 &&
            finish_node(f, id, &w.acc[(size_t)id * NVAR], w.execs[id]))
            goto out;
    rc = PSK_OK;
out:
    for (size_t i = 0; w.acc && i < (size_t)nn * NVAR; i++)
        pacc_free(&w.acc[i]);
    free(w.acc);
    free(w.execs);
    if (rc)
        fold_params_free(f);
    return rc;
}

const psk_fparam *psk_folded_params(const psk_folded *f, int32_t id, int *n)
{
    if (!f->params || id < 0 || id >= f->nnodes) {
        *n = 0;
        return NULL;
    }
    *n = f->params[id].n;
    return f->params[id].p;
}

int64_t psk_fparam_eval(const psk_fparam *p, int64_t i, int64_t k)
{
    switch (p->kind) {
    case PSK_VARY_AFFINE:
        return p->a * i + p->b;
    case PSK_VARY_MOD:
        return mod(p->a * i + p->b, p->m);
    case PSK_VARY_PERIODIC:
        return p->table[mod(i, p->m)];
    case PSK_VARY_ITER:
        return i >= 0 && i < p->n ? p->table[i] : 0;
    case PSK_VARY_EXEC:
        return k >= 0 && k < p->n ? p->table[k] : 0;
    default:
        return 0;
    }
}

void psk_fparam_desc(const psk_fparam *p, char *buf, size_t cap)
{
    const char *name = psk_field_name(p->field);
    const char *pre = p->mode == PSK_PMODE_DELTA ? "first + " : p->mode == PSK_PMODE_OFFSET ? "offset " : "";
    switch (p->kind) {
    case PSK_VARY_AFFINE:
        snprintf(buf, cap, "%s = %s%lld*i%d + %lld", name, pre, (long long)p->a, p->depth, (long long)p->b);
        break;
    case PSK_VARY_MOD:
        snprintf(buf, cap, "%s = %s(%lld*i%d + %lld) mod %lld", name, pre, (long long)p->a, p->depth,
                 (long long)p->b, (long long)p->m);
        break;
    case PSK_VARY_PERIODIC:
        snprintf(buf, cap, "%s = %speriodic(i%d, period %lld)", name, pre, p->depth, (long long)p->m);
        break;
    case PSK_VARY_ITER:
        snprintf(buf, cap, "%s = %stable(i%d, %lld values)", name, pre, p->depth, (long long)p->n);
        break;
    case PSK_VARY_EXEC:
        snprintf(buf, cap, "%s = %stable(execution, %lld values)", name, pre, (long long)p->n);
        break;
    default:
        snprintf(buf, cap, "%s = table(execution, rank: %lld values)", name, (long long)p->n);
    }
}
