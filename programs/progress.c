/* Progress of a long step on stderr, the same for every command: on a
 * terminal a bar (or a running count when the total is not known yet)
 * rewritten in place at most ten times a second and wiped at the end; on
 * anything else plain lines for logs, only once the step has run for 2 s
 * (PSK_PROGRESS_AFTER=S for another delay), then at each tenth done (each
 * 10 s without a total), and a last line with the step's time. A step in a
 * library call that reports nothing (reading a merged file, folding) is
 * timed by a thread of its own, which says only how long it has run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

void psk_cli_progress_init(psk_cli_progress *p, const char *who, int quiet)
{
    memset(p, 0, sizeof *p);
    p->who = who;
    p->quiet = quiet;
    p->tty = isatty(2);
    p->after = 2.0;
    const char *e = getenv("PSK_PROGRESS_AFTER");
    if (e && *e) {
        char *end;
        double a = strtod(e, &end);
        if (!*end && a >= 0)
            p->after = a;
    }
    p->t0 = psk_cli_now();
}

/* "perfskel WHO: " ("perfskel: " without a command) */
static void prefix(const psk_cli_progress *p)
{
    fprintf(stderr, "perfskel%s%s: ", p->who ? " " : "", p->who ? p->who : "");
}

/* a timed step's time so far (p->lock held, or no thread yet) */
static void say_time(psk_cli_progress *p)
{
    double s = psk_cli_now() - p->step0;
    if (s < p->after)
        return;
    if (p->tty) {
        fputs("\r\033[K", stderr);
        prefix(p);
        fprintf(stderr, "%s ... %.0f s", p->step, s);
        p->bar = 1;
    } else if (!p->lines || psk_cli_now() - p->last >= 10) {
        prefix(p);
        fprintf(stderr, "%s ... (%.1f s)\n", p->step, s);
        p->lines = 1;
        p->last = psk_cli_now();
    }
}

/* what a timed step's thread says, every second: its time so far */
static void *timed_thread(void *arg)
{
    psk_cli_progress *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&p->wake, &p->lock, &ts);
        if (!p->stop)
            say_time(p);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

void psk_cli_progress_timed(psk_cli_progress *p, const char *step)
{
    psk_cli_progress_step(p, step, 0);
    if (p->quiet)
        return;
    if (p->after == 0)
        say_time(p); /* at once (tests) */
    p->stop = 0;
    if (pthread_mutex_init(&p->lock, NULL))
        return;
    if (pthread_cond_init(&p->wake, NULL)) {
        pthread_mutex_destroy(&p->lock);
        return;
    }
    if (pthread_create(&p->thread, NULL, timed_thread, p)) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        return; /* no progress then, the step runs all the same */
    }
    p->timed = 1;
}

/* wipes a bar; a last line for a step that showed plain lines */
static void finish_step(psk_cli_progress *p)
{
    if (p->timed) {
        pthread_mutex_lock(&p->lock);
        p->stop = 1;
        pthread_cond_signal(&p->wake);
        pthread_mutex_unlock(&p->lock);
        pthread_join(p->thread, NULL);
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        p->timed = 0;
    }
    if (p->quiet || !p->step[0])
        return;
    if (p->tty && p->bar)
        fputs("\r\033[K", stderr);
    else if (!p->tty && p->lines) {
        prefix(p);
        fprintf(stderr, "%s: done (%.1f s)\n", p->step, psk_cli_now() - p->step0);
    }
    p->bar = p->lines = 0;
}

void psk_cli_progress_step(psk_cli_progress *p, const char *step, uint64_t total)
{
    finish_step(p);
    snprintf(p->step, sizeof p->step, "%s", step);
    p->total = total;
    p->done = 0;
    p->tenth = 0;
    p->step0 = p->last = psk_cli_now();
}

void psk_cli_progress_set(psk_cli_progress *p, uint64_t done)
{
    p->done = done;
    if (p->quiet || !p->step[0])
        return;
    double now = psk_cli_now(), s = now - p->step0;
    if (p->tty) {
        if (now - p->last < 0.1 && p->bar)
            return;
        if (s < p->after && !p->bar)
            return;
        p->last = now;
        p->bar = 1;
        if (p->total) {
            double f = done >= p->total ? 1.0 : (double)done / (double)p->total;
            char bar[31];
            int n = (int)(f * 30);
            memset(bar, '#', (size_t)n);
            memset(bar + n, '-', (size_t)(30 - n));
            bar[30] = 0;
            fputs("\r\033[K", stderr);
            prefix(p);
            fprintf(stderr, "%s [%s] %3d %% %.0f s", p->step, bar, (int)(f * 100), s);
        } else {
            fputs("\r\033[K", stderr);
            prefix(p);
            fprintf(stderr, "%s: %llu %s, %.0f s", p->step, (unsigned long long)done, p->unit ? p->unit : "done", s);
        }
        return;
    }
    if (s < p->after)
        return;
    if (p->total) {
        int tenth = done >= p->total ? 10 : (int)(done * 10 / p->total);
        if (p->lines && tenth <= p->tenth)
            return;
        p->tenth = tenth;
        prefix(p);
        fprintf(stderr, "%s: %d %% (%.1f s)\n", p->step, tenth * 10, s);
    } else {
        if (p->lines && now - p->last < 10)
            return;
        prefix(p);
        fprintf(stderr, "%s: %llu %s (%.1f s)\n", p->step, (unsigned long long)done, p->unit ? p->unit : "done", s);
    }
    p->last = now;
    p->lines = 1;
}

void psk_cli_progress_done(psk_cli_progress *p)
{
    finish_step(p);
    p->step[0] = 0;
}

void psk_cli_progress_cb(void *arg, uint64_t done, uint64_t total)
{
    psk_cli_progress *p = arg;
    const char *step = total ? p->step_total : p->step_count;
    if (strcmp(p->step, step) || p->total != total)
        psk_cli_progress_step(p, step, total);
    psk_cli_progress_set(p, done);
}

/* a converter's progress (perfskel/convert.h): a new step when its name
 * changes, the end when it is NULL */
static void convert_progress(void *arg, const char *step, uint64_t done, uint64_t total)
{
    psk_cli_progress *p = arg;
    if (!step)
        psk_cli_progress_done(p);
    else if (strcmp(p->step, step))
        psk_cli_progress_step(p, step, total);
    else
        psk_cli_progress_set(p, done);
}

/* what a converter could not convert as it was: a line each */
static void convert_note(void *arg, const char *line)
{
    (void)arg;
    psk_cli_error("%s", line); /* a name's control bytes escaped */
}

int psk_cli_convert(int (*fn)(const char *, const char *, const psk_convert_opts *, char *, size_t), const char *in,
                    const char *out, const char *who, int quiet)
{
    psk_cli_progress pg;
    psk_cli_progress_init(&pg, who, quiet);
    psk_convert_opts o = {.progress = convert_progress, .progress_arg = &pg, .note = quiet ? NULL : convert_note};
    char err[4096];
    if (fn(in, out, &o, err, sizeof err) != PSK_OK) {
        psk_cli_error("%s", err);
        return PSK_EXIT_DATA;
    }
    return 0;
}
