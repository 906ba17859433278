/* Shared by the perfskel subcommands: error reporting and exit codes.
 * Every user-caused error is one line, "perfskel: <file>: <problem>". */
#ifndef PSK_CLI_H
#define PSK_CLI_H

#include "perfskel/convert.h"
#include "perfskel/gen.h"
#include "perfskel/run.h"
#include <limits.h>
#include <pthread.h>
#include <stdio.h>

#define PSK_EXIT_DATA 1  /* bad input data, or the job failed */
#define PSK_EXIT_USAGE 2 /* bad command line */

void psk_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int psk_cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* a number of seconds for an option (--timeout and the like): 0 (no limit)
 * or more, at most 1e9; 0 and *out set, else -1 */
int psk_cli_seconds(const char *s, double *out);

/* hugepages.c: perfskel starts itself again, once, with glibc's malloc
 * asking for transparent huge pages (PERFSKEL_HUGEPAGES=0: not), and with
 * one_arena every thread's blocks in the main arena; returns in the
 * second start, the environment as given, or where it cannot */
void psk_cli_hugepages(char **argv, int one_arena);

/* run.c: src/run's calls (perfskel/run.h) that fail, their message said
 * and an exit code returned; the files a signal removes */
/* until perfskel exits: a SIGINT, SIGTERM or SIGHUP outside a run removes
 * files and then dir (either may be NULL/0) and perfskel dies of it */
void psk_cli_cleanup_on(const char *dir, const char *const *files, int nfiles);
/* removes the registered files and dies of sig */
void psk_cli_die(int sig) __attribute__((noreturn));
/* the enum psk_flavour an --mpi argument names, 0 if none */
int psk_cli_mpi_arg(const char *name);
/* given (from --mpi) or the launcher's MPI; 0 after saying it cannot tell */
int psk_cli_launcher_mpi(int given, const char *launcher);
/* psk_run_launch_run: the job's exit status, 127 (after saying why) if it
 * could not start */
int psk_cli_launch_run(const psk_run_launch *l);
/* psk_run_mpicc_find: 0, or PSK_EXIT_USAGE after saying what is wrong */
int psk_cli_mpicc_find(const char *given, int flavour, const char *launcher, psk_run_mpicc *cc);
/* builds src into bin with cc, quietly, within limit seconds (hint, if not
 * NULL, says in the timeout message how to change it); 0, or PSK_EXIT_DATA
 * after saying why (nothing said if a signal ended it: psk_run_interrupted) */
#define PSK_CLI_BUILD_LIMIT 600.0
int psk_cli_mpicc_within(const psk_run_mpicc *cc, const char *src, const char *bin, int with_stdint, double limit,
                         const char *hint);
int psk_cli_mpicc_build(const psk_run_mpicc *cc, const char *src, const char *bin, int with_stdint); /* PSK_CLI_BUILD_LIMIT */
/* psk_run_stack_run: its exit status as psk_cli_launch_run's */
int psk_cli_stack_run(const char *role, int flavour, char **cmd, const char *const *names, int nnames);
/* psk_run_stack_inner: 0, or an exit status after saying what is wrong */
int psk_cli_stack_inner(const char *role, int flavour, const char *lib, char *libs, size_t cap,
                        const char *const *names, int nnames, const char ***all, int *nall);

/* progress.c: a long step's progress on stderr (a bar on a terminal, plain
 * lines from 2 s on otherwise); quiet: nothing */
typedef struct psk_cli_progress {
    const char *who;        /* the command: "perfskel WHO: ..." */
    const char *unit;       /* what a count without a total counts ("events") */
    const char *step_count; /* psk_cli_progress_cb's step names: while it counts (total 0) */
    const char *step_total; /* and once it has a total */
    char step[64];
    int tty, quiet, bar, lines, tenth;
    uint64_t done, total;
    double after, t0, step0, last;
    /* a timed step's thread (psk_cli_progress_timed) */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int timed, stop;
} psk_cli_progress;
void psk_cli_progress_init(psk_cli_progress *p, const char *who, int quiet);
/* a new step (the previous one ended), total units (0: not known) */
void psk_cli_progress_step(psk_cli_progress *p, const char *step, uint64_t total);
void psk_cli_progress_set(psk_cli_progress *p, uint64_t done);
/* a new step of a library call that says nothing while it runs (reading a
 * merged file, folding): a thread says how long it has run (each second on
 * a terminal, each 10 s in plain lines, from 2 s on) until the step ends */
void psk_cli_progress_timed(psk_cli_progress *p, const char *step);
/* the step ended: the bar wiped, or a last plain line */
void psk_cli_progress_done(psk_cli_progress *p);
/* a library's progress callback (merge's): total 0 while counting */
void psk_cli_progress_cb(void *arg, uint64_t done, uint64_t total);
/* runs a converter of perfskel/convert.h (import or export) from in to
 * out, its progress and its notes on stderr (quiet: neither): an exit
 * status, after saying what is wrong */
int psk_cli_convert(int (*fn)(const char *, const char *, const psk_convert_opts *, char *, size_t), const char *in,
                    const char *out, const char *who, int quiet);

/* load.c: a trace directory (merged here) or merged-trace file; NULL after
 * printing why not */
#include "perfskel/merge.h"
psk_merged *psk_cli_load_merged(const char *input, int no_reorder);
/* the same with the merge's options (window, order, progress) */
psk_merged *psk_cli_load_merged_opts(const char *input, const psk_merge_opts *o);

/* cmd_gen.c: the skeleton of a trace directory or merged trace to out;
 * with info, what predict needs to know of it */
typedef struct psk_cli_skelinfo {
    const char *progress;    /* in: "predict": each step said on stderr; NULL: quiet */
    int nranks;
    double recorded_seconds; /* the slowest rank's run time, as perfskel stats */
    /* the skeleton's likely run time: per rank, its run time less what
     * the skeleton leaves out of it; the slowest rank (psk_gen_expected) */
    double expected_seconds;
    psk_gen_loop *loops;     /* out: what the skeleton runs of each loop (free it) */
    int nloops;
    int pin;                 /* ranks the skeleton puts on their recorded CPUs (psk_gen_pinned) */
} psk_cli_skelinfo;
int psk_cli_make_skeleton(const char *input, const psk_gen_opts *go, FILE *out, const char *outname,
                          psk_cli_skelinfo *info);
int psk_cli_parse_k(const char *s, int *K);

#include "perfskel/fold.h"
#include "perfskel/sim.h"
#include "psk_json.h"

/* load.c: a trace directory opened; NULL after saying why not */
psk_trace *psk_cli_open_trace(const char *dir);
/* load.c: the machine file (defaults without one) and the trace
 * directory of sim and export; -1 after saying what is wrong */
int psk_cli_open_machine_trace(const char *machine, const char *input, psk_machine *m, psk_trace **t);
/* load.c: the machine file (defaults without one); -1 after saying what is wrong */
int psk_cli_load_machine(const char *machine, psk_machine *m);
/* load.c: a trace directory or merged trace, merged without reordering (each
 * rank keeps its own order) and folded (runs); NULL after saying why not */
psk_folded *psk_cli_load_folded(const char *input, psk_merged **m);
/* the same with the merge's progress reported through mo (window and order as above) */
psk_folded *psk_cli_load_folded_opts(const char *input, const psk_merge_opts *mo, psk_merged **m);
/* load.c: p set up to show a merge's progress through o's callback
 * ("perfskel WHO: merging: ...", "perfskel: merging..." if who is NULL) */
void psk_cli_merge_progress(psk_cli_progress *p, psk_merge_opts *o, const char *who, int quiet);
/* load.c: seconds on the monotonic clock */
double psk_cli_now(void);

/* options.c: a command's options, one table that drives its parser
 * (psk_cli_next), main's normalise step and (tests/cli/options_help.sh)
 * the options its --help lists. */
#define PSK_OPT_FLAG 0  /* takes no value */
#define PSK_OPT_VALUE 1 /* takes the next argument, whatever it looks like (--opt=V: main splits it) */
#define PSK_OPT_GLUED 2 /* with VALUE: also glued to a short name (-DNAME=V) */
#define PSK_OPT_MORE 4  /* with VALUE: a second one if the next argument is no option (sim --fit B [C]) */
typedef struct psk_cli_opt {
    const char *name;  /* "-o", "--json" */
    const char *alias; /* the same option by another name ("--quiet" for -q), or NULL */
    int kind;          /* PSK_OPT_* */
} psk_cli_opt;
/* where the job's command line starts, for the commands that run one */
#define PSK_CLI_JOB_NONE 0  /* none: "--" is an unknown option */
#define PSK_CLI_JOB_AFTER 1 /* after "--" (predict, check, calibrate) */
#define PSK_CLI_JOB_AT 2    /* after "--", or at the first operand (record, tune: the launcher) */
typedef struct psk_cli_opts {
    const char *cmd;          /* "gen": its messages start "gen: " */
    const psk_cli_opt *opt;   /* psk_cli_next returns an option's index here */
    int n;
    int job;                  /* PSK_CLI_JOB_* */
    const char *help;         /* its own --help text (predict, check); NULL: perfskel.c's usage */
    const char *lacks;        /* after "unknown option 'X'" (said too of a value missing) */
} psk_cli_opts;
#define PSK_CLI_OPTS(table) (table), (int)(sizeof(table) / sizeof *(table))
/* The command line of a command read one way: every `--opt=value` before
 * the job becomes `--opt value` in *out (a new argv, the strings shared
 * with argv or malloc'd); a flag given a value or an unknown `--name=value`
 * is an error. *help: -h or --help among those options. 0, or the exit
 * status after saying what is wrong. */
int psk_cli_normalise(const psk_cli_opts *o, int argc, char **argv, char ***out, int *outc, int *help);
typedef struct psk_cli_args {
    const psk_cli_opts *o;
    int argc;
    char **argv;
    int i;                  /* the next argument; at PSK_CLI_END, where the job starts */
    const char *val, *val2; /* the option's value (PSK_OPT_MORE's second, or NULL), or the operand */
    int status;             /* at PSK_CLI_STOP, the exit status */
} psk_cli_args;
#define PSK_CLI_END (-1)     /* no more options (the job, if any, is argv + i) */
#define PSK_CLI_OPERAND (-2) /* an operand, in val */
#define PSK_CLI_STOP (-3)    /* its help printed, or an unknown option said: return status */
void psk_cli_begin(psk_cli_args *a, const psk_cli_opts *o, int argc, char **argv);
/* the index in o->opt of the next option, or PSK_CLI_* */
int psk_cli_next(psk_cli_args *a);

/* merge_args.c: perfskel merge's command line, read by cmd_merge.c and by
 * the merge over MPI processes (merge_mpi.c) with merge's one table */
typedef struct psk_cli_merge_args {
    const char *dir, *out;
    char *out_default; /* out when -o is not given: DIR/merged.pskm (free it) */
    int json, quiet, in_memory;
    psk_merge_opts mo; /* its window, order, polls and times */
} psk_cli_merge_args;
/* merge's table but --in-memory, its messages "merge --mpi: ..." */
extern const psk_cli_opts psk_cli_merge_mpi_opts;
/* 0, or the exit status after saying what is wrong */
int psk_cli_merge_parse(const psk_cli_opts *o, int argc, char **argv, psk_cli_merge_args *m);
/* what was merged, on stdout: JSON, or one line unless -q; processes: the
 * MPI driver's (0: perfskel merge itself) */
void psk_cli_merge_print(const psk_cli_merge_args *m, const psk_merge_result *res, double secs, int processes);

/* each command (cmd_<name>.c) and its table of options */
int cmd_record(int argc, char **argv);
extern const psk_cli_opts cmd_record_opts;
int cmd_stats(int argc, char **argv);
extern const psk_cli_opts cmd_stats_opts;
int cmd_dump(int argc, char **argv);
extern const psk_cli_opts cmd_dump_opts;
int cmd_merge(int argc, char **argv);
extern const psk_cli_opts cmd_merge_opts;
int cmd_fold(int argc, char **argv);
extern const psk_cli_opts cmd_fold_opts;
int cmd_gen(int argc, char **argv);
extern const psk_cli_opts cmd_gen_opts;
int cmd_predict(int argc, char **argv);
extern const psk_cli_opts cmd_predict_opts;
int cmd_sim(int argc, char **argv);
extern const psk_cli_opts cmd_sim_opts;
int cmd_check(int argc, char **argv);
extern const psk_cli_opts cmd_check_opts;
int cmd_calibrate(int argc, char **argv);
extern const psk_cli_opts cmd_calibrate_opts;
int cmd_export(int argc, char **argv);
extern const psk_cli_opts cmd_export_opts;
int cmd_import(int argc, char **argv);
extern const psk_cli_opts cmd_import_opts;
int cmd_tune(int argc, char **argv);
extern const psk_cli_opts cmd_tune_opts;
int cmd_advise(int argc, char **argv);
extern const psk_cli_opts cmd_advise_opts;

#endif
