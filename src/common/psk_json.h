/* A streaming JSON writer onto a FILE: objects, arrays, strings (escaped,
 * valid UTF-8), integers and doubles (in C's notation whatever the
 * process's locale: a program being recorded may have set its own). Keys are given with each value; pass NULL inside
 * arrays. Compact output (one line) unless pretty is set. No allocation. */
#ifndef PSK_JSON_H
#define PSK_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PSK_JSON_MAXDEPTH 32

typedef struct psk_json {
    FILE *f;
    int depth;
    int pretty;
    unsigned char first[PSK_JSON_MAXDEPTH];
    char kind[PSK_JSON_MAXDEPTH]; /* '{' or '[' of each open level */
} psk_json;

void psk_json_init(psk_json *j, FILE *f, int pretty);
void psk_json_obj(psk_json *j, const char *key);  /* begin an object */
void psk_json_arr(psk_json *j, const char *key);  /* begin an array */
void psk_json_end(psk_json *j);                   /* end either */
void psk_json_str(psk_json *j, const char *key, const char *s);
void psk_json_int(psk_json *j, const char *key, int64_t v);
void psk_json_uint(psk_json *j, const char *key, uint64_t v);
void psk_json_num(psk_json *j, const char *key, double v);
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
