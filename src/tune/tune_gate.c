/* The learning gate: a group (communicator, collective, size class) is
 * set up only once its calls have taken long enough that what setting it
 * up costs (the communicator's private duplicate and agreements, the
 * group's agreement, its first windows' decisions) is a small share of
 * them. Until then its calls go native: counted, some timed, and a job
 * that makes too few of them to learn from runs as it would without the
 * library (a short-lived communicator of 200 1 KiB calls paid 45-100 % for
 * a learner that could never win it back; docs/tune.md, "How the learner
 * decides" and "What a call costs").
 *
 * Each rank counts the calls (the same count on every rank: all see the
 * collective's calls of a size class in one order) and times the first 8
 * and then one in 8. At call 1, 8, 64, 512, ... (x 8) a nonblocking
 * MPI_Iallreduce(MAX) on the user's communicator, started just before the
 * call on every rank (legal: every rank starts it at the same point of
 * the communicator's sequence of collectives), takes each rank's estimate
 * of the calls' time so far and of the time they must have taken for a
 * set-up to cost at most PSK_TUNE_GATE of it (default 0.005: half the
 * default budget, which exploring has); it is waited for right after the
 * call, which progresses it. No check outlives the user's call: a
 * communicator freed or MPI ended never has one under way (Open MPI 4.1
 * progressed one left on a freed communicator into freed memory; MPICH
 * defers the attribute callbacks of a freed communicator until its
 * requests complete). The gate opens there, on every rank alike,
 * when the slowest rank's time is at least the largest threshold. A
 * set-up is expected to cost as much as the cheapest this process has
 * measured, with the communicator's set-up or without (before one is
 * measured: 50 and 10 us); none where the decision file has a settled
 * arm for the call site (a warm start explores nothing: its set-up is
 * all it costs, and a short job gains from the arm at once), and the
 * earlier runs' time of the site's calls counts where it has its state.
 * PSK_TUNE_GATE=0: no gate, every group set up
 * at its first call (it must then be 0 on every rank: a rank with a gate
 * would start a check the others do not). A rank whose state cannot be
 * allocated has no gate and would leave the others waiting at the first
 * check: that is a process out of memory. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tune_internal.h"

#define SPREAD 8 /* the checks: with 1, 8, 64, ... calls made */

/* the cheapest set-up measured in this process, ns (0: none yet): a
 * group's alone, and one with its communicator's */
static _Atomic uint64_t cheapest[2];
static const double setup0_ns[2] = {10000, 50000};

psk_tune_pend *psk_tune_gate_of(psk_tune_comm *c, int coll, int sclass, const psk_tune_site *site)
{
    if (!c || coll < 0 || coll >= PSK_TUNE_NCOLL || sclass < 0 || sclass >= PSK_TUNE_NCLASS)
        return NULL;
    if (!c->pend[coll] && !(c->pend[coll] = calloc(PSK_TUNE_NCLASS, sizeof *c->pend[coll])))
        return NULL;
    psk_tune_pend *p = &c->pend[coll][sclass];
    if (!p->check) {
        p->check = 1;
        p->req = MPI_REQUEST_NULL;
        p->coll = coll, p->sclass = sclass, p->site = site;
    }
    return p;
}

void psk_tune_gate_setup_cost(double ns, int comm_too)
{
    _Atomic uint64_t *at = &cheapest[comm_too != 0];
    uint64_t v = ns > 0 ? (uint64_t)ns : 0, old = atomic_load(at);
    while (v && (!old || v < old) && !atomic_compare_exchange_weak(at, &old, v))
        ;
}

/* the time a group's calls must have taken for its set-up to be paid.
 * Where the decision file has the site's state: 0 for an arm settled
 * other than native, which a warm start takes without exploring (a short
 * job's calls gain from it at once); else the earlier runs' time counts,
 * as it does for exploring's budget (a state the gate's own, when no
 * group was set up: psk_tune_gate_entry) */
static double threshold(const psk_tune_comm *c, const psk_tune_pend *p, const char *base)
{
    const psk_tune_cfg *cf = &psk_tune_cfg_g;
    uint64_t v = atomic_load(&cheapest[!c->ready]);
    double t = (v ? (double)v : setup0_ns[!c->ready]) / cf->gate; /* (gate > 0: there is a gate) */
    if (cf->db && cf->policy == POLICY_LEARN && p->site) {
        const psk_tune_dbent *e =
            psk_tune_db_here(base, c->size, p->site->module, p->site->offset, p->coll, p->sclass);
        if (e && e->state == PSK_TUNE_DB_SETTLED && e->arm != PSK_TUNE_native)
            return 0;
        if (e)
            t -= e->total_ns;
    }
    return t > 0 ? t : 0;
}

void psk_tune_gate_start(const psk_tune_comm *c, psk_tune_pend *p, MPI_Comm comm)
{
    if (p->state != GATE_SHUT || p->calls != p->check)
        return;
    char full[256], base[64];
    psk_tune_host_names(full, sizeof full, base, sizeof base);
    p->buf[0] = p->timed ? p->ns * p->calls / p->timed : 0;
    p->buf[1] = threshold(c, p, base);
    psk_tune_agree_chunks(psk_tune_agree_fnv(full), p->buf + 2);
    for (int i = 0; i < 3; i++)
        p->buf[5 + i] = -p->buf[2 + i];
    p->state = PMPI_Iallreduce(MPI_IN_PLACE, p->buf, 8, MPI_DOUBLE, MPI_MAX, comm, &p->req) == MPI_SUCCESS
                   ? GATE_ASKING
                   : GATE_NEVER;
}

void psk_tune_gate_count(psk_tune_pend *p, int timed, double ns)
{
    p->calls++;
    if (timed)
        p->timed++, p->ns += ns;
    if (p->state != GATE_ASKING)
        return;
    if (PMPI_Wait(&p->req, MPI_STATUS_IGNORE) != MPI_SUCCESS) { /* no check: native for good */
        p->state = GATE_NEVER;
        return;
    }
    p->agreed_ns = p->buf[0];
    p->agreed_calls = p->calls - 1; /* (the time is of the calls before this one) */
    p->one_host = p->buf[2] == -p->buf[5] && p->buf[3] == -p->buf[6] && p->buf[4] == -p->buf[7];
    if (p->buf[0] >= p->buf[1]) {
        p->state = GATE_OPEN;
        return;
    }
    p->state = GATE_SHUT;
    p->check = p->check > UINT32_MAX / SPREAD ? UINT32_MAX : p->check * SPREAD;
}

int psk_tune_gate_entry(const psk_tune_comm *c, const psk_tune_pend *p, const psk_tune_site *site,
                        psk_tune_dbent *e)
{
    if (!p->calls || !p->agreed_calls || !p->one_host || p->state == GATE_OPEN || !(p->agreed_ns > 0))
        return -1;
    char full[256], base[64];
    psk_tune_host_names(full, sizeof full, base, sizeof base);
    *e = (psk_tune_dbent){.version = 2, .P = c->size, .offset = site->offset, .sclass = p->sclass, .coll = p->coll,
                          .state = PSK_TUNE_DB_START, .arm = PSK_TUNE_native, .calls = p->calls,
                          .total_ns = p->agreed_ns * p->calls / p->agreed_calls, .stamp = (long long)time(NULL)};
    e->native_ns = e->total_ns / (double)e->calls;
    snprintf(e->machine, sizeof e->machine, "%s:1", base);
    snprintf(e->mpi, sizeof e->mpi, "%s", psk_tune_db_mpi());
    snprintf(e->module, sizeof e->module, "%s", site->module);
    /* the earlier runs' held calls of the site: this run's line replaces
     * their line in the file */
    const psk_tune_dbent *o =
        psk_tune_db_find(e->machine, c->size, site->module, site->offset, p->coll, p->sclass, 0);
    if (o && o->state == PSK_TUNE_DB_START) {
        e->calls += o->calls;
        e->total_ns += o->total_ns;
        e->native_ns = e->total_ns / (double)e->calls;
    }
    return isfinite(e->total_ns) ? 0 : -1;
}
