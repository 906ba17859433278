/* perfskel merge: all ranks of a recorded job into one merged trace
 * (seed 001 §2.2, Algorithms 1 and 2), written to a file that fold, gen
 * and sim read. Prints what it did: events in, merged events out, classes,
 * and the time it took; --json for programs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "perfskel/merge.h"
#include "psk_json.h"

static void progress(void *arg, uint64_t done, uint64_t total)
{
    *(int *)arg = 1;
    if (total)
        fprintf(stderr, "\rperfskel merge: %llu of %llu events", (unsigned long long)done,
                (unsigned long long)total);
    else
        fprintf(stderr, "\rperfskel merge: %llu events read", (unsigned long long)done);
}

int cmd_merge(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    int json = 0, quiet = 0, summary = 0;
    psk_merge_opts o = {.window = 64};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "-q")) {
            quiet = 1;
        } else if (!strcmp(argv[i], "--no-reorder")) {
            o.no_reorder = 1;
        } else if (!strcmp(argv[i], "--keep-polls")) {
            o.keep_polls = 1;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--times") && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "all") && strcmp(v, "summary"))
                return psk_cli_usage("merge: --times takes all or summary, not '%s'", v);
            summary = !strcmp(v, "summary");
        } else if (!strcmp(argv[i], "--window") && i + 1 < argc) {
            char *end;
            long w = strtol(argv[++i], &end, 10);
            if (*end || w < 2 || w > 1 << 20)
                return psk_cli_usage("merge: --window takes a number from 2 to 1048576, not '%s'", argv[i]);
            o.window = (int)w;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return psk_cli_usage("merge: unknown option '%s'", argv[i]);
        } else if (!dir) {
            dir = argv[i];
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
    int shown = 0;
    if (!quiet && !json) {
        o.progress = progress;
        o.progress_arg = &shown;
    }
    psk_merged *m;
    int rc = psk_merge(t, &o, &m);
    if (shown)
        fputs("\r\033[K", stderr);
    double t1 = psk_cli_now();
    if (rc == PSK_OK && summary)
        psk_merged_summarize_times(m);
    if (rc == PSK_OK)
        rc = psk_merged_write(m, out);
    if (rc) {
        psk_cli_error("%s", psk_merged_errmsg(m));
        psk_merged_close(m);
        psk_trace_close(t);
        free(deflt);
        return PSK_EXIT_DATA;
    }
    uint64_t events = 0;
    int P = psk_merged_nranks(m);
    for (int r = 0; r < P; r++)
        events += psk_merged_rank_events(m, r);
    if (json) {
        psk_json j;
        psk_json_init(&j, stdout, 1);
        psk_json_obj(&j, NULL);
        psk_json_str(&j, "trace", dir);
        psk_json_str(&j, "output", out);
        psk_json_int(&j, "ranks", P);
        psk_json_uint(&j, "events", events);
        psk_json_uint(&j, "merged_events", psk_merged_length(m));
        psk_json_uint(&j, "classes", psk_merged_nclasses(m));
        psk_json_int(&j, "window", o.window);
        psk_json_str(&j, "times", summary ? "summary" : "all");
        psk_json_num(&j, "seconds", t1 - t0);
        psk_json_end(&j);
    } else if (!quiet) {
        printf("merged %d ranks, %llu events into %llu merged events of %u classes in %.3f s: %s\n", P,
               (unsigned long long)events, (unsigned long long)psk_merged_length(m), psk_merged_nclasses(m),
               t1 - t0, out);
    }
    psk_merged_close(m);
    psk_trace_close(t);
    free(deflt);
    return 0;
}
