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

enum { O_OUT, O_MPI, O_MPICC };
static const psk_cli_opt opts[] = {
    [O_OUT] = {"-o", NULL, PSK_OPT_VALUE},
    [O_MPI] = {"--mpi", NULL, PSK_OPT_VALUE},
    [O_MPICC] = {"--mpicc", NULL, PSK_OPT_VALUE},
};
const psk_cli_opts cmd_calibrate_opts = {"calibrate", PSK_CLI_OPTS(opts), PSK_CLI_JOB_AFTER, NULL, NULL};

int cmd_calibrate(int argc, char **argv)
{
    const char *out = "machine.par", *mpicc_arg = NULL;
    int flavour = 0, k;
    psk_cli_args a;
    psk_cli_begin(&a, &cmd_calibrate_opts, argc, argv);
    while ((k = psk_cli_next(&a)) != PSK_CLI_END) {
        if (k == PSK_CLI_STOP) {
            return a.status;
        } else if (k == O_OUT) {
            out = a.val;
        } else if (k == O_MPICC) {
            mpicc_arg = a.val;
        } else if (k == O_MPI) {
            flavour = psk_cli_mpi_arg(a.val);
            if (!flavour)
                return psk_cli_usage("calibrate: --mpi takes openmpi or mpich, not '%s'", a.val);
        } else {
            return psk_cli_usage("calibrate: unknown option '%s'", a.val); /* an operand before the -- */
        }
    }
    if (a.i >= argc)
        return psk_cli_usage("calibrate: no launcher given (perfskel calibrate -o FILE -- mpirun -np 2)");
    char **launch = argv + a.i;
    int nlaunch = argc - a.i;
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
    if (!f || psk_machine_calibration_source(f)) {
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
    psk_machine m;
    psk_calibration cal;
    psk_machine_default(&m);
    int prc = psk_machine_from_calibration(text, &m, &cal);
    free(text);
    if (prc) {
        psk_cli_error("%s: the calibration run printed no measurements", launch[0]);
        return PSK_EXIT_DATA;
    }
    FILE *w = fopen(out, "w");
    if (!w) {
        psk_cli_error("%s: %s", out, strerror(errno));
        psk_machine_free(&m);
        return PSK_EXIT_DATA;
    }
    char note[512];
    snprintf(note, sizeof note,
             "measured by perfskel calibrate with %s, %d ranks; ranks 0 and 1 %s; %s", launch[0], cal.ranks,
             cal.same_node ? "on one node (all ranks taken as one node: the times between nodes are those inside it)"
                  : "on two nodes (times inside a node not measured: the same assumed)",
             "power is derived from the work unit time");
    psk_machine_write(w, &m, note);
    psk_machine_free(&m);
    if (fclose(w)) {
        psk_cli_error("%s: cannot write", out);
        return PSK_EXIT_DATA;
    }
    printf("start time %.3f us, send byte time %.6f us/byte (%.0f MB/s), eager up to %d bytes, work unit %.4f ns; "
           "%d message sizes measured\n", m.start_us, m.byte_us, m.byte_us > 0 ? 1.0 / m.byte_us : 0,
           (int)m.eager_bytes, m.work_unit_ns, cal.sizes);
    printf("machine file written to %s\n", out);
    return 0;
}
