/* tune_db_test: the decision file (src/tune/tune_db.c) as untrusted input
 * and as a file several jobs write at once; no MPI call is made.
 *  1. 20,000 random valid entries of each format: formatted, parsed back,
 *     equal (psk1: native lines of every collective too; psk2: a group's
 *     state, its arms' flags and ratios); an arm's line says its
 *     collective, and COLL.native is only bcast's, allreduce's or
 *     allgather's; malformed psk2 lines (each field wrong in turn) refused;
 *  2. 100,000 random lines and 100,000 one-byte mutations of valid ones
 *     (half of them psk2):
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
    e.version = 1; /* a decision: settled */
    e.state = PSK_TUNE_DB_SETTLED;
    return e;
}

/* a psk2 entry: a group's state */
static psk_tune_dbent rand_state(void)
{
    psk_tune_dbent e = rand_entry();
    e.version = 2;
    e.coll = (int)(next() % PSK_TUNE_NCOLL);
    e.state = (int)(next() % 3);
    int arms[PSK_TUNE_NARMS], n = 0;
    for (int a = 0; a < PSK_TUNE_NARMS; a++)
        if (a == PSK_TUNE_native || psk_tune_arm_coll(a) == e.coll)
            arms[n++] = a;
    e.arm = e.state == PSK_TUNE_DB_START ? PSK_TUNE_native : arms[next() % (unsigned)n];
    e.arm_ns = 0;
    e.total_ns = (double)(next() % 100000000000ull) / 10;
    e.spent_ns = (double)(next() % 1000000000) / 10 - 5e7;
    e.narms = 0;
    for (int i = 0; i < n && e.state != PSK_TUNE_DB_START; i++) {
        if (next() % 3 == 0)
            continue;
        psk_tune_dbarm *d = &e.arms[e.narms++];
        d->arm = arms[i];
        d->flag = d->arm == e.arm ? '-' : "ad-"[next() % 3];
        d->rn = (int)(next() % (PSK_TUNE_NSAMP + 1));
        for (int k = 0; k < d->rn; k++)
            d->r[k] = (float)((double)(next() % 400001) / 10000 - 20);
    }
    return e;
}

static int same(const psk_tune_dbent *a, const psk_tune_dbent *b)
{
    if (a->version != b->version || a->state != b->state || a->narms != b->narms ||
        fabs(a->total_ns - b->total_ns) > 0.06 || fabs(a->spent_ns - b->spent_ns) > 0.06)
        return 0;
    for (int i = 0; i < a->narms; i++) {
        const psk_tune_dbarm *x = &a->arms[i], *y = &b->arms[i];
        if (x->arm != y->arm || x->flag != y->flag || x->rn != y->rn)
            return 0;
        for (int k = 0; k < x->rn; k++)
            if (fabs(x->r[k] - y->r[k]) > 6e-5)
                return 0;
    }
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
    char again[8192];
    line_of(&e, again, sizeof again);
    CHECK(!psk_tune_db_parse(again, &f, &why) && same(&e, &f), "accepted '%s' but not its own format '%s'", line,
          again);
}

/* every line of path valid; the entries into out (up to cap) */
static int read_back(const char *path, psk_tune_dbent *out, int cap)
{
    FILE *f = fopen(path, "r");
    char line[8192];
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
    char line[8192];
    /* 1 */
    for (int i = 0; i < 40000; i++) {
        psk_tune_dbent e = i % 2 ? rand_state() : rand_entry(), f;
        const char *why = "";
        line_of(&e, line, sizeof line);
        CHECK(!psk_tune_db_parse(line, &f, &why) && same(&e, &f), "round trip of '%s' (%s)", line, why);
    }
    /* psk2: a valid line, then each field made wrong in turn */
    {
        const char *good = "psk2 m:1 openmpi-4.1.4 4 prog 0x10 14 alltoall exploring spread 40 8000.0 -12.5 "
                           "2000.0 5 native:d:4.2 pair:a:-0.0100,0.0200 ring:a:- bruck:-:0.3";
        psk_tune_dbent f;
        const char *why = "";
        CHECK(!psk_tune_db_parse(good, &f, &why) && f.version == 2 && f.state == PSK_TUNE_DB_EXPLORING &&
                  f.arm == PSK_TUNE_spread && f.calls == 40 && f.narms == 4 && f.arms[1].flag == 'a' &&
                  f.arms[1].rn == 2 && fabs(f.arms[1].r[1] - 0.02) < 1e-6 && f.spent_ns == -12.5,
              "a valid psk2 line (%s)", why);
        CHECK(!psk_tune_db_parse("psk2 m:1 mpich-4.0.2 2 prog 0x10 3 bcast start native 3 10.0 0.0 3.0 1", &f, &why) &&
                  f.coll == PSK_TUNE_C_bcast && f.state == PSK_TUNE_DB_START && f.narms == 0,
              "a psk2 start line (%s)", why);
        const char *bad[][2] = {
            {"alltoall", "gather"},            /* no such collective */
            {"exploring", "pondering"},        /* no such state */
            {"spread 40", "ar_ring 40"},       /* the incumbent another collective's */
            {" 40 ", " -40 "},                 /* calls */
            {"8000.0", "nan"},                 /* total */
            {"8000.0", "-8000.0"},             /* a negative total */
            {"-12.5", "1e300"},                /* spent */
            {"2000.0", "inf"},                 /* native */
            {" 5 native", " x native"},        /* stamp */
            {"pair:a:", "pair:x:"},            /* flag */
            {"pair:a:", "ag_ring:a:"},         /* another collective's arm */
            {"pair:a:", "pair:a"},             /* a field missing */
            {"-0.0100,0.0200", "-0.0100,,0.0200"}, /* an empty ratio */
            {"-0.0100,0.0200", "-0.0100,20.5"},    /* a ratio out of range */
            {"-0.0100,0.0200", "-0.0100,0x10"},    /* not decimal */
            {"ring:a:-", "pair:d:-"},          /* an arm twice */
            {"bruck:-:0.3", "spread:a:0.3"},   /* the incumbent a candidate */
            {"bruck:-:0.3", "spread:d:0.3"},   /* the incumbent dropped */
            {"exploring spread", "start spread"}, /* a start not on native */
            {"psk2 m:1", "psk3 m:1"},          /* no such format */
            {"0x10", "0xz0"},                  /* offset */
            {" 14 ", " 63 "},                  /* class */
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            char l[1024];
            const char *at = strstr(good, bad[i][0]);
            CHECK(at, "test: '%s' not in the line", bad[i][0]);
            if (!at)
                continue;
            snprintf(l, sizeof l, "%.*s%s%s", (int)(at - good), good, bad[i][1], at + strlen(bad[i][0]));
            CHECK(psk_tune_db_parse(l, &f, &why), "accepted '%s'", l);
        }
        /* 17 ratios; 13 arms (more than any collective has: one twice) */
        char l[4096];
        snprintf(l, sizeof l, "%s", good);
        strcat(l, " pair_lb:a:0");
        for (int k = 0; k < 16; k++)
            strcat(l, ",0.1");
        CHECK(psk_tune_db_parse(l, &f, &why), "accepted 17 ratios");
        snprintf(l, sizeof l, "%s", good);
        const char *more[] = {"pair_lb", "ring_lb", "pair_mb", "ring_mb", "pair_ob",
                              "ring_ob", "spread",  "pair",    "ring"};
        for (size_t k = 0; k < sizeof more / sizeof *more; k++)
            strcat(l, " "), strcat(l, more[k]), strcat(l, ":-:-");
        CHECK(psk_tune_db_parse(l, &f, &why), "accepted 13 arms");
    }
    /* a group's state saved and restored (tune_resume.c): an arm dropped
     * before a change detected cleared its ratios keeps the ratio it was
     * dropped at, so that the next run leaves it out (it probed a native
     * 20 ms slower again each run, and the budget never recovered) */
    {
        static psk_tune_group g, h;
        psk_tune_comm c = {.size = 2};
        psk_tune_dbent e;
        g.coll = PSK_TUNE_C_alltoall, h.coll = PSK_TUNE_C_alltoall;
        g.inc = PSK_TUNE_pair, g.phase = PH_EXPLORE, g.calls = 20;
        g.active = 1u << PSK_TUNE_ring;
        g.arm[PSK_TUNE_native].dropped = 12, g.arm[PSK_TUNE_native].drop_ratio = 6.8f; /* rn 0: cleared */
        g.arm[PSK_TUNE_spread].dropped = 3; /* dropped with no ratio ever: none kept */
        psk_tune_resume_save(&g, 0, &e);
        CHECK(e.state == PSK_TUNE_DB_EXPLORING && e.narms == 4, "resume: state %d, %d arms saved", e.state, e.narms);
        CHECK(psk_tune_resume_load(&c, &h, &e, 16384, 0) == PSK_TUNE_DB_EXPLORING, "resume: not loaded");
        CHECK(h.arm[PSK_TUNE_native].dropped && fabs(h.arm[PSK_TUNE_native].drop_ratio - 6.8) < 1e-5 &&
                  h.arm[PSK_TUNE_spread].dropped && h.arm[PSK_TUNE_spread].drop_ratio == 0 &&
                  h.active == 1u << PSK_TUNE_ring,
              "resume: native dropped %d at ratio %g, spread dropped %d at %g, active %#x",
              (int)h.arm[PSK_TUNE_native].dropped, h.arm[PSK_TUNE_native].drop_ratio,
              (int)h.arm[PSK_TUNE_spread].dropped, h.arm[PSK_TUNE_spread].drop_ratio, h.active);
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
            memcpy(line, next() % 2 ? "psk1 " : "psk2 ", n >= 5 ? 5 : n);
        fuzz_one(line);
        psk_tune_dbent e = i % 2 ? rand_state() : rand_entry();
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
    for (int i = 0; i < 4; i++) { /* half the keys again, another arm; the last two as states */
        b[i].arm = (b[i].arm + 1) % PSK_TUNE_NARMS;
        b[i].coll = b[i].arm == PSK_TUNE_native ? b[i].coll : psk_tune_arm_coll(b[i].arm);
        if (i >= 2) {
            psk_tune_dbent s = rand_state();
            memcpy(s.machine, b[i].machine, sizeof s.machine), memcpy(s.mpi, b[i].mpi, sizeof s.mpi);
            memcpy(s.module, b[i].module, sizeof s.module);
            s.P = b[i].P, s.offset = b[i].offset, s.sclass = b[i].sclass;
            b[i] = s;
        }
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
