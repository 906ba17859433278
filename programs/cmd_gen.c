/* perfskel gen: the performance skeleton of a recorded job (seed 001 §4),
 * one readable C file that compiles with any MPI's mpicc and runs with the
 * recorded number of ranks. The trace is merged without reordering (each
 * rank keeps its own order, so the skeleton is deadlock-free where the
 * original was), folded, and written out with loops scaled down K times. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "perfskel/gen.h"

int psk_cli_make_skeleton(const char *input, int K, FILE *out, const char *outname)
{
    psk_merged *m;
    psk_folded *f = psk_cli_load_folded(input, &m); /* each rank keeps its own order */
    if (!f)
        return PSK_EXIT_DATA;
    int rc = psk_folded_stats(f, m);
    if (rc) {
        psk_cli_error("%s: %s", input, psk_folded_errmsg(f));
        psk_folded_free(f);
        psk_merged_close(m);
        return PSK_EXIT_DATA;
    }
    char err[512];
    psk_gen_opts go = {.K = K};
    rc = psk_gen_skeleton(m, f, &go, out, err, sizeof err);
    psk_folded_free(f);
    psk_merged_close(m);
    if (rc) {
        psk_cli_error("%s: %s", input, err);
        return PSK_EXIT_DATA;
    }
    if (ferror(out)) {
        psk_cli_error("%s: cannot write", outname);
        return PSK_EXIT_DATA;
    }
    return 0;
}

int psk_cli_parse_k(const char *s, int *K)
{
    char *end;
    long k = strtol(s, &end, 10);
    if (*end || k < 1 || k > 1000000)
        return -1;
    *K = (int)k;
    return 0;
}

int cmd_gen(int argc, char **argv)
{
    const char *input = NULL, *out = "skeleton.c";
    int K = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-K") && i + 1 < argc) {
            if (psk_cli_parse_k(argv[++i], &K))
                return psk_cli_usage("gen: -K takes a whole number of at least 1, not '%s'", argv[i]);
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return psk_cli_usage("gen: unknown option '%s'", argv[i]);
        } else if (!input) {
            input = argv[i];
        } else {
            return psk_cli_usage("gen: one input only");
        }
    }
    if (!input)
        return psk_cli_usage("gen: no trace directory given");
    if (!K)
        return psk_cli_usage("gen: -K N is needed (loops run count/N times)");
    FILE *f = strcmp(out, "-") ? fopen(out, "w") : stdout;
    if (!f) {
        psk_cli_error("%s: %s", out, strerror(errno));
        return PSK_EXIT_DATA;
    }
    int rc = psk_cli_make_skeleton(input, K, f, out);
    if (f != stdout && fclose(f) && !rc) {
        psk_cli_error("%s: cannot write", out);
        rc = PSK_EXIT_DATA;
    }
    if (rc && f != stdout)
        remove(out);
    else if (f != stdout)
        fprintf(stderr, "perfskel: skeleton written to %s\n", out);
    return rc;
}
