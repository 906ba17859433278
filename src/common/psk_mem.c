/* psk_big_alloc (psk_mem.h): 2 MB-aligned blocks with MADV_HUGEPAGE for
 * requests of 2 MB and more (the kernel's "madvise" transparent huge page
 * mode, Debian's default, then backs them with huge pages). */
#include <stdlib.h>
#include <sys/mman.h>

#include "psk_mem.h"

#define HUGE (2u << 20)

void *psk_big_alloc(size_t bytes)
{
    if (bytes < HUGE)
        return malloc(bytes ? bytes : 1);
    void *p;
    size_t len = (bytes + HUGE - 1) & ~(size_t)(HUGE - 1);
    if (posix_memalign(&p, HUGE, len))
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE);
#endif
    return p;
}
