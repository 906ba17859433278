/* The group table: per communicator a group for each collective and size
 * class (under STAR, each exact size), made collectively at its first call
 * from what every rank agrees is known of it (the decision file, other
 * groups' settled arms), else native first; each call recorded in its
 * window's slot, and at a window's end the one MPI_Allreduce(MAX) giving
 * all ranks the slowest rank's time of every slot, from which the policy
 * decides and plans the next window, nothing else a rank knows entering
 * it. Also each group's history of incumbents and the names of its states. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune_internal.h"

#define W0 4            /* native calls before anything else */
#define W0_SEEDED 2     /* ... when another group says what wins */
#define EXTRA 8         /* reduce words after the slots: see decide() */

/* ---- names, history ---- */

const char *psk_tune_why_name(int why)
{
    static const char *const n[] = {"start", "warm start", "explored", "change detected", "STAR learning",
                                    "STAR monitor"};
    return why >= 0 && why < (int)(sizeof n / sizeof *n) ? n[why] : "?";
}

const char *psk_tune_origin_name(int origin)
{
    static const char *const n[] = {"none", "decision file", "same size elsewhere", "decision file, other site",
                                    "neighbouring size", "decision file, exploring"};
    return origin >= 0 && origin < (int)(sizeof n / sizeof *n) ? n[origin] : "?";
}

const char *psk_tune_phase_name(int phase)
{
    static const char *const n[] = {"native", "exploring", "monitoring", "STAR learning", "STAR monitoring"};
    return phase >= 0 && phase < (int)(sizeof n / sizeof *n) ? n[phase] : "?";
}

void psk_tune_group_set_inc(psk_tune_group *g, int arm, int why)
{
    if (arm == g->inc && why != WHY_START && why != WHY_WARM)
        return;
    if (g->nhist < PSK_TUNE_NHIST)
        g->hist[g->nhist++] = (psk_tune_change){g->calls, (int8_t)g->inc, (int8_t)arm, (uint8_t)why};
    if (why != WHY_START)
        g->nchanges++;
    g->inc = arm;
}

/* PSK_TUNE_DEBUG=3: each decision on stderr (rank 0 of the communicator) */
static void trace(const psk_tune_comm *c, const psk_tune_group *g)
{
    char plan[512];
    int k = 0;
    for (int s = 0; s < g->nslot && k < (int)sizeof plan - 32; s++)
        k += g->scalls[s] > 1 ? snprintf(plan + k, sizeof plan - (size_t)k, " %sx%u", psk_tune_arm_name(g->sarm[s]),
                                         g->scalls[s])
                              : snprintf(plan + k, sizeof plan - (size_t)k, " %s", psk_tune_arm_name(g->sarm[s]));
    fprintf(stderr,
            "perfskel-tune: comm %u %s class %d call %llu: %s, %s; active %#x; bank %.1f us; noise %.3f cusum "
            "%.2f/%.2f of %.1f; next:%s\n",
            c->id, psk_tune_coll_name(g->coll), g->sclass, (unsigned long long)g->calls, psk_tune_phase_name(g->phase),
            psk_tune_arm_name(g->inc), g->active, psk_tune_learn_bank(g) / 1e3, g->noise, g->sp, g->sn, g->h, plan);
}

/* ---- a window's end: the one collective ---- */

/* of a slot's first i calls (of k planned), those timed (stride: the
 * window's; psk_tune_learn_timed) */
static uint32_t timed_of(uint32_t i, uint32_t k, int stride)
{
    if (stride <= 1)
        return i;
    if (k < (uint32_t)stride)
        return i == k;
    return i / (uint32_t)stride;
}

/* reduce words: the slots' sums; the sum of the slots after the first
 * (STAR's window mean); this rank's previous decision's time (allreduce
 * and deciding), negated (the least is its cost: the others' includes
 * waiting for the last); the window's call sites' hash in three chunks
 * and their negations; then (the learner's) the slots' sums with each
 * call cut at wcap, for the change detector */
static void decide(psk_tune_comm *c, psk_tune_group *g)
{
    int n = g->nslot;
    int star = g->phase == PH_STAR_LEARN || g->phase == PH_STAR_MON;
    double *b = g->st;
    double ext = 0;
    for (int s = 1; s < n; s++)
        ext += b[s];
    b[n] = g->sum_extra ? ext : 0;
    b[n + 1] = -g->ar_local; /* the least: the last rank to arrive waits for no one */
    psk_tune_agree_chunks(g->wsite, b + n + 2);
    for (int i = 0; i < 3; i++)
        b[n + 5 + i] = -b[n + 2 + i];
    if (!star)
        memcpy(b + n + EXTRA, g->sw, (size_t)n * sizeof *b);
    uint64_t t0 = psk_tune_now_ns();
    int rc = PMPI_Allreduce(MPI_IN_PLACE, b, n + EXTRA + (star ? 0 : n), MPI_DOUBLE, MPI_MAX, c->priv);
    g->ar_local = (double)(psk_tune_now_ns() - t0);
    if (rc != MPI_SUCCESS) { /* not recoverable in step: native from now */
        c->learn = -1;
        return;
    }
    g->decisions++;
    /* a sampled window's sums: of its timed calls, scaled to all of them */
    for (int s = 0; g->stride > 1 && s < n; s++) {
        double f = (double)g->scalls[s] / timed_of(g->scalls[s], g->scalls[s], g->stride);
        b[s] *= f;
        if (!star)
            b[n + EXTRA + s] *= f;
    }
    /* the allreduce's cost: the median of the last 8 (one descheduled
     * rank must not make the next windows long) */
    double ar = -b[n + 1];
    g->ars[g->nars++ % 8] = (float)ar;
    float v[8];
    int nv = g->nars < 8 ? (int)g->nars : 8;
    memcpy(v, g->ars, (size_t)nv * sizeof *v);
    g->ar_cost = psk_tune_stats_median(v, nv);
    g->decide_ns += ar;
    if (g->phase == PH_EXPLORE && !g->waiting)
        g->explore_ar += ar;
    for (int i = 0; i < 3; i++)
        if (b[n + 2 + i] != -b[n + 5 + i])
            g->sites_differ = 1;
    /* the slots into the arms' statistics */
    double per[LEARN_SLOTS > STAR_SLOTS ? LEARN_SLOTS : STAR_SLOTS], win[LEARN_SLOTS];
    int nper = n;
    double inc_est = psk_tune_learn_est(g, g->inc);
    for (int s = 0; s < n; s++) {
        int a = g->sarm[s];
        double t = b[s];
        per[s] = t / g->scalls[s];
        if (!star)
            win[s] = b[n + EXTRA + s] / g->scalls[s];
        g->total += t;
        g->arm[a].calls += g->scalls[s];
        g->arm[a].time += t;
        psk_tune_group_slot_stats(g, a, g->scalls[s], t, g->smixed[s]);
        if (a != g->inc && g->phase != PH_STAR_LEARN) {
            g->arm[a].explore += g->scalls[s];
            if (!g->alarms)
                g->explore_initial += g->scalls[s];
            if (inc_est > 0)
                g->overhead += t - g->scalls[s] * inc_est;
        } else if (g->phase == PH_STAR_LEARN) {
            g->arm[a].explore += g->scalls[s];
            g->explore_initial += g->scalls[s];
        }
        if (!g->smixed[s] && g->phase != PH_STAR_LEARN && g->phase != PH_STAR_MON)
            psk_tune_stats_add_sample(&g->arm[a], t / g->scalls[s]);
    }
    /* a probe and the incumbent's call next to it: a paired ratio */
    if (g->phase == PH_EXPLORE)
        for (int s = 0; s < n; s++) {
            int q = g->spair[s];
            if (q >= 0 && g->sarm[s] != g->inc && g->sarm[q] == g->inc && !g->smixed[s] && !g->smixed[q] &&
                per[s] > 0 && per[q] > 0)
                psk_tune_stats_add_ratio(&g->arm[g->sarm[s]], log(per[s] / per[q]));
        }
    if (star)
        psk_tune_star_decide(c, g, per, b[n]);
    else
        psk_tune_learn_decide(c, g, per, win, nper);
    if (g->phase == PH_MONITOR)
        psk_tune_learn_settled(c, g);
    /* what deciding cost this rank, the allreduce and the planning: the
     * windows are long enough for it (not the trace, nor the check) */
    g->ar_local = (double)(psk_tune_now_ns() - t0);
    if (psk_tune_cfg_g.debug >= 3 && c->rank == 0)
        trace(c, g);
    if (psk_tune_cfg_g.check)
        psk_tune_agree_check(c, g);
}

/* ---- groups ---- */

void psk_tune_learn_free(psk_tune_group *g)
{
    if (!g)
        return;
    free(g->sarm);
    free(g->smixed);
    free(g->spair);
    free(g->scalls);
    free(g->st);
    free(g->sw);
    free(g);
}

static psk_tune_group *group_alloc(int cap)
{
    psk_tune_group *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->cap = cap;
    g->sarm = malloc((size_t)cap);
    g->smixed = malloc((size_t)cap);
    g->spair = malloc((size_t)cap * sizeof *g->spair);
    g->scalls = malloc((size_t)cap * sizeof *g->scalls);
    g->st = malloc((2 * (size_t)cap + EXTRA) * sizeof *g->st);
    g->sw = malloc((size_t)cap * sizeof *g->sw);
    if (!g->sarm || !g->smixed || !g->spair || !g->scalls || !g->st || !g->sw) {
        psk_tune_learn_free(g);
        return NULL;
    }
    return g;
}

/* a decision-file entry's hash, over its line as written */
static uint64_t entry_hash(const psk_tune_dbent *e)
{
    char line[8192] = "";
    FILE *f = fmemopen(line, sizeof line - 1, "w");
    if (f) {
        psk_tune_db_format(f, e);
        fclose(f);
    }
    return psk_tune_agree_fnv(line);
}

psk_tune_group *psk_tune_learn_group(psk_tune_comm *c, int coll, size_t bytes, int inplace,
                                     const psk_tune_site *site)
{
    const psk_tune_cfg *cf = &psk_tune_cfg_g;
    int star = cf->policy == POLICY_STAR;
    int sclass = bytes ? 63 - __builtin_clzll((unsigned long long)bytes) : -1;
    size_t kb = star ? bytes : 0;
    for (int i = 0; i < c->ngroups; i++)
        if (c->groups[i]->coll == coll && c->groups[i]->sclass == sclass && c->groups[i]->bytes == kb)
            return c->groups[i];
    if (c->ngroups >= PSK_TUNE_MAXGROUPS)
        return NULL;
    int cap = star ? STAR_SLOTS : LEARN_SLOTS;
    psk_tune_group *g = group_alloc(cap);
    /* what is known of it already: the decision file for this site, what
     * another group settled, the file for another site or a neighbouring
     * size; every rank must know the same, or none is used */
    double v[10] = {g != NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    int same[10];
    const psk_tune_dbent *e = NULL;
    int seed_kind = ORIGIN_NONE, seed = -1;
    if (!star) {
        const psk_tune_dbent *o;
        if (site && cf->db)
            e = psk_tune_db_find(c->machine, c->size, site->module, site->offset, coll, sclass, 0);
        if ((seed = psk_tune_prior_of(c->size, coll, sclass)) >= 0)
            seed_kind = ORIGIN_SEED;
        else if (cf->db && (o = psk_tune_db_find(c->machine, c->size, NULL, 0, coll, sclass, 1)) != NULL)
            seed = o->arm, seed_kind = ORIGIN_SEED_DB;
        else if ((seed = psk_tune_prior_of(c->size, coll, sclass - 1)) >= 0 ||
                 (seed = psk_tune_prior_of(c->size, coll, sclass + 1)) >= 0)
            seed_kind = ORIGIN_NEIGHBOUR;
        else if (cf->db && ((o = psk_tune_db_find(c->machine, c->size, NULL, 0, coll, sclass - 1, 1)) != NULL ||
                            (o = psk_tune_db_find(c->machine, c->size, NULL, 0, coll, sclass + 1, 1)) != NULL))
            seed = o->arm, seed_kind = ORIGIN_NEIGHBOUR;
    }
    if (site)
        psk_tune_agree_chunks(site->id, v + 1);
    /* the file's entry for this site, whole: its line's hash (a rank that
     * read another version of the file, or none, makes it unused) */
    v[4] = e != NULL;
    v[5] = seed_kind;
    v[6] = seed + 1;
    if (e)
        psk_tune_agree_chunks(entry_hash(e), v + 7);
    if (psk_tune_agree(c->priv, v, same, 10) != MPI_SUCCESS || !same[0] || v[0] != 1) {
        psk_tune_learn_free(g);
        c->learn = -1; /* every rank: a group's memory is everyone's */
        return NULL;
    }
    c->groups[c->ngroups++] = g;
    g->coll = coll;
    g->sclass = sclass;
    g->bytes = kb;
    g->inc = PSK_TUNE_native;
    g->inc_before = -1;
    g->runner = -1;
    g->seed_arm = -1;
    g->h = CUSUM_H;
    g->sites_differ = !(same[1] && same[2] && same[3]);
    g->inplace = inplace;
    psk_tune_group_set_inc(g, PSK_TUNE_native, WHY_START);
    int use = !g->sites_differ && same[4] && v[4] == 1 && same[7] && same[8] && same[9];
    int state = !star && use ? psk_tune_resume_load(c, g, e, bytes, inplace) : -1;
    if (star) {
        psk_tune_star_start(c, g);
    } else if (state == PSK_TUNE_DB_SETTLED) {
        /* the file's decision, no exploring: monitoring from the start,
         * its baseline this run's own second window (watch) */
        g->origin = ORIGIN_WARM;
        g->seed_arm = e->arm;
        g->active = 0;
        psk_tune_group_set_inc(g, g->seed_arm, WHY_WARM);
        g->phase = PH_MONITOR;
        g->settled = 1;
        g->base = 0;
        g->warmup = 2;
        g->noise = NOISE0;
        g->runner = -1;
        g->probe_every = g->probe_wait = 4;
        psk_tune_plan_reset(g);
        psk_tune_plan_spread(g, g->inc, WMON_MIN, LEARN_SLOTS);
    } else if (state == PSK_TUNE_DB_EXPLORING) {
        /* an earlier run's exploring goes on: its incumbent for a short
         * window (this run's time of it), then its candidates */
        g->origin = ORIGIN_RESUME;
        g->first = -1;
        if (e->arm != PSK_TUNE_native)
            psk_tune_group_set_inc(g, e->arm, WHY_WARM);
        g->phase = PH_NATIVE0;
        psk_tune_plan_reset(g);
        for (int i = 0; i < W0_SEEDED; i++)
            psk_tune_plan_add(g, g->inc, 1);
    } else {
        if (same[5] && same[6] && v[5] != ORIGIN_NONE && v[6] >= 1 && v[6] <= PSK_TUNE_NARMS) {
            g->origin = (int)v[5];
            g->seed_arm = (int)v[6] - 1;
        }
        g->phase = PH_NATIVE0;
        psk_tune_plan_reset(g);
        for (int i = 0; i < (g->origin == ORIGIN_SEED || g->origin == ORIGIN_SEED_DB ? W0_SEEDED : W0); i++)
            psk_tune_plan_add(g, PSK_TUNE_native, 1);
    }
    return g;
}

/* a slot into the report's comparison with native: the group's first
 * slot is its cold start (first use of its buffers and connections, paid
 * by a native run too), native's others its measured time per call */
void psk_tune_group_slot_stats(psk_tune_group *g, int arm, uint32_t k, double t, int mixed)
{
    if (!k)
        return;
    if (!g->cold_seen) {
        g->cold_seen = 1;
        g->cold_ns = t, g->cold_calls = k;
    } else if (arm == PSK_TUNE_native && !mixed) {
        g->nat_k += k, g->nat_t += t, g->nat_t2 += t * t / k;
        g->nat_slots++;
    }
}

int psk_tune_learn_arm(const psk_tune_group *g) { return g->sarm[g->slot]; }

/* ---- the end: the calls of an unfinished window ---- */

int psk_tune_learn_flush_start(psk_tune_comm *c, psk_tune_group *g, MPI_Request *req)
{
    if (g->flushed || (!g->slot && !g->inslot))
        return 0;
    g->flushed = 1;
    return PMPI_Iallreduce(MPI_IN_PLACE, g->st, g->slot + 1, MPI_DOUBLE, MPI_MAX, c->priv, req) == MPI_SUCCESS;
}

void psk_tune_learn_flush_end(psk_tune_group *g)
{
    double inc_est = psk_tune_learn_est(g, g->inc);
    for (int s = 0; s <= g->slot && s < g->nslot; s++) {
        uint32_t k = s < g->slot ? g->scalls[s] : (uint32_t)g->inslot;
        int a = g->sarm[s];
        if (!k)
            continue;
        /* a sampled slot's time scaled to its calls; a slot cut before
         * its first timed call, at the arm's estimate */
        uint32_t timed = timed_of(k, g->scalls[s], g->stride);
        if (timed && timed < k)
            g->st[s] *= (double)k / timed;
        else if (!timed)
            g->st[s] = k * psk_tune_learn_est(g, a);
        g->total += g->st[s];
        g->arm[a].calls += k;
        g->arm[a].time += g->st[s];
        psk_tune_group_slot_stats(g, a, k, g->st[s], g->smixed[s]);
        if (a != g->inc || g->phase == PH_STAR_LEARN) {
            g->arm[a].explore += k;
            if (!g->alarms)
                g->explore_initial += k;
            if (inc_est > 0 && g->phase != PH_STAR_LEARN)
                g->overhead += g->st[s] - k * inc_est;
        }
    }
}

void psk_tune_learn_record(psk_tune_comm *c, psk_tune_group *g, int ran, int timed, double ns,
                           const psk_tune_site *site, size_t bytes, int inplace)
{
    int s = g->slot;
    if (timed) {
        g->st[s] += ns;
        g->sw[s] += ns < g->wcap ? ns : g->wcap;
    }
    if (ran != g->sarm[s])
        g->smixed[s] = 1;
    g->wsite = g->wsite * 0x100000001b3u + (site ? site->id : 0);
    g->calls++;
    g->bytes_sum += (double)bytes;
    g->inplace = inplace;
    if (++g->inslot < (int)g->scalls[s])
        return;
    g->inslot = 0;
    if (++g->slot < g->nslot)
        return;
    /* the window is over: a warm start's first monitoring window sets
     * the baseline before deciding on it */
    decide(c, g);
    g->slot = g->inslot = 0;
}
