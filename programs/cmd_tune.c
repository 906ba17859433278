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
 * stack.c. `perfskel tune --db FILE --export-rules OUT --format
 * openmpi|mpich` runs no job: it writes the file's settled decisions as
 * that MPI's own rules (src/tune/tune_rules.c) and exits; with a launcher
 * as well it refuses. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "perfskel/trace.h"
#include "perfskel/tune.h"
#include "tune_rules.h"

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

enum { O_MPI, O_POLICY, O_FORCE, O_REPORT, O_DB, O_CHECK, O_DEBUG, O_EXPORT, O_FORMAT, O_MACHINE, O_MPICH_SEL };
static const psk_cli_opt opts[] = {
    [O_MPI] = {"--mpi", NULL, PSK_OPT_VALUE},
    [O_POLICY] = {"--policy", NULL, PSK_OPT_VALUE},
    [O_FORCE] = {"--force", NULL, PSK_OPT_VALUE},
    [O_REPORT] = {"--report", NULL, PSK_OPT_VALUE},
    [O_DB] = {"--db", NULL, PSK_OPT_VALUE},
    [O_CHECK] = {"--check", NULL, PSK_OPT_FLAG},
    [O_DEBUG] = {"--debug", NULL, PSK_OPT_FLAG},
    [O_EXPORT] = {"--export-rules", NULL, PSK_OPT_VALUE},
    [O_FORMAT] = {"--format", NULL, PSK_OPT_VALUE},
    [O_MACHINE] = {"--machine", NULL, PSK_OPT_VALUE},
    [O_MPICH_SEL] = {"--mpich-selection", NULL, PSK_OPT_VALUE},
};
/* the launcher after --, or at the first operand */
const psk_cli_opts cmd_tune_opts = {"tune", PSK_CLI_OPTS(opts), PSK_CLI_JOB_AT, NULL, NULL};

/* a whole file into memory (at most cap bytes, NUL-terminated: *n bytes,
 * *more if it is longer); NULL with errno set if it cannot be read */
static char *slurp(const char *path, size_t cap, size_t *n, int *more)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t size = 1 << 16, len = 0;
    char *buf = malloc(size + 1);
    *more = 0;
    while (buf) {
        if (len == size) {
            if (size >= cap) {
                *more = fgetc(f) != EOF;
                break;
            }
            size_t s2 = 2 * size < cap ? 2 * size : cap;
            char *b = realloc(buf, s2 + 1);
            if (!b) {
                free(buf);
                buf = NULL;
                errno = ENOMEM;
                break;
            }
            buf = b, size = s2;
        }
        size_t r = fread(buf + len, 1, size - len, f);
        len += r;
        if (r == 0) {
            if (ferror(f)) {
                free(buf);
                buf = NULL;
                errno = EIO;
            }
            break;
        }
    }
    fclose(f);
    if (buf) {
        buf[len] = 0;
        *n = len;
    }
    return buf;
}

/* the MPICH library whose built-in selection is kept: the first
 * libmpich.so.12 on LD_LIBRARY_PATH or in the usual directories */
static int find_libmpich(char *out, size_t cap)
{
    static const char *const dirs[] = {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib",
                                       "/usr/lib/aarch64-linux-gnu"};
    const char *llp = getenv("LD_LIBRARY_PATH");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", llp ? llp : "");
    for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save))
        if (snprintf(out, cap, "%s/libmpich.so.12", d) < (int)cap && !access(out, R_OK))
            return 0;
    for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++)
        if (snprintf(out, cap, "%s/libmpich.so.12", dirs[k]) < (int)cap && !access(out, R_OK))
            return 0;
    return -1;
}

/* perfskel tune --db DB --export-rules OUT --format F: 0 or an exit code */
static int export_rules(const char *db, const char *outpath, const char *format, const char *machine,
                        const char *mpich_sel)
{
    psk_tune_rules_opts o = {0};
    if (!strcmp(format, "openmpi"))
        o.format = PSK_TUNE_RULES_OPENMPI;
    else if (!strcmp(format, "mpich"))
        o.format = PSK_TUNE_RULES_MPICH;
    else
        return psk_cli_usage("tune: --format takes openmpi or mpich, not '%s'", format);
    if (mpich_sel && o.format != PSK_TUNE_RULES_MPICH)
        return psk_cli_usage("tune: --mpich-selection is for --format mpich");
    o.machine = machine;
    o.source = db;
    size_t n;
    int more;
    char *text = slurp(db, PSK_TUNE_DB_MAXFILE, &n, &more);
    if (!text)
        return psk_cli_error("%s: cannot read it (%s)", db, strerror(errno)), PSK_EXIT_DATA;
    if (more)
        fprintf(stderr, "perfskel: %s: only its first %d MiB read, as the tuning library reads it\n", db,
                PSK_TUNE_DB_MAXFILE >> 20);
    psk_tune_dbent *e = NULL;
    int ne = 0, bad = 0;
    char first[160] = "";
    /* the library's own reading of the file: a line valid exactly, or skipped */
    if (psk_tune_db_parse_text(text, &e, &ne, &bad, first, sizeof first)) {
        free(text), free(e);
        return psk_cli_error("%s: out of memory", db), PSK_EXIT_DATA;
    }
    free(text);
    if (bad)
        fprintf(stderr, "perfskel: %s: %d bad line%s skipped (%s)\n", db, bad, bad > 1 ? "s" : "", first);
    char *base = NULL;
    if (o.format == PSK_TUNE_RULES_MPICH) {
        char lib[PATH_MAX];
        const char *from = mpich_sel;
        if (!from && find_libmpich(lib, sizeof lib)) {
            free(e);
            return psk_cli_error("libmpich.so.12: not found (MPICH's own selection is kept for what is not "
                                 "exported: give --mpich-selection FILE)"),
                   PSK_EXIT_DATA;
        }
        if (!from)
            from = lib;
        char *bytes = slurp(from, (size_t)1 << 30, &n, &more);
        if (!bytes) {
            free(e);
            return psk_cli_error("%s: cannot read it (%s)", from, strerror(errno)), PSK_EXIT_DATA;
        }
        if (mpich_sel)
            base = bytes;
        else {
            int rc = psk_tune_rules_mpich_builtin(bytes, n, &base);
            free(bytes);
            if (rc) {
                free(e);
                return psk_cli_error("%s: no built-in collective selection found in it (give --mpich-selection "
                                     "FILE)", from),
                       PSK_EXIT_DATA;
            }
        }
        o.mpich_base = base;
    }
    /* written beside OUT and renamed over it: no half file, nothing on an error */
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", outpath, (long)getpid()) >= (int)sizeof tmp) {
        free(e), free(base);
        return psk_cli_usage("tune: --export-rules %s: path too long", outpath);
    }
    FILE *out = fopen(tmp, "w");
    if (!out) {
        int er = errno;
        free(e), free(base);
        return psk_cli_error("%s: cannot write it (%s)", outpath, strerror(er)), PSK_EXIT_DATA;
    }
    char err[600];
    psk_tune_rules_summary sum;
    int rc = psk_tune_rules_write(e, ne, &o, out, &sum, err, sizeof err);
    free(e), free(base);
    int werr = ferror(out);
    if (fclose(out) || werr || rc) {
        unlink(tmp);
        if (rc)
            return psk_cli_error("%s: %s", db, err), PSK_EXIT_DATA;
        return psk_cli_error("%s: cannot write it", outpath), PSK_EXIT_DATA;
    }
    if (rename(tmp, outpath)) {
        int er = errno;
        unlink(tmp);
        return psk_cli_error("%s: cannot write it (%s)", outpath, strerror(er)), PSK_EXIT_DATA;
    }
    fprintf(stderr, "perfskel: %s: %s rules of %d decisions (%d naming an algorithm, %d of them the nearest one; "
                    "sites disagreed on %d) of machine %s, %s\n",
            outpath, o.format == PSK_TUNE_RULES_OPENMPI ? "Open MPI" : "MPICH", sum.decisions, sum.rules,
            sum.nearest, sum.disagree, sum.machine, sum.mpi);
    return 0;
}

int cmd_tune(int argc, char **argv)
{
    int flavour = PSK_MPI_UNKNOWN, debug = 0, check = 0, i, k;
    const char *force = NULL, *policy = NULL, *report = NULL, *db = NULL;
    const char *export_to = NULL, *format = NULL, *machine = NULL, *mpich_sel = NULL;
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
        else if (k == O_EXPORT)
            export_to = a.val;
        else if (k == O_FORMAT)
            format = a.val;
        else if (k == O_MACHINE)
            machine = a.val;
        else if (k == O_MPICH_SEL)
            mpich_sel = a.val;
    }
    i = a.i; /* the launcher */
    if (export_to) {
        if (i < argc)
            return psk_cli_usage("tune: --export-rules writes a file and runs no job: give it without a launcher");
        if (!db || !*db)
            return psk_cli_usage("tune: --export-rules needs --db FILE, the decision file to export");
        if (!format)
            return psk_cli_usage("tune: --export-rules needs --format openmpi or --format mpich");
        return export_rules(db, export_to, format, machine, mpich_sel);
    }
    if (format || machine || mpich_sel)
        return psk_cli_usage("tune: --%s goes with --export-rules", format ? "format" : machine ? "machine" : "mpich-selection");
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
