/* synth_threads DIR VERSION THREADS: writes a 2-rank trace (perfskel's
 * writer) in trace format VERSION whose ranks asked MPI_Init_thread for
 * MPI_THREAD_MULTIPLE and got it, then exchange 20 messages around
 * compute and end with an MPI_Allreduce. With format 4, rank 1's calls
 * after MPI_Init_thread come from THREADS threads in turn (1: every call
 * from the thread that initialised MPI); older formats record no threads
 * (THREADS must be 1). For tests/cli/onethread.sh: a trace of several
 * threads, or of a perfskel that did not record them, is refused by gen
 * and sim, one of a single thread is not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfskel/trace.h"

static uint64_t clock_[2];

static psk_event ev(const char *fn, int r, uint64_t gap_ns, uint64_t dur_ns)
{
    psk_event e;
    memset(&e, 0, sizeof e);
    e.fn = psk_fn_lookup(fn);
    e.fields = psk_fn_fields(e.fn);
    clock_[r] += gap_ns;
    e.t_entry = clock_[r];
    clock_[r] += dur_ns;
    e.t_exit = clock_[r];
    return e;
}

int main(int argc, char **argv)
{
    int version = argc == 4 ? atoi(argv[2]) : 0, threads = argc == 4 ? atoi(argv[3]) : 0;
    if (argc != 4 || version < 1 || threads < 1 || (version < PSK_FORMAT_VERSION_THREADS && threads > 1)) {
        fprintf(stderr, "usage: synth_threads DIR VERSION THREADS (THREADS 1 before version %d)\n",
                PSK_FORMAT_VERSION_THREADS);
        return 2;
    }
    static const double unit[2] = {1.0, 1.0};
    static const char *const hosts[2] = {"h", "h"};
    psk_job job = {.job_id = 4747, .nranks = 2, .flavour = PSK_MPI_OPENMPI, .mpi_version = "synthetic",
                   .work_kernel = "fma-chain-1", .work_ns_per_unit = unit, .hosts = hosts,
                   .format_version = version};
    psk_trace_writer *w;
    if (psk_writer_open(argv[1], &job, NULL, &w) != PSK_OK) {
        fprintf(stderr, "synth_threads: %s\n", psk_writer_errmsg(w));
        psk_writer_free(w);
        return 1;
    }
    int rc = 0;
    for (int r = 0; r < 2 && !rc; r++) {
        psk_event e = ev("MPI_Init_thread", r, 0, 1000);
        e.v[PSK_F_I1] = e.v[PSK_F_I2] = 3; /* MPI_THREAD_MULTIPLE in both MPIs */
        rc |= psk_writer_event(w, r, &e);
        for (int i = 0; i < 20 && !rc; i++) {
            e = ev(r ? "MPI_Recv" : "MPI_Send", r, 1000000, 5000);
            e.v[PSK_F_COMM] = 0, e.v[PSK_F_PEER] = 1 - r, e.v[PSK_F_TAG] = 7;
            e.v[PSK_F_COUNT] = 64, e.v[PSK_F_DTSIZE] = 8;
            if (r)
                e.v[PSK_F_ASRC] = 0, e.v[PSK_F_ATAG] = 7;
            e.thread = r ? i % threads : 0;
            rc |= psk_writer_event(w, r, &e);
        }
        e = ev("MPI_Allreduce", r, 1000000, 5000);
        e.v[PSK_F_COMM] = 0, e.v[PSK_F_COUNT] = 1, e.v[PSK_F_DTSIZE] = 8, e.v[PSK_F_OP] = PSK_OP_SUM;
        e.v[PSK_F_RCOUNT] = 1, e.v[PSK_F_RDTSIZE] = 8;
        rc |= psk_writer_event(w, r, &e);
        e = ev("MPI_Finalize", r, 1000, 1000);
        rc |= psk_writer_event(w, r, &e);
    }
    if (rc || psk_writer_close(w) != PSK_OK) {
        fprintf(stderr, "synth_threads: %s\n", psk_writer_errmsg(w));
        psk_writer_free(w);
        return 1;
    }
    psk_writer_free(w);
    return 0;
}
