/* Streaming JSON writer (psk_json.h). Non-finite doubles become null, as
 * JSON has no NaN; finite doubles are written so they read back exactly.
 * Control characters are escaped as \u00XX, bytes that are not UTF-8
 * replaced by U+FFFD. */
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psk_json.h"

/* bit d of a per-level bitset (levels beyond PSK_JSON_MAXDEPTH share the last) */
static int bit(const unsigned char *set, int d)
{
    d = d < PSK_JSON_MAXDEPTH ? d : PSK_JSON_MAXDEPTH - 1;
    return set[d >> 3] >> (d & 7) & 1;
}

static void set_bit(unsigned char *set, int d, int v)
{
    d = d < PSK_JSON_MAXDEPTH ? d : PSK_JSON_MAXDEPTH - 1;
    set[d >> 3] = (unsigned char)((set[d >> 3] & ~(1u << (d & 7))) | (unsigned)(v != 0) << (d & 7));
}

static void pre(psk_json *j, const char *key);
static void quote(FILE *f, const char *s, int html);

void psk_json_init(psk_json *j, FILE *f, int pretty)
{
    j->f = f;
    j->depth = 0;
    j->pretty = pretty;
    j->html = 0;
    j->keyed = 0;
    set_bit(j->first, 0, 1);
}

void psk_json_break(psk_json *j, int n)
{
    if (j->depth > 0 && !bit(j->first, j->depth))
        fputc(',', j->f);
    set_bit(j->first, j->depth, 1); /* the separator is written */
    psk_json_newline(j, n);
}

void psk_json_key(psk_json *j, const char *key)
{
    pre(j, NULL);
    quote(j->f, key, j->html);
    fputc(':', j->f);
    j->keyed = 1;
}

void psk_json_newline(psk_json *j, int n)
{
    fprintf(j->f, "\n%*s", n, "");
}

int psk_utf8_seq(const unsigned char *p)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    for (int k = 1; k < n; k++)
        if ((p[k] & 0xc0) != 0x80)
            return 0; /* also stops at the terminating 0 */
    if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) || /* overlong; a surrogate */
        (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))   /* overlong; above U+10FFFF */
        return 0;
    return n;
}

size_t psk_utf8_invalid(const char *s)
{
    size_t bad = 0;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
        int n = psk_utf8_seq(p);
        bad += !n;
        p += n ? n : 1;
    }
    return bad;
}

static void quote(FILE *f, const char *s, int html)
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
            if (*p < 0x20 || (html && (*p == '<' || *p == '>' || *p == '&'))) {
                fprintf(f, "\\u%04x", *p);
            } else if (*p >= 0x80) {
                int n = psk_utf8_seq(p);
                if (!n)
                    fputs("\\ufffd", f);
                else
                    fwrite(p, 1, (size_t)n, f);
                p += n ? n - 1 : 0;
            } else {
                fputc(*p, f);
            }
        }
    }
    fputc('"', f);
}

void psk_json_quote(FILE *f, const char *s) { quote(f, s, 0); }

static void indent(psk_json *j)
{
    if (j->pretty != PSK_JSON_PRETTY)
        return;
    fputc('\n', j->f);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->f);
}

/* separator, indentation and key before a value */
static void pre(psk_json *j, const char *key)
{
    if (j->keyed) { /* psk_json_key wrote them */
        j->keyed = 0;
        return;
    }
    if (j->depth > 0) {
        if (!bit(j->first, j->depth))
            fputs(j->pretty == PSK_JSON_SPACED ? ", " : ",", j->f);
        set_bit(j->first, j->depth, 0);
        indent(j);
    }
    if (key) {
        quote(j->f, key, j->html);
        fputs(j->pretty ? ": " : ":", j->f);
    }
}

static void open_(psk_json *j, const char *key, int c)
{
    pre(j, key);
    fputc(c, j->f);
    j->depth++;
    set_bit(j->first, j->depth, 1);
    set_bit(j->array, j->depth, c == '[');
}

void psk_json_obj(psk_json *j, const char *key) { open_(j, key, '{'); }
void psk_json_arr(psk_json *j, const char *key) { open_(j, key, '['); }

void psk_json_end(psk_json *j)
{
    if (j->depth <= 0)
        return; /* nothing open */
    int empty = bit(j->first, j->depth);
    char c = bit(j->array, j->depth) ? ']' : '}';
    j->depth--;
    if (!empty)
        indent(j);
    fputc(c, j->f);
    if (j->depth == 0 && j->pretty == PSK_JSON_PRETTY)
        fputc('\n', j->f);
}

void psk_json_str(psk_json *j, const char *key, const char *s)
{
    pre(j, key);
    quote(j->f, s, j->html);
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

/* buf written with the locale's decimal point: with a '.' instead */
static void c_notation(char *buf)
{
    const char *dp = localeconv()->decimal_point;
    char *at = dp && *dp && strcmp(dp, ".") ? strstr(buf, dp) : NULL;
    if (at) {
        size_t n = strlen(dp);
        *at = '.';
        memmove(at + 1, at + n, strlen(at + n) + 1);
    }
}

void psk_json_num(psk_json *j, const char *key, double v)
{
    pre(j, key);
    if (!isfinite(v)) {
        fputs("null", j->f);
        return;
    }
    /* the shortest of %.15g and %.17g that reads back as the same double
     * (both in the locale's notation), then with a '.' for the locale's
     * decimal point */
    char buf[48];
    snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, sizeof buf, "%.17g", v);
    c_notation(buf);
    fputs(buf, j->f);
}

void psk_json_numf(psk_json *j, const char *key, const char *fmt, double v)
{
    pre(j, key);
    if (!isfinite(v)) {
        fputs("null", j->f);
        return;
    }
    char buf[400];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(buf, sizeof buf, fmt, v);
#pragma GCC diagnostic pop
    c_notation(buf);
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
