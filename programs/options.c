/* Reading a command line by the command's table of options (cli.h,
 * psk_cli_opts): main's normalise step (`--opt=value` into `--opt value`,
 * -h/--help found) and each command's parser (psk_cli_next, one option or
 * operand at a time, like getopt) read the same table, so the options a
 * command accepts, those main splits and those its --help lists (tested by
 * tests/cli/options_help.sh) are one list. An argument is an option if it
 * starts with '-' and is not "-" alone. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int is_option(const char *s) { return s[0] == '-' && s[1]; }

/* the entry named by the first n bytes of name (its name or alias), or NULL */
static const psk_cli_opt *find(const psk_cli_opts *o, const char *name, size_t n)
{
    for (int k = 0; k < o->n; k++) {
        const psk_cli_opt *p = &o->opt[k];
        if ((strlen(p->name) == n && !strncmp(p->name, name, n)) ||
            (p->alias && strlen(p->alias) == n && !strncmp(p->alias, name, n)))
            return p;
    }
    return NULL;
}

/* 1 if the options end at s, an operand (record, tune: the launcher) */
static int ends_at(const psk_cli_opts *o, const char *s)
{
    return o->job == PSK_CLI_JOB_AT && !is_option(s);
}

int psk_cli_normalise(const psk_cli_opts *o, int argc, char **argv, char ***out, int *outc, int *help)
{
    char **a = calloc(2 * (size_t)argc + 1, sizeof *a);
    if (!a)
        return psk_cli_error("out of memory"), PSK_EXIT_DATA;
    int n = 0, i = 0, opts = 1;
    a[n++] = argv[i++];
    for (; i < argc; i++) {
        const char *s = argv[i];
        if (!opts || !strcmp(s, "--") || ends_at(o, s)) {
            opts = 0; /* the job and its arguments, untouched */
            a[n++] = argv[i];
            continue;
        }
        if (!strcmp(s, "--help") || !strcmp(s, "-h"))
            *help = 1;
        if (!is_option(s)) {
            a[n++] = argv[i];
            continue;
        }
        const char *eq = s[1] == '-' ? strchr(s, '=') : NULL;
        size_t len = eq ? (size_t)(eq - s) : strlen(s);
        const psk_cli_opt *p = find(o, s, len);
        int value = p && (p->kind & PSK_OPT_VALUE);
        if (!eq) {
            a[n++] = argv[i];
            if (value && i + 1 < argc)
                a[n++] = argv[++i]; /* its value, whatever it looks like */
            continue;
        }
        if (value) {
            char *name = strndup(s, len);
            if (!name)
                return free(a), psk_cli_error("out of memory"), PSK_EXIT_DATA;
            a[n++] = name;
            a[n++] = (char *)eq + 1;
            continue;
        }
        free(a);
        if (p || (len == 6 && !strncmp(s, "--help", 6)))
            return psk_cli_usage("%s: %.*s takes no value ('%s')", o->cmd, (int)len, s, s);
        return psk_cli_usage("%s: unknown option '%.*s' ('%s')", o->cmd, (int)len, s, s);
    }
    a[n] = NULL;
    *out = a;
    *outc = n;
    return 0;
}

void psk_cli_begin(psk_cli_args *a, const psk_cli_opts *o, int argc, char **argv)
{
    *a = (psk_cli_args){.o = o, .argc = argc, .argv = argv, .i = 1};
}

int psk_cli_next(psk_cli_args *a)
{
    const psk_cli_opts *o = a->o;
    a->val = a->val2 = NULL;
    if (a->i >= a->argc)
        return PSK_CLI_END;
    const char *s = a->argv[a->i];
    if (o->job && !strcmp(s, "--")) {
        a->i++;
        return PSK_CLI_END;
    }
    if (ends_at(o, s))
        return PSK_CLI_END;
    a->i++;
    if (!is_option(s)) {
        a->val = s;
        return PSK_CLI_OPERAND;
    }
    if (o->help && (!strcmp(s, "-h") || !strcmp(s, "--help"))) {
        fputs(o->help, stdout);
        a->status = 0;
        return PSK_CLI_STOP;
    }
    for (int k = 0; k < o->n; k++) {
        const psk_cli_opt *p = &o->opt[k];
        size_t len = strlen(p->name);
        if ((p->kind & PSK_OPT_GLUED) && !strncmp(s, p->name, len) && s[len]) {
            a->val = s + len; /* -DNAME=VALUE */
            return k;
        }
        if (strcmp(s, p->name) && (!p->alias || strcmp(s, p->alias)))
            continue;
        if (!(p->kind & PSK_OPT_VALUE))
            return k;
        if (a->i >= a->argc)
            break; /* its value missing: said as today, an unknown option */
        a->val = a->argv[a->i++];
        if ((p->kind & PSK_OPT_MORE) && a->i < a->argc && a->argv[a->i][0] != '-')
            a->val2 = a->argv[a->i++];
        return k;
    }
    a->status = psk_cli_usage("%s: unknown option '%s'%s", o->cmd, s, o->lacks ? o->lacks : "");
    return PSK_CLI_STOP;
}
