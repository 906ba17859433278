/* perfskel folding: the loops of a sequence of symbols (seed 001 §3).
 * Every maximal tandem repeat is found and folded, repeatedly, until
 * nothing repeats, giving a loop tree such as (A B (C D)x4 E)x200. The
 * quality measure is the paper's: the folded length, the number of symbols
 * left (brackets and counts not counted), smaller is better. */
#ifndef PERFSKEL_FOLD_H
#define PERFSKEL_FOLD_H

#include <stdint.h>
#include <stdio.h>

#include "perfskel/common.h"

enum psk_fold_algo {
    PSK_FOLD_RUNS = 0,   /* all runs in linear time, best set of folds per level (default) */
    PSK_FOLD_PAPER = 1,  /* seed 001: probing each period, longest first, leftmost first */
    PSK_FOLD_TOPDOWN = 2,  /* quadratic baseline: longest period first */
    PSK_FOLD_BOTTOMUP = 3, /* quadratic baseline: shortest period first */
    PSK_FOLD_NALGOS
};
const char *psk_fold_algo_name(int algo);
int psk_fold_algo_lookup(const char *name); /* -1 if unknown */

typedef struct psk_folded psk_folded;

/* Folds sym[0..n) (each >= 0) with algo. */
int psk_fold(const int32_t *sym, int64_t n, int algo, psk_folded **out);
const char *psk_folded_errmsg(const psk_folded *f);
void psk_folded_free(psk_folded *f); /* NULL is fine */

int64_t psk_folded_input_length(const psk_folded *f);
int64_t psk_folded_length(const psk_folded *f); /* symbols left */
int64_t psk_folded_rounds(const psk_folded *f); /* folding levels done */

/* ---- the loop tree ---- */

enum psk_fnode_kind { PSK_FNODE_ROOT, PSK_FNODE_SYM, PSK_FNODE_LOOP };

typedef struct psk_fnode {
    int kind;
    int32_t sym;     /* SYM: the input symbol */
    int64_t count;   /* LOOP: iterations; ROOT and SYM: 1 */
    int32_t parent;  /* -1 for the root (node 0) */
    int32_t nchild;  /* ROOT and LOOP: children, in order */
    int32_t child0;  /* index of the first in psk_folded_children() */
    int32_t depth;   /* loops enclosing it */
    int64_t start;   /* input position where it first begins */
    int64_t span;    /* input symbols one execution of it covers */
} psk_fnode;

int32_t psk_folded_nnodes(const psk_folded *f);
const psk_fnode *psk_folded_node(const psk_folded *f, int32_t id);
const int32_t *psk_folded_children(const psk_folded *f, int32_t id);

/* Walks the expansion: for input position 0, 1, ..., n-1 calls fn with the
 * SYM node it comes from and, for each enclosing loop from the outermost,
 * its iteration index (iter[0..depth)). Stops when fn returns non-zero. */
int psk_folded_walk(const psk_folded *f,
                    int (*fn)(void *arg, int64_t pos, int32_t node, const int64_t *iter, int depth),
                    void *arg);

/* Writes the loop tree as text, "(A B (C D)x4 E)x200": symbols through
 * name(arg, sym, buf, cap), or as numbers if name is NULL. */
void psk_folded_print(const psk_folded *f, FILE *out,
                      void (*name)(void *arg, int32_t sym, char *buf, size_t cap), void *arg);

/* ---- per loop-body event statistics, from a merged trace ---- */

struct psk_merged;

enum psk_count_kind {
    PSK_COUNT_NONE,   /* the event carries no message count */
    PSK_COUNT_CONST,  /* the same every iteration */
    PSK_COUNT_LINEAR, /* a + b x (iteration index of the innermost loop) */
    PSK_COUNT_TABLE   /* one value per iteration (by_iter) or per execution */
};

typedef struct psk_fstats {
    uint64_t execs;   /* times the event ran */
    uint64_t samples; /* rank-executions: execs x ranks taking part */
    double gap_mean, gap_sd, gap_min, gap_max; /* compute before it, ns */
    double mpi_mean, mpi_sd, mpi_min, mpi_max; /* time inside it, ns */
    int32_t slowest_rank;  /* largest mean compute gap, -1 if not kept */
    double slowest_gap_mean;
    int count_kind;        /* of the lowest taking part rank's count */
    int64_t count_a, count_b;
    int count_by_iter;     /* TABLE: 1 = indexed by the iteration, 0 = by execution */
    int64_t ncount;
    const int64_t *count_table;
} psk_fstats;

/* Computes the statistics of every SYM node from the merged trace whose
 * class sequence was folded (its psk_merged_classes); PSK_EINVAL if the
 * lengths differ. */
int psk_folded_stats(psk_folded *f, struct psk_merged *m);
const psk_fstats *psk_folded_node_stats(const psk_folded *f, int32_t id); /* NULL before */

/* ---- checking and test data ---- */

/* The shortest folded length any folding of s[0..n) reaches (an exact
 * interval DP, O(n^3) time and O(n^2) memory: for n up to a few hundred);
 * -1 if memory runs out. */
int64_t psk_fold_optimal_length(const int32_t *s, int32_t n);

/* A random nested-loop program expanded into symbols: a sequence of 1 to
 * max_items items, each a symbol drawn from 0..alphabet-1 or (with
 * probability loop_pct %, while depth < max_depth) a loop of min_iter to
 * max_iter iterations over such a sequence. Writes at most cap symbols,
 * returns how many the program has (more than cap: not all written).
 * *rng is an xorshift64 state (not 0). */
typedef struct psk_fold_gen {
    int alphabet, max_items, min_iter, max_iter, max_depth, loop_pct;
} psk_fold_gen;
int64_t psk_fold_generate(const psk_fold_gen *p, uint64_t *rng, int32_t *out, int64_t cap);

#endif
