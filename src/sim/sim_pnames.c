/* The names of MPI_Pcontrol levels' intervals that a trace directory may
 * carry in DIR/intervals.txt (perfskel advise --trace writes it,
 * src/advise/advise_trace.c): lines "pcontrol LEVEL<TAB>NAME", read for
 * the replay's intervals (psk_sim_opts.pcontrol_name). The file comes from
 * elsewhere: a line of another form, a control byte or a name too long is
 * an error, said in one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfskel/sim.h"

struct psk_sim_pnames {
    long long *level;
    char (*name)[48];
    int n;
};

void psk_sim_pnames_name(void *arg, int64_t level, char *buf, size_t cap)
{
    const psk_sim_pnames *pn = arg;
    for (int i = 0; pn && i < pn->n; i++)
        if (pn->level[i] == level) {
            snprintf(buf, cap, "%s", pn->name[i]);
            return;
        }
}

void psk_sim_pnames_free(psk_sim_pnames *pn)
{
    if (pn) {
        free(pn->level);
        free(pn->name);
    }
    free(pn);
}

/* one more name, its array grown: PSK_OK or PSK_ENOMEM */
static int grow(psk_sim_pnames *pn, int *cap)
{
    if (pn->n < *cap)
        return PSK_OK;
    *cap = *cap ? 2 * *cap : 16;
    long long *l = realloc(pn->level, (size_t)*cap * sizeof *l);
    if (l)
        pn->level = l;
    char(*nm)[48] = realloc(pn->name, (size_t)*cap * sizeof *nm);
    if (nm)
        pn->name = nm;
    return !l || !nm || *cap > 1000000 ? PSK_ENOMEM : PSK_OK;
}

int psk_sim_pnames_load(const char *dir, psk_sim_pnames **out, char *err, size_t errcap)
{
    *out = NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/intervals.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return PSK_OK;
    psk_sim_pnames *pn = calloc(1, sizeof *pn);
    char line[256];
    int ln = 0, cap = 0, rc = pn ? PSK_OK : PSK_ENOMEM;
    if (!pn)
        snprintf(err, errcap, "%s: out of memory", path);
    while (!rc && fgets(line, sizeof line, f)) {
        ln++;
        size_t len = strlen(line);
        int whole = len > 0 && line[len - 1] == '\n';
        if (whole)
            line[--len] = 0;
        char *tab = strchr(line, '\t'), *end = NULL;
        long long lv = 0;
        if (!strncmp(line, "pcontrol ", 9) && tab)
            lv = strtoll(line + 9, &end, 10);
        int ok = (whole || feof(f)) && end && end == tab && end > line + 9 && tab[1] &&
                 strlen(tab + 1) < sizeof pn->name[0];
        for (const unsigned char *c = (const unsigned char *)(tab ? tab + 1 : line); ok && *c; c++)
            ok = *c >= 0x20 && *c != 0x7f;
        if (!ok) {
            snprintf(err, errcap, "%s:%d: not `pcontrol LEVEL<TAB>NAME` (a name of 1 to 47 printable bytes)", path, ln);
            rc = PSK_EFORMAT;
        } else if ((rc = grow(pn, &cap))) {
            snprintf(err, errcap, "%s: out of memory", path);
        } else {
            pn->level[pn->n] = lv;
            snprintf(pn->name[pn->n], sizeof pn->name[0], "%s", tab + 1);
            pn->n++;
        }
    }
    fclose(f);
    if (rc)
        psk_sim_pnames_free(pn);
    else
        *out = pn;
    return rc;
}
