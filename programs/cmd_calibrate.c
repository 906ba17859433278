/* perfskel calibrate: measures a machine with a small MPI program run by
 * the user's launcher (2 or more ranks; ranks 0 and 1 measure) and writes a
 * machine file for perfskel sim: the ping-pong latency (start time) and
 * time per byte between ranks 0 and 1, the largest message MPI sends
 * without waiting for its receiver (eager threshold), and the time of the
 * work unit of psk_work.h (work unit time), from which sim gets the CPU
 * power of this machine relative to where a trace was recorded, what a
 * poll that finds nothing costs (poll cost), the cost of messages by size
 * up to 32 MiB (message cost) and of a copy in a rank's own memory (copy
 * byte time). The program is built with
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
#include "psk_work.h"

static const char program[] =
    "#include <mpi.h>\n"
    "#include <stdint.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "#include <unistd.h>\n"
    "\n"
    "static double wtime_ns(void) { return MPI_Wtime() * 1e9; }\n"
    "\n"
    "static int cmp_double(const void *a, const void *b)\n"
    "{\n"
    "    double x = *(const double *)a, y = *(const double *)b;\n"
    "    return (x > y) - (x < y);\n"
    "}\n"
    "\n"
    "/* half the round trip of size bytes between ranks 0 and 1: the best of 5\n"
    " * averages of reps round trips */\n"
    "static double pingpong(int rank, char *buf, int size, int reps)\n"
    "{\n"
    "    double best = 1e30;\n"
    "    for (int t = 0; t < 5; t++) {\n"
    "        MPI_Barrier(MPI_COMM_WORLD);\n"
    "        double a = MPI_Wtime();\n"
    "        for (int i = 0; i < reps; i++) {\n"
    "            if (rank == 0) {\n"
    "                MPI_Send(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);\n"
    "                MPI_Recv(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n"
    "            } else if (rank == 1) {\n"
    "                MPI_Recv(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n"
    "                MPI_Send(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);\n"
    "            }\n"
    "        }\n"
    "        double h = (MPI_Wtime() - a) / reps / 2;\n"
    "        best = h < best ? h : best;\n"
    "    }\n"
    "    MPI_Bcast(&best, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);\n"
    "    return best;\n"
    "}\n"
    "\n"
    "/* does a send of size bytes return before its receive is posted 2 ms later? */\n"
    "static int eager(int rank, char *buf, int size)\n"
    "{\n"
    "    int yes = 0;\n"
    "    MPI_Barrier(MPI_COMM_WORLD);\n"
    "    if (rank == 0) {\n"
    "        double a = MPI_Wtime();\n"
    "        MPI_Send(buf, size, MPI_BYTE, 1, 2, MPI_COMM_WORLD);\n"
    "        yes = MPI_Wtime() - a < 1e-3;\n"
    "        printf(\"probe %d bytes: MPI_Send took %.1f us\\n\", size, (MPI_Wtime() - a) * 1e6);\n"
    "    } else if (rank == 1) {\n"
    "        double a = MPI_Wtime();\n"
    "        while (MPI_Wtime() - a < 2e-3)\n"
    "            ;\n"
    "        MPI_Recv(buf, size, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n"
    "    }\n"
    "    MPI_Bcast(&yes, 1, MPI_INT, 0, MPI_COMM_WORLD);\n"
    "    return yes;\n"
    "}\n"
    "\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "    int rank, size;\n"
    "    MPI_Init(&argc, &argv);\n"
    "    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
    "    MPI_Comm_size(MPI_COMM_WORLD, &size);\n"
    "    if (size < 2) {\n"
    "        fprintf(stderr, \"calibrate: run with at least 2 ranks\\n\");\n"
    "        MPI_Abort(MPI_COMM_WORLD, 2);\n"
    "    }\n"
    "    char host[2][256] = {{0}};\n"
    "    gethostname(host[0], 255);\n"
    "    if (rank == 1) MPI_Send(host[0], 256, MPI_CHAR, 0, 3, MPI_COMM_WORLD);\n"
    "    if (rank == 0) MPI_Recv(host[1], 256, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n"
    "    enum { BIG = 4 << 20, HUGE = 32 << 20 };\n"
    "    char *buf = malloc(HUGE);\n"
    "    if (!buf) MPI_Abort(MPI_COMM_WORLD, 3);\n"
    "    memset(buf, 1, HUGE); /* pages touched, as a program's buffers are */\n"
    "    /* the eager limit first: after large transfers Open MPI made even 1 KiB\n"
    "     * sends wait for their receive */\n"
    "    pingpong(rank, buf, 0, 10); /* the connection */\n"
    "    /* a size is eager if one of 3 sends returned early (Open MPI's shared\n"
    "     * memory sometimes waits for the receiver even at 1 KiB); the scan\n"
    "     * stops after two sizes that never did */\n"
    "    int limit = 0, misses = 0;\n"
    "    for (int s = 1024; s <= (4 << 20) && misses < 2; s *= 2) {\n"
    "        int fast = eager(rank, buf, s) + eager(rank, buf, s) + eager(rank, buf, s);\n"
    "        if (fast) limit = s, misses = 0; else misses++;\n"
    "    }\n"
    "    pingpong(rank, buf, 1 << 20, 5); /* warm up: pages */\n"
    "    double lat = pingpong(rank, buf, 0, 2000);\n"
    "    double t64 = pingpong(rank, buf, 64 << 10, 200), tbig = pingpong(rank, buf, BIG, 10);\n"
    "    double per_byte = (tbig - t64) / (double)(BIG - (64 << 10));\n"
    "    /* the cost by size, 0 B to 32 MiB, denser around the eager limit,\n"
    "     * where MPIs switch protocol (and Open MPI's shared memory its copy);\n"
    "     * beyond the caches (8 MiB and up) a byte costs more */\n"
    "    static const int base[] = {0, 16, 256, 1024, 2048, 4096, 6144, 8192, 12288, 16384, 24576, 32768,\n"
    "                               49152, 65536, 98304, 131072, 262144, 524288, 1048576, 2097152, BIG,\n"
    "                               8 << 20, 16 << 20, HUGE};\n"
    "    int sz[40], ns = 0;\n"
    "    for (unsigned i = 0; i < sizeof base / sizeof *base; i++) sz[ns++] = base[i];\n"
    "    if (limit > 0) sz[ns++] = limit - limit / 4, sz[ns++] = limit + limit / 4, sz[ns++] = limit + limit / 2;\n"
    "    for (int i = 1; i < ns; i++)\n"
    "        for (int j = i; j > 0 && sz[j] < sz[j - 1]; j--) { int t = sz[j]; sz[j] = sz[j - 1]; sz[j - 1] = t; }\n"
    "    for (int i = 0; i < ns; i++) {\n"
    "        if (i && sz[i] == sz[i - 1]) continue;\n"
    "        int reps = (int)(4000000 / ((double)sz[i] + 4096));\n"
    "        double t = pingpong(rank, buf, sz[i], reps < 3 ? 3 : reps > 400 ? 400 : reps);\n"
    "        if (rank == 0) printf(\"cost %d %.6g\\n\", sz[i], t * 1e6);\n"
    "    }\n"
    "    /* a copy in a rank's own memory (a collective's own block): 16 MiB,\n"
    "     * beyond the caches, the best of 5, by rank 0 */\n"
    "    double copy = 1e30;\n"
    "    for (int t = 0; rank == 0 && t < 5; t++) {\n"
    "        double a = MPI_Wtime();\n"
    "        memcpy(buf + (16 << 20), buf, 16 << 20);\n"
    "        double d = (MPI_Wtime() - a) / (16 << 20);\n"
    "        copy = d < copy ? d : copy;\n"
    "    }\n"
    "    if (rank == 0) printf(\"copy_us %.6g\\n\", copy * 1e6);\n"
    "    /* the work unit, timed as perfskel record does (psk_work.h) */\n"
    "    double wt[3], unit;\n"
    "    psk_work_time(wtime_ns, wt);\n"
    "    unit = wt[0];\n"
    "    /* and sustained: 30 pieces of about 10 ms by the first rank of each\n"
    "     * host while its others sleep (not spinning in MPI), so that a CPU\n"
    "     * quota shows (a short timing runs within one of its periods) and the\n"
    "     * ranks' own sharing of cores does not */\n"
    "    char (*hosts)[64] = calloc((size_t)size, 64), me[64] = {0};\n"
    "    double *sus = calloc((size_t)size, sizeof *sus), mine = 0;\n"
    "    if (!hosts || !sus) MPI_Abort(MPI_COMM_WORLD, 3);\n"
    "    gethostname(me, 63);\n"
    "    MPI_Allgather(me, 64, MPI_CHAR, hosts, 64, MPI_CHAR, MPI_COMM_WORLD);\n"
    "    int first = rank;\n"
    "    for (int q = 0; q < rank; q++)\n"
    "        if (!strcmp(hosts[q], hosts[rank])) { first = q; break; }\n"
    "    MPI_Barrier(MPI_COMM_WORLD);\n"
    "    if (first == rank) {\n"
    "        uint64_t n = (uint64_t)(1e7 / unit) + 1000;\n"
    "        double a = wtime_ns();\n"
    "        for (int i = 0; i < 30; i++) psk_work(n);\n"
    "        mine = (wtime_ns() - a) / (30.0 * (double)n);\n"
    "    }\n"
    "    MPI_Request bq;\n"
    "    int done = 0;\n"
    "    MPI_Ibarrier(MPI_COMM_WORLD, &bq);\n"
    "    while (!done) { MPI_Test(&bq, &done, MPI_STATUS_IGNORE); if (!done) usleep(1000); }\n"
    "    MPI_Gather(&mine, 1, MPI_DOUBLE, sus, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);\n"
    "    for (int q = 0; rank == 0 && q < size; q++) {\n"
    "        int f = q;\n"
    "        for (int k = 0; k < q; k++)\n"
    "            if (!strcmp(hosts[k], hosts[q])) { f = k; break; }\n"
    "        printf(\"sustained %d %.6g\\n\", q, sus[f]);\n"
    "    }\n"
    "    /* what a poll that finds nothing costs beyond the compute before it,\n"
    "     * after pieces of compute of 5 us to 0.5 ms (beyond, as after 0.5: a CPU\n"
    "     * quota's noise hides it): runs of 4 to 11 pieces (at random: runs of\n"
    "     * one length kept in step with a quota's period) each followed by an\n"
    "     * MPI_Test of a receive nothing matches and as many without, in turn,\n"
    "     * each piece timed, for 80 ms or 800 pieces; the first quartile with\n"
    "     * less the first quartile without (but the first of each run with: it\n"
    "     * follows a longer gap), so that a busy machine's preemptions, which\n"
    "     * only add, do not count; by the first rank\n"
    "     * of each host at once (its others sleep) */\n"
    "    static const double pgap[] = {5, 10, 20, 35, 50, 70, 85, 100, 120, 150, 200, 350, 500};\n"
    "    enum { NP = sizeof pgap / sizeof *pgap, PR = 400 };\n"
    "    double pm[2 * NP] = {0}, *pall = calloc((size_t)size * 2 * NP, sizeof *pall);\n"
    "    double *tw = malloc(PR * sizeof *tw), *two = malloc(PR * sizeof *two);\n"
    "    if (!pall || !tw || !two) MPI_Abort(MPI_COMM_WORLD, 3);\n"
    "    MPI_Barrier(MPI_COMM_WORLD);\n"
    "    if (first == rank) {\n"
    "        int dummy = 0, f;\n"
    "        MPI_Request pr;\n"
    "        MPI_Irecv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &pr);\n"
    "        for (int k = 0; k < NP; k++) {\n"
    "            uint64_t n = (uint64_t)(pgap[k] * 1e3 / unit) + 1;\n"
    "            int reps = (int)(40000 / pgap[k]) + 16, nw = 0, nwo = 0, with = 1, left = 0;\n"
    "            unsigned rng = 12345u + (unsigned)k;\n"
    "            reps = reps > PR ? PR : reps;\n"
    "            for (int i = 0; nw < reps || nwo < reps; i++) {\n"
    "                int firstw = 0;\n"
    "                if (!left) {\n"
    "                    with = !with, firstw = with;\n"
    "                    rng = rng * 1103515245u + 12345u;\n"
    "                    left = 4 + (int)(rng >> 16) % 8;\n"
    "                }\n"
    "                left--;\n"
    "                double a = wtime_ns();\n"
    "                psk_work(n);\n"
    "                if (with) MPI_Test(&pr, &f, MPI_STATUS_IGNORE);\n"
    "                double d = (wtime_ns() - a) / 1e3;\n"
    "                if (with && !firstw && nw < reps) tw[nw++] = d;\n"
    "                if (!with && nwo < reps) two[nwo++] = d;\n"
    "            }\n"
    "            qsort(tw, (size_t)nw, sizeof *tw, cmp_double);\n"
    "            qsort(two, (size_t)nwo, sizeof *two, cmp_double);\n"
    "            pm[2 * k] = pgap[k]; /* at full speed: a quota's pauses fall between pieces */\n"
    "            pm[2 * k + 1] = tw[nw / 4] - two[nwo / 4];\n"
    "        }\n"
    "        MPI_Send(&dummy, 1, MPI_INT, rank, 99, MPI_COMM_WORLD);\n"
    "        MPI_Wait(&pr, MPI_STATUS_IGNORE);\n"
    "    }\n"
    "    MPI_Ibarrier(MPI_COMM_WORLD, &bq);\n"
    "    done = 0;\n"
    "    while (!done) { MPI_Test(&bq, &done, MPI_STATUS_IGNORE); if (!done) usleep(1000); }\n"
    "    MPI_Gather(pm, 2 * NP, MPI_DOUBLE, pall, 2 * NP, MPI_DOUBLE, 0, MPI_COMM_WORLD);\n"
    "    for (int k = 0; rank == 0 && k < NP; k++) {\n"
    "        /* the mean over the hosts measured */\n"
    "        double g = 0, c = 0;\n"
    "        int nh = 0;\n"
    "        for (int q = 0; q < size; q++) {\n"
    "            int f = q;\n"
    "            for (int j = 0; j < q; j++)\n"
    "                if (!strcmp(hosts[j], hosts[q])) { f = j; break; }\n"
    "            if (f == q) g += pall[(size_t)q * 2 * NP + 2 * k], c += pall[(size_t)q * 2 * NP + 2 * k + 1], nh++;\n"
    "        }\n"
    "        printf(\"poll %.6g %.6g\\n\", g / nh, c / nh);\n"
    "    }\n"
    "    free(pall);\n"
    "    free(tw);\n"
    "    free(two);\n"
    "    free(hosts);\n"
    "    free(sus);\n"
    "    if (rank == 0) printf(\"unit_q %.6g %.6g\\nhost %s\\n\", wt[1], wt[2], host[0]);\n"
    "    if (rank == 0) {\n"
    "        printf(\"ranks %d\\nsame_node %d\\nstart_us %.6g\\nbyte_us %.6g\\neager %d\\nunit_ns %.6g\\ncores %ld\\n\",\n"
    "               size, !strcmp(host[0], host[1]), lat * 1e6, per_byte > 0 ? per_byte * 1e6 : 0, limit, unit,\n"
    "               sysconf(_SC_NPROCESSORS_ONLN));\n"
    "    }\n"
    "    free(buf);\n"
    "    MPI_Finalize();\n"
    "    return 0;\n"
    "}\n";

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
    psk_cli_mpicc cc;
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
    if (!f || fputs(PSK_WORK_SOURCE, f) < 0 || fputs(PSK_WORK_TIME_SOURCE, f) < 0 || fputs(program, f) < 0) {
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
                    psk_cli_mpi_title(flavour), cc.run);
            int st = psk_cli_run(cmd, o);
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
