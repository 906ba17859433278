/* Skipping loop iterations in perfskel sim --folded (docs/simulation.md,
 * "How iterations are skipped"): while a candidate loop (sim_fpcand.c) is
 * replayed, each rank is snapshotted as it begins an iteration and the
 * replay follows where every rank is (this file); once the last iterations
 * repeat, exactly or as a window of them measures (sim_skipcheck.c), S of
 * them are skipped, the whole state moving by one advance (sim_skipjump.c).
 * Nothing is skipped with --no-skip, nor where ranks share cores. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psk_mem.h"
#include "sim_skip.h"

/* A candidate loop (sim_fpcand.c: every rank takes part, its iterations
 * repeat with a period L but for tags that follow the index) is replayed
 * iteration by iteration, each event with the compute gap recorded before
 * it (psk_fgaps), while each rank is snapshotted as it begins one: its
 * clock, its running totals, its interval rows, how many messages and
 * receives wait in its queues (and for those whose tags follow the index,
 * their ages), and as its events are read, the iteration's segments
 * (compute and MPI time up to and with each call that may wait for
 * another rank). */

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

/* room for n elements of size in *a (its capacity *cap), grown to what is
 * asked (spare: and half again, for arrays appended to): a rank keeps
 * dozens of snapshots, where psk_grow's doubling and 16 spare would be
 * most of their memory. Not zero-filled: every element is set before it
 * is read. 0 or -1 out of memory */
static int fit(void **a, int64_t *cap, int64_t n, size_t size, int spare)
{
    if (n <= *cap)
        return 0;
    int64_t c = spare ? n + n / 2 + 2 : n;
    void *b = realloc(*a, (size_t)c * size);
    if (!b)
        return -1;
    *a = b, *cap = c;
    return 0;
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
    if (fit((void **)&sn->rows, &sn->caprows, (int64_t)s->niv * w, sizeof *sn->rows, 0))
        return PSK_ENOMEM;
    sn->nseg = 1;
    if (!s->skg->nowin) { /* the segments' times are kept for a window only */
        if (fit((void **)&sn->segc, &sn->capc, 1, sizeof *sn->segc, 1) ||
            fit((void **)&sn->sego, &sn->capo, 1, sizeof *sn->sego, 1) ||
            fit((void **)&sn->segw, &sn->capw, 1, sizeof *sn->segw, 1))
            return PSK_ENOMEM;
        sn->segc[0] = sn->sego[0] = sn->segw[0] = 0;
    }
    sn->nrows = s->niv;
    for (int i = 0; i < s->niv; i++) {
        memcpy(sn->rows + (size_t)i * (size_t)w, s->iv[i].m + (size_t)q * PSK_M_N, PSK_M_N * sizeof(double));
        sn->rows[(size_t)i * (size_t)w + PSK_M_N] = (double)s->iv[i].count[q];
    }
    return PSK_OK;
}

/* 1 if what rank q does may still be measured for a skip: the execution
 * it last began an iteration of is the one followed, whose iterations may
 * still be skipped. Once an execution is left by the ranks' tracking (a
 * rank began another, which then is followed; ranks in it then never are
 * all counted in again) or its last iteration has begun (psk_simi_try_exact and
 * psk_simi_try_window need one after), nothing it measures is read again: ranks in
 * it do no snapshot work, which in a pipeline whose ranks are many
 * iterations apart is most of the replay. O(1), reading only the rank's
 * own record. */
static int live(const psk_sim *s, int q)
{
    const rank *r = &s->r[q];
    const skipg *g = s->skg;
    return s->sk && !s->opts->no_skip && r->sk_node == g->node && r->sk_exec == g->exec && !g->dead;
}

/* rank q reads its next event: the MPI time (less waiting) of its last
 * one goes to that one's segment */
void psk_simi_pre_event(psk_sim *s, int q)
{
    if (!live(s, q) || s->skg->nowin)
        return; /* (no segments to measure) */
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
    /* a loop too short for a window keeps only where its calls that may
     * wait are (an exact skip shares a rank's waiting as they are): the
     * snapshot, a cache miss at many ranks, is not read for the others */
    int win = !s->skg->nowin;
    if (!win && cls < 0)
        return PSK_OK;
    skipr *k = &s->sk[q];
    if (k->node < 0 || !k->ring)
        return PSK_OK;
    snap *x = &k->ring[k->iter % s->skg->nsnap];
    if (x->iter != k->iter)
        return PSK_OK;
    if (win) {
        x->segc[x->nseg - 1] += gap;
        k->last_iter = k->iter, k->last_seg = x->nseg - 1;
    }
    if (cls < 0)
        return PSK_OK;
    if (fit((void **)&x->spos, &x->capspos, x->nseg, sizeof *x->spos, 1) ||
        fit((void **)&x->scls, &x->capscls, x->nseg, sizeof *x->scls, 1) ||
        (win && (fit((void **)&x->segc, &x->capc, x->nseg + 1, sizeof *x->segc, 1) ||
                 fit((void **)&x->sego, &x->capo, x->nseg + 1, sizeof *x->sego, 1) ||
                 fit((void **)&x->segw, &x->capw, x->nseg + 1, sizeof *x->segw, 1))))
        return PSK_ENOMEM;
    x->spos[x->nseg - 1] = (int32_t)(r->nread - 1 - x->nread);
    x->scls[x->nseg - 1] = (int8_t)cls;
    if (win)
        x->segc[x->nseg] = x->sego[x->nseg] = x->segw[x->nseg] = 0;
    x->nseg++;
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
static void follow(psk_sim *s, skipr *k, int32_t node, int64_t exec, int64_t iter, int64_t count)
{
    skipg *g = s->skg;
    int joined = k->node != node || k->exec != exec;
    if (joined && (g->node != node || g->exec != exec)) { /* the first rank in a new execution */
        g->node = node, g->exec = exec, g->n_in = 0, g->m = 0, g->M = -1, g->at_m = 0, g->dead = 0;
        g->nowin = count < WIN_LOOP_MIN;
        g->L = psk_fprog_period(s->fp, node);
        g->bat = (4 + g->L - 1) / g->L;
        g->w0 = -1;
        /* an iteration's snapshot is in no ring after the loop's last */
        g->nsnap = count < g->maxsnap ? (count > 0 ? count : 1) : g->maxsnap;
        /* psk_simi_try_exact skips K >= 1 periods p >= L once 2p + 1
         * iterations before the lowest begun, m, are compared and M >= m
         * begun: 3L + 2 iterations at least; without a window, a shorter
         * loop is never skipped, and no rank need measure it */
        if (g->nowin && count < 3 * g->L + 2)
            g->dead = 1;
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
        s->skg->maxsnap = s->skg->nsnap = 2 * pmax + 16 > NSNAP ? 2 * pmax + 16 : NSNAP;
        for (int i = 0; i < s->P; i++) {
            s->sk[i].node = -1;
            s->sk[i].last_iter = -1;
            s->r[i].sk_node = -1, s->r[i].sk_exec = -1;
        }
    }
    skipr *k = &s->sk[q];
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
    follow(s, k, node, exec, iter, count);
    if (s->skg->node == node && s->skg->exec == exec && s->skg->M >= count - 1)
        s->skg->dead = 1; /* psk_simi_try_exact and psk_simi_try_window need an iteration after the highest begun */
    if (!live(s, q))
        return PSK_OK; /* joined an execution that cannot be skipped: nothing to measure */
    /* a rank's snapshots are made when it is first measured: in a
     * pipeline of many ranks most never are; its ring grows to what the
     * loops it is measured in need */
    int64_t nsnap = s->skg->nsnap;
    int fresh = k->nring < nsnap;
    if (fresh) {
        snap *ring = realloc(k->ring, (size_t)nsnap * sizeof *ring);
        if (!ring)
            return PSK_ENOMEM;
        memset(ring + k->nring, 0, (size_t)(nsnap - k->nring) * sizeof *ring);
        k->ring = ring;
        k->nring = nsnap;
    }
    if (joined || fresh)
        for (int i = 0; i < nsnap; i++)
            k->ring[i].iter = -1;
    if (take(s, q, &k->ring[iter % nsnap], iter))
        return PSK_ENOMEM;
    skipg *g = s->skg;
    if (s->opts->no_skip || g->node != node || g->exec != exec || g->n_in < s->P)
        return PSK_OK;
    for (; !g->nowin && g->next < g->m; g->next++)
        if (psk_simi_win_add(s, g->next))
            return PSK_ENOMEM;
    int64_t m = g->m, M = g->M;
    if (s->eval_node == node && s->eval_exec == exec && s->eval_iter == m)
        return PSK_OK; /* checked already */
    s->eval_node = node, s->eval_exec = exec, s->eval_iter = m;
    int rc = PSK_OK;
    if (!psk_simi_try_exact(s, node, exec, m, M, count, q, &rc))
        psk_simi_try_window(s, node, exec, m, M, count, q, &rc);
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
        b += (uint64_t)k->nring * sizeof *k->ring + snap_bytes(&k->base);
        for (int64_t i = 0; i < k->nring; i++)
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

void psk_simi_skip_prefetch_snap(const psk_sim *s, int q)
{
    const skipr *k = s->sk ? &s->sk[q] : NULL;
    if (k && k->node >= 0 && k->ring && k->iter >= 0 && s->skg->nsnap > 0)
        __builtin_prefetch(&k->ring[k->iter % s->skg->nsnap], 1);
}

void psk_simi_skip_free(psk_sim *s)
{
    for (int q = 0; s->sk && q < s->P; q++) {
        skipr *k = &s->sk[q];
        for (int64_t i = 0; i < k->nring; i++) {
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
