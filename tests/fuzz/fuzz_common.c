/* What the libFuzzer targets share (fuzz_common.h): a private temporary
 * directory for the files an input becomes, the split of one input into
 * files at each "\0PSKFILE", and the stages run on what a reader accepted
 * (expand, fold, statistics, gen and sim into /dev/null). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "perfskel/gen.h"
#include "perfskel/sim.h"

static char dir[PATH_MAX];

const char *fuzz_dir(void)
{
    if (!dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/psk-fuzz-XXXXXX", t ? t : "/tmp");
        if (!mkdtemp(dir))
            abort();
    }
    return dir;
}

int fuzz_split(const uint8_t *data, size_t size, fuzz_piece *p, int max)
{
    int k = 0;
    for (size_t at = 0; at <= size && k < max;) {
        const uint8_t *next = size - at >= 8 ? memmem(data + at, size - at, "\0PSKFILE", 8) : NULL;
        size_t end = next ? (size_t)(next - data) : size;
        p[k++] = (fuzz_piece){data + at, end - at};
        if (!next)
            break;
        at = end + 8;
    }
    return k;
}

const char *fuzz_file(const char *name, const uint8_t *data, size_t n)
{
    static char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f))
        abort();
    return path;
}

static int count(void *arg, const psk_event *ev)
{
    (void)ev;
    ++*(uint64_t *)arg;
    return 0;
}

void fuzz_after_merge(psk_merged *m)
{
    uint64_t n = 0;
    for (int r = 0; r < psk_merged_nranks(m); r++)
        psk_merged_expand(m, r, count, &n);
    psk_folded *f = NULL;
    if (psk_fold_merged(m, PSK_FOLD_RUNS, &f) == 0 && psk_folded_stats(f, m) == 0) {
        FILE *null = fopen("/dev/null", "w");
        psk_gen_opts go = {.K = 10};
        psk_gen *g = NULL;
        int grc = null ? psk_gen_open(m, f, &go, &g) : PSK_OK;
        if (grc == PSK_OK && g)
            grc = psk_gen_write(g, null);
        if (grc && g && !strcmp(psk_gen_errmsg(g), "no error"))
            abort(); /* every failure has its reason */
        psk_gen_close(g);
        if (null)
            fclose(null);
        psk_machine mach;
        psk_machine_default(&mach);
        psk_sim_opts so = {.machine = &mach, .loop_intervals = 1};
        psk_sim *s = NULL;
        if (psk_sim_run_folded(m, f, &so, &s) == 0) {
            FILE *out = fopen("/dev/null", "w");
            if (out) {
                psk_sim_write_text(s, out, 0);
                psk_sim_write_json(s, out, &mach);
                fclose(out);
            }
        }
        psk_sim_close(s);
        psk_machine_free(&mach);
    }
    psk_folded_free(f);
}
