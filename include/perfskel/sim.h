/* perfskel sim: a Predictor after DVM's. A discrete-event replay of a
 * recorded trace on a machine model (perfskel/machine.h) that predicts the
 * run time and accounts, per interval of the program and per rank, where
 * the time went. */
#ifndef PERFSKEL_SIM_H
#define PERFSKEL_SIM_H

#include <stdint.h>
#include <stdio.h>

#include "perfskel/common.h"
#include "perfskel/fold.h"
#include "perfskel/machine.h"
#include "perfskel/merge.h"
#include "perfskel/trace.h"

/* The CPU power of world rank r for a trace of job: the `power` keys when
 * given; else 1 on the host calibrate ran on, or where the two timings of
 * the work unit (the recording's and calibrate's) overlap between their
 * quartiles (a difference the timings' own spread explains); else the
 * recording's unit time over this machine's, and 1 without them. But for
 * the host calibrated, a node whose sustained unit time (node_unit_ns) is
 * over 10 % above the short one runs at the recording's unit time over the
 * sustained one (a CPU quota only shows over many of its periods). *why
 * says which, for reports. */
double psk_machine_rank_power(const psk_machine *m, const psk_job *job, int r, const char **why);

/* ---- the replay ---- */

/* what each interval records per rank (seconds), as DVM's Predictor does */
enum psk_metric {
    PSK_M_EXEC,      /* execution time: entry to exit */
    PSK_M_CPU,       /* computation (the recorded gaps / power), and the
                      * machine's poll cost of polls that found nothing */
    PSK_M_P2P,       /* in point-to-point calls */
    PSK_M_COLL,      /* in collectives (and communicator creation) */
    PSK_M_WAIT,      /* in Wait/Test calls */
    PSK_M_SYNC,      /* of the MPI time: waiting for a partner that came late */
    PSK_M_VARIATION, /* collectives: how much earlier than the last member this rank left */
    PSK_M_OVERLAP,   /* nonblocking transfers hidden behind this rank's work */
    PSK_M_IDLE,      /* max_j exec_j - exec_i */
    PSK_M_IMBALANCE, /* max_j cpu_j - cpu_i */
    PSK_M_LOST,      /* max_j exec_j - cpu_i: all that is not productive */
    PSK_M_N
};
const char *psk_metric_name(int metric);

/* extra intervals given from outside (the loops perfskel fold found): on
 * a rank, before its event number `event` (0 = MPI_Init) is replayed,
 * interval `key` is entered (enter = 1) or left (enter = 0); marks of a
 * rank in the order they apply */
typedef struct psk_sim_mark {
    uint64_t event;
    int32_t key;
    int32_t enter;
} psk_sim_mark;

typedef struct psk_sim_marks {
    const psk_sim_mark *mark;
    size_t n;
} psk_sim_marks;

/* The loops of f, the folding of m (merged without reordering), as marks
 * (`sim --intervals loops`, src/sim/sim_loops.c): on each rank, one where
 * it enters an execution of a loop and one where it leaves it, key the
 * loop's node; an execution is told apart by the iterations of the loops
 * around it. Loops nested deeper than maxdepth (0: all) are left out.
 * *out: psk_merged_nranks(m) entries (free with psk_sim_loop_marks_free).
 * Returns PSK_OK; PSK_ENOMEM; PSK_EINVAL if there would be more than
 * PSK_SIM_LOOP_MARKS_MAX marks in all (a smaller maxdepth keeps fewer);
 * PSK_EMISMATCH or PSK_EFORMAT if m does not match its folding. */
#define PSK_SIM_LOOP_MARKS_MAX ((size_t)50 << 20)
int psk_sim_loop_marks(psk_merged *m, const psk_folded *f, int maxdepth, psk_sim_marks **out);
void psk_sim_loop_marks_free(psk_sim_marks *marks, int nranks); /* NULL is fine */
/* psk_sim_opts.mark_name for loop marks, arg the psk_folded: "loop N (C
 * iterations)", with its outlier iterations if psk_folded_stats found any */
void psk_sim_loop_name(void *arg, int32_t key, char *buf, size_t cap);

/* one MPI call as the replay finished it, for reports (psk_sim_opts.on_call) */
typedef struct psk_sim_call {
    int rank;
    int interval;     /* the innermost interval the rank was in (psk_sim_interval's index) */
    unsigned fn;      /* psk_fn_name */
    int peer;         /* world rank of a point-to-point call's partner; -1 none or not known */
    int64_t bytes;    /* count x datatype size as recorded (0 if none) */
    double begin, end;/* seconds of simulated time (equal for a call that took none) */
    double sync;      /* of it, seconds waiting for a late partner */
} psk_sim_call;

typedef struct psk_sim_opts {
    const psk_machine *machine;
    int depth;      /* intervals deeper than this are not kept (0: all) */
    /* called every 2^20 events replayed with their count (total 0: not
     * known ahead), and by psk_sim_run_folded every 2^16 merged events
     * walked while it builds the folded program, with their total; or NULL */
    void (*progress)(void *arg, uint64_t done, uint64_t total);
    void *progress_arg;
    int timeline;   /* keep the per-rank timeline (for the HTML report) */
    const psk_sim_marks *marks;  /* per rank, or NULL */
    /* the name of a marked interval: at most cap bytes into buf */
    void (*mark_name)(void *arg, int32_t key, char *buf, size_t cap);
    void *mark_arg;
    /* the name of an MPI_Pcontrol level's interval (buf left empty: the
     * default, "pcontrol LEVEL"), or NULL */
    void (*pcontrol_name)(void *arg, int64_t level, char *buf, size_t cap);
    void *pcontrol_arg;
    /* psk_sim_run_folded only: */
    int loop_intervals; /* the loops of the folding are intervals (named by mark_name with the loop's node) */
    int no_skip;        /* replay every iteration, skip none */
    /* for reports (NULL: not called): each call replayed, as it finishes
     * (not those of skipped loop iterations), and each point-to-point
     * message as it is sent (src, dst world ranks) */
    void (*on_call)(void *arg, const psk_sim_call *c);
    void (*on_message)(void *arg, int src, int dst, int64_t bytes);
    void *report_arg;
} psk_sim_opts;

typedef struct psk_sim psk_sim;

typedef struct psk_interval {
    int parent;           /* -1 for the whole program */
    int level;            /* 0 the program, 1.. nested */
    const char *name;
    const double *m;      /* nranks x PSK_M_N, seconds */
    const uint64_t *count;/* per rank: how many times it was entered */
    double exec;          /* max over ranks of PSK_M_EXEC */
    double efficiency;    /* sum cpu / (exec x nranks), 1 when both are 0 */
} psk_interval;

/* Replays the trace t on o->machine. On failure returns an error code and,
 * if *out was set, psk_sim_errmsg says why. */
int psk_sim_run(psk_trace *t, const psk_sim_opts *o, psk_sim **out);
/* Replays the folded trace instead: merged trace m (merged without
 * reordering) folded as f. Each replayed event takes, on each rank, the
 * compute gap recorded before that execution (read from m as needed), so
 * that with o->no_skip this is the full replay. Otherwise a loop every rank
 * takes part in whose iterations repeat is replayed for a window and the
 * rest of its iterations are skipped: exactly (shifted at once) where the
 * replay repeats exactly, else statistically (each rank's compute from the
 * recorded gaps, the rest from the window; psk_sim_write_json gives the
 * estimate's standard error). docs/simulation.md says which loops. */
int psk_sim_run_folded(psk_merged *m, const psk_folded *f, const psk_sim_opts *o, psk_sim **out);
const char *psk_sim_errmsg(const psk_sim *s);
int psk_sim_nranks(const psk_sim *s);
double psk_sim_predicted(const psk_sim *s);    /* seconds: slowest rank's MPI_Finalize entry */
uint64_t psk_sim_events(const psk_sim *s);     /* of the trace, skipped iterations' included */
uint64_t psk_sim_replayed(const psk_sim *s);
/* rank 0's CPU power against the recording, and how it was found */
double psk_sim_power(const psk_sim *s, const char **why);   /* replayed one by one */
int psk_sim_folded(const psk_sim *s);
/* what the replay did about ranks sharing cores, in a line ("" nothing):
 * *state 0 nothing, 1 modelled (nodes with more ranks than cores), 2 taken
 * out (the recording's hosts had more ranks than cores, the target has a
 * core per rank) */
const char *psk_sim_sharing(const psk_sim *s, int *state);          /* 1 if run by psk_sim_run_folded */
/* the eager threshold the replay used: the machine's, or where it gives
 * none and the trace is MPICH's, MPICH's */
int64_t psk_sim_eager_bytes(const psk_sim *s);
int64_t psk_sim_skipped_iterations(const psk_sim *s);
double psk_sim_build_seconds(const psk_sim *s); /* of psk_sim_run_folded's time: building the folded program */
uint64_t psk_sim_buffered(const psk_sim *s);   /* rendezvous sends buffered to break a deadlock */
/* ranks whose trace ends before MPI_Finalize (a job killed or aborted:
 * replayed up to their last complete block); *first: the reader's message
 * for the first of them */
int psk_sim_ended_early(const psk_sim *s, const char **first);
int psk_sim_nintervals(const psk_sim *s);
const psk_interval *psk_sim_interval(const psk_sim *s, int i);
/* rank's timeline: PSK_TL_BINS bins of *bin_seconds each, per bin the
 * nanoseconds of compute, communication and waiting (3 doubles a bin);
 * all 0 unless opts.timeline was set */
#define PSK_TL_BINS 512
const double *psk_sim_timeline(const psk_sim *s, int rank, double *bin_seconds);
void psk_sim_close(psk_sim *s);

/* ---- what a report keeps of a replay beyond its intervals ---- */

/* per rank its calls (neighbours merged into segments once there are
 * many: memory and the report stay bounded), the time of each MPI
 * function per interval, and the communication matrix (bytes and
 * messages sent, per pair of ranks or of blocks of ranks) */
typedef struct psk_sim_detail psk_sim_detail;
/* NULL if out of memory */
psk_sim_detail *psk_sim_detail_new(int nranks);
/* points o's on_call, on_message and report_arg at d */
void psk_sim_detail_attach(psk_sim_detail *d, psk_sim_opts *o);
/* PSK_ENOMEM if memory ran out while it was filled (it is then partial) */
int psk_sim_detail_status(const psk_sim_detail *d);
void psk_sim_detail_free(psk_sim_detail *d);

/* one replay of a report, on one machine: name is what the page calls it
 * (the machine file's name); detail may be NULL */
typedef struct psk_sim_report_run {
    const psk_sim *sim;
    const psk_machine *machine;
    const char *name;
    const psk_sim_detail *detail;
} psk_sim_report_run;

/* reports: a text summary; JSON with "predicted_seconds" at the top */
void psk_sim_write_text(const psk_sim *s, FILE *out, int depth);
void psk_sim_write_json(const psk_sim *s, FILE *out, const psk_machine *m);
/* the same with one member more after "intervals", which more writes
 * (its key and value) through j, compact (src/common/psk_json.h): sim
 * --ranks's "extrapolation" */
struct psk_json;
void psk_sim_write_json_more(const psk_sim *s, FILE *out, const psk_machine *m,
                             void (*more)(void *arg, struct psk_json *j), void *arg);
/* the report as the next value of j (a writer in PSK_JSON_SPACED layout),
 * more as above or NULL: what psk_sim_write_json writes, inside another
 * document (sim --machine A --machine B --json's "runs") */
void psk_sim_json(const psk_sim *s, struct psk_json *j, const psk_machine *m,
                  void (*more)(void *arg, struct psk_json *j), void *arg);
/* one self-contained HTML page: the interval tree to walk, per-rank
 * tables, a timeline per rank and lost time per interval as SVG */
void psk_sim_write_html(const psk_sim *s, FILE *out, const psk_machine *m, const char *title);
/* the page for one or more replays of the same trace on different
 * machines: their comparison, then each one's timeline (zoomable, by
 * script), time per MPI function per interval, loop tree, communication
 * matrix and intervals; with a self-test the page runs when opened with
 * #selftest (docs/simulation.md) */
void psk_sim_write_html_runs(FILE *out, const char *title, const psk_sim_report_run *runs, int nruns);
/* text and JSON comparing the replays (sim --machine A --machine B) */
void psk_sim_write_compare_text(FILE *out, const psk_sim_report_run *runs, int nruns);
/* one JSON object per run, the elements of j's open array (spaced
 * layout, a line each): machine, predicted_seconds, ratio_to_first,
 * efficiency, and seconds summed over ranks of compute, mpi (not
 * waiting), waiting, idle */
void psk_sim_compare_json(struct psk_json *j, const psk_sim_report_run *runs, int nruns);

#endif
