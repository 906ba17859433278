/* perfskel merge: all ranks of a recorded job into one merged trace
 * (seed 001 §2.2, Algorithms 1 and 2), written to a file that fold, gen
 * and sim read. It streams (psk_merge_file: memory does not grow with every
 * rank's events); --in-memory merges the whole trace in memory first
 * (psk_merge, the same bytes; tests compare the two). Prints what it did:
 * events in, merged events out, classes, and the time it took; --json for
 * programs; progress on stderr unless -q. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "perfskel/merge.h"
#include "psk_json.h"

/* perfskel merge --mpi, run by mpirun on every process: execs the merge
 * driver built for the launcher's MPI, told apart by what each launcher
 * puts in the environment (Open MPI: OMPI_COMM_WORLD_SIZE; MPICH's Hydra:
 * PMI_SIZE) */
static int exec_mpi(int argc, char **argv)
{
    const char *flavour = getenv("OMPI_COMM_WORLD_SIZE") ? "openmpi"
                          : getenv("PMI_SIZE") || getenv("PMI_RANK") ? "mpich"
                                                                     : NULL;
    if (!flavour)
        return psk_cli_usage("merge --mpi: run it under mpirun (neither OMPI_COMM_WORLD_SIZE nor PMI_SIZE is set)");
    char name[64], path[4200];
    snprintf(name, sizeof name, "perfskel-merge-mpi-%s", flavour);
    if (psk_run_find_library(name, path, sizeof path))
        return psk_cli_error("merge --mpi: %s not found beside perfskel (built without %s?)", name, flavour),
               PSK_EXIT_DATA;
    char **av = calloc((size_t)argc + 1, sizeof *av);
    if (!av)
        return psk_cli_error("out of memory"), PSK_EXIT_DATA;
    av[0] = path;
    for (int i = 1; i < argc; i++)
        av[i] = argv[i];
    execv(path, av);
    psk_cli_error("merge --mpi: %s: cannot run it", path);
    free(av);
    return PSK_EXIT_DATA;
}

enum { O_OUT, O_WINDOW, O_NO_REORDER, O_KEEP_POLLS, O_TIMES, O_IN_MEMORY, O_MPI, O_QUIET, O_JSON };
static const psk_cli_opt opts[] = {
    [O_OUT] = {"-o", NULL, PSK_OPT_VALUE},
    [O_WINDOW] = {"--window", NULL, PSK_OPT_VALUE},
    [O_NO_REORDER] = {"--no-reorder", NULL, PSK_OPT_FLAG},
    [O_KEEP_POLLS] = {"--keep-polls", NULL, PSK_OPT_FLAG},
    [O_TIMES] = {"--times", NULL, PSK_OPT_VALUE},
    [O_IN_MEMORY] = {"--in-memory", NULL, PSK_OPT_FLAG},
    [O_MPI] = {"--mpi", NULL, PSK_OPT_FLAG}, /* never parsed here: the command line goes to merge_mpi.c */
    [O_QUIET] = {"-q", NULL, PSK_OPT_FLAG},
    [O_JSON] = {"--json", NULL, PSK_OPT_FLAG},
};
const psk_cli_opts cmd_merge_opts = {"merge", PSK_CLI_OPTS(opts), PSK_CLI_JOB_NONE, NULL, NULL};

int cmd_merge(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--mpi"))
            return exec_mpi(argc, argv);
    const char *dir = NULL, *out = NULL;
    int json = 0, quiet = 0, inmem = 0, k;
    psk_merge_opts o = {.window = 64};
    psk_cli_args a;
    psk_cli_begin(&a, &cmd_merge_opts, argc, argv);
    while ((k = psk_cli_next(&a)) != PSK_CLI_END) {
        if (k == PSK_CLI_STOP) {
            return a.status;
        } else if (k == O_JSON) {
            json = 1;
        } else if (k == O_QUIET) {
            quiet = 1;
        } else if (k == O_IN_MEMORY) {
            inmem = 1;
        } else if (k == O_NO_REORDER) {
            o.no_reorder = 1;
        } else if (k == O_KEEP_POLLS) {
            o.keep_polls = 1;
        } else if (k == O_OUT) {
            out = a.val;
        } else if (k == O_TIMES) {
            if (strcmp(a.val, "all") && strcmp(a.val, "summary"))
                return psk_cli_usage("merge: --times takes all or summary, not '%s'", a.val);
            o.times_summary = !strcmp(a.val, "summary");
        } else if (k == O_WINDOW) {
            char *end;
            long w = strtol(a.val, &end, 10);
            if (*end || w < 2 || w > 1 << 20)
                return psk_cli_usage("merge: --window takes a number from 2 to 1048576, not '%s'", a.val);
            o.window = (int)w;
        } else if (!dir) { /* an operand */
            dir = a.val;
        } else {
            return psk_cli_usage("merge: one trace directory only");
        }
    }
    if (!dir)
        return psk_cli_usage("merge: no trace directory given");
    char *deflt = NULL;
    if (!out) {
        if (asprintf(&deflt, "%s/merged.pskm", dir) < 0)
            return psk_cli_error("out of memory"), PSK_EXIT_DATA;
        out = deflt;
    }
    double t0 = psk_cli_now();
    psk_trace *t;
    if (psk_trace_open(dir, &t)) {
        psk_cli_error("%s", psk_trace_errmsg(t));
        psk_trace_close(t);
        free(deflt);
        return PSK_EXIT_DATA;
    }
    psk_cli_progress pg;
    psk_cli_progress_init(&pg, "merge", quiet || json);
    pg.unit = "events";
    pg.step_count = "reading the ranks' events";
    pg.step_total = "writing the merged trace";
    o.progress = psk_cli_progress_cb;
    o.progress_arg = &pg;
    psk_merge_result res;
    psk_merged *m = NULL;
    int rc;
    if (inmem) {
        rc = psk_merge(t, &o, &m);
        if (rc == PSK_OK)
            rc = psk_merged_write(m, out);
        snprintf(res.err, sizeof res.err, "%s", psk_merged_errmsg(m));
        if (!rc) {
            res.nranks = psk_merged_nranks(m);
            res.events = 0;
            for (int r = 0; r < res.nranks; r++)
                res.events += psk_merged_rank_events(m, r);
            res.merged_events = psk_merged_length(m);
            res.classes = psk_merged_nclasses(m);
        }
        psk_merged_close(m);
    } else {
        rc = psk_merge_file(t, &o, out, &res);
    }
    psk_cli_progress_done(&pg);
    double t1 = psk_cli_now();
    if (rc) {
        psk_cli_error("%s", res.err);
        psk_trace_close(t);
        free(deflt);
        return PSK_EXIT_DATA;
    }
    uint64_t events = res.events;
    int P = res.nranks;
    if (json) {
        psk_json j;
        psk_json_init(&j, stdout, 1);
        psk_json_obj(&j, NULL);
        psk_json_str(&j, "trace", dir);
        psk_json_str(&j, "output", out);
        psk_json_int(&j, "ranks", P);
        psk_json_uint(&j, "events", events);
        psk_json_uint(&j, "merged_events", res.merged_events);
        psk_json_uint(&j, "classes", res.classes);
        psk_json_int(&j, "window", o.window);
        psk_json_str(&j, "times", o.times_summary ? "summary" : "all");
        psk_json_num(&j, "seconds", t1 - t0);
        psk_json_end(&j);
    } else if (!quiet) {
        printf("merged %d ranks, %llu events into %llu merged events of %u classes in %.3f s: %s\n", P,
               (unsigned long long)events, (unsigned long long)res.merged_events, res.classes, t1 - t0, out);
    }
    psk_trace_close(t);
    free(deflt);
    return 0;
}
