/* perfskel performance skeletons: a small C MPI program that
 * makes the same calls as the recorded one, rank by rank and in each rank's
 * order, with its loops scaled down K times and its computation emulated by
 * calibrated work, and that prints the run time it predicts for the
 * original. */
#ifndef PERFSKEL_GEN_H
#define PERFSKEL_GEN_H

#include <stdio.h>

#include "perfskel/fold.h"
#include "perfskel/merge.h"

typedef struct psk_gen_opts {
    /* the skeleton runs about 1/K of the original: loops run a sample of
     * their iterations, compute left over runs shorter (psk_gen_loop) */
    int K;
    /* runs of at least this many calls outside loops are replayed from data
     * (one interpreter in the skeleton) instead of written as code; 0: the
     * default (PSK_GEN_TABLE_MIN) */
    int table_min;
    /* a sampled loop's steady iterations: at least this many (0: the
     * default, PSK_GEN_FLOOR_ITERS) and at least this long in the
     * original, in all the runs of the loop (< 0: the default,
     * PSK_GEN_FLOOR_SECONDS, or PSK_GEN_FLOOR_SECONDS_CROWDED where a host
     * ran more ranks than cores; 0: no floor in time) */
    int floor_iters;
    double floor_seconds;
    /* 1: the skeleton's ranks run where the system puts them. 0 (the
     * default): where the recording's host ran more ranks than cores and
     * each of its ranks stayed on one CPU (psk_ranks_placed), a rank run
     * on that host again runs on the CPU its recorded rank stayed on:
     * which ranks share a core decides how they take turns on it, and the
     * recorded run had that placement (psk_gen_pinned) */
    int no_pin;
} psk_gen_opts;
#define PSK_GEN_TABLE_MIN 32
#define PSK_GEN_FLOOR_ITERS 2
#define PSK_GEN_FLOOR_SECONDS 0.04
/* ranks taking turns on cores run a sampled loop at the pace of the
 * scheduler's placement, which a few slices do not show: the default
 * floor where the recording had more ranks than cores on a host, whose
 * sampled loops also keep their compute in full (gen_plan.c) */
#define PSK_GEN_FLOOR_SECONDS_CROWDED 0.25

/* A skeleton made in memory, then written out (opaque). */
typedef struct psk_gen psk_gen;

/* Makes the skeleton of merged trace m, folded as f (with its statistics
 * computed). m must have been merged without reordering
 * (psk_merge_opts.no_reorder): each rank replays its calls in its own
 * order, which makes the skeleton deadlock-free when the original was.
 * Returns PSK_OK or a negative psk_status (PSK_EFORMAT: the trace cannot
 * be replayed, PSK_EINVAL: bad options, PSK_ENOMEM); *out is set unless
 * memory ran out, so that psk_gen_errmsg says why in one line. m and f
 * must outlive *out. */
int psk_gen_open(psk_merged *m, psk_folded *f, const psk_gen_opts *o, psk_gen **out);
/* Writes the skeleton's C source to out: PSK_OK, or PSK_EIO if out failed. */
int psk_gen_write(psk_gen *g, FILE *out);
const char *psk_gen_errmsg(const psk_gen *g); /* NULL: "out of memory" */

/* What the skeleton runs of each loop of the folded tree (tree order).
 * A sampled loop runs its first `cold` iterations, counted once, and
 * ran - cold of the others spread evenly, each standing for
 * (count - cold) / (ran - cold); compute inside it runs 1/compute_factor
 * of its time, the rest credited at the recorded speed. */
typedef struct psk_gen_loop {
    int32_t loop;          /* its node in the folded tree */
    int32_t parent;        /* the loop around it, -1 if none */
    int64_t count;         /* iterations of one execution in the original */
    int64_t execs;         /* its executions in the original */
    int64_t cold, ran;     /* iterations counted once; run per execution */
    double iter_seconds;   /* the original's time per iteration, slowest rank */
    double compute_factor; /* compute inside it runs this many times shorter */
    int sampled;
    const char *why;       /* one line: why it runs as it does */
} psk_gen_loop;
const psk_gen_loop *psk_gen_loops(const psk_gen *g, int *n);
/* how many ranks the skeleton puts on the CPUs their recorded ranks
 * stayed on, when run on their recorded hosts (psk_gen_opts.no_pin); its
 * rank 0 says how many it did (psk_skeleton_output_pinned) */
int psk_gen_pinned(const psk_gen *g);
/* the original's time the skeleton leaves out on rank r (loops sampled,
 * compute credited), seconds */
double psk_gen_saved_seconds(const psk_gen *g, int r);
/* Each rank's run time in m, folded as f, as perfskel stats counts it
 * (psk_trace_apptime), in seconds (seconds: psk_merged_nranks(m) of
 * them), from a walk of f beside m (gen_times.c). PSK_OK, PSK_ENOMEM, or
 * PSK_EMISMATCH or PSK_EFORMAT if m does not match f. */
int psk_gen_rank_seconds(psk_merged *m, const psk_folded *f, double *seconds);
/* The recorded run time (the slowest of rank_seconds) and the one the
 * skeleton g should take: per rank its run time less what g leaves out
 * of it (psk_gen_saved_seconds), the slowest rank's. */
void psk_gen_expected(const psk_gen *g, const double *rank_seconds, int nranks, double *recorded, double *expected);
void psk_gen_close(psk_gen *g);               /* NULL is fine */

/* ---- what a skeleton says when it runs, read back (gen_output.c) ---- */
/* The line a skeleton's rank 0 prints last, and its parser. */
#define PSK_SKELETON_TAG "perfskel-skeleton:"
typedef struct psk_skeleton_result {
    double predicted_seconds, skeleton_seconds;
    int K;
} psk_skeleton_result;
int psk_skeleton_parse(const char *line, psk_skeleton_result *r); /* 0 if it is the result line */

/* A sampled loop's line of rank 0's output: what it ran and stands for. */
typedef struct psk_skeleton_phase {
    int loop; /* its node in the folded tree (psk_gen_loop.loop) */
    long long count, ran;
    double seconds, predicted_seconds;
} psk_skeleton_phase;
/* One run's standard output read (opaque): its prediction (the last
 * result line), its phases and the compute it credited. */
typedef struct psk_skeleton_output psk_skeleton_output;
/* Reads text (a run's standard output, len bytes and a NUL after them;
 * its lines are cut in place, at each '\n' up to the first NUL byte):
 * PSK_OK, PSK_EFORMAT (no result line: *out set all the same) or
 * PSK_ENOMEM (*out NULL). */
int psk_skeleton_output_read(char *text, size_t len, psk_skeleton_output **out);
const psk_skeleton_result *psk_skeleton_output_result(const psk_skeleton_output *o);
/* the phase of loop, NULL if the run printed none */
const psk_skeleton_phase *psk_skeleton_output_phase(const psk_skeleton_output *o, int loop);
/* the compute run in part, credited at the recorded speed (slowest rank), seconds */
double psk_skeleton_output_credited(const psk_skeleton_output *o);
/* how many ranks ran on the CPUs their recorded ranks stayed on
 * (psk_gen_pinned), -1 if the run did not say */
int psk_skeleton_output_pinned(const psk_skeleton_output *o);
void psk_skeleton_output_free(psk_skeleton_output *o); /* NULL is fine */
/* Of n runs of one skeleton: the one whose prediction is the median (an
 * index), and the range of the n predictions, *lo to *hi. If the runs are
 * exchangeable, a further run falls inside it with probability
 * (n - 1) / (n + 1), whatever their distribution. */
int psk_skeleton_median(psk_skeleton_output *const *runs, int n, double *lo, double *hi);

/* Where a rank of a stopped skeleton was: the lines its ranks print on
 * SIGTERM (PSK_SKELETON_POSITION_TAG " rank=R loop=L iter=I event=E
 * fn=MPI_Name", on stderr) and the file named by PSK_SKELETON_POSITIONS in
 * its environment, where rank r keeps the same at offset 64 r. */
#define PSK_SKELETON_POSITION_TAG PSK_SKELETON_TAG " position"
typedef struct psk_skeleton_position {
    int seen;  /* 0: the rank said nothing */
    int loop;  /* -1: outside loops */
    int event;
    long long iter;
    char fn[64];
} psk_skeleton_position;
/* pos[0..P-1] from the position lines among caught (ncaught bytes of the
 * run's stderr, NULL if none), then from the slots of posfile (which may
 * not exist): a rank said twice, the later; the number of ranks seen. */
int psk_skeleton_positions(const char *caught, size_t ncaught, const char *posfile, int P, psk_skeleton_position *pos);

#endif
