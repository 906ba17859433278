/* The repeat finder of §3.2 (on Algorithm 3's tables) of Zhang et al.,
 * "Parallel Job Performance Prediction Based on the Case Reconstruction"
 * (Journal of Software, 2010; docs/folding.md, `paper`): for every period p
 * from 1 to n/2, probe positions 0, p, 2p, ...; where s[j] = s[j + p],
 * extend forward and backward with longest-common-extension queries; a
 * repeat of period p covers at least 2p symbols. A repeat found again at a
 * multiple of its period is dropped (the paper's flag). O(n log n) probes.
 * LCE queries use the suffix array, LCP and RMQ of the text and of its
 * reverse (fold_suffix.h). */
#include <stdlib.h>
#include <string.h>

#include "fold_internal.h"

#include "fold_suffix.h"

int fold_runs_probe(const int32_t *s, int32_t n, int32_t k, frun **out, int64_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (n < 2)
        return 0;
    int32_t *rev = malloc((size_t)n * sizeof *rev);
    sfx_lce *fw = NULL, *bw = NULL;
    psk_intern *seen = psk_intern_new();
    int64_t cap = 16, m = 0;
    frun *r = malloc((size_t)cap * sizeof *r);
    if (!rev || !seen || !r)
        goto fail;
    for (int32_t i = 0; i < n; i++)
        rev[i] = s[n - 1 - i];
    if (sfx_lce_build(s, n, k, &fw) || sfx_lce_build(rev, n, k, &bw))
        goto fail;
    for (int32_t p = 1; 2 * p <= n; p++) {
        int32_t covered = -1; /* end of the last repeat of this period */
        for (int32_t j = 0; j + p < n; j += p) {
            if (j + p < covered || s[j] != s[j + p])
                continue;
            int32_t f = sfx_lce_query(fw, j, j + p);
            /* backward from j - 1 and j + p - 1: in the reverse text these
             * are positions n - j and n - j - p */
            int32_t b = j > 0 ? sfx_lce_query(bw, n - j, n - j - p) : 0;
            int32_t a = j - b, e = j + p + f;
            if (e - a < 2 * p)
                continue;
            covered = e;
            int32_t key[2] = {a, e - a};
            int added;
            if (psk_intern_id(seen, key, sizeof key, &added) < 0)
                goto fail;
            if (!added)
                continue; /* found before with a shorter period */
            if (m == cap) {
                frun *t = realloc(r, (size_t)(cap *= 2) * sizeof *r);
                if (!t)
                    goto fail;
                r = t;
            }
            r[m++] = (frun){a, p, e - a};
        }
    }
    sfx_lce_free(fw);
    sfx_lce_free(bw);
    psk_intern_free(seen);
    free(rev);
    *out = r;
    *nout = m;
    return 0;
fail:
    sfx_lce_free(fw);
    sfx_lce_free(bw);
    psk_intern_free(seen);
    free(rev);
    free(r);
    return -1;
}
