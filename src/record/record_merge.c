/* The merge inside the job (PSK_MERGE=1, `perfskel record --merge`;
 * README "Merging in the job"). MPI_Finalize ends each rank's
 * file before the real Finalize; the files then travel over perfskel's
 * own communicator up a binomial tree to rank 0 (a rank sends its
 * subtree's files to its parent in one message after its length); once
 * MPI has finalized, rank 0 writes into its trace directory the files it
 * lacks (ranks on other nodes) and merges every rank as `perfskel merge
 * DIR` does (streaming, psk_merge_file), into DIR/merged.pskm or PSK_MERGE_OUT. The per-rank files
 * stay where they were written, so a job that dies before Finalize can
 * still be merged offline; with PSK_MERGE=only they go: each rank's once
 * rank 0 holds them all, rank 0's copies once the merge is written (if it
 * fails they stay in rank 0's directory). Problems are said once on
 * stderr; they never stop the program. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "perfskel/merge.h"
#include "perfskel/trace.h"
#include "psk_fs.h"
#include "record_call.h"
#include "trace_pack.h"

#define TAG_LEN 0x7053   /* perfskel's own tags on its own communicator */
#define TAG_DATA 0x7054
#define CHUNK (1 << 30)   /* bytes per message: counts are ints */

/* what rank 0 holds after the tree: entries [u32 rank][u32 ok][u64 len][len bytes] */
static struct {
    uint8_t *buf;
    uint64_t len;
    int nranks;
    double ship_s;        /* seconds the tree took on rank 0 */
} M;

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

static void say(int rank, const char *what, int err)
{
    fprintf(stderr, "perfskel: rank %d: in-job merge: %s%s%s\n", rank, what, err ? ": " : "",
            err ? strerror(err) : "");
}

/* the whole of a file, or NULL (errno set) */
static uint8_t *slurp(const char *path, uint64_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    uint8_t *b = NULL;
    if (fstat(fd, &st) == 0 && (b = malloc(st.st_size > 0 ? (size_t)st.st_size : 1))) {
        size_t got = 0;
        while (got < (size_t)st.st_size) {
            ssize_t r = read(fd, b + got, (size_t)st.st_size - got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                int e = r < 0 ? errno : EIO;
                free(b);
                b = NULL;
                errno = e;
                break;
            }
            got += (size_t)r;
        }
        *len = got;
    }
    int e = errno;
    close(fd);
    errno = e;
    return b;
}

static int send_bytes(const uint8_t *b, uint64_t n, int to, MPI_Comm c)
{
    int rc = PMPI_Send(&n, 1, MPI_UINT64_T, to, TAG_LEN, c);
    for (uint64_t at = 0; rc == MPI_SUCCESS && at < n; at += CHUNK) {
        uint64_t k = n - at < CHUNK ? n - at : CHUNK;
        rc = PMPI_Send(b + at, (int)k, MPI_BYTE, to, TAG_DATA, c);
    }
    return rc;
}

/* appends what `from` sends to *b; 0, or -1 (memory: the bytes are
 * still received, and dropped) */
static int recv_bytes(uint8_t **b, uint64_t *len, int from, MPI_Comm c)
{
    uint64_t n = 0;
    PMPI_Recv(&n, 1, MPI_UINT64_T, from, TAG_LEN, c, MPI_STATUS_IGNORE);
    uint8_t *nb = realloc(*b, *len + n + 1);
    int ok = nb != NULL;
    static uint8_t sink[1 << 16];
    if (ok)
        *b = nb;
    for (uint64_t at = 0; at < n; at += CHUNK) {
        uint64_t k = n - at < CHUNK ? n - at : CHUNK;
        if (ok) {
            PMPI_Recv(*b + *len + at, (int)k, MPI_BYTE, from, TAG_DATA, c, MPI_STATUS_IGNORE);
        } else { /* drain in small pieces */
            for (uint64_t d = 0; d < k; d += sizeof sink) {
                int s = (int)(k - d < sizeof sink ? k - d : sizeof sink);
                PMPI_Recv(sink, s, MPI_BYTE, from, TAG_DATA, c, MPI_STATUS_IGNORE);
            }
        }
    }
    if (!ok)
        return -1;
    *len += n;
    return 0;
}

void psk_rec_merge_ship(MPI_Comm c, int rank, int nranks, const char *path, int only)
{
    double t0 = now_s();
    uint64_t flen = 0, len = 16;
    uint8_t *file = path ? slurp(path, &flen) : NULL;
    if (path && !file)
        say(rank, "cannot read back the rank's file", errno), flen = 0;
    uint8_t *b = malloc(16 + flen + 1);
    int lost = !b;
    if (b) {
        uint32_t r = (uint32_t)rank, ok = file != NULL;
        uint64_t n = file ? flen : 0;
        memcpy(b, &r, 4), memcpy(b + 4, &ok, 4), memcpy(b + 8, &n, 8);
        if (file)
            memcpy(b + 16, file, flen), len += flen;
    }
    free(file);
    /* binomial tree: receive from rank + 1, + 2, + 4 ... while the bit is
     * clear, then send everything to rank - that bit */
    int mask = 1;
    for (; mask < nranks; mask <<= 1) {
        if (rank & mask)
            break;
        if (rank + mask < nranks && recv_bytes(&b, &len, rank + mask, c))
            lost = 1;
    }
    /* a rank out of memory sends an empty bundle: rank 0 then lacks files */
    if (rank) {
        send_bytes(lost ? NULL : b, lost ? 0 : len, rank - mask, c);
        free(b);
    } else if (lost) {
        say(rank, "out of memory gathering the ranks' files (merge the directory offline)", 0);
        free(b);
    } else {
        M.buf = b, M.len = len, M.nranks = nranks, M.ship_s = now_s() - t0;
    }
    if (!only)
        return;
    /* "only": a rank's file goes once rank 0 holds every one (it writes
     * them into its directory before merging, after the barrier: on a
     * shared directory no removal can follow its writing) */
    int held = rank == 0 && M.buf;
    PMPI_Bcast(&held, 1, MPI_INT, 0, c);
    if (held && rank && path && flen)
        unlink(path);
    PMPI_Barrier(c);
}

/* 1 if path holds exactly b[0..n) */
static int same_file(const char *path, const uint8_t *b, uint64_t n)
{
    uint64_t len;
    uint8_t *f = slurp(path, &len);
    int same = f && len == n && memcmp(f, b, n) == 0;
    free(f);
    return same;
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

void psk_rec_merge_finish(const char *dir, int only)
{
    if (!M.buf)
        return;
    double t0 = now_s();
    char path[PATH_MAX], tmp[PATH_MAX + 8];
    char *seen = calloc((size_t)M.nranks, 1);
    int bad = !seen;
    /* every file that came is written, even when one did not: with
     * PSK_MERGE=only these are the only copies */
    for (uint64_t at = 0; seen && at + 16 <= M.len;) {
        uint32_t r, ok;
        uint64_t n;
        memcpy(&r, M.buf + at, 4), memcpy(&ok, M.buf + at + 4, 4), memcpy(&n, M.buf + at + 8, 8);
        const uint8_t *b = M.buf + at + 16;
        at += 16 + n;
        if (r >= (uint32_t)M.nranks || at > M.len)
            break;
        seen[r] = 1;
        if (!ok) {
            fprintf(stderr, "perfskel: in-job merge: rank %" PRIu32 " recorded nothing; no merge\n", r);
            bad = 1;
            continue;
        }
        psk_rank_file(path, sizeof path, dir, (int)r);
        if (same_file(path, b, n))
            continue; /* written there (a shared file system, or rank 0's own) */
        snprintf(tmp, sizeof tmp, "%s.part", path);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        int err = fd < 0 ? errno : 0;
        for (uint64_t w = 0; !err && w < n;) {
            ssize_t k = write(fd, b + w, n - w);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                err = k < 0 ? errno : EIO;
            else
                w += (uint64_t)k;
        }
        if (fd >= 0 && close(fd) && !err)
            err = errno;
        if (!err && rename(tmp, path))
            err = errno;
        if (err) {
            fprintf(stderr, "perfskel: in-job merge: %s: %s; no merge\n", path, strerror(err));
            unlink(tmp);
            bad = 1;
        }
    }
    for (int r = 0; !bad && r < M.nranks; r++)
        if (!seen[r]) {
            fprintf(stderr, "perfskel: in-job merge: rank %d's file did not arrive; no merge\n", r);
            bad = 1;
        }
    free(seen);
    free(M.buf);
    M.buf = NULL;
    if (bad)
        return;
    const char *out = getenv("PSK_MERGE_OUT");
    char deflt[PATH_MAX];
    if (!out || !*out) {
        snprintf(deflt, sizeof deflt, "%s/merged.pskm", dir);
        out = deflt;
    }
    psk_trace *t;
    psk_merge_opts o = {.times_summary = summarize_times()};
    psk_merge_result res;
    int rc = psk_trace_open(dir, &t);
    if (rc) {
        fprintf(stderr, "perfskel: in-job merge: %s\n", psk_trace_errmsg(t));
    } else if ((rc = psk_merge_file(t, &o, out, &res)) != PSK_OK) { /* streaming: bounded memory on rank 0 */
        fprintf(stderr, "perfskel: in-job merge: %s\n", res.err);
    } else {
        fprintf(stderr, "perfskel: merged %d ranks in the job into %s (%.3f s gathering, %.3f s merging)\n",
                M.nranks, out, M.ship_s, now_s() - t0);
        for (int r = 0; only && r < M.nranks; r++) { /* merged: the rank files can go */
            psk_rank_file(path, sizeof path, dir, r);
            unlink(path);
        }
    }
    psk_trace_close(t);
}
