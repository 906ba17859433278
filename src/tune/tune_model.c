/* The cost model that prunes the learner's candidates: Hockney's alpha +
 * bytes x beta (psk_collcost.c, the formulas perfskel sim uses) with alpha
 * and beta fitted per communicator and collective to what the native arm
 * measured, as if native were the algorithm both MPIs use most for it
 * (pairwise alltoall, binomial bcast, recursive doubling allreduce, ring
 * allgather): its cost is A alpha + B beta for the size, so t / A = alpha
 * + (B / A) beta over the groups' sizes (least squares, neither negative;
 * for alltoall t / (P - 1) = alpha + m beta); with one size alpha is the
 * prior (PSK_TUNE_MACHINE's start time, else 1.5 us) and beta what is
 * left; with none, the prior's both. Inputs are agreed data (max-reduced
 * native times, bytes), so every rank predicts the same. It has no
 * contention term: it can only say which arms cannot win, not which will
 * (docs/tune.md, How the learner decides: The cost model). */
#include <math.h>

#include "psk_collcost.h"
#include "tune_internal.h"

/* each arm as the cost formulas see it (perfskel/coll.h's list): its
 * collective (enum psk_tune_coll), algorithm and synchronisation */
static const struct {
    int coll, alg, sync;
} shape[PSK_TUNE_NARMS] = {
#define SHAPE(name, pow2, coll, alg, sync) [PSK_TUNE_##name] = {coll, PSK_ALG_##alg, PSK_CC_SYNC_##sync},
    PSK_TUNE_ARM_LIST(SHAPE)
#undef SHAPE
};

/* the collective of an arm as the formulas number it (perfskel/coll.h) */
static int cc(int arm)
{
    static const int id[PSK_TUNE_NCOLL] = {
#define ID(name, id, fn) PSK_COLL_##id,
        PSK_TUNE_COLL_LIST(ID)
#undef ID
    };
    return shape[arm].coll >= 0 ? id[shape[arm].coll] : 0;
}

/* native's stand-in per collective (enum psk_tune_coll): the arm whose
 * form is used for it */
static const int native_as[PSK_TUNE_NCOLL] = {PSK_TUNE_pair, PSK_TUNE_bc_binomial, PSK_TUNE_ar_recdbl,
                                               PSK_TUNE_ag_ring};

static double cost(const psk_collcost_net *net, int arm, int P, int64_t m)
{
    if (cc(arm) == PSK_COLL_ALLTOALL)
        return psk_collcost_alltoall(net, shape[arm].alg, shape[arm].sync, P, m);
    if (shape[arm].alg == PSK_ALG_RABENSEIFNER || (shape[arm].alg == PSK_ALG_RECDOUBLING && (P & (P - 1)))) {
        /* folded (tune_allreduce.c, tune_allgather.c): the algorithm on
         * the largest power of two below P, before it a rank's vector or
         * block in, after it the result out */
        int p = 1;
        while (p * 2 <= P)
            p *= 2;
        if (p == P)
            return psk_collcost(net, cc(arm), shape[arm].alg, P, m);
        if (cc(arm) == PSK_COLL_ALLGATHER) /* p ranks of about P / p blocks */
            return psk_collcost(net, cc(arm), shape[arm].alg, p, m * P / p) + psk_collcost_msg(net, m) +
                   psk_collcost_msg(net, m * P);
        return psk_collcost(net, cc(arm), shape[arm].alg, p, m) + 2 * psk_collcost_msg(net, m);
    }
    return psk_collcost(net, cc(arm), shape[arm].alg, P, m);
}

static void fit(const psk_tune_comm *c, int coll, int P, double *alpha, double *beta)
{
    double sm = 0, sy = 0, smm = 0, smy = 0, n = 0, m1 = 0, y1 = 0;
    int distinct = 0, as = native_as[coll];
    for (int i = 0; i < c->ngroups; i++) {
        const psk_tune_group *g = c->groups[i];
        double t = psk_tune_learn_est(g, PSK_TUNE_native);
        if (g->coll != coll || !g->calls || t <= 0 || g->arm[PSK_TUNE_native].n < 2)
            continue;
        /* the form's latency and bandwidth terms at this size */
        int64_t b = (int64_t)llround(g->bytes_sum / (double)g->calls);
        psk_collcost_net ua = {.alpha = 1}, ub = {.beta = 1};
        double A = cost(&ua, as, P, b), B = cost(&ub, as, P, b);
        if (!(A > 0))
            continue;
        double m = B / A, y = t / A;
        if (n > 0 && m != m1)
            distinct = 1;
        m1 = m, y1 = y;
        sm += m, sy += y, smm += m * m, smy += m * y, n++;
    }
    *alpha = c->alpha0, *beta = c->beta0;
    if (n == 0)
        return;
    if (!distinct) { /* one size: the prior's latency, the rest per byte */
        *alpha = y1 < c->alpha0 ? y1 : c->alpha0;
        *beta = m1 > 0 ? (y1 - *alpha) / m1 : 0;
        return;
    }
    double var = smm - sm * sm / n;
    double b = var > 0 ? (smy - sm * sy / n) / var : 0, a = (sy - b * sm) / n;
    if (b < 0) /* latency-bound everywhere */
        b = 0, a = sy / n;
    if (a < 0) /* through the origin */
        a = 0, b = smm > 0 ? smy / smm : 0;
    *alpha = a, *beta = b;
}

void psk_tune_model_predict(const psk_tune_comm *c, int coll, int P, double m, int inplace,
                            double pred[PSK_TUNE_NARMS])
{
    double alpha, beta;
    fit(c, coll, P, &alpha, &beta);
    /* guesses: a post costs a quarter of a latency, a copy half a byte's
     * transfer (both only move spread and Bruck a little) */
    psk_collcost_net net = {.alpha = alpha, .beta = beta, .beta_mem = beta / 2, .overhead = alpha / 4};
    int64_t mb = m > 0 ? (int64_t)llround(m) : 0;
    for (int a = 0; a < PSK_TUNE_NARMS; a++) {
        pred[a] = 0;
        if (a == PSK_TUNE_native || !psk_tune_arm_valid(coll, a, P, (size_t)mb, inplace))
            continue;
        pred[a] = cost(&net, a, P, mb);
        if (inplace && coll == PSK_TUNE_C_alltoall) /* packed away first, each block unpacked after */
            pred[a] += 2 * (double)P * (double)mb * net.beta_mem;
    }
    pred[PSK_TUNE_native] = cost(&net, native_as[coll], P, mb);
}
