/* The state of a replay of perfskel sim, shared by the replay's files
 * (sim_setup.c, sim_sched.c, sim_feed.c, sim_exec.c, sim_p2p.c,
 * sim_comm.c, sim_ival.c, sim_ops.c) and the skipping of loop iterations
 * (sim_skip*.c): the ranks, their messages, receives, requests and
 * communicators, the collectives under way, the intervals, and the
 * replay's own functions. Times are ns of simulated time. */
#ifndef PSK_SIM_STATE_H
#define PSK_SIM_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "psk_cart.h"
#include "sim_fprog.h"
#include "sim_internal.h"

enum op {
    OP_OTHER, OP_INIT, OP_FINALIZE, OP_PCONTROL, OP_SEND, OP_ISEND, OP_RECV, OP_IRECV, OP_SENDRECV,
    OP_SENDRECV_REPLACE, OP_PROBE, OP_SEND_INIT, OP_RECV_INIT, OP_START, OP_STARTALL, OP_WAIT, OP_WAITALL,
    OP_WAITANY, OP_WAITSOME, OP_TEST, OP_TESTALL, OP_TESTANY, OP_TESTSOME, OP_FREE, OP_CANCEL, OP_COLL,
    OP_ICOLL, OP_NEWCOMM, OP_NEWCOMM_GROUP, OP_MPROBE, OP_MRECV, OP_LOCAL
};

/* accumulators kept per rank (running totals); the sync of each class
 * of calls apart too, for skipping (sim_skip.c) */
enum { A_CPU, A_P2P, A_COLL, A_WAIT, A_SYNC, A_VAR, A_OVERLAP, A_SYNC_P2P, A_SYNC_COLL, A_SYNC_WAIT, A_N };

typedef struct sreq {
    int used, pending, waited, persistent, active;
    int kind;            /* 1 send, 2 receive, 3 collective */
    double post, done, begin, end, partner;
    int64_t peer, tag, comm, bytes; /* persistent: what Start posts */
} sreq;

typedef struct msg {
    struct msg *next;
    int src, dst;
    int64_t comm, tag, bytes;
    double post, arrive; /* arrive: eager, when it is there */
    int rdv, buffered;
    int sender_blocked;  /* the sender waits in a blocking send */
    int64_t sreq;        /* the sender's request, or -1 */
    int32_t onode;       /* folded: the tree event that sent it (-1: not known) */
    int ofield;          /* and the field its tag came from */
    int64_t oexec;       /* its execution */
} msg;

typedef struct precv {
    struct precv *next;
    int src;             /* world rank, or -1 any */
    int64_t comm, tag, bytes;
    double post;
    int64_t rreq;        /* the receiver's request, or -1: it is blocked in the call */
    int probe;           /* a blocking MPI_Mprobe: the message it matches is taken, not received */
    int32_t onode;       /* as a message's */
    int ofield;
    int64_t oexec;
} precv;

typedef struct cmem {
    int *world;
    int n, me;
    uint64_t seq;        /* collectives this rank started on it */
    int inter;           /* an intercommunicator: world holds its local group only */
    int grid;            /* its grid (MPI_Cart_create, MPI_Cart_sub): index + 1 in s->grids, 0 none */
} cmem;

typedef struct frame {
    int node;
    double t_open;
    double acc[A_N];
} frame;

typedef struct rank {
    /* Hot: what replaying its calls reads and writes, on the first lines
     * (prefetched together when it is next to run: sim_sched.c);
     * the rest, from matched on, is seldom touched. */
    double t;            /* simulated clock, ns */
    int state;           /* 0 ready, 1 blocked, 2 done */
    int nwait;           /* blocked: things not yet done */
    int has_ev;          /* ev is read (its gap counted) but not yet run */
    int running;         /* inside advance(): a finished call is not made ready */
    int in_block;        /* the current call went through block() (reports: on_call) */
    int in_prun;         /* its current event is part of a run of polls (no floor) */
    int acc_class;       /* A_P2P, A_COLL or A_WAIT for the blocked time */
    /* on a node with more ranks than cores (sim_cores.c): */
    int core;            /* the core it shares, -1 none */
    int want;            /* in its core's rotation: computing, or waiting busily */
    int cphase;          /* enum cphase: what its clock waits for, in the ready tree */
    int multiple;        /* whole trace: MPI_THREAD_MULTIPLE, its calls checked to come from one thread */
    double work;         /* ns of CPU its compute needs still */
    double wbeg;         /* when its compute began */
    double cdone;        /* when its call was done (what comes after waits for the core) */
    double gscale;       /* its gaps' factor: 1 / its power x its deflate (from
                            s->inv_power and s->deflate as the replay starts:
                            read at every event, here with its other hot bytes) */
    double ipow;         /* 1 / its power (s->inv_power's, likewise) */
    struct psk_ccls *cc; /* its call floors' classes (s->cc[q], likewise) */
    int ncc;
    double floor;        /* ns its current call takes at least (sim_callcost.c) */
    double once;         /* and, a first collective of its class, after the last member arrived */
    double tdone, tcall, partner;
    uint64_t prev_exit;
    psk_fcursor *fc;     /* its events: from the folded program, */
    psk_rank_reader *rd; /* or from its file */
    uint64_t nread;      /* events read so far */
    int32_t onode;       /* folded: the tree event of ev and its execution */
    int32_t sk_node;     /* folded: the candidate execution it last began an iteration of (sim_skip.c) */
    int64_t oexec;
    int64_t sk_exec;
    sreq *req;
    int64_t nreq;
    cmem *comm;
    int64_t ncomm;
    msg *unexp, *unexp_tail;
    precv *posted, *posted_tail;
    frame *stack;
    int depth, cap;
    double acc[A_N];
    psk_event ev;        /* hot up to its first array pointers */
    /* cold */
    msg *matched, *matched_tail; /* taken by Mprobe / Improbe, for Mrecv / Imrecv */
    /* the whole trace: the run of polls under way (as merging makes them,
     * so that its cost is what sim --folded says) */
    int prun_on;
    unsigned prun_fn;
    int prun_thread;
    uint64_t prun_key;
    double prun_gap, prun_calls, prun_failed;
    double t0;           /* when it started (its MPI_Init's exit) */
    double finalize;
    size_t next_mark;    /* the first of its marks not yet applied */
    /* wildcard Irecvs: a second reader runs ahead to the calls that
     * completed them and reads their sources from the statuses */
    psk_rank_reader *ahead;
    uint64_t ahead_n;    /* events the look-ahead has read */
    int64_t *pend_idx;   /* by request id: the look-ahead's open wildcard Irecv (event index + 1), 0 */
    int64_t npend;
    int64_t (*found)[2]; /* (event index, source) pairs not yet used */
    size_t nfound, capfound;
    int skipped;         /* Pcontrol intervals opened beyond --depth */
} rank;

/* a rank's hot bytes: up to ev's requests (Waitall's) */
#define PSK_RANK_HOT offsetof(rank, ev.arr[PSK_F_REQS - PSK_F_FIRST_ARRAY + 1])

/* what a rank on a shared core waits for in the ready tree, its clock the
 * time it is planned for (sim_cores.c) */
enum cphase { CP_NONE, CP_WORK, CP_RESUME, CP_TICK, CP_TURN, CP_SWITCH };

/* a core shared in time slices by more ranks than a node has cores */
typedef struct score {
    int n;               /* ranks on it */
    int *rk;             /* their world ranks, in the order they take turns */
    int hold;            /* the index in rk of the rank with the first turn of the cycle, -1 idle */
    double since;        /* when the cycle began */
    double changed;      /* when the ranks wanting it last changed: its plan holds from there */
    double t;            /* its schedule is taken up to here */
    double foreign;      /* the share of it other programs took */
    int flip;            /* turns forward for this many cycles, then as many backward (0: always forward) */
} score;

typedef struct coll_inst {
    struct coll_inst *next;
    int64_t comm;
    int leader;
    uint64_t seq;
    int n, arrived, coll;
    int *world;
    double *arrive, *done;
    int64_t bytes;
    int root;
    int64_t *reqs;       /* per member: request id (nonblocking) or -1 */
    int64_t *own;        /* per member: bytes of its own block it copies (sim_coll.c) */
    int grid;            /* a neighborhood collective: its grid, as cmem's; else 0 */
} coll_inst;

typedef struct ival {
    int parent, level;
    int64_t key;
    char name[48];
    double *m;           /* P x PSK_M_N */
    uint64_t *count;
    psk_interval pub;
} ival;

/* a node of the ready ranks' tree: the earliest clock below it and its
 * rank, together (four siblings on one cache line) */
typedef struct tnode {
    uint64_t key;
    int win;
} tnode;

struct psk_sim {
    int P;
    int *world0;         /* 0 .. P-1: every rank's MPI_COMM_WORLD members, shared */
    const psk_machine *m;
    psk_net net;
    rank *r;
    tnode *tn;           /* ready ranks: tournament tree of fan-out 4, tnodes nodes */
    int tsize, nready, tnodes;
    int tlev, toff[24];  /* its levels (leaves first) and where each starts */
    tnode top;           /* the winner of all */
    coll_inst *colls;
    psk_cart *grids;     /* the communicators' grids, each once (sim_comm.c; kept to the end) */
    int ngrids, capgrids;
    ival *iv;
    int niv, capiv;
    int *ivh;            /* interval by (parent, key): index + 1, 0 empty */
    uint64_t ivhcap;
    uint8_t *opof;       /* per function id: enum op */
    uint8_t *ordered;    /* per function id: must run in time order (psk_simi_ordered) */
    int8_t *collof;      /* per function id: enum psk_coll */
    uint8_t *nofloor;    /* per function id: calls the floors leave alone (sim_callcost.c) */
    uint64_t events;     /* of the trace, skipped ones included */
    uint64_t replayed;   /* events replayed one by one */
    uint64_t buffered;
    int ended_early;     /* ranks whose trace ends before MPI_Finalize */
    char early_msg[512]; /* the first of them, as the reader said */
    int maxdepth;
    double *inv_power;   /* per rank: 1 / its node's power */
    double *poll_scale;  /* per rank: a recorded gap's time at the node's full speed
                          * (a quota slows compute on average, not the piece before a poll) */
    const psk_sim_opts *opts;
    psk_trace *trace;
    const psk_merged *merged; /* folded: the merged trace (the threads of each rank) */
    int format_version;  /* the trace's (threads recorded from 4 on) */
    psk_rank_pool *pool; /* the whole trace: caps the rank files open at once */
    double *tl;          /* timeline: P x PSK_TL_BINS x 3 (compute, communication, waiting) ns */
    double tl_width;     /* ns per bin, doubled as the run grows */
    msg *free_msg;       /* messages and posted receives are re-used */
    precv *free_precv;
    psk_fprog *fp;       /* --folded: the program the cursors walk */
    psk_fgaps *gaps;     /* and the recorded gaps before their events */
    void *fc_block;      /* the cursors' block (psk_fcursor_open_all) */
    double build_s;      /* seconds building it */
    struct psk_ccoll *ccm; /* the call floors' first pass while it is made (sim_callcost.c) */
    const char *power_why; /* how rank 0's CPU power was found (psk_machine_rank_power) */
    double power0;       /* and what it is */
    struct skipr *sk;    /* per rank: where it is in the candidate loop (sim_skip.c) */
    struct skipg *skg;   /* where all of them are */
    int64_t skipped_iters; /* loop iterations skipped */
    uint64_t snapshots;  /* taken of ranks beginning iterations (sim_skip.c) */
    int skips;           /* times iterations were skipped */
    double skip_var;     /* the variance of the time skipping estimated (ns^2; sim_skip.c) */
    int32_t eval_node;   /* the last (loop, execution, iteration) checked for a skip */
    int64_t eval_exec, eval_iter;
    /* time-sharing (sim_cores.c, sim_recshare.c) */
    double *deflate;     /* per rank: its recorded gaps' share of CPU (the recording's sharing taken out) */
    unsigned char *crowded; /* per rank: its recording host had more ranks than cores */
    score *cores;        /* the shared cores of the target */
    int ncores;
    int share_yield;     /* ranks waiting in MPI give their core away */
    double slice, tick;  /* ns */
    char share_msg[512]; /* what was done about time-sharing ("" nothing) */
    /* the recording's own call costs (sim_callcost.c): per rank its classes, by key */
    struct psk_ccls **cc;
    int *ncc;
    double *start;       /* per rank: when its MPI_Init returned in the recording, the earliest's at 0 (NULL: all at 0) */
    int share_state;     /* 0 none, 1 modelled, 2 taken out */
    double predicted;
    int failed;
    char err[512];
};


/* a class of calls of a rank (sim_callcost.c): the floor of its calls'
 * durations, and what its first call takes once after the last member of
 * its collective arrived (0 none), ns as recorded */
typedef struct psk_ccls {
    uint32_t key;
    float floor, once;
} psk_ccls;
/* sim_callcost.c: s->nofloor (after the ops are set): 0 or PSK_ENOMEM */
int psk_simi_cc_init(psk_sim *s);
/* the class of rank q's event e (0: no floor) */
uint32_t psk_simi_cc_key(const psk_sim *s, const psk_event *e);
/* s->cc from the recorded durations: the rank files; or the merged trace,
 * whose first pass another pass makes (the folded program's building):
 * begin, each merged event in order (its ranks j0..j1-1 at a time), then end (with the first pass's
 * outcome: the second pass, the floors, and what the first kept freed,
 * whatever rc is). 0, or an error (in s->err) */
int psk_simi_cc_trace(psk_sim *s, psk_trace *t);
int psk_simi_cc_merged_begin(psk_sim *s, psk_merged *m);
int psk_simi_cc_merged_event(psk_sim *s, const psk_mevent *me, int j0, int j1);
int psk_simi_cc_merged_end(psk_sim *s, psk_merged *m, int rc);
/* each class's floor the least over the ranks that had a core of their
 * own when recorded (job.json's hosts and cores), and no once for the
 * others: PSK_OK or PSK_ENOMEM */
int psk_simi_cc_finish(psk_sim *s, const psk_job *job);
/* asks the caches for rank q's classes (once its record is in them:
 * where they are is there, as the replay runs). A hint */
void psk_simi_cc_prefetch(const psk_sim *s, int q);
/* rank q's current event (just read) takes its floor and once */
void psk_simi_cc_floor(psk_sim *s, int q);

/* sim_sched.c: the ready rank q's clock changed (it is in the tree) */
void psk_simi_rekey(psk_sim *s, int q);
/* sim_feed.c: ns that failed polls of calls (the event's, psk_event_failed_polls) cost
 * rank q after the recorded gap_ns of compute before them: each the
 * machine's poll cost after the calls' mean share of the gap, timed at
 * the node's full speed; polls under 1 us apart (busy waiting) one */
double psk_simi_poll_ns(const psk_sim *s, int q, double gap_ns, double calls, double failed);
/* sim_ival.c: adds amount ns of kind what (0 compute, 1 communication, 2
 * waiting) to rank q's timeline, spread over [a, a + len) */
void psk_simi_tl_spread(psk_sim *s, int q, int what, double a, double len, double amount);

/* sim_cores.c: the target's shared cores (after the recording's sharing,
 * s->deflate, is known): 0 or PSK_ENOMEM */
int psk_simi_cores_init(psk_sim *s, const psk_job *job);
void psk_simi_cores_free(psk_sim *s);
/* rank q (running, on a shared core) starts computing r->work ns at its
 * clock: its clock becomes the planned end (it goes in the ready tree) */
void psk_simi_core_work(psk_sim *s, int q);
/* rank q on a shared core waits in MPI from t (yielding: it leaves its
 * core) or is done */
void psk_simi_core_leave(psk_sim *s, int q, double t);
/* rank q, taken from the ready tree at its clock with a core phase: 0 if
 * it runs on now, 1 if it was put back to wait for its core */
int psk_simi_core_pop(psk_sim *s, int q);
/* the first moment at or after t that rank q holds its shared core, the
 * ranks wanting their cores staying as they are; t itself where q has a
 * core of its own, its MPI yields, or t is before its core's plan began
 * (who held it then is not kept) */
double psk_simi_core_turn(const psk_sim *s, int q, double t);
/* 1 if rank q shares a core whose MPI yields and another rank of the core
 * has not finished (computing, or polling in its wait): a poll that finds
 * nothing hands the core over to it */
int psk_simi_core_contended(const psk_sim *s, int q);
/* sim_sched.c: puts rank q in the ready tree at its clock */
void psk_simi_ready_push(psk_sim *s, int q);
/* sim_ival.c: adds [a, b) of kind what (0 compute, 1 communication, 2 waiting) to rank q's timeline */
void psk_simi_tl_add(psk_sim *s, int q, int what, double a, double b);

/* sim_recshare.c: s->deflate from the recording's own sharing of its
 * hosts' cores (job.json hosts and cores), from the rank files or the
 * merged trace: 0, or a reader's error (in s->err) */
int psk_simi_deflate_trace(psk_sim *s, psk_trace *t, const psk_job *job);
int psk_simi_deflate_merged(psk_sim *s, psk_merged *m, const psk_job *job);

/* sim_skip.c: rank q begins iteration iter of execution exec of candidate
 * loop node (count iterations), at its clock, its event ev read but not yet
 * run: a snapshot, and if every rank is in the loop and the last iterations
 * repeat (exactly, or as a window of them measures statistically),
 * iterations are skipped (and ev is the one S iterations on). 0,
 * PSK_ENOMEM, or psk_fgaps_next's error reading the skipped gaps. */
int psk_simi_boundary(psk_sim *s, int q, int32_t node, int64_t exec, int64_t iter, int64_t count);
/* rank q is about to read its next event (nothing of it counted yet) */
void psk_simi_pre_event(psk_sim *s, int q);
/* rank q read an event with gap ns of compute before it (its power
 * applied); cls: for a call that may wait for another rank, the total its
 * time goes to (A_P2P, A_COLL, A_WAIT), else -1. 0 or PSK_ENOMEM */
int psk_simi_event(psk_sim *s, int q, int cls, double gap);
void psk_simi_skip_free(psk_sim *s);
/* asks the caches for rank q's skip state (a hint, as sim_sched.c's prefetch_rank) */
void psk_simi_skip_prefetch(const psk_sim *s, int q);
/* and, once that is in, the snapshot of its iteration under way */
void psk_simi_skip_prefetch_snap(const psk_sim *s, int q);
/* rank q's event read and not yet run: its request's record and, a
 * send, its receiver's posted receives (a hint) */
void psk_simi_p2p_prefetch(const psk_sim *s, int q);
/* bytes of the skip's per-rank snapshots and window sums */
uint64_t psk_simi_skip_bytes(const psk_sim *s);

/* ---- the replay's own functions, shared by its files ---- */

/* sim_setup.c: the replay fails with rc, the message printf'd from fmt
 * (the first failure's is kept in s->err): returns rc */
int psk_simi_fail(psk_sim *s, int rc, const char *fmt, ...);

/* sim_sched.c: the empty tree of ready ranks: PSK_OK or PSK_ENOMEM */
int psk_simi_tree_init(psk_sim *s);
/* the replay, once every rank's source of events is open: PSK_OK, or an
 * error (in s->err) */
int psk_simi_run(psk_sim *s);

/* sim_feed.c: reads rank q's next event into r->ev, applies the interval
 * marks before it and counts the compute gap before it: 1, 0 if the rank
 * has no more (it is done), or an error (in s->err) */
int psk_simi_next_event(psk_sim *s, int q);

/* sim_exec.c: runs rank q's current event at its clock; a blocking call
 * leaves nwait above 0 if the rank must wait */
int psk_simi_execute(psk_sim *s, int q);
/* one of the things rank q's blocking call waits for is done at t; the
 * partner (the other side) arrived at partner */
void psk_simi_resolve(psk_sim *s, int q, double t, double partner);
/* rank q's request id is done at t; its transfer ran from begin to end */
void psk_simi_req_done(psk_sim *s, int q, int64_t id, double t, double begin, double end, double partner);
/* rank r's request id (its table grown as needed), NULL if out of range or memory */
sreq *psk_simi_req_get(rank *r, int64_t id);
/* reports (opts.on_call): rank q's current call ran from begin to end */
void psk_simi_report_call(psk_sim *s, int q, double begin, double end, double sync);

/* sim_p2p.c: a send or receive of rank q is posted (dst, src: world
 * ranks, -1 any source, -2 MPI_PROC_NULL; sreq, rreq: its request or -1;
 * tagf: the field of q's current event its tag comes from, -1 if it
 * comes from elsewhere); probe: a blocking matched probe. 0 or PSK_ENOMEM */
int psk_simi_post_send(psk_sim *s, int q, int dst, int64_t comm, int64_t tag, int64_t bytes, int64_t sreq,
                       int blocking, int tagf);
int psk_simi_post_recv(psk_sim *s, int q, int src, int64_t comm, int64_t tag, int64_t bytes, int64_t rreq,
                       int probe, int tagf);
/* a message meets its receive (posted at rpost; rreq its request, or -1:
 * the receiver is blocked): times for both sides */
void psk_simi_meet(psk_sim *s, msg *mg, int dst, double rpost, int64_t rreq);
/* the message rank q's MPI_Mrecv / MPI_Imrecv receives, taken off those
 * its matched probes took; NULL if none */
msg *psk_simi_take_probed(psk_sim *s, int q, const psk_event *e);
/* MPI_Cancel of rank q's request id */
void psk_simi_cancel_req(psk_sim *s, int q, int64_t id);
/* the source recorded for rank q's wildcard Irecv that is its event idx
 * (0-based), or -1 if the run never completed it (or memory ran out) */
int64_t psk_simi_recorded_source(psk_sim *s, int q, uint64_t idx);

/* sim_comm.c: communicator c of rank me (world rank, r its record), NULL
 * if it was never created */
cmem *psk_simi_comm_get(psk_sim *s, rank *r, int me, int64_t c);
/* the world rank of peer p of communicator c, -1 any source, -2 none,
 * -3 not a peer the replay can name */
int psk_simi_world_of(psk_sim *s, int me, int64_t c, int64_t p);
/* frees a member table, unless it is MPI_COMM_WORLD's shared one */
void psk_simi_members_free(const psk_sim *s, int *world);
/* the communicator rank q's event e makes (its id and members): 0,
 * PSK_ENOMEM, or PSK_EFORMAT (in s->err) */
int psk_simi_new_comm(psk_sim *s, int q, const psk_event *e);
/* rank q arrives at a collective of kind coll on communicator comm (rreq:
 * its request, or -1 for a blocking one): 0 or an error */
int psk_simi_coll_arrive(psk_sim *s, int q, int64_t comm, int coll, const psk_event *e, int64_t rreq);

/* sim_ival.c: keys of intervals given by marks (loops) are negative, apart
 * from Pcontrol levels (2 and up; the program's is 0) */
#define MARK_KEY(n) (-1 - (int64_t)(n))
/* the interval with this parent and key, made if there is none: its
 * index, or -1 out of memory */
int psk_simi_ival_child(psk_sim *s, int parent, int64_t key, int level);
/* rank q enters the interval key inside its current one (0 or
 * PSK_ENOMEM), or leaves its current one */
int psk_simi_ival_open(psk_sim *s, int q, int64_t key);
void psk_simi_ival_close(psk_sim *s, int q);

/* sim_ops.c: s->opof and s->collof from the table of MPI functions */
void psk_simi_set_ops(psk_sim *s);
/* 1 if operation op (enum op) must run in order of simulated time */
int psk_simi_ordered(int op);
/* for a call that may wait for another rank, the total its time goes to
 * (A_P2P, A_COLL, A_WAIT); else -1 */
int psk_simi_blocking(int op);

#endif
