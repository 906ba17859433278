/* perfskel tune --export-rules: a decision file's settled decisions as an
 * MPI library's own rules, used with no perfskel library loaded. Open MPI
 * 4.1: the coll_tuned dynamic rules file (classic format: collectives, per
 * collective its COLLTYPE id and communicator sizes, per size its message
 * rules "bytes algorithm fan-in/out segment", the first at 0 bytes,
 * algorithm 0 = Open MPI's fixed rules). MPICH 4.0: the MPIR collective
 * selection JSON (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE), a complete
 * tree: its base (MPICH's built-in one) with our four collectives' subtrees
 * in front of it. Facts (ids, algorithm numbers and names, what a message
 * size counts) are from the two libraries' sources, checked against the
 * installed ones by tests/tune/export_*.sh; docs/tune.md has the table. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfskel/common.h"
#include "tune_rules.h"

/* an arm in each MPI: Open MPI's coll_tuned algorithm number and name,
 * MPICH's MPIR algorithm; eq: the same algorithm (else the nearest) */
typedef struct target {
    int ompi;
    const char *ompi_name;
    int ompi_eq;
    const char *mpich;
    int mpich_eq;
} target;

static int target_of(int arm, target *t)
{
    static const struct {
        int arm;
        target t;
    } tab[] = {
        {PSK_TUNE_spread, {1, "basic_linear", 1, "MPIR_Alltoall_intra_scattered", 1}},
        {PSK_TUNE_pair, {2, "pairwise", 0, "MPIR_Alltoall_intra_pairwise", 1}},
        {PSK_TUNE_ring, {2, "pairwise", 1, "MPIR_Alltoall_intra_pairwise", 0}},
        {PSK_TUNE_bruck, {3, "modified_bruck", 1, "MPIR_Alltoall_intra_brucks", 1}},
        {PSK_TUNE_pair_lb, {2, "pairwise", 0, "MPIR_Alltoall_intra_pairwise", 0}},
        {PSK_TUNE_ring_lb, {2, "pairwise", 0, "MPIR_Alltoall_intra_pairwise", 0}},
        {PSK_TUNE_pair_mb, {2, "pairwise", 0, "MPIR_Alltoall_intra_pairwise", 0}},
        {PSK_TUNE_ring_mb, {2, "pairwise", 0, "MPIR_Alltoall_intra_pairwise", 0}},
        {PSK_TUNE_pair_ob, {2, "pairwise", 0, "MPIR_Alltoall_intra_pairwise", 0}},
        {PSK_TUNE_ring_ob, {2, "pairwise", 0, "MPIR_Alltoall_intra_pairwise", 0}},
        {PSK_TUNE_bc_binomial, {6, "binomial", 1, "MPIR_Bcast_intra_binomial", 1}},
        {PSK_TUNE_bc_scatter_ring, {9, "scatter_allgather_ring", 1, "MPIR_Bcast_intra_scatter_ring_allgather", 1}},
        {PSK_TUNE_ar_recdbl, {3, "recursive_doubling", 1, "MPIR_Allreduce_intra_recursive_doubling", 1}},
        {PSK_TUNE_ar_ring, {4, "ring", 1, "MPIR_Allreduce_intra_reduce_scatter_allgather", 0}},
        {PSK_TUNE_ar_rabenseifner, {6, "rabenseifner", 1, "MPIR_Allreduce_intra_reduce_scatter_allgather", 1}},
        {PSK_TUNE_ag_ring, {4, "ring", 1, "MPIR_Allgather_intra_ring", 1}},
        {PSK_TUNE_ag_recdbl, {3, "recursive_doubling", 1, "MPIR_Allgather_intra_recursive_doubling", 1}},
        {PSK_TUNE_ag_bruck, {2, "bruck", 1, "MPIR_Allgather_intra_brucks", 1}},
    };
    for (size_t k = 0; k < sizeof tab / sizeof *tab; k++)
        if (tab[k].arm == arm) {
            *t = tab[k].t;
            return 0;
        }
    return -1; /* native: no rule */
}

/* Open MPI's COLLTYPE ids (ompi/mca/coll/base/coll_base_functions.h) and
 * MPICH's collective names, by our collective */
static int ompi_id(int coll)
{
    switch (coll) {
    case PSK_TUNE_C_alltoall: return 3;
    case PSK_TUNE_C_bcast: return 7;
    case PSK_TUNE_C_allreduce: return 2;
    case PSK_TUNE_C_allgather: return 0;
    }
    return -1;
}

/* what each MPI's rules compare with a call's bytes b (ours: per peer for
 * alltoall and allgather, all for bcast and allreduce): Open MPI counts
 * b x P for alltoall and allgather (coll_tuned_decision_dynamic.c), MPICH
 * b for alltoall (avg_msg_size) and b x P for allgather (total_msg_size:
 * it has no avg_msg_size for allgather) */
static uint64_t factor(int format, int coll, int P)
{
    if (coll == PSK_TUNE_C_allgather || (coll == PSK_TUNE_C_alltoall && format == PSK_TUNE_RULES_OPENMPI))
        return (uint64_t)P;
    return 1;
}

/* ---- choosing the decisions ---- */

typedef struct dec {
    int coll, P, sclass, arm;
    uint64_t calls;
    const psk_tune_dbent *e;     /* the site taken */
    const psk_tune_dbent *other; /* the most-called site that chose otherwise, or NULL */
    int nsites;
} dec;

static int flavour_of(const char *mpi)
{
    if (!strncmp(mpi, "openmpi-", 8))
        return PSK_TUNE_RULES_OPENMPI;
    if (!strncmp(mpi, "mpich-", 6))
        return PSK_TUNE_RULES_MPICH;
    return 0;
}

static const char *flavour_name(int f) { return f == PSK_TUNE_RULES_OPENMPI ? "Open MPI" : "MPICH"; }

/* the names of a set of distinct strings, ", "-joined into buf */
static void join(const char *const *v, int n, char *buf, size_t cap)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < n && k < cap; i++) {
        int w = snprintf(buf + k, cap - k, "%s%s", i ? ", " : "", v[i]);
        if (w < 0)
            break;
        k += (size_t)w;
    }
}

static int add_distinct(const char **v, int *n, int cap, const char *s)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(v[i], s))
            return 0;
    if (*n < cap)
        v[(*n)++] = s;
    return 1;
}

static int by_key(const void *a, const void *b)
{
    const dec *x = a, *y = b;
    if (x->coll != y->coll)
        return x->coll - y->coll;
    if (x->P != y->P)
        return x->P < y->P ? -1 : 1;
    return x->sclass - y->sclass;
}

/* a module name safe inside a comment: control bytes, non-ASCII, '%' and
 * '*' (MPICH's comments end at * /) as %XX */
static void put_module(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch < ' ' || ch >= 0x7f || ch == '%' || ch == '*')
            fprintf(out, "%%%02X", ch);
        else
            fputc(ch, out);
    }
}

static void put_site(FILE *out, const psk_tune_dbent *e)
{
    put_module(out, e->module);
    fprintf(out, "+0x%llx", (unsigned long long)e->offset);
}

static const char *measure(int coll) { return coll == PSK_TUNE_C_alltoall || coll == PSK_TUNE_C_allgather ? "per peer" : "in all"; }

/* one comment line's text for a decision (the caller writes its prefix) */
static void put_note(FILE *out, int format, const dec *d)
{
    target t;
    fprintf(out, "%s P=%d class %d (%llu..%llu B %s): %s", psk_tune_coll_name(d->coll), d->P, d->sclass,
            1ULL << d->sclass, (2ULL << d->sclass) - 1, measure(d->coll), psk_tune_arm_name(d->arm));
    if (target_of(d->arm, &t))
        fputs(" -> no rule (the MPI's own choice)", out);
    else if (format == PSK_TUNE_RULES_OPENMPI)
        fprintf(out, " -> %d %s (%s)", t.ompi, t.ompi_name, t.ompi_eq ? "the same algorithm" : "the nearest it has");
    else
        fprintf(out, " -> %s (%s)", t.mpich, t.mpich_eq ? "the same algorithm" : "the nearest it has");
    fprintf(out, "; site ");
    put_site(out, d->e);
    fprintf(out, ", %llu calls", (unsigned long long)d->calls);
    if (d->other) {
        fprintf(out, "; sites disagree, the most called taken (%d sites; ", d->nsites);
        put_site(out, d->other);
        fprintf(out, " chose %s, %llu calls)", psk_tune_arm_name(d->other->arm), (unsigned long long)d->other->calls);
    }
}

/* ---- a (collective, P)'s ranges in the MPI's measure ---- */

typedef struct seg {
    uint64_t lo, hi; /* [lo, hi), hi 0: no end */
    int alg;         /* Open MPI's number; 0 for the MPI's own choice */
    const char *mpich;
} seg;

/* the decisions d[0..n) of one (coll, P), classes ascending, as segments
 * of one algorithm each (native ones left out, neighbours of the same
 * algorithm joined); their count */
static int segments(int format, const dec *d, int n, seg *s)
{
    int ns = 0;
    uint64_t f = factor(format, d[0].coll, d[0].P);
    for (int i = 0; i < n; i++) {
        target t;
        if (target_of(d[i].arm, &t) || d[i].sclass < 0)
            continue;
        /* the class's bytes in the MPI's measure; beyond 2^62 it has no end */
        uint64_t lo = 1ULL << d[i].sclass, hi = d[i].sclass < 62 ? 2ULL << d[i].sclass : 0;
        if (lo > (UINT64_C(1) << 62) / f)
            continue; /* not expressible: left to the MPI */
        lo *= f;
        hi = hi && hi <= (UINT64_C(1) << 62) / f ? hi * f : 0;
        int alg = format == PSK_TUNE_RULES_OPENMPI ? t.ompi : 0;
        const char *name = format == PSK_TUNE_RULES_MPICH ? t.mpich : NULL;
        if (ns && s[ns - 1].hi == lo && s[ns - 1].alg == alg &&
            (format == PSK_TUNE_RULES_OPENMPI || !strcmp(s[ns - 1].mpich, name))) {
            s[ns - 1].hi = hi;
            continue;
        }
        s[ns++] = (seg){lo, hi, alg, name};
    }
    return ns;
}

/* ---- Open MPI ---- */

static void write_ompi(FILE *out, const dec *d, int n, const psk_tune_rules_opts *o, const psk_tune_rules_summary *sum)
{
    int ncoll = 0;
    for (int i = 0; i < n; i++)
        ncoll += !i || d[i].coll != d[i - 1].coll;
    fprintf(out, "# Open MPI 4.1 coll_tuned dynamic rules: perfskel tune --export-rules from %s\n", o->source);
    fprintf(out, "# (machine %s, %s; docs/tune.md \"Taking the decisions home\"). Use with\n", sum->machine, sum->mpi);
    fprintf(out, "#   mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE ...\n");
    fprintf(out, "# A message size is the bytes of a call: per rank in all (bytes per peer x P) for\n");
    fprintf(out, "# alltoall and allgather. Algorithm 0: Open MPI's own (fixed) choice, as without\n");
    fprintf(out, "# this file; so for every size and communicator no decision covers.\n");
    fprintf(out, "# Decisions:\n");
    for (int i = 0; i < n; i++) {
        fputs("#   ", out);
        put_note(out, PSK_TUNE_RULES_OPENMPI, &d[i]);
        fputc('\n', out);
    }
    fprintf(out, "%d # collectives\n", ncoll);
    for (int i = 0; i < n;) {
        int c = d[i].coll, j = i;
        while (j < n && d[j].coll == c)
            j++;
        /* communicator sizes: 1 (below the first P), each P, and P + 1
         * back to Open MPI's choice unless it is the next P */
        int nP = 0, ncs = 0;
        for (int k = i; k < j; k++)
            if (k == i || d[k].P != d[k - 1].P)
                nP++;
        ncs = nP + (d[i].P > 1);
        for (int k = i; k < j; k++)
            if ((k == i || d[k].P != d[k - 1].P)) {
                int next = -1;
                for (int q = k + 1; q < j; q++)
                    if (d[q].P != d[k].P) {
                        next = d[q].P;
                        break;
                    }
                ncs += next != d[k].P + 1;
            }
        fprintf(out, "\n%d # %s (COLLTYPE %d)\n%d # communicator sizes\n", ompi_id(c), psk_tune_coll_mpi_name(c),
                ompi_id(c), ncs);
        if (d[i].P > 1)
            fprintf(out, "1 1 # from 1 rank: one rule\n0 0 0 0 # Open MPI's own choice\n");
        for (int k = i; k < j;) {
            int P = d[k].P, m = k;
            while (m < j && d[m].P == P)
                m++;
            seg s[64];
            int ns = segments(PSK_TUNE_RULES_OPENMPI, d + k, m - k < 64 ? m - k : 64, s);
            int nr = 1;
            for (int q = 0; q < ns; q++)
                nr += 1 + (s[q].hi && (q + 1 == ns || s[q + 1].lo != s[q].hi));
            fprintf(out, "%d %d # %d ranks: %d rules; message size = bytes%s\n", P, nr, P, nr,
                    factor(PSK_TUNE_RULES_OPENMPI, c, P) > 1 ? " per peer x P" : "");
            fprintf(out, "0 0 0 0 # from 0 bytes: Open MPI's own choice\n");
            for (int q = 0; q < ns; q++) {
                target t = {0};
                for (int r = k; r < m; r++) /* its name, from any arm it came from */
                    if (!target_of(d[r].arm, &t) && t.ompi == s[q].alg)
                        break;
                fprintf(out, "%llu %d 0 0 # %s\n", (unsigned long long)s[q].lo, s[q].alg, t.ompi_name ? t.ompi_name : "?");
                if (s[q].hi && (q + 1 == ns || s[q + 1].lo != s[q].hi))
                    fprintf(out, "%llu 0 0 0 # Open MPI's own choice\n", (unsigned long long)s[q].hi);
            }
            int next = m < j ? d[m].P : -1;
            if (next != P + 1)
                fprintf(out, "%d 1 # from %d ranks: one rule\n0 0 0 0 # Open MPI's own choice\n", P + 1, P + 1);
            k = m;
        }
        i = j;
    }
}

/* ---- MPICH ---- */

/* the members of a JSON object text s (at its '{'): each key's span
 * (quotes excluded) and value's span; -1 if s is not an object of
 * objects and strings as a selection file has them */
typedef struct member {
    const char *key, *val;
    size_t klen, vlen;
} member;

static const char *skip_ws(const char *p)
{
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (p[0] == '/' && p[1] == '*') { /* json-c takes comments: so do we */
            const char *e = strstr(p + 2, "*/");
            if (!e)
                return p;
            p = e + 2;
        } else if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
        } else
            return p;
    }
}

static const char *skip_string(const char *p)
{
    for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1])
            p++;
    return *p == '"' ? p + 1 : NULL;
}

/* past the value at p: an object, a string, or a bare word (numbers,
 * true...); NULL if malformed */
static const char *skip_value(const char *p, int depth)
{
    p = skip_ws(p);
    if (*p == '"')
        return skip_string(p);
    if (*p != '{' || depth > 64) {
        const char *q = p;
        while (*q && !strchr(",}] \t\r\n", *q))
            q++;
        return q > p && *p != '[' ? q : NULL;
    }
    p = skip_ws(p + 1);
    if (*p == '}')
        return p + 1;
    for (;;) {
        if (*p != '"' || !(p = skip_string(p)))
            return NULL;
        p = skip_ws(p);
        if (*p != ':' || !(p = skip_value(p + 1, depth + 1)))
            return NULL;
        p = skip_ws(p);
        if (*p == '}')
            return p + 1;
        if (*p != ',')
            return NULL;
        p = skip_ws(p + 1);
    }
}

static int members(const char *s, member *m, int cap)
{
    const char *p = skip_ws(s);
    int n = 0;
    if (*p != '{')
        return -1;
    p = skip_ws(p + 1);
    if (*p == '}')
        return 0;
    for (;;) {
        const char *k = p, *ke;
        if (*p != '"' || !(ke = skip_string(p)) || n >= cap)
            return -1;
        p = skip_ws(ke);
        if (*p != ':')
            return -1;
        const char *v = skip_ws(p + 1), *ve = skip_value(v, 0);
        if (!ve)
            return -1;
        m[n++] = (member){k + 1, v, (size_t)(ke - k - 2), (size_t)(ve - v)};
        p = skip_ws(ve);
        if (*p == '}')
            return *skip_ws(p + 1) ? -1 : n;
        if (*p != ',')
            return -1;
        p = skip_ws(p + 1);
    }
}

static const member *find_member(const member *m, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (m[i].klen == strlen(key) && !strncmp(m[i].key, key, m[i].klen))
            return &m[i];
    return NULL;
}

static void put_span(FILE *out, const char *s, size_t n) { fwrite(s, 1, n, out); }

/* the thresholds MPICH reads with atoi: ranges beyond INT_MAX have no end */
static int fits(uint64_t v) { return v >= 1 && v - 1 <= (uint64_t)INT_MAX; }

static void write_mpich(FILE *out, const dec *d, int n, const psk_tune_rules_opts *o,
                        const psk_tune_rules_summary *sum, const member *base, int nbase)
{
    fprintf(out, "/* MPICH 4.0 collective selection (MPIR level): perfskel tune --export-rules from\n");
    fputs("   ", out);
    put_module(out, o->source);
    fprintf(out, " (machine %s, %s; docs/tune.md \"Taking the decisions home\").\n", sum->machine, sum->mpi);
    fprintf(out, "   Use with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE and MPIR_CVAR_DEVICE_COLLECTIVES=percoll\n");
    fprintf(out, "   plus MPIR_CVAR_<COLL>_DEVICE_COLLECTIVE=0 for the collectives below (across nodes,\n");
    fprintf(out, "   ch4 otherwise runs them as node-aware compositions, on sub-communicators these rules\n");
    fprintf(out, "   do not name). Every collective and size without a decision keeps MPICH's built-in\n");
    fprintf(out, "   selection, copied below.\n");
    fprintf(out, "   Message size: avg_msg_size = bytes per peer (alltoall) or in all (bcast, allreduce);\n");
    fprintf(out, "   allgather: total_msg_size = bytes per peer x P. Allreduce rules: built-in ops only.\n");
    fprintf(out, "   Decisions:\n");
    for (int i = 0; i < n; i++) {
        fputs("     ", out);
        put_note(out, PSK_TUNE_RULES_MPICH, &d[i]);
        fputc('\n', out);
    }
    fprintf(out, "*/\n{\n");
    int first = 1;
    for (int i = 0; i < n;) {
        int c = d[i].coll, j = i;
        while (j < n && d[j].coll == c)
            j++;
        char key[64];
        snprintf(key, sizeof key, "collective=%s", psk_tune_coll_name(c));
        const member *dm = find_member(base, nbase, key);
        /* dm: MPICH's own subtree for c (checked by the caller) */
        const char *mkey = c == PSK_TUNE_C_allgather ? "total_msg_size" : "avg_msg_size";
        fprintf(out, "%s    \"%s\": {\n        \"comm_type=intra\": {\n", first ? "" : ",\n", key);
        first = 0;
        /* MPICH's choice where ours does not apply: in-place alltoall (its
         * own algorithm), allreduce of user-defined ops (never tuned) */
        if (c == PSK_TUNE_C_alltoall) {
            fprintf(out, "            \"is_sendbuf_inplace=yes\": ");
            put_span(out, dm->val, dm->vlen);
            fputs(",\n", out);
        }
        if (c == PSK_TUNE_C_allreduce) {
            fprintf(out, "            \"is_op_built_in=no\": ");
            put_span(out, dm->val, dm->vlen);
            fputs(",\n", out);
        }
        /* an exact P: MPICH's below it, ours at it ("<" is read as "<="
         * by MPICH 4.0's search: only "<=" here) */
        int prevP = 0;
        for (int k = i; k < j;) {
            int P = d[k].P, m = k;
            while (m < j && d[m].P == P)
                m++;
            if (P - 1 > prevP) {
                fprintf(out, "            \"comm_size<=%d\": ", P - 1);
                put_span(out, dm->val, dm->vlen);
                fputs(",\n", out);
            }
            fprintf(out, "            \"comm_size<=%d\": {\n", P);
            seg s[64];
            int ns = segments(PSK_TUNE_RULES_MPICH, d + k, m - k < 64 ? m - k : 64, s);
            uint64_t at = 0; /* the sizes below at are written */
            int open_end = 0;
            for (int q = 0; q < ns && !open_end; q++) {
                if (q == 0 || s[q].lo > at) {
                    if (!fits(s[q].lo))
                        break;
                    fprintf(out, "                \"%s<=%llu\": ", mkey, (unsigned long long)(s[q].lo - 1));
                    put_span(out, dm->val, dm->vlen);
                    fputs(",\n", out);
                }
                if (s[q].hi && fits(s[q].hi)) {
                    fprintf(out, "                \"%s<=%llu\": {\"algorithm=%s\": {}},\n", mkey,
                            (unsigned long long)(s[q].hi - 1), s[q].mpich);
                    at = s[q].hi;
                } else {
                    fprintf(out, "                \"%s=any\": {\"algorithm=%s\": {}}\n", mkey, s[q].mpich);
                    open_end = 1;
                }
            }
            if (!open_end) {
                fprintf(out, "                \"%s=any\": ", mkey);
                put_span(out, dm->val, dm->vlen);
                fputc('\n', out);
            }
            fprintf(out, "            },\n");
            prevP = P;
            k = m;
        }
        fprintf(out, "            \"comm_size=any\": ");
        put_span(out, dm->val, dm->vlen);
        fprintf(out, "\n        },\n        \"comm_type=inter\": ");
        put_span(out, dm->val, dm->vlen);
        fprintf(out, "\n    }");
        i = j;
    }
    /* the rest of MPICH's own selection, as it is */
    for (int b = 0; b < nbase; b++) {
        int ours = 0;
        for (int i = 0; i < n; i++) {
            char key[64];
            snprintf(key, sizeof key, "collective=%s", psk_tune_coll_name(d[i].coll));
            ours |= base[b].klen == strlen(key) && !strncmp(base[b].key, key, base[b].klen);
        }
        if (ours)
            continue;
        fprintf(out, ",\n    \"");
        put_span(out, base[b].key, base[b].klen);
        fputs("\": ", out);
        put_span(out, base[b].val, base[b].vlen);
    }
    fputs("\n}\n", out);
}

/* ---- the whole ---- */

int psk_tune_rules_write(const psk_tune_dbent *e, int n, const psk_tune_rules_opts *o, FILE *out,
                         psk_tune_rules_summary *sum, char *err, size_t errcap)
{
    const char *fname = flavour_name(o->format);
    const char *machines[16], *mpis[16];
    int nm = 0, nmpi = 0, nflav = 0, unsettled = 0;
    memset(sum, 0, sizeof *sum);
    for (int i = 0; i < n; i++)
        if (flavour_of(e[i].mpi) == o->format) {
            nflav++;
            add_distinct(machines, &nm, 16, e[i].machine);
        }
    if (!nflav) {
        snprintf(err, errcap, "no decision for %s in it (no line's MPI is %s-...)", fname,
                 o->format == PSK_TUNE_RULES_OPENMPI ? "openmpi" : "mpich");
        return PSK_ENOTFOUND;
    }
    char list[512];
    join(machines, nm, list, sizeof list);
    const char *machine = o->machine;
    if (machine) {
        int found = 0;
        for (int i = 0; i < nm; i++)
            found |= !strcmp(machines[i], machine);
        if (!found) {
            snprintf(err, errcap, "no decision for %s on machine %s (it has: %s)", fname, machine, list);
            return PSK_ENOTFOUND;
        }
    } else if (nm > 1) {
        snprintf(err, errcap, "decisions for %s of %d machines (%s): choose one with --machine", fname, nm, list);
        return PSK_EINVAL;
    } else
        machine = machines[0];
    for (int i = 0; i < n; i++)
        if (flavour_of(e[i].mpi) == o->format && !strcmp(e[i].machine, machine))
            add_distinct(mpis, &nmpi, 16, e[i].mpi);
    if (nmpi > 1) {
        join(mpis, nmpi, list, sizeof list);
        snprintf(err, errcap, "decisions of %d builds of %s on machine %s (%s): keep one build's lines", nmpi, fname,
                 machine, list);
        return PSK_EINVAL;
    }
    snprintf(sum->machine, sizeof sum->machine, "%s", machine);
    snprintf(sum->mpi, sizeof sum->mpi, "%s", mpis[0]);

    /* settled lines only: psk1, and psk2 whose group monitors its incumbent */
    dec *d = calloc((size_t)n + 1, sizeof *d);
    if (!d) {
        snprintf(err, errcap, "out of memory");
        return PSK_ENOMEM;
    }
    int nd = 0;
    for (int i = 0; i < n; i++) {
        const psk_tune_dbent *x = &e[i];
        if (flavour_of(x->mpi) != o->format || strcmp(x->machine, machine))
            continue;
        if (x->state != PSK_TUNE_DB_SETTLED || x->sclass < 0 || x->P < 2 || x->coll < 0 ||
            x->coll >= PSK_TUNE_NCOLL) {
            unsettled += x->state != PSK_TUNE_DB_SETTLED;
            continue;
        }
        /* sites pooled: the most called one's arm per (coll, P, class) */
        int k = 0;
        while (k < nd && !(d[k].coll == x->coll && d[k].P == x->P && d[k].sclass == x->sclass))
            k++;
        if (k == nd) {
            d[nd++] = (dec){x->coll, x->P, x->sclass, x->arm, x->calls, x, NULL, 1};
            continue;
        }
        dec *y = &d[k];
        y->nsites++;
        if (x->calls > y->calls || (x->calls == y->calls && x->stamp > y->e->stamp))
            y->e = x, y->arm = x->arm, y->calls = x->calls;
    }
    /* where sites disagree: the most called one that chose otherwise */
    for (int k = 0; k < nd; k++)
        for (int i = 0; i < n; i++) {
            const psk_tune_dbent *x = &e[i];
            if (flavour_of(x->mpi) == o->format && !strcmp(x->machine, machine) &&
                x->state == PSK_TUNE_DB_SETTLED && x->coll == d[k].coll && x->P == d[k].P &&
                x->sclass == d[k].sclass && x->arm != d[k].arm && (!d[k].other || x->calls > d[k].other->calls))
                d[k].other = x;
        }
    if (!nd) {
        free(d);
        snprintf(err, errcap, "no settled decision for %s on machine %s (%d lines still exploring or starting)",
                 fname, machine, unsettled);
        return PSK_ENOTFOUND;
    }
    qsort(d, (size_t)nd, sizeof *d, by_key);
    for (int i = 0; i < nd; i++) {
        target t;
        sum->decisions++;
        if (!target_of(d[i].arm, &t)) {
            sum->rules++;
            sum->nearest += !(o->format == PSK_TUNE_RULES_OPENMPI ? t.ompi_eq : t.mpich_eq);
        }
        sum->disagree += d[i].other != NULL;
    }
    if (o->format == PSK_TUNE_RULES_OPENMPI) {
        write_ompi(out, d, nd, o, sum);
        free(d);
        return PSK_OK;
    }
    member base[128];
    int nbase = o->mpich_base ? members(o->mpich_base, base, 128) : -1;
    int ok = nbase > 0;
    for (int i = 0; ok && i < nd; i++) {
        char key[64];
        snprintf(key, sizeof key, "collective=%s", psk_tune_coll_name(d[i].coll));
        ok = find_member(base, nbase, key) != NULL;
    }
    if (!ok) {
        free(d);
        snprintf(err, errcap, "MPICH's own selection is not a selection JSON with the four collectives");
        return PSK_EFORMAT;
    }
    write_mpich(out, d, nd, o, sum, base, nbase);
    free(d);
    return PSK_OK;
}

int psk_tune_rules_mpich_builtin(const char *bytes, size_t n, char **json)
{
    /* a NUL-terminated string that starts {"collective= and names MPIR
     * algorithms (the ch4 and shared-memory trees name compositions and
     * MPIDI_ ones) */
    static const char head[] = "{\"collective=";
    *json = NULL;
    for (size_t i = 0; i + sizeof head - 1 < n; i++) {
        if (bytes[i] != '{' || memcmp(bytes + i, head, sizeof head - 1) || (i && bytes[i - 1]))
            continue;
        const char *end = memchr(bytes + i, 0, n - i);
        if (!end)
            break;
        size_t len = (size_t)(end - (bytes + i));
        const char *s = bytes + i;
        int mpir = 0;
        for (size_t k = 0; k + 15 < len && !mpir; k++)
            mpir = !memcmp(s + k, "\"algorithm=MPIR_", 16);
        if (!mpir)
            continue;
        if (!(*json = malloc(len + 1)))
            return PSK_ENOMEM;
        memcpy(*json, s, len);
        (*json)[len] = 0;
        return PSK_OK;
    }
    return PSK_ENOTFOUND;
}
