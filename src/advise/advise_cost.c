/* perfskel advise: what a nest costs under a layout, and a redistribution
 * between two layouts: seed 003 section 4 (DVM's Predictor: GetCost 4.2,
 * shadow renew 4.3, reduction 4.4, remote buffers 4.5, ACROSS) as pinned
 * down in docs/advise.md "Costs". A processor's iterations, what it reads
 * and what it owns are boxes (an interval per loop or array dimension);
 * only the values of the outer seq loops (and of a loop another loop's
 * bounds depend on, when counting iterations) are enumerated. Transfer
 * matrices are P x P bytes, t[src * P + dst]. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"

/* ---- transfer time (GetCost) ---- */

static int64_t node_of(const psk_machine *m, int64_t r)
{
    return r / (m->ranks_per_node > 0 ? m->ranks_per_node : 1);
}

/* hops between two nodes: Manhattan distance of their row-major
 * coordinates on the topology; a node beyond its cells gets them from an
 * unbounded first dimension (a line of nodes without a topology) */
static int64_t hops(const psk_machine *m, int64_t na, int64_t nb)
{
    int64_t d = 0;
    for (int k = m->ntopo - 1; k >= 1; k--) {
        int64_t e = m->topo[k] > 0 ? m->topo[k] : 1;
        int64_t x = na % e - nb % e;
        d += x < 0 ? -x : x;
        na /= e, nb /= e;
    }
    return d + (na > nb ? na - nb : nb - na);
}

static double pipe_time(int64_t l, int64_t L, int64_t S, double ts, double tb)
{
    return (double)(l - 1 + (L + S - 1) / S) * (ts + tb * (double)S);
}

/* min over integer S in 1..L of (l - 1 + ceil(L / S)) (ts + tb S): the
 * best S for each value k of ceil(L / S) is the smallest, ceil(L / k), and
 * those are the S up to sqrt(L) and the ceil(L / k) for k up to sqrt(L) */
static double grid_pipelined(int64_t l, int64_t L, double ts, double tb)
{
    int64_t r = (int64_t)sqrt((double)L);
    while (r * r > L)
        r--;
    while ((r + 1) * (r + 1) <= L)
        r++;
    double best = pipe_time(l, L, L, ts, tb);
    for (int64_t s = 1; s <= r + 1 && s <= L; s++) {
        double v = pipe_time(l, L, s, ts, tb);
        if (v < best)
            best = v;
    }
    for (int64_t k = 1; k <= r + 1 && k <= L; k++) {
        double v = pipe_time(l, L, (L + k - 1) / k, ts, tb);
        if (v < best)
            best = v;
    }
    return best;
}

double psk_adv_transfer_us(const int64_t *t, int64_t P, const psk_machine *m)
{
    double total = 0;
    if (m->type == PSK_NET_GRID) {
        int64_t l = 0, L = 0;
        double intra = 0; /* inside a node: no hops, the slowest copy */
        for (int64_t s = 0; s < P; s++)
            for (int64_t d = 0; d < P; d++) {
                int64_t b = t[s * P + d];
                if (s == d || b <= 0)
                    continue;
                int64_t ns = node_of(m, s), nd = node_of(m, d);
                if (ns == nd) {
                    double v = psk_machine_msg_us(m, b, 1);
                    if (v > intra)
                        intra = v;
                    continue;
                }
                int64_t h = hops(m, ns, nd);
                if (h > l || (h == l && b > L))
                    l = h, L = b;
            }
        if (l == 1)
            total = m->start_us + m->byte_us * (double)L;
        else if (l > 1)
            total = grid_pipelined(l, L, m->start_us, m->byte_us);
        return total > intra ? total : intra;
    }
    if (m->type == PSK_NET_SWITCH) {
        int links = m->links > 0 ? m->links : 1;
        for (int64_t p = 0; p < P; p++) {
            double out = 0, in = 0, iout = 0, iin = 0; /* between nodes, inside one */
            for (int64_t q = 0; q < P; q++) {
                if (q == p)
                    continue;
                int intra = node_of(m, p) == node_of(m, q);
                if (t[p * P + q] > 0)
                    *(intra ? &iout : &out) += psk_machine_msg_us(m, t[p * P + q], intra);
                if (t[q * P + p] > 0)
                    *(intra ? &iin : &in) += psk_machine_msg_us(m, t[q * P + p], intra);
            }
            double v = (out > in ? out : in) / links;
            if (iout > v)
                v = iout;
            if (iin > v)
                v = iin;
            if (v > total)
                total = v;
        }
        return total;
    }
    for (int64_t s = 0; s < P; s++) /* the bus: one transfer at a time */
        for (int64_t d = 0; d < P; d++)
            if (s != d && t[s * P + d] > 0)
                total += psk_machine_msg_us(m, t[s * P + d], node_of(m, s) == node_of(m, d));
    return total;
}

static void count_matrix(const int64_t *t, int64_t P, int64_t *msgs, int64_t *bytes)
{
    for (int64_t s = 0; s < P; s++)
        for (int64_t d = 0; d < P; d++)
            if (s != d && t[s * P + d] > 0)
                *msgs += 1, *bytes += t[s * P + d];
}

/* ---- how a nest reads ---- */

static int64_t array_bytes(const adv_array *x)
{
    int64_t n = x->elsize;
    for (int d = 0; d < x->ndim; d++)
        n *= x->extent[d];
    return n;
}

const adv_ref *psk_adv_home(const psk_adv_program *p, int n)
{
    const adv_nest *ns = &p->nests[n];
    if (ns->nstmts < 1)
        return NULL;
    if (ns->stmts[0].lhs_array >= 0)
        return &ns->stmts[0].lhs;
    const adv_ref *best = NULL; /* the largest array read, the first on ties */
    for (int s = 0; s < ns->nstmts; s++)
        for (int i = 0; i < ns->stmts[s].nreads; i++) {
            const adv_ref *r = &ns->stmts[s].reads[i];
            if (!best || array_bytes(&p->arrays[r->array]) > array_bytes(&p->arrays[best->array]))
                best = r;
        }
    return best;
}

int psk_adv_classify(const psk_adv_program *p, int n, const adv_layout *l, const adv_ref *r,
                     int64_t *off)
{
    const adv_ref *h = psk_adv_home(p, n);
    int x = r->array, kind = ADV_LOCAL;
    if (off)
        memset(off, 0, sizeof *off * ADV_MAXDIM);
    if (psk_adv_everywhere(p, l, x))
        return ADV_LOCAL;
    if (!h)
        return ADV_REMOTE;
    for (int d = 0; d < p->arrays[x].ndim; d++) {
        int ax, hax, e;
        if (!psk_adv_dim_axis(l, x, d, &ax))
            continue;
        const adv_dimmap *mx = &l->map[x * ADV_MAXDIM + d];
        for (e = 0; e < p->arrays[h->array].ndim; e++)
            if (psk_adv_dim_axis(l, h->array, e, &hax) && l->map[h->array * ADV_MAXDIM + e].tdim == mx->tdim)
                break;
        if (e == p->arrays[h->array].ndim)
            return ADV_REMOTE; /* the home is not on this template dimension */
        const adv_dimmap *mh = &l->map[h->array * ADV_MAXDIM + e];
        /* positions: mx->coef (c v + k) + mx->off against the home's */
        if (r->sub_var[d] != h->sub_var[e] || mx->coef * r->sub_coef[d] != mh->coef * h->sub_coef[e])
            return ADV_REMOTE;
        int64_t delta = (mx->coef * r->sub_off[d] + mx->off) - (mh->coef * h->sub_off[e] + mh->off);
        if (delta == 0)
            continue;
        if (r->sub_var[d] < 0 || mx->coef == 0 || delta > p->maxshadow || -delta > p->maxshadow || delta % mx->coef)
            return ADV_REMOTE;
        kind = ADV_SHADOW;
        if (off)
            off[d] = delta / mx->coef; /* index offset: the coefficient is +-1 */
    }
    return kind;
}

/* every array reference a nest reads: its right sides and its updates' left sides */
typedef struct readref {
    const adv_ref *r;
    int cls;
    int64_t off[ADV_MAXDIM];
} readref;

static int collect_reads(const psk_adv_program *p, int n, const adv_layout *l, readref **out, int *nout)
{
    const adv_nest *ns = &p->nests[n];
    int k = 0;
    for (int s = 0; s < ns->nstmts; s++)
        k += ns->stmts[s].nreads + (ns->stmts[s].lhs_array >= 0 && ns->stmts[s].assign == ADV_UPDATE);
    readref *v = calloc((size_t)(k > 0 ? k : 1), sizeof *v);
    if (!v)
        return PSK_ENOMEM;
    k = 0;
    for (int s = 0; s < ns->nstmts; s++) {
        const adv_stmt *st = &ns->stmts[s];
        for (int i = 0; i < st->nreads; i++)
            v[k++].r = &st->reads[i];
        if (st->lhs_array >= 0 && st->assign == ADV_UPDATE)
            v[k++].r = &st->lhs;
    }
    for (int i = 0; i < k; i++)
        v[i].cls = psk_adv_classify(p, n, l, v[i].r, v[i].off);
    *out = v, *nout = k;
    return PSK_OK;
}

/* nest n's shadow widths per array dimension (max into lo/hi, narrays x
 * ADV_MAXDIM) and, per array, whether one reference is offset in two or
 * more dimensions at once (corners) */
static int nest_widths(const psk_adv_program *p, int n, const adv_layout *l, int *lo, int *hi, int *corner)
{
    readref *v;
    int k, rc = collect_reads(p, n, l, &v, &k);
    if (rc != PSK_OK)
        return rc;
    for (int i = 0; i < k; i++) {
        if (v[i].cls != ADV_SHADOW)
            continue;
        int a = v[i].r->array, dims = 0;
        for (int d = 0; d < p->arrays[a].ndim; d++) {
            int64_t o = v[i].off[d];
            int *w = o < 0 ? &lo[a * ADV_MAXDIM + d] : &hi[a * ADV_MAXDIM + d];
            if (o < 0)
                o = -o;
            if (o > *w)
                *w = (int)o;
            dims += o != 0;
        }
        if (corner && dims >= 2)
            corner[a] = 1;
    }
    free(v);
    return PSK_OK;
}

void psk_adv_shadows(const psk_adv_program *p, adv_layout *l)
{
    size_t n = (size_t)p->narrays * ADV_MAXDIM;
    memset(l->shadow_lo, 0, n * sizeof *l->shadow_lo);
    memset(l->shadow_hi, 0, n * sizeof *l->shadow_hi);
    for (int i = 0; i < p->nnests; i++)
        nest_widths(p, i, l, l->shadow_lo, l->shadow_hi, NULL); /* out of memory: the widths so far */
}

/* ---- one nest ---- */

typedef struct nestctx {
    const psk_adv_program *p;
    const adv_nest *ns;
    const adv_layout *l;
    const psk_machine *m;
    const adv_ref *home;
    int64_t P;
    int nouter;                 /* loops [0, nouter) are enumerated */
    int dep[ADV_MAXDIM];        /* a later loop's bounds use this loop's variable */
    int dist_axis[ADV_MAXDIM];  /* a distributed par/across loop's grid axis, else -1 */
    int64_t val[ADV_MAXDIM];    /* the outer loops' current values */
    int64_t *own;               /* narrays x P x (2 ADV_MAXDIM): owned boxes */
    char *own_ok;               /* narrays x P */
} nestctx;

static int64_t *own_box(const nestctx *c, int a, int64_t r)
{
    return &c->own[((size_t)a * (size_t)c->P + (size_t)r) * 2 * ADV_MAXDIM];
}

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

static int64_t rank_of(const adv_grid *g, const int64_t *coord)
{
    int64_t r = 0;
    for (int a = 0; a < g->naxes; a++)
        r = r * g->extent[a] + coord[a];
    return r;
}

/* axes array a is distributed on (bit per axis) */
static unsigned dist_axes(const psk_adv_program *p, const adv_layout *l, int a)
{
    unsigned s = 0;
    int ax;
    for (int d = 0; d < p->arrays[a].ndim; d++)
        if (psk_adv_dim_axis(l, a, d, &ax))
            s |= 1u << ax;
    return s;
}

/* Shadow renew (4.3): each non-empty processor sends the neighbour on the
 * other side of each offset its slab; the neighbour reading below it (a
 * `lo` width) is the one holding the indices above. Slabs along a
 * pipelined axis (bit set in pipe_axes) go to pipe instead of sh. */
static void shadow_matrix(const nestctx *c, const int *wlo, const int *whi, const int *corner,
                          unsigned pipe_axes, int64_t *sh, int64_t *pipe)
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
        for (int64_t r = 0; r < P; r++) {
            if (!c->own_ok[(size_t)a * (size_t)P + (size_t)r])
                continue;
            const int64_t *lo = own_box(c, a, r), *hi = lo + ADV_MAXDIM;
            int64_t coord[ADV_MAXDIM], nc[ADV_MAXDIM];
            psk_adv_coords(&l->grid, r, coord);
            int axis[ADV_MAXDIM];
            int64_t ext[ADV_MAXDIM], all = x->elsize;
            for (int d = 0; d < x->ndim; d++) {
                ext[d] = hi[d] - lo[d] + 1, all *= ext[d];
                if (!psk_adv_dim_axis(l, a, d, &axis[d]))
                    axis[d] = -1;
            }
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
                    int64_t q = rank_of(&l->grid, nc);
                    if (!c->own_ok[(size_t)a * (size_t)P + (size_t)q])
                        continue;
                    int64_t b = all / ext[d] * (w < ext[d] ? w : ext[d]);
                    (((pipe_axes >> axis[d]) & 1) ? pipe : sh)[r * P + q] += b;
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
                            int64_t q = rank_of(&l->grid, nc);
                            if (!c->own_ok[(size_t)a * (size_t)P + (size_t)q])
                                continue;
                            int64_t b = all / ext[d1] / ext[d2] * (w1 < ext[d1] ? w1 : ext[d1]) *
                                        (w2 < ext[d2] ? w2 : ext[d2]);
                            sh[r * P + q] += b;
                        }
                }
        }
    }
}

/* what one iteration of the outer loops (or the one execution) costs */
typedef struct itstate {
    readref *reads;
    int nreads;
    int64_t *rm;            /* P x P scratch: remote access */
    int64_t *vlo, *vhi;     /* P x ADV_MAXDIM: each processor's loop hulls */
    char *runs;             /* P: runs something */
    double *cpu;            /* P: compute summed over the outer iterations */
    double sh_us, pipe_us;  /* the shadow matrices' times (the same every iteration) */
    int64_t sh_msgs, sh_bytes, pipe_msgs, pipe_bytes, pipe_w;
    unsigned pipe_axes;
    double red_us;
    int64_t red_msgs, red_bytes;
} itstate;

static void one_iteration(nestctx *c, itstate *s, adv_cost *out)
{
    const psk_adv_program *p = c->p;
    const adv_nest *ns = c->ns;
    int64_t P = c->P;
    double cmax = 0;
    int64_t U = 1; /* the pipeline's undistributed extent: the largest */
    for (int64_t r = 0; r < P; r++) {
        int64_t coord[ADV_MAXDIM], clo[ADV_MAXDIM], chi[ADV_MAXDIM], env[ADV_MAXDIM];
        int64_t *vlo = &s->vlo[r * ADV_MAXDIM], *vhi = &s->vhi[r * ADV_MAXDIM];
        psk_adv_coords(&c->l->grid, r, coord);
        s->runs[r] = (char)proc_iters(c, coord, clo, chi, vlo, vhi);
        if (!s->runs[r])
            continue;
        memcpy(env, c->val, sizeof env);
        int64_t it = count_iters(c, c->nouter, env, clo, chi);
        double t = ns->work_us * (double)it / psk_machine_power(c->m, (int)r);
        s->cpu[r] += t;
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
     * boxes, minus what the reader owns, from the owner with its
     * coordinates on the array's replicated axes */
    memset(s->rm, 0, (size_t)P * (size_t)P * sizeof *s->rm);
    for (int a = 0; a < p->narrays; a++) {
        int any = 0;
        for (int i = 0; i < s->nreads; i++)
            any |= s->reads[i].cls == ADV_REMOTE && s->reads[i].r->array == a;
        if (!any)
            continue;
        const adv_array *x = &p->arrays[a];
        unsigned da = dist_axes(p, c->l, a);
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
            if (!have)
                continue;
            int64_t rc[ADV_MAXDIM], qc[ADV_MAXDIM];
            psk_adv_coords(&c->l->grid, r, rc);
            for (int64_t q = 0; q < P; q++) {
                if (q == r || !c->own_ok[(size_t)a * (size_t)P + (size_t)q])
                    continue;
                psk_adv_coords(&c->l->grid, q, qc);
                int same = 1;
                for (int ax = 0; ax < c->l->grid.naxes; ax++)
                    if (!((da >> ax) & 1) && qc[ax] != rc[ax])
                        same = 0;
                if (!same)
                    continue;
                const int64_t *ol = own_box(c, a, q);
                s->rm[q * P + r] += meet(lo, hi, ol, ol + ADV_MAXDIM, x->ndim) * x->elsize;
            }
        }
    }
    out->remote_us += psk_adv_transfer_us(s->rm, P, c->m);
    count_matrix(s->rm, P, &out->remote_msgs, &out->remote_bytes);

    out->shadow_us += s->sh_us;
    out->shadow_msgs += s->sh_msgs, out->shadow_bytes += s->sh_bytes;
    out->reduce_us += s->red_us;
    out->reduce_msgs += s->red_msgs, out->reduce_bytes += s->red_bytes;

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
    }
}

static void outer_loops(nestctx *c, itstate *s, int k, adv_cost *out)
{
    if (k == c->nouter) {
        one_iteration(c, s, out);
        return;
    }
    const adv_loop *lp = &c->ns->loops[k];
    int64_t lo = eval(&lp->lo, c->val, k), hi = eval(&lp->hi, c->val, k);
    for (int64_t v = lo; v <= hi; v++) {
        c->val[k] = v;
        outer_loops(c, s, k + 1, out);
    }
}

/* Reduction (4.4): R + P - 2 messages of S bytes are counted on every
 * network (gathering over the loop's axes, then a broadcast); the time is
 * per network type. */
static void reduction(const nestctx *c, itstate *s)
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
        return;
    int64_t R = 1, P = c->P;
    for (int ax = 0; ax < c->l->grid.naxes; ax++)
        if ((axes >> ax) & 1)
            R *= c->l->grid.extent[ax];
    double msg = psk_machine_msg_us(c->m, S, 0), steps;
    if (c->m->type == PSK_NET_SWITCH) {
        int lr = 0, lp = 0;
        while (((int64_t)1 << lr) < R)
            lr++;
        while (((int64_t)1 << lp) < P)
            lp++;
        steps = lr + lp;
    } else if (c->m->type == PSK_NET_GRID) {
        int64_t d = 0;
        for (int ax = 0; ax < c->l->grid.naxes; ax++)
            d += ((axes >> ax) & 1) ? 2 * (c->l->grid.extent[ax] / 2) : c->l->grid.extent[ax] - 1;
        steps = (double)d;
    } else {
        steps = (double)(R + P - 2);
    }
    s->red_us = msg * steps;
    s->red_msgs = R + P - 2;
    s->red_bytes = S * (R + P - 2);
}

int psk_adv_nest_cost(const psk_adv_program *p, int n, const adv_layout *l, const psk_machine *m,
                      adv_cost *out)
{
    memset(out, 0, sizeof *out);
    nestctx c = {.p = p, .ns = &p->nests[n], .l = l, .m = m};
    itstate s = {0};
    const adv_nest *ns = c.ns;
    int rc = PSK_ENOMEM;
    int *wlo = NULL, *whi = NULL, *corner = NULL;
    int64_t *sh = NULL, *pipe = NULL;
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
    c.own = malloc(na * P * 2 * ADV_MAXDIM * sizeof *c.own);
    c.own_ok = calloc(na * P, 1);
    wlo = calloc(na * ADV_MAXDIM, sizeof *wlo);
    whi = calloc(na * ADV_MAXDIM, sizeof *whi);
    corner = calloc(na, sizeof *corner);
    sh = calloc(P * P, sizeof *sh);
    pipe = calloc(P * P, sizeof *pipe);
    s.rm = calloc(P * P, sizeof *s.rm);
    s.vlo = calloc(P * ADV_MAXDIM, sizeof *s.vlo);
    s.vhi = calloc(P * ADV_MAXDIM, sizeof *s.vhi);
    s.runs = calloc(P, 1);
    s.cpu = calloc(P, sizeof *s.cpu);
    if (!c.own || !c.own_ok || !wlo || !whi || !corner || !sh || !pipe || !s.rm || !s.vlo || !s.vhi ||
        !s.runs || !s.cpu)
        goto done;
    for (int a = 0; a < p->narrays; a++)
        for (int64_t r = 0; r < c.P; r++) {
            int64_t coord[ADV_MAXDIM], *b = own_box(&c, a, r);
            psk_adv_coords(&l->grid, r, coord);
            c.own_ok[(size_t)a * P + (size_t)r] = (char)psk_adv_owned(p, l, a, coord, b, b + ADV_MAXDIM);
        }
    if ((rc = collect_reads(p, n, l, &s.reads, &s.nreads)) != PSK_OK ||
        (rc = nest_widths(p, n, l, wlo, whi, corner)) != PSK_OK)
        goto done;
    shadow_matrix(&c, wlo, whi, corner, s.pipe_axes, sh, pipe);
    s.sh_us = psk_adv_transfer_us(sh, c.P, m);
    count_matrix(sh, c.P, &s.sh_msgs, &s.sh_bytes);
    count_matrix(pipe, c.P, &s.pipe_msgs, &s.pipe_bytes);
    for (size_t i = 0; i < P * P; i++)
        if (pipe[i] > s.pipe_w)
            s.pipe_w = pipe[i];
    reduction(&c, &s);

    outer_loops(&c, &s, 0, out);

    double sum = 0;
    for (size_t r = 0; r < P; r++)
        sum += s.cpu[r];
    out->compute_avg_us = sum / (double)P;
    out->total_us = (out->pipelined ? out->across_us : out->compute_us) + out->shadow_us + out->remote_us +
                    out->reduce_us;
    rc = PSK_OK;
done:
    free(c.own);
    free(c.own_ok);
    free(wlo);
    free(whi);
    free(corner);
    free(sh);
    free(pipe);
    free(s.reads);
    free(s.rm);
    free(s.vlo);
    free(s.vhi);
    free(s.runs);
    free(s.cpu);
    return rc;
}

/* ---- redistribution (4.2) ---- */

/* 1 if the contents of array a matter to the next nest (from `next`, round
 * the program) that uses it: it reads it. Not used again, or overwritten
 * first: 0. */
static int contents_needed(const psk_adv_program *p, int next, int a)
{
    for (int i = 0; i < p->nnests; i++) {
        const adv_nest *ns = &p->nests[((next % p->nnests) + i) % p->nnests];
        int reads = 0, writes = 0;
        for (int s = 0; s < ns->nstmts; s++) {
            const adv_stmt *st = &ns->stmts[s];
            for (int j = 0; j < st->nreads; j++)
                reads |= st->reads[j].array == a;
            if (st->lhs_array == a)
                writes = 1, reads |= st->assign == ADV_UPDATE;
        }
        if (reads)
            return 1;
        if (writes)
            return 0;
    }
    return 0;
}

int psk_adv_redist_cost(const psk_adv_program *p, int next, const adv_layout *a, const adv_layout *b,
                        const psk_machine *m, double *us, int64_t *msgs, int64_t *bytes)
{
    int64_t P = psk_adv_nprocs(&a->grid);
    *us = 0, *msgs = 0, *bytes = 0;
    if (P != psk_adv_nprocs(&b->grid))
        return PSK_EINVAL;
    if (p->nnests < 1)
        return PSK_OK;
    int64_t *t = calloc((size_t)(P * P), sizeof *t), *ob = malloc((size_t)P * 2 * ADV_MAXDIM * sizeof *ob);
    char *ok = malloc((size_t)P), *taken = malloc((size_t)P);
    if (!t || !ob || !ok || !taken) {
        free(t), free(ob), free(ok), free(taken);
        return PSK_ENOMEM;
    }
    for (int x = 0; x < p->narrays; x++) {
        if (!contents_needed(p, next, x))
            continue;
        const adv_array *ar = &p->arrays[x];
        unsigned da = dist_axes(p, a, x);
        int64_t coord[ADV_MAXDIM];
        for (int64_t r = 0; r < P; r++) {
            psk_adv_coords(&a->grid, r, coord);
            ok[r] = (char)psk_adv_owned(p, a, x, coord, &ob[r * 2 * ADV_MAXDIM], &ob[r * 2 * ADV_MAXDIM + ADV_MAXDIM]);
        }
        /* the old boxes are identical (same coordinates on the array's
         * distributed axes: a replica group) or disjoint; per group, the
         * member nearest in rank (the lower on ties) feeds q */
        for (int64_t q = 0; q < P; q++) {
            int64_t nlo[ADV_MAXDIM], nhi[ADV_MAXDIM], qc[ADV_MAXDIM], pc[ADV_MAXDIM];
            psk_adv_coords(&b->grid, q, coord);
            if (!psk_adv_owned(p, b, x, coord, nlo, nhi))
                continue;
            memset(taken, 0, (size_t)P);
            psk_adv_coords(&a->grid, q, qc);
            for (int ax = 0; ax < a->grid.naxes; ax++)
                if (!((da >> ax) & 1))
                    qc[ax] = 0;
            taken[rank_of(&a->grid, qc)] = 1; /* q's own group: it has it */
            for (int64_t d = 1; d < P; d++)
                for (int side = 0; side < 2; side++) {
                    int64_t r = side ? q + d : q - d;
                    if (r < 0 || r >= P || !ok[r])
                        continue;
                    psk_adv_coords(&a->grid, r, pc);
                    for (int ax = 0; ax < a->grid.naxes; ax++)
                        if (!((da >> ax) & 1))
                            pc[ax] = 0;
                    int64_t g = rank_of(&a->grid, pc);
                    if (taken[g])
                        continue;
                    taken[g] = 1;
                    t[r * P + q] += meet(nlo, nhi, &ob[r * 2 * ADV_MAXDIM], &ob[r * 2 * ADV_MAXDIM + ADV_MAXDIM], ar->ndim) *
                                    ar->elsize;
                }
        }
    }
    *us = psk_adv_transfer_us(t, P, m);
    count_matrix(t, P, msgs, bytes);
    free(t), free(ob), free(ok), free(taken);
    return PSK_OK;
}
