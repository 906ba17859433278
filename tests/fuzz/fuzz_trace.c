/* libFuzzer target: a trace directory. The input is the job.json and the
 * rank files one after another, each introduced by the 8 bytes
 * "\0PSKFILE" (the corpus bench/fuzz.sh makes from recorded traces); it
 * becomes job.json, rank-000000.psk, rank-000001.psk, ... Every rank's
 * events are read; an accepted trace is merged (each rank in its own
 * order, as gen and sim take it), simulated event by event, and taken
 * through the stages after the merge. */
#include <stdio.h>
#include <string.h>

#include "fuzz_common.h"
#include "perfskel/sim.h"
#include "perfskel/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char name[32];
    /* clear the files of the previous input */
    for (int r = 0; r < 8; r++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/rank-%06d.psk", fuzz_dir(), r);
        remove(path);
    }
    fuzz_piece p[9];
    int np = fuzz_split(data, size, p, 9);
    for (int k = 0; k < np; k++) {
        if (k == 0)
            fuzz_file("job.json", p[k].data, p[k].n);
        else {
            snprintf(name, sizeof name, "rank-%06d.psk", k - 1);
            fuzz_file(name, p[k].data, p[k].n);
        }
    }
    psk_trace *t = NULL;
    if (psk_trace_open(fuzz_dir(), &t) == 0) {
        const psk_job *job = psk_trace_job(t);
        int ok = 1;
        for (int r = 0; r < job->nranks && r < 8; r++) {
            psk_rank_reader *rr = NULL;
            psk_event ev;
            if (psk_rank_open(t, r, &rr) == 0)
                while (psk_rank_next(rr, &ev) == PSK_OK)
                    ;
            else
                ok = 0;
            psk_rank_close(rr);
        }
        if (ok && job->nranks <= 8) {
            psk_machine mach;
            psk_machine_default(&mach);
            psk_sim_opts so = {.machine = &mach};
            psk_sim *s = NULL;
            psk_sim_run(t, &so, &s);
            psk_sim_close(s);
            psk_machine_free(&mach);
            psk_merge_opts mo = {.window = 64, .no_reorder = 1};
            psk_merged *m = NULL;
            if (psk_merge(t, &mo, &m) == 0)
                fuzz_after_merge(m);
            psk_merged_close(m);
        }
    }
    psk_trace_close(t);
    return 0;
}
