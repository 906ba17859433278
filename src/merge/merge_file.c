/* The merged-trace file (docs/merged-format.md): "PSKMERGE", a version
 * byte, then sections, each a 4-byte tag, an 8-byte length, the payload
 * and a CRC-32 of the payload: the job header (JSON), the rank sets, the
 * classes, the merged events (class and pattern length), the pattern pool,
 * (optionally the summarised times: merge_tsum.c), and per rank its times
 * and call order. Written and read whole; from version 4 each payload
 * compressed where that makes it smaller (zstd). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include "merge_internal.h"
#include "psk_varint.h"

#define MAGIC "PSKMERGE"
#define VERSION 4 /* 2: trace format 3's fields, TSUM, orders shared between ranks; 3: threads;
                   * 4: payloads coded (zstd), differences (merge_delta.c), summarised times
                   * as codes (merge_tsum.c) */
#define VERSION_OLDEST 2 /* read as well: every call from one thread */


static void le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t crc_of(const uint8_t *p, size_t len)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    for (size_t done = 0; done < len;) { /* crc32 takes uInt lengths */
        size_t n = len - done > (1u << 30) ? (1u << 30) : len - done;
        crc = crc32(crc, p + done, (uInt)n);
        done += n;
    }
    return (uint32_t)crc;
}

#define ZMIN 64    /* payloads shorter than this are stored as they are */
#define ZLEVEL 3   /* zstd's default */
#define ZRATIO 32768 /* a zstd frame holds at most this many bytes a byte (an RLE block: 4 bytes, 128 KiB) */

int msec_begin(msec *w, FILE *f, uint32_t tag, uint64_t len)
{
    uint8_t h[13];
    w->f = f;
    w->crc = (uint32_t)crc32(0L, Z_NULL, 0);
    w->left = len;
    w->stored = 0;
    w->z = 0;
    if (len >= ZMIN && (w->at = (int64_t)ftello(f)) >= 0) { /* its length is known at its end */
        if (!w->zc && !(w->zc = ZSTD_createCCtx()))
            return 1;
        if (!w->zbuf && !(w->zbuf = malloc(w->zcap = ZSTD_CStreamOutSize())))
            return 1;
        ZSTD_CCtx_reset(w->zc, ZSTD_reset_session_only);
        if (ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, ZLEVEL)) ||
            ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(w->zc, len)))
            return 1;
        w->z = 1;
    }
    le(h, tag, 4);
    le(h + 4, len ? (w->z ? 0 : len + 1) : 0, 8);
    h[12] = (uint8_t)w->z; /* the coding */
    if (fwrite(h, 1, len ? 13 : 12, f) != (len ? 13u : 12u))
        return 1;
    if (len) {
        w->crc = (uint32_t)crc32(w->crc, h + 12, 1);
        w->stored = 1;
    }
    return 0;
}

/* bytes of the payload as stored */
static int stored_put(msec *w, const uint8_t *p, size_t len)
{
    uLong crc = w->crc;
    for (size_t done = 0; done < len;) { /* crc32 takes uInt lengths */
        size_t n = len - done > (1u << 30) ? (1u << 30) : len - done;
        crc = crc32(crc, p + done, (uInt)n);
        done += n;
    }
    w->crc = (uint32_t)crc;
    w->stored += len;
    return len && fwrite(p, 1, len, w->f) != len;
}

/* the compressor on p[0..len), mode ZSTD_e_continue or ZSTD_e_end */
static int zput(msec *w, const uint8_t *p, size_t len, ZSTD_EndDirective mode)
{
    ZSTD_inBuffer in = {p, len, 0};
    for (;;) {
        ZSTD_outBuffer out = {w->zbuf, w->zcap, 0};
        size_t left = ZSTD_compressStream2(w->zc, &out, &in, mode);
        if (ZSTD_isError(left) || stored_put(w, w->zbuf, out.pos))
            return 1;
        if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size)
            return 0;
    }
}

int msec_put(msec *w, const uint8_t *p, size_t len)
{
    if (len > w->left)
        return -1;
    w->left -= len;
    if (!len)
        return 0;
    return w->z ? zput(w, p, len, ZSTD_e_continue) : stored_put(w, p, len);
}

int msec_end(msec *w)
{
    uint8_t c[8];
    if (w->left || (w->z && zput(w, NULL, 0, ZSTD_e_end)))
        return 1;
    if (w->z) { /* the length, now known */
        int64_t end = (int64_t)ftello(w->f);
        le(c, w->stored, 8);
        if (end < 0 || fseeko(w->f, (off_t)(w->at + 4), SEEK_SET) || fwrite(c, 1, 8, w->f) != 8 ||
            fseeko(w->f, (off_t)end, SEEK_SET))
            return 1;
    }
    le(c, w->crc, 4);
    return fwrite(c, 1, 4, w->f) != 4;
}

void msec_free(msec *w)
{
    ZSTD_freeCCtx(w->zc);
    free(w->zbuf);
    w->zc = NULL;
    w->zbuf = NULL;
}

static int section(msec *w, FILE *f, uint32_t tag, const uint8_t *p, size_t len)
{
    return msec_begin(w, f, tag, len) || msec_put(w, p, len) || msec_end(w);
}

static int put_bytes(mbuf *b, const void *p, size_t n)
{
    if (mbuf_reserve(b, n))
        return -1;
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

int merged_write_head(psk_merged *m, msec *w, FILE *f)
{
    int err = fwrite(MAGIC, 1, 8, f) != 8 || fputc(VERSION, f) == EOF;
    char *job = psk_jobdoc_text(m->doc);
    err |= !job || section(w, f, MT_JOB, (const uint8_t *)job, strlen(job));
    free(job);
    return err;
}

int merged_write_tables(psk_merged *m, msec *w, FILE *f, mbuf *b)
{
    /* rank sets */
    b->len = 0;
    uint32_t n = psk_intern_count(m->psets);
    int err = mbuf_put_uvar(b, n);
    for (uint32_t i = 0; i < n && !err; i++) {
        size_t len;
        const int32_t *r = (const int32_t *)(const void *)psk_intern_key(m->psets, i, &len);
        err |= mbuf_put_uvar(b, len / 4);
        for (size_t j = 0; j < len / 4 && !err; j++)
            err |= mbuf_put_uvar(b, (uint64_t)(r[j] - (j ? r[j - 1] : 0)));
    }
    err |= err || section(w, f, MT_PSET, b->p, b->len);
    /* classes */
    b->len = 0;
    n = psk_intern_count(m->classes);
    err |= mbuf_put_uvar(b, n);
    const uint8_t *prev = NULL;
    size_t plen = 0;
    for (uint32_t i = 0; i < n && !err; i++) { /* each key less the one before (merge_delta.c) */
        size_t len;
        const uint8_t *k = psk_intern_key(m->classes, i, &len);
        err |= mbuf_put_uvar(b, len) || mbuf_reserve(b, len);
        if (!err) {
            kdelta_code(prev, plen, k, len, b->p + b->len);
            b->len += len;
        }
        prev = k, plen = len;
    }
    return err || section(w, f, MT_CLAS, b->p, b->len);
}

int merged_event_entry(mbuf *b, uint32_t *prev, uint32_t cls, uint64_t len)
{
    int64_t d = (int64_t)cls - (int64_t)*prev;
    *prev = cls;
    return mbuf_put_svar(b, d) || mbuf_put_uvar(b, len);
}

int merged_write_events_head(mbuf *b, uint64_t n)
{
    return mbuf_put_uvar(b, n);
}

int merged_rank_prefix(mbuf *b, int r, uint64_t n, uint64_t mono_start, uint64_t tlen)
{
    return mbuf_put_uvar(b, (uint64_t)r) || mbuf_put_uvar(b, n) || mbuf_put_uvar(b, mono_start) || mbuf_put_uvar(b, tlen);
}

int merged_rank_suffix(mbuf *b, const uint32_t *perm, uint64_t n, int back)
{
    int err = mbuf_put_uvar(b, !perm ? 0 : back > 0 ? 2 : 1);
    if (perm && back > 0)
        return err || mbuf_put_uvar(b, (uint64_t)back);
    /* each position less the one before's plus one (-1 before the first):
     * 0 where the order is the merged one, a constant where a run of calls
     * is spread evenly (Algorithm 1 putting every send of a long run first) */
    for (uint64_t k = 0; perm && k < n && !err; k++)
        err |= mbuf_put_svar(b, (int64_t)perm[k] - (k ? (int64_t)perm[k - 1] : -1) - 1);
    return err;
}

int merged_rank_threads(mbuf *b, const mrank *mr)
{
    int other = 0;
    for (size_t k = 0; k < mr->nthr; k++)
        other |= mr->thr[k].thread != 0;
    if (!other) /* every call from the thread that initialised MPI */
        return mbuf_put_uvar(b, 0);
    int err = mbuf_put_uvar(b, mr->nthr);
    for (size_t k = 0; k < mr->nthr && !err; k++)
        err |= mbuf_put_uvar(b, mr->thr[k].n) || mbuf_put_uvar(b, mr->thr[k].thread);
    return err;
}

static uint64_t perm_hash(const uint32_t *p, uint64_t n)
{
    uint64_t h = 1469598103934665603ull ^ n;
    for (uint64_t k = 0; k < n; k++)
        h = (h ^ (p[k] - k)) * 1099511628211ull;
    return h;
}

int merged_same_orders(int P, const uint32_t *const *perm, const mrank *rank, int **back)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)P)
        cap *= 2;
    int *tab = malloc(cap * sizeof *tab);
    uint64_t *h = malloc(((size_t)P + 1) * sizeof *h);
    *back = calloc((size_t)P + 1, sizeof **back);
    if (!tab || !h || !*back) {
        free(tab);
        free(h);
        return -1;
    }
    for (size_t i = 0; i < cap; i++)
        tab[i] = -1;
    for (int r = 0; r < P; r++) {
        if (!perm[r])
            continue;
        uint64_t n = rank[r].n;
        h[r] = perm_hash(perm[r], n);
        size_t i = (size_t)h[r] & (cap - 1);
        for (; tab[i] >= 0; i = (i + 1) & (cap - 1)) {
            int q = tab[i];
            if (h[q] == h[r] && rank[q].n == n &&
                (perm[q] == perm[r] || !memcmp(perm[q], perm[r], n * sizeof *perm[r]))) {
                (*back)[r] = r - q;
                break;
            }
        }
        if (tab[i] < 0)
            tab[i] = r;
    }
    free(tab);
    free(h);
    return 0;
}

int merged_write_end(msec *w, FILE *f)
{
    return section(w, f, MT_END, NULL, 0);
}

/* the patterns, each event's coded against its reference's (merge_delta.c) */
static int write_pool(psk_merged *m, msec *w, FILE *f, mbuf *b)
{
    pdelta *d = pdelta_new();
    int err = !d || msec_begin(w, f, MT_POOL, m->pool.len);
    b->len = 0;
    for (uint64_t i = 0; i < m->n && !err; i++) {
        size_t len = (size_t)((i + 1 < m->n ? m->evoff[i + 1] : m->pool.len) - m->evoff[i]);
        err |= mbuf_reserve(b, len) || pdelta_code(d, m->cls[i], m->pool.p + m->evoff[i], len, b->p + b->len);
        b->len += len;
        if (b->len >= (1u << 16) || i + 1 == m->n) {
            err |= err || msec_put(w, b->p, b->len);
            b->len = 0;
        }
    }
    pdelta_free(d);
    return err || msec_end(w);
}

int psk_merged_write(psk_merged *m, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return merged_fail(m, PSK_EIO, "%s: %s", path, strerror(errno));
    mbuf b = {0};
    msec w = {0};
    uint32_t prev = 0;
    int err = merged_write_head(m, &w, f);
    err |= err || merged_write_tables(m, &w, f, &b);
    /* merged events and their patterns */
    b.len = 0;
    err |= merged_write_events_head(&b, m->n);
    for (uint64_t i = 0; i < m->n && !err; i++)
        err |= merged_event_entry(&b, &prev, m->cls[i], (i + 1 < m->n ? m->evoff[i + 1] : m->pool.len) - m->evoff[i]);
    err |= err || section(&w, f, MT_EVNT, b.p, b.len) || write_pool(m, &w, f, &b);
    if (m->tsum && !err) { /* the summary instead of the ranks' times */
        b.len = 0;
        int rc = tsum_encode(m, &b);
        if (rc == -2) {
            fclose(f);
            remove(path);
            free(b.p);
            msec_free(&w);
            return merged_fail(m, PSK_EFORMAT, "%s: cannot summarise the times: a rank has fewer than its events",
                               path);
        }
        err |= rc || section(&w, f, MT_TSUM, b.p, b.len);
    }
    /* per rank: times in merged order (none when summarised), and its own
     * order, or how many ranks back the same order is */
    int *back = NULL;
    uint32_t **perm = malloc(((size_t)m->nranks + 1) * sizeof *perm);
    for (int r = 0; perm && r < m->nranks; r++)
        perm[r] = m->rank[r].perm;
    err |= err || !perm || merged_same_orders(m->nranks, (const uint32_t *const *)perm, m->rank, &back);
    for (int r = 0; r < m->nranks && !err; r++) {
        const mrank *mr = &m->rank[r];
        size_t tlen = m->tsum ? 0 : mr->times.len;
        b.len = 0;
        err |= merged_rank_prefix(&b, r, mr->n, mr->mono_start, tlen) || put_bytes(&b, mr->times.p, tlen) ||
               merged_rank_suffix(&b, mr->perm, mr->n, back[r]) || merged_rank_threads(&b, mr);
        err |= err || section(&w, f, MT_RANK, b.p, b.len);
    }
    free(perm);
    free(back);
    err |= merged_write_end(&w, f);
    free(b.p);
    msec_free(&w);
    if (fclose(f) || err) {
        remove(path);
        return merged_fail(m, PSK_EIO, "%s: cannot write (%s)", path, errno ? strerror(errno) : "out of memory");
    }
    return PSK_OK;
}

/* ---- reading ---- */

typedef struct reader {
    psk_merged *m;
    const char *path;
    int version;
    FILE *f;
    uint8_t *buf;
    size_t cap;
    const uint8_t *p, *end; /* the current section's payload */
    int nsec;
    uint32_t tag;           /* the current section's */
    uint64_t size;          /* of the file */
    ZSTD_DCtx *zd;          /* version 4: compressed payloads */
    uint8_t *zplain;        /* ... decompressed */
    size_t zcap;
} reader;

/* a section's payload from version 4: its coding byte, then the bytes as
 * they are, or one zstd frame of them, of a size said and bounded by what
 * a frame can hold; [p, end) made the bytes */
static int decode_payload(reader *rd, uint64_t len)
{
    const uint8_t *z = rd->buf + 1;
    size_t zlen = (size_t)len - 1;
    int sec = rd->nsec - 1;
    if (rd->buf[0] == 0) {
        rd->p = z;
        return PSK_OK;
    }
    if (rd->buf[0] != 1)
        return merged_fail(rd->m, PSK_EFORMAT, "%s: corrupt: section %d has an unknown coding %u", rd->path, sec,
                           rd->buf[0]);
    unsigned long long n = ZSTD_getFrameContentSize(z, zlen);
    if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN || n > (unsigned long long)zlen * ZRATIO ||
        n > (1ull << 40) || ZSTD_findFrameCompressedSize(z, zlen) != zlen)
        return merged_fail(rd->m, PSK_EFORMAT, "%s: corrupt: section %d is not one zstd frame of a known size",
                           rd->path, sec);
    if (n > rd->zcap || !rd->zplain) {
        uint8_t *p = realloc(rd->zplain, n ? (size_t)n : 1);
        if (!p)
            return merged_fail(rd->m, PSK_ENOMEM, "%s: out of memory", rd->path);
        rd->zplain = p;
        rd->zcap = n ? (size_t)n : 1;
    }
    if (!rd->zd && !(rd->zd = ZSTD_createDCtx()))
        return merged_fail(rd->m, PSK_ENOMEM, "%s: out of memory", rd->path);
    size_t got = ZSTD_decompressDCtx(rd->zd, rd->zplain, (size_t)n, z, zlen);
    if (ZSTD_isError(got) || got != n)
        return merged_fail(rd->m, PSK_EFORMAT, "%s: corrupt: section %d does not decompress", rd->path, sec);
    rd->p = rd->zplain;
    rd->end = rd->zplain + n;
    return PSK_OK;
}

/* reads the next section, which must have tag want or alt; *got: which */
static int next_section_of(reader *rd, uint32_t want, uint32_t alt, uint32_t *got)
{
    uint8_t h[12], c[4];
    if (fread(h, 1, 12, rd->f) != 12)
        return merged_fail(rd->m, PSK_ETRUNCATED, "%s: truncated after section %d", rd->path, rd->nsec);
    uint32_t tag = (uint32_t)get_le(h, 4);
    uint64_t len = get_le(h + 4, 8);
    if (tag != want && tag != alt)
        return merged_fail(rd->m, PSK_EFORMAT, "%s: corrupt: section %d has an unexpected tag", rd->path, rd->nsec);
    *got = rd->tag = tag;
    /* no longer than what the file has left (its payload and CRC) */
    long at = ftell(rd->f);
    if (len > (1ull << 40) || at < 0)
        return merged_fail(rd->m, PSK_EFORMAT, "%s: corrupt: section %d length %llu", rd->path, rd->nsec,
                           (unsigned long long)len);
    if (len + 4 > rd->size - (uint64_t)at)
        return merged_fail(rd->m, PSK_ETRUNCATED, "%s: truncated inside section %d (%llu bytes of its %llu are there)",
                           rd->path, rd->nsec, (unsigned long long)(rd->size - (uint64_t)at), (unsigned long long)len + 4);
    if (len > rd->cap || !rd->buf) { /* a buffer even for an empty section: p and end point into it */
        uint8_t *p = realloc(rd->buf, len ? len : 1);
        if (!p)
            return merged_fail(rd->m, PSK_ENOMEM, "%s: out of memory", rd->path);
        rd->buf = p;
        rd->cap = len ? len : 1;
    }
    if ((len && fread(rd->buf, 1, len, rd->f) != len) || fread(c, 1, 4, rd->f) != 4)
        return merged_fail(rd->m, PSK_ETRUNCATED, "%s: truncated inside section %d", rd->path, rd->nsec);
    if (crc_of(rd->buf, len) != (uint32_t)get_le(c, 4))
        return merged_fail(rd->m, PSK_EFORMAT, "%s: corrupt: section %d fails its checksum", rd->path, rd->nsec);
    rd->p = rd->buf;
    rd->end = rd->buf + len;
    rd->nsec++;
    return rd->version >= 4 && len ? decode_payload(rd, len) : PSK_OK;
}

static int next_section(reader *rd, uint32_t want)
{
    uint32_t got;
    return next_section_of(rd, want, want, &got);
}

static int get(reader *rd, uint64_t *v)
{
    return psk_get_uvar(&rd->p, rd->end, v);
}

static int malformed(reader *rd)
{
    char name[5] = {(char)rd->tag, (char)(rd->tag >> 8), (char)(rd->tag >> 16), (char)(rd->tag >> 24), 0};
    return merged_fail(rd->m, PSK_EFORMAT, "%s: corrupt: section %d (%s) is malformed", rd->path, rd->nsec - 1, name);
}

static int read_ranks(reader *rd, int have);
static int rank_counts(reader *rd);

static int read_all(reader *rd)
{
    psk_merged *m = rd->m;
    char magic[9] = {0};
    int version;
    if (fread(magic, 1, 8, rd->f) != 8 || memcmp(magic, MAGIC, 8))
        return merged_fail(m, PSK_EFORMAT, "%s: not a perfskel merged trace", rd->path);
    if ((version = fgetc(rd->f)) == EOF)
        return merged_fail(m, PSK_ETRUNCATED, "%s: truncated in the header", rd->path);
    if (version < VERSION_OLDEST || version > VERSION)
        return merged_fail(m, PSK_EVERSION,
                           "%s: merged-trace format version %d; this perfskel reads versions %d and %d (merge the "
                           "trace directory again)",
                           rd->path, version, VERSION_OLDEST, VERSION);
    rd->version = version;
    int rc = next_section(rd, MT_JOB);
    if (rc)
        return rc;
    if ((rc = psk_jobdoc_parse((const char *)rd->p, (size_t)(rd->end - rd->p), rd->path, &m->doc)))
        return merged_fail(m, rc, "%s", psk_jobdoc_errmsg(m->doc));
    m->job = psk_jobdoc_job(m->doc);
    m->nranks = m->job->nranks;
    m->rank = calloc((size_t)m->nranks, sizeof *m->rank);
    if (!m->rank)
        return merged_fail(m, PSK_ENOMEM, "out of memory");
    uint64_t n, len, v;
    /* rank sets */
    if ((rc = next_section(rd, MT_PSET)))
        return rc;
    if (get(rd, &n) || n > (uint64_t)(rd->end - rd->p)) /* a byte each at least */
        return malformed(rd);
    int32_t *ranks = malloc((size_t)m->nranks * sizeof *ranks);
    if (!ranks)
        return merged_fail(m, PSK_ENOMEM, "out of memory");
    for (uint64_t i = 0; i < n; i++) {
        if (get(rd, &len) || len == 0 || len > (uint64_t)m->nranks)
            return free(ranks), malformed(rd);
        int64_t r = 0;
        for (uint64_t j = 0; j < len; j++) {
            if (get(rd, &v) || (j && v == 0) || v >= (uint64_t)m->nranks || (r += (int64_t)v) >= m->nranks)
                return free(ranks), malformed(rd);
            ranks[j] = (int32_t)r;
        }
        if (psk_intern_id(m->psets, ranks, len * sizeof *ranks, NULL) != (int64_t)i)
            return free(ranks), malformed(rd);
    }
    free(ranks);
    /* classes */
    if ((rc = next_section(rd, MT_CLAS)))
        return rc;
    if (get(rd, &n))
        return malformed(rd);
    const uint8_t *prev = NULL;
    uint64_t plen = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (get(rd, &len) || len > (uint64_t)(rd->end - rd->p))
            return malformed(rd);
        if (rd->version >= 4) /* less the key before (the payload is the reader's own buffer) */
            kdelta_undo(prev, (size_t)plen, (uint8_t *)(uintptr_t)rd->p, (size_t)len);
        prev = rd->p, plen = len;
        if (merged_class_id(m, rd->p, len) != (int64_t)i)
            return malformed(rd);
        if (m->cinfo[i].pset >= psk_intern_count(m->psets) || !psk_fn_name(m->cinfo[i].fn))
            return malformed(rd);
        rd->p += len;
    }
    /* events */
    if ((rc = next_section(rd, MT_EVNT)))
        return rc;
    /* each event takes two bytes at least; lengths summed without wrapping
     * (their sum is then checked against the pool's size) */
    if (get(rd, &n))
        return malformed(rd);
    if (n > (uint64_t)(rd->end - rd->p) / 2)
        return merged_fail(m, PSK_EFORMAT, "%s: corrupt: %llu events, more than their section holds", rd->path,
                           (unsigned long long)n);
    uint64_t total = 0, pcls = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (rd->version >= 4) { /* the class as its difference from the event before's */
            int64_t d;
            if (psk_get_svar(&rd->p, rd->end, &d))
                return malformed(rd);
            v = pcls + (uint64_t)d; /* wraps modulo 2^64: checked against the classes' count below */
            pcls = v;
        } else if (get(rd, &v))
            return malformed(rd);
        if (v >= psk_intern_count(m->classes))
            return merged_fail(m, PSK_EFORMAT, "%s: corrupt: event %llu is of class %llu, of %u", rd->path,
                               (unsigned long long)i, (unsigned long long)v, psk_intern_count(m->classes));
        if (get(rd, &len) || len > (1ull << 40) - total)
            return malformed(rd);
        if (merged_push(m, (uint32_t)v, total))
            return merged_fail(m, PSK_ENOMEM, "out of memory");
        total += len;
    }
    if ((rc = next_section(rd, MT_POOL)))
        return rc;
    if ((uint64_t)(rd->end - rd->p) != total)
        return malformed(rd);
    if (rd->p == rd->zplain && !m->pool.p) { /* decompressed: the pool takes the buffer (no copy) */
        m->pool = (mbuf){rd->zplain, total, rd->zcap};
        rd->zplain = NULL, rd->zcap = 0;
    } else {
        if (mbuf_reserve(&m->pool, total))
            return merged_fail(m, PSK_ENOMEM, "out of memory");
        if (total)
            memcpy(m->pool.p, rd->p, total);
        m->pool.len = total;
    }
    if (rd->version >= 4 && pdelta_undo(m))
        return merged_fail(m, PSK_ENOMEM, "out of memory");
    /* the summarised times, if there: kept until the ranks' counts are known */
    uint8_t *tsum = NULL;
    size_t tsumlen = 0;
    uint32_t tag = MT_RANK;
    if (m->nranks && (rc = next_section_of(rd, MT_RANK, MT_TSUM, &tag)))
        return rc;
    if (tag == MT_TSUM) {
        tsumlen = (size_t)(rd->end - rd->p);
        if (rd->p == rd->zplain) { /* decompressed: taken (no copy) */
            tsum = rd->zplain;
            rd->zplain = NULL, rd->zcap = 0;
        } else if (!(tsum = malloc(tsumlen ? tsumlen : 1)))
            return merged_fail(m, PSK_ENOMEM, "out of memory");
        else
            memcpy(tsum, rd->p, tsumlen);
        m->tsum = 1;
    }
    rc = read_ranks(rd, tag == MT_RANK);
    if (!rc)
        rc = rank_counts(rd);
    if (!rc && tsum && (rc = tsum_decode(m, tsum, tsum + tsumlen, rd->version)))
        rc = rc == -2 ? merged_fail(m, PSK_ENOMEM, "out of memory")
                      : merged_fail(m, PSK_EFORMAT, "%s: corrupt: the summarised times do not match the events",
                                    rd->path);
    free(tsum);
    if (rc)
        return rc;
    if ((rc = next_section(rd, MT_END)))
        return rc;
    if (fgetc(rd->f) != EOF)
        return merged_fail(m, PSK_EFORMAT, "%s: data after the end", rd->path);
    return PSK_OK;
}

/* rank r's threads: runs in merged order covering its events, each of
 * one thread, numbered below its event count (a thread's number is the
 * count of threads that called before it) */
static int read_threads(reader *rd, int r)
{
    psk_merged *m = rd->m;
    mrank *mr = &m->rank[r];
    uint64_t k, n, t, sum = 0;
    if (get(rd, &k) || k > mr->n || k > (uint64_t)(rd->end - rd->p) / 2)
        return malformed(rd);
    if (k && !(mr->thr = malloc(k * sizeof *mr->thr)))
        return merged_fail(m, PSK_ENOMEM, "out of memory");
    mr->capthr = k;
    for (uint64_t i = 0; i < k; i++) {
        if (get(rd, &n) || get(rd, &t) || n == 0 || n > mr->n - sum || t >= mr->n || t >= PSK_THREAD_MAX)
            return merged_fail(m, PSK_EFORMAT, "%s: rank %d's threads are malformed", rd->path, r);
        sum += n;
        mr->thr[mr->nthr++] = (trun){n, (uint32_t)t};
        if ((int)t >= mr->nthreads)
            mr->nthreads = (int)t + 1;
    }
    if (k && sum != mr->n)
        return merged_fail(m, PSK_EFORMAT, "%s: rank %d's threads cover %llu of its %llu events", rd->path, r,
                           (unsigned long long)sum, (unsigned long long)mr->n);
    return PSK_OK;
}

/* each rank's section counts the events whose rank sets name it: the
 * events of each set counted, then added to each of its ranks */
static int rank_counts(reader *rd)
{
    psk_merged *m = rd->m;
    uint32_t ns = psk_intern_count(m->psets);
    uint64_t *per = calloc(ns ? ns : 1, sizeof *per), *got = calloc((size_t)m->nranks + 1, sizeof *got);
    if (!per || !got) {
        free(per), free(got);
        return merged_fail(m, PSK_ENOMEM, "out of memory");
    }
    for (uint64_t i = 0; i < m->n; i++)
        per[m->cinfo[m->cls[i]].pset]++;
    for (uint32_t k = 0; k < ns; k++) {
        size_t len;
        const uint8_t *p = psk_intern_key(m->psets, k, &len);
        for (size_t j = 0; j + sizeof(int32_t) <= len; j += sizeof(int32_t)) {
            int32_t r;
            memcpy(&r, p + j, sizeof r);
            got[r] += per[k]; /* ranks checked when the sets were read */
        }
    }
    int rc = PSK_OK;
    for (int r = 0; r < m->nranks && !rc; r++)
        if (got[r] != m->rank[r].n)
            rc = merged_fail(m, PSK_EFORMAT, "%s: rank %d's section counts %llu events, the events name it in %llu",
                             rd->path, r, (unsigned long long)m->rank[r].n, (unsigned long long)got[r]);
    free(per), free(got);
    return rc;
}

/* the RANK sections; have: the first one's header is read already */
static int read_ranks(reader *rd, int have)
{
    psk_merged *m = rd->m;
    uint64_t v, len;
    int rc;
    for (int r = 0; r < m->nranks; r++) {
        mrank *mr = &m->rank[r];
        if ((r || !have) && (rc = next_section(rd, MT_RANK)))
            return rc;
        uint64_t hasperm;
        if (get(rd, &v) || v != (uint64_t)r || get(rd, &mr->n) || get(rd, &mr->mono_start) || get(rd, &len) ||
            len > (uint64_t)(rd->end - rd->p) || (m->tsum && len) || mbuf_reserve(&mr->times, len ? len : 1))
            return malformed(rd);
        if (len)
            memcpy(mr->times.p, rd->p, len);
        mr->times.len = len;
        rd->p += len;
        if (get(rd, &hasperm) || hasperm > 2 || mr->n > UINT32_MAX)
            return malformed(rd);
        if (hasperm == 2) { /* the order of an earlier rank with as many events */
            const mrank *mq;
            if (get(rd, &v) || v == 0 || v > (uint64_t)r)
                return malformed(rd);
            if (!(mq = &m->rank[r - (int)v])->perm || mq->n != mr->n)
                return merged_fail(m, PSK_EFORMAT, "%s: corrupt: rank %d takes the call order of rank %d, which has %s",
                                   rd->path, r, r - (int)v, mq->perm ? "another number of events" : "none");
            if (!(mr->perm = malloc((mr->n ? mr->n : 1) * sizeof *mr->perm)))
                return merged_fail(m, PSK_ENOMEM, "out of memory");
            memcpy(mr->perm, mq->perm, mr->n * sizeof *mr->perm);
        } else if (hasperm) {
            /* a permutation: every position once (one bit each) */
            uint64_t *seen = NULL;
            if (mr->n > (uint64_t)(rd->end - rd->p))
                return malformed(rd);
            if (!(mr->perm = malloc((mr->n ? mr->n : 1) * sizeof *mr->perm)) ||
                !(seen = calloc(mr->n / 64 + 1, sizeof *seen))) {
                free(seen);
                return merged_fail(m, PSK_ENOMEM, "out of memory");
            }
            int64_t base = 0; /* what d adds to: k (version 3), or the position before's plus one */
            for (uint64_t k = 0; k < mr->n; k++) {
                int64_t d;
                uint64_t to = UINT64_MAX;
                if (rd->version < 4)
                    base = (int64_t)k;
                if (!psk_get_svar(&rd->p, rd->end, &d) && d >= -base && d < (int64_t)mr->n - base)
                    to = (uint64_t)(base + d);
                base = (int64_t)to + 1;
                if (to == UINT64_MAX || (seen[to / 64] >> (to % 64) & 1)) {
                    free(seen);
                    return merged_fail(m, PSK_EFORMAT, "%s: rank %d's call order is not a permutation", rd->path, r);
                }
                seen[to / 64] |= 1ull << (to % 64);
                mr->perm[k] = (uint32_t)to;
            }
            free(seen);
        }
        if (rd->version >= 3 && (rc = read_threads(rd, r)))
            return rc;
    }
    return PSK_OK;
}

int psk_merged_read(const char *path, psk_merged **out)
{
    psk_merged *m = merged_new();
    *out = m;
    if (!m)
        return PSK_ENOMEM;
    reader rd = {.m = m, .path = path};
    rd.f = fopen(path, "rb");
    if (!rd.f)
        return merged_fail(m, errno == ENOENT ? PSK_ENOTFOUND : PSK_EIO, "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(rd.f), &sb) || !S_ISREG(sb.st_mode)) {
        fclose(rd.f);
        return merged_fail(m, PSK_EIO, "%s: not a regular file", path);
    }
    rd.size = (uint64_t)sb.st_size;
    int rc = read_all(&rd);
    fclose(rd.f);
    free(rd.buf);
    free(rd.zplain);
    ZSTD_freeDCtx(rd.zd);
    return rc;
}

int psk_merged_is_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char magic[8];
    int yes = f && fread(magic, 1, 8, f) == 8 && !memcmp(magic, MAGIC, 8);
    if (f)
        fclose(f);
    return yes;
}
