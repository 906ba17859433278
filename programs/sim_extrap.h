/* sim --ranks: extrapolation for perfskel sim (programs/sim_extrap.c) */
#ifndef PSK_SIM_EXTRAP_H
#define PSK_SIM_EXTRAP_H

#include <stdio.h>

#include "perfskel/extrap.h"
#include "perfskel/sim.h"

/* the P2-rank merged trace of input (and fit) folded, and the report; NULL
 * after saying why not, *exit_code the status to exit with */
psk_folded *psk_cli_extrapolate(const char *input, const char *const *fit, int nfit, int ranks, int scale,
                                psk_merged **out, psk_extrap_report *rep, int *exit_code);
void psk_cli_extrap_text(FILE *out, const psk_extrap_report *rep, const char *input, const char *const *fit);
/* sim's JSON with "extrapolation" in it; -1 out of memory */
int psk_cli_extrap_sim_json(FILE *out, const psk_sim *s, const psk_machine *m, const psk_extrap_report *rep,
                            const char *input, const char *const *fit);

#endif
