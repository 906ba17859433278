/* perfskel merge: all ranks of a recorded job into one merged trace
 * (seed 001 §2.2, Algorithms 1 and 2), written to a file that fold, gen
 * and sim read. It streams (psk_merge_file: memory does not grow with every
 * rank's events); --in-memory merges the whole trace in memory first
 * (psk_merge, the same bytes; tests compare the two). Prints what it did:
 * events in, merged events out, classes, and the time it took; --json for
 * programs; progress on stderr unless -q. Its options and what it prints
 * are merge_args.c's, shared with the merge over MPI processes (--mpi). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "perfskel/merge.h"

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

int cmd_merge(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--mpi"))
            return exec_mpi(argc, argv);
    psk_cli_merge_args ma;
    int rc = psk_cli_merge_parse(&cmd_merge_opts, argc, argv, &ma);
    if (rc)
        return rc;
    double t0 = psk_cli_now();
    psk_trace *t = psk_cli_open_trace(ma.dir);
    if (!t) {
        free(ma.out_default);
        return PSK_EXIT_DATA;
    }
    psk_cli_progress pg;
    psk_cli_progress_init(&pg, "merge", ma.quiet || ma.json);
    pg.unit = "events";
    pg.step_count = "reading the ranks' events";
    pg.step_total = "writing the merged trace";
    psk_merge_opts o = ma.mo;
    o.progress = psk_cli_progress_cb;
    o.progress_arg = &pg;
    psk_merge_result res;
    psk_merged *m = NULL;
    if (ma.in_memory) {
        rc = psk_merge(t, &o, &m);
        if (rc == PSK_OK)
            rc = psk_merged_write(m, ma.out);
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
        rc = psk_merge_file(t, &o, ma.out, &res);
    }
    psk_cli_progress_done(&pg);
    double t1 = psk_cli_now();
    if (rc)
        psk_cli_error("%s", res.err);
    else
        psk_cli_merge_print(&ma, &res, t1 - t0, 0);
    psk_trace_close(t);
    free(ma.out_default);
    return rc ? PSK_EXIT_DATA : 0;
}
