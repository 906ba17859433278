/* STAR-MPI's policy, for comparison with the learner: Faraj, Yuan and
 * Lowenthal, "STAR-MPI: Self Tuned Adaptive Routines for MPI Collective
 * Operations", ICS 2006 (docs/tune.md, "STAR-MPI's policy"). Per exact
 * size, X calls of each valid arm but native; the best mean of its fastest
 * X/2 + 1 maxima wins; then windows of factor x X calls, switching to the
 * runner-up once both the window's and its last X calls' means exceed
 * 1.1 x the runner-up's tuned time. Nothing is measured again. */
#include <math.h>
#include <stdlib.h>

#include "tune_internal.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void star_plan_monitor(psk_tune_group *g)
{
    uint32_t X = (uint32_t)psk_tune_cfg_g.star_x, w = (uint32_t)g->star_factor * X;
    psk_tune_plan_reset(g);
    psk_tune_plan_add(g, g->inc, 2); /* skipped */
    psk_tune_plan_add(g, g->inc, w - X);
    psk_tune_plan_add(g, g->inc, X);
    g->sum_extra = 1; /* the window's local mean, reduced as such */
}

void psk_tune_star_decide(const psk_tune_comm *c, psk_tune_group *g, const double *per, double extra)
{
    int X = psk_tune_cfg_g.star_x;
    if (g->phase == PH_STAR_LEARN) {
        /* per arm the mean of its fastest X/2 + 1 maxima; best first */
        int best = -1, second = -1;
        for (int s = 0; s + X <= g->nslot; s += X) {
            int a = g->sarm[s];
            double v[STAR_SLOTS];
            for (int i = 0; i < X; i++)
                v[i] = per[s + i];
            qsort(v, (size_t)X, sizeof *v, cmp_double);
            double sum = 0;
            for (int i = 0; i < X / 2 + 1; i++)
                sum += v[i];
            g->arm[a].tuned = sum / (X / 2 + 1);
            if (best < 0 || g->arm[a].tuned < g->arm[best].tuned)
                second = best, best = a;
            else if (second < 0 || g->arm[a].tuned < g->arm[second].tuned)
                second = a;
        }
        if (best >= 0) {
            psk_tune_group_set_inc(g, best, WHY_STAR_LEARN);
            /* what learning cost against the arm it chose */
            for (int s = 0; s < g->nslot; s++)
                g->overhead += per[s] - g->arm[best].tuned;
        }
        g->runner = second;
        g->phase = PH_STAR_MON;
        g->star_factor = 2;
    } else {
        uint32_t w = (uint32_t)g->star_factor * (uint32_t)X;
        double wmean = extra / w, last = per[g->nslot - 1];
        double thresh = g->runner >= 0 ? 1.1 * g->arm[g->runner].tuned : INFINITY;
        if (wmean > thresh && last > thresh) {
            int old = g->inc;
            psk_tune_group_set_inc(g, g->runner, WHY_STAR_SWITCH);
            g->runner = old;
            g->star_factor = 2;
        } else if (!(wmean > thresh) && g->star_factor < (1 << 20))
            g->star_factor *= 2;
    }
    (void)c;
    star_plan_monitor(g);
}

void psk_tune_star_start(const psk_tune_comm *c, psk_tune_group *g)
{
    int X = psk_tune_cfg_g.star_x;
    psk_tune_plan_reset(g);
    g->phase = PH_STAR_LEARN;
    for (int a = 1; a < PSK_TUNE_NARMS; a++) /* the repository's order; native is not in it */
        if (psk_tune_arm_valid(g->coll, a, c->size, g->bytes, g->inplace))
            for (int i = 0; i < X; i++)
                psk_tune_plan_add(g, a, 1);
    if (!g->nslot) { /* nothing to learn: native for good */
        g->phase = PH_STAR_MON;
        g->runner = -1;
        g->star_factor = 2;
        star_plan_monitor(g);
    }
}
