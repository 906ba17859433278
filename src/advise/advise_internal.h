/* perfskel advise: what its files share. The program read from a .adv
 * file (advise_lex.c, advise_expr.c, advise_parse.c), a layout of its
 * arrays on a processor grid (chosen by advise_align.c, advise_search.c and
 * advise_plan.c), and the cost of a nest or a redistribution under layouts
 * (advise_cost.c and advise_redist.c, on advise_access.c and
 * advise_transfer.c: the DVM Predictor's formulas, from its detailed design
 * of 2000, section 4). docs/advise.md gives the language and the semantics
 * these structures follow; every number a cost function returns is derived
 * from them alone. */
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

/* ---- the cost of a nest under a layout (advise_cost.c), of a
 * redistribution (advise_redist.c) and of a transfer (advise_transfer.c) ---- */

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
 * array dimension and coordinate of its grid axis, advise_access.c), for the
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

/* The time of a transfer (the DVM Predictor's GetCost, its design's
 * section 4.2, and a switch; advise_transfer.c): docs/advise.md. The list
 * is sorted by (src, dst), one message per pair, src != dst, bytes > 0
 * (what a P x P matrix of bytes holds). PSK_OK or PSK_ENOMEM. */
int psk_adv_transfer_list(const adv_msg *msg, int64_t n, int64_t P, const psk_machine *m, double *us);
/* The same for a dense matrix (P x P bytes, t[src * P + dst]); NAN when
 * memory runs out. */
double psk_adv_transfer_us(const int64_t *t, int64_t P, const psk_machine *m);

/* ---- walking what a nest moves (advise_cost.c, advise_redist.c; docs/advise.md
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
/* bytes of all of array x (the reader keeps it below 2^63; advise_access.c) */
int64_t psk_adv_array_bytes(const adv_array *x);

/* How many iterations of nest n's outer seq loops are costed one by one
 * (at most; bounds at their widest): those whose variable a subscript or
 * an inner bound uses (a loop whose value changes nothing is costed once
 * and multiplied), or with `all` every one (as a walk goes through them).
 * INT64_MAX when it overflows. */
int64_t psk_adv_outer_steps(const psk_adv_program *p, int n, int all);

/* Fills l->shadow_lo/hi from the nests' references (the widest constant
 * offset up to maxshadow on each side of each distributed dimension;
 * advise_access.c). */
void psk_adv_shadows(const psk_adv_program *p, adv_layout *l);

/* bytes of array a on processor `rank` under l (memory per processor) */
int64_t psk_adv_local_bytes(const psk_adv_program *p, const adv_layout *l, int a, int64_t rank);

/* ---- alignment (advise_align.c: data space fusion, after "Data Space
 * Fusion Based Approach for Effective Alignment of Computation and Data",
 * Journal of Software 15(9), 2004) ---- */

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

/* ---- the search (advise_search.c, advise_plan.c) and its report (advise_report.c) ---- */

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

/* ---- the search's state (advise_search.c, advise_plan.c) ---- */

#define ADV_MAXCLASS 8   /* candidate classes tried on the axes */

typedef struct adv_search {
    const psk_adv_program *p;
    const psk_machine *m;
    psk_advice *a;
    int cap;
    int cls[ADV_MAXCLASS];
    int ncls;
    adv_team *team;
} adv_search;

/* The plan from the ranked candidates (a->rank): a layout per nest, with
 * what the redistributions before each cost, in a->plan, redist_us,
 * redist_msgs, redist_bytes, plan_us and plan_static (advise_plan.c).
 * PSK_OK, or the error of a cost. */
int psk_adv_plan(adv_search *s);

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

/* ---- how a nest reads under a layout, and who holds what (advise_access.c) ---- */
enum adv_access { ADV_LOCAL = 0, ADV_SHADOW = 1, ADV_REMOTE = 2 };
/* nest n's home reference (docs/advise.md "Owner computes"), or NULL if
 * it has none (no array at all: every processor runs every iteration) */
const adv_ref *psk_adv_home(const psk_adv_program *p, int n);
/* how reference r of nest n is read under l: enum adv_access; for a
 * shadow, off[d] (if off is not NULL) is the index offset on dimension d
 * (A[i-1] aligned with the home at i: -1), 0 elsewhere */
int psk_adv_classify(const psk_adv_program *p, int n, const adv_layout *l, const adv_ref *r,
                     int64_t *off);

/* every array reference a nest reads: its right sides and its updates' left sides */
typedef struct adv_readref {
    const adv_ref *r;
    int cls;                       /* enum adv_access under the layout */
    int64_t off[ADV_MAXDIM];       /* a shadow's offsets (psk_adv_classify) */
} adv_readref;

/* nest n's references read, classified under l: *out (free it), *nout of
 * them. PSK_OK or PSK_ENOMEM. */
int psk_adv_collect_reads(const psk_adv_program *p, int n, const adv_layout *l, adv_readref **out,
                          int *nout);
/* nest n's shadow widths per array dimension, maxed into lo/hi (narrays x
 * ADV_MAXDIM), and corner[a] = 1 when a reference of array a is offset in
 * two dimensions at once (corner may be NULL). PSK_OK or PSK_ENOMEM. */
int psk_adv_nest_widths(const psk_adv_program *p, int n, const adv_layout *l, int *lo, int *hi,
                        int *corner);

/* array a's part on every processor, per dimension: an interval per
 * coordinate of the dimension's grid axis (one interval when it is not
 * distributed), the boxes psk_adv_owned gives, computed once per array */
typedef struct adv_owntab {
    int ndim;
    int axis[ADV_MAXDIM];          /* -1: not distributed */
    int64_t *lo[ADV_MAXDIM], *hi[ADV_MAXDIM];
    int64_t *pre[ADV_MAXDIM];      /* pre[d][c]: the sizes of intervals 0 .. c-1 */
    int64_t *buf;                  /* NULL: not built */
} adv_owntab;

struct adv_parts {
    int narrays;
    adv_owntab *t;                 /* per array */
};

/* array a's table under l: PSK_OK or PSK_ENOMEM; free: t->buf NULL again */
int psk_adv_own_build(const psk_adv_program *p, const adv_layout *l, int a, adv_owntab *t);
void psk_adv_own_free(adv_owntab *t);
/* the box the processor at coord holds; 0 if it holds nothing */
int psk_adv_own_get(const adv_owntab *t, const int64_t *coord, int64_t *lo, int64_t *hi);
/* per grid axis, the coordinates clo..chi of the processors whose part of
 * array a can meet the box lo..hi (the axes a is not distributed on
 * whole); 0 if none */
int psk_adv_owner_range(const psk_adv_program *p, const adv_layout *l, int a, const int64_t *lo,
                        const int64_t *hi, int64_t *clo, int64_t *chi);
/* the next coordinates in the box lo..hi, row-major; 0 after the last */
int psk_adv_next_coord(int naxes, const int64_t *lo, const int64_t *hi, int64_t *c);
/* the rank of the processor at coord (psk_adv_coords' inverse) */
int64_t psk_adv_rank_of(const adv_grid *g, const int64_t *coord);
/* axes array a is distributed on (bit per axis) */
unsigned psk_adv_dist_axes(const psk_adv_program *p, const adv_layout *l, int a);

/* ---- transfers and message lists (advise_transfer.c) ---- */

/* A transfer's time, message by message. The sums run in (src, dst)
 * order, as a dense matrix's row-major scan would; the switch's sums are
 * per processor (a sender's in ascending destination, a receiver's in
 * ascending source), so any order that keeps those two (destination by
 * destination, sources ascending, as the redistribution streams them)
 * gives the same result to the last bit. The grid keeps maxima only; the
 * bus's one sum needs the (src, dst) order itself. */
typedef struct adv_xfer {
    const psk_machine *m;
    int64_t P;
    double total;               /* bus: the running sum */
    int64_t l, L;               /* grid: longest distance, largest message there */
    double intra;               /* grid: the slowest copy inside a node */
    double *acc;                /* switch: P x {sent, received} x {between, inside} nodes */
    int plain;                  /* one rank a node, no measured costs: Ts + Tb B */
} adv_xfer;

/* init: PSK_OK or PSK_ENOMEM; add: b bytes from rank s to rank d; end:
 * the time, freeing what init took */
int psk_adv_xfer_init(adv_xfer *x, int64_t P, const psk_machine *m);
void psk_adv_xfer_add(adv_xfer *x, int64_t s, int64_t d, int64_t b);
double psk_adv_xfer_end(adv_xfer *x);

/* a growable list of messages ({0}: empty; free v) */
typedef struct adv_mlist {
    adv_msg *v;
    int64_t n, cap;
} adv_mlist;

/* a transfer of b bytes from s to d; nothing when b <= 0 or s == d.
 * PSK_OK or PSK_ENOMEM. */
int psk_adv_mlist_add(adv_mlist *l, int64_t s, int64_t d, int64_t b);
/* sorted by (src, dst), one message per pair (their bytes summed), ranks
 * below P. PSK_OK or PSK_ENOMEM. */
int psk_adv_mlist_merge(adv_mlist *l, int64_t P);
/* the list's messages and bytes added to *msgs and *bytes */
void psk_adv_mlist_count(const adv_mlist *l, int64_t *msgs, int64_t *bytes);

/* ---- the reader's internals (advise_lex.c, advise_expr.c, advise_parse.c) ---- */

/* single-character tokens are their character; the others: */
enum {
    ADV_T_EOF = 256, ADV_T_IDENT, ADV_T_INT, ADV_T_NUM, ADV_T_STR, ADV_T_DOTDOT,
    ADV_T_ADDEQ, ADV_T_SUBEQ, ADV_T_MULEQ, ADV_T_DIVEQ, ADV_T_ERR
};

typedef struct adv_token {
    int type;
    int line, col;
    size_t start, len;     /* in the text */
    char text[ADV_NAME];   /* ADV_T_IDENT */
    int64_t value;         /* ADV_T_INT */
    int overflow;          /* ADV_T_INT beyond int64 */
    const char *err;       /* ADV_T_ERR: what is wrong */
    unsigned char errc;    /* ADV_T_ERR: the character, for "unexpected" */
} adv_token;

/* names: open addressing on FNV-1a */
enum { ADV_SYM_PARAM = 1, ADV_SYM_ARRAY, ADV_SYM_SCALAR, ADV_SYM_NEST, ADV_SYM_LOOPVAR };

typedef struct adv_sym {
    char name[ADV_NAME]; /* "" : empty slot */
    int kind, index, line, col;
} adv_sym;

typedef struct adv_symtab {
    adv_sym *slot;
    size_t cap, n;
} adv_symtab;

/* the parser's state */
typedef struct adv_parser {
    const char *src;
    size_t len;
    size_t pos;             /* the lexer, just after cur */
    int line, col;
    adv_token cur;
    psk_adv_program *p;
    const psk_adv_define *defs;
    int ndefs;
    char *used;             /* per define: a param took it */
    adv_symtab names;       /* params, arrays, scalars: one namespace */
    adv_symtab nests, loopvars; /* nest names; every loop variable seen (for "out of scope") */
    int depth;
    int64_t nrefs, nstmts;
    int reads_cap;          /* of the statement being read */
    int have_procs, have_maxdims, have_machine, have_repeat, have_maxshadow;
    int rc;
} adv_parser;

/* Every grammar function returns 0, or -1 once psk_adv_fail or
 * psk_adv_oom has left the message in the program and the status in
 * ps->rc: ADV_TRY passes that -1 up. */
#define ADV_TRY(x)       \
    do {                 \
        if ((x) < 0)     \
            return -1;   \
    } while (0)

/* advise_lex.c: the name's entry, or NULL */
adv_sym *psk_adv_sym_lookup(const adv_symtab *t, const char *name);
/* adds a name known to be absent; -1 if memory ran out */
int psk_adv_sym_insert(adv_symtab *t, const char *name, int kind, int index, int line, int col);
/* 1 if s is a word of the language (not a name) */
int psk_adv_is_keyword(const char *s);
/* "PATH:LINE:COL: message" at token t; -1 */
int psk_adv_fail(adv_parser *ps, const adv_token *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "PATH: out of memory"; -1 */
int psk_adv_oom(adv_parser *ps);
/* the next token into ps->cur (-1 and the message if it is a bad one);
 * psk_adv_peek: the type of the one after, consuming nothing */
int psk_adv_advance(adv_parser *ps);
int psk_adv_peek(const adv_parser *ps);
/* 1 if ps->cur is the name w */
int psk_adv_is_word(const adv_parser *ps, const char *w);
/* t as a message shows it ("'x'", "end of file" ...): in buf, or a literal */
const char *psk_adv_describe(const adv_parser *ps, const adv_token *t, char *buf, size_t cap);
/* consumes a token of type `type` or says what was expected instead */
int psk_adv_expect(adv_parser *ps, int type, const char *what);

/* where an integer expression is read (advise_expr.c) */
typedef struct adv_ictx {
    const adv_nest *nest;  /* NULL: constants only */
    int nloops;            /* loops of nest named so far (the one being read included) */
    int nvis;              /* of them, those usable here */
    const char *what;      /* "subscript", "loop bound", ... for messages */
} adv_ictx;

/* advise_expr.c: an integer expression as an affine form over c's loops;
 * psk_adv_iconst: a constant one (params, numbers), *at where it starts */
int psk_adv_iexpr(adv_parser *ps, const adv_ictx *c, adv_affine *out);
int psk_adv_iconst(adv_parser *ps, const char *what, int64_t *v, adv_token *at);
/* An array reference at ps->cur (its name, then '[') into r, every
 * subscript over all of nest n's loops */
int psk_adv_aref(adv_parser *ps, const adv_nest *n, adv_ref *r);
/* r appended to st's reads */
int psk_adv_add_read(adv_parser *ps, adv_stmt *st, const adv_ref *r);
/* a value expression (a right side): its array references into st's reads */
int psk_adv_vexpr(adv_parser *ps, const adv_nest *n, adv_stmt *st);

#endif
