/* The CLI's side of perfskel/run.h (src/run): its errors said on stderr
 * and turned into exit codes for record, tune, predict, check and
 * calibrate, and the files a Ctrl-C outside a run removes before perfskel
 * dies of the signal (predict's temporary directory). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define MAX_CLEAN 4
#define ERRCAP 4096 /* psk_cli_error's own limit: a message is cut at the same byte */

/* read by the signal handler (run_watch.c calls remove_registered) */
static char clean_path[MAX_CLEAN + 1][PATH_MAX + 32]; /* files, then their directory last */
static volatile sig_atomic_t nclean;

/* unlink and rmdir are async-signal-safe: the handler may call this */
static void remove_registered(int sig)
{
    (void)sig;
    int n = nclean;
    nclean = 0;
    for (int k = 0; k < n - 1; k++)
        unlink(clean_path[k]);
    if (n > 0)
        rmdir(clean_path[n - 1]);
}

void psk_cli_cleanup_on(const char *dir, const char *const *files, int nfiles)
{
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old); /* the handler never sees half a path */
    int n = 0;
    for (int k = 0; k < nfiles && n < MAX_CLEAN; k++)
        snprintf(clean_path[n++], sizeof clean_path[0], "%s", files[k]);
    if (dir)
        snprintf(clean_path[n++], sizeof clean_path[0], "%s", dir);
    nclean = n;
    sigprocmask(SIG_SETMASK, &old, NULL);
    psk_run_on_signal(remove_registered);
}

void psk_cli_die(int sig)
{
    remove_registered(sig);
    fflush(NULL);
    signal(sig, SIG_DFL);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    raise(sig);
    _exit(128 + sig); /* not reached unless the signal is ignored */
}

int psk_cli_mpi_arg(const char *name)
{
    return psk_run_mpi_named(name);
}

int psk_cli_launcher_mpi(int given, const char *launcher)
{
    char err[ERRCAP];
    int flavour = 0;
    if (psk_run_launcher_mpi(given, launcher, &flavour, err, sizeof err))
        psk_cli_error("%s", err);
    return flavour;
}

int psk_cli_launch_run(const psk_run_launch *l)
{
    char err[ERRCAP];
    int status;
    if (psk_run_launch_run(l, &status, err, sizeof err))
        psk_cli_error("%s", err);
    return status;
}

int psk_cli_mpicc_find(const char *given, int flavour, const char *launcher, psk_run_mpicc *cc)
{
    char err[ERRCAP];
    if (!psk_run_mpicc_find(given, flavour, launcher, cc, err, sizeof err))
        return 0;
    psk_cli_error("%s", err);
    return PSK_EXIT_USAGE;
}

/* a failed build's compiler output, as it came */
static void say_through(void *arg, const char *text, size_t len)
{
    (void)arg;
    fwrite(text, 1, len, stderr);
}

int psk_cli_mpicc_within(const psk_run_mpicc *cc, const char *src, const char *bin, int with_stdint, double limit,
                         const char *hint)
{
    char err[ERRCAP];
    psk_run_build b = {.with_stdint = with_stdint, .limit = limit, .hint = hint, .say = say_through};
    if (!psk_run_mpicc_build(cc, src, bin, &b, err, sizeof err))
        return 0;
    if (*err) /* nothing said if a signal ended it */
        psk_cli_error("%s", err);
    return PSK_EXIT_DATA;
}

int psk_cli_mpicc_build(const psk_run_mpicc *cc, const char *src, const char *bin, int with_stdint)
{
    return psk_cli_mpicc_within(cc, src, bin, with_stdint, PSK_CLI_BUILD_LIMIT, NULL);
}

int psk_cli_stack_run(const char *role, int flavour, char **cmd, const char *const *names, int nnames)
{
    char err[ERRCAP];
    int status;
    if (psk_run_stack_run(role, flavour, cmd, names, nnames, &status, err, sizeof err))
        psk_cli_error("%s", err);
    return status;
}

int psk_cli_stack_inner(const char *role, int flavour, const char *lib, char *libs, size_t cap,
                        const char *const *names, int nnames, const char ***all, int *nall)
{
    char err[ERRCAP];
    int rc = psk_run_stack_inner(role, flavour, lib, libs, cap, names, nnames, all, nall, err, sizeof err);
    if (rc == PSK_EINVAL)
        return psk_cli_usage("%s", err);
    if (rc) {
        psk_cli_error("%s", err);
        return PSK_EXIT_DATA;
    }
    return 0;
}
