/* Walking a merged trace in order (psk_mcursor): each merged event's
 * patterns are evaluated back into one event per taking part rank, with
 * each rank's communicators followed along the way so that "rank + 1"
 * means the same as when it was merged. Expansion (psk_merged_expand)
 * walks it for one rank and puts the calls back in the rank's own order. */
#include <stdlib.h>
#include <string.h>

#include "merge_internal.h"
#include "psk_varint.h"

/* ranks ahead whose scattered per-rank data a loop over the ranks asks
 * the caches for (at many ranks every rank's is a miss) */
#define PF 8

/* a rank's times as a cursor reads them: what each of its events reads,
 * side by side with the next rank's (not in its mrank, 80 bytes apart) */
typedef struct ctimes {
    const uint8_t *p, *end; /* its next event's times, their end */
    uint64_t clock;         /* exit time of its previous event */
    size_t trun;            /* its run of one thread's events, NORUN: none to follow */
} ctimes;
#define NORUN SIZE_MAX

struct psk_mcursor {
    psk_merged *m;
    uint64_t i;          /* next merged event */
    ctimes *tm;          /* per rank */
    uint64_t *tin;       /* per rank: its events of its run gone by */
    commtab *ct;
    psk_event *ev;
    mevent_store *st;
    uint64_t *gap;
    const uint8_t **tat;
    int64_t *rawgap;     /* as recorded: may be negative by clock noise */
    int32_t *crank, *csize;
    /* the event under way (psk_mcursor_head): its header, what its ranks
     * are decoded from, and how many of them are */
    psk_mevent hd;
    int open, done;
    uint32_t jmask;      /* ~0, or a window's (psk_mcursor_window) */
    int nk, kf[PSK_F_FIRST_ARRAY], na;
    int64_t kv[PSK_F_FIRST_ARRAY], cid;
    pattern_at at[PSK_F_NFIELDS];
};

void psk_mcursor_close(psk_mcursor *c)
{
    if (!c)
        return;
    int P = c->m->nranks;
    for (int r = 0; c->ct && r < P; r++)
        commtab_free(&c->ct[r]);
    for (int j = 0; c->st && j < P; j++)
        mevent_store_free(&c->st[j]);
    free(c->tm);
    free(c->tin);
    free(c->ct);
    free(c->ev);
    free(c->st);
    free(c->gap);
    free(c->tat);
    free(c->rawgap);
    free(c->crank);
    free(c->csize);
    free(c);
}

int psk_mcursor_open(psk_merged *m, psk_mcursor **out)
{
    int P = m->nranks;
    psk_mcursor *c = calloc(1, sizeof *c);
    *out = c;
    if (!c)
        return PSK_ENOMEM;
    c->m = m;
    c->jmask = ~0u;
    c->tm = calloc((size_t)P, sizeof *c->tm);
    c->tin = calloc((size_t)P, sizeof *c->tin);
    c->ct = calloc((size_t)P, sizeof *c->ct);
    c->ev = calloc((size_t)P, sizeof *c->ev);
    c->st = calloc((size_t)P, sizeof *c->st);
    c->gap = calloc((size_t)P, sizeof *c->gap);
    c->tat = calloc((size_t)P, sizeof *c->tat);
    c->rawgap = calloc((size_t)P, sizeof *c->rawgap);
    c->crank = calloc((size_t)P, sizeof *c->crank);
    c->csize = calloc((size_t)P, sizeof *c->csize);
    if (!c->tm || !c->tin || !c->ct || !c->ev || !c->st || !c->gap || !c->tat || !c->rawgap || !c->crank ||
        !c->csize) {
        psk_mcursor_close(c);
        *out = NULL;
        return PSK_ENOMEM;
    }
    for (int r = 0; r < P; r++) {
        const mrank *mr = &m->rank[r];
        c->tm[r] = (ctimes){.p = mr->times.p, .end = mr->times.p + mr->times.len, .clock = mr->mono_start};
        /* every event on thread 0 (as ev's start): nothing to follow, and
         * no read of the rank's runs at each of its events */
        if (!mr->nthr || (mr->nthr == 1 && mr->thr[0].thread == 0))
            c->tm[r].trun = NORUN;
        if (commtab_init(&c->ct[r], r, P)) {
            psk_mcursor_close(c);
            *out = NULL;
            return PSK_ENOMEM;
        }
    }
    return PSK_OK;
}

void psk_mcursor_window(psk_mcursor *c) { c->jmask = PSK_MCURSOR_CHUNK - 1; }

/* the event under way: the one before the next */
static uint64_t at_index(const psk_mcursor *c) { return c->open ? c->hd.index : c->i; }

static int bad(psk_mcursor *c)
{
    merged_fail(c->m, PSK_EFORMAT, "merged event %llu is malformed", (unsigned long long)at_index(c));
    return PSK_EFORMAT;
}

/* ranks j0..j1-1 of the event under way (c->hd; its key fields nk, kf,
 * kv and communicator cid, its other fields' patterns at): each one's
 * event gets them, its communicator as of this event, and its times; 0, 1
 * if the data is malformed, or merged_fail's code (negative) */
static int decode_chunk(psk_mcursor *c, int j0, int j1)
{
    psk_merged *m = c->m;
    const psk_mevent *me = &c->hd;
    int nk = c->nk, na = c->na;
    const int *kf = c->kf;
    const int64_t *kv = c->kv;
    int64_t cid = c->cid;
    pattern_at *at = c->at;
    const int32_t *ranks = me->ranks;
    int np = me->nranks;
    uint32_t w = c->jmask; /* rank j's event, gap, ... at j & w */
    /* world's communicator is in the rank's commtab, the others' in
     * allocations of their own: asked for PF ranks ahead, a hint */
    for (int j = j0; j < j1; j++) {
        if (j + PF < np) {
            const commtab *t = &c->ct[ranks[j + PF]];
            __builtin_prefetch(&c->ev[(uint32_t)(j + PF) & w], 1);
            if (cid > 0 && cid < t->n)
                __builtin_prefetch(t->csize + cid), __builtin_prefetch(t->crank + cid);
        }
        psk_event *e = &c->ev[(uint32_t)j & w];
        e->fn = me->fn;
        e->fields = me->fields;
        for (int k = 0; k < nk; k++)
            e->v[kf[k]] = kv[k];
        commtab_ctx(&c->ct[ranks[j]], e, &c->crank[(uint32_t)j & w], &c->csize[(uint32_t)j & w]);
    }
    for (int a = 0; a < na; a++)
        if (pattern_fill(&at[a], c->ev, j0, j1, w, c->crank, c->csize, c->st))
            return 1;
    for (int j = j0; j < j1; j++) {
        int r = ranks[j];
        uint32_t J = (uint32_t)j & w;
        psk_event *e = &c->ev[J];
        if (j + PF < np) /* the next ranks' times, each in its own buffer */
            __builtin_prefetch(c->tm[ranks[j + PF]].p);
        ctimes *tm = &c->tm[r];
        const uint8_t *tp = tm->p;
        int64_t gap;
        uint64_t dur;
        c->tat[J] = tp;
        if (psk_get_svar(&tp, tm->end, &gap) || psk_get_uvar(&tp, tm->end, &dur))
            return 1;
        tm->p = tp;
        c->gap[J] = gap > 0 ? (uint64_t)gap : 0;
        c->rawgap[J] = gap;
        e->t_entry = tm->clock + (uint64_t)gap;
        e->t_exit = e->t_entry + dur;
        tm->clock = e->t_exit;
        e->thread = 0;
        if (tm->trun != NORUN) { /* the thread of this run of its events */
            const mrank *mr = &m->rank[r];
            e->thread = (int)mr->thr[tm->trun].thread;
            if (++c->tin[r] == mr->thr[tm->trun].n) { /* its next run, if any */
                c->tin[r] = 0;
                tm->trun = tm->trun + 1 < mr->nthr ? tm->trun + 1 : NORUN;
            }
        }
        int64_t mb = 0; /* a call per rank only where the event has members */
        int mc = (me->fields >> PSK_F_MEMBERS & 1u) ? psk_event_members_check(e, r, m->nranks, &mb) : 0;
        if (mc == 1)
            return merged_fail(m, PSK_EFORMAT, "merged event %llu (%s): rank %d's member %lld is not a rank of the job",
                               (unsigned long long)me->index, psk_fn_name(me->fn), r, (long long)mb);
        if (mc == 2)
            return merged_fail(m, PSK_EFORMAT, "merged event %llu (%s): rank %d's new communicator leaves it out",
                               (unsigned long long)me->index, psk_fn_name(me->fn), r);
        if (commtab_event(&c->ct[r], e, r))
            return merged_fail(m, PSK_ENOMEM, "out of memory");
    }
    return 0;
}

int psk_mcursor_fill(psk_mcursor *c, int j1)
{
    if (!c->open)
        return PSK_OK;
    j1 = j1 < c->hd.nranks ? j1 : c->hd.nranks;
    /* a chunk at a time, up to the next multiple of its size (a window's) */
    while (c->done < j1) {
        int j0 = c->done, je = (j0 / PSK_MCURSOR_CHUNK + 1) * PSK_MCURSOR_CHUNK;
        je = je < j1 ? je : j1;
        int rc = decode_chunk(c, j0, je);
        if (rc)
            return rc > 0 ? bad(c) : rc;
        c->done = je;
    }
    c->open = c->done < c->hd.nranks;
    return PSK_OK;
}

int psk_mcursor_head(psk_mcursor *c, psk_mevent *me)
{
    psk_merged *m = c->m;
    int rc = psk_mcursor_fill(c, c->hd.nranks); /* the rest of the one before */
    if (rc)
        return rc;
    if (c->i >= m->n)
        return PSK_EOF;
    uint32_t cls = m->cls[c->i];
    int np;
    const int32_t *ranks = psk_merged_class_ranks(m, cls, &np);
    size_t clen;
    const uint8_t *p = psk_intern_key(m->classes, cls, &clen), *end = p + clen;
    uint64_t pset, klen, fn;
    if (psk_get_uvar(&p, end, &pset) || psk_get_uvar(&p, end, &klen) || klen > (uint64_t)(end - p))
        return bad(c);
    const uint8_t *kend = p + klen;
    if (psk_get_uvar(&p, kend, &fn) || !psk_fn_name((unsigned)fn))
        return bad(c);
    memset(me, 0, sizeof *me);
    me->index = c->i;
    me->cls = cls;
    me->fn = (unsigned)fn;
    me->fields = psk_fn_fields(me->fn);
    me->nranks = np;
    me->ranks = ranks;
    me->ev = c->ev;
    me->gap = c->gap;
    me->tat = c->tat;
    me->jmask = c->jmask;
    /* key fields: equal on every rank (peers come as patterns below) */
    int nk = 0, *kf = c->kf;
    int64_t *kv = c->kv, cid = 0;
    for (uint32_t fs = me->fields & merge_key_fields(me->fn); fs; fs &= fs - 1) {
        int f = __builtin_ctz(fs);
        int64_t v;
        if (pattern_is_peer(f)) {
            uint64_t kind;
            if (psk_get_uvar(&p, kend, &kind) || (kind != 3 && psk_get_svar(&p, kend, &v)))
                return bad(c);
            continue;
        }
        if (psk_get_svar(&p, kend, &v))
            return bad(c);
        me->kind[f] = PSK_PAT_CONST;
        me->c[f] = v;
        kf[nk] = f, kv[nk++] = v;
        cid = f == PSK_F_COMM ? v : cid;
    }
    /* the patterns of the other fields: the peers' after the key, the
     * rest in the event's own bytes */
    pattern_at *at = c->at;
    int na = 0;
    p = kend;
    for (int f = PSK_F_PEER; f <= PSK_F_RPEER; f++)
        if (pattern_is_peer(f) && ((me->fields >> f) & 1u)) {
            if (pattern_scan(&p, end, f, np, &at[na]))
                return bad(c);
            me->kind[f] = at[na].kind;
            me->c[f] = at[na++].c;
        }
    size_t qlen;
    const uint8_t *q = psk_merged_event_patterns(m, c->i, &qlen), *qend = q + qlen;
    for (uint32_t fs = me->fields & ~merge_key_fields(me->fn); fs; fs &= fs - 1) {
        int f = __builtin_ctz(fs);
        if (pattern_scan(&q, qend, f, np, &at[na]))
            return bad(c);
        me->kind[f] = at[na].kind;
        if (f < PSK_F_FIRST_ARRAY)
            me->c[f] = at[na].c;
        na++;
    }
    c->nk = nk, c->na = na, c->cid = cid;
    c->hd = *me;
    c->done = 0;
    c->open = np > 0;
    c->i++;
    return PSK_OK;
}

int psk_mcursor_next(psk_mcursor *c, psk_mevent *me)
{
    int rc = psk_mcursor_head(c, me);
    return rc ? rc : psk_mcursor_fill(c, me->nranks);
}

int psk_merged_expand(psk_merged *m, int rank, int (*fn)(void *arg, const psk_event *ev), void *arg)
{
    if (rank < 0 || rank >= m->nranks)
        return merged_fail(m, PSK_EINVAL, "no rank %d in a %d-rank job", rank, m->nranks);
    const mrank *mr = &m->rank[rank];
    psk_mcursor *c;
    int rc = psk_mcursor_open(m, &c);
    if (rc)
        return merged_fail(m, rc, "out of memory");
    /* the rank's events in merged order, re-encoded with their gaps */
    mbuf b = {0};
    uint64_t *off = malloc((mr->n + 1) * sizeof *off), k = 0;
    int *thr = malloc((mr->n + 1) * sizeof *thr); /* not in the bytes */
    psk_mevent me;
    if (!off || !thr)
        rc = merged_fail(m, PSK_ENOMEM, "out of memory");
    while (!rc && (rc = psk_mcursor_next(c, &me)) == PSK_OK) {
        int j = 0;
        while (j < me.nranks && me.ranks[j] < rank)
            j++;
        if (j == me.nranks || me.ranks[j] != rank)
            continue;
        if (k == mr->n || mbuf_reserve(&b, psk_event_encoded_max(&me.ev[j]))) {
            rc = merged_fail(m, k == mr->n ? PSK_EFORMAT : PSK_ENOMEM, "rank %d: more events than recorded", rank);
            break;
        }
        thr[k] = me.ev[j].thread;
        off[k++] = b.len;
        uint8_t *e = psk_event_encode(b.p + b.len, &me.ev[j], c->rawgap[j]);
        b.len = (size_t)(e - b.p);
    }
    psk_mcursor_close(c);
    if (rc == PSK_EOF)
        rc = k == mr->n ? PSK_OK : merged_fail(m, PSK_EFORMAT, "rank %d: fewer events than recorded", rank);
    /* back in the rank's own order, with its own clock */
    uint64_t *at = rc ? NULL : malloc((mr->n + 1) * sizeof *at);
    int *tat = rc ? NULL : malloc((mr->n + 1) * sizeof *tat);
    if (!rc && (!at || !tat))
        rc = merged_fail(m, PSK_ENOMEM, "out of memory");
    if (!rc) {
        for (uint64_t q = 0; q < mr->n; q++) {
            at[mr->perm ? mr->perm[q] : q] = off[q];
            tat[mr->perm ? mr->perm[q] : q] = thr[q];
        }
        uint64_t clock = mr->mono_start;
        mevent_store st = {0};
        psk_event ev;
        for (uint64_t q = 0; q < mr->n && !rc; q++) {
            const uint8_t *p = b.p + at[q];
            int64_t gap;
            if (mevent_decode(&p, b.p + b.len, &ev, &gap, &st)) {
                rc = merged_fail(m, PSK_EFORMAT, "rank %d: event %llu malformed", rank, (unsigned long long)q);
                break;
            }
            uint64_t dur = ev.t_exit - ev.t_entry;
            ev.t_entry = clock + (uint64_t)gap;
            ev.t_exit = ev.t_entry + dur;
            ev.thread = tat[q];
            clock = ev.t_exit;
            rc = fn(arg, &ev);
        }
        mevent_store_free(&st);
    }
    free(at);
    free(tat);
    free(off);
    free(thr);
    free(b.p);
    return rc;
}
