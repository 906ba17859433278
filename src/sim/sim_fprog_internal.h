/* Internals of the folded program of perfskel sim --folded (sim_fprog.h),
 * shared by its files: the program, its parameter sets and its building
 * (sim_fprog.c), the loops that can be skipped (sim_fpcand.c) and the
 * cursors that walk it (sim_fcursor.c). Invariants: a parameter set is
 * kept once (its id indexes set[], NONE: none); a tree event's slots are
 * its ranks in ascending order, rank q's found through the rank set and
 * its prefix counts. */
#ifndef PSK_SIM_FPROG_INTERNAL_H
#define PSK_SIM_FPROG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sim_fprog.h"

#define NONE UINT32_MAX

typedef struct slot {
    uint32_t first;  /* parameter set of every execution, unless idx */
    uint32_t *idx;   /* per execution, or NULL */
} slot;

typedef struct symd {
    const int32_t *ranks; /* of its class, ascending */
    int nranks;
    int nidx;             /* slots with a table */
    slot *slots;          /* per taking part rank */
    uint64_t execs;
    uint32_t *pre;        /* per 64-rank word of the node's rank set: its ranks before it */
    /* the pattern, when most ranks pass in each execution one parameter
     * set but for scalars that are the rank plus a constant (a neighbour):
     * that set, with those scalars less the rank (the bits of rel), so
     * that a cursor needs nothing per rank; else NONE. unix: the set per
     * execution when it changes (uni is then its first), else NULL. exc:
     * a bit per slot whose rank does not follow the pattern (a boundary
     * rank passing MPI_PROC_NULL: its slot is read), or NULL if all do */
    uint32_t uni;
    uint32_t rel;
    uint32_t *unix;
    uint64_t *exc;
} symd;

typedef struct pset {
    uint32_t fn, fields;
    uint64_t off;         /* in vals: scalars in field order, then per array n and its values */
} pset;

/* a candidate loop (the first of its group): its iterations repeat every
 * period; the sorted values its tags that follow the index take */
typedef struct cinfo {
    int64_t period;
    int64_t *lin;
    size_t nlin;
} cinfo;

typedef struct pending {
    int64_t req;
    int32_t node;
    int j;
    uint64_t exec;
    psk_event ev;
} pending;

struct psk_fprog {
    const psk_folded *f;
    int P, W;             /* ranks, 64-bit words of a rank set */
    int32_t nnodes;
    symd *sd;             /* per node (SYM nodes only) */
    uint64_t *rset;       /* per node: the ranks taking part in it, W words */
    uint8_t *cand;        /* per node: a loop that can be skipped */
    int32_t *grp;         /* per node: a candidate's group's first loop, else -1 */
    int32_t *cof;         /* per SYM node: the candidate (group's first loop) it is in, or -1 */
    uint64_t *inner;      /* per SYM node in a candidate: its executions per iteration */
    uint64_t *nexec;      /* per node: executions */
    cinfo *ci;            /* per node: for the first loop of each candidate */
    int64_t maxperiod;
    int ncand;
    int no_poll_loops;    /* loops with runs of polls are not candidates */
    void (*progress)(void *arg, uint64_t done, uint64_t total);
    void *progress_arg;
    uint64_t length;      /* merged events, for progress */
    uint32_t *keyid;      /* per parameter set: the set without its tags */
    int64_t *itags;       /* tags of persistent requests' inits (MPI_Send_init, ...) */
    size_t nitags;
    int64_t capitags;
    uint64_t poll_calls;  /* calls in runs of polls beyond one per run */
    int64_t *vals;
    uint64_t nvals;
    int64_t capvals;
    pset *set;
    uint32_t nset;
    int64_t capset;
    uint32_t *hash;       /* open addressing, ids + 1, 0 empty */
    uint32_t hcap;
    /* building */
    struct bstate *bs;
    pending **pend;       /* per rank */
    int *npend;
    int64_t *cappend;
    int64_t *scratch, capscratch;
    int rc;
    char *err;
    size_t errcap;
};

/* 1 if rank q takes part in tree event node (its rank set) */
static inline int psk_fprogi_has_rank(const psk_fprog *p, int32_t node, int q)
{
    return (p->rset[(size_t)node * (size_t)p->W + (size_t)(q >> 6)] >> (q & 63)) & 1u;
}

/* rank q's slot in tree event node (its rank among the node's ranks), or
 * -1: from the node's rank set and the prefix counts, O(1) */
static inline int psk_fprogi_slot_of(const psk_fprog *p, int32_t node, int q)
{
    const symd *d = &p->sd[node];
    if (d->nranks == p->P)
        return q;
    if (q < 0 || q >= p->P || !d->pre || !psk_fprogi_has_rank(p, node, q))
        return -1;
    uint64_t w = p->rset[(size_t)node * (size_t)p->W + (size_t)(q >> 6)] & ((1ull << (q & 63)) - 1u);
    return (int)d->pre[q >> 6] + __builtin_popcountll(w);
}

/* the parameter set id as an event (arrays point into the pool) */
static inline void psk_fprogi_materialize(const psk_fprog *p, uint32_t id, psk_event *ev)
{
    const pset *s = &p->set[id];
    const int64_t *v = p->vals + s->off;
    ev->fn = s->fn;
    ev->fields = s->fields;
    for (uint32_t f = s->fields & ((1u << PSK_F_FIRST_ARRAY) - 1u); f; f &= f - 1)
        ev->v[__builtin_ctz(f)] = *v++;
    for (uint32_t f = s->fields >> PSK_F_FIRST_ARRAY; f; f &= f - 1) {
        int k = __builtin_ctz(f);
        ev->n[k] = (uint32_t)*v++;
        ev->arr[k] = v;
        v += (size_t)ev->n[k] * (PSK_F_FIRST_ARRAY + k == PSK_F_STATUSES ? 3 : 1);
    }
}

/* sim_fprog.c: the building fails with rc and msg (the first failure's is
 * kept in p->err): returns rc */
int psk_fprogi_fail(psk_fprog *p, int rc, const char *msg);
/* the id of ev's parameter set, added if new; NONE if memory ran out */
uint32_t psk_fprogi_intern(psk_fprog *p, const psk_event *ev);

/* sim_fpcand.c: each parameter set's key (the set without its tags) and
 * the tags persistent inits give: 0 or PSK_ENOMEM (in p->err) */
int psk_fprogi_key_sets(psk_fprog *p);
/* the outermost candidates under node (after the rank sets and keys):
 * 0 or PSK_ENOMEM (in p->err) */
int psk_fprogi_find_cands(psk_fprog *p, int32_t node);

#endif
