/* Internals of the gen stage, shared by its files: what pass 1 collects
 * per node of the folded tree (gen_collect.c), the C expressions of its
 * values (gen_expr.c), each call as code (gen_call.c) or as data
 * (gen_data.c), and which loops may be scaled (gen_scale.c); the driver,
 * gen_skeleton.c, walks the tree and writes the file. A node's values are
 * those of each taking part rank's first execution unless a loop-variant
 * parameter of the folding (psk_folded_params) or a table by execution
 * says otherwise. */
#ifndef PSK_GEN_INTERNAL_H
#define PSK_GEN_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "perfskel/gen.h"
#include "psk_cart.h"
#include "psk_fn_ids.h"

typedef struct gnode {
    int np;
    const int32_t *ranks;
    psk_event *first;   /* per taking part rank: its first execution */
    uint8_t kind[PSK_F_NFIELDS];
    int64_t c[PSK_F_FIRST_ARRAY];
    double *gap;        /* per taking part rank: summed compute gaps (ns) */
    double *tns;        /* per taking part rank: summed gap + time in the call (ns) */
    double *pwork, *pcalls; /* runs of polls: per taking part rank, summed
                         * compute between the polls (ns) and polls made */
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
    /* collectives: per taking part rank, how many collectives it had made
     * on the communicator before the first execution (equal on every rank
     * unless the merge aligned different instances of the call) */
    int64_t *collpre;
    /* v-collective byte arrays (COUNTS, then RCOUNTS, each times its
     * datatype sizes) when they differ between executions (a loop folded
     * at the level that drops them): per taking part rank, every
     * execution's, va[j][e * vw + k]; vw: the two arrays' lengths summed */
    int64_t **va;
    uint32_t vw, vw1;
    uint32_t vlen1, vlen2; /* the longest COUNTS and RCOUNTS any rank passed */
    int varr;           /* 1: they differ; -1: too large to keep (gen fails if they differ) */
    /* a neighborhood collective: the most neighbours its communicator's
     * grid gave a rank (2 x ndims); -1 an execution's had no grid gen
     * knows, on rank nogrid_rank's communicator nogrid_comm */
    int nbmax;
    int32_t nogrid_rank;
    int64_t nogrid_comm;
} gnode;

/* a communicator as a rank saw it created: its members' world ranks;
 * an id re-used for other members is not followed (ambiguous). Made by
 * MPI_Cart_create or MPI_Cart_sub: its grid too (psk_cart.h; NULL if the
 * trace does not tell it), the grid ambiguous (cartbad) if the id was
 * re-made with another, nbmax the most neighbours any grid of the id had
 * (2 x ndims) */
typedef struct cmembers {
    int64_t *w;
    uint32_t n;
    int known, ambiguous;
    psk_cart *cart;
    int cartbad, nbmax;
    int freed;          /* by MPI_Comm_free, not made again since (a call not recorded may re-use the id) */
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

/* what the skeleton runs of a node (gen_plan.c) */
typedef struct gplan {
    double tau;      /* the part of the target left where it is: compute scales by it */
    double tau_in;   /* loops: the part left inside it */
    double runs;     /* times it runs in the skeleton (the loops around it) */
    double t_iter;   /* loops: the original's seconds per iteration, slowest rank */
    int scaled;      /* loops: a sample of its iterations runs */
    int grouped;     /* loops: sampled with sibling loops of other ranks (gen_closed_group) */
    int64_t cold, ran;
    const char *why;
} gplan;

typedef struct psk_gen {
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
    int mt_rank;        /* a rank whose calls under MPI_THREAD_MULTIPLE came from several
                           threads (or were recorded without threads), or -1 */
    int mt_threads;     /* how many threads it called from; 0: not recorded */
    int in_scaled;      /* emitting inside a scaled loop */
    pending **pend;     /* per rank, by request id */
    int64_t *npend;
    cmembers **cmem;    /* per rank, by communicator id: its world ranks */
    int64_t *ncmem;
    preq **preqs;       /* per rank, by request id: what a persistent request does */
    int64_t **lastarr;  /* per rank: the last Waitany/Waitsome/Testany/Testsome array (note_reqs) */
    uint32_t *nlastarr;
    int64_t *npreqs;
    int64_t **ccount;   /* per rank, by communicator id: collectives made on it so far */
    int64_t *nccount;
    int64_t *rdiff;     /* per rank: messages sent to it minus receives it posted, so far */
    int64_t inflight;   /* ranks whose rdiff is not 0; -1: not known */
    int64_t *entry;     /* per loop node: inflight as its first execution began (-2: never) */
    double *unit_ns; /* per rank: ns of one work unit on its host */
    double *share;   /* per rank: the share of its recorded gaps that was work
                      * (below 1 where it waited for a core: other programs,
                      * more ranks than cores) */
    double *min_gap; /* per rank: its shortest gap between two calls (ns) */
    gplan *plan;        /* per node (gen_plan.c) */
    psk_gen_loop *loops;
    int nloops;
    double *saved_ns;   /* per rank: the original's time not run */
    int floor_iters;
    double floor_seconds;
    int floor_default;  /* floor_seconds is the default's */
    int crowded;        /* ranks on hosts with more ranks than cores (psk_ranks_crowded) */
    int *cpu;           /* per rank: the CPU it runs on on its recorded host, -1 any (psk_gen_pinned) */
    int npin;           /* ranks with a CPU there */
    int no_pin;
    char errmsg[512];   /* why it failed (psk_gen_errmsg) */
    int status;         /* its psk_status */
    int failed;
} gen;

static inline void gen_bump(int64_t *max, int64_t v) { *max = v > *max ? v : *max; }

/* In a skeleton's request array of a Waitany, Waitsome, Testany or
 * Testsome (or a run of polls of them), the requests the original call
 * completed carry this flag (gen_collect.c note_reqs): the skeleton's
 * call, which could complete fewer (timing), is made once they have
 * completed (reqs_ in skel_runtime.c), so that no request the program had
 * completed is left pending (a nonblocking collective pending as its
 * communicator is freed brings Open MPI down). Ids this large are never
 * flagged. */
#define PSK_GEN_REQ_DONE (INT64_C(1) << 30)
static inline int64_t gen_req_id(int64_t q) { return q >= PSK_GEN_REQ_DONE ? q - PSK_GEN_REQ_DONE : q; }
static inline void gen_bump_req(gen *g, int64_t q) { gen_bump(&g->max_req, gen_req_id(q)); }

/* gen_skeleton.c: records the message (printf-like; the first one stands)
 * with PSK_EFORMAT, or "out of memory" with PSK_ENOMEM; both return -1 */
int gen_fail(gen *g, const char *fmt, ...);
int gen_oom(gen *g);

/* gen_collect.c: pass 1 and what follows it */
int gen_collect(gen *g);  /* every rank's first execution, gaps, sources, requests; PSK_* */
void gen_free_nodes(gen *g);
/* whether a Test-family call completed something, or an MPI_Improbe
 * found a message: 1 or 0; -1 for other calls */
int gen_completion(const psk_event *e);
/* the world rank of rank r of communicator comm as rank me knows it
 * (-1 if it is not known) */
int64_t gen_to_world(const gen *g, int32_t me, int64_t comm, int64_t r);
/* whether fn sends (Sendrecv too) or receives (not Sendrecv: its receive
 * side has its own peer) a point-to-point message */
int gen_sends(unsigned fn);
int gen_receives(unsigned fn);

/* gen_expr.c: values as C (tables written to g->tabs, once each) */
/* the loops around node id, outermost first (chain[d] at depth d): how many */
int gen_loops_around(const gen *g, int32_t id, int32_t chain[64]);
const psk_fparam *gen_param_of(const gen *g, int32_t id, int f);
int gen_all_same(const gnode *n, int f);
void gen_table_name(char *buf, size_t cap, int32_t id, const char *what);
void gen_emit_table(gen *g, const gnode *n, int32_t id, const char *what, const int64_t *vals);
void gen_expr(gen *g, int32_t id, int f, const char *what, char *out, size_t cap);
int gen_param_expr(gen *g, int32_t id, int f, const char *what, char *out, size_t cap);
void gen_peer_expr(gen *g, int32_t id, int f, const char *what, char *out, size_t cap);
void gen_hidden_src_expr(gen *g, int32_t id, char *out, size_t cap);
void gen_done_expr(gen *g, int32_t id, char *out, size_t cap);
void gen_tag_expr(gen *g, int32_t id, int f, const char *what, char *out, size_t cap);
void gen_bytes_expr(gen *g, int32_t id, int cf, int sf, char *out, size_t cap);
void gen_array_table(gen *g, int32_t id, int f, int64_t scale_field, const char *what, int *width);
/* the C expression of node id's table of what (written by gen_array_table)
 * for this rank to index: by execution where the arrays differ */
void gen_array_expr(gen *g, int32_t id, const char *what, char *out, size_t cap);
void gen_reqs_by_exec(gen *g, int32_t id);
/* what the skeleton gives scalar field f of node id on its taking part
 * rank j at loop indices iter (64 depths) and execution k; peers given by
 * offset resolved in ranks of the communicator (PSK_PROC_NULL off the
 * edge), INT64_MIN where its members are not known */
int64_t gen_value_at(const gen *g, int32_t id, int f, int j, const int64_t *iter, int64_t k);

/* gen_call.c: one call as code */
void gen_indent(gen *g, int d);
/* s as the text of a C comment: printable ASCII but '*', '?' and '\\'
 * as itself, every other byte as \xNN, so that nothing in it (a recorded
 * command line, say) can end the comment, splice a line or form a
 * trigraph */
void gen_comment_text(FILE *out, const char *s);
int64_t gen_gap_units(const gen *g, const gnode *n, int j);
/* a run of polls: the mean compute between its polls in work units, and
 * the mean number of polls, of the node's j-th rank */
int64_t gen_poll_units(const gen *g, const gnode *n, int j);
int64_t gen_poll_calls(const gnode *n, int j);
/* the runtime's reqs_ form of an array call (a run of polls: of its
 * test): 0 Startall, 1 Waitall/Testall, 2 Waitany/Testany, 3 Waitsome/
 * Testsome; reqs_ polls with the test at this + 3 */
int gen_reqs_how(unsigned fn);
/* whether calls of fn can be replayed from data: by its op; replay_ of
 * skel_runtime.c has a case for each function of these ops (the test
 * unit.gen_replay checks it) */
int gen_replayable(unsigned fn);
void gen_emit_sym(gen *g, int32_t id, int d, const char *loopvar);

/* gen_plan.c: how much of each node runs (after gen_collect) */
int gen_plan(gen *g);
/* the compute of SYM node id runs this many times shorter (1: in full) */
double gen_compute_factor(const gen *g, int32_t id);

/* gen_scale.c: whether loop node id may run fewer iterations */
int gen_closed_loop(gen *g, int32_t id);
/* whether the n sibling loops ids (as many iterations each, ranks apart)
 * may run fewer iterations together: every iteration closed across them */
int gen_closed_group(gen *g, const int32_t *ids, int n);

/* gen_data.c: calls replayed from data */
int64_t gen_data_calls(const gen *g, int32_t id);
/* how the run kid[from..to) of calls and small loops (calls in all, each
 * execution) is stored: 1 once (the same in every execution of the loops
 * around it, or outside loops), 2 per execution, 0 not (too large: code) */
int gen_run_mode(const gen *g, const int32_t *kid, int32_t from, int32_t to, int64_t calls);
/* the run as one replay_ (mode 1) or replayx_ (mode 2) per rank at indentation d */
void gen_emit_run(gen *g, const int32_t *kid, int32_t from, int32_t to, int64_t calls, int mode, int d);

#endif
