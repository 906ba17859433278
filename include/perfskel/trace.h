/* perfskel traces: the events `perfskel record` writes, and the reader that
 * every later stage (stats, dump, merge, fold, sim) uses to get them back.
 * A trace is a directory holding job.json and one file per rank; the
 * on-disk layout is in docs/trace-format.md. Readers verify each block's
 * checksum and report truncation and corruption with the file's name. */
#ifndef PERFSKEL_TRACE_H
#define PERFSKEL_TRACE_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "perfskel/coll.h"
#include "perfskel/common.h"

/* Event fields, in encoding order. */
enum psk_field {
    PSK_F_COMM,     /* u: communicator id */
    PSK_F_PEER,     /* s: dest or source as passed (normalised constants) */
    PSK_F_TAG,      /* s */
    PSK_F_COUNT,    /* u */
    PSK_F_DTSIZE,   /* u: bytes per element of the datatype */
    PSK_F_RPEER,    /* s: receive side of Sendrecv */
    PSK_F_RTAG,     /* s */
    PSK_F_RCOUNT,   /* u: receive side of collectives and Sendrecv */
    PSK_F_RDTSIZE,  /* u */
    PSK_F_ROOT,     /* s */
    PSK_F_OP,       /* u: psk_op */
    PSK_F_REQ,      /* s: request id (-1 null, -2 not created by a recorded call) */
    PSK_F_FLAG,     /* u: flag of Test, Testall, Testany, Iprobe */
    PSK_F_INDEX,    /* s: Waitany/Testany index, 0-based, -1 = MPI_UNDEFINED */
    PSK_F_NEWID,    /* s: id of the created communicator or group, -1 = null */
    PSK_F_GROUP,    /* s: group id passed in */
    PSK_F_I1,       /* s: color, level, errorcode, required, ... */
    PSK_F_I2,       /* s: key, provided, ... */
    PSK_F_ASRC,     /* s: actual source (status) */
    PSK_F_ATAG,     /* s: actual tag (status) */
    PSK_F_COUNTS,   /* array u: send counts of v-collectives */
    PSK_F_RCOUNTS,  /* array u: receive counts of v-collectives */
    PSK_F_DTSIZES,  /* array u: Alltoallw send type sizes */
    PSK_F_RDTSIZES, /* array u: Alltoallw receive type sizes */
    PSK_F_REQS,     /* array s: request ids passed to Waitall, Startall, ... */
    PSK_F_INDICES,  /* array s: Waitsome/Testsome completed indices, 0-based */
    PSK_F_MEMBERS,  /* array u: world ranks of a new communicator or group */
    PSK_F_STATUSES, /* array of (s index, s source, s tag): completed wildcard receives */
    PSK_F_DIMS,     /* array u: Cart_create's dims; Dims_create's dims returned (format 3) */
    PSK_F_PERIODS,  /* array u: Cart_create's periods, 0 or 1 (format 3) */
    PSK_F_DIMSIN,   /* array u: Dims_create's dims given, 0 = free (format 3) */
    PSK_F_NFIELDS
};
#define PSK_F_FIRST_ARRAY PSK_F_COUNTS

/* In the encoded form (docs/trace-format.md), these fields are plain
 * varints; all others are zigzag-mapped first. */
#define PSK_FIELDS_UNSIGNED                                                    \
    ((1u << PSK_F_COUNT) | (1u << PSK_F_DTSIZE) | (1u << PSK_F_RCOUNT) |       \
     (1u << PSK_F_RDTSIZE) | (1u << PSK_F_OP) | (1u << PSK_F_FLAG) |           \
     (1u << PSK_F_COUNTS) | (1u << PSK_F_RCOUNTS) | (1u << PSK_F_DTSIZES) |    \
     (1u << PSK_F_RDTSIZES) | (1u << PSK_F_MEMBERS) | (1u << PSK_F_DIMS) |     \
     (1u << PSK_F_PERIODS) | (1u << PSK_F_DIMSIN))
/* The fields format version 3 added (to MPI_Cart_create, and MPI_Dims_create's):
 * a reader gives them empty (length 0) in an event of an older trace. */
#define PSK_FIELDS_V3 ((1u << PSK_F_DIMS) | (1u << PSK_F_PERIODS) | (1u << PSK_F_DIMSIN))

/* perfskel's own values for MPI constants, which differ between MPIs. */
#define PSK_ANY_SOURCE (-1)
#define PSK_PROC_NULL (-2)
#define PSK_ROOT (-3)
#define PSK_ANY_TAG (-1)
#define PSK_UNDEFINED (-32766)
#define PSK_REQ_NULL (-1)
/* the trace format version that records which thread made each call
 * (psk_event.thread); a trace of an earlier one does not say */
#define PSK_FORMAT_VERSION_THREADS 4
/* thread numbers (psk_event.thread) stay below this: readers refuse more */
#define PSK_THREAD_MAX (1 << 20)
#define PSK_REQ_UNKNOWN (-2)

enum psk_op {
    PSK_OP_USER = 0, PSK_OP_MAX, PSK_OP_MIN, PSK_OP_SUM, PSK_OP_PROD,
    PSK_OP_LAND, PSK_OP_BAND, PSK_OP_LOR, PSK_OP_BOR, PSK_OP_LXOR,
    PSK_OP_BXOR, PSK_OP_MINLOC, PSK_OP_MAXLOC, PSK_OP_REPLACE, PSK_OP_NO_OP,
    PSK_OP_NULL, PSK_OP_COUNT
};

/* Classes of recorded functions (for profiles and later stages). */
enum psk_fn_class {
    PSK_CLASS_ENV,        /* Init, Finalize, Abort, Pcontrol */
    PSK_CLASS_P2P,        /* blocking and nonblocking point-to-point, probes */
    PSK_CLASS_PERSIST,    /* persistent request creation, Start */
    PSK_CLASS_WAIT,       /* Wait/Test families, Request_free, Cancel */
    PSK_CLASS_COLL,       /* blocking collectives */
    PSK_CLASS_ICOLL,      /* nonblocking collectives */
    PSK_CLASS_COMM,       /* communicator and group management */
    PSK_CLASS_COUNT
};

/* ---- recorded functions ---- */

struct psk_event;

/* Number of function ids; valid ids are 1 .. psk_fn_count() - 1. */
unsigned psk_fn_count(void);
/* "MPI_Send", or NULL for an unknown id. */
const char *psk_fn_name(unsigned fn);
/* The id of "MPI_Send" (exact name), or 0. */
unsigned psk_fn_lookup(const char *name);
/* enum psk_fn_class of fn, and the fields an event of fn carries. */
int psk_fn_class(unsigned fn);
uint32_t psk_fn_fields(unsigned fn);
/* What a function does, for the stages that replay, emit or export it: the
 * `op` column of src/record/mpi_functions.def (its comment says what each
 * means). Functions of one op differ only in what other columns say: the
 * collective and its form, flags such as sync (psk_fn_sync). */
enum psk_fn_op {
    PSK_FNOP_INIT, PSK_FNOP_FINALIZE, PSK_FNOP_ABORT, PSK_FNOP_PCONTROL, PSK_FNOP_SEND, PSK_FNOP_ISEND,
    PSK_FNOP_RECV, PSK_FNOP_IRECV, PSK_FNOP_SENDRECV, PSK_FNOP_SENDRECV_REPLACE, PSK_FNOP_PROBE, PSK_FNOP_IPROBE,
    PSK_FNOP_MPROBE, PSK_FNOP_IMPROBE, PSK_FNOP_MRECV, PSK_FNOP_IMRECV, PSK_FNOP_SEND_INIT, PSK_FNOP_RECV_INIT,
    PSK_FNOP_START, PSK_FNOP_STARTALL, PSK_FNOP_WAIT, PSK_FNOP_WAITALL, PSK_FNOP_WAITANY, PSK_FNOP_WAITSOME,
    PSK_FNOP_TEST, PSK_FNOP_TESTALL, PSK_FNOP_TESTANY, PSK_FNOP_TESTSOME, PSK_FNOP_FREE, PSK_FNOP_CANCEL,
    PSK_FNOP_COLL, PSK_FNOP_ICOLL, PSK_FNOP_NCOLL, PSK_FNOP_NEWCOMM, PSK_FNOP_NEWCOMM_GROUP, PSK_FNOP_INTERCOMM,
    PSK_FNOP_INTERCOMM_MERGE, PSK_FNOP_COMM_FREE, PSK_FNOP_LOCAL, PSK_FNOP_COUNT
};
/* The form of a collective: its plain call, the v-form (counts by rank),
 * the w-form (counts and datatypes by rank), the exclusive scan. */
enum psk_fn_form { PSK_FORM_PLAIN, PSK_FORM_V, PSK_FORM_W, PSK_FORM_EX };
/* enum psk_fn_op of fn, -1 for an unknown id */
int psk_fn_op(unsigned fn);
/* a collective's (coll, icoll) enum psk_coll (include/perfskel/coll.h);
 * for a call making a communicator, the collective sim charges it as;
 * else -1 */
int psk_fn_coll(unsigned fn);
/* a collective's enum psk_fn_form (PSK_FORM_PLAIN for the others) */
int psk_fn_form(unsigned fn);
/* Polls (docs/folding.md): merging makes a run of Test, Testall, Testany,
 * Testsome or Iprobe calls with the same arguments that found nothing
 * (ended by one that did, or by the matching Wait family call or Probe)
 * one event of a poll function, "poll:MPI_Testall": the polled call's
 * fields, FLAG = 1 if the run ended with completion, I1 = the calls it
 * took in (the Wait or Probe that ended it too), I2 = ns of compute in the
 * I1 - 1 gaps between them; its duration spans the run.
 * psk_fn_polled gives the polled call of a poll function (else 0);
 * psk_fn_poll the poll function of a call that can be polled (else 0). */
unsigned psk_fn_polled(unsigned fn);
unsigned psk_fn_poll(unsigned fn);
/* 1 if fn is a send in synchronous mode (Ssend, Issend, Ssend_init: the
 * flag sync); the skeletons replay the other modes as standard sends */
int psk_fn_sync(unsigned fn);
/* 1 if fn frees a communicator or a group (Comm_free, Group_free) */
int psk_fn_frees(unsigned fn);
/* the first function of op in the table (the plain one: MPI_Send of
 * PSK_FNOP_SEND), never a run of polls; 0 if none */
unsigned psk_fn_of_op(int op);
/* Whether a call that can be polled (or the Wait family call or Probe
 * that ends a run of its polls) found or completed something: Testsome
 * some index, Test/Testall/Iprobe FLAG, Testany FLAG with an index (all
 * null requests found nothing); calls without FLAG completed. */
int psk_event_found(const struct psk_event *ev);
/* The calls an event stands for that were polls finding nothing: for a
 * run of polls I1 less the call that ended it with completion (FLAG), for
 * a Test, Testall, Testany, Testsome or Iprobe 1 if it found nothing, else
 * 0; *calls (if not NULL): the calls it stands for (I1 for a run, else 1). */
uint64_t psk_event_failed_polls(const struct psk_event *ev, uint64_t *calls);
/* For a call that can be polled (Test, Testall, Testany, Testsome,
 * Iprobe) the Wait family call or Probe that ends a run of its polls by
 * waiting, else 0: the function of the blocking op (test: wait, iprobe:
 * probe, ...; gen_wrappers.awk's BLOCKING). */
unsigned psk_fn_poll_wait(unsigned fn);
/* A hash of what a poll polls (its request or requests, or source, tag and
 * communicator): the calls of one run of polls have the same. */
uint64_t psk_event_poll_key(const struct psk_event *ev);
const char *psk_field_name(int field);
/* ---- arms: the tuning library's algorithms, as events carry them ---- */
/* 1 if fn is a collective libperfskel-tune takes over (Alltoall, Bcast,
 * Allreduce, Allgather): its events carry an arm in format versions 2 to 4 */
int psk_fn_tuned(unsigned fn);
/* arm values are 0 (not known) .. psk_arm_count() - 1 */
int psk_arm_count(void);
/* "ring", "native"; "unknown" for 0; NULL out of range */
const char *psk_arm_name(int arm);
/* 1 if an event of fn may carry arm: 0, native, or one of fn's own arms */
int psk_arm_valid(unsigned fn, int64_t arm);
const char *psk_class_name(int cls);
const char *psk_op_name(int op);
/* Bytes an event moves for profiles: sends count what they send,
 * receives what their buffer holds, collectives what this rank contributes. */
uint64_t psk_event_bytes(const struct psk_event *ev);
/* 1 if ev is a collective the program made in place (MPI_IN_PLACE), as
 * the recorder writes one: a send side of 0 bytes with a receive side that
 * is not (an allgather, an alltoall, a gather's root), or for a scatter's
 * root the reverse. The skeleton's sin_/rin_ (src/gen/skel_runtime.c)
 * apply the same rule to the byte counts it replays. */
int psk_event_in_place(const struct psk_event *ev);
/* The member list of an event that makes a communicator or a group (of
 * rank, in a job of nranks): 0 if it is sound, 1 if a member is not a rank
 * of the job (put in *bad), 2 if a communicator made (NEWID 0 or more)
 * leaves out the rank that made it (its member list is indexed by it). */
int psk_event_members_check(const struct psk_event *ev, int rank, int nranks, int64_t *bad);

/* ---- events ---- */

typedef struct psk_event {
    /* the fields every reader of an event touches come first, on one
     * cache line with the first scalars (arm and thread fill what would be
     * padding: an event's decoding at many ranks writes no line for them) */
    unsigned fn;         /* function id */
    int thread;          /* the thread of its rank that made the call: 0 the
                            one that initialised MPI, then 1, 2, ... in the order
                            threads first called MPI (format version 4, when the
                            rank's file records threads: psk_rank_threads); 0
                            when not recorded */
    uint64_t t_entry;    /* ns on this rank's monotonic clock */
    uint64_t t_exit;
    uint32_t fields;     /* = psk_fn_fields(fn) */
    int arm;             /* the algorithm libperfskel-tune ran a tuned collective
                            with (psk_fn_tuned): 0 not known (format version 1, no
                            tuning library, every other function), else 1 + its
                            number in include/perfskel/coll.h (psk_arm_name) */
    int64_t v[PSK_F_FIRST_ARRAY];          /* scalar fields */
    uint32_t n[PSK_F_NFIELDS - PSK_F_FIRST_ARRAY];        /* array lengths */
    const int64_t *arr[PSK_F_NFIELDS - PSK_F_FIRST_ARRAY]; /* array values
        (for PSK_F_STATUSES: n triples, 3n values); valid until the next read */
} psk_event;

#define PSK_ARR(ev, f) ((ev)->arr[(f) - PSK_F_FIRST_ARRAY])
#define PSK_ARRN(ev, f) ((ev)->n[(f) - PSK_F_FIRST_ARRAY])
#define PSK_HAS(ev, f) (((ev)->fields >> (f)) & 1u)

/* ---- reading a trace directory ---- */

typedef struct psk_job {
    uint64_t job_id;
    int nranks;
    int flavour;              /* enum psk_flavour */
    const char *mpi_version;  /* MPI_Get_library_version, first line */
    const char *command;      /* the launch command line */
    const char *start_time;   /* ISO 8601, UTC */
    const char *const *hosts; /* nranks host names */
    const int64_t *clock_offsets_ns; /* per rank, relative to rank 0 */
    uint32_t clock_read_ns;   /* cost of one clock read on rank 0 */
    const char *work_kernel;  /* the emulated-computation unit timed at start, or NULL */
    const double *work_ns_per_unit; /* per rank, ns one unit took; NULL if not measured */
    const double *work_q1_ns, *work_q3_ns; /* per rank, the quartiles of its timings; NULL if not kept */
    const int *cores;         /* per rank, its host's online cores; NULL if not kept */
    const double *run_share;  /* per rank, the share of the time it was runnable that it ran
                               * (MPI_Init to MPI_Finalize; -1 not known); NULL if not kept */
    const int *cpu_on;        /* per rank, the CPU it was on for at least 3/4 of its sampled
                               * MPI calls (-1: none); NULL if not kept */
    int format_version;       /* 1; 2: tuned collectives carry their arm; 3: and MPI_Cart_create
                                 its dims and periods, MPI_Dims_create is recorded; 4: and the
                                 thread of each call (a writer takes 0 for 4, the latest) */
} psk_job;

enum psk_flavour { PSK_MPI_UNKNOWN = 0, PSK_MPI_OPENMPI = 1, PSK_MPI_MPICH = 2 };
const char *psk_flavour_name(int flavour);

/* Per rank the index of its host (job->hosts; ranks of one host alike) in
 * id: how many hosts, or -1 out of memory (trace_share.c). */
int psk_host_ids(const char *const *hosts, int P, int *id);
/* Per rank in off (nranks entries) what to take off its clock for rank
 * 0's: the ranks of a host share its clock, so the recorded offset of its
 * host's first rank, 0 on rank 0's host (trace_share.c); 0 or PSK_ENOMEM. */
int psk_clock_offsets(const psk_job *job, int64_t *off);
/* The share of each rank's recorded compute gaps that was work
 * (trace_share.c): below 1 where its host ran more ranks than cores and
 * it waited for a core inside its gaps, 1 elsewhere or where the cores
 * are not known. cores: per rank, its host's cores when recorded (0: not
 * known; NULL: job->cores). read(src, q, on, arg) calls on(arg, e) for
 * each of rank q's events in its order and returns 0 or an error code,
 * which is returned (else 0, or PSK_ENOMEM). share: job->nranks. */
/* How many ranks ran on a host with more ranks than cores (job.json's
 * hosts; cores as for psk_work_share), each marked 1 in crowded (NULL:
 * not kept; job->nranks), or PSK_ENOMEM. 0 where the cores are not known. */
int psk_ranks_crowded(const psk_job *job, const int *cores, unsigned char *crowded);
/* Per rank in slot where the recording placed it on its host (job.json's
 * hosts, cores and cpu.on): the n-th (from 0) of the CPUs its host's ranks
 * stayed on, in CPU order, where every rank of the host stayed on one CPU
 * and they were no more than the host's cores; else -1, and all -1 where
 * the job keeps no placement. slot: job->nranks. 0 or PSK_ENOMEM. */
int psk_ranks_placed(const psk_job *job, int *slot);
typedef int (*psk_rank_events_fn)(void *src, int rank, int (*on)(void *arg, const psk_event *e), void *arg);
int psk_work_share(const psk_job *job, const int *cores, psk_rank_events_fn read, void *src, double *share);

/* A job header parsed from JSON text (job.json, or the copy a later
 * stage's file carries); owns what its psk_job points to. name is the file
 * named in errors. On failure *out is still set for psk_jobdoc_errmsg. */
typedef struct psk_jobdoc psk_jobdoc;
int psk_jobdoc_parse(const char *text, size_t len, const char *name, psk_jobdoc **out);
const psk_job *psk_jobdoc_job(const psk_jobdoc *d);
const char *psk_jobdoc_errmsg(const psk_jobdoc *d);
char *psk_jobdoc_text(const psk_jobdoc *d); /* free() it */
void psk_jobdoc_close(psk_jobdoc *d);       /* NULL is fine */

typedef struct psk_trace psk_trace;
typedef struct psk_rank_reader psk_rank_reader;

/* Opens the trace directory dir: reads job.json and every rank file's
 * header, and checks they belong to one job. On failure *out is still set
 * (unless memory ran out) so psk_trace_errmsg() can say what went wrong. */
int psk_trace_open(const char *dir, psk_trace **out);
/* Where a trace's rank files come from when they are not dir's own (the
 * in-job merge reads the other ranks' files over MPI): a stream at the
 * start of rank's file that can seek, or NULL with errno set. */
typedef FILE *(*psk_rank_source)(void *ctx, int rank);
/* A trace whose job header is the JSON text job_json[0..len) (dir names
 * it and the rank files in messages), its rank files opened through src
 * (NULL: dir's files) and each checked against the job when its reader
 * opens it, not here: no rank file is read to open it. */
int psk_trace_open_job(const char *dir, const char *job_json, size_t len, psk_rank_source src, void *ctx,
                       psk_trace **out);
const char *psk_trace_errmsg(const psk_trace *t);
const psk_job *psk_trace_job(const psk_trace *t);
/* job.json's content as JSON text, for stages that carry the job header
 * in their own files; free() it. NULL if memory ran out. */
char *psk_trace_job_json(const psk_trace *t);
void psk_trace_close(psk_trace *t); /* NULL is fine */

/* Reads one rank's events in order. psk_rank_next returns PSK_OK with an
 * event, PSK_EOF after the last event of a rank that reached MPI_Finalize,
 * or an error (PSK_ETRUNCATED, PSK_EFORMAT, PSK_EIO) after the last good
 * event; psk_rank_errmsg() then names the file and the problem. */
int psk_rank_open(psk_trace *t, int rank, psk_rank_reader **out);
int psk_rank_next(psk_rank_reader *r, psk_event *ev);
const char *psk_rank_errmsg(const psk_rank_reader *r);
const char *psk_rank_path(const psk_rank_reader *r);
uint64_t psk_rank_events_read(const psk_rank_reader *r);
uint64_t psk_rank_mono_start(const psk_rank_reader *r);
/* 1 if r's file records which thread made each call (format version 4,
 * a rank whose MPI_Init_thread gave MPI_THREAD_SERIALIZED or
 * MPI_THREAD_MULTIPLE), then events carry their psk_event.thread; 0 if
 * not (every call then came from the thread that initialised MPI, or the
 * trace is older than version 4) */
int psk_rank_threads_recorded(const psk_rank_reader *r);
/* The encoded bytes of the event psk_rank_next just returned, as in the
 * file (its gap is relative to the previous event's exit, so the bytes
 * stand alone) but without an arm or thread: the form psk_event_encode writes (an
 * event of a file older than version 3 that lacks fields of
 * PSK_FIELDS_V3 is re-encoded with them empty); valid until the next
 * call. For tools that keep events. */
const uint8_t *psk_rank_event_bytes(const psk_rank_reader *r, size_t *len);
/* Closes r's file and lets its block go, keeping its place: the next
 * psk_rank_next reopens the file, reads the block it was in again (its
 * checksum verified again) and goes on with the same event. Up to keep
 * bytes of the whole events that follow stay in memory, so that many
 * reads need no file. The event and bytes last returned stay valid. For
 * programs reading more ranks at once than they may open files. */
int psk_rank_release(psk_rank_reader *r, size_t keep);
/* 1 if r has its file open */
int psk_rank_is_open(const psk_rank_reader *r);
void psk_rank_close(psk_rank_reader *r); /* NULL is fine */

/* A pool caps the rank files its readers hold open: when a reader needs
 * its file and max_open of them are open, the one read least recently is
 * released (psk_rank_release, keeping keep bytes). max_open <= 0: half the
 * process's open-file limit (RLIMIT_NOFILE), at least 4 and at most 1024.
 * A pool and its readers are for one thread; close the readers first. */
typedef struct psk_rank_pool psk_rank_pool;
int psk_rank_pool_new(int max_open, size_t keep, psk_rank_pool **out);
int psk_rank_pool_max_open(const psk_rank_pool *p);
void psk_rank_pool_free(psk_rank_pool *p); /* NULL is fine */
/* psk_rank_open, the reader's file counted in pool (NULL: no pool) */
int psk_rank_open_pooled(psk_trace *t, int rank, psk_rank_pool *pool, psk_rank_reader **out);

/* ---- a rank's profile, as perfskel stats gives it (trace_profile.c) ---- */

/* A rank's run time as mpiP counts its AppTime: MPI_Init's (or
 * MPI_Init_thread's) exit to MPI_Finalize's entry, from its events fed in
 * order; from mono_start (the rank's clock at its start) if it has no
 * MPI_Init. */
typedef struct psk_trace_apptime {
    uint64_t first, last;
} psk_trace_apptime;
void psk_trace_apptime_start(psk_trace_apptime *a, uint64_t mono_start);
/* 1 if ev is MPI_Init, MPI_Init_thread or MPI_Finalize (not counted as time in MPI) */
int psk_trace_apptime_add(psk_trace_apptime *a, const psk_event *ev);
uint64_t psk_trace_apptime_ns(const psk_trace_apptime *a);

/* calls, bytes (psk_event_bytes) and ns inside the calls */
typedef struct psk_trace_fnstat {
    uint64_t calls, bytes, ns;
} psk_trace_fnstat;

typedef struct psk_trace_profile {
    psk_trace_fnstat *fn;  /* psk_fn_count() entries, by function id */
    psk_trace_fnstat *arm; /* [fn * psk_arm_count() + arm]: the tuned collectives'
                              calls per arm (format version 2 on); NULL if no
                              event carries a known arm */
    uint64_t events, bytes;
    uint64_t mpi_ns;       /* in calls within the run time (not MPI_Init, MPI_Finalize) */
    uint64_t wall_ns;      /* the run time (psk_trace_apptime) */
    int complete;          /* read to its end; else error says why (NULL if
                              memory ran out) and the rest holds the events
                              up to its last good block */
    char *error;
} psk_trace_profile;
/* rank's profile into *p: PSK_OK (a damaged rank too: complete 0) or
 * PSK_ENOMEM. Free with psk_trace_profile_free (either way). */
int psk_trace_profile_rank(psk_trace *t, int rank, psk_trace_profile *p);
void psk_trace_profile_free(psk_trace_profile *p); /* NULL is fine */

/* ---- one event's encoded form (the bytes psk_rank_event_bytes gives) ---- */

/* At most this many bytes for ev (fields from psk_fn_fields(ev->fn)). */
size_t psk_event_encoded_max(const psk_event *ev);
/* Writes ev with gap (its entry minus the previous event's exit) to out,
 * without its arm (as version 1 has it); returns the end. */
uint8_t *psk_event_encode(uint8_t *out, const psk_event *ev, int64_t gap);

/* ---- writing a trace directory (what the recorder writes, from memory) ---- */

typedef struct psk_trace_writer psk_trace_writer;
/* Creates dir with one file per rank of job (job_id, nranks, flavour, and
 * whichever strings and arrays are set; format_version 2 to 4 write each
 * tuned collective's arm, which must be psk_arm_valid; 1 and 2 drop the
 * fields of PSK_FIELDS_V3; 4 records each event's thread in every rank's
 * file, and an event's thread must be at most one more than the highest
 * its rank had so far; 0 is 4); mono_start[r] is rank r's clock
 * at its start (NULL: 0). On failure *out is still set for the message. */
int psk_writer_open(const char *dir, const psk_job *job, const uint64_t *mono_start, psk_trace_writer **out);
/* Appends ev (fields from psk_fn_fields(ev->fn)) to rank's events. A rank
 * file is open only while a block goes to it, so the ranks may outnumber
 * the files the process can open. */
int psk_writer_event(psk_trace_writer *w, int rank, const psk_event *ev);
/* Ends rank as one that reached MPI_Finalize (no more events for it) and
 * lets its buffer go: a program writing rank after rank keeps one buffer. */
int psk_writer_end_rank(psk_trace_writer *w, int rank);
/* Ends every rank not ended yet and writes job.json. */
int psk_writer_close(psk_trace_writer *w);
const char *psk_writer_errmsg(const psk_trace_writer *w);
void psk_writer_free(psk_trace_writer *w); /* after close; NULL is fine */

#endif
