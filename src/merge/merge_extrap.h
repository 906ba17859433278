/* Internals of process-count extrapolation (merge_extrap.c): the scaling
 * rules, kept in one place (merge_extrap_rule.c). A rule gives the factor
 * applied to an event's message counts and to the compute gaps before it,
 * and counts what it was applied to for the report. */
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

#endif
