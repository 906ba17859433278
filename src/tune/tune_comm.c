/* Per-communicator state of the tuning library, cached as an MPI attribute
 * (not copied by MPI_Comm_dup; freed with the communicator): its private
 * duplicate for the arms' traffic, request array and scratch, made and
 * grown collectively so that every rank has them or none uses them, and
 * the keys (call site, collective, size class) with each arm's statistics, and the
 * learner's groups. A list of the live states serves the report at
 * MPI_Finalize; a state freed before goes into the report when freed. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tune_internal.h"

/* a freed communicator's state whose last reduces are under way */
typedef struct zombie {
    struct zombie *next;
    psk_tune_comm *c;
    MPI_Request *reqs;
    int n;
} zombie;

static struct {
    pthread_mutex_t lock; /* the lists; the states are their communicator's */
    int keyval;
    int finalizing;
    unsigned next_id;
    psk_tune_comm *live;
    zombie *zombies;
    _Atomic int nzombies;
} C = {PTHREAD_MUTEX_INITIALIZER, MPI_KEYVAL_INVALID, 0, 0, NULL, NULL, 0};

static void free_state(psk_tune_comm *c)
{
    /* the user freed the communicator on every rank: ours goes too, but
     * not while MPI_Finalize takes the predefined ones apart */
    if (c->ready && !C.finalizing)
        PMPI_Comm_free(&c->priv);
    free(c->reqs);
    free(c->scratch);
    free(c->keys);
    for (int k = 0; k < PSK_TUNE_NCOLL; k++)
        free(c->pend[k]);
    for (int i = 0; i < c->ngroups; i++)
        psk_tune_learn_free(c->groups[i]);
    free(c->groups);
    free(c);
}

static void unlink_state(psk_tune_comm *c)
{
    pthread_mutex_lock(&C.lock);
    for (psk_tune_comm **p = &C.live; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    pthread_mutex_unlock(&C.lock);
}

static int on_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    psk_tune_comm *c = val;
    psk_tune_memo_void(); /* its handle may name another communicator next */
    unlink_state(c);
    if (C.finalizing || c->learn != 1) {
        if (!C.finalizing) /* (the report is written by then) the calls its gate held */
            psk_tune_report_archive(c);
        free_state(c);
        return MPI_SUCCESS;
    }
    /* the learner's figures: the windows under way are reduced without
     * waiting (a blocking collective here could deadlock a legal
     * program); the state is reported and freed once they are */
    zombie *z = malloc(sizeof *z);
    MPI_Request *r = malloc(((size_t)c->ngroups + 1) * sizeof *r);
    int n = 0;
    for (int i = 0; r && z && i < c->ngroups; i++)
        if (psk_tune_learn_flush_start(c, c->groups[i], &r[n]))
            n++;
    if (!z || !r) { /* no memory: as far as it got */
        psk_tune_report_archive(c);
        free_state(c);
        free(z), free(r);
        return MPI_SUCCESS;
    }
    *z = (zombie){NULL, c, r, n};
    pthread_mutex_lock(&C.lock);
    z->next = C.zombies;
    C.zombies = z;
    C.nzombies++;
    pthread_mutex_unlock(&C.lock);
    return MPI_SUCCESS;
}

/* GCC >= 11 takes MPICH's MPI_STATUSES_IGNORE for a zero-length array */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
static int wait_all(int n, MPI_Request *r) { return PMPI_Waitall(n, r, MPI_STATUSES_IGNORE); }
static int test_all(int n, MPI_Request *r, int *done) { return PMPI_Testall(n, r, done, MPI_STATUSES_IGNORE); }
#pragma GCC diagnostic pop

void psk_tune_comm_reap(int wait)
{
    if (!C.nzombies)
        return;
    pthread_mutex_lock(&C.lock);
    for (zombie **p = &C.zombies; *p;) {
        zombie *z = *p;
        int done = 1;
        if (wait)
            wait_all(z->n, z->reqs);
        else if (test_all(z->n, z->reqs, &done) != MPI_SUCCESS)
            done = 1;
        if (!done) {
            p = &z->next;
            continue;
        }
        *p = z->next;
        C.nzombies--;
        for (int i = 0; i < z->c->ngroups; i++)
            if (z->c->groups[i]->flushed)
                psk_tune_learn_flush_end(z->c->groups[i]);
        psk_tune_report_archive(z->c);
        free_state(z->c);
        free(z->reqs);
        free(z);
    }
    pthread_mutex_unlock(&C.lock);
}

void psk_tune_comm_flush_all(void)
{
    pthread_mutex_lock(&C.lock);
    int n = 0, cap = 0;
    for (psk_tune_comm *c = C.live; c; c = c->next)
        cap += c->learn == 1 ? c->ngroups : 0;
    MPI_Request *r = malloc(((size_t)cap + 1) * sizeof *r);
    psk_tune_group **g = malloc(((size_t)cap + 1) * sizeof *g);
    /* nonblocking: the communicators may be in any order on each rank */
    for (psk_tune_comm *c = C.live; r && g && c; c = c->next)
        for (int i = 0; c->learn == 1 && i < c->ngroups; i++)
            if (psk_tune_learn_flush_start(c, c->groups[i], &r[n]))
                g[n++] = c->groups[i];
    if (n)
        wait_all(n, r);
    for (int i = 0; i < n; i++)
        psk_tune_learn_flush_end(g[i]);
    pthread_mutex_unlock(&C.lock);
    free(r);
    free(g);
}

int psk_tune_comm_init(void)
{
    if (C.keyval != MPI_KEYVAL_INVALID)
        return 0;
    return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &C.keyval, NULL) == MPI_SUCCESS ? 0 : -1;
}

void psk_tune_comm_finalizing(void) { C.finalizing = 1; }

psk_tune_comm *psk_tune_comm_get(MPI_Comm comm)
{
    void *val = NULL;
    int flag = 0;
    if (C.keyval == MPI_KEYVAL_INVALID || PMPI_Comm_get_attr(comm, C.keyval, &val, &flag) != MPI_SUCCESS)
        return NULL;
    if (flag)
        return val;
    psk_tune_comm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->priv = MPI_COMM_NULL;
    if (PMPI_Comm_test_inter(comm, &c->inter) != MPI_SUCCESS || PMPI_Comm_size(comm, &c->size) != MPI_SUCCESS ||
        PMPI_Comm_rank(comm, &c->rank) != MPI_SUCCESS || PMPI_Comm_set_attr(comm, C.keyval, c) != MPI_SUCCESS) {
        free(c);
        return NULL;
    }
    pthread_mutex_lock(&C.lock);
    c->id = C.next_id++;
    c->next = C.live;
    C.live = c;
    pthread_mutex_unlock(&C.lock);
    return c;
}

int psk_tune_comm_setup(psk_tune_comm *c, MPI_Comm comm)
{
    MPI_Request *reqs = c ? malloc(2 * (size_t)c->size * sizeof *reqs) : NULL;
    int ok = reqs != NULL, all = 0;
    if (PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS || !all ||
        PMPI_Comm_dup(comm, &c->priv) != MPI_SUCCESS) {
        free(reqs);
        return -1;
    }
    c->reqs = reqs;
    c->ready = 1;
    return 0;
}

char *psk_tune_comm_scratch(psk_tune_comm *c, size_t need)
{
    if (need <= c->scratch_cap && c->scratch)
        return c->scratch;
    /* powers of two: few growths, each a collective */
    size_t want = 4096;
    while (want < need)
        want *= 2;
    int ok = 1, all = 0;
    if (want > c->scratch_have) {
        free(c->scratch);
        c->scratch = malloc(want);
        c->scratch_have = c->scratch ? want : 0;
        ok = c->scratch != NULL;
    }
    if (PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->priv) != MPI_SUCCESS || !all)
        return NULL;
    c->scratch_cap = want;
    return c->scratch;
}

/* ---- keys ---- */

static size_t slot_of(uint64_t site, int coll, int sclass, size_t cap)
{
    uint64_t h = (site ^ ((uint64_t)(sclass + 1 + 256 * coll) * 0x9e3779b97f4a7c15u)) * 0xff51afd7ed558ccdu;
    return (size_t)(h >> 32) & (cap - 1);
}

static int grow_keys(psk_tune_comm *c)
{
    size_t cap = c->capkeys ? 2 * c->capkeys : 16;
    psk_tune_key *k = calloc(cap, sizeof *k);
    if (!k)
        return -1;
    for (size_t i = 0; i < c->capkeys; i++) {
        const psk_tune_key *o = &c->keys[i];
        if (!o->site)
            continue;
        size_t j = slot_of(o->site, o->coll, o->sclass, cap);
        while (k[j].site)
            j = (j + 1) & (cap - 1);
        k[j] = *o;
    }
    free(c->keys);
    c->keys = k;
    c->capkeys = cap;
    psk_tune_memo_void(); /* the keys moved */
    return 0;
}

psk_tune_key *psk_tune_comm_key(psk_tune_comm *c, const psk_tune_site *s, int coll, int sclass)
{
    if (!s)
        return NULL;
    if (c->capkeys) {
        size_t j = slot_of(s->id, coll, sclass, c->capkeys);
        for (; c->keys[j].site; j = (j + 1) & (c->capkeys - 1))
            if (c->keys[j].site == s->id && c->keys[j].coll == coll && c->keys[j].sclass == sclass)
                return &c->keys[j];
    }
    if (2 * (c->nkeys + 1) > c->capkeys && grow_keys(c))
        return NULL;
    size_t j = slot_of(s->id, coll, sclass, c->capkeys);
    while (c->keys[j].site)
        j = (j + 1) & (c->capkeys - 1);
    psk_tune_key *k = &c->keys[j];
    k->site = s->id;
    k->where = s;
    k->coll = coll;
    k->sclass = sclass;
    c->nkeys++;
    return k;
}

void psk_tune_comm_each(void (*fn)(const psk_tune_comm *, void *), void *arg)
{
    pthread_mutex_lock(&C.lock);
    for (const psk_tune_comm *c = C.live; c; c = c->next)
        fn(c, arg);
    pthread_mutex_unlock(&C.lock);
}
