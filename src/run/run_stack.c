/* Composing perfskel record and perfskel tune on one command line, as
 * one does with `time` or `nice`:
 *   perfskel record [-o DIR] -- perfskel tune [--force ARM ...] -- mpirun ...
 * (or tune outside and record inside: the same job). The outer command
 * sees that it runs perfskel's other command: it preloads nothing, notes
 * its role, its --mpi and the variables its library needs in the
 * environment (PSK_STACK_OUTER, PSK_STACK_MPI, PSK_STACK_ENV) and runs the
 * inner one, which preloads both libraries into the ranks, the recorder
 * first (the order in which the recorder sees the tuned collectives and
 * their arms: docs/tune.md, "Recording a tuned job"), and passes both
 * commands' variables on. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfskel/common.h"
#include "perfskel/trace.h"
#include "run_internal.h"

/* 1 if prog is this perfskel */
static int is_self(const char *prog)
{
    char a[PATH_MAX], b[PATH_MAX];
    if (!xrun_which(prog, a, sizeof a))
        return 0;
    return realpath("/proc/self/exe", b) && !strcmp(a, b);
}

int psk_run_stack_is_outer(char **cmd, int ncmd)
{
    return ncmd >= 2 && (!strcmp(cmd[1], "record") || !strcmp(cmd[1], "tune")) && is_self(cmd[0]);
}

int psk_run_stack_run(const char *role, int flavour, char **cmd, const char *const *names, int nnames, int *status,
                      char *err, size_t errcap)
{
    size_t len = 1;
    for (int k = 0; k < nnames; k++)
        len += strlen(names[k]) + 1;
    char *list = malloc(len);
    if (!list) {
        *status = 127;
        snprintf(err, errcap, "out of memory");
        return PSK_ENOMEM;
    }
    list[0] = 0;
    for (int k = 0; k < nnames; k++)
        strcat(strcat(list, k ? "," : ""), names[k]);
    setenv("PSK_STACK_OUTER", role, 1);
    setenv("PSK_STACK_ENV", list, 1);
    if (flavour)
        setenv("PSK_STACK_MPI", psk_flavour_name(flavour), 1);
    else
        unsetenv("PSK_STACK_MPI");
    free(list);
    psk_run_launch l = {.argv = cmd};
    return psk_run_launch_run(&l, status, err, errcap);
}

int psk_run_stack_mpi(void)
{
    const char *m = getenv("PSK_STACK_OUTER") ? getenv("PSK_STACK_MPI") : NULL;
    return m ? psk_run_mpi_named(m) : 0;
}

int psk_run_stack_inner(const char *role, int flavour, const char *lib, char *libs, size_t cap,
                        const char *const *names, int nnames, const char ***all, int *nall, char *err, size_t errcap)
{
    const char *outer = getenv("PSK_STACK_OUTER"), *env = getenv("PSK_STACK_ENV");
    int nouter = 0;
    if (outer && env && *env) {
        nouter = 1;
        for (const char *c = env; *c; c++)
            nouter += *c == ',';
    }
    *all = calloc((size_t)(nnames + nouter) + 1, sizeof **all);
    if (!*all) {
        snprintf(err, errcap, "out of memory");
        return PSK_ENOMEM;
    }
    for (*nall = 0; *nall < nnames; ++*nall)
        (*all)[*nall] = names[*nall];
    if (!outer) {
        snprintf(libs, cap, "%s", lib);
        return PSK_OK;
    }
    if (strcmp(outer, "record") && strcmp(outer, "tune")) {
        free(*all), *all = NULL;
        snprintf(err, errcap, "%s: PSK_STACK_OUTER is '%s', not record or tune", role, outer);
        return PSK_EINVAL;
    }
    if (!strcmp(outer, role)) {
        free(*all), *all = NULL;
        snprintf(err, errcap, "%s: perfskel %s inside perfskel %s: give it once", role, role, outer);
        return PSK_EINVAL;
    }
    char other[PATH_MAX], name[64];
    snprintf(name, sizeof name, "libperfskel-%s-%s.so", outer, psk_flavour_name(flavour));
    if (psk_run_find_library(name, other, sizeof other)) {
        free(*all), *all = NULL;
        snprintf(err, errcap, "%s: library of the outer perfskel %s not found next to perfskel (set PERFSKEL_LIBDIR)",
                 name, outer);
        return PSK_ENOTFOUND;
    }
    int record_outside = !strcmp(outer, "record");
    if (snprintf(libs, cap, "%s:%s", record_outside ? other : lib, record_outside ? lib : other) >= (int)cap) {
        free(*all), *all = NULL;
        snprintf(err, errcap, "%s: library paths too long", role);
        return PSK_EINVAL;
    }
    /* the outer command's variables, named in a copy kept until perfskel
     * exits (the job's launch refers to the names) */
    char *copy = env ? strdup(env) : NULL;
    if (env && !copy) {
        free(*all), *all = NULL;
        snprintf(err, errcap, "out of memory");
        return PSK_ENOMEM;
    }
    for (char *p = copy ? strtok(copy, ",") : NULL; p; p = strtok(NULL, ","))
        (*all)[(*nall)++] = p;
    unsetenv("PSK_STACK_OUTER");
    unsetenv("PSK_STACK_MPI");
    unsetenv("PSK_STACK_ENV");
    return PSK_OK;
}
