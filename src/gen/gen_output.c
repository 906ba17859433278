/* What a skeleton says when it runs, read back for perfskel predict
 * (perfskel/gen.h): the line its rank 0 prints last (the prediction:
 * psk_skeleton_parse) and the lines before it (each sampled loop's phase:
 * what it ran and what that stands for; the compute credited at the
 * recorded speed; how many ranks ran on their recorded CPUs), both
 * written by gen_skeleton.c's main; the median of
 * several runs' predictions and their range; and where each rank was when
 * a run was stopped: the position lines the ranks print on SIGTERM and the
 * slots of the positions file they keep up to date (skel_runtime.c's
 * posslot_: the same layout, read on the same machine). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfskel/gen.h"

struct psk_skeleton_output {
    psk_skeleton_result result;
    psk_skeleton_phase *phase;
    int nphase;
    double credited;
    int pinned; /* -1: the run did not say */
};

int psk_skeleton_parse(const char *line, psk_skeleton_result *r)
{
    const char *p = strstr(line, PSK_SKELETON_TAG " predicted_seconds=");
    if (!p)
        return -1;
    return sscanf(p, PSK_SKELETON_TAG " predicted_seconds=%lf skeleton_seconds=%lf K=%d", &r->predicted_seconds,
                  &r->skeleton_seconds, &r->K) == 3 ? 0 : -1;
}

/* the phase lines of the output (NUL-separated lines) and the compute credited */
static void read_phases(const char *txt, size_t len, psk_skeleton_output *o)
{
    int cap = 0;
    for (const char *line = txt; txt && line < txt + len; line += strlen(line) + 1) {
        psk_skeleton_phase q;
        double c;
        if (sscanf(line, PSK_SKELETON_TAG " compute credited_seconds=%lf", &c) == 1)
            o->credited = c;
        sscanf(line, PSK_SKELETON_TAG " placement pinned=%d", &o->pinned);
        if (sscanf(line, PSK_SKELETON_TAG " phase loop=%d count=%lld ran=%lld seconds=%lf predicted_seconds=%lf",
                   &q.loop, &q.count, &q.ran, &q.seconds, &q.predicted_seconds) != 5)
            continue;
        if (o->nphase == cap) {
            cap = cap ? 2 * cap : 16;
            psk_skeleton_phase *m = realloc(o->phase, (size_t)cap * sizeof *o->phase);
            if (!m)
                break; /* the phases read so far */
            o->phase = m;
        }
        o->phase[o->nphase++] = q;
    }
}

int psk_skeleton_output_read(char *text, size_t len, psk_skeleton_output **out)
{
    psk_skeleton_output *o = *out = calloc(1, sizeof *o);
    if (!o)
        return PSK_ENOMEM;
    o->pinned = -1;
    int found = 0;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        if (!psk_skeleton_parse(line, &o->result))
            found = 1;
        line = nl ? nl + 1 : NULL;
    }
    read_phases(text, len, o);
    return found ? PSK_OK : PSK_EFORMAT;
}

const psk_skeleton_result *psk_skeleton_output_result(const psk_skeleton_output *o)
{
    return &o->result;
}

const psk_skeleton_phase *psk_skeleton_output_phase(const psk_skeleton_output *o, int loop)
{
    for (int k = 0; k < o->nphase; k++)
        if (o->phase[k].loop == loop)
            return &o->phase[k];
    return NULL;
}

double psk_skeleton_output_credited(const psk_skeleton_output *o)
{
    return o->credited;
}

int psk_skeleton_output_pinned(const psk_skeleton_output *o)
{
    return o->pinned;
}

void psk_skeleton_output_free(psk_skeleton_output *o)
{
    if (o)
        free(o->phase);
    free(o);
}

int psk_skeleton_median(psk_skeleton_output *const *runs, int n, double *lo, double *hi)
{
    int med = 0;
    for (int a = 0; a < n; a++) {
        int below = 0, above = 0;
        for (int b = 0; b < n; b++) {
            below += runs[b]->result.predicted_seconds < runs[a]->result.predicted_seconds;
            above += runs[b]->result.predicted_seconds > runs[a]->result.predicted_seconds;
        }
        if (below <= n / 2 && above <= n / 2)
            med = a;
    }
    *lo = *hi = runs[med]->result.predicted_seconds;
    for (int a = 0; a < n; a++) {
        double p = runs[a]->result.predicted_seconds;
        *lo = p < *lo ? p : *lo;
        *hi = p > *hi ? p : *hi;
    }
    return med;
}

/* A rank's slot in the positions file: rank r's at offset 64 r (posslot_
 * of skel_runtime.c, whose comment names this one, read for predict) */
typedef struct {
    int64_t iter;
    int32_t event, loop;
    char fn[48];
} psk_skeleton_slot;

/* the position lines among text (len bytes) into pos; the ranks seen */
static int read_positions(const char *text, size_t len, int P, psk_skeleton_position *pos)
{
    int nseen = 0;
    memset(pos, 0, (size_t)(P > 0 ? P : 0) * sizeof *pos);
    for (const char *line = text; line && line < text + len;) {
        const char *nl = memchr(line, '\n', (size_t)(text + len - line));
        const char *p = strstr(line, PSK_SKELETON_POSITION_TAG);
        psk_skeleton_position q = {.seen = 1};
        int r;
        if (p && (!nl || p < nl) &&
            sscanf(p, PSK_SKELETON_POSITION_TAG " rank=%d loop=%d iter=%lld event=%d fn=%63s", &r, &q.loop, &q.iter,
                   &q.event, q.fn) == 5 &&
            r >= 0 && r < P) {
            nseen += !pos[r].seen;
            pos[r] = q; /* a rank that said it twice: the later place */
        }
        line = nl ? nl + 1 : NULL;
    }
    return nseen;
}

/* The slots are written as position lines after the caught ones and all
 * read as lines: a rank the launcher killed before its SIGTERM handler
 * ran, or whose stderr the dying launcher did not pass on, is still there. */
int psk_skeleton_positions(const char *caught, size_t ncaught, const char *posfile, int P, psk_skeleton_position *pos)
{
    char *all = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&all, &len);
    FILE *f = fopen(posfile, "rb");
    psk_skeleton_slot sl;
    if (m) {
        if (ncaught)
            fwrite(caught, 1, ncaught, m);
        fputc('\n', m);
        for (int r = 0; f && r < P && fread(&sl, sizeof sl, 1, f) == 1; r++) {
            sl.fn[sizeof sl.fn - 1] = 0;
            if (sl.fn[0] && !strpbrk(sl.fn, " \n"))
                fprintf(m, PSK_SKELETON_POSITION_TAG " rank=%d loop=%d iter=%lld event=%d fn=%s\n", r, (int)sl.loop,
                        (long long)sl.iter, (int)sl.event, sl.fn);
        }
        fclose(m);
    }
    if (f)
        fclose(f);
    int nseen = all ? read_positions(all, len, P, pos) : read_positions(caught, ncaught, P, pos);
    free(all);
    return nseen;
}
