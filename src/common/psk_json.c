/* Streaming JSON writer (psk_json.h). Non-finite doubles become null, as
 * JSON has no NaN; finite doubles are written so they read back exactly.
 * Control characters are escaped as \u00XX. */
#include <math.h>
#include <stdlib.h>

#include "psk_json.h"

void psk_json_init(psk_json *j, FILE *f, int pretty)
{
    j->f = f;
    j->depth = 0;
    j->pretty = pretty;
    j->first[0] = 1;
}

void psk_json_quote(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

static void indent(psk_json *j)
{
    if (!j->pretty)
        return;
    fputc('\n', j->f);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->f);
}

/* separator, indentation and key before a value */
static void pre(psk_json *j, const char *key)
{
    if (j->depth > 0) {
        if (!j->first[j->depth])
            fputc(',', j->f);
        j->first[j->depth] = 0;
        indent(j);
    }
    if (key) {
        psk_json_quote(j->f, key);
        fputs(j->pretty ? ": " : ":", j->f);
    }
}

static void open_(psk_json *j, const char *key, int c)
{
    pre(j, key);
    fputc(c, j->f);
    if (j->depth + 1 < PSK_JSON_MAXDEPTH)
        j->depth++;
    j->first[j->depth] = 1;
    j->kind[j->depth] = (char)c;
}

void psk_json_obj(psk_json *j, const char *key) { open_(j, key, '{'); }
void psk_json_arr(psk_json *j, const char *key) { open_(j, key, '['); }

void psk_json_end(psk_json *j)
{
    int empty = j->first[j->depth];
    char c = j->kind[j->depth] == '[' ? ']' : '}';
    j->depth--;
    if (!empty)
        indent(j);
    fputc(c, j->f);
    if (j->depth == 0 && j->pretty)
        fputc('\n', j->f);
}

void psk_json_str(psk_json *j, const char *key, const char *s)
{
    pre(j, key);
    psk_json_quote(j->f, s);
}

void psk_json_int(psk_json *j, const char *key, int64_t v)
{
    pre(j, key);
    fprintf(j->f, "%lld", (long long)v);
}

void psk_json_uint(psk_json *j, const char *key, uint64_t v)
{
    pre(j, key);
    fprintf(j->f, "%llu", (unsigned long long)v);
}

void psk_json_num(psk_json *j, const char *key, double v)
{
    pre(j, key);
    if (!isfinite(v)) {
        fputs("null", j->f);
        return;
    }
    /* the shortest of %.15g and %.17g that reads back as the same double */
    char buf[32];
    snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, sizeof buf, "%.17g", v);
    fputs(buf, j->f);
}

void psk_json_bool(psk_json *j, const char *key, int v)
{
    pre(j, key);
    fputs(v ? "true" : "false", j->f);
}

void psk_json_null(psk_json *j, const char *key)
{
    pre(j, key);
    fputs("null", j->f);
}
