/* The replay of perfskel sim: every rank's recorded events, streamed from
 * its file (or handed out by the folded program's cursor, sim_fprog.c),
 * executed in simulated time on the machine model. A rank's
 * compute gaps (the recorded time between two calls) are divided by its
 * node's power; its MPI calls take what the model says: messages matched
 * in MPI order (source, tag, communicator; blocking wildcard receives take
 * the source recorded in their status; matched probes take a message off
 * the matching for their Mrecv), eager up to the threshold (the
 * sender goes on, the message moves at once), rendezvous above it (moves
 * when both sides are there); nonblocking operations move while the rank
 * works and are waited for by its Wait calls; collectives wait for every
 * member and cost what their algorithm costs (sim_coll.c).
 *
 * Ranks run in order of their simulated clocks (a tournament tree), so
 * shared resources are booked in time order: a rank reads its next event
 * and counts the compute gap before it, and runs it if it is still the
 * earliest or the event touches nobody else (waits, tests, local calls).
 * Intervals (the whole program, MPI_Pcontrol(n) ... MPI_Pcontrol(-n) for
 * n >= 2, loops given as marks) keep per-rank running totals taken at
 * entry and exit, so an event costs nothing extra for them. */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "psk_mem.h"
#include "sim_state.h"

static const char *const metric_names[PSK_M_N] = {"exec", "cpu", "p2p", "collective", "wait", "sync",
                                                  "variation", "overlap", "idle", "imbalance", "lost"};
const char *psk_metric_name(int m) { return m >= 0 && m < PSK_M_N ? metric_names[m] : "?"; }

static int fail(psk_sim *s, int rc, const char *fmt, ...)
{
    if (!s->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->err, sizeof s->err, fmt, ap);
        va_end(ap);
    }
    s->failed = 1;
    return rc;
}

/* ---- the ready ranks by clock: a tournament tree of fan-out 4 ----
 * Leaves are the ranks (key: the clock of a ready rank, +inf otherwise);
 * each inner node holds the winner of its four children and its key: the
 * earliest clock and, on a tie, the lowest rank (children are in rank
 * order: the leftmost of equal keys). The levels lie one after the other,
 * leaves first, each padded to groups of four siblings, a group on one
 * 64-byte line: a rank that becomes ready or leaves updates one node per
 * level, reading one line per level (log4 P of them, half the lines of a
 * binary tree: at many ranks the lower levels miss the caches). The last
 * level's group gives the winner of all, kept in s->top. */

/* clocks are never negative, so their bit patterns order as they do */
static uint64_t key_of(double t)
{
    uint64_t k;
    memcpy(&k, &t, sizeof k);
    return k;
}

#define NOT_READY 0x7ff0000000000000ull /* +inf */

#ifndef NDEBUG
/* the winner is the earliest leaf, the lowest rank of equals (checked in
 * debug builds, at up to 4,096 ranks) */
static int tree_ok(const psk_sim *s)
{
    if (s->P > 4096)
        return 1;
    int best = 0;
    for (int q = 1; q < s->tsize; q++)
        best = s->tn[q].key < s->tn[best].key ? q : best;
    return s->top.key == s->tn[best].key && (s->top.key == NOT_READY || s->top.win == best);
}
#endif

static void tree_update(psk_sim *s, int q, uint64_t k)
{
    tnode *t = s->tn;
    unsigned i = (unsigned)q;
    t[i].key = k;
    for (int l = 0;; l++) {
        const tnode *g = t + s->toff[l] + (i & ~3u);
        /* the leftmost of the earliest: a later sibling wins only if earlier */
        uint64_t k0 = g[0].key, k1 = g[1].key, k2 = g[2].key, k3 = g[3].key;
        int w0 = g[0].win, w1 = g[1].win, w2 = g[2].win, w3 = g[3].win;
        int m1 = k1 < k0, m3 = k3 < k2;
        uint64_t ka = m1 ? k1 : k0, kb = m3 ? k3 : k2;
        int wa = m1 ? w1 : w0, wb = m3 ? w3 : w2;
        int mb = kb < ka;
        tnode w = {.key = mb ? kb : ka, .win = mb ? wb : wa};
        if (l == s->tlev - 1) {
            s->top = w;
            assert(tree_ok(s));
            return;
        }
        i >>= 2;
        t[s->toff[l + 1] + i] = w;
    }
}

static void ready_push(psk_sim *s, int q)
{
    tree_update(s, q, key_of(s->r[q].t));
    s->nready++;
}

static int ready_top(const psk_sim *s) { return s->top.win; }

/* 1 if a ready rank comes before rank q (at q's clock) */
static int passed(const psk_sim *s, int q)
{
    uint64_t k = s->top.key, t = key_of(s->r[q].t);
    return k < t || (k == t && s->top.win < q);
}

static int ready_pop(psk_sim *s)
{
    int top = ready_top(s);
    tree_update(s, top, NOT_READY);
    s->nready--;
    return top;
}

/* q goes in, the earliest comes out */
static int ready_replace_top(psk_sim *s, int q)
{
    ready_push(s, q);
    return ready_pop(s);
}

static int tree_init(psk_sim *s)
{
    int t = 1;
    while (t < s->P)
        t *= 2;
    s->tsize = t;
    /* levels of groups of 4: within 2 t nodes for t >= 2 */
    int n = (t + 3) & ~3, total = 0;
    for (s->tlev = 0;; n = ((n / 4 + 3) & ~3)) {
        s->toff[s->tlev++] = total;
        total += n;
        if (n <= 4)
            break;
    }
    s->tnodes = total > 2 * t ? total : 2 * t;
    size_t bytes = (size_t)s->tnodes * sizeof *s->tn; /* a multiple of 64 */
    s->tn = bytes >= (2u << 20) ? psk_big_alloc(bytes) : aligned_alloc(64, bytes);
    if (!s->tn)
        return PSK_ENOMEM;
    for (int l = 0; l < s->tlev; l++)
        for (int i = s->toff[l]; i < (l + 1 < s->tlev ? s->toff[l + 1] : total); i++)
            s->tn[i] = (tnode){.key = NOT_READY, .win = l ? 0 : i};
    s->top = (tnode){.key = NOT_READY, .win = 0};
    return PSK_OK;
}

/* ---- per-rank tables ---- */

static sreq *req_get(rank *r, int64_t id)
{
    if (id < 0 || id > (1 << 24) || psk_grow((void **)&r->req, &r->nreq, id, sizeof *r->req))
        return NULL;
    return &r->req[id];
}

/* the slot of communicator c of a rank (grown as needed), or NULL */
static cmem *comm_slot(rank *r, int64_t c)
{
    if (c < 0 || c > (1 << 20) || psk_grow((void **)&r->comm, &r->ncomm, c, sizeof *r->comm))
        return NULL;
    return &r->comm[c];
}

/* a member table, unless it is MPI_COMM_WORLD's shared one */
static void members_free(const psk_sim *s, int *world)
{
    if (world != s->world0)
        free(world);
}

/* communicator c of rank me, NULL if it was never created */
static cmem *comm_get(psk_sim *s, rank *r, int me, int64_t c)
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
static int world_of(psk_sim *s, int me, int64_t c, int64_t p)
{
    if (p == PSK_PROC_NULL)
        return -2;
    if (p == PSK_ANY_SOURCE)
        return -1;
    if (c == 0) /* MPI_COMM_WORLD (never redefined: new_comm takes ids from 2): its ranks are the world's,
                 * found without touching the rank's table (a cache miss an event at many ranks) */
        return p >= 0 && p < s->P ? (int)p : -3;
    cmem *m = comm_get(s, &s->r[me], me, c);
    if (!m || m->inter || p < 0 || p >= m->n)
        return -3; /* an intercommunicator's peers are in its remote group, which is not recorded */
    return m->world[p];
}

/* ---- intervals ---- */

/* keys of intervals given by marks (loops) are negative, apart from
 * Pcontrol levels (2 and up; the program's is 0) */
#define MARK_KEY(n) (-1 - (int64_t)(n))
/* intervals nested deeper are not kept (they are counted as skipped):
 * the reports recurse once a level */
#define MAXNEST 1000

static uint64_t ival_hash(int parent, int64_t key)
{
    return ((uint64_t)(uint32_t)parent * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)key * 0xC2B2AE3D27D4EB4Full);
}

/* the interval with this parent and key, made if there is none: found
 * through an open-addressing table of interval indices + 1 */
static int ival_child(psk_sim *s, int parent, int64_t key, int level)
{
    uint64_t h = ival_hash(parent, key);
    for (uint64_t i = s->ivhcap ? h & (s->ivhcap - 1) : 0; s->ivhcap && s->ivh[i]; i = (i + 1) & (s->ivhcap - 1)) {
        const ival *v = &s->iv[s->ivh[i] - 1];
        if (v->parent == parent && v->key == key)
            return s->ivh[i] - 1;
    }
    if (2 * ((uint64_t)s->niv + 1) > s->ivhcap) { /* grow and rehash */
        uint64_t cap = s->ivhcap ? 2 * s->ivhcap : 64;
        int *t = calloc(cap, sizeof *t);
        if (!t)
            return -1;
        for (int k = 0; k < s->niv; k++) {
            uint64_t i = ival_hash(s->iv[k].parent, s->iv[k].key) & (cap - 1);
            while (t[i])
                i = (i + 1) & (cap - 1);
            t[i] = k + 1;
        }
        free(s->ivh);
        s->ivh = t, s->ivhcap = cap;
    }
    if (s->niv == s->capiv) {
        int cap = s->capiv ? 2 * s->capiv : 16;
        ival *a = realloc(s->iv, (size_t)cap * sizeof *a);
        if (!a)
            return -1;
        s->iv = a, s->capiv = cap;
    }
    ival *v = &s->iv[s->niv];
    memset(v, 0, sizeof *v);
    v->parent = parent, v->key = key, v->level = level;
    if (parent < 0)
        snprintf(v->name, sizeof v->name, "program");
    else if (key < 0 && s->opts && s->opts->mark_name)
        s->opts->mark_name(s->opts->mark_arg, (int32_t)(-1 - key), v->name, sizeof v->name);
    else if (key < 0)
        snprintf(v->name, sizeof v->name, "interval %lld", (long long)(-1 - key));
    else {
        v->name[0] = 0;
        if (s->opts && s->opts->pcontrol_name)
            s->opts->pcontrol_name(s->opts->pcontrol_arg, key, v->name, sizeof v->name);
        if (!v->name[0])
            snprintf(v->name, sizeof v->name, "pcontrol %lld", (long long)key);
    }
    v->m = psk_big_calloc((size_t)s->P * PSK_M_N, sizeof *v->m);
    v->count = psk_big_calloc((size_t)s->P, sizeof *v->count);
    if (!v->m || !v->count) {
        free(v->m), free(v->count);
        return -1;
    }
    uint64_t i = h & (s->ivhcap - 1);
    while (s->ivh[i])
        i = (i + 1) & (s->ivhcap - 1);
    s->ivh[i] = s->niv + 1;
    return s->niv++;
}

static int ival_open(psk_sim *s, int q, int64_t key)
{
    rank *r = &s->r[q];
    int parent = r->depth ? r->stack[r->depth - 1].node : -1;
    int level = r->depth;
    if ((s->maxdepth && level > s->maxdepth) || level >= MAXNEST) {
        r->skipped++;
        return 0;
    }
    int node = ival_child(s, parent, key, level);
    if (node < 0)
        return PSK_ENOMEM;
    if (r->depth == r->cap) {
        int cap = r->cap ? 2 * r->cap : 8;
        frame *a = realloc(r->stack, (size_t)cap * sizeof *a);
        if (!a)
            return PSK_ENOMEM;
        r->stack = a, r->cap = cap;
    }
    frame *f = &r->stack[r->depth++];
    f->node = node;
    f->t_open = r->t;
    memcpy(f->acc, r->acc, sizeof f->acc);
    s->iv[node].count[q]++;
    return 0;
}

static void ival_close(psk_sim *s, int q)
{
    rank *r = &s->r[q];
    if (!r->depth)
        return;
    frame *f = &r->stack[--r->depth];
    double *m = s->iv[f->node].m + (size_t)q * PSK_M_N;
    m[PSK_M_EXEC] += (r->t - f->t_open) * 1e-9;
    m[PSK_M_CPU] += (r->acc[A_CPU] - f->acc[A_CPU]) * 1e-9;
    m[PSK_M_P2P] += (r->acc[A_P2P] - f->acc[A_P2P]) * 1e-9;
    m[PSK_M_COLL] += (r->acc[A_COLL] - f->acc[A_COLL]) * 1e-9;
    m[PSK_M_WAIT] += (r->acc[A_WAIT] - f->acc[A_WAIT]) * 1e-9;
    m[PSK_M_SYNC] += (r->acc[A_SYNC] - f->acc[A_SYNC]) * 1e-9;
    m[PSK_M_VARIATION] += (r->acc[A_VAR] - f->acc[A_VAR]) * 1e-9;
    m[PSK_M_OVERLAP] += (r->acc[A_OVERLAP] - f->acc[A_OVERLAP]) * 1e-9;
}

/* ---- completing what a rank waits for ---- */

/* ---- the timeline: per rank, PSK_TL_BINS bins of equal width, each
 * holding how much of it went to compute, communication and waiting; when
 * the run outgrows them, neighbouring bins merge and the width doubles, so
 * its size does not depend on the trace's length ---- */

/* the bins cover the run up to b */
static void tl_grow(psk_sim *s, double b)
{
    while (b > s->tl_width * PSK_TL_BINS) {
        for (int r = 0; r < s->P; r++) {
            double *t = s->tl + (size_t)r * PSK_TL_BINS * 3;
            for (int i = 0; i < PSK_TL_BINS / 2; i++)
                for (int k = 0; k < 3; k++)
                    t[3 * i + k] = t[3 * (2 * i) + k] + t[3 * (2 * i + 1) + k];
            memset(t + 3 * (PSK_TL_BINS / 2), 0, 3 * (PSK_TL_BINS / 2) * sizeof *t);
        }
        s->tl_width *= 2;
    }
}

static void tl_add(psk_sim *s, int q, int what, double a, double b)
{
    if (b <= a || !s->opts->timeline)
        return;
    tl_grow(s, b);
    double *t = s->tl + (size_t)q * PSK_TL_BINS * 3;
    int i = (int)(a / s->tl_width);
    if (b <= (i + 1) * s->tl_width) { /* within one bin: most segments */
        t[3 * i + what] += b - a;
        return;
    }
    for (; a < b && i < PSK_TL_BINS; i++) {
        double end = (i + 1) * s->tl_width;
        double piece = (b < end ? b : end) - a;
        t[3 * i + what] += piece;
        a += piece;
    }
}

static int64_t recv_peer(const psk_event *e, int f);
static int64_t bytes_of(const psk_event *e, int cf, int sf);

/* reports (opts.on_call): rank q's current call ran from begin to end */
static void report_call(psk_sim *s, int q, double begin, double end, double sync)
{
    rank *r = &s->r[q];
    const psk_event *e = &r->ev;
    int op = s->opof[e->fn], peer = -1;
    if (PSK_HAS(e, PSK_F_PEER) && op != OP_COLL && op != OP_ICOLL && op != OP_NEWCOMM) {
        int64_t comm = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
        int w = world_of(s, q, comm, recv_peer(e, PSK_F_PEER));
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
    tl_add(s, q, 2, r->tcall, r->tcall + sync);
    tl_add(s, q, 1, r->tcall + sync, end);
    if (s->opts->on_call && r->in_block) /* in_block stays set: advance() does not report the call again */
        report_call(s, q, r->tcall, end, sync);
    r->t = end;
    r->state = 0;
    if (r->core >= 0) /* on a shared core: it goes on once it has its core (sim_cores.c) */
        r->cdone = end;
    if (!r->running) {
        if (r->core >= 0)
            r->cphase = CP_RESUME;
        ready_push(s, q);
    }
}

/* one of the things rank q's blocking call waits for is done at t; the
 * partner (the other side) arrived at partner */
static void resolve(psk_sim *s, int q, double t, double partner)
{
    rank *r = &s->r[q];
    if (t > r->tdone)
        r->tdone = t;
    if (partner > r->partner)
        r->partner = partner;
    if (--r->nwait == 0)
        finish_call(s, q);
}

/* rank q's request is done at t; its transfer ran from begin to end */
static void req_done(psk_sim *s, int q, int64_t id, double t, double begin, double end, double partner)
{
    rank *r = &s->r[q];
    sreq *x = req_get(r, id);
    if (!x || !x->used)
        return;
    x->pending = 0;
    x->done = t, x->begin = begin, x->end = end, x->partner = partner;
    if (!x->waited)
        return;
    /* a Wait is blocked on it: what moved before the Wait was overlap */
    x->waited = 0;
    double a = begin > x->post ? begin : x->post, b = end < r->tcall ? end : r->tcall;
    if (x->kind != 3 && b > a)
        r->acc[A_OVERLAP] += b - a;
    if (x->persistent)
        x->active = 0;
    else
        x->used = 0;
    resolve(s, q, t, partner);
}

/* ---- point to point ---- */

static int match_tag(int64_t want, int64_t tag) { return want == PSK_ANY_TAG || want == tag; }

/* a message meets its receive: times for both sides */
static void meet(psk_sim *s, msg *mg, int dst, double rpost, int64_t rreq)
{
    double begin, end;
    if (mg->rdv) {
        double ready = mg->post > rpost ? mg->post : rpost;
        if (s->ncores) /* the receiver takes it (where it waits busily on a shared core: in its turn) */
            ready = psk_simi_core_turn(s, dst, ready);
        end = psk_net_transfer(&s->net, mg->src, dst, mg->bytes, ready, &begin);
        if (mg->sender_blocked)
            resolve(s, mg->src, end, rpost);
        else if (mg->sreq >= 0)
            req_done(s, mg->src, mg->sreq, end, begin, end, rpost);
    } else {
        end = mg->arrive;
        begin = mg->post;
    }
    double done = end > rpost ? end : rpost;
    if (rreq >= 0)
        req_done(s, dst, rreq, done, begin, end, mg->post);
    else
        resolve(s, dst, done, mg->post);
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
    resolve(s, dst, env, mg->post);
}

/* tagf: the field of rank q's current event the tag comes from, -1 if it
 * comes from elsewhere (a persistent request's init) */
static int post_send(psk_sim *s, int q, int dst, int64_t comm, int64_t tag, int64_t bytes, int64_t sreq, int blocking,
                     int tagf)
{
    rank *r = &s->r[q];
    if (dst == -2) { /* MPI_PROC_NULL */
        if (sreq >= 0)
            req_done(s, q, sreq, r->t, r->t, r->t, r->t);
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
            req_done(s, q, sreq, r->t, begin, mg->arrive, r->t);
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
                meet(s, mg, dst, p->post, p->rreq);
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
static int post_recv(psk_sim *s, int q, int src, int64_t comm, int64_t tag, int64_t bytes, int64_t rreq, int probe,
                     int tagf)
{
    rank *r = &s->r[q];
    if (src == -2) {
        if (rreq >= 0)
            req_done(s, q, rreq, r->t, r->t, r->t, r->t);
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
            meet(s, mg, q, r->t, rreq);
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
                          .turn = s->ncores && !s->share_yield ? core_turn : NULL, .turn_arg = s};
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
            req_done(s, q, c->reqs[i], c->done[i], c->arrive[i], c->done[i], last);
        else
            resolve(s, q, c->done[i], last);
    }
}

/* rank q arrives at a collective of kind coll on communicator comm */
static int coll_arrive(psk_sim *s, int q, int64_t comm, int coll, const psk_event *e, int64_t rreq)
{
    rank *r = &s->r[q];
    cmem *cm = comm_get(s, r, q, comm);
    if (!cm)
        return fail(s, PSK_EFORMAT, "rank %d: %s on communicator %lld, which it never created", q,
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
        c->next = s->colls;
        s->colls = c;
    }
    c->arrive[cm->me] = r->t;
    c->reqs[cm->me] = rreq;
    c->own[cm->me] = own_block(e, coll, cm->me, cm->n);
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
        members_free(s, c->world);
        free(c->arrive), free(c->done), free(c->reqs), free(c->own);
        free(c);
    }
    return 0;
}

/* ---- waiting for requests ---- */

/* rank q's Wait-family call (at its tcall) waits for request id; the part
 * of its transfer that ran before the call was hidden behind work */
static void wait_one(psk_sim *s, int q, int64_t id)
{
    rank *r = &s->r[q];
    sreq *x = req_get(r, id);
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
    double a = x->begin > x->post ? x->begin : x->post, b = x->end < r->tcall ? x->end : r->tcall;
    if (x->kind != 3 && b > a)
        r->acc[A_OVERLAP] += b - a;
    if (x->persistent)
        x->active = 0;
    else
        x->used = 0;
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
static int64_t recorded_source(psk_sim *s, int q, uint64_t idx)
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
    sreq *x = req_get(&s->r[q], e->v[PSK_F_REQ]);
    if (!x)
        return -1;
    memset(x, 0, sizeof *x);
    x->used = 1, x->pending = 1, x->kind = kind, x->persistent = persistent, x->post = s->r[q].t;
    return (int)e->v[PSK_F_REQ];
}

static int start_req(psk_sim *s, int q, int64_t id)
{
    rank *r = &s->r[q];
    sreq *x = req_get(r, id);
    if (!x || !x->used || !x->persistent)
        return 0;
    x->pending = 1, x->active = 1, x->post = r->t, x->waited = 0;
    int peer = world_of(s, q, x->comm, x->peer);
    if (x->kind == 1)
        return post_send(s, q, peer, x->comm, x->tag, x->bytes, id, 0, -1);
    return post_recv(s, q, peer, x->comm, x->tag, x->bytes, id, 0, -1);
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

/* the message rank q's MPI_Mrecv / MPI_Imrecv receives, unlinked from
 * those its matched probes took: the first from the source and with the
 * tag its status recorded (Mrecv's), else the first (Imrecv records
 * neither); NULL for MPI_MESSAGE_NO_PROC or if there is none */
static msg *take_probed(psk_sim *s, int q, const psk_event *e)
{
    rank *r = &s->r[q];
    int has = PSK_HAS(e, PSK_F_ASRC);
    if (has && e->v[PSK_F_ASRC] == PSK_PROC_NULL)
        return NULL;
    msg *pick = NULL, *pprev = NULL;
    for (msg *mg = r->matched, *prev = NULL; mg; prev = mg, mg = mg->next) {
        if (!pick)
            pick = mg, pprev = prev;
        if (has && world_of(s, q, mg->comm, e->v[PSK_F_ASRC]) == mg->src &&
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

static int bad_peer(psk_sim *s, int q, const psk_event *e)
{
    rank *r = &s->r[q];
    int64_t c = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
    if (c >= 0 && c < r->ncomm && r->comm[c].world && r->comm[c].inter)
        return fail(s, PSK_EINVAL, "rank %d: %s (event %llu) on an intercommunicator: point to point between "
                                   "the groups of an intercommunicator is not simulated (not supported yet)",
                    q, psk_fn_name(e->fn), (unsigned long long)r->nread);
    return fail(s, PSK_EFORMAT, "rank %d: %s (event %llu) names a peer outside its communicator", q,
                psk_fn_name(e->fn), (unsigned long long)r->nread);
}

/* MPI_Cancel of rank q's request id: a receive not matched yet is taken
 * off the posted receives, a send not matched yet off its destination's
 * unexpected messages, and the request is complete, cancelled, at once;
 * one matched already completes as it would have (MPI cancels only what
 * has not matched). Either way the Wait, Test or Request_free the program
 * completes it with frees it. A cancelled receive left posted would take
 * the next message that matches it (a wildcard: any), whose own receive
 * would then wait forever. */
static void cancel_req(psk_sim *s, int q, int64_t id)
{
    rank *r = &s->r[q];
    sreq *x = req_get(r, id);
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
        req_done(s, q, id, r->t, r->t, r->t, 0);
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

static int new_comm(psk_sim *s, int q, const psk_event *e)
{
    rank *r = &s->r[q];
    if (!PSK_HAS(e, PSK_F_NEWID) || e->v[PSK_F_NEWID] < 2 || !PSK_HAS(e, PSK_F_MEMBERS))
        return 0;
    cmem *m = comm_slot(r, e->v[PSK_F_NEWID]);
    if (!m)
        return 0; /* an id beyond any real program's: not followed */
    free(m->world);
    uint32_t nm = PSK_ARRN(e, PSK_F_MEMBERS);
    m->world = malloc((nm ? nm : 1) * sizeof *m->world);
    if (!m->world)
        return PSK_ENOMEM;
    m->n = (int)nm, m->me = -1, m->seq = 0;
    m->inter = !strcmp(psk_fn_name(e->fn), "MPI_Intercomm_create");
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
        return fail(s, PSK_EFORMAT, "rank %d: %s makes communicator %lld of %u members, %s", q, psk_fn_name(e->fn),
                    (long long)e->v[PSK_F_NEWID], nm, out ? "not all ranks of the job" : "none of them this rank");
    }
    return 0;
}

/* runs rank q's current event at its clock; a blocking call leaves nwait
 * above 0 if the rank must wait */
static int execute(psk_sim *s, int q)
{
    rank *r = &s->r[q];
    psk_event *e = &r->ev;
    int op = s->opof[e->fn], rc = 0;
    int64_t comm = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
    switch (op) {
    case OP_FINALIZE:
        r->finalize = r->t;
        while (r->depth)
            ival_close(s, q);
        r->state = 2;
        return 0;
    case OP_PCONTROL: {
        int64_t lv = PSK_HAS(e, PSK_F_I1) ? e->v[PSK_F_I1] : 0;
        if (lv >= 2)
            return ival_open(s, q, lv);
        if (lv <= -2 && r->skipped)
            r->skipped--;
        else if (lv <= -2 && lv > INT64_MIN && r->depth > 1 && s->iv[r->stack[r->depth - 1].node].key == -lv)
            ival_close(s, q);
        return 0;
    }
    case OP_SEND:
    case OP_RECV:
    case OP_SENDRECV:
    case OP_SENDRECV_REPLACE: {
        int to = op == OP_RECV ? -2 : world_of(s, q, comm, e->v[PSK_F_PEER]);
        int from = op == OP_SEND ? -2 : world_of(s, q, comm, recv_peer(e, op == OP_RECV ? PSK_F_PEER : PSK_F_RPEER));
        if (to == -3 || to == -1 || from == -3)
            return bad_peer(s, q, e);
        int64_t sb = bytes_of(e, PSK_F_COUNT, PSK_F_DTSIZE);
        int64_t rb = op == OP_SENDRECV ? bytes_of(e, PSK_F_RCOUNT, PSK_F_RDTSIZE) : sb;
        int64_t rtag = op == OP_RECV ? e->v[PSK_F_TAG] : e->v[PSK_F_RTAG];
        block(r, A_P2P);
        if (op != OP_RECV && (rc = post_send(s, q, to, comm, e->v[PSK_F_TAG], sb, -1, 1, PSK_F_TAG)))
            return rc;
        int rtagf = op == OP_RECV ? PSK_F_TAG : PSK_F_RTAG;
        if (op != OP_SEND && (rc = post_recv(s, q, from, comm, rtag, rb, -1, 0, rtagf)))
            return rc;
        unblock(s, q);
        return 0;
    }
    case OP_ISEND:
    case OP_IRECV: {
        int peer = world_of(s, q, comm, e->v[PSK_F_PEER]);
        if (peer == -3 || (peer == -1 && op == OP_ISEND))
            return bad_peer(s, q, e);
        int64_t b = bytes_of(e, PSK_F_COUNT, PSK_F_DTSIZE);
        if (op == OP_ISEND)
            return post_send(s, q, peer, comm, e->v[PSK_F_TAG], b, new_req(s, q, e, 1, 0), 0, PSK_F_TAG);
        if (peer == -1) { /* a wildcard: the source the run matched it with */
            int64_t src = recorded_source(s, q, r->nread - 1);
            int w = src >= 0 ? world_of(s, q, comm, src) : -1;
            peer = w >= 0 ? w : -1;
        }
        return post_recv(s, q, peer, comm, e->v[PSK_F_TAG], b, new_req(s, q, e, 2, 0), 0, PSK_F_TAG);
    }
    case OP_MPROBE: {
        /* it takes the message a receive would (an Improbe that found
         * nothing takes nothing); one the run found may not be there yet
         * in the model: the probe waits for it */
        if (PSK_HAS(e, PSK_F_FLAG) && !e->v[PSK_F_FLAG])
            return 0;
        int from = world_of(s, q, comm, recv_peer(e, PSK_F_PEER));
        if (from == -2)
            return 0; /* MPI_PROC_NULL: MPI_MESSAGE_NO_PROC */
        if (from == -3)
            return bad_peer(s, q, e);
        block(r, A_P2P);
        if ((rc = post_recv(s, q, from, comm, e->v[PSK_F_TAG], 0, -1, 1, PSK_F_TAG)))
            return rc;
        unblock(s, q);
        return 0;
    }
    case OP_MRECV: {
        msg *mg = take_probed(s, q, e);
        int64_t rreq = new_req(s, q, e, 2, 0);
        if (!mg) {
            if (rreq >= 0)
                req_done(s, q, rreq, r->t, r->t, r->t, r->t);
            return 0;
        }
        if (rreq >= 0) {
            meet(s, mg, q, r->t, rreq);
        } else {
            block(r, A_P2P);
            r->nwait++;
            meet(s, mg, q, r->t, -1);
            unblock(s, q);
        }
        mg->next = s->free_msg, s->free_msg = mg;
        return 0;
    }
    case OP_SEND_INIT:
    case OP_RECV_INIT: {
        int id = new_req(s, q, e, op == OP_SEND_INIT ? 1 : 2, 1);
        sreq *x = id >= 0 ? req_get(r, id) : NULL;
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
        cancel_req(s, q, e->v[PSK_F_REQ]);
        return 0;
    case OP_FREE: {
        sreq *x = req_get(r, e->v[PSK_F_REQ]);
        if (x && x->used && !x->pending && !x->waited)
            x->used = 0;
        return 0;
    }
    case OP_COLL:
    case OP_NEWCOMM:
        block(r, A_COLL);
        if ((rc = coll_arrive(s, q, comm, s->collof[e->fn], e, -1)))
            return rc;
        if (op == OP_NEWCOMM && (rc = new_comm(s, q, e)))
            return rc;
        unblock(s, q);
        return 0;
    case OP_NEWCOMM_GROUP: {
        /* MPI_Comm_create_group: collective over the group's members only,
         * the members of the communicator it makes (its first collective) */
        if (!PSK_HAS(e, PSK_F_NEWID) || e->v[PSK_F_NEWID] < 2 || !PSK_HAS(e, PSK_F_MEMBERS))
            return 0;
        if ((rc = new_comm(s, q, e)))
            return rc;
        if (!comm_get(s, r, q, e->v[PSK_F_NEWID]))
            return 0; /* an id not followed */
        block(r, A_COLL);
        if ((rc = coll_arrive(s, q, e->v[PSK_F_NEWID], s->collof[e->fn], e, -1)))
            return rc;
        unblock(s, q);
        return 0;
    }
    case OP_ICOLL:
        return coll_arrive(s, q, comm, s->collof[e->fn], e, new_req(s, q, e, 3, 0));
    default:
        return 0; /* MPI_Init, local calls, probes: no time in the model */
    }
}

/* ---- the loop ---- */

/* interval key is entered or left before rank q's current event */
static void apply_mark(psk_sim *s, int q, int64_t key, int enter)
{
    rank *r = &s->r[q];
    if (enter) {
        if (ival_open(s, q, key))
            s->failed = 1, snprintf(s->err, sizeof s->err, "out of memory");
    } else if (r->skipped) {
        r->skipped--;
    } else if (r->depth > 1 && s->iv[r->stack[r->depth - 1].node].key == key) {
        ival_close(s, q);
    }
}

/* the intervals marks open or close before rank q's current event */
static void apply_marks(psk_sim *s, int q)
{
    rank *r = &s->r[q];
    const psk_sim_marks *mk = &s->opts->marks[q];
    while (r->next_mark < mk->n && mk->mark[r->next_mark].event <= r->nread) {
        const psk_sim_mark *m = &mk->mark[r->next_mark++];
        apply_mark(s, q, MARK_KEY(m->key), m->enter);
    }
}

/* for a call that may wait for another rank, the total its time goes to
 * (the segments of a loop's iteration end at them, sim_skip.c); else -1 */
static int blocking(int op)
{
    switch (op) {
    case OP_SEND: case OP_RECV: case OP_SENDRECV: case OP_SENDRECV_REPLACE: case OP_MPROBE: case OP_MRECV:
        return A_P2P;
    case OP_WAIT: case OP_WAITALL: case OP_WAITANY: case OP_WAITSOME: case OP_TEST: case OP_TESTALL:
    case OP_TESTANY: case OP_TESTSOME:
        return A_WAIT;
    case OP_COLL: case OP_NEWCOMM: case OP_NEWCOMM_GROUP:
        return A_COLL;
    default:
        return -1;
    }
}

/* the recorded gaps could not be read (psk_fgaps_next's rc) */
static int gaps_fail(psk_sim *s, int rc)
{
    if (rc == PSK_EOF)
        return fail(s, PSK_EINVAL, "the merged trace does not match its folding");
    if (rc == PSK_ENOMEM)
        return fail(s, rc, "out of memory");
    return fail(s, rc, "%s", psk_fgaps_errmsg(s->gaps));
}

/* folded: the loop intervals rank q's cursor enters and leaves before its
 * current event, and if the event begins an iteration of a loop that can
 * be skipped, the snapshot for that (after the loops around the iteration
 * are entered, before those inside it are) */
static int folded_marks(psk_sim *s, int q)
{
    rank *r = &s->r[q];
    int n, i = 0;
    const psk_fmark *mk = psk_fcursor_marks(r->fc, &n);
    int32_t node;
    int64_t exec, iter, count;
    int began = psk_fcursor_began(r->fc, &node, &exec, &iter, &count);
    for (; i < n && !(began && mk[i].enter && mk[i].inner); i++)
        apply_mark(s, q, MARK_KEY(mk[i].node), mk[i].enter);
    int rc = began ? psk_simi_boundary(s, q, node, exec, iter, count) : PSK_OK;
    if (rc) /* out of memory, or the recorded gaps of iterations skipped could not be read */
        return gaps_fail(s, rc);
    for (; i < n; i++)
        apply_mark(s, q, MARK_KEY(mk[i].node), mk[i].enter);
    return 0;
}

double psk_simi_poll_ns(const psk_sim *s, int q, double gap_ns, double calls, double failed)
{
    if (!(failed > 0))
        return 0;
    double us = gap_ns * s->poll_scale[q] / (calls > 1 ? calls : 1) / 1e3;
    double each = s->m->poll ? psk_machine_poll_us(s->m, us) : 0;
    /* polls under 1 us of compute apart wait busily: how many there were
     * is how long the wait took, which the replay has; they cost one */
    if (us < 1)
        return 1e3 * each;
    /* a poll that yields beside another rank of its core hands the core
     * over and takes it back: the switch's cost, where that is more */
    if (psk_simi_core_contended(s, q) && s->m->switch_us > each)
        each = s->m->switch_us;
    return failed * 1e3 * each;
}

/* the whole trace: rank q's event r->ev came rec_gap ns after the last; a
 * run of polls (psk_event_failed_polls) is costed as one when it ends, by
 * a call that found, its Wait, or another call: the ns to add now */
static double whole_poll_ns(psk_sim *s, int q, double rec_gap, int at_end)
{
    rank *r = &s->r[q];
    const psk_event *e = &r->ev;
    double pc = 0;
    if (r->prun_on) {
        if (!at_end && (e->fn == r->prun_fn || e->fn == psk_fn_poll_wait(r->prun_fn)) &&
            e->thread == r->prun_thread && psk_event_poll_key(e) == r->prun_key) {
            r->in_prun = 1; /* merging makes it part of the run's event */
            r->prun_gap += rec_gap;
            r->prun_calls++;
            if (e->fn == r->prun_fn && !psk_event_found(e)) {
                r->prun_failed++;
                return 0;
            }
            r->prun_on = 0;
            return psk_simi_poll_ns(s, q, r->prun_gap, r->prun_calls, r->prun_failed);
        }
        r->prun_on = 0;
        pc = psk_simi_poll_ns(s, q, r->prun_gap, r->prun_calls, r->prun_failed);
    }
    if (!at_end && psk_fn_poll_wait(e->fn) && !psk_event_found(e)) {
        r->prun_on = 1, r->prun_fn = e->fn, r->prun_key = psk_event_poll_key(e), r->prun_thread = e->thread;
        r->prun_gap = rec_gap, r->prun_calls = 1, r->prun_failed = 1;
    }
    return pc;
}

static int next_event(psk_sim *s, int q)
{
    rank *r = &s->r[q];
    uint64_t prev = r->prev_exit;
    int first = r->ev.fn == 0;
    psk_fgap fgap = {0, 1, 0};
    int rc = r->fc ? psk_fcursor_next(r->fc, &r->ev) : psk_rank_next(r->rd, &r->ev);
    if (r->fc && rc == PSK_OK && (rc = psk_fgaps_next(s->gaps, q, &fgap)))
        return gaps_fail(s, rc);
    if (rc == PSK_ETRUNCATED && !first) {
        /* the job did not finish (killed, aborted): the rank ends here, and
         * the report says so */
        if (!s->ended_early++)
            snprintf(s->early_msg, sizeof s->early_msg, "%s", psk_rank_errmsg(r->rd));
        rc = PSK_EOF;
    }
    if (rc == PSK_EOF) {
        r->state = 2;
        if (!r->fc && r->prun_on) /* polls the trace ends with (merging keeps them) */
            r->t += whole_poll_ns(s, q, 0, 1);
        if (!r->finalize)
            r->finalize = r->t;
        while (r->depth)
            ival_close(s, q);
        return 0;
    }
    if (rc)
        return r->fc ? fail(s, rc, "out of memory") : fail(s, rc, "%s", psk_rank_errmsg(r->rd));
    if (r->multiple && r->ev.thread)
        return fail(s, PSK_EINVAL, "rank %d made its MPI calls from more than one thread under "
                                   "MPI_THREAD_MULTIPLE (event %llu from thread %d): they cannot be replayed in "
                                   "one order", q, (unsigned long long)r->nread + 1, r->ev.thread);
    if (r->fc)
        psk_fcursor_origin(r->fc, &r->onode, &r->oexec);
    s->events++;
    s->replayed++;
    if (r->fc) {
        psk_simi_pre_event(s, q);
        if (folded_marks(s, q))
            return PSK_EFORMAT;
    } else if (s->opts->marks) {
        apply_marks(s, q);
    }
    r->nread++;
    r->in_prun = 0;
    double gap = 0, pc = 0;
    if (!first && s->opof[r->ev.fn] != OP_INIT) {
        gap = r->fc ? fgap.gap : r->ev.t_entry > prev ? (double)(r->ev.t_entry - prev) : 0;
        /* polls that found nothing cost what the machine says (calibrate) */
        pc = r->fc ? psk_simi_poll_ns(s, q, gap, fgap.calls, fgap.failed) : whole_poll_ns(s, q, gap, 0);
        gap *= s->inv_power[q] * s->deflate[q];
        if (r->core >= 0) { /* on a shared core: the CPU it needs, timed by the core's schedule */
            r->work = gap + (pc > 0 ? pc : 0);
            pc = 0;
            gap = 0;
        }
        tl_add(s, q, 0, r->t, r->t + gap);
        r->t += gap;
        r->acc[A_CPU] += gap;
        if (pc > 0) { /* counted as compute: sim_skip.c takes it from the gaps as it does compute */
            tl_add(s, q, 1, r->t, r->t + pc);
            r->t += pc;
            r->acc[A_CPU] += pc;
        }
    }
    /* what the call takes at least: the recording's own cost of its class */
    psk_simi_cc_floor(s, q);
    if (r->fc && psk_simi_event(s, q, blocking(s->opof[r->ev.fn]), gap + pc))
        return fail(s, PSK_ENOMEM, "out of memory");
    r->prev_exit = r->ev.t_exit;
    return 1;
}

/* operations that may book the network or meet another rank's messages
 * or collectives must run in order of simulated time; waits, tests and
 * local calls only look at what is already decided and need not */
static int ordered(int op)
{
    switch (op) {
    case OP_WAIT: case OP_WAITALL: case OP_WAITANY: case OP_WAITSOME: case OP_TEST: case OP_TESTALL:
    case OP_TESTANY: case OP_TESTSOME: case OP_OTHER: case OP_INIT: case OP_LOCAL: case OP_FREE:
    case OP_SEND_INIT: case OP_RECV_INIT: case OP_PROBE:
        return 0;
    default:
        return 1;
    }
}

/* asks the caches for what rank n's next event reads (its record, its
 * cursor, its next gap): called for the rank likely to run after the one
 * running now (the earliest ready one), so that those loads, which at
 * many ranks miss every cache, overlap the running rank's work. A hint:
 * nothing it does changes the replay. */
static void prefetch_rank(const psk_sim *s, int n)
{
    const rank *r = &s->r[n];
    for (size_t o = 0; o < sizeof *r; o += 64)
        __builtin_prefetch((const char *)r + o, 1);
    if (s->fc_block) { /* addresses computed, not loaded: nothing here waits for memory */
        psk_fcursor_prefetch(psk_fcursor_in_block(s->fc_block, n));
        psk_fgaps_prefetch(s->gaps, n);
        psk_simi_skip_prefetch(s, n);
    }
}

/* runs rank q until it blocks, finishes, or is no longer the earliest;
 * in that last case *next is the rank to run now (q was made ready, with
 * its next event read and its compute gap before it counted), else -1 */
static int advance(psk_sim *s, int q, int *next)
{
    rank *r = &s->r[q];
    if (s->gaps) /* where its next gap is was asked for when it was next to run */
        psk_fgaps_prefetch_gap(s->gaps, q);
    r->running = 1;
    *next = -1;
    if (s->nready)
        prefetch_rank(s, ready_top(s));
    if (r->cphase && psk_simi_core_pop(s, q)) { /* put back to wait for its core */
        r->running = 0;
        return 0;
    }
    int rc = 0;
    for (;;) {
        if (!r->has_ev) {
            if ((rc = next_event(s, q)) <= 0)
                break;
            if (r->core >= 0 && r->work > 0) { /* its compute ends when its core's schedule says */
                psk_simi_core_work(s, q);
                r->has_ev = 1;
                *next = ready_replace_top(s, q);
                break;
            }
            if (s->ordered[r->ev.fn] && s->nready && passed(s, q)) {
                r->has_ev = 1;
                *next = ready_replace_top(s, q);
                break;
            }
        }
        r->has_ev = 0;
        r->nwait = 0;
        r->in_block = 0;
        double t0 = r->t;
        if ((rc = execute(s, q)))
            break;
        if (!r->in_block && r->floor > 0 && r->state != 2) { /* a call the model gives no time: its own cost */
            int op = s->opof[r->ev.fn];
            int cls = op == OP_ICOLL ? A_COLL : op == OP_WAIT || op == OP_WAITALL || op == OP_WAITANY ||
                      op == OP_WAITSOME || op == OP_TEST || op == OP_TESTALL || op == OP_TESTANY ||
                      op == OP_TESTSOME ? A_WAIT : A_P2P;
            tl_add(s, q, 1, r->t, r->t + r->floor);
            r->acc[cls] += r->floor;
            r->t += r->floor;
        }
        if (s->opts->on_call && !r->in_block && s->opof[r->ev.fn] != OP_INIT && s->opof[r->ev.fn] != OP_PCONTROL)
            report_call(s, q, t0, r->t, 0); /* a call that took no time in the model but its own cost */
        if (s->opts->progress && (s->events & ((1u << 20) - 1)) == 0)
            s->opts->progress(s->opts->progress_arg, s->events, 0);
        if (r->state == 2)
            break;
        if (r->nwait > 0) { /* blocked until resolve() makes it ready */
            r->state = 1;
            if (r->core >= 0 && s->share_yield) /* it gives its core away while it waits */
                psk_simi_core_leave(s, q, r->t);
            break;
        }
        if (r->core >= 0 && r->t > t0) { /* it waited in the call for what was decided already */
            if (s->share_yield)
                psk_simi_core_leave(s, q, t0);
            r->cdone = r->t;
            r->cphase = CP_RESUME;
            *next = ready_replace_top(s, q);
            break;
        }
    }
    r->running = 0;
    if (r->core >= 0 && r->state == 2 && r->want)
        psk_simi_core_leave(s, q, r->t);
    return rc < 0 ? rc : 0;
}

/* every rank blocked: release the earliest blocked rendezvous send as if
 * MPI had buffered it (the real run did not deadlock) */
static int unblock_sends(psk_sim *s)
{
    msg *best = NULL;
    for (int q = 0; q < s->P; q++)
        for (int k = 0; k < 2; k++) /* not yet matched, or taken by a matched probe */
            for (msg *mg = k ? s->r[q].matched : s->r[q].unexp; mg; mg = mg->next)
                if (mg->sender_blocked && (!best || mg->post < best->post))
                    best = mg;
    if (!best)
        return 0;
    best->sender_blocked = 0;
    best->buffered = 1;
    s->buffered++;
    resolve(s, best->src, best->post, 0);
    return 1;
}

static void set_ops(psk_sim *s)
{
    static const struct { const char *name; int op, coll; } tab[] = {
        {"MPI_Init", OP_INIT, -1}, {"MPI_Init_thread", OP_INIT, -1}, {"MPI_Finalize", OP_FINALIZE, -1},
        {"MPI_Pcontrol", OP_PCONTROL, -1}, {"MPI_Send", OP_SEND, -1}, {"MPI_Bsend", OP_SEND, -1},
        {"MPI_Ssend", OP_SEND, -1}, {"MPI_Rsend", OP_SEND, -1}, {"MPI_Isend", OP_ISEND, -1},
        {"MPI_Ibsend", OP_ISEND, -1}, {"MPI_Issend", OP_ISEND, -1}, {"MPI_Irsend", OP_ISEND, -1},
        {"MPI_Recv", OP_RECV, -1}, {"MPI_Mprobe", OP_MPROBE, -1}, {"MPI_Improbe", OP_MPROBE, -1},
        {"MPI_Mrecv", OP_MRECV, -1}, {"MPI_Imrecv", OP_MRECV, -1}, {"MPI_Irecv", OP_IRECV, -1},
        {"MPI_Sendrecv", OP_SENDRECV, -1}, {"MPI_Sendrecv_replace", OP_SENDRECV_REPLACE, -1},
        {"MPI_Send_init", OP_SEND_INIT, -1}, {"MPI_Bsend_init", OP_SEND_INIT, -1},
        {"MPI_Ssend_init", OP_SEND_INIT, -1}, {"MPI_Rsend_init", OP_SEND_INIT, -1},
        {"MPI_Recv_init", OP_RECV_INIT, -1}, {"MPI_Start", OP_START, -1}, {"MPI_Startall", OP_STARTALL, -1},
        {"MPI_Wait", OP_WAIT, -1}, {"MPI_Waitall", OP_WAITALL, -1}, {"MPI_Waitany", OP_WAITANY, -1},
        {"MPI_Waitsome", OP_WAITSOME, -1}, {"MPI_Test", OP_TEST, -1}, {"MPI_Testall", OP_TESTALL, -1},
        {"MPI_Testany", OP_TESTANY, -1}, {"MPI_Testsome", OP_TESTSOME, -1}, {"MPI_Request_free", OP_FREE, -1},
        {"MPI_Cancel", OP_CANCEL, -1}, {"MPI_Barrier", OP_COLL, PSK_COLL_BARRIER},
        {"MPI_Bcast", OP_COLL, PSK_COLL_BCAST}, {"MPI_Gather", OP_COLL, PSK_COLL_GATHER},
        {"MPI_Gatherv", OP_COLL, PSK_COLL_GATHER}, {"MPI_Scatter", OP_COLL, PSK_COLL_SCATTER},
        {"MPI_Scatterv", OP_COLL, PSK_COLL_SCATTER}, {"MPI_Allgather", OP_COLL, PSK_COLL_ALLGATHER},
        {"MPI_Allgatherv", OP_COLL, PSK_COLL_ALLGATHER}, {"MPI_Alltoall", OP_COLL, PSK_COLL_ALLTOALL},
        {"MPI_Alltoallv", OP_COLL, PSK_COLL_ALLTOALL}, {"MPI_Alltoallw", OP_COLL, PSK_COLL_ALLTOALL},
        {"MPI_Reduce", OP_COLL, PSK_COLL_REDUCE}, {"MPI_Allreduce", OP_COLL, PSK_COLL_ALLREDUCE},
        {"MPI_Reduce_scatter", OP_COLL, PSK_COLL_REDUCE_SCATTER},
        {"MPI_Reduce_scatter_block", OP_COLL, PSK_COLL_REDUCE_SCATTER}, {"MPI_Scan", OP_COLL, PSK_COLL_SCAN},
        {"MPI_Exscan", OP_COLL, PSK_COLL_SCAN}, {"MPI_Ibarrier", OP_ICOLL, PSK_COLL_BARRIER},
        {"MPI_Ibcast", OP_ICOLL, PSK_COLL_BCAST}, {"MPI_Igather", OP_ICOLL, PSK_COLL_GATHER},
        {"MPI_Igatherv", OP_ICOLL, PSK_COLL_GATHER}, {"MPI_Iscatter", OP_ICOLL, PSK_COLL_SCATTER},
        {"MPI_Iscatterv", OP_ICOLL, PSK_COLL_SCATTER}, {"MPI_Iallgather", OP_ICOLL, PSK_COLL_ALLGATHER},
        {"MPI_Iallgatherv", OP_ICOLL, PSK_COLL_ALLGATHER}, {"MPI_Ialltoall", OP_ICOLL, PSK_COLL_ALLTOALL},
        {"MPI_Ialltoallv", OP_ICOLL, PSK_COLL_ALLTOALL}, {"MPI_Ialltoallw", OP_ICOLL, PSK_COLL_ALLTOALL},
        {"MPI_Ireduce", OP_ICOLL, PSK_COLL_REDUCE}, {"MPI_Iallreduce", OP_ICOLL, PSK_COLL_ALLREDUCE},
        {"MPI_Ireduce_scatter", OP_ICOLL, PSK_COLL_REDUCE_SCATTER},
        {"MPI_Ireduce_scatter_block", OP_ICOLL, PSK_COLL_REDUCE_SCATTER}, {"MPI_Iscan", OP_ICOLL, PSK_COLL_SCAN},
        {"MPI_Iexscan", OP_ICOLL, PSK_COLL_SCAN}, {"MPI_Comm_dup", OP_NEWCOMM, PSK_COLL_BARRIER},
        {"MPI_Comm_dup_with_info", OP_NEWCOMM, PSK_COLL_BARRIER}, {"MPI_Comm_split", OP_NEWCOMM, PSK_COLL_ALLGATHER},
        {"MPI_Comm_split_type", OP_NEWCOMM, PSK_COLL_ALLGATHER}, {"MPI_Comm_create", OP_NEWCOMM, PSK_COLL_BARRIER},
        {"MPI_Comm_create_group", OP_NEWCOMM_GROUP, PSK_COLL_BARRIER},
        {"MPI_Cart_create", OP_NEWCOMM, PSK_COLL_BARRIER}, {"MPI_Cart_sub", OP_NEWCOMM, PSK_COLL_ALLGATHER},
        {"MPI_Intercomm_create", OP_NEWCOMM, PSK_COLL_BARRIER}, {"MPI_Intercomm_merge", OP_NEWCOMM, PSK_COLL_ALLGATHER},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        unsigned fn = psk_fn_lookup(tab[i].name);
        if (fn) {
            s->opof[fn] = (uint8_t)tab[i].op;
            s->collof[fn] = (int8_t)tab[i].coll;
        }
    }
    /* a run of polls (merged traces) is the test it polls with; the compute
     * it overlapped comes before it (sim_fprog.c), so it completes at the
     * later of that compute's end and its requests' completion */
    for (unsigned fn = 1; fn < psk_fn_count(); fn++)
        if (psk_fn_polled(fn))
            s->opof[fn] = s->opof[psk_fn_polled(fn)];
}

/* what both sources of events share: tables, power, network, program interval */
static int setup(psk_sim *s, const psk_job *job, const psk_sim_opts *o)
{
    s->P = job->nranks;
    s->format_version = job->format_version;
    s->m = o->machine;
    s->maxdepth = o->depth;
    s->opts = o;
    s->eval_node = -1;
    s->opof = calloc(psk_fn_count(), 1);
    s->collof = calloc(psk_fn_count(), 1);
    s->ordered = calloc(psk_fn_count(), 1);
    s->r = psk_big_calloc((size_t)s->P, sizeof *s->r);
    s->inv_power = malloc((size_t)s->P * sizeof *s->inv_power);
    s->poll_scale = malloc((size_t)s->P * sizeof *s->poll_scale);
    s->deflate = malloc((size_t)s->P * sizeof *s->deflate);
    s->crowded = calloc((size_t)s->P, 1);
    s->tl = calloc((size_t)s->P * PSK_TL_BINS * 3, sizeof *s->tl);
    s->tl_width = 1000; /* 1 us */
    if (!s->opof || !s->collof || !s->ordered || !s->r || tree_init(s) || !s->inv_power || !s->poll_scale || !s->deflate ||
        !s->crowded || !s->tl)
        return fail(s, PSK_ENOMEM, "out of memory");
    set_ops(s);
    if (psk_simi_cc_init(s))
        return fail(s, PSK_ENOMEM, "out of memory");
    for (int q = 0; q < s->P; q++) {
        s->r[q].onode = -1; /* folded replays say where each event comes from */
        s->r[q].core = -1;
        s->deflate[q] = 1;
    }
    for (unsigned fn = 0; fn < psk_fn_count(); fn++)
        s->ordered[fn] = (uint8_t)ordered(s->opof[fn]);
    /* each rank's CPU power (psk_machine_rank_power: the power keys, or
     * from calibrate's timings of the work unit against the recording's) */
    for (int q = 0; q < s->P; q++) {
        double pw = psk_machine_rank_power(s->m, job, q, q ? NULL : &s->power_why);
        s->inv_power[q] = 1.0 / pw;
        /* the short timings' ratio: the speed between a quota's pauses */
        s->poll_scale[q] = s->m->work_unit_ns > 0 && job->work_ns_per_unit && job->work_ns_per_unit[q] > 0
                               ? s->m->work_unit_ns / job->work_ns_per_unit[q] : s->inv_power[q];
        if (q == 0)
            s->power0 = pw;
    }
    /* no machine file: the recording's hosts are the nodes, unless one had
     * more ranks than cores (its calls give no floors: the default start
     * time between nodes stands for their costs, sim_callcost.c) */
    int *host = NULL, nh = 0;
    if (s->m->nodes_recorded && job->hosts && job->cores && s->m->type != PSK_NET_GRID) {
        int *on = calloc((size_t)(s->P ? s->P : 1), sizeof *on);
        if (!on || !(host = malloc((size_t)(s->P ? s->P : 1) * sizeof *host)) ||
            (nh = psk_host_ids(job->hosts, s->P, host)) < 0) {
            free(on), free(host);
            return fail(s, PSK_ENOMEM, "out of memory");
        }
        for (int q = 0; q < s->P; q++)
            on[host[q]]++;
        for (int q = 0; q < s->P && host; q++)
            if (job->cores[q] > 0 && on[host[q]] > job->cores[q])
                free(host), host = NULL, nh = 0;
        free(on);
    }
    int rc = psk_net_init(&s->net, s->m, s->P, host, nh);
    free(host);
    if (rc == PSK_EINVAL)
        return fail(s, rc, "the grid's topology has fewer nodes than the %d the ranks need", s->net.nnodes);
    if (rc)
        return fail(s, rc, "out of memory");
    /* a trace of MPICH, with no eager threshold given: MPICH's (4.0,
     * ch4:ucx, between ranks of one node: a ring of messages took a turn
     * of the cores more from 8,260 bytes on, docs/simulation.md) */
    s->net.mpich = job->flavour == PSK_MPI_MPICH;
    if (s->net.mpich && !s->m->eager_given)
        s->net.eager = PSK_MPICH_EAGER;
    if (ival_child(s, -1, 0, 0) != 0)
        return fail(s, PSK_ENOMEM, "out of memory");
    return PSK_OK;
}

/* the replay, once every rank's source of events is open */
static int run(psk_sim *s)
{
    int rc;
    /* every rank starts at MPI_Init's exit, at 0, inside the program */
    for (int q = 0; q < s->P; q++) {
        rank *r = &s->r[q];
        if (next_event(s, q) <= 0)
            return s->failed ? PSK_EFORMAT : fail(s, PSK_EFORMAT, "rank %d has no events", q);
        if (s->opof[r->ev.fn] != OP_INIT)
            return fail(s, PSK_EFORMAT, "rank %d: the first event is not MPI_Init", q);
        /* MPI_THREAD_MULTIPLE is 3 in both MPIs' headers: a rank that
         * asked for it and called from one thread is replayed as any
         * other; the calls of several threads cannot be put in one order */
        if (!strcmp(psk_fn_name(r->ev.fn), "MPI_Init_thread") && PSK_HAS(&r->ev, PSK_F_I2) &&
            r->ev.v[PSK_F_I2] == 3) {
            int nt = s->merged ? psk_merged_rank_threads(s->merged, q) : 1;
            if (s->format_version < PSK_FORMAT_VERSION_THREADS)
                return fail(s, PSK_EINVAL, "rank %d was recorded under MPI_THREAD_MULTIPLE by a perfskel that did "
                                           "not record which thread made each call (trace format %d): calls of "
                                           "several threads cannot be replayed in one order; record it again",
                            q, s->format_version);
            if (nt > 1)
                return fail(s, PSK_EINVAL, "rank %d made its MPI calls from %d threads under MPI_THREAD_MULTIPLE: "
                                           "they cannot be replayed in one order", q, nt);
            r->multiple = 1;
        }
        /* when its MPI_Init returned, the earliest's at 0 */
        s->r[q].t = s->r[q].t0 = s->start && !s->m->start_together ? s->start[q] : 0;
        s->r[q].acc[A_CPU] = 0;
        if ((rc = ival_open(s, q, 0)))
            return fail(s, rc, "out of memory");
        ready_push(s, q);
    }
    while (!s->failed) {
        if (!s->nready) {
            int blocked = 0;
            for (int q = 0; q < s->P; q++)
                blocked += s->r[q].state == 1;
            if (!blocked)
                break;
            if (unblock_sends(s))
                continue;
            for (int q = 0; q < s->P; q++)
                if (s->r[q].state == 1)
                    return fail(s, PSK_EFORMAT, "the replay cannot go on: rank %d waits in %s (event %llu) forever%s%s", q,
                                psk_fn_name(s->r[q].ev.fn), (unsigned long long)s->r[q].nread,
                                s->ended_early ? "; the job did not finish: " : "", s->ended_early ? s->early_msg : "");
        }
        for (int q = ready_pop(s); q >= 0 && !s->failed;)
            if ((rc = advance(s, q, &q)))
                return s->failed ? rc : fail(s, rc, "out of memory");
    }
    if (s->failed)
        return PSK_EFORMAT;
    for (int q = 0; q < s->P; q++)
        if (s->r[q].finalize - s->r[q].t0 > s->predicted)
            s->predicted = s->r[q].finalize - s->r[q].t0;
    s->predicted *= 1e-9;
    /* the derived characteristics per interval */
    for (int i = 0; i < s->niv; i++) {
        ival *v = &s->iv[i];
        double maxexec = 0, maxcpu = 0, cpu = 0;
        for (int q = 0; q < s->P; q++) {
            const double *m = v->m + (size_t)q * PSK_M_N;
            maxexec = m[PSK_M_EXEC] > maxexec ? m[PSK_M_EXEC] : maxexec;
            maxcpu = m[PSK_M_CPU] > maxcpu ? m[PSK_M_CPU] : maxcpu;
            cpu += m[PSK_M_CPU];
        }
        for (int q = 0; q < s->P; q++) {
            double *m = v->m + (size_t)q * PSK_M_N;
            m[PSK_M_IDLE] = maxexec - m[PSK_M_EXEC];
            m[PSK_M_IMBALANCE] = maxcpu - m[PSK_M_CPU];
            m[PSK_M_LOST] = maxexec - m[PSK_M_CPU];
        }
        v->pub = (psk_interval){.parent = v->parent, .level = v->level, .name = v->name, .m = v->m,
                                .count = v->count, .exec = maxexec,
                                .efficiency = maxexec * s->P > 0 ? cpu / (maxexec * s->P) : 1.0};
    }
    return PSK_OK;
}

int psk_sim_run(psk_trace *t, const psk_sim_opts *o, psk_sim **out)
{
    psk_sim *s = calloc(1, sizeof *s);
    *out = s;
    if (!s)
        return PSK_ENOMEM;
    int rc = setup(s, psk_trace_job(t), o);
    if (rc)
        return rc;
    s->trace = t;
    /* more ranks than files may be open: readers past the cap let their
     * file go, keeping 4 KB of events, and reopen where they were */
    if (psk_rank_pool_new(0, 4096, &s->pool))
        return fail(s, PSK_ENOMEM, "out of memory");
    for (int q = 0; q < s->P; q++)
        if ((rc = psk_rank_open_pooled(t, q, s->pool, &s->r[q].rd)))
            return fail(s, rc, "%s", psk_rank_errmsg(s->r[q].rd));
    if ((rc = psk_simi_cc_trace(s, t)))
        return s->failed = 1, rc;
    /* the recording's sharing of its hosts' cores, then the target's */
    if (!s->m->sharing_off && (rc = psk_simi_deflate_trace(s, t, psk_trace_job(t))))
        return rc;
    if (!s->m->sharing_off && (rc = psk_simi_cores_init(s, psk_trace_job(t))))
        return fail(s, rc, "out of memory");
    if ((rc = psk_simi_cc_finish(s, psk_trace_job(t))))
        return fail(s, rc, "out of memory");
    return run(s);
}

int psk_sim_run_folded(psk_merged *m, const psk_folded *f, const psk_sim_opts *o, psk_sim **out)
{
    psk_sim *s = calloc(1, sizeof *s);
    *out = s;
    if (!s)
        return PSK_ENOMEM;
    int rc = setup(s, psk_merged_job(m), o);
    if (rc)
        return rc;
    s->merged = m;
    if ((rc = psk_simi_cc_merged(s, m)))
        return s->failed = 1, rc;
    if (!s->m->sharing_off && (rc = psk_simi_deflate_merged(s, m, psk_merged_job(m))))
        return rc;
    if (!s->m->sharing_off && (rc = psk_simi_cores_init(s, psk_merged_job(m))))
        return fail(s, rc, "out of memory");
    if ((rc = psk_simi_cc_finish(s, psk_merged_job(m))))
        return fail(s, rc, "out of memory");
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    /* a poll of 10 us or more: loops that poll are replayed, not skipped
     * (polling_halo on the testbed, 150 us a poll: +3.9 % skipping, +0.7 %
     * at 50 us) */
    int poll_matters = 0;
    for (int i = 0; i < s->m->npoll; i++)
        poll_matters |= s->m->poll[2 * i + 1] >= 10;
    if (psk_fgaps_new(m, &s->gaps))
        return fail(s, PSK_ENOMEM, "out of memory");
    if ((rc = psk_fprog_build(m, f, poll_matters, s->gaps, &s->fp, s->err, sizeof s->err, o->progress,
                              o->progress_arg))) {
        s->failed = 1;
        return rc;
    }
    psk_fgaps_seal(s->gaps);
    clock_gettime(CLOCK_MONOTONIC, &b);
    s->build_s = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    s->events = psk_fprog_poll_calls(s->fp); /* each run of polls is then replayed as one event */
    /* the cursors side by side, in huge pages: at many ranks each event
     * is another rank's, and a page walk for each would cost as much as
     * the event */
    psk_fcursor **fc = malloc((size_t)(s->P ? s->P : 1) * sizeof *fc);
    if (!fc || psk_fcursor_open_all(s->fp, s->P, o->loop_intervals ? o->depth : -1, fc, &s->fc_block)) {
        free(fc);
        return fail(s, PSK_ENOMEM, "out of memory");
    }
    for (int q = 0; q < s->P; q++)
        s->r[q].fc = fc[q];
    free(fc);
    return run(s);
}

void psk_simi_rekey(psk_sim *s, int q) { tree_update(s, q, key_of(s->r[q].t)); }
void psk_simi_ready_push(psk_sim *s, int q) { ready_push(s, q); }
void psk_simi_tl_add(psk_sim *s, int q, int what, double a, double b) { tl_add(s, q, what, a, b); }
int64_t psk_sim_eager_bytes(const psk_sim *s) { return s->net.eager; }

const char *psk_sim_sharing(const psk_sim *s, int *state)
{
    if (state)
        *state = s->share_state;
    return s->share_msg;
}

void psk_simi_memory(const psk_sim *s, psk_simi_mem *out)
{
    uint64_t b = (uint64_t)s->P * (sizeof *s->r + sizeof *s->inv_power + sizeof *s->poll_scale);
    b += (uint64_t)s->tnodes * sizeof *s->tn;
    if (s->opts && s->opts->timeline)
        b += (uint64_t)s->P * PSK_TL_BINS * 3 * sizeof *s->tl;
    for (int i = 0; i < s->niv; i++)
        b += sizeof *s->iv + (uint64_t)s->P * (PSK_M_N * sizeof *s->iv[i].m + sizeof *s->iv[i].count);
    for (int q = 0; s->r && q < s->P; q++) {
        const rank *r = &s->r[q];
        b += (uint64_t)r->nreq * sizeof *r->req + (uint64_t)r->ncomm * sizeof *r->comm;
        b += (uint64_t)r->cap * sizeof *r->stack + (uint64_t)r->npend * sizeof *r->pend_idx;
        b += (uint64_t)r->capfound * sizeof *r->found;
        b += r->fc ? psk_fcursor_bytes(r->fc) : 0;
        b += s->ncc ? (uint64_t)s->ncc[q] * sizeof **s->cc : 0; /* its call floors */
    }
    if (s->cc)
        b += (uint64_t)s->P * (sizeof *s->cc + sizeof *s->ncc + sizeof *s->start);
    b += s->gaps ? psk_fgaps_bytes(s->gaps) : 0;
    b += psk_simi_skip_bytes(s);
    out->state = b;
    out->program = s->fp ? psk_fprog_bytes(s->fp) : 0;
    out->pattern_events = s->fp ? psk_fprog_pattern_events(s->fp) : 0;
    out->snapshots = s->snapshots;
}

void psk_simi_tl_spread(psk_sim *s, int q, int what, double a, double len, double amount)
{
    if (!s->opts->timeline || len <= 0 || amount <= 0)
        return;
    tl_grow(s, a + len);
    double *t = s->tl + (size_t)q * PSK_TL_BINS * 3;
    double scale = amount / len;
    for (int i = (int)(a / s->tl_width); i < PSK_TL_BINS && i * s->tl_width < a + len; i++) {
        double lo = i * s->tl_width > a ? i * s->tl_width : a;
        double hi = (i + 1) * s->tl_width < a + len ? (i + 1) * s->tl_width : a + len;
        if (hi > lo)
            t[3 * i + what] += (hi - lo) * scale;
    }
}

const char *psk_sim_errmsg(const psk_sim *s) { return s ? s->err : "out of memory"; }
int psk_sim_nranks(const psk_sim *s) { return s->P; }
double psk_sim_predicted(const psk_sim *s) { return s->predicted; }
uint64_t psk_sim_events(const psk_sim *s) { return s->events; }
uint64_t psk_sim_replayed(const psk_sim *s) { return s->replayed; }
double psk_sim_power(const psk_sim *s, const char **why)
{
    if (why)
        *why = s->power_why ? s->power_why : "default";
    return s->power0 > 0 ? s->power0 : 1.0;
}
int psk_sim_folded(const psk_sim *s) { return s->fp != NULL; }
int64_t psk_sim_skipped_iterations(const psk_sim *s) { return s->skipped_iters; }
double psk_sim_build_seconds(const psk_sim *s) { return s->build_s; }
uint64_t psk_sim_buffered(const psk_sim *s) { return s->buffered; }
int psk_sim_ended_early(const psk_sim *s, const char **first)
{
    *first = s->early_msg;
    return s->ended_early;
}
int psk_sim_nintervals(const psk_sim *s) { return s->niv; }
const psk_interval *psk_sim_interval(const psk_sim *s, int i) { return &s->iv[i].pub; }

const double *psk_sim_timeline(const psk_sim *s, int rank, double *bin_seconds)
{
    *bin_seconds = s->tl_width * 1e-9;
    return s->tl + (size_t)rank * PSK_TL_BINS * 3;
}

void psk_sim_close(psk_sim *s)
{
    if (!s)
        return;
    for (int q = 0; s->r && q < s->P; q++) {
        rank *r = &s->r[q];
        psk_rank_close(r->rd);
        psk_fcursor_close(r->fc);
        psk_rank_close(r->ahead);
        free(r->pend_idx);
        free(r->found);
        for (msg *m = r->unexp, *n; m; m = n)
            n = m->next, free(m);
        for (msg *m = r->matched, *n; m; m = n)
            n = m->next, free(m);
        for (precv *p = r->posted, *n; p; p = n)
            n = p->next, free(p);
        for (int64_t c = 0; c < r->ncomm; c++)
            members_free(s, r->comm[c].world);
        free(r->comm);
        free(r->req);
        free(r->stack);
    }
    for (coll_inst *c = s->colls, *n; c; c = n) {
        n = c->next;
        members_free(s, c->world);
        free(c->arrive), free(c->done), free(c->reqs), free(c->own);
        free(c);
    }
    free(s->world0);
    for (int i = 0; i < s->niv; i++)
        free(s->iv[i].m), free(s->iv[i].count);
    free(s->iv);
    free(s->ivh);
    for (msg *m = s->free_msg, *n; m; m = n)
        n = m->next, free(m);
    for (precv *p = s->free_precv, *n; p; p = n)
        n = p->next, free(p);
    psk_fcursor_block_free(s->fc_block);
    psk_simi_skip_free(s);
    psk_fgaps_close(s->gaps);
    psk_fprog_free(s->fp);
    free(s->inv_power);
    free(s->poll_scale);
    for (int q = 0; s->cc && q < s->P; q++)
        free(s->cc[q]);
    free(s->cc), free(s->ncc), free(s->start), free(s->nofloor);
    psk_simi_cores_free(s);
    free(s->tl);
    free(s->r);
    psk_rank_pool_free(s->pool); /* after its readers */
    free(s->tn);
    free(s->opof);
    free(s->ordered);
    free(s->collof);
    psk_net_free(&s->net);
    free(s);
}
