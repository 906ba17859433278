/* The run time a skeleton should take, which predict says and scales its
 * watchdog by: each rank's recorded run time, counted as perfskel stats
 * counts it (psk_trace_apptime) from one more walk of the loop tree beside
 * the merged trace, less what the skeleton leaves out of that rank (gen's
 * plan: psk_gen_saved_seconds); the slowest rank's. */
#include <stdlib.h>

#include "perfskel/gen.h"

typedef struct timewalk {
    psk_mcursor *cur;
    psk_trace_apptime *at; /* per rank */
    int rc;
} timewalk;

static int visit(void *arg, int64_t pos, int32_t node, const int64_t *iter, int depth)
{
    timewalk *w = arg;
    psk_mevent me;
    (void)pos, (void)iter, (void)depth, (void)node;
    int rc = psk_mcursor_next(w->cur, &me);
    if (rc) /* the merged trace ends before its folding does */
        return w->rc = rc == PSK_EOF ? PSK_EMISMATCH : rc;
    for (int j = 0; j < me.nranks; j++)
        psk_trace_apptime_add(&w->at[me.ranks[j]], &me.ev[j]);
    return 0;
}

int psk_gen_rank_seconds(psk_merged *m, const psk_folded *f, double *seconds)
{
    int P = psk_merged_nranks(m);
    timewalk w = {0};
    w.at = calloc((size_t)(P > 0 ? P : 1), sizeof *w.at);
    if (!w.at)
        return PSK_ENOMEM;
    for (int r = 0; r < P; r++)
        psk_trace_apptime_start(&w.at[r], psk_merged_rank_start(m, r));
    int rc = psk_mcursor_open(m, &w.cur);
    if (!rc) {
        psk_folded_walk(f, visit, &w);
        psk_mcursor_close(w.cur);
        rc = w.rc;
    }
    for (int r = 0; !rc && r < P; r++)
        seconds[r] = 1e-9 * (double)psk_trace_apptime_ns(&w.at[r]);
    free(w.at);
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
