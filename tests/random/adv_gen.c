/*
 * adv_gen: random valid .adv programs (docs/advise.md) from a seed, and
 * mutations of them for the malformed-input pass. The generator keeps a
 * model of what is declared and in scope so that every program parses:
 * params, 1-6 arrays of 1-3 dimensions (some readonly), scalars, 1-6 nests
 * with loop kinds in the order seq* (par|across)* seq*, triangular bounds,
 * subscripts c*v+k (c in -1, 1, 2), constants, transposes, offsets beyond
 * maxshadow, updates, reductions and comments. Built with -DADV_GEN_MAIN
 * it is the command `adv_gen SEED [--aligned] [--mutate M]`.
 */
#include "adv_gen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the seed's random stream: splitmix64 seeds a xorshift64* ---- */

typedef struct rng {
    uint64_t s;
} rng;

static void rng_seed(rng *r, uint64_t seed)
{
    uint64_t z = seed + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    r->s = (z ^ (z >> 31)) | 1; /* xorshift's state must not be 0 */
}

static uint64_t rng_next(rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545f4914f6cdd1dull;
}

static int rnd(rng *r, int n) { return n <= 1 ? 0 : (int)(rng_next(r) % (uint64_t)n); }
static int between(rng *r, int lo, int hi) { return lo + rnd(r, hi - lo + 1); }
static int chance(rng *r, int pct) { return rnd(r, 100) < pct; }

/* ---- a growable text buffer (on out of memory it stops growing and
 * remembers it) ---- */

typedef struct buf {
    char *s;
    size_t len, cap;
    int oom;
} buf;

static void put(buf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t nc = b->cap ? b->cap * 2 : 4096;
        while (nc <= b->len + (size_t)n)
            nc *= 2;
        char *s = realloc(b->s, nc);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = nc;
    }
}

/* ---- the program's model ---- */

#define MAXP 4
#define MAXA 6
#define MAXS 3

typedef struct gen {
    rng r;
    buf b;
    const adv_gen_opts *o;
    int nparam;
    char pname[MAXP][4];
    int pval[MAXP];
    int narr;
    int ndim[MAXA];
    char ext[MAXA][3][24]; /* the extent as written */
    int extv[MAXA][3];     /* and its value */
    int ro[MAXA];
    int wextra;            /* array W (the last one) added to have something writable */
    int nscal;
    int nnest;
    int maxshadow;
} gen;

static const char *const loopvar[] = {"i", "j", "k", "l"};

static void comment(gen *g)
{
    static const char *const what[] = {"a comment", "for i = 0 .. N par { }", "nest x { }; A[i] = 1",
                                       "", "array Z[3] double;", "# nested", "procs 0;"};
    if (chance(&g->r, 12))
        put(&g->b, "%s %s\n", chance(&g->r, 50) ? "#" : "//", what[rnd(&g->r, 7)]);
}

/* an integer expression of value in [1, 200], from a param or a number */
static int extent_expr(gen *g, char *out, size_t len)
{
    if (g->nparam && chance(&g->r, 65)) {
        int p = rnd(&g->r, g->nparam), v = g->pval[p];
        switch (rnd(&g->r, 4)) {
        case 0:
            if (v + 3 <= 200) {
                snprintf(out, len, "%s+3", g->pname[p]);
                return v + 3;
            }
            break;
        case 1:
            if (v - 1 >= 1) {
                snprintf(out, len, "%s - 1", g->pname[p]);
                return v - 1;
            }
            break;
        case 2:
            if (2 * v <= 200) {
                snprintf(out, len, "2*%s", g->pname[p]);
                return 2 * v;
            }
            break;
        }
        snprintf(out, len, "%s", g->pname[p]);
        return v;
    }
    int v = chance(&g->r, 20) ? between(&g->r, 1, 4) : between(&g->r, 1, 200);
    snprintf(out, len, "%d", v);
    return v;
}

static void header(gen *g)
{
    static const char *const pn[] = {"N", "M", "Q", "R"};
    static const int procs[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 24, 30, 31, 32, 36, 48, 60, 64};
    g->nparam = rnd(&g->r, MAXP + 1);
    for (int p = 0; p < g->nparam; p++) {
        strcpy(g->pname[p], pn[p]);
        g->pval[p] = chance(&g->r, 15) ? between(&g->r, 1, 5) : between(&g->r, 6, 200);
        if (p > 0 && chance(&g->r, 25) && g->pval[p - 1] + 2 <= 200) {
            g->pval[p] = g->pval[p - 1] + 2; /* a param from an earlier one */
            put(&g->b, "param %s = %s + 2;", g->pname[p], g->pname[p - 1]);
        } else
            put(&g->b, "param %s = %d;", g->pname[p], g->pval[p]);
        put(&g->b, chance(&g->r, 20) ? "   # a size\n" : "\n");
        comment(g);
    }
    put(&g->b, "procs %d;\n", procs[rnd(&g->r, (int)(sizeof procs / sizeof procs[0]))]);
    if (chance(&g->r, 75))
        put(&g->b, "maxdims %d;\n", between(&g->r, 1, 3));
    if (chance(&g->r, 50))
        put(&g->b, "repeat %d;\n", chance(&g->r, 30) ? 1 : between(&g->r, 2, 50));
    g->maxshadow = 4;
    if (chance(&g->r, 30)) {
        g->maxshadow = between(&g->r, 0, 4);
        put(&g->b, "maxshadow %d;\n", g->maxshadow);
    }
    comment(g);
}

static void arrays(gen *g)
{
    static const char *const an[] = {"A", "B", "C", "D", "E", "F"};
    static const char *const ty[] = {"char", "int", "float", "long", "double", "complex"};
    g->narr = between(&g->r, 1, MAXA);
    g->nscal = rnd(&g->r, MAXS + 1);
    for (int a = 0; a < g->narr; a++) {
        g->ndim[a] = between(&g->r, 1, 3);
        g->ro[a] = chance(&g->r, 25);
        put(&g->b, "array %s", an[a]);
        for (int d = 0; d < g->ndim[a]; d++) {
            g->extv[a][d] = extent_expr(g, g->ext[a][d], sizeof g->ext[a][d]);
            put(&g->b, "[%s]", g->ext[a][d]);
        }
        if (chance(&g->r, 15))
            put(&g->b, " bytes %d", between(&g->r, 1, 64));
        else
            put(&g->b, " %s", ty[chance(&g->r, 50) ? 4 : rnd(&g->r, 6)]);
        put(&g->b, "%s;\n", g->ro[a] ? " readonly" : "");
        comment(g);
    }
    /* something must be writable: an array, or a scalar for reductions
     * (the aligned programs have no reductions) */
    int w = 0;
    for (int a = 0; a < g->narr; a++)
        w |= !g->ro[a];
    if (!w && (g->o->aligned || g->nscal == 0)) {
        int v = between(&g->r, 1, 200);
        put(&g->b, "array W[%d] double;\n", v);
        g->ndim[g->narr] = 1;
        g->ro[g->narr] = 0;
        g->extv[g->narr][0] = v;
        snprintf(g->ext[g->narr][0], sizeof g->ext[0][0], "%d", v);
        g->wextra = 1;
        g->narr++;
    }
    for (int s = 0; s < g->nscal; s++)
        put(&g->b, "scalar s%d %s;\n", s, chance(&g->r, 70) ? "double" : "long");
}

static const char *aname(const gen *g, int a)
{
    static const char *const an[] = {"A", "B", "C", "D", "E", "F"};
    return g->wextra && a == g->narr - 1 ? "W" : an[a];
}

/* a nest's loops, in scope for its statements */
typedef struct nestm {
    int nloops;
    int kind[4];
} nestm;

/* subscript d: loop variable v (-1: a constant) with coefficient c and
 * offset k, written as text */
typedef struct sub {
    int v, c, k;
    char text[48];
} sub;

static void sub_text(gen *g, sub *s, int a, int d)
{
    if (s->v < 0) {
        if (s->k < 0 && a >= 0) /* the last index, by its extent expression */
            snprintf(s->text, sizeof s->text, "%s-1", g->ext[a][d]);
        else
            snprintf(s->text, sizeof s->text, "%d", s->k < 0 ? 0 : s->k);
        return;
    }
    const char *v = loopvar[s->v];
    if (s->c == 1) {
        if (s->k)
            snprintf(s->text, sizeof s->text, "%s%s%d", v, s->k > 0 ? "+" : "", s->k);
        else
            snprintf(s->text, sizeof s->text, "%s", v);
    } else if (s->c == 2)
        snprintf(s->text, sizeof s->text, "2*%s%s%d", v, s->k >= 0 ? "+" : "", s->k);
    else if (a >= 0 && chance(&g->r, 50)) /* N-1-i: the extent's mirror */
        snprintf(s->text, sizeof s->text, "%s-1-%s", g->ext[a][d], v);
    else
        snprintf(s->text, sizeof s->text, "-%s+%d", v, s->k);
}

static void random_sub(gen *g, const nestm *n, sub *s, int pref)
{
    memset(s, 0, sizeof *s);
    if (chance(&g->r, 12)) {
        s->v = -1;
        s->k = chance(&g->r, 30) ? -1 : between(&g->r, 0, 5);
        return;
    }
    s->v = pref >= 0 && pref < n->nloops && chance(&g->r, 75) ? pref : rnd(&g->r, n->nloops);
    int c = rnd(&g->r, 10);
    s->c = c < 7 ? 1 : c < 9 ? -1 : 2;
    if (s->c == -1) {
        s->k = between(&g->r, 0, 10);
        return;
    }
    int o = rnd(&g->r, 10);
    s->k = o < 5 ? 0 : o < 8 ? between(&g->r, -2, 2) : between(&g->r, -6, 6); /* beyond maxshadow sometimes */
}

static void ref(gen *g, int a, sub *subs)
{
    put(&g->b, "%s", aname(g, a));
    for (int d = 0; d < g->ndim[a]; d++) {
        sub s = subs[d];
        /* aligned: no extent-relative forms (N-1-i, N-1), which differ
         * between arrays */
        sub_text(g, &s, g->o->aligned ? -1 : a, d);
        put(&g->b, "[%s]", s.text);
    }
}

/* a read of some array, its subscripts random (often in the nest's
 * natural order, sometimes transposed) */
static void random_ref(gen *g, const nestm *n)
{
    int a = rnd(&g->r, g->narr);
    sub subs[3];
    int transpose = chance(&g->r, 15);
    for (int d = 0; d < g->ndim[a]; d++)
        random_sub(g, n, &subs[d], transpose ? g->ndim[a] - 1 - d : d);
    ref(g, a, subs);
}

/* an expression: numbers, params, loop variables, scalars, calls and
 * array reads (aligned: reads of same-rank arrays with subscripts subs) */
static void expr(gen *g, const nestm *n, int depth, int rank, sub *subs)
{
    int k = rnd(&g->r, 10);
    if (depth > 2)
        k = k < 5 ? 0 : 1;
    if (k < 4) { /* a read */
        if (rank) {
            int cand[MAXA + 1], nc = 0;
            for (int a = 0; a < g->narr; a++)
                if (g->ndim[a] == rank)
                    cand[nc++] = a;
            ref(g, cand[rnd(&g->r, nc)], subs);
        } else
            random_ref(g, n);
    } else if (k < 6) { /* a value */
        switch (rnd(&g->r, 5)) {
        case 0: put(&g->b, "%d", between(&g->r, 0, 99)); break;
        case 1: put(&g->b, "%d.%d", between(&g->r, 0, 9), between(&g->r, 0, 999)); break;
        case 2:
            if (g->nparam) {
                put(&g->b, "%s", g->pname[rnd(&g->r, g->nparam)]);
                break;
            }
            /* fall through */
        case 3: put(&g->b, "%s", loopvar[rnd(&g->r, n->nloops)]); break;
        default:
            if (g->nscal)
                put(&g->b, "s%d", rnd(&g->r, g->nscal));
            else
                put(&g->b, "2.5e-1");
        }
    } else if (k < 8) {
        static const char *const op[] = {" + ", " - ", " * ", " / ", " % "};
        expr(g, n, depth + 1, rank, subs);
        put(&g->b, "%s", op[rnd(&g->r, 5)]);
        if (chance(&g->r, 20))
            put(&g->b, "-");
        expr(g, n, depth + 1, rank, subs);
    } else if (k < 9) {
        put(&g->b, "(");
        expr(g, n, depth + 1, rank, subs);
        put(&g->b, ")");
    } else {
        static const char *const fn[] = {"f", "g", "sqrt", "max"};
        int na = rnd(&g->r, 4);
        put(&g->b, "%s(", fn[rnd(&g->r, 4)]);
        for (int i = 0; i < na; i++) {
            if (i)
                put(&g->b, ", ");
            expr(g, n, depth + 1, rank, subs);
        }
        put(&g->b, ")");
    }
}

static void bound(gen *g, const nestm *n, int l, int hi)
{
    (void)n;
    int k = rnd(&g->r, 10);
    if (l > 0 && k < 2) { /* triangular: on an outer variable */
        const char *v = loopvar[rnd(&g->r, l)];
        if (hi)
            put(&g->b, "%s%s", v, chance(&g->r, 50) ? "" : "+2");
        else
            put(&g->b, "%s+1", v);
        return;
    }
    if (!hi) {
        put(&g->b, "%d", k < 6 ? 0 : k < 9 ? 1 : between(&g->r, 2, 6));
        return;
    }
    char e[24];
    int a = rnd(&g->r, g->narr), d = rnd(&g->r, g->ndim[a]);
    if (k < 8 && g->narr)
        snprintf(e, sizeof e, "%s", g->ext[a][d]);
    else
        extent_expr(g, e, sizeof e);
    put(&g->b, k == 9 ? "%s-2" : "%s-1", e);
}

static void nest(gen *g, int id)
{
    static const char *const kinds[] = {"seq", "par", "across"};
    static const char *const upd[] = {"+=", "-=", "*=", "/=", "min=", "max="};
    nestm n;
    memset(&n, 0, sizeof n);
    int rank = 0; /* aligned: the rank of every array the nest uses */
    if (g->o->aligned) {
        int w[MAXA + 1], nw = 0;
        for (int a = 0; a < g->narr; a++)
            if (!g->ro[a])
                w[nw++] = a;
        rank = g->ndim[w[rnd(&g->r, nw)]];
    }
    n.nloops = between(&g->r, rank ? rank : 1, 3);
    /* seq* (par|across)* seq*: an outer seq prefix, a parallel middle, an
     * inner seq suffix */
    int nout = chance(&g->r, 25) ? 1 : 0, npar = rnd(&g->r, 4);
    /* aligned, mostly: every subscript on a par/across variable (only
     * those make alignment arcs, advise_align.c) */
    int parsubs = rank && chance(&g->r, 80);
    if (parsubs) {
        nout = n.nloops > rank && chance(&g->r, 30) ? 1 : 0;
        npar = rank + rnd(&g->r, n.nloops - rank - nout + 1);
    }
    for (int l = 0; l < n.nloops; l++) {
        if (l < nout && n.nloops > 1)
            n.kind[l] = 0;
        else if (npar > 0) {
            n.kind[l] = chance(&g->r, 20) ? 2 : 1;
            npar--;
        } else
            n.kind[l] = 0;
    }
    put(&g->b, "\nnest n%d", id);
    if (chance(&g->r, 40))
        put(&g->b, " count %d", between(&g->r, 1, 5));
    if (chance(&g->r, 85)) {
        switch (rnd(&g->r, 4)) {
        case 0: put(&g->b, " work 0.00%d", between(&g->r, 1, 9)); break;
        case 1: put(&g->b, " work %d.%d", between(&g->r, 0, 2), between(&g->r, 0, 99)); break;
        case 2: put(&g->b, " work %de-3", between(&g->r, 1, 20)); break;
        default: put(&g->b, " work 0"); break;
        }
    }
    put(&g->b, " {%s\n", chance(&g->r, 20) ? "  // its loops" : "");
    for (int l = 0; l < n.nloops; l++) {
        put(&g->b, "  for %s = ", loopvar[l]);
        bound(g, &n, l, 0);
        put(&g->b, " .. ");
        bound(g, &n, l, 1);
        put(&g->b, " %s\n", kinds[n.kind[l]]);
    }
    int nst = between(&g->r, 1, 3);
    /* aligned: one subscript tuple for the whole nest, on distinct loop
     * variables (a constant subscript would leave that dimension out of
     * the alignment: Y[5] = X[5] with X distributed and Y not reads X
     * remotely, however the arrays are laid out) */
    sub subs[3];
    if (rank) {
        unsigned used = 0;
        for (int d = 0; d < rank; d++) {
            do
                random_sub(g, &n, &subs[d], d);
            while (subs[d].v < 0 || (used >> subs[d].v & 1u) || (parsubs && n.kind[subs[d].v] == 0));
            used |= 1u << subs[d].v;
        }
    }
    for (int s = 0; s < nst; s++) {
        put(&g->b, "    ");
        int w[MAXA + 1], nw = 0;
        for (int a = 0; a < g->narr; a++)
            if (!g->ro[a] && (!rank || g->ndim[a] == rank))
                w[nw++] = a;
        int scalar = !g->o->aligned && g->nscal && (nw == 0 || chance(&g->r, 20));
        if (scalar) {
            put(&g->b, "s%d %s ", rnd(&g->r, g->nscal), upd[rnd(&g->r, 6)]);
        } else {
            int a = w[rnd(&g->r, nw)];
            if (rank)
                ref(g, a, subs);
            else {
                sub ls[3];
                int transpose = chance(&g->r, 10);
                for (int d = 0; d < g->ndim[a]; d++)
                    random_sub(g, &n, &ls[d], transpose ? g->ndim[a] - 1 - d : d);
                ref(g, a, ls);
            }
            put(&g->b, " %s ", chance(&g->r, 70) ? "=" : upd[rnd(&g->r, 6)]);
        }
        expr(g, &n, 0, rank, subs);
        put(&g->b, ";%s\n", chance(&g->r, 10) ? "  # why" : "");
    }
    put(&g->b, "}\n");
    comment(g);
}

char *adv_gen_program(uint64_t seed, const adv_gen_opts *o, size_t *len)
{
    static const adv_gen_opts none = {0};
    gen g;
    memset(&g, 0, sizeof g);
    g.o = o ? o : &none;
    rng_seed(&g.r, seed);
    put(&g.b, "# adv_gen seed %llu%s\n", (unsigned long long)seed, g.o->aligned ? " (aligned)" : "");
    header(&g);
    arrays(&g);
    g.nnest = between(&g.r, 1, 6);
    for (int n = 0; n < g.nnest; n++)
        nest(&g, n);
    if (g.b.oom) {
        free(g.b.s);
        return NULL;
    }
    *len = g.b.len;
    return g.b.s;
}

/* ---- mutations ---- */

/* the start of the token at or after byte at, and its end */
static size_t tok_end(const char *t, size_t len, size_t at)
{
    if (at >= len)
        return len;
    char c = t[at];
    int word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    size_t e = at + 1;
    while (word && e < len) {
        c = t[e];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.'))
            break;
        e++;
    }
    return e;
}

char *adv_gen_mutate(const char *text, size_t len, uint64_t seed, size_t *outlen)
{
    rng r;
    rng_seed(&r, seed * 7919 + 17);
    size_t cap = 2 * len + 64;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    memcpy(s, text, len);
    size_t n = len;
    int rounds = between(&r, 1, 3);
    static const char junk[] = "[](){};=+-*/%.,#\"\n 0123456789eNijk_AZ\t\\@$'";
    for (int k = 0; k < rounds && n > 0; k++) {
        size_t at = (size_t)(rng_next(&r) % n);
        size_t e = tok_end(s, n, at);
        switch (rnd(&r, 7)) {
        case 0: /* truncate */
            n = at;
            break;
        case 1: /* flip a byte: any value, NUL included */
            s[at] = (char)(chance(&r, 50) ? rnd(&r, 256) : junk[rnd(&r, (int)sizeof junk - 1)]);
            break;
        case 2: /* flip one bit */
            s[at] ^= (char)(1 << rnd(&r, 8));
            break;
        case 3: /* delete a token */
            memmove(s + at, s + e, n - e);
            n -= e - at;
            break;
        case 4: /* duplicate a token */
            if (n + (e - at) < cap) {
                memmove(s + e + (e - at), s + e, n - e);
                memcpy(s + e, s + at, e - at);
                n += e - at;
            }
            break;
        case 5: /* insert a character */
            if (n + 1 < cap) {
                memmove(s + at + 1, s + at, n - at);
                s[at] = junk[rnd(&r, (int)sizeof junk - 1)];
                n++;
            }
            break;
        default: { /* move a token elsewhere */
            char tok[64];
            size_t tl = e - at < sizeof tok ? e - at : sizeof tok;
            memcpy(tok, s + at, tl);
            memmove(s + at, s + at + tl, n - at - tl);
            n -= tl;
            size_t to = n ? (size_t)(rng_next(&r) % n) : 0;
            memmove(s + to + tl, s + to, n - to);
            memcpy(s + to, tok, tl);
            n += tl;
        }
        }
    }
    *outlen = n;
    return s;
}

#ifdef ADV_GEN_MAIN
int main(int argc, char **argv)
{
    adv_gen_opts o = {0};
    int mutate = -1;
    char *end;
    if (argc < 2)
        goto usage;
    unsigned long long seed = strtoull(argv[1], &end, 10);
    if (!argv[1][0] || *end)
        goto usage;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--aligned"))
            o.aligned = 1;
        else if (!strcmp(argv[i], "--mutate") && i + 1 < argc) {
            mutate = (int)strtol(argv[++i], &end, 10);
            if (*end || mutate < 0)
                goto usage;
        } else
            goto usage;
    }
    size_t len;
    char *t = adv_gen_program(seed, &o, &len);
    if (!t) {
        fprintf(stderr, "adv_gen: out of memory\n");
        return 1;
    }
    if (mutate >= 0) {
        size_t ml;
        char *m = adv_gen_mutate(t, len, seed * 1000003u + (unsigned)mutate, &ml);
        free(t);
        if (!m) {
            fprintf(stderr, "adv_gen: out of memory\n");
            return 1;
        }
        t = m;
        len = ml;
    }
    fwrite(t, 1, len, stdout);
    free(t);
    return fflush(stdout) ? 1 : 0;
usage:
    fprintf(stderr, "usage: adv_gen SEED [--aligned] [--mutate M]\n"
                    "  writes one random valid .adv program (docs/advise.md) to stdout;\n"
                    "  --aligned: every read on its nest's left side's subscripts, no reductions;\n"
                    "  --mutate M: that program mutated (truncated, bytes flipped, tokens\n"
                    "  deleted, duplicated or moved), M choosing the mutation\n");
    return 2;
}
#endif
