/* The HTML report of perfskel sim: one self-contained page (no scripts,
 * no network) in the spirit of seed 003's Predictor output. Each interval
 * has its own block with up, previous, next and home links; the tree at the
 * top expands and collapses (<details>); per-rank tables of every
 * characteristic; SVG plots: a timeline per rank (compute, communication,
 * waiting for late partners) and stacked bars of lost time per interval. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfskel/sim.h"

static void esc(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", out);
        else if (*s == '>')
            fputs("&gt;", out);
        else if (*s == '&')
            fputs("&amp;", out);
        else if (*s == '"')
            fputs("&quot;", out);
        else
            fputc(*s, out);
    }
}

static double total(const psk_interval *v, int P, int k)
{
    double t = 0;
    for (int q = 0; q < P; q++)
        t += v->m[(size_t)q * PSK_M_N + (size_t)k];
    return t;
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

static void tree(const psk_sim *s, FILE *out, int i)
{
    const psk_interval *v = psk_sim_interval(s, i);
    int kids = 0;
    for (int c = 0; c < psk_sim_nintervals(s); c++)
        kids += psk_sim_interval(s, c)->parent == i;
    if (kids)
        fprintf(out, "<li><details open><summary>");
    else
        fprintf(out, "<li>");
    fprintf(out, "<a href=\"#iv%d\">", i);
    esc(out, v->name);
    fprintf(out, "</a> %.6f s, efficiency %.3f", v->exec, v->efficiency);
    if (kids) {
        fprintf(out, "</summary><ul>\n");
        for (int c = 0; c < psk_sim_nintervals(s); c++)
            if (psk_sim_interval(s, c)->parent == i)
                tree(s, out, c);
        fprintf(out, "</ul></details></li>\n");
    } else {
        fprintf(out, "</li>\n");
    }
}

static const char *const colours[3] = {"#4c9a2a", "#2f6db5", "#d9822b"}; /* compute, communication, waiting */

static void timeline(const psk_sim *s, FILE *out)
{
    int P = psk_sim_nranks(s), rows = P > 64 ? 64 : P;
    double bin;
    psk_sim_timeline(s, 0, &bin);
    double end = psk_sim_predicted(s);
    int nb = bin > 0 ? (int)(end / bin) + 1 : 1;
    nb = nb > PSK_TL_BINS ? PSK_TL_BINS : nb < 1 ? 1 : nb;
    const int W = 900, L = 60, H = 14;
    double bw = (double)W / nb;
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" "
                 "aria-label=\"timeline per rank\">\n", L + W + 10, rows * (H + 2) + 30);
    for (int q = 0; q < rows; q++) {
        const double *t = psk_sim_timeline(s, q, &bin);
        int y = q * (H + 2);
        fprintf(out, "<text x=\"0\" y=\"%d\" font-size=\"11\">rank %d</text>\n", y + H - 3, q);
        for (int i = 0; i < nb; i++) {
            double sum = t[3 * i] + t[3 * i + 1] + t[3 * i + 2], width = bin * 1e9; /* ns */
            if (sum <= 0)
                continue;
            double yy = y;
            for (int k = 0; k < 3; k++) { /* stacked: each part's share of the bin */
                double h = H * t[3 * i + k] / (width > sum ? width : sum);
                if (h <= 0)
                    continue;
                fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
                        L + i * bw, yy, bw + 0.05, h, colours[k]);
                yy += h;
            }
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
    if (rows < P)
        fprintf(out, "<p>The first %d of %d ranks.</p>\n", rows, P);
}

/* stacked bars: lost time per interval, summed over ranks */
static void lost_bars(const psk_sim *s, FILE *out, const int *ord, int n)
{
    int P = psk_sim_nranks(s);
    const int W = 600, L = 160, H = 18;
    double most = 0;
    for (int k = 0; k < n; k++)
        most = total(psk_sim_interval(s, ord[k]), P, PSK_M_LOST) > most ? total(psk_sim_interval(s, ord[k]), P, PSK_M_LOST)
                                                                         : most;
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" "
                 "aria-label=\"lost time per interval\">\n", L + W + 120, n * (H + 4) + 30);
    const char *names[3] = {"idle", "waiting for late partners", "communication"};
    const char *fill[3] = {"#999999", colours[2], colours[1]};
    for (int k = 0; k < n; k++) {
        const psk_interval *v = psk_sim_interval(s, ord[k]);
        double idle = total(v, P, PSK_M_IDLE), sync = total(v, P, PSK_M_SYNC);
        double mpi = total(v, P, PSK_M_P2P) + total(v, P, PSK_M_COLL) + total(v, P, PSK_M_WAIT) - sync;
        double part[3] = {idle, sync, mpi > 0 ? mpi : 0};
        int y = k * (H + 4);
        fprintf(out, "<text x=\"0\" y=\"%d\" font-size=\"11\">", y + H - 5);
        esc(out, v->name);
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
                total(v, P, PSK_M_LOST));
    }
    int y = n * (H + 4) + 14;
    for (int j = 0; j < 3; j++)
        fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" "
                     "font-size=\"11\">%s</text>\n", L + 200 * j, y - 9, fill[j], L + 14 + 200 * j, y, names[j]);
    fprintf(out, "</svg>\n");
}

static void block(const psk_sim *s, FILE *out, const int *ord, int n, int k)
{
    int i = ord[k], P = psk_sim_nranks(s);
    const psk_interval *v = psk_sim_interval(s, i);
    fprintf(out, "<section id=\"iv%d\">\n<h2>", i);
    esc(out, v->name);
    fprintf(out, "</h2>\n<nav>");
    if (v->parent >= 0)
        fprintf(out, "<a href=\"#iv%d\">up</a> ", v->parent);
    if (k > 0)
        fprintf(out, "<a href=\"#iv%d\">previous</a> ", ord[k - 1]);
    if (k + 1 < n)
        fprintf(out, "<a href=\"#iv%d\">next</a> ", ord[k + 1]);
    fprintf(out, "<a href=\"#iv0\">home</a></nav>\n");
    uint64_t execs = 0;
    for (int q = 0; q < P; q++)
        execs = v->count[q] > execs ? v->count[q] : execs;
    fprintf(out, "<p>Execution time %.6f s, efficiency %.3f, entered %llu time(s) (most by one rank).</p>\n",
            v->exec, v->efficiency, (unsigned long long)execs);
    fprintf(out, "<table><thead><tr><th>rank</th><th>count</th>");
    for (int m = 0; m < PSK_M_N; m++)
        fprintf(out, "<th>%s (s)</th>", psk_metric_name(m));
    fprintf(out, "</tr></thead><tbody>\n");
    int rows = P > 256 ? 256 : P;
    for (int q = 0; q < rows; q++) {
        fprintf(out, "<tr><td>%d</td><td>%llu</td>", q, (unsigned long long)v->count[q]);
        for (int m = 0; m < PSK_M_N; m++)
            fprintf(out, "<td>%.6f</td>", v->m[(size_t)q * PSK_M_N + (size_t)m]);
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "<tr class=\"sum\"><td>all</td><td></td>");
    for (int m = 0; m < PSK_M_N; m++)
        fprintf(out, "<td>%.6f</td>", total(v, P, m));
    fprintf(out, "</tr>\n</tbody></table>\n");
    if (rows < P)
        fprintf(out, "<p>The first %d of %d ranks; the sums are over all.</p>\n", rows, P);
    fprintf(out, "</section>\n");
}

void psk_sim_write_html(const psk_sim *s, FILE *out, const psk_machine *m, const char *title)
{
    static const char *const types[] = {"bus", "grid", "switch"};
    int n = psk_sim_nintervals(s);
    int *ord = malloc((size_t)(n > 0 ? n : 1) * sizeof *ord);
    if (!ord)
        return;
    int nord = order(s, 0, ord, 0);
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>perfskel sim: ");
    esc(out, title);
    fprintf(out, "</title>\n<style>\nbody{font-family:sans-serif;margin:1.5em;max-width:1200px}\n"
                 "table{border-collapse:collapse;font-size:12px;margin:.5em 0}\n"
                 "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}\n"
                 "tr.sum td{font-weight:bold}\nnav a{margin-right:1em}\nsection{margin-top:2em}\n"
                 "summary{cursor:pointer}\n</style></head><body>\n");
    fprintf(out, "<h1>perfskel sim: ");
    esc(out, title);
    fprintf(out, "</h1>\n<p>Predicted run time <b>%.6f s</b> (MPI_Init to MPI_Finalize, slowest rank) on a %s "
                 "machine: start time %.6g us, send byte time %.6g us/byte, power %.6g, eager threshold %lld "
                 "bytes, collectives %s. %d ranks, %llu events.</p>\n",
            psk_sim_predicted(s), types[m->type], m->start_us, m->byte_us, m->power, (long long)m->eager_bytes,
            m->closed_form ? "by formula" : "expanded into messages", psk_sim_nranks(s),
            (unsigned long long)psk_sim_events(s));
    if (psk_sim_folded(s))
        fprintf(out, "<p>Simulated from the folded trace (each loop-body call with its mean compute time before "
                     "it): %llu events replayed one by one, %lld loop iterations skipped once they repeated exactly "
                     "(their time is spread evenly over the timeline).</p>\n",
                (unsigned long long)psk_sim_replayed(s), (long long)psk_sim_skipped_iterations(s));
    fprintf(out, "<h2>Intervals</h2>\n<ul>\n");
    tree(s, out, 0);
    fprintf(out, "</ul>\n<h2>Timeline</h2>\n");
    timeline(s, out);
    fprintf(out, "<h2>Lost time per interval (summed over ranks)</h2>\n");
    lost_bars(s, out, ord, nord);
    for (int k = 0; k < nord; k++)
        block(s, out, ord, nord, k);
    fprintf(out, "</body></html>\n");
    free(ord);
}
