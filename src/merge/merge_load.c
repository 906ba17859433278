/* Loading a trace for merging: every rank's events into memory (encoded,
 * ~10 bytes each) and each event's matching key: its function and the
 * fields that must agree for two ranks' events to be one merged event
 * (communicator, tag, datatype size, root, op), with peers as offsets from
 * the rank within the communicator, so "send to rank + 1" is one key on
 * every rank. Keys are interned, so comparing two is comparing two ids. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge_internal.h"
#include "psk_varint.h"

#define KEYMAX (2 + 2 * PSK_F_FIRST_ARRAY) * PSK_VARINT_MAX

enum { PEER_CONST, PEER_OFFSET, PEER_ABS, PEER_ERASED };

/* key bytes of ev; with loose set, peers that are ranks or PROC_NULL are
 * erased, so events differing only there share a loose key */
static size_t make_key(uint8_t *buf, const psk_event *ev, int32_t crank, int32_t csize, int loose,
                       int *hasnull)
{
    uint8_t *p = psk_put_uvar(buf, ev->fn);
    *hasnull = 0;
    for (uint32_t fs = ev->fields & MERGE_KEY_FIELDS; fs; fs &= fs - 1) {
        int f = __builtin_ctz(fs);
        int64_t v = ev->v[f];
        if (!pattern_is_peer(f)) {
            p = psk_put_svar(p, v);
            continue;
        }
        if (v == PSK_PROC_NULL)
            *hasnull = 1;
        if (loose && (v == PSK_PROC_NULL || v >= 0)) {
            p = psk_put_uvar(p, PEER_ERASED);
        } else if (v < 0) {
            p = psk_put_uvar(p, PEER_CONST);
            p = psk_put_svar(p, v);
        } else if (csize > 0) {
            p = psk_put_uvar(p, PEER_OFFSET);
            p = psk_put_uvar(p, (uint64_t)(((v - crank) % csize + csize) % csize));
        } else {
            p = psk_put_uvar(p, PEER_ABS);
            p = psk_put_svar(p, v);
        }
    }
    return (size_t)(p - buf);
}

static int64_t key_id(mctx *x, const psk_event *ev, int32_t crank, int32_t csize)
{
    uint8_t buf[KEYMAX];
    int hasnull, added;
    size_t len = make_key(buf, ev, crank, csize, 0, &hasnull);
    int64_t id = psk_intern_id(x->keys, buf, len, &added);
    if (id < 0 || !added)
        return id;
    if ((uint32_t)id >= x->kcap) {
        uint32_t cap = x->kcap ? 2 * x->kcap : 1024;
        uint32_t *l = realloc(x->loose, cap * sizeof *l);
        if (!l)
            return -1;
        x->loose = l;
        uint8_t *h = realloc(x->hasnull, cap);
        if (!h)
            return -1;
        x->hasnull = h;
        x->kcap = cap;
    }
    len = make_key(buf, ev, crank, csize, 1, &hasnull);
    int64_t lid = psk_intern_id(x->loosekeys, buf, len, NULL);
    if (lid < 0)
        return -1;
    x->loose[id] = (uint32_t)lid;
    x->hasnull[id] = (uint8_t)hasnull;
    return id;
}

static int grow_index(rstore *s, uint64_t *cap)
{
    uint64_t c = *cap ? 2 * *cap : 4096;
    uint64_t *o = realloc(s->off, c * sizeof *o);
    if (!o)
        return -1;
    s->off = o;
    uint32_t *k = realloc(s->key, c * sizeof *k);
    if (!k)
        return -1;
    s->key = k;
    *cap = c;
    return 0;
}

static int load_rank(mctx *x, int r)
{
    psk_merged *m = x->m;
    rstore *s = &x->rs[r];
    psk_rank_reader *rr;
    psk_event ev;
    commtab ct;
    if (commtab_init(&ct, r, x->P))
        return merged_fail(m, PSK_ENOMEM, "out of memory");
    int rc = psk_rank_open(x->t, r, &rr);
    if (rc) {
        merged_fail(m, rc, "%s", psk_rank_errmsg(rr));
        goto out;
    }
    s->mono_start = psk_rank_mono_start(rr);
    uint64_t prev = s->mono_start, cap = 0;
    while ((rc = psk_rank_next(rr, &ev)) == PSK_OK) {
        if (s->n == cap && grow_index(s, &cap)) {
            rc = merged_fail(m, PSK_ENOMEM, "%s: out of memory", psk_rank_path(rr));
            goto out;
        }
        if (mbuf_reserve(&s->buf, mevent_max_size(&ev))) {
            rc = merged_fail(m, PSK_ENOMEM, "%s: out of memory", psk_rank_path(rr));
            goto out;
        }
        s->off[s->n] = s->buf.len;
        uint8_t *end = mevent_encode(s->buf.p + s->buf.len, &ev, (int64_t)(ev.t_entry - prev));
        s->buf.len = (size_t)(end - s->buf.p);
        prev = ev.t_exit;
        int32_t crank, csize;
        commtab_ctx(&ct, &ev, &crank, &csize);
        int64_t k = key_id(x, &ev, crank, csize);
        if (k < 0 || commtab_event(&ct, &ev, r)) {
            rc = merged_fail(m, PSK_ENOMEM, "%s: out of memory", psk_rank_path(rr));
            goto out;
        }
        s->key[s->n++] = (uint32_t)k;
        if (x->o.progress && ++x->done % (1u << 20) == 0)
            x->o.progress(x->o.progress_arg, x->done, x->total);
    }
    if (rc == PSK_EOF) {
        rc = PSK_OK;
    } else {
        merged_fail(m, rc, "%s (merging needs every rank up to MPI_Finalize)", psk_rank_errmsg(rr));
    }
out:
    psk_rank_close(rr);
    commtab_free(&ct);
    return rc;
}

int merge_load(mctx *x)
{
    for (int r = 0; r < x->P; r++) {
        int rc = load_rank(x, r);
        if (rc)
            return rc;
    }
    return PSK_OK;
}
