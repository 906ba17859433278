/* The .adv reader of perfskel advise: a hand-written lexer and a
 * recursive-descent parser for the language of docs/advise.md, filling the
 * psk_adv_program of advise_internal.h. The text is untrusted: every read
 * is bounded by its length (NUL bytes are just bad characters), nesting and
 * sizes are capped, integer arithmetic is overflow-checked, and every
 * mistake is one "PATH:LINE:COL: what" message for the offending token.
 * Names are declared before use, in one pass; subscripts and loop bounds
 * become adv_affine forms over the nest's loops. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"

#define MAXTEXT (16u << 20) /* a program description is tiny: beyond this it is not one */
#define MAXDECL 10000       /* params, arrays, scalars, nests each */
#define MAXREFS 200000      /* array references in the whole program */
#define MAXSTMTS 100000     /* statements in the whole program */
#define MAXDEPTH 200        /* nested parentheses, calls and subscripts */
#define NUMLEN 64           /* the longest decimal we read as a value */

/* ---- tokens ---- */

/* single-character tokens are their character; the others: */
enum {
    T_EOF = 256, T_IDENT, T_INT, T_NUM, T_STR, T_DOTDOT,
    T_ADDEQ, T_SUBEQ, T_MULEQ, T_DIVEQ, T_ERR
};

typedef struct token {
    int type;
    int line, col;
    size_t start, len;     /* in the text */
    char text[ADV_NAME];   /* T_IDENT */
    int64_t value;         /* T_INT */
    int overflow;          /* T_INT beyond int64 */
    const char *err;       /* T_ERR: what is wrong */
    unsigned char errc;    /* T_ERR: the character, for "unexpected" */
} token;

/* ---- names: open addressing on FNV-1a ---- */

enum { SYM_PARAM = 1, SYM_ARRAY, SYM_SCALAR, SYM_NEST, SYM_LOOPVAR };

typedef struct sym {
    char name[ADV_NAME]; /* "" : empty slot */
    int kind, index, line, col;
} sym;

typedef struct symtab {
    sym *slot;
    size_t cap, n;
} symtab;

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static sym *lookup(const symtab *t, const char *name)
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
static int insert(symtab *t, const char *name, int kind, int index, int line, int col)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        sym *s = calloc(cap, sizeof *s);
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

/* ---- the parser's state ---- */

typedef struct parser {
    const char *src;
    size_t len;
    size_t pos;            /* the lexer, just after cur */
    int line, col;
    token cur;
    psk_adv_program *p;
    const psk_adv_define *defs;
    int ndefs;
    char *used;            /* per define: a param took it */
    symtab names;          /* params, arrays, scalars: one namespace */
    symtab nests, loopvars;/* nest names; every loop variable seen (for "out of scope") */
    int depth;
    int64_t nrefs, nstmts;
    int reads_cap;         /* of the statement being read */
    int have_procs, have_maxdims, have_machine, have_repeat, have_maxshadow;
    int rc;
} parser;

static const char *const keywords[] = {
    "param", "procs", "maxdims", "machine", "repeat", "maxshadow", "array", "scalar", "nest",
    "for", "par", "seq", "across", "count", "work", "readonly", "bytes",
    "char", "int", "float", "long", "double", "complex",
};

static int is_keyword(const char *s)
{
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
        if (!strcmp(s, keywords[i]))
            return 1;
    return 0;
}

/* "PATH:LINE:COL: message" at token t; -1 */
static int fail(parser *ps, const token *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(parser *ps, const token *t, const char *fmt, ...)
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

static int oom(parser *ps)
{
    snprintf(ps->p->errmsg, sizeof ps->p->errmsg, "%s: out of memory", ps->p->path);
    ps->rc = PSK_ENOMEM;
    return -1;
}

#define TRY(x)            \
    do {                  \
        if ((x) < 0)      \
            return -1;    \
    } while (0)

/* ---- the lexer: pure, from (pos, line, col) to the next token ---- */

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
/* a '.' that does not start `..` */
static int lone_dot(const unsigned char *s, size_t i, size_t n) { return s[i] == '.' && !(i + 1 < n && s[i + 1] == '.'); }

static void lex(const parser *ps, size_t *pos, int *line, int *col, token *t)
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
        t->type = T_EOF;
    } else if (is_alpha(s[i])) {
        while (i < n && (is_alpha(s[i]) || is_digit(s[i])))
            i++;
        if (i - b >= ADV_NAME) {
            t->type = T_ERR, t->err = "name too long (at most 63 characters)";
        } else {
            t->type = T_IDENT;
            memcpy(t->text, s + b, i - b);
        }
    } else if (is_digit(s[i])) {
        t->type = T_INT;
        for (; i < n && is_digit(s[i]); i++)
            if (__builtin_mul_overflow(t->value, 10, &t->value) ||
                __builtin_add_overflow(t->value, s[i] - '0', &t->value))
                t->overflow = 1;
        if (i < n && s[i] == '.' && !(i + 1 < n && s[i + 1] == '.')) { /* 1.5, not 1..N */
            t->type = T_NUM;
            for (i++; i < n && is_digit(s[i]); i++)
                ;
        }
        if (i < n && (s[i] == 'e' || s[i] == 'E')) {
            size_t e = i + 1;
            if (e < n && (s[e] == '+' || s[e] == '-'))
                e++;
            if (e < n && is_digit(s[e])) {
                t->type = T_NUM;
                for (i = e; i < n && is_digit(s[i]); i++)
                    ;
            }
        }
        if (i < n && (is_alpha(s[i]) || is_digit(s[i]) || lone_dot(s, i, n))) {
            while (i < n && (is_alpha(s[i]) || is_digit(s[i]) || lone_dot(s, i, n)))
                i++;
            t->type = T_ERR, t->err = "bad number";
        }
    } else if (s[i] == '"') {
        for (i++; i < n && s[i] != '"' && s[i] != '\n' && s[i]; i++)
            ;
        if (i >= n || s[i] != '"') {
            t->type = T_ERR, t->err = "unterminated string";
        } else {
            t->type = T_STR;
            i++;
        }
    } else {
        int two = i + 1 < n ? s[i + 1] : 0;
        i++;
        switch (s[i - 1]) {
        case '.':
            if (two == '.')
                t->type = T_DOTDOT, i++;
            else
                t->type = T_ERR, t->err = "unexpected character", t->errc = '.';
            break;
        case '+': case '-': case '*': case '/':
            if (two == '=') {
                t->type = s[i - 1] == '+' ? T_ADDEQ : s[i - 1] == '-' ? T_SUBEQ : s[i - 1] == '*' ? T_MULEQ : T_DIVEQ;
                i++;
            } else {
                t->type = s[i - 1];
            }
            break;
        case ';': case '[': case ']': case '(': case ')': case '{': case '}': case ',': case '=': case '%':
            t->type = s[i - 1];
            break;
        default:
            t->type = T_ERR, t->err = "unexpected character", t->errc = s[i - 1];
        }
    }
    t->len = i - b;
    *col = cl + (int)(i - b), *line = ln, *pos = i;
}

static int advance(parser *ps)
{
    lex(ps, &ps->pos, &ps->line, &ps->col, &ps->cur);
    if (ps->cur.type != T_ERR)
        return 0;
    const token *t = &ps->cur;
    if (t->errc || !strcmp(t->err, "unexpected character")) {
        unsigned char c = t->errc;
        if (c > 0x20 && c < 0x7f)
            return fail(ps, t, "unexpected character '%c'", c);
        return fail(ps, t, "unexpected character '\\x%02x'", c);
    }
    int shown = t->len > 40 ? 40 : (int)t->len;
    if (!strcmp(t->err, "bad number"))
        return fail(ps, t, "bad number '%.*s%s'", shown, ps->src + t->start, shown < (int)t->len ? "..." : "");
    return fail(ps, t, "%s", t->err);
}

static int peek(const parser *ps)
{
    size_t pos = ps->pos;
    int line = ps->line, col = ps->col;
    token t;
    lex(ps, &pos, &line, &col, &t);
    return t.type;
}

static int is_word(const parser *ps, const char *w)
{
    return ps->cur.type == T_IDENT && !strcmp(ps->cur.text, w);
}

static const char *describe(const parser *ps, const token *t, char *buf, size_t cap)
{
    switch (t->type) {
    case T_EOF: return "end of file";
    case T_IDENT:
        if (snprintf(buf, cap, "'%s'", t->text) < 0)
            buf[0] = 0;
        return buf;
    case T_STR: return "a string";
    case T_INT: case T_NUM: {
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
static int expect(parser *ps, int type, const char *what)
{
    if (ps->cur.type != type) {
        char buf[64];
        return fail(ps, &ps->cur, "expected %s, not %s", what, describe(ps, &ps->cur, buf, sizeof buf));
    }
    return advance(ps);
}

/* ---- integer expressions: affine forms over the visible loops ---- */

typedef struct ictx {
    const adv_nest *nest;  /* NULL: constants only */
    int nloops;            /* loops of nest named so far (the one being read included) */
    int nvis;              /* of them, those usable here */
    const char *what;      /* "subscript", "loop bound", ... for messages */
} ictx;

static int is_const(const adv_affine *a)
{
    for (int k = 0; k < ADV_MAXDIM; k++)
        if (a->coef[k])
            return 0;
    return 1;
}

static int aff_add(parser *ps, const token *op, adv_affine *a, const adv_affine *b, int sub)
{
    int bad = sub ? __builtin_sub_overflow(a->c0, b->c0, &a->c0) : __builtin_add_overflow(a->c0, b->c0, &a->c0);
    for (int k = 0; k < ADV_MAXDIM; k++)
        bad |= sub ? __builtin_sub_overflow(a->coef[k], b->coef[k], &a->coef[k])
                   : __builtin_add_overflow(a->coef[k], b->coef[k], &a->coef[k]);
    return bad ? fail(ps, op, "value too large") : 0;
}

static int aff_scale(parser *ps, const token *op, adv_affine *a, int64_t c)
{
    int bad = __builtin_mul_overflow(a->c0, c, &a->c0);
    for (int k = 0; k < ADV_MAXDIM; k++)
        bad |= __builtin_mul_overflow(a->coef[k], c, &a->coef[k]);
    return bad ? fail(ps, op, "value too large") : 0;
}

static int iexpr(parser *ps, const ictx *c, adv_affine *out);

static int iname(parser *ps, const ictx *c, adv_affine *out)
{
    const token *t = &ps->cur;
    const sym *s = lookup(&ps->names, t->text);
    memset(out, 0, sizeof *out);
    if (s && s->kind == SYM_PARAM) {
        out->c0 = ps->p->params[s->index].value;
        return advance(ps);
    }
    if (s)
        return fail(ps, t, "%s is %s, not an integer (%s)", t->text, s->kind == SYM_ARRAY ? "an array" : "a scalar",
                    c->what);
    for (int k = 0; c->nest && k < c->nloops; k++) {
        if (strcmp(c->nest->loops[k].var, t->text))
            continue;
        if (k >= c->nvis)
            return fail(ps, t, "loop variable %s out of scope (a %s may use only the loops outside it)", t->text,
                        c->what);
        out->coef[k] = 1;
        return advance(ps);
    }
    if (lookup(&ps->loopvars, t->text))
        return fail(ps, t, "loop variable %s out of scope", t->text);
    return fail(ps, t, "unknown name %s", t->text);
}

static int iprimary(parser *ps, const ictx *c, adv_affine *out)
{
    token t = ps->cur;
    char buf[64];
    switch (t.type) {
    case T_INT:
        if (t.overflow)
            return fail(ps, &t, "value too large");
        memset(out, 0, sizeof *out);
        out->c0 = t.value;
        return advance(ps);
    case T_IDENT:
        return iname(ps, c, out);
    case '(':
        TRY(advance(ps));
        TRY(iexpr(ps, c, out));
        return expect(ps, ')', "')'");
    case T_NUM:
        return fail(ps, &t, "expected an integer, not %s (%s)", describe(ps, &t, buf, sizeof buf), c->what);
    default:
        return fail(ps, &t, "expected an integer expression (%s), not %s", c->what, describe(ps, &t, buf, sizeof buf));
    }
}

static int iunary(parser *ps, const ictx *c, adv_affine *out)
{
    token t = ps->cur;
    if (t.type != '-' && t.type != '+')
        return iprimary(ps, c, out);
    if (++ps->depth > MAXDEPTH)
        return fail(ps, &t, "expression nested too deeply");
    TRY(advance(ps));
    TRY(iunary(ps, c, out));
    ps->depth--;
    return t.type == '-' ? aff_scale(ps, &t, out, -1) : 0;
}

static int iterm(parser *ps, const ictx *c, adv_affine *out)
{
    TRY(iunary(ps, c, out));
    while (ps->cur.type == '*') {
        token op = ps->cur;
        adv_affine b;
        TRY(advance(ps));
        TRY(iunary(ps, c, &b));
        if (is_const(out)) {
            TRY(aff_scale(ps, &op, &b, out->c0));
            *out = b;
        } else if (is_const(&b)) {
            TRY(aff_scale(ps, &op, out, b.c0));
        } else {
            return fail(ps, &op, "non-affine %s (a product of loop variables)", c->what);
        }
    }
    if (ps->cur.type == '/' || ps->cur.type == '%')
        return fail(ps, &ps->cur, "'%c' in an integer expression (%s): only + - * and parentheses", ps->cur.type,
                    c->what);
    return 0;
}

static int iexpr(parser *ps, const ictx *c, adv_affine *out)
{
    if (++ps->depth > MAXDEPTH)
        return fail(ps, &ps->cur, "expression nested too deeply");
    TRY(iterm(ps, c, out));
    while (ps->cur.type == '+' || ps->cur.type == '-') {
        token op = ps->cur;
        adv_affine b;
        TRY(advance(ps));
        TRY(iterm(ps, c, &b));
        TRY(aff_add(ps, &op, out, &b, op.type == '-'));
    }
    ps->depth--;
    return 0;
}

/* a constant integer expression (params and numbers); *at: where it starts */
static int iconst(parser *ps, const char *what, int64_t *v, token *at)
{
    ictx c = {.what = what};
    adv_affine a;
    *at = ps->cur;
    TRY(iexpr(ps, &c, &a));
    *v = a.c0;
    return 0;
}

/* ---- declarations ---- */

/* a name free to be declared as kind (index: how many there are) at t,
 * and then, with add, entered */
static int name_free(parser *ps, const token *t, int kind, int index, int add)
{
    static const char *const kinds[] = {"", "a param", "an array", "a scalar", "a nest", "a loop variable"};
    if (t->type != T_IDENT) {
        char buf[64];
        return fail(ps, t, "expected a name, not %s", describe(ps, t, buf, sizeof buf));
    }
    if (is_keyword(t->text))
        return fail(ps, t, "%s is a keyword, not a name", t->text);
    symtab *tab = kind == SYM_NEST ? &ps->nests : &ps->names;
    const sym *s = lookup(tab, t->text);
    if (s)
        return fail(ps, t, "duplicate name %s (%s at line %d)", t->text, kinds[s->kind], s->line);
    if (index >= MAXDECL)
        return fail(ps, t, "too many declarations (at most %d of each)", MAXDECL);
    if (!add)
        return 0;
    return insert(tab, t->text, kind, index, t->line, t->col) ? oom(ps) : 0;
}

static int declare(parser *ps, const token *t, int kind, int index)
{
    return name_free(ps, t, kind, index, 1);
}

static void *grow(parser *ps, void *a, int n, size_t size)
{
    if (n & (n - 1)) /* the capacity is the next power of two: room left */
        return a;
    void *b = realloc(a, (n ? 2 * (size_t)n : 1) * size);
    if (!b)
        oom(ps);
    return b;
}

/* one more zeroed element at the end of *a (count *n); its address or NULL */
static void *push(parser *ps, void **a, int *n, size_t size)
{
    void *b = grow(ps, *a, *n, size);
    if (!b)
        return NULL;
    *a = b;
    char *e = (char *)b + (size_t)*n * size;
    memset(e, 0, size);
    (*n)++;
    return e;
}

static int setting(parser *ps, int *have, const token *kw)
{
    if (*have)
        return fail(ps, kw, "%s given twice", kw->text);
    *have = 1;
    return advance(ps);
}

static int decl_param(parser *ps)
{
    token name;
    TRY(advance(ps));
    name = ps->cur;
    TRY(name_free(ps, &name, SYM_PARAM, ps->p->nparams, 0)); /* entered once it has its value */
    TRY(advance(ps));
    TRY(expect(ps, '=', "'='"));
    int64_t v;
    token at;
    TRY(iconst(ps, "a param's value", &v, &at));
    for (int d = 0; d < ps->ndefs; d++) {
        if (ps->defs[d].name && !strcmp(ps->defs[d].name, name.text)) {
            v = ps->defs[d].value; /* the last -D of a name wins */
            ps->used[d] = 1;
        }
    }
    adv_param *pa = push(ps, (void **)&ps->p->params, &ps->p->nparams, sizeof *pa);
    if (!pa)
        return -1;
    memcpy(pa->name, name.text, ADV_NAME);
    pa->value = v;
    if (insert(&ps->names, name.text, SYM_PARAM, ps->p->nparams - 1, name.line, name.col))
        return oom(ps);
    return expect(ps, ';', "';'");
}

/* `procs`, `maxdims`, `repeat`, `maxshadow`: a constant in [lo, hi] */
static int decl_number(parser *ps, int *have, int64_t lo, int64_t hi, int64_t *out)
{
    token kw = ps->cur, at;
    TRY(setting(ps, have, &kw));
    int64_t v;
    char what[64];
    snprintf(what, sizeof what, "%s", kw.text);
    TRY(iconst(ps, what, &v, &at));
    if (v < lo)
        return fail(ps, &at, "%s must be at least %lld, not %lld%s", kw.text, (long long)lo, (long long)v,
                    !strcmp(kw.text, "procs") ? " (a P that fits no grid)" : "");
    if (v > hi)
        return fail(ps, &at, "%s must be at most %lld, not %lld", kw.text, (long long)hi, (long long)v);
    *out = v;
    return expect(ps, ';', "';'");
}

static int decl_machine(parser *ps)
{
    token kw = ps->cur;
    TRY(setting(ps, &ps->have_machine, &kw));
    token s = ps->cur;
    if (s.type != T_STR) {
        char buf[64];
        return fail(ps, &s, "expected a file name in double quotes, not %s", describe(ps, &s, buf, sizeof buf));
    }
    size_t n = s.len - 2;
    const char *name = ps->src + s.start + 1;
    if (!n)
        return fail(ps, &s, "empty machine file name");
    const char *path = ps->p->path, *slash = strrchr(path, '/');
    size_t dir = name[0] == '/' || !slash ? 0 : (size_t)(slash - path) + 1; /* with its '/' */
    if (dir + n >= sizeof ps->p->machine_path)
        return fail(ps, &s, "machine file name too long");
    memcpy(ps->p->machine_path, path, dir);
    memcpy(ps->p->machine_path + dir, name, n);
    ps->p->machine_path[dir + n] = 0;
    TRY(advance(ps));
    return expect(ps, ';', "';'");
}

/* an element type: its size in bytes */
static int eltype(parser *ps, int *size)
{
    static const struct { const char *name; int size; } types[] = {
        {"char", 1}, {"int", 4}, {"float", 4}, {"long", 8}, {"double", 8}, {"complex", 16},
    };
    token t = ps->cur;
    char buf[64];
    if (t.type == T_IDENT) {
        for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
            if (!strcmp(t.text, types[i].name)) {
                *size = types[i].size;
                return advance(ps);
            }
        }
        if (!strcmp(t.text, "bytes")) {
            int64_t k;
            token at;
            TRY(advance(ps));
            TRY(iconst(ps, "an element size", &k, &at));
            if (k < 1 || k > INT32_MAX)
                return fail(ps, &at, k < 1 ? "bytes must be at least 1, not %lld" : "value too large (bytes %lld)",
                            (long long)k);
            *size = (int)k;
            return 0;
        }
    }
    return fail(ps, &t, "unknown element type %s (char, int, float, long, double, complex or bytes K)",
                describe(ps, &t, buf, sizeof buf));
}

static int decl_array(parser *ps)
{
    TRY(advance(ps));
    token name = ps->cur;
    TRY(declare(ps, &name, SYM_ARRAY, ps->p->narrays));
    adv_array *a = push(ps, (void **)&ps->p->arrays, &ps->p->narrays, sizeof *a);
    if (!a)
        return -1;
    memcpy(a->name, name.text, ADV_NAME);
    a->line = name.line, a->col = name.col;
    TRY(advance(ps));
    while (ps->cur.type == '[') {
        if (a->ndim == ADV_MAXDIM)
            return fail(ps, &ps->cur, "array %s has more than %d dimensions", a->name, ADV_MAXDIM);
        int64_t e;
        token at;
        TRY(advance(ps));
        TRY(iconst(ps, "an extent", &e, &at));
        if (e < 1)
            return fail(ps, &at, "extent %d of %s must be at least 1, not %lld", a->ndim + 1, a->name, (long long)e);
        a->extent[a->ndim++] = e;
        TRY(expect(ps, ']', "']'"));
    }
    if (!a->ndim) {
        char buf[64];
        return fail(ps, &ps->cur, "expected '[' (array %s needs at least one dimension), not %s", a->name,
                    describe(ps, &ps->cur, buf, sizeof buf));
    }
    token type = ps->cur;
    TRY(eltype(ps, &a->elsize));
    int64_t bytes = a->elsize;
    for (int d = 0; d < a->ndim; d++)
        if (__builtin_mul_overflow(bytes, a->extent[d], &bytes))
            return fail(ps, &type, "value too large (array %s's size in bytes)", a->name);
    if (is_word(ps, "readonly")) {
        a->readonly = 1;
        TRY(advance(ps));
    }
    return expect(ps, ';', "';'");
}

static int decl_scalar(parser *ps)
{
    TRY(advance(ps));
    token name = ps->cur;
    TRY(declare(ps, &name, SYM_SCALAR, ps->p->nscalars));
    adv_scalar *s = push(ps, (void **)&ps->p->scalars, &ps->p->nscalars, sizeof *s);
    if (!s)
        return -1;
    memcpy(s->name, name.text, ADV_NAME);
    s->line = name.line, s->col = name.col;
    TRY(advance(ps));
    TRY(eltype(ps, &s->elsize));
    return expect(ps, ';', "';'");
}

/* ---- nests ---- */

/* An array reference at ps->cur (its name, then '[' follows) into r, every
 * subscript over all the nest's loops. */
static int aref(parser *ps, const adv_nest *n, adv_ref *r)
{
    token name = ps->cur;
    const sym *s = lookup(&ps->names, name.text);
    if (!s || s->kind != SYM_ARRAY)
        return fail(ps, &name, s ? "%s is not an array" : "unknown array %s", name.text);
    if (++ps->nrefs > MAXREFS)
        return fail(ps, &name, "too many array references (at most %d)", MAXREFS);
    const adv_array *a = &ps->p->arrays[s->index];
    memset(r, 0, sizeof *r);
    r->array = s->index, r->line = name.line, r->col = name.col;
    TRY(advance(ps));
    int nsub = 0;
    ictx c = {.nest = n, .nloops = n->nloops, .nvis = n->nloops, .what = "subscript"};
    while (ps->cur.type == '[') {
        if (nsub == ADV_MAXDIM)
            return fail(ps, &name, "wrong number of subscripts: %s has %d dimension%s, more given", name.text,
                        a->ndim, a->ndim > 1 ? "s" : "");
        if (++ps->depth > MAXDEPTH)
            return fail(ps, &ps->cur, "expression nested too deeply");
        TRY(advance(ps));
        token at = ps->cur;
        adv_affine f;
        TRY(iexpr(ps, &c, &f));
        int var = -1;
        for (int k = 0; k < n->nloops; k++) {
            if (!f.coef[k])
                continue;
            if (var >= 0)
                return fail(ps, &at, "subscript uses two loop variables, %s and %s (at most one)",
                            n->loops[var].var, n->loops[k].var);
            var = k;
        }
        r->sub_var[nsub] = var;
        r->sub_coef[nsub] = var >= 0 ? f.coef[var] : 0;
        r->sub_off[nsub] = f.c0;
        nsub++;
        TRY(expect(ps, ']', "']'"));
        ps->depth--;
    }
    if (nsub != a->ndim)
        return fail(ps, &name, "wrong number of subscripts: %s has %d dimension%s, %d given", name.text, a->ndim,
                    a->ndim > 1 ? "s" : "", nsub);
    return 0;
}

static int add_read(parser *ps, adv_stmt *st, const adv_ref *r)
{
    if (st->nreads == ps->reads_cap) {
        int cap = ps->reads_cap ? 2 * ps->reads_cap : 4;
        adv_ref *b = realloc(st->reads, (size_t)cap * sizeof *b);
        if (!b)
            return oom(ps);
        st->reads = b;
        ps->reads_cap = cap;
    }
    st->reads[st->nreads++] = *r;
    return 0;
}

static int vexpr(parser *ps, const adv_nest *n, adv_stmt *st);

static int vprimary(parser *ps, const adv_nest *n, adv_stmt *st)
{
    token t = ps->cur;
    char buf[64];
    switch (t.type) {
    case T_INT:
    case T_NUM:
        return advance(ps);
    case '(':
        TRY(advance(ps));
        TRY(vexpr(ps, n, st));
        return expect(ps, ')', "')'");
    case T_IDENT:
        break;
    default:
        return fail(ps, &t, "expected an expression, not %s", describe(ps, &t, buf, sizeof buf));
    }
    int next = peek(ps);
    if (next == '[') {
        adv_ref r;
        TRY(aref(ps, n, &r));
        return add_read(ps, st, &r);
    }
    if (next == '(') { /* a call: only its arguments matter */
        TRY(advance(ps));
        TRY(advance(ps));
        if (ps->cur.type != ')') {
            TRY(vexpr(ps, n, st));
            while (ps->cur.type == ',') {
                TRY(advance(ps));
                TRY(vexpr(ps, n, st));
            }
        }
        return expect(ps, ')', "')' or ','");
    }
    const sym *s = lookup(&ps->names, t.text);
    if (s && s->kind == SYM_ARRAY) {
        int nd = ps->p->arrays[s->index].ndim;
        return fail(ps, &t, "wrong number of subscripts: %s has %d dimension%s, 0 given", t.text, nd,
                    nd > 1 ? "s" : "");
    }
    return advance(ps); /* a param, loop variable, scalar or constant: a value */
}

static int vexpr(parser *ps, const adv_nest *n, adv_stmt *st)
{
    if (++ps->depth > MAXDEPTH)
        return fail(ps, &ps->cur, "expression nested too deeply");
    for (;;) {
        while (ps->cur.type == '-' || ps->cur.type == '+')
            TRY(advance(ps));
        TRY(vprimary(ps, n, st));
        int op = ps->cur.type;
        if (op != '+' && op != '-' && op != '*' && op != '/' && op != '%')
            break;
        TRY(advance(ps));
    }
    ps->depth--;
    return 0;
}

static int statement(parser *ps, adv_nest *n)
{
    token lhs = ps->cur;
    char buf[64];
    if (lhs.type != T_IDENT)
        return fail(ps, &lhs, "expected a statement (an array reference or a scalar, then = or op=), not %s",
                    describe(ps, &lhs, buf, sizeof buf));
    if (!strcmp(lhs.text, "for"))
        return fail(ps, &lhs, "for after a statement: a nest is perfect (its for headers, then its statements)");
    if (++ps->nstmts > MAXSTMTS)
        return fail(ps, &lhs, "too many statements (at most %d)", MAXSTMTS);
    adv_stmt *st = push(ps, (void **)&n->stmts, &n->nstmts, sizeof *st);
    if (!st)
        return -1;
    st->line = lhs.line, st->col = lhs.col;
    st->lhs_array = st->lhs_scalar = -1;
    ps->reads_cap = 0;
    if (peek(ps) == '[') {
        TRY(aref(ps, n, &st->lhs));
        st->lhs_array = st->lhs.array;
        if (ps->p->arrays[st->lhs_array].readonly)
            return fail(ps, &lhs, "assigns readonly array %s", lhs.text);
    } else {
        const sym *s = lookup(&ps->names, lhs.text);
        if (!s)
            return fail(ps, &lhs, "unknown name %s (the left side is an array reference or a declared scalar)",
                        lhs.text);
        if (s->kind == SYM_ARRAY) {
            int nd = ps->p->arrays[s->index].ndim;
            return fail(ps, &lhs, "wrong number of subscripts: %s has %d dimension%s, 0 given", lhs.text, nd,
                        nd > 1 ? "s" : "");
        }
        if (s->kind != SYM_SCALAR)
            return fail(ps, &lhs, "assigns param %s (the left side is an array reference or a declared scalar)",
                        lhs.text);
        st->lhs_scalar = s->index;
        TRY(advance(ps));
    }
    token op = ps->cur;
    if (op.type == '=') {
        st->assign = ADV_SET;
        TRY(advance(ps));
    } else if (op.type == T_ADDEQ || op.type == T_SUBEQ || op.type == T_MULEQ || op.type == T_DIVEQ) {
        st->assign = ADV_UPDATE;
        TRY(advance(ps));
    } else if ((is_word(ps, "min") || is_word(ps, "max")) && peek(ps) == '=') {
        st->assign = ADV_UPDATE;
        TRY(advance(ps));
        TRY(advance(ps));
    } else {
        return fail(ps, &op, "expected =, +=, -=, *=, /=, min= or max=, not %s", describe(ps, &op, buf, sizeof buf));
    }
    if (st->lhs_scalar >= 0 && st->assign == ADV_SET)
        return fail(ps, &op, "assigns scalar %s with '=': a reduction updates it (+=, -=, *=, /=, min=, max=)",
                    lhs.text);
    TRY(vexpr(ps, n, st));
    if (st->assign == ADV_UPDATE && st->lhs_array >= 0)
        TRY(add_read(ps, st, &st->lhs));
    return expect(ps, ';', "';'");
}

/* `for VAR = LO .. HI KIND`; *state: 0 outer seq, 1 parallel, 2 inner seq */
static int loop(parser *ps, adv_nest *n, int *state)
{
    token kw = ps->cur;
    if (n->nloops == ADV_MAXDIM)
        return fail(ps, &kw, "nest %s has more than %d loops", n->name, ADV_MAXDIM);
    TRY(advance(ps));
    token var = ps->cur;
    char buf[64];
    if (var.type != T_IDENT)
        return fail(ps, &var, "expected a loop variable, not %s", describe(ps, &var, buf, sizeof buf));
    if (is_keyword(var.text))
        return fail(ps, &var, "%s is a keyword, not a name", var.text);
    const sym *s = lookup(&ps->names, var.text);
    if (s)
        return fail(ps, &var, "duplicate name %s (loop variable; %s at line %d)", var.text,
                    s->kind == SYM_PARAM ? "a param" : s->kind == SYM_ARRAY ? "an array" : "a scalar", s->line);
    for (int k = 0; k < n->nloops; k++)
        if (!strcmp(n->loops[k].var, var.text))
            return fail(ps, &var, "duplicate name %s (loop variable repeated in nest %s)", var.text, n->name);
    adv_loop *l = &n->loops[n->nloops];
    memcpy(l->var, var.text, ADV_NAME);
    l->line = var.line, l->col = var.col;
    if (!lookup(&ps->loopvars, var.text) && insert(&ps->loopvars, var.text, SYM_LOOPVAR, 0, var.line, var.col))
        return oom(ps);
    TRY(advance(ps));
    TRY(expect(ps, '=', "'='"));
    ictx c = {.nest = n, .nloops = n->nloops + 1, .nvis = n->nloops, .what = "loop bound"};
    TRY(iexpr(ps, &c, &l->lo));
    TRY(expect(ps, T_DOTDOT, "'..'"));
    TRY(iexpr(ps, &c, &l->hi));
    token kind = ps->cur;
    if (is_word(ps, "seq")) {
        l->kind = ADV_SEQ;
        if (*state == 1)
            *state = 2;
    } else if (is_word(ps, "par") || is_word(ps, "across")) {
        l->kind = is_word(ps, "par") ? ADV_PAR : ADV_ACROSS;
        if (*state == 2)
            return fail(ps, &kind, "loop kinds out of order: %s loop %s inside a seq loop inside a parallel loop "
                                   "(kinds go seq* (par|across)* seq*)", kind.text, l->var);
        if (*state == 0)
            n->first_par = n->nloops;
        *state = 1;
        n->end_par = n->nloops + 1;
    } else {
        return fail(ps, &kind, "expected the loop's kind (par, seq or across), not %s",
                    describe(ps, &kind, buf, sizeof buf));
    }
    n->nloops++;
    return advance(ps);
}

static int decl_nest(parser *ps)
{
    token kw = ps->cur;
    TRY(advance(ps));
    token name = ps->cur;
    TRY(declare(ps, &name, SYM_NEST, ps->p->nnests));
    adv_nest *n = push(ps, (void **)&ps->p->nests, &ps->p->nnests, sizeof *n);
    if (!n)
        return -1;
    memcpy(n->name, name.text, ADV_NAME);
    n->line = kw.line, n->col = kw.col;
    n->count = 1;
    TRY(advance(ps));
    int have_count = 0, have_work = 0;
    char buf[64];
    while (is_word(ps, "count") || is_word(ps, "work")) {
        token opt = ps->cur;
        if (!strcmp(opt.text, "count")) {
            token at;
            TRY(setting(ps, &have_count, &opt));
            TRY(iconst(ps, "a count", &n->count, &at));
            if (n->count < 1)
                return fail(ps, &at, "count must be at least 1, not %lld", (long long)n->count);
            continue;
        }
        TRY(setting(ps, &have_work, &opt));
        token w = ps->cur;
        if (w.type != T_INT && w.type != T_NUM)
            return fail(ps, &w, "work must be a non-negative decimal (us per iteration), not %s",
                        describe(ps, &w, buf, sizeof buf));
        if (w.len >= NUMLEN)
            return fail(ps, &w, "bad number (too long)");
        char num[NUMLEN];
        memcpy(num, ps->src + w.start, w.len);
        num[w.len] = 0;
        n->work_us = strtod(num, NULL);
        if (!isfinite(n->work_us))
            return fail(ps, &w, "value too large");
        TRY(advance(ps));
    }
    TRY(expect(ps, '{', "'{' (or count, work)"));
    int state = 0;
    while (is_word(ps, "for"))
        TRY(loop(ps, n, &state));
    if (!n->nloops)
        return fail(ps, &ps->cur, "nest %s has no loop: it starts with its for headers", n->name);
    if (!state)
        n->first_par = n->end_par = 0; /* all seq: they run whole, on the home's owners */
    while (ps->cur.type != '}') {
        if (ps->cur.type == T_EOF)
            return fail(ps, &ps->cur, "end of file inside nest %s (opened at line %d; no closing '}')", n->name,
                        kw.line);
        TRY(statement(ps, n));
    }
    if (!n->nstmts)
        return fail(ps, &ps->cur, "nest %s has no statement", n->name);
    return advance(ps);
}

static int program(parser *ps)
{
    psk_adv_program *p = ps->p;
    TRY(advance(ps));
    while (ps->cur.type != T_EOF) {
        int64_t v;
        if (is_word(ps, "param")) {
            TRY(decl_param(ps));
        } else if (is_word(ps, "procs")) {
            TRY(decl_number(ps, &ps->have_procs, 1, INT64_MAX, &p->procs));
        } else if (is_word(ps, "maxdims")) {
            TRY(decl_number(ps, &ps->have_maxdims, 1, ADV_MAXDIM, &v));
            p->maxdims = (int)v;
        } else if (is_word(ps, "repeat")) {
            TRY(decl_number(ps, &ps->have_repeat, 1, INT64_MAX, &p->repeat));
        } else if (is_word(ps, "maxshadow")) {
            TRY(decl_number(ps, &ps->have_maxshadow, 0, INT32_MAX, &v));
            p->maxshadow = (int)v;
        } else if (is_word(ps, "machine")) {
            TRY(decl_machine(ps));
        } else if (is_word(ps, "array")) {
            TRY(decl_array(ps));
        } else if (is_word(ps, "scalar")) {
            TRY(decl_scalar(ps));
        } else if (is_word(ps, "nest")) {
            TRY(decl_nest(ps));
        } else {
            char buf[64];
            return fail(ps, &ps->cur, "expected a declaration (param, procs, maxdims, machine, repeat, maxshadow, "
                                      "array, scalar or nest), not %s", describe(ps, &ps->cur, buf, sizeof buf));
        }
    }
    if (!p->nnests)
        return fail(ps, &ps->cur, "no nest in the file");
    for (int d = 0; d < ps->ndefs; d++) {
        if (!ps->used[d]) {
            const char *nm = ps->defs[d].name ? ps->defs[d].name : "";
            snprintf(p->errmsg, sizeof p->errmsg, "%s: -D %.64s: the file has no param %.64s", p->path, nm, nm);
            ps->rc = PSK_EINVAL;
            return -1;
        }
    }
    return 0;
}

/* ---- the API ---- */

static psk_adv_program *new_program(const char *path)
{
    psk_adv_program *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    if (!(p->path = strdup(path ? path : "(input)"))) {
        free(p);
        return NULL;
    }
    p->maxdims = 2;
    p->repeat = 1;
    p->maxshadow = 4;
    return p;
}

int psk_adv_parse(const char *text, size_t len, const char *path, const psk_adv_define *defs, int ndefs,
                  psk_adv_program **out)
{
    psk_adv_program *p = *out = new_program(path);
    if (!p)
        return PSK_ENOMEM;
    if (len > MAXTEXT) {
        snprintf(p->errmsg, sizeof p->errmsg, "%s: larger than %u MiB: not a program description", p->path,
                 MAXTEXT >> 20);
        return PSK_EINVAL;
    }
    parser ps = {.src = text ? text : "", .len = text ? len : 0, .line = 1, .col = 1, .p = p, .defs = defs,
                 .ndefs = defs && ndefs > 0 ? ndefs : 0};
    if (ps.ndefs && !(ps.used = calloc((size_t)ps.ndefs, 1))) {
        snprintf(p->errmsg, sizeof p->errmsg, "%s: out of memory", p->path);
        return PSK_ENOMEM;
    }
    int rc = program(&ps) < 0 ? ps.rc : PSK_OK;
    free(ps.used);
    free(ps.names.slot);
    free(ps.nests.slot);
    free(ps.loopvars.slot);
    return rc;
}

int psk_adv_load(const char *path, const psk_adv_define *defs, int ndefs, psk_adv_program **out)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        if (!(*out = new_program(path)))
            return PSK_ENOMEM;
        snprintf((*out)->errmsg, sizeof (*out)->errmsg, "%s: %s", (*out)->path, strerror(e));
        return PSK_EIO;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    int big = 0;
    for (size_t got; buf && !big && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n > MAXTEXT) {
            big = 1;
        } else if (n == cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b)
                free(buf);
            buf = b;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad || big) {
        free(buf);
        if (!(*out = new_program(path)))
            return PSK_ENOMEM;
        snprintf((*out)->errmsg, sizeof (*out)->errmsg, "%s: %s", (*out)->path,
                 bad ? "cannot read" : big ? "larger than 16 MiB: not a program description" : "out of memory");
        return bad ? PSK_EIO : big ? PSK_EINVAL : PSK_ENOMEM;
    }
    int rc = psk_adv_parse(buf, n, path, defs, ndefs, out);
    free(buf);
    return rc;
}

const char *psk_adv_program_errmsg(const psk_adv_program *p)
{
    if (!p)
        return "out of memory";
    return p->errmsg[0] ? p->errmsg : "no error";
}

const char *psk_adv_program_machine(const psk_adv_program *p)
{
    return p && p->machine_path[0] ? p->machine_path : NULL;
}

void psk_adv_program_free(psk_adv_program *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->nnests; i++) {
        for (int s = 0; s < p->nests[i].nstmts; s++)
            free(p->nests[i].stmts[s].reads);
        free(p->nests[i].stmts);
    }
    free(p->nests);
    free(p->arrays);
    free(p->scalars);
    free(p->params);
    free(p->path);
    free(p);
}
