/* Merging the ranks (§2.2 of Zhang et al., "Parallel Job Performance
 * Prediction Based on the Case Reconstruction", Journal of Software 2010:
 * Algorithm 2's job, done by alignment as ScalaTrace's LCS merge; Noeth
 * et al., JPDC 2009) and psk_merge. Ranks, most shared calls first,
 * are aligned one at a time with the merged list built so far (merge_lcs.c);
 * unmatched calls become events of their own just before the rank's next
 * match. World collectives, Init and Finalize, made by every rank in one
 * order, cut rank and list into segments. Ranks holding events of their own
 * are then aligned again. Invariant: each rank's calls sit in the list in
 * its (normalised) order, so one walk of the list gives the merged events. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge_internal.h"
#include "psk_varint.h"

#define NIL UINT32_MAX
/* DP cells a segment may take when aligned whole, and the whole merge on
 * top of a few per call; past that a segment is aligned a window of the
 * rank's calls at a time (linear, but a window cannot see ahead) */
#define SEG_BUDGET (1u << 24)
#define DP_PER_CALL 64
/* unmatched calls a window may hold once the DP budget is spent before
 * it shrinks: bounds the work per call when a rank shares little */
#define WIN_UNMATCHED 32
/* realignment rounds at most (each one only while it shortens the list) */
#define REFINE_ROUNDS 3

/* where a rank's calls sit: the node of each, in its normalised order.
 * Ranks whose calls sit on the very same nodes share one (the streaming
 * merge's ranks with one key sequence, most often): refs counts them */
typedef struct plc {
    uint32_t refs, group;
    uint32_t v[];
} plc;

/* while emitting, a rank whose events are read in the order they are
 * stored, all on thread 0 (most ranks): where its next event's bytes
 * start, and where its bytes end. One array read in order of rank, not
 * the rank's store, its offsets and its bytes, each a cache miss at
 * thousands of ranks. p NULL: read through the store */
typedef struct ecur {
    const uint8_t *p, *end;
} ecur;

typedef struct aligner {
    mctx *x;
    psk_merged *m;
    int P;
    keymatch km;
    uint8_t *anchor;       /* per key: a call every rank makes in one order */
    uint8_t *shared;       /* per key: more than one rank makes it */
    /* the merged sequence so far, a list of nodes */
    uint32_t *nkey, *nnext, *nranks, nn, ncap, head; /* nranks: ranks placed on it */
    plc **at;              /* per rank: the node of each of its calls */
    plc **last;            /* per key sequence: the placing its last rank got */
    lcs_ws *ws;
    uint64_t dpleft;       /* DP cells the merge may still take */
    /* the segment being aligned: its nodes and their keys, the rank's keys */
    uint32_t *bn, *bk, *ak;
    int32_t *out;
    size_t bcap, acap;
    uint32_t *anc;         /* the list's anchor keys */
    size_t anccap;
    /* emitting */
    uint64_t *pos;         /* per rank: next normalised position */
    ecur *ec;              /* per rank */
    commtab *ct;           /* per rank */
    int32_t *parts;
    psk_event *ev;         /* per participant */
    mevent_store *st;
    int64_t *gap;
    int32_t *crank, *csize;
    mbuf cbuf;
} aligner;

/* one rank's segment and where its placing stands */
typedef struct seg {
    int r;
    uint64_t j0;     /* rank position of ak[0] */
    uint32_t m, nb;  /* the rank's calls, the list's nodes bn[0..nb) */
    uint32_t ynext;  /* first node not passed */
    uint32_t before; /* the node right before bn[ynext] (NIL: list head) */
    uint64_t pend;   /* first rank position not placed yet */
} seg;

typedef struct busy {
    uint64_t shared, n;
    int r;
} busy;

static uint32_t key_at(const aligner *a, int r, uint64_t k)
{
    const rstore *s = &a->x->rs[r];
    return s->key[rs_index(s, k)];
}

/* a new node of key k after node `after` (NIL: at the head), or NIL */
static uint32_t new_node(aligner *a, uint32_t k, uint32_t after)
{
    if (a->nn == a->ncap) {
        size_t cap = a->ncap, c2 = a->ncap, c3 = a->ncap;
        if (MERGE_GROW(&a->nkey, &cap, (size_t)a->nn + 1) || MERGE_GROW(&a->nnext, &c2, (size_t)a->nn + 1) ||
            MERGE_GROW(&a->nranks, &c3, (size_t)a->nn + 1))
            return NIL;
        a->ncap = (uint32_t)(cap < c2 ? (cap < c3 ? cap : c3) : (c2 < c3 ? c2 : c3));
    }
    uint32_t v = a->nn++;
    a->nkey[v] = k;
    a->nranks[v] = 1;
    if (after == NIL) {
        a->nnext[v] = a->head;
        a->head = v;
    } else {
        a->nnext[v] = a->nnext[after];
        a->nnext[after] = v;
    }
    return v;
}

/* rank positions [g->pend, end) become nodes of their own after node pred;
 * returns the last one placed (pred if none), or NIL out of memory */
static uint32_t place_unmatched(aligner *a, seg *g, uint64_t end, uint32_t pred)
{
    for (uint64_t q = g->pend; q < end; q++) {
        uint32_t v = new_node(a, key_at(a, g->r, q), pred);
        if (v == NIL)
            return NIL;
        a->at[g->r]->v[q] = v;
        pred = v;
    }
    g->pend = end;
    return pred;
}

/* rank position jx matches node bn[y]; the unmatched calls before it go
 * right before that node, after the ones the rank skips */
static int place_match(aligner *a, seg *g, uint64_t jx, uint32_t y)
{
    uint32_t v = a->bn[y], pred = y == g->ynext ? g->before : a->bn[y - 1];
    if (jx > g->pend && place_unmatched(a, g, jx, pred) == NIL)
        return -1;
    uint32_t k = key_at(a, g->r, jx);
    if (a->km.anynull && a->km.hasnull[a->nkey[v]] && !a->km.hasnull[k])
        a->nkey[v] = k; /* a real peer now stands for the PROC_NULL ones */
    a->at[g->r]->v[jx] = v;
    a->nranks[v]++;
    g->before = v;
    g->ynext = y + 1;
    g->pend = jx + 1;
    return 0;
}

/* a segment too hard to align whole: a window of the rank's calls at a
 * time, committing the first half of each (the second half only says how
 * the first fits), the window shrinking while calls go unmatched */
static int align_windows(aligner *a, seg *g)
{
    uint64_t W64 = 16 * (uint64_t)a->x->o.window;
    uint32_t W = W64 > (1u << 20) ? 1u << 20 : (uint32_t)W64, w = W, xa = 0;
    while (xa < g->m) {
        uint32_t wa = g->m - xa < w ? g->m - xa : w;
        int last = xa + wa == g->m;
        /* the list's share of the window, as the rest of the segment
         * averages it, and a little more: room to skip what the rank does
         * not make, not to run ahead of where it is */
        uint32_t y1 = g->nb;
        double reach = (double)wa * (g->nb - g->ynext) / (g->m - xa) + wa / 8 + 16;
        if (!last && g->ynext + reach < y1)
            y1 = g->ynext + (uint32_t)reach;
        /* up to a quarter of the window unmatched while the merge's DP
         * budget lasts, then WIN_UNMATCHED */
        uint64_t budget = (uint64_t)(wa + 1) * (wa / 4 > WIN_UNMATCHED ? wa / 4 : WIN_UNMATCHED);
        if (budget > a->dpleft)
            budget = a->dpleft;
        if (budget < (uint64_t)(wa + 1) * WIN_UNMATCHED)
            budget = (uint64_t)(wa + 1) * WIN_UNMATCHED;
        int rc = lcs_align(a->ws, a->ak + xa, wa, g->ynext, y1, budget, a->out);
        a->dpleft -= lcs_cells(a->ws) < a->dpleft ? lcs_cells(a->ws) : a->dpleft;
        if (rc < 0)
            return -1;
        if (rc > 0 && w > 8) {
            w = w / 2 > 8 ? w / 2 : 8;
            continue;
        }
        if (rc > 0) /* cannot happen: 8 calls fit any budget here */
            return -1;
        uint32_t cut = wa;
        if (!last) {
            int32_t lastx = -1, firstx = -1;
            for (uint32_t q = 0; q < wa; q++)
                if (a->out[q] >= 0) {
                    if (firstx < 0)
                        firstx = (int32_t)q;
                    if (q < wa / 2)
                        lastx = (int32_t)q;
                }
            cut = lastx >= 0 ? (uint32_t)lastx + 1 : firstx >= 0 ? (uint32_t)firstx + 1 : (wa + 1) / 2;
        }
        for (uint32_t q = 0; q < cut; q++)
            if (a->out[q] >= 0 && place_match(a, g, g->j0 + xa + q, (uint32_t)a->out[q]))
                return -1;
        xa += cut;
        if (w < W)
            w = 2 * w < W ? 2 * w : W;
    }
    return 0;
}

/* aligns the rank's calls ak[0..m) with the nodes bn[0..nb), places them */
static int align_segment(aligner *a, seg *g)
{
    uint32_t q = 0;
    if (g->m == g->nb) /* in step all the way: nothing to search */
        while (q < g->m && keys_match(&a->km, a->ak[q], a->bk[q]))
            q++;
    if (q && q == g->m) {
        for (q = 0; q < g->m; q++)
            if (place_match(a, g, g->j0 + q, q))
                return -1;
    } else {
        if (lcs_index(a->ws, a->bk, g->nb))
            return -1;
        int rc = lcs_align(a->ws, a->ak, g->m, 0, g->nb, a->dpleft < SEG_BUDGET ? a->dpleft : SEG_BUDGET, a->out);
        a->dpleft -= lcs_cells(a->ws) < a->dpleft ? lcs_cells(a->ws) : a->dpleft;
        if (rc < 0)
            return -1;
        if (rc > 0) {
            if (align_windows(a, g))
                return -1;
        } else {
            for (q = 0; q < g->m; q++)
                if (a->out[q] >= 0 && place_match(a, g, g->j0 + q, (uint32_t)a->out[q]))
                    return -1;
        }
    }
    /* calls after the last match: at the segment's end */
    uint32_t pred = g->ynext < g->nb ? a->bn[g->nb - 1] : g->before;
    uint32_t v = place_unmatched(a, g, g->j0 + g->m, pred);
    if (v == NIL)
        return -1;
    g->before = v;
    return 0;
}

/* 1 if rank r makes the anchor calls the list holds, in the same order
 * (always, for a correct MPI program; else it is aligned in one piece) */
static int anchors_agree(aligner *a, int r)
{
    size_t n = 0;
    for (uint32_t v = a->head; v != NIL; v = a->nnext[v])
        if (a->anchor[a->nkey[v]]) {
            if (MERGE_GROW(&a->anc, &a->anccap, n + 1))
                return 0;
            a->anc[n++] = a->nkey[v];
        }
    size_t i = 0;
    const rstore *s = &a->x->rs[r];
    for (uint64_t k = 0; k < s->n; k++) {
        uint32_t key = key_at(a, r, k);
        if (a->anchor[key] && (i == n || !keys_match(&a->km, key, a->anc[i++])))
            return 0;
    }
    return i == n;
}

static plc *plc_new(uint64_t n)
{
    plc *p = malloc(sizeof *p + (n ? n : 1) * sizeof *p->v);
    if (p) {
        p->refs = 1;
        p->group = NIL;
    }
    return p;
}

/* rank r lets go of its placing */
static void plc_drop(aligner *a, int r)
{
    plc *p = a->at[r];
    a->at[r] = NULL;
    if (!p || --p->refs)
        return;
    if (a->x->seq && a->last[a->x->seq[r]] == p)
        a->last[a->x->seq[r]] = NULL;
    free(p);
}

static int align_rank(aligner *a, int r);

/* aligns rank r (holding no placing) into a placing of its own, then
 * shares the last one of its key sequence if they are the same */
static int place_rank(aligner *a, int r)
{
    uint64_t n = a->x->rs[r].n;
    if (!n)
        return 0;
    if (!(a->at[r] = plc_new(n)) || align_rank(a, r))
        return -1;
    if (!a->x->seq)
        return 0;
    plc **last = &a->last[a->x->seq[r]], *p = a->at[r];
    if (*last && !memcmp((*last)->v, p->v, n * sizeof *p->v)) {
        free(p);
        a->at[r] = *last;
        (*last)->refs++;
    } else {
        *last = p;
    }
    return 0;
}

static int align_rank(aligner *a, int r)
{
    const rstore *s = &a->x->rs[r];
    if (!s->n)
        return 0;
    if (a->head == NIL) { /* the first rank: the list is its calls */
        uint32_t pred = NIL;
        for (uint64_t k = 0; k < s->n; k++)
            if ((pred = a->at[r]->v[k] = new_node(a, key_at(a, r, k), pred)) == NIL)
                return -1;
        return 0;
    }
    int anchored = anchors_agree(a, r);
    seg g = {.r = r, .before = NIL};
    for (uint64_t j = 0; j < s->n;) {
        uint64_t end = j;
        if (anchored) { /* up to and with the next anchor call */
            while (end < s->n && !a->anchor[key_at(a, r, end)])
                end++;
            end = end < s->n ? end + 1 : end;
        } else {
            end = s->n;
        }
        size_t nb = 0;
        for (uint32_t v = g.before == NIL ? a->head : a->nnext[g.before]; v != NIL; v = a->nnext[v]) {
            if (nb == a->bcap) {
                size_t c2 = a->bcap;
                if (MERGE_GROW(&a->bn, &a->bcap, nb + 1) || MERGE_GROW(&a->bk, &c2, nb + 1))
                    return -1;
            }
            a->bn[nb] = v;
            a->bk[nb++] = a->nkey[v];
            if (anchored && a->anchor[a->nkey[v]])
                break;
        }
        size_t m = (size_t)(end - j);
        if (m > a->acap) {
            size_t c = m + m / 2;
            int32_t *o = realloc(a->out, c * sizeof *o);
            if (o)
                a->out = o;
            uint32_t *k = o ? realloc(a->ak, c * sizeof *k) : NULL;
            if (!k)
                return -1;
            a->ak = k;
            a->acap = c;
        }
        for (size_t q = 0; q < m; q++)
            a->ak[q] = key_at(a, r, j + q);
        g.j0 = j;
        g.m = (uint32_t)m;
        g.nb = (uint32_t)nb;
        g.ynext = 0;
        g.pend = j;
        if (align_segment(a, &g))
            return -1;
        j = end;
    }
    return 0;
}

/* Emitting visits every participant's records, one rank after another:
 * at thousands of ranks each of them a cache miss. The loads are asked
 * for ahead, each stage a few ranks before the next needs it: EMIT_AHEAD
 * ranks on the rank's cursor, position and communicators, half that on
 * its next event's bytes (for a rank read through its store: the store,
 * then a quarter on the event's offset, an eighth on its bytes). Always
 * inlined: GCC takes a function that only prefetches for one without
 * effects and drops its calls. */
#define EMIT_AHEAD 16

static inline __attribute__((always_inline)) void emit_prefetch(const aligner *a, int j, int np)
{
    const mctx *x = a->x;
    if (j + EMIT_AHEAD < np) {
        int r = a->parts[j + EMIT_AHEAD];
        __builtin_prefetch(&a->ec[r]);
        __builtin_prefetch(&a->pos[r]);
        __builtin_prefetch(&a->ct[r]);
    }
    if (j + EMIT_AHEAD / 2 < np) {
        int r = a->parts[j + EMIT_AHEAD / 2];
        if (a->ec[r].p)
            __builtin_prefetch(a->ec[r].p);
        else
            __builtin_prefetch(&x->rs[r]);
    }
    if (j + EMIT_AHEAD / 4 < np) {
        int r = a->parts[j + EMIT_AHEAD / 4];
        const rstore *s = &x->rs[r];
        if (!a->ec[r].p)
            __builtin_prefetch(s->perm ? (const void *)&s->perm[a->pos[r]] : (const void *)&s->off[a->pos[r]]);
    }
    if (j + EMIT_AHEAD / 8 < np) {
        int r = a->parts[j + EMIT_AHEAD / 8];
        const rstore *s = &x->rs[r];
        if (!a->ec[r].p) {
            uint64_t i = rs_index(s, a->pos[r]);
            if (i < s->n)
                __builtin_prefetch(s->buf.p + s->off[i]);
        }
    }
}

/* the same for the second pass, which appends to each rank's times */
static inline __attribute__((always_inline)) void emit_prefetch_times(const aligner *a, int j, int np)
{
    if (j + EMIT_AHEAD < np) {
        int r = a->parts[j + EMIT_AHEAD];
        __builtin_prefetch(&a->m->rank[r]);
    }
    if (j + EMIT_AHEAD / 2 < np) {
        const mrank *mr = &a->m->rank[a->parts[j + EMIT_AHEAD / 2]];
        __builtin_prefetch(mr->times.p + mr->times.len, 1);
        if (mr->nthr) /* none while every event so far was on thread 0 */
            __builtin_prefetch(&mr->thr[mr->nthr - 1], 1);
    }
}

/* one merged event of the ranks parts[0..np), all at their next call,
 * whose calls match key rep */
static int emit(aligner *a, int np, uint32_t rep)
{
    mctx *x = a->x;
    psk_merged *m = a->m;
    for (int j = 0; j < np; j++) {
        int r = a->parts[j];
        const rstore *s = &x->rs[r];
        if (!x->fetch)
            emit_prefetch(a, j, np);
        if (x->fetch) {
            int rc = x->fetch(x, r, a->pos[r], &a->ev[j], &a->gap[j], &a->st[j]);
            if (rc)
                return rc;
        } else if (a->ec[r].p) {
            if (mevent_decode(&a->ec[r].p, a->ec[r].end, &a->ev[j], &a->gap[j], &a->st[j]))
                return merged_fail(m, PSK_EFORMAT, "rank %d: event %llu undecodable", r,
                                   (unsigned long long)a->pos[r]);
        } else {
            uint64_t i = rs_index(s, a->pos[r]);
            const uint8_t *p = s->buf.p + s->off[i];
            if (mevent_decode(&p, s->buf.p + s->buf.len, &a->ev[j], &a->gap[j], &a->st[j]))
                return merged_fail(m, PSK_EFORMAT, "rank %d: event %llu undecodable", r, (unsigned long long)i);
            a->ev[j].thread = s->thr ? (int)s->thr[i] : 0;
        }
        commtab_ctx(&a->ct[r], &a->ev[j], &a->crank[j], &a->csize[j]);
    }
    int64_t pset = psk_intern_id(m->psets, a->parts, (size_t)np * sizeof *a->parts, NULL);
    size_t klen;
    const uint8_t *key = psk_intern_key(x->keys, rep, &klen);
    a->cbuf.len = 0;
    if (pset < 0 || mbuf_reserve(&a->cbuf, 2 * PSK_VARINT_MAX + klen))
        return merged_fail(m, PSK_ENOMEM, "out of memory");
    uint8_t *p = psk_put_uvar(a->cbuf.p, (uint64_t)pset);
    p = psk_put_uvar(p, klen);
    memcpy(p, key, klen);
    a->cbuf.len = (size_t)(p - a->cbuf.p) + klen;
    uint32_t fields = a->ev[0].fields;
    for (int f = PSK_F_PEER; f <= PSK_F_RPEER; f++)
        if (pattern_is_peer(f) && ((fields >> f) & 1u) &&
            pattern_encode(&a->cbuf, f, a->ev, np, a->crank, a->csize))
            return merged_fail(m, PSK_ENOMEM, "out of memory");
    int64_t cls = merged_class_id(m, a->cbuf.p, a->cbuf.len);
    uint64_t start = m->pool.len;
    if (cls < 0)
        return merged_fail(m, PSK_ENOMEM, "out of memory");
    for (uint32_t fs = fields & ~merge_key_fields(a->ev[0].fn); fs; fs &= fs - 1)
        if (pattern_encode(&m->pool, __builtin_ctz(fs), a->ev, np, a->crank, a->csize))
            return merged_fail(m, PSK_ENOMEM, "out of memory");
    if (merged_push(m, (uint32_t)cls, start))
        return merged_fail(m, PSK_ENOMEM, "out of memory");
    int summary = m->tsum && x->drain; /* streaming: the summary, not the times */
    if (summary) {
        for (int j = 0; j < np; j++) {
            m->ts_g[j] = a->gap[j];
            m->ts_d[j] = (int64_t)(a->ev[j].t_exit - a->ev[j].t_entry);
        }
        if (tsum_event(m, &m->ts, m->nbase + m->n - 1, (uint32_t)cls, a->parts, np, m->ts_g, m->ts_d))
            return merged_fail(m, PSK_ENOMEM, "out of memory");
    }
    for (int j = 0; j < np; j++) {
        int r = a->parts[j];
        mbuf *t = &m->rank[r].times;
        emit_prefetch_times(a, j, np);
        if ((!summary && mbuf_reserve(t, 2 * PSK_VARINT_MAX)) || commtab_event(&a->ct[r], &a->ev[j], r) ||
            mrank_thread(&m->rank[r], (uint32_t)a->ev[j].thread, a->pos[r]))
            return merged_fail(m, PSK_ENOMEM, "out of memory");
        if (summary) {
            a->pos[r]++;
            continue;
        }
        uint8_t *q = psk_put_svar(t->p + t->len, a->gap[j]);
        q = psk_put_uvar(q, a->ev[j].t_exit - a->ev[j].t_entry);
        t->len = (size_t)(q - t->p);
        a->pos[r]++;
    }
    if (x->drain) {
        int rc = x->drain(x, a->parts, np);
        if (rc)
            return rc;
    }
    x->done += (uint64_t)np;
    if (x->o.progress && x->done >> 20 != (x->done - (uint64_t)np) >> 20)
        x->o.progress(x->o.progress_arg, x->done, x->total);
    return PSK_OK;
}

/* Progressive alignment can go wrong where calls repeat (a b a b ...): an
 * early rank's unmatched calls may land where later ranks cannot use them.
 * A rank holding merged events no other rank is on is taken out of the
 * list and aligned again with all the others; the new placing is kept if
 * the rank then holds fewer events of its own (aligned exactly it never
 * holds more: its old placing is one alignment), else the list is put back.
 * Returns 1 if some rank improved, 0, -1 out of memory. Not done with
 * PROC_NULL about, where a rank may be what gives an event its key. */
static int refine(aligner *a, const busy *order)
{
    int changed = 0, rc = 0;
    uint32_t *snext = NULL, *sranks = NULL;
    size_t cap = 0, c2 = 0;
    if (a->km.anynull)
        return 0;
    for (int i = 0; i < a->P && !rc; i++) {
        int r = order[i].r;
        const rstore *s = &a->x->rs[r];
        plc *old = a->at[r];
        /* only events of its own whose call other ranks make could go */
        uint64_t own = 0, movable = 0;
        for (uint64_t k = 0; k < s->n; k++)
            if (a->nranks[old->v[k]] == 1) {
                own++;
                movable += a->shared[key_at(a, r, k)];
            }
        if (!movable)
            continue;
        uint32_t nn = a->nn, head = a->head;
        if (MERGE_GROW(&snext, &cap, nn) || MERGE_GROW(&sranks, &c2, nn)) {
            rc = -1;
            break;
        }
        memcpy(snext, a->nnext, nn * sizeof *snext);
        memcpy(sranks, a->nranks, nn * sizeof *sranks);
        for (uint64_t k = 0; k < s->n; k++)
            a->nranks[old->v[k]]--;
        uint32_t prev = NIL;
        for (uint32_t v = a->head; v != NIL; v = a->nnext[v]) {
            if (a->nranks[v]) {
                prev = v;
                continue;
            }
            if (prev == NIL)
                a->head = a->nnext[v];
            else
                a->nnext[prev] = a->nnext[v];
        }
        a->at[r] = NULL; /* old stays held until the new placing is judged */
        if (place_rank(a, r)) {
            plc_drop(a, r);
            a->at[r] = old;
            rc = -1;
            break;
        }
        uint64_t now = 0;
        for (uint64_t k = 0; k < s->n; k++)
            now += a->nranks[a->at[r]->v[k]] == 1;
        if (now < own) {
            plc *neu = a->at[r];
            a->at[r] = old;
            plc_drop(a, r);
            a->at[r] = neu;
            changed = 1;
            continue;
        }
        /* no better (a window's guess): as it was */
        a->nn = nn;
        a->head = head;
        memcpy(a->nnext, snext, nn * sizeof *snext);
        memcpy(a->nranks, sranks, nn * sizeof *sranks);
        plc_drop(a, r);
        a->at[r] = old;
    }
    free(snext);
    free(sranks);
    return rc ? rc : changed;
}

/* the ranks of groups g[0..k) (each's ranks ascending: grank[goff[g]..])
 * into out, ascending: a k-way merge through a small heap */
static int merge_groups(const uint32_t *g, uint32_t k, const uint32_t *goff, const int32_t *grank, int32_t *out,
                        uint32_t *heap, uint32_t *at)
{
    int n = 0;
    if (k == 1) {
        for (uint32_t i = goff[g[0]]; i < goff[g[0] + 1]; i++)
            out[n++] = grank[i];
        return n;
    }
    /* heap of indexes into g, by their group's next rank */
#define HEAD(i) grank[at[i]]
    uint32_t hn = 0;
    for (uint32_t i = 0; i < k; i++) {
        at[i] = goff[g[i]];
        uint32_t c = hn++;
        while (c && HEAD(heap[(c - 1) / 2]) > HEAD(i)) {
            heap[c] = heap[(c - 1) / 2];
            c = (c - 1) / 2;
        }
        heap[c] = i;
    }
    while (hn) {
        uint32_t i = heap[0];
        out[n++] = HEAD(i);
        uint32_t top = ++at[i] < goff[g[i] + 1] ? i : heap[--hn];
        if (!hn)
            break;
        uint32_t c = 0;
        for (;;) { /* sift top down from the root */
            uint32_t l = 2 * c + 1, m = l;
            if (l >= hn)
                break;
            if (l + 1 < hn && HEAD(heap[l + 1]) < HEAD(heap[l]))
                m = l + 1;
            if (HEAD(heap[m]) >= HEAD(top))
                break;
            heap[c] = heap[m];
            c = m;
        }
        heap[c] = top;
    }
#undef HEAD
    return n;
}

/* walks the list: each node one merged event of the ranks placed on it.
 * Ranks sharing a placing are one group, so the node -> groups index
 * holds each distinct placing once */
static int emit_all(aligner *a)
{
    mctx *x = a->x;
    int P = a->P, rc = PSK_OK;
    uint32_t ng = 0;
    plc **gp = malloc((size_t)P * sizeof *gp);
    uint32_t *goff = calloc((size_t)P + 2, sizeof *goff), *gfill = calloc((size_t)P + 1, sizeof *gfill);
    uint64_t *gn = malloc((size_t)P * sizeof *gn);
    int32_t *grank = malloc((size_t)P * sizeof *grank);
    uint32_t *heap = malloc((size_t)P * sizeof *heap), *hat = malloc((size_t)P * sizeof *hat);
    uint32_t *cnt = calloc((size_t)a->nn + 1, sizeof *cnt), *off = malloc(((size_t)a->nn + 1) * sizeof *off);
    uint32_t *who = NULL;
    if (!gp || !goff || !gfill || !gn || !grank || !heap || !hat || !cnt || !off) {
        rc = merged_fail(a->m, PSK_ENOMEM, "out of memory");
        goto out;
    }
    /* groups, numbered by their lowest rank; their ranks ascending */
    for (int r = 0; r < P; r++) {
        plc *p = a->at[r];
        if (!p)
            continue;
        if (p->group == NIL) {
            p->group = ng;
            gp[ng] = p;
            gn[ng++] = x->rs[r].n;
        }
        goff[p->group + 1]++;
    }
    for (uint32_t g = 0; g < ng; g++)
        goff[g + 1] += goff[g];
    for (int r = 0; r < P; r++)
        if (a->at[r])
            grank[goff[a->at[r]->group] + gfill[a->at[r]->group]++] = r;
    /* groups of each node, counted, laid out, filled */
    uint64_t sum = 0;
    for (uint32_t g = 0; g < ng; g++) {
        for (uint64_t k = 0; k < gn[g]; k++)
            cnt[gp[g]->v[k]]++;
        sum += gn[g];
    }
    if (!(who = malloc((sum ? sum : 1) * sizeof *who))) {
        rc = merged_fail(a->m, PSK_ENOMEM, "out of memory");
        goto out;
    }
    sum = 0;
    for (uint32_t v = 0; v < a->nn; v++) {
        off[v] = (uint32_t)sum;
        sum += cnt[v];
        cnt[v] = 0;
    }
    for (uint32_t g = 0; g < ng; g++)
        for (uint64_t k = 0; k < gn[g]; k++) {
            uint32_t v = gp[g]->v[k];
            who[off[v] + cnt[v]++] = g;
        }
    for (int r = 0; !x->fetch && r < P; r++) {
        const rstore *s = &x->rs[r];
        if (s->n && !s->perm && !s->thr && s->off[0] == 0)
            a->ec[r] = (ecur){s->buf.p, s->buf.p + s->buf.len};
    }
    const uint32_t *lastg = NULL; /* the groups the ranks in a->parts came from */
    uint32_t lastk = 0;
    int np = 0;
    for (uint32_t v = a->head; v != NIL && !rc; v = a->nnext[v]) {
        /* a node of the same groups as the last (in order of group, as
         * filled): the same ranks, as most nodes of a regular code */
        if (!lastg || cnt[v] != lastk || memcmp(who + off[v], lastg, cnt[v] * sizeof *who)) {
            np = merge_groups(who + off[v], cnt[v], goff, grank, a->parts, heap, hat);
            lastg = who + off[v];
            lastk = cnt[v];
        }
        for (int j = 0; j < np; j++)
            assert(a->at[a->parts[j]]->v[a->pos[a->parts[j]]] == v);
        rc = emit(a, np, a->nkey[v]);
    }
out:
    free(gp);
    free(goff);
    free(gfill);
    free(gn);
    free(grank);
    free(heap);
    free(hat);
    free(cnt);
    free(off);
    free(who);
    return rc;
}

/* every rank's keys known: which calls every rank makes in one order */
static int key_tables(aligner *a)
{
    mctx *x = a->x;
    uint32_t nkeys = psk_intern_count(x->keys);
    a->km = (keymatch){.loose = x->loose, .hasnull = x->hasnull, .nkeys = nkeys,
                       .nloose = psk_intern_count(x->loosekeys)};
    a->anchor = calloc(nkeys ? nkeys : 1, 1);
    if (!a->anchor)
        return -1;
    for (uint32_t k = 0; k < nkeys; k++) {
        size_t len;
        const uint8_t *p = psk_intern_key(x->keys, k, &len), *end = p + len;
        uint64_t fn = 0;
        int64_t comm = -1;
        a->km.anynull |= x->hasnull[k];
        if (psk_get_uvar(&p, end, &fn))
            continue;
        int cls = psk_fn_class((unsigned)fn);
        /* the key's first field is the communicator (field 0) when it has one */
        if ((cls == PSK_CLASS_COLL || cls == PSK_CLASS_ICOLL) &&
            (psk_fn_fields((unsigned)fn) & merge_key_fields((unsigned)fn) & (1u << PSK_F_COMM)) &&
            !psk_get_svar(&p, end, &comm) && comm == 0)
            a->anchor[k] = 1;
        if (psk_fn_op((unsigned)fn) == PSK_FNOP_INIT || psk_fn_op((unsigned)fn) == PSK_FNOP_FINALIZE)
            a->anchor[k] = 1;
    }
    return 0;
}


/* The list starts as the first rank's calls and the others align with it:
 * first the ranks with the most calls that other ranks also make (an
 * interior rank of a stencil, not one with calls of its own), then the
 * busiest. */
static int cmp_busiest(const void *p, const void *q)
{
    const busy *u = p, *v = q;
    if (u->shared != v->shared)
        return u->shared > v->shared ? -1 : 1;
    if (u->n != v->n)
        return u->n > v->n ? -1 : 1;
    return (u->r > v->r) - (u->r < v->r);
}

/* per rank, its calls whose key another rank's calls have too */
static int rank_order(aligner *a, busy *order)
{
    mctx *x = a->x;
    uint32_t nk = a->km.nkeys ? a->km.nkeys : 1;
    int32_t *last = malloc(nk * sizeof *last);
    uint8_t *many = a->shared = calloc(nk, 1);
    if (!last || !many) {
        free(last);
        return -1;
    }
    memset(last, 0xff, nk * sizeof *last);
    for (int r = 0; r < a->P; r++)
        for (uint64_t k = 0; k < x->rs[r].n; k++) {
            uint32_t key = x->rs[r].key[k];
            if (last[key] >= 0 && last[key] != r)
                many[key] = 1;
            last[key] = r;
        }
    for (int r = 0; r < a->P; r++) {
        order[r] = (busy){0, x->rs[r].n, r};
        for (uint64_t k = 0; k < x->rs[r].n; k++)
            order[r].shared += many[x->rs[r].key[k]];
    }
    free(last);
    qsort(order, (size_t)a->P, sizeof *order, cmp_busiest);
    return 0;
}

int merge_align(mctx *x)
{
    int P = x->P;
    aligner a = {.x = x, .m = x->m, .P = P, .head = NIL};
    busy *order = malloc((size_t)P * sizeof *order);
    a.at = calloc((size_t)P, sizeof *a.at);
    a.last = calloc((size_t)P, sizeof *a.last); /* key sequences: fewer than ranks */
    a.pos = calloc((size_t)P, sizeof *a.pos);
    a.ct = calloc((size_t)P, sizeof *a.ct);
    a.ec = calloc((size_t)P, sizeof *a.ec);
    a.parts = malloc((size_t)P * sizeof *a.parts);
    a.ev = calloc((size_t)P, sizeof *a.ev);
    a.st = calloc((size_t)P, sizeof *a.st);
    a.gap = malloc((size_t)P * sizeof *a.gap);
    a.crank = malloc((size_t)P * sizeof *a.crank);
    a.csize = malloc((size_t)P * sizeof *a.csize);
    int rc = PSK_OK;
    if (!order || !a.at || !a.last || !a.pos || !a.ct || !a.ec || !a.parts || !a.ev || !a.st || !a.gap || !a.crank || !a.csize ||
        key_tables(&a) || !(a.ws = lcs_new(&a.km)))
        rc = merged_fail(x->m, PSK_ENOMEM, "out of memory");
    if (!rc && x->total >= UINT32_MAX)
        rc = merged_fail(x->m, PSK_ENOMEM, "%llu events: more than a merge holds",
                         (unsigned long long)x->total);
    for (int r = 0; !rc && r < P; r++) {
        if (commtab_init(&a.ct[r], r, P))
            rc = merged_fail(x->m, PSK_ENOMEM, "out of memory");
    }
    a.dpleft = DP_PER_CALL * x->total + SEG_BUDGET;
    if (!rc && rank_order(&a, order))
        rc = merged_fail(x->m, PSK_ENOMEM, "out of memory");
    if (!rc) {
        for (int i = 0; !rc && i < P; i++)
            if (place_rank(&a, order[i].r))
                rc = merged_fail(x->m, PSK_ENOMEM, "out of memory");
        for (int round = 0; !rc && round < REFINE_ROUNDS; round++) {
            int changed = refine(&a, order);
            if (changed < 0)
                rc = merged_fail(x->m, PSK_ENOMEM, "out of memory");
            if (!changed)
                break;
        }
    }
    if (!rc)
        rc = emit_all(&a);
    lcs_free(a.ws);
    for (int r = 0; a.at && r < P; r++)
        plc_drop(&a, r);
    free(a.at);
    free(a.last);
    free(order);
    free(a.anchor);
    free(a.shared);
    free(a.nkey);
    free(a.nnext);
    free(a.nranks);
    free(a.bn);
    free(a.bk);
    free(a.ak);
    free(a.out);
    free(a.anc);
    for (int r = 0; a.ct && r < P; r++)
        commtab_free(&a.ct[r]);
    for (int j = 0; a.st && j < P; j++)
        mevent_store_free(&a.st[j]);
    free(a.pos);
    free(a.ec);
    free(a.ct);
    free(a.parts);
    free(a.ev);
    free(a.st);
    free(a.gap);
    free(a.crank);
    free(a.csize);
    free(a.cbuf.p);
    return rc;
}

int psk_merge(psk_trace *t, const psk_merge_opts *opts, psk_merged **out)
{
    psk_merged *m = merged_new();
    *out = m;
    if (!m)
        return PSK_ENOMEM;
    char *text = psk_trace_job_json(t);
    if (!text)
        return merged_fail(m, PSK_ENOMEM, "out of memory");
    int rc = psk_jobdoc_parse(text, strlen(text), "job.json", &m->doc);
    free(text);
    if (rc)
        return merged_fail(m, rc, "%s", psk_jobdoc_errmsg(m->doc));
    m->job = psk_jobdoc_job(m->doc);
    m->nranks = m->job->nranks;
    m->tsum = opts && opts->times_summary;
    mctx x = {.m = m, .t = t, .P = m->nranks};
    if (opts)
        x.o = *opts;
    if (x.o.window < 2)
        x.o.window = 64;
    m->rank = calloc((size_t)x.P, sizeof *m->rank);
    x.rs = calloc((size_t)x.P, sizeof *x.rs);
    x.keys = psk_intern_new();
    x.loosekeys = psk_intern_new();
    if (!m->rank || !x.rs || !x.keys || !x.loosekeys)
        rc = merged_fail(m, PSK_ENOMEM, "out of memory");
    if (!rc)
        rc = merge_load(&x);
    if (!rc) {
        for (int r = 0; r < x.P; r++)
            x.total += x.rs[r].n;
        x.done = 0;
        rc = merge_align(&x);
    }
    for (int r = 0; x.rs && r < x.P; r++) {
        rstore *s = &x.rs[r];
        if (!rc) {
            m->rank[r].n = s->n;
            m->rank[r].mono_start = s->mono_start;
            m->rank[r].perm = s->perm;
            s->perm = NULL;
        }
        free(s->buf.p);
        free(s->off);
        free(s->key);
        free(s->perm);
        free(s->thr);
    }
    free(x.rs);
    psk_intern_free(x.keys);
    psk_intern_free(x.loosekeys);
    free(x.loose);
    free(x.hasnull);
    return rc;
}
