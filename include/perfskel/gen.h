/* perfskel performance skeletons (seed 001 §4): a small C MPI program that
 * makes the same calls as the recorded one, rank by rank and in each rank's
 * order, with its loops scaled down K times and its computation emulated by
 * calibrated work, and that prints the run time it predicts for the
 * original. */
#ifndef PERFSKEL_GEN_H
#define PERFSKEL_GEN_H

#include <stdio.h>

#include "perfskel/fold.h"
#include "perfskel/merge.h"

typedef struct psk_gen_opts {
    int K; /* loops of at least K iterations run count/K times */
    /* runs of at least this many calls outside loops are replayed from data
     * (one interpreter in the skeleton) instead of written as code; 0: the
     * default (PSK_GEN_TABLE_MIN) */
    int table_min;
} psk_gen_opts;
#define PSK_GEN_TABLE_MIN 32

/* Writes the skeleton of merged trace m, folded as f (with its statistics
 * computed), to out. m must have been merged without reordering
 * (psk_merge_opts.no_reorder): each rank replays its calls in its own
 * order, which makes the skeleton deadlock-free when the original was.
 * On failure err gets a one-line reason. */
int psk_gen_skeleton(psk_merged *m, psk_folded *f, const psk_gen_opts *o, FILE *out, char *err, size_t errcap);

/* The line a skeleton's rank 0 prints last, and its parser. */
#define PSK_SKELETON_TAG "perfskel-skeleton:"
typedef struct psk_skeleton_result {
    double predicted_seconds, skeleton_seconds;
    int K;
} psk_skeleton_result;
int psk_skeleton_parse(const char *line, psk_skeleton_result *r); /* 0 if it is the result line */

#endif
