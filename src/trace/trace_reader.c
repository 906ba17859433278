/* Reading a trace directory (include/perfskel/trace.h): job.json (parsed
 * by trace_job.c), then each rank file block by block. Every block's checksum is
 * verified before any of its events is returned, so a reader never hands
 * out a damaged event; what precedes a damaged or missing block is still
 * returned, and the error names the file, the block and the byte offset.
 * A reader can let its file and block go and take them up again where it
 * was (psk_rank_release), and a pool of readers caps the files open at
 * once, so a program can read more ranks than it may open files. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <zstd.h>

#include "psk_varint.h"
#include "psk_fn_ids.h"
#include "trace_format.h"
#include "trace_pack.h"

#define ERRLEN (PATH_MAX + 512)

struct psk_trace {
    char *dir;
    char err[ERRLEN];
    psk_jobdoc *doc;
    psk_job job;
    psk_rank_source src; /* NULL: the files in dir */
    void *src_ctx;
};

struct psk_rank_pool {
    int max, open;         /* readers with a file open: at most max */
    size_t keep;
    psk_rank_reader *head, *tail; /* those readers, most recently read first */
};

/* Small when released (no file, no block; its path and error message on
 * the heap): a program may hold one per rank of a large job. */
struct psk_rank_reader {
    char *path;
    char *err;          /* the last error's message, made when one happens */
    FILE *f;            /* NULL when released (or after the end) */
    int opened;         /* hdr read once: a reopened file must agree */
    psk_file_header hdr;
    uint8_t *payload;
    size_t cap;
    uint8_t *plain;     /* a compressed block's events */
    size_t plaincap;
    ZSTD_DCtx *zd;
    const uint8_t *p, *end;
    const uint8_t *blk; /* the current block's events (file open), or NULL */
    uint64_t blk_off;   /* file offset of the current block */
    uint32_t resume;    /* released: where in the block's events p stands */
    uint8_t *keep;      /* released: the last event's bytes and those kept */
    uint32_t left;      /* events left in the current block */
    uint32_t blocks;    /* complete blocks read */
    uint64_t offset;    /* file offset of the next block */
    uint64_t events;
    uint64_t prev;      /* the exit time of the event read last */
    uint64_t blk_base;  /* the current block's time base */
    const uint8_t *last, *last_end; /* the last event's bytes but its arm */
    uint8_t *conv;      /* an older version's event in the latest form */
    size_t convcap;
    int status;         /* sticky: PSK_EOF after END, or the error */
    int nthreads;       /* threads its events named so far (PSK_FILE_THREADS) */
    psk_rank_pool *pool;
    const psk_trace *t; /* its job and where its file comes from */
    int rank;
    psk_rank_reader *lprev, *lnext; /* in pool's list while its file is open */
    int listed;
    int64_t *arr[PSK_F_NFIELDS - PSK_F_FIRST_ARRAY];
    size_t arrcap[PSK_F_NFIELDS - PSK_F_FIRST_ARRAY];
};

static int fail(char *err, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, ERRLEN, fmt, ap);
    va_end(ap);
    return status;
}

/* a reader's error: its message allocated on first need (without memory
 * psk_rank_errmsg says so) */
static int rfail(psk_rank_reader *r, int status, const char *fmt, ...)
{
    if (!r->err && !(r->err = malloc(ERRLEN)))
        return status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, ERRLEN, fmt, ap);
    va_end(ap);
    return status;
}

static int parse_job(psk_trace *t, const char *text, size_t len, const char *name)
{
    int rc = psk_jobdoc_parse(text, len, name, &t->doc);
    if (rc)
        return fail(t->err, rc, "%s", psk_jobdoc_errmsg(t->doc));
    t->job = *psk_jobdoc_job(t->doc);
    return PSK_OK;
}

static int read_job(psk_trace *t)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/job.json", t->dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return fail(t->err, PSK_ENOTFOUND, "%s: missing: %s is not a perfskel trace directory",
                        path, t->dir);
        return fail(t->err, PSK_EIO, "%s: %s", path, strerror(errno));
    }
    char *text = NULL;
    size_t len = 0, cap = 0, n;
    char buf[8192];
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        if (len + n > cap) {
            cap = 2 * (len + n);
            char *p = realloc(text, cap);
            if (!p) {
                free(text);
                fclose(f);
                return fail(t->err, PSK_ENOMEM, "%s: out of memory", path);
            }
            text = p;
        }
        memcpy(text + len, buf, n);
        len += n;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(text);
        return fail(t->err, PSK_EIO, "%s: read error", path);
    }
    int rc = parse_job(t, text ? text : "", len, path);
    free(text);
    return rc;
}

static int read_header(FILE *f, const char *path, psk_file_header *h, char *err)
{
    uint8_t b[PSK_FILE_HEADER_SIZE];
    size_t n = fread(b, 1, sizeof b, f);
    if (n < 8 || memcmp(b, PSK_FILE_MAGIC, 8) != 0)
        return n == 0 ? fail(err, PSK_ETRUNCATED, "%s: empty file (the rank never started recording)", path)
                      : fail(err, PSK_EFORMAT, "%s: not a perfskel rank file (bad magic)", path);
    if (n < sizeof b)
        return fail(err, PSK_ETRUNCATED, "%s: truncated inside the file header (%zu of %d bytes)",
                    path, n, PSK_FILE_HEADER_SIZE);
    switch (psk_unpack_file_header(b, h)) {
    case -2:
        return fail(err, PSK_EFORMAT, "%s: corrupt file header (checksum mismatch)", path);
    case -3:
        return fail(err, PSK_EVERSION, "%s: trace format version %u; this perfskel reads versions %d to %d",
                    path, h->version, PSK_FORMAT_VERSION, PSK_FORMAT_VERSION_LATEST);
    }
    /* flags came with version 4; earlier versions wrote 0 */
    if ((h->flags & ~PSK_FILE_FLAGS_KNOWN) || (h->flags && h->version < PSK_FORMAT_VERSION_THREADS))
        return fail(err, PSK_EFORMAT, "%s: file header flags 0x%x are not those of format version %u", path,
                    (unsigned)h->flags, h->version);
    return PSK_OK;
}

/* 0 if h, rank r's file header, belongs to t's job */
static int same_job(const psk_trace *t, int r, const psk_file_header *h, const char *path, char *err)
{
    if (h->job_id != t->job.job_id)
        return fail(err, PSK_EMISMATCH, "%s: belongs to job %016" PRIx64 ", but job.json is job %016" PRIx64
                    " (files of two different runs)", path, h->job_id, t->job.job_id);
    if (h->rank != (uint32_t)r || h->nranks != (uint32_t)t->job.nranks)
        return fail(err, PSK_EMISMATCH, "%s: says rank %u of %u, expected rank %d of %d",
                    path, h->rank, h->nranks, r, t->job.nranks);
    if (h->flavour != t->job.flavour)
        return fail(err, PSK_EMISMATCH, "%s: recorded with another MPI than job.json says", path);
    return PSK_OK;
}

int psk_trace_open(const char *dir, psk_trace **out)
{
    psk_trace *t = calloc(1, sizeof *t);
    *out = t;
    if (!t)
        return PSK_ENOMEM;
    t->dir = strdup(dir);
    if (!t->dir)
        return fail(t->err, PSK_ENOMEM, "%s: out of memory", dir);
    DIR *d = opendir(dir);
    if (!d)
        return fail(t->err, errno == ENOENT ? PSK_ENOTFOUND : PSK_EIO, "%s: %s", dir,
                    errno == ENOENT ? "no such trace directory" : strerror(errno));
    int rc = read_job(t);
    if (rc) {
        closedir(d);
        return rc;
    }
    /* rank files beyond the job's ranks come from another run */
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int r;
        char tail;
        if (sscanf(e->d_name, "rank-%d.ps%c", &r, &tail) == 2 && r >= t->job.nranks) {
            fail(t->err, PSK_EMISMATCH, "%s/%s: rank %d, but job.json says the job had %d ranks "
                 "(files of two different runs)", dir, e->d_name, r, t->job.nranks);
            closedir(d); /* frees e */
            return PSK_EMISMATCH;
        }
    }
    closedir(d);
    for (int r = 0; r < t->job.nranks; r++) {
        char path[PATH_MAX];
        psk_rank_file(path, sizeof path, dir, r);
        FILE *f = fopen(path, "rb");
        if (!f)
            return fail(t->err, errno == ENOENT ? PSK_ENOTFOUND : PSK_EIO, "%s: %s", path,
                        errno == ENOENT ? "missing (job.json lists this rank)" : strerror(errno));
        psk_file_header h;
        rc = read_header(f, path, &h, t->err);
        fclose(f);
        if (rc || (rc = same_job(t, r, &h, path, t->err)))
            return rc;
    }
    return PSK_OK;
}

int psk_trace_open_job(const char *dir, const char *job_json, size_t len, psk_rank_source src, void *ctx,
                       psk_trace **out)
{
    psk_trace *t = calloc(1, sizeof *t);
    *out = t;
    if (!t)
        return PSK_ENOMEM;
    if (!(t->dir = strdup(dir)))
        return fail(t->err, PSK_ENOMEM, "%s: out of memory", dir);
    t->src = src;
    t->src_ctx = ctx;
    char name[PATH_MAX];
    snprintf(name, sizeof name, "%s/job.json", dir);
    return parse_job(t, job_json, len, name);
}

const char *psk_trace_errmsg(const psk_trace *t) { return t ? t->err : "out of memory"; }
const psk_job *psk_trace_job(const psk_trace *t) { return &t->job; }
char *psk_trace_job_json(const psk_trace *t) { return psk_jobdoc_text(t->doc); }

void psk_trace_close(psk_trace *t)
{
    if (!t)
        return;
    psk_jobdoc_close(t->doc);
    free(t->dir);
    free(t);
}

/* ---- rank reader ---- */

/* ---- the pool: readers with a file open, most recently read first ---- */

static void unlist(psk_rank_reader *r)
{
    psk_rank_pool *p = r->pool;
    if (!p || !r->listed)
        return;
    if (r->lprev)
        r->lprev->lnext = r->lnext;
    else
        p->head = r->lnext;
    if (r->lnext)
        r->lnext->lprev = r->lprev;
    else
        p->tail = r->lprev;
    r->lprev = r->lnext = NULL;
    r->listed = 0;
    p->open--;
}

static void list_front(psk_rank_reader *r)
{
    psk_rank_pool *p = r->pool;
    r->lprev = NULL;
    r->lnext = p->head;
    if (p->head)
        p->head->lprev = r;
    else
        p->tail = r;
    p->head = r;
    r->listed = 1;
    p->open++;
}

int psk_rank_pool_new(int max_open, size_t keep, psk_rank_pool **out)
{
    psk_rank_pool *p = calloc(1, sizeof *p);
    *out = p;
    if (!p)
        return PSK_ENOMEM;
    if (max_open <= 0) {
        struct rlimit rl;
        rlim_t lim = getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ? 2048 : rl.rlim_cur;
        max_open = lim / 2 < 4 ? 4 : lim / 2 > 1024 ? 1024 : (int)(lim / 2);
    }
    p->max = max_open;
    p->keep = keep;
    return PSK_OK;
}

int psk_rank_pool_max_open(const psk_rank_pool *p) { return p->max; }
void psk_rank_pool_free(psk_rank_pool *p) { free(p); }

/* ---- rank reader ---- */

/* the file closed (after the end, an error, or a release); the block kept */
static void drop_file(psk_rank_reader *r)
{
    if (r->f)
        fclose(r->f);
    r->f = NULL;
    unlist(r);
}

/* opens r's file (room made in its pool first) and reads its header,
 * which must be the one read before if it was */
static int open_file(psk_rank_reader *r)
{
    psk_rank_pool *p = r->pool;
    while (p && p->open >= p->max && p->tail)
        if (psk_rank_release(p->tail, p->keep))
            break; /* out of memory: one file more than the cap, for now */
    if (p)
        list_front(r);
    r->f = r->t->src ? r->t->src(r->t->src_ctx, r->rank) : fopen(r->path, "rb");
    if (!r->f) {
        unlist(r);
        return rfail(r, errno == ENOENT ? PSK_ENOTFOUND : PSK_EIO, "%s: %s", r->path,
                     errno == ENOENT ? "missing (job.json lists this rank)" : strerror(errno));
    }
    char err[ERRLEN];
    psk_file_header h;
    int rc = read_header(r->f, r->path, &h, err);
    if (!rc && !r->opened)
        rc = same_job(r->t, r->rank, &h, r->path, err);
    if (rc)
        return rfail(r, rc, "%s", err);
    if (r->opened && (h.job_id != r->hdr.job_id || h.rank != r->hdr.rank || h.mono_start_ns != r->hdr.mono_start_ns ||
                      h.version != r->hdr.version || h.flags != r->hdr.flags))
        return rfail(r, PSK_EMISMATCH, "%s: another file than when it was first read (replaced while being read?)",
                     r->path);
    r->hdr = h;
    r->opened = 1;
    return PSK_OK;
}

int psk_rank_open_pooled(psk_trace *t, int rank, psk_rank_pool *pool, psk_rank_reader **out)
{
    psk_rank_reader *r = calloc(1, sizeof *r);
    *out = r;
    if (!r)
        return PSK_ENOMEM;
    r->pool = pool;
    r->t = t;
    r->rank = rank;
    if (rank < 0 || rank >= t->job.nranks)
        return r->status = rfail(r, PSK_EINVAL, "%s: no rank %d in a %d-rank job", t->dir, rank, t->job.nranks);
    char path[PATH_MAX];
    psk_rank_file(path, sizeof path, t->dir, rank);
    if (!(r->path = strdup(path)))
        return r->status = PSK_ENOMEM;
    int rc = open_file(r);
    if (rc)
        return r->status = rc;
    r->offset = PSK_FILE_HEADER_SIZE;
    r->prev = r->hdr.mono_start_ns;
    return PSK_OK;
}

int psk_rank_open(psk_trace *t, int rank, psk_rank_reader **out)
{
    return psk_rank_open_pooled(t, rank, NULL, out);
}

static int cut_short(psk_rank_reader *r, const char *what)
{
    return rfail(r, PSK_ETRUNCATED, "%s: %s after %" PRIu64 " events in %u complete blocks: "
                "the rank did not reach MPI_Finalize (killed, aborted or still running)",
                r->path, what, r->events, r->blocks);
}

/* a compressed block (PSK_BLOCK_ZEVENTS): its one zstd frame, whose
 * content size (at most PSK_BLOCK_MAX) must be in its header and be what
 * it holds, becomes the events payload r->p .. r->end */
static int unzip_block(psk_rank_reader *r, size_t zlen)
{
    unsigned long long n = ZSTD_getFrameContentSize(r->payload, zlen);
    if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN || n > PSK_BLOCK_MAX ||
        ZSTD_findFrameCompressedSize(r->payload, zlen) != zlen)
        return rfail(r, PSK_EFORMAT, "%s: corrupt compressed block %u (not one zstd frame of a known size)",
                    r->path, r->blocks - 1);
    if (n > r->plaincap || !r->plain) {
        uint8_t *p = realloc(r->plain, n ? (size_t)n : 1);
        if (!p)
            return rfail(r, PSK_ENOMEM, "%s: out of memory", r->path);
        r->plain = p, r->plaincap = (size_t)n;
    }
    if (!r->zd && !(r->zd = ZSTD_createDCtx()))
        return rfail(r, PSK_ENOMEM, "%s: out of memory", r->path);
    size_t got = ZSTD_decompressDCtx(r->zd, r->plain, (size_t)n, r->payload, zlen);
    if (ZSTD_isError(got) || got != n)
        return rfail(r, PSK_EFORMAT, "%s: corrupt compressed block %u (%s)", r->path, r->blocks - 1,
                    ZSTD_isError(got) ? ZSTD_getErrorName(got) : "shorter than its header says");
    r->p = r->plain;
    r->end = r->plain + n;
    return PSK_OK;
}

/* reads the next block; PSK_OK with r->left events, PSK_EOF, or an error */
static int next_block(psk_rank_reader *r)
{
    uint8_t hb[PSK_BLOCK_HEADER_SIZE];
    psk_block_header h;
    r->blk_off = r->offset;
    size_t n = fread(hb, 1, sizeof hb, r->f);
    if (n == 0)
        return cut_short(r, "ends");
    if (n < sizeof hb)
        return cut_short(r, "truncated inside a block header");
    if (psk_unpack_block_header(hb, &h))
        return rfail(r, PSK_EFORMAT, "%s: corrupt block %u at byte %" PRIu64 " (bad magic)",
                    r->path, r->blocks, r->offset);
    if (h.payload_len > PSK_BLOCK_MAX)
        return rfail(r, PSK_EFORMAT, "%s: corrupt block %u at byte %" PRIu64 " (length %u)",
                    r->path, r->blocks, r->offset, h.payload_len);
    if (h.payload_len > r->cap) {
        uint8_t *p = realloc(r->payload, h.payload_len);
        if (!p)
            return rfail(r, PSK_ENOMEM, "%s: out of memory", r->path);
        r->payload = p;
        r->cap = h.payload_len;
    }
    if (fread(r->payload, 1, h.payload_len, r->f) < h.payload_len)
        return cut_short(r, "truncated inside a block");
    if (!psk_block_crc_ok(hb, r->payload, h.payload_len))
        return rfail(r, PSK_EFORMAT, "%s: corrupt block %u at byte %" PRIu64 " (checksum mismatch)",
                    r->path, r->blocks, r->offset);
    if (h.seq != r->blocks)
        return rfail(r, PSK_EFORMAT, "%s: block %u at byte %" PRIu64 " is numbered %u (blocks lost or repeated)",
                    r->path, r->blocks, r->offset, h.seq);
    r->offset += sizeof hb + h.payload_len;
    r->blocks++;
    r->p = r->payload;
    r->end = r->payload + h.payload_len;
    if (h.kind == PSK_BLOCK_END) {
        uint64_t total = 0;
        if (psk_get_uvar(&r->p, r->end, &total) || total != r->events)
            return rfail(r, PSK_EFORMAT, "%s: the end block counts %" PRIu64 " events, the blocks hold %" PRIu64,
                        r->path, total, r->events);
        if (fgetc(r->f) != EOF)
            return rfail(r, PSK_EFORMAT, "%s: data after the end block at byte %" PRIu64, r->path, r->offset);
        return PSK_EOF;
    }
    if (h.kind == PSK_BLOCK_ZEVENTS) {
        int rc = unzip_block(r, h.payload_len);
        if (rc)
            return rc;
    } else if (h.kind != PSK_BLOCK_EVENTS) {
        return rfail(r, PSK_EFORMAT, "%s: block %u has unknown kind %u", r->path, r->blocks - 1, h.kind);
    }
    /* a block's times count from the exit of the event before it (block
     * 0's from MPI_Init's entry): a block from elsewhere would shift them */
    if (r->blocks > 1 && h.base_ns != r->prev)
        return rfail(r, PSK_EFORMAT, "%s: block %u's time base is %" PRIu64 ", not the exit of the event before it (%" PRIu64 ")",
                    r->path, r->blocks - 1, h.base_ns, r->prev);
    r->blk = r->p;
    r->left = h.n_events;
    r->prev = r->blk_base = h.base_ns;
    return PSK_OK;
}

/* ---- letting the file go and taking it up again ---- */

/* the length of the encoded event at p (as decode reads it), or 0 if it
 * does not decode there */
static size_t event_size(const uint8_t *p, const uint8_t *end, int arms, int threads)
{
    const uint8_t *q = p;
    uint64_t fn, x;
    if (psk_get_uvar(&q, end, &fn) || fn == 0 || fn >= psk_fn_count_ || !psk_fn_table[fn].name ||
        psk_get_uvar(&q, end, &x) || psk_get_uvar(&q, end, &x))
        return 0;
    for (uint32_t f = psk_fn_table[fn].fields; f; f &= f - 1) {
        int i = __builtin_ctz(f);
        if (psk_get_uvar(&q, end, &x))
            return 0;
        if (i < PSK_F_FIRST_ARRAY)
            continue;
        if (x > (uint64_t)(end - q))
            return 0;
        for (uint64_t j = 0, nv = i == PSK_F_STATUSES ? 3 * x : x; j < nv; j++)
            if (psk_get_uvar(&q, end, &x))
                return 0;
    }
    if (arms && psk_fn_table[fn].tuned && psk_get_uvar(&q, end, &x))
        return 0;
    if (threads && psk_get_uvar(&q, end, &x))
        return 0;
    return (size_t)(q - p);
}

int psk_rank_release(psk_rank_reader *r, size_t keep)
{
    if (!r || (!r->f && !r->blk))
        return PSK_OK;
    size_t lastlen = r->last ? (size_t)(r->last_end - r->last) : 0;
    const uint8_t *q = r->p, *before = q;
    uint32_t n = 0;
    int arms = r->hdr.version >= PSK_FORMAT_VERSION_ARMS, threads = (r->hdr.flags & PSK_FILE_THREADS) != 0;
    while (!r->status && r->blk && n < r->left) {
        size_t len = event_size(q, r->end, arms, threads);
        if (!len || (size_t)(q + len - r->p) > keep)
            break;
        before = q;
        q += len;
        n++;
    }
    if (n && n == r->left && q != r->end) /* bytes past the events: found again from the file */
        q = before;
    size_t kept = (size_t)(q - r->p);
    uint8_t *k = malloc(lastlen + kept ? lastlen + kept : 1);
    if (!k)
        return PSK_ENOMEM;
    if (lastlen)
        memcpy(k, r->last, lastlen);
    if (kept)
        memcpy(k + lastlen, r->p, kept);
    r->resume = r->blk && r->left ? (uint32_t)(q - r->blk) : 0;
    free(r->keep);
    r->keep = k;
    r->last = k;
    r->last_end = k + lastlen;
    r->p = k + lastlen;
    r->end = r->p + kept;
    r->blk = NULL;
    drop_file(r);
    free(r->payload);
    free(r->plain);
    ZSTD_freeDCtx(r->zd);
    r->payload = r->plain = NULL;
    r->cap = r->plaincap = 0;
    r->zd = NULL;
    return PSK_OK;
}

int psk_rank_is_open(const psk_rank_reader *r) { return r && r->f; }

/* a released reader whose kept events are all read: its file again, at
 * the next block, or at the block it was in (read and verified again) */
static int resume(psk_rank_reader *r)
{
    int rc = open_file(r);
    if (rc)
        return rc;
    if (fseek(r->f, (long)(r->left ? r->blk_off : r->offset), SEEK_SET))
        return rfail(r, PSK_EIO, "%s: %s", r->path, strerror(errno));
    if (!r->left)
        return PSK_OK;
    uint32_t left = r->left;
    uint64_t prev = r->prev, off = r->offset;
    r->offset = r->blk_off;
    r->blocks--;
    r->prev = r->blk_base; /* as when the block was first read */
    rc = next_block(r);
    if (rc == PSK_OK && (r->offset != off || r->left < left || r->resume > (size_t)(r->end - r->blk)))
        rc = PSK_EOF;
    if (rc == PSK_EOF)
        return rfail(r, PSK_EMISMATCH, "%s: block %u is not what it was when first read (file changed?)", r->path,
                     r->blocks - 1);
    if (rc)
        return rc;
    r->p = r->blk + r->resume;
    r->left = left;
    r->prev = prev;
    return PSK_OK;
}

static int bad_event(psk_rank_reader *r)
{
    return rfail(r, PSK_EFORMAT, "%s: undecodable event %" PRIu64 " in block %u",
                r->path, r->events, r->blocks - 1);
}

#define SCALARS ((1u << PSK_F_FIRST_ARRAY) - 1u)

/* the event's array fields (after its scalars), bounds checked */
static int decode_arrays(psk_rank_reader *r, psk_event *ev)
{
    for (uint32_t f = ev->fields & ~SCALARS; f; f &= f - 1) {
        int i = __builtin_ctz(f);
        int u = (PSK_FIELDS_UNSIGNED >> i) & 1u;
        uint64_t x;
        int k = i - PSK_F_FIRST_ARRAY;
        uint64_t n;
        if (psk_get_uvar(&r->p, r->end, &n) || n > (uint64_t)(r->end - r->p))
            return bad_event(r);
        size_t nv = i == PSK_F_STATUSES ? 3 * (size_t)n : (size_t)n;
        if (nv > r->arrcap[k]) {
            int64_t *a = realloc(r->arr[k], nv * sizeof *a);
            if (!a)
                return rfail(r, PSK_ENOMEM, "%s: out of memory", r->path);
            r->arr[k] = a;
            r->arrcap[k] = nv;
        }
        for (size_t j = 0; j < nv; j++) {
            if (psk_get_uvar(&r->p, r->end, &x))
                return bad_event(r);
            r->arr[k][j] = u ? (int64_t)x : psk_unzigzag(x);
        }
        ev->n[k] = (uint32_t)n;
        ev->arr[k] = r->arr[k];
    }
    return PSK_OK;
}

/* Ids of requests, communicators and groups: the recorder gives each the
 * lowest one free, so one made by a rank's k-th event is below k; later
 * stages index tables with them. Allowed: what the recorder writes for
 * none (-1), not recorded (-2) and MPI_GROUP_EMPTY (-3), and up to
 * ID_SLACK past the events read (traces written by other tools, tests'
 * synthetic ones). Members of a new communicator or group are world ranks
 * of the job, and a new communicator's include the rank that made it. */
#define ID_SLACK 65536

static int id_ok(const psk_rank_reader *r, int64_t v)
{
    return v >= -3 && (uint64_t)(v + 3) <= r->events + ID_SLACK + 3;
}

static int check_ids(psk_rank_reader *r, const psk_event *ev)
{
    static const int scalar[] = {PSK_F_REQ, PSK_F_COMM, PSK_F_NEWID, PSK_F_GROUP};
    for (int k = 0; k < 4; k++)
        if ((ev->fields >> scalar[k] & 1u) && !id_ok(r, ev->v[scalar[k]]))
            return rfail(r, PSK_EFORMAT, "%s: event %" PRIu64 " (%s): %s %lld out of range", r->path, r->events,
                        psk_fn_table[ev->fn].name, psk_field_name(scalar[k]), (long long)ev->v[scalar[k]]);
    int kq = PSK_F_REQS - PSK_F_FIRST_ARRAY, km = PSK_F_MEMBERS - PSK_F_FIRST_ARRAY;
    for (uint32_t j = 0; (ev->fields >> PSK_F_REQS & 1u) && j < ev->n[kq]; j++)
        if (!id_ok(r, ev->arr[kq][j]))
            return rfail(r, PSK_EFORMAT, "%s: event %" PRIu64 " (%s): request id %lld out of range", r->path,
                        r->events, psk_fn_table[ev->fn].name, (long long)ev->arr[kq][j]);
    int64_t bad = 0;
    int mc = psk_event_members_check(ev, (int)r->hdr.rank, (int)r->hdr.nranks, &bad);
    if (mc == 1)
        return rfail(r, PSK_EFORMAT, "%s: event %" PRIu64 " (%s): member %lld of a %u-rank job", r->path, r->events,
                     psk_fn_table[ev->fn].name, (long long)bad, r->hdr.nranks);
    if (mc == 2)
        return rfail(r, PSK_EFORMAT, "%s: event %" PRIu64 " (%s): communicator %lld's %u member(s) leave out rank %u, which made it",
                     r->path, r->events, psk_fn_table[ev->fn].name, (long long)ev->v[PSK_F_NEWID], ev->n[km], r->hdr.rank);
    return PSK_OK;
}

/* an event's function, gap, duration and scalar fields are varints: when
 * the block has room for all of them at their longest, they are read
 * without a bounds check each (most events; a block's last few take the
 * checked path, which fails the same way on a bad event) */
#define FAST_ROOM ((size_t)PSK_VARINT_MAX * (3 + PSK_F_FIRST_ARRAY))

static inline int get_uvar(const uint8_t **p, const uint8_t *end, int fast, uint64_t *x)
{
    if (!fast)
        return psk_get_uvar(p, end, x);
    const uint8_t *q = psk_get_uvar_unchecked(*p, x);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

static int decode(psk_rank_reader *r, psk_event *ev)
{
    r->last = r->p;
    const uint8_t *p = r->p;
    int fast = (size_t)(r->end - p) >= FAST_ROOM;
    uint64_t fn, ug, dur, x;
    if (get_uvar(&p, r->end, fast, &fn) || get_uvar(&p, r->end, fast, &ug) || get_uvar(&p, r->end, fast, &dur))
        return bad_event(r);
    if (fn == 0 || fn >= psk_fn_count_ || !psk_fn_table[fn].name || psk_fn_table[fn].poll_of)
        return bad_event(r); /* polls are made by merging, never recorded */
    if (fn == PSK_FN_Dims_create && r->hdr.version < PSK_FORMAT_VERSION_CART)
        return bad_event(r); /* not recorded before version 3 */
    ev->fields = psk_fn_fields_v((unsigned)fn, r->hdr.version);
    for (uint32_t f = ev->fields & SCALARS; f; f &= f - 1) {
        int i = __builtin_ctz(f);
        if (get_uvar(&p, r->end, fast, &x))
            return bad_event(r);
        ev->v[i] = (PSK_FIELDS_UNSIGNED >> i) & 1u ? (int64_t)x : psk_unzigzag(x);
    }
    r->p = p;
    ev->fn = (unsigned)fn;
    ev->t_entry = r->prev + (uint64_t)psk_unzigzag(ug);
    ev->t_exit = ev->t_entry + dur;
    r->prev = ev->t_exit;
    int rc = ev->fields & ~SCALARS ? decode_arrays(r, ev) : PSK_OK;
    r->last_end = r->p;
    if (!rc && ev->fields != psk_fn_table[fn].fields) {
        /* an older version's event: the fields it lacks are empty, and
         * its bytes are given in the latest form (psk_rank_event_bytes) */
        for (uint32_t f = psk_fn_table[fn].fields & ~ev->fields; f; f &= f - 1)
            ev->n[__builtin_ctz(f) - PSK_F_FIRST_ARRAY] = 0;
        ev->fields = psk_fn_table[fn].fields;
        size_t need = psk_event_encoded_max(ev);
        if (need > r->convcap) {
            uint8_t *c = realloc(r->conv, need);
            if (!c)
                return fail(r->err, PSK_ENOMEM, "%s: out of memory", r->path);
            r->conv = c, r->convcap = need;
        }
        r->last = r->conv;
        r->last_end = psk_event_encode(r->conv, ev, psk_unzigzag(ug));
    }
    ev->arm = 0;
    if (!rc && r->hdr.version >= PSK_FORMAT_VERSION_ARMS && psk_fn_table[fn].tuned) {
        if (psk_get_uvar(&r->p, r->end, &x))
            return bad_event(r);
        if (!psk_arm_valid(ev->fn, (int64_t)x))
            return rfail(r, PSK_EFORMAT, "%s: event %" PRIu64 " (%s): arm %llu is not one of its algorithms",
                        r->path, r->events, psk_fn_table[fn].name, (unsigned long long)x);
        ev->arm = (int)x;
    }
    ev->thread = 0;
    if (!rc && (r->hdr.flags & PSK_FILE_THREADS)) {
        /* numbered in the order threads first called: at most one more
         * than the highest so far */
        if (psk_get_uvar(&r->p, r->end, &x))
            return bad_event(r);
        if (x > (uint64_t)r->nthreads || x >= PSK_THREAD_MAX)
            return rfail(r, PSK_EFORMAT, "%s: event %" PRIu64 " (%s): thread %llu before any call of thread %d "
                        "(threads are numbered in the order of their first call)",
                        r->path, r->events, psk_fn_table[fn].name, (unsigned long long)x, r->nthreads);
        if (x == (uint64_t)r->nthreads)
            r->nthreads++;
        ev->thread = (int)x;
    }
    return rc ? rc : check_ids(r, ev);
}

int psk_rank_next(psk_rank_reader *r, psk_event *ev)
{
    if (r->status)
        return r->status;
    if (r->f) {
        if (r->pool && r->pool->head != r) { /* most recently read */
            unlist(r);
            list_front(r);
        }
    } else if (r->p == r->end) {
        int rc = resume(r);
        if (rc)
            return r->status = rc;
    }
    while (r->left == 0) {
        if (r->p != r->end)
            return r->status = rfail(r, PSK_EFORMAT, "%s: block %u holds more bytes than its events",
                                    r->path, r->blocks - 1);
        int rc = next_block(r);
        if (rc) {
            drop_file(r); /* the end, or an error: the file is not needed again */
            return r->status = rc;
        }
    }
    int rc = decode(r, ev);
    if (rc)
        return r->status = rc;
    r->left--;
    r->events++;
    return PSK_OK;
}

const char *psk_rank_errmsg(const psk_rank_reader *r)
{
    if (r && r->err)
        return r->err;
    return r && (r->status == PSK_OK || r->status == PSK_EOF) ? "" : "out of memory";
}
const char *psk_rank_path(const psk_rank_reader *r) { return r->path ? r->path : "?"; }
uint64_t psk_rank_events_read(const psk_rank_reader *r) { return r->events; }
uint64_t psk_rank_mono_start(const psk_rank_reader *r) { return r->hdr.mono_start_ns; }
int psk_rank_threads_recorded(const psk_rank_reader *r) { return (r->hdr.flags & PSK_FILE_THREADS) != 0; }
const uint8_t *psk_rank_event_bytes(const psk_rank_reader *r, size_t *len)
{
    *len = (size_t)(r->last_end - r->last);
    return r->last;
}

void psk_rank_close(psk_rank_reader *r)
{
    if (!r)
        return;
    drop_file(r);
    free(r->path);
    free(r->err);
    free(r->keep);
    free(r->payload);
    free(r->plain);
    free(r->conv);
    ZSTD_freeDCtx(r->zd);
    for (int k = 0; k < PSK_F_NFIELDS - PSK_F_FIRST_ARRAY; k++)
        free(r->arr[k]);
    free(r);
}
