/* The .adv reader of perfskel advise: a recursive-descent parser for the
 * language of docs/advise.md (declarations, then nests of loops and
 * statements), filling the psk_adv_program of advise_internal.h, and the
 * API that loads a file. Its tokens come from advise_lex.c and its
 * expressions from advise_expr.c. The text is untrusted: sizes are capped
 * and every mistake is one "PATH:LINE:COL: what" message for the offending
 * token. Names are declared before use, in one pass. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"

#define MAXTEXT (16u << 20) /* a program description is tiny: beyond this it is not one */
#define MAXDECL 10000       /* params, arrays, scalars, nests each */
#define MAXSTMTS 100000     /* statements in the whole program */
#define NUMLEN 64           /* the longest decimal we read as a value */

/* ---- declarations ---- */

/* a name free to be declared as kind (index: how many there are) at t,
 * and then, with add, entered */
static int name_free(adv_parser *ps, const adv_token *t, int kind, int index, int add)
{
    static const char *const kinds[] = {"", "a param", "an array", "a scalar", "a nest", "a loop variable"};
    if (t->type != ADV_T_IDENT) {
        char buf[64];
        return psk_adv_fail(ps, t, "expected a name, not %s", psk_adv_describe(ps, t, buf, sizeof buf));
    }
    if (psk_adv_is_keyword(t->text))
        return psk_adv_fail(ps, t, "%s is a keyword, not a name", t->text);
    adv_symtab *tab = kind == ADV_SYM_NEST ? &ps->nests : &ps->names;
    const adv_sym *s = psk_adv_sym_lookup(tab, t->text);
    if (s)
        return psk_adv_fail(ps, t, "duplicate name %s (%s at line %d)", t->text, kinds[s->kind], s->line);
    if (index >= MAXDECL)
        return psk_adv_fail(ps, t, "too many declarations (at most %d of each)", MAXDECL);
    if (!add)
        return 0;
    return psk_adv_sym_insert(tab, t->text, kind, index, t->line, t->col) ? psk_adv_oom(ps) : 0;
}

static int declare(adv_parser *ps, const adv_token *t, int kind, int index)
{
    return name_free(ps, t, kind, index, 1);
}

static void *grow(adv_parser *ps, void *a, int n, size_t size)
{
    if (n & (n - 1)) /* the capacity is the next power of two: room left */
        return a;
    void *b = realloc(a, (n ? 2 * (size_t)n : 1) * size);
    if (!b)
        psk_adv_oom(ps);
    return b;
}

/* one more zeroed element at the end of *a (count *n); its address or NULL */
static void *push(adv_parser *ps, void **a, int *n, size_t size)
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

static int setting(adv_parser *ps, int *have, const adv_token *kw)
{
    if (*have)
        return psk_adv_fail(ps, kw, "%s given twice", kw->text);
    *have = 1;
    return psk_adv_advance(ps);
}

static int decl_param(adv_parser *ps)
{
    adv_token name;
    ADV_TRY(psk_adv_advance(ps));
    name = ps->cur;
    ADV_TRY(name_free(ps, &name, ADV_SYM_PARAM, ps->p->nparams, 0)); /* entered once it has its value */
    ADV_TRY(psk_adv_advance(ps));
    ADV_TRY(psk_adv_expect(ps, '=', "'='"));
    int64_t v;
    adv_token at;
    ADV_TRY(psk_adv_iconst(ps, "a param's value", &v, &at));
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
    if (psk_adv_sym_insert(&ps->names, name.text, ADV_SYM_PARAM, ps->p->nparams - 1, name.line, name.col))
        return psk_adv_oom(ps);
    return psk_adv_expect(ps, ';', "';'");
}

/* `procs`, `maxdims`, `repeat`, `maxshadow`: a constant in [lo, hi] */
static int decl_number(adv_parser *ps, int *have, int64_t lo, int64_t hi, int64_t *out)
{
    adv_token kw = ps->cur, at;
    ADV_TRY(setting(ps, have, &kw));
    int64_t v;
    char what[64];
    snprintf(what, sizeof what, "%s", kw.text);
    ADV_TRY(psk_adv_iconst(ps, what, &v, &at));
    if (v < lo)
        return psk_adv_fail(ps, &at, "%s must be at least %lld, not %lld%s", kw.text, (long long)lo, (long long)v,
                            !strcmp(kw.text, "procs") ? " (a P that fits no grid)" : "");
    if (v > hi)
        return psk_adv_fail(ps, &at, "%s must be at most %lld, not %lld", kw.text, (long long)hi, (long long)v);
    *out = v;
    return psk_adv_expect(ps, ';', "';'");
}

static int decl_machine(adv_parser *ps)
{
    adv_token kw = ps->cur;
    ADV_TRY(setting(ps, &ps->have_machine, &kw));
    adv_token s = ps->cur;
    if (s.type != ADV_T_STR) {
        char buf[64];
        return psk_adv_fail(ps, &s, "expected a file name in double quotes, not %s",
                            psk_adv_describe(ps, &s, buf, sizeof buf));
    }
    size_t n = s.len - 2;
    const char *name = ps->src + s.start + 1;
    if (!n)
        return psk_adv_fail(ps, &s, "empty machine file name");
    const char *path = ps->p->path, *slash = strrchr(path, '/');
    size_t dir = name[0] == '/' || !slash ? 0 : (size_t)(slash - path) + 1; /* with its '/' */
    if (dir + n >= sizeof ps->p->machine_path)
        return psk_adv_fail(ps, &s, "machine file name too long");
    memcpy(ps->p->machine_path, path, dir);
    memcpy(ps->p->machine_path + dir, name, n);
    ps->p->machine_path[dir + n] = 0;
    ADV_TRY(psk_adv_advance(ps));
    return psk_adv_expect(ps, ';', "';'");
}

/* an element type: its size in bytes */
static int eltype(adv_parser *ps, int *size)
{
    static const struct { const char *name; int size; } types[] = {
        {"char", 1}, {"int", 4}, {"float", 4}, {"long", 8}, {"double", 8}, {"complex", 16},
    };
    adv_token t = ps->cur;
    char buf[64];
    if (t.type == ADV_T_IDENT) {
        for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
            if (!strcmp(t.text, types[i].name)) {
                *size = types[i].size;
                return psk_adv_advance(ps);
            }
        }
        if (!strcmp(t.text, "bytes")) {
            int64_t k;
            adv_token at;
            ADV_TRY(psk_adv_advance(ps));
            ADV_TRY(psk_adv_iconst(ps, "an element size", &k, &at));
            if (k < 1 || k > INT32_MAX)
                return psk_adv_fail(ps, &at,
                                    k < 1 ? "bytes must be at least 1, not %lld" : "value too large (bytes %lld)",
                                    (long long)k);
            *size = (int)k;
            return 0;
        }
    }
    return psk_adv_fail(ps, &t, "unknown element type %s (char, int, float, long, double, complex or bytes K)",
                        psk_adv_describe(ps, &t, buf, sizeof buf));
}

static int decl_array(adv_parser *ps)
{
    ADV_TRY(psk_adv_advance(ps));
    adv_token name = ps->cur;
    ADV_TRY(declare(ps, &name, ADV_SYM_ARRAY, ps->p->narrays));
    adv_array *a = push(ps, (void **)&ps->p->arrays, &ps->p->narrays, sizeof *a);
    if (!a)
        return -1;
    memcpy(a->name, name.text, ADV_NAME);
    a->line = name.line, a->col = name.col;
    ADV_TRY(psk_adv_advance(ps));
    while (ps->cur.type == '[') {
        if (a->ndim == ADV_MAXDIM)
            return psk_adv_fail(ps, &ps->cur, "array %s has more than %d dimensions", a->name, ADV_MAXDIM);
        int64_t e;
        adv_token at;
        ADV_TRY(psk_adv_advance(ps));
        ADV_TRY(psk_adv_iconst(ps, "an extent", &e, &at));
        if (e < 1)
            return psk_adv_fail(ps, &at, "extent %d of %s must be at least 1, not %lld", a->ndim + 1, a->name,
                                (long long)e);
        a->extent[a->ndim++] = e;
        ADV_TRY(psk_adv_expect(ps, ']', "']'"));
    }
    if (!a->ndim) {
        char buf[64];
        return psk_adv_fail(ps, &ps->cur, "expected '[' (array %s needs at least one dimension), not %s", a->name,
                            psk_adv_describe(ps, &ps->cur, buf, sizeof buf));
    }
    adv_token type = ps->cur;
    ADV_TRY(eltype(ps, &a->elsize));
    int64_t bytes = a->elsize;
    for (int d = 0; d < a->ndim; d++)
        if (__builtin_mul_overflow(bytes, a->extent[d], &bytes))
            return psk_adv_fail(ps, &type, "value too large (array %s's size in bytes)", a->name);
    if (psk_adv_is_word(ps, "readonly")) {
        a->readonly = 1;
        ADV_TRY(psk_adv_advance(ps));
    }
    return psk_adv_expect(ps, ';', "';'");
}

static int decl_scalar(adv_parser *ps)
{
    ADV_TRY(psk_adv_advance(ps));
    adv_token name = ps->cur;
    ADV_TRY(declare(ps, &name, ADV_SYM_SCALAR, ps->p->nscalars));
    adv_scalar *s = push(ps, (void **)&ps->p->scalars, &ps->p->nscalars, sizeof *s);
    if (!s)
        return -1;
    memcpy(s->name, name.text, ADV_NAME);
    s->line = name.line, s->col = name.col;
    ADV_TRY(psk_adv_advance(ps));
    ADV_TRY(eltype(ps, &s->elsize));
    return psk_adv_expect(ps, ';', "';'");
}

/* ---- nests ---- */

static int statement(adv_parser *ps, adv_nest *n)
{
    adv_token lhs = ps->cur;
    char buf[64];
    if (lhs.type != ADV_T_IDENT)
        return psk_adv_fail(ps, &lhs, "expected a statement (an array reference or a scalar, then = or op=), not %s",
                            psk_adv_describe(ps, &lhs, buf, sizeof buf));
    if (!strcmp(lhs.text, "for"))
        return psk_adv_fail(ps, &lhs,
                            "for after a statement: a nest is perfect (its for headers, then its statements)");
    if (++ps->nstmts > MAXSTMTS)
        return psk_adv_fail(ps, &lhs, "too many statements (at most %d)", MAXSTMTS);
    adv_stmt *st = push(ps, (void **)&n->stmts, &n->nstmts, sizeof *st);
    if (!st)
        return -1;
    st->line = lhs.line, st->col = lhs.col;
    st->lhs_array = st->lhs_scalar = -1;
    ps->reads_cap = 0;
    if (psk_adv_peek(ps) == '[') {
        ADV_TRY(psk_adv_aref(ps, n, &st->lhs));
        st->lhs_array = st->lhs.array;
        if (ps->p->arrays[st->lhs_array].readonly)
            return psk_adv_fail(ps, &lhs, "assigns readonly array %s", lhs.text);
    } else {
        const adv_sym *s = psk_adv_sym_lookup(&ps->names, lhs.text);
        if (!s)
            return psk_adv_fail(ps, &lhs, "unknown name %s (the left side is an array reference or a declared scalar)",
                                lhs.text);
        if (s->kind == ADV_SYM_ARRAY) {
            int nd = ps->p->arrays[s->index].ndim;
            return psk_adv_fail(ps, &lhs, "wrong number of subscripts: %s has %d dimension%s, 0 given", lhs.text, nd,
                                nd > 1 ? "s" : "");
        }
        if (s->kind != ADV_SYM_SCALAR)
            return psk_adv_fail(ps, &lhs, "assigns param %s (the left side is an array reference or a declared scalar)",
                                lhs.text);
        st->lhs_scalar = s->index;
        ADV_TRY(psk_adv_advance(ps));
    }
    adv_token op = ps->cur;
    if (op.type == '=') {
        st->assign = ADV_SET;
        ADV_TRY(psk_adv_advance(ps));
    } else if (op.type == ADV_T_ADDEQ || op.type == ADV_T_SUBEQ || op.type == ADV_T_MULEQ || op.type == ADV_T_DIVEQ) {
        st->assign = ADV_UPDATE;
        ADV_TRY(psk_adv_advance(ps));
    } else if ((psk_adv_is_word(ps, "min") || psk_adv_is_word(ps, "max")) && psk_adv_peek(ps) == '=') {
        st->assign = ADV_UPDATE;
        ADV_TRY(psk_adv_advance(ps));
        ADV_TRY(psk_adv_advance(ps));
    } else {
        return psk_adv_fail(ps, &op, "expected =, +=, -=, *=, /=, min= or max=, not %s",
                            psk_adv_describe(ps, &op, buf, sizeof buf));
    }
    if (st->lhs_scalar >= 0 && st->assign == ADV_SET)
        return psk_adv_fail(ps, &op, "assigns scalar %s with '=': a reduction updates it (+=, -=, *=, /=, min=, max=)",
                            lhs.text);
    ADV_TRY(psk_adv_vexpr(ps, n, st));
    if (st->assign == ADV_UPDATE && st->lhs_array >= 0)
        ADV_TRY(psk_adv_add_read(ps, st, &st->lhs));
    return psk_adv_expect(ps, ';', "';'");
}

/* `for VAR = LO .. HI KIND`; *state: 0 outer seq, 1 parallel, 2 inner seq */
static int loop(adv_parser *ps, adv_nest *n, int *state)
{
    adv_token kw = ps->cur;
    if (n->nloops == ADV_MAXDIM)
        return psk_adv_fail(ps, &kw, "nest %s has more than %d loops", n->name, ADV_MAXDIM);
    ADV_TRY(psk_adv_advance(ps));
    adv_token var = ps->cur;
    char buf[64];
    if (var.type != ADV_T_IDENT)
        return psk_adv_fail(ps, &var, "expected a loop variable, not %s", psk_adv_describe(ps, &var, buf, sizeof buf));
    if (psk_adv_is_keyword(var.text))
        return psk_adv_fail(ps, &var, "%s is a keyword, not a name", var.text);
    const adv_sym *s = psk_adv_sym_lookup(&ps->names, var.text);
    if (s)
        return psk_adv_fail(ps, &var, "duplicate name %s (loop variable; %s at line %d)", var.text,
                            s->kind == ADV_SYM_PARAM   ? "a param"
                            : s->kind == ADV_SYM_ARRAY ? "an array"
                                                       : "a scalar",
                            s->line);
    for (int k = 0; k < n->nloops; k++)
        if (!strcmp(n->loops[k].var, var.text))
            return psk_adv_fail(ps, &var, "duplicate name %s (loop variable repeated in nest %s)", var.text, n->name);
    adv_loop *l = &n->loops[n->nloops];
    memcpy(l->var, var.text, ADV_NAME);
    l->line = var.line, l->col = var.col;
    if (!psk_adv_sym_lookup(&ps->loopvars, var.text) &&
        psk_adv_sym_insert(&ps->loopvars, var.text, ADV_SYM_LOOPVAR, 0, var.line, var.col))
        return psk_adv_oom(ps);
    ADV_TRY(psk_adv_advance(ps));
    ADV_TRY(psk_adv_expect(ps, '=', "'='"));
    adv_ictx c = {.nest = n, .nloops = n->nloops + 1, .nvis = n->nloops, .what = "loop bound"};
    ADV_TRY(psk_adv_iexpr(ps, &c, &l->lo));
    ADV_TRY(psk_adv_expect(ps, ADV_T_DOTDOT, "'..'"));
    ADV_TRY(psk_adv_iexpr(ps, &c, &l->hi));
    adv_token kind = ps->cur;
    if (psk_adv_is_word(ps, "seq")) {
        l->kind = ADV_SEQ;
        if (*state == 1)
            *state = 2;
    } else if (psk_adv_is_word(ps, "par") || psk_adv_is_word(ps, "across")) {
        l->kind = psk_adv_is_word(ps, "par") ? ADV_PAR : ADV_ACROSS;
        if (*state == 2)
            return psk_adv_fail(ps, &kind,
                                "loop kinds out of order: %s loop %s inside a seq loop inside a parallel loop "
                                "(kinds go seq* (par|across)* seq*)",
                                kind.text, l->var);
        if (*state == 0)
            n->first_par = n->nloops;
        *state = 1;
        n->end_par = n->nloops + 1;
    } else {
        return psk_adv_fail(ps, &kind, "expected the loop's kind (par, seq or across), not %s",
                            psk_adv_describe(ps, &kind, buf, sizeof buf));
    }
    n->nloops++;
    return psk_adv_advance(ps);
}

static int decl_nest(adv_parser *ps)
{
    adv_token kw = ps->cur;
    ADV_TRY(psk_adv_advance(ps));
    adv_token name = ps->cur;
    ADV_TRY(declare(ps, &name, ADV_SYM_NEST, ps->p->nnests));
    adv_nest *n = push(ps, (void **)&ps->p->nests, &ps->p->nnests, sizeof *n);
    if (!n)
        return -1;
    memcpy(n->name, name.text, ADV_NAME);
    n->line = kw.line, n->col = kw.col;
    n->count = 1;
    ADV_TRY(psk_adv_advance(ps));
    int have_count = 0, have_work = 0;
    char buf[64];
    while (psk_adv_is_word(ps, "count") || psk_adv_is_word(ps, "work")) {
        adv_token opt = ps->cur;
        if (!strcmp(opt.text, "count")) {
            adv_token at;
            ADV_TRY(setting(ps, &have_count, &opt));
            ADV_TRY(psk_adv_iconst(ps, "a count", &n->count, &at));
            if (n->count < 1)
                return psk_adv_fail(ps, &at, "count must be at least 1, not %lld", (long long)n->count);
            continue;
        }
        ADV_TRY(setting(ps, &have_work, &opt));
        adv_token w = ps->cur;
        if (w.type != ADV_T_INT && w.type != ADV_T_NUM)
            return psk_adv_fail(ps, &w, "work must be a non-negative decimal (us per iteration), not %s",
                                psk_adv_describe(ps, &w, buf, sizeof buf));
        if (w.len >= NUMLEN)
            return psk_adv_fail(ps, &w, "bad number (too long)");
        char num[NUMLEN];
        memcpy(num, ps->src + w.start, w.len);
        num[w.len] = 0;
        n->work_us = strtod(num, NULL);
        if (!isfinite(n->work_us))
            return psk_adv_fail(ps, &w, "value too large");
        ADV_TRY(psk_adv_advance(ps));
    }
    ADV_TRY(psk_adv_expect(ps, '{', "'{' (or count, work)"));
    int state = 0;
    while (psk_adv_is_word(ps, "for"))
        ADV_TRY(loop(ps, n, &state));
    if (!n->nloops)
        return psk_adv_fail(ps, &ps->cur, "nest %s has no loop: it starts with its for headers", n->name);
    if (!state)
        n->first_par = n->end_par = 0; /* all seq: they run whole, on the home's owners */
    while (ps->cur.type != '}') {
        if (ps->cur.type == ADV_T_EOF)
            return psk_adv_fail(ps, &ps->cur, "end of file inside nest %s (opened at line %d; no closing '}')", n->name,
                                kw.line);
        ADV_TRY(statement(ps, n));
    }
    if (!n->nstmts)
        return psk_adv_fail(ps, &ps->cur, "nest %s has no statement", n->name);
    return psk_adv_advance(ps);
}

static int program(adv_parser *ps)
{
    psk_adv_program *p = ps->p;
    ADV_TRY(psk_adv_advance(ps));
    while (ps->cur.type != ADV_T_EOF) {
        int64_t v;
        if (psk_adv_is_word(ps, "param")) {
            ADV_TRY(decl_param(ps));
        } else if (psk_adv_is_word(ps, "procs")) {
            ADV_TRY(decl_number(ps, &ps->have_procs, 1, INT64_MAX, &p->procs));
        } else if (psk_adv_is_word(ps, "maxdims")) {
            ADV_TRY(decl_number(ps, &ps->have_maxdims, 1, ADV_MAXDIM, &v));
            p->maxdims = (int)v;
        } else if (psk_adv_is_word(ps, "repeat")) {
            ADV_TRY(decl_number(ps, &ps->have_repeat, 1, INT64_MAX, &p->repeat));
        } else if (psk_adv_is_word(ps, "maxshadow")) {
            ADV_TRY(decl_number(ps, &ps->have_maxshadow, 0, INT32_MAX, &v));
            p->maxshadow = (int)v;
        } else if (psk_adv_is_word(ps, "machine")) {
            ADV_TRY(decl_machine(ps));
        } else if (psk_adv_is_word(ps, "array")) {
            ADV_TRY(decl_array(ps));
        } else if (psk_adv_is_word(ps, "scalar")) {
            ADV_TRY(decl_scalar(ps));
        } else if (psk_adv_is_word(ps, "nest")) {
            ADV_TRY(decl_nest(ps));
        } else {
            char buf[64];
            return psk_adv_fail(ps, &ps->cur,
                                "expected a declaration (param, procs, maxdims, machine, repeat, maxshadow, "
                                "array, scalar or nest), not %s",
                                psk_adv_describe(ps, &ps->cur, buf, sizeof buf));
        }
    }
    if (!p->nnests)
        return psk_adv_fail(ps, &ps->cur, "no nest in the file");
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
    adv_parser ps = {.src = text ? text : "", .len = text ? len : 0, .line = 1, .col = 1, .p = p, .defs = defs,
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
