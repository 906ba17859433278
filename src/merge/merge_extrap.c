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
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "merge_extrap.h"
#include "merge_internal.h"
#include "psk_fn_ids.h"
#include "psk_json.h"
#include "psk_varint.h"

#define MAXD 3
static const int64_t x_maxdim = 1 << 24; /* a grid's dimension at most */

enum { PD_PLAIN, PD_SHIFT, PD_CONST };
typedef struct pdesc {
    int8_t type, dim, periodic, set;
    int64_t v; /* PLAIN: the pattern's c (kind in pkind); SHIFT: disp; CONST: the value */
    uint8_t pkind;
} pdesc;

typedef struct xbox {
    int lo[MAXD], hi[MAXD], fixed[MAXD]; /* fixed: lo..lo+len (or to the end) keeps its length */
    int len[MAXD];
    int32_t *list; /* P2 ranks, ascending */
    int n;
    int64_t id2;   /* its id in the new trace */
} xbox;

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

static int refuse(xctx *x, int input, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(xctx *x, int input, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->m2->err, sizeof x->m2->err, fmt, ap);
    va_end(ap);
    x->rep->err_input = input;
    return PSK_EINVAL;
}
static int nomem(xctx *x) { return merged_fail(x->m2, PSK_ENOMEM, "out of memory"); }

static const char *fname(unsigned fn) { return psk_fn_name(fn) ? psk_fn_name(fn) : "?"; }

/* ---- the grid: row-major coordinates, the last dimension fastest ---- */

static void coords(const int *D, int nd, int64_t r, int *c)
{
    for (int k = nd - 1; k >= 0; k--) {
        c[k] = (int)(r % D[k]);
        r /= D[k];
    }
}

static int64_t shift(const int *D, int nd, int64_t r, int dim, int64_t s, int periodic)
{
    int c[MAXD];
    coords(D, nd, r, c);
    int64_t v = c[dim] + s;
    if (periodic)
        v = ((v % D[dim]) + D[dim]) % D[dim];
    else if (v < 0 || v >= D[dim])
        return PSK_PROC_NULL;
    int64_t out = 0;
    for (int k = 0; k < nd; k++)
        out = out * D[k] + (k == dim ? v : c[k]);
    return out;
}

/* MPI_Dims_create(n, nd): factors as equal as can be, non-increasing */
static void dims_create(int n, int nd, int *D)
{
    for (int k = 0; k < nd; k++)
        D[k] = 1;
    int f[64], nf = 0;
    for (int p = 2; (long long)p * p <= n; p++)
        while (n % p == 0 && nf < 64)
            f[nf++] = p, n /= p;
    if (n > 1)
        f[nf++] = n;
    for (int i = nf - 1; i >= 0; i--) { /* largest factor to the smallest dimension */
        int k = 0;
        for (int j = 1; j < nd; j++)
            if (D[j] < D[k])
                k = j;
        D[k] *= f[i];
    }
    for (int i = 0; i < nd; i++) /* sort non-increasing */
        for (int j = i + 1; j < nd; j++)
            if (D[j] > D[i]) {
                int t = D[i];
                D[i] = D[j];
                D[j] = t;
            }
}

/* MPI_Dims_create(n, nd) with the dims given: non-zero ones kept, the
 * others as equal as can be (non-increasing); -1 if the product of the
 * kept ones does not divide n */
static int dims_fixed(int n, int nd, const int *given, int *D)
{
    int fixed = 1, nfree = 0, F[MAXD];
    if (nd == 1) { /* a line: all the ranks, whatever was given */
        D[0] = n;
        return 0;
    }
    for (int k = 0; k < nd; k++) {
        if (given[k] > 0)
            fixed *= given[k];
        else
            nfree++;
    }
    if (fixed <= 0 || n % fixed || (!nfree && fixed != n))
        return -1;
    if (nfree)
        dims_create(n / fixed, nfree, F);
    for (int k = 0, i = 0; k < nd; k++)
        D[k] = given[k] > 0 ? given[k] : F[i++];
    return 0;
}

/* a table of peers seen at P, for finding the grid */
typedef struct ptable {
    uint64_t event;
    unsigned fn;
    int np;
    int32_t *crank;
    int64_t *v;
} ptable;

/* known[k]: the periodicity of dimension k if recorded, else -1 (either) */
static int match_shift(const int *D, int nd, const int *known, const ptable *t, int *dim, int64_t *s, int *periodic)
{
    for (int k = 0; k < nd; k++)
        for (int per = 0; per < 2; per++)
            for (int64_t d = -(D[k] - 1); d < D[k] && (known[k] < 0 || known[k] == per); d++) {
                if (!d)
                    continue;
                int j;
                for (j = 0; j < t->np && t->v[j] == shift(D, nd, t->crank[j], k, d, per); j++)
                    ;
                if (j == t->np) {
                    *dim = k, *s = d, *periodic = per;
                    return 1;
                }
            }
    return 0;
}

static const int unknown_per[MAXD] = {-1, -1, -1};

static int grid_fits(const int *D, int nd, const int *known, const ptable *t, int nt)
{
    int dim, per;
    int64_t s;
    for (int i = 0; i < nt; i++)
        if (!match_shift(D, nd, known, &t[i], &dim, &s, &per))
            return 0;
    return 1;
}

/* 1 if every rank set of m is a box of the grid D */
static int sets_fit(const psk_merged *m, const int *D, int nd)
{
    uint32_t n = psk_intern_count(m->psets);
    for (uint32_t s = 0; s < n; s++) {
        size_t len;
        const int32_t *r = (const int32_t *)(const void *)psk_intern_key(m->psets, s, &len);
        int np = (int)(len / sizeof *r), mn[MAXD], mx[MAXD], c[MAXD];
        for (int k = 0; k < nd; k++)
            mn[k] = D[k], mx[k] = -1;
        for (int j = 0; j < np; j++) {
            coords(D, nd, r[j], c);
            for (int k = 0; k < nd; k++)
                mn[k] = c[k] < mn[k] ? c[k] : mn[k], mx[k] = c[k] > mx[k] ? c[k] : mx[k];
        }
        long long vol = 1;
        for (int k = 0; k < nd; k++)
            vol *= mx[k] - mn[k] + 1;
        if (vol != np)
            return 0;
    }
    return 1;
}

/* The world's grid: 1-D if the peers (rank + c, rings) and rank sets fit
 * it; else MPI_Dims_create's shape for 2 or 3 dimensions whose shifts give
 * every peer that is not a constant (rank + c and rings too: a grid seen
 * in the rank sets alone may be chance) and whose boxes every rank set is */
static int find_grid(xctx *x, const ptable *t, int nt)
{
    memcpy(x->per, unknown_per, sizeof x->per);
    if (x->rnd) {
        /* the recorded grid, if the peers and rank sets follow it
         * (dimensions of 1 and the periods are then known) */
        if (grid_fits(x->rD, x->rnd, x->rper, t, nt) && sets_fit(x->m, x->rD, x->rnd)) {
            x->nd = x->rnd;
            memcpy(x->D, x->rD, sizeof x->D);
            memcpy(x->per, x->rper, sizeof x->per);
            x->rep->grid_recorded = 1;
            return 0;
        }
        x->rnd = 0; /* another grid: inferred as for older traces */
    }
    x->nd = 1;
    x->D[0] = x->P;
    if (grid_fits(x->D, 1, unknown_per, t, nt) && sets_fit(x->m, x->D, 1))
        return 0;
    for (int nd = 2; nd <= MAXD; nd++) {
        int D[MAXD];
        dims_create(x->P, nd, D);
        int ok = 1;
        for (int k = 0; k < nd; k++)
            ok &= D[k] > 1;
        if (ok && grid_fits(D, nd, unknown_per, t, nt) && sets_fit(x->m, D, nd)) {
            x->nd = nd;
            memcpy(x->D, D, sizeof D);
            return 0;
        }
    }
    /* some grid of another shape? say so: its shape at P2 is unknown */
    for (int a = 2; a < x->P; a++)
        if (x->P % a == 0) {
            int D[MAXD] = {a, x->P / a, 1};
            if (nt && grid_fits(D, 2, unknown_per, t, nt))
                return refuse(x, x->rep->base,
                              "the peers of event %llu (%s) are neighbours on a %dx%d grid, not MPI_Dims_create's "
                              "shape for %d ranks: its shape at %d ranks cannot be told",
                              (unsigned long long)t[0].event, fname(t[0].fn), D[0], D[1], x->P, x->P2);
        }
    for (int i = 0; i < nt; i++)
        if (!grid_fits(x->D, 1, unknown_per, &t[i], 1))
            return refuse(x, x->rep->base,
                          "event %llu (%s): the peers are a per-rank table (no rank + c, ring or Cartesian "
                          "neighbour): it cannot be rebuilt for %d ranks",
                          (unsigned long long)t[i].event, fname(t[i].fn), x->P2);
    return 0;
}

/* ---- rank sets: boxes of the grid ---- */

static int make_boxes(xctx *x)
{
    psk_merged *m = x->m;
    x->nsets = psk_intern_count(m->psets);
    x->box = calloc(x->nsets ? x->nsets : 1, sizeof *x->box);
    if (!x->box)
        return nomem(x);
    for (uint32_t s = 0; s < x->nsets; s++) {
        size_t len;
        const int32_t *r = (const int32_t *)(const void *)psk_intern_key(m->psets, s, &len);
        int n = (int)(len / sizeof *r), mn[MAXD], mx[MAXD], c[MAXD];
        xbox *b = &x->box[s];
        b->id2 = -1;
        for (int k = 0; k < x->nd; k++)
            mn[k] = x->D[k], mx[k] = -1;
        for (int j = 0; j < n; j++) {
            coords(x->D, x->nd, r[j], c);
            for (int k = 0; k < x->nd; k++)
                mn[k] = c[k] < mn[k] ? c[k] : mn[k], mx[k] = c[k] > mx[k] ? c[k] : mx[k];
        }
        long long vol = 1;
        for (int k = 0; k < x->nd; k++)
            vol *= mx[k] - mn[k] + 1;
        if (vol != n) {
            /* the first event of the set, for the message */
            uint64_t e = 0;
            while (e < m->n && m->cinfo[m->cls[e]].pset != s)
                e++;
            return refuse(x, x->rep->base,
                          "event %llu (%s): the %d ranks taking part (first %d, last %d) are no range of the "
                          "%d-rank grid: they cannot be rebuilt for %d ranks",
                          (unsigned long long)e, e < m->n ? fname(m->cinfo[m->cls[e]].fn) : "?", n, r[0], r[n - 1],
                          x->P, x->P2);
        }
        for (int k = 0; k < x->nd; k++) {
            b->lo[k] = mn[k];
            b->hi[k] = x->D[k] - 1 - mx[k];
            b->len[k] = mx[k] - mn[k] + 1;
            /* a range no longer than what it leaves out keeps its length
             * (a root, the first row); else it stretches with the grid */
            b->fixed[k] = b->len[k] <= (b->lo[k] > b->hi[k] ? b->lo[k] : b->hi[k]);
        }
    }
    return 0;
}

/* the box's range in dimension k at P2: [*a, *z) */
static void box_range(const xctx *x, const xbox *b, int k, int *a, int *z)
{
    if (!b->fixed[k]) {
        *a = b->lo[k];
        *z = x->D2[k] - b->hi[k];
    } else if (b->lo[k] <= b->hi[k]) {
        *a = b->lo[k];
        *z = b->lo[k] + b->len[k];
    } else {
        *z = x->D2[k] - b->hi[k];
        *a = *z - b->len[k];
    }
}

static int in_box2(const xctx *x, const xbox *b, const int *c)
{
    for (int k = 0; k < x->nd; k++) {
        int a, z;
        box_range(x, b, k, &a, &z);
        if (c[k] < a || c[k] >= z)
            return 0;
    }
    return 1;
}

static int in_box(const xctx *x, const xbox *b, const int *c)
{
    for (int k = 0; k < x->nd; k++)
        if (c[k] < b->lo[k] || c[k] >= x->D[k] - b->hi[k])
            return 0;
    return 1;
}

/* Each P2 rank's template: a recorded rank in exactly the same sets,
 * the one at the same place from the nearer end of each dimension if it
 * is (so P -> P maps every rank to itself), else the first found. */
static int templates(xctx *x)
{
    int W = (int)((x->nsets + 63) / 64);
    uint64_t *sig = calloc((size_t)x->P * (size_t)(W ? W : 1), sizeof *sig), *s2 = calloc((size_t)(W ? W : 1), sizeof *s2);
    x->tmpl = malloc((size_t)x->P2 * sizeof *x->tmpl);
    if (!sig || !s2 || !x->tmpl) {
        free(sig), free(s2);
        return nomem(x);
    }
    int c[MAXD], c2[MAXD], B[MAXD] = {0};
    for (uint32_t s = 0; s < x->nsets; s++)
        for (int k = 0; k < x->nd; k++) {
            /* the boundary width: what a set leaves out at an end, or
             * the length of one kept at an end */
            const xbox *b = &x->box[s];
            int w = !b->fixed[k] ? (b->lo[k] > b->hi[k] ? b->lo[k] : b->hi[k])
                    : b->lo[k] <= b->hi[k] ? b->lo[k] + b->len[k] : b->hi[k] + b->len[k];
            B[k] = w > B[k] ? w : B[k];
        }
    for (int r = 0; r < x->P; r++) {
        coords(x->D, x->nd, r, c);
        for (uint32_t s = 0; s < x->nsets; s++)
            if (in_box(x, &x->box[s], c))
                sig[(size_t)r * W + s / 64] |= 1ull << (s % 64);
    }
    int rc = 0;
    for (int r2 = 0; r2 < x->P2 && !rc; r2++) {
        coords(x->D2, x->nd, r2, c2);
        memset(s2, 0, (size_t)W * sizeof *s2);
        for (uint32_t s = 0; s < x->nsets; s++)
            if (in_box2(x, &x->box[s], c2))
                s2[s / 64] |= 1ull << (s % 64);
        int t = 0;
        for (int k = 0; k < x->nd; k++) {
            int D = x->D[k], D2 = x->D2[k], b = B[k] < D / 2 ? B[k] : D / 2, v;
            if (c2[k] < b)
                v = c2[k];
            else if (c2[k] >= D2 - b)
                v = D - (D2 - c2[k]);
            else
                v = D - 2 * b > 0 ? b + (c2[k] - b) % (D - 2 * b) : (c2[k] < D ? c2[k] : D - 1);
            t = t * D + (v < 0 ? 0 : v >= D ? D - 1 : v);
        }
        if (W && memcmp(&sig[(size_t)t * W], s2, (size_t)W * sizeof *s2)) {
            for (t = 0; t < x->P && memcmp(&sig[(size_t)t * W], s2, (size_t)W * sizeof *s2); t++)
                ;
            if (t == x->P)
                rc = refuse(x, -1, "--ranks %d: rank %d would take part in a combination of events no recorded rank "
                                   "took part in (a recording where every rank is at an end of the grid cannot tell "
                                   "the inner ranks' events: record more ranks per dimension, or pass "
                                   "MPI_PROC_NULL at the boundaries)",
                            x->P2, r2);
        }
        x->tmpl[r2] = t;
    }
    free(sig);
    free(s2);
    return rc;
}

/* ---- peers ---- */

static int64_t mod64(int64_t a, int64_t m) { return ((a % m) + m) % m; }

/* how the peer field f of class cls is rebuilt, from event me (first seen) */
static int peer_desc(xctx *x, const psk_mevent *me, int f, const int32_t *crank, const int32_t *csize, pdesc *d)
{
    d->set = 1;
    d->pkind = me->kind[f];
    int world = me->nranks > 0 && csize[0] == x->P;
    for (int j = 1; j < me->nranks; j++)
        world &= csize[j] == x->P;
    if (me->kind[f] != PSK_PAT_CONST && world && x->nd > 1) {
        ptable t = {me->index, me->fn, me->nranks, (int32_t *)crank, NULL};
        int64_t *v = malloc((size_t)me->nranks * sizeof *v);
        if (!v)
            return nomem(x);
        for (int j = 0; j < me->nranks; j++)
            v[j] = me->ev[j].v[f];
        t.v = v;
        int dim, per;
        int64_t s;
        int ok = match_shift(x->D, x->nd, x->per, &t, &dim, &s, &per);
        free(v);
        if (ok) {
            d->type = PD_SHIFT;
            d->dim = (int8_t)dim;
            d->v = s;
            d->periodic = (int8_t)per;
            return 0;
        }
    }
    switch (me->kind[f]) {
    case PSK_PAT_CONST:
        d->type = PD_CONST;
        d->v = me->c[f];
        if (d->v >= x->P2)
            return refuse(x, x->rep->base, "event %llu (%s): every rank's %s is rank %lld, and there are only %d ranks",
                          (unsigned long long)me->index, fname(me->fn), psk_field_name(f), (long long)d->v, x->P2);
        return 0;
    case PSK_PAT_RANK:
    case PSK_PAT_RING:
        d->type = PD_PLAIN;
        d->v = me->c[f];
        return 0;
    default:
        return refuse(x, x->rep->base,
                      "event %llu (%s): %s is a per-rank table (no rank + c, ring or neighbour on the %d-rank "
                      "grid): it cannot be rebuilt for %d ranks",
                      (unsigned long long)me->index, fname(me->fn), psk_field_name(f), x->P, x->P2);
    }
}

static int64_t peer_value(const xctx *x, const pdesc *d, int32_t crank, int32_t csize)
{
    if (d->type == PD_CONST)
        return d->v;
    if (d->type == PD_SHIFT)
        return shift(x->D2, x->nd, crank, d->dim, d->v, d->periodic);
    if (csize <= 0)
        return PSK_PROC_NULL;
    int64_t v = crank + d->v;
    if (d->pkind == PSK_PAT_RING)
        return mod64(v, csize);
    return v < 0 || v >= csize ? PSK_PROC_NULL : v;
}

/* ---- pass 1: checks, tables of peers, what the fit needs ---- */

typedef struct evstat {
    double *count, *gap; /* per event: mean over the ranks taking part */
} evstat;

static int is_sized(const psk_mevent *me, int *f)
{
    if ((me->fields >> PSK_F_COUNT) & 1u)
        *f = PSK_F_COUNT;
    else if ((me->fields >> PSK_F_RCOUNT) & 1u)
        *f = PSK_F_RCOUNT;
    else
        return 0;
    return 1;
}

/* the same int array on every rank taking part, of at most MAXD values:
 * its length, the values in v; else -1 */
static int grid_array(const psk_mevent *me, int f, int *v)
{
    if (!((me->fields >> f) & 1u) || !me->nranks)
        return -1;
    uint32_t n = PSK_ARRN(&me->ev[0], f);
    if (n > MAXD)
        return -1;
    for (int j = 0; j < me->nranks; j++) {
        if (PSK_ARRN(&me->ev[j], f) != n)
            return -1;
        for (uint32_t k = 0; k < n; k++) {
            int64_t a = PSK_ARR(&me->ev[j], f)[k];
            if (a < 0 || a > x_maxdim || a != PSK_ARR(&me->ev[0], f)[k])
                return -1;
            v[k] = (int)a;
        }
    }
    return (int)n;
}

/* pass 1 of the base: the grid of the first MPI_Cart_create over the
 * world (all ranks, in order: pass 1 refuses other members) whose dims
 * multiply to P, and the dims the last MPI_Dims_create(P, ...) that
 * returned them kept fixed */
static void note_grid(xctx *x, const psk_mevent *me)
{
    int a[MAXD], b[MAXD];
    if (me->fn == PSK_FN_Dims_create) {
        int n = grid_array(me, PSK_F_DIMSIN, a);
        if (n > 0 && grid_array(me, PSK_F_DIMS, b) == n && me->ev[0].v[PSK_F_I1] == x->P) {
            x->dcn = n;
            memcpy(x->dcin, a, sizeof a);
            memcpy(x->dcout, b, sizeof b);
        }
        return;
    }
    if (me->fn != PSK_FN_Cart_create || x->rnd || me->nranks != x->P)
        return;
    int n = grid_array(me, PSK_F_DIMS, a);
    long long prod = 1;
    for (int k = 0; k < n; k++)
        prod *= a[k];
    if (n <= 0 || prod != x->P || grid_array(me, PSK_F_PERIODS, b) != n)
        return;
    for (int k = 0; k < n; k++)
        if (b[k] > 1)
            return;
    x->rnd = n;
    memcpy(x->rD, a, sizeof a);
    memcpy(x->rper, b, sizeof b);
    memset(x->rfixed, 0, sizeof x->rfixed);
    if (x->dcn == n && !memcmp(x->dcout, a, (size_t)n * sizeof *a))
        memcpy(x->rfixed, x->dcin, sizeof x->rfixed);
}

/* walks m: per event mean count and gap (if st), and for the base, the
 * checks and the tables of peers (if pt) */
static int pass1(xctx *x, psk_merged *m, int input, evstat *st, ptable **pt, int *npt)
{
    int P = m->nranks, rc = 0;
    psk_mcursor *c;
    commtab *ct = calloc((size_t)P, sizeof *ct);
    int32_t *crank = malloc((size_t)P * sizeof *crank), *csize = malloc((size_t)P * sizeof *csize);
    uint8_t *seen = pt ? calloc(psk_merged_nclasses(m) + 1, 2) : NULL;
    if (!ct || !crank || !csize || (pt && !seen) || psk_mcursor_open(m, &c)) {
        free(ct), free(crank), free(csize), free(seen);
        return nomem(x);
    }
    for (int r = 0; r < P && !rc; r++)
        if (commtab_init(&ct[r], r, P))
            rc = nomem(x);
    int ptcap = 0;
    psk_mevent me;
    while (!rc && (rc = psk_mcursor_next(c, &me)) == PSK_OK) {
        if (st) {
            int f = PSK_F_COUNT;
            double sc = 0, sg = 0;
            int sized = is_sized(&me, &f);
            for (int j = 0; j < me.nranks; j++)
                sc += sized ? (double)me.ev[j].v[f] : 0, sg += (double)me.gap[j];
            st->count[me.index] = me.nranks ? sc / me.nranks : 0;
            st->gap[me.index] = me.nranks ? sg / me.nranks : 0;
        }
        for (int j = 0; j < me.nranks; j++)
            commtab_ctx(&ct[me.ranks[j]], &me.ev[j], &crank[j], &csize[j]);
        if (pt) {
            const char *fn = fname(me.fn);
            for (int f = PSK_F_PEER; f <= PSK_F_RPEER && !rc; f++) {
                if (!pattern_is_peer(f) || !((me.fields >> f) & 1u) || me.kind[f] == PSK_PAT_CONST ||
                    seen[2 * me.cls + (f == PSK_F_RPEER)])
                    continue;
                seen[2 * me.cls + (f == PSK_F_RPEER)] = 1;
                int world = 1;
                for (int j = 0; j < me.nranks; j++)
                    world &= csize[j] == P;
                if (!world && me.kind[f] != PSK_PAT_TABLE)
                    continue; /* rank + c inside a smaller communicator: kept as it is */
                if (!world) {
                    rc = refuse(x, input, "event %llu (%s): %s is a per-rank table on a communicator smaller than the "
                                          "world: it cannot be rebuilt",
                                (unsigned long long)me.index, fn, psk_field_name(f));
                    break;
                }
                if (*npt == ptcap) {
                    ptcap = ptcap ? 2 * ptcap : 16;
                    ptable *q = realloc(*pt, (size_t)ptcap * sizeof *q);
                    if (!q) {
                        rc = nomem(x);
                        break;
                    }
                    *pt = q;
                }
                ptable *t = &(*pt)[(*npt)++];
                t->event = me.index;
                t->fn = me.fn;
                t->np = me.nranks;
                t->crank = malloc((size_t)me.nranks * sizeof *t->crank);
                t->v = malloc((size_t)me.nranks * sizeof *t->v);
                if (!t->crank || !t->v) {
                    rc = nomem(x);
                    break;
                }
                for (int j = 0; j < me.nranks; j++)
                    t->crank[j] = crank[j], t->v[j] = me.ev[j].v[f];
            }
            note_grid(x, &me);
            /* arrays that cannot be rebuilt (a grid's are rebuilt in pass 2) */
            for (int f = PSK_F_FIRST_ARRAY; f < PSK_F_NFIELDS && !rc; f++) {
                if (!((me.fields >> f) & 1u) || f == PSK_F_REQS || f == PSK_F_INDICES || ((PSK_FIELDS_V3 >> f) & 1u))
                    continue;
                for (int j = 0; j < me.nranks && !rc; j++) {
                    uint32_t n = PSK_ARRN(&me.ev[j], f);
                    const int64_t *a = PSK_ARR(&me.ev[j], f);
                    if (!n)
                        continue;
                    if (f == PSK_F_STATUSES) {
                        rc = refuse(x, input, "event %llu (%s): wildcard receives' sources are per-rank values: they "
                                              "cannot be rebuilt",
                                    (unsigned long long)me.index, fn);
                        break;
                    }
                    int ok = me.kind[f] == PSK_PAT_CONST;
                    if (f == PSK_F_MEMBERS) {
                        ok &= n == (uint32_t)P;
                        for (uint32_t i = 0; ok && i < n; i++)
                            ok = a[i] == (int64_t)i;
                    } else {
                        ok &= n == (uint32_t)csize[j];
                        for (uint32_t i = 1; ok && i < n; i++)
                            ok = a[i] == a[0];
                    }
                    if (!ok)
                        rc = refuse(x, input,
                                    f == PSK_F_MEMBERS
                                        ? "event %llu (%s): the new communicator is not all the ranks in order "
                                          "(its members are a per-rank table): it cannot be rebuilt"
                                        : "event %llu (%s): %s differ per rank or per destination (a table): they "
                                          "cannot be rebuilt",
                                    (unsigned long long)me.index, fn, psk_field_name(f));
                }
            }
        }
        for (int j = 0; j < me.nranks && !rc; j++)
            if (commtab_event(&ct[me.ranks[j]], &me.ev[j], me.ranks[j]))
                rc = nomem(x);
    }
    if (rc == PSK_EOF)
        rc = 0;
    else if (rc && !x->m2->err[0])
        rc = refuse(x, input, "%s", psk_merged_errmsg(m));
    psk_mcursor_close(c);
    for (int r = 0; r < P; r++)
        commtab_free(&ct[r]);
    free(ct), free(crank), free(csize), free(seen);
    return rc;
}

/* ---- the job header at P2: each rank's host and calibration its template's ---- */

static int make_job(xctx *x)
{
    const psk_job *j = x->m->job;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return nomem(x);
    psk_json js;
    psk_json_init(&js, f, 0);
    psk_json_obj(&js, NULL);
    psk_json_str(&js, "format", "perfskel-trace");
    psk_json_int(&js, "version", j->format_version ? j->format_version : 1);
    char id[32];
    snprintf(id, sizeof id, "%016llx", (unsigned long long)j->job_id);
    psk_json_str(&js, "job_id", id);
    psk_json_int(&js, "ranks", x->P2);
    psk_json_obj(&js, "mpi");
    psk_json_str(&js, "flavour", j->flavour == PSK_MPI_OPENMPI ? "openmpi" : j->flavour == PSK_MPI_MPICH ? "mpich" : "");
    psk_json_str(&js, "version", j->mpi_version ? j->mpi_version : "");
    psk_json_end(&js);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "extrapolated from %d to %d ranks: %s", x->P, x->P2, j->command ? j->command : "");
    psk_json_str(&js, "command", cmd);
    psk_json_str(&js, "start_time", j->start_time ? j->start_time : "");
    psk_json_arr(&js, "hosts");
    for (int r = 0; r < x->P2; r++)
        psk_json_str(&js, NULL, j->hosts ? j->hosts[x->tmpl[r]] : "?");
    psk_json_end(&js);
    psk_json_obj(&js, "clock");
    psk_json_arr(&js, "offsets_ns");
    for (int r = 0; r < x->P2; r++)
        psk_json_int(&js, NULL, 0);
    psk_json_end(&js);
    psk_json_uint(&js, "read_ns", j->clock_read_ns);
    psk_json_end(&js);
    if (j->cores && j->hosts) {
        /* each rank's host keeps the template's name (sim knows the host
         * calibrate ran on by it), so P2 ranks may share a host that held
         * P: its cores are scaled alike, so that ranks per core, the
         * sharing the recorded compute holds (docs/simulation.md, cores
         * per node), stays what the template had */
        /* host ids: hosts[first[k]] is host k; per host, its ranks at P and P2 */
        int *first = malloc((size_t)x->P * sizeof *first), *hostof = malloc((size_t)x->P * sizeof *hostof);
        int *n1 = calloc((size_t)x->P, sizeof *n1), *c2 = calloc((size_t)x->P, sizeof *c2), nh = 0;
        if (!first || !hostof || !n1 || !c2) {
            free(first), free(hostof), free(n1), free(c2);
            fclose(f);
            free(text);
            return nomem(x);
        }
        for (int q = 0; q < x->P; q++) {
            int k = 0;
            while (k < nh && strcmp(j->hosts[first[k]], j->hosts[q]))
                k++;
            if (k == nh)
                first[nh++] = q;
            n1[k]++;
            hostof[q] = k;
        }
        for (int r = 0; r < x->P2; r++)
            c2[hostof[x->tmpl[r]]]++;
        psk_json_arr(&js, "cores");
        for (int r = 0; r < x->P2; r++) {
            int k = hostof[x->tmpl[r]];
            long long c = llround((double)j->cores[x->tmpl[r]] * c2[k] / n1[k]);
            psk_json_int(&js, NULL, c < 1 ? 1 : c > (1 << 20) ? 1 << 20 : c);
        }
        psk_json_end(&js);
        free(first), free(hostof), free(n1), free(c2);
    }
    if (j->work_ns_per_unit) {
        psk_json_obj(&js, "work");
        psk_json_str(&js, "kernel", j->work_kernel ? j->work_kernel : "");
        const double *a[3] = {j->work_ns_per_unit, j->work_q1_ns, j->work_q3_ns};
        const char *nm[3] = {"ns_per_unit", "q1_ns", "q3_ns"};
        for (int k = 0; k < 3; k++) {
            if (!a[k])
                continue;
            psk_json_arr(&js, nm[k]);
            for (int r = 0; r < x->P2; r++)
                psk_json_num(&js, NULL, a[k][x->tmpl[r]]);
            psk_json_end(&js);
        }
        psk_json_end(&js);
    }
    /* the CPU each rank stayed on, only at the recorded rank count (rank
     * r is the recorded rank r): more ranks were placed by no one */
    int on = j->cpu_on && x->P2 == x->P;
    if (j->run_share || on) { /* each rank's share of a core: its template's */
        psk_json_obj(&js, "cpu");
        if (j->run_share) {
            psk_json_arr(&js, "run_share");
            for (int r = 0; r < x->P2; r++)
                psk_json_num(&js, NULL, j->run_share[x->tmpl[r]]);
            psk_json_end(&js);
        }
        if (on) {
            psk_json_arr(&js, "on");
            for (int r = 0; r < x->P2; r++)
                psk_json_int(&js, NULL, j->cpu_on[r]);
            psk_json_end(&js);
        }
        psk_json_end(&js);
    }
    psk_json_end(&js);
    if (fclose(f) || !text) {
        free(text);
        return nomem(x);
    }
    int rc = psk_jobdoc_parse(text, len, "extrapolated job", &x->m2->doc);
    free(text);
    if (rc)
        return merged_fail(x->m2, rc, "%s", psk_jobdoc_errmsg(x->m2->doc));
    x->m2->job = psk_jobdoc_job(x->m2->doc);
    x->m2->nranks = x->P2;
    return 0;
}

/* ---- pass 2: the events at P2 ---- */

static int pass2(xctx *x)
{
    psk_merged *m = x->m, *m2 = x->m2;
    int P2 = x->P2, rc = 0;
    psk_mcursor *c = NULL;
    commtab *ct = calloc((size_t)P2, sizeof *ct), *ct1 = calloc((size_t)x->P, sizeof *ct1);
    psk_event *ev = malloc((size_t)P2 * sizeof *ev);
    int32_t *crank = malloc((size_t)P2 * sizeof *crank), *csize = malloc((size_t)P2 * sizeof *csize);
    int32_t *crank1 = malloc((size_t)x->P * sizeof *crank1), *csize1 = malloc((size_t)x->P * sizeof *csize1);
    int64_t *ident = malloc((size_t)P2 * sizeof *ident), *arrv[4] = {NULL}, dimsv[MAXD];
    for (int k = 0; k < 4; k++)
        arrv[k] = malloc((size_t)P2 * sizeof *arrv[k]);
    m2->rank = calloc((size_t)P2, sizeof *m2->rank);
    mbuf cbuf = {0};
    if (!ct || !ct1 || !ev || !crank || !csize || !crank1 || !csize1 || !ident || !arrv[0] || !arrv[1] || !arrv[2] ||
        !arrv[3] || !m2->rank || psk_mcursor_open(m, &c))
        rc = nomem(x);
    for (int r = 0; r < P2 && !rc; r++) {
        ident[r] = r;
        if (commtab_init(&ct[r], r, P2))
            rc = nomem(x);
        const mrank *t = &m->rank[x->tmpl[r]];
        m2->rank[r].n = t->n;
        m2->rank[r].mono_start = t->mono_start;
        m2->rank[r].nthreads = t->nthreads; /* how many threads called, for the replay's refusal */
        if (t->perm) {
            if (!(m2->rank[r].perm = malloc((t->n ? t->n : 1) * sizeof *t->perm)))
                rc = nomem(x);
            else if (t->n)
                memcpy(m2->rank[r].perm, t->perm, t->n * sizeof *t->perm);
        }
    }
    for (int r = 0; r < x->P && !rc; r++)
        if (commtab_init(&ct1[r], r, x->P))
            rc = nomem(x);
    psk_mevent me;
    while (!rc && (rc = psk_mcursor_next(c, &me)) == PSK_OK) {
        uint32_t pset = m->cinfo[me.cls].pset;
        xbox *b = &x->box[pset];
        for (int j = 0; j < me.nranks; j++)
            commtab_ctx(&ct1[me.ranks[j]], &me.ev[j], &crank1[j], &csize1[j]);
        if (!b->list) { /* its ranks at P2 */
            int cc[MAXD];
            b->list = malloc((size_t)P2 * sizeof *b->list);
            if (!b->list) {
                rc = nomem(x);
                break;
            }
            for (int r2 = 0; r2 < P2; r2++) {
                coords(x->D2, x->nd, r2, cc);
                if (in_box2(x, b, cc))
                    b->list[b->n++] = r2;
            }
            b->id2 = psk_intern_id(m2->psets, b->list, (size_t)b->n * sizeof *b->list, NULL);
            if (b->id2 < 0) {
                rc = nomem(x);
                break;
            }
        }
        pdesc *pd = &x->pd[2 * (size_t)me.cls];
        int neighbour = 0;
        for (int f = PSK_F_PEER; f <= PSK_F_RPEER && !rc; f++)
            if (pattern_is_peer(f) && ((me.fields >> f) & 1u)) {
                pdesc *d = &pd[f == PSK_F_RPEER];
                if (!d->set)
                    rc = peer_desc(x, &me, f, crank1, csize1, d);
                neighbour |= d->type != PD_CONST;
            }
        if (rc)
            break;
        /* ASRC: as the peer if it was, else a pattern of its own */
        int asrc = (me.fields >> PSK_F_ASRC) & 1u, asrc_peer = 0;
        pdesc ad = {0};
        if (asrc) {
            asrc_peer = 1;
            for (int j = 0; j < me.nranks; j++)
                asrc_peer &= me.ev[j].v[PSK_F_ASRC] == me.ev[j].v[PSK_F_PEER];
            if (!asrc_peer && (rc = peer_desc(x, &me, PSK_F_ASRC, crank1, csize1, &ad)))
                break;
        }
        int cat = xrule_category(me.fn, neighbour), sized = 0;
        for (int f = PSK_F_COUNT; f <= PSK_F_RCOUNT; f++)
            sized |= (me.fields >> f) & 1u;
        double fc = xrule_count_factor(&x->rule, me.index, sized ? cat : XC_NONE);
        double fg = xrule_gap_factor(&x->rule, me.index);
        int np2 = b->n;
        for (int j2 = 0, j = 0; j2 < np2; j2++) {
            int r2 = b->list[j2], t = x->tmpl[r2];
            int lo = 0, hi = me.nranks - 1;
            while (lo < hi) { /* t takes part: same sets */
                int mid = (lo + hi) / 2;
                if (me.ranks[mid] < t)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            j = lo;
            psk_event *e = &ev[j2];
            *e = me.ev[j];
            commtab_ctx(&ct[r2], e, &crank[j2], &csize[j2]);
            if ((me.fields >> PSK_F_PEER) & 1u)
                e->v[PSK_F_PEER] = peer_value(x, &pd[0], crank[j2], csize[j2]);
            if ((me.fields >> PSK_F_RPEER) & 1u)
                e->v[PSK_F_RPEER] = peer_value(x, &pd[1], crank[j2], csize[j2]);
            if (asrc)
                e->v[PSK_F_ASRC] = asrc_peer ? e->v[PSK_F_PEER] : peer_value(x, &ad, crank[j2], csize[j2]);
            for (int f = PSK_F_COUNT; f <= PSK_F_RCOUNT; f++)
                if ((f == PSK_F_COUNT || f == PSK_F_RCOUNT) && ((me.fields >> f) & 1u) && fc != 1)
                    e->v[f] = llround((double)e->v[f] * fc);
            if (psk_fn_polled(me.fn) && fg != 1)
                e->v[PSK_F_I2] = llround((double)e->v[PSK_F_I2] * fg);
            if (((me.fields >> PSK_F_ROOT) & 1u) && e->v[PSK_F_ROOT] >= csize[j2] && csize[j2] > 0) {
                rc = refuse(x, x->rep->base, "event %llu (%s): the root is rank %lld, and there are only %d ranks",
                            (unsigned long long)me.index, fname(me.fn), (long long)e->v[PSK_F_ROOT], csize[j2]);
                break;
            }
            /* arrays: members all the ranks, counts uniform (checked in pass 1) */
            for (int f = PSK_F_COUNTS; f <= PSK_F_MEMBERS; f++) {
                if (!((me.fields >> f) & 1u) || f == PSK_F_REQS || f == PSK_F_INDICES || !PSK_ARRN(e, f))
                    continue;
                int k = f - PSK_F_FIRST_ARRAY;
                if (f == PSK_F_MEMBERS) {
                    e->n[k] = (uint32_t)P2;
                    e->arr[k] = ident;
                    continue;
                }
                int64_t v = PSK_ARR(e, f)[0];
                if (f == PSK_F_COUNTS || f == PSK_F_RCOUNTS)
                    v = llround((double)v * fc);
                uint32_t n = csize[j2] > 0 ? (uint32_t)csize[j2] : 0;
                for (uint32_t i = 0; i < n; i++)
                    arrv[k][i] = v;
                e->n[k] = n;
                e->arr[k] = arrv[k];
            }
            /* a grid: MPI_Dims_create(P, ...) and MPI_Cart_create over the
             * world made at P2 as the program would */
            int g[MAXD], gn = grid_array(&me, PSK_F_DIMS, g);
            if (gn > 0 && (me.fn == PSK_FN_Cart_create || e->v[PSK_F_I1] == x->P)) {
                int given[MAXD] = {0};
                if (me.fn == PSK_FN_Dims_create && grid_array(&me, PSK_F_DIMSIN, given) != gn)
                    gn = -1;
                else if (me.fn == PSK_FN_Cart_create && gn == x->nd && !memcmp(g, x->D, (size_t)gn * sizeof *g))
                    memcpy(given, x->rep->fixed, sizeof given);
                if (gn > 0 && dims_fixed(P2, gn, given, g)) {
                    rc = refuse(x, -1, "--ranks %d: event %llu (%s) keeps dims whose product does not divide %d", P2,
                                (unsigned long long)me.index, fname(me.fn), P2);
                    break;
                }
                for (int k = 0; k < gn; k++)
                    dimsv[k] = g[k];
                if (gn > 0) {
                    PSK_ARRN(e, PSK_F_DIMS) = (uint32_t)gn;
                    PSK_ARR(e, PSK_F_DIMS) = dimsv;
                    if (me.fn == PSK_FN_Dims_create)
                        e->v[PSK_F_I1] = P2;
                }
            }
        }
        if (rc)
            break;
        /* the class: its new rank set, the same key, the new peer patterns */
        size_t clen, klen;
        const uint8_t *ck = psk_intern_key(m->classes, me.cls, &clen), *p = ck, *end = ck + clen;
        uint64_t ps = 0, kl = 0;
        psk_get_uvar(&p, end, &ps);
        psk_get_uvar(&p, end, &kl);
        klen = (size_t)kl;
        cbuf.len = 0;
        if (mbuf_reserve(&cbuf, 2 * PSK_VARINT_MAX + klen)) {
            rc = nomem(x);
            break;
        }
        uint8_t *q = psk_put_uvar(cbuf.p, (uint64_t)b->id2);
        q = psk_put_uvar(q, klen);
        memcpy(q, p, klen);
        cbuf.len = (size_t)(q - cbuf.p) + klen;
        for (int f = PSK_F_PEER; f <= PSK_F_RPEER && !rc; f++)
            if (pattern_is_peer(f) && ((me.fields >> f) & 1u) && pattern_encode(&cbuf, f, ev, np2, crank, csize))
                rc = nomem(x);
        int64_t cls = rc ? -1 : merged_class_id(m2, cbuf.p, cbuf.len);
        if (cls < 0) {
            rc = nomem(x);
            break;
        }
        uint64_t start = m2->pool.len;
        for (uint32_t fs = me.fields & ~merge_key_fields(me.fn); fs && !rc; fs &= fs - 1)
            if (pattern_encode(&m2->pool, __builtin_ctz(fs), ev, np2, crank, csize))
                rc = nomem(x);
        if (rc || merged_push(m2, (uint32_t)cls, start)) {
            rc = nomem(x);
            break;
        }
        for (int j2 = 0; j2 < np2 && !rc; j2++) {
            int r2 = b->list[j2];
            int lo = 0, hi = me.nranks - 1, t = x->tmpl[r2];
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (me.ranks[mid] < t)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            mbuf *tb = &m2->rank[r2].times;
            if (mbuf_reserve(tb, 2 * PSK_VARINT_MAX) || commtab_event(&ct[r2], &ev[j2], r2)) {
                rc = nomem(x);
                break;
            }
            int64_t gap = (int64_t)me.gap[lo];
            if (fg != 1)
                gap = llround((double)gap * fg);
            uint8_t *w = psk_put_svar(tb->p + tb->len, gap);
            w = psk_put_uvar(w, me.ev[lo].t_exit - me.ev[lo].t_entry);
            tb->len = (size_t)(w - tb->p);
        }
        for (int j = 0; j < me.nranks && !rc; j++)
            if (commtab_event(&ct1[me.ranks[j]], &me.ev[j], me.ranks[j]))
                rc = nomem(x);
    }
    if (rc == PSK_EOF)
        rc = 0;
    else if (rc && !m2->err[0])
        rc = refuse(x, x->rep->base, "%s", psk_merged_errmsg(m));
    psk_mcursor_close(c);
    for (int r = 0; ct && r < P2; r++)
        commtab_free(&ct[r]);
    for (int r = 0; ct1 && r < x->P; r++)
        commtab_free(&ct1[r]);
    free(ct), free(ct1), free(ev), free(crank), free(csize), free(crank1), free(csize1), free(ident), free(cbuf.p);
    for (int k = 0; k < 4; k++)
        free(arrv[k]);
    return rc;
}

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
        return nomem(x);
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
            return refuse(&x, 0, "a fit takes one or two more recordings");
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
        return refuse(&x, -1, "--ranks %d: not a number of ranks", x.P2);
    int rc = 0;
    evstat st[3] = {{0}};
    for (int k = 0; k < nin && o->scale == PSK_SCALE_FIT; k++) {
        for (int i = 0; i < k; i++)
            if (in[i]->nranks == in[k]->nranks)
                return refuse(&x, k, "recorded at %d ranks like another of the fit: a fit needs different rank counts",
                              in[k]->nranks);
        if (in[k]->n != x.m->n)
            return refuse(&x, k, "%llu merged events, and the %d-rank recording has %llu: a fit needs the same "
                                 "events at each rank count",
                          (unsigned long long)in[k]->n, x.P, (unsigned long long)x.m->n);
        for (uint64_t e = 0; e < x.m->n; e++)
            if (in[k]->cinfo[in[k]->cls[e]].fn != x.m->cinfo[x.m->cls[e]].fn)
                return refuse(&x, k, "merged event %llu is %s, and %s in the %d-rank recording: a fit needs the same "
                                     "events at each rank count",
                              (unsigned long long)e, fname(in[k]->cinfo[in[k]->cls[e]].fn),
                              fname(x.m->cinfo[x.m->cls[e]].fn), x.P);
        st[k].count = malloc((x.m->n ? x.m->n : 1) * sizeof(double));
        st[k].gap = malloc((x.m->n ? x.m->n : 1) * sizeof(double));
        if (!st[k].count || !st[k].gap)
            rc = nomem(&x);
    }
    ptable *pt = NULL;
    int npt = 0;
    for (int k = 0; k < nin && !rc; k++)
        if (k == base || o->scale == PSK_SCALE_FIT)
            rc = pass1(&x, in[k], k, o->scale == PSK_SCALE_FIT ? &st[k] : NULL, k == base ? &pt : NULL, &npt);
    if (!rc)
        rc = find_grid(&x, pt, npt);
    for (int i = 0; i < npt; i++)
        free(pt[i].crank), free(pt[i].v);
    free(pt);
    if (!rc) {
        rep->ndims = x.nd;
        if (rep->grid_recorded) {
            for (int k = 0; k < x.nd; k++)
                rep->periods[k] = x.per[k], rep->fixed[k] = x.rfixed[k];
            if (dims_fixed(x.P2, x.nd, x.rfixed, x.D2))
                rc = refuse(&x, -1, "--ranks %d: the recorded MPI_Dims_create kept dims whose product does not divide %d",
                            x.P2, x.P2);
        } else {
            dims_create(x.P2, x.nd, x.D2);
        }
        if (x.nd == 1)
            x.D2[0] = x.P2;
        for (int k = 0; k < x.nd && !rc; k++) {
            rep->dims_from[k] = x.D[k];
            rep->dims_to[k] = x.D2[k];
            if (x.D2[k] < 2 && x.nd > 1 && !rep->grid_recorded)
                rc = refuse(&x, -1, "--ranks %d: MPI_Dims_create gives a grid with a dimension of 1; the recorded %d-D "
                                    "grid's neighbours need 2 or more in each",
                            x.P2, x.nd);
        }
    }
    if (!rc)
        rc = make_boxes(&x);
    /* every box must fit the grid at P2 */
    for (uint32_t s = 0; s < x.nsets && !rc; s++)
        for (int k = 0; k < x.nd && !rc; k++) {
            int a, z;
            box_range(&x, &x.box[s], k, &a, &z);
            if (a < 0 || z > x.D2[k] || a >= z)
                rc = refuse(&x, -1, "--ranks %d: too few ranks for the recorded ones taking part at the ends of the "
                                    "grid (%d first, %d last left out)",
                            x.P2, x.box[s].lo[k], x.box[s].hi[k]);
        }
    if (!rc)
        rc = templates(&x);
    if (!rc && !(x.pd = calloc(2 * (size_t)psk_merged_nclasses(x.m) + 2, sizeof *x.pd)))
        rc = nomem(&x);
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
        rc = make_job(&x);
    if (!rc)
        rc = pass2(&x);
    if (!rc) {
        for (int r = 0; r < x.P2 && !rc; r++) /* same events as the template (same sets) */
            if (m2->rank[r].times.len == 0 && m2->rank[r].n)
                rc = refuse(&x, -1, "rank %d lost its events", r);
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
