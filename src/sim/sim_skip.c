/* Skipping loop iterations in perfskel sim --folded. A candidate loop
 * (sim_fprog.c: every rank takes part, its iterations repeat with a period
 * L but for tags that follow the index) is replayed iteration by iteration
 * while each rank is snapshotted as it begins one: its clock, its running
 * totals, its interval rows, how many messages and receives wait in its
 * queues (and for those whose tags follow the index, their summed ages).
 * When every rank is in the loop and, for some period of p iterations (a
 * multiple of L, up to 8 or 2L: ranks on a ring may take turns being
 * late), every rank's clock moved by the same delta over each of the last
 * p + 2 spans of p iterations and everything else by the same amounts each
 * time, the replay has become periodic: the state S = k x p iterations
 * later is this one with every time moved by k x delta, every total grown
 * by k times its increment, and every tag the loop gave the one it gives
 * S iterations on. That is applied at once to the whole state (clocks,
 * messages in flight, posted receives, requests, collectives under way,
 * the network's resources, the events read but not yet run), each rank's
 * cursor jumps S iterations, and the replay goes on for the last ones, so
 * the loop is left as it would have been. Not while a message or receive
 * from outside the loop waits, or waited at a snapshot of those spans,
 * with a tag that one of the loop's takes: they would match in one
 * iteration only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psk_mem.h"
#include "sim_state.h"

#define NSNAP 32 /* snapshots kept per rank at least: ranks may be a few iterations apart */
#define MAXPERIOD 8 /* longest period looked for, in iterations, unless 2L is longer */

typedef struct snap {
    int64_t iter;        /* -1: empty */
    double t;
    double acc[A_N];
    uint64_t nread;
    int depth;           /* its interval stack: frames above were opened inside the iteration */
    uint32_t nunexp, nposted, nmatched;
    int64_t nfol, age;   /* waiting ones whose tags follow the index, and their summed ages in iterations */
    int stray;           /* one waiting from outside the loop has a tag the loop's following tags take */
    int nrows;           /* intervals whose rows follow */
    double *rows;        /* nrows x (PSK_M_N + 1): the rank's row and entry count */
    int64_t caprows;     /* doubles */
} snap;

typedef struct skipr {
    int32_t node;        /* the candidate loop it is in, its execution, its iteration */
    int64_t exec, iter;
    snap *ring;          /* nsnap */
} skipr;

/* the loop execution ranks last entered, and where they are in it */
typedef struct skipg {
    int32_t node;
    int64_t exec;
    int n_in;            /* ranks in it */
    int64_t m, M;        /* once all are: the lowest and highest iteration begun */
    int at_m;            /* ranks whose iteration is m */
    int64_t nsnap;       /* snapshots in each rank's ring */
} skipg;

/* 1 if a message or receive (made by rank q's tree event onode, execution
 * oexec, its tag from field f) was made outside execution exec of
 * candidate node and has a tag that one of the loop's tags that follow the
 * index takes: skipping past the iteration where they would match would
 * lose that match */
static int stray(const psk_sim *s, int32_t node, int64_t exec, int q, int32_t onode, int64_t oexec, int f, int64_t tag)
{
    int64_t t = tag;
    if (psk_fprog_shift_tag(s->fp, node, exec, q, onode, &oexec, f, 0, &t))
        return 0;
    return tag != PSK_ANY_TAG && psk_fprog_tag_follows(s->fp, node, tag);
}

static int take(psk_sim *s, int q, snap *sn, int64_t iter)
{
    rank *r = &s->r[q];
    sn->iter = iter;
    sn->t = r->t;
    memcpy(sn->acc, r->acc, sizeof sn->acc);
    sn->nread = r->nread;
    sn->depth = r->depth;
    sn->nunexp = sn->nposted = sn->nmatched = 0;
    sn->nfol = sn->age = 0;
    sn->stray = 0;
    /* a message or receive whose tag follows the index is given the tag of
     * S iterations on when skipping: right if it is one of those every
     * iteration makes and the next ones take, wrong for one left waiting
     * (a match another tag took): then its age grows and the replay does
     * not look periodic */
    const skipr *k = &s->sk[q];
    int64_t i;
    for (int j = 0; j < 2; j++)
        for (const msg *m = j ? r->matched : r->unexp; m; m = m->next) {
            *(j ? &sn->nmatched : &sn->nunexp) += 1;
            if ((i = psk_fprog_follower(s->fp, k->node, k->exec, m->src, m->onode, m->oexec, m->ofield)) >= 0)
                sn->nfol++, sn->age += iter - i;
            sn->stray |= stray(s, k->node, k->exec, m->src, m->onode, m->oexec, m->ofield, m->tag);
        }
    for (const precv *p = r->posted; p; p = p->next) {
        sn->nposted++;
        if ((i = psk_fprog_follower(s->fp, k->node, k->exec, q, p->onode, p->oexec, p->ofield)) >= 0)
            sn->nfol++, sn->age += iter - i;
        sn->stray |= stray(s, k->node, k->exec, q, p->onode, p->oexec, p->ofield, p->tag);
    }
    int w = PSK_M_N + 1;
    if (psk_grow((void **)&sn->rows, &sn->caprows, (int64_t)s->niv * w - 1, sizeof *sn->rows))
        return PSK_ENOMEM;
    sn->nrows = s->niv;
    for (int i = 0; i < s->niv; i++) {
        memcpy(sn->rows + (size_t)i * (size_t)w, s->iv[i].m + (size_t)q * PSK_M_N, PSK_M_N * sizeof(double));
        sn->rows[(size_t)i * (size_t)w + PSK_M_N] = (double)s->iv[i].count[q];
    }
    return PSK_OK;
}

static const snap *find(const psk_sim *s, const skipr *k, int64_t iter)
{
    const snap *sn = &k->ring[iter % s->skg->nsnap];
    return sn->iter == iter ? sn : NULL;
}

/* equal within what rounding leaves of sums of values of size mag (and
 * tiny, in their unit) */
static int same(double a, double b, double mag, double tiny)
{
    return fabs(a - b) <= 1e-12 * mag + 1e-9 * fabs(b) + tiny;
}

/* 1 if every rank's spans of p iterations from m - 2p - 1 .. m - p to
 * m - p - 1 .. m repeated the last one exactly; *delta: the clock's step
 * over p iterations (every rank's) */
static int periodic(psk_sim *s, int64_t m, int64_t p, double *delta)
{
    const snap *a0 = find(s, &s->sk[0], m), *b0 = find(s, &s->sk[0], m - p);
    if (!a0 || !b0)
        return 0;
    double d = a0->t - b0->t, mag = fabs(a0->t);
    if (!(d > 0))
        return 0;
    int w = PSK_M_N + 1;
    for (int q = 0; q < s->P; q++) {
        const skipr *k = &s->sk[q];
        const snap *a = find(s, k, m), *b = find(s, k, m - p);
        if (!a || !b || a->nrows != b->nrows)
            return 0;
        for (int64_t i = m - 2 * p - 1; i < m - p; i++) {
            const snap *x = find(s, k, i + p), *y = find(s, k, i);
            if (!x || !y || !same(x->t - y->t, d, mag, 1e-6) || x->nread - y->nread != a->nread - b->nread ||
                x->nunexp != y->nunexp || x->nposted != y->nposted || x->nmatched != y->nmatched ||
                x->nfol != y->nfol || x->age != y->age || x->nrows != a->nrows || y->nrows != a->nrows ||
                x->depth != y->depth)
                return 0;
            for (int c = 0; c < A_N; c++)
                if (!same(x->acc[c] - y->acc[c], a->acc[c] - b->acc[c], mag, 1e-6))
                    return 0;
            for (int j = 0; j < a->nrows * w; j++)
                if (!same(x->rows[j] - y->rows[j], a->rows[j] - b->rows[j], 1e-9 * mag + fabs(a->rows[j]), 1e-15))
                    return 0;
        }
    }
    *delta = d;
    return 1;
}

static void shift_req(sreq *x, double by)
{
    x->post += by;
    if (!x->pending) {
        x->done += by, x->begin += by, x->end += by;
        if (x->partner > 0)
            x->partner += by;
    }
}

/* 1 if no rank's snapshot from iteration from on (to the one it is in)
 * saw a stray message or receive: none was taken by the iterations since,
 * which the skipped ones would not repeat, and none waits now (it would
 * have waited then) */
static int tags_apart(const psk_sim *s, int64_t from)
{
    for (int q = 0; q < s->P; q++) {
        const skipr *k = &s->sk[q];
        for (int64_t i = from; i <= k->iter; i++) {
            const snap *sn = find(s, k, i);
            if (!sn || sn->stray)
                return 0;
        }
    }
    return 1;
}

/* S = K x p iterations, each p of step delta, as measured between
 * iterations m - p and m, in execution exec of candidate node; rank qb's
 * event is read but not yet run */
static void skip(psk_sim *s, int32_t node, int64_t exec, int64_t K, int64_t p, double delta, int64_t m, int qb)
{
    double by = (double)K * delta;
    int64_t S = K * p;
    int w = PSK_M_N + 1;
    for (int q = 0; q < s->P; q++) {
        rank *r = &s->r[q];
        skipr *k = &s->sk[q];
        const snap *a = find(s, k, m), *b = find(s, k, m - p), *last = find(s, k, k->iter);
        double inc[A_N];
        for (int c = 0; c < A_N; c++)
            inc[c] = a->acc[c] - b->acc[c];
        double comm = inc[A_P2P] + inc[A_COLL] + inc[A_WAIT] - inc[A_SYNC];
        psk_simi_tl_spread(s, q, 0, r->t, by, (double)K * inc[A_CPU]);
        psk_simi_tl_spread(s, q, 1, r->t, by, (double)K * comm);
        psk_simi_tl_spread(s, q, 2, r->t, by, (double)K * inc[A_SYNC]);
        r->t += by;
        if (r->state == 1) {
            r->tcall += by, r->tdone += by;
            if (r->partner > 0)
                r->partner += by;
        }
        for (int c = 0; c < A_N; c++)
            r->acc[c] += (double)K * inc[c];
        /* intervals opened inside the current iteration move with it */
        for (int i = last ? last->depth : r->depth; i < r->depth; i++) {
            r->stack[i].t_open += by;
            for (int c = 0; c < A_N; c++)
                r->stack[i].acc[c] += (double)K * inc[c];
        }
        for (int i = 0; i < a->nrows; i++) {
            double *row = s->iv[i].m + (size_t)q * PSK_M_N;
            const double *x = a->rows + (size_t)i * (size_t)w, *y = b->rows + (size_t)i * (size_t)w;
            for (int c = 0; c < PSK_M_N; c++)
                row[c] += (double)K * (x[c] - y[c]);
            s->iv[i].count[q] += (uint64_t)K * (uint64_t)llround(x[PSK_M_N] - y[PSK_M_N]);
        }
        uint64_t nev = (uint64_t)K * (a->nread - b->nread);
        r->nread += nev;
        s->events += nev;
        for (int64_t id = 0; id < r->nreq; id++)
            if (r->req[id].used)
                shift_req(&r->req[id], by);
        /* what the loop made keeps its tag S iterations on (the same unless
         * it follows the index) */
        for (int j = 0; j < 2; j++)
            for (msg *mg = j ? r->matched : r->unexp; mg; mg = mg->next) {
                mg->post += by, mg->arrive += by;
                psk_fprog_shift_tag(s->fp, node, exec, mg->src, mg->onode, &mg->oexec, mg->ofield, S, &mg->tag);
            }
        for (precv *pr = r->posted; pr; pr = pr->next) {
            pr->post += by;
            psk_fprog_shift_tag(s->fp, node, exec, q, pr->onode, &pr->oexec, pr->ofield, S, &pr->tag);
        }
        psk_fcursor_skip(r->fc, S);
        if (q == qb || r->has_ev) /* read, not yet run: it is the one S iterations on */
            psk_fcursor_reload(r->fc, &r->ev);
        psk_fcursor_origin(r->fc, &r->onode, &r->oexec);
        k->node = -1; /* its iterations are numbered anew */
    }
    s->skg->node = -1;
    for (coll_inst *c = s->colls; c; c = c->next)
        for (int i = 0; i < c->n; i++)
            c->arrive[i] += by;
    psk_net *n = &s->net;
    n->bus_free += by;
    if (n->out_free) {
        size_t links = (size_t)n->nnodes * (size_t)s->m->links;
        for (size_t i = 0; i < links; i++)
            n->out_free[i] += by, n->in_free[i] += by;
    }
    for (int i = 0; n->buses_free && i < s->m->buses; i++)
        n->buses_free[i] += by;
    for (int q = 0; q < s->P; q++)
        if (s->r[q].state == 0 && !s->r[q].running)
            psk_simi_rekey(s, q);
    s->skipped_iters += S;
    s->skips++;
}

/* ranks at iteration m of the execution g follows */
static int count_at(const psk_sim *s, const skipg *g, int64_t m)
{
    int n = 0;
    for (int i = 0; i < s->P; i++)
        n += s->sk[i].node == g->node && s->sk[i].exec == g->exec && s->sk[i].iter == m;
    return n;
}

/* rank q begins iteration iter: where every rank is (O(1), and O(P) once
 * per iteration of the slowest) */
static void follow(psk_sim *s, skipr *k, int32_t node, int64_t exec, int64_t iter)
{
    skipg *g = s->skg;
    int joined = k->node != node || k->exec != exec;
    if (joined && (g->node != node || g->exec != exec)) /* the first rank in a new execution */
        g->node = node, g->exec = exec, g->n_in = 0, g->m = 0, g->M = -1, g->at_m = 0;
    int64_t was = k->iter;
    k->node = node, k->exec = exec, k->iter = iter;
    if (g->node != node || g->exec != exec)
        return; /* an execution the others left already */
    g->M = iter > g->M ? iter : g->M;
    if (joined && ++g->n_in == s->P) {
        g->m = INT64_MAX;
        for (int i = 0; i < s->P; i++)
            g->m = s->sk[i].iter < g->m ? s->sk[i].iter : g->m;
        g->at_m = count_at(s, g, g->m);
    } else if (!joined && g->n_in == s->P && was == g->m && --g->at_m == 0) {
        g->m++; /* the rank that moved is there: the new lowest */
        g->at_m = count_at(s, g, g->m);
    }
}

int psk_simi_boundary(psk_sim *s, int q, int32_t node, int64_t exec, int64_t iter, int64_t count)
{
    if (!s->sk) {
        s->sk = calloc((size_t)s->P, sizeof *s->sk);
        s->skg = calloc(1, sizeof *s->skg);
        if (!s->sk || !s->skg)
            return PSK_ENOMEM;
        s->skg->node = -1;
        /* room for 2 x the longest period + 1 snapshots, and ranks apart */
        int64_t L = psk_fprog_max_period(s->fp), pmax = 2 * L > MAXPERIOD ? 2 * L : MAXPERIOD;
        s->skg->nsnap = 2 * pmax + 16 > NSNAP ? 2 * pmax + 16 : NSNAP;
        for (int i = 0; i < s->P; i++) {
            s->sk[i].node = -1;
            if (!(s->sk[i].ring = calloc((size_t)s->skg->nsnap, sizeof *s->sk[i].ring)))
                return PSK_ENOMEM;
        }
    }
    skipr *k = &s->sk[q];
    int64_t nsnap = s->skg->nsnap;
    if (k->node != node || k->exec != exec)
        for (int i = 0; i < nsnap; i++)
            k->ring[i].iter = -1;
    follow(s, k, node, exec, iter);
    if (take(s, q, &k->ring[iter % nsnap], iter))
        return PSK_ENOMEM;
    const skipg *g = s->skg;
    if (s->opts->no_skip || g->node != node || g->exec != exec || g->n_in < s->P)
        return PSK_OK;
    int64_t m = g->m, M = g->M;
    if (m < 3 || count - 1 - M < 1)
        return PSK_OK;
    if (s->eval_node == node && s->eval_exec == exec && s->eval_iter == m)
        return PSK_OK; /* checked already */
    s->eval_node = node, s->eval_exec = exec, s->eval_iter = m;
    /* periods are multiples of the loop's; the snapshots from m - 2p - 1 to
     * M must still be in every ring */
    int64_t L = psk_fprog_period(s->fp, node), pmax = 2 * L > MAXPERIOD ? 2 * L : MAXPERIOD;
    for (int64_t p = L; p <= pmax && 2 * p + 1 <= m && M - (m - 2 * p - 1) < nsnap; p += L) {
        double delta;
        int64_t K = (count - 1 - M) / p;
        if (K >= 1 && periodic(s, m, p, &delta)) {
            if (tags_apart(s, m - 2 * p - 1))
                skip(s, node, exec, K, p, delta, m, q);
            break;
        }
    }
    return PSK_OK;
}

void psk_simi_skip_free(psk_sim *s)
{
    for (int q = 0; s->sk && q < s->P; q++) {
        for (int i = 0; s->sk[q].ring && i < s->skg->nsnap; i++)
            free(s->sk[q].ring[i].rows);
        free(s->sk[q].ring);
    }
    free(s->sk);
    free(s->skg);
}
