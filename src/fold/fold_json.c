/* The loop tree as JSON (`perfskel fold --json`, `-o`, and the fold the
 * merge inside the job writes): the main loop, and per node its loop
 * count or its event, statistics and varying arguments. */
#include <stdio.h>
#include <string.h>

#include "perfskel/fold.h"
#include "perfskel/merge.h"
#include "psk_json.h"

int32_t psk_folded_main_loop(const psk_folded *f)
{
    int32_t best = -1;
    int64_t most = 0;
    for (int32_t id = 0; id < psk_folded_nnodes(f); id++) {
        const psk_fnode *x = psk_folded_node(f, id);
        if (x->kind == PSK_FNODE_LOOP && x->span * x->count > most) {
            most = x->span * x->count;
            best = id;
        }
    }
    return best;
}

/* name: {"mean", "sd", "min", "max"} */
static void spread_json(psk_json *j, const char *name, double mean, double sd, double min, double max)
{
    psk_json_obj(j, name);
    psk_json_num(j, "mean", mean);
    psk_json_num(j, "sd", sd);
    psk_json_num(j, "min", min);
    psk_json_num(j, "max", max);
    psk_json_end(j);
}

static void stats_json(psk_json *j, const psk_fstats *s)
{
    psk_json_obj(j, "stats");
    psk_json_uint(j, "executions", s->execs);
    psk_json_uint(j, "samples", s->samples);
    spread_json(j, "gap_ns", s->gap_mean, s->gap_sd, s->gap_min, s->gap_max);
    spread_json(j, "mpi_ns", s->mpi_mean, s->mpi_sd, s->mpi_min, s->mpi_max);
    if (s->slowest_rank >= 0)
        psk_json_int(j, "slowest_rank", s->slowest_rank);
    if (s->count_kind != PSK_COUNT_NONE) {
        psk_json_obj(j, "count");
        static const char *const kinds[] = {"none", "const", "linear", "table"};
        psk_json_str(j, "kind", kinds[s->count_kind]);
        if (s->count_kind == PSK_COUNT_CONST) {
            psk_json_int(j, "value", s->count_a);
        } else if (s->count_kind == PSK_COUNT_LINEAR) {
            psk_json_int(j, "a", s->count_a);
            psk_json_int(j, "b", s->count_b);
        } else {
            psk_json_str(j, "index", s->count_by_iter ? "iteration" : "execution");
            psk_json_arr(j, "values");
            for (int64_t i = 0; i < s->ncount; i++)
                psk_json_int(j, NULL, s->count_table[i]);
            psk_json_end(j);
        }
        psk_json_end(j);
    }
    psk_json_end(j);
}

void psk_fparam_json(psk_json *j, const psk_fparam *p)
{
    static const char *const kinds[] = {"affine", "mod", "periodic", "iteration", "execution", "rank_execution"};
    static const char *const modes[] = {"value", "first_plus", "pattern_offset"};
    char desc[256];
    psk_fparam_desc(p, desc, sizeof desc);
    psk_json_obj(j, NULL);
    psk_json_str(j, "field", psk_field_name(p->field));
    psk_json_str(j, "kind", kinds[p->kind]);
    psk_json_str(j, "mode", modes[p->mode]);
    psk_json_int(j, "loop_depth", p->depth);
    if (p->kind == PSK_VARY_AFFINE || p->kind == PSK_VARY_MOD) {
        psk_json_int(j, "a", p->a);
        psk_json_int(j, "b", p->b);
    }
    if (p->kind == PSK_VARY_MOD || p->kind == PSK_VARY_PERIODIC)
        psk_json_int(j, "m", p->m);
    if (p->table)
        psk_json_int(j, "table_length", p->n);
    psk_json_int(j, "min", p->lo);
    psk_json_int(j, "max", p->hi);
    psk_json_str(j, "expression", desc);
    psk_json_end(j);
}

/* the arguments that change between the node's executions */
static void params_json(psk_json *j, const psk_folded *f, int32_t id)
{
    int n;
    const psk_fparam *p = psk_folded_params(f, id, &n);
    if (!n)
        return;
    psk_json_arr(j, "varying");
    for (int i = 0; i < n; i++)
        psk_fparam_json(j, &p[i]);
    psk_json_end(j);
}

static void node_json(psk_json *j, const psk_folded *f, int32_t id, psk_merged *m)
{
    const psk_fnode *x = psk_folded_node(f, id);
    psk_json_obj(j, NULL);
    if (x->kind == PSK_FNODE_SYM) {
        psk_json_int(j, "symbol", x->sym);
        if (m) {
            char desc[1024];
            psk_merged_class_desc(m, (uint32_t)x->sym, desc, sizeof desc);
            psk_json_str(j, "fn", psk_fn_name(psk_merged_class_fn(m, (uint32_t)x->sym)));
            psk_json_str(j, "event", desc);
        }
        const psk_fstats *s = psk_folded_node_stats(f, id);
        if (s)
            stats_json(j, s);
        params_json(j, f, id);
    } else {
        psk_json_int(j, "loop", x->count);
        psk_json_int(j, "start", x->start);
        psk_json_int(j, "span", x->span);
        int no;
        double med;
        const psk_foutlier *ol = psk_folded_outliers(f, id, &no, &med);
        if (no) { /* iterations whose compute is far from the others' */
            psk_json_num(j, "median_iteration_compute_ns", med);
            psk_json_arr(j, "outlier_iterations");
            for (int i = 0; i < no; i++) {
                psk_json_obj(j, NULL);
                psk_json_int(j, "iteration", ol[i].iter);
                psk_json_num(j, "compute_ns", ol[i].compute);
                psk_json_end(j);
            }
            psk_json_end(j);
        }
        psk_json_arr(j, "body");
        const int32_t *kid = psk_folded_children(f, id);
        for (int32_t c = 0; c < x->nchild; c++)
            node_json(j, f, kid[c], m);
        psk_json_end(j);
    }
    psk_json_end(j);
}

void psk_folded_write_json(FILE *out, const psk_folded *f, psk_merged *m, const char *input, int algo, double secs)
{
    psk_json j;
    psk_json_init(&j, out, 1);
    psk_json_obj(&j, NULL);
    psk_json_str(&j, "input", input);
    psk_json_str(&j, "algorithm", psk_fold_algo_name(algo));
    psk_json_int(&j, "length", psk_folded_input_length(f));
    psk_json_int(&j, "folded_length", psk_folded_length(f));
    psk_json_int(&j, "levels", psk_folded_rounds(f));
    psk_json_num(&j, "seconds", secs);
    if (m) {
        psk_json_int(&j, "ranks", psk_merged_nranks(m));
        psk_json_int(&j, "classes", psk_merged_nclasses(m));
    }
    int32_t ml = psk_folded_main_loop(f);
    if (ml >= 0) {
        const psk_fnode *x = psk_folded_node(f, ml);
        psk_json_obj(&j, "main_loop");
        psk_json_int(&j, "node", ml); /* as gen's skeleton comments name it ("loop N", "nodes A-B") */
        psk_json_int(&j, "count", x->count);
        psk_json_int(&j, "span", x->span);
        psk_json_int(&j, "start", x->start);
        psk_json_int(&j, "depth", x->depth);
        psk_json_end(&j);
    } else {
        psk_json_null(&j, "main_loop");
    }
    psk_json_arr(&j, "tree");
    const int32_t *kid = psk_folded_children(f, 0);
    for (int32_t c = 0; c < psk_folded_node(f, 0)->nchild; c++)
        node_json(&j, f, kid[c], m);
    psk_json_end(&j);
    psk_json_end(&j);
}
