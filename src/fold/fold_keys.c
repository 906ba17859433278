/* The symbols a merged trace is folded by, at four levels of detail
 * (PSK_FOLD_LEVELS): level 0 is everything that says what an event does
 * (call, ranks taking part, communicator, peers, tags, roots, counts,
 * datatype sizes, op, flags, v-collective arrays, members); level 1 drops
 * tags and roots; level 2 also counts and peer offsets (a peer's pattern
 * kind stays); level 3 also the v-collectives' count and datatype arrays
 * (an all-to-all of keys whose counts differ in every iteration: gen
 * replays each execution's arrays, sim keeps them per execution). Each level's key is built from a subset of the fields of
 * the finer one, which keeps every level a function of the level before.
 * Ids, results and handles (requests, new ids, statuses) are never keys:
 * they are what psk_folded_params describes; nor how a run of polls went
 * (whether it completed, its calls and compute). */
#include <stdlib.h>
#include <string.h>

#include "fold_internal.h"
#include "perfskel/merge.h"

#define F(x) (1u << (x))
#define ALWAYS (F(PSK_F_COMM) | F(PSK_F_DTSIZE) | F(PSK_F_RDTSIZE) | F(PSK_F_OP) | F(PSK_F_FLAG) | F(PSK_F_I1) | \
                F(PSK_F_I2) | F(PSK_F_COUNTS) | F(PSK_F_RCOUNTS) | F(PSK_F_DTSIZES) | F(PSK_F_RDTSIZES) |       \
                F(PSK_F_MEMBERS))
#define PEERS (F(PSK_F_PEER) | F(PSK_F_RPEER))

#define VARRAYS (F(PSK_F_COUNTS) | F(PSK_F_RCOUNTS) | F(PSK_F_DTSIZES) | F(PSK_F_RDTSIZES))

static const uint32_t level_fields[PSK_FOLD_LEVELS] = {
    ALWAYS | PEERS | F(PSK_F_TAG) | F(PSK_F_RTAG) | F(PSK_F_ROOT) | F(PSK_F_COUNT) | F(PSK_F_RCOUNT),
    ALWAYS | PEERS | F(PSK_F_COUNT) | F(PSK_F_RCOUNT),
    ALWAYS | PEERS,
    (ALWAYS & ~VARRAYS) | PEERS,
};

typedef struct kbuf {
    int64_t *v;
    size_t n, cap;
} kbuf;

static int kput(kbuf *b, int64_t x)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        int64_t *v = realloc(b->v, cap * sizeof *v);
        if (!v)
            return -1;
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = x;
    return 0;
}

/* the key of me at a level: pset, fn, then each field of the level */
static int make_key(kbuf *b, const psk_mevent *me, int64_t pset, int level)
{
    b->n = 0;
    uint32_t want = level_fields[level] & me->fields;
    if (psk_fn_polled(me->fn)) /* how a run of polls went is timing, not what it does */
        want &= ~(F(PSK_F_FLAG) | F(PSK_F_I1) | F(PSK_F_I2));
    int rc = kput(b, pset) | kput(b, me->fn);
    for (uint32_t fs = want; fs && !rc; fs &= fs - 1) {
        int f = __builtin_ctz(fs);
        int peer = f == PSK_F_PEER || f == PSK_F_RPEER;
        if (peer && level >= 2) {
            /* the pattern's kind only, rank + c and (rank + c) mod size
             * alike: a distance that changes wraps in some iterations */
            rc |= kput(b, f) | kput(b, me->kind[f] == PSK_PAT_RING ? PSK_PAT_RANK : me->kind[f]);
            continue;
        }
        rc |= kput(b, f) | kput(b, me->kind[f]);
        if (f < PSK_F_FIRST_ARRAY) {
            if (me->kind[f] != PSK_PAT_TABLE) {
                rc |= kput(b, me->c[f]);
                continue;
            }
            for (int j = 0; j < me->nranks && !rc; j++)
                rc |= kput(b, me->ev[j].v[f]);
            continue;
        }
        int nr = me->kind[f] == PSK_PAT_TABLE ? me->nranks : 1;
        for (int j = 0; j < nr && !rc; j++) {
            uint32_t len = PSK_ARRN(&me->ev[j], f);
            rc |= kput(b, len);
            for (uint32_t k = 0; k < len && !rc; k++)
                rc |= kput(b, PSK_ARR(&me->ev[j], f)[k]);
        }
    }
    return rc;
}

int psk_fold_keys(psk_merged *m, int32_t *levels[PSK_FOLD_LEVELS])
{
    uint64_t n = psk_merged_length(m);
    psk_intern *in[PSK_FOLD_LEVELS] = {0}, *psets = psk_intern_new();
    int64_t *cls_pset = NULL;
    uint32_t ncls = psk_merged_nclasses(m);
    kbuf b = {0};
    psk_mcursor *cur = NULL;
    int rc = PSK_ENOMEM;
    for (int l = 0; l < PSK_FOLD_LEVELS; l++) {
        levels[l] = malloc((n ? n : 1) * sizeof *levels[l]);
        in[l] = psk_intern_new();
        if (!levels[l] || !in[l])
            goto out;
    }
    cls_pset = malloc((ncls ? ncls : 1) * sizeof *cls_pset);
    if (!psets || !cls_pset || psk_mcursor_open(m, &cur))
        goto out;
    /* a class's rank set, as a small id (classes share few sets) */
    for (uint32_t c = 0; c < ncls; c++) {
        int nr;
        const int32_t *r = psk_merged_class_ranks(m, c, &nr);
        cls_pset[c] = psk_intern_id(psets, r, (size_t)nr * sizeof *r, NULL);
        if (cls_pset[c] < 0)
            goto out;
    }
    psk_mevent me;
    for (uint64_t i = 0; i < n; i++) {
        int r = psk_mcursor_next(cur, &me);
        if (r) {
            rc = r == PSK_EOF ? PSK_EFORMAT : r;
            goto out;
        }
        for (int l = 0; l < PSK_FOLD_LEVELS; l++) {
            if (make_key(&b, &me, me.cls < ncls ? cls_pset[me.cls] : -1, l))
                goto out;
            int64_t id = psk_intern_id(in[l], b.v, b.n * sizeof *b.v, NULL);
            if (id < 0 || id >= INT32_MAX)
                goto out;
            levels[l][i] = (int32_t)id;
        }
    }
    rc = PSK_OK;
out:
    if (rc)
        for (int l = 0; l < PSK_FOLD_LEVELS; l++) {
            free(levels[l]);
            levels[l] = NULL;
        }
    for (int l = 0; l < PSK_FOLD_LEVELS; l++)
        psk_intern_free(in[l]);
    psk_intern_free(psets);
    psk_mcursor_close(cur);
    free(cls_pset);
    free(b.v);
    return rc;
}
