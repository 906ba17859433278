/* The data the HTML report's script reads (sim_html_script.c), in one
 * <script type="application/json" id="psk-data">: the MPI functions'
 * names, and per run its name, prediction and, for each rank shown (the
 * first 64), its calls as segments. So that the page stays a few MB
 * whatever the trace's length, a run has at most SEGMENTS segments
 * (divided among the runs and the ranks shown): a rank with more is
 * merged per cell of a time grid (psk_dseg_coalesce), each segment then
 * saying how many calls it holds, their time in MPI and waiting, their
 * bytes and the function with most time. Each segment is 8 numbers: its
 * start after the previous one's end, its length, MPI time, waiting time
 * (ns), function (an index into "fns"), peer (-1 none, -2 several),
 * bytes, calls. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perfskel/trace.h"
#include "sim_detail.h"
#include "sim_html.h"

#define SEGMENTS 48000 /* segments over all runs */

static long long ns(double s)
{
    return llround(s * 1e9);
}

static void row(FILE *out, const psk_drow *r, size_t budget, double end, const int *fnidx)
{
    psk_drow w = *r;
    psk_dseg *copy = NULL;
    if (r->n > budget) { /* merged per cell of a grid of `budget` cells over the run */
        copy = malloc(r->n * sizeof *copy);
        if (copy) {
            memcpy(copy, r->seg, r->n * sizeof *copy);
            w.seg = copy;
            double g = end / (double)budget;
            for (int k = 0; k < 60 && w.n > 2 * budget; k++, g *= 2)
                psk_dseg_coalesce(&w, g > r->grid ? g : r->grid);
        } else {
            w.n = 0;
        }
    }
    long long prev = 0;
    for (size_t i = 0; i < w.n; i++) {
        const psk_dseg *g = &w.seg[i];
        long long t0 = ns(g->t0), t1 = ns(g->t1);
        fprintf(out, "%s%lld,%lld,%lld,%lld,%d,%d,%lld,%u", i ? "," : "", t0 - prev, t1 - t0, ns(g->mpi),
                ns(g->sync), g->fn < psk_fn_count() ? fnidx[g->fn] : -1, g->peer, (long long)g->bytes, g->n);
        prev = t1;
    }
    free(copy);
}

int *psk_html_fn_index(const psk_sim_report_run *runs, int nruns)
{
    unsigned nfn = psk_fn_count();
    int *idx = malloc((nfn ? nfn : 1) * sizeof *idx);
    if (!idx)
        return NULL;
    int n = 0;
    for (unsigned f = 0; f < nfn; f++) {
        idx[f] = -1;
        for (int k = 0; k < nruns && idx[f] < 0; k++) {
            const psk_sim_detail *d = runs[k].detail;
            for (int i = 0; d && i < d->nint && idx[f] < 0; i++)
                if (d->fncell[i] && d->fncell[i][f].calls)
                    idx[f] = n++;
        }
    }
    return idx;
}

void psk_html_data(FILE *out, const psk_sim_report_run *runs, int nruns, const int *fnidx)
{
    unsigned nfn = psk_fn_count();
    fprintf(out, "<script type=\"application/json\" id=\"psk-data\">{\"fns\":[");
    for (unsigned f = 0, n = 0; f < nfn; f++)
        if (fnidx[f] >= 0) {
            fprintf(out, "%s", n++ ? "," : "");
            psk_html_json_str(out, psk_fn_name(f) ? psk_fn_name(f) : "?");
        }
    fprintf(out, "],\n\"runs\":[");
    for (int k = 0; k < nruns; k++) {
        const psk_sim *s = runs[k].sim;
        const psk_sim_detail *d = runs[k].detail;
        int P = psk_sim_nranks(s), shown = d ? d->rows : 0;
        fprintf(out, "%s\n{\"name\":", k ? "," : "");
        psk_html_json_str(out, runs[k].name);
        fprintf(out, ",\"predicted\":%.9g,\"ranks\":%d,\"rows\":[", psk_sim_predicted(s), P);
        size_t budget = shown ? (size_t)SEGMENTS / (size_t)nruns / (size_t)shown : 0;
        budget = budget < 200 ? 200 : budget;
        const psk_interval *all = psk_sim_interval(s, 0);
        for (int q = 0; q < shown; q++) {
            const double *m = all->m + (size_t)q * PSK_M_N;
            fprintf(out, "%s\n{\"rank\":%d,\"exec\":%.9g,\"cpu\":%.9g,\"mpi\":%.9g,\"sync\":%.9g,\"s\":[", q ? "," : "",
                    q, m[PSK_M_EXEC], m[PSK_M_CPU], m[PSK_M_P2P] + m[PSK_M_COLL] + m[PSK_M_WAIT], m[PSK_M_SYNC]);
            row(out, &d->row[q], budget, psk_sim_predicted(s), fnidx);
            fprintf(out, "]}");
        }
        fprintf(out, "]}");
    }
    fprintf(out, "]}</script>\n");
}
