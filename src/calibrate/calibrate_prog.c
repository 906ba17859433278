/* PSK-STANDALONE-BEGIN: this banner and the include below are not embedded.
 * The MPI program `perfskel calibrate` builds with the launcher's mpicc and
 * runs on 2 or more ranks (programs/cmd_calibrate.c reads what rank 0
 * prints, a "key value" line each): ping-pong start and byte time, eager
 * limit, message cost by size, copy byte time, the work unit's time (short
 * and sustained per host) and the cost of a poll that finds nothing. The
 * build embeds it as text (embed.awk), written after psk_work.h's
 * PSK_WORK_SOURCE and PSK_WORK_TIME_SOURCE, and compiles it on its own. */
#include "psk_work.h"
/* PSK-STANDALONE-END */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double wtime_ns(void) { return MPI_Wtime() * 1e9; }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* half the round trip of size bytes between ranks 0 and 1: the best of 5
 * averages of reps round trips */
static double pingpong(int rank, char *buf, int size, int reps)
{
    double best = 1e30;
    for (int t = 0; t < 5; t++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double a = MPI_Wtime();
        for (int i = 0; i < reps; i++) {
            if (rank == 0) {
                MPI_Send(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        }
        double h = (MPI_Wtime() - a) / reps / 2;
        best = h < best ? h : best;
    }
    MPI_Bcast(&best, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return best;
}

/* does a send of size bytes return before its receive is posted 2 ms later? */
static int eager(int rank, char *buf, int size)
{
    int yes = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double a = MPI_Wtime();
        MPI_Send(buf, size, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
        yes = MPI_Wtime() - a < 1e-3;
        printf("probe %d bytes: MPI_Send took %.1f us\n", size, (MPI_Wtime() - a) * 1e6);
    } else if (rank == 1) {
        double a = MPI_Wtime();
        while (MPI_Wtime() - a < 2e-3)
            ;
        MPI_Recv(buf, size, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Bcast(&yes, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return yes;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "calibrate: run with at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char host[2][256] = {{0}};
    gethostname(host[0], 255);
    if (rank == 1) MPI_Send(host[0], 256, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
    if (rank == 0) MPI_Recv(host[1], 256, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    enum { BIG = 4 << 20, HUGE = 32 << 20 };
    char *buf = malloc(HUGE);
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 3);
    memset(buf, 1, HUGE); /* pages touched, as a program's buffers are */
    /* the eager limit first: after large transfers Open MPI made even 1 KiB
     * sends wait for their receive */
    pingpong(rank, buf, 0, 10); /* the connection */
    /* a size is eager if one of 3 sends returned early (Open MPI's shared
     * memory sometimes waits for the receiver even at 1 KiB); the scan
     * stops after two sizes that never did */
    int limit = 0, misses = 0;
    for (int s = 1024; s <= (4 << 20) && misses < 2; s *= 2) {
        int fast = eager(rank, buf, s) + eager(rank, buf, s) + eager(rank, buf, s);
        if (fast) limit = s, misses = 0; else misses++;
    }
    pingpong(rank, buf, 1 << 20, 5); /* warm up: pages */
    double lat = pingpong(rank, buf, 0, 2000);
    double t64 = pingpong(rank, buf, 64 << 10, 200), tbig = pingpong(rank, buf, BIG, 10);
    double per_byte = (tbig - t64) / (double)(BIG - (64 << 10));
    /* the cost by size, 0 B to 32 MiB, denser around the eager limit,
     * where MPIs switch protocol (and Open MPI's shared memory its copy);
     * beyond the caches (8 MiB and up) a byte costs more */
    static const int base[] = {0, 16, 256, 1024, 2048, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
                               49152, 65536, 98304, 131072, 262144, 524288, 1048576, 2097152, BIG,
                               8 << 20, 16 << 20, HUGE};
    int sz[40], ns = 0;
    for (unsigned i = 0; i < sizeof base / sizeof *base; i++) sz[ns++] = base[i];
    if (limit > 0) sz[ns++] = limit - limit / 4, sz[ns++] = limit + limit / 4, sz[ns++] = limit + limit / 2;
    for (int i = 1; i < ns; i++)
        for (int j = i; j > 0 && sz[j] < sz[j - 1]; j--) { int t = sz[j]; sz[j] = sz[j - 1]; sz[j - 1] = t; }
    for (int i = 0; i < ns; i++) {
        if (i && sz[i] == sz[i - 1]) continue;
        int reps = (int)(4000000 / ((double)sz[i] + 4096));
        double t = pingpong(rank, buf, sz[i], reps < 3 ? 3 : reps > 400 ? 400 : reps);
        if (rank == 0) printf("cost %d %.6g\n", sz[i], t * 1e6);
    }
    /* a copy in a rank's own memory (a collective's own block): 16 MiB,
     * beyond the caches, the best of 5, by rank 0 */
    double copy = 1e30;
    for (int t = 0; rank == 0 && t < 5; t++) {
        double a = MPI_Wtime();
        memcpy(buf + (16 << 20), buf, 16 << 20);
        double d = (MPI_Wtime() - a) / (16 << 20);
        copy = d < copy ? d : copy;
    }
    if (rank == 0) printf("copy_us %.6g\n", copy * 1e6);
    /* the work unit, timed as perfskel record does (psk_work.h) */
    double wt[3], unit;
    psk_work_time(wtime_ns, wt);
    unit = wt[0];
    /* and sustained: 30 pieces of about 10 ms by the first rank of each
     * host while its others sleep (not spinning in MPI), so that a CPU
     * quota shows (a short timing runs within one of its periods) and the
     * ranks' own sharing of cores does not */
    char (*hosts)[64] = calloc((size_t)size, 64), me[64] = {0};
    double *sus = calloc((size_t)size, sizeof *sus), mine = 0;
    if (!hosts || !sus) MPI_Abort(MPI_COMM_WORLD, 3);
    gethostname(me, 63);
    MPI_Allgather(me, 64, MPI_CHAR, hosts, 64, MPI_CHAR, MPI_COMM_WORLD);
    int first = rank;
    for (int q = 0; q < rank; q++)
        if (!strcmp(hosts[q], hosts[rank])) { first = q; break; }
    MPI_Barrier(MPI_COMM_WORLD);
    if (first == rank) {
        uint64_t n = (uint64_t)(1e7 / unit) + 1000;
        double a = wtime_ns();
        for (int i = 0; i < 30; i++) psk_work(n);
        mine = (wtime_ns() - a) / (30.0 * (double)n);
    }
    MPI_Request bq;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &bq);
    while (!done) { MPI_Test(&bq, &done, MPI_STATUS_IGNORE); if (!done) usleep(1000); }
    MPI_Gather(&mine, 1, MPI_DOUBLE, sus, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int q = 0; rank == 0 && q < size; q++) {
        int f = q;
        for (int k = 0; k < q; k++)
            if (!strcmp(hosts[k], hosts[q])) { f = k; break; }
        printf("sustained %d %.6g\n", q, sus[f]);
    }
    /* what a poll that finds nothing costs beyond the compute before it,
     * after pieces of compute of 5 us to 0.5 ms (beyond, as after 0.5: a CPU
     * quota's noise hides it): runs of 4 to 11 pieces (at random: runs of
     * one length kept in step with a quota's period) each followed by an
     * MPI_Test of a receive nothing matches and as many without, in turn,
     * each piece timed, for 80 ms or 800 pieces; the first quartile with
     * less the first quartile without (but the first of each run with: it
     * follows a longer gap), so that a busy machine's preemptions, which
     * only add, do not count; by the first rank
     * of each host at once (its others sleep) */
    static const double pgap[] = {5, 10, 20, 35, 50, 70, 85, 100, 120, 150, 200, 350, 500};
    enum { NP = sizeof pgap / sizeof *pgap, PR = 400 };
    double pm[2 * NP] = {0}, *pall = calloc((size_t)size * 2 * NP, sizeof *pall);
    double *tw = malloc(PR * sizeof *tw), *two = malloc(PR * sizeof *two);
    if (!pall || !tw || !two) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD);
    if (first == rank) {
        int dummy = 0, f;
        MPI_Request pr;
        MPI_Irecv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &pr);
        for (int k = 0; k < NP; k++) {
            uint64_t n = (uint64_t)(pgap[k] * 1e3 / unit) + 1;
            int reps = (int)(40000 / pgap[k]) + 16, nw = 0, nwo = 0, with = 1, left = 0;
            unsigned rng = 12345u + (unsigned)k;
            reps = reps > PR ? PR : reps;
            for (int i = 0; nw < reps || nwo < reps; i++) {
                int firstw = 0;
                if (!left) {
                    with = !with, firstw = with;
                    rng = rng * 1103515245u + 12345u;
                    left = 4 + (int)(rng >> 16) % 8;
                }
                left--;
                double a = wtime_ns();
                psk_work(n);
                if (with) MPI_Test(&pr, &f, MPI_STATUS_IGNORE);
                double d = (wtime_ns() - a) / 1e3;
                if (with && !firstw && nw < reps) tw[nw++] = d;
                if (!with && nwo < reps) two[nwo++] = d;
            }
            qsort(tw, (size_t)nw, sizeof *tw, cmp_double);
            qsort(two, (size_t)nwo, sizeof *two, cmp_double);
            pm[2 * k] = pgap[k]; /* at full speed: a quota's pauses fall between pieces */
            pm[2 * k + 1] = tw[nw / 4] - two[nwo / 4];
        }
        MPI_Send(&dummy, 1, MPI_INT, rank, 99, MPI_COMM_WORLD);
        MPI_Wait(&pr, MPI_STATUS_IGNORE);
    }
    MPI_Ibarrier(MPI_COMM_WORLD, &bq);
    done = 0;
    while (!done) { MPI_Test(&bq, &done, MPI_STATUS_IGNORE); if (!done) usleep(1000); }
    MPI_Gather(pm, 2 * NP, MPI_DOUBLE, pall, 2 * NP, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int k = 0; rank == 0 && k < NP; k++) {
        /* the mean over the hosts measured */
        double g = 0, c = 0;
        int nh = 0;
        for (int q = 0; q < size; q++) {
            int f = q;
            for (int j = 0; j < q; j++)
                if (!strcmp(hosts[j], hosts[q])) { f = j; break; }
            if (f == q) g += pall[(size_t)q * 2 * NP + 2 * k], c += pall[(size_t)q * 2 * NP + 2 * k + 1], nh++;
        }
        printf("poll %.6g %.6g\n", g / nh, c / nh);
    }
    free(pall);
    free(tw);
    free(two);
    free(hosts);
    free(sus);
    if (rank == 0) printf("unit_q %.6g %.6g\nhost %s\n", wt[1], wt[2], host[0]);
    if (rank == 0) {
        printf("ranks %d\nsame_node %d\nstart_us %.6g\nbyte_us %.6g\neager %d\nunit_ns %.6g\ncores %ld\n",
               size, !strcmp(host[0], host[1]), lat * 1e6, per_byte > 0 ? per_byte * 1e6 : 0, limit, unit,
               sysconf(_SC_NPROCESSORS_ONLN));
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
