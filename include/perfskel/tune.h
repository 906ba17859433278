/* perfskel tune: the tuning library (libperfskel-tune-*.so, src/tune/),
 * shared by the library and the CLI (perfskel tune --force ARM). The
 * collectives it takes over and the algorithms ("arms") it chooses among
 * are listed with the others in perfskel/coll.h. */
#ifndef PERFSKEL_TUNE_H
#define PERFSKEL_TUNE_H

#include "perfskel/coll.h" /* the collectives taken over and their arms */

/* PSK_TUNE_FORCE=cycle: each call on a communicator takes the next arm
 * valid there (a check that every arm gives the native result) */
#define PSK_TUNE_CYCLE_NAME "cycle"

#endif
