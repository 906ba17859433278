/* The runtime of every performance skeleton: its state, the helpers its
 * calls use, the report of where each rank is when it is stopped, and the
 * interpreter that replays stretches of the trace stored as data (runs of
 * calls that did not fold: one switch over the recorded function ids).
 * `perfskel gen` writes this file into each skeleton after the NRANKS,
 * NCOMM, NREQ, NPHASE, K and buffer-size definitions, the work kernel
 * (psk_work.h) and the function ids (psk_fn_ids.h); the build embeds it as
 * text (embed.awk) and also compiles it on its own, with the defaults below,
 * so that its warnings are seen. Everything here ends in `_`: the
 * generated code's own names. */
/* PSK-STANDALONE-BEGIN: not part of the embedded text */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include "psk_fn_ids.h"
#define psk_work psk_work_kernel_
#include "psk_work.h"
#undef psk_work
#define NRANKS 2
#define NCOMM 2
#define NREQ 1
#define NPHASE 0
#define SBUF_BYTES 64LL
#define RBUF_BYTES 64LL
static const uint64_t hosth_[NRANKS] = {0, 0};
static const double unitns_[NRANKS] = {1.0, 1.0};
static const double shared_[NRANKS] = {1.0, 1.0};
static const int cpu_[NRANKS] = {-1, -1};
/* PSK-STANDALONE-END */

static int rank_, size_;

/* Faithful compute. A unit of work stands for the time one unit took on
 * the rank's recorded host (unitns_): a rank run there computes the
 * recorded time; elsewhere a unit takes what the kernel takes on this host
 * at start-up, so a slower CPU takes longer. At start-up (after a barrier)
 * each rank times the kernel as the recorder did (psk_work_time of
 * psk_work.h): wns_, its ns per kernel unit, then; and the cost of the two
 * clock readings that check an interval (wclk_, one reading). Every interval of work
 * long enough to time (wcheck_ns_) is then checked against the clock and
 * the kernel's speed estimate (wspd_) follows what it measures (a moving
 * mean), so work the kernel does slower here than in its start-up timing
 * (caches, other work) still takes the time it stands for. Timings far
 * off the start-up speed (the rank was descheduled) are not taken, and
 * the estimate stays within 15 % of it: sharing a core must still show.
 * hosth_ is each rank's recorded host name hashed (FNV-1a): no name
 * reaches the code. A rank that waited for a core inside its compute
 * when recorded (other programs, more ranks than cores) has work units
 * for the work alone, and run here they wait for the cores again by
 * themselves; work credited instead (cunits_) took shared_ times its work
 * there, and is credited so on that host (wshare_). */
static double wunit_ = 0, wns_ = 0, wspd_ = 0, wclk_ = 0, wshare_ = 1;
/* The recording's placement. Where its host ran more ranks than cores and
 * each rank stayed on one CPU, which ranks shared a core decided how they
 * took turns: a rank run on its recorded host again runs on the CPU its
 * recorded rank stayed on (cpu_, -1: anywhere), if this process may. */
static int pinned_;
static void pin_(uint64_t host)
{
    cpu_set_t s;
    int c = cpu_[rank_];
    if (c < 0 || c >= CPU_SETSIZE || host != hosth_[rank_] || sched_getaffinity(0, sizeof s, &s) || !CPU_ISSET(c, &s))
        return;
    CPU_ZERO(&s);
    CPU_SET(c, &s);
    pinned_ = sched_setaffinity(0, sizeof s, &s) == 0;
}
#define wcheck_ns_ 20000.0
static double wtime_ns_(void) { return MPI_Wtime() * 1e9; }
static void psk_work(uint64_t units)
{
    double want = (double)units * wunit_, a, s;
    uint64_t n;
    if (!(wspd_ > 0)) { psk_work_kernel_(units); return; }
    if (want < wcheck_ns_) { psk_work_kernel_(psk_work_units(want, 0, wspd_)); return; }
    n = psk_work_units(want, wclk_, wspd_); /* the clock read twice */
    a = wtime_ns_();
    psk_work_kernel_(n);
    if (n == 0) return;
    s = (wtime_ns_() - a - wclk_) / (double)n;
    if (s > 0.8 * wns_ && s < 1.25 * wns_) {
        wspd_ = 0.8 * wspd_ + 0.2 * s;
        if (wspd_ < 0.85 * wns_) wspd_ = 0.85 * wns_;
        if (wspd_ > 1.15 * wns_) wspd_ = 1.15 * wns_;
    }
}
static void work_calibrate_(void)
{
    char h[256] = {0};
    uint64_t x = 1469598103934665603ULL;
    double t[3], a, s;
    int i;
    gethostname(h, sizeof h - 1);
    for (i = 0; h[i]; i++) x = (x ^ (unsigned char)h[i]) * 1099511628211ULL;
    pin_(x);
    PMPI_Barrier(MPI_COMM_WORLD); /* not one of the original's calls */
    psk_work_time(wtime_ns_, t); /* the kernel itself: psk_work is psk_work_kernel_ there */
    if (!(t[0] > 0)) return;
    /* a clock reading's cost: the least of 200 back-to-back pairs (a mean
     * over a stretch would take in any time the rank was descheduled) */
    wclk_ = 1e9;
    for (i = 0; i < 200; i++) {
        a = wtime_ns_();
        s = wtime_ns_() - a;
        if (s >= 0 && s < wclk_) wclk_ = s;
    }
    if (!(wclk_ < 1e6)) wclk_ = 0;
    wns_ = wspd_ = t[0];
    wunit_ = x == hosth_[rank_] && unitns_[rank_] > 0 ? unitns_[rank_] : t[0];
    wshare_ = x == hosth_[rank_] && shared_[rank_] >= 1 ? shared_[rank_] : 1;
}
static MPI_Comm comm_[NCOMM + 1];
static MPI_Request req_[NREQ + 1];
static char persist_[NREQ + 1];
static char *sbuf_, *rbuf_;
/* A call the program made with MPI_IN_PLACE is recorded with 0 bytes on
 * the side MPI ignores (the send side; a scatter root's receive side), the
 * other side not: MPI allows no other call with such sizes, so it is made
 * in place again. a: send bytes, b: receive bytes. */
static const void *sin_(int a, int b) { return a || !b ? (const void *)sbuf_ : MPI_IN_PLACE; }
static void *rin_(int a, int b) { return b || !a ? (void *)rbuf_ : MPI_IN_PLACE; }
/* a gather's send side, a scatter's receive side: in place only at the root */
static inline int atroot_(int root, MPI_Comm c) { int m = -1; MPI_Comm_rank(c, &m); return m == root; }
static inline const void *sinroot_(int a, int b, int root, MPI_Comm c) { return atroot_(root, c) ? sin_(a, b) : sbuf_; }
static inline void *rinroot_(int a, int b, int root, MPI_Comm c) { return atroot_(root, c) ? rin_(a, b) : rbuf_; }
/* The skeleton's virtual clock: vt_() is MPI_Wtime() plus vx_, the time
 * of the original this rank left out so far (iterations of sampled loops
 * not run, compute not emulated). Loops are timed with it, so a loop
 * sampled inside another one, or compute scaled inside a sampled loop, is
 * counted with the iterations that stand for the others. rank 0 prints the
 * slowest rank's MPI_Init-to-MPI_Finalize time on it. */
static double vx_, cfx_;
static inline double vt_(void) { return MPI_Wtime() + vx_; }
/* Compute scaled f times: of u work units, u / f run and the rest is
 * credited to the virtual clock at the time a unit stands for (wunit_:
 * the recorded unit time on the recording host, the kernel's measured
 * one elsewhere), so no timing noise is multiplied. cfx_ sums the credit. */
static inline uint64_t cunits_(uint64_t u, double f)
{
    uint64_t r = f > 1.0 ? (uint64_t)((double)u / f + 0.5) : u;
    double x = (double)(u - r) * wunit_ * wshare_ * 1e-9;
    vx_ += x, cfx_ += x;
    return r;
}
/* What a program does to its buffers around its calls, one byte a page:
 * it writes what it sends and reads what it received. Open MPI's
 * single-copy path for large messages (CMA) takes ten times longer on
 * pages untouched since their last transfer (a second 16 MiB
 * MPI_Alltoallv between untouched buffers: 30 ms, between touched ones
 * 2.5 ms, as in the program), and the first write to a page after a
 * transfer read it faults; a skeleton that never touched its buffers
 * would pay this in its first steady iterations, and scale it. So a
 * blocking call is followed by the touches (a = 1: its receive wrote all r
 * bytes), and a nonblocking one preceded (a = 0: only pages a receive
 * wrote before are read; the first receive into a page stays as cold as
 * the program's). The program did this in its compute, whose recorded
 * time the skeleton replays or credits: the touches' own time is taken
 * off the virtual clock. s, r: the bytes the call sends and receives. */
static long long rhw_;
static inline void tch_(long long s, long long r, int a)
{
    volatile char *p;
    long long k, m;
    if (s < 4096 && r < 4096)
        return;
    double t = MPI_Wtime();
    if (s >= 4096)
        for (p = sbuf_, k = 0; k < s && k < SBUF_BYTES; k += 4096) p[k] = 1;
    if (r >= 4096) {
        m = a || r < rhw_ ? r : rhw_;
        for (p = rbuf_, k = 0; k < m && k < RBUF_BYTES; k += 4096) (void)p[k];
        rhw_ = r > rhw_ ? r : rhw_;
    }
    vx_ -= MPI_Wtime() - t;
}
/* the bytes of a count array's first w entries, and a communicator's size */
static inline long long asum_(const int *a, int w)
{
    long long t = 0;
    for (int k = 0; k < w; k++) t += a[k];
    return t;
}
static inline long long csz_(MPI_Comm c) { int n = 1; MPI_Comm_size(c, &n); return n; }
/* compute factor of the calls replayed from data (replay_), set around them */
static double rfac_ = 1.0;
static double phase_time_[NPHASE + 1], phase_pred_[NPHASE + 1];
static long long phase_count_[NPHASE + 1], phase_ran_[NPHASE + 1], phase_cold_[NPHASE + 1], phase_runs_[NPHASE + 1];
static int phase_loop_[NPHASE + 1];
/* Iteration s of ran of a sampled loop of count iterations whose first
 * cold ones run (and count) once: the others stand evenly spread over the
 * rest, each for (count - cold) / (ran - cold) iterations. */
static inline long long samp_(long long s, long long count, long long cold, long long ran)
{
    return s < cold || ran <= cold ? s : cold + (s - cold) * (count - cold) / (ran - cold);
}

/* perfskel's values of MPI constants back to this MPI's */
static inline int peer_(long long p) { return p == -1 ? MPI_ANY_SOURCE : p == -2 ? MPI_PROC_NULL : p == -3 ? MPI_ROOT : (int)p; }
/* a wildcard receive's recorded source, execution by execution */
static inline int wsrc_(const int *s, long long *at, int dflt) { return s ? s[(*at)++] : dflt; }
static inline int tag_(long long t) { return t == -1 ? MPI_ANY_TAG : (int)t; }
static inline long long pmod_(long long x, long long m) { return (x % m + m) % m; }
static inline int color_(long long c) { return c < 0 ? MPI_UNDEFINED : (int)c; }
static inline int slot_(long long id) { return id >= 0 && id < NREQ ? (int)id : NREQ; }
static inline int cslot_(long long id) { return id >= 2 && id < NCOMM ? (int)id : NCOMM; }
/* this rank's rank in and the size of each communicator, kept up to date */
static int crank_c_[NCOMM + 1], csize_c_[NCOMM + 1];
static inline void comm_set_(int c)
{
    crank_c_[c] = 0, csize_c_[c] = 1;
    if (comm_[c] != MPI_COMM_NULL) { MPI_Comm_rank(comm_[c], &crank_c_[c]); MPI_Comm_size(comm_[c], &csize_c_[c]); }
}
static inline int crank_(int c) { return crank_c_[c]; }
static inline int csize_(int c) { return csize_c_[c]; }
/* peers recorded as a pattern of the rank in the communicator, in
 * perfskel's values (peer_ makes them this MPI's) */
static inline int peer_rank(int c, long long off) { long long p = crank_(c) + off; return p >= 0 && p < csize_(c) ? (int)p : -2; /* perfskel's MPI_PROC_NULL */ }
static inline int peer_ring(int c, long long off) { long long s = csize_(c); return (int)(((crank_(c) + off) % s + s) % s); }

/* a fresh request in a slot; what the slot held is completed first */
static inline MPI_Request *newreq_(long long id, int persistent)
{
    int s = slot_(id);
    if (req_[s] != MPI_REQUEST_NULL && !persist_[s])
        MPI_Wait(&req_[s], MPI_STATUS_IGNORE);
    persist_[s] = (char)persistent;
    return &req_[s];
}

/* Startall (0), Waitall (1), Waitany (2), Waitsome (3), Testall (4),
 * Testany (5), Testsome (6) on recorded slots; 1 if a test found
 * something (always 1 for the others). Ids plus REQDONE_ are requests the
 * original call (or run of polls) completed: a Waitany or Waitsome is made
 * once they have completed (MPI_Request_get_status leaves them to it; a
 * recorder sees the one call and the same requests freed), a test only
 * once they all have (a run of polls then completes them with one call,
 * as the original's did). */
#define REQDONE_ (1 << 30)
static inline int reqs_(int how, const int *ids, int n)
{
    static MPI_Status st[NREQ + 1];
    MPI_Request r[NREQ + 1];
    int k, i = 0, f = 1, idx[NREQ + 1], more = 0;
    if (n > NREQ + 1) n = NREQ + 1;
    for (k = 0; k < n; k++) more |= ids[k] >= REQDONE_, r[k] = req_[slot_(ids[k] >= REQDONE_ ? ids[k] - REQDONE_ : ids[k])];
    for (k = 0; more && (how == 2 || how == 3) && k < n; k++)
        for (f = ids[k] < REQDONE_ || r[k] == MPI_REQUEST_NULL; !f;)
            PMPI_Request_get_status(r[k], &f, MPI_STATUS_IGNORE);
    for (k = 0, f = 1; more && how >= 4 && k < n; k++)
        if (ids[k] >= REQDONE_ && r[k] != MPI_REQUEST_NULL && (PMPI_Request_get_status(r[k], &f, MPI_STATUS_IGNORE), !f))
            return 0;
    if (how == 0) MPI_Startall(n, r);
    else if (how == 1) MPI_Waitall(n, r, st);
    else if (how == 2) MPI_Waitany(n, r, &i, st);
    else if (how == 3) MPI_Waitsome(n, r, &i, idx, st);
    else if (how == 4) MPI_Testall(n, r, &f, st);
    else if (how == 5) { MPI_Testany(n, r, &i, &f, st); f = f && i != MPI_UNDEFINED; }
    else { MPI_Testsome(n, r, &i, idx, st); f = i != MPI_UNDEFINED && i > 0; }
    for (k = 0; k < n; k++) req_[slot_(ids[k] >= REQDONE_ ? ids[k] - REQDONE_ : ids[k])] = r[k];
    return f;
}

/* A run of polls as recorded (merging makes it one event): `units` of
 * work in chunks, one per gap between the recorded `calls` polls, with a
 * poll before each chunk until one finds what it polls for; the work is
 * done in full either way (it is the program's, which the polling only
 * overlapped). Where the recording ended the run with completion (done),
 * a run that has not found it by then waits for it, with the blocking
 * form of the test, which a recorder takes into the same run (MPI_Iprobe:
 * PMPI_Probe, then the MPI_Iprobe that finds it). pollr_ polls requests,
 * pollp_ messages (pollarg_.how). */
typedef struct pollarg_ {
    int how;          /* 0 MPI_Test on ids[0], 4-6 Testall, Testany, Testsome on ids, 7 MPI_Iprobe */
    const int *ids;
    int n, src, tag;
    MPI_Comm c;
} pollarg_;
static int poll1_(const pollarg_ *a)
{
    int f = 0;
    if (a->how == 7) MPI_Iprobe(a->src, a->tag, a->c, &f, MPI_STATUS_IGNORE);
    else if (a->how) f = reqs_(a->how, a->ids, a->n);
    else MPI_Test(&req_[slot_(a->ids[0])], &f, MPI_STATUS_IGNORE);
    return f;
}
static void pollrun_(const pollarg_ *a, uint64_t units, long long calls, int done)
{
    uint64_t chunk = calls > 1 ? units / (uint64_t)(calls - 1) : units, u;
    int f = poll1_(a);
    while (units > 0) {
        u = chunk && chunk < units ? chunk : units;
        psk_work(u);
        units -= u;
        if (!f) f = poll1_(a);
    }
    if (!done || f) return;
    if (a->how == 7) { /* waited for through the profiling interface, then found by a poll as recorded */
        PMPI_Probe(a->src, a->tag, a->c, MPI_STATUS_IGNORE);
        poll1_(a);
    } else if (a->how) {
        reqs_(a->how - 3, a->ids, a->n);
    } else {
        MPI_Wait(&req_[slot_(a->ids[0])], MPI_STATUS_IGNORE);
    }
}
static void pollr_(int how, const int *ids, int n, uint64_t units, long long calls, int done)
{
    pollarg_ a = {how, ids, n, 0, 0, MPI_COMM_NULL};
    pollrun_(&a, units, calls, done);
}
static void pollp_(int src, int tag, MPI_Comm c, uint64_t units, long long calls, int done)
{
    pollarg_ a = {7, NULL, 0, src, tag, c};
    pollrun_(&a, units, calls, done);
}

/* messages matched by MPI_Mprobe / MPI_Improbe, received in that order by
 * MPI_Mrecv / MPI_Imrecv */
static MPI_Message msgq_[64];
static int msgin_, msgout_;
static inline MPI_Message *msgslot_(void) { return &msgq_[msgin_ % 64]; }
static inline void msgkeep_(int found) { if (found) msgin_++; }
static inline MPI_Message *msgtake_(void)
{
    static MPI_Message none;
    none = MPI_MESSAGE_NO_PROC;
    return msgout_ < msgin_ ? &msgq_[msgout_++ % 64] : &none;
}
/* An MPI_Improbe(src, tag, c) that found the message of source s when
 * recorded is made to find that message again, waiting for it through
 * the profiling interface (waits the original did not make: a recording
 * of the skeleton shows its own calls only). From MPI_ANY_SOURCE, which
 * message an MPI matches first is not the order they came in: messages
 * of other sources are set aside (matched, to be received in their turn)
 * until s's is the one matched, and a message of s set aside earlier is
 * taken from there, so the skeleton receives the recorded messages in
 * the recorded order whatever order they arrive in. */
#define NASIDE 1024
static MPI_Message aside_[NASIDE];
static int aside_src_[NASIDE], aside_tag_[NASIDE], naside_;
static MPI_Comm aside_comm_[NASIDE];
static inline void aside_put_(MPI_Message m, const MPI_Status *st, MPI_Comm c)
{
    if (naside_ == NASIDE) {
        fprintf(stderr, "skeleton: more than %d probed messages set aside\n", NASIDE);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    aside_[naside_] = m, aside_src_[naside_] = st->MPI_SOURCE, aside_tag_[naside_] = st->MPI_TAG, aside_comm_[naside_] = c;
    naside_++;
}
static inline void improbe_(int src, int s, int tag, MPI_Comm c)
{
    MPI_Status st;
    MPI_Message m;
    int f, k;
    if (src != MPI_ANY_SOURCE || s == MPI_ANY_SOURCE) {
        PMPI_Probe(src, tag, c, &st);
        MPI_Improbe(src, tag, c, &f, msgslot_(), MPI_STATUS_IGNORE);
        msgkeep_(f);
        return;
    }
    for (k = 0; k < naside_; k++)
        if (aside_src_[k] == s && aside_comm_[k] == c && (tag == MPI_ANY_TAG || aside_tag_[k] == tag)) break;
    if (k < naside_) {
        *msgslot_() = aside_[k];
        msgkeep_(1);
        for (naside_--; k < naside_; k++)
            aside_[k] = aside_[k + 1], aside_src_[k] = aside_src_[k + 1], aside_tag_[k] = aside_tag_[k + 1], aside_comm_[k] = aside_comm_[k + 1];
        MPI_Improbe(src, tag, c, &f, &m, &st);
        if (f) aside_put_(m, &st, c);
        return;
    }
    for (;;) {
        PMPI_Probe(MPI_ANY_SOURCE, tag, c, &st);
        if (st.MPI_SOURCE == s) break;
        PMPI_Mprobe(st.MPI_SOURCE, st.MPI_TAG, c, &m, &st);
        aside_put_(m, &st, c);
    }
    MPI_Improbe(src, tag, c, &f, &m, &st);
    if (f && st.MPI_SOURCE == s) {
        *msgslot_() = m;
        msgkeep_(1);
        return;
    }
    if (f) aside_put_(m, &st, c); /* it matched another message after all */
    PMPI_Mprobe(s, tag, c, msgslot_(), MPI_STATUS_IGNORE);
    msgkeep_(1);
}
/* bit k of a per-execution bit table of n bits */
static inline int bit_(const unsigned char *b, long long k, long long n) { return k >= 0 && k < n && ((b[k >> 3] >> (k & 7)) & 1); }

/* reductions: the recorded element size and op where this MPI has them,
 * else the same number of bytes with MPI_BOR */
static inline int arith_(long long op) { return op >= 1 && op <= 4; }
static inline int bits_(long long op) { return op >= 5 && op <= 10; }
static inline MPI_Datatype red_type_(long long size, long long op)
{
    if (size == 8 && arith_(op)) return MPI_DOUBLE;
    if (size == 8 && bits_(op)) return MPI_LONG_LONG;
    if (size == 4 && (arith_(op) || bits_(op))) return MPI_INT;
    return MPI_BYTE;
}
static inline int red_count_(int bytes, long long size, long long op) { return red_type_(size, op) == MPI_BYTE ? bytes : (int)(bytes / size); }
static inline MPI_Op red_op_(long long size, long long op)
{
    MPI_Op o[11] = {MPI_BOR, MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR};
    return red_type_(size, op) == MPI_BYTE || op < 0 || op > 10 ? MPI_BOR : o[op];
}

/* displacements of a byte-count array: packed one after the other */
static inline void displs_(const int *counts, int *d)
{
    int k, at = 0;
    for (k = 0; k < size_ && k < NRANKS; k++) { d[k] = at; at += counts[k]; }
}

/* MPI_Comm_create_group of the members (world ranks, in order) of parent.
 * The group is made from the parent's group, its ranks translated: MPICH
 * 4.0 crashes (address 0x8) when given an equal group made from
 * MPI_COMM_WORLD's */
static inline void create_group_(MPI_Comm parent, const int *members, int n, MPI_Comm *out)
{
    MPI_Group w, p, g;
    int in[NRANKS], k;
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Comm_group(parent, &p);
    n = n < NRANKS ? n : NRANKS;
    MPI_Group_translate_ranks(w, n, members, p, in);
    for (k = 0; k < n && in[k] != MPI_UNDEFINED; k++)
        ;
    MPI_Group_incl(k == n ? p : w, n, k == n ? in : members, &g);
    MPI_Comm_create_group(parent, g, 0, out);
    MPI_Group_free(&g);
    MPI_Group_free(&p);
    MPI_Group_free(&w);
}

/* A sampled loop ran (t on the virtual clock; tc of it in its cold
 * iterations, which count once): its steady iterations stand for the
 * others, (count - cold) / (ran - cold) each. */
static inline void phase_(int ph, int loop, long long count, long long cold, long long ran, double t, double tc)
{
    double f = ran > cold ? (double)(count - cold) / (double)(ran - cold) : 1.0, x = (t - tc) * (f - 1.0);
    vx_ += x;
    phase_time_[ph] += t;
    phase_pred_[ph] += t + x;
    phase_count_[ph] = count;
    phase_ran_[ph] = ran;
    phase_cold_[ph] = cold;
    phase_runs_[ph]++;
    phase_loop_[ph] = loop;
}

/* ---- where this rank is: set before each call; said on SIGTERM ---- */
static volatile long long at_event_ = -1, at_iter_ = 0;
static volatile int at_loop_ = -1;
static const char *volatile at_fn_ = "MPI_Init";
/* and kept in this rank's 64-byte slot of a file shared by the ranks, if
 * PSK_SKELETON_POSITIONS names one (perfskel predict does): a rank killed
 * before its SIGTERM handler ran (the launcher's SIGKILL comes soon after)
 * still says where it was. The slot's layout is psk_skeleton_slot's of
 * predict: iter, event, loop, the function's name. */
typedef struct {
    int64_t iter;
    int32_t event, loop;
    char fn[48];
} posslot_;
static volatile posslot_ *slot_pos_;
static inline void at_(int event, int loop, long long iter, const char *fn)
{
    at_event_ = event, at_loop_ = loop, at_iter_ = iter, at_fn_ = fn;
    if (slot_pos_) {
        volatile posslot_ *p = slot_pos_;
        int i = 0;
        p->iter = iter, p->event = event, p->loop = loop;
        for (; fn[i] && i < 47; i++) p->fn[i] = fn[i];
        p->fn[i] = 0;
    }
}
static void posfile_init_(void)
{
    const char *e = getenv("PSK_SKELETON_POSITIONS");
    long pg = sysconf(_SC_PAGESIZE);
    off_t at = (off_t)rank_ * (off_t)sizeof(posslot_), base;
    int fd;
    void *m;
    if (!e || pg <= 0 || (fd = open(e, O_RDWR | O_CREAT, 0600)) < 0) return;
    base = at - at % pg;
    /* every rank sets the same size: none can cut another's slot off */
    if (ftruncate(fd, (off_t)NRANKS * (off_t)sizeof(posslot_)) == 0) {
        m = mmap(NULL, (size_t)(at - base) + sizeof(posslot_), PROT_READ | PROT_WRITE, MAP_SHARED, fd, base);
        if (m != MAP_FAILED) {
            slot_pos_ = (volatile posslot_ *)((char *)m + (at - base));
            at_((int)at_event_, at_loop_, at_iter_, at_fn_);
        }
    }
    close(fd);
}

/* decimal digits of v at the end of buf[24]: the start (signal-safe) */
static char *num_(char *end, long long v)
{
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do
        *--end = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--end = '-';
    return end;
}

static void onterm_(int sig)
{
    char line[256];
    size_t n = 0;
    const char *part[12] = {"perfskel-skeleton: position rank=", 0, " loop=", 0, " iter=", 0, " event=", 0, " fn=",
                            (const char *)at_fn_, "\n", 0};
    char d0[24], d1[24], d2[24], d3[24];
    part[1] = num_(d0 + 23, rank_), d0[23] = 0;
    part[3] = num_(d1 + 23, at_loop_), d1[23] = 0;
    part[5] = num_(d2 + 23, at_iter_), d2[23] = 0;
    part[7] = num_(d3 + 23, at_event_), d3[23] = 0;
    for (int k = 0; part[k]; k++)
        for (const char *c = part[k]; *c && n < sizeof line - 1; c++)
            line[n++] = *c;
    if (write(2, line, n) < 0)
        n = 0;
    signal(sig, SIG_DFL);
    raise(sig);
}

/* ---- calls replayed from data: one stream per rank and stretch ----
 * Each call: its function id, the work before it, its event id (as the
 * difference from the previous one), then its arguments in the order
 * `perfskel gen` writes them (encode_call in gen_data.c); every number a signed varint
 * in the 64 characters of base64, 5 bits a character, 32 meaning more. */
static const char *rp_;
static inline int b64_(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52
           : c == '+' ? 62 : 63;
}
static long long rd_(void)
{
    unsigned long long v = 0;
    int sh = 0, d;
    do {
        d = b64_(*rp_++);
        if (sh < 64)
            v |= (unsigned long long)(d & 31) << sh;
        sh += 5;
    } while ((d & 32) && *rp_);
    return (long long)(v >> 1) ^ -(long long)(v & 1);
}
static inline int ri_(void) { return (int)rd_(); }
static inline MPI_Comm rc_(void)
{
    long long c = rd_();
    return comm_[c >= 0 && c <= NCOMM ? c : NCOMM];
}
static inline MPI_Request *rq_(void) { return &req_[slot_(rd_())]; }
/* a counts array of the stream: n, then n byte counts */
static inline int rarr_(int *a)
{
    int n = ri_(), k;
    for (k = 0; k < n; k++) {
        int v = ri_();
        if (k < NRANKS) a[k] = v;
    }
    return n < NRANKS ? n : NRANKS;
}

/* the calls of s: its first n characters (n < 0: all); loop and iter
 * say where the rank is (loop -1: outside loops) */
static inline void replay_(const char *s, long long n, int loop, long long iter, const char *const *names)
{
    int ev = 0;
    const char *end = s && n >= 0 ? s + n : NULL;
    rp_ = s;
    while (s && *rp_ && (!end || rp_ < end)) {
        int fn = ri_(), a, b, c, d, e, f, how, n;
        long long dt, op;
        int ca[NRANKS + 1], cb[NRANKS + 1], da[NRANKS + 1], db[NRANKS + 1], ids[NREQ + 1];
        MPI_Comm cm;
        psk_work(cunits_((uint64_t)rd_(), rfac_));
        ev += ri_();
        at_(ev, loop, iter, fn >= 0 && fn < 256 && names[fn] ? names[fn] : "MPI_(unknown)");
        switch (fn) {
        case PSK_FN_Send: case PSK_FN_Bsend: case PSK_FN_Rsend: case PSK_FN_Ssend:
            a = ri_(), b = ri_(), c = ri_(), cm = rc_();
            if (fn == PSK_FN_Ssend) MPI_Ssend(sbuf_, a, MPI_BYTE, peer_(b), tag_(c), cm);
            else MPI_Send(sbuf_, a, MPI_BYTE, peer_(b), tag_(c), cm);
            tch_(a, 0, 1);
            break;
        case PSK_FN_Recv:
            a = ri_(), b = ri_(), c = ri_(), cm = rc_();
            MPI_Recv(rbuf_, a, MPI_BYTE, peer_(b), tag_(c), cm, MPI_STATUS_IGNORE);
            tch_(0, a, 1);
            break;
        case PSK_FN_Isend: case PSK_FN_Ibsend: case PSK_FN_Irsend: case PSK_FN_Issend:
            a = ri_(), b = ri_(), c = ri_(), cm = rc_();
            tch_(a, 0, 0);
            if (fn == PSK_FN_Issend) MPI_Issend(sbuf_, a, MPI_BYTE, peer_(b), tag_(c), cm, newreq_(rd_(), 0));
            else MPI_Isend(sbuf_, a, MPI_BYTE, peer_(b), tag_(c), cm, newreq_(rd_(), 0));
            break;
        case PSK_FN_Irecv:
            a = ri_(), b = ri_(), c = ri_(), cm = rc_();
            tch_(0, a, 0);
            MPI_Irecv(rbuf_, a, MPI_BYTE, peer_(b), tag_(c), cm, newreq_(rd_(), 0));
            break;
        case PSK_FN_Sendrecv:
            a = ri_(), b = ri_(), c = ri_(), d = ri_(), e = ri_(), f = ri_(), cm = rc_();
            MPI_Sendrecv(sbuf_, a, MPI_BYTE, peer_(b), tag_(c), rbuf_, d, MPI_BYTE, peer_(e), tag_(f), cm,
                         MPI_STATUS_IGNORE);
            tch_(a, d, 1);
            break;
        case PSK_FN_Sendrecv_replace:
            a = ri_(), b = ri_(), c = ri_(), e = ri_(), f = ri_(), cm = rc_();
            MPI_Sendrecv_replace(rbuf_, a, MPI_BYTE, peer_(b), tag_(c), peer_(e), tag_(f), cm, MPI_STATUS_IGNORE);
            tch_(0, a, 1);
            break;
        case PSK_FN_Probe: case PSK_FN_Iprobe:
            b = ri_(), c = ri_(), cm = rc_();
            if (fn == PSK_FN_Probe) MPI_Probe(peer_(b), tag_(c), cm, MPI_STATUS_IGNORE);
            else MPI_Iprobe(peer_(b), tag_(c), cm, &f, MPI_STATUS_IGNORE);
            break;
        case PSK_FN_Send_init: case PSK_FN_Bsend_init: case PSK_FN_Rsend_init: case PSK_FN_Ssend_init:
        case PSK_FN_Recv_init:
            a = ri_(), b = ri_(), c = ri_(), cm = rc_();
            if (fn == PSK_FN_Recv_init) MPI_Recv_init(rbuf_, a, MPI_BYTE, peer_(b), tag_(c), cm, newreq_(rd_(), 1));
            else if (fn == PSK_FN_Ssend_init) MPI_Ssend_init(sbuf_, a, MPI_BYTE, peer_(b), tag_(c), cm, newreq_(rd_(), 1));
            else MPI_Send_init(sbuf_, a, MPI_BYTE, peer_(b), tag_(c), cm, newreq_(rd_(), 1));
            break;
        case PSK_FN_Start: MPI_Start(rq_()); break;
        case PSK_FN_Wait: MPI_Wait(rq_(), MPI_STATUS_IGNORE); break;
        case PSK_FN_Test: /* a Wait where the recorded one completed the request */
            { MPI_Request *q = rq_(); if (ri_()) MPI_Wait(q, MPI_STATUS_IGNORE); else MPI_Test(q, &f, MPI_STATUS_IGNORE); }
            break;
        case PSK_FN_Request_free: case PSK_FN_Cancel:
            { MPI_Request *q = rq_(); if (*q != MPI_REQUEST_NULL) { if (fn == PSK_FN_Cancel) MPI_Cancel(q); else MPI_Request_free(q); } }
            break;
        case PSK_FN_Startall: case PSK_FN_Waitall: case PSK_FN_Waitany: case PSK_FN_Waitsome:
        case PSK_FN_Testall: case PSK_FN_Testany: case PSK_FN_Testsome:
            how = ri_(), n = ri_();
            for (a = 0; a < n; a++) { b = ri_(); if (a <= NREQ) ids[a] = b; }
            reqs_(how, ids, n <= NREQ + 1 ? n : NREQ + 1);
            break;
        case PSK_FN_Test_poll: case PSK_FN_Testall_poll: case PSK_FN_Testany_poll: case PSK_FN_Testsome_poll:
        case PSK_FN_Iprobe_poll: { /* a run of polls: how, done, work, polls, then what it polls */
            long long u, cl;
            how = ri_(), d = ri_(), u = rd_(), cl = rd_();
            if (how == 7) {
                b = ri_(), c = ri_(), cm = rc_();
                pollp_(peer_(b), tag_(c), cm, cunits_((uint64_t)u, rfac_), cl, d);
                break;
            }
            n = ri_();
            for (a = 0; a < n; a++) { b = ri_(); if (a <= NREQ) ids[a] = b; }
            pollr_(how, ids, n <= NREQ + 1 ? n : NREQ + 1, cunits_((uint64_t)u, rfac_), cl, d);
            break;
        }
        case PSK_FN_Barrier: MPI_Barrier(rc_()); break;
        case PSK_FN_Ibarrier: cm = rc_(); MPI_Ibarrier(cm, newreq_(rd_(), 0)); break;
        case PSK_FN_Bcast: case PSK_FN_Ibcast:
            a = ri_(), b = ri_(), cm = rc_();
            if (fn != PSK_FN_Bcast) tch_(0, a, 0);
            if (fn == PSK_FN_Bcast) MPI_Bcast(rbuf_, a, MPI_BYTE, b, cm), tch_(0, a, 1);
            else MPI_Ibcast(rbuf_, a, MPI_BYTE, b, cm, newreq_(rd_(), 0));
            break;
        case PSK_FN_Reduce: case PSK_FN_Ireduce:
            a = ri_(), dt = rd_(), op = rd_(), b = ri_(), cm = rc_();
            if (fn == PSK_FN_Reduce) MPI_Reduce(sbuf_, rbuf_, red_count_(a, dt, op), red_type_(dt, op), red_op_(dt, op), b, cm);
            else MPI_Ireduce(sbuf_, rbuf_, red_count_(a, dt, op), red_type_(dt, op), red_op_(dt, op), b, cm, newreq_(rd_(), 0));
            break;
        case PSK_FN_Allreduce: case PSK_FN_Scan: case PSK_FN_Exscan:
            a = ri_(), dt = rd_(), op = rd_(), cm = rc_();
            if (fn == PSK_FN_Allreduce) MPI_Allreduce(sbuf_, rbuf_, red_count_(a, dt, op), red_type_(dt, op), red_op_(dt, op), cm), tch_(a, a, 1);
            else if (fn == PSK_FN_Scan) MPI_Scan(sbuf_, rbuf_, red_count_(a, dt, op), red_type_(dt, op), red_op_(dt, op), cm);
            else MPI_Exscan(sbuf_, rbuf_, red_count_(a, dt, op), red_type_(dt, op), red_op_(dt, op), cm);
            break;
        case PSK_FN_Iallreduce: case PSK_FN_Iscan: case PSK_FN_Iexscan:
            a = ri_(), dt = rd_(), op = rd_(), cm = rc_();
            if (fn == PSK_FN_Iallreduce) MPI_Iallreduce(sbuf_, rbuf_, red_count_(a, dt, op), red_type_(dt, op), red_op_(dt, op), cm, newreq_(rd_(), 0));
            else if (fn == PSK_FN_Iscan) MPI_Iscan(sbuf_, rbuf_, red_count_(a, dt, op), red_type_(dt, op), red_op_(dt, op), cm, newreq_(rd_(), 0));
            else MPI_Iexscan(sbuf_, rbuf_, red_count_(a, dt, op), red_type_(dt, op), red_op_(dt, op), cm, newreq_(rd_(), 0));
            break;
        case PSK_FN_Reduce_scatter_block: case PSK_FN_Ireduce_scatter_block:
            a = ri_(), dt = rd_(), op = rd_(), cm = rc_();
            if (fn == PSK_FN_Reduce_scatter_block) MPI_Reduce_scatter_block(sbuf_, rbuf_, red_count_(a, dt, op), red_type_(dt, op), red_op_(dt, op), cm);
            else MPI_Ireduce_scatter_block(sbuf_, rbuf_, red_count_(a, dt, op), red_type_(dt, op), red_op_(dt, op), cm, newreq_(rd_(), 0));
            break;
        case PSK_FN_Reduce_scatter: case PSK_FN_Ireduce_scatter:
            dt = rd_(), op = rd_(), n = rarr_(ca), cm = rc_();
            for (a = 0; a < n; a++) ca[a] = red_count_(ca[a], dt, op);
            for (; a < NRANKS; a++) ca[a] = 0;
            if (fn == PSK_FN_Reduce_scatter) MPI_Reduce_scatter(sbuf_, rbuf_, ca, red_type_(dt, op), red_op_(dt, op), cm);
            else MPI_Ireduce_scatter(sbuf_, rbuf_, ca, red_type_(dt, op), red_op_(dt, op), cm, newreq_(rd_(), 0));
            break;
        case PSK_FN_Gather: case PSK_FN_Igather: case PSK_FN_Scatter: case PSK_FN_Iscatter:
            a = ri_(), b = ri_(), c = ri_(), cm = rc_();
            if (fn == PSK_FN_Gather) MPI_Gather(sinroot_(a, b, c, cm), a, MPI_BYTE, rbuf_, b, MPI_BYTE, c, cm);
            else if (fn == PSK_FN_Igather) MPI_Igather(sinroot_(a, b, c, cm), a, MPI_BYTE, rbuf_, b, MPI_BYTE, c, cm, newreq_(rd_(), 0));
            else if (fn == PSK_FN_Scatter) MPI_Scatter(sbuf_, a, MPI_BYTE, rinroot_(a, b, c, cm), b, MPI_BYTE, c, cm);
            else MPI_Iscatter(sbuf_, a, MPI_BYTE, rinroot_(a, b, c, cm), b, MPI_BYTE, c, cm, newreq_(rd_(), 0));
            break;
        case PSK_FN_Allgather: case PSK_FN_Iallgather: case PSK_FN_Alltoall: case PSK_FN_Ialltoall:
            a = ri_(), b = ri_(), cm = rc_();
            if (fn == PSK_FN_Allgather) MPI_Allgather(sin_(a, b), a, MPI_BYTE, rbuf_, b, MPI_BYTE, cm);
            else if (fn == PSK_FN_Iallgather) MPI_Iallgather(sin_(a, b), a, MPI_BYTE, rbuf_, b, MPI_BYTE, cm, newreq_(rd_(), 0));
            else if (fn == PSK_FN_Alltoall) MPI_Alltoall(sin_(a, b), a, MPI_BYTE, rbuf_, b, MPI_BYTE, cm), tch_(a * csz_(cm), b * csz_(cm), 1);
            else MPI_Ialltoall(sin_(a, b), a, MPI_BYTE, rbuf_, b, MPI_BYTE, cm, newreq_(rd_(), 0));
            break;
        case PSK_FN_Gatherv: case PSK_FN_Igatherv: case PSK_FN_Allgatherv: case PSK_FN_Iallgatherv:
            a = ri_(), memset(cb, 0, sizeof cb), rarr_(cb), displs_(cb, db);
            c = fn == PSK_FN_Gatherv || fn == PSK_FN_Igatherv ? ri_() : 0;
            cm = rc_();
            if (fn == PSK_FN_Gatherv) MPI_Gatherv(sbuf_, a, MPI_BYTE, rbuf_, cb, db, MPI_BYTE, c, cm);
            else if (fn == PSK_FN_Igatherv) MPI_Igatherv(sbuf_, a, MPI_BYTE, rbuf_, cb, db, MPI_BYTE, c, cm, newreq_(rd_(), 0));
            else if (fn == PSK_FN_Allgatherv) MPI_Allgatherv(sin_(a, 1), a, MPI_BYTE, rbuf_, cb, db, MPI_BYTE, cm);
            else MPI_Iallgatherv(sin_(a, 1), a, MPI_BYTE, rbuf_, cb, db, MPI_BYTE, cm, newreq_(rd_(), 0));
            break;
        case PSK_FN_Scatterv: case PSK_FN_Iscatterv:
            memset(ca, 0, sizeof ca), rarr_(ca), displs_(ca, da), b = ri_(), c = ri_(), cm = rc_();
            if (fn == PSK_FN_Scatterv) MPI_Scatterv(sbuf_, ca, da, MPI_BYTE, rbuf_, b, MPI_BYTE, c, cm);
            else MPI_Iscatterv(sbuf_, ca, da, MPI_BYTE, rbuf_, b, MPI_BYTE, c, cm, newreq_(rd_(), 0));
            break;
        case PSK_FN_Alltoallv: case PSK_FN_Ialltoallv: case PSK_FN_Alltoallw: case PSK_FN_Ialltoallw:
            memset(ca, 0, sizeof ca), memset(cb, 0, sizeof cb), rarr_(ca), rarr_(cb), displs_(ca, da), displs_(cb, db);
            cm = rc_();
            if (fn == PSK_FN_Alltoallv || fn == PSK_FN_Alltoallw) MPI_Alltoallv(sbuf_, ca, da, MPI_BYTE, rbuf_, cb, db, MPI_BYTE, cm), tch_(asum_(ca, NRANKS), asum_(cb, NRANKS), 1);
            else MPI_Ialltoallv(sbuf_, ca, da, MPI_BYTE, rbuf_, cb, db, MPI_BYTE, cm, newreq_(rd_(), 0));
            break;
        case PSK_FN_Comm_free:
            a = ri_();
            if (a >= 0 && a <= NCOMM) { MPI_Comm_free(&comm_[a]); comm_set_(a); }
            break;
        case PSK_FN_Pcontrol: MPI_Pcontrol(ri_()); break;
        default:
            fprintf(stderr, "skeleton: rank %d: function id %d in a replayed stretch is not replayable\n", rank_, fn);
            MPI_Abort(MPI_COMM_WORLD, 5);
        }
    }
}

/* ---- a run of calls inside loops whose values change between its
 * executions: each execution stored as its length then its calls; x
 * remembers where the last one read ended, as executions only go
 * forward (a scaled loop skips some) ---- */
typedef struct rpos_ {
    const char *p;
    long long e;
} rpos_;
static inline void replayx_(const char *s, rpos_ *x, long long e, int loop, long long iter, const char *const *names)
{
    if (!s)
        return;
    if (!x->p || e < x->e)
        x->p = s, x->e = 0;
    rp_ = x->p;
    for (; x->e < e && *rp_; x->e++) {
        long long n = rd_();
        rp_ += n;
    }
    long long n = *rp_ ? rd_() : 0;
    const char *body = rp_;
    x->p = body + n, x->e = e + 1;
    replay_(body, n, loop, iter, names);
}
/* PSK-STANDALONE-BEGIN */
int main(void)
{
    static rpos_ x;
    posfile_init_();
    signal(SIGTERM, onterm_);
    replay_(NULL, -1, -1, 0, NULL);
    replayx_(NULL, &x, 0, -1, 0, NULL);
    return 0;
}
/* PSK-STANDALONE-END */
