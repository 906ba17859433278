/* Launchers: which MPI a launcher (mpirun, mpiexec, ...) belongs to, for
 * perfskel record and tune (which library to preload) and perfskel predict
 * (which mpicc builds the skeleton); finding a preload library and running
 * a job with it preloaded into the ranks only (record, tune). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "perfskel/trace.h"

const char *psk_base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int name_flavour(const char *name)
{
    if (strstr(name, "openmpi") || strstr(name, "orterun") || strstr(name, "ompi"))
        return PSK_MPI_OPENMPI;
    if (strstr(name, "mpich") || strstr(name, "hydra"))
        return PSK_MPI_MPICH;
    return PSK_MPI_UNKNOWN;
}

/* full path of an executable on PATH, or NULL */
char *psk_cli_which(const char *prog, char *out, size_t cap)
{
    if (strchr(prog, '/'))
        return realpath(prog, out);
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    char dir[PATH_MAX];
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(dir, sizeof dir, "%.*s/%s", (int)n, path, prog);
        if (access(dir, X_OK) == 0 && realpath(dir, out))
            return out;
        path += n + (path[n] == ':');
    }
    (void)cap;
    return NULL;
}

/* Which MPI a launcher belongs to: by its name, the name its symlinks lead
 * to (mpirun -> /etc/alternatives/mpirun -> mpirun.openmpi), or what it
 * says of itself with --version. */
int psk_launcher_flavour(const char *launcher)
{
    int fl = name_flavour(psk_base_name(launcher));
    if (fl)
        return fl;
    char real[PATH_MAX];
    if (!psk_cli_which(launcher, real, sizeof real))
        return PSK_MPI_UNKNOWN;
    if ((fl = name_flavour(psk_base_name(real))) != 0)
        return fl;
    /* run directly, not through a shell: any byte may be in the path */
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    if (!o)
        return PSK_MPI_UNKNOWN;
    char *argv[] = {real, "--version", NULL};
    psk_cli_runopts ro = {.limit = 30, .out = o, .catch = ""}; /* stderr too */
    psk_cli_run_watched(argv, &ro);
    if (ro.caught)
        fwrite(ro.caught, 1, ro.ncaught, o);
    fclose(o);
    free(ro.caught);
    if (text && (strstr(text, "Open MPI") || strstr(text, "OpenRTE")))
        fl = PSK_MPI_OPENMPI;
    else if (text && (strstr(text, "HYDRA") || strstr(text, "MPICH")))
        fl = PSK_MPI_MPICH;
    free(text);
    return fl;
}


int psk_cli_mpi_arg(const char *name)
{
    return !strcmp(name, "openmpi") ? PSK_MPI_OPENMPI : !strcmp(name, "mpich") ? PSK_MPI_MPICH : 0;
}

int psk_cli_launcher_mpi(int given, const char *launcher)
{
    int flavour = given ? given : psk_launcher_flavour(launcher);
    if (!flavour)
        psk_cli_error("%s: cannot tell which MPI this launcher belongs to; say --mpi openmpi or --mpi mpich",
                      launcher);
    return flavour;
}

/* ---- preloading a library into the ranks ---- */

int psk_cli_find_library(const char *name, char *out, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n < 0)
        return -1;
    exe[n] = 0;
    char *dir = dirname(exe);
    const char *env = getenv("PERFSKEL_LIBDIR");
    const char *cands[] = {env, dir, NULL};
    for (int i = 0; i < 2; i++) {
        if (!cands[i])
            continue;
        snprintf(out, cap, "%s/%s", cands[i], name);
        if (access(out, R_OK) == 0)
            return 0;
    }
    snprintf(out, cap, "%s/../lib/perfskel/%s", dir, name);
    if (access(out, R_OK) == 0) {
        char r[PATH_MAX];
        if (realpath(out, r))
            snprintf(out, cap, "%s", r);
        return 0;
    }
    return -1;
}

int psk_cli_preload(psk_cli_launch *l, int flavour, char **cmd, int ncmd, const char *lib,
                    const char *const *names, int nnames)
{
    memset(l, 0, sizeof *l);
    const char *old = getenv("LD_PRELOAD");
    if (asprintf(&l->preload, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "") < 0) {
        l->preload = NULL;
        return -1;
    }
    const char *lname = psk_base_name(cmd[0]);
    int is_mpirun = !strncmp(lname, "mpirun", 6) || !strncmp(lname, "mpiexec", 7) ||
                    !strncmp(lname, "orterun", 7);
    char **a = l->argv = calloc((size_t)ncmd + 3 * (size_t)nnames + 8, sizeof *a);
    if (!a)
        return -1;
    int n = 0;
    a[n++] = cmd[0];
    if (is_mpirun && flavour == PSK_MPI_OPENMPI) {
        for (int k = 0; k < nnames; k++) {
            a[n++] = "-x";
            a[n++] = (char *)names[k]; /* -x NAME passes our value on */
        }
        if (asprintf(&l->xs, "LD_PRELOAD=%s", l->preload) < 0) {
            l->xs = NULL;
            return -1;
        }
        a[n++] = "-x";
        a[n++] = l->xs;
    } else if (is_mpirun && flavour == PSK_MPI_MPICH) {
        for (int k = 0; k < nnames; k++) {
            a[n++] = "-genv";
            a[n++] = (char *)names[k];
            a[n++] = getenv(names[k]);
        }
        a[n++] = "-genv";
        a[n++] = "LD_PRELOAD";
        a[n++] = l->preload;
    } else if ((l->xs = psk_cli_srun_export(cmd, ncmd, l->preload)) != NULL) {
        a[n++] = l->xs; /* srun passes perfskel's environment, LD_PRELOAD to the tasks only */
    } else {
        setenv("LD_PRELOAD", l->preload, 1);
    }
    for (int k = 1; k < ncmd; k++)
        a[n++] = cmd[k];
    a[n] = NULL;
    return 0;
}

int psk_cli_launch_run(psk_cli_launch *l)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        psk_cli_error("cannot start %s: %s", l->argv[0], strerror(errno));
        return 127;
    }
    if (pid == 0) {
        execvp(l->argv[0], l->argv);
        fprintf(stderr, "perfskel: %s: cannot run: %s\n", l->argv[0], strerror(errno));
        _exit(127);
    }
    /* Ctrl-C goes to the job (same process group); we wait for it */
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void psk_cli_launch_free(psk_cli_launch *l)
{
    free(l->argv);
    free(l->xs);
    free(l->preload);
    memset(l, 0, sizeof *l);
}
