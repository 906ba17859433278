/* What the learner knows of a group before it measures. Per
 * communicator, agreed by every rank at its first call: the same
 * PSK_TUNE_* settings, the machine's name (the decision file's key) and
 * the cost model's prior. Process-wide: the arm each settled group chose,
 * offered to later groups of its size (tune_group.c seeds them with it). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tune_internal.h"

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

int psk_tune_prior_of(int P, int coll, int sclass)
{
    int arm = -1;
    pthread_mutex_lock(&PR.lock);
    for (int i = 0; i < PR.n; i++)
        if (PR.v[i].P == P && PR.v[i].coll == coll && PR.v[i].sclass == sclass)
            arm = PR.v[i].arm;
    pthread_mutex_unlock(&PR.lock);
    return arm;
}

/* ---- a communicator's set-up ---- */

/* the machine's name: the host name without its domain and trailing
 * digits (node017 -> node), and whether every rank is on one host */
void psk_tune_host_names(char *full, size_t nf, char *base, size_t nb)
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
    psk_tune_host_names(full, sizeof full, base, sizeof base);
    c->groups = calloc(PSK_TUNE_MAXGROUPS, sizeof *c->groups);
    double v[12];
    int same[12];
    v[0] = c->groups != NULL;
    psk_tune_agree_chunks(cf->hash, v + 1);
    psk_tune_agree_chunks(psk_tune_agree_fnv(full), v + 4);
    psk_tune_agree_chunks(psk_tune_agree_fnv(base), v + 7);
    /* the model's prior: a machine file's intra-node costs when it puts
     * the whole communicator on one node */
    int intra = cf->machine_rpn >= c->size;
    v[10] = intra ? cf->intra_alpha0 : cf->alpha0;
    v[11] = intra ? cf->intra_beta0 : cf->beta0;
    int rc = psk_tune_agree(c->priv, v, same, 12);
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
