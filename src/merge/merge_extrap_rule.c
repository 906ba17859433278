/* The scaling rules of process-count extrapolation, in one place: weak
 * (per-rank sizes and compute kept), strong (per-rank work divided by
 * P2/P; a d-D halo by (P2/P)^((d-1)/d), its surface; reductions keep
 * their size; gathers a piece per rank, alltoalls a piece per pair), and
 * fit (ScalaExtrap's idea: per event, a*P^b or a + b/P through the
 * recorded values, the smaller residual chosen). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "merge_extrap.h"
#include "merge_internal.h"

const char *psk_scale_name(int scale)
{
    static const char *const n[] = {"weak", "strong", "fit"};
    return scale >= 0 && scale <= PSK_SCALE_FIT ? n[scale] : "?";
}

const char *xrule_model_name(int model)
{
    static const char *const n[] = {"constant", "a*P^b", "a+b/P"};
    return model >= 0 && model < XM_N ? n[model] : "?";
}

int xrule_category(unsigned fn, int neighbour)
{
    int cls = psk_fn_class(fn);
    const char *n = psk_fn_name(fn);
    if (!n)
        return XC_NONE;
    if (cls == PSK_CLASS_P2P || cls == PSK_CLASS_PERSIST)
        return neighbour ? XC_NEIGHBOUR : XC_P2P;
    if (cls != PSK_CLASS_COLL && cls != PSK_CLASS_ICOLL)
        return XC_NONE;
    if (strstr(n, "lltoall"))
        return XC_ALLTOALL;
    if (strstr(n, "ather") || strstr(n, "catter"))
        return strstr(n, "Reduce_scatter") ? XC_REDUCE : XC_GATHER;
    return XC_REDUCE;
}

/* least squares of y = a + b x; the sum of squared relative residuals */
static double linfit(const double *x, const double *y, const double *w, int n, double *a, double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++)
        sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
    double d = n * sxx - sx * sx;
    *b = d != 0 ? (n * sxy - sx * sy) / d : 0;
    *a = (sy - *b * sx) / n;
    double res = 0;
    for (int i = 0; i < n; i++) {
        double e = (*a + *b * x[i] - y[i]) / (w[i] != 0 ? w[i] : 1);
        res += e * e;
    }
    return res;
}

double xrule_fit(const double *P, const double *y, int n, double Pbase, double P2, int *model)
{
    int same = 1;
    for (int i = 1; i < n; i++)
        same &= fabs(y[i] - y[0]) <= 1e-9 * fabs(y[0]);
    if (same) {
        *model = XM_CONST;
        return 1;
    }
    double x[3], ly[3], a, b, best = INFINITY, f = 1;
    int pos = 1;
    for (int i = 0; i < n; i++)
        pos &= y[i] > 0;
    /* residuals are relative to the recorded values (y in the original units) */
    if (pos) {
        for (int i = 0; i < n; i++)
            x[i] = log(P[i]), ly[i] = log(y[i]);
        double one[3] = {1, 1, 1};
        linfit(x, ly, one, n, &a, &b);
        double res = 0;
        for (int i = 0; i < n; i++) {
            double e = (exp(a) * pow(P[i], b) - y[i]) / y[i];
            res += e * e;
        }
        best = res;
        *model = XM_POWER;
        f = pow(P2 / Pbase, b);
    }
    for (int i = 0; i < n; i++)
        x[i] = 1 / P[i];
    double res = linfit(x, y, y, n, &a, &b);
    /* with two points both fit exactly: a*P^b is kept (docs/simulation.md) */
    if (res < best - 1e-12) {
        *model = XM_INVERSE;
        double g0 = a + b / Pbase, g2 = a + b / P2;
        f = g0 > 0 ? (g2 > 0 ? g2 / g0 : 0) : 1;
    }
    return f;
}

double xrule_count_factor(xrule *r, uint64_t e, int cat)
{
    if (cat == XC_NONE)
        return 1;
    r->ucat[cat]++;
    if (r->scale == PSK_SCALE_FIT) {
        r->umodel[0][r->mcount[e]]++;
        return r->fcount[e];
    }
    if (r->scale == PSK_SCALE_WEAK)
        return 1;
    double q = r->P / r->P2;
    switch (cat) {
    case XC_NEIGHBOUR:
        return r->nd > 1 ? pow(q, (double)(r->nd - 1) / r->nd) : 1;
    case XC_P2P:
    case XC_GATHER:
        return q;
    case XC_ALLTOALL:
        return q * q;
    default:
        return 1;
    }
}

double xrule_gap_factor(xrule *r, uint64_t e)
{
    r->ugap++;
    if (r->scale == PSK_SCALE_FIT) {
        r->umodel[1][r->mgap[e]]++;
        return r->fgap[e];
    }
    return r->scale == PSK_SCALE_STRONG ? r->P / r->P2 : 1;
}

static void item(psk_extrap_report *rep, uint64_t n, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void item(psk_extrap_report *rep, uint64_t n, const char *what, const char *fmt, ...)
{
    if (!n || rep->nitems == PSK_EXTRAP_MAXITEMS)
        return;
    psk_extrap_item *it = &rep->item[rep->nitems++];
    snprintf(it->what, sizeof it->what, "%s", what);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(it->rule, sizeof it->rule, fmt, ap);
    va_end(ap);
    it->events = n;
}

void xrule_report(const xrule *r, psk_extrap_report *rep)
{
    rep->nitems = 0;
    uint64_t nc = 0;
    for (int c = 0; c < XC_NCAT; c++)
        nc += r->ucat[c];
    if (r->scale == PSK_SCALE_WEAK) {
        item(rep, r->ugap, "compute gaps", "unchanged (weak: per-rank compute kept)");
        item(rep, nc, "message sizes", "unchanged (weak: per-rank sizes kept)");
        return;
    }
    double q = r->P / r->P2;
    if (r->scale == PSK_SCALE_STRONG) {
        item(rep, r->ugap, "compute gaps", "x %.6g (P/P2)", q);
        char w[96];
        snprintf(w, sizeof w, "message sizes, neighbours on the %d-D grid", r->nd);
        if (r->nd > 1)
            item(rep, r->ucat[XC_NEIGHBOUR], w, "x %.6g ((P/P2)^(%d/%d), the halo's surface)",
                 pow(q, (double)(r->nd - 1) / r->nd), r->nd - 1, r->nd);
        else
            item(rep, r->ucat[XC_NEIGHBOUR], w, "unchanged (a 1-D halo keeps its size)");
        item(rep, r->ucat[XC_P2P], "message sizes, other point-to-point", "x %.6g (P/P2)", q);
        item(rep, r->ucat[XC_REDUCE], "message sizes, reductions, broadcasts, scans",
             "unchanged (a result of fixed size)");
        item(rep, r->ucat[XC_GATHER], "message sizes, gathers, scatters, allgathers", "x %.6g (P/P2: a piece per rank)", q);
        item(rep, r->ucat[XC_ALLTOALL], "message sizes, alltoalls", "x %.6g ((P/P2)^2: a piece per pair)", q * q);
        return;
    }
    char pts[64];
    int w = 0;
    for (int i = 0; i < rep->nfit_ranks; i++)
        w += snprintf(pts + w, sizeof pts - (size_t)w, "%s%d", i ? "," : "", rep->fit_ranks[i]);
    for (int k = 0; k < 2; k++)
        for (int md = 0; md < XM_N; md++)
            item(rep, r->umodel[k][md], k ? "compute gaps" : "message sizes",
                 md == XM_CONST ? "constant (equal at P=%s)"
                 : md == XM_POWER ? (rep->nfit_ranks == 2 ? "a*P^b (fitted at P=%s; two points fit both models, a*P^b kept)"
                                                        : "a*P^b (fitted at P=%s, residual at most a+b/P's)")
                                  : "a+b/P (fitted at P=%s, smaller residual than a*P^b)",
                 pts);
}
