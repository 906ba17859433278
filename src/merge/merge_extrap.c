/* Process-count extrapolation: the merged trace of P ranks rebuilt for P2.
 * Assumes an SPMD program whose patterns are rank-relative: every rank set
 * is a box of the world's grid (all ranks, or some left out at the ends of
 * a dimension), every peer a constant, rank + c, a ring, or a neighbour on
 * a Cartesian grid (a per-rank table that is a shift of the grid of the
 * trace's MPI_Cart_create over the world, whose dims and periods trace
 * format 3 records; for older traces, or a grid the peers do not follow, a
 * grid found from the peers). The grid at P2 is MPI_Dims_create's, with
 * the dims a recorded MPI_Dims_create kept fixed (and the rebuilt
 * MPI_Dims_create and MPI_Cart_create events carry it). Each P2 rank copies the times of a recorded rank
 * taking part in the same events (its template), scaled by the rule
 * (merge_extrap_rule.c); values local to a rank (requests, flags) are the
 * template's. Anything else (peers, roots, members or counts that differ
 * per rank otherwise) is refused with the event it is found at. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "merge_extrap.h"
#include "merge_internal.h"

int xrefuse(xctx *x, int input, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->m2->err, sizeof x->m2->err, fmt, ap);
    va_end(ap);
    x->rep->err_input = input;
    return PSK_EINVAL;
}
int xnomem(xctx *x) { return merged_fail(x->m2, PSK_ENOMEM, "out of memory"); }

const char *xfname(unsigned fn) { return psk_fn_name(fn) ? psk_fn_name(fn) : "?"; }

/* ---- the fit: per event of the folded program, through the recordings ---- */

/* As ScalaExtrap fits each event of its compressed trace, a model is
 * fitted per class (a call site with its peers: what fold makes one
 * symbol), on the mean over its events at each P: one event's gap alone
 * is noise that a power law would amplify. The recordings' events match
 * by position (checked: same length, same functions). */
static int fit_rule(xctx *x, psk_merged *const *in, int nin, evstat *st)
{
    psk_merged *m = x->m;
    uint32_t nc = psk_merged_nclasses(m);
    x->rule.fcount = malloc((m->n ? m->n : 1) * sizeof(double));
    x->rule.fgap = malloc((m->n ? m->n : 1) * sizeof(double));
    x->rule.mcount = malloc(m->n ? m->n : 1);
    x->rule.mgap = malloc(m->n ? m->n : 1);
    double *sum = calloc((size_t)(nc ? nc : 1) * 6, sizeof *sum), *fc = malloc((nc ? nc : 1) * 2 * sizeof *fc);
    uint64_t *cnt = calloc(nc ? nc : 1, sizeof *cnt);
    uint8_t *md = malloc((nc ? nc : 1) * 2);
    if (!x->rule.fcount || !x->rule.fgap || !x->rule.mcount || !x->rule.mgap || !sum || !fc || !cnt || !md) {
        free(sum), free(fc), free(cnt), free(md);
        return xnomem(x);
    }
    for (uint64_t e = 0; e < m->n; e++) {
        uint32_t c = m->cls[e];
        cnt[c]++;
        for (int k = 0; k < nin; k++)
            sum[6 * (size_t)c + k] += st[k].count[e], sum[6 * (size_t)c + 3 + k] += st[k].gap[e];
    }
    double P[3], yc[3], yg[3];
    for (int k = 0; k < nin; k++)
        P[k] = in[k]->nranks;
    for (uint32_t c = 0; c < nc; c++) {
        if (!cnt[c])
            continue;
        for (int k = 0; k < nin; k++)
            yc[k] = sum[6 * (size_t)c + k] / (double)cnt[c], yg[k] = sum[6 * (size_t)c + 3 + k] / (double)cnt[c];
        int model;
        fc[2 * c] = xrule_fit(P, yc, nin, x->P, x->P2, &model);
        md[2 * c] = (uint8_t)model;
        fc[2 * c + 1] = xrule_fit(P, yg, nin, x->P, x->P2, &model);
        md[2 * c + 1] = (uint8_t)model;
    }
    for (uint64_t e = 0; e < m->n; e++) {
        uint32_t c = m->cls[e];
        x->rule.fcount[e] = fc[2 * c], x->rule.mcount[e] = md[2 * c];
        x->rule.fgap[e] = fc[2 * c + 1], x->rule.mgap[e] = md[2 * c + 1];
    }
    free(sum), free(fc), free(cnt), free(md);
    return 0;
}

int psk_merged_extrapolate(psk_merged *m0, const psk_extrap_opts *o, psk_merged **out, psk_extrap_report *rep)
{
    memset(rep, 0, sizeof *rep);
    rep->err_input = 0;
    xctx x = {0};
    x.o = o;
    x.rep = rep;
    psk_merged *m2 = merged_new();
    *out = m2;
    if (!m2)
        return PSK_ENOMEM;
    x.m2 = m2;
    /* the inputs; the base (patterns and times) is the one with the most ranks */
    psk_merged *in[3] = {m0};
    int nin = 1;
    if (o->scale == PSK_SCALE_FIT) {
        if (o->nfit < 1 || o->nfit > 2)
            return xrefuse(&x, 0, "a fit takes one or two more recordings");
        for (int k = 0; k < o->nfit; k++)
            in[nin++] = o->fit[k];
    }
    int base = 0;
    for (int k = 1; k < nin; k++)
        if (in[k]->nranks > in[base]->nranks)
            base = k;
    rep->base = base;
    x.m = in[base];
    x.P = x.m->nranks;
    x.P2 = o->ranks;
    rep->from_ranks = x.P;
    rep->to_ranks = x.P2;
    rep->scale = o->scale;
    if (x.P2 < 1 || x.P2 > (1 << 24))
        return xrefuse(&x, -1, "--ranks %d: not a number of ranks", x.P2);
    int rc = 0;
    evstat st[3] = {{0}};
    for (int k = 0; k < nin && o->scale == PSK_SCALE_FIT; k++) {
        for (int i = 0; i < k; i++)
            if (in[i]->nranks == in[k]->nranks)
                return xrefuse(&x, k, "recorded at %d ranks like another of the fit: a fit needs different rank counts",
                               in[k]->nranks);
        if (in[k]->n != x.m->n)
            return xrefuse(&x, k, "%llu merged events, and the %d-rank recording has %llu: a fit needs the same "
                                  "events at each rank count",
                           (unsigned long long)in[k]->n, x.P, (unsigned long long)x.m->n);
        for (uint64_t e = 0; e < x.m->n; e++)
            if (in[k]->cinfo[in[k]->cls[e]].fn != x.m->cinfo[x.m->cls[e]].fn)
                return xrefuse(&x, k, "merged event %llu is %s, and %s in the %d-rank recording: a fit needs the same "
                                      "events at each rank count",
                               (unsigned long long)e, xfname(in[k]->cinfo[in[k]->cls[e]].fn),
                               xfname(x.m->cinfo[x.m->cls[e]].fn), x.P);
        st[k].count = malloc((x.m->n ? x.m->n : 1) * sizeof(double));
        st[k].gap = malloc((x.m->n ? x.m->n : 1) * sizeof(double));
        if (!st[k].count || !st[k].gap)
            rc = xnomem(&x);
    }
    ptable *pt = NULL;
    int npt = 0;
    for (int k = 0; k < nin && !rc; k++)
        if (k == base || o->scale == PSK_SCALE_FIT)
            rc = xscan_pass1(&x, in[k], k, o->scale == PSK_SCALE_FIT ? &st[k] : NULL, k == base ? &pt : NULL, &npt);
    if (!rc)
        rc = xgrid_find(&x, pt, npt);
    for (int i = 0; i < npt; i++)
        free(pt[i].crank), free(pt[i].v);
    free(pt);
    if (!rc) {
        rep->ndims = x.nd;
        if (rep->grid_recorded) {
            for (int k = 0; k < x.nd; k++)
                rep->periods[k] = x.per[k], rep->fixed[k] = x.rfixed[k];
            if (xgrid_dims_fixed(x.P2, x.nd, x.rfixed, x.D2))
                rc = xrefuse(&x, -1,
                             "--ranks %d: the recorded MPI_Dims_create kept dims whose product does not divide %d",
                             x.P2, x.P2);
        } else {
            xgrid_dims_create(x.P2, x.nd, x.D2);
        }
        if (x.nd == 1)
            x.D2[0] = x.P2;
        for (int k = 0; k < x.nd && !rc; k++) {
            rep->dims_from[k] = x.D[k];
            rep->dims_to[k] = x.D2[k];
            if (x.D2[k] < 2 && x.nd > 1 && !rep->grid_recorded)
                rc = xrefuse(&x, -1,
                             "--ranks %d: MPI_Dims_create gives a grid with a dimension of 1; the recorded %d-D "
                             "grid's neighbours need 2 or more in each",
                             x.P2, x.nd);
        }
    }
    if (!rc)
        rc = xgrid_boxes(&x);
    /* every box must fit the grid at P2 */
    for (uint32_t s = 0; s < x.nsets && !rc; s++)
        for (int k = 0; k < x.nd && !rc; k++) {
            int a, z;
            xgrid_box_range(&x, &x.box[s], k, &a, &z);
            if (a < 0 || z > x.D2[k] || a >= z)
                rc = xrefuse(&x, -1, "--ranks %d: too few ranks for the recorded ones taking part at the ends of the "
                                     "grid (%d first, %d last left out)",
                             x.P2, x.box[s].lo[k], x.box[s].hi[k]);
        }
    if (!rc)
        rc = xgrid_templates(&x);
    if (!rc && !(x.pd = calloc(2 * (size_t)psk_merged_nclasses(x.m) + 2, sizeof *x.pd)))
        rc = xnomem(&x);
    x.rule.scale = o->scale;
    x.rule.P = x.P;
    x.rule.P2 = x.P2;
    x.rule.nd = x.nd;
    if (!rc && o->scale == PSK_SCALE_FIT) {
        /* ascending P, base first for the fit's arrays */
        int ord[3] = {0, 1, 2};
        for (int i = 0; i < nin; i++)
            for (int j = i + 1; j < nin; j++)
                if (in[ord[j]]->nranks < in[ord[i]]->nranks) {
                    int t = ord[i];
                    ord[i] = ord[j];
                    ord[j] = t;
                }
        psk_merged *sin[3];
        evstat sst[3];
        for (int i = 0; i < nin; i++) {
            sin[i] = in[ord[i]];
            sst[i] = st[ord[i]];
            rep->fit_ranks[i] = in[ord[i]]->nranks;
        }
        rep->nfit_ranks = nin;
        rc = fit_rule(&x, sin, nin, sst);
    }
    if (!rc)
        rc = xjob_make(&x);
    if (!rc)
        rc = xevents_pass2(&x);
    if (!rc) {
        for (int r = 0; r < x.P2 && !rc; r++) /* same events as the template (same sets) */
            if (m2->rank[r].times.len == 0 && m2->rank[r].n)
                rc = xrefuse(&x, -1, "rank %d lost its events", r);
        xrule_report(&x.rule, rep);
    }
    for (int k = 0; k < 3; k++)
        free(st[k].count), free(st[k].gap);
    for (uint32_t s = 0; x.box && s < x.nsets; s++)
        free(x.box[s].list);
    free(x.box);
    free(x.tmpl);
    free(x.pd);
    free(x.rule.fcount), free(x.rule.fgap), free(x.rule.mcount), free(x.rule.mgap);
    return rc;
}
