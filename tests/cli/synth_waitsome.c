/* synth_waitsome DIR: writes a 2-rank trace (perfskel's writer) whose
 * rank 0 posts two receives and completes both with one MPI_Waitsome,
 * while rank 1 sends the second 300 ms after the first. A skeleton
 * replays rank 1's 300 ms of compute, so its Waitsome would return the
 * first receive alone and leave the second pending, as the original never
 * did (tests/cli/waitsome.sh checks that it does not). Then the same with
 * a nonblocking allreduce in the array, completed by a Testsome, before
 * the communicator it ran on is freed. */
#include <stdio.h>
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

static int put(psk_trace_writer *w, int r, psk_event *e)
{
    if (psk_writer_event(w, r, e) != PSK_OK) {
        fprintf(stderr, "synth_waitsome: %s\n", psk_writer_errmsg(w));
        return -1;
    }
    return 0;
}

static int p2p(psk_trace_writer *w, int r, const char *fn, int peer, int tag, int req, uint64_t gap)
{
    psk_event e = ev(fn, r, gap, 2000);
    e.v[PSK_F_COMM] = 0, e.v[PSK_F_PEER] = peer, e.v[PSK_F_TAG] = tag;
    e.v[PSK_F_COUNT] = 4, e.v[PSK_F_DTSIZE] = 8;
    if (PSK_HAS(&e, PSK_F_REQ))
        e.v[PSK_F_REQ] = req;
    return put(w, r, &e);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: synth_waitsome DIR\n");
        return 2;
    }
    static const double unit[2] = {1.0, 1.0};
    static const char *const hosts[2] = {"h", "h"};
    psk_job job = {.job_id = 4343, .nranks = 2, .flavour = PSK_MPI_OPENMPI, .mpi_version = "synthetic",
                   .work_kernel = "fma-chain-1", .work_ns_per_unit = unit, .hosts = hosts};
    psk_trace_writer *w;
    if (psk_writer_open(argv[1], &job, NULL, &w) != PSK_OK) {
        fprintf(stderr, "synth_waitsome: cannot write %s\n", argv[1]);
        return 1;
    }
    const uint64_t late = 300000000; /* rank 1's compute between its two sends, ns */
    int rc = 0;
    for (int r = 0; r < 2 && !rc; r++) {
        psk_event e = ev("MPI_Init", r, 0, 1000);
        rc |= put(w, r, &e);
        e = ev("MPI_Comm_dup", r, 1000, 1000); /* communicator 2 */
        e.v[PSK_F_COMM] = 0, e.v[PSK_F_NEWID] = 2;
        int64_t members[2] = {0, 1};
        PSK_ARR(&e, PSK_F_MEMBERS) = members, PSK_ARRN(&e, PSK_F_MEMBERS) = 2;
        rc |= put(w, r, &e);
        if (r == 0) {
            /* both receives completed by one Waitsome */
            rc |= p2p(w, r, "MPI_Irecv", 1, 1, 0, 1000) | p2p(w, r, "MPI_Irecv", 1, 2, 1, 1000);
            e = ev("MPI_Waitsome", r, 1000, late);
            int64_t reqs[2] = {0, 1}, idx[2] = {0, 1};
            PSK_ARR(&e, PSK_F_REQS) = reqs, PSK_ARRN(&e, PSK_F_REQS) = 2;
            PSK_ARR(&e, PSK_F_INDICES) = idx, PSK_ARRN(&e, PSK_F_INDICES) = 2;
            rc |= put(w, r, &e);
            /* a receive and an Iallreduce on communicator 2, both done by
             * the Testsome (the allreduce waits for rank 1's compute) */
            rc |= p2p(w, r, "MPI_Irecv", 1, 3, 0, 1000);
            e = ev("MPI_Iallreduce", r, 1000, 2000);
            e.v[PSK_F_COMM] = 2, e.v[PSK_F_COUNT] = 1, e.v[PSK_F_DTSIZE] = 8, e.v[PSK_F_OP] = PSK_OP_SUM;
            e.v[PSK_F_REQ] = 1;
            rc |= put(w, r, &e);
            e = ev("MPI_Testsome", r, late + 1000, 1000);
            PSK_ARR(&e, PSK_F_REQS) = reqs, PSK_ARRN(&e, PSK_F_REQS) = 2;
            PSK_ARR(&e, PSK_F_INDICES) = idx, PSK_ARRN(&e, PSK_F_INDICES) = 2;
            rc |= put(w, r, &e);
        } else {
            rc |= p2p(w, r, "MPI_Send", 0, 1, 0, 1000) | p2p(w, r, "MPI_Send", 0, 2, 0, late);
            rc |= p2p(w, r, "MPI_Send", 0, 3, 0, 1000);
            e = ev("MPI_Iallreduce", r, late, 2000);
            e.v[PSK_F_COMM] = 2, e.v[PSK_F_COUNT] = 1, e.v[PSK_F_DTSIZE] = 8, e.v[PSK_F_OP] = PSK_OP_SUM;
            e.v[PSK_F_REQ] = 0;
            rc |= put(w, r, &e);
            e = ev("MPI_Wait", r, 1000, 1000);
            e.v[PSK_F_REQ] = 0;
            rc |= put(w, r, &e);
        }
        e = ev("MPI_Comm_free", r, 1000, 1000);
        e.v[PSK_F_COMM] = 2;
        rc |= put(w, r, &e);
        e = ev("MPI_Finalize", r, 1000, 1000);
        rc |= put(w, r, &e);
    }
    if (rc || psk_writer_close(w) != PSK_OK) {
        fprintf(stderr, "synth_waitsome: %s\n", psk_writer_errmsg(w));
        psk_writer_free(w);
        return 1;
    }
    psk_writer_free(w);
    return 0;
}
