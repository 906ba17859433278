/* libFuzzer target: a job.json as the trace reader parses it
 * (psk_jobdoc_parse). Any input must be accepted or refused cleanly; its
 * corpus of regressions is tests/fuzz/regress/job, replayed by ctest. */
#include "fuzz_common.h"
#include "perfskel/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    psk_jobdoc *d = NULL;
    psk_jobdoc_parse((const char *)data, size, "job.json", &d);
    psk_jobdoc_close(d);
    return 0;
}
