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

enum { O_DEFINE, O_PROCS, O_MAXDIMS, O_MACHINE, O_TOP, O_STATIC, O_JSON, O_TRACE };
static const psk_cli_opt opts[] = {
    [O_DEFINE] = {"-D", NULL, PSK_OPT_VALUE | PSK_OPT_GLUED}, /* again: another param */
    [O_PROCS] = {"--procs", NULL, PSK_OPT_VALUE},
    [O_MAXDIMS] = {"--maxdims", NULL, PSK_OPT_VALUE},
    [O_MACHINE] = {"--machine", NULL, PSK_OPT_VALUE},
    [O_TOP] = {"--top", NULL, PSK_OPT_VALUE},
    [O_STATIC] = {"--static", NULL, PSK_OPT_FLAG},
    [O_JSON] = {"--json", NULL, PSK_OPT_FLAG},
    [O_TRACE] = {"--trace", NULL, PSK_OPT_VALUE},
};
const psk_cli_opts cmd_advise_opts = {"advise", PSK_CLI_OPTS(opts), PSK_CLI_JOB_NONE, NULL, NULL};

int cmd_advise(int argc, char **argv)
{
    const char *input = NULL, *machine = NULL, *trace = NULL;
    int json = 0, ndefs = 0, k;
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
    psk_cli_args a;
    psk_cli_begin(&a, &cmd_advise_opts, argc, argv);
    while ((k = psk_cli_next(&a)) != PSK_CLI_END) {
        if (k == PSK_CLI_STOP) {
            rc = a.status;
            goto out;
        } else if (k == O_DEFINE) {
            const char *def = a.val, *eq = strchr(def, '=');
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
        } else if (k == O_PROCS) {
            if (whole(a.val, 1, INT64_MAX, &o.procs)) {
                psk_cli_usage("advise: --procs takes a whole number of processors, 1 or more, not '%s'", a.val);
                goto out;
            }
        } else if (k == O_MAXDIMS) {
            if (whole(a.val, 1, MAXDIMS, &v)) {
                psk_cli_usage("advise: --maxdims takes a whole number from 1 to %d, not '%s'", MAXDIMS, a.val);
                goto out;
            }
            o.maxdims = (int)v;
        } else if (k == O_TOP) {
            if (whole(a.val, 1, 1000, &v)) {
                psk_cli_usage("advise: --top takes a whole number from 1 to 1000, not '%s'", a.val);
                goto out;
            }
            o.top = (int)v;
        } else if (k == O_MACHINE) {
            machine = a.val;
        } else if (k == O_TRACE) {
            trace = a.val;
        } else if (k == O_STATIC) {
            o.static_only = 1;
        } else if (k == O_JSON) {
            json = 1;
        } else if (!input) { /* an operand */
            input = a.val;
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
