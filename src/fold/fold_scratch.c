/* Big work arrays kept from one folding round to the next (fold_internal.h,
 * fscratch): the first round's suffix array and its inverse become the
 * choice's prefix sums and buckets, then the next rounds' arrays, in pages
 * already touched; freed when the folding ends (what comes after it, the
 * loop tree, has the memory). On this kind of machine a fresh page costs
 * its zeroing by the kernel, about a tenth of a round over millions of
 * symbols. */
#include <stdlib.h>

#include "fold_internal.h"
#include "psk_mem.h"

int32_t *fscratch_get(fscratch *w, int slot, int64_t n)
{
    if (n < 1)
        n = 1;
    if (n > w->cap[slot]) {
        /* a little more: the choice after the runs of n symbols asks for
         * n + 1 */
        int64_t cap = n + 1024;
        int32_t *v = psk_big_alloc((size_t)cap * sizeof *v);
        if (!v)
            return NULL;
        free(w->v[slot]);
        w->v[slot] = v;
        w->cap[slot] = cap;
    }
    return w->v[slot];
}

void fscratch_free(fscratch *w)
{
    for (int i = 0; i < FSCRATCH_SLOTS; i++)
        free(w->v[i]);
    *w = (fscratch){0};
}
