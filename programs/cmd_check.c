/* perfskel check: a user's own test of how far perfskel's predictions hold
 * for their program on this machine. It runs the program plain RUNS
 * times, timed as a recording is timed (the slowest rank's MPI_Init exit
 * to MPI_Finalize entry: the recording library preloaded in its time-only
 * mode, record_times.c, which records nothing, so a launcher's start-up
 * and shut-down do not count and the recording's cost is not in them),
 * records it once (right after the first plain run, so that a drift of the
 * machine's load falls on both sides), predicts it with a skeleton
 * (perfskel predict) and simulates it (perfskel sim, on the machine file
 * given or on one perfskel calibrate measures here with the same
 * launcher), and prints one table: each one's error against the plain
 * runs' median and against the recording, next to the plain runs' spread,
 * the noise floor under which an error says nothing. The stages run as
 * perfskel's own commands in child processes, their --json read with
 * jansson (only predict's predicted_seconds, skeleton_seconds and interval,
 * and sim's predicted_seconds), so check relies on nothing else of them.
 * A program that fails, crashes or hangs is said in one line, with the
 * launcher's exit status and how its worst rank ended; everything measured
 * stays in DIR. */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "perfskel/sim.h"
#include "perfskel/trace.h"
#include "psk_fs.h"

#define LIMIT_FACTOR 5.0     /* runs after the first: x its wall time ... */
#define LIMIT_START_S 10.0   /* ... + this */
#define CALIBRATE_LIMIT_S 600.0

static const char help[] =
    "usage: perfskel check [-n RUNS] [-K K] [--machine FILE] [-o DIR] [--json] [-q] [--timeout S]\n"
    "        [--mpi openmpi|mpich] -- LAUNCHER ARGS... PROGRAM ARGS...\n"
    "\n"
    "How far perfskel's predictions hold for a program on this machine: it runs the\n"
    "program plain RUNS times, records it once, predicts it with a skeleton (perfskel\n"
    "predict) and simulates it (perfskel sim), and prints one table: the plain runs'\n"
    "median and spread, the recording's overhead, predict's and sim's errors against\n"
    "the plain median and against the recording, and a verdict: an error no larger\n"
    "than the plain runs' spread (max - min, in % of their median) is within noise.\n"
    "Every time is the slowest rank's MPI_Init to MPI_Finalize, as perfskel stats,\n"
    "predict and sim count it; the launcher's wall time is given apart.\n"
    "\n"
    "options:\n"
    "  -n RUNS            plain runs (default 3; at least 2 give a noise floor); predict\n"
    "                     runs the skeleton as many times\n"
    "  -K K               loops of at least K iterations run count/K times in the\n"
    "                     skeleton (default 10)\n"
    "  --machine FILE     simulate on this machine file (default: one measured here by\n"
    "                     perfskel calibrate with LAUNCHER ARGS, kept as DIR/machine.par)\n"
    "  -o DIR             where everything is kept (default ./perfskel-check): the trace\n"
    "                     (DIR/job.json and rank files, for perfskel stats, sim, ...),\n"
    "                     the result (DIR/check.json), each run's output and times and\n"
    "                     each stage's messages (DIR/check/)\n"
    "  --json             the result as JSON on stdout (no progress on stderr)\n"
    "  -q, --quiet        no progress on stderr\n"
    "  --timeout S        stop a run of the program (plain or recorded) or of the\n"
    "                     skeleton after S seconds (0: never). Default: the first plain\n"
    "                     run has none; the others and the recorded run 5 x its wall\n"
    "                     time + 10 s; the skeleton predict's own limit\n"
    "  --mpi openmpi|mpich  the launcher's MPI when neither its name, its links nor its\n"
    "                     --version tell (srun: the program's, by default)\n"
    "  -h, --help         this text\n"
    "\n"
    "The program is the first of the launcher's arguments that is an ELF program\n"
    "linking Open MPI or MPICH; for another (a script), separate it:\n"
    "-- LAUNCHER ARGS... -- PROGRAM ARGS.... The program's output goes to files in\n"
    "DIR/check/, not to the terminal. Exit status: 0; 1 if the program failed,\n"
    "crashed or did not finish in time (said in one line: the launcher's exit\n"
    "status and how its ranks ended; what was measured stays in DIR) or a stage of\n"
    "perfskel failed; 2 for a bad command line.\n";

/* its options, as help lists them (tests/cli/options_help.sh checks it) */
enum { O_RUNS, O_K, O_MACHINE, O_OUT, O_JSON, O_QUIET, O_TIMEOUT, O_MPI };
static const psk_cli_opt opts[] = {
    [O_RUNS] = {"-n", NULL, PSK_OPT_VALUE},
    [O_K] = {"-K", NULL, PSK_OPT_VALUE},
    [O_MACHINE] = {"--machine", NULL, PSK_OPT_VALUE},
    [O_OUT] = {"-o", NULL, PSK_OPT_VALUE},
    [O_JSON] = {"--json", NULL, PSK_OPT_FLAG},
    [O_QUIET] = {"-q", "--quiet", PSK_OPT_FLAG},
    [O_TIMEOUT] = {"--timeout", NULL, PSK_OPT_VALUE},
    [O_MPI] = {"--mpi", NULL, PSK_OPT_VALUE},
};
const psk_cli_opts cmd_check_opts = {"check", PSK_CLI_OPTS(opts), PSK_CLI_JOB_AFTER, help, " (or it lacks its value)"};

typedef struct check {
    const char *dir, *machine, *mpi_arg;
    char sub[PATH_MAX];  /* DIR/check, as DIR was given (said in messages) */
    char abs_sub[PATH_MAX]; /* the same from /, for the ranks (another working directory) */
    char self[PATH_MAX]; /* this perfskel */
    char lib[PATH_MAX];  /* the recording library */
    int quiet, runs, K, flavour, prog_flavour;
    double timeout;      /* -1: not given */
    char **cmd, **launch; /* the job; the launcher and its arguments alone */
    int ncmd, nlaunch, prog;
    psk_cli_progress pr;
} check;

static void say(const check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const check *c, const char *fmt, ...)
{
    if (c->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("perfskel check: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static const char *sig_word(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
}

/* "the limit" said in a timeout message */
static void limit_words(const check *c, double limit, double first_wall, char *out, size_t cap)
{
    if (c->timeout >= 0)
        snprintf(out, cap, "%g s (--timeout)", limit);
    else
        snprintf(out, cap, "%.1f s (the default: %g x the first plain run's %.2f s + %g s; --timeout to change it)",
                 limit, LIMIT_FACTOR, first_wall, LIMIT_START_S);
}

/* Runs argv under the watchdog as the step said (timed progress from 2 s
 * on), its stdout to out (NULL: discarded), its stderr to the file errname
 * in DIR/check; its exit status, ro filled. A SIGINT, SIGTERM or SIGHUP to
 * check ends it and then check, saying what was kept. */
static int run_step(check *c, const char *step, char **argv, double limit, FILE *out, const char *errname,
                    psk_run_opts *ro)
{
    char errpath[PATH_MAX + 64];
    snprintf(errpath, sizeof errpath, "%s/%s", c->sub, errname);
    FILE *err = fopen(errpath, "w");
    memset(ro, 0, sizeof *ro);
    ro->limit = limit;
    ro->out = out;
    ro->err = err; /* NULL (it could not be made): through */
    psk_cli_progress_timed(&c->pr, step);
    int st = psk_run_watched(argv, ro);
    psk_cli_progress_done(&c->pr);
    if (err)
        fclose(err);
    free(ro->caught);
    ro->caught = NULL;
    if (ro->signal) {
        psk_cli_error("check: interrupted (%s) during %s; what was measured is in %s", sig_word(ro->signal), step,
                      c->dir);
        psk_cli_die(ro->signal);
    }
    return st;
}

/* the first "perfskel: " line of a stage's stderr file, without that prefix */
static void first_error(const check *c, const char *errname, char *out, size_t cap)
{
    char path[PATH_MAX + 64], line[512];
    snprintf(path, sizeof path, "%s/%s", c->sub, errname);
    out[0] = 0;
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "perfskel: ", 10)) {
            line[strcspn(line, "\n")] = 0;
            snprintf(out, cap, "%s", line + 10);
            break;
        }
    if (f)
        fclose(f);
}

/* DIR/check made, and emptied of an earlier check's files */
static int prepare(check *c)
{
    int err = psk_mkdir_p(c->dir);
    struct stat st;
    if (!err && (stat(c->dir, &st) || !S_ISDIR(st.st_mode)))
        err = ENOTDIR;
    snprintf(c->sub, sizeof c->sub, "%s/check", c->dir);
    if (!err)
        err = psk_mkdir_p(c->sub);
    if (!err && !realpath(c->sub, c->abs_sub))
        err = errno;
    if (err) {
        psk_cli_error("%s: cannot keep check's files there: %s", c->dir, strerror(err));
        return -1;
    }
    DIR *d = opendir(c->sub);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char p[PATH_MAX + 300];
        size_t n = strlen(e->d_name);
        snprintf(p, sizeof p, "%s/%s", c->sub, e->d_name);
        if (!strncmp(e->d_name, "plain-", 6) && !strchr(e->d_name, '.')) {
            psk_check_clear_times(p);
            rmdir(p);
        } else if (n > 4 && (!strcmp(e->d_name + n - 4, ".out") || !strcmp(e->d_name + n - 4, ".err"))) {
            unlink(p);
        }
    }
    if (d)
        closedir(d);
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s/check.json", c->dir);
    unlink(p);
    return 0;
}

/* a value of the environment set, or its old value back (NULL: unset) */
static void set_env(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

/* Plain run k of c->runs, with limit (0: none): its time and wall time;
 * 0, or -1 after saying in one line why it failed */
static int plain_run(check *c, int k, double limit, double first_wall, double *secs, double *wall, int *nranks)
{
    char rundir[PATH_MAX + 32], outpath[PATH_MAX + 32], step[64], errname[32];
    snprintf(rundir, sizeof rundir, "%s/plain-%d", c->abs_sub, k);
    snprintf(outpath, sizeof outpath, "%s/plain-%d.out", c->sub, k);
    snprintf(errname, sizeof errname, "plain-%d.err", k);
    snprintf(step, sizeof step, "plain run %d of %d", k, c->runs);
    int err = psk_mkdir_p(rundir);
    if (err) {
        psk_cli_error("%s: %s", rundir, strerror(err));
        return -1;
    }
    psk_check_clear_times(rundir);
    char *old = getenv("LD_PRELOAD") ? strdup(getenv("LD_PRELOAD")) : NULL;
    setenv("PSK_TIMES", rundir, 1); /* the time-only mode, passed to the ranks */
    static const char *const names[] = {"PSK_TIMES"};
    psk_run_launch l;
    if (psk_run_preload(&l, c->flavour, c->cmd, c->ncmd, c->lib, names, 1)) {
        psk_run_launch_free(&l);
        free(old);
        psk_cli_error("out of memory");
        return -1;
    }
    FILE *out = fopen(outpath, "w");
    if (limit > 0)
        say(c, "%s, limit %.1f s ...", step, limit);
    else
        say(c, "%s, no time limit ...", step);
    psk_run_opts ro;
    int st = run_step(c, step, l.argv, limit, out, errname, &ro);
    if (out)
        fclose(out);
    psk_run_launch_free(&l);
    set_env("LD_PRELOAD", old); /* a launcher given it in the environment */
    free(old);
    unsetenv("PSK_TIMES");
    psk_check_times t;
    int have = !psk_check_read_times(rundir, &t);
    const char *prog = c->cmd[c->prog];
    if (ro.timed_out) {
        char lw[200];
        limit_words(c, limit, first_wall, lw, sizeof lw);
        if (have)
            psk_cli_error("%s: %s did not finish within %s and was stopped; %d of %d ranks had not reached "
                          "MPI_Finalize; its output and times are in %s",
                          prog, step, lw, t.nranks - t.finalized, t.nranks, c->sub);
        else
            psk_cli_error("%s: %s did not finish within %s and was stopped; no rank had got through MPI_Init; "
                          "its output is in %s", prog, step, lw, c->sub);
        return -1;
    }
    if (st < 0 || st == 127) {
        psk_cli_error("%s: cannot run it (%s); see %s/%s", c->launch[0], st < 0 ? strerror(errno) : "exit status 127",
                      c->sub, errname);
        return -1;
    }
    if (st) {
        psk_cli_error("%s: %s failed with exit status %d%s%s; its output and times are in %s", prog, step, st,
                      have && t.ended[0] ? ": " : "", have ? t.ended : "", c->sub);
        return -1;
    }
    if (!have || t.finalized < t.nranks || t.ended[0]) {
        psk_cli_error("%s: %s: %s; its output and times are in %s", prog, step,
                      !have ? "no rank wrote its times (the recording library did not reach the ranks, or "
                              "the program is not an MPI program)"
                            : t.ended[0] ? t.ended : "not every rank reached MPI_Finalize",
                      c->sub);
        return -1;
    }
    *secs = t.seconds;
    *wall = ro.seconds;
    *nranks = t.nranks;
    say(c, "%s: %.3f s (MPI_Init to MPI_Finalize, slowest of %d ranks); the launcher's wall time %.2f s", step,
        t.seconds, t.nranks, ro.seconds);
    return 0;
}

/* the recording's slowest rank, MPI_Init exit to MPI_Finalize entry, as
 * perfskel stats counts it; 0, or -1 after saying why not */
static int recorded_time(const char *dir, double *secs, long long *events)
{
    psk_trace *t;
    if (psk_trace_open(dir, &t)) {
        psk_cli_error("%s", psk_trace_errmsg(t));
        psk_trace_close(t);
        return -1;
    }
    int P = psk_trace_job(t)->nranks, bad = 0;
    *secs = 0;
    *events = 0;
    for (int r = 0; r < P && !bad; r++) {
        psk_rank_reader *rr;
        psk_event ev;
        psk_trace_apptime at;
        int rc = psk_rank_open(t, r, &rr);
        psk_trace_apptime_start(&at, rc == PSK_OK ? psk_rank_mono_start(rr) : 0);
        while (rc == PSK_OK && (rc = psk_rank_next(rr, &ev)) == PSK_OK) {
            psk_trace_apptime_add(&at, &ev);
            ++*events;
        }
        if (rc != PSK_EOF) {
            psk_cli_error("%s", psk_rank_errmsg(rr));
            bad = 1;
        }
        double s = 1e-9 * (double)psk_trace_apptime_ns(&at);
        *secs = s > *secs ? s : *secs;
        psk_rank_close(rr);
    }
    psk_trace_close(t);
    return bad ? -1 : 0;
}

/* the recorded run; 0, or -1 after saying why it failed */
static int record_run(check *c, double limit, double first_wall, double *secs, long long *events)
{
    char **argv = calloc((size_t)c->ncmd + 10, sizeof *argv), outpath[PATH_MAX + 32];
    if (!argv)
        return psk_cli_error("out of memory"), -1;
    int n = 0;
    argv[n++] = c->self;
    argv[n++] = "record";
    argv[n++] = "-o";
    argv[n++] = (char *)c->dir;
    if (c->mpi_arg) {
        argv[n++] = "--mpi";
        argv[n++] = (char *)c->mpi_arg;
    }
    argv[n++] = "--";
    for (int k = 0; k < c->ncmd; k++)
        argv[n++] = c->cmd[k];
    snprintf(outpath, sizeof outpath, "%s/record.out", c->sub);
    FILE *out = fopen(outpath, "w");
    if (limit > 0)
        say(c, "recording (perfskel record -o %s), limit %.1f s ...", c->dir, limit);
    else
        say(c, "recording (perfskel record -o %s), no time limit ...", c->dir);
    psk_run_opts ro;
    int st = run_step(c, "recording", argv, limit, out, "record.err", &ro);
    free(argv);
    if (out)
        fclose(out);
    const char *prog = c->cmd[c->prog];
    if (ro.timed_out) {
        char lw[200];
        limit_words(c, limit, first_wall, lw, sizeof lw);
        psk_cli_error("%s: the recorded run did not finish within %s and was stopped; what was recorded is in %s "
                      "(its messages in %s/record.err)", prog, lw, c->dir, c->sub);
        return -1;
    }
    if (st) {
        psk_cli_error("%s: the recorded run failed with exit status %d; what was recorded is in %s (perfskel "
                      "stats reads it; perfskel record's messages in %s/record.err)", prog, st, c->dir, c->sub);
        return -1;
    }
    if (recorded_time(c->dir, secs, events))
        return -1;
    say(c, "recorded run: %.3f s, %lld events recorded in %s", *secs, *events, c->dir);
    return 0;
}

/* a stage's JSON output parsed; NULL after saying why not in err */
static json_t *parse_json(const char *text, size_t len, const char *what, char *err, size_t cap)
{
    json_error_t je;
    json_t *root = text ? json_loadb(text, len, 0, &je) : NULL;
    if (!root || !json_is_object(root)) {
        snprintf(err, cap, "%s printed no JSON object%s%s", what, root ? "" : ": ", root ? "" : je.text);
        json_decref(root);
        return NULL;
    }
    return root;
}

static int json_number(json_t *obj, const char *key, double *v)
{
    json_t *x = json_object_get(obj, key);
    if (!json_is_number(x))
        return -1;
    *v = json_number_value(x);
    return 0;
}

/* a stage run as a perfskel command whose --json is read into a
 * memory buffer; its exit status */
static int run_json_stage(check *c, const char *step, char **argv, double limit, const char *errname, char **text,
                          size_t *len)
{
    *text = NULL;
    *len = 0;
    FILE *o = open_memstream(text, len);
    if (!o)
        return -1;
    psk_run_opts ro;
    int st = run_step(c, step, argv, limit, o, errname, &ro);
    fclose(o);
    return ro.timed_out ? -2 : st;
}

static void stage_failed(check *c, psk_check_pred *p, const char *stage, int st, const char *errname)
{
    char first[600];
    first_error(c, errname, first, sizeof first);
    snprintf(p->error, sizeof p->error, "%s %s%s%.240s", stage,
             st == -2 ? "did not finish in time" : "failed", first[0] ? ": " : "", first);
    psk_cli_error("check: %s (all it said is in %s/%s)", p->error, c->sub, errname);
}

static void predict_stage(check *c, psk_check_result *r)
{
    char kbuf[16], rbuf[16], tbuf[32];
    char **argv = calloc((size_t)c->nlaunch + 20, sizeof *argv);
    if (!argv)
        return;
    snprintf(kbuf, sizeof kbuf, "%d", c->K);
    snprintf(rbuf, sizeof rbuf, "%d", c->runs);
    int n = 0;
    argv[n++] = c->self;
    argv[n++] = "predict";
    argv[n++] = (char *)c->dir;
    argv[n++] = "-K";
    argv[n++] = kbuf;
    argv[n++] = "--repeat";
    argv[n++] = rbuf;
    argv[n++] = "--json";
    argv[n++] = "-q";
    if (c->mpi_arg) {
        argv[n++] = "--mpi";
        argv[n++] = (char *)c->mpi_arg;
    }
    if (c->timeout >= 0) {
        snprintf(tbuf, sizeof tbuf, "%g", c->timeout);
        argv[n++] = "--timeout";
        argv[n++] = tbuf;
    }
    argv[n++] = "--";
    for (int k = 0; k < c->nlaunch; k++)
        argv[n++] = c->launch[k];
    say(c, "predicting with a K = %d skeleton run %d time%s (perfskel predict) ...", c->K, c->runs,
        c->runs > 1 ? "s" : "");
    char *text;
    size_t len;
    int st = run_json_stage(c, "predicting", argv, 0, "predict.err", &text, &len);
    free(argv);
    if (st) {
        stage_failed(c, &r->predict, "predict", st, "predict.err");
        free(text);
        return;
    }
    json_t *root = parse_json(text, len, "predict", r->predict.error, sizeof r->predict.error);
    free(text);
    json_t *iv = root ? json_object_get(root, "interval") : NULL;
    if (root && (json_number(root, "predicted_seconds", &r->predict.seconds) ||
                 json_number(root, "skeleton_seconds", &r->skeleton) || !json_is_object(iv) ||
                 json_number(iv, "low_seconds", &r->low) || json_number(iv, "high_seconds", &r->high)))
        snprintf(r->predict.error, sizeof r->predict.error,
                 "predict's JSON lacks predicted_seconds, skeleton_seconds or interval");
    json_decref(root);
    if (r->predict.error[0]) {
        psk_cli_error("check: %s", r->predict.error);
        return;
    }
    r->predict.ran = 1;
    say(c, "predicted %.3f s (the skeleton ran %.3f s; %d run%s from %.3f to %.3f s)", r->predict.seconds, r->skeleton,
        c->runs, c->runs > 1 ? "s" : "", r->low, r->high);
}

/* the machine file: given, or measured here; NULL after saying why not */
static const char *machine_stage(check *c, psk_check_result *r, char *path, size_t cap)
{
    if (c->machine)
        return c->machine;
    snprintf(path, cap, "%s/machine.par", c->dir);
    if (r->nranks < 2) {
        snprintf(r->sim.error, sizeof r->sim.error,
                 "sim not run: perfskel calibrate measures with 2 ranks or more and the job has %d; give --machine FILE",
                 r->nranks);
        psk_cli_error("check: %s", r->sim.error);
        return NULL;
    }
    char **argv = calloc((size_t)c->nlaunch + 10, sizeof *argv), outpath[PATH_MAX + 32];
    if (!argv)
        return NULL;
    int n = 0;
    argv[n++] = c->self;
    argv[n++] = "calibrate";
    argv[n++] = "-o";
    argv[n++] = path;
    if (c->mpi_arg) {
        argv[n++] = "--mpi";
        argv[n++] = (char *)c->mpi_arg;
    }
    argv[n++] = "--";
    for (int k = 0; k < c->nlaunch; k++)
        argv[n++] = c->launch[k];
    snprintf(outpath, sizeof outpath, "%s/calibrate.out", c->sub);
    FILE *out = fopen(outpath, "w");
    say(c, "measuring this machine with %s (perfskel calibrate -o %s) ...", c->launch[0], path);
    psk_run_opts ro;
    int st = run_step(c, "calibrating", argv, CALIBRATE_LIMIT_S, out, "calibrate.err", &ro);
    free(argv);
    if (out)
        fclose(out);
    if (ro.timed_out || st) {
        stage_failed(c, &r->sim, "calibrate", ro.timed_out ? -2 : st, "calibrate.err");
        return NULL;
    }
    r->calibrated = 1;
    say(c, "machine file %s written", path);
    return path;
}

static void sim_stage(check *c, psk_check_result *r)
{
    char mpath[PATH_MAX + 16];
    const char *machine = machine_stage(c, r, mpath, sizeof mpath);
    if (!machine)
        return;
    r->machine = c->machine ? c->machine : strdup(machine);
    if (!r->machine)
        return;
    char *argv[] = {c->self, "sim", (char *)c->dir, "--machine", (char *)r->machine, "--json", "-q", NULL};
    say(c, "simulating the trace on %s (perfskel sim) ...", r->machine);
    char *text;
    size_t len;
    int st = run_json_stage(c, "simulating", argv, 0, "sim.err", &text, &len);
    if (st) {
        stage_failed(c, &r->sim, "sim", st, "sim.err");
        free(text);
        return;
    }
    json_t *root = parse_json(text, len, "sim", r->sim.error, sizeof r->sim.error);
    free(text);
    if (root && json_number(root, "predicted_seconds", &r->sim.seconds))
        snprintf(r->sim.error, sizeof r->sim.error, "sim's JSON lacks predicted_seconds");
    json_decref(root);
    if (r->sim.error[0]) {
        psk_cli_error("check: %s", r->sim.error);
        return;
    }
    r->sim.ran = 1;
    say(c, "simulated %.3f s", r->sim.seconds);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return v[0];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    free(s);
    return m;
}

/* where the program starts in the job: a second -- (removed), else the
 * first ELF program linking an MPI; 0, or the exit status after saying why */
static int split_job(check *c, char **job, int njob)
{
    int sep = -1;
    for (int k = 1; k < njob; k++)
        if (!strcmp(job[k], "--")) {
            sep = k;
            break;
        }
    c->cmd = calloc((size_t)njob + 1, sizeof *c->cmd);
    if (!c->cmd)
        return psk_cli_error("out of memory"), PSK_EXIT_DATA;
    if (sep > 0) {
        if (sep + 1 >= njob)
            return psk_cli_usage("check: no program after the second --");
        for (int k = 0; k < njob; k++)
            if (k != sep)
                c->cmd[c->ncmd++] = job[k];
        c->prog = sep;
    } else {
        for (int k = 0; k < njob; k++)
            c->cmd[c->ncmd++] = job[k];
        c->prog = psk_run_program_at(c->cmd, c->ncmd, &c->prog_flavour);
        if (c->prog < 0)
            return psk_cli_usage("check: %s: cannot tell where the program starts (none of its arguments is an ELF "
                                 "program linking Open MPI or MPICH); separate it: -- LAUNCHER ARGS -- PROGRAM ARGS",
                                 job[0]);
    }
    c->launch = c->cmd;
    c->nlaunch = c->prog;
    return 0;
}

int cmd_check(int argc, char **argv)
{
    check c = {.dir = "perfskel-check", .runs = 3, .K = 10, .timeout = -1};
    int json = 0, k;
    psk_cli_args a;
    psk_cli_begin(&a, &cmd_check_opts, argc, argv);
    while ((k = psk_cli_next(&a)) != PSK_CLI_END) {
        const char *v = a.val;
        if (k == PSK_CLI_STOP) {
            return a.status; /* its help, or an unknown option */
        } else if (k == O_RUNS) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || end == v || n < 1 || n > 100)
                return psk_cli_usage("check: -n takes a number of runs from 1 to 100, not '%s'", v);
            c.runs = (int)n;
        } else if (k == O_K) {
            if (psk_cli_parse_k(v, &c.K))
                return psk_cli_usage("check: -K takes a whole number of at least 1, not '%s'", v);
        } else if (k == O_MACHINE) {
            c.machine = v;
        } else if (k == O_OUT) {
            c.dir = v;
        } else if (k == O_JSON) {
            json = 1;
        } else if (k == O_QUIET) {
            c.quiet = 1;
        } else if (k == O_TIMEOUT) {
            if (psk_cli_seconds(v, &c.timeout))
                return psk_cli_usage("check: --timeout takes seconds (0 for no limit), not '%s'", v);
        } else if (k == O_MPI) {
            c.mpi_arg = v;
            if (!(c.flavour = psk_cli_mpi_arg(c.mpi_arg)))
                return psk_cli_usage("check: --mpi takes openmpi or mpich, not '%s'", c.mpi_arg);
        } else {
            return psk_cli_usage("check: '%s' before the --: the job goes after it (perfskel check -- mpirun -np 4 "
                                 "./app)", v);
        }
    }
    if (a.i >= argc)
        return psk_cli_usage("check: no job given after -- (perfskel check -- mpirun -np 4 ./app)");
    c.quiet |= json;
    unsetenv("PSK_TIMES"); /* only check's plain runs are time-only, never the recording */
    int rc = split_job(&c, argv + a.i, argc - a.i);
    if (rc)
        return free(c.cmd), rc;
    /* the MPI: --mpi, else the launcher's (srun: the program's) */
    if (!c.flavour && psk_run_is_srun(c.launch[0]))
        c.flavour = c.prog_flavour ? c.prog_flavour : psk_run_program_mpi(c.cmd + c.prog - 1, c.ncmd - c.prog + 1);
    if (!(c.flavour = psk_cli_launcher_mpi(c.flavour, c.launch[0])))
        return free(c.cmd), PSK_EXIT_USAGE;
    const char *libname =
        c.flavour == PSK_MPI_OPENMPI ? "libperfskel-record-openmpi.so" : "libperfskel-record-mpich.so";
    ssize_t sl = readlink("/proc/self/exe", c.self, sizeof c.self - 1);
    if (sl <= 0 || psk_run_find_library(libname, c.lib, sizeof c.lib)) {
        psk_cli_error("%s: recording library for %s not found next to perfskel (set PERFSKEL_LIBDIR)", libname,
                      psk_flavour_name(c.flavour));
        return free(c.cmd), PSK_EXIT_DATA;
    }
    c.self[sl] = 0;
    if (c.machine) { /* read now, not after minutes of runs */
        psk_machine m;
        if (psk_cli_load_machine(c.machine, &m))
            return free(c.cmd), PSK_EXIT_DATA;
        psk_machine_free(&m);
    }
    if (prepare(&c))
        return free(c.cmd), PSK_EXIT_DATA;
    psk_cli_progress_init(&c.pr, "check", c.quiet);
    psk_check_result r = {.cmd = c.cmd, .ncmd = c.ncmd, .flavour = c.flavour, .dir = c.dir, .runs = c.runs,
                          .K = c.K};
    r.plain = calloc((size_t)c.runs, sizeof *r.plain);
    r.wall = calloc((size_t)c.runs, sizeof *r.wall);
    if (!r.plain || !r.wall) {
        psk_cli_error("out of memory");
        return PSK_EXIT_DATA;
    }
    say(&c, "MPI: %s (%s: %s); the program: %s; everything is kept in %s", psk_run_mpi_title(c.flavour),
        c.launch[0], c.mpi_arg ? "--mpi" : psk_run_launcher_how(c.launch[0]), c.cmd[c.prog], c.dir);

    /* plain run 1 (no limit but --timeout's), the recording, the others */
    rc = 0;
    int P = 0;
    if (plain_run(&c, 1, c.timeout >= 0 ? c.timeout : 0, 0, &r.plain[0], &r.wall[0], &P))
        rc = PSK_EXIT_DATA;
    r.nranks = P;
    double limit = c.timeout >= 0 ? c.timeout : LIMIT_FACTOR * r.wall[0] + LIMIT_START_S;
    if (!rc && record_run(&c, limit, r.wall[0], &r.recorded, &r.events))
        rc = PSK_EXIT_DATA;
    for (int k = 2; !rc && k <= c.runs; k++) {
        int Pk = 0;
        if (plain_run(&c, k, limit, r.wall[0], &r.plain[k - 1], &r.wall[k - 1], &Pk))
            rc = PSK_EXIT_DATA;
        else if (Pk != P) {
            psk_cli_error("%s: plain run %d of %d had %d ranks, the first %d", c.cmd[c.prog], k, c.runs, Pk, P);
            rc = PSK_EXIT_DATA;
        }
    }
    if (rc) {
        free(r.plain), free(r.wall), free(c.cmd);
        return rc;
    }
    r.recorded_ok = 1;
    r.median = median(r.plain, c.runs);
    r.wall_median = median(r.wall, c.runs);
    r.min = r.max = r.plain[0];
    for (int k = 1; k < c.runs; k++) {
        r.min = r.plain[k] < r.min ? r.plain[k] : r.min;
        r.max = r.plain[k] > r.max ? r.plain[k] : r.max;
    }
    r.spread_pct = r.median > 0 ? 100.0 * (r.max - r.min) / r.median : 0;

    predict_stage(&c, &r);
    sim_stage(&c, &r);

    char jpath[PATH_MAX + 16];
    snprintf(jpath, sizeof jpath, "%s/check.json", c.dir);
    FILE *jf = fopen(jpath, "w");
    if (jf) {
        psk_check_report_json(jf, &r);
        if (fclose(jf))
            psk_cli_error("%s: cannot write", jpath);
    } else {
        psk_cli_error("%s: %s", jpath, strerror(errno));
    }
    if (json)
        psk_check_report_json(stdout, &r);
    else
        psk_check_report_text(stdout, &r);
    rc = r.predict.ran && r.sim.ran ? 0 : PSK_EXIT_DATA;
    if (r.calibrated)
        free((char *)r.machine);
    free(r.plain), free(r.wall), free(c.cmd);
    return rc;
}
