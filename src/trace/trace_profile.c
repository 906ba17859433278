/* A rank's profile as perfskel stats gives it, mpiP's way: its run time
 * (mpiP's AppTime: MPI_Init's exit to MPI_Finalize's entry), the time in
 * MPI calls within it (MPI_Init and MPI_Finalize listed but not counted),
 * and per function (and per arm of a tuned collective) its calls, bytes
 * and time. A damaged rank is profiled up to its last good block. Nothing
 * here needs more than one rank's events: stats, check and gen (on the
 * merged trace) all count the run time this way. */
#include <stdlib.h>
#include <string.h>

#include "perfskel/trace.h"

void psk_trace_apptime_start(psk_trace_apptime *a, uint64_t mono_start)
{
    a->first = mono_start;
    a->last = 0;
}

int psk_trace_apptime_add(psk_trace_apptime *a, const psk_event *ev)
{
    int op = psk_fn_op(ev->fn);
    if (op == PSK_FNOP_FINALIZE) {
        a->last = ev->t_entry;
        return 1;
    }
    a->last = ev->t_exit;
    if (op == PSK_FNOP_INIT) {
        a->first = ev->t_exit;
        return 1;
    }
    return 0;
}

uint64_t psk_trace_apptime_ns(const psk_trace_apptime *a)
{
    return a->last > a->first ? a->last - a->first : 0;
}

int psk_trace_profile_rank(psk_trace *t, int rank, psk_trace_profile *s)
{
    unsigned nfn = psk_fn_count();
    size_t narm = (size_t)psk_arm_count();
    psk_rank_reader *rr;
    psk_event ev;
    psk_trace_apptime at;
    memset(s, 0, sizeof *s);
    if (!(s->fn = calloc(nfn, sizeof *s->fn)))
        return PSK_ENOMEM;
    int rc = psk_rank_open(t, rank, &rr);
    psk_trace_apptime_start(&at, rc == PSK_OK ? psk_rank_mono_start(rr) : 0);
    while (rc == PSK_OK && (rc = psk_rank_next(rr, &ev)) == PSK_OK) {
        psk_trace_fnstat *f = &s->fn[ev.fn];
        uint64_t b = psk_event_bytes(&ev), d = ev.t_exit - ev.t_entry;
        f->calls++;
        f->bytes += b;
        f->ns += d;
        /* the arms' table made at the first tuned event (none if memory ran out) */
        if (psk_trace_job(t)->format_version >= 2 && psk_fn_tuned(ev.fn) &&
            (s->arm || (s->arm = calloc((size_t)nfn * narm, sizeof *s->arm)))) {
            psk_trace_fnstat *a = &s->arm[(size_t)ev.fn * narm + (size_t)ev.arm];
            a->calls++;
            a->bytes += b;
            a->ns += d;
        }
        s->bytes += b;
        s->events++;
        if (!psk_trace_apptime_add(&at, &ev))
            s->mpi_ns += d;
    }
    /* format 3 carries an arm without the tuning library too: all
     * "not known" (0) is no table */
    int known = 0;
    for (size_t k = 0; s->arm && k < (size_t)nfn * narm; k++)
        known |= k % narm && s->arm[k].calls;
    if (s->arm && !known) {
        free(s->arm);
        s->arm = NULL;
    }
    s->complete = rc == PSK_EOF;
    if (!s->complete)
        s->error = strdup(psk_rank_errmsg(rr));
    s->wall_ns = psk_trace_apptime_ns(&at);
    psk_rank_close(rr);
    return PSK_OK;
}

void psk_trace_profile_free(psk_trace_profile *s)
{
    if (!s)
        return;
    free(s->fn);
    free(s->arm);
    free(s->error);
    memset(s, 0, sizeof *s);
}
