/* The next definition of a symbol after the calling library's own
 * (dlsym(RTLD_NEXT)), looked up once: how the recorder and the tuning
 * library, preloaded together, pass a call on to each other and then to
 * the MPI library (docs/tune.md, "Recording a tuned job"). Shared as an
 * inline function because each library must look up from itself. */
#ifndef PSK_NEXT_H
#define PSK_NEXT_H

#include <dlfcn.h>
#include <stdatomic.h>

/* the definition of name after the caller's library, else fallback;
 * cached in *slot (threads may race to fill it: with the same value) */
static inline void *psk_next(void *_Atomic *slot, const char *name, void *fallback)
{
    void *p = atomic_load_explicit(slot, memory_order_acquire);
    if (p)
        return p;
    p = dlsym(RTLD_NEXT, name);
    if (!p)
        p = fallback;
    atomic_store_explicit(slot, p, memory_order_release);
    return p;
}

#endif
