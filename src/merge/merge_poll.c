/* Polls as one event: while a rank is loaded for merging, a run of calls
 * to MPI_Test, Testall, Testany, Testsome or Iprobe from one thread with the same
 * arguments that found nothing, with compute between them, becomes one
 * event of the poll function ("poll:MPI_Testall", trace.h): its arguments,
 * the results of the call that ended the run, FLAG = whether the run ended
 * with completion (a call that found something, or the matching Wait,
 * Waitall, Waitany, Waitsome or Probe, which the run takes in), I1 = the
 * test calls made, I2 = ns of compute between them. How many polls a step
 * makes is how long a message took, which differs from step to step and
 * rank to rank; as one event, the steps are alike again, and fold, gen and
 * sim see the compute the polling overlapped. */
#include <string.h>

#include "merge_internal.h"

/* the poll function of a call that can be polled, and in *wait the Wait
 * family call (or Probe) that ends a run of its polls by waiting; 0 for
 * other calls (table lookups: this runs once per event merged) */
static unsigned poll_fn(unsigned fn, unsigned *wait)
{
    *wait = psk_fn_poll_wait(fn);
    return psk_fn_poll(fn);
}

/* same arguments: the request (or array of them), or source, tag and comm */
static int same_args(const psk_event *a, const psk_event *b)
{
    if (PSK_HAS(a, PSK_F_REQ) != PSK_HAS(b, PSK_F_REQ) || PSK_HAS(a, PSK_F_REQS) != PSK_HAS(b, PSK_F_REQS) ||
        PSK_HAS(a, PSK_F_PEER) != PSK_HAS(b, PSK_F_PEER))
        return 0;
    if (PSK_HAS(a, PSK_F_REQ) && a->v[PSK_F_REQ] != b->v[PSK_F_REQ])
        return 0;
    if (PSK_HAS(a, PSK_F_PEER) &&
        (a->v[PSK_F_PEER] != b->v[PSK_F_PEER] || a->v[PSK_F_TAG] != b->v[PSK_F_TAG] ||
         a->v[PSK_F_COMM] != b->v[PSK_F_COMM]))
        return 0;
    if (PSK_HAS(a, PSK_F_REQS)) {
        uint32_t n = PSK_ARRN(a, PSK_F_REQS);
        if (n != PSK_ARRN(b, PSK_F_REQS) ||
            (n && memcmp(PSK_ARR(a, PSK_F_REQS), PSK_ARR(b, PSK_F_REQS), n * sizeof(int64_t))))
            return 0;
    }
    return 1;
}

void pollrun_free(pollrun *p)
{
    mevent_store_free(&p->st_first);
    mevent_store_free(&p->st_last);
    p->on = 0;
}

/* the run as one event of the poll function */
static int finish(pollrun *p, psk_event *out, int64_t *gap)
{
    unsigned wait, pf = poll_fn(p->first.fn, &wait);
    *out = p->last;
    out->fn = pf;
    out->fields = psk_fn_fields(pf);
    /* the arguments are the run's; the results its last call's */
    if (PSK_HAS(out, PSK_F_REQS)) {
        out->n[PSK_F_REQS - PSK_F_FIRST_ARRAY] = PSK_ARRN(&p->first, PSK_F_REQS);
        out->arr[PSK_F_REQS - PSK_F_FIRST_ARRAY] = PSK_ARR(&p->first, PSK_F_REQS);
    }
    if (!PSK_HAS(&p->last, PSK_F_INDICES) && PSK_HAS(out, PSK_F_INDICES)) {
        out->n[PSK_F_INDICES - PSK_F_FIRST_ARRAY] = 0;
        out->arr[PSK_F_INDICES - PSK_F_FIRST_ARRAY] = NULL;
    }
    if (!PSK_HAS(&p->last, PSK_F_STATUSES) && PSK_HAS(out, PSK_F_STATUSES)) {
        out->n[PSK_F_STATUSES - PSK_F_FIRST_ARRAY] = 0;
        out->arr[PSK_F_STATUSES - PSK_F_FIRST_ARRAY] = NULL;
    }
    for (int f = 0; f < PSK_F_FIRST_ARRAY; f++)
        if (!PSK_HAS(&p->last, f) && PSK_HAS(out, f))
            out->v[f] = PSK_HAS(&p->first, f) ? p->first.v[f] : 0;
    if (!PSK_HAS(&p->last, PSK_F_INDEX) && PSK_HAS(out, PSK_F_INDEX))
        out->v[PSK_F_INDEX] = PSK_UNDEFINED;
    out->v[PSK_F_FLAG] = p->done;
    out->v[PSK_F_I1] = p->calls;
    out->v[PSK_F_I2] = p->work;
    out->t_entry = p->first.t_entry;
    out->t_exit = p->last.t_exit;
    *gap = p->gap;
    p->on = 0;
    return 1;
}

int pollrun_feed(pollrun *p, const psk_event *ev, int64_t gap, psk_event *out, int64_t *out_gap, int *taken)
{
    *taken = 0;
    if (p->on) { /* a run is pending (one that ended was handed out) */
        unsigned wait;
        poll_fn(p->first.fn, &wait);
        if ((ev->fn == p->first.fn || ev->fn == wait) && ev->thread == p->first.thread && same_args(&p->first, ev)) {
            if (mevent_copy(&p->last, ev, &p->st_last))
                return -1;
            p->work += gap > 0 ? gap : 0;
            p->calls++;
            p->done = ev->fn != p->first.fn || psk_event_found(ev);
            *taken = 1;
            return p->done ? finish(p, out, out_gap) : 0;
        }
        return finish(p, out, out_gap); /* ev is not taken: the caller feeds it again */
    }
    unsigned wait;
    if (!poll_fn(ev->fn, &wait))
        return 0;
    if (mevent_copy(&p->first, ev, &p->st_first) || mevent_copy(&p->last, ev, &p->st_last))
        return -1;
    p->on = 1;
    p->gap = gap;
    p->calls = 1;
    p->work = 0;
    p->done = psk_event_found(ev);
    *taken = 1;
    return p->done ? finish(p, out, out_gap) : 0;
}

int pollrun_flush(pollrun *p, psk_event *out, int64_t *gap)
{
    return p->on ? finish(p, out, gap) : 0;
}
