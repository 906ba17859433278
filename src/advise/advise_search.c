/* The search for the best layout (docs/advise.md "How it chooses", steps
 * 2-4): every ordered factorisation of P into at most maxdims axes, every
 * assignment of candidate template dimensions (alignment classes a
 * parallel loop runs along) to those axes, and for each read-only array the
 * choice of replicating it, greedily. Each layout is costed over the whole
 * program, on a team of threads (psk_adv_options.threads), each result in
 * its own slot so that the answer does not depend on how many. Ties go to
 * the fewest distributed dimensions, then the lexicographically smallest
 * grid; advise_plan.c then decides whether changing layout between nests
 * pays off. */
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advise_internal.h"

#define ADV_MAX_OUTER 1000000 /* outer seq iterations of a nest costed one by one */
#define ADV_SMALL 65536       /* bytes: an array this small may be replicated */
#define ADV_MAX_PROCS 65536   /* P: each layout's costs are per processor */

static void sum_eval(const psk_adv_program *p, adv_eval *e)
{
    double tot = 0, comp = 0;
    int64_t msgs = 0, bytes = 0;
    for (int n = 0; n < p->nnests; n++) {
        const adv_cost *c = &e->nest[n];
        double k = (double)p->nests[n].count * (double)p->repeat;
        tot += k * c->total_us;
        comp += k * (c->pipelined ? c->across_us : c->compute_us);
        int64_t kk = p->nests[n].count * p->repeat;
        msgs += kk * (c->shadow_msgs + c->remote_msgs + c->reduce_msgs + c->across_msgs);
        bytes += kk * (c->shadow_bytes + c->remote_bytes + c->reduce_bytes + c->across_bytes);
    }
    e->total_us = tot;
    e->compute_us = comp;
    e->comm_us = tot - comp;
    e->msgs = msgs;
    e->bytes = bytes;
}

/* 1 if nest n names array x (its home is one of those it names) */
static int nest_uses(const psk_adv_program *p, int n, int x)
{
    const adv_nest *ns = &p->nests[n];
    for (int i = 0; i < ns->nstmts; i++) {
        if (ns->stmts[i].lhs_array == x)
            return 1;
        for (int j = 0; j < ns->stmts[i].nreads; j++)
            if (ns->stmts[i].reads[j].array == x)
                return 1;
    }
    return 0;
}

/* e's nests costed under its layout; when base is given, e's layout is
 * base's but for array x, and a nest's cost depends on the layout only
 * through the arrays it names: the others' costs are base's */
static int cost_all(adv_search *s, adv_eval *e, const adv_eval *base, int x)
{
    const psk_adv_program *p = s->p;
    psk_adv_shadows(p, &e->layout);
    for (int n = 0; n < p->nnests; n++) {
        if (base && !nest_uses(p, n, x)) {
            e->nest[n] = base->nest[n];
            continue;
        }
        int rc = psk_adv_nest_cost(p, n, &e->layout, s->m, &e->nest[n]);
        if (rc)
            return rc;
    }
    sum_eval(p, e);
    e->mem_bytes = 0;
    for (int64_t r = 0; r < s->a->procs; r++) {
        int64_t b = 0;
        for (int x = 0; x < p->narrays; x++)
            b += psk_adv_local_bytes(p, &e->layout, x, r);
        if (b > e->mem_bytes)
            e->mem_bytes = b;
    }
    return PSK_OK;
}

static void eval_free(adv_eval *e)
{
    psk_adv_layout_free(&e->layout);
    free(e->nest);
    memset(e, 0, sizeof *e);
}

/* Whether array x may be replicated: read-only (its first placement costs
 * nothing), or at most ADV_SMALL bytes and the home of no nest with a
 * parallel loop (a small table that sequential code computes, which every
 * processor can then compute alike rather than fetch; replicating the
 * home of a parallel loop would give up its parallelism). */
static int replicable(const psk_adv_program *p, int x)
{
    if (p->arrays[x].readonly)
        return 1;
    if (psk_adv_array_bytes(&p->arrays[x]) > ADV_SMALL)
        return 0;
    for (int n = 0; n < p->nnests; n++) {
        const adv_ref *h = psk_adv_home(p, n);
        if (h && h->array == x && p->nests[n].first_par < p->nests[n].end_par)
            return 0;
    }
    return 1;
}

/* a layout with the classes cls[0..naxes-1] on the grid's axes (costed
 * later, with the others, by eval_all) */
static int add_layout(adv_search *s, const adv_grid *g, const int *cls)
{
    const psk_adv_program *p = s->p;
    psk_advice *a = s->a;
    if (a->ncand == s->cap) {
        int nc = s->cap ? s->cap * 2 : 32;
        adv_eval *n = realloc(a->cand, (size_t)nc * sizeof *n);
        if (!n)
            return PSK_ENOMEM;
        a->cand = n;
        s->cap = nc;
    }
    adv_eval *e = &a->cand[a->ncand];
    memset(e, 0, sizeof *e);
    e->nest = calloc((size_t)(p->nnests ? p->nnests : 1), sizeof *e->nest);
    if (!e->nest || psk_adv_layout_init(&e->layout, p->narrays)) {
        eval_free(e);
        return PSK_ENOMEM;
    }
    adv_layout *l = &e->layout;
    l->grid = *g;
    l->ntdim = cls ? g->naxes : 0;
    for (int t = 0; t < l->ntdim; t++) {
        e->cls[t] = cls[t];
        l->tlo[t] = a->align.clo[cls[t]];
        l->thi[t] = a->align.chi[cls[t]];
        l->taxis[t] = t;
    }
    for (int x = 0; x < p->narrays; x++)
        for (int d = 0; d < ADV_MAXDIM; d++) {
            adv_dimmap *dm = &l->map[x * ADV_MAXDIM + d];
            dm->tdim = -1;
            dm->coef = 1;
            dm->off = 0;
            if (d >= p->arrays[x].ndim)
                continue;
            int c = a->align.cls[x * ADV_MAXDIM + d];
            for (int t = 0; t < l->ntdim; t++)
                if (cls[t] == c) {
                    dm->tdim = t;
                    dm->coef = a->align.coef[x * ADV_MAXDIM + d];
                    dm->off = a->align.off[x * ADV_MAXDIM + d];
                }
        }
    a->ncand++;
    return PSK_OK;
}

/* candidate e costed over the program, then its read-only arrays, and
 * small ones no parallel loop computes, replicated where that is faster
 * (greedy, in declaration order). On failure e is freed (zeroed). */
static int eval_layout(adv_search *s, adv_eval *e)
{
    const psk_adv_program *p = s->p;
    adv_layout *l = &e->layout;
    int rc = cost_all(s, e, NULL, -1);
    if (rc) {
        eval_free(e);
        return rc;
    }
    for (int x = 0; x < p->narrays; x++) {
        if (!replicable(p, x))
            continue;
        int any = 0;
        for (int d = 0; d < p->arrays[x].ndim; d++)
            any |= l->map[x * ADV_MAXDIM + d].tdim >= 0;
        if (!any)
            continue;
        double before = e->total_us;
        adv_eval trial;
        memset(&trial, 0, sizeof trial);
        trial.nest = calloc((size_t)(p->nnests ? p->nnests : 1), sizeof *trial.nest);
        if (!trial.nest || psk_adv_layout_copy(&trial.layout, l, p->narrays)) {
            eval_free(&trial);
            eval_free(e);
            return PSK_ENOMEM;
        }
        memcpy(trial.cls, e->cls, sizeof e->cls);
        trial.layout.replicated[x] = 1;
        if ((rc = cost_all(s, &trial, e, x))) {
            eval_free(&trial);
            eval_free(e);
            return rc;
        }
        if (trial.total_us < before * (1 - 1e-9)) {
            eval_free(e);
            *e = trial;
            l = &e->layout;
        } else
            eval_free(&trial);
    }
    return PSK_OK;
}

typedef struct evals {
    adv_search *s;
    atomic_int next;             /* the next candidate to cost */
    int *rc;                     /* per candidate */
} evals;

static void eval_job(void *v)
{
    evals *w = v;
    for (int i; (i = atomic_fetch_add(&w->next, 1)) < w->s->a->ncand;)
        w->rc[i] = eval_layout(w->s, &w->s->a->cand[i]);
}

/* every candidate costed, on every thread of the team */
static int eval_all(adv_search *s)
{
    psk_advice *a = s->a;
    evals w = {s, 0, calloc((size_t)(a->ncand ? a->ncand : 1), sizeof *w.rc)};
    if (!w.rc)
        return PSK_ENOMEM;
    psk_adv_team_run(s->team, eval_job, &w);
    int rc = PSK_OK;
    for (int i = 0; i < a->ncand && !rc; i++)
        rc = w.rc[i];
    free(w.rc);
    return rc;
}

/* every ordered choice of g->naxes distinct candidate classes */
static int assign(adv_search *s, const adv_grid *g, int *cls, int depth, unsigned used)
{
    if (depth == g->naxes)
        return add_layout(s, g, cls);
    for (int i = 0; i < s->ncls; i++) {
        if (used & (1u << i))
            continue;
        cls[depth] = s->cls[i];
        int rc = assign(s, g, cls, depth + 1, used | (1u << i));
        if (rc)
            return rc;
    }
    return PSK_OK;
}

/* every ordered factorisation of rest into at most maxdims - depth
 * factors greater than 1 */
static int grids(adv_search *s, adv_grid *g, int64_t rest, int maxdims)
{
    if (rest == 1) {
        if (g->naxes == 0)
            return PSK_OK;
        int cls[ADV_MAXDIM];
        if (g->naxes > s->ncls)
            return PSK_OK;
        return assign(s, g, cls, 0, 0);
    }
    if (g->naxes == maxdims)
        return PSK_OK;
    for (int64_t f = 2; f <= rest; f++) {
        if (rest % f)
            continue;
        g->extent[g->naxes++] = f;
        int rc = grids(s, g, rest / f, maxdims);
        g->naxes--;
        if (rc)
            return rc;
    }
    return PSK_OK;
}

static int better(const psk_advice *a, int i, int j)
{
    const adv_eval *x = &a->cand[i], *y = &a->cand[j];
    double tol = 1e-9 * (fabs(x->total_us) > fabs(y->total_us) ? fabs(x->total_us) : fabs(y->total_us));
    if (x->total_us < y->total_us - tol)
        return 1;
    if (x->total_us > y->total_us + tol)
        return 0;
    if (x->layout.grid.naxes != y->layout.grid.naxes)
        return x->layout.grid.naxes < y->layout.grid.naxes;
    for (int t = 0; t < x->layout.grid.naxes; t++)
        if (x->layout.grid.extent[t] != y->layout.grid.extent[t])
            return x->layout.grid.extent[t] < y->layout.grid.extent[t];
    return i < j;
}

/* g's extents in ascending order */
static void sorted_extents(const adv_grid *g, int64_t *e)
{
    memcpy(e, g->extent, (size_t)g->naxes * sizeof *e);
    for (int i = 1; i < g->naxes; i++)
        for (int j = i; j > 0 && e[j] < e[j - 1]; j--) {
            int64_t t = e[j];
            e[j] = e[j - 1];
            e[j - 1] = t;
        }
}

/* the same figures on the same grid shape (its extents in any order):
 * one layout is the other with dimensions or axes exchanged, as far as
 * anything the report says can tell */
static int equivalent(const adv_eval *x, const adv_eval *y)
{
    double tol = 1e-9 * (fabs(x->total_us) > fabs(y->total_us) ? fabs(x->total_us) : fabs(y->total_us));
    if (fabs(x->total_us - y->total_us) > tol || x->msgs != y->msgs || x->bytes != y->bytes ||
        x->mem_bytes != y->mem_bytes || x->layout.grid.naxes != y->layout.grid.naxes)
        return 0;
    int64_t ex[ADV_MAXDIM], ey[ADV_MAXDIM];
    int n = x->layout.grid.naxes;
    sorted_extents(&x->layout.grid, ex);
    sorted_extents(&y->layout.grid, ey);
    return !memcmp(ex, ey, (size_t)n * sizeof *ex);
}

/* a stable merge sort of cand indices by better() (qsort has no context) */
static void rank_sort(const psk_advice *a, int *v, int *tmp, int n)
{
    if (n < 2)
        return;
    int h = n / 2;
    rank_sort(a, v, tmp, h);
    rank_sort(a, v + h, tmp, n - h);
    int i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = better(a, v[j], v[i]) ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, (size_t)n * sizeof *v);
}

static int fail(psk_advice *a, int rc, const char *what)
{
    snprintf(a->errmsg, sizeof a->errmsg, "%s: %s", a->prog->path ? a->prog->path : "advise", what);
    return rc;
}

static int rank_and_plan(adv_search *sp, const psk_adv_options *o);

/* Each layout costs each nest's outer seq iterations whose cost differs
 * one by one, on every processor: refuse a search that would run for hours
 * (o->max_steps) rather than hang */
static int within_budget(psk_advice *a, const psk_adv_options *o)
{
    const psk_adv_program *p = a->prog;
    int64_t max = o && o->max_steps > 0 ? o->max_steps : PSK_ADV_MAX_STEPS, steps = 0;
    for (int n = 0; n < p->nnests; n++) {
        int64_t s = psk_adv_outer_steps(p, n, 0);
        steps = s > INT64_MAX - steps ? INT64_MAX : steps + s;
    }
    double work = (double)steps * (double)a->procs * (double)a->ncand;
    if (work <= (double)max)
        return PSK_OK;
    snprintf(a->errmsg, sizeof a->errmsg,
             "%s: %d layout%s x %" PRId64 " processors x %" PRId64
             " outer seq iterations whose cost differs: %.0f steps to cost, over the %" PRId64
             " the advisor takes (fewer processors, --maxdims, or smaller params)",
             p->path ? p->path : "advise", a->ncand, a->ncand == 1 ? "" : "s", a->procs, steps, work, max);
    return PSK_EINVAL;
}

int psk_adv_run(const psk_adv_program *p, const psk_machine *m, const psk_adv_options *o,
                psk_advice **out)
{
    psk_advice *a = calloc(1, sizeof *a);
    *out = a;
    if (!a)
        return PSK_ENOMEM;
    a->prog = p;
    a->machine = m;
    a->procs = o && o->procs > 0 ? o->procs : p->procs;
    int maxdims = o && o->maxdims > 0 ? o->maxdims : p->maxdims;
    if (a->procs < 1)
        return fail(a, PSK_EINVAL, "no processor count: give `procs P;` or --procs P");
    if (a->procs > ADV_MAX_PROCS) {
        char what[128];
        snprintf(what, sizeof what, "%" PRId64 " processors: the advisor handles at most %d", a->procs,
                 ADV_MAX_PROCS);
        return fail(a, PSK_EINVAL, what);
    }
    if (maxdims < 1 || maxdims > ADV_MAXDIM)
        return fail(a, PSK_EINVAL, "maxdims must be 1 to 8");
    /* outer seq loops are costed an iteration at a time where their value
     * matters: refuse what would take hours rather than hang */
    for (int n = 0; n < p->nnests; n++) {
        int64_t steps = psk_adv_outer_steps(p, n, 0);
        if (steps > ADV_MAX_OUTER) {
            snprintf(a->errmsg, sizeof a->errmsg,
                     "%s:%d:%d: nest %s: its outer seq loops run %s%" PRId64
                     " times with a different cost each; the advisor costs at most %d",
                     p->path ? p->path : "advise", p->nests[n].line, p->nests[n].col, p->nests[n].name,
                     steps == INT64_MAX ? "over " : "", steps, ADV_MAX_OUTER);
            return PSK_EINVAL;
        }
    }
    if (psk_adv_align(p, &a->align))
        return fail(a, PSK_ENOMEM, "out of memory");

    adv_search s = {p, m, a, 0, {0}, 0, NULL};
    /* the candidate classes, heaviest first (ties: the first class) */
    for (int c = 0; c < a->align.nclass; c++) {
        if (a->align.weight[c] <= 0)
            continue;
        int at = s.ncls;
        while (at > 0 && a->align.weight[s.cls[at - 1]] < a->align.weight[c])
            at--;
        if (at >= ADV_MAXCLASS)
            continue;
        int end = s.ncls < ADV_MAXCLASS ? s.ncls : ADV_MAXCLASS - 1;
        memmove(&s.cls[at + 1], &s.cls[at], (size_t)(end - at) * sizeof s.cls[0]);
        s.cls[at] = c;
        if (s.ncls < ADV_MAXCLASS)
            s.ncls++;
    }
    int rc;
    adv_grid g;
    memset(&g, 0, sizeof g);
    if (a->procs == 1 || s.ncls == 0) {
        /* nothing to distribute: everything on every processor */
        g.naxes = 1;
        g.extent[0] = a->procs;
        rc = add_layout(&s, &g, NULL);
    } else
        rc = grids(&s, &g, a->procs, maxdims);
    if (!rc && (rc = within_budget(a, o)))
        return rc;
    int nt = o && o->threads > 0 ? o->threads : 0;
    if (!nt) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        nt = cores < 1 ? 1 : cores > 8 ? 8 : (int)cores;
    }
    adv_team t;
    psk_adv_team_open(&t, nt);
    s.team = &t;
    if (!rc)
        rc = eval_all(&s);
    if (rc) {
        psk_adv_team_close(&t);
        return fail(a, rc, psk_strstatus(rc));
    }
    rc = rank_and_plan(&s, o);
    psk_adv_team_close(&t);
    return rc;
}

/* the candidates ranked, the equivalent ones grouped, and the plan */
static int rank_and_plan(adv_search *sp, const psk_adv_options *o)
{
    adv_search s = *sp;
    const psk_adv_program *p = s.p;
    psk_advice *a = s.a;
    int rc;
    a->rank = malloc((size_t)a->ncand * sizeof *a->rank);
    int *tmp = malloc((size_t)a->ncand * sizeof *tmp);
    if (!a->rank || !tmp) {
        free(tmp);
        return fail(a, PSK_ENOMEM, "out of memory");
    }
    for (int i = 0; i < a->ncand; i++)
        a->rank[i] = i;
    rank_sort(a, a->rank, tmp, a->ncand);
    free(tmp);
    int top = o && o->top > 0 ? o->top : 5;
    a->nrank = a->ncand < top ? a->ncand : top;
    a->shown = malloc((size_t)a->ncand * sizeof *a->shown);
    a->nequiv = calloc((size_t)a->ncand, sizeof *a->nequiv);
    if (!a->shown || !a->nequiv)
        return fail(a, PSK_ENOMEM, "out of memory");
    for (int r = 0; r < a->ncand; r++) {
        int k = 0;
        while (k < a->nshown && !equivalent(&a->cand[a->rank[a->shown[k]]], &a->cand[a->rank[r]]))
            k++;
        if (k < a->nshown)
            a->nequiv[k]++;
        else if (a->nshown < a->nrank)
            a->shown[a->nshown++] = r;
    }
    if (!(o && o->static_only) && (rc = psk_adv_plan(&s)))
        return fail(a, rc, psk_strstatus(rc));
    if (o && o->static_only) {
        a->plan = calloc((size_t)(p->nnests ? p->nnests : 1), sizeof *a->plan);
        a->redist_us = calloc((size_t)(p->nnests ? p->nnests : 1), sizeof *a->redist_us);
        a->redist_msgs = calloc((size_t)(p->nnests ? p->nnests : 1), sizeof *a->redist_msgs);
        a->redist_bytes = calloc((size_t)(p->nnests ? p->nnests : 1), sizeof *a->redist_bytes);
        if (!a->plan || !a->redist_us || !a->redist_msgs || !a->redist_bytes)
            return fail(a, PSK_ENOMEM, "out of memory");
        for (int n = 0; n < p->nnests; n++)
            a->plan[n] = a->rank[0];
        a->plan_us = a->cand[a->rank[0]].total_us;
        a->plan_static = 1;
    }
    return PSK_OK;
}

const char *psk_advice_errmsg(const psk_advice *a)
{
    return a ? a->errmsg : "out of memory";
}

void psk_advice_free(psk_advice *a)
{
    if (!a)
        return;
    for (int i = 0; i < a->ncand; i++)
        eval_free(&a->cand[i]);
    free(a->cand);
    free(a->rank);
    free(a->shown);
    free(a->nequiv);
    free(a->plan);
    free(a->redist_us);
    free(a->redist_msgs);
    free(a->redist_bytes);
    psk_adv_align_free(&a->align);
    free(a);
}
