/* Allocation helpers. Big arrays in huge pages. On a virtual machine a page fault costs
 * microseconds, and the fold and merge stages fill arrays of hundreds of
 * MB, freed and made again at each level: 2 MB pages make 512 times fewer
 * faults; sim replays of many ranks read per-rank arrays of GBs in no
 * order, where 2 MB pages spare a page walk at most reads. Small requests
 * are plain malloc. Free with free(). */
#ifndef PSK_MEM_H
#define PSK_MEM_H

#include <stddef.h>

void *psk_big_alloc(size_t bytes);
/* psk_big_alloc of n zero-filled elements of size bytes (NULL on overflow) */
void *psk_big_calloc(size_t n, size_t size);

#include <stdint.h>

/* Grows the zero-filled array *a of *n elements of size bytes so that
 * index i fits (capacity doubles); 0, or -1 if memory ran out (*a is
 * then unchanged). */
int psk_grow(void **a, int64_t *n, int64_t i, size_t size);

#endif
