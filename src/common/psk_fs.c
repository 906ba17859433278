/* File-system helpers (psk_fs.h): psk_mkdir_p creates a directory and
 * its missing parents, as mkdir -p does, and returns 0 or an errno value
 * (never prints: the recorder and the CLI say what went wrong). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "psk_fs.h"

int psk_mkdir_p(const char *dir)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp)
        return ENAMETOOLONG;
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0777) && errno != EEXIST)
                return errno;
            *p = '/';
        }
    if (mkdir(tmp, 0777) && errno != EEXIST)
        return errno;
    return 0;
}
