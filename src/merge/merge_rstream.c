/* One rank's events as the merge sees them: read from its trace file in
 * order, each run of polls gathered into one event on the way (merge_poll.c)
 * unless the options keep every call. Each event comes encoded as in a
 * trace block (its own bytes from the file, or the gathered run encoded
 * here) and decoded. Loading (merge_load.c) and the streaming merge's pull
 * of events at emission (merge_pull.c) both read ranks through it, so they
 * see the same events in the same order. */
#include <stdlib.h>

#include "merge_internal.h"
#include "psk_varint.h"

struct rstream {
    psk_rank_reader *rr;
    int keep_polls;
    pollrun pr;
    psk_event cur;        /* the event last read from the file */
    const uint8_t *raw;   /* its bytes, valid until the next read */
    size_t rawlen;
    int64_t gap;
    int refeed;           /* cur is to be fed to the run again */
    int flushed;          /* the file's end seen, the last run flushed */
    mbuf enc;             /* a gathered run, encoded */
};

int rstream_open(psk_trace *t, int rank, int keep_polls, psk_rank_pool *pool, rstream **out)
{
    rstream *s = calloc(1, sizeof *s);
    *out = s;
    if (!s)
        return PSK_ENOMEM;
    s->keep_polls = keep_polls;
    return psk_rank_open_pooled(t, rank, pool, &s->rr);
}

const psk_rank_reader *rstream_reader(const rstream *s) { return s ? s->rr : NULL; }

void rstream_close(rstream *s)
{
    if (!s)
        return;
    psk_rank_close(s->rr);
    pollrun_free(&s->pr);
    free(s->enc.p);
    free(s);
}

static int gathered(rstream *s, const psk_event *pe, int64_t pg, const uint8_t **bytes, size_t *len,
                    psk_event *ev)
{
    s->enc.len = 0;
    if (mbuf_reserve(&s->enc, psk_event_encoded_max(pe)))
        return PSK_ENOMEM;
    s->enc.len = (size_t)(psk_event_encode(s->enc.p, pe, pg) - s->enc.p);
    *bytes = s->enc.p;
    *len = s->enc.len;
    *ev = *pe;
    return PSK_OK;
}

int rstream_next(rstream *s, const uint8_t **bytes, size_t *len, psk_event *ev, int64_t *gap)
{
    psk_event pe;
    int64_t pg;
    for (;;) {
        if (!s->refeed) {
            if (s->flushed)
                return PSK_EOF;
            int rc = psk_rank_next(s->rr, &s->cur);
            if (rc == PSK_EOF) {
                s->flushed = 1;
                if (!s->keep_polls && pollrun_flush(&s->pr, &pe, &pg)) {
                    *gap = pg;
                    return gathered(s, &pe, pg, bytes, len, ev);
                }
                return PSK_EOF;
            }
            if (rc)
                return rc;
            s->raw = psk_rank_event_bytes(s->rr, &s->rawlen);
            const uint8_t *q = s->raw;
            uint64_t fn;
            s->gap = 0;
            if (psk_get_uvar(&q, s->raw + s->rawlen, &fn) || psk_get_svar(&q, s->raw + s->rawlen, &s->gap))
                s->gap = 0; /* the reader has read it: cannot happen */
        }
        s->refeed = 0;
        int taken = 0, got = s->keep_polls ? 0 : pollrun_feed(&s->pr, &s->cur, s->gap, &pe, &pg, &taken);
        if (got < 0)
            return PSK_ENOMEM;
        if (got) { /* a run ends here; an event not taken in is fed again */
            s->refeed = !taken;
            *gap = pg;
            return gathered(s, &pe, pg, bytes, len, ev);
        }
        if (taken)
            continue;
        *bytes = s->raw;
        *len = s->rawlen;
        *ev = s->cur;
        *gap = s->gap;
        return PSK_OK;
    }
}
