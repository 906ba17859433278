/* The cursors of perfskel sim --folded's program: one per rank walks the
 * loop tree again, without expanding it into a trace, and hands out that
 * rank's events in its order, each with the parameters the rank passed in
 * that execution (its slot's, or the node's pattern), the loop intervals
 * it enters and leaves, and where an iteration of a candidate loop begins;
 * a skip moves it S iterations on. A cursor's hot fields and first frames
 * share its first cache lines. */
#include <stdlib.h>
#include <string.h>

#include "psk_mem.h"
#include "sim_fprog_internal.h"

/* ---- the cursor ---- */

/* rank q's parameters at execution exec of tree event node (slot j, or
 * -1 if the node has a pattern without exceptions) */
static void node_event(const psk_fprog *p, int32_t node, int j, int q, int64_t exec, psk_event *ev)
{
    const symd *d = &p->sd[node];
    if (d->uni != NONE && (!d->exc || !((d->exc[j >> 6] >> (j & 63)) & 1u))) {
        psk_fprogi_materialize(p, d->unix ? d->unix[exec] : d->uni, ev);
        for (uint32_t f = d->rel; f; f &= f - 1)
            ev->v[__builtin_ctz(f)] = (int64_t)((uint64_t)ev->v[__builtin_ctz(f)] + (uint64_t)q);
        return;
    }
    const slot *s = &d->slots[j];
    psk_fprogi_materialize(p, s->idx ? s->idx[exec] : s->first, ev);
}

typedef struct cframe {
    int32_t node, child;
    int64_t iter, exec;
    int entered;   /* its enter mark was given (or it gives none) */
} cframe;

#define CF_INLINE 4 /* frames held in the cursor itself (deeper: on the heap) */

struct psk_fcursor {
    const psk_fprog *p;
    int q, loop_depth;
    cframe *st;
    int d;
    int inblock;   /* one of psk_fcursor_open_all's block: not freed alone */
    int64_t cap;
    int cand;      /* the frame of the candidate loop it is in, or -1 */
    int cand_new;  /* an iteration of it began: its next event says so */
    int began;
    int64_t b_exec, b_iter;
    int32_t last;  /* the tree event last handed out, and its execution */
    int64_t last_exec;
    psk_fmark *mk;
    int nmk;
    int64_t capmk;
    uint64_t events;
    /* the first frames live here, next to the fields above: a rank's next
     * event reads one or two cache lines, not a second allocation too */
    cframe in[CF_INLINE];
};

static int push(psk_fcursor *c, cframe f)
{
    if (c->d == c->cap && c->st == c->in) { /* leaving the inline frames */
        cframe *h = calloc(2 * CF_INLINE, sizeof *h);
        if (!h)
            return -1;
        memcpy(h, c->in, sizeof c->in);
        c->st = h, c->cap = 2 * CF_INLINE;
    }
    if (psk_grow((void **)&c->st, &c->cap, c->d, sizeof *c->st))
        return -1;
    c->st[c->d++] = f;
    return 0;
}

static int mark(psk_fcursor *c, int32_t node, int enter, int inner)
{
    if (psk_grow((void **)&c->mk, &c->capmk, c->nmk, sizeof *c->mk))
        return -1;
    c->mk[c->nmk++] = (psk_fmark){.node = node, .enter = (int8_t)enter, .inner = (int8_t)inner};
    return 0;
}

/* on a cache line of its own: its hot fields and first frames in as few
 * lines as they can be */
#define CURSOR_BYTES ((sizeof(psk_fcursor) + 63) / 64 * 64)

static void cursor_init(psk_fcursor *c, const psk_fprog *p, int rank, int loop_depth)
{
    memset(c, 0, CURSOR_BYTES);
    c->p = p, c->q = rank, c->loop_depth = loop_depth, c->cand = -1, c->last = -1;
    c->st = c->in, c->cap = CF_INLINE;
    c->st[c->d++] = (cframe){.node = 0, .entered = 1};
}

int psk_fcursor_open(const psk_fprog *p, int rank, int loop_depth, psk_fcursor **out)
{
    psk_fcursor *c = aligned_alloc(64, CURSOR_BYTES);
    *out = c;
    if (!c)
        return PSK_ENOMEM;
    cursor_init(c, p, rank, loop_depth);
    return PSK_OK;
}

int psk_fcursor_open_all(const psk_fprog *p, int n, int loop_depth, psk_fcursor **out, void **block)
{
    size_t bytes = (size_t)(n > 0 ? n : 1) * CURSOR_BYTES;
    char *b = bytes >= (2u << 20) ? psk_big_alloc(bytes) : aligned_alloc(64, bytes);
    *block = b;
    if (!b)
        return PSK_ENOMEM;
    for (int q = 0; q < n; q++) {
        out[q] = (psk_fcursor *)(b + (size_t)q * CURSOR_BYTES);
        cursor_init(out[q], p, q, loop_depth);
        out[q]->inblock = 1;
    }
    return PSK_OK;
}

void psk_fcursor_block_free(void *block) { free(block); }

const psk_fcursor *psk_fcursor_in_block(const void *block, int q)
{
    return (const psk_fcursor *)((const char *)block + (size_t)q * CURSOR_BYTES);
}

int psk_fcursor_next(psk_fcursor *c, psk_event *ev)
{
    const psk_fprog *p = c->p;
    c->nmk = 0;
    c->began = 0;
    for (;;) {
        if (c->d == 0)
            return PSK_EOF;
        cframe *f = &c->st[c->d - 1];
        const psk_fnode *nd = psk_folded_node(p->f, f->node);
        if (f->child == nd->nchild) {
            if (nd->kind == PSK_FNODE_LOOP && f->iter + 1 < nd->count) {
                f->iter++, f->child = 0;
                c->cand_new |= c->d - 1 == c->cand;
                continue;
            }
            if (f->entered == 2 && mark(c, f->node, 0, c->cand >= 0 && c->d - 1 > c->cand))
                return PSK_ENOMEM;
            if (c->d - 1 == c->cand)
                c->cand = -1;
            c->d--;
            continue;
        }
        int32_t ch = psk_folded_children(p->f, f->node)[f->child++];
        if (!psk_fprogi_has_rank(p, ch, c->q))
            continue;
        const psk_fnode *cn = psk_folded_node(p->f, ch);
        int64_t exec = f->exec * (nd->kind == PSK_FNODE_LOOP ? nd->count : 1) + f->iter;
        if (cn->kind == PSK_FNODE_LOOP) {
            if (push(c, (cframe){.node = ch, .exec = exec}))
                return PSK_ENOMEM;
            if (c->cand < 0 && p->cand[ch])
                c->cand = c->d - 1, c->cand_new = 1;
            continue;
        }
        /* an event of this rank: the loops it begins are entered first */
        for (int i = 1; i < c->d; i++)
            if (!c->st[i].entered) {
                const psk_fnode *l = psk_folded_node(p->f, c->st[i].node);
                int give = c->loop_depth >= 0 && (c->loop_depth == 0 || l->depth < c->loop_depth);
                c->st[i].entered = give ? 2 : 1;
                if (give && mark(c, c->st[i].node, 1, c->cand >= 0 && i > c->cand))
                    return PSK_ENOMEM;
            }
        if (c->cand >= 0 && c->cand_new) {
            c->began = 1, c->cand_new = 0;
            c->b_exec = c->st[c->cand].exec, c->b_iter = c->st[c->cand].iter;
        }
        const symd *sd = &p->sd[ch];
        int j = sd->uni != NONE && !sd->exc ? -1 : psk_fprogi_slot_of(p, ch, c->q);
        if (j < 0 && (sd->uni == NONE || sd->exc))
            continue; /* not in its class: has_rank said otherwise, cannot happen */
        node_event(p, ch, j, c->q, exec, ev);
        ev->t_entry = ev->t_exit = 0;
        c->last = ch, c->last_exec = exec;
        c->events++;
        return PSK_OK;
    }
}

void psk_fcursor_prefetch(const psk_fcursor *c)
{
    __builtin_prefetch(c, 1);
    __builtin_prefetch((const char *)c + 64, 1);
    __builtin_prefetch((const char *)c + 128, 1);
    __builtin_prefetch((const char *)c + 192, 1);
}

const psk_fmark *psk_fcursor_marks(const psk_fcursor *c, int *n)
{
    *n = c->nmk;
    return c->mk;
}

int psk_fcursor_began(const psk_fcursor *c, int32_t *node, int64_t *exec, int64_t *iter, int64_t *count)
{
    if (!c->began)
        return 0;
    *node = c->p->grp[c->st[c->cand].node];
    *exec = c->b_exec, *iter = c->b_iter;
    *count = psk_folded_node(c->p->f, *node)->count;
    return 1;
}

int psk_fcursor_in_candidate(const psk_fcursor *c) { return c->cand >= 0; }

void psk_fcursor_origin(const psk_fcursor *c, int32_t *node, int64_t *exec)
{
    *node = c->last, *exec = c->last_exec;
}

void psk_fcursor_skip(psk_fcursor *c, int64_t S)
{
    if (c->cand < 0)
        return;
    c->st[c->cand].iter += S;
    /* the loops inside the iteration, and the event last handed out, are
     * in the iteration S on: their executions move with it */
    int64_t mult = 1;
    for (int i = c->cand + 1; i < c->d; i++) {
        const psk_fnode *l = psk_folded_node(c->p->f, c->st[i].node);
        c->st[i].exec += S * mult;
        mult *= l->kind == PSK_FNODE_LOOP ? l->count : 1;
    }
    if (c->last >= 0 && c->p->cof[c->last] == c->p->grp[c->st[c->cand].node])
        c->last_exec += S * mult;
}

void psk_fcursor_reload(const psk_fcursor *c, psk_event *ev)
{
    if (c->last < 0)
        return;
    const symd *d = &c->p->sd[c->last];
    int j = psk_fprogi_slot_of(c->p, c->last, c->q);
    if (j < 0 || (uint64_t)c->last_exec >= d->execs)
        return;
    node_event(c->p, c->last, j, c->q, c->last_exec, ev);
    ev->t_entry = ev->t_exit = 0;
}

uint64_t psk_fcursor_events(const psk_fcursor *c) { return c->events; }

uint64_t psk_fcursor_bytes(const psk_fcursor *c)
{
    return sizeof *c + (c->st != c->in ? (uint64_t)c->cap * sizeof *c->st : 0) + (uint64_t)c->capmk * sizeof *c->mk;
}

void psk_fcursor_close(psk_fcursor *c)
{
    if (!c)
        return;
    if (c->st != c->in)
        free(c->st);
    free(c->mk);
    if (!c->inblock)
        free(c);
}
