/* Synthetic trace writer for the unit tests (synth_trace.h). It follows the
 * byte layout of docs/trace-format.md, sharing only the header packing and
 * varints with the recorder. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "psk_varint.h"
#include "synth_trace.h"
#include "trace_format.h"
#include "trace_pack.h"

struct synth_rank {
    FILE *f;
    uint8_t buf[1 << 20];
    size_t len;
    uint32_t n, seq;
    uint64_t base, prev, total;
    int version;
    uint32_t flags;
};

static void die(const char *what)
{
    perror(what);
    abort();
}

void synth_job(const char *dir, uint64_t job_id, int nranks, int version)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/job.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        die(path);
    fprintf(f, "{\"format\": \"perfskel-trace\", \"version\": %d, \"job_id\": \"%016llx\", "
               "\"mpi\": {\"flavour\": \"mpich\", \"version\": \"MPICH Version: 4.0\"}, "
               "\"ranks\": %d, \"hosts\": [",
            version, (unsigned long long)job_id, nranks);
    for (int r = 0; r < nranks; r++)
        fprintf(f, "%s\"host%d\"", r ? ", " : "", r % 2);
    fprintf(f, "], \"command\": \"mpirun -np %d ./synth\", \"start_time\": \"2026-11-22T19:00:00Z\", "
               "\"clock\": {\"read_ns\": 15, \"offsets_ns\": [", nranks);
    for (int r = 0; r < nranks; r++)
        fprintf(f, "%s%d", r ? ", " : "", -1000 * r);
    fprintf(f, "]}}\n");
    fclose(f);
}

synth_rank *synth_rank_open(const char *dir, int rank, int nranks, uint64_t job_id,
                            int version, uint64_t mono_start)
{
    return synth_rank_open_flags(dir, rank, nranks, job_id, version, mono_start, 0);
}

synth_rank *synth_rank_open_flags(const char *dir, int rank, int nranks, uint64_t job_id,
                                  int version, uint64_t mono_start, uint32_t flags)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/rank-%06d.psk", dir, rank);
    synth_rank *s = calloc(1, sizeof *s);
    if (!s)
        die("calloc");
    s->f = fopen(path, "wb");
    if (!s->f)
        die(path);
    psk_file_header h = {.version = (uint16_t)version, .flavour = PSK_MPI_MPICH,
                         .job_id = job_id, .rank = (uint32_t)rank, .nranks = (uint32_t)nranks,
                         .clock_offset_ns = -1000 * rank, .mono_start_ns = mono_start,
                         .real_start_ns = 1795000000000000000ull, .clock_cost_ns = 15, .flags = flags};
    uint8_t b[PSK_FILE_HEADER_SIZE];
    psk_pack_file_header(b, &h);
    fwrite(b, 1, sizeof b, s->f);
    s->base = s->prev = mono_start;
    s->version = version;
    s->flags = flags;
    return s;
}

void synth_event(synth_rank *s, const psk_event *ev)
{
    uint8_t *p = s->buf + s->len;
    p = psk_put_uvar(p, ev->fn);
    p = psk_put_svar(p, (int64_t)(ev->t_entry - s->prev));
    p = psk_put_uvar(p, ev->t_exit - ev->t_entry);
    uint32_t fields = psk_fn_fields(ev->fn);
    if (s->version < 3) /* the fields version 3 added */
        fields &= ~PSK_FIELDS_V3;
    for (int i = 0; i < PSK_F_NFIELDS; i++) {
        if (!((fields >> i) & 1u))
            continue;
        int u = (PSK_FIELDS_UNSIGNED >> i) & 1u;
        if (i < PSK_F_FIRST_ARRAY) {
            p = u ? psk_put_uvar(p, (uint64_t)ev->v[i]) : psk_put_svar(p, ev->v[i]);
            continue;
        }
        uint32_t n = PSK_ARRN(ev, i);
        p = psk_put_uvar(p, n);
        size_t nv = i == PSK_F_STATUSES ? 3 * (size_t)n : n;
        for (size_t k = 0; k < nv; k++)
            p = u ? psk_put_uvar(p, (uint64_t)PSK_ARR(ev, i)[k]) : psk_put_svar(p, PSK_ARR(ev, i)[k]);
    }
    /* versions 2 and 3: MPI_Bcast (51), MPI_Allgather (56), MPI_Alltoall (58)
     * and MPI_Allreduce (62) end with the arm */
    if (s->version >= 2 && (ev->fn == 51 || ev->fn == 56 || ev->fn == 58 || ev->fn == 62))
        p = psk_put_uvar(p, (uint64_t)ev->arm);
    /* version 4, flag 1 in the file header: every event ends with its thread */
    if (s->flags & 1u)
        p = psk_put_uvar(p, (uint64_t)ev->thread);
    s->len = (size_t)(p - s->buf);
    s->prev = ev->t_exit;
    s->n++;
    s->total++;
    if (s->len > sizeof s->buf - 4096)
        synth_flush(s);
}

static void write_block(synth_rank *s, int kind, uint32_t n)
{
    psk_block_header h = {.kind = (uint8_t)kind, .payload_len = (uint32_t)s->len, .n_events = n,
                          .base_ns = s->base, .seq = s->seq++};
    uint8_t b[PSK_BLOCK_HEADER_SIZE];
    psk_pack_block_header(b, &h, s->buf);
    fwrite(b, 1, sizeof b, s->f);
    fwrite(s->buf, 1, s->len, s->f);
    s->len = 0;
    s->n = 0;
    s->base = s->prev;
}

void synth_shift_base(synth_rank *s, int64_t ns) { s->base += (uint64_t)ns; }

void synth_skip_seq(synth_rank *s) { s->seq++; }

void synth_flush(synth_rank *s)
{
    if (s->n)
        write_block(s, PSK_BLOCK_EVENTS, s->n);
}

void synth_zflush(synth_rank *s)
{
    if (!s->n)
        return;
    size_t cap = ZSTD_compressBound(s->len);
    uint8_t *z = malloc(cap);
    size_t zl = z ? ZSTD_compress(z, cap, s->buf, s->len, 3) : 0;
    if (!z || ZSTD_isError(zl) || zl > sizeof s->buf)
        die("zstd");
    memcpy(s->buf, z, zl);
    free(z);
    s->len = zl;
    write_block(s, PSK_BLOCK_ZEVENTS, s->n);
}

void synth_end(synth_rank *s, uint64_t total)
{
    synth_flush(s);
    uint8_t *p = psk_put_uvar(s->buf, total);
    p = psk_put_svar(p, -7);
    s->len = (size_t)(p - s->buf);
    write_block(s, PSK_BLOCK_END, 0);
    synth_close(s);
}

void synth_close(synth_rank *s)
{
    fclose(s->f);
    free(s);
}

uint64_t synth_events(const synth_rank *s) { return s->total; }

uint64_t synth_next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* small values most of the time, sometimes large or negative, as in traces */
static int64_t rand_val(uint64_t *rng, int is_unsigned)
{
    uint64_t r = synth_next(rng);
    int64_t v;
    switch (r % 8) {
    case 0: v = (int64_t)(r >> 8); break;            /* large */
    case 1: v = -(int64_t)((r >> 8) % 40000); break; /* negative: constants */
    default: v = (int64_t)((r >> 8) % 300); break;
    }
    if (is_unsigned && v < 0)
        v = -v;
    return v;
}

void synth_random_event(uint64_t *rng, uint64_t *clock, psk_event *ev, synth_store *st)
{
    memset(ev, 0, sizeof *ev);
    unsigned nfn = psk_fn_count();
    do
        ev->fn = 1 + (unsigned)(synth_next(rng) % (nfn - 1));
    while (!psk_fn_name(ev->fn) || psk_fn_polled(ev->fn)); /* polls are made by merging, never recorded */
    uint64_t r = synth_next(rng);
    *clock += r % 3 == 0 ? (r >> 4) % 50000000 : (r >> 4) % 2000; /* gap */
    ev->t_entry = *clock;
    *clock += (synth_next(rng) >> 4) % (r % 5 == 0 ? 1000000000 : 5000); /* duration */
    ev->t_exit = *clock;
    ev->fields = psk_fn_fields(ev->fn);
    for (int i = 0; i < PSK_F_NFIELDS; i++) {
        if (!((ev->fields >> i) & 1u))
            continue;
        int u = (PSK_FIELDS_UNSIGNED >> i) & 1u;
        /* ids as the reader takes them (-2 up to a few hundred), members
         * world ranks of any job (rank 0, at least once); everything else over the range */
        int id = i == PSK_F_REQ || i == PSK_F_COMM || i == PSK_F_NEWID || i == PSK_F_GROUP || i == PSK_F_REQS;
        if (i < PSK_F_FIRST_ARRAY) {
            ev->v[i] = id ? (int64_t)(synth_next(rng) % 302) - 2 : rand_val(rng, u);
            continue;
        }
        int k = i - PSK_F_FIRST_ARRAY;
        uint32_t n = (uint32_t)(synth_next(rng) % 7);
        if (i == PSK_F_MEMBERS && !n) /* a new communicator has its maker among them */
            n = 1;
        size_t nv = i == PSK_F_STATUSES ? 3 * (size_t)n : n;
        for (size_t j = 0; j < nv; j++)
            st->a[k][j] = id ? (int64_t)(synth_next(rng) % 302) - 2
                          : i == PSK_F_MEMBERS ? 0
                                               : rand_val(rng, u);
        ev->n[k] = n;
        ev->arr[k] = st->a[k];
    }
}

int synth_event_equal(const psk_event *a, const psk_event *b)
{
    if (a->fn != b->fn || a->t_entry != b->t_entry || a->t_exit != b->t_exit || a->fields != b->fields ||
        a->arm != b->arm || a->thread != b->thread)
        return 0;
    for (int i = 0; i < PSK_F_NFIELDS; i++) {
        if (!((a->fields >> i) & 1u))
            continue;
        if (i < PSK_F_FIRST_ARRAY) {
            if (a->v[i] != b->v[i])
                return 0;
            continue;
        }
        int k = i - PSK_F_FIRST_ARRAY;
        if (a->n[k] != b->n[k])
            return 0;
        size_t nv = i == PSK_F_STATUSES ? 3 * (size_t)a->n[k] : a->n[k];
        if (nv && memcmp(a->arr[k], b->arr[k], nv * sizeof(int64_t)) != 0)
            return 0;
    }
    return 1;
}

char *synth_tempdir(void)
{
    const char *t = getenv("TMPDIR");
    char *d;
    if (asprintf(&d, "%s/psk-unit-XXXXXX", t && *t ? t : "/tmp") < 0 || !mkdtemp(d))
        die("mkdtemp");
    return d;
}

void synth_rmdir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}
