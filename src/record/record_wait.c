/* How much of the time a rank wanted a core it got one. Where other
 * programs (or more ranks than cores) took the CPUs, a rank's recorded
 * compute gaps hold time it waited for a core; a skeleton emulating all of
 * it as work would, on the same crowded machine, wait again on top (a heat
 * stencil recorded beside a CPU-bound job: predicted +50 %). The kernel
 * counts each thread's time on a CPU and its time runnable but waiting for
 * one (/proc/thread-self/schedstat: ns, ns, timeslices); the thread that
 * initialised MPI reads them as MPI_Init returns and as MPI_Finalize
 * begins, and the share run / (run + wait) goes to job.json
 * (record_core.c). Time asleep (I/O, blocking waits) is neither.
 * Where ranks outnumber a host's CPUs, which of them shared a CPU is what
 * their waits depend on: every 8th recorded call notes the CPU the caller
 * is on (sched_getcpu, read from glibc's rseq area), and job.json says
 * the one a rank was on for at least 3/4 of them (sim_cores.c). */
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record_call.h"

static struct {
    int fd;             /* the thread's schedstat, -1 if not readable */
    uint64_t run0, wait0;
    uint32_t seen;      /* CPUs sampled */
    uint32_t on[1024];  /* how often on each CPU (beyond 1023: only seen) */
} W = {.fd = -1};

/* the thread's time on a CPU and waiting for one so far (ns); 0 or -1 */
static int read_stat(uint64_t *run, uint64_t *wait)
{
    char b[96], *end;
    ssize_t n = W.fd >= 0 ? pread(W.fd, b, sizeof b - 1, 0) : -1;
    if (n <= 0)
        return -1;
    b[n] = 0;
    unsigned long long r = strtoull(b, &end, 10);
    if (end == b || *end != ' ')
        return -1;
    const char *p = end + 1;
    unsigned long long w = strtoull(p, &end, 10);
    if (end == p)
        return -1;
    *run = r, *wait = w;
    return 0;
}

void psk_cpu_begin(void)
{
    W.fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (W.fd >= 0 && read_stat(&W.run0, &W.wait0)) {
        close(W.fd);
        W.fd = -1;
    }
}

void psk_cpu_end(double *share, double *seconds)
{
    uint64_t run, wait;
    *share = -1, *seconds = 0;
    if (W.fd >= 0 && !read_stat(&run, &wait) && run >= W.run0 && wait >= W.wait0) {
        double r = (double)(run - W.run0), w = (double)(wait - W.wait0);
        *seconds = (r + w) * 1e-9;
        if (r + w >= 1e7) /* under 10 ms runnable: not known */
            *share = r / (r + w);
    }
    if (W.fd >= 0)
        close(W.fd);
    W.fd = -1;
}

void psk_cpu_sample(void)
{
    int c = sched_getcpu();
    W.seen++;
    if (c >= 0 && c < (int)(sizeof W.on / sizeof *W.on))
        W.on[c]++;
}

int psk_cpu_stayed(void)
{
    int best = 0;
    for (int c = 1; c < (int)(sizeof W.on / sizeof *W.on); c++)
        best = W.on[c] > W.on[best] ? c : best;
    return W.seen >= 8 && W.on[best] >= W.seen - W.seen / 4 ? best : -1;
}
