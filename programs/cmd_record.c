/* perfskel record: runs the user's launcher with the recording library
 * preloaded into the ranks only (Open MPI: -x, MPICH: -genv; the launcher
 * itself stays clean), picking the library built for the launcher's MPI.
 * The trace directory's old trace files are replaced. Afterwards the trace
 * is read back whole, so a damaged trace is reported at once. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "perfskel/merge.h"
#include "perfskel/trace.h"
#include "psk_fs.h"

/* creates dir (and parents) and removes an earlier trace in it */
static int prepare_dir(const char *dir, char *abs)
{
    int err = psk_mkdir_p(dir);
    if (err)
        return err;
    struct stat st;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode))
        return ENOTDIR;
    if (!realpath(dir, abs))
        return errno;
    DIR *d = opendir(abs);
    if (!d)
        return errno;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int r;
        char c;
        if (!strcmp(e->d_name, "job.json") || !strcmp(e->d_name, "merged.pskm") ||
            !strcmp(e->d_name, "merged.fold.json") ||
            sscanf(e->d_name, "rank-%d.ps%c", &r, &c) == 2) {
            char p[PATH_MAX * 2];
            snprintf(p, sizeof p, "%s/%s", abs, e->d_name);
            unlink(p);
        }
    }
    closedir(d);
    return 0;
}

static char *join_command(char **argv, int argc)
{
    size_t len = 1;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 3;
    char *s = malloc(len), *p = s;
    if (!s)
        return NULL;
    for (int i = 0; i < argc; i++) {
        int quote = argv[i][strcspn(argv[i], " \t'\"")] != 0;
        p += sprintf(p, "%s%s%s%s", i ? " " : "", quote ? "'" : "", argv[i], quote ? "'" : "");
    }
    *p = 0;
    return s;
}

/* reads the whole trace back; returns events, or -1 after reporting */
static long long verify(const char *dir, int *nranks)
{
    psk_trace *t;
    if (psk_trace_open(dir, &t)) {
        psk_cli_error("%s", psk_trace_errmsg(t));
        psk_trace_close(t);
        return -1;
    }
    long long total = 0;
    int bad = 0;
    *nranks = psk_trace_job(t)->nranks;
    for (int r = 0; r < *nranks; r++) {
        psk_rank_reader *rr;
        psk_event ev;
        int rc = psk_rank_open(t, r, &rr);
        while (rc == PSK_OK && (rc = psk_rank_next(rr, &ev)) == PSK_OK)
            total++;
        if (rc != PSK_EOF) {
            psk_cli_error("%s", psk_rank_errmsg(rr));
            bad = 1;
        }
        psk_rank_close(rr);
    }
    psk_trace_close(t);
    return bad ? -1 : total;
}

enum { O_OUT, O_MPI, O_MERGE, O_MERGE_ONLY, O_MERGE_TIMES, O_ZSTD };
static const psk_cli_opt opts[] = {
    [O_OUT] = {"-o", NULL, PSK_OPT_VALUE},
    [O_MPI] = {"--mpi", NULL, PSK_OPT_VALUE},
    [O_MERGE] = {"--merge", NULL, PSK_OPT_FLAG},
    [O_MERGE_ONLY] = {"--merge-only", NULL, PSK_OPT_FLAG},
    [O_MERGE_TIMES] = {"--merge-times", NULL, PSK_OPT_VALUE},
    [O_ZSTD] = {"--zstd", NULL, PSK_OPT_FLAG},
};
/* the launcher after --, or at the first operand */
const psk_cli_opts cmd_record_opts = {"record", PSK_CLI_OPTS(opts), PSK_CLI_JOB_AT, NULL, NULL};

int cmd_record(int argc, char **argv)
{
    const char *out = "perfskel-trace";
    int flavour = PSK_MPI_UNKNOWN, i, k, merge = 0;
    const char *zstd = getenv("PSK_ZSTD"), *mtimes = "all";
    psk_cli_args a;
    psk_cli_begin(&a, &cmd_record_opts, argc, argv);
    while ((k = psk_cli_next(&a)) != PSK_CLI_END) {
        if (k == PSK_CLI_STOP)
            return a.status;
        else if (k == O_OUT)
            out = a.val;
        else if (k == O_MERGE)
            merge = merge ? merge : 1;
        else if (k == O_MERGE_ONLY)
            merge = 2;
        else if (k == O_MERGE_TIMES) {
            mtimes = a.val;
            if (strcmp(mtimes, "all") && strcmp(mtimes, "summary"))
                return psk_cli_usage("record: --merge-times takes all or summary, not '%s'", mtimes);
        } else if (k == O_ZSTD)
            zstd = "1";
        else if (k == O_MPI) {
            flavour = psk_cli_mpi_arg(a.val);
            if (!flavour)
                return psk_cli_usage("record: --mpi takes openmpi or mpich, not '%s'", a.val);
        }
    }
    i = a.i; /* the launcher */
    if (i >= argc)
        return psk_cli_usage("record: no launcher given (perfskel record -- mpirun -n 4 ./app)");
    char **cmd = argv + i;
    int ncmd = argc - i;
    /* perfskel record -- perfskel tune -- mpirun ...: tune preloads both */
    int outer = psk_run_stack_is_outer(cmd, ncmd);
    if (!flavour)
        flavour = psk_run_stack_mpi();
    if (!outer && !flavour && psk_run_is_srun(cmd[0]))
        flavour = psk_run_program_mpi(cmd, ncmd); /* srun: the MPI the program links */
    if (!outer && !(flavour = psk_cli_launcher_mpi(flavour, cmd[0])))
        return PSK_EXIT_USAGE;
    const char *libname = flavour == PSK_MPI_OPENMPI ? "libperfskel-record-openmpi.so" : "libperfskel-record-mpich.so";
    char lib[PATH_MAX], libs[2 * PATH_MAX + 2];
    if (!outer && psk_run_find_library(libname, lib, sizeof lib)) {
        psk_cli_error("%s: recording library for %s not found next to perfskel (set PERFSKEL_LIBDIR)", libname,
                      psk_flavour_name(flavour));
        return PSK_EXIT_DATA;
    }
    char dir[PATH_MAX];
    int err = prepare_dir(out, dir);
    if (err) {
        psk_cli_error("%s: cannot use as trace directory: %s", out, strerror(err));
        return PSK_EXIT_DATA;
    }
    uint64_t id = 0;
    if (getrandom(&id, sizeof id, 0) != sizeof id)
        id = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    char idhex[17];
    snprintf(idhex, sizeof idhex, "%016llx", (unsigned long long)id);
    char *command = join_command(cmd, ncmd);
    if (!command)
        return psk_cli_error("out of memory"), PSK_EXIT_DATA;

    /* the environment the ranks get, also set here for launchers that pass
     * their own environment on (and for srun-like launchers, LD_PRELOAD) */
    enum { NENV = 6 };
    const char *names[NENV] = {"PSK_TRACE_DIR", "PSK_JOB_ID", "PSK_COMMAND", "PSK_MERGE", "PSK_ZSTD", "PSK_MERGE_TIMES"};
    const char *values[NENV] = {dir,    idhex, command, merge == 2 ? "only" : merge ? "1" : "0", zstd && *zstd ? zstd : "0",
                                mtimes};
    char zcopy[32];
    snprintf(zcopy, sizeof zcopy, "%s", values[4]); /* setenv may replace the string it came from */
    values[4] = zcopy;
    for (int k = 0; k < NENV; k++)
        setenv(names[k], values[k], 1);
    int code;
    if (outer) {
        fprintf(stderr, "perfskel: recording %s %s into %s\n", cmd[0], cmd[1], dir);
        code = psk_cli_stack_run("record", flavour, cmd, names, NENV);
    } else {
        const char **all;
        int nall;
        if ((code = psk_cli_stack_inner("record", flavour, lib, libs, sizeof libs, names, NENV, &all, &nall))) {
            free(command);
            return code;
        }
        psk_run_launch launch;
        if (psk_run_preload(&launch, flavour, cmd, ncmd, libs, all, nall)) {
            psk_run_launch_free(&launch);
            free(command);
            free(all);
            return psk_cli_error("out of memory"), PSK_EXIT_DATA;
        }
        fprintf(stderr, "perfskel: recording %s with %s into %s%s\n", cmd[0], psk_flavour_name(flavour), dir,
                strchr(libs, ':') ? " (the tuning library stacked)" : "");
        code = psk_cli_launch_run(&launch);
        psk_run_launch_free(&launch);
        free(all);
    }
    free(command);
    if (code == 127)
        return PSK_EXIT_DATA;
    char jpath[PATH_MAX + 16];
    snprintf(jpath, sizeof jpath, "%s/job.json", dir);
    if (outer && code && access(jpath, F_OK))
        return code; /* the inner perfskel said why nothing ran */
    int nranks = 0;
    char mpath[PATH_MAX + 16];
    const char *mout = getenv("PSK_MERGE_OUT"); /* where rank 0 writes it, if not in dir */
    if (mout && *mout)
        snprintf(mpath, sizeof mpath, "%s", mout);
    else
        snprintf(mpath, sizeof mpath, "%s/merged.pskm", dir);
    psk_merged *m = NULL;
    long long events = -1;
    if (merge == 2 && !access(mpath, F_OK)) {
        /* --merge-only: the rank files are gone, the merged trace says it */
        if (psk_merged_read(mpath, &m) == PSK_OK) {
            nranks = psk_merged_nranks(m);
            events = 0;
            for (int r = 0; r < nranks; r++)
                events += (long long)psk_merged_rank_events(m, r);
        } else {
            psk_cli_error("%s", psk_merged_errmsg(m));
        }
        psk_merged_close(m);
    } else {
        events = verify(dir, &nranks);
    }
    if (events >= 0)
        fprintf(stderr, "perfskel: %d ranks, %lld events recorded in %s\n", nranks, events, dir);
    else if (!code)
        code = PSK_EXIT_DATA;
    if (merge && !code && access(mpath, F_OK)) {
        psk_cli_error("%s: the merge inside the job wrote nothing (its reason is above); "
                      "merge offline: perfskel merge %s", mpath, dir);
        code = PSK_EXIT_DATA;
    }
    if (code)
        fprintf(stderr, "perfskel: the job exited with status %d; what was recorded is in %s\n", code, dir);
    return code;
}
