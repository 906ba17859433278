/* The recording library's time-only mode (PSK_TIMES=DIR; perfskel check
 * sets it for its plain runs): nothing is recorded, and each rank writes
 * DIR/rank-NNNNNN.times, a few text lines saying when its MPI_Init
 * returned and its MPI_Finalize was entered (CLOCK_MONOTONIC ns, the
 * recorder's clock before it calibrates the TSC) and how it ended:
 *
 *   perfskel-times 1
 *   rank R P                  (its rank, the job's size: written in MPI_Init)
 *   init T_ENTRY T_EXIT       (written with the first of the lines below)
 *   finalize T_ENTRY          (MPI_Finalize was called)
 *   signal N                  (a signal that ends the rank: it dies of it then)
 *   exit STATUS               (exit() or a return from main, with its status)
 *
 * so that a plain run is timed as perfskel stats times a recording (the
 * slowest rank's MPI_Init exit to MPI_Finalize entry) with the same
 * library loaded, and a failed one says which rank ended how. Recording
 * stays off (psk_state 2), so every wrapper passes straight to the MPI
 * as it does after MPI_Finalize: one load and a branch per call. Nothing
 * is written between MPI_Init's exit and MPI_Finalize's entry (the init
 * line waits for the end). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "psk_fs.h"
#include "record_call.h"
#include "record_internal.h"

static int times_fd = -1;
static pid_t times_pid; /* a child forked by the rank writes nothing */
static uint64_t init_t0, init_t1;
static volatile sig_atomic_t init_said;

/* decimal digits of v at p, no terminator; how many (signal-safe) */
static size_t put_u64(char *p, uint64_t v)
{
    char tmp[24];
    size_t n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    for (size_t k = 0; k < n; k++)
        p[k] = tmp[n - 1 - k];
    return n;
}

/* "WORD a b\n" (nv values: 0, 1 or 2) appended to the rank's file; signal-safe */
static void put_line(const char *word, int nv, uint64_t a, uint64_t b)
{
    if (times_fd < 0 || getpid() != times_pid)
        return;
    char line[80];
    size_t n = strlen(word);
    memcpy(line, word, n);
    if (nv > 0)
        line[n++] = ' ', n += put_u64(line + n, a);
    if (nv > 1)
        line[n++] = ' ', n += put_u64(line + n, b);
    line[n++] = '\n';
    for (size_t done = 0; done < n;) {
        ssize_t w = write(times_fd, line + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        done += (size_t)w;
    }
}

/* the init line, once, before the first line of the end */
static void put_init(void)
{
    if (init_said)
        return;
    init_said = 1;
    put_line("init", 2, init_t0, init_t1);
}

static void on_exit_status(int status, void *arg)
{
    (void)arg;
    if (getpid() != times_pid)
        return;
    put_init();
    put_line("exit", 1, (uint64_t)(unsigned)status & 0xff, 0);
    if (times_fd >= 0)
        close(times_fd);
    times_fd = -1;
}

int psk_times_start(uint64_t t0)
{
    const char *dir = getenv("PSK_TIMES");
    if (!dir || !*dir)
        return 0;
    int rank = 0, size = 0, err = psk_mkdir_p(dir);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/rank-%06d.times", dir, rank);
    if (err || (times_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644)) < 0) {
        fprintf(stderr, "perfskel: rank %d: %s: %s; this run is not timed\n", rank, path,
                strerror(err ? err : errno));
        return 1;
    }
    times_pid = getpid();
    put_line("perfskel-times", 1, 1, 0);
    put_line("rank", 2, (uint64_t)rank, (uint64_t)size);
    on_exit(on_exit_status, NULL);
    init_t0 = t0;
    init_t1 = psk_mono_ns(); /* the program's own time starts now */
    return 1;
}

void psk_times_finalize(uint64_t t0)
{
    put_init();
    put_line("finalize", 1, t0, 0);
}

void psk_times_signal(int sig)
{
    put_init();
    put_line("signal", 1, (uint64_t)sig, 0);
}
