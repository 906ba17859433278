/* perfskel gen: the performance skeleton of a folded merged trace, as one
 * readable C file (seed 001 §4). The loop tree becomes for loops; each
 * merged event becomes its MPI call, guarded by which ranks take part, with
 * peers written as their pattern (rank + c, ring, or a table by rank),
 * tags, roots and ops as recorded, message sizes in bytes, request ids as
 * slots of one request array, new communicators recreated by MPI_Comm_split
 * with the recorded membership. Before each call a rank runs the mean
 * compute gap it had there, converted to work units with its own recorded
 * calibration (psk_work.h). A loop of at least K iterations not inside
 * another scaled loop runs count/K times, timed, and adds its time x
 * (count / iterations run - 1) to the prediction. Each rank makes its own
 * calls in its own order (the trace is merged without reordering), so the
 * skeleton cannot deadlock where the original did not: a Test-family call
 * waits exactly where, per rank and execution, the recorded one completed
 * something, and polls elsewhere; a matched probe hands the message it
 * matched to the next MPI_Mrecv. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perfskel/gen.h"
#include "psk_fn_ids.h"
#include "psk_mem.h"
#include "psk_work.h"

typedef struct gnode {
    int np;
    const int32_t *ranks;
    psk_event *first;   /* per taking part rank: its first execution */
    uint8_t kind[PSK_F_NFIELDS];
    int64_t c[PSK_F_FIRST_ARRAY];
    double *gap;        /* per taking part rank: summed compute gaps (ns) */
    uint64_t execs;
    int seen;
    /* wildcard receives: per taking part rank, the source each execution
     * got (recorded in the status), -1 until its completion is seen */
    int srcf;           /* PSK_F_PEER or PSK_F_RPEER; 0: none */
    int64_t **src;
    uint32_t *nsrc;
    int64_t *capsrc;
    int varsrc;         /* sources vary between executions: a table by execution */
    int counted;        /* a parameter reads a table by execution: T<id>_k counts them */
    char **tabnames;    /* the tables of this node written so far: each once */
    int ntabnames;
    /* Test-family calls and MPI_Improbe: per taking part rank, whether each
     * execution completed (found) something; replayed per rank and
     * execution: a Wait where the recording completed, a poll where not */
    uint8_t **done;
    uint32_t *ndone;
    int64_t *capdone;
    int polled;         /* some execution on some rank completed nothing */
    int hidden;         /* MPI_Improbe: the sources are for the wait before it, not its argument */
    int64_t *hsrc;      /* hidden: per taking part rank, the source waited for */
    /* request arrays (Startall, Wait/Test families) per taking part rank
     * and execution: [n, ids...] one after the other; reqsvary: some
     * differ from the rank's first; reqsbig: too many to keep */
    int64_t **xr;
    uint64_t *nxr;
    int64_t *capxr;
    int reqsvary, reqsbig;
} gnode;

/* a communicator as a rank saw it created: its members' world ranks;
 * an id re-used for other members is not followed (ambiguous) */
typedef struct cmembers {
    int64_t *w;
    uint32_t n;
    int known, ambiguous;
} cmembers;

/* a persistent request as its Send_init or Recv_init made it */
typedef struct preq {
    int kind;           /* 0 unknown, 1 send, 2 receive */
    int64_t peer, comm;
    int ambiguous;
} preq;

/* an Irecv from MPI_ANY_SOURCE waiting for the status that names its source
 * (id 0, the tree's root, never is an event: 0 means none) */
typedef struct pending {
    int32_t id, j;
    uint32_t pos;
} pending;

typedef struct gen {
    psk_merged *m;
    psk_folded *f;
    const psk_job *job;
    int P, K;
    gnode *node;
    FILE *body, *tabs;
    char *bodytxt, *tabstxt;
    size_t bodylen, tabslen;
    int64_t max_sbytes, max_rbytes, max_req, max_comm;
    int nscaled;
    int table_min;       /* runs of this many calls outside loops go into data */
    unsigned char fnused[256]; /* functions replayed from data: named in fname_ */
    int64_t *execs;      /* per node: its executions written into data so far */
    int multithreaded;
    int in_scaled;      /* emitting inside a scaled loop */
    pending **pend;     /* per rank, by request id */
    int64_t *npend;
    cmembers **cmem;    /* per rank, by communicator id: its world ranks */
    int64_t *ncmem;
    preq **preqs;       /* per rank, by request id: what a persistent request does */
    int64_t **lastarr;  /* per rank: the last Waitany/Waitsome/Testany/Testsome array (note_reqs) */
    uint32_t *nlastarr;
    int64_t *npreqs;
    double *unit_ns; /* per rank: ns of one work unit on its host */
    double *min_gap; /* per rank: its shortest gap between two calls (ns) */
    char *err;
    size_t errcap;
    int failed;
} gen;

static int gfail(gen *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->err, g->errcap, fmt, ap);
    va_end(ap);
    g->failed = 1;
    return -1;
}

static int is(unsigned fn, const char *name) { return !strcmp(psk_fn_name(fn), name); }

/* whether a Test-family call completed something, or an MPI_Improbe
 * found a message: 1 or 0; -1 for other calls */
static int completion(const psk_event *e)
{
    unsigned fn = e->fn;
    if (is(fn, "MPI_Test") || is(fn, "MPI_Testall") || is(fn, "MPI_Improbe"))
        return PSK_HAS(e, PSK_F_FLAG) && e->v[PSK_F_FLAG] != 0;
    if (is(fn, "MPI_Testany"))
        return PSK_HAS(e, PSK_F_FLAG) && e->v[PSK_F_FLAG] && PSK_HAS(e, PSK_F_INDEX) && e->v[PSK_F_INDEX] >= 0;
    if (is(fn, "MPI_Testsome"))
        return PSK_HAS(e, PSK_F_INDICES) && PSK_ARRN(e, PSK_F_INDICES) > 0;
    return -1;
}

/* 1 the first time table `name` of node id is asked for (write it), 0 after:
 * a field's expression may be needed more than once (an MPI_Wait's request
 * names its slot twice), its table must be defined once */
static int table_once(gen *g, int32_t id, const char *name)
{
    gnode *n = &g->node[id];
    for (int i = 0; i < n->ntabnames; i++)
        if (!strcmp(n->tabnames[i], name))
            return 0;
    char **a = realloc(n->tabnames, (size_t)(n->ntabnames + 1) * sizeof *a);
    char *copy = strdup(name);
    if (!a || !copy) {
        free(copy);
        if (a)
            n->tabnames = a;
        gfail(g, "out of memory");
        return 0;
    }
    n->tabnames = a;
    n->tabnames[n->ntabnames++] = copy;
    return 1;
}
static int64_t skeleton_value(const gen *g, int32_t id, int f, int j, const int64_t *iter, int depth, int64_t k);

/* ---- pass 1: per event of the tree, every rank's first execution and
 * its mean compute gap ---- */

typedef struct collect {
    gen *g;
    psk_mcursor *cur;
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

/* the request array of one execution on taking part rank j, kept for a
 * table by execution if they differ. Waitany, Waitsome, Testany and
 * Testsome see MPI_REQUEST_NULL where the original had completed a
 * request before; the skeleton may have completed another one (timing), so
 * it passes the request last seen there instead: every request is then
 * completed by the same number of calls as in the original. */
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
    int carry = is(e->fn, "MPI_Waitany") || is(e->fn, "MPI_Waitsome") || is(e->fn, "MPI_Testany") ||
                is(e->fn, "MPI_Testsome");
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
    unsigned fn = e->fn;
    int f = is(fn, "MPI_Recv") || is(fn, "MPI_Irecv") || is(fn, "MPI_Probe") || is(fn, "MPI_Mprobe") ||
                    is(fn, "MPI_Improbe") ? PSK_F_PEER
            : is(fn, "MPI_Sendrecv") || is(fn, "MPI_Sendrecv_replace") ? PSK_F_RPEER : 0;
    if (f && PSK_HAS(e, f) && e->v[f] == PSK_ANY_SOURCE) {
        n->srcf = f;
        if (is(fn, "MPI_Improbe")) {
            /* its argument stays MPI_ANY_SOURCE; the source of each message
             * it found is what the skeleton waits for before it */
            n->hidden = 1;
            if (completion(e) != 1)
                return 0;
        }
        if (!is(fn, "MPI_Irecv"))
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
                gfail(g, "out of memory");
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
        /* the first execution's array as note_reqs completed it */
        for (int j = 0; n->xr && j < n->np; j++)
            if (n->nxr[j] && (uint64_t)n->xr[j][0] == PSK_ARRN(&n->first[j], PSK_F_REQS) && n->xr[j][0])
                memcpy((void *)PSK_ARR(&n->first[j], PSK_F_REQS), &n->xr[j][1], (size_t)n->xr[j][0] * sizeof(int64_t));
        if (!n->reqsvary || n->reqsbig)
            continue;
        uint64_t w = 1;
        for (int j = 0; j < n->np; j++)
            for (uint64_t at = 0; at < n->nxr[j]; at += 1 + (uint64_t)n->xr[j][at])
                w = (uint64_t)n->xr[j][at] > w ? (uint64_t)n->xr[j][at] : w;
        if (n->execs * (uint64_t)g->P * w > (1u << 22))
            n->reqsbig = 1;
    }
}

/* the members of each communicator a rank creates (so that loops on it
 * can be checked for balance in world ranks) */
static int note_comm(gen *g, int32_t r, const psk_event *e)
{
    if (!PSK_HAS(e, PSK_F_NEWID) || !PSK_HAS(e, PSK_F_MEMBERS) || !strncmp(psk_fn_name(e->fn), "MPI_Group_", 10))
        return 0;
    int64_t c = e->v[PSK_F_NEWID];
    if (c < 2 || c > (1 << 20))
        return 0;
    if (psk_grow((void **)&g->cmem[r], &g->ncmem[r], c, sizeof **g->cmem))
        return -1;
    cmembers *m = &g->cmem[r][c];
    const int64_t *w = PSK_ARR(e, PSK_F_MEMBERS);
    uint32_t nw = PSK_ARRN(e, PSK_F_MEMBERS);
    if (m->known) {
        if (m->n != nw || (nw && memcmp(m->w, w, nw * sizeof *w)))
            m->ambiguous = 1;
        return 0;
    }
    m->w = malloc((nw ? nw : 1) * sizeof *m->w);
    if (!m->w)
        return -1;
    if (nw)
        memcpy(m->w, w, nw * sizeof *w);
    m->n = nw;
    m->known = 1;
    return 0;
}

/* what each persistent request sends or receives, from its init call */
static int note_preq(gen *g, int32_t r, const psk_event *e)
{
    const char *name = psk_fn_name(e->fn);
    int kind = !strcmp(name, "MPI_Recv_init") ? 2
               : psk_fn_class(e->fn) == PSK_CLASS_PERSIST && strstr(name, "end_init") ? 1 : 0;
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

static int visit(void *arg, int64_t pos, int32_t id, const int64_t *iter, int depth)
{
    (void)pos;
    collect *c = arg;
    gen *g = c->g;
    psk_mevent me;
    int rc = psk_mcursor_next(c->cur, &me);
    if (rc)
        return c->rc = rc == PSK_EOF ? PSK_EINVAL : rc;
    /* the shortest gap is what the recorder and the program's own argument
     * set-up cost between back-to-back calls; the skeleton's code between
     * its calls takes about as long, so only the gap beyond it is work */
    if (!is(me.fn, "MPI_Init") && !is(me.fn, "MPI_Init_thread"))
        for (int j = 0; j < me.nranks; j++)
            if ((double)me.gap[j] < g->min_gap[me.ranks[j]])
                g->min_gap[me.ranks[j]] = (double)me.gap[j];
    /* MPI_THREAD_MULTIPLE is 3 in both MPIs' headers */
    if (is(me.fn, "MPI_Init_thread") && me.ev[0].v[PSK_F_I2] == 3)
        g->multithreaded = 1;
    gnode *n = &g->node[id];
    if (!n->seen) {
        n->seen = 1;
        n->np = me.nranks;
        n->ranks = me.ranks;
        memcpy(n->kind, me.kind, sizeof n->kind);
        memcpy(n->c, me.c, sizeof n->c);
        n->first = calloc((size_t)me.nranks, sizeof *n->first);
        n->gap = calloc((size_t)me.nranks, sizeof *n->gap);
        if (!n->first || !n->gap)
            return c->rc = PSK_ENOMEM;
        for (int j = 0; j < me.nranks; j++)
            if (copy_event(&n->first[j], &me.ev[j]))
                return c->rc = PSK_ENOMEM;
    }
    /* one resource per iteration: the request or communicator id the
     * skeleton will use is the recorded one in every execution, so no two
     * live objects can share a slot */
    static const int ids[] = {PSK_F_REQ, PSK_F_NEWID};
    for (int q = 0; q < 2; q++)
        for (int j = 0; PSK_HAS(&me, ids[q]) && j < me.nranks && j < n->np; j++) {
            int64_t want = me.ev[j].v[ids[q]], got = skeleton_value(g, id, ids[q], j, iter, depth, (int64_t)n->execs);
            if (want != got && want >= 0) {
                gfail(g, "event %d (%s), execution %llu: rank %d's %s would be %lld in the skeleton, %lld when "
                         "recorded: two live objects could share a slot", id, psk_fn_name(me.fn),
                      (unsigned long long)n->execs, me.ranks[j], ids[q] == PSK_F_REQ ? "request" : "new communicator",
                      (long long)got, (long long)want);
                return c->rc = PSK_EINVAL;
            }
        }
    n->execs++;
    for (int j = 0; j < me.nranks && j < n->np; j++) {
        n->gap[j] += (double)me.gap[j];
        const psk_event *e = &me.ev[j];
        int done = completion(e);
        if (done >= 0 && done_push(n, j, done))
            return c->rc = PSK_ENOMEM;
        n->polled |= done == 0 || is(e->fn, "MPI_Iprobe");
        if (PSK_HAS(e, PSK_F_REQS) && note_reqs(g, n, j, me.ranks[j], e))
            return c->rc = PSK_ENOMEM;
    }
    for (int j = 0; j < me.nranks && j < n->np; j++)
        if (wild_sources(g, id, j, me.ranks[j], &me.ev[j]) || note_comm(g, me.ranks[j], &me.ev[j]) ||
            note_preq(g, me.ranks[j], &me.ev[j]))
            return c->rc = PSK_ENOMEM;
    return 0;
}

/* ---- values: a literal when every rank has the same, a pattern for
 * peers, else a table by world rank ---- */

/* ---- loop-variant parameters (psk_folded_params): expressions of the
 * index of an enclosing loop, whose variable is i<loop node id> ---- */

static void emit_table(gen *g, const gnode *n, int32_t id, const char *what, const int64_t *vals);

static const psk_fparam *param_of(const gen *g, int32_t id, int f)
{
    int n;
    const psk_fparam *p = psk_folded_params(g->f, id, &n);
    for (int i = 0; i < n; i++)
        if (p[i].field == f)
            return &p[i];
    return NULL;
}

/* the loop node at depth d (0 = outermost) above node id */
static int32_t loop_at(const gen *g, int32_t id, int d)
{
    int32_t chain[64];
    int D = 0;
    for (int32_t x = psk_folded_node(g->f, id)->parent; x > 0; x = psk_folded_node(g->f, x)->parent)
        if (psk_folded_node(g->f, x)->kind == PSK_FNODE_LOOP && D < 64)
            chain[D++] = x;
    return d >= 0 && d < D ? chain[D - 1 - d] : -1;
}

/* a table of a parameter, once */
static void param_table(gen *g, int32_t id, const char *what, const int64_t *t, int64_t n)
{
    char name[96];
    snprintf(name, sizeof name, "T%d_%s_v", id, what);
    if (!table_once(g, id, name))
        return;
    fprintf(g->tabs, "static const long long T%d_%s_v[%lld] = {", id, what, (long long)n);
    for (int64_t i = 0; i < n; i++)
        fprintf(g->tabs, "%s%lld", i ? (i % 16 ? ", " : ",\n    ") : "", (long long)t[i]);
    fprintf(g->tabs, "};\n");
}

/* e(i) of parameter p of node id as C; tables go to g->tabs */
static void param_c(gen *g, int32_t id, const psk_fparam *p, const char *what, char *out, size_t cap)
{
    int32_t L = loop_at(g, id, p->depth);
    char i[32];
    snprintf(i, sizeof i, "(long long)i%d", L);
    switch (p->kind) {
    case PSK_VARY_AFFINE:
        snprintf(out, cap, "(%lldLL * %s + %lldLL)", (long long)p->a, i, (long long)p->b);
        return;
    case PSK_VARY_MOD:
        snprintf(out, cap, "pmod_(%lldLL * %s + %lldLL, %lldLL)", (long long)p->a, i, (long long)p->b,
                 (long long)p->m);
        return;
    case PSK_VARY_PERIODIC:
    case PSK_VARY_ITER:
        param_table(g, id, what, p->table, p->n);
        snprintf(out, cap, "T%d_%s_v[%s %% %lldLL]", id, what, i, (long long)p->n);
        return;
    case PSK_VARY_EXEC:
        param_table(g, id, what, p->table, p->n);
        snprintf(out, cap, "T%d_%s_v[T%d_k %% %lldLL]", id, what, id, (long long)p->n);
        g->node[id].counted = 1;
        return;
    default: { /* per execution and rank: rows of NRANKS */
        const gnode *n = &g->node[id];
        int64_t E = p->m ? p->n / p->m : 0;
        if (E * g->P > (1 << 24)) {
            gfail(g, "event %d (%s): %s differs per rank and execution in %lld executions: too large a table", id,
                  psk_fn_name(n->first[0].fn), psk_field_name(p->field), (long long)E);
            snprintf(out, cap, "0");
            return;
        }
        char name[96];
        snprintf(name, sizeof name, "T%d_%s_r", id, what);
        if (table_once(g, id, name)) {
            fprintf(g->tabs, "static const long long %s[%lld][NRANKS] = {", name, (long long)(E ? E : 1));
            for (int64_t k = 0; k < (E ? E : 1); k++) {
                fprintf(g->tabs, "%s{", k ? ",\n    " : "");
                for (int r = 0, j = 0; r < g->P; r++) {
                    long long v = 0;
                    if (j < n->np && n->ranks[j] == r)
                        v = k < E ? p->table[k * p->m + j++] : 0;
                    fprintf(g->tabs, "%s%lld", r ? ", " : "", v);
                }
                fprintf(g->tabs, "}");
            }
            fprintf(g->tabs, "};\n");
        }
        snprintf(out, cap, "T%d_%s_r[T%d_k %% %lldLL][rank_]", id, what, id, (long long)(E ? E : 1));
        g->node[id].counted = 1;
        return;
    }
    }
}

/* the value of a varying field as C: e(i), first + e(i) by rank, or the
 * peer pattern with offset e(i); 0 if f does not vary */
static int param_expr(gen *g, int32_t id, int f, const char *what, char *out, size_t cap)
{
    const psk_fparam *p = param_of(g, id, f);
    if (!p)
        return 0;
    const gnode *n = &g->node[id];
    char e[256];
    param_c(g, id, p, what, e, sizeof e);
    if (p->kind == PSK_VARY_RANKEXEC || p->mode == PSK_PMODE_VALUE) {
        snprintf(out, cap, "%s", e);
    } else if (p->mode == PSK_PMODE_OFFSET) {
        int64_t comm = PSK_HAS(&n->first[0], PSK_F_COMM) ? n->first[0].v[PSK_F_COMM] : 0;
        snprintf(out, cap, "%s(%lld, %s)", p->ring ? "peer_ring" : "peer_rank", (long long)comm, e);
    } else {
        int64_t *base = malloc((size_t)n->np * sizeof *base);
        if (!base) {
            gfail(g, "out of memory");
            snprintf(out, cap, "0");
            return 1;
        }
        for (int j = 0; j < n->np; j++)
            base[j] = n->first[j].v[f];
        char bw[48];
        snprintf(bw, sizeof bw, "%s_base", what);
        emit_table(g, n, id, bw, base);
        free(base);
        snprintf(out, cap, "(T%d_%s[rank_] + %s)", id, bw, e);
    }
    return 1;
}

/* what the skeleton gives field f of node id on its j-th rank at loop
 * indices iter[] and execution k (for checking it against the recording) */
static int64_t skeleton_value(const gen *g, int32_t id, int f, int j, const int64_t *iter, int depth, int64_t k)
{
    const gnode *n = &g->node[id];
    const psk_fparam *p = param_of(g, id, f);
    if (!p)
        return n->first[j].v[f];
    if (p->kind == PSK_VARY_RANKEXEC)
        return p->table[k * p->m + j];
    int64_t e = psk_fparam_eval(p, p->depth < depth ? iter[p->depth] : 0, k);
    return p->mode == PSK_PMODE_DELTA ? n->first[j].v[f] + e : e;
}

static int all_same(const gnode *n, int f)
{
    for (int j = 1; j < n->np; j++)
        if (n->first[j].v[f] != n->first[0].v[f])
            return 0;
    return 1;
}

static void table_name(char *buf, size_t cap, int32_t id, const char *what)
{
    snprintf(buf, cap, "T%d_%s", id, what);
}

/* a per-rank table of one scalar (0 for ranks not taking part) */
static void emit_table(gen *g, const gnode *n, int32_t id, const char *what, const int64_t *vals)
{
    char name[64];
    table_name(name, sizeof name, id, what);
    if (!table_once(g, id, name))
        return;
    fprintf(g->tabs, "static const long long %s[NRANKS] = {", name);
    for (int r = 0, j = 0; r < g->P; r++) {
        long long v = 0;
        if (j < n->np && n->ranks[j] == r)
            v = vals[j++];
        fprintf(g->tabs, "%s%lld", r ? ", " : "", v);
    }
    fprintf(g->tabs, "};\n");
}

/* the C expression of scalar field f at node id */
static void expr(gen *g, int32_t id, int f, const char *what, char *out, size_t cap)
{
    const gnode *n = &g->node[id];
    if (param_expr(g, id, f, what, out, cap))
        return;
    if (all_same(n, f)) {
        snprintf(out, cap, "%lld", (long long)n->first[0].v[f]);
        return;
    }
    int64_t comm = PSK_HAS(&n->first[0], PSK_F_COMM) ? n->first[0].v[PSK_F_COMM] : 0;
    if ((f == PSK_F_PEER || f == PSK_F_RPEER) && n->kind[f] == PSK_PAT_RANK) {
        snprintf(out, cap, "peer_rank(%lld, %lld)", (long long)comm, (long long)n->c[f]);
        return;
    }
    if ((f == PSK_F_PEER || f == PSK_F_RPEER) && n->kind[f] == PSK_PAT_RING) {
        snprintf(out, cap, "peer_ring(%lld, %lld)", (long long)comm, (long long)n->c[f]);
        return;
    }
    int64_t *vals = malloc((size_t)n->np * sizeof *vals);
    if (!vals) {
        gfail(g, "out of memory");
        snprintf(out, cap, "0");
        return;
    }
    for (int j = 0; j < n->np; j++)
        vals[j] = n->first[j].v[f];
    emit_table(g, n, id, what, vals);
    free(vals);
    char name[64];
    table_name(name, sizeof name, id, what);
    snprintf(out, cap, "%s[rank_]", name);
}

/* dflt (a C int), or where the wildcard sources of node id vary between
 * executions (outside scaled loops), the recorded source of each
 * execution read in order from a table per rank (then 1) */
static int src_table(gen *g, int32_t id, const char *dflt, char *out, size_t cap)
{
    const gnode *n = &g->node[id];
    size_t total = 0;
    for (int j = 0; n->varsrc && j < n->np; j++)
        total += n->nsrc[j];
    if (!n->varsrc || g->in_scaled || total > (1u << 20)) {
        snprintf(out, cap, "%s", dflt);
        return 0;
    }
    /* ranks whose source did not vary use dflt */
    char tn[64];
    snprintf(tn, sizeof tn, "T%d_src", id);
    if (table_once(g, id, tn)) {
        for (int j = 0; j < n->np; j++) {
            if (!n->nsrc[j])
                continue;
            fprintf(g->tabs, "static const int T%d_src%d[%u] = {", id, n->ranks[j], n->nsrc[j]);
            for (uint32_t k = 0; k < n->nsrc[j]; k++)
                fprintf(g->tabs, "%s%lld", k ? (k % 20 ? ", " : ",\n    ") : "", (long long)n->src[j][k]);
            fprintf(g->tabs, "};\n");
        }
        fprintf(g->tabs, "static const int *const T%d_src[NRANKS] = {", id);
        for (int r = 0, j = 0; r < g->P; r++) {
            while (j < n->np && n->ranks[j] < r)
                j++;
            if (j < n->np && n->ranks[j] == r && n->nsrc[j])
                fprintf(g->tabs, "%sT%d_src%d", r ? ", " : "", id, r);
            else
                fprintf(g->tabs, "%s0", r ? ", " : "");
        }
        fprintf(g->tabs, "};\nstatic long long T%d_at;\n", id);
    }
    snprintf(out, cap, "wsrc_(T%d_src[rank_], &T%d_at, %s) /* recorded sources */", id, id, dflt);
    return 1;
}

/* a peer value in the skeleton: perfskel's constants back to MPI's */
static void peer_expr(gen *g, int32_t id, int f, const char *what, char *out, size_t cap)
{
    char e[128], d[160];
    expr(g, id, f, what, e, sizeof e);
    const gnode *n = &g->node[id];
    snprintf(d, sizeof d, "peer_(%s)", e);
    if (n->srcf != f || n->hidden)
        snprintf(out, cap, "%s", d);
    else
        src_table(g, id, d, out, cap);
}

/* the source an MPI_Improbe that found a message waits for first: the
 * source it found (per rank, or per execution from a table) where it was
 * called with MPI_ANY_SOURCE, else its argument */
static void hidden_src_expr(gen *g, int32_t id, char *out, size_t cap)
{
    const gnode *n = &g->node[id];
    if (!n->hidden || !n->hsrc || param_of(g, id, PSK_F_PEER)) {
        peer_expr(g, id, PSK_F_PEER, "peer", out, cap);
        return;
    }
    char d[160];
    int same = 1;
    for (int j = 1; j < n->np; j++)
        same &= n->hsrc[j] == n->hsrc[0];
    if (same) {
        snprintf(d, sizeof d, "peer_(%lld)", (long long)n->hsrc[0]);
    } else {
        emit_table(g, n, id, "hsrc", n->hsrc);
        snprintf(d, sizeof d, "peer_(T%d_hsrc[rank_])", id);
    }
    src_table(g, id, d, out, cap);
}

/* whether the current execution of Test-family call or MPI_Improbe id
 * completed (found) something when recorded, on this rank, as C: 1 or 0
 * when that is so throughout, a table by rank when each rank's is, else a
 * bit table by rank and execution read by the node's execution counter.
 * Tables too large to write fall back to polling wherever some execution
 * polled: a poll never waits for what the recording did not get. */
static void done_expr(gen *g, int32_t id, char *out, size_t cap)
{
    gnode *n = &g->node[id];
    int any1 = 0, any0 = 0, perrank = 1;
    uint32_t E = 0;
    int64_t *v = malloc((size_t)(n->np ? n->np : 1) * sizeof *v);
    if (!v) {
        gfail(g, "out of memory");
        snprintf(out, cap, "0");
        return;
    }
    for (int j = 0; j < n->np; j++) {
        int one = 0, zero = 0;
        for (uint32_t k = 0; n->done && k < n->ndone[j]; k++)
            n->done[j][k] ? (one = 1) : (zero = 1);
        any1 |= one, any0 |= zero;
        perrank &= !(one && zero);
        v[j] = one && !zero;
        if (n->done && n->ndone[j] > E)
            E = n->ndone[j];
    }
    uint64_t bytes = (uint64_t)g->P * ((E + 7) / 8);
    if (!any1 || !any0) {
        snprintf(out, cap, "%d", any1);
    } else if (perrank || bytes > (1u << 22)) {
        emit_table(g, n, id, "done", v);
        snprintf(out, cap, "T%d_done[rank_]", id);
    } else {
        char tn[64];
        snprintf(tn, sizeof tn, "T%d_doneb", id);
        if (table_once(g, id, tn)) {
            uint32_t W = (E + 7) / 8;
            fprintf(g->tabs, "static const unsigned char T%d_doneb[NRANKS][%u] = {", id, W);
            for (int r = 0, j = 0; r < g->P; r++) {
                int in = j < n->np && n->ranks[j] == r;
                fprintf(g->tabs, "%s{", r ? ",\n    " : "");
                for (uint32_t w = 0; w < W; w++) {
                    unsigned b = 0;
                    for (uint32_t k = 8 * w; in && k < 8 * w + 8 && k < n->ndone[j]; k++)
                        b |= (unsigned)(n->done[j][k] != 0) << (k - 8 * w);
                    fprintf(g->tabs, "%s0x%02x", w ? (w % 16 ? ", " : ",\n     ") : "", b);
                }
                fprintf(g->tabs, "}");
                j += in;
            }
            fprintf(g->tabs, "};\n");
        }
        snprintf(out, cap, "bit_(T%d_doneb[rank_], T%d_k, %uLL)", id, id, E);
        n->counted = 1;
    }
    free(v);
}

static void tag_expr(gen *g, int32_t id, int f, const char *what, char *out, size_t cap)
{
    char e[128];
    expr(g, id, f, what, e, sizeof e);
    snprintf(out, cap, "tag_(%s)", e);
}

/* bytes of one rank's message: count x datatype size, the count following
 * the iteration where the folding found it does */
/* how a count that changes with the iteration is written: followed exactly
 * (sends), as its largest value (point-to-point receives, which may take
 * less than they offer), or as the first execution's (collectives, whose
 * ranks must agree on counts) */
enum { CNT_EXACT, CNT_UPPER, CNT_FIRST };

static void bytes_expr(gen *g, int32_t id, int cf, int sf, const char *loopvar, char *out, size_t cap, int mode)
{
    const gnode *n = &g->node[id];
    const psk_fstats *s = psk_folded_node_stats(g->f, id);
    int64_t dts = PSK_HAS(&n->first[0], sf) ? n->first[0].v[sf] : 1, maxc = 0;
    for (int j = 0; j < n->np; j++) {
        int64_t c = n->first[j].v[cf] * (PSK_HAS(&n->first[j], sf) ? n->first[j].v[sf] : 1);
        maxc = c > maxc ? c : maxc;
    }
    (void)loopvar, (void)mode, (void)s;
    if (param_of(g, id, cf)) {
        /* a count that changes between executions: exactly as recorded
         * (receives and collectives too: every rank follows its own) */
        char e[320], dt[64];
        param_expr(g, id, cf, cf == PSK_F_COUNT ? "count" : "rcount", e, sizeof e);
        int64_t maxdts = 1;
        for (int j = 0; j < n->np; j++) {
            int64_t d = PSK_HAS(&n->first[j], sf) ? n->first[j].v[sf] : 1;
            maxdts = d > maxdts ? d : maxdts;
        }
        if (all_same(n, sf) || !PSK_HAS(&n->first[0], sf)) {
            snprintf(dt, sizeof dt, "%lldLL", (long long)dts);
        } else {
            int64_t *v = malloc((size_t)n->np * sizeof *v);
            for (int j = 0; v && j < n->np; j++)
                v[j] = n->first[j].v[sf];
            if (v)
                emit_table(g, n, id, cf == PSK_F_COUNT ? "dts" : "rdts", v);
            free(v);
            snprintf(dt, sizeof dt, "T%d_%s[rank_]", id, cf == PSK_F_COUNT ? "dts" : "rdts");
        }
        int64_t hi = param_of(g, id, cf)->hi * maxdts;
        int cls = psk_fn_class(n->first[0].fn);
        if (cls == PSK_CLASS_COLL || cls == PSK_CLASS_ICOLL)
            hi *= g->P; /* a root or every rank handles one part per rank */
        g->max_sbytes = hi > g->max_sbytes ? hi : g->max_sbytes;
        g->max_rbytes = hi > g->max_rbytes ? hi : g->max_rbytes;
        snprintf(out, cap, "(int)((%s) * %s)", e, dt);
        return;
    }
    g->max_sbytes = maxc > g->max_sbytes ? maxc : g->max_sbytes;
    g->max_rbytes = maxc > g->max_rbytes ? maxc : g->max_rbytes;
    int same = 1;
    for (int j = 0; j < n->np && same; j++)
        same = n->first[j].v[cf] * (PSK_HAS(&n->first[j], sf) ? n->first[j].v[sf] : 1) == maxc;
    if (same) {
        snprintf(out, cap, "%lld", (long long)maxc);
        return;
    }
    int64_t *vals = malloc((size_t)n->np * sizeof *vals);
    if (!vals) {
        gfail(g, "out of memory");
        snprintf(out, cap, "0");
        return;
    }
    char what[32];
    snprintf(what, sizeof what, "bytes%d", cf);
    for (int j = 0; j < n->np; j++)
        vals[j] = n->first[j].v[cf] * (PSK_HAS(&n->first[j], sf) ? n->first[j].v[sf] : 1);
    emit_table(g, n, id, what, vals);
    free(vals);
    char name[64];
    table_name(name, sizeof name, id, what);
    snprintf(out, cap, "(int)%s[rank_]", name);
}

/* a per-rank array (counts of a v-collective, request ids) as a table of
 * rows, one per world rank, padded to the longest */
static void array_table(gen *g, int32_t id, int f, int64_t scale_field, const char *what, int *width)
{
    const gnode *n = &g->node[id];
    int w = 1;
    for (int j = 0; j < n->np; j++)
        w = (int)PSK_ARRN(&n->first[j], f) > w ? (int)PSK_ARRN(&n->first[j], f) : w;
    *width = w;
    char name[64];
    table_name(name, sizeof name, id, what);
    if (!table_once(g, id, name))
        return; /* written, and its sizes counted, already */
    fprintf(g->tabs, "static const int %s[NRANKS][%d] = {", name, w);
    int64_t total_max = 0;
    for (int r = 0, j = 0; r < g->P; r++) {
        const psk_event *e = j < n->np && n->ranks[j] == r ? &n->first[j++] : NULL;
        fprintf(g->tabs, "%s{", r ? ", " : "");
        int64_t total = 0;
        for (int k = 0; k < w; k++) {
            int64_t v = 0;
            if (e && k < (int)PSK_ARRN(e, f)) {
                v = PSK_ARR(e, f)[k];
                if (scale_field >= 0) {
                    int64_t sz = 1;
                    if (scale_field < PSK_F_FIRST_ARRAY)
                        sz = PSK_HAS(e, (int)scale_field) ? e->v[scale_field] : 1;
                    else if (k < (int)PSK_ARRN(e, (int)scale_field))
                        sz = PSK_ARR(e, (int)scale_field)[k];
                    v *= sz;
                }
                total += v > 0 ? v : 0;
            }
            fprintf(g->tabs, "%s%lld", k ? ", " : "", (long long)v);
        }
        fprintf(g->tabs, "}");
        total_max = total > total_max ? total : total_max;
    }
    fprintf(g->tabs, "};\n");
    if (scale_field >= 0) {
        g->max_sbytes = total_max > g->max_sbytes ? total_max : g->max_sbytes;
        g->max_rbytes = total_max > g->max_rbytes ? total_max : g->max_rbytes;
    }
}

/* the request arrays of node id by execution and rank (settle_reqs kept
 * them small enough), read with the node's execution counter */
static void reqs_by_exec(gen *g, int32_t id)
{
    gnode *n = &g->node[id];
    n->counted = 1;
    char tn[64];
    snprintf(tn, sizeof tn, "T%d_reqsx", id);
    if (!table_once(g, id, tn))
        return;
    uint64_t E = n->execs ? n->execs : 1, w = 1;
    uint64_t *at = calloc((size_t)n->np, sizeof *at);
    if (!at) {
        gfail(g, "out of memory");
        return;
    }
    for (int j = 0; j < n->np; j++)
        for (uint64_t a = 0; a < n->nxr[j]; a += 1 + (uint64_t)n->xr[j][a])
            w = (uint64_t)n->xr[j][a] > w ? (uint64_t)n->xr[j][a] : w;
    /* the lengths first, then the ids (the same walk twice) */
    for (int pass = 0; pass < 2; pass++) {
        memset(at, 0, (size_t)n->np * sizeof *at);
        if (pass == 0)
            fprintf(g->tabs, "static const int T%d_nreqsx[%llu][NRANKS] = {", id, (unsigned long long)E);
        else
            fprintf(g->tabs, "static const int T%d_reqsx[%llu][NRANKS][%llu] = {", id, (unsigned long long)E,
                    (unsigned long long)w);
        for (uint64_t k = 0; k < E; k++) {
            fprintf(g->tabs, "%s{", k ? ",\n    " : "");
            for (int r = 0, j = 0; r < g->P; r++) {
                const int64_t *x = NULL;
                if (j < n->np && n->ranks[j] == r) {
                    if (at[j] < n->nxr[j])
                        x = &n->xr[j][at[j]], at[j] += 1 + (uint64_t)x[0];
                    j++;
                }
                if (pass == 0) {
                    fprintf(g->tabs, "%s%lld", r ? ", " : "", x ? (long long)x[0] : 0LL);
                    continue;
                }
                fprintf(g->tabs, "%s{", r ? ", " : "");
                for (uint64_t i = 0; i < w; i++) {
                    long long q = x && i < (uint64_t)x[0] ? (long long)x[1 + i] : -1;
                    fprintf(g->tabs, "%s%lld", i ? ", " : "", q);
                    if (q > g->max_req)
                        g->max_req = q;
                }
                fprintf(g->tabs, "}");
            }
            fprintf(g->tabs, "}");
        }
        fprintf(g->tabs, "};\n");
    }
    free(at);
}

static void indent(gen *g, int d)
{
    for (int i = 0; i < d; i++)
        fputs("    ", g->body);
}



static void emit_newcomm(gen *g, int32_t id, const char *parent);
static int receives(unsigned fn);

/* the MPI call of node id, without its guard and gap; d: indentation */
static void emit_call(gen *g, int32_t id, int d, const char *loopvar)
{
    const gnode *n = &g->node[id];
    const psk_event *e = &n->first[0];
    unsigned fn = e->fn;
    const char *name = psk_fn_name(fn);
    char comm[64] = "MPI_COMM_WORLD", peer[400], rpeer[400], tag[400], rtag[400], by[400], rby[400], root[400],
         req[400];
    if (PSK_HAS(e, PSK_F_COMM)) {
        if (!all_same(n, PSK_F_COMM)) {
            gfail(g, "event %d (%s): ranks name its communicator differently", id, name);
            return;
        }
        snprintf(comm, sizeof comm, "comm_[%lld]", (long long)e->v[PSK_F_COMM]);
        g->max_comm = e->v[PSK_F_COMM] > g->max_comm ? e->v[PSK_F_COMM] : g->max_comm;
    }
    if (PSK_HAS(e, PSK_F_PEER))
        peer_expr(g, id, PSK_F_PEER, "peer", peer, sizeof peer);
    if (PSK_HAS(e, PSK_F_RPEER))
        peer_expr(g, id, PSK_F_RPEER, "rpeer", rpeer, sizeof rpeer);
    if (PSK_HAS(e, PSK_F_TAG))
        tag_expr(g, id, PSK_F_TAG, "tag", tag, sizeof tag);
    if (PSK_HAS(e, PSK_F_RTAG))
        tag_expr(g, id, PSK_F_RTAG, "rtag", rtag, sizeof rtag);
    int cmode = psk_fn_class(fn) == PSK_CLASS_COLL || psk_fn_class(fn) == PSK_CLASS_ICOLL ? CNT_FIRST
                : !strncmp(name, "MPI_Sendrecv", 12) ? CNT_FIRST /* its receive side is not followed */
                : receives(fn) || is(fn, "MPI_Recv_init") ? CNT_UPPER : CNT_EXACT;
    if (PSK_HAS(e, PSK_F_COUNT))
        bytes_expr(g, id, PSK_F_COUNT, PSK_F_DTSIZE, loopvar, by, sizeof by, cmode);
    if (PSK_HAS(e, PSK_F_RCOUNT))
        bytes_expr(g, id, PSK_F_RCOUNT, PSK_HAS(e, PSK_F_RDTSIZE) ? PSK_F_RDTSIZE : PSK_F_DTSIZE, NULL, rby,
                   sizeof rby, CNT_FIRST);
    if (PSK_HAS(e, PSK_F_ROOT))
        expr(g, id, PSK_F_ROOT, "root", root, sizeof root);
    int cls = psk_fn_class(fn);
    if (PSK_HAS(e, PSK_F_REQ)) {
        /* a call that makes a request gets a fresh slot; one that uses it names it */
        char r[300];
        expr(g, id, PSK_F_REQ, "req", r, sizeof r);
        if (cls != PSK_CLASS_WAIT && !is(fn, "MPI_Start"))
            snprintf(req, sizeof req, "newreq_(%s, %d)", r, cls == PSK_CLASS_PERSIST);
        else
            snprintf(req, sizeof req, "&req_[slot_(%s)]", r);
        for (int j = 0; j < n->np; j++)
            g->max_req = n->first[j].v[PSK_F_REQ] > g->max_req ? n->first[j].v[PSK_F_REQ] : g->max_req;
        if (param_of(g, id, PSK_F_REQ) && param_of(g, id, PSK_F_REQ)->hi > g->max_req)
            g->max_req = param_of(g, id, PSK_F_REQ)->hi;
    }
    const char *S = "MPI_Send", *IS = "MPI_Isend";
    indent(g, d);
    /* point to point */
    if (is(fn, "MPI_Send") || is(fn, "MPI_Bsend") || is(fn, "MPI_Rsend") || is(fn, "MPI_Ssend")) {
        fprintf(g->body, "%s(sbuf_, %s, MPI_BYTE, %s, %s, %s);\n", is(fn, "MPI_Ssend") ? "MPI_Ssend" : S, by, peer,
                tag, comm);
    } else if (is(fn, "MPI_Recv")) {
        fprintf(g->body, "MPI_Recv(rbuf_, %s, MPI_BYTE, %s, %s, %s, MPI_STATUS_IGNORE);\n", by, peer, tag, comm);
    } else if (is(fn, "MPI_Isend") || is(fn, "MPI_Ibsend") || is(fn, "MPI_Irsend") || is(fn, "MPI_Issend")) {
        fprintf(g->body, "%s(sbuf_, %s, MPI_BYTE, %s, %s, %s, %s);\n", is(fn, "MPI_Issend") ? "MPI_Issend" : IS,
                by, peer, tag, comm, req);
    } else if (is(fn, "MPI_Irecv")) {
        fprintf(g->body, "MPI_Irecv(rbuf_, %s, MPI_BYTE, %s, %s, %s, %s);\n", by, peer, tag, comm, req);
    } else if (is(fn, "MPI_Sendrecv")) {
        fprintf(g->body, "MPI_Sendrecv(sbuf_, %s, MPI_BYTE, %s, %s, rbuf_, %s, MPI_BYTE, %s, %s, %s, "
                         "MPI_STATUS_IGNORE);\n", by, peer, tag, rby, rpeer, rtag, comm);
    } else if (is(fn, "MPI_Sendrecv_replace")) {
        fprintf(g->body, "MPI_Sendrecv_replace(rbuf_, %s, MPI_BYTE, %s, %s, %s, %s, %s, MPI_STATUS_IGNORE);\n", by,
                peer, tag, rpeer, rtag, comm);
    } else if (is(fn, "MPI_Probe")) {
        fprintf(g->body, "MPI_Probe(%s, %s, %s, MPI_STATUS_IGNORE);\n", peer, tag, comm);
    } else if (is(fn, "MPI_Mprobe")) {
        /* the message it matches is the one the next MPI_Mrecv receives */
        fprintf(g->body, "MPI_Mprobe(%s, %s, %s, msgslot_(), MPI_STATUS_IGNORE); msgkeep_(1);\n", peer, tag, comm);
    } else if (is(fn, "MPI_Iprobe")) {
        fprintf(g->body, "{ int f_; MPI_Iprobe(%s, %s, %s, &f_, MPI_STATUS_IGNORE); }\n", peer, tag, comm);
    } else if (is(fn, "MPI_Improbe")) {
        /* where it found a message, improbe_ makes the MPI_Improbe find the
         * same one (see the preamble); where it did not, an MPI_Iprobe polls
         * without taking anything */
        char d[64], hs[400];
        done_expr(g, id, d, sizeof d);
        if (strcmp(d, "0"))
            hidden_src_expr(g, id, hs, sizeof hs);
        if (!strcmp(d, "1"))
            fprintf(g->body, "improbe_(%s, %s, %s, %s);\n", peer, hs, tag, comm);
        else if (!strcmp(d, "0"))
            fprintf(g->body, "{ int f_; MPI_Iprobe(%s, %s, %s, &f_, MPI_STATUS_IGNORE); } /* MPI_Improbe that found "
                             "nothing */\n", peer, tag, comm);
        else
            fprintf(g->body, "if (%s) improbe_(%s, %s, %s, %s); else { int f_; MPI_Iprobe(%s, %s, %s, &f_, "
                             "MPI_STATUS_IGNORE); }\n", d, peer, hs, tag, comm, peer, tag, comm);
    } else if (is(fn, "MPI_Mrecv")) {
        fprintf(g->body, "MPI_Mrecv(rbuf_, %s, MPI_BYTE, msgtake_(), MPI_STATUS_IGNORE);\n", by);
    } else if (is(fn, "MPI_Imrecv")) {
        fprintf(g->body, "MPI_Imrecv(rbuf_, %s, MPI_BYTE, msgtake_(), %s);\n", by, req);
    } else if (cls == PSK_CLASS_PERSIST && !is(fn, "MPI_Start") && !is(fn, "MPI_Startall")) {
        const char *call = is(fn, "MPI_Recv_init") ? "MPI_Recv_init" : is(fn, "MPI_Ssend_init") ? "MPI_Ssend_init"
                                                                                              : "MPI_Send_init";
        fprintf(g->body, "%s(%s, %s, MPI_BYTE, %s, %s, %s, %s);\n", call,
                is(fn, "MPI_Recv_init") ? "rbuf_" : "sbuf_", by, peer, tag, comm, req);
    } else if (is(fn, "MPI_Start") || is(fn, "MPI_Wait") || is(fn, "MPI_Request_free") || is(fn, "MPI_Cancel") ||
               is(fn, "MPI_Test")) {
        char r[300];
        expr(g, id, PSK_F_REQ, "req", r, sizeof r);
        if (is(fn, "MPI_Start")) {
            fprintf(g->body, "MPI_Start(%s);\n", req);
        } else if (is(fn, "MPI_Wait")) {
            fprintf(g->body, "MPI_Wait(&req_[slot_(%s)], MPI_STATUS_IGNORE);\n", r);
        } else if (is(fn, "MPI_Test")) {
            /* a Wait where it completed the request, per rank and execution */
            char d[64];
            done_expr(g, id, d, sizeof d);
            if (!strcmp(d, "1"))
                fprintf(g->body, "MPI_Wait(&req_[slot_(%s)], MPI_STATUS_IGNORE); /* MPI_Test that completed it */\n",
                        r);
            else if (!strcmp(d, "0"))
                fprintf(g->body, "{ int f_; MPI_Test(&req_[slot_(%s)], &f_, MPI_STATUS_IGNORE); }\n", r);
            else
                fprintf(g->body, "{ int f_; if (%s) MPI_Wait(&req_[slot_(%s)], MPI_STATUS_IGNORE); else "
                                 "MPI_Test(&req_[slot_(%s)], &f_, MPI_STATUS_IGNORE); }\n", d, r, r);
        } else if (is(fn, "MPI_Request_free")) {
            fprintf(g->body, "if (req_[slot_(%s)] != MPI_REQUEST_NULL) MPI_Request_free(&req_[slot_(%s)]);\n", r, r);
        } else {
            fprintf(g->body, "if (req_[slot_(%s)] != MPI_REQUEST_NULL) MPI_Cancel(&req_[slot_(%s)]);\n", r, r);
        }
    } else if (PSK_HAS(e, PSK_F_REQS)) { /* Startall and the Wait/Test families on arrays */
        int w;
        array_table(g, id, PSK_F_REQS, -1, "reqs", &w);
        for (int j = 0; j < n->np; j++)
            for (uint32_t k = 0; k < PSK_ARRN(&n->first[j], PSK_F_REQS); k++)
                g->max_req = PSK_ARR(&n->first[j], PSK_F_REQS)[k] > g->max_req ? PSK_ARR(&n->first[j], PSK_F_REQS)[k]
                                                                              : g->max_req;
        /* 0 start, 1 wait all, 2 wait any, 3 wait some, 4 test all, 5 test
         * any, 6 test some: a Test-family call is its Wait where it
         * completed something, per rank and execution, else a poll */
        int wait = is(fn, "MPI_Startall") ? 0 : (is(fn, "MPI_Waitany") || is(fn, "MPI_Testany")) ? 2
                   : (is(fn, "MPI_Waitsome") || is(fn, "MPI_Testsome")) ? 3 : 1;
        char how[96] = "";
        if (completion(e) >= 0) {
            char d[64];
            done_expr(g, id, d, sizeof d);
            if (!strcmp(d, "0") || !strcmp(d, "1"))
                snprintf(how, sizeof how, "%d", !strcmp(d, "1") ? wait : wait + 3);
            else
                snprintf(how, sizeof how, "%s ? %d : %d", d, wait, wait + 3);
        } else {
            snprintf(how, sizeof how, "%d", wait);
        }
        int64_t *cnt = malloc((size_t)n->np * sizeof *cnt);
        if (!cnt) {
            gfail(g, "out of memory");
            return;
        }
        for (int j = 0; j < n->np; j++)
            cnt[j] = PSK_ARRN(&n->first[j], PSK_F_REQS);
        emit_table(g, n, id, "nreqs", cnt);
        free(cnt);
        char ids[64], num[64];
        table_name(ids, sizeof ids, id, "reqs");
        table_name(num, sizeof num, id, "nreqs");
        if (n->reqsvary && !n->reqsbig) {
            reqs_by_exec(g, id);
            fprintf(g->body, "reqs_(%s, T%d_reqsx[T%d_k][rank_], (int)T%d_nreqsx[T%d_k][rank_]); /* %s */\n", how, id,
                    id, id, id, name);
        } else {
            fprintf(g->body, "reqs_(%s, %s[rank_], (int)%s[rank_]); /* %s */\n", how, ids, num, name);
        }
    } else if (is(fn, "MPI_Barrier")) {
        fprintf(g->body, "MPI_Barrier(%s);\n", comm);
    } else if (is(fn, "MPI_Ibarrier")) {
        fprintf(g->body, "MPI_Ibarrier(%s, %s);\n", comm, req);
    } else if (is(fn, "MPI_Bcast") || is(fn, "MPI_Ibcast")) {
        fprintf(g->body, "%s(rbuf_, %s, MPI_BYTE, %s, %s%s%s);\n", is(fn, "MPI_Ibcast") ? "MPI_Ibcast" : "MPI_Bcast",
                by, root, comm, is(fn, "MPI_Ibcast") ? ", " : "", is(fn, "MPI_Ibcast") ? req : "");
    } else if (PSK_HAS(e, PSK_F_OP) && !PSK_HAS(e, PSK_F_RCOUNTS) && !is(fn, "MPI_Reduce_scatter_block") &&
               !is(fn, "MPI_Ireduce_scatter_block")) {
        /* Reduce, Allreduce, Scan, Exscan and their nonblocking forms */
        const char *base = name + 4;
        int nb = base[0] == 'I' && base[1] != 'n';
        const char *call = name;
        int rooted = PSK_HAS(e, PSK_F_ROOT);
        fprintf(g->body, "{ int n_ = %s; %s(sbuf_, rbuf_, red_count_(n_, %lld, %lld), red_type_(%lld, %lld), "
                         "red_op_(%lld, %lld), %s%s%s%s%s); }\n",
                by, call, (long long)e->v[PSK_F_DTSIZE], (long long)e->v[PSK_F_OP], (long long)e->v[PSK_F_DTSIZE],
                (long long)e->v[PSK_F_OP], (long long)e->v[PSK_F_DTSIZE], (long long)e->v[PSK_F_OP],
                rooted ? root : "", rooted ? ", " : "", comm, nb ? ", " : "", nb ? req : "");
    } else if (is(fn, "MPI_Reduce_scatter_block") || is(fn, "MPI_Ireduce_scatter_block")) {
        int nb = name[4] == 'I';
        /* every rank sends one block per rank */
        for (int j = 0; j < n->np; j++) {
            const psk_event *x = &n->first[j];
            int64_t sb = x->v[PSK_F_RCOUNT] * (PSK_HAS(x, PSK_F_DTSIZE) ? x->v[PSK_F_DTSIZE] : 1) * g->P;
            g->max_sbytes = sb > g->max_sbytes ? sb : g->max_sbytes;
        }
        fprintf(g->body, "{ int n_ = %s; %s(sbuf_, rbuf_, red_count_(n_, %lld, %lld), red_type_(%lld, %lld), "
                         "red_op_(%lld, %lld), %s%s%s); }\n",
                rby, name, (long long)e->v[PSK_F_DTSIZE], (long long)e->v[PSK_F_OP], (long long)e->v[PSK_F_DTSIZE],
                (long long)e->v[PSK_F_OP], (long long)e->v[PSK_F_DTSIZE], (long long)e->v[PSK_F_OP], comm,
                nb ? ", " : "", nb ? req : "");
    } else if (is(fn, "MPI_Reduce_scatter") || is(fn, "MPI_Ireduce_scatter")) {
        int w, nb = name[4] == 'I';
        array_table(g, id, PSK_F_RCOUNTS, PSK_F_DTSIZE, "rcounts", &w);
        char t[64];
        table_name(t, sizeof t, id, "rcounts");
        fprintf(g->body, "{ int c_[%d]; for (int k_ = 0; k_ < %d; k_++) c_[k_] = red_count_(%s[rank_][k_], %lld, "
                         "%lld); %s(sbuf_, rbuf_, c_, red_type_(%lld, %lld), red_op_(%lld, %lld), %s%s%s); }\n",
                w, w, t, (long long)e->v[PSK_F_DTSIZE], (long long)e->v[PSK_F_OP], name,
                (long long)e->v[PSK_F_DTSIZE], (long long)e->v[PSK_F_OP], (long long)e->v[PSK_F_DTSIZE],
                (long long)e->v[PSK_F_OP], comm, nb ? ", " : "", nb ? req : "");
    } else if (cls == PSK_CLASS_COLL || cls == PSK_CLASS_ICOLL) {
        /* the data movers: counts in bytes, v-forms with byte arrays */
        int nb = cls == PSK_CLASS_ICOLL;
        const char *base = nb ? name + 5 : name + 4; /* "Gather", "gather" (of Igather), ... */
        char sc[400] = "0", rc[400] = "0", sct[64] = "", rct[64] = "";
        int w;
        if (PSK_HAS(e, PSK_F_COUNT))
            snprintf(sc, sizeof sc, "%s", by);
        if (PSK_HAS(e, PSK_F_RCOUNT))
            snprintf(rc, sizeof rc, "%s", rby);
        if (PSK_HAS(e, PSK_F_COUNTS)) {
            array_table(g, id, PSK_F_COUNTS, PSK_HAS(e, PSK_F_DTSIZES) ? PSK_F_DTSIZES : PSK_F_DTSIZE, "counts", &w);
            table_name(sct, sizeof sct, id, "counts");
        }
        if (PSK_HAS(e, PSK_F_RCOUNTS)) {
            array_table(g, id, PSK_F_RCOUNTS,
                        PSK_HAS(e, PSK_F_RDTSIZES) ? PSK_F_RDTSIZES : PSK_HAS(e, PSK_F_RDTSIZE) ? PSK_F_RDTSIZE
                                                                                               : PSK_F_DTSIZE,
                        "rcounts", &w);
            table_name(rct, sizeof rct, id, "rcounts");
        }
        char nbr[410];
        snprintf(nbr, sizeof nbr, "%s%s", nb ? ", " : "", nb ? req : "");
        /* a root or every rank handles one part per rank: room for all */
        for (int j = 0; j < n->np; j++) {
            const psk_event *x = &n->first[j];
            int64_t sb = PSK_HAS(x, PSK_F_COUNT) ? x->v[PSK_F_COUNT] * (PSK_HAS(x, PSK_F_DTSIZE) ? x->v[PSK_F_DTSIZE] : 1) : 0;
            int64_t rb = PSK_HAS(x, PSK_F_RCOUNT) ? x->v[PSK_F_RCOUNT] *
                         (PSK_HAS(x, PSK_F_RDTSIZE) ? x->v[PSK_F_RDTSIZE] : PSK_HAS(x, PSK_F_DTSIZE) ? x->v[PSK_F_DTSIZE] : 1) : 0;
            sb *= g->P;
            rb *= g->P;
            g->max_sbytes = sb > g->max_sbytes ? sb : g->max_sbytes;
            g->max_rbytes = rb > g->max_rbytes ? rb : g->max_rbytes;
            g->max_rbytes = sb > g->max_rbytes ? sb : g->max_rbytes;
            g->max_sbytes = rb > g->max_sbytes ? rb : g->max_sbytes;
        }
        if (!strcasecmp(base, "Gather") || !strcasecmp(base, "Scatter"))
            fprintf(g->body, "%s(sbuf_, %s, MPI_BYTE, rbuf_, %s, MPI_BYTE, %s, %s%s);\n", name, sc, rc, root, comm,
                    nbr);
        else if (!strcasecmp(base, "Allgather") || !strcasecmp(base, "Alltoall"))
            fprintf(g->body, "%s(sbuf_, %s, MPI_BYTE, rbuf_, %s, MPI_BYTE, %s%s);\n", name, sc, rc, comm, nbr);
        else if (!strcasecmp(base, "Gatherv"))
            fprintf(g->body, "{ int d_[NRANKS]; displs_(%s[rank_], d_); %s(sbuf_, %s, MPI_BYTE, rbuf_, %s[rank_], d_, "
                             "MPI_BYTE, %s, %s%s); }\n", rct, name, sc, rct, root, comm, nbr);
        else if (!strcasecmp(base, "Scatterv"))
            fprintf(g->body, "{ int d_[NRANKS]; displs_(%s[rank_], d_); %s(sbuf_, %s[rank_], d_, MPI_BYTE, rbuf_, "
                             "%s, MPI_BYTE, %s, %s%s); }\n", sct, name, sct, rc, root, comm, nbr);
        else if (!strcasecmp(base, "Allgatherv"))
            fprintf(g->body, "{ int d_[NRANKS]; displs_(%s[rank_], d_); %s(sbuf_, %s, MPI_BYTE, rbuf_, %s[rank_], d_, "
                             "MPI_BYTE, %s%s); }\n", rct, name, sc, rct, comm, nbr);
        else if (!strcasecmp(base, "Alltoallv") || !strcasecmp(base, "Alltoallw"))
            fprintf(g->body, "{ int sd_[NRANKS], rd_[NRANKS]; displs_(%s[rank_], sd_); displs_(%s[rank_], rd_); "
                             "%s(sbuf_, %s[rank_], sd_, MPI_BYTE, rbuf_, %s[rank_], rd_, MPI_BYTE, %s%s); } "
                             "/* %s in bytes */\n", sct, rct, nb ? "MPI_Ialltoallv" : "MPI_Alltoallv", sct, rct, comm,
                    nbr, name);
        else
            gfail(g, "%s is not supported by perfskel gen", name);
    } else if (PSK_HAS(e, PSK_F_NEWID) && !strncmp(name, "MPI_Comm_", 9) && !is(fn, "MPI_Comm_group")) {
        emit_newcomm(g, id, comm);
        return;
    } else if (PSK_HAS(e, PSK_F_NEWID) && (!strncmp(name, "MPI_Cart_", 9))) {
        emit_newcomm(g, id, comm);
        return;
    } else if (is(fn, "MPI_Comm_free")) {
        fprintf(g->body, "MPI_Comm_free(&%s);\n", comm);
        /* comm is "comm_[id]": keep its rank and size in step */
        indent(g, d);
        fprintf(g->body, "comm_set_(%lld);\n", (long long)e->v[PSK_F_COMM]);
    } else if (is(fn, "MPI_Pcontrol")) {
        fprintf(g->body, "MPI_Pcontrol(%lld);\n", (long long)e->v[PSK_F_I1]);
    } else if (!strncmp(name, "MPI_Intercomm_", 14)) {
        gfail(g, "%s: intercommunicators are not supported by perfskel gen", name);
    } else {
        fprintf(g->body, "/* %s: nothing to replay */\n", name);
    }
}

/* A new communicator: every taking part rank calls MPI_Comm_split on the
 * parent with one color per recorded member set (its lowest world rank)
 * and its place in it as the key, which recreates any communicator with
 * the recorded membership and order (dup, split, create, Cart_create,
 * Cart_sub); MPI_Comm_create_group, called by the members only, is
 * replayed with a group of the recorded members. */
static void emit_newcomm(gen *g, int32_t id, const char *parent)
{
    const gnode *n = &g->node[id];
    int64_t *color = malloc((size_t)n->np * sizeof *color), *key = malloc((size_t)n->np * sizeof *key),
            *newid = malloc((size_t)n->np * sizeof *newid);
    if (!color || !key || !newid) {
        free(color), free(key), free(newid);
        gfail(g, "out of memory");
        return;
    }
    for (int j = 0; j < n->np; j++) {
        const psk_event *e = &n->first[j];
        const int64_t *mem = PSK_ARR(e, PSK_F_MEMBERS);
        uint32_t nm = PSK_ARRN(e, PSK_F_MEMBERS);
        newid[j] = e->v[PSK_F_NEWID];
        color[j] = -1; /* MPI_UNDEFINED */
        key[j] = 0;
        for (uint32_t k = 0; k < nm && newid[j] >= 0; k++) {
            if (color[j] < 0 || mem[k] < color[j])
                color[j] = mem[k];
            if (mem[k] == n->ranks[j])
                key[j] = k;
        }
        g->max_comm = newid[j] > g->max_comm ? newid[j] : g->max_comm;
    }
    emit_table(g, n, id, "color", color);
    emit_table(g, n, id, "key", key);
    char c[64], k[64], nid[320];
    table_name(c, sizeof c, id, "color");
    table_name(k, sizeof k, id, "key");
    const psk_fparam *pn = param_of(g, id, PSK_F_NEWID);
    if (pn) { /* a new id per iteration, as recorded */
        param_expr(g, id, PSK_F_NEWID, "newid", nid, sizeof nid);
        g->max_comm = pn->hi > g->max_comm ? pn->hi : g->max_comm;
    } else {
        emit_table(g, n, id, "newid", newid);
        snprintf(nid, sizeof nid, "T%d_newid[rank_]", id);
    }
    if (is(n->first[0].fn, "MPI_Comm_create_group")) {
        int w;
        array_table(g, id, PSK_F_MEMBERS, -1, "members", &w);
        char mt[64];
        table_name(mt, sizeof mt, id, "members");
        fprintf(g->body, "create_group_(%s, %s[rank_], %d, &comm_[cslot_(%s)]); comm_set_(cslot_(%s)); "
                         "/* %s */\n", parent, mt, (int)PSK_ARRN(&n->first[0], PSK_F_MEMBERS), nid, nid,
                psk_fn_name(n->first[0].fn));
    } else {
        fprintf(g->body, "MPI_Comm_split(%s, color_(%s[rank_]), (int)%s[rank_], &comm_[cslot_(%s)]); "
                         "comm_set_(cslot_(%s)); /* %s, same members */\n", parent, c, k, nid, nid,
                psk_fn_name(n->first[0].fn));
    }
    free(color), free(key), free(newid);
}

/* ---- pass 2: the tree as code ---- */

/* the mean compute gap before node n on its taking part rank j, in that
 * rank's work units (its shortest gap, the cost of recording, taken off) */
static int64_t gap_units(const gen *g, const gnode *n, int j)
{
    double ns = n->execs ? n->gap[j] / (double)n->execs : 0;
    ns -= g->min_gap[n->ranks[j]];
    return ns > 0 ? (int64_t)(ns / g->unit_ns[n->ranks[j]] + 0.5) : 0;
}

static void emit_sym(gen *g, int32_t id, int d, const char *loopvar)
{
    const gnode *n = &g->node[id];
    if (!n->seen || n->np == 0)
        return;
    unsigned fn = n->first[0].fn;
    char desc[512];
    psk_merged_class_desc(g->m, (uint32_t)psk_folded_node(g->f, id)->sym, desc, sizeof desc);
    indent(g, d);
    fprintf(g->body, "/* %s */\n", desc);
    if (is(fn, "MPI_Init") || is(fn, "MPI_Init_thread") || is(fn, "MPI_Abort"))
        return;
    /* the compute gap before the call, in work units of each rank */
    int64_t *units = malloc((size_t)n->np * sizeof *units);
    if (!units) {
        gfail(g, "out of memory");
        return;
    }
    int same = 1;
    for (int j = 0; j < n->np; j++) {
        units[j] = gap_units(g, n, j);
        same &= units[j] == units[0];
    }
    int guard = n->np < g->P;
    if (guard) {
        int64_t *in = malloc((size_t)n->np * sizeof *in);
        for (int j = 0; in && j < n->np; j++)
            in[j] = 1;
        if (in)
            emit_table(g, n, id, "in", in);
        free(in);
        indent(g, d);
        fprintf(g->body, "if (T%d_in[rank_]) {\n", id);
        d++;
    }
    /* where the rank is, for the report on SIGTERM */
    indent(g, d);
    fprintf(g->body, "at_(%d, %d, %s, \"%s\");\n", id, loopvar ? atoi(loopvar + 1) : -1, loopvar ? loopvar : "0",
            psk_fn_name(fn));
    if (same) {
        if (units[0] > 0) {
            indent(g, d);
            fprintf(g->body, "psk_work(%lld);\n", (long long)units[0]);
        }
    } else {
        emit_table(g, n, id, "work", units);
        indent(g, d);
        fprintf(g->body, "psk_work((uint64_t)T%d_work[rank_]);\n", id);
    }
    free(units);
    if (!is(fn, "MPI_Finalize"))
        emit_call(g, id, d, loopvar);
    if (g->node[id].counted) { /* tables by execution: which one this is */
        fprintf(g->tabs, "static long long T%d_k;\n", id);
        indent(g, d);
        fprintf(g->body, "T%d_k++;\n", id);
    }
    if (guard) {
        indent(g, d - 1);
        fprintf(g->body, "}\n");
    }
}

/* ---- which loops may be scaled: those whose every iteration is closed
 * (each message sent in it is received in it, counted in world ranks
 * through the recorded members of each communicator, persistent requests
 * by what their init call said; and each collective in it has every
 * member of its communicator taking part), so that running fewer iterations on every
 * rank leaves nobody waiting ---- */

typedef struct balance {
    int depth;       /* of the loop: its iteration index is iter[depth] */
    int64_t objs;    /* objects made minus freed (persistent requests, communicators, groups) */
    int P;
    int64_t *sent;   /* P x P: [from * P + to] */
    int64_t *wild;   /* per receiver: receives from MPI_ANY_SOURCE */
    /* message sizes at the loop's iteration iter[depth]: bytes sent minus
     * received [from * P + to], bytes offered by wildcard receives per
     * receiver; vary: some size follows the loop's index (or execution),
     * nonaffine: not as a * i + b, unknown: a size the walk cannot tell */
    int64_t *bytes, *wbytes;
    int vary, nonaffine, unknown;
    int ok;
    /* loops inside whose peers follow their iteration are walked iteration
     * by iteration (iter[depth], enumd[depth]) while budget lasts */
    int64_t iter[64];
    int enumd[64];
    int64_t budget;
} balance;

static int sends(unsigned fn)
{
    const char *n = psk_fn_name(fn);
    return !strcmp(n, "MPI_Send") || !strcmp(n, "MPI_Bsend") || !strcmp(n, "MPI_Ssend") ||
           !strcmp(n, "MPI_Rsend") || !strcmp(n, "MPI_Isend") || !strcmp(n, "MPI_Ibsend") ||
           !strcmp(n, "MPI_Issend") || !strcmp(n, "MPI_Irsend") || !strcmp(n, "MPI_Sendrecv") ||
           !strcmp(n, "MPI_Sendrecv_replace");
}

static int receives(unsigned fn)
{
    const char *n = psk_fn_name(fn);
    return !strcmp(n, "MPI_Recv") || !strcmp(n, "MPI_Irecv") || !strcmp(n, "MPI_Mrecv") ||
           !strcmp(n, "MPI_Imrecv");
}

/* the world rank of rank r of communicator comm as rank me knows it
 * (-1 if it is not known: the loop is then not scaled) */
static int64_t to_world(const gen *g, int32_t me, int64_t comm, int64_t r)
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

/* one message of the loop: from sends to to in world ranks; a wildcard
 * receive when from is PSK_ANY_SOURCE */
static void count_send(balance *b, const gen *g, int32_t me, int64_t comm, int64_t peer, int64_t mult)
{
    if (peer == PSK_PROC_NULL)
        return;
    int64_t to = to_world(g, me, comm, peer);
    if (to < 0 || to >= g->P)
        b->ok = 0;
    else
        b->sent[(size_t)me * (size_t)g->P + (size_t)to] += mult;
}

static void count_recv(balance *b, const gen *g, int32_t me, int64_t comm, int64_t peer, int64_t mult)
{
    if (peer == PSK_PROC_NULL)
        return;
    if (peer == PSK_ANY_SOURCE) {
        b->wild[me] += mult;
        return;
    }
    int64_t from = to_world(g, me, comm, peer);
    if (from < 0 || from >= g->P)
        b->ok = 0;
    else
        b->sent[(size_t)from * (size_t)g->P + (size_t)me] -= mult;
}

/* v bytes sent (v > 0) or received (v < 0) by me from or to peer */
static void count_bytes(balance *b, const gen *g, int32_t me, int64_t comm, int64_t peer, int sent, int64_t v)
{
    if (peer == PSK_PROC_NULL)
        return;
    if (!sent && peer == PSK_ANY_SOURCE) {
        b->wbytes[me] += v;
        return;
    }
    int64_t w = to_world(g, me, comm, peer);
    if (w >= 0 && w < g->P)
        b->bytes[sent ? (size_t)me * (size_t)g->P + (size_t)w : (size_t)w * (size_t)g->P + (size_t)me] +=
            sent ? v : -v;
}

static int64_t value_at(const gen *g, int32_t id, int f, int j, const int64_t *iter, int64_t k);

/* the bytes of count field cf (dtsize sf) of node id on its j-th rank at
 * the walk's iterations */
static int64_t msg_bytes(const gen *g, int32_t id, int cf, int sf, int j, balance *b)
{
    const psk_event *e = &g->node[id].first[j];
    const psk_fparam *p = param_of(g, id, cf);
    int64_t dts = PSK_HAS(e, sf) ? e->v[sf] : 1;
    if (!PSK_HAS(e, cf))
        return 0;
    if (!p)
        return e->v[cf] * dts;
    if (p->kind > PSK_VARY_ITER || (p->depth == b->depth && b->depth >= 64)) {
        b->vary = b->unknown = 1; /* by execution: not followed */
        return 0;
    }
    if (p->depth == b->depth) {
        b->vary = 1;
        b->nonaffine |= p->kind != PSK_VARY_AFFINE;
    } else if (p->depth > b->depth && (p->depth >= 64 || !b->enumd[p->depth])) {
        b->unknown = 1; /* an inner loop's index, counted not walked */
        return 0;
    } /* an outer loop's index (iter 0 there): the same in every iteration of this one */
    return value_at(g, id, cf, j, b->iter, 0) * dts;
}

/* MPI_Start / MPI_Startall of persistent request q: the message its init
 * call described */
static void count_start(balance *b, const gen *g, int32_t me, int64_t q, int64_t mult)
{
    if (q < 0 || q >= g->npreqs[me] || !g->preqs[me][q].kind || g->preqs[me][q].ambiguous) {
        b->ok = 0;
        return;
    }
    const preq *p = &g->preqs[me][q];
    if (p->kind == 1)
        count_send(b, g, me, p->comm, p->peer, mult);
    else
        count_recv(b, g, me, p->comm, p->peer, mult);
}

/* a collective whose every participant's communicator has all its members
 * (in world ranks, as recorded) among the node's ranks; a subset making the
 * call here does the others' part elsewhere, and scaling this loop alone
 * would leave them waiting */
static int coll_complete(const gen *g, const gnode *n)
{
    unsigned char *in = calloc((size_t)g->P, 1);
    if (!in)
        return 0;
    for (int j = 0; j < n->np; j++)
        if (n->ranks[j] >= 0 && n->ranks[j] < g->P)
            in[n->ranks[j]] = 1;
    int ok = 1;
    for (int j = 0; j < n->np && ok; j++) {
        const psk_event *e = &n->first[j];
        int64_t comm = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
        int32_t me = n->ranks[j];
        if (comm == 0) {
            ok = n->np == g->P;
        } else if (comm != 1) {
            const cmembers *m = comm > 0 && comm < g->ncmem[me] ? &g->cmem[me][comm] : NULL;
            if (!m || !m->known || m->ambiguous)
                ok = 0;
            for (uint32_t k = 0; ok && k < m->n; k++)
                ok = m->w[k] >= 0 && m->w[k] < g->P && in[m->w[k]];
        }
    }
    free(in);
    return ok;
}

/* whether a peer of some event inside node id follows the index of the
 * loop at depth d */
static int peers_follow(const gen *g, int32_t id, int d)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    if (x->kind == PSK_FNODE_SYM) {
        const psk_fparam *p = param_of(g, id, PSK_F_PEER), *q = param_of(g, id, PSK_F_RPEER);
        return (p && p->depth == d) || (q && q->depth == d);
    }
    const int32_t *kid = psk_folded_children(g->f, id);
    for (int32_t i = 0; i < x->nchild; i++)
        if (peers_follow(g, kid[i], d))
            return 1;
    return 0;
}

/* a varying peer the walk can evaluate: a function of the index of a loop
 * inside the one checked, walked iteration by iteration */
static int peer_walked(const balance *b, const psk_fparam *p)
{
    return !p || (p->kind <= PSK_VARY_ITER && p->depth > b->depth && p->depth < 64 && b->enumd[p->depth]);
}

/* the value of scalar field f of node id on its taking part rank j at
 * iteration indices iter (64 depths) and execution k, as the skeleton computes it
 * (peers that follow the rank: in ranks of the communicator, PSK_PROC_NULL
 * off the edge); INT64_MIN where the communicator's members are not known */
static int64_t value_at(const gen *g, int32_t id, int f, int j, const int64_t *iter, int64_t k)
{
    const gnode *n = &g->node[id];
    const psk_fparam *p = param_of(g, id, f);
    if (!p)
        return n->first[j].v[f];
    if (p->kind == PSK_VARY_RANKEXEC)
        return k >= 0 && k * p->m + j < p->n ? p->table[k * p->m + j] : n->first[j].v[f];
    int64_t e = psk_fparam_eval(p, p->depth >= 0 && p->depth < 64 ? iter[p->depth] : 0, k);
    if (p->mode == PSK_PMODE_VALUE)
        return e;
    if (p->mode == PSK_PMODE_DELTA)
        return n->first[j].v[f] + e;
    int64_t comm = PSK_HAS(&n->first[j], PSK_F_COMM) ? n->first[j].v[PSK_F_COMM] : 0, cr = -1, cs = 0;
    int32_t me = n->ranks[j];
    if (comm == 0) {
        cr = me, cs = g->P;
    } else if (comm == 1) {
        cr = 0, cs = 1;
    } else if (comm > 1 && comm < g->ncmem[me] && g->cmem[me][comm].known && !g->cmem[me][comm].ambiguous) {
        const cmembers *m = &g->cmem[me][comm];
        cs = m->n;
        for (uint32_t x = 0; x < m->n; x++)
            if (m->w[x] == me)
                cr = x;
    }
    if (cr < 0 || cs <= 0)
        return INT64_MIN;
    int64_t q = cr + e;
    if (p->ring)
        return (q % cs + cs) % cs;
    return q >= 0 && q < cs ? q : PSK_PROC_NULL;
}

/* rank j's peer (field f) of node id at the walk's iterations */
static int64_t peer_at(const gen *g, int32_t id, int f, int j, const balance *b)
{
    return value_at(g, id, f, j, b->iter, 0);
}

static void tally(gen *g, int32_t id, int64_t mult, balance *b)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    if (x->kind == PSK_FNODE_LOOP && x->depth < 64 && x->count * x->span <= b->budget &&
        peers_follow(g, id, x->depth)) {
        /* peers follow this loop's index: iteration by iteration */
        const int32_t *kid = psk_folded_children(g->f, id);
        b->budget -= x->count * x->span;
        b->enumd[x->depth] = 1;
        for (int64_t it = 0; it < x->count && b->ok; it++) {
            b->iter[x->depth] = it;
            for (int32_t i = 0; i < x->nchild && b->ok; i++)
                tally(g, kid[i], mult, b);
        }
        b->enumd[x->depth] = 0;
        return;
    }
    if (x->kind == PSK_FNODE_LOOP || x->kind == PSK_FNODE_ROOT) {
        const int32_t *kid = psk_folded_children(g->f, id);
        for (int32_t i = 0; i < x->nchild && b->ok; i++)
            tally(g, kid[i], mult * (x->kind == PSK_FNODE_LOOP ? x->count : 1), b);
        return;
    }
    const gnode *n = &g->node[id];
    if (!n->seen)
        return;
    unsigned fn = n->first[0].fn;
    int cls = psk_fn_class(fn);
    if ((cls == PSK_CLASS_COLL || cls == PSK_CLASS_ICOLL || cls == PSK_CLASS_COMM) && !coll_complete(g, n)) {
        b->ok = 0; /* a collective without every member of its communicator */
        return;
    }
    if (is(fn, "MPI_Probe") || is(fn, "MPI_Mprobe") || is(fn, "MPI_Iprobe") || is(fn, "MPI_Improbe") ||
        is(fn, "MPI_Mrecv") || is(fn, "MPI_Imrecv")) {
        b->ok = 0; /* probes: not followed */
        return;
    }
    if (n->polled) {
        /* a poll: how often it ran was the time some message took, which
         * running fewer iterations does not scale */
        b->ok = 0;
        return;
    }
    const psk_fparam *rq = param_of(g, id, PSK_F_REQ);
    if (n->reqsbig || (rq && (rq->depth == b->depth || rq->kind == PSK_VARY_EXEC || rq->kind == PSK_VARY_RANKEXEC))) {
        /* requests that change with the loop's own iteration: made in one
         * iteration and completed in another (or before or after the loop) */
        b->ok = 0;
        return;
    }
    if (!peer_walked(b, param_of(g, id, PSK_F_PEER)) || !peer_walked(b, param_of(g, id, PSK_F_RPEER)) ||
        ((is(fn, "MPI_Start") || is(fn, "MPI_Startall")) && param_of(g, id, PSK_F_REQ))) {
        b->ok = 0; /* peers that change with this loop's (or an outer) iteration: balance not followed */
        return;
    }
    /* what a loop makes must outlive it, or be freed in it: a loop that
     * leaves objects behind (or frees earlier ones) runs in full */
    if ((cls == PSK_CLASS_PERSIST && !is(fn, "MPI_Start") && !is(fn, "MPI_Startall")) ||
        (cls == PSK_CLASS_COMM && PSK_HAS(&n->first[0], PSK_F_NEWID)))
        b->objs += mult;
    if (is(fn, "MPI_Comm_free") || is(fn, "MPI_Group_free"))
        b->objs -= mult;
    if (is(fn, "MPI_Request_free")) {
        int64_t q = n->first[0].v[PSK_F_REQ];
        int32_t me = n->ranks[0];
        if (q >= 0 && q < g->npreqs[me] && g->preqs[me][q].kind)
            b->objs -= mult;
    }
    for (int j = 0; j < n->np; j++) {
        const psk_event *e = &n->first[j];
        int32_t me = n->ranks[j];
        int64_t comm = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
        if (is(fn, "MPI_Start") || is(fn, "MPI_Startall"))
            b->unknown = 1; /* the size its init call gave: not followed */
        if (is(fn, "MPI_Start"))
            count_start(b, g, me, e->v[PSK_F_REQ], mult);
        else if (is(fn, "MPI_Startall"))
            for (uint32_t k = 0; k < PSK_ARRN(e, PSK_F_REQS); k++)
                count_start(b, g, me, PSK_ARR(e, PSK_F_REQS)[k], mult);
        /* Send_init, Recv_init, ...: no message until started */
        int64_t peer = PSK_HAS(e, PSK_F_PEER) ? peer_at(g, id, PSK_F_PEER, j, b) : 0;
        int64_t rpeer = PSK_HAS(e, PSK_F_RPEER) ? peer_at(g, id, PSK_F_RPEER, j, b) : 0;
        if (peer == INT64_MIN || rpeer == INT64_MIN) {
            b->ok = 0;
            return;
        }
        if (sends(fn)) {
            count_send(b, g, me, comm, peer, mult);
            count_bytes(b, g, me, comm, peer, 1, mult * msg_bytes(g, id, PSK_F_COUNT, PSK_F_DTSIZE, j, b));
        }
        if (receives(fn)) {
            count_recv(b, g, me, comm, peer, mult);
            count_bytes(b, g, me, comm, peer, 0, mult * msg_bytes(g, id, PSK_F_COUNT, PSK_F_DTSIZE, j, b));
        } else if (is(fn, "MPI_Sendrecv") || is(fn, "MPI_Sendrecv_replace")) {
            int cf = PSK_HAS(e, PSK_F_RCOUNT) ? PSK_F_RCOUNT : PSK_F_COUNT;
            int sf = cf == PSK_F_RCOUNT && PSK_HAS(e, PSK_F_RDTSIZE) ? PSK_F_RDTSIZE : PSK_F_DTSIZE;
            count_recv(b, g, me, comm, rpeer, mult);
            count_bytes(b, g, me, comm, rpeer, 0, mult * msg_bytes(g, id, cf, sf, j, b));
        }
    }
}

/* ---- requests in a loop: every request an iteration completes must be
 * made (or started) in that iteration, else running fewer iterations
 * leaves requests made before the loop active (a persistent one then
 * started again) ---- */

typedef struct idset {
    int64_t *lo, *hi; /* ranges of ids */
    int n, cap;
} idset;

static int idset_add(idset *s, int64_t lo, int64_t hi)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        int64_t *a = realloc(s->lo, (size_t)cap * sizeof *a), *b;
        if (!a)
            return -1;
        s->lo = a;
        b = realloc(s->hi, (size_t)cap * sizeof *b);
        if (!b)
            return -1;
        s->hi = b, s->cap = cap;
    }
    s->lo[s->n] = lo, s->hi[s->n] = hi, s->n++;
    return 0;
}

static int idset_has(const idset *s, int64_t v)
{
    for (int i = 0; i < s->n; i++)
        if (v >= s->lo[i] && v <= s->hi[i])
            return 1;
    return 0;
}

/* the request ids field f (PSK_F_REQ or PSK_F_REQS) of node id names on
 * its j-th rank over all executions, as ranges: fn(arg, j, lo, hi); 0, or
 * the first non-zero fn returned */
static int node_ids(const gen *g, int32_t id, int f, int (*fn)(void *, int, int64_t, int64_t), void *arg)
{
    const gnode *n = &g->node[id];
    int rc = 0;
    for (int j = 0; j < n->np && !rc; j++) {
        if (f == PSK_F_REQ) {
            const psk_fparam *p = param_of(g, id, PSK_F_REQ);
            rc = p ? fn(arg, j, p->lo, p->hi) : fn(arg, j, n->first[j].v[PSK_F_REQ], n->first[j].v[PSK_F_REQ]);
            continue;
        }
        if (n->xr && !n->reqsbig) {
            for (uint64_t at = 0; at < n->nxr[j] && !rc; at += 1 + (uint64_t)n->xr[j][at])
                for (int64_t k = 0; k < n->xr[j][at] && !rc; k++)
                    rc = fn(arg, j, n->xr[j][at + 1 + k], n->xr[j][at + 1 + k]);
            continue;
        }
        for (uint32_t k = 0; k < PSK_ARRN(&n->first[j], PSK_F_REQS) && !rc; k++)
            rc = fn(arg, j, PSK_ARR(&n->first[j], PSK_F_REQS)[k], PSK_ARR(&n->first[j], PSK_F_REQS)[k]);
    }
    return rc;
}

typedef struct reqwalk {
    const gen *g;
    int32_t id;
    idset *made; /* per world rank */
    int ok;
} reqwalk;

static int add_made(void *arg, int j, int64_t lo, int64_t hi)
{
    reqwalk *w = arg;
    return lo >= 0 && idset_add(&w->made[w->g->node[w->id].ranks[j]], lo, hi);
}

static int check_done(void *arg, int j, int64_t lo, int64_t hi)
{
    reqwalk *w = arg;
    if (hi < 0)
        return 0; /* MPI_REQUEST_NULL */
    if (hi - lo > 4096)
        return w->ok = 0, 1;
    for (int64_t q = lo < 0 ? 0 : lo; q <= hi; q++)
        if (!idset_has(&w->made[w->g->node[w->id].ranks[j]], q))
            return w->ok = 0, 1;
    return 0;
}

/* pass 0: collect what the subtree of node id makes or starts; pass 1:
 * check what it completes */
static void walk_reqs(reqwalk *w, int32_t id, int pass)
{
    const gen *g = w->g;
    const psk_fnode *x = psk_folded_node(g->f, id);
    if (x->kind != PSK_FNODE_SYM) {
        const int32_t *kid = psk_folded_children(g->f, id);
        for (int32_t i = 0; i < x->nchild && w->ok; i++)
            walk_reqs(w, kid[i], pass);
        return;
    }
    const gnode *n = &g->node[id];
    if (!n->seen)
        return;
    unsigned fn = n->first[0].fn;
    int cls = psk_fn_class(fn), wait = cls == PSK_CLASS_WAIT && !is(fn, "MPI_Request_free") && !is(fn, "MPI_Cancel");
    w->id = id;
    if (pass == 0 && PSK_HAS(&n->first[0], PSK_F_REQ) && !wait && !is(fn, "MPI_Request_free") &&
        !is(fn, "MPI_Cancel")) {
        if (node_ids(g, id, PSK_F_REQ, add_made, w))
            w->ok = 0;
    } else if (pass == 0 && is(fn, "MPI_Startall")) {
        if (node_ids(g, id, PSK_F_REQS, add_made, w))
            w->ok = 0;
    } else if (pass == 1 && wait) {
        node_ids(g, id, PSK_HAS(&n->first[0], PSK_F_REQ) ? PSK_F_REQ : PSK_F_REQS, check_done, w);
    }
}

static int requests_closed(const gen *g, int32_t id)
{
    reqwalk w = {.g = g, .ok = 1};
    w.made = calloc((size_t)(g->P ? g->P : 1), sizeof *w.made);
    if (!w.made)
        return 0;
    walk_reqs(&w, id, 0);
    if (w.ok)
        walk_reqs(&w, id, 1);
    for (int r = 0; r < g->P; r++)
        free(w.made[r].lo), free(w.made[r].hi);
    free(w.made);
    return w.ok;
}

/* Each iteration must also balance in bytes where a message size follows
 * the loop's index: else a rank's loop receives in iteration i what its
 * peer sent in iteration i + 1 (a merged loop rotated against its peer's,
 * its first receive before the loop and its peer's last send after it),
 * which counts balance but running fewer iterations pairs a receive with
 * a message of another iteration's size (MPI_ERR_TRUNCATE). Checked at
 * iterations 0 and 1 where sizes are affine in the index, else at each. */
static int closed_loop(gen *g, int32_t id)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    balance b = {.P = g->P, .ok = 1, .depth = x->depth, .budget = 1 << 20};
    size_t PP = (size_t)g->P * (size_t)g->P;
    b.sent = calloc(PP, sizeof *b.sent);
    b.wild = calloc((size_t)g->P, sizeof *b.wild);
    b.bytes = calloc(PP, sizeof *b.bytes);
    b.wbytes = calloc((size_t)g->P, sizeof *b.wbytes);
    if (!b.sent || !b.wild || !b.bytes || !b.wbytes) {
        free(b.sent), free(b.wild), free(b.bytes), free(b.wbytes);
        return 0;
    }
    const int32_t *kid = psk_folded_children(g->f, id);
    int64_t iters = 1;
    for (int64_t it = 0; it < iters && b.ok; it++) {
        memset(b.sent, 0, PP * sizeof *b.sent), memset(b.bytes, 0, PP * sizeof *b.bytes);
        memset(b.wild, 0, (size_t)g->P * sizeof *b.wild), memset(b.wbytes, 0, (size_t)g->P * sizeof *b.wbytes);
        b.objs = 0;
        if (b.depth >= 0 && b.depth < 64)
            b.iter[b.depth] = it;
        for (int32_t i = 0; i < x->nchild && b.ok; i++)
            tally(g, kid[i], 1, &b);
        /* what each rank got from specific senders, the rest from wildcards */
        for (int r = 0; r < g->P && b.ok; r++) {
            int64_t owed = 0, owedb = 0;
            for (int s = 0; s < g->P; s++) {
                int64_t d = b.sent[(size_t)s * (size_t)g->P + (size_t)r];
                if (d < 0)
                    b.ok = 0;
                owed += d;
                owedb += b.bytes[(size_t)s * (size_t)g->P + (size_t)r];
                if (b.vary && !b.wbytes[r] && b.bytes[(size_t)s * (size_t)g->P + (size_t)r])
                    b.ok = 0;
            }
            if (owed != b.wild[r] || (b.vary && owedb != b.wbytes[r]))
                b.ok = 0;
        }
        if (b.objs || (b.vary && b.unknown))
            b.ok = 0;
        if (it == 0 && b.vary)
            iters = b.nonaffine ? x->count : x->count < 2 ? x->count : 2;
        if (iters > 4096)
            b.ok = 0;
    }
    free(b.sent), free(b.wild), free(b.bytes), free(b.wbytes);
    return b.ok && requests_closed(g, id);
}

/* ---- runs of calls outside loops replayed from data ----
 * Each rank's calls of the run as one string of numbers read by replay_
 * (skel_runtime.c, whose switch takes the arguments in the order written
 * here): function id, work units, event id minus the previous one, then
 * the call's arguments with the recorded values of that rank. Values go
 * into the skeleton only as these digits. */

typedef struct stream {
    char *p;
    int64_t n, cap;
} stream;

static int put(stream *s, int64_t v)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    if (psk_grow((void **)&s->p, &s->cap, s->n + 13, 1)) /* 64 bits: at most 13 digits */
        return -1;
    do {
        int d = (int)(z & 31);
        z >>= 5;
        s->p[s->n++] = b64[d | (z ? 32 : 0)];
    } while (z);
    return 0;
}

/* element k of array field f in bytes: scaled by sf (scalar or array) */
static int64_t arr_bytes(const psk_event *e, int f, int sf, uint32_t k)
{
    int64_t v = PSK_ARR(e, f)[k], sz = 1;
    if (sf >= PSK_F_FIRST_ARRAY)
        sz = k < PSK_ARRN(e, sf) ? PSK_ARR(e, sf)[k] : 1;
    else if (sf >= 0 && PSK_HAS(e, sf))
        sz = e->v[sf];
    return v * sz;
}

static int64_t ev_bytes(const psk_event *e, int cf, int sf)
{
    return e->v[cf] * (PSK_HAS(e, sf) ? e->v[sf] : 1);
}

/* whether node id (executed once: outside loops) can be replayed from data */
static int tabulable(const gen *g, int32_t id)
{
    const gnode *n = &g->node[id];
    if (!n->seen || n->np == 0 || n->hidden)
        return 0;
    int np;
    const psk_fparam *ps = psk_folded_params(g->f, id, &np);
    for (int i = 0; i < np; i++) /* each value computable here */
        for (int j = 0; j < n->np; j++)
            if (value_at(g, id, ps[i].field, j, (int64_t[64]){0}, 0) == INT64_MIN)
                return 0;
    switch (n->first[0].fn) {
    case PSK_FN_Send: case PSK_FN_Bsend: case PSK_FN_Rsend: case PSK_FN_Ssend: case PSK_FN_Recv:
    case PSK_FN_Isend: case PSK_FN_Ibsend: case PSK_FN_Irsend: case PSK_FN_Issend: case PSK_FN_Irecv:
    case PSK_FN_Sendrecv: case PSK_FN_Sendrecv_replace: case PSK_FN_Probe: case PSK_FN_Iprobe:
    case PSK_FN_Send_init: case PSK_FN_Bsend_init: case PSK_FN_Rsend_init: case PSK_FN_Ssend_init:
    case PSK_FN_Recv_init: case PSK_FN_Start: case PSK_FN_Wait: case PSK_FN_Test: case PSK_FN_Request_free:
    case PSK_FN_Cancel: case PSK_FN_Startall: case PSK_FN_Waitall: case PSK_FN_Waitany: case PSK_FN_Waitsome:
    case PSK_FN_Testall: case PSK_FN_Testany: case PSK_FN_Testsome: case PSK_FN_Barrier: case PSK_FN_Ibarrier:
    case PSK_FN_Bcast: case PSK_FN_Ibcast: case PSK_FN_Reduce: case PSK_FN_Ireduce: case PSK_FN_Allreduce:
    case PSK_FN_Scan: case PSK_FN_Exscan: case PSK_FN_Iallreduce: case PSK_FN_Iscan: case PSK_FN_Iexscan:
    case PSK_FN_Reduce_scatter_block: case PSK_FN_Ireduce_scatter_block: case PSK_FN_Reduce_scatter:
    case PSK_FN_Ireduce_scatter: case PSK_FN_Gather: case PSK_FN_Igather: case PSK_FN_Scatter: case PSK_FN_Iscatter:
    case PSK_FN_Allgather: case PSK_FN_Iallgather: case PSK_FN_Alltoall: case PSK_FN_Ialltoall:
    case PSK_FN_Gatherv: case PSK_FN_Igatherv: case PSK_FN_Allgatherv: case PSK_FN_Iallgatherv:
    case PSK_FN_Scatterv: case PSK_FN_Iscatterv: case PSK_FN_Alltoallv: case PSK_FN_Ialltoallv:
    case PSK_FN_Alltoallw: case PSK_FN_Ialltoallw: case PSK_FN_Comm_free: case PSK_FN_Pcontrol:
        return 1;
    default:
        return 0;
    }
}

static void bump(int64_t *max, int64_t v) { *max = v > *max ? v : *max; }

/* rank j's call of node id in its execution k at iteration indices iter
 * onto s; *last: the rank's previous event id */
static int encode_call(gen *g, int32_t id, int j, stream *s, int32_t *last, const int64_t *iter, int64_t k)
{
    const gnode *n = &g->node[id];
    /* the first execution with this execution's values */
    psk_event ev = n->first[j];
    int np;
    const psk_fparam *ps = psk_folded_params(g->f, id, &np);
    for (int i = 0; i < np; i++)
        ev.v[ps[i].field] = value_at(g, id, ps[i].field, j, iter, k);
    if (n->srcf && !n->hidden && n->nsrc && k < n->nsrc[j]) /* a wildcard's recorded source */
        ev.v[n->srcf] = n->src[j][k];
    if (n->reqsvary && !n->reqsbig && n->xr) { /* this execution's request array */
        uint64_t at = 0;
        for (int64_t x = 0; x < k && at < n->nxr[j]; x++)
            at += 1 + (uint64_t)n->xr[j][at];
        if (at < n->nxr[j]) {
            PSK_ARR(&ev, PSK_F_REQS) = &n->xr[j][at + 1];
            PSK_ARRN(&ev, PSK_F_REQS) = (uint32_t)n->xr[j][at];
        }
    }
    const psk_event *e = &ev;
    unsigned fn = e->fn;
    int cls = psk_fn_class(fn), rc = 0;
    int nb = cls == PSK_CLASS_ICOLL;
    int64_t big = 0; /* the most bytes a buffer must hold for it */
    rc |= put(s, fn) | put(s, gap_units(g, n, j)) | put(s, id - *last);
    *last = id;
    int64_t comm = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
    bump(&g->max_comm, comm);
    int64_t by = PSK_HAS(e, PSK_F_COUNT) ? ev_bytes(e, PSK_F_COUNT, PSK_F_DTSIZE) : 0;
    int rsf = PSK_HAS(e, PSK_F_RDTSIZE) ? PSK_F_RDTSIZE : PSK_F_DTSIZE;
    int64_t rby = PSK_HAS(e, PSK_F_RCOUNT) ? ev_bytes(e, PSK_F_RCOUNT, rsf) : 0;
    int64_t peer = PSK_HAS(e, PSK_F_PEER) ? e->v[PSK_F_PEER] : 0, tag = PSK_HAS(e, PSK_F_TAG) ? e->v[PSK_F_TAG] : 0;
    int64_t req = PSK_HAS(e, PSK_F_REQ) ? e->v[PSK_F_REQ] : 0;
    int64_t dts = PSK_HAS(e, PSK_F_DTSIZE) ? e->v[PSK_F_DTSIZE] : 1, op = PSK_HAS(e, PSK_F_OP) ? e->v[PSK_F_OP] : 0;
    int64_t root = PSK_HAS(e, PSK_F_ROOT) ? e->v[PSK_F_ROOT] : 0;
    if (PSK_HAS(e, PSK_F_REQ))
        bump(&g->max_req, req);
    int done = n->done && k < n->ndone[j] ? n->done[j][k] != 0 : 0;
    switch (fn) {
    case PSK_FN_Send: case PSK_FN_Bsend: case PSK_FN_Rsend: case PSK_FN_Ssend: case PSK_FN_Recv:
        rc |= put(s, by) | put(s, peer) | put(s, tag) | put(s, comm);
        big = by;
        break;
    case PSK_FN_Isend: case PSK_FN_Ibsend: case PSK_FN_Irsend: case PSK_FN_Issend: case PSK_FN_Irecv:
    case PSK_FN_Send_init: case PSK_FN_Bsend_init: case PSK_FN_Rsend_init: case PSK_FN_Ssend_init:
    case PSK_FN_Recv_init:
        rc |= put(s, by) | put(s, peer) | put(s, tag) | put(s, comm) | put(s, req);
        big = by;
        break;
    case PSK_FN_Sendrecv:
        rc |= put(s, by) | put(s, peer) | put(s, tag) | put(s, rby) | put(s, e->v[PSK_F_RPEER]) |
              put(s, e->v[PSK_F_RTAG]) | put(s, comm);
        big = by > rby ? by : rby;
        break;
    case PSK_FN_Sendrecv_replace:
        rc |= put(s, by) | put(s, peer) | put(s, tag) | put(s, e->v[PSK_F_RPEER]) | put(s, e->v[PSK_F_RTAG]) |
              put(s, comm);
        big = by;
        break;
    case PSK_FN_Probe: case PSK_FN_Iprobe:
        rc |= put(s, peer) | put(s, tag) | put(s, comm);
        break;
    case PSK_FN_Start: case PSK_FN_Wait: case PSK_FN_Request_free: case PSK_FN_Cancel:
        rc |= put(s, req);
        break;
    case PSK_FN_Test:
        rc |= put(s, req) | put(s, done);
        break;
    case PSK_FN_Startall: case PSK_FN_Waitall: case PSK_FN_Waitany: case PSK_FN_Waitsome:
    case PSK_FN_Testall: case PSK_FN_Testany: case PSK_FN_Testsome: {
        int wait = fn == PSK_FN_Startall ? 0 : (fn == PSK_FN_Waitany || fn == PSK_FN_Testany) ? 2
                   : (fn == PSK_FN_Waitsome || fn == PSK_FN_Testsome) ? 3 : 1;
        int how = completion(e) >= 0 && !done ? wait + 3 : wait;
        uint32_t k, nq = PSK_ARRN(e, PSK_F_REQS);
        rc |= put(s, how) | put(s, nq);
        for (k = 0; k < nq; k++) {
            rc |= put(s, PSK_ARR(e, PSK_F_REQS)[k]);
            bump(&g->max_req, PSK_ARR(e, PSK_F_REQS)[k]);
        }
        break;
    }
    case PSK_FN_Barrier: case PSK_FN_Comm_free:
        rc |= put(s, comm);
        break;
    case PSK_FN_Ibarrier: /* its request after the switch */
        rc |= put(s, comm);
        break;
    case PSK_FN_Pcontrol:
        return rc | put(s, e->v[PSK_F_I1]);
    case PSK_FN_Bcast: case PSK_FN_Ibcast:
        rc |= put(s, by) | put(s, root) | put(s, comm);
        big = by;
        break;
    case PSK_FN_Reduce: case PSK_FN_Ireduce:
        rc |= put(s, by) | put(s, dts) | put(s, op) | put(s, root) | put(s, comm);
        big = by;
        break;
    case PSK_FN_Allreduce: case PSK_FN_Scan: case PSK_FN_Exscan: case PSK_FN_Iallreduce: case PSK_FN_Iscan:
    case PSK_FN_Iexscan:
        rc |= put(s, by) | put(s, dts) | put(s, op) | put(s, comm);
        big = by;
        break;
    case PSK_FN_Reduce_scatter_block: case PSK_FN_Ireduce_scatter_block:
        rc |= put(s, e->v[PSK_F_RCOUNT] * dts) | put(s, dts) | put(s, op) | put(s, comm);
        big = e->v[PSK_F_RCOUNT] * dts * g->P; /* one block per rank sent */
        break;
    case PSK_FN_Reduce_scatter: case PSK_FN_Ireduce_scatter: {
        uint32_t k, na = PSK_ARRN(e, PSK_F_RCOUNTS);
        rc |= put(s, dts) | put(s, op) | put(s, na);
        for (k = 0; k < na; k++) {
            int64_t b = arr_bytes(e, PSK_F_RCOUNTS, PSK_F_DTSIZE, k);
            rc |= put(s, b);
            big += b > 0 ? b : 0;
        }
        rc |= put(s, comm);
        break;
    }
    case PSK_FN_Gather: case PSK_FN_Igather: case PSK_FN_Scatter: case PSK_FN_Iscatter:
        rc |= put(s, by) | put(s, rby) | put(s, root) | put(s, comm);
        big = (by > rby ? by : rby) * g->P;
        break;
    case PSK_FN_Allgather: case PSK_FN_Iallgather: case PSK_FN_Alltoall: case PSK_FN_Ialltoall:
        rc |= put(s, by) | put(s, rby) | put(s, comm);
        big = (by > rby ? by : rby) * g->P;
        break;
    default: { /* the v-forms (tabulable() lets no other through): byte counts per rank */
        int sf = PSK_HAS(e, PSK_F_DTSIZES) ? PSK_F_DTSIZES : PSK_F_DTSIZE;
        int rf = PSK_HAS(e, PSK_F_RDTSIZES) ? PSK_F_RDTSIZES : PSK_HAS(e, PSK_F_RDTSIZE) ? PSK_F_RDTSIZE
                                                                                          : PSK_F_DTSIZE;
        int gath = fn == PSK_FN_Gatherv || fn == PSK_FN_Igatherv || fn == PSK_FN_Allgatherv || fn == PSK_FN_Iallgatherv;
        int scat = fn == PSK_FN_Scatterv || fn == PSK_FN_Iscatterv;
        int64_t st = 0, rt = 0;
        if (gath)
            rc |= put(s, by);
        if (!gath) { /* Scatterv, Alltoallv, Alltoallw: what it sends */
            rc |= put(s, PSK_ARRN(e, PSK_F_COUNTS));
            for (uint32_t k = 0; k < PSK_ARRN(e, PSK_F_COUNTS); k++) {
                int64_t b = arr_bytes(e, PSK_F_COUNTS, sf, k);
                rc |= put(s, b);
                st += b > 0 ? b : 0;
            }
        }
        if (!scat) { /* Gatherv, Allgatherv, Alltoallv, Alltoallw: what it receives */
            rc |= put(s, PSK_ARRN(e, PSK_F_RCOUNTS));
            for (uint32_t k = 0; k < PSK_ARRN(e, PSK_F_RCOUNTS); k++) {
                int64_t b = arr_bytes(e, PSK_F_RCOUNTS, rf, k);
                rc |= put(s, b);
                rt += b > 0 ? b : 0;
            }
        }
        if (scat)
            rc |= put(s, rby);
        if (fn == PSK_FN_Gatherv || fn == PSK_FN_Igatherv || scat)
            rc |= put(s, root);
        rc |= put(s, comm);
        big = st > rt ? st : rt;
        big = big > by * g->P ? big : by * g->P;
        big = big > rby * g->P ? big : rby * g->P;
        break;
    }
    }
    if (nb) /* a nonblocking collective's request: its last argument */
        rc |= put(s, req);
    bump(&g->max_sbytes, big);
    bump(&g->max_rbytes, big);
    return rc;
}

/* loops of at most this many calls (all iterations) go into data whole */
#define UNROLL_MAX 64

/* the calls node id (a call, or a small loop of such) stands for when it
 * can be replayed from data, else 0 */
static int64_t data_calls(const gen *g, int32_t id)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    if (x->kind == PSK_FNODE_SYM)
        return tabulable(g, id);
    if (x->kind != PSK_FNODE_LOOP || x->depth >= 64 || x->count * x->span > UNROLL_MAX)
        return 0;
    const int32_t *kid = psk_folded_children(g->f, id);
    int64_t one = 0;
    for (int32_t i = 0; i < x->nchild; i++) {
        int64_t c = data_calls(g, kid[i]);
        if (!c)
            return 0;
        one += c;
    }
    return one * x->count;
}

typedef struct runwalk {
    stream *s;
    int32_t *last;   /* per rank: its previous event id */
    int64_t iter[64];
    int64_t *execs;  /* per node: its executions written so far */
} runwalk;

static void encode_node(gen *g, int32_t id, runwalk *w)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    if (x->kind == PSK_FNODE_LOOP) {
        const int32_t *kid = psk_folded_children(g->f, id);
        for (int64_t it = 0; it < x->count && !g->failed; it++) {
            w->iter[x->depth] = it;
            for (int32_t i = 0; i < x->nchild; i++)
                encode_node(g, kid[i], w);
        }
        return;
    }
    const gnode *n = &g->node[id];
    for (int j = 0; j < n->np; j++)
        if (encode_call(g, id, j, &w->s[n->ranks[j]], &w->last[n->ranks[j]], w->iter, w->execs[id]))
            gfail(g, "out of memory");
    w->execs[id]++;
    g->fnused[n->first[0].fn & 255] = 1;
}

/* the run kid[from..to) of calls and small loops (calls in all) as one
 * replay_ per rank */
static void emit_run(gen *g, const int32_t *kid, int32_t from, int32_t to, int64_t calls, int d)
{
    stream *s = calloc((size_t)g->P, sizeof *s);
    int32_t *last = calloc((size_t)g->P, sizeof *last);
    if (!g->execs) /* each node is in one run only: one set of counters serves all */
        g->execs = calloc((size_t)psk_folded_nnodes(g->f), sizeof *g->execs);
    runwalk w = {.s = s, .last = last, .execs = g->execs};
    if (!s || !last || !w.execs) {
        free(s), free(last);
        gfail(g, "out of memory");
        return;
    }
    for (int32_t i = from; i < to && !g->failed; i++)
        encode_node(g, kid[i], &w);
    int32_t first = kid[from];
    for (int r = 0; r < g->P && !g->failed; r++) {
        if (!s[r].n)
            continue;
        fprintf(g->tabs, "static const char R%d_%d[] =", first, r);
        for (int64_t at = 0; at < s[r].n; at += 16000)
            fprintf(g->tabs, "\n    \"%.*s\"", (int)(s[r].n - at < 16000 ? s[r].n - at : 16000), s[r].p + at);
        fprintf(g->tabs, ";\n");
    }
    fprintf(g->tabs, "static const char *const R%d[NRANKS] = {", first);
    for (int r = 0; r < g->P; r++) {
        if (s[r].n)
            fprintf(g->tabs, "%sR%d_%d", r ? ", " : "", first, r);
        else
            fprintf(g->tabs, "%s0", r ? ", " : "");
        free(s[r].p);
    }
    fprintf(g->tabs, "};\n");
    indent(g, d);
    fprintf(g->body, "replay_(R%d[rank_], fname_); /* nodes %d-%d: %lld calls outside loops, replayed from data */\n",
            first, first, kid[to - 1], (long long)calls);
    free(s), free(last);
}

static void emit_children(gen *g, int32_t id, int d, int in_scaled, const char *loopvar)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    const int32_t *kid = psk_folded_children(g->f, id);
    for (int32_t i = 0; i < x->nchild && !g->failed; i++) {
        int32_t c = kid[i];
        const psk_fnode *y = psk_folded_node(g->f, c);
        if (id == 0) {
            /* outside loops: a long enough run of calls and small loops goes into data */
            int32_t k = i;
            int64_t calls = 0, c;
            while (k < x->nchild && (c = data_calls(g, kid[k])) > 0)
                k++, calls += c;
            if (k > i && calls >= g->table_min) {
                emit_run(g, kid, i, k, calls, d);
                i = k - 1;
                continue;
            }
        }
        if (y->kind == PSK_FNODE_SYM) {
            g->in_scaled = in_scaled;
            emit_sym(g, c, d, loopvar);
            continue;
        }
        char var[32];
        snprintf(var, sizeof var, "i%d", c);
        int scale = !in_scaled && y->count >= g->K && g->K > 1 && closed_loop(g, c);
        indent(g, d);
        if (scale) {
            int64_t ran = y->count / g->K;
            int ph = g->nscaled++;
            fprintf(g->body, "{ /* loop %d: %lld iterations of %lld events in the original; %lld here (K = %d) */\n",
                    c, (long long)y->count, (long long)y->span, (long long)ran, g->K);
            indent(g, d + 1);
            fprintf(g->body, "double lt_ = MPI_Wtime(), l1_ = 0;\n");
            indent(g, d + 1);
            fprintf(g->body, "for (long %s = 0; %s < %lldL; %s++) {\n", var, var, (long long)ran, var);
            indent(g, d + 2);
            fprintf(g->body, "if (%s == 1) l1_ = MPI_Wtime(); /* the first iteration warms up */\n", var);
            emit_children(g, c, d + 2, 1, var);
            indent(g, d + 1);
            fprintf(g->body, "}\n");
            indent(g, d + 1);
            fprintf(g->body, "phase_(%d, %d, %lldLL, %lldLL, MPI_Wtime() - lt_, l1_ ? l1_ - lt_ : 0.0);\n", ph, c,
                    (long long)y->count, (long long)ran);
            indent(g, d);
            fprintf(g->body, "}\n");
        } else {
            fprintf(g->body, "for (long %s = 0; %s < %lldL; %s++) { /* loop %d: %lld iterations of %lld events */\n",
                    var, var, (long long)y->count, var, c, (long long)y->count, (long long)y->span);
            emit_children(g, c, d + 1, in_scaled, var);
            indent(g, d);
            fprintf(g->body, "}\n");
        }
    }
}

/* the skeleton's runtime (skel_runtime.c) and the function ids, as text */
extern const char psk_skel_runtime_text[], psk_skel_fn_ids_text[];

static void cleanup(gen *g)
{
    free(g->unit_ns);
    free(g->min_gap);
    g->unit_ns = NULL;
    g->min_gap = NULL;
    for (int r = 0; g->pend && r < g->P; r++)
        free(g->pend[r]);
    free(g->pend);
    free(g->npend);
    g->pend = NULL;
    g->npend = NULL;
    for (int r = 0; g->cmem && r < g->P; r++) {
        for (int64_t c = 0; c < g->ncmem[r]; c++)
            free(g->cmem[r][c].w);
        free(g->cmem[r]);
    }
    for (int r = 0; g->preqs && r < g->P; r++)
        free(g->preqs[r]);
    for (int r = 0; g->lastarr && r < g->P; r++)
        free(g->lastarr[r]);
    free(g->lastarr);
    free(g->nlastarr);
    g->lastarr = NULL;
    free(g->cmem);
    free(g->ncmem);
    free(g->preqs);
    free(g->npreqs);
    g->cmem = NULL;
    g->preqs = NULL;
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
        for (int j = 0; n->xr && j < n->np; j++)
            free(n->xr[j]);
        free(n->xr);
        free(n->nxr);
        free(n->capxr);
    }
    free(g->node);
    free(g->execs);

}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the median (the lower one) of the unit times of rank r's host's ranks;
 * tmp has room for P values. Rank r's own beyond 4096 ranks, where
 * comparing every pair of host names would be too slow. */
static double host_speed(const psk_job *job, int P, int r, double *tmp)
{
    if (P > 4096)
        return job->work_ns_per_unit[r];
    int n = 0;
    for (int q = 0; q < P; q++)
        if (!strcmp(job->hosts[q], job->hosts[r]))
            tmp[n++] = job->work_ns_per_unit[q];
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_double);
    return tmp[(n - 1) / 2];
}

int psk_gen_skeleton(psk_merged *m, psk_folded *f, const psk_gen_opts *o, FILE *out, char *err, size_t errcap)
{
    gen g = {.m = m, .f = f, .job = psk_merged_job(m), .P = psk_merged_nranks(m), .K = o->K, .err = err,
             .errcap = errcap, .max_comm = 1, .max_req = 0,
             .table_min = o->table_min > 0 ? o->table_min : PSK_GEN_TABLE_MIN};
    err[0] = 0;
    if (!g.job->work_ns_per_unit)
        return gfail(&g, "the trace has no compute calibration (recorded by an older perfskel): record it again");
    if (g.K < 1)
        return gfail(&g, "K must be at least 1, not %d", g.K);
    for (int r = 0; r < g.P; r++)
        if (psk_merged_rank_reordered(m, r))
            return gfail(&g, "the merged trace was reordered (Algorithm 1); merge with --no-reorder for gen");
    /* the speed of a host is the median of what its ranks measured (each
     * already a trimmed mean of 31 timings): a rank whose timing was
     * disturbed (another process on its core) must not stretch its work */
    g.unit_ns = calloc((size_t)(g.P > 0 ? g.P : 1), sizeof *g.unit_ns);
    g.min_gap = calloc((size_t)(g.P > 0 ? g.P : 1), sizeof *g.min_gap);
    if (!g.unit_ns || !g.min_gap) {
        cleanup(&g);
        return gfail(&g, "out of memory");
    }
    for (int r = 0; r < g.P; r++)
        g.unit_ns[r] = host_speed(g.job, g.P, r, g.min_gap); /* min_gap: scratch until set below */
    for (int r = 0; r < g.P; r++)
        g.min_gap[r] = 1e300;
    g.node = calloc((size_t)psk_folded_nnodes(f), sizeof *g.node);
    g.pend = calloc((size_t)(g.P > 0 ? g.P : 1), sizeof *g.pend);
    g.npend = calloc((size_t)(g.P > 0 ? g.P : 1), sizeof *g.npend);
    g.cmem = calloc((size_t)(g.P > 0 ? g.P : 1), sizeof *g.cmem);
    g.ncmem = calloc((size_t)(g.P > 0 ? g.P : 1), sizeof *g.ncmem);
    g.preqs = calloc((size_t)(g.P > 0 ? g.P : 1), sizeof *g.preqs);
    g.npreqs = calloc((size_t)(g.P > 0 ? g.P : 1), sizeof *g.npreqs);
    g.lastarr = calloc((size_t)(g.P > 0 ? g.P : 1), sizeof *g.lastarr);
    g.nlastarr = calloc((size_t)(g.P > 0 ? g.P : 1), sizeof *g.nlastarr);
    collect c = {.g = &g};
    if (!g.node || !g.pend || !g.npend || !g.cmem || !g.ncmem || !g.preqs || !g.npreqs || !g.lastarr || !g.nlastarr ||
        psk_mcursor_open(m, &c.cur)) {
        cleanup(&g);
        return gfail(&g, "out of memory");
    }
    psk_folded_walk(f, visit, &c);
    psk_mcursor_close(c.cur);
    if (c.rc) {
        cleanup(&g);
        if (g.failed)
            return -1;
        return gfail(&g, "the merged trace does not match its folding (%s)", psk_merged_errmsg(m));
    }
    settle_sources(&g);
    settle_reqs(&g);
    if (g.failed) {
        cleanup(&g);
        return -1;
    }
    for (int r = 0; r < g.P; r++)
        if (g.min_gap[r] > 1e299)
            g.min_gap[r] = 0;
    if (g.multithreaded) {
        cleanup(&g);
        return gfail(&g, "recorded under MPI_THREAD_MULTIPLE: calls made by several threads of a rank cannot be "
                         "replayed in one order without risking a deadlock");
    }
    g.body = open_memstream(&g.bodytxt, &g.bodylen);
    g.tabs = open_memstream(&g.tabstxt, &g.tabslen);
    if (!g.body || !g.tabs) {
        cleanup(&g);
        return gfail(&g, "out of memory");
    }
    emit_children(&g, 0, 1, 0, NULL);
    /* the names of the functions replayed from data, for the report on SIGTERM */
    fprintf(g.tabs, "static const char *const fname_[256] = {");
    for (int k = 0, any = 0; k < 256; k++)
        if (g.fnused[k]) {
            fprintf(g.tabs, "%s[%d] = \"%s\"", any ? ", " : "", k, psk_fn_name((unsigned)k));
            any = 1;
        }
    fprintf(g.tabs, "};\n");
    fclose(g.body);
    fclose(g.tabs);
    if (!g.failed) {
        const psk_job *j = g.job;
        fprintf(out, "/* Performance skeleton of: %s\n", j->command);
        fprintf(out, " * recorded %s with %s (%s) on %d ranks; made by perfskel gen -K %d.\n", j->start_time,
                psk_flavour_name(j->flavour), j->mpi_version, g.P, g.K);
        fprintf(out, " *\n * It makes each rank's MPI calls in that rank's order, with the recorded\n"
                     " * peers, tags, roots, ops and message sizes (in bytes), and runs the compute\n"
                     " * time recorded before each call as work units of the kernel timed on each\n"
                     " * rank at record time. Loops of at least K iterations run count/K times; their\n"
                     " * time counts count/ran times in the prediction. Rank 0 prints the predicted\n"
                     " * run time of the original (MPI_Init to MPI_Finalize, slowest rank). */\n");
        fprintf(out, "#include <mpi.h>\n#include <signal.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
                     "#include <string.h>\n#include <unistd.h>\n\n");
        fprintf(out, "#define NRANKS %d\n#define K %d\n#define NCOMM %lld\n#define NREQ %lld\n#define NPHASE %d\n",
                g.P, g.K, (long long)g.max_comm + 1, (long long)g.max_req + 1, g.nscaled);
        fprintf(out, "#define SBUF_BYTES %lldLL\n#define RBUF_BYTES %lldLL\n\n", (long long)g.max_sbytes + 64,
                (long long)g.max_rbytes + 64);
        fputs(PSK_WORK_SOURCE, out);
        fputs("\n", out);
        fputs(psk_skel_fn_ids_text, out);
        fputs(psk_skel_runtime_text, out);
        fprintf(out, "/* per-rank values where ranks differ, indexed by world rank */\n");
        fwrite(g.tabstxt, 1, g.tabslen, out);
        fprintf(out, "\nint main(int argc, char **argv)\n{\n");
        fprintf(out, "    MPI_Init(&argc, &argv);\n"
                     "    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);\n"
                     "    MPI_Comm_size(MPI_COMM_WORLD, &size_);\n"
                     "    signal(SIGTERM, onterm_); /* says where this rank was */\n"
                     "    if (size_ != NRANKS) {\n"
                     "        if (rank_ == 0)\n"
                     "            fprintf(stderr, \"skeleton: recorded with %%d ranks, run with %%d\\n\", NRANKS, size_);\n"
                     "        fflush(stderr);\n"
                     "        MPI_Barrier(MPI_COMM_WORLD); /* the message out before anyone aborts */\n"
                     "        MPI_Abort(MPI_COMM_WORLD, 2);\n"
                     "    }\n"
                     "    for (int c = 0; c <= NCOMM; c++) comm_[c] = MPI_COMM_NULL;\n"
                     "    comm_[0] = MPI_COMM_WORLD;\n"
                     "    comm_[1] = MPI_COMM_SELF;\n"
                     "    for (int c = 0; c <= NCOMM; c++) comm_set_(c);\n"
                     "    for (int r = 0; r <= NREQ; r++) req_[r] = MPI_REQUEST_NULL;\n"
                     "    sbuf_ = calloc((size_t)SBUF_BYTES, 1);\n"
                     "    rbuf_ = calloc((size_t)RBUF_BYTES, 1);\n"
                     "    if (!sbuf_ || !rbuf_) MPI_Abort(MPI_COMM_WORLD, 3);\n"
                     "    double t0_ = MPI_Wtime();\n\n");
        fwrite(g.bodytxt, 1, g.bodylen, out);
        fprintf(out, "\n    double t1_ = MPI_Wtime();\n"
                     "    for (int r = 0; r <= NREQ; r++)\n"
                     "        if (req_[r] != MPI_REQUEST_NULL && !persist_[r]) MPI_Wait(&req_[r], MPI_STATUS_IGNORE);\n"
                     "    double mine[2] = {t1_ - t0_ + scaled_extra_, t1_ - t0_}, all[2];\n"
                     "    MPI_Reduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n"
                     "    double ph[NPHASE + 1], pp[NPHASE + 1];\n"
                     "    MPI_Reduce(phase_time_, ph, NPHASE + 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n"
                     "    MPI_Reduce(phase_pred_, pp, NPHASE + 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n"
                     "    if (rank_ == 0) {\n"
                     "        for (int p = 0; p < NPHASE; p++)\n"
                     "            printf(\"%s phase loop=%%d count=%%lld ran=%%lld seconds=%%.6f predicted_seconds=%%.6f\\n\",\n"
                     "                   phase_loop_[p], phase_count_[p], phase_ran_[p], ph[p], pp[p]);\n"
                     "        printf(\"%s predicted_seconds=%%.6f skeleton_seconds=%%.6f K=%%d\\n\", all[0], all[1], K);\n"
                     "    }\n"
                     "    free(sbuf_);\n    free(rbuf_);\n"
                     "    MPI_Finalize();\n    return 0;\n}\n",
                PSK_SKELETON_TAG, PSK_SKELETON_TAG);
    }
    free(g.bodytxt);
    free(g.tabstxt);
    cleanup(&g);
    return g.failed ? -1 : 0;
}

int psk_skeleton_parse(const char *line, psk_skeleton_result *r)
{
    const char *p = strstr(line, PSK_SKELETON_TAG " predicted_seconds=");
    if (!p)
        return -1;
    return sscanf(p, PSK_SKELETON_TAG " predicted_seconds=%lf skeleton_seconds=%lf K=%d", &r->predicted_seconds,
                  &r->skeleton_seconds, &r->K) == 3 ? 0 : -1;
}
