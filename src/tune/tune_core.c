/* The tuning library's dispatcher: every MPI_Alltoall entry point (C and
 * Fortran, tune_wrap.c) lands in psk_tune_alltoall, which sends what the
 * arms cannot take (intercommunicators, erroneous arguments, calls before
 * MPI_Init) to PMPI_Alltoall untouched, picks an arm per call, runs it,
 * and keeps per-key statistics (communicator, call site, size class =
 * floor(log2(bytes per peer))) for the learner. Until the learner exists
 * the arm is PSK_TUNE_FORCE's (default native), or each valid arm in turn
 * (PSK_TUNE_FORCE=cycle). PSK_TUNE_DEBUG=1 prints each rank's counts at
 * MPI_Finalize (through an MPI_COMM_SELF attribute, whichever binding
 * finalizes), 2 also each key. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tune_internal.h"

#define FORCE_CYCLE (-1)

static struct {
    pthread_once_t once;
    int ok;    /* keyvals made: the library is on */
    int force; /* an arm, or FORCE_CYCLE */
    int debug;
    int finalizing;
    int self_keyval;
    _Atomic uint64_t calls, fortran, unsupported, fallback, arm[PSK_TUNE_NARMS];
} T = {.once = PTHREAD_ONCE_INIT, .self_keyval = MPI_KEYVAL_INVALID};

static const char *const arm_names[PSK_TUNE_NARMS] = {
#define NAME(name, pow2) #name,
    PSK_TUNE_ARM_LIST(NAME)
#undef NAME
};

const char *psk_tune_arm_name(int arm) { return arm >= 0 && arm < PSK_TUNE_NARMS ? arm_names[arm] : "?"; }

int psk_tune_arm_parse(const char *name)
{
    for (int a = 0; a < PSK_TUNE_NARMS; a++)
        if (!strcmp(name, arm_names[a]))
            return a;
    return -1;
}

void psk_tune_get_counts(psk_tune_counts *out)
{
    out->calls = T.calls;
    out->fortran = T.fortran;
    out->unsupported = T.unsupported;
    out->fallback = T.fallback;
    for (int a = 0; a < PSK_TUNE_NARMS; a++)
        out->arm[a] = T.arm[a];
}

void psk_tune_count_fortran_native(void)
{
    T.calls++;
    T.fortran++;
    T.unsupported++;
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
        int n = snprintf(line, sizeof line, "perfskel-tune: rank %d: key comm %u (%d ranks) site %s+0x%lx class %d calls %llu:",
                         wrank, c->id, c->size, k->where->module, (unsigned long)k->where->offset, k->sclass,
                         (unsigned long long)k->calls);
        for (int a = 0; a < PSK_TUNE_NARMS && n > 0 && (size_t)n < sizeof line; a++)
            if (k->arm[a].calls)
                n += snprintf(line + n, sizeof line - (size_t)n, " %s %u/%.1fus", arm_names[a], k->arm[a].calls,
                              (double)k->arm[a].sum_ns / k->arm[a].calls / 1e3);
        fprintf(stderr, "%s\n", line);
    }
}

static void report(void)
{
    int wrank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    char line[1024];
    int n = snprintf(line, sizeof line,
                     "perfskel-tune: rank %d: MPI_Alltoall calls %llu fortran %llu unsupported %llu fallback %llu |",
                     wrank, (unsigned long long)T.calls, (unsigned long long)T.fortran,
                     (unsigned long long)T.unsupported, (unsigned long long)T.fallback);
    for (int a = 0; a < PSK_TUNE_NARMS && n > 0 && (size_t)n < sizeof line; a++)
        n += snprintf(line + n, sizeof line - (size_t)n, " %s %llu", arm_names[a], (unsigned long long)T.arm[a]);
    fprintf(stderr, "%s\n", line);
    if (T.debug > 1)
        psk_tune_comm_each(key_line, &wrank);
}

/* MPI_COMM_SELF's attributes go first in MPI_Finalize, MPI still usable */
static int on_finalize(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)val, (void)extra;
    if (T.debug)
        report();
    T.finalizing = 1;
    psk_tune_comm_finalizing();
    return MPI_SUCCESS;
}

static void start(void)
{
    const char *f = getenv("PSK_TUNE_FORCE"), *d = getenv("PSK_TUNE_DEBUG");
    T.debug = d ? atoi(d) : 0;
    T.force = PSK_TUNE_native;
    if (f && *f) {
        if (!strcmp(f, PSK_TUNE_CYCLE_NAME))
            T.force = FORCE_CYCLE;
        else if ((T.force = psk_tune_arm_parse(f)) < 0) {
            int wrank = 0;
            PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
            if (wrank == 0)
                fprintf(stderr, "perfskel-tune: PSK_TUNE_FORCE=%s is no arm; MPI_Alltoall stays native\n", f);
            T.force = PSK_TUNE_native;
        }
    }
    if (psk_tune_comm_init() ||
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &T.self_keyval, NULL) != MPI_SUCCESS ||
        PMPI_Comm_set_attr(MPI_COMM_SELF, T.self_keyval, NULL) != MPI_SUCCESS)
        return; /* off: everything native */
    T.ok = 1;
}

/* ---- the dispatch ---- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The arm for this call: from data every rank shares (the forced arm, P,
 * bytes, in place, and for cycle the calls since the state was agreed) */
static int choose(psk_tune_comm *c, int P, const psk_tune_a2a *a)
{
    if (T.force != FORCE_CYCLE)
        return T.force;
    int valid[PSK_TUNE_NARMS], n = 0;
    for (int arm = 0; arm < PSK_TUNE_NARMS; arm++)
        if (psk_tune_a2a_valid(arm, P, a->bytes, a->inplace))
            valid[n++] = arm;
    if (!c || !c->ready) /* a non-native arm first, which sets up */
        return n > 1 ? valid[1] : PSK_TUNE_native;
    return valid[c->ncycle++ % (uint64_t)n];
}

int psk_tune_on(void)
{
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (!init || fin)
        return 0;
    pthread_once(&T.once, start);
    return T.ok && !T.finalizing;
}

int psk_tune_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                      MPI_Datatype rtype, MPI_Comm comm, void *ra, int fortran)
{
    int on = psk_tune_on();
    T.calls++;
    if (fortran)
        T.fortran++;
    psk_tune_comm *c = on && comm != MPI_COMM_NULL ? psk_tune_comm_get(comm) : NULL;
    int inter = 1, P = 0, unsupported = !on || comm == MPI_COMM_NULL;
    psk_tune_a2a a;
    if (!unsupported && c) {
        inter = c->inter;
        P = c->size;
    } else if (!unsupported)
        unsupported = PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || PMPI_Comm_size(comm, &P) != MPI_SUCCESS;
    if (unsupported || inter || psk_tune_a2a_prepare(&a, sbuf, scount, stype, rbuf, rcount, rtype, comm)) {
        T.unsupported++;
        return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    }
    int arm = choose(c, P, &a);
    if (!psk_tune_a2a_valid(arm, P, a.bytes, a.inplace))
        arm = PSK_TUNE_native;
    psk_tune_key *key = NULL;
    if (c) {
        int sclass = a.bytes ? 63 - __builtin_clzll((unsigned long long)a.bytes) : -1;
        key = psk_tune_comm_key(c, psk_tune_site_of(ra), sclass);
    }
    uint64_t t0 = now_ns();
    int rc = PSK_TUNE_FALLBACK;
    if (arm != PSK_TUNE_native && (rc = psk_tune_a2a_run(arm, c, &a)) == PSK_TUNE_FALLBACK) {
        T.fallback++;
        arm = PSK_TUNE_native;
    }
    if (arm == PSK_TUNE_native)
        rc = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    uint64_t ns = now_ns() - t0;
    T.arm[arm]++;
    if (key) {
        psk_tune_armstat *st = &key->arm[arm];
        key->calls++;
        st->calls++;
        st->sum_ns += ns;
        if (!st->min_ns || ns < st->min_ns)
            st->min_ns = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
    }
    return rc;
}
