/* perfskel import: a trace of another tool as a perfskel trace directory,
 * so that merge, fold, sim and gen run on it. --otf2 ANCHOR reads an OTF2
 * archive (perfskel/convert.h). */
#include <string.h>

#include "cli.h"
#include "perfskel/convert.h"

int cmd_import(int argc, char **argv)
{
    const char *input = NULL, *out = NULL;
    int otf2 = 0, quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--otf2"))
            otf2 = 1;
        else if (!strcmp(argv[i], "-q"))
            quiet = 1;
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (argv[i][0] == '-')
            return psk_cli_usage("import: unknown option '%s'", argv[i]);
        else if (!input)
            input = argv[i];
        else
            return psk_cli_usage("import: one archive only");
    }
    if (!otf2)
        return psk_cli_usage("import: say which format (--otf2)");
    if (!input || !out)
        return psk_cli_usage("import: perfskel import --otf2 ANCHOR.otf2 -o DIR");
    return psk_cli_convert(psk_convert_import_otf2, input, out, "import", quiet);
}
