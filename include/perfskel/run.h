/* perfskel run: running MPI jobs and the programs around them, for
 * record, tune, predict, check and calibrate: which MPI a launcher (or,
 * under srun, the job's program) belongs to, the library to preload into
 * the ranks and the job run with it, the mpicc that builds MPI code for
 * that MPI, and any program run under a watchdog with its output captured.
 * A call that can fail returns PSK_OK or a negative psk_status with one
 * line in err (no "perfskel: " before it); what the CLI printed besides an
 * error (a compiler's output) goes to a callback. Nothing here prints or
 * exits, but the programs it starts write to the stderr the caller gives
 * them (a program that cannot be run says so there, as
 * "perfskel: PROG: cannot run: ...", and ends with status 127). */
#ifndef PERFSKEL_RUN_H
#define PERFSKEL_RUN_H

#include <stddef.h>
#include <stdio.h>

/* ---- a program run under a watchdog (run_watch.c) ----
 * It runs in its own process group with stdin from /dev/null, under an
 * optional limit: then SIGTERM to its group, 2 s of grace, SIGKILL to the
 * group and to every process left below this one. The first run installs
 * handlers for SIGINT, SIGTERM and SIGHUP (process-wide: signals are):
 * during a run they end the program the same way (a second one at once);
 * outside one they call the hook of psk_run_on_signal and then take their
 * default action, as if never caught. */
typedef struct psk_run_opts {
    double limit;      /* seconds; 0: none */
    FILE *out;         /* its standard output goes here; NULL: discarded */
    FILE *err;         /* its stderr goes here (NULL: through, to this process's) */
    const char *catch; /* its stderr lines holding this go to caught, not through ("": all) */
    char *caught;      /* out: those lines (free() it), NULL if none */
    size_t ncaught;
    int timed_out; /* out: the limit ended it */
    int signal;    /* out: this signal to this process ended it */
    double seconds; /* out: how long it ran */
} psk_run_opts;
/* its exit status (128 + N if signal N ended it), -1 if it could not start */
int psk_run_watched(char **argv, psk_run_opts *o);
/* runs argv with its stdout into out, no limit; its exit status as above */
int psk_run_capture(char **argv, FILE *out);
/* the signal that ended a run (or came outside one), 0 if none came */
int psk_run_interrupted(void);
/* hook (async-signal-safe; NULL: none) is called with a SIGINT, SIGTERM
 * or SIGHUP that comes outside a run, before its default action ends the
 * process; installs the handlers now */
void psk_run_on_signal(void (*hook)(int sig));

/* ---- launchers and their MPI (run_launcher.c) ---- */
/* "Open MPI", "MPICH", "an unknown MPI" */
const char *psk_run_mpi_title(int flavour);
/* the enum psk_flavour a name says ("openmpi", "mpich"), 0 if none */
int psk_run_mpi_named(const char *name);
/* enum psk_flavour of a launcher: by its name, the names along its
 * symlinks, or its --version (asked once per process, kept nowhere) */
int psk_run_launcher_flavour(const char *launcher);
/* what told it: "its name", "the name its link leads to", "its --version" */
const char *psk_run_launcher_how(const char *launcher);
/* *flavour: given (from --mpi), else the launcher's MPI; PSK_ENOTFOUND
 * (no such program) or PSK_EINVAL (it does not tell) if neither */
int psk_run_launcher_mpi(int given, const char *launcher, int *flavour, char *err, size_t errcap);
/* the path of a library (or helper program) shipped with perfskel, in
 * $PERFSKEL_LIBDIR, next to this program, or in ../lib/perfskel; PSK_OK,
 * or PSK_ENOTFOUND */
int psk_run_find_library(const char *name, char *out, size_t cap);

/* A job with a library preloaded into its ranks only: Open MPI's mpirun
 * gets -x, MPICH's -genv, passing on the named variables of this
 * process's environment too (an mpirun is told by its name, its links'
 * names, or the --version psk_run_launcher_flavour asked); srun
 * --export=ALL,LD_PRELOAD=...; any other launcher LD_PRELOAD in the
 * environment (set here). */
typedef struct psk_run_launch {
    char **argv;
    char *preload, *xs;
} psk_run_launch;
/* PSK_OK, or PSK_ENOMEM (free l either way) */
int psk_run_preload(psk_run_launch *l, int flavour, char **cmd, int ncmd, const char *lib, const char *const *names,
                    int nnames);
/* Runs it and waits, Ctrl-C left to the job (SIGINT and SIGQUIT ignored
 * here from then on): *status its exit status (128 + N if signal N ended
 * it, 127 if it could not be run). PSK_EIO (*status 127) if it could not
 * be started. */
int psk_run_launch_run(const psk_run_launch *l, int *status, char *err, size_t errcap);
void psk_run_launch_free(psk_run_launch *l);

/* ---- the job's program (run_program.c): for launchers that do not tell
 * their MPI (srun) ---- */
/* 1 if launcher is Slurm's srun (by its name): it starts the ranks of any
 * MPI built for it, so its MPI is the program's */
int psk_run_is_srun(const char *launcher);
/* where the job's program is among cmd: the first argument that is an ELF
 * program linking libmpi.so.40, libmpi.so.12 or libmpich.so.12 (as ldd
 * lists them); its index (1 or more; *flavour, if not NULL, its MPI), -1
 * if none is */
int psk_run_program_at(char **cmd, int ncmd, int *flavour);
/* that program's MPI, 0 if none */
int psk_run_program_mpi(char **cmd, int ncmd);
/* the MPI a trace directory's job.json or a merged file says, 0 if neither */
int psk_run_trace_mpi(const char *input);

/* ---- the mpicc for a launcher's MPI (run_mpicc.c) ---- */
/* Linux's PATH_MAX, which strict C's <limits.h> does not define */
#define PSK_RUN_PATH_MAX 4096
typedef struct psk_run_mpicc {
    char run[PSK_RUN_PATH_MAX];  /* what is run and named: a name found on PATH, or a path */
    char path[PSK_RUN_PATH_MAX]; /* where it is */
    int flavour;         /* enum psk_flavour it was told to be; 0 if it could not be told */
    const char *how;     /* what told it: "its name", "its -show", ... */
    const char *from;    /* how it was chosen: "--mpicc", "$MPICC", "beside the launcher", "on PATH", "Debian's name" */
} psk_run_mpicc;
/* The first of: given (--mpicc; NULL: none), $MPICC, the mpicc beside the
 * launcher (mpirun.mpich: mpicc.mpich, then mpicc), mpicc on PATH,
 * mpicc.<MPI> (Debian's name) whose MPI is flavour's. PSK_EINVAL (given
 * is empty), PSK_ENOTFOUND (none), PSK_EMISMATCH (the one given, from
 * $MPICC, or the only ones found are of another MPI). */
int psk_run_mpicc_find(const char *given, int flavour, const char *launcher, psk_run_mpicc *cc, char *err,
                       size_t errcap);
/* the enum psk_flavour of an mpicc (a name on PATH or a path) by its name,
 * its links, what -show or --showme says it runs (the mpi.h it includes),
 * or --showme:version and -v; 0 if none tells. *how says which told. */
int psk_run_mpicc_flavour(const char *mpicc, const char **how);
typedef struct psk_run_build {
    int with_stdint;  /* -include stdint.h (calibrate's program) */
    double limit;     /* seconds; 0: none */
    const char *hint; /* in the message if the limit ends it: how to change it; NULL: none */
    /* the compiler's output, held back while it works, given here as it
     * came if it fails (NULL: dropped) */
    void (*say)(void *arg, const char *text, size_t len);
    void *say_arg;
} psk_run_build;
/* Builds src into bin with cc, quietly: PSK_OK, or PSK_EIO (it failed or
 * the limit ended it; err says which; empty if a signal ended it:
 * psk_run_interrupted) */
int psk_run_mpicc_build(const psk_run_mpicc *cc, const char *src, const char *bin, const psk_run_build *b, char *err,
                        size_t errcap);

/* ---- record and tune on one command line (run_stack.c) ----
 *   perfskel record -- perfskel tune -- LAUNCHER ...  (or tune outside)
 * role is "record" or "tune", the calling command. */
/* Outer side: 1 if cmd runs this perfskel's record or tune (not a launcher) */
int psk_run_stack_is_outer(char **cmd, int ncmd);
/* runs it with this command's role, its --mpi (0: none) and variables
 * (names) noted in the environment; *status as psk_run_launch_run's.
 * PSK_ENOMEM or PSK_EIO (*status 127) if it could not be started. */
int psk_run_stack_run(const char *role, int flavour, char **cmd, const char *const *names, int nnames, int *status,
                      char *err, size_t errcap);
/* Inner side: the --mpi the outer command was given (0 if none) */
int psk_run_stack_mpi(void);
/* Inner side: what to preload (lib, or the recorder's and the tuning
 * library's, the recorder first) into libs, and names with the outer
 * command's variables into *all (free() the array only; NULL after an
 * error). Clears the notes. PSK_EINVAL (the command line is at fault:
 * the same command twice, a bad note, paths too long), PSK_ENOTFOUND (the
 * outer command's library), PSK_ENOMEM. */
int psk_run_stack_inner(const char *role, int flavour, const char *lib, char *libs, size_t cap,
                        const char *const *names, int nnames, const char ***all, int *nall, char *err, size_t errcap);

#endif
