/* The MPI of a job whose launcher does not tell (Slurm's srun): the MPI
 * library the program links, as ldd lists it (Open MPI's libmpi.so.40,
 * MPICH's libmpi.so.12 / libmpich.so.12), for perfskel record, and where
 * the program starts among the launcher's arguments (perfskel check); the MPI a
 * trace was recorded under, for perfskel predict; and the --export srun
 * needs so that the preloaded library reaches its tasks but not srun. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfskel/merge.h"
#include "perfskel/trace.h"
#include "run_internal.h"

#define MAX_TRIED 8 /* arguments taken for the program, at most */

/* the MPI named by ldd's lines ("\tlibmpi.so.40 => /usr/lib/.../libmpi.so.40 (0x...)") */
static int ldd_flavour(const char *text)
{
    static const struct {
        const char *name;
        int flavour;
    } libs[] = {{"libmpi.so.40 ", PSK_MPI_OPENMPI},
                {"libmpi.so.12 ", PSK_MPI_MPICH},
                {"libmpich.so.12 ", PSK_MPI_MPICH},
                {"libmpich.so ", PSK_MPI_MPICH}};
    for (const char *line = text; line && *line;) {
        line += strspn(line, " \t");
        for (size_t k = 0; k < sizeof libs / sizeof libs[0]; k++)
            if (!strncmp(line, libs[k].name, strlen(libs[k].name)))
                return libs[k].flavour;
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    return PSK_MPI_UNKNOWN;
}

/* 1 if path is a regular, executable ELF file */
static int is_elf_program(const char *path)
{
    struct stat st;
    if (stat(path, &st) || !S_ISREG(st.st_mode) || access(path, X_OK))
        return 0;
    FILE *f = fopen(path, "rb");
    unsigned char magic[4] = {0};
    int ok = f && fread(magic, 1, 4, f) == 4 && !memcmp(magic, "\177ELF", 4);
    if (f)
        fclose(f);
    return ok;
}

/* the MPI a program links, directly or through its libraries, by ldd
 * (which lists them without running the program) */
static int linked_flavour(const char *path)
{
    int st;
    char *text = xrun_output_of("ldd", &path, 1, &st);
    int fl = st == 0 && text ? ldd_flavour(text) : PSK_MPI_UNKNOWN;
    free(text);
    return fl;
}

int psk_run_program_at(char **cmd, int ncmd, int *flavour)
{
    /* the launcher's options and their values come first: the program is
     * the first argument that is an ELF program linking an MPI (a wrapper
     * before it, e.g. valgrind, links none; "4" of -n 4 is no program) */
    int tried = 0;
    for (int k = 1; k < ncmd && tried < MAX_TRIED; k++) {
        char path[PATH_MAX];
        if (cmd[k][0] == '-' || !xrun_which(cmd[k], path, sizeof path) || !is_elf_program(path))
            continue;
        tried++;
        int fl = linked_flavour(path);
        if (fl) {
            if (flavour)
                *flavour = fl;
            return k;
        }
    }
    return -1;
}

int psk_run_program_mpi(char **cmd, int ncmd)
{
    int fl = PSK_MPI_UNKNOWN;
    psk_run_program_at(cmd, ncmd, &fl);
    return fl;
}

int psk_run_trace_mpi(const char *input)
{
    struct stat st;
    int fl = PSK_MPI_UNKNOWN;
    if (stat(input, &st))
        return fl;
    if (S_ISDIR(st.st_mode)) {
        char path[PATH_MAX + 16];
        snprintf(path, sizeof path, "%s/job.json", input);
        FILE *f = fopen(path, "rb");
        if (!f)
            return fl;
        char *text = NULL;
        size_t len = 0;
        FILE *o = open_memstream(&text, &len);
        char buf[8192];
        size_t got;
        while (o && (got = fread(buf, 1, sizeof buf, f)) > 0 && len < (1u << 26))
            fwrite(buf, 1, got, o);
        fclose(f);
        if (o)
            fclose(o);
        psk_jobdoc *d = NULL;
        if (text && psk_jobdoc_parse(text, len, path, &d) == PSK_OK)
            fl = psk_jobdoc_job(d)->flavour;
        psk_jobdoc_close(d);
        free(text);
    } else {
        psk_merged *m = NULL;
        if (psk_merged_is_file(input) && psk_merged_read(input, &m) == PSK_OK)
            fl = psk_merged_job(m)->flavour;
        psk_merged_close(m);
    }
    return fl == PSK_MPI_OPENMPI || fl == PSK_MPI_MPICH ? fl : PSK_MPI_UNKNOWN;
}

int psk_run_is_srun(const char *launcher)
{
    return !strcmp(xrun_base_name(launcher), "srun");
}

char *xrun_srun_export(char **cmd, int ncmd, const char *preload)
{
    if (!psk_run_is_srun(cmd[0]) || strchr(preload, ',') || getenv("SLURM_EXPORT_ENV"))
        return NULL;
    for (int k = 1; k < ncmd; k++)
        if (!strncmp(cmd[k], "--export", 8))
            return NULL; /* the user's own: LD_PRELOAD goes in the environment */
    char *s;
    if (asprintf(&s, "--export=ALL,LD_PRELOAD=%s", preload) < 0)
        return NULL;
    return s;
}
