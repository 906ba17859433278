/* The recorder's clock (psk_now in record_call.h): CLOCK_MONOTONIC
 * nanoseconds, read from the x86 TSC when the CPU says it is invariant
 * (constant_tsc and nonstop_tsc in /proc/cpuinfo) and the kernel itself
 * keeps time with it; otherwise clock_gettime. The TSC rate is measured
 * against CLOCK_MONOTONIC over 2 ms at start, then re-measured over the
 * whole run at every re-anchoring, so its error shrinks as the run goes on.
 * Re-anchoring never lets the clock step backwards. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record_call.h"

psk_clock psk_clk;

static uint64_t tsc_start, mono_start;

#if defined(__x86_64__)
static int tsc_trusted(void)
{
    const char *want = getenv("PSK_CLOCK"); /* "monotonic" forces clock_gettime */
    if (want && strcmp(want, "tsc") != 0)
        return 0;
    char buf[64] = {0};
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (!f)
        return 0;
    int ok = fgets(buf, sizeof buf, f) && strncmp(buf, "tsc", 3) == 0;
    fclose(f);
    if (!ok || !(f = fopen("/proc/cpuinfo", "r")))
        return 0;
    char line[4096];
    int constant = 0, nonstop = 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "flags", 5)) {
            constant = strstr(line, " constant_tsc") != NULL;
            nonstop = strstr(line, " nonstop_tsc") != NULL;
            break;
        }
    fclose(f);
    return constant && nonstop;
}

/* one (tsc, mono) pair, taken as close together as the machine allows */
static void pair(uint64_t *tsc, uint64_t *mono)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t a = __builtin_ia32_rdtsc(), m = psk_mono_ns(), b = __builtin_ia32_rdtsc();
        if (b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *mono = m;
        }
    }
}
#endif

void psk_clock_init(void)
{
    psk_clk.use_tsc = 0;
#if defined(__x86_64__)
    if (!tsc_trusted())
        return;
    uint64_t t1 = 0, m1 = 0;
    pair(&tsc_start, &mono_start);
    do
        pair(&t1, &m1);
    while (m1 - mono_start < 2000000);
    if (t1 <= tsc_start)
        return;
    psk_clk.mult = (uint64_t)(((unsigned __int128)(m1 - mono_start) << 32) / (t1 - tsc_start));
    psk_clk.tsc0 = t1;
    psk_clk.mono0 = m1;
    psk_clk.use_tsc = 1;
#endif
}

void psk_clock_reanchor(void)
{
#if defined(__x86_64__)
    if (!psk_clk.use_tsc)
        return;
    uint64_t t = 0, m = 0;
    pair(&t, &m);
    uint64_t before = psk_now();
    if (t <= tsc_start || m <= mono_start)
        return;
    psk_clk.mult = (uint64_t)(((unsigned __int128)(m - mono_start) << 32) / (t - tsc_start));
    psk_clk.tsc0 = t;
    psk_clk.mono0 = m > before ? m : before; /* never backwards */
#endif
}
