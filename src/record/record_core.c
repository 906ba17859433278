/* The recorder: one per process. Starts in MPI_Init (trace directory, job
 * id agreed with rank 0, clock offsets to rank 0 by ping-pong, job.json by
 * rank 0), appends each call's event to a block buffer, writes a block with
 * one writev() when it fills, and ends with an END block in MPI_Finalize.
 * A rank killed by a signal or exiting without MPI_Finalize writes the
 * events it holds as a last block without END, so readers say it was cut
 * short. Recording problems (disk full) are reported once on stderr and
 * switch recording off; they never stop the program. With PSK_TIMES set
 * nothing is recorded: the time-only mode of record_times.c instead
 * (perfskel check's plain runs). PMPI recording as in §2.1 of Zhang et al.,
 * "Parallel Job Performance Prediction Based on the Case Reconstruction"
 * (Journal of Software, 2010). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_initStaticCCtx: Debian's libzstd exports it */
#include <zstd.h>

#include "psk_fs.h"
#include "psk_json.h"
#include "psk_work.h"
#include "psk_varint.h"
#include "record_call.h"
#include "record_internal.h"
#include "trace_pack.h"

_Atomic int psk_state;
__thread int psk_fguard __attribute__((tls_model("initial-exec")));
int psk_threaded;
atomic_flag psk_lockflag = ATOMIC_FLAG_INIT;
/* which thread of the process makes a call: -1 until its first recorded
 * call, then its number (0 the thread that initialised MPI, then 1, 2, ...
 * in the order of first calls: given as the event is written, in the
 * file's order) */
static __thread int my_thread __attribute__((tls_model("initial-exec"))) = -1;
static _Atomic int next_thread;

static struct {
    int fd;
    char path[PATH_MAX];
    int rank, nranks;
    uint8_t *buf;       /* block payload being filled */
    size_t cap, used;   /* used = bytes of complete events */
    uint32_t nev, seq;
    uint64_t base;      /* exit time before the block's first event */
    uint64_t prev_t1;
    uint64_t total;
    uint64_t mono_start;
    volatile sig_atomic_t in_write;
    int started;        /* priv made, the clock offsets to be exchanged at the end */
    int arms;           /* libperfskel-tune stacked after us: the arms recorded are known */
    ZSTD_CCtx *zctx;    /* PSK_ZSTD: blocks compressed (a static context: never allocates) */
    void *zws;          /* its workspace */
    uint8_t *zbuf;      /* a compressed block */
    size_t zcap;
    int zlevel;
    int threads;        /* each event ends with its thread (PSK_FILE_THREADS): the
                         * rank may call MPI from several threads */
    int merge;          /* PSK_MERGE: the file ends before the real Finalize, rank 0
                         * merges (2, "only": the rank files go once merged) */
    int ended;          /* the file ended in pre_finalize */
    char dir[PATH_MAX];
    MPI_Comm priv;      /* perfskel's own traffic, never the user's */
} R = {.fd = -1};

int psk_mpi_alive(void)
{
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    return init && !fin;
}

static void warn(const char *what, int err)
{
    fprintf(stderr, "perfskel: rank %d: %s%s%s; recording stopped\n", R.rank, what,
            err ? ": " : "", err ? strerror(err) : "");
}

/* ---- blocks ---- */

static int write_all(const struct iovec *iov, int n)
{
    struct iovec v[2];
    memcpy(v, iov, (size_t)n * sizeof *v);
    int i = 0;
    while (i < n) {
        ssize_t w = writev(R.fd, v + i, n - i);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        while (i < n && (size_t)w >= v[i].iov_len)
            w -= (ssize_t)v[i++].iov_len;
        if (i < n) {
            v[i].iov_base = (char *)v[i].iov_base + w;
            v[i].iov_len -= (size_t)w;
        }
    }
    return 0;
}

/* Writes the events held as one block. Safe in a signal handler: it only
 * computes and calls writev(). */
static int flush_block(int kind, const uint8_t *payload, size_t len, uint32_t nev)
{
    if (R.fd < 0)
        return 0;
    uint8_t hdr[PSK_BLOCK_HEADER_SIZE];
    psk_block_header h = {.kind = (uint8_t)kind, .payload_len = (uint32_t)len,
                          .n_events = nev, .base_ns = R.base, .seq = R.seq++};
    psk_pack_block_header(hdr, &h, payload);
    struct iovec iov[2] = {{hdr, sizeof hdr}, {(void *)payload, len}};
    return write_all(iov, len ? 2 : 1);
}

/* in_write is set from before a block is written until the events it
 * held are gone from the buffer: a signal in between must not write them
 * again (the reader would take the copy for more events) */
static void flush_events(void)
{
    if (!R.nev)
        return;
    R.in_write = 1;
    atomic_signal_fence(memory_order_seq_cst);
    /* compressed when asked and smaller (a signal handler writes its
     * block as it is: on_signal) */
    int kind = PSK_BLOCK_EVENTS;
    const uint8_t *pl = R.buf;
    size_t len = R.used;
    if (R.zctx && len) {
        size_t z = ZSTD_compressCCtx(R.zctx, R.zbuf, R.zcap, R.buf, R.used, R.zlevel);
        if (!ZSTD_isError(z) && z < len)
            kind = PSK_BLOCK_ZEVENTS, pl = R.zbuf, len = z;
    }
    int err = flush_block(kind, pl, len, R.nev);
    R.used = 0;
    R.nev = 0;
    atomic_signal_fence(memory_order_seq_cst);
    R.in_write = 0;
    R.base = R.prev_t1;
    if (!psk_threaded) /* other threads read the clock without the lock */
        psk_clock_reanchor();
    if (err) {
        warn("cannot write the trace", err);
        close(R.fd);
        R.fd = -1;
        psk_state = 2;
    }
}

#define ARRAY_FIELDS (~0u << PSK_F_FIRST_ARRAY)

static size_t event_bound(const psk_call *call, uint32_t fields)
{
    size_t b = (3 + PSK_F_NFIELDS + 2) * PSK_VARINT_MAX; /* function, gap, duration, fields, arm, thread */
    if (fields & ARRAY_FIELDS)
        for (int k = 0; k < PSK_NARR; k++)
            if (fields >> (PSK_F_FIRST_ARRAY + k) & 1u)
                b += (size_t)call->n[k] * 3 * PSK_VARINT_MAX;
    return b;
}

static const char *_Atomic fail_what;

void psk_rec_fail(const char *what) { fail_what = what; }

/* with the lock: the events held written, the trace closed (without an
 * END block: read as a job that stopped there), recording off */
static void stop_failed(const char *what)
{
    flush_events();
    if (psk_state == 1) {
        warn(what, 0);
        if (R.fd >= 0)
            close(R.fd);
        R.fd = -1;
        psk_state = 2;
    }
}

void psk_rec_emit(const psk_call *call)
{
    if (psk_state != 1 || R.fd < 0)
        return;
    uint32_t fields = psk_fn_table[call->fn].fields;
    psk_rec_lock();
    if (fail_what) {
        stop_failed(fail_what);
        psk_rec_unlock();
        return;
    }
    size_t bound = event_bound(call, fields);
    if (R.used + bound > R.cap) {
        flush_events();
        if (bound > R.cap) {
            uint8_t *nb = realloc(R.buf, bound);
            if (!nb) {
                stop_failed("out of memory for an event");
                psk_rec_unlock();
                return;
            }
            R.buf = nb;
            R.cap = bound;
        }
        if (R.fd < 0) {
            psk_rec_unlock();
            return;
        }
    }
    uint64_t t0 = call->ns ? call->t0 : psk_stamp_ns(call->t0);
    uint64_t t1 = call->ns ? call->t1 : psk_stamp_ns(call->t1);
    uint8_t *p = R.buf + R.used;
    p = psk_put_uvar(p, call->fn);
    p = psk_put_svar(p, (int64_t)(t0 - R.prev_t1));
    p = psk_put_uvar(p, t1 - t0);
    for (uint32_t f = fields & ~ARRAY_FIELDS; f; f &= f - 1) {
        int i = __builtin_ctz(f);
        p = (PSK_FIELDS_UNSIGNED >> i) & 1u ? psk_put_uvar(p, (uint64_t)call->v[i])
                                            : psk_put_svar(p, call->v[i]);
    }
    for (uint32_t f = fields & ARRAY_FIELDS; f; f &= f - 1) {
        int i = __builtin_ctz(f), k = i - PSK_F_FIRST_ARRAY;
        int u = (PSK_FIELDS_UNSIGNED >> i) & 1u;
        uint32_t n = call->n[k];
        const int64_t *a = call->arr[k];
        size_t nv = i == PSK_F_STATUSES ? 3 * (size_t)n : n;
        p = psk_put_uvar(p, n);
        for (size_t j = 0; j < nv; j++)
            p = u ? psk_put_uvar(p, (uint64_t)a[j]) : psk_put_svar(p, a[j]);
    }
    if (psk_fn_table[call->fn].tuned) /* format 3: always (0 without the tuning library) */
        p = psk_put_uvar(p, (uint64_t)call->arm);
    if (R.threads) { /* numbered here, under the lock: in the file's order */
        if (my_thread < 0)
            my_thread = atomic_fetch_add(&next_thread, 1);
        p = psk_put_uvar(p, (uint64_t)my_thread);
    }
    R.used = (size_t)(p - R.buf); /* the event is complete only now */
    R.nev++;
    if (!(R.total++ & 7))
        psk_cpu_sample();
    R.prev_t1 = t1;
    if (R.used >= PSK_BLOCK_TARGET)
        flush_events();
    psk_rec_unlock();
}

/* ---- abnormal ends ---- */

static void on_exit_without_finalize(void);

/* Signals that end the process. Termination signals are caught only while
 * their disposition is the default (a program's own handler may mean
 * "shut down cleanly" or "checkpoint"); crash signals are always caught and
 * passed on to the handler that was there (Open MPI's backtrace printer). */
static const int term_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define NSIG_TERM (sizeof term_signals / sizeof term_signals[0])
#define NSIG_CRASH (sizeof crash_signals / sizeof crash_signals[0])
static struct sigaction old_actions[NSIG_TERM + NSIG_CRASH];

/* Keep what was recorded: write the complete events held, without an END
 * block, then let the signal do what it would have done. */
static void on_signal(int sig, siginfo_t *info, void *ctx)
{
    psk_times_signal(sig); /* the time-only mode's note of how the rank ended */
    if (psk_state == 1 && !R.in_write && R.nev && R.fd >= 0) {
        R.in_write = 1; /* a second signal while this one writes: once */
        flush_block(PSK_BLOCK_EVENTS, R.buf, R.used, R.nev);
    }
    psk_state = 2;
    const struct sigaction *old = NULL;
    for (size_t i = 0; i < NSIG_TERM + NSIG_CRASH; i++)
        if ((i < NSIG_TERM ? term_signals[i] : crash_signals[i - NSIG_TERM]) == sig)
            old = &old_actions[i];
    if (!old)
        return;
    sigaction(sig, old, NULL);
    if (old->sa_flags & SA_SIGINFO)
        old->sa_sigaction(sig, info, ctx);
    else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN)
        old->sa_handler(sig);
    else
        raise(sig); /* the default action, now restored */
}

/* The handler runs on a stack of its own (unless the program has one),
 * so that a stack overflow in the program still leaves its last block */
static void *alt_stack;

static void install_handlers(void)
{
    struct sigaction sa;
    stack_t cur;
    if (!sigaltstack(NULL, &cur) && (cur.ss_flags & SS_DISABLE)) {
        size_t n = SIGSTKSZ > 65536 ? (size_t)SIGSTKSZ : 65536;
        stack_t ss = {.ss_sp = alt_stack = malloc(n), .ss_size = n};
        if (alt_stack && sigaltstack(&ss, NULL)) {
            free(alt_stack);
            alt_stack = NULL;
        }
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSIG_TERM + NSIG_CRASH; i++) {
        int sig = i < NSIG_TERM ? term_signals[i] : crash_signals[i - NSIG_TERM];
        if (sigaction(sig, NULL, &old_actions[i]))
            continue;
        int dflt = !(old_actions[i].sa_flags & SA_SIGINFO) && old_actions[i].sa_handler == SIG_DFL;
        int ign = !(old_actions[i].sa_flags & SA_SIGINFO) && old_actions[i].sa_handler == SIG_IGN;
        if (ign || (i < NSIG_TERM && !dflt))
            continue;
        sigaction(sig, &sa, NULL);
    }
    atexit(on_exit_without_finalize);
}

static void on_exit_without_finalize(void)
{
    if (psk_state == 1) {
        flush_events();
        psk_state = 2;
        if (R.fd >= 0)
            close(R.fd);
        R.fd = -1;
    }
}

/* ---- start ---- */

/* Offset of each rank's clock to rank 0's, by the round trip with the
 * smallest delay (Cristian); each rank gets its own at the end of its
 * rounds. Rank 0 also keeps them all in offs, if given. */
static int64_t clock_offset(int64_t *offs)
{
    enum { ROUNDS = 8, TAG = 1 };
    int64_t mine = 0;
    if (R.rank == 0) {
        if (offs)
            offs[0] = 0;
        for (int r = 1; r < R.nranks; r++) {
            uint64_t best = UINT64_MAX;
            int64_t off = 0;
            for (int k = 0; k < ROUNDS; k++) {
                uint64_t t0 = psk_now(), tr;
                PMPI_Send(&t0, 1, MPI_UINT64_T, r, TAG, R.priv);
                PMPI_Recv(&tr, 1, MPI_UINT64_T, r, TAG, R.priv, MPI_STATUS_IGNORE);
                uint64_t t1 = psk_now();
                if (t1 - t0 < best) {
                    best = t1 - t0;
                    off = (int64_t)(tr - (t0 + (t1 - t0) / 2));
                }
            }
            PMPI_Send(&off, 1, MPI_INT64_T, r, TAG, R.priv);
            if (offs)
                offs[r] = off;
        }
    } else {
        for (int k = 0; k < ROUNDS; k++) {
            uint64_t t, now;
            PMPI_Recv(&t, 1, MPI_UINT64_T, 0, TAG, R.priv, MPI_STATUS_IGNORE);
            now = psk_now();
            PMPI_Send(&now, 1, MPI_UINT64_T, 0, TAG, R.priv);
        }
        PMPI_Recv(&mine, 1, MPI_INT64_T, 0, TAG, R.priv, MPI_STATUS_IGNORE);
    }
    return mine;
}

static uint32_t clock_cost(void)
{
    enum { N = 1000 };
    uint64_t a = psk_now(), b = a;
    for (int i = 0; i < N; i++)
        b = psk_now();
    return (uint32_t)((b - a) / N);
}

/* the whole launch command, as perfskel record passed it, or our own */
static void command_line(char *out, size_t cap)
{
    const char *c = getenv("PSK_COMMAND");
    if (c) {
        snprintf(out, cap, "%s", c);
        return;
    }
    out[0] = 0;
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f)
        return;
    size_t n = fread(out, 1, cap - 1, f);
    fclose(f);
    out[n] = 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (!out[i])
            out[i] = ' ';
}

/* what job.json says, kept by rank 0 from MPI_Init to MPI_Finalize, when
 * it is written again with each rank's share of a core (record_wait.c) */
static struct jobinfo {
    uint64_t job_id;
    int flavour;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    char *hosts;        /* nranks x hostlen */
    int hostlen;
    int64_t *offs;
    uint32_t cost;
    uint64_t real_ns;
    double *units;      /* per rank: ns_per_unit, q1, q3, cores */
    double *cpu;        /* per rank: its share of a core, seconds runnable, the CPU
                         * it stayed on (at MPI_Finalize) */
    int has_cpu;        /* cpu holds them */
} J;

static void write_job_json(const char *dir)
{
    uint64_t job_id = J.job_id, real_ns = J.real_ns;
    int flavour = J.flavour, hostlen = J.hostlen;
    const char *version = J.version, *hosts = J.hosts;
    const int64_t *offs = J.offs;
    uint32_t cost = J.cost;
    const double *units = J.units;
    char path[PATH_MAX], tmp[PATH_MAX + 8];
    snprintf(path, sizeof path, "%s/job.json", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        warn("cannot write job.json", errno);
        return;
    }
    char cmd[8192], idhex[17], when[32];
    command_line(cmd, sizeof cmd);
    snprintf(idhex, sizeof idhex, "%016llx", (unsigned long long)job_id);
    time_t secs = (time_t)(real_ns / 1000000000u);
    struct tm tm;
    gmtime_r(&secs, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    psk_json j;
    psk_json_init(&j, f, 1);
    psk_json_obj(&j, NULL);
    psk_json_str(&j, "format", "perfskel-trace");
    psk_json_int(&j, "version", PSK_FORMAT_VERSION_LATEST);
    psk_json_str(&j, "job_id", idhex);
    psk_json_obj(&j, "mpi");
    psk_json_str(&j, "flavour", flavour == PSK_MPI_OPENMPI ? "openmpi" : "mpich");
    psk_json_str(&j, "version", version);
    psk_json_end(&j);
    psk_json_int(&j, "ranks", R.nranks);
    psk_json_arr(&j, "hosts");
    for (int r = 0; r < R.nranks; r++)
        psk_json_str(&j, NULL, hosts + (size_t)r * (size_t)hostlen);
    psk_json_end(&j);
    psk_json_str(&j, "command", cmd);
    psk_json_str(&j, "start_time", when);
    psk_json_obj(&j, "clock");
    psk_json_str(&j, "source", psk_clk.use_tsc ? "CLOCK_MONOTONIC (read from the TSC)" : "CLOCK_MONOTONIC");
    psk_json_int(&j, "read_ns", cost);
    psk_json_arr(&j, "offsets_ns");
    for (int r = 0; r < R.nranks; r++)
        psk_json_int(&j, NULL, offs[r]);
    psk_json_end(&j);
    psk_json_end(&j);
    if (units) {
        psk_json_obj(&j, "work");
        psk_json_str(&j, "kernel", PSK_WORK_KERNEL);
        static const char *const what[3] = {"ns_per_unit", "q1_ns", "q3_ns"};
        for (int k = 0; k < 3; k++) {
            psk_json_arr(&j, what[k]);
            for (int r = 0; r < R.nranks; r++)
                psk_json_num(&j, NULL, units[4 * r + k]);
            psk_json_end(&j);
        }
        psk_json_end(&j);
        psk_json_arr(&j, "cores");
        for (int r = 0; r < R.nranks; r++)
            psk_json_int(&j, NULL, (int64_t)units[4 * r + 3]);
        psk_json_end(&j);
    }
    if (J.has_cpu) {
        /* per rank, the share of the time it was runnable that it ran
         * (-1: not known), that time, and the CPU it stayed on (-1: none) */
        psk_json_obj(&j, "cpu");
        static const char *const what[2] = {"run_share", "runnable_seconds"};
        for (int k = 0; k < 2; k++) {
            psk_json_arr(&j, what[k]);
            for (int r = 0; r < R.nranks; r++)
                psk_json_num(&j, NULL, J.cpu[3 * r + k]);
            psk_json_end(&j);
        }
        psk_json_arr(&j, "on");
        for (int r = 0; r < R.nranks; r++)
            psk_json_int(&j, NULL, (int64_t)J.cpu[3 * r + 2]);
        psk_json_end(&j);
        psk_json_end(&j);
    }
    psk_json_end(&j);
    int bad = ferror(f);
    if (fclose(f) || bad || rename(tmp, path))
        warn("cannot write job.json", errno);
    /* psk_json_quote wrote U+FFFD for them: said, not hidden */
    size_t odd = psk_utf8_invalid(cmd) + psk_utf8_invalid(version);
    for (int r = 0; r < R.nranks; r++)
        odd += psk_utf8_invalid(hosts + (size_t)r * (size_t)hostlen);
    if (odd)
        fprintf(stderr, "perfskel: %s: %zu byte%s of the command line, MPI version or host names %s not UTF-8, "
                        "written as U+FFFD\n", path, odd, odd > 1 ? "s" : "", odd > 1 ? "are" : "is");
}

static double mono_ns_d(void) { return (double)psk_mono_ns(); } /* the clock psk_work_time takes */

/* PSK_ZSTD=LEVEL (1-19; unset or 0: none): a compression context on a
 * workspace of its own, and room for a block of cap bytes compressed; on
 * failure blocks are written as they are */
static void zstd_free(void)
{
    free(R.zws), free(R.zbuf);
    R.zws = R.zbuf = NULL, R.zctx = NULL, R.zcap = 0;
}

static void zstd_init(size_t cap)
{
    const char *e = getenv("PSK_ZSTD");
    int level = e ? atoi(e) : 0;
    if (level <= 0)
        return;
    level = level > 19 ? 19 : level;
    size_t ws = ZSTD_estimateCCtxSize(level);
    R.zws = malloc(ws);
    R.zcap = ZSTD_compressBound(cap);
    R.zbuf = malloc(R.zcap);
    R.zlevel = level;
    if (R.zws && R.zbuf && (R.zctx = ZSTD_initStaticCCtx(R.zws, ws)))
        return; /* ZSTD_compressCCtx writes the content size in each frame */
    zstd_free();
}

void psk_rec_start(unsigned fn, uint64_t t0, int required, int provided)
{
    if (psk_state != 0 || !psk_mpi_alive())
        return;
    psk_state = 2; /* until everything is ready */
    if (psk_times_start(t0)) {
        /* time-only: recording stays off; the handlers note a signal */
        install_handlers();
        return;
    }
    psk_threaded = provided == MPI_THREAD_MULTIPLE;
    /* threads other than this one may call MPI: which one made each call
     * is recorded (the levels are ordered in both MPIs' headers) */
    R.threads = provided >= MPI_THREAD_SERIALIZED;
    my_thread = 0;
    next_thread = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &R.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &R.nranks);
    PMPI_Comm_dup(MPI_COMM_WORLD, &R.priv);
    R.started = 1;
    psk_clock_init();

    uint64_t job_id = 0;
    if (R.rank == 0) {
        const char *env = getenv("PSK_JOB_ID");
        if (env)
            job_id = strtoull(env, NULL, 16);
        if (!job_id && getrandom(&job_id, sizeof job_id, 0) != sizeof job_id)
            job_id = psk_now() ^ ((uint64_t)getpid() << 32);
    }
    PMPI_Bcast(&job_id, 1, MPI_UINT64_T, 0, R.priv);
    /* the merge inside the job: rank 0's PSK_MERGE for all (their
     * Finalizes must agree, whatever environment each rank got) */
    R.merge = R.rank == 0 ? psk_rec_merge_wanted() : 0;
    PMPI_Bcast(&R.merge, 1, MPI_INT, 0, R.priv);

    const char *dir = getenv("PSK_TRACE_DIR");
    if (!dir || !*dir)
        dir = "perfskel-trace";
    /* everything allocated before the ranks agree to go on: a rank that
     * cannot record stops them all (in step: what follows is collective),
     * and the program's calls pass through unrecorded */
    enum { HOSTLEN = 64 };
    int64_t *offs = R.rank == 0 ? calloc((size_t)R.nranks, sizeof *offs) : NULL;
    double *units = R.rank == 0 ? calloc((size_t)R.nranks * 4, sizeof *units) : NULL;
    char *hosts = R.rank == 0 ? calloc((size_t)R.nranks, HOSTLEN) : NULL;
    double *cpu = R.rank == 0 ? calloc((size_t)R.nranks * 3, sizeof *cpu) : NULL;
    R.cap = PSK_BLOCK_TARGET + 4096;
    R.buf = malloc(R.cap);
    zstd_init(R.cap);
    int nomem = !R.buf || (R.rank == 0 && (!offs || !units || !hosts || !cpu));
    int err = psk_mkdir_p(dir), anyerr = 0, mine_err = err || nomem;
    PMPI_Allreduce(&mine_err, &anyerr, 1, MPI_INT, MPI_MAX, R.priv);
    if (anyerr) {
        if (err)
            warn("cannot create the trace directory", err);
        else if (nomem)
            warn("out of memory in MPI_Init (the program runs on, unrecorded)", 0);
        free(offs), free(units), free(hosts), free(cpu), free(R.buf);
        R.buf = NULL;
        zstd_free();
        PMPI_Comm_free(&R.priv); /* every rank: they agreed */
        R.started = 0;
        return;
    }

    int64_t offset = clock_offset(offs);
    uint32_t cost = clock_cost();

    /* the speed of this rank's CPU for emulated computation (psk_work.h:
     * the mean of the middle 19 of 31 timings, and their quartiles, so
     * that sim can tell a CPU power from the spread, docs/simulation.md),
     * every rank at once, none still busy starting; and the cores of its
     * host, so that sim knows how the recorded ranks shared them */
    PMPI_Barrier(R.priv);
    double mine[4];
    psk_work_time(mono_ns_d, mine);
    mine[3] = (double)sysconf(_SC_NPROCESSORS_ONLN);
    PMPI_Gather(mine, 4, MPI_DOUBLE, units, 4, MPI_DOUBLE, 0, R.priv);

    char host[HOSTLEN] = {0};
    gethostname(host, HOSTLEN - 1);
    PMPI_Gather(host, HOSTLEN, MPI_CHAR, hosts, HOSTLEN, MPI_CHAR, 0, R.priv);

    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
    int vlen = 0;
    PMPI_Get_library_version(version, &vlen);
    version[strcspn(version, "\n,")] = 0;
    for (char *c = version; *c; c++)
        if (*c == '\t')
            *c = ' ';
#ifdef OPEN_MPI
    int flavour = PSK_MPI_OPENMPI;
#else
    int flavour = PSK_MPI_MPICH;
#endif
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    uint64_t real_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec -
                       (psk_now() - t0);
    R.arms = psk_stack_init(R.rank);
    if (R.rank == 0) {
        J.job_id = job_id, J.flavour = flavour, J.hosts = hosts, J.hostlen = HOSTLEN, J.offs = offs;
        J.cost = cost, J.real_ns = real_ns, J.units = units, J.cpu = cpu;
        snprintf(J.version, sizeof J.version, "%s", version);
        write_job_json(dir);
    }

    psk_rank_file(R.path, sizeof R.path, dir, R.rank);
    snprintf(R.dir, sizeof R.dir, "%s", dir);
    R.fd = open(R.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (R.fd < 0) {
        warn("cannot create the rank's trace file", errno);
        return;
    }
    psk_file_header fh = {.version = PSK_FORMAT_VERSION_LATEST, .flavour = (uint16_t)flavour,
                          .job_id = job_id, .rank = (uint32_t)R.rank,
                          .nranks = (uint32_t)R.nranks, .clock_offset_ns = offset,
                          .mono_start_ns = t0, .real_start_ns = real_ns,
                          .clock_cost_ns = cost, .flags = R.threads ? PSK_FILE_THREADS : 0};
    uint8_t hb[PSK_FILE_HEADER_SIZE];
    psk_pack_file_header(hb, &fh);
    struct iovec iov = {hb, sizeof hb};
    if ((err = write_all(&iov, 1)) != 0) {
        warn("cannot write the trace", err);
        return;
    }
    psk_tables_init();
    install_handlers();
    R.mono_start = R.base = R.prev_t1 = t0;
    psk_cpu_begin();
    psk_state = 1;

    psk_call call;
    psk_call_begin(&call, fn, PSK_MODE_NONE);
    call.t0 = t0;
    call.v[PSK_F_I1] = required;
    call.v[PSK_F_I2] = provided;
    call.t1 = psk_now(); /* perfskel's set-up counts as part of MPI_Init */
    call.ns = 1;
    psk_rec_emit(&call);
}

/* ---- end ---- */

static int64_t end_offset;

/* the Finalize event (t0 .. now), the events held, the END block; 1 if
 * the file is whole */
static int end_file(unsigned fn, uint64_t t0)
{
    int whole = 0;
    psk_call call;
    psk_call_begin(&call, fn, PSK_MODE_NONE);
    call.t0 = t0;
    call.t1 = psk_now();
    call.ns = 1;
    psk_rec_emit(&call);
    flush_events();
    if (R.fd >= 0) {
        uint8_t pl[2 * PSK_VARINT_MAX], *p = pl;
        p = psk_put_uvar(p, R.total);
        p = psk_put_svar(p, end_offset);
        int err = flush_block(PSK_BLOCK_END, pl, (size_t)(p - pl), 0);
        if (err || close(R.fd))
            warn("cannot write the trace", err ? err : errno);
        else
            whole = 1;
        R.fd = -1;
    }
    psk_state = 2;
    free(R.buf);
    R.buf = NULL;
    zstd_free();
    return whole;
}

void psk_rec_pre_finalize(unsigned fn, uint64_t t0)
{
    if (!R.started) {
        psk_times_finalize(t0); /* time-only mode (else nothing) */
        return;
    }
    R.started = 0;
    end_offset = clock_offset(NULL);
    /* each rank's share of a core (record_wait.c) into job.json, before a
     * merge reads it */
    double mine[3];
    psk_cpu_end(&mine[0], &mine[1]);
    mine[2] = psk_cpu_stayed();
    PMPI_Gather(mine, 3, MPI_DOUBLE, J.cpu, 3, MPI_DOUBLE, 0, R.priv);
    if (R.rank == 0) {
        J.has_cpu = 1;
        write_job_json(R.dir);
        free(J.hosts), free(J.offs), free(J.units), free(J.cpu);
        J = (struct jobinfo){0};
    }
    if (R.merge) {
        /* in-job merge: the file ends here (its Finalize event too, ending
         * now), and the ranks merge it (record_merge.c) */
        int whole = psk_state == 1 && R.fd >= 0 && end_file(fn, t0);
        R.ended = 1;
        psk_rec_merge_run(R.priv, R.rank, R.nranks, R.dir, whole ? R.path : NULL, R.merge == 2);
    }
    PMPI_Comm_free(&R.priv);
    psk_tables_free();
}

void psk_rec_stop(unsigned fn, uint64_t t0)
{
    if (!R.ended)
        end_file(fn, t0);
}

void psk_rec_abort(unsigned fn, MPI_Comm comm, int errorcode)
{
    psk_call call;
    psk_call_begin(&call, fn, PSK_MODE_NONE);
    psk_set_comm(&call, comm);
    call.v[PSK_F_I1] = errorcode;
    call.t0 = call.t1 = psk_now();
    call.ns = 1;
    psk_rec_emit(&call);
    flush_events();
    psk_state = 2;
}
