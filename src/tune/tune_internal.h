/* Internals of the tuning library (libperfskel-tune-*.so), shared by its
 * files: the per-communicator state (tune_comm.c), call sites (tune_site.c),
 * the arms' table (tune_arms.c) and each collective's arms
 * (tune_alltoall.c, tune_bcast.c, tune_allreduce.c, tune_allgather.c, with
 * packing in tune_pack.c), the dispatch (tune_core.c) and its memo of
 * calls (tune_memo.c), the policies' groups and windows (tune_group.c,
 * tune_plan.c), the learner (tune_learn.c, with tune_stats.c,
 * tune_prior.c and tune_agree.c) and STAR-MPI's policy
 * (tune_star.c), the cost model (tune_model.c), the decision file
 * (tune_db.c; its lines and the arms' names, which the CLI shares, in
 * tune_dbline.c and tune_names.c: tune_dbline.h), the report
 * (tune_report.c) and the MPI entry points
 * (tune_wrap.c). Everything here is hidden in the
 * shared library; only the MPI_* and Fortran entry points are exported.
 * Invariant: every choice that makes ranks communicate differently (the arm,
 * whether a private communicator or scratch memory is ready, the learner's
 * windows) is a function of data identical on every rank of the
 * communicator, or is agreed on by a collective first, so that a failure on
 * one rank sends all to native. */
#ifndef PSK_TUNE_INTERNAL_H
#define PSK_TUNE_INTERNAL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "perfskel/tune.h"
#include "tune_dbline.h" /* the arms' names, a decision file's line */

#define PSK_EXPORT __attribute__((visibility("default")))

/* results of an arm besides MPI error codes (all negative, never an MPI code) */
#define PSK_TUNE_SKIP (-1001)     /* the arm does not apply to this call */
#define PSK_TUNE_FALLBACK (-1002) /* set-up failed on some rank: nothing ran */

/* a call site: module (its base name) and offset of the return address in
 * it, the same on every rank running the same binary, whatever ASLR did */
typedef struct psk_tune_site {
    uint64_t id; /* hash of module name and offset */
    uintptr_t offset;
    const char *module; /* interned, lives as long as the process */
} psk_tune_site;

/* statistics of one arm under one key, for the learner */
typedef struct psk_tune_armstat {
    uint32_t calls; /* timed: every call under a fixed arm or cycle, the
                     * learner's sampled ones (its groups count them all) */
    uint32_t min_ns;
    uint64_t sum_ns;
} psk_tune_armstat;

/* a key: (communicator, call site, collective, size class) */
typedef struct psk_tune_key {
    uint64_t site; /* psk_tune_site.id; 0 marks a free slot */
    const psk_tune_site *where;
    int coll;   /* enum psk_tune_coll */
    int sclass; /* floor(log2(bytes)), -1 for 0 bytes (psk_tune_args.bytes) */
    uint64_t calls;
    psk_tune_armstat arm[PSK_TUNE_NARMS];
} psk_tune_key;

/* ---- the policies' state (tune_group.c and the learner's files) ---- */

#define PSK_TUNE_NHIST 16  /* decision changes kept per group */
#define PSK_TUNE_MAXGROUPS 64 /* per communicator; more go native */
#define PSK_TUNE_STAR_XMAX 40 /* STAR's trials per arm at most */

/* one arm inside a group: agreed by every rank (max-reduced times) */
typedef struct psk_tune_arml {
    uint64_t calls;   /* calls that took it */
    uint64_t explore; /* of which it was not the incumbent */
    double time;      /* sum of their times (slowest rank), ns */
    uint32_t trials;  /* samples since the last reset */
    uint8_t n, pos;   /* samples held, next to overwrite */
    float x[PSK_TUNE_NSAMP]; /* latest per-call times, ns */
    uint8_t rn, rpos;
    float r[PSK_TUNE_NSAMP]; /* latest log ratios to the incumbent's paired call */
    double tuned;     /* STAR: its tuned time, ns */
    uint64_t dropped; /* call index (+1) of its elimination, 0 if not */
    float drop_ratio; /* its median log ratio to the incumbent then */
    float drop_inc;   /* the incumbent's time per call then, ns (0: not known) */
} psk_tune_arml;

typedef struct psk_tune_change {
    uint64_t call; /* the group's call index from which it holds */
    int8_t from, to;
    uint8_t why; /* enum psk_tune_why */
} psk_tune_change;

/* a group's phase */
enum psk_tune_phase { PH_NATIVE0, PH_EXPLORE, PH_MONITOR, PH_STAR_LEARN, PH_STAR_MON };

enum psk_tune_why { WHY_START, WHY_WARM, WHY_EXPLORE, WHY_CHANGE, WHY_STAR_LEARN, WHY_STAR_SWITCH };

/* A group: the calls of one collective and size class on one
 * communicator (under STAR, one exact size), the unit the learner decides
 * for. Every rank sees the
 * same calls in the same order in it, whatever call site each rank's
 * program uses; sites are kept per rank (psk_tune_key) and checked. */
typedef struct psk_tune_group {
    int coll; /* enum psk_tune_coll */
    int sclass;
    size_t bytes; /* STAR: the exact bytes per peer; else 0 */
    int phase;
    uint64_t calls;
    double bytes_sum;
    int inplace; /* the last call's */
    /* the window: slots of calls, each planned on one arm; one call in
     * `stride` timed (a power of two; tune_plan.c) */
    int nslot, slot, inslot, cap, sum_extra, stride;
    uint8_t *sarm, *smixed;
    int16_t *spair; /* exploring: the incumbent's slot a probe is paired with */
    uint32_t *scalls;
    double *st; /* local sums per slot, then the reduce buffer */
    double *sw; /* the same with each call cut at wcap (the change detector's) */
    double wcap; /* WCLIP x the baseline, agreed; infinite without one */
    uint64_t wsite;
    double ar_local; /* this rank's last decision allreduce, ns */
    double ar_cost;  /* agreed: what one costs (the median of the last 8) */
    float ars[8];    /* agreed: the last 8, ns */
    uint32_t nars;
    /* decisions */
    int inc, runner, inc_before;
    int first; /* the candidate to probe first: a seed's arm, the runner-up */
    uint32_t active; /* arms still being compared (bits) */
    double pred[PSK_TUNE_NARMS], kappa, sigma; /* sigma: of a log ratio */
    psk_tune_arml arm[PSK_TUNE_NARMS];
    double total;      /* agreed time of all calls, ns */
    /* the report's comparison with native (tune_report.c): the group's
     * first slot (its cold calls, whatever arm), and native's later slots
     * unmixed: calls, time, sum of time^2 / calls (a slot's mean per call
     * squared, weighted by its calls), slots */
    double cold_ns, nat_k, nat_t, nat_t2;
    uint32_t cold_calls, nat_slots;
    int cold_seen;
    double overhead;   /* probes' time beyond the incumbent's, ns */
    double decide_ns;  /* decision allreduces (slowest rank), ns */
    double setup_ns;   /* this rank's set-up at the group's first call (the
                        * communicator's too for its first group), ns */
    double explore_ar; /* of which while exploring */
    double credit;     /* what changes for the worse cost: exploring may spend it */
    uint64_t decisions;
    uint64_t alarms;          /* changes detected */
    uint64_t explore_initial; /* exploring calls before the first change detected */
    double base, sp, sn, h; /* monitoring: baseline, CUSUMs, threshold */
    double noise;           /* the incumbent's spread of log time per call */
    double alarm_base;      /* the baseline when the last change was detected */
    double alarm_now;       /* the incumbent's level then (its last three slots); 0 once used */
    int warmup;             /* a warm start's windows before its baseline (its own) */
    int change_inc;         /* the incumbent when the last change was detected */
    int back_arm;           /* exploring after a change: the one before that change's */
    int probe_every, probe_wait, nmon;
    int waiting; /* exploring, but no probe paid for this window */
    int flushed; /* the end: its unfinished window is in the figures */
    int settled; /* it has monitored a decision: the file may have it */
    int star_factor;
    int origin, seed_arm; /* enum psk_tune_origin; the arm it brought */
    double db_native_ns;
    /* what earlier runs of the job spent on it (the decision file's state):
     * the budget and the few-calls rule count them */
    uint64_t prev_calls;
    double prev_total, prev_spent;
    /* the calls the gate held native before the group was set up, and
     * their time (the slowest rank's estimate at its last check): the
     * budget and the decision file count them, the comparison with
     * native does not */
    uint64_t gate_calls;
    double gate_ns;
    int sites_differ;
    psk_tune_change hist[PSK_TUNE_NHIST];
    int nhist;
    uint64_t nchanges;
} psk_tune_group;

enum psk_tune_origin { ORIGIN_NONE, ORIGIN_WARM, ORIGIN_SEED, ORIGIN_SEED_DB, ORIGIN_NEIGHBOUR, ORIGIN_RESUME };

/* the learning gate (tune_gate.c): a group's calls before it is set up */
#define PSK_TUNE_NCLASS 64 /* size classes: floor(log2(bytes)), bytes > 0 */
enum psk_tune_gate_state { GATE_SHUT, GATE_ASKING, GATE_OPEN, GATE_NEVER };
typedef struct psk_tune_pend {
    uint32_t calls;   /* made so far: the same count on every rank */
    uint32_t timed;   /* of which timed */
    uint32_t check;   /* the next check after this many calls (0: not used yet) */
    int state;        /* enum psk_tune_gate_state; GATE_NEVER: a check failed, native for good */
    int coll, sclass;
    const struct psk_tune_site *site; /* this rank's first call's */
    double ns;        /* this rank's time of the timed calls */
    double buf[8];    /* the check's reduce (in place, maxima): the calls' time, the time a set-up
                       * needs, this host's name as chunks and negated (tune_agree.c) */
    double agreed_ns; /* the slowest rank's estimate of the calls' time at the last check */
    uint32_t agreed_calls; /* the calls it was of */
    int one_host;     /* every rank on one host (the last check said): the decision file's machine */
    MPI_Request req;
} psk_tune_pend;

typedef struct psk_tune_comm {
    int rank, size, inter;
    unsigned id; /* in order of first use on this rank, for the report */
    struct psk_tune_comm *next;
    /* the rest is agreed by all ranks (set-up and growth are collective) */
    int ready;          /* priv and reqs exist on every rank */
    MPI_Comm priv;      /* the arms' own traffic, never the user's */
    MPI_Request *reqs;  /* 2 * size */
    char *scratch;      /* packed blocks */
    size_t scratch_cap; /* bytes every rank has */
    size_t scratch_have;
    uint64_t ncycle[PSK_TUNE_NCOLL]; /* calls of each since ready (PSK_TUNE_FORCE=cycle) */
    /* the learner: 0 not set up, 1 on, -1 off (agreed) */
    int learn;
    int single_node;         /* every rank on one host */
    char machine[80];        /* the machine's name in the decision file */
    double alpha0, beta0;    /* the model's prior, ns and ns per byte */
    psk_tune_group **groups; /* in order of first call */
    int ngroups;
    /* the learning gate: per collective, PSK_TUNE_NCLASS entries made at
     * first use */
    psk_tune_pend *pend[PSK_TUNE_NCOLL];
    /* keys, open addressing; not agreed (sites may differ between ranks) */
    psk_tune_key *keys;
    size_t nkeys, capkeys;
} psk_tune_comm;

/* one call of a collective, as the arms see it: the arguments as given
 * (bcast: buf, count, type in rbuf, rcount, rtype), then what prepare
 * derives from them */
typedef struct psk_tune_args {
    int coll; /* enum psk_tune_coll */
    const void *sbuf;
    int scount;
    MPI_Datatype stype;
    void *rbuf;
    int rcount;
    MPI_Datatype rtype;
    MPI_Op op; /* allreduce */
    int root;  /* bcast */
    MPI_Comm comm;
    /* the size the arms and the size classes go by, the same on every
     * rank: alltoall and allgather a block (per peer), bcast and allreduce
     * the whole buffer */
    size_t bytes;
    int inplace;
    int contig; /* bcast, allreduce: the buffer is its bytes, no packing */
    MPI_Aint sext, rext;
} psk_tune_args;

/* ---- tune_comm.c ---- */
/* the attribute key of the states; 0, or -1 if MPI refused it */
int psk_tune_comm_init(void);
/* the state of comm, made on first use; NULL if it cannot be had */
psk_tune_comm *psk_tune_comm_get(MPI_Comm comm);
/* collective over comm: make priv and reqs if not ready. 0 when ready on
 * every rank, -1 (on every rank) if not; c may be NULL (votes no) */
int psk_tune_comm_setup(psk_tune_comm *c, MPI_Comm comm);
/* collective over c->priv: at least need bytes of scratch on every rank;
 * need must be the same on every rank. NULL on every rank if not */
char *psk_tune_comm_scratch(psk_tune_comm *c, size_t need);
/* the key's statistics, made on first use; NULL if out of memory */
psk_tune_key *psk_tune_comm_key(psk_tune_comm *c, const psk_tune_site *s, int coll, int sclass);
/* the end of MPI: no more MPI calls from attribute callbacks */
void psk_tune_comm_finalizing(void);
/* fn on each live state, for the report */
void psk_tune_comm_each(void (*fn)(const psk_tune_comm *, void *), void *arg);
/* freed communicators whose last figures are still being reduced: into
 * the report and freed once they are (wait: at the end, waits for them) */
void psk_tune_comm_reap(int wait);
/* every live communicator's unfinished windows into its figures (the end) */
void psk_tune_comm_flush_all(void);

/* ---- tune_memo.c: the dispatcher's memo of calls ---- */
/* a call as the memo knows it, and what the dispatch derived from it */
typedef struct psk_tune_memo {
    unsigned epoch;
    void *ra;
    MPI_Comm comm;
    int coll, scount, rcount, root;
    MPI_Datatype stype, rtype;
    MPI_Op op;
    unsigned sbuf_kind, rbuf_kind; /* ordinary, MPI_IN_PLACE, MPI_BOTTOM */
    size_t bytes;
    int inplace, contig;
    MPI_Aint sext, rext;
    psk_tune_comm *c;
    const psk_tune_site *site;
    struct psk_tune_key *key;
    struct psk_tune_group *g; /* NULL: the learner has no group for it, for good, or yet (pend) */
    psk_tune_pend *pend;      /* the gate holding its calls until the group is set up, or NULL */
} psk_tune_memo;
/* the calling thread's entry for this call (a->coll and the arguments
 * set), its derived fields copied into a; NULL if none */
const psk_tune_memo *psk_tune_memo_find(psk_tune_args *a, void *ra);
/* the call (prepared) remembered with what the dispatch found for it,
 * if its handles let it be (named datatypes) */
void psk_tune_memo_put(const psk_tune_args *a, void *ra, psk_tune_comm *c, const psk_tune_site *site,
                       struct psk_tune_key *key, struct psk_tune_group *g, psk_tune_pend *pend);
/* every entry of every thread void (a state freed or moved) */
void psk_tune_memo_void(void);

/* ---- tune_gate.c: the learning gate ---- */
/* the gate of a collective's size class on c (made on first use); NULL
 * if out of memory */
psk_tune_pend *psk_tune_gate_of(psk_tune_comm *c, int coll, int sclass, const psk_tune_site *site);
/* whether the gate's next call is timed: the first 8, then one in 8 */
static inline int psk_tune_gate_timed(const psk_tune_pend *p) { return p->calls < 8 || !(p->calls & 7); }
/* before a call the gate holds (native): at a check's call index, the
 * check started on the user's communicator comm */
void psk_tune_gate_start(const psk_tune_comm *c, psk_tune_pend *p, MPI_Comm comm);
/* after it: counted, this rank's time if timed; a check started ended
 * (then p->state may be GATE_OPEN) */
void psk_tune_gate_count(psk_tune_pend *p, int timed, double ns);
/* a group's set-up measured (ns; comm_too: the communicator's with it):
 * the gate expects the next ones to cost as much as the cheapest so far */
void psk_tune_gate_setup_cost(double ns, int comm_too);
/* the decision-file state of a gate that held calls and never opened,
 * for site (rank 0's, at the end), the earlier runs' held calls added:
 * a START line with the calls and their time, so that a short job run
 * again and again sets its group up once its runs' time pays for it.
 * 0, or -1 if there is none to write (no check yet, ranks on several
 * hosts) */
int psk_tune_gate_entry(const psk_tune_comm *c, const psk_tune_pend *p, const psk_tune_site *site,
                        psk_tune_dbent *e);

/* ---- tune_site.c ---- */
/* the site of a return address; NULL if out of memory */
const psk_tune_site *psk_tune_site_of(void *ra);

/* ---- tune_arms.c: the arms of every collective ---- */
/* 1 if arm applies to a call of coll on P ranks with bytes (as
 * psk_tune_args counts them), in place or not: the same answer on every
 * rank. Native always; the others never to 0 bytes but for alltoall's */
int psk_tune_arm_valid(int coll, int arm, int P, size_t bytes, int inplace);
/* the arguments' derived fields (a->coll and the arguments set); 0, or -1
 * if the call is not one the arms take (the native call gets it) */
int psk_tune_args_prepare(psk_tune_args *a);
/* runs arm (not native) on a prepared call; MPI_SUCCESS, an MPI error,
 * or PSK_TUNE_FALLBACK */
int psk_tune_arm_run(int arm, psk_tune_comm *c, const psk_tune_args *a);
/* the MPI library's own call with the arguments as given */
int psk_tune_native(const psk_tune_args *a);
/* test entry point: arm (native included) on the call (arguments set),
 * with the state of its communicator as the library keeps it;
 * MPI_SUCCESS, an MPI error, PSK_TUNE_SKIP or PSK_TUNE_FALLBACK (then
 * nothing ran) */
int psk_tune_args_arm(int arm, psk_tune_args *a);
/* the same for each collective, with MPI's arguments */
int psk_tune_alltoall_arm(int arm, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, MPI_Comm comm);
int psk_tune_bcast_arm(int arm, void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int psk_tune_allreduce_arm(int arm, const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                           MPI_Comm comm);
int psk_tune_allgather_arm(int arm, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm);

/* ---- tune_pack.c ---- */
/* MPI_Pack (pack 1) or MPI_Unpack (0) of count elements of type at
 * address at (integer arithmetic: MPI_BOTTOM allowed), at position *pos
 * of the packed buffer buf of size bytes */
int psk_tune_pack(int pack, uintptr_t at, int count, MPI_Datatype type, void *buf, int size, int *pos,
                  MPI_Comm comm);
/* 1 if type is a named (predefined) one: never freed, its handle never
 * another type's */
int psk_tune_named(MPI_Datatype type);
/* 1 if count elements of type are count x size bytes from the address as
 * they are (a predefined type without holes) */
int psk_tune_contig(MPI_Datatype type);
/* the pieces [0, P) of n elements: piece i starts at element off(i) */
static inline size_t psk_tune_piece(size_t n, int P, int i)
{
    size_t q = n / (size_t)P, r = n % (size_t)P;
    return (size_t)i * q + ((size_t)i < r ? (size_t)i : r);
}

/* ---- each collective's arms (tune_<collective>.c) ---- */
int psk_tune_a2a_valid(int arm, int P, size_t bytes, int inplace);
int psk_tune_a2a_prepare(psk_tune_args *a);
int psk_tune_a2a_run(int arm, psk_tune_comm *c, const psk_tune_args *a);
int psk_tune_bc_prepare(psk_tune_args *a);
int psk_tune_bc_run(int arm, psk_tune_comm *c, const psk_tune_args *a);
int psk_tune_ar_prepare(psk_tune_args *a);
int psk_tune_ar_run(int arm, psk_tune_comm *c, const psk_tune_args *a);
int psk_tune_ag_prepare(psk_tune_args *a);
int psk_tune_ag_run(int arm, psk_tune_comm *c, const psk_tune_args *a);

/* ---- the policies (tune_group.c; tune_prior.c, tune_stats.c) ---- */
/* the policies: the learner, STAR-MPI's, one arm for all (native included),
 * each valid arm in turn */
enum psk_tune_policy { POLICY_LEARN, POLICY_STAR, POLICY_FIXED, POLICY_CYCLE };

#define PSK_TUNE_MAXINJECT 32
typedef struct psk_tune_inject {
    int arm;
    double ns;
    uint64_t from, to; /* the calling thread's calls of the collective, counted from 0 */
} psk_tune_inject;

/* the configuration, read from the environment once (tune_core.c) */
typedef struct psk_tune_cfg {
    int policy;
    int ninject;       /* (here: every call reads it, with policy) */
    int arm;           /* POLICY_FIXED */
    double budget;     /* exploration may cost this fraction of collective time */
    double gate;       /* a group is set up once a set-up costs at most this fraction of its calls' time */
    double margin;     /* candidates: predicted within margin x the best */
    int star_x;        /* STAR: trials per arm */
    int switch_warmup; /* learn: an unmeasured call before each side of a pair (PSK_TUNE_SWITCH_WARMUP) */
    int check;         /* PSK_TUNE_CHECK: hash-check every decision */
    psk_tune_inject inject[PSK_TUNE_MAXINJECT]; /* PSK_TUNE_INJECT: delays inside arms */
    double alpha0, beta0; /* the model's prior (PSK_TUNE_MACHINE or defaults) */
    int machine_rpn;      /* its ranks per node, 0 if no file */
    double intra_alpha0, intra_beta0;
    uint64_t hash;        /* of everything above: must agree between ranks */
    const char *report, *db;
    int debug;
} psk_tune_cfg;
extern psk_tune_cfg psk_tune_cfg_g;

/* collective over c->priv (c ready): the learner's set-up on c; sets
 * c->learn to 1 or -1 on every rank */
void psk_tune_learn_comm(psk_tune_comm *c);
/* the group of a call (made on first use, collectively); NULL (on every
 * rank) if the learner is off for it: the call goes native */
psk_tune_group *psk_tune_learn_group(psk_tune_comm *c, int coll, size_t bytes, int inplace,
                                     const psk_tune_site *site);
/* the arm the group plans for its next call */
int psk_tune_learn_arm(const psk_tune_group *g);
void psk_tune_group_slot_stats(psk_tune_group *g, int arm, uint32_t k, double t, int mixed);
/* whether the group's next call is timed: every call but in windows of
 * calls under 24 us (monitoring, and the incumbent's calls while
 * exploring), where one in g->stride is (the same calls on every rank:
 * the last of each run of stride calls of a slot, and a slot's last call
 * if it is shorter) */
static inline int psk_tune_learn_timed(const psk_tune_group *g)
{
    if (g->stride <= 1)
        return 1;
    uint32_t k = g->scalls[g->slot], i = (uint32_t)g->inslot + 1;
    return k < (uint32_t)g->stride ? i == k : (i & (uint32_t)(g->stride - 1)) == 0;
}
/* after the call: planned arm, arm that ran, this rank's time if timed;
 * at the end of a window, the collective decision */
void psk_tune_learn_record(psk_tune_comm *c, psk_tune_group *g, int ran, int timed, double ns,
                           const psk_tune_site *site, size_t bytes, int inplace);
void psk_tune_learn_free(psk_tune_group *g);
/* the end (MPI_Finalize, the communicator freed): the calls of the window
 * under way into the figures, without a decision: a nonblocking reduce
 * over c->priv (1 if *req was started; the same on every rank), then its
 * result folded in */
int psk_tune_learn_flush_start(psk_tune_comm *c, psk_tune_group *g, MPI_Request *req);
void psk_tune_learn_flush_end(psk_tune_group *g);
/* the best estimate of an arm in a group (ns per call, the median of its
 * latest samples), 0 if unmeasured */
double psk_tune_learn_est(const psk_tune_group *g, int arm);
/* a settled group's arm, offered to the groups made after it (the same
 * size on other communicators of its size, neighbouring classes) */
void psk_tune_learn_settled(const psk_tune_comm *c, const psk_tune_group *g);
const char *psk_tune_why_name(int why);
const char *psk_tune_origin_name(int origin);
const char *psk_tune_phase_name(int phase);

/* ---- inside the policies: the learner's parameters its files share ---- */
#define TMAX 6          /* probes of one candidate before deciding on estimates */
#define HYST 0.05       /* a switch needs an arm this much faster (arms within 5 % are as good) */
#define CUSUM_K 0.5     /* CUSUM drift allowance, in noise units: a shift of 1 noise is sought */
#define CUSUM_H 4.0     /* alarm threshold, in noise units; doubled after a false alarm, to 8 */
#define ZCLIP 2.0       /* a slot counts for at most 2 noise units (x h / CUSUM_H): 3 slots far off are a change */
#define NOISE0 0.25     /* the noise until the incumbent has 8 samples */
#define WMON_MIN 8      /* a monitoring window's calls, at least */
#define LEARN_SLOTS 64  /* the learner's slots a window */
#define STAR_SLOTS (PSK_TUNE_NARMS * PSK_TUNE_STAR_XMAX + 4) /* STAR's: X calls of each arm */

/* ---- tune_stats.c: an arm's samples and the estimates from them ---- */
/* the median of v[0..n), v reordered */
double psk_tune_stats_median(float *v, int n);
void psk_tune_stats_add_sample(psk_tune_arml *a, double x);
void psk_tune_stats_clear(psk_tune_arml *a);
/* a paired call's log ratio to the incumbent */
void psk_tune_stats_add_ratio(psk_tune_arml *a, double lr);
/* the median log ratio of arm a to the incumbent */
double psk_tune_stats_rmed(const psk_tune_group *g, int a);
/* the spread of a log ratio, pooled over the arms */
double psk_tune_stats_sigma(const psk_tune_group *g);
/* the spread of the incumbent's log time per call */
double psk_tune_stats_noise(const psk_tune_group *g);

/* ---- tune_prior.c ---- */
/* the arm a settled group of P ranks chose for coll and sclass; -1 if none */
int psk_tune_prior_of(int P, int coll, int sclass);
/* this host's name, and its base (the part before a dot, trailing digits
 * off, other characters than letters, digits and '-' made '_'): the
 * decision file's machine is the base (tune_prior.c) */
void psk_tune_host_names(char *full, size_t nf, char *base, size_t nb);

/* ---- tune_agree.c ---- */
/* h as three doubles (22, 22 and 20 bits: each exact) */
void psk_tune_agree_chunks(uint64_t h, double *v);
/* collective over comm: n values (at most 32) agreed; after the call v
 * holds the maximum, same[i] whether every rank had the same; an MPI code */
int psk_tune_agree(MPI_Comm comm, double *v, int *same, int n);
/* FNV-1a of a string */
uint64_t psk_tune_agree_fnv(const char *s);
/* collective over c->priv (PSK_TUNE_CHECK=1, after each decision): every
 * rank has the same state, or the job is aborted */
void psk_tune_agree_check(const psk_tune_comm *c, psk_tune_group *g);

/* ---- tune_plan.c: windows ---- */
void psk_tune_plan_reset(psk_tune_group *g);
/* a slot of calls of arm (none if calls is 0 or the window is full) */
void psk_tune_plan_add(psk_tune_group *g, int arm, uint32_t calls);
/* w calls of arm in at most `slots` slots */
void psk_tune_plan_spread(psk_tune_group *g, int arm, uint32_t w, int slots);
/* the learner's next window: monitoring (probe: the runner-up's one
 * call, or -1), exploring */
void psk_tune_plan_monitor(psk_tune_group *g, int probe);
void psk_tune_plan_explore(psk_tune_group *g);

/* ---- tune_learn.c ---- */
/* what exploring may still spend, ns */
double psk_tune_learn_bank(const psk_tune_group *g);
/* how much slower than the incumbent one more probe of arm a may be, ns */
double psk_tune_learn_risk(const psk_tune_group *g, int a);
/* the decision at a window's end: per slot the slowest rank's time per
 * call, and the same with each call cut at wcap (win); plans the next
 * window */
void psk_tune_learn_decide(const psk_tune_comm *c, psk_tune_group *g, const double *per, const double *win,
                           int nper);

/* ---- tune_star.c ---- */
/* a new group's first window: X calls of each valid arm */
void psk_tune_star_start(const psk_tune_comm *c, psk_tune_group *g);
/* the decision at a window's end (extra: the slowest rank's sum of the
 * slots after the first); plans the next window */
void psk_tune_star_decide(const psk_tune_comm *c, psk_tune_group *g, const double *per, double extra);

/* ---- tune_group.c ---- */
/* the incumbent becomes arm, for why (enum psk_tune_why): in the history */
void psk_tune_group_set_inc(psk_tune_group *g, int arm, int why);

/* ---- tune_model.c ---- */
/* predictions (ns per call) of every arm of coll for a group of c with m
 * bytes (psk_tune_args.bytes), from alpha and beta fitted to the native
 * times the communicator's groups of coll measured (c->alpha0 when one
 * size, c->alpha0 and c->beta0 when none); native as the algorithm both
 * MPIs use most for it; 0 for invalid arms and other collectives' */
void psk_tune_model_predict(const psk_tune_comm *c, int coll, int P, double m, int inplace,
                            double pred[PSK_TUNE_NARMS]);

/* ---- tune_db.c: the decision file (its lines: tune_dbline.h) ---- */
/* the MPI this library was built for, as the file names it */
const char *psk_tune_db_mpi(void);
/* reads path into memory (every rank at start); a bad line is skipped,
 * said once on stderr if say */
void psk_tune_db_load(const char *path, int say);
/* the entry for this key; NULL if none. site_any: a settled one of
 * another site of the same class (an unsettled state is its site's only) */
const psk_tune_dbent *psk_tune_db_find(const char *machine, int P, const char *module, uint64_t offset, int coll,
                                       int sclass, int site_any);
/* the file's entry for this site on a machine of this host's base name
 * (any layout), for the learning gate (before the communicator's machine
 * is agreed); NULL if none */
const psk_tune_dbent *psk_tune_db_here(const char *base, int P, const char *module, uint64_t offset, int coll,
                                       int sclass);
/* rank 0 at the end: merges lines (the file's format) into path under a
 * lock, atomically; a message on stderr if it cannot */
void psk_tune_db_save(const char *path, const char *lines, size_t len);

/* ---- tune_resume.c: a group's state in the decision file ---- */
/* the group's state as a psk2 entry (the key's fields, machine to class,
 * and the stamp left to the caller); native_ns: native's time per call */
void psk_tune_resume_save(const psk_tune_group *g, double native_ns, psk_tune_dbent *e);
/* a new group (coll set, nothing run) continues from an entry every rank
 * agreed on: the earlier runs' calls, time and spending, the arms'
 * candidacy, drops and ratios (the caller makes e->arm the incumbent).
 * Returns the entry's state (enum
 * psk_tune_dbstate), -1 if its incumbent cannot take this call (nothing
 * restored) */
int psk_tune_resume_load(const psk_tune_comm *c, psk_tune_group *g, const psk_tune_dbent *e, size_t bytes,
                         int inplace);

/* ---- tune_report.c ---- */
/* a communicator's groups, rendered now (it is being freed) for the end */
void psk_tune_report_archive(const psk_tune_comm *c);
/* every process in MPI_Finalize, MPI still usable: gathers the report and
 * the decisions to world rank 0, which writes them */
void psk_tune_report_finalize(void);

/* ---- tune_core.c ---- */
/* 1 between MPI_Init and MPI_Finalize once the library has started (on
 * the first call), 0 if it is off: everything native */
int psk_tune_on(void);
/* a collective's call, as every entry point makes it (a->coll and the
 * arguments set): ra is the caller's return address, fortran 1 when a
 * Fortran entry point was called */
int psk_tune_call(psk_tune_args *a, void *ra, int fortran);
int psk_tune_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                      MPI_Datatype rtype, MPI_Comm comm, void *ra, int fortran);
int psk_tune_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, void *ra, int fortran);
int psk_tune_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                       void *ra, int fortran);
int psk_tune_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                       MPI_Datatype rtype, MPI_Comm comm, void *ra, int fortran);
/* counts kept for the report and the tests: totals, and per collective */
typedef struct psk_tune_counts {
    uint64_t calls;       /* calls that reached the library */
    uint64_t fortran;     /* of which through a Fortran entry point */
    uint64_t unsupported; /* went native untouched (intercommunicator, ...) */
    uint64_t fallback;    /* an arm was chosen but set-up failed: native */
    uint64_t arm[PSK_TUNE_NARMS];
    uint64_t lookups; /* calls the dispatch looked up (not in its memo) */
    uint64_t timed;   /* calls it timed */
    struct {
        uint64_t calls, fortran, unsupported, fallback, native;
    } coll[PSK_TUNE_NCOLL];
} psk_tune_counts;
void psk_tune_get_counts(psk_tune_counts *out);
/* a call of coll reached through a Fortran entry point that passed it on
 * to the MPI's own Fortran code (MPI_BOTTOM, MPICH's C layer bypassed) */
void psk_tune_count_fortran_native(int coll);
/* the arm the calling thread's last call ran with (native when it went to
 * the native call untouched), -1 once read by psk_tune_last_arm */
extern __thread int psk_tune_last __attribute__((tls_model("initial-exec")));
/* MPI_Finalize's first step (every entry point, once): the report and the
 * decision file, then the statistics */
void psk_tune_pre_finalize(void);
uint64_t psk_tune_now_ns(void);
const char *psk_tune_policy_name(void);
/* FNV-1a over bytes, continuing from h */
uint64_t psk_tune_hash(uint64_t h, const void *p, size_t n);

#endif
