/* Keeping ranks in step (docs/tune.md, "Keeping ranks in step"): values
 * agreed by one MPI_Allreduce(MAX) over each value and its negation, so
 * that every rank gets the maximum and whether all had the same; 64-bit
 * hashes carried as three exactly representable doubles; and
 * PSK_TUNE_CHECK=1's hash of a group's state after every decision, which
 * aborts the job on a mismatch (ranks that decide otherwise would run
 * different collectives and hang or corrupt data). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tune_internal.h"

/* ---- agreement ---- */

void psk_tune_agree_chunks(uint64_t h, double *v)
{
    v[0] = (double)(h & 0x3fffff), v[1] = (double)((h >> 22) & 0x3fffff), v[2] = (double)(h >> 44);
}

/* n values agreed: after the call v holds the maximum, same[i] whether
 * every rank had the same */
int psk_tune_agree(MPI_Comm comm, double *v, int *same, int n)
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

uint64_t psk_tune_agree_fnv(const char *s) { return psk_tune_hash(0xcbf29ce484222325u, s, strlen(s)); }

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

void psk_tune_agree_check(const psk_tune_comm *c, psk_tune_group *g)
{
    uint64_t h = state_hash(g);
    /* a test's own way to make one rank decide otherwise (tests/tune) */
    const char *skew = getenv("PSK_TUNE_TEST_DESYNC");
    if (skew && *skew && atoi(skew) == c->rank && g->decisions == 1)
        h ^= 1;
    double v[3];
    int same[3];
    psk_tune_agree_chunks(h, v);
    if (psk_tune_agree(c->priv, v, same, 3) == MPI_SUCCESS && same[0] && same[1] && same[2])
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
