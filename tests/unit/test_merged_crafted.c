/* Merged files crafted as an attacker would, with valid checksums: a good
 * file is written from a synthetic trace, one section's payload is
 * rewritten and its CRC-32 recomputed, and psk_merged_read must refuse it
 * with a message naming the file (not accept it, not crash: the ASan run
 * of the unit tests watches). Cases: event lengths whose sum wraps around
 * to the pool's size; a rank's call order that is not a permutation; more
 * events than the section has bytes; a rank-set delta that wraps to a
 * negative rank; a rank whose order is "the same as an earlier rank's"
 * with no earlier rank; threads whose runs do not cover the rank's events,
 * a run of none, a thread numbered past the rank's events; a rank's
 * section counting more events than the events name it in. The unmodified
 * file reads back. And a trace whose ranks called from several threads
 * (format 4) merges in memory and streaming into the same bytes, which
 * keep each call's thread (expanded back, counted per rank). And a
 * communicator's member list rewritten: the cursor refuses it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "perfskel/merge.h"
#include "psk_varint.h"
#include "merged_plain.h"
#include "synth_trace.h"

#define NRANKS 2
#define NEV 50

enum { T_PSET = 0x54455350, T_EVNT = 0x544e5645, T_RANK = 0x4b4e4152 };

typedef struct file {
    uint8_t *p;
    size_t n;
} file;

static file slurp(const char *path)
{
    file f = {0};
    FILE *in = fopen(path, "rb");
    assert_non_null(in);
    fseek(in, 0, SEEK_END);
    f.n = (size_t)ftell(in);
    fseek(in, 0, SEEK_SET);
    f.p = malloc(f.n);
    assert_non_null(f.p);
    assert_int_equal(fread(f.p, 1, f.n, in), f.n);
    fclose(in);
    assert_int_equal(merged_plain(&f.p, &f.n), 0); /* every payload stored: edited in place */
    return f;
}

/* the offset of the first section tagged tag (after the 9-byte magic and
 * version), its payload at +12 */
static size_t find_section(const file *f, uint32_t tag)
{
    for (size_t at = 9; at + 12 <= f->n;) {
        uint64_t len = le_get(f->p + at + 4, 8);
        if ((uint32_t)le_get(f->p + at, 4) == tag)
            return at;
        at += 12 + len + 4;
    }
    fail_msg("no section %08x", tag);
    return 0;
}

/* the first section tagged tag: its offset; its payload in [*p, *end)
 * (after its coding byte, 0: stored) */
static size_t payload(const file *f, uint32_t tag, const uint8_t **p, const uint8_t **end)
{
    size_t at = find_section(f, tag);
    *p = f->p + at + 13;
    *end = f->p + at + 12 + le_get(f->p + at + 4, 8);
    return at;
}

/* f with section `at`'s payload replaced by pl[0..n) stored (after a
 * coding byte 0), its CRC recomputed, written to path */
static void write_with(const file *f, size_t at, const uint8_t *pl, size_t n, const char *path)
{
    uint64_t old = le_get(f->p + at + 4, 8);
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    uint8_t h[13], c[4];
    memcpy(h, f->p + at, 4);
    le_put(h + 4, n + 1, 8);
    h[12] = 0;
    le_put(c, crc32(crc32(crc32(0L, Z_NULL, 0), h + 12, 1), pl, (uInt)n), 4);
    fwrite(f->p, 1, at, out);
    fwrite(h, 1, 13, out);
    fwrite(pl, 1, n, out);
    fwrite(c, 1, 4, out);
    size_t rest = at + 12 + old + 4;
    fwrite(f->p + rest, 1, f->n - rest, out);
    fclose(out);
}

/* psk_merged_read refuses path with a message naming it and holding want */
static void refused(const char *path, const char *want)
{
    psk_merged *m = NULL;
    int st = psk_merged_read(path, &m);
    if (st == PSK_OK)
        fail_msg("%s: accepted (want an error saying '%s')", path, want);
    const char *msg = psk_merged_errmsg(m);
    if (!msg || !strstr(msg, path) || !strstr(msg, want))
        fail_msg("%s: message '%s' (want the file and '%s')", path, msg ? msg : "(none)", want);
    psk_merged_close(m);
}

/* the trace in dir merged and written to path */
static void merge_to(const char *dir, const char *path)
{
    psk_trace *t;
    assert_int_equal(psk_trace_open(dir, &t), PSK_OK);
    psk_merge_opts o = {.window = 64};
    psk_merged *m;
    if (psk_merge(t, &o, &m))
        fail_msg("merge: %s", psk_merged_errmsg(m));
    assert_int_equal(psk_merged_write(m, path), PSK_OK);
    psk_merged_close(m);
    psk_trace_close(t);
}

/* a 2-rank trace of NEV sends and receives in format version (4: rank 1's
 * calls from threads 0, 1, 2 in turn, 3 - 1 - 2 ... after the first),
 * merged and written to path */
static void trace_file(const char *dir, const char *path, int version)
{
    synth_job(dir, 91, NRANKS, version);
    for (int r = 0; r < NRANKS; r++) {
        synth_rank *s = synth_rank_open_flags(dir, r, NRANKS, 91, version, 0, version >= 4);
        uint64_t clock = 1000;
        for (int i = 0; i < NEV; i++) {
            psk_event e = {0};
            e.fn = psk_fn_lookup((i + r) % 2 ? "MPI_Send" : "MPI_Recv");
            e.fields = psk_fn_fields(e.fn);
            e.v[PSK_F_PEER] = 1 - r;
            e.v[PSK_F_TAG] = i % 3;
            e.v[PSK_F_COUNT] = 8;
            e.v[PSK_F_DTSIZE] = 1;
            e.v[PSK_F_COMM] = 0;
            e.t_entry = clock += 100;
            e.t_exit = clock += 50;
            e.thread = version >= 4 && r == 1 ? i % 3 : 0;
            synth_event(s, &e);
        }
        synth_end(s, NEV);
    }
    merge_to(dir, path);
}

static void good_file(const char *dir, const char *path) { trace_file(dir, path, 1); }

static int thread_of(void *arg, const psk_event *ev)
{
    int *at = arg;
    if (ev->thread != (at[0] == 1 ? (int)(at[1] % 3) : 0))
        fail_msg("rank %d, event %d: thread %d", at[0], at[1], ev->thread);
    at[1]++;
    return 0;
}

static void test_threads(void **state)
{
    (void)state;
    char *d = synth_tempdir();
    char mem[4096], str[4096];
    snprintf(mem, sizeof mem, "%s/mem.pskm", d);
    snprintf(str, sizeof str, "%s/stream.pskm", d);
    trace_file(d, mem, 4);
    psk_trace *t;
    assert_int_equal(psk_trace_open(d, &t), PSK_OK);
    psk_merge_opts o = {.window = 64};
    psk_merge_result res;
    if (psk_merge_file(t, &o, str, &res))
        fail_msg("merge: %s", res.err);
    psk_trace_close(t);
    file a = slurp(mem), b = slurp(str);
    assert_int_equal(a.n, b.n);
    assert_memory_equal(a.p, b.p, a.n);
    psk_merged *m;
    assert_int_equal(psk_merged_read(str, &m), PSK_OK);
    assert_int_equal(psk_merged_rank_threads(m, 0), 1);
    assert_int_equal(psk_merged_rank_threads(m, 1), 3);
    for (int r = 0; r < NRANKS; r++) {
        int at[2] = {r, 0};
        assert_int_equal(psk_merged_expand(m, r, thread_of, at), PSK_OK);
        assert_int_equal(at[1], NEV);
    }
    psk_merged_close(m);
    free(a.p);
    free(b.p);
    synth_rmdir(d);
    free(d);
}

static void test_crafted(void **state)
{
    (void)state;
    char *d = synth_tempdir();
    char good[4096], bad[4096];
    snprintf(good, sizeof good, "%s/good.pskm", d);
    snprintf(bad, sizeof bad, "%s/bad.pskm", d);
    good_file(d, good);
    file f = slurp(good);
    psk_merged *m;
    assert_int_equal(psk_merged_read(good, &m), PSK_OK);
    psk_merged_close(m);

    /* the events: n, then (class, length) each; the first two lengths
     * grown by 2^63 each, so that their sum wraps to the pool's size */
    const uint8_t *p, *end;
    size_t at = payload(&f, T_EVNT, &p, &end);
    uint64_t n = 0, v = 0;
    assert_int_equal(psk_get_uvar(&p, end, &n), 0);
    assert_true(n >= 2);
    uint8_t *pl = malloc((size_t)(end - p) + 64), *q = pl;
    q = psk_put_uvar(q, n);
    for (uint64_t i = 0; i < n; i++) {
        assert_int_equal(psk_get_uvar(&p, end, &v), 0);
        q = psk_put_uvar(q, v);
        assert_int_equal(psk_get_uvar(&p, end, &v), 0);
        q = psk_put_uvar(q, i < 2 ? v + (1ull << 63) : v);
    }
    write_with(&f, at, pl, (size_t)(q - pl), bad);
    refused(bad, "");

    /* more events than the section could hold */
    q = pl;
    q = psk_put_uvar(q, 1ull << 40);
    q = psk_put_uvar(q, 0);
    q = psk_put_uvar(q, 1);
    write_with(&f, at, pl, (size_t)(q - pl), bad);
    refused(bad, "");
    free(pl);

    /* the rank sets: n, then each its length and its ranks as deltas; the
     * second delta of the first set of two ranks made 2^64 - 1, which wraps
     * to a rank below the one before it (a negative rank, an index) */
    at = payload(&f, T_PSET, &p, &end);
    pl = malloc((size_t)(end - p) + 64);
    q = pl;
    assert_int_equal(psk_get_uvar(&p, end, &n), 0);
    q = psk_put_uvar(q, n);
    int done = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t len = 0;
        assert_int_equal(psk_get_uvar(&p, end, &len), 0);
        q = psk_put_uvar(q, len);
        for (uint64_t j = 0; j < len; j++) {
            assert_int_equal(psk_get_uvar(&p, end, &v), 0);
            q = psk_put_uvar(q, !done && j == 1 ? UINT64_MAX : v);
        }
        done |= len > 1;
    }
    assert_true(done); /* a set of both ranks */
    write_with(&f, at, pl, (size_t)(q - pl), bad);
    refused(bad, "");
    free(pl);

    /* rank 0's section: r, n, mono_start, times (length and bytes), then
     * whether its own order follows; rewritten with an order in which
     * position 0 comes twice (deltas 0, -1, 0, ...) */
    at = payload(&f, T_RANK, &p, &end);
    uint64_t r = 0, cnt = 0, mono = 0, tlen = 0;
    assert_int_equal(psk_get_uvar(&p, end, &r), 0);
    assert_int_equal(psk_get_uvar(&p, end, &cnt), 0);
    assert_int_equal(psk_get_uvar(&p, end, &mono), 0);
    assert_int_equal(psk_get_uvar(&p, end, &tlen), 0);
    assert_true(cnt >= 2 && tlen <= (uint64_t)(end - p));
    pl = malloc(64 + tlen + cnt * PSK_VARINT_MAX);
    q = pl;
    q = psk_put_uvar(q, r);
    q = psk_put_uvar(q, cnt);
    q = psk_put_uvar(q, mono);
    q = psk_put_uvar(q, tlen);
    memcpy(q, p, tlen);
    q += tlen;
    uint8_t *flag = q; /* where the order's flag goes */
    q = psk_put_uvar(q, 1);
    for (uint64_t k = 0; k < cnt; k++)
        q = psk_put_svar(q, k == 1 ? -1 : 0);
    write_with(&f, at, pl, (size_t)(q - pl), bad);
    refused(bad, "rank 0's call order is not a permutation");
    /* and an order that leaves the rank's events (delta past the end) */
    q -= cnt; /* the deltas all took one byte */
    for (uint64_t k = 0; k < cnt; k++)
        q = psk_put_svar(q, k == 0 ? (int64_t)INT64_MAX / 2 : 0);
    write_with(&f, at, pl, (size_t)(q - pl), bad);
    refused(bad, "rank 0's call order is not a permutation");
    /* rank 0's order "the same as the rank 1 before it" (there is none) */
    q = psk_put_uvar(flag, 2);
    q = psk_put_uvar(q, 1);
    write_with(&f, at, pl, (size_t)(q - pl), bad);
    refused(bad, "malformed");
    /* its own order again (none), then its threads as runs (length,
     * thread): one short of its events; a run of none; a thread numbered
     * as high as its events */
    const uint64_t runs[3][4] = {{2, cnt - 2, 0, 1}, {2, cnt, 0, 0}, {1, cnt, cnt, 0}};
    const char *why[3] = {"rank 0's threads cover", "rank 0's threads are malformed",
                          "rank 0's threads are malformed"};
    for (int k = 0; k < 3; k++) {
        q = psk_put_uvar(flag, 0);
        q = psk_put_uvar(q, runs[k][0]);
        for (uint64_t j = 0; j < 2 * runs[k][0]; j++)
            q = psk_put_uvar(q, j == 0 ? runs[k][1] : j == 1 ? runs[k][2] : runs[k][3]);
        write_with(&f, at, pl, (size_t)(q - pl), bad);
        refused(bad, why[k]);
    }
    /* a section that counts one event more than the events name the rank
     * in (its times, order and threads as they were) */
    q = pl;
    q = psk_put_uvar(q, r);
    q = psk_put_uvar(q, cnt + 1);
    q = psk_put_uvar(q, mono);
    q = psk_put_uvar(q, tlen);
    memcpy(q, p, tlen);
    q += tlen;
    q = psk_put_uvar(q, 0);
    q = psk_put_uvar(q, 0);
    write_with(&f, at, pl, (size_t)(q - pl), bad);
    char want[96];
    snprintf(want, sizeof want, "rank 0's section counts %llu events, the events name it in %llu",
             (unsigned long long)cnt + 1, (unsigned long long)cnt);
    refused(bad, want);
    free(pl);

    free(f.p);
    synth_rmdir(d);
    free(d);
}

/* A communicator made by both ranks (MPI_Comm_dup, members {0, 1}), its
 * member list then rewritten in the merged file: {0, 0} leaves out rank 1,
 * which made it, {0, 2} names a rank the job has not; the cursor refuses
 * each (sim indexed the list by its maker: a heap overflow before) */
static void test_members(void **state)
{
    (void)state;
    char *d = synth_tempdir();
    char good[4096], bad[4096];
    snprintf(good, sizeof good, "%s/good.pskm", d);
    snprintf(bad, sizeof bad, "%s/bad.pskm", d);
    synth_job(d, 92, NRANKS, 1);
    int64_t mem[2] = {0, 1};
    for (int r = 0; r < NRANKS; r++) {
        synth_rank *s = synth_rank_open(d, r, NRANKS, 92, 1, 0);
        psk_event e = {0};
        e.fn = psk_fn_lookup("MPI_Comm_dup");
        e.fields = psk_fn_fields(e.fn);
        e.v[PSK_F_COMM] = 0, e.v[PSK_F_NEWID] = 2;
        PSK_ARRN(&e, PSK_F_MEMBERS) = 2, PSK_ARR(&e, PSK_F_MEMBERS) = mem;
        e.t_entry = 100, e.t_exit = 200;
        synth_event(s, &e);
        synth_end(s, 1);
    }
    merge_to(d, good);
    file f = slurp(good);
    /* the list as the merge writes it: one for both ranks (0), two
     * members, zigzag 0 and 1; once in the whole file */
    static const uint8_t list[4] = {PSK_PAT_CONST, 2, 0, 2};
    size_t hit = 0, nhit = 0;
    for (size_t i = 0; i + 4 <= f.n; i++)
        if (!memcmp(f.p + i, list, 4))
            hit = i, nhit++;
    assert_int_equal(nhit, 1);
    size_t at = 9; /* its section */
    while (at + 12 + le_get(f.p + at + 4, 8) + 4 <= hit)
        at += 12 + le_get(f.p + at + 4, 8) + 4;
    const uint8_t *p = f.p + at + 13; /* after the coding byte */
    size_t len = (size_t)le_get(f.p + at + 4, 8) - 1;
    uint8_t *pl = malloc(len);
    static const struct {
        uint8_t last;
        const char *want;
    } cases[] = {{0, "rank 1's new communicator leaves it out"}, {4, "member 2 is not a rank of the job"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        memcpy(pl, p, len);
        pl[hit + 3 - (at + 13)] = cases[k].last;
        write_with(&f, at, pl, len, bad);
        for (int pass = 0; pass < 2; pass++) { /* the good file reads to its end; the bad one fails */
            psk_merged *x;
            assert_int_equal(psk_merged_read(pass ? bad : good, &x), PSK_OK);
            psk_mcursor *c;
            assert_int_equal(psk_mcursor_open(x, &c), PSK_OK);
            psk_mevent me;
            int st;
            while ((st = psk_mcursor_next(c, &me)) == PSK_OK)
                ;
            psk_mcursor_close(c);
            if (!pass)
                assert_int_equal(st, PSK_EOF);
            else if (st != PSK_EFORMAT || !strstr(psk_merged_errmsg(x), cases[k].want))
                fail_msg("status %d, '%s' (want '%s')", st, psk_merged_errmsg(x), cases[k].want);
            psk_merged_close(x);
        }
    }
    free(pl);
    free(f.p);
    synth_rmdir(d);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_crafted), cmocka_unit_test(test_threads),
                                       cmocka_unit_test(test_members)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
