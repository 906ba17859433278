#include "otf2_cli.h"
int psk_cli_import_otf2(const char *anchor, const char *out, int quiet) { (void)anchor, (void)out, (void)quiet; return 1; }
