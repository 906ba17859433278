/* Launchers: which MPI a launcher (mpirun, mpiexec, ...) belongs to, for
 * perfskel record (which recording library to preload) and perfskel predict
 * (which mpicc builds the skeleton). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
static char *which(const char *prog, char *out, size_t cap)
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
    if (!which(launcher, real, sizeof real))
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
