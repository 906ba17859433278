/* Statistics of each loop-body event, over the loop's iterations and the
 * ranks taking part: compute gap before the event and time inside it
 * (mean, deviation, extremes; in a run of polls the compute between them
 * counts as gap), the rank with the largest mean gap (the one
 * the others wait for), and how the message count changes with the
 * iteration: constant, linear in the iteration index, or a table (the
 * varying counts of NPB MG, one of the benchmarks of Zhang et al., Journal
 * of Software 2010; docs/folding.md, Per loop-body statistics). Walks the
 * loop tree and the merged trace side by side. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fold_internal.h"
#include "perfskel/merge.h"

typedef struct acc {
    double gs, gq, gmin, gmax, ds, dq, dmin, dmax;
    uint64_t execs, samples;
    int64_t *cnt;      /* count per execution */
    int64_t *cit;      /* iteration index per execution */
    int64_t ncnt, cap;
    int has_count;
} acc;

typedef struct stwalk {
    psk_folded *f;
    acc *a;
    double *rank_gap; /* node x P sums, or NULL */
    fold_outliers *ol;
    int P;
    int rc;
} stwalk;

static int visit(void *arg, const psk_fstep *st)
{
    stwalk *w = arg;
    const psk_mevent *me = st->ev;
    int32_t node = st->node;
    const int64_t *iter = st->iter;
    int depth = st->depth;
    acc *a = &w->a[node];
    a->execs++;
    for (int j = 0; j < me->nranks; j++) {
        double g = (double)me->gap[j], d = (double)(me->ev[j].t_exit - me->ev[j].t_entry);
        if (psk_fn_polled(me->ev[j].fn) && PSK_HAS(&me->ev[j], PSK_F_I2)) {
            /* a run of polls spans its compute: that is compute, the rest is MPI */
            double w = (double)me->ev[j].v[PSK_F_I2];
            w = w < d ? w : d;
            g += w, d -= w;
        }
        if (!a->samples) {
            a->gmin = a->gmax = g;
            a->dmin = a->dmax = d;
        }
        a->samples++;
        a->gs += g, a->gq += g * g, a->ds += d, a->dq += d * d;
        a->gmin = g < a->gmin ? g : a->gmin;
        a->gmax = g > a->gmax ? g : a->gmax;
        a->dmin = d < a->dmin ? d : a->dmin;
        a->dmax = d > a->dmax ? d : a->dmax;
        if (w->rank_gap)
            w->rank_gap[(size_t)node * (size_t)w->P + (size_t)me->ranks[j]] += g;
        fold_outliers_add(w->ol, node, iter, depth, me->ranks[j], g);
    }
    if (PSK_HAS(me, PSK_F_COUNT) && me->nranks > 0) {
        if (a->ncnt == a->cap) {
            int64_t cap = a->cap ? 2 * a->cap : 8;
            int64_t *c = realloc(a->cnt, (size_t)cap * sizeof *c), *i = c ? realloc(a->cit, (size_t)cap * sizeof *i) : NULL;
            if (c)
                a->cnt = c;
            if (!c || !i)
                return w->rc = PSK_ENOMEM;
            a->cit = i;
            a->cap = cap;
        }
        a->has_count = 1;
        a->cnt[a->ncnt] = me->ev[0].v[PSK_F_COUNT];
        a->cit[a->ncnt++] = depth > 0 ? iter[depth - 1] : 0;
    }
    return 0;
}

static void classify(psk_fstats *s, acc *a, int64_t loop_count)
{
    if (!a->has_count) {
        s->count_kind = PSK_COUNT_NONE;
        return;
    }
    int64_t n = a->ncnt, i;
    for (i = 1; i < n && a->cnt[i] == a->cnt[0]; i++)
        ;
    if (i == n) {
        s->count_kind = PSK_COUNT_CONST;
        s->count_a = a->cnt[0];
        return;
    }
    /* linear in the iteration: from two executions at different iterations */
    int64_t j0 = -1, j1 = -1;
    for (i = 0; i < n && j1 < 0; i++) {
        if (j0 < 0)
            j0 = i;
        else if (a->cit[i] != a->cit[j0])
            j1 = i;
    }
    if (j1 >= 0) {
        int64_t di = a->cit[j1] - a->cit[j0], dv = a->cnt[j1] - a->cnt[j0];
        if (di != 0 && dv % di == 0) {
            int64_t b = dv / di, c = a->cnt[j0] - b * a->cit[j0];
            for (i = 0; i < n && a->cnt[i] == c + b * a->cit[i]; i++)
                ;
            if (i == n) {
                s->count_kind = PSK_COUNT_LINEAR;
                s->count_a = c;
                s->count_b = b;
                return;
            }
        }
    }
    /* a table: by iteration if every execution of the loop repeats it */
    s->count_kind = PSK_COUNT_TABLE;
    s->count_by_iter = 0;
    s->ncount = n;
    s->count_table = a->cnt;
    if (loop_count > 0 && loop_count <= n) {
        for (i = 0; i < n && a->cit[i] < loop_count && a->cnt[i] == a->cnt[a->cit[i]] && a->cit[a->cit[i]] == a->cit[i]; i++)
            ;
        if (i == n) {
            s->count_by_iter = 1;
            s->ncount = loop_count;
        }
    }
}

int psk_folded_stats(psk_folded *f, psk_merged *m)
{
    if ((uint64_t)f->n != psk_merged_length(m))
        return fail_folded(f, PSK_EINVAL, "the merged trace has %llu events, the folding %lld",
                           (unsigned long long)psk_merged_length(m), (long long)f->n);
    int32_t nn = f->nnodes;
    int P = psk_merged_nranks(m);
    stwalk w = {.f = f, .P = P};
    w.a = calloc((size_t)nn, sizeof *w.a);
    free(f->stats);
    f->stats = calloc((size_t)nn, sizeof *f->stats);
    if (!f->tables)
        f->tables = calloc((size_t)nn, sizeof *f->tables);
    if ((uint64_t)nn * (uint64_t)P <= (1u << 24))
        w.rank_gap = calloc((size_t)nn * (size_t)P, sizeof *w.rank_gap);
    fold_outliers_free(f->outliers);
    f->outliers = w.ol = fold_outliers_new(f, P);
    if (!w.a || !f->stats || !f->tables || !w.ol) {
        free(w.a), free(w.rank_gap);
        return fail_folded(f, PSK_ENOMEM, "out of memory");
    }
    w.rc = psk_folded_walk_merged(f, m, visit, &w);
    if (!w.rc)
        w.rc = fold_outliers_finish(w.ol, f);
    for (int32_t id = 0; id < nn && !w.rc; id++) {
        psk_fstats *s = &f->stats[id];
        acc *a = &w.a[id];
        s->slowest_rank = -1;
        if (f->node[id].kind != PSK_FNODE_SYM || !a->samples)
            continue;
        double k = (double)a->samples;
        s->execs = a->execs;
        s->samples = a->samples;
        s->gap_mean = a->gs / k;
        s->gap_sd = sqrt(fmax(0.0, a->gq / k - s->gap_mean * s->gap_mean));
        s->gap_min = a->gmin;
        s->gap_max = a->gmax;
        s->mpi_mean = a->ds / k;
        s->mpi_sd = sqrt(fmax(0.0, a->dq / k - s->mpi_mean * s->mpi_mean));
        s->mpi_min = a->dmin;
        s->mpi_max = a->dmax;
        if (w.rank_gap) {
            const double *rg = w.rank_gap + (size_t)id * (size_t)P;
            double per = (double)a->execs;
            for (int r = 0; r < P; r++)
                if (rg[r] > 0 && (s->slowest_rank < 0 || rg[r] / per > s->slowest_gap_mean)) {
                    s->slowest_rank = r;
                    s->slowest_gap_mean = rg[r] / per;
                }
        }
        int32_t par = f->node[id].parent;
        classify(s, a, par >= 0 && f->node[par].kind == PSK_FNODE_LOOP ? f->node[par].count : 0);
        if (s->count_kind == PSK_COUNT_TABLE) { /* the table stays with the node */
            free(f->tables[id]);
            f->tables[id] = a->cnt;
            a->cnt = NULL;
        }
    }
    for (int32_t id = 0; id < nn; id++) {
        free(w.a[id].cnt);
        free(w.a[id].cit);
    }
    free(w.a);
    free(w.rank_gap);
    if (!w.rc)
        w.rc = fold_params_compute(f, m);
    return w.rc ? fail_folded(f, w.rc, "the merged trace does not match the folding (%s)", psk_merged_errmsg(m))
                : PSK_OK;
}

const psk_fstats *psk_folded_node_stats(const psk_folded *f, int32_t id)
{
    return f->stats ? &f->stats[id] : NULL;
}
