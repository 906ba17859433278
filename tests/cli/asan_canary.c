/* The control of tests/cli/asan_preload.sh: a library with one deliberate
 * heap overflow, preloaded with the recording library into a job. Its
 * constructor writes one byte past a malloc'd block in each MPI rank (a
 * process the launcher gave PMI_RANK or OMPI_COMM_WORLD_RANK; not perfskel
 * or the launcher, which see the same LD_PRELOAD), so that the job fails
 * with ASan's report naming psk_asan_canary if ASan really watches the
 * ranks. Built in the sanitizer build only (-DPSK_SANITIZE=ON). */
#include <stdlib.h>

void psk_asan_canary(void) __attribute__((constructor));
void psk_asan_canary(void)
{
    if (!getenv("PMI_RANK") && !getenv("OMPI_COMM_WORLD_RANK"))
        return;
    /* volatile all through: the optimiser must keep the block and the store */
    volatile char *volatile p = malloc(8);
    if (p)
        p[8] = 1; /* one past the end */
    free((char *)p);
}
