/* Runs of polls as one merged event (src/merge/merge_poll.c), on random
 * synthetic ranks: each rank is a sequence of segments, each either an
 * ordinary call or a run of polls (MPI_Test, Testall, Testany, Testsome
 * or Iprobe on its own arguments) of 1-40 calls that found nothing, ended
 * by a call that found something, by the matching Wait-family call or
 * Probe, or by nothing (the next segment is then an ordinary call or a
 * run of the same call on other arguments). What each run must become is known from how
 * it was generated: one event of the poll function with the run's
 * arguments, its last call's results, flag = ended with completion, i1 =
 * its calls, i2 = the compute between them, spanning the run, with the
 * gap before its first call. Ordinary calls pass unchanged; merging with
 * keep_polls gives every call back exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "perfskel/merge.h"
#include "synth_trace.h"

#define MAXE 4000
#define NRANKS 2

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void) { return synth_next(&rng_state); }
static int rndn(int n) { return (int)(rnd() % (uint64_t)n); }

/* one event with its own arrays */
typedef struct owned {
    psk_event e;
    int64_t reqs[4], stat[3];
    int64_t gap; /* before it */
} owned;

typedef struct rankcase {
    owned rec[MAXE]; /* as recorded */
    int nrec;
    owned want[MAXE]; /* as merging must give them back */
    int nwant;
} rankcase;

static rankcase rc[NRANKS];

static void set_times(owned *o, uint64_t *clock, int64_t gap, uint64_t dur)
{
    *clock += (uint64_t)gap;
    o->gap = gap;
    o->e.t_entry = *clock;
    *clock += dur;
    o->e.t_exit = *clock;
}

/* a call of fn with arguments `arg` (request ids or source/tag) */
static owned *add(rankcase *c, const char *name, int arg, int found, uint64_t *clock, int64_t gap)
{
    assert_true(c->nrec < MAXE);
    owned *o = &c->rec[c->nrec++];
    memset(o, 0, sizeof *o);
    o->e.fn = psk_fn_lookup(name);
    assert_int_not_equal(o->e.fn, 0);
    o->e.fields = psk_fn_fields(o->e.fn);
    set_times(o, clock, gap, 50 + (uint64_t)rndn(400));
    int nreq = 1 + arg % 3;
    for (int k = 0; k < nreq; k++)
        o->reqs[k] = (arg + k) % 7;
    if (PSK_HAS(&o->e, PSK_F_REQ))
        o->e.v[PSK_F_REQ] = arg % 7;
    if (PSK_HAS(&o->e, PSK_F_REQS)) {
        PSK_ARRN(&o->e, PSK_F_REQS) = (uint32_t)nreq;
        PSK_ARR(&o->e, PSK_F_REQS) = o->reqs;
    }
    if (PSK_HAS(&o->e, PSK_F_PEER)) {
        o->e.v[PSK_F_COMM] = 0;
        o->e.v[PSK_F_PEER] = arg % NRANKS;
        o->e.v[PSK_F_TAG] = arg;
    }
    if (PSK_HAS(&o->e, PSK_F_COUNT))
        o->e.v[PSK_F_COUNT] = 4, o->e.v[PSK_F_DTSIZE] = 8;
    if (PSK_HAS(&o->e, PSK_F_FLAG))
        o->e.v[PSK_F_FLAG] = found;
    if (PSK_HAS(&o->e, PSK_F_INDEX))
        o->e.v[PSK_F_INDEX] = found ? arg % nreq : PSK_UNDEFINED;
    if (PSK_HAS(&o->e, PSK_F_INDICES) && found) {
        PSK_ARRN(&o->e, PSK_F_INDICES) = 1;
        PSK_ARR(&o->e, PSK_F_INDICES) = o->stat; /* index 0 */
    }
    if (PSK_HAS(&o->e, PSK_F_ASRC))
        o->e.v[PSK_F_ASRC] = found ? arg % NRANKS : PSK_ANY_SOURCE, o->e.v[PSK_F_ATAG] = found ? arg : PSK_ANY_TAG;
    return o;
}

static void keep_as_is(rankcase *c, const owned *o)
{
    c->want[c->nwant++] = *o;
    owned *w = &c->want[c->nwant - 1];
    if (PSK_HAS(&w->e, PSK_F_REQS))
        PSK_ARR(&w->e, PSK_F_REQS) = w->reqs;
    if (PSK_ARRN(&w->e, PSK_F_INDICES))
        PSK_ARR(&w->e, PSK_F_INDICES) = w->stat;
}

static const char *const polled[5] = {"MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome", "MPI_Iprobe"};
static const char *const waiter[5] = {"MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Probe"};

static void make_rank(rankcase *c)
{
    uint64_t clock = 1000000;
    c->nrec = c->nwant = 0;
    int open = 0;           /* the last segment was a run that ended without completion */
    int lastf = 0, lastarg = 0; /* and its function and arguments */
    while (c->nrec < MAXE - 50) {
        if ((open && rndn(2)) || rndn(3) == 0) { /* an ordinary call */
            owned *o = add(c, rndn(2) ? "MPI_Send" : "MPI_Barrier", rndn(5), 0, &clock, rndn(3000));
            keep_as_is(c, o);
            open = 0;
            continue;
        }
        int f = rndn(5), arg = rndn(50), fails = rndn(4) ? rndn(6) : 1 + rndn(40), end = rndn(3);
        if (open) /* right after an open run: the same call on other arguments, a run of its own */
            f = lastf, arg = (lastarg + 1 + rndn(6)) % 50 / 7 * 7 + (lastarg % 7 + 1 + rndn(6)) % 7;
        lastf = f, lastarg = arg;
        int first = c->nrec;
        int64_t work = 0;
        for (int k = 0; k < fails; k++) {
            int64_t gap = k ? rndn(5000) : rndn(3000);
            work += k ? gap : 0;
            add(c, polled[f], arg, 0, &clock, gap);
        }
        if (end < 2 || fails == 0) { /* found by a poll (0), or waited for (1) */
            int64_t gap = rndn(5000);
            work += fails ? gap : 0;
            add(c, end == 1 && fails ? waiter[f] : polled[f], arg, 1, &clock, gap);
        }
        /* what merging makes of it */
        const owned *a = &c->rec[first], *z = &c->rec[c->nrec - 1];
        owned *w = &c->want[c->nwant++];
        *w = *z;
        w->e.fn = psk_fn_poll(a->e.fn);
        assert_int_not_equal(w->e.fn, 0);
        w->e.fields = psk_fn_fields(w->e.fn);
        memcpy(w->reqs, a->reqs, sizeof w->reqs);
        if (PSK_HAS(&w->e, PSK_F_REQS)) {
            PSK_ARRN(&w->e, PSK_F_REQS) = PSK_ARRN(&a->e, PSK_F_REQS);
            PSK_ARR(&w->e, PSK_F_REQS) = w->reqs;
        }
        if (PSK_ARRN(&w->e, PSK_F_INDICES))
            PSK_ARR(&w->e, PSK_F_INDICES) = w->stat;
        if (PSK_HAS(&w->e, PSK_F_INDEX) && !PSK_HAS(&z->e, PSK_F_INDEX))
            w->e.v[PSK_F_INDEX] = PSK_UNDEFINED;
        w->e.v[PSK_F_FLAG] = end < 2 || fails == 0;
        w->e.v[PSK_F_I1] = c->nrec - first;
        w->e.v[PSK_F_I2] = work;
        w->e.t_entry = a->e.t_entry;
        w->gap = a->gap;
        open = !(end < 2 || fails == 0);
    }
}

typedef struct cmp {
    const rankcase *c;
    const owned *list;
    int n, at, bad;
} cmp;

static int check_one(void *arg, const psk_event *ev)
{
    cmp *k = arg;
    if (k->at >= k->n || !synth_event_equal(ev, &k->list[k->at].e)) {
        if (!k->bad)
            print_error("event %d: %s i1=%lld i2=%lld flag=%lld [%llu, %llu], want %s i1=%lld i2=%lld flag=%lld "
                        "[%llu, %llu]\n", k->at, psk_fn_name(ev->fn), (long long)ev->v[PSK_F_I1],
                        (long long)ev->v[PSK_F_I2], (long long)ev->v[PSK_F_FLAG],
                        (unsigned long long)ev->t_entry, (unsigned long long)ev->t_exit,
                        k->at < k->n ? psk_fn_name(k->list[k->at].e.fn) : "nothing",
                        k->at < k->n ? (long long)k->list[k->at].e.v[PSK_F_I1] : 0LL,
                        k->at < k->n ? (long long)k->list[k->at].e.v[PSK_F_I2] : 0LL,
                        k->at < k->n ? (long long)k->list[k->at].e.v[PSK_F_FLAG] : 0LL,
                        k->at < k->n ? (unsigned long long)k->list[k->at].e.t_entry : 0ULL,
                        k->at < k->n ? (unsigned long long)k->list[k->at].e.t_exit : 0ULL);
        k->bad = 1;
    }
    k->at++;
    return 0;
}

static void test_runs_of_polls(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++) {
        char *d = synth_tempdir();
        synth_job(d, 77, NRANKS, 1);
        for (int r = 0; r < NRANKS; r++) {
            make_rank(&rc[r]);
            synth_rank *s = synth_rank_open(d, r, NRANKS, 77, 1, 0);
            for (int i = 0; i < rc[r].nrec; i++)
                synth_event(s, &rc[r].rec[i].e);
            synth_end(s, (uint64_t)rc[r].nrec);
        }
        for (int keep = 0; keep < 2; keep++) {
            psk_trace *t;
            assert_int_equal(psk_trace_open(d, &t), PSK_OK);
            psk_merge_opts o = {.window = 64, .no_reorder = 1, .keep_polls = keep};
            psk_merged *m;
            int st = psk_merge(t, &o, &m);
            if (st)
                fail_msg("merge: %s", psk_merged_errmsg(m));
            for (int r = 0; r < NRANKS; r++) {
                cmp k = {.c = &rc[r], .list = keep ? rc[r].rec : rc[r].want, .n = keep ? rc[r].nrec : rc[r].nwant};
                psk_merged_expand(m, r, check_one, &k);
                if (k.bad || k.at != k.n)
                    fail_msg("round %d, rank %d, keep_polls %d: %d events back, %d expected%s", round, r, keep, k.at,
                             k.n, k.bad ? " (one differs)" : "");
            }
            psk_merged_close(m);
            psk_trace_close(t);
        }
        synth_rmdir(d);
        free(d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_runs_of_polls)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
