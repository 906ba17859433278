/* Differences in the merged file (format version 4, docs/merged-format.md):
 * a parameter that changes by the same amount from one iteration to the
 * next (a tag counting iterations, an offset growing by a stride) is
 * stored as that amount, which zstd then reduces to almost nothing, as it
 * does repeated values. An event's patterns are stored as their bytes
 * less (modulo 256, byte by byte) those of a reference event as long as
 * they are: the last event of its class if among the DELTA_WIN events
 * before it, else the event just before it; none if no such one is as
 * long, or if the event is longer than DELTA_MAX bytes (they are stored
 * as they are). A class key likewise, less the class before it. */
#include <stdlib.h>
#include <string.h>

#include "merge_internal.h"
#include "psk_mem.h"

#define DELTA_WIN 64
#define DELTA_MAX 4096

struct pdelta {
    uint64_t *last; /* per class: its last event's index + 1 (0: none yet) */
    int64_t nlast;
    uint64_t i; /* events coded */
    uint32_t len[DELTA_WIN];
    uint8_t ring[DELTA_WIN][DELTA_MAX]; /* event j's bytes in slot j % DELTA_WIN */
};

pdelta *pdelta_new(void) { return calloc(1, sizeof(pdelta)); }

void pdelta_free(pdelta *d)
{
    if (d)
        free(d->last);
    free(d);
}

/* the reference of event i, of class cls and len bytes: the index + 1 of
 * the event (0: none), given each event's class's last index + 1 and a
 * length function; one rule for the writer and the reader */
static uint64_t reference(uint64_t i, uint64_t last, size_t len, uint64_t (*lenof)(const void *, uint64_t),
                          const void *ctx)
{
    if (len > DELTA_MAX || !len)
        return 0;
    if (last && i - (last - 1) <= DELTA_WIN && lenof(ctx, last - 1) == len)
        return last;
    if (i && lenof(ctx, i - 1) == len)
        return i;
    return 0;
}

static uint64_t ring_len(const void *ctx, uint64_t j)
{
    const pdelta *d = ctx;
    return d->len[j % DELTA_WIN];
}

int pdelta_code(pdelta *d, uint32_t cls, const uint8_t *b, size_t len, uint8_t *out)
{
    if (psk_grow((void **)&d->last, &d->nlast, cls, sizeof *d->last))
        return -1;
    uint64_t ref = reference(d->i, d->last[cls], len, ring_len, d);
    if (ref) {
        const uint8_t *r = d->ring[(ref - 1) % DELTA_WIN];
        for (size_t x = 0; x < len; x++)
            out[x] = (uint8_t)(b[x] - r[x]);
    } else
        memcpy(out, b, len);
    uint64_t s = d->i % DELTA_WIN;
    d->len[s] = len <= DELTA_MAX ? (uint32_t)len : UINT32_MAX;
    if (len <= DELTA_MAX)
        memcpy(d->ring[s], b, len);
    d->last[cls] = ++d->i;
    return 0;
}

static uint64_t pool_len(const void *ctx, uint64_t j)
{
    size_t len;
    psk_merged_event_patterns(ctx, j, &len);
    return len;
}

int pdelta_undo(psk_merged *m)
{
    uint64_t *last = NULL;
    int64_t nlast = 0;
    for (uint64_t i = 0; i < m->n; i++) {
        uint32_t cls = m->cls[i];
        if (psk_grow((void **)&last, &nlast, cls, sizeof *last))
            return free(last), -1;
        size_t len = (size_t)pool_len(m, i);
        uint64_t ref = reference(i, last[cls], len, pool_len, m);
        if (ref) {
            uint8_t *b = m->pool.p + m->evoff[i];
            const uint8_t *r = m->pool.p + m->evoff[ref - 1];
            for (size_t x = 0; x < len; x++)
                b[x] = (uint8_t)(b[x] + r[x]);
        }
        last[cls] = i + 1;
    }
    free(last);
    return 0;
}

void kdelta_code(const uint8_t *prev, size_t plen, const uint8_t *k, size_t len, uint8_t *out)
{
    for (size_t x = 0; x < len; x++)
        out[x] = prev && plen == len ? (uint8_t)(k[x] - prev[x]) : k[x];
}

void kdelta_undo(const uint8_t *prev, size_t plen, uint8_t *k, size_t len)
{
    for (size_t x = 0; prev && plen == len && x < len; x++)
        k[x] = (uint8_t)(k[x] + prev[x]);
}
