/* perfskel advise: what one nest costs under a layout, with the DVM
 * Predictor's formulas (its detailed design, 2000, section 4: shadow renew
 * 4.3, reduction 4.4, remote buffers 4.5, ACROSS) as pinned down in
 * docs/advise.md "Costs". A processor's iterations and what it reads are
 * boxes; only the values of the outer seq loops (and of a loop another
 * loop's bounds depend on, when counting iterations) are enumerated. The
 * cost and the walk (psk_adv_nest_walk) share one path, nest_run, so they
 * cannot disagree. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"

/* ---- one nest ---- */

typedef struct nestctx {
    const psk_adv_program *p;
    const adv_nest *ns;
    const adv_layout *l;
    const psk_machine *m;
    const adv_walk *w;          /* NULL: the cost only */
    const adv_ref *home;
    int64_t P;
    int nouter;                 /* loops [0, nouter) are enumerated */
    int dep[ADV_MAXDIM];        /* a later loop's bounds use this loop's variable */
    int dist_axis[ADV_MAXDIM];  /* a distributed par/across loop's grid axis, else -1 */
    int64_t val[ADV_MAXDIM];    /* the outer loops' current values */
    adv_owntab *own;            /* narrays: built for the arrays read through
                                 * shadows or remotely */
} nestctx;
static int64_t eval(const adv_affine *f, const int64_t *v, int k)
{
    int64_t s = f->c0;
    for (int j = 0; j < k; j++)
        s += f->coef[j] * v[j];
    return s;
}

/* min (hi: max) of f over the box lo..hi of the first k variables */
static int64_t aff_ext(const adv_affine *f, const int64_t *lo, const int64_t *hi, int k, int max)
{
    int64_t s = f->c0;
    for (int j = 0; j < k; j++)
        s += f->coef[j] * (((f->coef[j] > 0) == (max != 0)) ? hi[j] : lo[j]);
    return s;
}

/* Processor coord's iterations at the current outer values: the
 * ownership constraint per loop (clo, chi) and the hull of each loop's
 * range (vlo, vhi; the outer loops at their values). 0: it runs none. */
static int proc_iters(const nestctx *c, const int64_t *coord, int64_t *clo, int64_t *chi, int64_t *vlo,
                      int64_t *vhi)
{
    const adv_nest *ns = c->ns;
    for (int k = 0; k < ns->nloops; k++)
        clo[k] = INT64_MIN / 4, chi[k] = INT64_MAX / 4;
    const adv_ref *h = c->home;
    if (h && !c->l->replicated[h->array]) {
        for (int e = 0; e < c->p->arrays[h->array].ndim; e++) {
            int ax;
            if (!psk_adv_dim_axis(c->l, h->array, e, &ax))
                continue;
            const adv_dimmap *mp = &c->l->map[h->array * ADV_MAXDIM + e];
            int64_t blo, bhi, lo, hi;
            if (!psk_adv_block(c->l, mp->tdim, coord[ax], &blo, &bhi))
                return 0;
            int v = h->sub_var[e];
            int64_t A = mp->coef * h->sub_coef[e], B = mp->coef * h->sub_off[e] + mp->off;
            if (v < 0 || v < c->nouter || A == 0) {
                int64_t pos = B + (v >= 0 ? A * c->val[v] : 0);
                if (pos < blo || pos > bhi)
                    return 0;
                continue;
            }
            if (!psk_adv_preimage(A, B, blo, bhi, &lo, &hi))
                return 0;
            if (lo > clo[v])
                clo[v] = lo;
            if (hi < chi[v])
                chi[v] = hi;
        }
    }
    for (int k = 0; k < ns->nloops; k++) {
        if (k < c->nouter) {
            vlo[k] = vhi[k] = c->val[k];
            continue;
        }
        vlo[k] = aff_ext(&ns->loops[k].lo, vlo, vhi, k, 0);
        vhi[k] = aff_ext(&ns->loops[k].hi, vlo, vhi, k, 1);
        if (clo[k] > vlo[k])
            vlo[k] = clo[k];
        if (chi[k] < vhi[k])
            vhi[k] = chi[k];
        if (vlo[k] > vhi[k])
            return 0;
    }
    return 1;
}

/* the exact number of iterations from loop k in: a loop another's bounds
 * use is enumerated, the others multiply */
static int64_t count_iters(const nestctx *c, int k, int64_t *env, const int64_t *clo, const int64_t *chi)
{
    if (k == c->ns->nloops)
        return 1;
    int64_t lo = eval(&c->ns->loops[k].lo, env, k), hi = eval(&c->ns->loops[k].hi, env, k);
    if (clo[k] > lo)
        lo = clo[k];
    if (chi[k] < hi)
        hi = chi[k];
    if (lo > hi)
        return 0;
    if (!c->dep[k])
        return (hi - lo + 1) * count_iters(c, k + 1, env, clo, chi);
    int64_t n = 0;
    for (int64_t v = lo; v <= hi; v++) {
        env[k] = v;
        n += count_iters(c, k + 1, env, clo, chi);
    }
    return n;
}

/* the box reference r reads over the loop ranges vlo..vhi (the hull of
 * c v + k: a stride |c| > 1 is not taken into account), clipped to the
 * array; 0 if empty */
static int ref_box(const psk_adv_program *p, const adv_ref *r, const int64_t *vlo, const int64_t *vhi,
                   int64_t *lo, int64_t *hi)
{
    const adv_array *x = &p->arrays[r->array];
    for (int d = 0; d < x->ndim; d++) {
        int v = r->sub_var[d];
        if (v < 0) {
            lo[d] = hi[d] = r->sub_off[d];
        } else {
            int64_t a = r->sub_coef[d] * vlo[v] + r->sub_off[d], b = r->sub_coef[d] * vhi[v] + r->sub_off[d];
            lo[d] = a < b ? a : b, hi[d] = a < b ? b : a;
        }
        if (lo[d] < 0)
            lo[d] = 0;
        if (hi[d] > x->extent[d] - 1)
            hi[d] = x->extent[d] - 1;
        if (lo[d] > hi[d])
            return 0;
    }
    return 1;
}

static int64_t meet(const int64_t *alo, const int64_t *ahi, const int64_t *blo, const int64_t *bhi, int nd)
{
    int64_t n = 1;
    for (int d = 0; d < nd; d++) {
        int64_t lo = alo[d] > blo[d] ? alo[d] : blo[d], hi = ahi[d] < bhi[d] ? ahi[d] : bhi[d];
        if (lo > hi)
            return 0;
        n *= hi - lo + 1;
    }
    return n;
}

/* Shadow renew (4.3): each non-empty processor sends the neighbour on the
 * other side of each offset its slab; the neighbour reading below it (a
 * `lo` width) is the one holding the indices above. Only the grid
 * neighbours (and diagonal ones for corners) are looked at. Slabs along a
 * pipelined axis (bit set in pipe_axes) go to pipe instead of sh. */
static int shadow_lists(const nestctx *c, const int *wlo, const int *whi, const int *corner, unsigned pipe_axes,
                        adv_mlist *sh, adv_mlist *pipe)
{
    const psk_adv_program *p = c->p;
    const adv_layout *l = c->l;
    int64_t P = c->P;
    for (int a = 0; a < p->narrays; a++) {
        const adv_array *x = &p->arrays[a];
        int any = 0;
        for (int d = 0; d < x->ndim; d++)
            any |= wlo[a * ADV_MAXDIM + d] | whi[a * ADV_MAXDIM + d];
        if (!any || psk_adv_everywhere(p, l, a))
            continue;
        const adv_owntab *ot = &c->own[a];
        for (int64_t r = 0; r < P; r++) {
            int64_t lo[ADV_MAXDIM], hi[ADV_MAXDIM], qlo[ADV_MAXDIM], qhi[ADV_MAXDIM];
            int64_t coord[ADV_MAXDIM], nc[ADV_MAXDIM];
            psk_adv_coords(&l->grid, r, coord);
            if (!psk_adv_own_get(ot, coord, lo, hi))
                continue;
            const int *axis = ot->axis;
            int64_t ext[ADV_MAXDIM], all = x->elsize;
            for (int d = 0; d < x->ndim; d++)
                ext[d] = hi[d] - lo[d] + 1, all *= ext[d];
            /* the neighbour holding the indices above (up = 1) or below
             * dimension d's: one step along its axis, against the
             * alignment's direction when coef is -1 */
            for (int d = 0; d < x->ndim; d++) {
                if (axis[d] < 0)
                    continue;
                int64_t step = l->map[a * ADV_MAXDIM + d].coef > 0 ? 1 : -1;
                for (int up = 0; up < 2; up++) {
                    int64_t w = up ? wlo[a * ADV_MAXDIM + d] : whi[a * ADV_MAXDIM + d];
                    if (w <= 0)
                        continue;
                    memcpy(nc, coord, sizeof nc);
                    nc[axis[d]] += up ? step : -step;
                    if (nc[axis[d]] < 0 || nc[axis[d]] >= l->grid.extent[axis[d]])
                        continue;
                    if (!psk_adv_own_get(ot, nc, qlo, qhi))
                        continue;
                    int64_t b = all / ext[d] * (w < ext[d] ? w : ext[d]);
                    if (psk_adv_mlist_add(((pipe_axes >> axis[d]) & 1) ? pipe : sh, r, psk_adv_rank_of(&l->grid, nc),
                                          b))
                        return PSK_ENOMEM;
                }
            }
            if (!corner[a])
                continue;
            /* corners: each pair of exchanged dimensions, the four diagonals */
            for (int d1 = 0; d1 < x->ndim; d1++)
                for (int d2 = d1 + 1; d2 < x->ndim; d2++) {
                    if (axis[d1] < 0 || axis[d2] < 0 || axis[d1] == axis[d2])
                        continue;
                    for (int u1 = 0; u1 < 2; u1++)
                        for (int u2 = 0; u2 < 2; u2++) {
                            int64_t w1 = u1 ? wlo[a * ADV_MAXDIM + d1] : whi[a * ADV_MAXDIM + d1];
                            int64_t w2 = u2 ? wlo[a * ADV_MAXDIM + d2] : whi[a * ADV_MAXDIM + d2];
                            if (w1 <= 0 || w2 <= 0)
                                continue;
                            int64_t s1 = l->map[a * ADV_MAXDIM + d1].coef > 0 ? 1 : -1;
                            int64_t s2 = l->map[a * ADV_MAXDIM + d2].coef > 0 ? 1 : -1;
                            memcpy(nc, coord, sizeof nc);
                            nc[axis[d1]] += u1 ? s1 : -s1;
                            nc[axis[d2]] += u2 ? s2 : -s2;
                            if (nc[axis[d1]] < 0 || nc[axis[d1]] >= l->grid.extent[axis[d1]] ||
                                nc[axis[d2]] < 0 || nc[axis[d2]] >= l->grid.extent[axis[d2]])
                                continue;
                            if (!psk_adv_own_get(ot, nc, qlo, qhi))
                                continue;
                            int64_t b = all / ext[d1] / ext[d2] * (w1 < ext[d1] ? w1 : ext[d1]) *
                                        (w2 < ext[d2] ? w2 : ext[d2]);
                            if (psk_adv_mlist_add(sh, r, psk_adv_rank_of(&l->grid, nc), b))
                                return PSK_ENOMEM;
                        }
                }
        }
    }
    if (psk_adv_mlist_merge(sh, P) || psk_adv_mlist_merge(pipe, P))
        return PSK_ENOMEM;
    return PSK_OK;
}

/* what one iteration of the outer loops (or the one execution) costs */
typedef struct itstate {
    adv_readref *reads;
    int nreads;
    adv_mlist rm;               /* remote access, rebuilt each outer iteration */
    adv_mlist sh, pipe, red;    /* shadow, pipeline slabs, reduction: the same each one */
    int64_t *vlo, *vhi;         /* P x ADV_MAXDIM: each processor's loop hulls */
    char *runs;                 /* P: runs something */
    double *cpu;                /* P: compute summed over the outer iterations */
    double *step;               /* P: this outer iteration's compute */
    double sh_us;               /* the shadow list's time (the same every iteration) */
    int64_t sh_msgs, sh_bytes, pipe_msgs, pipe_bytes, pipe_w;
    unsigned pipe_axes;
    double red_us;
    int64_t red_msgs, red_bytes;
    int64_t red_cut[2 * 64];    /* the reduction's phases: red.v[red_cut[i-1] .. red_cut[i]) */
    int nred_cut;
} itstate;

/* The walk of a pipeline (docs/advise.md "Walking a nest"): stage(r) is
 * the sum over the pipelined axes of r's coordinate, counted from the end
 * most of the axis's slab bytes flow from; E the largest stage. Step t =
 * 0 .. E + Q - 1: compute (r's compute / Q for each r with 0 <= t -
 * stage(r) < Q, else 0), then the messages of the senders with such a
 * chunk k = t - stage(src), in (src, dst) order, each pair's bytes split
 * over the chunks as floor(b (k+1) / Q) - floor(b k / Q) (0 bytes when b
 * < Q: still a message, as across_msgs counts). */
static int walk_pipeline(const nestctx *c, itstate *s, int64_t Q)
{
    const adv_grid *g = &c->l->grid;
    int64_t P = c->P, E = 0, n = s->pipe.n;
    int down[ADV_MAXDIM] = {0};
    int64_t sc[ADV_MAXDIM], dc[ADV_MAXDIM];
    for (int ax = 0; ax < g->naxes; ax++) {
        if (!((s->pipe_axes >> ax) & 1))
            continue;
        int64_t up = 0, dn = 0;
        for (int64_t i = 0; i < n; i++) {
            psk_adv_coords(g, s->pipe.v[i].src, sc);
            psk_adv_coords(g, s->pipe.v[i].dst, dc);
            if (dc[ax] > sc[ax])
                up += s->pipe.v[i].bytes;
            else if (dc[ax] < sc[ax])
                dn += s->pipe.v[i].bytes;
        }
        down[ax] = dn > up;
        E += g->extent[ax] - 1;
    }
    int64_t *stage = malloc((size_t)P * sizeof *stage);
    double *us = malloc((size_t)P * sizeof *us);
    adv_msg *buf = malloc((size_t)(n > 0 ? n : 1) * sizeof *buf);
    int rc = PSK_ENOMEM;
    if (!stage || !us || !buf)
        goto out;
    for (int64_t r = 0; r < P; r++) {
        psk_adv_coords(g, r, sc);
        stage[r] = 0;
        for (int ax = 0; ax < g->naxes; ax++)
            if ((s->pipe_axes >> ax) & 1)
                stage[r] += down[ax] ? g->extent[ax] - 1 - sc[ax] : sc[ax];
    }
    rc = PSK_OK;
    for (int64_t t = 0; t < E + Q && !rc; t++) {
        for (int64_t r = 0; r < P; r++) {
            int64_t k = t - stage[r];
            us[r] = k >= 0 && k < Q ? s->step[r] / (double)Q : 0;
        }
        if ((rc = c->w->compute(c->w->ctx, us)))
            break;
        int64_t m = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t k = t - stage[s->pipe.v[i].src], b = s->pipe.v[i].bytes;
            if (k < 0 || k >= Q)
                continue;
            int64_t part = b / Q + (b % Q) * (k + 1) / Q - (b % Q) * k / Q;
            buf[m++] = (adv_msg){s->pipe.v[i].src, s->pipe.v[i].dst, part};
        }
        if (m)
            rc = c->w->ops(c->w->ctx, ADV_OP_ACROSS, buf, m);
    }
out:
    free(stage), free(us), free(buf);
    return rc;
}

static int one_iteration(nestctx *c, itstate *s, adv_cost *out)
{
    const psk_adv_program *p = c->p;
    const adv_nest *ns = c->ns;
    const adv_walk *w = c->w;
    int64_t P = c->P;
    double cmax = 0;
    int64_t U = 1; /* the pipeline's undistributed extent: the largest */
    int rc;
    for (int64_t r = 0; r < P; r++) {
        int64_t coord[ADV_MAXDIM], clo[ADV_MAXDIM], chi[ADV_MAXDIM], env[ADV_MAXDIM];
        int64_t *vlo = &s->vlo[r * ADV_MAXDIM], *vhi = &s->vhi[r * ADV_MAXDIM];
        psk_adv_coords(&c->l->grid, r, coord);
        s->step[r] = 0;
        s->runs[r] = (char)proc_iters(c, coord, clo, chi, vlo, vhi);
        if (!s->runs[r])
            continue;
        memcpy(env, c->val, sizeof env);
        int64_t it = count_iters(c, c->nouter, env, clo, chi);
        double t = ns->work_us * (double)it / psk_machine_power(c->m, (int)r);
        s->cpu[r] += t;
        s->step[r] = t;
        if (t > cmax)
            cmax = t;
        int64_t u = 1;
        for (int k = ns->first_par; k < ns->end_par; k++)
            if (!(ns->loops[k].kind == ADV_ACROSS && c->dist_axis[k] >= 0 &&
                  ((s->pipe_axes >> c->dist_axis[k]) & 1)))
                u *= vhi[k] - vlo[k] + 1;
        if (u > U)
            U = u;
    }
    out->compute_us += cmax;

    /* remote access (4.5): per array the hull of its remote references'
     * boxes, minus what the reader owns, from the owners with its
     * coordinates on the array's replicated axes whose blocks meet it */
    s->rm.n = 0;
    for (int a = 0; a < p->narrays; a++) {
        int any = 0;
        for (int i = 0; i < s->nreads; i++)
            any |= s->reads[i].cls == ADV_REMOTE && s->reads[i].r->array == a;
        if (!any)
            continue;
        const adv_array *x = &p->arrays[a];
        unsigned da = psk_adv_dist_axes(p, c->l, a);
        for (int64_t r = 0; r < P; r++) {
            if (!s->runs[r])
                continue;
            int64_t lo[ADV_MAXDIM], hi[ADV_MAXDIM], blo[ADV_MAXDIM], bhi[ADV_MAXDIM];
            int have = 0;
            for (int i = 0; i < s->nreads; i++) {
                if (s->reads[i].cls != ADV_REMOTE || s->reads[i].r->array != a ||
                    !ref_box(p, s->reads[i].r, &s->vlo[r * ADV_MAXDIM], &s->vhi[r * ADV_MAXDIM], blo, bhi))
                    continue;
                for (int d = 0; d < x->ndim; d++) {
                    if (!have || blo[d] < lo[d])
                        lo[d] = blo[d];
                    if (!have || bhi[d] > hi[d])
                        hi[d] = bhi[d];
                }
                have = 1;
            }
            int64_t rc_[ADV_MAXDIM], clo[ADV_MAXDIM], chi[ADV_MAXDIM], qc[ADV_MAXDIM];
            if (!have || !psk_adv_owner_range(p, c->l, a, lo, hi, clo, chi))
                continue;
            psk_adv_coords(&c->l->grid, r, rc_);
            for (int ax = 0; ax < c->l->grid.naxes; ax++)
                if (!((da >> ax) & 1))
                    clo[ax] = chi[ax] = rc_[ax];
            memcpy(qc, clo, sizeof qc);
            do {
                int64_t q = psk_adv_rank_of(&c->l->grid, qc), ol[ADV_MAXDIM], oh[ADV_MAXDIM];
                if (q == r || !psk_adv_own_get(&c->own[a], qc, ol, oh))
                    continue;
                if (psk_adv_mlist_add(&s->rm, q, r, meet(lo, hi, ol, oh, x->ndim) * x->elsize))
                    return PSK_ENOMEM;
            } while (psk_adv_next_coord(c->l->grid.naxes, clo, chi, qc));
        }
    }
    if (psk_adv_mlist_merge(&s->rm, P))
        return PSK_ENOMEM;
    double rus;
    if ((rc = psk_adv_transfer_list(s->rm.v, s->rm.n, P, c->m, &rus)))
        return rc;
    out->remote_us += rus;
    psk_adv_mlist_count(&s->rm, &out->remote_msgs, &out->remote_bytes);

    out->shadow_us += s->sh_us;
    out->shadow_msgs += s->sh_msgs, out->shadow_bytes += s->sh_bytes;
    out->reduce_us += s->red_us;
    out->reduce_msgs += s->red_msgs, out->reduce_bytes += s->red_bytes;

    if (w && s->rm.n && (rc = w->ops(w->ctx, ADV_OP_REMOTE, s->rm.v, s->rm.n)))
        return rc;
    if (w && s->sh.n && (rc = w->ops(w->ctx, ADV_OP_SHADOW, s->sh.v, s->sh.n)))
        return rc;
    if (s->pipe_axes) {
        /* ACROSS: (E + Q)(C / Q + Ts + Tb W / Q) = E A / Q + A + E Ts + Q Ts
         * with A = C + Tb W: convex in Q, its integer minimum next to
         * sqrt(E A / Ts) */
        int64_t E = 0;
        for (int ax = 0; ax < c->l->grid.naxes; ax++)
            if ((s->pipe_axes >> ax) & 1)
                E += c->l->grid.extent[ax] - 1;
        double ts = c->m->start_us, tb = c->m->byte_us, A = cmax + tb * (double)s->pipe_w;
        int64_t cand[5] = {1, U, 1, 1, 1};
        if (ts > 0) {
            double q = sqrt((double)E * A / ts);
            if (q > (double)U)
                q = (double)U;
            cand[2] = (int64_t)floor(q), cand[3] = cand[2] + 1, cand[4] = cand[2] - 1;
        } else {
            cand[2] = U;
        }
        double best = -1;
        int64_t bq = 1;
        for (int i = 0; i < 5; i++) {
            int64_t Q = cand[i] < 1 ? 1 : cand[i] > U ? U : cand[i];
            double v = (double)(E + Q) * (cmax / (double)Q + ts + tb * (double)s->pipe_w / (double)Q);
            if (best < 0 || v < best || (v == best && Q < bq))
                best = v, bq = Q;
        }
        out->across_us += best;
        out->chunks = bq;
        out->across_msgs += bq * s->pipe_msgs;
        out->across_bytes += s->pipe_bytes;
        if (w && (rc = walk_pipeline(c, s, bq)))
            return rc;
    } else if (w && (rc = w->compute(w->ctx, s->step))) {
        return rc;
    }
    for (int i = 0; w && i < s->nred_cut; i++) {
        int64_t lo = i ? s->red_cut[i - 1] : 0, n = s->red_cut[i] - lo;
        if (n && (rc = w->ops(w->ctx, ADV_OP_REDUCE, s->red.v + lo, n)))
            return rc;
    }
    return PSK_OK;
}

/* 1 if outer loop k's value changes anything inside it: a subscript uses
 * its variable, or a later loop's bounds do */
static int outer_matters(const adv_nest *ns, int k)
{
    for (int j = k + 1; j < ns->nloops; j++)
        if (ns->loops[j].lo.coef[k] || ns->loops[j].hi.coef[k])
            return 1;
    for (int i = 0; i < ns->nstmts; i++) {
        const adv_stmt *st = &ns->stmts[i];
        for (int d = 0; st->lhs_array >= 0 && d < ADV_MAXDIM; d++)
            if (st->lhs.sub_var[d] == k && st->lhs.sub_coef[d])
                return 1;
        for (int r = 0; r < st->nreads; r++)
            for (int d = 0; d < ADV_MAXDIM; d++)
                if (st->reads[r].sub_var[d] == k && st->reads[r].sub_coef[d])
                    return 1;
    }
    return 0;
}

void psk_adv_loop_hulls(const adv_nest *ns, double *lo, double *hi)
{
    for (int k = 0; k < ns->nloops; k++) {
        const adv_loop *lp = &ns->loops[k];
        double a = (double)lp->lo.c0, b = (double)lp->hi.c0;
        for (int j = 0; j < k; j++) {
            double ca = (double)lp->lo.coef[j], cb = (double)lp->hi.coef[j];
            a += ca < 0 ? ca * hi[j] : ca * lo[j];
            b += cb < 0 ? cb * lo[j] : cb * hi[j];
        }
        lo[k] = a;
        hi[k] = b;
    }
}

int64_t psk_adv_outer_steps(const psk_adv_program *p, int n, int all)
{
    const adv_nest *ns = &p->nests[n];
    int nouter = ns->first_par < ns->end_par ? ns->first_par : 0;
    double lo[ADV_MAXDIM], hi[ADV_MAXDIM];
    psk_adv_loop_hulls(ns, lo, hi);
    int64_t steps = 1;
    for (int k = 0; k < nouter; k++) {
        if (!(lo[k] >= -9e18 && hi[k] <= 9e18))
            return INT64_MAX;
        if (!all && !outer_matters(ns, k))
            continue;
        int64_t l = (int64_t)lo[k], h = (int64_t)hi[k];
        int64_t trip = h >= l ? h - l + 1 : 0;
        if (trip == 0)
            return 0;
        steps = steps > INT64_MAX / trip ? INT64_MAX : steps * trip;
    }
    return steps;
}

/* before + (after - before) x trip, saturating */
static int64_t scale_i(int64_t before, int64_t after, int64_t trip)
{
    int64_t r;
    if (__builtin_mul_overflow(after - before, trip, &r) || __builtin_add_overflow(before, r, &r))
        return INT64_MAX;
    return r;
}

#define SCALE(f) out->f = before.f + (out->f - before.f) * (double)trip
#define SCALE_I(f) out->f = scale_i(before.f, out->f, trip)
static int outer_loops(nestctx *c, itstate *s, int k, adv_cost *out)
{
    if (k >= c->nouter || k >= ADV_MAXDIM) /* nouter <= ADV_MAXDIM: the second is for the compiler */
        return one_iteration(c, s, out);
    const adv_loop *lp = &c->ns->loops[k];
    int64_t lo = eval(&lp->lo, c->val, k), hi = eval(&lp->hi, c->val, k);
    if (!c->w && hi > lo && !outer_matters(c->ns, k)) {
        /* every iteration costs alike: one, times the trip count (the
         * walk, for a trace, still goes through each) */
        int64_t trip = hi - lo + 1;
        adv_cost before = *out;
        double *cpu0 = malloc((size_t)c->P * sizeof *cpu0);
        if (!cpu0)
            return PSK_ENOMEM;
        memcpy(cpu0, s->cpu, (size_t)c->P * sizeof *cpu0);
        c->val[k] = lo;
        int rc = outer_loops(c, s, k + 1, out);
        if (!rc) {
            SCALE(compute_us), SCALE(shadow_us), SCALE(remote_us), SCALE(reduce_us), SCALE(across_us);
            SCALE_I(shadow_msgs), SCALE_I(shadow_bytes), SCALE_I(remote_msgs), SCALE_I(remote_bytes);
            SCALE_I(reduce_msgs), SCALE_I(reduce_bytes), SCALE_I(across_msgs), SCALE_I(across_bytes);
            for (int64_t r = 0; r < c->P; r++)
                s->cpu[r] = cpu0[r] + (s->cpu[r] - cpu0[r]) * (double)trip;
        }
        free(cpu0);
        return rc;
    }
    for (int64_t v = lo; v <= hi; v++) {
        c->val[k] = v;
        int rc = outer_loops(c, s, k + 1, out);
        if (rc)
            return rc;
    }
    return PSK_OK;
}
#undef SCALE
#undef SCALE_I

/* Reduction (4.4): R + P - 2 messages of S bytes on every network: the
 * gather along the section of the loop's axes that holds rank 0 (the
 * ranks whose coordinates on the other axes are 0; the other sections
 * hold the same partial results) to rank 0, each member in ascending
 * rank, then rank 0's broadcast to ranks 1 .. P-1 in ascending order. The
 * time is per network type. */
static int reduction(const nestctx *c, itstate *s)
{
    const adv_nest *ns = c->ns;
    const psk_adv_program *p = c->p;
    int64_t S = 0;
    for (int i = 0; i < ns->nstmts; i++) {
        int sc = ns->stmts[i].lhs_scalar, seen = 0;
        if (ns->stmts[i].lhs_array >= 0 || sc < 0)
            continue;
        for (int j = 0; j < i; j++)
            seen |= ns->stmts[j].lhs_array < 0 && ns->stmts[j].lhs_scalar == sc;
        if (!seen)
            S += p->scalars[sc].elsize;
    }
    unsigned axes = 0;
    for (int k = ns->first_par; k < ns->end_par; k++)
        if (c->dist_axis[k] >= 0)
            axes |= 1u << c->dist_axis[k];
    if (!S || !axes)
        return PSK_OK;
    int64_t R = 1, P = c->P;
    for (int ax = 0; ax < c->l->grid.naxes; ax++)
        if ((axes >> ax) & 1)
            R *= c->l->grid.extent[ax];
    /* the members of the section of the loop axes holding rank 0, in
     * ascending rank */
    int64_t lo[ADV_MAXDIM], hi[ADV_MAXDIM], qc[ADV_MAXDIM], *mem = malloc((size_t)R * sizeof *mem), nm = 0;
    if (!mem)
        return PSK_ENOMEM;
    for (int ax = 0; ax < c->l->grid.naxes; ax++)
        lo[ax] = 0, hi[ax] = ((axes >> ax) & 1) ? c->l->grid.extent[ax] - 1 : 0;
    memcpy(qc, lo, sizeof qc);
    do
        mem[nm++] = psk_adv_rank_of(&c->l->grid, qc);
    while (psk_adv_next_coord(c->l->grid.naxes, lo, hi, qc));
    int rc = PSK_OK, tree = c->m->type == PSK_NET_SWITCH;
    s->nred_cut = 0;
    if (tree) {
        /* binomial trees, a phase per round: member i sends to i - k when
         * i mod 2k = k (k = 1, 2, 4 ...), then ranks q < k send to q + k */
        for (int64_t k = 1; k < R && !rc; k *= 2) {
            for (int64_t i = k; i < R && !rc; i += 2 * k)
                rc = psk_adv_mlist_add(&s->red, mem[i], mem[i - k], S);
            s->red_cut[s->nred_cut++] = s->red.n;
        }
        for (int64_t k = 1; k < P && !rc; k *= 2) {
            for (int64_t q = 0; q < k && q + k < P && !rc; q++)
                rc = psk_adv_mlist_add(&s->red, q, q + k, S);
            s->red_cut[s->nred_cut++] = s->red.n;
        }
    } else {
        /* linear: the members to rank 0, then rank 0 to every rank */
        for (int64_t i = 1; i < R && !rc; i++)
            rc = psk_adv_mlist_add(&s->red, mem[i], 0, S);
        s->red_cut[s->nred_cut++] = s->red.n;
        for (int64_t q = 1; q < P && !rc; q++)
            rc = psk_adv_mlist_add(&s->red, 0, q, S);
        s->red_cut[s->nred_cut++] = s->red.n;
    }
    free(mem);
    if (rc)
        return rc;
    double msg = psk_machine_msg_us(c->m, S, 0), steps;
    if (tree) {
        steps = s->nred_cut; /* a message a round at most per processor */
    } else if (c->m->type == PSK_NET_GRID) {
        int64_t d = 0;
        for (int ax = 0; ax < c->l->grid.naxes; ax++)
            d += ((axes >> ax) & 1) ? 2 * (c->l->grid.extent[ax] / 2) : c->l->grid.extent[ax] - 1;
        steps = (double)d;
    } else {
        steps = (double)s->red.n;
    }
    s->red_us = msg * steps;
    psk_adv_mlist_count(&s->red, &s->red_msgs, &s->red_bytes);
    return PSK_OK;
}

/* the one path both psk_adv_nest_cost and psk_adv_nest_walk take: what
 * moves is decided here once, costed, and given to w when there is one */
static int nest_run(const psk_adv_program *p, int n, const adv_layout *l, const psk_machine *m,
                    const adv_walk *w, adv_cost *out)
{
    memset(out, 0, sizeof *out);
    nestctx c = {.p = p, .ns = &p->nests[n], .l = l, .m = m, .w = w};
    itstate s;
    memset(&s, 0, sizeof s);
    const adv_nest *ns = c.ns;
    int rc = PSK_ENOMEM;
    int *wlo = NULL, *whi = NULL, *corner = NULL;
    c.P = psk_adv_nprocs(&l->grid);
    c.home = psk_adv_home(p, n);
    c.nouter = ns->first_par < ns->end_par ? ns->first_par : 0;
    for (int k = 0; k < ns->nloops; k++) {
        c.dist_axis[k] = -1;
        for (int j = k + 1; j < ns->nloops; j++)
            c.dep[k] |= ns->loops[j].lo.coef[k] != 0 || ns->loops[j].hi.coef[k] != 0;
    }
    if (c.home && !l->replicated[c.home->array])
        for (int e = 0; e < p->arrays[c.home->array].ndim; e++) {
            int ax, v = c.home->sub_var[e];
            if (v >= ns->first_par && v < ns->end_par && c.dist_axis[v] < 0 &&
                psk_adv_dim_axis(l, c.home->array, e, &ax))
                c.dist_axis[v] = ax;
        }
    for (int k = ns->first_par; k < ns->end_par; k++)
        if (ns->loops[k].kind == ADV_ACROSS && c.dist_axis[k] >= 0)
            s.pipe_axes |= 1u << c.dist_axis[k];
    out->pipelined = s.pipe_axes != 0;

    size_t P = (size_t)c.P, na = (size_t)(p->narrays > 0 ? p->narrays : 1);
    c.own = calloc(na, sizeof *c.own);
    wlo = calloc(na * ADV_MAXDIM, sizeof *wlo);
    whi = calloc(na * ADV_MAXDIM, sizeof *whi);
    corner = calloc(na, sizeof *corner);
    s.vlo = calloc(P * ADV_MAXDIM, sizeof *s.vlo);
    s.vhi = calloc(P * ADV_MAXDIM, sizeof *s.vhi);
    s.runs = calloc(P, 1);
    s.cpu = calloc(P, sizeof *s.cpu);
    s.step = calloc(P, sizeof *s.step);
    if (!c.own || !wlo || !whi || !corner || !s.vlo || !s.vhi || !s.runs || !s.cpu || !s.step)
        goto done;
    if ((rc = psk_adv_collect_reads(p, n, l, &s.reads, &s.nreads)) != PSK_OK ||
        (rc = psk_adv_nest_widths(p, n, l, wlo, whi, corner)) != PSK_OK)
        goto done;
    for (int i = 0; i < s.nreads; i++) {
        int a = s.reads[i].r->array;
        if (s.reads[i].cls != ADV_LOCAL && !c.own[a].buf && (rc = psk_adv_own_build(p, l, a, &c.own[a])))
            goto done;
    }
    if ((rc = shadow_lists(&c, wlo, whi, corner, s.pipe_axes, &s.sh, &s.pipe)) ||
        (rc = psk_adv_transfer_list(s.sh.v, s.sh.n, c.P, m, &s.sh_us)))
        goto done;
    psk_adv_mlist_count(&s.sh, &s.sh_msgs, &s.sh_bytes);
    psk_adv_mlist_count(&s.pipe, &s.pipe_msgs, &s.pipe_bytes);
    for (int64_t i = 0; i < s.pipe.n; i++)
        if (s.pipe.v[i].bytes > s.pipe_w)
            s.pipe_w = s.pipe.v[i].bytes;
    if ((rc = reduction(&c, &s)) || (rc = outer_loops(&c, &s, 0, out)))
        goto done;

    double sum = 0;
    for (size_t r = 0; r < P; r++)
        sum += s.cpu[r];
    out->compute_avg_us = sum / (double)P;
    out->total_us = (out->pipelined ? out->across_us : out->compute_us) + out->shadow_us + out->remote_us +
                    out->reduce_us;
    rc = PSK_OK;
done:
    if (c.own)
        for (size_t a = 0; a < na; a++)
            psk_adv_own_free(&c.own[a]);
    free(c.own);
    free(wlo);
    free(whi);
    free(corner);
    free(s.reads);
    free(s.rm.v), free(s.sh.v), free(s.pipe.v), free(s.red.v);
    free(s.vlo);
    free(s.vhi);
    free(s.runs);
    free(s.cpu);
    free(s.step);
    return rc;
}

int psk_adv_nest_cost(const psk_adv_program *p, int n, const adv_layout *l, const psk_machine *m,
                      adv_cost *out)
{
    return nest_run(p, n, l, m, NULL, out);
}

int psk_adv_nest_walk(const psk_adv_program *p, int n, const adv_layout *l, const psk_machine *m,
                      const adv_walk *w)
{
    adv_cost k;
    return nest_run(p, n, l, m, w, &k);
}
