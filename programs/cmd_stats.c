/* perfskel stats: an mpiP-like profile of a recorded job. Per rank: wall
 * time (as mpiP's AppTime: MPI_Init's exit to MPI_Finalize's entry), time
 * in MPI calls within it (MPI_Init and MPI_Finalize are listed but not
 * counted), time outside MPI (compute); per function and rank: calls, bytes
 * and time; then the calls whose arguments change from one loop iteration
 * to the next, as fold finds them (--no-fold: not). For a job recorded with
 * the tuning library stacked (trace format 2), the tuned collectives' calls
 * and time per arm, all ranks and (--json) per rank. A rank whose file is
 * damaged is profiled up to its last good block, and the problem is
 * reported on stderr with exit status 1. The profile of each rank is the
 * trace library's (psk_trace_profile_rank); this prints it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "perfskel/trace.h"
#include "psk_json.h"

static double sec(uint64_t ns) { return (double)ns * 1e-9; }
static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

static void print_job_json(psk_json *j, const psk_job *job, const char *dir)
{
    char id[17];
    snprintf(id, sizeof id, "%016llx", (unsigned long long)job->job_id);
    psk_json_str(j, "trace", dir);
    psk_json_obj(j, "job");
    psk_json_str(j, "job_id", id);
    psk_json_str(j, "mpi", psk_flavour_name(job->flavour));
    psk_json_str(j, "mpi_version", job->mpi_version);
    psk_json_int(j, "ranks", job->nranks);
    psk_json_str(j, "command", job->command);
    psk_json_str(j, "start_time", job->start_time);
    psk_json_arr(j, "hosts");
    for (int r = 0; r < job->nranks; r++)
        psk_json_str(j, NULL, job->hosts[r]);
    psk_json_end(j);
    psk_json_end(j);
}

/* the enclosing loops of node id, outermost first, into out (at most cap); their number */
static int loops_of(const psk_folded *f, int32_t id, int32_t *out, int cap)
{
    int n = 0;
    for (int32_t p = psk_folded_node(f, id)->parent; p > 0; p = psk_folded_node(f, p)->parent)
        n++;
    int k = n;
    for (int32_t p = psk_folded_node(f, id)->parent; p > 0; p = psk_folded_node(f, p)->parent)
        if (--k < cap)
            out[k] = p;
    return n < cap ? n : cap;
}

/* the parameters of node id that vary between iterations, *np of them; NULL
 * when it is not a call or none varies */
static const psk_fparam *varying_at(const psk_folded *f, int32_t id, int *np)
{
    const psk_fparam *p = psk_folded_params(f, id, np);
    return *np && psk_folded_node(f, id)->kind == PSK_FNODE_SYM ? p : NULL;
}

/* the calls whose arguments vary between iterations (NULL f: not computed) */
static void varying_json(psk_json *j, const psk_folded *f, psk_merged *m)
{
    if (!f) {
        psk_json_null(j, "varying");
        return;
    }
    psk_json_arr(j, "varying");
    for (int32_t id = 0; id < psk_folded_nnodes(f); id++) {
        int np;
        const psk_fparam *p = varying_at(f, id, &np);
        if (!p)
            continue;
        const psk_fnode *x = psk_folded_node(f, id);
        char desc[1024];
        psk_merged_class_desc(m, (uint32_t)x->sym, desc, sizeof desc);
        psk_json_obj(j, NULL);
        psk_json_str(j, "fn", psk_fn_name(psk_merged_class_fn(m, (uint32_t)x->sym)));
        psk_json_str(j, "event", desc);
        psk_json_int(j, "node", id);
        int32_t lp[64];
        int nl = loops_of(f, id, lp, 64);
        psk_json_arr(j, "loops");
        for (int l = 0; l < nl; l++) {
            psk_json_obj(j, NULL);
            psk_json_int(j, "node", lp[l]);
            psk_json_int(j, "iterations", psk_folded_node(f, lp[l])->count);
            psk_json_end(j);
        }
        psk_json_end(j);
        psk_json_arr(j, "params");
        for (int i = 0; i < np; i++)
            psk_fparam_json(j, &p[i]);
        psk_json_end(j);
        psk_json_end(j);
    }
    psk_json_end(j);
}

static void varying_text(const psk_folded *f, psk_merged *m)
{
    int any = 0;
    for (int32_t id = 0; id < psk_folded_nnodes(f); id++) {
        int np;
        const psk_fparam *p = varying_at(f, id, &np);
        if (!p)
            continue;
        const psk_fnode *x = psk_folded_node(f, id);
        if (!any++)
            printf("\ncalls whose arguments change between loop iterations (i0: the outermost loop's\n"
                   "iteration, i1 the next; k: the call's execution; see perfskel fold)\n");
        int32_t lp[64];
        int nl = loops_of(f, id, lp, 64);
        printf("  %s in ", psk_fn_name(psk_merged_class_fn(m, (uint32_t)x->sym)));
        for (int l = 0; l < nl; l++)
            printf("%sloop %d (x%lld)", l ? " > " : "", lp[l], (long long)psk_folded_node(f, lp[l])->count);
        printf(":");
        for (int i = 0; i < np; i++) {
            char e[256];
            psk_fparam_desc(&p[i], e, sizeof e);
            printf("%s %s", i ? "," : "", e);
        }
        putchar('\n');
    }
    if (!any)
        printf("\nno call's arguments change between loop iterations\n");
}

/* the arms' totals over the ranks (NULL if no rank has any): [fn * narm + arm] */
static psk_trace_fnstat *arm_totals(const psk_job *job, const psk_trace_profile *rs, unsigned nfn)
{
    size_t n = (size_t)nfn * (size_t)psk_arm_count();
    psk_trace_fnstat *tot = NULL;
    for (int r = 0; r < job->nranks; r++) {
        if (!rs[r].arm || (!tot && !(tot = calloc(n, sizeof *tot))))
            continue;
        for (size_t k = 0; k < n; k++) {
            tot[k].calls += rs[r].arm[k].calls;
            tot[k].bytes += rs[r].arm[k].bytes;
            tot[k].ns += rs[r].arm[k].ns;
        }
    }
    return tot;
}

static void print_json(const psk_job *job, const char *dir, psk_trace_profile *rs, psk_trace_fnstat *tot, unsigned nfn,
                       const psk_folded *fo, psk_merged *m)
{
    psk_json j;
    psk_json_init(&j, stdout, 1);
    psk_json_obj(&j, NULL);
    print_job_json(&j, job, dir);
    uint64_t wall = 0, mpi = 0, events = 0;
    for (int r = 0; r < job->nranks; r++) {
        if (rs[r].wall_ns > wall)
            wall = rs[r].wall_ns;
        mpi += rs[r].mpi_ns;
        events += rs[r].events;
    }
    psk_json_obj(&j, "totals");
    psk_json_uint(&j, "events", events);
    psk_json_num(&j, "wall_seconds", sec(wall));
    psk_json_num(&j, "mpi_seconds", sec(mpi));
    psk_json_end(&j);
    psk_json_arr(&j, "functions");
    for (unsigned fn = 1; fn < nfn; fn++) {
        if (!tot[fn].calls)
            continue;
        psk_json_obj(&j, NULL);
        psk_json_str(&j, "name", psk_fn_name(fn));
        psk_json_str(&j, "class", psk_class_name(psk_fn_class(fn)));
        psk_json_uint(&j, "calls", tot[fn].calls);
        psk_json_uint(&j, "bytes", tot[fn].bytes);
        psk_json_num(&j, "seconds", sec(tot[fn].ns));
        psk_json_end(&j);
    }
    psk_json_end(&j);
    int narm = psk_arm_count();
    psk_trace_fnstat *at = arm_totals(job, rs, nfn);
    if (at) { /* the tuned collectives per arm (trace format 2) */
        psk_json_arr(&j, "arms");
        for (unsigned fn = 1; fn < nfn; fn++)
            for (int a = 0; a < narm; a++) {
                const psk_trace_fnstat *f = &at[(size_t)fn * (size_t)narm + (size_t)a];
                if (!f->calls)
                    continue;
                psk_json_obj(&j, NULL);
                psk_json_str(&j, "name", psk_fn_name(fn));
                psk_json_str(&j, "arm", psk_arm_name(a));
                psk_json_uint(&j, "calls", f->calls);
                psk_json_num(&j, "seconds", sec(f->ns));
                psk_json_end(&j);
            }
        psk_json_end(&j);
    }
    free(at);
    psk_json_arr(&j, "ranks");
    for (int r = 0; r < job->nranks; r++) {
        const psk_trace_profile *s = &rs[r];
        psk_json_obj(&j, NULL);
        psk_json_int(&j, "rank", r);
        psk_json_str(&j, "host", job->hosts[r]);
        psk_json_bool(&j, "complete", s->complete);
        if (s->error)
            psk_json_str(&j, "error", s->error);
        psk_json_uint(&j, "events", s->events);
        psk_json_num(&j, "wall_seconds", sec(s->wall_ns));
        psk_json_num(&j, "mpi_seconds", sec(s->mpi_ns));
        psk_json_num(&j, "compute_seconds", sec(s->wall_ns > s->mpi_ns ? s->wall_ns - s->mpi_ns : 0));
        const char *keys[] = {"calls", "bytes", "seconds"};
        for (int k = 0; k < 3; k++) {
            psk_json_obj(&j, keys[k]);
            for (unsigned fn = 1; fn < nfn; fn++) {
                const psk_trace_fnstat *f = &s->fn[fn];
                if (!f->calls)
                    continue;
                if (k == 0)
                    psk_json_uint(&j, psk_fn_name(fn), f->calls);
                else if (k == 1)
                    psk_json_uint(&j, psk_fn_name(fn), f->bytes);
                else
                    psk_json_num(&j, psk_fn_name(fn), sec(f->ns));
            }
            psk_json_end(&j);
        }
        if (s->arm) { /* {"MPI_Alltoall": {"ring": calls, ...}, ...} */
            psk_json_obj(&j, "arm_calls");
            for (unsigned fn = 1; fn < nfn; fn++) {
                if (!psk_fn_tuned(fn) || !s->fn[fn].calls)
                    continue;
                psk_json_obj(&j, psk_fn_name(fn));
                for (int a = 0; a < narm; a++)
                    if (s->arm[(size_t)fn * (size_t)narm + (size_t)a].calls)
                        psk_json_uint(&j, psk_arm_name(a), s->arm[(size_t)fn * (size_t)narm + (size_t)a].calls);
                psk_json_end(&j);
            }
            psk_json_end(&j);
        }
        psk_json_end(&j);
    }
    psk_json_end(&j);
    varying_json(&j, fo, m);
    psk_json_end(&j);
}

/* qsort has no context argument: the totals being sorted by */
static const psk_trace_fnstat *sort_ctx;

static int by_time_desc(const void *a, const void *b)
{
    unsigned fa = *(const unsigned *)a, fb = *(const unsigned *)b;
    uint64_t x = sort_ctx[fa].ns, y = sort_ctx[fb].ns;
    return x < y ? 1 : x > y ? -1 : (int)fa - (int)fb;
}

static void print_text(const psk_job *job, const char *dir, psk_trace_profile *rs, psk_trace_fnstat *tot, unsigned nfn,
                       const psk_folded *fo, psk_merged *m)
{
    printf("perfskel profile of %s\n", dir);
    printf("  job %016llx, %s (%s), %d ranks, started %s\n", (unsigned long long)job->job_id,
           psk_flavour_name(job->flavour), job->mpi_version, job->nranks, job->start_time);
    printf("  command: %s\n", job->command);
    printf("  wall: MPI_Init's exit to MPI_Finalize's entry; MPI: time in MPI calls in between\n\n");
    uint64_t wall = 0, mpi_all = 0, wall_all = 0;
    printf("%-6s %-20s %12s %12s %7s %12s %10s\n", "rank", "host", "wall (s)", "MPI (s)", "MPI %",
           "compute (s)", "events");
    for (int r = 0; r < job->nranks; r++) {
        const psk_trace_profile *s = &rs[r];
        uint64_t comp = s->wall_ns > s->mpi_ns ? s->wall_ns - s->mpi_ns : 0;
        printf("%-6d %-20.20s %12.6f %12.6f %7.2f %12.6f %10llu%s\n", r, job->hosts[r], sec(s->wall_ns),
               sec(s->mpi_ns), pct(s->mpi_ns, s->wall_ns), sec(comp), (unsigned long long)s->events,
               s->complete ? "" : "  (incomplete)");
        if (s->wall_ns > wall)
            wall = s->wall_ns;
        mpi_all += s->mpi_ns;
        wall_all += s->wall_ns;
    }
    printf("%-6s %-20s %12.6f %12.6f %7.2f\n\n", "all", "", sec(wall), sec(mpi_all), pct(mpi_all, wall_all));

    unsigned *order = malloc(nfn * sizeof *order), n = 0;
    for (unsigned fn = 1; fn < nfn; fn++)
        if (tot[fn].calls)
            order[n++] = fn;
    sort_ctx = tot;
    qsort(order, n, sizeof *order, by_time_desc);
    printf("%-24s %10s %14s %12s %7s %12s\n", "function (all ranks)", "calls", "bytes", "time (s)",
           "MPI %", "avg (us)");
    for (unsigned k = 0; k < n; k++) {
        const psk_trace_fnstat *f = &tot[order[k]];
        const char *name = psk_fn_name(order[k]);
        char share[16] = "      -"; /* Init and Finalize lie outside the wall time */
        if (strcmp(name, "MPI_Init") && strcmp(name, "MPI_Init_thread") && strcmp(name, "MPI_Finalize"))
            snprintf(share, sizeof share, "%7.2f", pct(f->ns, mpi_all));
        printf("%-24s %10llu %14llu %12.6f %s %12.3f\n", name, (unsigned long long)f->calls,
               (unsigned long long)f->bytes, sec(f->ns), share,
               f->calls ? (double)f->ns / (double)f->calls / 1e3 : 0.0);
    }
    printf("\n%-24s %6s %10s %14s %12s\n", "function per rank", "rank", "calls", "bytes", "time (s)");
    for (unsigned k = 0; k < n; k++)
        for (int r = 0; r < job->nranks; r++) {
            const psk_trace_fnstat *f = &rs[r].fn[order[k]];
            if (f->calls)
                printf("%-24s %6d %10llu %14llu %12.6f\n", psk_fn_name(order[k]), r,
                       (unsigned long long)f->calls, (unsigned long long)f->bytes, sec(f->ns));
        }
    free(order);
    psk_trace_fnstat *at = arm_totals(job, rs, nfn);
    if (at) {
        int narm = psk_arm_count();
        printf("\n%-24s %-16s %10s %12s %12s\n", "tuned collective", "arm", "calls", "time (s)", "avg (us)");
        for (unsigned fn = 1; fn < nfn; fn++)
            for (int a = 0; a < narm; a++) {
                const psk_trace_fnstat *f = &at[(size_t)fn * (size_t)narm + (size_t)a];
                if (f->calls)
                    printf("%-24s %-16s %10llu %12.6f %12.3f\n", psk_fn_name(fn), psk_arm_name(a),
                           (unsigned long long)f->calls, sec(f->ns), (double)f->ns / (double)f->calls / 1e3);
            }
        free(at);
    }
    if (fo)
        varying_text(fo, m);
}

enum { O_JSON, O_NO_FOLD };
static const psk_cli_opt opts[] = {
    [O_JSON] = {"--json", NULL, PSK_OPT_FLAG},
    [O_NO_FOLD] = {"--no-fold", NULL, PSK_OPT_FLAG},
};
const psk_cli_opts cmd_stats_opts = {"stats", PSK_CLI_OPTS(opts), PSK_CLI_JOB_NONE, NULL, NULL};

int cmd_stats(int argc, char **argv)
{
    const char *dir = NULL;
    int json = 0, fold = 1, k;
    psk_cli_args a;
    psk_cli_begin(&a, &cmd_stats_opts, argc, argv);
    while ((k = psk_cli_next(&a)) != PSK_CLI_END) {
        if (k == PSK_CLI_STOP)
            return a.status;
        else if (k == O_JSON)
            json = 1;
        else if (k == O_NO_FOLD)
            fold = 0;
        else if (!dir) /* an operand */
            dir = a.val;
        else
            return psk_cli_usage("stats: one trace directory only");
    }
    if (!dir)
        return psk_cli_usage("stats: no trace directory given");
    psk_trace *t;
    if (psk_trace_open(dir, &t)) {
        psk_cli_error("%s", psk_trace_errmsg(t));
        psk_trace_close(t);
        return PSK_EXIT_DATA;
    }
    const psk_job *job = psk_trace_job(t);
    unsigned nfn = psk_fn_count();
    psk_trace_profile *rs = calloc((size_t)job->nranks, sizeof *rs);
    psk_trace_fnstat *tot = calloc(nfn, sizeof *tot);
    if (!rs || !tot)
        return psk_cli_error("out of memory"), PSK_EXIT_DATA;
    int bad = 0;
    psk_cli_progress pg;
    psk_cli_progress_init(&pg, "stats", 0);
    psk_cli_progress_step(&pg, "reading the ranks", (uint64_t)job->nranks);
    for (int r = 0; r < job->nranks; r++) {
        if (psk_trace_profile_rank(t, r, &rs[r])) {
            psk_cli_progress_done(&pg);
            psk_cli_error("out of memory");
            for (int q = 0; q <= r; q++)
                psk_trace_profile_free(&rs[q]);
            free(rs);
            free(tot);
            psk_trace_close(t);
            return PSK_EXIT_DATA;
        }
        psk_cli_progress_set(&pg, (uint64_t)r + 1);
        for (unsigned fn = 1; fn < nfn && rs[r].fn; fn++) {
            tot[fn].calls += rs[r].fn[fn].calls;
            tot[fn].bytes += rs[r].fn[fn].bytes;
            tot[fn].ns += rs[r].fn[fn].ns;
        }
        bad |= !rs[r].complete;
    }
    psk_cli_progress_done(&pg);
    /* what varies per iteration needs the merged and folded trace; a
     * damaged trace is profiled without it */
    psk_merged *m = NULL;
    psk_folded *fo = NULL;
    if (fold && !bad) {
        if ((fo = psk_cli_load_folded(dir, &m)) && psk_folded_stats(fo, m)) {
            psk_cli_error("%s: %s", dir, psk_folded_errmsg(fo));
            psk_folded_free(fo);
            psk_merged_close(m);
            fo = NULL, m = NULL;
        }
        bad |= !fo;
    }
    if (json)
        print_json(job, dir, rs, tot, nfn, fo, m);
    else
        print_text(job, dir, rs, tot, nfn, fo, m);
    psk_folded_free(fo);
    psk_merged_close(m);
    fflush(stdout);
    for (int r = 0; r < job->nranks; r++) {
        if (rs[r].error)
            psk_cli_error("%s", rs[r].error);
        psk_trace_profile_free(&rs[r]);
    }
    free(rs);
    free(tot);
    psk_trace_close(t);
    return bad ? PSK_EXIT_DATA : 0;
}
