/* Internals of process-count extrapolation (merge_extrap.c, the driver and
 * the fit): the scaling rules, kept in one place (merge_extrap_rule.c). A
 * rule gives the factor applied to an event's message counts and to the
 * compute gaps before it, and counts what it was applied to for the
 * report. Then the state the driver shares with the grid and templates
 * (merge_extrap_grid.c), pass 1 (merge_extrap_scan.c), the job header
 * (merge_extrap_job.c) and pass 2 (merge_extrap_events.c). */
#ifndef PSK_MERGE_EXTRAP_H
#define PSK_MERGE_EXTRAP_H

#include "perfskel/extrap.h"

/* what an event's message counts are, for the strong rule */
enum xcat {
    XC_NONE,      /* no message counts */
    XC_NEIGHBOUR, /* point-to-point with a neighbour of a d-D grid (1-D: rank + c, ring) */
    XC_P2P,       /* other point-to-point (a fixed peer: a root, a master) */
    XC_REDUCE,    /* reductions, broadcasts, scans: a result of fixed size */
    XC_GATHER,    /* gathers, scatters, allgathers: a piece per rank */
    XC_ALLTOALL,  /* a piece per pair of ranks */
    XC_NCAT
};
int xrule_category(unsigned fn, int neighbour);

typedef struct xrule {
    int scale;
    double P, P2;
    int nd;                   /* dimensions of the grid neighbours talk on */
    /* FIT: per event of the base trace, the factors and models chosen */
    double *fcount, *fgap;
    uint8_t *mcount, *mgap;
    uint64_t ucat[XC_NCAT];   /* events with message counts, per category */
    uint64_t umodel[2][3];    /* FIT: events per model chosen, counts [0] and gaps [1] */
    uint64_t ugap;            /* events whose compute gaps were scaled */
} xrule;

enum xmodel { XM_CONST, XM_POWER, XM_INVERSE, XM_N };
const char *xrule_model_name(int model);
/* Fits y(P) at n (2 or 3) points and returns g(P2) / g(Pbase), the model in *model */
double xrule_fit(const double *P, const double *y, int n, double Pbase, double P2, int *model);

/* the factors of event e (of category cat) */
double xrule_count_factor(xrule *r, uint64_t e, int cat);
double xrule_gap_factor(xrule *r, uint64_t e);
/* fills the report's items from what was used */
void xrule_report(const xrule *r, psk_extrap_report *rep);

/* ---- one extrapolation's state ---- */

#define MAXD 3 /* dimensions of a grid at most */

/* how a peer field of a class of m is rebuilt at P2 */
enum { PD_PLAIN, PD_SHIFT, PD_CONST };
typedef struct pdesc {
    int8_t type, dim, periodic, set;
    int64_t v; /* PLAIN: the pattern's c (kind in pkind); SHIFT: disp; CONST: the value */
    uint8_t pkind;
} pdesc;

/* a rank set of m: a box of the grid (its ranks at P2 made in pass 2) */
typedef struct xbox {
    int lo[MAXD], hi[MAXD], fixed[MAXD]; /* fixed: lo..lo+len (or to the end) keeps its length */
    int len[MAXD];
    int32_t *list; /* P2 ranks, ascending */
    int n;
    int64_t id2;   /* its id in the new trace */
} xbox;

/* one extrapolation: its inputs, the grids at P and P2, the boxes, the
 * templates, how peers are rebuilt and the rule */
typedef struct xctx {
    psk_merged *m, *m2;
    const psk_extrap_opts *o;
    psk_extrap_report *rep;
    int P, P2, nd, D[MAXD], D2[MAXD];
    int per[MAXD];   /* periodic in dimension k: -1 not known (an inferred grid), 0, 1 */
    /* the first MPI_Cart_create over the world with its grid recorded
     * (rnd > 0), and the dims its MPI_Dims_create kept fixed (0 = free) */
    int rnd, rD[MAXD], rper[MAXD], rfixed[MAXD];
    /* pass 1: the last MPI_Dims_create(P, ...) seen, given and returned */
    int dcn, dcin[MAXD], dcout[MAXD];
    uint32_t nsets;
    xbox *box;
    int32_t *tmpl;   /* P2 rank -> its template rank of m */
    pdesc *pd;       /* per class of m, per peer field (2) */
    xrule rule;
} xctx;

/* a table of peers seen at P, for finding the grid */
typedef struct ptable {
    uint64_t event;
    unsigned fn;
    int np;
    int32_t *crank;
    int64_t *v;
} ptable;

/* pass 1 of a recording, for the fit */
typedef struct evstat {
    double *count, *gap; /* per event: mean over the ranks taking part */
} evstat;

/* merge_extrap.c: a refusal's message on x->m2, input the recording at
 * fault (-1: the options); returns PSK_EINVAL */
int xrefuse(xctx *x, int input, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int xnomem(xctx *x);
const char *xfname(unsigned fn); /* "?" for an unknown one */

/* ---- merge_extrap_grid.c: row-major coordinates, the last dimension fastest ---- */
void xgrid_coords(const int *D, int nd, int64_t r, int *c);
/* r moved by s along dim; PSK_PROC_NULL off a non-periodic end */
int64_t xgrid_shift(const int *D, int nd, int64_t r, int dim, int64_t s, int periodic);
/* MPI_Dims_create(n, nd); with the dims given kept (-1 if they cannot be) */
void xgrid_dims_create(int n, int nd, int *D);
int xgrid_dims_fixed(int n, int nd, const int *given, int *D);
/* 1 if t's peers are one shift on the grid D (its dim, s, periodic out) */
int xgrid_match_shift(const int *D, int nd, const int *known, const ptable *t, int *dim, int64_t *s,
                      int *periodic);
/* the world's grid at P into x (nd, D, per), from the peers' tables */
int xgrid_find(xctx *x, const ptable *t, int nt);
/* x->box from m's rank sets; refuses a set that is no box */
int xgrid_boxes(xctx *x);
/* the box's range in dimension k at P2: [*a, *z); whether c is in it */
void xgrid_box_range(const xctx *x, const xbox *b, int k, int *a, int *z);
int xgrid_in_box2(const xctx *x, const xbox *b, const int *c);
/* x->tmpl: each P2 rank's template */
int xgrid_templates(xctx *x);

/* ---- merge_extrap_scan.c: pass 1 ---- */
/* the same int array on every rank taking part, of at most MAXD values:
 * its length, the values in v; else -1 */
int xscan_grid_array(const psk_mevent *me, int f, int *v);
/* walks m: per event mean count and gap (if st), and for the base, the
 * checks and the tables of peers (if pt) */
int xscan_pass1(xctx *x, psk_merged *m, int input, evstat *st, ptable **pt, int *npt);

/* ---- merge_extrap_job.c, merge_extrap_events.c ---- */
/* x->m2's job header at P2 (x->tmpl made) */
int xjob_make(xctx *x);
/* pass 2: x->m2's events at P2 */
int xevents_pass2(xctx *x);

#endif
