/* perfskel calibrate's side of the machine model: the source of its MPI
 * program as perfskel writes it out to be built (the work kernel and its
 * timing, psk_work.h's text, which the program calls, then
 * src/calibrate/calibrate_prog.c, embedded as text at build time by
 * embed.awk), and the machine what that program prints describes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfskel/machine.h"
#include "psk_work.h"

extern const char psk_calibrate_prog_text[];

int psk_machine_calibration_source(FILE *out)
{
    if (fputs(PSK_WORK_SOURCE, out) < 0 || fputs(PSK_WORK_TIME_SOURCE, out) < 0 ||
        fputs(psk_calibrate_prog_text, out) < 0)
        return PSK_EIO;
    return PSK_OK;
}

int psk_machine_from_calibration(char *text, psk_machine *m, psk_calibration *c)
{
    int ranks = 0, same = 0, eager = -1, cores = 0, npt = 0, nsus = 0, npoll = 0;
    double ptsize[64], ptus[64], uq1 = 0, uq3 = 0, *sus = NULL, poll[2 * 16];
    char host[64] = "";
    double start = -1, byte = -1, unit = -1, copy = -1;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        sscanf(line, "ranks %d", &ranks);
        sscanf(line, "same_node %d", &same);
        sscanf(line, "start_us %lf", &start);
        sscanf(line, "byte_us %lf", &byte);
        sscanf(line, "copy_us %lf", &copy);
        sscanf(line, "eager %d", &eager);
        sscanf(line, "unit_ns %lf", &unit);
        sscanf(line, "cores %d", &cores);
        sscanf(line, "unit_q %lf %lf", &uq1, &uq3);
        if (!strncmp(line, "host ", 5) && strlen(line + 5) < sizeof host)
            strcpy(host, line + 5);
        if (npt < 64 && sscanf(line, "cost %lf %lf", &ptsize[npt], &ptus[npt]) == 2)
            npt++;
        /* a point whose compute is not longer than the last's is noise */
        if (npoll < 16 && sscanf(line, "poll %lf %lf", &poll[2 * npoll], &poll[2 * npoll + 1]) == 2 &&
            poll[2 * npoll] > (npoll ? poll[2 * npoll - 2] : 0) && poll[2 * npoll] < 1e7)
            poll[2 * npoll + 1] = poll[2 * npoll + 1] > 0 ? poll[2 * npoll + 1] : 0, npoll++;
        int q;
        double v;
        if (sscanf(line, "sustained %d %lf", &q, &v) == 2 && q == nsus && q < 4096 && v > 0) {
            double *t = realloc(sus, (size_t)(q + 1) * sizeof *sus);
            if (t)
                sus = t, sus[nsus++] = v;
        }
    }
    if (start < 0 || byte < 0 || eager < 0 || unit <= 0 || ranks < 2) {
        free(sus);
        return PSK_EFORMAT;
    }
    *c = (psk_calibration){.ranks = ranks, .same_node = same, .sizes = npt};
    m->type = PSK_NET_SWITCH;
    m->start_us = m->intra_start_us = start;
    m->byte_us = m->intra_byte_us = byte;
    m->eager_bytes = eager, m->eager_given = 1;
    if (copy > 0 && copy < 1)
        m->copy_byte_us = copy;
    m->ranks_per_node = same ? ranks : 1;
    m->cores_per_node = same && cores > 0 ? cores : 0; /* rank 0's host: the ranks' when they share one */
    m->work_unit_ns = unit;
    if (uq1 > 0 && uq3 >= uq1)
        m->work_q1_ns = uq1, m->work_q3_ns = uq3;
    /* the sustained unit time per node: the node of ranks_per_node
     * consecutive ranks is its first rank's host */
    int rpn = m->ranks_per_node > 0 ? m->ranks_per_node : 1, nodes = (ranks + rpn - 1) / rpn;
    if (nsus == ranks && nodes > 0 && (m->node_unit_ns = malloc((size_t)nodes * sizeof *m->node_unit_ns))) {
        for (int k = 0; k < nodes; k++)
            m->node_unit_ns[k] = sus[k * rpn];
        m->nnode_unit = nodes;
    }
    free(sus);
    if (npoll && (m->poll = malloc((size_t)npoll * 2 * sizeof *m->poll))) {
        memcpy(m->poll, poll, (size_t)npoll * 2 * sizeof *poll);
        m->npoll = npoll;
    }
    /* a host name the machine file can hold (letters, digits, - . _) */
    size_t hl = strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._");
    if (same && hl && !host[hl])
        memcpy(m->host, host, hl + 1);
    /* the measured costs, linear between the sizes measured (and beyond
     * the last as between the last two): SMPI's per-segment factors */
    double *seg = npt >= 2 ? malloc((size_t)(npt - 1) * 3 * sizeof *seg) : NULL;
    for (int i = 0; seg && i + 1 < npt; i++) {
        double b = (ptus[i + 1] - ptus[i]) / (ptsize[i + 1] - ptsize[i]);
        b = b > 0 ? b : 0;
        seg[3 * i] = ptsize[i], seg[3 * i + 1] = ptus[i] - b * ptsize[i], seg[3 * i + 2] = b;
    }
    if (seg) {
        m->cost = seg;
        m->ncost = npt - 1;
        m->icost = malloc((size_t)(npt - 1) * 3 * sizeof *m->icost);
        if (m->icost) {
            memcpy(m->icost, seg, (size_t)(npt - 1) * 3 * sizeof *seg);
            m->nicost = npt - 1;
        }
    }
    return PSK_OK;
}
