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
#include "psk_json.h"
#include "sim_detail.h"
#include "sim_html.h"

#define SEGMENTS 48000 /* segments over all runs */

static long long ns(double s)
{
    return llround(s * 1e9);
}

static void row(psk_json *j, const psk_drow *r, size_t budget, double end, const int *fnidx)
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
        const int64_t v[8] = {t0 - prev, t1 - t0, ns(g->mpi), ns(g->sync), g->fn < psk_fn_count() ? fnidx[g->fn] : -1,
                              g->peer, (int64_t)g->bytes, (int64_t)g->n};
        for (int k = 0; k < 8; k++)
            psk_json_int(j, NULL, v[k]);
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
    psk_json j;
    psk_json_init(&j, out, PSK_JSON_COMPACT);
    j.html = 1; /* inside the page: no "</script>" in a name ends it */
    fprintf(out, "<script type=\"application/json\" id=\"psk-data\">");
    psk_json_obj(&j, NULL);
    psk_json_arr(&j, "fns");
    for (unsigned f = 0; f < nfn; f++)
        if (fnidx[f] >= 0)
            psk_json_str(&j, NULL, psk_fn_name(f) ? psk_fn_name(f) : "?");
    psk_json_end(&j);
    psk_json_break(&j, 0);
    psk_json_arr(&j, "runs");
    for (int k = 0; k < nruns; k++) {
        const psk_sim *s = runs[k].sim;
        const psk_sim_detail *d = runs[k].detail;
        int P = psk_sim_nranks(s), shown = d ? d->rows : 0;
        psk_json_break(&j, 0);
        psk_json_obj(&j, NULL);
        psk_json_str(&j, "name", runs[k].name);
        psk_json_numf(&j, "predicted", "%.9g", psk_sim_predicted(s));
        psk_json_int(&j, "ranks", P);
        psk_json_arr(&j, "rows");
        size_t budget = shown ? (size_t)SEGMENTS / (size_t)nruns / (size_t)shown : 0;
        budget = budget < 200 ? 200 : budget;
        const psk_interval *all = psk_sim_interval(s, 0);
        for (int q = 0; q < shown; q++) {
            const double *m = all->m + (size_t)q * PSK_M_N;
            psk_json_break(&j, 0);
            psk_json_obj(&j, NULL);
            psk_json_int(&j, "rank", q);
            psk_json_numf(&j, "exec", "%.9g", m[PSK_M_EXEC]);
            psk_json_numf(&j, "cpu", "%.9g", m[PSK_M_CPU]);
            psk_json_numf(&j, "mpi", "%.9g", m[PSK_M_P2P] + m[PSK_M_COLL] + m[PSK_M_WAIT]);
            psk_json_numf(&j, "sync", "%.9g", m[PSK_M_SYNC]);
            psk_json_arr(&j, "s");
            row(&j, &d->row[q], budget, psk_sim_predicted(s), fnidx);
            psk_json_end(&j);
            psk_json_end(&j);
        }
        psk_json_end(&j);
        psk_json_end(&j);
    }
    psk_json_end(&j);
    psk_json_end(&j);
    fprintf(out, "</script>\n");
}
