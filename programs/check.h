/* perfskel check's parts: what a plain run measured, read from the files
 * the recording library's time-only mode writes (check_times.c), and the
 * results with their report, a table or JSON (check_report.c); the
 * command itself is cmd_check.c. */
#ifndef PSK_CHECK_H
#define PSK_CHECK_H

#include <stdio.h>

/* one plain run, from DIR/rank-NNNNNN.times (src/record/record_times.c) */
typedef struct psk_check_times {
    int nranks;      /* the job's size as its ranks said it (0: no rank file) */
    int started;     /* ranks that passed MPI_Init (their file is there) */
    int finalized;   /* ranks that reached MPI_Finalize */
    double seconds;  /* the slowest rank's MPI_Init exit to MPI_Finalize entry */
    char ended[200]; /* how the rank that ended worst ended ("rank 1 died of
                      * SIGSEGV before MPI_Finalize"), "" if every rank
                      * reached MPI_Finalize and exited with 0 */
} psk_check_times;
/* 0, or -1 if dir holds no rank file at all */
int psk_check_read_times(const char *dir, psk_check_times *t);
/* the files of a run in dir removed (before it runs again) */
void psk_check_clear_times(const char *dir);

/* a stage whose prediction is compared with the plain runs */
typedef struct psk_check_pred {
    int ran;              /* 1: a prediction; 0 and error[0]: failed; 0 alone: not run */
    double seconds;       /* predicted_seconds */
    char error[300];      /* why it failed */
} psk_check_pred;

typedef struct psk_check_result {
    char **cmd;           /* the job's command line, ncmd words */
    int ncmd;
    int flavour;          /* enum psk_flavour */
    int nranks;
    const char *dir;      /* where everything is kept */
    int runs;             /* plain runs made */
    double *plain, *wall; /* each plain run: program seconds, launcher wall seconds */
    double median, min, max, spread_pct, wall_median;
    int recorded_ok;
    double recorded;      /* the recording's slowest rank, MPI_Init to MPI_Finalize */
    long long events;
    int K;
    psk_check_pred predict;
    double skeleton, low, high; /* predict's skeleton_seconds and interval */
    psk_check_pred sim;
    const char *machine;  /* the machine file sim ran on */
    int calibrated;       /* 1: made by perfskel calibrate here */
} psk_check_result;

/* 100 (a - b) / b */
double psk_check_pct(double a, double b);
/* the table (stdout) */
void psk_check_report_text(FILE *out, const psk_check_result *r);
/* the same as one JSON object */
void psk_check_report_json(FILE *out, const psk_check_result *r);

#endif
