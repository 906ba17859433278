/* The streaming merge (psk_merge_file): the same merge as psk_merge, in
 * memory that does not grow with every rank's events. Loading keeps, per
 * rank, only the id of its key sequence in normalised order and of its
 * call order: equal sequences are stored once (interned), so the P ranks
 * of an SPMD code cost a handful. Alignment (merge_align.c) runs on those,
 * sharing a placing between ranks that get the same one; emission pulls
 * each call's bytes from the rank files again (merge_pull.c) and writes
 * the merged file as it goes (merge_spool.c). Same algorithm, same order
 * of work, so the same bytes as psk_merge + psk_merged_write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge_internal.h"

typedef struct stream {
    psk_intern *seqs, *perms;
    uint32_t *seq;        /* per rank: its key sequence */
    int64_t *permid;      /* per rank: its order, or -1 (as recorded) */
    const uint32_t **perm;
    uint64_t *n;
    uint32_t *tmp;        /* a rank's keys in normalised order */
    size_t tmpcap;
    puller *pl;
    spool *sp;
    int loaded;           /* every rank settled: keys point into seqs */
} stream;

/* rank r loaded (lock held): its events let go, its keys and order kept once */
static int settle(mctx *x, int r)
{
    stream *st = x->sink;
    rstore *s = &x->rs[r];
    const uint32_t *keys = s->key;
    if (s->perm) {
        if (MERGE_GROW(&st->tmp, &st->tmpcap, s->n))
            return PSK_ENOMEM;
        for (uint64_t k = 0; k < s->n; k++)
            st->tmp[k] = s->key[s->perm[k]];
        keys = st->tmp;
    }
    int64_t id = psk_intern_id(st->seqs, keys, s->n * sizeof *keys, NULL);
    int64_t pid = s->perm ? psk_intern_id(st->perms, s->perm, s->n * sizeof *s->perm, NULL) : -1;
    if (id < 0 || (s->perm && pid < 0))
        return PSK_ENOMEM;
    st->seq[r] = (uint32_t)id;
    st->permid[r] = pid;
    st->n[r] = s->n;
    free(s->key);
    free(s->perm);
    free(s->off);
    free(s->buf.p);
    s->key = s->perm = s->off = NULL;
    s->buf = (mbuf){0};
    uint64_t before = x->done;
    x->done += s->n;
    if (x->o.progress && x->done >> 20 != before >> 20)
        x->o.progress(x->o.progress_arg, x->done, 0);
    return PSK_OK;
}

static int fetch(mctx *x, int r, uint64_t k, psk_event *ev, int64_t *gap, mevent_store *ms)
{
    stream *st = x->sink;
    int rc = puller_get(st->pl, r, k, ev, gap, ms);
    return rc ? merged_fail(x->m, rc, "%s", puller_errmsg(st->pl)) : PSK_OK;
}

static int drain(mctx *x, const int32_t *parts, int np)
{
    stream *st = x->sink;
    int rc = spool_drain(st->sp, x->m, parts, np);
    return rc ? merged_fail(x->m, rc, "%s", spool_errmsg(st->sp)) : PSK_OK;
}

static int run(mctx *x, stream *st, const char *path)
{
    psk_merged *m = x->m;
    int P = x->P, rc;
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    if ((rc = spool_open(path, P, &st->sp)))
        return merged_fail(m, rc, "%s", spool_errmsg(st->sp));
    x->settle = settle;
    x->lock = &lock;
    if ((rc = merge_load(x)))
        return rc;
    /* the interned arrays are final now: 4-byte lengths keep them aligned */
    st->loaded = 1;
    for (int r = 0; r < P; r++) {
        size_t len;
        x->rs[r].key = (uint32_t *)(uintptr_t)psk_intern_key(st->seqs, st->seq[r], &len);
        st->perm[r] = st->permid[r] < 0 ? NULL
                                         : (const uint32_t *)(const void *)psk_intern_key(
                                               st->perms, (uint32_t)st->permid[r], &len);
        x->rs[r].n = st->n[r];
        x->total += st->n[r];
    }
    x->done = 0;
    x->seq = st->seq;
    x->fetch = fetch;
    x->drain = drain;
    if ((rc = puller_new(x->t, P, x->o.keep_polls, st->perm, st->n, &st->pl)))
        return merged_fail(m, rc, "out of memory");
    if ((rc = merge_align(x)))
        return rc;
    for (int r = 0; r < P; r++) {
        m->rank[r].n = st->n[r];
        m->rank[r].mono_start = x->rs[r].mono_start;
    }
    if ((rc = spool_finish(st->sp, m, st->perm)))
        return merged_fail(m, rc, "%s", spool_errmsg(st->sp));
    return PSK_OK;
}

int psk_merge_file(psk_trace *t, const psk_merge_opts *opts, const char *path, psk_merge_result *res)
{
    memset(res, 0, sizeof *res);
    psk_merged *m = merged_new();
    if (!m) {
        snprintf(res->err, sizeof res->err, "out of memory");
        return PSK_ENOMEM;
    }
    int rc = PSK_OK;
    char *text = psk_trace_job_json(t);
    if (!text)
        rc = merged_fail(m, PSK_ENOMEM, "out of memory");
    else if ((rc = psk_jobdoc_parse(text, strlen(text), "job.json", &m->doc)))
        merged_fail(m, rc, "%s", psk_jobdoc_errmsg(m->doc));
    free(text);
    mctx x = {.m = m, .t = t};
    stream st = {0};
    if (!rc) {
        m->job = psk_jobdoc_job(m->doc);
        m->nranks = x.P = m->job->nranks;
        if (opts)
            x.o = *opts;
        if (x.o.window < 2)
            x.o.window = 64;
        size_t P = (size_t)x.P;
        m->rank = calloc(P, sizeof *m->rank);
        x.rs = calloc(P, sizeof *x.rs);
        x.keys = psk_intern_new();
        x.loosekeys = psk_intern_new();
        st.seqs = psk_intern_new();
        st.perms = psk_intern_new();
        st.seq = calloc(P, sizeof *st.seq);
        st.permid = calloc(P, sizeof *st.permid);
        st.perm = calloc(P, sizeof *st.perm);
        st.n = calloc(P, sizeof *st.n);
        x.sink = &st;
        if (!m->rank || !x.rs || !x.keys || !x.loosekeys || !st.seqs || !st.perms || !st.seq || !st.permid ||
            !st.perm || !st.n)
            rc = merged_fail(m, PSK_ENOMEM, "out of memory");
        else
            rc = run(&x, &st, path);
    }
    if (rc) {
        snprintf(res->err, sizeof res->err, "%s", m->err);
    } else {
        res->nranks = m->nranks;
        res->events = x.total;
        res->merged_events = spool_events(st.sp);
        res->classes = psk_merged_nclasses(m);
    }
    for (int r = 0; x.rs && r < x.P; r++) {
        rstore *s = &x.rs[r];
        if (!st.loaded) { /* a rank loaded but not settled owns its arrays */
            free(s->key);
            free(s->perm);
        }
        free(s->off);
        free(s->buf.p);
    }
    spool_close(st.sp);
    puller_free(st.pl);
    psk_intern_free(st.seqs);
    psk_intern_free(st.perms);
    free(st.seq);
    free(st.permid);
    free(st.perm);
    free(st.n);
    free(st.tmp);
    free(x.rs);
    psk_intern_free(x.keys);
    psk_intern_free(x.loosekeys);
    free(x.loose);
    free(x.hasnull);
    psk_merged_close(m);
    return rc;
}
