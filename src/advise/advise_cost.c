/* perfskel advise: what a nest costs under a layout, and a redistribution
 * between two layouts: seed 003 section 4 (DVM's Predictor: GetCost 4.2,
 * shadow renew 4.3, reduction 4.4, remote buffers 4.5, ACROSS) as pinned
 * down in docs/advise.md "Costs". A processor's iterations, what it reads
 * and what it owns are boxes (an interval per loop or array dimension);
 * only the values of the outer seq loops (and of a loop another loop's
 * bounds depend on, when counting iterations) are enumerated. What moves
 * is a sparse list of (src, dst, bytes), sorted and one per pair; the
 * owners a box meets are found by block arithmetic per axis, never by
 * scanning every processor. The cost and the walk (psk_adv_nest_walk)
 * share one path, nest_run, so they cannot disagree. */
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

/* A transfer's time, message by message. The sums run in (src, dst)
 * order, as a dense matrix's row-major scan would; the switch's sums are
 * per processor (a sender's in ascending destination, a receiver's in
 * ascending source), so any order that keeps those two (destination by
 * destination, sources ascending, as the redistribution streams them)
 * gives the same result to the last bit. The grid keeps maxima only; the
 * bus's one sum needs the (src, dst) order itself. */
typedef struct xfer {
    const psk_machine *m;
    int64_t P;
    double total;               /* bus: the running sum */
    int64_t l, L;               /* grid: longest distance, largest message there */
    double intra;               /* grid: the slowest copy inside a node */
    double *acc;                /* switch: P x {sent, received} x {between, inside} nodes */
    int plain;                  /* one rank a node, no measured costs: Ts + Tb B */
} xfer;

static int xf_init(xfer *x, int64_t P, const psk_machine *m)
{
    memset(x, 0, sizeof *x);
    x->m = m, x->P = P;
    x->plain = m->ranks_per_node <= 1 && !(m->cost && m->ncost > 0);
    if (m->type == PSK_NET_SWITCH && !(x->acc = calloc((size_t)(P > 0 ? P : 1) * 4, sizeof *x->acc)))
        return PSK_ENOMEM;
    return PSK_OK;
}

static void xf_add(xfer *x, int64_t s, int64_t d, int64_t b)
{
    const psk_machine *m = x->m;
    if (m->type == PSK_NET_GRID) {
        int64_t ns = node_of(m, s), nd = node_of(m, d);
        if (ns == nd) {
            double t = psk_machine_msg_us(m, b, 1);
            if (t > x->intra)
                x->intra = t;
            return;
        }
        int64_t h = hops(m, ns, nd);
        if (h > x->l || (h == x->l && b > x->L))
            x->l = h, x->L = b;
    } else if (m->type == PSK_NET_SWITCH) {
        if (x->plain) { /* psk_machine_msg_us's own expression, inline */
            double t = m->start_us + (double)(b > 0 ? b : 0) * m->byte_us;
            x->acc[s * 4] += t;
            x->acc[d * 4 + 1] += t;
            return;
        }
        int intra = node_of(m, s) == node_of(m, d);
        double t = psk_machine_msg_us(m, b, intra);
        x->acc[s * 4 + (intra ? 2 : 0)] += t;
        x->acc[d * 4 + (intra ? 3 : 1)] += t;
    } else { /* the bus: one transfer at a time */
        x->total += psk_machine_msg_us(m, b, node_of(m, s) == node_of(m, d));
    }
}

/* the time; frees what xf_init took */
static double xf_end(xfer *x)
{
    const psk_machine *m = x->m;
    double total = 0;
    if (m->type == PSK_NET_GRID) {
        if (x->l == 1)
            total = m->start_us + m->byte_us * (double)x->L;
        else if (x->l > 1)
            total = grid_pipelined(x->l, x->L, m->start_us, m->byte_us);
        return total > x->intra ? total : x->intra;
    }
    if (m->type == PSK_NET_SWITCH) {
        int links = m->links > 0 ? m->links : 1;
        for (int64_t p = 0; p < x->P; p++) {
            const double *a = &x->acc[p * 4];
            double t = (a[0] > a[1] ? a[0] : a[1]) / links;
            if (a[2] > t)
                t = a[2];
            if (a[3] > t)
                t = a[3];
            if (t > total)
                total = t;
        }
        free(x->acc);
        x->acc = NULL;
        return total;
    }
    return x->total;
}

int psk_adv_transfer_list(const adv_msg *v, int64_t n, int64_t P, const psk_machine *m, double *us)
{
    xfer x;
    if (xf_init(&x, P, m))
        return PSK_ENOMEM;
    for (int64_t i = 0; i < n; i++)
        xf_add(&x, v[i].src, v[i].dst, v[i].bytes);
    *us = xf_end(&x);
    return PSK_OK;
}

double psk_adv_transfer_us(const int64_t *t, int64_t P, const psk_machine *m)
{
    int64_t n = 0;
    for (int64_t i = 0; i < P * P; i++)
        n += t[i] > 0 && i / P != i % P;
    adv_msg *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    double us = NAN;
    if (!v)
        return us;
    n = 0;
    for (int64_t s = 0; s < P; s++)
        for (int64_t d = 0; d < P; d++)
            if (s != d && t[s * P + d] > 0)
                v[n++] = (adv_msg){s, d, t[s * P + d]};
    if (psk_adv_transfer_list(v, n, P, m, &us) != PSK_OK)
        us = NAN;
    free(v);
    return us;
}

/* ---- message lists ---- */

typedef struct mlist {
    adv_msg *v;
    int64_t n, cap;
} mlist;

/* a transfer of b bytes from s to d; nothing when b <= 0 or s == d */
static int ml_add(mlist *l, int64_t s, int64_t d, int64_t b)
{
    if (b <= 0 || s == d)
        return PSK_OK;
    if (l->n == l->cap) {
        int64_t nc = l->cap ? l->cap * 2 : 64;
        adv_msg *v = realloc(l->v, (size_t)nc * sizeof *v);
        if (!v)
            return PSK_ENOMEM;
        l->v = v, l->cap = nc;
    }
    l->v[l->n++] = (adv_msg){s, d, b};
    return PSK_OK;
}

static int cmp_msg(const void *x, const void *y)
{
    const adv_msg *a = x, *b = y;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    return (a->dst > b->dst) - (a->dst < b->dst);
}

/* a stable counting sort of v[0..n-1] into out by src (by = 0) or dst
 * (by = 1), ranks below P; cnt: P + 1 entries */
static void ml_count_sort(const adv_msg *v, int64_t n, int64_t P, int by, int64_t *cnt, adv_msg *out)
{
    memset(cnt, 0, ((size_t)P + 1) * sizeof *cnt);
    for (int64_t i = 0; i < n; i++)
        cnt[(by ? v[i].dst : v[i].src) + 1]++;
    for (int64_t r = 0; r < P; r++)
        cnt[r + 1] += cnt[r];
    for (int64_t i = 0; i < n; i++)
        out[cnt[by ? v[i].dst : v[i].src]++] = v[i];
}

/* sorted by (src, dst), one message per pair (their bytes summed): what a
 * P x P matrix of bytes held. Long lists (against P) by two counting
 * sorts (dst, then src: stable), short ones by qsort; the same list. */
static int ml_merge(mlist *l, int64_t P)
{
    int sorted = 1;
    for (int64_t i = 1; i < l->n && sorted; i++)
        sorted = cmp_msg(&l->v[i - 1], &l->v[i]) < 0;
    if (sorted)
        return PSK_OK;
    if (l->n * 4 > P) {
        int64_t *cnt = malloc(((size_t)P + 1) * sizeof *cnt);
        adv_msg *tmp = malloc((size_t)l->n * sizeof *tmp);
        if (!cnt || !tmp) {
            free(cnt), free(tmp);
            return PSK_ENOMEM;
        }
        ml_count_sort(l->v, l->n, P, 1, cnt, tmp);
        ml_count_sort(tmp, l->n, P, 0, cnt, l->v);
        free(cnt), free(tmp);
    } else {
        qsort(l->v, (size_t)l->n, sizeof *l->v, cmp_msg);
    }
    int64_t k = 0;
    for (int64_t i = 0; i < l->n; i++) {
        if (k && l->v[k - 1].src == l->v[i].src && l->v[k - 1].dst == l->v[i].dst)
            l->v[k - 1].bytes += l->v[i].bytes;
        else
            l->v[k++] = l->v[i];
    }
    l->n = k;
    return PSK_OK;
}

static void ml_count(const mlist *l, int64_t *msgs, int64_t *bytes)
{
    for (int64_t i = 0; i < l->n; i++)
        *msgs += 1, *bytes += l->v[i].bytes;
}

/* ---- how a nest reads ---- */

int64_t psk_adv_array_bytes(const adv_array *x)
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
            if (!best || psk_adv_array_bytes(&p->arrays[r->array]) > psk_adv_array_bytes(&p->arrays[best->array]))
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

/* ---- what a processor owns, and who owns a box ---- */

/* array a's part on every processor, per dimension: an interval per
 * coordinate of the dimension's grid axis (one interval when it is not
 * distributed), the boxes psk_adv_owned gives, computed once per array */
typedef struct owntab {
    int ndim;
    int axis[ADV_MAXDIM];          /* -1: not distributed */
    int64_t *lo[ADV_MAXDIM], *hi[ADV_MAXDIM];
    int64_t *pre[ADV_MAXDIM];      /* pre[d][c]: the sizes of intervals 0 .. c-1 */
    int64_t *buf;                  /* NULL: not built */
} owntab;

static int own_build(const psk_adv_program *p, const adv_layout *l, int a, owntab *t)
{
    const adv_array *x = &p->arrays[a];
    size_t tot = 0, at = 0;
    t->ndim = x->ndim;
    for (int d = 0; d < x->ndim; d++) {
        if (!psk_adv_dim_axis(l, a, d, &t->axis[d]))
            t->axis[d] = -1;
        tot += t->axis[d] >= 0 ? (size_t)l->grid.extent[t->axis[d]] : 1;
    }
    t->buf = malloc((3 * tot + (size_t)x->ndim + 1) * sizeof *t->buf);
    if (!t->buf)
        return PSK_ENOMEM;
    for (int d = 0; d < x->ndim; d++) {
        int64_t n = t->axis[d] >= 0 ? l->grid.extent[t->axis[d]] : 1;
        t->lo[d] = t->buf + at, t->hi[d] = t->buf + at + n, t->pre[d] = t->buf + at + 2 * n;
        at += 3 * (size_t)n + 1;
        t->pre[d][0] = 0;
        for (int64_t c = 0; c < n; c++) {
            int64_t lo = 0, hi = x->extent[d] - 1;
            if (t->axis[d] >= 0) {
                const adv_dimmap *mp = &l->map[a * ADV_MAXDIM + d];
                int64_t blo, bhi, vlo, vhi;
                if (!psk_adv_block(l, mp->tdim, c, &blo, &bhi) ||
                    !psk_adv_preimage(mp->coef, mp->off, blo, bhi, &vlo, &vhi)) {
                    vlo = 1, vhi = 0;
                }
                lo = vlo > lo ? vlo : lo, hi = vhi < hi ? vhi : hi;
            }
            t->lo[d][c] = lo, t->hi[d][c] = hi;
            t->pre[d][c + 1] = t->pre[d][c] + (lo > hi ? 0 : hi - lo + 1);
        }
    }
    return PSK_OK;
}

static void own_free(owntab *t)
{
    free(t->buf);
    t->buf = NULL;
}

struct adv_parts {
    int narrays;
    owntab *t;                     /* per array */
};

int psk_adv_parts_build(const psk_adv_program *p, const adv_layout *l, adv_parts **out)
{
    adv_parts *pt = calloc(1, sizeof *pt);
    *out = NULL;
    if (!pt || !(pt->t = calloc((size_t)(p->narrays > 0 ? p->narrays : 1), sizeof *pt->t))) {
        free(pt);
        return PSK_ENOMEM;
    }
    for (; pt->narrays < p->narrays; pt->narrays++)
        if (own_build(p, l, pt->narrays, &pt->t[pt->narrays])) {
            psk_adv_parts_free(pt);
            return PSK_ENOMEM;
        }
    *out = pt;
    return PSK_OK;
}

void psk_adv_parts_free(adv_parts *pt)
{
    if (!pt)
        return;
    for (int x = 0; x < pt->narrays; x++)
        own_free(&pt->t[x]);
    free(pt->t);
    free(pt);
}

/* the box the processor at coord holds; 0 if it holds nothing */
static int own_get(const owntab *t, const int64_t *coord, int64_t *lo, int64_t *hi)
{
    int any = 1;
    for (int d = 0; d < t->ndim; d++) {
        int64_t c = t->axis[d] >= 0 ? coord[t->axis[d]] : 0;
        lo[d] = t->lo[d][c], hi[d] = t->hi[d][c];
        if (lo[d] > hi[d])
            any = 0;
    }
    return any;
}

/* Per grid axis, the coordinates of the processors whose part of array a
 * can meet box lo..hi: along each distributed dimension the template
 * positions the box covers, pmin..pmax, fall in the blocks
 * (pmin - tlo) / b .. (pmax - tlo) / b; other axes are left whole. 0 if
 * none. */
static int owner_range(const psk_adv_program *p, const adv_layout *l, int a, const int64_t *lo,
                       const int64_t *hi, int64_t *clo, int64_t *chi)
{
    for (int ax = 0; ax < l->grid.naxes; ax++)
        clo[ax] = 0, chi[ax] = l->grid.extent[ax] - 1;
    for (int d = 0; d < p->arrays[a].ndim; d++) {
        int ax;
        if (!psk_adv_dim_axis(l, a, d, &ax))
            continue;
        const adv_dimmap *mp = &l->map[a * ADV_MAXDIM + d];
        int64_t p1 = mp->coef * lo[d] + mp->off, p2 = mp->coef * hi[d] + mp->off;
        int64_t pmin = p1 < p2 ? p1 : p2, pmax = p1 < p2 ? p2 : p1;
        int64_t tlo = l->tlo[mp->tdim], thi = l->thi[mp->tdim];
        pmin = pmin > tlo ? pmin : tlo, pmax = pmax < thi ? pmax : thi;
        if (pmin > pmax)
            return 0;
        int64_t e = l->grid.extent[ax], b = (thi - tlo + e) / e; /* ceil(n / e) */
        int64_t c1 = (pmin - tlo) / b, c2 = (pmax - tlo) / b;
        clo[ax] = c1 > clo[ax] ? c1 : clo[ax];
        chi[ax] = c2 < chi[ax] ? c2 : chi[ax];
        if (clo[ax] > chi[ax])
            return 0;
    }
    return 1;
}

/* the next coordinates in the box lo..hi, row-major; 0 after the last */
static int next_coord(int naxes, const int64_t *lo, const int64_t *hi, int64_t *c)
{
    for (int a = naxes - 1; a >= 0; a--) {
        if (++c[a] <= hi[a])
            return 1;
        c[a] = lo[a];
    }
    return 0;
}

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
    owntab *own;                /* narrays: built for the arrays read through
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
 * `lo` width) is the one holding the indices above. Only the grid
 * neighbours (and diagonal ones for corners) are looked at. Slabs along a
 * pipelined axis (bit set in pipe_axes) go to pipe instead of sh. */
static int shadow_lists(const nestctx *c, const int *wlo, const int *whi, const int *corner,
                        unsigned pipe_axes, mlist *sh, mlist *pipe)
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
        const owntab *ot = &c->own[a];
        for (int64_t r = 0; r < P; r++) {
            int64_t lo[ADV_MAXDIM], hi[ADV_MAXDIM], qlo[ADV_MAXDIM], qhi[ADV_MAXDIM];
            int64_t coord[ADV_MAXDIM], nc[ADV_MAXDIM];
            psk_adv_coords(&l->grid, r, coord);
            if (!own_get(ot, coord, lo, hi))
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
                    if (!own_get(ot, nc, qlo, qhi))
                        continue;
                    int64_t b = all / ext[d] * (w < ext[d] ? w : ext[d]);
                    if (ml_add(((pipe_axes >> axis[d]) & 1) ? pipe : sh, r, rank_of(&l->grid, nc), b))
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
                            if (!own_get(ot, nc, qlo, qhi))
                                continue;
                            int64_t b = all / ext[d1] / ext[d2] * (w1 < ext[d1] ? w1 : ext[d1]) *
                                        (w2 < ext[d2] ? w2 : ext[d2]);
                            if (ml_add(sh, r, rank_of(&l->grid, nc), b))
                                return PSK_ENOMEM;
                        }
                }
        }
    }
    if (ml_merge(sh, P) || ml_merge(pipe, P))
        return PSK_ENOMEM;
    return PSK_OK;
}

/* what one iteration of the outer loops (or the one execution) costs */
typedef struct itstate {
    readref *reads;
    int nreads;
    mlist rm;               /* remote access, rebuilt each outer iteration */
    mlist sh, pipe, red;    /* shadow, pipeline slabs, reduction: the same each one */
    int64_t *vlo, *vhi;     /* P x ADV_MAXDIM: each processor's loop hulls */
    char *runs;             /* P: runs something */
    double *cpu;            /* P: compute summed over the outer iterations */
    double *step;           /* P: this outer iteration's compute */
    double sh_us;           /* the shadow list's time (the same every iteration) */
    int64_t sh_msgs, sh_bytes, pipe_msgs, pipe_bytes, pipe_w;
    unsigned pipe_axes;
    double red_us;
    int64_t red_msgs, red_bytes;
    int64_t red_cut[2 * 64];/* the reduction's phases: red.v[red_cut[i-1] .. red_cut[i]) */
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
            int64_t rc_[ADV_MAXDIM], clo[ADV_MAXDIM], chi[ADV_MAXDIM], qc[ADV_MAXDIM];
            if (!have || !owner_range(p, c->l, a, lo, hi, clo, chi))
                continue;
            psk_adv_coords(&c->l->grid, r, rc_);
            for (int ax = 0; ax < c->l->grid.naxes; ax++)
                if (!((da >> ax) & 1))
                    clo[ax] = chi[ax] = rc_[ax];
            memcpy(qc, clo, sizeof qc);
            do {
                int64_t q = rank_of(&c->l->grid, qc), ol[ADV_MAXDIM], oh[ADV_MAXDIM];
                if (q == r || !own_get(&c->own[a], qc, ol, oh))
                    continue;
                if (ml_add(&s->rm, q, r, meet(lo, hi, ol, oh, x->ndim) * x->elsize))
                    return PSK_ENOMEM;
            } while (next_coord(c->l->grid.naxes, clo, chi, qc));
        }
    }
    if (ml_merge(&s->rm, P))
        return PSK_ENOMEM;
    double rus;
    if ((rc = psk_adv_transfer_list(s->rm.v, s->rm.n, P, c->m, &rus)))
        return rc;
    out->remote_us += rus;
    ml_count(&s->rm, &out->remote_msgs, &out->remote_bytes);

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
        mem[nm++] = rank_of(&c->l->grid, qc);
    while (next_coord(c->l->grid.naxes, lo, hi, qc));
    int rc = PSK_OK, tree = c->m->type == PSK_NET_SWITCH;
    s->nred_cut = 0;
    if (tree) {
        /* binomial trees, a phase per round: member i sends to i - k when
         * i mod 2k = k (k = 1, 2, 4 ...), then ranks q < k send to q + k */
        for (int64_t k = 1; k < R && !rc; k *= 2) {
            for (int64_t i = k; i < R && !rc; i += 2 * k)
                rc = ml_add(&s->red, mem[i], mem[i - k], S);
            s->red_cut[s->nred_cut++] = s->red.n;
        }
        for (int64_t k = 1; k < P && !rc; k *= 2) {
            for (int64_t q = 0; q < k && q + k < P && !rc; q++)
                rc = ml_add(&s->red, q, q + k, S);
            s->red_cut[s->nred_cut++] = s->red.n;
        }
    } else {
        /* linear: the members to rank 0, then rank 0 to every rank */
        for (int64_t i = 1; i < R && !rc; i++)
            rc = ml_add(&s->red, mem[i], 0, S);
        s->red_cut[s->nred_cut++] = s->red.n;
        for (int64_t q = 1; q < P && !rc; q++)
            rc = ml_add(&s->red, 0, q, S);
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
    ml_count(&s->red, &s->red_msgs, &s->red_bytes);
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
    if ((rc = collect_reads(p, n, l, &s.reads, &s.nreads)) != PSK_OK ||
        (rc = nest_widths(p, n, l, wlo, whi, corner)) != PSK_OK)
        goto done;
    for (int i = 0; i < s.nreads; i++) {
        int a = s.reads[i].r->array;
        if (s.reads[i].cls != ADV_LOCAL && !c.own[a].buf && (rc = own_build(p, l, a, &c.own[a])))
            goto done;
    }
    if ((rc = shadow_lists(&c, wlo, whi, corner, s.pipe_axes, &s.sh, &s.pipe)) ||
        (rc = psk_adv_transfer_list(s.sh.v, s.sh.n, c.P, m, &s.sh_us)))
        goto done;
    ml_count(&s.sh, &s.sh_msgs, &s.sh_bytes);
    ml_count(&s.pipe, &s.pipe_msgs, &s.pipe_bytes);
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
            own_free(&c.own[a]);
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

/* ---- redistribution (4.2) ---- */

/* 1 if the contents of array a matter to the next nest (from `next`, round
 * the program) that uses it: it reads it. Not used again, or overwritten
 * first: 0. */
int psk_adv_needed(const psk_adv_program *p, int next, int a)
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

/* The member of a replica group (the ranks with coordinates gc on the
 * axes in mask) nearest q in rank, the lower on ties: the largest member
 * below q and the smallest above, each found digit by digit (the longest
 * prefix of q's coordinates the group allows, then one step down or up,
 * then the extreme digits). q is not a member. */
static int64_t group_near(const adv_grid *g, unsigned mask, const int64_t *gc, const int64_t *qc, int64_t q)
{
    int64_t best[2] = {-1, -1}, rc[ADV_MAXDIM];
    for (int up = 0; up < 2; up++) {
        for (int j = g->naxes - 1; j >= 0 && best[up] < 0; j--) {
            int ok = 1;
            for (int i = 0; i < j && ok; i++)
                ok = !((mask >> i) & 1) || gc[i] == qc[i];
            if (!ok)
                continue;
            int64_t dj;
            if ((mask >> j) & 1) {
                if (up ? gc[j] <= qc[j] : gc[j] >= qc[j])
                    continue;
                dj = gc[j];
            } else {
                dj = up ? qc[j] + 1 : qc[j] - 1;
                if (dj < 0 || dj >= g->extent[j])
                    continue;
            }
            for (int i = 0; i < g->naxes; i++)
                rc[i] = i < j ? qc[i] : i == j ? dj : ((mask >> i) & 1) ? gc[i] : up ? 0 : g->extent[i] - 1;
            best[up] = rank_of(g, rc);
        }
    }
    if (best[1] < 0 || (best[0] >= 0 && q - best[0] <= best[1] - q))
        return best[0];
    return best[1];
}

/* A redistribution, destination by destination: per needed array its
 * old and new parts, and a dense per-source accumulator (reused for every
 * destination) that merges what the arrays send one pair. */
typedef struct redist {
    const psk_adv_program *p;
    const adv_layout *a, *b;
    int64_t P;
    int nx;                     /* needed arrays */
    int *xs;
    unsigned *da;               /* their distributed axes under a */
    unsigned all;               /* every axis of a */
    const owntab **ta, **tb;    /* their parts under a and b */
    adv_parts *own[2];          /* a's and b's, when built here */
    int64_t *acc, *touched;     /* P each: bytes per source, the sources met */
    int64_t *tab[ADV_MAXDIM];   /* per axis of a, P entries: a group's overlap */
    int64_t *tabbuf;
} redist;

static void rd_close(redist *r)
{
    psk_adv_parts_free(r->own[0]), psk_adv_parts_free(r->own[1]);
    free(r->xs), free(r->da), free(r->ta), free(r->tb), free(r->acc), free(r->touched), free(r->tabbuf);
    memset(r, 0, sizeof *r);
}

static int rd_open(redist *r, const psk_adv_program *p, int next, const adv_layout *a, const adv_parts *pa,
                   const adv_layout *b, const adv_parts *pb)
{
    memset(r, 0, sizeof *r);
    r->p = p, r->a = a, r->b = b;
    r->P = psk_adv_nprocs(&a->grid);
    r->all = (1u << a->grid.naxes) - 1;
    if (r->P != psk_adv_nprocs(&b->grid))
        return PSK_EINVAL;
    size_t na = (size_t)(p->narrays > 0 ? p->narrays : 1), P = (size_t)r->P;
    r->xs = malloc(na * sizeof *r->xs);
    r->da = malloc(na * sizeof *r->da);
    r->ta = calloc(na, sizeof *r->ta);
    r->tb = calloc(na, sizeof *r->tb);
    int rc = PSK_OK;
    if (!pa && !(rc = psk_adv_parts_build(p, a, &r->own[0])))
        pa = r->own[0];
    if (!rc && !pb && !(rc = psk_adv_parts_build(p, b, &r->own[1])))
        pb = r->own[1];
    if (rc) {
        rd_close(r);
        return rc;
    }
    r->acc = calloc(P, sizeof *r->acc);
    r->touched = malloc(P * sizeof *r->touched);
    r->tabbuf = malloc((size_t)a->grid.naxes * P * sizeof *r->tabbuf);
    for (int ax = 0; ax < a->grid.naxes && r->tabbuf; ax++)
        r->tab[ax] = r->tabbuf + (size_t)ax * P;
    if (!r->xs || !r->da || !r->ta || !r->tb || !r->acc || !r->touched || !r->tabbuf) {
        rd_close(r);
        return PSK_ENOMEM;
    }
    for (int x = 0; x < p->narrays && p->nnests > 0; x++) {
        if (!psk_adv_needed(p, next, x))
            continue;
        int i = r->nx++;
        r->xs[i] = x;
        r->da[i] = dist_axes(p, a, x);
        r->ta[i] = &pa->t[x], r->tb[i] = &pb->t[x];
    }
    return PSK_OK;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* What q receives, every array merged: *n sources in ascending order with
 * their bytes (src[], by[]: P entries each). Per array, the old boxes are
 * identical within a replica group (same coordinates on the array's
 * distributed axes) and disjoint otherwise; per group whose blocks meet
 * q's new box, the member nearest q in rank (the lower on ties) feeds q. */
static void rd_dest(redist *r, int64_t q, int64_t *src, int64_t *by, int64_t *n)
{
    const adv_layout *a = r->a;
    int64_t nt = 0, qb[ADV_MAXDIM], qc[ADV_MAXDIM];
    psk_adv_coords(&r->b->grid, q, qb);
    psk_adv_coords(&a->grid, q, qc);
    for (int i = 0; i < r->nx; i++) {
        const adv_array *ar = &r->p->arrays[r->xs[i]];
        unsigned da = r->da[i];
        int64_t nlo[ADV_MAXDIM], nhi[ADV_MAXDIM], gq[ADV_MAXDIM], clo[ADV_MAXDIM], chi[ADV_MAXDIM];
        int64_t gc[ADV_MAXDIM];
        if (!own_get(r->tb[i], qb, nlo, nhi) || !owner_range(r->p, a, r->xs[i], nlo, nhi, clo, chi))
            continue;
        for (int ax = 0; ax < a->grid.naxes; ax++) {
            gq[ax] = ((da >> ax) & 1) ? qc[ax] : 0;
            if (!((da >> ax) & 1))
                clo[ax] = chi[ax] = 0;
        }
        /* the bytes of a group: the element size times, per dimension,
         * its old interval's overlap with the new box, which depends on
         * the group's coordinate on that dimension's axis only: a table
         * per axis (the product of its dimensions' overlaps) */
        const owntab *ot = r->ta[i];
        int64_t K = ar->elsize;
        for (int ax = 0; ax < a->grid.naxes; ax++)
            if ((da >> ax) & 1)
                for (int64_t c = clo[ax]; c <= chi[ax]; c++)
                    r->tab[ax][c - clo[ax]] = 1;
        for (int d = 0; d < ar->ndim; d++) {
            int ax = ot->axis[d];
            for (int64_t c = ax >= 0 ? clo[ax] : 0; c <= (ax >= 0 ? chi[ax] : 0); c++) {
                int64_t lo = ot->lo[d][c] > nlo[d] ? ot->lo[d][c] : nlo[d];
                int64_t hi = ot->hi[d][c] < nhi[d] ? ot->hi[d][c] : nhi[d];
                int64_t o = lo > hi ? 0 : hi - lo + 1;
                if (ax >= 0)
                    r->tab[ax][c - clo[ax]] *= o;
                else
                    K *= o;
            }
        }
        if (!K)
            continue;
        memcpy(gc, clo, sizeof gc);
        do {
            int own = 1;
            for (int ax = 0; ax < a->grid.naxes && own; ax++)
                own = gc[ax] == gq[ax];
            if (own)
                continue; /* q's own group: it has it */
            int64_t b = K;
            for (int ax = 0; ax < a->grid.naxes && b; ax++)
                if ((da >> ax) & 1)
                    b *= r->tab[ax][gc[ax] - clo[ax]];
            if (b <= 0)
                continue;
            /* on every axis: a group of one */
            int64_t s = da == r->all ? rank_of(&a->grid, gc) : group_near(&a->grid, da, gc, qc, q);
            if (s == q)
                continue;
            if (!r->acc[s])
                r->touched[nt++] = s;
            r->acc[s] += b;
        } while (next_coord(a->grid.naxes, clo, chi, gc));
    }
    /* ascending sources: sort the few met, or scan the accumulator when
     * they are many (an all-to-all) */
    int64_t k = 0;
    if (nt * 16 < r->P) {
        qsort(r->touched, (size_t)nt, sizeof *r->touched, cmp_i64);
        for (int64_t i = 0; i < nt; i++) {
            int64_t s = r->touched[i];
            src[k] = s, by[k++] = r->acc[s], r->acc[s] = 0;
        }
    } else {
        for (int64_t s = 0; s < r->P && k < nt; s++)
            if (r->acc[s])
                src[k] = s, by[k++] = r->acc[s], r->acc[s] = 0;
    }
    *n = k;
}

/* the overlap of interval c of dimension d with lo..hi */
static int64_t own_overlap(const owntab *t, int d, int64_t c, int64_t lo, int64_t hi)
{
    int64_t a = t->lo[d][c] > lo ? t->lo[d][c] : lo, b = t->hi[d][c] < hi ? t->hi[d][c] : hi;
    return a > b ? 0 : b - a + 1;
}

/* What q receives, without its list: per array, the old groups meeting
 * q's new box (q's own excepted: one sender each, rd_dest) and their
 * bytes. A group's bytes are a product over axes, so their sum is the
 * product of per-axis sums. Along an axis the intervals are disjoint and
 * monotone in the coordinate (BLOCK, coefficient +-1), so those strictly
 * between the first and the last meeting the box lie inside it, none
 * empty: prefix sums give the rest. Only lower bounds are claimed (an
 * array whose dimensions share an axis, or an end interval missing the
 * box, counts less), so *cmax (the most senders of one array: q's
 * sources, the arrays merged, are at least as many) and *bytes (all
 * arrays) never exceed rd_dest's. */
static void rd_recv(const redist *r, int64_t q, int64_t *cmax, int64_t *bytes)
{
    const adv_layout *a = r->a;
    int64_t qb[ADV_MAXDIM], qc[ADV_MAXDIM];
    psk_adv_coords(&r->b->grid, q, qb);
    psk_adv_coords(&a->grid, q, qc);
    *cmax = 0, *bytes = 0;
    for (int i = 0; i < r->nx; i++) {
        const owntab *ot = r->ta[i];
        int64_t nlo[ADV_MAXDIM], nhi[ADV_MAXDIM], clo[ADV_MAXDIM], chi[ADV_MAXDIM];
        if (!own_get(r->tb[i], qb, nlo, nhi) || !owner_range(r->p, a, r->xs[i], nlo, nhi, clo, chi))
            continue;
        int64_t all = r->p->arrays[r->xs[i]].elsize, own = all, groups = 1;
        unsigned seen = 0;
        for (int d = 0; d < ot->ndim && all; d++) {
            int ax = ot->axis[d];
            if (ax < 0) {
                int64_t o = own_overlap(ot, d, 0, nlo[d], nhi[d]);
                all *= o, own *= o;
                continue;
            }
            if ((seen >> ax) & 1) {
                all = 0; /* two dimensions on one axis: not this way */
                break;
            }
            seen |= 1u << ax;
            int64_t c1 = clo[ax], c2 = chi[ax], o1 = own_overlap(ot, d, c1, nlo[d], nhi[d]), sum = o1, nz = o1 > 0;
            if (c2 > c1) {
                int64_t o2 = own_overlap(ot, d, c2, nlo[d], nhi[d]);
                sum += o2, nz += o2 > 0;
                if (o1 > 0 && o2 > 0)
                    sum += ot->pre[d][c2] - ot->pre[d][c1 + 1], nz += c2 - c1 - 1;
            }
            all *= sum, groups *= nz;
            own *= qc[ax] >= c1 && qc[ax] <= c2 ? own_overlap(ot, d, qc[ax], nlo[d], nhi[d]) : 0;
        }
        if (!all)
            continue;
        groups -= own > 0;
        *bytes += all - own;
        if (groups > *cmax)
            *cmax = groups;
    }
}

/* the redistribution's messages sorted by (src, dst), one per pair: what
 * the walk and the bus's cost use. Built destination by destination, then
 * a counting sort by source (stable: destinations stay ascending). */
static int redist_list(const psk_adv_program *p, int next, const adv_layout *a, const adv_parts *pa,
                       const adv_layout *b, const adv_parts *pb, mlist *t)
{
    redist r;
    int rc = rd_open(&r, p, next, a, pa, b, pb);
    if (rc)
        return rc;
    int64_t P = r.P, *src = malloc((size_t)P * sizeof *src), *by = malloc((size_t)P * sizeof *by);
    int64_t *cnt = calloc((size_t)P + 1, sizeof *cnt);
    mlist d = {0};
    rc = PSK_ENOMEM;
    if (!src || !by || !cnt)
        goto out;
    for (int64_t q = 0; q < P; q++) {
        int64_t n;
        rd_dest(&r, q, src, by, &n);
        for (int64_t i = 0; i < n; i++) {
            if (ml_add(&d, src[i], q, by[i]))
                goto out;
            cnt[src[i] + 1]++;
        }
    }
    if (d.n) {
        adv_msg *v = malloc((size_t)d.n * sizeof *v);
        if (!v)
            goto out;
        for (int64_t s = 0; s < P; s++)
            cnt[s + 1] += cnt[s];
        for (int64_t i = 0; i < d.n; i++)
            v[cnt[d.v[i].src]++] = d.v[i];
        free(t->v);
        t->v = v, t->n = t->cap = d.n;
    }
    rc = PSK_OK;
out:
    rd_close(&r);
    free(src), free(by), free(cnt), free(d.v);
    return rc;
}

/* the cost streamed destination by destination (switch, grid: docs/advise.md
 * "Speed"), of every destination or, when step > 1, of every step-th
 * (a lower bound on the whole) */
static int redist_stream(const psk_adv_program *p, int next, const adv_layout *a, const adv_parts *pa,
                         const adv_layout *b, const adv_parts *pb, const psk_machine *m, int64_t step, double *us,
                         int64_t *msgs, int64_t *bytes)
{
    redist r;
    xfer x;
    int rc = rd_open(&r, p, next, a, pa, b, pb);
    if (rc)
        return rc;
    int64_t P = r.P, *src = malloc((size_t)P * sizeof *src), *by = malloc((size_t)P * sizeof *by);
    rc = PSK_ENOMEM;
    if (!src || !by || xf_init(&x, P, m))
        goto out;
    for (int64_t q = step > 1 ? step / 2 : 0; q < P; q += step) {
        int64_t n;
        rd_dest(&r, q, src, by, &n);
        for (int64_t i = 0; i < n; i++) {
            xf_add(&x, src[i], q, by[i]);
            *msgs += 1, *bytes += by[i];
        }
    }
    if (step > 1 && m->type == PSK_NET_GRID)
        x.l = 0, x.L = 0; /* the grid's time is not monotone in a subset's
                           * (a shorter longest distance may carry a larger
                           * message): only its slowest copy inside a node */
    *us = xf_end(&x);
    rc = PSK_OK;
out:
    rd_close(&r);
    free(src), free(by);
    return rc;
}

/* the cheapest a message of b bytes can be on m, between nodes or inside
 * one, under any of its cost segments: ts + tb b, ts and tb the smallest
 * per-message and per-byte terms */
static void cheapest(const psk_machine *m, double *ts, double *tb)
{
    *ts = INFINITY, *tb = INFINITY;
    for (int intra = 0; intra < 2; intra++) {
        if (intra && m->ranks_per_node <= 1)
            break; /* one rank a node: every message is between nodes */
        const double *c = intra ? m->icost : m->cost;
        int n = intra ? m->nicost : m->ncost;
        if (!c || n <= 0) {
            double s = intra ? m->intra_start_us : m->start_us, t = intra ? m->intra_byte_us : m->byte_us;
            *ts = s < *ts ? s : *ts, *tb = t < *tb ? t : *tb;
        }
        for (int k = 0; c && k < n; k++) {
            *ts = c[3 * k + 1] < *ts ? c[3 * k + 1] : *ts;
            *tb = c[3 * k + 2] < *tb ? c[3 * k + 2] : *tb;
        }
    }
}

/* switch and bus: every destination's receipts (rd_recv), each message at
 * least the cheapest; a switch's processor is busy at least its receipts
 * over its links (over links + 1 when some may come from inside its node:
 * max(a / links, b) >= (a + b) / (links + 1)), the bus all of them */
static int redist_recv_bound(const psk_adv_program *p, int next, const adv_layout *a, const adv_parts *pa,
                             const adv_layout *b, const adv_parts *pb, const psk_machine *m, double *lb)
{
    redist r;
    int rc = rd_open(&r, p, next, a, pa, b, pb);
    if (rc)
        return rc;
    double ts, tb, worst = 0, sum = 0;
    cheapest(m, &ts, &tb);
    double links = (m->links > 0 ? m->links : 1) + (m->ranks_per_node > 1);
    for (int64_t q = 0; q < r.P; q++) {
        int64_t n, by;
        rd_recv(&r, q, &n, &by);
        double t = n ? ts * (double)n + tb * (double)by : 0;
        sum += t;
        worst = t > worst ? t : worst;
    }
    *lb = m->type == PSK_NET_SWITCH ? worst / links : sum;
    *lb = *lb > 0 ? *lb : 0;
    rd_close(&r);
    return PSK_OK;
}

int psk_adv_redist_cost(const psk_adv_program *p, int next, const adv_layout *a, const adv_parts *pa,
                        const adv_layout *b, const adv_parts *pb, const psk_machine *m, double *us,
                        int64_t *msgs, int64_t *bytes)
{
    *us = 0, *msgs = 0, *bytes = 0;
    if (m->type == PSK_NET_SWITCH || m->type == PSK_NET_GRID)
        return redist_stream(p, next, a, pa, b, pb, m, 1, us, msgs, bytes);
    mlist t = {0};
    int rc = redist_list(p, next, a, pa, b, pb, &t);
    if (!rc)
        rc = psk_adv_transfer_list(t.v, t.n, psk_adv_nprocs(&a->grid), m, us);
    if (!rc)
        ml_count(&t, msgs, bytes);
    free(t.v);
    return rc;
}

int psk_adv_redist_bound(const psk_adv_program *p, int next, const adv_layout *a, const adv_parts *pa,
                         const adv_layout *b, const adv_parts *pb, const psk_machine *m, double *lb)
{
    int rc;
    *lb = 0;
    if (m->type == PSK_NET_GRID) {
        /* the grid's time is not monotone in a subset's (a shorter longest
         * distance may carry a larger message): a sample's slowest copy
         * inside a node */
        int64_t P = psk_adv_nprocs(&a->grid), step = P / 8 > 1 ? P / 8 : 1, msgs = 0, bytes = 0;
        rc = redist_stream(p, next, a, pa, b, pb, m, step, lb, &msgs, &bytes);
    } else {
        rc = redist_recv_bound(p, next, a, pa, b, pb, m, lb);
    }
    /* sums in another order than the whole's: below it to within rounding */
    *lb *= 1 - 1e-6;
    return rc;
}

int psk_adv_redist_walk(const psk_adv_program *p, int next, const adv_layout *a, const adv_layout *b,
                        const adv_walk *w)
{
    mlist t = {0};
    int rc = redist_list(p, next, a, NULL, b, NULL, &t);
    if (!rc && t.n)
        rc = w->ops(w->ctx, ADV_OP_REDIST, t.v, t.n);
    free(t.v);
    return rc;
}
