/* libFuzzer target: a machine file as perfskel sim parses it
 * (psk_machine_parse). A file it accepts must give sim finite, non-negative
 * poll and message costs; regressions live in tests/fuzz/regress/machine. */
#include "fuzz_common.h"
#include "perfskel/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    psk_machine m;
    psk_machine_default(&m);
    if (psk_machine_parse((const char *)data, size, "fuzz.par", &m) == 0) {
        /* what sim asks of a machine it accepted */
        static const double gaps[] = {0, 1, 99.5, 1e9};
        for (unsigned i = 0; i < sizeof gaps / sizeof *gaps; i++)
            if (!(psk_machine_poll_us(&m, gaps[i]) >= 0))
                __builtin_trap();
        psk_machine_msg_us(&m, 4096, 0);
    }
    psk_machine_free(&m);
    return 0;
}
