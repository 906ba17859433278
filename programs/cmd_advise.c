/* perfskel advise: how to distribute a program's arrays and loop nests
 * over P processors (docs/advise.md). Reads the .adv FILE (-D NAME=VALUE
 * overriding its params), the machine (--machine, else the file's
 * `machine`, else this machine's defaults), and prints the best layouts
 * and their costs: text, or --json; --trace DIR also writes a synthetic
 * trace of the plan for `perfskel sim`. Bad input is one line and exit 1;
 * a bad command line, exit 2. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "perfskel/advise.h"

#define MAXDIMS 8 /* ADV_MAXDIM: grid axes at most */

/* a whole decimal number in [lo, hi], or -1 */
static int whole(const char *s, int64_t lo, int64_t hi, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (!*s || *end || errno || x < lo || x > hi)
        return -1;
    *v = x;
    return 0;
}

int cmd_advise(int argc, char **argv)
{
    const char *input = NULL, *machine = NULL, *trace = NULL;
    int json = 0, ndefs = 0;
    int64_t v;
    psk_adv_options o = {0};
    psk_adv_program *p = NULL;
    psk_advice *adv = NULL;
    psk_machine m;
    psk_machine_default(&m);
    psk_adv_define *defs = calloc((size_t)argc, sizeof *defs); /* at most one per argument */
    char **names = calloc((size_t)argc, sizeof *names);
    int rc = PSK_EXIT_USAGE;
    if (!defs || !names) {
        psk_cli_error("out of memory");
        rc = PSK_EXIT_DATA;
        goto out;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "-D", 2) && (a[2] || i + 1 < argc)) {
            const char *def = a[2] ? a + 2 : argv[++i], *eq = strchr(def, '=');
            if (!eq || eq == def || whole(eq + 1, INT64_MIN, INT64_MAX, &v)) {
                psk_cli_usage("advise: -D takes NAME=VALUE, VALUE a whole number, not '%s'", def);
                goto out;
            }
            if (!(names[ndefs] = strndup(def, (size_t)(eq - def)))) {
                psk_cli_error("out of memory");
                rc = PSK_EXIT_DATA;
                goto out;
            }
            defs[ndefs].name = names[ndefs];
            defs[ndefs++].value = v;
        } else if (!strcmp(a, "--procs") && i + 1 < argc) {
            if (whole(argv[++i], 1, INT64_MAX, &o.procs)) {
                psk_cli_usage("advise: --procs takes a whole number of processors, 1 or more, not '%s'", argv[i]);
                goto out;
            }
        } else if (!strcmp(a, "--maxdims") && i + 1 < argc) {
            if (whole(argv[++i], 1, MAXDIMS, &v)) {
                psk_cli_usage("advise: --maxdims takes a whole number from 1 to %d, not '%s'", MAXDIMS, argv[i]);
                goto out;
            }
            o.maxdims = (int)v;
        } else if (!strcmp(a, "--top") && i + 1 < argc) {
            if (whole(argv[++i], 1, 1000, &v)) {
                psk_cli_usage("advise: --top takes a whole number from 1 to 1000, not '%s'", argv[i]);
                goto out;
            }
            o.top = (int)v;
        } else if (!strcmp(a, "--machine") && i + 1 < argc) {
            machine = argv[++i];
        } else if (!strcmp(a, "--trace") && i + 1 < argc) {
            trace = argv[++i];
        } else if (!strcmp(a, "--static")) {
            o.static_only = 1;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (a[0] == '-' && a[1]) {
            psk_cli_usage("advise: unknown option '%s'", a);
            goto out;
        } else if (!input) {
            input = a;
        } else {
            psk_cli_usage("advise: one program file only");
            goto out;
        }
    }
    if (!input) {
        psk_cli_usage("advise: no program given (perfskel advise FILE.adv)");
        goto out;
    }

    rc = PSK_EXIT_DATA;
    if (psk_adv_load(input, defs, ndefs, &p)) {
        psk_cli_error("%s", psk_adv_program_errmsg(p));
        goto out;
    }
    if (!machine)
        machine = psk_adv_program_machine(p);
    if (machine && psk_machine_load(machine, &m)) {
        psk_cli_error("%s", psk_machine_errmsg(&m));
        goto out;
    }
    if (psk_adv_run(p, &m, &o, &adv)) {
        psk_cli_error("%s", psk_advice_errmsg(adv));
        goto out;
    }
    if (trace) {
        char err[1024];
        if (psk_adv_write_trace(adv, trace, err, sizeof err)) {
            psk_cli_error("%s", err);
            goto out;
        }
    }
    if (json)
        psk_adv_write_json(adv, stdout);
    else
        psk_adv_write_text(adv, stdout);
    rc = 0;
    if (fflush(stdout) || ferror(stdout)) {
        psk_cli_error("standard output: cannot write");
        rc = PSK_EXIT_DATA;
    }
out:
    psk_advice_free(adv);
    psk_machine_free(&m);
    psk_adv_program_free(p);
    for (int d = 0; d < ndefs; d++)
        free(names[d]);
    free(names);
    free(defs);
    return rc;
}
