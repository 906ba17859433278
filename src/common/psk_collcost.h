/* Closed-form costs of collective algorithms, one formula each, shared by
 * the simulator (sim_coll.c, `collectives = closed`) and the tuning library
 * (src/tune, which ranks its MPI_Alltoall arms with them): Hockney's
 * alpha + bytes x beta per message, or a caller's own message cost
 * (measured segments, a grid's pipelining), counted from the last arrival,
 * without contention. Forms of Thakur, Rabenseifner and Gropp, "Optimization
 * of Collective Communication Operations in MPICH" (IJHPCA 2005).
 * Collectives and algorithms are those of perfskel/coll.h; the tuning
 * library's own arms (spread, scatter + ring bcast) come after the
 * algorithms a machine file chooses, so sim never asks for them. Times in
 * the caller's unit. */
#ifndef PSK_COLLCOST_H
#define PSK_COLLCOST_H

#include <stdint.h>

#include "perfskel/coll.h"

/* alltoall step algorithms (pairwise, ring) synchronised between steps,
 * as STAR-MPI's variants (Faraj, Yuan and Lowenthal, ICS 2006): a light
 * barrier (a 1-byte handshake per step), a barrier before every step, one
 * barrier before the loop (docs/tune.md, The arms) */
enum psk_cc_sync { PSK_CC_SYNC_NONE, PSK_CC_SYNC_LB, PSK_CC_SYNC_MB, PSK_CC_SYNC_OB };

typedef struct psk_collcost_net {
    double alpha;    /* per message */
    double beta;     /* per byte */
    double beta_mem; /* per byte copied in memory (Bruck's rotations); 0: free */
    double overhead; /* per message posted besides the first (spread) */
    /* a message's cost, replacing alpha + bytes x beta when set */
    double (*msg)(const void *ctx, int64_t bytes);
    const void *ctx;
} psk_collcost_net;

/* one message of bytes */
double psk_collcost_msg(const psk_collcost_net *net, int64_t bytes);
/* collective coll with algorithm alg (enum psk_cc_alg; an algorithm a
 * collective does not have costs as its fallback) on P ranks; bytes as
 * perfskel sim counts them: the whole buffer for bcast, reduce, allreduce
 * and scan, one member's block for gather, scatter, allgather and
 * reduce-scatter, one destination's for alltoall. 0 for P < 2. */
double psk_collcost(const psk_collcost_net *net, int coll, int alg, int P, int64_t bytes);
/* MPI_Alltoall by alg (linear, pairwise, ring, Bruck, spread) with sync
 * (enum psk_cc_sync, for the step algorithms), m bytes per peer */
double psk_collcost_alltoall(const psk_collcost_net *net, int alg, int sync, int P, int64_t m);
/* ceil(log2 P), 0 below 2 */
double psk_collcost_lg(int P);

#endif
