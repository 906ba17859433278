/* perfskel predict: generate the skeleton of a recorded job, build it with
 * the MPI of the launcher given, run it with that launcher, and report the
 * run time it predicts for the original program (MPI_Init to MPI_Finalize,
 * slowest rank), its own run time, K and the time of each scaled loop;
 * with --actual SECONDS, the error of the prediction. The skeleton runs
 * --repeat times (default 3) and the median prediction is kept: a short
 * run on a shared machine varies by several per cent. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "perfskel/gen.h"
#include "psk_json.h"

int cmd_predict(int argc, char **argv)
{
    const char *input = NULL, *keep = NULL;
    int K = 0, json = 0, i, repeat = 3, flavour = 0;
    double actual = -1;
    for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        if (!strcmp(argv[i], "-K") && i + 1 < argc) {
            if (psk_cli_parse_k(argv[++i], &K))
                return psk_cli_usage("predict: -K takes a whole number of at least 1, not '%s'", argv[i]);
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            char *end;
            long r = strtol(argv[++i], &end, 10);
            if (*end || r < 1 || r > 100)
                return psk_cli_usage("predict: --repeat takes a number from 1 to 100, not '%s'", argv[i]);
            repeat = (int)r;
        } else if (!strcmp(argv[i], "--keep") && i + 1 < argc) {
            keep = argv[++i];
        } else if (!strcmp(argv[i], "--mpi") && i + 1 < argc) {
            const char *m = argv[++i];
            flavour = psk_cli_mpi_arg(m);
            if (!flavour)
                return psk_cli_usage("predict: --mpi takes openmpi or mpich, not '%s'", m);
        } else if (!strcmp(argv[i], "--actual") && i + 1 < argc) {
            char *end;
            actual = strtod(argv[++i], &end);
            if (*end || !(actual > 0))
                return psk_cli_usage("predict: --actual takes the measured run time in seconds, not '%s'", argv[i]);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return psk_cli_usage("predict: unknown option '%s'", argv[i]);
        } else if (!input) {
            input = argv[i];
        } else {
            return psk_cli_usage("predict: one input only");
        }
    }
    if (!input)
        return psk_cli_usage("predict: no trace directory given");
    if (!K)
        return psk_cli_usage("predict: -K N is needed");
    if (i + 1 >= argc)
        return psk_cli_usage("predict: no launcher given after --");
    char **launch = argv + i + 1;
    int nlaunch = argc - i - 1;
    if (!(flavour = psk_cli_launcher_mpi(flavour, launch[0])))
        return PSK_EXIT_USAGE;
    /* the skeleton's source and binary */
    char dir[PATH_MAX], src[PATH_MAX + 16], bin[PATH_MAX + 16];
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
    FILE *f = fopen(src, "w");
    if (!f) {
        psk_cli_error("%s: %s", src, strerror(errno));
        return PSK_EXIT_DATA;
    }
    int rc = psk_cli_make_skeleton(input, K, f, src);
    if (fclose(f) && !rc) {
        psk_cli_error("%s: cannot write", src);
        rc = PSK_EXIT_DATA;
    }
    if (!rc)
        rc = psk_cli_mpicc(flavour, src, bin, 0);
    /* run it: the launcher and its arguments, then the skeleton */
    /* run it `repeat` times; keep the output of the run with the median prediction */
    char *outtxt = NULL;
    size_t outlen = 0;
    psk_skeleton_result res = {0};
    char **cmd = calloc((size_t)nlaunch + 2, sizeof *cmd);
    char **outs = calloc((size_t)repeat, sizeof *outs);
    size_t *lens = calloc((size_t)repeat, sizeof *lens);
    psk_skeleton_result *all = calloc((size_t)repeat, sizeof *all);
    if (!cmd || !outs || !lens || !all) {
        psk_cli_error("out of memory");
        rc = PSK_EXIT_DATA;
    }
    for (int k = 0; !rc && k < repeat; k++) {
        FILE *o = open_memstream(&outs[k], &lens[k]);
        if (!o) {
            psk_cli_error("out of memory");
            rc = PSK_EXIT_DATA;
            break;
        }
        memcpy(cmd, launch, (size_t)nlaunch * sizeof *cmd);
        cmd[nlaunch] = bin;
        if (!json)
            fprintf(stderr, "perfskel: running the skeleton (K = %d) with %s, %d of %d\n", K, launch[0], k + 1, repeat);
        int st = psk_cli_run(cmd, o);
        fclose(o);
        if (st) {
            psk_cli_error("%s: the skeleton exited with status %d", launch[0], st);
            rc = PSK_EXIT_DATA;
            break;
        }
        int found = 0;
        for (char *line = outs[k]; line && *line;) {
            char *nl = strchr(line, '\n');
            if (nl)
                *nl = 0;
            if (!psk_skeleton_parse(line, &all[k]))
                found = 1;
            line = nl ? nl + 1 : NULL;
        }
        if (!found) {
            psk_cli_error("%s: the skeleton printed no prediction", bin);
            rc = PSK_EXIT_DATA;
        }
    }
    if (!rc) { /* the median run */
        int med = 0;
        for (int a = 0; a < repeat; a++) {
            int below = 0, above = 0;
            for (int b = 0; b < repeat; b++) {
                below += all[b].predicted_seconds < all[a].predicted_seconds;
                above += all[b].predicted_seconds > all[a].predicted_seconds;
            }
            if (below <= repeat / 2 && above <= repeat / 2)
                med = a;
        }
        res = all[med];
        outtxt = outs[med];
        outlen = lens[med];
        outs[med] = NULL;
    }
    for (int k = 0; outs && k < repeat; k++)
        free(outs[k]);
    free(outs), free(lens), free(all), free(cmd);
    if (!rc && json) {
        psk_json j;
        psk_json_init(&j, stdout, 1);
        psk_json_obj(&j, NULL);
        psk_json_str(&j, "trace", input);
        psk_json_num(&j, "predicted_seconds", res.predicted_seconds);
        psk_json_num(&j, "skeleton_seconds", res.skeleton_seconds);
        psk_json_int(&j, "K", res.K);
        if (actual > 0) {
            psk_json_num(&j, "actual_seconds", actual);
            psk_json_num(&j, "error_percent", 100.0 * (res.predicted_seconds - actual) / actual);
        }
        psk_json_arr(&j, "phases");
        for (char *line = outtxt; line < outtxt + outlen; line += strlen(line) + 1) {
            int loop;
            long long count, ran;
            double secs, pred;
            if (sscanf(line, PSK_SKELETON_TAG " phase loop=%d count=%lld ran=%lld seconds=%lf predicted_seconds=%lf",
                       &loop, &count, &ran, &secs, &pred) == 5) {
                psk_json_obj(&j, NULL);
                psk_json_int(&j, "loop", loop);
                psk_json_int(&j, "count", count);
                psk_json_int(&j, "ran", ran);
                psk_json_num(&j, "seconds", secs);
                psk_json_num(&j, "predicted_seconds", pred);
                psk_json_end(&j);
            }
        }
        psk_json_end(&j);
        psk_json_end(&j);
    } else if (!rc) {
        for (char *line = outtxt; line < outtxt + outlen; line += strlen(line) + 1) {
            int loop;
            long long count, ran;
            double secs, pred;
            if (sscanf(line, PSK_SKELETON_TAG " phase loop=%d count=%lld ran=%lld seconds=%lf predicted_seconds=%lf",
                       &loop, &count, &ran, &secs, &pred) == 5)
                printf("loop %d: %lld iterations in the original, %lld run in %.3f s: %.3f s predicted\n", loop,
                       count, ran, secs, pred);
        }
        printf("predicted run time: %.3f s (skeleton: %.3f s, K = %d)\n", res.predicted_seconds,
               res.skeleton_seconds, res.K);
        if (actual > 0)
            printf("actual: %.3f s, error %+.2f %%\n", actual, 100.0 * (res.predicted_seconds - actual) / actual);
    }
    free(outtxt);
    if (!keep) {
        unlink(bin);
        unlink(src);
        rmdir(dir);
    }
    return rc;
}
