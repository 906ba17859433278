/* perfskel sim: the Predictor (after DVM's). Replays a recorded trace on a
 * model of a machine (--machine FILE; without one, this machine's defaults
 * in docs/simulation.md) and prints the predicted run time and, per
 * interval and rank, where the time went: text, or --json, and --html FILE
 * (a self-contained page: zoomable timeline, time per function, loops,
 * communication matrix). --machine again replays the trace on each
 * machine and compares them (what if it ran there). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "perfskel/extrap.h"
#include "perfskel/sim.h"

/* The names of Pcontrol levels' intervals a trace may carry in
 * DIR/intervals.txt (perfskel advise --trace writes it): lines
 * "pcontrol LEVEL<TAB>NAME". The file comes from elsewhere: a line of
 * another form, a control byte or a name too long is an error. */
typedef struct pnames {
    long long *level;
    char (*name)[48];
    int n;
} pnames;

static void pname(void *arg, int64_t level, char *buf, size_t cap)
{
    const pnames *pn = arg;
    for (int i = 0; i < pn->n; i++)
        if (pn->level[i] == level) {
            snprintf(buf, cap, "%s", pn->name[i]);
            return;
        }
}

/* 0 (names in *pn, or none: no file), or 1 after the error message;
 * the caller frees pn's arrays either way */
static int load_pnames(const char *dir, pnames *pn)
{
    memset(pn, 0, sizeof *pn);
    char path[4096];
    snprintf(path, sizeof path, "%s/intervals.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[256];
    int ln = 0, cap = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        size_t len = strlen(line);
        int whole = len > 0 && line[len - 1] == '\n';
        if (whole)
            line[--len] = 0;
        char *tab = strchr(line, '\t'), *end = NULL;
        long long lv = 0;
        if (!strncmp(line, "pcontrol ", 9) && tab)
            lv = strtoll(line + 9, &end, 10);
        int ok = (whole || feof(f)) && end && end == tab && end > line + 9 && tab[1] &&
                 strlen(tab + 1) < sizeof pn->name[0];
        for (const unsigned char *c = (const unsigned char *)(tab ? tab + 1 : line); ok && *c; c++)
            ok = *c >= 0x20 && *c != 0x7f;
        if (!ok) {
            psk_cli_error("%s:%d: not `pcontrol LEVEL<TAB>NAME` (a name of 1 to 47 printable bytes)", path, ln);
            fclose(f);
            return 1;
        }
        if (pn->n == cap) {
            cap = cap ? 2 * cap : 16;
            long long *l = realloc(pn->level, (size_t)cap * sizeof *l);
            if (l)
                pn->level = l;
            char(*nm)[48] = realloc(pn->name, (size_t)cap * sizeof *nm);
            if (nm)
                pn->name = nm;
            if (!l || !nm || cap > 1000000) {
                psk_cli_error("%s: out of memory", path);
                fclose(f);
                return 1;
            }
        }
        pn->level[pn->n] = lv;
        snprintf(pn->name[pn->n], sizeof pn->name[0], "%s", tab + 1);
        pn->n++;
    }
    fclose(f);
    return 0;
}

/* sim --ranks P2: the trace (and the --fit recordings) merged as for the
 * folded replay, then extrapolated and folded (psk_extrap_fold); NULL
 * after saying why not, *exit_code the status to exit with */
static psk_folded *extrapolate(const char *input, const char *const *fit, int nfit, int ranks, int scale,
                               psk_merged **out, psk_extrap_report *rep, int *exit_code)
{
    psk_merge_opts mo = {.window = 64, .no_reorder = 1}; /* the folded replay's order */
    psk_merged *in[3] = {NULL};
    psk_folded *f = NULL;
    *exit_code = PSK_EXIT_DATA;
    int ok = (in[0] = psk_cli_load_merged_opts(input, &mo)) != NULL;
    for (int k = 0; ok && k < nfit; k++)
        ok = (in[k + 1] = psk_cli_load_merged_opts(fit[k], &mo)) != NULL;
    if (ok) {
        psk_extrap_opts o = {.ranks = ranks, .scale = scale, .fit = in + 1, .nfit = nfit};
        char err[PSK_EXTRAP_ERRLEN];
        if (psk_extrap_fold(in[0], &o, out, &f, rep, err, sizeof err)) {
            int k = rep->err_input;
            psk_cli_error("%s: %s", k > 0 ? fit[k - 1] : input, err);
            if (k < 0)
                *exit_code = PSK_EXIT_USAGE;
        }
    }
    for (int k = 0; k < 3; k++)
        psk_merged_close(in[k]);
    return f;
}

/* the name of the input an extrapolation's patterns come from */
static const char *patterns_from(const psk_extrap_report *rep, const char *input, const char *const *fit)
{
    return rep->base > 0 ? fit[rep->base - 1] : input;
}

/* sim's JSON gets the extrapolation as one member more */
typedef struct extrap_member {
    const psk_extrap_report *rep;
    const char *from;
} extrap_member;

static void write_extrap_member(void *arg, struct psk_json *j)
{
    const extrap_member *x = arg;
    psk_extrap_write_json(j, x->rep, x->from);
}

#define MAX_MACHINES 16

/* the grid of machine m (file name) must hold every node */
static int grid_fits(const psk_machine *m, const char *name, int nranks)
{
    if (m->type != PSK_NET_GRID)
        return 1;
    long long cells = 1, nodes = (nranks + m->ranks_per_node - 1) / m->ranks_per_node;
    for (int d = 0; d < m->ntopo; d++)
        cells *= m->topo[d];
    if (cells < nodes) {
        psk_cli_error("%s: the topology has %lld nodes; the trace's %d ranks at %d per node need %lld", name, cells,
                      nranks, m->ranks_per_node, nodes);
        return 0;
    }
    return 1;
}

enum { O_MACHINE, O_INTERVALS, O_DEPTH, O_JSON, O_HTML, O_QUIET, O_FOLDED, O_NO_SKIP, O_RANKS, O_SCALE, O_FIT };
static const psk_cli_opt opts[] = {
    [O_MACHINE] = {"--machine", NULL, PSK_OPT_VALUE}, /* again: another machine */
    [O_INTERVALS] = {"--intervals", NULL, PSK_OPT_VALUE},
    [O_DEPTH] = {"--depth", NULL, PSK_OPT_VALUE},
    [O_JSON] = {"--json", NULL, PSK_OPT_FLAG},
    [O_HTML] = {"--html", NULL, PSK_OPT_VALUE},
    [O_QUIET] = {"-q", NULL, PSK_OPT_FLAG},
    [O_FOLDED] = {"--folded", NULL, PSK_OPT_FLAG},
    [O_NO_SKIP] = {"--no-skip", NULL, PSK_OPT_FLAG},
    [O_RANKS] = {"--ranks", NULL, PSK_OPT_VALUE},
    [O_SCALE] = {"--scale", NULL, PSK_OPT_VALUE},
    [O_FIT] = {"--fit", NULL, PSK_OPT_VALUE | PSK_OPT_MORE}, /* TRACE_B [TRACE_C] */
};
const psk_cli_opts cmd_sim_opts = {"sim", PSK_CLI_OPTS(opts), PSK_CLI_JOB_NONE, NULL, NULL};

int cmd_sim(int argc, char **argv)
{
    const char *input = NULL, *html = NULL, *machines[MAX_MACHINES] = {NULL};
    int nm = 0, k;
    int json = 0, depth = 0, quiet = 0, loops = 0, folded = 0, no_skip = 0;
    int ranks = 0, scale = -1, nfit = 0;
    const char *fit[2] = {NULL, NULL};
    psk_cli_args a;
    psk_cli_begin(&a, &cmd_sim_opts, argc, argv);
    while ((k = psk_cli_next(&a)) != PSK_CLI_END) {
        if (k == PSK_CLI_STOP) {
            return a.status;
        } else if (k == O_RANKS) {
            char *end;
            long r = strtol(a.val, &end, 10);
            if (*end || end == a.val || r < 1 || r > (1 << 24))
                return psk_cli_usage("sim: --ranks takes a number of ranks from 1 to 16777216, not '%s'", a.val);
            ranks = (int)r;
        } else if (k == O_SCALE) {
            if (!strcmp(a.val, "weak"))
                scale = PSK_SCALE_WEAK;
            else if (!strcmp(a.val, "strong"))
                scale = PSK_SCALE_STRONG;
            else
                return psk_cli_usage("sim: --scale takes weak or strong, not '%s'", a.val);
        } else if (k == O_FIT) {
            if (nfit + 1 + !!a.val2 > 2)
                return psk_cli_usage("sim: --fit takes two traces at most");
            fit[nfit++] = a.val;
            if (a.val2)
                fit[nfit++] = a.val2;
        } else if (k == O_MACHINE) {
            if (nm == MAX_MACHINES)
                return psk_cli_usage("sim: at most %d machines", MAX_MACHINES);
            machines[nm++] = a.val;
        } else if (k == O_JSON) {
            json = 1;
        } else if (k == O_HTML) {
            html = a.val;
        } else if (k == O_FOLDED) {
            folded = 1;
        } else if (k == O_NO_SKIP) {
            no_skip = 1;
        } else if (k == O_INTERVALS) {
            if (!strcmp(a.val, "loops"))
                loops = 1;
            else if (strcmp(a.val, "pcontrol"))
                return psk_cli_usage("sim: --intervals takes loops or pcontrol, not '%s'", a.val);
        } else if (k == O_QUIET) {
            quiet = 1;
        } else if (k == O_DEPTH) {
            char *end;
            long d = strtol(a.val, &end, 10);
            if (*end || d < 0 || d > 1000)
                return psk_cli_usage("sim: --depth takes a whole number from 0 (all) to 1000, not '%s'", a.val);
            depth = (int)d;
        } else if (!input) { /* an operand */
            input = a.val;
        } else {
            return psk_cli_usage("sim: one trace directory only");
        }
    }
    if (!input)
        return psk_cli_usage("sim: no trace directory given (perfskel sim DIR --machine FILE)");
    if (no_skip && !folded)
        return psk_cli_usage("sim: --no-skip goes with --folded");
    if (ranks && (scale < 0) == (nfit == 0))
        return psk_cli_usage("sim: --ranks takes one rule: --scale weak|strong or --fit TRACE_B [TRACE_C]");
    if (!ranks && (scale >= 0 || nfit))
        return psk_cli_usage("sim: --scale and --fit go with --ranks P2");
    if (nfit)
        scale = PSK_SCALE_FIT;
    if (!nm)
        nm = 1; /* machines[0] NULL: the defaults */
    psk_extrap_report xrep;
    psk_machine m[MAX_MACHINES];
    int nloaded = 0;
    psk_trace *t = NULL;
    psk_merged *merged = NULL;
    psk_folded *fold = NULL;
    psk_sim_marks *marks = NULL;
    pnames pn = {NULL, NULL, 0};
    psk_sim *s[MAX_MACHINES] = {NULL};
    psk_sim_detail *detail[MAX_MACHINES] = {NULL};
    psk_sim_report_run runs[MAX_MACHINES];
    int rc = PSK_EXIT_DATA, nranks = 0;
    double t0 = psk_cli_now();
    for (; nloaded < nm; nloaded++)
        if (psk_cli_load_machine(machines[nloaded], &m[nloaded]))
            goto out;
    if (ranks) { /* replayed folded; every iteration unless --folded */
        int ec;
        if (!(fold = extrapolate(input, fit, nfit, ranks, scale, &merged, &xrep, &ec))) {
            rc = ec;
            goto out;
        }
        nranks = psk_merged_nranks(merged);
        no_skip = !folded;
        folded = 1;
        if (!quiet)
            fprintf(stderr, "perfskel: extrapolated from %d to %d ranks (%s) in %.3f s\n", xrep.from_ranks, ranks,
                    psk_scale_name(scale), psk_cli_now() - t0);
    } else if (folded) {
        psk_cli_progress lp;
        psk_merge_opts mo = {0};
        psk_cli_merge_progress(&lp, &mo, "sim", quiet);
        fold = psk_cli_load_folded_opts(input, &mo, &merged);
        psk_cli_progress_done(&lp);
        if (!fold)
            goto out;
        nranks = psk_merged_nranks(merged);
        if (!quiet)
            fprintf(stderr, "perfskel: merged and folded %llu events to %lld in %.3f s\n",
                    (unsigned long long)psk_merged_length(merged), (long long)psk_folded_length(fold), psk_cli_now() - t0);
        if (!quiet && psk_merged_times_summarized(merged))
            fprintf(stderr, "perfskel: %s has summarised times (merge --times summary): each rank's "
                            "are dealt from its events' spread over the ranks\n", input);
    } else {
        if (psk_trace_open(input, &t)) {
            psk_cli_error("%s", psk_trace_errmsg(t));
            goto out;
        }
        nranks = psk_trace_job(t)->nranks;
    }
    for (int k = 0; k < nm; k++)
        if (!grid_fits(&m[k], machines[k] ? machines[k] : "machine", nranks))
            goto out;
    psk_cli_progress pg;
    psk_cli_progress_init(&pg, "sim", quiet);
    pg.unit = "events";
    pg.step_count = "replaying";
    pg.step_total = "building the folded program";
    psk_sim_opts o = {.machine = &m[0], .depth = depth, .progress = psk_cli_progress_cb, .progress_arg = &pg,
                      .timeline = html != NULL, .no_skip = no_skip};
    if (!folded) {
        if (load_pnames(input, &pn))
            goto out;
        o.pcontrol_name = pname;
        o.pcontrol_arg = &pn;
    }
    if (folded && loops) {
        o.loop_intervals = 1;
        o.mark_name = psk_sim_loop_name;
        o.mark_arg = fold;
    } else if (loops) { /* the loops fold finds, as marks on the trace's events */
        if (!(fold = psk_cli_load_folded(input, &merged)))
            goto out;
        /* the loops' statistics: their outlier iterations are named */
        if (psk_folded_stats(fold, merged)) {
            psk_cli_error("%s: %s", input, psk_folded_errmsg(fold));
            goto out;
        }
        int lrc = psk_sim_loop_marks(merged, fold, depth, &marks);
        if (lrc == PSK_EINVAL)
            psk_cli_error("%s: loops are entered more than %zu times in all: give --depth to keep fewer levels",
                          input, PSK_SIM_LOOP_MARKS_MAX);
        else if (lrc)
            psk_cli_error("%s: %s", input,
                          lrc == PSK_ENOMEM ? "out of memory" : "the merged trace does not match its folding");
        if (lrc)
            goto out;
        o.marks = marks;
        o.mark_name = psk_sim_loop_name;
        o.mark_arg = fold;
    }
    psk_sim_opts ok[MAX_MACHINES]; /* the replays keep a pointer to theirs */
    for (int k = 0; k < nm; k++) { /* each machine in turn: the same trace, the same intervals */
        ok[k] = o;
        ok[k].machine = &m[k];
        if (html) { /* what the report shows beyond the intervals */
            if (!(detail[k] = psk_sim_detail_new(nranks))) {
                psk_cli_error("out of memory");
                goto out;
            }
            psk_sim_detail_attach(detail[k], &ok[k]);
        }
        char step[64];
        if (nm > 1)
            snprintf(step, sizeof step, "replaying on machine %d of %d", k + 1, nm);
        pg.step_count = nm > 1 ? step : "replaying";
        if (!quiet && nm > 1)
            fprintf(stderr, "perfskel: machine %d of %d: %s\n", k + 1, nm, machines[k]);
        double a = psk_cli_now();
        int src = folded ? psk_sim_run_folded(merged, fold, &ok[k], &s[k]) : psk_sim_run(t, &ok[k], &s[k]);
        double secs = psk_cli_now() - a;
        psk_cli_progress_done(&pg);
        if (src) {
            psk_cli_error("%s: %s", input, psk_sim_errmsg(s[k]));
            goto out;
        }
        if (detail[k] && psk_sim_detail_status(detail[k])) {
            psk_cli_error("out of memory");
            goto out;
        }
        if (!quiet && folded)
            fprintf(stderr, "perfskel: built the folded program in %.4f s; simulated %llu events (%llu replayed, %lld "
                            "loop iterations skipped) in %.4f s\n",
                    psk_sim_build_seconds(s[k]), (unsigned long long)psk_sim_events(s[k]),
                    (unsigned long long)psk_sim_replayed(s[k]), (long long)psk_sim_skipped_iterations(s[k]),
                    secs - psk_sim_build_seconds(s[k]));
        else if (!quiet)
            fprintf(stderr, "perfskel: simulated %llu events in %.4f s (%.1f million per second)\n",
                    (unsigned long long)psk_sim_events(s[k]), secs,
                    secs > 0 ? 1e-6 * (double)psk_sim_events(s[k]) / secs : 0);
        runs[k] = (psk_sim_report_run){.sim = s[k], .machine = &m[k], .name = machines[k] ? machines[k] : "default",
                                       .detail = detail[k]};
    }
    if (html) {
        FILE *f = fopen(html, "w");
        char title[4096];
        if (ranks) /* the page says it is a prediction for P2 ranks, and by which rule */
            snprintf(title, sizeof title, "%s extrapolated from %d to %d ranks (%s)", input, xrep.from_ranks, ranks,
                     psk_scale_name(scale));
        else
            snprintf(title, sizeof title, "%s", input);
        if (f)
            psk_sim_write_html_runs(f, title, runs, nm);
        if (!f || fclose(f)) {
            psk_cli_error("%s: cannot write", html);
            goto out;
        }
        if (!quiet)
            fprintf(stderr, "perfskel: report written to %s\n", html);
    }
    psk_json j;
    psk_json_init(&j, stdout, PSK_JSON_SPACED);
    if (json && nm > 1) { /* the comparison, then each machine's report as it is with one */
        psk_json_obj(&j, NULL);
        psk_json_break(&j, 2);
        psk_json_arr(&j, "machines");
        psk_sim_compare_json(&j, runs, nm);
        psk_json_newline(&j, 2);
        psk_json_end(&j);
        psk_json_break(&j, 2);
        psk_json_arr(&j, "runs");
    }
    for (int k = 0; k < nm; k++) {
        if (json && nm > 1) { /* a run a line: "}" then ",", each on a line of its own */
            if (k)
                psk_json_newline(&j, 0);
            psk_json_break(&j, 0);
        }
        if (json) {
            extrap_member x = {&xrep, ranks ? patterns_from(&xrep, input, fit) : NULL};
            psk_sim_json(s[k], &j, &m[k], ranks ? write_extrap_member : NULL, &x);
            if (nm == 1)
                putchar('\n');
        } else {
            if (k == 0 && nm > 1)
                psk_sim_write_compare_text(stdout, runs, nm);
            if (nm > 1)
                printf("\n== machine %d: %s ==\n", k + 1, machines[k]);
            if (ranks)
                psk_extrap_write_text(stdout, &xrep, patterns_from(&xrep, input, fit));
            psk_sim_write_text(s[k], stdout, depth);
        }
    }
    if (json && nm > 1) {
        psk_json_newline(&j, 2);
        psk_json_end(&j);
        psk_json_newline(&j, 0);
        psk_json_end(&j);
        putchar('\n');
    }
    rc = 0;
    if (fflush(stdout) || ferror(stdout)) {
        psk_cli_error("standard output: cannot write");
        rc = PSK_EXIT_DATA;
    }
out:
    free(pn.level), free(pn.name);
    for (int k = 0; k < nm; k++) {
        psk_sim_close(s[k]);
        psk_sim_detail_free(detail[k]);
    }
    psk_trace_close(t);
    for (int k = 0; k < nloaded; k++)
        psk_machine_free(&m[k]);
    psk_sim_loop_marks_free(marks, marks ? psk_merged_nranks(merged) : 0);
    psk_folded_free(fold);
    psk_merged_close(merged);
    return rc;
}
