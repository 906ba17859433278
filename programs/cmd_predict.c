/* perfskel predict: generate the skeleton of a recorded job, build it with
 * the MPI of the launcher given, run it with that launcher, and report the
 * run time it predicts for the original program (MPI_Init to MPI_Finalize,
 * slowest rank), its own run time, K and the time of each scaled loop;
 * with --actual SECONDS, the error of the prediction. The skeleton runs
 * --repeat times (default 3) and the median prediction is kept: a short
 * run on a shared machine varies by several per cent. A watchdog stops a
 * run that takes far longer than the recording says it should (--timeout)
 * and reports where each rank was; every step is said on stderr unless -q,
 * so that a long merge or build is never mistaken for a hang. The MPI is
 * told by what the launcher is (launcher.c), the mpicc chosen to match it
 * (mpicc.c). What the skeleton prints is read back by src/gen
 * (gen_output.c): its prediction, its loops, the median of the runs and
 * where the ranks of a stopped run were. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "perfskel/gen.h"
#include "psk_json.h"

#define LIMIT_FACTOR 5.0     /* x the skeleton's expected run time */
#define LIMIT_START_S 10.0   /* + the launcher's start-up ... */
#define LIMIT_RANKS_PER_S 4  /* ... and 1 s per this many ranks */

static const char help[] =
    "usage: perfskel predict DIR|MERGED [-K N] [options] -- LAUNCHER ARGS...\n"
    "\n"
    "Generates the performance skeleton of a recorded job (about 1/N of the original:\n"
    "each loop runs its first iteration and a sample of the others, compute the\n"
    "loops cannot shrink runs shorter), builds it with the launcher's MPI, runs it\n"
    "with LAUNCHER ARGS... and prints the run time it predicts for the original, and\n"
    "per loop what it ran and why.\n"
    "\n"
    "options:\n"
    "  -K N               run about 1/N of the original (default 10): loops run a sample of\n"
    "                     their iterations, compute left over runs shorter\n"
    "  --min-sample S     a sampled loop's steady iterations last at least S seconds\n"
    "                     in the original (default 0.04, 0.25 where a host ran more\n"
    "                     ranks than cores; 0: no floor)\n"
    "  --no-pin           run the skeleton's ranks where the system puts them. By\n"
    "                     default, where the recording's host ran more ranks than\n"
    "                     cores and each rank stayed on one CPU, a rank run on that\n"
    "                     host again runs on its recorded rank's CPU: which ranks\n"
    "                     share a core decides how they take turns on it\n"
    "  --repeat R         run the skeleton R times, keep the median prediction (default 3)\n"
    "                     and give the range of the R: a further run falls inside it\n"
    "                     with probability (R-1)/(R+1) when runs vary alike\n"
    "  --json             the result as JSON on stdout (with the MPI and the mpicc)\n"
    "  --actual S         the original's measured run time: also print the error\n"
    "  --keep DIR         build in DIR and keep the skeleton's source and binary there\n"
    "                     (default: a temporary directory, removed at the end)\n"
    "  --mpi openmpi|mpich  the launcher's MPI, when neither its name, the names\n"
    "                     along its symlinks nor its --version tell (srun's do not:\n"
    "                     the MPI the trace was recorded under, by default)\n"
    "  --mpicc PATH       the mpicc that builds the skeleton; it must be of the\n"
    "                     launcher's MPI (default: $MPICC, else the mpicc beside the\n"
    "                     launcher, mpicc on PATH or mpicc.openmpi/mpicc.mpich,\n"
    "                     the first of the launcher's MPI as its -show tells)\n"
    "  --timeout S        stop a run of the skeleton after S seconds (0: never); the\n"
    "                     default is 5 x its expected run time (the recorded run, its\n"
    "                     loops of at least N iterations counted 1/N) + 10 s + 1 s per\n"
    "                     4 ranks. At the limit the launcher's process group gets\n"
    "                     SIGTERM, 2 s later SIGKILL, and predict says where each\n"
    "                     rank was, as far as the skeleton reported it (on its\n"
    "                     stderr and in a file of the build directory it keeps up\n"
    "                     to date)\n"
    "  --build-timeout S  stop mpicc after S seconds (default 600; 0: never)\n"
    "  -q, --quiet        do not say on stderr what is being done\n"
    "  -h, --help         this text\n"
    "\n"
    "Options taking a value also accept --option=VALUE. Ctrl-C stops the skeleton\n"
    "(its launcher's process group and the ranks below it) and removes the\n"
    "temporary directory. Exit status: 0, 1 if the skeleton failed or timed out,\n"
    "2 for a bad command line.\n";

/* its options, as help lists them (tests/cli/options_help.sh checks it) */
enum { O_K, O_MIN_SAMPLE, O_NO_PIN, O_REPEAT, O_JSON, O_ACTUAL, O_KEEP, O_MPI, O_MPICC, O_TIMEOUT, O_BUILD_TIMEOUT, O_QUIET };
static const psk_cli_opt opts[] = {
    [O_K] = {"-K", NULL, PSK_OPT_VALUE},
    [O_MIN_SAMPLE] = {"--min-sample", NULL, PSK_OPT_VALUE},
    [O_NO_PIN] = {"--no-pin", NULL, PSK_OPT_FLAG},
    [O_REPEAT] = {"--repeat", NULL, PSK_OPT_VALUE},
    [O_JSON] = {"--json", NULL, PSK_OPT_FLAG},
    [O_ACTUAL] = {"--actual", NULL, PSK_OPT_VALUE},
    [O_KEEP] = {"--keep", NULL, PSK_OPT_VALUE},
    [O_MPI] = {"--mpi", NULL, PSK_OPT_VALUE},
    [O_MPICC] = {"--mpicc", NULL, PSK_OPT_VALUE},
    [O_TIMEOUT] = {"--timeout", NULL, PSK_OPT_VALUE},
    [O_BUILD_TIMEOUT] = {"--build-timeout", NULL, PSK_OPT_VALUE},
    [O_QUIET] = {"-q", "--quiet", PSK_OPT_FLAG},
};
const psk_cli_opts cmd_predict_opts = {"predict", PSK_CLI_OPTS(opts), PSK_CLI_JOB_AFTER, help,
                                       " (or it lacks its value)"};

static int count_lines(const char *path, long *n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char buf[65536];
    size_t got;
    *n = 0;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t k = 0; k < got; k++)
            *n += buf[k] == '\n';
    fclose(f);
    return 0;
}

/* Where each rank of a stopped run was (its position lines on stderr,
 * caught, and the slots of posf: psk_skeleton_positions), one line per rank
 * on stderr; the ranks that said nothing on one line. */
static void report_positions(const char *caught, size_t ncaught, const char *posf, int P)
{
    psk_skeleton_position *pos = calloc((size_t)(P > 0 ? P : 1), sizeof *pos);
    int nseen = pos ? psk_skeleton_positions(caught, ncaught, posf, P, pos) : 0;
    if (!nseen) {
        fprintf(stderr, "  no rank reported where it was (the skeleton says so on SIGTERM when its "
                        "launcher passes SIGTERM on)\n");
        free(pos);
        return;
    }
    for (int r = 0; r < P; r++) {
        if (!pos[r].seen)
            continue;
        if (pos[r].loop >= 0)
            fprintf(stderr, "  rank %d: in loop %d iteration %lld, at event %d (%s)\n", r, pos[r].loop,
                    pos[r].iter, pos[r].event, pos[r].fn);
        else
            fprintf(stderr, "  rank %d: outside loops, at event %d (%s)\n", r, pos[r].event, pos[r].fn);
    }
    if (nseen < P) {
        fprintf(stderr, "  rank%s", P - nseen > 1 ? "s" : "");
        for (int r = 0, first = 1; r < P; r++)
            if (!pos[r].seen) {
                fprintf(stderr, "%s %d", first ? "" : ",", r);
                first = 0;
            }
        fprintf(stderr, ": no position reported\n");
    }
    free(pos);
}

/* a step said on stderr unless -q */
static void say(int quiet, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(int quiet, const char *fmt, ...)
{
    if (quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("predict: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* per loop, what the skeleton ran of it and why: the loops that hold at
 * least 2 % of the recorded run, at most 20 lines, the rest summed */
static void report_loops(const psk_cli_skelinfo *info, const psk_skeleton_output *out)
{
    int shown = 0, more = 0;
    for (int k = 0; k < info->nloops; k++) {
        const psk_gen_loop *l = &info->loops[k];
        double all = l->iter_seconds * (double)l->count * (double)l->execs;
        if (!(all >= 0.02 * info->recorded_seconds) || shown >= 20) {
            more++;
            continue;
        }
        shown++;
        printf("loop %d: %lld iterations of %.3g ms", l->loop, (long long)l->count, 1e3 * l->iter_seconds);
        if (l->execs > 1)
            printf(", %lld times (in loop %d)", (long long)l->execs, l->parent);
        const psk_skeleton_phase *p = psk_skeleton_output_phase(out, l->loop);
        if (l->sampled)
            printf(": sampled, the first %lld (cold, once) and %lld of the others, each for %.3g", (long long)l->cold,
                   (long long)(l->ran - l->cold), (double)(l->count - l->cold) / (double)(l->ran - l->cold));
        else
            printf(": %s", l->why);
        if (l->compute_factor > 1.01)
            printf("; compute inside runs 1/%.3g", l->compute_factor);
        if (p)
            printf("; ran in %.3f s, stands for %.3f s", p->seconds, p->predicted_seconds);
        printf("\n");
    }
    if (more)
        printf("%d more loop%s (each under 2 %% of the run)\n", more, more > 1 ? "s" : "");
}

/* where the skeleton's ranks ran, where the recording's host ran more
 * ranks than cores */
static void report_placement(const psk_cli_skelinfo *info, int pinned)
{
    if (info->pin > 0 && pinned == info->pin)
        printf("placement: %d of %d ranks on the CPUs their recorded ranks stayed on (--no-pin: where the "
               "system puts them)\n", pinned, info->nranks);
    else if (info->pin > 0)
        printf("placement: %d of the %d ranks meant to run on their recorded CPUs did (the others ran on another "
               "host, or were not allowed those CPUs)\n", pinned < 0 ? 0 : pinned, info->pin);
}

int cmd_predict(int argc, char **argv)
{
    const char *input = NULL, *keep = NULL, *v, *mpicc_arg = NULL;
    int K = 10, json = 0, k, repeat = 3, flavour = 0, quiet = 0, no_pin = 0;
    double actual = -1, timeout = -1, build_timeout = PSK_CLI_BUILD_LIMIT, min_sample = -1;
    psk_cli_args a;
    psk_cli_begin(&a, &cmd_predict_opts, argc, argv);
    while ((k = psk_cli_next(&a)) != PSK_CLI_END) {
        v = a.val;
        if (k == PSK_CLI_STOP) {
            return a.status; /* its help, or an unknown option */
        } else if (k == O_K) {
            if (psk_cli_parse_k(v, &K))
                return psk_cli_usage("predict: -K takes a whole number of at least 1, not '%s'", v);
        } else if (k == O_JSON) {
            json = 1;
        } else if (k == O_QUIET) {
            quiet = 1;
        } else if (k == O_NO_PIN) {
            no_pin = 1;
        } else if (k == O_REPEAT) {
            char *end;
            long r = strtol(v, &end, 10);
            if (*end || r < 1 || r > 100)
                return psk_cli_usage("predict: --repeat takes a number from 1 to 100, not '%s'", v);
            repeat = (int)r;
        } else if (k == O_KEEP) {
            keep = v;
        } else if (k == O_MPICC) {
            mpicc_arg = v;
        } else if (k == O_MPI) {
            flavour = psk_cli_mpi_arg(v);
            if (!flavour)
                return psk_cli_usage("predict: --mpi takes openmpi or mpich, not '%s'", v);
        } else if (k == O_ACTUAL) {
            char *end;
            actual = strtod(v, &end);
            if (*end || !(actual > 0))
                return psk_cli_usage("predict: --actual takes the measured run time in seconds, not '%s'", v);
        } else if (k == O_TIMEOUT) {
            if (psk_cli_seconds(v, &timeout))
                return psk_cli_usage("predict: --timeout takes seconds (0 for no limit), not '%s'", v);
        } else if (k == O_MIN_SAMPLE) {
            if (psk_cli_seconds(v, &min_sample) || min_sample > 1e6)
                return psk_cli_usage("predict: --min-sample takes seconds (0 for no floor), not '%s'", v);
        } else if (k == O_BUILD_TIMEOUT) {
            if (psk_cli_seconds(v, &build_timeout))
                return psk_cli_usage("predict: --build-timeout takes seconds (0 for no limit), not '%s'", v);
        } else if (!input) { /* an operand */
            input = v;
        } else {
            return psk_cli_usage("predict: one input only");
        }
    }
    if (!input)
        return psk_cli_usage("predict: no trace directory given");
    if (a.i >= argc)
        return psk_cli_usage("predict: no launcher given after --");
    char **launch = argv + a.i;
    int nlaunch = argc - a.i;
    int given = flavour, from_trace = 0;
    if (!flavour && psk_run_is_srun(launch[0])) /* srun: the MPI the trace was recorded under */
        from_trace = (flavour = psk_run_trace_mpi(input)) != 0;
    if (!(flavour = psk_cli_launcher_mpi(flavour, launch[0])))
        return PSK_EXIT_USAGE;
    psk_run_mpicc cc;
    if (psk_cli_mpicc_find(mpicc_arg, flavour, launch[0], &cc))
        return PSK_EXIT_USAGE;
    say(quiet, "MPI: %s (%s: %s); mpicc: %s (%s; %s%s%s)\n", psk_run_mpi_title(flavour), launch[0],
        given ? "--mpi" : from_trace ? "the trace's MPI" : psk_run_launcher_how(launch[0]), cc.path, cc.from,
        cc.flavour ? psk_run_mpi_title(cc.flavour) : "its MPI not told", cc.flavour ? " by " : "",
        cc.flavour ? cc.how : "");
    /* the skeleton's source and binary */
    char dir[PATH_MAX], src[PATH_MAX + 16], bin[PATH_MAX + 16], posf[PATH_MAX + 16];
    if (keep) {
        snprintf(dir, sizeof dir, "%s", keep);
        if (mkdir(dir, 0755) && errno != EEXIST) {
            psk_cli_error("%s: %s", dir, strerror(errno));
            return PSK_EXIT_DATA;
        }
    } else {
        snprintf(dir, sizeof dir, "%s/perfskel-predict.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(dir)) {
            psk_cli_error("%s: %s", dir, strerror(errno));
            return PSK_EXIT_DATA;
        }
    }
    snprintf(src, sizeof src, "%s/skeleton.c", dir);
    snprintf(bin, sizeof bin, "%s/skeleton", dir);
    snprintf(posf, sizeof posf, "%s/positions", dir);
    /* Ctrl-C from here on: the temporary directory goes (a kept one stays) */
    const char *const files[] = {bin, src, posf};
    psk_cli_cleanup_on(keep ? NULL : dir, files, keep ? 0 : 3);
    FILE *f = fopen(src, "w");
    if (!f) {
        psk_cli_error("%s: %s", src, strerror(errno));
        if (!keep)
            rmdir(dir);
        return PSK_EXIT_DATA;
    }
    psk_cli_skelinfo info = {.progress = quiet ? NULL : "predict"};
    double t = psk_cli_now();
    psk_gen_opts go = {.K = K, .floor_seconds = min_sample, .no_pin = no_pin};
    int rc = psk_cli_make_skeleton(input, &go, f, src, &info);
    if (fclose(f) && !rc) {
        psk_cli_error("%s: cannot write", src);
        rc = PSK_EXIT_DATA;
    }
    long lines = 0;
    if (!rc && !count_lines(src, &lines))
        say(quiet, "generated %s (%ld lines) in %.1f s; the recorded run took %.3f s, the skeleton should take %.3f s\n",
            src, lines, psk_cli_now() - t, info.recorded_seconds, info.expected_seconds);
    if (!rc) {
        say(quiet, "building with %s ...\n", cc.run);
        t = psk_cli_now();
        rc = psk_cli_mpicc_within(&cc, src, bin, 0, build_timeout, "--build-timeout to change it");
        if (psk_run_interrupted())
            psk_cli_die(psk_run_interrupted());
        if (!rc)
            say(quiet, "built in %.1f s\n", psk_cli_now() - t);
    }
    /* the watchdog: generous for a skeleton that runs as expected, short
     * enough that one that hangs is noticed while someone still waits */
    double limit = timeout >= 0 ? timeout
                                : LIMIT_FACTOR * info.expected_seconds + LIMIT_START_S +
                                      (double)info.nranks / LIMIT_RANKS_PER_S;
    /* run it: the launcher and its arguments, then the skeleton */
    /* run it `repeat` times; keep the output of the run with the median prediction */
    char **cmd = calloc((size_t)nlaunch + 2, sizeof *cmd);
    psk_skeleton_output **runs = calloc((size_t)repeat, sizeof *runs);
    if (!cmd || !runs) {
        psk_cli_error("out of memory");
        rc = PSK_EXIT_DATA;
    }
    for (int k = 0; !rc && k < repeat; k++) {
        char *text = NULL;
        size_t len = 0;
        FILE *o = open_memstream(&text, &len);
        if (!o) {
            psk_cli_error("out of memory");
            rc = PSK_EXIT_DATA;
            break;
        }
        memcpy(cmd, launch, (size_t)nlaunch * sizeof *cmd);
        cmd[nlaunch] = bin;
        if (limit > 0)
            say(quiet, "running %d of %d with %s, K = %d, limit %.1f s ...\n", k + 1, repeat, launch[0], K, limit);
        else
            say(quiet, "running %d of %d with %s, K = %d, no time limit ...\n", k + 1, repeat, launch[0], K);
        unlink(posf);
        setenv("PSK_SKELETON_POSITIONS", posf, 1); /* where each rank says where it was, if stopped */
        psk_run_opts ro = {.limit = limit, .out = o, .catch = PSK_SKELETON_POSITION_TAG};
        int st = psk_run_watched(cmd, &ro);
        fclose(o);
        int read = psk_skeleton_output_read(text, len, &runs[k]); /* said below if the run went well */
        free(text);
        if (ro.signal) {
            psk_cli_error("predict: interrupted (%s) during run %d of %d; the skeleton was stopped",
                          ro.signal == SIGINT ? "SIGINT" : ro.signal == SIGTERM ? "SIGTERM" : "SIGHUP", k + 1, repeat);
            if (ro.ncaught || !access(posf, F_OK))
                report_positions(ro.caught, ro.ncaught, posf, info.nranks);
            free(ro.caught);
            psk_cli_die(ro.signal);
        }
        if (ro.timed_out) {
            if (timeout >= 0)
                psk_cli_error("predict: the skeleton did not finish within %g s (limit; --timeout to change it)",
                              limit);
            else
                psk_cli_error("predict: the skeleton did not finish within %.1f s (default limit: %g x its expected "
                              "%.3f s + %.1f s start-up; --timeout to change it)",
                              limit, LIMIT_FACTOR, info.expected_seconds,
                              limit - LIMIT_FACTOR * info.expected_seconds);
            report_positions(ro.caught, ro.ncaught, posf, info.nranks);
            free(ro.caught);
            rc = PSK_EXIT_DATA;
            break;
        }
        if (st < 0) {
            psk_cli_error("%s: cannot start it: %s", launch[0], strerror(errno));
            free(ro.caught);
            rc = PSK_EXIT_DATA;
            break;
        }
        if (st) {
            psk_cli_error("%s: the skeleton exited with status %d", launch[0], st);
            if (ro.ncaught || !access(posf, F_OK))
                report_positions(ro.caught, ro.ncaught, posf, info.nranks);
            free(ro.caught);
            rc = PSK_EXIT_DATA;
            break;
        }
        free(ro.caught);
        say(quiet, "run %d of %d took %.2f s\n", k + 1, repeat, ro.seconds);
        if (read == PSK_ENOMEM) {
            psk_cli_error("out of memory");
            rc = PSK_EXIT_DATA;
        } else if (read) {
            psk_cli_error("%s: the skeleton printed no prediction", bin);
            rc = PSK_EXIT_DATA;
        }
    }
    free(cmd);
    /* the median run, and the range of the R predictions (psk_skeleton_median) */
    double lo = 0, hi = 0, cover = (double)(repeat - 1) / (repeat + 1);
    const psk_skeleton_output *out = rc ? NULL : runs[psk_skeleton_median(runs, repeat, &lo, &hi)];
    psk_skeleton_result res = out ? *psk_skeleton_output_result(out) : (psk_skeleton_result){0};
    double credited = out ? psk_skeleton_output_credited(out) : 0;
    int pinned = out ? psk_skeleton_output_pinned(out) : -1;
    if (!rc && json) {
        psk_json j;
        psk_json_init(&j, stdout, 1);
        psk_json_obj(&j, NULL);
        psk_json_str(&j, "trace", input);
        psk_json_str(&j, "mpi", psk_flavour_name(flavour));
        psk_json_str(&j, "mpicc", cc.path);
        psk_json_num(&j, "predicted_seconds", res.predicted_seconds);
        psk_json_num(&j, "skeleton_seconds", res.skeleton_seconds);
        psk_json_int(&j, "K", res.K);
        psk_json_obj(&j, "interval");
        psk_json_num(&j, "low_seconds", lo);
        psk_json_num(&j, "high_seconds", hi);
        psk_json_int(&j, "runs", repeat);
        psk_json_num(&j, "coverage", cover);
        psk_json_end(&j);
        if (actual > 0) {
            psk_json_num(&j, "actual_seconds", actual);
            psk_json_num(&j, "error_percent", 100.0 * (res.predicted_seconds - actual) / actual);
            psk_json_bool(&j, "actual_inside", actual >= lo && actual <= hi);
        }
        psk_json_num(&j, "recorded_seconds", info.recorded_seconds);
        psk_json_num(&j, "expected_skeleton_seconds", info.expected_seconds);
        psk_json_num(&j, "skeleton_fraction", info.recorded_seconds > 0 ? res.skeleton_seconds / info.recorded_seconds : 0);
        psk_json_num(&j, "compute_credited_seconds", credited);
        psk_json_obj(&j, "placement");
        psk_json_int(&j, "planned", info.pin);
        psk_json_int(&j, "pinned", pinned);
        psk_json_end(&j);
        psk_json_arr(&j, "loops");
        for (int k = 0; k < info.nloops; k++) {
            const psk_gen_loop *l = &info.loops[k];
            const psk_skeleton_phase *po = psk_skeleton_output_phase(out, l->loop);
            psk_json_obj(&j, NULL);
            psk_json_int(&j, "loop", l->loop);
            psk_json_int(&j, "parent", l->parent);
            psk_json_int(&j, "count", l->count);
            psk_json_int(&j, "executions", l->execs);
            psk_json_num(&j, "iteration_seconds", l->iter_seconds);
            psk_json_bool(&j, "sampled", l->sampled);
            psk_json_int(&j, "cold", l->cold);
            psk_json_int(&j, "ran", l->ran);
            psk_json_num(&j, "compute_factor", l->compute_factor);
            psk_json_str(&j, "why", l->why);
            if (po) {
                psk_json_num(&j, "seconds", po->seconds);
                psk_json_num(&j, "predicted_seconds", po->predicted_seconds);
            }
            psk_json_end(&j);
        }
        psk_json_end(&j);
        psk_json_end(&j);
    } else if (!rc) {
        report_loops(&info, out);
        if (credited > 0)
            printf("compute run in part: %.3f s of it credited at the recorded speed (slowest rank)\n", credited);
        report_placement(&info, pinned);
        printf("predicted run time: %.3f s (skeleton: %.3f s, %.0f %% of the recorded %.3f s; K = %d)\n",
               res.predicted_seconds, res.skeleton_seconds,
               info.recorded_seconds > 0 ? 100 * res.skeleton_seconds / info.recorded_seconds : 0.0,
               info.recorded_seconds, res.K);
        if (repeat > 1)
            printf("range of the %d runs: %.3f to %.3f s (a further run falls inside with probability %.0f %% "
                   "if runs vary alike)\n",
                   repeat, lo, hi, 100 * cover);
        if (actual > 0)
            printf("actual: %.3f s, error %+.2f %%%s\n", actual, 100.0 * (res.predicted_seconds - actual) / actual,
                   repeat < 2                     ? ""
                   : actual >= lo && actual <= hi ? ", inside the range"
                                                  : ", outside the range");
    }
    for (int k = 0; runs && k < repeat; k++)
        psk_skeleton_output_free(runs[k]);
    free(runs);
    free(info.loops);
    if (!keep) {
        unlink(bin);
        unlink(src);
        unlink(posf);
        rmdir(dir);
    }
    return rc;
}
