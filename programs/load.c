/* Loading a merged trace for the subcommands that take either a trace
 * directory (merged here, in memory) or a merged-trace file: fold, gen and
 * predict; the same folded (gen, sim); a trace directory; the machine file,
 * alone or with the trace directory, for sim and export; and the clock the
 * subcommands time their work with. Errors are printed as perfskel's one-line messages. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"

void psk_cli_merge_progress(psk_cli_progress *p, psk_merge_opts *o, const char *who, int quiet)
{
    psk_cli_progress_init(p, who, quiet);
    p->unit = "events";
    p->step_count = "merging: reading the ranks' events";
    p->step_total = "merging: writing";
    o->progress = psk_cli_progress_cb;
    o->progress_arg = p;
}

psk_merged *psk_cli_load_merged(const char *input, int no_reorder)
{
    psk_merge_opts o = {.window = 64, .no_reorder = no_reorder};
    psk_cli_progress p;
    psk_cli_merge_progress(&p, &o, NULL, 0);
    psk_merged *m = psk_cli_load_merged_opts(input, &o);
    psk_cli_progress_done(&p);
    return m;
}

/* the shared progress o reports through, or NULL */
static psk_cli_progress *progress_of(const psk_merge_opts *o)
{
    return o && o->progress == psk_cli_progress_cb ? o->progress_arg : NULL;
}

psk_merged *psk_cli_load_merged_opts(const char *input, const psk_merge_opts *o)
{
    struct stat sb;
    psk_merged *m = NULL;
    int rc;
    if (stat(input, &sb)) {
        psk_cli_error("%s: %s", input, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(sb.st_mode)) {
        psk_trace *t = psk_cli_open_trace(input);
        if (!t)
            return NULL;
        rc = psk_merge(t, o, &m);
        psk_trace_close(t);
    } else if (psk_merged_is_file(input)) {
        psk_cli_progress *p = progress_of(o);
        if (p)
            psk_cli_progress_timed(p, "reading the merged trace");
        rc = psk_merged_read(input, &m);
        if (p)
            psk_cli_progress_done(p);
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

psk_folded *psk_cli_load_folded(const char *input, psk_merged **mp)
{
    psk_merge_opts o = {0};
    psk_cli_progress p;
    psk_cli_merge_progress(&p, &o, NULL, 0);
    psk_folded *f = psk_cli_load_folded_opts(input, &o, mp);
    psk_cli_progress_done(&p);
    return f;
}

psk_folded *psk_cli_load_folded_opts(const char *input, const psk_merge_opts *mo, psk_merged **mp)
{
    psk_merge_opts o = {.window = 64, .no_reorder = 1}; /* each rank keeps its own order */
    if (mo)
        o.progress = mo->progress, o.progress_arg = mo->progress_arg;
    psk_merged *m = psk_cli_load_merged_opts(input, &o);
    if (!m)
        return NULL;
    psk_folded *f;
    psk_cli_progress *p = progress_of(mo);
    if (p)
        psk_cli_progress_timed(p, "folding");
    int rc = psk_fold_merged(m, PSK_FOLD_RUNS, &f);
    if (p)
        psk_cli_progress_done(p);
    if (rc) {
        psk_cli_error("%s: %s", input, psk_folded_errmsg(f));
        psk_folded_free(f);
        psk_merged_close(m);
        return NULL;
    }
    *mp = m;
    return f;
}

int psk_cli_load_machine(const char *machine, psk_machine *m)
{
    psk_machine_default(m);
    if (machine && psk_machine_load(machine, m)) {
        psk_cli_error("%s", psk_machine_errmsg(m));
        psk_machine_free(m);
        return -1;
    }
    return 0;
}

psk_trace *psk_cli_open_trace(const char *dir)
{
    psk_trace *t;
    if (psk_trace_open(dir, &t) == PSK_OK)
        return t;
    psk_cli_error("%s", psk_trace_errmsg(t));
    psk_trace_close(t);
    return NULL;
}

int psk_cli_open_machine_trace(const char *machine, const char *input, psk_machine *m, psk_trace **t)
{
    if (psk_cli_load_machine(machine, m))
        return -1;
    if (!(*t = psk_cli_open_trace(input))) {
        psk_machine_free(m);
        return -1;
    }
    return 0;
}

double psk_cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
