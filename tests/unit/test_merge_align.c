/* The merge stage's alignment (src/merge/merge_align.c, merge_lcs.c)
 * against naive oracles, on synthetic per-rank traces (synth_trace.c): each
 * rank's calls are one common sequence with calls deleted (boundary ranks,
 * a skipped call) and calls of its own inserted. Checked on thousands of
 * random cases: expanding the merged trace gives back every rank's events
 * exactly (reordering on and off, through the file too); the merged length
 * is the optimum, common length + insertions, whenever a rank keeps every
 * common call, and with few deletions on every rank; it is never longer
 * than a progressive merge by exact quadratic LCS; collectives on
 * MPI_COMM_WORLD are one event with every rank; ranks passing
 * MPI_PROC_NULL join the real-peer calls; ranks that agree give one event
 * per call; long hard stretches (aligned by windows) and ranks whose
 * collectives disagree still round-trip. The aligner alone, both its ways,
 * against the quadratic LCS table. The streaming merge, whole and in
 * parts, writes the same bytes as the in-memory merge. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "merge_internal.h" /* the aligner itself, for its oracle test */
#include "perfskel/merge.h"
#include "synth_trace.h"

#define MAXP 12
#define MAXN 210000

/* what a call is: its kind and, for point-to-point calls, tag and peer as
 * an offset from the rank (PROC_NULL: the rank passes MPI_PROC_NULL) */
enum { K_ISEND, K_IRECV, K_SEND, K_RECV, K_WAITALL, K_ALLREDUCE, K_BARRIER, K_NKINDS };
#define PEER_NULL 99
typedef struct sym {
    uint8_t kind;
    int8_t off;
    int32_t tag;
} sym;

typedef struct rankseq {
    sym s[MAXN];
    int n;
} rankseq;

typedef struct tcase {
    int P;
    rankseq r[MAXP];
    int no_reorder;
    int window;
} tcase;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int rndn(int n) { return (int)(rnd() % (uint64_t)n); }

static const char *const kind_fn[K_NKINDS] = {"MPI_Isend", "MPI_Irecv", "MPI_Send", "MPI_Recv",
                                              "MPI_Waitall", "MPI_Allreduce", "MPI_Barrier"};
static const int64_t reqs[3] = {5, 6, 7};

/* the event rank r records for s, its i-th */
static void make_event(const tcase *c, int r, const sym *s, uint64_t i, uint64_t *clock, psk_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->fn = psk_fn_lookup(kind_fn[s->kind]);
    assert_true(ev->fn != 0);
    ev->fields = psk_fn_fields(ev->fn);
    *clock += 1000 + (i * 7919 + (uint64_t)r * 104729) % 5000;
    ev->t_entry = *clock;
    *clock += 200 + (i * 31) % 900;
    ev->t_exit = *clock;
    ev->v[PSK_F_COMM] = 0;
    ev->v[PSK_F_DTSIZE] = 8;
    ev->v[PSK_F_RDTSIZE] = 8;
    ev->v[PSK_F_COUNT] = 1 + (int64_t)(i % 3) + r; /* counts differ: not in the key */
    ev->v[PSK_F_RCOUNT] = 4;
    ev->v[PSK_F_OP] = PSK_OP_SUM;
    ev->v[PSK_F_REQ] = 100 + (int64_t)(i % 50);
    int64_t peer = s->off == PEER_NULL ? PSK_PROC_NULL : (r + s->off + c->P) % c->P;
    ev->v[PSK_F_PEER] = peer;
    ev->v[PSK_F_TAG] = s->tag;
    ev->v[PSK_F_ASRC] = s->kind == K_RECV ? peer : 0;
    ev->v[PSK_F_ATAG] = s->kind == K_RECV ? s->tag : 0;
    if (s->kind == K_WAITALL) {
        PSK_ARRN(ev, PSK_F_REQS) = 1 + (uint32_t)(i % 3);
        PSK_ARR(ev, PSK_F_REQS) = reqs;
    }
}

/* ---- running the merge on a case ---- */

typedef struct expect_walk {
    const tcase *c;
    int r;
    uint64_t i, clock;
    int bad;
} expect_walk;

static int check_event(void *arg, const psk_event *got)
{
    expect_walk *w = arg;
    psk_event want;
    if (w->i >= (uint64_t)w->c->r[w->r].n) {
        w->bad = 1;
        return 1;
    }
    make_event(w->c, w->r, &w->c->r[w->r].s[w->i], w->i, &w->clock, &want);
    w->i++;
    if (!synth_event_equal(&want, got)) {
        w->bad = 1;
        return 1;
    }
    return 0;
}

typedef struct result {
    uint64_t len;      /* merged events */
    uint64_t partial;  /* merged collectives without every rank */
    uint64_t not_all;  /* merged events without every rank */
} result;

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    uint8_t *p = malloc(*len + 1);
    assert_non_null(p);
    assert_int_equal(fread(p, 1, *len, f), *len);
    fclose(f);
    return p;
}

/* the streaming merge (psk_merge_file), and the same in 1 to 3 parts
 * absorbed in reverse order (as perfskel merge --mpi does), write the bytes
 * psk_merged_write writes of m */
static void same_streaming(psk_trace *t, const psk_merge_opts *o, psk_merged *m, const char *dir, int ncase)
{
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s/mem.pskm", dir);
    snprintf(b, sizeof b, "%s/stream.pskm", dir);
    assert_int_equal(psk_merged_write(m, a), PSK_OK);
    size_t la, lb;
    uint8_t *pa = slurp(a, &la), *pb;
    psk_merge_result res;
    int rc = psk_merge_file(t, o, b, &res);
    if (rc)
        fprintf(stderr, "streaming merge: %s\n", res.err);
    assert_int_equal(rc, PSK_OK);
    pb = slurp(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(pa, pb, la);
    free(pb);
    int P = psk_merged_nranks(m), k = 1 + ncase / 4 % 3;
    if (k > P)
        k = P;
    psk_merge_part *part[3];
    for (int i = 0; i < k; i++) {
        int first = P * i / k, last = P * (i + 1) / k;
        assert_int_equal(psk_merge_part_load(t, o, first, last - first, &part[i]), PSK_OK);
    }
    for (int i = k - 1; i > 0; i--) {
        uint8_t *buf;
        size_t len;
        assert_int_equal(psk_merge_part_pack(part[i], &buf, &len), PSK_OK);
        assert_int_equal(psk_merge_part_absorb(part[0], buf, len), PSK_OK);
        free(buf);
        psk_merge_part_free(part[i]);
    }
    assert_int_equal(psk_merge_part_write(part[0], b, &res), PSK_OK);
    psk_merge_part_free(part[0]);
    pb = slurp(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(pa, pb, la);
    free(pb);
    free(pa);
    remove(a);
    remove(b);
    if (ncase)
        return;
    /* a rank file cut between reading and writing: the error names it,
     * and neither the output nor a temporary file is left */
    assert_int_equal(psk_merge_part_load(t, o, 0, P, &part[0]), PSK_OK);
    char rf[4300];
    snprintf(rf, sizeof rf, "%s/rank-%06d.psk", dir, P - 1);
    assert_int_equal(truncate(rf, 100), 0);
    assert_int_not_equal(psk_merge_part_write(part[0], b, &res), PSK_OK);
    assert_non_null(strstr(res.err, "rank-"));
    psk_merge_part_free(part[0]);
    FILE *f = fopen(b, "rb");
    assert_null(f);
    DIR *d = opendir(dir);
    for (struct dirent *e; (e = readdir(d));)
        assert_null(strstr(e->d_name, ".tmp-"));
    closedir(d);
}

/* writes the case, merges it, checks that every rank is rebuilt exactly
 * (every 16th case through the merged file); every 4th also merged
 * streaming, whole and in parts: the same file */
static result run_case(const tcase *c)
{
    static int ncase;
    char *dir = synth_tempdir();
    const uint64_t job = 0x3e76e0ull;
    synth_job(dir, job, c->P, 1);
    for (int r = 0; r < c->P; r++) {
        synth_rank *w = synth_rank_open(dir, r, c->P, job, 1, 1000);
        uint64_t clock = 1000;
        for (int i = 0; i < c->r[r].n; i++) {
            psk_event ev;
            make_event(c, r, &c->r[r].s[i], (uint64_t)i, &clock, &ev);
            synth_event(w, &ev);
        }
        synth_end(w, (uint64_t)c->r[r].n);
    }
    psk_trace *t;
    assert_int_equal(psk_trace_open(dir, &t), PSK_OK);
    psk_merge_opts o = {.no_reorder = c->no_reorder, .window = c->window};
    psk_merged *m;
    int rc = psk_merge(t, &o, &m);
    if (rc)
        fprintf(stderr, "merge: %s\n", psk_merged_errmsg(m));
    assert_int_equal(rc, PSK_OK);
    if (ncase % 4 == 0)
        same_streaming(t, &o, m, dir, ncase);
    psk_trace_close(t);
    if (ncase++ % 16 == 0) {
        char path[4200];
        snprintf(path, sizeof path, "%s/merged.pskm", dir);
        assert_int_equal(psk_merged_write(m, path), PSK_OK);
        psk_merged_close(m);
        assert_int_equal(psk_merged_read(path, &m), PSK_OK);
    }
    for (int r = 0; r < c->P; r++) {
        expect_walk w = {.c = c, .r = r, .clock = 1000};
        assert_int_equal(psk_merged_expand(m, r, check_event, &w), 0);
        assert_false(w.bad);
        assert_int_equal(w.i, (uint64_t)c->r[r].n);
        assert_int_equal(psk_merged_rank_events(m, r), (uint64_t)c->r[r].n);
    }
    result res = {.len = psk_merged_length(m)};
    psk_mcursor *cur;
    psk_mevent ev;
    unsigned allreduce = psk_fn_lookup("MPI_Allreduce"), barrier = psk_fn_lookup("MPI_Barrier");
    assert_int_equal(psk_mcursor_open(m, &cur), PSK_OK);
    while ((rc = psk_mcursor_next(cur, &ev)) == PSK_OK) {
        res.not_all += ev.nranks != c->P;
        res.partial += (ev.fn == allreduce || ev.fn == barrier) && ev.nranks != c->P;
    }
    assert_int_equal(rc, PSK_EOF);
    psk_mcursor_close(cur);
    psk_merged_close(m);
    synth_rmdir(dir);
    free(dir);
    return res;
}

static void dump_case(const tcase *c)
{
    for (int r = 0; r < c->P; r++) {
        fprintf(stderr, "rank %d:", r);
        for (int i = 0; i < c->r[r].n && i < 400; i++) {
            const sym *s = &c->r[r].s[i];
            fprintf(stderr, " %s", kind_fn[s->kind] + 4);
            if (s->kind < K_WAITALL)
                fprintf(stderr, "(%d,%+d)", s->tag, s->off == PEER_NULL ? 0 : s->off);
        }
        fprintf(stderr, "\n");
    }
}

/* ---- the naive oracle: progressive merge by exact quadratic LCS ---- */

/* whether two calls can be one merged event, as the merge decides it
 * (peers relative to the rank; PROC_NULL joins any peer of the same call) */
static int same_call(const sym *a, const sym *b)
{
    if (a->kind != b->kind)
        return 0;
    if (a->kind == K_WAITALL || a->kind == K_ALLREDUCE || a->kind == K_BARRIER)
        return 1;
    return a->tag == b->tag && (a->off == b->off || a->off == PEER_NULL || b->off == PEER_NULL);
}

/* ranks' calls s[r][0..n[r]) merged in rank order, each by a full LCS
 * table with the merged sequence so far (its calls not matched inserted
 * where the table says); returns the merged length. No PROC_NULL calls
 * here: merged calls need not remember which peer they stand for. */
static int lcs_progressive(int P, const sym *const *seq, const int *len)
{
    int cap = 1, np = len[0];
    for (int r = 0; r < P; r++)
        cap += len[r];
    sym *prof = malloc((size_t)cap * sizeof *prof), *next = malloc((size_t)cap * sizeof *next);
    assert_non_null(prof);
    assert_non_null(next);
    memcpy(prof, seq[0], (size_t)np * sizeof *prof);
    for (int r = 1; r < P; r++) {
        const sym *s = seq[r];
        int n = len[r];
        size_t W = (size_t)n + 1;
        uint16_t *dp = malloc((size_t)(np + 1) * W * sizeof *dp);
        assert_non_null(dp);
        for (int i = np; i >= 0; i--)
            for (int j = n; j >= 0; j--) {
                uint16_t v = 0;
                if (i < np && j < n) {
                    v = dp[(size_t)(i + 1) * W + (size_t)j];
                    if (dp[(size_t)i * W + (size_t)j + 1] > v)
                        v = dp[(size_t)i * W + (size_t)j + 1];
                    if (same_call(&prof[i], &s[j]) && dp[(size_t)(i + 1) * W + (size_t)j + 1] + 1 > v)
                        v = (uint16_t)(dp[(size_t)(i + 1) * W + (size_t)j + 1] + 1);
                }
                dp[(size_t)i * W + (size_t)j] = v;
            }
        int i = 0, j = 0, k = 0;
        while (i < np || j < n) {
            if (i < np && j < n && same_call(&prof[i], &s[j]) &&
                dp[(size_t)i * W + (size_t)j] == dp[(size_t)(i + 1) * W + (size_t)j + 1] + 1) {
                next[k++] = prof[i++];
                j++;
            } else if (i < np && (j == n || dp[(size_t)i * W + (size_t)j] == dp[(size_t)(i + 1) * W + (size_t)j])) {
                next[k++] = prof[i++];
            } else {
                next[k++] = s[j++];
            }
        }
        free(dp);
        np = k;
        memcpy(prof, next, (size_t)np * sizeof *prof);
    }
    free(prof);
    free(next);
    return np;
}

/* The reference: MPI makes every rank call collectives in one order, so
 * the k-th collective of each rank is one call of the program; ranks are
 * cut there and each stretch merged by lcs_progressive. The collectives
 * must agree (as they do in an MPI program). */
static int lcs_oracle_length(const tcase *c)
{
    int at[MAXP] = {0}, total = 0;
    const sym *seq[MAXP];
    int len[MAXP];
    for (;;) {
        int more = 0;
        for (int r = 0; r < c->P; r++) {
            int e = at[r];
            while (e < c->r[r].n && c->r[r].s[e].kind < K_ALLREDUCE)
                e++;
            seq[r] = c->r[r].s + at[r];
            len[r] = e - at[r] + (e < c->r[r].n); /* with the collective */
            at[r] = e + (e < c->r[r].n);
            more |= at[r] < c->r[r].n;
        }
        total += lcs_progressive(c->P, seq, len);
        if (!more)
            return total;
    }
}

/* ---- generators ---- */

/* a common sequence of about n calls over nsites call sites: an iterated
 * loop body (2 cases in 3) or calls drawn at random; an Allreduce closes
 * each iteration (or comes 1 call in 8) when coll is set; blocking sends
 * and receives among the sites when blocking is set */
static int gen_common(sym *out, int n, int nsites, int coll, int blocking)
{
    sym sites[16];
    for (int i = 0; i < nsites; i++) {
        int k = blocking ? rndn(4) : rndn(2);
        if (rndn(5) == 0)
            k = K_WAITALL;
        sites[i] = (sym){.kind = (uint8_t)k, .off = (int8_t)(1 + rndn(3)), .tag = 1 + rndn(4)};
    }
    int len = 0;
    if (rndn(3)) {
        int body = 1 + rndn(12);
        sym b[16];
        for (int i = 0; i < body; i++)
            b[i] = sites[rndn(nsites)];
        while (len < n) {
            for (int i = 0; i < body && len < n; i++)
                out[len++] = b[i];
            if (coll && len < n)
                out[len++] = (sym){.kind = rndn(4) ? K_ALLREDUCE : K_BARRIER};
        }
    } else {
        while (len < n)
            out[len++] = coll && rndn(8) == 0 ? (sym){.kind = K_ALLREDUCE} : sites[rndn(nsites)];
    }
    return len;
}

/* the calls of one rank derived from the common ones */
typedef struct derivation {
    int keep;      /* every common call */
    int del_sites; /* call sites skipped wholly (of 16 site classes) */
    int del_pm;    /* each other call skipped with this chance, per mille */
    int ins_pct;   /* a call of the rank's own before a call, per cent */
    int ins_common; /* those calls are common ones, not the rank's own */
    int del_coll;  /* collectives may be skipped or added too (not MPI) */
} derivation;

/* rank r's calls from common[0..n); marks the common calls it keeps in
 * used; returns its insertions */
static int derive(rankseq *rs, const sym *common, int n, int r, const derivation *d, uint8_t *used)
{
    int dropped_site[16] = {0};
    for (int i = 0; i < d->del_sites; i++)
        dropped_site[rndn(16)] = 1;
    int ins = 0;
    rs->n = 0;
    for (int i = 0; i < n && rs->n < MAXN; i++) {
        if (d->ins_pct && rndn(100) < d->ins_pct && rs->n < MAXN - 1) {
            sym c = common[rndn(n)];
            if (d->ins_common && (c.kind < K_ALLREDUCE || d->del_coll))
                rs->s[rs->n++] = c;
            else
                rs->s[rs->n++] = (sym){.kind = (uint8_t)rndn(2), .off = 1, .tag = 100000 * (r + 1) + ins};
            ins++;
        }
        int site = (common[i].tag * 5 + common[i].off * 3 + common[i].kind) % 16;
        int coll = common[i].kind >= K_ALLREDUCE;
        if (!d->keep && (!coll || d->del_coll) && (dropped_site[site] || rndn(1000) < d->del_pm))
            continue;
        used[i] = 1;
        rs->s[rs->n++] = common[i];
    }
    return ins;
}

static int verbose;
static int quick = 1; /* PSK_TEST_QUICK=N (the fast tier): every Nth of the random cases, each made as
                       * in the full run (the generator's sequence unchanged) */
static tcase tc;
static sym common[MAXN];
static uint8_t used[MAXN];

static int count_used(int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += used[i];
    return k;
}

/* ---- the tests ---- */

/* Boundary-like ranks: one rank keeps every common call, the others skip
 * call sites and single calls and add calls of their own. The optimum is
 * then known, the common length + every insertion, and must be met; each
 * collective is one merged event of every rank. */
static void test_edges_optimal(void **state)
{
    (void)state;
    int cases = 600;
    for (int it = 0; it < cases; it++) {
        memset(&tc, 0, sizeof tc);
        tc.P = 2 + rndn(MAXP - 1);
        tc.no_reorder = rndn(2);
        int n = gen_common(common, 20 + rndn(it % 10 == 0 ? 3000 : 300), 2 + rndn(8), rndn(2), 0);
        memset(used, 0, (size_t)n);
        int keeper = rndn(tc.P), ins = 0, few = rndn(2);
        for (int r = 0; r < tc.P; r++) {
            derivation d = {.keep = r == keeper, .del_sites = few ? 0 : rndn(3), .del_pm = few ? 5 : rndn(300),
                            .ins_pct = rndn(3) ? 0 : rndn(8)};
            ins += derive(&tc.r[r], common, n, r, &d, used);
        }
        if (it % quick) /* the fast tier: every quick-th of the same cases */
            continue;
        result got = run_case(&tc);
        if (got.len != (uint64_t)(n + ins) || got.partial) {
            if (verbose)
                dump_case(&tc);
            fprintf(stderr, "edges case %d: P=%d n=%d ins=%d: merged %llu, optimum %d, %llu collectives split\n",
                    it, tc.P, n, ins, (unsigned long long)got.len, n + ins, (unsigned long long)got.partial);
        }
        assert_int_equal(got.len, (uint64_t)(n + ins));
        assert_int_equal(got.partial, 0);
    }
}

/* Every rank skips a few calls (none keeps them all) and adds a few of its
 * own: the common calls any rank keeps + the insertions is a merge, and
 * the optimum here; never longer. */
static void test_few_deletions(void **state)
{
    (void)state;
    int cases = 600, shorter = 0;
    for (int it = 0; it < cases; it++) {
        memset(&tc, 0, sizeof tc);
        tc.P = 2 + rndn(MAXP - 1);
        tc.no_reorder = rndn(2);
        int n = gen_common(common, 20 + rndn(400), 2 + rndn(8), rndn(2), 0);
        memset(used, 0, (size_t)n);
        int ins = 0;
        for (int r = 0; r < tc.P; r++) {
            derivation d = {.del_pm = 1 + rndn(6), .ins_pct = rndn(2) ? 0 : rndn(4)};
            ins += derive(&tc.r[r], common, n, r, &d, used);
        }
        uint64_t want = (uint64_t)(count_used(n) + ins);
        if (it % quick) /* the fast tier: every quick-th of the same cases */
            continue;
        result got = run_case(&tc);
        if (got.len != want || got.partial) {
            if (verbose)
                dump_case(&tc);
            fprintf(stderr, "few case %d: P=%d n=%d ins=%d: merged %llu, construction %llu, %llu collectives split\n",
                    it, tc.P, n, ins, (unsigned long long)got.len, (unsigned long long)want,
                    (unsigned long long)got.partial);
        }
        assert_true(got.len <= want);
        shorter += got.len < want;
        assert_int_equal(got.partial, 0);
    }
    if (verbose)
        fprintf(stderr, "few deletions: %d of %d cases shorter than the construction\n", shorter, cases);
}

/* Anything goes: calls inserted from the common ones, blocking sends and
 * receives (reordered or not), windows of any size, and in a quarter of
 * the cases collectives skipped or added (ranks disagreeing on them, which
 * MPI forbids). Every rank is rebuilt exactly and the merge is never
 * longer than every rank's calls together. Against the quadratic oracle
 * (no reordering, MPI collectives) -- both are progressive, so neither is
 * optimal -- the merge must be no longer in total and in at least 96 % of
 * the cases (in practice it is shorter in ~15 %, longer by 1-3 events in
 * ~1 %). */
static void test_against_oracle(void **state)
{
    (void)state;
    int cases = 800, compared = 0, better = 0, worse = 0;
    uint64_t sum_got = 0, sum_oracle = 0;
    for (int it = 0; it < cases; it++) {
        memset(&tc, 0, sizeof tc);
        tc.P = 2 + rndn(7);
        tc.no_reorder = rndn(3) != 0;
        tc.window = rndn(2) ? 0 : 2 + rndn(40);
        int n = gen_common(common, 5 + rndn(200), 1 + rndn(10), rndn(2), rndn(2));
        memset(used, 0, (size_t)n);
        uint64_t total = 0;
        int mpi = rndn(4) != 0; /* collectives as MPI has them: every rank, one order */
        for (int r = 0; r < tc.P; r++) {
            derivation d = {.keep = rndn(4) == 0, .del_sites = rndn(2), .del_pm = rndn(400), .ins_pct = rndn(15),
                            .ins_common = rndn(2), .del_coll = !mpi && rndn(2)};
            derive(&tc.r[r], common, n, r, &d, used);
            total += (uint64_t)tc.r[r].n;
        }
        if (it % quick) /* the fast tier: every quick-th of the same cases */
            continue;
        result got = run_case(&tc);
        assert_true(got.len <= total);
        if (!tc.no_reorder)
            continue;
        if (!mpi)
            continue;
        uint64_t want = (uint64_t)lcs_oracle_length(&tc);
        compared++;
        sum_got += got.len;
        sum_oracle += want;
        better += got.len < want;
        worse += got.len > want;
        if (got.len > want && verbose) {
            if (verbose > 1)
                dump_case(&tc);
            fprintf(stderr, "oracle case %d: P=%d: merged %llu, oracle %llu\n", it, tc.P,
                    (unsigned long long)got.len, (unsigned long long)want);
        }
    }
    if (verbose)
        fprintf(stderr, "oracle: of %d cases, %d shorter, %d longer; %llu merged events against %llu\n",
                compared, better, worse, (unsigned long long)sum_got, (unsigned long long)sum_oracle);
    assert_true(sum_got <= sum_oracle);
    assert_true(worse * 25 <= compared); /* at most 4 % */
}

/* Boundary ranks passing MPI_PROC_NULL make the same calls as the others:
 * one merged event per call, with every rank. */
static void test_proc_null(void **state)
{
    (void)state;
    for (int it = 0; it < 300; it++) {
        memset(&tc, 0, sizeof tc);
        tc.P = 2 + rndn(MAXP - 1);
        tc.no_reorder = rndn(2);
        int n = gen_common(common, 10 + rndn(400), 1 + rndn(8), rndn(2), rndn(2));
        for (int r = 0; r < tc.P; r++) {
            int edge = r == 0 || r == tc.P - 1 || rndn(3) == 0;
            tc.r[r].n = n;
            for (int i = 0; i < n; i++) {
                tc.r[r].s[i] = common[i];
                /* a boundary: no neighbour on this side for this call */
                if (edge && common[i].kind < K_WAITALL && (common[i].off + r) % 3 == 0)
                    tc.r[r].s[i].off = PEER_NULL;
            }
        }
        if (it % quick) /* the fast tier: every quick-th of the same cases */
            continue;
        result got = run_case(&tc);
        assert_int_equal(got.len, (uint64_t)n);
        assert_int_equal(got.not_all, 0);
    }
}

/* Ranks that agree: one event per call, with every rank. */
static void test_agreeing(void **state)
{
    (void)state;
    for (int it = 0; it < 200; it++) {
        memset(&tc, 0, sizeof tc);
        tc.P = 1 + rndn(MAXP);
        tc.no_reorder = rndn(2);
        int n = gen_common(common, 1 + rndn(600), 1 + rndn(10), rndn(2), rndn(2));
        for (int r = 0; r < tc.P; r++) {
            tc.r[r].n = n;
            memcpy(tc.r[r].s, common, (size_t)n * sizeof *common);
        }
        if (it % quick) /* the fast tier: every quick-th of the same cases */
            continue;
        result got = run_case(&tc);
        assert_int_equal(got.len, (uint64_t)n);
        assert_int_equal(got.not_all, 0);
    }
}

/* Long stretches with no collective where ranks differ a lot: aligned
 * whole while that fits (bit vectors), else a window of calls at a time
 * (200,000 calls on 2-3 ranks, a share unmatched: too big for either).
 * Exact round trip; whole, never longer than the construction (one rank
 * keeps every common call, the others skip and repeat common ones); by
 * windows, which cannot see ahead, within 5 % of it. */
static void test_windowed(void **state)
{
    (void)state;
    for (int it = 0; it < 6; it++) {
        memset(&tc, 0, sizeof tc);
        tc.P = 2 + rndn(2);
        tc.no_reorder = 1;
        tc.window = it % 2 ? 64 : 8 + rndn(200);
        int big = it >= 4;
        int n = gen_common(common, big ? 200000 : 30000, 1 + rndn(3), 0, 0);
        memset(used, 0, (size_t)n);
        int ins = 0;
        for (int r = 0; r < tc.P; r++) {
            derivation d = {.keep = r == 0, .del_pm = 30, .ins_pct = 3, .ins_common = 1};
            ins += derive(&tc.r[r], common, n, r, &d, used);
        }
        if ((big || it >= 2) && quick >= 16) /* the sanitizer pass: one case a window size, none of 200,000 calls */
            continue;
        result got = run_case(&tc);
        uint64_t bound = (uint64_t)(n + ins);
        if (verbose)
            fprintf(stderr, "windowed: merged %llu, construction %llu\n", (unsigned long long)got.len,
                    (unsigned long long)bound);
        assert_true(got.len <= (big ? bound + bound / 20 : bound));
    }
}

/* The aligner alone (merge_lcs.c), both of its ways (DP layers counting
 * unmatched calls, bit vectors) and the automatic choice, against the
 * quadratic LCS table: as many matches, each a matching pair, in order,
 * inside the range; keys with PROC_NULL matching their loose key. */
static void test_lcs_against_table(void **state)
{
    (void)state;
    enum { NK = 12, NL = 6 };
    /* keys 0-5: real peers of loose keys 0-5; 6-11: PROC_NULL ones */
    uint32_t loose[NK];
    uint8_t hasnull[NK];
    for (int k = 0; k < NK; k++) {
        loose[k] = (uint32_t)(k % NL);
        hasnull[k] = k >= NL;
    }
    static uint32_t a[300], b[600];
    static int32_t out[300];
    static uint16_t t[301 * 601];
    for (int it = 0; it < 3000; it++) {
        keymatch km = {.loose = loose, .hasnull = hasnull, .nkeys = NK, .nloose = NL, .anynull = rndn(2)};
        int nk = km.anynull ? NK : NL, alpha = 1 + rndn(nk);
        uint32_t m = (uint32_t)rndn(it % 50 == 0 ? 300 : 60), n = (uint32_t)rndn(it % 50 == 0 ? 600 : 120);
        for (uint32_t i = 0; i < m; i++)
            a[i] = (uint32_t)rndn(alpha);
        for (uint32_t i = 0; i < n; i++)
            b[i] = rndn(4) ? a[rndn(m ? (int)m : 1)] % (uint32_t)alpha : (uint32_t)rndn(alpha);
        uint32_t y0 = n ? (uint32_t)rndn((int)n) / 4 : 0, y1 = n ? y0 + (uint32_t)rndn((int)(n - y0) + 1) : 0;
        if (rndn(2))
            y0 = 0, y1 = n;
        /* the table over b[y0..y1) */
        size_t W = (size_t)(y1 - y0) + 1;
        for (uint32_t i = m + 1; i-- > 0;)
            for (uint32_t j = y1 - y0 + 1; j-- > 0;) {
                uint16_t v = 0;
                if (i < m && j < y1 - y0) {
                    v = t[(i + 1) * W + j] > t[i * W + j + 1] ? t[(i + 1) * W + j] : t[i * W + j + 1];
                    if (keys_match(&km, a[i], b[y0 + j]) && t[(i + 1) * W + j + 1] + 1 > v)
                        v = (uint16_t)(t[(i + 1) * W + j + 1] + 1);
                }
                t[i * W + j] = v;
            }
        lcs_ws *w = lcs_new(&km);
        assert_non_null(w);
        assert_int_equal(lcs_index(w, b, n), 0);
        for (int how = 0; how < 3; how++) {
            lcs_force(w, how);
            assert_int_equal(lcs_align(w, a, m, y0, y1, UINT64_MAX, out), 0);
            int64_t last = (int64_t)y0 - 1;
            uint32_t matched = 0;
            for (uint32_t i = 0; i < m; i++) {
                if (out[i] < 0)
                    continue;
                assert_true(out[i] > last && (uint32_t)out[i] < y1);
                assert_true(keys_match(&km, a[i], b[out[i]]));
                last = out[i];
                matched++;
            }
            assert_int_equal(matched, t[0]);
        }
        /* over budget: refused, never half done */
        if (t[0] > 0) {
            lcs_force(w, (int)(it % 3));
            assert_int_equal(lcs_align(w, a, m, y0, y1, 1, out), 1);
        }
        lcs_free(w);
    }
}

int main(void)
{
    verbose = getenv("VERBOSE") ? atoi(getenv("VERBOSE")) : 0;
    quick = getenv("PSK_TEST_QUICK") && atoi(getenv("PSK_TEST_QUICK")) > 1 ? atoi(getenv("PSK_TEST_QUICK")) : 1;
    if (getenv("SEED"))
        rng_state = strtoull(getenv("SEED"), NULL, 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lcs_against_table), cmocka_unit_test(test_edges_optimal),
        cmocka_unit_test(test_few_deletions),
        cmocka_unit_test(test_against_oracle), cmocka_unit_test(test_proc_null),
        cmocka_unit_test(test_agreeing),      cmocka_unit_test(test_windowed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
