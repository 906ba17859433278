/* perfskel advise --trace: a synthetic trace of the advised plan, in
 * perfskel's own format (include/perfskel/trace.h), for `perfskel sim` to
 * replay on any machine (docs/advise.md "The trace and the simulator").
 * Each nest's execution (and each redistribution) is walked once with
 * psk_adv_nest_walk / psk_adv_redist_walk into a script of compute steps
 * and message lists, then played repeat x count times: a message list is
 * an MPI_Isend per sender and an MPI_Irecv per receiver of every
 * (src, dst, bytes), then an MPI_Waitall on each rank involved (a
 * reduction comes as several lists: a gather and a broadcast, or the
 * rounds of their trees).
 * Compute is the gap before a rank's next event. Nothing is written when
 * the trace would hold more than ADV_TRACE_MAX events. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise_internal.h"
#include "perfskel/trace.h"

#define ADV_TRACE_MAX 50000000LL /* events, over all ranks */
#define TAG_MOD 32768            /* MPI_TAG_UB is at least 32767 */

/* ---- a script: one walk, recorded ---- */

typedef struct step {
    int kind;        /* enum adv_op, or -1: compute */
    int64_t off, n;  /* messages msg[off .. off+n), or compute us[off .. off+P) */
} step;

typedef struct script {
    step *st;
    int64_t nst, capst;
    adv_msg *msg;
    int64_t nmsg, capmsg;
    double *us;
    int64_t nus, capus;
    int64_t P;
    int64_t events;  /* what one play writes, over all ranks */
    char *seen;      /* P: scratch for counting the ranks of a list */
} script;

static int grow(void **v, int64_t *cap, int64_t need, size_t size)
{
    if (need <= *cap)
        return PSK_OK;
    int64_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    void *x = realloc(*v, (size_t)nc * size);
    if (!x)
        return PSK_ENOMEM;
    *v = x, *cap = nc;
    return PSK_OK;
}

static int add_step(script *s, int kind, int64_t off, int64_t n)
{
    if (grow((void **)&s->st, &s->capst, s->nst + 1, sizeof *s->st))
        return PSK_ENOMEM;
    s->st[s->nst++] = (step){kind, off, n};
    return PSK_OK;
}

/* the ranks one phase's Waitalls are on */
static int64_t phase_ranks(script *s, const adv_msg *m, int64_t n)
{
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        k += !s->seen[m[i].src] + !s->seen[m[i].dst];
        s->seen[m[i].src] = s->seen[m[i].dst] = 1;
    }
    for (int64_t i = 0; i < n; i++)
        s->seen[m[i].src] = s->seen[m[i].dst] = 0;
    return k;
}

static int rec_compute(void *ctx, const double *us)
{
    script *s = ctx;
    if (grow((void **)&s->us, &s->capus, s->nus + s->P, sizeof *s->us))
        return PSK_ENOMEM;
    memcpy(s->us + s->nus, us, (size_t)s->P * sizeof *us);
    s->nus += s->P;
    return add_step(s, -1, s->nus - s->P, s->P);
}

static int rec_ops(void *ctx, int kind, const adv_msg *m, int64_t n)
{
    script *s = ctx;
    if (grow((void **)&s->msg, &s->capmsg, s->nmsg + n, sizeof *s->msg))
        return PSK_ENOMEM;
    memcpy(s->msg + s->nmsg, m, (size_t)n * sizeof *m);
    s->nmsg += n;
    s->events += 2 * n + phase_ranks(s, m, n);
    return add_step(s, kind, s->nmsg - n, n);
}

static void script_free(script *s)
{
    free(s->st), free(s->msg), free(s->us);
    memset(s, 0, sizeof *s);
}

/* ---- writing ---- */

typedef struct tw {
    psk_trace_writer *w;
    int64_t P;
    double *clock;   /* per rank, ns: the sum of its compute so far */
    double *pend;    /* per rank, ns of compute before its next event */
    double *power;   /* per rank: the advice machine's, undone (below) */
    int64_t *nreq;   /* per rank: requests of the phase being written */
    int64_t *reqs;   /* 0, 1, 2, ...: a Waitall's request ids */
    int64_t *touched;/* ranks with requests, in the order first met */
    int64_t ntouched;
    int64_t tag;     /* the phase's tag: one per phase, in turn */
    unsigned isend, irecv, waitall, pcontrol;   /* function ids */
} tw;

static int put(tw *t, int64_t r, psk_event *e)
{
    t->clock[r] += t->pend[r];
    t->pend[r] = 0;
    uint64_t at = (uint64_t)llround(t->clock[r]);
    e->t_entry = e->t_exit = at;
    return psk_writer_event(t->w, (int)r, e);
}

static psk_event mk(unsigned fn)
{
    psk_event e;
    memset(&e, 0, sizeof e);
    e.fn = fn;
    e.fields = psk_fn_fields(fn);
    return e;
}

static int p2p(tw *t, unsigned fn, int64_t r, int64_t peer, int64_t bytes)
{
    psk_event e = mk(fn);
    e.v[PSK_F_COMM] = 0; /* MPI_COMM_WORLD */
    e.v[PSK_F_PEER] = peer;
    e.v[PSK_F_TAG] = t->tag;
    e.v[PSK_F_COUNT] = bytes;
    e.v[PSK_F_DTSIZE] = 1;
    if (!t->nreq[r])
        t->touched[t->ntouched++] = r;
    e.v[PSK_F_REQ] = t->nreq[r]++;
    return put(t, r, &e);
}

/* one phase: every send and receive posted, then each rank's Waitall */
static int phase(tw *t, const adv_msg *m, int64_t n)
{
    int rc = PSK_OK;
    for (int64_t i = 0; i < n && !rc; i++)
        if (!(rc = p2p(t, t->isend, m[i].src, m[i].dst, m[i].bytes)))
            rc = p2p(t, t->irecv, m[i].dst, m[i].src, m[i].bytes);
    for (int64_t k = 0; k < t->ntouched && !rc; k++) {
        int64_t r = t->touched[k];
        psk_event e = mk(t->waitall);
        PSK_ARR(&e, PSK_F_REQS) = t->reqs;
        PSK_ARRN(&e, PSK_F_REQS) = (uint32_t)t->nreq[r];
        rc = put(t, r, &e);
        t->nreq[r] = 0;
    }
    t->ntouched = 0;
    t->tag = (t->tag + 1) % TAG_MOD;
    return rc;
}

static int play(tw *t, const script *s)
{
    int rc = PSK_OK;
    for (int64_t i = 0; i < s->nst && !rc; i++) {
        const step *st = &s->st[i];
        if (st->kind < 0) {
            for (int64_t r = 0; r < t->P; r++)
                t->pend[r] += 1e3 * s->us[st->off + r] * t->power[r];
            continue;
        }
        rc = phase(t, s->msg + st->off, st->n);
    }
    return rc;
}

static int pcontrol(tw *t, int64_t level)
{
    int rc = PSK_OK;
    for (int64_t r = 0; r < t->P && !rc; r++) {
        psk_event e = mk(t->pcontrol);
        e.v[PSK_F_I1] = level;
        rc = put(t, r, &e);
    }
    return rc;
}

static int fail(char *err, size_t errlen, int rc, const char *fmt, const char *what)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, what);
    return rc;
}

/* the layout nest n runs under and the one before it (-1: no
 * redistribution before it on repetition rep) */
static int prev_layout(const psk_advice *a, int n, int64_t rep)
{
    int N = a->prog->nnests, prev = n ? a->plan[n - 1] : a->plan[N - 1];
    if (prev == a->plan[n] || (n == 0 && rep == 0))
        return -1;
    return prev;
}

int psk_adv_write_trace(const psk_advice *a, const char *dir, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (!a || !a->plan || !a->prog)
        return fail(err, errlen, PSK_EINVAL, "%s: no plan to write", dir);
    const psk_adv_program *p = a->prog;
    int N = p->nnests, rc = PSK_ENOMEM;
    int64_t P = a->procs, R = p->repeat;
    if (P < 1 || P > (1 << 24))
        return fail(err, errlen, PSK_EINVAL, "%s: P is out of range for a trace", dir);

    /* walk each nest and each redistribution once */
    script *nest = calloc((size_t)(N ? N : 1), sizeof *nest);
    script *red = calloc((size_t)(N ? N : 1), sizeof *red);
    char *seen = calloc((size_t)P, 1);
    tw t = {.P = P, .isend = psk_fn_lookup("MPI_Isend"), .irecv = psk_fn_lookup("MPI_Irecv"),
            .waitall = psk_fn_lookup("MPI_Waitall"), .pcontrol = psk_fn_lookup("MPI_Pcontrol")};
    t.clock = calloc((size_t)P, sizeof *t.clock);
    t.pend = calloc((size_t)P, sizeof *t.pend);
    t.power = calloc((size_t)P, sizeof *t.power);
    t.nreq = calloc((size_t)P, sizeof *t.nreq);
    t.reqs = malloc((size_t)(2 * P) * sizeof *t.reqs);
    t.touched = malloc((size_t)P * sizeof *t.touched);
    if (!nest || !red || !seen || !t.clock || !t.pend || !t.power || !t.nreq || !t.reqs || !t.touched) {
        rc = fail(err, errlen, PSK_ENOMEM, "%s: out of memory", dir);
        goto out;
    }
    for (int64_t i = 0; i < 2 * P; i++)
        t.reqs[i] = i;
    /* the walk's compute is the advice machine's (work / power): the trace
     * holds it at power 1, as if recorded there, and the sim divides by the
     * power of the machine it replays on */
    for (int64_t r = 0; r < P; r++)
        t.power[r] = psk_machine_power(a->machine, (int)r);
    /* MPI_Init and MPI_Finalize, and a Pcontrol pair per nest and per
     * redistribution, on every rank */
    double total = 2.0 * (double)P;
    for (int n = 0; n < N; n++) {
        /* a walk records each rank's compute for every outer iteration:
         * refuse before it grows past what the trace could hold */
        int64_t steps = psk_adv_outer_steps(p, n, 1);
        if (steps > ADV_TRACE_MAX / P) {
            if (err && errlen)
                snprintf(err, errlen,
                         "%s: nest %s's outer seq loops run %s%" PRId64 " times on %" PRId64
                         " ranks: over the %lld steps a trace may hold",
                         dir, p->nests[n].name, steps == INT64_MAX ? "over " : "", steps, P,
                         (long long)ADV_TRACE_MAX);
            rc = PSK_EINVAL;
            goto out;
        }
        script *s = &nest[n];
        s->P = P, s->seen = seen;
        adv_walk w = {s, rec_compute, rec_ops};
        if ((rc = psk_adv_nest_walk(p, n, &a->cand[a->plan[n]].layout, a->machine, &w))) {
            rc = fail(err, errlen, rc, "%s: out of memory walking the plan", dir);
            goto out;
        }
        total += (double)R * (2.0 * (double)P + (double)p->nests[n].count * (double)s->events);
        int prev = prev_layout(a, n, 1);
        if (prev < 0)
            continue;
        script *x = &red[n];
        x->P = P, x->seen = seen;
        w.ctx = x;
        if ((rc = psk_adv_redist_walk(p, n, &a->cand[prev].layout, &a->cand[a->plan[n]].layout, &w))) {
            rc = fail(err, errlen, rc, "%s: out of memory walking the plan", dir);
            goto out;
        }
        total += (double)(n ? R : R - 1) * (2.0 * (double)P + (double)x->events);
    }
    if (total > (double)ADV_TRACE_MAX) {
        char what[160];
        snprintf(what, sizeof what, "the trace would hold %.0f events, more than the %lld allowed "
                 "(fewer repetitions, counts or processors)", total, (long long)ADV_TRACE_MAX);
        rc = PSK_EINVAL;
        if (err && errlen)
            snprintf(err, errlen, "%s: %s", dir, what);
        goto out;
    }

    /* a synthetic job: P ranks, Open MPI's numbering (any: the sim needs
     * none of the MPI's own) */
    psk_job job = {.job_id = 16, .nranks = (int)P, .flavour = PSK_MPI_OPENMPI,
                   .mpi_version = "perfskel advise (synthetic)", .command = p->path};
    if ((rc = psk_writer_open(dir, &job, NULL, &t.w)) != PSK_OK) {
        rc = fail(err, errlen, rc, "%s", psk_writer_errmsg(t.w));
        goto out;
    }
    for (int64_t r = 0; r < P && !rc; r++) {
        psk_event e = mk(psk_fn_lookup("MPI_Init"));
        rc = put(&t, r, &e);
    }
    /* Pcontrol levels: nest n is 2 + n, the redistribution before it
     * 2 + N + n */
    for (int64_t rep = 0; rep < R && !rc; rep++)
        for (int n = 0; n < N && !rc; n++) {
            if (prev_layout(a, n, rep) >= 0 && !(rc = pcontrol(&t, 2 + N + n)) && !(rc = play(&t, &red[n])))
                rc = pcontrol(&t, -(2 + N + n));
            if (rc || (rc = pcontrol(&t, 2 + n)))
                break;
            for (int64_t c = 0; c < p->nests[n].count && !rc; c++)
                rc = play(&t, &nest[n]);
            if (!rc)
                rc = pcontrol(&t, -(2 + n));
        }
    for (int64_t r = 0; r < P && !rc; r++) {
        psk_event e = mk(psk_fn_lookup("MPI_Finalize"));
        rc = put(&t, r, &e);
    }
    if (rc || (rc = psk_writer_close(t.w)) != PSK_OK) {
        rc = fail(err, errlen, rc ? rc : PSK_EIO, "%s", psk_writer_errmsg(t.w));
        goto out;
    }
    /* the intervals' names, which Pcontrol levels do not carry */
    char path[4096];
    snprintf(path, sizeof path, "%s/intervals.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        rc = fail(err, errlen, PSK_EIO, "%s: cannot write", path);
        goto out;
    }
    for (int n = 0; n < N; n++)
        fprintf(f, "pcontrol %d\tnest %s\n", 2 + n, p->nests[n].name);
    for (int n = 0; n < N; n++)
        if (prev_layout(a, n, 1) >= 0)
            fprintf(f, "pcontrol %d\tredistribution before nest %s\n", 2 + N + n, p->nests[n].name);
    if (fclose(f)) {
        rc = fail(err, errlen, PSK_EIO, "%s: cannot write", path);
        goto out;
    }
    rc = PSK_OK;
out:
    psk_writer_free(t.w);
    for (int n = 0; nest && red && n < N; n++)
        script_free(&nest[n]), script_free(&red[n]);
    free(nest), free(red), free(seen);
    free(t.clock), free(t.pend), free(t.power), free(t.nreq), free(t.reqs), free(t.touched);
    return rc;
}
