/* perfskel: the command-line tool. Dispatches to one cmd_<name>.c per
 * subcommand; library errors become one-line messages and exit codes here
 * and nowhere else (the libraries only return codes). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "perfskel/trace.h"

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

/* The commands: one entry each, which drives the dispatch, `perfskel
 * --help` (the summary, a line each), `perfskel CMD --help` (the usage: its
 * synopsis, then what it does and its options, each line after the first
 * indented) and so the man pages (cmake/manpages.sh writes them from those
 * texts). Its options are its own table (cmd_<name>.c, cli.h's
 * psk_cli_opts), which main's normalise reads as the command's parser does;
 * tests/cli/options_help.sh checks that the usage lists the same options.
 * predict and check print their own longer --help; tune's lists its arms
 * from the tuning library's table (tune.h). */
typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    const char *usage;
    const psk_cli_opts *opts;
} command;

static const command commands[] = {
    {"record", cmd_record, "run an MPI job with every MPI call of every rank recorded",
     "record [-o DIR] [--mpi openmpi|mpich] [--merge|--merge-only] [--merge-times all|summary]\n"
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
     "        compressed with zstd (level 1; PSK_ZSTD=LEVEL for another)\n",
     &cmd_record_opts},
    {"stats", cmd_stats, "profile a recorded job: calls, bytes and time per function and rank",
     "stats DIR [--json] [--no-fold]\n"
     "        profile of a recorded job: calls, bytes and time per function and rank,\n"
     "        and the calls whose arguments change between loop iterations\n",
     &cmd_stats_opts},
    {"dump", cmd_dump, "print every recorded event, one per line",
     "dump DIR|MERGED [--rank R] [--json] [--merged]\n"
     "        every recorded event, one per line (JSON lines with --json); from a\n"
     "        merged trace the same rebuilt from it, or with --merged its merged events\n",
     &cmd_dump_opts},
    {"merge", cmd_merge, "merge the ranks into one sequence of events with per-rank patterns",
     "merge DIR [-o FILE] [--window M] [--no-reorder] [--keep-polls] [--times all|summary]\n"
     "        [--in-memory] [--mpi] [-q] [--json]\n"
     "        merge all ranks into one sequence of events with per-rank patterns\n"
     "        (default FILE: DIR/merged.pskm); a run of polls (tests or Iprobes that\n"
     "        found nothing, then the one that did) is one event unless --keep-polls;\n"
     "        --times summary: per event a few order statistics of the ranks' times\n"
     "        and a factor per rank, not every rank's times (lossy; the file stops\n"
     "        growing with P). It streams (memory does not grow with every rank's\n"
     "        events); --in-memory: the whole trace in memory first (the same file);\n"
     "        -q: no progress on stderr; mpirun -n N perfskel merge --mpi DIR: the\n"
     "        work spread over N processes\n",
     &cmd_merge_opts},
    {"fold", cmd_fold, "find the loops of a merged trace: its loop tree",
     "fold DIR|MERGED|--symbols FILE [--algo runs|paper|topdown|bottomup] [--tree] [--json] [-o FILE]\n"
     "        find the loops of the merged trace and print its loop tree\n",
     &cmd_fold_opts},
    {"gen", cmd_gen, "write the performance skeleton, a C MPI program that runs 1/K of the job",
     "gen DIR|MERGED [-K K] [-o FILE] [--table-min N] [--min-sample S] [--no-pin]\n"
     "        the performance skeleton: a C MPI program that runs about 1/K of the\n"
     "        original (default K 10): loops run a sample of their iterations, whose\n"
     "        steady part lasts at least S seconds in the original (default 0.04,\n"
     "        0.25 where a host ran more ranks than cores), compute the loops cannot\n"
     "        shrink runs shorter; runs of at least N calls outside loops (default\n"
     "        32) replayed from data. Where a host ran more ranks than cores and each\n"
     "        stayed on one CPU, a rank run on that host again runs on its recorded\n"
     "        rank's CPU (--no-pin: where the system puts it)\n",
     &cmd_gen_opts},
    {"predict", cmd_predict, "build and run the skeleton: the job's predicted run time",
     "predict DIR [-K N] [--repeat R] [--json] [--actual S] [--keep DIR] [--mpi M] [--mpicc PATH]\n"
     "          [--min-sample S] [--no-pin] [--timeout S] [-q] -- LAUNCHER ARGS...\n"
     "        build and run the skeleton with LAUNCHER; the original's predicted run time\n"
     "        (perfskel predict --help for all its options)\n",
     &cmd_predict_opts},
    {"check", cmd_check, "how far perfskel's predictions hold for a program on this machine",
     "check [-n RUNS] [-K K] [--machine FILE] [-o DIR] [--json] [-q] [--timeout S] [--mpi M]\n"
     "        -- LAUNCHER ARGS... PROGRAM ARGS...\n"
     "        how far perfskel's predictions hold for a program here: RUNS plain runs\n"
     "        (default 3) timed MPI_Init to MPI_Finalize, one recording (kept in DIR,\n"
     "        default ./perfskel-check), predict (K default 10) and sim (on --machine,\n"
     "        else a machine calibrated here); one table of their errors against the\n"
     "        plain median and the recording, and the noise floor (perfskel check --help\n"
     "        for all its options)\n",
     &cmd_check_opts},
    {"sim", cmd_sim, "replay a trace on a model of a machine: its run time and where it goes",
     "sim DIR [--machine FILE]... [--intervals loops] [--depth N] [--json] [--html FILE] [-q]\n"
     "        [--folded [--no-skip]] [--ranks P2 (--scale weak|strong | --fit TRACE_B [TRACE_C])]\n"
     "        replay the trace on a model of a machine: predicted run time and where\n"
     "        the time goes, per interval and rank; --machine again: each machine, side\n"
     "        by side; --html FILE: a report to explore (timeline, functions, loops);\n"
     "        --ranks P2: the same program at P2 ranks (rank-relative patterns rebuilt,\n"
     "        sizes and compute kept (weak), divided by P2/P (strong), or fitted per\n"
     "        event to recordings at 2 or 3 rank counts (--fit); docs/simulation.md)\n",
     &cmd_sim_opts},
    {"calibrate", cmd_calibrate, "measure this machine into a machine file for sim",
     "calibrate [-o FILE] [--mpi M] [--mpicc PATH] -- LAUNCHER ARGS...\n"
     "        measure this machine (latency, bandwidth, eager limit, CPU) into a machine\n"
     "        file for sim (default machine.par); its program is built with PATH, else\n"
     "        $MPICC, else an mpicc of the launcher's MPI (as predict)\n",
     &cmd_calibrate_opts},
    {"export", cmd_export, "write a trace as an OTF2 archive or as SimGrid SMPI replay traces",
     "export --smpi DIR -o OUTDIR [--machine FILE]\n"
     "        the trace in SimGrid SMPI's replay format, with a platform and a hostfile;\n"
     "        --otf2 DIR -o OUTDIR: as an OTF2 archive, OUTDIR/traces.otf2 (README, OTF2)\n",
     &cmd_export_opts},
    {"import", cmd_import, "read an OTF2 archive as a perfskel trace",
     "import --otf2 ANCHOR -o DIR [-q]\n"
     "        an OTF2 archive (ANCHOR: its .otf2 file, e.g. Score-P's traces.otf2) as a\n"
     "        perfskel trace directory DIR: its MPI calls and the compute between them;\n"
     "        what could not be mapped is said, one line per kind (-q: not said)\n",
     &cmd_import_opts},
    {"tune", cmd_tune, "run an MPI job with four collectives tuned while it runs",
     "tune [--mpi openmpi|mpich] [--policy P | --force ARM] [--report FILE] [--db FILE]\n"
     "        [--check] [--debug] -- LAUNCHER ARGS... PROGRAM ARGS...\n"
     "        run an MPI job with MPI_Alltoall, MPI_Bcast, MPI_Allreduce and MPI_Allgather\n"
     "        taken over by the tuning library; P: learn (default: it chooses and\n"
     "        adapts), star (STAR-MPI's policy), or ARM for every call it fits\n"
     "        (the others native): native, cycle (each valid arm in turn) or one of\n"
     "        the arms listed below; --report FILE: what it chose and why, at the end\n"
     "        (JSON if FILE ends in .json); --db FILE: decisions kept for the next\n"
     "        run, which starts on them; --check: every decision hash-checked across\n"
     "        ranks; --debug: each rank's counts on stderr at MPI_Finalize\n"
     "        (docs/tune.md); LAUNCHER may be `perfskel record ... -- LAUNCHER` (see\n"
     "        record)\n"
     "        --export-rules OUT --format openmpi|mpich [--machine NAME] [--mpich-selection F]:\n"
     "        with --db FILE and no launcher, no job: the file's settled decisions written\n"
     "        to OUT as the MPI's own rules (Open MPI 4.1's coll_tuned dynamic rules file,\n"
     "        MPICH 4.0's collective selection JSON, docs/tune.md \"Taking the decisions\n"
     "        home\"); --machine: whose decisions, if the file has several machines;\n"
     "        --mpich-selection F: the selection kept for the rest (default: the one built\n"
     "        into libmpich.so.12)\n",
     &cmd_tune_opts},
    {"advise", cmd_advise, "how to distribute a program's arrays and loop nests over processors",
     "advise FILE [-D NAME=VALUE]... [--procs P] [--maxdims K] [--machine FILE] [--top N]\n"
     "        [--static] [--json] [--trace DIR]\n"
     "        how to distribute a program's arrays and loop nests over P processors: FILE\n"
     "        describes them (docs/advise.md, examples/advise), -D overrides its param NAME;\n"
     "        the best layouts (--top N, default 5) costed on the machine (--machine, else\n"
     "        FILE's `machine`), with the redistributions between nests that pay off (none\n"
     "        with --static); --procs and --maxdims override FILE's procs and maxdims;\n"
     "        --trace DIR writes a synthetic trace of the plan for `perfskel sim` (the nests\n"
     "        as pcontrol intervals, named in DIR/intervals.txt)\n",
     &cmd_advise_opts},
};

#define NCOMMANDS (sizeof commands / sizeof *commands)

static const command *find_command(const char *name)
{
    for (size_t k = 0; k < NCOMMANDS; k++)
        if (!strcmp(commands[k].name, name))
            return &commands[k];
    return NULL;
}

/* perfskel --help: the commands, a line each */
static void usage(FILE *o)
{
    fputs("usage: perfskel <command> [options]\n\ncommands:\n", o);
    for (size_t k = 0; k < NCOMMANDS; k++)
        fprintf(o, "  %-10s %s\n", commands[k].name, commands[k].summary);
    fputs("\nperfskel CMD --help shows a command's options; perfskel --version prints the version.\n", o);
}

/* tune's arms, by the collective they run (the tuning library's table) */
static void tune_arms(void)
{
    static const char *const colls[] = {
#define MPIFN(name, coll, fn) #fn,
        PSK_TUNE_COLL_LIST(MPIFN)
#undef MPIFN
    };
    puts("arms:");
    for (size_t c = 0; c < sizeof colls / sizeof *colls; c++) {
        printf("  %-14s", colls[c]);
        const char *sep = "";
        for (int a = 1; a < psk_arm_count(); a++)
            if (strcmp(psk_arm_name(a), "native") && psk_arm_valid(psk_fn_lookup(colls[c]), a)) {
                printf("%s%s", sep, psk_arm_name(a));
                sep = ", ";
            }
        putchar('\n');
    }
}

/* perfskel CMD --help (predict and check print their own) */
static void command_help(const command *c)
{
    printf("usage: perfskel %s", c->usage);
    if (c->run == cmd_tune) {
        putchar('\n');
        tune_arms();
    }
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr), PSK_EXIT_USAGE;
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help"))
        return usage(stdout), 0;
    if (!strcmp(cmd, "--version"))
        return puts("perfskel " PSK_VERSION), 0;
    const command *c = find_command(cmd);
    if (!c)
        return psk_cli_usage("unknown command '%s'", cmd);
    psk_cli_hugepages(argv, strcmp(cmd, "advise") != 0);
    int help = 0, rc = psk_cli_normalise(c->opts, argc - 1, argv + 1, &argv, &argc, &help);
    if (rc)
        return rc;
    if (help && !c->opts->help) /* predict and check print their own */
        return command_help(c), 0;
    return c->run(argc, argv);
}
