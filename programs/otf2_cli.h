/* perfskel export --otf2 and perfskel import --otf2: OTF2 archives (the
 * Open Trace Format 2 of Score-P, Vampir, Scalasca) written from and read
 * into perfskel trace directories, through libotf2. Only the perfskel
 * binary links libotf2. What maps to what: README.md, "OTF2". */
#ifndef PSK_OTF2_CLI_H
#define PSK_OTF2_CLI_H

#include <stdint.h>

/* the name of the system tree node property that holds a host's cores
 * (job.json "cores"): written by export, read by import */
#define CORES_PROPERTY "perfskel::cores"
/* and of the job's node: the MPI it ran under ("openmpi", "mpich"), which
 * says how its ranks waited (sim's time-sharing) */
#define MPI_PROPERTY "perfskel::mpi"

/* export_otf2.c: the trace directory input as an OTF2 archive
 * out/traces.otf2 (with out/traces.def and out/traces/); an exit status,
 * after saying what is wrong */
int psk_cli_export_otf2(const char *input, const char *out);

/* import_otf2.c: the OTF2 archive anchor (a .otf2 file) as a perfskel
 * trace directory out; an exit status, after saying what is wrong (one
 * line, naming the file) or, on success, one line per kind of thing that
 * could not be mapped, with its count; quiet: not those lines */
int psk_cli_import_otf2(const char *anchor, const char *out, int quiet);

/* otf2_error.c: libotf2's own messages kept instead of printed (it prints
 * to stderr otherwise): psk_otf2_quiet() once, then psk_otf2_lasterr()
 * is the last one ("" if none) and psk_otf2_clearerr() forgets it */
void psk_otf2_quiet(void);
const char *psk_otf2_lasterr(void);
void psk_otf2_clearerr(void);

#endif
