/* perfskel calibrate: measures a machine with a small MPI program run by
 * the user's launcher (2 or more ranks; ranks 0 and 1 measure) and writes a
 * machine file for perfskel sim: the ping-pong latency (start time) and
 * time per byte between ranks 0 and 1, the largest message MPI sends
 * without waiting for its receiver (eager threshold), and the time of the
 * work unit of psk_work.h (work unit time), from which sim gets the CPU
 * power of this machine relative to where a trace was recorded, what a
 * poll that finds nothing costs (poll cost), the cost of messages by size
 * up to 32 MiB (message cost) and of a copy in a rank's own memory (copy
 * byte time). The program (src/calibrate/calibrate_prog.c) is built with
 * an mpicc of the launcher's MPI (mpicc.c: --mpicc, $MPICC, ...). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "perfskel/sim.h"

int cmd_calibrate(int argc, char **argv)
{
    const char *out = "machine.par", *mpicc_arg = NULL;
    int flavour = 0, i;
    for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--mpicc") && i + 1 < argc) {
            mpicc_arg = argv[++i];
        } else if (!strcmp(argv[i], "--mpi") && i + 1 < argc) {
            const char *m = argv[++i];
            flavour = psk_cli_mpi_arg(m);
            if (!flavour)
                return psk_cli_usage("calibrate: --mpi takes openmpi or mpich, not '%s'", m);
        } else {
            return psk_cli_usage("calibrate: unknown option '%s'", argv[i]);
        }
    }
    if (i + 1 >= argc)
        return psk_cli_usage("calibrate: no launcher given (perfskel calibrate -o FILE -- mpirun -np 2)");
    char **launch = argv + i + 1;
    int nlaunch = argc - i - 1;
    if (!(flavour = psk_cli_launcher_mpi(flavour, launch[0])))
        return PSK_EXIT_USAGE;
    psk_run_mpicc cc;
    if (psk_cli_mpicc_find(mpicc_arg, flavour, launch[0], &cc))
        return PSK_EXIT_USAGE;
    char dir[PATH_MAX], src[PATH_MAX + 16], bin[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/perfskel-calibrate.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        psk_cli_error("%s: %s", dir, strerror(errno));
        return PSK_EXIT_DATA;
    }
    snprintf(src, sizeof src, "%s/calibrate.c", dir);
    snprintf(bin, sizeof bin, "%s/calibrate", dir);
    FILE *f = fopen(src, "w");
    int rc = 0;
    if (!f || psk_calibrate_write_source(f)) {
        psk_cli_error("%s: cannot write", src);
        rc = PSK_EXIT_DATA;
    }
    if (f && fclose(f) && !rc) {
        psk_cli_error("%s: cannot write", src);
        rc = PSK_EXIT_DATA;
    }
    if (!rc)
        rc = psk_cli_mpicc_build(&cc, src, bin, 1);
    char *text = NULL;
    size_t len = 0;
    if (!rc) {
        char **cmd = calloc((size_t)nlaunch + 2, sizeof *cmd);
        FILE *o = open_memstream(&text, &len);
        if (!cmd || !o) {
            psk_cli_error("out of memory");
            rc = PSK_EXIT_DATA;
        } else {
            for (int k = 0; k < nlaunch; k++)
                cmd[k] = launch[k];
            cmd[nlaunch] = bin;
            fprintf(stderr, "perfskel: measuring with %s, %s, built with %s (about 10 s)\n", launch[0],
                    psk_run_mpi_title(flavour), cc.run);
            int st = psk_run_capture(cmd, o);
            fclose(o);
            if (st) {
                psk_cli_error("%s: the calibration run failed (status %d)", launch[0], st);
                rc = PSK_EXIT_DATA;
            }
        }
        free(cmd);
    }
    unlink(src);
    unlink(bin);
    rmdir(dir);
    if (rc) {
        free(text);
        return rc;
    }
    if (getenv("PSK_CALIBRATE_DEBUG"))
        fputs(text, stderr);
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
    free(text);
    if (start < 0 || byte < 0 || eager < 0 || unit <= 0 || ranks < 2) {
        psk_cli_error("%s: the calibration run printed no measurements", launch[0]);
        free(sus);
        return PSK_EXIT_DATA;
    }
    psk_machine m;
    psk_machine_default(&m);
    m.type = PSK_NET_SWITCH;
    m.start_us = m.intra_start_us = start;
    m.byte_us = m.intra_byte_us = byte;
    m.eager_bytes = eager, m.eager_given = 1;
    if (copy > 0 && copy < 1)
        m.copy_byte_us = copy;
    m.ranks_per_node = same ? ranks : 1;
    m.cores_per_node = same && cores > 0 ? cores : 0; /* rank 0's host: the ranks' when they share one */
    m.work_unit_ns = unit;
    if (uq1 > 0 && uq3 >= uq1)
        m.work_q1_ns = uq1, m.work_q3_ns = uq3;
    /* the sustained unit time per node: the node of ranks_per_node
     * consecutive ranks is its first rank's host */
    int rpn = m.ranks_per_node > 0 ? m.ranks_per_node : 1, nodes = (ranks + rpn - 1) / rpn;
    if (nsus == ranks && nodes > 0 && (m.node_unit_ns = malloc((size_t)nodes * sizeof *m.node_unit_ns))) {
        for (int k = 0; k < nodes; k++)
            m.node_unit_ns[k] = sus[k * rpn];
        m.nnode_unit = nodes;
    }
    free(sus);
    if (npoll && (m.poll = malloc((size_t)npoll * 2 * sizeof *m.poll))) {
        memcpy(m.poll, poll, (size_t)npoll * 2 * sizeof *poll);
        m.npoll = npoll;
    }
    /* a host name the machine file can hold (letters, digits, - . _) */
    size_t hl = strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._");
    if (same && hl && !host[hl])
        memcpy(m.host, host, hl + 1);
    /* the measured costs, linear between the sizes measured (and beyond
     * the last as between the last two): SMPI's per-segment factors */
    double *seg = npt >= 2 ? malloc((size_t)(npt - 1) * 3 * sizeof *seg) : NULL;
    for (int i = 0; seg && i + 1 < npt; i++) {
        double b = (ptus[i + 1] - ptus[i]) / (ptsize[i + 1] - ptsize[i]);
        b = b > 0 ? b : 0;
        seg[3 * i] = ptsize[i], seg[3 * i + 1] = ptus[i] - b * ptsize[i], seg[3 * i + 2] = b;
    }
    if (seg) {
        m.cost = seg;
        m.ncost = npt - 1;
        m.icost = malloc((size_t)(npt - 1) * 3 * sizeof *m.icost);
        if (m.icost) {
            memcpy(m.icost, seg, (size_t)(npt - 1) * 3 * sizeof *seg);
            m.nicost = npt - 1;
        }
    }
    FILE *w = fopen(out, "w");
    if (!w) {
        psk_cli_error("%s: %s", out, strerror(errno));
        psk_machine_free(&m);
        return PSK_EXIT_DATA;
    }
    char note[512];
    snprintf(note, sizeof note,
             "measured by perfskel calibrate with %s, %d ranks; ranks 0 and 1 %s; %s", launch[0], ranks,
             same ? "on one node (all ranks taken as one node: the times between nodes are those inside it)"
                  : "on two nodes (times inside a node not measured: the same assumed)",
             "power is derived from the work unit time");
    psk_machine_write(w, &m, note);
    psk_machine_free(&m);
    if (fclose(w)) {
        psk_cli_error("%s: cannot write", out);
        return PSK_EXIT_DATA;
    }
    printf("start time %.3f us, send byte time %.6f us/byte (%.0f MB/s), eager up to %d bytes, work unit %.4f ns; "
           "%d message sizes measured\n", start, byte, byte > 0 ? 1.0 / byte : 0, eager, unit, npt);
    printf("machine file written to %s\n", out);
    return 0;
}
