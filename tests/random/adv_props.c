/*
 * adv_props: `perfskel advise` on random programs (adv_gen.c) nobody tuned,
 * checking what must hold whatever the program under docs/advise.md's
 * semantics, on a bus, a switch and a grid machine: the run succeeds, the
 * text and JSON reports come out (the JSON parses and its totals add up),
 * the ranking is sorted, every total is repeat x sum(count x nest total),
 * the plan never loses to the best static layout and adds up, grids
 * multiply to P, P = 1 communicates nothing and computes the sequential
 * work (a naive iteration count), output is deterministic, counts are
 * non-negative, aligned programs never communicate, and doubling the work
 * moves the optimum as it must. `adv_props FIRST COUNT` or `adv_props
 * --files F.adv...` (regression cases); one FAIL line per broken property.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adv_gen.h"
#include "advise_internal.h"

static int nfail;
static int aligned_comm; /* aligned programs with a seq subscript whose best layout communicates */
static const char *cur; /* the program, for messages */
static const char *curm; /* the machine */

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        nfail++;                                                                                   \
        printf("FAIL %s machine=%s: ", cur, curm);                                                 \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
    } while (0)

/* a and b equal within rounding (relative, with an absolute floor in us) */
static int near(double a, double b)
{
    double s = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= 1e-9 * s + 1e-9;
}

/* ---- the machines ---- */

static void machines(psk_machine *m)
{
    psk_machine_default(&m[0]);
    m[0].type = PSK_NET_BUS;
    m[0].start_us = 20;
    m[0].byte_us = 0.01;
    psk_machine_default(&m[1]); /* a switch, 2 links, 4 ranks a node */
    m[1].links = 2;
    m[1].ranks_per_node = 4;
    psk_machine_default(&m[2]);
    m[2].type = PSK_NET_GRID;
    m[2].topo[0] = m[2].topo[1] = 4;
    m[2].ntopo = 2;
    m[2].ranks_per_node = 2;
}
static const char *const mname[] = {"bus", "switch", "grid"};

/* ---- naive oracle: iterations of nest n, every loop enumerated ---- */

static int64_t iters(const adv_nest *ns, int l, int64_t *env)
{
    if (l == ns->nloops)
        return 1;
    const adv_loop *lp = &ns->loops[l];
    int64_t lo = lp->lo.c0, hi = lp->hi.c0;
    for (int v = 0; v < l; v++) {
        lo += lp->lo.coef[v] * env[v];
        hi += lp->hi.coef[v] * env[v];
    }
    if (l == ns->nloops - 1)
        return hi >= lo ? hi - lo + 1 : 0;
    int64_t n = 0;
    for (env[l] = lo; env[l] <= hi; env[l]++)
        n += iters(ns, l + 1, env);
    return n;
}

/* ---- output captured ---- */

static char *capture(const psk_advice *a, int json, size_t *len)
{
    char *s = NULL;
    FILE *f = open_memstream(&s, len);
    if (!f)
        return NULL;
    if (json)
        psk_adv_write_json(a, f);
    else
        psk_adv_write_text(a, f);
    fclose(f);
    return s;
}

static double jnum(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* ---- the properties of one run ---- */

static void check_json(const psk_adv_program *p, const psk_advice *a, const char *txt)
{
    json_error_t err;
    json_t *root = json_loads(txt, 0, &err);
    if (!root) {
        FAIL("the JSON does not parse: line %d: %s", err.line, err.text);
        return;
    }
    json_t *lays = json_object_get(root, "layouts");
    /* the best nrank layouts, those equivalent to a better one left out,
     * and the count of those in each shown one's "equivalent" */
    if (!json_is_array(lays) || (int)json_array_size(lays) != a->nshown)
        FAIL("the JSON has not %d layouts", a->nshown);
    int64_t shown = 0;
    for (size_t q = 0; q < json_array_size(lays); q++)
        shown += 1 + json_integer_value(json_object_get(json_array_get(lays, q), "equivalent"));
    if (a->nshown < a->nrank && shown != a->ncand)
        FAIL("fewer layouts shown than asked, yet %" PRId64 " of %d stood for", shown, a->ncand);
    if (shown > a->ncand)
        FAIL("the layouts shown stand for %" PRId64 " of %d", shown, a->ncand);
    double R = (double)json_integer_value(json_object_get(root, "repeat"));
    size_t i;
    json_t *l;
    json_array_foreach(lays, i, l) {
        json_t *nests = json_object_get(l, "nests");
        double sum = 0;
        size_t k;
        json_t *n;
        json_array_foreach(nests, k, n)
            sum += (double)json_integer_value(json_object_get(n, "count")) * jnum(n, "total_us");
        double tot = jnum(l, "total_us");
        if (!(fabs(tot - R * sum) <= 1e-9 * fabs(tot) + 1e-6))
            FAIL("JSON layout %zu: total_us %.17g, repeat x sum(count x nest total_us) %.17g", i, tot, R * sum);
        if (!(fabs(jnum(l, "compute_us") + jnum(l, "comm_us") - tot) <= 1e-9 * fabs(tot) + 1e-6))
            FAIL("JSON layout %zu: compute_us + comm_us != total_us", i);
    }
    json_t *plan = json_object_get(root, "plan");
    if (!near(jnum(plan, "total_us"), a->plan_us))
        FAIL("JSON plan total_us %.17g, plan_us %.17g", jnum(plan, "total_us"), a->plan_us);
    if ((int)json_array_size(json_object_get(plan, "nests")) != p->nnests)
        FAIL("JSON plan has not one entry per nest");
    json_decref(root);
}

/* P = 1 (or any run): the per-candidate checks; seq[n] the naive
 * iteration counts */
static void check_run(const psk_adv_program *p, const psk_advice *a, int64_t P, int maxdims,
                      const int64_t *seq, int aligned)
{
    double R = (double)p->repeat;
    if (a->ncand < 1) {
        FAIL("no layout considered");
        return;
    }
    for (int c = 0; c < a->ncand; c++) {
        const adv_eval *e = &a->cand[c];
        int64_t prod = 1;
        for (int t = 0; t < e->layout.grid.naxes; t++)
            prod *= e->layout.grid.extent[t];
        if (prod != P)
            FAIL("layout %d: grid extents multiply to %" PRId64 ", not P = %" PRId64, c, prod, P);
        if (e->layout.grid.naxes > maxdims && P > 1)
            FAIL("layout %d: %d axes, maxdims %d", c, e->layout.grid.naxes, maxdims);
        double sum = 0;
        int64_t msgs = 0;
        for (int n = 0; n < p->nnests; n++) {
            const adv_cost *k = &e->nest[n];
            sum += (double)p->nests[n].count * k->total_us;
            const double t[] = {k->compute_us, k->compute_avg_us, k->shadow_us, k->remote_us,
                                k->reduce_us, k->across_us, k->total_us};
            for (size_t q = 0; q < sizeof t / sizeof t[0]; q++)
                if (!(t[q] >= 0) || isinf(t[q]))
                    FAIL("layout %d nest %s: time %zu is %g", c, p->nests[n].name, q, t[q]);
            const int64_t v[] = {k->shadow_msgs, k->shadow_bytes, k->remote_msgs, k->remote_bytes,
                                 k->reduce_msgs, k->reduce_bytes, k->across_msgs, k->across_bytes};
            for (size_t q = 0; q < sizeof v / sizeof v[0]; q++)
                if (v[q] < 0)
                    FAIL("layout %d nest %s: count %zu is %" PRId64, c, p->nests[n].name, q, v[q]);
            int64_t nm = k->shadow_msgs + k->remote_msgs + k->reduce_msgs + k->across_msgs;
            msgs += nm;
            if (k->compute_us > 0 && k->compute_avg_us > k->compute_us * (1 + 1e-9))
                FAIL("layout %d nest %s: mean compute above the max", c, p->nests[n].name);
            if (P == 1) {
                if (nm || k->shadow_bytes || k->remote_bytes || k->reduce_bytes || k->across_bytes ||
                    k->shadow_us > 0 || k->remote_us > 0 || k->reduce_us > 0 || k->pipelined)
                    FAIL("P = 1, layout %d nest %s communicates: %" PRId64 " messages", c,
                         p->nests[n].name, nm);
                double w = p->nests[n].work_us * (double)seq[n];
                if (!near(k->compute_us, w))
                    FAIL("P = 1, nest %s: compute %.17g us, sequential work %" PRId64 " x %g = %.17g", p->nests[n].name,
                         k->compute_us, seq[n], p->nests[n].work_us, w);
                if (!near(k->total_us, w))
                    FAIL("P = 1, nest %s: total %.17g us, sequential work %.17g", p->nests[n].name, k->total_us, w);
            }
            if (aligned == 2 && (k->shadow_msgs || k->remote_msgs || k->reduce_msgs || k->shadow_bytes ||
                            k->remote_bytes || k->reduce_bytes || k->across_bytes))
                FAIL("aligned program, layout %d nest %s communicates: shadow %" PRId64 "/%" PRId64
                     " remote %" PRId64 "/%" PRId64 " reduce %" PRId64 " across %" PRId64 "/%" PRId64,
                     c, p->nests[n].name, k->shadow_msgs, k->shadow_bytes, k->remote_msgs, k->remote_bytes,
                     k->reduce_msgs, k->across_msgs, k->across_bytes);
        }
        if (!near(e->total_us, R * sum))
            FAIL("layout %d: total %.17g, repeat x sum(count x nest total) %.17g", c, e->total_us, R * sum);
        if (aligned == 1 && c == a->rank[0] && e->comm_us > 0)
            aligned_comm++;
        if (e->msgs < 0 || e->bytes < 0 || e->mem_bytes < 0)
            FAIL("layout %d: negative program counts", c);
    }
    /* the ranking: sorted by total, a permutation of the candidates */
    char *seen = calloc((size_t)a->ncand, 1);
    for (int r = 0; r < a->ncand; r++) {
        if (a->rank[r] < 0 || a->rank[r] >= a->ncand || seen[a->rank[r]]++)
            FAIL("rank %d: not a permutation", r);
        if (r && a->cand[a->rank[r]].total_us < a->cand[a->rank[r - 1]].total_us * (1 - 1e-9) - 1e-9)
            FAIL("rank %d (%.17g us) before rank %d (%.17g us)", r - 1, a->cand[a->rank[r - 1]].total_us, r,
                 a->cand[a->rank[r]].total_us);
    }
    free(seen);
    for (int c = 0; c < a->ncand; c++)
        if (a->cand[c].total_us < a->cand[a->rank[0]].total_us * (1 - 1e-9) - 1e-9)
            FAIL("layout %d is faster than the best", c);
    /* the plan: never worse than the best static layout, and it adds up:
     * sum R x count x nest total under its layout, R x each redistribution
     * before nests 1.., (R - 1) x the one before nest 0 */
    double best = a->cand[a->rank[0]].total_us;
    if (!(a->plan_us <= best * (1 + 1e-12) + 1e-9))
        FAIL("plan %.17g us, worse than the best static layout's %.17g us", a->plan_us, best);
    double pt = 0;
    for (int n = 0; n < p->nnests; n++) {
        pt += R * (double)p->nests[n].count * a->cand[a->plan[n]].nest[n].total_us;
        pt += (n ? R : R - 1) * a->redist_us[n];
        if (a->redist_us[n] < 0 || a->redist_msgs[n] < 0 || a->redist_bytes[n] < 0)
            FAIL("negative redistribution before nest %d", n);
        if (P == 1 && (a->redist_msgs[n] || a->redist_bytes[n]))
            FAIL("P = 1 redistributes before nest %d", n);
    }
    if (!near(pt, a->plan_us))
        FAIL("plan_us %.17g, its layouts and redistributions add up to %.17g", a->plan_us, pt);
    if (a->plan_static && !near(a->plan_us, best))
        FAIL("a static plan of %.17g us, the best layout %.17g us", a->plan_us, best);
}

/* ---- one program ---- */

typedef struct stats {
    int programs, runs, share_drops, scale_checked;
    char share_example[256];
} stats;

static int run(const psk_adv_program *p, const psk_machine *m, int64_t procs, int static_only,
               psk_advice **a)
{
    psk_adv_options o = {procs, 0, 5, static_only, 0, 0};
    int rc = psk_adv_run(p, m, &o, a);
    if (rc)
        FAIL("psk_adv_run (procs %" PRId64 "%s): %d: %s", procs, static_only ? ", static" : "", rc,
             psk_advice_errmsg(*a));
    return rc;
}

/* comp and comm of layout e's costs cost[] (what sum_eval does) */
static void split(const psk_adv_program *p, const adv_cost *cost, double *comp, double *tot)
{
    *comp = *tot = 0;
    for (int n = 0; n < p->nnests; n++) {
        double k = (double)p->nests[n].count * (double)p->repeat;
        *tot += k * cost[n].total_us;
        *comp += k * (cost[n].pipelined ? cost[n].across_us : cost[n].compute_us);
    }
}

static int any_pipelined(const psk_adv_program *p, const psk_advice *a)
{
    for (int c = 0; c < a->ncand; c++)
        for (int n = 0; n < p->nnests; n++)
            if (a->cand[c].nest[n].pipelined)
                return 1;
    return 0;
}

static int same_candidates(const psk_adv_program *p, const psk_advice *a, const psk_advice *b)
{
    if (a->ncand != b->ncand)
        return 0;
    for (int c = 0; c < a->ncand; c++)
        if (memcmp(a->cand[c].layout.replicated, b->cand[c].layout.replicated,
                   (size_t)p->narrays * sizeof(int)) ||
            memcmp(&a->cand[c].layout.grid, &b->cand[c].layout.grid, sizeof(adv_grid)) ||
            memcmp(a->cand[c].cls, b->cand[c].cls, sizeof a->cand[c].cls))
            return 0;
    return 1;
}

/* Doubling every nest's work. The brief's "the best layout's compute
 * share never gets smaller" holds for a FIXED layout (compute grows,
 * communication does not depend on work), but not across a change of
 * optimum: with (compute, comm) L1 = (10, 10) and L2 = (6, 14.5), L1 is
 * best at w (20 < 20.5) and L2 at 2w (26.5 < 30), whose share 12/26.5 is
 * below 1/2. What optimality does give (no pipeline, the same candidates
 * at w and 2w): the new optimum computes no more and communicates no less
 * than the old one (C2 <= C1, M2 >= M1, from 2C2 + M2 <= 2C1 + M1 and
 * C1 + M1 <= C2 + M2). Share drops of the best layout are only counted. */
static void check_scaling(psk_adv_program *p, const psk_machine *m, const psk_advice *a1, stats *st)
{
    const adv_eval *b1 = &a1->cand[a1->rank[0]];
    double s1 = b1->total_us > 0 ? b1->compute_us / b1->total_us : 1;
    for (int n = 0; n < p->nnests; n++)
        p->nests[n].work_us *= 2;
    adv_cost *c2 = calloc((size_t)p->nnests, sizeof *c2);
    psk_advice *a2 = NULL;
    if (!c2)
        goto out;
    /* the same layout, twice the work */
    for (int n = 0; n < p->nnests; n++)
        if (psk_adv_nest_cost(p, n, &b1->layout, m, &c2[n]))
            FAIL("psk_adv_nest_cost at twice the work");
    double comp, tot;
    split(p, c2, &comp, &tot);
    double s1x = tot > 0 ? comp / tot : 1;
    if (s1x < s1 - 1e-9)
        FAIL("twice the work: the best layout's own compute share fell from %.9g to %.9g", s1, s1x);
    if (tot < b1->total_us * (1 - 1e-9) || tot > 2 * b1->total_us * (1 + 1e-9) + 1e-9)
        FAIL("twice the work: the best layout's total went from %.17g to %.17g", b1->total_us, tot);
    if (run(p, m, 0, 1, &a2))
        goto out;
    const adv_eval *b2 = &a2->cand[a2->rank[0]];
    double s2 = b2->total_us > 0 ? b2->compute_us / b2->total_us : 1;
    if (s2 < s1 - 1e-9) {
        if (!st->share_drops++)
            snprintf(st->share_example, sizeof st->share_example,
                     "%s on %s: best layout's compute share %.6g at w, %.6g at 2w (best layout changed)", cur,
                     curm, s1, s2);
    }
    if (b2->total_us < b1->total_us * (1 - 1e-9) || b2->total_us > 2 * b1->total_us * (1 + 1e-9) + 1e-9)
        if (same_candidates(p, a1, a2))
            FAIL("twice the work: best total went from %.17g to %.17g", b1->total_us, b2->total_us);
    if (!any_pipelined(p, a1) && !any_pipelined(p, a2) && same_candidates(p, a1, a2)) {
        st->scale_checked++;
        /* the new optimum's layout, at the original work: a1's candidate
         * of the same index */
        const adv_eval *l2 = &a1->cand[a2->rank[0]];
        double tol = 1e-7 * (b1->total_us + l2->total_us) + 1e-9;
        if (l2->compute_us > b1->compute_us + tol || l2->comm_us < b1->comm_us - tol)
            FAIL("twice the work: the optimum moved from (compute %.17g, comm %.17g) to (%.17g, %.17g) at w",
                 b1->compute_us, b1->comm_us, l2->compute_us, l2->comm_us);
    }
out:
    for (int n = 0; n < p->nnests; n++)
        p->nests[n].work_us /= 2;
    psk_advice_free(a2);
    free(c2);
}

static void program(const char *name, const char *text, size_t len, int aligned, int which, stats *st)
{
    cur = name;
    curm = "-";
    psk_adv_program *p = NULL, *p2 = NULL;
    int rc = psk_adv_parse(text, len, name, NULL, 0, &p);
    if (rc) {
        FAIL("does not parse (a generator bug unless the parser is wrong): %s", psk_adv_program_errmsg(p));
        psk_adv_program_free(p);
        return;
    }
    st->programs++;
    /* An aligned program (every read with its nest's left side's
     * subscripts, no reductions) never communicates under any layout when
     * every subscript is a par/across variable: each pair of references is
     * then an alignment arc (advise_align.c), so the nest's arrays are
     * distributed alike. With a constant subscript (no arc), or a seq
     * variable's arc that a heavier one outvoted, the advisor may leave a
     * dimension unaligned and its best layout communicate, as the
     * semantics allow (adv_regress/constsub.adv); those are only counted.
     * (Seq variables made no arc before ae66041: adv_regress/seqalign.adv
     * then read A remotely; it is free now.) */
    if (aligned) {
        for (int n = 0; n < p->nnests; n++) {
            const adv_nest *ns = &p->nests[n];
            for (int s = 0; s < ns->nstmts; s++) {
                const adv_stmt *sm = &ns->stmts[s];
                for (int r = -1; r < sm->nreads; r++) {
                    const adv_ref *rf = r < 0 ? &sm->lhs : &sm->reads[r];
                    if (r < 0 && sm->lhs_array < 0)
                        continue;
                    for (int d = 0; d < p->arrays[rf->array].ndim; d++)
                        if (rf->sub_var[d] < ns->first_par || rf->sub_var[d] >= ns->end_par)
                            goto seqsub;
                }
            }
        }
        aligned = 2;
    seqsub:;
    }
    int64_t *seq = calloc((size_t)p->nnests, sizeof *seq);
    int64_t env[ADV_MAXDIM];
    for (int n = 0; n < p->nnests; n++)
        seq[n] = iters(&p->nests[n], 0, env);
    psk_machine ms[3];
    machines(ms);
    for (int mi = 0; mi < 3; mi++) {
        curm = mname[mi];
        const psk_machine *m = &ms[mi];
        psk_advice *a = NULL, *b = NULL, *one = NULL, *st1 = NULL;
        st->runs++;
        if (run(p, m, 0, 0, &a))
            goto next;
        check_run(p, a, a->procs, p->maxdims, seq, aligned);
        size_t tl, jl;
        char *txt = capture(a, 0, &tl), *js = capture(a, 1, &jl);
        if (!txt || !tl || !js || !jl)
            FAIL("no text or JSON output");
        else
            check_json(p, a, js);
        /* --static: the plan is the best layout */
        if (!run(p, m, 0, 1, &st1)) {
            check_run(p, st1, st1->procs, p->maxdims, seq, aligned);
            if (!st1->plan_static || !near(st1->plan_us, st1->cand[st1->rank[0]].total_us))
                FAIL("static_only: plan %.17g us, best layout %.17g us", st1->plan_us,
                     st1->cand[st1->rank[0]].total_us);
            if (!near(st1->cand[st1->rank[0]].total_us, a->cand[a->rank[0]].total_us))
                FAIL("static_only changed the best layout's total");
        }
        /* P = 1 */
        if (!run(p, m, 1, 0, &one))
            check_run(p, one, 1, p->maxdims, seq, aligned);
        /* determinism: a new parse, a new run, the same bytes (one machine
         * a program, in turn) */
        if (mi == which % 3 && txt && js) {
            if (psk_adv_parse(text, len, name, NULL, 0, &p2) == PSK_OK && run(p2, m, 0, 0, &b) == PSK_OK) {
                size_t tl2, jl2;
                char *t2 = capture(b, 0, &tl2), *j2 = capture(b, 1, &jl2);
                if (!t2 || tl2 != tl || memcmp(t2, txt, tl))
                    FAIL("two runs give different text");
                if (!j2 || jl2 != jl || memcmp(j2, js, jl))
                    FAIL("two runs give different JSON");
                free(t2);
                free(j2);
            } else
                FAIL("the second parse or run failed");
            psk_advice_free(b);
            psk_adv_program_free(p2);
            p2 = NULL;
        }
        if (mi == (which + 1) % 3 && st1)
            check_scaling(p, m, st1, st);
        free(txt);
        free(js);
    next:
        psk_advice_free(a);
        psk_advice_free(st1);
        psk_advice_free(one);
    }
    free(seq);
    psk_adv_program_free(p);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *s = NULL;
    size_t cap = 0, n = 0, k;
    do {
        if (n + 4096 > cap) {
            char *t = realloc(s, cap = 2 * cap + 4096);
            if (!t) {
                free(s);
                fclose(f);
                return NULL;
            }
            s = t;
        }
        k = fread(s + n, 1, cap - n, f);
        n += k;
    } while (k);
    fclose(f);
    *len = n;
    return s;
}

int main(int argc, char **argv)
{
    stats st;
    memset(&st, 0, sizeof st);
    if (argc >= 2 && !strcmp(argv[1], "--files")) {
        for (int i = 2; i < argc; i++) {
            size_t len;
            char *t = slurp(argv[i], &len);
            if (!t) {
                fprintf(stderr, "adv_props: cannot read %s\n", argv[i]);
                return 2;
            }
            /* a regression case says `# aligned` when it is one */
            program(argv[i], t, len, strstr(t, "(aligned)") != NULL, i, &st);
            free(t);
        }
    } else if (argc == 3) {
        long first = strtol(argv[1], NULL, 10), count = strtol(argv[2], NULL, 10);
        for (long s = first; s < first + count; s++)
            for (int al = 0; al < 2; al++) {
                adv_gen_opts o = {al};
                size_t len;
                char *t = adv_gen_program((uint64_t)s, &o, &len);
                char name[64];
                snprintf(name, sizeof name, "seed%ld%s.adv", s, al ? "-aligned" : "");
                if (!t) {
                    fprintf(stderr, "adv_props: out of memory\n");
                    return 2;
                }
                program(name, t, len, al, (int)s, &st);
                free(t);
            }
    } else {
        fprintf(stderr, "usage: adv_props FIRST COUNT | adv_props --files F.adv...\n"
                        "  (repro: adv_gen SEED [--aligned] > F.adv)\n");
        return 2;
    }
    printf("%d programs, %d runs, %d failed checks; twice the work: optimum checked on %d, "
           "best layout's compute share fell on %d (allowed)%s%s; aligned with a seq subscript or "
           "a constant, best layout communicating: %d (allowed)\n",
           st.programs, st.runs, nfail, st.scale_checked, st.share_drops, st.share_drops ? ", e.g. " : "",
           st.share_example, aligned_comm);
    return nfail ? 1 : 0;
}
