/* The job header (job.json): parsed into a psk_job that owns its strings
 * and arrays. The trace reader uses it for job.json, and later stages for
 * the copy of the header they carry in their own files. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_format.h"

struct psk_jobdoc {
    json_t *root;
    psk_job job;
    const char **hosts;
    int64_t *offsets;
    double *units, *q1, *q3, *run_share;
    int *cores, *cpu_on;
    char err[1024];
};

static int fail(psk_jobdoc *d, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof d->err, fmt, ap);
    va_end(ap);
    return status;
}

static const char *jstr(json_t *o, const char *key, const char *dflt)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : dflt;
}

int psk_jobdoc_parse(const char *text, size_t len, const char *name, psk_jobdoc **out)
{
    psk_jobdoc *d = calloc(1, sizeof *d);
    *out = d;
    if (!d)
        return PSK_ENOMEM;
    json_error_t je;
    d->root = json_loadb(text, len, 0, &je);
    if (!d->root)
        return fail(d, PSK_EFORMAT, "%s: not valid JSON (line %d: %s)", name, je.line, je.text);
    json_t *r = d->root;
    if (strcmp(jstr(r, "format", ""), "perfskel-trace") != 0)
        return fail(d, PSK_EFORMAT, "%s: not a perfskel job header (no \"format\": \"perfskel-trace\")", name);
    json_int_t version = json_integer_value(json_object_get(r, "version"));
    if (!PSK_FORMAT_VERSION_OK(version))
        return fail(d, PSK_EVERSION, "%s: trace format version %lld; this perfskel reads versions %d to %d",
                    name, (long long)version, PSK_FORMAT_VERSION, PSK_FORMAT_VERSION_LATEST);
    json_int_t nranks = json_integer_value(json_object_get(r, "ranks"));
    if (nranks < 1 || nranks > 1 << 24)
        return fail(d, PSK_EFORMAT, "%s: bad \"ranks\" value", name);
    psk_job *job = &d->job;
    job->format_version = (int)version;
    job->nranks = (int)nranks;
    job->job_id = strtoull(jstr(r, "job_id", "0"), NULL, 16);
    json_t *mpi = json_object_get(r, "mpi");
    const char *fl = jstr(mpi, "flavour", "");
    job->flavour = !strcmp(fl, "openmpi") ? PSK_MPI_OPENMPI : !strcmp(fl, "mpich") ? PSK_MPI_MPICH : PSK_MPI_UNKNOWN;
    job->mpi_version = jstr(mpi, "version", "");
    job->command = jstr(r, "command", "");
    job->start_time = jstr(r, "start_time", "");
    d->hosts = calloc((size_t)nranks, sizeof *d->hosts);
    d->offsets = calloc((size_t)nranks, sizeof *d->offsets);
    if (!d->hosts || !d->offsets)
        return fail(d, PSK_ENOMEM, "%s: out of memory", name);
    json_t *hosts = json_object_get(r, "hosts");
    json_t *clock = json_object_get(r, "clock");
    json_t *offs = json_object_get(clock, "offsets_ns");
    for (int i = 0; i < nranks; i++) {
        const char *h = json_string_value(json_array_get(hosts, (size_t)i));
        d->hosts[i] = h ? h : "?";
        d->offsets[i] = json_integer_value(json_array_get(offs, (size_t)i));
    }
    job->hosts = d->hosts;
    job->clock_offsets_ns = d->offsets;
    job->clock_read_ns = (uint32_t)json_integer_value(json_object_get(clock, "read_ns"));
    json_t *cores = json_object_get(r, "cores"); /* older traces lack it */
    if (json_array_size(cores) == (size_t)nranks) {
        if (!(d->cores = calloc((size_t)nranks, sizeof *d->cores)))
            return fail(d, PSK_ENOMEM, "%s: out of memory", name);
        for (int i = 0; i < nranks; i++) {
            json_int_t c = json_integer_value(json_array_get(cores, (size_t)i));
            if (c < 1 || c > 1 << 20)
                return fail(d, PSK_EFORMAT, "%s: bad \"cores\" of rank %d", name, i);
            d->cores[i] = (int)c;
        }
        /* a host's cores: the same for each of its ranks (sim places a
         * node's ranks on that many cores) */
        int *id = malloc((size_t)nranks * sizeof *id), *first = malloc((size_t)nranks * sizeof *first);
        int nh = id && first ? psk_host_ids(d->hosts, nranks, id) : -1;
        for (int i = 0; i < nh; i++)
            first[i] = -1;
        int bad = -1;
        for (int i = 0; i < nranks && nh >= 0 && bad < 0; i++) {
            if (first[id[i]] < 0)
                first[id[i]] = i;
            else if (d->cores[first[id[i]]] != d->cores[i])
                bad = i;
        }
        int f = bad >= 0 ? first[id[bad]] : 0;
        free(id), free(first);
        if (nh < 0)
            return fail(d, PSK_ENOMEM, "%s: out of memory", name);
        if (bad >= 0)
            return fail(d, PSK_EFORMAT, "%s: \"cores\" of rank %d (%d) differs from rank %d's (%d) on the same host",
                        name, bad, d->cores[bad], f, d->cores[f]);
        job->cores = d->cores;
    }
    /* each rank's share of a core while it was runnable (traces since
     * 2026-11-29), -1 where not known */
    json_t *share = json_object_get(json_object_get(r, "cpu"), "run_share");
    if (json_array_size(share) == (size_t)nranks) {
        if (!(d->run_share = calloc((size_t)nranks, sizeof *d->run_share)))
            return fail(d, PSK_ENOMEM, "%s: out of memory", name);
        for (int i = 0; i < nranks; i++) {
            json_t *v = json_array_get(share, (size_t)i);
            double x = json_number_value(v);
            if (!json_is_number(v) || !(x == -1 || (x > 0 && x <= 1)))
                return fail(d, PSK_EFORMAT, "%s: bad \"cpu\" \"run_share\" of rank %d (a share in (0, 1], or -1)", name, i);
            d->run_share[i] = x;
        }
        job->run_share = d->run_share;
    }
    /* the CPU each rank stayed on (older traces lack it), -1 where none */
    json_t *on = json_object_get(json_object_get(r, "cpu"), "on");
    if (json_array_size(on) == (size_t)nranks) {
        if (!(d->cpu_on = calloc((size_t)nranks, sizeof *d->cpu_on)))
            return fail(d, PSK_ENOMEM, "%s: out of memory", name);
        for (int i = 0; i < nranks; i++) {
            json_t *v = json_array_get(on, (size_t)i);
            json_int_t c = json_integer_value(v);
            if (!json_is_integer(v) || c < -1 || c >= 1 << 20)
                return fail(d, PSK_EFORMAT, "%s: bad \"cpu\" \"on\" of rank %d (a CPU number, or -1)", name, i);
            d->cpu_on[i] = (int)c;
        }
        job->cpu_on = d->cpu_on;
    }
    json_t *work = json_object_get(r, "work"), *units = json_object_get(work, "ns_per_unit");
    if (json_array_size(units) == (size_t)nranks) {
        if (!(d->units = calloc((size_t)nranks, sizeof *d->units)))
            return fail(d, PSK_ENOMEM, "%s: out of memory", name);
        for (int i = 0; i < nranks; i++) {
            d->units[i] = json_number_value(json_array_get(units, (size_t)i));
            if (!(d->units[i] > 0))
                return fail(d, PSK_EFORMAT, "%s: bad \"work\" calibration of rank %d", name, i);
        }
        job->work_kernel = jstr(work, "kernel", "");
        job->work_ns_per_unit = d->units;
        /* the quartiles of each rank's timings (older traces lack them) */
        json_t *a = json_object_get(work, "q1_ns"), *b = json_object_get(work, "q3_ns");
        if (json_array_size(a) == (size_t)nranks && json_array_size(b) == (size_t)nranks) {
            if (!(d->q1 = calloc((size_t)nranks, sizeof *d->q1)) || !(d->q3 = calloc((size_t)nranks, sizeof *d->q3)))
                return fail(d, PSK_ENOMEM, "%s: out of memory", name);
            for (int i = 0; i < nranks; i++) {
                d->q1[i] = json_number_value(json_array_get(a, (size_t)i));
                d->q3[i] = json_number_value(json_array_get(b, (size_t)i));
                if (!(d->q1[i] > 0 && d->q1[i] <= d->q3[i]))
                    return fail(d, PSK_EFORMAT, "%s: bad \"work\" quartiles of rank %d", name, i);
            }
            job->work_q1_ns = d->q1;
            job->work_q3_ns = d->q3;
        }
    }
    return PSK_OK;
}

const psk_job *psk_jobdoc_job(const psk_jobdoc *d) { return &d->job; }
const char *psk_jobdoc_errmsg(const psk_jobdoc *d) { return d ? d->err : "out of memory"; }

char *psk_jobdoc_text(const psk_jobdoc *d)
{
    return json_dumps(d->root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
}

void psk_jobdoc_close(psk_jobdoc *d)
{
    if (!d)
        return;
    json_decref(d->root);
    free((void *)d->hosts);
    free(d->offsets);
    free(d->units);
    free(d->q1);
    free(d->q3);
    free(d->run_share);
    free(d->cores);
    free(d->cpu_on);
    free(d);
}
