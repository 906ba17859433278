/* The learner's decisions (docs/tune.md, "How the learner decides"),
 * per group at each window's end: candidates the cost model (tune_model.c)
 * puts within PSK_TUNE_MARGIN of the best, at most 4, probed only while
 * exploring pays for itself (PSK_TUNE_BUDGET); sequential elimination on
 * paired log ratios (medians, a pooled MAD); then monitoring with
 * two-sided CUSUMs on the window medians, rare probes of the runner-up,
 * hysteresis on the threshold; a change detected explores again. Every
 * input is agreed by all ranks, so that all take the same decisions. */
#include <math.h>
#include <string.h>

#include "tune_internal.h"

#define MIN_PROMOTE 3   /* paired probes before an arm may become the incumbent */
#define KMAX 4          /* candidates at once */
#define Z 2.0           /* confidence bounds: estimate x (1 +- Z sigma / sqrt n) */
#define CUSUM_HMAX 8.0  /* (16 made a neighbour job's stop, after its noisy run, seen 20 calls late) */
#define UNIT_MIN 0.15   /* a slot's noise unit is never under 15 %: 3 slots 30 % off, or 9 15 % off */
#define KAPPA0 1.25     /* an unmeasured arm may take this times its prediction */
#define RISK_FLOOR 0.25 /* ... and at least 1.25 times the incumbent's time */

/* half the width of the confidence interval of arm a's median log ratio */
static double rhalf(const psk_tune_group *g, int a) { return Z * 1.25 * g->sigma / sqrt(g->arm[a].rn); }

static int valid(const psk_tune_comm *c, const psk_tune_group *g, int a)
{
    double m = g->calls ? g->bytes_sum / (double)g->calls : (double)((size_t)1 << (g->sclass > 0 ? g->sclass : 0));
    return psk_tune_arm_valid(g->coll, a, c->size, (size_t)m, g->inplace);
}

static void predict(const psk_tune_comm *c, psk_tune_group *g)
{
    double m = g->calls ? g->bytes_sum / (double)g->calls : 0;
    psk_tune_model_predict(c, g->coll, c->size, m, g->inplace, g->pred);
    /* scaled to what the incumbent measures now (the model has no
     * contention: only its ratios are used) */
    double e = psk_tune_learn_est(g, g->inc), p = g->pred[g->inc];
    if (e > 0 && p > 0)
        for (int a = 0; a < PSK_TUNE_NARMS; a++)
            g->pred[a] *= e / p;
    /* the model's record: how far it under-estimated arms measured */
    g->kappa = KAPPA0;
    for (int a = 1; a < PSK_TUNE_NARMS; a++)
        if (g->arm[a].n && g->pred[a] > 0) {
            double r = psk_tune_learn_est(g, a) / g->pred[a];
            if (r > g->kappa)
                g->kappa = r > 4 ? 4 : r;
        }
}

/* the candidates: valid arms predicted within margin of the best (the
 * incumbent's measured time included), at most KMAX, best first; a seed's
 * arm first whatever the model says of it */
static void candidates(const psk_tune_comm *c, psk_tune_group *g, int only_seed)
{
    const psk_tune_cfg *cf = &psk_tune_cfg_g;
    g->active = 0;
    g->first = g->seed_arm;
    if (only_seed) {
        if (g->seed_arm > 0 && g->seed_arm != g->inc && valid(c, g, g->seed_arm))
            g->active = 1u << g->seed_arm;
        return;
    }
    double best = psk_tune_learn_est(g, g->inc);
    for (int a = 1; a < PSK_TUNE_NARMS; a++)
        if (g->pred[a] > 0 && valid(c, g, a) && (best <= 0 || g->pred[a] < best))
            best = g->pred[a];
    int order[PSK_TUNE_NARMS], n = 0;
    if (g->seed_arm > 0 && g->seed_arm != g->inc && valid(c, g, g->seed_arm))
        order[n++] = g->seed_arm;
    for (;;) { /* selection by prediction */
        int pick = -1;
        for (int a = 1; a < PSK_TUNE_NARMS; a++) {
            int taken = a == g->inc;
            for (int i = 0; i < n; i++)
                taken |= order[i] == a;
            if (taken || g->pred[a] <= 0 || !valid(c, g, a) || g->pred[a] > cf->margin * best ||
                (cf->switch_warmup && g->arm[a].dropped))
                continue;
            if (pick < 0 || g->pred[a] < g->pred[pick])
                pick = a;
        }
        if (pick < 0 || n >= KMAX)
            break;
        order[n++] = pick;
    }
    for (int i = 0; i < n; i++)
        g->active |= 1u << order[i];
}

/* what exploring may still spend: the budget of the collective time so
 * far, less the probes' excess and the exploring windows' allreduces;
 * plus, when the incumbent slowed down, what that cost in the window that
 * showed it (a change is worth exploring for as much as it loses);
 * earlier runs' time and spending (the decision file's state) and the
 * calls the gate held before the group was set up count */
double psk_tune_learn_bank(const psk_tune_group *g)
{
    return psk_tune_cfg_g.budget * (g->prev_total + g->gate_ns + g->total) + g->credit - g->overhead -
           g->explore_ar - g->prev_spent;
}

/* the risk of one more probe of a: how much slower than the incumbent it
 * may be: measured, else kappa x predicted and at least RISK_FLOOR of the
 * incumbent (a model without contention is never trusted further; but an
 * arm another group of this size settled on is) */
double psk_tune_learn_risk(const psk_tune_group *g, int a)
{
    double inc = psk_tune_learn_est(g, g->inc);
    int seeded = a == g->seed_arm && (g->origin == ORIGIN_SEED || g->origin == ORIGIN_SEED_DB);
    if (!g->arm[a].rn && seeded) /* what a group of this size settled on: trusted */
        return 0;
    if (!g->arm[a].rn)
        return fmax(g->kappa * g->pred[a] - inc, RISK_FLOOR * inc);
    double t = inc * exp(psk_tune_stats_rmed(g, a));
    return t > inc ? t - inc : 0;
}

static void start_monitor(psk_tune_group *g)
{
    g->phase = PH_MONITOR;
    g->settled = 1;
    g->base = psk_tune_learn_est(g, g->inc);
    g->noise = psk_tune_stats_noise(g);
    g->sp = g->sn = 0;
    g->nmon = 0;
    g->probe_every = 4, g->probe_wait = 4;
    /* the runner-up: the best other arm measured */
    g->runner = -1;
    for (int a = 0; a < PSK_TUNE_NARMS; a++)
        if (a != g->inc && g->arm[a].n && !g->arm[a].dropped &&
            (g->runner < 0 || psk_tune_learn_est(g, a) < psk_tune_learn_est(g, g->runner)))
            g->runner = a;
    if (g->runner < 0 && g->inc != PSK_TUNE_native && g->arm[PSK_TUNE_native].n)
        g->runner = PSK_TUNE_native;
}

static void drop(psk_tune_group *g, int a)
{
    g->active &= ~(1u << a);
    if (!g->arm[a].dropped)
        g->arm[a].dropped = g->calls + 1;
    g->arm[a].drop_ratio = g->arm[a].rn ? (float)psk_tune_stats_rmed(g, a) : 0;
    g->arm[a].drop_inc = (float)psk_tune_learn_est(g, g->inc);
}

/* a becomes the incumbent: the ratios were to the old one, so each is
 * divided by a's median ratio; the old incumbent's is its inverse */
static void promote(psk_tune_group *g, int a, int keep_old)
{
    int old = g->inc;
    double m = psk_tune_stats_rmed(g, a);
    for (int b = 0; b < PSK_TUNE_NARMS; b++) {
        if (b == a) {
            g->arm[b].rn = g->arm[b].rpos = 0, g->arm[b].trials = 0;
            continue;
        }
        for (int i = 0; i < g->arm[b].rn; i++)
            g->arm[b].r[i] -= (float)m;
    }
    psk_tune_stats_add_ratio(&g->arm[old], -m);
    g->active &= ~(1u << a);
    g->arm[a].dropped = 0;
    psk_tune_group_set_inc(g, a, WHY_EXPLORE);
    /* the change detector: a new baseline from the next window (the
     * probes' few calls next to the old incumbent's do not make one) */
    g->base = 0;
    g->sp = g->sn = 0;
    if (keep_old) { /* still compared, until clearly worse */
        g->active |= 1u << old;
        g->arm[old].dropped = 0;
    } else /* decided by medians: as good, within noise; not probed again */
        drop(g, old);
}

/* the paired probes an arm needs to become the incumbent: MIN_PROMOTE;
 * 2 if both were twice as fast, or for the incumbent the previous change
 * found (a load that came and went); 1 for the arm another group of this
 * size settled on */
static int min_promote(const psk_tune_group *g, int a, int strong)
{
    if (strong && a == g->seed_arm)
        return 1;
    if (g->inc_before >= 0 && a == g->back_arm)
        return 2;
    const psk_tune_arml *s = &g->arm[a];
    int halves = 0;
    for (int i = 0; i < s->rn; i++)
        halves += s->r[i] < -0.69f;
    return halves >= 2 && halves == s->rn ? 2 : MIN_PROMOTE;
}

/* after an exploring window: sequential elimination on the paired ratios;
 * an arm clearly slower is dropped, one clearly faster (by HYST) becomes
 * the incumbent, one out of probes is decided by its median ratio */
static void explore_step(psk_tune_group *g)
{
    const double gain = log(1 - HYST);
    for (int a = 0; a < PSK_TUNE_NARMS; a++)
        if ((g->active >> a & 1) && g->arm[a].rn && psk_tune_stats_rmed(g, a) - rhalf(g, a) > 0)
            drop(g, a);
    int best = -1, keep_old = 1;
    /* one lucky call never makes an incumbent, unless another group of
     * this size settled on it already */
    int strong = g->origin == ORIGIN_SEED || g->origin == ORIGIN_SEED_DB;
    for (int a = 0; a < PSK_TUNE_NARMS; a++)
        if ((g->active >> a & 1) && g->arm[a].rn >= min_promote(g, a, strong) &&
            psk_tune_stats_rmed(g, a) + rhalf(g, a) < gain &&
            (best < 0 || psk_tune_stats_rmed(g, a) < psk_tune_stats_rmed(g, best)))
            best = a;
    /* out of probes: the median decides, with hysteresis; the incumbent
     * it replaces is not probed again (arms within noise of each other
     * would take turns for ever: they settle) */
    /* After a change only the confidence bound promotes: alarms on a
     * noisy machine must not make arms that are one algorithm take turns */
    if (best < 0) {
        keep_old = 0;
        for (int a = 0; a < PSK_TUNE_NARMS; a++)
            if ((g->active >> a & 1) && g->arm[a].trials >= TMAX) {
                if (g->inc_before < 0 && psk_tune_stats_rmed(g, a) < gain &&
                    (best < 0 || psk_tune_stats_rmed(g, a) < psk_tune_stats_rmed(g, best)))
                    best = a;
                else if (psk_tune_stats_rmed(g, a) >= gain || g->inc_before >= 0)
                    drop(g, a);
            }
    }
    if (best >= 0)
        promote(g, best, keep_old);
    if (!g->active) {
        start_monitor(g);
        /* after a change detected: if the time per call is back where it
         * was (within 10 %, or the noise), the alarm was false: less
         * sensitive now */
        if (g->inc_before >= 0 && g->alarm_base > 0 && fabs(log(g->base / g->alarm_base)) < fmax(0.1, g->noise))
            g->h = g->h * 2 > CUSUM_HMAX ? CUSUM_HMAX : g->h * 2;
        else if (g->inc_before >= 0)
            g->h = CUSUM_H;
        g->inc_before = -1;
    }
}

/* an arm dropped as 1.5 times slower than the incumbent was then, and
 * so slower than it is at the level now (ns a call; 0: not known) */
static int still_slower(const psk_tune_group *g, int a, double now)
{
    double ratio = g->arm[a].drop_ratio;
    if (g->arm[a].drop_inc > 0 && now > g->arm[a].drop_inc)
        ratio -= log(now / g->arm[a].drop_inc);
    return ratio > log(1.5);
}

/* a change: everything measured before is stale but the incumbent's last
 * window; every plausible arm is a candidate again, native always, but an
 * arm dropped as, or measured, 1.5 times slower than the incumbent (a
 * change of traffic reorders close arms, not those), counted against the
 * incumbent's new level where it slowed down. With
 * PSK_TUNE_SWITCH_WARMUP (the experiment), not one the model predicts no
 * slower than the incumbent, measured under another traffic (at P = 4 on
 * the testbed pair and ring are 1.2-1.3 times native while a neighbour
 * runs, bursts making some probes 1.5 times, and 20-25 % faster once it
 * stops), and the 4 candidates are the best of those not left out. A
 * change detected while exploring after another one, before anything
 * settled: the level does not hold still, the threshold is at least 2 x
 * CUSUM_H (no more: a neighbour job's stop must still be seen within a
 * few calls) */
static void reexplore(const psk_tune_comm *c, psk_tune_group *g, const float *last, int nlast)
{
    uint32_t keep_dropped = 0;
    if (g->phase == PH_EXPLORE && g->inc_before >= 0 && g->h < 2 * CUSUM_H)
        g->h = 2 * CUSUM_H;
    for (int a = 0; a < PSK_TUNE_NARMS; a++)
        if (a != g->inc && !g->arm[a].dropped && g->arm[a].rn && psk_tune_stats_rmed(g, a) > log(1.5))
            drop(g, a);
    /* the incumbent's level now: an arm left out for being 1.5 times
     * slower than the incumbent was then may beat it now that it slowed
     * down (every other arm dropped, an incumbent 20 ms slower was kept
     * to the end). Now is the median of the window's last three slots
     * (a change is three slots off in a row; the window's median, or the
     * baseline, may be from before it), against the level each arm was
     * dropped at */
    double now = 0;
    if (nlast > 0) {
        float v[3];
        int n = nlast < 3 ? nlast : 3;
        memcpy(v, last + nlast - n, (size_t)n * sizeof *v);
        now = psk_tune_stats_median(v, n);
    }
    g->alarm_now = now;
    for (int a = 0; a < PSK_TUNE_NARMS; a++) {
        if (g->arm[a].dropped && still_slower(g, a, now))
            keep_dropped |= 1u << a;
        psk_tune_stats_clear(&g->arm[a]);
        g->arm[a].rn = g->arm[a].rpos = 0;
    }
    for (int i = 0; i < nlast; i++)
        psk_tune_stats_add_sample(&g->arm[g->inc], last[i]);
    int runner = g->runner;
    predict(c, g);
    for (int a = 0; a < PSK_TUNE_NARMS; a++) {
        if (psk_tune_cfg_g.switch_warmup && keep_dropped >> a & 1 && g->pred[a] > 0 && g->pred[g->inc] > 0 &&
            g->pred[a] <= 1.001 * g->pred[g->inc])
            keep_dropped &= ~(1u << a); /* the model favours it: measured under another traffic */
        if (!(keep_dropped >> a & 1))
            g->arm[a].dropped = 0;
    }
    candidates(c, g, 0);
    if (g->inc != PSK_TUNE_native)
        g->active |= 1u << PSK_TUNE_native;
    if (runner >= 0 && runner != g->inc && valid(c, g, runner)) {
        g->active |= 1u << runner;
        g->first = runner;
    }
    /* the incumbent the previous change found: a load that came and went
     * (a neighbour job) makes it the best again */
    int prev = g->change_inc;
    g->change_inc = g->inc;
    g->back_arm = -1;
    if (g->alarms >= 2 && prev >= 0 && prev != g->inc && valid(c, g, prev)) {
        g->active |= 1u << prev;
        g->first = g->back_arm = prev;
        keep_dropped &= ~(1u << prev);
    }
    g->active &= ~keep_dropped;
    g->inc_before = g->inc;
    g->phase = PH_EXPLORE;
    g->base = 0; /* from the next window: the alarm's mixes both levels */
    g->noise = psk_tune_stats_noise(g);
    g->sp = g->sn = 0;
    if (g->nhist < PSK_TUNE_NHIST)
        g->hist[g->nhist++] = (psk_tune_change){g->calls, (int8_t)g->inc, (int8_t)g->inc, WHY_CHANGE};
}

/* a window's loss against an earlier level of the incumbent (ns a call):
 * what its slots of the incumbent took beyond it, credited to exploring */
static void credit_loss(psk_tune_group *g, const double *per, int nper, double level)
{
    for (int s = 0; s < nper; s++)
        if (!g->smixed[s] && g->sarm[s] == g->inc && per[s] > level)
            g->credit += (per[s] - level) * g->scalls[s];
}

/* Level shifts of the incumbent, in every phase of the learner: the
 * window's slots of the incumbent in order (a monitoring window's; an
 * exploring one's unpaired first call, the incumbent's side of each pair
 * and the padding). Two-sided CUSUMs of z = log(w / baseline) / unit, w
 * the slot's time per call with each call cut at WCLIP x the baseline (a
 * descheduled call is no change; reduced as the time, by MAX), unit the
 * spread of the incumbent's slot times (g->noise, at least UNIT_MIN: a
 * shift under 15 % is not worth exploring for), z clipped to +-ZCLIP,
 * drift CUSUM_K, threshold g->h (it doubles after a false alarm:
 * hysteresis; the clip grows with it): three slots two units off in a row
 * are a change (four, eight after false alarms), eight one unit off, a few
 * descheduled calls are not. A window's first call, alone
 * in its slot, is left out (it takes the ranks' skew after the
 * allreduce) unless the allreduce is under 5 % of a call. Monitoring also takes the
 * runner-up's probe: clearly faster than the window's median, it is a
 * change too. On a change: everything measured before is stale, exploring
 * again (re-planned at once; returns 1). */
static int watch(const psk_tune_comm *c, psk_tune_group *g, const double *per, const double *win, int nper)
{
    float v[LEARN_SLOTS];
    int n = 0, probed = -1, up = 0, down = 0;
    double probe_t = 0;
    /* the samples are slot times already: their spread is the slot's;
     * the clip grows with the threshold: after false alarms a shift must
     * be as much larger to be seen in three slots */
    double unit = fmax(g->noise, UNIT_MIN), clip = ZCLIP * g->h / CUSUM_H;
    if (g->warmup > 0) {
        /* a warm start: the baseline is this run's, never the file's; its
         * first window warms up (connections, caches: slower), the next
         * one's median is the baseline */
        for (int s = 0; s < nper; s++)
            if (!g->smixed[s] && g->sarm[s] == g->inc)
                v[n++] = (float)per[s];
        if (n && !--g->warmup) {
            g->base = psk_tune_stats_median(v, n);
            g->noise = psk_tune_stats_noise(g);
        }
        return 0;
    }
    if (g->base <= 0) /* a change's or a new incumbent's first window: the baseline */
        for (int s = 0; s < nper; s++)
            if (!g->smixed[s] && g->sarm[s] == g->inc)
                v[n++] = (float)per[s];
    if (n) {
        g->base = psk_tune_stats_median(v, n);
        n = 0;
        /* exploring after a change: the incumbent may have slowed down
         * since (a false alarm just before a real change makes this
         * window's baseline the slow level, and no change is seen after
         * it); an arm dropped as slower than it was is a candidate again
         * where it is not slower than the baseline now */
        if (g->phase == PH_EXPLORE)
            for (int a = 0; a < PSK_TUNE_NARMS; a++)
                if (a != g->inc && g->arm[a].dropped && !still_slower(g, a, g->base) && valid(c, g, a)) {
                    g->arm[a].dropped = 0;
                    g->active |= 1u << a;
                }
        /* ... and that slowdown is a change for the worse no alarm will
         * show: what this window lost against the level at the alarm may
         * be spent exploring, as an alarm's window's loss is (else the
         * probes wait for the budget, 100 calls and more, while every
         * call is the slow level's) */
        if (g->phase == PH_EXPLORE && g->inc_before >= 0 && g->alarm_now > 0 &&
            log(g->base / g->alarm_now) > fmax(0.1, g->noise))
            credit_loss(g, per, nper, g->alarm_now);
        g->alarm_now = 0;
    }
    for (int s = 0; s < nper; s++) {
        if (g->smixed[s])
            continue;
        if (g->sarm[s] != g->inc) {
            if (g->phase == PH_MONITOR)
                probed = g->sarm[s], probe_t = per[s];
            continue;
        }
        v[n++] = (float)per[s];
        /* the first call after the allreduce takes the ranks' skew (at
         * most the allreduce's time) */
        if (s == 0 && g->scalls[s] == 1 && !(g->ar_cost < 0.05 * g->base))
            continue;
        double z = win[s] > 0 ? log(win[s] / g->base) / unit : 0;
        z = z > clip ? clip : z < -clip ? -clip : z;
        g->sp = fmax(0, g->sp + z - CUSUM_K);
        g->sn = fmax(0, g->sn - z - CUSUM_K);
        up |= g->sp > g->h;
        down |= g->sn > g->h;
    }
    if (!n)
        return 0;
    float vm[LEARN_SLOTS];
    memcpy(vm, v, (size_t)n * sizeof *v);
    double y = psk_tune_stats_median(vm, n);
    int alarm = up || down;
    if (g->phase == PH_MONITOR)
        g->nmon++;
    /* the runner-up clearly faster than the incumbent's median */
    int better = probed >= 0 && log(probe_t / y) < log(1 - HYST) - Z * 1.25 * g->sigma;
    if (alarm || better) {
        /* a slowdown of the median (not a burst of outliers): what the
         * window lost against the baseline may be spent exploring */
        if (y > 1.1 * g->base)
            credit_loss(g, per, nper, g->base);
        g->alarms++;
        g->alarm_base = g->base;
        /* exploring, a shift under 1.5 times: a new baseline, the
         * exploring goes on (re-planning at every such alarm of a jittery
         * machine, it never ended) */
        if (g->phase == PH_EXPLORE && !better && fabs(log(y / g->base)) < log(1.5)) {
            g->base = y;
            g->sp = g->sn = 0;
            return 0;
        }
        reexplore(c, g, v, n);
        psk_tune_plan_explore(g);
        return 1;
    }
    g->noise = psk_tune_stats_noise(g);
    if (probed >= 0)
        g->probe_every = g->probe_every * 2 > 64 ? 64 : g->probe_every * 2;
    return 0;
}

void psk_tune_learn_decide(const psk_tune_comm *c, psk_tune_group *g, const double *per, const double *win, int nper)
{
    /* the ratios and the model's scale change only while exploring:
     * monitoring keeps them (a decision there is a few medians) */
    if (g->phase != PH_MONITOR) {
        g->sigma = psk_tune_stats_sigma(g);
        predict(c, g);
    }
    switch (g->phase) {
    case PH_NATIVE0:
        g->phase = PH_EXPLORE;
        g->inc_before = -1;
        g->base = 0; /* from the next window (the first calls set up) */
        g->noise = psk_tune_stats_noise(g);
        g->sp = g->sn = 0;
        if (g->origin == ORIGIN_RESUME) /* the candidates still compared in an earlier run */
            g->active &= ~(1u << g->inc);
        else
            candidates(c, g, g->origin == ORIGIN_SEED || g->origin == ORIGIN_SEED_DB);
        if (!g->active) {
            start_monitor(g);
            break;
        }
        psk_tune_plan_explore(g);
        return;
    case PH_EXPLORE:
        /* the incumbent's calls in an exploring window (the unpaired
         * first, its side of the pairs, the padding) are watched as when
         * monitoring: a change re-plans the exploring */
        if (watch(c, g, per, win, nper))
            return;
        explore_step(g);
        if (g->phase == PH_EXPLORE) {
            psk_tune_plan_explore(g);
            return;
        }
        break;
    case PH_MONITOR:
        if (watch(c, g, per, win, nper))
            return;
        break;
    }
    /* monitoring: now and then the runner-up, if the bank pays for it */
    int probe = -1;
    if (g->phase == PH_MONITOR && g->runner >= 0 && --g->probe_wait <= 0) {
        g->probe_wait = g->probe_every;
        predict(c, g);
        if (valid(c, g, g->runner) && psk_tune_learn_risk(g, g->runner) + g->ar_cost <= psk_tune_learn_bank(g))
            probe = g->runner;
    }
    psk_tune_plan_monitor(g, probe);
}
