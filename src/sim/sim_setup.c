/* Setting up perfskel sim's replay, and what it hands back: the tables,
 * every rank's CPU power, the network and the program interval (setup),
 * the two entry points (a trace directory's rank files: psk_sim_run; a
 * merged trace's folded program: psk_sim_run_folded), the results'
 * accessors, the memory the replay holds, and psk_sim_close. The first
 * error is kept in s->err (psk_simi_fail). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "psk_mem.h"
#include "sim_state.h"

static const char *const metric_names[PSK_M_N] = {"exec", "cpu", "p2p", "collective", "wait", "sync",
                                                  "variation", "overlap", "idle", "imbalance", "lost"};
const char *psk_metric_name(int m) { return m >= 0 && m < PSK_M_N ? metric_names[m] : "?"; }

int psk_simi_fail(psk_sim *s, int rc, const char *fmt, ...)
{
    if (!s->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->err, sizeof s->err, fmt, ap);
        va_end(ap);
    }
    s->failed = 1;
    return rc;
}

/* what both sources of events share: tables, power, network, program interval */
static int setup(psk_sim *s, const psk_job *job, const psk_sim_opts *o)
{
    s->P = job->nranks;
    s->format_version = job->format_version;
    s->m = o->machine;
    s->maxdepth = o->depth;
    s->opts = o;
    s->eval_node = -1;
    s->opof = calloc(psk_fn_count(), 1);
    s->collof = calloc(psk_fn_count(), 1);
    s->ordered = calloc(psk_fn_count(), 1);
    s->r = psk_big_calloc((size_t)s->P, sizeof *s->r);
    s->inv_power = malloc((size_t)s->P * sizeof *s->inv_power);
    s->poll_scale = malloc((size_t)s->P * sizeof *s->poll_scale);
    s->deflate = malloc((size_t)s->P * sizeof *s->deflate);
    s->crowded = calloc((size_t)s->P, 1);
    s->tl = calloc((size_t)s->P * PSK_TL_BINS * 3, sizeof *s->tl);
    s->tl_width = 1000; /* 1 us */
    if (!s->opof || !s->collof || !s->ordered || !s->r || psk_simi_tree_init(s) || !s->inv_power || !s->poll_scale ||
        !s->deflate || !s->crowded || !s->tl)
        return psk_simi_fail(s, PSK_ENOMEM, "out of memory");
    psk_simi_set_ops(s);
    if (psk_simi_cc_init(s))
        return psk_simi_fail(s, PSK_ENOMEM, "out of memory");
    for (int q = 0; q < s->P; q++) {
        s->r[q].onode = -1; /* folded replays say where each event comes from */
        s->r[q].core = -1;
        s->deflate[q] = 1;
    }
    for (unsigned fn = 0; fn < psk_fn_count(); fn++)
        s->ordered[fn] = (uint8_t)psk_simi_ordered(s->opof[fn]);
    /* each rank's CPU power (psk_machine_rank_power: the power keys, or
     * from calibrate's timings of the work unit against the recording's) */
    for (int q = 0; q < s->P; q++) {
        double pw = psk_machine_rank_power(s->m, job, q, q ? NULL : &s->power_why);
        s->inv_power[q] = 1.0 / pw;
        /* the short timings' ratio: the speed between a quota's pauses */
        s->poll_scale[q] = s->m->work_unit_ns > 0 && job->work_ns_per_unit && job->work_ns_per_unit[q] > 0
                               ? s->m->work_unit_ns / job->work_ns_per_unit[q] : s->inv_power[q];
        if (q == 0)
            s->power0 = pw;
    }
    /* no machine file: the recording's hosts are the nodes, unless one had
     * more ranks than cores (its calls give no floors: the default start
     * time between nodes stands for their costs, sim_callcost.c) */
    int *host = NULL, nh = 0;
    if (s->m->nodes_recorded && job->hosts && job->cores && s->m->type != PSK_NET_GRID) {
        int *on = calloc((size_t)(s->P ? s->P : 1), sizeof *on);
        if (!on || !(host = malloc((size_t)(s->P ? s->P : 1) * sizeof *host)) ||
            (nh = psk_host_ids(job->hosts, s->P, host)) < 0) {
            free(on), free(host);
            return psk_simi_fail(s, PSK_ENOMEM, "out of memory");
        }
        for (int q = 0; q < s->P; q++)
            on[host[q]]++;
        for (int q = 0; q < s->P && host; q++)
            if (job->cores[q] > 0 && on[host[q]] > job->cores[q])
                free(host), host = NULL, nh = 0;
        free(on);
    }
    int rc = psk_net_init(&s->net, s->m, s->P, host, nh);
    free(host);
    if (rc == PSK_EINVAL)
        return psk_simi_fail(s, rc, "the grid's topology has fewer nodes than the %d the ranks need", s->net.nnodes);
    if (rc)
        return psk_simi_fail(s, rc, "out of memory");
    /* a trace of MPICH, with no eager threshold given: MPICH's (4.0,
     * ch4:ucx, between ranks of one node: a ring of messages took a turn
     * of the cores more from 8,260 bytes on, docs/simulation.md) */
    s->net.mpich = job->flavour == PSK_MPI_MPICH;
    if (s->net.mpich && !s->m->eager_given)
        s->net.eager = PSK_MPICH_EAGER;
    if (psk_simi_ival_child(s, -1, 0, 0) != 0)
        return psk_simi_fail(s, PSK_ENOMEM, "out of memory");
    return PSK_OK;
}

int psk_sim_run(psk_trace *t, const psk_sim_opts *o, psk_sim **out)
{
    psk_sim *s = calloc(1, sizeof *s);
    *out = s;
    if (!s)
        return PSK_ENOMEM;
    int rc = setup(s, psk_trace_job(t), o);
    if (rc)
        return rc;
    s->trace = t;
    /* more ranks than files may be open: readers past the cap let their
     * file go, keeping 4 KB of events, and reopen where they were */
    if (psk_rank_pool_new(0, 4096, &s->pool))
        return psk_simi_fail(s, PSK_ENOMEM, "out of memory");
    for (int q = 0; q < s->P; q++)
        if ((rc = psk_rank_open_pooled(t, q, s->pool, &s->r[q].rd)))
            return psk_simi_fail(s, rc, "%s", psk_rank_errmsg(s->r[q].rd));
    if ((rc = psk_simi_cc_trace(s, t)))
        return s->failed = 1, rc;
    /* the recording's sharing of its hosts' cores, then the target's */
    if (!s->m->sharing_off && (rc = psk_simi_deflate_trace(s, t, psk_trace_job(t))))
        return rc;
    if (!s->m->sharing_off && (rc = psk_simi_cores_init(s, psk_trace_job(t))))
        return psk_simi_fail(s, rc, "out of memory");
    if ((rc = psk_simi_cc_finish(s, psk_trace_job(t))))
        return psk_simi_fail(s, rc, "out of memory");
    return psk_simi_run(s);
}

/* each merged event of the folded program's building: its gaps, and the
 * call floors' first pass */
static int each_event(void *arg, const psk_mevent *me, int j0, int j1, char *err, size_t cap)
{
    psk_sim *s = arg;
    int rc = psk_fgaps_add(s->gaps, me, j0, j1);
    if (rc)
        snprintf(err, cap, "%s", rc == PSK_ENOMEM ? "out of memory" : psk_fgaps_errmsg(s->gaps));
    else if ((rc = psk_simi_cc_merged_event(s, me, j0, j1)))
        snprintf(err, cap, "out of memory");
    return rc;
}

int psk_sim_run_folded(psk_merged *m, const psk_folded *f, const psk_sim_opts *o, psk_sim **out)
{
    psk_sim *s = calloc(1, sizeof *s);
    *out = s;
    if (!s)
        return PSK_ENOMEM;
    int rc = setup(s, psk_merged_job(m), o);
    if (rc)
        return rc;
    s->merged = m;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    /* a poll of 10 us or more: loops that poll are replayed, not skipped
     * (polling_halo on the testbed, 150 us a poll: +3.9 % skipping, +0.7 %
     * at 50 us) */
    int poll_matters = 0;
    for (int i = 0; i < s->m->npoll; i++)
        poll_matters |= s->m->poll[2 * i + 1] >= 10;
    if (psk_fgaps_new(m, &s->gaps))
        return psk_simi_fail(s, PSK_ENOMEM, "out of memory");
    /* one pass over the merged trace builds the program, keeps the gaps
     * and makes the call floors' first pass */
    if ((rc = psk_simi_cc_merged_begin(s, m)))
        return s->failed = 1, rc;
    rc = psk_fprog_build(m, f, poll_matters, each_event, s, &s->fp, s->err, sizeof s->err, o->progress,
                         o->progress_arg);
    if (rc) {
        psk_simi_cc_merged_end(s, m, rc); /* frees its state (s->err keeps the building's reason) */
        s->failed = 1;
        return rc;
    }
    if ((rc = psk_simi_cc_merged_end(s, m, 0)))
        return s->failed = 1, rc;
    if ((rc = psk_fgaps_seal(s->gaps)))
        return psk_simi_fail(s, rc, "out of memory");
    clock_gettime(CLOCK_MONOTONIC, &b);
    s->build_s = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    if (!s->m->sharing_off && (rc = psk_simi_deflate_merged(s, m, psk_merged_job(m))))
        return rc;
    if (!s->m->sharing_off && (rc = psk_simi_cores_init(s, psk_merged_job(m))))
        return psk_simi_fail(s, rc, "out of memory");
    if ((rc = psk_simi_cc_finish(s, psk_merged_job(m))))
        return psk_simi_fail(s, rc, "out of memory");
    s->events = psk_fprog_poll_calls(s->fp); /* each run of polls is then replayed as one event */
    /* the cursors side by side, in huge pages: at many ranks each event
     * is another rank's, and a page walk for each would cost as much as
     * the event */
    psk_fcursor **fc = malloc((size_t)(s->P ? s->P : 1) * sizeof *fc);
    if (!fc || psk_fcursor_open_all(s->fp, s->P, o->loop_intervals ? o->depth : -1, fc, &s->fc_block)) {
        free(fc);
        return psk_simi_fail(s, PSK_ENOMEM, "out of memory");
    }
    for (int q = 0; q < s->P; q++)
        s->r[q].fc = fc[q];
    free(fc);
    return psk_simi_run(s);
}

int64_t psk_sim_eager_bytes(const psk_sim *s) { return s->net.eager; }

const char *psk_sim_sharing(const psk_sim *s, int *state)
{
    if (state)
        *state = s->share_state;
    return s->share_msg;
}

void psk_simi_memory(const psk_sim *s, psk_simi_mem *out)
{
    uint64_t b = (uint64_t)s->P * (sizeof *s->r + sizeof *s->inv_power + sizeof *s->poll_scale);
    b += (uint64_t)s->tnodes * sizeof *s->tn;
    if (s->opts && s->opts->timeline)
        b += (uint64_t)s->P * PSK_TL_BINS * 3 * sizeof *s->tl;
    for (int i = 0; i < s->niv; i++)
        b += sizeof *s->iv + (uint64_t)s->P * (PSK_M_N * sizeof *s->iv[i].m + sizeof *s->iv[i].count);
    for (int q = 0; s->r && q < s->P; q++) {
        const rank *r = &s->r[q];
        b += (uint64_t)r->nreq * sizeof *r->req + (uint64_t)r->ncomm * sizeof *r->comm;
        b += (uint64_t)r->cap * sizeof *r->stack + (uint64_t)r->npend * sizeof *r->pend_idx;
        b += (uint64_t)r->capfound * sizeof *r->found;
        b += r->fc ? psk_fcursor_bytes(r->fc) : 0;
        b += s->ncc ? (uint64_t)s->ncc[q] * sizeof **s->cc : 0; /* its call floors */
    }
    if (s->cc)
        b += (uint64_t)s->P * (sizeof *s->cc + sizeof *s->ncc + sizeof *s->start);
    b += s->gaps ? psk_fgaps_bytes(s->gaps) : 0;
    b += psk_simi_skip_bytes(s);
    out->state = b;
    out->program = s->fp ? psk_fprog_bytes(s->fp) : 0;
    out->tree_events = 0, out->pattern_exceptions = 0;
    out->pattern_events = s->fp ? psk_fprog_pattern_events(s->fp, &out->tree_events, &out->pattern_exceptions) : 0;
    out->snapshots = s->snapshots;
}

const char *psk_sim_errmsg(const psk_sim *s) { return s ? s->err : "out of memory"; }
int psk_sim_nranks(const psk_sim *s) { return s->P; }
double psk_sim_predicted(const psk_sim *s) { return s->predicted; }
uint64_t psk_sim_events(const psk_sim *s) { return s->events; }
uint64_t psk_sim_replayed(const psk_sim *s) { return s->replayed; }
double psk_sim_power(const psk_sim *s, const char **why)
{
    if (why)
        *why = s->power_why ? s->power_why : "default";
    return s->power0 > 0 ? s->power0 : 1.0;
}
int psk_sim_folded(const psk_sim *s) { return s->fp != NULL; }
int64_t psk_sim_skipped_iterations(const psk_sim *s) { return s->skipped_iters; }
double psk_sim_build_seconds(const psk_sim *s) { return s->build_s; }
uint64_t psk_sim_buffered(const psk_sim *s) { return s->buffered; }
int psk_sim_ended_early(const psk_sim *s, const char **first)
{
    *first = s->early_msg;
    return s->ended_early;
}
int psk_sim_nintervals(const psk_sim *s) { return s->niv; }
const psk_interval *psk_sim_interval(const psk_sim *s, int i) { return &s->iv[i].pub; }

const double *psk_sim_timeline(const psk_sim *s, int rank, double *bin_seconds)
{
    *bin_seconds = s->tl_width * 1e-9;
    return s->tl + (size_t)rank * PSK_TL_BINS * 3;
}

void psk_sim_close(psk_sim *s)
{
    if (!s)
        return;
    for (int q = 0; s->r && q < s->P; q++) {
        rank *r = &s->r[q];
        psk_rank_close(r->rd);
        psk_fcursor_close(r->fc);
        psk_rank_close(r->ahead);
        free(r->pend_idx);
        free(r->found);
        for (msg *m = r->unexp, *n; m; m = n)
            n = m->next, free(m);
        for (msg *m = r->matched, *n; m; m = n)
            n = m->next, free(m);
        for (precv *p = r->posted, *n; p; p = n)
            n = p->next, free(p);
        for (int64_t c = 0; c < r->ncomm; c++)
            psk_simi_members_free(s, r->comm[c].world);
        free(r->comm);
        free(r->req);
        free(r->stack);
    }
    for (coll_inst *c = s->colls, *n; c; c = n) {
        n = c->next;
        psk_simi_members_free(s, c->world);
        free(c->arrive), free(c->done), free(c->reqs), free(c->own);
        free(c);
    }
    free(s->world0);
    free(s->grids);
    for (int i = 0; i < s->niv; i++)
        free(s->iv[i].m), free(s->iv[i].count);
    free(s->iv);
    free(s->ivh);
    for (msg *m = s->free_msg, *n; m; m = n)
        n = m->next, free(m);
    for (precv *p = s->free_precv, *n; p; p = n)
        n = p->next, free(p);
    psk_fcursor_block_free(s->fc_block);
    psk_simi_skip_free(s);
    psk_fgaps_close(s->gaps);
    psk_fprog_free(s->fp);
    free(s->inv_power);
    free(s->poll_scale);
    for (int q = 0; s->cc && q < s->P; q++)
        free(s->cc[q]);
    free(s->cc), free(s->ncc), free(s->start), free(s->nofloor);
    psk_simi_cores_free(s);
    free(s->tl);
    free(s->r);
    psk_rank_pool_free(s->pool); /* after its readers */
    free(s->tn);
    free(s->opof);
    free(s->ordered);
    free(s->collof);
    psk_net_free(&s->net);
    free(s);
}
