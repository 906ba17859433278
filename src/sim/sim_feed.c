/* The event feed of perfskel sim's replay: each rank's next event, read
 * from its file or handed out by the folded program's cursor (with the gap
 * recorded before it, psk_fgaps), the interval marks before it, and the
 * compute gap before it, divided by its node's power, with what its polls
 * that found nothing cost on the machine; in a whole trace a run of polls
 * is costed as one, as merging makes it, so that its cost is what sim
 * --folded says. */
#include <stdio.h>

#include "sim_state.h"

/* interval key is entered or left before rank q's current event */
static void apply_mark(psk_sim *s, int q, int64_t key, int enter)
{
    rank *r = &s->r[q];
    if (enter) {
        if (psk_simi_ival_open(s, q, key))
            s->failed = 1, snprintf(s->err, sizeof s->err, "out of memory");
    } else if (r->skipped) {
        r->skipped--;
    } else if (r->depth > 1 && s->iv[r->stack[r->depth - 1].node].key == key) {
        psk_simi_ival_close(s, q);
    }
}

/* the intervals marks open or close before rank q's current event */
static void apply_marks(psk_sim *s, int q)
{
    rank *r = &s->r[q];
    const psk_sim_marks *mk = &s->opts->marks[q];
    while (r->next_mark < mk->n && mk->mark[r->next_mark].event <= r->nread) {
        const psk_sim_mark *m = &mk->mark[r->next_mark++];
        apply_mark(s, q, MARK_KEY(m->key), m->enter);
    }
}

/* the recorded gaps could not be read (psk_fgaps_next's rc) */
static int gaps_fail(psk_sim *s, int rc)
{
    if (rc == PSK_EOF)
        return psk_simi_fail(s, PSK_EINVAL, "the merged trace does not match its folding");
    if (rc == PSK_ENOMEM)
        return psk_simi_fail(s, rc, "out of memory");
    return psk_simi_fail(s, rc, "%s", psk_fgaps_errmsg(s->gaps));
}

/* folded: the loop intervals rank q's cursor enters and leaves before its
 * current event, and if the event begins an iteration of a loop that can
 * be skipped, the snapshot for that (after the loops around the iteration
 * are entered, before those inside it are) */
static int folded_marks(psk_sim *s, int q)
{
    rank *r = &s->r[q];
    int n, i = 0;
    const psk_fmark *mk = psk_fcursor_marks(r->fc, &n);
    int32_t node;
    int64_t exec, iter, count;
    int began = psk_fcursor_began(r->fc, &node, &exec, &iter, &count);
    for (; i < n && !(began && mk[i].enter && mk[i].inner); i++)
        apply_mark(s, q, MARK_KEY(mk[i].node), mk[i].enter);
    int rc = began ? psk_simi_boundary(s, q, node, exec, iter, count) : PSK_OK;
    if (rc) /* out of memory, or the recorded gaps of iterations skipped could not be read */
        return gaps_fail(s, rc);
    for (; i < n; i++)
        apply_mark(s, q, MARK_KEY(mk[i].node), mk[i].enter);
    return 0;
}

double psk_simi_poll_ns(const psk_sim *s, int q, double gap_ns, double calls, double failed)
{
    if (!(failed > 0))
        return 0;
    double us = gap_ns * s->poll_scale[q] / (calls > 1 ? calls : 1) / 1e3;
    double each = s->m->poll ? psk_machine_poll_us(s->m, us) : 0;
    /* polls under 1 us of compute apart wait busily: how many there were
     * is how long the wait took, which the replay has; they cost one */
    if (us < 1)
        return 1e3 * each;
    /* a poll that yields beside another rank of its core hands the core
     * over and takes it back: the switch's cost, where that is more */
    if (psk_simi_core_contended(s, q) && s->m->switch_us > each)
        each = s->m->switch_us;
    return failed * 1e3 * each;
}

/* the whole trace: rank q's event r->ev came rec_gap ns after the last; a
 * run of polls (psk_event_failed_polls) is costed as one when it ends, by
 * a call that found, its Wait, or another call: the ns to add now */
static double whole_poll_ns(psk_sim *s, int q, double rec_gap, int at_end)
{
    rank *r = &s->r[q];
    const psk_event *e = &r->ev;
    double pc = 0;
    if (r->prun_on) {
        if (!at_end && (e->fn == r->prun_fn || e->fn == psk_fn_poll_wait(r->prun_fn)) &&
            e->thread == r->prun_thread && psk_event_poll_key(e) == r->prun_key) {
            r->in_prun = 1; /* merging makes it part of the run's event */
            r->prun_gap += rec_gap;
            r->prun_calls++;
            if (e->fn == r->prun_fn && !psk_event_found(e)) {
                r->prun_failed++;
                return 0;
            }
            r->prun_on = 0;
            return psk_simi_poll_ns(s, q, r->prun_gap, r->prun_calls, r->prun_failed);
        }
        r->prun_on = 0;
        pc = psk_simi_poll_ns(s, q, r->prun_gap, r->prun_calls, r->prun_failed);
    }
    if (!at_end && psk_fn_poll_wait(e->fn) && !psk_event_found(e)) {
        r->prun_on = 1, r->prun_fn = e->fn, r->prun_key = psk_event_poll_key(e), r->prun_thread = e->thread;
        r->prun_gap = rec_gap, r->prun_calls = 1, r->prun_failed = 1;
    }
    return pc;
}

int psk_simi_next_event(psk_sim *s, int q)
{
    rank *r = &s->r[q];
    uint64_t prev = r->prev_exit;
    int first = r->ev.fn == 0;
    psk_fgap fgap = {0, 1, 0};
    int rc = r->fc ? psk_fcursor_next(r->fc, &r->ev) : psk_rank_next(r->rd, &r->ev);
    if (r->fc && rc == PSK_OK && (rc = psk_fgaps_next(s->gaps, q, &fgap)))
        return gaps_fail(s, rc);
    if (rc == PSK_ETRUNCATED && !first) {
        /* the job did not finish (killed, aborted): the rank ends here, and
         * the report says so */
        if (!s->ended_early++)
            snprintf(s->early_msg, sizeof s->early_msg, "%s", psk_rank_errmsg(r->rd));
        rc = PSK_EOF;
    }
    if (rc == PSK_EOF) {
        r->state = 2;
        if (!r->fc && r->prun_on) /* polls the trace ends with (merging keeps them) */
            r->t += whole_poll_ns(s, q, 0, 1);
        if (!r->finalize)
            r->finalize = r->t;
        while (r->depth)
            psk_simi_ival_close(s, q);
        return 0;
    }
    if (rc)
        return r->fc ? psk_simi_fail(s, rc, "out of memory") : psk_simi_fail(s, rc, "%s", psk_rank_errmsg(r->rd));
    if (r->multiple && r->ev.thread)
        return psk_simi_fail(s, PSK_EINVAL, "rank %d made its MPI calls from more than one thread under "
                                            "MPI_THREAD_MULTIPLE (event %llu from thread %d): they cannot be "
                                            "replayed in one order", q, (unsigned long long)r->nread + 1,
                             r->ev.thread);
    if (r->fc)
        psk_fcursor_origin(r->fc, &r->onode, &r->oexec);
    s->events++;
    s->replayed++;
    if (r->fc) {
        psk_simi_pre_event(s, q);
        if (folded_marks(s, q))
            return PSK_EFORMAT;
    } else if (s->opts->marks) {
        apply_marks(s, q);
    }
    r->nread++;
    r->in_prun = 0;
    double gap = 0, pc = 0;
    if (!first && s->opof[r->ev.fn] != OP_INIT) {
        gap = r->fc ? fgap.gap : r->ev.t_entry > prev ? (double)(r->ev.t_entry - prev) : 0;
        /* polls that found nothing cost what the machine says (calibrate) */
        pc = r->fc ? psk_simi_poll_ns(s, q, gap, fgap.calls, fgap.failed) : whole_poll_ns(s, q, gap, 0);
        gap *= r->gscale;
        if (r->core >= 0) { /* on a shared core: the CPU it needs, timed by the core's schedule */
            r->work = gap + (pc > 0 ? pc : 0);
            pc = 0;
            gap = 0;
        }
        psk_simi_tl_add(s, q, 0, r->t, r->t + gap);
        r->t += gap;
        r->acc[A_CPU] += gap;
        if (pc > 0) { /* counted as compute: sim_skip.c takes it from the gaps as it does compute */
            psk_simi_tl_add(s, q, 1, r->t, r->t + pc);
            r->t += pc;
            r->acc[A_CPU] += pc;
        }
    }
    /* what the call takes at least: the recording's own cost of its class */
    psk_simi_cc_floor(s, q);
    if (r->fc && psk_simi_event(s, q, psk_simi_blocking(s->opof[r->ev.fn]), gap + pc))
        return psk_simi_fail(s, PSK_ENOMEM, "out of memory");
    r->prev_exit = r->ev.t_exit;
    return 1;
}
