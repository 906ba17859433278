/* Suffix machinery for the fold stage over integer alphabets (Debian has
 * no integer-alphabet suffix array library; libdivsufsort is bytes only):
 * SA-IS suffix sorting, LCP by the Phi method, and longest common extension
 * queries through O(1) range minima over the LCP array. */
#ifndef PSK_FOLD_SUFFIX_H
#define PSK_FOLD_SUFFIX_H

#include <stdint.h>

/* Suffix array of T[0..n) (symbols in [0, k)), the end of the text being
 * smaller than every symbol: a suffix that is a prefix of another sorts
 * first. Linear time (Nong, Zhang and Chan's SA-IS). 0, or -1 if memory
 * runs out. T is not changed. */
int sfx_sais(const int32_t *T, int32_t *SA, int32_t n, int32_t k);

/* LCP[0] = 0, LCP[i] = longest common prefix of suffixes SA[i-1] and SA[i]
 * (Karkkainen, Manzini and Puglisi's Phi method). */
int sfx_lcp(const int32_t *T, const int32_t *SA, int32_t n, int32_t *LCP);

/* Longest common extensions: lce(i, j) is the length of the longest common
 * prefix of suffixes i and j. Holds T (not copied), SA, its inverse, LCP,
 * and a two-level range-minimum structure over LCP (minima of blocks of 32
 * in a sparse table, in-block prefix and suffix minima): O(1) per query. */
typedef struct sfx_lce sfx_lce;
int sfx_lce_build(const int32_t *T, int32_t n, int32_t k, sfx_lce **out);
int32_t sfx_lce_query(const sfx_lce *L, int32_t i, int32_t j);
const int32_t *sfx_lce_sa(const sfx_lce *L);
const int32_t *sfx_lce_isa(const sfx_lce *L);
void sfx_lce_free(sfx_lce *L); /* NULL is fine */

#endif
