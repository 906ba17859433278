/* The network of the machine model: what a message costs, and which
 * shared resources it holds while it moves (the formulas of the DVM
 * Predictor's detailed design, Keldysh Institute of Applied Mathematics,
 * 2000, §2.4 and §4.2; docs/simulation.md, The model).
 *   bus     one medium for the whole machine: transfers one at a time,
 *           each start + bytes x byte_time;
 *   switch  full-duplex links per node (`links per node` at once in each
 *           direction) and optionally a Dimemas-style limit of `buses`
 *           transfers in the whole network;
 *   grid    nodes on a mesh (`topology`); a message over D > 1 hops is
 *           pipelined in packets of s = sqrt(start x B / (byte_time x
 *           (D - 1))) bytes (clipped to [1, B]): (start + byte_time x s) x
 *           (D + k - 1) + [e > 0] (start + byte_time x e), k = B / s,
 *           e = B mod s; links are not shared.
 * Ranks on one node (`ranks per node`; without a machine file, the hosts
 * they were recorded on) talk at the intra-node cost and hold no network
 * resource. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

int psk_net_init(psk_net *n, const psk_machine *m, int P, const int *node_of, int nodes)
{
    memset(n, 0, sizeof *n);
    n->m = m;
    n->eager = m->eager_bytes;
    n->P = P;
    n->nnodes = node_of ? nodes : (P + m->ranks_per_node - 1) / m->ranks_per_node;
    if (n->nnodes < 1)
        n->nnodes = 1;
    n->node = malloc((size_t)(P > 0 ? P : 1) * sizeof *n->node);
    if (!n->node)
        return PSK_ENOMEM;
    for (int q = 0; q < P; q++)
        n->node[q] = node_of ? node_of[q] : q / m->ranks_per_node;
    if (m->type == PSK_NET_SWITCH) {
        size_t k = (size_t)n->nnodes * (size_t)m->links;
        n->out_free = calloc(k, sizeof *n->out_free);
        n->in_free = calloc(k, sizeof *n->in_free);
        if (m->buses)
            n->buses_free = calloc((size_t)m->buses, sizeof *n->buses_free);
        if (!n->out_free || !n->in_free || (m->buses && !n->buses_free))
            return PSK_ENOMEM;
    }
    if (m->type == PSK_NET_GRID) {
        int64_t cells = 1;
        for (int d = 0; d < m->ntopo; d++)
            cells *= m->topo[d];
        if (cells < n->nnodes)
            return PSK_EINVAL; /* the caller says: the grid is too small */
        n->coord = malloc((size_t)n->nnodes * (size_t)m->ntopo * sizeof *n->coord);
        if (!n->coord)
            return PSK_ENOMEM;
        for (int i = 0; i < n->nnodes; i++) { /* row-major: the last dimension varies fastest */
            int64_t x = i;
            for (int d = m->ntopo - 1; d >= 0; d--) {
                n->coord[(size_t)i * (size_t)m->ntopo + (size_t)d] = x % m->topo[d];
                x /= m->topo[d];
            }
        }
    }
    return PSK_OK;
}

void psk_net_free(psk_net *n)
{
    free(n->out_free);
    free(n->in_free);
    free(n->buses_free);
    free(n->coord);
    free(n->node);
    memset(n, 0, sizeof *n);
}

static int64_t distance(const psk_net *n, int na, int nb)
{
    int64_t d = 0;
    for (int k = 0; k < n->m->ntopo; k++) {
        int64_t x = n->coord[(size_t)na * (size_t)n->m->ntopo + (size_t)k] -
                    n->coord[(size_t)nb * (size_t)n->m->ntopo + (size_t)k];
        d += x < 0 ? -x : x;
    }
    return d;
}

/* the cost between nodes na and nb */
static double node_cost(const psk_net *n, int na, int nb, int64_t bytes)
{
    const psk_machine *m = n->m;
    double B = (double)(bytes > 0 ? bytes : 0);
    if (na == nb)
        return 1e3 * psk_machine_msg_us(m, bytes, 1);
    if (m->type != PSK_NET_GRID)
        return 1e3 * psk_machine_msg_us(m, bytes, 0);
    double D = (double)distance(n, na, nb), ts = m->start_us, tb = m->byte_us;
    if (D <= 1)
        return 1e3 * (ts + tb * B);
    if (B <= 0)
        return 1e3 * ts * D;
    double s = tb > 0 ? floor(sqrt(ts * B / (tb * (D - 1)))) : B;
    if (s < 1)
        s = 1;
    if (s > B)
        s = B;
    double k = floor(B / s), e = B - k * s;
    return 1e3 * ((ts + tb * s) * (D + k - 1) + (e > 0 ? ts + tb * e : 0));
}

double psk_net_cost(const psk_net *n, int a, int b, int64_t bytes)
{
    return node_cost(n, n->node[a], n->node[b], bytes);
}

void psk_net_prefetch(const psk_net *n, int b) { __builtin_prefetch(&n->node[b]); }

/* the earliest free of k slots */
static double *earliest(double *slots, int k)
{
    double *best = &slots[0];
    for (int i = 1; i < k; i++)
        if (slots[i] < *best)
            best = &slots[i];
    return best;
}

double psk_net_transfer(psk_net *n, int a, int b, int64_t bytes, double ready, double *begin)
{
    const psk_machine *m = n->m;
    int na = n->node[a], nb = n->node[b];
    double cost = node_cost(n, na, nb, bytes), t = ready;
    n->transfers++;
    if (na != nb && m->type == PSK_NET_BUS) {
        t = t > n->bus_free ? t : n->bus_free;
        n->bus_free = t + cost;
    } else if (na != nb && m->type == PSK_NET_SWITCH) {
        double *o = earliest(n->out_free + (size_t)na * (size_t)m->links, m->links);
        double *i = earliest(n->in_free + (size_t)nb * (size_t)m->links, m->links);
        double *g = m->buses ? earliest(n->buses_free, m->buses) : NULL;
        t = t > *o ? t : *o;
        t = t > *i ? t : *i;
        if (g)
            t = t > *g ? t : *g;
        *o = *i = t + cost;
        if (g)
            *g = t + cost;
    }
    if (begin)
        *begin = t;
    return t + cost;
}
