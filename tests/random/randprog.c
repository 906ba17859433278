/*
 * randprog: writes one random SPMD MPI program (C, or Fortran 90 with `use
 * mpi`) from a seed, for the differential tests of the perfskel pipeline
 * (check_seed.sh): a random nest of loops over communication motifs. It runs
 * on any 1..8 ranks, is deadlock-free by construction without relying on
 * eager buffering (C with -DRP_SYNC, or --sync, makes every blocking send an
 * MPI_Ssend), checks what it receives, and prints `expect <rank> <fn> <count>`.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the seed's random stream: splitmix64 seeds a xorshift64* ---- */

static uint64_t rng;

static void rng_seed(uint64_t seed)
{
    uint64_t z = seed + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    rng = (z ^ (z >> 31)) | 1; /* xorshift's state must not be 0 */
}

static uint64_t rng_next(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545f4914f6cdd1dull;
}

static int rnd(int n) { return n <= 1 ? 0 : (int)(rng_next() % (uint64_t)n); }
static int between(int lo, int hi) { return lo + rnd(hi - lo + 1); }
static int chance(int pct) { return rnd(100) < pct; }

/* ---- growable text buffers: functions and main() are written apart ---- */

typedef struct {
    char *s;
    size_t len, cap;
} text;

static void die(const char *msg)
{
    fprintf(stderr, "randprog: %s\n", msg);
    exit(2);
}

static void tvprintf(text *t, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0) die("formatting failed");
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + (size_t)n + 1) cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) die("out of memory");
        t->s = s;
        t->cap = cap;
    }
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    t->len += (size_t)n;
}

/* ---- the motifs ---- */

enum motif {
    M_RING_NB, M_RING_BLOCK, M_HALO, M_VCYCLE, M_PAIR, M_MW, M_FANIN, M_SELF,
    M_COLL, M_ICOLL, M_PERSIST, M_PROBE, M_SUBCOMM, M_COMPUTE, M_COUNT
};

/* name (for --motifs and the program's header), cost (blocking steps per
 * execution at 4 ranks, for the run-time budget), and whether the Fortran
 * writer knows it */
static const struct {
    const char *name;
    int cost, f90;
} minfo[M_COUNT] = {
    [M_RING_NB] = {"ring_nb", 2, 1},    [M_RING_BLOCK] = {"ring_block", 2, 1},
    [M_HALO] = {"halo", 2, 1},          [M_VCYCLE] = {"vcycle", 7, 1},
    [M_PAIR] = {"pair", 3, 1},          [M_MW] = {"mw", 9, 1},
    [M_FANIN] = {"fanin", 5, 0},        [M_SELF] = {"self", 1, 0},
    [M_COLL] = {"coll", 1, 1},          [M_ICOLL] = {"icoll", 2, 1},
    [M_PERSIST] = {"persist", 5, 1},    [M_PROBE] = {"probe", 2, 1},
    [M_SUBCOMM] = {"subcomm", 4, 1},    [M_COMPUTE] = {"compute", 1, 1},
};

/* every recorded MPI function a program may call, counted by name */
static const char *const fnames[] = {
    "MPI_Init", "MPI_Finalize", "MPI_Send", "MPI_Ssend", "MPI_Recv", "MPI_Isend", "MPI_Irecv",
    "MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Probe", "MPI_Iprobe", "MPI_Mprobe", "MPI_Improbe",
    "MPI_Mrecv", "MPI_Send_init", "MPI_Recv_init", "MPI_Start", "MPI_Startall", "MPI_Wait",
    "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Test", "MPI_Testall", "MPI_Testany",
    "MPI_Testsome", "MPI_Request_free", "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce",
    "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", "MPI_Allgather", "MPI_Allgatherv",
    "MPI_Alltoall", "MPI_Alltoallv", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Scan",
    "MPI_Exscan", "MPI_Ibarrier", "MPI_Ibcast", "MPI_Ireduce", "MPI_Iallreduce", "MPI_Igather",
    "MPI_Igatherv", "MPI_Iscatter", "MPI_Iscatterv", "MPI_Iallgather", "MPI_Iallgatherv",
    "MPI_Ialltoall", "MPI_Ialltoallv", "MPI_Ireduce_scatter", "MPI_Ireduce_scatter_block",
    "MPI_Iscan", "MPI_Iexscan", "MPI_Comm_dup", "MPI_Comm_split", "MPI_Comm_create",
    "MPI_Comm_create_group", "MPI_Comm_free", "MPI_Comm_group", "MPI_Group_incl", "MPI_Group_free",
};
#define NFN ((int)(sizeof fnames / sizeof fnames[0]))

/* the collective families; the nonblocking form is "I" + name */
enum coll {
    C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV,
    C_ALLGATHER, C_ALLGATHERV, C_ALLTOALL, C_ALLTOALLV, C_REDSCAT, C_REDSCAT_BLOCK, C_SCAN,
    C_EXSCAN, C_NCOLL
};
static const char *const cname[C_NCOLL] = {
    "Barrier", "Bcast", "Reduce", "Allreduce", "Gather", "Gatherv", "Scatter", "Scatterv",
    "Allgather", "Allgatherv", "Alltoall", "Alltoallv", "Reduce_scatter", "Reduce_scatter_block",
    "Scan", "Exscan",
};

/* how a set of requests is completed */
enum wait_style { W_ALL, W_EACH, W_ANY, W_SOME, W_TESTALL, W_TEST, W_TESTANY, W_TESTSOME, W_NSTYLE };
static const char *const wname[W_NSTYLE] = {"waitall", "wait", "waitany", "waitsome",
                                            "testall", "test", "testany", "testsome"};

#define MAXR 8       /* ranks a program supports */
#define TAG_SPAN 150 /* tags of one motif instance: base .. base + 149 */
#define TAG_DIR 50   /* the second direction's tags (and data keys) */
#define MAX_INST 200 /* keeps every tag below 32767 */

typedef struct {
    int lang;       /* 0 C, 1 Fortran 90 */
    int medium;     /* --size medium */
    int sync;       /* --sync: every blocking send an MPI_Ssend */
    int allowed[M_COUNT];
    int nallowed;
    int ninst;      /* motif instances written so far */
    int ngcomm;     /* program-wide communicators: 1 world, 2 + dup, 3 + split */
    int ind;        /* indentation of the text being written */
    text *cur;      /* where out() writes */
    text fns, body, summary;
} gen;

static gen G;

static void tprintf(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tvprintf(t, fmt, ap);
    va_end(ap);
}

/* one line at the current indentation (an empty line has none) */
static void out(const char *fmt, ...)
{
    va_list ap;
    if (*fmt)
        for (int i = 0; i < G.ind; i++) tprintf(G.cur, "    ");
    va_start(ap, fmt);
    tvprintf(G.cur, fmt, ap);
    va_end(ap);
    tprintf(G.cur, "\n");
}

#define summary(...) tprintf(&G.summary, __VA_ARGS__)

/* ---- random parameters of one motif instance ---- */

/* where the motif is called: its `it` runs 0..itmax (0 outside loops) */
typedef struct {
    int itmax;
} ctx;

typedef struct {
    int id, tag;          /* instance number, tag base */
    int dbl;              /* double data, else int */
    char cnt[64];         /* the message count, an expression of it */
    int cntmax;
    char tagx[64];        /* the tag, an expression of it */
    int comm;             /* index into gc_ */
} inst;

static const char *T(const inst *m) { return m->dbl ? "double" : "int"; }
static const char *DT(const inst *m) { return m->dbl ? "MPI_DOUBLE" : "MPI_INT"; }
static const char *FILL(const inst *m) { return m->dbl ? "fd_" : "fi_"; }
static const char *CHK(const inst *m) { return m->dbl ? "cd_" : "ci_"; }
static const char *EXP(const inst *m) { return m->dbl ? "ed_" : "ei_"; }

/* a message count: small, medium, now and then beyond the eager limit
 * (64 KiB and more), or changing with the iteration (a*it + b) */
static void pick_count(const ctx *c, inst *m, int allow_var)
{
    int k = rnd(100);
    if (allow_var && c->itmax > 0 && k < 35) {
        int a = between(1, 4), b = between(1, 9);
        snprintf(m->cnt, sizeof m->cnt, "(%d * it + %d)", a, b);
        m->cntmax = a * c->itmax + b;
    } else if (k < 70) {
        m->cntmax = between(1, 8);
        snprintf(m->cnt, sizeof m->cnt, "%d", m->cntmax);
    } else if (k < 94) {
        m->cntmax = between(16, 300);
        snprintf(m->cnt, sizeof m->cnt, "%d", m->cntmax);
    } else {
        m->cntmax = between(9000, 20000);
        snprintf(m->cnt, sizeof m->cnt, "%d", m->cntmax);
    }
}

/* a tag: constant, the iteration (base + it) or base + a*it + b; always
 * below base + TAG_DIR so that base + TAG_DIR + ... never collides */
static void pick_tag(const ctx *c, inst *m)
{
    int k = rnd(100);
    if (c->itmax > 0 && c->itmax <= 12 && k < 25)
        snprintf(m->tagx, sizeof m->tagx, "(%d + it)", m->tag);
    else if (c->itmax > 0 && c->itmax <= 12 && k < 40)
        snprintf(m->tagx, sizeof m->tagx, "(%d + %d * it + %d)", m->tag, between(2, 3), between(0, 9));
    else
        snprintf(m->tagx, sizeof m->tagx, "%d", m->tag + between(0, 9));
}

/* a root: fixed, or rotating with the iteration (it % n) */
static void pick_root(const ctx *c, char *buf, size_t cap)
{
    if (c->itmax > 0 && chance(40)) {
        int k = between(0, 3);
        if (k)
            snprintf(buf, cap, "((it + %d) %% n)", k);
        else
            snprintf(buf, cap, "(it %% n)");
    } else {
        snprintf(buf, cap, "(%d %% n)", between(0, 7));
    }
}

static void new_inst(const ctx *c, inst *m, int allow_var_count)
{
    memset(m, 0, sizeof *m);
    m->id = G.ninst++;
    m->tag = 100 + TAG_SPAN * m->id;
    m->dbl = chance(35);
    m->comm = rnd(G.ngcomm);
    pick_count(c, m, allow_var_count);
    pick_tag(c, m);
}

static const char *comm_name(int k)
{
    static const char *const n[] = {"world", "dup", "split"};
    return n[k];
}

/* the start of a motif's function: its communicator, rank and size */
static void prologue(const inst *m, const char *what)
{
    out("");
    out("/* %s */", what);
    out("static void m%d_(int it)", m->id);
    out("{");
    G.ind++;
    out("MPI_Comm c = gc_[%d];", m->comm);
    out("int r, n;");
    out("MPI_Comm_rank(c, &r);");
    out("MPI_Comm_size(c, &n);");
    out("(void)it;");
}

static void epilogue(void)
{
    G.ind--;
    out("}");
}

/* completes nq requests q[0..nq-1] (nq a C expression) */
static void complete(int style, const char *q, const char *nq)
{
    switch (style) {
    case W_ALL:
        out("CALL(MPI_Waitall)(%s, %s, MPI_STATUSES_IGNORE);", nq, q);
        break;
    case W_EACH:
        out("for (int k = 0; k < %s; k++) CALL(MPI_Wait)(&%s[k], MPI_STATUS_IGNORE);", nq, q);
        break;
    case W_ANY:
        out("for (int k = 0; k < %s; k++) {", nq);
        out("    int idx;");
        out("    CALL(MPI_Waitany)(%s, %s, &idx, MPI_STATUS_IGNORE);", nq, q);
        out("}");
        break;
    case W_SOME:
        out("for (int todo = %s; todo > 0;) {", nq);
        out("    int oc, idx[16];");
        out("    CALL(MPI_Waitsome)(%s, %s, &oc, idx, MPI_STATUSES_IGNORE);", nq, q);
        out("    todo -= oc;");
        out("}");
        break;
    case W_TESTALL:
        out("for (int f = 0; !f;) {");
        out("    CALL(MPI_Testall)(%s, %s, &f, MPI_STATUSES_IGNORE);", nq, q);
        out("    if (!f) spin_(POLL_US);");
        out("}");
        break;
    case W_TEST:
        out("for (int k = 0; k < %s; k++)", nq);
        out("    for (int f = 0; !f;) {");
        out("        CALL(MPI_Test)(&%s[k], &f, MPI_STATUS_IGNORE);", q);
        out("        if (!f) spin_(POLL_US);");
        out("    }");
        break;
    case W_TESTANY:
        out("for (int done = 0; done < %s;) {", nq);
        out("    int idx, f;");
        out("    CALL(MPI_Testany)(%s, %s, &idx, &f, MPI_STATUS_IGNORE);", nq, q);
        out("    if (f && idx != MPI_UNDEFINED) done++;");
        out("    else spin_(POLL_US);");
        out("}");
        break;
    default:
        out("for (int todo = %s; todo > 0;) {", nq);
        out("    int oc, idx[16];");
        out("    CALL(MPI_Testsome)(%s, %s, &oc, idx, MPI_STATUSES_IGNORE);", nq, q);
        out("    if (oc > 0) todo -= oc;");
        out("    else spin_(POLL_US);");
        out("}");
        break;
    }
}

/* a blocking standard send, or now and then an explicit MPI_Ssend */
static const char *send_call(void)
{
    int ssend = chance(15);
    return G.sync || ssend ? "CALL(MPI_Ssend)" : "SEND_";
}

/* ---- C motif writers ---- */

/* Nonblocking exchange with both ring neighbours. With same tags and 2
 * ranks (left == right) two receives from one peer are in flight at once;
 * they match in posting order, as do the peer's sends. */
static void c_ring_nb(const ctx *c)
{
    inst m;
    new_inst(c, &m, 1);
    int same = chance(30), anysrc = !same && chance(25), icoll = chance(25), style = rnd(W_NSTYLE);
    int oneway = !icoll && chance(15);
    char what[200];
    snprintf(what, sizeof what, "ring_nb: %s, %s%s%s%s, comm %s", wname[style], same ? "same tags" : "two tags",
             anysrc ? ", any source" : "", icoll ? ", with Iallreduce" : "", oneway ? ", one way" : "",
             comm_name(m.comm));
    summary(" ring_nb:%s%s%s%s", wname[style], same ? ",same_tag" : "", anysrc ? ",any_source" : "",
            icoll ? ",icoll" : "");
    prologue(&m, what);
    out("int left = (r + n - 1) %% n, right = (r + 1) %% n;");
    out("int cnt = %s, tag = %s, tag2 = %s;", m.cnt, m.tagx, same ? "tag" : "tag + 50");
    out("static %s sr[%d], sl[%d], rl[%d], rr[%d];", T(&m), m.cntmax, m.cntmax, m.cntmax, m.cntmax);
    out("MPI_Request q[5];");
    out("int ia = r + 1, ib = 0;");
    out("(void)ia, (void)ib;");
    out("%s(sr, cnt, r, tag);", FILL(&m));
    out("%s(sl, cnt, r, tag + %d);", FILL(&m), TAG_DIR);
    out("CALL(MPI_Irecv)(rl, cnt, %s, %s, tag, c, &q[0]);", DT(&m), anysrc ? "MPI_ANY_SOURCE" : "left");
    if (!oneway) out("CALL(MPI_Irecv)(rr, cnt, %s, right, tag2, c, &q[1]);", DT(&m));
    out("CALL(MPI_Isend)(sr, cnt, %s, right, tag, c, &q[%d]);", DT(&m), oneway ? 1 : 2);
    if (!oneway) out("CALL(MPI_Isend)(sl, cnt, %s, left, tag2, c, &q[3]);", DT(&m));
    if (icoll) out("CALL(MPI_Iallreduce)(&ia, &ib, 1, MPI_INT, MPI_SUM, c, &q[4]);");
    if (chance(30)) out("spin_(%d);", between(2, 20));
    complete(style, "q", icoll ? "5" : oneway ? "2" : "4");
    out("%s(%d, rl, cnt, left, tag);", CHK(&m), m.id);
    if (!oneway) out("%s(%d, rr, cnt, right, tag + %d);", CHK(&m), m.id, TAG_DIR);
    if (icoll) out("if (ib != n * (n + 1) / 2) bad_(%d, 0, ib, n * (n + 1) / 2);", m.id);
    epilogue();
}

/* Blocking ring shift: Sendrecv, Sendrecv_replace, or Send/Recv ordered by
 * parity (even ranks send first; with one rank, Sendrecv to itself). */
static void c_ring_block(const ctx *c)
{
    inst m;
    new_inst(c, &m, 1);
    int how = rnd(3), anysrc = chance(25), back = chance(30);
    static const char *const hn[] = {"sendrecv", "sendrecv_replace", "send/recv by parity"};
    char what[160];
    snprintf(what, sizeof what, "ring_block: %s%s%s, comm %s", hn[how], anysrc ? ", any source" : "",
             back ? ", leftwards" : "", comm_name(m.comm));
    summary(" ring_block:%s%s", how == 0 ? "sendrecv" : how == 1 ? "replace" : "parity",
            anysrc ? ",any_source" : "");
    prologue(&m, what);
    out("int to = (r + %s) %% n, from = (r + n - 1 + %s) %% n;", back ? "n - 1" : "1", back ? "2" : "0");
    out("int cnt = %s, tag = %s;", m.cnt, m.tagx);
    out("static %s sb[%d], rb[%d];", T(&m), m.cntmax, m.cntmax);
    out("MPI_Status st;");
    out("%s(sb, cnt, r, tag);", FILL(&m));
    const char *src = anysrc ? "MPI_ANY_SOURCE" : "from";
    if (how == 0) {
        out("CALL(MPI_Sendrecv)(sb, cnt, %s, to, tag, rb, cnt, %s, %s, tag, c, &st);", DT(&m), DT(&m), src);
    } else if (how == 1) {
        out("CALL(MPI_Sendrecv_replace)(sb, cnt, %s, to, tag, %s, tag, c, &st);", DT(&m), src);
        out("memcpy(rb, sb, sizeof rb);");
    } else {
        out("if (n == 1) {");
        out("    CALL(MPI_Sendrecv)(sb, cnt, %s, to, tag, rb, cnt, %s, %s, tag, c, &st);", DT(&m), DT(&m), src);
        out("} else if (r %% 2 == 0) {");
        out("    %s(sb, cnt, %s, to, tag, c);", send_call(), DT(&m));
        out("    CALL(MPI_Recv)(rb, cnt, %s, %s, tag, c, &st);", DT(&m), src);
        out("} else {");
        out("    CALL(MPI_Recv)(rb, cnt, %s, %s, tag, c, &st);", DT(&m), src);
        out("    %s(sb, cnt, %s, to, tag, c);", send_call(), DT(&m));
        out("}");
    }
    out("if (st.MPI_SOURCE != from) bad_(%d, -1, st.MPI_SOURCE, from);", m.id);
    out("%s(%d, rb, cnt, from, tag);", CHK(&m), m.id);
    epilogue();
}

/* Non-periodic halo exchange (lo = r - 1, hi = r + 1): edges either pass
 * MPI_PROC_NULL, or skip their calls, or use Sendrecv. levels > 0 makes it
 * a V-cycle whose count halves per level and grows back. */
static void c_halo(const ctx *c, int vcycle)
{
    inst m;
    new_inst(c, &m, !vcycle);
    int how = rnd(3), style = how == 1 ? (int[]){W_ALL, W_EACH, W_TESTALL}[rnd(3)] : rnd(W_NSTYLE);
    int levels = 0, top = 0, lvtag = 0;
    if (vcycle) {
        levels = between(3, 4);
        top = (int[]){16, 32, 64, 128}[rnd(4)];
        m.cntmax = top;
        lvtag = chance(50);
    }
    static const char *const hn[] = {"MPI_PROC_NULL edges", "edges skip their calls", "Sendrecv"};
    char what[200];
    if (vcycle)
        snprintf(what, sizeof what, "vcycle: %d levels from %d elements, %s, %s%s, comm %s", levels, top, hn[how],
                 how == 2 ? "" : wname[style], lvtag ? ", tag per level" : "", comm_name(m.comm));
    else
        snprintf(what, sizeof what, "halo: %s, %s, comm %s", hn[how], how == 2 ? "" : wname[style],
                 comm_name(m.comm));
    summary(" %s:%s%s%s", vcycle ? "vcycle" : "halo", how == 0 ? "procnull" : how == 1 ? "skip" : "sendrecv",
            how == 2 ? "" : ",", how == 2 ? "" : wname[style]);
    prologue(&m, what);
    out("int lo = r > 0 ? r - 1 : MPI_PROC_NULL, hi = r + 1 < n ? r + 1 : MPI_PROC_NULL;");
    out("static %s slo[%d], shi[%d], rlo[%d], rhi[%d];", T(&m), m.cntmax, m.cntmax, m.cntmax, m.cntmax);
    if (vcycle) {
        char lv[200] = "";
        int nl = 2 * levels - 1;
        for (int l = 0; l < nl; l++) {
            int d = l < levels ? l : nl - 1 - l;
            snprintf(lv + strlen(lv), sizeof lv - strlen(lv), "%s%d", l ? ", " : "", top >> d);
        }
        out("static const int lv[%d] = {%s};", nl, lv);
        out("for (int l = 0; l < %d; l++) {", nl);
        G.ind++;
        out("int cnt = lv[l], tag = %s%s;", m.tagx, lvtag ? " + l" : "");
    } else {
        out("{");
        G.ind++;
        out("int cnt = %s, tag = %s;", m.cnt, m.tagx);
    }
    out("%s(shi, cnt, r, tag);", FILL(&m));
    out("%s(slo, cnt, r, tag + %d);", FILL(&m), TAG_DIR);
    if (how == 0) {
        out("MPI_Request q[4];");
        out("CALL(MPI_Irecv)(rlo, cnt, %s, lo, tag, c, &q[0]);", DT(&m));
        out("CALL(MPI_Irecv)(rhi, cnt, %s, hi, tag + %d, c, &q[1]);", DT(&m), TAG_DIR);
        out("CALL(MPI_Isend)(shi, cnt, %s, hi, tag, c, &q[2]);", DT(&m));
        out("CALL(MPI_Isend)(slo, cnt, %s, lo, tag + %d, c, &q[3]);", DT(&m), TAG_DIR);
        complete(style, "q", "4");
    } else if (how == 1) {
        out("MPI_Request q[4];");
        out("int nq = 0;");
        out("if (lo != MPI_PROC_NULL) CALL(MPI_Irecv)(rlo, cnt, %s, lo, tag, c, &q[nq++]);", DT(&m));
        out("if (hi != MPI_PROC_NULL) CALL(MPI_Irecv)(rhi, cnt, %s, hi, tag + %d, c, &q[nq++]);", DT(&m), TAG_DIR);
        out("if (hi != MPI_PROC_NULL) CALL(MPI_Isend)(shi, cnt, %s, hi, tag, c, &q[nq++]);", DT(&m));
        out("if (lo != MPI_PROC_NULL) CALL(MPI_Isend)(slo, cnt, %s, lo, tag + %d, c, &q[nq++]);", DT(&m), TAG_DIR);
        out("if (nq > 0) {");
        G.ind++;
        complete(style, "q", "nq");
        G.ind--;
        out("}");
    } else {
        out("CALL(MPI_Sendrecv)(shi, cnt, %s, hi, tag, rlo, cnt, %s, lo, tag, c, MPI_STATUS_IGNORE);", DT(&m),
            DT(&m));
        out("CALL(MPI_Sendrecv)(slo, cnt, %s, lo, tag + %d, rhi, cnt, %s, hi, tag + %d, c, MPI_STATUS_IGNORE);",
            DT(&m), TAG_DIR, DT(&m), TAG_DIR);
    }
    out("if (lo != MPI_PROC_NULL) %s(%d, rlo, cnt, lo, tag);", CHK(&m), m.id);
    out("if (hi != MPI_PROC_NULL) %s(%d, rhi, cnt, hi, tag + %d);", CHK(&m), m.id, TAG_DIR);
    G.ind--;
    out("}");
    epilogue();
}

/* Pairwise exchange with r ^ 1 (an odd rank out skips it), ordered by
 * rank or by Sendrecv, or all pairs with a rotating distance. */
static void c_pair(const ctx *c)
{
    inst m;
    new_inst(c, &m, 1);
    int how = rnd(3);
    static const char *const hn[] = {"r ^ 1, lower rank sends first", "r ^ 1, Sendrecv",
                                     "all pairs, rotating distance, tag + distance"};
    char what[160];
    snprintf(what, sizeof what, "pair: %s, comm %s", hn[how], comm_name(m.comm));
    summary(" pair:%s", how == 0 ? "ordered" : how == 1 ? "sendrecv" : "allpairs");
    prologue(&m, what);
    out("int cnt = %s, tag = %s;", m.cnt, m.tagx);
    out("static %s sb[%d], rb[%d];", T(&m), m.cntmax, m.cntmax);
    if (how == 2) {
        out("for (int k = 1; k < n; k++) {");
        out("    int to = (r + k) %% n, from = (r + n - k) %% n;");
        out("    %s(sb, cnt, r, tag + k);", FILL(&m));
        out("    CALL(MPI_Sendrecv)(sb, cnt, %s, to, tag + k, rb, cnt, %s, from, tag + k, c, MPI_STATUS_IGNORE);",
            DT(&m), DT(&m));
        out("    %s(%d, rb, cnt, from, tag + k);", CHK(&m), m.id);
        out("}");
    } else {
        out("int p = r ^ 1;");
        out("if (p < n) {");
        G.ind++;
        out("%s(sb, cnt, r, tag);", FILL(&m));
        if (how == 1) {
            out("CALL(MPI_Sendrecv)(sb, cnt, %s, p, tag, rb, cnt, %s, p, tag, c, MPI_STATUS_IGNORE);", DT(&m),
                DT(&m));
        } else {
            out("if (r < p) {");
            out("    %s(sb, cnt, %s, p, tag, c);", send_call(), DT(&m));
            out("    CALL(MPI_Recv)(rb, cnt, %s, p, tag, c, MPI_STATUS_IGNORE);", DT(&m));
            out("} else {");
            out("    CALL(MPI_Recv)(rb, cnt, %s, p, tag, c, MPI_STATUS_IGNORE);", DT(&m));
            out("    %s(sb, cnt, %s, p, tag, c);", send_call(), DT(&m));
            out("}");
        }
        out("%s(%d, rb, cnt, p, tag);", CHK(&m), m.id);
        G.ind--;
        out("}");
    }
    epilogue();
}

/* Master/worker: rank 0 hands out tasks, worker w does a + w % b of them
 * (rank-dependent trip counts) and the master takes results with wildcard
 * receives (MPI_ANY_SOURCE, a tag of this instance only, so that nothing
 * else can match), answering each with the next task or a stop. */
static void c_mw(const ctx *c)
{
    inst m;
    new_inst(c, &m, 0);
    int a = between(1, 3), b = between(1, 3), how = rnd(7);
    static const char *const hn[] = {"Recv", "Irecv + Wait", "Irecv + Test polling", "Probe + Recv",
                                     "Iprobe polling + Recv", "Mprobe + Mrecv", "Improbe polling + Mrecv"};
    static const char *const sn[] = {"recv", "irecv_wait", "irecv_test", "probe", "iprobe", "mprobe", "improbe"};
    char what[200];
    snprintf(what, sizeof what, "mw: worker w does %d + w %% %d tasks; master takes results with %s from "
             "MPI_ANY_SOURCE, comm %s", a, b, hn[how], comm_name(m.comm));
    summary(" mw:%s", sn[how]);
    prologue(&m, what);
    out("int cnt = %s, tt = %d, tr = %d, ts = %d;", m.cnt, m.tag, m.tag + 1, m.tag + 2);
    out("static %s task[%d], res[%d];", T(&m), m.cntmax, m.cntmax);
    out("MPI_Status st;");
    out("if (r == 0) {");
    G.ind++;
    out("int sent[%d] = {0}, total = 0;", MAXR);
    out("for (int w = 1; w < n; w++) total += %d + w %% %d;", a, b);
    out("for (int w = 1; w < n; w++) {");
    out("    %s(task, cnt, w, 0);", FILL(&m));
    out("    %s(task, cnt, %s, w, tt, c);", send_call(), DT(&m));
    out("    sent[w] = 1;");
    out("}");
    out("for (int k = 0; k < total; k++) {");
    G.ind++;
    switch (how) {
    case 0:
        out("CALL(MPI_Recv)(res, cnt, %s, MPI_ANY_SOURCE, tr, c, &st);", DT(&m));
        break;
    case 1:
    case 2:
        out("MPI_Request q;");
        out("CALL(MPI_Irecv)(res, cnt, %s, MPI_ANY_SOURCE, tr, c, &q);", DT(&m));
        if (how == 1) {
            out("CALL(MPI_Wait)(&q, &st);");
        } else {
            out("for (int f = 0; !f;) {");
            out("    CALL(MPI_Test)(&q, &f, &st);");
            out("    if (!f) spin_(POLL_US);");
            out("}");
        }
        break;
    case 3:
    case 4:
        if (how == 3) {
            out("CALL(MPI_Probe)(MPI_ANY_SOURCE, tr, c, &st);");
        } else {
            out("for (int f = 0; !f;) {");
            out("    CALL(MPI_Iprobe)(MPI_ANY_SOURCE, tr, c, &f, &st);");
            out("    if (!f) spin_(POLL_US);");
            out("}");
        }
        out("CALL(MPI_Recv)(res, cnt, %s, st.MPI_SOURCE, tr, c, &st);", DT(&m));
        break;
    default:
        out("MPI_Message msg;");
        if (how == 5) {
            out("CALL(MPI_Mprobe)(MPI_ANY_SOURCE, tr, c, &msg, &st);");
        } else {
            out("for (int f = 0; !f;) {");
            out("    CALL(MPI_Improbe)(MPI_ANY_SOURCE, tr, c, &f, &msg, &st);");
            out("    if (!f) spin_(POLL_US);");
            out("}");
        }
        out("CALL(MPI_Mrecv)(res, cnt, %s, &msg, &st);", DT(&m));
        break;
    }
    out("int w = st.MPI_SOURCE;");
    out("if (w < 1 || w >= n) bad_(%d, -1, w, 1);", m.id);
    out("%s(%d, res, cnt, w, sent[w]);", CHK(&m), m.id);
    out("%s(task, cnt, w, sent[w]);", FILL(&m));
    out("if (sent[w] < %d + w %% %d) {", a, b);
    out("    %s(task, cnt, %s, w, tt, c);", send_call(), DT(&m));
    out("    sent[w]++;");
    out("} else {");
    out("    %s(task, cnt, %s, w, ts, c);", send_call(), DT(&m));
    out("}");
    G.ind--;
    out("}");
    G.ind--;
    out("} else {");
    G.ind++;
    out("for (int done = 0;; done++) {");
    out("    CALL(MPI_Recv)(task, cnt, %s, 0, MPI_ANY_TAG, c, &st);", DT(&m));
    out("    if (st.MPI_TAG == ts) break;");
    out("    %s(%d, task, cnt, r, done);", CHK(&m), m.id);
    out("    spin_(%d + 2 * r);", between(1, 6));
    out("    %s(res, cnt, r, done + 1);", FILL(&m));
    out("    %s(res, cnt, %s, 0, tr, c);", send_call(), DT(&m));
    out("}");
    G.ind--;
    out("}");
    epilogue();
}

/* Fan-in with rank-dependent trip counts: rank w sends a + w % b messages
 * to rank 0, tagged base + k; rank 0 receives them by source, in order,
 * blocking or all posted at once. */
static void c_fanin(const ctx *c)
{
    inst m;
    new_inst(c, &m, 1);
    int a = between(1, 3), b = between(1, 3), posted = chance(40);
    char what[160];
    snprintf(what, sizeof what, "fanin: rank w sends %d + w %% %d messages to rank 0, %s, comm %s", a, b,
             posted ? "Irecvs + Waitall" : "Recv", comm_name(m.comm));
    summary(" fanin:%s", posted ? "irecv" : "recv");
    prologue(&m, what);
    out("int cnt = %s, tag = %s;", m.cnt, m.tagx);
    out("static %s sb[%d], rb[%d][%d];", T(&m), m.cntmax, MAXR * (a + b), m.cntmax);
    out("if (r == 0) {");
    G.ind++;
    out("MPI_Request q[%d];", MAXR * (a + b));
    out("int nq = 0;");
    out("for (int w = 1; w < n; w++)");
    out("    for (int k = 0; k < %d + w %% %d; k++) {", a, b);
    if (posted)
        out("        CALL(MPI_Irecv)(rb[nq], cnt, %s, w, tag + k, c, &q[nq]);", DT(&m));
    else
        out("        CALL(MPI_Recv)(rb[nq], cnt, %s, w, tag + k, c, MPI_STATUS_IGNORE);", DT(&m));
    out("        nq++;");
    out("    }");
    if (posted) out("if (nq > 0) CALL(MPI_Waitall)(nq, q, MPI_STATUSES_IGNORE);");
    out("nq = 0;");
    out("for (int w = 1; w < n; w++)");
    out("    for (int k = 0; k < %d + w %% %d; k++, nq++) %s(%d, rb[nq], cnt, w, tag + k);", a, b, CHK(&m), m.id);
    G.ind--;
    out("} else {");
    out("    for (int k = 0; k < %d + r %% %d; k++) {", a, b);
    out("        %s(sb, cnt, r, tag + k);", FILL(&m));
    out("        %s(sb, cnt, %s, 0, tag + k, c);", send_call(), DT(&m));
    out("        spin_(%d);", between(1, 5));
    out("    }");
    out("}");
    epilogue();
}

/* Messages to oneself on MPI_COMM_SELF, a rank-dependent number of times */
static void c_self(const ctx *c)
{
    inst m;
    new_inst(c, &m, 1);
    int a = between(1, 3), b = between(2, 4);
    char what[160];
    snprintf(what, sizeof what, "self: %d + rank %% %d messages to itself on MPI_COMM_SELF", a, b);
    summary(" self");
    prologue(&m, what);
    out("int cnt = %s, tag = %s;", m.cnt, m.tagx);
    out("static %s sb[%d], rb[%d];", T(&m), m.cntmax, m.cntmax);
    out("for (int k = 0; k < %d + rank_ %% %d; k++) {", a, b);
    out("    MPI_Request q;");
    out("    %s(sb, cnt, rank_, k);", FILL(&m));
    out("    CALL(MPI_Irecv)(rb, cnt, %s, 0, tag, MPI_COMM_SELF, &q);", DT(&m));
    out("    %s(sb, cnt, %s, 0, tag, MPI_COMM_SELF);", send_call(), DT(&m));
    out("    CALL(MPI_Wait)(&q, MPI_STATUS_IGNORE);");
    out("    %s(%d, rb, cnt, rank_, k);", CHK(&m), m.id);
    out("    spin_(1 + rank_ %% 3);");
    out("}");
    epilogue();
}

/* one collective call (blocking, or nonblocking completed by Wait, by Test
 * polling, or by a Waitall shared with a ring exchange), its data checked */
/* the families a C program may call with MPI_IN_PLACE here (gather and
 * scatter at their root) */
static int in_place_ok(int fam)
{
    return fam == C_ALLTOALL || fam == C_ALLGATHER || fam == C_ALLGATHERV || fam == C_ALLREDUCE || fam == C_GATHER ||
           fam == C_SCATTER;
}

static void coll_call(const inst *m, int fam, int nb, const char *root, int wstyle, int ip)
{
    const char *Tm = T(m), *D = DT(m);
    /* MPI_Allreduce, or MPI_I + the family lower-cased: MPI_Iallreduce */
    char fn[64];
    snprintf(fn, sizeof fn, "CALL(MPI_%s%s)", nb ? "I" : "", cname[fam]);
    if (nb) fn[10] = (char)(fn[10] - 'A' + 'a');
    const char *req = nb ? ", &q[0]" : "";
    out("int root = %s;", root);
    out("(void)root;");
    switch (fam) {
    case C_BARRIER:
        out("%s(c%s);", fn, req);
        break;
    case C_BCAST:
        out("if (r == root) %s(b1, cnt, root, %d);", FILL(m), m->id);
        out("%s(b1, cnt, %s, root, c%s);", fn, D, req);
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
    case C_SCAN:
    case C_EXSCAN:
        out("for (int k = 0; k < cnt; k++) b%d[k] = (%s)(r + k);", ip ? 2 : 1, Tm);
        out("%s(%s, b2, cnt, %s, MPI_SUM, %sc%s);", fn, ip ? "MPI_IN_PLACE" : "b1", D, fam == C_REDUCE ? "root, " : "",
            req);
        break;
    case C_GATHER: /* in place: the root's part already in its place */
        out("%s(b1, cnt, r, %d);", FILL(m), m->id);
        if (ip) {
            out("if (r == root) %s(b2 + r * cnt, cnt, r, %d);", FILL(m), m->id);
            out("%s(r == root ? MPI_IN_PLACE : (void *)b1, cnt, %s, b2, cnt, %s, root, c%s);", fn, D, D, req);
        } else
            out("%s(b1, cnt, %s, b2, cnt, %s, root, c%s);", fn, D, D, req);
        break;
    case C_ALLGATHER: /* in place: the send side ignored, given as nothing */
        out("%s(%s, cnt, r, %d);", FILL(m), ip ? "b2 + r * cnt" : "b1", m->id);
        if (ip)
            out("%s(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b2, cnt, %s, c%s);", fn, D, req);
        else
            out("%s(b1, cnt, %s, b2, cnt, %s, c%s);", fn, D, D, req);
        break;
    case C_GATHERV:
    case C_ALLGATHERV:
        out("for (int w = 0, at = 0; w < n; w++) rc[w] = cnt + w %% 3, dr[w] = at, at += rc[w];");
        out("%s(%s, cnt + r %% 3, r, %d);", FILL(m), ip ? "b2 + dr[r]" : "b1", m->id);
        out("%s(%s, cnt + r %% 3, %s, b2, rc, dr, %s, %sc%s);", fn, ip ? "MPI_IN_PLACE" : "b1", D, D,
            fam == C_GATHERV ? "root, " : "", req);
        break;
    case C_SCATTER: /* in place: the root keeps its part where it is */
        out("if (r == root) for (int w = 0; w < n; w++) %s(b1 + w * cnt, cnt, w, %d);", FILL(m), m->id);
        out("%s(b1, cnt, %s, %s, cnt, %s, root, c%s);", fn, D, ip ? "r == root ? MPI_IN_PLACE : (void *)b2" : "b2", D,
            req);
        break;
    case C_SCATTERV:
        out("for (int w = 0, at = 0; w < n; w++) sc[w] = cnt + w %% 3, ds[w] = at, at += sc[w];");
        out("if (r == root) for (int w = 0; w < n; w++) %s(b1 + ds[w], sc[w], w, %d);", FILL(m), m->id);
        out("%s(b1, sc, ds, %s, b2, cnt + r %% 3, %s, root, c%s);", fn, D, D, req);
        break;
    case C_ALLTOALL:
        out("for (int w = 0; w < n; w++) %s(b%d + w * cnt, cnt, r, %d * 16 + w);", FILL(m), ip ? 2 : 1, m->id);
        if (ip)
            out("%s(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b2, cnt, %s, c%s);", fn, D, req);
        else
            out("%s(b1, cnt, %s, b2, cnt, %s, c%s);", fn, D, D, req);
        break;
    case C_ALLTOALLV:
        out("for (int w = 0, at = 0, bt = 0; w < n; w++) {");
        out("    sc[w] = cnt + (r + w) %% 3, ds[w] = at, at += sc[w];");
        out("    rc[w] = cnt + (r + w) %% 3, dr[w] = bt, bt += rc[w];");
        out("    %s(b1 + ds[w], sc[w], r, %d * 16 + w);", FILL(m), m->id);
        out("}");
        out("%s(b1, sc, ds, %s, b2, rc, dr, %s, c%s);", fn, D, D, req);
        break;
    case C_REDSCAT:
        out("int tot = 0;");
        out("for (int w = 0; w < n; w++) rc[w] = cnt + w %% 2, dr[w] = tot, tot += rc[w];");
        out("for (int k = 0; k < tot; k++) b1[k] = (%s)(r + k);", Tm);
        out("%s(b1, b2, rc, %s, MPI_SUM, c%s);", fn, D, req);
        break;
    case C_REDSCAT_BLOCK:
        out("for (int k = 0; k < cnt * n; k++) b1[k] = (%s)(r + k);", Tm);
        out("%s(b1, b2, cnt, %s, MPI_SUM, c%s);", fn, D, req);
        break;
    }
    if (nb) {
        if (wstyle == 1) {
            out("for (int f = 0; !f;) {");
            out("    CALL(MPI_Test)(&q[0], &f, MPI_STATUS_IGNORE);");
            out("    if (!f) spin_(POLL_US);");
            out("}");
        } else if (wstyle == 2) {
            /* a ring exchange overlapping the collective, all in one Waitall */
            out("int left = (r + n - 1) %% n, right = (r + 1) %% n;");
            out("CALL(MPI_Irecv)(p2, 1, %s, left, %d, c, &q[1]);", D, m->tag + 3);
            out("%s(p1, 1, r, 3);", FILL(m));
            out("CALL(MPI_Isend)(p1, 1, %s, right, %d, c, &q[2]);", D, m->tag + 3);
            out("CALL(MPI_Waitall)(3, q, MPI_STATUSES_IGNORE);");
            out("%s(%d, p2, 1, left, 3);", CHK(m), m->id);
        } else {
            out("spin_(%d);", between(1, 10));
            out("CALL(MPI_Wait)(&q[0], MPI_STATUS_IGNORE);");
        }
    }
    /* the results */
    switch (fam) {
    case C_BCAST:
        out("%s(%d, b1, cnt, root, %d);", CHK(m), m->id, m->id);
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
        out("%s%s(%d, b2, cnt, n * (n - 1) / 2, n);", fam == C_REDUCE ? "if (r == root) " : "", EXP(m), m->id);
        break;
    case C_SCAN:
        out("%s(%d, b2, cnt, r * (r + 1) / 2, r + 1);", EXP(m), m->id);
        break;
    case C_EXSCAN:
        out("if (r > 0) %s(%d, b2, cnt, r * (r - 1) / 2, r);", EXP(m), m->id);
        break;
    case C_GATHER:
    case C_ALLGATHER:
        out("%sfor (int w = 0; w < n; w++) %s(%d, b2 + w * cnt, cnt, w, %d);", fam == C_GATHER ? "if (r == root) " : "",
            CHK(m), m->id, m->id);
        break;
    case C_GATHERV:
    case C_ALLGATHERV:
        out("%sfor (int w = 0; w < n; w++) %s(%d, b2 + dr[w], rc[w], w, %d);",
            fam == C_GATHERV ? "if (r == root) " : "", CHK(m), m->id, m->id);
        break;
    case C_SCATTER:
        out("%s(%d, %s, cnt, r, %d);", CHK(m), m->id, ip ? "r == root ? b1 + r * cnt : b2" : "b2", m->id);
        break;
    case C_SCATTERV:
        out("%s(%d, b2, cnt + r %% 3, r, %d);", CHK(m), m->id, m->id);
        break;
    case C_ALLTOALL:
        out("for (int w = 0; w < n; w++) %s(%d, b2 + w * cnt, cnt, w, %d * 16 + r);", CHK(m), m->id, m->id);
        break;
    case C_ALLTOALLV:
        out("for (int w = 0; w < n; w++) %s(%d, b2 + dr[w], rc[w], w, %d * 16 + r);", CHK(m), m->id, m->id);
        break;
    case C_REDSCAT:
        out("%s(%d, b2, rc[r], n * (n - 1) / 2 + n * dr[r], n);", EXP(m), m->id);
        break;
    case C_REDSCAT_BLOCK:
        out("%s(%d, b2, cnt, n * (n - 1) / 2 + n * r * cnt, n);", EXP(m), m->id);
        break;
    default:
        break;
    }
}

/* One collective, or a short run of them, of random families; counts
 * fixed or changing with the iteration, roots fixed or rotating. */
static void c_coll(const ctx *c, int nb)
{
    inst m;
    new_inst(c, &m, 1);
    int ncall = chance(30) ? 2 : 1;
    char what[400];
    snprintf(what, sizeof what, "%s: comm %s,", nb ? "icoll" : "coll", comm_name(m.comm));
    int fam[2], ws[2], ip[2];
    char root[2][64];
    for (int k = 0; k < ncall; k++) {
        fam[k] = rnd(C_NCOLL);
        ws[k] = rnd(3);
        pick_root(c, root[k], sizeof root[k]);
        ip[k] = in_place_ok(fam[k]) && chance(30);
        snprintf(what + strlen(what), sizeof what - strlen(what), " %s%s%s root %s%s", nb ? "I" : "", cname[fam[k]],
                 ip[k] ? " in place" : "", root[k],
                 nb ? (ws[k] == 1 ? " (Test polling)" : ws[k] == 2 ? " (with a ring, Waitall)" : " (Wait)") : "");
        summary(" %s:%s%s%s%s", nb ? "icoll" : "coll", cname[fam[k]], strchr(root[k], 'i') ? ",rotating_root" : "",
                strchr(m.cnt, 'i') ? ",varying_count" : "", ip[k] ? ",in_place" : "");
    }
    /* room for every rank's part plus the v-forms' extra 0..2 */
    int room = MAXR * (m.cntmax + 3);
    prologue(&m, what);
    out("int cnt = %s;", m.cnt);
    out("static %s b1[%d], b2[%d], p1[1], p2[1];", T(&m), room, room);
    out("int sc[%d], ds[%d], rc[%d], dr[%d];", MAXR, MAXR, MAXR, MAXR);
    out("MPI_Request q[3];");
    out("(void)sc, (void)ds, (void)rc, (void)dr, (void)q, (void)p1, (void)p2;");
    for (int k = 0; k < ncall; k++) {
        out("{");
        G.ind++;
        coll_call(&m, fam[k], nb, root[k], ws[k], ip[k]);
        G.ind--;
        out("}");
    }
    epilogue();
}

/* Persistent requests to both ring neighbours: made once, started k times
 * (Startall or Start each) and completed, freed at the end. */
static void c_persist(const ctx *c)
{
    inst m;
    new_inst(c, &m, 0);
    int same = chance(30), rounds = between(2, 5), startall = chance(60);
    int style = (int[]){W_ALL, W_EACH, W_TESTALL, W_ANY}[rnd(4)];
    char what[200];
    snprintf(what, sizeof what, "persist: Send_init/Recv_init to both neighbours%s, %d rounds of %s + %s, comm %s",
             same ? " (same tags)" : "", rounds, startall ? "Startall" : "Start", wname[style], comm_name(m.comm));
    summary(" persist:%s,%s%s", startall ? "startall" : "start", wname[style], same ? ",same_tag" : "");
    prologue(&m, what);
    out("int left = (r + n - 1) %% n, right = (r + 1) %% n;");
    out("int cnt = %s, tag = %s, tag2 = %s;", m.cnt, m.tagx, same ? "tag" : "tag + 50");
    out("static %s sr[%d], sl[%d], rl[%d], rr[%d];", T(&m), m.cntmax, m.cntmax, m.cntmax, m.cntmax);
    out("MPI_Request q[4];");
    out("CALL(MPI_Recv_init)(rl, cnt, %s, left, tag, c, &q[0]);", DT(&m));
    out("CALL(MPI_Recv_init)(rr, cnt, %s, right, tag2, c, &q[1]);", DT(&m));
    out("CALL(MPI_Send_init)(sr, cnt, %s, right, tag, c, &q[2]);", DT(&m));
    out("CALL(MPI_Send_init)(sl, cnt, %s, left, tag2, c, &q[3]);", DT(&m));
    out("for (int k = 0; k < %d; k++) {", rounds);
    G.ind++;
    out("%s(sr, cnt, r, k);", FILL(&m));
    out("%s(sl, cnt, r, %d + k);", FILL(&m), TAG_DIR);
    if (startall)
        out("CALL(MPI_Startall)(4, q);");
    else
        out("for (int j = 0; j < 4; j++) CALL(MPI_Start)(&q[j]);");
    complete(style, "q", "4");
    out("%s(%d, rl, cnt, left, k);", CHK(&m), m.id);
    out("%s(%d, rr, cnt, right, %d + k);", CHK(&m), m.id, TAG_DIR);
    out("spin_(%d);", between(1, 10));
    G.ind--;
    out("}");
    out("for (int j = 0; j < 4; j++) CALL(MPI_Request_free)(&q[j]);");
    epilogue();
}

/* A ring shift whose receiver learns the message by probing first: Probe,
 * Iprobe polling, Mprobe or Improbe polling, from the left neighbour or
 * MPI_ANY_SOURCE (only the left one sends this tag), then Recv or Mrecv. */
static void c_probe(const ctx *c)
{
    inst m;
    new_inst(c, &m, 1);
    int how = rnd(4), anysrc = chance(50);
    static const char *const hn[] = {"probe", "iprobe", "mprobe", "improbe"};
    char what[160];
    snprintf(what, sizeof what, "probe: Isend right, %s from %s, then receive; comm %s", hn[how],
             anysrc ? "MPI_ANY_SOURCE" : "left", comm_name(m.comm));
    summary(" probe:%s%s", hn[how], anysrc ? ",any_source" : "");
    prologue(&m, what);
    out("int left = (r + n - 1) %% n, right = (r + 1) %% n;");
    out("int cnt = %s, tag = %s, got = -1;", m.cnt, m.tagx);
    out("static %s sb[%d], rb[%d];", T(&m), m.cntmax, m.cntmax);
    out("MPI_Request q;");
    out("MPI_Status st;");
    out("%s(sb, cnt, r, tag);", FILL(&m));
    out("CALL(MPI_Isend)(sb, cnt, %s, right, tag, c, &q);", DT(&m));
    const char *src = anysrc ? "MPI_ANY_SOURCE" : "left";
    if (how >= 2) out("MPI_Message msg;");
    if (how == 0) out("CALL(MPI_Probe)(%s, tag, c, &st);", src);
    if (how == 2) out("CALL(MPI_Mprobe)(%s, tag, c, &msg, &st);", src);
    if (how == 1 || how == 3) {
        out("for (int f = 0; !f;) {");
        if (how == 1)
            out("    CALL(MPI_Iprobe)(%s, tag, c, &f, &st);", src);
        else
            out("    CALL(MPI_Improbe)(%s, tag, c, &f, &msg, &st);", src);
        out("    if (!f) spin_(POLL_US);");
        out("}");
    }
    out("MPI_Get_count(&st, %s, &got);", DT(&m));
    out("if (got != cnt || st.MPI_SOURCE != left) bad_(%d, -1, got, cnt);", m.id);
    if (how >= 2)
        out("CALL(MPI_Mrecv)(rb, got, %s, &msg, &st);", DT(&m));
    else
        out("CALL(MPI_Recv)(rb, got, %s, st.MPI_SOURCE, tag, c, &st);", DT(&m));
    out("%s(%d, rb, cnt, left, tag);", CHK(&m), m.id);
    out("CALL(MPI_Wait)(&q, MPI_STATUS_IGNORE);");
    epilogue();
}

/* A sub-communicator made, used and freed where the motif runs (so inside
 * loops too): Comm_split (rank 0 possibly left out), Comm_dup, two
 * Comm_dup in a row, Comm_create or Comm_create_group from a group.
 * Ranks outside it skip the calls on it. */
static void c_subcomm(const ctx *c)
{
    inst m;
    new_inst(c, &m, 0);
    int how = rnd(5);
    static const char *const colors[] = {"r % 2", "r < n / 2 ? 0 : 1", "r == 0 ? MPI_UNDEFINED : 0", "0"};
    static const char *const keys[] = {"r", "n - r", "0"};
    static const char *const preds[] = {"w % 2 == 0", "w >= 1", "w < (n + 1) / 2", "w != n - 1 || n == 1"};
    int color = rnd(4), key = rnd(3), pred = rnd(4);
    int use_coll = chance(80), use_ring = chance(60), ibar = chance(25);
    char what[240];
    static const char *const hn[] = {"split", "dup", "dup2", "create", "create_group"};
    if (how == 0)
        snprintf(what, sizeof what, "subcomm: Comm_split color %s key %s", colors[color], keys[key]);
    else if (how == 1)
        snprintf(what, sizeof what, "subcomm: Comm_dup");
    else if (how == 2)
        snprintf(what, sizeof what, "subcomm: two Comm_dup in a row");
    else
        snprintf(what, sizeof what, "subcomm: %s of the ranks w with %s", how == 3 ? "Comm_create" : "Comm_create_group",
                 preds[pred]);
    snprintf(what + strlen(what), sizeof what - strlen(what), ", of comm %s", comm_name(m.comm));
    summary(" subcomm:%s", hn[how]);
    prologue(&m, what);
    out("MPI_Comm s = MPI_COMM_NULL, s2 = MPI_COMM_NULL;");
    out("static %s b1[%d], b2[%d];", T(&m), MAXR, MAXR);
    switch (how) {
    case 0:
        out("CALL(MPI_Comm_split)(c, %s, %s, &s);", colors[color], keys[key]);
        break;
    case 1:
        out("CALL(MPI_Comm_dup)(c, &s);");
        break;
    case 2:
        out("CALL(MPI_Comm_dup)(c, &s);");
        out("CALL(MPI_Comm_dup)(c, &s2);");
        break;
    default:
        out("MPI_Group g0, g1;");
        out("int mem[%d], nm = 0;", MAXR);
        out("CALL(MPI_Comm_group)(c, &g0);");
        out("for (int w = 0; w < n; w++)");
        out("    if (%s) mem[nm++] = w;", preds[pred]);
        out("CALL(MPI_Group_incl)(g0, nm, mem, &g1);");
        if (how == 3) {
            out("CALL(MPI_Comm_create)(c, g1, &s);");
        } else {
            out("int in = 0;");
            out("for (int k = 0; k < nm; k++) in |= mem[k] == r;");
            out("if (in) CALL(MPI_Comm_create_group)(c, g1, %d, &s);", m.tag);
        }
        out("if (g1 != MPI_GROUP_EMPTY) CALL(MPI_Group_free)(&g1);");
        out("CALL(MPI_Group_free)(&g0);");
        break;
    }
    out("for (int pass = 0; pass < 2; pass++) {");
    G.ind++;
    out("MPI_Comm u = pass ? s2 : s;");
    out("if (u == MPI_COMM_NULL) continue;");
    out("int ur, un;");
    out("MPI_Comm_rank(u, &ur);");
    out("MPI_Comm_size(u, &un);");
    if (use_coll) {
        int k = rnd(3);
        if (k == 0) {
            out("CALL(MPI_Barrier)(u);");
        } else if (k == 1) {
            out("b1[0] = (%s)(ur + 1);", T(&m));
            out("CALL(MPI_Allreduce)(b1, b2, 1, %s, MPI_SUM, u);", DT(&m));
            out("if (b2[0] != un * (un + 1) / 2) bad_(%d, 0, b2[0], un * (un + 1) / 2);", m.id);
        } else {
            out("if (ur == un - 1) %s(b1, 1, un, %d);", FILL(&m), m.id);
            out("CALL(MPI_Bcast)(b1, 1, %s, un - 1, u);", DT(&m));
            out("%s(%d, b1, 1, un, %d);", CHK(&m), m.id, m.id);
        }
    }
    if (use_ring) {
        out("%s(b1, 2, ur, %d);", FILL(&m), m.id);
        out("CALL(MPI_Sendrecv)(b1, 2, %s, (ur + 1) %% un, %d, b2, 2, %s, (ur + un - 1) %% un, %d, u, "
            "MPI_STATUS_IGNORE);", DT(&m), m.tag + 1, DT(&m), m.tag + 1);
        out("%s(%d, b2, 2, (ur + un - 1) %% un, %d);", CHK(&m), m.id, m.id);
    }
    if (ibar || (!use_coll && !use_ring)) {
        out("MPI_Request q;");
        out("CALL(MPI_Ibarrier)(u, &q);");
        out("CALL(MPI_Wait)(&q, MPI_STATUS_IGNORE);");
    }
    G.ind--;
    out("}");
    out("if (s != MPI_COMM_NULL) CALL(MPI_Comm_free)(&s);");
    out("if (s2 != MPI_COMM_NULL) CALL(MPI_Comm_free)(&s2);");
    epilogue();
}

/* computation: a busy wait of a few microseconds, longer on some ranks */
static void c_compute(const ctx *c)
{
    inst m;
    new_inst(c, &m, 0);
    int base = between(2, 30), extra = between(0, 20);
    char what[120];
    snprintf(what, sizeof what, "compute: %d + %d * (rank %% 3) microseconds", base, extra);
    summary(" compute");
    prologue(&m, what);
    out("spin_(%d + %d * (rank_ %% 3));", base, extra);
    epilogue();
}

/* ---- Fortran 90 motif writers (use mpi) ----
 * The subset: ring_nb, ring_block, halo, vcycle, pair, mw, coll, icoll,
 * persist, probe, subcomm, compute (no fanin, self, matched probes,
 * Comm_create_group, Testany/Testsome or v-collectives other than Gatherv
 * and Alltoallv). Every recorded call is preceded by `call tick(IX_...)`. */

static const char *FT(const inst *m) { return m->dbl ? "double precision" : "integer"; }
static const char *FDT(const inst *m) { return m->dbl ? "MPI_DOUBLE_PRECISION" : "MPI_INTEGER"; }
static const char *FFILL(const inst *m) { return m->dbl ? "fd" : "fi"; }
static const char *FCHK(const inst *m) { return m->dbl ? "cd" : "ci"; }
static const char *FEXP(const inst *m) { return m->dbl ? "ed" : "ei"; }

/* one counted call: `call tick(IX_MPI_X); call MPI_X(args, ierr)` */
static void fcall(const char *fn, const char *fmt, ...)
{
    char args[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    out("call tick(IX_%s); call %s(%s, ierr)", fn, fn, args);
}

/* as send_call; the draw is made with --sync too, so that the program is the same */
static const char *fsend(void)
{
    int ssend = chance(15);
    return G.sync || ssend ? "MPI_Ssend" : "MPI_Send";
}

/* C expressions of pick_count/pick_tag are valid Fortran too; roots differ */
static void fpick_root(const ctx *c, char *buf, size_t cap)
{
    if (c->itmax > 0 && chance(40))
        snprintf(buf, cap, "mod(it + %d, n)", between(0, 3));
    else
        snprintf(buf, cap, "mod(%d, n)", between(0, 7));
}

/* the subroutine's header and every scalar a motif may use (Fortran wants
 * declarations before statements); f_begin then sets c, r and n */
static void f_head(const inst *m, const char *what)
{
    out("");
    out("! %s", what);
    out("subroutine m%d(it)", m->id);
    G.ind++;
    out("integer, intent(in) :: it");
    out("integer :: c, r, n, ierr, k, w, idx, oc, todo, done, cnt, tag, tag2, root, left, right, lo, hi");
    out("integer :: p, to, from, nq, got, tt, tr, ts, total, s, s2, u, ur, un, g0, g1, nm, j, l, pass, ia, ib");
    out("integer :: st(MPI_STATUS_SIZE), q(8), idxs(8), sent(0:%d), mem(%d), sc(0:%d), ds(0:%d), rc(0:%d), "
        "dr(0:%d)", MAXR - 1, MAXR, MAXR - 1, MAXR - 1, MAXR - 1, MAXR - 1);
    out("logical :: fl");
}

static void f_begin(const inst *m)
{
    out("c = gc(%d)", m->comm);
    out("call MPI_Comm_rank(c, r, ierr)");
    out("call MPI_Comm_size(c, n, ierr)");
}

static void f_end(int id)
{
    G.ind--;
    out("end subroutine m%d", id);
}

static void fcomplete(int style, const char *nq)
{
    switch (style) {
    case W_ALL:
        fcall("MPI_Waitall", "%s, q, MPI_STATUSES_IGNORE", nq);
        break;
    case W_EACH:
        out("do k = 1, %s", nq);
        out("    call tick(IX_MPI_Wait); call MPI_Wait(q(k), MPI_STATUS_IGNORE, ierr)");
        out("end do");
        break;
    case W_ANY:
        out("do k = 1, %s", nq);
        out("    call tick(IX_MPI_Waitany); call MPI_Waitany(%s, q, idx, MPI_STATUS_IGNORE, ierr)", nq);
        out("end do");
        break;
    case W_SOME:
        out("todo = %s", nq);
        out("do while (todo > 0)");
        out("    call tick(IX_MPI_Waitsome); call MPI_Waitsome(%s, q, oc, idxs, MPI_STATUSES_IGNORE, ierr)", nq);
        out("    todo = todo - oc");
        out("end do");
        break;
    case W_TESTALL:
        out("do");
        out("    call tick(IX_MPI_Testall); call MPI_Testall(%s, q, fl, MPI_STATUSES_IGNORE, ierr)", nq);
        out("    if (fl) exit");
        out("    call spin(POLL_US)");
        out("end do");
        break;
    default:
        out("do k = 1, %s", nq);
        out("    do");
        out("        call tick(IX_MPI_Test); call MPI_Test(q(k), fl, MPI_STATUS_IGNORE, ierr)");
        out("        if (fl) exit");
        out("        call spin(POLL_US)");
        out("    end do");
        out("end do");
        break;
    }
}

static int fstyle(void) { return rnd(6); } /* W_ALL .. W_TEST: the Fortran subset */

static void f_ring_nb(const ctx *c)
{
    inst m;
    new_inst(c, &m, 1);
    int same = chance(30), anysrc = !same && chance(25), icoll = chance(25), style = fstyle();
    char what[200];
    snprintf(what, sizeof what, "ring_nb: %s, %s%s%s, comm %s", wname[style], same ? "same tags" : "two tags",
             anysrc ? ", any source" : "", icoll ? ", with Iallreduce" : "", comm_name(m.comm));
    summary(" ring_nb:%s%s%s%s", wname[style], same ? ",same_tag" : "", anysrc ? ",any_source" : "",
            icoll ? ",icoll" : "");
    f_head(&m, what);
    out("%s, save, asynchronous :: sr(%d), sl(%d), rl(%d), rr(%d)", FT(&m), m.cntmax, m.cntmax, m.cntmax,
        m.cntmax);
    f_begin(&m);
    out("left = mod(r + n - 1, n)");
    out("right = mod(r + 1, n)");
    out("cnt = %s", m.cnt);
    out("tag = %s", m.tagx);
    out("tag2 = tag%s", same ? "" : " + 50");
    out("ia = r + 1");
    out("call %s(sr, cnt, r, tag)", FFILL(&m));
    out("call %s(sl, cnt, r, tag + %d)", FFILL(&m), TAG_DIR);
    fcall("MPI_Irecv", "rl, cnt, %s, %s, tag, c, q(1)", FDT(&m), anysrc ? "MPI_ANY_SOURCE" : "left");
    fcall("MPI_Irecv", "rr, cnt, %s, right, tag2, c, q(2)", FDT(&m));
    fcall("MPI_Isend", "sr, cnt, %s, right, tag, c, q(3)", FDT(&m));
    fcall("MPI_Isend", "sl, cnt, %s, left, tag2, c, q(4)", FDT(&m));
    if (icoll) fcall("MPI_Iallreduce", "ia, ib, 1, MPI_INTEGER, MPI_SUM, c, q(5)");
    fcomplete(style, icoll ? "5" : "4");
    out("call %s(%d, rl, cnt, left, tag)", FCHK(&m), m.id);
    out("call %s(%d, rr, cnt, right, tag + %d)", FCHK(&m), m.id, TAG_DIR);
    if (icoll) out("if (ib /= n * (n + 1) / 2) call bad(%d, 0, dble(ib), dble(n * (n + 1) / 2))", m.id);
    f_end(m.id);
}

static void f_ring_block(const ctx *c)
{
    inst m;
    new_inst(c, &m, 1);
    int how = rnd(2), anysrc = chance(25);
    char what[160];
    snprintf(what, sizeof what, "ring_block: %s%s, comm %s", how ? "send/recv by parity" : "sendrecv",
             anysrc ? ", any source" : "", comm_name(m.comm));
    summary(" ring_block:%s%s", how ? "parity" : "sendrecv", anysrc ? ",any_source" : "");
    f_head(&m, what);
    out("%s, save :: sb(%d), rb(%d)", FT(&m), m.cntmax, m.cntmax);
    f_begin(&m);
    out("to = mod(r + 1, n)");
    out("from = mod(r + n - 1, n)");
    out("cnt = %s", m.cnt);
    out("tag = %s", m.tagx);
    out("call %s(sb, cnt, r, tag)", FFILL(&m));
    const char *src = anysrc ? "MPI_ANY_SOURCE" : "from";
    if (!how) {
        fcall("MPI_Sendrecv", "sb, cnt, %s, to, tag, rb, cnt, %s, %s, tag, c, st", FDT(&m), FDT(&m), src);
    } else {
        out("if (n == 1) then");
        out("    call tick(IX_MPI_Sendrecv); call MPI_Sendrecv(sb, cnt, %s, to, tag, rb, cnt, %s, %s, tag, c, st, "
            "ierr)", FDT(&m), FDT(&m), src);
        out("else if (mod(r, 2) == 0) then");
        const char *s1 = fsend(), *s2 = fsend();
        out("    call tick(IX_%s); call %s(sb, cnt, %s, to, tag, c, ierr)", s1, s1, FDT(&m));
        out("    call tick(IX_MPI_Recv); call MPI_Recv(rb, cnt, %s, %s, tag, c, st, ierr)", FDT(&m), src);
        out("else");
        out("    call tick(IX_MPI_Recv); call MPI_Recv(rb, cnt, %s, %s, tag, c, st, ierr)", FDT(&m), src);
        out("    call tick(IX_%s); call %s(sb, cnt, %s, to, tag, c, ierr)", s2, s2, FDT(&m));
        out("end if");
    }
    out("if (st(MPI_SOURCE) /= from) call bad(%d, -1, dble(st(MPI_SOURCE)), dble(from))", m.id);
    out("call %s(%d, rb, cnt, from, tag)", FCHK(&m), m.id);
    f_end(m.id);
}

static void f_halo(const ctx *c, int vcycle)
{
    inst m;
    new_inst(c, &m, !vcycle);
    int how = rnd(3), style = how == 1 ? (int[]){W_ALL, W_EACH, W_TESTALL}[rnd(3)] : fstyle();
    int levels = 0, top = 0;
    if (vcycle) {
        levels = between(3, 4);
        top = (int[]){16, 32, 64, 128}[rnd(4)];
        m.cntmax = top;
    }
    static const char *const hn[] = {"MPI_PROC_NULL edges", "edges skip their calls", "Sendrecv"};
    char what[200];
    snprintf(what, sizeof what, "%s: %s, %s, comm %s", vcycle ? "vcycle" : "halo", hn[how],
             how == 2 ? "" : wname[style], comm_name(m.comm));
    summary(" %s:%s%s%s", vcycle ? "vcycle" : "halo", how == 0 ? "procnull" : how == 1 ? "skip" : "sendrecv",
            how == 2 ? "" : ",", how == 2 ? "" : wname[style]);
    f_head(&m, what);
    out("%s, save, asynchronous :: slo(%d), shi(%d), rlo(%d), rhi(%d)", FT(&m), m.cntmax, m.cntmax, m.cntmax,
        m.cntmax);
    int nl = 2 * levels - 1;
    if (vcycle) {
        char lv[200] = "";
        for (int l = 0; l < nl; l++) {
            int d = l < levels ? l : nl - 1 - l;
            snprintf(lv + strlen(lv), sizeof lv - strlen(lv), "%s%d", l ? ", " : "", top >> d);
        }
        out("integer, parameter :: lv(%d) = [%s]", nl, lv);
    }
    f_begin(&m);
    out("lo = MPI_PROC_NULL");
    out("hi = MPI_PROC_NULL");
    out("if (r > 0) lo = r - 1");
    out("if (r + 1 < n) hi = r + 1");
    if (vcycle) {
        out("do l = 1, %d", nl);
        G.ind++;
        out("cnt = lv(l)");
    } else {
        out("do l = 1, 1");
        G.ind++;
        out("cnt = %s", m.cnt);
    }
    out("tag = %s", m.tagx);
    out("call %s(shi, cnt, r, tag)", FFILL(&m));
    out("call %s(slo, cnt, r, tag + %d)", FFILL(&m), TAG_DIR);
    if (how == 0) {
        fcall("MPI_Irecv", "rlo, cnt, %s, lo, tag, c, q(1)", FDT(&m));
        fcall("MPI_Irecv", "rhi, cnt, %s, hi, tag + %d, c, q(2)", FDT(&m), TAG_DIR);
        fcall("MPI_Isend", "shi, cnt, %s, hi, tag, c, q(3)", FDT(&m));
        fcall("MPI_Isend", "slo, cnt, %s, lo, tag + %d, c, q(4)", FDT(&m), TAG_DIR);
        fcomplete(style, "4");
    } else if (how == 1) {
        static const char *const calls[4][4] = {{"lo", "MPI_Irecv", "rlo", "tag"},
                                               {"hi", "MPI_Irecv", "rhi", "tag + 50"},
                                               {"hi", "MPI_Isend", "shi", "tag"},
                                               {"lo", "MPI_Isend", "slo", "tag + 50"}};
        out("nq = 0");
        for (int k = 0; k < 4; k++) {
            out("if (%s /= MPI_PROC_NULL) then", calls[k][0]);
            out("    nq = nq + 1");
            out("    call tick(IX_%s); call %s(%s, cnt, %s, %s, %s, c, q(nq), ierr)", calls[k][1], calls[k][1],
                calls[k][2], FDT(&m), calls[k][0], calls[k][3]);
            out("end if");
        }
        out("if (nq > 0) then");
        G.ind++;
        fcomplete(style, "nq");
        G.ind--;
        out("end if");
    } else {
        fcall("MPI_Sendrecv", "shi, cnt, %s, hi, tag, rlo, cnt, %s, lo, tag, c, MPI_STATUS_IGNORE", FDT(&m), FDT(&m));
        fcall("MPI_Sendrecv", "slo, cnt, %s, lo, tag + %d, rhi, cnt, %s, hi, tag + %d, c, MPI_STATUS_IGNORE",
              FDT(&m), TAG_DIR, FDT(&m), TAG_DIR);
    }
    out("if (lo /= MPI_PROC_NULL) call %s(%d, rlo, cnt, lo, tag)", FCHK(&m), m.id);
    out("if (hi /= MPI_PROC_NULL) call %s(%d, rhi, cnt, hi, tag + %d)", FCHK(&m), m.id, TAG_DIR);
    G.ind--;
    out("end do");
    f_end(m.id);
}

static void f_pair(const ctx *c)
{
    inst m;
    new_inst(c, &m, 1);
    int how = rnd(3);
    char what[160];
    static const char *const hn[] = {"r xor 1, lower rank sends first", "r xor 1, Sendrecv",
                                     "all pairs, rotating distance, tag + distance"};
    snprintf(what, sizeof what, "pair: %s, comm %s", hn[how], comm_name(m.comm));
    summary(" pair:%s", how == 0 ? "ordered" : how == 1 ? "sendrecv" : "allpairs");
    f_head(&m, what);
    out("%s, save :: sb(%d), rb(%d)", FT(&m), m.cntmax, m.cntmax);
    f_begin(&m);
    out("cnt = %s", m.cnt);
    out("tag = %s", m.tagx);
    if (how == 2) {
        out("do k = 1, n - 1");
        out("    to = mod(r + k, n)");
        out("    from = mod(r + n - k, n)");
        out("    call %s(sb, cnt, r, tag + k)", FFILL(&m));
        out("    call tick(IX_MPI_Sendrecv); call MPI_Sendrecv(sb, cnt, %s, to, tag + k, rb, cnt, %s, from, "
            "tag + k, c, MPI_STATUS_IGNORE, ierr)", FDT(&m), FDT(&m));
        out("    call %s(%d, rb, cnt, from, tag + k)", FCHK(&m), m.id);
        out("end do");
    } else {
        out("p = ieor(r, 1)");
        out("if (p < n) then");
        G.ind++;
        out("call %s(sb, cnt, r, tag)", FFILL(&m));
        if (how == 1) {
            fcall("MPI_Sendrecv", "sb, cnt, %s, p, tag, rb, cnt, %s, p, tag, c, MPI_STATUS_IGNORE", FDT(&m), FDT(&m));
        } else {
            const char *s1 = fsend(), *s2 = fsend();
            out("if (r < p) then");
            out("    call tick(IX_%s); call %s(sb, cnt, %s, p, tag, c, ierr)", s1, s1, FDT(&m));
            out("    call tick(IX_MPI_Recv); call MPI_Recv(rb, cnt, %s, p, tag, c, MPI_STATUS_IGNORE, ierr)", FDT(&m));
            out("else");
            out("    call tick(IX_MPI_Recv); call MPI_Recv(rb, cnt, %s, p, tag, c, MPI_STATUS_IGNORE, ierr)", FDT(&m));
            out("    call tick(IX_%s); call %s(sb, cnt, %s, p, tag, c, ierr)", s2, s2, FDT(&m));
            out("end if");
        }
        out("call %s(%d, rb, cnt, p, tag)", FCHK(&m), m.id);
        G.ind--;
        out("end if");
    }
    f_end(m.id);
}

static void f_mw(const ctx *c)
{
    inst m;
    new_inst(c, &m, 0);
    int a = between(1, 3), b = between(1, 3), how = rnd(3);
    static const char *const hn[] = {"Recv", "Irecv + Wait", "Probe + Recv"};
    static const char *const sn[] = {"recv", "irecv_wait", "probe"};
    char what[200];
    snprintf(what, sizeof what, "mw: worker w does %d + mod(w, %d) tasks; master takes results with %s from "
             "MPI_ANY_SOURCE, comm %s", a, b, hn[how], comm_name(m.comm));
    summary(" mw:%s", sn[how]);
    f_head(&m, what);
    out("%s, save :: task(%d), res(%d)", FT(&m), m.cntmax, m.cntmax);
    f_begin(&m);
    out("cnt = %s", m.cnt);
    out("tt = %d", m.tag);
    out("tr = %d", m.tag + 1);
    out("ts = %d", m.tag + 2);
    const char *s1 = fsend(), *s2 = fsend(), *s3 = fsend(), *s4 = fsend();
    out("if (r == 0) then");
    G.ind++;
    out("sent = 0");
    out("total = 0");
    out("do w = 1, n - 1");
    out("    total = total + %d + mod(w, %d)", a, b);
    out("    call %s(task, cnt, w, 0)", FFILL(&m));
    out("    call tick(IX_%s); call %s(task, cnt, %s, w, tt, c, ierr)", s1, s1, FDT(&m));
    out("    sent(w) = 1");
    out("end do");
    out("do k = 1, total");
    G.ind++;
    if (how == 0) {
        fcall("MPI_Recv", "res, cnt, %s, MPI_ANY_SOURCE, tr, c, st", FDT(&m));
    } else if (how == 1) {
        fcall("MPI_Irecv", "res, cnt, %s, MPI_ANY_SOURCE, tr, c, q(1)", FDT(&m));
        fcall("MPI_Wait", "q(1), st");
    } else {
        fcall("MPI_Probe", "MPI_ANY_SOURCE, tr, c, st");
        fcall("MPI_Recv", "res, cnt, %s, st(MPI_SOURCE), tr, c, st", FDT(&m));
    }
    out("w = st(MPI_SOURCE)");
    out("if (w < 1 .or. w >= n) call bad(%d, -1, dble(w), 1d0)", m.id);
    out("call %s(%d, res, cnt, w, sent(w))", FCHK(&m), m.id);
    out("call %s(task, cnt, w, sent(w))", FFILL(&m));
    out("if (sent(w) < %d + mod(w, %d)) then", a, b);
    out("    call tick(IX_%s); call %s(task, cnt, %s, w, tt, c, ierr)", s2, s2, FDT(&m));
    out("    sent(w) = sent(w) + 1");
    out("else");
    out("    call tick(IX_%s); call %s(task, cnt, %s, w, ts, c, ierr)", s3, s3, FDT(&m));
    out("end if");
    G.ind--;
    out("end do");
    G.ind--;
    out("else");
    G.ind++;
    out("done = 0");
    out("do");
    out("    call tick(IX_MPI_Recv); call MPI_Recv(task, cnt, %s, 0, MPI_ANY_TAG, c, st, ierr)", FDT(&m));
    out("    if (st(MPI_TAG) == ts) exit");
    out("    call %s(%d, task, cnt, r, done)", FCHK(&m), m.id);
    out("    call spin(%dd0 + 2 * r)", between(1, 6));
    out("    call %s(res, cnt, r, done + 1)", FFILL(&m));
    out("    call tick(IX_%s); call %s(res, cnt, %s, 0, tr, c, ierr)", s4, s4, FDT(&m));
    out("    done = done + 1");
    out("end do");
    G.ind--;
    out("end if");
    f_end(m.id);
}

/* the Fortran collectives: blocking and their nonblocking forms */
static const int fcolls[] = {C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_GATHER, C_GATHERV, C_SCATTER,
                             C_ALLGATHER, C_ALLTOALL, C_ALLTOALLV, C_REDSCAT_BLOCK, C_SCAN};

static void f_coll(const ctx *c, int nb)
{
    inst m;
    new_inst(c, &m, 1);
    int fam = fcolls[rnd((int)(sizeof fcolls / sizeof fcolls[0]))], wtest = nb && chance(40);
    char root[64], what[200], fn[64];
    fpick_root(c, root, sizeof root);
    snprintf(fn, sizeof fn, "MPI_%s%s", nb ? "I" : "", cname[fam]);
    if (nb) fn[5] = (char)(fn[5] - 'A' + 'a');
    snprintf(what, sizeof what, "%s: %s root %s%s, comm %s", nb ? "icoll" : "coll", fn, root,
             nb ? (wtest ? " (Test polling)" : " (Wait)") : "", comm_name(m.comm));
    summary(" %s:%s%s%s", nb ? "icoll" : "coll", cname[fam], strchr(root, 'i') ? ",rotating_root" : "",
            strchr(m.cnt, 'i') ? ",varying_count" : "");
    int room = MAXR * (m.cntmax + 3);
    f_head(&m, what);
    out("%s, save, asynchronous :: b1(%d), b2(%d)", FT(&m), room, room);
    f_begin(&m);
    out("cnt = %s", m.cnt);
    out("root = %s", root);
    const char *D = FDT(&m), *req = nb ? ", q(1)" : "";
    switch (fam) {
    case C_BARRIER:
        fcall(fn, "c%s", req);
        break;
    case C_BCAST:
        out("if (r == root) call %s(b1, cnt, root, %d)", FFILL(&m), m.id);
        fcall(fn, "b1, cnt, %s, root, c%s", D, req);
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
    case C_SCAN:
        out("do k = 0, cnt - 1");
        out("    b1(k + 1) = r + k");
        out("end do");
        fcall(fn, "b1, b2, cnt, %s, MPI_SUM, %sc%s", D, fam == C_REDUCE ? "root, " : "", req);
        break;
    case C_GATHER:
        out("call %s(b1, cnt, r, %d)", FFILL(&m), m.id);
        fcall(fn, "b1, cnt, %s, b2, cnt, %s, root, c%s", D, D, req);
        break;
    case C_ALLGATHER:
        out("call %s(b1, cnt, r, %d)", FFILL(&m), m.id);
        fcall(fn, "b1, cnt, %s, b2, cnt, %s, c%s", D, D, req);
        break;
    case C_GATHERV:
        out("k = 0");
        out("do w = 0, n - 1");
        out("    rc(w) = cnt + mod(w, 3)");
        out("    dr(w) = k");
        out("    k = k + rc(w)");
        out("end do");
        out("call %s(b1, cnt + mod(r, 3), r, %d)", FFILL(&m), m.id);
        fcall(fn, "b1, cnt + mod(r, 3), %s, b2, rc, dr, %s, root, c%s", D, D, req);
        break;
    case C_SCATTER:
        out("if (r == root) then");
        out("    do w = 0, n - 1");
        out("        call %s(b1(w * cnt + 1), cnt, w, %d)", FFILL(&m), m.id);
        out("    end do");
        out("end if");
        fcall(fn, "b1, cnt, %s, b2, cnt, %s, root, c%s", D, D, req);
        break;
    case C_ALLTOALL:
        out("do w = 0, n - 1");
        out("    call %s(b1(w * cnt + 1), cnt, r, %d * 16 + w)", FFILL(&m), m.id);
        out("end do");
        fcall(fn, "b1, cnt, %s, b2, cnt, %s, c%s", D, D, req);
        break;
    case C_ALLTOALLV:
        out("k = 0");
        out("j = 0");
        out("do w = 0, n - 1");
        out("    sc(w) = cnt + mod(r + w, 3)");
        out("    ds(w) = k");
        out("    k = k + sc(w)");
        out("    rc(w) = cnt + mod(r + w, 3)");
        out("    dr(w) = j");
        out("    j = j + rc(w)");
        out("    call %s(b1(ds(w) + 1), sc(w), r, %d * 16 + w)", FFILL(&m), m.id);
        out("end do");
        fcall(fn, "b1, sc, ds, %s, b2, rc, dr, %s, c%s", D, D, req);
        break;
    case C_REDSCAT_BLOCK:
        out("do k = 0, cnt * n - 1");
        out("    b1(k + 1) = r + k");
        out("end do");
        fcall(fn, "b1, b2, cnt, %s, MPI_SUM, c%s", D, req);
        break;
    }
    if (nb) {
        if (wtest) {
            out("do");
            out("    call tick(IX_MPI_Test); call MPI_Test(q(1), fl, MPI_STATUS_IGNORE, ierr)");
            out("    if (fl) exit");
            out("    call spin(POLL_US)");
            out("end do");
        } else {
            out("call spin(%dd0)", between(1, 10));
            fcall("MPI_Wait", "q(1), MPI_STATUS_IGNORE");
        }
    }
    switch (fam) {
    case C_BCAST:
        out("call %s(%d, b1, cnt, root, %d)", FCHK(&m), m.id, m.id);
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
        out("%scall %s(%d, b2, cnt, int(n * (n - 1) / 2, 8), int(n, 8))", fam == C_REDUCE ? "if (r == root) " : "",
            FEXP(&m), m.id);
        break;
    case C_SCAN:
        out("call %s(%d, b2, cnt, int(r * (r + 1) / 2, 8), int(r + 1, 8))", FEXP(&m), m.id);
        break;
    case C_GATHER:
    case C_ALLGATHER:
        out("if (%s) then", fam == C_GATHER ? "r == root" : ".true.");
        out("    do w = 0, n - 1");
        out("        call %s(%d, b2(w * cnt + 1), cnt, w, %d)", FCHK(&m), m.id, m.id);
        out("    end do");
        out("end if");
        break;
    case C_GATHERV:
        out("if (r == root) then");
        out("    do w = 0, n - 1");
        out("        call %s(%d, b2(dr(w) + 1), rc(w), w, %d)", FCHK(&m), m.id, m.id);
        out("    end do");
        out("end if");
        break;
    case C_SCATTER:
        out("call %s(%d, b2, cnt, r, %d)", FCHK(&m), m.id, m.id);
        break;
    case C_ALLTOALL:
        out("do w = 0, n - 1");
        out("    call %s(%d, b2(w * cnt + 1), cnt, w, %d * 16 + r)", FCHK(&m), m.id, m.id);
        out("end do");
        break;
    case C_ALLTOALLV:
        out("do w = 0, n - 1");
        out("    call %s(%d, b2(dr(w) + 1), rc(w), w, %d * 16 + r)", FCHK(&m), m.id, m.id);
        out("end do");
        break;
    case C_REDSCAT_BLOCK:
        out("call %s(%d, b2, cnt, int(n * (n - 1) / 2 + n * r * cnt, 8), int(n, 8))", FEXP(&m), m.id);
        break;
    default:
        break;
    }
    f_end(m.id);
}

static void f_persist(const ctx *c)
{
    inst m;
    new_inst(c, &m, 0);
    int same = chance(30), rounds = between(2, 5), startall = chance(60);
    int style = (int[]){W_ALL, W_EACH, W_TESTALL, W_ANY}[rnd(4)];
    char what[200];
    snprintf(what, sizeof what, "persist: Send_init/Recv_init to both neighbours%s, %d rounds of %s + %s, comm %s",
             same ? " (same tags)" : "", rounds, startall ? "Startall" : "Start", wname[style], comm_name(m.comm));
    summary(" persist:%s,%s%s", startall ? "startall" : "start", wname[style], same ? ",same_tag" : "");
    f_head(&m, what);
    out("%s, save, asynchronous :: sr(%d), sl(%d), rl(%d), rr(%d)", FT(&m), m.cntmax, m.cntmax, m.cntmax,
        m.cntmax);
    f_begin(&m);
    out("left = mod(r + n - 1, n)");
    out("right = mod(r + 1, n)");
    out("cnt = %s", m.cnt);
    out("tag = %s", m.tagx);
    out("tag2 = tag%s", same ? "" : " + 50");
    fcall("MPI_Recv_init", "rl, cnt, %s, left, tag, c, q(1)", FDT(&m));
    fcall("MPI_Recv_init", "rr, cnt, %s, right, tag2, c, q(2)", FDT(&m));
    fcall("MPI_Send_init", "sr, cnt, %s, right, tag, c, q(3)", FDT(&m));
    fcall("MPI_Send_init", "sl, cnt, %s, left, tag2, c, q(4)", FDT(&m));
    out("do l = 0, %d", rounds - 1);
    G.ind++;
    out("call %s(sr, cnt, r, l)", FFILL(&m));
    out("call %s(sl, cnt, r, %d + l)", FFILL(&m), TAG_DIR);
    if (startall) {
        fcall("MPI_Startall", "4, q");
    } else {
        out("do j = 1, 4");
        out("    call tick(IX_MPI_Start); call MPI_Start(q(j), ierr)");
        out("end do");
    }
    fcomplete(style, "4"); /* its loops run on k: the round is l */
    out("call %s(%d, rl, cnt, left, l)", FCHK(&m), m.id);
    out("call %s(%d, rr, cnt, right, %d + l)", FCHK(&m), m.id, TAG_DIR);
    out("call spin(%dd0)", between(1, 10));
    G.ind--;
    out("end do");
    out("do j = 1, 4");
    out("    call tick(IX_MPI_Request_free); call MPI_Request_free(q(j), ierr)");
    out("end do");
    f_end(m.id);
}

static void f_probe(const ctx *c)
{
    inst m;
    new_inst(c, &m, 1);
    int iprobe = chance(50), anysrc = chance(50);
    char what[160];
    snprintf(what, sizeof what, "probe: Isend right, %s from %s, then Recv; comm %s", iprobe ? "Iprobe" : "Probe",
             anysrc ? "MPI_ANY_SOURCE" : "left", comm_name(m.comm));
    summary(" probe:%s%s", iprobe ? "iprobe" : "probe", anysrc ? ",any_source" : "");
    f_head(&m, what);
    out("%s, save, asynchronous :: sb(%d), rb(%d)", FT(&m), m.cntmax, m.cntmax);
    f_begin(&m);
    out("left = mod(r + n - 1, n)");
    out("right = mod(r + 1, n)");
    out("cnt = %s", m.cnt);
    out("tag = %s", m.tagx);
    out("call %s(sb, cnt, r, tag)", FFILL(&m));
    fcall("MPI_Isend", "sb, cnt, %s, right, tag, c, q(1)", FDT(&m));
    const char *src = anysrc ? "MPI_ANY_SOURCE" : "left";
    if (iprobe) {
        out("do");
        out("    call tick(IX_MPI_Iprobe); call MPI_Iprobe(%s, tag, c, fl, st, ierr)", src);
        out("    if (fl) exit");
        out("    call spin(POLL_US)");
        out("end do");
    } else {
        fcall("MPI_Probe", "%s, tag, c, st", src);
    }
    out("call MPI_Get_count(st, %s, got, ierr)", FDT(&m));
    out("if (got /= cnt .or. st(MPI_SOURCE) /= left) call bad(%d, -1, dble(got), dble(cnt))", m.id);
    fcall("MPI_Recv", "rb, got, %s, st(MPI_SOURCE), tag, c, st", FDT(&m));
    out("call %s(%d, rb, cnt, left, tag)", FCHK(&m), m.id);
    fcall("MPI_Wait", "q(1), MPI_STATUS_IGNORE");
    f_end(m.id);
}

static void f_subcomm(const ctx *c)
{
    inst m;
    new_inst(c, &m, 0);
    int how = rnd(4);
    static const char *const colors[] = {"mod(r, 2)", "merge(0, 1, r < n / 2)", "merge(MPI_UNDEFINED, 0, r == 0)",
                                         "0"};
    static const char *const keys[] = {"r", "n - r", "0"};
    static const char *const preds[] = {"mod(w, 2) == 0", "w >= 1", "w < (n + 1) / 2", "w /= n - 1 .or. n == 1"};
    static const char *const hn[] = {"split", "dup", "dup2", "create"};
    int color = rnd(4), key = rnd(3), pred = rnd(4), k = rnd(3);
    char what[240];
    if (how == 0)
        snprintf(what, sizeof what, "subcomm: Comm_split color %s key %s", colors[color], keys[key]);
    else if (how == 1)
        snprintf(what, sizeof what, "subcomm: Comm_dup");
    else if (how == 2)
        snprintf(what, sizeof what, "subcomm: two Comm_dup in a row");
    else
        snprintf(what, sizeof what, "subcomm: Comm_create of the ranks w with %s", preds[pred]);
    snprintf(what + strlen(what), sizeof what - strlen(what), ", of comm %s", comm_name(m.comm));
    summary(" subcomm:%s", hn[how]);
    f_head(&m, what);
    out("%s, save :: b1(%d), b2(%d)", FT(&m), MAXR, MAXR);
    f_begin(&m);
    out("s = MPI_COMM_NULL");
    out("s2 = MPI_COMM_NULL");
    if (how == 0) {
        fcall("MPI_Comm_split", "c, %s, %s, s", colors[color], keys[key]);
    } else if (how <= 2) {
        fcall("MPI_Comm_dup", "c, s");
        if (how == 2) fcall("MPI_Comm_dup", "c, s2");
    } else {
        fcall("MPI_Comm_group", "c, g0");
        out("nm = 0");
        out("do w = 0, n - 1");
        out("    if (%s) then", preds[pred]);
        out("        nm = nm + 1");
        out("        mem(nm) = w");
        out("    end if");
        out("end do");
        fcall("MPI_Group_incl", "g0, nm, mem, g1");
        fcall("MPI_Comm_create", "c, g1, s");
        out("if (g1 /= MPI_GROUP_EMPTY) then");
        out("    call tick(IX_MPI_Group_free); call MPI_Group_free(g1, ierr)");
        out("end if");
        fcall("MPI_Group_free", "g0");
    }
    out("do pass = 0, 1");
    G.ind++;
    out("u = s");
    out("if (pass == 1) u = s2");
    out("if (u == MPI_COMM_NULL) cycle");
    out("call MPI_Comm_rank(u, ur, ierr)");
    out("call MPI_Comm_size(u, un, ierr)");
    if (k == 0) {
        fcall("MPI_Barrier", "u");
    } else if (k == 1) {
        out("b1(1) = ur + 1");
        fcall("MPI_Allreduce", "b1, b2, 1, %s, MPI_SUM, u", FDT(&m));
        out("if (b2(1) /= un * (un + 1) / 2) call bad(%d, 0, dble(b2(1)), dble(un * (un + 1) / 2))", m.id);
    } else {
        out("if (ur == un - 1) call %s(b1, 1, un, %d)", FFILL(&m), m.id);
        fcall("MPI_Bcast", "b1, 1, %s, un - 1, u", FDT(&m));
        out("call %s(%d, b1, 1, un, %d)", FCHK(&m), m.id, m.id);
    }
    out("call %s(b1, 2, ur, %d)", FFILL(&m), m.id);
    fcall("MPI_Sendrecv", "b1, 2, %s, mod(ur + 1, un), %d, b2, 2, %s, mod(ur + un - 1, un), %d, u, "
          "MPI_STATUS_IGNORE", FDT(&m), m.tag + 1, FDT(&m), m.tag + 1);
    out("call %s(%d, b2, 2, mod(ur + un - 1, un), %d)", FCHK(&m), m.id, m.id);
    G.ind--;
    out("end do");
    out("if (s /= MPI_COMM_NULL) then");
    out("    call tick(IX_MPI_Comm_free); call MPI_Comm_free(s, ierr)");
    out("end if");
    out("if (s2 /= MPI_COMM_NULL) then");
    out("    call tick(IX_MPI_Comm_free); call MPI_Comm_free(s2, ierr)");
    out("end if");
    f_end(m.id);
}

static void f_compute(const ctx *c)
{
    inst m;
    new_inst(c, &m, 0);
    int base = between(2, 30), extra = between(0, 20);
    char what[120];
    snprintf(what, sizeof what, "compute: %d + %d * mod(rank, 3) microseconds", base, extra);
    summary(" compute");
    f_head(&m, what);
    out("call spin(%dd0 + %d * mod(rank_, 3))", base, extra);
    f_end(m.id);
}

/* ---- the program's shape: loops around motif calls ---- */

static int pick_motif(void)
{
    int k = rnd(G.nallowed);
    for (int i = 0; i < M_COUNT; i++)
        if (G.allowed[i] && k-- == 0) return i;
    return M_COMPUTE;
}

/* writes the motif's function, returns its cost */
static int write_motif(int mo, const ctx *c)
{
    text *saved = G.cur;
    int ind = G.ind;
    G.cur = &G.fns;
    G.ind = 0;
    if (G.lang == 1) {
        switch (mo) {
        case M_RING_NB: f_ring_nb(c); break;
        case M_RING_BLOCK: f_ring_block(c); break;
        case M_HALO: f_halo(c, 0); break;
        case M_VCYCLE: f_halo(c, 1); break;
        case M_PAIR: f_pair(c); break;
        case M_MW: f_mw(c); break;
        case M_COLL: f_coll(c, 0); break;
        case M_ICOLL: f_coll(c, 1); break;
        case M_PERSIST: f_persist(c); break;
        case M_PROBE: f_probe(c); break;
        case M_SUBCOMM: f_subcomm(c); break;
        default: f_compute(c); break;
        }
        G.cur = saved;
        G.ind = ind;
        return minfo[mo].cost;
    }
    switch (mo) {
    case M_RING_NB: c_ring_nb(c); break;
    case M_RING_BLOCK: c_ring_block(c); break;
    case M_HALO: c_halo(c, 0); break;
    case M_VCYCLE: c_halo(c, 1); break;
    case M_PAIR: c_pair(c); break;
    case M_MW: c_mw(c); break;
    case M_FANIN: c_fanin(c); break;
    case M_SELF: c_self(c); break;
    case M_COLL: c_coll(c, 0); break;
    case M_ICOLL: c_coll(c, 1); break;
    case M_PERSIST: c_persist(c); break;
    case M_PROBE: c_probe(c); break;
    case M_SUBCOMM: c_subcomm(c); break;
    default: c_compute(c); break;
    }
    G.cur = saved;
    G.ind = ind;
    return minfo[mo].cost;
}

static void call_motif(int id, const char *arg)
{
    if (G.lang == 1)
        out("call m%d(%s)", id, arg);
    else
        out("m%d_(%s);", id, arg);
}

/* Writes a block of main() (depth 0) or of a loop body: calls and nested
 * loops. itvar/itmax: the innermost loop's variable and its largest value.
 * Returns what the block costs, never more than budget. */
static int write_block(int depth, const char *itvar, int itmax, int budget)
{
    int maxdepth = G.medium ? 3 : 2;
    int items = depth == 0 ? between(G.medium ? 5 : 3, G.medium ? 10 : 6) : between(1, 3);
    int used = 0;
    for (int k = 0; k < items && G.ninst < MAX_INST; k++) {
        int left = budget - used;
        if (left < 1) break;
        if (depth < maxdepth && left >= 4 && chance(depth == 0 ? 50 : 30)) {
            int trip = between(2, G.medium ? 10 : 6);
            if (left / trip < 1) trip = left;
            char var[16];
            snprintf(var, sizeof var, "i%d", depth + 1);
            if (G.lang == 1)
                out("do %s = 0, %d", var, trip - 1);
            else
                out("for (int %s = 0; %s < %d; %s++) {", var, var, trip, var);
            G.ind++;
            if (chance(35)) {
                int us = between(100, 400);
                if (G.lang == 1)
                    out("if (%s == 0) call spin(%dd0) ! cold start", var, us);
                else
                    out("if (%s == 0) spin_(%d); /* cold start */", var, us);
            }
            int body = write_block(depth + 1, var, trip - 1, left / trip);
            if (body == 0) {
                /* an empty body still makes a loop: some computation */
                ctx cx = {trip - 1};
                write_motif(M_COMPUTE, &cx);
                call_motif(G.ninst - 1, var);
                body = 1;
            }
            G.ind--;
            out(G.lang == 1 ? "end do" : "}");
            used += trip * body;
        } else {
            int mo = pick_motif();
            for (int tries = 0; tries < 8 && minfo[mo].cost > left; tries++) mo = pick_motif();
            if (minfo[mo].cost > left) break;
            ctx cx = {itvar ? itmax : 0};
            used += write_motif(mo, &cx);
            call_motif(G.ninst - 1, itvar ? itvar : "0");
        }
    }
    return used;
}

/* ---- the fixed parts of a C program ---- */

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void c_program(FILE *f, unsigned long long seed, int budget)
{
    G.cur = &G.body;
    G.ind = 1;
    int dup = chance(40), split = chance(40);
    G.ngcomm = 1 + dup + (dup && split);
    out("CALL(MPI_Init)(&argc, &argv);");
    out("MPI_Comm_rank(MPI_COMM_WORLD, &rank_);");
    out("MPI_Comm_size(MPI_COMM_WORLD, &size_);");
    out("if (size_ > %d) {", MAXR);
    out("    if (rank_ == 0) fprintf(stderr, \"randprog: at most %d ranks\\n\");", MAXR);
    out("    MPI_Abort(MPI_COMM_WORLD, 2);");
    out("}");
    out("gc_[0] = MPI_COMM_WORLD;");
    if (G.ngcomm > 1) out("CALL(MPI_Comm_dup)(MPI_COMM_WORLD, &gc_[1]);");
    if (G.ngcomm > 2) out("CALL(MPI_Comm_split)(MPI_COMM_WORLD, rank_ %% 2, rank_, &gc_[2]);");
    write_block(0, NULL, 0, budget);
    for (int k = G.ngcomm - 1; k >= 1; k--) out("CALL(MPI_Comm_free)(&gc_[%d]);", k);
    out("report_();");
    out("MPI_Finalize(); /* counted by report_() */");
    out("return 0;");

    const char *sorted[NFN];
    memcpy(sorted, fnames, sizeof sorted);
    qsort(sorted, NFN, sizeof sorted[0], cmp_name);

    fprintf(f, "/* Generated by randprog --seed %llu --lang c --size %s (perfskel tests/random).\n", seed,
            G.medium ? "medium" : "small");
    fprintf(f, " * Runs on 1..%d ranks; checks what it receives; prints its own call counts.\n", MAXR);
    fprintf(f, " * Build with -DRP_SYNC to make every blocking send an MPI_Ssend. */\n");
    fprintf(f, "/* randprog-motifs:%s */\n", G.summary.s ? G.summary.s : "");
    fprintf(f, "#include <mpi.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n");
    fprintf(f, "/* every recorded MPI function called, counted per rank (in name order) */\n");
    fprintf(f, "#define FUNCS(X)");
    for (int i = 0; i < NFN; i++) fprintf(f, "%s X(%s)", i % 4 == 0 ? " \\\n   " : "", sorted[i]);
    fprintf(f, "\n#define IX_(f) IX_##f,\n#define NAME_(f) #f,\n");
    fprintf(f, "enum { FUNCS(IX_) NFUNC_ };\n");
    fprintf(f, "static const char *const names_[NFUNC_] = { FUNCS(NAME_) };\n");
    fprintf(f, "static long long cnt_[NFUNC_ + 1]; /* + 1: the checksum */\n");
    fprintf(f, "#define CALL(f) (cnt_[IX_##f]++, f)\n");
    fprintf(f, "#ifdef RP_SYNC\n#define SEND_ CALL(MPI_Ssend)\n#else\n#define SEND_ CALL(MPI_Send)\n#endif\n\n");
    fprintf(f, "/* compute between two polls: a rank polling a descheduled peer (4 ranks on\n"
               " * 2 cores) would otherwise make thousands of calls per time slice */\n");
    fprintf(f, "#define POLL_US 10\n");
    fprintf(f, "static int rank_, size_;\n");
    fprintf(f, "static MPI_Comm gc_[3];\n");
    fprintf(f, "static long long sum_; /* of every value checked: the same in every run */\n\n");
    fprintf(f, "static inline void spin_(double us)\n{\n"
               "    double t0 = MPI_Wtime();\n"
               "    while ((MPI_Wtime() - t0) * 1e6 < us)\n"
               "        ;\n}\n\n");
    fprintf(f, "static void bad_(int site, int k, double got, double want)\n{\n"
               "    fprintf(stderr, \"randprog: rank %%d: wrong data in m%%d_ at %%d: %%g, expected %%g\\n\",\n"
               "            rank_, site, k, got, want);\n"
               "    MPI_Abort(MPI_COMM_WORLD, 3);\n}\n\n");
    fprintf(f, "/* the payload: a function of (sender, key, element) */\n");
    fprintf(f, "static int val_(int a, int b, int k) { return (a * 1009 + b * 37 + k * 3) %% 65521; }\n");
    fprintf(f, "static inline void fi_(int *x, int n, int a, int b) { for (int k = 0; k < n; k++) x[k] = val_(a, b, k); }\n");
    fprintf(f, "static inline void fd_(double *x, int n, int a, int b) { for (int k = 0; k < n; k++) x[k] = val_(a, b, k) + 0.5; }\n");
    fprintf(f, "static inline void ci_(int s, const int *x, int n, int a, int b)\n{\n"
               "    for (int k = 0; k < n; k++) {\n"
               "        if (x[k] != val_(a, b, k)) bad_(s, k, x[k], val_(a, b, k));\n"
               "        sum_ += x[k];\n    }\n}\n");
    fprintf(f, "static inline void cd_(int s, const double *x, int n, int a, int b)\n{\n"
               "    for (int k = 0; k < n; k++) {\n"
               "        if (x[k] != val_(a, b, k) + 0.5) bad_(s, k, x[k], val_(a, b, k) + 0.5);\n"
               "        sum_ += (long long)x[k];\n    }\n}\n");
    fprintf(f, "/* reductions: element k must be base + step * k */\n");
    fprintf(f, "static inline void ei_(int s, const int *x, int n, long long base, long long step)\n{\n"
               "    for (int k = 0; k < n; k++) {\n"
               "        if (x[k] != base + step * k) bad_(s, k, x[k], (double)(base + step * k));\n"
               "        sum_ += x[k];\n    }\n}\n");
    fprintf(f, "static inline void ed_(int s, const double *x, int n, long long base, long long step)\n{\n"
               "    for (int k = 0; k < n; k++) {\n"
               "        if (x[k] != (double)(base + step * k)) bad_(s, k, x[k], (double)(base + step * k));\n"
               "        sum_ += (long long)x[k];\n    }\n}\n\n");
    fprintf(f, "/* Gathers every rank's counts on rank 0, which prints the checksum and\n"
               " * `expect <rank> <function> <count>` lines; counts its own MPI_Gather and\n"
               " * the MPI_Finalize that must follow. */\n");
    fprintf(f, "static void report_(void)\n{\n"
               "    static long long all[%d * (NFUNC_ + 1)];\n"
               "    cnt_[IX_MPI_Gather]++;\n"
               "    cnt_[IX_MPI_Finalize]++;\n"
               "    cnt_[NFUNC_] = sum_;\n"
               "    MPI_Gather(cnt_, NFUNC_ + 1, MPI_LONG_LONG, all, NFUNC_ + 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);\n"
               "    if (rank_ != 0) return;\n"
               "    long long sum = 0;\n"
               "    for (int r = 0; r < size_; r++) sum += all[r * (NFUNC_ + 1) + NFUNC_];\n"
               "    printf(\"randprog checksum %%lld\\n\", sum);\n"
               "    for (int r = 0; r < size_; r++)\n"
               "        for (int i = 0; i < NFUNC_; i++)\n"
               "            if (all[r * (NFUNC_ + 1) + i])\n"
               "                printf(\"expect %%d %%s %%lld\\n\", r, names_[i], all[r * (NFUNC_ + 1) + i]);\n"
               "    fflush(stdout);\n}\n",
            MAXR);
    fwrite(G.fns.s ? G.fns.s : "", 1, G.fns.len, f);
    fprintf(f, "\nint main(int argc, char **argv)\n{\n");
    fwrite(G.body.s, 1, G.body.len, f);
    fprintf(f, "}\n");
}

static void f_program(FILE *f, unsigned long long seed, int budget)
{
    G.cur = &G.body;
    G.ind = 1;
    int dup = chance(40), split = chance(40);
    G.ngcomm = 1 + dup + (dup && split);
    out("call tick(IX_MPI_Init); call MPI_Init(ierr)");
    out("call MPI_Comm_rank(MPI_COMM_WORLD, rank_, ierr)");
    out("call MPI_Comm_size(MPI_COMM_WORLD, size_, ierr)");
    out("if (size_ > %d) then", MAXR);
    out("    if (rank_ == 0) write (0, '(A)') 'randprog: at most %d ranks'", MAXR);
    out("    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)");
    out("end if");
    out("gc(0) = MPI_COMM_WORLD");
    if (G.ngcomm > 1) fcall("MPI_Comm_dup", "MPI_COMM_WORLD, gc(1)");
    if (G.ngcomm > 2) fcall("MPI_Comm_split", "MPI_COMM_WORLD, mod(rank_, 2), rank_, gc(2)");
    write_block(0, NULL, 0, budget);
    for (int k = G.ngcomm - 1; k >= 1; k--) fcall("MPI_Comm_free", "gc(%d)", k);
    out("call report()");
    out("call MPI_Finalize(ierr) ! counted by report()");

    const char *sorted[NFN];
    memcpy(sorted, fnames, sizeof sorted);
    qsort(sorted, NFN, sizeof sorted[0], cmp_name);

    fprintf(f, "! Generated by randprog --seed %llu --lang f90 --size %s%s (perfskel tests/random).\n", seed,
            G.medium ? "medium" : "small", G.sync ? " --sync" : "");
    fprintf(f, "! Runs on 1..%d ranks; checks what it receives; prints its own call counts.\n", MAXR);
    fprintf(f, "! Fortran motifs: ring_nb, ring_block, halo, vcycle, pair, mw, coll, icoll, persist,\n"
               "! probe, subcomm, compute (not fanin, self, Mprobe/Mrecv, Comm_create_group, Testany,\n"
               "! Testsome). Build with -ffree-line-length-none.\n");
    fprintf(f, "! randprog-motifs:%s\n", G.summary.s ? G.summary.s : "");
    fprintf(f, "module rp\n    use mpi\n    implicit none\n");
    fprintf(f, "    integer, parameter :: NF = %d\n", NFN);
    fprintf(f, "    double precision, parameter :: POLL_US = 10d0 ! compute between two polls\n");
    for (int i = 0; i < NFN; i++) fprintf(f, "    integer, parameter :: IX_%s = %d\n", sorted[i], i + 1);
    fprintf(f, "    character(len=28), parameter :: names(NF) = [character(len=28) ::");
    for (int i = 0; i < NFN; i++)
        fprintf(f, "%s%s '%s'", i ? "," : "", i % 4 == 0 ? " &\n        " : "", sorted[i]);
    fprintf(f, "]\n");
    fprintf(f, "    integer(8) :: cnt_(NF + 1) = 0 ! + 1: the checksum\n");
    fprintf(f, "    integer :: rank_, size_, gc(0:2)\n");
    fprintf(f, "    integer(8) :: sum_ = 0 ! of every value checked: the same in every run\n");
    fprintf(f, "contains\n\n");
    fprintf(f, "subroutine tick(i)\n    integer, intent(in) :: i\n    cnt_(i) = cnt_(i) + 1\nend subroutine tick\n\n");
    fprintf(f, "subroutine spin(us)\n    double precision, intent(in) :: us\n    double precision :: t0\n"
               "    t0 = MPI_Wtime()\n    do while ((MPI_Wtime() - t0) * 1d6 < us)\n    end do\nend subroutine spin\n\n");
    fprintf(f, "subroutine bad(site, k, got, want)\n    integer, intent(in) :: site, k\n"
               "    double precision, intent(in) :: got, want\n    integer :: ierr\n"
               "    write (0, '(A,I0,A,I0,A,I0,A,G0,A,G0)') 'randprog: rank ', rank_, ': wrong data in m', site, "
               "' at ', k, ': ', got, ', expected ', want\n"
               "    call MPI_Abort(MPI_COMM_WORLD, 3, ierr)\nend subroutine bad\n\n");
    fprintf(f, "! the payload: a function of (sender, key, element)\n");
    fprintf(f, "integer function val(a, b, k)\n    integer, intent(in) :: a, b, k\n"
               "    val = mod(a * 1009 + b * 37 + k * 3, 65521)\nend function val\n\n");
    static const char *const ty[2] = {"integer", "double precision"};
    for (int d = 0; d < 2; d++) {
        const char *conv = d ? " + 0.5d0" : "";
        fprintf(f, "subroutine f%c(x, n, a, b)\n    %s :: x(*)\n    integer, intent(in) :: n, a, b\n"
                   "    integer :: k\n    do k = 0, n - 1\n        x(k + 1) = val(a, b, k)%s\n    end do\n"
                   "end subroutine f%c\n\n", d ? 'd' : 'i', ty[d], conv, d ? 'd' : 'i');
        fprintf(f, "subroutine c%c(s, x, n, a, b)\n    %s, intent(in) :: x(*)\n    integer, intent(in) :: s, n, a, b\n"
                   "    integer :: k\n    do k = 0, n - 1\n"
                   "        if (x(k + 1) /= val(a, b, k)%s) call bad(s, k, dble(x(k + 1)), dble(val(a, b, k)%s))\n"
                   "        sum_ = sum_ + int(x(k + 1), 8)\n    end do\nend subroutine c%c\n\n",
                d ? 'd' : 'i', ty[d], conv, conv, d ? 'd' : 'i');
        fprintf(f, "! reductions: element k must be base + step * k\n");
        fprintf(f, "subroutine e%c(s, x, n, base, step)\n    %s, intent(in) :: x(*)\n    integer, intent(in) :: s, n\n"
                   "    integer(8), intent(in) :: base, step\n    integer :: k\n    do k = 0, n - 1\n"
                   "        if (x(k + 1) /= base + step * k) call bad(s, k, dble(x(k + 1)), dble(base + step * k))\n"
                   "        sum_ = sum_ + int(x(k + 1), 8)\n    end do\nend subroutine e%c\n\n",
                d ? 'd' : 'i', ty[d], d ? 'd' : 'i');
    }
    fprintf(f, "! Gathers every rank's counts on rank 0, which prints the checksum and\n"
               "! `expect <rank> <function> <count>` lines; counts its own MPI_Gather and\n"
               "! the MPI_Finalize that must follow.\n");
    fprintf(f, "subroutine report()\n    integer(8), allocatable :: all(:)\n    integer(8) :: total\n"
               "    integer :: r, i, ierr\n"
               "    cnt_(IX_MPI_Gather) = cnt_(IX_MPI_Gather) + 1\n"
               "    cnt_(IX_MPI_Finalize) = cnt_(IX_MPI_Finalize) + 1\n"
               "    cnt_(NF + 1) = sum_\n"
               "    allocate (all((NF + 1) * size_))\n"
               "    call MPI_Gather(cnt_, NF + 1, MPI_INTEGER8, all, NF + 1, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)\n"
               "    if (rank_ /= 0) return\n"
               "    total = 0\n"
               "    do r = 0, size_ - 1\n        total = total + all(r * (NF + 1) + NF + 1)\n    end do\n"
               "    write (*, '(A,I0)') 'randprog checksum ', total\n"
               "    do r = 0, size_ - 1\n        do i = 1, NF\n"
               "            if (all(r * (NF + 1) + i) /= 0) write (*, '(A,I0,A,A,A,I0)') 'expect ', r, ' ', "
               "trim(names(i)), ' ', all(r * (NF + 1) + i)\n"
               "        end do\n    end do\n    flush (6)\nend subroutine report\n");
    fwrite(G.fns.s ? G.fns.s : "", 1, G.fns.len, f);
    fprintf(f, "\nend module rp\n\nprogram randprog_main\n    use rp\n    implicit none\n"
               "    integer :: ierr, i1, i2, i3\n");
    fwrite(G.body.s, 1, G.body.len, f);
    fprintf(f, "end program randprog_main\n");
}

/* ---- command line ---- */

static void usage(void)
{
    fprintf(stderr, "usage: randprog --seed N [--lang c|f90] [--size small|medium] [--motifs a,b,...] [--sync] -o FILE\n"
                    "motifs:");
    for (int i = 0; i < M_COUNT; i++) fprintf(stderr, " %s", minfo[i].name);
    fprintf(stderr, "\n");
    exit(2);
}

int main(int argc, char **argv)
{
    unsigned long long seed = 0;
    int have_seed = 0;
    const char *outp = NULL, *only = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--seed") && v) {
            char *end;
            seed = strtoull(v, &end, 10);
            if (*end || !*v) usage();
            have_seed = 1, i++;
        } else if (!strcmp(a, "--lang") && v) {
            if (!strcmp(v, "c")) G.lang = 0;
            else if (!strcmp(v, "f90")) G.lang = 1;
            else usage();
            i++;
        } else if (!strcmp(a, "--size") && v) {
            if (!strcmp(v, "small")) G.medium = 0;
            else if (!strcmp(v, "medium")) G.medium = 1;
            else usage();
            i++;
        } else if (!strcmp(a, "--sync")) {
            G.sync = 1;
        } else if (!strcmp(a, "--motifs") && v) {
            only = v, i++;
        } else if (!strcmp(a, "-o") && v) {
            outp = v, i++;
        } else {
            usage();
        }
    }
    if (!have_seed || !outp) usage();
    rng_seed(seed);

    /* the seed's subset of motifs: each kind with probability 1/2 (at
     * least two), or the ones named */
    for (int i = 0; i < M_COUNT; i++) {
        int on;
        if (only) {
            const char *p = strstr(only, minfo[i].name);
            size_t len = strlen(minfo[i].name);
            on = 0;
            while (p) {
                if ((p == only || p[-1] == ',') && (p[len] == ',' || p[len] == 0)) on = 1;
                p = strstr(p + 1, minfo[i].name);
            }
        } else {
            on = chance(50);
        }
        if (G.lang == 1 && !minfo[i].f90) on = 0;
        G.allowed[i] = on;
        G.nallowed += on;
    }
    while (!only && G.nallowed < 2) {
        int i = rnd(M_COUNT);
        if (!G.allowed[i] && (G.lang == 0 || minfo[i].f90)) G.allowed[i] = 1, G.nallowed++;
    }
    if (G.nallowed == 0) die("--motifs names no known motif");

    FILE *f = fopen(outp, "w");
    if (!f) die("cannot write the output file");
    if (G.lang == 1)
        f_program(f, seed, G.medium ? 160 : 45);
    else
        c_program(f, seed, G.medium ? 160 : 45);
    if (fclose(f) != 0) die("writing the output file failed");
    return 0;
}
