/* perfskel check's measurements and verdict (src/run, with run.h): what a
 * plain run of the program measured, read from the files the recording
 * library's time-only mode leaves (run_times.c), and the comparison of
 * predict's and sim's predictions with the plain runs and the recording:
 * the plain runs' median and spread (the noise floor), each error, the
 * verdict, and the report of them as a table or JSON (run_check.c). The
 * command itself, which runs the stages, is programs/cmd_check.c. Nothing
 * here prints but to the stream the caller gives. */
#ifndef PERFSKEL_CHECK_H
#define PERFSKEL_CHECK_H

#include <stdio.h>

/* ---- one plain run, from DIR/rank-NNNNNN.times (src/record/record_times.c) ---- */
typedef struct psk_run_times {
    int nranks;      /* the job's size as its ranks said it (0: no rank file) */
    int started;     /* ranks that passed MPI_Init (their file is there) */
    int finalized;   /* ranks that reached MPI_Finalize */
    double seconds;  /* the slowest rank's MPI_Init exit to MPI_Finalize entry */
    char ended[200]; /* how the rank that ended worst ended ("rank 1 died of
                      * SIGSEGV before MPI_Finalize"), "" if every rank
                      * reached MPI_Finalize and exited with 0 */
} psk_run_times;
/* PSK_OK, or PSK_ENOTFOUND if dir holds no rank file at all */
int psk_run_times_read(const char *dir, psk_run_times *t);
/* the files of a run in dir removed (before it runs again) */
void psk_run_times_clear(const char *dir);

/* ---- the check: what was measured and predicted, and its verdict ---- */
typedef struct psk_run_check psk_run_check;
/* the stages whose prediction is compared with the plain runs */
enum { PSK_RUN_CHECK_PREDICT, PSK_RUN_CHECK_SIM };
/* the longest error a stage keeps (less 1 for the NUL) */
#define PSK_RUN_CHECK_ERRLEN 300
/* A check of the job cmd (ncmd words, kept by pointer: they must outlive
 * it) under MPI flavour (enum psk_flavour), everything kept in dir (kept
 * by pointer too), of runs plain runs and a predict with K; NULL if
 * memory ran out. */
psk_run_check *psk_run_check_new(char **cmd, int ncmd, int flavour, const char *dir, int runs, int K);
/* plain run k (0 on) took seconds (MPI_Init to MPI_Finalize, the slowest
 * rank) and wall seconds of its launcher */
void psk_run_check_plain(psk_run_check *c, int k, double seconds, double wall);
/* the recording: the job's ranks, its slowest rank's seconds, its events */
void psk_run_check_recorded(psk_run_check *c, int nranks, double seconds, long long events);
/* predict's predicted_seconds, skeleton_seconds and interval */
void psk_run_check_predicted(psk_run_check *c, double seconds, double skeleton, double low, double high);
/* the machine file sim runs on (copied), made by perfskel calibrate here
 * or not: PSK_OK or PSK_ENOMEM */
int psk_run_check_machine(psk_run_check *c, const char *machine, int calibrated);
/* sim's predicted_seconds */
void psk_run_check_simulated(psk_run_check *c, double seconds);
/* stage (PSK_RUN_CHECK_*) failed, error saying why (one line) */
void psk_run_check_failed(psk_run_check *c, int stage, const char *error);
/* 1 if both predict and sim gave a prediction */
int psk_run_check_ok(const psk_run_check *c);
/* the table, its verdict judged against the plain runs' spread */
void psk_run_check_write_text(FILE *out, const psk_run_check *c);
/* the same as one JSON object, then a newline */
void psk_run_check_write_json(FILE *out, const psk_run_check *c);
void psk_run_check_free(psk_run_check *c); /* NULL is fine */

#endif
