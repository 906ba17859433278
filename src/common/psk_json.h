/* A streaming JSON writer onto a FILE: objects, arrays, strings (escaped,
 * valid UTF-8), integers and doubles (in C's notation whatever the
 * process's locale: a program being recorded may have set its own). Keys
 * are given with each value; pass NULL inside arrays. Every JSON perfskel
 * writes goes through it. Three layouts: compact (one line), pretty (a
 * member a line, indented), and spaced (", " and ": " between members on
 * one line, the caller breaking lines where a reader wants them:
 * psk_json_break, psk_json_newline). No allocation. */
#ifndef PSK_JSON_H
#define PSK_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* levels open at once it keeps apart: sim's interval tree nests up to
 * 1000 intervals, two levels each; beyond, the output stays within its
 * buffers but its separators may be wrong */
#define PSK_JSON_MAXDEPTH 4096

enum { PSK_JSON_COMPACT = 0, PSK_JSON_PRETTY = 1, PSK_JSON_SPACED = 2 };

typedef struct psk_json {
    FILE *f;
    int depth;
    int pretty; /* the layout: PSK_JSON_COMPACT, _PRETTY or _SPACED */
    int html;   /* strings escape <, > and & too (JSON inside an HTML page) */
    int keyed;  /* psk_json_key wrote the next value's key */
    unsigned char first[PSK_JSON_MAXDEPTH / 8]; /* per level, a bit: nothing in it yet */
    unsigned char array[PSK_JSON_MAXDEPTH / 8]; /* per level, a bit: '[' (else '{') */
} psk_json;

void psk_json_init(psk_json *j, FILE *f, int pretty);
/* the separator due before the next member, a new line and indent spaces */
void psk_json_break(psk_json *j, int indent);
/* a new line and indent spaces, without a separator (before an end) */
void psk_json_newline(psk_json *j, int indent);
/* key alone, then ':' (no space): the next value, written without a key,
 * is its value (a line break may come between them) */
void psk_json_key(psk_json *j, const char *key);
void psk_json_obj(psk_json *j, const char *key);  /* begin an object */
void psk_json_arr(psk_json *j, const char *key);  /* begin an array */
void psk_json_end(psk_json *j);                   /* end either */
void psk_json_str(psk_json *j, const char *key, const char *s);
void psk_json_int(psk_json *j, const char *key, int64_t v);
void psk_json_uint(psk_json *j, const char *key, uint64_t v);
void psk_json_num(psk_json *j, const char *key, double v);
/* v in the printf conversion fmt for one double ("%.9g": as many digits
 * as a figure has meaning), in C's notation; null if not finite */
void psk_json_numf(psk_json *j, const char *key, const char *fmt, double v);
void psk_json_bool(psk_json *j, const char *key, int v);
void psk_json_null(psk_json *j, const char *key);
/* writes s as a JSON string literal: a byte that is not part of valid
 * UTF-8 (strict: no overlong forms, no surrogates, nothing above
 * U+10FFFF) as U+FFFD, so the file is valid JSON whatever s holds */
void psk_json_quote(FILE *f, const char *s);
/* the length of the valid UTF-8 sequence at p (1-4), 0 if it is not one */
int psk_utf8_seq(const unsigned char *p);
/* how many bytes of s psk_json_quote would replace */
size_t psk_utf8_invalid(const char *s);

#endif
