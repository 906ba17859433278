/* Communicators in perfskel sim's replay, and the collectives their
 * members meet in: per rank its communicators by id, their members as
 * world ranks (MPI_COMM_WORLD's one table shared by every rank,
 * MPI_COMM_SELF's made when first used) and, for MPI_Cart_create's and
 * MPI_Cart_sub's, their grid (psk_cart.h); a collective instance collects
 * its members' arrivals and, at the last, costs what its algorithm says
 * (sim_coll.c; a neighborhood collective: the exchange with each member's
 * grid neighbours). Invariant: a communicator the replay keeps holds the
 * rank that made it, and ranks of the job only. */
#include <stdlib.h>
#include <string.h>

#include "psk_fn_ids.h"
#include "psk_mem.h"
#include "sim_state.h"

/* the slot of communicator c of a rank (grown as needed), or NULL */
static cmem *comm_slot(rank *r, int64_t c)
{
    if (c < 0 || c > (1 << 20) || psk_grow((void **)&r->comm, &r->ncomm, c, sizeof *r->comm))
        return NULL;
    return &r->comm[c];
}

/* a member table, unless it is MPI_COMM_WORLD's shared one */
void psk_simi_members_free(const psk_sim *s, int *world)
{
    if (world != s->world0)
        free(world);
}

/* communicator c of rank me, NULL if it was never created */
cmem *psk_simi_comm_get(psk_sim *s, rank *r, int me, int64_t c)
{
    if (c >= 0 && c < r->ncomm && r->comm[c].world)
        return &r->comm[c];
    cmem *m = comm_slot(r, c);
    if (m && !m->world && c == 0) { /* MPI_COMM_WORLD: one table for all ranks */
        if (!s->world0) {
            if (!(s->world0 = malloc((size_t)s->P * sizeof *s->world0)))
                return NULL;
            for (int i = 0; i < s->P; i++)
                s->world0[i] = i;
        }
        m->n = s->P, m->world = s->world0, m->me = me;
    } else if (m && !m->world && c == 1) { /* MPI_COMM_SELF */
        if (!(m->world = malloc(sizeof *m->world)))
            return NULL;
        m->n = 1, m->world[0] = me, m->me = 0;
    }
    return m && m->world ? m : NULL;
}

/* the world rank of peer p of communicator c, -1 any source, -2 none */
int psk_simi_world_of(psk_sim *s, int me, int64_t c, int64_t p)
{
    if (p == PSK_PROC_NULL)
        return -2;
    if (p == PSK_ANY_SOURCE)
        return -1;
    if (c == 0) /* MPI_COMM_WORLD (never redefined: new_comm takes ids from 2): its ranks are the world's,
                 * found without touching the rank's table (a cache miss an event at many ranks) */
        return p >= 0 && p < s->P ? (int)p : -3;
    cmem *m = psk_simi_comm_get(s, &s->r[me], me, c);
    if (!m || m->inter || p < 0 || p >= m->n)
        return -3; /* an intercommunicator's peers are in its remote group, which is not recorded */
    return m->world[p];
}

/* grid g in s->grids (each grid once: the members of a communicator share
 * it): its index + 1, or -1 out of memory */
static int grid_add(psk_sim *s, const psk_cart *g)
{
    for (int i = s->ngrids - 1; i >= 0; i--)
        if (!memcmp(&s->grids[i], g, sizeof *g))
            return i + 1;
    if (s->ngrids == s->capgrids) {
        int cap = s->capgrids ? 2 * s->capgrids : 4;
        psk_cart *x = realloc(s->grids, (size_t)cap * sizeof *x);
        if (!x)
            return -1;
        s->grids = x, s->capgrids = cap;
    }
    s->grids[s->ngrids] = *g;
    return ++s->ngrids;
}

int psk_simi_new_comm(psk_sim *s, int q, const psk_event *e)
{
    rank *r = &s->r[q];
    if (!PSK_HAS(e, PSK_F_NEWID) || e->v[PSK_F_NEWID] < 2 || !PSK_HAS(e, PSK_F_MEMBERS))
        return 0;
    cmem *m = comm_slot(r, e->v[PSK_F_NEWID]);
    if (!m)
        return 0; /* an id beyond any real program's: not followed */
    int64_t parent = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : -1;
    psk_cart sub;
    int sub_ok = 0; /* MPI_Cart_sub: its grid, from its parent's before that could be replaced */
    if (e->fn == PSK_FN_Cart_sub) {
        cmem *pm = parent != e->v[PSK_F_NEWID] ? psk_simi_comm_get(s, r, q, parent) : NULL;
        if (pm && pm->grid) {
            int64_t *w = malloc((size_t)(pm->n ? pm->n : 1) * sizeof *w);
            if (!w)
                return PSK_ENOMEM;
            for (int k = 0; k < pm->n; k++)
                w[k] = pm->world[k];
            int rc = psk_cart_sub(&s->grids[pm->grid - 1], w, pm->n, PSK_ARR(e, PSK_F_MEMBERS), PSK_ARRN(e, PSK_F_MEMBERS), s->P,
                                  &sub);
            free(w);
            if (rc < 0)
                return PSK_ENOMEM;
            sub_ok = rc == 0;
        }
        m = comm_slot(r, e->v[PSK_F_NEWID]); /* the table may have moved */
    }
    free(m->world);
    m->grid = 0;
    uint32_t nm = PSK_ARRN(e, PSK_F_MEMBERS);
    m->world = malloc((nm ? nm : 1) * sizeof *m->world);
    if (!m->world)
        return PSK_ENOMEM;
    m->n = (int)nm, m->me = -1, m->seq = 0;
    m->inter = psk_fn_op(e->fn) == PSK_FNOP_INTERCOMM;
    int out = 0;
    for (uint32_t k = 0; k < nm; k++) {
        int64_t w = PSK_ARR(e, PSK_F_MEMBERS)[k];
        out |= w < 0 || w >= s->P;
        m->world[k] = (int)w;
        if (w == q && m->me < 0)
            m->me = (int)k;
    }
    /* the readers refuse such a list (psk_event_members_check); a
     * communicator the replay keeps always holds the rank that made it,
     * and ranks of the job only */
    if (m->me < 0 || out) {
        m->n = 0, m->me = 0;
        free(m->world);
        m->world = NULL;
        return psk_simi_fail(s, PSK_EFORMAT, "rank %d: %s makes communicator %lld of %u members, %s", q,
                             psk_fn_name(e->fn), (long long)e->v[PSK_F_NEWID], nm,
                             out ? "not all ranks of the job" : "none of them this rank");
    }
    psk_cart g;
    if (e->fn == PSK_FN_Cart_create && !psk_cart_make(&g, PSK_ARRN(e, PSK_F_DIMS), PSK_ARR(e, PSK_F_DIMS),
                                                      PSK_ARR(e, PSK_F_PERIODS), nm) &&
        (PSK_ARRN(e, PSK_F_PERIODS) == PSK_ARRN(e, PSK_F_DIMS)))
        sub_ok = 1, sub = g;
    if (sub_ok && (m->grid = grid_add(s, &sub)) < 0) /* without it (an older trace's Cart_create): no grid */
        return m->grid = 0, PSK_ENOMEM;
    return 0;
}

/* ---- collectives ---- */

static int64_t coll_bytes(const psk_event *e, int n)
{
    int64_t ds = PSK_HAS(e, PSK_F_DTSIZE) ? e->v[PSK_F_DTSIZE] : 1;
    if (PSK_HAS(e, PSK_F_COUNTS) && PSK_ARRN(e, PSK_F_COUNTS)) {
        int64_t sum = 0;
        for (uint32_t k = 0; k < PSK_ARRN(e, PSK_F_COUNTS); k++)
            sum += PSK_ARR(e, PSK_F_COUNTS)[k];
        return sum * ds / (n > 0 ? n : 1);
    }
    if (PSK_HAS(e, PSK_F_RCOUNTS) && PSK_ARRN(e, PSK_F_RCOUNTS)) {
        int64_t sum = 0, rds = PSK_HAS(e, PSK_F_RDTSIZE) ? e->v[PSK_F_RDTSIZE] : ds;
        for (uint32_t k = 0; k < PSK_ARRN(e, PSK_F_RCOUNTS); k++)
            sum += PSK_ARR(e, PSK_F_RCOUNTS)[k];
        return sum * rds / (n > 0 ? n : 1);
    }
    int64_t rb = PSK_HAS(e, PSK_F_RCOUNT) ? e->v[PSK_F_RCOUNT] * (PSK_HAS(e, PSK_F_RDTSIZE) ? e->v[PSK_F_RDTSIZE] : 1)
                                          : 0;
    /* a send side of 0 bytes with a receive side that is not: made in
     * place (psk_event_in_place: a gather's root, an allgather, an
     * alltoall) or a scatter's non-root, whose send count means nothing;
     * its data is what it receives */
    if (PSK_HAS(e, PSK_F_COUNT) && (e->v[PSK_F_COUNT] * ds != 0 || !rb))
        return e->v[PSK_F_COUNT] * ds;
    return rb;
}

/* the bytes of its own block member me of n copies locally in a
 * collective (sim_coll.c): an alltoall's block to itself, an allgather's,
 * a gather's or scatter's root's; 0 made in place */
static int64_t own_block(const psk_event *e, int coll, int me, int n)
{
    int64_t ds = PSK_HAS(e, PSK_F_DTSIZE) ? e->v[PSK_F_DTSIZE] : 1;
    int64_t rds = PSK_HAS(e, PSK_F_RDTSIZE) ? e->v[PSK_F_RDTSIZE] : ds;
    int root = PSK_HAS(e, PSK_F_ROOT) && e->v[PSK_F_ROOT] == me;
    if (psk_event_in_place(e))
        return 0;
    switch (coll) {
    case PSK_COLL_ALLTOALL:
        if (PSK_HAS(e, PSK_F_COUNTS) && (int64_t)PSK_ARRN(e, PSK_F_COUNTS) == n) {
            int64_t d = PSK_HAS(e, PSK_F_DTSIZES) && (int64_t)PSK_ARRN(e, PSK_F_DTSIZES) == n
                            ? PSK_ARR(e, PSK_F_DTSIZES)[me] : ds;
            return PSK_ARR(e, PSK_F_COUNTS)[me] * d;
        }
        return PSK_HAS(e, PSK_F_COUNT) ? e->v[PSK_F_COUNT] * ds : 0;
    case PSK_COLL_ALLGATHER:
        return PSK_HAS(e, PSK_F_COUNT) ? e->v[PSK_F_COUNT] * ds : 0;
    case PSK_COLL_GATHER:
        return root && PSK_HAS(e, PSK_F_COUNT) ? e->v[PSK_F_COUNT] * ds : 0;
    case PSK_COLL_SCATTER:
        if (!root)
            return 0;
        if (PSK_HAS(e, PSK_F_COUNTS) && (int64_t)PSK_ARRN(e, PSK_F_COUNTS) == n)
            return PSK_ARR(e, PSK_F_COUNTS)[me] * ds;
        return PSK_HAS(e, PSK_F_RCOUNT) ? e->v[PSK_F_RCOUNT] * rds : 0;
    default:
        return 0;
    }
}

/* where ranks share cores: when world rank q holds its core from t on */
static double core_turn(void *arg, int q, double t) { return psk_simi_core_turn(arg, q, t); }

static void coll_complete(psk_sim *s, coll_inst *c)
{
    psk_coll_call call = {.coll = c->coll, .n = c->n, .world = c->world, .root = c->root, .bytes = c->bytes,
                          .arrive = c->arrive, .own = c->own, .done = c->done,
                          .turn = s->ncores && !s->share_yield ? core_turn : NULL, .turn_arg = s,
                          .cart = c->grid ? &s->grids[c->grid - 1] : NULL};
    psk_coll_run(&s->net, &call);
    double last = 0, maxdone = 0;
    for (int i = 0; i < c->n; i++) {
        last = c->arrive[i] > last ? c->arrive[i] : last;
        maxdone = c->done[i] > maxdone ? c->done[i] : maxdone;
    }
    for (int i = 0; i < c->n; i++) { /* a first collective of its class: its once (sim_callcost.c) */
        const rank *r = &s->r[c->world[i]];
        if (c->reqs[i] < 0 && r->once > 0 && c->done[i] < last + r->once)
            c->done[i] = last + r->once;
        maxdone = c->done[i] > maxdone ? c->done[i] : maxdone;
    }
    for (int i = 0; i < c->n; i++) {
        int q = c->world[i];
        s->r[q].acc[A_VAR] += maxdone - c->done[i];
        if (c->reqs[i] >= 0)
            psk_simi_req_done(s, q, c->reqs[i], c->done[i], c->arrive[i], c->done[i], last);
        else
            psk_simi_resolve(s, q, c->done[i], last);
    }
}

/* rank q arrives at a collective of kind coll on communicator comm */
int psk_simi_coll_arrive(psk_sim *s, int q, int64_t comm, int coll, const psk_event *e, int64_t rreq)
{
    rank *r = &s->r[q];
    cmem *cm = psk_simi_comm_get(s, r, q, comm);
    int ncoll = psk_fn_op(e->fn) == PSK_FNOP_NCOLL; /* each member with its grid neighbours (sim_coll.c) */
    if (ncoll && (!cm || !cm->grid))
        return psk_simi_fail(s, PSK_EINVAL, "rank %d: %s (event %llu) on communicator %lld, which has no "
                                            "Cartesian grid: sim models neighborhood collectives on the "
                                            "communicators of MPI_Cart_create and MPI_Cart_sub only (not of "
                                            "MPI_Dist_graph_create or MPI_Graph_create, which are not recorded)",
                             q, psk_fn_name(e->fn), (unsigned long long)r->nread, (long long)comm);
    if (!cm)
        return psk_simi_fail(s, PSK_EFORMAT, "rank %d: %s on communicator %lld, which it never created", q,
                             psk_fn_name(e->fn), (long long)comm);
    if (rreq < 0)
        r->nwait++;
    uint64_t seq = cm->seq++;
    int leader = cm->world[0];
    coll_inst *c = s->colls;
    /* the same id, leader and count can name two communicators at once: a
     * rank that left one ({0,1}, id 4, freed) for the next ({0,2}, id 4
     * again) may arrive at the second's first collective while the others
     * are still in the first's; their members tell them apart */
    while (c && !(c->comm == comm && c->leader == leader && c->seq == seq && c->n == cm->n &&
                  (c->world == cm->world || !memcmp(c->world, cm->world, (size_t)cm->n * sizeof *c->world))))
        c = c->next;
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c)
            return PSK_ENOMEM;
        c->comm = comm, c->leader = leader, c->seq = seq, c->n = cm->n, c->coll = coll;
        /* MPI_COMM_WORLD's members are shared, not copied */
        c->world = cm->world == s->world0 ? s->world0 : malloc((size_t)cm->n * sizeof *c->world);
        c->arrive = calloc((size_t)cm->n, sizeof *c->arrive);
        c->done = calloc((size_t)cm->n, sizeof *c->done);
        c->reqs = malloc((size_t)cm->n * sizeof *c->reqs);
        c->own = calloc((size_t)cm->n, sizeof *c->own);
        if (!c->world || !c->arrive || !c->done || !c->reqs || !c->own)
            return PSK_ENOMEM;
        if (c->world != s->world0)
            memcpy(c->world, cm->world, (size_t)cm->n * sizeof *c->world);
        if (ncoll) /* its grid (kept: a nonblocking one may outlive the communicator) */
            c->grid = cm->grid;
        c->next = s->colls;
        s->colls = c;
    }
    c->arrive[cm->me] = r->t;
    c->reqs[cm->me] = rreq;
    c->own[cm->me] = c->grid ? 0 : own_block(e, coll, cm->me, cm->n);
    int64_t b = coll_bytes(e, cm->n);
    c->bytes = b > c->bytes ? b : c->bytes;
    if (PSK_HAS(e, PSK_F_ROOT) && e->v[PSK_F_ROOT] >= 0 && e->v[PSK_F_ROOT] < cm->n)
        c->root = (int)e->v[PSK_F_ROOT];
    if (++c->arrived == c->n) {
        coll_complete(s, c);
        for (coll_inst **pp = &s->colls; *pp; pp = &(*pp)->next)
            if (*pp == c) {
                *pp = c->next;
                break;
            }
        psk_simi_members_free(s, c->world);
        free(c->arrive), free(c->done), free(c->reqs), free(c->own);
        free(c);
    }
    return 0;
}
