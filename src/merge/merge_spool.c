/* Writing the merged-trace file while the merge emits it (the streaming
 * merge): the file's rank sets and classes come first but are known only
 * at the end, and each rank's times are made a call at a time, interleaved
 * with the other ranks'. So merged events and their patterns go to two
 * unlinked temporary files as they are made, each rank's times to a third
 * in chunks (a small buffer per rank), and the file is put together at the
 * end through the same writers as psk_merged_write: the same bytes. With
 * summarised times, the summary's entries go to a fourth file instead of
 * the ranks' times. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "merge_internal.h"
#include "psk_varint.h"

typedef struct chunk {
    uint64_t off;
    uint32_t len;
} chunk;

struct spool {
    char *path;
    FILE *out, *ev, *pool, *times, *tsum;
    uint64_t nev, evbytes, poolbytes, timesbytes, tsumbytes;
    uint32_t prev_cls; /* the last event's class: the entries say differences */
    pdelta *pd;        /* the patterns' differences (merge_delta.c) */
    mbuf b, pc;        /* pc: the patterns coded */
    size_t chunkmax;   /* a rank's times are written out past this */
    int P;
    chunk **ch;        /* per rank: its chunks in order */
    uint32_t *nch, *chcap;
    uint64_t *tflushed; /* per rank: bytes of times written out */
    char err[MERR];
};

const char *spool_errmsg(const spool *sp) { return sp ? sp->err : "out of memory"; }

static FILE *temp_near(const char *path)
{
    size_t n = strlen(path);
    char *tmpl = malloc(n + 16);
    if (!tmpl)
        return NULL;
    memcpy(tmpl, path, n);
    memcpy(tmpl + n, ".tmp-XXXXXX", 12);
    int fd = mkstemp(tmpl);
    FILE *f = NULL;
    if (fd >= 0) {
        unlink(tmpl); /* gone when closed, whatever happens */
        if (!(f = fdopen(fd, "w+b")))
            close(fd);
    }
    free(tmpl);
    return f;
}

static int sfail(spool *sp, int rc, const char *what)
{
    snprintf(sp->err, sizeof sp->err, "%s: %s (%s)", sp->path, what, errno ? strerror(errno) : "out of memory");
    return rc;
}

int spool_open(const char *path, int P, spool **out)
{
    spool *sp = calloc(1, sizeof *sp);
    *out = sp;
    if (!sp || !(sp->path = strdup(path)))
        return PSK_ENOMEM;
    sp->P = P;
    /* 16 MB in all, a power of two from 4 KB (a buffer's first size) to
     * 64 KB each: written out before an event could make it grow */
    size_t per = (16u << 20) / (size_t)(P ? P : 1);
    sp->chunkmax = 4096;
    while (sp->chunkmax < (64u << 10) && 2 * sp->chunkmax <= per)
        sp->chunkmax *= 2;
    sp->ch = calloc((size_t)P, sizeof *sp->ch);
    sp->nch = calloc((size_t)P, sizeof *sp->nch);
    sp->chcap = calloc((size_t)P, sizeof *sp->chcap);
    sp->tflushed = calloc((size_t)P, sizeof *sp->tflushed);
    if (!sp->ch || !sp->nch || !sp->chcap || !sp->tflushed || !(sp->pd = pdelta_new()))
        return sfail(sp, PSK_ENOMEM, "cannot write");
    errno = 0;
    if (!(sp->out = fopen(path, "wb")))
        return sfail(sp, PSK_EIO, "cannot write");
    if (!(sp->ev = temp_near(path)) || !(sp->pool = temp_near(path)) || !(sp->times = temp_near(path)) ||
        !(sp->tsum = temp_near(path)))
        return sfail(sp, PSK_EIO, "cannot make a temporary file beside it");
    return PSK_OK;
}

void spool_close(spool *sp)
{
    if (!sp)
        return;
    if (sp->out) { /* not finished: no half-written file left behind */
        fclose(sp->out);
        remove(sp->path);
    }
    if (sp->ev)
        fclose(sp->ev);
    if (sp->pool)
        fclose(sp->pool);
    if (sp->times)
        fclose(sp->times);
    if (sp->tsum)
        fclose(sp->tsum);
    for (int r = 0; sp->ch && r < sp->P; r++)
        free(sp->ch[r]);
    free(sp->ch);
    free(sp->nch);
    free(sp->chcap);
    free(sp->tflushed);
    free(sp->b.p);
    free(sp->pc.p);
    pdelta_free(sp->pd);
    free(sp->path);
    free(sp);
}

/* rank r's times so far to the temporary file */
static int flush_times(spool *sp, int r, mbuf *t)
{
    if (!t->len)
        return PSK_OK;
    if (sp->nch[r] == sp->chcap[r]) {
        uint32_t cap = sp->chcap[r] ? 2 * sp->chcap[r] : 8;
        chunk *c = realloc(sp->ch[r], cap * sizeof *c);
        if (!c)
            return sfail(sp, PSK_ENOMEM, "cannot write");
        sp->ch[r] = c;
        sp->chcap[r] = cap;
    }
    sp->ch[r][sp->nch[r]++] = (chunk){sp->timesbytes, (uint32_t)t->len};
    errno = 0;
    if (fwrite(t->p, 1, t->len, sp->times) != t->len)
        return sfail(sp, PSK_EIO, "cannot write a temporary file beside it");
    sp->timesbytes += t->len;
    sp->tflushed[r] += t->len;
    t->len = 0;
    return PSK_OK;
}

/* the merged events held so far to the temporary files */
static int flush_events(spool *sp, psk_merged *m)
{
    sp->b.len = 0;
    if (mbuf_reserve(&sp->pc, m->pool.len))
        return sfail(sp, PSK_ENOMEM, "cannot write");
    for (uint64_t i = 0; i < m->n; i++) {
        uint64_t len = (i + 1 < m->n ? m->evoff[i + 1] : m->pool.len) - m->evoff[i];
        if (merged_event_entry(&sp->b, &sp->prev_cls, m->cls[i], len) ||
            pdelta_code(sp->pd, m->cls[i], m->pool.p + m->evoff[i], (size_t)len, sp->pc.p + m->evoff[i]))
            return sfail(sp, PSK_ENOMEM, "cannot write");
    }
    errno = 0;
    if (fwrite(sp->b.p, 1, sp->b.len, sp->ev) != sp->b.len ||
        (m->pool.len && fwrite(sp->pc.p, 1, m->pool.len, sp->pool) != m->pool.len))
        return sfail(sp, PSK_EIO, "cannot write a temporary file beside it");
    errno = 0;
    if (m->ts.len && fwrite(m->ts.p, 1, m->ts.len, sp->tsum) != m->ts.len)
        return sfail(sp, PSK_EIO, "cannot write a temporary file beside it");
    sp->nev += m->n;
    sp->evbytes += sp->b.len;
    sp->poolbytes += m->pool.len;
    sp->tsumbytes += m->ts.len;
    m->nbase += m->n;
    m->n = 0;
    m->pool.len = 0;
    m->ts.len = 0;
    return PSK_OK;
}

int spool_drain(spool *sp, psk_merged *m, const int32_t *parts, int np)
{
    int rc = PSK_OK;
    for (int j = 0; j < np && !rc; j++)
        if (m->rank[parts[j]].times.len + 2 * PSK_VARINT_MAX > sp->chunkmax)
            rc = flush_times(sp, parts[j], &m->rank[parts[j]].times);
    if (!rc && (m->n >= 65536 || m->pool.len >= (1u << 20) || m->ts.len >= (1u << 20)))
        rc = flush_events(sp, m);
    return rc;
}

/* len bytes of temporary file f from off into section w */
static int copy(spool *sp, msec *w, FILE *f, uint64_t off, uint64_t len)
{
    uint8_t buf[1 << 16];
    if (fflush(f) || fseeko(f, (off_t)off, SEEK_SET))
        return -1;
    while (len) {
        size_t n = len < sizeof buf ? (size_t)len : sizeof buf;
        if (fread(buf, 1, n, f) != n || msec_put(w, buf, n))
            return -1;
        len -= n;
    }
    (void)sp;
    return 0;
}

int spool_finish(spool *sp, psk_merged *m, const uint32_t *const *perm)
{
    int rc = flush_events(sp, m);
    if (rc)
        return rc;
    msec w = {0};
    errno = 0;
    int err = merged_write_head(m, &w, sp->out) || merged_write_tables(m, &w, sp->out, &sp->b);
    sp->b.len = 0;
    err = err || merged_write_events_head(&sp->b, sp->nev) ||
          msec_begin(&w, sp->out, MT_EVNT, sp->b.len + sp->evbytes) || msec_put(&w, sp->b.p, sp->b.len) ||
          copy(sp, &w, sp->ev, 0, sp->evbytes) || msec_end(&w);
    err = err || msec_begin(&w, sp->out, MT_POOL, sp->poolbytes) || copy(sp, &w, sp->pool, 0, sp->poolbytes) ||
          msec_end(&w);
    if (m->tsum && !err) { /* the summary: its count, its entries, the ranks' factors */
        mbuf fac = {0};
        sp->b.len = 0;
        err = merged_write_events_head(&sp->b, sp->nev) || tsum_factors(m, &fac) ||
              msec_begin(&w, sp->out, MT_TSUM, sp->b.len + sp->tsumbytes + fac.len) ||
              msec_put(&w, sp->b.p, sp->b.len) || copy(sp, &w, sp->tsum, 0, sp->tsumbytes) ||
              msec_put(&w, fac.p, fac.len) || msec_end(&w);
        free(fac.p);
    }
    mbuf suf = {0};
    int *back = NULL;
    err = err || merged_same_orders(m->nranks, perm, m->rank, &back);
    for (int r = 0; r < m->nranks && !err; r++) {
        const mrank *mr = &m->rank[r];
        sp->b.len = suf.len = 0;
        err = merged_rank_prefix(&sp->b, r, mr->n, mr->mono_start, sp->tflushed[r] + mr->times.len) ||
              merged_rank_suffix(&suf, perm[r], mr->n, back[r]) || merged_rank_threads(&suf, mr) ||
              msec_begin(&w, sp->out, MT_RANK, sp->b.len + sp->tflushed[r] + mr->times.len + suf.len) ||
              msec_put(&w, sp->b.p, sp->b.len);
        for (uint32_t c = 0; c < sp->nch[r] && !err; c++)
            err = copy(sp, &w, sp->times, sp->ch[r][c].off, sp->ch[r][c].len);
        err = err || msec_put(&w, mr->times.p, mr->times.len) || msec_put(&w, suf.p, suf.len) || msec_end(&w);
    }
    free(suf.p);
    free(back);
    err = err || merged_write_end(&w, sp->out);
    msec_free(&w);
    int cerr = fclose(sp->out);
    sp->out = NULL;
    if (err || cerr) {
        remove(sp->path);
        return sfail(sp, PSK_EIO, "cannot write");
    }
    return PSK_OK;
}

uint64_t spool_events(const spool *sp) { return sp->nev; }
