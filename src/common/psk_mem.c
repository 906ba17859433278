/* psk_grow (psk_mem.h): arrays indexed by small ids, grown as needed.
 * psk_big_alloc, psk_big_calloc: 2 MB-aligned blocks with MADV_HUGEPAGE
 * for requests of 2 MB and more (the kernel's "madvise" transparent huge page
 * mode, Debian's default, then backs them with huge pages). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "psk_mem.h"

#define HUGE (2u << 20)

void *psk_big_alloc(size_t bytes)
{
    if (bytes < HUGE)
        return malloc(bytes ? bytes : 1);
    if (bytes > SIZE_MAX - HUGE)
        return NULL; /* rounding up would wrap */
    void *p;
    size_t len = (bytes + HUGE - 1) & ~(size_t)(HUGE - 1);
    if (posix_memalign(&p, HUGE, len))
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE);
#endif
    return p;
}

void *psk_big_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    if (n * size < HUGE)
        return calloc(n ? n : 1, size ? size : 1);
    void *p = psk_big_alloc(n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

int psk_grow(void **a, int64_t *n, int64_t i, size_t size)
{
    if (i < *n)
        return 0;
    int64_t cap = 2 * i + 16;
    char *b = realloc(*a, (size_t)cap * size);
    if (!b)
        return -1;
    memset(b + (size_t)*n * size, 0, (size_t)(cap - *n) * size);
    *a = b, *n = cap;
    return 0;
}
