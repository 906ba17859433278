/* Loop-variant parameters (fold_levels.c, fold_params.c) on random SPMD
 * programs written as synthetic traces: nested loops of ring exchanges
 * (Irecv, Isend, Waitall with the lowest free request ids, as the recorder
 * gives them) and broadcasts whose tag, count, peer distance and root are
 * constant, affine, modular, a random table per iteration, or random per
 * execution of one enclosing loop. Oracle: walking the folded tree over the
 * merged trace, every execution's values on every rank are what the node's
 * parameters say (or its first execution's where none is given), and the
 * folded length is at most the program's own size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "perfskel/fold.h"
#include "perfskel/merge.h"
#include "synth_trace.h"

#define MAXR 4
#define MAXD 4

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* how one argument changes: kind 0 const, 1 a*i+b, 2 (a*i+b) mod m,
 * 3 a random table per iteration, 4 random per execution; d: the loop
 * (among the item's enclosing ones) whose index it follows */
typedef struct vary {
    int kind, d;
    int64_t a, b, m, table[16];
} vary;

typedef struct item {
    int loop, count, n, kid[4]; /* a loop: count and children */
    int what;                   /* an event site: 0 ring exchange, 1 Bcast */
    vary tag, cnt, dist, root;
} item;

typedef struct prog {
    item it[64];
    int n, sites, P;
    uint64_t rng; /* for kind 4 values while writing */
} prog;

static void make_vary(prog *p, vary *v, int depth, int64_t lo)
{
    v->kind = depth ? (int)(rnd(&p->rng) % 5) : 0;
    v->d = depth ? (int)(rnd(&p->rng) % (uint64_t)depth) : 0;
    v->a = (int64_t)(rnd(&p->rng) % 4);
    v->b = lo + (int64_t)(rnd(&p->rng) % 20);
    v->m = 2 + (int64_t)(rnd(&p->rng) % 3);
    for (int i = 0; i < 16; i++)
        v->table[i] = lo + (int64_t)(rnd(&p->rng) % 50);
}

static int gen(prog *p, int depth)
{
    int id = p->n++;
    item *x = &p->it[id];
    memset(x, 0, sizeof *x);
    if (depth < 3 && p->n < 40 && (depth == 0 || rnd(&p->rng) % 3 == 0)) {
        x->loop = 1;
        x->count = 2 + (int)(rnd(&p->rng) % 9);
        x->n = 1 + (int)(rnd(&p->rng) % 3);
        for (int k = 0; k < x->n; k++) {
            int c = gen(p, depth + 1);
            p->it[id].kid[k] = c;
        }
        return id;
    }
    x->what = (int)(rnd(&p->rng) % 2);
    p->sites += x->what == 0 ? 3 : 1;
    make_vary(p, &x->tag, depth, 0);
    make_vary(p, &x->cnt, depth, 1);
    make_vary(p, &x->dist, depth, 0);
    make_vary(p, &x->root, depth, 0);
    return id;
}

static int64_t value(prog *p, const vary *v, const int64_t *iter, uint64_t *exec_rng)
{
    int64_t i = iter[v->d];
    switch (v->kind) {
    case 0:
        return v->b;
    case 1:
        return v->a * i + v->b;
    case 2:
        return (v->a * i + v->b) % v->m;
    case 3:
        return v->table[i % 16];
    default:
        (void)p;
        return (int64_t)(rnd(exec_rng) % 40);
    }
}

typedef struct writer {
    psk_trace_writer *w;
    uint64_t clock[MAXR];
    int P;
} writer;

static void put(writer *w, int r, const char *fn, void (*fill)(psk_event *, void *), void *arg)
{
    psk_event e;
    memset(&e, 0, sizeof e);
    e.fn = psk_fn_lookup(fn);
    assert_true(e.fn != 0);
    e.fields = psk_fn_fields(e.fn);
    w->clock[r] += 500;
    e.t_entry = w->clock[r];
    w->clock[r] += 300;
    e.t_exit = w->clock[r];
    if (fill)
        fill(&e, arg);
    assert_int_equal(psk_writer_event(w->w, r, &e), 0);
}

typedef struct args {
    int64_t peer, tag, count, req, root;
    int64_t reqs[2];
} args;

static void fill_p2p(psk_event *e, void *a_)
{
    args *a = a_;
    e->v[PSK_F_COMM] = 0, e->v[PSK_F_PEER] = a->peer, e->v[PSK_F_TAG] = a->tag;
    e->v[PSK_F_COUNT] = a->count, e->v[PSK_F_DTSIZE] = 1, e->v[PSK_F_REQ] = a->req;
}

static void fill_wait(psk_event *e, void *a_)
{
    args *a = a_;
    PSK_ARRN(e, PSK_F_REQS) = 2;
    PSK_ARR(e, PSK_F_REQS) = a->reqs;
}

static void fill_bcast(psk_event *e, void *a_)
{
    args *a = a_;
    e->v[PSK_F_COMM] = 0, e->v[PSK_F_COUNT] = a->count, e->v[PSK_F_DTSIZE] = 8, e->v[PSK_F_ROOT] = a->root;
}

static void run(prog *p, writer *w, int id, int64_t *iter, int depth)
{
    const item *x = &p->it[id];
    if (x->loop) {
        for (int i = 0; i < x->count; i++) {
            iter[depth] = i;
            for (int k = 0; k < x->n; k++)
                run(p, w, x->kid[k], iter, depth + 1);
        }
        return;
    }
    /* one draw per execution, the same on every rank (SPMD) */
    uint64_t seed = rnd(&p->rng) | 1;
    uint64_t s1 = seed, s2 = seed * 3 | 1, s3 = seed * 5 | 1, s4 = seed * 7 | 1;
    int64_t tag = value(p, &x->tag, iter, &s1), cnt = value(p, &x->cnt, iter, &s2) + 1;
    int64_t dist = value(p, &x->dist, iter, &s3) % w->P, root = value(p, &x->root, iter, &s4) % w->P;
    for (int r = 0; r < w->P; r++) {
        args a = {.tag = tag, .count = cnt, .root = root};
        if (x->what == 1) {
            put(w, r, "MPI_Bcast", fill_bcast, &a);
            continue;
        }
        a.peer = (r - dist + w->P) % w->P, a.req = 0;
        put(w, r, "MPI_Irecv", fill_p2p, &a);
        a.peer = (r + dist) % w->P, a.req = 1;
        put(w, r, "MPI_Isend", fill_p2p, &a);
        a.reqs[0] = 0, a.reqs[1] = 1;
        put(w, r, "MPI_Waitall", fill_wait, &a);
    }
}

/* ---- the oracle ---- */

static const int fields[] = {PSK_F_PEER, PSK_F_TAG, PSK_F_COUNT, PSK_F_ROOT, PSK_F_REQ};

typedef struct check {
    psk_folded *f;
    psk_mcursor *cur;
    int64_t *execs;
    int64_t (*first)[5][MAXR]; /* per node, field, rank: execution 0's value (peers: offset if a pattern) */
    int bad;
} check;

static int64_t observed(const psk_mevent *me, int f, int j, int mode)
{
    return mode == PSK_PMODE_OFFSET ? me->c[f] : me->ev[j].v[f];
}

static int visit(void *arg, int64_t pos, int32_t node, const int64_t *iter, int depth)
{
    check *c = arg;
    psk_mevent me;
    assert_int_equal(psk_mcursor_next(c->cur, &me), 0);
    int64_t k = c->execs[node]++;
    int np;
    const psk_fparam *p = psk_folded_params(c->f, node, &np);
    for (int q = 0; q < 5; q++) {
        int f = fields[q];
        if (!PSK_HAS(&me, f))
            continue;
        const psk_fparam *pf = NULL;
        for (int i = 0; i < np; i++)
            if (p[i].field == f)
                pf = &p[i];
        int peerpat = (f == PSK_F_PEER) && (me.kind[f] == PSK_PAT_RANK || me.kind[f] == PSK_PAT_RING);
        for (int j = 0; j < me.nranks; j++) {
            int mode = pf ? pf->mode : peerpat ? PSK_PMODE_OFFSET : PSK_PMODE_VALUE;
            int64_t got = observed(&me, f, j, mode);
            if (k == 0)
                c->first[node][q][j] = got;
            int64_t want;
            if (!pf) {
                want = c->first[node][q][j];
            } else if (pf->kind == PSK_VARY_RANKEXEC) {
                want = pf->table[k * pf->m + j];
            } else {
                assert_true(pf->depth < depth);
                int64_t e = psk_fparam_eval(pf, iter[pf->depth], k);
                want = pf->mode == PSK_PMODE_DELTA ? c->first[node][q][j] + e : e;
                if (pf->mode == PSK_PMODE_DELTA && k == 0)
                    want = got; /* the base is the first execution */
            }
            if (want != got && !c->bad) {
                char d[256] = "constant";
                if (pf)
                    psk_fparam_desc(pf, d, sizeof d);
                print_message("position %lld node %d exec %lld rank %d %s: got %lld, want %lld (%s)\n",
                              (long long)pos, node, (long long)k, me.ranks[j], psk_field_name(f), (long long)got,
                              (long long)want, d);
                c->bad = 1;
            }
        }
    }
    return 0;
}

static void one(uint64_t seed)
{
    prog p = {.rng = seed * 2654435761u + 1};
    p.P = 1 + (int)(rnd(&p.rng) % MAXR);
    gen(&p, 0);
    char *dir = synth_tempdir();
    rmdir(dir);
    psk_job job = {.job_id = 7, .nranks = p.P, .flavour = PSK_MPI_OPENMPI, .mpi_version = "synthetic",
                   .command = "test_params"};
    writer w = {.P = p.P};
    assert_int_equal(psk_writer_open(dir, &job, NULL, &w.w), 0);
    int64_t iter[MAXD] = {0};
    for (int r = 0; r < p.P; r++)
        put(&w, r, "MPI_Init", NULL, NULL);
    run(&p, &w, 0, iter, 0);
    for (int r = 0; r < p.P; r++)
        put(&w, r, "MPI_Finalize", NULL, NULL);
    assert_int_equal(psk_writer_close(w.w), 0);
    psk_writer_free(w.w);

    psk_trace *t;
    assert_int_equal(psk_trace_open(dir, &t), 0);
    psk_merged *m;
    psk_merge_opts o = {.window = 64, .no_reorder = 1};
    assert_int_equal(psk_merge(t, &o, &m), 0);
    psk_folded *f;
    assert_int_equal(psk_fold_merged(m, PSK_FOLD_RUNS, &f), 0);
    assert_int_equal(psk_folded_stats(f, m), 0);
    /* every loop folds, whatever changes between its iterations: the
     * folded length stays near the program's size (a loop may come out
     * rotated, A (B A)xn for (A B)xn A, or split at a different place),
     * never near the trace's */
    int64_t room = p.sites + 2 + (p.sites + 2) / 3;
    if (psk_folded_length(f) > room)
        print_message("seed %llu: folded to %lld, the program has %d sites\n", (unsigned long long)seed,
                      (long long)psk_folded_length(f), p.sites + 2);
    assert_true(psk_folded_length(f) <= room);
    check c = {.f = f};
    int32_t nn = psk_folded_nnodes(f);
    c.execs = calloc((size_t)nn, sizeof *c.execs);
    c.first = calloc((size_t)nn, sizeof *c.first);
    assert_non_null(c.execs);
    assert_non_null(c.first);
    assert_int_equal(psk_mcursor_open(m, &c.cur), 0);
    psk_folded_walk(f, visit, &c);
    psk_mcursor_close(c.cur);
    if (c.bad)
        print_message("seed %llu: a parameter does not give back the recorded value\n", (unsigned long long)seed);
    assert_false(c.bad);
    free(c.execs);
    free(c.first);
    psk_folded_free(f);
    psk_merged_close(m);
    psk_trace_close(t);
    synth_rmdir(dir);
    free(dir);
}

static void random_programs(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 300; seed++)
        one(seed);
}

/* a V-cycle: sizes halve per level and come back; with sizes part of what
 * repeats, the cycle is the loop, not one level's exchange */
static void vcycle_folds_into_its_cycle(void **state)
{
    (void)state;
    enum { L = 4, CYC = 20, PER = 2 * L - 1 };
    int32_t lv[3][2 + CYC * PER], cls[2 + CYC * PER];
    int n = 0;
    lv[0][n] = lv[1][n] = lv[2][n] = cls[n] = 0, n++;
    for (int c = 0; c < CYC; c++)
        for (int k = 0; k < PER; k++) {
            int lev = k < L ? k : 2 * L - 2 - k;
            lv[0][n] = 10 + lev + 100 * c; /* the tag is the cycle number */
            lv[1][n] = 10 + lev;           /* without tags: the size */
            lv[2][n] = 10;                 /* without sizes: one exchange */
            cls[n] = lv[0][n];
            n++;
        }
    lv[0][n] = lv[1][n] = lv[2][n] = cls[n] = 1, n++;
    const int32_t *levels[3] = {lv[0], lv[1], lv[2]};
    psk_folded *f;
    assert_int_equal(psk_fold_levels(levels, 3, cls, n, PSK_FOLD_RUNS, &f), 0);
    /* Init (cycle)x20 Finalize, the cycle an inner exchange x7 or its 7 levels */
    const int32_t *top = psk_folded_children(f, 0);
    assert_int_equal(psk_folded_node(f, 0)->nchild, 3);
    assert_int_equal(psk_folded_node(f, top[1])->count, CYC);
    assert_int_equal(psk_folded_node(f, top[1])->span, PER);
    psk_folded_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vcycle_folds_into_its_cycle),
        cmocka_unit_test(random_programs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
