/* What perfskel import --otf2's three parts share: the archive's global
 * definitions as read (convert_otf2_defs.c), one rank's events turned into
 * perfskel's calls (convert_otf2_events.c), and the import that reads the
 * archive rank by rank into a trace directory (convert_otf2_import.c).
 * Internal to src/convert. */
#ifndef PSK_CONVERT_OTF2_READ_H
#define PSK_CONVERT_OTF2_READ_H

#include <stdint.h>

#include <otf2/otf2.h>

#include "convert_otf2.h"
#include "perfskel/trace.h"

#define MAXREF (1 << 24) /* definitions' ids beyond this are refused */
#define QUEUE_MAX (1 << 16) /* events held behind an uncompleted receive before it is written as it is */
#define MAXREQ (1 << 16)    /* requests outstanding at once on a rank */
#define HBITS 17            /* their hash table: 2 * MAXREQ slots */

/* the kinds of things that cannot be mapped, counted and said once each
 * (convert_otf2_import.c words them) */
enum kind {
    K_USER, K_MPI_OTHER, K_NOINFO, K_PERSIST, K_NOREC_P2P, K_NOREC_COLL, K_NEVER_DONE, K_UNKNOWN_REQ,
    K_COMM_NOCREATE, K_VCOUNTS, K_OUTSIDE, K_NESTED, K_OTHER_LOC, K_ROOT, K_MRECV, K_FORCED, K_NKINDS
};

/* ---- the global definitions (convert_otf2_defs.c) ---- */

typedef struct greg { int defined; uint32_t name; unsigned fn; int mpi; } greg;
typedef struct ggrp { int defined, type; uint32_t n; uint64_t *mem; } ggrp;
typedef struct gcom { int defined; uint32_t group, parent; } gcom;
typedef struct gloc { uint64_t ref; uint32_t group; } gloc;
typedef struct glg { int defined; uint32_t parent; } glg;
typedef struct gstn { int defined; uint32_t name; int cores; } gstn;

typedef struct defs {
    char **str;
    int64_t nstr;
    greg *reg;
    int64_t nreg;
    ggrp *grp;
    int64_t ngrp;
    gcom *com;
    int64_t ncom;
    glg *lg;
    int64_t nlg;
    gstn *stn;
    int64_t nstn;
    gloc *loc;
    int64_t nloc, caploc;
    int have_clock;
    int flavour; /* MPI_PROPERTY: enum psk_flavour */
    uint64_t res, goff, realtime;
    char err[512];
} defs;

/* the definition callbacks set on gcb, reading into a defs */
void psk_otf2in_defs_callbacks(OTF2_GlobalDefReaderCallbacks *gcb);
/* string ref, or NULL if not defined */
const char *psk_otf2in_string(const defs *d, uint32_t ref);
/* the definitions checked: every reference resolves; the ranks found
 * (their locations in *rank_loc, allocated), the locations that are no
 * ranks counted, MPI_COMM_WORLD's and MPI_COMM_SELF's refs; 0, or -1 with
 * d->err set */
int psk_otf2in_check_defs(defs *d, const char *anchor, uint64_t **rank_loc, int *P, int64_t *other, uint32_t *world,
                          uint32_t *self);
void psk_otf2in_free_defs(defs *d);

/* ---- one rank's events (convert_otf2_events.c) ---- */

enum rtype { R_SEND, R_ISEND, R_ISEND_DONE, R_IRECV_REQ, R_RECV, R_IRECV_DONE, R_TEST, R_CANCEL, R_COLL_END,
             R_NBC_REQ, R_NBC_DONE, R_COMM_CREATE, R_COMM_DESTROY };
typedef struct rec {
    int type;
    uint32_t comm, peer, tag, root;
    int op;
    uint64_t bytes, rbytes, req;
} rec;

typedef struct qev {
    psk_event e;
    int pending;
    int64_t *own[PSK_F_NFIELDS - PSK_F_FIRST_ARRAY];
} qev;

/* an outstanding request, by perfskel's id: its OTF2 id, its pending event's
 * queue index (or -1), the record that started it */
typedef struct rmap { uint64_t oid; int64_t q; int kind, used; } rmap;

typedef struct imp {
    defs *d;
    const char *anchor;
    int P, rank;
    uint64_t loc;
    psk_trace_writer *w;
    /* communicators: the world and self refs, each ref's size and this rank's place in it */
    uint32_t world, self;
    /* this rank's state */
    uint32_t *stack;
    int64_t nstack, depth;
    int64_t call; /* depth of the MPI call being read, -1 outside */
    unsigned fn, fn_as;
    uint32_t call_region;
    uint64_t t_entry, last;
    int any;
    rec *rec;
    int64_t nrec, caprec;
    qev *q;
    int64_t qhead, qn, qcap, qbase; /* queue index of q[0] */
    rmap *rq;          /* MAXREQ */
    uint32_t *rhash;   /* 1 << HBITS slots: perfskel id + 1 by OTF2 id, 0 empty */
    int64_t req_hint;  /* no free id below it */
    int64_t *comm_id; /* comm ref -> perfskel id + 1 */
    int64_t ncomm_id;
    uint8_t *comm_used;
    int64_t ncomm_used;
    uint64_t first_mpi; /* pass 1: the first MPI call's entry */
    int pass;
    uint64_t count[K_NKINDS];
    char example[K_NKINDS][64];
    psk_otf2_err *oe; /* libotf2's last message */
    char err[1024]; /* room for libotf2's message (psk_otf2_err) */
} imp;

/* the event callbacks (an imp as their user data), or NULL */
OTF2_EvtReaderCallbacks *psk_otf2in_callbacks(void);
/* reads one location's events (pass 1: its first MPI call; pass 2: its
 * events into the writer); 0, or -1 with x->err set */
int psk_otf2in_read_rank(imp *x, OTF2_Reader *rd, OTF2_EvtReaderCallbacks *cb);
/* one rank's state cleared */
void psk_otf2in_reset_rank(imp *x);

#endif
