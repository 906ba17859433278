/* craft_inputs DIR: writes into DIR the inputs tests/cli/invariants.sh
 * gives every command: a good 2-rank trace (good/, and good.pskm merged
 * from it), and beside it copies that each break one documented invariant
 * of docs/trace-format.md with every checksum right, as someone else's
 * file could: a block whose time base is not the exit of the event
 * before it (base/), an end block counting another number of events
 * (endcount/), a block numbered out of sequence (seq/), communicators
 * made with empty member lists (members/); a merged file whose rank
 * section counts another number of events than the events name the rank
 * in (rankcount.pskm), whose event names a class that does not exist
 * (evclass.pskm), whose event count is more than its entries
 * (evcount.pskm), whose rank takes the call order of an earlier rank that
 * has none (order.pskm); merged without reordering, so that sim --folded
 * takes the good one. Test code only: exits 1 on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "perfskel/merge.h"
#include "merged_plain.h"
#include "psk_varint.h"
#include "synth_trace.h"

#define JOB 0x77u
#define ITERS 12

enum { T_EVNT = 0x544e5645, T_RANK = 0x4b4e4152 };

static _Noreturn void die(const char *what)
{
    fprintf(stderr, "craft_inputs: %s\n", what);
    exit(1);
}

static psk_event ev_of(const char *fn, uint64_t *clock)
{
    psk_event e;
    memset(&e, 0, sizeof e);
    e.fn = psk_fn_lookup(fn);
    if (!e.fn)
        die(fn);
    e.fields = psk_fn_fields(e.fn);
    e.t_entry = *clock += 2000;
    e.t_exit = *clock += 300;
    return e;
}

enum { GOOD, BASE, ENDCOUNT, SEQ, MEMBERS };

/* a 2-rank ping-pong of ITERS steps between MPI_Init and MPI_Finalize, 6
 * events a block; broken as case says on rank 1 */
static void trace(const char *dir, int kase)
{
    if (mkdir(dir, 0755))
        die(dir);
    char path[4200];
    snprintf(path, sizeof path, "%s/job.json", dir);
    FILE *f = fopen(path, "w");
    /* as the recorder writes it, with the compute calibration gen needs */
    if (!f || fprintf(f, "{\"format\": \"perfskel-trace\", \"version\": 4, \"job_id\": \"%016x\", "
                         "\"mpi\": {\"flavour\": \"mpich\", \"version\": \"MPICH Version: 4.0\"}, \"ranks\": 2, "
                         "\"hosts\": [\"h\", \"h\"], \"command\": \"mpirun -np 2 ./crafted\", "
                         "\"start_time\": \"2026-11-30T04:00:00Z\", \"clock\": {\"read_ns\": 15, "
                         "\"offsets_ns\": [0, 0]}, \"cores\": [4, 4], \"work\": {\"kernel\": \"fma-chain-1\", "
                         "\"ns_per_unit\": [1.5, 1.5]}}\n", JOB) < 0 || fclose(f))
        die(path);
    for (int r = 0; r < 2; r++) {
        synth_rank *s = synth_rank_open(dir, r, 2, JOB, 4, 0);
        uint64_t clock = 0;
        int64_t none[1] = {0};
        psk_event e = ev_of("MPI_Init", &clock);
        synth_event(s, &e);
        if (kase == MEMBERS) { /* the calls that make communicators, each with no members */
            static const char *const mk[] = {"MPI_Comm_dup", "MPI_Comm_split", "MPI_Comm_create"};
            for (int k = 0; k < 3; k++) {
                e = ev_of(mk[k], &clock);
                e.v[PSK_F_COMM] = 0, e.v[PSK_F_NEWID] = 2 + k;
                PSK_ARRN(&e, PSK_F_MEMBERS) = 0, PSK_ARR(&e, PSK_F_MEMBERS) = none;
                synth_event(s, &e);
            }
        }
        for (int i = 0; i < ITERS; i++) {
            for (int k = 0; k < 2; k++) {
                e = ev_of((k + r) % 2 ? "MPI_Recv" : "MPI_Send", &clock);
                e.v[PSK_F_PEER] = 1 - r, e.v[PSK_F_TAG] = 5, e.v[PSK_F_COUNT] = 64, e.v[PSK_F_DTSIZE] = 8;
                e.v[PSK_F_COMM] = kase == MEMBERS ? 2 : 0;
                e.v[PSK_F_ASRC] = 1 - r, e.v[PSK_F_ATAG] = 5;
                synth_event(s, &e);
                if (synth_events(s) % 6 == 0) {
                    synth_flush(s);
                    if (r == 1 && synth_events(s) == 12) {
                        if (kase == BASE)
                            synth_shift_base(s, 700);
                        if (kase == SEQ)
                            synth_skip_seq(s);
                    }
                }
            }
        }
        e = ev_of("MPI_Finalize", &clock);
        synth_event(s, &e);
        synth_end(s, synth_events(s) + (r == 1 && kase == ENDCOUNT));
    }
}

typedef struct file {
    uint8_t *p;
    size_t n;
} file;

static file slurp(const char *path)
{
    file f = {0};
    FILE *in = fopen(path, "rb");
    if (!in || fseek(in, 0, SEEK_END))
        die(path);
    f.n = (size_t)ftell(in);
    rewind(in);
    if (!(f.p = malloc(f.n ? f.n : 1)) || fread(f.p, 1, f.n, in) != f.n)
        die(path);
    fclose(in);
    if (merged_plain(&f.p, &f.n)) /* every payload stored: edited in place */
        die(path);
    return f;
}

/* the offset of the first section tagged tag (after the 9-byte magic and
 * version); its payload at +12, its length at +4 */
static size_t section(const file *f, uint32_t tag)
{
    for (size_t at = 9; at + 12 <= f->n; at += 12 + le_get(f->p + at + 4, 8) + 4)
        if ((uint32_t)le_get(f->p + at, 4) == tag)
            return at;
    die("a section of the merged file is missing");
    return 0;
}

/* f with section at's payload replaced by pl[0..n) stored (after a coding
 * byte 0), its CRC recomputed */
static void write_with(const file *f, size_t at, const uint8_t *pl, size_t n, const char *path)
{
    uint64_t old = le_get(f->p + at + 4, 8);
    FILE *out = fopen(path, "wb");
    if (!out)
        die(path);
    uint8_t h[13], c[4];
    memcpy(h, f->p + at, 4);
    le_put(h + 4, n + 1, 8);
    h[12] = 0;
    le_put(c, crc32(crc32(crc32(0L, Z_NULL, 0), h + 12, 1), pl, (uInt)n), 4);
    size_t rest = at + 12 + old + 4;
    if (fwrite(f->p, 1, at, out) != at || fwrite(h, 1, 13, out) != 13 || fwrite(pl, 1, n, out) != n ||
        fwrite(c, 1, 4, out) != 4 || fwrite(f->p + rest, 1, f->n - rest, out) != f->n - rest || fclose(out))
        die(path);
}

static void get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    if (psk_get_uvar(p, end, v))
        die("the merged file does not decode");
}

static void merged_cases(const char *dir, const char *good)
{
    file f = slurp(good);
    char path[4096];
    uint8_t *pl = malloc(f.n + 64), *q;
    if (!pl)
        die("out of memory");
    /* EVNT: n, then (class, length) each */
    size_t at = section(&f, T_EVNT);
    const uint8_t *p = f.p + at + 13, *end = f.p + at + 12 + le_get(f.p + at + 4, 8);
    uint64_t n, v;
    int64_t c = 0, d, maxc = 0;
    get(&p, end, &n);
    const uint8_t *entries = p;
    for (uint64_t i = 0; i < n; i++) { /* each class as the difference from the one before */
        if (psk_get_svar(&p, end, &d))
            die("the merged file does not decode");
        c += d;
        maxc = c > maxc ? c : maxc;
        get(&p, end, &v);
    }
    /* the first event of a class one past the greatest there is */
    q = psk_put_uvar(pl, n);
    p = entries;
    if (psk_get_svar(&p, end, &d))
        die("the merged file does not decode");
    q = psk_put_svar(q, maxc + 1);
    memcpy(q, p, (size_t)(end - p));
    q += end - p;
    snprintf(path, sizeof path, "%s/evclass.pskm", dir);
    write_with(&f, at, pl, (size_t)(q - pl), path);
    /* one event more than its entries */
    q = psk_put_uvar(pl, n + 1);
    memcpy(q, entries, (size_t)(end - entries));
    q += end - entries;
    snprintf(path, sizeof path, "%s/evcount.pskm", dir);
    write_with(&f, at, pl, (size_t)(q - pl), path);

    /* RANK of rank 0: r, n, mono_start, times (length, bytes), order flag,
     * threads (count, runs) */
    at = section(&f, T_RANK);
    p = f.p + at + 13, end = f.p + at + 12 + le_get(f.p + at + 4, 8);
    uint64_t r, cnt, mono, tlen;
    get(&p, end, &r), get(&p, end, &cnt), get(&p, end, &mono), get(&p, end, &tlen);
    const uint8_t *times = p;
    q = psk_put_uvar(pl, r);
    q = psk_put_uvar(q, cnt + 1);
    q = psk_put_uvar(q, mono);
    q = psk_put_uvar(q, tlen);
    memcpy(q, times, (size_t)(end - times));
    q += end - times;
    snprintf(path, sizeof path, "%s/rankcount.pskm", dir);
    write_with(&f, at, pl, (size_t)(q - pl), path);

    /* rank 1's section: the order of the rank before it (rank 0, which
     * has none of its own), then no threads */
    size_t at1 = at + 12 + le_get(f.p + at + 4, 8) + 4;
    if ((uint32_t)le_get(f.p + at1, 4) != T_RANK)
        die("rank 1's section is not where it should be");
    p = f.p + at1 + 13, end = f.p + at1 + 12 + le_get(f.p + at1 + 4, 8);
    get(&p, end, &r), get(&p, end, &cnt), get(&p, end, &mono), get(&p, end, &tlen);
    if (tlen > (uint64_t)(end - p))
        die("rank 1's times");
    q = psk_put_uvar(pl, r);
    q = psk_put_uvar(q, cnt);
    q = psk_put_uvar(q, mono);
    q = psk_put_uvar(q, tlen);
    memcpy(q, p, tlen);
    q += tlen;
    q = psk_put_uvar(q, 2);
    q = psk_put_uvar(q, 1);
    q = psk_put_uvar(q, 0);
    snprintf(path, sizeof path, "%s/order.pskm", dir);
    write_with(&f, at1, pl, (size_t)(q - pl), path);
    free(pl);
    free(f.p);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        die("usage: craft_inputs DIR");
    static const char *const name[] = {"good", "base", "endcount", "seq", "members"};
    char path[4096], good[4096];
    for (int k = GOOD; k <= MEMBERS; k++) {
        snprintf(path, sizeof path, "%s/%s", argv[1], name[k]);
        trace(path, k);
    }
    snprintf(path, sizeof path, "%s/good", argv[1]);
    snprintf(good, sizeof good, "%s/good.pskm", argv[1]);
    psk_trace *t;
    psk_merged *m;
    psk_merge_opts o = {.window = 64, .no_reorder = 1}; /* sim --folded takes it */
    if (psk_trace_open(path, &t) || psk_merge(t, &o, &m) || psk_merged_write(m, good))
        die("the good trace does not merge");
    psk_merged_close(m);
    psk_trace_close(t);
    merged_cases(argv[1], good);
    return 0;
}
