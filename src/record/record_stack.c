/* Stacking the recorder with the tuning library (docs/tune.md, "Recording
 * a tuned job"): with LD_PRELOAD="librecord:libtune" the recorder's
 * wrappers of the collectives the tuning library takes over (and of
 * MPI_Finalize, where it reports) forward to the next definition of their
 * name, the tuning library's, instead of PMPI_*, and ask it afterwards
 * which arm ran the call (psk_tune_last_arm, found at MPI_Init), telling
 * it beforehand the program's call site (psk_tune_caller). Without
 * the tuning library the next definition is the MPI library's own, and no
 * arm is recorded. The next definitions: psk_next.h, inlined into each
 * generated wrapper. */
#include <dlfcn.h>
#include <stdio.h>

#include "record_call.h"

int (*psk_tune_arm_query)(void);
void (*psk_tune_site_fn)(void *);

/* the object (shared library or program) that defines the code at p */
static const void *object_of(const void *p)
{
    Dl_info di;
    return p && dladdr(p, &di) ? di.dli_fbase : NULL;
}

int psk_stack_init(int rank)
{
    psk_tune_arm_query = NULL;
    psk_tune_site_fn = NULL;
    void *q = dlsym(RTLD_DEFAULT, "psk_tune_last_arm"), *s = dlsym(RTLD_DEFAULT, "psk_tune_caller");
    if (!q || !s)
        return 0;
    /* loaded before the recorder, the tuning library gets the program's
     * calls of its collectives first and passes them to the MPI: the
     * recorder never sees them */
    const void *tune = object_of(q), *def = object_of(dlsym(RTLD_DEFAULT, "MPI_Alltoall"));
    if (def == tune && def != object_of((const void *)psk_stack_init)) {
        if (rank == 0)
            fprintf(stderr, "perfskel: libperfskel-tune is loaded before the recorder: MPI_Alltoall, MPI_Bcast, "
                            "MPI_Allreduce and MPI_Allgather are not recorded (preload the recorder first)\n");
        return 0;
    }
    psk_tune_arm_query = (int (*)(void))q;
    psk_tune_site_fn = (void (*)(void *))s;
    return 1;
}
