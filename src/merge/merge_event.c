/* One rank's events held in memory while merging: encoded exactly as in a
 * trace block (docs/trace-format.md: fn, gap, duration, then the fields),
 * about 10 bytes each, copied from the file and decoded again when a merged
 * event is built. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "merge_internal.h"
#include "psk_varint.h"

void merge_huge(void *p, size_t len)
{
    /* big arrays in huge pages: on a VM a page fault costs microseconds,
     * and a merge touches a few hundred MB */
    if (len < (8u << 20))
        return;
    uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
    uintptr_t e = ((uintptr_t)p + len) & ~(uintptr_t)4095;
    if (e > a)
        madvise((void *)a, e - a, MADV_HUGEPAGE);
}

int mbuf_reserve(mbuf *b, size_t more)
{
    if (b->len + more <= b->cap)
        return 0;
    /* first what is asked, 256 bytes at least: a merge of many ranks
     * holds a few buffers a rank, most of them small */
    size_t cap = b->cap ? b->cap : more > 256 ? more : 256;
    while (cap < b->len + more)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p)
        return -1;
    merge_huge(p, cap);
    b->p = p;
    b->cap = cap;
    return 0;
}

int mbuf_put_uvar(mbuf *b, uint64_t v)
{
    if (mbuf_reserve(b, PSK_VARINT_MAX))
        return -1;
    b->len = (size_t)(psk_put_uvar(b->p + b->len, v) - b->p);
    return 0;
}

int mbuf_put_svar(mbuf *b, int64_t v)
{
    if (mbuf_reserve(b, PSK_VARINT_MAX))
        return -1;
    b->len = (size_t)(psk_put_svar(b->p + b->len, v) - b->p);
    return 0;
}

int merge_grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : need > 4 ? need : 4; /* first what is asked: many arrays are one a rank */
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * size);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

static size_t nvalues(int f, uint32_t n) { return f == PSK_F_STATUSES ? 3 * (size_t)n : n; }

int64_t *mevent_store_grow(mevent_store *st, int k, size_t n)
{
    if (n > st->cap[k]) {
        size_t cap = st->cap[k] ? st->cap[k] : 8;
        while (cap < n)
            cap *= 2;
        int64_t *a = realloc(st->a[k], cap * sizeof *a);
        if (!a)
            return NULL;
        st->a[k] = a;
        st->cap[k] = cap;
    }
    return st->a[k];
}

int mevent_decode(const uint8_t **pp, const uint8_t *end, psk_event *ev, int64_t *gap, mevent_store *st)
{
    uint64_t fn, dur;
    if (psk_get_uvar(pp, end, &fn) || psk_get_svar(pp, end, gap) || psk_get_uvar(pp, end, &dur))
        return -1;
    ev->fn = (unsigned)fn;
    ev->fields = psk_fn_fields(ev->fn);
    ev->arm = 0; /* merged events keep no arm (docs/tune.md) */
    ev->thread = 0; /* not in the bytes: the caller sets it */
    ev->t_entry = (uint64_t)*gap;
    ev->t_exit = ev->t_entry + dur;
    for (uint32_t fs = ev->fields; fs; fs &= fs - 1) {
        int f = __builtin_ctz(fs);
        int u = (PSK_FIELDS_UNSIGNED >> f) & 1u;
        uint64_t x;
        if (f < PSK_F_FIRST_ARRAY) {
            if (psk_get_uvar(pp, end, &x))
                return -1;
            ev->v[f] = u ? (int64_t)x : psk_unzigzag(x);
            continue;
        }
        int k = f - PSK_F_FIRST_ARRAY;
        uint64_t n;
        if (psk_get_uvar(pp, end, &n) || n > (uint64_t)(end - *pp))
            return -1;
        size_t nv = nvalues(f, (uint32_t)n);
        int64_t *a = mevent_store_grow(st, k, nv ? nv : 1);
        if (!a)
            return -1;
        for (size_t i = 0; i < nv; i++) {
            if (psk_get_uvar(pp, end, &x))
                return -1;
            a[i] = u ? (int64_t)x : psk_unzigzag(x);
        }
        ev->n[k] = (uint32_t)n;
        ev->arr[k] = a;
    }
    return 0;
}

int mevent_copy(psk_event *dst, const psk_event *src, mevent_store *st)
{
    *dst = *src;
    for (uint32_t fs = src->fields >> PSK_F_FIRST_ARRAY; fs; fs &= fs - 1) {
        int k = __builtin_ctz(fs), f = k + PSK_F_FIRST_ARRAY;
        size_t nv = nvalues(f, src->n[k]);
        int64_t *a = mevent_store_grow(st, k, nv ? nv : 1);
        if (!a)
            return -1;
        if (nv)
            memcpy(a, src->arr[k], nv * sizeof *a);
        dst->arr[k] = a;
    }
    return 0;
}

void mevent_store_free(mevent_store *st)
{
    for (int k = 0; k < PSK_F_NFIELDS - PSK_F_FIRST_ARRAY; k++) {
        free(st->a[k]);
        st->a[k] = NULL;
        st->cap[k] = 0;
    }
}
