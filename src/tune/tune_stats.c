/* Robust statistics for the learner: per arm of a group the latest
 * per-call times and log ratios to the incumbent, in rings of
 * PSK_TUNE_NSAMP, and the estimates taken from them: medians (Hoare's
 * selection), the spread of the ratios pooled over the arms (1.4826 x the
 * median absolute deviation) and the incumbent's noise from consecutive
 * samples. Medians, not means: one descheduled rank makes one slow call. */
#include <math.h>
#include <string.h>

#include "tune_internal.h"

/* ---- samples and estimates ---- */

/* the k-th smallest of v[0..n) (0-based), v reordered: Hoare's selection,
 * linear on average (a decision takes a few medians per window) */
static float select_kth(float *v, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        float p = v[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < p)
                i++;
            while (v[j] > p)
                j--;
            if (i <= j) {
                float t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* the median of v[0..n), v reordered */
double psk_tune_stats_median(float *v, int n)
{
    if (n <= 0)
        return 0;
    double hi = select_kth(v, n, n / 2);
    if (n % 2)
        return hi;
    /* the lower middle: the greatest of the part below */
    float lo = v[0];
    for (int i = 1; i < n / 2; i++)
        if (v[i] > lo)
            lo = v[i];
    return 0.5 * ((double)lo + hi);
}

double psk_tune_learn_est(const psk_tune_group *g, int arm)
{
    const psk_tune_arml *a = &g->arm[arm];
    float v[PSK_TUNE_NSAMP];
    memcpy(v, a->x, a->n * sizeof *v);
    return psk_tune_stats_median(v, a->n);
}

void psk_tune_stats_add_sample(psk_tune_arml *a, double x)
{
    a->x[a->pos] = (float)x;
    a->pos = (uint8_t)((a->pos + 1) % PSK_TUNE_NSAMP);
    if (a->n < PSK_TUNE_NSAMP)
        a->n++;
}

void psk_tune_stats_clear(psk_tune_arml *a) { a->n = a->pos = 0, a->trials = 0; }

/* An arm is compared with the incumbent by the ratios of paired calls:
 * each probe follows a call of the incumbent in the same window, so that
 * a load that comes and goes slows both alike. Kept as logarithms. */
void psk_tune_stats_add_ratio(psk_tune_arml *a, double lr)
{
    a->r[a->rpos] = (float)lr;
    a->rpos = (uint8_t)((a->rpos + 1) % PSK_TUNE_NSAMP);
    if (a->rn < PSK_TUNE_NSAMP)
        a->rn++;
    a->trials++;
}

/* the median log ratio of arm a to the incumbent */
double psk_tune_stats_rmed(const psk_tune_group *g, int a)
{
    float v[PSK_TUNE_NSAMP];
    memcpy(v, g->arm[a].r, g->arm[a].rn * sizeof *v);
    return psk_tune_stats_median(v, g->arm[a].rn);
}

/* the spread of a log ratio: 1.4826 x the median absolute deviation of
 * every arm's ratios from its own median (robust to a descheduled rank),
 * within [0.05, 0.5]; 0.15 until there are 6 */
double psk_tune_stats_sigma(const psk_tune_group *g)
{
    float dev[PSK_TUNE_NARMS * PSK_TUNE_NSAMP];
    int n = 0;
    for (int a = 0; a < PSK_TUNE_NARMS; a++) {
        const psk_tune_arml *s = &g->arm[a];
        if (s->rn < 2)
            continue;
        double m = psk_tune_stats_rmed(g, a);
        for (int i = 0; i < s->rn; i++)
            dev[n++] = (float)fabs(s->r[i] - m);
    }
    if (n < 6)
        return 0.15;
    double s = 1.4826 * psk_tune_stats_median(dev, n);
    return s < 0.05 ? 0.05 : s > 0.5 ? 0.5 : s;
}

/* the spread of the incumbent's log time per call, within [0.1, 1] (a
 * shift under 10 % is not worth exploring for); NOISE0 until it has 8
 * samples. From the differences of consecutive samples (1.4826 x their
 * median absolute deviation / sqrt 2), not the samples' own deviation:
 * one shift of level among them (the change being watched for) moves
 * one difference, where it made half the samples deviate (a unit of 0.89
 * in one four-rank testbed run, where pair's 27 ms calls turned 96 ms:
 * no alarm until the neighbour stopped) */
double psk_tune_stats_noise(const psk_tune_group *g)
{
    const psk_tune_arml *a = &g->arm[g->inc];
    if (a->n < 8)
        return NOISE0;
    float d[PSK_TUNE_NSAMP], e[PSK_TUNE_NSAMP];
    int first = a->n < PSK_TUNE_NSAMP ? 0 : a->pos, n = 0; /* the oldest */
    for (int k = 1; k < a->n; k++) {
        float x0 = a->x[(first + k - 1) % PSK_TUNE_NSAMP], x1 = a->x[(first + k) % PSK_TUNE_NSAMP];
        if (x0 > 0 && x1 > 0)
            d[n++] = (float)log(x1 / x0);
    }
    if (n < 7)
        return NOISE0;
    memcpy(e, d, (size_t)n * sizeof *d);
    double m = psk_tune_stats_median(e, n);
    for (int i = 0; i < n; i++)
        d[i] = (float)fabs(d[i] - m);
    double s = 1.4826 * psk_tune_stats_median(d, n) / sqrt(2);
    return s < 0.1 ? 0.1 : s > 1 ? 1 : s;
}
