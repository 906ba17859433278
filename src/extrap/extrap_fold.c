/* What `perfskel sim --ranks P2` replays: a merged trace (and the --fit
 * recordings) extrapolated to P2 ranks by the merge stage's rules
 * (psk_merged_extrapolate, src/merge/merge_extrap*.c) and then folded as
 * gen and sim --folded fold, so that the folded replay runs it. The
 * extrapolation itself stays in the merge stage; this sits on top of merge
 * and fold, and reports failures as codes with the message in a buffer. */
#include <stdio.h>

#include "perfskel/extrap.h"
#include "perfskel/fold.h"

int psk_extrap_fold(psk_merged *m, const psk_extrap_opts *o, psk_merged **out, psk_folded **fold,
                    psk_extrap_report *rep, char *err, size_t errcap)
{
    psk_merged *m2 = NULL;
    psk_folded *f = NULL;
    *out = NULL;
    *fold = NULL;
    int rc = psk_merged_extrapolate(m, o, &m2, rep);
    if (rc) { /* about the input rep->err_input */
        snprintf(err, errcap, "%s", psk_merged_errmsg(m2));
        psk_merged_close(m2);
        return rc;
    }
    if ((rc = psk_fold_merged(m2, PSK_FOLD_RUNS, &f))) {
        snprintf(err, errcap, "extrapolated to %d ranks: %s", o->ranks, psk_folded_errmsg(f));
        rep->err_input = 0; /* the message is about the trace extrapolated */
        psk_folded_free(f);
        psk_merged_close(m2);
        return rc;
    }
    *out = m2;
    *fold = f;
    return PSK_OK;
}
