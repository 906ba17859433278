/* The tables of perfskel sim's HTML report, plain HTML with bars of CSS
 * (readable without the script, which adds tooltips): the comparison of
 * the machines, time per MPI function per interval, the interval and loop
 * tree with each one's time and efficiency, and the communication matrix
 * as a heat map. A function's colour is its index among those called
 * (psk_html_fn_colour here, fnColour in the script), the same in every
 * table and the timeline. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfskel/trace.h"
#include "sim_detail.h"
#include "sim_html.h"

#define TABLE_ROWS 300 /* intervals listed at most */

static const char *const palette[12] = {"#2f6db5", "#b5402f", "#7b4fb0", "#1f9e9e", "#c4a000", "#a34d82",
                                        "#5a6b7d", "#e06c00", "#3d8fd6", "#8c564b", "#17becf", "#bc5fd3"};
#define C_CPU "#4c9a2a"
#define C_MPI "#2f6db5"
#define C_WAIT "#d9822b"
#define C_IDLE "#b8b8b8"

/* the script's fnColour() gives the same */
const char *psk_html_fn_colour(int index)
{
    return index >= 0 ? palette[index % 12] : "#777";
}

static void bar(FILE *out, double frac, const char *colour, const char *tip)
{
    if (frac <= 0)
        return;
    fprintf(out, "<span style=\"width:%.3f%%;background:%s\" title=\"", 100 * (frac > 1 ? 1 : frac), colour);
    psk_html_esc(out, tip);
    fprintf(out, "\"></span>");
}

/* where the time of interval i goes, summed over ranks: compute, MPI not
 * waiting, waiting for a late partner, idle */
static void split(const psk_sim *s, int i, double part[4])
{
    double sync = psk_html_total(s, i, PSK_M_SYNC);
    double mpi = psk_html_total(s, i, PSK_M_P2P) + psk_html_total(s, i, PSK_M_COLL) + psk_html_total(s, i, PSK_M_WAIT);
    part[0] = psk_html_total(s, i, PSK_M_CPU);
    part[1] = mpi - sync > 0 ? mpi - sync : 0;
    part[2] = sync;
    part[3] = psk_html_total(s, i, PSK_M_IDLE);
}

static const char *const split_name[4] = {"compute", "MPI", "waiting for a late partner", "idle"};
static const char *const split_colour[4] = {C_CPU, C_MPI, C_WAIT, C_IDLE};

static void split_bar(FILE *out, const double part[4], double scale)
{
    double sum = part[0] + part[1] + part[2] + part[3];
    char tip[128];
    fprintf(out, "<div class=\"bar\" style=\"width:%.2f%%\">", 100 * (scale > 1 ? 1 : scale));
    for (int j = 0; j < 4; j++) {
        snprintf(tip, sizeof tip, "%s: %.6f s (%.1f %%)", split_name[j], part[j], sum > 0 ? 100 * part[j] / sum : 0);
        bar(out, sum > 0 ? part[j] / sum : 0, split_colour[j], tip);
    }
    fprintf(out, "</div>");
}

static void split_legend(FILE *out)
{
    fprintf(out, "<p class=\"legend\">");
    for (int j = 0; j < 4; j++)
        fprintf(out, "<span><i style=\"background:%s\"></i>%s</span>", split_colour[j], split_name[j]);
    fprintf(out, "(summed over ranks)</p>\n");
}

void psk_html_compare(FILE *out, const psk_sim_report_run *runs, int nruns)
{
    double most = 0;
    for (int k = 0; k < nruns; k++)
        most = psk_sim_predicted(runs[k].sim) > most ? psk_sim_predicted(runs[k].sim) : most;
    fprintf(out, "<h2>%s</h2>\n<div class=\"scroll\"><table class=\"compare\"><thead><tr><th>machine</th>"
                 "<th>predicted (s)</th><th>vs first</th><th>efficiency</th><th>compute</th><th>MPI</th>"
                 "<th>waiting</th><th>idle</th><th class=\"wide\">where the time goes</th></tr></thead><tbody>\n",
            nruns > 1 ? "Machines compared" : "Prediction");
    for (int k = 0; k < nruns; k++) {
        const psk_sim *s = runs[k].sim;
        double part[4], sum = 0, p = psk_sim_predicted(s), p0 = psk_sim_predicted(runs[0].sim);
        split(s, 0, part);
        for (int j = 0; j < 4; j++)
            sum += part[j];
        fprintf(out, "<tr data-run=\"%d\"><td class=\"name\">", k);
        psk_html_esc(out, runs[k].name);
        fprintf(out, "</td><td>%.6f</td><td>%.3fx</td><td>%.3f</td>", p, p0 > 0 ? p / p0 : 1,
                psk_sim_interval(s, 0)->efficiency);
        for (int j = 0; j < 4; j++)
            fprintf(out, "<td>%.1f %%</td>", sum > 0 ? 100 * part[j] / sum : 0);
        fprintf(out, "<td class=\"wide\">");
        split_bar(out, part, most > 0 ? p / most : 0);
        fprintf(out, "</td></tr>\n");
    }
    fprintf(out, "</tbody></table></div>\n");
    split_legend(out);
}

void psk_html_loops(FILE *out, const psk_sim_report_run *run, const int *ord, int n, const char *prefix)
{
    const psk_sim *s = run->sim;
    int P = psk_sim_nranks(s);
    double whole = psk_sim_interval(s, 0)->exec;
    fprintf(out, "<h3>Loops and intervals</h3>\n");
    if (n <= 1)
        fprintf(out, "<p>The program only: <code>--intervals loops</code> adds the loops <code>perfskel fold</code> "
                     "finds, <code>MPI_Pcontrol</code> regions their own.</p>\n");
    fprintf(out, "<div class=\"scroll\"><table class=\"loops\"><thead><tr><th>interval</th><th>entered</th>"
                 "<th>time (s)</th><th class=\"wide\">time</th><th>efficiency</th><th class=\"wide\">where the time "
                 "goes</th></tr></thead><tbody>\n");
    for (int k = 0; k < n && k < TABLE_ROWS; k++) {
        const psk_interval *v = psk_sim_interval(s, ord[k]);
        uint64_t execs = 0;
        for (int q = 0; q < P; q++)
            execs = v->count[q] > execs ? v->count[q] : execs;
        fprintf(out, "<tr><td class=\"name\" style=\"padding-left:%dem\"><a href=\"#%siv%d\">",
                v->level < 20 ? v->level : 20, prefix, ord[k]);
        psk_html_esc(out, v->name);
        fprintf(out, "</a></td><td>%llu</td><td>%.6f</td><td class=\"wide\"><div class=\"bar\" style=\"width:100%%\">",
                (unsigned long long)execs, v->exec);
        char tip[96];
        snprintf(tip, sizeof tip, "%.6f s, %.1f %% of the run", v->exec, whole > 0 ? 100 * v->exec / whole : 0);
        bar(out, whole > 0 ? v->exec / whole : 0, "#555", tip);
        fprintf(out, "</div></td><td>%.3f <div class=\"bar eff\"><span style=\"width:%.1f%%;background:%s\"></span>"
                     "</div></td><td class=\"wide\">", v->efficiency, 100 * v->efficiency, C_CPU);
        double part[4];
        split(s, ord[k], part);
        split_bar(out, part, 1);
        fprintf(out, "</td></tr>\n");
    }
    fprintf(out, "</tbody></table></div>\n");
    if (n > TABLE_ROWS)
        fprintf(out, "<p>The first %d of %d intervals.</p>\n", TABLE_ROWS, n);
}

void psk_html_functions(FILE *out, const psk_sim_report_run *run, const int *ord, int n, const int *fnidx)
{
    const psk_sim *s = run->sim;
    const psk_sim_detail *d = run->detail;
    int ni = psk_sim_nintervals(s);
    unsigned nfn = d->nfn;
    unsigned *fns = malloc((nfn ? nfn : 1) * sizeof *fns); /* the functions this run called */
    if (!fns)
        return;
    int nu = 0;
    for (unsigned f = 0; f < nfn; f++) {
        int used = 0;
        for (int i = 0; i < d->nint && i < ni && !used; i++)
            used = d->fncell[i] && d->fncell[i][f].calls;
        if (used)
            fns[nu++] = f;
    }
    /* each interval's own calls, added to its ancestors' too */
    psk_dcell *agg = calloc((size_t)ni * (size_t)(nu ? nu : 1), sizeof *agg);
    if (!agg) {
        free(fns);
        return;
    }
    for (int i = 0; i < d->nint && i < ni; i++) {
        if (!d->fncell[i])
            continue;
        for (int a = i, hops = 0; a >= 0 && a < ni && hops <= ni; a = psk_sim_interval(s, a)->parent, hops++)
            for (int u = 0; u < nu; u++) {
                const psk_dcell *c = &d->fncell[i][fns[u]];
                psk_dcell *x = &agg[(size_t)a * (size_t)nu + (size_t)u];
                x->time += c->time, x->sync += c->sync, x->calls += c->calls, x->bytes += c->bytes;
            }
    }
    fprintf(out, "<h3>Time in MPI per function and interval</h3>\n");
    if (!nu) {
        fprintf(out, "<p>No MPI call was replayed.</p>\n");
        free(fns), free(agg);
        return;
    }
    fprintf(out, "<p class=\"legend\">");
    for (int u = 0; u < nu; u++) {
        fprintf(out, "<span><i style=\"background:%s\"></i>", psk_html_fn_colour(fnidx[fns[u]]));
        psk_html_esc(out, psk_fn_name(fns[u]));
        fprintf(out, "</span>");
    }
    fprintf(out, "(summed over ranks; bars to scale with the program's)</p>\n");
    double most = 0;
    for (int u = 0; u < nu; u++)
        most += agg[u].time;
    fprintf(out, "<div class=\"scroll\"><table class=\"fns\"><thead><tr><th>interval</th><th>MPI (s)</th>"
                 "<th>calls</th><th class=\"wide\">by function</th></tr></thead><tbody>\n");
    for (int k = 0; k < n && k < TABLE_ROWS; k++) {
        const psk_interval *v = psk_sim_interval(s, ord[k]);
        const psk_dcell *row = agg + (size_t)ord[k] * (size_t)nu;
        double t = 0;
        uint64_t calls = 0;
        for (int u = 0; u < nu; u++)
            t += row[u].time, calls += row[u].calls;
        fprintf(out, "<tr><td class=\"name\" style=\"padding-left:%dem\">", v->level < 20 ? v->level : 20);
        psk_html_esc(out, v->name);
        fprintf(out, "</td><td>%.6f</td><td>%llu</td><td class=\"wide\"><div class=\"bar\" style=\"width:100%%\">", t,
                (unsigned long long)calls);
        for (int u = 0; u < nu; u++) {
            char tip[160];
            snprintf(tip, sizeof tip, "%s: %.6f s in %llu calls (%.6f s waiting), %lld bytes", psk_fn_name(fns[u]),
                     row[u].time, (unsigned long long)row[u].calls, row[u].sync, (long long)row[u].bytes);
            bar(out, most > 0 ? row[u].time / most : 0, psk_html_fn_colour(fnidx[fns[u]]), tip);
        }
        fprintf(out, "</div></td></tr>\n");
    }
    fprintf(out, "</tbody></table></div>\n");
    if (n > TABLE_ROWS)
        fprintf(out, "<p>The first %d of %d intervals.</p>\n", TABLE_ROWS, n);
    /* the whole program, per function */
    fprintf(out, "<div class=\"scroll\"><table class=\"fntotals\"><thead><tr><th>function</th><th>calls</th>"
                 "<th>time (s)</th><th>waiting (s)</th><th>bytes</th><th class=\"wide\">share of MPI time</th></tr>"
                 "</thead><tbody>\n");
    for (int u = 0; u < nu; u++) {
        fprintf(out, "<tr><td class=\"name\">");
        psk_html_esc(out, psk_fn_name(fns[u]));
        fprintf(out, "</td><td>%llu</td><td>%.6f</td><td>%.6f</td><td>%lld</td><td class=\"wide\"><div class=\"bar\" "
                     "style=\"width:100%%\">", (unsigned long long)agg[u].calls, agg[u].time, agg[u].sync,
                (long long)agg[u].bytes);
        char tip[64];
        snprintf(tip, sizeof tip, "%.1f %%", most > 0 ? 100 * agg[u].time / most : 0);
        bar(out, most > 0 ? agg[u].time / most : 0, psk_html_fn_colour(fnidx[fns[u]]), tip);
        fprintf(out, "</div></td></tr>\n");
    }
    fprintf(out, "</tbody></table></div>\n");
    free(fns), free(agg);
}

void psk_html_matrix(FILE *out, const psk_sim_detail *d)
{
    double most = 0, all = 0;
    for (int k = 0; k < d->G * d->G; k++) {
        most = d->mbytes[k] > most ? d->mbytes[k] : most;
        all += d->mmsgs[k];
    }
    fprintf(out, "<h2>Communication matrix</h2>\n");
    if (all == 0) {
        fprintf(out, "<p>No point-to-point messages.</p>\n");
        return;
    }
    fprintf(out, "<p>Bytes of point-to-point messages from each rank (row) to each rank (column)%s; darker is more "
                 "(logarithmic). Collectives are not counted.", d->block > 1 ? ", ranks in blocks" : "");
    if (d->block > 1)
        fprintf(out, " Each cell is a block of %d ranks.", d->block);
    int cell = 480 / d->G; /* px: the map about 480 px wide */
    cell = cell < 10 ? 10 : cell > 36 ? 36 : cell;
    fprintf(out, "</p>\n<style>table.matrix td{width:%dpx;height:%dpx}</style>\n", cell, cell);
    fprintf(out, "<div class=\"scroll\"><table class=\"matrix\"><thead><tr><th>from \\ to</th>");
    for (int c = 0; c < d->G; c++)
        fprintf(out, "<th>%d</th>", c * d->block);
    fprintf(out, "</tr></thead><tbody>\n");
    for (int r = 0; r < d->G; r++) {
        fprintf(out, "<tr><th>%d</th>", r * d->block);
        for (int c = 0; c < d->G; c++) {
            double b = d->mbytes[(size_t)r * (size_t)d->G + (size_t)c], m = d->mmsgs[(size_t)r * (size_t)d->G + (size_t)c];
            if (m == 0) {
                fprintf(out, "<td></td>");
                continue;
            }
            double x = most > 0 ? log1p(b) / log1p(most) : 0;
            int shade = (int)lround(235 - 200 * x);
            char who[64];
            if (d->block > 1)
                snprintf(who, sizeof who, "ranks %d-%d to %d-%d", r * d->block, r * d->block + d->block - 1,
                         c * d->block, c * d->block + d->block - 1);
            else
                snprintf(who, sizeof who, "rank %d to %d", r, c);
            fprintf(out, "<td style=\"background:rgb(%d,%d,255)\" title=\"%s: %.0f bytes in %.0f messages\"></td>",
                    shade, shade, who, b, m);
        }
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</tbody></table></div>\n");
}
