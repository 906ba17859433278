/* Internals of perfskel sim shared by its files: the network's resources
 * and costs (sim_net.c) and the collective algorithms (sim_coll.c), used by
 * the replay (sim_p2p.c, sim_comm.c). Times are in ns of simulated time. */
#ifndef PSK_SIM_INTERNAL_H
#define PSK_SIM_INTERNAL_H

#include <stdint.h>

#include "perfskel/sim.h"

/* the network: the machine, and when each shared resource is next free */
typedef struct psk_net {
    const psk_machine *m;
    int64_t eager;        /* messages up to this size go eagerly (the machine's, or the trace's MPI's) */
    int mpich;            /* the trace's MPI is MPICH: its choices of algorithm by size */
    int P;
    int nnodes;
    double bus_free;      /* bus: the one medium; switch: unused */
    double *out_free;     /* switch: nnodes x links, per node's outgoing links */
    double *in_free;      /* switch: incoming links */
    double *buses_free;   /* switch with a global limit: m->buses slots */
    int64_t *coord;       /* grid: nnodes x ntopo coordinates */
    int *node;            /* per rank: its node */
    uint64_t transfers;
} psk_net;

/* MPICH's eager threshold (bytes) where the machine gives none: MPICH 4.0
 * (ch4:ucx) between ranks of one node sent 8,250 bytes eagerly, 8,260 not */
#define PSK_MPICH_EAGER 8256

/* node_of (NULL: ranks_per_node consecutive ranks a node): per rank its
 * node, 0 .. nodes - 1 */
int psk_net_init(psk_net *n, const psk_machine *m, int P, const int *node_of, int nodes);
void psk_net_free(psk_net *n);
/* the cost of moving bytes from world rank a to b alone (no waiting for
 * resources), in ns */
double psk_net_cost(const psk_net *n, int a, int b, int64_t bytes);
/* a transfer ready to start at ready: books the resources it needs and
 * returns when it ends; *begin gets when it started */
double psk_net_transfer(psk_net *n, int a, int b, int64_t bytes, double ready, double *begin);
/* asks the caches for what a transfer to rank b reads first (a hint) */
void psk_net_prefetch(const psk_net *n, int b);

/* a collective of one communicator instance: every member's arrival, the
 * bytes each contributes (per destination where that matters) and the
 * root's index; fills done[i] for each member i */
typedef struct psk_coll_call {
    int coll;              /* enum psk_coll */
    int n;                 /* members */
    const int *world;      /* members' world ranks */
    int root;              /* member index of the root, or 0 */
    int64_t bytes;         /* per member: the message size the algorithm moves (see sim_coll.c) */
    const double *arrive;  /* per member */
    const int64_t *own;    /* per member: bytes of its own block it copies locally first (NULL: none) */
    double *done;          /* per member, out */
    /* where members share cores and wait busily: the first moment at or
     * after t that world rank q holds its core (NULL: every member runs
     * whenever it has something to do) */
    double (*turn)(void *arg, int q, double t);
    void *turn_arg;
    /* a neighborhood collective: the members' grid (member i its rank i);
     * coll, root and own are then not used (NULL: any other collective) */
    const struct psk_cart *cart;
} psk_coll_call;

void psk_coll_run(psk_net *net, const psk_coll_call *c);

/* sim --folded: the standard error of the time its skipped iterations
 * were estimated to take (seconds; 0 if none was estimated, sim_skip.c) */
double psk_simi_skip_stderr(const psk_sim *s);
/* what the replay holds (sim_setup.c): its per-rank state in bytes (the
 * ranks' records, requests, communicators, interval stacks and rows,
 * cursors, gap queues, skip snapshots, the ready-rank tree; not messages
 * in flight, the merged trace, nor the table of Cartesian grids the
 * communicators share, 132 bytes a grid), the folded program's bytes, its tree
 * events, those read through a pattern and their exceptions (ranks that
 * read their own record), and the snapshots the skip took */
typedef struct psk_simi_mem {
    uint64_t state, program, snapshots, pattern_exceptions;
    int tree_events, pattern_events;
} psk_simi_mem;
void psk_simi_memory(const psk_sim *s, psk_simi_mem *out);

#endif
