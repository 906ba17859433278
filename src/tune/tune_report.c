/* The report (PSK_TUNE_REPORT=FILE: text, JSON if FILE ends in .json) and
 * the decisions for the file (PSK_TUNE_DB), made in MPI_Finalize: rank 0
 * of each communicator renders its groups (every rank of it knows the
 * same agreed figures; the call sites are rank 0's), a communicator freed
 * earlier when it is freed; world rank 0 gathers them and writes. Per
 * group: the arms tried with calls and mean slowest-rank time, the model's
 * predictions, the decision and when it changed (call index), exploring's
 * cost, and the group's time against native's measured the same way
 * calls - the calls' time - the decisions' allreduces). Under a policy
 * without groups (a forced arm) rank 0's own times per key instead. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "psk_json.h"
#include "tune_internal.h"

/* summary figures, summed over groups then over ranks */
enum {
    S_CALLS, S_TIME, S_EXPLORE, S_OVERHEAD, S_DECIDE, S_SETUP, S_GROUPS, S_NEAR, S_CHANGES, S_EXPLORE0, S_ALARMS,
    S_TUNED_C, S_NATIVE_C, S_H2, S_CALLS_C, S_CALLS_NOSPREAD, S_CALLS_NONE, S_HELD_CALLS, S_HELD_GROUPS, S_N
};

typedef struct out {
    char *text, *json, *db;
    size_t ntext, njson, ndb;
    FILE *ft, *fj, *fd;
    double sum[S_N];
} out;

static int out_open(out *o)
{
    memset(o, 0, sizeof *o);
    o->ft = open_memstream(&o->text, &o->ntext);
    o->fj = open_memstream(&o->json, &o->njson);
    o->fd = open_memstream(&o->db, &o->ndb);
    return o->ft && o->fj && o->fd ? 0 : -1;
}

static void out_close(out *o)
{
    if (o->ft)
        fclose(o->ft);
    if (o->fj)
        fclose(o->fj);
    if (o->fd)
        fclose(o->fd);
    o->ft = o->fj = o->fd = NULL;
}

static void out_free(out *o)
{
    out_close(o);
    free(o->text);
    free(o->json);
    free(o->db);
}

/* a JSON value in the stream of objects: a comma before all but the first */
static void json_sep(out *o)
{
    if (ftell(o->fj) > 0)
        fputc(',', o->fj);
}

static double us(double ns) { return ns / 1e3; }

static double arm_est(const psk_tune_group *g, int a);

/* the best arm in hindsight: the least estimate of those measured twice
 * or more (one call's time says little), else of all measured */
static double best_est(const psk_tune_group *g)
{
    double best = 0;
    for (int pass = 0; pass < 2 && best <= 0; pass++)
        for (int a = 0; a < PSK_TUNE_NARMS; a++) {
            double e = arm_est(g, a);
            if (e > 0 && (pass || g->arm[a].calls >= 2) && (best <= 0 || e < best))
                best = e;
        }
    return best;
}

static double arm_est(const psk_tune_group *g, int a)
{
    if (g->bytes && g->arm[a].tuned > 0) /* STAR's own estimate */
        return g->arm[a].tuned;
    double e = psk_tune_learn_est(g, a);
    if (!(e > 0) && g->arm[a].calls)
        e = g->arm[a].time / (double)g->arm[a].calls;
    return e;
}

/* native's time per call for the decision file: its measured mean, the
 * file's own when native ran fewer than 3 times here, else 0 */
static double native_ns(const psk_tune_group *g)
{
    const psk_tune_arml *n = &g->arm[PSK_TUNE_native];
    if (n->calls >= 3 || (n->calls && !(g->db_native_ns > 0)))
        return n->time / (double)n->calls;
    return g->db_native_ns > 0 ? g->db_native_ns : 0;
}

/* Against native, measured the same way: the group's time (its calls and
 * its decisions' allreduces, slowest rank) and what native would have
 * taken for the same calls: the group's first slot as measured (its cold
 * start, which a native run pays too), the others at native's mean per
 * call in this run (its later unmixed slots), with that mean's variance:
 * the per-call variance pooled from the slots' means, each weighted by its
 * calls, over native's calls. Its 95 % half-width takes Student's t for
 * the slots it came from. Native measured in one slot only, or only in
 * the decision file (a warm start), gives its time without a spread;
 * never measured, no comparison. */
enum { VS_NONE, VS_RUN, VS_ONE_SLOT, VS_FILE };
typedef struct vsnat {
    int how;
    double tuned, native, half; /* ns: the group's time, native's for the same calls, 95 % half-width */
    double per_call;            /* native's mean per call, ns */
    double samples;             /* native calls measured (VS_RUN, VS_ONE_SLOT) */
} vsnat;

static double t975(double df)
{
    static const double t[] = {0, 12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23,
                               2.20, 2.18, 2.16, 2.14, 2.13, 2.12, 2.11, 2.10, 2.09, 2.09};
    return df < 1 ? 0 : df <= 20 ? t[(int)df] : df <= 30 ? 2.06 : df <= 60 ? 2.01 : 1.96;
}

static vsnat vs_native(const psk_tune_group *g)
{
    vsnat v = {.how = VS_NONE, .tuned = g->total + g->decide_ns + g->setup_ns};
    double rest = (double)g->calls - (double)g->cold_calls, m = 0;
    if (g->nat_slots >= 2 && g->nat_k > 0) {
        m = g->nat_t / g->nat_k;
        double s2 = (g->nat_t2 - g->nat_k * m * m) / (double)(g->nat_slots - 1);
        v.how = VS_RUN;
        v.samples = g->nat_k;
        v.half = t975(g->nat_slots - 1) * rest * sqrt((s2 > 0 ? s2 : 0) / g->nat_k);
    } else if (g->nat_slots == 1 && g->nat_k > 0) {
        m = g->nat_t / g->nat_k;
        v.how = VS_ONE_SLOT;
        v.samples = g->nat_k;
    } else if (g->db_native_ns > 0) {
        m = g->db_native_ns;
        v.how = VS_FILE;
    }
    v.per_call = m;
    v.native = v.how == VS_NONE ? 0 : g->cold_ns + (rest > 0 ? rest : 0) * m;
    return v;
}

static const char *vs_from(int how)
{
    return how == VS_RUN ? "this run" : how == VS_ONE_SLOT ? "one slot" : how == VS_FILE ? "decision file" : "not measured";
}

/* "tuned 5.4 % slower than native [+2.3, +8.5 %], outside the noise" into f */
static void vs_text(FILE *f, double tuned, double native, double half, int spread)
{
    double d = tuned - native;
    fprintf(f, "tuned %.1f %% %s than native", fabs(100 * d / native), d > 0 ? "slower" : "faster");
    if (spread)
        fprintf(f, " [%+.1f, %+.1f %%], %s the noise", 100 * (d - half) / native, 100 * (d + half) / native,
                fabs(d) <= half ? "inside" : "outside");
    else
        fprintf(f, " (native's time without a spread: not tested against the noise)");
}

/* the headline's calls left out of its comparison, and why */
static void not_compared(FILE *f, const double *sum)
{
    if (sum[S_CALLS_NOSPREAD] > 0)
        fprintf(f, "; %.0f calls not compared: native's time without a spread (one slot of this run, or the "
                   "decision file's; their groups' lines compare them)",
                sum[S_CALLS_NOSPREAD]);
    if (sum[S_CALLS_NONE] > 0)
        fprintf(f, "; %.0f calls not compared (native not measured)", sum[S_CALLS_NONE]);
    if (sum[S_HELD_CALLS] > 0)
        fprintf(f, "; %.0f calls of %.0f collectives' sizes ran native, too few to pay for setting up a learner "
                   "(the gate)",
                sum[S_HELD_CALLS], sum[S_HELD_GROUPS]);
}

static void group_out(out *o, const psk_tune_comm *c, const psk_tune_group *g, int wrank)
{
    const psk_tune_cfg *cf = &psk_tune_cfg_g;
    uint64_t explore = 0;
    for (int a = 0; a < PSK_TUNE_NARMS; a++)
        explore += g->arm[a].explore;
    double mean_b = g->calls ? g->bytes_sum / (double)g->calls : 0;
    vsnat vs = vs_native(g);
    double best = best_est(g);
    uint64_t near = 0;
    for (int a = 0; a < PSK_TUNE_NARMS; a++)
        if (g->arm[a].calls && arm_est(g, a) <= 1.05 * best)
            near += g->arm[a].calls;
    double lo = g->sclass < 0 ? 0 : ldexp(1, g->sclass), hi = g->sclass < 0 ? 0 : ldexp(1, g->sclass + 1) - 1;
    o->sum[S_CALLS] += (double)g->calls;
    o->sum[S_TIME] += g->total;
    o->sum[S_EXPLORE] += (double)explore;
    o->sum[S_OVERHEAD] += g->overhead + g->explore_ar;
    o->sum[S_DECIDE] += g->decide_ns;
    o->sum[S_SETUP] += g->setup_ns;
    o->sum[S_GROUPS] += 1;
    o->sum[S_NEAR] += (double)near;
    o->sum[S_CHANGES] += (double)g->nchanges;
    o->sum[S_EXPLORE0] += (double)g->explore_initial;
    o->sum[S_ALARMS] += (double)g->alarms;
    /* the headline compares the groups whose native was measured in
     * this run with a spread; a time from one slot or from the decision
     * file (an earlier run's moment) is the group's line's only */
    if (vs.how == VS_NONE)
        o->sum[S_CALLS_NONE] += (double)g->calls;
    else if (vs.how != VS_RUN)
        o->sum[S_CALLS_NOSPREAD] += (double)g->calls;
    else {
        o->sum[S_TUNED_C] += vs.tuned;
        o->sum[S_NATIVE_C] += vs.native;
        o->sum[S_H2] += vs.half * vs.half;
        o->sum[S_CALLS_C] += (double)g->calls;
    }

    /* ---- text ---- */
    FILE *t = o->ft;
    /* bytes per peer (alltoall, allgather) or in all (bcast, allreduce) */
    const char *per = g->coll == PSK_TUNE_C_alltoall || g->coll == PSK_TUNE_C_allgather ? "per peer" : "in all";
    fprintf(t, "\n%s, communicator of %d ranks (#%u on world rank %d, its rank 0), ", psk_tune_coll_mpi_name(g->coll),
            c->size, c->id, wrank);
    if (g->bytes)
        fprintf(t, "%zu B %s", g->bytes, per);
    else
        fprintf(t, "size class %d (%.0f..%.0f B %s)", g->sclass, lo, hi, per);
    fprintf(t, ": %llu calls, mean %.0f B", (unsigned long long)g->calls, mean_b);
    if (g->gate_calls)
        fprintf(t, " (after %llu native ones before it was set up: the gate)", (unsigned long long)g->gate_calls);
    fprintf(t, "\n");
    fprintf(t, "  sites:");
    int nsites = 0;
    for (size_t i = 0; i < c->capkeys; i++) {
        const psk_tune_key *k = &c->keys[i];
        if (k->site && k->coll == g->coll && k->sclass == g->sclass) {
            fprintf(t, " %s+0x%lx (%llu calls)", k->where->module, (unsigned long)k->where->offset,
                    (unsigned long long)k->calls);
            nsites++;
        }
    }
    fprintf(t, "%s%s\n", nsites ? "" : " (none known)", g->sites_differ ? "; the ranks' call sites differ" : "");
    fprintf(t, "  decision: %s, %s; prior: %s", psk_tune_arm_name(g->inc), psk_tune_phase_name(g->phase),
            psk_tune_origin_name(g->origin));
    if (g->origin != ORIGIN_NONE && g->seed_arm >= 0)
        fprintf(t, " (%s)", psk_tune_arm_name(g->seed_arm));
    fprintf(t, "\n  %-8s %9s %9s %11s %11s %11s  %s\n", "arm", "calls", "explored", "mean us", "estimate us",
            "model us", "state");
    for (int a = 0; a < PSK_TUNE_NARMS; a++) {
        const psk_tune_arml *s = &g->arm[a];
        if (!s->calls && !(g->active >> a & 1) && !s->n)
            continue;
        char state[64] = "";
        if (a == g->inc)
            snprintf(state, sizeof state, "decision");
        else if (s->dropped)
            snprintf(state, sizeof state, "dropped at call %llu", (unsigned long long)(s->dropped - 1));
        else if (g->active >> a & 1)
            snprintf(state, sizeof state, "candidate");
        else if (a == g->runner)
            snprintf(state, sizeof state, "runner-up");
        double e = g->bytes ? s->tuned : psk_tune_learn_est(g, a);
        fprintf(t, "  %-8s %9llu %9llu %11.2f", psk_tune_arm_name(a), (unsigned long long)s->calls,
                (unsigned long long)s->explore, s->calls ? us(s->time / (double)s->calls) : 0);
        if (e > 0)
            fprintf(t, " %11.2f", us(e));
        else
            fprintf(t, " %11s", "-");
        if (g->pred[a] > 0)
            fprintf(t, " %11.2f  %s\n", us(g->pred[a]), state);
        else
            fprintf(t, " %11s  %s\n", "-", state);
    }
    fprintf(t, "  changes:");
    for (int i = 0; i < g->nhist; i++) {
        const psk_tune_change *h = &g->hist[i];
        if (h->why == WHY_START || h->why == WHY_WARM || h->from == h->to)
            fprintf(t, "%s call %llu %s (%s)", i ? ";" : "", (unsigned long long)h->call, psk_tune_arm_name(h->to),
                    psk_tune_why_name(h->why));
        else
            fprintf(t, "%s call %llu %s -> %s (%s)", i ? ";" : "", (unsigned long long)h->call,
                    psk_tune_arm_name(h->from), psk_tune_arm_name(h->to), psk_tune_why_name(h->why));
    }
    if ((uint64_t)g->nhist < g->nchanges + 1)
        fprintf(t, "; ... %llu changes in all", (unsigned long long)g->nchanges);
    fprintf(t, "\n  time %.3f ms in calls + %.3f ms in %llu decision allreduces + %.3f ms setting up; exploring: %llu "
               "calls (%llu before a change was detected; %llu detected, worth %.3f ms), %.3f ms (%.2f %% of the calls' "
               "time)\n",
            g->total / 1e6, g->decide_ns / 1e6, (unsigned long long)g->decisions, g->setup_ns / 1e6,
            (unsigned long long)explore,
            (unsigned long long)g->explore_initial, (unsigned long long)g->alarms, g->credit / 1e6,
            (g->overhead + g->explore_ar) / 1e6, g->total > 0 ? 100 * (g->overhead + g->explore_ar) / g->total : 0);
    if (vs.how == VS_NONE || !(vs.native > 0)) {
        fprintf(t, "  against native: not measured\n");
    } else {
        fprintf(t, "  against native (%s: %.2f us a call", vs_from(vs.how), us(vs.per_call));
        if (vs.how == VS_RUN || vs.how == VS_ONE_SLOT)
            fprintf(t, ", %.0f calls", vs.samples);
        fprintf(t, "): %.3f ms for these calls, the group %.3f ms: ", vs.native / 1e6, vs.tuned / 1e6);
        vs_text(t, vs.tuned, vs.native, vs.half, vs.how == VS_RUN);
        fprintf(t, "\n");
    }
    fprintf(t, "  calls on an arm within 5 %% of the best in hindsight: %.1f %%\n",
            g->calls ? 100.0 * (double)near / (double)g->calls : 0);

    /* ---- JSON ---- */
    json_sep(o);
    psk_json j;
    psk_json_init(&j, o->fj, 0);
    psk_json_obj(&j, NULL);
    psk_json_int(&j, "ranks", c->size);
    psk_json_int(&j, "leader_world_rank", wrank);
    psk_json_int(&j, "comm", c->id);
    psk_json_str(&j, "machine", c->machine);
    psk_json_str(&j, "collective", psk_tune_coll_name(g->coll));
    psk_json_int(&j, "size_class", g->sclass);
    if (g->bytes)
        psk_json_uint(&j, "bytes", g->bytes);
    psk_json_num(&j, "mean_bytes", mean_b);
    psk_json_uint(&j, "calls", g->calls);
    psk_json_arr(&j, "sites");
    for (size_t i = 0; i < c->capkeys; i++) {
        const psk_tune_key *k = &c->keys[i];
        if (k->site && k->coll == g->coll && k->sclass == g->sclass) {
            char off[32];
            snprintf(off, sizeof off, "0x%lx", (unsigned long)k->where->offset);
            psk_json_obj(&j, NULL);
            psk_json_str(&j, "module", k->where->module);
            psk_json_str(&j, "offset", off);
            psk_json_uint(&j, "calls", k->calls);
            psk_json_end(&j);
        }
    }
    psk_json_end(&j);
    psk_json_bool(&j, "sites_differ", g->sites_differ);
    psk_json_str(&j, "decision", psk_tune_arm_name(g->inc));
    psk_json_str(&j, "phase", psk_tune_phase_name(g->phase));
    psk_json_str(&j, "prior", psk_tune_origin_name(g->origin));
    if (g->origin != ORIGIN_NONE && g->seed_arm >= 0)
        psk_json_str(&j, "prior_arm", psk_tune_arm_name(g->seed_arm));
    psk_json_arr(&j, "arms");
    for (int a = 0; a < PSK_TUNE_NARMS; a++) {
        const psk_tune_arml *s = &g->arm[a];
        if (!s->calls && !(g->active >> a & 1) && !s->n)
            continue;
        psk_json_obj(&j, NULL);
        psk_json_str(&j, "arm", psk_tune_arm_name(a));
        psk_json_uint(&j, "calls", s->calls);
        psk_json_uint(&j, "exploration_calls", s->explore);
        psk_json_num(&j, "mean_us", s->calls ? us(s->time / (double)s->calls) : 0);
        psk_json_num(&j, "estimate_us", us(psk_tune_learn_est(g, a)));
        if (g->pred[a] > 0)
            psk_json_num(&j, "model_us", us(g->pred[a]));
        if (g->bytes && s->tuned > 0)
            psk_json_num(&j, "star_tuned_us", us(s->tuned));
        if (s->dropped)
            psk_json_uint(&j, "dropped_at_call", s->dropped - 1);
        psk_json_end(&j);
    }
    psk_json_end(&j);
    psk_json_arr(&j, "changes");
    for (int i = 0; i < g->nhist; i++) {
        psk_json_obj(&j, NULL);
        psk_json_uint(&j, "call", g->hist[i].call);
        if (g->hist[i].why == WHY_START || g->hist[i].why == WHY_WARM)
            psk_json_null(&j, "from");
        else
            psk_json_str(&j, "from", psk_tune_arm_name(g->hist[i].from));
        psk_json_str(&j, "to", psk_tune_arm_name(g->hist[i].to));
        psk_json_str(&j, "why", psk_tune_why_name(g->hist[i].why));
        psk_json_end(&j);
    }
    psk_json_end(&j);
    psk_json_uint(&j, "switches", g->nchanges);
    psk_json_uint(&j, "exploration_calls", explore);
    psk_json_uint(&j, "exploration_calls_before_change", g->explore_initial);
    psk_json_uint(&j, "changes_detected", g->alarms);
    psk_json_num(&j, "time_us", us(g->total));
    psk_json_num(&j, "decision_us", us(g->decide_ns));
    psk_json_num(&j, "setup_us", us(g->setup_ns));
    psk_json_uint(&j, "calls_before_setup", g->gate_calls);
    psk_json_num(&j, "time_before_setup_us", us(g->gate_ns));
    psk_json_uint(&j, "decisions", g->decisions);
    psk_json_num(&j, "learning_overhead_us", us(g->overhead + g->explore_ar));
    psk_json_num(&j, "change_credit_us", us(g->credit));
    psk_json_str(&j, "native_from", vs_from(vs.how));
    if (vs.how != VS_NONE) {
        psk_json_num(&j, "native_us_per_call", us(vs.per_call));
        psk_json_num(&j, "native_samples", vs.samples);
        psk_json_num(&j, "native_us", us(vs.native));
        psk_json_num(&j, "tuned_us", us(vs.tuned));
        if (vs.how == VS_RUN)
            psk_json_num(&j, "native_halfwidth_us", us(vs.half));
        else
            psk_json_null(&j, "native_halfwidth_us");
    }
    psk_json_uint(&j, "calls_within_5pct_of_best", near);
    psk_json_end(&j);

    /* ---- the group's state, for the file, settled or not (the next run
     * goes on from it): groups whose sites all ranks share ---- */
    double nat_file = native_ns(g);
    if (cf->policy == POLICY_LEARN && !g->sites_differ && !g->bytes)
        for (size_t i = 0; i < c->capkeys; i++) {
            const psk_tune_key *k = &c->keys[i];
            if (!k->site || k->coll != g->coll || k->sclass != g->sclass)
                continue;
            psk_tune_dbent e = {.P = c->size, .sclass = g->sclass, .offset = k->where->offset,
                                .stamp = (long long)time(NULL)};
            psk_tune_resume_save(g, nat_file, &e);
            snprintf(e.machine, sizeof e.machine, "%s", c->machine);
            snprintf(e.mpi, sizeof e.mpi, "%s", psk_tune_db_mpi());
            snprintf(e.module, sizeof e.module, "%s", k->where->module);
            if (isfinite(e.total_ns) && isfinite(e.spent_ns) && isfinite(e.native_ns))
                psk_tune_db_format(o->fd, &e);
        }
}

/* a forced arm: rank 0's own times per key */
static void keys_out(out *o, const psk_tune_comm *c, int wrank)
{
    for (size_t i = 0; i < c->capkeys; i++) {
        const psk_tune_key *k = &c->keys[i];
        if (!k->site)
            continue;
        fprintf(o->ft, "\n%s, communicator of %d ranks (#%u on world rank %d), site %s+0x%lx, size class %d: %llu calls "
                       "(this rank's times)\n",
                psk_tune_coll_mpi_name(k->coll), c->size, c->id, wrank, k->where->module,
                (unsigned long)k->where->offset, k->sclass, (unsigned long long)k->calls);
        json_sep(o);
        psk_json j;
        psk_json_init(&j, o->fj, 0);
        psk_json_obj(&j, NULL);
        psk_json_int(&j, "ranks", c->size);
        psk_json_int(&j, "leader_world_rank", wrank);
        psk_json_int(&j, "comm", c->id);
        psk_json_str(&j, "module", k->where->module);
        char off[32];
        snprintf(off, sizeof off, "0x%lx", (unsigned long)k->where->offset);
        psk_json_str(&j, "offset", off);
        psk_json_str(&j, "collective", psk_tune_coll_name(k->coll));
        psk_json_int(&j, "size_class", k->sclass);
        psk_json_uint(&j, "calls", k->calls);
        psk_json_arr(&j, "arms");
        for (int a = 0; a < PSK_TUNE_NARMS; a++) {
            const psk_tune_armstat *s = &k->arm[a];
            if (!s->calls)
                continue;
            fprintf(o->ft, "  %-8s %9u calls, mean %.2f us, least %.2f us\n", psk_tune_arm_name(a), s->calls,
                    us((double)s->sum_ns / s->calls), us(s->min_ns));
            psk_json_obj(&j, NULL);
            psk_json_str(&j, "arm", psk_tune_arm_name(a));
            psk_json_uint(&j, "calls", s->calls);
            psk_json_num(&j, "mean_us", us((double)s->sum_ns / s->calls));
            psk_json_num(&j, "least_us", us(s->min_ns));
            psk_json_end(&j);
            o->sum[S_CALLS] += s->calls;
            o->sum[S_TIME] += (double)s->sum_ns;
        }
        psk_json_end(&j);
        psk_json_end(&j);
    }
}

static void comm_out(const psk_tune_comm *c, void *arg)
{
    out *o = arg;
    if (c->rank != 0)
        return;
    int wrank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    /* the calls the gate held native, of groups never set up; for the
     * file, their sites' held calls (the next run counts them) */
    for (int k = 0; k < PSK_TUNE_NCOLL; k++)
        for (int s = 0; c->pend[k] && s < PSK_TUNE_NCLASS; s++) {
            const psk_tune_pend *p = &c->pend[k][s];
            if (!p->calls)
                continue;
            o->sum[S_HELD_CALLS] += p->calls;
            o->sum[S_HELD_GROUPS] += 1;
            for (size_t i = 0; psk_tune_cfg_g.policy == POLICY_LEARN && i < c->capkeys; i++) {
                const psk_tune_key *key = &c->keys[i];
                psk_tune_dbent e;
                if (key->site && key->coll == k && key->sclass == s && !psk_tune_gate_entry(c, p, key->where, &e))
                    psk_tune_db_format(o->fd, &e);
            }
        }
    if (c->learn == 1)
        for (int i = 0; i < c->ngroups; i++)
            group_out(o, c, c->groups[i], wrank);
    else if (psk_tune_cfg_g.policy == POLICY_FIXED || psk_tune_cfg_g.policy == POLICY_CYCLE)
        keys_out(o, c, wrank);
}

/* ---- freed communicators ---- */

static struct {
    pthread_mutex_t lock;
    int open;
    out o;
} A = {PTHREAD_MUTEX_INITIALIZER, 0, {0}};

void psk_tune_report_archive(const psk_tune_comm *c)
{
    const psk_tune_cfg *cf = &psk_tune_cfg_g;
    if (c->rank != 0 || (!cf->report && !cf->db))
        return;
    pthread_mutex_lock(&A.lock);
    if (!A.open)
        A.open = out_open(&A.o) ? -1 : 1;
    if (A.open == 1)
        comm_out(c, &A.o);
    pthread_mutex_unlock(&A.lock);
}

/* ---- the end ---- */

/* every rank's three parts (text, JSON, decisions) to world rank 0: the
 * lengths, whether rank 0 has the memory, the bytes; NULL elsewhere or if
 * it has not. part[k] on rank 0: the ranks' parts k, one after the other */
static int gather(char *const mine[3], const size_t n[3], int wrank, int wsize, char *part[3], size_t npart[3])
{
    int len[3];
    for (int k = 0; k < 3; k++)
        len[k] = n[k] > (size_t)1 << 28 ? 0 : (int)n[k]; /* beyond 256 MiB a part is dropped */
    int *lens = NULL, *cnt = NULL, *disp = NULL, ok = 1;
    if (wrank == 0) {
        lens = malloc(3 * (size_t)wsize * sizeof *lens);
        cnt = malloc((size_t)wsize * sizeof *cnt);
        disp = malloc((size_t)wsize * sizeof *disp);
        ok = lens && cnt && disp;
    }
    if (PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS || !ok ||
        PMPI_Gather(len, 3, MPI_INT, lens, 3, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
        free(lens), free(cnt), free(disp);
        return -1;
    }
    char *all = NULL;
    long long sum = 0;
    if (wrank == 0) {
        for (int r = 0; r < wsize; r++) {
            cnt[r] = lens[3 * r] + lens[3 * r + 1] + lens[3 * r + 2];
            disp[r] = (int)sum;
            if (sum + cnt[r] > INT32_MAX) /* what fits */
                cnt[r] = lens[3 * r] = lens[3 * r + 1] = lens[3 * r + 2] = 0;
            sum += cnt[r];
        }
        all = malloc((size_t)sum + 1);
        ok = all != NULL;
    }
    char *buf = malloc((size_t)len[0] + (size_t)len[1] + (size_t)len[2] + 1);
    int mylen = 0;
    for (int k = 0; buf && k < 3; k++)
        memcpy(buf + mylen, mine[k], (size_t)len[k]), mylen += len[k];
    /* a rank without memory for its own copy sends nothing: rank 0
     * knows, through the second vote */
    int mine_ok = buf != NULL, all_ok = 0;
    int v[2] = {ok, mine_ok};
    if (PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD) == MPI_SUCCESS)
        all_ok = v[0] && v[1];
    if (all_ok)
        all_ok = PMPI_Gatherv(buf, mylen, MPI_CHAR, all, cnt, disp, MPI_CHAR, 0, MPI_COMM_WORLD) == MPI_SUCCESS;
    free(buf);
    if (wrank == 0 && all_ok) {
        for (int k = 0; k < 3; k++) {
            size_t tot = 0;
            for (int r = 0; r < wsize; r++)
                tot += (size_t)lens[3 * r + k];
            part[k] = malloc(tot + 1);
            npart[k] = 0;
            for (int r = 0; part[k] && r < wsize; r++) {
                size_t off = (size_t)disp[r];
                for (int h = 0; h < k; h++)
                    off += (size_t)lens[3 * r + h];
                memcpy(part[k] + npart[k], all + off, (size_t)lens[3 * r + k]);
                npart[k] += (size_t)lens[3 * r + k];
            }
            if (part[k])
                part[k][npart[k]] = 0;
        }
    }
    free(all), free(lens), free(cnt), free(disp);
    return all_ok ? 0 : -1;
}

static void write_report(const char *path, const char *text, size_t ntext, const char *json, size_t njson,
                         const double *sum, int wsize)
{
    size_t n = strlen(path);
    int is_json = n >= 5 && !strcmp(path + n - 5, ".json");
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "perfskel-tune: PSK_TUNE_REPORT %s: cannot write it\n", path);
        return;
    }
    const psk_tune_cfg *cf = &psk_tune_cfg_g;
    double half = sqrt(sum[S_H2]);
    int compared = sum[S_CALLS_C] > 0 && sum[S_NATIVE_C] > 0;
    if (is_json) {
        psk_json j;
        psk_json_init(&j, f, 0);
        psk_json_obj(&j, NULL);
        psk_json_str(&j, "format", "perfskel-tune report 2");
        psk_json_str(&j, "policy", psk_tune_policy_name());
        psk_json_str(&j, "mpi", psk_tune_db_mpi());
        psk_json_int(&j, "world_ranks", wsize);
        psk_json_num(&j, "budget", cf->budget);
        psk_json_num(&j, "margin", cf->margin);
        if (cf->policy == POLICY_STAR)
            psk_json_int(&j, "star_x", cf->star_x);
        psk_json_obj(&j, "headline");
        psk_json_num(&j, "calls_compared", sum[S_CALLS_C]);
        psk_json_num(&j, "calls_without_spread", sum[S_CALLS_NOSPREAD]);
        psk_json_num(&j, "calls_not_compared", sum[S_CALLS_NONE]);
        if (compared) {
            double d = sum[S_TUNED_C] - sum[S_NATIVE_C];
            psk_json_num(&j, "tuned_us", us(sum[S_TUNED_C]));
            psk_json_num(&j, "native_us", us(sum[S_NATIVE_C]));
            psk_json_num(&j, "native_halfwidth_us", us(half));
            psk_json_num(&j, "difference_percent", 100 * d / sum[S_NATIVE_C]);
            psk_json_num(&j, "low_percent", 100 * (d - half) / sum[S_NATIVE_C]);
            psk_json_num(&j, "high_percent", 100 * (d + half) / sum[S_NATIVE_C]);
            psk_json_bool(&j, "inside_noise", fabs(d) <= half);
        }
        psk_json_end(&j);
        psk_json_obj(&j, "summary");
        psk_json_num(&j, "calls", sum[S_CALLS]);
        psk_json_num(&j, "time_us", us(sum[S_TIME]));
        psk_json_num(&j, "groups", sum[S_GROUPS]);
        psk_json_num(&j, "exploration_calls", sum[S_EXPLORE]);
        psk_json_num(&j, "exploration_calls_before_change", sum[S_EXPLORE0]);
        psk_json_num(&j, "changes_detected", sum[S_ALARMS]);
        psk_json_num(&j, "learning_overhead_us", us(sum[S_OVERHEAD]));
        psk_json_num(&j, "decision_us", us(sum[S_DECIDE]));
        psk_json_num(&j, "setup_us", us(sum[S_SETUP]));
        psk_json_num(&j, "calls_held_native", sum[S_HELD_CALLS]);
        psk_json_num(&j, "groups_held_native", sum[S_HELD_GROUPS]);
        psk_json_num(&j, "switches", sum[S_CHANGES]);
        psk_json_num(&j, "calls_within_5pct_of_best", sum[S_NEAR]);
        psk_json_end(&j);
        fprintf(f, ",\"%s\":[", cf->policy == POLICY_FIXED || cf->policy == POLICY_CYCLE ? "keys" : "groups");
        fwrite(json, 1, njson, f);
        fprintf(f, "]}\n");
    } else {
        /* the headline first: the collectives' time against native's */
        if (compared) {
            fprintf(f, "perfskel tune: the collectives taken over took %.3f ms in %.0f calls (deciding and setting up included); "
                       "native, measured the same way in this run, %.3f ms",
                    sum[S_TUNED_C] / 1e6, sum[S_CALLS_C], sum[S_NATIVE_C] / 1e6);
            fprintf(f, " +- %.3f (95 %%): ", half / 1e6);
            vs_text(f, sum[S_TUNED_C], sum[S_NATIVE_C], half, 1);
            not_compared(f, sum);
            fprintf(f, "\n");
        } else if (cf->policy == POLICY_FIXED || cf->policy == POLICY_CYCLE) {
            fprintf(f, "perfskel tune: the collectives taken over took %.3f ms in %.0f calls (each communicator's "
                       "rank 0's own times); under policy %s native is not compared in the run\n",
                    sum[S_TIME] / 1e6, sum[S_CALLS], psk_tune_policy_name());
        } else {
            fprintf(f, "perfskel tune: the collectives taken over took %.3f ms in %.0f calls; native not measured "
                       "with a spread in this run: no comparison",
                    (sum[S_TIME] + sum[S_DECIDE] + sum[S_SETUP]) / 1e6, sum[S_CALLS]);
            not_compared(f, sum);
            fprintf(f, "\n");
        }
        fprintf(f, "policy %s, %s, %d ranks: %.0f calls in %.0f groups, %.3f ms", psk_tune_policy_name(),
                psk_tune_db_mpi(), wsize, sum[S_CALLS], sum[S_GROUPS], sum[S_TIME] / 1e6);
        if (sum[S_GROUPS] > 0)
            fprintf(f, " + %.3f ms deciding + %.3f ms setting up; exploring %.0f calls, %.3f ms (%.2f %%); %.0f "
                       "switches; %.1f %% of calls within 5 %% of the best arm",
                    sum[S_DECIDE] / 1e6, sum[S_SETUP] / 1e6, sum[S_EXPLORE], sum[S_OVERHEAD] / 1e6,
                    sum[S_TIME] > 0 ? 100 * sum[S_OVERHEAD] / sum[S_TIME] : 0, sum[S_CHANGES],
                    sum[S_CALLS] > 0 ? 100 * sum[S_NEAR] / sum[S_CALLS] : 0);
        fprintf(f, "\n");
        fwrite(text, 1, ntext, f);
    }
    if (fclose(f))
        fprintf(stderr, "perfskel-tune: PSK_TUNE_REPORT %s: cannot write it\n", path);
}

void psk_tune_report_finalize(void)
{
    const psk_tune_cfg *cf = &psk_tune_cfg_g;
    int wrank = 0, wsize = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    PMPI_Comm_size(MPI_COMM_WORLD, &wsize);
    /* every process is here (MPI_Finalize's entry points): agree on whether
     * anything is wanted, whatever the environment says on each */
    int want[2] = {cf->report != NULL, cf->db != NULL};
    if (PMPI_Allreduce(MPI_IN_PLACE, want, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS || !(want[0] || want[1]))
        return;
    out o;
    if (out_open(&o))
        out_close(&o); /* an empty part, still sent */
    else
        psk_tune_comm_each(comm_out, &o);
    out_close(&o);
    pthread_mutex_lock(&A.lock);
    if (A.open == 1) { /* freed communicators' parts */
        out_close(&A.o);
        for (int i = 0; i < S_N; i++)
            o.sum[i] += A.o.sum[i];
    }
    pthread_mutex_unlock(&A.lock);
    /* this rank's parts: live then freed communicators; each JSON object
     * after a comma, rank 0 drops the first */
    const char *src[3][2] = {{o.text, A.open == 1 ? A.o.text : NULL},
                             {o.json, A.open == 1 ? A.o.json : NULL},
                             {o.db, A.open == 1 ? A.o.db : NULL}};
    size_t slen[3][2] = {{o.text ? o.ntext : 0, A.open == 1 && A.o.text ? A.o.ntext : 0},
                         {o.json ? o.njson : 0, A.open == 1 && A.o.json ? A.o.njson : 0},
                         {o.db ? o.ndb : 0, A.open == 1 && A.o.db ? A.o.ndb : 0}};
    char *mine[3];
    size_t nmine[3];
    for (int k = 0; k < 3; k++) {
        mine[k] = malloc(slen[k][0] + slen[k][1] + 3);
        nmine[k] = 0;
        for (int h = 0; mine[k] && h < 2; h++)
            if (slen[k][h]) {
                if (k == 1)
                    mine[k][nmine[k]++] = ',';
                memcpy(mine[k] + nmine[k], src[k][h], slen[k][h]);
                nmine[k] += slen[k][h];
            }
    }
    char *empty = "";
    char *send[3] = {mine[0] ? mine[0] : empty, mine[1] ? mine[1] : empty, mine[2] ? mine[2] : empty};
    size_t nsend[3] = {mine[0] ? nmine[0] : 0, mine[1] ? nmine[1] : 0, mine[2] ? nmine[2] : 0};
    char *got[3] = {NULL, NULL, NULL};
    size_t ngot[3] = {0, 0, 0};
    int ok = gather(send, nsend, wrank, wsize, got, ngot) == 0;
    double sum[S_N];
    if (PMPI_Reduce(o.sum, sum, S_N, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        ok = 0;
    if (wrank == 0 && ok) {
        const char *json = got[1] ? got[1] : "";
        size_t nj = got[1] ? ngot[1] : 0;
        if (nj && json[0] == ',')
            json++, nj--;
        if (cf->report)
            write_report(cf->report, got[0] ? got[0] : "", got[0] ? ngot[0] : 0, json, nj, sum, wsize);
        if (cf->db && got[2])
            psk_tune_db_save(cf->db, got[2], ngot[2]);
    } else if (wrank == 0)
        fprintf(stderr, "perfskel-tune: out of memory at MPI_Finalize: no report or decision file written\n");
    for (int k = 0; k < 3; k++)
        free(mine[k]);
    for (int k = 0; k < 3; k++)
        free(got[k]);
    out_free(&o);
    /* written: a state freed from now on (MPI_Finalize deletes
     * MPI_COMM_SELF's attributes newest first, a communicator state on it
     * before the end is marked) is not archived into closed streams */
    pthread_mutex_lock(&A.lock);
    if (A.open == 1)
        out_free(&A.o);
    A.open = -1;
    pthread_mutex_unlock(&A.lock);
}
