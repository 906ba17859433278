/* The dispatcher's memo of calls (tune_core.c): per thread, the calls it
 * made lately, by call site and arguments, with what the dispatch derived
 * from them (the sizes the arms go by, the communicator's state, the call
 * site, its key and the learner's group), so that a call made again in a
 * loop finds all of it without an attribute lookup, datatype queries or a
 * hash of its site (docs/tune.md, "What a call costs"). An entry holds
 * only what cannot change while its handles live: its datatypes are named
 * ones (never freed, so never another type under the same handle), an
 * allreduce's operation is a predefined one (the only ones the arms
 * take), and whatever frees or moves a state the entry points into (a
 * communicator freed, its keys grown, the learner turned off on it) voids
 * every entry at once by bumping an epoch. */
#include <stdatomic.h>
#include <stdlib.h>

#include "tune_internal.h"

#define NMEMO 16 /* entries per thread, direct-mapped */

static _Atomic unsigned epoch = 1; /* 0: an entry never filled */
static __thread psk_tune_memo *tab __attribute__((tls_model("initial-exec")));

void psk_tune_memo_void(void) { atomic_fetch_add_explicit(&epoch, 1, memory_order_relaxed); }

/* where a buffer argument matters to what is derived from it */
static unsigned buf_kind(const void *b) { return b == MPI_IN_PLACE ? 1 : b == MPI_BOTTOM ? 2 : 0; }

static size_t index_of(const psk_tune_args *a, void *ra)
{
    uint64_t h = (uint64_t)(uintptr_t)ra ^ (uint64_t)(uintptr_t)a->comm * 31 ^ (uint64_t)(unsigned)a->rcount << 20 ^
                 (uint64_t)a->coll << 40;
    return (size_t)((h * 0x9e3779b97f4a7c15u) >> 60) & (NMEMO - 1);
}

static int same_call(const psk_tune_memo *m, const psk_tune_args *a, void *ra)
{
    return m->ra == ra && m->comm == a->comm && m->coll == a->coll && m->rcount == a->rcount &&
           m->rtype == a->rtype && m->scount == a->scount && m->stype == a->stype && m->op == a->op &&
           m->root == a->root && m->sbuf_kind == buf_kind(a->sbuf) && m->rbuf_kind == buf_kind(a->rbuf);
}

const psk_tune_memo *psk_tune_memo_find(psk_tune_args *a, void *ra)
{
    if (!tab)
        return NULL;
    const psk_tune_memo *m = &tab[index_of(a, ra)];
    if (m->epoch != atomic_load_explicit(&epoch, memory_order_relaxed) || !same_call(m, a, ra))
        return NULL;
    a->bytes = m->bytes;
    a->inplace = m->inplace;
    a->contig = m->contig;
    a->sext = m->sext;
    a->rext = m->rext;
    return m;
}

void psk_tune_memo_put(const psk_tune_args *a, void *ra, psk_tune_comm *c, const psk_tune_site *site,
                       psk_tune_key *key, psk_tune_group *g, psk_tune_pend *pend)
{
    /* the send type matters where a send buffer is given */
    int stype_used = (a->coll == PSK_TUNE_C_alltoall || a->coll == PSK_TUNE_C_allgather) && !a->inplace;
    if (!c || !psk_tune_named(a->rtype) || (stype_used && !psk_tune_named(a->stype)))
        return;
    if (!tab && !(tab = calloc(NMEMO, sizeof *tab)))
        return;
    psk_tune_memo *m = &tab[index_of(a, ra)];
    *m = (psk_tune_memo){.epoch = atomic_load_explicit(&epoch, memory_order_relaxed),
                         .ra = ra,
                         .comm = a->comm,
                         .coll = a->coll,
                         .scount = a->scount,
                         .rcount = a->rcount,
                         .root = a->root,
                         .stype = a->stype,
                         .rtype = a->rtype,
                         .op = a->op,
                         .sbuf_kind = buf_kind(a->sbuf),
                         .rbuf_kind = buf_kind(a->rbuf),
                         .bytes = a->bytes,
                         .inplace = a->inplace,
                         .contig = a->contig,
                         .sext = a->sext,
                         .rext = a->rext,
                         .c = c,
                         .site = site,
                         .key = key,
                         .g = g,
                         .pend = pend};
}
