/* Huge pages for perfskel's own memory. A merge or a replay of many ranks
 * holds hundreds of MB in small blocks, a few a rank, touched in no order
 * a cache or a TLB could follow: with 4 KB pages nearly every touch is a
 * page walk too, dear on a VM. glibc's malloc asks the kernel for
 * transparent huge pages only when glibc.malloc.hugetlb=1 is among the
 * GLIBC_TUNABLES it reads at start-up, so perfskel starts itself again,
 * once, with that added, and puts the environment back as it was given
 * before it runs anything else: programs it starts get it unchanged.
 * Huge pages reach the main arena only, not the arenas glibc gives other
 * threads: where a command's threads are the merge's two that read the
 * rank files (holding every rank's events) glibc.malloc.arena_max=1 is
 * added too; not for advise, whose search threads allocate as they go
 * and would wait on one another.
 * Started again through /proc/self/exe the process would be named "exe"
 * (what ps, top and pgrep show): it takes its name back from argv[0].
 * Nothing is done when the kernel gives no huge pages, when the caller set
 * glibc.malloc.hugetlb already, or with PERFSKEL_HUGEPAGES=0 (under
 * valgrind, say, which does not follow the new start). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cli.h"

#define TUNABLE "glibc.malloc.hugetlb=1"
#define ONE_ARENA ":glibc.malloc.arena_max=1"
#define WAS "PERFSKEL_GLIBC_TUNABLES_WAS" /* "-": unset; else '=' and its value */

/* 1 if the kernel gives transparent huge pages when asked */
static int kernel_has_thp(void)
{
    char buf[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f)
        return 0;
    int ok = fgets(buf, sizeof buf, f) && !strstr(buf, "[never]");
    fclose(f);
    return ok;
}

/* GLIBC_TUNABLES as it was given (was: the saved form) */
static void restore(const char *was)
{
    if (!strcmp(was, "-"))
        unsetenv("GLIBC_TUNABLES");
    else
        setenv("GLIBC_TUNABLES", was + 1, 1);
}

void psk_cli_hugepages(char **argv, int one_arena)
{
    const char *was = getenv(WAS);
    if (was) { /* started again: tunables read, the environment as given */
        restore(was);
        unsetenv(WAS);
        const char *name = argv[0] ? strrchr(argv[0], '/') : NULL;
        name = name ? name + 1 : argv[0];
        if (name && *name)
            prctl(PR_SET_NAME, name, 0, 0, 0); /* the kernel keeps its first 15 bytes */
        return;
    }
    const char *no = getenv("PERFSKEL_HUGEPAGES"), *t = getenv("GLIBC_TUNABLES");
    if ((no && !strcmp(no, "0")) || (t && strstr(t, "glibc.malloc.hugetlb")) || !kernel_has_thp())
        return;
    size_t n = t ? strlen(t) : 0;
    char *saved = malloc(n + 2), *now = malloc(n + sizeof TUNABLE + sizeof ONE_ARENA);
    if (!saved || !now) {
        free(saved), free(now);
        return;
    }
    if (t)
        saved[0] = '=', memcpy(saved + 1, t, n + 1);
    else
        strcpy(saved, "-");
    if (n)
        memcpy(now, t, n), now[n] = ':', memcpy(now + n + 1, TUNABLE, sizeof TUNABLE);
    else
        strcpy(now, TUNABLE);
    if (one_arena && !(t && strstr(t, "glibc.malloc.arena_max")))
        strcat(now, ONE_ARENA);
    if (!setenv(WAS, saved, 1) && !setenv("GLIBC_TUNABLES", now, 1))
        execv("/proc/self/exe", argv);
    /* could not start again (no /proc, say): on with 4 KB pages */
    restore(saved);
    unsetenv(WAS);
    free(saved), free(now);
}
