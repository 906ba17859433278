/* The windows a group's calls run in (docs/tune.md, "Groups and
 * windows"): planned in advance as slots, each one arm for one or more
 * calls, so that every rank runs the same arms in the same order. Here
 * the slots are built and the learner's windows planned: monitoring ones
 * just long enough that their decision allreduce costs little, exploring
 * ones of probes paired with the incumbent, as many as the budget pays
 * for. */
#include <math.h>

#include "tune_internal.h"

#define WCLIP 3.0       /* each call counts for at most 3 x the baseline in the detector's sums */
#define RHO_MON 0.002   /* monitoring windows: their allreduce <= 0.2 % of their time */
#define RHO_EXP 0.02    /* exploring windows: 2 % */
#define RHO_WAIT 0.01   /* exploring's windows that wait for the budget: 1 % (exploring is short-lived) */
#define DEC_NS 5        /* ... and at most 0.005 us a call (a decision: the allreduce and deciding) */
#define WMON_MAX 65536  /* (cheap calls, a costly allreduce: long windows) */
#define CLOCK_NS 60     /* timing a call: two clock reads (this VM: 40-80 ns) */
#define STRIDE_MAX 16   /* monitoring times at least one call in 16 */
#define GROW_MAX 4      /* quiet monitoring of calls under 10 us: windows up to 16 times as long */
#define WMON_NS 10e6    /* ... lasting at most 10 ms */
#define FEW_CALLS 32    /* before so many calls, only arms predicted 10 % faster are probed */

/* ---- windows ---- */

void psk_tune_plan_reset(psk_tune_group *g)
{
    g->nslot = g->slot = g->inslot = 0;
    g->wcap = g->base > 0 ? WCLIP * g->base : INFINITY;
    g->sum_extra = 0;
    g->wsite = 0;
    g->stride = 1;
}

void psk_tune_plan_add(psk_tune_group *g, int arm, uint32_t calls)
{
    if (!calls || g->nslot >= g->cap)
        return;
    g->spair[g->nslot] = -1;
    g->sarm[g->nslot] = (uint8_t)arm;
    g->scalls[g->nslot] = calls;
    g->smixed[g->nslot] = 0;
    g->st[g->nslot] = 0;
    g->sw[g->nslot] = 0;
    g->nslot++;
}

/* one call of arm, not measured, where the window's last call is of
 * another arm (or none: the first call after the allreduce) */
static void plan_warm(psk_tune_group *g, int arm)
{
    if (!psk_tune_cfg_g.switch_warmup || (g->nslot && g->sarm[g->nslot - 1] == arm))
        return;
    psk_tune_plan_add(g, arm, 1);
    if (g->nslot)
        g->smixed[g->nslot - 1] = 1;
}

/* w calls of arm in at most `slots` slots */
void psk_tune_plan_spread(psk_tune_group *g, int arm, uint32_t w, int slots)
{
    uint32_t per = (w + (uint32_t)slots - 1) / (uint32_t)slots;
    while (w > 0) {
        uint32_t k = w < per ? w : per;
        psk_tune_plan_add(g, arm, k);
        w -= k;
    }
}

static uint32_t clampu(double x, uint32_t lo, uint32_t hi)
{
    return !(x > lo) ? lo : x > hi ? hi : (uint32_t)ceil(x);
}

/* ---- the learner's windows ---- */

/* a monitoring window's length: its decision (allreduce and deciding)
 * costs at most rho (RHO_MON; RHO_WAIT for exploring's waiting windows)
 * of its calls' time or 0.005 us a call, whichever is more (the target
 * of docs/tune.md, "What a call costs": at most 0.1 us or 2 % a call over
 * the arm called directly, timing and dispatch included),
 * at least WMON_MIN calls (the shortest after a CUSUM a third of the way), at most
 * 64 for calls of 50 us or more and WMON_MAX for cheaper ones. A window is
 * planned in calls: one planned for cheap calls that turn expensive lasts
 * until its end, so that expensive ones are never planned long. */
static uint32_t monitor_len(const psk_tune_group *g, double rho)
{
    double inc = psk_tune_learn_est(g, g->inc);
    if (!(inc > 0))
        return WMON_MIN;
    /* a CUSUM a third of the way to its threshold (a slot far off at the
     * window's end): the next window just long enough to confirm it if the
     * shift holds (at least 2 calls: the first takes the skew), so that a
     * change late in a window is acted on soon; rare, so the cost holds */
    double S = fmax(g->sp, g->sn);
    if (S > g->h / 3)
        return clampu((g->h - S) / (ZCLIP * g->h / CUSUM_H - CUSUM_K) + 2, 2, WMON_MIN);
    double w = g->ar_cost / fmax(rho * inc, DEC_NS);
    /* calls under 10 us, monitored without a change: each window twice
     * the last, up to GROW_MAX doublings and WMON_NS of calls (a change
     * is then seen within some 10 ms, not within so many calls) */
    if (inc < 10e3 && g->phase == PH_MONITOR && g->nmon > 0) {
        double grown = w * (double)(1u << (g->nmon < GROW_MAX ? g->nmon : GROW_MAX));
        w = fmax(w, fmin(grown, WMON_NS / inc));
    }
    return clampu(w, WMON_MIN, inc >= 50e3 ? 64 : WMON_MAX);
}

/* the slots for w calls of the incumbent, at most max: one a call for
 * calls of 10 us or more timed every one (a change is seen within a few
 * calls); otherwise 8 timed calls a slot or more (8 x the window's
 * stride), so that the change detector sees their mean (one call of a
 * microsecond is mostly the machine's jitter). The stride is set first */
static int inc_slots(const psk_tune_group *g, uint32_t w, int max)
{
    if (psk_tune_learn_est(g, g->inc) >= 10e3 && g->stride <= 1)
        return max;
    /* sampled: 8 timed calls a slot */
    int k = (int)(w / (uint32_t)(8 * g->stride));
    return k < 1 ? 1 : k < max ? k : max;
}

/* a monitoring window's stride: timing costs at most 0.25 % of a call or
 * 5 ns (the incumbent's calls; a probe, a slot of one call, is timed) */
static int monitor_stride(const psk_tune_group *g)
{
    double inc = psk_tune_learn_est(g, g->inc);
    int s = 1;
    while (inc > 0 && s < STRIDE_MAX && CLOCK_NS / s > fmax(5, 0.0025 * inc))
        s *= 2;
    return s;
}

void psk_tune_plan_monitor(psk_tune_group *g, int probe)
{
    uint32_t w = monitor_len(g, RHO_MON);
    psk_tune_plan_reset(g);
    g->stride = monitor_stride(g);
    if (probe >= 0) { /* the runner-up once, in the middle */
        psk_tune_plan_spread(g, g->inc, w / 2, inc_slots(g, w / 2, LEARN_SLOTS / 2 - 1));
        psk_tune_plan_add(g, probe, 1);
        psk_tune_plan_spread(g, g->inc, w - w / 2, inc_slots(g, w - w / 2, LEARN_SLOTS / 2));
    } else
        psk_tune_plan_spread(g, g->inc, w, inc_slots(g, w, LEARN_SLOTS));
}

/* an exploring window: [incumbent, probe] pairs for the candidates the
 * bank pays for, measured ones first, then one never probed (the first
 * of them: the runner-up or a seed's arm, else by prediction), so that a
 * probe far worse than its risk costs once before the bank stops the next;
 * padded with the incumbent so that the allreduce stays within RHO_EXP;
 * only the incumbent if no probe is paid for */
void psk_tune_plan_explore(psk_tune_group *g)
{
    double inc = psk_tune_learn_est(g, g->inc), left = psk_tune_learn_bank(g) - g->ar_cost;
    int probes[2 * PSK_TUNE_NARMS], n = 0, fresh = -1, faster = 0;
    for (int a = 0; a < PSK_TUNE_NARMS; a++) {
        if (!(g->active >> a & 1) || a == g->inc || g->arm[a].trials >= TMAX)
            continue;
        if (g->arm[a].rn) {
            if (psk_tune_learn_risk(g, a) <= left) {
                left -= psk_tune_learn_risk(g, a);
                probes[n++] = a;
                /* one that looks faster (no risk): twice, to be promoted
                 * sooner after a change; no fresh arm then */
                if (psk_tune_stats_rmed(g, a) < log(1 - HYST) && g->arm[a].trials + 1 < TMAX) {
                    probes[n++] = a;
                    faster = 1;
                }
            }
        } else if (fresh < 0 || a == g->first || (fresh != g->first && g->pred[a] < g->pred[fresh]))
            fresh = a;
    }
    /* a short job (FT makes some 20 calls) only probes what the model
     * says wins by 10 % (docs/tune.md, "The budget": a 20-call job of
     * similar arms explores nothing in its first run) */
    if (fresh >= 0 && g->prev_calls + g->gate_calls + g->calls < FEW_CALLS &&
        !(g->pred[fresh] > 0 && g->pred[fresh] <= 0.9 * inc) &&
        !(fresh == g->seed_arm && (g->origin == ORIGIN_SEED || g->origin == ORIGIN_SEED_DB)))
        fresh = -1;
    if (fresh >= 0 && !faster && psk_tune_learn_risk(g, fresh) <= left)
        probes[n++] = fresh;
    psk_tune_plan_reset(g);
    /* the incumbent's calls sampled as when monitoring (a probe and its
     * pair, slots of one call, are timed) */
    g->stride = monitor_stride(g);
    uint32_t w = clampu(inc > 0 ? g->ar_cost / (RHO_EXP * inc) : 0, 2, WMON_MAX);
    g->waiting = !n;
    if (!n) { /* wait for the bank: a monitoring-sized window, ending at
               * FEW_CALLS if before (a change detected early must not
               * delay the first probes) */
        uint32_t wm = monitor_len(g, RHO_WAIT);
        if (g->calls < FEW_CALLS && wm > FEW_CALLS - g->calls)
            wm = (uint32_t)(FEW_CALLS - g->calls) < 2 ? 2 : (uint32_t)(FEW_CALLS - g->calls);
        psk_tune_plan_spread(g, g->inc, wm, inc_slots(g, wm, LEARN_SLOTS));
        return;
    }
    /* the first call after the allreduce takes the ranks' skew: the
     * incumbent's, unpaired (unless the allreduce, which bounds the skew,
     * is under 5 % of a call: then a change is acted on a call sooner);
     * then each pair in turn probe first or second (an order effect must
     * not favour one side) */
    int lead = !(inc > 0 && g->ar_cost < 0.05 * inc);
    if (lead)
        psk_tune_plan_add(g, g->inc, 1);
    /* PSK_TUNE_SWITCH_WARMUP=1 (an experiment, off by default): each
     * side of a pair measured as it runs in a row, after one call of its
     * own not measured (smixed) where the call before was of another arm.
     * The first call after a switch takes what the other arm left (its
     * ranks' skew, connections in another state): at P = 4 on the testbed
     * pair measured 43 ms after native's 33 (its own steady 27), and every
     * paired probe of it lost to native. A probe then costs two calls of
     * its arm, which the budget does not count yet (docs/tune.md). */
    for (int i = 0; i < n; i++) {
        int again = i > 0 && probes[i - 1] == probes[i];
        int probe_first = (g->arm[probes[i]].trials + (uint32_t)again) & 1;
        int x = probe_first ? probes[i] : g->inc, y = probe_first ? g->inc : probes[i];
        plan_warm(g, x);
        psk_tune_plan_add(g, x, 1);
        int sx = g->nslot - 1;
        plan_warm(g, y);
        psk_tune_plan_add(g, y, 1);
        g->spair[g->nslot - 1] = (int16_t)sx;
        g->spair[sx] = (int16_t)(g->nslot - 1);
    }
    /* a rich bank (a slow incumbent) pays for short windows: faster */
    uint32_t used = (uint32_t)g->nslot;
    if (w > used && left < 8 * g->ar_cost)
        psk_tune_plan_spread(g, g->inc, w - used, inc_slots(g, w - used, LEARN_SLOTS - (int)used));
}
