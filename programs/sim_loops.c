/* `perfskel sim --intervals loops`: the loops perfskel fold finds become
 * intervals of the simulation. The trace is merged without reordering and
 * folded (as for gen); walking the loop tree over the merged sequence, each
 * rank's events are followed through the loops around them, and where a
 * rank enters a new execution of a loop or leaves one, a mark is put before
 * that rank's event (psk_sim_mark). An execution of a loop is told apart
 * by the iterations of the loops around it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "perfskel/fold.h"
#include "perfskel/sim.h"

typedef struct level {
    int32_t node;
    uint64_t outer; /* hash of the enclosing loops' iterations */
} level;

typedef struct rankstate {
    level stack[64];
    int depth;
    uint64_t nevents;
    psk_sim_mark *mark;
    size_t n, cap;
} rankstate;

typedef struct walker {
    const psk_folded *f;
    psk_mcursor *cur;
    rankstate *r;
    int P, maxdepth, rc;
    size_t total, limit;
} walker;

static int put(walker *w, rankstate *r, int32_t key, int enter)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        psk_sim_mark *m = realloc(r->mark, cap * sizeof *m);
        if (!m)
            return -1;
        r->mark = m, r->cap = cap;
    }
    r->mark[r->n++] = (psk_sim_mark){.event = r->nevents, .key = key, .enter = enter};
    return ++w->total > w->limit ? -2 : 0;
}

static int visit(void *arg, int64_t pos, int32_t id, const int64_t *iter, int depth)
{
    (void)pos;
    walker *w = arg;
    psk_mevent me;
    int rc = psk_mcursor_next(w->cur, &me);
    if (rc)
        return w->rc = rc == PSK_EOF ? PSK_EINVAL : rc;
    /* the loops around this event, outermost first */
    int32_t path[64];
    int d = 0;
    for (int32_t x = psk_folded_node(w->f, id)->parent; x > 0 && d < 64; x = psk_folded_node(w->f, x)->parent)
        path[d++] = x;
    for (int i = 0; i < d / 2; i++) {
        int32_t t = path[i];
        path[i] = path[d - 1 - i];
        path[d - 1 - i] = t;
    }
    if (d > depth)
        d = depth;
    if (w->maxdepth && d > w->maxdepth)
        d = w->maxdepth;
    uint64_t outer[65];
    outer[0] = 0x9e3779b97f4a7c15ull;
    for (int k = 0; k < d; k++)
        outer[k + 1] = (outer[k] ^ (uint64_t)iter[k]) * 0x100000001b3ull;
    for (int j = 0; j < me.nranks; j++) {
        rankstate *r = &w->r[me.ranks[j]];
        int same = 0;
        while (same < r->depth && same < d && r->stack[same].node == path[same] &&
               r->stack[same].outer == outer[same])
            same++;
        while (r->depth > same)
            if ((rc = put(w, r, r->stack[--r->depth].node, 0)))
                return w->rc = rc;
        for (int k = same; k < d; k++) {
            r->stack[r->depth++] = (level){path[k], outer[k]};
            if ((rc = put(w, r, path[k], 1)))
                return w->rc = rc;
        }
        r->nevents++;
    }
    return 0;
}

void psk_cli_loop_name(void *arg, int32_t key, char *buf, size_t cap)
{
    const psk_folded *f = arg;
    const psk_fnode *x = psk_folded_node(f, key);
    int no = 0;
    double med;
    psk_folded_outliers(f, key, &no, &med);
    if (no)
        snprintf(buf, cap, "loop %d (%lld iterations, %d outlier%s)", key, (long long)x->count, no,
                 no > 1 ? "s" : "");
    else
        snprintf(buf, cap, "loop %d (%lld iterations)", key, (long long)x->count);
}

int psk_cli_sim_loops(const char *input, int maxdepth, psk_sim_opts *o, psk_sim_marks **marks_out,
                      psk_folded **fold_out, psk_merged **merged_out)
{
    psk_merged *m;
    psk_folded *f = psk_cli_load_folded(input, &m);
    if (!f)
        return PSK_EXIT_DATA;
    /* the loops' statistics: their outlier iterations are named */
    if (psk_folded_stats(f, m)) {
        psk_cli_error("%s: %s", input, psk_folded_errmsg(f));
        psk_folded_free(f);
        psk_merged_close(m);
        return PSK_EXIT_DATA;
    }
    int P = psk_merged_nranks(m);
    walker w = {.f = f, .P = P, .maxdepth = maxdepth, .limit = (size_t)50 << 20};
    w.r = calloc((size_t)P, sizeof *w.r);
    if (!w.r || psk_mcursor_open(m, &w.cur)) {
        free(w.r);
        psk_folded_free(f);
        psk_merged_close(m);
        psk_cli_error("out of memory");
        return PSK_EXIT_DATA;
    }
    psk_folded_walk(f, visit, &w);
    psk_mcursor_close(w.cur);
    psk_sim_marks *marks = calloc((size_t)P, sizeof *marks);
    if (w.rc || !marks) {
        for (int q = 0; q < P; q++)
            free(w.r[q].mark);
        free(w.r);
        free(marks);
        psk_folded_free(f);
        psk_merged_close(m);
        if (w.rc == -2)
            psk_cli_error("%s: loops are entered more than %zu times in all: give --depth to keep fewer levels",
                          input, w.limit);
        else
            psk_cli_error("%s: %s", input, w.rc == -1 ? "out of memory" : "the merged trace does not match its folding");
        return PSK_EXIT_DATA;
    }
    for (int q = 0; q < P; q++)
        marks[q] = (psk_sim_marks){.mark = w.r[q].mark, .n = w.r[q].n};
    free(w.r);
    o->marks = marks;
    o->mark_name = psk_cli_loop_name;
    o->mark_arg = f;
    *marks_out = marks;
    *fold_out = f;
    *merged_out = m;
    return 0;
}

void psk_cli_sim_loops_free(psk_sim_marks *marks, int P, psk_folded *f, psk_merged *m)
{
    for (int q = 0; marks && q < P; q++)
        free((void *)marks[q].mark);
    free(marks);
    psk_folded_free(f);
    psk_merged_close(m);
}
