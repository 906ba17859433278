/* The run time a skeleton should take, which predict says and scales its
 * watchdog by: each rank's recorded run time, counted as perfskel stats
 * counts it (psk_trace_apptime) from one more walk of the loop tree beside
 * the merged trace, less what the skeleton leaves out of that rank (gen's
 * plan: psk_gen_saved_seconds); the slowest rank's. */
#include <stdlib.h>

#include "perfskel/gen.h"

static int visit(void *arg, const psk_fstep *s)
{
    psk_trace_apptime *at = arg; /* per rank */
    for (int j = 0; j < s->ev->nranks; j++)
        psk_trace_apptime_add(&at[s->ev->ranks[j]], &s->ev->ev[j]);
    return 0;
}

int psk_gen_rank_seconds(psk_merged *m, const psk_folded *f, double *seconds)
{
    int P = psk_merged_nranks(m);
    psk_trace_apptime *at = calloc((size_t)(P > 0 ? P : 1), sizeof *at);
    if (!at)
        return PSK_ENOMEM;
    for (int r = 0; r < P; r++)
        psk_trace_apptime_start(&at[r], psk_merged_rank_start(m, r));
    int rc = psk_folded_walk_merged(f, m, visit, at);
    for (int r = 0; !rc && r < P; r++)
        seconds[r] = 1e-9 * (double)psk_trace_apptime_ns(&at[r]);
    free(at);
    return rc;
}

void psk_gen_expected(const psk_gen *g, const double *rank_seconds, int nranks, double *recorded, double *expected)
{
    *recorded = *expected = 0;
    for (int r = 0; r < nranks; r++) {
        double all = rank_seconds[r], e = all - psk_gen_saved_seconds(g, r);
        if (all > *recorded)
            *recorded = all;
        if (e > *expected)
            *expected = e;
    }
}
