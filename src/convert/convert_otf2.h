/* What perfskel's OTF2 reader and writer share (src/convert): the names of
 * the properties export writes and import reads back, and libotf2's error
 * messages kept for one conversion instead of printed. What maps to what:
 * README.md, "OTF2". Internal to src/convert. */
#ifndef PSK_CONVERT_OTF2_H
#define PSK_CONVERT_OTF2_H

#include <otf2/otf2.h>

/* the name of the system tree node property that holds a host's cores
 * (job.json "cores"): written by export, read by import */
#define CORES_PROPERTY "perfskel::cores"
/* and of the job's node: the MPI it ran under ("openmpi", "mpich"), which
 * says how its ranks waited (sim's time-sharing) */
#define MPI_PROPERTY "perfskel::mpi"

/* libotf2 reports its errors to a callback (by default printed, several
 * lines): during a conversion they are kept in one of these, the last one
 * as one line, and the conversion quotes it in its own message */
typedef struct psk_otf2_err {
    char msg[512];
    OTF2_ErrorCallback prev; /* the handler before */
} psk_otf2_err;
/* libotf2's messages into e from now on (e->msg cleared) */
void psk_otf2_err_catch(psk_otf2_err *e);
/* libotf2's handler as it was before psk_otf2_err_catch(e) */
void psk_otf2_err_release(psk_otf2_err *e);

#endif
