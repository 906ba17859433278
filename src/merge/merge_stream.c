/* The streaming merge (psk_merge_file, and its parts for the merge spread
 * over MPI processes): the same merge as psk_merge, in memory that does not
 * grow with every rank's events. Loading keeps, per rank, only the id of
 * its key sequence in normalised order and of its call order: equal
 * sequences are stored once (interned), so the P ranks of an SPMD code cost
 * a handful. A part holds some ranks so; parts are packed, sent and
 * absorbed into one another (keys travel as their bytes, so ids need not
 * agree). Once one part holds every rank, alignment (merge_align.c) runs
 * on those sequences, sharing a placing between ranks that get the same
 * one, and emission pulls each call's bytes from the rank files again
 * (merge_pull.c) and writes the merged file as it goes (merge_spool.c).
 * Same algorithm, same order of work: the bytes of psk_merge +
 * psk_merged_write, whichever parts the ranks were loaded in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge_internal.h"
#include "psk_varint.h"

struct psk_merge_part {
    mctx x;               /* x.m: the job, the errors; x.keys: the keys met */
    psk_intern *seqs, *perms;
    uint8_t *have;        /* per rank: loaded into this part */
    uint32_t *seq;        /* per rank: its key sequence */
    int64_t *permid;      /* per rank: its order, or -1 (as recorded) */
    const uint32_t **perm;
    uint64_t *n;
    uint32_t *tmp;        /* keys in normalised order; keys renamed */
    size_t tmpcap;
    puller *pl;
    spool *sp;
    int settled;          /* the ranks loaded let their arrays go */
    pthread_mutex_t lock;
};

const char *psk_merge_part_errmsg(const psk_merge_part *p) { return p && p->x.m ? p->x.m->err : "out of memory"; }

/* rank r loaded (lock held): its events let go, its keys and order kept once */
static int settle(mctx *x, int r)
{
    psk_merge_part *pt = x->sink;
    rstore *s = &x->rs[r];
    const uint32_t *keys = s->key;
    if (s->perm) {
        if (MERGE_GROW(&pt->tmp, &pt->tmpcap, s->n))
            return PSK_ENOMEM;
        for (uint64_t k = 0; k < s->n; k++)
            pt->tmp[k] = s->key[s->perm[k]];
        keys = pt->tmp;
    }
    int64_t id = psk_intern_id(pt->seqs, keys, s->n * sizeof *keys, NULL);
    int64_t pid = s->perm ? psk_intern_id(pt->perms, s->perm, s->n * sizeof *s->perm, NULL) : -1;
    if (id < 0 || (s->perm && pid < 0))
        return PSK_ENOMEM;
    pt->seq[r] = (uint32_t)id;
    pt->permid[r] = pid;
    pt->n[r] = s->n;
    pt->have[r] = 1;
    free(s->key);
    free(s->perm);
    free(s->off);
    free(s->buf.p);
    free(s->thr); /* the threads come again with the events at emission */
    s->key = s->perm = s->off = s->thr = NULL;
    s->buf = (mbuf){0};
    uint64_t before = x->done;
    x->done += s->n;
    if (x->o.progress && x->done >> 20 != before >> 20)
        x->o.progress(x->o.progress_arg, x->done, 0);
    return PSK_OK;
}

void psk_merge_part_free(psk_merge_part *p)
{
    if (!p)
        return;
    mctx *x = &p->x;
    for (int r = 0; x->rs && r < x->P; r++) {
        rstore *s = &x->rs[r];
        if (!p->settled) { /* a rank loaded but not settled owns its arrays */
            free(s->key);
            free(s->perm);
        }
        free(s->off);
        free(s->buf.p);
        free(s->thr);
    }
    spool_close(p->sp);
    puller_free(p->pl);
    psk_intern_free(p->seqs);
    psk_intern_free(p->perms);
    free(p->have);
    free(p->seq);
    free(p->permid);
    free(p->perm);
    free(p->n);
    free(p->tmp);
    free(x->rs);
    psk_intern_free(x->keys);
    psk_intern_free(x->loosekeys);
    free(x->loose);
    free(x->hasnull);
    psk_merged_close(x->m);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

int psk_merge_part_load(psk_trace *t, const psk_merge_opts *opts, int first, int count, psk_merge_part **out)
{
    psk_merge_part *p = calloc(1, sizeof *p);
    *out = p;
    if (!p)
        return PSK_ENOMEM;
    pthread_mutex_init(&p->lock, NULL);
    mctx *x = &p->x;
    psk_merged *m = x->m = merged_new();
    if (!m)
        return PSK_ENOMEM;
    x->t = t;
    char *text = psk_trace_job_json(t);
    int rc = PSK_OK;
    if (!text)
        rc = merged_fail(m, PSK_ENOMEM, "out of memory");
    else if ((rc = psk_jobdoc_parse(text, strlen(text), "job.json", &m->doc)))
        merged_fail(m, rc, "%s", psk_jobdoc_errmsg(m->doc));
    free(text);
    if (rc)
        return rc;
    m->job = psk_jobdoc_job(m->doc);
    m->nranks = x->P = m->job->nranks;
    if (first < 0 || count < 0 || first > x->P - count)
        return merged_fail(m, PSK_EINVAL, "ranks %d to %d: not in a %d-rank job", first, first + count - 1, x->P);
    if (opts)
        x->o = *opts;
    if (x->o.window < 2)
        x->o.window = 64;
    m->tsum = x->o.times_summary;
    size_t P = (size_t)x->P;
    m->rank = calloc(P, sizeof *m->rank);
    x->rs = calloc(P, sizeof *x->rs);
    x->keys = psk_intern_new();
    x->loosekeys = psk_intern_new();
    p->seqs = psk_intern_new();
    p->perms = psk_intern_new();
    p->have = calloc(P, 1);
    p->seq = calloc(P, sizeof *p->seq);
    p->permid = calloc(P, sizeof *p->permid);
    p->perm = calloc(P, sizeof *p->perm);
    p->n = calloc(P, sizeof *p->n);
    if (!m->rank || !x->rs || !x->keys || !x->loosekeys || !p->seqs || !p->perms || !p->have || !p->seq ||
        !p->permid || !p->perm || !p->n)
        return merged_fail(m, PSK_ENOMEM, "out of memory");
    x->sink = p;
    x->settle = settle;
    x->lock = &p->lock;
    x->r0 = first;
    x->r1 = first + count;
    if (count && (rc = merge_load(x)))
        return rc;
    p->settled = 1;
    return PSK_OK;
}

/* ---- packing a part: its keys as bytes, its sequences, its ranks ---- */


/* an interned table of uint32 arrays: count, then each as u n + n values */
static int put_arrays(mbuf *b, const psk_intern *in)
{
    uint32_t n = psk_intern_count(in);
    int err = mbuf_put_uvar(b, n);
    for (uint32_t i = 0; i < n && !err; i++) {
        size_t len;
        const uint32_t *a = (const uint32_t *)(const void *)psk_intern_key(in, i, &len);
        err |= mbuf_put_uvar(b, len / 4);
        for (size_t k = 0; k < len / 4 && !err; k++)
            err |= mbuf_put_uvar(b, a[k]);
    }
    return err;
}

int psk_merge_part_pack(const psk_merge_part *p, uint8_t **buf, size_t *len)
{
    const mctx *x = &p->x;
    mbuf b = {0};
    uint32_t nk = psk_intern_count(x->keys);
    int err = mbuf_put_uvar(&b, (uint64_t)x->P) || mbuf_put_uvar(&b, nk);
    for (uint32_t k = 0; k < nk && !err; k++) {
        size_t kl;
        const uint8_t *kb = psk_intern_key(x->keys, k, &kl);
        err |= mbuf_put_uvar(&b, kl) || mbuf_reserve(&b, kl);
        if (!err) {
            memcpy(b.p + b.len, kb, kl);
            b.len += kl;
        }
    }
    err = err || put_arrays(&b, p->seqs) || put_arrays(&b, p->perms);
    uint64_t nr = 0;
    for (int r = 0; r < x->P; r++)
        nr += p->have[r];
    err = err || mbuf_put_uvar(&b, nr);
    for (int r = 0; r < x->P && !err; r++)
        if (p->have[r])
            err |= mbuf_put_uvar(&b, (uint64_t)r) || mbuf_put_uvar(&b, p->seq[r]) || mbuf_put_uvar(&b, (uint64_t)(p->permid[r] + 1)) ||
                   mbuf_put_uvar(&b, p->n[r]) || mbuf_put_uvar(&b, x->rs[r].mono_start);
    if (err) {
        free(b.p);
        return PSK_ENOMEM;
    }
    *buf = b.p;
    *len = b.len;
    return PSK_OK;
}

/* reads an interned table of arrays, each renamed by map (if map) and
 * interned into in; ids[i]: the id array i got */
static int get_arrays(const uint8_t **q, const uint8_t *end, psk_intern *in, const uint32_t *map, uint32_t nmap,
                      uint32_t **tmp, size_t *tmpcap, uint32_t **ids, uint32_t *nids)
{
    uint64_t n, len, v;
    if (psk_get_uvar(q, end, &n) || n > (uint64_t)(end - *q))
        return PSK_EFORMAT;
    *nids = (uint32_t)n;
    if (!(*ids = malloc((n ? n : 1) * sizeof **ids)))
        return PSK_ENOMEM;
    for (uint64_t i = 0; i < n; i++) {
        if (psk_get_uvar(q, end, &len) || len > (uint64_t)(end - *q) || len > UINT32_MAX)
            return PSK_EFORMAT;
        if (merge_grow((void **)tmp, tmpcap, len ? len : 1, sizeof **tmp))
            return PSK_ENOMEM;
        for (uint64_t k = 0; k < len; k++) {
            if (psk_get_uvar(q, end, &v) || (map && v >= nmap) || v > UINT32_MAX)
                return PSK_EFORMAT;
            (*tmp)[k] = map ? map[v] : (uint32_t)v;
        }
        int64_t id = psk_intern_id(in, *tmp, len * sizeof **tmp, NULL);
        if (id < 0)
            return PSK_ENOMEM;
        (*ids)[i] = (uint32_t)id;
    }
    return PSK_OK;
}

int psk_merge_part_absorb(psk_merge_part *p, const uint8_t *buf, size_t len)
{
    mctx *x = &p->x;
    const uint8_t *q = buf, *end = buf + len;
    uint64_t P, nk, kl, nr;
    uint32_t *map = NULL, *sids = NULL, *pids = NULL, ns = 0, np = 0;
    int rc = PSK_EFORMAT;
    if (psk_get_uvar(&q, end, &P) || P != (uint64_t)x->P || psk_get_uvar(&q, end, &nk) ||
        nk > (uint64_t)(end - q))
        goto out;
    if (!(map = malloc((nk ? nk : 1) * sizeof *map))) {
        rc = PSK_ENOMEM;
        goto out;
    }
    for (uint64_t k = 0; k < nk; k++) {
        if (psk_get_uvar(&q, end, &kl) || kl > (uint64_t)(end - q) || kl == 0)
            goto out;
        int64_t id = merge_key_id(x, q, (size_t)kl);
        if (id < 0) {
            rc = PSK_ENOMEM;
            goto out;
        }
        map[k] = (uint32_t)id;
        q += kl;
    }
    if ((rc = get_arrays(&q, end, p->seqs, map, (uint32_t)nk, &p->tmp, &p->tmpcap, &sids, &ns)) ||
        (rc = get_arrays(&q, end, p->perms, NULL, 0, &p->tmp, &p->tmpcap, &pids, &np)))
        goto out;
    rc = PSK_EFORMAT;
    if (psk_get_uvar(&q, end, &nr) || nr > (uint64_t)x->P)
        goto out;
    for (uint64_t i = 0; i < nr; i++) {
        uint64_t r, s, pm, n, mono;
        if (psk_get_uvar(&q, end, &r) || r >= (uint64_t)x->P || p->have[r] || psk_get_uvar(&q, end, &s) ||
            s >= ns || psk_get_uvar(&q, end, &pm) || pm > np || psk_get_uvar(&q, end, &n) ||
            psk_get_uvar(&q, end, &mono))
            goto out;
        size_t sl;
        psk_intern_key(p->seqs, sids[s], &sl);
        if (sl / 4 != n)
            goto out;
        if (pm) {
            psk_intern_key(p->perms, pids[pm - 1], &sl);
            if (sl / 4 != n)
                goto out;
        }
        p->have[r] = 1;
        p->seq[r] = sids[s];
        p->permid[r] = pm ? (int64_t)pids[pm - 1] : -1;
        p->n[r] = n;
        x->rs[r].mono_start = mono;
    }
    rc = q == end ? PSK_OK : PSK_EFORMAT;
out:
    free(map);
    free(sids);
    free(pids);
    if (rc == PSK_EFORMAT)
        merged_fail(x->m, rc, "a packed part of the merge is malformed");
    else if (rc)
        merged_fail(x->m, rc, "out of memory");
    return rc;
}

/* ---- the part holding every rank: aligned, emitted, written ---- */

static int fetch(mctx *x, int r, uint64_t k, psk_event *ev, int64_t *gap, mevent_store *ms)
{
    psk_merge_part *p = x->sink;
    int rc = puller_get(p->pl, r, k, ev, gap, ms);
    return rc ? merged_fail(x->m, rc, "%s", puller_errmsg(p->pl)) : PSK_OK;
}

static int drain(mctx *x, const int32_t *parts, int np)
{
    psk_merge_part *p = x->sink;
    int rc = spool_drain(p->sp, x->m, parts, np);
    return rc ? merged_fail(x->m, rc, "%s", spool_errmsg(p->sp)) : PSK_OK;
}

int psk_merge_part_write(psk_merge_part *p, const char *path, psk_merge_result *res)
{
    mctx *x = &p->x;
    psk_merged *m = x->m;
    int P = x->P, rc = PSK_OK;
    memset(res, 0, sizeof *res);
    for (int r = 0; r < P && !rc; r++)
        if (!p->have[r])
            rc = merged_fail(m, PSK_EINVAL, "rank %d was not loaded", r);
    if (!rc && (rc = spool_open(path, P, &p->sp)))
        merged_fail(m, rc, "%s", spool_errmsg(p->sp));
    /* the interned arrays are final now: 4-byte lengths keep them aligned */
    x->total = 0;
    for (int r = 0; r < P && !rc; r++) {
        size_t len;
        x->rs[r].key = (uint32_t *)(uintptr_t)psk_intern_key(p->seqs, p->seq[r], &len);
        p->perm[r] = p->permid[r] < 0 ? NULL
                                       : (const uint32_t *)(const void *)psk_intern_key(
                                             p->perms, (uint32_t)p->permid[r], &len);
        x->rs[r].n = p->n[r];
        x->total += p->n[r];
    }
    x->done = 0;
    x->seq = p->seq;
    x->fetch = fetch;
    x->drain = drain;
    if (!rc && (rc = puller_new(x->t, P, x->o.keep_polls, p->perm, p->n, &p->pl)))
        merged_fail(m, rc, "out of memory");
    if (!rc && m->tsum && tsum_start(m))
        rc = merged_fail(m, PSK_ENOMEM, "out of memory");
    if (!rc)
        rc = merge_align(x);
    for (int r = 0; r < P && !rc; r++) {
        m->rank[r].n = p->n[r];
        m->rank[r].mono_start = x->rs[r].mono_start;
    }
    if (!rc && (rc = spool_finish(p->sp, m, p->perm)))
        merged_fail(m, rc, "%s", spool_errmsg(p->sp));
    if (rc) {
        snprintf(res->err, sizeof res->err, "%s", m->err);
        return rc;
    }
    res->nranks = P;
    res->events = x->total;
    res->merged_events = spool_events(p->sp);
    res->classes = psk_merged_nclasses(m);
    return PSK_OK;
}

int psk_merge_file(psk_trace *t, const psk_merge_opts *opts, const char *path, psk_merge_result *res)
{
    memset(res, 0, sizeof *res);
    psk_merge_part *p;
    int rc = psk_merge_part_load(t, opts, 0, psk_trace_job(t)->nranks, &p);
    if (rc)
        snprintf(res->err, sizeof res->err, "%s", psk_merge_part_errmsg(p));
    else
        rc = psk_merge_part_write(p, path, res);
    psk_merge_part_free(p);
    return rc;
}
