/* Byte-string interning (psk_intern.h): strings are stored back to back in
 * one arena, and an open-addressing table of ids (linear probing, at most
 * half full) finds them by a 64-bit hash kept beside each id. */
#include <stdlib.h>
#include <string.h>

#include "psk_intern.h"

typedef struct slot {
    uint64_t hash;
    uint32_t id; /* id + 1; 0 = empty */
} slot;

struct psk_intern {
    uint8_t *arena;
    size_t used, cap;
    uint64_t *off; /* id -> start in the arena; off[id + 1] is its end */
    uint32_t n, ncap;
    slot *tab;
    size_t mask;
};

/* FNV-1a over 8-byte words, then a final mix */
static uint64_t hash(const uint8_t *p, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull ^ len;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
        p += 8;
        len -= 8;
    }
    while (len--)
        h = (h ^ *p++) * 0x100000001b3ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

psk_intern *psk_intern_new(void)
{
    psk_intern *in = calloc(1, sizeof *in);
    if (!in)
        return NULL;
    in->mask = 1023;
    in->tab = calloc(in->mask + 1, sizeof *in->tab);
    in->ncap = 256;
    in->off = malloc((in->ncap + 1) * sizeof *in->off);
    if (!in->tab || !in->off) {
        psk_intern_free(in);
        return NULL;
    }
    in->off[0] = 0;
    return in;
}

void psk_intern_free(psk_intern *in)
{
    if (!in)
        return;
    free(in->arena);
    free(in->off);
    free(in->tab);
    free(in);
}

static int grow_table(psk_intern *in)
{
    size_t mask = in->mask * 2 + 1;
    slot *t = calloc(mask + 1, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i <= in->mask; i++) {
        if (!in->tab[i].id)
            continue;
        size_t j = in->tab[i].hash & mask;
        while (t[j].id)
            j = (j + 1) & mask;
        t[j] = in->tab[i];
    }
    free(in->tab);
    in->tab = t;
    in->mask = mask;
    return 0;
}

int64_t psk_intern_id(psk_intern *in, const void *key, size_t len, int *added)
{
    uint64_t h = hash(key, len);
    size_t j = h & in->mask;
    if (added)
        *added = 0;
    for (; in->tab[j].id; j = (j + 1) & in->mask) {
        if (in->tab[j].hash != h)
            continue;
        uint32_t id = in->tab[j].id - 1;
        if (in->off[id + 1] - in->off[id] == len && !memcmp(in->arena + in->off[id], key, len))
            return id;
    }
    if (in->n == UINT32_MAX - 1)
        return -1;
    if (in->used + len > in->cap) {
        size_t cap = in->cap ? in->cap : 4096;
        while (cap < in->used + len)
            cap *= 2;
        uint8_t *a = realloc(in->arena, cap);
        if (!a)
            return -1;
        in->arena = a;
        in->cap = cap;
    }
    if (in->n + 1 >= in->ncap) {
        uint64_t *o = realloc(in->off, (2 * (size_t)in->ncap + 1) * sizeof *o);
        if (!o)
            return -1;
        in->off = o;
        in->ncap *= 2;
    }
    if (len)
        memcpy(in->arena + in->used, key, len);
    in->used += len;
    uint32_t id = in->n++;
    in->off[id + 1] = in->used;
    in->tab[j].hash = h;
    in->tab[j].id = id + 1;
    if (added)
        *added = 1;
    if (2 * (size_t)in->n > in->mask && grow_table(in))
        return -1;
    return id;
}

const uint8_t *psk_intern_key(const psk_intern *in, uint32_t id, size_t *len)
{
    *len = in->off[id + 1] - in->off[id];
    return in->arena + in->off[id];
}

uint32_t psk_intern_count(const psk_intern *in) { return in->n; }
