/* tune_db_test: the decision file (src/tune/tune_db.c) as untrusted input
 * and as a file several jobs write at once; no MPI call is made.
 *  1. 20,000 random valid entries: formatted, parsed back, equal (native
 *     lines of every collective too); an arm's line says its collective,
 *     and COLL.native is only bcast's, allreduce's or allgather's;
 *  2. 100,000 random lines and 100,000 one-byte mutations of valid ones:
 *     never a crash; a line accepted formats to one that parses to the same;
 *  3. psk_tune_db_save merges: a key saved again is replaced, others kept,
 *     a garbage file's lines dropped, every line of the result valid;
 *  4. 6 processes saving 30 times each at once, new keys each time: every
 *     key in the file at the end (a lost update would lose some), every
 *     line valid.
 * Exit 0 when all hold; the first failure is said on stderr. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tune_internal.h"

static int fails;
#define CHECK(cond, ...)                                                                                            \
    do {                                                                                                            \
        if (!(cond)) {                                                                                              \
            if (!fails++)                                                                                           \
                fprintf(stderr, __VA_ARGS__), fputc('\n', stderr);                                                  \
        }                                                                                                           \
    } while (0)

static unsigned long long rng = 88172645463325252ull;
static unsigned long long next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static void rand_word(char *out, size_t cap, const char *alphabet)
{
    size_t n = 1 + next() % (cap - 1), k = strlen(alphabet);
    for (size_t i = 0; i < n; i++)
        out[i] = alphabet[next() % k];
    out[n] = 0;
}

static psk_tune_dbent rand_entry(void)
{
    psk_tune_dbent e;
    memset(&e, 0, sizeof e);
    rand_word(e.machine, 2 + next() % 40, "abcxyz019_:.-");
    rand_word(e.mpi, 2 + next() % 30, "openmpich0123456789._-");
    size_t n = 1 + next() % 60; /* any byte but NUL */
    for (size_t i = 0; i < n; i++)
        e.module[i] = (char)(1 + next() % 255);
    e.module[n] = 0;
    e.P = 1 + (int)(next() % (1 << 24));
    e.offset = next() >> (next() % 64);
    e.sclass = -1 + (int)(next() % 64);
    e.arm = (int)(next() % PSK_TUNE_NARMS);
    /* a native line names its collective (bcast.native, ...) */
    e.coll = e.arm == PSK_TUNE_native ? (int)(next() % PSK_TUNE_NCOLL) : psk_tune_arm_coll(e.arm);
    e.calls = next() % (1ull << 53);
    e.arm_ns = (double)(next() % 1000000000) / 10;
    e.native_ns = (double)(next() % 1000000000) / 10;
    e.stamp = (long long)(next() % (1ull << 40));
    return e;
}

static int same(const psk_tune_dbent *a, const psk_tune_dbent *b)
{
    return !strcmp(a->machine, b->machine) && !strcmp(a->mpi, b->mpi) && !strcmp(a->module, b->module) &&
           a->P == b->P && a->offset == b->offset && a->sclass == b->sclass && a->arm == b->arm &&
           a->coll == b->coll &&
           a->calls == b->calls && fabs(a->arm_ns - b->arm_ns) < 0.06 && fabs(a->native_ns - b->native_ns) < 0.06 &&
           a->stamp == b->stamp;
}

/* one entry as its line, without the newline */
static void line_of(const psk_tune_dbent *e, char *buf, size_t cap)
{
    FILE *f = fmemopen(buf, cap, "w");
    psk_tune_db_format(f, e);
    fclose(f);
    buf[strcspn(buf, "\n")] = 0;
}

/* parse; if accepted, the line was printable ASCII (names are escaped)
 * and the round trip is stable */
static void fuzz_one(const char *line)
{
    psk_tune_dbent e, f;
    const char *why;
    if (psk_tune_db_parse(line, &e, &why))
        return;
    for (const unsigned char *p = (const unsigned char *)line; *p; p++)
        CHECK((*p >= 0x20 && *p < 0x7f) || *p == '\t' || *p == '\r', "accepted a byte %#x in '%s'", *p, line);
    char again[2048];
    line_of(&e, again, sizeof again);
    CHECK(!psk_tune_db_parse(again, &f, &why) && same(&e, &f), "accepted '%s' but not its own format '%s'", line,
          again);
}

/* every line of path valid; the entries into out (up to cap) */
static int read_back(const char *path, psk_tune_dbent *out, int cap)
{
    FILE *f = fopen(path, "r");
    char line[2048];
    int n = 0;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0] == '#')
            continue;
        const char *why;
        psk_tune_dbent e;
        CHECK(!psk_tune_db_parse(line, &e, &why), "%s: a bad line written: '%s' (%s)", path, line, why);
        if (n < cap)
            out[n] = e;
        n++;
    }
    fclose(f);
    return n;
}

static char *lines_of(const psk_tune_dbent *v, int n, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    for (int i = 0; i < n; i++)
        psk_tune_db_format(f, &v[i]);
    fclose(f);
    return buf;
}

int main(void)
{
    char line[2048];
    /* 1 */
    for (int i = 0; i < 20000; i++) {
        psk_tune_dbent e = rand_entry(), f;
        const char *why = "";
        line_of(&e, line, sizeof line);
        CHECK(!psk_tune_db_parse(line, &f, &why) && same(&e, &f), "round trip of '%s' (%s)", line, why);
    }
    /* an arm gives its collective; COLL.native for the three others only */
    {
        psk_tune_dbent f;
        const char *why = "";
        CHECK(!psk_tune_db_parse("psk1 m:1 mpich-4.0.2 4 prog 0x10 3 ar_ring 10 1.0 2.0 1", &f, &why) &&
                  f.coll == PSK_TUNE_C_allreduce && f.arm == PSK_TUNE_ar_ring,
              "an allreduce arm's line (%s)", why);
        CHECK(!psk_tune_db_parse("psk1 m:1 mpich-4.0.2 4 prog 0x10 3 bcast.native 10 1.0 2.0 1", &f, &why) &&
                  f.coll == PSK_TUNE_C_bcast && f.arm == PSK_TUNE_native,
              "bcast.native (%s)", why);
        CHECK(!psk_tune_db_parse("psk1 m:1 mpich-4.0.2 4 prog 0x10 3 native 10 1.0 2.0 1", &f, &why) &&
                  f.coll == PSK_TUNE_C_alltoall, "native is alltoall's (%s)", why);
        const char *bad[] = {"alltoall.native", "bcast.bc_binomial", "gather.native",
                             ".native",         "bcast.",            "bcast.nativ"};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            char l[256];
            snprintf(l, sizeof l, "psk1 m:1 mpich-4.0.2 4 prog 0x10 3 %s 10 1.0 2.0 1", bad[i]);
            CHECK(psk_tune_db_parse(l, &f, &why), "accepted '%s'", l);
        }
    }
    /* 2 */
    for (int i = 0; i < 100000; i++) {
        size_t n = next() % 200;
        for (size_t k = 0; k < n; k++)
            line[k] = (char)(next() % 3 ? 32 + next() % 95 : 1 + next() % 255);
        line[n] = 0;
        if (next() % 2)
            memcpy(line, "psk1 ", n >= 5 ? 5 : n);
        fuzz_one(line);
        psk_tune_dbent e = rand_entry();
        line_of(&e, line, sizeof line);
        size_t len = strlen(line), at = next() % (len + 1);
        switch (next() % 3) {
        case 0: line[at < len ? at : 0] = (char)(1 + next() % 255); break;
        case 1: memmove(line + at, line + at + 1, len - at); break; /* delete */
        default:
            memmove(line + at + 1, line + at, len - at + 1);
            line[at] = (char)(1 + next() % 255);
        }
        fuzz_one(line);
    }
    /* 3 */
    char dir[] = "/tmp/tune_db_test.XXXXXX";
    if (!mkdtemp(dir))
        return perror("mkdtemp"), 1;
    char path[256];
    snprintf(path, sizeof path, "%s/db", dir);
    FILE *g = fopen(path, "w");
    fprintf(g, "garbage\npsk1 1 2 3\n\001\002\377\n");
    fclose(g);
    psk_tune_dbent a[8], b[8], back[32];
    for (int i = 0; i < 8; i++)
        a[i] = rand_entry(), b[i] = a[i];
    for (int i = 0; i < 4; i++) { /* half the keys again, another arm */
        b[i].arm = (b[i].arm + 1) % PSK_TUNE_NARMS;
        b[i].coll = b[i].arm == PSK_TUNE_native ? b[i].coll : psk_tune_arm_coll(b[i].arm);
    }
    size_t la, lb;
    char *sa = lines_of(a, 8, &la), *sb = lines_of(b, 4, &lb);
    psk_tune_db_save(path, sa, la);
    psk_tune_db_save(path, sb, lb);
    int n = read_back(path, back, 32);
    CHECK(n == 8, "merge: %d entries, not 8", n);
    for (int i = 0; i < 8; i++) {
        int found = 0;
        for (int k = 0; k < n && k < 32; k++)
            found |= same(&back[k], i < 4 ? &b[i] : &a[i]);
        CHECK(found, "merge: entry %d lost or not replaced", i);
    }
    free(sa), free(sb);
    /* 4 */
    enum { NPROC = 6, ROUNDS = 30, PER = 5, ALL = NPROC * ROUNDS * PER };
    unlink(path);
    static psk_tune_dbent mine[NPROC][ROUNDS][PER], all[ALL + 8];
    for (int p = 0; p < NPROC; p++)
        for (int r = 0; r < ROUNDS; r++)
            for (int k = 0; k < PER; k++)
                mine[p][r][k] = rand_entry();
    for (int p = 0; p < NPROC; p++) {
        pid_t pid = fork();
        if (pid == 0) {
            for (int r = 0; r < ROUNDS; r++) {
                size_t len;
                char *s = lines_of(mine[p][r], PER, &len);
                psk_tune_db_save(path, s, len);
                free(s);
            }
            _exit(0);
        }
    }
    for (int p = 0; p < NPROC; p++)
        wait(NULL);
    n = read_back(path, all, ALL + 8);
    CHECK(n == ALL, "concurrent saves: %d entries, not %d", n, ALL);
    int lost = 0;
    for (int p = 0; p < NPROC; p++)
        for (int r = 0; r < ROUNDS; r++)
            for (int k = 0; k < PER; k++) {
                int found = 0;
                for (int i = 0; i < n && i < ALL + 8 && !found; i++)
                    found = same(&all[i], &mine[p][r][k]);
                lost += !found;
            }
    CHECK(!lost, "concurrent saves: %d of %d entries lost", lost, ALL);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd))
        fprintf(stderr, "tune_db_test: could not remove %s\n", dir);
    if (fails)
        fprintf(stderr, "tune_db_test: %d failures\n", fails);
    else
        printf("tune_db_test: ok\n");
    return fails != 0;
}
