/* perfskel process-count extrapolation: a merged trace recorded
 * at P ranks whose per-rank patterns are rank-relative (const, rank + c,
 * ring, Cartesian neighbours) rebuilt as the merged trace of the same
 * program at P2 ranks, with message sizes and compute gaps following a
 * scaling rule (weak, strong, or fitted per event from recordings at two
 * or three P, as ScalaExtrap does). The result is an ordinary psk_merged:
 * fold, sim and its reports work on it unchanged. docs/simulation.md. */
#ifndef PERFSKEL_EXTRAP_H
#define PERFSKEL_EXTRAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "perfskel/merge.h"

enum psk_scale {
    PSK_SCALE_WEAK = 0,   /* per-rank sizes and compute kept */
    PSK_SCALE_STRONG = 1, /* per-rank work divided by P2/P (docs: halos, collectives) */
    PSK_SCALE_FIT = 2     /* per event, a*P^b or a + b/P fitted to the recordings */
};
const char *psk_scale_name(int scale);

typedef struct psk_extrap_opts {
    int ranks;              /* P2 */
    int scale;              /* enum psk_scale */
    psk_merged *const *fit; /* PSK_SCALE_FIT: the other recordings (1 or 2) */
    int nfit;
} psk_extrap_opts;

/* what was applied to what, for reports */
#define PSK_EXTRAP_MAXITEMS 16
typedef struct psk_extrap_item {
    char what[96];  /* "compute gaps", "message sizes (2-D halo)" */
    char rule[128]; /* "x 0.5 (P/P2)", "a*P^b (chosen by residual)" */
    uint64_t events;
} psk_extrap_item;

typedef struct psk_extrap_report {
    int from_ranks, to_ranks, scale;
    int base;            /* the input the patterns were rebuilt from: 0 the trace, k fit[k-1] */
    int err_input;       /* on failure, the input the message is about (same numbering) */
    int fit_ranks[3], nfit_ranks; /* FIT: the P of each recording, ascending */
    int ndims, dims_from[3], dims_to[3]; /* the world's grid (1-D: {P}) */
    int grid_recorded;   /* 1: the grid is a recorded MPI_Cart_create's (trace format 3), with
                            periods (1 periodic) and, if a recorded MPI_Dims_create made its
                            dims, the dims fixed there (fixed, 0 = free); 0: inferred from the peers */
    int periods[3], fixed[3];
    int nitems;
    psk_extrap_item item[PSK_EXTRAP_MAXITEMS];
} psk_extrap_report;

/* Builds the P2-rank merged trace *out from m (and o->fit). On failure
 * returns an error code; *out (if set) holds the one-line reason
 * (psk_merged_errmsg), about input rep->err_input, and is to be closed. */
int psk_merged_extrapolate(psk_merged *m, const psk_extrap_opts *o, psk_merged **out, psk_extrap_report *rep);

/* ---- on top of merge and fold: what sim --ranks replays, and its report
 * (src/extrap, library psk_extrap) ---- */

/* m (and o->fit) extrapolated (psk_merged_extrapolate) and folded
 * (PSK_FOLD_RUNS) for sim's folded replay: PSK_OK with *out and *fold set
 * (the caller frees both; m and the fits may be closed at once) and *rep
 * filled. Inputs merged without reordering, as for gen. On failure an
 * error code, *out and *fold NULL, and in err (errcap bytes; a message
 * fits in PSK_EXTRAP_ERRLEN) the one-line reason, about input
 * rep->err_input (0 m, k o->fit[k - 1], -1 the options). */
#define PSK_EXTRAP_ERRLEN 8192
struct psk_folded; /* perfskel/fold.h */
int psk_extrap_fold(psk_merged *m, const psk_extrap_opts *o, psk_merged **out, struct psk_folded **fold,
                    psk_extrap_report *rep, char *err, size_t errcap);
/* The report as sim prints it before its own: a line of the ranks, rule
 * and grid, then one per item. patterns_from names input rep->base. */
void psk_extrap_write_text(FILE *out, const psk_extrap_report *rep, const char *patterns_from);
/* The report as one member, "extrapolation": {...}, written through j
 * (src/common/psk_json.h), as psk_sim_write_json_more's more writes it. */
struct psk_json; /* src/common/psk_json.h */
void psk_extrap_write_json(struct psk_json *j, const psk_extrap_report *rep, const char *patterns_from);

#endif
