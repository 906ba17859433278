/* Running another program (mpicc, the user's launcher, ldd) with its
 * standard output captured (and its stderr, if asked, to a file):
 * predict, calibrate and check use it, and the rest of src/run to ask
 * programs what they are. The program
 * runs in its own process group with stdin from /dev/null (a launcher in a
 * background group must not stop on reading the terminal), under an
 * optional time limit: then SIGTERM to its group, 2 s of grace still
 * collecting its output, SIGKILL to the group and to every process left
 * below this one. Launchers put their ranks in groups of their own, so the
 * group alone would miss them: this process becomes their subreaper (Linux)
 * and finds them through /proc. SIGINT, SIGTERM and SIGHUP end the running
 * program the same way; outside a run they go to the caller's hook
 * (psk_run_on_signal: perfskel removes its files) and then take their
 * default action. The handlers' state is process-wide, as signals are.
 * A caller killed outright still sends SIGTERM to the launcher (Linux's
 * parent-death signal). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "perfskel/common.h"
#include "run_internal.h"

#define GRACE_S 2.0 /* between SIGTERM and SIGKILL */

/* State the signal handler reads: a handler may only touch these */
static volatile sig_atomic_t got_sig;  /* the first SIGINT/SIGTERM/SIGHUP, 0 if none */
static volatile sig_atomic_t run_pgid; /* the running program's group, 0 if none */
static void (*volatile outside_hook)(int sig);
static int handlers_on;

double xrun_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void on_signal(int sig)
{
    if (run_pgid > 0) {
        /* the run loop ends the program and returns; impatience (a second
         * Ctrl-C) skips the grace period */
        if (got_sig)
            kill(-(pid_t)run_pgid, SIGKILL);
        else
            got_sig = sig;
        return;
    }
    got_sig = sig;
    void (*hook)(int) = outside_hook;
    if (hook)
        hook(sig);
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns: its default action */
}

static const int handled[3] = {SIGINT, SIGTERM, SIGHUP};

static void handlers(void)
{
    if (handlers_on)
        return;
    handlers_on = 1;
    for (int k = 0; k < 3; k++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        /* ignored on entry (nohup, a background job of a script): the
         * caller wants perfskel to survive it, so it stays ignored */
        if (sigaction(handled[k], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(handled[k], &sa, NULL);
    }
}

void psk_run_on_signal(void (*hook)(int sig))
{
    outside_hook = hook;
    handlers();
}

int psk_run_interrupted(void)
{
    return got_sig;
}

/* The processes below perfskel (its children and theirs, and orphans it
 * inherited as subreaper), from /proc; malloc'd, *n of them (NULL, 0 if
 * none or memory ran out) */
static pid_t *descendants(int *n)
{
    *n = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return NULL;
    size_t np = 0, cap = 256;
    pid_t *pid = malloc(cap * sizeof *pid), *ppid = malloc(cap * sizeof *ppid);
    struct dirent *e;
    while (pid && ppid && (e = readdir(d))) {
        char path[300], buf[512];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            continue;
        ssize_t len = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (len <= 0)
            continue;
        buf[len] = 0;
        /* "pid (comm) state ppid ...": comm may hold spaces and parentheses */
        char *rp = strrchr(buf, ')');
        char state;
        int pp;
        if (!rp || sscanf(rp + 1, " %c %d", &state, &pp) != 2)
            continue;
        if (np == cap) {
            cap *= 2;
            pid_t *a = realloc(pid, cap * sizeof *pid), *b = a ? realloc(ppid, cap * sizeof *ppid) : NULL;
            if (a)
                pid = a;
            if (b)
                ppid = b;
            if (!a || !b)
                break;
        }
        pid[np] = (pid_t)atoi(e->d_name);
        ppid[np++] = (pid_t)pp;
    }
    closedir(d);
    pid_t *out = pid && ppid ? malloc((np ? np : 1) * sizeof *out) : NULL;
    int found = 0;
    if (out) {
        /* breadth first from perfskel: out[] is the queue */
        pid_t self = getpid();
        for (size_t k = 0; k < np; k++)
            if (ppid[k] == self)
                out[found++] = pid[k];
        for (int q = 0; q < found; q++)
            for (size_t k = 0; k < np; k++)
                if (ppid[k] == out[q])
                    out[found++] = pid[k];
    }
    free(pid);
    free(ppid);
    *n = found;
    return out;
}

/* SIGKILL to everything below perfskel, then reap what are its children
 * but the one the run loop waits for (launcher) */
static void kill_descendants(pid_t launcher)
{
    for (int round = 0; round < 3; round++) { /* a process may fork while we look */
        int n;
        pid_t *p = descendants(&n);
        for (int k = 0; k < n; k++)
            kill(p[k], SIGKILL);
        for (int k = 0; k < n; k++)
            if (p[k] != launcher)
                waitpid(p[k], NULL, WNOHANG);
        free(p);
        if (!n)
            return;
    }
}

/* reaps orphans that ended below perfskel (as subreaper it inherits them);
 * the count of processes still alive there */
static int reap_left(void)
{
    int n, alive = 0;
    pid_t *p = descendants(&n);
    for (int k = 0; k < n; k++) {
        int st;
        pid_t r = waitpid(p[k], &st, WNOHANG);
        if (r == 0 || (r < 0 && errno == ECHILD && kill(p[k], 0) == 0))
            alive++;
    }
    free(p);
    return alive;
}

/* a line of the program's stderr: to caught if it holds o->catch, else
 * through (or to o->err) */
static void stderr_line(psk_run_opts *o, FILE *caught, const char *line, size_t len)
{
    if (o->catch && caught && (!*o->catch || memmem(line, len, o->catch, strlen(o->catch))))
        fwrite(line, 1, len, caught);
    else
        fwrite(line, 1, len, o->err ? o->err : stderr);
}

int psk_run_watched(char **argv, psk_run_opts *o)
{
    int fo[2], fe[2];
    o->timed_out = o->signal = 0;
    o->caught = NULL;
    o->ncaught = 0;
    o->seconds = 0;
    handlers();
#ifdef PR_SET_CHILD_SUBREAPER
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#endif
    if (pipe(fo))
        return -1;
    if (pipe(fe)) {
        close(fo[0]), close(fo[1]);
        return -1;
    }
    fflush(NULL);
    /* no signal between fork and run_pgid being set: the handler would
     * think nothing runs and leave the program behind */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &old);
    double t0 = xrun_now();
    pid_t parent = getpid();
    (void)parent; /* without PR_SET_PDEATHSIG */
    pid_t pid = fork();
    if (pid < 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(fo[0]), close(fo[1]), close(fe[0]), close(fe[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, 0);
        dup2(fo[1], 1);
        dup2(fe[1], 2);
        close(fo[0]), close(fo[1]), close(fe[0]), close(fe[1]);
        /* the caller's hook would clean up the caller's files from here */
        for (int s = 0; s < 3; s++) {
            struct sigaction sa;
            if (sigaction(handled[s], NULL, &sa) == 0 && sa.sa_handler == on_signal)
                signal(handled[s], SIG_DFL);
        }
#ifdef PR_SET_PDEATHSIG
        /* perfskel killed outright (SIGKILL, no handler) takes the launcher along */
        prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
        if (getppid() != parent)
            _exit(128 + SIGTERM);
#endif
        sigprocmask(SIG_SETMASK, &old, NULL);
        execvp(argv[0], argv);
        /* the child's stderr, where its output goes: what the caller keeps
         * of the program (check reads it back from the step's file) */
        fprintf(stderr, "perfskel: %s: cannot run: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* both sides: whichever runs first */
    run_pgid = pid;
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(fo[1]);
    close(fe[1]);

    size_t ncaught = 0;
    FILE *caught = o->catch ? open_memstream(&o->caught, &ncaught) : NULL;
    char *line = NULL; /* the stderr line being collected */
    size_t llen = 0, lcap = 0;
    struct pollfd pf[2] = {{.fd = fo[0], .events = POLLIN}, {.fd = fe[0], .events = POLLIN}};
    int status = 0, reaped = 0;
    enum { RUNNING, TERMED, KILLED } state = RUNNING;
    double t_state = 0, t_reaped = 0;
    for (;;) {
        double now = xrun_now();
        if (state == RUNNING && !reaped && (got_sig || (o->limit > 0 && now - t0 >= o->limit))) {
            o->signal = got_sig;
            o->timed_out = !got_sig;
            kill(-pid, SIGTERM);
            state = TERMED, t_state = now;
        } else if (state == TERMED && now - t_state >= GRACE_S) {
            kill(-pid, SIGKILL);
            kill_descendants(pid);
            state = KILLED, t_state = now;
        }
        int open_fds = (pf[0].fd >= 0) + (pf[1].fd >= 0);
        if (reaped && (!open_fds || now - t_reaped >= GRACE_S))
            break; /* done; or a process we do not wait for holds the pipes */
        if (state == KILLED && now - t_state >= GRACE_S && !reaped) {
            /* SIGKILLed and still there: only an uninterruptible sleep does
             * that, and it ends; wait for it rather than leave a zombie */
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            reaped = 1, t_reaped = now;
            continue;
        }
        /* short sleeps: a signal that lands just before poll is seen soon */
        int wait_ms = 100;
        if (open_fds) {
            int r = poll(pf, 2, wait_ms);
            if (r < 0 && errno != EINTR)
                break;
            char buf[65536];
            for (int k = 0; r > 0 && k < 2; k++) {
                if (pf[k].fd < 0 || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
                    continue;
                ssize_t got = read(pf[k].fd, buf, sizeof buf);
                if (got < 0 && errno == EINTR)
                    continue;
                if (got <= 0) {
                    close(pf[k].fd);
                    pf[k].fd = -1;
                    continue;
                }
                if (k == 0) {
                    if (o->out)
                        fwrite(buf, 1, (size_t)got, o->out);
                    continue;
                }
                for (ssize_t b = 0; b < got; b++) {
                    if (llen == lcap) {
                        size_t c = lcap ? 2 * lcap : 1024;
                        char *l = realloc(line, c);
                        if (!l) { /* pass it through unsplit rather than lose it */
                            fwrite(line, 1, llen, o->err ? o->err : stderr);
                            llen = 0;
                        } else {
                            line = l, lcap = c;
                        }
                    }
                    line[llen++] = buf[b];
                    if (buf[b] == '\n') {
                        stderr_line(o, caught, line, llen);
                        llen = 0;
                    }
                }
                fflush(o->err ? o->err : stderr);
            }
        } else {
            usleep(wait_ms * 1000);
        }
        if (!reaped) {
            pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid || (w < 0 && errno == ECHILD)) /* ECHILD: someone reaped it (not expected) */
                reaped = 1, t_reaped = xrun_now();
        }
    }
    if (llen)
        stderr_line(o, caught, line, llen);
    free(line);
    for (int k = 0; k < 2; k++)
        if (pf[k].fd >= 0)
            close(pf[k].fd);
    if (!reaped)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    /* ranks the launcher left behind (reparented to perfskel): a moment to
     * end on their own, then SIGKILL; after a timeout, no moment */
    for (double t = xrun_now(); reap_left() && state == RUNNING && xrun_now() - t < GRACE_S;)
        usleep(50 * 1000);
    if (reap_left())
        kill_descendants(0);
    run_pgid = 0;
    if (caught) {
        fclose(caught);
        o->ncaught = ncaught;
    }
    o->seconds = xrun_now() - t0;
    if (state == RUNNING && got_sig) /* the signal came as it ended */
        o->signal = got_sig;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int psk_run_capture(char **argv, FILE *out)
{
    psk_run_opts o = {.out = out};
    int st = psk_run_watched(argv, &o);
    free(o.caught);
    return st;
}
