/* What every converter of src/convert shares: its error line (one line
 * written into the caller's buffer) and its progress, said through the
 * caller's psk_convert_opts callback. Converters never print. */
#ifndef PSK_CONVERT_INTERNAL_H
#define PSK_CONVERT_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>

#include "perfskel/convert.h"

/* err (cap bytes) says fmt */
static inline void psk_convert_fail(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline void psk_convert_fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

/* step at done of total (step NULL: it ended), if the caller asked */
static inline void psk_convert_progress(const psk_convert_opts *o, const char *step, uint64_t done, uint64_t total)
{
    if (o->progress)
        o->progress(o->progress_arg, step, done, total);
}

#endif
