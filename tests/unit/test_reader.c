/* Unit tests of the trace reader (trace_reader.c) on synthetic traces:
 * every event read back exactly; a file cut at every byte offset yields
 * the events of its complete blocks and then "truncated"; a bit flipped
 * anywhere yields an error and never a damaged event; wrong versions,
 * ranks of other jobs, missing and extra files are named in the error;
 * version 2's arms read back, and a wrong arm refused; version 4's
 * threads read back, and a thread numbered out of order refused; a reader released
 * anywhere (psk_rank_release) reads on to the same events, and a pool of
 * readers keeps no more files open than its cap; a trace opened from
 * job.json's text reads its rank files through a source, checked when
 * each opens. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "perfskel/tune.h"
#include "synth_trace.h"

#define NEV 240
#define PER_BLOCK 16
#define JOB 0xfeedface12345678ull

typedef struct fixture {
    char *dir;
    psk_event ev[NEV];
    synth_store st[NEV];
    size_t block_end[NEV / PER_BLOCK + 2]; /* file offset after each events block */
    int nblocks;
    unsigned char *file; /* rank 0's bytes */
    size_t size;
} fixture;

static char *path_of(const char *dir, const char *name)
{
    char *p;
    if (asprintf(&p, "%s/%s", dir, name) < 0)
        abort();
    return p;
}

static size_t file_size(const char *path)
{
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    return (size_t)sb.st_size;
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* rank 0: NEV random events in blocks of PER_BLOCK, then END;
 * rank 1: no events, END */
static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    fx->dir = synth_tempdir();
    synth_job(fx->dir, JOB, 2, 3);
    uint64_t rng = 0x9e3779b97f4a7c15ull, clock = 5000000000ull;
    synth_rank *s = synth_rank_open(fx->dir, 0, 2, JOB, 3, clock);
    char *p0 = path_of(fx->dir, "rank-000000.psk");
    for (int i = 0; i < NEV; i++) {
        synth_random_event(&rng, &clock, &fx->ev[i], &fx->st[i]);
        synth_event(s, &fx->ev[i]);
        if ((i + 1) % PER_BLOCK == 0)
            synth_flush(s);
    }
    synth_end(s, NEV);
    synth_end(synth_rank_open(fx->dir, 1, 2, JOB, 3, 42), 0);
    /* find the block boundaries by walking the headers */
    fx->size = file_size(p0);
    fx->file = malloc(fx->size);
    FILE *f = fopen(p0, "rb");
    assert_int_equal(fread(fx->file, 1, fx->size, f), fx->size);
    fclose(f);
    size_t off = 64;
    fx->nblocks = 0;
    while (off < fx->size) {
        uint32_t len = (uint32_t)fx->file[off + 8] | (uint32_t)fx->file[off + 9] << 8 |
                       (uint32_t)fx->file[off + 10] << 16 | (uint32_t)fx->file[off + 11] << 24;
        off += 32 + len;
        fx->block_end[fx->nblocks++] = off;
    }
    assert_int_equal(off, fx->size);
    assert_int_equal(fx->nblocks, NEV / PER_BLOCK + 1); /* + END */
    free(p0);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    synth_rmdir(fx->dir);
    free(fx->dir);
    free(fx->file);
    free(fx);
    return 0;
}

/* reads rank `rank` of dir; returns the final status, counts the events,
 * and checks each against want[] */
static int read_rank(const char *dir, int rank, const psk_event *want, int nwant,
                     int *nread, char *msg, size_t msgcap)
{
    psk_trace *t;
    int rc = psk_trace_open(dir, &t);
    *nread = 0;
    if (rc) {
        snprintf(msg, msgcap, "%s", psk_trace_errmsg(t));
        psk_trace_close(t);
        return rc;
    }
    psk_rank_reader *r;
    rc = psk_rank_open(t, rank, &r);
    psk_event ev;
    while (rc == PSK_OK && (rc = psk_rank_next(r, &ev)) == PSK_OK) {
        if (*nread >= nwant || !synth_event_equal(&ev, &want[*nread]))
            fail_msg("event %d differs from what was written", *nread);
        (*nread)++;
    }
    assert_int_equal(psk_rank_events_read(r), (uint64_t)*nread);
    /* errors are sticky */
    if (rc != PSK_EOF)
        assert_int_equal(psk_rank_next(r, &ev), rc);
    snprintf(msg, msgcap, "%s", psk_rank_errmsg(r));
    psk_rank_close(r);
    psk_trace_close(t);
    return rc;
}

static void test_roundtrip(void **state)
{
    fixture *fx = *state;
    char msg[8192];
    int n;
    assert_int_equal(read_rank(fx->dir, 0, fx->ev, NEV, &n, msg, sizeof msg), PSK_EOF);
    assert_int_equal(n, NEV);
    assert_int_equal(read_rank(fx->dir, 1, NULL, 0, &n, msg, sizeof msg), PSK_EOF);
    assert_int_equal(n, 0);

    psk_trace *t;
    assert_int_equal(psk_trace_open(fx->dir, &t), PSK_OK);
    const psk_job *j = psk_trace_job(t);
    assert_int_equal(j->nranks, 2);
    assert_true(j->job_id == JOB);
    assert_int_equal(j->flavour, PSK_MPI_MPICH);
    assert_string_equal(j->hosts[1], "host1");
    assert_true(j->clock_offsets_ns[1] == -1000);
    assert_int_equal(j->clock_read_ns, 15);
    assert_string_equal(j->command, "mpirun -np 2 ./synth");
    psk_rank_reader *r;
    assert_int_equal(psk_rank_open(t, 2, &r), PSK_EINVAL);
    psk_rank_close(r);
    assert_int_equal(psk_rank_open(t, 1, &r), PSK_OK);
    assert_int_equal(psk_rank_mono_start(r), 42);
    psk_rank_close(r);
    psk_trace_close(t);
}

/* the rank file cut at every length */
static void test_truncated_everywhere(void **state)
{
    fixture *fx = *state;
    char *p0 = path_of(fx->dir, "rank-000000.psk"), msg[8192];
    for (size_t len = 0; len <= fx->size; len++) {
        write_file(p0, fx->file, len);
        int n;
        int rc = read_rank(fx->dir, 0, fx->ev, NEV, &n, msg, sizeof msg);
        if (len == fx->size) {
            assert_int_equal(rc, PSK_EOF);
            assert_int_equal(n, NEV);
            continue;
        }
        if (len < 64) {
            /* header incomplete: the trace does not open (bad magic if cut inside it) */
            assert_true(rc == PSK_ETRUNCATED || (len < 8 && rc == PSK_EFORMAT));
        } else {
            int complete = 0;
            while (complete < fx->nblocks && fx->block_end[complete] <= len)
                complete++;
            int expect = complete * PER_BLOCK > NEV ? NEV : complete * PER_BLOCK;
            if (rc != PSK_ETRUNCATED || n != expect)
                fail_msg("cut at %zu of %zu bytes: status %d, %d events (expected %d): %s",
                         len, fx->size, rc, n, expect, msg);
            assert_non_null(strstr(msg, "did not reach MPI_Finalize"));
        }
        assert_non_null(strstr(msg, "rank-000000.psk"));
        assert_null(strchr(msg, '\n'));
    }
    write_file(p0, fx->file, fx->size);
    free(p0);
}

/* one bit flipped at every byte after the file header */
static void test_corrupt_everywhere(void **state)
{
    fixture *fx = *state;
    char *p0 = path_of(fx->dir, "rank-000000.psk"), msg[8192];
    unsigned char *copy = malloc(fx->size);
    for (size_t i = 0; i < fx->size; i++) {
        memcpy(copy, fx->file, fx->size);
        copy[i] ^= (unsigned char)(1u << (i % 8));
        write_file(p0, copy, fx->size);
        int n;
        /* read_rank fails the test if a damaged event comes back */
        int rc = read_rank(fx->dir, 0, fx->ev, NEV, &n, msg, sizeof msg);
        if (rc == PSK_EOF || rc == PSK_OK)
            fail_msg("bit flipped at byte %zu not detected", i);
        if (i >= 64) {
            /* nothing after the damaged block's start is returned */
            int blk = 0;
            while (fx->block_end[blk] <= i)
                blk++;
            assert_true(n <= blk * PER_BLOCK);
        }
        assert_non_null(strstr(msg, "rank-000000.psk"));
    }
    write_file(p0, fx->file, fx->size);
    free(copy);
    free(p0);
}

static void expect_open_error(const char *dir, int want, const char *name, const char *phrase)
{
    psk_trace *t;
    int rc = psk_trace_open(dir, &t);
    const char *msg = psk_trace_errmsg(t);
    if (rc != want || !strstr(msg, name) || (phrase && !strstr(msg, phrase)))
        fail_msg("status %d (want %d): %s", rc, want, msg);
    psk_trace_close(t);
}

static void test_versions(void **state)
{
    fixture *fx = *state;
    char *d = synth_tempdir();
    synth_job(d, JOB, 1, 2);
    synth_end(synth_rank_open(d, 0, 1, JOB, 1, 0), 0);
    synth_job(d, JOB, 1, 5);
    expect_open_error(d, PSK_EVERSION, "job.json", "version 5");
    synth_job(d, JOB, 1, 1);
    synth_end(synth_rank_open(d, 0, 1, JOB, 5, 0), 0);
    expect_open_error(d, PSK_EVERSION, "rank-000000.psk", "version 5");
    /* header flags: only version 4's threads, and only from version 4 */
    synth_job(d, JOB, 1, 4);
    synth_end(synth_rank_open_flags(d, 0, 1, JOB, 4, 0, 2), 0);
    expect_open_error(d, PSK_EFORMAT, "rank-000000.psk", "flags 0x2");
    synth_job(d, JOB, 1, 3);
    synth_end(synth_rank_open_flags(d, 0, 1, JOB, 3, 0, 1), 0);
    expect_open_error(d, PSK_EFORMAT, "rank-000000.psk", "format version 3");
    synth_rmdir(d);
    free(d);
    (void)fx;
}

static void test_mixed_and_missing(void **state)
{
    (void)state;
    char *d = synth_tempdir();
    /* a rank file of another job */
    synth_job(d, JOB, 2, 1);
    synth_end(synth_rank_open(d, 0, 2, JOB, 1, 0), 0);
    synth_end(synth_rank_open(d, 1, 2, JOB + 1, 1, 0), 0);
    expect_open_error(d, PSK_EMISMATCH, "rank-000001.psk", "different runs");
    /* rank 1 missing */
    char *p1 = path_of(d, "rank-000001.psk");
    unlink(p1);
    expect_open_error(d, PSK_ENOTFOUND, "rank-000001.psk", "missing");
    /* a third rank left by a bigger earlier run */
    synth_end(synth_rank_open(d, 1, 2, JOB, 1, 0), 0);
    synth_end(synth_rank_open(d, 2, 3, JOB + 5, 1, 0), 0);
    expect_open_error(d, PSK_EMISMATCH, "rank-000002.psk", "different runs");
    char *p2 = path_of(d, "rank-000002.psk");
    unlink(p2);
    /* rank 1's file claims to be rank 0 */
    synth_end(synth_rank_open(d, 0, 2, JOB, 1, 0), 0);
    {
        char *p0 = path_of(d, "rank-000000.psk");
        rename(p0, p1);
        synth_end(synth_rank_open(d, 0, 2, JOB, 1, 0), 0);
        free(p0);
    }
    expect_open_error(d, PSK_EMISMATCH, "rank-000001.psk", "expected rank 1");
    /* an empty rank file */
    write_file(p1, "", 0);
    expect_open_error(d, PSK_ETRUNCATED, "rank-000001.psk", "empty");
    /* job.json damaged or absent */
    char *pj = path_of(d, "job.json");
    write_file(pj, "{\"format\": ", 11);
    expect_open_error(d, PSK_EFORMAT, "job.json", "not valid JSON");
    write_file(pj, "{\"format\": \"other\"}", 19);
    expect_open_error(d, PSK_EFORMAT, "job.json", "not a perfskel");
    unlink(pj);
    expect_open_error(d, PSK_ENOTFOUND, "job.json", "not a perfskel trace directory");
    synth_rmdir(d);
    expect_open_error(d, PSK_ENOTFOUND, d, "no such trace directory");
    free(pj);
    free(p1);
    free(p2);
    free(d);
}

/* ids the recorder cannot have written (it gives the lowest free one, so
 * the k-th event's is below k; readers allow 65,536 more) and members
 * outside the job: refused with the file, the event and the field */
static void test_ids_out_of_range(void **state)
{
    (void)state;
    static const struct {
        const char *fn;
        int field;
        int64_t v;
        const char *want;
    } cases[] = {
        {"MPI_Isend", PSK_F_REQ, (int64_t)1 << 24, "req 16777216 out of range"},
        {"MPI_Isend", PSK_F_REQ, -4, "req -4 out of range"},
        {"MPI_Send", PSK_F_COMM, (int64_t)1 << 40, "comm 1099511627776 out of range"},
        {"MPI_Waitsome", PSK_F_REQS, (int64_t)1 << 24, "request id 16777216 out of range"},
        {"MPI_Comm_group", PSK_F_MEMBERS, 2, "member 2 of a 2-rank job"},
        {"MPI_Comm_group", PSK_F_MEMBERS, -1, "member -1 of a 2-rank job"},
        /* a communicator made without its maker among its members (later
         * stages index the list by it: a heap overflow in sim before) */
        {"MPI_Comm_split", PSK_F_MEMBERS, 1, "communicator 0's 1 member(s) leave out rank 0"},
        {"MPI_Comm_dup", PSK_F_MEMBERS, INT64_MIN, "communicator 0's 0 member(s) leave out rank 0"},
    };
    /* and what the recorder writes: MPI_GROUP_EMPTY's -3 (random seed
     * 4480's MPI_Group_incl of no ranks), none (-1), not recorded (-2) */
    static const struct {
        const char *fn;
        int field;
        int64_t v;
    } good[] = {{"MPI_Group_incl", PSK_F_NEWID, -3}, {"MPI_Group_incl", PSK_F_GROUP, -3},
                {"MPI_Isend", PSK_F_REQ, -2},      {"MPI_Comm_dup", PSK_F_NEWID, -1},
                /* a group may leave out its maker, or be empty; MPI_COMM_NULL is */
                {"MPI_Group_incl", PSK_F_NEWID, 5}, {"MPI_Comm_split", PSK_F_NEWID, -1}};
    for (size_t c = 0; c < sizeof good / sizeof good[0]; c++) {
        char *d = synth_tempdir(), msg[8192];
        synth_job(d, JOB, 1, 1);
        psk_event ev = {0};
        ev.fn = psk_fn_lookup(good[c].fn);
        ev.fields = psk_fn_fields(ev.fn);
        assert_true(ev.fields >> good[c].field & 1u);
        ev.v[good[c].field] = good[c].v;
        ev.t_entry = 100, ev.t_exit = 200;
        synth_rank *s = synth_rank_open(d, 0, 1, JOB, 1, 0);
        synth_event(s, &ev);
        synth_end(s, 1);
        int n;
        if (read_rank(d, 0, &ev, 1, &n, msg, sizeof msg) != PSK_EOF)
            fail_msg("%s %s %lld refused: %s", good[c].fn, psk_field_name(good[c].field), (long long)good[c].v, msg);
        synth_rmdir(d);
        free(d);
    }
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *d = synth_tempdir(), msg[8192];
        synth_job(d, JOB, 2, 1);
        psk_event ev = {0};
        int64_t arr[1] = {cases[c].v};
        ev.fn = psk_fn_lookup(cases[c].fn);
        ev.fields = psk_fn_fields(ev.fn);
        assert_true(ev.fields >> cases[c].field & 1u);
        ev.t_entry = 100, ev.t_exit = 200;
        if (cases[c].field < PSK_F_FIRST_ARRAY) {
            ev.v[cases[c].field] = cases[c].v;
        } else {
            ev.n[cases[c].field - PSK_F_FIRST_ARRAY] = cases[c].v == INT64_MIN ? 0 : 1; /* MIN: none */
            ev.arr[cases[c].field - PSK_F_FIRST_ARRAY] = arr;
        }
        for (int r = 0; r < 2; r++) {
            synth_rank *s = synth_rank_open(d, r, 2, JOB, 1, 0);
            if (r == 0)
                synth_event(s, &ev);
            synth_end(s, r == 0);
        }
        int n;
        assert_int_equal(read_rank(d, 0, NULL, 0, &n, msg, sizeof msg), PSK_EFORMAT);
        if (!strstr(msg, "rank-000000.psk: event 0 (") || !strstr(msg, cases[c].want))
            fail_msg("%s: '%s', want '%s'", cases[c].fn, msg, cases[c].want);
        synth_rmdir(d);
        free(d);
    }
}

/* blocks that are well-formed but inconsistent; written as version 3, the
 * fixture's, since its random events may carry version 3's fields */
static void test_inconsistent_blocks(void **state)
{
    fixture *fx = *state;
    char *d = synth_tempdir(), *p0 = path_of(d, "rank-000000.psk"), msg[8192];
    int n;
    synth_job(d, JOB, 1, 1);

    /* the END block counts a different number of events */
    synth_rank *s = synth_rank_open(d, 0, 1, JOB, 3, 0);
    for (int i = 0; i < 10; i++)
        synth_event(s, &fx->ev[i]);
    synth_end(s, 11);
    assert_int_equal(read_rank(d, 0, fx->ev, NEV, &n, msg, sizeof msg), PSK_EFORMAT);
    assert_int_equal(n, 10);
    assert_non_null(strstr(msg, "end block counts 11"));

    /* data after the END block */
    s = synth_rank_open(d, 0, 1, JOB, 3, 0);
    synth_end(s, 0);
    FILE *f = fopen(p0, "ab");
    fputc('x', f);
    fclose(f);
    assert_int_equal(read_rank(d, 0, fx->ev, NEV, &n, msg, sizeof msg), PSK_EFORMAT);
    assert_non_null(strstr(msg, "after the end block"));

    /* a block lost from the middle: its successor's sequence number shows it */
    s = synth_rank_open(d, 0, 1, JOB, 3, 0);
    for (int i = 0; i < 30; i++) {
        synth_event(s, &fx->ev[i]);
        if (i % 10 == 9)
            synth_flush(s);
    }
    synth_end(s, 30);
    size_t size = file_size(p0);
    unsigned char *b = malloc(size);
    f = fopen(p0, "rb");
    assert_int_equal(fread(b, 1, size, f), size);
    fclose(f);
    uint32_t len1 = (uint32_t)b[64 + 8] | (uint32_t)b[64 + 9] << 8;
    size_t b2 = 64 + 32 + len1;
    uint32_t len2 = (uint32_t)b[b2 + 8] | (uint32_t)b[b2 + 9] << 8;
    memmove(b + b2, b + b2 + 32 + len2, size - (b2 + 32 + len2));
    write_file(p0, b, size - 32 - len2);
    assert_int_equal(read_rank(d, 0, fx->ev, NEV, &n, msg, sizeof msg), PSK_EFORMAT);
    assert_int_equal(n, 10);
    assert_non_null(strstr(msg, "blocks lost or repeated"));
    free(b);

    /* a block whose time base is not the exit of the event before it */
    s = synth_rank_open(d, 0, 1, JOB, 3, 0);
    for (int i = 0; i < 20; i++) {
        synth_event(s, &fx->ev[i]);
        if (i == 9) {
            synth_flush(s);
            synth_shift_base(s, 1000);
        }
    }
    synth_end(s, 20);
    assert_int_equal(read_rank(d, 0, fx->ev, NEV, &n, msg, sizeof msg), PSK_EFORMAT);
    assert_int_equal(n, 10);
    assert_non_null(strstr(msg, "block 1's time base is"));
    assert_non_null(strstr(msg, "not the exit of the event before it"));

    /* events with a function id that does not exist: one well-formed block */
    s = synth_rank_open(d, 0, 1, JOB, 3, 0);
    psk_event bad = fx->ev[0];
    bad.fn = psk_fn_count() + 3;
    synth_event(s, &fx->ev[0]);
    synth_event(s, &bad);
    synth_end(s, 2);
    assert_int_equal(read_rank(d, 0, fx->ev, NEV, &n, msg, sizeof msg), PSK_EFORMAT);
    assert_int_equal(n, 1);
    assert_non_null(strstr(msg, "undecodable event 1"));

    /* a run of polls is made by merging, never recorded: not in a rank's file */
    s = synth_rank_open(d, 0, 1, JOB, 3, 0);
    bad = (psk_event){.fn = psk_fn_poll(psk_fn_lookup("MPI_Test")), .t_entry = 10, .t_exit = 20};
    bad.fields = psk_fn_fields(bad.fn);
    synth_event(s, &fx->ev[0]);
    synth_event(s, &bad);
    synth_end(s, 2);
    assert_int_equal(read_rank(d, 0, fx->ev, NEV, &n, msg, sizeof msg), PSK_EFORMAT);
    assert_int_equal(n, 1);
    assert_non_null(strstr(msg, "undecodable event 1"));

    synth_rmdir(d);
    free(p0);
    free(d);
}

/* a tuned collective of function fn with arm (0 unknown, 1 + the arm) */
static psk_event coll_event(unsigned fn, int arm, uint64_t *clock)
{
    psk_event ev;
    memset(&ev, 0, sizeof ev);
    ev.fn = fn;
    ev.fields = psk_fn_fields(fn);
    for (int f = 0; f < PSK_F_FIRST_ARRAY; f++)
        if (PSK_HAS(&ev, f))
            ev.v[f] = f == PSK_F_ROOT ? 1 : 3;
    ev.t_entry = *clock += 1000;
    ev.t_exit = *clock += 2500;
    ev.arm = arm;
    return ev;
}

/* version 2: each tuned collective's arm read back; the event bytes for
 * tools that keep events are version 1's (psk_event_encode); the writer
 * writes arms; an arm of another collective or out of range is
 * refused, naming the file and the event */
static void test_arms(void **state)
{
    (void)state;
    unsigned a2a = psk_fn_lookup("MPI_Alltoall"), bc = psk_fn_lookup("MPI_Bcast"),
             ar = psk_fn_lookup("MPI_Allreduce"), ag = psk_fn_lookup("MPI_Allgather"),
             send = psk_fn_lookup("MPI_Send");
    assert_true(psk_fn_tuned(a2a) && psk_fn_tuned(bc) && psk_fn_tuned(ar) && psk_fn_tuned(ag));
    assert_false(psk_fn_tuned(send) || psk_fn_tuned(psk_fn_lookup("MPI_Alltoallv")));
    assert_string_equal(psk_arm_name(1 + PSK_TUNE_ring), "ring");
    assert_string_equal(psk_arm_name(0), "unknown");
    assert_null(psk_arm_name(psk_arm_count()));
    uint64_t clock = 1000000;
    psk_event ev[7] = {
        coll_event(a2a, 1 + PSK_TUNE_ring, &clock),       coll_event(bc, 1 + PSK_TUNE_bc_binomial, &clock),
        coll_event(ar, 0, &clock),                        coll_event(ag, 1 + PSK_TUNE_native, &clock),
        coll_event(send, 0, &clock),                      coll_event(ar, 1 + PSK_TUNE_ar_ring, &clock),
        coll_event(a2a, 1 + PSK_TUNE_native, &clock),
    };
    char msg[8192];
    int n;
    char *d = synth_tempdir();
    synth_job(d, JOB, 1, 2);
    synth_rank *s = synth_rank_open(d, 0, 1, JOB, 2, 1000000);
    for (int i = 0; i < 7; i++)
        synth_event(s, &ev[i]);
    synth_end(s, 7);
    assert_int_equal(read_rank(d, 0, ev, 7, &n, msg, sizeof msg), PSK_EOF);
    assert_int_equal(n, 7);

    /* the bytes for tools that keep events: the event without its arm */
    psk_trace *t;
    psk_rank_reader *r;
    psk_event got;
    assert_int_equal(psk_trace_open(d, &t), PSK_OK);
    assert_int_equal(psk_trace_job(t)->format_version, 2);
    assert_int_equal(psk_rank_open(t, 0, &r), PSK_OK);
    uint64_t prev = 1000000;
    for (int i = 0; i < 7; i++) {
        assert_int_equal(psk_rank_next(r, &got), PSK_OK);
        size_t len;
        const uint8_t *b = psk_rank_event_bytes(r, &len);
        uint8_t want[256];
        size_t wlen = (size_t)(psk_event_encode(want, &ev[i], (int64_t)(ev[i].t_entry - prev)) - want);
        prev = ev[i].t_exit;
        assert_int_equal(len, wlen);
        assert_memory_equal(b, want, len);
    }
    psk_rank_close(r);
    psk_trace_close(t);

    /* the writer, format 2: the same events back; a wrong arm refused */
    char *w = synth_tempdir();
    psk_job job = {.job_id = JOB, .nranks = 1, .flavour = PSK_MPI_MPICH, .format_version = 2};
    uint64_t start = 1000000;
    psk_trace_writer *tw;
    assert_int_equal(psk_writer_open(w, &job, &start, &tw), PSK_OK);
    for (int i = 0; i < 7; i++)
        assert_int_equal(psk_writer_event(tw, 0, &ev[i]), PSK_OK);
    assert_int_equal(psk_writer_close(tw), PSK_OK);
    psk_writer_free(tw);
    assert_int_equal(read_rank(w, 0, ev, 7, &n, msg, sizeof msg), PSK_EOF);
    assert_int_equal(n, 7);
    assert_int_equal(psk_writer_open(w, &job, &start, &tw), PSK_OK);
    psk_event wrong = coll_event(a2a, 1 + PSK_TUNE_ag_ring, &clock);
    assert_int_equal(psk_writer_event(tw, 0, &wrong), PSK_EINVAL);
    if (!strstr(psk_writer_errmsg(tw), "arm 17 is not one of MPI_Alltoall's"))
        fail_msg("%s", psk_writer_errmsg(tw));
    psk_writer_close(tw); /* refused: an error before */
    psk_writer_free(tw);
    synth_rmdir(w);
    free(w);

    /* refused: another collective's arm, past the last arm */
    int bad[2] = {1 + PSK_TUNE_ag_ring, psk_arm_count()};
    for (int k = 0; k < 2; k++) {
        s = synth_rank_open(d, 0, 1, JOB, 2, 1000000);
        synth_event(s, &ev[0]);
        ev[1].fn = a2a, ev[1].fields = psk_fn_fields(a2a), ev[1].arm = bad[k];
        synth_event(s, &ev[1]);
        synth_end(s, 2);
        assert_int_equal(read_rank(d, 0, ev, 7, &n, msg, sizeof msg), PSK_EFORMAT);
        assert_int_equal(n, 1);
        if (!strstr(msg, "rank-000000.psk") || !strstr(msg, "event 1 (MPI_Alltoall): arm"))
            fail_msg("%s", msg);
    }
    /* a version-1 file: the same bytes without the last arm would be read
     * as version 1 has them; with the arm it is one byte too many */
    s = synth_rank_open(d, 0, 1, JOB, 1, 1000000);
    synth_event(s, &ev[0]);
    synth_end(s, 1);
    ev[0].arm = 0; /* version 1 carries none */
    synth_job(d, JOB, 1, 1);
    assert_int_equal(read_rank(d, 0, ev, 1, &n, msg, sizeof msg), PSK_EOF);
    assert_int_equal(n, 1);
    synth_rmdir(d);
    free(d);
}

/* version 3's fields (Cart_create's dims and periods) in a version 1 or 2
 * file: Cart_create without them, read back with them empty, and its
 * bytes for tools that keep events in the latest form; MPI_Dims_create
 * is refused there, read in version 3; the writer drops them for 1 and 2 */
static void test_old_cart(void **state)
{
    (void)state;
    int64_t mem[2] = {0, 1}, dims[2] = {2, 1}, per[2] = {1, 0}, din[2] = {0, 1};
    psk_event cart = {.fn = psk_fn_lookup("MPI_Cart_create"), .t_entry = 2000000, .t_exit = 2000500};
    cart.fields = psk_fn_fields(cart.fn);
    cart.v[PSK_F_COMM] = 0, cart.v[PSK_F_NEWID] = 2, cart.v[PSK_F_I1] = 1;
    PSK_ARRN(&cart, PSK_F_MEMBERS) = 2, PSK_ARR(&cart, PSK_F_MEMBERS) = mem;
    PSK_ARRN(&cart, PSK_F_DIMS) = 2, PSK_ARR(&cart, PSK_F_DIMS) = dims;
    PSK_ARRN(&cart, PSK_F_PERIODS) = 2, PSK_ARR(&cart, PSK_F_PERIODS) = per;
    psk_event dc = {.fn = psk_fn_lookup("MPI_Dims_create"), .t_entry = 1000000, .t_exit = 1000100};
    assert_true(dc.fn && cart.fn);
    dc.fields = psk_fn_fields(dc.fn);
    dc.v[PSK_F_I1] = 2;
    PSK_ARRN(&dc, PSK_F_DIMS) = 2, PSK_ARR(&dc, PSK_F_DIMS) = dims;
    PSK_ARRN(&dc, PSK_F_DIMSIN) = 2, PSK_ARR(&dc, PSK_F_DIMSIN) = din;
    psk_event send = {.fn = psk_fn_lookup("MPI_Send"), .t_entry = 3000000, .t_exit = 3000100};
    send.fields = psk_fn_fields(send.fn);
    send.v[PSK_F_PEER] = 1, send.v[PSK_F_COUNT] = 8, send.v[PSK_F_DTSIZE] = 8;
    char msg[8192];
    int n;
    char *d = synth_tempdir();
    for (int v = 1; v <= 3; v++) {
        synth_job(d, JOB, 2, v);
        synth_rank *s = synth_rank_open(d, 0, 2, JOB, v, 1000);
        synth_event(s, &dc); /* written in any version: refused before 3 */
        synth_event(s, &cart);
        synth_event(s, &send);
        synth_end(s, 3);
        synth_end(synth_rank_open(d, 1, 2, JOB, v, 0), 0);
        psk_event want[3] = {dc, cart, send};
        if (v < 3) {
            assert_int_equal(read_rank(d, 0, want, 3, &n, msg, sizeof msg), PSK_EFORMAT);
            assert_int_equal(n, 0);
            s = synth_rank_open(d, 0, 2, JOB, v, 1000);
            synth_event(s, &cart);
            synth_event(s, &send);
            synth_end(s, 2);
            PSK_ARRN(&want[1], PSK_F_DIMS) = PSK_ARRN(&want[1], PSK_F_PERIODS) = 0;
        }
        int first = v < 3;
        assert_int_equal(read_rank(d, 0, want + first, 3 - first, &n, msg, sizeof msg), PSK_EOF);
        assert_int_equal(n, 3 - first);
        /* the bytes given for tools that keep events: the latest form */
        psk_trace *t;
        psk_rank_reader *r;
        psk_event got;
        assert_int_equal(psk_trace_open(d, &t), PSK_OK);
        assert_int_equal(psk_rank_open(t, 0, &r), PSK_OK);
        uint64_t prev = 1000;
        for (int i = first; i < 3; i++) {
            assert_int_equal(psk_rank_next(r, &got), PSK_OK);
            size_t len;
            const uint8_t *b = psk_rank_event_bytes(r, &len);
            uint8_t w[256];
            size_t wlen = (size_t)(psk_event_encode(w, &want[i], (int64_t)(want[i].t_entry - prev)) - w);
            prev = want[i].t_exit;
            assert_int_equal(len, wlen);
            assert_memory_equal(b, w, len);
        }
        psk_rank_close(r);
        psk_trace_close(t);
    }
    /* the writer: version 1 drops the grid (read back empty) and refuses
     * Dims_create; 0 writes the latest */
    for (int v = 0; v <= 1; v++) {
        char *w = synth_tempdir();
        psk_job job = {.job_id = JOB, .nranks = 2, .flavour = PSK_MPI_MPICH, .format_version = v};
        uint64_t start[2] = {1000, 1000};
        psk_trace_writer *tw;
        assert_int_equal(psk_writer_open(w, &job, start, &tw), PSK_OK);
        assert_int_equal(psk_writer_event(tw, 0, &dc), v ? PSK_EINVAL : PSK_OK);
        if (!v)
            assert_int_equal(psk_writer_event(tw, 0, &cart), PSK_OK);
        psk_writer_free(tw);
        if (v) {
            assert_int_equal(psk_writer_open(w, &job, start, &tw), PSK_OK);
            assert_int_equal(psk_writer_event(tw, 0, &cart), PSK_OK);
        } else {
            assert_int_equal(psk_writer_open(w, &job, start, &tw), PSK_OK);
            assert_int_equal(psk_writer_event(tw, 0, &dc), PSK_OK);
            assert_int_equal(psk_writer_event(tw, 0, &cart), PSK_OK);
        }
        assert_int_equal(psk_writer_close(tw), PSK_OK);
        psk_writer_free(tw);
        psk_event want[2] = {dc, cart};
        if (v)
            PSK_ARRN(&want[1], PSK_F_DIMS) = PSK_ARRN(&want[1], PSK_F_PERIODS) = 0;
        assert_int_equal(read_rank(w, 0, want + v, 2 - v, &n, msg, sizeof msg), PSK_EOF);
        assert_int_equal(n, 2 - v);
        psk_trace *t;
        assert_int_equal(psk_trace_open(w, &t), PSK_OK);
        assert_int_equal(psk_trace_job(t)->format_version, v ? 1 : 4); /* 0: the latest */
        psk_trace_close(t);
        synth_rmdir(w);
        free(w);
    }
    synth_rmdir(d);
    free(d);
}

/* A rank of RNEV random events in blocks of 1 to 40, plain and zstd in
 * turn: reading it with releases at random points, keeping random byte
 * counts, gives the same events as reading straight through; the last
 * event's bytes survive a release; two readers in a pool of one file are
 * never open together; a file replaced under a released reader is named. */
#define RNEV 400

static void test_release_anywhere(void **state)
{
    (void)state;
    char *d = synth_tempdir();
    synth_job(d, JOB, 1, 4); /* the latest version: every function's fields, threads */
    static psk_event ev[RNEV];
    static synth_store st[RNEV];
    uint64_t rng = 0x5151ull, clock = 1000000;
    synth_rank *s = synth_rank_open_flags(d, 0, 1, JOB, 4, clock, 1);
    int inblk = 0, target = 5, z = 0, nthreads = 1;
    for (int i = 0; i < RNEV; i++) {
        synth_random_event(&rng, &clock, &ev[i], &st[i]);
        ev[i].thread = (int)(synth_next(&rng) % (uint64_t)(nthreads + 1)); /* numbered in order of first call */
        nthreads += ev[i].thread == nthreads;
        synth_event(s, &ev[i]);
        if (++inblk == target) {
            if (z)
                synth_zflush(s);
            else
                synth_flush(s);
            z = !z;
            inblk = 0;
            target = 1 + (int)(synth_next(&rng) % 40);
        }
    }
    synth_end(s, RNEV);
    psk_trace *t;
    assert_int_equal(psk_trace_open(d, &t), PSK_OK);
    int released = 0;
    for (int round = 0; round < 300; round++) {
        psk_rank_reader *r;
        assert_int_equal(psk_rank_open(t, 0, &r), PSK_OK);
        uint64_t every = 1 + (uint64_t)round % 9;
        for (int i = 0; i <= RNEV; i++) {
            if (synth_next(&rng) % every == 0) {
                size_t keep = round % 3 == 0 ? 0 : (size_t)(synth_next(&rng) % 700);
                size_t l0 = 0, l1 = 0;
                uint8_t *save = NULL;
                if (i) {
                    const uint8_t *b0 = psk_rank_event_bytes(r, &l0);
                    save = malloc(l0 + 1);
                    memcpy(save, b0, l0);
                }
                assert_int_equal(psk_rank_release(r, keep), PSK_OK);
                assert_false(psk_rank_is_open(r));
                released++;
                if (i) {
                    const uint8_t *b1 = psk_rank_event_bytes(r, &l1);
                    assert_int_equal(l0, l1);
                    assert_memory_equal(save, b1, l0);
                }
                free(save);
            }
            psk_event e;
            int rc = psk_rank_next(r, &e);
            if (i == RNEV) {
                assert_int_equal(rc, PSK_EOF);
                break;
            }
            if (rc)
                fail_msg("round %d, event %d: %s", round, i, psk_rank_errmsg(r));
            if (!synth_event_equal(&e, &ev[i]))
                fail_msg("round %d: event %d differs after releases", round, i);
        }
        assert_int_equal(psk_rank_events_read(r), RNEV);
        assert_false(psk_rank_is_open(r)); /* the end lets the file go */
        psk_rank_close(r);
    }
    assert_true(released > 10000);

    psk_rank_pool *pool;
    assert_int_equal(psk_rank_pool_new(1, 100, &pool), PSK_OK);
    assert_int_equal(psk_rank_pool_max_open(pool), 1);
    psk_rank_reader *rd[2];
    assert_int_equal(psk_rank_open_pooled(t, 0, pool, &rd[0]), PSK_OK);
    assert_int_equal(psk_rank_open_pooled(t, 0, pool, &rd[1]), PSK_OK);
    assert_false(psk_rank_is_open(rd[0]));
    int at[2] = {0, 0};
    while (at[0] <= RNEV || at[1] <= RNEV) {
        int w = (int)(synth_next(&rng) % 2);
        if (at[w] > RNEV)
            w = !w;
        psk_event e;
        int rc = psk_rank_next(rd[w], &e);
        if (at[w] == RNEV)
            assert_int_equal(rc, PSK_EOF);
        else if (rc || !synth_event_equal(&e, &ev[at[w]]))
            fail_msg("pooled reader %d, event %d: %s", w, at[w], rc ? psk_rank_errmsg(rd[w]) : "differs");
        at[w]++;
        assert_false(psk_rank_is_open(rd[0]) && psk_rank_is_open(rd[1]));
    }
    psk_rank_close(rd[0]);
    psk_rank_close(rd[1]);
    psk_rank_pool_free(pool);

    /* the file replaced (another start time) while released */
    psk_rank_reader *r;
    assert_int_equal(psk_rank_open(t, 0, &r), PSK_OK);
    psk_event e;
    for (int i = 0; i < 10; i++)
        assert_int_equal(psk_rank_next(r, &e), PSK_OK);
    assert_int_equal(psk_rank_release(r, 0), PSK_OK);
    s = synth_rank_open_flags(d, 0, 1, JOB, 4, 7, 1);
    synth_end(s, 0);
    assert_int_equal(psk_rank_next(r, &e), PSK_EMISMATCH);
    assert_non_null(strstr(psk_rank_errmsg(r), "rank-000000.psk"));
    psk_rank_close(r);
    psk_trace_close(t);
    synth_rmdir(d);
    free(d);
}


/* version 4: the thread of each call, where the file header says so;
 * numbered in the order of first calls (a number that skips one is
 * refused, naming the event); the bytes for tools that keep events
 * without it; the writer writes it for every rank and refuses a number
 * that skips one */
static void test_threads(void **state)
{
    (void)state;
    uint64_t clock = 1000000;
    const char *fns[6] = {"MPI_Init_thread", "MPI_Send", "MPI_Recv", "MPI_Barrier", "MPI_Send", "MPI_Finalize"};
    const int thr[6] = {0, 1, 2, 1, 0, 0};
    psk_event ev[6];
    for (int i = 0; i < 6; i++) {
        memset(&ev[i], 0, sizeof ev[i]);
        ev[i].fn = psk_fn_lookup(fns[i]);
        ev[i].fields = psk_fn_fields(ev[i].fn);
        ev[i].t_entry = clock += 1000;
        ev[i].t_exit = clock += 500;
        ev[i].thread = thr[i];
    }
    ev[0].v[PSK_F_I1] = ev[0].v[PSK_F_I2] = 3; /* MPI_THREAD_MULTIPLE */
    char msg[8192];
    int n;
    char *d = synth_tempdir();
    synth_job(d, JOB, 1, 4);
    synth_rank *s = synth_rank_open_flags(d, 0, 1, JOB, 4, 1000000, 1);
    for (int i = 0; i < 6; i++)
        synth_event(s, &ev[i]);
    synth_end(s, 6);
    assert_int_equal(read_rank(d, 0, ev, 6, &n, msg, sizeof msg), PSK_EOF);
    assert_int_equal(n, 6);
    psk_trace *t;
    psk_rank_reader *r;
    psk_event got;
    assert_int_equal(psk_trace_open(d, &t), PSK_OK);
    assert_int_equal(psk_rank_open(t, 0, &r), PSK_OK);
    assert_int_equal(psk_rank_threads_recorded(r), 1);
    uint64_t prev = 1000000;
    for (int i = 0; i < 6; i++) {
        assert_int_equal(psk_rank_next(r, &got), PSK_OK);
        assert_int_equal(got.thread, thr[i]);
        size_t len;
        const uint8_t *b = psk_rank_event_bytes(r, &len);
        uint8_t want[256];
        size_t wlen = (size_t)(psk_event_encode(want, &ev[i], (int64_t)(ev[i].t_entry - prev)) - want);
        prev = ev[i].t_exit;
        assert_int_equal(len, wlen);
        assert_memory_equal(b, want, len);
    }
    psk_rank_close(r);
    psk_trace_close(t);

    /* without the flag (a rank that could not call from other threads): thread 0 */
    s = synth_rank_open(d, 0, 1, JOB, 4, 1000000);
    for (int i = 0; i < 6; i++) {
        psk_event e = ev[i];
        e.thread = 0;
        synth_event(s, &e);
    }
    synth_end(s, 6);
    assert_int_equal(psk_trace_open(d, &t), PSK_OK);
    assert_int_equal(psk_rank_open(t, 0, &r), PSK_OK);
    assert_int_equal(psk_rank_threads_recorded(r), 0);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(psk_rank_next(r, &got), PSK_OK);
        assert_int_equal(got.thread, 0);
    }
    psk_rank_close(r);
    psk_trace_close(t);

    /* thread 2 before any call of thread 1 */
    s = synth_rank_open_flags(d, 0, 1, JOB, 4, 1000000, 1);
    synth_event(s, &ev[0]);
    synth_event(s, &ev[2]);
    synth_end(s, 2);
    assert_int_equal(read_rank(d, 0, ev, 6, &n, msg, sizeof msg), PSK_EFORMAT);
    assert_int_equal(n, 1);
    if (!strstr(msg, "rank-000000.psk") || !strstr(msg, "event 1 (MPI_Recv): thread 2 before any call of thread 1"))
        fail_msg("%s", msg);

    /* the writer: the same events back; a number that skips one refused */
    char *w = synth_tempdir();
    psk_job job = {.job_id = JOB, .nranks = 1, .flavour = PSK_MPI_MPICH};
    uint64_t start = 1000000;
    psk_trace_writer *tw;
    assert_int_equal(psk_writer_open(w, &job, &start, &tw), PSK_OK);
    for (int i = 0; i < 6; i++)
        assert_int_equal(psk_writer_event(tw, 0, &ev[i]), PSK_OK);
    assert_int_equal(psk_writer_close(tw), PSK_OK);
    psk_writer_free(tw);
    assert_int_equal(read_rank(w, 0, ev, 6, &n, msg, sizeof msg), PSK_EOF);
    assert_int_equal(n, 6);
    assert_int_equal(psk_writer_open(w, &job, &start, &tw), PSK_OK);
    assert_int_equal(psk_writer_event(tw, 0, &ev[0]), PSK_OK);
    assert_int_equal(psk_writer_event(tw, 0, &ev[2]), PSK_EINVAL);
    if (!strstr(psk_writer_errmsg(tw), "thread 2 before any call of thread 1"))
        fail_msg("%s", psk_writer_errmsg(tw));
    psk_writer_close(tw);
    psk_writer_free(tw);
    /* format 3 has no threads: written without, read back as thread 0 */
    job.format_version = 3;
    assert_int_equal(psk_writer_open(w, &job, &start, &tw), PSK_OK);
    for (int i = 0; i < 6; i++)
        assert_int_equal(psk_writer_event(tw, 0, &ev[i]), PSK_OK);
    assert_int_equal(psk_writer_close(tw), PSK_OK);
    psk_writer_free(tw);
    for (int i = 0; i < 6; i++)
        ev[i].thread = 0;
    assert_int_equal(read_rank(w, 0, ev, 6, &n, msg, sizeof msg), PSK_EOF);
    assert_int_equal(n, 6);
    synth_rmdir(w);
    free(w);
    synth_rmdir(d);
    free(d);
}

/* a trace opened from job.json's text with its rank files coming from a
 * psk_rank_source (as the in-job merge reads other ranks' files over MPI):
 * the same events, through releases and reopenings in a pool of one;
 * nothing read at opening, and a file of another job, rank or MPI, or
 * none, named when its reader opens */
typedef struct {
    const unsigned char *bytes[2];
    size_t len[2];
    int opened;
} mem_source;

static FILE *open_mem(void *ctx, int rank)
{
    mem_source *m = ctx;
    m->opened++;
    if (!m->bytes[rank]) {
        errno = ENOENT;
        return NULL;
    }
    return fmemopen((void *)m->bytes[rank], m->len[rank], "rb");
}

static unsigned char *slurp_file(const char *path, size_t *len)
{
    *len = file_size(path);
    unsigned char *b = malloc(*len + 1);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(b, 1, *len, f), *len);
    fclose(f);
    b[*len] = 0;
    return b;
}

static void test_open_job_source(void **state)
{
    fixture *fx = *state;
    char *pj = path_of(fx->dir, "job.json"), *p1 = path_of(fx->dir, "rank-000001.psk");
    size_t jlen, len1;
    char *job = (char *)slurp_file(pj, &jlen);
    unsigned char *r1 = slurp_file(p1, &len1);
    mem_source m = {{fx->file, r1}, {fx->size, len1}, 0};
    psk_trace *t;
    assert_int_equal(psk_trace_open_job("/nowhere", job, jlen, open_mem, &m, &t), PSK_OK);
    assert_int_equal(m.opened, 0);
    assert_int_equal(psk_trace_job(t)->nranks, 2);
    psk_rank_pool *pool;
    assert_int_equal(psk_rank_pool_new(1, 50, &pool), PSK_OK);
    psk_rank_reader *r, *e1;
    assert_int_equal(psk_rank_open_pooled(t, 0, pool, &r), PSK_OK);
    assert_int_equal(psk_rank_open_pooled(t, 1, pool, &e1), PSK_OK); /* takes the one place */
    uint64_t rng = 77;
    psk_event ev;
    for (int i = 0; i < NEV; i++) {
        if (synth_next(&rng) % 5 == 0)
            assert_int_equal(psk_rank_release(r, (size_t)(synth_next(&rng) % 300)), PSK_OK);
        if (psk_rank_next(r, &ev) || !synth_event_equal(&ev, &fx->ev[i]))
            fail_msg("event %d through the source: %s", i, psk_rank_errmsg(r));
    }
    assert_int_equal(psk_rank_next(r, &ev), PSK_EOF);
    assert_int_equal(psk_rank_next(e1, &ev), PSK_EOF);
    assert_true(m.opened > NEV / 10);
    psk_rank_close(r);
    psk_rank_close(e1);
    /* checked when opened: rank 1's bytes given for rank 0, none for rank 1 */
    m.bytes[0] = r1, m.len[0] = len1, m.bytes[1] = NULL;
    assert_int_equal(psk_rank_open(t, 0, &r), PSK_EMISMATCH);
    if (!strstr(psk_rank_errmsg(r), "/nowhere/rank-000000.psk") || !strstr(psk_rank_errmsg(r), "expected rank 0"))
        fail_msg("%s", psk_rank_errmsg(r));
    psk_rank_close(r);
    assert_int_equal(psk_rank_open(t, 1, &r), PSK_ENOTFOUND);
    assert_non_null(strstr(psk_rank_errmsg(r), "missing"));
    psk_rank_close(r);
    psk_rank_pool_free(pool);
    psk_trace_close(t);
    /* another job's header, and a job text that is not one */
    char *other = strdup(job);
    char *id = strstr(other, "feedface");
    assert_non_null(id);
    id[0] = 'e';
    m.bytes[0] = fx->file, m.len[0] = fx->size;
    assert_int_equal(psk_trace_open_job("/nowhere", other, jlen, open_mem, &m, &t), PSK_OK);
    assert_int_equal(psk_rank_open(t, 0, &r), PSK_EMISMATCH);
    assert_non_null(strstr(psk_rank_errmsg(r), "different runs"));
    psk_rank_close(r);
    psk_trace_close(t);
    assert_int_equal(psk_trace_open_job("/nowhere", "{\"format\": 1", 13, open_mem, &m, &t), PSK_EFORMAT);
    assert_non_null(strstr(psk_trace_errmsg(t), "/nowhere/job.json"));
    psk_trace_close(t);
    free(other);
    free(job);
    free(r1);
    free(pj);
    free(p1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_truncated_everywhere),
        cmocka_unit_test(test_corrupt_everywhere),
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_mixed_and_missing),
        cmocka_unit_test(test_ids_out_of_range),
        cmocka_unit_test(test_inconsistent_blocks),
        cmocka_unit_test(test_arms),
        cmocka_unit_test(test_old_cart),
        cmocka_unit_test(test_release_anywhere),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_open_job_source),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
