/* The psk_merged object: its tables (rank sets, classes), the merged event
 * sequence with each event's patterns in one pool, and per rank the times
 * and the order of its calls. Built by psk_merge or psk_merged_read. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge_internal.h"
#include "psk_varint.h"

int merged_fail(psk_merged *m, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->err, sizeof m->err, fmt, ap);
    va_end(ap);
    return status;
}

psk_merged *merged_new(void)
{
    psk_merged *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->psets = psk_intern_new();
    m->classes = psk_intern_new();
    if (!m->psets || !m->classes) {
        psk_merged_close(m);
        return NULL;
    }
    return m;
}

void psk_merged_close(psk_merged *m)
{
    if (!m)
        return;
    psk_jobdoc_close(m->doc);
    if (m->rank)
        for (int r = 0; r < m->nranks; r++) {
            free(m->rank[r].times.p);
            free(m->rank[r].perm);
            free(m->rank[r].thr);
        }
    free(m->ts_own);
    free(m->ts_got);
    free(m->ts_g);
    free(m->ts_d);
    free(m->ts_prev);
    free(m->ts_fnrow);
    free(m->ts_at);
    free(m->ts.p);
    free(m->rank);
    psk_intern_free(m->psets);
    psk_intern_free(m->classes);
    free(m->cinfo);
    free(m->cls);
    free(m->evoff);
    free(m->pool.p);
    free(m);
}

const char *psk_merged_errmsg(const psk_merged *m) { return m ? m->err : "out of memory"; }

int mrank_thread(mrank *mr, uint32_t t, uint64_t before)
{
    if (mr->nthr && mr->thr[mr->nthr - 1].thread == t) {
        mr->thr[mr->nthr - 1].n++;
        return 0;
    }
    if (!mr->nthr && !t) /* no runs yet: every event so far on thread 0 */
        return 0;
    if (MERGE_GROW(&mr->thr, &mr->capthr, mr->nthr + 2))
        return -1;
    if (!mr->nthr && before)
        mr->thr[mr->nthr++] = (trun){before, 0};
    mr->thr[mr->nthr++] = (trun){1, t};
    if ((int)t >= mr->nthreads)
        mr->nthreads = (int)t + 1;
    return 0;
}

int merged_push(psk_merged *m, uint32_t cls, uint64_t start)
{
    if (m->n == m->cap) {
        uint64_t cap = m->cap ? 2 * m->cap : 4096;
        uint32_t *c = realloc(m->cls, cap * sizeof *c);
        if (!c)
            return -1;
        m->cls = c;
        uint64_t *o = realloc(m->evoff, (cap + 1) * sizeof *o);
        if (!o)
            return -1;
        m->evoff = o;
        m->cap = cap;
    }
    m->cls[m->n] = cls;
    m->evoff[m->n] = start;
    m->n++;
    return 0;
}

int64_t merged_class_id(psk_merged *m, const uint8_t *key, size_t len)
{
    int added;
    int64_t id = psk_intern_id(m->classes, key, len, &added);
    if (id < 0 || !added)
        return id;
    if ((uint32_t)id >= m->ccap) {
        uint32_t cap = m->ccap ? 2 * m->ccap : 256;
        mclass *c = realloc(m->cinfo, cap * sizeof *c);
        if (!c)
            return -1;
        m->cinfo = c;
        m->ccap = cap;
    }
    const uint8_t *p = key, *end = key + len;
    uint64_t pset = 0, klen = 0, fn = 0;
    psk_get_uvar(&p, end, &pset);
    psk_get_uvar(&p, end, &klen);
    psk_get_uvar(&p, end, &fn);
    m->cinfo[id].fn = (unsigned)fn;
    m->cinfo[id].pset = (uint32_t)pset;
    return id;
}

const psk_job *psk_merged_job(const psk_merged *m) { return m->job; }
int psk_merged_nranks(const psk_merged *m) { return m->nranks; }
uint64_t psk_merged_length(const psk_merged *m) { return m->n; }
uint64_t psk_merged_rank_events(const psk_merged *m, int rank)
{
    return rank >= 0 && rank < m->nranks ? m->rank[rank].n : 0;
}
const uint8_t *psk_merged_rank_times(const psk_merged *m, int rank, size_t *len)
{
    int ok = rank >= 0 && rank < m->nranks;
    *len = ok ? m->rank[rank].times.len : 0;
    return ok ? m->rank[rank].times.p : NULL;
}
uint64_t psk_merged_rank_start(const psk_merged *m, int rank)
{
    return rank >= 0 && rank < m->nranks ? m->rank[rank].mono_start : 0;
}
void psk_merged_summarize_times(psk_merged *m) { m->tsum = 1; }
int psk_merged_times_summarized(const psk_merged *m) { return m->tsum; }

int psk_merged_rank_threads(const psk_merged *m, int rank)
{
    return rank >= 0 && rank < m->nranks && m->rank[rank].nthreads > 1 ? m->rank[rank].nthreads : 1;
}

int psk_merged_rank_reordered(const psk_merged *m, int rank)
{
    return rank >= 0 && rank < m->nranks && m->rank[rank].perm != NULL;
}
uint32_t psk_merged_nclasses(const psk_merged *m) { return psk_intern_count(m->classes); }
const uint32_t *psk_merged_classes(const psk_merged *m) { return m->cls; }
unsigned psk_merged_class_fn(const psk_merged *m, uint32_t cls) { return m->cinfo[cls].fn; }

const int32_t *psk_merged_class_ranks(const psk_merged *m, uint32_t cls, int *n)
{
    size_t len;
    const uint8_t *p = psk_intern_key(m->psets, m->cinfo[cls].pset, &len);
    *n = (int)(len / sizeof(int32_t));
    return (const int32_t *)(const void *)p;
}

const uint8_t *psk_merged_event_patterns(const psk_merged *m, uint64_t i, size_t *len)
{
    if (i >= m->n) {
        *len = 0;
        return NULL;
    }
    uint64_t end = i + 1 < m->n ? m->evoff[i + 1] : m->pool.len;
    *len = (size_t)(end - m->evoff[i]);
    return m->pool.p + m->evoff[i];
}

static void value_desc(char *out, size_t cap, int field, int64_t v)
{
    if (field == PSK_F_OP)
        snprintf(out, cap, "%s", psk_op_name((int)v));
    else if (pattern_is_peer(field) && v == PSK_ANY_SOURCE)
        snprintf(out, cap, "any");
    else if (pattern_is_peer(field) && v == PSK_PROC_NULL)
        snprintf(out, cap, "null");
    else if ((field == PSK_F_TAG || field == PSK_F_RTAG) && v == PSK_ANY_TAG)
        snprintf(out, cap, "any");
    else
        snprintf(out, cap, "%lld", (long long)v);
}

void psk_merged_class_desc(const psk_merged *m, uint32_t cls, char *buf, size_t cap)
{
    size_t clen, used = 0;
    const uint8_t *p = psk_intern_key(m->classes, cls, &clen), *end = p + clen;
    uint64_t pset, klen, fn;
    buf[0] = 0;
    if (psk_get_uvar(&p, end, &pset) || psk_get_uvar(&p, end, &klen) || psk_get_uvar(&p, end, &fn))
        return;
    const uint8_t *kend = end; /* the peer patterns follow the key, parsed in order */
#define ADD(...)                                                                   \
    do {                                                                           \
        int w_ = snprintf(buf + used, used < cap ? cap - used : 0, __VA_ARGS__);   \
        if (w_ > 0)                                                                \
            used += (size_t)w_;                                                    \
    } while (0)
    ADD("%s", psk_fn_name((unsigned)fn) ? psk_fn_name((unsigned)fn) : "?");
    uint32_t fields = psk_fn_fields((unsigned)fn);
    char v[64];
    for (uint32_t fs = fields & merge_key_fields((unsigned)fn); fs; fs &= fs - 1) {
        int f = __builtin_ctz(fs);
        int64_t x = 0;
        if (pattern_is_peer(f)) {
            uint64_t kind;
            if (psk_get_uvar(&p, kend, &kind) || (kind != 3 && psk_get_svar(&p, kend, &x)))
                return;
            continue;
        }
        if (psk_get_svar(&p, kend, &x))
            return;
        value_desc(v, sizeof v, f, x);
        ADD(" %s=%s", psk_field_name(f), v);
    }
    /* peer patterns */
    int np;
    psk_merged_class_ranks(m, cls, &np);
    for (int f = PSK_F_PEER; f <= PSK_F_RPEER; f++) {
        if (!pattern_is_peer(f) || !((fields >> f) & 1u) || p >= end)
            continue;
        int kind = *p++;
        int64_t x = 0;
        if (kind == PSK_PAT_TABLE) {
            ADD(" %s=[", psk_field_name(f));
            for (int j = 0; j < np; j++) {
                if (psk_get_svar(&p, end, &x))
                    return;
                value_desc(v, sizeof v, f, x);
                if (j < 8)
                    ADD("%s%s", j ? "," : "", v);
            }
            ADD("%s]", np > 8 ? ",..." : "");
            continue;
        }
        if (psk_get_svar(&p, end, &x))
            return;
        value_desc(v, sizeof v, f, x);
        if (kind == PSK_PAT_CONST)
            ADD(" %s=%s", psk_field_name(f), v);
        else
            ADD(" %s=%srank%+lld", psk_field_name(f), kind == PSK_PAT_RING ? "ring:" : "", (long long)x);
    }
    /* who takes part */
    const int32_t *r = psk_merged_class_ranks(m, cls, &np);
    if (np == m->nranks) {
        ADD(" ranks=all");
    } else {
        ADD(" ranks=");
        for (int j = 0; j < np;) {
            int k = j;
            while (k + 1 < np && r[k + 1] == r[k] + 1)
                k++;
            ADD("%s%d", j ? "," : "", r[j]);
            if (k > j)
                ADD("-%d", r[k]);
            j = k + 1;
        }
    }
#undef ADD
    if (used >= cap && cap > 4)
        memcpy(buf + cap - 4, "...", 4);
}
