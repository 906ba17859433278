/* Loading a merged trace for the subcommands that take either a trace
 * directory (merged here, in memory) or a merged-trace file: fold, gen and
 * predict; and the machine file with the trace directory, for sim and
 * export. Errors are printed as perfskel's one-line messages. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

psk_merged *psk_cli_load_merged(const char *input, int no_reorder)
{
    struct stat sb;
    psk_merged *m = NULL;
    int rc;
    if (stat(input, &sb)) {
        psk_cli_error("%s: %s", input, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(sb.st_mode)) {
        psk_trace *t;
        if (psk_trace_open(input, &t)) {
            psk_cli_error("%s", psk_trace_errmsg(t));
            psk_trace_close(t);
            return NULL;
        }
        psk_merge_opts o = {.window = 64, .no_reorder = no_reorder};
        rc = psk_merge(t, &o, &m);
        psk_trace_close(t);
    } else if (psk_merged_is_file(input)) {
        rc = psk_merged_read(input, &m);
    } else {
        psk_cli_error("%s: neither a trace directory nor a merged trace", input);
        return NULL;
    }
    if (rc) {
        psk_cli_error("%s", psk_merged_errmsg(m));
        psk_merged_close(m);
        return NULL;
    }
    return m;
}

int psk_cli_open_machine_trace(const char *machine, const char *input, psk_machine *m, psk_trace **t)
{
    char err[512];
    psk_machine_default(m);
    if (machine && psk_machine_load(machine, m, err, sizeof err)) {
        psk_cli_error("%s", err);
        psk_machine_free(m);
        return -1;
    }
    if (psk_trace_open(input, t)) {
        psk_cli_error("%s", psk_trace_errmsg(*t));
        psk_trace_close(*t);
        psk_machine_free(m);
        return -1;
    }
    return 0;
}
