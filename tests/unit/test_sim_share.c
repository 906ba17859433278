/* perfskel sim's time-sharing of cores (docs/simulation.md,
 * "Time-sharing") on hand-built traces with known answers: two ranks
 * recorded on a host of one core, replayed as recorded (Open MPI's
 * yielding waits: a rank whose message came looks at the next scheduler
 * tick, or half a switch later beside another waiting rank; MPICH's busy
 * waits: it goes on at its next turn, a collective's rounds wait for
 * their ranks' turns, a rendezvous message is taken in its receiver's
 * turn, and MPICH's alltoall of mid-sized blocks sends them all at once),
 * the recording's
 * sharing taken out on a machine with a core per rank, a machine whose
 * nodes have fewer cores than ranks, a recording whose ranks shared
 * CPUs otherwise than the model (followed), the pairing in time of two
 * cores' busy ranks changing, the model switched off, the folded
 * replay the same, and the machine file's new keys refused when wrong. */
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

typedef struct tb {
    char dir[512];
    psk_trace_writer *w;
} tb;

/* a trace of P ranks recorded on one host of `cores` cores under flavour,
 * each rank on the CPU of on (NULL: not recorded) */
static void tb_open_on(tb *t, int P, int cores, int flavour, const int *on)
{
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(t->dir, sizeof t->dir, "%s/psk-share-XXXXXX", tmp);
    assert_non_null(mkdtemp(t->dir));
    rmdir(t->dir); /* the writer makes it */
    static const char *hosts[8] = {"h", "h", "h", "h", "h", "h", "h", "h"};
    static int core[8];
    for (int i = 0; i < 8; i++)
        core[i] = cores;
    psk_job job = {.job_id = 0x52u, .nranks = P, .flavour = flavour, .mpi_version = "synthetic",
                   .command = "test_sim_share", .hosts = hosts, .cores = core, .cpu_on = on};
    assert_int_equal(psk_writer_open(t->dir, &job, NULL, &t->w), 0);
}

static void tb_open(tb *t, int P, int cores, int flavour)
{
    tb_open_on(t, P, cores, flavour, NULL);
}

/* rank r's call fn from entry to exit (us), with peer (or root) and bytes */
static void callb(tb *t, int r, const char *fn, double entry, double exit, int peer, int64_t bytes)
{
    psk_event e;
    memset(&e, 0, sizeof e);
    e.fn = psk_fn_lookup(fn);
    assert_true(e.fn != 0);
    e.fields = psk_fn_fields(e.fn);
    e.t_entry = (uint64_t)llround(entry * 1e3);
    e.t_exit = (uint64_t)llround(exit * 1e3);
    e.v[PSK_F_COMM] = 0, e.v[PSK_F_PEER] = peer, e.v[PSK_F_TAG] = 1;
    e.v[PSK_F_COUNT] = bytes, e.v[PSK_F_DTSIZE] = 1;
    e.v[PSK_F_ASRC] = peer, e.v[PSK_F_ATAG] = 1;
    assert_int_equal(psk_writer_event(t->w, r, &e), 0);
}

/* rank r's call fn from entry to exit (us); peer for messages, of 0 bytes */
static void call(tb *t, int r, const char *fn, double entry, double exit, int peer)
{
    callb(t, r, fn, entry, exit, peer, 0);
}

typedef struct run {
    psk_sim *s, *f;  /* from the files; folded, every iteration */
    psk_merged *m;
    psk_folded *fo;
    psk_machine mach;
    psk_sim_opts o[2];
} run;

/* the machine: the network costs nothing, slices of 1 ms, ticks of 0.3 ms,
 * calls take what the model says alone (not the recording's 1 us each) */
static void tb_run(tb *t, const char *machine_text, run *x)
{
    assert_int_equal(psk_writer_close(t->w), 0);
    psk_writer_free(t->w);
    char text[1024];
    snprintf(text, sizeof text, "start time = 0; intra start time = 0; send byte time = 0; intra send byte time = 0;\n"
                                "time slice = 1000; scheduler tick = 300; call floors = off; copy byte time = 0;\n%s",
             machine_text);
    psk_machine_default(&x->mach);
    if (psk_machine_parse(text, strlen(text), "test.par", &x->mach))
        fail_msg("%s", psk_machine_errmsg(&x->mach));
    psk_trace *tr;
    if (psk_trace_open(t->dir, &tr))
        fail_msg("%s", psk_trace_errmsg(tr));
    for (int k = 0; k < 2; k++)
        x->o[k] = (psk_sim_opts){.machine = &x->mach, .timeline = 1, .no_skip = 1};
    int rc = psk_sim_run(tr, &x->o[0], &x->s);
    if (rc)
        fprintf(stderr, "sim: %s\n", psk_sim_errmsg(x->s));
    assert_int_equal(rc, 0);
    psk_merge_opts mo = {.window = 64, .no_reorder = 1};
    assert_int_equal(psk_merge(tr, &mo, &x->m), 0);
    assert_int_equal(psk_fold_merged(x->m, PSK_FOLD_RUNS, &x->fo), 0);
    x->o[1].no_skip = 0; /* skipping is off where cores are shared: the same replay */
    rc = psk_sim_run_folded(x->m, x->fo, &x->o[1], &x->f);
    if (rc)
        fprintf(stderr, "sim --folded: %s\n", psk_sim_errmsg(x->f));
    assert_int_equal(rc, 0);
    psk_trace_close(tr);
}

static void run_close(tb *t, run *x)
{
    psk_sim_close(x->s);
    psk_sim_close(x->f);
    psk_folded_free(x->fo);
    psk_merged_close(x->m);
    psk_machine_free(&x->mach);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
    assert_int_equal(system(cmd), 0);
}

static double metric(const psk_sim *s, int rank, int m)
{
    return psk_sim_interval(s, 0)->m[(size_t)rank * PSK_M_N + (size_t)m];
}

static void near(double a, double b, int line)
{
    if (fabs(a - b) > 1e-9 + 1e-7 * fabs(b)) {
        fprintf(stderr, "line %d: %.12g, expected %.12g\n", line, a, b);
        fail();
    }
}
#define NEAR(a, b) near((double)(a), (double)(b), __LINE__)

/* the folded replay gives the same */
static void same_folded(const run *x)
{
    NEAR(psk_sim_predicted(x->f), psk_sim_predicted(x->s));
    for (int q = 0; q < psk_sim_nranks(x->s); q++)
        for (int m = 0; m < PSK_M_N; m++)
            NEAR(metric(x->f, q, m), metric(x->s, q, m));
    assert_string_equal(psk_sim_sharing(x->f, NULL), psk_sim_sharing(x->s, NULL));
}

/* Rank 0 computes 3 ms, sends to rank 1, computes 1 ms; rank 1 waits in
 * MPI_Recv from 0 until the message comes (3 ms), then computes 1 ms; both
 * on one core. */
static void pair(tb *t, int flavour)
{
    tb_open(t, 2, 1, flavour);
    call(t, 0, "MPI_Init", 0, 0, 0);
    call(t, 0, "MPI_Send", 3000, 3000, 1);
    call(t, 0, "MPI_Finalize", 4000, 4000, 0);
    call(t, 1, "MPI_Init", 0, 0, 0);
    call(t, 1, "MPI_Recv", 0, 3000, 0);
    call(t, 1, "MPI_Finalize", 4000, 4000, 0);
}

/* Open MPI (yielding), as recorded. The recording's sharing: rank 0
 * computed alone for 3 ms, then with rank 1 at half speed for 1 ms: 3.5
 * ms of work in 4 (0.875 of its gaps), rank 1 0.5 ms in 1. Replayed: rank 0
 * alone on the core until it sends at 2.625 ms; rank 1 looks at the next
 * tick, 2.7 ms, and takes the core for a slice: it computes 0.5 ms, to
 * 3.2; rank 0 had 75 us of its 0.875 ms, and ends at 4 ms, as recorded. */
static void yield_as_recorded(void **state)
{
    (void)state;
    tb t;
    run x;
    pair(&t, PSK_MPI_OPENMPI);
    tb_run(&t, "", &x);
    int st;
    assert_non_null(strstr(psk_sim_sharing(x.s, &st), "time-sharing modelled: 2 ranks on 1 cores (host h), as recorded"));
    assert_non_null(strstr(psk_sim_sharing(x.s, NULL), "yield"));
    assert_int_equal(st, 1);
    NEAR(psk_sim_predicted(x.s), 4e-3);
    NEAR(metric(x.s, 1, PSK_M_P2P), 2.7e-3);  /* the message at 2.625, the core at the tick */
    NEAR(metric(x.s, 1, PSK_M_SYNC), 2.625e-3);
    NEAR(metric(x.s, 1, PSK_M_EXEC), 3.2e-3);
    same_folded(&x);
    run_close(&t, &x);
}

/* ranks recorded sharing a core give no call floors: rank 1's MPI_Recv
 * waited 3 ms for rank 0 (and for a core), which as a floor would end it
 * at 3 ms, not at the 2.7 ms tick: with floors on, the answers above */
static void no_floors_from_shared(void **state)
{
    (void)state;
    tb t;
    run x;
    pair(&t, PSK_MPI_OPENMPI);
    tb_run(&t, "call floors = on;", &x);
    NEAR(psk_sim_predicted(x.s), 4e-3);
    NEAR(metric(x.s, 1, PSK_M_P2P), 2.7e-3);
    NEAR(metric(x.s, 1, PSK_M_EXEC), 3.2e-3);
    same_folded(&x);
    run_close(&t, &x);
}

/* with no machine file the ranks of a host that had a core each are one
 * node (a message costs `intra start time`, 0.5 us) and a machine file's
 * nodes are its `ranks per node` (one: 5 us); where the host had more ranks
 * than cores, each rank stays a node of its own */
static void nodes_without_a_file(void **state)
{
    (void)state;
    for (int cores = 2; cores >= 1; cores--)
        for (int file = 0; file < 2; file++) {
            tb t;
            tb_open(&t, 2, cores, PSK_MPI_OPENMPI);
            call(&t, 0, "MPI_Init", 0, 0, 0);
            call(&t, 0, "MPI_Send", 0, 0, 1);
            call(&t, 0, "MPI_Finalize", 0, 0, 0);
            call(&t, 1, "MPI_Init", 0, 0, 0);
            call(&t, 1, "MPI_Recv", 0, 0, 0);
            call(&t, 1, "MPI_Finalize", 0, 0, 0);
            assert_int_equal(psk_writer_close(t.w), 0);
            psk_writer_free(t.w);
            psk_machine m;
            psk_machine_default(&m);
            if (file)
                assert_int_equal(psk_machine_parse("", 0, "empty.par", &m), 0);
            psk_trace *tr;
            assert_int_equal(psk_trace_open(t.dir, &tr), 0);
            psk_sim_opts o = {.machine = &m};
            psk_sim *s;
            assert_int_equal(psk_sim_run(tr, &o, &s), 0);
            NEAR(psk_sim_predicted(s), cores == 2 && !file ? 0.5e-6 : 5e-6);
            psk_sim_close(s);
            psk_trace_close(tr);
            psk_machine_free(&m);
            char cmd[600];
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", t.dir);
            assert_int_equal(system(cmd), 0);
        }
}

/* the same trace recorded under MPICH (busy waits: each rank got half the
 * core, its gaps twice its work): rank 0 holds [0, 1) and [2, 3) ms, rank 1
 * [1, 2) while it waits; rank 0 sends at 2.5 ms; rank 1's turn comes at 3;
 * it computes 0.5 ms: 3.5 */
static void busy_as_recorded(void **state)
{
    (void)state;
    tb t;
    run x;
    pair(&t, PSK_MPI_MPICH);
    tb_run(&t, "", &x);
    assert_non_null(strstr(psk_sim_sharing(x.s, NULL), "hold their core (MPICH)"));
    NEAR(psk_sim_predicted(x.s), 3.5e-3);
    NEAR(metric(x.s, 1, PSK_M_P2P), 3e-3);
    NEAR(metric(x.s, 1, PSK_M_SYNC), 2.5e-3);
    NEAR(metric(x.s, 0, PSK_M_EXEC), 3e-3);
    same_folded(&x);
    run_close(&t, &x);
}

/* A collective's rounds wait for their ranks' turns (MPICH): four ranks on
 * one core, each computing 2 ms as recorded (0.5 ms of work: a quarter of
 * the core), calling MPI_Reduce to rank 0, then computing 8 ms (2 ms of
 * work: all four want the core throughout). Turns of 1 ms in rank order:
 * they arrive at 0.5, 1.5, 2.5 and 3.5 ms. Binomial: 1 sends to 0 and 3
 * to 2 as they arrive and go on; rank 2 had nothing of 3's in its turn
 * [2, 3) and forwards in its next, at 6 ms; rank 0, which saw nothing in
 * [0.5, 1), takes it in its turn at 8 ms. (With the rounds in network
 * time and a turn waited for at the end only, rank 0 went on at 4 ms.) */
static void busy_collective_turns(void **state)
{
    (void)state;
    tb t;
    run x;
    tb_open(&t, 4, 1, PSK_MPI_MPICH);
    for (int r = 0; r < 4; r++) {
        call(&t, r, "MPI_Init", 0, 0, 0);
        call(&t, r, "MPI_Reduce", 2000, 2000, 0);
        call(&t, r, "MPI_Finalize", 10000, 10000, 0);
    }
    tb_run(&t, "", &x);
    NEAR(metric(x.s, 0, PSK_M_COLL), 7.5e-3);
    NEAR(metric(x.s, 1, PSK_M_COLL), 0);
    NEAR(metric(x.s, 2, PSK_M_COLL), 3.5e-3);
    NEAR(metric(x.s, 3, PSK_M_COLL), 0);
    same_folded(&x);
    run_close(&t, &x);
}

/* MPICH's ranks 0 and 1 recorded with a core each, replayed on one core
 * (turns of 1 ms, rank 0 first): rank 1 waits from 0 for 10,000 bytes,
 * which rank 0 sends after 1.5 ms of compute, at 2.5 ms; then rank 1
 * computes 2 ms. Above MPICH's eager threshold (the machine gives none)
 * the receiver takes them in its turn (3 ms), and the sender learns it in
 * its next (4 ms): point to point, and a broadcast's round alike. Sent
 * eagerly (a machine's threshold of 64 KiB), rank 0 goes on at 2.5 ms and
 * hands rank 1 the core (a broadcast's rank 1 has the message in its
 * turn as the core's plan stood when the round was made: 3 ms). */
static void busy_rendezvous(void **state)
{
    (void)state;
    for (int k = 0; k < 4; k++) {
        tb t;
        run x;
        int bcast = k >= 2, eager = k % 2;
        tb_open(&t, 2, 2, PSK_MPI_MPICH);
        call(&t, 0, "MPI_Init", 0, 0, 0);
        callb(&t, 0, bcast ? "MPI_Bcast" : "MPI_Send", 1500, 1500, bcast ? 0 : 1, 10000);
        call(&t, 0, "MPI_Finalize", 1500, 1500, 0);
        call(&t, 1, "MPI_Init", 0, 0, 0);
        callb(&t, 1, bcast ? "MPI_Bcast" : "MPI_Recv", 0, 1500, 0, 10000);
        call(&t, 1, "MPI_Finalize", 3500, 3500, 0);
        tb_run(&t, eager ? "ranks per node = 2; cores per node = 1; eager threshold = 65536;"
                         : "ranks per node = 2; cores per node = 1;", &x);
        int m = bcast ? PSK_M_COLL : PSK_M_P2P;
        NEAR(psk_sim_eager_bytes(x.s), eager ? 65536 : 8256);
        NEAR(metric(x.s, 0, m), eager ? 0 : 1.5e-3);
        NEAR(metric(x.s, 0, PSK_M_EXEC), eager ? 2.5e-3 : 4e-3);
        NEAR(metric(x.s, 1, PSK_M_EXEC), eager && !bcast ? 4.5e-3 : 5e-3);
        same_folded(&x);
        run_close(&t, &x);
    }
}

/* MPI_Alltoall of 1,000-byte blocks among 3 ranks on one core (busy, turns
 * of 1 ms in rank order), each arriving after 0.5 ms of compute (0.5, 1.5,
 * 2.5 ms). MPICH posts every message at once (blocks of 256 B to 32 KiB):
 * a pair's messages move when both have come, each taken in its
 * receiver's turn: rank 0 is done in its turn at 3 ms, rank 1 at 4, rank 2
 * at 2.5. Open MPI's trace keeps the pairwise rounds: ranks 0 and 2 are
 * done at 6 ms. */
static void busy_alltoall_choice(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        tb t;
        run x;
        tb_open(&t, 3, 3, k ? PSK_MPI_OPENMPI : PSK_MPI_MPICH);
        for (int r = 0; r < 3; r++) {
            call(&t, r, "MPI_Init", 0, 0, 0);
            callb(&t, r, "MPI_Alltoall", 500, 500, 0, 1000);
            call(&t, r, "MPI_Finalize", 500, 500, 0);
        }
        tb_run(&t, "ranks per node = 3; cores per node = 1; waiting = busy;", &x);
        NEAR(metric(x.s, 0, PSK_M_EXEC), k ? 6e-3 : 3e-3);
        NEAR(metric(x.s, 1, PSK_M_EXEC), 4e-3);
        NEAR(metric(x.s, 2, PSK_M_EXEC), k ? 6e-3 : 2.5e-3);
        same_folded(&x);
        run_close(&t, &x);
    }
}

/* a machine with a core per rank takes the sharing out: rank 0's 3.5 ms of
 * work; rank 1 waits 2.625 ms and computes 0.5 */
static void taken_out(void **state)
{
    (void)state;
    tb t;
    run x;
    pair(&t, PSK_MPI_OPENMPI);
    tb_run(&t, "ranks per node = 2; cores per node = 2;", &x);
    int st;
    assert_non_null(strstr(psk_sim_sharing(x.s, &st), "time-sharing taken out: the recording's 2 ranks on 1 cores (host h)"));
    assert_int_equal(st, 2);
    NEAR(psk_sim_predicted(x.s), 3.5e-3);
    NEAR(metric(x.s, 1, PSK_M_EXEC), 3.125e-3);
    same_folded(&x);
    run_close(&t, &x);
    pair(&t, PSK_MPI_MPICH); /* busy: half of each gap */
    tb_run(&t, "ranks per node = 2; cores per node = 2;", &x);
    NEAR(psk_sim_predicted(x.s), 2e-3);
    run_close(&t, &x);
}

/* switched off, the recorded gaps as they are: 4 ms, rank 1 waiting 3 */
static void switched_off(void **state)
{
    (void)state;
    tb t;
    run x;
    pair(&t, PSK_MPI_OPENMPI);
    tb_run(&t, "time sharing = off;", &x);
    int st;
    assert_string_equal(psk_sim_sharing(x.s, &st), "");
    assert_int_equal(st, 0);
    NEAR(psk_sim_predicted(x.s), 4e-3);
    NEAR(metric(x.s, 1, PSK_M_P2P), 3e-3);
    run_close(&t, &x);
}

/* Both ranks compute together, rank 0 for 6 ms and rank 1 for 4 (Open
 * MPI): the recording's sharing gave each half the core for 4 ms, so 4 ms
 * of work for rank 0 and 2 for rank 1; as recorded they take turns of 1
 * ms and end at 6 ms and 4; with a core each, 4 ms. */
static void sweep(void **state)
{
    (void)state;
    tb t;
    run x;
    for (int k = 0; k < 2; k++) {
        tb_open(&t, 2, 1, PSK_MPI_OPENMPI);
        call(&t, 0, "MPI_Init", 0, 0, 0);
        call(&t, 0, "MPI_Finalize", 6000, 6000, 0);
        call(&t, 1, "MPI_Init", 0, 0, 0);
        call(&t, 1, "MPI_Finalize", 4000, 4000, 0);
        tb_run(&t, k ? "ranks per node = 2; cores per node = 2;" : "", &x);
        NEAR(psk_sim_predicted(x.s), k ? 4e-3 : 6e-3);
        NEAR(metric(x.s, 1, PSK_M_EXEC), k ? 2e-3 : 4e-3);
        same_folded(&x);
        run_close(&t, &x);
    }
}

/* Four ranks recorded with a core each, 10 ms of work; a machine of 2
 * cores a node: ranks 0 and 2 take turns on one core, 1 and 3 on the
 * other, the second of each pair ending at 20 ms */
static void machine_shares(void **state)
{
    (void)state;
    tb t;
    run x;
    tb_open(&t, 4, 4, PSK_MPI_MPICH);
    for (int q = 0; q < 4; q++) {
        call(&t, q, "MPI_Init", 0, 0, 0);
        call(&t, q, "MPI_Finalize", 10000, 10000, 0);
    }
    tb_run(&t, "ranks per node = 4; cores per node = 2;", &x);
    assert_non_null(strstr(psk_sim_sharing(x.s, NULL), "time-sharing modelled: 4 ranks on 2 cores a node (machine)"));
    NEAR(psk_sim_predicted(x.s), 20e-3);
    NEAR(metric(x.s, 0, PSK_M_EXEC), 19e-3);
    NEAR(metric(x.s, 3, PSK_M_EXEC), 20e-3);
    same_folded(&x);
    run_close(&t, &x);
}

/* Four ranks recorded on 2 cores under MPICH (busy waits): where every
 * rank stayed on a CPU (job.json's cpu.on), the cores are shared as the
 * recording shared them, and sim says so; where one rank has no CPU, the
 * model's pairs; the folded replay (the merged file's copy of job.json)
 * alike */
static void placement_busy(void **state)
{
    (void)state;
    static const int on[4][4] = {{0, 0, 1, 1}, {7, 3, 3, 7}, {3, 5, 3, 5}, {0, 0, 1, -1}};
    for (int k = 0; k < 4; k++) {
        tb t;
        run x;
        tb_open_on(&t, 4, 2, PSK_MPI_MPICH, on[k]);
        for (int q = 0; q < 4; q++) {
            call(&t, q, "MPI_Init", 0, 0, 0);
            call(&t, q, "MPI_Finalize", 10000, 10000, 0);
        }
        tb_run(&t, "", &x);
        const char *msg = psk_sim_sharing(x.s, NULL);
        assert_non_null(strstr(msg, "time-sharing modelled: 4 ranks on 2 cores (host h), as recorded"));
        if (k < 3)
            assert_non_null(strstr(msg, "each rank on the CPU it stayed on; ranks waiting in MPI hold their core"));
        else
            assert_null(strstr(msg, "stayed on"));
        NEAR(psk_sim_predicted(x.s), 10e-3);
        same_folded(&x);
        run_close(&t, &x);
    }
}

/* The pairing in time changes (busy waits): ranks 0 and 1 recorded on one
 * CPU, 2 and 3 on the other, ranks 1 and 2 computing all along, ranks 0
 * and 3 exchanging 40 empty messages back and forth (a network that costs
 * nothing). With the cores' turns in step (slices of 1 ms) 0 runs beside
 * 2 and 1 beside 3: one round trip a cycle of 2 ms, 80 ms for 40. The
 * second core's turns go backward from its 16th cycle on (32 ms): then 0
 * runs beside 3, and the 24 round trips left take no time: rank 0 is done
 * at 32 ms (80 with the turns in step all along). */
static void busy_pairing_flips(void **state)
{
    (void)state;
    static const int on[4] = {0, 0, 1, 1};
    tb t;
    run x;
    tb_open_on(&t, 4, 2, PSK_MPI_MPICH, on);
    for (int q = 0; q < 4; q++)
        call(&t, q, "MPI_Init", 0, 0, 0);
    for (int k = 0; k < 40; k++) {
        double a = 1 + 4 * k;
        call(&t, 0, "MPI_Send", a, a, 3);
        call(&t, 3, "MPI_Recv", a, a + 1, 0);
        call(&t, 3, "MPI_Send", a + 2, a + 2, 0);
        call(&t, 0, "MPI_Recv", a + 1, a + 3, 3);
    }
    call(&t, 0, "MPI_Finalize", 200, 200, 0);
    call(&t, 3, "MPI_Finalize", 200, 200, 0);
    call(&t, 1, "MPI_Finalize", 100000, 100000, 0);
    call(&t, 2, "MPI_Finalize", 100000, 100000, 0);
    tb_run(&t, "", &x);
    double e0 = metric(x.s, 0, PSK_M_EXEC); /* 32 ms and the calls' own costs (us) */
    if (!(e0 >= 32e-3 && e0 < 32.1e-3))
        fail_msg("rank 0 done at %.6f s, not just after 0.032 (0.080 without the flip)", e0);
    same_folded(&x);
    run_close(&t, &x);
}

/* Ranks that yield (Open MPI) share the cores as the recording's ranks
 * shared CPUs: 4 ranks recorded on 2 cores computing 10, 10, 2 and 2 ms
 * (work 9, 9, 1, 1 ms: all four computed for the first 2 ms); ranks 0
 * and 1 stayed on one CPU: 18 ms on it, where the model's own pairs (0
 * with 2, 1 with 3) take 10 ms; with no CPU recorded, the model's */
static void placement_followed(void **state)
{
    (void)state;
    static const int on[4] = {5, 5, 2, 2};
    for (int k = 0; k < 2; k++) {
        tb t;
        run x;
        tb_open_on(&t, 4, 2, PSK_MPI_OPENMPI, k ? on : NULL);
        for (int q = 0; q < 4; q++) {
            call(&t, q, "MPI_Init", 0, 0, 0);
            call(&t, q, "MPI_Finalize", q < 2 ? 10000 : 2000, q < 2 ? 10000 : 2000, 0);
        }
        tb_run(&t, "", &x);
        const char *msg = psk_sim_sharing(x.s, NULL);
        if (k)
            assert_non_null(strstr(msg, "as recorded, each rank on the CPU it stayed on; ranks waiting in MPI yield"));
        else
            assert_null(strstr(msg, "stayed on"));
        NEAR(psk_sim_predicted(x.s), k ? 18e-3 : 10e-3);
        same_folded(&x);
        run_close(&t, &x);
    }
}

/* Polls that yield hand a shared core over and back (Open MPI): two
 * ranks recorded with a core each, 4 ms of compute each, replayed on one
 * core; rank 0 polls for rank 1's message between its 1 ms pieces and
 * finds nothing three times. The core is never idle until both are done:
 * 8 ms, and each of the three polls takes `switch cost` more of it. */
static void polls_switch(void **state)
{
    (void)state;
    double pred[2];
    for (int k = 0; k < 2; k++) {
        tb t;
        run x;
        tb_open(&t, 2, 2, PSK_MPI_OPENMPI);
        call(&t, 0, "MPI_Init", 0, 0, 0);
        call(&t, 0, "MPI_Irecv", 0, 0, 1);
        for (int i = 1; i <= 3; i++)
            call(&t, 0, "MPI_Test", 1000 * i, 1000 * i, 1);
        call(&t, 0, "MPI_Wait", 4000, 4000, 1);
        call(&t, 0, "MPI_Finalize", 4000, 4000, 0);
        call(&t, 1, "MPI_Init", 0, 0, 0);
        call(&t, 1, "MPI_Send", 4000, 4000, 0);
        call(&t, 1, "MPI_Finalize", 4000, 4000, 0);
        tb_run(&t, k ? "ranks per node = 2; cores per node = 1; switch cost = 100;"
                     : "ranks per node = 2; cores per node = 1; switch cost = 0;", &x);
        pred[k] = psk_sim_predicted(x.s);
        same_folded(&x);
        run_close(&t, &x);
    }
    NEAR(pred[0], 8e-3);
    NEAR(pred[1], 8.3e-3);
}

/* Ranks 0 and 1 share a core and both wait in MPI_Recv for rank 2 (a
 * core of its own), which sends to 0 at 1 ms and to 1 at 2 ms. Open MPI's
 * waiting ranks poll and yield to each other: rank 0 sees its message when
 * rank 1 yields, half a switch later; rank 1, whose core partner has
 * finished by then, at once. */
static void resume_after_switch(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        tb t;
        run x;
        tb_open(&t, 3, 1, PSK_MPI_OPENMPI);
        call(&t, 0, "MPI_Init", 0, 0, 0);
        call(&t, 0, "MPI_Recv", 0, 1000, 2);
        call(&t, 0, "MPI_Finalize", 1000, 1000, 0);
        call(&t, 1, "MPI_Init", 0, 0, 0);
        call(&t, 1, "MPI_Recv", 0, 2000, 2);
        call(&t, 1, "MPI_Finalize", 2000, 2000, 0);
        call(&t, 2, "MPI_Init", 0, 0, 0);
        call(&t, 2, "MPI_Send", 1000, 1000, 0);
        call(&t, 2, "MPI_Send", 2000, 2000, 1);
        call(&t, 2, "MPI_Finalize", 2000, 2000, 0);
        tb_run(&t, k ? "ranks per node = 2; cores per node = 1; switch cost = 400;"
                     : "ranks per node = 2; cores per node = 1; switch cost = 0;", &x);
        NEAR(metric(x.s, 0, PSK_M_P2P), k ? 1.2e-3 : 1e-3);
        NEAR(metric(x.s, 0, PSK_M_EXEC), k ? 1.2e-3 : 1e-3);
        NEAR(metric(x.s, 1, PSK_M_EXEC), 2e-3);
        NEAR(psk_sim_predicted(x.s), 2e-3);
        same_folded(&x);
        run_close(&t, &x);
    }
}

static void machine_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"time slice = 0;", "m.par:1: time slice: 0 us is not from 1 us to 10 s"},
        {"\nscheduler tick = -1;", "m.par:2: scheduler tick: -1 is below 0"},
        {"waiting = maybe;", "m.par:1: waiting: 'maybe' is not yield or busy"},
        {"other load = 0.99;", "m.par:1: other load: 0.99 is not a share of the cores from 0 to 0.95"},
        {"time sharing = perhaps;", "m.par:1: time sharing: 'perhaps' is not on or off"},
        {"switch cost = 2e6;", "m.par:1: switch cost: 2e6 us is not from 0 to 1 s"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        psk_machine m;
        psk_machine_default(&m);
        assert_int_not_equal(psk_machine_parse(bad[i].text, strlen(bad[i].text), "m.par", &m), 0);
        assert_string_equal(psk_machine_errmsg(&m), bad[i].msg);
        psk_machine_free(&m);
    }
    psk_machine m;
    psk_machine_default(&m);
    const char *ok = "time slice = 4000; scheduler tick = 250; waiting = busy; other load = 0.5;";
    assert_int_equal(psk_machine_parse(ok, strlen(ok), "m.par", &m), 0);
    assert_true(m.slice_us == 4000 && m.tick_us == 250 && m.waiting == PSK_WAIT_BUSY && m.other_load == 0.5);
    psk_machine_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(yield_as_recorded),
        cmocka_unit_test(no_floors_from_shared),
        cmocka_unit_test(nodes_without_a_file), cmocka_unit_test(busy_as_recorded),
        cmocka_unit_test(busy_collective_turns), cmocka_unit_test(busy_rendezvous),
        cmocka_unit_test(busy_alltoall_choice), cmocka_unit_test(taken_out),
        cmocka_unit_test(switched_off),      cmocka_unit_test(sweep),            cmocka_unit_test(machine_shares),
        cmocka_unit_test(polls_switch),      cmocka_unit_test(resume_after_switch), cmocka_unit_test(placement_busy), cmocka_unit_test(busy_pairing_flips),
        cmocka_unit_test(placement_followed),
        cmocka_unit_test(machine_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
