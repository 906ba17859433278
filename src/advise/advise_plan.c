/* The plan: a layout per nest (docs/advise.md "How it chooses", step 5,
 * and "Speed"). A dynamic programme over the nests, a state per candidate
 * layout and the redistribution between consecutive nests' layouts on the
 * edges, kept only when strictly faster than the best single layout. It
 * runs on lower bounds of the transitions and refines only its best plan's
 * to exact costs; both are computed on the team's threads, each in its own
 * slot, so that the plan does not depend on how many. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"

#define MAXDP 16     /* layouts the dynamic programme chooses among */

/* ---- the dynamic programme over the nests ---- */

typedef struct dp {
    adv_search *s;
    int k;             /* layouts */
    const int *idx;    /* their cand indices */
    const int *sid;    /* per nest: its set of needed arrays (equal sets, equal id) */
    adv_parts **parts; /* per layout: its arrays' parts, for every transition */
    double *memo;      /* k * k * nsets, NAN: not computed */
    double *lbmemo;    /* the same, lower bounds (psk_adv_redist_bound) */
    int64_t *mmsgs, *mbytes;
} dp;

static size_t dp_at(const dp *d, int i, int j, int n)
{
    return ((size_t)d->sid[n] * (size_t)d->k + (size_t)i) * (size_t)d->k + (size_t)j;
}

static int trans(dp *d, int i, int j, int n, double *us)
{
    if (i == j) {
        *us = 0;
        return PSK_OK;
    }
    /* a redistribution depends on the nest only through the arrays whose
     * contents it needs: nests with the same set share it */
    size_t at = dp_at(d, i, j, n);
    if (isnan(d->memo[at])) {
        const psk_advice *a = d->s->a;
        int rc = psk_adv_redist_cost(d->s->p, n, &a->cand[d->idx[i]].layout, d->parts[i],
                                     &a->cand[d->idx[j]].layout, d->parts[j], d->s->m, &d->memo[at],
                                     &d->mmsgs[at], &d->mbytes[at]);
        if (rc)
            return rc;
    }
    *us = d->memo[at];
    return PSK_OK;
}

/* what the programme uses for a transition: its exact cost when known,
 * else a lower bound (psk_adv_redist_bound); NAN when that is not known
 * yet either (bound() computes it) */
static double trans_val(const dp *d, int i, int j, int n)
{
    if (i == j)
        return 0;
    size_t at = dp_at(d, i, j, n);
    return !isnan(d->memo[at]) ? d->memo[at] : d->lbmemo[at];
}

static int bound(dp *d, int i, int j, int n)
{
    const psk_advice *a = d->s->a;
    return psk_adv_redist_bound(d->s->p, n, &a->cand[d->idx[i]].layout, d->parts[i], &a->cand[d->idx[j]].layout,
                                d->parts[j], d->s->m, &d->lbmemo[dp_at(d, i, j, n)]);
}

/* one step of the programme: the states of nest n, each from the
 * predecessors that could matter (psk_adv_plan says which). A state whose
 * scan meets a transition not valued yet stops there, naming it in
 * need[j]: the missing bounds are computed on the team's threads (each its
 * own slot), and those states scanned again from the start. */
typedef struct step {
    dp *d;
    int k, n, no;
    const int *order;            /* finite costs, ascending, stable */
    const double *cost, *here, *rest;
    double R, cut;
    double *next;
    int *from;
    int need[MAXDP];             /* per state: the predecessor not valued, or -1 */
    int list[MAXDP], nlist;      /* the states waiting for a bound */
    int rc[MAXDP];
    atomic_int nextj;
} step;

static void relax(step *st, int j)
{
    dp *d = st->d;
    int k = st->k, n = st->n;
    const double *cost = st->cost;
    double *next = st->next, R = st->R, cut = st->cut;
    int *from = st->from;
    double h = st->here[n * k + j];
    /* staying costs nothing to move: the first bound */
    next[j] = isinf(cost[j]) ? INFINITY : cost[j] + R * 0.0 + h;
    from[n * k + j] = isinf(cost[j]) ? -1 : j;
    st->need[j] = -1;
    for (int o = 0; o < st->no; o++) {
        int i = st->order[o];
        if (i == j)
            continue;
        double lb = cost[i] + h;
        if (lb > next[j] || lb + st->rest[n] > cut)
            break;
        if (lb == next[j] && i > from[n * k + j])
            continue;
        double t = trans_val(d, i, j, n);
        if (isnan(t)) {
            st->need[j] = i;
            return;
        }
        double v = cost[i] + R * t + h;
        if (v + st->rest[n] > cut)
            continue;
        if (v < next[j] || (v == next[j] && i < from[n * k + j])) {
            next[j] = v;
            from[n * k + j] = i;
        }
    }
}

static void bound_job(void *v)
{
    step *st = v;
    for (int q; (q = atomic_fetch_add(&st->nextj, 1)) < st->nlist;) {
        int j = st->list[q];
        st->rc[q] = bound(st->d, st->need[j], j, st->n);
    }
}

/* the states of nest n, every one valued */
static int relax_all(adv_search *s, step *st)
{
    st->nlist = st->k;
    for (int j = 0; j < st->k; j++)
        st->list[j] = j;
    while (st->nlist) {
        int w = 0;
        for (int q = 0; q < st->nlist; q++) {
            relax(st, st->list[q]);
            if (st->need[st->list[q]] >= 0)
                st->list[w++] = st->list[q];
        }
        if (!(st->nlist = w))
            break;
        atomic_store(&st->nextj, 0);
        if (w > 1)
            psk_adv_team_run(s->team, bound_job, st);
        else
            bound_job(st);
        for (int q = 0; q < w; q++)
            if (st->rc[q])
                return st->rc[q];
    }
    return PSK_OK;
}

/* the exact costs of a list of transitions (distinct memo slots), on the
 * team */
typedef struct refine {
    dp *d;
    const int *ij;               /* i, j, n per transition */
    int n;
    int *rc;
    atomic_int next;
} refine;

static void refine_job(void *v)
{
    refine *r = v;
    double t;
    for (int q; (q = atomic_fetch_add(&r->next, 1)) < r->n;)
        r->rc[q] = trans(r->d, r->ij[3 * q], r->ij[3 * q + 1], r->ij[3 * q + 2], &t);
}

/* One pass of the programme over transitions valued by trans_val: the
 * best plan, in a->plan (static: a->plan_static) and *bestv. For each
 * layout of the first nest: forward over the nests, then back to the
 * first one repeat - 1 times. Each state keeps the smallest value and, on
 * ties, the lowest predecessor index, as a scan of every predecessor in
 * index order with `<` would; but only predecessors that could matter are
 * looked at (a transition costs >= 0, rounding is monotone): in ascending
 * cost, stopping once cost + here cannot beat the state's best; none
 * whose value with the cheapest nests to come cannot beat the best plan
 * so far by the acceptance margin. docs/advise.md "Speed". */
static int dp_pass(adv_search *s, dp *d, step *st, int *path, double *bestv)
{
    const psk_adv_program *p = s->p;
    psk_advice *a = s->a;
    int N = p->nnests, k = d->k, rc;
    double *cost = (double *)st->cost, *next = st->next, R = st->R;
    const double *here = st->here, *rest = st->rest;
    int *order = (int *)st->order, *from = st->from;
    int best = a->rank[0];
    for (int n = 0; n < N; n++)
        a->plan[n] = best;
    a->plan_static = 1;
    *bestv = a->cand[best].total_us;
    for (int s0 = 0; s0 < k; s0++) {
        double thr = *bestv * (1 - 1e-9), cut = thr * (1 + 1e-6);
        st->cut = cut;
        for (int j = 0; j < k; j++)
            cost[j] = j == s0 ? here[j] : INFINITY;
        if (cost[s0] + rest[0] > cut)
            continue;
        for (int n = 1; n < N; n++) {
            int no = 0;
            for (int i = 0; i < k; i++) { /* finite costs, ascending, stable */
                if (isinf(cost[i]))
                    continue;
                int at = no++;
                while (at > 0 && cost[order[at - 1]] > cost[i])
                    order[at] = order[at - 1], at--;
                order[at] = i;
            }
            st->n = n;
            st->no = no;
            if ((rc = relax_all(s, st)))
                return rc;
            memcpy(cost, next, (size_t)k * sizeof *cost);
        }
        for (int j = 0; j < k; j++) {
            if (isinf(cost[j]) || !(cost[j] < *bestv * (1 - 1e-9)))
                continue; /* cost + (R - 1) back >= cost: not accepted */
            double back = 0;
            if (R > 1 && j != s0 && isnan(back = trans_val(d, j, s0, 0))) {
                if ((rc = bound(d, j, s0, 0)))
                    return rc;
                back = trans_val(d, j, s0, 0);
            }
            double v = cost[j] + (R - 1) * back;
            if (v < *bestv * (1 - 1e-9)) {
                *bestv = v;
                int c = j;
                for (int n = N - 1; n >= 1; n--) {
                    path[n] = c;
                    c = from[n * k + c];
                }
                path[0] = s0;
                for (int n = 0; n < N; n++)
                    a->plan[n] = d->idx[path[n]];
                a->plan_static = 0;
            }
        }
    }
    return PSK_OK;
}

int psk_adv_plan(adv_search *s)
{
    const psk_adv_program *p = s->p;
    psk_advice *a = s->a;
    int N = p->nnests, rc = PSK_ENOMEM;
    a->plan = calloc((size_t)(N ? N : 1), sizeof *a->plan);
    a->redist_us = calloc((size_t)(N ? N : 1), sizeof *a->redist_us);
    a->redist_msgs = calloc((size_t)(N ? N : 1), sizeof *a->redist_msgs);
    a->redist_bytes = calloc((size_t)(N ? N : 1), sizeof *a->redist_bytes);
    if (!a->plan || !a->redist_us || !a->redist_msgs || !a->redist_bytes)
        return PSK_ENOMEM;
    int best = a->rank[0];
    for (int n = 0; n < N; n++)
        a->plan[n] = best;
    a->plan_us = a->cand[best].total_us;
    a->plan_static = 1;
    if (N < 2 || a->ncand < 2)
        return PSK_OK;

    /* the layouts to choose among: the best static ones, and each nest's
     * own best ones */
    int idx[MAXDP], k = 0;
    for (int r = 0; r < a->ncand && k < MAXDP / 2; r++)
        idx[k++] = a->rank[r];
    for (int n = 0; n < N && k < MAXDP; n++) {
        int b = -1;
        for (int c = 0; c < a->ncand; c++)
            if (b < 0 || a->cand[c].nest[n].total_us < a->cand[b].nest[n].total_us)
                b = c;
        int dup = 0;
        for (int i = 0; i < k; i++)
            dup |= idx[i] == b;
        if (!dup)
            idx[k++] = b;
    }
    int *sid = malloc((size_t)N * sizeof *sid), *rep = malloc((size_t)N * sizeof *rep), nsets = 0;
    if (!sid || !rep) {
        free(sid), free(rep);
        return PSK_ENOMEM;
    }
    for (int n = 0; n < N; n++) {
        sid[n] = -1;
        for (int t = 0; t < nsets && sid[n] < 0; t++) {
            int same = 1;
            for (int x = 0; x < p->narrays && same; x++)
                same = psk_adv_needed(p, n, x) == psk_adv_needed(p, rep[t], x);
            if (same)
                sid[n] = t;
        }
        if (sid[n] < 0)
            rep[nsets] = n, sid[n] = nsets++;
    }
    free(rep);
    adv_parts *parts[MAXDP] = {0};
    dp d = {s, k, idx, sid, parts, NULL, NULL, NULL, NULL};
    size_t nm = (size_t)k * (size_t)k * (size_t)nsets;
    d.memo = malloc(nm * sizeof *d.memo);
    d.lbmemo = malloc(nm * sizeof *d.lbmemo);
    d.mmsgs = calloc(nm, sizeof *d.mmsgs);
    d.mbytes = calloc(nm, sizeof *d.mbytes);
    double *cost = malloc((size_t)k * sizeof *cost), *next = malloc((size_t)k * sizeof *next);
    double *here = malloc((size_t)k * (size_t)N * sizeof *here), *rest = malloc((size_t)N * sizeof *rest);
    int *from = malloc((size_t)k * (size_t)N * sizeof *from), order[MAXDP];
    int *path = malloc((size_t)N * sizeof *path);
    int *ij = malloc((size_t)3 * (size_t)(N + 1) * sizeof *ij), *ijrc = malloc((size_t)(N + 1) * sizeof *ijrc);
    size_t *slot = malloc((size_t)(N + 1) * sizeof *slot);
    step st = {.d = &d, .k = k, .order = order, .cost = cost, .here = here, .rest = rest, .next = next, .from = from};
    if (!d.memo || !d.lbmemo || !d.mmsgs || !d.mbytes || !cost || !next || !here || !rest || !from || !path ||
        !ij || !ijrc || !slot)
        goto out;
    for (size_t i = 0; i < nm; i++)
        d.memo[i] = d.lbmemo[i] = NAN;
    for (int j = 0; j < k; j++)
        if ((rc = psk_adv_parts_build(p, &a->cand[idx[j]].layout, &parts[j])))
            goto out;
    double R = (double)p->repeat, bestv;
    st.R = R;
    /* here[n k + j]: nest n under layout j, all its executions; rest[n]: a
     * lower bound on what the nests after n add (each one's cheapest) */
    for (int n = 0; n < N; n++)
        for (int j = 0; j < k; j++)
            here[n * k + j] = R * (double)p->nests[n].count * a->cand[idx[j]].nest[n].total_us;
    rest[N - 1] = 0;
    for (int n = N - 2; n >= 0; n--) {
        double lo = INFINITY;
        for (int j = 0; j < k; j++)
            lo = here[(n + 1) * k + j] < lo ? here[(n + 1) * k + j] : lo;
        rest[n] = rest[n + 1] + lo;
    }
    /* The programme over exact transitions where known and lower bounds
     * elsewhere, until its best plan uses exact ones only: each pass
     * computes the exact costs of the bounded transitions on its plan.
     * The plan then is the programme's over exact transitions: its value
     * is exact, every other plan's is at most its own exact value, and a
     * plan whose value ties it has every transition exact or at its
     * bound, so the ties are broken as over exact values. */
    for (;;) {
        if ((rc = dp_pass(s, &d, &st, path, &bestv)))
            goto out;
        int nij = 0;
        for (int n = 0; n < N && !a->plan_static; n++) {
            int i = n ? path[n - 1] : path[N - 1], j = path[n];
            if (i == j || (n == 0 && !(R > 1)))
                continue;
            size_t at = dp_at(&d, i, j, n);
            int dup = !isnan(d.memo[at]);
            for (int q = 0; q < nij && !dup; q++)
                dup = slot[q] == at;
            if (dup)
                continue;
            slot[nij] = at;
            ij[3 * nij] = i, ij[3 * nij + 1] = j, ij[3 * nij + 2] = n;
            nij++;
        }
        if (!nij)
            break;
        refine rf = {&d, ij, nij, ijrc, 0};
        psk_adv_team_run(s->team, refine_job, &rf);
        for (int q = 0; q < nij; q++)
            if ((rc = ijrc[q]))
                goto out;
    }
    a->plan_us = bestv;
    if (!a->plan_static) {
        for (int n = 0; n < N; n++) {
            int prev = n ? a->plan[n - 1] : a->plan[N - 1];
            int i = -1, j = -1;
            for (int q = 0; q < k; q++) {
                if (idx[q] == prev)
                    i = q;
                if (idx[q] == a->plan[n])
                    j = q;
            }
            double t = 0;
            if (i != j && (n > 0 || R > 1)) {
                if ((rc = trans(&d, i, j, n, &t)))
                    goto out;
                size_t at = dp_at(&d, i, j, n);
                a->redist_us[n] = t;
                a->redist_msgs[n] = d.mmsgs[at];
                a->redist_bytes[n] = d.mbytes[at];
            }
        }
    }
    rc = PSK_OK;
out:
    for (int j = 0; j < k; j++)
        psk_adv_parts_free(parts[j]);
    free(sid);
    free(d.memo);
    free(d.lbmemo);
    free(here);
    free(rest);
    free(d.mmsgs);
    free(d.mbytes);
    free(cost);
    free(next);
    free(from);
    free(path);
    free(ij);
    free(ijrc);
    free(slot);
    return rc;
}
