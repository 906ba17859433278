/* The time-sharing of a node's cores by more ranks than it has, in the
 * replay (docs/simulation.md, "Time-sharing"). The k-th rank of such a
 * node shares core k mod cores with the others there (a kernel keeps as
 * many runnable tasks on each of its run queues); where the recording's
 * ranks stayed each on a CPU (job.json's cpu.on), they share the cores as
 * they shared those CPUs. A core is held by one
 * rank at a time, in slices (`time slice`): the ranks that want it take
 * turns in rank order (where they wait busily, every other core of a node
 * forward, then backward, FLIP_CYCLES cycles each: below), the holder
 * keeps it for its slice, or until it no
 * longer wants it, when the next takes it at once. A rank wants its core
 * while it computes, and while it waits in MPI if its MPI waits busily
 * (MPICH); one whose MPI yields (Open MPI, oversubscribed) leaves the
 * core while it waits, and when its call is done takes the core at once
 * if nobody wants it (half a `switch cost` later if another rank of the
 * core waits too: they poll and yield in turns), else at the scheduler's
 * next tick (`scheduler tick`: a yielding rank gets to look at every
 * tick), with a slice of its own. A busy waiter whose call is done goes
 * on when its turn comes, and acts in a collective's rounds, or takes a
 * rendezvous message, only in its turns (psk_simi_core_turn).
 *
 * The replay keeps this in time order: a rank on a shared core moves its
 * clock only through the ready tree (its compute's planned end, or the
 * time it gets its core back), and each core's schedule changes only at
 * the clock of the rank being run, the earliest. A core's plan (who holds
 * it when) follows from its holder, when its slice began and which ranks
 * want it; when that changes, the ranks of the core waiting in the tree
 * are planned again. Times are ns. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_state.h"

static void plan(psk_sim *s, score *c);

/* index of world rank q in its core's list */
static int idx_of(const score *c, int q)
{
    for (int i = 0; i < c->n; i++)
        if (c->rk[i] == q)
            return i;
    return -1;
}

static int nwant(const psk_sim *s, const score *c)
{
    int n = 0;
    for (int i = 0; i < c->n; i++)
        n += s->r[c->rk[i]].want;
    return n;
}

/* the turns in a cycle of core c's schedule before rank index i's (0: i
 * has the cycle's first turn) */
static int place(const psk_sim *s, const score *c, int i)
{
    int p = 0;
    for (int k = c->hold; k != i; p += s->r[c->rk[k]].want)
        k = (k + 1) % c->n;
    return p;
}

/* Where ranks wait busily, the kernel's pairing in time of two cores'
 * ranks (which run at the same moment) does not stay as it began: a run
 * cut off the tick shifts one core's order against the other's, and the
 * pairing changes several times a second (perf sched, docs/simulation.md).
 * The model has it change every FLIP_CYCLES cycles: every other core of a
 * node takes its turns forward that many cycles, then backward as many.
 * (Each cycle, or every 2 to 4, changes it too often: the pairing's
 * steady effect never sets in, 30 %-200 % too long a ring; 16 kept the
 * others within their errors, docs.) */
#define FLIP_CYCLES 16

/* a cycle of n turns and the time foreign tasks take */
static double period(const psk_sim *s, const score *c, int n) { return n * s->slice / (1 - c->foreign); }

/* The schedule repeats every span of cycles: one, or where the turns go
 * forward c->flip cycles and then as many backward, 2 flip. Each rank
 * index i (wanting) has one turn a cycle: in the j-th cycle of the span
 * from turn_at(j) after the span's start. */
static int span_cycles(const score *c) { return c->flip ? 2 * c->flip : 1; }
static double turn_at(const psk_sim *s, const score *c, int n, int i, int j)
{
    int p = place(s, c, i);
    return j * period(s, c, n) + (c->flip && j >= c->flip ? n - 1 - p : p) * s->slice;
}

/* where t falls in its span: the cycle (*j) and the time from the span's start */
static double in_span(const psk_sim *s, const score *c, int n, double t, int *j)
{
    double per = period(s, c, n), span = per * span_cycles(c), u = t - c->since;
    double rem = u - floor(u / span) * span;
    int k = (int)floor(rem / per);
    *j = k < 0 ? 0 : k >= span_cycles(c) ? span_cycles(c) - 1 : k;
    return rem;
}

/* how long rank index i (wanting) holds the core from the cycle's start
 * to t, the wanting ranks staying as they are */
static double held(const psk_sim *s, const score *c, int i, int n, double t)
{
    double u = t - c->since;
    if (u <= 0 || n < 1)
        return 0;
    double S = s->slice, span = period(s, c, n) * span_cycles(c);
    int j;
    double rem = in_span(s, c, n, t, &j), in = rem - turn_at(s, c, n, i, j);
    return floor(u / span) * span_cycles(c) * S + j * S + (in < 0 ? 0 : in > S ? S : in);
}

/* 1 if rank index i (wanting) holds core c at t */
static int holds(const psk_sim *s, const score *c, int i, double t)
{
    int n = nwant(s, c), j;
    if (n < 1)
        return 0;
    double rem = in_span(s, c, n, t, &j), off = turn_at(s, c, n, i, j);
    return rem >= off && rem < off + s->slice;
}

/* when rank index i (wanting), from a on, has held the core for w (w 0:
 * the first moment from a it holds it) */
static double finish(const psk_sim *s, const score *c, int i, double a, double w)
{
    int n = nwant(s, c), j, K = span_cycles(c);
    double S = s->slice, span = period(s, c, n) * K;
    if (w <= 0) {
        double rem = in_span(s, c, n, a, &j), off = turn_at(s, c, n, i, j);
        if (rem >= off && rem < off + S)
            return a;
        if (rem < off)
            return a + (off - rem);
        if (j + 1 < K)
            return a + (turn_at(s, c, n, i, j + 1) - rem);
        return a + (span - rem) + turn_at(s, c, n, i, 0);
    }
    double g = held(s, c, i, n, a) + w;
    double m = ceil(g / (K * S)) - 1; /* whole spans before the one it ends in */
    m = m < 0 ? 0 : m;
    g -= m * K * S; /* in (0, K S] */
    int t = (int)ceil(g / S) - 1; /* the cycle of the span it ends in */
    t = t < 0 ? 0 : t >= K ? K - 1 : t;
    return c->since + m * span + turn_at(s, c, n, i, t) + (g - t * S);
}

/* takes core c's schedule to now: the work its computing ranks did, and
 * the cycle under way */
static void sync(psk_sim *s, score *c, double now)
{
    if (!(now > c->t))
        return;
    int n = nwant(s, c);
    for (int i = 0; i < c->n; i++) {
        rank *x = &s->r[c->rk[i]];
        if (x->want && x->cphase == CP_WORK) {
            x->work -= held(s, c, i, n, now) - held(s, c, i, n, c->t);
            x->work = x->work > 0 ? x->work : 0;
        }
    }
    if (n >= 1 && now > c->since) {
        double span = period(s, c, n) * span_cycles(c);
        c->since += floor((now - c->since) / span) * span;
    }
    c->t = now;
}

/* the wanting ranks of core c changed at its time: a new cycle starts,
 * with rank index i first (-1: the rank holding it now, if it still wants
 * it, else the next that does) */
static void restart(psk_sim *s, score *c, int i, int was)
{
    if (i < 0) {
        i = was;
        for (int k = 0; k < c->n && i >= 0 && !s->r[c->rk[i]].want; k++)
            i = (i + 1) % c->n;
        if (i >= 0 && !s->r[c->rk[i]].want)
            i = -1;
    }
    c->hold = i;
    c->since = c->changed = c->t;
}

/* the index of the rank holding core c now, -1 none (foreign tasks, or idle) */
static int holder(const psk_sim *s, const score *c)
{
    for (int i = 0; i < c->n; i++)
        if (s->r[c->rk[i]].want && holds(s, c, i, c->t))
            return i;
    return -1;
}

/* the ranks of core c waiting in the tree, planned again (the rank being
 * run is not among them) */
static void plan(psk_sim *s, score *c)
{
    int n = nwant(s, c);
    for (int i = 0; i < c->n; i++) {
        int q = c->rk[i];
        rank *x = &s->r[q];
        if (x->running || x->state != 0 || !x->cphase)
            continue;
        double t = x->t;
        if (x->cphase == CP_WORK)
            t = finish(s, c, i, c->t, x->work);
        else if (x->cphase == CP_TURN)
            t = finish(s, c, i, x->cdone > c->t ? x->cdone : c->t, 0);
        else if (x->cphase == CP_TICK && !n) /* nobody wants the core: it looks now */
            t = x->cdone > c->t ? x->cdone : c->t;
        if (t != x->t) {
            x->t = t;
            psk_simi_rekey(s, q);
        }
    }
}

void psk_simi_core_work(psk_sim *s, int q)
{
    rank *r = &s->r[q];
    score *c = &s->cores[r->core];
    sync(s, c, r->t);
    int i = idx_of(c, q);
    if (!r->want) { /* not expected: a running rank wants its core */
        int was = holder(s, c);
        r->want = 1;
        restart(s, c, was >= 0 ? was : i, was);
        plan(s, c);
    }
    r->wbeg = r->t;
    r->cphase = CP_WORK;
    r->t = finish(s, c, i, c->t, r->work);
}

void psk_simi_core_leave(psk_sim *s, int q, double t)
{
    rank *r = &s->r[q];
    score *c = &s->cores[r->core];
    sync(s, c, t);
    if (!r->want)
        return;
    int was = holder(s, c);
    r->want = 0; /* if it held the core, the next that wants it takes it now */
    restart(s, c, -1, was >= 0 ? was : idx_of(c, q));
    plan(s, c);
}

/* rank index i takes core c now, with a slice of its own */
static void take(psk_sim *s, score *c, int i)
{
    s->r[c->rk[i]].want = 1;
    restart(s, c, i, i);
    plan(s, c);
}

int psk_simi_core_pop(psk_sim *s, int q)
{
    rank *r = &s->r[q];
    score *c = &s->cores[r->core];
    double now = r->t;
    sync(s, c, now);
    int i = idx_of(c, q), ph = r->cphase;
    r->cphase = CP_NONE;
    if (ph == CP_WORK) {
        psk_simi_tl_add(s, q, 0, r->wbeg, now);
        r->acc[A_CPU] += now - r->wbeg;
        r->work = 0;
        return 0;
    }
    if (ph == CP_SWITCH) /* its core's other ranks polled in turns: its turn came */
        ph = nwant(s, c) ? CP_RESUME : CP_TICK;
    if (ph == CP_RESUME && s->share_yield) {
        int n = nwant(s, c);
        if (!n && r->cdone > r->tcall && psk_simi_core_contended(s, q) &&
            s->m->switch_us > 0) {
            /* its core's other ranks wait in MPI too, polling and
             * yielding to each other: it sees its call done when the one
             * polling now yields, half a switch later on average */
            r->cphase = CP_SWITCH;
            r->t = now + s->m->switch_us * 0.5e3;
            psk_simi_ready_push(s, q);
            return 1;
        }
        if (!n || r->cdone <= r->tcall) { /* nobody wants it, or it never waited */
            take(s, c, i);
            return 0;
        }
        double tick = ceil(now / s->tick) * s->tick;
        if (tick > now) {
            r->cphase = CP_TICK;
            r->t = tick;
            psk_simi_ready_push(s, q);
            return 1;
        }
        ph = CP_TICK;
    }
    if (ph == CP_TICK)
        take(s, c, i);
    if (ph == CP_RESUME && !holds(s, c, i, now)) { /* waiting busily: until its turn */
        r->cphase = CP_TURN;
        r->t = finish(s, c, i, now, 0);
        psk_simi_ready_push(s, q);
        return 1;
    }
    if (now > r->cdone) { /* its call was done before: the wait for the core is the call's */
        r->acc[r->acc_class] += now - r->cdone;
        psk_simi_tl_add(s, q, 1, r->cdone, now);
    }
    return 0;
}

double psk_simi_core_turn(const psk_sim *s, int q, double t)
{
    const rank *r = &s->r[q];
    if (r->core < 0 || s->share_yield || !r->want)
        return t;
    const score *c = &s->cores[r->core];
    return t < c->changed ? t : finish(s, c, idx_of(c, q), t, 0);
}

int psk_simi_core_contended(const psk_sim *s, int q)
{
    const rank *r = &s->r[q];
    if (r->core < 0 || !s->share_yield)
        return 0;
    const score *c = &s->cores[r->core];
    for (int i = 0; i < c->n; i++) /* a rank waiting in such an MPI polls too: it is never asleep */
        if (c->rk[i] != q && s->r[c->rk[i]].state != 2)
            return 1;
    return 0;
}

/* "4 ranks on 2 cores (host vm)" into buf */
static void describe(char *buf, size_t cap, int ranks, int cores, const char *host, int more)
{
    if (host)
        snprintf(buf, cap, "%d ranks on %d cores (host %s%s)", ranks, cores, host, more ? ", and others" : "");
    else
        snprintf(buf, cap, "%d ranks on %d cores a node%s", ranks, cores, more ? " (and others)" : "");
}

int psk_simi_cores_init(psk_sim *s, const psk_job *job)
{
    const psk_machine *m = s->m;
    int P = s->P;
    s->share_yield = m->waiting == PSK_WAIT_YIELD || (m->waiting == PSK_WAIT_AS_MPI && job->flavour == PSK_MPI_OPENMPI);
    s->slice = m->slice_us * 1e3;
    s->tick = m->tick_us * 1e3;
    for (int q = 0; q < P; q++)
        s->r[q].core = -1;
    int *node = malloc((size_t)(P ? P : 1) * sizeof *node), *on = NULL, nn = 0;
    if (!node)
        return PSK_ENOMEM;
    int as_recorded = m->cores_per_node <= 0;
    if (!as_recorded) {
        int rpn = m->ranks_per_node > 0 ? m->ranks_per_node : 1;
        for (int q = 0; q < P; q++)
            node[q] = q / rpn;
        nn = (P + rpn - 1) / rpn;
    } else if (job->cores && job->hosts) {
        if ((nn = psk_host_ids(job->hosts, P, node)) < 0) {
            free(node);
            return PSK_ENOMEM;
        }
    }
    int rc = PSK_OK, first = -1, firstn = 0, firstc = 0, shared_nodes = 0;
    /* the recording's placement (slot) */
    int *slot = NULL, followed = 0;
    if (nn > 0 && !(on = calloc((size_t)nn, sizeof *on)))
        rc = PSK_ENOMEM;
    if (!rc && as_recorded && nn > 0 && job->cpu_on) {
        if (!(slot = malloc((size_t)P * sizeof *slot)) || psk_ranks_placed(job, slot))
            rc = PSK_ENOMEM;
    }
    for (int q = 0; !rc && nn && q < P; q++)
        on[node[q]]++;
    /* per node with more ranks than cores, its cores; its k-th rank on core k mod cores */
    int *seen = !rc && nn ? calloc((size_t)nn, sizeof *seen) : NULL;
    int *base = !rc && nn ? malloc((size_t)nn * sizeof *base) : NULL;
    if (nn && (!seen || !base))
        rc = PSK_ENOMEM;
    for (int k = 0; !rc && k < nn; k++)
        base[k] = -1;
    for (int q = 0; !rc && nn && q < P; q++) {
        int k = node[q], cores = as_recorded ? job->cores[q] : m->cores_per_node;
        if (cores <= 0 || on[k] <= cores)
            continue;
        if (base[k] < 0) {
            base[k] = s->ncores;
            score *a = realloc(s->cores, (size_t)(s->ncores + cores) * sizeof *a);
            if (!a) {
                rc = PSK_ENOMEM;
                break;
            }
            s->cores = a;
            for (int j = 0; j < cores; j++) /* busy waiters: every other core's turns flip (above) */
                s->cores[s->ncores + j] = (score){.n = 0, .rk = NULL, .hold = 0,
                                                  .flip = !s->share_yield && (j & 1) ? FLIP_CYCLES : 0};
            s->ncores += cores;
            if (first < 0)
                first = q, firstn = on[k], firstc = cores;
            shared_nodes++;
        }
        int as_ran = slot && slot[q] >= 0;
        score *c = &s->cores[base[k] + (as_ran ? slot[q] : seen[k]++ % cores)];
        followed |= as_ran;
        int *rk = realloc(c->rk, (size_t)(c->n + 1) * sizeof *rk);
        if (!rk) {
            rc = PSK_ENOMEM;
            break;
        }
        c->rk = rk;
        c->rk[c->n++] = q;
        s->r[q].core = (int)(c - s->cores);
        s->r[q].want = 1; /* every rank computes from MPI_Init's exit */
    }
    free(node), free(on), free(seen), free(base), free(slot);
    if (rc)
        return rc;
    /* what the recording had (its ranks' compute may never have
     * overlapped beyond the cores: a ring in step, every deflate 1) */
    int rq = -1;
    for (int q = 0; q < P && rq < 0; q++)
        rq = s->crowded[q] ? q : -1;
    char rec[160] = "", tgt[160] = "";
    if (rq >= 0 && job->hosts) {
        int n = 0, more = 0;
        for (int q = 0; q < P; q++) {
            n += !strcmp(job->hosts[q], job->hosts[rq]);
            more |= s->crowded[q] && strcmp(job->hosts[q], job->hosts[rq]);
        }
        int rc_cores = job->cores ? job->cores[rq] : m->cores_per_node;
        describe(rec, sizeof rec, n, rc_cores, job->hosts[rq], more);
    }
    const char *how = s->share_yield ? "ranks waiting in MPI yield their core" : "ranks waiting in MPI hold their core";
    const char *why = m->waiting ? "machine file" : job->flavour == PSK_MPI_OPENMPI ? "Open MPI" : "MPICH";
    if (first >= 0) {
        describe(tgt, sizeof tgt, firstn, firstc, as_recorded && job->hosts ? job->hosts[first] : NULL,
                 shared_nodes > 1);
        s->share_state = 1;
        char other[96] = "";
        if (followed)
            snprintf(other, sizeof other, ", each rank on the CPU it stayed on");
        if (as_recorded)
            snprintf(s->share_msg, sizeof s->share_msg, "time-sharing modelled: %s, as recorded%s; %s (%s)", tgt,
                     other, how, why);
        else
            snprintf(s->share_msg, sizeof s->share_msg, "time-sharing modelled: %s (machine)%s%s; %s (%s)", tgt,
                     rec[0] ? ", recorded with " : "", rec, how, why);
    } else if (rec[0]) {
        s->share_state = 2;
        snprintf(s->share_msg, sizeof s->share_msg, "time-sharing taken out: the recording's %s, each rank with a core of its own here", rec);
    }
    for (int k = 0; k < s->ncores; k++) {
        score *c = &s->cores[k];
        c->hold = c->n ? 0 : -1, c->since = c->changed = c->t = 0;
        c->flip = c->n > 1 ? c->flip : 0; /* a core of one rank has no order */
        c->foreign = m->other_load;
    }
    return PSK_OK;
}

void psk_simi_cores_free(psk_sim *s)
{
    for (int k = 0; k < s->ncores; k++)
        free(s->cores[k].rk);
    free(s->cores);
    free(s->deflate);
    free(s->crowded);
}
