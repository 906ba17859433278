/* Pass 2 of process-count extrapolation: the merged events at P2. Each
 * event's ranks are its rank set's box at P2, each a copy of its template's
 * event with peers rebuilt (a constant, rank + c, a ring or a shift on the
 * grid), counts and compute gaps scaled by the rule (merge_extrap_rule.c),
 * arrays made uniform at the new size and grids made at P2 as the program
 * would; then the class of each event and its times per rank. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "merge_extrap.h"
#include "merge_internal.h"
#include "psk_fn_ids.h"
#include "psk_varint.h"

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
            return xnomem(x);
        for (int j = 0; j < me->nranks; j++)
            v[j] = me->ev[j].v[f];
        t.v = v;
        int dim, per;
        int64_t s;
        int ok = xgrid_match_shift(x->D, x->nd, x->per, &t, &dim, &s, &per);
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
            return xrefuse(x, x->rep->base,
                           "event %llu (%s): every rank's %s is rank %lld, and there are only %d ranks",
                           (unsigned long long)me->index, xfname(me->fn), psk_field_name(f), (long long)d->v, x->P2);
        return 0;
    case PSK_PAT_RANK:
    case PSK_PAT_RING:
        d->type = PD_PLAIN;
        d->v = me->c[f];
        return 0;
    default:
        return xrefuse(x, x->rep->base,
                       "event %llu (%s): %s is a per-rank table (no rank + c, ring or neighbour on the %d-rank "
                       "grid): it cannot be rebuilt for %d ranks",
                       (unsigned long long)me->index, xfname(me->fn), psk_field_name(f), x->P, x->P2);
    }
}

static int64_t peer_value(const xctx *x, const pdesc *d, int32_t crank, int32_t csize)
{
    if (d->type == PD_CONST)
        return d->v;
    if (d->type == PD_SHIFT)
        return xgrid_shift(x->D2, x->nd, crank, d->dim, d->v, d->periodic);
    if (csize <= 0)
        return PSK_PROC_NULL;
    int64_t v = crank + d->v;
    if (d->pkind == PSK_PAT_RING)
        return mod64(v, csize);
    return v < 0 || v >= csize ? PSK_PROC_NULL : v;
}

/* ---- pass 2: the events at P2 ---- */

int xevents_pass2(xctx *x)
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
        rc = xnomem(x);
    for (int r = 0; r < P2 && !rc; r++) {
        ident[r] = r;
        if (commtab_init(&ct[r], r, P2))
            rc = xnomem(x);
        const mrank *t = &m->rank[x->tmpl[r]];
        m2->rank[r].n = t->n;
        m2->rank[r].mono_start = t->mono_start;
        m2->rank[r].nthreads = t->nthreads; /* how many threads called, for the replay's refusal */
        if (t->perm) {
            if (!(m2->rank[r].perm = malloc((t->n ? t->n : 1) * sizeof *t->perm)))
                rc = xnomem(x);
            else if (t->n)
                memcpy(m2->rank[r].perm, t->perm, t->n * sizeof *t->perm);
        }
    }
    for (int r = 0; r < x->P && !rc; r++)
        if (commtab_init(&ct1[r], r, x->P))
            rc = xnomem(x);
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
                rc = xnomem(x);
                break;
            }
            for (int r2 = 0; r2 < P2; r2++) {
                xgrid_coords(x->D2, x->nd, r2, cc);
                if (xgrid_in_box2(x, b, cc))
                    b->list[b->n++] = r2;
            }
            b->id2 = psk_intern_id(m2->psets, b->list, (size_t)b->n * sizeof *b->list, NULL);
            if (b->id2 < 0) {
                rc = xnomem(x);
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
                rc = xrefuse(x, x->rep->base, "event %llu (%s): the root is rank %lld, and there are only %d ranks",
                             (unsigned long long)me.index, xfname(me.fn), (long long)e->v[PSK_F_ROOT], csize[j2]);
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
            int g[MAXD], gn = xscan_grid_array(&me, PSK_F_DIMS, g);
            if (gn > 0 && (me.fn == PSK_FN_Cart_create || e->v[PSK_F_I1] == x->P)) {
                int given[MAXD] = {0};
                if (me.fn == PSK_FN_Dims_create && xscan_grid_array(&me, PSK_F_DIMSIN, given) != gn)
                    gn = -1;
                else if (me.fn == PSK_FN_Cart_create && gn == x->nd && !memcmp(g, x->D, (size_t)gn * sizeof *g))
                    memcpy(given, x->rep->fixed, sizeof given);
                if (gn > 0 && xgrid_dims_fixed(P2, gn, given, g)) {
                    rc = xrefuse(x, -1, "--ranks %d: event %llu (%s) keeps dims whose product does not divide %d", P2,
                                 (unsigned long long)me.index, xfname(me.fn), P2);
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
            rc = xnomem(x);
            break;
        }
        uint8_t *q = psk_put_uvar(cbuf.p, (uint64_t)b->id2);
        q = psk_put_uvar(q, klen);
        memcpy(q, p, klen);
        cbuf.len = (size_t)(q - cbuf.p) + klen;
        for (int f = PSK_F_PEER; f <= PSK_F_RPEER && !rc; f++)
            if (pattern_is_peer(f) && ((me.fields >> f) & 1u) && pattern_encode(&cbuf, f, ev, np2, crank, csize))
                rc = xnomem(x);
        int64_t cls = rc ? -1 : merged_class_id(m2, cbuf.p, cbuf.len);
        if (cls < 0) {
            rc = xnomem(x);
            break;
        }
        uint64_t start = m2->pool.len;
        for (uint32_t fs = me.fields & ~merge_key_fields(me.fn); fs && !rc; fs &= fs - 1)
            if (pattern_encode(&m2->pool, __builtin_ctz(fs), ev, np2, crank, csize))
                rc = xnomem(x);
        if (rc || merged_push(m2, (uint32_t)cls, start)) {
            rc = xnomem(x);
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
                rc = xnomem(x);
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
                rc = xnomem(x);
    }
    if (rc == PSK_EOF)
        rc = 0;
    else if (rc && !m2->err[0])
        rc = xrefuse(x, x->rep->base, "%s", psk_merged_errmsg(m));
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
