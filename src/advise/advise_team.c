/* A team of threads for the advisor's search (advise_search.c), one job
 * at a time: the job runs on every thread of the team, the caller's
 * among them, and hands its work out itself (an atomic counter), each
 * result going to a slot its index owns, so that what is computed does
 * not depend on the threads or the order they run in. A thread that
 * cannot be started is simply not in the team. */
#include <pthread.h>
#include <string.h>

#include "advise_internal.h"

static void *worker(void *v)
{
    adv_team *t = v;
    unsigned seen = 0; /* workers start before the first job is handed out */
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (t->gen == seen && !t->quit)
            pthread_cond_wait(&t->start, &t->mu);
        if (t->quit)
            break;
        seen = t->gen;
        pthread_mutex_unlock(&t->mu);
        t->job(t->arg);
        pthread_mutex_lock(&t->mu);
        if (++t->ndone == t->nworkers)
            pthread_cond_signal(&t->done);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

/* n threads in all (the caller's among them); fewer if some cannot start */
void psk_adv_team_open(adv_team *t, int n)
{
    memset(t, 0, sizeof *t);
    if (n <= 1)
        return;
    if (pthread_mutex_init(&t->mu, NULL))
        return;
    if (pthread_cond_init(&t->start, NULL)) {
        pthread_mutex_destroy(&t->mu);
        return;
    }
    if (pthread_cond_init(&t->done, NULL)) {
        pthread_cond_destroy(&t->start);
        pthread_mutex_destroy(&t->mu);
        return;
    }
    t->ok = 1;
    for (int i = 0; i < n - 1 && i < ADV_MAXTHREADS; i++) {
        if (pthread_create(&t->tid[i], NULL, worker, t))
            break;
        t->nworkers++;
    }
}

/* job(arg) on every thread of the team; returns when all have returned */
void psk_adv_team_run(adv_team *t, void (*job)(void *), void *arg)
{
    if (!t->nworkers) {
        job(arg);
        return;
    }
    pthread_mutex_lock(&t->mu);
    t->job = job;
    t->arg = arg;
    t->ndone = 0;
    t->gen++;
    pthread_cond_broadcast(&t->start);
    pthread_mutex_unlock(&t->mu);
    job(arg);
    pthread_mutex_lock(&t->mu);
    while (t->ndone < t->nworkers)
        pthread_cond_wait(&t->done, &t->mu);
    pthread_mutex_unlock(&t->mu);
}

void psk_adv_team_close(adv_team *t)
{
    if (!t->ok)
        return;
    pthread_mutex_lock(&t->mu);
    t->quit = 1;
    pthread_cond_broadcast(&t->start);
    pthread_mutex_unlock(&t->mu);
    for (int i = 0; i < t->nworkers; i++)
        pthread_join(t->tid[i], NULL);
    pthread_cond_destroy(&t->done);
    pthread_cond_destroy(&t->start);
    pthread_mutex_destroy(&t->mu);
    memset(t, 0, sizeof *t);
}
