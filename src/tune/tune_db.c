/* The decision file (PSK_TUNE_DB): what the learner settled, one line per
 * (machine, MPI, ranks, call site, size class; a site is one collective's,
 * which its arm, or COLL.native, says), so that the next run of the
 * same job starts on it without exploring. Every rank reads it at start;
 * world rank 0 merges the job's decisions into it in MPI_Finalize under a
 * lock (FILE.lock, flock), writing a temporary file renamed over it: a
 * concurrent job's decisions are kept, a reader never sees half a file.
 * The file is untrusted input: a line that is not exactly valid is
 * skipped (said once), never trusted in part; its lines are read and
 * written by tune_dbline.c, which the CLI shares. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "tune_internal.h"

#define MAXFILE PSK_TUNE_DB_MAXFILE
#define MAXENTRIES 10000

static struct {
    psk_tune_dbent *e;
    int n;
} D;

const char *psk_tune_db_mpi(void)
{
#if defined(OPEN_MPI)
#define STR2(x) #x
#define STR(x) STR2(x)
    return "openmpi-" STR(OMPI_MAJOR_VERSION) "." STR(OMPI_MINOR_VERSION) "." STR(OMPI_RELEASE_VERSION);
#elif defined(MPICH_VERSION)
    return "mpich-" MPICH_VERSION;
#else
    return "mpi";
#endif
}

/* ---- the whole file ---- */

/* the file's text (at most MAXFILE bytes, NUL-terminated); NULL if none */
static char *slurp(int fd, int *truncated)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    *truncated = 0;
    while (buf) {
        if (n == cap) {
            if (cap >= MAXFILE) {
                *truncated = 1;
                break;
            }
            char *b = realloc(buf, 2 * cap + 1);
            if (!b)
                break;
            buf = b, cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    if (buf) {
        buf[n] = 0;
        for (size_t i = 0; i < n; i++) /* a NUL byte: its line is refused, not the file */
            if (!buf[i])
                buf[i] = 1;
    }
    return buf;
}

void psk_tune_db_load(const char *path, int say)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return; /* no file yet: a first run */
    int truncated;
    char *text = slurp(fd, &truncated);
    close(fd);
    if (!text)
        return;
    int bad;
    char first[160] = "";
    psk_tune_db_parse_text(text, &D.e, &D.n, &bad, first, sizeof first);
    free(text);
    if (say && bad)
        fprintf(stderr, "perfskel-tune: PSK_TUNE_DB %s: %d bad line%s skipped (%s)\n", path, bad, bad > 1 ? "s" : "",
                first);
    if (say && truncated)
        fprintf(stderr, "perfskel-tune: PSK_TUNE_DB %s: only its first %d MiB read\n", path, MAXFILE >> 20);
}

/* the entry of most calls for the key: its machine exactly, or (base) any
 * machine of that host base name whatever its layout */
static const psk_tune_dbent *find(const char *machine, int base, int P, const char *module, uint64_t offset,
                                  int coll, int sclass, int site_any)
{
    const psk_tune_dbent *best = NULL;
    const char *mpi = psk_tune_db_mpi();
    size_t nm = strlen(machine);
    for (int i = 0; i < D.n; i++) {
        const psk_tune_dbent *e = &D.e[i];
        if (e->P != P || e->coll != coll || e->sclass != sclass || strcmp(e->mpi, mpi))
            continue;
        if (base ? strncmp(e->machine, machine, nm) || e->machine[nm] != ':' : strcmp(e->machine, machine))
            continue;
        if (!site_any && (!module || strcmp(e->module, module) || e->offset != offset))
            continue;
        if (site_any && e->state != PSK_TUNE_DB_SETTLED)
            continue;
        if (!best || e->calls > best->calls)
            best = e;
    }
    return best;
}

const psk_tune_dbent *psk_tune_db_find(const char *machine, int P, const char *module, uint64_t offset, int coll,
                                       int sclass, int site_any)
{
    return find(machine, 0, P, module, offset, coll, sclass, site_any);
}

const psk_tune_dbent *psk_tune_db_here(const char *base, int P, const char *module, uint64_t offset, int coll,
                                       int sclass)
{
    return find(base, 1, P, module, offset, coll, sclass, 0);
}

static int same_key(const psk_tune_dbent *a, const psk_tune_dbent *b)
{
    /* (not the collective: a site is one collective's; a line of another
     * for the same site, a rebuilt binary's, replaces it) */
    return a->P == b->P && a->sclass == b->sclass && a->offset == b->offset && !strcmp(a->machine, b->machine) &&
           !strcmp(a->mpi, b->mpi) && !strcmp(a->module, b->module);
}

static int by_stamp_desc(const void *a, const void *b)
{
    long long x = ((const psk_tune_dbent *)a)->stamp, y = ((const psk_tune_dbent *)b)->stamp;
    return (x < y) - (x > y);
}

void psk_tune_db_save(const char *path, const char *lines, size_t len)
{
    char lock[4096], tmp[4096];
    if (snprintf(lock, sizeof lock, "%s.lock", path) >= (int)sizeof lock ||
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
        fprintf(stderr, "perfskel-tune: PSK_TUNE_DB %s: path too long\n", path);
        return;
    }
    /* a lock for the read-merge-rename; without one (a file system that
     * has none) the rename still keeps the file whole */
    int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lfd >= 0)
        while (flock(lfd, LOCK_EX) && errno == EINTR)
            ;
    psk_tune_dbent *old = NULL, *ours = NULL;
    int nold = 0, nours = 0, bad, truncated;
    char first[160];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char *text = slurp(fd, &truncated);
        close(fd);
        if (text)
            psk_tune_db_parse_text(text, &old, &nold, &bad, first, sizeof first);
        free(text);
    }
    char *mine = malloc(len + 1);
    if (mine) {
        memcpy(mine, lines, len);
        mine[len] = 0;
        psk_tune_db_parse_text(mine, &ours, &nours, &bad, first, sizeof first);
        free(mine);
    }
    /* ours replace the same keys; the newest MAXENTRIES stay */
    psk_tune_dbent *all = malloc(((size_t)nold + (size_t)nours + 1) * sizeof *all);
    int n = 0;
    for (int i = 0; all && i < nours; i++) {
        int j = 0;
        while (j < n && !same_key(&all[j], &ours[i]))
            j++;
        all[j] = ours[i];
        if (j == n)
            n++;
    }
    for (int i = 0; all && i < nold; i++) {
        int j = 0;
        while (j < n && !same_key(&all[j], &old[i]))
            j++;
        if (j == n)
            all[n++] = old[i];
    }
    if (n > MAXENTRIES) {
        qsort(all, (size_t)n, sizeof *all, by_stamp_desc);
        n = MAXENTRIES;
    }
    int ok = 0;
    FILE *f = all ? fopen(tmp, "w") : NULL;
    if (f) {
        fprintf(f, "# perfskel-tune decisions (PSK_TUNE_DB, docs/tune.md): psk2 machine mpi ranks module offset "
                   "class collective state incumbent calls total_ns spent_ns native_ns stamp arm:flag:ratios...; "
                   "psk1 machine mpi ranks module offset class arm calls arm_ns native_ns stamp\n");
        for (int i = 0; i < n; i++)
            psk_tune_db_format(f, &all[i]);
        ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
        ok = fclose(f) == 0 && ok;
        if (ok)
            ok = rename(tmp, path) == 0;
        if (!ok)
            unlink(tmp);
    }
    if (!ok)
        fprintf(stderr, "perfskel-tune: PSK_TUNE_DB %s: cannot write it (%s); its decisions are not kept\n", path,
                all ? strerror(errno) : "out of memory");
    free(all);
    free(old);
    free(ours);
    if (lfd >= 0) {
        flock(lfd, LOCK_UN);
        close(lfd);
    }
}
