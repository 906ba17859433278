/* Shared by the perfskel subcommands: error reporting and exit codes.
 * Every user-caused error is one line, "perfskel: <file>: <problem>". */
#ifndef PSK_CLI_H
#define PSK_CLI_H

#include <stdio.h>

#define PSK_EXIT_DATA 1  /* bad input data, or the job failed */
#define PSK_EXIT_USAGE 2 /* bad command line */

void psk_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int psk_cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* runcmd.c: runs argv with its stdout into out; its exit status */
int psk_cli_run(char **argv, FILE *out);
/* builds src into bin with the mpicc of flavour (enum psk_flavour), quietly;
 * 0, or PSK_EXIT_DATA after saying why */
int psk_cli_mpicc(int flavour, const char *src, const char *bin, int with_stdint);

/* launcher.c */
const char *psk_base_name(const char *path);
/* enum psk_flavour of a launcher: by its name, its symlinks' target, or its --version */
int psk_launcher_flavour(const char *launcher);
/* the enum psk_flavour an --mpi argument names, 0 if none */
int psk_cli_mpi_arg(const char *name);
/* given (from --mpi) or the launcher's MPI; 0 after saying it cannot tell */
int psk_cli_launcher_mpi(int given, const char *launcher);

/* load.c: a trace directory (merged here) or merged-trace file; NULL after
 * printing why not */
#include "perfskel/merge.h"
psk_merged *psk_cli_load_merged(const char *input, int no_reorder);

/* cmd_gen.c: the skeleton of a trace directory or merged trace to out */
int psk_cli_make_skeleton(const char *input, int K, FILE *out, const char *outname);
int psk_cli_parse_k(const char *s, int *K);

/* sim_loops.c: the loops of a trace as marks for perfskel sim; free with
 * psk_cli_sim_loops_free */
#include "perfskel/fold.h"
#include "perfskel/sim.h"
/* load.c: the machine file (defaults without one) and the trace
 * directory of sim and export; -1 after saying what is wrong */
int psk_cli_open_machine_trace(const char *machine, const char *input, psk_machine *m, psk_trace **t);
/* load.c: the machine file (defaults without one); -1 after saying what is wrong */
int psk_cli_load_machine(const char *machine, psk_machine *m);
/* load.c: a trace directory or merged trace, merged without reordering (each
 * rank keeps its own order) and folded (runs); NULL after saying why not */
psk_folded *psk_cli_load_folded(const char *input, psk_merged **m);
/* load.c: seconds on the monotonic clock */
double psk_cli_now(void);
int psk_cli_sim_loops(const char *input, int maxdepth, psk_sim_opts *o, psk_sim_marks **marks,
                      psk_folded **f, psk_merged **m);
void psk_cli_sim_loops_free(psk_sim_marks *marks, int P, psk_folded *f, psk_merged *m);
/* "loop N (C iterations)": the name of loop node key of the psk_folded arg */
void psk_cli_loop_name(void *arg, int32_t key, char *buf, size_t cap);

int cmd_record(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_fold(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_export(int argc, char **argv);

#endif
