/* Closed-form collective costs (psk_collcost.h): L is a 0-byte message, CB
 * one of the operation's size, lg = ceil(log2 P). The forms before the
 * alltoall arms are those perfskel sim always used for `collectives =
 * closed`, kept to the last operation so that its results do not move (a
 * bus's reduce and allreduce stay in sim_coll.c: the DVM Predictor's §4.4
 * formula is about the bus, not the algorithm). The alltoall arms follow
 * Thakur et al. (IJHPCA 2005): a barrier costs lg latencies (dissemination);
 * so does the scatter + ring bcast, which sim never asks for. */
#include <math.h>

#include "psk_collcost.h"

double psk_collcost_lg(int P) { return P > 1 ? ceil(log2((double)P)) : 0; }

double psk_collcost_msg(const psk_collcost_net *net, int64_t bytes)
{
    if (net->msg)
        return net->msg(net->ctx, bytes);
    return net->alpha + (double)(bytes > 0 ? bytes : 0) * net->beta;
}

double psk_collcost_alltoall(const psk_collcost_net *net, int alg, int sync, int P, int64_t m)
{
    if (P < 2)
        return 0;
    double L = psk_collcost_msg(net, 0), CB = psk_collcost_msg(net, m), lg = psk_collcost_lg(P), t;
    if (alg == PSK_ALG_BRUCK) {
        /* lg steps of about half the blocks; packing, rotating, unpacking */
        t = lg * psk_collcost_msg(net, m * (P / 2));
        if (net->beta_mem > 0)
            t += (2 + lg) * P * (double)m * net->beta_mem;
        return t;
    }
    if (alg == PSK_ALG_SPREAD) /* one latency; every message costs its bytes and a post */
        return L + (P - 1) * (net->overhead + (CB - L));
    t = (P - 1) * CB;
    switch (sync) {
    case PSK_CC_SYNC_LB: /* a 1-byte exchange before every step but the first */
        if (P > 2)
            t += (P - 2) * psk_collcost_msg(net, 1);
        break;
    case PSK_CC_SYNC_MB:
        t += (P - 1) * psk_collcost(net, PSK_COLL_BARRIER, PSK_ALG_BRUCK, P, 0);
        break;
    case PSK_CC_SYNC_OB:
        t += psk_collcost(net, PSK_COLL_BARRIER, PSK_ALG_BRUCK, P, 0);
        break;
    }
    return t;
}

double psk_collcost(const psk_collcost_net *net, int coll, int alg, int P, int64_t bytes)
{
    int n = P;
    if (n < 2)
        return 0;
    double L = psk_collcost_msg(net, 0), CB = psk_collcost_msg(net, bytes), lg = psk_collcost_lg(n);
    double per_byte = (CB - L);
    switch (coll) {
    case PSK_COLL_BARRIER:
        return alg == PSK_ALG_LINEAR ? 2 * (n - 1) * L : (alg == PSK_ALG_BINOMIAL ? 2 : 1) * lg * L;
    case PSK_COLL_BCAST:
        if (alg == PSK_ALG_SCATTER_RING) /* lg + P - 1 latencies, the buffer twice less a piece */
            return (lg + n - 1) * L + 2.0 * (n - 1) / n * per_byte;
        /* fall through */
    case PSK_COLL_REDUCE:
    case PSK_COLL_SCAN:
        return alg == PSK_ALG_LINEAR ? (n - 1) * CB : lg * CB;
    case PSK_COLL_ALLREDUCE:
        if (alg == PSK_ALG_RING)
            return 2.0 * (n - 1) * (L + per_byte / n);
        if (alg == PSK_ALG_RABENSEIFNER)
            return 2 * lg * L + 2.0 * (n - 1) / n * per_byte;
        if (alg == PSK_ALG_LINEAR)
            return 2.0 * (n - 1) * CB;
        return (alg == PSK_ALG_BINOMIAL ? 2 : 1) * lg * CB;
    case PSK_COLL_GATHER:
    case PSK_COLL_SCATTER:
        return alg == PSK_ALG_BINOMIAL ? lg * L + (n - 1) * per_byte : (n - 1) * CB;
    case PSK_COLL_ALLGATHER:
        return alg == PSK_ALG_RING || alg == PSK_ALG_LINEAR ? (n - 1) * CB : lg * L + (n - 1) * per_byte;
    case PSK_COLL_ALLTOALL:
        return psk_collcost_alltoall(net, alg, PSK_CC_SYNC_NONE, n, bytes);
    case PSK_COLL_REDUCE_SCATTER:
        return alg == PSK_ALG_RECDOUBLING ? lg * L + (n - 1) * per_byte : (n - 1) * CB;
    }
    return 0;
}
