/* Pass 1 of perfskel gen: one walk of the merged trace along its folding
 * (psk_folded_walk) collects, per node of the folded tree, each taking part
 * rank's first execution and summed compute gaps, and what a skeleton must
 * replay per execution: the sources wildcard receives got, whether each
 * Test-family call completed something, the request arrays; per rank, the
 * members of the communicators it made and what its persistent requests
 * do (for gen_scale.c). It also checks that each request and communicator
 * id the skeleton will use is the recorded one (one resource per
 * iteration). */
#include <stdlib.h>
#include <string.h>

#include "gen_internal.h"
#include "psk_mem.h"

int gen_completion(const psk_event *e)
{
    unsigned fn = e->fn;
    if (psk_fn_polled(fn)) /* a run of polls: did it end with completion */
        return PSK_HAS(e, PSK_F_FLAG) && e->v[PSK_F_FLAG] != 0;
    switch (psk_fn_op(fn)) {
    case PSK_FNOP_TEST: case PSK_FNOP_TESTALL: case PSK_FNOP_IMPROBE:
        return PSK_HAS(e, PSK_F_FLAG) && e->v[PSK_F_FLAG] != 0;
    case PSK_FNOP_TESTANY:
        return PSK_HAS(e, PSK_F_FLAG) && e->v[PSK_F_FLAG] && PSK_HAS(e, PSK_F_INDEX) && e->v[PSK_F_INDEX] >= 0;
    case PSK_FNOP_TESTSOME:
        return PSK_HAS(e, PSK_F_INDICES) && PSK_ARRN(e, PSK_F_INDICES) > 0;
    default:
        return -1;
    }
}

typedef struct collect {
    gen *g;
    int rc;
} collect;

static int copy_event(psk_event *dst, const psk_event *src)
{
    *dst = *src;
    for (int f = PSK_F_FIRST_ARRAY; f < PSK_F_NFIELDS; f++) {
        if (!PSK_HAS(src, f))
            continue;
        size_t n = (f == PSK_F_STATUSES ? 3 : 1) * (size_t)PSK_ARRN(src, f);
        int64_t *a = malloc((n ? n : 1) * sizeof *a);
        if (!a)
            return -1;
        if (n)
            memcpy(a, PSK_ARR(src, f), n * sizeof *a);
        PSK_ARR(dst, f) = a;
    }
    return 0;
}

static int src_push(gnode *n, int j, int64_t v)
{
    if (!n->src) {
        n->src = calloc((size_t)n->np, sizeof *n->src);
        n->nsrc = calloc((size_t)n->np, sizeof *n->nsrc);
        n->capsrc = calloc((size_t)n->np, sizeof *n->capsrc);
        if (!n->src || !n->nsrc || !n->capsrc)
            return -1;
    }
    if (psk_grow((void **)&n->src[j], &n->capsrc[j], n->nsrc[j], sizeof *n->src[j]))
        return -1;
    n->src[j][n->nsrc[j]++] = v;
    return 0;
}

static int done_push(gnode *n, int j, int done)
{
    if (!n->done) {
        n->done = calloc((size_t)n->np, sizeof *n->done);
        n->ndone = calloc((size_t)n->np, sizeof *n->ndone);
        n->capdone = calloc((size_t)n->np, sizeof *n->capdone);
        if (!n->done || !n->ndone || !n->capdone)
            return -1;
    }
    if (psk_grow((void **)&n->done[j], &n->capdone[j], n->ndone[j], 1))
        return -1;
    n->done[j][n->ndone[j]++] = (uint8_t)done;
    return 0;
}

/* flags (PSK_GEN_REQ_DONE) the requests of x, the array of e as the
 * skeleton passes it, that e completed */
static void flag_done(const psk_event *e, int64_t *x, uint32_t len)
{
    unsigned fn = psk_fn_polled(e->fn) ? psk_fn_polled(e->fn) : e->fn; /* a run of polls: as its last test */
    int op = psk_fn_op(fn);
    if (op == PSK_FNOP_WAITANY || op == PSK_FNOP_TESTANY) {
        if (PSK_HAS(e, PSK_F_INDEX) && e->v[PSK_F_INDEX] >= 0 && e->v[PSK_F_INDEX] < (int64_t)len &&
            (op == PSK_FNOP_WAITANY || (PSK_HAS(e, PSK_F_FLAG) && e->v[PSK_F_FLAG]))) {
            int64_t *q = &x[e->v[PSK_F_INDEX]];
            if (*q >= 0 && *q < PSK_GEN_REQ_DONE)
                *q += PSK_GEN_REQ_DONE;
        }
        return;
    }
    for (uint32_t k = 0; PSK_HAS(e, PSK_F_INDICES) && k < PSK_ARRN(e, PSK_F_INDICES); k++) {
        int64_t i = PSK_ARR(e, PSK_F_INDICES)[k];
        if (i >= 0 && i < (int64_t)len && x[i] >= 0 && x[i] < PSK_GEN_REQ_DONE)
            x[i] += PSK_GEN_REQ_DONE;
    }
}

/* the request array of one execution on taking part rank j, kept for a
 * table by execution if they differ. Waitany, Waitsome, Testany and
 * Testsome see MPI_REQUEST_NULL where the original had completed a
 * request before; the skeleton may have completed another one (timing), so
 * it passes the request last seen there instead, and the requests the
 * original call completed are flagged (PSK_GEN_REQ_DONE): the skeleton
 * completes them too before it goes on. */
static int note_reqs(gen *g, gnode *n, int j, int32_t r, const psk_event *e)
{
    if (n->reqsbig)
        return 0;
    if (!n->xr) {
        n->xr = calloc((size_t)n->np, sizeof *n->xr);
        n->nxr = calloc((size_t)n->np, sizeof *n->nxr);
        n->capxr = calloc((size_t)n->np, sizeof *n->capxr);
        if (!n->xr || !n->nxr || !n->capxr)
            return -1;
    }
    uint32_t len = PSK_ARRN(e, PSK_F_REQS);
    if (n->nxr[j] + len + 1 > (1u << 24) / (unsigned)(g->P ? g->P : 1)) {
        n->reqsbig = n->reqsvary = 1; /* the first array throughout; the loops around are not scaled */
        return 0;
    }
    if (psk_grow((void **)&n->xr[j], &n->capxr[j], (int64_t)(n->nxr[j] + len), sizeof *n->xr[j]))
        return -1;
    int64_t *x = &n->xr[j][n->nxr[j]];
    unsigned fn = psk_fn_polled(e->fn) ? psk_fn_polled(e->fn) : e->fn; /* a run of polls: as its test */
    int op = psk_fn_op(fn);
    int carry = op == PSK_FNOP_WAITANY || op == PSK_FNOP_WAITSOME || op == PSK_FNOP_TESTANY || op == PSK_FNOP_TESTSOME;
    /* the previous array of this family on the rank, whichever call passed
     * it, stands for the program's array if it is as long */
    const int64_t *prev = carry && g->lastarr[r] && g->nlastarr[r] == len ? g->lastarr[r] : NULL;
    x[0] = len;
    for (uint32_t k = 0; k < len; k++) {
        int64_t q = PSK_ARR(e, PSK_F_REQS)[k];
        if (q == PSK_REQ_NULL && prev)
            q = prev[k];
        x[1 + k] = q;
    }
    if (carry) {
        if (g->nlastarr[r] < len || !g->lastarr[r]) {
            int64_t *a = realloc(g->lastarr[r], (len ? len : 1) * sizeof *a);
            if (!a)
                return -1;
            g->lastarr[r] = a;
        }
        if (len)
            memcpy(g->lastarr[r], &x[1], len * sizeof *x);
        g->nlastarr[r] = len;
        flag_done(e, &x[1], len);
    }
    n->nxr[j] += len + 1;
    /* against the first execution as emitted: its own array */
    const int64_t *f0 = &n->xr[j][0];
    if (x[0] != f0[0] || (len && memcmp(&x[1], &f0[1], len * sizeof *x)))
        n->reqsvary = 1;
    return 0;
}

/* the sources of wildcard receives: blocking ones carry it in their own
 * status; an Irecv's comes with the Wait, Test or array call completing it */
static int wild_sources(gen *g, int32_t id, int j, int32_t r, const psk_event *e)
{
    gnode *n = &g->node[id];
    int op = psk_fn_op(e->fn);
    int f = op == PSK_FNOP_RECV || op == PSK_FNOP_IRECV || op == PSK_FNOP_PROBE || op == PSK_FNOP_MPROBE ||
                    op == PSK_FNOP_IMPROBE ? PSK_F_PEER
            : op == PSK_FNOP_SENDRECV || op == PSK_FNOP_SENDRECV_REPLACE ? PSK_F_RPEER : 0;
    if (f && PSK_HAS(e, f) && e->v[f] == PSK_ANY_SOURCE) {
        n->srcf = f;
        if (op == PSK_FNOP_IMPROBE) {
            /* its argument stays MPI_ANY_SOURCE; the source of each message
             * it found is what the skeleton waits for before it */
            n->hidden = 1;
            if (gen_completion(e) != 1)
                return 0;
        }
        if (op != PSK_FNOP_IRECV)
            return src_push(n, j, PSK_HAS(e, PSK_F_ASRC) && e->v[PSK_F_ASRC] >= 0 ? e->v[PSK_F_ASRC] : -1);
        int64_t q = PSK_HAS(e, PSK_F_REQ) ? e->v[PSK_F_REQ] : -1;
        if (src_push(n, j, -1))
            return -1;
        if (q < 0 || q > (1 << 24))
            return 0;
        if (psk_grow((void **)&g->pend[r], &g->npend[r], q, sizeof *g->pend[r]))
            return -1;
        g->pend[r][q] = (pending){id, j, n->nsrc[j] - 1};
        return 0;
    }
    if (!PSK_HAS(e, PSK_F_STATUSES))
        return 0;
    const int64_t *st = PSK_ARR(e, PSK_F_STATUSES);
    for (uint32_t k = 0; k < PSK_ARRN(e, PSK_F_STATUSES); k++) {
        int64_t i = st[3 * k], src = st[3 * k + 1], q = -1;
        if (PSK_HAS(e, PSK_F_REQ))
            q = e->v[PSK_F_REQ];
        else if (PSK_HAS(e, PSK_F_REQS) && i >= 0 && i < (int64_t)PSK_ARRN(e, PSK_F_REQS))
            q = PSK_ARR(e, PSK_F_REQS)[i];
        if (q < 0 || q >= g->npend[r] || g->pend[r][q].id <= 0)
            continue;
        pending *p = &g->pend[r][q];
        gnode *rn = &g->node[p->id];
        if (rn->src && p->pos < rn->nsrc[p->j] && src >= 0)
            rn->src[p->j][p->pos] = src;
        p->id = 0;
    }
    return 0;
}

/* after pass 1: a wildcard receive whose every execution on a rank got the
 * same source becomes a receive from it; one whose sources vary replays
 * them from a table (outside scaled loops); one with a source never seen
 * (not completed, or no status) stays a wildcard */
static void settle_sources(gen *g)
{
    for (int32_t id = 0; id < psk_folded_nnodes(g->f); id++) {
        gnode *n = &g->node[id];
        if (!n->src)
            continue;
        if (n->hidden) {
            n->hsrc = malloc((size_t)n->np * sizeof *n->hsrc);
            if (!n->hsrc) {
                gen_oom(g);
                return;
            }
            for (int j = 0; j < n->np; j++)
                n->hsrc[j] = n->first[j].v[n->srcf]; /* as passed, unless pinned below */
        }
        int changed = 0;
        for (int j = 0; j < n->np; j++) {
            if (!n->nsrc[j])
                continue;
            int known = 1, same = 1;
            for (uint32_t k = 0; k < n->nsrc[j]; k++) {
                known &= n->src[j][k] >= 0;
                same &= n->src[j][k] == n->src[j][0];
            }
            if (!known) {
                n->nsrc[j] = 0; /* stays a wildcard */
                continue;
            }
            if (same) {
                if (n->hidden)
                    n->hsrc[j] = n->src[j][0];
                else
                    n->first[j].v[n->srcf] = n->src[j][0];
                n->nsrc[j] = 0;
                changed = 1;
            } else {
                n->varsrc = 1;
            }
        }
        if (changed && !n->hidden)
            n->kind[n->srcf] = PSK_PAT_TABLE;
    }
}

/* after pass 1: request arrays that differ between executions get a
 * table by execution, unless it would be too large */
static void settle_reqs(gen *g)
{
    for (int32_t id = 0; id < psk_folded_nnodes(g->f); id++) {
        gnode *n = &g->node[id];
        if (n->reqsvary && !n->reqsbig) {
            uint64_t w = 1;
            for (int j = 0; j < n->np; j++)
                for (uint64_t at = 0; at < n->nxr[j]; at += 1 + (uint64_t)n->xr[j][at])
                    w = (uint64_t)n->xr[j][at] > w ? (uint64_t)n->xr[j][at] : w;
            if (n->execs * (uint64_t)g->P * w > (1u << 22))
                n->reqsbig = 1;
        }
        /* the first execution's array as note_reqs completed it */
        for (int j = 0; n->xr && j < n->np; j++)
            if (n->nxr[j] && (uint64_t)n->xr[j][0] == PSK_ARRN(&n->first[j], PSK_F_REQS) && n->xr[j][0]) {
                int64_t *a = (int64_t *)PSK_ARR(&n->first[j], PSK_F_REQS);
                memcpy(a, &n->xr[j][1], (size_t)n->xr[j][0] * sizeof(int64_t));
                /* one array for every execution: what the first completed is
                 * not what the others did */
                for (int64_t k = 0; n->reqsbig && k < n->xr[j][0]; k++)
                    a[k] = gen_req_id(a[k]);
            }
    }
}

/* the grid of the communicator rank r's MPI_Cart_create or MPI_Cart_sub
 * e makes (its members known) into m: from the recorded dims and periods,
 * or the parent's grid and the members (gen_call.c gives the skeleton's
 * communicator that grid); -1 out of memory */
static int note_cart(gen *g, int32_t r, const psk_event *e, cmembers *m)
{
    psk_cart c;
    int rc = 1;
    if (e->fn == PSK_FN_Cart_create) {
        rc = PSK_ARRN(e, PSK_F_PERIODS) != PSK_ARRN(e, PSK_F_DIMS) ||
             psk_cart_make(&c, PSK_ARRN(e, PSK_F_DIMS), PSK_ARR(e, PSK_F_DIMS), PSK_ARR(e, PSK_F_PERIODS), m->n);
    } else if (e->fn == PSK_FN_Cart_sub) {
        int64_t pc = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : -1;
        const cmembers *p = pc > 1 && pc < g->ncmem[r] && pc != e->v[PSK_F_NEWID] ? &g->cmem[r][pc] : NULL;
        if (p && p->known && !p->ambiguous && p->cart && !p->cartbad && !p->freed &&
            (rc = psk_cart_sub(p->cart, p->w, p->n, m->w, m->n, g->P, &c)) < 0)
            return -1;
    } else {
        return 0;
    }
    if (rc) { /* no grid gen can give it */
        m->cartbad |= m->cart != NULL;
        return 0;
    }
    m->nbmax = 2 * c.ndims > m->nbmax ? 2 * c.ndims : m->nbmax;
    if (m->cart) {
        m->cartbad |= memcmp(m->cart, &c, sizeof c) != 0;
        return 0;
    }
    if (!(m->cart = malloc(sizeof *m->cart)))
        return -1;
    *m->cart = c;
    return 0;
}

/* a neighborhood collective of node n (rank r, e): the grid of its
 * communicator as this execution finds it (gen_call.c sizes its buffers
 * for the most neighbours, or fails without one) */
static void note_ncoll(gen *g, gnode *n, int32_t r, const psk_event *e)
{
    int64_t c = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
    const cmembers *m = c > 1 && c < g->ncmem[r] ? &g->cmem[r][c] : NULL;
    if (n->nbmax < 0)
        return;
    if (!m || !m->known || m->ambiguous || !m->cart || m->cartbad || m->freed) {
        n->nbmax = -1, n->nogrid_rank = r, n->nogrid_comm = c;
        return;
    }
    n->nbmax = 2 * m->cart->ndims > n->nbmax ? 2 * m->cart->ndims : n->nbmax;
}

/* the members of each communicator a rank creates (so that loops on it
 * can be checked for balance in world ranks), and its grid */
static int note_comm(gen *g, int32_t r, const psk_event *e)
{
    if (psk_fn_op(e->fn) == PSK_FNOP_COMM_FREE) {
        int64_t c = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
        if (c > 1 && c < g->ncmem[r])
            g->cmem[r][c].freed = 1;
        return 0;
    }
    /* the MPI_Group_ functions: communicator class, no communicator taken */
    int group = psk_fn_class(e->fn) == PSK_CLASS_COMM && !(psk_fn_fields(e->fn) >> PSK_F_COMM & 1u);
    if (!PSK_HAS(e, PSK_F_NEWID) || !PSK_HAS(e, PSK_F_MEMBERS) || group)
        return 0;
    int64_t c = e->v[PSK_F_NEWID];
    if (c < 2 || c > (1 << 20))
        return 0;
    if (psk_grow((void **)&g->cmem[r], &g->ncmem[r], c, sizeof **g->cmem))
        return -1;
    cmembers *m = &g->cmem[r][c];
    m->freed = 0;
    const int64_t *w = PSK_ARR(e, PSK_F_MEMBERS);
    uint32_t nw = PSK_ARRN(e, PSK_F_MEMBERS);
    if (m->known) {
        if (m->n != nw || (nw && memcmp(m->w, w, nw * sizeof *w)))
            m->ambiguous = 1;
        return m->ambiguous ? 0 : note_cart(g, r, e, m);
    }
    m->w = malloc((nw ? nw : 1) * sizeof *m->w);
    if (!m->w)
        return -1;
    if (nw)
        memcpy(m->w, w, nw * sizeof *w);
    m->n = nw;
    m->known = 1;
    return note_cart(g, r, e, m);
}

/* what each persistent request sends or receives, from its init call */
static int note_preq(gen *g, int32_t r, const psk_event *e)
{
    int op = psk_fn_op(e->fn);
    int kind = op == PSK_FNOP_RECV_INIT ? 2 : op == PSK_FNOP_SEND_INIT ? 1 : 0;
    if (!kind || !PSK_HAS(e, PSK_F_REQ) || !PSK_HAS(e, PSK_F_PEER))
        return 0;
    int64_t q = e->v[PSK_F_REQ];
    if (q < 0 || q > (1 << 24))
        return 0;
    if (psk_grow((void **)&g->preqs[r], &g->npreqs[r], q, sizeof **g->preqs))
        return -1;
    preq *p = &g->preqs[r][q];
    int64_t comm = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
    if (p->kind && (p->kind != kind || p->peer != e->v[PSK_F_PEER] || p->comm != comm))
        p->ambiguous = 1;
    p->kind = kind, p->peer = e->v[PSK_F_PEER], p->comm = comm;
    return 0;
}

int64_t gen_to_world(const gen *g, int32_t me, int64_t comm, int64_t r)
{
    if (comm == 0)
        return r;
    if (comm == 1)
        return r == 0 ? me : -1;
    if (comm < 0 || comm >= g->ncmem[me])
        return -1;
    const cmembers *m = &g->cmem[me][comm];
    if (!m->known || m->ambiguous || r < 0 || r >= (int64_t)m->n)
        return -1;
    return m->w[r];
}

int gen_sends(unsigned fn)
{
    switch (psk_fn_op(fn)) {
    case PSK_FNOP_SEND: case PSK_FNOP_ISEND: case PSK_FNOP_SENDRECV: case PSK_FNOP_SENDRECV_REPLACE:
        return 1;
    default:
        return 0;
    }
}

int gen_receives(unsigned fn)
{
    int op = psk_fn_op(fn);
    return op == PSK_FNOP_RECV || op == PSK_FNOP_IRECV || op == PSK_FNOP_MRECV || op == PSK_FNOP_IMRECV;
}

/* a matched receive (Mrecv, Imrecv): its message was its probe's */
static int matched(unsigned fn)
{
    int op = psk_fn_op(fn);
    return op == PSK_FNOP_MRECV || op == PSK_FNOP_IMRECV;
}

/* messages sent to each rank minus receives it posted, in the merged
 * order of the walk (each rank's calls in its own order): rank r's
 * receive posted (sent 0) or a message to rank peer of comm on rank r
 * (sent 1); g->inflight counts the ranks with a difference, -1 once a
 * message's destination is not known */
static void count_msg(gen *g, int32_t r, int64_t comm, int64_t peer, int sent)
{
    if (peer == PSK_PROC_NULL || g->inflight < 0)
        return;
    int64_t to = sent ? gen_to_world(g, r, comm, peer) : r;
    if (to < 0 || to >= g->P) {
        g->inflight = -1;
        return;
    }
    int64_t was = g->rdiff[to];
    g->rdiff[to] += sent ? 1 : -1;
    g->inflight += (was == 0) - (g->rdiff[to] == 0);
}

/* the messages of rank r's call e */
static void count_msgs(gen *g, int32_t r, const psk_event *e)
{
    unsigned fn = e->fn;
    int op = psk_fn_op(fn);
    int64_t comm = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
    int64_t peer = PSK_HAS(e, PSK_F_PEER) ? e->v[PSK_F_PEER] : PSK_PROC_NULL;
    if (gen_sends(fn))
        count_msg(g, r, comm, peer, 1);
    if (gen_receives(fn)) /* a matched receive's message was its probe's: any source */
        count_msg(g, r, comm, matched(fn) ? 0 : peer, 0);
    else if (op == PSK_FNOP_SENDRECV || op == PSK_FNOP_SENDRECV_REPLACE)
        count_msg(g, r, comm, PSK_HAS(e, PSK_F_RPEER) ? e->v[PSK_F_RPEER] : PSK_PROC_NULL, 0);
    if (op != PSK_FNOP_START && op != PSK_FNOP_STARTALL)
        return;
    int n = 0; /* persistent requests started: what their init call said */
    if (op == PSK_FNOP_START)
        n = PSK_HAS(e, PSK_F_REQ) != 0;
    else if (PSK_HAS(e, PSK_F_REQS))
        n = (int)PSK_ARRN(e, PSK_F_REQS);
    for (int k = 0; k < n; k++) {
        int64_t q = op == PSK_FNOP_START ? e->v[PSK_F_REQ] : PSK_ARR(e, PSK_F_REQS)[k];
        const preq *p = q >= 0 && q < g->npreqs[r] ? &g->preqs[r][q] : NULL;
        if (!p || !p->kind || p->ambiguous)
            g->inflight = -1;
        else
            count_msg(g, r, p->comm, p->peer, p->kind == 1);
    }
}

/* whether fn is collective over all members of its communicator argument
 * (MPI_Comm_create_group involves only its group's members) */
static int collective(unsigned fn)
{
    switch (psk_fn_op(fn)) {
    case PSK_FNOP_COLL: case PSK_FNOP_ICOLL: case PSK_FNOP_NEWCOMM: case PSK_FNOP_INTERCOMM:
    case PSK_FNOP_INTERCOMM_MERGE: case PSK_FNOP_COMM_FREE:
        return 1;
    default: /* Comm_create_group (newcomm_group), the group calls (local) */
        return 0;
    }
}

/* rank r's count of collectives on its communicators: before the first
 * execution of node n (taking part rank j), kept; a new communicator
 * starts at 0 */
static int count_coll(gen *g, gnode *n, int j, int32_t r, const psk_event *e, int first)
{
    if (!collective(e->fn) || !PSK_HAS(e, PSK_F_COMM))
        return 0;
    int64_t c = e->v[PSK_F_COMM];
    if (c < 0 || c > (1 << 20))
        return 0;
    if (psk_grow((void **)&g->ccount[r], &g->nccount[r], c, sizeof **g->ccount))
        return -1;
    if (first) {
        if (!n->collpre && !(n->collpre = calloc((size_t)n->np, sizeof *n->collpre)))
            return -1;
        n->collpre[j] = g->ccount[r][c];
    }
    g->ccount[r][c]++;
    int64_t nc = PSK_HAS(e, PSK_F_NEWID) ? e->v[PSK_F_NEWID] : -1;
    if (nc >= 2 && nc <= (1 << 20)) {
        if (psk_grow((void **)&g->ccount[r], &g->nccount[r], nc, sizeof **g->ccount))
            return -1;
        g->ccount[r][nc] = 0;
    }
    return 0;
}

/* the bytes of a v-collective's array f (COUNTS or RCOUNTS) of e, k-th entry */
static int64_t varr_bytes(const psk_event *e, int f, uint32_t k)
{
    int sf = f == PSK_F_COUNTS ? (PSK_HAS(e, PSK_F_DTSIZES) ? PSK_F_DTSIZES : PSK_F_DTSIZE)
                               : PSK_HAS(e, PSK_F_RDTSIZES) ? PSK_F_RDTSIZES
                               : PSK_HAS(e, PSK_F_RDTSIZE)  ? PSK_F_RDTSIZE
                                                            : PSK_F_DTSIZE;
    int64_t sz = 1;
    if (sf < PSK_F_FIRST_ARRAY)
        sz = PSK_HAS(e, sf) ? e->v[sf] : 1;
    else if (PSK_HAS(e, sf) && k < PSK_ARRN(e, sf))
        sz = PSK_ARR(e, sf)[k];
    return PSK_ARR(e, f)[k] * sz;
}

#define VARR_MAX (1u << 22) /* values of one node's arrays by execution, at most */

/* A v-collective's arrays in this execution, against its first's: kept by
 * execution from the first that differs on (the ones before as the first) */
static int note_varrays(gnode *n, int j, const psk_event *e, uint64_t exec)
{
    uint32_t w1 = PSK_HAS(e, PSK_F_COUNTS) ? PSK_ARRN(e, PSK_F_COUNTS) : 0;
    uint32_t w2 = PSK_HAS(e, PSK_F_RCOUNTS) ? PSK_ARRN(e, PSK_F_RCOUNTS) : 0;
    const psk_event *f0 = &n->first[j];
    n->vlen1 = w1 > n->vlen1 ? w1 : n->vlen1;
    n->vlen2 = w2 > n->vlen2 ? w2 : n->vlen2;
    if (exec == 0 || n->varr < 0)
        return 0;
    uint32_t f1 = PSK_HAS(f0, PSK_F_COUNTS) ? PSK_ARRN(f0, PSK_F_COUNTS) : 0;
    uint32_t f2 = PSK_HAS(f0, PSK_F_RCOUNTS) ? PSK_ARRN(f0, PSK_F_RCOUNTS) : 0;
    if (w1 > n->vw1 || w2 > n->vw - n->vw1 || f1 > n->vw1 || f2 > n->vw - n->vw1) {
        n->varr = -1; /* longer than the communicator can be: not kept by execution */
        return 0;
    }
    if (!n->varr) {
        int same = w1 == f1 && w2 == f2;
        for (uint32_t k = 0; same && k < w1; k++)
            same = varr_bytes(e, PSK_F_COUNTS, k) == varr_bytes(f0, PSK_F_COUNTS, k);
        for (uint32_t k = 0; same && k < w2; k++)
            same = varr_bytes(e, PSK_F_RCOUNTS, k) == varr_bytes(f0, PSK_F_RCOUNTS, k);
        if (same)
            return 0;
        n->varr = 1;
    }
    if (!n->va && !(n->va = calloc((size_t)n->np, sizeof *n->va)))
        return -1;
    if ((uint64_t)(exec + 1) * n->vw * (uint64_t)n->np > VARR_MAX) {
        n->varr = -1;
        return 0;
    }
    if (!n->va[j]) { /* from the first execution on: the ones before were the first's */
        if (!(n->va[j] = malloc((size_t)(exec + 1) * n->vw * sizeof **n->va)))
            return -1;
        for (uint64_t x = 0; x < exec; x++) {
            int64_t *row = n->va[j] + x * n->vw;
            memset(row, 0, n->vw * sizeof *row);
            for (uint32_t k = 0; k < f1; k++)
                row[k] = varr_bytes(f0, PSK_F_COUNTS, k);
            for (uint32_t k = 0; k < f2; k++)
                row[n->vw1 + k] = varr_bytes(f0, PSK_F_RCOUNTS, k);
        }
    } else {
        int64_t *g = realloc(n->va[j], (size_t)(exec + 1) * n->vw * sizeof **n->va);
        if (!g)
            return -1;
        n->va[j] = g;
    }
    int64_t *row = n->va[j] + exec * n->vw;
    memset(row, 0, n->vw * sizeof *row);
    for (uint32_t k = 0; k < w1; k++)
        row[k] = varr_bytes(e, PSK_F_COUNTS, k);
    for (uint32_t k = 0; k < w2; k++)
        row[n->vw1 + k] = varr_bytes(e, PSK_F_RCOUNTS, k);
    return 0;
}

static int visit(void *arg, const psk_fstep *st)
{
    collect *c = arg;
    gen *g = c->g;
    const psk_mevent *me = st->ev;
    int32_t id = st->node;
    const int64_t *iter = st->iter;
    /* the shortest gap is what the recorder and the program's own argument
     * set-up cost between back-to-back calls; the skeleton's code between
     * its calls takes about as long, so only the gap beyond it is work */
    if (psk_fn_op(me->fn) != PSK_FNOP_INIT)
        for (int j = 0; j < me->nranks; j++)
            if ((double)me->gap[j] < g->min_gap[me->ranks[j]])
                g->min_gap[me->ranks[j]] = (double)me->gap[j];
    /* MPI_THREAD_MULTIPLE is 3 in both MPIs' headers: a rank that asked
     * for it and called from one thread is replayed as any other; calls of
     * several threads cannot be put in one order (nor those of a trace
     * older than format 4, which did not record the threads) */
    int provided = psk_fn_op(me->fn) == PSK_FNOP_INIT && (psk_fn_fields(me->fn) >> PSK_F_I2 & 1u); /* Init_thread */
    for (int j = 0; provided && g->mt_rank < 0 && j < me->nranks; j++) {
        int nt = psk_merged_rank_threads(g->m, me->ranks[j]);
        if (me->ev[j].v[PSK_F_I2] == 3 && (g->job->format_version < PSK_FORMAT_VERSION_THREADS || nt > 1))
            g->mt_rank = me->ranks[j], g->mt_threads = g->job->format_version < PSK_FORMAT_VERSION_THREADS ? 0 : nt;
    }
    /* the loops this call is the first of: what was in flight as they began */
    for (int32_t x = psk_folded_node(g->f, id)->parent; x > 0; x = psk_folded_node(g->f, x)->parent) {
        if (psk_folded_node(g->f, x)->kind != PSK_FNODE_LOOP)
            continue;
        if (g->entry[x] != -2)
            break; /* begun before, and the loops around it too */
        g->entry[x] = g->inflight;
    }
    for (int j = 0; j < me->nranks; j++)
        count_msgs(g, me->ranks[j], &me->ev[j]);
    gnode *n = &g->node[id];
    if (!n->seen) {
        n->seen = 1;
        n->np = me->nranks;
        n->ranks = me->ranks;
        memcpy(n->kind, me->kind, sizeof n->kind);
        memcpy(n->c, me->c, sizeof n->c);
        n->first = calloc((size_t)me->nranks, sizeof *n->first);
        n->gap = calloc((size_t)me->nranks, sizeof *n->gap);
        n->tns = calloc((size_t)me->nranks, sizeof *n->tns);
        if (psk_fn_polled(me->fn)) {
            n->pwork = calloc((size_t)me->nranks, sizeof *n->pwork);
            n->pcalls = calloc((size_t)me->nranks, sizeof *n->pcalls);
            if (!n->pwork || !n->pcalls)
                return c->rc = PSK_ENOMEM;
        }
        if (!n->first || !n->gap || !n->tns)
            return c->rc = PSK_ENOMEM;
        for (int j = 0; j < me->nranks; j++)
            if (copy_event(&n->first[j], &me->ev[j]))
                return c->rc = PSK_ENOMEM;
        /* v-collective arrays: rows as long as the communicator can be
         * (an array only the root reads is empty on the other ranks, and
         * the root may change) */
        if (PSK_HAS(&me->ev[0], PSK_F_COUNTS) || PSK_HAS(&me->ev[0], PSK_F_RCOUNTS)) {
            const psk_event *e = &me->ev[0];
            n->vw1 = PSK_HAS(e, PSK_F_COUNTS) ? (uint32_t)g->P : 0;
            n->vw = n->vw1 + (PSK_HAS(e, PSK_F_RCOUNTS) ? (uint32_t)g->P : 0);
        }
    }
    /* one resource per iteration: the request or communicator id the
     * skeleton will use is the recorded one in every execution, so no two
     * live objects can share a slot */
    static const int ids[] = {PSK_F_REQ, PSK_F_NEWID};
    for (int q = 0; q < 2; q++)
        for (int j = 0; PSK_HAS(me, ids[q]) && j < me->nranks && j < n->np; j++) {
            int64_t want = me->ev[j].v[ids[q]], got = gen_value_at(g, id, ids[q], j, iter, (int64_t)n->execs);
            if (want != got && want >= 0) {
                gen_fail(g, "event %d (%s), execution %llu: rank %d's %s would be %lld in the skeleton, %lld when "
                         "recorded: two live objects could share a slot", id, psk_fn_name(me->fn),
                      (unsigned long long)n->execs, me->ranks[j], ids[q] == PSK_F_REQ ? "request" : "new communicator",
                      (long long)got, (long long)want);
                return c->rc = PSK_EINVAL;
            }
        }
    for (int j = 0; j < me->nranks && j < n->np; j++)
        if (count_coll(g, n, j, me->ranks[j], &me->ev[j], n->execs == 0))
            return c->rc = PSK_ENOMEM;
    n->execs++;
    for (int j = 0; j < me->nranks && j < n->np; j++) {
        n->gap[j] += (double)me->gap[j];
        const psk_event *e = &me->ev[j];
        n->tns[j] += (double)me->gap[j] + (double)(e->t_exit - e->t_entry);
        int done = gen_completion(e);
        if (done >= 0 && done_push(n, j, done))
            return c->rc = PSK_ENOMEM;
        if (n->pwork) {
            n->pwork[j] += (double)e->v[PSK_F_I2];
            n->pcalls[j] += (double)e->v[PSK_F_I1];
        } else {
            n->polled |= done == 0 || psk_fn_op(e->fn) == PSK_FNOP_IPROBE;
        }
        if (PSK_HAS(e, PSK_F_REQS) && note_reqs(g, n, j, me->ranks[j], e))
            return c->rc = PSK_ENOMEM;
        if (n->vw && note_varrays(n, j, e, n->execs - 1))
            return c->rc = PSK_ENOMEM;
    }
    for (int j = 0; j < me->nranks && j < n->np; j++) {
        if (wild_sources(g, id, j, me->ranks[j], &me->ev[j]) || note_comm(g, me->ranks[j], &me->ev[j]) ||
            note_preq(g, me->ranks[j], &me->ev[j]))
            return c->rc = PSK_ENOMEM;
        if (psk_fn_op(me->ev[j].fn) == PSK_FNOP_NCOLL)
            note_ncoll(g, n, me->ranks[j], &me->ev[j]);
    }
    return 0;
}

int gen_collect(gen *g)
{
    size_t P = (size_t)(g->P > 0 ? g->P : 1);
    g->node = calloc((size_t)psk_folded_nnodes(g->f), sizeof *g->node);
    g->pend = calloc(P, sizeof *g->pend);
    g->npend = calloc(P, sizeof *g->npend);
    g->cmem = calloc(P, sizeof *g->cmem);
    g->ncmem = calloc(P, sizeof *g->ncmem);
    g->preqs = calloc(P, sizeof *g->preqs);
    g->npreqs = calloc(P, sizeof *g->npreqs);
    g->lastarr = calloc(P, sizeof *g->lastarr);
    g->nlastarr = calloc(P, sizeof *g->nlastarr);
    g->ccount = calloc(P, sizeof *g->ccount);
    g->nccount = calloc(P, sizeof *g->nccount);
    g->rdiff = calloc(P, sizeof *g->rdiff);
    g->entry = malloc((size_t)psk_folded_nnodes(g->f) * sizeof *g->entry);
    collect c = {.g = g};
    if (!g->node || !g->pend || !g->npend || !g->cmem || !g->ncmem || !g->preqs || !g->npreqs || !g->lastarr ||
        !g->nlastarr || !g->ccount || !g->nccount || !g->rdiff || !g->entry)
        return gen_oom(g);
    for (int32_t id = 0; id < psk_folded_nnodes(g->f); id++)
        g->entry[id] = -2; /* not begun */
    int rc = psk_folded_walk_merged(g->f, g->m, visit, &c);
    if (!c.rc)
        c.rc = rc;
    if (c.rc) {
        if (g->failed)
            return -1;
        return gen_fail(g, "the merged trace does not match its folding (%s)", psk_merged_errmsg(g->m));
    }
    settle_sources(g);
    settle_reqs(g);
    return g->failed ? -1 : 0;
}

void gen_free_nodes(gen *g)
{
    for (int r = 0; g->pend && r < g->P; r++)
        free(g->pend[r]);
    free(g->pend);
    free(g->npend);
    g->pend = NULL;
    g->npend = NULL;
    for (int r = 0; g->cmem && r < g->P; r++) {
        for (int64_t c = 0; c < g->ncmem[r]; c++)
            free(g->cmem[r][c].w), free(g->cmem[r][c].cart);
        free(g->cmem[r]);
    }
    for (int r = 0; g->preqs && r < g->P; r++)
        free(g->preqs[r]);
    for (int r = 0; g->lastarr && r < g->P; r++)
        free(g->lastarr[r]);
    free(g->lastarr);
    free(g->nlastarr);
    g->lastarr = NULL;
    for (int r = 0; g->ccount && r < g->P; r++)
        free(g->ccount[r]);
    free(g->ccount);
    free(g->nccount);
    g->ccount = NULL;
    free(g->rdiff);
    free(g->entry);
    g->rdiff = g->entry = NULL;
    free(g->cmem);
    free(g->ncmem);
    free(g->preqs);
    free(g->npreqs);
    g->cmem = NULL;
    g->preqs = NULL;
    g->ncmem = g->npreqs = g->nccount = NULL; /* a second call frees nothing twice */
    g->nlastarr = NULL;
    if (!g->node)
        return;
    for (int32_t id = 0; id < psk_folded_nnodes(g->f); id++) {
        gnode *n = &g->node[id];
        for (int j = 0; n->first && j < n->np; j++)
            for (int f = PSK_F_FIRST_ARRAY; f < PSK_F_NFIELDS; f++)
                if (PSK_HAS(&n->first[j], f))
                    free((void *)PSK_ARR(&n->first[j], f));
        free(n->first);
        free(n->gap);
        free(n->tns);
        for (int j = 0; n->va && j < n->np; j++)
            free(n->va[j]);
        free(n->va);
        free(n->pwork);
        free(n->pcalls);
        for (int j = 0; n->src && j < n->np; j++)
            free(n->src[j]);
        free(n->src);
        free(n->nsrc);
        free(n->capsrc);
        for (int i = 0; i < n->ntabnames; i++)
            free(n->tabnames[i]);
        free(n->tabnames);
        for (int j = 0; n->done && j < n->np; j++)
            free(n->done[j]);
        free(n->done);
        free(n->ndone);
        free(n->capdone);
        free(n->hsrc);
        free(n->collpre);
        for (int j = 0; n->xr && j < n->np; j++)
            free(n->xr[j]);
        free(n->xr);
        free(n->nxr);
        free(n->capxr);
    }
    free(g->node);
    g->node = NULL;
}
