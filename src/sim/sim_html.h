/* The pieces of perfskel sim's HTML report (sim_html*.c): escaping of
 * untrusted names, the data its script reads, the tables, and the
 * stylesheet and script themselves. */
#ifndef PSK_SIM_HTML_H
#define PSK_SIM_HTML_H

#include <stdio.h>

#include "perfskel/sim.h"

/* text or an attribute's value: & < > " ' escaped */
void psk_html_esc(FILE *out, const char *s);
/* the sum over ranks of interval i's metric k */
double psk_html_total(const psk_sim *s, int i, int k);
/* the id prefix of run k's elements ("" for the first: its intervals keep
 * the ids iv0, iv1, ...) into buf */
void psk_html_prefix(int k, char *buf, size_t cap);

/* the MPI functions any run called, each its index in id order (its
 * colour, here and in the script: psk_html_fn_colour), -1 for the others:
 * psk_fn_count() entries, malloc'ed (NULL: out of memory) */
int *psk_html_fn_index(const psk_sim_report_run *runs, int nruns);
const char *psk_html_fn_colour(int index);

/* <script type="application/json" id="psk-data">: per run its name,
 * prediction and each shown rank's calls as segments (merged to stay
 * within a budget: the page stays a few MB for any trace) */
void psk_html_data(FILE *out, const psk_sim_report_run *runs, int nruns, const int *fnidx);
/* time per MPI function per interval (a table with stacked bars) */
void psk_html_functions(FILE *out, const psk_sim_report_run *run, const int *ord, int n, const int *fnidx);
/* the interval and loop tree with each one's time and efficiency */
void psk_html_loops(FILE *out, const psk_sim_report_run *run, const int *ord, int n, const char *prefix);
/* the communication matrix (a heat map of bytes) */
void psk_html_matrix(FILE *out, const psk_sim_detail *d);
/* the comparison of the runs (predicted time, efficiency, where the time goes) */
void psk_html_compare(FILE *out, const psk_sim_report_run *runs, int nruns);

extern const char psk_html_style[];
extern const char psk_html_script[];

#endif
