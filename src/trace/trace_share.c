/* The sharing of cores a recording saw, and how much of its compute gaps
 * was work. A rank recorded on a host with more ranks than cores computed
 * part of each gap (from one call's exit to the next call's entry) and
 * waited for a core the rest: its gaps hold more time than its work. sim
 * times only the work on the target's cores; a skeleton runs only the
 * work, and shares its cores again where it runs.
 *
 * MPICH waits busily: every rank of the host wants a core all the time, so
 * each got cores / ranks of one. Open MPI yields when it knows it is
 * oversubscribed: only the ranks computing want a core, so a rank
 * computing while k ranks of its host compute (itself included) got
 * min(1, cores / k): each host's ranks' gaps are swept in time order, and
 * each rank's work is the integral of that over its gaps. (Other
 * programs' share of the cores is measured by the recorder instead:
 * job.json's cpu.run_share, record_wait.c.) */
#include <stdlib.h>
#include <string.h>

#include "perfskel/common.h"
#include "perfskel/trace.h"

/* a start (+1) or end (-1) of a rank's compute, on its host's clock */
typedef struct bound {
    int64_t t;
    int32_t q, d;
} bound;

typedef struct sweep {
    bound *b;
    size_t n, cap;
    int q;
    uint64_t prev;     /* the rank's last call's exit */
    int started;       /* past MPI_Init */
    int done;          /* MPI_Finalize reached */
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
    /* the ranks of a host share its clock: their offsets are noise */
    w->b[w->n++] = (bound){(int64_t)t, w->q, d};
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
    w->done = psk_fn_op(e->fn) == PSK_FNOP_FINALIZE;
    return 0;
}

static int cmp_bound(const void *a, const void *b)
{
    const bound *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->d - y->d; /* ends first */
}

/* host h's ranks' (id[q] == h) shares of their gaps, swept; wk, gp, fs, ts:
 * scratch of P entries, zeros */
static void sweep_host(sweep *w, int cores, const int *id, int h, int P, double *wk, double *gp, double *fs,
                       int64_t *ts, double *share)
{
    if (w->n) /* no bounds (ranks without events) leave w->b NULL: nothing to sort */
        qsort(w->b, w->n, sizeof *w->b, cmp_bound);
    /* F: the integral of what a computing rank got of a core */
    double F = 0;
    int k = 0;
    for (size_t i = 0; i < w->n; i++) {
        const bound *b = &w->b[i];
        if (i)
            F += (double)(b->t - w->b[i - 1].t) * (k > cores ? (double)cores / k : 1.0);
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
            share[q] = wk[q] / gp[q];
}

static int cmp_host(const void *a, const void *b, void *hosts)
{
    const char *const *h = hosts;
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(h[x], h[y]);
    return c ? c : (x > y) - (x < y);
}

int psk_host_ids(const char *const *hosts, int P, int *id)
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

/* Each rank's offset to the common clock: the ranks of a host share its
 * clock (their recorded offsets are the ping-pong's noise, and an
 * extrapolated trace has none), so the offset of the host's first rank,
 * none on rank 0's host; all 0 where the job has no offsets. 0 or
 * PSK_ENOMEM. */
int psk_clock_offsets(const psk_job *job, int64_t *off)
{
    int P = job->nranks;
    memset(off, 0, (size_t)(P > 0 ? P : 0) * sizeof *off);
    if (!job->clock_offsets_ns)
        return PSK_OK;
    if (!job->hosts) {
        memcpy(off, job->clock_offsets_ns, (size_t)P * sizeof *off);
        return PSK_OK;
    }
    int *id = malloc((size_t)(P ? P : 1) * sizeof *id), *first = malloc((size_t)(P ? P : 1) * sizeof *first);
    int nh = id && first ? psk_host_ids(job->hosts, P, id) : -1;
    for (int h = 0; h < nh; h++)
        first[h] = -1;
    for (int q = 0; q < P && nh > 0; q++) {
        if (first[id[q]] < 0)
            first[id[q]] = q;
        off[q] = id[q] == id[0] ? 0 : job->clock_offsets_ns[first[id[q]]];
    }
    free(id), free(first);
    return nh < 0 ? PSK_ENOMEM : PSK_OK;
}

/* per rank its host's index in id and per host its ranks in on (P
 * entries each, on zeros): how many hosts, or -1 out of memory */
static int host_counts(const psk_job *job, int *id, int *on)
{
    int nh = psk_host_ids(job->hosts, job->nranks, id);
    for (int q = 0; nh > 0 && q < job->nranks; q++)
        on[id[q]]++;
    return nh;
}

int psk_ranks_crowded(const psk_job *job, const int *cores, unsigned char *crowded)
{
    int P = job->nranks, n = 0;
    if (crowded)
        memset(crowded, 0, (size_t)(P > 0 ? P : 0));
    if (!cores)
        cores = job->cores;
    if (!job->hosts || !cores || P <= 0)
        return 0;
    int *id = malloc((size_t)P * sizeof *id), *on = calloc((size_t)P, sizeof *on);
    int nh = id && on ? host_counts(job, id, on) : -1;
    for (int q = 0; nh > 0 && q < P; q++) {
        int c = cores[q] > 0 && on[id[q]] > cores[q];
        n += c;
        if (crowded)
            crowded[q] = (unsigned char)c;
    }
    free(id), free(on);
    return nh < 0 ? PSK_ENOMEM : n;
}

typedef struct onto {
    int host, cpu, q;
} onto;

static int onto_cmp(const void *a, const void *b)
{
    const onto *x = a, *y = b;
    if (x->host != y->host)
        return x->host < y->host ? -1 : 1;
    if (x->cpu != y->cpu)
        return x->cpu < y->cpu ? -1 : 1;
    return (x->q > y->q) - (x->q < y->q);
}

int psk_ranks_placed(const psk_job *job, int *slot)
{
    int P = job->nranks;
    for (int q = 0; q < P; q++)
        slot[q] = -1;
    if (!job->hosts || !job->cores || !job->cpu_on || P <= 0)
        return PSK_OK;
    onto *o = malloc((size_t)P * sizeof *o);
    int *id = malloc((size_t)P * sizeof *id);
    if (!o || !id || psk_host_ids(job->hosts, P, id) < 0) {
        free(o), free(id);
        return PSK_ENOMEM;
    }
    for (int q = 0; q < P; q++)
        o[q] = (onto){id[q], job->cpu_on[q], q};
    qsort(o, (size_t)P, sizeof *o, onto_cmp);
    for (int a = 0, b; a < P; a = b) {
        int distinct = 0, ok = 1;
        for (b = a; b < P && o[b].host == o[a].host; b++) {
            ok &= o[b].cpu >= 0;
            distinct += b == a || o[b].cpu != o[b - 1].cpu;
        }
        ok &= distinct <= job->cores[o[a].q];
        for (int i = a, n = -1; i < b; i++) {
            n += i == a || o[i].cpu != o[i - 1].cpu;
            slot[o[i].q] = ok ? n : -1;
        }
    }
    free(o), free(id);
    return PSK_OK;
}

int psk_work_share(const psk_job *job, const int *cores, psk_rank_events_fn read, void *src, double *share)
{
    int P = job->nranks;
    for (int q = 0; q < P; q++)
        share[q] = 1;
    if (!cores)
        cores = job->cores;
    if (!job->hosts || !cores || P <= 0)
        return 0;
    int *id = malloc((size_t)P * sizeof *id), *on = calloc((size_t)P, sizeof *on);
    double *wk = calloc((size_t)P, sizeof *wk), *gp = calloc((size_t)P, sizeof *gp), *fs = calloc((size_t)P, sizeof *fs);
    int64_t *ts = calloc((size_t)P, sizeof *ts);
    sweep w = {0};
    int rc = !id || !on || !wk || !gp || !fs || !ts ? PSK_ENOMEM : 0;
    int nh = rc ? 0 : host_counts(job, id, on);
    if (nh < 0)
        rc = PSK_ENOMEM;
    for (int h = 0; !rc && h < nh; h++) {
        int first = -1;
        for (int q = 0; q < P && first < 0; q++)
            first = id[q] == h ? q : -1;
        int c = cores[first], n = on[h];
        if (c <= 0 || n <= c)
            continue;
        if (job->flavour != PSK_MPI_OPENMPI) { /* busy waiting: every rank wanted a core all the time */
            for (int q = 0; q < P; q++)
                if (id[q] == h)
                    share[q] = (double)c / n;
            continue;
        }
        w.n = 0;
        for (int q = 0; !rc && q < P; q++)
            if (id[q] == h) {
                w.q = q, w.prev = 0, w.started = 0, w.done = 0;
                rc = read(src, q, on_event, &w);
            }
        if (!rc)
            sweep_host(&w, c, id, h, P, wk, gp, fs, ts, share);
    }
    free(w.b), free(id), free(on), free(wk), free(gp), free(fs), free(ts);
    return rc;
}
