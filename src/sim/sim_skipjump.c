/* Skipping S iterations of a candidate loop in perfskel sim --folded
 * (a multiple of its period L): every time in the state (clocks, messages
 * in flight, posted receives, requests, collectives under way, the
 * network's resources) moves by one advance D, each rank's compute grows
 * by the gaps recorded in those iterations (read past), its MPI time by D
 * less that, every tag the loop gave becomes the one it gives S iterations
 * on, and each rank's cursor jumps S iterations. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_skip.h"

/* ---- skipping ---- */

static void shift_req(sreq *x, double by)
{
    x->post += by;
    if (!x->pending) {
        x->done += by, x->begin += by, x->end += by;
        if (x->partner > 0)
            x->partner += by;
    }
}

/* per rank, what the S skipped iterations add */
typedef struct jumpr {
    uint64_t per;        /* its events per block of L iterations */
    double mu;           /* its MPI time less waiting, per iteration */
    double cpu;          /* its recorded compute in the skipped iterations (ns, with its power) */
    uint64_t phase;      /* where in a block its next event is */
    int32_t *map[3];     /* per event of a block: its iteration (SUR_ITER), its segment (SUR_SEG) */
    double *sum[3];      /* a block's compute per iteration, per segment */
    int8_t *cls;         /* per segment of a block: the total of the call that ends it (A_P2P, ...) */
    double *msync;       /* per segment of a block: the waiting the segments' g says */
} jumpr;

/* rank q's iterations and (if seg) segments in the block of the window's
 * last L iterations (before m) into jr, and where its next gap is in a
 * block (rank qb is reading the event that begins its iteration: its gap
 * is read, nread not yet counted): -1 if its snapshots do not say (they
 * always do but for ranks far apart) */
static int seg_map(const psk_sim *s, int q, int qb, int64_t m, int seg, jumpr *jr)
{
    const skipg *g = s->skg;
    const skipr *k = &s->sk[q];
    const snap *z = psk_simi_snap_find(s, k, k->iter);
    int64_t L = g->L, jq = (k->iter - g->w0) % L;
    uint64_t pos = 0, start = 0;
    int base = 0, nseg = seg ? g->bseg : 0;
    if (!z || !(jr->map[SUR_ITER] = malloc(jr->per * sizeof **jr->map)) ||
        !(jr->sum[SUR_ITER] = malloc((size_t)L * sizeof **jr->sum)))
        return -1;
    if (seg && (!(jr->map[SUR_SEG] = malloc(jr->per * sizeof **jr->map)) ||
                !(jr->sum[SUR_SEG] = malloc((size_t)nseg * sizeof **jr->sum)) || !(jr->cls = malloc((size_t)nseg)) ||
                !(jr->msync = calloc((size_t)nseg, sizeof *jr->msync))))
        return -1;
    for (int64_t j = 0; j < L; j++) {
        const snap *x = psk_simi_snap_find(s, k, m - L + j), *y = psk_simi_snap_find(s, k, m - L + j + 1);
        if (!x || !y || pos + (y->nread - x->nread) > jr->per || (seg && base + x->nseg > nseg))
            return -1;
        if (j == jq)
            start = pos;
        for (uint64_t e = 0, c = 0; e < y->nread - x->nread; e++) {
            jr->map[SUR_ITER][pos + e] = (int32_t)j;
            if (seg)
                jr->map[SUR_SEG][pos + e] = base + (int32_t)c;
            if ((int)c < x->nseg - 1 && (uint64_t)x->spos[c] == e)
                c++; /* a blocking call ends its segment */
        }
        for (int c = 0; seg && c < x->nseg; c++) /* one after the last call waits at the next */
            jr->cls[base + c] = (int8_t)(c < x->nseg - 1 ? x->scls[c] : -1);
        pos += y->nread - x->nread;
        base += x->nseg;
    }
    if (pos != jr->per || (seg && base != nseg))
        return -1;
    for (int c = nseg - 1, next = -1; c >= 0; c--) /* (round the block) */
        next = jr->cls[c] >= 0 ? jr->cls[c] : next, jr->cls[c] = (int8_t)next;
    for (int c = nseg - 1; c >= 0 && jr->cls[c] < 0; c--)
        jr->cls[c] = jr->cls[0];
    jr->phase = (start + (s->r[q].nread + (q == qb) - z->nread)) % jr->per;
    return 0;
}

/* per iteration or segment b of a block, the slowest rank's compute and
 * MPI time less waiting: g; each rank's waiting for it goes to msync */
static double g_max(psk_sim *s, int u, int nseg, int64_t nblk, jumpr *jr)
{
    double gm = 0;
    for (int b = 0; b < nseg; b++) {
        double v = 0;
        for (int q = 0; q < s->P; q++) {
            double y = jr[q].sum[u][b] * s->inv_power[q] + s->sk[q].own[u][b] / (double)nblk;
            v = y > v ? y : v;
        }
        for (int q = 0; u == SUR_SEG && q < s->P; q++)
            jr[q].msync[b] += v - (jr[q].sum[u][b] * s->inv_power[q] + s->sk[q].own[u][b] / (double)nblk);
        gm += v;
    }
    return gm;
}

/* the recorded compute of the S skipped iterations, read from each rank's
 * gaps block by block: per rank into jr[q].cpu, the sum of surrogate
 * sur's g over the blocks into *Gs, and (seg) the waiting the segments'
 * g says into jr[q].msync; PSK_OK or psk_fgaps_next's error */
static int read_skipped(psk_sim *s, int64_t S, int sur, int seg, jumpr *jr, double *Gs)
{
    const skipg *g = s->skg;
    int64_t L = g->L, nblk = g->nw / L;
    *Gs = 0;
    for (int64_t j = 0; j < S / L; j++) {
        double gm = 0;
        for (int q = 0; q < s->P; q++) {
            double c = 0;
            psk_fgap x;
            for (int u = SUR_ITER; u <= SUR_SEG; u++)
                if (jr[q].sum[u])
                    memset(jr[q].sum[u], 0, (size_t)(u == SUR_ITER ? L : g->bseg) * sizeof *jr[q].sum[u]);
            for (uint64_t e = 0; e < jr[q].per; e++) {
                int rc = psk_fgaps_next(s->gaps, q, &x);
                if (rc)
                    return rc;
                /* polls' costs as the compute that would take as long */
                double v = x.gap + psk_simi_poll_ns(s, q, x.gap, x.calls, x.failed) / s->inv_power[q];
                c += v;
                uint64_t at = (jr[q].phase + e) % jr[q].per;
                for (int u = SUR_ITER; u <= SUR_SEG; u++)
                    if (jr[q].map[u])
                        jr[q].sum[u][jr[q].map[u][at]] += v;
            }
            c *= s->inv_power[q];
            jr[q].cpu += c;
            gm = c + (double)L * jr[q].mu > gm ? c + (double)L * jr[q].mu : gm;
        }
        double gseg = seg ? g_max(s, SUR_SEG, g->bseg, nblk, jr) : 0;
        *Gs += sur == SUR_BLOCK ? gm : sur == SUR_SEG ? gseg : g_max(s, SUR_ITER, (int)L, nblk, jr);
    }
    return PSK_OK;
}

static void jr_free(jumpr *jr, int P)
{
    for (int q = 0; jr && q < P; q++) {
        for (int u = 0; u < 3; u++)
            free(jr[q].map[u]), free(jr[q].sum[u]);
        free(jr[q].cls), free(jr[q].msync);
    }
    free(jr);
}

/* for a rank that did not wait in the window: the waiting of the skipped
 * iterations is shared between the totals as its calls that may wait
 * are, in the window's last block (before m) */
static void call_weights(const psk_sim *s, const skipr *k, int64_t m, double wt[3], double *wsum)
{
    for (int64_t j = m - s->skg->L; j < m; j++) {
        const snap *x = psk_simi_snap_find(s, k, j);
        for (int c = 0; x && c < x->nseg - 1; c++)
            wt[x->scls[c] - A_P2P] += 1, *wsum += 1;
    }
}

/* S iterations of execution exec of candidate node, measured on window w
 * ending at iteration m; rank qb's event is read but not yet run. PSK_OK
 * (*done: 1 if skipped: 0 only if the snapshots of ranks far apart do not
 * say where each is), or an error reading the recorded gaps (the replay
 * fails). */
int psk_simi_skip(psk_sim *s, int32_t node, int64_t exec, int64_t S, int64_t m, int qb, const win *w, int *done)
{
    const skipg *g = s->skg;
    int64_t L = g->L, S_L = S / L;
    /* segments to share the waiting between the totals, where the window has them */
    int seg = !w->ring && !g->noseg && g->bseg > (int)L;
    *done = 0;
    jumpr *jr = calloc((size_t)s->P, sizeof *jr);
    if (!jr)
        return PSK_ENOMEM;
    for (int q = 0; q < s->P; q++) {
        const skipr *k = &s->sk[q];
        const snap *a = psk_simi_snap_find(s, k, m), *b = w->ring ? psk_simi_snap_find(s, k, m - w->nw) : &k->base;
        uint64_t dn = a->nread - b->nread;
        jr[q].per = dn / (uint64_t)(w->nw / L); /* the same in every block: the loop's structure */
        jr[q].mu = (psk_simi_own_mpi(a) - psk_simi_own_mpi(b)) / (double)w->nw;
        if (!w->ring && seg_map(s, q, qb, m, seg, &jr[q])) {
            jr_free(jr, s->P);
            return PSK_OK;
        }
    }
    double Gs;
    int rc = read_skipped(s, S, w->sur, seg, jr, &Gs);
    if (rc) {
        jr_free(jr, s->P);
        return rc;
    }
    *done = 1;
    double f = (double)S / (double)w->nw, D = Gs + (double)S_L * w->res;
    for (int q = 0; q < s->P; q++) /* no rank computes and calls for longer than the loop takes */
        if (jr[q].cpu + (double)S * jr[q].mu > D)
            D = jr[q].cpu + (double)S * jr[q].mu;
    int wr = PSK_M_N + 1;
    for (int q = 0; q < s->P; q++) {
        rank *r = &s->r[q];
        skipr *k = &s->sk[q];
        const snap *a = psk_simi_snap_find(s, k, m), *b = w->ring ? psk_simi_snap_find(s, k, m - w->nw) : &k->base;
        const snap *last = psk_simi_snap_find(s, k, k->iter);
        double dx[A_N], inc[A_N];
        for (int c = 0; c < A_N; c++)
            dx[c] = a->acc[c] - b->acc[c];
        /* its compute is what was recorded; the rest of D is MPI time:
         * in each total as much not waiting as in the window, the rest
         * waiting, shared between the totals as the segments' g says (else
         * as in the window) */
        double mpi = D - jr[q].cpu, own = 0, wt[3], wsum = 0;
        for (int c = 0; c < 3; c++) {
            inc[A_P2P + c] = f * (dx[A_P2P + c] - dx[A_SYNC_P2P + c]);
            own += inc[A_P2P + c];
            wt[c] = seg ? 0 : f * dx[A_SYNC_P2P + c];
        }
        /* the segments' g says where the waiting goes, each segment's as
         * much as the window's replay waited there against what g said */
        for (int e = 0; seg && e < g->bseg; e++)
            wt[jr[q].cls[e] - A_P2P] += k->wmod[e] > 0 ? jr[q].msync[e] * k->wact[e] / k->wmod[e] : f * k->wact[e];
        for (int c = 0; c < 3; c++)
            wsum += wt[c] > 0 ? wt[c] : 0;
        if (!(wsum > 0)) /* it never waited in the window: where its calls are */
            call_weights(s, k, m, wt, &wsum);
        double sync = mpi > own ? mpi - own : 0;
        for (int c = 0; c < 3; c++) {
            double share = wsum > 0 ? (wt[c] > 0 ? wt[c] / wsum : 0) : c == 2;
            inc[A_SYNC_P2P + c] = sync * share;
            inc[A_P2P + c] += sync * share;
        }
        inc[A_CPU] = jr[q].cpu;
        inc[A_SYNC] = sync;
        inc[A_VAR] = f * dx[A_VAR];
        inc[A_OVERLAP] = f * dx[A_OVERLAP];
        /* the rows of intervals inside the iterations, each column as its
         * rank's total grew against the window */
        double fr[PSK_M_N + 1];
        for (int c = 0; c <= PSK_M_N; c++)
            fr[c] = f;
        fr[PSK_M_CPU] = dx[A_CPU] > 0 ? inc[A_CPU] / dx[A_CPU] : f;
        fr[PSK_M_P2P] = dx[A_P2P] > 0 ? inc[A_P2P] / dx[A_P2P] : f;
        fr[PSK_M_COLL] = dx[A_COLL] > 0 ? inc[A_COLL] / dx[A_COLL] : f;
        fr[PSK_M_WAIT] = dx[A_WAIT] > 0 ? inc[A_WAIT] / dx[A_WAIT] : f;
        fr[PSK_M_SYNC] = dx[A_SYNC] > 0 ? inc[A_SYNC] / dx[A_SYNC] : f;
        double comm = inc[A_P2P] + inc[A_COLL] + inc[A_WAIT] - inc[A_SYNC];
        psk_simi_tl_spread(s, q, 0, r->t, D, inc[A_CPU]);
        psk_simi_tl_spread(s, q, 1, r->t, D, comm);
        psk_simi_tl_spread(s, q, 2, r->t, D, inc[A_SYNC]);
        r->t += D;
        if (r->state == 1) {
            r->tcall += D, r->tdone += D;
            if (r->partner > 0)
                r->partner += D;
        }
        for (int c = 0; c < A_N; c++)
            r->acc[c] += inc[c];
        /* intervals opened inside the current iteration move with it */
        for (int i = last ? last->depth : r->depth; i < r->depth; i++) {
            r->stack[i].t_open += D;
            for (int c = 0; c < A_N; c++)
                r->stack[i].acc[c] += inc[c];
        }
        for (int i = 0; i < a->nrows; i++) {
            double *row = s->iv[i].m + (size_t)q * PSK_M_N;
            const double *x = a->rows + (size_t)i * (size_t)wr;
            const double *y = i < b->nrows ? b->rows + (size_t)i * (size_t)wr : NULL;
            double d[PSK_M_N + 1], rest;
            for (int c = 0; c <= PSK_M_N; c++)
                d[c] = x[c] - (y ? y[c] : 0);
            /* its time: its compute and its calls' (the rest, none but
             * for rounding, as the window's) */
            rest = d[PSK_M_EXEC] - d[PSK_M_CPU] - d[PSK_M_P2P] - d[PSK_M_COLL] - d[PSK_M_WAIT];
            d[PSK_M_EXEC] = f * rest;
            for (int c = PSK_M_CPU; c <= PSK_M_WAIT; c++)
                d[PSK_M_EXEC] += fr[c] * d[c];
            for (int c = 0; c < PSK_M_N; c++)
                row[c] += c == PSK_M_EXEC ? d[c] : fr[c] * d[c];
            s->iv[i].count[q] += (uint64_t)llround(f * (x[PSK_M_N] - (y ? y[PSK_M_N] : 0)));
        }
        uint64_t nev = (uint64_t)S_L * jr[q].per;
        r->nread += nev;
        s->events += nev;
        for (int64_t id = 0; id < r->nreq; id++)
            if (r->req[id].used)
                shift_req(&r->req[id], D);
        /* what the loop made keeps its tag S iterations on (the same unless
         * it follows the index) */
        for (int j = 0; j < 2; j++)
            for (msg *mg = j ? r->matched : r->unexp; mg; mg = mg->next) {
                mg->post += D, mg->arrive += D;
                psk_fprog_shift_tag(s->fp, node, exec, mg->src, mg->onode, &mg->oexec, mg->ofield, S, &mg->tag);
            }
        for (precv *pr = r->posted; pr; pr = pr->next) {
            pr->post += D;
            psk_fprog_shift_tag(s->fp, node, exec, q, pr->onode, &pr->oexec, pr->ofield, S, &pr->tag);
        }
        psk_fcursor_skip(r->fc, S);
        if (q == qb || r->has_ev) /* read, not yet run: it is the one S iterations on */
            psk_fcursor_reload(r->fc, &r->ev);
        psk_fcursor_origin(r->fc, &r->onode, &r->oexec);
        k->node = -1; /* its iterations are numbered anew */
        k->last_iter = -1;
        k->last_own = r->acc[A_P2P] + r->acc[A_COLL] + r->acc[A_WAIT] - r->acc[A_SYNC];
        k->last_sync = r->acc[A_SYNC];
    }
    jr_free(jr, s->P);
    s->skg->node = -1;
    for (coll_inst *c = s->colls; c; c = c->next)
        for (int i = 0; i < c->n; i++)
            c->arrive[i] += D;
    psk_net *n = &s->net;
    n->bus_free += D;
    if (n->out_free) {
        size_t links = (size_t)n->nnodes * (size_t)s->m->links;
        for (size_t i = 0; i < links; i++)
            n->out_free[i] += D, n->in_free[i] += D;
    }
    for (int i = 0; n->buses_free && i < s->m->buses; i++)
        n->buses_free[i] += D;
    for (int q = 0; q < s->P; q++)
        if (s->r[q].state == 0 && !s->r[q].running)
            psk_simi_rekey(s, q);
    s->skipped_iters += S;
    s->skips++;
    s->skip_var += w->se * w->se;
    return PSK_OK;
}
