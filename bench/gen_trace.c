/* gen_trace: writes a synthetic perfskel trace for benchmarks, shaped like
 * NPB LU: ranks on a px x py grid, each SSOR iteration a lower sweep over
 * the k-planes (receive from north and west, send south and east), an
 * upper sweep back (the other way round), a halo exchange with Irecv, Send
 * and Wait, and an Allreduce of the residual every 5 iterations. Boundary
 * ranks skip what they have no neighbour for, so ranks' event counts
 * differ, as in the real LU (up to 2x). Times are drawn around 20 us of
 * compute and 2 us per call.
 *
 * With --proc-null, boundary ranks pass MPI_PROC_NULL instead of skipping
 * the call (as codes using MPI_Cart_shift do): every rank then makes the
 * same calls.
 *
 * usage: gen_trace OUTDIR [--ranks P] [--events N] [--planes K] [--seed S] [--proc-null]
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
    int px, py, P, planes, proc_null;
    uint64_t *clock, *count, rng;
    unsigned f_init, f_fin, f_send, f_recv, f_irecv, f_wait, f_allreduce, f_barrier;
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
        fn != g->f_barrier) {
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
    if (with_write && psk_writer_event(g->w, r, &ev)) {
        fprintf(stderr, "gen_trace: %s\n", psk_writer_errmsg(g->w));
        exit(1);
    }
    g->count[r]++;
}

/* one SSOR iteration of rank r (counting only when write is 0) */
static void iteration(gen *g, int r, int it, int write)
{
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
    int proc_null = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ranks") && i + 1 < argc) P = atol(argv[++i]);
        else if (!strcmp(argv[i], "--events") && i + 1 < argc) target = atol(argv[++i]);
        else if (!strcmp(argv[i], "--planes") && i + 1 < argc) planes = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--proc-null")) proc_null = 1;
        else if (argv[i][0] != '-' && !out) out = argv[i];
        else {
            fprintf(stderr, "usage: gen_trace OUTDIR [--ranks P] [--events N] [--planes K] [--seed S] [--proc-null]\n");
            return 2;
        }
    }
    if (!out || P < 1 || P > 65536 || target < 10 || planes < 3) {
        fprintf(stderr, "usage: gen_trace OUTDIR [--ranks P] [--events N] [--planes K] [--seed S]\n");
        return 2;
    }
    gen g = {.P = (int)P, .planes = (int)planes, .proc_null = proc_null, .rng = seed * 0x9E3779B97F4A7C15ull + 1};
    g.px = 1;
    while ((g.px * 2) * (g.px * 2) <= P)
        g.px *= 2;
    while (P % g.px)
        g.px--;
    g.py = (int)P / g.px;
    g.f_init = psk_fn_lookup("MPI_Init");
    g.f_fin = psk_fn_lookup("MPI_Finalize");
    g.f_send = psk_fn_lookup("MPI_Send");
    g.f_recv = psk_fn_lookup("MPI_Recv");
    g.f_irecv = psk_fn_lookup("MPI_Irecv");
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
                   .mpi_version = "synthetic", .command = "gen_trace (NPB LU-shaped)"};
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
    printf("%s: %ld ranks (%d x %d), %ld iterations, %llu events, busiest rank %llu\n", out, P, g.px, g.py,
           iters, (unsigned long long)total, (unsigned long long)most);
    free(start);
    free(g.clock);
    free(g.count);
    return 0;
}
