/* perfskel-merge-mpi-FLAVOUR: the offline merge spread over the processes
 * of an MPI job (`mpirun -n N perfskel merge --mpi DIR`, which execs this
 * driver of the launcher's MPI; built once per MPI, as the recorder is).
 * Each process loads a slice of the trace's ranks into a part (their
 * distinct key sequences and call orders, src/merge/merge_stream.c) and
 * sends it up a binomial tree (src/merge/merge_tree_mpi.c, which the
 * recorder's merge in the job runs too); each parent absorbs its children's parts,
 * so sequences shared by many ranks travel once per edge; process 0 then
 * aligns every rank and writes the merged file, reading the rank files
 * again (the directory must be visible to it): the same bytes as
 * `perfskel merge DIR`. Every process exits with the merge's status. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "merge_tree_mpi.h"
#include "perfskel/merge.h"
#include "psk_json.h"

#define TAG_HEAD 7101
#define TAG_DATA 7102

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* waits for r without spinning: a process waiting for its child's part,
 * or for process 0 to write the file, leaves the cores to the others */
static void wait_quietly(MPI_Request *r)
{
    int done = 0;
    struct timespec ms = {0, 1000000};
    for (;;) {
        MPI_Test(r, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        nanosleep(&ms, NULL);
    }
}

static int usage(int me, const char *msg, const char *arg)
{
    if (me == 0) {
        fprintf(stderr, "perfskel: merge --mpi: ");
        fprintf(stderr, msg, arg);
        fprintf(stderr, " (perfskel --help for usage)\n");
    }
    return 2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *dir = NULL, *out = NULL;
    int json = 0, quiet = 0, status = 0;
    psk_merge_opts o = {.window = 64};
    for (int i = 1; i < argc && !status; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "-q"))
            quiet = 1;
        else if (!strcmp(argv[i], "--mpi"))
            ;
        else if (!strcmp(argv[i], "--no-reorder"))
            o.no_reorder = 1;
        else if (!strcmp(argv[i], "--keep-polls"))
            o.keep_polls = 1;
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--times") && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "all") && strcmp(v, "summary"))
                status = usage(me, "--times takes all or summary, not '%s'", v);
            o.times_summary = !strcmp(v, "summary");
        }
        else if (!strcmp(argv[i], "--window") && i + 1 < argc) {
            char *end;
            long w = strtol(argv[++i], &end, 10);
            if (*end || w < 2 || w > 1 << 20)
                status = usage(me, "--window takes a number from 2 to 1048576, not '%s'", argv[i]);
            o.window = (int)w;
        } else if (argv[i][0] == '-' && argv[i][1])
            status = usage(me, "unknown option '%s'", argv[i]);
        else if (!dir)
            dir = argv[i];
        else
            status = usage(me, "%s: one trace directory only", argv[i]);
    }
    if (!status && !dir)
        status = usage(me, "%s", "no trace directory given");
    if (status) {
        MPI_Finalize();
        return status;
    }
    char deflt[4200];
    if (!out) {
        snprintf(deflt, sizeof deflt, "%s/merged.pskm", dir);
        out = deflt;
    }
    double t0 = now();
    psk_trace *t = NULL;
    psk_merge_part *part = NULL;
    char err[4700] = "";
    int64_t st = psk_trace_open(dir, &t);
    if (st) {
        snprintf(err, sizeof err, "%s", psk_trace_errmsg(t));
    } else {
        int P = psk_trace_job(t)->nranks;
        int first = (int)((int64_t)P * me / np), last = (int)((int64_t)P * (me + 1) / np);
        if ((st = psk_merge_part_load(t, &o, first, last - first, &part)))
            snprintf(err, sizeof err, "%s", psk_merge_part_errmsg(part));
    }
    /* up the tree (src/merge/merge_tree_mpi.c, as the recorder's merge in the job) */
    psk_mtree tree = {.comm = MPI_COMM_WORLD, .me = me, .np = np, .tag_head = TAG_HEAD, .tag_data = TAG_DATA,
                      .wait = wait_quietly, .who = ""};
    st = psk_mtree_gather(&tree, part, st, err, sizeof err);
    psk_merge_result res;
    if (me == 0 && !st && (st = psk_merge_part_write(part, out, &res)))
        snprintf(err, sizeof err, "%s", res.err);
    psk_merge_part_free(part);
    psk_trace_close(t);
    double secs = now() - t0;
    int code = st ? 1 : 0;
    MPI_Request rq;
    MPI_Ibcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq);
    wait_quietly(&rq);
    if (me == 0 && st) {
        fprintf(stderr, "perfskel: %s\n", err);
    } else if (me == 0 && json) {
        psk_json j;
        psk_json_init(&j, stdout, 1);
        psk_json_obj(&j, NULL);
        psk_json_str(&j, "trace", dir);
        psk_json_str(&j, "output", out);
        psk_json_int(&j, "ranks", res.nranks);
        psk_json_uint(&j, "events", res.events);
        psk_json_uint(&j, "merged_events", res.merged_events);
        psk_json_uint(&j, "classes", res.classes);
        psk_json_int(&j, "window", o.window);
        psk_json_int(&j, "processes", np);
        psk_json_num(&j, "seconds", secs);
        psk_json_end(&j);
    } else if (me == 0 && !quiet) {
        printf("merged %d ranks, %llu events into %llu merged events of %u classes in %.3f s over %d processes: %s\n",
               res.nranks, (unsigned long long)res.events, (unsigned long long)res.merged_events, res.classes, secs,
               np, out);
    }
    MPI_Finalize();
    return code;
}
