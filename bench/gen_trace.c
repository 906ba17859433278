/* gen_trace: writes a synthetic perfskel trace for benchmarks. The
 * default shape (--shape lu) is NPB LU's: ranks on a px x py grid, each SSOR iteration a lower sweep over
 * the k-planes (receive from north and west, send south and east), an
 * upper sweep back (the other way round), a halo exchange with Irecv, Send
 * and Wait, and an Allreduce of the residual every 5 iterations. Boundary
 * ranks skip what they have no neighbour for, so ranks' event counts
 * differ, as in the real LU (up to 2x). Times are drawn around 20 us of
 * compute and 2 us per call.
 *
 * --shape halo3d: ranks on a px x py x pz grid, each iteration a 3-D
 * neighbour exchange (an MPI_Irecv from each of the 6 neighbours, an
 * MPI_Isend to each, then an MPI_Wait for each request) and the same
 * Allreduce every 5 iterations: no wavefront, every rank in the same
 * iteration at once.
 *
 * With --proc-null, boundary ranks pass MPI_PROC_NULL instead of skipping
 * the call (as codes using MPI_Cart_shift do): every rank then makes the
 * same calls. --alltoall A ends the run with an all-to-all phase: A
 * iterations of compute and an MPI_Alltoall of 8 doubles a peer.
 *
 * usage: gen_trace OUTDIR [--ranks P] [--events N] [--planes K] [--seed S] [--proc-null]
 *                  [--shape lu|halo3d] [--alltoall A]
 *   N: events of the busiest rank (default 324355: NPB LU class C on 16
 *      ranks in Table 1 of Zhang et al., "Parallel Job Performance
 *      Prediction Based on the Case Reconstruction", Journal of Software 2010)
 * Ranks are written one after the other, each file open only while it is
 * written: any number of ranks (up to 65,536) within a small open-file limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfskel/trace.h"

typedef struct gen {
    psk_trace_writer *w;
    int px, py, pz, P, planes, proc_null, halo3d;
    uint64_t *clock, *count, rng;
    unsigned f_init, f_fin, f_send, f_recv, f_irecv, f_isend, f_wait, f_allreduce, f_barrier, f_alltoall;
} gen;

static uint64_t rnd(gen *g)
{
    g->rng ^= g->rng << 13;
    g->rng ^= g->rng >> 7;
    g->rng ^= g->rng << 17;
    return g->rng;
}

static void event(gen *g, int r, unsigned fn, int peer, int tag, int count, int64_t req, int with_write)
{
    if (peer == -1 && fn != g->f_wait && fn != g->f_allreduce && fn != g->f_init && fn != g->f_fin &&
        fn != g->f_barrier && fn != g->f_alltoall) {
        if (!g->proc_null)
            return; /* no neighbour: the call is skipped */
        peer = PSK_PROC_NULL;
    }
    psk_event ev;
    memset(&ev, 0, sizeof ev);
    ev.fn = fn;
    ev.fields = psk_fn_fields(fn);
    g->clock[r] += 15000 + rnd(g) % 10000;
    ev.t_entry = g->clock[r];
    g->clock[r] += 1000 + rnd(g) % 2000;
    ev.t_exit = g->clock[r];
    ev.v[PSK_F_COMM] = 0;
    ev.v[PSK_F_PEER] = peer;
    ev.v[PSK_F_TAG] = tag;
    ev.v[PSK_F_COUNT] = count;
    ev.v[PSK_F_DTSIZE] = 8;
    ev.v[PSK_F_ASRC] = peer;
    ev.v[PSK_F_ATAG] = tag;
    ev.v[PSK_F_OP] = PSK_OP_SUM;
    ev.v[PSK_F_REQ] = req;
    ev.v[PSK_F_I1] = 0;
    if (fn == g->f_alltoall)
        ev.v[PSK_F_RCOUNT] = count, ev.v[PSK_F_RDTSIZE] = 8;
    if (with_write && psk_writer_event(g->w, r, &ev)) {
        fprintf(stderr, "gen_trace: %s\n", psk_writer_errmsg(g->w));
        exit(1);
    }
    g->count[r]++;
}

/* one iteration of the 3-D exchange of rank r: its 6 neighbours (-1: none)
 * at x - 1, x + 1, y - 1, ...; a message sent towards direction d has tag
 * 20 + d, received from the opposite neighbour */
static void halo3d(gen *g, int r, int it, int write)
{
    int x = r % g->px, y = r / g->px % g->py, z = r / (g->px * g->py), plane = g->px * g->py;
    int nb[6] = {x > 0 ? r - 1 : -1, x < g->px - 1 ? r + 1 : -1,
                 y > 0 ? r - g->px : -1, y < g->py - 1 ? r + g->px : -1,
                 z > 0 ? r - plane : -1, z < g->pz - 1 ? r + plane : -1};
    for (int d = 0; d < 6; d++)
        event(g, r, g->f_irecv, nb[d], 20 + (d ^ 1), 4096, 1 + d, write);
    for (int d = 0; d < 6; d++)
        event(g, r, g->f_isend, nb[d], 20 + d, 4096, 7 + d, write);
    for (int d = 0; d < 12; d++)
        if (nb[d % 6] >= 0 || g->proc_null)
            event(g, r, g->f_wait, 0, 0, 0, 1 + d, write);
    if (it % 5 == 0)
        event(g, r, g->f_allreduce, 0, 0, 5, 0, write);
}

/* one SSOR iteration of rank r (counting only when write is 0) */
static void iteration(gen *g, int r, int it, int write)
{
    if (g->halo3d) {
        halo3d(g, r, it, write);
        return;
    }
    int x = r % g->px, y = r / g->px;
    int north = y > 0 ? r - g->px : -1, south = y < g->py - 1 ? r + g->px : -1;
    int west = x > 0 ? r - 1 : -1, east = x < g->px - 1 ? r + 1 : -1;
    for (int k = 1; k < g->planes - 1; k++) { /* lower triangular sweep */
        event(g, r, g->f_recv, north, 1, 5 * 64, 0, write);
        event(g, r, g->f_recv, west, 2, 5 * 64, 0, write);
        event(g, r, g->f_send, south, 1, 5 * 64, 0, write);
        event(g, r, g->f_send, east, 2, 5 * 64, 0, write);
    }
    for (int k = g->planes - 2; k > 0; k--) { /* upper triangular sweep */
        event(g, r, g->f_recv, south, 3, 5 * 64, 0, write);
        event(g, r, g->f_recv, east, 4, 5 * 64, 0, write);
        event(g, r, g->f_send, north, 3, 5 * 64, 0, write);
        event(g, r, g->f_send, west, 4, 5 * 64, 0, write);
    }
    int nb[4] = {north, south, west, east};
    for (int d = 0; d < 4; d++) { /* exchange_3: Irecv, Send, Wait per direction */
        int from = nb[d ^ 1], to = nb[d];
        event(g, r, g->f_irecv, from, 10 + d, 5 * 66 * 2, 0, write);
        event(g, r, g->f_send, to, 10 + d, 5 * 66 * 2, 0, write);
        if (from >= 0 || g->proc_null)
            event(g, r, g->f_wait, 0, 0, 0, 0, write);
    }
    if (it % 5 == 0)
        event(g, r, g->f_allreduce, 0, 0, 5, 0, write);
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    long P = 16, target = 324355, planes = 64;
    unsigned long long seed = 1;
    int proc_null = 0, shape3d = 0;
    long a2a = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ranks") && i + 1 < argc) P = atol(argv[++i]);
        else if (!strcmp(argv[i], "--events") && i + 1 < argc) target = atol(argv[++i]);
        else if (!strcmp(argv[i], "--planes") && i + 1 < argc) planes = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--proc-null")) proc_null = 1;
        else if (!strcmp(argv[i], "--alltoall") && i + 1 < argc) a2a = atol(argv[++i]);
        else if (!strcmp(argv[i], "--shape") && i + 1 < argc &&
                 (!strcmp(argv[i + 1], "lu") || !strcmp(argv[i + 1], "halo3d")))
            shape3d = !strcmp(argv[++i], "halo3d");
        else if (argv[i][0] != '-' && !out) out = argv[i];
        else {
            fprintf(stderr, "usage: gen_trace OUTDIR [--ranks P] [--events N] [--planes K] [--seed S] [--proc-null] "
                            "[--shape lu|halo3d] [--alltoall A]\n");
            return 2;
        }
    }
    if (!out || P < 1 || P > 65536 || target < 10 || planes < 3 || a2a < 0) {
        fprintf(stderr, "usage: gen_trace OUTDIR [--ranks P] [--events N] [--planes K] [--seed S] [--proc-null] "
                        "[--shape lu|halo3d] [--alltoall A]\n");
        return 2;
    }
    gen g = {.P = (int)P, .planes = (int)planes, .proc_null = proc_null, .halo3d = shape3d,
             .rng = seed * 0x9E3779B97F4A7C15ull + 1};
    g.px = 1, g.pz = 1;
    if (shape3d) { /* the cube root's power of two, or less, dividing P; then a square of the rest */
        while ((g.pz * 2) * (g.pz * 2) * (g.pz * 2) <= P)
            g.pz *= 2;
        while (P % g.pz)
            g.pz--;
    }
    long rest = P / g.pz;
    while ((g.px * 2) * (g.px * 2) <= rest)
        g.px *= 2;
    while (rest % g.px)
        g.px--;
    g.py = (int)rest / g.px;
    g.f_init = psk_fn_lookup("MPI_Init");
    g.f_fin = psk_fn_lookup("MPI_Finalize");
    g.f_send = psk_fn_lookup("MPI_Send");
    g.f_recv = psk_fn_lookup("MPI_Recv");
    g.f_irecv = psk_fn_lookup("MPI_Irecv");
    g.f_isend = psk_fn_lookup("MPI_Isend");
    g.f_alltoall = psk_fn_lookup("MPI_Alltoall");
    g.f_wait = psk_fn_lookup("MPI_Wait");
    g.f_allreduce = psk_fn_lookup("MPI_Allreduce");
    g.f_barrier = psk_fn_lookup("MPI_Barrier");
    g.clock = calloc((size_t)P, sizeof *g.clock);
    g.count = calloc((size_t)P, sizeof *g.count);
    /* iterations so that the busiest rank has about `target` events */
    uint64_t per = 0;
    for (int r = 0; r < P; r++) {
        g.count[r] = 0;
        iteration(&g, r, 1, 0);
        if (g.count[r] > per)
            per = g.count[r];
    }
    long iters = (long)((uint64_t)target / (per ? per : 1));
    if (iters < 1)
        iters = 1;
    psk_job job = {.job_id = 0x5eed0000ull + seed, .nranks = (int)P, .flavour = PSK_MPI_OPENMPI,
                   .mpi_version = "synthetic",
                   .command = shape3d ? "gen_trace (3-D halo exchange)" : "gen_trace (NPB LU-shaped)"};
    uint64_t *start = calloc((size_t)P, sizeof *start);
    if (psk_writer_open(out, &job, start, &g.w)) {
        fprintf(stderr, "gen_trace: %s\n", psk_writer_errmsg(g.w));
        return 1;
    }
    uint64_t total = 0, most = 0;
    for (int r = 0; r < P; r++) {
        g.count[r] = 0;
        g.clock[r] = 0;
        event(&g, r, g.f_init, 0, 0, 0, 0, 1);
        for (long it = 1; it <= iters; it++)
            iteration(&g, r, (int)it, 1);
        for (long it = 0; it < a2a; it++) /* the all-to-all phase */
            event(&g, r, g.f_alltoall, 0, 0, 8, 0, 1);
        event(&g, r, g.f_barrier, 0, 0, 0, 0, 1);
        event(&g, r, g.f_fin, 0, 0, 0, 0, 1);
        if (psk_writer_end_rank(g.w, r)) { /* one rank's buffer and file at a time */
            fprintf(stderr, "gen_trace: %s\n", psk_writer_errmsg(g.w));
            return 1;
        }
        total += g.count[r];
        if (g.count[r] > most)
            most = g.count[r];
    }
    if (psk_writer_close(g.w)) {
        fprintf(stderr, "gen_trace: %s\n", psk_writer_errmsg(g.w));
        return 1;
    }
    psk_writer_free(g.w);
    printf("%s: %ld ranks (%d x %d x %d), %ld iterations, %ld all-to-all, %llu events, busiest rank %llu\n", out, P,
           g.px, g.py, g.pz, iters, a2a, (unsigned long long)total, (unsigned long long)most);
    free(start);
    free(g.clock);
    free(g.count);
    return 0;
}
