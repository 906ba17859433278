/* perfskel convert: other tools' trace formats. An OTF2 archive (the
 * Open Trace Format 2 of Score-P, Vampir and Scalasca) read into a
 * perfskel trace directory and written from one, through libotf2; a trace
 * written in SimGrid SMPI's time-independent format for `smpirun -replay`.
 * What maps to what: README.md, "OTF2" and "SimGrid". Each call returns
 * PSK_OK or a negative psk_status with one line in err naming the file. */
#ifndef PERFSKEL_CONVERT_H
#define PERFSKEL_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "perfskel/machine.h"
#include "perfskel/trace.h"

typedef struct psk_convert_opts {
    /* progress over the ranks, or NULL: each step starts with done 0 of
     * total; step NULL: the step ended (before an error is returned too) */
    void (*progress)(void *arg, const char *step, uint64_t done, uint64_t total);
    void *progress_arg;
    /* what could not be converted as it was, one line a kind with its
     * count (naming the input), or NULL: not said */
    void (*note)(void *arg, const char *line);
    void *note_arg;
} psk_convert_opts;

/* The OTF2 archive anchor (its .otf2 file) as the trace directory out.
 * The archive is untrusted: the first fault is refused. o may be NULL. */
int psk_convert_import_otf2(const char *anchor, const char *out, const psk_convert_opts *o, char *err, size_t errcap);
/* The trace directory input as an OTF2 archive out/traces.otf2 (with
 * out/traces.def and out/traces/; those of an earlier export replaced). */
int psk_convert_export_otf2(const char *input, const char *out, const psk_convert_opts *o, char *err, size_t errcap);
/* The open trace t (of the directory input) as SMPI traces in out:
 * rank-R.txt per rank, traces.txt listing them, platform.xml (a cluster
 * with m's latency and bandwidth) and hostfile. */
int psk_convert_export_smpi(psk_trace *t, const char *input, const psk_machine *m, const char *out, char *err,
                            size_t errcap);

#endif
