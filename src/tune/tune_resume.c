/* A learner's group as a decision-file state (psk2, tune_db.c) and back:
 * what a run learnt of a group, settled or not, is kept so that the next
 * run of the job continues from it. Kept: the calls, collective time and
 * exploring's spending over the runs (the budget and the few-calls rule
 * count them), the incumbent, and per arm compared whether it is still a
 * candidate or dropped and its paired log ratios to the incumbent. No
 * arm's absolute time is carried over: a run under another load measures
 * other times, while the ratios of paired calls hold across loads that
 * slow both alike; the incumbent's baseline comes from the run's own
 * windows (tune_learn.c). The entry used is agreed by every rank before this is
 * called (tune_learn.c), so every rank restores the same state. */
#include <string.h>

#include "tune_internal.h"

void psk_tune_resume_save(const psk_tune_group *g, double native_ns, psk_tune_dbent *e)
{
    e->version = 2;
    e->coll = g->coll;
    e->arm = g->inc;
    /* settled once, settled: a change detected later in this run (and
     * the exploring it started) was this run's; the next one watches for
     * its own */
    e->state = g->settled                                                 ? PSK_TUNE_DB_SETTLED
               : g->phase == PH_EXPLORE || g->origin == ORIGIN_RESUME ? PSK_TUNE_DB_EXPLORING
                                                                       : PSK_TUNE_DB_START;
    e->calls = g->prev_calls + g->gate_calls + g->calls;
    e->total_ns = g->prev_total + g->gate_ns + g->total;
    e->spent_ns = g->prev_spent + g->overhead + g->explore_ar;
    e->native_ns = native_ns;
    e->narms = 0;
    if (e->state == PSK_TUNE_DB_START) /* nothing compared yet */
        return;
    for (int a = 0; a < PSK_TUNE_NARMS && e->narms < PSK_TUNE_DB_MAXARMS; a++) {
        const psk_tune_arml *s = &g->arm[a];
        int active = (g->active >> a & 1) && a != g->inc && e->state == PSK_TUNE_DB_EXPLORING;
        if (!active && !s->dropped && !s->rn && a != g->inc)
            continue;
        psk_tune_dbarm *d = &e->arms[e->narms++];
        d->arm = a;
        d->flag = a == g->inc ? '-' : active ? 'a' : s->dropped ? 'd' : '-';
        /* oldest first */
        d->rn = s->rn;
        int first = s->rn < PSK_TUNE_NSAMP ? 0 : s->rpos;
        for (int i = 0; i < s->rn; i++)
            d->r[i] = s->r[(first + i) % PSK_TUNE_NSAMP];
        /* an arm dropped before a change detected cleared every ratio
         * (reexplore) is kept out by the ratio it was dropped at: that
         * one, or the next run takes it for as fast as the incumbent and
         * probes it again (a native 20 ms slower each run, once) */
        if (d->flag == 'd' && !d->rn && s->drop_ratio != 0)
            d->rn = 1, d->r[0] = s->drop_ratio;
        for (int i = 0; i < d->rn; i++)
            d->r[i] = !(d->r[i] > -20) ? -20 : d->r[i] > 20 ? 20 : d->r[i];
    }
}

static double median_of(const float *r, int n)
{
    float v[PSK_TUNE_NSAMP];
    memcpy(v, r, (size_t)n * sizeof *v);
    for (int i = 1; i < n; i++) /* n <= 16 */
        for (int k = i; k > 0 && v[k - 1] > v[k]; k--) {
            float t = v[k];
            v[k] = v[k - 1], v[k - 1] = t;
        }
    return n ? (n % 2 ? v[n / 2] : 0.5 * ((double)v[n / 2 - 1] + (double)v[n / 2])) : 0;
}

int psk_tune_resume_load(const psk_tune_comm *c, psk_tune_group *g, const psk_tune_dbent *e, size_t bytes,
                         int inplace)
{
    if (e->coll != g->coll || !psk_tune_arm_valid(g->coll, e->arm, c->size, bytes, inplace))
        return -1;
    g->prev_calls = e->calls;
    g->prev_total = e->total_ns;
    g->prev_spent = e->spent_ns;
    g->db_native_ns = e->native_ns;
    g->active = 0;
    for (int i = 0; i < e->narms; i++) {
        const psk_tune_dbarm *d = &e->arms[i];
        if (!psk_tune_arm_valid(g->coll, d->arm, c->size, bytes, inplace))
            continue; /* (an arm for another layout of the call: not this one's) */
        psk_tune_arml *s = &g->arm[d->arm];
        memcpy(s->r, d->r, (size_t)d->rn * sizeof *s->r);
        s->rn = (uint8_t)d->rn;
        s->rpos = (uint8_t)(d->rn % PSK_TUNE_NSAMP);
        s->trials = (uint32_t)d->rn;
        if (d->flag == 'd') {
            s->dropped = 1; /* (at call 0 of this run) */
            s->drop_ratio = (float)median_of(d->r, d->rn);
        } else if (d->flag == 'a' && d->arm != e->arm)
            g->active |= 1u << d->arm;
    }
    return e->state;
}
