/* fold_quality: how close each folding algorithm comes to the optimal
 * folded length (the exact interval DP) on random nested-loop programs:
 * bodies of 1-4 items, 2-6 iterations, up to 3 levels, expanded lengths
 * 8-160 (docs/folding.md, Quality). Prints, per algorithm, the share of
 * inputs folded optimally and the total length over the optimum; also checks
 * that every folding expands back to its input. The last row is the runs
 * algorithm through psk_fold_levels (what perfskel fold runs on merged
 * traces) with the input at every level: what the levels cost on traces whose
 * arguments never vary (docs/folding.md, Loops whose arguments change).
 *
 * usage: fold_quality [--inputs N] [--alphabet A] [--loop-pct P] [--seed S] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfskel/fold.h"

typedef struct check {
    const int32_t *s;
    int bad;
} check;

static int cmp(void *arg, int64_t pos, int32_t node, const int64_t *iter, int depth);
static const psk_folded *cur;

static int cmp(void *arg, int64_t pos, int32_t node, const int64_t *iter, int depth)
{
    (void)iter, (void)depth;
    check *c = arg;
    if (psk_folded_node(cur, node)->sym != c->s[pos])
        c->bad = 1;
    return c->bad;
}

int main(int argc, char **argv)
{
    long inputs = 5000;
    psk_fold_gen p = {.alphabet = 4, .max_items = 4, .min_iter = 2, .max_iter = 6, .max_depth = 3, .loop_pct = 40};
    uint64_t rng = 88172645463325252ull;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--inputs") && i + 1 < argc) inputs = atol(argv[++i]);
        else if (!strcmp(argv[i], "--alphabet") && i + 1 < argc) p.alphabet = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--loop-pct") && i + 1 < argc) p.loop_pct = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) rng = strtoull(argv[++i], NULL, 10) * 2654435761ull + 1;
        else {
            fprintf(stderr, "usage: fold_quality [--inputs N] [--alphabet A] [--loop-pct P] [--seed S]\n");
            return 2;
        }
    }
    int32_t s[160];
    /* one more row: runs through the levels */
    long done = 0, optimal[PSK_FOLD_NALGOS + 1] = {0}, broken[PSK_FOLD_NALGOS + 1] = {0};
    int64_t total_opt = 0, total[PSK_FOLD_NALGOS + 1] = {0};
    while (done < inputs) {
        int64_t n = psk_fold_generate(&p, &rng, s, 160);
        if (n < 8 || n > 160)
            continue;
        int64_t opt = psk_fold_optimal_length(s, (int32_t)n);
        total_opt += opt;
        for (int a = 0; a <= PSK_FOLD_NALGOS; a++) {
            psk_folded *f;
            const int32_t *lv[PSK_FOLD_LEVELS];
            for (int l = 0; l < PSK_FOLD_LEVELS; l++)
                lv[l] = s;
            if (a < PSK_FOLD_NALGOS ? psk_fold(s, n, a, &f)
                                    : psk_fold_levels(lv, PSK_FOLD_LEVELS, s, n, PSK_FOLD_RUNS, &f)) {
                fprintf(stderr, "fold_quality: %s\n", psk_folded_errmsg(f));
                return 1;
            }
            int64_t len = psk_folded_length(f);
            check c = {.s = s};
            cur = f;
            psk_folded_walk(f, cmp, &c);
            broken[a] += c.bad;
            total[a] += len;
            optimal[a] += len == opt;
            if (len < opt)
                broken[a]++;
            psk_folded_free(f);
        }
        done++;
    }
    printf("%ld random nested-loop inputs (alphabet %d, loops %d %%, lengths 8-160), optimal total %lld\n", done,
           p.alphabet, p.loop_pct, (long long)total_opt);
    printf("| algorithm | optimal inputs | total over optimum | broken |\n|---|---|---|---|\n");
    for (int a = 0; a <= PSK_FOLD_NALGOS; a++)
        printf("| %s | %.1f %% | +%.2f %% | %ld |\n", a < PSK_FOLD_NALGOS ? psk_fold_algo_name(a) : "runs, 3 levels", 100.0 * (double)optimal[a] / (double)done,
               100.0 * (double)(total[a] - total_opt) / (double)total_opt, broken[a]);
    return 0;
}
