/* The unit of emulated computation: `perfskel record` times it on every
 * rank in MPI_Init (job.json "work"), and `perfskel gen` writes the same
 * loop into each skeleton, so a compute gap of g ns recorded on a rank
 * becomes g / ns_per_unit units of work, which a slower CPU runs
 * proportionally longer. A dependent chain of multiply-adds on doubles:
 * no vectorisation, no memory traffic, nothing a compiler may delete (the
 * result goes to a volatile). PSK_WORK_SOURCE is the same code as text. */
#ifndef PSK_WORK_H
#define PSK_WORK_H

#include <stdint.h>

#define PSK_WORK_KERNEL "fma-chain-1"

#define PSK_WORK_SOURCE                                                        \
    "static volatile double psk_work_sink = 1.0;\n"                            \
    "static void psk_work(uint64_t units)\n"                                   \
    "{\n"                                                                      \
    "    double x = psk_work_sink, y = 0.5;\n"                                 \
    "    for (uint64_t i = 0; i < units; i++) {\n"                            \
    "        x = x * 0.9999999 + y;\n"                                         \
    "        y = y * 0.9999998 + 1e-9;\n"                                      \
    "    }\n"                                                                  \
    "    psk_work_sink = x + y;\n"                                             \
    "}\n"

static volatile double psk_work_sink = 1.0;
static inline void psk_work(uint64_t units)
{
    double x = psk_work_sink, y = 0.5;
    for (uint64_t i = 0; i < units; i++) {
        x = x * 0.9999999 + y;
        y = y * 0.9999998 + 1e-9;
    }
    psk_work_sink = x + y;
}

/* The kernel's speed, timed the same way by the recorder (MPI_Init),
 * `perfskel calibrate` and skeletons (on the recording host): 31 timings
 * of 100,000 units; t[0] the mean of the middle 19 in ns per unit (not the
 * best: where the CPU's speed wanders, work runs at the usual speed),
 * t[1] and t[2] the quartiles (the 8th and 24th). now_ns: a clock in ns.
 * PSK_WORK_TIME_SOURCE is the same code as text, for programs built from
 * text (after PSK_WORK_SOURCE). */
#define PSK_WORK_TIME_SOURCE                                                   \
    "static void psk_work_time(double (*now_ns)(void), double t[3])\n"         \
    "{\n"                                                                      \
    "    double cal[31], a;\n"                                                 \
    "    for (int i = 0; i < 31; i++) {\n"                                     \
    "        a = now_ns();\n"                                                  \
    "        psk_work(100000);\n"                                              \
    "        cal[i] = (now_ns() - a) / 100000.0;\n"                            \
    "    }\n"                                                                  \
    "    for (int i = 1; i < 31; i++)\n"                                       \
    "        for (int j = i; j > 0 && cal[j] < cal[j - 1]; j--) {\n"           \
    "            a = cal[j];\n"                                                \
    "            cal[j] = cal[j - 1];\n"                                       \
    "            cal[j - 1] = a;\n"                                            \
    "        }\n"                                                              \
    "    t[0] = 0;\n"                                                          \
    "    for (int i = 6; i < 25; i++)\n"                                       \
    "        t[0] += cal[i] / 19;\n"                                           \
    "    t[1] = cal[7], t[2] = cal[23];\n"                                     \
    "}\n"

static inline void psk_work_time(double (*now_ns)(void), double t[3])
{
    double cal[31], a;
    for (int i = 0; i < 31; i++) {
        a = now_ns();
        psk_work(100000);
        cal[i] = (now_ns() - a) / 100000.0;
    }
    for (int i = 1; i < 31; i++)
        for (int j = i; j > 0 && cal[j] < cal[j - 1]; j--) {
            a = cal[j];
            cal[j] = cal[j - 1];
            cal[j - 1] = a;
        }
    t[0] = 0;
    for (int i = 6; i < 25; i++)
        t[0] += cal[i] / 19;
    t[1] = cal[7], t[2] = cal[23];
}

/* How many kernel units make want_ns of work when the work is timed (two
 * clock readings of clk_ns each around it) and a unit takes ns_per_unit:
 * never negative, and never more than want_ns alone asks for, whatever the
 * clock's cost was measured to be (a rank descheduled while timing its
 * clock must not turn a piece of work into an endless one).
 * PSK_WORK_UNITS_SOURCE is the same code as text. */
#define PSK_WORK_UNITS_SOURCE                                                  \
    "static uint64_t psk_work_units(double want_ns, double clk_ns, double ns_per_unit)\n" \
    "{\n"                                                                      \
    "    double k;\n"                                                          \
    "    if (!(ns_per_unit > 0) || !(want_ns > 0))\n"                          \
    "        return 0;\n"                                                      \
    "    if (!(clk_ns > 0))\n"                                                 \
    "        clk_ns = 0;\n"                                                    \
    "    k = (want_ns - 2 * clk_ns) / ns_per_unit;\n"                          \
    "    if (!(k > 0))\n"                                                      \
    "        return 0;\n"                                                      \
    "    if (k > 1.8e19)\n"                                                    \
    "        k = 1.8e19;\n"                                                    \
    "    return (uint64_t)(k + 0.5);\n"                                        \
    "}\n"

static inline uint64_t psk_work_units(double want_ns, double clk_ns, double ns_per_unit)
{
    double k;
    if (!(ns_per_unit > 0) || !(want_ns > 0))
        return 0;
    if (!(clk_ns > 0))
        clk_ns = 0;
    k = (want_ns - 2 * clk_ns) / ns_per_unit;
    if (!(k > 0))
        return 0;
    if (k > 1.8e19)
        k = 1.8e19;
    return (uint64_t)(k + 0.5);
}

#endif
