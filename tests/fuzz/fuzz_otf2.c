/* libFuzzer target: perfskel import --otf2 (archives of other people's
 * tools, untrusted). The input is an archive's files joined by the 8 bytes
 * "\0PSKFILE": the global definitions traces.def, then for locations 0, 1,
 * ... (at most 8) its events K.evt and local definitions K.def (an empty
 * one: no file). The anchor is fixed: fuzzed, it found only libotf2's own
 * leaks and huge allocations. The reader of perfskel import --otf2
 * (psk_convert_import_otf2) imports it, and what it accepted must read
 * back whole. The
 * stages after the reader are fuzz_trace's (here they halved the speed). */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"
#include "perfskel/convert.h"
#include "perfskel/trace.h"

#define MAXLOC 8

/* the anchor of otf2_writer.py's archive (libotf2 3.0, POSIX files, no
 * compression), both chunk sizes set to 256 KiB, the least libotf2 takes:
 * it clears a chunk-sized buffer per file it reads */
static const uint8_t anchor[72] = {
    0x03, 0x42, 0x4f, 0x54, 0x46, 0x32, 0x00, 0x03, 0x02, 0x03, 0x00, 0x02, 0x00, 0x00, 0x04, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x04, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0xf1, 0x59, 0x38, 0x69, 0x69, 0x48, 0x2d, 0xc0, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x01, 0x00};

/* PSK_FUZZ_VERBOSE=1: what became of each input on stderr (why a seed is
 * refused); quiet otherwise */
static int verbose(void)
{
    static int v = -1;
    if (v < 0)
        v = getenv("PSK_FUZZ_VERBOSE") != NULL;
    return v;
}

/* the files of the previous input gone (the archive's and the import's) */
static void clear(const char *sub)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), sub);
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));) {
        char f[4500];
        snprintf(f, sizeof f, "%s/%s", path, e->d_name);
        struct stat sb;
        if (e->d_name[0] != '.' && !stat(f, &sb) && S_ISREG(sb.st_mode))
            remove(f);
    }
    if (d)
        closedir(d);
}

static void read_back(const char *out)
{
    psk_trace *t = NULL;
    if (psk_trace_open(out, &t)) {
        fprintf(stderr, "fuzz_otf2: the import's trace refused: %s\n", psk_trace_errmsg(t));
        abort();
    }
    const psk_job *job = psk_trace_job(t);
    for (int r = 0; r < job->nranks; r++) {
        psk_rank_reader *rr = NULL;
        psk_event ev;
        int rc = psk_rank_open(t, r, &rr);
        while (rc == PSK_OK && (rc = psk_rank_next(rr, &ev)) == PSK_OK)
            ;
        if (rc != PSK_EOF) {
            fprintf(stderr, "fuzz_otf2: rank %d of the import's trace refused: %s\n", r, psk_rank_errmsg(rr));
            abort();
        }
        psk_rank_close(rr);
    }
    if (verbose())
        fprintf(stderr, "fuzz_otf2: imported %d ranks\n", job->nranks);
    psk_trace_close(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    char a[4200], out[4200];
    snprintf(a, sizeof a, "%s/a", fuzz_dir());
    snprintf(out, sizeof out, "%s/out", fuzz_dir());
    if (!once) {
        char t[4300];
        snprintf(t, sizeof t, "%s/traces", a);
        if ((mkdir(a, 0700) && errno != EEXIST) || (mkdir(t, 0700) && errno != EEXIST))
            abort();
        once = 1;
    }
    clear("a");
    clear("a/traces");
    clear("out");
    fuzz_file("a/traces.otf2", anchor, sizeof anchor);
    fuzz_piece p[1 + 2 * MAXLOC];
    int np = fuzz_split(data, size, p, 1 + 2 * MAXLOC);
    for (int k = 0; k < np; k++) {
        char name[64];
        if (k == 0)
            snprintf(name, sizeof name, "a/traces.def");
        else
            snprintf(name, sizeof name, "a/traces/%d.%s", (k - 1) / 2, k % 2 ? "evt" : "def");
        if (k == 0 || p[k].n)
            fuzz_file(name, p[k].data, p[k].n);
    }
    strcat(a, "/traces.otf2");
    char err[4096];
    if (psk_convert_import_otf2(a, out, NULL, err, sizeof err) == PSK_OK)
        read_back(out);
    else if (verbose())
        fprintf(stderr, "perfskel: %s\n", err);
    return 0;
}
