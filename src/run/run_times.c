/* perfskel check's plain runs (perfskel/check.h): reading what a run's
 * ranks wrote in the recording library's time-only mode
 * (src/record/record_times.c: DIR/rank-NNNNNN.times, lines "rank R P",
 * "init T0 T1", "finalize T", "signal N", "exit S"): the run's time as
 * perfskel stats counts a recording's (the slowest rank's MPI_Init exit to
 * MPI_Finalize entry), and, for a run that failed, which rank ended how. */
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfskel/check.h"
#include "perfskel/common.h"

typedef struct rank_end {
    int rank, size;
    int has_init, has_final, sig, has_exit, status;
    unsigned long long t_init, t_final;
} rank_end;

static const char *sig_name(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {{SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},
                 {SIGABRT, "SIGABRT"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},   {SIGHUP, "SIGHUP"},
                 {SIGQUIT, "SIGQUIT"}, {SIGKILL, "SIGKILL"}, {SIGPIPE, "SIGPIPE"}, {SIGUSR1, "SIGUSR1"}};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (names[k].sig == sig)
            return names[k].name;
    return NULL;
}

static int is_crash(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGABRT;
}

/* 1 if name is rank-N.times; *rank N */
static int times_name(const char *name, int *rank)
{
    int r, n = 0;
    if (sscanf(name, "rank-%d.times%n", &r, &n) != 1 || name[n] || r < 0)
        return 0;
    *rank = r;
    return 1;
}

static int read_one(const char *path, rank_end *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[128];
    while (fgets(line, sizeof line, f)) {
        int a, b;
        unsigned long long x, y;
        if (sscanf(line, "rank %d %d", &a, &b) == 2)
            e->rank = a, e->size = b;
        else if (sscanf(line, "init %llu %llu", &x, &y) == 2)
            e->has_init = 1, e->t_init = y;
        else if (sscanf(line, "finalize %llu", &x) == 1)
            e->has_final = 1, e->t_final = x;
        else if (sscanf(line, "signal %d", &a) == 1)
            e->sig = e->sig ? e->sig : a; /* the first: what ended it */
        else if (sscanf(line, "exit %d", &a) == 1)
            e->has_exit = 1, e->status = a;
    }
    fclose(f);
    return 0;
}

/* how bad an end is: higher is worse (0: a clean end) */
static int badness(const rank_end *e)
{
    if (e->sig && is_crash(e->sig))
        return 6;
    if (e->has_exit && e->status)
        return 5;
    if (!e->has_final && e->has_exit)
        return 4;
    if (e->sig)
        return 3;
    if (!e->has_final)
        return 2;
    return 0;
}

static void describe(const rank_end *e, char *out, size_t cap)
{
    const char *when = e->has_final ? "after calling MPI_Finalize" : "before MPI_Finalize";
    const char *sn = sig_name(e->sig);
    char sbuf[24];
    if (!sn)
        snprintf(sbuf, sizeof sbuf, "signal %d", e->sig), sn = sbuf;
    switch (badness(e)) {
    case 6:
        snprintf(out, cap, "rank %d died of %s %s", e->rank, sn, when);
        break;
    case 5:
        snprintf(out, cap, "rank %d exited with status %d %s", e->rank, e->status, when);
        break;
    case 4:
        snprintf(out, cap, "rank %d exited (status 0) without calling MPI_Finalize", e->rank);
        break;
    case 3:
        snprintf(out, cap, "rank %d was ended by %s %s", e->rank, sn, when);
        break;
    default:
        snprintf(out, cap, "rank %d never reached MPI_Finalize", e->rank);
        break;
    }
}

int psk_run_times_read(const char *dir, psk_run_times *t)
{
    memset(t, 0, sizeof *t);
    DIR *d = opendir(dir);
    if (!d)
        return PSK_ENOTFOUND;
    rank_end *all = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        int r;
        if (!times_name(de->d_name, &r))
            continue;
        if (n == cap) {
            size_t c = cap ? 2 * cap : 16;
            rank_end *a = realloc(all, c * sizeof *a);
            if (!a)
                break;
            all = a, cap = c;
        }
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        rank_end e = {.rank = r};
        if (!read_one(path, &e))
            all[n++] = e;
    }
    closedir(d);
    if (!n) {
        free(all);
        return PSK_ENOTFOUND;
    }
    const rank_end *worst = NULL;
    for (size_t k = 0; k < n; k++) {
        const rank_end *e = &all[k];
        t->nranks = e->size > t->nranks ? e->size : t->nranks;
        t->started++;
        if (e->has_final && e->has_init) {
            t->finalized++;
            double s = e->t_final > e->t_init ? 1e-9 * (double)(e->t_final - e->t_init) : 0;
            t->seconds = s > t->seconds ? s : t->seconds;
        }
        if (badness(e) && (!worst || badness(e) > badness(worst) ||
                           (badness(e) == badness(worst) && e->rank < worst->rank)))
            worst = e;
    }
    if (worst) {
        describe(worst, t->ended, sizeof t->ended);
    } else if (t->started < t->nranks) {
        snprintf(t->ended, sizeof t->ended, "%d of %d ranks never got through MPI_Init", t->nranks - t->started,
                 t->nranks);
    }
    int others = t->nranks - t->finalized - (worst && !worst->has_final);
    if (worst && others > 0) {
        size_t len = strlen(t->ended);
        snprintf(t->ended + len, sizeof t->ended - len, "; %d other rank%s of %d did not reach MPI_Finalize", others,
                 others > 1 ? "s" : "", t->nranks);
    }
    free(all);
    return PSK_OK;
}

void psk_run_times_clear(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        int r;
        char path[PATH_MAX + 300];
        if (!times_name(de->d_name, &r))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        unlink(path);
    }
    closedir(d);
}
