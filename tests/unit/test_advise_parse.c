/* Unit tests of the .adv reader (advise_parse.c, docs/advise.md's
 * language): the bundled examples (examples/advise) parse into the IR
 * fields they should, -D overrides params, every kind of mistake is
 * reported at its exact "PATH:LINE:COL:", and 20000 random mutations of
 * the examples never crash the reader: each either fails with a message
 * naming the file or yields an IR that keeps advise_internal.h's
 * invariants (checked by an independent walk). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "advise_internal.h"

#ifndef PSK_EXAMPLES
#error "PSK_EXAMPLES: the examples/advise directory"
#endif

static const char *const examples[] = {"jacobi", "matmul", "adi", "lu", "transpose", "offset", "matvec", "dot"};
#define NEX (sizeof examples / sizeof *examples)

static psk_adv_program *load(const char *name, const psk_adv_define *defs, int ndefs)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.adv", PSK_EXAMPLES, name);
    psk_adv_program *p = NULL;
    int rc = psk_adv_load(path, defs, ndefs, &p);
    if (rc)
        fprintf(stderr, "%s\n", psk_adv_program_errmsg(p));
    assert_int_equal(rc, PSK_OK);
    return p;
}

static const adv_array *array(const psk_adv_program *p, const char *name)
{
    for (int a = 0; a < p->narrays; a++)
        if (!strcmp(p->arrays[a].name, name))
            return &p->arrays[a];
    fail_msg("no array %s", name);
    return NULL;
}

/* subscript d of r is c * (loop v) + k */
static void sub_is(const adv_ref *r, int d, int v, int64_t c, int64_t k)
{
    assert_int_equal(r->sub_var[d], v);
    assert_int_equal(r->sub_coef[d], c);
    assert_int_equal(r->sub_off[d], k);
}

static void test_jacobi(void **state)
{
    (void)state;
    psk_adv_program *p = load("jacobi", NULL, 0);
    assert_int_equal(p->procs, 16);
    assert_int_equal(p->repeat, 100);
    assert_int_equal(p->maxdims, 2);
    assert_int_equal(p->maxshadow, 4);
    assert_null(psk_adv_program_machine(p));
    assert_int_equal(p->nparams, 1);
    assert_int_equal(p->params[0].value, 512);
    assert_int_equal(p->narrays, 2);
    const adv_array *A = array(p, "A");
    assert_int_equal(A->ndim, 2);
    assert_int_equal(A->extent[0], 512);
    assert_int_equal(A->extent[1], 512);
    assert_int_equal(A->elsize, 8);
    assert_int_equal(A->readonly, 0);
    assert_int_equal(p->nnests, 2);
    const adv_nest *n = &p->nests[0];
    assert_string_equal(n->name, "relax");
    assert_int_equal(n->count, 1);
    assert_true(n->work_us == 0.004);
    assert_int_equal(n->nloops, 2);
    assert_int_equal(n->loops[0].kind, ADV_PAR);
    assert_int_equal(n->loops[1].kind, ADV_PAR);
    assert_int_equal(n->first_par, 0);
    assert_int_equal(n->end_par, 2);
    assert_int_equal(n->loops[1].lo.c0, 1);
    assert_int_equal(n->loops[1].hi.c0, 510);
    assert_int_equal(n->loops[1].hi.coef[0], 0);
    assert_int_equal(n->nstmts, 1);
    const adv_stmt *s = &n->stmts[0];
    assert_int_equal(s->assign, ADV_SET);
    assert_int_equal(s->lhs_array, 1);
    assert_int_equal(s->lhs_scalar, -1);
    assert_int_equal(s->nreads, 4);
    sub_is(&s->reads[0], 0, 0, 1, -1); /* A[i-1][j] */
    sub_is(&s->reads[0], 1, 1, 1, 0);
    sub_is(&s->reads[3], 0, 0, 1, 0); /* A[i][j+1] */
    sub_is(&s->reads[3], 1, 1, 1, 1);
    assert_int_equal(s->reads[3].line, 15);
    assert_int_equal(p->nests[1].stmts[0].nreads, 1);
    assert_true(p->nests[1].work_us == 0.001);
    psk_adv_program_free(p);

    /* -D N=64 overrides, and the extents and bounds follow it */
    psk_adv_define d[] = {{"N", 1000}, {"N", 64}}; /* the last wins */
    p = load("jacobi", d, 2);
    assert_int_equal(p->params[0].value, 64);
    assert_int_equal(p->arrays[0].extent[1], 64);
    assert_int_equal(p->nests[0].loops[0].hi.c0, 62);
    psk_adv_program_free(p);
}

static void test_matmul_matvec_dot(void **state)
{
    (void)state;
    psk_adv_program *p = load("matmul", NULL, 0);
    assert_int_equal(array(p, "A")->readonly, 1);
    assert_int_equal(array(p, "B")->readonly, 1);
    assert_int_equal(array(p, "C")->readonly, 0);
    const adv_nest *n = &p->nests[0];
    assert_int_equal(n->nloops, 3);
    assert_int_equal(n->loops[2].kind, ADV_SEQ);
    assert_int_equal(n->first_par, 0);
    assert_int_equal(n->end_par, 2);
    const adv_stmt *s = &n->stmts[0];
    assert_int_equal(s->assign, ADV_UPDATE);
    assert_int_equal(s->nreads, 3); /* A, B, then C: the update reads its lhs */
    assert_int_equal(s->reads[2].array, s->lhs_array);
    sub_is(&s->reads[0], 0, 0, 1, 0); /* A[i][k] */
    sub_is(&s->reads[0], 1, 2, 1, 0);
    sub_is(&s->reads[1], 0, 2, 1, 0); /* B[k][j] */
    sub_is(&s->reads[1], 1, 1, 1, 0);
    psk_adv_program_free(p);

    p = load("matvec", NULL, 0);
    s = &p->nests[0].stmts[0];
    assert_int_equal(s->nreads, 3);
    assert_int_equal(p->nests[0].first_par, 0);
    assert_int_equal(p->nests[0].end_par, 1);
    sub_is(&s->reads[1], 0, 1, 1, 0); /* x[j] */
    psk_adv_program_free(p);

    p = load("dot", NULL, 0);
    assert_int_equal(p->nscalars, 1);
    assert_int_equal(p->scalars[0].elsize, 8);
    s = &p->nests[0].stmts[0];
    assert_int_equal(s->lhs_array, -1);
    assert_int_equal(s->lhs_scalar, 0);
    assert_int_equal(s->assign, ADV_UPDATE);
    assert_int_equal(s->nreads, 2);
    assert_int_equal(p->arrays[0].extent[0], 1000000);
    psk_adv_program_free(p);
}

static void test_lu_adi_transpose_offset(void **state)
{
    (void)state;
    psk_adv_program *p = load("lu", NULL, 0);
    const adv_nest *n = &p->nests[0];
    assert_int_equal(n->loops[0].kind, ADV_SEQ);
    assert_int_equal(n->first_par, 1);
    assert_int_equal(n->end_par, 3);
    assert_int_equal(n->loops[1].lo.c0, 1); /* k+1 */
    assert_int_equal(n->loops[1].lo.coef[0], 1);
    assert_int_equal(n->loops[2].lo.coef[0], 1);
    assert_int_equal(n->loops[2].lo.coef[1], 0);
    assert_int_equal(n->loops[1].hi.c0, 511);
    assert_int_equal(n->loops[0].hi.c0, 510);
    const adv_stmt *s = &n->stmts[0];
    assert_int_equal(s->nreads, 3);
    sub_is(&s->reads[0], 0, 1, 1, 0); /* A[i][k] */
    sub_is(&s->reads[0], 1, 0, 1, 0);
    sub_is(&s->reads[1], 0, 0, 1, 0); /* A[k][j] */
    sub_is(&s->reads[1], 1, 2, 1, 0);
    psk_adv_program_free(p);

    p = load("adi", NULL, 0);
    assert_int_equal(p->nnests, 2);
    assert_int_equal(p->repeat, 10);
    assert_int_equal(p->nests[0].loops[0].kind, ADV_ACROSS);
    assert_int_equal(p->nests[1].loops[1].kind, ADV_ACROSS);
    assert_int_equal(p->nests[1].first_par, 0);
    assert_int_equal(p->nests[1].end_par, 2);
    sub_is(&p->nests[0].stmts[0].reads[0], 0, 0, 1, -1); /* X[i-1][j] */
    sub_is(&p->nests[1].stmts[0].reads[0], 1, 1, 1, -1); /* X[i][j-1] */
    psk_adv_program_free(p);

    p = load("transpose", NULL, 0);
    sub_is(&p->nests[0].stmts[0].reads[0], 0, 1, 1, 0); /* A[j][i] */
    sub_is(&p->nests[0].stmts[0].reads[0], 1, 0, 1, 0);
    psk_adv_program_free(p);

    p = load("offset", NULL, 0);
    assert_int_equal(array(p, "A")->extent[0], 99997);
    assert_int_equal(array(p, "v")->readonly, 1);
    s = &p->nests[0].stmts[0];
    assert_int_equal(s->nreads, 2);
    sub_is(&s->reads[0], 0, 0, 1, 3); /* B[i+3] */
    assert_int_equal(p->nests[0].loops[0].hi.c0, 99996);
    psk_adv_program_free(p);
}

static psk_adv_program *parse(const char *text, const char *path, int want)
{
    psk_adv_program *p = NULL;
    int rc = psk_adv_parse(text, strlen(text), path, NULL, 0, &p);
    if (rc != want)
        fprintf(stderr, "%s\n", psk_adv_program_errmsg(p));
    assert_int_equal(rc, want);
    return p;
}

static void test_details(void **state)
{
    (void)state;
    /* settings, types, affine forms, count and work, the machine's path */
    psk_adv_program *p = parse("param N = 10; param M = 2*(N+1) - -3;  // 25\n"
                               "maxdims 3; maxshadow 0; machine \"m/bus.machine\";\n"
                               "array A[M][4] bytes 12; array c[2] char readonly; array z[N] complex;\n"
                               "array f[1] float; array l[1] long; array n[1] int;\n"
                               "scalar s int; scalar t float;\n"
                               "nest a count 3 work 2.5e-1 {\n"
                               "  for i = 0 .. N-1 seq for j = 2*i-1 .. M par\n"
                               "    A[N-1-i][3] = g(c[1], h(), -z[2*j+1] * 1.5e3, N) + s; s min= A[i][j]; t max= 1;\n"
                               "    A[(i - i) + 7][j - 2*j] /= 2;\n"
                               "}\n",
                               "dir/sub/x.adv", PSK_OK);
    assert_int_equal(p->procs, 0); /* not given: from the options */
    assert_int_equal(p->maxdims, 3);
    assert_int_equal(p->maxshadow, 0);
    assert_string_equal(psk_adv_program_machine(p), "dir/sub/m/bus.machine");
    assert_int_equal(p->params[1].value, 25);
    assert_int_equal(p->arrays[0].extent[0], 25);
    assert_int_equal(p->arrays[0].elsize, 12);
    assert_int_equal(p->arrays[1].elsize, 1);
    assert_int_equal(p->arrays[2].elsize, 16);
    assert_int_equal(p->arrays[3].elsize, 4);
    assert_int_equal(p->arrays[4].elsize, 8);
    assert_int_equal(p->arrays[5].elsize, 4);
    assert_int_equal(p->scalars[1].elsize, 4);
    const adv_nest *n = &p->nests[0];
    assert_int_equal(n->count, 3);
    assert_true(n->work_us == 0.25);
    assert_int_equal(n->first_par, 1);
    assert_int_equal(n->end_par, 2);
    assert_int_equal(n->loops[1].lo.c0, -1);
    assert_int_equal(n->loops[1].lo.coef[0], 2);
    assert_int_equal(n->nstmts, 4);
    const adv_stmt *s = &n->stmts[0];
    sub_is(&s->lhs, 0, 0, -1, 9);
    sub_is(&s->lhs, 1, -1, 0, 3);
    assert_int_equal(s->nreads, 2);
    sub_is(&s->reads[1], 0, 1, 2, 1);
    assert_int_equal(n->stmts[1].lhs_scalar, 0);
    assert_int_equal(n->stmts[1].assign, ADV_UPDATE);
    assert_int_equal(n->stmts[1].nreads, 1);
    assert_int_equal(n->stmts[2].lhs_scalar, 1);
    assert_int_equal(n->stmts[2].nreads, 0);
    s = &n->stmts[3];
    sub_is(&s->lhs, 0, -1, 0, 7); /* (i - i) + 7: a constant */
    sub_is(&s->lhs, 1, 1, -1, 0);
    assert_int_equal(s->nreads, 1);
    assert_int_equal(s->assign, ADV_UPDATE);
    psk_adv_program_free(p);

    /* an absolute machine path is kept; a file with no directory adds none */
    p = parse("machine \"/etc/m\"; array A[1] int; nest a { for i = 0 .. 0 seq A[i] = 1; }", "d/x.adv", PSK_OK);
    assert_string_equal(psk_adv_program_machine(p), "/etc/m");
    assert_int_equal(p->nests[0].first_par, 0);
    assert_int_equal(p->nests[0].end_par, 0);
    psk_adv_program_free(p);
    p = parse("machine \"m\"; array A[1] int; nest a { for i = 0 .. 0 seq A[i] = 1; }", "x.adv", PSK_OK);
    assert_string_equal(psk_adv_program_machine(p), "m");
    psk_adv_program_free(p);

    /* a -D naming no param */
    psk_adv_define d[] = {{"N", 4}, {"Q", 1}};
    const char *text = "param N = 1; array A[N] int; nest a { for i = 0 .. 0 seq A[i] = 1; }";
    assert_int_equal(psk_adv_parse(text, strlen(text), "x.adv", d, 2, &p), PSK_EINVAL);
    assert_string_equal(psk_adv_program_errmsg(p), "x.adv: -D Q: the file has no param Q");
    psk_adv_program_free(p);

    /* a missing file */
    assert_int_equal(psk_adv_load("/nonexistent/x.adv", NULL, 0, &p), PSK_EIO);
    assert_string_equal(psk_adv_program_errmsg(p), "/nonexistent/x.adv: No such file or directory");
    psk_adv_program_free(p);
    psk_adv_program_free(NULL);
}

typedef struct bad {
    const char *text;
    const char *want; /* the message's beginning */
} bad;

static const bad bads[] = {
    {"array A[4] double;\nnest n { for i = 0 .. 3 par A[i] = Q[i]; }\n", "bad.adv:2:36: unknown array Q"},
    {"array A[4][4] double;\nnest n {\n for i = 0 .. 3 par\n for j = 0 .. 3 par\n A[i*j][j] = 1;\n}\n",
     "bad.adv:5:5: non-affine subscript"},
    {"array A[4] double;\nnest m { for k = 0 .. 3 par A[k] = 1; }\nnest n { for i = 0 .. 3 par A[k] = 1; }\n",
     "bad.adv:3:31: loop variable k out of scope"},
    {"array A[4][4] double;\nnest n {\n for i = 0 .. 3 par\n for j = 0 .. j par\n A[i][j] = 1;\n}\n",
     "bad.adv:4:15: loop variable j out of scope"},
    {"array A[4][4] double;\nnest n { for i = 0 .. 3 par A[i] = 1; }\n",
     "bad.adv:2:29: wrong number of subscripts: A has 2 dimensions, 1 given"},
    {"array A[4] double;\nnest n { for i = 0 .. 3 par A[i] = A + 1; }\n",
     "bad.adv:2:36: wrong number of subscripts: A has 1 dimension, 0 given"},
    {"array A[4] double;\narray A[5] int;\n", "bad.adv:2:7: duplicate name A"},
    {"param A = 1;\nscalar A int;\n", "bad.adv:2:8: duplicate name A"},
    {"array A[4][4][4] double;\nnest n {\n for i = 0 .. 3 par\n for j = 0 .. 3 seq\n for k = 0 .. 3 par\n"
     " A[i][j][k] = 1;\n}\n",
     "bad.adv:5:17: loop kinds out of order"},
    {"procs 0;\n", "bad.adv:1:7: procs must be at least 1, not 0"},
    {"procs 2; procs 2;\n", "bad.adv:1:10: procs given twice"},
    {"array A[4] double;\nnest n {\n for i = 0 .. 3 par\n A[i] = 1;\n", "bad.adv:5:1: end of file inside nest n"},
    {"param N = 12abc;\n", "bad.adv:1:11: bad number '12abc'"},
    {"array A[4] quad;\n", "bad.adv:1:12: unknown element type 'quad'"},
    {"array A[4][4] double;\nnest n {\n for i = 0 .. 3 par\n for j = 0 .. 3 par\n A[i+j][j] = 1;\n}\n",
     "bad.adv:5:4: subscript uses two loop variables, i and j"},
    {"scalar s double;\nnest n { for i = 0 .. 3 par s = 1; }\n", "bad.adv:2:31: assigns scalar s with '='"},
    {"array A[4] double;\nnest n { for i = 0 .. 3 par A[z] = 1; }\n", "bad.adv:2:31: unknown name z"},
    {"param N = 9223372036854775807 + 1;\n", "bad.adv:1:31: value too large"},
    {"param N = 99999999999999999999;\n", "bad.adv:1:11: value too large"},
    {"param N = 4294967296 * 4294967296;\n", "bad.adv:1:22: value too large"},
    {"param aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa = 1;\n",
     "bad.adv:1:7: name too long"},
    {"array A[1][1][1][1][1][1][1][1][1] int;\n", "bad.adv:1:32: array A has more than 8 dimensions"},
    {"array A[4] double;\nnest n { for i = 0 .. 3 par for i = 0 .. 3 seq A[i] = 1; }\n",
     "bad.adv:2:33: duplicate name i"},
    {"machine \"x;\n", "bad.adv:1:9: unterminated string"},
    {"array A[4] double readonly;\nnest n { for i = 0 .. 3 par A[i] = 1; }\n",
     "bad.adv:2:29: assigns readonly array A"},
    {"procs 4\nmaxdims 2;\n", "bad.adv:2:1: expected ';', not 'maxdims'"},
    {"procs 4;\n", "bad.adv:2:1: no nest in the file"},
    {"array A[N] int;\n", "bad.adv:1:9: unknown name N"},
    {"array A[4] double;\nnest n { for i = 0 .. 3 par A[i] = 1; }\nnest n { for i = 0 .. 3 par A[i] = 1; }\n",
     "bad.adv:3:6: duplicate name n"},
    {"param N = 4;\narray A[4] double;\nnest n { for N = 0 .. 3 par A[N] = 1; }\n",
     "bad.adv:3:14: duplicate name N"},
    {"maxdims 9;\n", "bad.adv:1:9: maxdims must be at most 8"},
    {"array A[4] double;\nnest n count 0 { for i = 0 .. 3 par A[i] = 1; }\n",
     "bad.adv:2:14: count must be at least 1"},
    {"array A[4] double;\nnest n { for i = 0 .. 3 par A[1.5] = 1; }\n", "bad.adv:2:31: expected an integer"},
    {"array A[0] double;\n", "bad.adv:1:9: extent 1 of A must be at least 1"},
    {"array A[4] double;\nnest n { for i = 0 .. 3 par A[i/2] = 1; }\n", "bad.adv:2:32: '/' in an integer"},
    {"array A[4] double;\nnest n { for i = 0 .. 3 max A[i] = 1; }\n", "bad.adv:2:25: expected the loop's kind"},
    {"array A[4] double;\nnest n { A[0] = 1; }\n", "bad.adv:2:10: nest n has no loop"},
    {"array A[4] double;\nnest n { for i = 0 .. 3 par }\n", "bad.adv:2:29: nest n has no statement"},
    {"array A[4] double;\nnest n { for i = 0 .. 3 par A[i] = 1; for j = 0 .. 1 par A[j] = 1; }\n",
     "bad.adv:2:39: for after a statement"},
    {"param N = 1;\nnest n { for i = 0 .. 3 par N = 1; }\n", "bad.adv:2:29: assigns param N"},
    {"array A[4] double;\nnest n { for i = 0 .. 3 par A[i] = (1 + 2; }\n", "bad.adv:2:42: expected ')'"},
    {"array for[4] double;\n", "bad.adv:1:7: for is a keyword"},
    {"array A[4] double;\nnest n { for i = 0 .. 3 par A[i] = 1 @ 2; }\n", "bad.adv:2:38: unexpected character '@'"},
    {"repeat 0;\n", "bad.adv:1:8: repeat must be at least 1"},
    {"array A[4] double;\nnest n { for i = 0 .. 3 par A[i] = 1; }\nhello;\n",
     "bad.adv:3:1: expected a declaration"},
    {"array A[4] double;\nnest n work -1 { for i = 0 .. 3 par A[i] = 1; }\n",
     "bad.adv:2:13: work must be a non-negative decimal"},
    {"array A[4000000000][4000000000][4000000000] double;\n", "bad.adv:1:45: value too large"},
};

static void test_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bads / sizeof *bads; i++) {
        psk_adv_program *p = NULL;
        int rc = psk_adv_parse(bads[i].text, strlen(bads[i].text), "bad.adv", NULL, 0, &p);
        const char *msg = psk_adv_program_errmsg(p);
        if (rc != PSK_EINVAL || strncmp(msg, bads[i].want, strlen(bads[i].want)))
            fail_msg("case %zu: rc %d, '%s', want '%s'", i, rc, msg, bads[i].want);
        psk_adv_program_free(p);
    }
    /* a NUL byte is a character like any other */
    psk_adv_program *p = NULL;
    assert_int_equal(psk_adv_parse("param N\0 = 1;", 13, "bad.adv", NULL, 0, &p), PSK_EINVAL);
    assert_string_equal(psk_adv_program_errmsg(p), "bad.adv:1:8: unexpected character '\\x00'");
    psk_adv_program_free(p);
}

/* ---- robustness ---- */

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static char *slurp(const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.adv", PSK_EXAMPLES, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *b = malloc(1 << 16);
    assert_non_null(b);
    *len = fread(b, 1, 1 << 16, f);
    fclose(f);
    return b;
}

/* advise_internal.h's promises on a program that parsed, checked afresh */
static void check_ir(const psk_adv_program *p)
{
    assert_true(p->maxdims >= 1 && p->maxdims <= ADV_MAXDIM);
    assert_true(p->repeat >= 1 && p->procs >= 0 && p->maxshadow >= 0);
    for (int a = 0; a < p->narrays; a++) {
        assert_true(p->arrays[a].ndim >= 1 && p->arrays[a].ndim <= ADV_MAXDIM);
        assert_true(p->arrays[a].elsize >= 1);
        for (int d = 0; d < p->arrays[a].ndim; d++)
            assert_true(p->arrays[a].extent[d] >= 1);
    }
    for (int i = 0; i < p->nnests; i++) {
        const adv_nest *n = &p->nests[i];
        assert_true(n->nloops >= 1 && n->nloops <= ADV_MAXDIM && n->nstmts >= 1 && n->count >= 1);
        assert_true(n->work_us >= 0);
        assert_true(0 <= n->first_par && n->first_par <= n->end_par && n->end_par <= n->nloops);
        for (int k = 0; k < n->nloops; k++) {
            int in = k >= n->first_par && k < n->end_par;
            assert_true(in ? n->loops[k].kind != ADV_SEQ : n->loops[k].kind == ADV_SEQ);
            for (int j = k; j < ADV_MAXDIM; j++) /* bounds over outer loops only */
                assert_true(!n->loops[k].lo.coef[j] && !n->loops[k].hi.coef[j]);
        }
        for (int s = 0; s < n->nstmts; s++) {
            const adv_stmt *st = &n->stmts[s];
            assert_true((st->lhs_array >= 0) != (st->lhs_scalar >= 0));
            assert_true(st->lhs_array < p->narrays && st->lhs_scalar < p->nscalars);
            assert_true(st->lhs_scalar < 0 || st->assign == ADV_UPDATE);
            for (int r = -1; r < st->nreads; r++) {
                const adv_ref *ref = r < 0 ? &st->lhs : &st->reads[r];
                if (r < 0 && st->lhs_array < 0)
                    continue;
                assert_true(ref->array >= 0 && ref->array < p->narrays);
                for (int d = 0; d < p->arrays[ref->array].ndim; d++) {
                    assert_true(ref->sub_var[d] >= -1 && ref->sub_var[d] < n->nloops);
                    assert_true(ref->sub_var[d] >= 0 || ref->sub_coef[d] == 0);
                    assert_true(ref->sub_var[d] < 0 || ref->sub_coef[d] != 0);
                }
            }
        }
    }
}

static void test_mutations(void **state)
{
    (void)state;
    static const char *const toks[] = {
        "[", "]", "(", ")", "{", "}", ";", "=", "+=", "min=", "..", "*", "-", "i", "j", "k", "N", "A", "x",
        "par", "seq", "across", "for", "nest", "array", "scalar", "param", "0", "1", "-1", "9223372036854775807",
        "1e999", "\"", "#", "//", "\n", "\0", "readonly", "bytes", "count", "work", "i*j", "2*i+1", "A[i]",
    };
    size_t lens[NEX];
    char *texts[NEX];
    for (size_t e = 0; e < NEX; e++)
        texts[e] = slurp(examples[e], &lens[e]);
    char *buf = malloc(1 << 17);
    assert_non_null(buf);
    uint64_t seed = 0x9e3779b97f4a7c15u;
    int ok = 0;
    for (int it = 0; it < 20000; it++) {
        size_t e = rnd(&seed) % NEX, n = lens[e];
        memcpy(buf, texts[e], n);
        for (int m = 1 + (int)(rnd(&seed) % 4); m > 0; m--) {
            size_t at = n ? rnd(&seed) % n : 0;
            switch (rnd(&seed) % 5) {
            case 0: /* a byte flipped */
                if (n)
                    buf[at] = (char)rnd(&seed);
                break;
            case 1: /* truncated */
                n = at;
                break;
            case 2: { /* a token inserted */
                const char *t = toks[rnd(&seed) % (sizeof toks / sizeof *toks)];
                size_t tl = *t ? strlen(t) : 1;
                if (n + tl < (1 << 16)) {
                    memmove(buf + at + tl, buf + at, n - at);
                    memcpy(buf + at, t, tl);
                    n += tl;
                }
                break;
            }
            case 3: { /* a range deleted */
                size_t k = rnd(&seed) % 16;
                if (at + k > n)
                    k = n - at;
                memmove(buf + at, buf + at + k, n - at - k);
                n -= k;
                break;
            }
            default: { /* a range repeated */
                size_t k = rnd(&seed) % 32;
                if (at + k > n)
                    k = n - at;
                if (n + k < (1 << 16)) {
                    memmove(buf + at + k, buf + at, n - at);
                    n += k;
                }
            }
            }
        }
        psk_adv_define d = {"N", (int64_t)(rnd(&seed) % 50)};
        psk_adv_program *p = NULL;
        /* no terminating 0: a read past len is caught by ASan builds */
        char *exact = malloc(n ? n : 1);
        assert_non_null(exact);
        memcpy(exact, buf, n);
        int rc = psk_adv_parse(exact, n, "mut.adv", &d, (int)(rnd(&seed) % 2), &p);
        free(exact);
        assert_non_null(p);
        if (rc == PSK_OK) {
            ok++;
            check_ir(p);
        } else {
            assert_int_equal(rc, PSK_EINVAL);
            const char *msg = psk_adv_program_errmsg(p);
            if (strncmp(msg, "mut.adv:", 8))
                fail_msg("iteration %d: message '%s'", it, msg);
        }
        psk_adv_program_free(p);
    }
    assert_true(ok > 100); /* some mutations keep a program */
    free(buf);
    for (size_t e = 0; e < NEX; e++)
        free(texts[e]);
}

static void test_limits(void **state)
{
    (void)state;
    /* deep parentheses, long unary chains, many references and statements, a huge text */
    size_t big = 1 << 20;
    char *t = malloc(big + 100);
    assert_non_null(t);
    psk_adv_program *p = NULL;
    const char *heads[] = {"param N = ", "array A[4] int; nest n { for i = 0 .. 3 par A[i] = ",
                           "array A[4] int; nest n { for i = 0 .. 3 par A[i] = A["};
    for (int h = 0; h < 3; h++) {
        for (int c = 0; c < 2; c++) {
            size_t n = strlen(heads[h]);
            memcpy(t, heads[h], n);
            memset(t + n, c ? '-' : '(', big - n);
            assert_int_equal(psk_adv_parse(t, big, "deep.adv", NULL, 0, &p), PSK_EINVAL);
            const char *msg = psk_adv_program_errmsg(p);
            /* a run of unary minus in an expression is read without recursion */
            if (h == 1 && c == 1)
                assert_string_equal(msg, "deep.adv:1:1048577: expected an expression, not end of file");
            else
                assert_non_null(strstr(msg, "nested too deeply"));
            psk_adv_program_free(p);
        }
    }
    /* 100000 references in one statement parse */
    const char *head = "array A[4] int; nest n { for i = 0 .. 3 par A[i] = 0";
    size_t n = strlen(head);
    char *u = malloc(n + 100000 * 7 + 10);
    assert_non_null(u);
    memcpy(u, head, n);
    for (int r = 0; r < 100000; r++)
        memcpy(u + n, "+A[i+1]", 7), n += 7;
    memcpy(u + n, "; }", 3), n += 3;
    assert_int_equal(psk_adv_parse(u, n, "many.adv", NULL, 0, &p), PSK_OK);
    assert_int_equal(p->nests[0].stmts[0].nreads, 100000);
    psk_adv_program_free(p);
    /* 300000: over the cap, refused */
    n = strlen(head);
    u = realloc(u, n + 300000 * 7 + 10);
    assert_non_null(u);
    for (int r = 0; r < 300000; r++)
        memcpy(u + n, "+A[i+1]", 7), n += 7;
    memcpy(u + n, "; }", 3), n += 3;
    assert_int_equal(psk_adv_parse(u, n, "many.adv", NULL, 0, &p), PSK_EINVAL);
    assert_non_null(strstr(psk_adv_program_errmsg(p), "too many array references (at most 200000)"));
    psk_adv_program_free(p);
    /* statements with no reference are capped too */
    const char *sh = "scalar s int; nest n { for i = 0 .. 3 par ";
    n = strlen(sh);
    u = realloc(u, n + 200000 * 5 + 10);
    assert_non_null(u);
    memcpy(u, sh, n);
    for (int r = 0; r < 200000; r++)
        memcpy(u + n, "s+=1;", 5), n += 5;
    memcpy(u + n, " }", 2), n += 2;
    assert_int_equal(psk_adv_parse(u, n, "many.adv", NULL, 0, &p), PSK_EINVAL);
    assert_non_null(strstr(psk_adv_program_errmsg(p), "too many statements (at most 100000)"));
    psk_adv_program_free(p);
    free(u);
    free(t);
    /* beyond 16 MiB: refused without reading it */
    assert_int_equal(psk_adv_parse("", (size_t)17 << 20, "huge.adv", NULL, 0, &p), PSK_EINVAL);
    assert_non_null(strstr(psk_adv_program_errmsg(p), "huge.adv: larger than 16 MiB"));
    psk_adv_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jacobi),
        cmocka_unit_test(test_matmul_matvec_dot),
        cmocka_unit_test(test_lu_adi_transpose_offset),
        cmocka_unit_test(test_details),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
