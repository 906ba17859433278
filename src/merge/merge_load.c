/* Loading a trace for merging: every rank's events into memory (encoded,
 * ~10 bytes each) and each event's matching key: its function and the
 * fields that must agree for two ranks' events to be one merged event
 * (communicator, tag, datatype size, root, op), with peers as offsets from
 * the rank within the communicator, so "send to rank + 1" is one key on
 * every rank. Keys are interned, so comparing two is comparing two ids.
 * A run of polls becomes one event on the way in (merge_poll.c) unless
 * the options keep every call. Ranks are read in parallel, one thread per
 * core. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <pthread.h>
#include <unistd.h>

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
    for (uint32_t fs = ev->fields & merge_key_fields(ev->fn); fs; fs &= fs - 1) {
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

/* the loose form of an exact key (make_key's encoding), and whether it
 * passes MPI_PROC_NULL */
static size_t loosen(uint8_t *out, const uint8_t *key, size_t len, int *hasnull)
{
    const uint8_t *p = key, *end = key + len;
    uint8_t *o = out;
    uint64_t fn = 0;
    *hasnull = 0;
    psk_get_uvar(&p, end, &fn);
    o = psk_put_uvar(o, fn);
    for (uint32_t fs = psk_fn_fields((unsigned)fn) & merge_key_fields((unsigned)fn); fs; fs &= fs - 1) {
        int f = __builtin_ctz(fs);
        int64_t v = 0;
        uint64_t kind = 0, u = 0;
        if (!pattern_is_peer(f)) {
            psk_get_svar(&p, end, &v);
            o = psk_put_svar(o, v);
            continue;
        }
        psk_get_uvar(&p, end, &kind);
        if (kind == PEER_OFFSET)
            psk_get_uvar(&p, end, &u);
        else
            psk_get_svar(&p, end, &v);
        if (kind == PEER_CONST && v == PSK_PROC_NULL)
            *hasnull = 1;
        if (kind == PEER_OFFSET || kind == PEER_ABS || (kind == PEER_CONST && v == PSK_PROC_NULL)) {
            o = psk_put_uvar(o, PEER_ERASED);
        } else {
            o = psk_put_uvar(o, kind);
            o = psk_put_svar(o, v);
        }
    }
    return (size_t)(o - out);
}

/* the global id of key bytes, with its loose form and null flag */
int64_t merge_key_id(mctx *x, const uint8_t *key, size_t len)
{
    int added, hasnull;
    int64_t id = psk_intern_id(x->keys, key, len, &added);
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
    uint8_t buf[KEYMAX];
    size_t n = loosen(buf, key, len, &hasnull);
    int64_t lid = psk_intern_id(x->loosekeys, buf, n, NULL);
    if (lid < 0)
        return -1;
    x->loose[id] = (uint32_t)lid;
    x->hasnull[id] = (uint8_t)hasnull;
    return id;
}

/* one loading thread: a share of the ranks, keys named in its own table;
 * it also puts each of its ranks in merging order (Algorithm 1) */
typedef struct loader {
    mctx *x;
    int first, step;
    psk_intern *keys;
    uint32_t *gmap;  /* streaming: local key id -> global one, as known */
    uint32_t ngmap;
    int rc;
    char err[MERR];
} loader;

static int grow_index(rstore *s, uint64_t *cap)
{
    uint64_t c = *cap ? 2 * *cap : 4096;
    uint32_t *o = realloc(s->off, c * sizeof *o);
    if (!o)
        return -1;
    s->off = o;
    uint32_t *k = realloc(s->key, c * sizeof *k);
    if (!k)
        return -1;
    s->key = k;
    if (s->thr) {
        uint32_t *t = realloc(s->thr, c * sizeof *t);
        if (!t)
            return -1;
        s->thr = t;
    }
    *cap = c;
    return 0;
}

static int lfail(loader *l, int status, const char *fmt, const char *arg)
{
    snprintf(l->err, sizeof l->err, fmt, arg);
    return status;
}

/* stores one event of rank r (its encoded bytes raw[0..len)) and its
 * matching key; 0, or -1 out of memory */
static int keep(loader *l, rstore *s, uint64_t *cap, commtab *ct, int r, const psk_event *ev,
                const uint8_t *raw, size_t len)
{
    if ((s->n == *cap && grow_index(s, cap)) || mbuf_reserve(&s->buf, len) || s->buf.len + len > UINT32_MAX)
        return -1;
    s->off[s->n] = (uint32_t)s->buf.len;
    memcpy(s->buf.p + s->buf.len, raw, len);
    s->buf.len += len;
    int32_t crank, csize;
    commtab_ctx(ct, ev, &crank, &csize);
    uint8_t kb[KEYMAX];
    int hasnull;
    int64_t k = psk_intern_id(l->keys, kb, make_key(kb, ev, crank, csize, 0, &hasnull), NULL);
    if (k < 0 || commtab_event(ct, ev, r))
        return -1;
    if (ev->thread && !s->thr) { /* the rank's first call from another thread */
        if (!(s->thr = calloc(*cap, sizeof *s->thr)))
            return -1;
    }
    if (s->thr)
        s->thr[s->n] = (uint32_t)ev->thread;
    s->key[s->n++] = (uint32_t)k;
    return 0;
}

static int load_rank(loader *l, int r)
{
    mctx *x = l->x;
    rstore *s = &x->rs[r];
    rstream *rs;
    psk_event ev;
    commtab ct;
    if (commtab_init(&ct, r, x->P))
        return lfail(l, PSK_ENOMEM, "%s", "out of memory");
    int rc = rstream_open(x->t, r, x->o.keep_polls, NULL, &rs);
    const psk_rank_reader *rr = rstream_reader(rs);
    if (rc) {
        lfail(l, rc, "%s", rr ? psk_rank_errmsg(rr) : "out of memory");
        goto out;
    }
    s->mono_start = psk_rank_mono_start(rr);
    uint64_t cap = 0;
    /* sized from the file: re-encoded events take about what they took there,
     * and pages reserved but never touched cost nothing */
    struct stat sb;
    if (!stat(psk_rank_path(rr), &sb) && sb.st_size > 0) { /* a guess: failing is fine */
        uint64_t guess = (uint64_t)sb.st_size / 8 + 16; /* grown if more */
        mbuf_reserve(&s->buf, (size_t)sb.st_size + (size_t)sb.st_size / 4);
        s->off = malloc(guess * sizeof *s->off);
        s->key = malloc(guess * sizeof *s->key);
        if (s->off && s->key) {
            cap = guess;
            merge_huge(s->off, guess * sizeof *s->off);
            merge_huge(s->key, guess * sizeof *s->key);
        }
    }
    const uint8_t *raw;
    size_t len;
    int64_t gap;
    while ((rc = rstream_next(rs, &raw, &len, &ev, &gap)) == PSK_OK)
        if (keep(l, s, &cap, &ct, r, &ev, raw, len)) {
            rc = lfail(l, PSK_ENOMEM, "%s: out of memory", psk_rank_path(rr));
            goto out;
        }
    if (rc == PSK_EOF)
        rc = PSK_OK;
    else if (rc == PSK_ENOMEM)
        lfail(l, rc, "%s: out of memory", psk_rank_path(rr));
    else
        lfail(l, rc, "%s (merging needs every rank up to MPI_Finalize)", psk_rank_errmsg(rr));
out:
    rstream_close(rs);
    commtab_free(&ct);
    return rc;
}

/* the streaming merge: rank r's keys renamed to global ids at once, and
 * the rank handed to x->settle, with the lock held */
static int settle_rank(loader *l, int r)
{
    mctx *x = l->x;
    rstore *s = &x->rs[r];
    int rc = PSK_OK;
    pthread_mutex_lock(x->lock);
    uint32_t n = psk_intern_count(l->keys);
    if (n > l->ngmap) {
        uint32_t *g = realloc(l->gmap, n * sizeof *g);
        if (!g)
            rc = PSK_ENOMEM;
        else
            l->gmap = g;
        for (uint32_t k = l->ngmap; !rc && k < n; k++) {
            size_t len;
            const uint8_t *kb = psk_intern_key(l->keys, k, &len);
            int64_t id = merge_key_id(x, kb, len);
            if (id < 0)
                rc = PSK_ENOMEM;
            else
                l->gmap[l->ngmap++] = (uint32_t)id;
        }
    }
    for (uint64_t e = 0; !rc && e < s->n; e++)
        s->key[e] = l->gmap[s->key[e]];
    if (!rc)
        rc = x->settle(x, r);
    pthread_mutex_unlock(x->lock);
    if (rc)
        snprintf(l->err, sizeof l->err, "out of memory");
    return rc;
}

static void *load_thread(void *arg)
{
    loader *l = arg;
    for (int r = l->first; r < l->x->r1 && !l->rc; r += l->step) {
        l->rc = load_rank(l, r);
        if (!l->rc && !l->x->o.no_reorder)
            merge_order(l->x, r);
        if (!l->rc && l->x->settle)
            l->rc = settle_rank(l, r);
    }
    return NULL;
}

/* the ranks are read by up to one thread per core; then each thread's keys
 * are renamed into the one global table */
int merge_load(mctx *x)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = cores < 1 ? 1 : cores > 8 ? 8 : (int)cores;
    if (x->r1 <= x->r0) /* ranks [r0, r1) are read; 0, 0: all */
        x->r1 = x->P;
    if (nt > x->r1 - x->r0)
        nt = x->r1 - x->r0 > 0 ? x->r1 - x->r0 : 1;
    loader *l = calloc((size_t)nt, sizeof *l);
    pthread_t *tid = calloc((size_t)nt, sizeof *tid);
    int rc = l && tid ? PSK_OK : merged_fail(x->m, PSK_ENOMEM, "out of memory");
    int started = 0;
    for (int i = 0; !rc && i < nt; i++) {
        l[i] = (loader){.x = x, .first = x->r0 + i, .step = nt, .keys = psk_intern_new()};
        if (!l[i].keys)
            rc = merged_fail(x->m, PSK_ENOMEM, "out of memory");
    }
    for (int i = 1; !rc && i < nt; i++, started++)
        if (pthread_create(&tid[i], NULL, load_thread, &l[i])) { /* run it here instead */
            load_thread(&l[i]);
            tid[i] = 0;
        }
    if (!rc)
        load_thread(&l[0]);
    for (int i = 1; i <= started; i++)
        if (tid[i])
            pthread_join(tid[i], NULL);
    for (int i = 0; !rc && i < nt; i++)
        if (l[i].rc)
            rc = merged_fail(x->m, l[i].rc, "%s", l[i].err);
    /* local key ids -> global ones (streaming: done rank by rank) */
    for (int i = 0; !rc && !x->settle && i < nt; i++) {
        uint32_t n = psk_intern_count(l[i].keys);
        uint32_t *map = malloc((n ? n : 1) * sizeof *map);
        if (!map) {
            rc = merged_fail(x->m, PSK_ENOMEM, "out of memory");
            break;
        }
        for (uint32_t k = 0; k < n && !rc; k++) {
            size_t len;
            const uint8_t *kb = psk_intern_key(l[i].keys, k, &len);
            int64_t g = merge_key_id(x, kb, len);
            if (g < 0)
                rc = merged_fail(x->m, PSK_ENOMEM, "out of memory");
            map[k] = (uint32_t)g;
        }
        for (int r = x->r0 + i; !rc && r < x->r1; r += nt)
            for (uint64_t e = 0; e < x->rs[r].n; e++)
                x->rs[r].key[e] = map[x->rs[r].key[e]];
        free(map);
    }
    for (int i = 0; l && i < nt; i++) {
        psk_intern_free(l[i].keys);
        free(l[i].gmap);
    }
    free(l);
    free(tid);
    return rc;
}
