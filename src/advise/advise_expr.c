/* The .adv reader's expressions. Integer ones (params' values, extents,
 * subscripts, loop bounds) become adv_affine forms over the nest's loops,
 * every operation overflow-checked and anything not affine refused. A
 * statement's right side is read only for the array references it makes:
 * its values do not matter to what a layout costs. Nesting is capped
 * (MAXDEPTH) so that no input can exhaust the stack. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"

#define MAXREFS 200000      /* array references in the whole program */
#define MAXDEPTH 200        /* nested parentheses, calls and subscripts */

/* ---- integer expressions: affine forms over the visible loops ---- */

static int is_const(const adv_affine *a)
{
    for (int k = 0; k < ADV_MAXDIM; k++)
        if (a->coef[k])
            return 0;
    return 1;
}

static int aff_add(adv_parser *ps, const adv_token *op, adv_affine *a, const adv_affine *b, int sub)
{
    int bad = sub ? __builtin_sub_overflow(a->c0, b->c0, &a->c0) : __builtin_add_overflow(a->c0, b->c0, &a->c0);
    for (int k = 0; k < ADV_MAXDIM; k++)
        bad |= sub ? __builtin_sub_overflow(a->coef[k], b->coef[k], &a->coef[k])
                   : __builtin_add_overflow(a->coef[k], b->coef[k], &a->coef[k]);
    return bad ? psk_adv_fail(ps, op, "value too large") : 0;
}

static int aff_scale(adv_parser *ps, const adv_token *op, adv_affine *a, int64_t c)
{
    int bad = __builtin_mul_overflow(a->c0, c, &a->c0);
    for (int k = 0; k < ADV_MAXDIM; k++)
        bad |= __builtin_mul_overflow(a->coef[k], c, &a->coef[k]);
    return bad ? psk_adv_fail(ps, op, "value too large") : 0;
}

static int iname(adv_parser *ps, const adv_ictx *c, adv_affine *out)
{
    const adv_token *t = &ps->cur;
    const adv_sym *s = psk_adv_sym_lookup(&ps->names, t->text);
    memset(out, 0, sizeof *out);
    if (s && s->kind == ADV_SYM_PARAM) {
        out->c0 = ps->p->params[s->index].value;
        return psk_adv_advance(ps);
    }
    if (s)
        return psk_adv_fail(ps, t, "%s is %s, not an integer (%s)", t->text,
                            s->kind == ADV_SYM_ARRAY ? "an array" : "a scalar", c->what);
    for (int k = 0; c->nest && k < c->nloops; k++) {
        if (strcmp(c->nest->loops[k].var, t->text))
            continue;
        if (k >= c->nvis)
            return psk_adv_fail(ps, t, "loop variable %s out of scope (a %s may use only the loops outside it)",
                                t->text, c->what);
        out->coef[k] = 1;
        return psk_adv_advance(ps);
    }
    if (psk_adv_sym_lookup(&ps->loopvars, t->text))
        return psk_adv_fail(ps, t, "loop variable %s out of scope", t->text);
    return psk_adv_fail(ps, t, "unknown name %s", t->text);
}

static int iprimary(adv_parser *ps, const adv_ictx *c, adv_affine *out)
{
    adv_token t = ps->cur;
    char buf[64];
    switch (t.type) {
    case ADV_T_INT:
        if (t.overflow)
            return psk_adv_fail(ps, &t, "value too large");
        memset(out, 0, sizeof *out);
        out->c0 = t.value;
        return psk_adv_advance(ps);
    case ADV_T_IDENT:
        return iname(ps, c, out);
    case '(':
        ADV_TRY(psk_adv_advance(ps));
        ADV_TRY(psk_adv_iexpr(ps, c, out));
        return psk_adv_expect(ps, ')', "')'");
    case ADV_T_NUM:
        return psk_adv_fail(ps, &t, "expected an integer, not %s (%s)", psk_adv_describe(ps, &t, buf, sizeof buf),
                            c->what);
    default:
        return psk_adv_fail(ps, &t, "expected an integer expression (%s), not %s", c->what,
                            psk_adv_describe(ps, &t, buf, sizeof buf));
    }
}

static int iunary(adv_parser *ps, const adv_ictx *c, adv_affine *out)
{
    adv_token t = ps->cur;
    if (t.type != '-' && t.type != '+')
        return iprimary(ps, c, out);
    if (++ps->depth > MAXDEPTH)
        return psk_adv_fail(ps, &t, "expression nested too deeply");
    ADV_TRY(psk_adv_advance(ps));
    ADV_TRY(iunary(ps, c, out));
    ps->depth--;
    return t.type == '-' ? aff_scale(ps, &t, out, -1) : 0;
}

static int iterm(adv_parser *ps, const adv_ictx *c, adv_affine *out)
{
    ADV_TRY(iunary(ps, c, out));
    while (ps->cur.type == '*') {
        adv_token op = ps->cur;
        adv_affine b;
        ADV_TRY(psk_adv_advance(ps));
        ADV_TRY(iunary(ps, c, &b));
        if (is_const(out)) {
            ADV_TRY(aff_scale(ps, &op, &b, out->c0));
            *out = b;
        } else if (is_const(&b)) {
            ADV_TRY(aff_scale(ps, &op, out, b.c0));
        } else {
            return psk_adv_fail(ps, &op, "non-affine %s (a product of loop variables)", c->what);
        }
    }
    if (ps->cur.type == '/' || ps->cur.type == '%')
        return psk_adv_fail(ps, &ps->cur, "'%c' in an integer expression (%s): only + - * and parentheses",
                            ps->cur.type, c->what);
    return 0;
}

int psk_adv_iexpr(adv_parser *ps, const adv_ictx *c, adv_affine *out)
{
    if (++ps->depth > MAXDEPTH)
        return psk_adv_fail(ps, &ps->cur, "expression nested too deeply");
    ADV_TRY(iterm(ps, c, out));
    while (ps->cur.type == '+' || ps->cur.type == '-') {
        adv_token op = ps->cur;
        adv_affine b;
        ADV_TRY(psk_adv_advance(ps));
        ADV_TRY(iterm(ps, c, &b));
        ADV_TRY(aff_add(ps, &op, out, &b, op.type == '-'));
    }
    ps->depth--;
    return 0;
}

/* a constant integer expression (params and numbers); *at: where it starts */
int psk_adv_iconst(adv_parser *ps, const char *what, int64_t *v, adv_token *at)
{
    adv_ictx c = {.what = what};
    adv_affine a;
    *at = ps->cur;
    ADV_TRY(psk_adv_iexpr(ps, &c, &a));
    *v = a.c0;
    return 0;
}

/* ---- a statement's right side: the array references it reads ---- */

/* An array reference at ps->cur (its name, then '[' follows) into r, every
 * subscript over all the nest's loops. */
int psk_adv_aref(adv_parser *ps, const adv_nest *n, adv_ref *r)
{
    adv_token name = ps->cur;
    const adv_sym *s = psk_adv_sym_lookup(&ps->names, name.text);
    if (!s || s->kind != ADV_SYM_ARRAY)
        return psk_adv_fail(ps, &name, s ? "%s is not an array" : "unknown array %s", name.text);
    if (++ps->nrefs > MAXREFS)
        return psk_adv_fail(ps, &name, "too many array references (at most %d)", MAXREFS);
    const adv_array *a = &ps->p->arrays[s->index];
    memset(r, 0, sizeof *r);
    r->array = s->index, r->line = name.line, r->col = name.col;
    ADV_TRY(psk_adv_advance(ps));
    int nsub = 0;
    adv_ictx c = {.nest = n, .nloops = n->nloops, .nvis = n->nloops, .what = "subscript"};
    while (ps->cur.type == '[') {
        if (nsub == ADV_MAXDIM)
            return psk_adv_fail(ps, &name, "wrong number of subscripts: %s has %d dimension%s, more given", name.text,
                                a->ndim, a->ndim > 1 ? "s" : "");
        if (++ps->depth > MAXDEPTH)
            return psk_adv_fail(ps, &ps->cur, "expression nested too deeply");
        ADV_TRY(psk_adv_advance(ps));
        adv_token at = ps->cur;
        adv_affine f;
        ADV_TRY(psk_adv_iexpr(ps, &c, &f));
        int var = -1;
        for (int k = 0; k < n->nloops; k++) {
            if (!f.coef[k])
                continue;
            if (var >= 0)
                return psk_adv_fail(ps, &at, "subscript uses two loop variables, %s and %s (at most one)",
                                    n->loops[var].var, n->loops[k].var);
            var = k;
        }
        r->sub_var[nsub] = var;
        r->sub_coef[nsub] = var >= 0 ? f.coef[var] : 0;
        r->sub_off[nsub] = f.c0;
        nsub++;
        ADV_TRY(psk_adv_expect(ps, ']', "']'"));
        ps->depth--;
    }
    if (nsub != a->ndim)
        return psk_adv_fail(ps, &name, "wrong number of subscripts: %s has %d dimension%s, %d given", name.text,
                            a->ndim, a->ndim > 1 ? "s" : "", nsub);
    return 0;
}

int psk_adv_add_read(adv_parser *ps, adv_stmt *st, const adv_ref *r)
{
    if (st->nreads == ps->reads_cap) {
        int cap = ps->reads_cap ? 2 * ps->reads_cap : 4;
        adv_ref *b = realloc(st->reads, (size_t)cap * sizeof *b);
        if (!b)
            return psk_adv_oom(ps);
        st->reads = b;
        ps->reads_cap = cap;
    }
    st->reads[st->nreads++] = *r;
    return 0;
}

static int vprimary(adv_parser *ps, const adv_nest *n, adv_stmt *st)
{
    adv_token t = ps->cur;
    char buf[64];
    switch (t.type) {
    case ADV_T_INT:
    case ADV_T_NUM:
        return psk_adv_advance(ps);
    case '(':
        ADV_TRY(psk_adv_advance(ps));
        ADV_TRY(psk_adv_vexpr(ps, n, st));
        return psk_adv_expect(ps, ')', "')'");
    case ADV_T_IDENT:
        break;
    default:
        return psk_adv_fail(ps, &t, "expected an expression, not %s", psk_adv_describe(ps, &t, buf, sizeof buf));
    }
    int next = psk_adv_peek(ps);
    if (next == '[') {
        adv_ref r;
        ADV_TRY(psk_adv_aref(ps, n, &r));
        return psk_adv_add_read(ps, st, &r);
    }
    if (next == '(') { /* a call: only its arguments matter */
        ADV_TRY(psk_adv_advance(ps));
        ADV_TRY(psk_adv_advance(ps));
        if (ps->cur.type != ')') {
            ADV_TRY(psk_adv_vexpr(ps, n, st));
            while (ps->cur.type == ',') {
                ADV_TRY(psk_adv_advance(ps));
                ADV_TRY(psk_adv_vexpr(ps, n, st));
            }
        }
        return psk_adv_expect(ps, ')', "')' or ','");
    }
    const adv_sym *s = psk_adv_sym_lookup(&ps->names, t.text);
    if (s && s->kind == ADV_SYM_ARRAY) {
        int nd = ps->p->arrays[s->index].ndim;
        return psk_adv_fail(ps, &t, "wrong number of subscripts: %s has %d dimension%s, 0 given", t.text, nd,
                            nd > 1 ? "s" : "");
    }
    return psk_adv_advance(ps); /* a param, loop variable, scalar or constant: a value */
}

int psk_adv_vexpr(adv_parser *ps, const adv_nest *n, adv_stmt *st)
{
    if (++ps->depth > MAXDEPTH)
        return psk_adv_fail(ps, &ps->cur, "expression nested too deeply");
    for (;;) {
        while (ps->cur.type == '-' || ps->cur.type == '+')
            ADV_TRY(psk_adv_advance(ps));
        ADV_TRY(vprimary(ps, n, st));
        int op = ps->cur.type;
        if (op != '+' && op != '-' && op != '*' && op != '/' && op != '%')
            break;
        ADV_TRY(psk_adv_advance(ps));
    }
    ps->depth--;
    return 0;
}
