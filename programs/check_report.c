/* perfskel check's report: one table of the plain runs, the recording,
 * predict and sim, each error against the plain runs' median and against
 * the recording, and the verdict, whose noise floor is the plain runs'
 * spread (max - min over their median): an error no larger is within
 * noise; or the same as one JSON object. Every percentage is computed
 * here from the seconds it is printed next to. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "psk_json.h"

double psk_check_pct(double a, double b)
{
    return b > 0 ? 100.0 * (a - b) / b : NAN;
}

/* the digits after the point every time of the table gets: 3 or 4
 * significant ones for the plain median */
static int decimals(const psk_check_result *r)
{
    double m = r->median;
    return m >= 10 ? 2 : m >= 0.1 ? 3 : m >= 0.01 ? 4 : m >= 0.001 ? 5 : 6;
}

static int noise_known(const psk_check_result *r)
{
    return r->runs >= 2;
}

static int within(const psk_check_result *r, double err)
{
    return fabs(err) <= r->spread_pct;
}

/* "predict -1.7 %: within noise" or "... outside it (2.3 x the floor)" */
static void judge(FILE *out, const psk_check_result *r, const char *what, double err, const char *sep)
{
    fprintf(out, "%s%s %+.1f %%", sep, what, err);
    if (!noise_known(r))
        return;
    if (within(r, err))
        fputs(": within noise", out);
    else if (r->spread_pct > 0)
        fprintf(out, ": outside the noise (%.2f x the floor)", fabs(err) / r->spread_pct);
    else
        fputs(": outside the noise", out);
}

/* a row of the table: its label, seconds, and the errors given */
static void row(FILE *out, const psk_check_result *r, const char *label, double s, const char *vs_plain,
                const char *vs_rec)
{
    fprintf(out, "%-24s %10.*f", label, decimals(r), s);
    if (vs_plain[0] || vs_rec[0])
        fprintf(out, " %16s", vs_plain);
    if (vs_rec[0])
        fprintf(out, " %13s", vs_rec);
    fputc('\n', out);
}

static void pred_row(FILE *out, const psk_check_result *r, const char *label, const psk_check_pred *p)
{
    if (!p->ran) {
        fprintf(out, "%-24s %10s  %s\n", label, p->error[0] ? "failed" : "not run", p->error);
        return;
    }
    char a[32], b[32];
    snprintf(a, sizeof a, "%+.1f %%", psk_check_pct(p->seconds, r->median));
    snprintf(b, sizeof b, "%+.1f %%", psk_check_pct(p->seconds, r->recorded));
    row(out, r, label, p->seconds, a, b);
}

void psk_check_report_text(FILE *out, const psk_check_result *r)
{
    fputs("perfskel check of", out);
    for (int k = 0; k < r->ncmd; k++)
        fprintf(out, " %s", r->cmd[k]);
    fprintf(out, "\n%s, %d rank%s; times are MPI_Init to MPI_Finalize of the slowest rank\n\n",
            psk_run_mpi_title(r->flavour), r->nranks, r->nranks == 1 ? "" : "s");
    fprintf(out, "%-24s %10s %16s %13s\n", "", "seconds", "vs plain median", "vs recording");
    char label[64], a[32];
    snprintf(label, sizeof label, "plain median (%d run%s)", r->runs, r->runs == 1 ? "" : "s");
    row(out, r, label, r->median, "", "");
    snprintf(a, sizeof a, "%+.1f %%", psk_check_pct(r->min, r->median));
    row(out, r, "plain min", r->min, a, "");
    snprintf(a, sizeof a, "%+.1f %%", psk_check_pct(r->max, r->median));
    row(out, r, "plain max", r->max, a, "");
    double over = psk_check_pct(r->recorded, r->median);
    snprintf(a, sizeof a, "%+.1f %%", over);
    row(out, r, "recorded run", r->recorded, a, "");
    snprintf(label, sizeof label, "predict (K = %d)", r->K);
    pred_row(out, r, label, &r->predict);
    pred_row(out, r, r->calibrated ? "sim (calibrated here)" : "sim (--machine)", &r->sim);
    fprintf(out, "%-24s %10.*f  (median of the plain runs: %.*f s more than the program)\n", "launcher wall time",
            decimals(r), r->wall_median, decimals(r), r->wall_median - r->median);

    if (noise_known(r))
        fprintf(out, "\nnoise floor: the plain runs spread %.1f %% (max - min over their median)\n", r->spread_pct);
    else
        fputs("\nnoise floor: not measured (1 plain run; -n 2 or more for one)\n", out);
    fputs("verdict:", out);
    const char *sep = " ";
    if (r->predict.ran)
        judge(out, r, "predict", psk_check_pct(r->predict.seconds, r->median), sep), sep = "; ";
    else
        fprintf(out, "%spredict failed", sep), sep = "; ";
    if (r->sim.ran)
        judge(out, r, "sim", psk_check_pct(r->sim.seconds, r->median), sep);
    else
        fprintf(out, "%ssim %s", sep, r->sim.error[0] ? "failed" : "not run");
    judge(out, r, "; recording overhead", over, "");
    fputc('\n', out);
    fprintf(out, "kept in %s: the trace (perfskel stats %s), %scheck.json; each run's output and times in %s/check\n",
            r->dir, r->dir, r->calibrated ? "machine.par, " : "", r->dir);
}

static void json_pred(psk_json *j, const psk_check_result *r, const psk_check_pred *p)
{
    if (!p->ran) {
        psk_json_str(j, "error", p->error[0] ? p->error : "not run");
        return;
    }
    double e = psk_check_pct(p->seconds, r->median);
    psk_json_num(j, "predicted_seconds", p->seconds);
    psk_json_num(j, "error_percent", e);
    psk_json_num(j, "error_vs_recorded_percent", psk_check_pct(p->seconds, r->recorded));
    if (noise_known(r))
        psk_json_bool(j, "within_noise", within(r, e));
    else
        psk_json_null(j, "within_noise");
}

void psk_check_report_json(FILE *out, const psk_check_result *r)
{
    psk_json j;
    psk_json_init(&j, out, 1);
    psk_json_obj(&j, NULL);
    psk_json_arr(&j, "command");
    for (int k = 0; k < r->ncmd; k++)
        psk_json_str(&j, NULL, r->cmd[k]);
    psk_json_end(&j);
    psk_json_str(&j, "mpi", psk_flavour_name(r->flavour));
    psk_json_int(&j, "ranks", r->nranks);
    psk_json_str(&j, "dir", r->dir);
    psk_json_obj(&j, "plain");
    psk_json_int(&j, "runs", r->runs);
    psk_json_arr(&j, "seconds");
    for (int k = 0; k < r->runs; k++)
        psk_json_num(&j, NULL, r->plain[k]);
    psk_json_end(&j);
    psk_json_num(&j, "median_seconds", r->median);
    psk_json_num(&j, "min_seconds", r->min);
    psk_json_num(&j, "max_seconds", r->max);
    psk_json_num(&j, "spread_percent", r->spread_pct);
    psk_json_arr(&j, "wall_seconds");
    for (int k = 0; k < r->runs; k++)
        psk_json_num(&j, NULL, r->wall[k]);
    psk_json_end(&j);
    psk_json_num(&j, "wall_median_seconds", r->wall_median);
    psk_json_end(&j);
    if (noise_known(r))
        psk_json_num(&j, "noise_floor_percent", r->spread_pct);
    else
        psk_json_null(&j, "noise_floor_percent");
    psk_json_obj(&j, "recorded");
    double over = psk_check_pct(r->recorded, r->median);
    psk_json_num(&j, "seconds", r->recorded);
    psk_json_int(&j, "events", r->events);
    psk_json_num(&j, "overhead_percent", over);
    if (noise_known(r))
        psk_json_bool(&j, "within_noise", within(r, over));
    else
        psk_json_null(&j, "within_noise");
    psk_json_end(&j);
    psk_json_obj(&j, "predict");
    psk_json_int(&j, "K", r->K);
    if (r->predict.ran) {
        psk_json_num(&j, "skeleton_seconds", r->skeleton);
        psk_json_num(&j, "low_seconds", r->low);
        psk_json_num(&j, "high_seconds", r->high);
    }
    json_pred(&j, r, &r->predict);
    psk_json_end(&j);
    psk_json_obj(&j, "sim");
    if (r->machine) {
        psk_json_str(&j, "machine", r->machine);
        psk_json_bool(&j, "calibrated", r->calibrated);
    }
    json_pred(&j, r, &r->sim);
    psk_json_end(&j);
    psk_json_end(&j);
    fputc('\n', out);
}
