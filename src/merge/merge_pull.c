/* The streaming merge's per-rank cursors: at emission each merged event
 * asks for the next call of each rank taking part, in the rank's
 * normalised order (Algorithm 1 moves calls only within a run of sends and
 * receives). A cursor reads its rank's file a block at a time through the
 * same event stream loading used (merge_rstream.c) and keeps only the
 * window between the oldest call not yet asked for and the newest read.
 * The ranks' readers share a pool that caps the files open at once (half
 * the open-file limit, at most 1,024): a reader past the cap lets its file
 * and block go, keeping the next KEEP bytes of its events, and is
 * reopened where it was when those are read. Memory per rank is then that
 * window and KEEP bytes (a block, 64 KB, only for the ranks open), not the
 * rank's events; the files open stay under the limit however many ranks. */
#include <stdlib.h>
#include <string.h>

#include "merge_internal.h"

/* bytes of events a released reader keeps: each reopening reads its block
 * (up to 64 KB) again, so about a block / KEEP reopenings a block */
#define KEEP (8 * 1024)

typedef struct pullcur {
    rstream *s;
    int open, done;
    uint64_t base;   /* event index of the window's first entry (off[head]) */
    mbuf buf;        /* the window's events, encoded */
    size_t *off;     /* per entry: its start in buf */
    uint8_t *used;   /* per entry: already handed out */
    uint32_t *thr;   /* per entry: the thread that made it (not in its bytes) */
    size_t head, cnt, cap;
} pullcur;

struct puller {
    psk_trace *t;
    int P, keep_polls;
    const uint32_t *const *perm; /* per rank: normalised position -> event index, or NULL */
    const uint64_t *n;           /* per rank: its events */
    pullcur *c;
    psk_rank_pool *pool;
    char err[MERR];
};

int puller_new(psk_trace *t, int P, int keep_polls, const uint32_t *const *perm, const uint64_t *n, puller **out)
{
    puller *pl = calloc(1, sizeof *pl);
    *out = pl;
    if (!pl || !(pl->c = calloc((size_t)P, sizeof *pl->c)) || psk_rank_pool_new(0, KEEP, &pl->pool))
        return PSK_ENOMEM;
    pl->t = t;
    pl->P = P;
    pl->keep_polls = keep_polls;
    pl->perm = perm;
    pl->n = n;
    return PSK_OK;
}

static void cur_free(pullcur *c)
{
    rstream_close(c->s);
    free(c->buf.p);
    free(c->off);
    free(c->used);
    free(c->thr);
    memset(c, 0, sizeof *c);
}

void puller_free(puller *pl)
{
    if (!pl)
        return;
    for (int r = 0; pl->c && r < pl->P; r++)
        cur_free(&pl->c[r]);
    psk_rank_pool_free(pl->pool);
    free(pl->c);
    free(pl);
}

const char *puller_errmsg(const puller *pl) { return pl ? pl->err : "out of memory"; }

static int fail(puller *pl, int rc, const char *what, int r, const pullcur *c)
{
    const psk_rank_reader *rr = rstream_reader(c->s);
    if (rc == PSK_ENOMEM)
        snprintf(pl->err, sizeof pl->err, "out of memory");
    else if (rr && rc != PSK_EOF && rc != PSK_EMISMATCH)
        snprintf(pl->err, sizeof pl->err, "%s", psk_rank_errmsg(rr));
    else
        snprintf(pl->err, sizeof pl->err, "%s: %s than when it was first read (rank %d changed during the merge?)",
                 rr ? psk_rank_path(rr) : "rank file", what, r);
    return rc == PSK_EOF ? PSK_EMISMATCH : rc;
}

/* reads rank r's next event into the window */
static int read_one(puller *pl, int r, pullcur *c)
{
    const uint8_t *bytes;
    size_t len;
    psk_event ev;
    int64_t gap;
    int rc = rstream_next(c->s, &bytes, &len, &ev, &gap);
    if (rc)
        return fail(pl, rc, "fewer events", r, c);
    if (c->cnt == c->cap && (MERGE_GROW(&c->off, &c->cap, c->cnt + 1) ||
                             (c->used = realloc(c->used, c->cap)) == NULL ||
                             (c->thr = realloc(c->thr, c->cap * sizeof *c->thr)) == NULL))
        return fail(pl, PSK_ENOMEM, "", r, c);
    if (mbuf_reserve(&c->buf, len))
        return fail(pl, PSK_ENOMEM, "", r, c);
    c->off[c->cnt] = c->buf.len;
    c->thr[c->cnt] = (uint32_t)ev.thread;
    c->used[c->cnt++] = 0;
    memcpy(c->buf.p + c->buf.len, bytes, len);
    c->buf.len += len;
    return PSK_OK;
}

int puller_get(puller *pl, int r, uint64_t k, psk_event *ev, int64_t *gap, mevent_store *st)
{
    pullcur *c = &pl->c[r];
    int rc;
    if (!c->open) {
        c->open = 1;
        if ((rc = rstream_open(pl->t, r, pl->keep_polls, pl->pool, &c->s)))
            return fail(pl, rc, "", r, c);
    }
    if (c->done || k >= pl->n[r])
        return fail(pl, PSK_EMISMATCH, "more events", r, c);
    uint64_t i = pl->perm[r] ? pl->perm[r][k] : k;
    if (i < c->base) /* handed out already: cannot happen for a permutation */
        return fail(pl, PSK_EMISMATCH, "other events", r, c);
    while (c->base + (c->cnt - c->head) <= i)
        if ((rc = read_one(pl, r, c)))
            return rc;
    size_t e = c->head + (size_t)(i - c->base);
    const uint8_t *p = c->buf.p + c->off[e];
    if (c->used[e] || mevent_decode(&p, c->buf.p + c->buf.len, ev, gap, st))
        return fail(pl, PSK_EMISMATCH, "other events", r, c);
    ev->thread = (int)c->thr[e];
    c->used[e] = 1;
    while (c->head < c->cnt && c->used[c->head]) {
        c->head++;
        c->base++;
    }
    if (c->head == c->cnt) {
        c->head = c->cnt = 0;
        c->buf.len = 0;
    } else if (c->head >= 1024 && 2 * c->head >= c->cnt) { /* the window to the front */
        size_t from = c->off[c->head], n = c->cnt - c->head;
        memmove(c->buf.p, c->buf.p + from, c->buf.len - from);
        c->buf.len -= from;
        for (size_t q = 0; q < n; q++) {
            c->off[q] = c->off[c->head + q] - from;
            c->used[q] = c->used[c->head + q];
            c->thr[q] = c->thr[c->head + q];
        }
        c->head = 0;
        c->cnt = n;
    }
    if (k + 1 == pl->n[r]) { /* the rank's last call: its file must end here */
        const uint8_t *b;
        size_t len;
        psk_event x;
        int64_t g;
        if (c->cnt != c->head || (rc = rstream_next(c->s, &b, &len, &x, &g)) == PSK_OK)
            return fail(pl, PSK_EMISMATCH, "more events", r, c);
        if (rc != PSK_EOF)
            return fail(pl, rc, "", r, c);
        cur_free(c);
        c->open = c->done = 1;
    }
    return PSK_OK;
}
