/* The lines of the decision file (PSK_TUNE_DB), read and written: what
 * the tuning library (tune_db.c) and the CLI (perfskel tune
 * --export-rules) share, without MPI. docs/tune.md has the formats:
 *   psk1 MACHINE MPI P MODULE OFFSET CLASS ARM CALLS ARM_NS NATIVE_NS STAMP
 *   psk2 MACHINE MPI P MODULE OFFSET CLASS COLL STATE INC CALLS TOTAL_NS
 *        SPENT_NS NATIVE_NS STAMP [ARM:FLAG:RATIOS]...
 * psk1 is a settled decision (the first format, read still); psk2, written
 * now, what a group learnt so far, settled or not, so that the next run
 * continues from it. A line is untrusted: valid exactly, or refused whole. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perfskel/common.h"
#include "tune_dbline.h"

#define MAXLINE 4096 /* a psk2 line: 15 fields and 12 arms of 16 ratios */
#define NTOK (15 + PSK_TUNE_DB_MAXARMS)

static int word_ok(const char *s, size_t cap, const char *extra)
{
    size_t n = strlen(s);
    if (!n || n >= cap)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr(extra, *s)))
            return 0;
    return 1;
}

static int hexval(int ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* the ARM field: an arm's name (its collective's), or COLL.native; 0 if
 * valid */
static int arm_parse(const char *s, psk_tune_dbent *e)
{
    const char *dot = strchr(s, '.');
    e->coll = PSK_TUNE_C_alltoall;
    if (dot) {
        e->coll = -1;
        for (int k = 0; k < PSK_TUNE_NCOLL; k++)
            if (strlen(psk_tune_coll_name(k)) == (size_t)(dot - s) && !strncmp(s, psk_tune_coll_name(k), dot - s))
                e->coll = k;
        if (e->coll <= PSK_TUNE_C_alltoall || strcmp(dot + 1, "native"))
            return -1;
        e->arm = PSK_TUNE_native;
        return 0;
    }
    if ((e->arm = psk_tune_arm_parse(s)) < 0)
        return -1;
    if (e->arm != PSK_TUNE_native)
        e->coll = psk_tune_arm_coll(e->arm);
    return 0;
}

/* %XX-decoded module name; 0 if valid */
static int unescape(const char *s, char *out, size_t cap)
{
    size_t k = 0;
    for (; *s; s++) {
        int ch = (unsigned char)*s;
        if (ch == '%') {
            int h = hexval(s[1]), l = h >= 0 ? hexval(s[2]) : -1;
            if (l < 0 || (h << 4 | l) == 0)
                return -1;
            ch = h << 4 | l;
            s += 2;
        } else if (ch <= ' ' || ch >= 0x7f)
            return -1;
        if (k + 1 >= cap)
            return -1;
        out[k++] = (char)ch;
    }
    out[k] = 0;
    return k ? 0 : -1;
}

static void escape(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch <= ' ' || ch >= 0x7f || ch == '%')
            fprintf(out, "%%%02X", ch);
        else
            fputc(ch, out);
    }
}

static int whole(const char *s, long long lo, long long hi, long long *v)
{
    if (!*s || (*s == '-' ? !s[1] : 0))
        return -1;
    const char *p = *s == '-' ? s + 1 : s;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9' || q - p > 17)
            return -1;
    *v = strtoll(s, NULL, 10);
    return *v < lo || *v > hi ? -1 : 0;
}

/* a decimal number in [lo, hi], digits and at most one point (a sign
 * only if lo < 0; no exponent, no hex), at most 32 characters */
static int real_in(const char *s, double lo, double hi, double *v)
{
    char *end;
    const char *d = *s == '-' && lo < 0 ? s + 1 : s;
    if (!*d || strlen(s) > 32 || *d == '.' || strspn(d, "0123456789.") != strlen(d) ||
        strchr(d, '.') != strrchr(d, '.'))
        return -1;
    errno = 0;
    *v = strtod(s, &end);
    return *end || errno || !isfinite(*v) || *v < lo || *v > hi ? -1 : 0;
}

static int real(const char *s, double *v) { return real_in(s, 0, 1e15, v); }

/* an arm of coll by its plain name (native included); -1 if none */
static int arm_of(const char *s, int coll)
{
    int a = psk_tune_arm_parse(s);
    return a == PSK_TUNE_native || (a >= 0 && psk_tune_arm_coll(a) == coll) ? a : -1;
}

/* ARM:FLAG:RATIOS, RATIOS - or 1 to PSK_TUNE_NSAMP log ratios in
 * [-20, 20] joined by commas; 0 if valid */
static int dbarm_parse(char *s, int coll, psk_tune_dbarm *a)
{
    char *c1 = strchr(s, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c2)
        return -1;
    *c1 = *c2 = 0;
    if ((a->arm = arm_of(s, coll)) < 0 || strlen(c1 + 1) != 1 || !strchr("ad-", c1[1]))
        return -1;
    a->flag = c1[1];
    a->rn = 0;
    char *r = c2 + 1;
    if (!strcmp(r, "-"))
        return 0;
    for (;;) {
        char *comma = strchr(r, ',');
        if (comma)
            *comma = 0;
        double v;
        if (a->rn >= PSK_TUNE_NSAMP || real_in(r, -20, 20, &v))
            return -1;
        a->r[a->rn++] = (float)v;
        if (!comma)
            return 0;
        r = comma + 1;
    }
}

/* fields 1 to 6, the same in both formats: machine, MPI, ranks, module,
 * offset, class */
static int key_parse(char **tok, psk_tune_dbent *e, const char **why)
{
    long long v;
    *why = "a bad machine or MPI name";
    if (!word_ok(tok[1], sizeof e->machine, "_:.-") || !word_ok(tok[2], sizeof e->mpi, "._-"))
        return -1;
    strcpy(e->machine, tok[1]);
    strcpy(e->mpi, tok[2]);
    *why = "a bad number of ranks";
    if (whole(tok[3], 1, 1 << 24, &v))
        return -1;
    e->P = (int)v;
    *why = "a bad module name";
    if (unescape(tok[4], e->module, sizeof e->module))
        return -1;
    *why = "a bad offset";
    const char *o = tok[5];
    if (o[0] != '0' || o[1] != 'x' || !o[2] || strlen(o) > 18)
        return -1;
    e->offset = 0;
    for (o += 2; *o; o++) {
        if (hexval(*o) < 0)
            return -1;
        e->offset = e->offset << 4 | (uint64_t)hexval(*o);
    }
    *why = "a bad size class";
    if (whole(tok[6], -1, 62, &v))
        return -1;
    e->sclass = (int)v;
    return 0;
}

static const char *const state_names[] = {"start", "exploring", "settled"};

/* psk2's fields after the key */
static int state_parse(char **tok, int n, psk_tune_dbent *e, const char **why)
{
    long long v;
    *why = "an unknown collective";
    e->coll = -1;
    for (int k = 0; k < PSK_TUNE_NCOLL; k++)
        if (!strcmp(tok[7], psk_tune_coll_name(k)))
            e->coll = k;
    if (e->coll < 0)
        return -1;
    *why = "an unknown state";
    e->state = -1;
    for (int k = 0; k < 3; k++)
        if (!strcmp(tok[8], state_names[k]))
            e->state = k;
    if (e->state < 0)
        return -1;
    *why = "an unknown arm";
    if ((e->arm = arm_of(tok[9], e->coll)) < 0)
        return -1;
    *why = "a bad count of calls";
    if (whole(tok[10], 0, 1LL << 53, &v))
        return -1;
    e->calls = (uint64_t)v;
    *why = "a bad time";
    if (real_in(tok[11], 0, 1e18, &e->total_ns) || real_in(tok[12], -1e18, 1e18, &e->spent_ns) ||
        real(tok[13], &e->native_ns))
        return -1;
    *why = "a bad stamp";
    if (whole(tok[14], 0, 1LL << 40, &e->stamp))
        return -1;
    e->narms = n - 15;
    uint32_t seen = 0;
    for (int i = 0; i < e->narms; i++) {
        psk_tune_dbarm *a = &e->arms[i];
        *why = "a bad arm's state";
        if (dbarm_parse(tok[15 + i], e->coll, a))
            return -1;
        *why = "an arm twice";
        if (seen >> a->arm & 1)
            return -1;
        seen |= 1u << a->arm;
        *why = "an incumbent dropped or a candidate";
        if (a->arm == e->arm && a->flag != '-')
            return -1;
    }
    *why = "a start that is not native's alone";
    if (e->state == PSK_TUNE_DB_START && (e->arm != PSK_TUNE_native || e->narms))
        return -1;
    return 0;
}

int psk_tune_db_parse(const char *line, psk_tune_dbent *e, const char **why)
{
    char buf[MAXLINE], *tok[NTOK + 1];
    int n = 0;
    size_t len = strlen(line);
    memset(e, 0, sizeof *e);
    *why = "a line too long";
    if (len >= sizeof buf)
        return -1;
    memcpy(buf, line, len + 1);
    /* (a newline inside a line is a byte no field takes) */
    for (char *p = buf, *save = NULL; n < NTOK + 1 && (tok[n] = strtok_r(p, " \t\r", &save)) != NULL; p = NULL)
        n++;
    long long v;
    if (n >= 1 && !strcmp(tok[0], "psk2")) {
        *why = "not 15 to 27 fields starting with psk2";
        if (n < 15 || n > NTOK)
            return -1;
        e->version = 2;
        return key_parse(tok, e, why) || state_parse(tok, n, e, why) ? -1 : 0;
    }
    *why = "not 12 fields starting with psk1";
    if (n != 12 || strcmp(tok[0], "psk1"))
        return -1;
    e->version = 1;
    e->state = PSK_TUNE_DB_SETTLED;
    if (key_parse(tok, e, why))
        return -1;
    *why = "an unknown arm";
    if (arm_parse(tok[7], e))
        return -1;
    *why = "a bad count of calls";
    if (whole(tok[8], 0, 1LL << 53, &v))
        return -1;
    e->calls = (uint64_t)v;
    *why = "a bad time";
    if (real(tok[9], &e->arm_ns) || real(tok[10], &e->native_ns))
        return -1;
    *why = "a bad stamp";
    if (whole(tok[11], 0, 1LL << 40, &e->stamp))
        return -1;
    return 0;
}

void psk_tune_db_format(FILE *out, const psk_tune_dbent *e)
{
    fprintf(out, "psk%d %s %s %d ", e->version == 2 ? 2 : 1, e->machine, e->mpi, e->P);
    escape(out, e->module);
    if (e->version == 2) {
        fprintf(out, " 0x%llx %d %s %s %s %llu %.1f %.1f %.1f %lld", (unsigned long long)e->offset, e->sclass,
                psk_tune_coll_name(e->coll), state_names[e->state], psk_tune_arm_name(e->arm),
                (unsigned long long)e->calls, e->total_ns, e->spent_ns, e->native_ns, e->stamp);
        for (int i = 0; i < e->narms; i++) {
            const psk_tune_dbarm *a = &e->arms[i];
            fprintf(out, " %s:%c:", psk_tune_arm_name(a->arm), a->flag);
            if (!a->rn)
                fputc('-', out);
            for (int k = 0; k < a->rn; k++)
                fprintf(out, "%s%.4f", k ? "," : "", a->r[k]);
        }
        fputc('\n', out);
        return;
    }
    /* native names its collective but for alltoall's (as before the others) */
    char prefix[32] = "";
    if (e->arm == PSK_TUNE_native && e->coll > 0 && e->coll < PSK_TUNE_NCOLL)
        snprintf(prefix, sizeof prefix, "%s.", psk_tune_coll_name(e->coll));
    fprintf(out, " 0x%llx %d %s%s %llu %.1f %.1f %lld\n", (unsigned long long)e->offset, e->sclass, prefix,
            psk_tune_arm_name(e->arm), (unsigned long long)e->calls, e->arm_ns, e->native_ns, e->stamp);
}

/* ---- a whole text ---- */

int psk_tune_db_parse_text(char *text, psk_tune_dbent **out, int *nout, int *bad, char *first, size_t nfirst)
{
    int n = 0, cap = 0, lineno = 0;
    psk_tune_dbent *v = NULL;
    *bad = 0;
    for (char *p = text; p && *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = 0;
        lineno++;
        const char *s = p + strspn(p, " \t\r");
        if (*s && *s != '#') {
            psk_tune_dbent e;
            const char *why;
            if (psk_tune_db_parse(p, &e, &why)) {
                if (!(*bad)++)
                    snprintf(first, nfirst, "line %d: %s", lineno, why);
            } else {
                if (n == cap) {
                    int c2 = cap ? 2 * cap : 64;
                    psk_tune_dbent *w = realloc(v, (size_t)c2 * sizeof *w);
                    if (!w) {
                        *out = v, *nout = n;
                        return PSK_ENOMEM;
                    }
                    v = w, cap = c2;
                }
                v[n++] = e;
            }
        }
        p = nl ? nl + 1 : NULL;
    }
    *out = v, *nout = n;
    return PSK_OK;
}

