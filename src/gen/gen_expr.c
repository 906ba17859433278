/* perfskel gen: the values of a call as C expressions. A value is a
 * literal when every rank has the same, a pattern for peers (rank + c, a
 * ring), else a table by world rank; a loop-variant parameter of the
 * folding (psk_folded_params) becomes an expression of the index of its
 * loop, whose variable is i<loop node id>, or a table by iteration or
 * execution. Tables go to g->tabs, each once per node. gen_value_at
 * computes the same values here, for checking and for data. */
#include <stdlib.h>
#include <string.h>

#include "gen_internal.h"

/* 1 the first time table `name` of node id is asked for (write it), 0 after:
 * a field's expression may be needed more than once (an MPI_Wait's request
 * names its slot twice), its table must be defined once */
static int table_once(gen *g, int32_t id, const char *name)
{
    gnode *n = &g->node[id];
    for (int i = 0; i < n->ntabnames; i++)
        if (!strcmp(n->tabnames[i], name))
            return 0;
    char **a = realloc(n->tabnames, (size_t)(n->ntabnames + 1) * sizeof *a);
    char *copy = strdup(name);
    if (!a || !copy) {
        free(copy);
        if (a)
            n->tabnames = a;
        gen_oom(g);
        return 0;
    }
    n->tabnames = a;
    n->tabnames[n->ntabnames++] = copy;
    return 1;
}

const psk_fparam *gen_param_of(const gen *g, int32_t id, int f)
{
    int n;
    const psk_fparam *p = psk_folded_params(g->f, id, &n);
    for (int i = 0; i < n; i++)
        if (p[i].field == f)
            return &p[i];
    return NULL;
}

int gen_loops_around(const gen *g, int32_t id, int32_t chain[64])
{
    int D = 0;
    for (int32_t x = psk_folded_node(g->f, id)->parent; x > 0; x = psk_folded_node(g->f, x)->parent)
        if (psk_folded_node(g->f, x)->kind == PSK_FNODE_LOOP && D < 64)
            chain[D++] = x;
    for (int i = 0; i < D / 2; i++) {
        int32_t t = chain[i];
        chain[i] = chain[D - 1 - i], chain[D - 1 - i] = t;
    }
    return D;
}

/* the loop node at depth d (0 = outermost) above node id */
static int32_t loop_at(const gen *g, int32_t id, int d)
{
    int32_t chain[64];
    int D = gen_loops_around(g, id, chain);
    return d >= 0 && d < D ? chain[d] : -1;
}

/* a table of a parameter, once */
static void param_table(gen *g, int32_t id, const char *what, const int64_t *t, int64_t n)
{
    char name[96];
    snprintf(name, sizeof name, "T%d_%s_v", id, what);
    if (!table_once(g, id, name))
        return;
    fprintf(g->tabs, "static const long long T%d_%s_v[%lld] = {", id, what, (long long)n);
    for (int64_t i = 0; i < n; i++)
        fprintf(g->tabs, "%s%lld", i ? (i % 16 ? ", " : ",\n    ") : "", (long long)t[i]);
    fprintf(g->tabs, "};\n");
}

/* e(i) of parameter p of node id as C; tables go to g->tabs */
static void param_c(gen *g, int32_t id, const psk_fparam *p, const char *what, char *out, size_t cap)
{
    int32_t L = loop_at(g, id, p->depth);
    char i[32];
    snprintf(i, sizeof i, "(long long)i%d", L);
    switch (p->kind) {
    case PSK_VARY_AFFINE:
        snprintf(out, cap, "(%lldLL * %s + %lldLL)", (long long)p->a, i, (long long)p->b);
        return;
    case PSK_VARY_MOD:
        snprintf(out, cap, "pmod_(%lldLL * %s + %lldLL, %lldLL)", (long long)p->a, i, (long long)p->b,
                 (long long)p->m);
        return;
    case PSK_VARY_PERIODIC:
    case PSK_VARY_ITER:
        param_table(g, id, what, p->table, p->n);
        snprintf(out, cap, "T%d_%s_v[%s %% %lldLL]", id, what, i, (long long)p->n);
        return;
    case PSK_VARY_EXEC:
        param_table(g, id, what, p->table, p->n);
        snprintf(out, cap, "T%d_%s_v[T%d_k %% %lldLL]", id, what, id, (long long)p->n);
        g->node[id].counted = 1;
        return;
    default: { /* per execution and rank: rows of NRANKS */
        const gnode *n = &g->node[id];
        int64_t E = p->m ? p->n / p->m : 0;
        if (E * g->P > (1 << 24)) {
            gen_fail(g, "event %d (%s): %s differs per rank and execution in %lld executions: too large a table", id,
                  psk_fn_name(n->first[0].fn), psk_field_name(p->field), (long long)E);
            snprintf(out, cap, "0");
            return;
        }
        char name[96];
        snprintf(name, sizeof name, "T%d_%s_r", id, what);
        if (table_once(g, id, name)) {
            fprintf(g->tabs, "static const long long %s[%lld][NRANKS] = {", name, (long long)(E ? E : 1));
            for (int64_t k = 0; k < (E ? E : 1); k++) {
                fprintf(g->tabs, "%s{", k ? ",\n    " : "");
                for (int r = 0, j = 0; r < g->P; r++) {
                    long long v = 0;
                    if (j < n->np && n->ranks[j] == r)
                        v = k < E ? p->table[k * p->m + j++] : 0;
                    fprintf(g->tabs, "%s%lld", r ? ", " : "", v);
                }
                fprintf(g->tabs, "}");
            }
            fprintf(g->tabs, "};\n");
        }
        snprintf(out, cap, "T%d_%s_r[T%d_k %% %lldLL][rank_]", id, what, id, (long long)(E ? E : 1));
        g->node[id].counted = 1;
        return;
    }
    }
}

/* the per-rank table T<id>_<what> of scalar field f of node id (as
 * gen_emit_table); -1 when out of memory (failed) */
static int field_table(gen *g, int32_t id, int f, const char *what)
{
    const gnode *n = &g->node[id];
    int64_t *vals = malloc((size_t)(n->np ? n->np : 1) * sizeof *vals);
    if (!vals)
        return gen_oom(g);
    for (int j = 0; j < n->np; j++)
        vals[j] = n->first[j].v[f];
    gen_emit_table(g, n, id, what, vals);
    free(vals);
    return 0;
}

/* the value of a varying field as C: e(i), first + e(i) by rank, or the
 * peer pattern with offset e(i); 0 if f does not vary */
int gen_param_expr(gen *g, int32_t id, int f, const char *what, char *out, size_t cap)
{
    const psk_fparam *p = gen_param_of(g, id, f);
    if (!p)
        return 0;
    const gnode *n = &g->node[id];
    char e[256];
    param_c(g, id, p, what, e, sizeof e);
    if (p->kind == PSK_VARY_RANKEXEC || p->mode == PSK_PMODE_VALUE) {
        snprintf(out, cap, "%s", e);
    } else if (p->mode == PSK_PMODE_OFFSET) {
        int64_t comm = PSK_HAS(&n->first[0], PSK_F_COMM) ? n->first[0].v[PSK_F_COMM] : 0;
        snprintf(out, cap, "%s(%lld, %s)", p->ring ? "peer_ring" : "peer_rank", (long long)comm, e);
    } else {
        char bw[48];
        snprintf(bw, sizeof bw, "%s_base", what);
        if (field_table(g, id, f, bw)) {
            snprintf(out, cap, "0");
            return 1;
        }
        snprintf(out, cap, "(T%d_%s[rank_] + %s)", id, bw, e);
    }
    return 1;
}

/* see gen_internal.h: resolved as the skeleton's runtime does */
int64_t gen_value_at(const gen *g, int32_t id, int f, int j, const int64_t *iter, int64_t k)
{
    const gnode *n = &g->node[id];
    const psk_fparam *p = gen_param_of(g, id, f);
    if (!p)
        return n->first[j].v[f];
    if (p->kind == PSK_VARY_RANKEXEC)
        return k >= 0 && k * p->m + j < p->n ? p->table[k * p->m + j] : n->first[j].v[f];
    int64_t e = psk_fparam_eval(p, p->depth >= 0 && p->depth < 64 ? iter[p->depth] : 0, k);
    if (p->mode == PSK_PMODE_VALUE)
        return e;
    if (p->mode == PSK_PMODE_DELTA)
        return n->first[j].v[f] + e;
    int64_t comm = PSK_HAS(&n->first[j], PSK_F_COMM) ? n->first[j].v[PSK_F_COMM] : 0, cr = -1, cs = 0;
    int32_t me = n->ranks[j];
    if (comm == 0) {
        cr = me, cs = g->P;
    } else if (comm == 1) {
        cr = 0, cs = 1;
    } else if (comm > 1 && comm < g->ncmem[me] && g->cmem[me][comm].known && !g->cmem[me][comm].ambiguous) {
        const cmembers *m = &g->cmem[me][comm];
        cs = m->n;
        for (uint32_t x = 0; x < m->n; x++)
            if (m->w[x] == me)
                cr = x;
    }
    if (cr < 0 || cs <= 0)
        return INT64_MIN;
    int64_t q = cr + e;
    if (p->ring)
        return (q % cs + cs) % cs;
    return q >= 0 && q < cs ? q : PSK_PROC_NULL;
}

int gen_all_same(const gnode *n, int f)
{
    for (int j = 1; j < n->np; j++)
        if (n->first[j].v[f] != n->first[0].v[f])
            return 0;
    return 1;
}

void gen_table_name(char *buf, size_t cap, int32_t id, const char *what)
{
    snprintf(buf, cap, "T%d_%s", id, what);
}

/* a per-rank table of one scalar (0 for ranks not taking part) */
void gen_emit_table(gen *g, const gnode *n, int32_t id, const char *what, const int64_t *vals)
{
    char name[64];
    gen_table_name(name, sizeof name, id, what);
    if (!table_once(g, id, name))
        return;
    fprintf(g->tabs, "static const long long %s[NRANKS] = {", name);
    for (int r = 0, j = 0; r < g->P; r++) {
        long long v = 0;
        if (j < n->np && n->ranks[j] == r)
            v = vals[j++];
        fprintf(g->tabs, "%s%lld", r ? ", " : "", v);
    }
    fprintf(g->tabs, "};\n");
}

/* the C expression of scalar field f at node id */
void gen_expr(gen *g, int32_t id, int f, const char *what, char *out, size_t cap)
{
    const gnode *n = &g->node[id];
    if (gen_param_expr(g, id, f, what, out, cap))
        return;
    if (gen_all_same(n, f)) {
        snprintf(out, cap, "%lld", (long long)n->first[0].v[f]);
        return;
    }
    int64_t comm = PSK_HAS(&n->first[0], PSK_F_COMM) ? n->first[0].v[PSK_F_COMM] : 0;
    if ((f == PSK_F_PEER || f == PSK_F_RPEER) && n->kind[f] == PSK_PAT_RANK) {
        snprintf(out, cap, "peer_rank(%lld, %lld)", (long long)comm, (long long)n->c[f]);
        return;
    }
    if ((f == PSK_F_PEER || f == PSK_F_RPEER) && n->kind[f] == PSK_PAT_RING) {
        snprintf(out, cap, "peer_ring(%lld, %lld)", (long long)comm, (long long)n->c[f]);
        return;
    }
    if (field_table(g, id, f, what)) {
        snprintf(out, cap, "0");
        return;
    }
    char name[64];
    gen_table_name(name, sizeof name, id, what);
    snprintf(out, cap, "%s[rank_]", name);
}

/* dflt (a C int), or where the wildcard sources of node id vary between
 * executions (outside scaled loops), the recorded source of each
 * execution read in order from a table per rank (then 1) */
static int src_table(gen *g, int32_t id, const char *dflt, char *out, size_t cap)
{
    const gnode *n = &g->node[id];
    size_t total = 0;
    for (int j = 0; n->varsrc && j < n->np; j++)
        total += n->nsrc[j];
    if (!n->varsrc || g->in_scaled || total > (1u << 20)) {
        snprintf(out, cap, "%s", dflt);
        return 0;
    }
    /* ranks whose source did not vary use dflt */
    char tn[64];
    snprintf(tn, sizeof tn, "T%d_src", id);
    if (table_once(g, id, tn)) {
        for (int j = 0; j < n->np; j++) {
            if (!n->nsrc[j])
                continue;
            fprintf(g->tabs, "static const int T%d_src%d[%u] = {", id, n->ranks[j], n->nsrc[j]);
            for (uint32_t k = 0; k < n->nsrc[j]; k++)
                fprintf(g->tabs, "%s%lld", k ? (k % 20 ? ", " : ",\n    ") : "", (long long)n->src[j][k]);
            fprintf(g->tabs, "};\n");
        }
        fprintf(g->tabs, "static const int *const T%d_src[NRANKS] = {", id);
        for (int r = 0, j = 0; r < g->P; r++) {
            while (j < n->np && n->ranks[j] < r)
                j++;
            if (j < n->np && n->ranks[j] == r && n->nsrc[j])
                fprintf(g->tabs, "%sT%d_src%d", r ? ", " : "", id, r);
            else
                fprintf(g->tabs, "%s0", r ? ", " : "");
        }
        fprintf(g->tabs, "};\nstatic long long T%d_at;\n", id);
    }
    snprintf(out, cap, "wsrc_(T%d_src[rank_], &T%d_at, %s) /* recorded sources */", id, id, dflt);
    return 1;
}

/* a peer value in the skeleton: perfskel's constants back to MPI's */
void gen_peer_expr(gen *g, int32_t id, int f, const char *what, char *out, size_t cap)
{
    char e[128], d[160];
    gen_expr(g, id, f, what, e, sizeof e);
    const gnode *n = &g->node[id];
    snprintf(d, sizeof d, "peer_(%s)", e);
    if (n->srcf != f || n->hidden)
        snprintf(out, cap, "%s", d);
    else
        src_table(g, id, d, out, cap);
}

/* the source an MPI_Improbe that found a message waits for first: the
 * source it found (per rank, or per execution from a table) where it was
 * called with MPI_ANY_SOURCE, else its argument */
void gen_hidden_src_expr(gen *g, int32_t id, char *out, size_t cap)
{
    const gnode *n = &g->node[id];
    if (!n->hidden || !n->hsrc || gen_param_of(g, id, PSK_F_PEER)) {
        gen_peer_expr(g, id, PSK_F_PEER, "peer", out, cap);
        return;
    }
    char d[160];
    int same = 1;
    for (int j = 1; j < n->np; j++)
        same &= n->hsrc[j] == n->hsrc[0];
    if (same) {
        snprintf(d, sizeof d, "peer_(%lld)", (long long)n->hsrc[0]);
    } else {
        gen_emit_table(g, n, id, "hsrc", n->hsrc);
        snprintf(d, sizeof d, "peer_(T%d_hsrc[rank_])", id);
    }
    src_table(g, id, d, out, cap);
}

/* whether the current execution of Test-family call or MPI_Improbe id
 * completed (found) something when recorded, on this rank, as C: 1 or 0
 * when that is so throughout, a table by rank when each rank's is, else a
 * bit table by rank and execution read by the node's execution counter.
 * Tables too large to write fall back to polling wherever some execution
 * polled: a poll never waits for what the recording did not get. */
void gen_done_expr(gen *g, int32_t id, char *out, size_t cap)
{
    gnode *n = &g->node[id];
    int any1 = 0, any0 = 0, perrank = 1;
    uint32_t E = 0;
    int64_t *v = malloc((size_t)(n->np ? n->np : 1) * sizeof *v);
    if (!v) {
        gen_oom(g);
        snprintf(out, cap, "0");
        return;
    }
    for (int j = 0; j < n->np; j++) {
        int one = 0, zero = 0;
        for (uint32_t k = 0; n->done && k < n->ndone[j]; k++)
            n->done[j][k] ? (one = 1) : (zero = 1);
        any1 |= one, any0 |= zero;
        perrank &= !(one && zero);
        v[j] = one && !zero;
        if (n->done && n->ndone[j] > E)
            E = n->ndone[j];
    }
    uint64_t bytes = (uint64_t)g->P * ((E + 7) / 8);
    if (!any1 || !any0) {
        snprintf(out, cap, "%d", any1);
    } else if (perrank || bytes > (1u << 22)) {
        gen_emit_table(g, n, id, "done", v);
        snprintf(out, cap, "T%d_done[rank_]", id);
    } else {
        char tn[64];
        snprintf(tn, sizeof tn, "T%d_doneb", id);
        if (table_once(g, id, tn)) {
            uint32_t W = (E + 7) / 8;
            fprintf(g->tabs, "static const unsigned char T%d_doneb[NRANKS][%u] = {", id, W);
            for (int r = 0, j = 0; r < g->P; r++) {
                int in = j < n->np && n->ranks[j] == r;
                fprintf(g->tabs, "%s{", r ? ",\n    " : "");
                for (uint32_t w = 0; w < W; w++) {
                    unsigned b = 0;
                    for (uint32_t k = 8 * w; in && k < 8 * w + 8 && k < n->ndone[j]; k++)
                        b |= (unsigned)(n->done[j][k] != 0) << (k - 8 * w);
                    fprintf(g->tabs, "%s0x%02x", w ? (w % 16 ? ", " : ",\n     ") : "", b);
                }
                fprintf(g->tabs, "}");
                j += in;
            }
            fprintf(g->tabs, "};\n");
        }
        snprintf(out, cap, "bit_(T%d_doneb[rank_], T%d_k, %uLL)", id, id, E);
        n->counted = 1;
    }
    free(v);
}

void gen_tag_expr(gen *g, int32_t id, int f, const char *what, char *out, size_t cap)
{
    char e[128];
    gen_expr(g, id, f, what, e, sizeof e);
    snprintf(out, cap, "tag_(%s)", e);
}

/* bytes of one rank's message: count x datatype size, a table by rank
 * where ranks differ; a count that follows the iteration (a loop-variant
 * parameter) exactly as recorded, on every rank: receives and collectives
 * too */
void gen_bytes_expr(gen *g, int32_t id, int cf, int sf, char *out, size_t cap)
{
    const gnode *n = &g->node[id];
    int64_t dts = PSK_HAS(&n->first[0], sf) ? n->first[0].v[sf] : 1, maxc = 0;
    for (int j = 0; j < n->np; j++) {
        int64_t c = n->first[j].v[cf] * (PSK_HAS(&n->first[j], sf) ? n->first[j].v[sf] : 1);
        maxc = c > maxc ? c : maxc;
    }
    if (gen_param_of(g, id, cf)) {
        char e[320], dt[64];
        gen_param_expr(g, id, cf, cf == PSK_F_COUNT ? "count" : "rcount", e, sizeof e);
        int64_t maxdts = 1;
        for (int j = 0; j < n->np; j++) {
            int64_t d = PSK_HAS(&n->first[j], sf) ? n->first[j].v[sf] : 1;
            maxdts = d > maxdts ? d : maxdts;
        }
        if (gen_all_same(n, sf) || !PSK_HAS(&n->first[0], sf)) {
            snprintf(dt, sizeof dt, "%lldLL", (long long)dts);
        } else {
            field_table(g, id, sf, cf == PSK_F_COUNT ? "dts" : "rdts");
            snprintf(dt, sizeof dt, "T%d_%s[rank_]", id, cf == PSK_F_COUNT ? "dts" : "rdts");
        }
        int64_t hi = gen_param_of(g, id, cf)->hi * maxdts;
        int cls = psk_fn_class(n->first[0].fn);
        if (cls == PSK_CLASS_COLL || cls == PSK_CLASS_ICOLL)
            hi *= g->P; /* a root or every rank handles one part per rank */
        gen_bump(&g->max_sbytes, hi);
        gen_bump(&g->max_rbytes, hi);
        snprintf(out, cap, "(int)((%s) * %s)", e, dt);
        return;
    }
    gen_bump(&g->max_sbytes, maxc);
    gen_bump(&g->max_rbytes, maxc);
    int same = 1;
    for (int j = 0; j < n->np && same; j++)
        same = n->first[j].v[cf] * (PSK_HAS(&n->first[j], sf) ? n->first[j].v[sf] : 1) == maxc;
    if (same) {
        snprintf(out, cap, "%lld", (long long)maxc);
        return;
    }
    int64_t *vals = malloc((size_t)n->np * sizeof *vals);
    if (!vals) {
        gen_oom(g);
        snprintf(out, cap, "0");
        return;
    }
    char what[32];
    snprintf(what, sizeof what, "bytes%d", cf);
    for (int j = 0; j < n->np; j++)
        vals[j] = n->first[j].v[cf] * (PSK_HAS(&n->first[j], sf) ? n->first[j].v[sf] : 1);
    gen_emit_table(g, n, id, what, vals);
    free(vals);
    char name[64];
    gen_table_name(name, sizeof name, id, what);
    snprintf(out, cap, "(int)%s[rank_]", name);
}

/* a per-rank array (counts of a v-collective, request ids) as a table of
 * rows, one per world rank, padded to the longest */
/* gen_array_table where the node's byte arrays differ between executions
 * (gen_collect.c note_varrays): one row of NRANKS arrays per execution */
static void array_table_by_exec(gen *g, int32_t id, int f, const char *what, int *width)
{
    gnode *n = &g->node[id];
    /* as long as the longest any rank passed in any execution */
    int off = f == PSK_F_COUNTS ? 0 : (int)n->vw1, w = (int)(f == PSK_F_COUNTS ? n->vlen1 : n->vlen2);
    w = w > 0 ? w : 1;
    *width = w;
    char name[64];
    snprintf(name, sizeof name, "T%d_%s_x", id, what);
    n->counted = 1;
    if (!table_once(g, id, name))
        return;
    uint64_t E = n->execs;
    fprintf(g->tabs, "static const int %s[%llu][NRANKS][%d] = {", name, (unsigned long long)E, w);
    int64_t total_max = 0;
    for (uint64_t x = 0; x < E; x++) {
        fprintf(g->tabs, "%s{", x ? ",\n    " : "");
        for (int r = 0, j = 0; r < g->P; r++) {
            int me = j < n->np && n->ranks[j] == r;
            int64_t total = 0;
            fprintf(g->tabs, "%s{", r ? ", " : "");
            for (int k = 0; k < w; k++) {
                int64_t v = me && n->va && n->va[j] ? n->va[j][x * n->vw + (uint64_t)off + (uint64_t)k] : 0;
                v = v > 0 && v < INT32_MAX ? v : 0;
                total += v;
                fprintf(g->tabs, "%s%lld", k ? ", " : "", (long long)v);
            }
            fprintf(g->tabs, "}");
            total_max = total > total_max ? total : total_max;
            j += me;
        }
        fprintf(g->tabs, "}");
    }
    fprintf(g->tabs, "};\n");
    gen_bump(&g->max_sbytes, total_max);
    gen_bump(&g->max_rbytes, total_max);
}

void gen_array_expr(gen *g, int32_t id, const char *what, char *out, size_t cap)
{
    const gnode *n = &g->node[id];
    if (n->varr > 0)
        snprintf(out, cap, "T%d_%s_x[T%d_k %% %lldLL]", id, what, id, (long long)n->execs);
    else
        gen_table_name(out, cap, id, what);
}

void gen_array_table(gen *g, int32_t id, int f, int64_t scale_field, const char *what, int *width)
{
    const gnode *n = &g->node[id];
    if ((f == PSK_F_COUNTS || f == PSK_F_RCOUNTS) && n->varr) {
        if (n->varr < 0) {
            gen_fail(g, "event %d (%s): its %s differ between executions, in more than %u values in all: too "
                        "large a table for the skeleton", id, psk_fn_name(n->first[0].fn), psk_field_name(f), 1u << 22);
            *width = 1;
            return;
        }
        array_table_by_exec(g, id, f, what, width);
        return;
    }
    int w = 1;
    for (int j = 0; j < n->np; j++)
        w = (int)PSK_ARRN(&n->first[j], f) > w ? (int)PSK_ARRN(&n->first[j], f) : w;
    *width = w;
    char name[64];
    gen_table_name(name, sizeof name, id, what);
    if (!table_once(g, id, name))
        return; /* written, and its sizes counted, already */
    fprintf(g->tabs, "static const int %s[NRANKS][%d] = {", name, w);
    int64_t total_max = 0;
    for (int r = 0, j = 0; r < g->P; r++) {
        const psk_event *e = j < n->np && n->ranks[j] == r ? &n->first[j++] : NULL;
        fprintf(g->tabs, "%s{", r ? ", " : "");
        int64_t total = 0;
        for (int k = 0; k < w; k++) {
            int64_t v = 0;
            if (e && k < (int)PSK_ARRN(e, f)) {
                v = PSK_ARR(e, f)[k];
                if (scale_field >= 0) {
                    int64_t sz = 1;
                    if (scale_field < PSK_F_FIRST_ARRAY)
                        sz = PSK_HAS(e, (int)scale_field) ? e->v[scale_field] : 1;
                    else if (k < (int)PSK_ARRN(e, (int)scale_field))
                        sz = PSK_ARR(e, (int)scale_field)[k];
                    v *= sz;
                }
                total += v > 0 ? v : 0;
            }
            fprintf(g->tabs, "%s%lld", k ? ", " : "", (long long)v);
        }
        fprintf(g->tabs, "}");
        total_max = total > total_max ? total : total_max;
    }
    fprintf(g->tabs, "};\n");
    if (scale_field >= 0) {
        gen_bump(&g->max_sbytes, total_max);
        gen_bump(&g->max_rbytes, total_max);
    }
}

/* the request arrays of node id by execution and rank (settle_reqs kept
 * them small enough), read with the node's execution counter */
void gen_reqs_by_exec(gen *g, int32_t id)
{
    gnode *n = &g->node[id];
    n->counted = 1;
    char tn[64];
    snprintf(tn, sizeof tn, "T%d_reqsx", id);
    if (!table_once(g, id, tn))
        return;
    uint64_t E = n->execs ? n->execs : 1, w = 1;
    uint64_t *at = calloc((size_t)n->np, sizeof *at);
    if (!at) {
        gen_oom(g);
        return;
    }
    for (int j = 0; j < n->np; j++)
        for (uint64_t a = 0; a < n->nxr[j]; a += 1 + (uint64_t)n->xr[j][a])
            w = (uint64_t)n->xr[j][a] > w ? (uint64_t)n->xr[j][a] : w;
    /* the lengths first, then the ids (the same walk twice) */
    for (int pass = 0; pass < 2; pass++) {
        memset(at, 0, (size_t)n->np * sizeof *at);
        if (pass == 0)
            fprintf(g->tabs, "static const int T%d_nreqsx[%llu][NRANKS] = {", id, (unsigned long long)E);
        else
            fprintf(g->tabs, "static const int T%d_reqsx[%llu][NRANKS][%llu] = {", id, (unsigned long long)E,
                    (unsigned long long)w);
        for (uint64_t k = 0; k < E; k++) {
            fprintf(g->tabs, "%s{", k ? ",\n    " : "");
            for (int r = 0, j = 0; r < g->P; r++) {
                const int64_t *x = NULL;
                if (j < n->np && n->ranks[j] == r) {
                    if (at[j] < n->nxr[j])
                        x = &n->xr[j][at[j]], at[j] += 1 + (uint64_t)x[0];
                    j++;
                }
                if (pass == 0) {
                    fprintf(g->tabs, "%s%lld", r ? ", " : "", x ? (long long)x[0] : 0LL);
                    continue;
                }
                fprintf(g->tabs, "%s{", r ? ", " : "");
                for (uint64_t i = 0; i < w; i++) {
                    long long q = x && i < (uint64_t)x[0] ? (long long)x[1 + i] : -1;
                    fprintf(g->tabs, "%s%lld", i ? ", " : "", q);
                    gen_bump_req(g, q);
                }
                fprintf(g->tabs, "}");
            }
            fprintf(g->tabs, "}");
        }
        fprintf(g->tabs, "};\n");
    }
    free(at);
}

