/* libFuzzer target: a machine file as perfskel sim parses it. */
#include "fuzz_common.h"
#include "perfskel/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    psk_machine m;
    psk_machine_default(&m);
    psk_machine_parse((const char *)data, size, "fuzz.par", &m);
    psk_machine_free(&m);
    return 0;
}
