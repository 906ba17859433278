/* The folded tree and the merged trace it was folded from, walked side by
 * side: every pass that learns something per node of the tree from the
 * events it stands for (statistics, loop-variant parameters, a skeleton's
 * data, sim's folded program, loop intervals) reads them through this. */
#include "fold_internal.h"
#include "perfskel/merge.h"

typedef struct mwalk {
    psk_mcursor *cur;
    int heads;           /* headers only: the visitor fills the ranks */
    int (*fn)(void *, const psk_fstep *);
    void *arg;
} mwalk;

static int step(void *arg, int64_t pos, int32_t node, const int64_t *iter, int depth)
{
    mwalk *w = arg;
    psk_mevent me;
    int rc = w->heads ? psk_mcursor_head(w->cur, &me) : psk_mcursor_next(w->cur, &me);
    if (rc)
        return rc == PSK_EOF ? PSK_EMISMATCH : rc; /* m ends before f */
    psk_fstep s = {.pos = pos, .node = node, .iter = iter, .depth = depth, .ev = &me, .cur = w->heads ? w->cur : NULL};
    return w->fn(w->arg, &s);
}

static int walk_merged(const psk_folded *f, psk_merged *m, int heads, int (*fn)(void *, const psk_fstep *), void *arg)
{
    mwalk w = {.heads = heads, .fn = fn, .arg = arg};
    int rc = psk_mcursor_open(m, &w.cur);
    if (rc)
        return rc;
    if (heads) /* the visitor uses a part of the ranks at a time */
        psk_mcursor_window(w.cur);
    rc = psk_folded_walk(f, step, &w);
    if (!rc && heads) /* the last event's ranks left, checked as they decode */
        rc = psk_mcursor_fill(w.cur, INT32_MAX);
    psk_mcursor_close(w.cur);
    return rc;
}

int psk_folded_walk_merged(const psk_folded *f, psk_merged *m, int (*fn)(void *arg, const psk_fstep *s), void *arg)
{
    return walk_merged(f, m, 0, fn, arg);
}

int psk_folded_walk_heads(const psk_folded *f, psk_merged *m, int (*fn)(void *arg, const psk_fstep *s), void *arg)
{
    return walk_merged(f, m, 1, fn, arg);
}
