/* Running one event of perfskel sim's replay: a rank's MPI call at its
 * clock takes what the model says (point to point: sim_p2p.c; collectives
 * and communicators: sim_comm.c; intervals: sim_ival.c), with its requests
 * and what completes a call that waits. A blocking call holds one guard in
 * nwait until everything it waits for is posted; when nwait reaches 0 its
 * time goes to its class, the part spent waiting for a late partner to
 * sync; nonblocking operations move while the rank works and are waited
 * for by its Wait calls. */
#include <stdint.h>
#include <string.h>

#include "psk_mem.h"
#include "sim_state.h"

/* ---- completing what a rank waits for ---- */

static int64_t recv_peer(const psk_event *e, int f);
static int64_t bytes_of(const psk_event *e, int cf, int sf);

/* reports (opts.on_call): rank q's current call ran from begin to end */
void psk_simi_report_call(psk_sim *s, int q, double begin, double end, double sync)
{
    rank *r = &s->r[q];
    const psk_event *e = &r->ev;
    int op = s->opof[e->fn], peer = -1;
    if (PSK_HAS(e, PSK_F_PEER) && op != OP_COLL && op != OP_ICOLL && op != OP_NEWCOMM) {
        int64_t comm = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
        int w = psk_simi_world_of(s, q, comm, recv_peer(e, PSK_F_PEER));
        peer = w >= 0 ? w : -1;
    }
    psk_sim_call c = {.rank = q, .interval = r->depth ? r->stack[r->depth - 1].node : 0, .fn = e->fn,
                      .peer = peer, .bytes = PSK_HAS(e, PSK_F_COUNT) ? bytes_of(e, PSK_F_COUNT, PSK_F_DTSIZE) : 0,
                      .begin = begin * 1e-9, .end = end * 1e-9, .sync = sync * 1e-9};
    s->opts->on_call(s->opts->report_arg, &c);
}

/* the blocking call of rank q is over at its tdone: its time goes to its
 * class, the part spent waiting for a late partner to sync */
static void finish_call(psk_sim *s, int q)
{
    rank *r = &s->r[q];
    double end = r->tdone > r->tcall ? r->tdone : r->tcall;
    if (end < r->tcall + r->floor)
        end = r->tcall + r->floor;
    double in = end - r->tcall;
    r->acc[r->acc_class] += in;
    double sync = r->partner - r->tcall;
    sync = sync > 0 ? (sync < in ? sync : in) : 0;
    r->acc[A_SYNC] += sync;
    if (r->acc_class >= A_P2P && r->acc_class <= A_WAIT)
        r->acc[A_SYNC_P2P + (r->acc_class - A_P2P)] += sync;
    psk_simi_tl_add(s, q, 2, r->tcall, r->tcall + sync);
    psk_simi_tl_add(s, q, 1, r->tcall + sync, end);
    if (s->opts->on_call && r->in_block) /* in_block stays set: advance() does not report the call again */
        psk_simi_report_call(s, q, r->tcall, end, sync);
    r->t = end;
    r->state = 0;
    if (r->core >= 0) /* on a shared core: it goes on once it has its core (sim_cores.c) */
        r->cdone = end;
    if (!r->running) {
        if (r->core >= 0)
            r->cphase = CP_RESUME;
        psk_simi_ready_push(s, q);
    }
}

/* one of the things rank q's blocking call waits for is done at t; the
 * partner (the other side) arrived at partner */
void psk_simi_resolve(psk_sim *s, int q, double t, double partner)
{
    rank *r = &s->r[q];
    if (t > r->tdone)
        r->tdone = t;
    if (partner > r->partner)
        r->partner = partner;
    if (--r->nwait == 0)
        finish_call(s, q);
}

sreq *psk_simi_req_get(rank *r, int64_t id)
{
    if (id < 0 || id > (1 << 24) || psk_grow((void **)&r->req, &r->nreq, id, sizeof *r->req))
        return NULL;
    return &r->req[id];
}

/* a request its Wait has: the part of its transfer that ran before the
 * Wait's call (between its post and the call) was hidden behind work;
 * its slot is free again (a persistent one inactive) */
static void release(rank *r, sreq *x)
{
    double a = x->begin > x->post ? x->begin : x->post, b = x->end < r->tcall ? x->end : r->tcall;
    if (x->kind != 3 && b > a)
        r->acc[A_OVERLAP] += b - a;
    if (x->persistent)
        x->active = 0;
    else
        x->used = 0;
}

/* rank q's request is done at t; its transfer ran from begin to end */
void psk_simi_req_done(psk_sim *s, int q, int64_t id, double t, double begin, double end, double partner)
{
    rank *r = &s->r[q];
    sreq *x = psk_simi_req_get(r, id);
    if (!x || !x->used)
        return;
    x->pending = 0;
    x->done = t, x->begin = begin, x->end = end, x->partner = partner;
    if (!x->waited)
        return;
    /* a Wait is blocked on it: what moved before the Wait was overlap */
    x->waited = 0;
    release(r, x);
    psk_simi_resolve(s, q, t, partner);
}

/* ---- waiting for requests ---- */

/* rank q's Wait-family call (at its tcall) waits for request id; the part
 * of its transfer that ran before the call was hidden behind work */
static void wait_one(psk_sim *s, int q, int64_t id)
{
    rank *r = &s->r[q];
    sreq *x = psk_simi_req_get(r, id);
    if (!x || !x->used || (x->persistent && !x->active && !x->pending))
        return;
    if (x->pending) {
        x->waited = 1;
        r->nwait++;
        return;
    }
    if (x->done > r->tdone)
        r->tdone = x->done;
    if (x->partner > r->partner)
        r->partner = x->partner;
    release(r, x);
}

/* the request ids a Wait-family call waits for, as the run completed them */
static void wait_family(psk_sim *s, int q, int op, const psk_event *e)
{
    const int64_t *ids = PSK_ARR(e, PSK_F_REQS);
    uint32_t n = PSK_ARRN(e, PSK_F_REQS);
    if (op == OP_WAITALL || op == OP_TESTALL) {
        for (uint32_t k = 0; k < n; k++)
            wait_one(s, q, ids[k]);
    } else if (op == OP_WAITANY || op == OP_TESTANY) {
        int64_t i = PSK_HAS(e, PSK_F_INDEX) ? e->v[PSK_F_INDEX] : -1;
        if (i >= 0 && i < (int64_t)n)
            wait_one(s, q, ids[i]);
    } else {
        for (uint32_t k = 0; k < PSK_ARRN(e, PSK_F_INDICES); k++) {
            int64_t i = PSK_ARR(e, PSK_F_INDICES)[k];
            if (i >= 0 && i < (int64_t)n)
                wait_one(s, q, ids[i]);
        }
    }
}

/* ---- one event ---- */

/* a blocking call starts: nwait holds one guard until everything it
 * waits for is posted (unblock() drops it) */
static void block(rank *r, int cls)
{
    r->tcall = r->t;
    r->tdone = r->t;
    r->partner = 0;
    r->nwait = 1;
    r->acc_class = cls;
    r->in_block = 1;
}

static void unblock(psk_sim *s, int q)
{
    if (--s->r[q].nwait == 0)
        finish_call(s, q);
}

static int new_req(psk_sim *s, int q, const psk_event *e, int kind, int persistent)
{
    if (!PSK_HAS(e, PSK_F_REQ))
        return -1;
    sreq *x = psk_simi_req_get(&s->r[q], e->v[PSK_F_REQ]);
    if (!x)
        return -1;
    memset(x, 0, sizeof *x);
    x->used = 1, x->pending = 1, x->kind = kind, x->persistent = persistent, x->post = s->r[q].t;
    return (int)e->v[PSK_F_REQ];
}

static int start_req(psk_sim *s, int q, int64_t id)
{
    rank *r = &s->r[q];
    sreq *x = psk_simi_req_get(r, id);
    if (!x || !x->used || !x->persistent)
        return 0;
    x->pending = 1, x->active = 1, x->post = r->t, x->waited = 0;
    int peer = psk_simi_world_of(s, q, x->comm, x->peer);
    if (x->kind == 1)
        return psk_simi_post_send(s, q, peer, x->comm, x->tag, x->bytes, id, 0, -1);
    return psk_simi_post_recv(s, q, peer, x->comm, x->tag, x->bytes, id, 0, -1);
}

static int64_t bytes_of(const psk_event *e, int cf, int sf)
{
    return (PSK_HAS(e, cf) ? e->v[cf] : 0) * (PSK_HAS(e, sf) ? e->v[sf] : 1);
}

/* the source a receive really had: the recorded one for wildcards */
static int64_t recv_peer(const psk_event *e, int f)
{
    int64_t p = e->v[f];
    if (p == PSK_ANY_SOURCE && PSK_HAS(e, PSK_F_ASRC) && e->v[PSK_F_ASRC] >= 0)
        return e->v[PSK_F_ASRC];
    return p;
}

static int bad_peer(psk_sim *s, int q, const psk_event *e)
{
    rank *r = &s->r[q];
    int64_t c = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
    if (c >= 0 && c < r->ncomm && r->comm[c].world && r->comm[c].inter)
        return psk_simi_fail(s, PSK_EINVAL, "rank %d: %s (event %llu) on an intercommunicator: point to point "
                                            "between the groups of an intercommunicator is not simulated (not "
                                            "supported yet)", q, psk_fn_name(e->fn), (unsigned long long)r->nread);
    return psk_simi_fail(s, PSK_EFORMAT, "rank %d: %s (event %llu) names a peer outside its communicator", q,
                         psk_fn_name(e->fn), (unsigned long long)r->nread);
}

/* runs rank q's current event at its clock; a blocking call leaves nwait
 * above 0 if the rank must wait */
int psk_simi_execute(psk_sim *s, int q)
{
    rank *r = &s->r[q];
    psk_event *e = &r->ev;
    int op = s->opof[e->fn], rc = 0;
    int64_t comm = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
    switch (op) {
    case OP_FINALIZE:
        r->finalize = r->t;
        while (r->depth)
            psk_simi_ival_close(s, q);
        r->state = 2;
        return 0;
    case OP_PCONTROL: {
        int64_t lv = PSK_HAS(e, PSK_F_I1) ? e->v[PSK_F_I1] : 0;
        if (lv >= 2)
            return psk_simi_ival_open(s, q, lv);
        if (lv <= -2 && r->skipped)
            r->skipped--;
        else if (lv <= -2 && lv > INT64_MIN && r->depth > 1 && s->iv[r->stack[r->depth - 1].node].key == -lv)
            psk_simi_ival_close(s, q);
        return 0;
    }
    case OP_SEND:
    case OP_RECV:
    case OP_SENDRECV:
    case OP_SENDRECV_REPLACE: {
        int to = op == OP_RECV ? -2 : psk_simi_world_of(s, q, comm, e->v[PSK_F_PEER]);
        int from = op == OP_SEND ? -2
                                 : psk_simi_world_of(s, q, comm, recv_peer(e, op == OP_RECV ? PSK_F_PEER
                                                                                             : PSK_F_RPEER));
        if (to == -3 || to == -1 || from == -3)
            return bad_peer(s, q, e);
        int64_t sb = bytes_of(e, PSK_F_COUNT, PSK_F_DTSIZE);
        int64_t rb = op == OP_SENDRECV ? bytes_of(e, PSK_F_RCOUNT, PSK_F_RDTSIZE) : sb;
        int64_t rtag = op == OP_RECV ? e->v[PSK_F_TAG] : e->v[PSK_F_RTAG];
        block(r, A_P2P);
        if (op != OP_RECV && (rc = psk_simi_post_send(s, q, to, comm, e->v[PSK_F_TAG], sb, -1, 1, PSK_F_TAG)))
            return rc;
        int rtagf = op == OP_RECV ? PSK_F_TAG : PSK_F_RTAG;
        if (op != OP_SEND && (rc = psk_simi_post_recv(s, q, from, comm, rtag, rb, -1, 0, rtagf)))
            return rc;
        unblock(s, q);
        return 0;
    }
    case OP_ISEND:
    case OP_IRECV: {
        int peer = psk_simi_world_of(s, q, comm, e->v[PSK_F_PEER]);
        if (peer == -3 || (peer == -1 && op == OP_ISEND))
            return bad_peer(s, q, e);
        int64_t b = bytes_of(e, PSK_F_COUNT, PSK_F_DTSIZE);
        if (op == OP_ISEND)
            return psk_simi_post_send(s, q, peer, comm, e->v[PSK_F_TAG], b, new_req(s, q, e, 1, 0), 0, PSK_F_TAG);
        if (peer == -1) { /* a wildcard: the source the run matched it with */
            int64_t src = psk_simi_recorded_source(s, q, r->nread - 1);
            int w = src >= 0 ? psk_simi_world_of(s, q, comm, src) : -1;
            peer = w >= 0 ? w : -1;
        }
        return psk_simi_post_recv(s, q, peer, comm, e->v[PSK_F_TAG], b, new_req(s, q, e, 2, 0), 0, PSK_F_TAG);
    }
    case OP_MPROBE: {
        /* it takes the message a receive would (an Improbe that found
         * nothing takes nothing); one the run found may not be there yet
         * in the model: the probe waits for it */
        if (PSK_HAS(e, PSK_F_FLAG) && !e->v[PSK_F_FLAG])
            return 0;
        int from = psk_simi_world_of(s, q, comm, recv_peer(e, PSK_F_PEER));
        if (from == -2)
            return 0; /* MPI_PROC_NULL: MPI_MESSAGE_NO_PROC */
        if (from == -3)
            return bad_peer(s, q, e);
        block(r, A_P2P);
        if ((rc = psk_simi_post_recv(s, q, from, comm, e->v[PSK_F_TAG], 0, -1, 1, PSK_F_TAG)))
            return rc;
        unblock(s, q);
        return 0;
    }
    case OP_MRECV: {
        msg *mg = psk_simi_take_probed(s, q, e);
        int64_t rreq = new_req(s, q, e, 2, 0);
        if (!mg) {
            if (rreq >= 0)
                psk_simi_req_done(s, q, rreq, r->t, r->t, r->t, r->t);
            return 0;
        }
        if (rreq >= 0) {
            psk_simi_meet(s, mg, q, r->t, rreq);
        } else {
            block(r, A_P2P);
            r->nwait++;
            psk_simi_meet(s, mg, q, r->t, -1);
            unblock(s, q);
        }
        mg->next = s->free_msg, s->free_msg = mg;
        return 0;
    }
    case OP_SEND_INIT:
    case OP_RECV_INIT: {
        int id = new_req(s, q, e, op == OP_SEND_INIT ? 1 : 2, 1);
        sreq *x = id >= 0 ? psk_simi_req_get(r, id) : NULL;
        if (x) {
            x->pending = 0, x->active = 0;
            x->peer = e->v[PSK_F_PEER], x->tag = e->v[PSK_F_TAG], x->comm = comm;
            x->bytes = bytes_of(e, PSK_F_COUNT, PSK_F_DTSIZE);
        }
        return 0;
    }
    case OP_START:
        return start_req(s, q, e->v[PSK_F_REQ]);
    case OP_STARTALL:
        for (uint32_t k = 0; k < PSK_ARRN(e, PSK_F_REQS) && !rc; k++)
            rc = start_req(s, q, PSK_ARR(e, PSK_F_REQS)[k]);
        return rc;
    case OP_WAIT:
    case OP_TEST:
        if (op == OP_TEST && !(PSK_HAS(e, PSK_F_FLAG) && e->v[PSK_F_FLAG]))
            return 0; /* not completed in the run: nothing to wait for */
        block(r, A_WAIT);
        wait_one(s, q, e->v[PSK_F_REQ]);
        unblock(s, q);
        return 0;
    case OP_WAITALL:
    case OP_TESTALL:
    case OP_WAITANY:
    case OP_TESTANY:
    case OP_WAITSOME:
    case OP_TESTSOME:
        if ((op == OP_TESTALL || op == OP_TESTANY || op == OP_TESTSOME) &&
            !(PSK_HAS(e, PSK_F_FLAG) ? e->v[PSK_F_FLAG] : 1))
            return 0;
        block(r, A_WAIT);
        wait_family(s, q, op, e);
        unblock(s, q);
        return 0;
    case OP_CANCEL:
        psk_simi_cancel_req(s, q, e->v[PSK_F_REQ]);
        return 0;
    case OP_FREE: {
        sreq *x = psk_simi_req_get(r, e->v[PSK_F_REQ]);
        if (x && x->used && !x->pending && !x->waited)
            x->used = 0;
        return 0;
    }
    case OP_COLL:
    case OP_NEWCOMM:
        block(r, A_COLL);
        if ((rc = psk_simi_coll_arrive(s, q, comm, s->collof[e->fn], e, -1)))
            return rc;
        if (op == OP_NEWCOMM && (rc = psk_simi_new_comm(s, q, e)))
            return rc;
        unblock(s, q);
        return 0;
    case OP_NEWCOMM_GROUP: {
        /* MPI_Comm_create_group: collective over the group's members only,
         * the members of the communicator it makes (its first collective) */
        if (!PSK_HAS(e, PSK_F_NEWID) || e->v[PSK_F_NEWID] < 2 || !PSK_HAS(e, PSK_F_MEMBERS))
            return 0;
        if ((rc = psk_simi_new_comm(s, q, e)))
            return rc;
        if (!psk_simi_comm_get(s, r, q, e->v[PSK_F_NEWID]))
            return 0; /* an id not followed */
        block(r, A_COLL);
        if ((rc = psk_simi_coll_arrive(s, q, e->v[PSK_F_NEWID], s->collof[e->fn], e, -1)))
            return rc;
        unblock(s, q);
        return 0;
    }
    case OP_ICOLL:
        return psk_simi_coll_arrive(s, q, comm, s->collof[e->fn], e, new_req(s, q, e, 3, 0));
    default: /* MPI_Init, local calls, probes: no time in the model */
        if (comm > 1 && comm < r->ncomm && r->comm[comm].grid && psk_fn_op(e->fn) == PSK_FNOP_COMM_FREE)
            r->comm[comm].grid = 0; /* MPI_Comm_free: a call perfskel does not record may re-use the id */
        return 0;
    }
}
