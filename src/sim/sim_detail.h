/* What a report keeps of a replay beyond its intervals (psk_sim_detail):
 * shared by its collector (sim_detail.c) and the HTML report's writers.
 * Times in seconds of simulated time. */
#ifndef PSK_SIM_DETAIL_H
#define PSK_SIM_DETAIL_H

#include <stdint.h>

#include "perfskel/sim.h"

/* one call, or neighbouring calls merged: from the first's begin to the
 * last's end, the compute between them included */
typedef struct psk_dseg {
    double t0, t1;
    double mpi, sync; /* time in the calls, and of it waiting for a late partner */
    double fnmpi;     /* time in calls of fn */
    int64_t bytes;
    uint32_t n;       /* calls */
    int32_t peer;     /* world rank; -1 none, -2 several */
    uint32_t fn;      /* a call's function; merged: the one with most time (of the two merged each time) */
} psk_dseg;

typedef struct psk_drow {
    psk_dseg *seg;
    size_t n, cap;
    double grid;      /* segments are merged per cell of this width once there are too many (0: not yet) */
} psk_drow;

/* per interval and function: the calls' time */
typedef struct psk_dcell {
    double time, sync;
    uint64_t calls;
    int64_t bytes;
} psk_dcell;

/* ranks whose calls are kept (the report's timeline shows them) */
#define PSK_DETAIL_ROWS 64

struct psk_sim_detail {
    int P, rows, status;  /* rows: the first ranks, whose calls are kept */
    size_t rowcap;        /* segments a rank keeps at most */
    psk_drow *row;
    unsigned nfn;
    psk_dcell **fncell;   /* [interval][fn], NULL where none */
    int nint;             /* rows of fncell */
    int G, block;         /* matrix: G x G blocks of `block` ranks */
    double *mbytes, *mmsgs;
};

/* merges neighbouring segments of a row whose starts fall in one cell of
 * width w (from the start) into one, in place */
void psk_dseg_coalesce(psk_drow *r, double w);
/* a absorbs b (b after a) */
void psk_dseg_merge(psk_dseg *a, const psk_dseg *b);

#endif
