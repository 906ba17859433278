/* perfskel tune --export-rules (tune_rules.c): the decisions of a decision
 * file as an MPI library's own selection rules, to use with no perfskel
 * library loaded: Open MPI 4.1's coll_tuned dynamic rules file, MPICH
 * 4.0's collective selection JSON (docs/tune.md "Taking the decisions
 * home"). No MPI here: the CLI links it. */
#ifndef PSK_TUNE_RULES_H
#define PSK_TUNE_RULES_H

#include <stddef.h>
#include <stdio.h>

#include "tune_dbline.h"

enum psk_tune_rules_format { PSK_TUNE_RULES_OPENMPI = 1, PSK_TUNE_RULES_MPICH = 2 };

typedef struct psk_tune_rules_opts {
    int format;             /* enum psk_tune_rules_format */
    const char *machine;    /* NULL: the one machine the file has for that MPI */
    const char *source;     /* the decision file's name, for the output's comments */
    const char *mpich_base; /* MPICH: a complete selection JSON (its built-in one): what
                             * is not exported keeps it */
} psk_tune_rules_opts;

/* what was written, for the CLI's one line */
typedef struct psk_tune_rules_summary {
    char machine[80], mpi[48];
    int decisions; /* (collective, ranks, size class) exported, native ones included */
    int rules;     /* of which not native: a rule naming an algorithm */
    int nearest;   /* of which on an algorithm that is the nearest, not the arm */
    int disagree;  /* (collective, ranks, class) whose sites chose differently */
} psk_tune_rules_summary;

/* Writes the rules of entries e[0..n) (a decision file's valid lines) for
 * o->format to out. PSK_OK; else PSK_ENOTFOUND (no usable decision),
 * PSK_EINVAL (several machines or builds and none chosen), PSK_EFORMAT
 * (o->mpich_base not a selection JSON) or PSK_ENOMEM, with one line in
 * err (errcap bytes) and nothing written. */
int psk_tune_rules_write(const psk_tune_dbent *e, int n, const psk_tune_rules_opts *o, FILE *out,
                         psk_tune_rules_summary *sum, char *err, size_t errcap);

/* The MPIR-level selection JSON built into an MPICH 4 library, found in
 * its bytes (bytes[0..n)): *json a NUL-terminated copy (free it).
 * PSK_OK, PSK_ENOTFOUND, PSK_ENOMEM. */
int psk_tune_rules_mpich_builtin(const char *bytes, size_t n, char **json);

#endif
