/* The recording's own costs of MPI calls (docs/simulation.md, "Call
 * floors"): what a call costs the rank that makes it beyond what the
 * machine's model of the network says (LogP's o: the library's own work,
 * the copies and cache misses of a real program's messages), measured in
 * the recording itself. Per rank and class of call (its function and the
 * size of its data in powers of two; the Wait family by how many requests)
 * the floor is the lower quartile of the class's recorded durations
 * (exact up to 16 calls, then estimated as they come: P-square), the least
 * over the ranks that had a core of their own. And the
 * first call of a class of blocking collectives pays once what its
 * members' later calls do not (the first touch of a receive buffer: 14 us
 * a page on this VM): what it took after the last member arrived, in the
 * recording (the waiting before taken out, across ranks).
 *
 * Both sources of events fill it alike: the rank files one rank at a time,
 * the merged trace event by event (sim --folded), each rank's events in
 * its own order; a class's floor does not depend on that order. A first
 * pass keeps the classes and each first collective's instance (its
 * communicator, leader, size and how many collectives the rank made on it
 * before) and exit; a second reads every rank's events up to the latest
 * of those exits for the members' entries. The first pass also keeps when
 * each rank's MPI_Init returned (s->start: the replay starts it there).
 * Times are ns, on the common clock: the ranks of a host share the host's
 * (offsets()). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psk_mem.h"
#include "sim_state.h"


/* the class of a call: its function and its size class, or 0 for calls
 * the floors leave alone (MPI_Init, MPI_Finalize, MPI_Pcontrol, polls and
 * the calls that end their runs, local calls) */
int psk_simi_cc_init(psk_sim *s)
{
    if (!(s->nofloor = calloc(psk_fn_count(), 1)))
        return PSK_ENOMEM;
    for (unsigned fn = 1; fn < psk_fn_count(); fn++) {
        int op = s->opof[fn];
        s->nofloor[fn] = op == OP_INIT || op == OP_FINALIZE || op == OP_PCONTROL || op == OP_OTHER || op == OP_LOCAL ||
                         op == OP_FREE || op == OP_CANCEL || op == OP_PROBE || psk_fn_poll(fn) || psk_fn_polled(fn);
    }
    return PSK_OK;
}

uint32_t psk_simi_cc_key(const psk_sim *s, const psk_event *e)
{
    if (s->nofloor[e->fn])
        return 0;
    int64_t b = 0, ds = PSK_HAS(e, PSK_F_DTSIZE) ? e->v[PSK_F_DTSIZE] : 1;
    int64_t rds = PSK_HAS(e, PSK_F_RDTSIZE) ? e->v[PSK_F_RDTSIZE] : ds;
    if (PSK_HAS(e, PSK_F_COUNT))
        b = e->v[PSK_F_COUNT] * ds;
    if (PSK_HAS(e, PSK_F_RCOUNT) && e->v[PSK_F_RCOUNT] * rds > b)
        b = e->v[PSK_F_RCOUNT] * rds;
    for (int f = PSK_F_COUNTS; f <= PSK_F_RCOUNTS; f++)
        if (PSK_HAS(e, f)) {
            int64_t sum = 0;
            for (uint32_t k = 0; k < PSK_ARRN(e, f); k++)
                sum += PSK_ARR(e, f)[k];
            sum *= f == PSK_F_COUNTS ? ds : rds;
            b = sum > b ? sum : b;
        }
    if (PSK_HAS(e, PSK_F_REQS)) /* the Wait family: by how many requests */
        b = PSK_ARRN(e, PSK_F_REQS);
    uint32_t bin = 0;
    while (b > 0 && bin < 62)
        b >>= 1, bin++;
    return (uint32_t)e->fn << 6 | bin;
}

/* a class while it is collected: its first EXACT durations sorted, then
 * its lower quartile by the P-square algorithm (Jain and Chlamtac, 1985)
 * from there on: five markers (the least, the eighth, the quartile, the
 * 5/8 and the greatest of the durations so far) and where the middle three
 * stand among them */
#define EXACT 16

typedef struct ccacc {
    uint32_t key;
    uint32_t n;          /* calls */
    union {
        float v[EXACT];  /* n < EXACT: the durations, sorted */
        struct {
            float h[5];  /* the markers' heights */
            int32_t pos[3];
        } p;
    } u;
    int32_t want;        /* its first call's entry in wants (+1), 0 none */
} ccacc;

#define QUART 0.25

/* where marker i should be among n durations */
static double desired(int i, uint32_t n)
{
    static const double f[5] = {0, QUART / 2, QUART, (1 + QUART) / 2, 1};
    return f[i] * (double)(n - 1);
}

static void keep(ccacc *x, float d)
{
    if (x->n < EXACT) { /* sorted; at EXACT, the markers where they should be */
        uint32_t i = x->n++;
        for (; i > 0 && x->u.v[i - 1] > d; i--)
            x->u.v[i] = x->u.v[i - 1];
        x->u.v[i] = d;
        if (x->n == EXACT) {
            float v[EXACT];
            memcpy(v, x->u.v, sizeof v);
            for (int k = 0; k < 5; k++) {
                int at = (int)(desired(k, EXACT) + 0.5);
                x->u.p.h[k] = v[at];
                if (k >= 1 && k <= 3)
                    x->u.p.pos[k - 1] = at;
            }
        }
        return;
    }
    double h[5], p[5];
    for (int i = 0; i < 5; i++)
        h[i] = x->u.p.h[i];
    p[0] = 0, p[1] = x->u.p.pos[0], p[2] = x->u.p.pos[1], p[3] = x->u.p.pos[2], p[4] = x->n - 1;
    int k;
    if (d < h[0])
        h[0] = d, k = 0;
    else if (d >= h[4])
        h[4] = d, k = 3;
    else
        for (k = 0; k < 3 && d >= h[k + 1]; k++)
            ;
    for (int i = k + 1; i < 5; i++)
        p[i]++;
    x->n++;
    for (int i = 1; i <= 3; i++) {
        double dd = desired(i, x->n) - p[i];
        if ((dd >= 1 && p[i + 1] - p[i] > 1) || (dd <= -1 && p[i - 1] - p[i] < -1)) {
            double g = dd > 0 ? 1 : -1;
            double hp = h[i] + g / (p[i + 1] - p[i - 1]) *
                                   ((p[i] - p[i - 1] + g) * (h[i + 1] - h[i]) / (p[i + 1] - p[i]) +
                                    (p[i + 1] - p[i] - g) * (h[i] - h[i - 1]) / (p[i] - p[i - 1]));
            if (!(h[i - 1] < hp && hp < h[i + 1])) { /* linear instead */
                int j = i + (int)g;
                hp = h[i] + g * (h[j] - h[i]) / (p[j] - p[i]);
            }
            h[i] = hp;
            p[i] += g;
        }
    }
    for (int i = 0; i < 5; i++)
        x->u.p.h[i] = (float)h[i];
    x->u.p.pos[0] = (int32_t)p[1], x->u.p.pos[1] = (int32_t)p[2], x->u.p.pos[2] = (int32_t)p[3];
}

/* the lower quartile of a class's durations (of n < EXACT: the one a
 * quarter of the way from the least to the greatest, rounded down) */
static float quartile(const ccacc *x)
{
    if (x->n >= EXACT)
        return x->u.p.h[2];
    return x->u.v[(uint32_t)(QUART * (double)(x->n - 1))];
}

/* a communicator of a rank: who leads it, its size, its collectives so far */
typedef struct cccomm {
    int32_t leader, n;
    uint64_t seq;
} cccomm;

/* the instance of a collective that is some rank's first of its class */
typedef struct ccwant {
    int32_t q;
    uint32_t key;        /* its class */
    int64_t comm;        /* the instance: communicator id, leader, size, sequence */
    int32_t leader, n;
    uint64_t seq;
    int64_t exit;        /* on the common clock */
} ccwant;

/* an instance wanted, with what the second pass found */
typedef struct ccinst {
    int64_t comm;
    int32_t leader, n;
    uint64_t seq;
    int64_t last;        /* the latest entry found */
    int32_t found;       /* members found */
} ccinst;

typedef struct ccrank {
    ccacc *a;            /* sorted by key */
    uint32_t *key;       /* a's keys, searched apart: one cache line for a rank's classes, not a few */
    int na, cap;
    cccomm *comm;        /* by id */
    int64_t ncomm;
    int prun;            /* the run of polls under way (a Wait ending it is part of it) */
    unsigned pfn;
    uint64_t pkey;
    int done;            /* second pass: past the latest exit wanted */
} ccrank;

typedef struct psk_ccoll {
    const psk_sim *s;
    const psk_job *job;
    int P, pass;
    ccrank *r;
    ccwant *w;
    int64_t nw, capw;
    ccinst *inst;        /* sorted (second pass) */
    int64_t ninst;
    int64_t stop;        /* the latest exit wanted */
    int ndone;
    int64_t *init;       /* per rank: MPI_Init's exit on the common clock */
    int64_t *off;        /* per rank: its clock less the common one (offsets()) */
    uint8_t *seen;       /* per rank: its first event was read */
} psk_ccoll;

static int64_t clock_of(const psk_ccoll *c, int q, uint64_t t) { return (int64_t)t - c->off[q]; }

/* per rank, what to take off its clock for the common one
 * (psk_clock_offsets); 0 or PSK_ENOMEM */
static int offsets(psk_ccoll *c)
{
    if (!(c->off = calloc((size_t)(c->P ? c->P : 1), sizeof *c->off)))
        return PSK_ENOMEM;
    return psk_clock_offsets(c->job, c->off);
}

/* the slot of rank q's communicator id (grown as needed), NULL beyond any real program's */
static cccomm *comm_slot(psk_ccoll *c, int q, int64_t id)
{
    ccrank *r = &c->r[q];
    if (id < 0 || id > (1 << 20))
        return NULL;
    if (id >= r->ncomm) {
        int64_t old = r->ncomm;
        if (psk_grow((void **)&r->comm, &r->ncomm, id, sizeof *r->comm))
            return NULL;
        memset(r->comm + old, 0, (size_t)(r->ncomm - old) * sizeof *r->comm);
    }
    return &r->comm[id];
}

/* rank q's communicator id, NULL if it was never created */
static cccomm *comm_of(psk_ccoll *c, int q, int64_t id)
{
    cccomm *m = comm_slot(c, q, id);
    if (m && !m->n && id == 0) /* MPI_COMM_WORLD */
        m->leader = 0, m->n = c->P;
    else if (m && !m->n && id == 1) /* MPI_COMM_SELF */
        m->leader = q, m->n = 1;
    return m && m->n ? m : NULL;
}

static void new_comm(psk_ccoll *c, int q, const psk_event *e)
{
    if (!PSK_HAS(e, PSK_F_NEWID) || e->v[PSK_F_NEWID] < 2 || !PSK_HAS(e, PSK_F_MEMBERS) ||
        !PSK_ARRN(e, PSK_F_MEMBERS))
        return;
    cccomm *m = comm_slot(c, q, e->v[PSK_F_NEWID]);
    if (m)
        *m = (cccomm){.leader = (int32_t)PSK_ARR(e, PSK_F_MEMBERS)[0], .n = (int32_t)PSK_ARRN(e, PSK_F_MEMBERS)};
}

static int inst_cmp(const void *a, const void *b)
{
    const ccinst *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->leader != y->leader)
        return x->leader < y->leader ? -1 : 1;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static ccinst *inst_find(psk_ccoll *c, int64_t comm, int32_t leader, int32_t n, uint64_t seq)
{
    ccinst k = {.comm = comm, .leader = leader, .n = n, .seq = seq};
    return c->ninst ? bsearch(&k, c->inst, (size_t)c->ninst, sizeof k, inst_cmp) : NULL;
}

/* the collective rank q's event e makes on communicator id (its instance) */
static int coll_event(psk_ccoll *c, int q, const psk_event *e, int64_t id, ccacc *x)
{
    cccomm *m = comm_of(c, q, id);
    if (!m)
        return 0;
    uint64_t seq = m->seq++;
    if (c->pass == 1) {
        if (!x || x->n != 1)
            return 0; /* the first of its class only */
        if (c->nw == c->capw) {
            int64_t cap = c->capw ? 2 * c->capw : 64;
            ccwant *w = realloc(c->w, (size_t)cap * sizeof *w);
            if (!w)
                return PSK_ENOMEM;
            c->w = w, c->capw = cap;
        }
        c->w[c->nw] = (ccwant){.q = q, .key = x->key, .comm = id, .leader = m->leader, .n = m->n, .seq = seq,
                               .exit = clock_of(c, q, e->t_exit)};
        x->want = (int32_t)++c->nw;
        return 0;
    }
    ccinst *in = inst_find(c, id, m->leader, m->n, seq);
    if (in) {
        int64_t t = clock_of(c, q, e->t_entry);
        in->last = in->found && in->last > t ? in->last : t;
        in->found++;
    }
    return 0;
}

static ccacc *class_of(ccrank *r, uint32_t key)
{
    int lo = 0, hi = r->na;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (r->key[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < r->na && r->key[lo] == key)
        return &r->a[lo];
    if (r->na == r->cap) {
        int cap = r->cap ? 2 * r->cap : 4;
        uint32_t *k = realloc(r->key, (size_t)cap * sizeof *k);
        if (!k)
            return NULL;
        r->key = k;
        ccacc *a = realloc(r->a, (size_t)cap * sizeof *a);
        if (!a)
            return NULL;
        r->a = a, r->cap = cap;
    }
    memmove(r->a + lo + 1, r->a + lo, (size_t)(r->na - lo) * sizeof *r->a);
    memmove(r->key + lo + 1, r->key + lo, (size_t)(r->na - lo) * sizeof *r->key);
    r->key[lo] = key;
    r->na++;
    memset(&r->a[lo], 0, sizeof r->a[lo]);
    r->a[lo].key = key;
    return &r->a[lo];
}

/* rank q's next event, in its order */
static int add(psk_ccoll *c, int q, const psk_event *e)
{
    const psk_sim *s = c->s;
    ccrank *r = &c->r[q];
    if (c->pass == 2 && (r->done || (r->done = clock_of(c, q, e->t_entry) > c->stop))) {
        c->ndone += r->done == 1;
        r->done = 2;
        return 0;
    }
    if (!c->seen[q]) { /* its first event: MPI_Init (run() checks) */
        c->seen[q] = 1;
        c->init[q] = clock_of(c, q, e->t_exit);
    }
    /* a Wait family call ending a run of polls (merging makes it part of the run's event) */
    if (r->prun) {
        if ((e->fn == r->pfn || e->fn == psk_fn_poll_wait(r->pfn)) && psk_event_poll_key(e) == r->pkey) {
            if (e->fn != r->pfn || psk_event_found(e))
                r->prun = 0;
            return 0;
        }
        r->prun = 0;
    }
    if (psk_fn_poll_wait(e->fn) && !psk_event_found(e))
        r->prun = 1, r->pfn = e->fn, r->pkey = psk_event_poll_key(e);
    int op = s->opof[e->fn];
    uint32_t key = op == OP_COLL || op == OP_NEWCOMM || op == OP_NEWCOMM_GROUP || c->pass == 1
                       ? psk_simi_cc_key(s, e) : 0;
    ccacc *x = NULL;
    if (key && c->pass == 1) {
        if (!(x = class_of(r, key)))
            return PSK_ENOMEM;
        keep(x, e->t_exit > e->t_entry ? (float)(e->t_exit - e->t_entry) : 0);
    }
    int rc = 0;
    int64_t comm = PSK_HAS(e, PSK_F_COMM) ? e->v[PSK_F_COMM] : 0;
    if (op == OP_COLL || op == OP_NEWCOMM)
        rc = coll_event(c, q, e, comm, key ? x : NULL);
    if (op == OP_NEWCOMM || op == OP_NEWCOMM_GROUP)
        new_comm(c, q, e);
    if (op == OP_NEWCOMM_GROUP && PSK_HAS(e, PSK_F_NEWID) && !rc)
        rc = coll_event(c, q, e, e->v[PSK_F_NEWID], key ? x : NULL);
    return rc;
}

static void ccoll_free(psk_ccoll *c)
{
    for (int q = 0; c->r && q < c->P; q++)
        free(c->r[q].a), free(c->r[q].key), free(c->r[q].comm);
    free(c->r), free(c->w), free(c->inst), free(c->init), free(c->seen), free(c->off);
}

/* between the passes: the instances wanted, and where to stop reading */
static int between(psk_ccoll *c)
{
    for (int q = 0; q < c->P; q++) {
        ccrank *r = &c->r[q];
        free(r->comm);
        r->comm = NULL, r->ncomm = 0, r->prun = 0;
        c->seen[q] = 0;
    }
    c->pass = 2;
    if (!c->nw)
        return PSK_OK;
    if (!(c->inst = malloc((size_t)c->nw * sizeof *c->inst)))
        return PSK_ENOMEM;
    c->stop = c->w[0].exit;
    for (int64_t i = 0; i < c->nw; i++) {
        const ccwant *w = &c->w[i];
        c->inst[i] = (ccinst){.comm = w->comm, .leader = w->leader, .n = w->n, .seq = w->seq};
        c->stop = w->exit > c->stop ? w->exit : c->stop;
    }
    qsort(c->inst, (size_t)c->nw, sizeof *c->inst, inst_cmp);
    int64_t n = 0;
    for (int64_t i = 0; i < c->nw; i++)
        if (!n || inst_cmp(&c->inst[n - 1], &c->inst[i]))
            c->inst[n++] = c->inst[i];
    c->ninst = n;
    return PSK_OK;
}

/* into s->cc: per rank its classes' floors, and the first collectives' once */
static int seal(psk_sim *s, psk_ccoll *c)
{
    s->cc = calloc((size_t)s->P, sizeof *s->cc);
    s->ncc = calloc((size_t)s->P, sizeof *s->ncc);
    s->start = calloc((size_t)s->P, sizeof *s->start);
    if (!s->cc || !s->ncc || !s->start)
        return PSK_ENOMEM;
    /* the ranks start when their MPI_Init returned (the run is the
     * longest of their spans, as perfskel stats measures the recording) */
    int64_t first = INT64_MAX;
    for (int q = 0; q < s->P; q++)
        if (c->seen[q] && c->init[q] < first)
            first = c->init[q];
    for (int q = 0; q < s->P; q++)
        s->start[q] = c->seen[q] ? (double)(c->init[q] - first) : 0;
    for (int q = 0; q < s->P; q++) {
        const ccrank *r = &c->r[q];
        if (!r->na)
            continue;
        if (!(s->cc[q] = malloc((size_t)r->na * sizeof *s->cc[q])))
            return PSK_ENOMEM;
        s->ncc[q] = r->na;
        for (int i = 0; i < r->na; i++) {
            const ccacc *x = &r->a[i];
            psk_ccls *y = &s->cc[q][i];
            *y = (psk_ccls){.key = x->key, .floor = quartile(x)};
            if (x->want) {
                const ccwant *w = &c->w[x->want - 1];
                const ccinst *in = inst_find(c, w->comm, w->leader, w->n, w->seq);
                if (in && in->found == w->n && w->exit > in->last)
                    y->once = (float)(w->exit - in->last);
            }
        }
    }
    return PSK_OK;
}

/* one pass over every rank's events: from the rank files or the merged trace */
static int pass(psk_ccoll *c, psk_trace *t, psk_merged *m)
{
    psk_sim *s = (psk_sim *)c->s;
    int rc = 0;
    if (m) {
        psk_mcursor *mc;
        if ((rc = psk_mcursor_open(m, &mc)))
            return rc;
        psk_mevent me;
        while (!rc && c->ndone < c->P && !(rc = psk_mcursor_next(mc, &me)))
            for (int j = 0; j < me.nranks && !rc; j++)
                rc = add(c, me.ranks[j], &me.ev[j]);
        if (rc == PSK_EOF)
            rc = 0;
        else if (rc && rc != PSK_ENOMEM)
            snprintf(s->err, sizeof s->err, "%s", psk_merged_errmsg(m));
        psk_mcursor_close(mc);
        return rc;
    }
    for (int q = 0; !rc && q < c->P; q++) {
        psk_rank_reader *rd;
        if ((rc = psk_rank_open(t, q, &rd))) {
            snprintf(s->err, sizeof s->err, "%s", psk_rank_errmsg(rd));
            psk_rank_close(rd);
            break;
        }
        psk_event e;
        while (!rc && !c->r[q].done && !(rc = psk_rank_next(rd, &e)))
            rc = add(c, q, &e);
        if (rc == PSK_EOF || rc == PSK_ETRUNCATED)
            rc = 0;
        else if (rc && rc != PSK_ENOMEM)
            snprintf(s->err, sizeof s->err, "%s", psk_rank_errmsg(rd));
        psk_rank_close(rd);
    }
    return rc;
}

/* the first pass begins: 0 or PSK_ENOMEM */
static int begin(psk_sim *s, const psk_job *job, psk_ccoll *c)
{
    *c = (psk_ccoll){.s = s, .job = job, .P = s->P, .pass = 1};
    c->r = calloc((size_t)(s->P ? s->P : 1), sizeof *c->r);
    c->init = calloc((size_t)(s->P ? s->P : 1), sizeof *c->init);
    c->seen = calloc((size_t)(s->P ? s->P : 1), sizeof *c->seen);
    return c->r && c->init && c->seen ? offsets(c) : PSK_ENOMEM;
}

/* after the first pass (rc its outcome): the second, and the floors into s */
static int end(psk_sim *s, psk_ccoll *c, psk_trace *t, psk_merged *m, int rc)
{
    if (!rc)
        rc = between(c);
    if (!rc && c->ninst)
        rc = pass(c, t, m);
    if (!rc)
        rc = seal(s, c);
    if (rc == PSK_ENOMEM)
        snprintf(s->err, sizeof s->err, "out of memory");
    ccoll_free(c);
    return rc;
}

int psk_simi_cc_trace(psk_sim *s, psk_trace *t)
{
    psk_ccoll c;
    int rc = begin(s, psk_trace_job(t), &c);
    return end(s, &c, t, NULL, rc ? rc : pass(&c, t, NULL));
}

int psk_simi_cc_merged_begin(psk_sim *s, psk_merged *m)
{
    if (!(s->ccm = malloc(sizeof *s->ccm)))
        return snprintf(s->err, sizeof s->err, "out of memory"), PSK_ENOMEM;
    int rc = begin(s, psk_merged_job(m), s->ccm);
    if (rc) {
        snprintf(s->err, sizeof s->err, "out of memory");
        ccoll_free(s->ccm);
        free(s->ccm);
        s->ccm = NULL;
    }
    return rc;
}

/* what add() will read of rank q's collection: its ranks' structs are
 * apart from one another at many ranks, and its classes on the heap */
static inline __attribute__((always_inline)) void prefetch_rank(const psk_ccoll *c, int q, int classes)
{
    const ccrank *r = &c->r[q];
    if (!classes) {
        __builtin_prefetch(r, 1);
        return;
    }
    __builtin_prefetch(r->key);
    __builtin_prefetch(r->a, 1);
    __builtin_prefetch((const char *)r->a + 64, 1);
}

int psk_simi_cc_merged_event(psk_sim *s, const psk_mevent *me, int j0, int j1)
{
    int rc = 0;
    const psk_ccoll *c = s->ccm;
    for (int j = j0; j < j1 && !rc; j++) {
        if (j + 16 < me->nranks) /* a merged event's ranks are many ranks apart: ask ahead */
            prefetch_rank(c, me->ranks[j + 16], 0);
        if (j + 8 < me->nranks)
            prefetch_rank(c, me->ranks[j + 8], 1);
        rc = add(s->ccm, me->ranks[j], &me->ev[(uint32_t)j & me->jmask]);
    }
    return rc;
}

int psk_simi_cc_merged_end(psk_sim *s, psk_merged *m, int rc)
{
    if (!s->ccm)
        return rc;
    rc = end(s, s->ccm, NULL, m, rc);
    free(s->ccm);
    s->ccm = NULL;
    return rc;
}

void psk_simi_cc_prefetch(const psk_sim *s, int q)
{
    const rank *r = &s->r[q];
    for (int i = 0; i < r->ncc; i += 64 / (int)sizeof *r->cc)
        __builtin_prefetch(&r->cc[i], 1);
}

void psk_simi_cc_floor(psk_sim *s, int q)
{
    rank *r = &s->r[q];
    r->floor = r->once = 0;
    if (!r->ncc || r->in_prun || s->m->no_floors)
        return;
    uint32_t key = psk_simi_cc_key(s, &r->ev);
    if (!key)
        return;
    psk_ccls *a = r->cc;
    int lo = 0, hi = r->ncc;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (a[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == r->ncc || a[lo].key != key)
        return;
    /* CPU work, at the rank's power */
    double scale = r->ipow;
    r->floor = a[lo].floor * scale;
    if (a[lo].once > 0) { /* the class's first call: once */
        r->once = a[lo].once * scale;
        a[lo].once = 0;
    }
}

/* per rank: 1 if its host had more ranks than cores when it was recorded,
 * or if that is not known (no cores in job.json: an import, an old trace) */
static int shared_hosts(const psk_sim *s, const psk_job *job, uint8_t *shared)
{
    memset(shared, !job->hosts || !job->cores, (size_t)s->P);
    if (!job->hosts || !job->cores)
        return PSK_OK;
    int *id = malloc((size_t)(s->P ? s->P : 1) * sizeof *id), *on = calloc((size_t)(s->P ? s->P : 1), sizeof *on);
    int nh = id && on ? psk_host_ids(job->hosts, s->P, id) : -1;
    for (int q = 0; q < s->P && nh > 0; q++)
        on[id[q]]++;
    for (int q = 0; q < s->P && nh > 0; q++)
        shared[q] = job->cores[q] > 0 && on[id[q]] > job->cores[q];
    free(id), free(on);
    return nh < 0 ? PSK_ENOMEM : PSK_OK;
}

/* a class's floor as one rank says it */
typedef struct ccval {
    uint32_t key;
    float v;
} ccval;

static int val_cmp(const void *a, const void *b)
{
    const ccval *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

int psk_simi_cc_finish(psk_sim *s, const psk_job *job)
{
    if (!s->cc)
        return PSK_OK;
    /* a rank that waits in every call of a class (for a partner with more
     * work) says nothing of what the call costs: the class's floor is the
     * least of the ranks' quartiles. Where more ranks than cores shared a
     * host when recorded, they waited for a core, or for a partner that had
     * none, in most calls whatever the recorded compute says: those ranks
     * say nothing (a class only they make has no floor), and a first
     * collective there has no once; nor do ranks whose hosts' cores the
     * trace does not say (an OTF2 import: MPICH's 4 ranks on 2 cores gave
     * floors of 4 ms slices). (Their shortest calls as floors made the
     * time-sharing model's answers swing by 15 % either way.) */
    uint8_t *shared = malloc((size_t)(s->P ? s->P : 1));
    size_t n = 0;
    for (int q = 0; q < s->P; q++)
        n += (size_t)s->ncc[q];
    ccval *all = malloc((n ? n : 1) * sizeof *all);
    if (!shared || !all || shared_hosts(s, job, shared)) {
        free(shared), free(all);
        return PSK_ENOMEM;
    }
    n = 0;
    for (int q = 0; q < s->P; q++)
        for (int i = 0; i < s->ncc[q]; i++) {
            const psk_ccls *y = &s->cc[q][i];
            if (!shared[q])
                all[n++] = (ccval){.key = y->key, .v = y->floor};
        }
    qsort(all, n, sizeof *all, val_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!k || all[k - 1].key != all[i].key)
            all[k++] = all[i]; /* the first of each key: a rank with a core of its own if any, the least */
    for (int q = 0; q < s->P; q++)
        for (int i = 0; i < s->ncc[q]; i++) {
            psk_ccls *y = &s->cc[q][i];
            ccval want = {.key = y->key};
            size_t lo = 0, hi = k;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (all[mid].key < want.key)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            y->floor = lo < k && all[lo].key == y->key ? all[lo].v : 0;
            if (shared[q])
                y->once = 0;
        }
    free(all);
    free(shared);
    return PSK_OK;
}
