/* A line of the decision file (PSK_TUNE_DB, docs/tune.md "The decision
 * file") and the arms' and collectives' names it is written in: what the
 * tuning library and the CLI (perfskel tune --export-rules) share. No MPI
 * here: tune_dbline.c and tune_names.c build into both. A line is
 * untrusted input: psk_tune_db_parse takes it whole or refuses it. */
#ifndef PSK_TUNE_DBLINE_H
#define PSK_TUNE_DBLINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "perfskel/tune.h"

#define PSK_TUNE_NSAMP 16 /* agreed samples kept per arm */
#define PSK_TUNE_DB_MAXFILE (4 << 20) /* what is read of a decision file */

/* ---- tune_names.c: the table of perfskel/coll.h by name ---- */
/* the collective an arm belongs to, -1 for native (every one's), -2 if no arm */
int psk_tune_arm_coll(int arm);
const char *psk_tune_coll_name(int coll);     /* "alltoall", ... */
const char *psk_tune_coll_mpi_name(int coll); /* "MPI_Alltoall", ... */
/* an arm's name; its number from a name (-1 if none) */
const char *psk_tune_arm_name(int arm);
int psk_tune_arm_parse(const char *name);

/* ---- tune_dbline.c ---- */
/* A line of the decision file: psk1, a settled decision (the first
 * format, still read); psk2, what a group learnt so far, settled or not:
 * its calls, collective time and exploring's spending over the runs, the
 * incumbent, and per arm it compared its state and paired log ratios to
 * the incumbent (relative standing: no absolute time of an arm). */
#define PSK_TUNE_DB_MAXARMS 12
enum psk_tune_dbstate { PSK_TUNE_DB_START, PSK_TUNE_DB_EXPLORING, PSK_TUNE_DB_SETTLED };
typedef struct psk_tune_dbarm {
    int arm;
    char flag;               /* 'a' a candidate still, 'd' dropped, '-' neither */
    int rn;                  /* ratios held, oldest first */
    float r[PSK_TUNE_NSAMP]; /* log(probe / incumbent) of its paired calls */
} psk_tune_dbarm;
typedef struct psk_tune_dbent {
    int version; /* 1 or 2 */
    char machine[80], mpi[48], module[256];
    int P, sclass, arm; /* arm: the decision (psk1), the incumbent (psk2) */
    int coll; /* the arm's, or for native the one the line names */
    int state; /* enum psk_tune_dbstate; psk1: settled */
    uint64_t offset, calls;
    double arm_ns, native_ns; /* psk1: the arm's and native's time per call; psk2: native's only */
    double total_ns, spent_ns; /* psk2: the calls' time over the runs; what exploring spent of it */
    long long stamp;
    int narms; /* psk2 */
    psk_tune_dbarm arms[PSK_TUNE_DB_MAXARMS];
} psk_tune_dbent;

/* parses one line; 0 if valid, else -1 and *why says what is wrong */
int psk_tune_db_parse(const char *line, psk_tune_dbent *e, const char **why);
/* one entry as a line of the file */
void psk_tune_db_format(FILE *out, const psk_tune_dbent *e);
/* The valid lines of a file's text (modified: lines cut at their
 * newlines), in order, in *out (malloc'd, *nout of them; blank and #
 * lines ignored). *bad counts the refused ones; first (nfirst bytes) says
 * why the first was refused and on which line. PSK_OK, or PSK_ENOMEM
 * (what was parsed so far is kept in *out). */
int psk_tune_db_parse_text(char *text, psk_tune_dbent **out, int *nout, int *bad, char *first, size_t nfirst);

#endif
