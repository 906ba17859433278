/* perfskel advise: what its files share. The program read from a .adv
 * file (advise_parse.c), a layout of its arrays on a processor grid
 * (chosen by advise_align.c and advise_search.c), and the cost of a nest
 * under a layout (advise_cost.c, seed 003 section 4). docs/advise.md gives
 * the language and the semantics these structures follow; every number a
 * cost function returns is derived from them alone. */
#ifndef PSK_ADVISE_INTERNAL_H
#define PSK_ADVISE_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "perfskel/advise.h"
#include "perfskel/machine.h"

#define ADV_MAXDIM 8   /* array dimensions, loops per nest, grid axes */
#define ADV_NAME 64    /* identifiers, bytes with the terminating 0 */
#define ADV_MAXTDIM 64 /* template dimensions of a layout */

/* ---- the program ---- */

/* an affine form over a nest's loop variables: c0 + sum coef[v] * var v
 * (parameters already replaced by their values) */
typedef struct adv_affine {
    int64_t c0;
    int64_t coef[ADV_MAXDIM];
} adv_affine;

typedef struct adv_array {
    char name[ADV_NAME];
    int ndim;
    int64_t extent[ADV_MAXDIM];  /* indices 0 .. extent - 1 */
    int elsize;                  /* bytes */
    int readonly;                /* `readonly`: never written; its first
                                  * layout costs nothing */
    int line, col;               /* its declaration */
} adv_array;

typedef struct adv_scalar {      /* a reduction variable */
    char name[ADV_NAME];
    int elsize;
    int line, col;
} adv_scalar;

enum adv_loop_kind { ADV_SEQ = 0, ADV_PAR = 1, ADV_ACROSS = 2 };

typedef struct adv_loop {
    char var[ADV_NAME];
    adv_affine lo, hi;           /* inclusive; over the loops outside it only */
    int kind;                    /* enum adv_loop_kind */
    int line, col;
} adv_loop;

/* An array reference: every subscript is affine and uses at most one loop
 * variable (c * v + k, or a constant k): the parser refuses the rest. */
typedef struct adv_ref {
    int array;                   /* index into adv_program.arrays */
    int sub_var[ADV_MAXDIM];     /* loop index of subscript d, -1: constant */
    int64_t sub_coef[ADV_MAXDIM];/* c (0 if constant) */
    int64_t sub_off[ADV_MAXDIM]; /* k */
    int line, col;
} adv_ref;

enum adv_assign { ADV_SET = 0, ADV_UPDATE = 1 }; /* `=`, or `+=` `-=` `*=` ... */

typedef struct adv_stmt {
    int lhs_array;               /* -1 if the left side is a scalar */
    adv_ref lhs;                 /* valid when lhs_array >= 0 */
    int lhs_scalar;              /* index into scalars, or -1 */
    int assign;                  /* enum adv_assign; an update also reads its lhs */
    adv_ref *reads;              /* array references on the right side */
    int nreads;
    int line, col;
} adv_stmt;

/* A perfect loop nest: its loops, outermost first, kinds in the order
 * seq* (par|across)* seq* (the parser refuses others), and statements at
 * the innermost level. Outer seq loops repeat the parallel loop (each
 * repetition communicates); inner seq loops run whole inside an iteration. */
typedef struct adv_nest {
    char name[ADV_NAME];
    adv_loop loops[ADV_MAXDIM];
    int nloops;
    int first_par, end_par;      /* loops [first_par, end_par) are par/across;
                                  * first_par == end_par: none */
    adv_stmt *stmts;
    int nstmts;
    int64_t count;               /* executions per repetition of the program */
    double work_us;              /* us per innermost iteration, power 1 */
    int line, col;
} adv_nest;

typedef struct adv_param {
    char name[ADV_NAME];
    int64_t value;
} adv_param;

struct psk_adv_program {
    char *path;                  /* the file, for messages */
    adv_param *params;
    int nparams;
    adv_array *arrays;
    int narrays;
    adv_scalar *scalars;
    int nscalars;
    adv_nest *nests;
    int nnests;
    int64_t procs;               /* P */
    int maxdims;                 /* grid axes at most (default 2) */
    int64_t repeat;              /* the nests run in order this many times (default 1) */
    int maxshadow;               /* a constant offset up to this is a shadow (default 4) */
    char machine_path[4096];     /* `machine "FILE"`, resolved against the
                                  * .adv file's directory; "" if none */
    char errmsg[512];            /* "FILE:LINE:COL: what is wrong" */
};

/* ---- a layout ---- */

/* The processor grid: naxes axes of extent[a], product P; processor
 * coordinates are row-major (the last axis varies fastest), its number the
 * world rank. A template dimension distributed BLOCK on an axis of e
 * processors over positions lo..hi (n of them) gives coordinate c the
 * positions lo + c*b .. min(hi, lo + (c+1)*b - 1), b = ceil(n / e): the
 * last ones may be empty (DVM's rule). */
typedef struct adv_grid {
    int naxes;
    int64_t extent[ADV_MAXDIM];
} adv_grid;

/* How an array dimension is placed: on template dimension tdim at
 * position coef * index + off, or tdim = -1 (collapsed: all of it wherever
 * the array is). */
typedef struct adv_dimmap {
    int tdim;
    int64_t coef;                /* +1 or -1 (others: refused by the search) */
    int64_t off;
} adv_dimmap;

/* A layout: template dimensions, each with its position range and the grid
 * axis it is distributed on (-1: not distributed), and every array's
 * alignment. An array is present on a processor when, for each of its
 * dimensions mapped to a distributed template dimension, its indices there
 * meet the processor's block; along an axis none of its dimensions is
 * distributed on it is replicated. `replicated` forces all of it on every
 * processor (every dimension collapsed). */
typedef struct adv_layout {
    adv_grid grid;
    int ntdim;
    int64_t tlo[ADV_MAXTDIM], thi[ADV_MAXTDIM];
    int taxis[ADV_MAXTDIM];
    adv_dimmap *map;             /* narrays * ADV_MAXDIM, map[a * ADV_MAXDIM + d] */
    int *replicated;             /* narrays */
    int *shadow_lo, *shadow_hi;  /* narrays * ADV_MAXDIM: widths the layout declares
                                  * (filled by psk_adv_shadows) */
} adv_layout;

/* ---- the cost of a nest under a layout (advise_cost.c) ---- */

typedef struct adv_cost {
    /* per execution of the nest (all its repetition-loop iterations) */
    double compute_us;           /* max over processors */
    double compute_avg_us;       /* mean over processors (imbalance = max / avg) */
    double shadow_us, remote_us, reduce_us;
    double across_us;            /* a pipelined nest: its whole time, which then
                                  * replaces compute_us + the shadow along it */
    double total_us;             /* what one execution takes */
    /* counts per execution, summed over processors: messages are
     * (source, destination) pairs with bytes > 0, one per operation */
    int64_t shadow_msgs, shadow_bytes;
    int64_t remote_msgs, remote_bytes;
    int64_t reduce_msgs, reduce_bytes;
    int64_t across_msgs, across_bytes;
    int pipelined;               /* an across loop is distributed */
    int64_t chunks;              /* the pipeline's Q */
} adv_cost;

/* The cost of one execution of nest n of p under layout l on machine m.
 * PSK_OK, or PSK_ENOMEM. */
int psk_adv_nest_cost(const psk_adv_program *p, int n, const adv_layout *l,
                      const psk_machine *m, adv_cost *out);

/* Every array's part on every processor under one layout (a table per
 * array dimension and coordinate of its grid axis), for the
 * redistributions from or to the layout to share: build it once the
 * layout is final. PSK_OK or PSK_ENOMEM. */
typedef struct adv_parts adv_parts;
int psk_adv_parts_build(const psk_adv_program *p, const adv_layout *l, adv_parts **out);
void psk_adv_parts_free(adv_parts *t);

/* Redistribution from layout a to layout b before nest `next` (whose
 * arrays' contents count: an array the next nest to use it writes without
 * reading is not moved). us, messages and bytes summed over processors.
 * pa, pb: a's and b's parts, or NULL (then built for the call). */
int psk_adv_redist_cost(const psk_adv_program *p, int next, const adv_layout *a, const adv_parts *pa,
                        const adv_layout *b, const adv_parts *pb, const psk_machine *m, double *us,
                        int64_t *msgs, int64_t *bytes);

/* A lower bound on psk_adv_redist_cost's us, in O(P) per needed array:
 * on a bus or switch from what every processor receives (docs/advise.md
 * "Speed"), on a grid from a sample of the destinations. PSK_OK,
 * PSK_EINVAL or PSK_ENOMEM. */
int psk_adv_redist_bound(const psk_adv_program *p, int next, const adv_layout *a, const adv_parts *pa,
                         const adv_layout *b, const adv_parts *pb, const psk_machine *m, double *lb);

/* 1 if array a's contents matter to the next nest from `next` (round the
 * program) that uses it: it reads it (a redistribution moves it) */
int psk_adv_needed(const psk_adv_program *p, int next, int a);

/* a transfer: bytes from rank src to rank dst */
typedef struct adv_msg {
    int64_t src, dst, bytes;
} adv_msg;

/* The time of a transfer (seed 003 section 4.2's GetCost, and a switch):
 * docs/advise.md. The list is sorted by (src, dst), one message per pair,
 * src != dst, bytes > 0 (what a P x P matrix of bytes holds). PSK_OK or
 * PSK_ENOMEM. */
int psk_adv_transfer_list(const adv_msg *msg, int64_t n, int64_t P, const psk_machine *m, double *us);
/* The same for a dense matrix (P x P bytes, t[src * P + dst]); NAN when
 * memory runs out. */
double psk_adv_transfer_us(const int64_t *t, int64_t P, const psk_machine *m);

/* ---- walking what a nest moves (advise_cost.c; docs/advise.md
 * "Walking a nest") ---- */

enum adv_op { ADV_OP_SHADOW = 0, ADV_OP_REMOTE = 1, ADV_OP_REDUCE = 2, ADV_OP_ACROSS = 3, ADV_OP_REDIST = 4 };

/* Callbacks for one execution of a nest (or a redistribution). A non-zero
 * return stops the walk, which returns that value. ops is never called
 * with n = 0; its list lives until it returns. */
typedef struct adv_walk {
    void *ctx;
    /* this step's compute per rank, us (P entries; 0: none) */
    int (*compute)(void *ctx, const double *us_per_rank);
    /* kind: enum adv_op; m[0..n-1] sorted by (src, dst) except a
     * reduction's, which comes as one call per phase: its gather, then
     * its broadcast, or on a switch each round of their binomial trees */
    int (*ops)(void *ctx, int kind, const adv_msg *m, int64_t n);
} adv_walk;

/* One execution of nest n under l, in program order, per outer-seq
 * iteration: ops(REMOTE), ops(SHADOW) (the slabs not along a pipeline),
 * then compute once, or for a pipelined nest its E + Q steps (compute,
 * then ops(ACROSS) of the chunks sent at that step), then ops(REDUCE):
 * the gather of the section holding rank 0 to rank 0 in ascending rank,
 * then rank 0's broadcast to 1 .. P-1. Exactly what psk_adv_nest_cost
 * counts: the same code decides it. PSK_OK, PSK_ENOMEM, or a callback's
 * non-zero value. */
int psk_adv_nest_walk(const psk_adv_program *p, int n, const adv_layout *l, const psk_machine *m,
                      const adv_walk *w);
/* The redistribution from a to b before nest `next`: one ops(REDIST)
 * (none if nothing moves), what psk_adv_redist_cost costs. PSK_OK,
 * PSK_EINVAL (different P), PSK_ENOMEM or a callback's value. */
int psk_adv_redist_walk(const psk_adv_program *p, int next, const adv_layout *a, const adv_layout *b,
                        const adv_walk *w);

/* Each loop's range at its widest over the ranges of the loops outside
 * it, lo[k] .. hi[k] for k < ns->nloops (doubles: a hull may pass int64) */
void psk_adv_loop_hulls(const adv_nest *ns, double *lo, double *hi);
/* bytes of all of array x (the reader keeps it below 2^63) */
int64_t psk_adv_array_bytes(const adv_array *x);

/* How many iterations of nest n's outer seq loops are costed one by one
 * (at most; bounds at their widest): those whose variable a subscript or
 * an inner bound uses (a loop whose value changes nothing is costed once
 * and multiplied), or with `all` every one (as a walk goes through them).
 * INT64_MAX when it overflows. */
int64_t psk_adv_outer_steps(const psk_adv_program *p, int n, int all);

/* Fills l->shadow_lo/hi from the nests' references (the widest constant
 * offset up to maxshadow on each side of each distributed dimension). */
void psk_adv_shadows(const psk_adv_program *p, adv_layout *l);

/* bytes of array a on processor `rank` under l (memory per processor) */
int64_t psk_adv_local_bytes(const psk_adv_program *p, const adv_layout *l, int a, int64_t rank);

/* ---- alignment (advise_align.c, seed 004's data space fusion) ---- */

/* The classes of array dimensions that share a template dimension: node
 * a * ADV_MAXDIM + d is dimension d of array a; its position in its class
 * is coef * index + off. A class is a candidate for distribution when some
 * nest's parallel loop runs along it (weight > 0: the iterations that do). */
typedef struct adv_align {
    int nnode;                   /* narrays * ADV_MAXDIM */
    int *cls;                    /* per node; -1 for dimensions an array lacks */
    int64_t *coef, *off;         /* per node */
    int nclass;
    int64_t *clo, *chi;          /* per class: positions its members cover */
    double *weight;              /* per class */
    int narcs, nrejected;        /* arcs seen, arcs left as communication */
} adv_align;

int psk_adv_align(const psk_adv_program *p, adv_align *out);
void psk_adv_align_free(adv_align *a);

/* ---- the search (advise_search.c) and its report (advise_report.c) ---- */

/* a layout costed over the whole program as if it held throughout */
typedef struct adv_eval {
    adv_layout layout;
    int cls[ADV_MAXDIM];         /* per grid axis: the alignment class on it */
    adv_cost *nest;              /* per nest, one execution */
    double total_us;             /* repeat x sum over nests of count x total */
    double compute_us, comm_us;  /* the same split (across counted as compute
                                  * of its pipeline, the rest communication) */
    int64_t msgs, bytes;         /* over the whole program */
    int64_t mem_bytes;           /* the most any processor holds */
} adv_eval;

struct psk_advice {
    const psk_adv_program *prog;
    const psk_machine *machine;
    int64_t procs;
    adv_align align;
    adv_eval *cand;              /* every layout considered */
    int ncand;
    int *rank;                   /* cand indices, best static first */
    int nrank;                   /* how many to report */
    /* what the report shows: rank positions of the best nrank layouts
     * that are not equivalent to a better one (the same figures on the
     * same grid shape, e.g. rows and columns of a symmetric program), and
     * how many equivalent ones each stands for */
    int *shown, *nequiv;
    int nshown;
    /* the plan: a layout per nest (cand index), and what moving between
     * them costs before each nest (before nest 0: from the last one's,
     * repeat - 1 times) */
    int *plan;
    double *redist_us;
    int64_t *redist_msgs, *redist_bytes;
    double plan_us;
    int plan_static;             /* one layout throughout */
    char errmsg[512];
};

/* ---- a team of threads (advise_team.c) ---- */

#define ADV_MAXTHREADS 64

typedef struct adv_team {
    pthread_mutex_t mu;
    pthread_cond_t start, done;
    pthread_t tid[ADV_MAXTHREADS];
    int nworkers;                /* threads besides the caller's */
    unsigned gen;                /* jobs handed out so far */
    int ndone, quit, ok;         /* ok: mu and the conditions were made */
    void (*job)(void *arg);
    void *arg;
} adv_team;

/* n threads in all (the caller's among them); fewer if some cannot start */
void psk_adv_team_open(adv_team *t, int n);
/* job(arg) on every thread of the team; returns when all have returned */
void psk_adv_team_run(adv_team *t, void (*job)(void *), void *arg);
void psk_adv_team_close(adv_team *t);

/* ---- layouts (advise_layout.c) ---- */
/* init: a grid of one axis of extent 1, no template dimensions, every
 * array dimension collapsed, nothing replicated, shadows 0. PSK_OK or
 * PSK_ENOMEM; free leaves l zeroed (free of a zeroed layout is safe). */
int psk_adv_layout_init(adv_layout *l, int narrays);
void psk_adv_layout_free(adv_layout *l);
int psk_adv_layout_copy(adv_layout *dst, const adv_layout *src, int narrays);

/* the number of processors of a grid (the product of its extents) */
int64_t psk_adv_nprocs(const adv_grid *g);
/* processor rank's coordinates on g, row-major (the last axis fastest) */
void psk_adv_coords(const adv_grid *g, int64_t rank, int64_t *coord);
/* the positions [*lo, *hi] of template dimension t that coordinate c of
 * its axis owns (all of tlo..thi when t is not distributed); 0 if none */
int psk_adv_block(const adv_layout *l, int t, int64_t c, int64_t *lo, int64_t *hi);
/* the integers v with lo <= A*v + B <= hi as [*vlo, *vhi] (A = 0: all
 * of them, a huge range, or none); 0 if there are none */
int psk_adv_preimage(int64_t A, int64_t B, int64_t lo, int64_t hi, int64_t *vlo, int64_t *vhi);
/* the box of array a the processor at coord holds (index intervals per
 * dimension, shadows not included); 0 if it holds nothing */
int psk_adv_owned(const psk_adv_program *p, const adv_layout *l, int a, const int64_t *coord,
                  int64_t *lo, int64_t *hi);
/* 1 if array a dimension d sits on a distributed template dimension:
 * *axis is its grid axis */
int psk_adv_dim_axis(const adv_layout *l, int a, int d, int *axis);
/* 1 if array a is whole on every processor (`replicated`, or none of its
 * dimensions on a distributed template dimension) */
int psk_adv_everywhere(const psk_adv_program *p, const adv_layout *l, int a);

/* ---- how a nest reads under a layout (advise_cost.c) ---- */
enum adv_access { ADV_LOCAL = 0, ADV_SHADOW = 1, ADV_REMOTE = 2 };
/* nest n's home reference (docs/advise.md "Owner computes"), or NULL if
 * it has none (no array at all: every processor runs every iteration) */
const adv_ref *psk_adv_home(const psk_adv_program *p, int n);
/* how reference r of nest n is read under l: enum adv_access; for a
 * shadow, off[d] (if off is not NULL) is the index offset on dimension d
 * (A[i-1] aligned with the home at i: -1), 0 elsewhere */
int psk_adv_classify(const psk_adv_program *p, int n, const adv_layout *l, const adv_ref *r,
                     int64_t *off);

#endif
