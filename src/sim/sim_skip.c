/* Skipping loop iterations in perfskel sim --folded. A candidate loop
 * (sim_fprog.c: every rank takes part, its iterations repeat with a period
 * L but for tags that follow the index) is replayed iteration by iteration,
 * each event with the compute gap recorded before it (psk_fgaps), while
 * each rank is snapshotted as it begins one: its clock, its running
 * totals, its interval rows, how many messages and receives wait in its
 * queues (and for those whose tags follow the index, their ages), and as
 * its events are read, the iteration's segments (compute and MPI time up
 * to and with each call that may wait for another rank). Then S
 * iterations (a multiple of L) are skipped: every time in the state
 * (clocks, messages in flight, posted receives, requests, collectives
 * under way, the network's resources) moves by one advance D, each rank's
 * compute grows by the gaps recorded in those iterations (read past), its
 * MPI time by D less that, every tag the loop gave becomes the one it
 * gives S iterations on, each rank's cursor jumps S iterations, and the
 * replay goes on for the last ones.
 *
 * D is known (1) when the replay repeats exactly: for a period of p
 * iterations (a multiple of L, up to 8 or 2L), every rank's clock moved by
 * the same delta over each of the last p + 2 spans of p iterations and
 * everything else by the same amounts (gaps the same every iteration):
 * D = K x delta for S = K x p, as replaying them gives; (2) otherwise
 * statistically, from a window of replayed iterations. A surrogate g is
 * the advance if each iteration, or each segment, ended in a barrier: the
 * sum of the slowest rank's compute and MPI time not spent waiting. The
 * skipped iterations' g comes from their recorded gaps; what the replay
 * adds to g, or takes off, is the window's: D = their g + S / W x (the
 * window's advance - its g), with the surrogate whose residual is the
 * steadier. The window grows until D's standard error (from the spread of
 * the residual over batches of the window) is under PRECISION of the
 * predicted time. The waiting in D (D less compute and the MPI time not
 * spent waiting, as in the window) is shared between point to point,
 * collectives and waits where the segments' g puts it, calibrated on the
 * window; the rows of intervals inside the iterations grow as in the
 * window, scaled as their rank's totals. No window holds an iteration
 * where a message or receive from outside the loop waited with a tag that
 * one of the loop's tags that follow the index takes (it would match in
 * one iteration only), or one of the loop's own had waited long (left
 * over when another took its match: a tag S iterations on would be wrong
 * for it). docs/simulation.md, "How iterations are skipped". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psk_mem.h"
#include "sim_state.h"

#define NSNAP 32 /* snapshots kept per rank at least: ranks may be a few iterations apart */
#define MAXPERIOD 8 /* longest period looked for, in iterations, unless 2L is longer */
/* the statistical skip: a loop execution's first WARM iterations are in
 * no window; a window holds WIN_MIN iterations, NB_MIN batches (a batch:
 * blocks of L iterations, 4 iterations at least) and WIN_FRAC of the loop
 * at least (a window early in a long loop may not stand for the rest);
 * the last TAIL iterations are always replayed; the standard error of the
 * skipped advance must be under PRECISION of the predicted time up to the
 * skip's end (a 1 % error is then more than 3 of them) */
#define WARM 2
#define WIN_MIN 16
#define NB_MIN 4
#define BIG 4 /* and batches BIG times as long, against residuals that come in bursts */
#define WIN_FRAC 0.1
#define TAIL 2
#define PRECISION 0.003

typedef struct snap {
    int64_t iter;        /* -1: empty */
    double t;
    double acc[A_N];
    uint64_t nread;
    int depth;           /* its interval stack: frames above were opened inside the iteration */
    uint32_t nunexp, nposted, nmatched;
    int64_t nfol, age;   /* waiting ones whose tags follow the index, and their summed ages in iterations */
    int64_t maxage;      /* and the oldest's age (0 if none) */
    int stray;           /* one waiting from outside the loop has a tag the loop's following tags take */
    int nrows;           /* intervals whose rows follow */
    double *rows;        /* nrows x (PSK_M_N + 1): the rank's row and entry count */
    int64_t caprows;     /* doubles */
    /* the iteration's segments, as its events are read: the compute and
     * the MPI time less waiting up to and with each blocking call, and
     * after the last (nseg), and where those calls are in it */
    int nseg;
    double *segc, *sego, *segw; /* and the waiting at its call */
    int64_t capc, capo, capw;
    int32_t *spos;       /* nseg - 1 */
    int8_t *scls;        /* and the totals they go to (A_P2P, A_COLL, A_WAIT) */
    int64_t capspos, capscls;
} snap;

typedef struct skipr {
    int32_t node;        /* the candidate loop it is in, its execution, its iteration */
    int64_t exec, iter;
    snap *ring;          /* nsnap */
    snap base;           /* at the window's first iteration */
    /* per iteration (SUR_ITER) and segment (SUR_SEG) of a block: the MPI
     * time less waiting, summed over the window */
    double *own[3];
    int64_t capown[3];
    /* per segment of a block: the waiting the segments' g says, and the
     * replay's, summed over the window */
    double *wmod, *wact;
    int64_t capwm, capwa;
    double last_sync;    /* its waiting when its last event was read */
    double last_own;     /* MPI time less waiting when its last event was read */
    int64_t last_iter;   /* the iteration of that event (-1: none to follow) */
    int last_seg;        /* and its segment */
} skipr;

/* one surrogate of the advance against the replay's over the window:
 * the residual (the replay's advance less the surrogate's) of batches of
 * blocks, and of batches BIG times as long */
typedef struct resid {
    double G;            /* the surrogate summed over the window */
    double rb[2];        /* the current batches' residuals */
    double R1[2], R2[2]; /* sums of the batches' residuals, and of their squares */
    int64_t nb[2];       /* batches */
} resid;

/* the loop execution ranks last entered, where they are in it, and the
 * window of its iterations measured so far */
typedef struct skipg {
    int32_t node;
    int64_t exec;
    int n_in;            /* ranks in it */
    int64_t m, M;        /* once all are: the lowest and highest iteration begun */
    int at_m;            /* ranks whose iteration is m */
    int64_t nsnap;       /* snapshots in each rank's ring */
    int64_t first;       /* the lowest iteration when all were in */
    int64_t next;        /* the next iteration to measure (once every rank is past it) */
    int64_t L, bat;      /* the loop's period; blocks per batch */
    int64_t w0, nw;      /* the window: iterations w0 .. w0 + nw - 1 (w0 -1: none) */
    double ba;           /* the current block's advance (mean over ranks) */
    double gb[3];        /* its g per iteration (SUR_ITER) and per segment (SUR_SEG) */
    resid rs[3];         /* of g per iteration and per segment */
    int noseg;           /* ranks' iterations had different numbers of segments */
    int segbase;         /* segments of the current block before its current iteration's */
    int bseg;            /* segments in a block (0: no block yet) */
    int dead;            /* its highest iteration begun is the last: nothing of it can be skipped */
} skipg;

/* the surrogates of the advance: g per block of L iterations (the exact
 * skip's), per iteration, per segment */
enum { SUR_BLOCK, SUR_ITER, SUR_SEG };

/* what the skip is measured on: the window ending at m */
typedef struct win {
    int64_t nw;          /* iterations */
    double res;          /* the residual per block of L iterations: the advance less g */
    int sur;             /* g per block, iteration or segment */
    int ring;            /* the first snapshot is in the ring (m - nw), else each rank's base */
    double se;           /* the standard error of D */
} win;

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

static void count_follower(snap *sn, int64_t made, int64_t iter)
{
    if (made < 0)
        return;
    sn->nfol++, sn->age += iter - made;
    if (iter - made > sn->maxage)
        sn->maxage = iter - made;
}

static int take(psk_sim *s, int q, snap *sn, int64_t iter)
{
    rank *r = &s->r[q];
    s->snapshots++;
    sn->iter = iter;
    sn->t = r->t;
    memcpy(sn->acc, r->acc, sizeof sn->acc);
    sn->nread = r->nread;
    sn->depth = r->depth;
    sn->nunexp = sn->nposted = sn->nmatched = 0;
    sn->nfol = sn->age = sn->maxage = 0;
    sn->stray = 0;
    /* a message or receive whose tag follows the index is given the tag of
     * S iterations on when skipping: right if it is one of those every
     * iteration makes and the next ones take, wrong for one left waiting
     * (a match another tag took): then its age grows */
    const skipr *k = &s->sk[q];
    for (int j = 0; j < 2; j++)
        for (const msg *m = j ? r->matched : r->unexp; m; m = m->next) {
            *(j ? &sn->nmatched : &sn->nunexp) += 1;
            count_follower(sn, psk_fprog_follower(s->fp, k->node, k->exec, m->src, m->onode, m->oexec, m->ofield),
                           iter);
            sn->stray |= stray(s, k->node, k->exec, m->src, m->onode, m->oexec, m->ofield, m->tag);
        }
    for (const precv *p = r->posted; p; p = p->next) {
        sn->nposted++;
        count_follower(sn, psk_fprog_follower(s->fp, k->node, k->exec, q, p->onode, p->oexec, p->ofield), iter);
        sn->stray |= stray(s, k->node, k->exec, q, p->onode, p->oexec, p->ofield, p->tag);
    }
    int w = PSK_M_N + 1;
    if (psk_grow((void **)&sn->rows, &sn->caprows, (int64_t)s->niv * w - 1, sizeof *sn->rows) ||
        psk_grow((void **)&sn->segc, &sn->capc, 0, sizeof *sn->segc) ||
        psk_grow((void **)&sn->sego, &sn->capo, 0, sizeof *sn->sego) ||
        psk_grow((void **)&sn->segw, &sn->capw, 0, sizeof *sn->segw))
        return PSK_ENOMEM;
    sn->nseg = 1;
    sn->segc[0] = sn->sego[0] = sn->segw[0] = 0;
    sn->nrows = s->niv;
    for (int i = 0; i < s->niv; i++) {
        memcpy(sn->rows + (size_t)i * (size_t)w, s->iv[i].m + (size_t)q * PSK_M_N, PSK_M_N * sizeof(double));
        sn->rows[(size_t)i * (size_t)w + PSK_M_N] = (double)s->iv[i].count[q];
    }
    return PSK_OK;
}

/* x's times, totals and rows into d (not its segments) */
static int copy_snap(snap *d, const snap *x)
{
    double *rows = d->rows;
    int64_t cap = d->caprows;
    int w = PSK_M_N + 1;
    if (x->nrows && psk_grow((void **)&rows, &cap, (int64_t)x->nrows * w - 1, sizeof *rows))
        return PSK_ENOMEM;
    *d = *x;
    d->rows = rows, d->caprows = cap;
    d->nseg = 0, d->segc = d->sego = d->segw = NULL, d->spos = NULL, d->scls = NULL;
    d->capc = d->capo = d->capw = d->capspos = d->capscls = 0;
    if (x->nrows)
        memcpy(rows, x->rows, (size_t)x->nrows * (size_t)w * sizeof *rows);
    return PSK_OK;
}

static const snap *find(const psk_sim *s, const skipr *k, int64_t iter)
{
    const snap *sn = &k->ring[iter % s->skg->nsnap];
    return sn->iter == iter ? sn : NULL;
}

/* MPI time not spent waiting for a partner, up to a snapshot */
static double own_mpi(const snap *x) { return x->acc[A_P2P] + x->acc[A_COLL] + x->acc[A_WAIT] - x->acc[A_SYNC]; }

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

/* ---- the window ---- */

/* the oldest a waiting message or receive whose tag follows the index may
 * be, in iterations: older, it is one left over (or of a pipeline deeper
 * than skipping follows statistically). A window is longer: one left over
 * as a stray message took its match (the stray waited until then: no
 * window began before) is older than this by the end of the window */
static int64_t age_max(const psk_sim *s)
{
    int64_t L = s->skg->L;
    return (2 * L > MAXPERIOD ? 2 * L : MAXPERIOD) + 2;
}

/* block number nblk of the window advanced by a where the surrogate said g */
static void res_add(const skipg *g, resid *r, int64_t nblk, double gv, double a)
{
    r->G += gv;
    for (int k = 0; k < 2; k++) {
        r->rb[k] += a - gv;
        if (nblk % (k ? BIG * g->bat : g->bat) == 0) {
            r->R1[k] += r->rb[k], r->R2[k] += r->rb[k] * r->rb[k];
            r->nb[k]++;
            r->rb[k] = 0;
        }
    }
}

/* the standard error of the advance of S iterations estimated with r: the
 * skipped batches' residual is the window's mean, off by its own spread
 * and by the mean's; from the spread of the window's batches, the larger
 * of the two lengths' (the long ones once there are 4) */
static double res_se(const skipg *g, const resid *r, int64_t S)
{
    double se = 0;
    for (int k = 0; k < 2; k++) {
        double nb = (double)r->nb[k], K = (double)S / (double)(g->L * g->bat * (k ? BIG : 1));
        if (r->nb[k] < (k ? 4 : 2))
            continue;
        double var = (r->R2[k] - r->R1[k] * r->R1[k] / nb) / (nb - 1), e = sqrt(var > 0 ? var * (K + K * K / nb) : 0);
        se = e > se ? e : se;
    }
    return se;
}

/* iteration i is over on every rank (each has begun i + 1): measured into
 * the window, which it starts or, if stray messages or receives waited or
 * a snapshot is gone, ends */
static int win_add(psk_sim *s, int64_t i)
{
    skipg *g = s->skg;
    int64_t amax = age_max(s);
    for (int q = 0; q < s->P; q++) {
        const skipr *k = &s->sk[q];
        const snap *x = find(s, k, i), *y = find(s, k, i + 1);
        if (!x || !y || x->stray || y->stray || x->maxage > amax || y->maxage > amax) {
            g->w0 = -1;
            return PSK_OK;
        }
    }
    if (g->w0 < 0) {
        if (i < g->first + WARM)
            return PSK_OK;
        g->w0 = i, g->nw = 0;
        g->ba = g->gb[SUR_ITER] = g->gb[SUR_SEG] = 0;
        memset(g->rs, 0, sizeof g->rs);
        g->noseg = g->segbase = g->bseg = 0;
        for (int q = 0; q < s->P; q++) {
            skipr *k = &s->sk[q];
            if (copy_snap(&k->base, find(s, k, i)))
                return PSK_ENOMEM;
            for (int u = SUR_ITER; u <= SUR_SEG; u++)
                if (k->own[u])
                    memset(k->own[u], 0, (size_t)k->capown[u] * sizeof *k->own[u]);
            if (k->wmod)
                memset(k->wmod, 0, (size_t)k->capwm * sizeof *k->wmod);
            if (k->wact)
                memset(k->wact, 0, (size_t)k->capwa * sizeof *k->wact);
        }
    }
    double a = 0, gi = 0;
    int nseg = find(s, &s->sk[0], i)->nseg;
    int64_t j = (i - g->w0) % g->L;
    for (int q = 0; q < s->P; q++) {
        skipr *k = &s->sk[q];
        const snap *x = find(s, k, i), *y = find(s, k, i + 1);
        double own = own_mpi(y) - own_mpi(x), c = y->acc[A_CPU] - x->acc[A_CPU];
        if (psk_grow((void **)&k->own[SUR_ITER], &k->capown[SUR_ITER], j, sizeof *k->own[SUR_ITER]))
            return PSK_ENOMEM;
        k->own[SUR_ITER][j] += own;
        gi = c + own > gi ? c + own : gi;
        a += y->t - x->t;
        g->noseg |= x->nseg != nseg;
    }
    g->gb[SUR_ITER] += gi;
    /* per segment, the slowest rank's compute and MPI time less waiting */
    for (int e = 0; e < nseg && !g->noseg; e++) {
        double gm = 0;
        for (int q = 0; q < s->P; q++) {
            skipr *k = &s->sk[q];
            const snap *x = find(s, k, i);
            gm = x->segc[e] + x->sego[e] > gm ? x->segc[e] + x->sego[e] : gm;
            if (psk_grow((void **)&k->own[SUR_SEG], &k->capown[SUR_SEG], g->segbase + e, sizeof *k->own[SUR_SEG]))
                return PSK_ENOMEM;
            k->own[SUR_SEG][g->segbase + e] += x->sego[e];
        }
        for (int q = 0; q < s->P; q++) { /* the waiting g says, and the replay's */
            skipr *k = &s->sk[q];
            const snap *x = find(s, k, i);
            if (psk_grow((void **)&k->wmod, &k->capwm, g->segbase + e, sizeof *k->wmod) ||
                psk_grow((void **)&k->wact, &k->capwa, g->segbase + e, sizeof *k->wact))
                return PSK_ENOMEM;
            k->wmod[g->segbase + e] += gm - (x->segc[e] + x->sego[e]);
            k->wact[g->segbase + e] += x->segw[e];
        }
        g->gb[SUR_SEG] += gm;
    }
    g->segbase += nseg;
    g->ba += a / s->P;
    if (++g->nw % g->L)
        return PSK_OK;
    int64_t nblk = g->nw / g->L; /* a block ends */
    g->noseg |= g->bseg && g->segbase != g->bseg;
    g->bseg = g->segbase;
    g->segbase = 0;
    for (int u = SUR_ITER; u <= SUR_SEG; u++)
        if (u == SUR_ITER || !g->noseg)
            res_add(g, &g->rs[u], nblk, g->gb[u], g->ba);
    g->ba = g->gb[SUR_ITER] = g->gb[SUR_SEG] = 0;
    return PSK_OK;
}

/* rank q reads its next event: the MPI time (less waiting) of its last
 * one goes to that one's segment */
/* 1 if what rank q does may still be measured for a skip: the execution
 * it last began an iteration of is the one followed, whose iterations may
 * still be skipped. Once an execution is left by the ranks' tracking (a
 * rank began another, which then is followed; ranks in it then never are
 * all counted in again) or its last iteration has begun (try_exact and
 * try_window need one after), nothing it measures is read again: ranks in
 * it do no snapshot work, which in a pipeline whose ranks are many
 * iterations apart is most of the replay. O(1), reading only the rank's
 * own record. */
static int live(const psk_sim *s, int q)
{
    const rank *r = &s->r[q];
    const skipg *g = s->skg;
    return s->sk && !s->opts->no_skip && r->sk_node == g->node && r->sk_exec == g->exec && !g->dead;
}

void psk_simi_pre_event(psk_sim *s, int q)
{
    if (!live(s, q))
        return;
    skipr *k = &s->sk[q];
    rank *r = &s->r[q];
    double own = r->acc[A_P2P] + r->acc[A_COLL] + r->acc[A_WAIT] - r->acc[A_SYNC];
    if (k->last_iter >= 0) {
        snap *x = &k->ring[k->last_iter % s->skg->nsnap];
        if (x->iter == k->last_iter && k->last_seg < x->nseg) {
            x->sego[k->last_seg] += own - k->last_own;
            x->segw[k->last_seg] += r->acc[A_SYNC] - k->last_sync;
        }
    }
    k->last_own = own;
    k->last_sync = r->acc[A_SYNC];
    k->last_iter = -1;
}

int psk_simi_event(psk_sim *s, int q, int cls, double gap)
{
    rank *r = &s->r[q];
    if (!live(s, q) || !psk_fcursor_in_candidate(r->fc))
        return PSK_OK;
    skipr *k = &s->sk[q];
    if (k->node < 0 || !k->ring)
        return PSK_OK;
    snap *x = &k->ring[k->iter % s->skg->nsnap];
    if (x->iter != k->iter)
        return PSK_OK;
    x->segc[x->nseg - 1] += gap;
    k->last_iter = k->iter, k->last_seg = x->nseg - 1;
    if (cls < 0)
        return PSK_OK;
    if (psk_grow((void **)&x->spos, &x->capspos, x->nseg - 1, sizeof *x->spos) ||
        psk_grow((void **)&x->scls, &x->capscls, x->nseg - 1, sizeof *x->scls) ||
        psk_grow((void **)&x->segc, &x->capc, x->nseg, sizeof *x->segc) ||
        psk_grow((void **)&x->sego, &x->capo, x->nseg, sizeof *x->sego) ||
        psk_grow((void **)&x->segw, &x->capw, x->nseg, sizeof *x->segw))
        return PSK_ENOMEM;
    x->spos[x->nseg - 1] = (int32_t)(r->nread - 1 - x->nread);
    x->scls[x->nseg - 1] = (int8_t)cls;
    x->segc[x->nseg] = x->sego[x->nseg] = x->segw[x->nseg] = 0;
    x->nseg++;
    return PSK_OK;
}

/* the blocks' g of the p iterations before m, from the snapshots, each
 * rank's MPI time less waiting taken as its mean over them (as skip()
 * takes it for the skipped blocks: with the same gaps every period, the
 * skipped blocks' g is then this one's exactly) */
static double ring_g(const psk_sim *s, int64_t m, int64_t p)
{
    int64_t L = s->skg->L;
    double G = 0;
    for (int64_t b = m - p; b < m; b += L) {
        double gm = 0;
        for (int q = 0; q < s->P; q++) {
            const skipr *k = &s->sk[q];
            const snap *x = find(s, k, b), *y = find(s, k, b + L), *a = find(s, k, m), *z = find(s, k, m - p);
            double v = y->acc[A_CPU] - x->acc[A_CPU] + (double)L * (own_mpi(a) - own_mpi(z)) / (double)p;
            gm = v > gm ? v : gm;
        }
        G += gm;
    }
    return G;
}

/* ---- skipping ---- */

/* per rank, what the S skipped iterations add */
typedef struct jumpr {
    uint64_t per;        /* its events per block of L iterations */
    double mu;           /* its MPI time less waiting, per iteration */
    double cpu;          /* its recorded compute in the skipped iterations (ns, with its power) */
    uint64_t phase;      /* where in a block its next event is */
    int32_t *map[3];     /* per event of a block: its iteration (SUR_ITER), its segment (SUR_SEG) */
    double *sum[3];      /* a block's compute per iteration, per segment */
    int8_t *cls;         /* per segment of a block: the total of the call that ends it (A_P2P, ...) */
    double *msync;       /* per segment of a block: the waiting the segments' g says */
} jumpr;

/* rank q's iterations and (if seg) segments in the block of the window's
 * last L iterations (before m) into jr, and where its next gap is in a
 * block (rank qb is reading the event that begins its iteration: its gap
 * is read, nread not yet counted): -1 if its snapshots do not say (they
 * always do but for ranks far apart) */
static int seg_map(const psk_sim *s, int q, int qb, int64_t m, int seg, jumpr *jr)
{
    const skipg *g = s->skg;
    const skipr *k = &s->sk[q];
    const snap *z = find(s, k, k->iter);
    int64_t L = g->L, jq = (k->iter - g->w0) % L;
    uint64_t pos = 0, start = 0;
    int base = 0, nseg = seg ? g->bseg : 0;
    if (!z || !(jr->map[SUR_ITER] = malloc(jr->per * sizeof **jr->map)) ||
        !(jr->sum[SUR_ITER] = malloc((size_t)L * sizeof **jr->sum)))
        return -1;
    if (seg && (!(jr->map[SUR_SEG] = malloc(jr->per * sizeof **jr->map)) ||
                !(jr->sum[SUR_SEG] = malloc((size_t)nseg * sizeof **jr->sum)) || !(jr->cls = malloc((size_t)nseg)) ||
                !(jr->msync = calloc((size_t)nseg, sizeof *jr->msync))))
        return -1;
    for (int64_t j = 0; j < L; j++) {
        const snap *x = find(s, k, m - L + j), *y = find(s, k, m - L + j + 1);
        if (!x || !y || pos + (y->nread - x->nread) > jr->per || (seg && base + x->nseg > nseg))
            return -1;
        if (j == jq)
            start = pos;
        for (uint64_t e = 0, c = 0; e < y->nread - x->nread; e++) {
            jr->map[SUR_ITER][pos + e] = (int32_t)j;
            if (seg)
                jr->map[SUR_SEG][pos + e] = base + (int32_t)c;
            if ((int)c < x->nseg - 1 && (uint64_t)x->spos[c] == e)
                c++; /* a blocking call ends its segment */
        }
        for (int c = 0; seg && c < x->nseg; c++) /* one after the last call waits at the next */
            jr->cls[base + c] = (int8_t)(c < x->nseg - 1 ? x->scls[c] : -1);
        pos += y->nread - x->nread;
        base += x->nseg;
    }
    if (pos != jr->per || (seg && base != nseg))
        return -1;
    for (int c = nseg - 1, next = -1; c >= 0; c--) /* (round the block) */
        next = jr->cls[c] >= 0 ? jr->cls[c] : next, jr->cls[c] = (int8_t)next;
    for (int c = nseg - 1; c >= 0 && jr->cls[c] < 0; c--)
        jr->cls[c] = jr->cls[0];
    jr->phase = (start + (s->r[q].nread + (q == qb) - z->nread)) % jr->per;
    return 0;
}

/* per iteration or segment b of a block, the slowest rank's compute and
 * MPI time less waiting: g; each rank's waiting for it goes to msync */
static double g_max(psk_sim *s, int u, int nseg, int64_t nblk, jumpr *jr)
{
    double gm = 0;
    for (int b = 0; b < nseg; b++) {
        double v = 0;
        for (int q = 0; q < s->P; q++) {
            double y = jr[q].sum[u][b] * s->inv_power[q] + s->sk[q].own[u][b] / (double)nblk;
            v = y > v ? y : v;
        }
        for (int q = 0; u == SUR_SEG && q < s->P; q++)
            jr[q].msync[b] += v - (jr[q].sum[u][b] * s->inv_power[q] + s->sk[q].own[u][b] / (double)nblk);
        gm += v;
    }
    return gm;
}

/* the recorded compute of the S skipped iterations, read from each rank's
 * gaps block by block: per rank into jr[q].cpu, the sum of surrogate
 * sur's g over the blocks into *Gs, and (seg) the waiting the segments'
 * g says into jr[q].msync; PSK_OK or psk_fgaps_next's error */
static int read_skipped(psk_sim *s, int64_t S, int sur, int seg, jumpr *jr, double *Gs)
{
    const skipg *g = s->skg;
    int64_t L = g->L, nblk = g->nw / L;
    *Gs = 0;
    for (int64_t j = 0; j < S / L; j++) {
        double gm = 0;
        for (int q = 0; q < s->P; q++) {
            double c = 0;
            psk_fgap x;
            for (int u = SUR_ITER; u <= SUR_SEG; u++)
                if (jr[q].sum[u])
                    memset(jr[q].sum[u], 0, (size_t)(u == SUR_ITER ? L : g->bseg) * sizeof *jr[q].sum[u]);
            for (uint64_t e = 0; e < jr[q].per; e++) {
                int rc = psk_fgaps_next(s->gaps, q, &x);
                if (rc)
                    return rc;
                /* polls' costs as the compute that would take as long */
                double v = x.gap + psk_simi_poll_ns(s, q, x.gap, x.calls, x.failed) / s->inv_power[q];
                c += v;
                uint64_t at = (jr[q].phase + e) % jr[q].per;
                for (int u = SUR_ITER; u <= SUR_SEG; u++)
                    if (jr[q].map[u])
                        jr[q].sum[u][jr[q].map[u][at]] += v;
            }
            c *= s->inv_power[q];
            jr[q].cpu += c;
            gm = c + (double)L * jr[q].mu > gm ? c + (double)L * jr[q].mu : gm;
        }
        double gseg = seg ? g_max(s, SUR_SEG, g->bseg, nblk, jr) : 0;
        *Gs += sur == SUR_BLOCK ? gm : sur == SUR_SEG ? gseg : g_max(s, SUR_ITER, (int)L, nblk, jr);
    }
    return PSK_OK;
}

static void jr_free(jumpr *jr, int P)
{
    for (int q = 0; jr && q < P; q++) {
        for (int u = 0; u < 3; u++)
            free(jr[q].map[u]), free(jr[q].sum[u]);
        free(jr[q].cls), free(jr[q].msync);
    }
    free(jr);
}

/* for a rank that did not wait in the window: the waiting of the skipped
 * iterations is shared between the totals as its calls that may wait
 * are, in the window's last block (before m) */
static void call_weights(const psk_sim *s, const skipr *k, int64_t m, double wt[3], double *wsum)
{
    for (int64_t j = m - s->skg->L; j < m; j++) {
        const snap *x = find(s, k, j);
        for (int c = 0; x && c < x->nseg - 1; c++)
            wt[x->scls[c] - A_P2P] += 1, *wsum += 1;
    }
}

/* S iterations of execution exec of candidate node, measured on window w
 * ending at iteration m; rank qb's event is read but not yet run. PSK_OK
 * (*done: 1 if skipped: 0 only if the snapshots of ranks far apart do not
 * say where each is), or an error reading the recorded gaps (the replay
 * fails). */
static int skip(psk_sim *s, int32_t node, int64_t exec, int64_t S, int64_t m, int qb, const win *w, int *done)
{
    const skipg *g = s->skg;
    int64_t L = g->L, S_L = S / L;
    /* segments to share the waiting between the totals, where the window has them */
    int seg = !w->ring && !g->noseg && g->bseg > (int)L;
    *done = 0;
    jumpr *jr = calloc((size_t)s->P, sizeof *jr);
    if (!jr)
        return PSK_ENOMEM;
    for (int q = 0; q < s->P; q++) {
        const skipr *k = &s->sk[q];
        const snap *a = find(s, k, m), *b = w->ring ? find(s, k, m - w->nw) : &k->base;
        uint64_t dn = a->nread - b->nread;
        jr[q].per = dn / (uint64_t)(w->nw / L); /* the same in every block: the loop's structure */
        jr[q].mu = (own_mpi(a) - own_mpi(b)) / (double)w->nw;
        if (!w->ring && seg_map(s, q, qb, m, seg, &jr[q])) {
            jr_free(jr, s->P);
            return PSK_OK;
        }
    }
    double Gs;
    int rc = read_skipped(s, S, w->sur, seg, jr, &Gs);
    if (rc) {
        jr_free(jr, s->P);
        return rc;
    }
    *done = 1;
    double f = (double)S / (double)w->nw, D = Gs + (double)S_L * w->res;
    for (int q = 0; q < s->P; q++) /* no rank computes and calls for longer than the loop takes */
        if (jr[q].cpu + (double)S * jr[q].mu > D)
            D = jr[q].cpu + (double)S * jr[q].mu;
    int wr = PSK_M_N + 1;
    for (int q = 0; q < s->P; q++) {
        rank *r = &s->r[q];
        skipr *k = &s->sk[q];
        const snap *a = find(s, k, m), *b = w->ring ? find(s, k, m - w->nw) : &k->base, *last = find(s, k, k->iter);
        double dx[A_N], inc[A_N];
        for (int c = 0; c < A_N; c++)
            dx[c] = a->acc[c] - b->acc[c];
        /* its compute is what was recorded; the rest of D is MPI time:
         * in each total as much not waiting as in the window, the rest
         * waiting, shared between the totals as the segments' g says (else
         * as in the window) */
        double mpi = D - jr[q].cpu, own = 0, wt[3], wsum = 0;
        for (int c = 0; c < 3; c++) {
            inc[A_P2P + c] = f * (dx[A_P2P + c] - dx[A_SYNC_P2P + c]);
            own += inc[A_P2P + c];
            wt[c] = seg ? 0 : f * dx[A_SYNC_P2P + c];
        }
        /* the segments' g says where the waiting goes, each segment's as
         * much as the window's replay waited there against what g said */
        for (int e = 0; seg && e < g->bseg; e++)
            wt[jr[q].cls[e] - A_P2P] += k->wmod[e] > 0 ? jr[q].msync[e] * k->wact[e] / k->wmod[e] : f * k->wact[e];
        for (int c = 0; c < 3; c++)
            wsum += wt[c] > 0 ? wt[c] : 0;
        if (!(wsum > 0)) /* it never waited in the window: where its calls are */
            call_weights(s, k, m, wt, &wsum);
        double sync = mpi > own ? mpi - own : 0;
        for (int c = 0; c < 3; c++) {
            double share = wsum > 0 ? (wt[c] > 0 ? wt[c] / wsum : 0) : c == 2;
            inc[A_SYNC_P2P + c] = sync * share;
            inc[A_P2P + c] += sync * share;
        }
        inc[A_CPU] = jr[q].cpu;
        inc[A_SYNC] = sync;
        inc[A_VAR] = f * dx[A_VAR];
        inc[A_OVERLAP] = f * dx[A_OVERLAP];
        /* the rows of intervals inside the iterations, each column as its
         * rank's total grew against the window */
        double fr[PSK_M_N + 1];
        for (int c = 0; c <= PSK_M_N; c++)
            fr[c] = f;
        fr[PSK_M_CPU] = dx[A_CPU] > 0 ? inc[A_CPU] / dx[A_CPU] : f;
        fr[PSK_M_P2P] = dx[A_P2P] > 0 ? inc[A_P2P] / dx[A_P2P] : f;
        fr[PSK_M_COLL] = dx[A_COLL] > 0 ? inc[A_COLL] / dx[A_COLL] : f;
        fr[PSK_M_WAIT] = dx[A_WAIT] > 0 ? inc[A_WAIT] / dx[A_WAIT] : f;
        fr[PSK_M_SYNC] = dx[A_SYNC] > 0 ? inc[A_SYNC] / dx[A_SYNC] : f;
        double comm = inc[A_P2P] + inc[A_COLL] + inc[A_WAIT] - inc[A_SYNC];
        psk_simi_tl_spread(s, q, 0, r->t, D, inc[A_CPU]);
        psk_simi_tl_spread(s, q, 1, r->t, D, comm);
        psk_simi_tl_spread(s, q, 2, r->t, D, inc[A_SYNC]);
        r->t += D;
        if (r->state == 1) {
            r->tcall += D, r->tdone += D;
            if (r->partner > 0)
                r->partner += D;
        }
        for (int c = 0; c < A_N; c++)
            r->acc[c] += inc[c];
        /* intervals opened inside the current iteration move with it */
        for (int i = last ? last->depth : r->depth; i < r->depth; i++) {
            r->stack[i].t_open += D;
            for (int c = 0; c < A_N; c++)
                r->stack[i].acc[c] += inc[c];
        }
        for (int i = 0; i < a->nrows; i++) {
            double *row = s->iv[i].m + (size_t)q * PSK_M_N;
            const double *x = a->rows + (size_t)i * (size_t)wr;
            const double *y = i < b->nrows ? b->rows + (size_t)i * (size_t)wr : NULL;
            double d[PSK_M_N + 1], rest;
            for (int c = 0; c <= PSK_M_N; c++)
                d[c] = x[c] - (y ? y[c] : 0);
            /* its time: its compute and its calls' (the rest, none but
             * for rounding, as the window's) */
            rest = d[PSK_M_EXEC] - d[PSK_M_CPU] - d[PSK_M_P2P] - d[PSK_M_COLL] - d[PSK_M_WAIT];
            d[PSK_M_EXEC] = f * rest;
            for (int c = PSK_M_CPU; c <= PSK_M_WAIT; c++)
                d[PSK_M_EXEC] += fr[c] * d[c];
            for (int c = 0; c < PSK_M_N; c++)
                row[c] += c == PSK_M_EXEC ? d[c] : fr[c] * d[c];
            s->iv[i].count[q] += (uint64_t)llround(f * (x[PSK_M_N] - (y ? y[PSK_M_N] : 0)));
        }
        uint64_t nev = (uint64_t)S_L * jr[q].per;
        r->nread += nev;
        s->events += nev;
        for (int64_t id = 0; id < r->nreq; id++)
            if (r->req[id].used)
                shift_req(&r->req[id], D);
        /* what the loop made keeps its tag S iterations on (the same unless
         * it follows the index) */
        for (int j = 0; j < 2; j++)
            for (msg *mg = j ? r->matched : r->unexp; mg; mg = mg->next) {
                mg->post += D, mg->arrive += D;
                psk_fprog_shift_tag(s->fp, node, exec, mg->src, mg->onode, &mg->oexec, mg->ofield, S, &mg->tag);
            }
        for (precv *pr = r->posted; pr; pr = pr->next) {
            pr->post += D;
            psk_fprog_shift_tag(s->fp, node, exec, q, pr->onode, &pr->oexec, pr->ofield, S, &pr->tag);
        }
        psk_fcursor_skip(r->fc, S);
        if (q == qb || r->has_ev) /* read, not yet run: it is the one S iterations on */
            psk_fcursor_reload(r->fc, &r->ev);
        psk_fcursor_origin(r->fc, &r->onode, &r->oexec);
        k->node = -1; /* its iterations are numbered anew */
        k->last_iter = -1;
        k->last_own = r->acc[A_P2P] + r->acc[A_COLL] + r->acc[A_WAIT] - r->acc[A_SYNC];
        k->last_sync = r->acc[A_SYNC];
    }
    jr_free(jr, s->P);
    s->skg->node = -1;
    for (coll_inst *c = s->colls; c; c = c->next)
        for (int i = 0; i < c->n; i++)
            c->arrive[i] += D;
    psk_net *n = &s->net;
    n->bus_free += D;
    if (n->out_free) {
        size_t links = (size_t)n->nnodes * (size_t)s->m->links;
        for (size_t i = 0; i < links; i++)
            n->out_free[i] += D, n->in_free[i] += D;
    }
    for (int i = 0; n->buses_free && i < s->m->buses; i++)
        n->buses_free[i] += D;
    for (int q = 0; q < s->P; q++)
        if (s->r[q].state == 0 && !s->r[q].running)
            psk_simi_rekey(s, q);
    s->skipped_iters += S;
    s->skips++;
    s->skip_var += w->se * w->se;
    return PSK_OK;
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
    if (joined && (g->node != node || g->exec != exec)) { /* the first rank in a new execution */
        g->node = node, g->exec = exec, g->n_in = 0, g->m = 0, g->M = -1, g->at_m = 0, g->dead = 0;
        g->L = psk_fprog_period(s->fp, node);
        g->bat = (4 + g->L - 1) / g->L;
        g->w0 = -1;
    }
    int64_t was = k->iter;
    k->node = node, k->exec = exec, k->iter = iter;
    s->r[k - s->sk].sk_node = node, s->r[k - s->sk].sk_exec = exec;
    if (g->node != node || g->exec != exec)
        return; /* an execution the others left already */
    g->M = iter > g->M ? iter : g->M;
    if (joined && ++g->n_in == s->P) {
        g->m = INT64_MAX;
        for (int i = 0; i < s->P; i++)
            g->m = s->sk[i].iter < g->m ? s->sk[i].iter : g->m;
        g->at_m = count_at(s, g, g->m);
        g->first = g->next = g->m;
    } else if (!joined && g->n_in == s->P && was == g->m && --g->at_m == 0) {
        g->m++; /* the rank that moved is there: the new lowest */
        g->at_m = count_at(s, g, g->m);
    }
}

/* (1) the replay repeats exactly: the skip that gives what replaying
 * gives. 1 if it skipped (or failed: *rc) */
static int try_exact(psk_sim *s, int32_t node, int64_t exec, int64_t m, int64_t M, int64_t count, int qb, int *rc)
{
    const skipg *g = s->skg;
    int64_t L = g->L, pmax = 2 * L > MAXPERIOD ? 2 * L : MAXPERIOD;
    if (m < 3 || count - 1 - M < 1)
        return 0;
    for (int64_t p = L; p <= pmax && 2 * p + 1 <= m && M - (m - 2 * p - 1) < g->nsnap; p += L) {
        double delta;
        int64_t K = (count - 1 - M) / p;
        if (K >= 1 && periodic(s, m, p, &delta)) {
            if (!tags_apart(s, m - 2 * p - 1))
                return 0;
            win w = {.nw = p, .res = (delta - ring_g(s, m, p)) / (double)(p / L), .sur = SUR_BLOCK, .ring = 1};
            int done;
            *rc = skip(s, node, exec, K * p, m, qb, &w, &done);
            return done || *rc;
        }
    }
    return 0;
}

/* (2) the window measured enough iterations, precisely enough: the
 * statistical skip, with the surrogate whose residual is the steadier.
 * 1 if it skipped (or failed: *rc) */
static int try_window(psk_sim *s, int32_t node, int64_t exec, int64_t m, int64_t M, int64_t count, int qb, int *rc)
{
    const skipg *g = s->skg;
    int64_t L = g->L, bl = L * g->bat;
    if (g->w0 < 0 || g->w0 + g->nw != m || g->nw < WIN_MIN || g->nw <= age_max(s) ||
        (double)g->nw < WIN_FRAC * (double)count ||
        g->rs[SUR_ITER].nb[0] < NB_MIN || g->nw % bl)
        return 0;
    int64_t S = (count - TAIL - M) / L * L;
    if (S < bl)
        return 0;
    double tm = 0, A = 0;
    for (int q = 0; q < s->P; q++) {
        const snap *a = find(s, &s->sk[q], m);
        tm += a->t, A += a->t - s->sk[q].base.t;
    }
    tm /= s->P, A /= s->P;
    int sur = SUR_ITER;
    double se = res_se(g, &g->rs[SUR_ITER], S), e;
    if (!g->noseg && g->bseg > (int)L && (e = res_se(g, &g->rs[SUR_SEG], S)) < se)
        se = e, sur = SUR_SEG;
    if (se > PRECISION * (tm + (double)S * A / (double)g->nw))
        return 0;
    if (!tags_apart(s, m))
        return 0;
    win w = {.nw = g->nw, .res = (A - g->rs[sur].G) / (double)(g->nw / L), .sur = sur, .ring = 0, .se = se};
    int done;
    *rc = skip(s, node, exec, S, m, qb, &w, &done);
    return done || *rc;
}

int psk_simi_boundary(psk_sim *s, int q, int32_t node, int64_t exec, int64_t iter, int64_t count)
{
    if (s->opts->no_skip || s->ncores)
        return PSK_OK; /* nothing is skipped (nor where cores are shared: a core's schedule is not
                        * shifted with the ranks): nothing to measure */
    if (!s->sk) {
        s->sk = psk_big_calloc((size_t)s->P, sizeof *s->sk);
        s->skg = calloc(1, sizeof *s->skg);
        if (!s->sk || !s->skg)
            return PSK_ENOMEM;
        s->skg->node = -1;
        /* room for 2 x the longest period + 1 snapshots, and ranks apart */
        int64_t L = psk_fprog_max_period(s->fp), pmax = 2 * L > MAXPERIOD ? 2 * L : MAXPERIOD;
        s->skg->nsnap = 2 * pmax + 16 > NSNAP ? 2 * pmax + 16 : NSNAP;
        for (int i = 0; i < s->P; i++) {
            s->sk[i].node = -1;
            s->sk[i].last_iter = -1;
            s->r[i].sk_node = -1, s->r[i].sk_exec = -1;
        }
    }
    skipr *k = &s->sk[q];
    int64_t nsnap = s->skg->nsnap;
    int joined = k->node != node || k->exec != exec;
    if (!joined && !live(s, q))
        return PSK_OK; /* an iteration of an execution that cannot be skipped any more */
    if (joined) {
        /* as psk_simi_pre_event sets them before this event when the rank
         * is live (its totals have not moved since); when it was not, it
         * left them as they were */
        rank *r = &s->r[q];
        k->last_own = r->acc[A_P2P] + r->acc[A_COLL] + r->acc[A_WAIT] - r->acc[A_SYNC];
        k->last_sync = r->acc[A_SYNC];
        k->last_iter = -1;
    }
    follow(s, k, node, exec, iter);
    if (s->skg->node == node && s->skg->exec == exec && s->skg->M >= count - 1)
        s->skg->dead = 1; /* try_exact and try_window need an iteration after the highest begun */
    if (!live(s, q))
        return PSK_OK; /* joined an execution that cannot be skipped: nothing to measure */
    /* a rank's snapshots are made when it is first measured: in a
     * pipeline of many ranks most never are */
    int fresh = !k->ring;
    if (fresh && !(k->ring = calloc((size_t)nsnap, sizeof *k->ring)))
        return PSK_ENOMEM;
    if (joined || fresh)
        for (int i = 0; i < nsnap; i++)
            k->ring[i].iter = -1;
    if (take(s, q, &k->ring[iter % nsnap], iter))
        return PSK_ENOMEM;
    skipg *g = s->skg;
    if (s->opts->no_skip || g->node != node || g->exec != exec || g->n_in < s->P)
        return PSK_OK;
    for (; g->next < g->m; g->next++)
        if (win_add(s, g->next))
            return PSK_ENOMEM;
    int64_t m = g->m, M = g->M;
    if (s->eval_node == node && s->eval_exec == exec && s->eval_iter == m)
        return PSK_OK; /* checked already */
    s->eval_node = node, s->eval_exec = exec, s->eval_iter = m;
    int rc = PSK_OK;
    if (!try_exact(s, node, exec, m, M, count, q, &rc))
        try_window(s, node, exec, m, M, count, q, &rc);
    return rc;
}

double psk_simi_skip_stderr(const psk_sim *s) { return sqrt(s->skip_var) * 1e-9; }

static uint64_t snap_bytes(const snap *x)
{
    return (uint64_t)x->caprows * sizeof *x->rows +
           (uint64_t)(x->capc + x->capo + x->capw) * sizeof *x->segc +
           (uint64_t)x->capspos * sizeof *x->spos + (uint64_t)x->capscls * sizeof *x->scls;
}

uint64_t psk_simi_skip_bytes(const psk_sim *s)
{
    if (!s->sk)
        return 0;
    uint64_t b = sizeof *s->skg + (uint64_t)s->P * sizeof *s->sk;
    for (int q = 0; q < s->P; q++) {
        const skipr *k = &s->sk[q];
        b += (k->ring ? (uint64_t)s->skg->nsnap * sizeof *k->ring : 0) + snap_bytes(&k->base);
        for (int i = 0; k->ring && i < s->skg->nsnap; i++)
            b += snap_bytes(&k->ring[i]);
        for (int u = 0; u < 3; u++)
            b += (uint64_t)k->capown[u] * sizeof *k->own[u];
        b += (uint64_t)(k->capwm + k->capwa) * sizeof *k->wmod;
    }
    return b;
}

void psk_simi_skip_prefetch(const psk_sim *s, int q)
{
    if (!s->sk)
        return;
    const skipr *k = &s->sk[q];
    __builtin_prefetch(k, 1);
    __builtin_prefetch(&k->last_seg, 1);
}

void psk_simi_skip_free(psk_sim *s)
{
    for (int q = 0; s->sk && q < s->P; q++) {
        skipr *k = &s->sk[q];
        for (int i = 0; k->ring && i < s->skg->nsnap; i++) {
            snap *x = &k->ring[i];
            free(x->rows), free(x->segc), free(x->sego), free(x->segw), free(x->spos), free(x->scls);
        }
        free(k->ring);
        free(k->base.rows);
        for (int u = 0; u < 3; u++)
            free(k->own[u]);
        free(k->wmod), free(k->wact);
    }
    free(s->sk);
    free(s->skg);
}
