/* perfskel: the command-line tool. Dispatches to one cmd_<name>.c per
 * subcommand; library errors become one-line messages and exit codes here
 * and nowhere else (the libraries only return codes). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Writes "perfskel: " and the message on one line: a control byte in it
 * (a newline or an escape sequence from a crafted file's string) is
 * written as \n, \t, \r or \xNN, so an error is always one line. */
static void vsay(const char *fmt, va_list ap, const char *tail)
{
    char buf[4096];
    vsnprintf(buf, sizeof buf, fmt, ap);
    fputs("perfskel: ", stderr);
    for (const unsigned char *p = (const unsigned char *)buf; *p; p++) {
        if (*p == '\n')
            fputs("\\n", stderr);
        else if (*p == '\t')
            fputs("\\t", stderr);
        else if (*p == '\r')
            fputs("\\r", stderr);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(stderr, "\\x%02x", *p);
        else
            fputc(*p, stderr);
    }
    fputs(tail, stderr);
}

void psk_cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap, "\n");
    va_end(ap);
}

int psk_cli_seconds(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0) || v > 1e9)
        return -1;
    *out = v;
    return 0;
}

int psk_cli_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap, " (perfskel --help for usage)\n");
    va_end(ap);
    return PSK_EXIT_USAGE;
}

#define ADVISE_USAGE                                                                           \
    "  advise FILE [-D NAME=VALUE]... [--procs P] [--maxdims K] [--machine FILE] [--top N]\n"  \
    "        [--static] [--json] [--trace DIR]\n"                                             \
    "        how to distribute a program's arrays and loop nests over P processors: FILE\n"   \
    "        describes them (docs/advise.md, examples/advise), -D overrides its param NAME;\n" \
    "        the best layouts (--top N, default 5) costed on the machine (--machine, else\n"  \
    "        FILE's `machine`), with the redistributions between nests that pay off (none\n"  \
    "        with --static); --procs and --maxdims override FILE's procs and maxdims;\n"     \
    "        --trace DIR writes a synthetic trace of the plan for `perfskel sim` (the nests\n" \
    "        as pcontrol intervals, named in DIR/intervals.txt)\n"

static const char usage[] =
    "usage: perfskel <command> [options]\n"
    "\n"
    "commands:\n"
    "  record [-o DIR] [--mpi openmpi|mpich] [--merge|--merge-only] [--merge-times all|summary]\n"
    "        [--zstd] -- LAUNCHER ARGS...\n"
    "        PROGRAM ARGS...\n"
    "        run an MPI job with every MPI call of every rank recorded into DIR\n"
    "        (default ./perfskel-trace); LAUNCHER may be `perfskel tune ... --\n"
    "        LAUNCHER`: the tuned job recorded, with the arm of each tuned call;\n"
    "        --merge: the ranks merge their traces in MPI_Finalize, into\n"
    "        DIR/merged.pskm (as `perfskel merge DIR`) and rank 0 folds it into\n"
    "        DIR/merged.fold.json (as `perfskel fold -o`); --merge-only: the same,\n"
    "        the rank files removed once merged; --merge-times summary: the merged\n"
    "        trace keeps summarised times (as merge --times summary); --zstd: blocks\n"
    "        compressed\n"
    "        with zstd (level 1; PSK_ZSTD=LEVEL for another)\n"
    "  stats DIR [--json] [--no-fold]\n"
    "        profile of a recorded job: calls, bytes and time per function and rank,\n"
    "        and the calls whose arguments change between loop iterations\n"
    "  dump DIR|MERGED [--rank R] [--json] [--merged]\n"
    "        every recorded event, one per line (JSON lines with --json); from a\n"
    "        merged trace the same rebuilt from it, or with --merged its merged events\n"
    "  merge DIR [-o FILE] [--window M] [--no-reorder] [--keep-polls] [--times all|summary]\n"
    "        [--in-memory] [--mpi] [-q] [--json]\n"
    "        merge all ranks into one sequence of events with per-rank patterns\n"
    "        (default FILE: DIR/merged.pskm); a run of polls (tests or Iprobes that\n"
    "        found nothing, then the one that did) is one event unless --keep-polls;\n"
    "        --times summary: per event a few order statistics of the ranks' times\n"
    "        and a factor per rank, not every rank's times (lossy; the file stops\n"
    "        growing with P). It streams (memory does not grow with every rank's\n"
    "        events); --in-memory: the whole trace in memory first (the same file);\n"
    "        -q: no progress on stderr; mpirun -n N perfskel merge --mpi DIR: the\n"
    "        work spread over N processes\n"
    "  fold DIR|MERGED|--symbols FILE [--algo runs|paper|topdown|bottomup] [--tree] [--json] [-o FILE]\n"
    "        find the loops of the merged trace and print its loop tree\n"
    "  gen DIR|MERGED -K N [-o FILE] [--table-min N] [--min-sample S]\n"
    "        the performance skeleton: a C MPI program that runs about 1/K of the\n"
    "        original (loops a sample of their iterations, whose steady part lasts\n"
    "        at least S seconds in the original, default 0.04, 0.25 where a host ran\n"
    "        more ranks than cores; compute the loops cannot shrink runs shorter);\n"
    "        runs of at least N calls outside loops\n"
    "        (default 32) replayed from data\n"
    "  predict DIR -K N [--repeat R] [--json] [--actual S] [--keep DIR] [--mpi M] [--mpicc PATH]\n"
    "          [--min-sample S] [--timeout S] [-q] -- LAUNCHER ARGS...\n"
    "        build and run the skeleton with LAUNCHER; the original's predicted run time\n"
    "        (perfskel predict --help for all its options)\n"
    "  check [-n RUNS] [-K K] [--machine FILE] [-o DIR] [--json] [-q] [--timeout S] [--mpi M]\n"
    "        -- LAUNCHER ARGS... PROGRAM ARGS...\n"
    "        how far perfskel's predictions hold for a program here: RUNS plain runs\n"
    "        (default 3) timed MPI_Init to MPI_Finalize, one recording (kept in DIR,\n"
    "        default ./perfskel-check), predict (K default 10) and sim (on --machine,\n"
    "        else a machine calibrated here); one table of their errors against the\n"
    "        plain median and the recording, and the noise floor (perfskel check --help\n"
    "        for all its options)\n"
    "  sim DIR [--machine FILE]... [--intervals loops] [--depth N] [--json] [--html FILE] [-q]\n"
    "        [--folded] [--ranks P2 (--scale weak|strong | --fit TRACE_B [TRACE_C])]\n"
    "        replay the trace on a model of a machine: predicted run time and where\n"
    "        the time goes, per interval and rank; --machine again: each machine, side\n"
    "        by side; --html FILE: a report to explore (timeline, functions, loops);\n"
    "        --ranks P2: the same program at P2 ranks (rank-relative patterns rebuilt,\n"
    "        sizes and compute kept (weak), divided by P2/P (strong), or fitted per\n"
    "        event to recordings at 2 or 3 rank counts (--fit); docs/simulation.md)\n"
    "  calibrate [-o FILE] [--mpi M] [--mpicc PATH] -- LAUNCHER ARGS...\n"
    "        measure this machine (latency, bandwidth, eager limit, CPU) into a machine\n"
    "        file for sim (default machine.par); its program is built with PATH, else\n"
    "        $MPICC, else an mpicc of the launcher's MPI (as predict)\n"
    "  export --smpi DIR -o OUTDIR [--machine FILE]\n"
    "        the trace in SimGrid SMPI's replay format, with a platform and a hostfile;\n"
    "        --otf2 DIR -o OUTDIR: as an OTF2 archive, OUTDIR/traces.otf2 (README, OTF2)\n"
    "  import --otf2 ANCHOR -o DIR [-q]\n"
    "        an OTF2 archive (ANCHOR: its .otf2 file, e.g. Score-P's traces.otf2) as a\n"
    "        perfskel trace directory DIR: its MPI calls and the compute between them;\n"
    "        what could not be mapped is said, one line per kind (-q: not said)\n"
    "  tune [--mpi openmpi|mpich] [--policy P | --force ARM] [--report FILE] [--db FILE]\n"
    "        [--check] [--debug] -- LAUNCHER ARGS... PROGRAM ARGS...\n"
    "        run an MPI job with MPI_Alltoall taken over by the tuning library; P:\n"
    "        learn (default: it chooses and adapts), star (STAR-MPI's policy), or\n"
    "        one arm for all: native, spread, pair, ring, bruck, pair_lb, ring_lb,\n"
    "        pair_mb, ring_mb, pair_ob, ring_ob, or cycle (each valid arm in turn);\n"
    "        --report FILE: what it chose and why, at the end (JSON if FILE ends in\n"
    "        .json); --db FILE: decisions kept for the next run, which starts on\n"
    "        them; --check: every decision hash-checked across ranks; --debug:\n"
    "        each rank's counts on stderr at MPI_Finalize (docs/tune.md);\n"
    "        LAUNCHER may be `perfskel record ... -- LAUNCHER` (see record)\n"
    ADVISE_USAGE
    "\n"
    "perfskel --version prints the version.\n";

/* perfskel CMD --help: CMD's entry of the usage above (predict has its own) */
static int command_help(const char *cmd)
{
    size_t n = strlen(cmd);
    for (const char *l = usage; *l;) {
        const char *e = strchr(l, '\n');
        if (!strncmp(l, "  ", 2) && !strncmp(l + 2, cmd, n) && (l[2 + n] == ' ' || l[2 + n] == '\n')) {
            fputs("usage: perfskel ", stdout);
            fwrite(l + 2, 1, (size_t)(e - l - 2), stdout);
            putchar('\n');
            for (l = e + 1; !strncmp(l, "        ", 8); l = strchr(l, '\n') + 1)
                fwrite(l, 1, (size_t)(strchr(l, '\n') - l + 1), stdout);
            return 1;
        }
        l = e + 1;
    }
    return 0;
}

/* The options of every command: those that take a value (as `--opt
 * value` or `--opt=value`) and those that do not. A command whose
 * options end at its first operand (the launcher, when no -- comes
 * before it) says so. Every option a command's parser knows is here, so
 * that main() reads the command line one way for all of them. */
typedef struct {
    const char *cmd;
    const char *values; /* " -o --mpi ": each between spaces */
    const char *flags;
    int operand_ends;   /* 1: the first operand and what follows belong to the job */
} cmd_options;

static const cmd_options options[] = {
    {"record", " -o --mpi --merge-times ", " --merge --merge-only --zstd ", 1},
    {"stats", " ", " --json --no-fold ", 0},
    {"dump", " --rank ", " --json --merged ", 0},
    {"merge", " -o --window --times ", " --no-reorder --keep-polls --in-memory --mpi -q --json ", 0},
    {"fold", " --symbols --algo -o ", " --tree --json ", 0},
    {"gen", " -K -o --table-min --min-sample ", " ", 0},
    {"predict", " -K --repeat --actual --keep --mpi --mpicc --timeout --build-timeout --min-sample ", " --json -q --quiet ", 0},
    {"check", " -n -K --machine -o --timeout --mpi ", " --json -q --quiet ", 0},
    {"sim", " --machine --intervals --depth --html --ranks --scale --fit ", " --json -q --folded --no-skip ", 0},
    {"calibrate", " -o --mpi --mpicc ", " ", 0},
    {"export", " -o --machine ", " --smpi --otf2 ", 0},
    {"import", " -o ", " --otf2 -q ", 0},
    {"tune", " --mpi --policy --force --report --db ", " --check --debug ", 1},
    {"advise", " -D --procs --maxdims --machine --top --trace ", " --static --json ", 0},
};

/* 1 if name (its first n bytes) is one of the space-separated list */
static int listed(const char *list, const char *name, size_t n)
{
    for (const char *p = list; *p; p += strcspn(p, " ")) {
        p += strspn(p, " ");
        if (strcspn(p, " ") == n && !strncmp(p, name, n))
            return 1;
    }
    return 0;
}

/* The command line of cmd read one way: every `--opt=value` before the
 * `--` (and, for record and tune, before the launcher) becomes `--opt
 * value` in *out (a new argv, the strings shared with argv or malloc'd);
 * a flag given a value or an unknown `--name=value` is an error. *help:
 * -h or --help among those options. 0, or the exit status after saying
 * what is wrong. A command not in the table is left as it is. */
static int normalise(const char *cmd, int argc, char **argv, char ***out, int *outc, int *help)
{
    const cmd_options *o = NULL;
    for (size_t k = 0; k < sizeof options / sizeof *options; k++)
        if (!strcmp(options[k].cmd, cmd))
            o = &options[k];
    char **a = calloc(2 * (size_t)argc + 1, sizeof *a);
    if (!a)
        return psk_cli_error("out of memory"), PSK_EXIT_DATA;
    int n = 0, i = 0, opts = 1;
    a[n++] = argv[i++];
    for (; i < argc; i++) {
        const char *s = argv[i];
        if (!opts || !strcmp(s, "--")) {
            opts = 0;
            a[n++] = argv[i];
            continue;
        }
        if (!strcmp(s, "--help") || !strcmp(s, "-h"))
            *help = 1;
        if (!o || s[0] != '-' || !s[1]) {
            if (o && o->operand_ends && s[0] != '-')
                opts = 0; /* the launcher and its arguments */
            a[n++] = argv[i];
            continue;
        }
        const char *eq = s[1] == '-' ? strchr(s, '=') : NULL;
        size_t len = eq ? (size_t)(eq - s) : strlen(s);
        if (!eq) {
            a[n++] = argv[i];
            if (listed(o->values, s, len) && i + 1 < argc)
                a[n++] = argv[++i]; /* its value, whatever it looks like */
            continue;
        }
        if (listed(o->values, s, len)) {
            char *name = strndup(s, len);
            if (!name)
                return free(a), psk_cli_error("out of memory"), PSK_EXIT_DATA;
            a[n++] = name;
            a[n++] = (char *)eq + 1;
            continue;
        }
        free(a);
        if (listed(o->flags, s, len) || listed(" --help ", s, len))
            return psk_cli_usage("%s: %.*s takes no value ('%s')", cmd, (int)len, s, s);
        return psk_cli_usage("%s: unknown option '%.*s' ('%s')", cmd, (int)len, s, s);
    }
    a[n] = NULL;
    *out = a;
    *outc = n;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return fputs(usage, stderr), PSK_EXIT_USAGE;
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help"))
        return fputs(usage, stdout), 0;
    if (!strcmp(cmd, "--version"))
        return puts("perfskel " PSK_VERSION), 0;
    int help = 0, rc = normalise(cmd, argc - 1, argv + 1, &argv, &argc, &help);
    if (rc)
        return rc;
    /* predict and check say their own help */
    if (help && strcmp(cmd, "predict") && strcmp(cmd, "check") && command_help(cmd))
        return 0;
    if (!strcmp(cmd, "record"))
        return cmd_record(argc, argv);
    if (!strcmp(cmd, "stats"))
        return cmd_stats(argc, argv);
    if (!strcmp(cmd, "dump"))
        return cmd_dump(argc, argv);
    if (!strcmp(cmd, "merge"))
        return cmd_merge(argc, argv);
    if (!strcmp(cmd, "fold"))
        return cmd_fold(argc, argv);
    if (!strcmp(cmd, "gen"))
        return cmd_gen(argc, argv);
    if (!strcmp(cmd, "predict"))
        return cmd_predict(argc, argv);
    if (!strcmp(cmd, "check"))
        return cmd_check(argc, argv);
    if (!strcmp(cmd, "sim"))
        return cmd_sim(argc, argv);
    if (!strcmp(cmd, "calibrate"))
        return cmd_calibrate(argc, argv);
    if (!strcmp(cmd, "export"))
        return cmd_export(argc, argv);
    if (!strcmp(cmd, "import"))
        return cmd_import(argc, argv);
    if (!strcmp(cmd, "tune"))
        return cmd_tune(argc, argv);
    if (!strcmp(cmd, "advise"))
        return cmd_advise(argc, argv);
    return psk_cli_usage("unknown command '%s'", cmd);
}
