/* The .adv reader's lexer (docs/advise.md "The language"), and what the
 * grammar (advise_expr.c, advise_parse.c) stands on: the one token of
 * lookahead, the names table (open addressing on FNV-1a), and the one
 * "PATH:LINE:COL: what" message a mistake leaves for its offending token.
 * The text is untrusted: every read is bounded by its length (NUL bytes are
 * just bad characters), so no input can make the lexer read past it. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"

/* ---- names: open addressing on FNV-1a ---- */

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

adv_sym *psk_adv_sym_lookup(const adv_symtab *t, const char *name)
{
    if (!t->cap)
        return NULL;
    for (size_t i = hash(name) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        if (!t->slot[i].name[0])
            return NULL;
        if (!strcmp(t->slot[i].name, name))
            return &t->slot[i];
    }
}

/* adds a name known to be absent; -1 if memory ran out */
int psk_adv_sym_insert(adv_symtab *t, const char *name, int kind, int index, int line, int col)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        adv_sym *s = calloc(cap, sizeof *s);
        if (!s)
            return -1;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slot[i].name[0])
                continue;
            size_t j = hash(t->slot[i].name) & (cap - 1);
            while (s[j].name[0])
                j = (j + 1) & (cap - 1);
            s[j] = t->slot[i];
        }
        free(t->slot);
        t->slot = s;
        t->cap = cap;
    }
    size_t j = hash(name) & (t->cap - 1);
    while (t->slot[j].name[0])
        j = (j + 1) & (t->cap - 1);
    snprintf(t->slot[j].name, ADV_NAME, "%s", name);
    t->slot[j].kind = kind, t->slot[j].index = index, t->slot[j].line = line, t->slot[j].col = col;
    t->n++;
    return 0;
}

/* ---- keywords, and the messages of mistakes ---- */

static const char *const keywords[] = {
    "param", "procs", "maxdims", "machine", "repeat", "maxshadow", "array", "scalar", "nest",
    "for", "par", "seq", "across", "count", "work", "readonly", "bytes",
    "char", "int", "float", "long", "double", "complex",
};

int psk_adv_is_keyword(const char *s)
{
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
        if (!strcmp(s, keywords[i]))
            return 1;
    return 0;
}

/* "PATH:LINE:COL: message" at token t; -1 */
int psk_adv_fail(adv_parser *ps, const adv_token *t, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(ps->p->errmsg, sizeof ps->p->errmsg, "%s:%d:%d: %s", ps->p->path, t->line, t->col, msg);
    ps->rc = PSK_EINVAL;
    return -1;
}

int psk_adv_oom(adv_parser *ps)
{
    snprintf(ps->p->errmsg, sizeof ps->p->errmsg, "%s: out of memory", ps->p->path);
    ps->rc = PSK_ENOMEM;
    return -1;
}

/* ---- the lexer: pure, from (pos, line, col) to the next token ---- */

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
/* a '.' that does not start `..` */
static int lone_dot(const unsigned char *s, size_t i, size_t n) { return s[i] == '.' && !(i + 1 < n && s[i + 1] == '.'); }

static void lex(const adv_parser *ps, size_t *pos, int *line, int *col, adv_token *t)
{
    const unsigned char *s = (const unsigned char *)ps->src;
    size_t i = *pos, n = ps->len;
    int ln = *line, cl = *col;
    for (;;) { /* blanks and comments */
        if (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v')) {
            i++, cl++;
        } else if (i < n && s[i] == '\n') {
            i++, ln++, cl = 1;
        } else if (i < n && (s[i] == '#' || (s[i] == '/' && i + 1 < n && s[i + 1] == '/'))) {
            while (i < n && s[i] != '\n')
                i++, cl++;
        } else {
            break;
        }
    }
    memset(t, 0, sizeof *t);
    t->line = ln, t->col = cl, t->start = i;
    size_t b = i;
    if (i >= n) {
        t->type = ADV_T_EOF;
    } else if (is_alpha(s[i])) {
        while (i < n && (is_alpha(s[i]) || is_digit(s[i])))
            i++;
        if (i - b >= ADV_NAME) {
            t->type = ADV_T_ERR, t->err = "name too long (at most 63 characters)";
        } else {
            t->type = ADV_T_IDENT;
            memcpy(t->text, s + b, i - b);
        }
    } else if (is_digit(s[i])) {
        t->type = ADV_T_INT;
        for (; i < n && is_digit(s[i]); i++)
            if (__builtin_mul_overflow(t->value, 10, &t->value) ||
                __builtin_add_overflow(t->value, s[i] - '0', &t->value))
                t->overflow = 1;
        if (i < n && s[i] == '.' && !(i + 1 < n && s[i + 1] == '.')) { /* 1.5, not 1..N */
            t->type = ADV_T_NUM;
            for (i++; i < n && is_digit(s[i]); i++)
                ;
        }
        if (i < n && (s[i] == 'e' || s[i] == 'E')) {
            size_t e = i + 1;
            if (e < n && (s[e] == '+' || s[e] == '-'))
                e++;
            if (e < n && is_digit(s[e])) {
                t->type = ADV_T_NUM;
                for (i = e; i < n && is_digit(s[i]); i++)
                    ;
            }
        }
        if (i < n && (is_alpha(s[i]) || is_digit(s[i]) || lone_dot(s, i, n))) {
            while (i < n && (is_alpha(s[i]) || is_digit(s[i]) || lone_dot(s, i, n)))
                i++;
            t->type = ADV_T_ERR, t->err = "bad number";
        }
    } else if (s[i] == '"') {
        for (i++; i < n && s[i] != '"' && s[i] != '\n' && s[i]; i++)
            ;
        if (i >= n || s[i] != '"') {
            t->type = ADV_T_ERR, t->err = "unterminated string";
        } else {
            t->type = ADV_T_STR;
            i++;
        }
    } else {
        int two = i + 1 < n ? s[i + 1] : 0;
        i++;
        switch (s[i - 1]) {
        case '.':
            if (two == '.')
                t->type = ADV_T_DOTDOT, i++;
            else
                t->type = ADV_T_ERR, t->err = "unexpected character", t->errc = '.';
            break;
        case '+': case '-': case '*': case '/':
            if (two == '=') {
                t->type = s[i - 1] == '+'   ? ADV_T_ADDEQ
                          : s[i - 1] == '-' ? ADV_T_SUBEQ
                          : s[i - 1] == '*' ? ADV_T_MULEQ
                                            : ADV_T_DIVEQ;
                i++;
            } else {
                t->type = s[i - 1];
            }
            break;
        case ';': case '[': case ']': case '(': case ')': case '{': case '}': case ',': case '=': case '%':
            t->type = s[i - 1];
            break;
        default:
            t->type = ADV_T_ERR, t->err = "unexpected character", t->errc = s[i - 1];
        }
    }
    t->len = i - b;
    *col = cl + (int)(i - b), *line = ln, *pos = i;
}

int psk_adv_advance(adv_parser *ps)
{
    lex(ps, &ps->pos, &ps->line, &ps->col, &ps->cur);
    if (ps->cur.type != ADV_T_ERR)
        return 0;
    const adv_token *t = &ps->cur;
    if (t->errc || !strcmp(t->err, "unexpected character")) {
        unsigned char c = t->errc;
        if (c > 0x20 && c < 0x7f)
            return psk_adv_fail(ps, t, "unexpected character '%c'", c);
        return psk_adv_fail(ps, t, "unexpected character '\\x%02x'", c);
    }
    int shown = t->len > 40 ? 40 : (int)t->len;
    if (!strcmp(t->err, "bad number"))
        return psk_adv_fail(ps, t, "bad number '%.*s%s'", shown, ps->src + t->start, shown < (int)t->len ? "..." : "");
    return psk_adv_fail(ps, t, "%s", t->err);
}

int psk_adv_peek(const adv_parser *ps)
{
    size_t pos = ps->pos;
    int line = ps->line, col = ps->col;
    adv_token t;
    lex(ps, &pos, &line, &col, &t);
    return t.type;
}

int psk_adv_is_word(const adv_parser *ps, const char *w)
{
    return ps->cur.type == ADV_T_IDENT && !strcmp(ps->cur.text, w);
}

const char *psk_adv_describe(const adv_parser *ps, const adv_token *t, char *buf, size_t cap)
{
    switch (t->type) {
    case ADV_T_EOF: return "end of file";
    case ADV_T_IDENT:
        if (snprintf(buf, cap, "'%s'", t->text) < 0)
            buf[0] = 0;
        return buf;
    case ADV_T_STR: return "a string";
    case ADV_T_INT: case ADV_T_NUM: {
        int shown = t->len > 24 ? 24 : (int)t->len;
        snprintf(buf, cap, "'%.*s'", shown, ps->src + t->start);
        return buf;
    }
    default: {
        int shown = t->len > 2 ? 2 : (int)t->len;
        snprintf(buf, cap, "'%.*s'", shown, ps->src + t->start);
        return buf;
    }
    }
}

/* consumes a token of type `type` or says what was expected instead */
int psk_adv_expect(adv_parser *ps, int type, const char *what)
{
    if (ps->cur.type != type) {
        char buf[64];
        return psk_adv_fail(ps, &ps->cur, "expected %s, not %s", what, psk_adv_describe(ps, &ps->cur, buf, sizeof buf));
    }
    return psk_adv_advance(ps);
}
