/* The loops perfskel fold finds as intervals of the simulation (`sim
 * --intervals loops`): walking the loop tree over the merged sequence, each
 * rank's events are followed through the loops around them, and where a
 * rank enters a new execution of a loop or leaves one, a mark is put before
 * that rank's event (psk_sim_mark). An execution of a loop is told apart
 * by the iterations of the loops around it (a hash of them). */
#include <stdio.h>
#include <stdlib.h>

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
    rankstate *r;
    int maxdepth, rc;
    size_t total, limit;
} walker;

static int put(walker *w, rankstate *r, int32_t key, int enter)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        psk_sim_mark *m = realloc(r->mark, cap * sizeof *m);
        if (!m)
            return PSK_ENOMEM;
        r->mark = m, r->cap = cap;
    }
    r->mark[r->n++] = (psk_sim_mark){.event = r->nevents, .key = key, .enter = enter};
    return ++w->total > w->limit ? PSK_EINVAL : 0;
}

static int visit(void *arg, const psk_fstep *st)
{
    walker *w = arg;
    const psk_mevent *me = st->ev;
    int32_t id = st->node;
    const int64_t *iter = st->iter;
    int depth = st->depth, rc;
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
    for (int j = 0; j < me->nranks; j++) {
        rankstate *r = &w->r[me->ranks[j]];
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

void psk_sim_loop_name(void *arg, int32_t key, char *buf, size_t cap)
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

int psk_sim_loop_marks(psk_merged *m, const psk_folded *f, int maxdepth, psk_sim_marks **out)
{
    *out = NULL;
    int P = psk_merged_nranks(m);
    walker w = {.f = f, .maxdepth = maxdepth, .limit = PSK_SIM_LOOP_MARKS_MAX};
    w.r = calloc((size_t)P, sizeof *w.r);
    if (!w.r)
        return PSK_ENOMEM;
    int rc = psk_folded_walk_merged(f, m, visit, &w);
    if (!w.rc)
        w.rc = rc;
    psk_sim_marks *marks = calloc((size_t)P, sizeof *marks);
    if (w.rc || !marks) {
        for (int q = 0; q < P; q++)
            free(w.r[q].mark);
        free(w.r);
        free(marks);
        return w.rc ? w.rc : PSK_ENOMEM;
    }
    for (int q = 0; q < P; q++)
        marks[q] = (psk_sim_marks){.mark = w.r[q].mark, .n = w.r[q].n};
    free(w.r);
    *out = marks;
    return PSK_OK;
}

void psk_sim_loop_marks_free(psk_sim_marks *marks, int nranks)
{
    for (int q = 0; marks && q < nranks; q++)
        free((void *)marks[q].mark);
    free(marks);
}
