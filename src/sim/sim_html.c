/* The HTML report of perfskel sim: one self-contained page (no network,
 * no library: its stylesheet and small script are perfskel's own,
 * sim_html_script.c) in the spirit of the DVM Predictor's HTML output (its
 * detailed design, Keldysh Institute of Applied Mathematics, 2000). For
 * one or more replays of a trace on different machines: their comparison,
 * then per machine the timeline per rank (drawn as SVG without script,
 * zoomable with it), time per MPI function per interval, the interval and
 * loop tree, lost time per interval, and a block per interval with up,
 * previous, next and home links and a per-rank table of every
 * characteristic; the communication matrix once (it does not depend on
 * the machine). Every name from a trace, a machine file or the command
 * line is escaped (psk_html_esc; in the page's data, the JSON writer
 * escapes <, > and &). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfskel/sim.h"
#include "sim_html.h"

void psk_html_esc(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}

double psk_html_total(const psk_sim *s, int i, int k)
{
    const psk_interval *v = psk_sim_interval(s, i);
    double t = 0;
    for (int q = 0; q < psk_sim_nranks(s); q++)
        t += v->m[(size_t)q * PSK_M_N + (size_t)k];
    return t;
}

void psk_html_prefix(int k, char *buf, size_t cap)
{
    if (k)
        snprintf(buf, cap, "m%d-", k);
    else
        snprintf(buf, cap, "%s", "");
}

/* intervals in document order (depth first), for previous/next */
static int order(const psk_sim *s, int i, int *out, int n)
{
    out[n++] = i;
    for (int c = 0; c < psk_sim_nintervals(s); c++)
        if (psk_sim_interval(s, c)->parent == i)
            n = order(s, c, out, n);
    return n;
}

static void tree(const psk_sim *s, FILE *out, int i, const char *pre)
{
    const psk_interval *v = psk_sim_interval(s, i);
    int kids = 0;
    for (int c = 0; c < psk_sim_nintervals(s); c++)
        kids += psk_sim_interval(s, c)->parent == i;
    if (kids)
        fprintf(out, "<li><details open><summary>");
    else
        fprintf(out, "<li>");
    fprintf(out, "<a href=\"#%siv%d\">", pre, i);
    psk_html_esc(out, v->name);
    fprintf(out, "</a> %.6f s, efficiency %.3f", v->exec, v->efficiency);
    if (kids) {
        fprintf(out, "</summary><ul>\n");
        for (int c = 0; c < psk_sim_nintervals(s); c++)
            if (psk_sim_interval(s, c)->parent == i)
                tree(s, out, c, pre);
        fprintf(out, "</ul></details></li>\n");
    } else {
        fprintf(out, "</li>\n");
    }
}

static const char *const colours[3] = {"#4c9a2a", "#2f6db5", "#d9822b"}; /* compute, communication, waiting */

/* the timeline as SVG from the replay's bins (what the page shows without
 * its script, and what the script replaces by the zoomable one): per rank
 * and part one path of rectangles, neighbouring bins merged so that there
 * are at most STATIC_RECTS rectangles (the page stays small at many ranks) */
#define STATIC_RECTS 24000
static void timeline(const psk_sim *s, FILE *out)
{
    int P = psk_sim_nranks(s), rows = P > 64 ? 64 : P;
    double bin;
    psk_sim_timeline(s, 0, &bin);
    double end = psk_sim_predicted(s);
    int nb = bin > 0 ? (int)(end / bin) + 1 : 1;
    nb = nb > PSK_TL_BINS ? PSK_TL_BINS : nb < 1 ? 1 : nb;
    int per = 1; /* bins merged into one drawn */
    while ((nb + per - 1) / per * 3 * rows > STATIC_RECTS)
        per *= 2;
    int nd = (nb + per - 1) / per;
    const int W = 900, L = 60, H = 14;
    double bw = (double)W * per / nb;
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" role=\"img\" "
                 "aria-label=\"timeline per rank\">\n", L + W + 10, rows * (H + 2) + 30, L + W + 10);
    for (int q = 0; q < rows; q++) {
        const double *t = psk_sim_timeline(s, q, &bin);
        int y = q * (H + 2);
        double width = bin * 1e9 * per; /* ns of a drawn bin */
        fprintf(out, "<text x=\"0\" y=\"%d\" font-size=\"11\">rank %d</text>\n", y + H - 3, q);
        for (int k = 0; k < 3; k++) { /* stacked: each part's share of the bin */
            int any = 0;
            for (int i = 0; i < nd; i++) {
                double part[3] = {0, 0, 0};
                for (int j = i * per; j < (i + 1) * per && j < nb; j++)
                    for (int c = 0; c < 3; c++)
                        part[c] += t[3 * j + c];
                double sum = part[0] + part[1] + part[2], d = width > sum ? width : sum;
                if (sum <= 0 || part[k] <= 0)
                    continue;
                double y0 = y, h = H * part[k] / d;
                for (int c = 0; c < k; c++)
                    y0 += H * part[c] / d;
                if (!any)
                    fprintf(out, "<path fill=\"%s\" d=\"", colours[k]);
                any = 1;
                fprintf(out, "M%.1f %.2fh%.2fv%.2fh-%.2fz", L + i * bw, y0, bw + 0.05, h, bw + 0.05);
            }
            if (any)
                fprintf(out, "\"/>\n");
        }
    }
    int y = rows * (H + 2) + 14;
    fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\">0 s</text>", L, y);
    fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%.6f s</text>\n", L + W, y,
            nb * bin);
    const char *names[3] = {"compute", "communication", "waiting for a late partner"};
    for (int k = 0; k < 3; k++)
        fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" "
                     "font-size=\"11\">%s</text>\n", L + 120 + 200 * k, y - 9, colours[k], L + 134 + 200 * k, y,
                names[k]);
    fprintf(out, "</svg>\n");
}

/* stacked bars: lost time per interval, summed over ranks */
static void lost_bars(const psk_sim *s, FILE *out, const int *ord, int n)
{
    const int W = 600, L = 160, H = 18;
    double most = 0;
    for (int k = 0; k < n; k++) {
        double l = psk_html_total(s, ord[k], PSK_M_LOST);
        most = l > most ? l : most;
    }
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" role=\"img\" "
                 "aria-label=\"lost time per interval\">\n", L + W + 120, n * (H + 4) + 30, L + W + 120);
    const char *names[3] = {"idle", "waiting for late partners", "communication"};
    const char *fill[3] = {"#999999", colours[2], colours[1]};
    for (int k = 0; k < n; k++) {
        const psk_interval *v = psk_sim_interval(s, ord[k]);
        double idle = psk_html_total(s, ord[k], PSK_M_IDLE), sync = psk_html_total(s, ord[k], PSK_M_SYNC);
        double mpi = psk_html_total(s, ord[k], PSK_M_P2P) + psk_html_total(s, ord[k], PSK_M_COLL) +
                     psk_html_total(s, ord[k], PSK_M_WAIT) - sync;
        double part[3] = {idle, sync, mpi > 0 ? mpi : 0};
        int y = k * (H + 4);
        fprintf(out, "<text x=\"0\" y=\"%d\" font-size=\"11\">", y + H - 5);
        psk_html_esc(out, v->name);
        fprintf(out, "</text>\n");
        double x = L;
        for (int j = 0; j < 3; j++) {
            double w = most > 0 ? W * part[j] / most : 0;
            if (w > 0)
                fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>%s %.6f s"
                             "</title></rect>\n", x, y, w, H, fill[j], names[j], part[j]);
            x += w;
        }
        fprintf(out, "<text x=\"%.2f\" y=\"%d\" font-size=\"11\">%.6f s</text>\n", x + 4, y + H - 5,
                psk_html_total(s, ord[k], PSK_M_LOST));
    }
    int y = n * (H + 4) + 14;
    for (int j = 0; j < 3; j++)
        fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" "
                     "font-size=\"11\">%s</text>\n", L + 200 * j, y - 9, fill[j], L + 14 + 200 * j, y, names[j]);
    fprintf(out, "</svg>\n");
}

static void block(const psk_sim *s, FILE *out, const int *ord, int n, int k, const char *pre, int maxrows)
{
    int i = ord[k], P = psk_sim_nranks(s);
    const psk_interval *v = psk_sim_interval(s, i);
    fprintf(out, "<section id=\"%siv%d\">\n<h3>", pre, i);
    psk_html_esc(out, v->name);
    fprintf(out, "</h3>\n<nav>");
    if (v->parent >= 0)
        fprintf(out, "<a href=\"#%siv%d\">up</a> ", pre, v->parent);
    if (k > 0)
        fprintf(out, "<a href=\"#%siv%d\">previous</a> ", pre, ord[k - 1]);
    if (k + 1 < n)
        fprintf(out, "<a href=\"#%siv%d\">next</a> ", pre, ord[k + 1]);
    fprintf(out, "<a href=\"#%siv0\">home</a></nav>\n", pre);
    uint64_t execs = 0;
    for (int q = 0; q < P; q++)
        execs = v->count[q] > execs ? v->count[q] : execs;
    fprintf(out, "<p>Execution time %.6f s, efficiency %.3f, entered %llu time(s) (most by one rank).</p>\n",
            v->exec, v->efficiency, (unsigned long long)execs);
    fprintf(out, "<div class=\"scroll\"><table><thead><tr><th>rank</th><th>count</th>");
    for (int m = 0; m < PSK_M_N; m++)
        fprintf(out, "<th>%s (s)</th>", psk_metric_name(m));
    fprintf(out, "</tr></thead><tbody>\n");
    int rows = P > maxrows ? maxrows : P;
    for (int q = 0; q < rows; q++) {
        fprintf(out, "<tr><td>%d</td><td>%llu</td>", q, (unsigned long long)v->count[q]);
        for (int m = 0; m < PSK_M_N; m++)
            fprintf(out, "<td>%.6f</td>", v->m[(size_t)q * PSK_M_N + (size_t)m]);
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "<tr class=\"sum\"><td>all</td><td></td>");
    for (int m = 0; m < PSK_M_N; m++)
        fprintf(out, "<td>%.6f</td>", psk_html_total(s, i, m));
    fprintf(out, "</tr>\n</tbody></table></div>\n");
    if (rows < P)
        fprintf(out, "<p>The first %d of %d ranks; the sums are over all.</p>\n", rows, P);
    fprintf(out, "</section>\n");
}

#define TABLE_CELLS 16000 /* rows of the per-rank tables over the page */

/* one machine's part of the page */
static void run_part(FILE *out, const psk_sim_report_run *run, int k, int nruns, const int *fnidx)
{
    static const char *const types[] = {"bus", "grid", "switch"};
    const psk_sim *s = run->sim;
    const psk_machine *m = run->machine;
    char pre[32];
    psk_html_prefix(k, pre, sizeof pre);
    int n = psk_sim_nintervals(s);
    int *ord = malloc((size_t)(n > 0 ? n : 1) * sizeof *ord);
    if (!ord)
        return;
    int nord = order(s, 0, ord, 0);
    fprintf(out, "<div class=\"run\" id=\"run-%d\" data-run=\"%d\">\n<h2>", k, k);
    if (nruns > 1)
        fprintf(out, "Machine %d: ", k + 1);
    else
        fprintf(out, "Machine: ");
    psk_html_esc(out, run->name);
    fprintf(out, "</h2>\n<p class=\"pred\">Predicted run time <b>%.6f s</b> (MPI_Init to MPI_Finalize, slowest rank) "
                 "on a %s machine: start time %.6g us, send byte time %.6g us/byte, power %.6g, eager threshold "
                 "%lld bytes, collectives %s. %d ranks, %llu events.</p>\n",
            psk_sim_predicted(s), types[m->type], m->start_us, m->byte_us, m->power, (long long)psk_sim_eager_bytes(s),
            m->closed_form ? "by formula" : "expanded into messages", psk_sim_nranks(s),
            (unsigned long long)psk_sim_events(s));
    const char *sharing = psk_sim_sharing(s, NULL);
    if (sharing[0]) {
        fprintf(out, "<p class=\"sharing\">");
        psk_html_esc(out, sharing); /* holds a host name: data */
        fprintf(out, ".</p>\n");
    }
    if (psk_sim_folded(s))
        fprintf(out, "<p>Simulated from the folded trace (each loop-body call with its mean compute time before "
                     "it): %llu events replayed one by one, %lld loop iterations skipped once they repeated "
                     "(their time is spread evenly over the static timeline; their calls are not in the zoomable "
                     "timeline nor in the time per function).</p>\n",
                (unsigned long long)psk_sim_replayed(s), (long long)psk_sim_skipped_iterations(s));
    fprintf(out, "<h3>Timeline</h3>\n<div class=\"tl\" data-run=\"%d\"></div>\n<div class=\"tl-static\">\n", k);
    timeline(s, out);
    if (psk_sim_nranks(s) > 64)
        fprintf(out, "<p>The first 64 of %d ranks.</p>\n", psk_sim_nranks(s));
    fprintf(out, "</div>\n");
    if (run->detail)
        psk_html_functions(out, run, ord, nord, fnidx);
    psk_html_loops(out, run, ord, nord, pre);
    fprintf(out, "<h3>Intervals</h3>\n<ul>\n");
    tree(s, out, 0, pre);
    fprintf(out, "</ul>\n<h3>Lost time per interval (summed over ranks)</h3>\n");
    lost_bars(s, out, ord, nord);
    /* at most 256 ranks a table, and TABLE_CELLS rows over the page's tables */
    int maxrows = TABLE_CELLS / nruns / (nord > 0 ? nord : 1);
    maxrows = maxrows > 256 ? 256 : maxrows < 16 ? 16 : maxrows;
    fprintf(out, "<details class=\"blocks\" open><summary>Per-rank tables of each interval</summary>\n");
    for (int j = 0; j < nord; j++)
        block(s, out, ord, nord, j, pre, maxrows);
    fprintf(out, "</details>\n</div>\n");
    free(ord);
}

void psk_sim_write_html_runs(FILE *out, const char *title, const psk_sim_report_run *runs, int nruns)
{
    if (nruns < 1)
        return;
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>perfskel sim: ");
    psk_html_esc(out, title);
    fprintf(out, "</title>\n<style>\n%s</style></head><body>\n<h1>perfskel sim: ", psk_html_style);
    psk_html_esc(out, title);
    fprintf(out, "</h1>\n");
    psk_html_compare(out, runs, nruns);
    if (nruns > 1) {
        fprintf(out, "<nav class=\"machines\" hidden>Show machine:");
        for (int k = 0; k < nruns; k++) {
            fprintf(out, " <button type=\"button\" data-run=\"%d\">", k);
            psk_html_esc(out, runs[k].name);
            fprintf(out, "</button>");
        }
        fprintf(out, "</nav>\n");
    }
    int *fnidx = psk_html_fn_index(runs, nruns);
    if (!fnidx)
        return;
    for (int k = 0; k < nruns; k++)
        run_part(out, &runs[k], k, nruns, fnidx);
    if (runs[0].detail)
        psk_html_matrix(out, runs[0].detail);
    fprintf(out, "<pre id=\"selftest\" hidden></pre>\n");
    psk_html_data(out, runs, nruns, fnidx);
    fprintf(out, "<script>\n%s</script>\n</body></html>\n", psk_html_script);
    free(fnidx);
}

void psk_sim_write_html(const psk_sim *s, FILE *out, const psk_machine *m, const char *title)
{
    psk_sim_report_run run = {.sim = s, .machine = m, .name = "default", .detail = NULL};
    psk_sim_write_html_runs(out, title, &run, 1);
}
