/* adv_gen: random valid `perfskel advise` programs (.adv, docs/advise.md)
 * from a seed, and random mutations of a program's text, for the property
 * tests of the advisor (adv_props.c) and its malformed-input pass
 * (adv_malformed.sh). Every program adv_gen_program writes must parse: one
 * that does not is a generator bug, or a parser bug. */
#ifndef ADV_GEN_H
#define ADV_GEN_H

#include <stddef.h>
#include <stdint.h>

typedef struct adv_gen_opts {
    int aligned;   /* every read uses its nest's left side's subscripts on an
                    * array of the same rank, and no reductions: a program
                    * that needs no communication under any alignment-true
                    * layout */
} adv_gen_opts;

/* a malloc'ed NUL-terminated program, *len its length; NULL if out of memory */
char *adv_gen_program(uint64_t seed, const adv_gen_opts *o, size_t *len);
/* text mutated (truncated, bytes flipped, tokens deleted, duplicated or
 * swapped): malloc'ed, *outlen its length (it may hold NUL bytes) */
char *adv_gen_mutate(const char *text, size_t len, uint64_t seed, size_t *outlen);

#endif
