/* The loops of perfskel sim --folded's program whose iterations may be
 * skipped (candidates; sim_skip.c decides when), found top down: a loop
 * every rank takes part in, or consecutive loops of as many iterations
 * whose ranks are apart and together all (each rank runs its own), whose
 * iterations repeat with a period of L <= 64 in everything but their tags,
 * and whose tags either repeat too or follow the index (t(i + L) = t(i) +
 * D, one D for the loop, never a value a repeating tag takes): then
 * iterations i and i + L match their messages alike. */
#include <stdlib.h>
#include <string.h>

#include "psk_mem.h"
#include "sim_fprog_internal.h"

#define LMAX 64 /* longest period of a candidate's iterations */

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
    return psk_fn_op(fn) == PSK_FNOP_SEND_INIT || psk_fn_op(fn) == PSK_FNOP_RECV_INIT;
}

/* each parameter set's key: the set with its tags (tag, rtag, the status
 * tag and the statuses' tags) cleared, which the replay's timing follows
 * but for the matching of messages; and the tags persistent inits give */
int psk_fprogi_key_sets(psk_fprog *p)
{
    uint32_t n = p->nset;
    int64_t cap = 0, capst = 0;
    int64_t *st = NULL;
    int oom = psk_grow((void **)&p->keyid, &cap, n ? n - 1 : 0, sizeof *p->keyid);
    for (uint32_t id = 0; id < n && !oom; id++) {
        psk_event ev;
        memset(&ev, 0, sizeof ev);
        psk_fprogi_materialize(p, id, &ev);
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
        uint32_t k = psk_fprogi_intern(p, &ev);
        oom = k == NONE;
        p->keyid[id] = k;
    }
    free(st);
    return oom ? psk_fprogi_fail(p, PSK_ENOMEM, "out of memory") : 0;
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
static int tag_used(unsigned fn, int f)
{
    if (f == PSK_F_ATAG)
        return psk_fn_op(fn) == PSK_FNOP_MRECV || psk_fn_op(fn) == PSK_FNOP_IMRECV;
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
                if (has && tag_used(p->set[s->first].fn, tagf[t]))
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
                    if (!has || !tag_used(p->set[ids[0]].fn, tagf[t]))
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
int psk_fprogi_find_cands(psk_fprog *p, int32_t node)
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
            return psk_fprogi_fail(p, PSK_ENOMEM, "out of memory");
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
        if (psk_fprogi_find_cands(p, ch[i]))
            return p->rc;
        i++;
    }
    return 0;
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
    int j = psk_fprogi_slot_of(p, node, q);
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
