/* Internals shared by the generated wrappers (record_wrap_c.c,
 * record_wrap_f.c) and the recorder (record_core.c, record_call.c).
 * One psk_call lives on the stack of each wrapper: the wrapper's pre/post
 * code fills it from the arguments, psk_call_finish() resolves requests and
 * statuses and appends the encoded event to this rank's block buffer.
 * The only global state of perfskel is here (PMPI wrappers, as in §2.1 of
 * Zhang et al., "Parallel Job Performance Prediction Based on the Case
 * Reconstruction", Journal of Software 2010). */
#ifndef PSK_RECORD_CALL_H
#define PSK_RECORD_CALL_H

#include <mpi.h>
#include <stdint.h>
#include <time.h>

#include "psk_fn_ids.h"
#include "trace_format.h"
#include "perfskel/coll.h"
#include "psk_next.h"

#define PSK_EXPORT __attribute__((visibility("default")))

enum psk_mode {
    PSK_MODE_NONE, PSK_MODE_STATUS, PSK_MODE_PROBE,
    PSK_MODE_WAIT, PSK_MODE_WAITALL, PSK_MODE_WAITANY, PSK_MODE_WAITSOME,
    PSK_MODE_TEST, PSK_MODE_TESTALL, PSK_MODE_TESTANY, PSK_MODE_TESTSOME,
    PSK_MODE_START, PSK_MODE_STARTALL, PSK_MODE_FREE, PSK_MODE_CANCEL,
    PSK_MODE_INIT, PSK_MODE_INITTHREAD, PSK_MODE_FINALIZE, PSK_MODE_ABORT
};

/* Fortran status size in MPI_Fints (MPICH says so in mpi.h; Open MPI 4.1's
 * is 6: three public ints, one int, one size_t). */
#ifdef MPI_F_STATUS_SIZE
#define PSK_FSTATUS_SIZE MPI_F_STATUS_SIZE
#else
#define PSK_FSTATUS_SIZE 6
#endif

/* Index base of Waitany/Testany/Waitsome/Testsome in each Fortran binding.
 * mpif.h and `use mpi`: 1, as the standard says. mpi_f08: 1 in Open MPI;
 * MPICH 4.0.2 returns C's 0-based indices there (measured, without
 * perfskel: tests/mpi's f08 programs would catch a change). */
#if defined(MPICH)
#define PSK_F08_IBASE 0
#else
#define PSK_F08_IBASE 1
#endif

#define PSK_NARR (PSK_F_NFIELDS - PSK_F_FIRST_ARRAY)

typedef struct psk_reqsnap {
    uintptr_t handle; /* C handle before the call (the call may null it) */
    int32_t id;       /* PSK_REQ_NULL, PSK_REQ_UNKNOWN or the request id */
    uint32_t flags;   /* PSK_RQ_* of the request's entry */
} psk_reqsnap;

typedef struct psk_call {
    unsigned fn;
    int mode;
    uint64_t t0, t1;  /* psk_stamp() values, or ns when ns is set */
    int ns;
    int64_t v[PSK_F_FIRST_ARRAY];
    uint32_t n[PSK_NARR];
    const int64_t *arr[PSK_NARR];
    /* communicator context of the call */
    int crank, asize, inter, root;
    int wild_src, wild_tag;
    /* completion */
    int nreq, flag, index, outcount, ibase;
    const int *indices;
    psk_reqsnap *snap;
    int any_wild;
    MPI_Status *stp, *stsp;
    MPI_Fint *fstp, *fstsp;
    MPI_Status st;                        /* stands in for MPI_STATUS_IGNORE */
    MPI_Fint fst[PSK_FSTATUS_SIZE + 2];   /* the same for Fortran */
    uintptr_t free_handle;                /* Comm_free / Group_free */
    int arm;                              /* tuned collectives: 0 not known, 1 + arm */
} psk_call;

#define PSK_E(f) (call.v[PSK_F_##f])

/* state: 0 before MPI_Init, 1 recording, 2 stopped (Finalize or disabled);
 * atomic: read by every thread and by the signal handler that saves the
 * trace (lock-free, so safe there) */
extern _Atomic int psk_state;
/* >0 while inside a Fortran wrapper: the MPI's Fortran layer may call the C
 * MPI_X, which must then pass straight through. */
extern __thread int psk_fguard __attribute__((tls_model("initial-exec")));

static inline int psk_rec_on(void)
{
    return psk_state == 1 && psk_fguard == 0;
}

/* The clock: CLOCK_MONOTONIC nanoseconds. On x86-64 with an invariant TSC
 * (record_clock.c decides at start) it is read from the TSC and scaled,
 * about 3x cheaper than clock_gettime here (29 ns a read under KVM);
 * the scale is re-anchored to CLOCK_MONOTONIC at every block written. */
typedef struct psk_clock {
    int use_tsc;
    uint64_t tsc0, mono0; /* anchor */
    uint64_t mult;        /* ns per tick, 32.32 fixed point */
} psk_clock;
extern psk_clock psk_clk;

static inline uint64_t psk_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t psk_now(void)
{
#if defined(__x86_64__)
    if (psk_clk.use_tsc) {
        uint64_t t = __builtin_ia32_rdtsc() - psk_clk.tsc0;
        return psk_clk.mono0 + (uint64_t)(((unsigned __int128)t * psk_clk.mult) >> 32);
    }
#endif
    return psk_mono_ns();
}

/* A time stamp as cheap as the machine allows: the raw TSC when psk_now
 * reads it (converted to ns only when the event is written, so the read is
 * not waited for), else CLOCK_MONOTONIC ns. */
static inline uint64_t psk_stamp(void)
{
#if defined(__x86_64__)
    if (psk_clk.use_tsc)
        return __builtin_ia32_rdtsc();
#endif
    return psk_mono_ns();
}

static inline uint64_t psk_stamp_ns(uint64_t s)
{
#if defined(__x86_64__)
    if (psk_clk.use_tsc)
        return psk_clk.mono0 + (uint64_t)(((unsigned __int128)(s - psk_clk.tsc0) * psk_clk.mult) >> 32);
#endif
    return s;
}

/* record_stack.c: stacking with libperfskel-tune (docs/tune.md) */
/* the tuning library's psk_tune_last_arm, or NULL (set by psk_stack_init) */
extern int (*psk_tune_arm_query)(void);
/* the tuning library's psk_tune_caller, or NULL: the program's call site
 * (where the recorder's wrapper returns to) for the tuning library's
 * entry point the wrapper calls next, which would otherwise take the
 * recorder for the caller */
extern void (*psk_tune_site_fn)(void *);
/* at MPI_Init: finds both; 1 if the tuning library is loaded after us */
int psk_stack_init(int rank);
static inline void psk_pass_site(void *ra)
{
    if (psk_tune_site_fn && !psk_fguard)
        psk_tune_site_fn(ra);
}
/* the arm of the call just made: 0 not known, else 1 + the arm's number */
static inline int psk_call_arm(void)
{
    if (!psk_tune_arm_query)
        return 0;
    int a = psk_tune_arm_query();
    return a >= 0 && a < PSK_TUNE_NARMS ? a + 1 : 0;
}

/* record_clock.c */
void psk_clock_init(void);
void psk_clock_reanchor(void);

/* record_core.c */
/* fn: MPI_Init or MPI_Init_thread, with the thread levels asked for and
 * provided (MPI_THREAD_SINGLE both for MPI_Init) */
void psk_rec_start(unsigned fn, uint64_t t0, int required, int provided);
/* before the real Finalize (MPI still up): the clock offsets, and with
 * PSK_MERGE the file's end and the merge; after it: the end */
void psk_rec_pre_finalize(unsigned fn, uint64_t t0);
void psk_rec_stop(unsigned fn, uint64_t t0);

/* record_times.c: the time-only mode (PSK_TIMES=DIR, perfskel check's
 * plain runs). In MPI_Init: 1 if it is on (this rank's file begun, its
 * MPI_Init times kept; nothing will be recorded), 0 if not */
int psk_times_start(uint64_t t0);
/* MPI_Finalize entered at t0; a signal ending the rank: its line (nothing
 * when the mode is off) */
void psk_times_finalize(uint64_t t0);
void psk_times_signal(int sig);

/* record_merge.c: the merge inside the job */
/* PSK_MERGE: 0 no, 1 yes, 2 ("only") yes and no rank files left */
int psk_rec_merge_wanted(void);
/* every rank of c, before the real Finalize: the merge (rank 0 writes
 * it); path: this rank's whole file (NULL: none); only: the rank files
 * go once merged */
void psk_rec_merge_run(MPI_Comm c, int rank, int nranks, const char *dir, const char *path, int only);
void psk_rec_abort(unsigned fn, MPI_Comm comm, int errorcode);
void psk_rec_emit(const psk_call *call);

/* record_wait.c: the share of the time the thread that initialised MPI
 * was runnable that it ran, from MPI_Init's return (begin, on that
 * thread) to MPI_Finalize (end: the share, -1 if not known, and the
 * seconds runnable) */
void psk_cpu_begin(void);
void psk_cpu_end(double *share, double *seconds);
/* note the CPU the caller is on (under the recorder's lock); the one of
 * at least 3/4 of the notes, -1 if none (or fewer than 8 notes) */
void psk_cpu_sample(void);
int psk_cpu_stayed(void);
/* the recorder cannot go on (what: why, e.g. out of memory): the next
 * psk_rec_emit writes the complete events held, says so and stops; the
 * call being built is not recorded, and the program's calls pass through */
void psk_rec_fail(const char *what);

/* record_call.c */
static inline void psk_call_begin(psk_call *call, unsigned fn, int mode)
{
    call->fn = fn;
    call->mode = mode;
    call->ns = 0;
    call->wild_src = call->wild_tag = 0;
    call->nreq = 0;
    call->any_wild = 0;
    call->flag = 1;
    call->index = MPI_UNDEFINED;
    call->outcount = 0;
    call->indices = 0;
    call->stp = call->stsp = 0;
    call->fstp = call->fstsp = 0;
    call->inter = 0;
    call->crank = -1;
    call->root = -1;
    call->arm = 0;
}
void psk_call_finish(psk_call *call);
void psk_set_comm(psk_call *call, MPI_Comm comm);
int psk_at_root(const psk_call *call);
int64_t psk_type_size(MPI_Datatype dt);
int64_t psk_rank(int r);
int64_t psk_root(int r);
int64_t psk_tag(int t);
int64_t psk_op_id(MPI_Op op);
int64_t psk_group_id(MPI_Group g);
int psk_fstatus_ignored(const MPI_Fint *f);
void psk_pre_reqs(psk_call *call, int n, const MPI_Request *reqs);
void psk_pre_freqs(psk_call *call, int n, const MPI_Fint *reqs);
MPI_Status *psk_pre_statuses(psk_call *call, MPI_Status *sts);
MPI_Fint *psk_pre_fstatuses(psk_call *call, MPI_Fint *sts);
void psk_post_reqnew(psk_call *call, MPI_Request req, int persistent);
void psk_post_counts(psk_call *call, int field, const int *counts, int root_only);
/* n ints of v (MPI_Cart_create's dims, Dims_create's) as field's array;
 * boolean: as 0/1 (periods, which are Fortran LOGICALs in Fortran) */
void psk_post_ints(psk_call *call, int field, int n, const int *v, int boolean);
void psk_post_dtypes(psk_call *call, int field, const MPI_Datatype *types);
void psk_post_fdtypes(psk_call *call, int field, const MPI_Fint *types);
void psk_post_newcomm(psk_call *call, MPI_Comm comm);
void psk_post_newgroup(psk_call *call, MPI_Group group);
void psk_pre_commfree(psk_call *call, MPI_Comm comm);
void psk_post_commfree(psk_call *call);
void psk_pre_groupfree(psk_call *call, MPI_Group group);
void psk_post_groupfree(psk_call *call);
/* set up at start: communicators WORLD and SELF, the world group */
void psk_tables_init(void);
void psk_tables_free(void);

#endif
