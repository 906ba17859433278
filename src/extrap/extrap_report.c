/* The report of an extrapolation (psk_extrap_report: which rule was
 * applied to what, and the grid of ranks before and after) as sim prints
 * it: text before sim's own, and the "extrapolation" member of sim's JSON
 * (written through the JSON writer, psk_sim_write_json_more). */
#include <stdio.h>

#include "perfskel/extrap.h"
#include "psk_json.h"

/* "4x2" */
static void dims(char *buf, size_t cap, const int *d, int nd)
{
    int w = 0;
    for (int k = 0; k < nd && (size_t)w < cap; k++)
        w += snprintf(buf + w, cap - (size_t)w, "%s%d", k ? "x" : "", d[k]);
}

void psk_extrap_write_text(FILE *out, const psk_extrap_report *rep, const char *patterns_from)
{
    char a[64], b[64];
    dims(a, sizeof a, rep->dims_from, rep->ndims);
    dims(b, sizeof b, rep->dims_to, rep->ndims);
    fprintf(out, "extrapolated from %d ranks (%s) to %d, rule %s", rep->from_ranks, patterns_from, rep->to_ranks,
            psk_scale_name(rep->scale));
    if (rep->grid_recorded) {
        char fx[64] = "";
        int nfixed = 0;
        for (int k = 0; k < rep->ndims; k++)
            nfixed += rep->fixed[k] > 0;
        if (nfixed)
            for (int k = 0, w = 0; k < rep->ndims; k++)
                w += snprintf(fx + w, sizeof fx - (size_t)w, "%s%d", k ? "x" : " with ", rep->fixed[k]);
        fprintf(out, "; grid %s -> %s (recorded by MPI_Cart_create, periods ", a, b);
        for (int k = 0; k < rep->ndims; k++)
            fprintf(out, "%s%d", k ? "," : "", rep->periods[k]);
        fprintf(out, "; MPI_Dims_create%s)", fx);
    } else if (rep->ndims > 1) {
        fprintf(out, "; grid %s -> %s (inferred from the peers; MPI_Dims_create)", a, b);
    }
    fprintf(out, "\n");
    for (int i = 0; i < rep->nitems; i++)
        fprintf(out, "  %-48s %-8llu events: %s\n", rep->item[i].what, (unsigned long long)rep->item[i].events,
                rep->item[i].rule);
}

static void ints(psk_json *j, const char *key, const int *v, int n)
{
    psk_json_arr(j, key);
    for (int k = 0; k < n; k++)
        psk_json_int(j, NULL, v[k]);
    psk_json_end(j);
}

void psk_extrap_write_json(psk_json *j, const psk_extrap_report *rep, const char *patterns_from)
{
    psk_json_obj(j, "extrapolation");
    psk_json_int(j, "from_ranks", rep->from_ranks);
    psk_json_int(j, "to_ranks", rep->to_ranks);
    psk_json_str(j, "rule", psk_scale_name(rep->scale));
    psk_json_str(j, "patterns_from", patterns_from);
    ints(j, "grid_from", rep->dims_from, rep->ndims);
    ints(j, "grid_to", rep->dims_to, rep->ndims);
    /* where grid_from comes from: "recorded" (MPI_Cart_create, trace
     * format 3: then its periods and the dims MPI_Dims_create kept fixed,
     * 0 = free) or "inferred" (from the peers) */
    psk_json_str(j, "grid_source", rep->grid_recorded ? "recorded" : "inferred");
    if (rep->grid_recorded) {
        ints(j, "grid_periods", rep->periods, rep->ndims);
        ints(j, "grid_fixed", rep->fixed, rep->ndims);
    }
    if (rep->scale == PSK_SCALE_FIT)
        ints(j, "fit_ranks", rep->fit_ranks, rep->nfit_ranks);
    psk_json_arr(j, "applied");
    for (int i = 0; i < rep->nitems; i++) {
        psk_json_obj(j, NULL);
        psk_json_str(j, "to", rep->item[i].what);
        psk_json_uint(j, "events", rep->item[i].events);
        psk_json_str(j, "rule", rep->item[i].rule);
        psk_json_end(j);
    }
    psk_json_end(j);
    psk_json_end(j);
}
