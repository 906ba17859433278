/* perfskel tune: runs the user's launcher with the tuning library
 * (libperfskel-tune-<mpi>.so, docs/tune.md) preloaded into the ranks only,
 * as perfskel record does with the recorder, picking the library built for
 * the launcher's MPI. --policy P sets PSK_TUNE_POLICY, --force ARM
 * PSK_TUNE_FORCE, --report FILE PSK_TUNE_REPORT, --db FILE PSK_TUNE_DB
 * (both made absolute: a rank may start elsewhere), --check
 * PSK_TUNE_CHECK=1, --debug PSK_TUNE_DEBUG=1; every PSK_TUNE_* variable
 * of the environment (these and the others of docs/tune.md) is passed on
 * to the ranks as it is. The job's output
 * and exit status pass through unchanged. `perfskel tune ... -- perfskel
 * record ... -- mpirun ...` (or record outside) records the tuned job:
 * stack.c. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "perfskel/trace.h"
#include "perfskel/tune.h"

static int known_arm(const char *name)
{
#define IS(arm, ...) !strcmp(name, #arm) ||
    return PSK_TUNE_ARM_LIST(IS) !strcmp(name, PSK_TUNE_CYCLE_NAME);
#undef IS
}

extern char **environ;

/* path made absolute into buf; 0, or -1 if it does not fit */
static int absolute(const char *path, char *buf, size_t cap)
{
    char cwd[PATH_MAX];
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
        return snprintf(buf, cap, "%s", path) < (int)cap ? 0 : -1;
    return snprintf(buf, cap, "%s/%s", cwd, path) < (int)cap ? 0 : -1;
}

enum { O_MPI, O_POLICY, O_FORCE, O_REPORT, O_DB, O_CHECK, O_DEBUG };
static const psk_cli_opt opts[] = {
    [O_MPI] = {"--mpi", NULL, PSK_OPT_VALUE},
    [O_POLICY] = {"--policy", NULL, PSK_OPT_VALUE},
    [O_FORCE] = {"--force", NULL, PSK_OPT_VALUE},
    [O_REPORT] = {"--report", NULL, PSK_OPT_VALUE},
    [O_DB] = {"--db", NULL, PSK_OPT_VALUE},
    [O_CHECK] = {"--check", NULL, PSK_OPT_FLAG},
    [O_DEBUG] = {"--debug", NULL, PSK_OPT_FLAG},
};
/* the launcher after --, or at the first operand */
const psk_cli_opts cmd_tune_opts = {"tune", PSK_CLI_OPTS(opts), PSK_CLI_JOB_AT, NULL, NULL};

int cmd_tune(int argc, char **argv)
{
    int flavour = PSK_MPI_UNKNOWN, debug = 0, check = 0, i, k;
    const char *force = NULL, *policy = NULL, *report = NULL, *db = NULL;
    psk_cli_args a;
    psk_cli_begin(&a, &cmd_tune_opts, argc, argv);
    while ((k = psk_cli_next(&a)) != PSK_CLI_END) {
        if (k == PSK_CLI_STOP) {
            return a.status;
        } else if (k == O_MPI) {
            if (!(flavour = psk_cli_mpi_arg(a.val)))
                return psk_cli_usage("tune: --mpi takes openmpi or mpich, not '%s'", a.val);
        } else if (k == O_FORCE) {
            force = a.val;
            if (!known_arm(force)) {
#define NAME(arm, ...) " " #arm
                return psk_cli_usage("tune: --force takes one of" PSK_TUNE_ARM_LIST(NAME) " " PSK_TUNE_CYCLE_NAME
                                     ", not '%s'", force);
#undef NAME
            }
        } else if (k == O_POLICY) {
            policy = a.val;
            if (strcmp(policy, "learn") && strcmp(policy, "star") && !known_arm(policy)) {
#define NAME(arm, ...) " " #arm
                return psk_cli_usage("tune: --policy takes learn, star, or one of" PSK_TUNE_ARM_LIST(NAME) " "
                                     PSK_TUNE_CYCLE_NAME ", not '%s'", policy);
#undef NAME
            }
        } else if (k == O_REPORT)
            report = a.val;
        else if (k == O_DB)
            db = a.val;
        else if (k == O_CHECK)
            check = 1;
        else if (k == O_DEBUG)
            debug = 1;
    }
    i = a.i; /* the launcher */
    if (i >= argc)
        return psk_cli_usage("tune: no launcher given (perfskel tune -- mpirun -n 4 ./app)");
    char **cmd = argv + i;
    int ncmd = argc - i;
    /* perfskel tune -- perfskel record -- mpirun ...: record preloads both */
    int outer = psk_run_stack_is_outer(cmd, ncmd);
    if (!flavour)
        flavour = psk_run_stack_mpi();
    if (!outer && !flavour && psk_run_is_srun(cmd[0]))
        flavour = psk_run_program_mpi(cmd, ncmd); /* srun: the MPI the program links */
    if (!outer && !(flavour = psk_cli_launcher_mpi(flavour, cmd[0])))
        return PSK_EXIT_USAGE;
    const char *libname = flavour == PSK_MPI_OPENMPI ? "libperfskel-tune-openmpi.so" : "libperfskel-tune-mpich.so";
    char lib[PATH_MAX], libs[2 * PATH_MAX + 2];
    if (!outer && psk_run_find_library(libname, lib, sizeof lib)) {
        psk_cli_error("%s: tuning library for %s not found next to perfskel (set PERFSKEL_LIBDIR)", libname,
                      psk_flavour_name(flavour));
        return PSK_EXIT_DATA;
    }
    if (force && policy)
        return psk_cli_usage("tune: --force and --policy are one choice; give one");
    char path[PATH_MAX];
    if (report && *report) {
        if (absolute(report, path, sizeof path))
            return psk_cli_usage("tune: --report %s: path too long", report);
        setenv("PSK_TUNE_REPORT", path, 1);
    }
    if (db && *db) {
        if (absolute(db, path, sizeof path))
            return psk_cli_usage("tune: --db %s: path too long", db);
        setenv("PSK_TUNE_DB", path, 1);
    }
    if (force)
        setenv("PSK_TUNE_FORCE", force, 1);
    if (policy) {
        setenv("PSK_TUNE_POLICY", policy, 1);
        unsetenv("PSK_TUNE_FORCE"); /* it would win in the library */
    }
    if (check)
        setenv("PSK_TUNE_CHECK", "1", 1);
    if (debug && !getenv("PSK_TUNE_DEBUG"))
        setenv("PSK_TUNE_DEBUG", "1", 1);
    /* every PSK_TUNE_* variable is the library's: passed on */
    int nnames = 0;
    for (char **e = environ; *e; e++)
        nnames += !strncmp(*e, "PSK_TUNE_", 9) && strchr(*e, '=');
    char **names = calloc((size_t)nnames + 1, sizeof *names);
    if (!names)
        return psk_cli_error("out of memory"), PSK_EXIT_DATA;
    nnames = 0;
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, "PSK_TUNE_", 9) && strchr(*e, '=')) {
            size_t n = (size_t)(strchr(*e, '=') - *e);
            if ((names[nnames] = strndup(*e, n)) != NULL)
                nnames++;
        }
    const char *arm = getenv("PSK_TUNE_FORCE"), *pol = getenv("PSK_TUNE_POLICY");
    const char *what = arm && *arm ? arm : pol && *pol ? pol : "learn";
    int code;
    if (outer) {
        fprintf(stderr, "perfskel: tuning %s %s (MPI_Alltoall, MPI_Bcast, MPI_Allreduce, MPI_Allgather: %s)\n",
                cmd[0], cmd[1], what);
        code = psk_cli_stack_run("tune", flavour, cmd, (const char *const *)names, nnames);
    } else {
        const char **all = NULL;
        int nall = 0;
        psk_run_launch launch = {0};
        int bad = psk_cli_stack_inner("tune", flavour, lib, libs, sizeof libs, (const char *const *)names, nnames,
                                      &all, &nall);
        if (!bad && psk_run_preload(&launch, flavour, cmd, ncmd, libs, all, nall))
            bad = (psk_cli_error("out of memory"), PSK_EXIT_DATA);
        if (bad) {
            psk_run_launch_free(&launch);
            free(all);
            for (int k = 0; k < nnames; k++)
                free(names[k]);
            free(names);
            return bad;
        }
        fprintf(stderr, "perfskel: tuning %s with %s (MPI_Alltoall, MPI_Bcast, MPI_Allreduce, MPI_Allgather: %s)%s\n",
                cmd[0], psk_flavour_name(flavour), what, strchr(libs, ':') ? ", recorded" : "");
        code = psk_cli_launch_run(&launch);
        psk_run_launch_free(&launch);
        free(all);
    }
    for (int k = 0; k < nnames; k++)
        free(names[k]);
    free(names);
    return code == 127 ? PSK_EXIT_DATA : code;
}
