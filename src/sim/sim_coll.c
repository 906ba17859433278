/* Collective operations on the machine model: each algorithm expanded into
 * its point-to-point rounds through the network (sim_net.c), starting from
 * each member's arrival (where members share cores and wait busily, a
 * member sends or takes a round's message only in its turns: c->turn); or,
 * with `collectives = closed`, one formula
 * counted from the last arrival for every member. Members are indexed
 * 0..n-1 in communicator order; c->bytes is the per-member size: the whole
 * buffer for bcast, reduce, allreduce and scan, one member's block for
 * gather, scatter, allgather, reduce-scatter, and one destination's for
 * alltoall. A member that copies its own block (c->own: alltoall,
 * allgather, a gather's or scatter's root, not in place) does so first, at
 * `copy byte time`. Defaults follow MPICH's choices by size. A
 * neighborhood collective (c->cart) is an exchange with each member's grid
 * neighbours, posted at once as Open MPI and MPICH do: its members' times
 * depend on their neighbours' only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psk_cart.h"
#include "psk_collcost.h"
#include "sim_internal.h"

typedef struct run {
    psk_net *net;
    const psk_coll_call *c;
    double *t;   /* per member: its current time */
    double *nt;  /* scratch: times after a round */
} run;

static double dmax(double a, double b) { return a > b ? a : b; }

/* when member i starts the algorithm: at its arrival, after the copy of
 * its own block (Open MPI's and MPICH's alltoall, allgather, gather and
 * scatter copy it first) */
static double start_of(const psk_net *net, const psk_coll_call *c, int i)
{
    return c->arrive[i] + (c->own ? (double)c->own[i] * net->m->copy_byte_us * 1e3 : 0);
}

/* the first moment at or after t that member i runs: t, unless members
 * share cores and wait busily (then a member acts only in its turns; it
 * ran when it arrived) */
static double turn(const run *r, int i, double t)
{
    if (!r->c->turn || t <= start_of(r->net, r->c, i))
        return t;
    return r->c->turn(r->c->turn_arg, r->c->world[i], t);
}

/* when member i, at its current time, can act: send, or take what came */
static double at(const run *r, int i) { return turn(r, i, r->t[i]); }

/* a rendezvous message of member i to member j: the receiver takes it
 * once i has sent its request and j has come to the round, in a turn of
 * j's; when it starts */
static double pull(const run *r, int i, int j) { return turn(r, j, dmax(at(r, i), r->t[j])); }

/* member i sends bytes to member j: the sender is busy until it ends (a
 * rendezvous sender learns it in its next turn), the receiver has it at
 * the end (once it runs) */
static void send1(run *r, int i, int j, int64_t bytes)
{
    int rdv = bytes > r->net->eager;
    double ready = rdv ? pull(r, i, j) : at(r, i);
    double end = psk_net_transfer(r->net, r->c->world[i], r->c->world[j], bytes, ready, NULL);
    r->t[i] = rdv ? turn(r, i, end) : end;
    r->t[j] = turn(r, j, dmax(r->t[j], end));
}

/* in a round of messages at once (times from r->t, after it in r->nt):
 * member i's bytes to member j, once both are in the round (a rendezvous
 * one taken by j, as pull()); j has them once it runs. When the sender is
 * done with it (a rendezvous sender learns it in its next turn) */
static double round_msg(run *r, int i, int j, int64_t bytes)
{
    int rdv = bytes > r->net->eager;
    double ready = rdv ? pull(r, i, j) : dmax(at(r, i), at(r, j));
    double end = psk_net_transfer(r->net, r->c->world[i], r->c->world[j], bytes, ready, NULL);
    r->nt[j] = dmax(r->nt[j], turn(r, j, end));
    return rdv ? turn(r, i, end) : end;
}

/* a round in which every member i sends to to(i) and receives from
 * from(i) at once, bytes each: times from the start of the round */
static void shift_round(run *r, int dist, int64_t bytes)
{
    int n = r->c->n;
    memcpy(r->nt, r->t, (size_t)n * sizeof *r->t);
    for (int i = 0; i < n; i++)
        r->nt[i] = dmax(r->nt[i], round_msg(r, i, (i + dist) % n, bytes));
    memcpy(r->t, r->nt, (size_t)n * sizeof *r->t);
}

/* member i and member j swap bytes each way at once (rendezvous ones
 * each taken by its receiver, as pull()) */
static void exchange(run *r, int i, int j, int64_t bytes)
{
    int rdv = bytes > r->net->eager;
    double ready = dmax(at(r, i), at(r, j));
    double e1 = psk_net_transfer(r->net, r->c->world[i], r->c->world[j], bytes, rdv ? pull(r, i, j) : ready, NULL);
    double e2 = psk_net_transfer(r->net, r->c->world[j], r->c->world[i], bytes, rdv ? pull(r, j, i) : ready, NULL);
    double e = dmax(e1, e2);
    r->t[i] = turn(r, i, e);
    r->t[j] = turn(r, j, e);
}

static int real(const run *r, int v) { return (v + r->c->root) % r->c->n; }

static void bcast_binomial(run *r, int64_t bytes)
{
    int n = r->c->n;
    for (int mask = 1; mask < n; mask <<= 1)
        for (int v = 0; v < mask && v + mask < n; v++)
            send1(r, real(r, v), real(r, v + mask), bytes);
}

static void bcast_linear(run *r, int64_t bytes)
{
    for (int v = 1; v < r->c->n; v++)
        send1(r, r->c->root, real(r, v), bytes);
}

static void reduce_binomial(run *r, int64_t bytes)
{
    int n = r->c->n;
    for (int mask = 1; mask < n; mask <<= 1)
        for (int v = mask; v < n; v += 2 * mask)
            send1(r, real(r, v), real(r, v - mask), bytes);
}

static void reduce_linear(run *r, int64_t bytes)
{
    for (int v = 1; v < r->c->n; v++)
        send1(r, real(r, v), r->c->root, bytes);
}

/* gather: subtrees send what they hold (mask members' blocks) */
static void gather_binomial(run *r, int64_t block)
{
    int n = r->c->n;
    for (int mask = 1; mask < n; mask <<= 1)
        for (int v = mask; v < n; v += 2 * mask) {
            int64_t k = n - v < mask ? n - v : mask;
            send1(r, real(r, v), real(r, v - mask), block * k);
        }
}

static void scatter_binomial(run *r, int64_t block)
{
    int n = r->c->n, top = 1;
    while (top < n)
        top <<= 1;
    for (int mask = top >> 1; mask >= 1; mask >>= 1)
        for (int v = 0; v < n; v += 2 * mask)
            if (v + mask < n) {
                int64_t k = n - (v + mask) < mask ? n - (v + mask) : mask;
                send1(r, real(r, v), real(r, v + mask), block * k);
            }
}

static int pof2_below(int n)
{
    int p = 1;
    while (2 * p <= n)
        p *= 2;
    return p;
}

/* recursive doubling among the largest power of two of members; the rest
 * first hand their data to a partner and get the result back at the end */
static void allreduce_recdoubling(run *r, int64_t bytes, int halving)
{
    int n = r->c->n, p = pof2_below(n), extra = n - p;
    for (int i = 0; i < extra; i++) /* 2i+1 folds into 2i */
        send1(r, 2 * i + 1, 2 * i, bytes);
    /* the participants: 2i for i < extra, then extra.. */
    int *who = malloc((size_t)p * sizeof *who);
    if (!who)
        return;
    for (int k = 0; k < p; k++)
        who[k] = k < extra ? 2 * k : k + extra;
    if (!halving) {
        for (int mask = 1; mask < p; mask <<= 1)
            for (int k = 0; k < p; k++)
                if (k < (k ^ mask))
                    exchange(r, who[k], who[k ^ mask], bytes);
    } else { /* Rabenseifner: halving reduce-scatter, then doubling allgather */
        int64_t b = bytes;
        for (int mask = p >> 1; mask >= 1; mask >>= 1) {
            b = (b + 1) / 2;
            for (int k = 0; k < p; k++)
                if (k < (k ^ mask))
                    exchange(r, who[k], who[k ^ mask], b);
        }
        for (int mask = 1; mask < p; mask <<= 1) {
            for (int k = 0; k < p; k++)
                if (k < (k ^ mask))
                    exchange(r, who[k], who[k ^ mask], b);
            b *= 2;
        }
    }
    free(who);
    for (int i = 0; i < extra; i++)
        send1(r, 2 * i, 2 * i + 1, bytes);
}

static void ring_steps(run *r, int steps, int64_t bytes)
{
    for (int s = 0; s < steps; s++)
        shift_round(r, 1, bytes);
}

static void dissemination(run *r, int64_t bytes_per_step_unit, int grow)
{
    int n = r->c->n;
    for (int k = 1; k < n; k <<= 1) {
        int64_t b = grow ? bytes_per_step_unit * (k < n - k ? k : n - k) : bytes_per_step_unit;
        shift_round(r, k, b);
    }
}

/* the message cost between the first two members, for the formulas */
typedef struct pair_cost {
    const psk_net *net;
    int a, b;
} pair_cost;

static double pair_msg(const void *ctx, int64_t bytes)
{
    const pair_cost *p = ctx;
    return psk_net_cost(p->net, p->a, p->b, bytes);
}

/* one formula for the whole operation, from the last arrival
 * (psk_collcost.c, shared with the tuning library) */
static double closed(const run *r, int alg)
{
    const psk_coll_call *c = r->c;
    int n = c->n;
    if (n < 2)
        return 0;
    pair_cost pc = {r->net, c->world[0], c->world[1]};
    psk_collcost_net net = {.msg = pair_msg, .ctx = &pc};
    if (r->net->m->type == PSK_NET_BUS && (c->coll == PSK_COLL_REDUCE || c->coll == PSK_COLL_ALLREDUCE))
        return psk_collcost_msg(&net, c->bytes) * (n - 1); /* DVM Predictor §4.4: (start + byte_time x size) x (block + P - 2), block 1 */
    return psk_collcost(&net, c->coll, alg, n, c->bytes);
}

static int is_pof2(int n) { return n > 0 && !(n & (n - 1)); }

/* MPICH-like choices where the machine file names none (MPICH's alltoall
 * of blocks from 256 B to 32 KiB posts every message at once: where the
 * trace is MPICH's) */
static int default_alg(const psk_net *net, const psk_coll_call *c)
{
    int64_t B = c->bytes;
    int n = c->n;
    switch (c->coll) {
    case PSK_COLL_BARRIER: return PSK_ALG_BRUCK;
    case PSK_COLL_BCAST: return PSK_ALG_BINOMIAL;
    case PSK_COLL_REDUCE: return PSK_ALG_BINOMIAL;
    case PSK_COLL_ALLREDUCE: return B <= 2048 || B < n ? PSK_ALG_RECDOUBLING : PSK_ALG_RABENSEIFNER;
    case PSK_COLL_GATHER: return PSK_ALG_BINOMIAL;
    case PSK_COLL_SCATTER: return PSK_ALG_BINOMIAL;
    case PSK_COLL_ALLGATHER: return B * n <= 81920 ? (is_pof2(n) ? PSK_ALG_RECDOUBLING : PSK_ALG_BRUCK) : PSK_ALG_RING;
    case PSK_COLL_ALLTOALL:
        return B <= 256 && n >= 8 ? PSK_ALG_BRUCK : net->mpich && B < 32768 ? PSK_ALG_LINEAR : PSK_ALG_PAIRWISE;
    case PSK_COLL_REDUCE_SCATTER: return is_pof2(n) ? PSK_ALG_RECDOUBLING : PSK_ALG_PAIRWISE;
    case PSK_COLL_SCAN: return PSK_ALG_RECDOUBLING;
    }
    return PSK_ALG_LINEAR;
}

/* a message of a neighborhood exchange: from member i to member j, ready
 * to leave at ready; k its place in the members' order of sending */
typedef struct nmsg {
    double ready;
    int i, j;
    int64_t k;
} nmsg;

static int nmsg_cmp(const void *a, const void *b)
{
    const nmsg *x = a, *y = b;
    if (x->ready != y->ready)
        return x->ready < y->ready ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* MPI_Neighbor_alltoall and MPI_Neighbor_allgather on a Cartesian grid
 * (MPI 4.0, 8.6): every member sends c->bytes to each of its 2 x ndims
 * neighbours (a distinct block each, or the same one: the same messages)
 * and receives as much from each, none to or from MPI_PROC_NULL, all
 * posted at once; done once its sends are and its neighbours' blocks are
 * in. A message leaves when its sender is there (eager), or once its
 * receiver is too (rendezvous, as pull()); the network takes them in the
 * order they are ready, so that a late member delays its neighbours only.
 * With `collectives = closed`: from the latest arrival of the member and
 * its neighbours, its messages one after the other */
static void neighbor_run(psk_net *net, const psk_coll_call *c)
{
    int n = c->n, nb[2 * PSK_CART_MAXDIMS], K = 2 * c->cart->ndims;
    run r = {.net = net, .c = c, .t = c->done, .nt = malloc((size_t)(n ? n : 1) * sizeof *r.nt)};
    nmsg *m = malloc((size_t)(n ? n : 1) * (size_t)(K ? K : 1) * sizeof *m);
    for (int i = 0; i < n; i++)
        r.t[i] = c->arrive[i];
    if (net->m->closed_form || !r.nt || !m) { /* (out of memory: the formula too) */
        for (int i = 0; i < n; i++) {
            double from = c->arrive[i], cost = 0;
            for (int k = psk_cart_neighbors(c->cart, i, nb) - 1; k >= 0; k--)
                if (nb[k] >= 0) {
                    from = dmax(from, c->arrive[nb[k]]);
                    cost += psk_net_cost(net, c->world[i], c->world[nb[k]], c->bytes);
                }
            c->done[i] = from + cost;
        }
        free(r.nt), free(m);
        return;
    }
    int rdv = c->bytes > net->eager;
    int64_t nm = 0;
    for (int i = 0; i < n; i++) {
        int k = psk_cart_neighbors(c->cart, i, nb);
        for (int x = 0; x < k; x++)
            if (nb[x] >= 0) {
                m[nm] = (nmsg){.ready = rdv ? pull(&r, i, nb[x]) : at(&r, i), .i = i, .j = nb[x], .k = nm};
                nm++;
            }
    }
    qsort(m, (size_t)nm, sizeof *m, nmsg_cmp);
    memcpy(r.nt, r.t, (size_t)n * sizeof *r.t);
    for (int64_t x = 0; x < nm; x++) {
        double end = psk_net_transfer(net, c->world[m[x].i], c->world[m[x].j], c->bytes, m[x].ready, NULL);
        r.nt[m[x].j] = dmax(r.nt[m[x].j], turn(&r, m[x].j, end));
        r.nt[m[x].i] = dmax(r.nt[m[x].i], rdv ? turn(&r, m[x].i, end) : end);
    }
    memcpy(r.t, r.nt, (size_t)n * sizeof *r.t);
    free(r.nt), free(m);
}

void psk_coll_run(psk_net *net, const psk_coll_call *c)
{
    if (c->cart) {
        neighbor_run(net, c);
        return;
    }
    int n = c->n;
    double last = 0;
    for (int i = 0; i < n; i++)
        last = dmax(last, start_of(net, c, i));
    int alg = net->m->alg[c->coll] ? net->m->alg[c->coll] : default_alg(net, c);
    run r = {.net = net, .c = c};
    if (n < 2 || net->m->closed_form) {
        double cost = closed(&r, alg);
        for (int i = 0; i < n; i++)
            c->done[i] = last + cost;
        return;
    }
    r.t = c->done;
    r.nt = malloc((size_t)n * sizeof *r.nt);
    if (!r.nt) { /* out of memory: the formula instead */
        double cost = closed(&r, alg);
        for (int i = 0; i < n; i++)
            c->done[i] = last + cost;
        return;
    }
    for (int i = 0; i < n; i++)
        r.t[i] = start_of(net, c, i);
    int64_t B = c->bytes;
    switch (c->coll) {
    case PSK_COLL_BARRIER:
        if (alg == PSK_ALG_LINEAR) {
            reduce_linear(&r, 0);
            bcast_linear(&r, 0);
        } else if (alg == PSK_ALG_BINOMIAL) {
            reduce_binomial(&r, 0);
            bcast_binomial(&r, 0);
        } else {
            dissemination(&r, 0, 0);
        }
        break;
    case PSK_COLL_BCAST:
        alg == PSK_ALG_LINEAR ? bcast_linear(&r, B) : bcast_binomial(&r, B);
        break;
    case PSK_COLL_REDUCE:
        alg == PSK_ALG_LINEAR ? reduce_linear(&r, B) : reduce_binomial(&r, B);
        break;
    case PSK_COLL_ALLREDUCE:
        if (alg == PSK_ALG_LINEAR) {
            reduce_linear(&r, B);
            bcast_linear(&r, B);
        } else if (alg == PSK_ALG_BINOMIAL) {
            reduce_binomial(&r, B);
            bcast_binomial(&r, B);
        } else if (alg == PSK_ALG_RING) {
            ring_steps(&r, n - 1, (B + n - 1) / n); /* reduce-scatter */
            ring_steps(&r, n - 1, (B + n - 1) / n); /* allgather */
        } else {
            allreduce_recdoubling(&r, B, alg == PSK_ALG_RABENSEIFNER);
        }
        break;
    case PSK_COLL_GATHER:
        alg == PSK_ALG_LINEAR ? reduce_linear(&r, B) : gather_binomial(&r, B);
        break;
    case PSK_COLL_SCATTER:
        alg == PSK_ALG_LINEAR ? bcast_linear(&r, B) : scatter_binomial(&r, B);
        break;
    case PSK_COLL_ALLGATHER:
        if (alg == PSK_ALG_LINEAR) {
            reduce_linear(&r, B);
            bcast_linear(&r, B * n);
        } else if (alg == PSK_ALG_RING) {
            ring_steps(&r, n - 1, B);
        } else if (alg == PSK_ALG_RECDOUBLING && is_pof2(n)) {
            int64_t b = B;
            for (int mask = 1; mask < n; mask <<= 1, b *= 2)
                for (int k = 0; k < n; k++)
                    if (k < (k ^ mask))
                        exchange(&r, k, k ^ mask, b);
        } else {
            dissemination(&r, B, 1); /* Bruck */
        }
        break;
    case PSK_COLL_ALLTOALL:
        if (alg == PSK_ALG_LINEAR) {
            memcpy(r.nt, r.t, (size_t)n * sizeof *r.t);
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++)
                    if (i != j)
                        r.nt[i] = dmax(r.nt[i], round_msg(&r, i, j, B));
            memcpy(r.t, r.nt, (size_t)n * sizeof *r.t);
        } else if (alg == PSK_ALG_BRUCK) {
            for (int k = 1; k < n; k <<= 1)
                shift_round(&r, k, B * ((n + 1) / 2));
        } else {
            for (int s = 1; s < n; s++)
                shift_round(&r, s, B);
        }
        break;
    case PSK_COLL_REDUCE_SCATTER:
        if (alg == PSK_ALG_LINEAR) {
            reduce_linear(&r, B * n);
            bcast_linear(&r, B);
        } else if (alg == PSK_ALG_RING) {
            ring_steps(&r, n - 1, B);
        } else if (alg == PSK_ALG_RECDOUBLING && is_pof2(n)) {
            int64_t b = B * n;
            for (int mask = n >> 1; mask >= 1; mask >>= 1) {
                b = (b + 1) / 2;
                for (int k = 0; k < n; k++)
                    if (k < (k ^ mask))
                        exchange(&r, k, k ^ mask, b);
            }
        } else {
            for (int s = 1; s < n; s++)
                shift_round(&r, s, B);
        }
        break;
    case PSK_COLL_SCAN:
        if (alg == PSK_ALG_LINEAR) {
            for (int i = 0; i + 1 < n; i++)
                send1(&r, i, i + 1, B);
        } else {
            for (int k = 1; k < n; k <<= 1) {
                memcpy(r.nt, r.t, (size_t)n * sizeof *r.t);
                for (int i = 0; i + k < n; i++)
                    round_msg(&r, i, i + k, B);
                memcpy(r.t, r.nt, (size_t)n * sizeof *r.t);
            }
        }
        break;
    }
    free(r.nt);
}
