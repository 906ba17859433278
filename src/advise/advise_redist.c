/* perfskel advise: the redistribution of arrays between two layouts before
 * a nest (the DVM Predictor's detailed design, 2000, section 4.2): only the
 * arrays whose contents the next nest reads move, each destination fed per
 * replica group by the member nearest it in rank. It is streamed
 * destination by destination, never as a P x P matrix, and has lower bounds
 * in O(P) per array for the plan to run on (docs/advise.md "Speed"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"

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
            best[up] = psk_adv_rank_of(g, rc);
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
    const adv_owntab **ta, **tb; /* their parts under a and b */
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
        r->da[i] = psk_adv_dist_axes(p, a, x);
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
        if (!psk_adv_own_get(r->tb[i], qb, nlo, nhi) || !psk_adv_owner_range(r->p, a, r->xs[i], nlo, nhi, clo, chi))
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
        const adv_owntab *ot = r->ta[i];
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
            int64_t s = da == r->all ? psk_adv_rank_of(&a->grid, gc) : group_near(&a->grid, da, gc, qc, q);
            if (s == q)
                continue;
            if (!r->acc[s])
                r->touched[nt++] = s;
            r->acc[s] += b;
        } while (psk_adv_next_coord(a->grid.naxes, clo, chi, gc));
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
static int64_t own_overlap(const adv_owntab *t, int d, int64_t c, int64_t lo, int64_t hi)
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
        const adv_owntab *ot = r->ta[i];
        int64_t nlo[ADV_MAXDIM], nhi[ADV_MAXDIM], clo[ADV_MAXDIM], chi[ADV_MAXDIM];
        if (!psk_adv_own_get(r->tb[i], qb, nlo, nhi) || !psk_adv_owner_range(r->p, a, r->xs[i], nlo, nhi, clo, chi))
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
                       const adv_layout *b, const adv_parts *pb, adv_mlist *t)
{
    redist r;
    int rc = rd_open(&r, p, next, a, pa, b, pb);
    if (rc)
        return rc;
    int64_t P = r.P, *src = malloc((size_t)P * sizeof *src), *by = malloc((size_t)P * sizeof *by);
    int64_t *cnt = calloc((size_t)P + 1, sizeof *cnt);
    adv_mlist d = {0};
    rc = PSK_ENOMEM;
    if (!src || !by || !cnt)
        goto out;
    for (int64_t q = 0; q < P; q++) {
        int64_t n;
        rd_dest(&r, q, src, by, &n);
        for (int64_t i = 0; i < n; i++) {
            if (psk_adv_mlist_add(&d, src[i], q, by[i]))
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
    adv_xfer x;
    int rc = rd_open(&r, p, next, a, pa, b, pb);
    if (rc)
        return rc;
    int64_t P = r.P, *src = malloc((size_t)P * sizeof *src), *by = malloc((size_t)P * sizeof *by);
    rc = PSK_ENOMEM;
    if (!src || !by || psk_adv_xfer_init(&x, P, m))
        goto out;
    for (int64_t q = step > 1 ? step / 2 : 0; q < P; q += step) {
        int64_t n;
        rd_dest(&r, q, src, by, &n);
        for (int64_t i = 0; i < n; i++) {
            psk_adv_xfer_add(&x, src[i], q, by[i]);
            *msgs += 1, *bytes += by[i];
        }
    }
    if (step > 1 && m->type == PSK_NET_GRID)
        x.l = 0, x.L = 0; /* the grid's time is not monotone in a subset's
                           * (a shorter longest distance may carry a larger
                           * message): only its slowest copy inside a node */
    *us = psk_adv_xfer_end(&x);
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
    adv_mlist t = {0};
    int rc = redist_list(p, next, a, pa, b, pb, &t);
    if (!rc)
        rc = psk_adv_transfer_list(t.v, t.n, psk_adv_nprocs(&a->grid), m, us);
    if (!rc)
        psk_adv_mlist_count(&t, msgs, bytes);
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
    adv_mlist t = {0};
    int rc = redist_list(p, next, a, NULL, b, NULL, &t);
    if (!rc && t.n)
        rc = w->ops(w->ctx, ADV_OP_REDIST, t.v, t.n);
    free(t.v);
    return rc;
}
