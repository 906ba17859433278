/* perfskel advise: how to distribute a program's arrays and loop
 * iterations over P processors (data space fusion, each layout costed with
 * the DVM Predictor's formulas for distributed arrays on a perfskel
 * machine model). A program is
 * read from a small description language (docs/advise.md); the advice is
 * the best layout and the runners-up, with per-nest messages, bytes and
 * times, and the redistributions between nests that pay off. */
#ifndef PERFSKEL_ADVISE_H
#define PERFSKEL_ADVISE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "perfskel/common.h"
#include "perfskel/machine.h"

typedef struct psk_adv_program psk_adv_program;

/* a parameter given on the command line (`-D N=1024`), overriding the
 * file's `param N = ...` */
typedef struct psk_adv_define {
    const char *name;
    int64_t value;
} psk_adv_define;

/* Parses text (the contents of the file path, named in messages). *out is
 * set even on failure (unless memory ran out) so that
 * psk_adv_program_errmsg says "PATH:LINE:COL: what is wrong". PSK_OK,
 * PSK_EINVAL (bad input) or PSK_ENOMEM. */
int psk_adv_parse(const char *text, size_t len, const char *path,
                  const psk_adv_define *defs, int ndefs, psk_adv_program **out);
/* Reads and parses a file (PSK_EIO if it cannot be read). */
int psk_adv_load(const char *path, const psk_adv_define *defs, int ndefs,
                 psk_adv_program **out);
const char *psk_adv_program_errmsg(const psk_adv_program *p);
/* the file's `machine "FILE"` (resolved against its directory), or NULL */
const char *psk_adv_program_machine(const psk_adv_program *p);
void psk_adv_program_free(psk_adv_program *p);

typedef struct psk_adv_options {
    int64_t procs;       /* P; 0: the file's `procs` */
    int maxdims;         /* grid axes at most; 0: the file's (default 2) */
    int top;             /* layouts to report (the best and runners-up); 0: 5 */
    int static_only;     /* 1: one layout for the whole program, no redistribution */
    int threads;         /* threads costing layouts and transitions (the
                          * result does not depend on it); 0: the online
                          * CPUs, at most 8 */
    int64_t max_steps;   /* the search refuses a program (one line saying
                          * why) rather than cost more than this many
                          * processor-iterations: layouts x processors x
                          * the outer seq iterations whose cost differs;
                          * 0: PSK_ADV_MAX_STEPS */
} psk_adv_options;

#define PSK_ADV_MAX_STEPS 200000000LL /* a few minutes at most, here */

typedef struct psk_advice psk_advice;

/* Advises program p on machine m. *out is set even on failure (unless
 * memory ran out); psk_advice_errmsg says why. */
int psk_adv_run(const psk_adv_program *p, const psk_machine *m,
                const psk_adv_options *o, psk_advice **out);
const char *psk_advice_errmsg(const psk_advice *a);
void psk_adv_write_text(const psk_advice *a, FILE *out);
void psk_adv_write_json(const psk_advice *a, FILE *out);
void psk_advice_free(psk_advice *a);

/* Writes a synthetic trace of a's plan into the directory dir (created),
 * in perfskel's trace format, for `perfskel sim`: P ranks, each nest's
 * communication as MPI_Isend / MPI_Irecv / MPI_Waitall on MPI_COMM_WORLD
 * and its compute as the gaps between them, each nest and each
 * redistribution an MPI_Pcontrol interval (their names in
 * dir/intervals.txt); docs/advise.md "The trace and the simulator".
 * PSK_OK; PSK_EINVAL (more than 50 million events: nothing is written),
 * PSK_EIO or PSK_ENOMEM with a one-line message in err (errlen bytes). */
int psk_adv_write_trace(const psk_advice *a, const char *dir, char *err, size_t errlen);

#endif
