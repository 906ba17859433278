/* What perfskel sim's replay measures per rank over time: intervals (the
 * whole program, MPI_Pcontrol(n) ... MPI_Pcontrol(-n) for n >= 2, loops
 * given as marks) keep per-rank running totals taken at entry and exit,
 * so an event costs nothing extra for them; and the timeline, whose bins
 * widen as the run grows. An interval is one per (parent, key), found
 * through an open-addressing table; those nested deeper than --depth or
 * MAXNEST are only counted (skipped). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psk_mem.h"
#include "sim_state.h"

/* ---- intervals ---- */

/* intervals nested deeper are not kept (they are counted as skipped):
 * the reports recurse once a level */
#define MAXNEST 1000

static uint64_t ival_hash(int parent, int64_t key)
{
    return ((uint64_t)(uint32_t)parent * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)key * 0xC2B2AE3D27D4EB4Full);
}

/* the interval with this parent and key, made if there is none: found
 * through an open-addressing table of interval indices + 1 */
int psk_simi_ival_child(psk_sim *s, int parent, int64_t key, int level)
{
    uint64_t h = ival_hash(parent, key);
    for (uint64_t i = s->ivhcap ? h & (s->ivhcap - 1) : 0; s->ivhcap && s->ivh[i]; i = (i + 1) & (s->ivhcap - 1)) {
        const ival *v = &s->iv[s->ivh[i] - 1];
        if (v->parent == parent && v->key == key)
            return s->ivh[i] - 1;
    }
    if (2 * ((uint64_t)s->niv + 1) > s->ivhcap) { /* grow and rehash */
        uint64_t cap = s->ivhcap ? 2 * s->ivhcap : 64;
        int *t = calloc(cap, sizeof *t);
        if (!t)
            return -1;
        for (int k = 0; k < s->niv; k++) {
            uint64_t i = ival_hash(s->iv[k].parent, s->iv[k].key) & (cap - 1);
            while (t[i])
                i = (i + 1) & (cap - 1);
            t[i] = k + 1;
        }
        free(s->ivh);
        s->ivh = t, s->ivhcap = cap;
    }
    if (s->niv == s->capiv) {
        int cap = s->capiv ? 2 * s->capiv : 16;
        ival *a = realloc(s->iv, (size_t)cap * sizeof *a);
        if (!a)
            return -1;
        s->iv = a, s->capiv = cap;
    }
    ival *v = &s->iv[s->niv];
    memset(v, 0, sizeof *v);
    v->parent = parent, v->key = key, v->level = level;
    if (parent < 0)
        snprintf(v->name, sizeof v->name, "program");
    else if (key < 0 && s->opts && s->opts->mark_name)
        s->opts->mark_name(s->opts->mark_arg, (int32_t)(-1 - key), v->name, sizeof v->name);
    else if (key < 0)
        snprintf(v->name, sizeof v->name, "interval %lld", (long long)(-1 - key));
    else {
        v->name[0] = 0;
        if (s->opts && s->opts->pcontrol_name)
            s->opts->pcontrol_name(s->opts->pcontrol_arg, key, v->name, sizeof v->name);
        if (!v->name[0])
            snprintf(v->name, sizeof v->name, "pcontrol %lld", (long long)key);
    }
    v->m = psk_big_calloc((size_t)s->P * PSK_M_N, sizeof *v->m);
    v->count = psk_big_calloc((size_t)s->P, sizeof *v->count);
    if (!v->m || !v->count) {
        free(v->m), free(v->count);
        return -1;
    }
    uint64_t i = h & (s->ivhcap - 1);
    while (s->ivh[i])
        i = (i + 1) & (s->ivhcap - 1);
    s->ivh[i] = s->niv + 1;
    return s->niv++;
}

int psk_simi_ival_open(psk_sim *s, int q, int64_t key)
{
    rank *r = &s->r[q];
    int parent = r->depth ? r->stack[r->depth - 1].node : -1;
    int level = r->depth;
    if ((s->maxdepth && level > s->maxdepth) || level >= MAXNEST) {
        r->skipped++;
        return 0;
    }
    int node = psk_simi_ival_child(s, parent, key, level);
    if (node < 0)
        return PSK_ENOMEM;
    if (r->depth == r->cap) {
        int cap = r->cap ? 2 * r->cap : 8;
        frame *a = realloc(r->stack, (size_t)cap * sizeof *a);
        if (!a)
            return PSK_ENOMEM;
        r->stack = a, r->cap = cap;
    }
    frame *f = &r->stack[r->depth++];
    f->node = node;
    f->t_open = r->t;
    memcpy(f->acc, r->acc, sizeof f->acc);
    s->iv[node].count[q]++;
    return 0;
}

void psk_simi_ival_close(psk_sim *s, int q)
{
    rank *r = &s->r[q];
    if (!r->depth)
        return;
    frame *f = &r->stack[--r->depth];
    double *m = s->iv[f->node].m + (size_t)q * PSK_M_N;
    m[PSK_M_EXEC] += (r->t - f->t_open) * 1e-9;
    m[PSK_M_CPU] += (r->acc[A_CPU] - f->acc[A_CPU]) * 1e-9;
    m[PSK_M_P2P] += (r->acc[A_P2P] - f->acc[A_P2P]) * 1e-9;
    m[PSK_M_COLL] += (r->acc[A_COLL] - f->acc[A_COLL]) * 1e-9;
    m[PSK_M_WAIT] += (r->acc[A_WAIT] - f->acc[A_WAIT]) * 1e-9;
    m[PSK_M_SYNC] += (r->acc[A_SYNC] - f->acc[A_SYNC]) * 1e-9;
    m[PSK_M_VARIATION] += (r->acc[A_VAR] - f->acc[A_VAR]) * 1e-9;
    m[PSK_M_OVERLAP] += (r->acc[A_OVERLAP] - f->acc[A_OVERLAP]) * 1e-9;
}

/* ---- the timeline: per rank, PSK_TL_BINS bins of equal width, each
 * holding how much of it went to compute, communication and waiting; when
 * the run outgrows them, neighbouring bins merge and the width doubles, so
 * its size does not depend on the trace's length ---- */

/* the bins cover the run up to b */
static void tl_grow(psk_sim *s, double b)
{
    while (b > s->tl_width * PSK_TL_BINS) {
        for (int r = 0; r < s->P; r++) {
            double *t = s->tl + (size_t)r * PSK_TL_BINS * 3;
            for (int i = 0; i < PSK_TL_BINS / 2; i++)
                for (int k = 0; k < 3; k++)
                    t[3 * i + k] = t[3 * (2 * i) + k] + t[3 * (2 * i + 1) + k];
            memset(t + 3 * (PSK_TL_BINS / 2), 0, 3 * (PSK_TL_BINS / 2) * sizeof *t);
        }
        s->tl_width *= 2;
    }
}

static void tl_add(psk_sim *s, int q, int what, double a, double b)
{
    if (b <= a || !s->opts->timeline)
        return;
    tl_grow(s, b);
    double *t = s->tl + (size_t)q * PSK_TL_BINS * 3;
    int i = (int)(a / s->tl_width);
    if (b <= (i + 1) * s->tl_width) { /* within one bin: most segments */
        t[3 * i + what] += b - a;
        return;
    }
    for (; a < b && i < PSK_TL_BINS; i++) {
        double end = (i + 1) * s->tl_width;
        double piece = (b < end ? b : end) - a;
        t[3 * i + what] += piece;
        a += piece;
    }
}

void psk_simi_tl_add(psk_sim *s, int q, int what, double a, double b) { tl_add(s, q, what, a, b); }

void psk_simi_tl_spread(psk_sim *s, int q, int what, double a, double len, double amount)
{
    if (!s->opts->timeline || len <= 0 || amount <= 0)
        return;
    tl_grow(s, a + len);
    double *t = s->tl + (size_t)q * PSK_TL_BINS * 3;
    double scale = amount / len;
    for (int i = (int)(a / s->tl_width); i < PSK_TL_BINS && i * s->tl_width < a + len; i++) {
        double lo = i * s->tl_width > a ? i * s->tl_width : a;
        double hi = (i + 1) * s->tl_width < a + len ? (i + 1) * s->tl_width : a + len;
        if (hi > lo)
            t[3 * i + what] += (hi - lo) * scale;
    }
}
