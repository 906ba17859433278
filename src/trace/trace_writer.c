/* Writing a trace directory from events in memory (include/perfskel/trace.h):
 * the same format the recording library writes, for programs that make
 * traces (bench/ generators, converters, tests). Rank files are opened
 * once; each rank's events are buffered into blocks of PSK_BLOCK_TARGET
 * bytes, and closing writes the END blocks and job.json. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psk_fs.h"
#include "psk_json.h"
#include "psk_varint.h"
#include "psk_fn_ids.h"
#include "trace_format.h"
#include "trace_pack.h"

typedef struct wrank {
    uint8_t *buf;
    size_t len, cap;
    uint32_t nev, seq;
    uint64_t base, prev, total;
    int ended;
    int nthreads;   /* threads its events named so far (format 4) */
} wrank;

struct psk_trace_writer {
    char *dir;
    psk_job job;
    wrank *r;
    FILE *f;   /* the rank file last written, or NULL */
    int frank; /* its rank */
    char err[1024];
};

static int fail(psk_trace_writer *w, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, sizeof w->err, fmt, ap);
    va_end(ap);
    return status;
}

const char *psk_writer_errmsg(const psk_trace_writer *w) { return w ? w->err : "out of memory"; }

int psk_writer_open(const char *dir, const psk_job *job, const uint64_t *mono_start, psk_trace_writer **out)
{
    psk_trace_writer *w = calloc(1, sizeof *w);
    *out = w;
    if (!w)
        return PSK_ENOMEM;
    w->job = *job;
    if (!w->job.format_version)
        w->job.format_version = PSK_FORMAT_VERSION_LATEST;
    w->dir = strdup(dir);
    w->r = calloc((size_t)job->nranks, sizeof *w->r);
    if (!w->dir || !w->r)
        return fail(w, PSK_ENOMEM, "out of memory");
    if (psk_mkdir_p(dir))
        return fail(w, PSK_EIO, "%s: cannot create the directory (%s)", dir, strerror(errno));
    for (int r = 0; r < job->nranks; r++) {
        char path[4096];
        psk_rank_file(path, sizeof path, dir, r);
        wrank *x = &w->r[r];
        FILE *f = fopen(path, "wb");
        if (!f)
            return fail(w, PSK_EIO, "%s: %s", path, strerror(errno));
        x->base = x->prev = mono_start ? mono_start[r] : 0;
        if (!PSK_FORMAT_VERSION_OK(w->job.format_version))
            return fail(w, PSK_EINVAL, "%s: trace format version %d: this perfskel writes versions %d to %d", dir,
                        w->job.format_version, PSK_FORMAT_VERSION, PSK_FORMAT_VERSION_LATEST);
        psk_file_header h = {.version = (uint16_t)w->job.format_version,
                             .flavour = (uint16_t)job->flavour,
                             .job_id = job->job_id, .rank = (uint32_t)r, .nranks = (uint32_t)job->nranks,
                             .clock_offset_ns = job->clock_offsets_ns ? job->clock_offsets_ns[r] : 0,
                             .mono_start_ns = x->base, .clock_cost_ns = job->clock_read_ns,
                             .flags = w->job.format_version >= PSK_FORMAT_VERSION_THREADS ? PSK_FILE_THREADS : 0};
        uint8_t b[PSK_FILE_HEADER_SIZE];
        psk_pack_file_header(b, &h);
        int bad = fwrite(b, 1, sizeof b, f) != sizeof b;
        if (fclose(f) || bad)
            return fail(w, PSK_EIO, "%s: %s", path, strerror(errno));
    }
    return PSK_OK;
}

/* rank r's file, open for appending (the one open before it closed) */
static FILE *rank_file(psk_trace_writer *w, int r)
{
    if (w->f && w->frank == r)
        return w->f;
    if (w->f && fclose(w->f)) {
        w->f = NULL;
        fail(w, PSK_EIO, "%s/rank-%06d.psk: %s", w->dir, w->frank, strerror(errno));
        return NULL;
    }
    char path[4096];
    psk_rank_file(path, sizeof path, w->dir, r);
    if (!(w->f = fopen(path, "ab")))
        fail(w, PSK_EIO, "%s: %s", path, strerror(errno));
    w->frank = r;
    return w->f;
}

static int write_block(psk_trace_writer *w, int r, int kind)
{
    wrank *x = &w->r[r];
    psk_block_header h = {.kind = (uint8_t)kind, .payload_len = (uint32_t)x->len,
                          .n_events = kind == PSK_BLOCK_EVENTS ? x->nev : 0, .base_ns = x->base, .seq = x->seq++};
    uint8_t b[PSK_BLOCK_HEADER_SIZE];
    psk_pack_block_header(b, &h, x->buf);
    FILE *f = rank_file(w, r);
    if (!f)
        return PSK_EIO;
    if (fwrite(b, 1, sizeof b, f) != sizeof b || (x->len && fwrite(x->buf, 1, x->len, f) != x->len))
        return fail(w, PSK_EIO, "%s/rank-%06d.psk: %s", w->dir, r, strerror(errno));
    x->len = 0;
    x->nev = 0;
    x->base = x->prev;
    return PSK_OK;
}

int psk_writer_event(psk_trace_writer *w, int rank, const psk_event *ev)
{
    if (rank < 0 || rank >= w->job.nranks || !psk_fn_name(ev->fn))
        return fail(w, PSK_EINVAL, "%s: event of rank %d or function %u out of range", w->dir, rank, ev->fn);
    wrank *x = &w->r[rank];
    if (x->ended)
        return fail(w, PSK_EINVAL, "%s: event of rank %d after the rank was ended", w->dir, rank);
    size_t need = psk_event_encoded_max(ev) + 2 * PSK_VARINT_MAX; /* and an arm and a thread */
    if (x->len + need > x->cap) {
        size_t cap = x->cap ? 2 * x->cap : PSK_BLOCK_TARGET + 4096;
        while (cap < x->len + need)
            cap *= 2;
        uint8_t *p = realloc(x->buf, cap);
        if (!p)
            return fail(w, PSK_ENOMEM, "out of memory");
        x->buf = p;
        x->cap = cap;
    }
    if (ev->fn == PSK_FN_Dims_create && w->job.format_version < PSK_FORMAT_VERSION_CART)
        return fail(w, PSK_EINVAL, "%s: event of rank %d: MPI_Dims_create is not in format version %d", w->dir, rank,
                    w->job.format_version);
    int arms = w->job.format_version >= PSK_FORMAT_VERSION_ARMS && psk_fn_tuned(ev->fn);
    if (arms && !psk_arm_valid(ev->fn, ev->arm))
        return fail(w, PSK_EINVAL, "%s: event of rank %d: arm %d is not one of %s's", w->dir, rank, ev->arm,
                    psk_fn_name(ev->fn));
    int threads = w->job.format_version >= PSK_FORMAT_VERSION_THREADS;
    if (threads && (ev->thread < 0 || ev->thread > x->nthreads || ev->thread >= PSK_THREAD_MAX))
        return fail(w, PSK_EINVAL, "%s: event of rank %d: thread %d before any call of thread %d", w->dir, rank,
                    ev->thread, x->nthreads);
    uint8_t *p = psk_event_encode_fields(x->buf + x->len, ev, (int64_t)(ev->t_entry - x->prev),
                                         psk_fn_fields_v(ev->fn, w->job.format_version));
    if (arms)
        p = psk_put_uvar(p, (uint64_t)ev->arm);
    if (threads) {
        p = psk_put_uvar(p, (uint64_t)ev->thread);
        x->nthreads += ev->thread == x->nthreads;
    }
    x->len = (size_t)(p - x->buf);
    x->prev = ev->t_exit;
    x->nev++;
    x->total++;
    return x->len >= PSK_BLOCK_TARGET ? write_block(w, rank, PSK_BLOCK_EVENTS) : PSK_OK;
}

static int write_job(psk_trace_writer *w)
{
    char path[4096], id[17];
    snprintf(path, sizeof path, "%s/job.json", w->dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return fail(w, PSK_EIO, "%s: %s", path, strerror(errno));
    const psk_job *job = &w->job;
    snprintf(id, sizeof id, "%016llx", (unsigned long long)job->job_id);
    psk_json j;
    psk_json_init(&j, f, 1);
    psk_json_obj(&j, NULL);
    psk_json_str(&j, "format", "perfskel-trace");
    psk_json_int(&j, "version", job->format_version);
    psk_json_str(&j, "job_id", id);
    psk_json_obj(&j, "mpi");
    psk_json_str(&j, "flavour", psk_flavour_name(job->flavour));
    psk_json_str(&j, "version", job->mpi_version ? job->mpi_version : "");
    psk_json_end(&j);
    psk_json_int(&j, "ranks", job->nranks);
    psk_json_arr(&j, "hosts");
    for (int r = 0; r < job->nranks; r++)
        psk_json_str(&j, NULL, job->hosts ? job->hosts[r] : "localhost");
    psk_json_end(&j);
    psk_json_str(&j, "command", job->command ? job->command : "");
    psk_json_str(&j, "start_time", job->start_time ? job->start_time : "");
    psk_json_obj(&j, "clock");
    psk_json_int(&j, "read_ns", job->clock_read_ns);
    psk_json_arr(&j, "offsets_ns");
    for (int r = 0; r < job->nranks; r++)
        psk_json_int(&j, NULL, job->clock_offsets_ns ? job->clock_offsets_ns[r] : 0);
    psk_json_end(&j);
    psk_json_end(&j);
    if (job->cores) {
        psk_json_arr(&j, "cores");
        for (int r = 0; r < job->nranks; r++)
            psk_json_int(&j, NULL, job->cores[r]);
        psk_json_end(&j);
    }
    if (job->work_ns_per_unit) {
        psk_json_obj(&j, "work");
        psk_json_str(&j, "kernel", job->work_kernel ? job->work_kernel : "");
        psk_json_arr(&j, "ns_per_unit");
        for (int r = 0; r < job->nranks; r++)
            psk_json_num(&j, NULL, job->work_ns_per_unit[r]);
        psk_json_end(&j);
        if (job->work_q1_ns && job->work_q3_ns) {
            psk_json_arr(&j, "q1_ns");
            for (int r = 0; r < job->nranks; r++)
                psk_json_num(&j, NULL, job->work_q1_ns[r]);
            psk_json_end(&j);
            psk_json_arr(&j, "q3_ns");
            for (int r = 0; r < job->nranks; r++)
                psk_json_num(&j, NULL, job->work_q3_ns[r]);
            psk_json_end(&j);
        }
        psk_json_end(&j);
    }
    if (job->run_share || job->cpu_on) {
        psk_json_obj(&j, "cpu");
        if (job->run_share) {
            psk_json_arr(&j, "run_share");
            for (int r = 0; r < job->nranks; r++)
                psk_json_num(&j, NULL, job->run_share[r]);
            psk_json_end(&j);
        }
        if (job->cpu_on) {
            psk_json_arr(&j, "on");
            for (int r = 0; r < job->nranks; r++)
                psk_json_int(&j, NULL, job->cpu_on[r]);
            psk_json_end(&j);
        }
        psk_json_end(&j);
    }
    psk_json_end(&j);
    int bad = ferror(f);
    if (fclose(f) || bad)
        return fail(w, PSK_EIO, "%s: cannot write", path);
    return PSK_OK;
}

/* rank r's last events and its END block (total events, clock offset at
 * the end); its buffer let go */
static int end_rank(psk_trace_writer *w, int r)
{
    wrank *x = &w->r[r];
    int rc = PSK_OK;
    if (x->ended)
        return PSK_OK;
    x->ended = 1;
    if (x->nev)
        rc = write_block(w, r, PSK_BLOCK_EVENTS);
    if (!rc) {
        uint8_t pl[2 * PSK_VARINT_MAX], *p = psk_put_uvar(pl, x->total);
        p = psk_put_svar(p, w->job.clock_offsets_ns ? w->job.clock_offsets_ns[r] : 0);
        free(x->buf);
        x->buf = pl;
        x->len = (size_t)(p - pl);
        rc = write_block(w, r, PSK_BLOCK_END);
        x->buf = NULL;
        x->cap = 0;
    }
    if (w->f && w->frank == r) {
        if (fclose(w->f) && !rc)
            rc = fail(w, PSK_EIO, "%s/rank-%06d.psk: %s", w->dir, r, strerror(errno));
        w->f = NULL;
    }
    return rc;
}

int psk_writer_end_rank(psk_trace_writer *w, int rank)
{
    if (rank < 0 || rank >= w->job.nranks)
        return fail(w, PSK_EINVAL, "%s: no rank %d in a %d-rank job", w->dir, rank, w->job.nranks);
    return end_rank(w, rank);
}

int psk_writer_close(psk_trace_writer *w)
{
    if (!w)
        return PSK_ENOMEM;
    int rc = w->err[0] ? PSK_EIO : PSK_OK;
    for (int r = 0; !rc && w->r && r < w->job.nranks; r++)
        rc = end_rank(w, r);
    if (!rc)
        rc = write_job(w);
    return rc;
}

void psk_writer_free(psk_trace_writer *w)
{
    if (!w)
        return;
    if (w->f)
        fclose(w->f);
    for (int r = 0; w->r && r < w->job.nranks; r++)
        free(w->r[r].buf);
    free(w->r);
    free(w->dir);
    free(w);
}
