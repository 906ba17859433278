/* perfskel folding: the loops of a sequence of symbols.
 * Every maximal tandem repeat is found and folded, repeatedly, until
 * nothing repeats, giving a loop tree such as (A B (C D)x4 E)x200. The
 * quality measure is that of Zhang et al., "Parallel Job Performance
 * Prediction Based on the Case Reconstruction" (Journal of Software 2010,
 * Table 4): the folded length, the number of symbols left (brackets and
 * counts not counted), smaller is better (docs/folding.md, What is optimal). */
#ifndef PERFSKEL_FOLD_H
#define PERFSKEL_FOLD_H

#include <stdint.h>
#include <stdio.h>

#include "perfskel/common.h"

enum psk_fold_algo {
    PSK_FOLD_RUNS = 0,   /* all runs in linear time, best set of folds per level (default) */
    PSK_FOLD_PAPER = 1,  /* the published method: probing each period, longest first, leftmost first */
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

/* ---- folding a merged trace, with loop-variant parameters ---- */

struct psk_merged;

/* The symbols psk_fold_merged folds by, finest first: level 0 is an
 * event's whole signature (its class, message counts and the arguments
 * that say what it does); level 1 leaves out tags and roots; level 2 also
 * message counts and peer offsets; level 3 also the count and datatype
 * arrays of the v-collectives (which then may differ between executions
 * of a SYM node: read them from each execution). Each level is a function
 * of the one before, so a loop found at a finer level stays one at a
 * coarser one. */
#define PSK_FOLD_LEVELS 4

/* Folds the merged trace m: first by the level-0 symbols, then each
 * sequence of the result (the top and every loop body) again by the
 * coarser symbols, so that iterations that differ only in tags, roots,
 * counts, peers or v-collective arrays still fold. A SYM node's sym is the merged
 * class of its first execution; what changes between executions is
 * described by psk_folded_params after psk_folded_stats. */
int psk_fold_merged(struct psk_merged *m, int algo, psk_folded **out);

/* One event of a folded merged trace as psk_folded_walk_merged visits it:
 * its place in the merged sequence, its SYM node, the iteration of each
 * loop around it from the outermost (iter[0..depth)), and the merged
 * event it stands for (valid during the call). */
typedef struct psk_fstep {
    int64_t pos;
    int32_t node;
    const int64_t *iter;
    int depth;
    const struct psk_mevent *ev;
    /* psk_folded_walk_heads only: ev is a header (no rank's event yet),
     * its ranks decoded by psk_mcursor_fill(cur, j1) as they are needed */
    struct psk_mcursor *cur;
} psk_fstep;
/* Walks f's expansion and the merged trace m it was folded from side by
 * side, calling fn for each event in order; stops at fn's first non-zero
 * return and returns it. PSK_EMISMATCH if m ends before f (not the trace
 * f was folded from), a cursor's error as it is. */
int psk_folded_walk_merged(const psk_folded *f, struct psk_merged *m, int (*fn)(void *arg, const psk_fstep *s),
                           void *arg);
/* The same, with each merged event's header only (psk_fstep's cur): the
 * visitor decodes its ranks a part at a time, each used while it is in
 * the caches, through a windowed cursor (psk_mcursor_window: fill at most
 * up to the next multiple of PSK_MCURSOR_CHUNK at a time, and read rank
 * j's event at j & jmask). */
int psk_folded_walk_heads(const psk_folded *f, struct psk_merged *m, int (*fn)(void *arg, const psk_fstep *s),
                          void *arg);
/* The same from given level symbols (levels[l][0..n), each level a
 * function of the one before; sym0 names the SYM nodes): for tests. */
int psk_fold_levels(const int32_t *const *levels, int nlevels, const int32_t *sym0, int64_t n, int algo,
                    psk_folded **out);
/* The level symbols of m's events (levels[l] malloc'd, n events each). */
int psk_fold_keys(struct psk_merged *m, int32_t *levels[PSK_FOLD_LEVELS]);

/* ---- per loop-body event statistics, from a merged trace ---- */

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

/* ---- outlier iterations of the outermost loops (after psk_folded_stats) ----
 * Per outermost loop of 4 or more iterations, each rank's compute per
 * iteration (gaps before its calls, and compute inside runs of polls);
 * an iteration whose compute (its slowest rank's) is further from the
 * median iteration's than 6 robust standard deviations (1.4826 x MAD)
 * and than half the median is an outlier (fold_outliers.c). */
typedef struct psk_foutlier {
    int64_t iter;   /* the iteration, from 0 */
    double compute; /* its compute, slowest rank (ns) */
} psk_foutlier;
/* loop id's outliers (*n, ascending), and its median iteration's compute */
const psk_foutlier *psk_folded_outliers(const psk_folded *f, int32_t id, int *n, double *median_ns);
/* rank's compute in loop id's outlier iterations and in its steady ones
 * (ns, each summed); 1 if the loop has outliers */
int psk_folded_outlier_compute(const psk_folded *f, int32_t id, int rank, double *outlier_ns, double *steady_ns);

/* ---- loop-variant parameters of a SYM node (after psk_folded_stats) ----
 * A parameter that differs between the executions of one loop-body event
 * is an expression of the iteration index i of one enclosing loop (depth:
 * 0 = outermost), or a table. Its value on taking part rank j is
 *   base[j] + e(i)  where mode is PSK_PMODE_DELTA (base: first execution),
 *   e(i)            where mode is PSK_PMODE_VALUE (all ranks the same),
 *   the pattern of the first execution with offset e(i) (PSK_PMODE_OFFSET,
 *                   peers written rank + c or (rank + c) mod size),
 * and, for PSK_VARY_RANKEXEC, table[exec * nranks + j]. */
enum psk_vary {
    PSK_VARY_AFFINE,   /* a * i + b */
    PSK_VARY_MOD,      /* (a * i + b) mod m, in [0, m) */
    PSK_VARY_PERIODIC, /* table[i mod m] */
    PSK_VARY_ITER,     /* table[i], one per iteration of the loop */
    PSK_VARY_EXEC,     /* table[k] for the node's k-th execution */
    PSK_VARY_RANKEXEC  /* table[k * nranks + j]: per execution and rank */
};
enum psk_pmode { PSK_PMODE_VALUE, PSK_PMODE_DELTA, PSK_PMODE_OFFSET };

typedef struct psk_fparam {
    int field;        /* enum psk_field (scalar fields only) */
    int kind;         /* enum psk_vary */
    int mode;         /* enum psk_pmode */
    int depth;        /* the loop whose iteration index i it follows */
    int64_t a, b, m;
    int64_t n;        /* table length */
    const int64_t *table;
    int64_t lo, hi;   /* smallest and largest value it takes on any rank */
    int ring;         /* OFFSET: (rank + e(i)) mod size; 0: rank + e(i), MPI_PROC_NULL outside */
} psk_fparam;

/* The parameters of node id that change between its executions (none:
 * *n = 0), valid until psk_folded_free. */
const psk_fparam *psk_folded_params(const psk_folded *f, int32_t id, int *n);
/* e(i) of p at iteration index i and execution k (for PERIODIC, ITER,
 * EXEC; RANKEXEC is read from its table directly) */
int64_t psk_fparam_eval(const psk_fparam *p, int64_t i, int64_t k);
/* One line describing p: "tag = 1*i2 + 100", "root = (1*i0 + 0) mod 4". */
void psk_fparam_desc(const psk_fparam *p, char *buf, size_t cap);

/* ---- the loop tree as JSON (fold_json.c) ---- */

struct psk_json;
/* The loop covering the most input symbols, or -1. */
int32_t psk_folded_main_loop(const psk_folded *f);
/* The JSON `perfskel fold --json` prints: input, algorithm, lengths, the
 * main loop, and the tree with each event's statistics and varying
 * arguments (m: the merged trace folded, or NULL for plain symbols). */
void psk_folded_write_json(FILE *out, const psk_folded *f, struct psk_merged *m, const char *input, int algo,
                           double secs);
/* One argument that changes between a call's executions, as an object
 * (fold --json and stats --json write the same). */
void psk_fparam_json(struct psk_json *j, const psk_fparam *p);

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
