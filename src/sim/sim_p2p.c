/* Point to point in perfskel sim's replay: a message is matched in MPI
 * order (source, tag, communicator) with the first posted receive, else
 * queued as unexpected; eager up to the threshold (the sender goes on,
 * the message moves at once), rendezvous above it (it moves when both
 * sides are there). Matched probes take a message off the matching for
 * their Mrecv; a wildcard Irecv of a trace directory takes the source its
 * completion recorded, read ahead in the rank's file. Invariant: each
 * rank's queues keep the order their messages and receives came in. */
#include <stdlib.h>

#include "psk_mem.h"
#include "sim_state.h"

/* ---- point to point ---- */

static int match_tag(int64_t want, int64_t tag) { return want == PSK_ANY_TAG || want == tag; }

/* a message meets its receive: times for both sides */
void psk_simi_meet(psk_sim *s, msg *mg, int dst, double rpost, int64_t rreq)
{
    double begin, end;
    if (mg->rdv) {
        double ready = mg->post > rpost ? mg->post : rpost;
        if (s->ncores) /* the receiver takes it (where it waits busily on a shared core: in its turn) */
            ready = psk_simi_core_turn(s, dst, ready);
        end = psk_net_transfer(&s->net, mg->src, dst, mg->bytes, ready, &begin);
        if (mg->sender_blocked)
            psk_simi_resolve(s, mg->src, end, rpost);
        else if (mg->sreq >= 0)
            psk_simi_req_done(s, mg->src, mg->sreq, end, begin, end, rpost);
    } else {
        end = mg->arrive;
        begin = mg->post;
    }
    double done = end > rpost ? end : rpost;
    if (rreq >= 0)
        psk_simi_req_done(s, dst, rreq, done, begin, end, mg->post);
    else
        psk_simi_resolve(s, dst, done, mg->post);
}

/* a matched probe (MPI_Mprobe, MPI_Improbe) takes message mg off rank
 * dst's matching: it waits in dst's matched list for its Mrecv / Imrecv,
 * and the blocked probe returns when the message's envelope is there (an
 * eager message has arrived whole; a rendezvous one sent its header, which
 * takes the start time, and moves when it is received) */
static void take_matched(psk_sim *s, msg *mg, int dst)
{
    rank *d = &s->r[dst];
    mg->next = NULL;
    if (d->matched_tail)
        d->matched_tail->next = mg;
    else
        d->matched = mg;
    d->matched_tail = mg;
    double env = mg->rdv ? mg->post + psk_net_cost(&s->net, mg->src, dst, 0) : mg->arrive;
    psk_simi_resolve(s, dst, env, mg->post);
}

/* rank q's event read and not yet run: asks for its request's record
 * and, if a send to a rank of MPI_COMM_WORLD, for where its receiver's
 * posted receives start (a hint, for the rank next to run) */
void psk_simi_p2p_prefetch(const psk_sim *s, int q)
{
    const rank *r = &s->r[q];
    if (!r->has_ev)
        return;
    /* its own request's record (an Isend's, an Irecv's, a Wait's): the
     * requests of a rank lie apart, a line or two each */
    if (PSK_HAS(&r->ev, PSK_F_REQ) && r->ev.v[PSK_F_REQ] >= 0 && r->ev.v[PSK_F_REQ] < r->nreq)
        __builtin_prefetch(&r->req[r->ev.v[PSK_F_REQ]], 1);
    int op = s->opof[r->ev.fn];
    if ((op != OP_ISEND && op != OP_SEND) || !PSK_HAS(&r->ev, PSK_F_PEER) ||
        (PSK_HAS(&r->ev, PSK_F_COMM) && r->ev.v[PSK_F_COMM] != 0))
        return;
    int64_t p = r->ev.v[PSK_F_PEER];
    if (p >= 0 && p < s->P)
        __builtin_prefetch(&s->r[p].posted), psk_net_prefetch(&s->net, (int)p);
}

/* tagf: the field of rank q's current event the tag comes from, -1 if it
 * comes from elsewhere (a persistent request's init) */
int psk_simi_post_send(psk_sim *s, int q, int dst, int64_t comm, int64_t tag, int64_t bytes, int64_t sreq,
                       int blocking, int tagf)
{
    rank *r = &s->r[q];
    if (dst == -2) { /* MPI_PROC_NULL */
        if (sreq >= 0)
            psk_simi_req_done(s, q, sreq, r->t, r->t, r->t, r->t);
        return 0;
    }
    if (s->opts->on_message)
        s->opts->on_message(s->opts->report_arg, q, dst, bytes);
    msg *mg = s->free_msg;
    if (mg)
        s->free_msg = mg->next;
    else if (!(mg = malloc(sizeof *mg)))
        return PSK_ENOMEM;
    *mg = (msg){.src = q, .dst = dst, .comm = comm, .tag = tag, .bytes = bytes, .post = r->t,
                .rdv = bytes > s->net.eager, .sreq = sreq, .onode = tagf >= 0 ? r->onode : -1,
                .ofield = tagf, .oexec = r->oexec};
    if (!mg->rdv) { /* eager: it moves now, and the sender goes on */
        double begin;
        mg->arrive = psk_net_transfer(&s->net, q, dst, bytes, r->t, &begin);
        if (sreq >= 0)
            psk_simi_req_done(s, q, sreq, r->t, begin, mg->arrive, r->t);
    } else if (blocking) {
        mg->sender_blocked = 1;
        r->nwait++;
    }
    rank *d = &s->r[dst];
    for (precv *p = d->posted, *prev = NULL; p; prev = p, p = p->next)
        if ((p->src == -1 || p->src == q) && p->comm == comm && match_tag(p->tag, tag)) {
            if (prev)
                prev->next = p->next;
            else
                d->posted = p->next;
            if (d->posted_tail == p)
                d->posted_tail = prev;
            int probe = p->probe;
            if (!probe)
                psk_simi_meet(s, mg, dst, p->post, p->rreq);
            p->next = s->free_precv, s->free_precv = p;
            if (probe)
                take_matched(s, mg, dst);
            else
                mg->next = s->free_msg, s->free_msg = mg;
            return 0;
        }
    mg->next = NULL;
    if (d->unexp_tail)
        d->unexp_tail->next = mg;
    else
        d->unexp = mg;
    d->unexp_tail = mg;
    return 0;
}

/* a receive (or, if probe, a blocking matched probe: rreq is -1); tagf as
 * post_send's */
int psk_simi_post_recv(psk_sim *s, int q, int src, int64_t comm, int64_t tag, int64_t bytes, int64_t rreq,
                       int probe, int tagf)
{
    rank *r = &s->r[q];
    if (src == -2) {
        if (rreq >= 0)
            psk_simi_req_done(s, q, rreq, r->t, r->t, r->t, r->t);
        return 0;
    }
    if (rreq < 0)
        r->nwait++; /* resolved when its message comes */
    for (msg *mg = r->unexp, *prev = NULL; mg; prev = mg, mg = mg->next)
        if ((src == -1 || mg->src == src) && mg->comm == comm && match_tag(tag, mg->tag)) {
            if (prev)
                prev->next = mg->next;
            else
                r->unexp = mg->next;
            if (r->unexp_tail == mg)
                r->unexp_tail = prev;
            if (probe) {
                take_matched(s, mg, q);
                return 0;
            }
            psk_simi_meet(s, mg, q, r->t, rreq);
            mg->next = s->free_msg, s->free_msg = mg;
            return 0;
        }
    precv *p = s->free_precv;
    if (p)
        s->free_precv = p->next;
    else if (!(p = malloc(sizeof *p)))
        return PSK_ENOMEM;
    *p = (precv){.src = src, .comm = comm, .tag = tag, .bytes = bytes, .post = r->t, .rreq = rreq, .probe = probe,
                 .onode = tagf >= 0 ? r->onode : -1, .ofield = tagf, .oexec = r->oexec};
    if (r->posted_tail)
        r->posted_tail->next = p;
    else
        r->posted = p;
    r->posted_tail = p;
    return 0;
}

/* the message rank q's MPI_Mrecv / MPI_Imrecv receives, unlinked from
 * those its matched probes took: the first from the source and with the
 * tag its status recorded (Mrecv's), else the first (Imrecv records
 * neither); NULL for MPI_MESSAGE_NO_PROC or if there is none */
msg *psk_simi_take_probed(psk_sim *s, int q, const psk_event *e)
{
    rank *r = &s->r[q];
    int has = PSK_HAS(e, PSK_F_ASRC);
    if (has && e->v[PSK_F_ASRC] == PSK_PROC_NULL)
        return NULL;
    msg *pick = NULL, *pprev = NULL;
    for (msg *mg = r->matched, *prev = NULL; mg; prev = mg, mg = mg->next) {
        if (!pick)
            pick = mg, pprev = prev;
        if (has && psk_simi_world_of(s, q, mg->comm, e->v[PSK_F_ASRC]) == mg->src &&
            (!PSK_HAS(e, PSK_F_ATAG) || e->v[PSK_F_ATAG] == mg->tag)) {
            pick = mg, pprev = prev;
            break;
        }
    }
    if (!pick)
        return NULL;
    if (pprev)
        pprev->next = pick->next;
    else
        r->matched = pick->next;
    if (r->matched_tail == pick)
        r->matched_tail = pprev;
    return pick;
}

/* MPI_Cancel of rank q's request id: a receive not matched yet is taken
 * off the posted receives, a send not matched yet off its destination's
 * unexpected messages, and the request is complete, cancelled, at once;
 * one matched already completes as it would have (MPI cancels only what
 * has not matched). Either way the Wait, Test or Request_free the program
 * completes it with frees it. A cancelled receive left posted would take
 * the next message that matches it (a wildcard: any), whose own receive
 * would then wait forever. */
void psk_simi_cancel_req(psk_sim *s, int q, int64_t id)
{
    rank *r = &s->r[q];
    sreq *x = psk_simi_req_get(r, id);
    if (!x || !x->used || !x->pending)
        return;
    int gone = 0;
    if (x->kind == 2) {
        for (precv *p = r->posted, *prev = NULL; p; prev = p, p = p->next)
            if (!p->probe && p->rreq == id) {
                if (prev)
                    prev->next = p->next;
                else
                    r->posted = p->next;
                if (r->posted_tail == p)
                    r->posted_tail = prev;
                p->next = s->free_precv, s->free_precv = p;
                gone = 1;
                break;
            }
    } else if (x->kind == 1) {
        for (int d = 0; d < s->P && !gone; d++)
            for (msg *mg = s->r[d].unexp, *prev = NULL; mg; prev = mg, mg = mg->next)
                if (mg->src == q && mg->sreq == id && !mg->sender_blocked) {
                    if (prev)
                        prev->next = mg->next;
                    else
                        s->r[d].unexp = mg->next;
                    if (s->r[d].unexp_tail == mg)
                        s->r[d].unexp_tail = prev;
                    mg->next = s->free_msg, s->free_msg = mg;
                    gone = 1;
                    break;
                }
    }
    if (gone) /* nothing moved: no overlap, no partner */
        psk_simi_req_done(s, q, id, r->t, r->t, r->t, 0);
}

/* ---- the recorded source of a wildcard Irecv ---- */

static int ahead_found(rank *r, int64_t idx, int64_t src)
{
    if (r->nfound == r->capfound) {
        size_t cap = r->capfound ? 2 * r->capfound : 16;
        int64_t(*a)[2] = realloc(r->found, cap * sizeof *a);
        if (!a)
            return -1;
        r->found = a, r->capfound = cap;
    }
    r->found[r->nfound][0] = idx;
    r->found[r->nfound][1] = src;
    r->nfound++;
    return 0;
}

/* the source recorded for rank q's wildcard Irecv that is its event idx
 * (0-based), or -1 if the run never completed it (or memory ran out) */
int64_t psk_simi_recorded_source(psk_sim *s, int q, uint64_t idx)
{
    rank *r = &s->r[q];
    if (!s->trace) /* folded: the program holds the recorded sources already */
        return -1;
    if (!r->ahead && psk_rank_open_pooled(s->trace, q, s->pool, &r->ahead))
        return -1;
    for (;;) {
        for (size_t k = 0; k < r->nfound; k++)
            if ((uint64_t)r->found[k][0] == idx) {
                int64_t src = r->found[k][1];
                r->found[k][0] = r->found[r->nfound - 1][0];
                r->found[k][1] = r->found[r->nfound - 1][1];
                r->nfound--;
                return src;
            }
        psk_event e;
        if (psk_rank_next(r->ahead, &e))
            return -1;
        uint64_t j = r->ahead_n++;
        if (s->opof[e.fn] == OP_IRECV && PSK_HAS(&e, PSK_F_PEER) && e.v[PSK_F_PEER] == PSK_ANY_SOURCE) {
            int64_t id = PSK_HAS(&e, PSK_F_REQ) ? e.v[PSK_F_REQ] : -1;
            if (id < 0 || id > (1 << 24))
                continue;
            if (psk_grow((void **)&r->pend_idx, &r->npend, id, sizeof *r->pend_idx))
                return -1;
            r->pend_idx[id] = (int64_t)j + 1; /* 0: none */
            continue;
        }
        if (!PSK_HAS(&e, PSK_F_STATUSES))
            continue;
        const int64_t *st = PSK_ARR(&e, PSK_F_STATUSES);
        for (uint32_t k = 0; k < PSK_ARRN(&e, PSK_F_STATUSES); k++) {
            int64_t i = st[3 * k], id = -1;
            if (PSK_HAS(&e, PSK_F_REQ))
                id = e.v[PSK_F_REQ];
            else if (PSK_HAS(&e, PSK_F_REQS) && i >= 0 && i < (int64_t)PSK_ARRN(&e, PSK_F_REQS))
                id = PSK_ARR(&e, PSK_F_REQS)[i];
            if (id < 0 || id >= r->npend || !r->pend_idx[id])
                continue;
            if (ahead_found(r, r->pend_idx[id] - 1, st[3 * k + 1]))
                return -1;
            r->pend_idx[id] = 0;
        }
    }
}
