/* SA-IS suffix sorting (Nong, Zhang and Chan 2009) over an integer
 * alphabet (Debian has no integer-alphabet suffix array library;
 * libdivsufsort is bytes only): classify suffixes S or L, sort the LMS
 * substrings by induced sorting, name them, recurse if names repeat, then
 * induce the whole order from the sorted LMS suffixes. The end of the text
 * is a virtual sentinel smaller than every symbol.
 *
 * Induced sorting reads the symbol before each suffix it places: reads
 * all over the text. A long text of few symbols is sorted from a copy of
 * one or two bytes a symbol (four times smaller: in the last-level cache
 * where the four-byte one is not); the body (fold_sais_body.h) is compiled
 * once per symbol type. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fold_suffix.h"
#include "psk_mem.h"

/* Induced sorting keeps no type array: an entry of SA carries in its sign
 * whether the suffix before it is still to be induced. In the L pass, x > 0
 * is suffix x whose predecessor x - 1 is L type (induced when x is read),
 * ~x suffix x whose predecessor is S type or absent; the S pass reads that
 * ~x as "induce x - 1". 0 is an empty slot (suffix 0 always goes in as
 * ~0). A suffix's type follows from its successor's: before an L suffix j,
 * j - 1 is L iff T[j - 1] >= T[j]; before an S suffix, S iff T[j - 1] <=
 * T[j]. With `plain` the S pass leaves each entry as its position once
 * read; without, it sorts the LMS substrings (stage 1): every entry is
 * cleared once read, except those the S pass wrote positive, the S
 * suffixes after an L one: the LMS suffixes, in order. The scans' reads of
 * T (and the naming's of the LMS substrings) miss the cache: prefetched
 * some entries ahead. */
#define AHEAD 32

/* bucket starts (end = 0) or ends (end = 1) of each symbol */
static void buckets(const int32_t *cnt, int32_t *b, int32_t k, int end)
{
    int32_t sum = 0;
    for (int32_t c = 0; c < k; c++) {
        sum += cnt[c];
        b[c] = end ? sum : sum - cnt[c];
    }
}

static int sais_i32(const int32_t *T, int32_t *SA, int32_t n, int32_t k);
static int sais_any(const int32_t *T, int32_t *SA, int32_t n, int32_t k);

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define FN(name) CAT(name, CAT(_, SYM_NAME))

#define SYM int32_t
#define SYM_NAME i32
#include "fold_sais_body.h"
#undef SYM
#undef SYM_NAME

#define SYM uint16_t
#define SYM_NAME u16
#include "fold_sais_body.h"
#undef SYM
#undef SYM_NAME

#define SYM uint8_t
#define SYM_NAME u8
#include "fold_sais_body.h"
#undef SYM
#undef SYM_NAME

enum { NARROW_MIN = 1 << 18 }; /* shorter texts: the copy gains nothing */

/* from a narrow copy of T if it pays, else from T (also if the copy cannot
 * be had) */
static int sais_any(const int32_t *T, int32_t *SA, int32_t n, int32_t k)
{
    if (n >= NARROW_MIN && k <= 256) {
        uint8_t *t = psk_big_alloc((size_t)n);
        if (t) { /* else: from T itself */
            for (int32_t i = 0; i < n; i++)
                t[i] = (uint8_t)T[i];
            int rc = sais_u8(t, SA, n, k);
            free(t);
            return rc;
        }
    } else if (n >= NARROW_MIN && k <= 65536) {
        uint16_t *t = psk_big_alloc((size_t)n * sizeof *t);
        if (t) {
            for (int32_t i = 0; i < n; i++)
                t[i] = (uint16_t)T[i];
            int rc = sais_u16(t, SA, n, k);
            free(t);
            return rc;
        }
    }
    return sais_i32(T, SA, n, k);
}

int sfx_sais(const int32_t *T, int32_t *SA, int32_t n, int32_t k)
{
    return sais_any(T, SA, n, k);
}
