/* perfskel tune: runs the user's launcher with the tuning library
 * (libperfskel-tune-<mpi>.so, docs/tune.md) preloaded into the ranks only,
 * as perfskel record does with the recorder, picking the library built for
 * the launcher's MPI. --force ARM sets PSK_TUNE_FORCE, --debug
 * PSK_TUNE_DEBUG=1 (each rank's counts on stderr at MPI_Finalize); both,
 * when already in the environment, are passed on to the ranks as they are.
 * The job's output and exit status pass through unchanged. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "perfskel/trace.h"
#include "perfskel/tune.h"

static int known_arm(const char *name)
{
#define IS(arm, pow2) !strcmp(name, #arm) ||
    return PSK_TUNE_ARM_LIST(IS) !strcmp(name, PSK_TUNE_CYCLE_NAME);
#undef IS
}

int cmd_tune(int argc, char **argv)
{
    int flavour = PSK_MPI_UNKNOWN, debug = 0, i;
    const char *force = NULL;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        }
        if (!strcmp(argv[i], "--mpi") && i + 1 < argc) {
            const char *m = argv[++i];
            if (!(flavour = psk_cli_mpi_arg(m)))
                return psk_cli_usage("tune: --mpi takes openmpi or mpich, not '%s'", m);
        } else if (!strcmp(argv[i], "--force") && i + 1 < argc) {
            force = argv[++i];
            if (!known_arm(force)) {
#define NAME(arm, pow2) " " #arm
                return psk_cli_usage("tune: --force takes one of" PSK_TUNE_ARM_LIST(NAME) " " PSK_TUNE_CYCLE_NAME
                                     ", not '%s'", force);
#undef NAME
            }
        } else if (!strcmp(argv[i], "--debug"))
            debug = 1;
        else if (argv[i][0] == '-')
            return psk_cli_usage("tune: unknown option '%s'", argv[i]);
        else
            break; /* the launcher, without a -- before it */
    }
    if (i >= argc)
        return psk_cli_usage("tune: no launcher given (perfskel tune -- mpirun -n 4 ./app)");
    char **cmd = argv + i;
    int ncmd = argc - i;
    if (!(flavour = psk_cli_launcher_mpi(flavour, cmd[0])))
        return PSK_EXIT_USAGE;
    const char *libname = flavour == PSK_MPI_OPENMPI ? "libperfskel-tune-openmpi.so" : "libperfskel-tune-mpich.so";
    char lib[PATH_MAX];
    if (psk_cli_find_library(libname, lib, sizeof lib)) {
        psk_cli_error("%s: tuning library for %s not found next to perfskel (set PERFSKEL_LIBDIR)", libname,
                      psk_flavour_name(flavour));
        return PSK_EXIT_DATA;
    }
    if (force)
        setenv("PSK_TUNE_FORCE", force, 1);
    if (debug && !getenv("PSK_TUNE_DEBUG"))
        setenv("PSK_TUNE_DEBUG", "1", 1);
    const char *names[2];
    int nnames = 0;
    if (getenv("PSK_TUNE_FORCE"))
        names[nnames++] = "PSK_TUNE_FORCE";
    if (getenv("PSK_TUNE_DEBUG"))
        names[nnames++] = "PSK_TUNE_DEBUG";
    psk_cli_launch launch;
    if (psk_cli_preload(&launch, flavour, cmd, ncmd, lib, names, nnames)) {
        psk_cli_launch_free(&launch);
        return psk_cli_error("out of memory"), PSK_EXIT_DATA;
    }
    const char *arm = getenv("PSK_TUNE_FORCE");
    fprintf(stderr, "perfskel: tuning %s with %s (MPI_Alltoall: %s)\n", cmd[0], psk_flavour_name(flavour),
            arm && *arm ? arm : "native");
    int code = psk_cli_launch_run(&launch);
    psk_cli_launch_free(&launch);
    return code == 127 ? PSK_EXIT_DATA : code;
}
