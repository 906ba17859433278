/* perfskel sim --ranks P2: the trace (and the --fit recordings) merged,
 * extrapolated to P2 ranks (include/perfskel/extrap.h) and folded for the
 * replay; and the report of which rule was applied to what, as text and
 * inside sim's JSON. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "perfskel/extrap.h"
#include "sim_extrap.h"

psk_folded *psk_cli_extrapolate(const char *input, const char *const *fit, int nfit, int ranks, int scale,
                                psk_merged **out, psk_extrap_report *rep, int *exit_code)
{
    psk_merge_opts mo = {.window = 64, .no_reorder = 1}; /* the folded replay's order */
    psk_merged *in[3] = {NULL};
    psk_merged *m2 = NULL;
    psk_folded *f = NULL;
    *exit_code = PSK_EXIT_DATA;
    int ok = (in[0] = psk_cli_load_merged_opts(input, &mo)) != NULL;
    for (int k = 0; ok && k < nfit; k++)
        ok = (in[k + 1] = psk_cli_load_merged_opts(fit[k], &mo)) != NULL;
    if (ok) {
        psk_extrap_opts o = {.ranks = ranks, .scale = scale, .fit = in + 1, .nfit = nfit};
        if (psk_merged_extrapolate(in[0], &o, &m2, rep)) {
            int k = rep->err_input;
            psk_cli_error("%s: %s", k > 0 ? fit[k - 1] : input, psk_merged_errmsg(m2));
            if (k < 0)
                *exit_code = PSK_EXIT_USAGE;
            ok = 0;
        }
    }
    if (ok && psk_fold_merged(m2, PSK_FOLD_RUNS, &f)) {
        psk_cli_error("%s: extrapolated to %d ranks: %s", input, ranks, psk_folded_errmsg(f));
        psk_folded_free(f);
        f = NULL;
        ok = 0;
    }
    for (int k = 0; k < 3; k++)
        psk_merged_close(in[k]);
    if (!ok) {
        psk_merged_close(m2);
        return NULL;
    }
    *out = m2;
    return f;
}

static const char *inname(const psk_extrap_report *rep, const char *input, const char *const *fit)
{
    return rep->base > 0 ? fit[rep->base - 1] : input;
}

static void dims(char *buf, size_t cap, const int *d, int nd)
{
    int w = 0;
    for (int k = 0; k < nd && (size_t)w < cap; k++)
        w += snprintf(buf + w, cap - (size_t)w, "%s%d", k ? "x" : "", d[k]);
}

void psk_cli_extrap_text(FILE *out, const psk_extrap_report *rep, const char *input, const char *const *fit)
{
    char a[64], b[64];
    dims(a, sizeof a, rep->dims_from, rep->ndims);
    dims(b, sizeof b, rep->dims_to, rep->ndims);
    fprintf(out, "extrapolated from %d ranks (%s) to %d, rule %s", rep->from_ranks, inname(rep, input, fit),
            rep->to_ranks, psk_scale_name(rep->scale));
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

static void extrap_json(psk_json *j, const psk_extrap_report *rep, const char *input, const char *const *fit)
{
    psk_json_obj(j, "extrapolation");
    psk_json_int(j, "from_ranks", rep->from_ranks);
    psk_json_int(j, "to_ranks", rep->to_ranks);
    psk_json_str(j, "rule", psk_scale_name(rep->scale));
    psk_json_str(j, "patterns_from", inname(rep, input, fit));
    psk_json_arr(j, "grid_from");
    for (int k = 0; k < rep->ndims; k++)
        psk_json_int(j, NULL, rep->dims_from[k]);
    psk_json_end(j);
    psk_json_arr(j, "grid_to");
    for (int k = 0; k < rep->ndims; k++)
        psk_json_int(j, NULL, rep->dims_to[k]);
    psk_json_end(j);
    /* where grid_from comes from: "recorded" (MPI_Cart_create, trace
     * format 3: then its periods and the dims MPI_Dims_create kept fixed,
     * 0 = free) or "inferred" (from the peers) */
    psk_json_str(j, "grid_source", rep->grid_recorded ? "recorded" : "inferred");
    if (rep->grid_recorded) {
        psk_json_arr(j, "grid_periods");
        for (int k = 0; k < rep->ndims; k++)
            psk_json_int(j, NULL, rep->periods[k]);
        psk_json_end(j);
        psk_json_arr(j, "grid_fixed");
        for (int k = 0; k < rep->ndims; k++)
            psk_json_int(j, NULL, rep->fixed[k]);
        psk_json_end(j);
    }
    if (rep->scale == PSK_SCALE_FIT) {
        psk_json_arr(j, "fit_ranks");
        for (int k = 0; k < rep->nfit_ranks; k++)
            psk_json_int(j, NULL, rep->fit_ranks[k]);
        psk_json_end(j);
    }
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

int psk_cli_extrap_sim_json(FILE *out, const psk_sim *s, const psk_machine *m, const psk_extrap_report *rep,
                            const char *input, const char *const *fit)
{
    char *text = NULL, *ext = NULL;
    size_t len = 0, elen = 0;
    FILE *f = open_memstream(&text, &len), *g = f ? open_memstream(&ext, &elen) : NULL;
    if (!f || !g) {
        if (f)
            fclose(f);
        free(text);
        return -1;
    }
    psk_sim_write_json(s, f, m);
    psk_json j;
    psk_json_init(&j, g, 0);
    psk_json_obj(&j, NULL);
    extrap_json(&j, rep, input, fit);
    psk_json_end(&j);
    int bad = fclose(f) | fclose(g);
    /* sim's object with one more member: {"extrapolation": {...}} inserted before its closing brace */
    char *close = bad || !text ? NULL : strrchr(text, '}');
    char *inner = ext ? strchr(ext, '{') : NULL, *iend = ext ? strrchr(ext, '}') : NULL;
    if (!close || !inner || !iend) {
        free(text), free(ext);
        return -1;
    }
    fwrite(text, 1, (size_t)(close - text), out);
    fprintf(out, ",\n  %.*s\n}\n", (int)(iend - inner - 1), inner + 1);
    free(text), free(ext);
    return 0;
}
