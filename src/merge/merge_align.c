/* Algorithm 2 of seed 001, look-ahead merge, and the psk_merge driver.
 * All ranks advance together; when their next events agree (equal matching
 * keys) they become one merged event. When they do not, the ranks are
 * grouped by key and the group whose event the other ranks do not reach
 * within the window M goes first (the farthest, on ties the lowest rank):
 * ranks that skip an event (a boundary rank's missing send) let the others
 * go ahead without losing anyone's events. A rank passing MPI_PROC_NULL
 * joins the group doing the same call to a real peer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge_internal.h"
#include "psk_varint.h"

typedef struct kr {
    uint32_t key;
    int32_t rank;
} kr;

typedef struct aligner {
    mctx *x;
    psk_merged *m;
    int P;
    uint64_t *pos;      /* per rank: next normalised position */
    commtab *ct;        /* per rank */
    int32_t *active, nactive;
    kr *pairs;
    int32_t *glabel;    /* per rank: group of its next event */
    int32_t *parts;
    psk_event *ev;      /* per participant */
    mevent_store *st;
    int64_t *gap;
    int32_t *crank, *csize;
    mbuf cbuf;
    /* O(1) look-ahead: next[r][k] is rank r's next position after k with
     * the same key; first[r * nkeys + key] its next position of that key at
     * or after pos[r] (NULL when P x keys is too large: then scan) */
    uint32_t **next, *first, nkeys;
    uint8_t *loose_null; /* loose key -> some key of it passes PROC_NULL */
} aligner;

static uint32_t key_at(const aligner *a, int r, uint64_t k)
{
    const rstore *s = &a->x->rs[r];
    return s->key[rs_index(s, k)];
}

static int match(const mctx *x, uint32_t k1, uint32_t k2)
{
    return k1 == k2 || (x->loose[k1] == x->loose[k2] && (x->hasnull[k1] || x->hasnull[k2]));
}

static int cmp_kr(const void *a, const void *b)
{
    const kr *p = a, *q = b;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
    return (p->rank > q->rank) - (p->rank < q->rank);
}

/* one merged event of the ranks parts[0..np), whose next events have the
 * key rep (or match it) */
static int emit(aligner *a, int np, uint32_t rep)
{
    mctx *x = a->x;
    psk_merged *m = a->m;
    for (int j = 0; j < np; j++) {
        int r = a->parts[j];
        const rstore *s = &x->rs[r];
        uint64_t i = rs_index(s, a->pos[r]);
        const uint8_t *p = s->buf.p + s->off[i];
        if (mevent_decode(&p, s->buf.p + s->buf.len, &a->ev[j], &a->gap[j], &a->st[j]))
            return merged_fail(m, PSK_EFORMAT, "rank %d: event %llu undecodable", r, (unsigned long long)i);
        commtab_ctx(&a->ct[r], &a->ev[j], &a->crank[j], &a->csize[j]);
    }
    int64_t pset = psk_intern_id(m->psets, a->parts, (size_t)np * sizeof *a->parts, NULL);
    size_t klen;
    const uint8_t *key = psk_intern_key(x->keys, rep, &klen);
    a->cbuf.len = 0;
    if (pset < 0 || mbuf_reserve(&a->cbuf, 2 * PSK_VARINT_MAX + klen))
        return merged_fail(m, PSK_ENOMEM, "out of memory");
    uint8_t *p = psk_put_uvar(a->cbuf.p, (uint64_t)pset);
    p = psk_put_uvar(p, klen);
    memcpy(p, key, klen);
    a->cbuf.len = (size_t)(p - a->cbuf.p) + klen;
    uint32_t fields = a->ev[0].fields;
    for (int f = PSK_F_PEER; f <= PSK_F_RPEER; f++)
        if (pattern_is_peer(f) && ((fields >> f) & 1u) &&
            pattern_encode(&a->cbuf, f, a->ev, np, a->crank, a->csize))
            return merged_fail(m, PSK_ENOMEM, "out of memory");
    int64_t cls = merged_class_id(m, a->cbuf.p, a->cbuf.len);
    uint64_t start = m->pool.len;
    if (cls < 0)
        return merged_fail(m, PSK_ENOMEM, "out of memory");
    for (uint32_t fs = fields & ~merge_key_fields(a->ev[0].fn); fs; fs &= fs - 1)
        if (pattern_encode(&m->pool, __builtin_ctz(fs), a->ev, np, a->crank, a->csize))
            return merged_fail(m, PSK_ENOMEM, "out of memory");
    if (merged_push(m, (uint32_t)cls, start))
        return merged_fail(m, PSK_ENOMEM, "out of memory");
    for (int j = 0; j < np; j++) {
        int r = a->parts[j];
        mbuf *t = &m->rank[r].times;
        if (mbuf_reserve(t, 2 * PSK_VARINT_MAX) || commtab_event(&a->ct[r], &a->ev[j], r))
            return merged_fail(m, PSK_ENOMEM, "out of memory");
        uint8_t *q = psk_put_svar(t->p + t->len, a->gap[j]);
        q = psk_put_uvar(q, a->ev[j].t_exit - a->ev[j].t_entry);
        t->len = (size_t)(q - t->p);
        if (a->first) {
            uint64_t k = a->pos[r];
            a->first[(size_t)r * a->nkeys + key_at(a, r, k)] = a->next[r][k];
        }
        a->pos[r]++;
    }
    x->done += (uint64_t)np;
    if (x->o.progress && x->done >> 20 != (x->done - (uint64_t)np) >> 20)
        x->o.progress(x->o.progress_arg, x->done, x->total);
    return PSK_OK;
}

/* how soon the other ranks reach an event matching key k of group g; the
 * scan stops once the answer is known to be at most `enough` */
static uint64_t distance(const aligner *a, int g, uint32_t k, uint64_t enough)
{
    uint64_t best = UINT64_MAX;
    int M = a->x->o.window;
    if (a->first && !a->loose_null[a->x->loose[k]]) { /* exact keys only: O(1) per rank */
        for (int i = 0; i < a->nactive && best > enough; i++) {
            int r = a->active[i];
            if (a->glabel[r] == g)
                continue;
            uint64_t f = a->first[(size_t)r * a->nkeys + k];
            if (f != UINT32_MAX && f - a->pos[r] < (uint64_t)M && f - a->pos[r] < best)
                best = f - a->pos[r];
        }
        return best;
    }
    for (int i = 0; i < a->nactive; i++) {
        int r = a->active[i];
        if (a->glabel[r] == g)
            continue;
        const rstore *s = &a->x->rs[r];
        uint64_t end = a->pos[r] + (uint64_t)M;
        if (end > s->n)
            end = s->n;
        for (uint64_t q = a->pos[r] + 1; q < end && q - a->pos[r] < best; q++)
            if (match(a->x, k, s->key[rs_index(s, q)])) {
                best = q - a->pos[r];
                break;
            }
        if (best <= enough)
            break;
    }
    return best;
}

/* ranks disagree: group them, pick the group to go first, emit it */
static int step_split(aligner *a)
{
    mctx *x = a->x;
    int n = a->nactive;
    for (int i = 0; i < n; i++) {
        a->pairs[i].rank = a->active[i];
        a->pairs[i].key = key_at(a, a->active[i], a->pos[a->active[i]]);
    }
    if (n > 32) {
        qsort(a->pairs, (size_t)n, sizeof *a->pairs, cmp_kr);
    } else {
        for (int i = 1; i < n; i++) {
            kr v = a->pairs[i];
            int j = i;
            for (; j > 0 && cmp_kr(&a->pairs[j - 1], &v) > 0; j--)
                a->pairs[j] = a->pairs[j - 1];
            a->pairs[j] = v;
        }
    }
    /* groups: runs of equal keys; label = index of the run's first pair */
    for (int i = 0; i < n; i++)
        a->glabel[a->pairs[i].rank] = i > 0 && a->pairs[i].key == a->pairs[i - 1].key
                                          ? a->glabel[a->pairs[i - 1].rank] : i;
    /* a group passing MPI_PROC_NULL joins the one group doing the same call */
    for (int i = 0; i < n; i++) {
        if (a->glabel[a->pairs[i].rank] != i || !x->hasnull[a->pairs[i].key])
            continue;
        int partner = -1, count = 0;
        for (int q = 0; q < n; q++)
            if (a->glabel[a->pairs[q].rank] == q && q != i && !x->hasnull[a->pairs[q].key] &&
                x->loose[a->pairs[q].key] == x->loose[a->pairs[i].key]) {
                partner = q;
                count++;
            }
        if (count == 1)
            for (int q = 0; q < n; q++)
                if (a->pairs[q].key == a->pairs[i].key)
                    a->glabel[a->pairs[q].rank] = partner;
    }
    /* the group the others reach latest goes first; ties: lowest rank.
     * Groups are tried in order of their lowest rank (active is sorted), so
     * a later one wins only by being strictly farther. */
    int best = -1;
    uint64_t bestd = 0;
    uint32_t bestkey = 0;
    for (int q = 0; q < n && bestd != UINT64_MAX; q++) {
        int g = a->glabel[a->active[q]];
        if (a->pairs[g].key == UINT32_MAX) /* tried already */
            continue;
        uint64_t d = distance(a, g, a->pairs[g].key, best < 0 ? 0 : bestd);
        if (best < 0 || d > bestd) {
            best = g;
            bestd = d;
            bestkey = a->pairs[g].key;
        }
        a->pairs[g].key = UINT32_MAX;
    }
    int np = 0;
    for (int i = 0; i < n; i++)
        if (a->glabel[a->active[i]] == best)
            a->parts[np++] = a->active[i];
    return emit(a, np, bestkey);
}

/* the next-occurrence tables of the O(1) look-ahead, if they fit */
static int lookahead_init(aligner *a)
{
    mctx *x = a->x;
    uint32_t nkeys = psk_intern_count(x->keys), nloose = psk_intern_count(x->loosekeys);
    a->loose_null = calloc(nloose ? nloose : 1, 1);
    if (!a->loose_null)
        return merged_fail(a->m, PSK_ENOMEM, "out of memory");
    for (uint32_t k = 0; k < nkeys; k++)
        if (x->hasnull[k])
            a->loose_null[x->loose[k]] = 1;
    if ((uint64_t)a->P * nkeys > (1u << 24))
        return PSK_OK; /* too many: scan the window instead */
    for (int r = 0; r < a->P; r++)
        if (x->rs[r].n >= UINT32_MAX)
            return PSK_OK;
    a->nkeys = nkeys;
    a->first = malloc((size_t)a->P * nkeys * sizeof *a->first);
    a->next = calloc((size_t)a->P, sizeof *a->next);
    if (!a->first || !a->next)
        goto nomem;
    memset(a->first, 0xff, (size_t)a->P * nkeys * sizeof *a->first);
    for (int r = 0; r < a->P; r++) {
        const rstore *s = &x->rs[r];
        uint32_t *first = a->first + (size_t)r * nkeys;
        if (!(a->next[r] = malloc((s->n ? s->n : 1) * sizeof **a->next)))
            goto nomem;
        for (uint64_t k = s->n; k-- > 0;) {
            uint32_t key = s->key[rs_index(s, k)];
            a->next[r][k] = first[key];
            first[key] = (uint32_t)k;
        }
    }
    return PSK_OK;
nomem: /* not needed for a correct merge: fall back to scanning */
    for (int r = 0; a->next && r < a->P; r++)
        free(a->next[r]);
    free(a->next);
    free(a->first);
    a->next = NULL;
    a->first = NULL;
    return PSK_OK;
}

/* the common case at stencil boundaries: every rank makes the same call,
 * some to MPI_PROC_NULL; returns the key of the real-peer calls, or -1 */
static int all_but_null(const aligner *a, uint32_t k0)
{
    const mctx *x = a->x;
    uint32_t loose = x->loose[k0], real = x->hasnull[k0] ? UINT32_MAX : k0;
    for (int i = 0; i < a->nactive; i++) {
        uint32_t k = key_at(a, a->active[i], a->pos[a->active[i]]);
        if (x->loose[k] != loose)
            return -1;
        if (x->hasnull[k])
            continue;
        if (real == UINT32_MAX)
            real = k;
        else if (k != real)
            return -1;
    }
    return real == UINT32_MAX || real > INT32_MAX ? -1 : (int)real;
}

static int align(aligner *a)
{
    mctx *x = a->x;
    for (int r = 0; r < a->P; r++)
        if (x->rs[r].n)
            a->active[a->nactive++] = r;
    while (a->nactive) {
        int n = a->nactive, rc;
        uint32_t k0 = key_at(a, a->active[0], a->pos[a->active[0]]);
        int i;
        for (i = 1; i < n && key_at(a, a->active[i], a->pos[a->active[i]]) == k0; i++)
            ;
        if (i == n) {
            memcpy(a->parts, a->active, (size_t)n * sizeof *a->parts);
            rc = emit(a, n, k0);
        } else if ((rc = all_but_null(a, k0)) >= 0) {
            memcpy(a->parts, a->active, (size_t)n * sizeof *a->parts);
            rc = emit(a, n, (uint32_t)rc);
        } else {
            rc = step_split(a);
        }
        if (rc)
            return rc;
        int k = 0;
        for (i = 0; i < n; i++)
            if (a->pos[a->active[i]] < x->rs[a->active[i]].n)
                a->active[k++] = a->active[i];
        a->nactive = k;
    }
    return PSK_OK;
}

int merge_align(mctx *x)
{
    int P = x->P;
    aligner a = {.x = x, .m = x->m, .P = P};
    a.pos = calloc((size_t)P, sizeof *a.pos);
    a.ct = calloc((size_t)P, sizeof *a.ct);
    a.active = malloc((size_t)P * sizeof *a.active);
    a.pairs = malloc((size_t)P * sizeof *a.pairs);
    a.glabel = malloc((size_t)P * sizeof *a.glabel);
    a.parts = malloc((size_t)P * sizeof *a.parts);
    a.ev = calloc((size_t)P, sizeof *a.ev);
    a.st = calloc((size_t)P, sizeof *a.st);
    a.gap = malloc((size_t)P * sizeof *a.gap);
    a.crank = malloc((size_t)P * sizeof *a.crank);
    a.csize = malloc((size_t)P * sizeof *a.csize);
    int rc = PSK_OK;
    if (!a.pos || !a.ct || !a.active || !a.pairs || !a.glabel || !a.parts || !a.ev || !a.st || !a.gap ||
        !a.crank || !a.csize)
        rc = merged_fail(x->m, PSK_ENOMEM, "out of memory");
    for (int r = 0; !rc && r < P; r++)
        if (commtab_init(&a.ct[r], r, P))
            rc = merged_fail(x->m, PSK_ENOMEM, "out of memory");
    if (!rc)
        rc = lookahead_init(&a);
    if (!rc)
        rc = align(&a);
    for (int r = 0; a.next && r < P; r++)
        free(a.next[r]);
    free(a.next);
    free(a.first);
    free(a.loose_null);
    for (int r = 0; a.ct && r < P; r++)
        commtab_free(&a.ct[r]);
    for (int j = 0; a.st && j < P; j++)
        mevent_store_free(&a.st[j]);
    free(a.pos);
    free(a.ct);
    free(a.active);
    free(a.pairs);
    free(a.glabel);
    free(a.parts);
    free(a.ev);
    free(a.st);
    free(a.gap);
    free(a.crank);
    free(a.csize);
    free(a.cbuf.p);
    return rc;
}

int psk_merge(psk_trace *t, const psk_merge_opts *opts, psk_merged **out)
{
    psk_merged *m = merged_new();
    *out = m;
    if (!m)
        return PSK_ENOMEM;
    char *text = psk_trace_job_json(t);
    if (!text)
        return merged_fail(m, PSK_ENOMEM, "out of memory");
    int rc = psk_jobdoc_parse(text, strlen(text), "job.json", &m->doc);
    free(text);
    if (rc)
        return merged_fail(m, rc, "%s", psk_jobdoc_errmsg(m->doc));
    m->job = psk_jobdoc_job(m->doc);
    m->nranks = m->job->nranks;
    mctx x = {.m = m, .t = t, .P = m->nranks};
    if (opts)
        x.o = *opts;
    if (x.o.window < 2)
        x.o.window = 64;
    m->rank = calloc((size_t)x.P, sizeof *m->rank);
    x.rs = calloc((size_t)x.P, sizeof *x.rs);
    x.keys = psk_intern_new();
    x.loosekeys = psk_intern_new();
    if (!m->rank || !x.rs || !x.keys || !x.loosekeys)
        rc = merged_fail(m, PSK_ENOMEM, "out of memory");
    if (!rc)
        rc = merge_load(&x);
    if (!rc) {
        for (int r = 0; r < x.P; r++)
            x.total += x.rs[r].n;
        x.done = 0;
        rc = merge_align(&x);
    }
    for (int r = 0; x.rs && r < x.P; r++) {
        rstore *s = &x.rs[r];
        if (!rc) {
            m->rank[r].n = s->n;
            m->rank[r].mono_start = s->mono_start;
            m->rank[r].perm = s->perm;
            s->perm = NULL;
        }
        free(s->buf.p);
        free(s->off);
        free(s->key);
        free(s->perm);
    }
    free(x.rs);
    psk_intern_free(x.keys);
    psk_intern_free(x.loosekeys);
    free(x.loose);
    free(x.hasnull);
    return rc;
}
