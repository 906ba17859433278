/* Internals of the fold stage: the grammar a folding builds (loop symbols
 * over the input alphabet), the repeat finders the algorithms use, and the
 * level-by-level driver they share. A sequence is an array of extended
 * symbols: values below k0 are input symbols, k0 + L is loop L, whose body
 * is itself a folded sequence (no repeat left in it) run `count` times. */
#ifndef PSK_FOLD_INTERNAL_H
#define PSK_FOLD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "perfskel/fold.h"
#include "psk_intern.h"

/* a maximal repetition: [start, start + length) has smallest period
 * `period` and length >= 2 * period */
typedef struct frun {
    int32_t start, period, length;
} frun;

/* a growable list of runs */
typedef struct frlist {
    frun *r;
    int64_t n, cap;
} frlist;
/* fold_lyndon.c: appends x to l; 0, or -1 if memory ran out */
int fold_frlist_push(frlist *l, frun x);

typedef struct fvec { /* a growable int32 array */
    int32_t *v;
    int64_t n, cap;
} fvec;
int fvec_push(fvec *a, int32_t x);
int fvec_reserve(fvec *a, int64_t n);

/* big work arrays reused from one round to the next (fold_scratch.c): a
 * folding takes them if no enclosing round of the same grammar holds them
 * (busy: the body folds inside a round's choice fold on their own), and
 * frees them when it ends */
enum { FSCRATCH_SLOTS = 2 };
typedef struct fscratch {
    int32_t *v[FSCRATCH_SLOTS];
    int64_t cap[FSCRATCH_SLOTS];
    int busy;
} fscratch;
/* slot's array, at least n long (its contents lost if it grows); NULL if
 * memory runs out */
int32_t *fscratch_get(fscratch *w, int slot, int64_t n);
void fscratch_free(fscratch *w);

typedef struct floop {
    int64_t body;  /* offset of the body in the grammar's pool */
    int32_t len;   /* body length in extended symbols */
    int64_t count; /* iterations */
    int64_t flen;  /* folded length of the body, in input symbols */
    int64_t xlen;  /* expanded length of the whole loop, in input symbols */
} floop;

typedef struct fgrammar {
    int32_t k0;             /* input alphabet size */
    floop *loop;
    int32_t nloops, lcap;
    fvec pool;              /* loop bodies, back to back */
    psk_intern *ids;        /* (body, count) -> loop */
    psk_intern *memo;       /* unfolded body -> its folded form (below) */
    fvec memo_val;          /* memo id -> offset in memo_pool (len first) */
    fvec memo_pool;
    int algo;
    int64_t rounds;         /* levels of folding done, for statistics */
    fscratch scratch;       /* the rounds' big arrays */
    int plain;              /* tests: no shortcut (every run by fold_runs_linear
                             * over the whole sequence, every body looked up in
                             * the memo), the reference the shortcuts must match */
} fgrammar;

int fgrammar_init(fgrammar *g, int32_t k0, int algo);
void fgrammar_free(fgrammar *g);
static inline int64_t fsym_flen(const fgrammar *g, int32_t x) { return x < g->k0 ? 1 : g->loop[x - g->k0].flen; }
static inline int64_t fsym_xlen(const fgrammar *g, int32_t x) { return x < g->k0 ? 1 : g->loop[x - g->k0].xlen; }
/* the loop symbol of (body, count), the body already folded */
int64_t fgrammar_loop(fgrammar *g, const int32_t *body, int32_t len, int64_t count);

struct psk_folded {
    char err[256];
    int64_t n, flen, rounds;
    int32_t *names;     /* dense symbol -> input value */
    psk_fnode *node;
    int32_t nnodes, ncap;
    fvec kids;
    psk_fstats *stats;  /* per node, after psk_folded_stats */
    int64_t **tables;   /* per node: its count table, owned */
    const int32_t *sym0; /* while building: names SYM nodes by input position */
    struct fparams *params; /* per node, after psk_folded_stats (fold_params.c) */
    struct fold_outliers *outliers; /* after psk_folded_stats (fold_outliers.c) */
};
/* fold_outliers.c: per outermost loop, each rank's compute per iteration,
 * summed while psk_folded_stats walks the trace, then its outliers */
typedef struct fold_outliers fold_outliers;
fold_outliers *fold_outliers_new(const psk_folded *f, int P); /* NULL: out of memory */
void fold_outliers_add(fold_outliers *o, int32_t node, const int64_t *iter, int depth, int rank, double ns);
int fold_outliers_finish(fold_outliers *o, const psk_folded *f);
void fold_outliers_free(fold_outliers *o);
/* Builds f's loop tree from g's top sequence s[0..len); SYM nodes named by
 * sym0[position] if sym0 is not NULL, else by their input symbol. */
int fold_tree_build(psk_folded *f, const fgrammar *g, const int32_t *s, int32_t len, const int32_t *sym0);
/* fold_params.c: fits the parameters of every SYM node; frees them */
int fold_params_compute(psk_folded *f, struct psk_merged *m);
void fold_params_free(psk_folded *f);
int fail_folded(psk_folded *f, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Folds s[0..n) in place (n updated) with g's algorithm until no repeat
 * is left, making loop symbols in g. */
int fold_sequence(fgrammar *g, int32_t *s, int32_t *n);

/* Repeat finders. All return every run of s exactly once (any order), in
 * *out (malloc'd), or -1 when memory runs out. k: alphabet size. */
int fold_runs_naive(const int32_t *s, int32_t n, frun **out, int64_t *nout);
int fold_runs_linear(const int32_t *s, int32_t n, int32_t k, frun **out, int64_t *nout);
/* the same with its two arrays of n from w's slots (w NULL: allocated) */
int fold_runs_linear_in(const int32_t *s, int32_t n, int32_t k, fscratch *w, frun **out, int64_t *nout);
int fold_runs_probe(const int32_t *s, int32_t n, int32_t k, frun **out, int64_t *nout);
/* fold_split.c: fold_runs_linear's runs in its order, found between the
 * symbols that occur once (fold_runs_linear itself if there are none,
 * with w's arrays if w is not NULL) */
int fold_runs_split(const int32_t *s, int32_t n, int32_t k, fscratch *w, frun **out, int64_t *nout);
/* fold_split.c: where fold_runs_linear reports run r of s[0..n) (its
 * first Lyndon root) and in which *order (0 natural, 1 inverted) */
int32_t fold_run_root(const int32_t *s, int32_t n, frun r, int *order);
/* fold_period.c: fold_runs_linear's runs in its order when s (16,384
 * symbols or more) is mostly a word repeated at least 16 times (a quarter
 * of that or less before and after), found in a few periods; 1 (nothing
 * done) when it is not */
int fold_runs_periodic(const int32_t *s, int32_t n, int32_t k, frun **out, int64_t *nout);

/* The quadratic baselines fold directly (fold_naive.c). */
int fold_topdown(fgrammar *g, int32_t *s, int32_t *n);
int fold_bottomup(fgrammar *g, int32_t *s, int32_t *n);

#endif
