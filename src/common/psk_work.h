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

#endif
