/* The recorded compute gaps perfskel sim --folded replays (psk_fgaps,
 * sim_fprog.h): each rank's gaps in the merged order, which is the order
 * its cursor hands out its events in, read as the replay needs them from
 * the rank's times in the merged trace itself (psk_merged_rank_times),
 * with what a few events add to their gap (a run of polls, a poll that
 * found nothing) in a stream of its own per rank, written in one pass
 * over the merged events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psk_mem.h"
#include "psk_varint.h"
#include "sim_fprog.h"

/* ---- the recorded gaps (psk_fgaps) ----
 * The replay reads each rank's times in order: a rank's next gaps lie
 * together, where a queue per rank filled by one reader as the fastest
 * rank needs them held as many gaps per rank as the ranks are apart in
 * the merged order (in a pipeline, a number that grows with the ranks:
 * memory and cache misses growing faster than the ranks). The times are
 * the merged trace's (kept open during the replay): no copy, so the
 * pass over the merged events writes nothing per rank for most events.
 * Memory: the extras, a few bytes an event that has them. */

typedef struct gaps1 {
    const uint8_t *t, *end; /* the rank's times: its next event's, their end */
    const uint8_t *xat;     /* where in them the next event with extras begins, or NULL */
    const uint8_t *x;       /* its extras */
} gaps1;

/* the extras being written, per rank: entries of a varint 1 + how far
 * (in bytes of times) its event is after the one before with extras (the
 * first: after the start of the rank's times), the flags, then what they
 * say follows; a 0 ends them */
typedef struct xbuf {
    uint8_t *b;
    int64_t cap;
    uint64_t n;
    const uint8_t *last; /* where the last event with extras begins in the times */
} xbuf;

struct psk_fgaps {
    psk_merged *m;
    int P;
    gaps1 *q;            /* where each rank's next gap is, once sealed */
    xbuf *xb;            /* while written */
    uint8_t *pack;       /* the extras, once sealed */
    uint64_t xbytes;
    int rc;              /* why the pass failed (psk_fgaps_errmsg) */
    char err[152];
};

/* flags of an event's extras (nonzero) */
#define GAP_POLLS 1u   /* a run of polls: the compute it overlapped follows */
#define GAP_CALLS 2u   /* calls and failed polls other than 1 and 0 follow */

/* rank j's extras for me, if it has any */
static int put_extras(psk_fgaps *g, const psk_mevent *me, int j)
{
    const psk_event *ev = &me->ev[(uint32_t)j & me->jmask];
    uint64_t calls, failed = psk_event_failed_polls(ev, &calls);
    unsigned fl = (psk_fn_polled(ev->fn) ? GAP_POLLS : 0u) | (calls != 1 || failed ? GAP_CALLS : 0u);
    if (!fl)
        return PSK_OK;
    xbuf *y = &g->xb[me->ranks[j]];
    const uint8_t *at = me->tat[(uint32_t)j & me->jmask];
    size_t len;
    if (!y->n) /* the first: from the start of the rank's times */
        y->last = psk_merged_rank_times(g->m, me->ranks[j], &len);
    if (psk_grow((void **)&y->b, &y->cap, (int64_t)y->n + 50, 1))
        return PSK_ENOMEM;
    uint8_t *p = psk_put_uvar(y->b + y->n, 1 + (uint64_t)(at - y->last));
    p = psk_put_uvar(p, fl);
    if (fl & GAP_POLLS)
        p = psk_put_svar(p, ev->v[PSK_F_I2]);
    if (fl & GAP_CALLS)
        p = psk_put_uvar(psk_put_uvar(p, calls), failed);
    y->n = (uint64_t)(p - y->b);
    y->last = at;
    return PSK_OK;
}

int psk_fgaps_new(psk_merged *m, psk_fgaps **out)
{
    psk_fgaps *g = calloc(1, sizeof *g);
    *out = g;
    if (!g)
        return PSK_ENOMEM;
    g->m = m;
    g->P = psk_merged_nranks(m);
    if (!(g->xb = calloc((size_t)(g->P ? g->P : 1), sizeof *g->xb)))
        return PSK_ENOMEM;
    return PSK_OK;
}

int psk_fgaps_add(psk_fgaps *g, const psk_mevent *me, int j0, int j1)
{
    int rc = PSK_OK;
    /* only a poll, or a call that can find nothing, has extras */
    int maybe = psk_fn_polled(me->fn) || psk_fn_poll_wait(me->fn);
    for (int j = j0; j < j1 && !rc; j++) {
        if (me->ranks[j] < 0 || me->ranks[j] >= g->P || me->gap[(uint32_t)j & me->jmask] >> 61)
            snprintf(g->err, sizeof g->err, "merged event %llu: rank %d's compute gap is not a time",
                     (unsigned long long)me->index, me->ranks[j]),
                rc = PSK_EFORMAT;
        else if (maybe)
            rc = put_extras(g, me, j);
    }
    return g->rc = rc;
}

int psk_fgaps_seal(psk_fgaps *g)
{
    if (g->pack || !g->xb)
        return PSK_OK;
    /* the extras in one block, rank after rank, each ended by a 0 */
    uint64_t total = 0;
    for (int q = 0; q < g->P; q++)
        total += g->xb[q].n + 1;
    if (!(g->pack = malloc((size_t)(total ? total : 1))) ||
        !(g->q = psk_big_calloc((size_t)(g->P ? g->P : 1), sizeof *g->q)))
        return PSK_ENOMEM;
    for (uint64_t q = 0, at = 0; q < (uint64_t)g->P; q++) {
        xbuf *y = &g->xb[q];
        gaps1 *x = &g->q[q];
        if (y->n)
            memcpy(g->pack + at, y->b, y->n);
        g->pack[at + y->n] = 0;
        size_t len;
        uint64_t v = 0;
        x->t = psk_merged_rank_times(g->m, (int)q, &len);
        x->end = x->t + len;
        x->x = psk_get_uvar_unchecked(g->pack + at, &v);
        x->xat = v ? x->t + v - 1 : NULL;
        at += y->n + 1;
        free(y->b);
    }
    free(g->xb);
    g->xb = NULL;
    g->xbytes = total;
    return PSK_OK;
}

void psk_fgaps_prefetch(const psk_fgaps *g, int q)
{
    __builtin_prefetch(&g->q[q]);
}

void psk_fgaps_prefetch_gap(const psk_fgaps *g, int q)
{
    __builtin_prefetch(g->q[q].t);
}

int psk_fgaps_next(psk_fgaps *g, int q, psk_fgap *gap)
{
    gaps1 *c = &g->q[q];
    if (c->t >= c->end)
        return PSK_EOF;
    /* read by the building's cursor already, but checked again: the
     * rank's count of events may say more than its times hold */
    const uint8_t *p = c->t;
    int64_t gp;
    uint64_t dur, calls = 1, failed = 0;
    if (psk_get_svar(&p, c->end, &gp) || psk_get_uvar(&p, c->end, &dur)) {
        snprintf(g->err, sizeof g->err, "rank %d's times in the merged trace are malformed", q);
        return g->rc = PSK_EFORMAT;
    }
    gap->gap = gp > 0 ? (double)gp : 0;
    if (c->t == c->xat) { /* written by put_extras: complete, so read unchecked */
        uint64_t fl = 0, v = 0;
        const uint8_t *e = psk_get_uvar_unchecked(c->x, &fl);
        if (fl & GAP_POLLS) {
            e = psk_get_uvar_unchecked(e, &v);
            gap->gap += (double)psk_unzigzag(v);
        }
        if (fl & GAP_CALLS)
            e = psk_get_uvar_unchecked(psk_get_uvar_unchecked(e, &calls), &failed);
        c->x = psk_get_uvar_unchecked(e, &v);
        c->xat = v ? c->t + v - 1 : NULL;
    }
    gap->calls = (double)calls;
    gap->failed = (double)failed;
    c->t = p;
    return PSK_OK;
}

const char *psk_fgaps_errmsg(const psk_fgaps *g) { return g->err[0] ? g->err : psk_merged_errmsg(g->m); }

uint64_t psk_fgaps_bytes(const psk_fgaps *g)
{
    uint64_t b = sizeof *g + g->xbytes + (g->q ? (uint64_t)g->P * sizeof *g->q : 0);
    for (int q = 0; g->xb && q < g->P; q++)
        b += sizeof *g->xb + (uint64_t)g->xb[q].cap;
    return b;
}

void psk_fgaps_close(psk_fgaps *g)
{
    if (!g)
        return;
    for (int q = 0; g->xb && q < g->P; q++)
        free(g->xb[q].b);
    free(g->xb);
    free(g->pack);
    free(g->q);
    free(g);
}
