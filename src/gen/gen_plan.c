/* perfskel gen: how much of the original each part of the skeleton runs.
 * The skeleton should take about 1/K of the original's time. That target
 * is handed down the loop tree: a loop that may run fewer iterations
 * (closed, gen_scale.c) runs its first (cold) iteration, counted once, and
 * a sample of its steady ones spread evenly over the rest, each standing
 * for (count - 1) / sampled iterations; the sample has a floor in
 * iterations and in recorded time, so that what is timed and multiplied
 * is long enough to measure. What a loop could not take of the target
 * (too few iterations, not closed, the floor) is handed to what is inside
 * it, and compute left with some of the target runs that much shorter,
 * the rest credited to the skeleton's virtual clock at the recorded speed
 * (cunits_ of skel_runtime.c). So a program whose main loop runs 4 times,
 * or whose run is one long computation, still shrinks, and no transient of
 * the skeleton's own (a cold first iteration) is multiplied. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen_internal.h"

/* a loop whose messages cross its iterations keeps its compute in full
 * beyond this many iterations (a pipeline, not one exchange) */
#define PIPE_MIN 8
/* the target grows to at most this many times K where what does not
 * shrink keeps the skeleton above 1/K of the original */
#define GROW 4.0

/* the original's time per rank under node id: the sums of its events'
 * (compute gap + time in the call), ns, added into t (per rank); with
 * reset, the largest of them instead, and t back to zeros (only the
 * entries touched: t is as long as the ranks) */
static double loop_times(const gen *g, int32_t id, double *t, int reset)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    double mx = 0;
    if (x->kind == PSK_FNODE_SYM) {
        const gnode *n = &g->node[id];
        for (int j = 0; n->seen && j < n->np; j++) {
            double *v = &t[n->ranks[j]];
            if (!reset) {
                *v += n->tns[j];
                continue;
            }
            mx = *v > mx ? *v : mx;
            *v = 0;
        }
        return mx;
    }
    const int32_t *kid = psk_folded_children(g->f, id);
    for (int32_t i = 0; i < x->nchild; i++) {
        double m = loop_times(g, kid[i], t, reset);
        mx = m > mx ? m : mx;
    }
    return mx;
}

/* executions of node id in the original: the product of the counts of the
 * loops around it */
static double execs_of(const gen *g, int32_t id)
{
    double e = 1;
    for (int32_t x = psk_folded_node(g->f, id)->parent; x > 0; x = psk_folded_node(g->f, x)->parent)
        e *= (double)psk_folded_node(g->f, x)->count;
    return e;
}

/* the ranks taking part in anything under node id, marked in mark */
static void mark_ranks(const gen *g, int32_t id, unsigned char *mark)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    if (x->kind == PSK_FNODE_SYM) {
        const gnode *n = &g->node[id];
        for (int j = 0; n->seen && j < n->np; j++)
            mark[n->ranks[j]] = 1;
        return;
    }
    const int32_t *kid = psk_folded_children(g->f, id);
    for (int32_t i = 0; i < x->nchild; i++)
        mark_ranks(g, kid[i], mark);
}

/* How many loops from kid[i] on (at least 1) form a group that closes
 * only together: consecutive loops of as many iterations whose ranks are
 * apart (each rank runs its own loop: a red-black sweep whose even ranks
 * send first and odd ranks receive first, merged without reordering into
 * one loop per parity), none closed alone, every iteration closed across
 * them (gen_closed_group). 1 where kid[i] is closed alone or no group
 * closes. */
static int group_of(gen *g, const int32_t *kid, int32_t i, int32_t nkid, unsigned char *mark, unsigned char *tmp)
{
    const psk_fnode *x = psk_folded_node(g->f, kid[i]);
    if (gen_closed_loop(g, kid[i]))
        return 1;
    memset(mark, 0, (size_t)g->P);
    mark_ranks(g, kid[i], mark);
    int32_t k = i + 1;
    for (; k < nkid && k - i < 64; k++) {
        const psk_fnode *y = psk_folded_node(g->f, kid[k]);
        if (y->kind != PSK_FNODE_LOOP || y->count != x->count)
            break;
        memset(tmp, 0, (size_t)g->P);
        mark_ranks(g, kid[k], tmp);
        int apart = 1;
        for (int r = 0; r < g->P && apart; r++)
            apart = !(mark[r] && tmp[r]);
        if (!apart)
            break;
        for (int r = 0; r < g->P; r++)
            mark[r] |= tmp[r];
    }
    /* the longest group from kid[i] that closes */
    for (; k - i >= 2; k--)
        if (gen_closed_group(g, kid + i, k - i))
            return (int)(k - i);
    return 1;
}

static void plan_node(gen *g, int32_t id, double tau, double runs, double *scratch, unsigned char *mark,
                      unsigned char *tmp);

/* Of an event's time in its calls, what the rank that spent least there
 * spent is the call's own (a transfer): the rest waited for other ranks,
 * whose compute shrinks as this rank's does. And a loop's first (cold)
 * iteration runs whatever its sample: what the event's first call took
 * beyond its mean (a first large transfer between untouched buffers), the
 * least over the ranks. Both in ns, summed over the executions (own) and
 * for the one (cold). */
static void call_parts(const gnode *n, double *own, double *cold)
{
    *own = *cold = INFINITY;
    for (int j = 0; j < n->np; j++) {
        double in = n->tns[j] - n->gap[j] - (n->pwork ? n->pwork[j] : 0);
        double first = (double)(n->first[j].t_exit - n->first[j].t_entry);
        double mean = n->execs > 0 ? in / (double)n->execs : 0;
        *own = in < *own ? in : *own;
        *cold = first - mean < *cold ? first - mean : *cold;
    }
    *own = *own > 0 && n->np > 0 ? *own : 0;
    *cold = *cold > 0 && n->np > 0 ? *cold : 0;
}

/* What ran iterations of a loop of c take in the original, per rank
 * (frac = ran / c of its executions), into calls (the calls' own time,
 * call_parts, and the cold iteration's excess) and work (compute and the
 * calls' waits for the others' compute) */
static void ran_times(const gen *g, int32_t id, double frac, double *calls, double *work)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    if (x->kind == PSK_FNODE_SYM) {
        const gnode *n = &g->node[id];
        if (!n->seen)
            return;
        double own, cold;
        call_parts(n, &own, &cold);
        for (int j = 0; j < n->np; j++) {
            int32_t r = n->ranks[j];
            calls[r] += own * frac + cold;
            work[r] += (n->tns[j] - own) * frac;
        }
        return;
    }
    const int32_t *kid = psk_folded_children(g->f, id);
    for (int32_t i = 0; i < x->nchild; i++)
        ran_times(g, kid[i], frac, calls, work);
}

/* The compute factor inside a sampled loop: the loop's share of the
 * target (its original time / tau) holds the calls of the iterations run,
 * which do not shrink, and their compute, which does: where the calls
 * leave the compute less than tau x ran / c of it, it runs shorter, up to
 * tau (a 6-iteration FFT whose first transpose took 137 ms of 243 ms
 * iterations: compute 1/10, not 1/3.3) */
static double inside_factor(const gen *g, const int32_t *kid, int n, double tau, int64_t c, int64_t ran,
                            double t_iter, double *calls)
{
    double least = tau * (double)ran / (double)c, want = least;
    double *work = calloc((size_t)g->P, sizeof *work);
    if (!work)
        return least;
    memset(calls, 0, (size_t)g->P * sizeof *calls);
    for (int k = 0; k < n; k++)
        ran_times(g, kid[k], (double)ran / (double)c, calls, work);
    double budget = 1e9 * t_iter * (double)c * execs_of(g, kid[0]) / tau; /* ns, all its executions */
    for (int r = 0; r < g->P; r++) {
        if (work[r] <= 0)
            continue;
        double room = budget - calls[r], f = room > work[r] / tau ? work[r] / room : tau;
        want = f > want ? f : want;
    }
    free(work);
    memset(calls, 0, (size_t)g->P * sizeof *calls);
    return want < least ? least : want > tau ? tau : want;
}

/* the plan of loop kid[0] (with kid[1..n) run alike: a group closed only
 * together), and then of what is inside each */
static void plan_loops(gen *g, const int32_t *kid, int n, double tau, double runs, double *scratch,
                       unsigned char *mark, unsigned char *tmp)
{
    const psk_fnode *x = psk_folded_node(g->f, kid[0]);
    gplan *p = &g->plan[kid[0]];
    int64_t c = x->count;
    double inside = tau;
    *p = (gplan){.tau = tau, .tau_in = tau, .runs = runs, .ran = c};
    /* the original's seconds per iteration, slowest rank (of the group) */
    for (int k = 0; k < n; k++)
        loop_times(g, kid[k], scratch, 0);
    double mx = 0;
    for (int k = 0; k < n; k++) {
        double m = loop_times(g, kid[k], scratch, 1);
        mx = m > mx ? m : mx;
    }
    double ex = execs_of(g, kid[0]);
    p->t_iter = ex > 0 && c > 0 ? 1e-9 * mx / (ex * (double)c) : 0;
    int64_t cold = 1, smin = g->floor_iters > 0 ? g->floor_iters : 1;
    if (tau <= 1.0 + 1e-9) {
        p->why = g->K > 1 ? "run in full: the loops around it leave nothing to shrink" : "run in full";
    } else if (x->depth >= 64) {
        p->why = "run in full: nested too deep";
    } else if (n == 1 && !gen_closed_loop(g, kid[0])) {
        /* and, if it is long, its compute in full too: where messages
         * cross many iterations, ranks wait on each other's compute
         * across them (a pipeline), and compute run shorter on each rank,
         * credited to that rank alone, would leave the others' compute
         * out of its waits. A few iterations whose messages pair across
         * them (a Sendrecv up, then down) are one exchange, as a loop
         * body is. */
        if (c > PIPE_MIN) {
            p->why = "run in full, its compute too: messages, collectives or objects cross its iterations";
            inside = 1;
        } else {
            p->why = "run in full: messages, collectives or objects cross its iterations";
        }
    } else if (c < cold + smin + 1) {
        p->why = "run in full: too few iterations to sample";
    } else {
        int64_t want = (int64_t)ceil((double)c / tau), s = want - cold;
        if (s < smin)
            s = smin;
        /* the steady part timed in all its runs: at least the floor */
        double per = p->t_iter * runs;
        if (g->floor_seconds > 0 && per > 0 && (double)s * per < g->floor_seconds)
            s = (int64_t)ceil(g->floor_seconds / per);
        if (cold + s >= c) {
            p->why = g->floor_seconds > 0 && (double)(c - cold - 1) * per < g->floor_seconds
                         ? "run in full: its steady iterations are too short to time a sample of them"
                         : "run in full: too few iterations to sample";
        } else {
            p->scaled = 1;
            p->grouped = n > 1;
            p->cold = cold;
            p->ran = cold + s;
            p->why = n > 1 ? "sampled with the loops of the other ranks it closes with" : "sampled";
            inside = inside_factor(g, kid, n, tau, c, p->ran, p->t_iter, scratch);
            inside = inside < 1 ? 1 : inside;
            /* where ranks took turns on cores, compute run shorter would
             * take turns less and leave the others more of the cores:
             * the loop's compute runs in full (the skeleton is longer) */
            if (g->crowded && inside > 1) {
                inside = 1;
                p->why = n > 1 ? "sampled with the loops of the other ranks it closes with; its compute in full: "
                                 "ranks took turns on cores"
                               : "sampled; its compute in full: ranks took turns on cores";
            }
        }
    }
    p->tau_in = inside;
    for (int k = 1; k < n; k++) /* the group runs alike */
        g->plan[kid[k]] = *p;
    for (int k = 0; k < n; k++)
        plan_node(g, kid[k], inside, runs * (double)p->ran, scratch, mark, tmp);
}

/* the plan of what is inside node id (the root, or a loop planned
 * already) given tau, the target left there: a SYM's compute scales by
 * it; loops by plan_loops, with the loops of other ranks they close with */
static void plan_node(gen *g, int32_t id, double tau, double runs, double *scratch, unsigned char *mark,
                      unsigned char *tmp)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    if (x->kind != PSK_FNODE_LOOP)
        g->plan[id] = (gplan){.tau = tau, .tau_in = tau, .runs = runs, .ran = 1};
    if (x->kind == PSK_FNODE_SYM)
        return;
    const int32_t *kid = psk_folded_children(g->f, id);
    for (int32_t i = 0; i < x->nchild; i++) {
        if (psk_folded_node(g->f, kid[i])->kind != PSK_FNODE_LOOP) {
            plan_node(g, kid[i], tau, runs, scratch, mark, tmp);
            continue;
        }
        int n = tau > 1.0 + 1e-9 ? group_of(g, kid, i, x->nchild, mark, tmp) : 1;
        plan_loops(g, kid + i, n, tau, runs, scratch, mark, tmp);
        i += n - 1;
    }
}

/* what the skeleton leaves out of the original's time on each rank: of
 * each event, the executions not run (loops sampled) and of those run,
 * the compute not emulated (credited) */
static void plan_saved(gen *g)
{
    for (int32_t id = 0; id < psk_folded_nnodes(g->f); id++) {
        const psk_fnode *x = psk_folded_node(g->f, id);
        const gnode *n = &g->node[id];
        if (x->kind != PSK_FNODE_SYM || !n->seen)
            continue;
        double phi = 1;
        for (int32_t y = x->parent; y > 0; y = psk_folded_node(g->f, y)->parent)
            if (g->plan[y].scaled)
                phi *= (double)g->plan[y].ran / (double)psk_folded_node(g->f, y)->count;
        int op = n->np > 0 ? psk_fn_op(n->first[0].fn) : -1;
        if (op == PSK_FNOP_INIT)
            continue; /* before the time measured */
        double cf = gen_compute_factor(g, id), own, cold;
        call_parts(n, &own, &cold);
        for (int j = 0; j < n->np; j++) {
            double gap = n->gap[j] + (n->pwork ? n->pwork[j] : 0), in = n->tns[j] - gap;
            if (op == PSK_FNOP_FINALIZE) /* the time measured ends as it is called */
                in = own = cold = 0;
            double wait = in > own ? in - own : 0;
            double kept = phi * (in - wait + (wait + gap) / cf) + (phi < 1 ? (1 - phi) * cold : 0);
            g->saved_ns[n->ranks[j]] += in + gap - kept;
        }
    }
}

/* each rank's time from MPI_Init's return to MPI_Finalize's call in the
 * original (ns), added into t: what the skeleton's run is measured against */
static void app_times(const gen *g, double *t)
{
    for (int32_t id = 0; id < psk_folded_nnodes(g->f); id++) {
        const gnode *n = &g->node[id];
        if (psk_folded_node(g->f, id)->kind != PSK_FNODE_SYM || !n->seen)
            continue;
        for (int j = 0; j < n->np; j++) {
            int op = psk_fn_op(n->first[j].fn);
            t[n->ranks[j]] += op == PSK_FNOP_INIT ? 0 : op == PSK_FNOP_FINALIZE ? n->gap[j] : n->tns[j];
        }
    }
}

double gen_compute_factor(const gen *g, int32_t id)
{
    return g->plan && g->plan[id].tau > 1.0 + 1e-9 ? g->plan[id].tau : 1.0;
}

int gen_plan(gen *g)
{
    int32_t nn = psk_folded_nnodes(g->f);
    g->plan = calloc((size_t)(nn > 0 ? nn : 1), sizeof *g->plan);
    g->saved_ns = calloc((size_t)(g->P > 0 ? g->P : 1), sizeof *g->saved_ns);
    double *scratch = calloc((size_t)(g->P > 0 ? g->P : 1), sizeof *scratch);
    unsigned char *mark = malloc((size_t)(g->P > 0 ? g->P : 1)), *tmp = malloc((size_t)(g->P > 0 ? g->P : 1));
    if (!g->plan || !g->saved_ns || !scratch || !mark || !tmp) {
        free(scratch), free(mark), free(tmp);
        return gen_oom(g);
    }
    /* The target is K; where what cannot shrink (the cold iteration's
     * calls, the sampled iterations' own time in calls: plan_saved's
     * estimate) leaves the skeleton well above 1/K of the original, the
     * compute and the samples are planned for a larger target, up to
     * GROW x K (a 6-iteration FFT whose first transpose took 137 ms of
     * 1.64 s: its skeleton took 22 % of the run, with the target grown
     * 15 %). Not where ranks took turns on cores: their sampled loops keep
     * their compute, and their time in calls waited for cores */
    double tot = 0, K = g->K > 1 ? (double)g->K : 1.0, tau = K;
    double *app = calloc((size_t)(g->P > 0 ? g->P : 1), sizeof *app); /* what the plan does not change */
    if (!app) {
        free(scratch), free(mark), free(tmp);
        return gen_oom(g);
    }
    app_times(g, app);
    for (int r = 0; r < g->P; r++)
        tot = app[r] > tot ? app[r] : tot;
    for (;;) {
        memset(g->plan, 0, (size_t)(nn > 0 ? nn : 1) * sizeof *g->plan);
        memset(g->saved_ns, 0, (size_t)(g->P > 0 ? g->P : 1) * sizeof *g->saved_ns);
        plan_node(g, 0, tau, 1.0, scratch, mark, tmp);
        plan_saved(g);
        double left = 0;
        for (int r = 0; r < g->P; r++)
            left = app[r] - g->saved_ns[r] > left ? app[r] - g->saved_ns[r] : left;
        /* a quarter above 1/K before growing (a long loop's cold first
         * iteration is not worth sampling it less), 1/K when grown */
        if (K <= 1 || g->crowded || left <= (tau > K ? 1.0 : 1.25) * tot / K || tau >= GROW * K - 1e-9)
            break;
        tau = tau * 1.25 < GROW * K ? tau * 1.25 : GROW * K;
    }
    free(app), free(scratch), free(mark), free(tmp);
    /* the loops, in tree order, for the caller */
    for (int32_t id = 0; id < nn; id++)
        g->nloops += psk_folded_node(g->f, id)->kind == PSK_FNODE_LOOP;
    g->loops = calloc((size_t)(g->nloops > 0 ? g->nloops : 1), sizeof *g->loops);
    if (!g->loops)
        return gen_oom(g);
    int k = 0;
    for (int32_t id = 0; id < nn; id++) {
        const psk_fnode *x = psk_folded_node(g->f, id);
        if (x->kind != PSK_FNODE_LOOP)
            continue;
        int32_t up = x->parent;
        while (up > 0 && psk_folded_node(g->f, up)->kind != PSK_FNODE_LOOP)
            up = psk_folded_node(g->f, up)->parent;
        const gplan *p = &g->plan[id];
        g->loops[k++] = (psk_gen_loop){.loop = id,
                                       .parent = up > 0 ? up : -1,
                                       .count = x->count,
                                       .execs = (int64_t)execs_of(g, id),
                                       .cold = p->cold,
                                       .ran = p->ran,
                                       .iter_seconds = p->t_iter,
                                       .compute_factor = p->tau_in > 1.0 + 1e-9 ? p->tau_in : 1.0,
                                       .sampled = p->scaled,
                                       .why = p->why ? p->why : "run in full"};
    }
    return 0;
}
