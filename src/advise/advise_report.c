/* The advice written out: for people, the best layout and the runners-up
 * as DVM-like directives (TEMPLATE, DISTRIBUTE ... ONTO, ALIGN, SHADOW)
 * with a table per nest of what it costs; for programs, the same in JSON.
 * Template dimensions are the alignment classes: the distributed ones
 * first, in grid-axis order, then the others. */
#include <inttypes.h>
#include <string.h>

#include "advise_internal.h"
#include "psk_json.h"

static const char *idx_name[ADV_MAXDIM] = {"i", "j", "k", "l", "m", "n", "p", "q"};

/* template dimensions in print order: per position, its class */
static int tdims(const psk_advice *a, const adv_eval *e, int *order)
{
    int n = 0;
    for (int t = 0; t < e->layout.ntdim; t++)
        order[n++] = e->cls[t];
    for (int c = 0; c < a->align.nclass; c++) {
        int dist = 0;
        for (int t = 0; t < e->layout.ntdim; t++)
            dist |= e->cls[t] == c;
        /* an undistributed class of one dimension is left out (it is only
         * that array's own dimension) */
        int members = 0;
        for (int i = 0; i < a->align.nnode; i++)
            members += a->align.cls[i] == c;
        if (!dist && members > 1)
            order[n++] = c;
    }
    return n;
}

static void machine_line(const psk_machine *m, char *buf, size_t len)
{
    static const char *names[] = {"bus", "grid", "switch"};
    const char *t = m->type >= 0 && m->type <= 2 ? names[m->type] : "?";
    snprintf(buf, len, "%s (start %.3g us, %.3g us/byte)", t, m->start_us, m->byte_us);
}

static void grid_sep(const adv_grid *g, char *buf, size_t len, const char *sep)
{
    size_t at = 0;
    buf[0] = 0;
    for (int t = 0; t < g->naxes && at < len; t++)
        at += (size_t)snprintf(buf + at, len - at, "%s%" PRId64, t ? sep : "", g->extent[t]);
}

static void grid_str(const adv_grid *g, char *buf, size_t len)
{
    grid_sep(g, buf, len, "x");
}

/* "coef*idx+off" as an align expression */
static void align_expr(int64_t coef, int64_t off, const char *v, char *buf, size_t len)
{
    if (coef == 1)
        snprintf(buf, len, "%s", v);
    else if (coef == -1)
        snprintf(buf, len, "-%s", v);
    else
        snprintf(buf, len, "%" PRId64 "*%s", coef, v);
    size_t at = strlen(buf);
    if (off > 0)
        snprintf(buf + at, len - at, "+%" PRId64, off);
    else if (off < 0)
        snprintf(buf + at, len - at, "%" PRId64, off);
}

/* the directive lines of a layout, each through emit */
typedef void (*emit_fn)(void *ctx, const char *line);

static void directives(const psk_advice *a, const adv_eval *e, emit_fn emit, void *ctx)
{
    const psk_adv_program *p = a->prog;
    int order[ADV_MAXTDIM + 64], nt = tdims(a, e, order);
    char line[4096], g[256], ex[128];
    size_t at;
    if (nt == 0) {
        emit(ctx, "every array on every processor (nothing distributed)");
        return;
    }
    at = (size_t)snprintf(line, sizeof line, "TEMPLATE T(");
    for (int t = 0; t < nt && at < sizeof line; t++)
        at += (size_t)snprintf(line + at, sizeof line - at, "%s%" PRId64 ":%" PRId64, t ? ", " : "",
                               a->align.clo[order[t]], a->align.chi[order[t]]);
    snprintf(line + at, sizeof line - at, ")");
    emit(ctx, line);
    grid_sep(&e->layout.grid, g, sizeof g, ",");
    at = (size_t)snprintf(line, sizeof line, "DISTRIBUTE T(");
    for (int t = 0; t < nt && at < sizeof line; t++)
        at += (size_t)snprintf(line + at, sizeof line - at, "%s%s", t ? ", " : "",
                               t < e->layout.ntdim ? "BLOCK" : "*");
    snprintf(line + at, sizeof line - at, ") ONTO P(%s)", g);
    emit(ctx, line);
    for (int x = 0; x < p->narrays; x++) {
        const adv_array *ar = &p->arrays[x];
        at = (size_t)snprintf(line, sizeof line, "ALIGN %s(", ar->name);
        int repl = e->layout.replicated[x];
        for (int d = 0; d < ar->ndim && at < sizeof line; d++) {
            int c = a->align.cls[x * ADV_MAXDIM + d], shown = 0;
            for (int t = 0; t < nt; t++)
                shown |= order[t] == c;
            at += (size_t)snprintf(line + at, sizeof line - at, "%s%s", d ? "," : "",
                                   repl || !shown ? "*" : idx_name[d]);
        }
        at += (size_t)snprintf(line + at, sizeof line - at, ") WITH T(");
        for (int t = 0; t < nt && at < sizeof line; t++) {
            strcpy(ex, "*");
            for (int d = 0; d < ar->ndim && !repl; d++)
                if (a->align.cls[x * ADV_MAXDIM + d] == order[t])
                    align_expr(a->align.coef[x * ADV_MAXDIM + d], a->align.off[x * ADV_MAXDIM + d],
                               idx_name[d], ex, sizeof ex);
            at += (size_t)snprintf(line + at, sizeof line - at, "%s%s", t ? ", " : "", ex);
        }
        snprintf(line + at, sizeof line - at, ")%s", repl ? "   ! replicated" : "");
        emit(ctx, line);
    }
    for (int x = 0; x < p->narrays; x++) {
        const adv_array *ar = &p->arrays[x];
        int any = 0;
        for (int d = 0; d < ar->ndim; d++)
            any |= e->layout.shadow_lo[x * ADV_MAXDIM + d] || e->layout.shadow_hi[x * ADV_MAXDIM + d];
        if (!any)
            continue;
        at = (size_t)snprintf(line, sizeof line, "SHADOW %s(", ar->name);
        for (int d = 0; d < ar->ndim && at < sizeof line; d++)
            at += (size_t)snprintf(line + at, sizeof line - at, "%s%d:%d", d ? ", " : "",
                                   e->layout.shadow_lo[x * ADV_MAXDIM + d],
                                   e->layout.shadow_hi[x * ADV_MAXDIM + d]);
        snprintf(line + at, sizeof line - at, ")");
        emit(ctx, line);
    }
}

static void emit_text(void *ctx, const char *line)
{
    fprintf((FILE *)ctx, "    %s\n", line);
}

static double imbalance(const adv_cost *c)
{
    return c->compute_avg_us > 0 ? c->compute_us / c->compute_avg_us : 1;
}

/* BLOCK leaves triangular and shrinking loops unbalanced: said where the
 * slowest processor computes this much more than the mean */
#define IMBALANCE_NOTE 1.2

static void notes_text(const psk_advice *a, const adv_eval *e, FILE *out)
{
    const psk_adv_program *p = a->prog;
    for (int n = 0; n < p->nnests; n++)
        if (imbalance(&e->nest[n]) >= IMBALANCE_NOTE)
            fprintf(out, "    note: %s: the slowest processor computes %.2f times the mean; BLOCK"
                         " only: a cyclic distribution (not modelled) would balance it better\n",
                    p->nests[n].name, imbalance(&e->nest[n]));
}

static void layout_text(const psk_advice *a, const adv_eval *e, FILE *out)
{
    const psk_adv_program *p = a->prog;
    directives(a, e, emit_text, out);
    fprintf(out, "    %-16s %8s %12s %6s %11s %11s %11s %11s %9s %12s %12s\n", "nest", "count",
            "compute us", "imbal", "shadow us", "remote us", "reduce us", "across us", "msgs",
            "bytes", "total us");
    for (int n = 0; n < p->nnests; n++) {
        const adv_cost *c = &e->nest[n];
        fprintf(out, "    %-16s %8" PRId64 " %12.3f %6.2f %11.3f %11.3f %11.3f %11.3f %9" PRId64
                     " %12" PRId64 " %12.3f\n",
                p->nests[n].name, p->nests[n].count, c->compute_us, imbalance(c), c->shadow_us,
                c->remote_us, c->reduce_us, c->across_us,
                c->shadow_msgs + c->remote_msgs + c->reduce_msgs + c->across_msgs,
                c->shadow_bytes + c->remote_bytes + c->reduce_bytes + c->across_bytes, c->total_us);
    }
    notes_text(a, e, out);
}

static void summary(const adv_eval *e, FILE *out)
{
    char g[256];
    grid_str(&e->layout.grid, g, sizeof g);
    fprintf(out, "grid %s (%d-D): %.6g us (compute %.6g, communication %.6g), %" PRId64
                 " messages, %" PRId64 " bytes, at most %" PRId64 " bytes of arrays a processor\n",
            g, e->layout.grid.naxes, e->total_us, e->compute_us, e->comm_us, e->msgs, e->bytes,
            e->mem_bytes);
}

void psk_adv_write_text(const psk_advice *a, FILE *out)
{
    const psk_adv_program *p = a->prog;
    char mline[256];
    machine_line(a->machine, mline, sizeof mline);
    fprintf(out, "perfskel advise: %s, P = %" PRId64 ", machine %s; %d arrays, %d nests, repeat %" PRId64
                 "; %d layouts considered\n",
            p->path ? p->path : "-", a->procs, mline, p->narrays, p->nnests, p->repeat, a->ncand);
    fprintf(out, "alignment: %d template dimensions from %d arcs, %d left as communication\n",
            a->align.nclass, a->align.narcs, a->align.nrejected);
    if (a->ncand == 0)
        return;
    const adv_eval *best = &a->cand[a->rank[0]];
    fprintf(out, "\nbest layout (one for the whole program): ");
    summary(best, out);
    layout_text(a, best, out);
    if (a->nequiv[0])
        fprintf(out, "    (and %d equivalent layout%s: the same figures with dimensions or axes exchanged)\n",
                a->nequiv[0], a->nequiv[0] > 1 ? "s" : "");
    if (a->nshown > 1)
        fprintf(out, "\nrunners-up:\n");
    for (int k = 1; k < a->nshown; k++) {
        const adv_eval *e = &a->cand[a->rank[a->shown[k]]];
        if (best->total_us > 0)
            fprintf(out, "\n%d. (%+.1f %%) ", k + 1, 100 * (e->total_us / best->total_us - 1));
        else
            fprintf(out, "\n%d. (%+.6g us) ", k + 1, e->total_us - best->total_us);
        summary(e, out);
        layout_text(a, e, out);
        if (a->nequiv[k])
            fprintf(out, "    (and %d equivalent layout%s)\n", a->nequiv[k], a->nequiv[k] > 1 ? "s" : "");
    }
    if (a->plan_static) {
        fprintf(out, "\nredistributing between nests: does not pay off (the best layout throughout)\n");
        return;
    }
    fprintf(out, "\nwith redistribution between nests: %.6g us (%.1f %% of the best single layout's)\n",
            a->plan_us, best->total_us > 0 ? 100 * a->plan_us / best->total_us : 0.0);
    for (int n = 0; n < p->nnests; n++) {
        char g[256];
        const adv_eval *e = &a->cand[a->plan[n]];
        grid_str(&e->layout.grid, g, sizeof g);
        if (a->redist_msgs[n] || a->redist_us[n] > 0)
            fprintf(out, "  redistribute before %s: %.6g us, %" PRId64 " messages, %" PRId64 " bytes\n",
                    p->nests[n].name, a->redist_us[n], a->redist_msgs[n], a->redist_bytes[n]);
        fprintf(out, "  %s (grid %s): %.6g us an execution\n", p->nests[n].name, g, e->nest[n].total_us);
        if (n == 0 || a->plan[n] != a->plan[n - 1])
            directives(a, e, emit_text, out);
    }
}

typedef struct jctx {
    psk_json *j;
} jctx;

static void emit_json(void *ctx, const char *line)
{
    psk_json_str(((jctx *)ctx)->j, NULL, line);
}

static void cost_json(psk_json *j, const char *name, int64_t count, const adv_cost *c)
{
    psk_json_obj(j, NULL);
    psk_json_str(j, "nest", name);
    psk_json_int(j, "count", count);
    psk_json_num(j, "compute_us", c->compute_us);
    psk_json_num(j, "imbalance", imbalance(c));
    psk_json_num(j, "shadow_us", c->shadow_us);
    psk_json_num(j, "remote_us", c->remote_us);
    psk_json_num(j, "reduce_us", c->reduce_us);
    psk_json_num(j, "across_us", c->across_us);
    psk_json_num(j, "total_us", c->total_us);
    psk_json_int(j, "shadow_msgs", c->shadow_msgs);
    psk_json_int(j, "shadow_bytes", c->shadow_bytes);
    psk_json_int(j, "remote_msgs", c->remote_msgs);
    psk_json_int(j, "remote_bytes", c->remote_bytes);
    psk_json_int(j, "reduce_msgs", c->reduce_msgs);
    psk_json_int(j, "reduce_bytes", c->reduce_bytes);
    psk_json_int(j, "across_msgs", c->across_msgs);
    psk_json_int(j, "across_bytes", c->across_bytes);
    psk_json_bool(j, "pipelined", c->pipelined);
    psk_json_int(j, "chunks", c->chunks);
    psk_json_end(j);
}

static void layout_json(const psk_advice *a, const adv_eval *e, int nequiv, psk_json *j)
{
    const psk_adv_program *p = a->prog;
    psk_json_obj(j, NULL);
    psk_json_int(j, "equivalent", nequiv);
    psk_json_arr(j, "grid");
    for (int t = 0; t < e->layout.grid.naxes; t++)
        psk_json_int(j, NULL, e->layout.grid.extent[t]);
    psk_json_end(j);
    psk_json_arr(j, "directives");
    jctx c = {j};
    directives(a, e, emit_json, &c);
    psk_json_end(j);
    psk_json_arr(j, "arrays");
    for (int x = 0; x < p->narrays; x++) {
        psk_json_obj(j, NULL);
        psk_json_str(j, "name", p->arrays[x].name);
        psk_json_bool(j, "replicated", e->layout.replicated[x]);
        psk_json_arr(j, "axes");
        for (int d = 0; d < p->arrays[x].ndim; d++) {
            int t = e->layout.map[x * ADV_MAXDIM + d].tdim;
            if (e->layout.replicated[x] || t < 0)
                psk_json_null(j, NULL);
            else
                psk_json_int(j, NULL, e->layout.taxis[t]);
        }
        psk_json_end(j);
        psk_json_arr(j, "shadow");
        for (int d = 0; d < p->arrays[x].ndim; d++) {
            psk_json_arr(j, NULL);
            psk_json_int(j, NULL, e->layout.shadow_lo[x * ADV_MAXDIM + d]);
            psk_json_int(j, NULL, e->layout.shadow_hi[x * ADV_MAXDIM + d]);
            psk_json_end(j);
        }
        psk_json_end(j);
        psk_json_end(j);
    }
    psk_json_end(j);
    psk_json_num(j, "total_us", e->total_us);
    psk_json_num(j, "compute_us", e->compute_us);
    psk_json_num(j, "comm_us", e->comm_us);
    psk_json_int(j, "msgs", e->msgs);
    psk_json_int(j, "bytes", e->bytes);
    psk_json_int(j, "mem_bytes", e->mem_bytes);
    psk_json_arr(j, "nests");
    for (int n = 0; n < p->nnests; n++)
        cost_json(j, p->nests[n].name, p->nests[n].count, &e->nest[n]);
    psk_json_end(j);
    psk_json_arr(j, "unbalanced");
    for (int n = 0; n < p->nnests; n++)
        if (imbalance(&e->nest[n]) >= IMBALANCE_NOTE)
            psk_json_str(j, NULL, p->nests[n].name);
    psk_json_end(j);
    psk_json_end(j);
}

void psk_adv_write_json(const psk_advice *a, FILE *out)
{
    const psk_adv_program *p = a->prog;
    psk_json j;
    psk_json_init(&j, out, 1);
    psk_json_obj(&j, NULL);
    psk_json_str(&j, "file", p->path ? p->path : "");
    psk_json_int(&j, "procs", a->procs);
    psk_json_int(&j, "repeat", p->repeat);
    psk_json_int(&j, "considered", a->ncand);
    psk_json_int(&j, "template_dims", a->align.nclass);
    psk_json_int(&j, "arcs", a->align.narcs);
    psk_json_int(&j, "arcs_rejected", a->align.nrejected);
    psk_json_arr(&j, "layouts");
    for (int k = 0; k < a->nshown; k++)
        layout_json(a, &a->cand[a->rank[a->shown[k]]], a->nequiv[k], &j);
    psk_json_end(&j);
    psk_json_obj(&j, "plan");
    psk_json_bool(&j, "static", a->plan_static);
    psk_json_num(&j, "total_us", a->plan_us);
    psk_json_arr(&j, "nests");
    for (int n = 0; n < p->nnests && a->plan; n++) {
        int li = -1;
        for (int r = 0; r < a->ncand; r++)
            if (a->rank[r] == a->plan[n])
                li = r;
        psk_json_obj(&j, NULL);
        psk_json_str(&j, "nest", p->nests[n].name);
        psk_json_int(&j, "layout_rank", li);
        psk_json_arr(&j, "grid");
        for (int t = 0; t < a->cand[a->plan[n]].layout.grid.naxes; t++)
            psk_json_int(&j, NULL, a->cand[a->plan[n]].layout.grid.extent[t]);
        psk_json_end(&j);
        psk_json_num(&j, "redist_us", a->redist_us[n]);
        psk_json_int(&j, "redist_msgs", a->redist_msgs[n]);
        psk_json_int(&j, "redist_bytes", a->redist_bytes[n]);
        psk_json_end(&j);
    }
    psk_json_end(&j);
    psk_json_end(&j);
    psk_json_end(&j);
    fputc('\n', out);
}
