/* The learner (issue 15) and STAR-MPI's policy, per group (a communicator's
 * calls of one collective and size class). Calls run in windows planned in advance, each
 * slot of a window one arm; every rank times its own calls, and at the end
 * of a window one MPI_Allreduce(MAX) gives all ranks the slowest rank's
 * time of every slot, from which all take the same decision and plan the
 * next window: nothing else a rank knows enters a decision. The learner:
 * native first; candidates are the arms the cost model (tune_model.c) puts
 * within PSK_TUNE_MARGIN of the best, at most 4; a probe is made only when
 * what exploring has cost so far, plus the probe's risk, stays within
 * PSK_TUNE_BUDGET of the collective time so far (learning pays for itself);
 * sequential elimination on robust estimates (medians, a pooled MAD);
 * then monitoring with two-sided CUSUMs on the window medians, rare probes
 * of the runner-up, hysteresis on the threshold. What one group settles
 * seeds others (the same size class elsewhere, neighbouring classes), and
 * the decision file (tune_db.c) warm-starts a group with no exploration.
 * STAR-MPI's policy follows notes/collectives.md, "How STAR-MPI selects". */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tune_internal.h"

#define W0 4            /* native calls before anything else */
#define W0_SEEDED 2     /* ... when another group says what wins */
#define TMAX 6          /* probes of one candidate before deciding on estimates */
#define MIN_PROMOTE 3   /* paired probes before an arm may become the incumbent */
#define KMAX 4          /* candidates at once */
#define Z 2.0           /* confidence bounds: estimate x (1 +- Z sigma / sqrt n) */
#define HYST 0.05       /* a switch needs an arm this much faster (arms within 5 % are as good) */
#define CUSUM_K 0.5     /* CUSUM drift allowance, in noise units: a shift of 1 noise is sought */
#define CUSUM_H 4.0     /* alarm threshold, in noise units; doubled after a false alarm, to 8 */
#define CUSUM_HMAX 8.0  /* (16 made a neighbour job's stop, after its noisy run, seen 20 calls late) */
#define ZCLIP 2.0       /* a slot counts for at most 2 noise units (x h / CUSUM_H): 3 slots far off are a change */
#define UNIT_MIN 0.15   /* a slot's noise unit is never under 15 %: 3 slots 30 % off, or 9 15 % off */
#define WCLIP 3.0       /* each call counts for at most 3 x the baseline in the detector's sums */
#define NOISE0 0.25     /* the noise until the incumbent has 8 samples */
#define RHO_MON 0.01    /* monitoring windows: their allreduce <= 1 % of their time */
#define RHO_EXP 0.02    /* exploring windows: 2 % */
#define DEC_NS 50       /* ... and at most 0.05 us a call (a decision: the allreduce and deciding) */
#define WMON_MIN 8
#define WMON_MAX 1024   /* (cheap calls, a costly allreduce: long windows) */
#define LEARN_SLOTS 64
#define STAR_SLOTS (PSK_TUNE_NARMS * PSK_TUNE_STAR_XMAX + 4)
#define EXTRA 8         /* reduce words after the slots: see decide() */
#define KAPPA0 1.25     /* an unmeasured arm may take this times its prediction */
#define FEW_CALLS 32    /* before so many calls, only arms predicted 10 % faster are probed */
#define RISK_FLOOR 0.25 /* ... and at least 1.25 times the incumbent's time */

/* ---- samples and estimates ---- */

/* the k-th smallest of v[0..n) (0-based), v reordered: Hoare's selection,
 * linear on average (a decision takes a few medians per window) */
static float select_kth(float *v, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        float p = v[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < p)
                i++;
            while (v[j] > p)
                j--;
            if (i <= j) {
                float t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* the median of v[0..n), v reordered */
static double median(float *v, int n)
{
    if (n <= 0)
        return 0;
    double hi = select_kth(v, n, n / 2);
    if (n % 2)
        return hi;
    /* the lower middle: the greatest of the part below */
    float lo = v[0];
    for (int i = 1; i < n / 2; i++)
        if (v[i] > lo)
            lo = v[i];
    return 0.5 * ((double)lo + hi);
}

double psk_tune_learn_est(const psk_tune_group *g, int arm)
{
    const psk_tune_arml *a = &g->arm[arm];
    float v[PSK_TUNE_NSAMP];
    memcpy(v, a->x, a->n * sizeof *v);
    return median(v, a->n);
}

static void add_sample(psk_tune_arml *a, double x)
{
    a->x[a->pos] = (float)x;
    a->pos = (uint8_t)((a->pos + 1) % PSK_TUNE_NSAMP);
    if (a->n < PSK_TUNE_NSAMP)
        a->n++;
}

static void clear_samples(psk_tune_arml *a) { a->n = a->pos = 0, a->trials = 0; }
static void add_ratio(psk_tune_arml *a, double lr);

/* An arm is compared with the incumbent by the ratios of paired calls:
 * each probe follows a call of the incumbent in the same window, so that
 * a load that comes and goes slows both alike. Kept as logarithms. */
static void add_ratio(psk_tune_arml *a, double lr)
{
    a->r[a->rpos] = (float)lr;
    a->rpos = (uint8_t)((a->rpos + 1) % PSK_TUNE_NSAMP);
    if (a->rn < PSK_TUNE_NSAMP)
        a->rn++;
    a->trials++;
}

/* the median log ratio of arm a to the incumbent */
static double rmed(const psk_tune_group *g, int a)
{
    float v[PSK_TUNE_NSAMP];
    memcpy(v, g->arm[a].r, g->arm[a].rn * sizeof *v);
    return median(v, g->arm[a].rn);
}

/* the spread of a log ratio: 1.4826 x the median absolute deviation of
 * every arm's ratios from its own median (robust to a descheduled rank),
 * within [0.05, 0.5]; 0.15 until there are 6 */
static double pooled_sigma(const psk_tune_group *g)
{
    float dev[PSK_TUNE_NARMS * PSK_TUNE_NSAMP];
    int n = 0;
    for (int a = 0; a < PSK_TUNE_NARMS; a++) {
        const psk_tune_arml *s = &g->arm[a];
        if (s->rn < 2)
            continue;
        double m = rmed(g, a);
        for (int i = 0; i < s->rn; i++)
            dev[n++] = (float)fabs(s->r[i] - m);
    }
    if (n < 6)
        return 0.15;
    double s = 1.4826 * median(dev, n);
    return s < 0.05 ? 0.05 : s > 0.5 ? 0.5 : s;
}

/* the spread of the incumbent's log time per call, within [0.1, 1] (a
 * shift under 10 % is not worth exploring for); NOISE0 until it has 8
 * samples. From the differences of consecutive samples (1.4826 x their
 * median absolute deviation / sqrt 2), not the samples' own deviation:
 * one shift of level among them (the change being watched for) moves
 * one difference, where it made half the samples deviate (a unit of 0.89
 * in one four-rank testbed run, where pair's 27 ms calls turned 96 ms:
 * no alarm until the neighbour stopped) */
static double noise(const psk_tune_group *g)
{
    const psk_tune_arml *a = &g->arm[g->inc];
    if (a->n < 8)
        return NOISE0;
    float d[PSK_TUNE_NSAMP], e[PSK_TUNE_NSAMP];
    int first = a->n < PSK_TUNE_NSAMP ? 0 : a->pos, n = 0; /* the oldest */
    for (int k = 1; k < a->n; k++) {
        float x0 = a->x[(first + k - 1) % PSK_TUNE_NSAMP], x1 = a->x[(first + k) % PSK_TUNE_NSAMP];
        if (x0 > 0 && x1 > 0)
            d[n++] = (float)log(x1 / x0);
    }
    if (n < 7)
        return NOISE0;
    memcpy(e, d, (size_t)n * sizeof *d);
    double m = median(e, n);
    for (int i = 0; i < n; i++)
        d[i] = (float)fabs(d[i] - m);
    double s = 1.4826 * median(d, n) / sqrt(2);
    return s < 0.1 ? 0.1 : s > 1 ? 1 : s;
}

/* half the width of the confidence interval of arm a's median log ratio */
static double rhalf(const psk_tune_group *g, int a) { return Z * 1.25 * g->sigma / sqrt(g->arm[a].rn); }

/* ---- names, history ---- */

const char *psk_tune_why_name(int why)
{
    static const char *const n[] = {"start", "warm start", "explored", "change detected", "STAR learning",
                                    "STAR monitor"};
    return why >= 0 && why < (int)(sizeof n / sizeof *n) ? n[why] : "?";
}

const char *psk_tune_origin_name(int origin)
{
    static const char *const n[] = {"none", "decision file", "same size elsewhere", "decision file, other site",
                                    "neighbouring size", "decision file, exploring"};
    return origin >= 0 && origin < (int)(sizeof n / sizeof *n) ? n[origin] : "?";
}

const char *psk_tune_phase_name(int phase)
{
    static const char *const n[] = {"native", "exploring", "monitoring", "STAR learning", "STAR monitoring"};
    return phase >= 0 && phase < (int)(sizeof n / sizeof *n) ? n[phase] : "?";
}

static void set_inc(psk_tune_group *g, int arm, int why)
{
    if (arm == g->inc && why != WHY_START && why != WHY_WARM)
        return;
    if (g->nhist < PSK_TUNE_NHIST)
        g->hist[g->nhist++] = (psk_tune_change){g->calls, (int8_t)g->inc, (int8_t)arm, (uint8_t)why};
    if (why != WHY_START)
        g->nchanges++;
    g->inc = arm;
}

/* ---- what groups settled, for others (process-wide) ---- */

typedef struct prior {
    int P, coll, sclass, arm;
} prior;

static struct {
    pthread_mutex_t lock;
    prior *v;
    int n, cap;
} PR = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

void psk_tune_learn_settled(const psk_tune_comm *c, const psk_tune_group *g)
{
    if (g->bytes) /* STAR's groups share nothing */
        return;
    pthread_mutex_lock(&PR.lock);
    int i = 0;
    while (i < PR.n && !(PR.v[i].P == c->size && PR.v[i].coll == g->coll && PR.v[i].sclass == g->sclass))
        i++;
    if (i == PR.n && PR.n == PR.cap) {
        int cap = PR.cap ? 2 * PR.cap : 16;
        prior *v = realloc(PR.v, (size_t)cap * sizeof *v);
        if (v)
            PR.v = v, PR.cap = cap;
    }
    if (i < PR.cap) {
        PR.v[i] = (prior){c->size, g->coll, g->sclass, g->inc};
        if (i == PR.n)
            PR.n++;
    }
    pthread_mutex_unlock(&PR.lock);
}

static int prior_of(int P, int coll, int sclass)
{
    int arm = -1;
    pthread_mutex_lock(&PR.lock);
    for (int i = 0; i < PR.n; i++)
        if (PR.v[i].P == P && PR.v[i].coll == coll && PR.v[i].sclass == sclass)
            arm = PR.v[i].arm;
    pthread_mutex_unlock(&PR.lock);
    return arm;
}

/* ---- agreement ---- */

static void chunks(uint64_t h, double *v)
{
    v[0] = (double)(h & 0x3fffff), v[1] = (double)((h >> 22) & 0x3fffff), v[2] = (double)(h >> 44);
}

/* n values agreed: after the call v holds the maximum, same[i] whether
 * every rank had the same */
static int agree(MPI_Comm comm, double *v, int *same, int n)
{
    double b[64];
    for (int i = 0; i < n; i++)
        b[2 * i] = v[i], b[2 * i + 1] = -v[i];
    int rc = PMPI_Allreduce(MPI_IN_PLACE, b, 2 * n, MPI_DOUBLE, MPI_MAX, comm);
    for (int i = 0; i < n; i++) {
        v[i] = b[2 * i];
        same[i] = rc == MPI_SUCCESS && b[2 * i] == -b[2 * i + 1];
    }
    return rc;
}

static uint64_t fnv(const char *s) { return psk_tune_hash(0xcbf29ce484222325u, s, strlen(s)); }

/* the machine's name: the host name without its domain and trailing
 * digits (node017 -> node), and whether every rank is on one host */
static void host_names(char *full, size_t nf, char *base, size_t nb)
{
    if (gethostname(full, nf - 1))
        snprintf(full, nf, "unknown");
    full[nf - 1] = 0;
    size_t n = strcspn(full, ".");
    while (n > 1 && full[n - 1] >= '0' && full[n - 1] <= '9')
        n--;
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < nb; i++) {
        char ch = full[i];
        base[k++] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-'
                            ? ch
                            : '_';
    }
    base[k] = 0;
}

void psk_tune_learn_comm(psk_tune_comm *c)
{
    const psk_tune_cfg *cf = &psk_tune_cfg_g;
    char full[256], base[64];
    host_names(full, sizeof full, base, sizeof base);
    c->groups = calloc(PSK_TUNE_MAXGROUPS, sizeof *c->groups);
    double v[12];
    int same[12];
    v[0] = c->groups != NULL;
    chunks(cf->hash, v + 1);
    chunks(fnv(full), v + 4);
    chunks(fnv(base), v + 7);
    /* the model's prior: a machine file's intra-node costs when it puts
     * the whole communicator on one node */
    int intra = cf->machine_rpn >= c->size;
    v[10] = intra ? cf->intra_alpha0 : cf->alpha0;
    v[11] = intra ? cf->intra_beta0 : cf->beta0;
    int rc = agree(c->priv, v, same, 12);
    c->learn = -1;
    if (rc != MPI_SUCCESS || !same[0] || v[0] != 1 || !same[1] || !same[2] || !same[3]) {
        if (rc == MPI_SUCCESS && c->rank == 0 && v[0] == 1)
            fprintf(stderr, "perfskel-tune: the ranks of a communicator of %d have different PSK_TUNE_* settings: "
                            "its collectives stay native\n",
                    c->size);
        free(c->groups);
        c->groups = NULL;
        return;
    }
    c->single_node = same[4] && same[5] && same[6];
    int one_name = same[7] && same[8] && same[9];
    snprintf(c->machine, sizeof c->machine, "%s:%s", one_name ? base : "mixed", c->single_node ? "1" : "n");
    c->alpha0 = v[10], c->beta0 = v[11];
    c->learn = 1;
}

/* ---- windows ---- */

static void plan_reset(psk_tune_group *g)
{
    g->nslot = g->slot = g->inslot = 0;
    g->wcap = g->base > 0 ? WCLIP * g->base : INFINITY;
    g->sum_extra = 0;
    g->wsite = 0;
}

static void plan_add(psk_tune_group *g, int arm, uint32_t calls)
{
    if (!calls || g->nslot >= g->cap)
        return;
    g->spair[g->nslot] = -1;
    g->sarm[g->nslot] = (uint8_t)arm;
    g->scalls[g->nslot] = calls;
    g->smixed[g->nslot] = 0;
    g->st[g->nslot] = 0;
    g->sw[g->nslot] = 0;
    g->nslot++;
}

/* one call of arm, not measured, where the window's last call is of
 * another arm (or none: the first call after the allreduce) */
static void plan_warm(psk_tune_group *g, int arm)
{
    if (!psk_tune_cfg_g.switch_warmup || (g->nslot && g->sarm[g->nslot - 1] == arm))
        return;
    plan_add(g, arm, 1);
    if (g->nslot)
        g->smixed[g->nslot - 1] = 1;
}

/* w calls of arm in at most `slots` slots */
static void plan_spread(psk_tune_group *g, int arm, uint32_t w, int slots)
{
    uint32_t per = (w + (uint32_t)slots - 1) / (uint32_t)slots;
    while (w > 0) {
        uint32_t k = w < per ? w : per;
        plan_add(g, arm, k);
        w -= k;
    }
}

static uint32_t clampu(double x, uint32_t lo, uint32_t hi)
{
    return !(x > lo) ? lo : x > hi ? hi : (uint32_t)ceil(x);
}

/* ---- the learner ---- */

static int valid(const psk_tune_comm *c, const psk_tune_group *g, int a)
{
    double m = g->calls ? g->bytes_sum / (double)g->calls : (double)((size_t)1 << (g->sclass > 0 ? g->sclass : 0));
    return psk_tune_arm_valid(g->coll, a, c->size, (size_t)m, g->inplace);
}

static void predict(const psk_tune_comm *c, psk_tune_group *g)
{
    double m = g->calls ? g->bytes_sum / (double)g->calls : 0;
    psk_tune_model_predict(c, g->coll, c->size, m, g->inplace, g->pred);
    /* scaled to what the incumbent measures now (the model has no
     * contention: only its ratios are used) */
    double e = psk_tune_learn_est(g, g->inc), p = g->pred[g->inc];
    if (e > 0 && p > 0)
        for (int a = 0; a < PSK_TUNE_NARMS; a++)
            g->pred[a] *= e / p;
    /* the model's record: how far it under-estimated arms measured */
    g->kappa = KAPPA0;
    for (int a = 1; a < PSK_TUNE_NARMS; a++)
        if (g->arm[a].n && g->pred[a] > 0) {
            double r = psk_tune_learn_est(g, a) / g->pred[a];
            if (r > g->kappa)
                g->kappa = r > 4 ? 4 : r;
        }
}

/* the candidates: valid arms predicted within margin of the best (the
 * incumbent's measured time included), at most KMAX, best first; a seed's
 * arm first whatever the model says of it */
static void candidates(const psk_tune_comm *c, psk_tune_group *g, int only_seed)
{
    const psk_tune_cfg *cf = &psk_tune_cfg_g;
    g->active = 0;
    g->first = g->seed_arm;
    if (only_seed) {
        if (g->seed_arm > 0 && g->seed_arm != g->inc && valid(c, g, g->seed_arm))
            g->active = 1u << g->seed_arm;
        return;
    }
    double best = psk_tune_learn_est(g, g->inc);
    for (int a = 1; a < PSK_TUNE_NARMS; a++)
        if (g->pred[a] > 0 && valid(c, g, a) && (best <= 0 || g->pred[a] < best))
            best = g->pred[a];
    int order[PSK_TUNE_NARMS], n = 0;
    if (g->seed_arm > 0 && g->seed_arm != g->inc && valid(c, g, g->seed_arm))
        order[n++] = g->seed_arm;
    for (;;) { /* selection by prediction */
        int pick = -1;
        for (int a = 1; a < PSK_TUNE_NARMS; a++) {
            int taken = a == g->inc;
            for (int i = 0; i < n; i++)
                taken |= order[i] == a;
            if (taken || g->pred[a] <= 0 || !valid(c, g, a) || g->pred[a] > cf->margin * best ||
                (cf->switch_warmup && g->arm[a].dropped))
                continue;
            if (pick < 0 || g->pred[a] < g->pred[pick])
                pick = a;
        }
        if (pick < 0 || n >= KMAX)
            break;
        order[n++] = pick;
    }
    for (int i = 0; i < n; i++)
        g->active |= 1u << order[i];
}

/* what exploring may still spend: the budget of the collective time so
 * far, less the probes' excess and the exploring windows' allreduces;
 * plus, when the incumbent slowed down, what that cost in the window that
 * showed it (a change is worth exploring for as much as it loses);
 * earlier runs' time and spending (the decision file's state) count */
static double bank(const psk_tune_group *g)
{
    return psk_tune_cfg_g.budget * (g->prev_total + g->total) + g->credit - g->overhead - g->explore_ar -
           g->prev_spent;
}

/* the risk of one more probe of a: how much slower than the incumbent it
 * may be: measured, else kappa x predicted and at least RISK_FLOOR of the
 * incumbent (a model without contention is never trusted further; but an
 * arm another group of this size settled on is) */
static double risk(const psk_tune_group *g, int a)
{
    double inc = psk_tune_learn_est(g, g->inc);
    int seeded = a == g->seed_arm && (g->origin == ORIGIN_SEED || g->origin == ORIGIN_SEED_DB);
    if (!g->arm[a].rn && seeded) /* what a group of this size settled on: trusted */
        return 0;
    if (!g->arm[a].rn)
        return fmax(g->kappa * g->pred[a] - inc, RISK_FLOOR * inc);
    double t = inc * exp(rmed(g, a));
    return t > inc ? t - inc : 0;
}

/* a monitoring window's length: its decision (allreduce and deciding)
 * costs at most RHO_MON of its calls' time or 0.05 us a call, whichever is
 * more (notes T7: 0.5 us a call in all, 1 % for calls of 50 us or more),
 * at least WMON_MIN calls (the shortest after a CUSUM a third of the way), at most
 * 64 for calls of 50 us or more and WMON_MAX for cheaper ones. A window is
 * planned in calls: one planned for cheap calls that turn expensive lasts
 * until its end, so that expensive ones are never planned long. */
static uint32_t monitor_len(const psk_tune_group *g)
{
    double inc = psk_tune_learn_est(g, g->inc);
    if (!(inc > 0))
        return WMON_MIN;
    /* a CUSUM a third of the way to its threshold (a slot far off at the
     * window's end): the next window just long enough to confirm it if the
     * shift holds (at least 2 calls: the first takes the skew), so that a
     * change late in a window is acted on soon; rare, so the cost holds */
    double S = fmax(g->sp, g->sn);
    if (S > g->h / 3)
        return clampu((g->h - S) / (ZCLIP * g->h / CUSUM_H - CUSUM_K) + 2, 2, WMON_MIN);
    return clampu(g->ar_cost / fmax(RHO_MON * inc, DEC_NS), WMON_MIN, inc >= 50e3 ? 64 : WMON_MAX);
}

/* the slots for w calls of the incumbent, at most max: one a call for
 * calls of 10 us or more (a change is seen within a few calls); cheaper
 * ones 8 calls a slot or more, so that the change detector sees their mean
 * (one call of a microsecond is mostly the machine's jitter) */
static int inc_slots(const psk_tune_group *g, uint32_t w, int max)
{
    if (psk_tune_learn_est(g, g->inc) >= 10e3)
        return max;
    int k = (int)(w / 8);
    return k < 1 ? 1 : k < max ? k : max;
}

static void plan_monitor(psk_tune_group *g, int probe)
{
    uint32_t w = monitor_len(g);
    plan_reset(g);
    if (probe >= 0) { /* the runner-up once, in the middle */
        plan_spread(g, g->inc, w / 2, inc_slots(g, w / 2, LEARN_SLOTS / 2 - 1));
        plan_add(g, probe, 1);
        plan_spread(g, g->inc, w - w / 2, inc_slots(g, w - w / 2, LEARN_SLOTS / 2));
    } else
        plan_spread(g, g->inc, w, inc_slots(g, w, LEARN_SLOTS));
}

static void start_monitor(psk_tune_group *g)
{
    g->phase = PH_MONITOR;
    g->settled = 1;
    g->base = psk_tune_learn_est(g, g->inc);
    g->noise = noise(g);
    g->sp = g->sn = 0;
    g->nmon = 0;
    g->probe_every = 4, g->probe_wait = 4;
    /* the runner-up: the best other arm measured */
    g->runner = -1;
    for (int a = 0; a < PSK_TUNE_NARMS; a++)
        if (a != g->inc && g->arm[a].n && !g->arm[a].dropped &&
            (g->runner < 0 || psk_tune_learn_est(g, a) < psk_tune_learn_est(g, g->runner)))
            g->runner = a;
    if (g->runner < 0 && g->inc != PSK_TUNE_native && g->arm[PSK_TUNE_native].n)
        g->runner = PSK_TUNE_native;
}

/* an exploring window: [incumbent, probe] pairs for the candidates the
 * bank pays for, measured ones first, then one never probed (the first
 * of them: the runner-up or a seed's arm, else by prediction), so that a
 * probe far worse than its risk costs once before the bank stops the next;
 * padded with the incumbent so that the allreduce stays within RHO_EXP;
 * only the incumbent if no probe is paid for */
static void plan_explore(psk_tune_group *g)
{
    double inc = psk_tune_learn_est(g, g->inc), left = bank(g) - g->ar_cost;
    int probes[2 * PSK_TUNE_NARMS], n = 0, fresh = -1, faster = 0;
    for (int a = 0; a < PSK_TUNE_NARMS; a++) {
        if (!(g->active >> a & 1) || a == g->inc || g->arm[a].trials >= TMAX)
            continue;
        if (g->arm[a].rn) {
            if (risk(g, a) <= left) {
                left -= risk(g, a);
                probes[n++] = a;
                /* one that looks faster (no risk): twice, to be promoted
                 * sooner after a change; no fresh arm then */
                if (rmed(g, a) < log(1 - HYST) && g->arm[a].trials + 1 < TMAX) {
                    probes[n++] = a;
                    faster = 1;
                }
            }
        } else if (fresh < 0 || a == g->first || (fresh != g->first && g->pred[a] < g->pred[fresh]))
            fresh = a;
    }
    /* a short job (FT makes some 20 calls) only probes what the model
     * says wins by 10 % (notes/collectives.md, "How to beat", 2) */
    if (fresh >= 0 && g->prev_calls + g->calls < FEW_CALLS && !(g->pred[fresh] > 0 && g->pred[fresh] <= 0.9 * inc) &&
        !(fresh == g->seed_arm && (g->origin == ORIGIN_SEED || g->origin == ORIGIN_SEED_DB)))
        fresh = -1;
    if (fresh >= 0 && !faster && risk(g, fresh) <= left)
        probes[n++] = fresh;
    plan_reset(g);
    uint32_t w = clampu(inc > 0 ? g->ar_cost / (RHO_EXP * inc) : 0, 2, WMON_MAX);
    g->waiting = !n;
    if (!n) { /* wait for the bank: a monitoring-sized window, ending at
               * FEW_CALLS if before (a change detected early must not
               * delay the first probes) */
        uint32_t wm = monitor_len(g);
        if (g->calls < FEW_CALLS && wm > FEW_CALLS - g->calls)
            wm = (uint32_t)(FEW_CALLS - g->calls) < 2 ? 2 : (uint32_t)(FEW_CALLS - g->calls);
        plan_spread(g, g->inc, wm, inc_slots(g, wm, LEARN_SLOTS));
        return;
    }
    /* the first call after the allreduce takes the ranks' skew: the
     * incumbent's, unpaired (unless the allreduce, which bounds the skew,
     * is under 5 % of a call: then a change is acted on a call sooner);
     * then each pair in turn probe first or second (an order effect must
     * not favour one side) */
    int lead = !(inc > 0 && g->ar_cost < 0.05 * inc);
    if (lead)
        plan_add(g, g->inc, 1);
    /* PSK_TUNE_SWITCH_WARMUP=1 (an experiment, off by default): each
     * side of a pair measured as it runs in a row, after one call of its
     * own not measured (smixed) where the call before was of another arm.
     * The first call after a switch takes what the other arm left (its
     * ranks' skew, connections in another state): at P = 4 on the testbed
     * pair measured 43 ms after native's 33 (its own steady 27), and every
     * paired probe of it lost to native. A probe then costs two calls of
     * its arm, which the budget does not count yet (docs/tune.md). */
    for (int i = 0; i < n; i++) {
        int again = i > 0 && probes[i - 1] == probes[i];
        int probe_first = (g->arm[probes[i]].trials + (uint32_t)again) & 1;
        int x = probe_first ? probes[i] : g->inc, y = probe_first ? g->inc : probes[i];
        plan_warm(g, x);
        plan_add(g, x, 1);
        int sx = g->nslot - 1;
        plan_warm(g, y);
        plan_add(g, y, 1);
        g->spair[g->nslot - 1] = (int16_t)sx;
        g->spair[sx] = (int16_t)(g->nslot - 1);
    }
    /* a rich bank (a slow incumbent) pays for short windows: faster */
    uint32_t used = (uint32_t)g->nslot;
    if (w > used && left < 8 * g->ar_cost)
        plan_spread(g, g->inc, w - used, inc_slots(g, w - used, LEARN_SLOTS - (int)used));
}

static void drop(psk_tune_group *g, int a)
{
    g->active &= ~(1u << a);
    if (!g->arm[a].dropped)
        g->arm[a].dropped = g->calls + 1;
    g->arm[a].drop_ratio = g->arm[a].rn ? (float)rmed(g, a) : 0;
    g->arm[a].drop_inc = (float)psk_tune_learn_est(g, g->inc);
}

/* a becomes the incumbent: the ratios were to the old one, so each is
 * divided by a's median ratio; the old incumbent's is its inverse */
static void promote(psk_tune_group *g, int a, int keep_old)
{
    int old = g->inc;
    double m = rmed(g, a);
    for (int b = 0; b < PSK_TUNE_NARMS; b++) {
        if (b == a) {
            g->arm[b].rn = g->arm[b].rpos = 0, g->arm[b].trials = 0;
            continue;
        }
        for (int i = 0; i < g->arm[b].rn; i++)
            g->arm[b].r[i] -= (float)m;
    }
    add_ratio(&g->arm[old], -m);
    g->active &= ~(1u << a);
    g->arm[a].dropped = 0;
    set_inc(g, a, WHY_EXPLORE);
    /* the change detector: a new baseline from the next window (the
     * probes' few calls next to the old incumbent's do not make one) */
    g->base = 0;
    g->sp = g->sn = 0;
    if (keep_old) { /* still compared, until clearly worse */
        g->active |= 1u << old;
        g->arm[old].dropped = 0;
    } else /* decided by medians: as good, within noise; not probed again */
        drop(g, old);
}

/* the paired probes an arm needs to become the incumbent: MIN_PROMOTE;
 * 2 if both were twice as fast, or for the incumbent the previous change
 * found (a load that came and went); 1 for the arm another group of this
 * size settled on */
static int min_promote(const psk_tune_group *g, int a, int strong)
{
    if (strong && a == g->seed_arm)
        return 1;
    if (g->inc_before >= 0 && a == g->back_arm)
        return 2;
    const psk_tune_arml *s = &g->arm[a];
    int halves = 0;
    for (int i = 0; i < s->rn; i++)
        halves += s->r[i] < -0.69f;
    return halves >= 2 && halves == s->rn ? 2 : MIN_PROMOTE;
}

/* after an exploring window: sequential elimination on the paired ratios;
 * an arm clearly slower is dropped, one clearly faster (by HYST) becomes
 * the incumbent, one out of probes is decided by its median ratio */
static void explore_step(psk_tune_group *g)
{
    const double gain = log(1 - HYST);
    for (int a = 0; a < PSK_TUNE_NARMS; a++)
        if ((g->active >> a & 1) && g->arm[a].rn && rmed(g, a) - rhalf(g, a) > 0)
            drop(g, a);
    int best = -1, keep_old = 1;
    /* one lucky call never makes an incumbent, unless another group of
     * this size settled on it already */
    int strong = g->origin == ORIGIN_SEED || g->origin == ORIGIN_SEED_DB;
    for (int a = 0; a < PSK_TUNE_NARMS; a++)
        if ((g->active >> a & 1) && g->arm[a].rn >= min_promote(g, a, strong) && rmed(g, a) + rhalf(g, a) < gain &&
            (best < 0 || rmed(g, a) < rmed(g, best)))
            best = a;
    /* out of probes: the median decides, with hysteresis; the incumbent
     * it replaces is not probed again (arms within noise of each other
     * would take turns for ever: they settle) */
    /* After a change only the confidence bound promotes: alarms on a
     * noisy machine must not make arms that are one algorithm take turns */
    if (best < 0) {
        keep_old = 0;
        for (int a = 0; a < PSK_TUNE_NARMS; a++)
            if ((g->active >> a & 1) && g->arm[a].trials >= TMAX) {
                if (g->inc_before < 0 && rmed(g, a) < gain && (best < 0 || rmed(g, a) < rmed(g, best)))
                    best = a;
                else if (rmed(g, a) >= gain || g->inc_before >= 0)
                    drop(g, a);
            }
    }
    if (best >= 0)
        promote(g, best, keep_old);
    if (!g->active) {
        start_monitor(g);
        /* after a change detected: if the time per call is back where it
         * was (within 10 %, or the noise), the alarm was false: less
         * sensitive now */
        if (g->inc_before >= 0 && g->alarm_base > 0 && fabs(log(g->base / g->alarm_base)) < fmax(0.1, g->noise))
            g->h = g->h * 2 > CUSUM_HMAX ? CUSUM_HMAX : g->h * 2;
        else if (g->inc_before >= 0)
            g->h = CUSUM_H;
        g->inc_before = -1;
    }
}

/* an arm dropped as 1.5 times slower than the incumbent was then, and
 * so slower than it is at the level now (ns a call; 0: not known) */
static int still_slower(const psk_tune_group *g, int a, double now)
{
    double ratio = g->arm[a].drop_ratio;
    if (g->arm[a].drop_inc > 0 && now > g->arm[a].drop_inc)
        ratio -= log(now / g->arm[a].drop_inc);
    return ratio > log(1.5);
}

/* a change: everything measured before is stale but the incumbent's last
 * window; every plausible arm is a candidate again, native always, but an
 * arm dropped as, or measured, 1.5 times slower than the incumbent (a
 * change of traffic reorders close arms, not those), counted against the
 * incumbent's new level where it slowed down. With
 * PSK_TUNE_SWITCH_WARMUP (the experiment), not one the model predicts no
 * slower than the incumbent, measured under another traffic (at P = 4 on
 * the testbed pair and ring are 1.2-1.3 times native while a neighbour
 * runs, bursts making some probes 1.5 times, and 20-25 % faster once it
 * stops), and the 4 candidates are the best of those not left out. A
 * change detected while exploring after another one, before anything
 * settled: the level does not hold still, the threshold is at least 2 x
 * CUSUM_H (no more: a neighbour job's stop must still be seen within a
 * few calls) */
static void reexplore(const psk_tune_comm *c, psk_tune_group *g, const float *last, int nlast)
{
    uint32_t keep_dropped = 0;
    if (g->phase == PH_EXPLORE && g->inc_before >= 0 && g->h < 2 * CUSUM_H)
        g->h = 2 * CUSUM_H;
    for (int a = 0; a < PSK_TUNE_NARMS; a++)
        if (a != g->inc && !g->arm[a].dropped && g->arm[a].rn && rmed(g, a) > log(1.5))
            drop(g, a);
    /* the incumbent's level now: an arm left out for being 1.5 times
     * slower than the incumbent was then may beat it now that it slowed
     * down (every other arm dropped, an incumbent 20 ms slower was kept
     * to the end). Now is the median of the window's last three slots
     * (a change is three slots off in a row; the window's median, or the
     * baseline, may be from before it), against the level each arm was
     * dropped at */
    double now = 0;
    if (nlast > 0) {
        float v[3];
        int n = nlast < 3 ? nlast : 3;
        memcpy(v, last + nlast - n, (size_t)n * sizeof *v);
        now = median(v, n);
    }
    for (int a = 0; a < PSK_TUNE_NARMS; a++) {
        if (g->arm[a].dropped && still_slower(g, a, now))
            keep_dropped |= 1u << a;
        clear_samples(&g->arm[a]);
        g->arm[a].rn = g->arm[a].rpos = 0;
    }
    for (int i = 0; i < nlast; i++)
        add_sample(&g->arm[g->inc], last[i]);
    int runner = g->runner;
    predict(c, g);
    for (int a = 0; a < PSK_TUNE_NARMS; a++) {
        if (psk_tune_cfg_g.switch_warmup && keep_dropped >> a & 1 && g->pred[a] > 0 && g->pred[g->inc] > 0 &&
            g->pred[a] <= 1.001 * g->pred[g->inc])
            keep_dropped &= ~(1u << a); /* the model favours it: measured under another traffic */
        if (!(keep_dropped >> a & 1))
            g->arm[a].dropped = 0;
    }
    candidates(c, g, 0);
    if (g->inc != PSK_TUNE_native)
        g->active |= 1u << PSK_TUNE_native;
    if (runner >= 0 && runner != g->inc && valid(c, g, runner)) {
        g->active |= 1u << runner;
        g->first = runner;
    }
    /* the incumbent the previous change found: a load that came and went
     * (a neighbour job) makes it the best again */
    int prev = g->change_inc;
    g->change_inc = g->inc;
    g->back_arm = -1;
    if (g->alarms >= 2 && prev >= 0 && prev != g->inc && valid(c, g, prev)) {
        g->active |= 1u << prev;
        g->first = g->back_arm = prev;
        keep_dropped &= ~(1u << prev);
    }
    g->active &= ~keep_dropped;
    g->inc_before = g->inc;
    g->phase = PH_EXPLORE;
    g->base = 0; /* from the next window: the alarm's mixes both levels */
    g->noise = noise(g);
    g->sp = g->sn = 0;
    if (g->nhist < PSK_TUNE_NHIST)
        g->hist[g->nhist++] = (psk_tune_change){g->calls, (int8_t)g->inc, (int8_t)g->inc, WHY_CHANGE};
}

/* Level shifts of the incumbent, in every phase of the learner: the
 * window's slots of the incumbent in order (a monitoring window's; an
 * exploring one's unpaired first call, the incumbent's side of each pair
 * and the padding). Two-sided CUSUMs of z = log(w / baseline) / unit, w
 * the slot's time per call with each call cut at WCLIP x the baseline (a
 * descheduled call is no change; reduced as the time, by MAX), unit the
 * spread of the incumbent's slot times (g->noise, at least UNIT_MIN: a
 * shift under 15 % is not worth exploring for), z clipped to +-ZCLIP,
 * drift CUSUM_K, threshold g->h (it doubles after a false alarm:
 * hysteresis; the clip grows with it): three slots two units off in a row
 * are a change (four, eight after false alarms), eight one unit off, a few
 * descheduled calls are not. A window's first call, alone
 * in its slot, is left out (it takes the ranks' skew after the
 * allreduce) unless the allreduce is under 5 % of a call. Monitoring also takes the
 * runner-up's probe: clearly faster than the window's median, it is a
 * change too. On a change: everything measured before is stale, exploring
 * again (re-planned at once; returns 1). */
static int watch(const psk_tune_comm *c, psk_tune_group *g, const double *per, const double *win, int nper)
{
    float v[LEARN_SLOTS];
    int n = 0, probed = -1, up = 0, down = 0;
    double probe_t = 0;
    /* the samples are slot times already: their spread is the slot's;
     * the clip grows with the threshold: after false alarms a shift must
     * be as much larger to be seen in three slots */
    double unit = fmax(g->noise, UNIT_MIN), clip = ZCLIP * g->h / CUSUM_H;
    if (g->warmup > 0) {
        /* a warm start: the baseline is this run's, never the file's; its
         * first window warms up (connections, caches: slower), the next
         * one's median is the baseline */
        for (int s = 0; s < nper; s++)
            if (!g->smixed[s] && g->sarm[s] == g->inc)
                v[n++] = (float)per[s];
        if (n && !--g->warmup) {
            g->base = median(v, n);
            g->noise = noise(g);
        }
        return 0;
    }
    if (g->base <= 0) /* a change's or a new incumbent's first window: the baseline */
        for (int s = 0; s < nper; s++)
            if (!g->smixed[s] && g->sarm[s] == g->inc)
                v[n++] = (float)per[s];
    if (n) {
        g->base = median(v, n);
        n = 0;
        /* exploring after a change: the incumbent may have slowed down
         * since (a false alarm just before a real change makes this
         * window's baseline the slow level, and no change is seen after
         * it); an arm dropped as slower than it was is a candidate again
         * where it is not slower than the baseline now */
        if (g->phase == PH_EXPLORE)
            for (int a = 0; a < PSK_TUNE_NARMS; a++)
                if (a != g->inc && g->arm[a].dropped && !still_slower(g, a, g->base) && valid(c, g, a)) {
                    g->arm[a].dropped = 0;
                    g->active |= 1u << a;
                }
    }
    for (int s = 0; s < nper; s++) {
        if (g->smixed[s])
            continue;
        if (g->sarm[s] != g->inc) {
            if (g->phase == PH_MONITOR)
                probed = g->sarm[s], probe_t = per[s];
            continue;
        }
        v[n++] = (float)per[s];
        /* the first call after the allreduce takes the ranks' skew (at
         * most the allreduce's time) */
        if (s == 0 && g->scalls[s] == 1 && !(g->ar_cost < 0.05 * g->base))
            continue;
        double z = win[s] > 0 ? log(win[s] / g->base) / unit : 0;
        z = z > clip ? clip : z < -clip ? -clip : z;
        g->sp = fmax(0, g->sp + z - CUSUM_K);
        g->sn = fmax(0, g->sn - z - CUSUM_K);
        up |= g->sp > g->h;
        down |= g->sn > g->h;
    }
    if (!n)
        return 0;
    float vm[LEARN_SLOTS];
    memcpy(vm, v, (size_t)n * sizeof *v);
    double y = median(vm, n);
    int alarm = up || down;
    if (g->phase == PH_MONITOR)
        g->nmon++;
    /* the runner-up clearly faster than the incumbent's median */
    int better = probed >= 0 && log(probe_t / y) < log(1 - HYST) - Z * 1.25 * g->sigma;
    if (alarm || better) {
        /* a slowdown of the median (not a burst of outliers): what the
         * window lost against the baseline may be spent exploring */
        if (y > 1.1 * g->base)
            for (int i = 0; i < nper; i++)
                if (!g->smixed[i] && g->sarm[i] == g->inc && per[i] > g->base)
                    g->credit += (per[i] - g->base) * g->scalls[i];
        g->alarms++;
        g->alarm_base = g->base;
        /* exploring, a shift under 1.5 times: a new baseline, the
         * exploring goes on (re-planning at every such alarm of a jittery
         * machine, it never ended) */
        if (g->phase == PH_EXPLORE && !better && fabs(log(y / g->base)) < log(1.5)) {
            g->base = y;
            g->sp = g->sn = 0;
            return 0;
        }
        reexplore(c, g, v, n);
        plan_explore(g);
        return 1;
    }
    g->noise = noise(g);
    if (probed >= 0)
        g->probe_every = g->probe_every * 2 > 64 ? 64 : g->probe_every * 2;
    return 0;
}

static void learn_decide(const psk_tune_comm *c, psk_tune_group *g, const double *per, const double *win, int nper)
{
    /* the ratios and the model's scale change only while exploring:
     * monitoring keeps them (a decision there is a few medians) */
    if (g->phase != PH_MONITOR) {
        g->sigma = pooled_sigma(g);
        predict(c, g);
    }
    switch (g->phase) {
    case PH_NATIVE0:
        g->phase = PH_EXPLORE;
        g->inc_before = -1;
        g->base = 0; /* from the next window (the first calls set up) */
        g->noise = noise(g);
        g->sp = g->sn = 0;
        if (g->origin == ORIGIN_RESUME) /* the candidates still compared in an earlier run */
            g->active &= ~(1u << g->inc);
        else
            candidates(c, g, g->origin == ORIGIN_SEED || g->origin == ORIGIN_SEED_DB);
        if (!g->active) {
            start_monitor(g);
            break;
        }
        plan_explore(g);
        return;
    case PH_EXPLORE:
        /* the incumbent's calls in an exploring window (the unpaired
         * first, its side of the pairs, the padding) are watched as when
         * monitoring: a change re-plans the exploring */
        if (watch(c, g, per, win, nper))
            return;
        explore_step(g);
        if (g->phase == PH_EXPLORE) {
            plan_explore(g);
            return;
        }
        break;
    case PH_MONITOR:
        if (watch(c, g, per, win, nper))
            return;
        break;
    }
    /* monitoring: now and then the runner-up, if the bank pays for it */
    int probe = -1;
    if (g->phase == PH_MONITOR && g->runner >= 0 && --g->probe_wait <= 0) {
        g->probe_wait = g->probe_every;
        predict(c, g);
        if (valid(c, g, g->runner) && risk(g, g->runner) + g->ar_cost <= bank(g))
            probe = g->runner;
    }
    plan_monitor(g, probe);
}

/* ---- STAR-MPI ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void star_plan_monitor(psk_tune_group *g)
{
    uint32_t X = (uint32_t)psk_tune_cfg_g.star_x, w = (uint32_t)g->star_factor * X;
    plan_reset(g);
    plan_add(g, g->inc, 2); /* skipped */
    plan_add(g, g->inc, w - X);
    plan_add(g, g->inc, X);
    g->sum_extra = 1; /* the window's local mean, reduced as such */
}

static void star_decide(const psk_tune_comm *c, psk_tune_group *g, const double *per, double extra)
{
    int X = psk_tune_cfg_g.star_x;
    if (g->phase == PH_STAR_LEARN) {
        /* per arm the mean of its fastest X/2 + 1 maxima; best first */
        int best = -1, second = -1;
        for (int s = 0; s + X <= g->nslot; s += X) {
            int a = g->sarm[s];
            double v[STAR_SLOTS];
            for (int i = 0; i < X; i++)
                v[i] = per[s + i];
            qsort(v, (size_t)X, sizeof *v, cmp_double);
            double sum = 0;
            for (int i = 0; i < X / 2 + 1; i++)
                sum += v[i];
            g->arm[a].tuned = sum / (X / 2 + 1);
            if (best < 0 || g->arm[a].tuned < g->arm[best].tuned)
                second = best, best = a;
            else if (second < 0 || g->arm[a].tuned < g->arm[second].tuned)
                second = a;
        }
        if (best >= 0) {
            set_inc(g, best, WHY_STAR_LEARN);
            /* what learning cost against the arm it chose */
            for (int s = 0; s < g->nslot; s++)
                g->overhead += per[s] - g->arm[best].tuned;
        }
        g->runner = second;
        g->phase = PH_STAR_MON;
        g->star_factor = 2;
    } else {
        uint32_t w = (uint32_t)g->star_factor * (uint32_t)X;
        double wmean = extra / w, last = per[g->nslot - 1];
        double thresh = g->runner >= 0 ? 1.1 * g->arm[g->runner].tuned : INFINITY;
        if (wmean > thresh && last > thresh) {
            int old = g->inc;
            set_inc(g, g->runner, WHY_STAR_SWITCH);
            g->runner = old;
            g->star_factor = 2;
        } else if (!(wmean > thresh) && g->star_factor < (1 << 20))
            g->star_factor *= 2;
    }
    (void)c;
    star_plan_monitor(g);
}

static void star_start(const psk_tune_comm *c, psk_tune_group *g)
{
    int X = psk_tune_cfg_g.star_x;
    plan_reset(g);
    g->phase = PH_STAR_LEARN;
    for (int a = 1; a < PSK_TUNE_NARMS; a++) /* the repository's order; native is not in it */
        if (psk_tune_arm_valid(g->coll, a, c->size, g->bytes, g->inplace))
            for (int i = 0; i < X; i++)
                plan_add(g, a, 1);
    if (!g->nslot) { /* nothing to learn: native for good */
        g->phase = PH_STAR_MON;
        g->runner = -1;
        g->star_factor = 2;
        star_plan_monitor(g);
    }
}

/* ---- the check (PSK_TUNE_CHECK=1) ---- */

static uint64_t state_hash(const psk_tune_group *g)
{
    uint64_t h = 0xcbf29ce484222325u;
#define H(x) h = psk_tune_hash(h, &(x), sizeof(x))
    H(g->phase), H(g->calls), H(g->inc), H(g->runner), H(g->active), H(g->total), H(g->overhead), H(g->base),
        H(g->credit), H(g->noise),
        H(g->sp), H(g->sn), H(g->h), H(g->star_factor), H(g->nslot);
#undef H
    h = psk_tune_hash(h, g->sarm, (size_t)g->nslot);
    h = psk_tune_hash(h, g->scalls, (size_t)g->nslot * sizeof *g->scalls);
    for (int a = 0; a < PSK_TUNE_NARMS; a++) {
        h = psk_tune_hash(h, g->arm[a].x, g->arm[a].n * sizeof(float));
        h = psk_tune_hash(h, g->arm[a].r, g->arm[a].rn * sizeof(float));
    }
    return h;
}

static void check(const psk_tune_comm *c, psk_tune_group *g)
{
    uint64_t h = state_hash(g);
    /* a test's own way to make one rank decide otherwise (tests/tune) */
    const char *skew = getenv("PSK_TUNE_TEST_DESYNC");
    if (skew && *skew && atoi(skew) == c->rank && g->decisions == 1)
        h ^= 1;
    double v[3];
    int same[3];
    chunks(h, v);
    if (agree(c->priv, v, same, 3) == MPI_SUCCESS && same[0] && same[1] && same[2])
        return;
    int wrank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    fprintf(stderr,
            "perfskel-tune: PSK_TUNE_CHECK: decision mismatch: the ranks of a communicator of %d ranks do not "
            "agree after decision %llu of size class %d (call %llu); world rank %d (rank %d there) has state "
            "%016llx, arm %s next\n",
            c->size, (unsigned long long)g->decisions, g->sclass, (unsigned long long)g->calls, wrank, c->rank,
            (unsigned long long)h, psk_tune_arm_name(g->nslot ? g->sarm[0] : -1));
    fflush(stderr);
    /* the launcher forwards the message before it tears the job down
     * (MPICH's hydra lost it without the pause) */
    struct timespec pause = {0, 300000000};
    nanosleep(&pause, NULL);
    PMPI_Abort(MPI_COMM_WORLD, 3);
}

/* PSK_TUNE_DEBUG=3: each decision on stderr (rank 0 of the communicator) */
static void trace(const psk_tune_comm *c, const psk_tune_group *g)
{
    char plan[512];
    int k = 0;
    for (int s = 0; s < g->nslot && k < (int)sizeof plan - 32; s++)
        k += g->scalls[s] > 1 ? snprintf(plan + k, sizeof plan - (size_t)k, " %sx%u", psk_tune_arm_name(g->sarm[s]),
                                         g->scalls[s])
                              : snprintf(plan + k, sizeof plan - (size_t)k, " %s", psk_tune_arm_name(g->sarm[s]));
    fprintf(stderr,
            "perfskel-tune: comm %u %s class %d call %llu: %s, %s; active %#x; bank %.1f us; noise %.3f cusum "
            "%.2f/%.2f of %.1f; next:%s\n",
            c->id, psk_tune_coll_name(g->coll), g->sclass, (unsigned long long)g->calls, psk_tune_phase_name(g->phase),
            psk_tune_arm_name(g->inc), g->active, bank(g) / 1e3, g->noise, g->sp, g->sn, g->h, plan);
}

/* ---- a window's end: the one collective ---- */

/* reduce words: the slots' sums; the sum of the slots after the first
 * (STAR's window mean); this rank's previous decision's time (allreduce
 * and deciding), negated (the least is its cost: the others' includes
 * waiting for the last); the window's call sites' hash in three chunks
 * and their negations; then (the learner's) the slots' sums with each
 * call cut at wcap, for the change detector */
static void decide(psk_tune_comm *c, psk_tune_group *g)
{
    int n = g->nslot;
    int star = g->phase == PH_STAR_LEARN || g->phase == PH_STAR_MON;
    double *b = g->st;
    double ext = 0;
    for (int s = 1; s < n; s++)
        ext += b[s];
    b[n] = g->sum_extra ? ext : 0;
    b[n + 1] = -g->ar_local; /* the least: the last rank to arrive waits for no one */
    chunks(g->wsite, b + n + 2);
    for (int i = 0; i < 3; i++)
        b[n + 5 + i] = -b[n + 2 + i];
    if (!star)
        memcpy(b + n + EXTRA, g->sw, (size_t)n * sizeof *b);
    uint64_t t0 = psk_tune_now_ns();
    int rc = PMPI_Allreduce(MPI_IN_PLACE, b, n + EXTRA + (star ? 0 : n), MPI_DOUBLE, MPI_MAX, c->priv);
    g->ar_local = (double)(psk_tune_now_ns() - t0);
    if (rc != MPI_SUCCESS) { /* not recoverable in step: native from now */
        c->learn = -1;
        return;
    }
    g->decisions++;
    /* the allreduce's cost: the median of the last 8 (one descheduled
     * rank must not make the next windows long) */
    double ar = -b[n + 1];
    g->ars[g->nars++ % 8] = (float)ar;
    float v[8];
    int nv = g->nars < 8 ? (int)g->nars : 8;
    memcpy(v, g->ars, (size_t)nv * sizeof *v);
    g->ar_cost = median(v, nv);
    g->decide_ns += ar;
    if (g->phase == PH_EXPLORE && !g->waiting)
        g->explore_ar += ar;
    for (int i = 0; i < 3; i++)
        if (b[n + 2 + i] != -b[n + 5 + i])
            g->sites_differ = 1;
    /* the slots into the arms' statistics */
    double per[LEARN_SLOTS > STAR_SLOTS ? LEARN_SLOTS : STAR_SLOTS], win[LEARN_SLOTS];
    int nper = n;
    double inc_est = psk_tune_learn_est(g, g->inc);
    for (int s = 0; s < n; s++) {
        int a = g->sarm[s];
        double t = b[s];
        per[s] = t / g->scalls[s];
        if (!star)
            win[s] = b[n + EXTRA + s] / g->scalls[s];
        g->total += t;
        g->arm[a].calls += g->scalls[s];
        g->arm[a].time += t;
        if (a != g->inc && g->phase != PH_STAR_LEARN) {
            g->arm[a].explore += g->scalls[s];
            if (!g->alarms)
                g->explore_initial += g->scalls[s];
            if (inc_est > 0)
                g->overhead += t - g->scalls[s] * inc_est;
        } else if (g->phase == PH_STAR_LEARN) {
            g->arm[a].explore += g->scalls[s];
            g->explore_initial += g->scalls[s];
        }
        if (!g->smixed[s] && g->phase != PH_STAR_LEARN && g->phase != PH_STAR_MON)
            add_sample(&g->arm[a], t / g->scalls[s]);
    }
    /* a probe and the incumbent's call next to it: a paired ratio */
    if (g->phase == PH_EXPLORE)
        for (int s = 0; s < n; s++) {
            int q = g->spair[s];
            if (q >= 0 && g->sarm[s] != g->inc && g->sarm[q] == g->inc && !g->smixed[s] && !g->smixed[q] &&
                per[s] > 0 && per[q] > 0)
                add_ratio(&g->arm[g->sarm[s]], log(per[s] / per[q]));
        }
    if (star)
        star_decide(c, g, per, b[n]);
    else
        learn_decide(c, g, per, win, nper);
    if (g->phase == PH_MONITOR)
        psk_tune_learn_settled(c, g);
    /* what deciding cost this rank, the allreduce and the planning: the
     * windows are long enough for it (not the trace, nor the check) */
    g->ar_local = (double)(psk_tune_now_ns() - t0);
    if (psk_tune_cfg_g.debug >= 3 && c->rank == 0)
        trace(c, g);
    if (psk_tune_cfg_g.check)
        check(c, g);
}

/* ---- groups ---- */

void psk_tune_learn_free(psk_tune_group *g)
{
    if (!g)
        return;
    free(g->sarm);
    free(g->smixed);
    free(g->spair);
    free(g->scalls);
    free(g->st);
    free(g->sw);
    free(g);
}

static psk_tune_group *group_alloc(int cap)
{
    psk_tune_group *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->cap = cap;
    g->sarm = malloc((size_t)cap);
    g->smixed = malloc((size_t)cap);
    g->spair = malloc((size_t)cap * sizeof *g->spair);
    g->scalls = malloc((size_t)cap * sizeof *g->scalls);
    g->st = malloc((2 * (size_t)cap + EXTRA) * sizeof *g->st);
    g->sw = malloc((size_t)cap * sizeof *g->sw);
    if (!g->sarm || !g->smixed || !g->spair || !g->scalls || !g->st || !g->sw) {
        psk_tune_learn_free(g);
        return NULL;
    }
    return g;
}

/* a decision-file entry's hash, over its line as written */
static uint64_t entry_hash(const psk_tune_dbent *e)
{
    char line[8192] = "";
    FILE *f = fmemopen(line, sizeof line - 1, "w");
    if (f) {
        psk_tune_db_format(f, e);
        fclose(f);
    }
    return fnv(line);
}

psk_tune_group *psk_tune_learn_group(psk_tune_comm *c, int coll, size_t bytes, int inplace,
                                     const psk_tune_site *site)
{
    const psk_tune_cfg *cf = &psk_tune_cfg_g;
    int star = cf->policy == POLICY_STAR;
    int sclass = bytes ? 63 - __builtin_clzll((unsigned long long)bytes) : -1;
    size_t kb = star ? bytes : 0;
    for (int i = 0; i < c->ngroups; i++)
        if (c->groups[i]->coll == coll && c->groups[i]->sclass == sclass && c->groups[i]->bytes == kb)
            return c->groups[i];
    if (c->ngroups >= PSK_TUNE_MAXGROUPS)
        return NULL;
    int cap = star ? STAR_SLOTS : LEARN_SLOTS;
    psk_tune_group *g = group_alloc(cap);
    /* what is known of it already: the decision file for this site, what
     * another group settled, the file for another site or a neighbouring
     * size; every rank must know the same, or none is used */
    double v[10] = {g != NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    int same[10];
    const psk_tune_dbent *e = NULL;
    int seed_kind = ORIGIN_NONE, seed = -1;
    if (!star) {
        const psk_tune_dbent *o;
        if (site && cf->db)
            e = psk_tune_db_find(c->machine, c->size, site->module, site->offset, coll, sclass, 0);
        if ((seed = prior_of(c->size, coll, sclass)) >= 0)
            seed_kind = ORIGIN_SEED;
        else if (cf->db && (o = psk_tune_db_find(c->machine, c->size, NULL, 0, coll, sclass, 1)) != NULL)
            seed = o->arm, seed_kind = ORIGIN_SEED_DB;
        else if ((seed = prior_of(c->size, coll, sclass - 1)) >= 0 ||
                 (seed = prior_of(c->size, coll, sclass + 1)) >= 0)
            seed_kind = ORIGIN_NEIGHBOUR;
        else if (cf->db && ((o = psk_tune_db_find(c->machine, c->size, NULL, 0, coll, sclass - 1, 1)) != NULL ||
                            (o = psk_tune_db_find(c->machine, c->size, NULL, 0, coll, sclass + 1, 1)) != NULL))
            seed = o->arm, seed_kind = ORIGIN_NEIGHBOUR;
    }
    if (site)
        chunks(site->id, v + 1);
    /* the file's entry for this site, whole: its line's hash (a rank that
     * read another version of the file, or none, makes it unused) */
    v[4] = e != NULL;
    v[5] = seed_kind;
    v[6] = seed + 1;
    if (e)
        chunks(entry_hash(e), v + 7);
    if (agree(c->priv, v, same, 10) != MPI_SUCCESS || !same[0] || v[0] != 1) {
        psk_tune_learn_free(g);
        c->learn = -1; /* every rank: a group's memory is everyone's */
        return NULL;
    }
    c->groups[c->ngroups++] = g;
    g->coll = coll;
    g->sclass = sclass;
    g->bytes = kb;
    g->inc = PSK_TUNE_native;
    g->inc_before = -1;
    g->runner = -1;
    g->seed_arm = -1;
    g->h = CUSUM_H;
    g->sites_differ = !(same[1] && same[2] && same[3]);
    g->inplace = inplace;
    set_inc(g, PSK_TUNE_native, WHY_START);
    int use = !g->sites_differ && same[4] && v[4] == 1 && same[7] && same[8] && same[9];
    int state = !star && use ? psk_tune_resume_load(c, g, e, bytes, inplace) : -1;
    if (star) {
        star_start(c, g);
    } else if (state == PSK_TUNE_DB_SETTLED) {
        /* the file's decision, no exploring: monitoring from the start,
         * its baseline this run's own second window (watch) */
        g->origin = ORIGIN_WARM;
        g->seed_arm = e->arm;
        g->active = 0;
        set_inc(g, g->seed_arm, WHY_WARM);
        g->phase = PH_MONITOR;
        g->settled = 1;
        g->base = 0;
        g->warmup = 2;
        g->noise = NOISE0;
        g->runner = -1;
        g->probe_every = g->probe_wait = 4;
        plan_reset(g);
        plan_spread(g, g->inc, WMON_MIN, LEARN_SLOTS);
    } else if (state == PSK_TUNE_DB_EXPLORING) {
        /* an earlier run's exploring goes on: its incumbent for a short
         * window (this run's time of it), then its candidates */
        g->origin = ORIGIN_RESUME;
        g->first = -1;
        if (e->arm != PSK_TUNE_native)
            set_inc(g, e->arm, WHY_WARM);
        g->phase = PH_NATIVE0;
        plan_reset(g);
        for (int i = 0; i < W0_SEEDED; i++)
            plan_add(g, g->inc, 1);
    } else {
        if (same[5] && same[6] && v[5] != ORIGIN_NONE && v[6] >= 1 && v[6] <= PSK_TUNE_NARMS) {
            g->origin = (int)v[5];
            g->seed_arm = (int)v[6] - 1;
        }
        g->phase = PH_NATIVE0;
        plan_reset(g);
        for (int i = 0; i < (g->origin == ORIGIN_SEED || g->origin == ORIGIN_SEED_DB ? W0_SEEDED : W0); i++)
            plan_add(g, PSK_TUNE_native, 1);
    }
    return g;
}

int psk_tune_learn_arm(const psk_tune_group *g) { return g->sarm[g->slot]; }

/* ---- the end: the calls of an unfinished window ---- */

int psk_tune_learn_flush_start(psk_tune_comm *c, psk_tune_group *g, MPI_Request *req)
{
    if (g->flushed || (!g->slot && !g->inslot))
        return 0;
    g->flushed = 1;
    return PMPI_Iallreduce(MPI_IN_PLACE, g->st, g->slot + 1, MPI_DOUBLE, MPI_MAX, c->priv, req) == MPI_SUCCESS;
}

void psk_tune_learn_flush_end(psk_tune_group *g)
{
    double inc_est = psk_tune_learn_est(g, g->inc);
    for (int s = 0; s <= g->slot && s < g->nslot; s++) {
        uint32_t k = s < g->slot ? g->scalls[s] : (uint32_t)g->inslot;
        int a = g->sarm[s];
        if (!k)
            continue;
        g->total += g->st[s];
        g->arm[a].calls += k;
        g->arm[a].time += g->st[s];
        if (a != g->inc || g->phase == PH_STAR_LEARN) {
            g->arm[a].explore += k;
            if (!g->alarms)
                g->explore_initial += k;
            if (inc_est > 0 && g->phase != PH_STAR_LEARN)
                g->overhead += g->st[s] - k * inc_est;
        }
    }
}

void psk_tune_learn_record(psk_tune_comm *c, psk_tune_group *g, int ran, double ns, const psk_tune_site *site,
                           size_t bytes, int inplace)
{
    int s = g->slot;
    g->st[s] += ns;
    g->sw[s] += ns < g->wcap ? ns : g->wcap;
    if (ran != g->sarm[s])
        g->smixed[s] = 1;
    g->wsite = g->wsite * 0x100000001b3u + (site ? site->id : 0);
    g->calls++;
    g->bytes_sum += (double)bytes;
    g->inplace = inplace;
    if (++g->inslot < (int)g->scalls[s])
        return;
    g->inslot = 0;
    if (++g->slot < g->nslot)
        return;
    /* the window is over: a warm start's first monitoring window sets
     * the baseline before deciding on it */
    decide(c, g);
    g->slot = g->inslot = 0;
}
