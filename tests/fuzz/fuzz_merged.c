/* libFuzzer target: a merged-trace file (.pskm, docs/merged-format.md),
 * read and, if accepted, expanded, folded, generated and simulated
 * (fuzz_after_merge); regressions live in tests/fuzz/regress/merged. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    psk_merged *m = NULL;
    if (psk_merged_read(fuzz_file("in.pskm", data, size), &m) == 0)
        fuzz_after_merge(m);
    psk_merged_close(m);
    return 0;
}
