/* libotf2's error messages kept, not printed: perfskel says an error as
 * one line of its own ("perfskel: FILE: what is wrong"), so the library's
 * multi-line reports are caught for the length of a conversion and the
 * last one is quoted in that line (convert_otf2.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "convert_otf2.h"

static OTF2_ErrorCode keep(void *ud, const char *file, uint64_t line, const char *fn, OTF2_ErrorCode code,
                           const char *fmt, va_list va)
{
    (void)file, (void)line, (void)fn;
    psk_otf2_err *e = ud;
    if (!e)
        return code;
    char msg[400] = "";
    if (fmt)
        vsnprintf(msg, sizeof msg, fmt, va);
    snprintf(e->msg, sizeof e->msg, "%s%s%s", OTF2_Error_GetDescription(code), msg[0] ? ": " : "", msg);
    /* one line: libotf2 messages may hold newlines */
    for (char *p = e->msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return code;
}

void psk_otf2_err_catch(psk_otf2_err *e)
{
    e->msg[0] = 0;
    e->prev = OTF2_Error_RegisterCallback(keep, e);
}

void psk_otf2_err_release(psk_otf2_err *e) { OTF2_Error_RegisterCallback(e->prev, NULL); }
