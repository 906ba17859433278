/* The merge inside the job (PSK_MERGE=1, `perfskel record --merge`;
 * README "Merging in the job"), done in MPI_Finalize before the real one,
 * on perfskel's own communicator:
 *
 * 1. rank 0 sends every rank job.json's text and the merge's options;
 * 2. each rank reads its own file into a part (its key sequence and call
 *    order, src/merge/merge_stream.c), in parallel;
 * 3. the parts go up a binomial tree, each parent absorbing its children's
 *    (src/merge/merge_tree_mpi.c, as `perfskel merge --mpi`'s): key
 *    sequences shared by ranks (a stencil's interior) are interned and
 *    cross each edge once;
 * 4. rank 0, holding every rank's sequence, aligns them and writes the
 *    merged trace (DIR/merged.pskm or PSK_MERGE_OUT), pulling each event's
 *    parameters and times from the ranks' files as `perfskel merge` does
 *    from a directory, but over MPI: rank r's file is read by rank r, in
 *    chunks rank 0 asks for (one asked ahead), while every other rank
 *    serves its file until rank 0 says the merge is done;
 * 5. rank 0 folds the merged trace and writes its loops beside it
 *    (merged.fold.json, as `perfskel fold -o`).
 *
 * So rank 0 never holds the other ranks' files (nor needs them on its
 * disk) and its memory is the streaming merge's. The result is the same
 * bytes as `perfskel merge DIR` on the rank files. The per-rank files
 * stay where they were written, so a job that dies before Finalize can
 * still be merged offline; with PSK_MERGE=only each rank removes its file
 * once the merged trace is written. Problems are said once on stderr; they
 * never stop the program. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "perfskel/fold.h"
#include "perfskel/merge.h"
#include "perfskel/trace.h"
#include "merge_tree_mpi.h"
#include "psk_fs.h"
#include "record_call.h"

#define TAG_LEN 0x7053   /* perfskel's own tags on its own communicator */
#define TAG_DATA 0x7054
#define TAG_REQ 0x7055   /* rank 0 -> a rank: read a chunk, or stop */
#define TAG_CHUNK 0x7056 /* a rank -> rank 0: [i64 bytes or -errno][bytes] */
#define READ_CHUNK (128 << 10) /* bytes of a rank file per request: two blocks */

enum { REQ_READ = 1, REQ_STOP = 2 };

int psk_rec_merge_wanted(void)
{
    const char *e = getenv("PSK_MERGE");
    if (!e || !*e || !strcmp(e, "0"))
        return 0;
    return strcmp(e, "only") ? 1 : 2;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- waiting: a rank that waits leaves its core to those that work ---- */

/* rank 0 (the one merging): yields while it spins, so that a rank
 * serving it on the same core gets to run */
static void wait_busy(MPI_Request *r)
{
    int done = 0;
    for (unsigned spins = 0;; spins++) {
        PMPI_Test(r, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        if (spins > 64)
            sched_yield();
    }
}

/* the others: sleep between tests, from 10 us up to nap_max: longer the
 * more ranks wait beside rank 0, so that their polling stays a small
 * share of the cores (1 ms up to 10 ranks, 0.1 ms a rank beyond, at most
 * 20 ms; rank 0 asks for a rank's next chunk well before it needs it) */
static long nap_max = 1000000;

static void wait_idle(MPI_Request *r)
{
    int done = 0;
    long ns = 10000;
    for (;;) {
        PMPI_Test(r, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        struct timespec ts = {0, ns};
        nanosleep(&ts, NULL);
        if (ns < nap_max)
            ns = 2 * ns < nap_max ? 2 * ns : nap_max;
    }
}

/* ---- rank 0 reads the other ranks' files through them ---- */

typedef struct {
    MPI_Comm c;
    int rank;
    int64_t pos;            /* where the next read starts */
    uint8_t *cur;           /* [i64 n][n bytes at coff] */
    int64_t coff, clen;     /* clen < 0: none */
    uint8_t *pre;           /* the chunk asked ahead, arriving at poff */
    int64_t poff;
    MPI_Request prq;
    int pending;
} remote;

static void ask(remote *m, int64_t off, uint8_t *into, MPI_Request *rq)
{
    int64_t req[3] = {REQ_READ, off, READ_CHUNK};
    PMPI_Irecv(into, 8 + READ_CHUNK, MPI_BYTE, m->rank, TAG_CHUNK, m->c, rq);
    PMPI_Send(req, 3, MPI_INT64_T, m->rank, TAG_REQ, m->c);
}

/* the chunk asked for becomes the current one, and the next is asked
 * for unless it was the file's last; 0, or -1 with errno */
static int take(remote *m)
{
    wait_busy(&m->prq);
    m->pending = 0;
    uint8_t *t = m->cur;
    m->cur = m->pre, m->pre = t;
    int64_t n;
    memcpy(&n, m->cur, 8);
    if (n < 0 || n > READ_CHUNK) {
        errno = n < 0 && n > -4096 ? (int)-n : EIO;
        m->clen = -1;
        return -1;
    }
    m->coff = m->poff, m->clen = n;
    if (n == READ_CHUNK) {
        m->poff = m->coff + n;
        ask(m, m->poff, m->pre, &m->prq);
        m->pending = 1;
    }
    return 0;
}

static ssize_t remote_read(void *cookie, char *buf, size_t size)
{
    remote *m = cookie;
    if (m->clen < 0 || m->pos < m->coff || m->pos >= m->coff + m->clen) {
        if (m->clen >= 0 && m->clen < READ_CHUNK && m->pos >= m->coff)
            return 0; /* at or past the end */
        if (!(m->pending && m->poff == m->pos)) { /* not the one asked ahead */
            if (m->pending)
                wait_busy(&m->prq);
            m->poff = m->pos;
            ask(m, m->pos, m->pre, &m->prq);
            m->pending = 1;
        }
        if (take(m))
            return -1;
        if (m->pos >= m->coff + m->clen)
            return 0;
    }
    int64_t have = m->coff + m->clen - m->pos;
    size_t n = (size_t)have < size ? (size_t)have : size;
    memcpy(buf, m->cur + 8 + (m->pos - m->coff), n);
    m->pos += (int64_t)n;
    return (ssize_t)n;
}

static int remote_seek(void *cookie, off64_t *off, int whence)
{
    remote *m = cookie;
    int64_t to = whence == SEEK_SET ? *off : whence == SEEK_CUR ? m->pos + *off : -1;
    if (to < 0) {
        errno = EINVAL;
        return -1;
    }
    *off = m->pos = to;
    return 0;
}

static int remote_close(void *cookie)
{
    remote *m = cookie;
    if (m->pending)
        wait_busy(&m->prq);
    free(m->cur);
    free(m->pre);
    free(m);
    return 0;
}

typedef struct {
    MPI_Comm c;
    const char *own;  /* rank 0's own file */
    int nwarm;        /* ranks 1..nwarm were asked for their first chunk at once */
    uint8_t **wbuf;   /* [r]: where it arrives (taken by the rank's first stream) */
    MPI_Request *wrq;
} source;

/* asks ranks 1 .. min(P - 1, 1024) for their first chunk all at once, so
 * that the streams opened one after the other find it there instead of
 * each waiting for its rank to wake */
static void warm(source *s, int nranks)
{
    int n = nranks - 1 < 1024 ? nranks - 1 : 1024;
    s->wbuf = calloc((size_t)n + 1, sizeof *s->wbuf);
    s->wrq = calloc((size_t)n + 1, sizeof *s->wrq);
    if (!s->wbuf || !s->wrq)
        return;
    int64_t req[3] = {REQ_READ, 0, READ_CHUNK};
    for (int r = 1; r <= n; r++) {
        if (!(s->wbuf[r] = malloc(8 + READ_CHUNK)))
            break;
        PMPI_Irecv(s->wbuf[r], 8 + READ_CHUNK, MPI_BYTE, r, TAG_CHUNK, s->c, &s->wrq[r]);
        PMPI_Send(req, 3, MPI_INT64_T, r, TAG_REQ, s->c);
        s->nwarm = r;
    }
}

/* what warm() asked for and no stream took: received, and dropped */
static void unwarm(source *s)
{
    for (int r = 1; r <= s->nwarm; r++)
        if (s->wbuf[r]) {
            wait_busy(&s->wrq[r]);
            free(s->wbuf[r]);
        }
    free(s->wbuf);
    free(s->wrq);
}

static FILE *open_remote(void *ctx, int rank)
{
    source *s = ctx;
    if (rank == 0) {
        if (!s->own)
            errno = ENOENT;
        return s->own ? fopen(s->own, "rb") : NULL;
    }
    remote *m = calloc(1, sizeof *m);
    if (!m || !(m->cur = malloc(8 + READ_CHUNK)) || !(m->pre = malloc(8 + READ_CHUNK))) {
        if (m)
            free(m->cur), free(m->pre);
        free(m);
        errno = ENOMEM;
        return NULL;
    }
    m->c = s->c, m->rank = rank, m->clen = -1, m->poff = -1;
    if (rank <= s->nwarm && s->wbuf[rank]) { /* its first chunk, asked for already */
        free(m->pre);
        m->pre = s->wbuf[rank], m->prq = s->wrq[rank];
        s->wbuf[rank] = NULL;
        m->poff = 0, m->pending = 1;
    }
    cookie_io_functions_t io = {.read = remote_read, .seek = remote_seek, .close = remote_close};
    FILE *f = fopencookie(m, "rb", io);
    if (!f) {
        remote_close(m);
        errno = ENOMEM;
        return NULL;
    }
    setvbuf(f, NULL, _IONBF, 0); /* the chunks are the buffer */
    return f;
}

/* a rank other than 0: reads its file for rank 0 until told to stop;
 * returns the merge's status rank 0 sends */
static int64_t serve(MPI_Comm c, const char *path)
{
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    int64_t err = fd < 0 ? -(int64_t)(path ? errno : ENOENT) : 0;
    uint8_t *buf = malloc(8 + READ_CHUNK);
    int64_t status = -1;
    for (;;) {
        int64_t req[3];
        MPI_Request rq;
        PMPI_Irecv(req, 3, MPI_INT64_T, 0, TAG_REQ, c, &rq);
        wait_idle(&rq);
        if (req[0] != REQ_READ) {
            status = req[1];
            break;
        }
        int64_t n = err ? err : !buf ? -ENOMEM : 0;
        if (!n && req[1] >= 0) {
            size_t want = req[2] > 0 && req[2] <= READ_CHUNK ? (size_t)req[2] : READ_CHUNK;
            for (size_t got = 0; got < want;) {
                ssize_t k = pread(fd, buf + 8 + got, want - got, (off_t)req[1] + (off_t)got);
                if (k < 0 && errno == EINTR)
                    continue;
                if (k < 0)
                    n = -(int64_t)errno;
                if (k <= 0)
                    break;
                got += (size_t)k;
                n = (int64_t)got;
            }
        }
        int64_t small = n;
        uint8_t *out = buf ? buf : (uint8_t *)&small;
        if (buf)
            memcpy(buf, &n, 8);
        PMPI_Isend(out, 8 + (int)(n > 0 ? n : 0), MPI_BYTE, 0, TAG_CHUNK, c, &rq);
        wait_idle(&rq);
    }
    free(buf);
    if (fd >= 0)
        close(fd);
    return status;
}

/* ---- the merge ---- */

/* the whole of a file (NUL-terminated), or NULL (errno set) */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *b = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = 2 * (n + 4096 + 1);
            char *nb = realloc(b, cap);
            if (!nb) {
                free(b), fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            b = nb;
        }
        size_t k = fread(b + n, 1, cap - n - 1, f);
        n += k;
        if (k == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        errno = EIO;
        return NULL;
    }
    b[n] = 0;
    *len = n;
    return b;
}

/* PSK_MERGE_TIMES=summary (record --merge-times summary): 1 if rank 0's
 * merged trace keeps summarised times; anything else but "all" is said
 * and ignored */
static int summarize_times(void)
{
    const char *e = getenv("PSK_MERGE_TIMES");
    if (e && *e && strcmp(e, "all") && strcmp(e, "summary"))
        fprintf(stderr, "perfskel: PSK_MERGE_TIMES=%s: not all or summary; every rank's times kept\n", e);
    return e && !strcmp(e, "summary");
}

/* rank 0, once merged: the loops of out (a .pskm) into out's name with
 * .fold.json, as `perfskel fold OUT -o FILE` writes them, and a line
 * saying how far it folded */
static void fold_out(const char *out)
{
    char fpath[PATH_MAX + 32];
    size_t l = strlen(out);
    size_t cut = l > 5 && !strcmp(out + l - 5, ".pskm") ? 5 : 0;
    snprintf(fpath, sizeof fpath, "%.*s.fold.json", (int)(l - cut), out);
    psk_merged *m = NULL;
    psk_folded *f = NULL;
    FILE *o = NULL;
    int rc = psk_merged_read(out, &m);
    double t0 = now_s();
    if (rc)
        fprintf(stderr, "perfskel: in-job fold: %s\n", psk_merged_errmsg(m));
    else if ((rc = psk_fold_merged(m, PSK_FOLD_RUNS, &f)) || (rc = psk_folded_stats(f, m)))
        fprintf(stderr, "perfskel: in-job fold: %s: %s\n", out, psk_folded_errmsg(f));
    else if (!(o = fopen(fpath, "w")))
        fprintf(stderr, "perfskel: in-job fold: %s: %s\n", fpath, strerror(errno));
    if (o) {
        double secs = now_s() - t0;
        psk_folded_write_json(o, f, m, out, PSK_FOLD_RUNS, secs);
        if (fclose(o)) {
            fprintf(stderr, "perfskel: in-job fold: %s: cannot write\n", fpath);
        } else {
            int32_t ml = psk_folded_main_loop(f);
            fprintf(stderr, "perfskel: folded the %llu merged events to %lld in %.3f s",
                    (unsigned long long)psk_merged_length(m), (long long)psk_folded_length(f), secs);
            if (ml >= 0)
                fprintf(stderr, ", main loop x%lld of %lld events", (long long)psk_folded_node(f, ml)->count,
                        (long long)psk_folded_node(f, ml)->span);
            fprintf(stderr, ": %s\n", fpath);
        }
    }
    psk_folded_free(f);
    psk_merged_close(m);
}

void psk_rec_merge_run(MPI_Comm c, int rank, int nranks, const char *dir, const char *path, int only)
{
    double t0 = now_s();
    char err[PATH_MAX + 512] = "";
    int64_t st = 0;
    /* 1. the job's text and the options, from rank 0 */
    char jpath[PATH_MAX];
    snprintf(jpath, sizeof jpath, "%s/job.json", dir);
    size_t jlen = 0;
    char *job = NULL;
    int64_t head[2] = {0, 0}; /* text length (-1: none), summarised times */
    if (rank == 0) {
        job = slurp(jpath, &jlen);
        head[0] = job ? (int64_t)jlen : -1;
        head[1] = summarize_times();
        if (!job)
            fprintf(stderr, "perfskel: in-job merge: %s: %s; no merge\n", jpath, strerror(errno));
    }
    PMPI_Bcast(head, 2, MPI_INT64_T, 0, c);
    if (head[0] < 0)
        return;
    if (rank && !(job = malloc((size_t)head[0] + 1)))
        st = PSK_ENOMEM, snprintf(err, sizeof err, "rank %d: out of memory", rank);
    static char scrap[1 << 16];
    for (int64_t at = 0; at < head[0]; at += sizeof scrap) { /* in pieces: counts are ints */
        int n = (int)(head[0] - at < (int64_t)sizeof scrap ? head[0] - at : (int64_t)sizeof scrap);
        PMPI_Bcast(job ? job + at : scrap, n, MPI_CHAR, 0, c);
    }
    if (job)
        job[head[0]] = 0;
    psk_merge_opts o = {.window = 64, .times_summary = (int)head[1]};

    /* 2. this rank's part; rank 0's trace reads the others over MPI */
    source src = {.c = c, .own = path};
    nap_max = nranks <= 10 ? 1000000 : nranks >= 200 ? 20000000 : 100000L * nranks;
    psk_trace *t = NULL;
    psk_merge_part *part = NULL;
    if (!st && (st = psk_trace_open_job(dir, job, (size_t)head[0], rank ? NULL : open_remote, &src, &t)))
        snprintf(err, sizeof err, "%s", psk_trace_errmsg(t));
    if (!st && !path)
        st = PSK_ETRUNCATED, snprintf(err, sizeof err, "rank %d: its trace file is not whole", rank);
    if (!st && (st = psk_merge_part_load(t, &o, rank, 1, &part)))
        snprintf(err, sizeof err, "%s", psk_merge_part_errmsg(part));
    free(job);

    /* 3. up the tree (src/merge/merge_tree_mpi.c) */
    char who[32];
    snprintf(who, sizeof who, "rank %d: ", rank);
    psk_mtree tree = {.comm = c, .me = rank, .np = nranks, .tag_head = TAG_LEN, .tag_data = TAG_DATA,
                      .wait = wait_idle, .who = who};
    st = psk_mtree_gather(&tree, part, st, err, sizeof err);
    double t1 = now_s();

    /* 4. rank 0 writes, the others serve their files */
    if (rank) {
        psk_merge_part_free(part);
        psk_trace_close(t);
        int64_t done = serve(c, path);
        if (done == 0 && only && path)
            unlink(path);
        return;
    }
    const char *out = getenv("PSK_MERGE_OUT");
    char deflt[PATH_MAX];
    if (!out || !*out) {
        snprintf(deflt, sizeof deflt, "%s/merged.pskm", dir);
        out = deflt;
    }
    psk_merge_result res;
    if (!st)
        warm(&src, nranks);
    if (!st && (st = psk_merge_part_write(part, out, &res)))
        snprintf(err, sizeof err, "%s", res.err);
    if (src.wbuf)
        unwarm(&src);
    psk_merge_part_free(part);
    psk_trace_close(t);
    int64_t stop[3] = {REQ_STOP, st ? 1 : 0, 0};
    for (int r = 1; r < nranks; r++)
        PMPI_Send(stop, 3, MPI_INT64_T, r, TAG_REQ, c);
    if (st) {
        fprintf(stderr, "perfskel: in-job merge: %s; the rank files stay (perfskel merge DIR)\n", err);
        return;
    }
    fprintf(stderr, "perfskel: merged %d ranks in the job into %s (%.3f s reading and gathering, %.3f s merging)\n",
            nranks, out, t1 - t0, now_s() - t1);
    if (only && path)
        unlink(path);
    fold_out(out);
}
