/* perfskel export: a recorded trace in another tool's format, SimGrid
 * SMPI's time-independent traces (--smpi) or an OTF2 archive (--otf2),
 * through the converters of perfskel/convert.h. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "perfskel/convert.h"

enum { O_SMPI, O_OTF2, O_OUT, O_MACHINE };
static const psk_cli_opt opts[] = {
    [O_SMPI] = {"--smpi", NULL, PSK_OPT_FLAG},
    [O_OTF2] = {"--otf2", NULL, PSK_OPT_FLAG},
    [O_OUT] = {"-o", NULL, PSK_OPT_VALUE},
    [O_MACHINE] = {"--machine", NULL, PSK_OPT_VALUE},
};
const psk_cli_opts cmd_export_opts = {"export", PSK_CLI_OPTS(opts), PSK_CLI_JOB_NONE, NULL, NULL};

int cmd_export(int argc, char **argv)
{
    const char *input = NULL, *out = NULL, *machine = NULL;
    int smpi = 0, otf2 = 0, k;
    psk_cli_args a;
    psk_cli_begin(&a, &cmd_export_opts, argc, argv);
    while ((k = psk_cli_next(&a)) != PSK_CLI_END) {
        if (k == PSK_CLI_STOP)
            return a.status;
        else if (k == O_SMPI)
            smpi = 1;
        else if (k == O_OTF2)
            otf2 = 1;
        else if (k == O_OUT)
            out = a.val;
        else if (k == O_MACHINE)
            machine = a.val;
        else if (!input) /* an operand */
            input = a.val;
        else
            return psk_cli_usage("export: one trace directory only");
    }
    if (smpi + otf2 != 1)
        return psk_cli_usage("export: say which format (--smpi or --otf2)");
    if (otf2) {
        if (!input || !out)
            return psk_cli_usage("export: perfskel export --otf2 DIR -o OUTDIR");
        if (machine)
            return psk_cli_usage("export: --machine is for --smpi");
        return psk_cli_convert(psk_convert_export_otf2, input, out, "export", 0);
    }
    if (!input || !out)
        return psk_cli_usage("export: perfskel export --smpi DIR -o OUTDIR [--machine FILE]");
    psk_machine m;
    psk_trace *t;
    if (psk_cli_open_machine_trace(machine, input, &m, &t))
        return PSK_EXIT_DATA;
    int P = psk_trace_job(t)->nranks;
    char err[4096];
    int rc = psk_convert_export_smpi(t, input, &m, out, err, sizeof err) ? PSK_EXIT_DATA : 0;
    if (rc)
        psk_cli_error("%s", err);
    if (!rc)
        printf("SMPI traces of %d ranks in %s; replay with:\n  cd %s && smpirun -np %d -platform platform.xml "
               "-hostfile hostfile -replay traces.txt\n", P, out, out, P);
    psk_trace_close(t);
    psk_machine_free(&m);
    return rc;
}
