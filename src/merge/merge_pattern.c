/* Per-rank patterns of one parameter of a merged event: the same value on
 * every rank taking part (CONST); the rank within the communicator plus a
 * constant (RANK), where for peers a rank outside the communicator reads as
 * MPI_PROC_NULL, as boundary ranks of a stencil pass it; the same modulo the
 * communicator's size (RING); or else one value per rank (TABLE). Arrays
 * are CONST or TABLE. Encoded as a kind byte and zigzag varints. */
#include <stdlib.h>
#include <string.h>

#include "merge_internal.h"
#include "psk_varint.h"

int pattern_is_peer(int field) { return field == PSK_F_PEER || field == PSK_F_RPEER; }

static int64_t mod(int64_t a, int64_t m) { return ((a % m) + m) % m; }

static int64_t rank_value(int64_t c, int32_t crank, int32_t csize, int peer)
{
    int64_t v = crank + c;
    return peer && (v < 0 || v >= csize) ? PSK_PROC_NULL : v;
}

static size_t nvalues(int f, uint32_t n) { return f == PSK_F_STATUSES ? 3 * (size_t)n : n; }

/* worst case bytes of a pattern */
static size_t bound(int f, const psk_event *ev, int np)
{
    if (f < PSK_F_FIRST_ARRAY)
        return 1 + (size_t)np * PSK_VARINT_MAX;
    size_t s = 1;
    for (int j = 0; j < np; j++)
        s += PSK_VARINT_MAX * (1 + nvalues(f, PSK_ARRN(&ev[j], f)));
    return s;
}

static int scalar_kind(int f, const psk_event *ev, int np, const int32_t *crank, const int32_t *csize,
                       int64_t *c)
{
    int64_t v0 = ev[0].v[f];
    int j;
    for (j = 1; j < np && ev[j].v[f] == v0; j++)
        ;
    if (j == np) {
        *c = v0;
        return PSK_PAT_CONST;
    }
    for (j = 0; j < np; j++)
        if (csize[j] <= 0)
            return PSK_PAT_TABLE;
    int peer = pattern_is_peer(f);
    int j0 = 0;
    if (peer)
        while (j0 < np && ev[j0].v[f] < 0)
            j0++;
    if (j0 < np) {
        int64_t k = ev[j0].v[f] - crank[j0];
        for (j = 0; j < np && ev[j].v[f] == rank_value(k, crank[j], csize[j], peer); j++)
            ;
        if (j == np) {
            *c = k;
            return PSK_PAT_RANK;
        }
    }
    if (peer) {
        int64_t k = mod(ev[0].v[f] - crank[0], csize[0]);
        for (j = 0; j < np && ev[j].v[f] >= 0 && ev[j].v[f] == mod(crank[j] + k, csize[j]); j++)
            ;
        if (j == np) {
            /* written as the nearer offset, rank-1 not rank+3, when sizes agree */
            for (j = 1; j < np && csize[j] == csize[0]; j++)
                ;
            *c = j == np && 2 * k > csize[0] ? k - csize[0] : k;
            return PSK_PAT_RING;
        }
    }
    return PSK_PAT_TABLE;
}

static int same_array(int f, const psk_event *a, const psk_event *b)
{
    uint32_t n = PSK_ARRN(a, f);
    return n == PSK_ARRN(b, f) &&
           (n == 0 || !memcmp(PSK_ARR(a, f), PSK_ARR(b, f), nvalues(f, n) * sizeof(int64_t)));
}

static uint8_t *put_array(uint8_t *p, int f, const psk_event *ev)
{
    uint32_t n = PSK_ARRN(ev, f);
    p = psk_put_uvar(p, n);
    for (size_t i = 0; i < nvalues(f, n); i++)
        p = psk_put_svar(p, PSK_ARR(ev, f)[i]);
    return p;
}

int pattern_encode(mbuf *b, int f, const psk_event *ev, int np, const int32_t *crank, const int32_t *csize)
{
    if (mbuf_reserve(b, bound(f, ev, np)))
        return -1;
    uint8_t *p = b->p + b->len;
    if (f < PSK_F_FIRST_ARRAY) {
        int64_t c = 0;
        int kind = scalar_kind(f, ev, np, crank, csize, &c);
        *p++ = (uint8_t)kind;
        if (kind != PSK_PAT_TABLE)
            p = psk_put_svar(p, c);
        else
            for (int j = 0; j < np; j++)
                p = psk_put_svar(p, ev[j].v[f]);
    } else {
        int j;
        for (j = 1; j < np && same_array(f, &ev[0], &ev[j]); j++)
            ;
        int same = j == np;
        *p++ = same ? PSK_PAT_CONST : PSK_PAT_TABLE;
        for (j = 0; j < (same ? 1 : np); j++)
            p = put_array(p, f, &ev[j]);
    }
    b->len = (size_t)(p - b->p);
    return 0;
}

int pattern_scan(const uint8_t **pp, const uint8_t *end, int f, int np, pattern_at *at)
{
    if (*pp >= end)
        return -1;
    int k = *(*pp)++;
    *at = (pattern_at){.f = f, .kind = (uint8_t)k, .end = end};
    int64_t v;
    if (f < PSK_F_FIRST_ARRAY) {
        if (k < PSK_PAT_TABLE)
            return psk_get_svar(pp, end, &at->c) ? -1 : 0;
        if (k > PSK_PAT_TABLE)
            return -1;
        at->p = *pp;
        for (int j = 0; j < np; j++)
            if (psk_get_svar(pp, end, &v))
                return -1;
        return 0;
    }
    if (k != PSK_PAT_CONST && k != PSK_PAT_TABLE)
        return -1;
    at->p = *pp;
    for (int j = 0; j < (k == PSK_PAT_CONST && np > 0 ? 1 : np); j++) {
        uint64_t n;
        if (psk_get_uvar(pp, end, &n) || n > (uint64_t)(end - *pp))
            return -1;
        for (size_t i = 0; i < nvalues(f, (uint32_t)n); i++)
            if (psk_get_svar(pp, end, &v))
                return -1;
    }
    return 0;
}

int pattern_fill(pattern_at *at, psk_event *ev, int j0, int j1, uint32_t w, const int32_t *crank,
                 const int32_t *csize, mevent_store *st)
{
    int f = at->f, k = at->kind;
    if (f < PSK_F_FIRST_ARRAY) {
        if (k == PSK_PAT_TABLE) {
            for (int j = j0; j < j1; j++)
                if (psk_get_svar(&at->p, at->end, &ev[(uint32_t)j & w].v[f]))
                    return -1;
            return 0;
        }
        int peer = pattern_is_peer(f);
        for (int j = j0; j < j1; j++) {
            uint32_t J = (uint32_t)j & w;
            if (k == PSK_PAT_CONST)
                ev[J].v[f] = at->c;
            else if (csize[J] <= 0)
                return -1;
            else if (k == PSK_PAT_RANK)
                ev[J].v[f] = rank_value(at->c, crank[J], csize[J], peer);
            else
                ev[J].v[f] = mod(crank[J] + at->c, csize[J]);
        }
        return 0;
    }
    int a = f - PSK_F_FIRST_ARRAY;
    for (int j = j0; j < j1; j++) {
        uint32_t J = (uint32_t)j & w;
        if (k == PSK_PAT_CONST && j > 0) { /* rank 0's, decoded in the first chunk (into st[0]) */
            ev[J].n[a] = at->n0;
            ev[J].arr[a] = at->arr0;
            continue;
        }
        uint64_t n;
        if (psk_get_uvar(&at->p, at->end, &n) || n > (uint64_t)(at->end - at->p))
            return -1;
        size_t nv = nvalues(f, (uint32_t)n);
        int64_t *v = mevent_store_grow(&st[J], a, nv ? nv : 1);
        if (!v)
            return -1;
        for (size_t i = 0; i < nv; i++)
            if (psk_get_svar(&at->p, at->end, &v[i]))
                return -1;
        ev[J].n[a] = (uint32_t)n;
        ev[J].arr[a] = v;
        at->n0 = (uint32_t)n, at->arr0 = v;
    }
    return 0;
}

const char *psk_pattern_name(int kind)
{
    static const char *const names[] = {"const", "rank", "ring", "table"};
    return kind >= 0 && kind <= PSK_PAT_TABLE ? names[kind] : "?";
}
