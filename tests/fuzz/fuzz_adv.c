/* libFuzzer target: a .adv program as perfskel advise reads it, and, when
 * the reader accepts it, the advice on it (on a bus, at most 64
 * processors and 30000 processor-iterations, so that one input stays
 * small) written as text and JSON:
 * a crash, a sanitizer report or a hang anywhere there is a finding. */
#include <stdio.h>

#include "fuzz_common.h"
#include "perfskel/advise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    psk_adv_program *p = NULL;
    if (psk_adv_parse((const char *)data, size, "fuzz.adv", NULL, 0, &p) == 0) {
        psk_machine m;
        psk_machine_default(&m);
        m.type = PSK_NET_BUS;
        psk_adv_options o = {0, 0, 3, 0, 0, 0};
        o.procs = 1 + (int64_t)(size % 64);
        /* a search of 30000 processor-iterations takes up to a second
         * here with coverage and sanitizers (the LU example at 60
         * processors, 675000, 20 s): larger ones are refused, as a user's
         * beyond PSK_ADV_MAX_STEPS are */
        o.max_steps = 30000;
        psk_advice *a = NULL;
        if (psk_adv_run(p, &m, &o, &a) == 0) {
            FILE *null = fopen("/dev/null", "w");
            if (null) {
                psk_adv_write_text(a, null);
                psk_adv_write_json(a, null);
                fclose(null);
            }
        } else if (!psk_advice_errmsg(a)[0])
            __builtin_trap(); /* a failure says why */
        psk_advice_free(a);
    }
    psk_adv_program_free(p);
    return 0;
}
