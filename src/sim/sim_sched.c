/* The scheduler of perfskel sim's replay: ranks run in order of their
 * simulated clocks, so shared resources are booked in time order. A rank
 * reads its next event and counts the compute gap before it (sim_feed.c),
 * and runs it (sim_exec.c) if it is still the earliest or the event touches
 * nobody else (waits, tests, local calls); when every rank is blocked, the
 * earliest blocked rendezvous send is released as if MPI had buffered it.
 * Invariant: the ready ranks' tree gives the earliest clock, the lowest
 * rank of equals (checked in debug builds). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "psk_mem.h"
#include "sim_state.h"

/* ---- the ready ranks by clock: a tournament tree of fan-out 4 ----
 * Leaves are the ranks (key: the clock of a ready rank, +inf otherwise);
 * each inner node holds the winner of its four children and its key: the
 * earliest clock and, on a tie, the lowest rank (children are in rank
 * order: the leftmost of equal keys). The levels lie one after the other,
 * leaves first, each padded to groups of four siblings, a group on one
 * 64-byte line: a rank that becomes ready or leaves updates one node per
 * level, reading one line per level (log4 P of them, half the lines of a
 * binary tree: at many ranks the lower levels miss the caches), up to the
 * first whose node is as it was. The last level's group gives the winner
 * of all, kept in s->top. */

/* clocks are never negative, so their bit patterns order as they do */
static uint64_t key_of(double t)
{
    uint64_t k;
    memcpy(&k, &t, sizeof k);
    return k;
}

#define NOT_READY 0x7ff0000000000000ull /* +inf */

#ifndef NDEBUG
/* the winner is the earliest leaf, the lowest rank of equals (checked in
 * debug builds, at up to 4,096 ranks) */
static int tree_ok(const psk_sim *s)
{
    if (s->P > 4096)
        return 1;
    int best = 0;
    for (int q = 1; q < s->tsize; q++)
        best = s->tn[q].key < s->tn[best].key ? q : best;
    return s->top.key == s->tn[best].key && (s->top.key == NOT_READY || s->top.win == best);
}
#endif

static void tree_update(psk_sim *s, int q, uint64_t k)
{
    tnode *t = s->tn;
    unsigned i = (unsigned)q;
    t[i].key = k;
    for (int l = 0;; l++) {
        const tnode *g = t + s->toff[l] + (i & ~3u);
        /* the leftmost of the earliest: a later sibling wins only if earlier */
        uint64_t k0 = g[0].key, k1 = g[1].key, k2 = g[2].key, k3 = g[3].key;
        int w0 = g[0].win, w1 = g[1].win, w2 = g[2].win, w3 = g[3].win;
        int m1 = k1 < k0, m3 = k3 < k2;
        uint64_t ka = m1 ? k1 : k0, kb = m3 ? k3 : k2;
        int wa = m1 ? w1 : w0, wb = m3 ? w3 : w2;
        int mb = kb < ka;
        tnode w = {.key = mb ? kb : ka, .win = mb ? wb : wa};
        if (l == s->tlev - 1) {
            s->top = w;
            assert(tree_ok(s));
            return;
        }
        i >>= 2;
        tnode *up = &t[s->toff[l + 1] + i];
        if (up->key == w.key && up->win == w.win) { /* the levels above stand */
            assert(tree_ok(s));
            return;
        }
        *up = w;
    }
}

static void ready_push(psk_sim *s, int q)
{
    tree_update(s, q, key_of(s->r[q].t));
    s->nready++;
}

static int ready_top(const psk_sim *s) { return s->top.win; }

/* 1 if a ready rank comes before rank q (at q's clock) */
static int passed(const psk_sim *s, int q)
{
    uint64_t k = s->top.key, t = key_of(s->r[q].t);
    return k < t || (k == t && s->top.win < q);
}

static int ready_pop(psk_sim *s)
{
    int top = ready_top(s);
    tree_update(s, top, NOT_READY);
    s->nready--;
    return top;
}

/* q goes in, the earliest comes out */
static int ready_replace_top(psk_sim *s, int q)
{
    ready_push(s, q);
    return ready_pop(s);
}

int psk_simi_tree_init(psk_sim *s)
{
    int t = 1;
    while (t < s->P)
        t *= 2;
    s->tsize = t;
    /* levels of groups of 4: within 2 t nodes for t >= 2 */
    int n = (t + 3) & ~3, total = 0;
    for (s->tlev = 0;; n = ((n / 4 + 3) & ~3)) {
        s->toff[s->tlev++] = total;
        total += n;
        if (n <= 4)
            break;
    }
    s->tnodes = total > 2 * t ? total : 2 * t;
    size_t bytes = (size_t)s->tnodes * sizeof *s->tn; /* a multiple of 64 */
    s->tn = bytes >= (2u << 20) ? psk_big_alloc(bytes) : aligned_alloc(64, bytes);
    if (!s->tn)
        return PSK_ENOMEM;
    for (int l = 0; l < s->tlev; l++)
        for (int i = s->toff[l]; i < (l + 1 < s->tlev ? s->toff[l + 1] : total); i++)
            s->tn[i] = (tnode){.key = NOT_READY, .win = l ? 0 : i};
    s->top = (tnode){.key = NOT_READY, .win = 0};
    return PSK_OK;
}

/* ---- the loop ---- */

/* asks the caches for what rank n's next event reads (its record, its
 * cursor, where its next gap is, its groups in the ready tree): called
 * for the rank likely to run after the one running now (the earliest ready one), so that those loads, which at
 * many ranks miss every cache, overlap the running rank's work. A hint:
 * nothing it does changes the replay. */
static void prefetch_rank(const psk_sim *s, int n)
{
    const rank *r = &s->r[n];
    for (size_t o = 0; o < PSK_RANK_HOT; o += 64)
        __builtin_prefetch((const char *)r + o, 1);
    if (s->fc_block) { /* addresses computed, not loaded: nothing here waits for memory */
        psk_fcursor_prefetch(psk_fcursor_in_block(s->fc_block, n));
        psk_fgaps_prefetch(s->gaps, n);
        psk_simi_skip_prefetch(s, n);
    }
    /* its groups in the ready tree's two lowest levels, which taking it
     * out of the tree reads (the levels above are few lines, cached) */
    unsigned i = (unsigned)n;
    for (int l = 0; l < 2 && l < s->tlev; l++, i >>= 2)
        __builtin_prefetch(s->tn + s->toff[l] + (i & ~3u), 1);
}

/* the second stage, once the first's loads are in (called after the
 * running rank's first event): what rank n's records point to, its next
 * gap, call floors, skip snapshot, requests and, for a send, where its
 * receiver's posted receives start. A hint, as prefetch_rank. */
static void prefetch_rank_deps(const psk_sim *s, int n)
{
    if (s->gaps)
        psk_fgaps_prefetch_gap(s->gaps, n);
    psk_simi_cc_prefetch(s, n);
    psk_simi_skip_prefetch_snap(s, n);
    if (s->r[n].req)
        __builtin_prefetch(s->r[n].req, 1);
    psk_simi_p2p_prefetch(s, n);
}

/* runs rank q until it blocks, finishes, or is no longer the earliest;
 * in that last case *next is the rank to run now (q was made ready, with
 * its next event read and its compute gap before it counted), else -1 */
static int advance(psk_sim *s, int q, int *next)
{
    rank *r = &s->r[q];
    if (s->gaps) /* where its next gap is was asked for when it was next to run */
        psk_fgaps_prefetch_gap(s->gaps, q);
    psk_simi_cc_prefetch(s, q); /* and its call floors */
    r->running = 1;
    *next = -1;
    int pf = s->nready ? ready_top(s) : -1; /* likely next: its records asked for now, what they point to later */
    if (pf >= 0)
        prefetch_rank(s, pf);
    if (r->cphase && psk_simi_core_pop(s, q)) { /* put back to wait for its core */
        r->running = 0;
        return 0;
    }
    int rc = 0;
    for (;;) {
        if (!r->has_ev) {
            if ((rc = psk_simi_next_event(s, q)) <= 0)
                break;
            if (r->core >= 0 && r->work > 0) { /* its compute ends when its core's schedule says */
                psk_simi_core_work(s, q);
                r->has_ev = 1;
                *next = ready_replace_top(s, q);
                break;
            }
            if (s->ordered[r->ev.fn] && s->nready && passed(s, q)) {
                r->has_ev = 1;
                *next = ready_replace_top(s, q);
                break;
            }
        }
        r->has_ev = 0;
        r->nwait = 0;
        r->in_block = 0;
        double t0 = r->t;
        if ((rc = psk_simi_execute(s, q)))
            break;
        if (pf >= 0)
            prefetch_rank_deps(s, pf), pf = -1;
        if (!r->in_block && r->floor > 0 && r->state != 2) { /* a call the model gives no time: its own cost */
            int op = s->opof[r->ev.fn];
            int cls = op == OP_ICOLL ? A_COLL : op == OP_WAIT || op == OP_WAITALL || op == OP_WAITANY ||
                      op == OP_WAITSOME || op == OP_TEST || op == OP_TESTALL || op == OP_TESTANY ||
                      op == OP_TESTSOME ? A_WAIT : A_P2P;
            psk_simi_tl_add(s, q, 1, r->t, r->t + r->floor);
            r->acc[cls] += r->floor;
            r->t += r->floor;
        }
        if (s->opts->on_call && !r->in_block && s->opof[r->ev.fn] != OP_INIT && s->opof[r->ev.fn] != OP_PCONTROL)
            psk_simi_report_call(s, q, t0, r->t, 0); /* a call that took no time in the model but its own cost */
        if (s->opts->progress && (s->events & ((1u << 20) - 1)) == 0)
            s->opts->progress(s->opts->progress_arg, s->events, 0);
        if (r->state == 2)
            break;
        if (r->nwait > 0) { /* blocked until psk_simi_resolve() makes it ready */
            r->state = 1;
            if (r->core >= 0 && s->share_yield) /* it gives its core away while it waits */
                psk_simi_core_leave(s, q, r->t);
            break;
        }
        if (r->core >= 0 && r->t > t0) { /* it waited in the call for what was decided already */
            if (s->share_yield)
                psk_simi_core_leave(s, q, t0);
            r->cdone = r->t;
            r->cphase = CP_RESUME;
            *next = ready_replace_top(s, q);
            break;
        }
    }
    r->running = 0;
    if (r->core >= 0 && r->state == 2 && r->want)
        psk_simi_core_leave(s, q, r->t);
    return rc < 0 ? rc : 0;
}

/* every rank blocked: release the earliest blocked rendezvous send as if
 * MPI had buffered it (the real run did not deadlock) */
static int unblock_sends(psk_sim *s)
{
    msg *best = NULL;
    for (int q = 0; q < s->P; q++)
        for (int k = 0; k < 2; k++) /* not yet matched, or taken by a matched probe */
            for (msg *mg = k ? s->r[q].matched : s->r[q].unexp; mg; mg = mg->next)
                if (mg->sender_blocked && (!best || mg->post < best->post))
                    best = mg;
    if (!best)
        return 0;
    best->sender_blocked = 0;
    best->buffered = 1;
    s->buffered++;
    psk_simi_resolve(s, best->src, best->post, 0);
    return 1;
}

/* the replay, once every rank's source of events is open */
int psk_simi_run(psk_sim *s)
{
    int rc;
    for (int q = 0; q < s->P; q++) { /* the powers and the recording's sharing known */
        s->r[q].ipow = s->inv_power[q];
        s->r[q].gscale = s->inv_power[q] * s->deflate[q];
        s->r[q].cc = s->cc ? s->cc[q] : NULL; /* the call floors final (psk_simi_cc_finish) */
        s->r[q].ncc = s->cc ? s->ncc[q] : 0;
    }
    /* every rank starts at MPI_Init's exit, at 0, inside the program */
    for (int q = 0; q < s->P; q++) {
        rank *r = &s->r[q];
        if (psk_simi_next_event(s, q) <= 0)
            return s->failed ? PSK_EFORMAT : psk_simi_fail(s, PSK_EFORMAT, "rank %d has no events", q);
        if (s->opof[r->ev.fn] != OP_INIT)
            return psk_simi_fail(s, PSK_EFORMAT, "rank %d: the first event is not MPI_Init", q);
        /* MPI_THREAD_MULTIPLE is 3 in both MPIs' headers: a rank that
         * asked for it and called from one thread is replayed as any
         * other; the calls of several threads cannot be put in one order */
        if (psk_fn_op(r->ev.fn) == PSK_FNOP_INIT && PSK_HAS(&r->ev, PSK_F_I2) &&
            r->ev.v[PSK_F_I2] == 3) {
            int nt = s->merged ? psk_merged_rank_threads(s->merged, q) : 1;
            if (s->format_version < PSK_FORMAT_VERSION_THREADS)
                return psk_simi_fail(s, PSK_EINVAL, "rank %d was recorded under MPI_THREAD_MULTIPLE by a perfskel "
                                                    "that did not record which thread made each call (trace format "
                                                    "%d): calls of several threads cannot be replayed in one order; "
                                                    "record it again", q, s->format_version);
            if (nt > 1)
                return psk_simi_fail(s, PSK_EINVAL, "rank %d made its MPI calls from %d threads under "
                                                    "MPI_THREAD_MULTIPLE: they cannot be replayed in one order", q, nt);
            r->multiple = 1;
        }
        /* when its MPI_Init returned, the earliest's at 0 */
        s->r[q].t = s->r[q].t0 = s->start && !s->m->start_together ? s->start[q] : 0;
        s->r[q].acc[A_CPU] = 0;
        if ((rc = psk_simi_ival_open(s, q, 0)))
            return psk_simi_fail(s, rc, "out of memory");
        ready_push(s, q);
    }
    while (!s->failed) {
        if (!s->nready) {
            int blocked = 0;
            for (int q = 0; q < s->P; q++)
                blocked += s->r[q].state == 1;
            if (!blocked)
                break;
            if (unblock_sends(s))
                continue;
            for (int q = 0; q < s->P; q++)
                if (s->r[q].state == 1)
                    return psk_simi_fail(s, PSK_EFORMAT,
                                         "the replay cannot go on: rank %d waits in %s (event %llu) forever%s%s", q,
                                         psk_fn_name(s->r[q].ev.fn), (unsigned long long)s->r[q].nread,
                                         s->ended_early ? "; the job did not finish: " : "",
                                         s->ended_early ? s->early_msg : "");
        }
        for (int q = ready_pop(s); q >= 0 && !s->failed;)
            if ((rc = advance(s, q, &q)))
                return s->failed ? rc : psk_simi_fail(s, rc, "out of memory");
    }
    if (s->failed)
        return PSK_EFORMAT;
    for (int q = 0; q < s->P; q++)
        if (s->r[q].finalize - s->r[q].t0 > s->predicted)
            s->predicted = s->r[q].finalize - s->r[q].t0;
    s->predicted *= 1e-9;
    /* the derived characteristics per interval */
    for (int i = 0; i < s->niv; i++) {
        ival *v = &s->iv[i];
        double maxexec = 0, maxcpu = 0, cpu = 0;
        for (int q = 0; q < s->P; q++) {
            const double *m = v->m + (size_t)q * PSK_M_N;
            maxexec = m[PSK_M_EXEC] > maxexec ? m[PSK_M_EXEC] : maxexec;
            maxcpu = m[PSK_M_CPU] > maxcpu ? m[PSK_M_CPU] : maxcpu;
            cpu += m[PSK_M_CPU];
        }
        for (int q = 0; q < s->P; q++) {
            double *m = v->m + (size_t)q * PSK_M_N;
            m[PSK_M_IDLE] = maxexec - m[PSK_M_EXEC];
            m[PSK_M_IMBALANCE] = maxcpu - m[PSK_M_CPU];
            m[PSK_M_LOST] = maxexec - m[PSK_M_CPU];
        }
        v->pub = (psk_interval){.parent = v->parent, .level = v->level, .name = v->name, .m = v->m,
                                .count = v->count, .exec = maxexec,
                                .efficiency = maxexec * s->P > 0 ? cpu / (maxexec * s->P) : 1.0};
    }
    return PSK_OK;
}

void psk_simi_rekey(psk_sim *s, int q) { tree_update(s, q, key_of(s->r[q].t)); }
void psk_simi_ready_push(psk_sim *s, int q) { ready_push(s, q); }
