/* The tuning library's dispatcher: every entry point of MPI_Alltoall,
 * MPI_Bcast, MPI_Allreduce and MPI_Allgather (C and Fortran, tune_wrap.c)
 * lands in psk_tune_call, which sends what the arms cannot take
 * (intercommunicators, erroneous arguments, calls before MPI_Init, and
 * what each collective's file refuses) to the native call untouched, picks
 * an arm per call, runs it, and keeps per-key statistics (communicator,
 * call site, collective, size class = floor(log2(bytes)), bytes per peer
 * for alltoall and allgather, the whole buffer for bcast and allreduce),
 * what it found for a call kept in the calling thread's memo of calls
 * (tune_memo.c) for the next one made so. The arm comes from the policy
 * (PSK_TUNE_POLICY): the learner by default (tune_learn.c), STAR-MPI's,
 * one arm for all (PSK_TUNE_FORCE or PSK_TUNE_POLICY=ARM, native
 * included), or each valid arm in turn (cycle). MPI_Finalize's entry
 * points call psk_tune_pre_finalize on every process: the report and the
 * decision file (tune_report.c); PSK_TUNE_DEBUG=1 prints each rank's
 * counts at MPI_Finalize (through an MPI_COMM_SELF attribute), 2 also
 * each key (its calls, and each arm's timed calls: under the learner the
 * calls it sampled). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perfskel/machine.h"
#include "tune_internal.h"

/* the counts of one thread's calls: plain increments (no atomic
 * read-modify-write on every call), summed over threads when read */
typedef struct counts {
    uint64_t calls[PSK_TUNE_NCOLL], native[PSK_TUNE_NCOLL]; /* (every call's: one cache line) */
    uint64_t arm[PSK_TUNE_NARMS];
    uint64_t fortran[PSK_TUNE_NCOLL], unsupported[PSK_TUNE_NCOLL], fallback[PSK_TUNE_NCOLL];
    uint64_t lookups, timed; /* calls not found in the memo; calls timed */
    struct counts *next;
} counts;

static struct {
    pthread_once_t once;
    int ok; /* keyvals made: the library is on */
    int debug;
    int finalizing;
    _Atomic int live; /* started, MPI_Finalize not begun: the calls' fast check */
    int self_keyval;
    _Atomic int pre_finalized;
    pthread_mutex_t lock; /* threads */
    counts *threads;      /* every thread's counts */
    counts spill;         /* the threads' whose block could not be had */
} T = {.once = PTHREAD_ONCE_INIT, .self_keyval = MPI_KEYVAL_INVALID, .lock = PTHREAD_MUTEX_INITIALIZER};

static __thread counts *mine __attribute__((tls_model("initial-exec")));

/* the calling thread's counts */
static counts *my_counts(void)
{
    if (mine)
        return mine;
    counts *k = aligned_alloc(64, (sizeof(counts) + 63) / 64 * 64);
    if (!k)
        return &T.spill;
    memset(k, 0, sizeof *k);
    pthread_mutex_lock(&T.lock);
    k->next = T.threads;
    T.threads = k;
    pthread_mutex_unlock(&T.lock);
    return mine = k;
}

psk_tune_cfg psk_tune_cfg_g;

uint64_t psk_tune_hash(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3u;
    return h;
}

static void add_counts(psk_tune_counts *out, const counts *t)
{
    for (int k = 0; k < PSK_TUNE_NCOLL; k++) {
        out->coll[k].calls += t->calls[k];
        out->coll[k].fortran += t->fortran[k];
        out->coll[k].unsupported += t->unsupported[k];
        out->coll[k].fallback += t->fallback[k];
        out->coll[k].native += t->native[k];
        out->calls += t->calls[k];
        out->fortran += t->fortran[k];
        out->unsupported += t->unsupported[k];
        out->fallback += t->fallback[k];
    }
    for (int a = 0; a < PSK_TUNE_NARMS; a++)
        out->arm[a] += t->arm[a];
    out->lookups += t->lookups;
    out->timed += t->timed;
}

void psk_tune_get_counts(psk_tune_counts *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&T.lock);
    for (const counts *t = T.threads; t; t = t->next)
        add_counts(out, t);
    add_counts(out, &T.spill);
    pthread_mutex_unlock(&T.lock);
}

__thread int psk_tune_last = -1;

void psk_tune_count_fortran_native(int coll)
{
    psk_tune_last = PSK_TUNE_native;
    counts *n = my_counts();
    n->calls[coll]++;
    n->fortran[coll]++;
    n->unsupported[coll]++;
}

/* ---- the report, at MPI_Finalize ---- */

static void key_line(const psk_tune_comm *c, void *arg)
{
    int wrank = *(int *)arg;
    for (size_t i = 0; i < c->capkeys; i++) {
        const psk_tune_key *k = &c->keys[i];
        if (!k->site)
            continue;
        char line[1024];
        /* alltoall's keys as before the other collectives came */
        char what[32] = "";
        if (k->coll != PSK_TUNE_C_alltoall)
            snprintf(what, sizeof what, "%s ", psk_tune_coll_name(k->coll));
        int n = snprintf(line, sizeof line, "perfskel-tune: rank %d: key comm %u (%d ranks) site %s+0x%lx %sclass %d calls %llu:",
                         wrank, c->id, c->size, k->where->module, (unsigned long)k->where->offset, what, k->sclass,
                         (unsigned long long)k->calls);
        for (int a = 0; a < PSK_TUNE_NARMS && n > 0 && (size_t)n < sizeof line; a++)
            if (k->arm[a].calls)
                n += snprintf(line + n, sizeof line - (size_t)n, " %s %u/%.1fus", psk_tune_arm_name(a), k->arm[a].calls,
                              (double)k->arm[a].sum_ns / k->arm[a].calls / 1e3);
        fprintf(stderr, "%s\n", line);
    }
}

static void debug_report(void)
{
    int wrank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    psk_tune_counts cn;
    psk_tune_get_counts(&cn);
    /* a line per collective called (MPI_Alltoall's always), its arms */
    for (int k = 0; k < PSK_TUNE_NCOLL; k++) {
        if (k != PSK_TUNE_C_alltoall && !cn.coll[k].calls)
            continue;
        char line[1024];
        int n = snprintf(line, sizeof line,
                         "perfskel-tune: rank %d: %s calls %llu fortran %llu unsupported %llu fallback %llu |", wrank,
                         psk_tune_coll_mpi_name(k), (unsigned long long)cn.coll[k].calls,
                         (unsigned long long)cn.coll[k].fortran, (unsigned long long)cn.coll[k].unsupported,
                         (unsigned long long)cn.coll[k].fallback);
        for (int a = 0; a < PSK_TUNE_NARMS && n > 0 && (size_t)n < sizeof line; a++)
            if (a == PSK_TUNE_native || psk_tune_arm_coll(a) == k)
                n += snprintf(line + n, sizeof line - (size_t)n, " %s %llu", psk_tune_arm_name(a),
                              (unsigned long long)(a == PSK_TUNE_native ? cn.coll[k].native : cn.arm[a]));
        fprintf(stderr, "%s\n", line);
    }
    fprintf(stderr, "perfskel-tune: rank %d: dispatch: %llu calls, %llu looked up (the others found in the memo), %llu timed\n",
            wrank, (unsigned long long)cn.calls, (unsigned long long)cn.lookups, (unsigned long long)cn.timed);
    if (T.debug > 1)
        psk_tune_comm_each(key_line, &wrank);
}

/* MPI_COMM_SELF's attributes go first in MPI_Finalize, MPI still usable */
static int on_finalize(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)val, (void)extra;
    if (T.debug)
        debug_report();
    T.live = 0;
    T.finalizing = 1;
    psk_tune_comm_finalizing();
    return MPI_SUCCESS;
}

const char *psk_tune_policy_name(void)
{
    const psk_tune_cfg *cf = &psk_tune_cfg_g;
    switch (cf->policy) {
    case POLICY_LEARN: return "learn";
    case POLICY_STAR: return "star";
    case POLICY_CYCLE: return PSK_TUNE_CYCLE_NAME;
    default: return psk_tune_arm_name(cf->arm);
    }
}

static int wrank0(void)
{
    int r = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r == 0;
}

static double env_num(const char *name, double def, double lo, double hi)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end;
    double x = strtod(v, &end);
    if (*end || !(x >= lo && x <= hi)) {
        if (wrank0())
            fprintf(stderr, "perfskel-tune: %s=%s is not a number in [%g, %g]; %g is used\n", name, v, lo, hi, def);
        return def;
    }
    return x;
}

/* PSK_TUNE_INJECT=ARM:US[@FROM[-TO]][,...]: a delay inside an arm, for
 * tests; from the calling thread's call FROM of the collective to call TO */
static void parse_inject(psk_tune_cfg *cf, const char *v)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':'), *end = NULL;
        int arm = -1;
        double x = -1;
        unsigned long long from = 0, to = UINT64_MAX;
        if (colon) {
            *colon = 0;
            arm = psk_tune_arm_parse(tok);
            x = strtod(colon + 1, &end);
            if (*end == '@') {
                from = strtoull(end + 1, &end, 10);
                if (*end == '-')
                    to = strtoull(end + 1, &end, 10);
            }
            if (*end)
                x = -1;
        }
        if (arm < 0 || !(x >= 0 && x <= 1e7) || cf->ninject >= PSK_TUNE_MAXINJECT) {
            if (wrank0())
                fprintf(stderr, "perfskel-tune: PSK_TUNE_INJECT: '%s' is not ARM:MICROSECONDS[@FROM[-TO]]; ignored\n",
                        tok);
            continue;
        }
        cf->inject[cf->ninject++] = (psk_tune_inject){arm, x * 1e3, from, to};
    }
}

static void read_cfg(void)
{
    psk_tune_cfg *cf = &psk_tune_cfg_g;
    memset(cf, 0, sizeof *cf);
    const char *f = getenv("PSK_TUNE_FORCE"), *p = getenv("PSK_TUNE_POLICY"), *d = getenv("PSK_TUNE_DEBUG");
    T.debug = cf->debug = d ? atoi(d) : 0;
    cf->policy = POLICY_LEARN;
    /* the policy: PSK_TUNE_FORCE wins over PSK_TUNE_POLICY */
    const char *which = f && *f ? f : p && *p ? p : NULL, *var = f && *f ? "PSK_TUNE_FORCE" : "PSK_TUNE_POLICY";
    if (which) {
        if (!strcmp(which, PSK_TUNE_CYCLE_NAME))
            cf->policy = POLICY_CYCLE;
        else if (!strcmp(which, "learn") && which == p)
            cf->policy = POLICY_LEARN;
        else if (!strcmp(which, "star") && which == p)
            cf->policy = POLICY_STAR;
        else if ((cf->arm = psk_tune_arm_parse(which)) >= 0)
            cf->policy = POLICY_FIXED;
        else {
            if (wrank0())
                fprintf(stderr, "perfskel-tune: %s=%s is no %s; every collective stays native\n", var, which,
                        which == p ? "policy (learn, star, native, an arm, cycle)" : "arm");
            cf->policy = POLICY_FIXED;
            cf->arm = PSK_TUNE_native;
        }
    }
    cf->budget = env_num("PSK_TUNE_BUDGET", 0.01, 0, 1);
    cf->gate = env_num("PSK_TUNE_GATE", 0.005, 0, 1);
    cf->margin = env_num("PSK_TUNE_MARGIN", 1.5, 1, 100);
    cf->star_x = (int)env_num("PSK_TUNE_STAR_X", 10, 1, PSK_TUNE_STAR_XMAX);
    cf->switch_warmup = env_num("PSK_TUNE_SWITCH_WARMUP", 0, 0, 1) > 0;
    const char *ck = getenv("PSK_TUNE_CHECK");
    cf->check = ck && *ck && strcmp(ck, "0");
    const char *inj = getenv("PSK_TUNE_INJECT");
    if (inj && *inj)
        parse_inject(cf, inj);
    /* the model's prior: a perfskel machine file, else Hockney's alpha and
     * beta of docs/tune.md, PSK_TUNE_MACHINE (1.5 us, 12.5 GB/s) */
    cf->alpha0 = cf->intra_alpha0 = 1500;
    cf->beta0 = cf->intra_beta0 = 0.08;
    const char *mf = getenv("PSK_TUNE_MACHINE");
    if (mf && *mf) {
        psk_machine m;
        psk_machine_default(&m);
        if (psk_machine_load(mf, &m) == PSK_OK) {
            int64_t big = 1 << 20;
            cf->alpha0 = 1e3 * psk_machine_msg_us(&m, 0, 0);
            cf->beta0 = 1e3 * (psk_machine_msg_us(&m, big, 0) - psk_machine_msg_us(&m, 0, 0)) / (double)big;
            cf->intra_alpha0 = 1e3 * psk_machine_msg_us(&m, 0, 1);
            cf->intra_beta0 = 1e3 * (psk_machine_msg_us(&m, big, 1) - psk_machine_msg_us(&m, 0, 1)) / (double)big;
            cf->machine_rpn = m.ranks_per_node;
        } else if (wrank0())
            fprintf(stderr, "perfskel-tune: PSK_TUNE_MACHINE: %s; the default model is used\n",
                    psk_machine_errmsg(&m));
        psk_machine_free(&m);
    }
    const char *r = getenv("PSK_TUNE_REPORT"), *db = getenv("PSK_TUNE_DB");
    cf->report = r && *r ? r : NULL;
    cf->db = db && *db ? db : NULL;
    /* what must agree between ranks (checked when a communicator starts) */
    uint64_t h = 0xcbf29ce484222325u;
    h = psk_tune_hash(h, &cf->policy, sizeof cf->policy);
    h = psk_tune_hash(h, &cf->arm, sizeof cf->arm);
    h = psk_tune_hash(h, &cf->budget, sizeof cf->budget);
    h = psk_tune_hash(h, &cf->gate, sizeof cf->gate);
    h = psk_tune_hash(h, &cf->margin, sizeof cf->margin);
    h = psk_tune_hash(h, &cf->star_x, sizeof cf->star_x);
    h = psk_tune_hash(h, &cf->switch_warmup, sizeof cf->switch_warmup);
    h = psk_tune_hash(h, &cf->check, sizeof cf->check);
    for (int i = 0; i < cf->ninject; i++) { /* field by field: no padding */
        h = psk_tune_hash(h, &cf->inject[i].arm, sizeof cf->inject[i].arm);
        h = psk_tune_hash(h, &cf->inject[i].ns, sizeof cf->inject[i].ns);
        h = psk_tune_hash(h, &cf->inject[i].from, sizeof cf->inject[i].from);
        h = psk_tune_hash(h, &cf->inject[i].to, sizeof cf->inject[i].to);
    }
    cf->hash = h;
    if (cf->db && cf->policy == POLICY_LEARN)
        psk_tune_db_load(cf->db, wrank0());
}

static void start(void)
{
    read_cfg();
    if (psk_tune_comm_init() ||
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &T.self_keyval, NULL) != MPI_SUCCESS ||
        PMPI_Comm_set_attr(MPI_COMM_SELF, T.self_keyval, NULL) != MPI_SUCCESS)
        return; /* off: everything native */
    T.ok = 1;
}

void psk_tune_pre_finalize(void)
{
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (!init || fin || atomic_exchange(&T.pre_finalized, 1))
        return;
    pthread_once(&T.once, start);
    /* the windows under way into the figures, then the report: every
     * process takes part, the library on or not */
    psk_tune_comm_reap(1);
    psk_tune_comm_flush_all();
    psk_tune_report_finalize();
}

/* ---- the dispatch ---- */

uint64_t psk_tune_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The arm for this call under a fixed policy or cycle: from data every
 * rank shares (the arm, P, bytes, in place, and for cycle the calls of the
 * collective since the state was agreed) */
static int choose(psk_tune_comm *c, int P, const psk_tune_args *a)
{
    const psk_tune_cfg *cf = &psk_tune_cfg_g;
    if (cf->policy != POLICY_CYCLE)
        return cf->policy == POLICY_FIXED ? cf->arm : PSK_TUNE_native;
    int valid[PSK_TUNE_NARMS], n = 0;
    for (int arm = 0; arm < PSK_TUNE_NARMS; arm++)
        if (psk_tune_arm_valid(a->coll, arm, P, a->bytes, a->inplace))
            valid[n++] = arm;
    if (!c || !c->ready) /* a non-native arm first, which sets up */
        return n > 1 ? valid[1] : PSK_TUNE_native;
    return valid[c->ncycle[a->coll]++ % (uint64_t)n];
}

/* the learner's group for this call, set up collectively on first use;
 * NULL (on every rank of comm) when the call goes native */
static psk_tune_group *learner(psk_tune_comm *c, int P, const psk_tune_args *a, int sclass,
                               const psk_tune_site *site, psk_tune_pend **pendp)
{
    const psk_tune_cfg *cf = &psk_tune_cfg_g;
    *pendp = NULL;
    if ((cf->policy != POLICY_LEARN && cf->policy != POLICY_STAR) || P < 2 || a->bytes == 0 || (c && c->learn == -1))
        return NULL;
    /* held native at the gate until a set-up costs little against the
     * calls' time (the same call on every rank: the gate's state is
     * agreed); PSK_TUNE_GATE=0: no gate. A rank without a state has no
     * gate (out of memory: tune_gate.c) */
    psk_tune_pend *p = NULL;
    if (cf->gate > 0) {
        p = psk_tune_gate_of(c, a->coll, sclass, site);
        if (!p || p->state == GATE_NEVER)
            return NULL;
        if (p->state != GATE_OPEN) {
            *pendp = p;
            return NULL;
        }
    }
    uint64_t t0 = psk_tune_now_ns();
    int comm_too = !c || !c->ready;
    /* without a gate, a rank without a state still votes in the set-up,
     * as often as the others try it */
    if ((!c || !c->ready) && psk_tune_comm_setup(c, a->comm))
        return NULL;
    if (!c->learn)
        psk_tune_learn_comm(c);
    if (c->learn != 1)
        return NULL;
    psk_tune_group *g = psk_tune_learn_group(c, a->coll, a->bytes, a->inplace, site);
    /* a group made now: what its set-up cost (the communicator's
     * duplicate and agreement too, for its first group) is its time, as
     * a user's timer around the call sees it; the calls the gate held
     * count for its budget */
    if (g && !g->calls && !(g->setup_ns > 0)) {
        g->setup_ns = (double)(psk_tune_now_ns() - t0);
        psk_tune_gate_setup_cost(g->setup_ns, comm_too);
        if (p) {
            g->gate_calls = p->calls, g->gate_ns = p->agreed_ns;
            p->calls = 0, p->agreed_ns = 0; /* (STAR: the class's other sizes' groups start from none) */
        }
    }
    return c->learn == 1 ? g : NULL;
}

static void inject(int arm, uint64_t call)
{
    const psk_tune_cfg *cf = &psk_tune_cfg_g;
    double ns = 0;
    for (int i = 0; i < cf->ninject; i++)
        if (cf->inject[i].arm == arm && call >= cf->inject[i].from && call <= cf->inject[i].to)
            ns += cf->inject[i].ns;
    if (ns > 0) {
        struct timespec ts = {(time_t)(ns / 1e9), (long)fmod(ns, 1e9)};
        while (nanosleep(&ts, &ts))
            ;
    }
}

int psk_tune_on(void)
{
    /* once on, MPI stays initialized until MPI_Finalize, whose first step
     * (on_finalize) clears it: no PMPI_Initialized and PMPI_Finalized per
     * call */
    if (T.live)
        return 1;
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (!init || fin)
        return 0;
    pthread_once(&T.once, start);
    if (T.ok && !T.finalizing) {
        T.live = 1;
        return 1;
    }
    return 0;
}

/* the dispatch's slow path: the communicator's state and size, whether the arms
 * take the call (a prepared), its site, key and the learner's group (set
 * up collectively on first use); remembered for the next call made so.
 * 0, or -1 if the call goes native untouched */
static int lookup(psk_tune_args *a, void *ra, psk_tune_comm **cp, int *Pp, const psk_tune_site **sitep,
                  psk_tune_key **keyp, psk_tune_group **gp, psk_tune_pend **pendp)
{
    MPI_Comm comm = a->comm;
    psk_tune_comm *c = comm != MPI_COMM_NULL ? psk_tune_comm_get(comm) : NULL;
    int inter = 1, P = 0, unsupported = comm == MPI_COMM_NULL;
    if (!unsupported && c) {
        inter = c->inter;
        P = c->size;
    } else if (!unsupported)
        unsupported = PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || PMPI_Comm_size(comm, &P) != MPI_SUCCESS;
    if (unsupported || inter || psk_tune_args_prepare(a))
        return -1;
    const psk_tune_cfg *cf = &psk_tune_cfg_g;
    int learning = cf->policy == POLICY_LEARN || cf->policy == POLICY_STAR;
    int sclass = a->bytes ? 63 - __builtin_clzll((unsigned long long)a->bytes) : -1;
    const psk_tune_site *site = c || learning ? psk_tune_site_of(ra) : NULL;
    psk_tune_pend *pend;
    psk_tune_group *g = learner(c, P, a, sclass, site, &pend);
    psk_tune_key *key = c ? psk_tune_comm_key(c, site, a->coll, sclass) : NULL;
    /* remembered where the next call would find the same: a group, the
     * gate holding it, or none for good (another policy, one rank, no
     * bytes, the learner off on the communicator) */
    if (c && (g || pend || !learning || P < 2 || a->bytes == 0 || c->learn == -1))
        psk_tune_memo_put(a, ra, c, site, key, g, pend);
    *cp = c, *Pp = P, *sitep = site, *keyp = key, *gp = g, *pendp = pend;
    return 0;
}

int psk_tune_call(psk_tune_args *a, void *ra, int fortran)
{
    int on = psk_tune_on(), coll = a->coll;
    counts *n = my_counts();
    uint64_t ncall = n->calls[coll]++;
    if (on)
        psk_tune_comm_reap(0);
    if (fortran)
        n->fortran[coll]++;
    psk_tune_comm *c = NULL;
    psk_tune_key *key = NULL;
    const psk_tune_site *site = NULL;
    psk_tune_group *g = NULL;
    psk_tune_pend *pend = NULL;
    int P = 0;
    /* a call made before: what was found for it, unless the learner has
     * since turned off on its communicator or the gate holding it opened */
    const psk_tune_memo *m = on ? psk_tune_memo_find(a, ra) : NULL;
    if (m && !(m->g && m->c->learn != 1) && !(m->pend && m->pend->state >= GATE_OPEN)) {
        c = m->c, P = c->size, site = m->site, key = m->key, g = m->g, pend = m->pend;
    } else if (!on || (n->lookups++, lookup(a, ra, &c, &P, &site, &key, &g, &pend))) {
        n->unsupported[coll]++;
        psk_tune_last = PSK_TUNE_native;
        return psk_tune_native(a);
    }
    int rc = PSK_TUNE_FALLBACK;
    int arm = g ? psk_tune_learn_arm(g) : pend ? PSK_TUNE_native : choose(c, P, a);
    if (!psk_tune_arm_valid(coll, arm, P, a->bytes, a->inplace))
        arm = PSK_TUNE_native;
    /* timed: the learner's calls it samples, and the gate's; every call
     * under a fixed arm or cycle, whose report gives each key's times */
    int pol = psk_tune_cfg_g.policy;
    int timed = g      ? psk_tune_learn_timed(g)
                : pend ? psk_tune_gate_timed(pend)
                       : pol != POLICY_LEARN && pol != POLICY_STAR;
    if (pend)
        psk_tune_gate_start(c, pend, a->comm);
    uint64_t t0 = timed ? psk_tune_now_ns() : 0;
    n->timed += (uint64_t)timed;
    if (arm != PSK_TUNE_native && (rc = psk_tune_arm_run(arm, c, a)) == PSK_TUNE_FALLBACK) {
        n->fallback[coll]++;
        arm = PSK_TUNE_native;
    }
    if (arm == PSK_TUNE_native)
        rc = psk_tune_native(a);
    inject(arm, ncall);
    uint64_t ns = timed ? psk_tune_now_ns() - t0 : 0;
    if (arm == PSK_TUNE_native)
        n->native[coll]++;
    n->arm[arm]++;
    psk_tune_last = arm;
    if (key) {
        key->calls++;
        if (timed) {
            psk_tune_armstat *st = &key->arm[arm];
            st->calls++;
            st->sum_ns += ns;
            if (!st->min_ns || ns < st->min_ns)
                st->min_ns = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
        }
    }
    if (g)
        psk_tune_learn_record(c, g, arm, timed, (double)ns, site, a->bytes, a->inplace);
    else if (pend)
        psk_tune_gate_count(pend, timed, (double)ns);
    return rc;
}

/* every field set, none zeroed first (a struct's zeroing is a rep stos
 * that costs more than the rest of the call's set-up) */
static inline void args_init(psk_tune_args *a, int coll, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                             int rcount, MPI_Datatype rtype, MPI_Op op, int root, MPI_Comm comm)
{
    a->coll = coll;
    a->sbuf = sbuf, a->scount = scount, a->stype = stype;
    a->rbuf = rbuf, a->rcount = rcount, a->rtype = rtype;
    a->op = op, a->root = root, a->comm = comm;
    a->bytes = 0, a->inplace = 0, a->contig = 0, a->sext = a->rext = 0;
}

int psk_tune_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                      MPI_Datatype rtype, MPI_Comm comm, void *ra, int fortran)
{
    psk_tune_args a;
    args_init(&a, PSK_TUNE_C_alltoall, sbuf, scount, stype, rbuf, rcount, rtype, MPI_OP_NULL, 0, comm);
    return psk_tune_call(&a, ra, fortran);
}

int psk_tune_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, void *ra, int fortran)
{
    psk_tune_args a;
    args_init(&a, PSK_TUNE_C_bcast, NULL, 0, MPI_DATATYPE_NULL, buf, count, type, MPI_OP_NULL, root, comm);
    return psk_tune_call(&a, ra, fortran);
}

int psk_tune_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                       void *ra, int fortran)
{
    psk_tune_args a;
    args_init(&a, PSK_TUNE_C_allreduce, sbuf, 0, MPI_DATATYPE_NULL, rbuf, count, type, op, 0, comm);
    return psk_tune_call(&a, ra, fortran);
}

int psk_tune_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                       MPI_Datatype rtype, MPI_Comm comm, void *ra, int fortran)
{
    psk_tune_args a;
    args_init(&a, PSK_TUNE_C_allgather, sbuf, scount, stype, rbuf, rcount, rtype, MPI_OP_NULL, 0, comm);
    return psk_tune_call(&a, ra, fortran);
}
