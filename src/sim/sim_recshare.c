/* The sharing of cores the recording saw, taken out of its compute gaps.
 * A rank recorded on a host with more ranks than cores (job.json hosts and
 * cores) computed part of each gap and waited for a core the rest: its
 * gaps hold more time than its work. Per rank, the share of its recorded
 * gaps that was work (s->deflate) is what sim_cores.c then times on the
 * target's cores (docs/simulation.md, "Time-sharing").
 *
 * MPICH waits busily: every rank of the host wants a core all the time, so
 * each got cores / ranks of one. Open MPI yields when it knows it is
 * oversubscribed: only the ranks computing want a core, so a rank
 * computing while k ranks of its host compute (itself included) got
 * min(1, cores / k): the rank files (or the merged trace) are swept in
 * time order per host, and each rank's work is the integral of that over
 * its gaps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_state.h"

static int cmp_host(const void *a, const void *b, void *hosts)
{
    const char *const *h = hosts;
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(h[x], h[y]);
    return c ? c : (x > y) - (x < y);
}

int psk_simi_host_ids(const char *const *hosts, int P, int *id)
{
    int *idx = malloc((size_t)(P ? P : 1) * sizeof *idx);
    if (!idx)
        return -1;
    for (int q = 0; q < P; q++)
        idx[q] = q;
    qsort_r(idx, (size_t)P, sizeof *idx, cmp_host, (void *)hosts);
    int n = 0;
    for (int a = 0, b; a < P; a = b, n++)
        for (b = a; b < P && !strcmp(hosts[idx[a]], hosts[idx[b]]); b++)
            id[idx[b]] = n;
    free(idx);
    return n;
}

/* a start (+1) or end (-1) of a rank's compute, on its host's clock */
typedef struct bound {
    int64_t t;
    int32_t q, d;
} bound;

typedef struct sweep {
    bound *b;
    size_t n, cap;
    int q;
    int64_t off;       /* the rank's clock offset */
    uint64_t prev;     /* its last call's exit */
    int started;       /* past MPI_Init */
    int done;          /* MPI_Finalize reached */
    unsigned fin;      /* MPI_Finalize's function id */
} sweep;

static int add(sweep *w, uint64_t t, int d)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 4096;
        bound *b = realloc(w->b, cap * sizeof *b);
        if (!b)
            return PSK_ENOMEM;
        w->b = b, w->cap = cap;
    }
    w->b[w->n++] = (bound){(int64_t)t - w->off, w->q, d};
    return 0;
}

/* one event of rank w->q, in its order: the gap before it is compute */
static int on_event(void *arg, const psk_event *e)
{
    sweep *w = arg;
    if (w->done)
        return 0;
    if (w->started && e->t_entry > w->prev && (add(w, w->prev, 1) || add(w, e->t_entry, -1)))
        return PSK_ENOMEM;
    w->prev = e->t_exit;
    w->started = 1;
    w->done = e->fn == w->fin;
    return 0;
}

static int cmp_bound(const void *a, const void *b)
{
    const bound *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->d - y->d; /* ends first */
}

typedef struct source {
    psk_trace *t;
    psk_merged *m;
} source;

/* the rank's events into w */
static int read_rank(psk_sim *s, const source *src, sweep *w)
{
    if (src->m) {
        int rc = psk_merged_expand(src->m, w->q, on_event, w);
        if (rc && rc != PSK_ENOMEM)
            snprintf(s->err, sizeof s->err, "%s", psk_merged_errmsg(src->m));
        return rc;
    }
    psk_rank_reader *rd;
    int rc = psk_rank_open(src->t, w->q, &rd);
    psk_event e;
    while (!rc && !(rc = psk_rank_next(rd, &e)))
        if ((rc = on_event(w, &e)))
            break;
    if (rc == PSK_EOF || rc == PSK_ETRUNCATED)
        rc = 0;
    if (rc && rc != PSK_ENOMEM)
        snprintf(s->err, sizeof s->err, "%s", psk_rank_errmsg(rd));
    psk_rank_close(rd);
    return rc;
}

/* the cores rank q's host had when it was recorded: job.json's, else the
 * machine's when the machine was calibrated there; 0 not known */
static int recorded_cores(const psk_sim *s, const psk_job *job, int q)
{
    if (job->cores)
        return job->cores[q];
    if (s->m->host[0] && job->hosts && !strcmp(job->hosts[q], s->m->host))
        return s->m->cores_per_node;
    return 0;
}

static int deflate(psk_sim *s, const source *src, const psk_job *job)
{
    int P = s->P;
    for (int q = 0; q < P; q++)
        s->deflate[q] = 1;
    if (!job->hosts)
        return 0;
    int *id = malloc((size_t)P * sizeof *id), *on = calloc((size_t)P, sizeof *on);
    double *wk = calloc((size_t)P, sizeof *wk), *gp = calloc((size_t)P, sizeof *gp), *fs = calloc((size_t)P, sizeof *fs);
    int64_t *ts = calloc((size_t)P, sizeof *ts);
    sweep w = {.fin = psk_fn_lookup("MPI_Finalize")};
    int rc = !id || !on || !wk || !gp || !fs || !ts ? PSK_ENOMEM : 0;
    int nh = rc ? 0 : psk_simi_host_ids(job->hosts, P, id);
    if (nh < 0)
        rc = PSK_ENOMEM;
    for (int q = 0; !rc && q < P; q++)
        on[id[q]]++;
    for (int h = 0; !rc && h < nh; h++) {
        int first = -1;
        for (int q = 0; q < P && first < 0; q++)
            first = id[q] == h ? q : -1;
        int cores = recorded_cores(s, job, first), n = on[h];
        if (cores <= 0 || n <= cores)
            continue;
        if (job->flavour != PSK_MPI_OPENMPI) { /* busy waiting: every rank wanted a core all the time */
            for (int q = 0; q < P; q++)
                if (id[q] == h)
                    s->deflate[q] = (double)cores / n;
            continue;
        }
        w.n = 0;
        for (int q = 0; !rc && q < P; q++)
            if (id[q] == h) {
                w.q = q, w.prev = 0, w.started = 0, w.done = 0;
                w.off = 0; /* the ranks of a host share its clock: their offsets are noise */
                rc = read_rank(s, src, &w);
            }
        if (rc)
            break;
        if (w.n) /* no bounds (ranks without events) leave w.b NULL: nothing to sort */
            qsort(w.b, w.n, sizeof *w.b, cmp_bound);
        /* F: the integral of what a computing rank got of a core */
        double F = 0;
        int k = 0;
        for (size_t i = 0; i < w.n; i++) {
            const bound *b = &w.b[i];
            if (i)
                F += (double)(b->t - w.b[i - 1].t) * (k > cores ? (double)cores / k : 1.0);
            if (b->d > 0) {
                fs[b->q] = F, ts[b->q] = b->t;
                k++;
            } else {
                wk[b->q] += F - fs[b->q];
                gp[b->q] += (double)(b->t - ts[b->q]);
                k--;
            }
        }
        for (int q = 0; q < P; q++)
            if (id[q] == h && gp[q] > 0)
                s->deflate[q] = wk[q] / gp[q];
    }
    free(w.b), free(id), free(on), free(wk), free(gp), free(fs), free(ts);
    if (rc) {
        if (rc == PSK_ENOMEM)
            snprintf(s->err, sizeof s->err, "out of memory");
        s->failed = 1;
    }
    return rc;
}

int psk_simi_deflate_trace(psk_sim *s, psk_trace *t, const psk_job *job)
{
    source src = {.t = t};
    return deflate(s, &src, job);
}

int psk_simi_deflate_merged(psk_sim *s, psk_merged *m, const psk_job *job)
{
    source src = {.m = m};
    return deflate(s, &src, job);
}
