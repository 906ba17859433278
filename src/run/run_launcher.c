/* Launchers: which MPI a launcher (mpirun, mpiexec, ...) belongs to, told
 * by what it is (its name, the names along its symlinks, its --version),
 * for perfskel record and tune (which library to preload) and perfskel
 * predict and calibrate (which mpicc builds their program: run_mpicc.c);
 * finding a preload library and running a job with it preloaded into the
 * ranks only (record, tune, check). What a launcher is, once asked, is
 * kept for the process (one launcher per command). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perfskel/common.h"
#include "perfskel/trace.h"
#include "run_internal.h"

const char *xrun_base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

const char *psk_run_mpi_title(int flavour)
{
    return flavour == PSK_MPI_OPENMPI ? "Open MPI" : flavour == PSK_MPI_MPICH ? "MPICH" : "an unknown MPI";
}

/* The MPI a program's name says: Debian's suffixes (mpirun.openmpi,
 * mpicc.mpich), Open MPI's own programs (orterun, prterun, opal_wrapper,
 * ompi_info) and MPICH's process manager (mpiexec.hydra) */
static int name_flavour(const char *name)
{
    if (strstr(name, "openmpi") || strstr(name, "open-mpi") || !strncmp(name, "orterun", 7) ||
        !strncmp(name, "prterun", 7) || !strncmp(name, "opal_wrapper", 12) || !strncmp(name, "ompi", 4))
        return PSK_MPI_OPENMPI;
    if (strstr(name, "mpich") || strstr(name, "hydra"))
        return PSK_MPI_MPICH;
    return PSK_MPI_UNKNOWN;
}

/* 1 if a launcher's name is that of an mpirun (which takes -x or -genv) */
static int name_is_mpirun(const char *name)
{
    return !strncmp(name, "mpirun", 6) || !strncmp(name, "mpiexec", 7) || !strncmp(name, "orterun", 7) ||
           !strncmp(name, "prterun", 7) || strstr(name, "hydra");
}

/* 1 if path is an executable file (through its links) */
static int executable(const char *path)
{
    struct stat st;
    return access(path, X_OK) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *xrun_path_lookup(const char *prog, char *out, size_t cap)
{
    if (strchr(prog, '/')) {
        if (!executable(prog) || snprintf(out, cap, "%s", prog) >= (int)cap)
            return NULL;
        return out;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        /* an empty entry is the current directory */
        int len = snprintf(out, cap, "%.*s%s%s", (int)n, path, n ? "/" : "", prog);
        if (len > 0 && len < (int)cap && executable(out))
            return out;
        path += n + (path[n] == ':');
    }
    return NULL;
}

/* full path of an executable on PATH, symlinks resolved, or NULL */
char *xrun_which(const char *prog, char *out, size_t cap)
{
    char found[PATH_MAX];
    if (!xrun_path_lookup(prog, found, sizeof found))
        return NULL;
    (void)cap; /* realpath writes at most PATH_MAX bytes; callers give that */
    return realpath(found, out);
}

int xrun_follow_link(char *cur, size_t cap)
{
    char link[PATH_MAX];
    ssize_t n = readlink(cur, link, sizeof link - 1);
    if (n < 0)
        return 0;
    link[n] = 0;
    const char *slash = link[0] == '/' ? NULL : strrchr(cur, '/');
    size_t keep = link[0] == '/' ? 0 : slash ? (size_t)(slash - cur) + 1 : 0;
    if (keep + (size_t)n + 1 > cap)
        return 0;
    memcpy(cur + keep, link, (size_t)n + 1);
    return 1;
}

/* What the names along a program's chain of symlinks say, the name it was
 * given first (mpirun -> /etc/alternatives/mpirun -> mpirun.openmpi ->
 * orterun): the first MPI one of them names (*fl, if 0 so far), and
 * whether one is an mpirun's. path as found on PATH. */
static void chain_names(const char *given, const char *path, int *fl, int *mpirun, const char **how)
{
    char cur[PATH_MAX];
    *fl = name_flavour(xrun_base_name(given));
    *mpirun = name_is_mpirun(xrun_base_name(given));
    *how = "its name";
    if (!path)
        return;
    snprintf(cur, sizeof cur, "%s", path);
    for (int hop = 0; hop < 40; hop++) { /* a loop of links ends too */
        const char *b = xrun_base_name(cur);
        if (!*fl && (*fl = name_flavour(b)) != 0 && hop)
            *how = "the name its link leads to";
        *mpirun |= name_is_mpirun(b);
        if (!xrun_follow_link(cur, sizeof cur))
            break;
    }
}

/* what a program prints (stdout and stderr) when run with args, directly
 * (not through a shell: any byte may be in its path), within 30 s, and its
 * exit status (if status); malloc'd, NULL if it could not run */
char *xrun_output_of(const char *prog, const char *const *args, int nargs, int *status)
{
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    char *argv[8];
    if (!o || nargs > 6) {
        if (o)
            fclose(o);
        free(text);
        return NULL;
    }
    argv[0] = (char *)prog;
    for (int k = 0; k < nargs; k++)
        argv[k + 1] = (char *)args[k];
    argv[nargs + 1] = NULL;
    psk_run_opts ro = {.limit = 30, .out = o, .catch = ""}; /* stderr too */
    int st = psk_run_watched(argv, &ro);
    if (ro.caught)
        fwrite(ro.caught, 1, ro.ncaught, o);
    fclose(o);
    free(ro.caught);
    if (status)
        *status = st;
    if (st < 0 || st == 127) {
        free(text);
        return NULL;
    }
    return text;
}

/* What a launcher is, found once per launcher in this process (nothing is
 * kept between runs of perfskel: the launcher on PATH may change) */
static struct {
    char launcher[PATH_MAX];
    int flavour, mpirun;
    const char *how;
} known;

/* Which MPI a launcher belongs to, and whether it is an mpirun (Open MPI's,
 * or MPICH's Hydra, which take -x and -genv): by its name, the names its
 * symlinks lead to (mpirun -> /etc/alternatives/mpirun -> mpirun.openmpi),
 * or what it says of itself with --version ("mpirun (Open MPI) 4.1.4",
 * "mpirun.openmpi (OpenRTE) 4.1.4"; MPICH's "HYDRA build details: ...
 * Version: 4.0.2"). */
static void identify(const char *launcher)
{
    if (known.how && !strcmp(known.launcher, launcher))
        return;
    snprintf(known.launcher, sizeof known.launcher, "%s", launcher);
    char path[PATH_MAX];
    const char *found = xrun_path_lookup(launcher, path, sizeof path);
    chain_names(launcher, found, &known.flavour, &known.mpirun, &known.how);
    if (known.flavour || !found)
        return;
    static const char *const version[] = {"--version"};
    char *text = xrun_output_of(found, version, 1, NULL);
    if (text && (strstr(text, "Open MPI") || strstr(text, "OpenRTE")))
        known.flavour = PSK_MPI_OPENMPI;
    else if (text && (strstr(text, "HYDRA") || strstr(text, "MPICH")))
        known.flavour = PSK_MPI_MPICH;
    if (known.flavour) {
        known.mpirun = 1; /* what answers so is an mpirun or mpiexec */
        known.how = "its --version";
    }
    free(text);
}

int psk_run_launcher_flavour(const char *launcher)
{
    identify(launcher);
    return known.flavour;
}

const char *psk_run_launcher_how(const char *launcher)
{
    identify(launcher);
    return known.how;
}

int psk_run_mpi_named(const char *name)
{
    return !strcmp(name, "openmpi") ? PSK_MPI_OPENMPI : !strcmp(name, "mpich") ? PSK_MPI_MPICH : 0;
}

int psk_run_launcher_mpi(int given, const char *launcher, int *flavour, char *err, size_t errcap)
{
    *flavour = given ? given : psk_run_launcher_flavour(launcher);
    char path[PATH_MAX];
    if (*flavour)
        return PSK_OK;
    if (!xrun_path_lookup(launcher, path, sizeof path)) {
        snprintf(err, errcap, "%s: no such program%s; cannot tell which MPI it belongs to", launcher,
                 strchr(launcher, '/') ? "" : " on PATH");
        return PSK_ENOTFOUND;
    }
    snprintf(err, errcap,
             "%s: cannot tell which MPI this launcher belongs to (not by its name, its links or its "
             "--version); say --mpi openmpi or --mpi mpich",
             launcher);
    return PSK_EINVAL;
}

/* 1 if the launcher takes -x (Open MPI) or -genv (MPICH): its name or a
 * link's says mpirun or mpiexec, or its --version said which MPI's it is
 * (asked only when --mpi was not given) */
static int is_mpirun(const char *launcher)
{
    if (known.how && !strcmp(known.launcher, launcher))
        return known.mpirun;
    char path[PATH_MAX];
    int fl, mpirun;
    const char *how;
    chain_names(launcher, xrun_path_lookup(launcher, path, sizeof path), &fl, &mpirun, &how);
    return mpirun;
}

/* ---- preloading a library into the ranks ---- */

int psk_run_find_library(const char *name, char *out, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n < 0)
        return PSK_ENOTFOUND;
    exe[n] = 0;
    char *dir = dirname(exe);
    const char *env = getenv("PERFSKEL_LIBDIR");
    const char *cands[] = {env, dir, NULL};
    for (int i = 0; i < 2; i++) {
        if (!cands[i])
            continue;
        snprintf(out, cap, "%s/%s", cands[i], name);
        if (access(out, R_OK) == 0)
            return PSK_OK;
    }
    snprintf(out, cap, "%s/../lib/perfskel/%s", dir, name);
    if (access(out, R_OK) == 0) {
        char r[PATH_MAX];
        if (realpath(out, r))
            snprintf(out, cap, "%s", r);
        return PSK_OK;
    }
    return PSK_ENOTFOUND;
}

int psk_run_preload(psk_run_launch *l, int flavour, char **cmd, int ncmd, const char *lib,
                    const char *const *names, int nnames)
{
    memset(l, 0, sizeof *l);
    const char *old = getenv("LD_PRELOAD");
    if (asprintf(&l->preload, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "") < 0) {
        l->preload = NULL;
        return PSK_ENOMEM;
    }
    int mpirun = is_mpirun(cmd[0]);
    char **a = l->argv = calloc((size_t)ncmd + 3 * (size_t)nnames + 8, sizeof *a);
    if (!a)
        return PSK_ENOMEM;
    int n = 0;
    a[n++] = cmd[0];
    if (mpirun && flavour == PSK_MPI_OPENMPI) {
        for (int k = 0; k < nnames; k++) {
            a[n++] = "-x";
            a[n++] = (char *)names[k]; /* -x NAME passes our value on */
        }
        if (asprintf(&l->xs, "LD_PRELOAD=%s", l->preload) < 0) {
            l->xs = NULL;
            return PSK_ENOMEM;
        }
        a[n++] = "-x";
        a[n++] = l->xs;
    } else if (mpirun && flavour == PSK_MPI_MPICH) {
        for (int k = 0; k < nnames; k++) {
            a[n++] = "-genv";
            a[n++] = (char *)names[k];
            a[n++] = getenv(names[k]);
        }
        a[n++] = "-genv";
        a[n++] = "LD_PRELOAD";
        a[n++] = l->preload;
    } else if ((l->xs = xrun_srun_export(cmd, ncmd, l->preload)) != NULL) {
        a[n++] = l->xs; /* srun passes perfskel's environment, LD_PRELOAD to the tasks only */
    } else {
        setenv("LD_PRELOAD", l->preload, 1);
    }
    for (int k = 1; k < ncmd; k++)
        a[n++] = cmd[k];
    a[n] = NULL;
    return PSK_OK;
}

int psk_run_launch_run(const psk_run_launch *l, int *status, char *err, size_t errcap)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errcap, "cannot start %s: %s", l->argv[0], strerror(errno));
        *status = 127;
        return PSK_EIO;
    }
    if (pid == 0) {
        execvp(l->argv[0], l->argv);
        /* on the job's stderr, which is the caller's */
        fprintf(stderr, "perfskel: %s: cannot run: %s\n", l->argv[0], strerror(errno));
        _exit(127);
    }
    /* Ctrl-C goes to the job (same process group); we wait for it */
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return PSK_OK;
}

void psk_run_launch_free(psk_run_launch *l)
{
    free(l->argv);
    free(l->xs);
    free(l->preload);
    memset(l, 0, sizeof *l);
}
