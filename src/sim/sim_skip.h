/* Internals of the skipping of loop iterations in perfskel sim --folded,
 * shared by its files: the snapshots ranks take as they begin iterations
 * and where they are (sim_skip.c), the checks that allow a skip and the
 * window they measure (sim_skipcheck.c), and the skip itself
 * (sim_skipjump.c). Invariant: a rank's ring holds the snapshot of
 * iteration i at i % nsnap, its iter saying which (-1: empty). */
#ifndef PSK_SIM_SKIP_H
#define PSK_SIM_SKIP_H

#include <stdint.h>

#include "sim_state.h"

#define NSNAP 32 /* snapshots kept per rank at least: ranks may be a few iterations apart */
#define MAXPERIOD 8 /* longest period looked for, in iterations, unless 2L is longer */
/* the statistical skip: a loop execution's first WARM iterations are in
 * no window; a window holds WIN_MIN iterations, NB_MIN batches (a batch:
 * blocks of L iterations, 4 iterations at least) and WIN_FRAC of the loop
 * at least (a window early in a long loop may not stand for the rest);
 * the last TAIL iterations are always replayed; the standard error of the
 * skipped advance must be under PRECISION of the predicted time up to the
 * skip's end (a 1 % error is then more than 3 of them) */
#define WARM 2
#define WIN_MIN 16
#define NB_MIN 4
#define BIG 4 /* and batches BIG times as long, against residuals that come in bursts */
#define WIN_FRAC 0.1
#define TAIL 2
#define PRECISION 0.003
/* a window of WIN_MIN iterations from WARM on, one skipped and TAIL
 * replayed: a loop of fewer iterations keeps no segments and no window
 * (its iterations can only be skipped exactly) */
#define WIN_LOOP_MIN (WARM + WIN_MIN + 1 + TAIL)

typedef struct snap {
    int64_t iter;        /* -1: empty */
    double t;
    double acc[A_N];
    uint64_t nread;
    int depth;           /* its interval stack: frames above were opened inside the iteration */
    uint32_t nunexp, nposted, nmatched;
    int64_t nfol, age;   /* waiting ones whose tags follow the index, and their summed ages in iterations */
    int64_t maxage;      /* and the oldest's age (0 if none) */
    int stray;           /* one waiting from outside the loop has a tag the loop's following tags take */
    int nrows;           /* intervals whose rows follow */
    double *rows;        /* nrows x (PSK_M_N + 1): the rank's row and entry count */
    int64_t caprows;     /* doubles */
    /* the iteration's segments, as its events are read: the compute and
     * the MPI time less waiting up to and with each blocking call, and
     * after the last (nseg), and where those calls are in it */
    int nseg;
    double *segc, *sego, *segw; /* and the waiting at its call */
    int64_t capc, capo, capw;
    int32_t *spos;       /* nseg - 1 */
    int8_t *scls;        /* and the totals they go to (A_P2P, A_COLL, A_WAIT) */
    int64_t capspos, capscls;
} snap;

typedef struct skipr {
    int32_t node;        /* the candidate loop it is in, its execution, its iteration */
    int64_t exec, iter;
    /* read at each event: on the struct's first cache line */
    double last_sync;    /* its waiting when its last event was read */
    double last_own;     /* MPI time less waiting when its last event was read */
    int64_t last_iter;   /* the iteration of that event (-1: none to follow) */
    int last_seg;        /* and its segment */
    snap *ring;          /* nring; the execution followed uses the first nsnap */
    int64_t nring;
    snap base;           /* at the window's first iteration */
    /* per iteration (SUR_ITER) and segment (SUR_SEG) of a block: the MPI
     * time less waiting, summed over the window */
    double *own[3];
    int64_t capown[3];
    /* per segment of a block: the waiting the segments' g says, and the
     * replay's, summed over the window */
    double *wmod, *wact;
    int64_t capwm, capwa;
} skipr;

/* one surrogate of the advance against the replay's over the window:
 * the residual (the replay's advance less the surrogate's) of batches of
 * blocks, and of batches BIG times as long */
typedef struct resid {
    double G;            /* the surrogate summed over the window */
    double rb[2];        /* the current batches' residuals */
    double R1[2], R2[2]; /* sums of the batches' residuals, and of their squares */
    int64_t nb[2];       /* batches */
} resid;

/* the loop execution ranks last entered, where they are in it, and the
 * window of its iterations measured so far */
typedef struct skipg {
    int32_t node;
    int64_t exec;
    int n_in;            /* ranks in it */
    int64_t m, M;        /* once all are: the lowest and highest iteration begun */
    int at_m;            /* ranks whose iteration is m */
    int64_t nsnap;       /* snapshots in each rank's ring used for it: iteration i's
                          * is ring[i % nsnap] (no more than its iterations) */
    int64_t maxsnap;     /* and for a loop of many iterations */
    int64_t first;       /* the lowest iteration when all were in */
    int64_t next;        /* the next iteration to measure (once every rank is past it) */
    int64_t L, bat;      /* the loop's period; blocks per batch */
    int64_t w0, nw;      /* the window: iterations w0 .. w0 + nw - 1 (w0 -1: none) */
    double ba;           /* the current block's advance (mean over ranks) */
    double gb[3];        /* its g per iteration (SUR_ITER) and per segment (SUR_SEG) */
    resid rs[3];         /* of g per iteration and per segment */
    int noseg;           /* ranks' iterations had different numbers of segments */
    int segbase;         /* segments of the current block before its current iteration's */
    int bseg;            /* segments in a block (0: no block yet) */
    int dead;            /* its highest iteration begun is the last: nothing of it can be skipped */
    int nowin;           /* fewer than WIN_LOOP_MIN iterations: no window (nor segments) */
} skipg;

/* the surrogates of the advance: g per block of L iterations (the exact
 * skip's), per iteration, per segment */
enum { SUR_BLOCK, SUR_ITER, SUR_SEG };

/* what the skip is measured on: the window ending at m */
typedef struct win {
    int64_t nw;          /* iterations */
    double res;          /* the residual per block of L iterations: the advance less g */
    int sur;             /* g per block, iteration or segment */
    int ring;            /* the first snapshot is in the ring (m - nw), else each rank's base */
    double se;           /* the standard error of D */
} win;

/* rank k's snapshot of iteration iter, NULL if its ring no longer holds it */
static inline const snap *psk_simi_snap_find(const psk_sim *s, const skipr *k, int64_t iter)
{
    const snap *sn = &k->ring[iter % s->skg->nsnap];
    return sn->iter == iter ? sn : NULL;
}

/* MPI time not spent waiting for a partner, up to a snapshot */
static inline double psk_simi_own_mpi(const snap *x)
{
    return x->acc[A_P2P] + x->acc[A_COLL] + x->acc[A_WAIT] - x->acc[A_SYNC];
}

/* sim_skipcheck.c: iteration i is over on every rank: measured into the
 * window. PSK_OK or PSK_ENOMEM */
int psk_simi_win_add(psk_sim *s, int64_t i);
/* (1) the replay repeats exactly, (2) the window measured enough
 * iterations, precisely enough: 1 if it skipped (or failed: *rc) */
int psk_simi_try_exact(psk_sim *s, int32_t node, int64_t exec, int64_t m, int64_t M, int64_t count, int qb, int *rc);
int psk_simi_try_window(psk_sim *s, int32_t node, int64_t exec, int64_t m, int64_t M, int64_t count, int qb, int *rc);

/* sim_skipjump.c: skips S iterations of execution exec of candidate node,
 * measured on window w ending at iteration m (rank qb's event is read but
 * not yet run). PSK_OK (*done: 1 if skipped), or an error reading the
 * recorded gaps */
int psk_simi_skip(psk_sim *s, int32_t node, int64_t exec, int64_t S, int64_t m, int qb, const win *w, int *done);

#endif
