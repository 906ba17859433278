/* The source of calibrate's MPI program as perfskel writes it out to be
 * built: the work kernel and its timing (psk_work.h's text, which the
 * program calls), then calibrate_prog.c, embedded as text at build time
 * (embed.awk: psk_calibrate_prog_text). */
#include <stdio.h>

#include "perfskel/sim.h"
#include "psk_work.h"

extern const char psk_calibrate_prog_text[];

int psk_calibrate_write_source(FILE *out)
{
    if (fputs(PSK_WORK_SOURCE, out) < 0 || fputs(PSK_WORK_TIME_SOURCE, out) < 0 ||
        fputs(psk_calibrate_prog_text, out) < 0)
        return PSK_EIO;
    return PSK_OK;
}
