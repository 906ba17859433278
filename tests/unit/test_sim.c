/* perfskel sim on hand-built traces with known answers: one message costs
 * start + bytes x byte_time; a bus serialises concurrent messages, a
 * switch does not; the grid's pipelined formula; rendezvous waits for the
 * receiver; eager overlap with work; imbalance, idle and efficiency;
 * MPI_Pcontrol intervals; collectives by formula; machine file errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "perfskel/sim.h"

#define MAXR 16

typedef struct tb {
    char dir[512];
    psk_trace_writer *w;
    int P;
    uint64_t clock[MAXR];
} tb;

static int no_cores; /* the next trace's job says nothing of its hosts' cores */

static void tb_open(tb *t, int P)
{
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(t->dir, sizeof t->dir, "%s/psk-sim-XXXXXX", tmp);
    assert_non_null(mkdtemp(t->dir));
    rmdir(t->dir); /* the writer makes it */
    t->P = P;
    memset(t->clock, 0, sizeof t->clock);
    /* one host with a core per rank: the recorded calls give call floors */
    static const char *hosts[MAXR] = {"h", "h", "h", "h", "h", "h", "h", "h", "h", "h", "h", "h", "h", "h", "h", "h"};
    static const int cores[MAXR] = {16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16};
    psk_job job = {.job_id = 0x51u, .nranks = P, .flavour = PSK_MPI_OPENMPI, .mpi_version = "synthetic",
                   .command = "test_sim", .hosts = hosts, .cores = no_cores ? NULL : cores};
    assert_int_equal(psk_writer_open(t->dir, &job, NULL, &t->w), 0);
}

/* one event on rank r after gap_ns of work, taking 1 us in the recording */
static psk_event *ev(tb *t, int r, const char *fn, uint64_t gap_ns)
{
    static psk_event e;
    memset(&e, 0, sizeof e);
    e.fn = psk_fn_lookup(fn);
    assert_true(e.fn != 0);
    e.fields = psk_fn_fields(e.fn);
    t->clock[r] += gap_ns;
    e.t_entry = t->clock[r];
    t->clock[r] += 1000;
    e.t_exit = t->clock[r];
    return &e;
}

/* the same, the call taking dur_ns in the recording */
static psk_event *ev_d(tb *t, int r, const char *fn, uint64_t gap_ns, uint64_t dur_ns)
{
    psk_event *e = ev(t, r, fn, gap_ns);
    t->clock[r] += dur_ns - 1000;
    e->t_exit = t->clock[r];
    return e;
}

static void put(tb *t, int r, psk_event *e) { assert_int_equal(psk_writer_event(t->w, r, e), 0); }

static void simple(tb *t, int r, const char *fn, uint64_t gap_ns) { put(t, r, ev(t, r, fn, gap_ns)); }

static void p2p(tb *t, int r, const char *fn, uint64_t gap, int peer, int tag, int64_t bytes, int64_t req)
{
    psk_event *e = ev(t, r, fn, gap);
    e->v[PSK_F_COMM] = 0, e->v[PSK_F_PEER] = peer, e->v[PSK_F_TAG] = tag;
    e->v[PSK_F_COUNT] = bytes, e->v[PSK_F_DTSIZE] = 1, e->v[PSK_F_REQ] = req;
    e->v[PSK_F_ASRC] = peer, e->v[PSK_F_ATAG] = tag;
    put(t, r, e);
}

static void waitreq(tb *t, int r, uint64_t gap, int64_t req)
{
    psk_event *e = ev(t, r, "MPI_Wait", gap);
    e->v[PSK_F_REQ] = req;
    put(t, r, e);
}

/* MPI_Wait of request req, whose status says it received from source */
static void wait_from(tb *t, int r, uint64_t gap, int64_t req, int64_t source)
{
    psk_event *e = ev(t, r, "MPI_Wait", gap);
    e->v[PSK_F_REQ] = req;
    int64_t st[3] = {0, source, 0};
    PSK_ARRN(e, PSK_F_STATUSES) = 1;
    PSK_ARR(e, PSK_F_STATUSES) = st;
    put(t, r, e);
}

static void coll(tb *t, int r, const char *fn, uint64_t gap, int64_t bytes)
{
    psk_event *e = ev(t, r, fn, gap);
    e->v[PSK_F_COMM] = 0, e->v[PSK_F_COUNT] = bytes, e->v[PSK_F_DTSIZE] = 1, e->v[PSK_F_ROOT] = 0;
    e->v[PSK_F_RCOUNT] = bytes, e->v[PSK_F_RDTSIZE] = 1, e->v[PSK_F_OP] = PSK_OP_SUM;
    put(t, r, e);
}

static void pcontrol(tb *t, int r, uint64_t gap, int level)
{
    psk_event *e = ev(t, r, "MPI_Pcontrol", gap);
    e->v[PSK_F_I1] = level;
    put(t, r, e);
}

/* a communicator-making call on rank r: newid with the given world members */
static void newcomm(tb *t, int r, const char *fn, uint64_t gap, int64_t comm, int64_t newid, const int64_t *members,
                    uint32_t n)
{
    psk_event *e = ev(t, r, fn, gap);
    e->v[PSK_F_COMM] = comm, e->v[PSK_F_NEWID] = newid;
    PSK_ARRN(e, PSK_F_MEMBERS) = n;
    PSK_ARR(e, PSK_F_MEMBERS) = members;
    put(t, r, e);
}

/* MPI_Mprobe or MPI_Improbe (flag) from peer with tag on comm, its status
 * saying source src */
static void mprobe(tb *t, int r, const char *fn, uint64_t gap, int64_t comm, int peer, int tag, int flag, int src)
{
    psk_event *e = ev(t, r, fn, gap);
    e->v[PSK_F_COMM] = comm, e->v[PSK_F_PEER] = peer, e->v[PSK_F_TAG] = tag, e->v[PSK_F_FLAG] = (uint64_t)flag;
    e->v[PSK_F_ASRC] = flag ? src : -32766, e->v[PSK_F_ATAG] = flag ? tag : -32766;
    put(t, r, e);
}

/* MPI_Mrecv (status: source src, tag) or MPI_Imrecv (request req) */
static void mrecv(tb *t, int r, const char *fn, uint64_t gap, int64_t bytes, int src, int tag, int64_t req)
{
    psk_event *e = ev(t, r, fn, gap);
    e->v[PSK_F_COUNT] = bytes, e->v[PSK_F_DTSIZE] = 1, e->v[PSK_F_REQ] = req;
    e->v[PSK_F_ASRC] = src, e->v[PSK_F_ATAG] = tag;
    put(t, r, e);
}

static void coll_on(tb *t, int r, const char *fn, uint64_t gap, int64_t comm)
{
    psk_event *e = ev(t, r, fn, gap);
    e->v[PSK_F_COMM] = comm, e->v[PSK_F_ROOT] = 0;
    put(t, r, e);
}

/* the known answers below are the network model's alone: the recording's
 * own call costs (every call here took 1 us) and the local copies of
 * collectives are off unless a test's machine says otherwise */
static const char model_only[] = "call floors = off; copy byte time = 0;";

static void machine_of(psk_machine *m, const char *machine_text)
{
    psk_machine_default(m);
    assert_int_equal(psk_machine_parse(model_only, strlen(model_only), "model.par", m), 0);
    assert_int_equal(psk_machine_parse(machine_text, strlen(machine_text), "test.par", m), 0);
}

static psk_sim *tb_run(tb *t, const char *machine_text)
{
    assert_int_equal(psk_writer_close(t->w), 0);
    psk_writer_free(t->w);
    psk_machine m;
    machine_of(&m, machine_text);
    psk_trace *tr;
    assert_int_equal(psk_trace_open(t->dir, &tr), 0);
    psk_sim_opts o = {.machine = &m, .timeline = 1};
    psk_sim *s;
    int rc = psk_sim_run(tr, &o, &s);
    if (rc)
        fprintf(stderr, "sim: %s\n", psk_sim_errmsg(s));
    assert_int_equal(rc, 0);
    psk_trace_close(tr);
    psk_machine_free(&m);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
    assert_int_equal(system(cmd), 0);
    return s;
}

/* ---- the same trace replayed three ways: from its files, folded with
 * every iteration, folded with iterations skipped ---- */

typedef struct three {
    psk_sim *s[3];            /* expanded, folded --no-skip, folded */
    psk_merged *m;
    psk_folded *f;
    psk_machine mach;
    psk_sim_opts o[3];
} three;

static void loop_name(void *arg, int32_t key, char *buf, size_t cap)
{
    (void)arg;
    snprintf(buf, cap, "loop %d", key);
}

static void tb_three(tb *t, const char *machine_text, int loops, three *x)
{
    assert_int_equal(psk_writer_close(t->w), 0);
    psk_writer_free(t->w);
    machine_of(&x->mach, machine_text);
    psk_trace *tr;
    assert_int_equal(psk_trace_open(t->dir, &tr), 0);
    for (int k = 0; k < 3; k++)
        x->o[k] = (psk_sim_opts){.machine = &x->mach, .timeline = 1, .loop_intervals = loops && k,
                                 .no_skip = k == 1, .mark_name = loop_name};
    assert_int_equal(psk_sim_run(tr, &x->o[0], &x->s[0]), 0);
    psk_merge_opts mo = {.window = 64, .no_reorder = 1};
    assert_int_equal(psk_merge(tr, &mo, &x->m), 0);
    assert_int_equal(psk_fold_merged(x->m, PSK_FOLD_RUNS, &x->f), 0); /* as sim --folded: tags, roots, counts vary */
    for (int k = 1; k < 3; k++) {
        int rc = psk_sim_run_folded(x->m, x->f, &x->o[k], &x->s[k]);
        if (rc)
            fprintf(stderr, "sim: %s\n", psk_sim_errmsg(x->s[k]));
        assert_int_equal(rc, 0);
    }
    psk_trace_close(tr);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
    assert_int_equal(system(cmd), 0);
}

static void three_close(three *x)
{
    for (int k = 0; k < 3; k++)
        psk_sim_close(x->s[k]);
    psk_folded_free(x->f);
    psk_merged_close(x->m);
    psk_machine_free(&x->mach);
}

static double metric(const psk_sim *s, int iv, int rank, int m)
{
    return psk_sim_interval(s, iv)->m[(size_t)rank * PSK_M_N + (size_t)m];
}

static void near(double a, double b, int line)
{
    if (fabs(a - b) > 1e-12 + 1e-9 * fabs(b)) {
        fprintf(stderr, "line %d: %.12g, expected %.12g\n", line, a, b);
        fail();
    }
}
#define NEAR(a, b) near((double)(a), (double)(b), __LINE__)

/* two ranks, one message: start + bytes x byte_time */
static void one_message(void **state)
{
    (void)state;
    tb t;
    tb_open(&t, 2);
    simple(&t, 0, "MPI_Init", 0);
    simple(&t, 1, "MPI_Init", 0);
    p2p(&t, 0, "MPI_Send", 0, 1, 5, 1000, -1);
    p2p(&t, 1, "MPI_Recv", 0, 0, 5, 1000, -1);
    simple(&t, 0, "MPI_Finalize", 0);
    simple(&t, 1, "MPI_Finalize", 0);
    psk_sim *s = tb_run(&t, "type = bus; start time = 10; send byte time = 0.01;");
    NEAR(psk_sim_predicted(s), (10 + 1000 * 0.01) * 1e-6);
    NEAR(metric(s, 0, 1, PSK_M_P2P), 20e-6);
    NEAR(metric(s, 0, 0, PSK_M_P2P), 0); /* eager: the sender goes on */
    psk_sim_close(s);
}

/* measured costs by size (calibrate's segments): each message takes its
 * segment's cost, inside a node and between nodes; on a bus too */
static void piecewise_cost(void **state)
{
    (void)state;
    static const int64_t bytes[] = {0, 100, 4095, 4096, 70000, 5000000};
    /* 0-4095: 1 us + 0.001 us/B; 4096-65535: -2 + 0.002; 65536 on: 30 + 0.0005 */
    static const char *const seg = "{0, 1, 0.001, 4096, -2, 0.002, 65536, 30, 0.0005}";
    for (size_t i = 0; i < sizeof bytes / sizeof *bytes; i++)
        for (int where = 0; where < 3; where++) {
            tb t;
            tb_open(&t, 2);
            simple(&t, 0, "MPI_Init", 0);
            simple(&t, 1, "MPI_Init", 0);
            p2p(&t, 0, "MPI_Send", 0, 1, 5, bytes[i], -1);
            p2p(&t, 1, "MPI_Recv", 0, 0, 5, bytes[i], -1);
            simple(&t, 0, "MPI_Finalize", 0);
            simple(&t, 1, "MPI_Finalize", 0);
            char mach[256];
            snprintf(mach, sizeof mach, "%s message cost = %s; eager threshold = 100000000; start time = 99;",
                     where == 1 ? "ranks per node = 2; intra" : where == 2 ? "type = bus;" : "", seg);
            psk_sim *s = tb_run(&t, mach);
            double B = (double)bytes[i];
            double us = B < 4096 ? 1 + 0.001 * B : B < 65536 ? -2 + 0.002 * B : 30 + 0.0005 * B;
            NEAR(psk_sim_predicted(s), us * 1e-6);
            psk_sim_close(s);
        }
}

/* three messages at once: one after the other on a bus, together on a switch */
static void concurrent(const char *machine, double expect_us)
{
    tb t;
    tb_open(&t, 6);
    for (int r = 0; r < 6; r++)
        simple(&t, r, "MPI_Init", 0);
    for (int r = 0; r < 6; r += 2) {
        p2p(&t, r, "MPI_Send", 0, r + 1, 0, 100, -1);
        p2p(&t, r + 1, "MPI_Recv", 0, r, 0, 100, -1);
    }
    for (int r = 0; r < 6; r++)
        simple(&t, r, "MPI_Finalize", 0);
    psk_sim *s = tb_run(&t, machine);
    NEAR(psk_sim_predicted(s), expect_us * 1e-6);
    psk_sim_close(s);
}

static void bus_serialises(void **state)
{
    (void)state;
    concurrent("type = bus; start time = 5; send byte time = 0.05;", 3 * (5 + 100 * 0.05));
}

static void switch_parallel(void **state)
{
    (void)state;
    concurrent("type = switch; start time = 5; send byte time = 0.05;", 5 + 100 * 0.05);
}

/* the bus is booked in simulated time, not in the order ranks are read:
 * rank 0 sends after 10 us of work, rank 2 after 5 us; rank 2's message
 * takes the bus first (5 to 105 us), rank 0's waits for it (105 to 205) */
static void bus_time_order(void **state)
{
    (void)state;
    tb t;
    tb_open(&t, 4);
    for (int r = 0; r < 4; r++)
        simple(&t, r, "MPI_Init", 0);
    p2p(&t, 0, "MPI_Send", 10000, 1, 0, 0, -1);
    p2p(&t, 1, "MPI_Recv", 0, 0, 0, 0, -1);
    p2p(&t, 2, "MPI_Send", 5000, 3, 0, 0, -1);
    p2p(&t, 3, "MPI_Recv", 0, 2, 0, 0, -1);
    for (int r = 0; r < 4; r++)
        simple(&t, r, "MPI_Finalize", 0);
    psk_sim *s = tb_run(&t, "type = bus; start time = 100;");
    NEAR(metric(s, 0, 3, PSK_M_EXEC), 105e-6);
    NEAR(metric(s, 0, 1, PSK_M_EXEC), 205e-6);
    psk_sim_close(s);
}

/* a grid {4}: rank 0 to rank 3 is 3 hops, pipelined */
static void grid_pipeline(void **state)
{
    (void)state;
    tb t;
    tb_open(&t, 4);
    for (int r = 0; r < 4; r++)
        simple(&t, r, "MPI_Init", 0);
    p2p(&t, 0, "MPI_Send", 0, 3, 0, 10000, -1);
    p2p(&t, 3, "MPI_Recv", 0, 0, 0, 10000, -1);
    for (int r = 0; r < 4; r++)
        simple(&t, r, "MPI_Finalize", 0);
    psk_sim *s = tb_run(&t, "type = grid; topology = {4}; start time = 20; send byte time = 0.1; "
                            "eager threshold = 100000;");
    double ts = 20, tb_ = 0.1, B = 10000, D = 3;
    double sz = floor(sqrt(ts * B / (tb_ * (D - 1)))); /* 1000 bytes a packet */
    double k = floor(B / sz), e = B - k * sz;
    double want = (ts + tb_ * sz) * (D + k - 1) + (e > 0 ? ts + tb_ * e : 0);
    NEAR(psk_sim_predicted(s), want * 1e-6);
    psk_sim_close(s);
}

/* rendezvous: the transfer starts when the receiver comes, 5 ms later */
static void rendezvous(void **state)
{
    (void)state;
    tb t;
    tb_open(&t, 2);
    simple(&t, 0, "MPI_Init", 0);
    simple(&t, 1, "MPI_Init", 0);
    p2p(&t, 0, "MPI_Send", 0, 1, 0, 1 << 20, -1);
    p2p(&t, 1, "MPI_Recv", 5000000, 0, 0, 1 << 20, -1);
    simple(&t, 0, "MPI_Finalize", 0);
    simple(&t, 1, "MPI_Finalize", 0);
    psk_sim *s = tb_run(&t, "start time = 10; send byte time = 0.001; eager threshold = 65536;");
    double cost = (10 + 0.001 * (1 << 20)) * 1e-6;
    NEAR(psk_sim_predicted(s), 5e-3 + cost);
    NEAR(metric(s, 0, 0, PSK_M_P2P), 5e-3 + cost);  /* the sender waited */
    NEAR(metric(s, 0, 0, PSK_M_SYNC), 5e-3);        /* for its late partner */
    NEAR(metric(s, 0, 1, PSK_M_SYNC), 0);
    psk_sim_close(s);
}

/* Isend, 1 ms of work, Wait: the message moved during the work */
static void overlap(void **state)
{
    (void)state;
    tb t;
    tb_open(&t, 2);
    simple(&t, 0, "MPI_Init", 0);
    simple(&t, 1, "MPI_Init", 0);
    p2p(&t, 0, "MPI_Isend", 0, 1, 0, 1000, 0);
    waitreq(&t, 0, 1000000, 0);
    p2p(&t, 1, "MPI_Irecv", 0, 0, 0, 1000, 0);
    waitreq(&t, 1, 1000000, 0);
    simple(&t, 0, "MPI_Finalize", 0);
    simple(&t, 1, "MPI_Finalize", 0);
    psk_sim *s = tb_run(&t, "start time = 10; send byte time = 0.01;");
    NEAR(psk_sim_predicted(s), 1e-3);
    NEAR(metric(s, 0, 1, PSK_M_OVERLAP), 20e-6);
    NEAR(metric(s, 0, 1, PSK_M_WAIT), 0);
    psk_sim_close(s);
}

/* imbalanced work before a barrier; then work alone before MPI_Finalize */
static void imbalance(void **state)
{
    (void)state;
    tb t;
    tb_open(&t, 2);
    simple(&t, 0, "MPI_Init", 0);
    simple(&t, 1, "MPI_Init", 0);
    coll(&t, 0, "MPI_Barrier", 1000000, 0);
    coll(&t, 1, "MPI_Barrier", 3000000, 0);
    simple(&t, 0, "MPI_Finalize", 1000000);
    simple(&t, 1, "MPI_Finalize", 0);
    psk_sim *s = tb_run(&t, "start time = 0; send byte time = 0; collectives = closed;");
    NEAR(psk_sim_predicted(s), 4e-3);
    NEAR(metric(s, 0, 0, PSK_M_CPU), 2e-3);
    NEAR(metric(s, 0, 1, PSK_M_CPU), 3e-3);
    NEAR(metric(s, 0, 0, PSK_M_IMBALANCE), 1e-3);
    NEAR(metric(s, 0, 0, PSK_M_SYNC), 2e-3);   /* waited in the barrier for rank 1 */
    NEAR(metric(s, 0, 1, PSK_M_IDLE), 1e-3);   /* rank 1 ends 1 ms before rank 0 */
    NEAR(psk_sim_interval(s, 0)->efficiency, 5e-3 / (2 * 4e-3));
    /* the timeline holds the same: rank 0 computed 2 ms and waited 2 ms for its partner */
    double bin, part[3] = {0, 0, 0};
    const double *tl = psk_sim_timeline(s, 0, &bin);
    for (int i = 0; i < PSK_TL_BINS; i++)
        for (int k = 0; k < 3; k++)
            part[k] += tl[3 * i + k];
    NEAR(part[0] * 1e-9, 2e-3);
    NEAR(part[2] * 1e-9, 2e-3);
    assert_true(bin * PSK_TL_BINS >= 4e-3);
    psk_sim_close(s);
}

/* no MPI between Init and Finalize, the same work everywhere: efficiency 1 */
static void parallel(void **state)
{
    (void)state;
    tb t;
    tb_open(&t, 4);
    for (int r = 0; r < 4; r++) {
        simple(&t, r, "MPI_Init", 0);
        simple(&t, r, "MPI_Finalize", 2000000);
    }
    psk_sim *s = tb_run(&t, "power = 2;"); /* a machine twice as fast */
    NEAR(psk_sim_predicted(s), 1e-3);
    NEAR(psk_sim_interval(s, 0)->efficiency, 1.0);
    psk_sim_close(s);
}

/* 5 ranks, 2 ms of work each, 3 ranks per node: with 2 cores per node the
 * 3 ranks of node 0 share them in time slices (4 ms), the 2 of node 1
 * do not; without the key, no sharing */
static void shared_cores(void **state)
{
    (void)state;
    for (int k = 0; k < 3; k++) {
        tb t;
        tb_open(&t, 5);
        for (int r = 0; r < 5; r++) {
            simple(&t, r, "MPI_Init", 0);
            simple(&t, r, "MPI_Finalize", 2000000);
        }
        static const char *const m[3] = {"ranks per node = 3; cores per node = 2;", "ranks per node = 3;",
                                         "ranks per node = 3; cores per node = 3;"};
        psk_sim *s = tb_run(&t, m[k]);
        /* node 0 with 2 cores: ranks 0 and 2 take turns on one (time
         * slices of 4 ms: rank 0 computes first, rank 2 after it) */
        NEAR(psk_sim_predicted(s), k == 0 ? 4e-3 : 2e-3);
        NEAR(metric(s, 0, 0, PSK_M_CPU), 2e-3);
        NEAR(metric(s, 0, 2, PSK_M_CPU), k == 0 ? 4e-3 : 2e-3);
        NEAR(metric(s, 0, 4, PSK_M_CPU), 2e-3); /* node 1: 2 ranks on 2 cores */
        psk_sim_close(s);
    }
}

/* CPU power from the work unit's timings: 1 on the host calibrated, the
 * ratio to a node's sustained time where that is over 10 % above the short
 * one (a CPU quota), 1 where the two timings lie within each other's
 * quartiles, the ratio of the unit times otherwise; the power key
 * overrides all */
static void rank_power(void **state)
{
    (void)state;
    static const char *const hosts[2] = {"a", "b"};
    static const double unit[2] = {2.0, 2.0}, q1[2] = {1.9, 1.98}, q3[2] = {2.1, 2.02};
    psk_job job = {.nranks = 2, .hosts = hosts, .work_ns_per_unit = unit, .work_q1_ns = q1, .work_q3_ns = q3};
    static const struct { const char *text; double p0, p1; const char *why0; } cases[] = {
        {"work unit time = 1.0; calibrated on = a;", 1.0, 2.0, "the host calibrated"},
        {"work unit time = 1.95; work unit spread = {1.94, 1.96};", 1.0, 2.0 / 1.95, "work unit timings"},
        {"work unit time = 1.0; work unit spread = {0.99, 1.01};", 2.0, 2.0, "recorded over calibrated"},
        {"work unit time = 1.0;", 2.0, 2.0, "recorded over calibrated"},
        {"work unit time = 1.0; calibrated on = a; power = 3;", 3.0, 3.0, "power key"},
        {"", 1.0, 1.0, "default"},
        /* sustained per node (one rank a node here): node 0's 5 ns against
         * a short 1.95 ns is a quota: 2 / 5; node 1's 2.05 is within 10 %
         * of it, so its quartiles decide as before */
        {"work unit time = 1.95; work unit spread = {1.94, 1.96}; node work unit time = {5, 2.05};", 0.4,
         2.0 / 1.95, "sustained"},
        /* the host calibrated stays at 1 whatever its sustained time */
        {"work unit time = 1.0; calibrated on = a; node work unit time = {5, 5};", 1.0, 0.4, "the host calibrated"},
        {"power = 3; node work unit time = {5, 5};", 3.0, 3.0, "power key"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        psk_machine m;
        psk_machine_default(&m);
        assert_int_equal(psk_machine_parse(cases[i].text, strlen(cases[i].text), "p.par", &m), 0);
        const char *why;
        NEAR(psk_machine_rank_power(&m, &job, 0, &why), cases[i].p0);
        assert_non_null(strstr(why, cases[i].why0));
        NEAR(psk_machine_rank_power(&m, &job, 1, NULL), cases[i].p1);
        psk_machine_free(&m);
    }
}

/* MPI_Pcontrol(2) ... MPI_Pcontrol(-2) twice: one interval entered twice */
static void intervals(void **state)
{
    (void)state;
    tb t;
    tb_open(&t, 2);
    for (int r = 0; r < 2; r++) {
        simple(&t, r, "MPI_Init", 0);
        for (int k = 0; k < 2; k++) {
            pcontrol(&t, r, 100000, 2);
            pcontrol(&t, r, 300000, -2);
        }
        simple(&t, r, "MPI_Finalize", 0);
    }
    psk_sim *s = tb_run(&t, "");
    assert_int_equal(psk_sim_nintervals(s), 2);
    const psk_interval *v = psk_sim_interval(s, 1);
    assert_int_equal(v->parent, 0);
    assert_int_equal(v->count[0], 2);
    NEAR(v->exec, 600e-6);
    NEAR(psk_sim_interval(s, 0)->exec, 800e-6);
    psk_sim_close(s);
}

/* crafted levels: 100,000 MPI_Pcontrol(2) never closed on one
 * rank, then levels 2^40, INT64_MAX and INT64_MIN, and a loop of 20
 * iterations replayed folded with its loops as intervals (whose keys
 * 2^40 used to collide with): the replay ends, intervals nested deeper
 * than 1000 are not kept, each level is its own interval, and the text,
 * JSON and HTML reports are written (they recurse a level a frame) */
static void deep_nesting(void **state)
{
    (void)state;
    tb t;
    tb_open(&t, 2);
    for (int r = 0; r < 2; r++) {
        simple(&t, r, "MPI_Init", 0);
        for (int k = 0; r == 0 && k < 100000; k++)
            pcontrol(&t, r, 10, 2);
        static const int64_t odd[] = {(int64_t)1 << 40, INT64_MAX, INT64_MIN, -((int64_t)1 << 40)};
        for (int k = 0; k < 4; k++) {
            psk_event *e = ev(&t, r, "MPI_Pcontrol", 10);
            e->v[PSK_F_I1] = odd[k];
            put(&t, r, e);
        }
        for (int k = 0; k < 20; k++)
            coll(&t, r, "MPI_Allreduce", 1000, 8);
        simple(&t, r, "MPI_Finalize", 0);
    }
    three x;
    tb_three(&t, "", 1, &x);
    for (int k = 0; k < 3; k++) {
        int n = psk_sim_nintervals(x.s[k]);
        if (n < 3 || n > 1010)
            fail_msg("replay %d: %d intervals", k, n);
        for (int i = 0; i < n; i++)
            if (psk_sim_interval(x.s[k], i)->level > 1000)
                fail_msg("replay %d: interval %d at level %d", k, i, psk_sim_interval(x.s[k], i)->level);
        FILE *out = tmpfile();
        assert_non_null(out);
        psk_sim_write_text(x.s[k], out, 0);
        psk_sim_write_json(x.s[k], out, &x.mach);
        psk_sim_write_html(x.s[k], out, &x.mach, "deep");
        fclose(out);
    }
    three_close(&x);
}

/* an allreduce of 800 bytes on 4 ranks by its formula: log2(4) x (start + B x byte) */
static void allreduce_formula(void **state)
{
    (void)state;
    tb t;
    tb_open(&t, 4);
    for (int r = 0; r < 4; r++) {
        simple(&t, r, "MPI_Init", 0);
        coll(&t, r, "MPI_Allreduce", 0, 800);
        simple(&t, r, "MPI_Finalize", 0);
    }
    psk_sim *s = tb_run(&t, "start time = 3; send byte time = 0.01; collectives = closed; "
                            "allreduce = recursive doubling;");
    NEAR(psk_sim_predicted(s), 2 * (3 + 8) * 1e-6);
    psk_sim_close(s);
    /* expanded: the same two rounds of exchanges on a switch */
    tb_open(&t, 4);
    for (int r = 0; r < 4; r++) {
        simple(&t, r, "MPI_Init", 0);
        coll(&t, r, "MPI_Allreduce", 0, 800);
        simple(&t, r, "MPI_Finalize", 0);
    }
    s = tb_run(&t, "start time = 3; send byte time = 0.01; allreduce = recursive doubling;");
    NEAR(psk_sim_predicted(s), 2 * (3 + 8) * 1e-6);
    psk_sim_close(s);
}

/* MPI_Allgather and MPI_Alltoall made with MPI_IN_PLACE are recorded
 * with a send side of 0 bytes: they move what they receive, as the same
 * calls made with a send buffer */
static void in_place_colls(void **state)
{
    (void)state;
    const char *fns[] = {"MPI_Allgather", "MPI_Alltoall"};
    for (int k = 0; k < 2; k++) {
        double t[2];
        for (int ip = 0; ip < 2; ip++) {
            tb tr;
            tb_open(&tr, 4);
            for (int r = 0; r < 4; r++) {
                simple(&tr, r, "MPI_Init", 0);
                psk_event *e = ev(&tr, r, fns[k], 0);
                e->v[PSK_F_COMM] = 0, e->v[PSK_F_RCOUNT] = 250, e->v[PSK_F_RDTSIZE] = 4;
                e->v[PSK_F_COUNT] = ip ? 0 : 250, e->v[PSK_F_DTSIZE] = ip ? 0 : 4;
                put(&tr, r, e);
                simple(&tr, r, "MPI_Finalize", 0);
            }
            psk_sim *s = tb_run(&tr, "start time = 3; send byte time = 0.01;");
            t[ip] = psk_sim_predicted(s);
            psk_sim_close(s);
        }
        assert_true(t[0] > 3 * 3e-6 + 1000 * 0.01e-6); /* the bytes count */
        NEAR(t[1], t[0]);
    }
}

/* a collective's own block is copied locally first, at `copy byte time`:
 * an alltoall of 1000 bytes to each of 2 ranks on a network that costs
 * nothing takes 1000 x 0.001 us; made in place, nothing */
static void own_block_copy(void **state)
{
    (void)state;
    for (int ip = 0; ip < 2; ip++) {
        tb t;
        tb_open(&t, 2);
        for (int r = 0; r < 2; r++) {
            simple(&t, r, "MPI_Init", 0);
            psk_event *e = ev(&t, r, "MPI_Alltoall", 0);
            e->v[PSK_F_COMM] = 0, e->v[PSK_F_RCOUNT] = 1000, e->v[PSK_F_RDTSIZE] = 1;
            e->v[PSK_F_COUNT] = ip ? 0 : 1000, e->v[PSK_F_DTSIZE] = ip ? 0 : 1;
            put(&t, r, e);
            simple(&t, r, "MPI_Finalize", 0);
        }
        psk_sim *s = tb_run(&t, "start time = 0; intra start time = 0; send byte time = 0; copy byte time = 0.001;");
        NEAR(psk_sim_predicted(s), ip ? 0 : 1e-6);
        psk_sim_close(s);
    }
}

/* Call floors: a call takes at least the lower quartile of the recorded
 * durations of its class (its function and size), the least over the
 * ranks that make such calls, at the rank's power. Rank 0 sends 5
 * messages, 1 ms apart, its MPI_Send recorded at 50, 10, 40, 20 and 30 us
 * (the quartile: 20 us); rank 1 receives each 2 ms after the last, its
 * MPI_Irecv at 5 us and its MPI_Wait at 2 us each. On a network that
 * costs nothing the model gives all three calls no time: rank 0 ends at 5
 * x 1.02 ms, rank 1 at 5 x 2.007 ms. With `call floors = off` (the model
 * alone) 5 and 10 ms. */
static void call_floors(void **state)
{
    (void)state;
    static const int us[5] = {50, 10, 40, 20, 30};
    for (int off = 0; off < 2; off++) {
        tb t;
        tb_open(&t, 2);
        for (int r = 0; r < 2; r++)
            simple(&t, r, "MPI_Init", 0);
        for (int i = 0; i < 5; i++) {
            psk_event *e = ev_d(&t, 0, "MPI_Send", 1000000, (uint64_t)us[i] * 1000);
            e->v[PSK_F_COMM] = 0, e->v[PSK_F_PEER] = 1, e->v[PSK_F_TAG] = 0, e->v[PSK_F_COUNT] = 100;
            e->v[PSK_F_DTSIZE] = 1;
            put(&t, 0, e);
            e = ev_d(&t, 1, "MPI_Irecv", 2000000, 5000);
            e->v[PSK_F_COMM] = 0, e->v[PSK_F_PEER] = 0, e->v[PSK_F_TAG] = 0, e->v[PSK_F_COUNT] = 100;
            e->v[PSK_F_DTSIZE] = 1, e->v[PSK_F_REQ] = 0;
            put(&t, 1, e);
            e = ev_d(&t, 1, "MPI_Wait", 0, 2000);
            e->v[PSK_F_REQ] = 0;
            put(&t, 1, e);
        }
        for (int r = 0; r < 2; r++)
            simple(&t, r, "MPI_Finalize", 0);
        three x;
        tb_three(&t, off ? "start time = 0; send byte time = 0; call floors = off;"
                         : "start time = 0; send byte time = 0; call floors = on;", 0, &x);
        for (int k = 0; k < 3; k++) { /* from the files, folded, folded and skipping */
            NEAR(metric(x.s[k], 0, 0, PSK_M_EXEC), off ? 5e-3 : 5 * 1.02e-3);
            NEAR(psk_sim_predicted(x.s[k]), off ? 10e-3 : 5 * 2.007e-3);
            NEAR(metric(x.s[k], 0, 0, PSK_M_P2P), off ? 0 : 5 * 20e-6);
            NEAR(metric(x.s[k], 0, 1, PSK_M_P2P), off ? 0 : 5 * 5e-6);
            NEAR(metric(x.s[k], 0, 1, PSK_M_WAIT), off ? 0 : 5 * 2e-6);
        }
        three_close(&x);
    }
}

/* a trace that does not say its hosts' cores (an import) gives no call
 * floors: its ranks may have waited for a core in every call. call_floors'
 * trace: 5 and 10 ms, as with the floors off */
static void no_floors_without_cores(void **state)
{
    (void)state;
    tb t;
    no_cores = 1;
    tb_open(&t, 2);
    no_cores = 0;
    for (int r = 0; r < 2; r++)
        simple(&t, r, "MPI_Init", 0);
    for (int i = 0; i < 5; i++) {
        psk_event *e = ev_d(&t, 0, "MPI_Send", 1000000, 20000);
        e->v[PSK_F_COMM] = 0, e->v[PSK_F_PEER] = 1, e->v[PSK_F_TAG] = 0, e->v[PSK_F_COUNT] = 100;
        e->v[PSK_F_DTSIZE] = 1;
        put(&t, 0, e);
        e = ev_d(&t, 1, "MPI_Recv", 2000000, 5000);
        e->v[PSK_F_COMM] = 0, e->v[PSK_F_PEER] = 0, e->v[PSK_F_TAG] = 0, e->v[PSK_F_COUNT] = 100;
        e->v[PSK_F_DTSIZE] = 1, e->v[PSK_F_ASRC] = 0, e->v[PSK_F_ATAG] = 0;
        put(&t, 1, e);
    }
    for (int r = 0; r < 2; r++)
        simple(&t, r, "MPI_Finalize", 0);
    psk_sim *s = tb_run(&t, "start time = 0; send byte time = 0; call floors = on;");
    NEAR(metric(s, 0, 0, PSK_M_EXEC), 5e-3);
    NEAR(psk_sim_predicted(s), 10e-3);
    psk_sim_close(s);
}

/* A rank that waits in every call of a class says nothing of what the
 * call costs: the class's floor is the least of the ranks' quartiles.
 * Both ranks exchange with MPI_Sendrecv 8 times; rank 1 computes 1 ms
 * before each, its calls recorded at 10 us, rank 0's (waiting for it) at
 * 1 ms. Replayed with rank 1 twice as fast (power {1, 2}), rank 0 waits
 * 0.5 ms a step, not the 1 ms it waited when recorded, and each step
 * takes 0.5 ms + rank 1's floor of 10 us at power 2: 8 x 0.505 ms (with
 * rank 0's own quartile as its floor, 8 ms). */
static void floor_of_waiting_rank(void **state)
{
    (void)state;
    tb t;
    tb_open(&t, 2);
    for (int r = 0; r < 2; r++)
        simple(&t, r, "MPI_Init", 0);
    for (int i = 0; i < 8; i++)
        for (int r = 0; r < 2; r++) {
            psk_event *e = ev_d(&t, r, "MPI_Sendrecv", r ? 1000000 : 0, r ? 10000 : 1000000);
            e->v[PSK_F_COMM] = 0, e->v[PSK_F_PEER] = 1 - r, e->v[PSK_F_TAG] = 0, e->v[PSK_F_COUNT] = 64;
            e->v[PSK_F_DTSIZE] = 1, e->v[PSK_F_RPEER] = 1 - r, e->v[PSK_F_RTAG] = 0, e->v[PSK_F_RCOUNT] = 64;
            e->v[PSK_F_RDTSIZE] = 1, e->v[PSK_F_ASRC] = 1 - r, e->v[PSK_F_ATAG] = 0;
            put(&t, r, e);
        }
    for (int r = 0; r < 2; r++)
        simple(&t, r, "MPI_Finalize", 0);
    psk_sim *s = tb_run(&t, "start time = 0; send byte time = 0; power = {1, 2}; call floors = on;");
    NEAR(psk_sim_predicted(s), 8 * 0.505e-3);
    psk_sim_close(s);
}

/* The first collective of a class pays once what it took after its last
 * member arrived in the recording, beyond what the model says (the first
 * touch of a receive buffer): 3 MPI_Alltoall of 1 MiB; the first entered
 * at 0.1 ms (rank 0) and 0.3 ms (rank 1) and left at 10.3 ms, the others
 * take 1 ms (the class's floor); rank 0 computes 20 ms after the first.
 * Rank 0 twice as fast (power {2, 1}): it arrives at 0.05 ms, rank 1 at
 * 0.3 ms; the first ends 10 ms after 0.3 ms on rank 1 and 5 ms (its power)
 * on rank 0, at 5.3 ms (the 10.2 ms it recorded, waiting included, from
 * its own arrival would end it at 5.15 ms); rank 0 arrives at the second
 * at 15.3 ms and both leave the third at 16.3 ms; rank 0 spends 5.25 + 0.5
 * + 0.5 ms in them. */
static void first_collective_once(void **state)
{
    (void)state;
    tb t;
    tb_open(&t, 2);
    for (int r = 0; r < 2; r++)
        simple(&t, r, "MPI_Init", 0);
    for (int i = 0; i < 3; i++)
        for (int r = 0; r < 2; r++) {
            uint64_t gap = i ? (i == 1 && !r ? 20000000 : 0) : r ? 300000 : 100000;
            uint64_t dur = i ? 1000000 : r ? 10000000 : 10200000;
            psk_event *e = ev_d(&t, r, "MPI_Alltoall", gap, dur);
            e->v[PSK_F_COMM] = 0, e->v[PSK_F_COUNT] = 1 << 19, e->v[PSK_F_DTSIZE] = 1;
            e->v[PSK_F_RCOUNT] = 1 << 19, e->v[PSK_F_RDTSIZE] = 1;
            put(&t, r, e);
        }
    for (int r = 0; r < 2; r++)
        simple(&t, r, "MPI_Finalize", 0);
    three x;
    tb_three(&t, "start time = 0; intra start time = 0; send byte time = 0; power = {2, 1}; call floors = on;", 0, &x);
    for (int k = 0; k < 3; k++) {
        NEAR(psk_sim_predicted(x.s[k]), 16.3e-3);
        NEAR(metric(x.s[k], 0, 0, PSK_M_COLL), 6.25e-3);
    }
    three_close(&x);
}

/* Each rank starts when its MPI_Init returned in the recording, and the
 * run is the longest of the ranks' spans (as perfskel stats measures the
 * recording): rank 1's returned 2 ms after rank 0's; both compute 1 ms and
 * meet in a barrier, rank 0 from 1 ms to 3 ms: 3 ms. */
static void start_skew(void **state)
{
    (void)state;
    tb t;
    tb_open(&t, 2);
    simple(&t, 0, "MPI_Init", 0);
    simple(&t, 1, "MPI_Init", 2000000);
    for (int r = 0; r < 2; r++) {
        coll(&t, r, "MPI_Barrier", 1000000, 0);
        simple(&t, r, "MPI_Finalize", 0);
    }
    three x;
    tb_three(&t, "start time = 0; send byte time = 0;", 0, &x);
    for (int k = 0; k < 3; k++) {
        NEAR(psk_sim_predicted(x.s[k]), 3e-3);
        NEAR(metric(x.s[k], 0, 0, PSK_M_EXEC), 3e-3);
        NEAR(metric(x.s[k], 0, 1, PSK_M_EXEC), 1e-3);
        NEAR(metric(x.s[k], 0, 0, PSK_M_SYNC), 2e-3);
    }
    three_close(&x);
}

/* two Irecv from MPI_ANY_SOURCE; the run matched the first with rank 2's
 * message (sent 1 ms late) and the second with rank 1's (sent at once):
 * the replay follows the recorded sources, so the first Wait lasts until
 * 1.01 ms and the 2 ms of work after it end at 3.01 ms (matching by
 * arrival instead would end at 2.01 ms) */
static void wildcard_irecv(void **state)
{
    (void)state;
    tb t;
    tb_open(&t, 3);
    for (int r = 0; r < 3; r++)
        simple(&t, r, "MPI_Init", 0);
    p2p(&t, 0, "MPI_Irecv", 0, PSK_ANY_SOURCE, 0, 100, 0);
    p2p(&t, 0, "MPI_Irecv", 0, PSK_ANY_SOURCE, 0, 100, 1);
    wait_from(&t, 0, 0, 0, 2);
    wait_from(&t, 0, 2000000, 1, 1);
    p2p(&t, 1, "MPI_Send", 0, 0, 0, 100, -1);
    p2p(&t, 2, "MPI_Send", 1000000, 0, 0, 100, -1);
    for (int r = 0; r < 3; r++)
        simple(&t, r, "MPI_Finalize", 0);
    psk_sim *s = tb_run(&t, "start time = 10; send byte time = 0;");
    NEAR(psk_sim_predicted(s), 3e-3 + 10e-6);
    NEAR(metric(s, 0, 0, PSK_M_WAIT), 1e-3 + 10e-6); /* the first Wait waited for rank 2 */
    psk_sim_close(s);
}

/* every interval's every characteristic, and the timeline's totals, the
 * same in a and b */
static void same_report(const psk_sim *a, const psk_sim *b)
{
    NEAR(psk_sim_predicted(b), psk_sim_predicted(a));
    assert_int_equal(psk_sim_events(b), psk_sim_events(a));
    assert_int_equal(psk_sim_nintervals(b), psk_sim_nintervals(a));
    int P = psk_sim_nranks(a);
    for (int i = 0; i < psk_sim_nintervals(a); i++) {
        const psk_interval *x = psk_sim_interval(a, i), *y = psk_sim_interval(b, i);
        assert_string_equal(x->name, y->name);
        for (int q = 0; q < P; q++) {
            assert_int_equal(x->count[q], y->count[q]);
            for (int k = 0; k < PSK_M_N; k++)
                if (fabs(x->m[q * PSK_M_N + k] - y->m[q * PSK_M_N + k]) > 1e-12 + 1e-9 * fabs(x->m[q * PSK_M_N + k])) {
                    fprintf(stderr, "interval %d rank %d %s: %.12g, expected %.12g\n", i, q, psk_metric_name(k),
                            y->m[q * PSK_M_N + k], x->m[q * PSK_M_N + k]);
                    fail();
                }
        }
    }
    for (int q = 0; q < P; q++) {
        double wa, wb, ta[3] = {0, 0, 0}, tb_[3] = {0, 0, 0};
        const double *la = psk_sim_timeline(a, q, &wa), *lb = psk_sim_timeline(b, q, &wb);
        for (int i = 0; i < PSK_TL_BINS; i++)
            for (int k = 0; k < 3; k++)
                ta[k] += la[3 * i + k], tb_[k] += lb[3 * i + k];
        for (int k = 0; k < 3; k++)
            if (fabs(ta[k] - tb_[k]) > 1e-6 * (ta[0] + ta[1] + ta[2]) + 1) {
                fprintf(stderr, "timeline rank %d kind %d: %.9g, expected %.9g\n", q, k, tb_[k], ta[k]);
                fail();
            }
    }
}

/* P ranks on a ring, iters iterations of: Irecv from the left, work that
 * depends on the rank (plus noise ns at random), Send to the right, Wait;
 * an Allreduce every iteration if with_coll; then a Barrier. With overlap,
 * an iteration is instead an interval (MPI_Pcontrol 2) of Isend to the
 * right, the work, Recv from the left and Wait, so that messages are in
 * flight, in the queues and on the network while the ranks are in the
 * interval as others begin an iteration. */
static void ring(tb *t, int P, int iters, int64_t bytes, int with_coll, uint64_t noise, int grow, int overlap)
{
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    tb_open(t, P);
    for (int r = 0; r < P; r++)
        simple(t, r, "MPI_Init", 0);
    for (int i = 0; i < iters; i++)
        for (int r = 0; r < P; r++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            int64_t b = bytes + (grow ? 8 * i : 0);
            uint64_t work = 50000 + 20000 * (uint64_t)r + (noise ? rng % noise : 0);
            if (overlap) {
                pcontrol(t, r, 2000, 2);
                p2p(t, r, "MPI_Isend", 1000, (r + 1) % P, 3, b, 0);
                p2p(t, r, "MPI_Recv", work, (r + P - 1) % P, 3, b, -1);
                waitreq(t, r, 1000, 0);
                pcontrol(t, r, 1000, -2);
            } else {
                p2p(t, r, "MPI_Irecv", 2000, (r + P - 1) % P, 3, b, 0);
                p2p(t, r, "MPI_Send", work, (r + 1) % P, 3, b, -1);
                waitreq(t, r, 1000, 0);
            }
            if (with_coll)
                coll(t, r, "MPI_Allreduce", 3000, 64);
        }
    for (int r = 0; r < P; r++) {
        coll(t, r, "MPI_Barrier", 1000, 0);
        simple(t, r, "MPI_Finalize", 0);
    }
}

/* identical iterations, constant gaps: folded is the trace itself, and
 * skipping gives what replaying every iteration gives, on a switch and
 * on a bus, with and without loop intervals */
static void folded_skips(void **state)
{
    (void)state;
    static const char *const machines[] = {
        "start time = 5; send byte time = 0.001;",
        "type = bus; start time = 20; send byte time = 0.01; eager threshold = 0;",
        "start time = 5; collectives = closed; ranks per node = 2;",
        /* the network is the bottleneck: transfers queue, receivers wait */
        "type = bus; start time = 20; send byte time = 0.05;",
        "type = switch; start time = 20; send byte time = 0.05; buses = 1; eager threshold = 0;",
    };
    for (int mi = 0; mi < 5; mi++)
        for (int variant = 0; variant < 6; variant++) {
            int loops = variant & 1, wc = (variant >> 1) & 1, overlap = variant >> 2;
            tb t;
            three x;
            ring(&t, 4, 300, 4096, wc, 0, 0, overlap);
            tb_three(&t, machines[mi], loops, &x);
            if (!loops)
                same_report(x.s[0], x.s[1]); /* the folded program is the trace itself */
            same_report(x.s[1], x.s[2]);
            assert_int_equal(psk_sim_replayed(x.s[1]), psk_sim_events(x.s[1]));
            assert_true(psk_sim_skipped_iterations(x.s[2]) >= 250);
            assert_true(psk_sim_replayed(x.s[2]) * 5 < psk_sim_events(x.s[2]));
            /* the program, the loop (with loop intervals), pcontrol 2 (with overlap) */
            assert_int_equal(psk_sim_nintervals(x.s[2]), 1 + loops + overlap);
            three_close(&x);
        }
}

/* a message that grows each iteration: no two iterations are the same,
 * nothing is skipped, and the folded replay still matches the trace's */
static void folded_varying(void **state)
{
    (void)state;
    tb t;
    three x;
    ring(&t, 3, 50, 100, 1, 0, 1, 0);
    tb_three(&t, "start time = 5; send byte time = 0.01;", 0, &x);
    assert_int_equal(psk_sim_skipped_iterations(x.s[2]), 0);
    same_report(x.s[0], x.s[2]);
    three_close(&x);
}

/* gaps with noise: the folded replay takes each event's recorded gap, so
 * replaying every iteration is the trace's replay itself (it used to take
 * each event's mean gap, and only skipping against that was exact), and
 * skipping, once a window of iterations measured the time precisely
 * enough, keeps each rank's compute time exactly (the skipped iterations'
 * gaps are read) and the prediction within 1 % */
static void folded_noise(void **state)
{
    (void)state;
    tb t;
    three x;
    ring(&t, 4, 200, 1000, 0, 30000, 0, 1);
    tb_three(&t, "start time = 5; send byte time = 0.001;", 0, &x);
    same_report(x.s[0], x.s[1]);
    assert_true(psk_sim_skipped_iterations(x.s[2]) > 0);
    for (int q = 0; q < 4; q++)
        NEAR(metric(x.s[2], 0, q, PSK_M_CPU), metric(x.s[0], 0, q, PSK_M_CPU));
    double a = psk_sim_predicted(x.s[0]), b = psk_sim_predicted(x.s[2]);
    assert_true(fabs(b - a) < 0.01 * a);
    three_close(&x);
}

/* two Irecv from MPI_ANY_SOURCE, each waited for after 1 ms of work (the
 * same gap, so folding changes nothing); the run matched the first with
 * rank 2's message, sent at 1.5 ms, the second with rank 1's, sent at
 * once: the folded program keeps the recorded sources, so the first Wait
 * lasts until 1.51 ms and the second ends at 2.51 ms (by arrival, 2 ms) */
static void folded_wildcard(void **state)
{
    (void)state;
    tb t;
    three x;
    tb_open(&t, 3);
    for (int r = 0; r < 3; r++)
        simple(&t, r, "MPI_Init", 0);
    p2p(&t, 0, "MPI_Irecv", 0, PSK_ANY_SOURCE, 0, 100, 0);
    p2p(&t, 0, "MPI_Irecv", 0, PSK_ANY_SOURCE, 0, 100, 1);
    wait_from(&t, 0, 1000000, 0, 2);
    wait_from(&t, 0, 1000000, 1, 1);
    p2p(&t, 1, "MPI_Send", 0, 0, 0, 100, -1);
    p2p(&t, 2, "MPI_Send", 1500000, 0, 0, 100, -1);
    for (int r = 0; r < 3; r++)
        simple(&t, r, "MPI_Finalize", 0);
    tb_three(&t, "start time = 10; send byte time = 0;", 0, &x);
    NEAR(psk_sim_predicted(x.s[0]), 2.5e-3 + 10e-6);
    same_report(x.s[0], x.s[1]);
    same_report(x.s[0], x.s[2]);
    three_close(&x);
}

/* matched probes on communicator 2 (a dup of MPI_COMM_WORLD, made in no
 * time): rank 0's Improbe that found nothing takes nothing; the next one
 * (source 1) waits for rank 1's message, sent after 1 ms; Mprobe takes
 * rank 2's, there since 10 us; Mrecv receives it (its status: source 2),
 * Imrecv the one Improbe took. Rank 0's time in point to point: 1.01 ms,
 * none in Wait. With no eager sends, Mprobe returns when the envelope is
 * there (the start time) and Mrecv moves the data: rank 0 probes at 0
 * (until 10 us), works 1 ms, receives (20 us); rank 1's Send waits for
 * that, until 1.03 ms. Replayed from the files and folded. A message a
 * probe took whose sender waits is released when every rank waits, as
 * messages not yet received are. */
static void matched_probe(void **state)
{
    (void)state;
    static const int64_t all[3] = {0, 1, 2};
    tb t;
    three x;
    tb_open(&t, 3);
    for (int r = 0; r < 3; r++) {
        simple(&t, r, "MPI_Init", 0);
        newcomm(&t, r, "MPI_Comm_dup", 0, 0, 2, all, 3);
    }
    psk_event *e = ev(&t, 1, "MPI_Send", 1000000);
    e->v[PSK_F_COMM] = 2, e->v[PSK_F_PEER] = 0, e->v[PSK_F_TAG] = 7, e->v[PSK_F_COUNT] = 100, e->v[PSK_F_DTSIZE] = 1;
    put(&t, 1, e);
    e = ev(&t, 2, "MPI_Send", 0);
    e->v[PSK_F_COMM] = 2, e->v[PSK_F_PEER] = 0, e->v[PSK_F_TAG] = 7, e->v[PSK_F_COUNT] = 100, e->v[PSK_F_DTSIZE] = 1;
    put(&t, 2, e);
    mprobe(&t, 0, "MPI_Improbe", 0, 2, PSK_ANY_SOURCE, 7, 0, 0);
    mprobe(&t, 0, "MPI_Improbe", 0, 2, PSK_ANY_SOURCE, 7, 1, 1);
    mprobe(&t, 0, "MPI_Mprobe", 0, 2, PSK_ANY_SOURCE, 7, 1, 2);
    mrecv(&t, 0, "MPI_Mrecv", 0, 100, 2, 7, -1);
    mrecv(&t, 0, "MPI_Imrecv", 0, 100, 0, 0, 0);
    wait_from(&t, 0, 0, 0, 1);
    for (int r = 0; r < 3; r++)
        simple(&t, r, "MPI_Finalize", 0);
    tb_three(&t, "start time = 10; send byte time = 0; collectives = closed; barrier = linear;", 0, &x);
    double t0 = metric(x.s[0], 0, 0, PSK_M_COLL); /* the dup */
    NEAR(metric(x.s[0], 0, 0, PSK_M_P2P), 1.01e-3);
    NEAR(metric(x.s[0], 0, 0, PSK_M_WAIT), 0);
    NEAR(psk_sim_predicted(x.s[0]), t0 + 1.01e-3);
    assert_int_equal(psk_sim_events(x.s[0]), 3 * 3 + 2 + 6);
    same_report(x.s[0], x.s[1]);
    same_report(x.s[0], x.s[2]);
    three_close(&x);

    tb_open(&t, 2);
    for (int r = 0; r < 2; r++) {
        simple(&t, r, "MPI_Init", 0);
        newcomm(&t, r, "MPI_Comm_dup", 0, 0, 2, all, 2);
    }
    e = ev(&t, 1, "MPI_Send", 0);
    e->v[PSK_F_COMM] = 2, e->v[PSK_F_PEER] = 0, e->v[PSK_F_TAG] = 7, e->v[PSK_F_COUNT] = 1000, e->v[PSK_F_DTSIZE] = 1;
    put(&t, 1, e);
    mprobe(&t, 0, "MPI_Mprobe", 0, 2, PSK_ANY_SOURCE, 7, 1, 1);
    mrecv(&t, 0, "MPI_Mrecv", 1000000, 1000, 1, 7, -1);
    for (int r = 0; r < 2; r++)
        simple(&t, r, "MPI_Finalize", 0);
    psk_sim *s = tb_run(&t, "start time = 10; send byte time = 0.01; eager threshold = 0; collectives = closed;");
    double d = metric(s, 0, 0, PSK_M_COLL);
    NEAR(metric(s, 0, 0, PSK_M_P2P), 10e-6 + 20e-6);
    NEAR(metric(s, 0, 1, PSK_M_P2P), 1.03e-3);
    NEAR(psk_sim_predicted(s), d + 1.03e-3);
    psk_sim_close(s);

    /* the run sent rank 1's first message eagerly, the model does not:
     * rank 0 receives the second before the first's Mrecv, so the first
     * is released as if buffered (not a deadlock) */
    tb_open(&t, 2);
    for (int r = 0; r < 2; r++)
        simple(&t, r, "MPI_Init", 0);
    p2p(&t, 1, "MPI_Send", 0, 0, 7, 1000, -1);
    p2p(&t, 1, "MPI_Send", 0, 0, 8, 1000, -1);
    mprobe(&t, 0, "MPI_Mprobe", 0, 0, 1, 7, 1, 1);
    p2p(&t, 0, "MPI_Recv", 0, 1, 8, 1000, -1);
    mrecv(&t, 0, "MPI_Mrecv", 0, 1000, 1, 7, -1);
    for (int r = 0; r < 2; r++)
        simple(&t, r, "MPI_Finalize", 0);
    s = tb_run(&t, "start time = 10; send byte time = 0.01; eager threshold = 0;");
    assert_int_equal(psk_sim_buffered(s), 1);
    assert_int_equal(psk_sim_events(s), 9);
    psk_sim_close(s);
}

/* MPI_Comm_create_group is collective over the group only: ranks 0 and 2
 * make one communicator (after 1 and 3 ms of work), ranks 1 and 3
 * another (after 2 ms), both with local id 2, and each pair meets in a
 * Barrier on it, inside interval 2: nobody waits for the other pair, so
 * with closed-form collectives and no start time rank 0 waits 2 ms there
 * for rank 2 and rank 1 not at all. Then MPI_Intercomm_create (on each
 * pair's communicator) and MPI_Intercomm_merge make a communicator of all
 * four, and ranks 1 and 3 wait 1 ms in a Barrier on it. */
static void comm_create_group(void **state)
{
    (void)state;
    static const int64_t even[2] = {0, 2}, odd[2] = {1, 3}, all[4] = {0, 1, 2, 3};
    static const uint64_t work[4] = {1000000, 2000000, 3000000, 2000000};
    tb t;
    tb_open(&t, 4);
    for (int r = 0; r < 4; r++) {
        simple(&t, r, "MPI_Init", 0);
        pcontrol(&t, r, 0, 2);
        psk_event *e = ev(&t, r, "MPI_Comm_create_group", work[r]);
        e->v[PSK_F_COMM] = 0, e->v[PSK_F_GROUP] = 2, e->v[PSK_F_I1] = 5, e->v[PSK_F_NEWID] = 2;
        PSK_ARRN(e, PSK_F_MEMBERS) = 2;
        PSK_ARR(e, PSK_F_MEMBERS) = r % 2 ? odd : even;
        put(&t, r, e);
        coll_on(&t, r, "MPI_Barrier", 0, 2);
        pcontrol(&t, r, 0, -2);
        newcomm(&t, r, "MPI_Intercomm_create", 0, 2, 3, r % 2 ? odd : even, 2);
        newcomm(&t, r, "MPI_Intercomm_merge", 0, 3, 4, all, 4);
        coll_on(&t, r, "MPI_Barrier", 0, 4);
        simple(&t, r, "MPI_Finalize", 0);
    }
    psk_sim *s = tb_run(&t, "start time = 0; send byte time = 0; collectives = closed;");
    assert_int_equal(psk_sim_nintervals(s), 2);
    NEAR(metric(s, 1, 0, PSK_M_SYNC), 2e-3);
    NEAR(metric(s, 1, 1, PSK_M_SYNC), 0);
    NEAR(metric(s, 1, 1, PSK_M_EXEC), 2e-3);
    NEAR(metric(s, 1, 3, PSK_M_SYNC), 0);
    NEAR(metric(s, 0, 1, PSK_M_SYNC), 1e-3);
    NEAR(metric(s, 0, 3, PSK_M_SYNC), 1e-3);
    NEAR(psk_sim_predicted(s), 3e-3);
    psk_sim_close(s);
}

/* MPI_Neighbor_alltoall on MPI_Cart_create's line of 4 ranks, not
 * periodic (rank 0 and 3 have one neighbour, MPI_PROC_NULL the other), on
 * a switch where a message costs 10 + 1000 x 0.01 = 20 us. Rank 0 works 1
 * ms before it: its neighbour, rank 1, waits for it (1.02 ms); ranks 2
 * and 3 do not: they swap their blocks and rank 2 takes rank 1's, all
 * ready at once and booked in the members' order (1 to 2 and 2 to 3 leave
 * after the first message of their senders' out links, at 20 us; 3 to 2
 * after 1 to 2 on rank 2's in link, at 40 us): done at 60 us. A collective
 * completed for all members at the last arrival would keep them 1 ms.
 * Both replays (the files, and folded). Then the same on a communicator
 * MPI_Comm_split made: no grid, refused (by rank 1, the first to reach
 * it). */
static void neighbor_line(void **state)
{
    (void)state;
    static const int64_t all[4] = {0, 1, 2, 3}, dims[1] = {4}, periods[1] = {0};
    for (int split = 0; split < 2; split++) {
        tb t;
        tb_open(&t, 4);
        for (int r = 0; r < 4; r++) {
            simple(&t, r, "MPI_Init", 0);
            psk_event *e = ev(&t, r, split ? "MPI_Comm_split" : "MPI_Cart_create", 0);
            e->v[PSK_F_COMM] = 0, e->v[PSK_F_NEWID] = 2;
            PSK_ARRN(e, PSK_F_MEMBERS) = 4, PSK_ARR(e, PSK_F_MEMBERS) = all;
            if (!split) {
                PSK_ARRN(e, PSK_F_DIMS) = 1, PSK_ARR(e, PSK_F_DIMS) = dims;
                PSK_ARRN(e, PSK_F_PERIODS) = 1, PSK_ARR(e, PSK_F_PERIODS) = periods;
            }
            put(&t, r, e);
            pcontrol(&t, r, 0, 2);
            e = ev(&t, r, "MPI_Neighbor_alltoall", r ? 0 : 1000000);
            e->v[PSK_F_COMM] = 2, e->v[PSK_F_COUNT] = e->v[PSK_F_RCOUNT] = 1000;
            e->v[PSK_F_DTSIZE] = e->v[PSK_F_RDTSIZE] = 1;
            put(&t, r, e);
            pcontrol(&t, r, 0, -2);
            simple(&t, r, "MPI_Finalize", 0);
        }
        const char *mach = "type = switch; start time = 10; send byte time = 0.01;";
        if (split) {
            assert_int_equal(psk_writer_close(t.w), 0);
            psk_writer_free(t.w);
            psk_machine m;
            machine_of(&m, mach);
            psk_trace *tr;
            assert_int_equal(psk_trace_open(t.dir, &tr), 0);
            psk_sim_opts o = {.machine = &m};
            psk_sim *s;
            assert_int_equal(psk_sim_run(tr, &o, &s), PSK_EINVAL);
            assert_non_null(strstr(psk_sim_errmsg(s), "rank 1: MPI_Neighbor_alltoall (event 4) on communicator 2, "
                                                      "which has no Cartesian grid"));
            assert_null(strchr(psk_sim_errmsg(s), '\n'));
            psk_sim_close(s);
            psk_trace_close(tr);
            psk_machine_free(&m);
            char cmd[600];
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", t.dir);
            assert_int_equal(system(cmd), 0);
            continue;
        }
        three x;
        tb_three(&t, mach, 0, &x);
        for (int k = 0; k < 3; k++) {
            NEAR(metric(x.s[k], 1, 0, PSK_M_EXEC), 1e-3 + 20e-6);
            NEAR(metric(x.s[k], 1, 1, PSK_M_EXEC), 1e-3 + 20e-6);
            NEAR(metric(x.s[k], 1, 2, PSK_M_EXEC), 60e-6);
            NEAR(metric(x.s[k], 1, 3, PSK_M_EXEC), 60e-6);
        }
        three_close(&x);
    }
}

/* One local id for two communicators in turn (random seed 5511, MPICH, 4
 * ranks): ranks 0 and 1 make {0,1} as id 2 (rank 0 after 5 ms of work),
 * reduce on it and free it; ranks 0 and 2 then make {0,2}, id 2 again.
 * Rank 2 reaches its MPI_Comm_create_group at once, while {0,1}'s first
 * collective still waits for rank 0: same id, leader and count, another
 * communicator. It must wait for rank 0 (5 ms), not complete {0,1}'s
 * (the old replay did, and then could not go on). */
static void comm_id_reused(void **state)
{
    (void)state;
    static const int64_t first[2] = {0, 1}, second[2] = {0, 2};
    tb t;
    tb_open(&t, 3);
    for (int r = 0; r < 3; r++) {
        simple(&t, r, "MPI_Init", 0);
        if (r < 2) {
            newcomm(&t, r, "MPI_Comm_create_group", r == 0 ? 5000000 : 0, 0, 2, first, 2);
            coll_on(&t, r, "MPI_Allreduce", 0, 2);
            coll_on(&t, r, "MPI_Comm_free", 0, 2);
        }
        if (r != 1) {
            newcomm(&t, r, "MPI_Comm_create_group", 0, 0, 2, second, 2);
            coll_on(&t, r, "MPI_Allreduce", 0, 2);
        }
        simple(&t, r, "MPI_Finalize", 0);
    }
    psk_sim *s = tb_run(&t, "start time = 0; send byte time = 0; collectives = closed;");
    NEAR(psk_sim_predicted(s), 5e-3);
    NEAR(metric(s, 0, 1, PSK_M_SYNC), 5e-3);
    NEAR(metric(s, 0, 2, PSK_M_SYNC), 5e-3);
    NEAR(metric(s, 0, 0, PSK_M_SYNC), 0);
    psk_sim_close(s);
}

/* a ring where each rank's Mprobe of iteration i takes the message its
 * Mrecv of iteration i + 1 receives: matched messages wait across the
 * iterations' boundaries, and skipping iterations moves them too (the
 * same answers as replaying every iteration) */
static void folded_mprobe(void **state)
{
    (void)state;
    static const char *const machines[] = {"start time = 5; send byte time = 0.001;",
                                           "type = bus; start time = 20; send byte time = 0.01; eager threshold = 0;"};
    for (int mi = 0; mi < 2; mi++) {
        tb t;
        three x;
        int P = 4;
        tb_open(&t, P);
        for (int r = 0; r < P; r++) {
            int left = (r + P - 1) % P, right = (r + 1) % P;
            simple(&t, r, "MPI_Init", 0);
            p2p(&t, r, "MPI_Isend", 50000 + 20000 * (uint64_t)r, right, 3, 2048, 0);
            mprobe(&t, r, "MPI_Mprobe", 1000, 0, left, 3, 1, left);
            coll(&t, r, "MPI_Barrier", 1000, 0); /* the loop begins with Mrecv */
            for (int i = 0; i < 200; i++) {
                mrecv(&t, r, "MPI_Mrecv", 1000, 2048, left, 3, -1);
                waitreq(&t, r, 1000, 0);
                p2p(&t, r, "MPI_Isend", 50000 + 20000 * (uint64_t)r, right, 3, 2048, 0);
                mprobe(&t, r, "MPI_Mprobe", 1000, 0, left, 3, 1, left);
            }
            mrecv(&t, r, "MPI_Mrecv", 1000, 2048, left, 3, -1);
            waitreq(&t, r, 1000, 0);
            simple(&t, r, "MPI_Finalize", 0);
        }
        tb_three(&t, machines[mi], 0, &x);
        same_report(x.s[0], x.s[1]);
        same_report(x.s[1], x.s[2]);
        assert_true(psk_sim_skipped_iterations(x.s[2]) >= 150);
        three_close(&x);
    }
}

/* ---- loops whose iterations differ in ways that keep the timing, or
 * repeat it: tags that follow the index, rotating roots, one loop per
 * rank ---- */

static void sendrecv(tb *t, int r, uint64_t gap, int dest, int tag, int src, int rtag, int64_t bytes)
{
    psk_event *e = ev(t, r, "MPI_Sendrecv", gap);
    e->v[PSK_F_COMM] = 0, e->v[PSK_F_PEER] = dest, e->v[PSK_F_TAG] = tag, e->v[PSK_F_COUNT] = bytes;
    e->v[PSK_F_DTSIZE] = 1, e->v[PSK_F_RPEER] = src, e->v[PSK_F_RTAG] = rtag, e->v[PSK_F_RCOUNT] = bytes;
    e->v[PSK_F_RDTSIZE] = 1, e->v[PSK_F_ASRC] = src, e->v[PSK_F_ATAG] = rtag;
    put(t, r, e);
}

/* a collective with a root (MPI_Bcast, or MPI_Ibcast with request req) */
static void rooted(tb *t, int r, const char *fn, uint64_t gap, int64_t bytes, int root, int64_t req)
{
    psk_event *e = ev(t, r, fn, gap);
    e->v[PSK_F_COMM] = 0, e->v[PSK_F_COUNT] = bytes, e->v[PSK_F_DTSIZE] = 1, e->v[PSK_F_ROOT] = root;
    e->v[PSK_F_REQ] = req;
    put(t, r, e);
}

static void waitall(tb *t, int r, uint64_t gap, const int64_t *reqs, uint32_t n)
{
    psk_event *e = ev(t, r, "MPI_Waitall", gap);
    PSK_ARRN(e, PSK_F_REQS) = n;
    PSK_ARR(e, PSK_F_REQS) = reqs;
    put(t, r, e);
}

/* MPI_Testall of reqs on rank r after gap ns: flag = whether it found them done */
static void testall(tb *t, int r, uint64_t gap, const int64_t *reqs, uint32_t n, int flag)
{
    psk_event *e = ev(t, r, "MPI_Testall", gap);
    PSK_ARRN(e, PSK_F_REQS) = n;
    PSK_ARR(e, PSK_F_REQS) = reqs;
    e->v[PSK_F_FLAG] = flag;
    put(t, r, e);
}

/* rank 0 polls for a message rank 1 sent long before: iteration i polls
 * 1 + i % 4 times in vain, apart ns of work before each poll (under
 * 1 us: after 20 us of work before the Irecv), then waits
 * (i odd: a last Testall finds it, else MPI_Waitall) and answers; 200
 * iterations. */
static void polling_trace(tb *t, uint64_t *failed, uint64_t apart)
{
    static const int64_t req0[1] = {0};
    tb_open(t, 2);
    *failed = 0;
    for (int r = 0; r < 2; r++)
        simple(t, r, "MPI_Init", 0);
    for (int i = 0; i < 200; i++) {
        p2p(t, 1, "MPI_Send", 1000, 0, 7, 64, -1);
        p2p(t, 0, "MPI_Irecv", apart < 1000 ? 20000 : 1000, 1, 7, 64, 0); /* busy: the message is there */
        for (int k = 0; k <= i % 4; k++, (*failed)++)
            testall(t, 0, apart, req0, 1, 0);
        if (i % 2)
            testall(t, 0, apart, req0, 1, 1);
        else
            waitall(t, 0, apart, req0, 1);
        p2p(t, 0, "MPI_Send", 1000, 1, 8, 64, -1);
        p2p(t, 1, "MPI_Recv", 1000, 0, 8, 64, -1);
    }
    for (int r = 0; r < 2; r++) {
        coll(t, r, "MPI_Barrier", 1000, 0);
        simple(t, r, "MPI_Finalize", 0);
    }
}

/* a poll that finds nothing costs the machine's poll cost, after the mean
 * compute before the polls of its run (what merging keeps of them), and a
 * run of polls less than 1 us apart (busy waiting) one poll's:
 * replayed from the files, folded, and folded with skipping alike; a
 * poll cost of 10 us or more keeps loops that poll from being skipped
 * (how many polls a step makes varies with timing), a smaller one not */
static void poll_cost(void **state)
{
    (void)state;
    static const char *const machines[] = {
        "start time = 5; send byte time = 0.001;",
        "start time = 5; send byte time = 0.001; poll cost = {0, 30};",
        /* 50 us after 10 us of compute, 10 us after 30 us: a run of polls
         * 20 us apart costs 30 us a poll that found nothing */
        "start time = 5; send byte time = 0.001; poll cost = {10, 50, 30, 10};",
        "start time = 5; send byte time = 0.001; poll cost = {0, 5};",
    };
    static const double per_poll[4] = {0, 30e-6, 30e-6, 5e-6};
    double base = 0;
    for (int mi = 0; mi < 4; mi++) {
        tb t;
        three x;
        uint64_t failed;
        polling_trace(&t, &failed, 20000);
        tb_three(&t, machines[mi], 0, &x);
        double p = psk_sim_predicted(x.s[0]);
        if (mi == 0)
            base = p;
        NEAR(p, base + (double)failed * per_poll[mi]);
        NEAR(psk_sim_predicted(x.s[1]), p);
        if (mi == 1 || mi == 2) {
            assert_int_equal(psk_sim_skipped_iterations(x.s[2]), 0);
            NEAR(psk_sim_predicted(x.s[2]), p);
        } else {
            assert_true(psk_sim_skipped_iterations(x.s[2]) > 0);
            assert_true(fabs(psk_sim_predicted(x.s[2]) - p) <= 0.01 * p);
        }
        three_close(&x);
    }
    /* polls 0.5 us apart wait busily: each run of them costs one poll */
    for (int mi = 0; mi < 2; mi++) {
        tb t;
        three x;
        uint64_t failed;
        polling_trace(&t, &failed, 500);
        tb_three(&t, machines[mi], 0, &x);
        double p = psk_sim_predicted(x.s[0]);
        if (mi == 0)
            base = p;
        NEAR(p, base + 200 * per_poll[mi]);
        NEAR(psk_sim_predicted(x.s[1]), p);
        three_close(&x);
    }
    /* the machine's points: linear between them, the first's or last's beyond */
    psk_machine m;
    psk_machine_default(&m);
    const char *txt = "poll cost = {10, 50, 30, 10, 100, 0};";
    assert_int_equal(psk_machine_parse(txt, strlen(txt), "p.par", &m), 0);
    NEAR(psk_machine_poll_us(&m, 0), 50);
    NEAR(psk_machine_poll_us(&m, 20), 30);
    NEAR(psk_machine_poll_us(&m, 65), 5);
    NEAR(psk_machine_poll_us(&m, 1e6), 0);
    psk_machine_free(&m);
}

static const char *const skip_machines[] = {
    "start time = 5; send byte time = 0.001;",
    "type = bus; start time = 20; send byte time = 0.01; eager threshold = 0;",
    "type = switch; start time = 20; send byte time = 0.05; buses = 1; eager threshold = 0;",
};

/* P ranks, a loop of iters iterations whose compute varies from one
 * iteration to the next as on a shared machine: each rank's work is its
 * own base (rank r works 10 % more than r - 1) plus up to 40 % at random,
 * and now and then (1 in 12) a rank loses a 2 ms time slice; the first
 * iteration computes 10 times as long (tables built, pages touched), as
 * bench/programs/coldstart's does. An iteration is, by style:
 *   0: work, MPI_Sendrecv with both neighbours, an Allreduce (lockstep);
 *   1: Irecv and Isend of the halo, work while they fly, Waitall, a little
 *      more work (as polling_halo: a late rank delays the others only
 *      when it is later than their work);
 *   2: work, then Send to the right and Recv from the left for even
 *      ranks, the other way round for odd ones, twice (redblack), then a
 *      Bcast from root i mod P (tagged_ring's rotating root, period P).
 * Then a Barrier. */
static void noisy_loop(tb *t, int P, int iters, int style, uint64_t seed)
{
    static const int64_t reqs[4] = {0, 1, 2, 3};
    uint64_t rng = seed;
#define NRND(n) (rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17, rng % (uint64_t)(n))
    tb_open(t, P);
    for (int r = 0; r < P; r++)
        simple(t, r, "MPI_Init", 0);
    for (int i = 0; i < iters; i++)
        for (int r = 0; r < P; r++) {
            int left = (r + P - 1) % P, right = (r + 1) % P;
            uint64_t base = 200000 + 20000 * (uint64_t)r, work = base + NRND(base * 2 / 5);
            if (NRND(12) == 0)
                work += 2000000;
            if (i == 0)
                work *= 10;
            if (style == 0) {
                sendrecv(t, r, work, right, 1, left, 1, 4096);
                sendrecv(t, r, 1000, left, 2, right, 2, 4096);
                coll(t, r, "MPI_Allreduce", 2000, 8);
            } else if (style == 1) {
                p2p(t, r, "MPI_Irecv", 1000, left, 3, 8192, 0);
                p2p(t, r, "MPI_Irecv", 500, right, 4, 8192, 1);
                p2p(t, r, "MPI_Isend", 500, right, 3, 8192, 2);
                p2p(t, r, "MPI_Isend", 500, left, 4, 8192, 3);
                waitall(t, r, work, reqs, 4);
                p2p(t, r, "MPI_Iprobe", work / 8, 0, 99, 0, -1);
            } else {
                for (int k = 0; k < 2; k++) {
                    uint64_t w = k ? work / 2 : work - work / 2;
                    if (r % 2 == 0) {
                        p2p(t, r, "MPI_Send", w, right, 5 + k, 4096, -1);
                        p2p(t, r, "MPI_Recv", 500, left, 5 + k, 4096, -1);
                    } else {
                        p2p(t, r, "MPI_Recv", w, left, 5 + k, 4096, -1);
                        p2p(t, r, "MPI_Send", 500, right, 5 + k, 4096, -1);
                    }
                }
                rooted(t, r, "MPI_Bcast", 1000, 64, i % P, -1);
            }
        }
    for (int r = 0; r < P; r++) {
        coll(t, r, "MPI_Barrier", 1000, 0);
        simple(t, r, "MPI_Finalize", 0);
    }
#undef NRND
}

/* Noisy gaps and an outlier first iteration, folded against the trace's
 * replay (the gaps vary, so no two iterations repeat exactly): replaying
 * every iteration gives the trace's answers; skipping keeps each rank's
 * compute exactly and the prediction and every rank's time, waiting and
 * lost time within 1 % of the run, skipping 2 in 5 iterations or more
 * where every iteration synchronises the ranks (styles 0 and 2; where a
 * late rank delays the others only now and then, style 1, fewer are
 * skipped: the window must be longer to measure the time as precisely).
 * The mean gaps the folded replay used to take were 10 to 38 % short: a
 * rank late in one iteration and early in the next was on time in both. */
static void folded_noisy_gaps(void **state)
{
    (void)state;
    static const int ranks[3] = {2, 4, 3};
    for (int mi = 0; mi < 3; mi++)
        for (int style = 0; style < 3; style++) {
            tb t;
            three x;
            int P = ranks[style], iters = 400, loops = style == 2;
            noisy_loop(&t, P, iters, style, 0x9e3779b97f4a7c15ull + (uint64_t)(3 * mi + style));
            tb_three(&t, skip_machines[mi], loops, &x);
            if (!loops)
                same_report(x.s[0], x.s[1]);
            NEAR(psk_sim_predicted(x.s[1]), psk_sim_predicted(x.s[0]));
            double T = psk_sim_predicted(x.s[0]), e = psk_sim_predicted(x.s[2]) - T;
            int64_t k = psk_sim_skipped_iterations(x.s[2]);
            if (fabs(e) > 0.01 * T || (style != 1 && k < iters * 2 / 5))
                fail_msg("machine %d style %d: %.6f s, the trace's replay %.6f s; %lld iterations skipped", mi, style,
                         psk_sim_predicted(x.s[2]), T, (long long)k);
            for (int q = 0; q < P; q++) {
                NEAR(metric(x.s[2], 0, q, PSK_M_CPU), metric(x.s[0], 0, q, PSK_M_CPU));
                for (int c = 0; c < PSK_M_N; c++)
                    if ((c == PSK_M_EXEC || c >= PSK_M_SYNC) &&
                        fabs(metric(x.s[2], 0, q, c) - metric(x.s[0], 0, q, c)) > 0.01 * T)
                        fail_msg("machine %d style %d rank %d %s: %.6f s, the trace's replay %.6f s", mi, style, q,
                                 psk_metric_name(c), metric(x.s[2], 0, q, c), metric(x.s[0], 0, q, c));
            }
            three_close(&x);
        }
}

/* a ring of P ranks, uneven work, whose tags follow the iteration i:
 * style 0: Irecv from the left and Send to the right, tag 100 + i, Wait;
 * style 1: MPI_Sendrecv, tag 2i + 1 (as ring.f90's, tag = step);
 * style 2: a pipeline, each message sent at the end of iteration i with
 * tag 7 + i and received at the start of the next, so that when ranks
 * begin an iteration messages with the last iteration's tag are in flight,
 * queued or awaited: skipping S iterations gives them the tag of S
 * iterations on, or the receives that come next never match them */
static void tag_ring(tb *t, int P, int iters, int style)
{
    tb_open(t, P);
    for (int r = 0; r < P; r++) {
        int left = (r + P - 1) % P, right = (r + 1) % P;
        uint64_t work = 50000 + 20000 * (uint64_t)r;
        simple(t, r, "MPI_Init", 0);
        if (style == 2)
            p2p(t, r, "MPI_Isend", work, right, 7, 2048, 0);
        for (int i = 0; i < iters; i++) {
            if (style == 0) {
                p2p(t, r, "MPI_Irecv", 2000, left, 100 + i, 2048, 0);
                p2p(t, r, "MPI_Send", work, right, 100 + i, 2048, -1);
                waitreq(t, r, 1000, 0);
            } else if (style == 1) {
                sendrecv(t, r, work, right, 2 * i + 1, left, 2 * i + 1, 4096);
            } else {
                p2p(t, r, "MPI_Recv", 1000, left, 7 + i, 2048, -1);
                waitreq(t, r, 1000, 0);
                p2p(t, r, "MPI_Isend", work, right, 7 + i + 1, 2048, 0);
            }
        }
        if (style == 2) {
            p2p(t, r, "MPI_Recv", 1000, left, 7 + iters, 2048, -1);
            waitreq(t, r, 1000, 0);
        }
        coll(t, r, "MPI_Barrier", 1000, 0);
        simple(t, r, "MPI_Finalize", 0);
    }
}

/* tags that follow the index: skipped, with every characteristic of every
 * interval what replaying every iteration gives (and the trace's: no
 * noise, so folding changes nothing) */
static void folded_tag_ring(void **state)
{
    (void)state;
    for (int mi = 0; mi < 3; mi++)
        for (int style = 0; style < 3; style++)
            for (int loops = 0; loops < 2; loops++) {
                tb t;
                three x;
                tag_ring(&t, 4, 200, style);
                tb_three(&t, skip_machines[mi], loops, &x);
                if (!loops)
                    same_report(x.s[0], x.s[1]);
                same_report(x.s[1], x.s[2]);
                if (psk_sim_skipped_iterations(x.s[2]) < 150)
                    fail_msg("machine %d style %d: %lld iterations skipped", mi, style,
                             (long long)psk_sim_skipped_iterations(x.s[2]));
                three_close(&x);
            }
}

/* tagged_ring's pattern on P ranks: a Bcast from root i % P, a ring
 * exchange with tag i, an Ibcast from root (i + 1) % P, one Waitall; rank
 * r works more than r - 1. The roots repeat every P iterations and so does
 * the replay (P = 3: which rank waits for which goes round), so periods
 * are multiples of P */
static void folded_rotating_root(void **state)
{
    (void)state;
    static const int64_t reqs[3] = {0, 1, 2};
    for (int mi = 0; mi < 3; mi++)
        for (int P = 2; P <= 3; P++) {
            tb t;
            three x;
            tb_open(&t, P);
            for (int r = 0; r < P; r++) {
                simple(&t, r, "MPI_Init", 0);
                for (int i = 0; i < 150; i++) {
                    rooted(&t, r, "MPI_Bcast", 3000, 16, i % P, -1);
                    p2p(&t, r, "MPI_Irecv", 1000, (r + P - 1) % P, i, 6400, 0);
                    p2p(&t, r, "MPI_Isend", 500, (r + 1) % P, i, 6400, 1);
                    rooted(&t, r, "MPI_Ibcast", 500, 32768, (i + 1) % P, 2);
                    waitall(&t, r, 40000 + 30000 * (uint64_t)r, reqs, 3);
                }
                coll(&t, r, "MPI_Allreduce", 1000, 8);
                simple(&t, r, "MPI_Finalize", 0);
            }
            tb_three(&t, skip_machines[mi], 1, &x);
            same_report(x.s[1], x.s[2]);
            int64_t k = psk_sim_skipped_iterations(x.s[2]);
            if (k < 100 || k % P)
                fail_msg("machine %d, %d ranks: %lld iterations skipped", mi, P, (long long)k);
            three_close(&x);
        }
}

/* redblack's exchange on 2 ranks: rank 0 sends, then receives; rank 1
 * receives, then sends; rank 1 works more. The merge pairs no call of one
 * rank with one of the other, so the loop tree holds one loop per rank,
 * one after the other, each taken part in by one rank: together they are
 * skipped, as one loop whose iteration i is iteration i of each */
static void folded_loop_per_rank(void **state)
{
    (void)state;
    for (int mi = 0; mi < 3; mi++)
        for (int loops = 0; loops < 2; loops++) {
            tb t;
            three x;
            tb_open(&t, 2);
            for (int r = 0; r < 2; r++) {
                simple(&t, r, "MPI_Init", 0);
                for (int i = 0; i < 300; i++) {
                    uint64_t work = 60000 + 25000 * (uint64_t)r;
                    if (r == 0) {
                        p2p(&t, r, "MPI_Send", work, 1, 1, 8192, -1);
                        p2p(&t, r, "MPI_Recv", 100, 1, 2, 8192, -1);
                    } else {
                        p2p(&t, r, "MPI_Recv", work, 0, 1, 8192, -1);
                        p2p(&t, r, "MPI_Send", 100, 0, 2, 8192, -1);
                    }
                }
                coll(&t, r, "MPI_Reduce", 1000, 8);
                simple(&t, r, "MPI_Finalize", 0);
            }
            tb_three(&t, skip_machines[mi], loops, &x);
            if (!loops)
                same_report(x.s[0], x.s[1]);
            same_report(x.s[1], x.s[2]);
            if (psk_sim_skipped_iterations(x.s[2]) < 250)
                fail_msg("machine %d: %lld iterations skipped", mi, (long long)psk_sim_skipped_iterations(x.s[2]));
            three_close(&x);
        }
}

/* redblack's exchange again, 34,000 iterations with noisy work: rank 0's
 * 68,000 events all come before rank 1's in the merged order, so that
 * reading rank 1's first recorded gaps passes all of rank 0's; beyond
 * 65,536 waiting gaps rank 0 reads its own with a cursor of its own
 * (sim_fprog.c, psk_fgaps). Replaying every iteration is still the
 * trace's replay, and skipping within 1 % of it. */
static void folded_gaps_far_apart(void **state)
{
    (void)state;
    uint64_t rng = 0x2545f4914f6cdd1dull;
    tb t;
    three x;
    tb_open(&t, 2);
    for (int r = 0; r < 2; r++) {
        simple(&t, r, "MPI_Init", 0);
        for (int i = 0; i < 34000; i++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            uint64_t work = 20000 + 5000 * (uint64_t)r + rng % 10000;
            if (r == 0) {
                p2p(&t, r, "MPI_Send", work, 1, 1, 1024, -1);
                p2p(&t, r, "MPI_Recv", 100, 1, 2, 1024, -1);
            } else {
                p2p(&t, r, "MPI_Recv", work, 0, 1, 1024, -1);
                p2p(&t, r, "MPI_Send", 100, 0, 2, 1024, -1);
            }
        }
        coll(&t, r, "MPI_Barrier", 1000, 0);
        simple(&t, r, "MPI_Finalize", 0);
    }
    tb_three(&t, skip_machines[0], 0, &x);
    same_report(x.s[0], x.s[1]);
    double T = psk_sim_predicted(x.s[0]);
    assert_true(fabs(psk_sim_predicted(x.s[2]) - T) < 0.01 * T);
    assert_true(psk_sim_skipped_iterations(x.s[2]) > 17000);
    for (int q = 0; q < 2; q++)
        NEAR(metric(x.s[2], 0, q, PSK_M_CPU), metric(x.s[0], 0, q, PSK_M_CPU));
    three_close(&x);
}

/* Tags that follow the index and a tag that another message has. (a)
 * Each iteration ends with a Sendrecv of tag 30 round the ring: the
 * ring's tag i takes that value in iteration 30 (on the same ranks and
 * communicator), so the loop is not a candidate. (b) Before the loop rank
 * 0 sends rank 1 a message of tag 150 that rank 1 receives after it; the
 * loop's receives (tag i from rank 0) take it in iteration 150 instead,
 * and rank 0's message of iteration 150 waits for the receive after the
 * loop. Nothing is skipped: before iteration 150 a message from before the
 * loop waits with a tag the loop's tags take, after it one of the loop's
 * messages waits ever longer. Skipping before would leave the first
 * message for the receive after the loop (and the replay's times change);
 * skipping after would give the second the tag of S iterations on (and no
 * receive would match it). (c) As (b) with work that varies from one
 * iteration to the next: the replay never repeats exactly, and a window
 * to measure it statistically holds neither iterations where the message
 * from before the loop waited nor, being longer than the oldest a waiting
 * message of the loop may be, only iterations just after it was taken. */
static void folded_tag_collision(void **state)
{
    (void)state;
    uint64_t rng = 0x853c49e6748fea9bull;
    for (int mi = 0; mi < 3; mi++)
        for (int c = 0; c < 3; c++) {
            tb t;
            three x;
            int P = c ? 2 : 3, iters = c ? 300 : 100;
            tb_open(&t, P);
            for (int r = 0; r < P; r++) {
                int left = (r + P - 1) % P, right = (r + 1) % P;
                simple(&t, r, "MPI_Init", 0);
                if (c && r == 0)
                    p2p(&t, r, "MPI_Send", 1000, 1, 150, 64, -1);
                for (int i = 0; i < iters; i++) {
                    p2p(&t, r, "MPI_Irecv", 2000, left, i, 2048, 0);
                    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                    uint64_t work = 50000 + 20000 * (uint64_t)r + (c == 2 ? rng % 40000 : 0);
                    p2p(&t, r, "MPI_Send", work, right, i, 2048, -1);
                    waitreq(&t, r, 1000, 0);
                    if (!c)
                        sendrecv(&t, r, 1000, right, 30, left, 30, 64);
                }
                if (c && r == 1)
                    p2p(&t, r, "MPI_Recv", 1000, 0, 150, 64, -1);
                coll(&t, r, "MPI_Barrier", 1000, 0);
                simple(&t, r, "MPI_Finalize", 0);
            }
            tb_three(&t, skip_machines[mi], 0, &x);
            same_report(x.s[0], x.s[1]);
            same_report(x.s[1], x.s[2]);
            int64_t k = psk_sim_skipped_iterations(x.s[2]);
            if (k != 0)
                fail_msg("machine %d case %d: %lld iterations skipped", mi, c, (long long)k);
            three_close(&x);
        }
}

/* tag f of operation k in iteration i: constant, following the index
 * (i, 2i, 3i + 5) or repeating (i mod 2, i mod 3), in a range of its own */
static int rtag(int k, int f, int i)
{
    static const int mul[6] = {0, 1, 2, 3, 0, 0};
    return 1000 * k + mul[f] * i + (f == 3) * 5 + (f == 4) * (i % 2) + (f == 5) * (i % 3);
}

/* random loops of the kinds above against the replay of every iteration:
 * per program 2 or 3 ranks, a loop of 12 to 80 iterations (run once or
 * twice) of 1 to 3 operations, each done 1 to 3 times an iteration (the
 * j-th with tag function rtag(.., i x n + j)): a ring exchange (Irecv,
 * Isend, Waitall; Sendrecv; Isend, Mprobe, Mrecv; or a pipeline across
 * iterations) with a tag of rtag's; a Bcast or Ibcast whose root is
 * constant or rotates; an Allreduce; persistent requests started
 * (constant tags, from their inits before the loop). Uneven work. Every
 * answer the same, and most programs skipped (each event's gaps are the
 * same wherever it is, so that a loop folded from another start, as the
 * pipeline's may be, is still the trace) */
static int quick = 1; /* PSK_TEST_QUICK (main) */

static void folded_random_loops(void **state)
{
    (void)state;
    static const int64_t reqs[3][2] = {{0, 1}, {2, 3}, {4, 5}};
    uint64_t rng = 0x2545f4914f6cdd1dull;
#define RND(n) (rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17, (int)(rng % (uint64_t)(n)))
    /* PSK_TEST_QUICK=N (the sanitizer pass): the first 1/N of the programs */
    int skipped = 0, programs = 150 / quick;
    for (int prog = 0; prog < programs; prog++) {
        int P = 2 + RND(2), iters = 12 + RND(69), nops = 1 + RND(3), mi = RND(3), reps = 1 + RND(2);
        int kind[3], tagf[3], rootf[3], n[3];
        for (int k = 0; k < nops; k++)
            kind[k] = RND(8), tagf[k] = RND(6), rootf[k] = RND(3), n[k] = RND(4) ? 1 : 2 + RND(2);
        tb t;
        three x;
        tb_open(&t, P);
        for (int r = 0; r < P; r++) {
            int left = (r + P - 1) % P, right = (r + 1) % P;
            uint64_t work = 20000 + 15000 * (uint64_t)r;
            simple(&t, r, "MPI_Init", 0);
            for (int k = 0; k < nops; k++)
                if (kind[k] == 7) { /* requests 10 + k (send) and 20 + k (receive) */
                    for (int d = 0; d < 2; d++) {
                        psk_event *e = ev(&t, r, d ? "MPI_Recv_init" : "MPI_Send_init", 1000);
                        e->v[PSK_F_COMM] = 0, e->v[PSK_F_PEER] = d ? left : right, e->v[PSK_F_TAG] = rtag(k, 0, 0);
                        e->v[PSK_F_COUNT] = 256, e->v[PSK_F_DTSIZE] = 1, e->v[PSK_F_REQ] = 10 * (d + 1) + k;
                        put(&t, r, e);
                    }
                }
            for (int rep = 0; rep < reps; rep++) {
                for (int k = 0; k < nops; k++)
                    if (kind[k] == 2)
                        p2p(&t, r, "MPI_Isend", 500, right, rtag(k, tagf[k], 0), 512, reqs[k][1]);
                for (int i = 0; i < iters; i++)
                    for (int k = 0; k < nops; k++)
                        for (int j = 0; j < n[k]; j++) {
                            int ij = i * n[k] + j, tag = rtag(k, tagf[k], ij);
                            int root = rootf[k] == 0 ? 0 : rootf[k] == 1 ? i % P : (i + 1) % P;
                            int64_t bytes = 512 + 1536 * k, pr[2] = {10 + k, 20 + k};
                            psk_event *e;
                            switch (kind[k]) {
                            case 0:
                                p2p(&t, r, "MPI_Irecv", 1000, left, tag, bytes, reqs[k][0]);
                                p2p(&t, r, "MPI_Isend", 500, right, tag, bytes, reqs[k][1]);
                                waitall(&t, r, work, reqs[k], 2);
                                break;
                            case 1:
                                sendrecv(&t, r, work, right, tag, left, tag, bytes);
                                break;
                            case 2: /* what the left sent in the last iteration */
                                p2p(&t, r, "MPI_Recv", work, left, tag, 512, -1);
                                waitreq(&t, r, 500, reqs[k][1]);
                                p2p(&t, r, "MPI_Isend", 500, right, rtag(k, tagf[k], ij + 1), 512, reqs[k][1]);
                                break;
                            case 3:
                                rooted(&t, r, j ? "MPI_Ibcast" : "MPI_Bcast", work, bytes, root, j ? reqs[k][0] : -1);
                                if (j)
                                    waitreq(&t, r, 500, reqs[k][0]);
                                break;
                            case 4:
                                coll(&t, r, "MPI_Allreduce", work, bytes);
                                break;
                            case 5:
                                p2p(&t, r, "MPI_Isend", 500, right, tag, bytes, reqs[k][1]);
                                mprobe(&t, r, "MPI_Mprobe", work, 0, left, tag, 1, left);
                                mrecv(&t, r, "MPI_Mrecv", 1000, bytes, left, tag, -1);
                                waitreq(&t, r, 500, reqs[k][1]);
                                break;
                            case 6:
                                rooted(&t, r, "MPI_Ibcast", work, 4 * bytes, root, reqs[k][0]);
                                waitreq(&t, r, 500, reqs[k][0]);
                                break;
                            default:
                                e = ev(&t, r, "MPI_Startall", 1000);
                                PSK_ARRN(e, PSK_F_REQS) = 2;
                                PSK_ARR(e, PSK_F_REQS) = pr;
                                put(&t, r, e);
                                waitall(&t, r, work, pr, 2);
                                break;
                            }
                        }
                for (int k = 0; k < nops; k++)
                    if (kind[k] == 2) {
                        p2p(&t, r, "MPI_Recv", work, left, rtag(k, tagf[k], iters * n[k]), 512, -1);
                        waitreq(&t, r, 500, reqs[k][1]);
                    }
                coll(&t, r, "MPI_Barrier", 1000, 0);
            }
            simple(&t, r, "MPI_Finalize", 0);
        }
        tb_three(&t, skip_machines[mi], prog % 2, &x);
        if (!(prog % 2))
            same_report(x.s[0], x.s[1]);
        same_report(x.s[1], x.s[2]);
        skipped += psk_sim_skipped_iterations(x.s[2]) > 0;
        three_close(&x);
    }
    if (skipped * 4 < programs * 3)
        fail_msg("%d of %d programs skipped iterations", skipped, programs);
#undef RND
}

static void machine_errors(void **state)
{
    (void)state;
    static const struct { const char *text, *want; } cases[] = {
        {"type = bus;\nstart time = 3;\ncolour = red;", "m.par:3: unknown key 'colour'"},
        {"type = ring;", "m.par:1: type: 'ring' is not bus, grid or switch"},
        {"// comment\n\nstart time = fast;", "m.par:3: start time: 'fast' is not a number"},
        {"send byte time = -1;", "m.par:1: send byte time: -1 is below 0"},
        {"type = grid;", "type = grid needs a topology"},
        {"bcast = bruck;", "m.par:1: bcast: bruck is not one of its algorithms (linear, binomial)"},
        {"calibrated on = a b;", "m.par:1: calibrated on: 'a b' is not a host name"},
        {"work unit spread = {2, 1};", "m.par:1: work unit spread: expected {first quartile, third quartile}"},
        {"message cost = {0, 1};", "m.par:1: message cost: {bytes, us per message, us per byte, ...}: 2 values"},
        {"poll cost = {0, 1, 5};", "m.par:1: poll cost: {us of compute before, us a poll costs, ...}: an odd number"},
        {"poll cost = {5, 1, 5, 2};", "m.par:1: poll cost: the us of compute before must ascend"},
        {"poll cost = {0, -1};", "m.par:1: poll cost: -1 is below 0"},
        {"poll cost = {0, 2e7};", "m.par:1: poll cost: a poll costing over 10 s"},
        {"message cost = {0, 1, 0.1, 0, 2, 0.1};", "segment 1 (from 0 bytes): its bytes are below 0 or not above"},
        {"intra message cost = {0, 1, -0.1};", "m.par:1: intra message cost: segment 0 (from 0 bytes): its us per"},
        {"message cost = {0, 1, 0.001, 200, -5, 0.01};", "segment 1 (from 200 bytes): it costs less than nothing"},
        {"start time 3;", "m.par:1: expected 'key = value;', not 'start time 3'"},
        {"topology = {2, x};", "m.par:1: topology: 'x' is not a whole number"},
        {"power = {1, 0};", "m.par:1: power: node 1's power must be above 0"},
        {"node work unit time = {1.5, 0};", "m.par:1: node work unit time: node 1's time must be above 0"},
        {"start time = 1;\ncall floors = maybe;", "m.par:2: call floors: 'maybe' is not on or off"},
        {"copy byte time = -0.1;", "m.par:1: copy byte time: -0.1 is below 0"},
        {"copy byte time = 2;", "m.par:1: copy byte time: 2 us a byte is not a memory's copy (1 us a byte at most)"},
        {"copy byte time = fast;", "m.par:1: copy byte time: 'fast' is not a number"},
        {"ranks start = late;", "m.par:1: ranks start: 'late' is not recorded or together"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        psk_machine m;
        psk_machine_default(&m);
        int rc = psk_machine_parse(cases[i].text, strlen(cases[i].text), "m.par", &m);
        const char *err = psk_machine_errmsg(&m);
        if (!strstr(err, cases[i].want))
            fprintf(stderr, "case %zu: got '%s'\n", i, err);
        assert_int_equal(rc, PSK_EINVAL);
        assert_non_null(strstr(err, cases[i].want));
        psk_machine_free(&m);
    }
    /* and a good one, written back and read again */
    psk_machine m, m2;
    psk_machine_default(&m);
    const char *good = "type = switch; // a comment; with a semicolon\n start time = 1.5;\n"
                       "send_byte_time = 0.0002; power = {1, 0.5}; ranks per node = 2;\n"
                       "links per node = 2; buses = 3; allreduce = ring; collectives = closed; cores per node = 6;"
                       "node work unit time = {1.5, 2.25}; poll cost = {5, 200, 150, 3.5};"
                       "call floors = off; copy byte time = 0.00005; ranks start = together;";
    assert_int_equal(psk_machine_parse(good, strlen(good), "g.par", &m), 0);
    assert_int_equal(m.type, PSK_NET_SWITCH);
    NEAR(m.start_us, 1.5);
    NEAR(psk_machine_power(&m, 3), 0.5);
    assert_int_equal(m.alg[PSK_COLL_ALLREDUCE], PSK_ALG_RING);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    psk_machine_write(f, &m, "round trip");
    fclose(f);
    psk_machine_default(&m2);
    assert_int_equal(psk_machine_parse(buf, len, "w.par", &m2), 0);
    assert_int_equal(m2.buses, 3);
    assert_int_equal(m2.cores_per_node, 6);
    assert_int_equal(m2.links, 2);
    assert_int_equal(m2.closed_form, 1);
    NEAR(m2.byte_us, 0.0002);
    assert_int_equal(m2.nnode_power, 2);
    assert_int_equal(m2.nnode_unit, 2);
    NEAR(m2.node_unit_ns[1], 2.25);
    assert_int_equal(m2.npoll, 2);
    NEAR(m2.poll[3], 3.5);
    assert_int_equal(m2.no_floors, 1);
    NEAR(m2.copy_byte_us, 0.00005);
    assert_int_equal(m2.start_together, 1);
    free(buf);
    psk_machine_free(&m);
    psk_machine_free(&m2);
}

int main(void)
{
    if (getenv("PSK_TEST_QUICK") && atoi(getenv("PSK_TEST_QUICK")) > 1)
        quick = atoi(getenv("PSK_TEST_QUICK"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_message), cmocka_unit_test(piecewise_cost), cmocka_unit_test(bus_serialises),   cmocka_unit_test(switch_parallel),
        cmocka_unit_test(bus_time_order),
        cmocka_unit_test(grid_pipeline), cmocka_unit_test(rendezvous),     cmocka_unit_test(overlap),
        cmocka_unit_test(imbalance),   cmocka_unit_test(parallel),         cmocka_unit_test(shared_cores),
        cmocka_unit_test(rank_power),
        cmocka_unit_test(intervals),
        cmocka_unit_test(deep_nesting),
        cmocka_unit_test(allreduce_formula), cmocka_unit_test(in_place_colls), cmocka_unit_test(wildcard_irecv),
        cmocka_unit_test(folded_skips), cmocka_unit_test(folded_varying), cmocka_unit_test(folded_noise),
        cmocka_unit_test(folded_noisy_gaps),
        cmocka_unit_test(folded_wildcard), cmocka_unit_test(matched_probe), cmocka_unit_test(folded_mprobe),
        cmocka_unit_test(folded_tag_ring), cmocka_unit_test(folded_rotating_root),
        cmocka_unit_test(folded_loop_per_rank), cmocka_unit_test(folded_gaps_far_apart),
        cmocka_unit_test(folded_tag_collision),
        cmocka_unit_test(folded_random_loops),
        cmocka_unit_test(comm_create_group),
        cmocka_unit_test(comm_id_reused),
        cmocka_unit_test(neighbor_line),
        cmocka_unit_test(poll_cost),
        cmocka_unit_test(own_block_copy),
        cmocka_unit_test(call_floors),
        cmocka_unit_test(floor_of_waiting_rank),
        cmocka_unit_test(no_floors_without_cores),
        cmocka_unit_test(first_collective_once),
        cmocka_unit_test(start_skew),
        cmocka_unit_test(machine_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
