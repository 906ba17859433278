/* perfskel tune --export-rules (src/tune/tune_rules.c) against naive
 * oracles, on thousands of random decision sets: each written file is
 * read back as its MPI reads it (Open MPI 4.1: numbers with # comments,
 * the last communicator size and message rule not above the call's;
 * MPICH 4.0: the selection tree walked key by key, no backtracking), and
 * every decided class's first and last byte counts must reach the
 * decision's algorithm, every other class and communicator size the MPI's
 * own choice. The algorithm tables here are the test's own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "perfskel/common.h"
#include "tune_rules.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* our arms as each MPI names them (docs/tune.md's table) */
static int ompi_alg(int arm)
{
    switch (arm) {
    case PSK_TUNE_native: return 0;
    case PSK_TUNE_spread: return 1;
    case PSK_TUNE_bruck: return 3;
    case PSK_TUNE_bc_binomial: return 6;
    case PSK_TUNE_bc_scatter_ring: return 9;
    case PSK_TUNE_ar_recdbl: return 3;
    case PSK_TUNE_ar_ring: return 4;
    case PSK_TUNE_ar_rabenseifner: return 6;
    case PSK_TUNE_ag_ring: return 4;
    case PSK_TUNE_ag_recdbl: return 3;
    case PSK_TUNE_ag_bruck: return 2;
    default: return 2; /* pair, ring and their barrier variants: pairwise */
    }
}

static const char *mpich_alg(int arm)
{
    switch (arm) {
    case PSK_TUNE_spread: return "MPIR_Alltoall_intra_scattered";
    case PSK_TUNE_bruck: return "MPIR_Alltoall_intra_brucks";
    case PSK_TUNE_bc_binomial: return "MPIR_Bcast_intra_binomial";
    case PSK_TUNE_bc_scatter_ring: return "MPIR_Bcast_intra_scatter_ring_allgather";
    case PSK_TUNE_ar_recdbl: return "MPIR_Allreduce_intra_recursive_doubling";
    case PSK_TUNE_ar_ring:
    case PSK_TUNE_ar_rabenseifner: return "MPIR_Allreduce_intra_reduce_scatter_allgather";
    case PSK_TUNE_ag_ring: return "MPIR_Allgather_intra_ring";
    case PSK_TUNE_ag_recdbl: return "MPIR_Allgather_intra_recursive_doubling";
    case PSK_TUNE_ag_bruck: return "MPIR_Allgather_intra_brucks";
    default: return "MPIR_Alltoall_intra_pairwise";
    }
}

static int ompi_id(int coll) { return coll == PSK_TUNE_C_alltoall ? 3 : coll == PSK_TUNE_C_bcast ? 7 : coll == PSK_TUNE_C_allreduce ? 2 : 0; }

/* a random set of entries; want[coll][P][class]: the arm expected (-1: none) */
#define MAXP 10
#define MAXC 25
static int want[PSK_TUNE_NCOLL][MAXP + 1][MAXC];

static int make(psk_tune_dbent *e, int cap)
{
    int n = 1 + (int)(rnd() % (uint64_t)cap);
    for (int i = 0; i < n; i++) {
        psk_tune_dbent *x = &e[i];
        memset(x, 0, sizeof *x);
        x->version = rnd() % 4 ? 2 : 1;
        strcpy(x->machine, "m:1");
        strcpy(x->mpi, rnd() % 8 ? "both" : "other-1");
        x->P = 2 + (int)(rnd() % (MAXP - 1));
        x->coll = (int)(rnd() % PSK_TUNE_NCOLL);
        x->sclass = (int)(rnd() % MAXC);
        int arms[PSK_TUNE_NARMS], na = 0;
        for (int a = 0; a < PSK_TUNE_NARMS; a++)
            if (a == PSK_TUNE_native || psk_tune_arm_coll(a) == x->coll)
                arms[na++] = a;
        x->arm = arms[rnd() % (uint64_t)na];
        x->state = x->version == 1 || rnd() % 3 ? PSK_TUNE_DB_SETTLED : (int)(rnd() % 2);
        x->calls = 1 + (rnd() % 1000000) * 64 + (uint64_t)i; /* no ties */
        x->stamp = (long long)(rnd() % 1000);
        snprintf(x->module, sizeof x->module, "mod%d", (int)(rnd() % 3));
        x->offset = rnd() % 64;
    }
    return n;
}

/* the flavour's string in the entries ("both" is made openmpi- or mpich-) */
static void flavour(psk_tune_dbent *e, int n, int format)
{
    for (int i = 0; i < n; i++) {
        if (!strcmp(e[i].mpi, "both") || !strncmp(e[i].mpi, "openmpi-", 8) || !strncmp(e[i].mpi, "mpich-", 6))
            strcpy(e[i].mpi, format == PSK_TUNE_RULES_OPENMPI ? "openmpi-4.1.4" : "mpich-4.0.2");
    }
    static uint64_t best[PSK_TUNE_NCOLL][MAXP + 1][MAXC];
    memset(best, 0, sizeof best);
    for (int c = 0; c < PSK_TUNE_NCOLL; c++)
        for (int p = 0; p <= MAXP; p++)
            for (int k = 0; k < MAXC; k++)
                want[c][p][k] = -1;
    for (int i = 0; i < n; i++) {
        const psk_tune_dbent *x = &e[i];
        if (strncmp(x->mpi, format == PSK_TUNE_RULES_OPENMPI ? "openmpi-" : "mpich-", 3) ||
            x->state != PSK_TUNE_DB_SETTLED)
            continue;
        if (x->calls > best[x->coll][x->P][x->sclass]) {
            best[x->coll][x->P][x->sclass] = x->calls;
            want[x->coll][x->P][x->sclass] = x->arm;
        }
    }
}

static uint64_t factor(int format, int coll, int P)
{
    if (coll == PSK_TUNE_C_allgather)
        return (uint64_t)P;
    return coll == PSK_TUNE_C_alltoall && format == PSK_TUNE_RULES_OPENMPI ? (uint64_t)P : 1;
}

/* ---- Open MPI's reading ---- */

typedef struct orule {
    long msg, alg;
} orule;
typedef struct ocs {
    long size;
    int n;
    orule r[80];
} ocs;
typedef struct ocoll {
    long id;
    int n;
    ocs cs[2 * MAXP + 4];
} ocoll;

static long nums[20000];

static int ompi_read(const char *text, ocoll *cl, int *ncl)
{
    int nn = 0;
    for (const char *p = text; *p;) {
        if (*p == '#') {
            while (*p && *p != '\n')
                p++;
        } else if (*p >= '0' && *p <= '9') {
            char *end;
            assert_true(nn < 20000);
            nums[nn++] = strtol(p, &end, 10);
            assert_false(*p == '0' && end - p > 1); /* no octal or hex for %li */
            p = end;
        } else {
            assert_true(*p == ' ' || *p == '\n');
            p++;
        }
    }
    int i = 0;
    *ncl = (int)nums[i++];
    assert_true(*ncl >= 1 && *ncl <= PSK_TUNE_NCOLL);
    for (int c = 0; c < *ncl; c++) {
        cl[c].id = nums[i++];
        cl[c].n = (int)nums[i++];
        assert_true(cl[c].n >= 1 && cl[c].n <= 2 * MAXP + 4);
        for (int s = 0; s < cl[c].n; s++) {
            ocs *x = &cl[c].cs[s];
            x->size = nums[i++];
            x->n = (int)nums[i++];
            assert_true(x->n >= 1 && x->n <= 80);
            assert_true(!s || x->size > cl[c].cs[s - 1].size);
            for (int r = 0; r < x->n; r++) {
                x->r[r].msg = nums[i++];
                x->r[r].alg = nums[i++];
                assert_int_equal(nums[i++], 0); /* fan-in/out */
                assert_int_equal(nums[i++], 0); /* segment */
                assert_true(r ? x->r[r].msg > x->r[r - 1].msg : x->r[r].msg == 0);
            }
        }
    }
    assert_int_equal(i, nn);
    return 0;
}

static long ompi_lookup(const ocoll *cl, int ncl, int id, int P, uint64_t dsize)
{
    for (int c = 0; c < ncl; c++) {
        if (cl[c].id != id)
            continue;
        const ocs *best = &cl[c].cs[0];
        for (int s = 0; s < cl[c].n && cl[c].cs[s].size <= P; s++)
            best = &cl[c].cs[s];
        const orule *r = &best->r[0];
        for (int k = 0; k < best->n && (uint64_t)best->r[k].msg <= dsize; k++)
            r = &best->r[k];
        return r->alg;
    }
    return 0; /* no rules for the collective: Open MPI's own */
}

/* ---- MPICH's reading: a tree of objects ---- */

typedef struct jnode {
    char *key;
    struct jnode *kids;
    int n;
} jnode;

static const char *ws(const char *p)
{
    for (;;) {
        while (*p == ' ' || *p == '\n' || *p == '\t')
            p++;
        if (p[0] == '/' && p[1] == '*')
            p = strstr(p, "*/") + 2;
        else
            return p;
    }
}

/* an object at p into its children; returns past it */
static const char *jobj(const char *p, jnode *node)
{
    p = ws(p);
    assert_true(*p == '{');
    node->n = 0;
    node->kids = NULL;
    p = ws(p + 1);
    while (*p != '}') {
        assert_true(*p == '"');
        const char *e = strchr(p + 1, '"');
        node->kids = realloc(node->kids, (size_t)(node->n + 1) * sizeof *node->kids);
        jnode *k = &node->kids[node->n++];
        k->key = strndup(p + 1, (size_t)(e - p - 1));
        p = ws(e + 1);
        assert_true(*p == ':');
        p = ws(jobj(p + 1, k));
        if (*p == ',')
            p = ws(p + 1);
    }
    return p + 1;
}

static void jfree(jnode *n)
{
    for (int i = 0; i < n->n; i++) {
        free(n->kids[i].key);
        jfree(&n->kids[i]);
    }
    free(n->kids);
}

/* csel's walk: the first key that holds decides; NULL if none */
static const char *walk(const jnode *n, const char *coll, int P, long avg, long total)
{
    for (int i = 0; i < n->n; i++) {
        const char *k = n->kids[i].key;
        long v = 0;
        int hold;
        if (!strncmp(k, "algorithm=", 10))
            return k + 10;
        if (!strncmp(k, "collective=", 11))
            hold = !strcmp(k + 11, coll);
        else if (!strcmp(k, "comm_type=intra") || !strcmp(k, "is_sendbuf_inplace=no") ||
                 !strcmp(k, "is_op_built_in=yes"))
            hold = 1;
        else if (!strcmp(k, "comm_type=inter") || !strcmp(k, "is_sendbuf_inplace=yes") ||
                 !strcmp(k, "is_op_built_in=no"))
            hold = 0;
        else if (sscanf(k, "comm_size<=%ld", &v) == 1)
            hold = P <= v;
        else if (sscanf(k, "avg_msg_size<=%ld", &v) == 1)
            hold = avg <= v;
        else if (sscanf(k, "total_msg_size<=%ld", &v) == 1)
            hold = total <= v;
        else if (strlen(k) > 4 && !strcmp(k + strlen(k) - 4, "=any") && strcmp(k, "comm_type=any"))
            hold = 1; /* (MPICH 4.0.2 has no comm_type=any) */
        else {
            fail_msg("a key MPICH would not know: %s", k);
            return NULL;
        }
        if (hold)
            return walk(&n->kids[i], coll, P, avg, total);
    }
    return NULL;
}

static const char BASE[] =
    "/* a stand-in for MPICH's own */ {\"collective=bcast\": {\"algorithm=D_bcast\": {}},"
    " \"collective=barrier\": {\"comm_type=intra\": {\"algorithm=D_barrier\": {}}},"
    " \"collective=allreduce\": {\"algorithm=D_allreduce\": {}}, \"collective=allgather\": {\"algorithm=D_allgather\": {}},"
    " \"collective=alltoall\": {\"algorithm=D_alltoall\": {}}}";

static void check_case(int format, psk_tune_dbent *e, int n)
{
    flavour(e, n, format);
    psk_tune_rules_opts o = {format, NULL, "crafted", BASE};
    psk_tune_rules_summary sum;
    char err[600], *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    int rc = psk_tune_rules_write(e, n, &o, out, &sum, err, sizeof err);
    fclose(out);
    int any = 0;
    for (int c = 0; c < PSK_TUNE_NCOLL; c++)
        for (int p = 0; p <= MAXP; p++)
            for (int k = 0; k < MAXC; k++)
                any |= want[c][p][k] >= 0;
    if (!any) {
        assert_int_equal(rc, PSK_ENOTFOUND);
        free(buf);
        return;
    }
    assert_int_equal(rc, PSK_OK);
    static ocoll cl[PSK_TUNE_NCOLL];
    int ncl = 0;
    jnode root = {0};
    if (format == PSK_TUNE_RULES_OPENMPI)
        ompi_read(buf, cl, &ncl);
    else
        assert_int_equal(*ws(jobj(buf, &root)), 0);
    for (int c = 0; c < PSK_TUNE_NCOLL; c++) {
        const char *cn = psk_tune_coll_name(c);
        char dflt[32];
        snprintf(dflt, sizeof dflt, "D_%s", cn);
        for (int P = 1; P <= MAXP + 1; P++)
            for (int k = 0; k < MAXC + 1; k++)
                for (int end = 0; end < 2; end++) {
                    uint64_t b = end ? (2ull << k) - 1 : 1ull << k;
                    int arm = P <= MAXP && k < MAXC ? want[c][P][k] : -1;
                    if (format == PSK_TUNE_RULES_OPENMPI) {
                        long got = ompi_lookup(cl, ncl, ompi_id(c), P, b * factor(format, c, P));
                        long exp = arm < 0 ? 0 : ompi_alg(arm);
                        if (got != exp)
                            fail_msg("Open MPI %s P=%d %llu B: algorithm %ld, expected %ld\n%s", cn, P,
                                     (unsigned long long)b, got, exp, buf);
                    } else {
                        long m = (long)(b * factor(format, c, P));
                        const char *got = walk(&root, cn, P, m, m);
                        const char *exp = arm < 0 || arm == PSK_TUNE_native ? dflt : mpich_alg(arm);
                        if (!got || strcmp(got, exp))
                            fail_msg("MPICH %s P=%d %llu B: %s, expected %s\n%s", cn, P, (unsigned long long)b,
                                     got ? got : "nothing", exp, buf);
                    }
                }
    }
    if (format == PSK_TUNE_RULES_MPICH) {
        const char *got = walk(&root, "barrier", 4, 0, 0);
        assert_non_null(got);
        assert_string_equal(got, "D_barrier");
        jfree(&root);
    }
    free(buf);
}

static void random_sets(void **state)
{
    (void)state;
    static psk_tune_dbent e[40];
    int cases = getenv("PSK_TEST_QUICK") ? 300 : 2000;
    for (int i = 0; i < cases; i++) {
        int n = make(e, 40);
        check_case(i % 2 ? PSK_TUNE_RULES_MPICH : PSK_TUNE_RULES_OPENMPI, e, n);
    }
}

/* the largest classes: no overflow, a rule with no end */
static void huge_classes(void **state)
{
    (void)state;
    psk_tune_dbent e[2];
    memset(e, 0, sizeof e);
    for (int i = 0; i < 2; i++) {
        e[i].version = 2, e[i].state = PSK_TUNE_DB_SETTLED, e[i].P = 1 << 20, e[i].calls = 5;
        strcpy(e[i].machine, "m:1");
        strcpy(e[i].mpi, "openmpi-4.1.4");
        strcpy(e[i].module, "a");
    }
    e[0].coll = PSK_TUNE_C_alltoall, e[0].arm = PSK_TUNE_bruck, e[0].sclass = 62;
    e[1].coll = PSK_TUNE_C_bcast, e[1].arm = PSK_TUNE_bc_binomial, e[1].sclass = 61;
    for (int f = PSK_TUNE_RULES_OPENMPI; f <= PSK_TUNE_RULES_MPICH; f++) {
        for (int i = 0; i < 2; i++)
            strcpy(e[i].mpi, f == PSK_TUNE_RULES_OPENMPI ? "openmpi-4.1.4" : "mpich-4.0.2");
        psk_tune_rules_opts o = {f, NULL, "crafted", BASE};
        psk_tune_rules_summary sum;
        char err[600], *buf = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&buf, &len);
        assert_int_equal(psk_tune_rules_write(e, 2, &o, out, &sum, err, sizeof err), PSK_OK);
        fclose(out);
        if (f == PSK_TUNE_RULES_OPENMPI) {
            static ocoll cl[PSK_TUNE_NCOLL];
            int ncl;
            ompi_read(buf, cl, &ncl);
            /* 2^62 x 2^20 is beyond any size: the alltoall class has no rule */
            assert_int_equal(ompi_lookup(cl, ncl, 7, 1 << 20, 1ull << 61), 6);
            assert_int_equal(ompi_lookup(cl, ncl, 7, 1 << 20, (1ull << 62) - 1), 6);
            assert_int_equal(ompi_lookup(cl, ncl, 7, 1 << 20, ~0ull), 0);
            assert_int_equal(ompi_lookup(cl, ncl, 3, 1 << 20, ~0ull), 0);
            assert_int_equal(ompi_lookup(cl, ncl, 7, 1 << 20, (1ull << 61) - 1), 0);
        } else {
            jnode root = {0};
            assert_int_equal(*ws(jobj(buf, &root)), 0);
            assert_string_equal(walk(&root, "bcast", 1 << 20, 1L << 40, 0), "D_bcast"); /* atoi's reach */
            jfree(&root);
        }
        free(buf);
    }
}

/* the choices said in one line each */
static void errors(void **state)
{
    (void)state;
    psk_tune_dbent e[3];
    memset(e, 0, sizeof e);
    const char *machines[3] = {"a:1", "b:n", "a:1"};
    for (int i = 0; i < 3; i++) {
        e[i].version = 2, e[i].state = PSK_TUNE_DB_SETTLED, e[i].P = 4, e[i].calls = 5, e[i].sclass = 10;
        e[i].coll = PSK_TUNE_C_bcast, e[i].arm = PSK_TUNE_bc_binomial;
        strcpy(e[i].machine, machines[i]);
        strcpy(e[i].mpi, "openmpi-4.1.4");
    }
    strcpy(e[2].mpi, "openmpi-4.1.5");
    psk_tune_rules_opts o = {PSK_TUNE_RULES_OPENMPI, NULL, "f", NULL};
    psk_tune_rules_summary sum;
    char err[600];
    assert_int_equal(psk_tune_rules_write(e, 3, &o, stdout, &sum, err, sizeof err), PSK_EINVAL);
    assert_non_null(strstr(err, "2 machines (a:1, b:n): choose one with --machine"));
    o.machine = "a:1";
    assert_int_equal(psk_tune_rules_write(e, 3, &o, stdout, &sum, err, sizeof err), PSK_EINVAL);
    assert_non_null(strstr(err, "2 builds"));
    o.machine = "c:1";
    assert_int_equal(psk_tune_rules_write(e, 3, &o, stdout, &sum, err, sizeof err), PSK_ENOTFOUND);
    o.format = PSK_TUNE_RULES_MPICH, o.machine = NULL;
    assert_int_equal(psk_tune_rules_write(e, 3, &o, stdout, &sum, err, sizeof err), PSK_ENOTFOUND);
    assert_non_null(strstr(err, "no decision for MPICH"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_sets),
        cmocka_unit_test(huge_classes),
        cmocka_unit_test(errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
