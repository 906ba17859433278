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
 * `perfskel merge DIR`. Every process exits with the merge's status. Its
 * command line is read by merge's table of options (merge_args.c, with
 * options.c), less --in-memory; only process 0 says what is wrong. */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "merge_tree_mpi.h"
#include "perfskel/merge.h"

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

/* this process's rank: the messages of options.c and merge_args.c, said
 * by process 0 only (perfskel.c's, without its escaping of control bytes) */
static int me;

void psk_cli_error(const char *fmt, ...)
{
    if (me)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("perfskel: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int psk_cli_usage(const char *fmt, ...)
{
    if (!me) {
        va_list ap;
        va_start(ap, fmt);
        fputs("perfskel: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputs(" (perfskel --help for usage)\n", stderr);
        va_end(ap);
    }
    return PSK_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    psk_cli_merge_args ma;
    int status = psk_cli_merge_parse(&psk_cli_merge_mpi_opts, argc, argv, &ma);
    if (status) {
        MPI_Finalize();
        return status;
    }
    const char *dir = ma.dir, *out = ma.out;
    psk_merge_opts o = ma.mo;
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
    if (st)
        psk_cli_error("%s", err);
    else if (me == 0)
        psk_cli_merge_print(&ma, &res, secs, np);
    free(ma.out_default);
    MPI_Finalize();
    return code;
}
