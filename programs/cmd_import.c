/* perfskel import: a trace of another tool as a perfskel trace directory,
 * so that merge, fold, sim and gen run on it. --otf2 ANCHOR reads an OTF2
 * archive (perfskel/convert.h). */
#include <string.h>

#include "cli.h"
#include "perfskel/convert.h"

enum { O_OTF2, O_OUT, O_QUIET };
static const psk_cli_opt opts[] = {
    [O_OTF2] = {"--otf2", NULL, PSK_OPT_FLAG},
    [O_OUT] = {"-o", NULL, PSK_OPT_VALUE},
    [O_QUIET] = {"-q", NULL, PSK_OPT_FLAG},
};
const psk_cli_opts cmd_import_opts = {"import", PSK_CLI_OPTS(opts), PSK_CLI_JOB_NONE, NULL, NULL};

int cmd_import(int argc, char **argv)
{
    const char *input = NULL, *out = NULL;
    int otf2 = 0, quiet = 0, k;
    psk_cli_args a;
    psk_cli_begin(&a, &cmd_import_opts, argc, argv);
    while ((k = psk_cli_next(&a)) != PSK_CLI_END) {
        if (k == PSK_CLI_STOP)
            return a.status;
        else if (k == O_OTF2)
            otf2 = 1;
        else if (k == O_QUIET)
            quiet = 1;
        else if (k == O_OUT)
            out = a.val;
        else if (!input) /* an operand */
            input = a.val;
        else
            return psk_cli_usage("import: one archive only");
    }
    if (!otf2)
        return psk_cli_usage("import: say which format (--otf2)");
    if (!input || !out)
        return psk_cli_usage("import: perfskel import --otf2 ANCHOR.otf2 -o DIR");
    return psk_cli_convert(psk_convert_import_otf2, input, out, "import", quiet);
}
