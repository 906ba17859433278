/* perfskel merge's command line and what it prints, shared by the two
 * programs that merge: `perfskel merge` (cmd_merge.c) and the merge over
 * the processes of an MPI job that it execs for --mpi (merge_mpi.c,
 * perfskel-merge-mpi-FLAVOUR, which links this file and options.c). One
 * table of options drives both parsers, main's normalise step and the
 * options merge's --help lists (tests/cli/options_help.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "psk_json.h"

enum { O_OUT, O_WINDOW, O_NO_REORDER, O_KEEP_POLLS, O_TIMES, O_MPI, O_QUIET, O_JSON, O_IN_MEMORY };
static const psk_cli_opt opts[] = {
    [O_OUT] = {"-o", NULL, PSK_OPT_VALUE},
    [O_WINDOW] = {"--window", NULL, PSK_OPT_VALUE},
    [O_NO_REORDER] = {"--no-reorder", NULL, PSK_OPT_FLAG},
    [O_KEEP_POLLS] = {"--keep-polls", NULL, PSK_OPT_FLAG},
    [O_TIMES] = {"--times", NULL, PSK_OPT_VALUE},
    [O_MPI] = {"--mpi", NULL, PSK_OPT_FLAG}, /* cmd_merge.c execs the MPI driver before parsing */
    [O_QUIET] = {"-q", NULL, PSK_OPT_FLAG},
    [O_JSON] = {"--json", NULL, PSK_OPT_FLAG},
    [O_IN_MEMORY] = {"--in-memory", NULL, PSK_OPT_FLAG}, /* last: the MPI driver has every option but it */
};
const psk_cli_opts cmd_merge_opts = {"merge", PSK_CLI_OPTS(opts), PSK_CLI_JOB_NONE, NULL, NULL};
const psk_cli_opts psk_cli_merge_mpi_opts = {"merge --mpi", opts, O_IN_MEMORY, PSK_CLI_JOB_NONE, NULL, NULL};

int psk_cli_merge_parse(const psk_cli_opts *o, int argc, char **argv, psk_cli_merge_args *m)
{
    *m = (psk_cli_merge_args){.mo = {.window = 64}};
    psk_cli_args a;
    int k;
    psk_cli_begin(&a, o, argc, argv);
    while ((k = psk_cli_next(&a)) != PSK_CLI_END) {
        if (k == PSK_CLI_STOP) {
            return a.status;
        } else if (k == O_JSON) {
            m->json = 1;
        } else if (k == O_QUIET) {
            m->quiet = 1;
        } else if (k == O_IN_MEMORY) {
            m->in_memory = 1;
        } else if (k == O_NO_REORDER) {
            m->mo.no_reorder = 1;
        } else if (k == O_KEEP_POLLS) {
            m->mo.keep_polls = 1;
        } else if (k == O_OUT) {
            m->out = a.val;
        } else if (k == O_TIMES) {
            if (strcmp(a.val, "all") && strcmp(a.val, "summary"))
                return psk_cli_usage("%s: --times takes all or summary, not '%s'", o->cmd, a.val);
            m->mo.times_summary = !strcmp(a.val, "summary");
        } else if (k == O_WINDOW) {
            char *end;
            long w = strtol(a.val, &end, 10);
            if (*end || w < 2 || w > 1 << 20)
                return psk_cli_usage("%s: --window takes a number from 2 to 1048576, not '%s'", o->cmd, a.val);
            m->mo.window = (int)w;
        } else if (k == O_MPI) {
            continue;
        } else if (!m->dir) { /* an operand */
            m->dir = a.val;
        } else {
            return psk_cli_usage("%s: one trace directory only", o->cmd);
        }
    }
    if (!m->dir)
        return psk_cli_usage("%s: no trace directory given", o->cmd);
    if (!m->out) {
        if (asprintf(&m->out_default, "%s/merged.pskm", m->dir) < 0)
            return psk_cli_error("out of memory"), PSK_EXIT_DATA;
        m->out = m->out_default;
    }
    return 0;
}

void psk_cli_merge_print(const psk_cli_merge_args *m, const psk_merge_result *res, double secs, int processes)
{
    if (m->json) {
        psk_json j;
        psk_json_init(&j, stdout, 1);
        psk_json_obj(&j, NULL);
        psk_json_str(&j, "trace", m->dir);
        psk_json_str(&j, "output", m->out);
        psk_json_int(&j, "ranks", res->nranks);
        psk_json_uint(&j, "events", res->events);
        psk_json_uint(&j, "merged_events", res->merged_events);
        psk_json_uint(&j, "classes", res->classes);
        psk_json_int(&j, "window", m->mo.window);
        if (processes)
            psk_json_int(&j, "processes", processes);
        else
            psk_json_str(&j, "times", m->mo.times_summary ? "summary" : "all");
        psk_json_num(&j, "seconds", secs);
        psk_json_end(&j);
    } else if (!m->quiet) {
        printf("merged %d ranks, %llu events into %llu merged events of %u classes in %.3f s", res->nranks,
               (unsigned long long)res->events, (unsigned long long)res->merged_events, res->classes, secs);
        if (processes)
            printf(" over %d processes", processes);
        printf(": %s\n", m->out);
    }
}
