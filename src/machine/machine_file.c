/* The machine file of `perfskel sim --machine FILE` (docs/simulation.md),
 * read and written: a small text file in the spirit of DVM's Predictor
 * parameter file. Statements are `key = value;` in any order, `//` starts
 * a comment, keys may hold spaces ("send byte time"), values are a number,
 * a word, or a list `{a, b, c}`. Every mistake is reported as
 * "FILE:LINE: what" for the statement's line. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "perfskel/machine.h"

typedef struct parser {
    const char *name;
    char *err;
    size_t errcap;
    int line;
} parser;

static int perr(parser *p, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errcap, "%s:%d: %s", p->name, p->line, msg);
    return PSK_EINVAL;
}

/* lower case, runs of blanks and underscores as one space, trimmed */
static void normalise(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    int space = 0;
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (isspace(c) || c == '_' || c == '-') {
            space = o > 0;
            continue;
        }
        if (space) { /* the blank and the character, or neither */
            if (o + 2 >= cap)
                break;
            out[o++] = ' ';
        }
        space = 0;
        out[o++] = (char)tolower(c);
    }
    out[o] = 0;
}

static int number(parser *p, const char *key, const char *v, double lo, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    while (isspace((unsigned char)*end))
        end++;
    if (end == v || *end || errno || !isfinite(x))
        return perr(p, "%s: '%s' is not a number", key, v);
    if (x < lo)
        return perr(p, "%s: %s is below %g", key, v, lo);
    *out = x;
    return 0;
}

static int whole(parser *p, const char *key, const char *v, long long lo, long long *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    if (end == v || *end || errno)
        return perr(p, "%s: '%s' is not a whole number", key, v);
    if (x < lo)
        return perr(p, "%s: %s is below %lld", key, v, lo);
    *out = x;
    return 0;
}

/* the items of "{a, b, c}" (or a single value) into vals, at most cap */
static int list(parser *p, const char *key, const char *v, double lo, double *vals, int cap, int *n, int integers)
{
    size_t len = strlen(v);
    if (len < 2 || v[0] != '{' || v[len - 1] != '}')
        return perr(p, "%s: expected a list like {4, 4}, not '%s'", key, v);
    char *buf = malloc(len);
    if (!buf)
        return perr(p, "out of memory");
    memcpy(buf, v + 1, len - 2);
    buf[len - 2] = 0;
    int rc = 0;
    *n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*t))
            t++;
        char *e = t + strlen(t);
        while (e > t && isspace((unsigned char)e[-1]))
            *--e = 0;
        if (*n == cap) {
            rc = perr(p, "%s: more than %d values", key, cap);
            break;
        }
        if (integers) {
            long long x;
            if ((rc = whole(p, key, t, (long long)lo, &x)))
                break;
            vals[(*n)++] = (double)x;
        } else if ((rc = number(p, key, t, lo, &vals[(*n)++]))) {
            break;
        }
    }
    free(buf);
    if (!rc && *n == 0)
        rc = perr(p, "%s: empty list", key);
    return rc;
}

/* a list of one value above 0 per node ({a, b, ...}, at most 4096) into
 * *out (replacing what it held), what naming the value in errors */
static int per_node(parser *p, const char *key, const char *val, const char *what, double **out, int *nout)
{
    enum { MAXN = 4096 };
    double *v = malloc(MAXN * sizeof *v);
    int n;
    if (!v)
        return perr(p, "out of memory");
    if (list(p, key, val, 0, v, MAXN, &n, 0)) {
        free(v);
        return PSK_EINVAL;
    }
    for (int i = 0; i < n; i++)
        if (!(v[i] > 0)) {
            free(v);
            return perr(p, "%s: node %d's %s must be above 0", key, i, what);
        }
    free(*out);
    *out = v;
    *nout = n;
    return 0;
}

static int statement(parser *p, psk_machine *m, const char *key, const char *val)
{
    double x;
    long long k;
    char word[128];
    normalise(val, strlen(val), word, sizeof word);
    if (!strcmp(key, "type")) {
        if (!strcmp(word, "bus") || !strcmp(word, "ethernet"))
            m->type = PSK_NET_BUS;
        else if (!strcmp(word, "grid") || !strcmp(word, "transputer"))
            m->type = PSK_NET_GRID;
        else if (!strcmp(word, "switch") || !strcmp(word, "myrinet"))
            m->type = PSK_NET_SWITCH;
        else
            return perr(p, "type: '%s' is not bus, grid or switch", val);
        return 0;
    }
    if (!strcmp(key, "start time"))
        return number(p, key, val, 0, &m->start_us);
    if (!strcmp(key, "send byte time"))
        return number(p, key, val, 0, &m->byte_us);
    if (!strcmp(key, "intra start time"))
        return number(p, key, val, 0, &m->intra_start_us);
    if (!strcmp(key, "intra send byte time"))
        return number(p, key, val, 0, &m->intra_byte_us);
    if (!strcmp(key, "copy byte time")) {
        if (number(p, key, val, 0, &m->copy_byte_us))
            return PSK_EINVAL;
        if (m->copy_byte_us > 1)
            return perr(p, "%s: %s us a byte is not a memory's copy (1 us a byte at most)", key, val);
        return 0;
    }
    if (!strcmp(key, "ranks per node")) {
        if (whole(p, key, val, 1, &k))
            return PSK_EINVAL;
        if (k > 1 << 20)
            return perr(p, "%s: %lld is too many", key, k);
        m->ranks_per_node = (int)k;
        return 0;
    }
    if (!strcmp(key, "message cost") || !strcmp(key, "intra message cost")) {
        enum { MAXV = 3 * 256 };
        double *v = malloc(MAXV * sizeof *v);
        int n;
        if (!v)
            return perr(p, "out of memory");
        /* a segment's us per message may be below 0 (a line through two
         * measurements); its cost where it starts may not */
        if (list(p, key, val, -1e30, v, MAXV, &n, 0)) {
            free(v);
            return PSK_EINVAL;
        }
        if (n == 0 || n % 3) {
            free(v);
            return perr(p, "%s: {bytes, us per message, us per byte, ...}: %d values, not a multiple of 3", key, n);
        }
        for (int i = 0; i < n; i += 3) {
            const char *bad = v[i] < 0 || (i && v[i] <= v[i - 3]) ? "its bytes are below 0 or not above the last's"
                              : v[i + 2] < 0                      ? "its us per byte is below 0"
                              : v[i + 1] + v[i] * v[i + 2] < 0    ? "it costs less than nothing where it starts"
                                                                  : NULL;
            if (bad) {
                perr(p, "%s: segment %d (from %.0f bytes): %s", key, i / 3, v[i], bad);
                free(v);
                return PSK_EINVAL;
            }
        }
        int intra = key[0] == 'i';
        free(intra ? m->icost : m->cost);
        *(intra ? &m->icost : &m->cost) = v;
        *(intra ? &m->nicost : &m->ncost) = n / 3;
        return 0;
    }
    if (!strcmp(key, "work unit spread")) {
        double v[2];
        int n;
        if (list(p, key, val, 0, v, 2, &n, 0))
            return PSK_EINVAL;
        if (n != 2 || !(v[0] > 0) || v[1] < v[0])
            return perr(p, "%s: expected {first quartile, third quartile} in ns, above 0 and in order", key);
        m->work_q1_ns = v[0], m->work_q3_ns = v[1];
        return 0;
    }
    if (!strcmp(key, "calibrated on")) {
        size_t n = strlen(val);
        if (n == 0 || n >= sizeof m->host)
            return perr(p, "%s: a host name of 1 to %zu characters, not '%s'", key, sizeof m->host - 1, val);
        for (size_t i = 0; i < n; i++)
            if (!isalnum((unsigned char)val[i]) && !strchr("-._", val[i]))
                return perr(p, "%s: '%s' is not a host name", key, val);
        memcpy(m->host, val, n + 1);
        return 0;
    }
    if (!strcmp(key, "cores per node")) {
        if (whole(p, key, val, 0, &k))
            return PSK_EINVAL;
        if (k > 1 << 20)
            return perr(p, "%s: %lld is too many", key, k);
        m->cores_per_node = (int)k;
        return 0;
    }
    if (!strcmp(key, "time slice") || !strcmp(key, "scheduler tick")) {
        double v;
        if (number(p, key, val, 0, &v))
            return PSK_EINVAL;
        if (!(v >= 1 && v <= 1e7))
            return perr(p, "%s: %s us is not from 1 us to 10 s", key, val);
        *(key[0] == 't' ? &m->slice_us : &m->tick_us) = v;
        return 0;
    }
    if (!strcmp(key, "switch cost")) {
        double v;
        if (number(p, key, val, 0, &v))
            return PSK_EINVAL;
        if (!(v >= 0 && v <= 1e6))
            return perr(p, "%s: %s us is not from 0 to 1 s", key, val);
        m->switch_us = v;
        return 0;
    }
    if (!strcmp(key, "other load")) {
        double v;
        if (number(p, key, val, 0, &v))
            return PSK_EINVAL;
        if (!(v < 0.95))
            return perr(p, "%s: %s is not a share of the cores from 0 to 0.95", key, val);
        m->other_load = v;
        return 0;
    }
    if (!strcmp(key, "time sharing")) {
        if (strcmp(val, "off") && strcmp(val, "on"))
            return perr(p, "time sharing: '%s' is not on or off", val);
        m->sharing_off = !strcmp(val, "off");
        return 0;
    }
    if (!strcmp(key, "ranks start")) {
        if (strcmp(val, "recorded") && strcmp(val, "together"))
            return perr(p, "ranks start: '%s' is not recorded or together", val);
        m->start_together = !strcmp(val, "together");
        return 0;
    }
    if (!strcmp(key, "call floors")) {
        if (strcmp(val, "off") && strcmp(val, "on"))
            return perr(p, "call floors: '%s' is not on or off", val);
        m->no_floors = !strcmp(val, "off");
        return 0;
    }
    if (!strcmp(key, "waiting")) {
        if (!strcmp(val, "yield"))
            m->waiting = PSK_WAIT_YIELD;
        else if (!strcmp(val, "busy"))
            m->waiting = PSK_WAIT_BUSY;
        else
            return perr(p, "waiting: '%s' is not yield or busy", val);
        return 0;
    }
    if (!strcmp(key, "eager threshold")) {
        if (whole(p, key, val, 0, &k))
            return PSK_EINVAL;
        m->eager_bytes = k;
        m->eager_given = 1;
        return 0;
    }
    if (!strcmp(key, "links per node")) {
        if (whole(p, key, val, 1, &k))
            return PSK_EINVAL;
        m->links = k > 1 << 20 ? 1 << 20 : (int)k;
        return 0;
    }
    if (!strcmp(key, "buses")) {
        if (whole(p, key, val, 0, &k))
            return PSK_EINVAL;
        m->buses = k > 1 << 20 ? 1 << 20 : (int)k;
        return 0;
    }
    if (!strcmp(key, "work unit time"))
        return number(p, key, val, 0, &m->work_unit_ns);
    if (!strcmp(key, "poll cost")) {
        enum { MAXV = 2 * 64 };
        double *v = malloc(MAXV * sizeof *v);
        int n;
        if (!v)
            return perr(p, "out of memory");
        if (list(p, key, val, 0, v, MAXV, &n, 0)) {
            free(v);
            return PSK_EINVAL;
        }
        const char *bad = n % 2 ? "{us of compute before, us a poll costs, ...}: an odd number of values" : NULL;
        for (int i = 2; !bad && i < n; i += 2)
            if (v[i] <= v[i - 2])
                bad = "the us of compute before must ascend";
        for (int i = 1; !bad && i < n; i += 2)
            if (v[i] > 1e7)
                bad = "a poll costing over 10 s";
        if (bad) {
            free(v);
            return perr(p, "%s: %s", key, bad);
        }
        free(m->poll);
        m->poll = v;
        m->npoll = n / 2;
        return 0;
    }
    if (!strcmp(key, "node work unit time"))
        return per_node(p, key, val, "time", &m->node_unit_ns, &m->nnode_unit);
    if (!strcmp(key, "power")) {
        m->power_given = 1;
        if (val[0] != '{') {
            if (number(p, key, val, 0, &x))
                return PSK_EINVAL;
            if (x <= 0)
                return perr(p, "power: must be above 0");
            m->power = x;
            return 0;
        }
        return per_node(p, key, val, "power", &m->node_power, &m->nnode_power);
    }
    if (!strcmp(key, "topology")) {
        double v[PSK_MACHINE_MAXDIM];
        int n;
        if (list(p, key, val, 1, v, PSK_MACHINE_MAXDIM, &n, 1))
            return PSK_EINVAL;
        double nodes = 1;
        for (int i = 0; i < n; i++) {
            nodes *= v[i];
            if (v[i] > (1 << 20) || nodes > (double)(1 << 30))
                return perr(p, "topology: %g nodes in all, at most %d", nodes, 1 << 30);
        }
        for (int i = 0; i < n; i++)
            m->topo[i] = (int)v[i];
        m->ntopo = n;
        return 0;
    }
    if (!strcmp(key, "collectives")) {
        if (!strcmp(word, "expand") || !strcmp(word, "expanded") || !strcmp(word, "messages"))
            m->closed_form = 0;
        else if (!strcmp(word, "closed") || !strcmp(word, "closed form") || !strcmp(word, "formula"))
            m->closed_form = 1;
        else
            return perr(p, "collectives: '%s' is not expand or closed", val);
        return 0;
    }
    for (int c = 0; c < PSK_COLL_N; c++) {
        if (strcmp(key, psk_coll_name(c)))
            continue;
        for (int a = 0; a < PSK_ALG_N; a++)
            if (!strcmp(word, psk_alg_name(a))) {
                if (!psk_coll_has_alg(c, a)) {
                    char have[160] = "";
                    for (int b = 1; b < PSK_ALG_N; b++)
                        if (psk_coll_has_alg(c, b))
                            snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s", *have ? ", " : "",
                                     psk_alg_name(b));
                    return perr(p, "%s: %s is not one of its algorithms (%s)", key, psk_alg_name(a), have);
                }
                m->alg[c] = a;
                return 0;
            }
        return perr(p, "%s: unknown algorithm '%s'", key, val);
    }
    return perr(p, "unknown key '%s'", key);
}

int psk_machine_parse(const char *text, size_t len, const char *name, psk_machine *m)
{
    m->errmsg[0] = 0;
    m->nodes_recorded = 0; /* a machine file: its nodes are `ranks per node` consecutive ranks */
    parser p = {.name = name, .err = m->errmsg, .errcap = sizeof m->errmsg, .line = 1};
    char *stmt = malloc(len + 1);
    if (!stmt) {
        snprintf(m->errmsg, sizeof m->errmsg, "%s: out of memory", name);
        return PSK_ENOMEM;
    }
    size_t n = 0;
    int line = 1, start = 0, rc = 0, depth = 0;
    for (size_t i = 0; i <= len && !rc; i++) {
        char c = i < len ? text[i] : ';';
        if (i < len && c == '/' && i + 1 < len && text[i + 1] == '/') {
            while (i < len && text[i] != '\n')
                i++;
            c = i < len ? '\n' : ';';
        }
        if (c == '{')
            depth++;
        if (c == '}')
            depth--;
        if (c == ';' || (i == len)) {
            stmt[n] = 0;
            p.line = start ? start : line;
            char *eq = strchr(stmt, '=');
            char *s = stmt;
            while (isspace((unsigned char)*s))
                s++;
            if (*s && !eq) {
                rc = perr(&p, "expected 'key = value;', not '%s'", s);
            } else if (*s) {
                char key[128];
                normalise(stmt, (size_t)(eq - stmt), key, sizeof key);
                char *v = eq + 1, *e = v + strlen(v);
                while (isspace((unsigned char)*v))
                    v++;
                while (e > v && isspace((unsigned char)e[-1]))
                    *--e = 0;
                if (!*key)
                    rc = perr(&p, "a value without a key");
                else if (!*v)
                    rc = perr(&p, "%s: no value", key);
                else if (depth != 0)
                    rc = perr(&p, "%s: unbalanced braces", key);
                else
                    rc = statement(&p, m, key, v);
            }
            n = 0;
            start = 0;
            depth = 0;
            if (i == len)
                break;
            continue;
        }
        if (c == '\n')
            line++;
        if (!start && !isspace((unsigned char)c))
            start = line;
        stmt[n++] = c == '\n' ? ' ' : c;
    }
    free(stmt);
    if (!rc && m->type == PSK_NET_GRID && m->ntopo == 0) {
        p.line = line;
        rc = perr(&p, "type = grid needs a topology = {d1, d2, ...}");
    }
    return rc;
}

int psk_machine_load(const char *path, psk_machine *m)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(m->errmsg, sizeof m->errmsg, "%s: %s", path, strerror(errno));
        return PSK_EIO;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *b = cap < (64u << 20) ? realloc(buf, cap *= 2) : NULL;
            if (!b) {
                free(buf);
                buf = NULL;
            } else {
                buf = b;
            }
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        snprintf(m->errmsg, sizeof m->errmsg, "%s: %s", path, bad ? "cannot read" : "too large or out of memory");
        return bad ? PSK_EIO : PSK_ENOMEM;
    }
    int rc = psk_machine_parse(buf, n, path, m);
    free(buf);
    return rc;
}

const char *psk_machine_errmsg(const psk_machine *m)
{
    return m->errmsg[0] ? m->errmsg : "no error";
}

void psk_machine_write(FILE *out, const psk_machine *m, const char *comment)
{
    static const char *const types[] = {"bus", "grid", "switch"};
    if (comment)
        fprintf(out, "// %s\n", comment);
    fprintf(out, "type = %s;\n", types[m->type]);
    fprintf(out, "start time = %.6g;            // us per message between nodes\n", m->start_us);
    fprintf(out, "send byte time = %.6g;    // us per byte between nodes\n", m->byte_us);
    fprintf(out, "intra start time = %.6g;      // us per message inside a node\n", m->intra_start_us);
    fprintf(out, "intra send byte time = %.6g;  // us per byte inside a node\n", m->intra_byte_us);
    fprintf(out, "copy byte time = %.6g;        // us per byte a rank copies in its own memory (a collective's own block)\n",
            m->copy_byte_us);
    fprintf(out, "ranks per node = %d;\n", m->ranks_per_node);
    for (int intra = 0; intra < 2; intra++) {
        const double *c = intra ? m->icost : m->cost;
        int n = intra ? m->nicost : m->ncost;
        if (!c)
            continue;
        fprintf(out, "// %s: from bytes, us per message, us per byte\n", intra ? "inside a node" : "between nodes");
        fprintf(out, "%smessage cost = {\n", intra ? "intra " : "");
        for (int i = 0; i < n; i++)
            fprintf(out, "    %.0f, %.6g, %.6g%s\n", c[3 * i], c[3 * i + 1], c[3 * i + 2], i + 1 < n ? "," : "");
        fprintf(out, "};\n");
    }
    if (m->work_q1_ns > 0)
        fprintf(out, "work unit spread = {%.6g, %.6g};  // its quartiles over 31 timings\n", m->work_q1_ns,
                m->work_q3_ns);
    if (m->host[0])
        fprintf(out, "calibrated on = %s;\n", m->host);
    if (m->cores_per_node)
        fprintf(out, "cores per node = %d;          // more ranks than that share them in time slices\n",
                m->cores_per_node);
    if (m->slice_us != 4000 || m->tick_us != 4000)
        fprintf(out, "time slice = %.6g;            // us a rank holds a shared core\nscheduler tick = %.6g;       // us\n",
                m->slice_us, m->tick_us);
    if (m->switch_us != 5)
        fprintf(out, "switch cost = %.6g;           // us a poll costs that hands a shared core over and back\n",
                m->switch_us);
    if (m->sharing_off)
        fprintf(out, "time sharing = off;\n");
    if (m->other_load > 0)
        fprintf(out, "other load = %.6g;\n", m->other_load);
    if (m->no_floors)
        fprintf(out, "call floors = off;\n");
    if (m->start_together)
        fprintf(out, "ranks start = together;\n");
    if (m->waiting)
        fprintf(out, "waiting = %s;\n", m->waiting == PSK_WAIT_YIELD ? "yield" : "busy");
    if (m->eager_given || m->eager_bytes != 65536)
        fprintf(out, "eager threshold = %lld;       // bytes\n", (long long)m->eager_bytes);
    if (m->node_power) {
        fprintf(out, "power = {");
        for (int i = 0; i < m->nnode_power; i++)
            fprintf(out, "%s%.6g", i ? ", " : "", m->node_power[i]);
        fprintf(out, "};\n");
    } else if (m->power_given || !m->work_unit_ns) {
        fprintf(out, "power = %.6g;                 // CPU speed relative to the recording machine\n", m->power);
    }
    if (m->work_unit_ns)
        fprintf(out, "work unit time = %.6g;       // ns of one psk_work unit here: power = the recording's / this\n",
                m->work_unit_ns);
    if (m->node_unit_ns) {
        fprintf(out, "// sustained over many CPU-quota periods, per node (used where 10 %% above the time above)\n");
        fprintf(out, "node work unit time = {");
        for (int i = 0; i < m->nnode_unit; i++)
            fprintf(out, "%s%.6g", i ? ", " : "", m->node_unit_ns[i]);
        fprintf(out, "};\n");
    }
    if (m->poll) {
        fprintf(out, "// a poll that finds nothing: us of compute before it, us it costs\n");
        fprintf(out, "poll cost = {");
        for (int i = 0; i < m->npoll; i++)
            fprintf(out, "%s%.6g, %.6g", i ? ", " : "", m->poll[2 * i], m->poll[2 * i + 1]);
        fprintf(out, "};\n");
    }
    if (m->ntopo) {
        fprintf(out, "topology = {");
        for (int i = 0; i < m->ntopo; i++)
            fprintf(out, "%s%d", i ? ", " : "", m->topo[i]);
        fprintf(out, "};\n");
    }
    fprintf(out, "links per node = %d;\n", m->links);
    if (m->buses)
        fprintf(out, "buses = %d;\n", m->buses);
    fprintf(out, "collectives = %s;\n", m->closed_form ? "closed" : "expand");
    for (int c = 0; c < PSK_COLL_N; c++)
        if (m->alg[c])
            fprintf(out, "%s = %s;\n", psk_coll_name(c), psk_alg_name(m->alg[c]));
}
