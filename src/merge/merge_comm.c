/* Communicators seen from one rank while walking its events in order: for
 * each communicator id, this rank's rank in it and its size, from the
 * member list recorded when it was made. Peers and roots are relative to
 * these, so patterns like "rank + 1" hold inside split communicators too.
 * Intercommunicators and communicators made by unrecorded calls are unknown
 * (size 0): their values are kept as tables. */
#include <stdlib.h>
#include <string.h>

#include "merge_internal.h"

enum { K_NONE, K_NEWCOMM, K_INTER, K_FREE };

static int fn_kind(unsigned fn)
{
    if (psk_fn_class(fn) != PSK_CLASS_COMM)
        return K_NONE;
    switch (psk_fn_op(fn)) {
    case PSK_FNOP_COMM_FREE: return K_FREE;
    case PSK_FNOP_INTERCOMM: return K_INTER;
    case PSK_FNOP_LOCAL: return K_NONE; /* groups */
    default: return K_NEWCOMM;
    }
}

static int ensure(commtab *t, int64_t id)
{
    if (id < 0 || id > (1 << 24))
        return -1;
    if (id < t->n)
        return 0;
    if (id >= t->cap) {
        int cap = t->cap ? t->cap : 16;
        while (cap <= id)
            cap *= 2;
        int32_t *r = realloc(t->crank, (size_t)cap * sizeof *r);
        if (!r)
            return -1;
        t->crank = r;
        int32_t *s = realloc(t->csize, (size_t)cap * sizeof *s);
        if (!s)
            return -1;
        t->csize = s;
        t->cap = cap;
    }
    for (int i = t->n; i <= id; i++)
        t->crank[i] = t->csize[i] = 0;
    t->n = (int)id + 1;
    return 0;
}

int commtab_init(commtab *t, int rank, int nranks)
{
    memset(t, 0, sizeof *t);
    if (ensure(t, 1))
        return -1;
    t->crank[0] = rank; /* MPI_COMM_WORLD */
    t->csize[0] = nranks;
    t->crank[1] = 0;    /* MPI_COMM_SELF */
    t->csize[1] = 1;
    t->crank0 = rank, t->csize0 = nranks;
    return 0;
}

void commtab_free(commtab *t)
{
    free(t->crank);
    free(t->csize);
    memset(t, 0, sizeof *t);
}

static int comm_event(commtab *t, const psk_event *ev, int rank)
{
    switch (fn_kind(ev->fn)) {
    case K_FREE:
        if (ev->v[PSK_F_COMM] > 1 && ev->v[PSK_F_COMM] < t->n)
            t->csize[ev->v[PSK_F_COMM]] = 0;
        return 0;
    case K_NEWCOMM:
    case K_INTER: {
        int64_t id = ev->v[PSK_F_NEWID];
        if (id < 0)
            return 0; /* MPI_COMM_NULL, or a handle the recorder could not name */
        if (ensure(t, id))
            return -1;
        t->csize[id] = 0;
        if (fn_kind(ev->fn) == K_INTER)
            return 0;
        const int64_t *mem = PSK_ARR(ev, PSK_F_MEMBERS);
        uint32_t n = PSK_ARRN(ev, PSK_F_MEMBERS);
        for (uint32_t i = 0; i < n; i++)
            if (mem[i] == rank) {
                t->crank[id] = (int32_t)i;
                t->csize[id] = (int32_t)n;
            }
        return 0;
    }
    }
    return 0;
}

int commtab_event(commtab *t, const psk_event *ev, int rank)
{
    if (psk_fn_class(ev->fn) != PSK_CLASS_COMM)
        return 0;
    int rc = comm_event(t, ev, rank);
    if (t->n > 0) /* (a trace may name world as a new communicator) */
        t->crank0 = t->crank[0], t->csize0 = t->csize[0];
    return rc;
}

void commtab_ctx(const commtab *t, const psk_event *ev, int32_t *crank, int32_t *csize)
{
    int64_t id = PSK_HAS(ev, PSK_F_COMM) ? ev->v[PSK_F_COMM] : 0;
    if (id == 0 && t->n > 0 && t->csize0 > 0) {
        *crank = t->crank0;
        *csize = t->csize0;
    } else if (id >= 0 && id < t->n && t->csize[id] > 0) {
        *crank = t->crank[id];
        *csize = t->csize[id];
    } else {
        *crank = 0;
        *csize = 0;
    }
}
