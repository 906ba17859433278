/* perfskel fold: the loops of a merged trace (seed 001 §3), as a loop tree
 * such as (A B (C D)x4 E)x200, with per loop-body event statistics; or of
 * a plain sequence of integers (--symbols FILE), to test and benchmark the
 * folding alone. Text for people, --json for programs, -o FILE writes the
 * JSON to a file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "perfskel/fold.h"
#include "perfskel/merge.h"
#include "psk_json.h"

/* whitespace-separated non-negative integers; one-line error on anything else */
static int read_symbols(const char *path, int32_t **out, int64_t *n)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f) {
        psk_cli_error("%s: %s", path, strerror(errno));
        return -1;
    }
    int64_t cap = 1 << 16, m = 0, line = 1;
    int32_t *s = malloc((size_t)cap * sizeof *s);
    int c = 0, bad = 0;
    char tok[32];
    while (s && !bad) {
        while ((c = getc(f)) != EOF && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
            line += c == '\n';
        if (c == EOF)
            break;
        int len = 0;
        while (c != EOF && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            if (len < 31)
                tok[len++] = (char)c;
            else
                bad = 1;
            c = getc(f);
        }
        if (c != EOF)
            ungetc(c, f);
        tok[len] = 0;
        /* digits only: strtoll alone would stop at a NUL byte inside the
         * word and take "12\0x" for 12, and would take "+5" or " 5" */
        int digits = len > 0;
        for (int k = 0; k < len; k++)
            digits &= tok[k] >= '0' && tok[k] <= '9';
        errno = 0;
        long long v = digits && !bad ? strtoll(tok, NULL, 10) : -1;
        if (bad || !digits || errno || v < 0 || v > INT32_MAX) {
            char shown[4 * sizeof tok]; /* a NUL byte shown as \x00, not ending the word */
            size_t k = 0;
            for (int b = 0; b < len; b++)
                k += (size_t)snprintf(shown + k, sizeof shown - k, tok[b] ? "%c" : "\\x00", tok[b]);
            shown[k] = 0;
            psk_cli_error("%s: line %lld: '%s%s' is not a symbol (a whole number from 0 to %d)", path,
                          (long long)line, shown, bad ? "..." : "", INT32_MAX);
            bad = 1;
            break;
        }
        if (m == cap) {
            int32_t *t = realloc(s, (size_t)(cap *= 2) * sizeof *s);
            if (!t) {
                free(s);
                s = NULL;
                break;
            }
            s = t;
        }
        s[m++] = (int32_t)v;
    }
    if (f != stdin)
        fclose(f);
    if (!s && !bad)
        psk_cli_error("%s: out of memory", path);
    if (bad || !s) {
        free(s);
        return -1;
    }
    *out = s;
    *n = m;
    return 0;
}

typedef struct names {
    psk_merged *m;
} names;

static void short_name(void *arg, int32_t sym, char *buf, size_t cap)
{
    names *nm = arg;
    const char *fn = psk_fn_name(psk_merged_class_fn(nm->m, (uint32_t)sym));
    snprintf(buf, cap, "%s", fn && !strncmp(fn, "MPI_", 4) ? fn + 4 : fn ? fn : "?");
}


static void us(char *buf, size_t cap, double ns)
{
    if (ns >= 1e6)
        snprintf(buf, cap, "%.2f ms", ns / 1e6);
    else
        snprintf(buf, cap, "%.1f us", ns / 1e3);
}

/* the tree, one loop or event per line, with statistics */
static void text_tree(const psk_folded *f, int32_t id, psk_merged *m, int indent)
{
    const psk_fnode *x = psk_folded_node(f, id);
    const int32_t *kid = psk_folded_children(f, id);
    if (x->kind == PSK_FNODE_LOOP) {
        printf("%*sloop x%lld (%lld events per iteration)\n", indent, "", (long long)x->count, (long long)x->span);
        int no;
        double med;
        const psk_foutlier *ol = psk_folded_outliers(f, id, &no, &med);
        for (int i = 0; i < no && i < 8; i++) {
            char c[32], mc[32];
            us(c, sizeof c, ol[i].compute);
            us(mc, sizeof mc, med);
            printf("%*s  outlier: iteration %lld computes %s (%.1fx the median iteration's %s)\n", indent, "",
                   (long long)ol[i].iter, c, med > 0 ? ol[i].compute / med : 0.0, mc);
        }
        if (no > 8)
            printf("%*s  ... %d outlier iterations in all\n", indent, "", no);
    }
    if (x->kind != PSK_FNODE_SYM) {
        for (int32_t c = 0; c < x->nchild; c++)
            text_tree(f, kid[c], m, indent + (x->kind == PSK_FNODE_LOOP ? 2 : 0));
        return;
    }
    char desc[1024], g[32], d[32], dm[32];
    psk_merged_class_desc(m, (uint32_t)x->sym, desc, sizeof desc);
    printf("%*s%s", indent, "", desc);
    const psk_fstats *s = psk_folded_node_stats(f, id);
    if (s && s->samples) {
        us(g, sizeof g, s->gap_mean);
        us(d, sizeof d, s->mpi_mean);
        us(dm, sizeof dm, s->mpi_max);
        printf("  | gap %s (sd %.1f us)  mpi %s (max %s)", g, s->gap_sd / 1e3, d, dm);
        if (s->slowest_rank >= 0 && s->samples > s->execs)
            printf("  slowest rank %d", s->slowest_rank);
        if (s->count_kind == PSK_COUNT_LINEAR)
            printf("  count %lld%+lld*i", (long long)s->count_a, (long long)s->count_b);
        else if (s->count_kind == PSK_COUNT_TABLE)
            printf("  count table[%lld]", (long long)s->ncount);
    }
    int np;
    const psk_fparam *p = psk_folded_params(f, id, &np);
    for (int i = 0; i < np; i++) {
        char e[256];
        psk_fparam_desc(&p[i], e, sizeof e);
        printf("%s%s", i ? ", " : "  | varying: ", e);
    }
    putchar('\n');
}

typedef struct verify {
    const psk_folded *f;
    const int32_t *s;
    int64_t bad;
    int by_first;
} verify;

static int same_symbol(void *arg, int64_t pos, int32_t node, const int64_t *iter, int depth)
{
    (void)iter, (void)depth;
    verify *v = arg;
    /* with levels, every execution of a node has its first one's
     * coarsest symbol; without, its own symbol */
    int64_t at = v->by_first ? psk_folded_node(v->f, node)->start : -1;
    if ((at >= 0 ? v->s[at] : psk_folded_node(v->f, node)->sym) != v->s[pos]) {
        v->bad = pos;
        return 1;
    }
    return 0;
}

enum { O_SYMBOLS, O_ALGO, O_TREE, O_JSON, O_OUT };
static const psk_cli_opt opts[] = {
    [O_SYMBOLS] = {"--symbols", NULL, PSK_OPT_VALUE},
    [O_ALGO] = {"--algo", NULL, PSK_OPT_VALUE},
    [O_TREE] = {"--tree", NULL, PSK_OPT_FLAG},
    [O_JSON] = {"--json", NULL, PSK_OPT_FLAG},
    [O_OUT] = {"-o", NULL, PSK_OPT_VALUE},
};
const psk_cli_opts cmd_fold_opts = {"fold", PSK_CLI_OPTS(opts), PSK_CLI_JOB_NONE, NULL, NULL};

int cmd_fold(int argc, char **argv)
{
    const char *input = NULL, *out = NULL, *symfile = NULL;
    int json = 0, algo = PSK_FOLD_RUNS, tree = 0, k;
    psk_cli_args a;
    psk_cli_begin(&a, &cmd_fold_opts, argc, argv);
    while ((k = psk_cli_next(&a)) != PSK_CLI_END) {
        if (k == PSK_CLI_STOP) {
            return a.status;
        } else if (k == O_JSON) {
            json = 1;
        } else if (k == O_TREE) {
            tree = 1;
        } else if (k == O_OUT) {
            out = a.val;
        } else if (k == O_SYMBOLS) {
            symfile = a.val;
        } else if (k == O_ALGO) {
            if ((algo = psk_fold_algo_lookup(a.val)) < 0)
                return psk_cli_usage("fold: --algo is runs, paper, topdown or bottomup, not '%s'", a.val);
        } else if (!input) { /* an operand */
            input = a.val;
        } else {
            return psk_cli_usage("fold: one input only");
        }
    }
    if (!input == !symfile)
        return psk_cli_usage("fold: give a trace directory, a merged trace, or --symbols FILE");
    int32_t *sym = NULL;
    int64_t n = 0;
    psk_merged *m = NULL;
    int rc = 0;
    if (symfile) {
        if (read_symbols(symfile, &sym, &n))
            return PSK_EXIT_DATA;
        input = symfile;
    } else {
        if (!(m = psk_cli_load_merged(input, 0)))
            return PSK_EXIT_DATA;
        n = (int64_t)psk_merged_length(m);
    }
    double t0 = psk_cli_now();
    psk_folded *f;
    int32_t *lv[PSK_FOLD_LEVELS] = {0};
    psk_cli_progress pg;
    psk_cli_progress_init(&pg, "fold", 0);
    psk_cli_progress_timed(&pg, "folding");
    if (sym) {
        rc = psk_fold(sym, n, algo, &f);
    } else if ((rc = psk_fold_keys(m, lv))) {
        psk_cli_progress_done(&pg);
        psk_cli_error("%s: %s", input, psk_merged_errmsg(m));
        psk_merged_close(m);
        return PSK_EXIT_DATA;
    } else {
        rc = psk_fold_levels((const int32_t *const *)lv, PSK_FOLD_LEVELS, (const int32_t *)psk_merged_classes(m), n,
                             algo, &f);
    }
    psk_cli_progress_done(&pg);
    double secs = psk_cli_now() - t0;
    /* the loop tree must expand back to the input: checked every time */
    verify v = {f, sym ? sym : lv[PSK_FOLD_LEVELS - 1], -1, !sym};
    int bad = !rc && psk_folded_walk(f, same_symbol, &v);
    for (int l = 0; l < PSK_FOLD_LEVELS; l++)
        free(lv[l]);
    if (bad) {
        psk_cli_error("%s: internal error: the folding does not expand back to the input at symbol %lld", input,
                      (long long)v.bad);
        psk_folded_free(f);
        psk_merged_close(m);
        free(sym);
        return PSK_EXIT_DATA;
    }
    if (!rc && m)
        rc = psk_folded_stats(f, m);
    if (rc) {
        psk_cli_error("%s: %s", input, psk_folded_errmsg(f));
        psk_folded_free(f);
        psk_merged_close(m);
        free(sym);
        return PSK_EXIT_DATA;
    }
    if (out) {
        FILE *o = fopen(out, "w");
        if (!o) {
            psk_cli_error("%s: %s", out, strerror(errno));
            rc = PSK_EXIT_DATA;
        } else {
            psk_folded_write_json(o, f, m, input, algo, secs);
            if (fclose(o)) {
                psk_cli_error("%s: cannot write", out);
                rc = PSK_EXIT_DATA;
            }
        }
    }
    if (json) {
        psk_folded_write_json(stdout, f, m, input, algo, secs);
    } else if (!rc) {
        printf("folded %lld symbols to %lld in %.3f s (%s, %lld levels)\n", (long long)n,
               (long long)psk_folded_length(f), secs, psk_fold_algo_name(algo), (long long)psk_folded_rounds(f));
        int32_t ml = psk_folded_main_loop(f);
        if (ml >= 0)
            printf("main loop: x%lld, %lld events per iteration, from event %lld\n",
                   (long long)psk_folded_node(f, ml)->count, (long long)psk_folded_node(f, ml)->span,
                   (long long)psk_folded_node(f, ml)->start);
        if (n <= 100000 || tree) {
            names nm = {m};
            psk_folded_print(f, stdout, m ? short_name : NULL, &nm);
            putchar('\n');
        }
        if (m && (tree || psk_folded_nnodes(f) <= 200)) {
            putchar('\n');
            text_tree(f, 0, m, 0);
        }
    }
    psk_folded_free(f);
    psk_merged_close(m);
    free(sym);
    return rc;
}
