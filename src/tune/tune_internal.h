/* Internals of the tuning library (libperfskel-tune-*.so), shared by its
 * files: the per-communicator state (tune_comm.c), call sites (tune_site.c),
 * the Alltoall arms (tune_alltoall.c), the dispatch and report (tune_core.c)
 * and the MPI entry points (tune_wrap.c). Everything here is hidden in the
 * shared library; only the MPI_* and Fortran entry points are exported.
 * Invariant: every choice that makes ranks communicate differently (the arm,
 * whether a private communicator or scratch memory is ready) is a function
 * of data identical on every rank of the communicator, or is agreed on by
 * a collective first, so that a failure on one rank sends all to native. */
#ifndef PSK_TUNE_INTERNAL_H
#define PSK_TUNE_INTERNAL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "perfskel/tune.h"

#define PSK_EXPORT __attribute__((visibility("default")))

/* results of an arm besides MPI error codes (all negative, never an MPI code) */
#define PSK_TUNE_SKIP (-1001)     /* the arm does not apply to this call */
#define PSK_TUNE_FALLBACK (-1002) /* set-up failed on some rank: nothing ran */

/* a call site: module (its base name) and offset of the return address in
 * it, the same on every rank running the same binary, whatever ASLR did */
typedef struct psk_tune_site {
    uint64_t id; /* hash of module name and offset */
    uintptr_t offset;
    const char *module; /* interned, lives as long as the process */
} psk_tune_site;

/* statistics of one arm under one key, for the learner */
typedef struct psk_tune_armstat {
    uint32_t calls;
    uint32_t min_ns;
    uint64_t sum_ns;
} psk_tune_armstat;

/* a key: (communicator, call site, size class) */
typedef struct psk_tune_key {
    uint64_t site; /* psk_tune_site.id; 0 marks a free slot */
    const psk_tune_site *where;
    int sclass; /* floor(log2(bytes per peer)), -1 for 0 bytes */
    uint64_t calls;
    psk_tune_armstat arm[PSK_TUNE_NARMS];
} psk_tune_key;

typedef struct psk_tune_comm {
    int rank, size, inter;
    unsigned id; /* in order of first use on this rank, for the report */
    struct psk_tune_comm *next;
    /* the rest is agreed by all ranks (set-up and growth are collective) */
    int ready;          /* priv and reqs exist on every rank */
    MPI_Comm priv;      /* the arms' own traffic, never the user's */
    MPI_Request *reqs;  /* 2 * size */
    char *scratch;      /* packed blocks */
    size_t scratch_cap; /* bytes every rank has */
    size_t scratch_have;
    uint64_t ncycle; /* calls made since ready (PSK_TUNE_FORCE=cycle) */
    /* keys, open addressing; not agreed (sites may differ between ranks) */
    psk_tune_key *keys;
    size_t nkeys, capkeys;
} psk_tune_comm;

/* one Alltoall call, as the arms see it */
typedef struct psk_tune_a2a {
    const void *sbuf;
    int scount;
    MPI_Datatype stype;
    void *rbuf;
    int rcount;
    MPI_Datatype rtype;
    MPI_Comm comm;
    size_t bytes; /* per peer, the same on every rank */
    int inplace;
    MPI_Aint sext, rext;
} psk_tune_a2a;

/* ---- tune_comm.c ---- */
/* the attribute key of the states; 0, or -1 if MPI refused it */
int psk_tune_comm_init(void);
/* the state of comm, made on first use; NULL if it cannot be had */
psk_tune_comm *psk_tune_comm_get(MPI_Comm comm);
/* collective over comm: make priv and reqs if not ready. 0 when ready on
 * every rank, -1 (on every rank) if not; c may be NULL (votes no) */
int psk_tune_comm_setup(psk_tune_comm *c, MPI_Comm comm);
/* collective over c->priv: at least need bytes of scratch on every rank;
 * need must be the same on every rank. NULL on every rank if not */
char *psk_tune_comm_scratch(psk_tune_comm *c, size_t need);
/* the key's statistics, made on first use; NULL if out of memory */
psk_tune_key *psk_tune_comm_key(psk_tune_comm *c, const psk_tune_site *s, int sclass);
/* the end of MPI: no more MPI calls from attribute callbacks */
void psk_tune_comm_finalizing(void);
/* fn on each live state, for the report */
void psk_tune_comm_each(void (*fn)(const psk_tune_comm *, void *), void *arg);

/* ---- tune_site.c ---- */
/* the site of a return address; NULL if out of memory */
const psk_tune_site *psk_tune_site_of(void *ra);

/* ---- tune_alltoall.c ---- */
/* 1 if arm applies to P ranks and bytes per peer (in place or not): the
 * same answer on every rank */
int psk_tune_a2a_valid(int arm, int P, size_t bytes, int inplace);
/* runs arm (not native) on a prepared call; MPI_SUCCESS, an MPI error,
 * or PSK_TUNE_FALLBACK */
int psk_tune_a2a_run(int arm, psk_tune_comm *c, const psk_tune_a2a *a);
/* fills a from the arguments; 0, or -1 if the call is not one the arms
 * take (the native call gets it) */
int psk_tune_a2a_prepare(psk_tune_a2a *a, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                         int rcount, MPI_Datatype rtype, MPI_Comm comm);
/* test entry point: runs arm (native included) on the call, with the state
 * of comm as the library keeps it; MPI_SUCCESS, an MPI error, PSK_TUNE_SKIP
 * or PSK_TUNE_FALLBACK (then nothing ran) */
int psk_tune_alltoall_arm(int arm, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, MPI_Comm comm);

/* ---- tune_core.c ---- */
/* 1 between MPI_Init and MPI_Finalize once the library has started (on
 * the first call), 0 if it is off: everything native */
int psk_tune_on(void);
/* MPI_Alltoall, as every entry point calls it: ra is the caller's return
 * address, fortran 1 when a Fortran entry point was called */
int psk_tune_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                      MPI_Datatype rtype, MPI_Comm comm, void *ra, int fortran);
/* counts kept for the report and the tests */
typedef struct psk_tune_counts {
    uint64_t calls;       /* MPI_Alltoall calls that reached the library */
    uint64_t fortran;     /* of which through a Fortran entry point */
    uint64_t unsupported; /* went native untouched (intercommunicator, ...) */
    uint64_t fallback;    /* an arm was chosen but set-up failed: native */
    uint64_t arm[PSK_TUNE_NARMS];
} psk_tune_counts;
void psk_tune_get_counts(psk_tune_counts *out);
/* an arm's name; its number from a name (-1 if none) */
const char *psk_tune_arm_name(int arm);
int psk_tune_arm_parse(const char *name);
/* a call reached through a Fortran entry point that passed it on to the
 * MPI's own Fortran code (MPI_BOTTOM, MPICH's C layer bypassed) */
void psk_tune_count_fortran_native(void);

#endif
