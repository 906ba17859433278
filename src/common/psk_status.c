/* psk_status: the text for each status code of include/perfskel/common.h
 * (psk_strstatus), for callers' messages. Every code has its text; any
 * other value is "unknown error". */
#include "perfskel/common.h"

const char *psk_strstatus(int status)
{
    switch (status) {
    case PSK_OK: return "success";
    case PSK_ENOMEM: return "out of memory";
    case PSK_EIO: return "input/output error";
    case PSK_EFORMAT: return "corrupt or not a perfskel file";
    case PSK_ETRUNCATED: return "truncated";
    case PSK_EMISMATCH: return "files do not belong together";
    case PSK_EVERSION: return "unsupported format version";
    case PSK_EINVAL: return "invalid argument";
    case PSK_ENOTFOUND: return "not found";
    case PSK_EOF: return "end of data";
    }
    return "unknown error";
}
