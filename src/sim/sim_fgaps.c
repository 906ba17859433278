/* The recorded compute gaps perfskel sim --folded replays (psk_fgaps,
 * sim_fprog.h): each rank's gaps in the merged order, which is the order
 * its cursor hands out its events in, kept as a varint byte stream per
 * rank, written in one pass over the merged events and read back in
 * order as the replay needs them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psk_mem.h"
#include "psk_varint.h"
#include "sim_fprog.h"

/* ---- the recorded gaps (psk_fgaps) ----
 * Read once, when opened: one pass over the merged events appends each
 * rank's gaps to a byte stream of its own (varints: the gap, and for a run
 * of polls or a call whose polls are not one that found, what it adds).
 * The replay then reads each rank's stream in order: a rank's next gaps
 * lie together, where a queue per rank filled by one reader as the
 * fastest rank needs them held as many gaps per rank as the ranks are
 * apart in the merged order (in a pipeline, a number that grows with the
 * ranks: memory and cache misses growing faster than the ranks). Memory:
 * about 2-3 bytes an event, linear in the trace. */

typedef struct gaps1 {
    uint8_t *b;          /* the stream */
    int64_t cap;         /* bytes allocated */
    uint64_t n, pos;     /* bytes written, read */
} gaps1;

struct psk_fgaps {
    psk_merged *m;
    int P;
    gaps1 *q;
    uint8_t *pack;       /* the streams, once read (NULL: each its own) */
    int rc;              /* why the pass failed (psk_fgaps_errmsg) */
    char err[152];
};

/* flags of a gap's first varint (its 2 low bits) */
#define GAP_POLLS 1u   /* a run of polls: the compute it overlapped follows */
#define GAP_CALLS 2u   /* calls and failed polls other than 1 and 0 follow */

static int put_gap(gaps1 *y, const psk_mevent *me, int j)
{
    const psk_event *ev = &me->ev[j];
    uint64_t calls, failed = psk_event_failed_polls(ev, &calls);
    unsigned fl = (psk_fn_polled(ev->fn) ? GAP_POLLS : 0u) | (calls != 1 || failed ? GAP_CALLS : 0u);
    if (me->gap[j] >> 61)
        return PSK_EFORMAT;
    if (psk_grow((void **)&y->b, &y->cap, (int64_t)y->n + 40, 1))
        return PSK_ENOMEM;
    uint8_t *p = psk_put_uvar(y->b + y->n, me->gap[j] << 2 | fl);
    if (fl & GAP_POLLS)
        p = psk_put_svar(p, ev->v[PSK_F_I2]);
    if (fl & GAP_CALLS)
        p = psk_put_uvar(psk_put_uvar(p, calls), failed);
    y->n = (uint64_t)(p - y->b);
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
    if (!(g->q = calloc((size_t)(g->P ? g->P : 1), sizeof *g->q)))
        return PSK_ENOMEM;
    return PSK_OK;
}

int psk_fgaps_add(psk_fgaps *g, const psk_mevent *me, int j0, int j1)
{
    int rc = PSK_OK;
    for (int j = j0; j < j1 && !rc; j++) {
        /* where the next ranks' gaps go: each stream a cache miss at many
         * ranks, asked for ahead (a hint) */
        int a = j + 8 < me->nranks ? me->ranks[j + 8] : -1;
        if (a >= 0 && a < g->P)
            __builtin_prefetch(g->q[a].b + g->q[a].n, 1);
        if (me->ranks[j] < 0 || me->ranks[j] >= g->P || (rc = put_gap(&g->q[me->ranks[j]], me, j)) == PSK_EFORMAT)
            snprintf(g->err, sizeof g->err, "merged event %llu: rank %d's compute gap is not a time",
                     (unsigned long long)me->index, me->ranks[j]),
                rc = PSK_EFORMAT;
    }
    return g->rc = rc;
}

void psk_fgaps_seal(psk_fgaps *g)
{
    /* a stream is not grown again: the streams go into one block, rank
     * after rank (in huge pages: the replay reads them in no order) */
    uint64_t total = 0;
    for (int q = 0; !g->pack && q < g->P; q++)
        total += g->q[q].n;
    if (!g->pack && total && (g->pack = psk_big_alloc((size_t)total)))
        for (uint64_t q = 0, at = 0; q < (uint64_t)g->P; q++) {
            gaps1 *y = &g->q[q];
            if (!y->n)
                continue;
            memcpy(g->pack + at, y->b, y->n);
            free(y->b);
            y->b = g->pack + at, y->cap = (int64_t)y->n;
            at += y->n;
        }
}

void psk_fgaps_prefetch(const psk_fgaps *g, int q)
{
    __builtin_prefetch(&g->q[q]);
}

void psk_fgaps_prefetch_gap(const psk_fgaps *g, int q)
{
    const gaps1 *x = &g->q[q];
    __builtin_prefetch(x->b + x->pos);
}

int psk_fgaps_next(psk_fgaps *g, int q, psk_fgap *gap)
{
    gaps1 *x = &g->q[q];
    if (x->pos >= x->n)
        return PSK_EOF;
    /* written by put_gap: complete, so read unchecked */
    uint64_t h = 0, calls = 1, failed = 0;
    const uint8_t *p = psk_get_uvar_unchecked(x->b + x->pos, &h);
    gap->gap = (double)(h >> 2);
    if (h & GAP_POLLS) {
        uint64_t z = 0;
        p = psk_get_uvar_unchecked(p, &z);
        gap->gap += (double)psk_unzigzag(z);
    }
    if (h & GAP_CALLS)
        p = psk_get_uvar_unchecked(psk_get_uvar_unchecked(p, &calls), &failed);
    gap->calls = (double)calls;
    gap->failed = (double)failed;
    x->pos = (uint64_t)(p - x->b);
    return PSK_OK;
}

const char *psk_fgaps_errmsg(const psk_fgaps *g) { return g->err[0] ? g->err : psk_merged_errmsg(g->m); }

uint64_t psk_fgaps_bytes(const psk_fgaps *g)
{
    uint64_t b = sizeof *g + (uint64_t)g->P * sizeof *g->q;
    for (int q = 0; q < g->P; q++)
        b += (uint64_t)g->q[q].cap;
    return b;
}

void psk_fgaps_close(psk_fgaps *g)
{
    if (!g)
        return;
    for (int q = 0; g->q && q < g->P && !g->pack; q++)
        free(g->q[q].b);
    free(g->pack);
    free(g->q);
    free(g);
}
