/* libotf2's error messages kept, not printed: perfskel says errors as one
 * line of its own ("perfskel: FILE: what is wrong"), so the library's
 * multi-line reports to stderr are caught here and the last one is
 * quoted in that line (otf2_cli.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <otf2/otf2.h>

#include "otf2_cli.h"

static char lasterr[512];

static OTF2_ErrorCode keep(void *ud, const char *file, uint64_t line, const char *fn, OTF2_ErrorCode code,
                           const char *fmt, va_list va)
{
    (void)ud, (void)file, (void)line, (void)fn;
    char msg[400] = "";
    if (fmt)
        vsnprintf(msg, sizeof msg, fmt, va);
    snprintf(lasterr, sizeof lasterr, "%s%s%s", OTF2_Error_GetDescription(code), msg[0] ? ": " : "", msg);
    /* one line: libotf2 messages may hold newlines */
    for (char *p = lasterr; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return code;
}

void psk_otf2_quiet(void) { OTF2_Error_RegisterCallback(keep, NULL); }
const char *psk_otf2_lasterr(void) { return lasterr; }
void psk_otf2_clearerr(void) { lasterr[0] = 0; }
