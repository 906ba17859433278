/* Internals of the merge stage, shared by its files: the psk_merged object,
 * one rank's stored events, the communicator table that turns peers into
 * ranks relative to their communicator, and the per-rank patterns.
 * Invariant: merged events list their ranks ascending, and each rank's
 * events appear in the merged sequence in that rank's (normalised) order. */
#ifndef PSK_MERGE_INTERNAL_H
#define PSK_MERGE_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "perfskel/merge.h"
#include "psk_intern.h"

#define MERR (PATH_MAX + 512)

/* a growable byte buffer */
typedef struct mbuf {
    uint8_t *p;
    size_t len, cap;
} mbuf;
int mbuf_reserve(mbuf *b, size_t more); /* 0, or -1 out of memory */
/* appends v as an unsigned (LEB128) or zigzag varint: 0, or -1 out of memory */
int mbuf_put_uvar(mbuf *b, uint64_t v);
int mbuf_put_svar(mbuf *b, int64_t v);
/* room for need elements of size bytes in *p (capacity *cap: first need,
 * 4 at least, then doubled; new room not cleared); 0, or -1 out of memory.
 * MERGE_GROW types it. */
int merge_grow(void **p, size_t *cap, size_t need, size_t size);
#define MERGE_GROW(p, cap, need) merge_grow((void **)(p), (cap), (need), sizeof **(p))
void merge_huge(void *p, size_t len);   /* asks for huge pages for a big array */

/* ---- one rank's events, encoded as in a trace block (fn, gap, dur, fields) ---- */

/* Events are encoded with psk_event_encode (trace.h). mevent_decode reads
 * one back; arrays point into *st (grown as needed). Times: t_entry = gap,
 * t_exit = gap + dur (the caller places them). */
typedef struct mevent_store {
    int64_t *a[PSK_F_NFIELDS - PSK_F_FIRST_ARRAY];
    size_t cap[PSK_F_NFIELDS - PSK_F_FIRST_ARRAY];
} mevent_store;
int mevent_decode(const uint8_t **p, const uint8_t *end, psk_event *ev, int64_t *gap, mevent_store *st);
void mevent_store_free(mevent_store *st);
/* room for n values of array field k - PSK_F_FIRST_ARRAY, or NULL */
int64_t *mevent_store_grow(mevent_store *st, int k, size_t n);
/* deep copy of src's arrays into st, making dst independent of src's owner */
int mevent_copy(psk_event *dst, const psk_event *src, mevent_store *st);

/* ---- communicators: id -> this rank's rank in it and its size ---- */

typedef struct commtab {
    int32_t *crank, *csize; /* csize 0: unknown (not made by a recorded call, or inter) */
    int n, cap;
    /* crank[0] and csize[0] (MPI_COMM_WORLD, most events' communicator)
     * kept here too: the ranks' tables side by side are read in order of
     * rank, without a second access per rank */
    int32_t crank0, csize0;
} commtab;
int commtab_init(commtab *t, int rank, int nranks);
void commtab_free(commtab *t);
/* follows communicator creation and freeing by ev (made on world rank `rank`) */
int commtab_event(commtab *t, const psk_event *ev, int rank);
/* rank in and size of the communicator the event's values are relative to
 * (its COMM field, else MPI_COMM_WORLD); size 0 if unknown */
void commtab_ctx(const commtab *t, const psk_event *ev, int32_t *crank, int32_t *csize);

/* ---- patterns of one field over the ranks taking part (merge_pattern.c) ---- */

int pattern_is_peer(int field);
/* Appends the pattern of field f over np events to b. */
int pattern_encode(mbuf *b, int f, const psk_event *ev, int np, const int32_t *crank, const int32_t *csize);
/* A field's pattern in a merged event, read ahead of its ranks' values:
 * those are decoded a chunk of ranks at a time, each chunk's event records
 * whole while they are in the caches (at many ranks a merged event's
 * records are megabytes; a pass over them for each field wrote each line
 * back and forth to memory). */
typedef struct pattern_at {
    int f;
    uint8_t kind;             /* PSK_PAT_* */
    int64_t c;                /* the constant or offset of CONST/RANK/RING scalars */
    const uint8_t *p, *end;   /* the next rank's value (TABLE; an array's CONST: its one) */
    uint32_t n0;              /* an array's CONST: its one, once decoded */
    const int64_t *arr0;
} pattern_at;
/* Reads the pattern of field f over np ranks at *p into *at and moves *p
 * past its ranks' values, checked to be well-formed; -1 if malformed. */
int pattern_scan(const uint8_t **p, const uint8_t *end, int f, int np, pattern_at *at);
/* Decodes ranks j0..j1-1's values of the pattern scanned into *at into
 * ev[j]'s field f (arrays into st[j]), the chunks in order from rank 0;
 * -1 if the data is malformed or memory ran out. */
int pattern_fill(pattern_at *at, psk_event *ev, int j0, int j1, uint32_t w, const int32_t *crank, const int32_t *csize,
                 mevent_store *st);

/* ---- the merged trace ---- */

/* a run of a rank's events, in merged order, made by one thread */
typedef struct trun {
    uint64_t n;
    uint32_t thread;
} trun;

typedef struct mrank {
    uint64_t n;          /* events */
    uint64_t mono_start; /* the rank's clock at its first event's base */
    mbuf times;          /* merged order: svar gap, uvar dur per event */
    uint32_t *perm;      /* merged-order position -> original index; NULL = same */
    trun *thr;           /* merged order: which thread made its events (none: all thread 0) */
    size_t nthr, capthr;
    int nthreads;        /* threads that made its calls (1 if not recorded) */
} mrank;
/* appends an event of thread t to mr's runs, `before` of its events
 * counted already (no runs: every one of those on thread 0, as with no
 * runs at the end): 0, or -1 out of memory */
int mrank_thread(mrank *mr, uint32_t t, uint64_t before);

typedef struct mclass {
    unsigned fn;
    uint32_t pset;
} mclass;

struct psk_merged {
    char err[MERR];
    psk_jobdoc *doc;
    const psk_job *job;
    int nranks;
    mrank *rank;
    psk_intern *psets;   /* int32 rank lists */
    psk_intern *classes; /* uvar pset, uvar key length, key, peer patterns */
    mclass *cinfo;       /* decoded per class */
    uint32_t ccap;
    uint64_t n, cap;     /* merged events */
    uint32_t *cls;
    uint64_t *evoff;     /* start of each event's patterns in pool */
    mbuf pool;
    int tsum;            /* times summarised (merge_tsum.c) */
    uint64_t nbase;      /* merged events before these (written out by the streaming merge) */
    double *ts_own, *ts_got; /* per rank while summarising: its compute, the summary's */
    int64_t *ts_g, *ts_d; /* room for the gaps and durations of one event */
    int32_t *ts_prev;    /* per class met, its last event's codes (tsum_event): at ts_at[class] - 1 */
    uint64_t *ts_fnrow;  /* per function and shape of entry, where its last event's codes are (+ 1) */
    unsigned ts_init[2]; /* MPI_Init's and MPI_Init_thread's function ids: their times kept exact */
    uint64_t *ts_at;
    size_t ts_nprev, ts_capprev;
    int64_t ts_ncls;      /* ts_at's length */
    mbuf ts;             /* the streaming merge's summary entries not yet written out */
};

/* ---- the merged-trace file (merge_file.c) ---- */

enum { MT_JOB = 0x20424f4a, MT_PSET = 0x54455350, MT_CLAS = 0x53414c43, MT_EVNT = 0x544e5645,
       MT_POOL = 0x4c4f4f50, MT_RANK = 0x4b4e4152, MT_TSUM = 0x4d555354, MT_END = 0x21444e45 };
/* a section written in pieces: its length said first, its CRC after.
 * From format version 4 a payload that is not empty starts with its
 * coding: 0 the bytes as they are, 1 one zstd frame of them (its length
 * then written once known, the file seeked back to it). One msec, zeroed,
 * writes every section of a file: it keeps its compressor between them
 * (msec_free) */
typedef struct msec {
    FILE *f;
    uint32_t crc;
    uint64_t left;   /* payload bytes still to come, before coding */
    int z;           /* this section is compressed */
    int64_t at;      /* the file offset of its length */
    uint64_t stored; /* bytes of its payload written */
    void *zc;        /* ZSTD_CCtx */
    uint8_t *zbuf;   /* the compressor's output */
    size_t zcap;
} msec;
int msec_begin(msec *w, FILE *f, uint32_t tag, uint64_t len); /* 0, or 1 on a write error */
int msec_put(msec *w, const uint8_t *p, size_t len);
int msec_end(msec *w); /* 1 if short of its length */
void msec_free(msec *w);
/* the pieces psk_merged_write writes, for the streaming merge to write the
 * same bytes; each 0, or non-zero on a write error or out of memory */
int merged_write_head(psk_merged *m, msec *w, FILE *f);            /* magic, version, JOB */
int merged_write_tables(psk_merged *m, msec *w, FILE *f, mbuf *b); /* PSET and CLAS */
int merged_write_events_head(mbuf *b, uint64_t n);       /* EVNT's count */
/* an event's entry: its class as the difference from *prev's (then cls) */
int merged_event_entry(mbuf *b, uint32_t *prev, uint32_t cls, uint64_t len);
/* a RANK section's payload: prefix, the times, suffix, threads */
int merged_rank_prefix(mbuf *b, int r, uint64_t n, uint64_t mono_start, uint64_t tlen);
/* the rank's order: none (perm NULL), the same as `back` ranks before it
 * (back > 0), or its own */
int merged_rank_suffix(mbuf *b, const uint32_t *perm, uint64_t n, int back);
/* the threads that made the rank's calls, as runs in merged order */
int merged_rank_threads(mbuf *b, const mrank *mr);
/* version 4's differences (merge_delta.c): an event's patterns coded
 * against a reference event's, in order, by the writers (pdelta_code:
 * out[0..len) from b[0..len); -1 out of memory) and undone in place in a
 * merged object read (pdelta_undo; -1 out of memory); a class key against
 * the one before it (prev NULL: the first) */
typedef struct pdelta pdelta;
pdelta *pdelta_new(void);
void pdelta_free(pdelta *d);
int pdelta_code(pdelta *d, uint32_t cls, const uint8_t *b, size_t len, uint8_t *out);
int pdelta_undo(psk_merged *m);
void kdelta_code(const uint8_t *prev, size_t plen, const uint8_t *k, size_t len, uint8_t *out);
void kdelta_undo(const uint8_t *prev, size_t plen, uint8_t *k, size_t len);
/* (*back)[r]: how many ranks before r the first rank with the same order
 * (perm[r], rank[r].n events) is, or 0; 0, or -1 out of memory */
int merged_same_orders(int P, const uint32_t *const *perm, const struct mrank *rank, int **back);
int merged_write_end(msec *w, FILE *f);

int merged_fail(psk_merged *m, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
psk_merged *merged_new(void);
/* appends a merged event of class cls whose patterns are pool[start..len) */
int merged_push(psk_merged *m, uint32_t cls, uint64_t start);
/* the id of a class string, recording its fn and rank set when new */
int64_t merged_class_id(psk_merged *m, const uint8_t *key, size_t len);

/* ---- merging (psk_merge): the ranks' events in memory, and their keys ---- */

typedef struct rstore {
    uint64_t n;
    mbuf buf;       /* events in the rank's order, encoded */
    uint32_t *off;  /* event i starts at buf.p + off[i] (a rank holds < 4 GiB) */
    uint32_t *key;  /* matching key of event i */
    uint32_t *perm; /* normalised position -> event index; NULL = same */
    uint32_t *thr;  /* thread of event i; NULL = all thread 0 */
    uint64_t mono_start;
} rstore;

typedef struct mctx {
    psk_merged *m;
    psk_trace *t;
    psk_merge_opts o;
    int P;
    rstore *rs;
    psk_intern *keys; /* matching keys: fn, then the key fields */
    uint32_t *loose;  /* key -> the key with its peers erased */
    uint8_t *hasnull; /* key -> a peer is MPI_PROC_NULL */
    uint32_t kcap;
    psk_intern *loosekeys;
    uint64_t done, total; /* for progress */
    int r0, r1;           /* merge_load reads ranks [r0, r1) (0, 0: all) */
    /* the streaming merge (merge_stream.c), unset for psk_merge: */
    /* with the loading lock held, once rank r is loaded and ordered (its
     * keys global ids): may keep only its keys and order, sharing them with
     * ranks that have the same */
    int (*settle)(struct mctx *x, int r);
    pthread_mutex_t *lock;
    const uint32_t *seq; /* per rank: id of its key sequence (equal ids: equal keys) */
    /* the event at normalised position k of rank r, decoded into ev
     * (arrays in st, t_entry = gap, t_exit = gap + duration) */
    int (*fetch)(struct mctx *x, int r, uint64_t k, psk_event *ev, int64_t *gap, mevent_store *st);
    /* after each merged event, of ranks parts[0..np): may write out what
     * the merged object holds so far */
    int (*drain)(struct mctx *x, const int32_t *parts, int np);
    void *sink;
} mctx;

/* ---- which calls can be one merged event (merge_align.c, merge_lcs.c) ---- */

/* Two calls match when their keys are equal, or when they differ only in
 * peers and one of them passes MPI_PROC_NULL (a boundary rank's call joins
 * the real-peer one). */
typedef struct keymatch {
    const uint32_t *loose;  /* key -> the key with its peers erased */
    const uint8_t *hasnull; /* key -> a peer is MPI_PROC_NULL */
    uint32_t nkeys, nloose;
    int anynull;            /* some key passes MPI_PROC_NULL */
} keymatch;
static inline int keys_match(const keymatch *km, uint32_t k1, uint32_t k2)
{
    return k1 == k2 || (km->anynull && km->loose[k1] == km->loose[k2] && (km->hasnull[k1] || km->hasnull[k2]));
}

/* ---- pairwise alignment (merge_lcs.c) ---- */

typedef struct lcs_ws lcs_ws; /* reusable buffers */
lcs_ws *lcs_new(const keymatch *km);
void lcs_free(lcs_ws *w);
/* Indexes b[0..n): the keys of the merged events a rank is aligned with. */
int lcs_index(lcs_ws *w, const uint32_t *b, uint32_t n);
/* Aligns the rank's calls a[0..m) with the indexed b's range [y0, y1): the
 * most calls of a matched, in order, to calls of b (which may be skipped
 * freely); out[x] is the b index of a[x]'s match or -1. Returns 0, 1 if
 * that takes more than budget DP cells or more memory than the DP may keep
 * (out is then unset), -1 out of memory. */
int lcs_align(lcs_ws *w, const uint32_t *a, uint32_t m, uint32_t y0, uint32_t y1, uint64_t budget,
              int32_t *out);
uint64_t lcs_cells(const lcs_ws *w); /* DP cells the last lcs_align took */
void lcs_force(lcs_ws *w, int how);  /* tests: 0 either way, 1 layers, 2 bit vectors */

/* ---- polls as one event (merge_poll.c) ---- */

typedef struct pollrun {
    int on, done;         /* a run is pending; it ended with completion */
    psk_event first, last;
    mevent_store st_first, st_last;
    int64_t gap;          /* before its first call */
    int64_t calls, work;  /* calls taken in; ns of compute between them */
} pollrun;
/* Feeds one event of a rank (gap: before it) to the run of polls being
 * gathered. *taken: ev became part of a run. Returns 1 with *out (arrays
 * valid until the next feed) and *out_gap when a run is complete (if ev
 * was not taken, feed it again), 0 when nothing is to be stored yet (or,
 * if not taken, ev is no poll: store it as it is), -1 out of memory. */
int pollrun_feed(pollrun *p, const psk_event *ev, int64_t gap, psk_event *out, int64_t *out_gap, int *taken);
int pollrun_flush(pollrun *p, psk_event *out, int64_t *gap); /* 1 and the pending run, or 0 */
void pollrun_free(pollrun *p);

/* ---- summarised times (merge_tsum.c) ---- */

/* the TSUM section's payload from every rank's times: 0, -1 out of memory,
 * -2 the times are shorter than the events */
int tsum_encode(psk_merged *m, mbuf *out);
/* the same made event by event (the streaming merge): tsum_start, then
 * per merged event i of class cls (ranks[0..np), their gaps g and
 * durations d, both clobbered) tsum_event, then tsum_factors; each 0 or
 * -1 out of memory */
int tsum_start(psk_merged *m);
int tsum_event(psk_merged *m, mbuf *out, uint64_t i, uint32_t cls, const int32_t *ranks, int np, int64_t *g,
               int64_t *d);
int tsum_factors(psk_merged *m, mbuf *out);
/* every rank's times from a TSUM payload (after the RANK sections, which
 * give the ranks' event counts): 0, -1 malformed, -2 out of memory */
int tsum_decode(psk_merged *m, const uint8_t *p, const uint8_t *end, int version);

/* ---- one rank's events as the merge reads them (merge_rstream.c) ---- */

typedef struct rstream rstream;
/* *out is set unless memory ran out (then NULL): its reader names the
 * file in an error. pool (or NULL) caps the rank files open at once. */
int rstream_open(psk_trace *t, int rank, int keep_polls, psk_rank_pool *pool, rstream **out);
const psk_rank_reader *rstream_reader(const rstream *s);
/* PSK_OK and the next event (runs of polls gathered unless keep_polls):
 * its encoded bytes, decoded form and gap, valid until the next call;
 * PSK_EOF at the end, PSK_ENOMEM, or the reader's error */
int rstream_next(rstream *s, const uint8_t **bytes, size_t *len, psk_event *ev, int64_t *gap);
void rstream_close(rstream *s); /* NULL is fine */

int merge_load(mctx *x);          /* merge_load.c: reads every rank */
/* the id in x->keys of key bytes, its loose form and null flag recorded
 * when new; -1 out of memory */
int64_t merge_key_id(mctx *x, const uint8_t *key, size_t len);
void merge_order(mctx *x, int r); /* merge_order.c: Algorithm 1 on rank r */
int merge_align(mctx *x);         /* merge_align.c: aligns the ranks, emits the merged events */
/* the event at normalised position k of rank r */
static inline uint64_t rs_index(const rstore *s, uint64_t k) { return s->perm ? s->perm[k] : k; }

/* fields that must be equal for two ranks' events to merge (with peers
 * compared as ranks relative to the communicator) */
#define MERGE_KEY_FIELDS                                                       \
    ((1u << PSK_F_COMM) | (1u << PSK_F_PEER) | (1u << PSK_F_TAG) |             \
     (1u << PSK_F_DTSIZE) | (1u << PSK_F_RPEER) | (1u << PSK_F_RTAG) |         \
     (1u << PSK_F_RDTSIZE) | (1u << PSK_F_ROOT) | (1u << PSK_F_OP))

/* Collectives are called by every rank of the communicator in the same
 * order (MPI requires it), so the call, communicator, root and op match
 * them; datatypes may differ between ranks, and some arguments count only
 * at the root. */
#define MERGE_KEY_COLL ((1u << PSK_F_COMM) | (1u << PSK_F_ROOT) | (1u << PSK_F_OP))
static inline uint32_t merge_key_fields(unsigned fn)
{
    int c = psk_fn_class(fn);
    return c == PSK_CLASS_COLL || c == PSK_CLASS_ICOLL ? MERGE_KEY_COLL : MERGE_KEY_FIELDS;
}

/* ---- the streaming merge (merge_stream.c): per-rank cursors pulling
 * events at emission (merge_pull.c), the file written as it goes
 * (merge_spool.c) ---- */

typedef struct puller puller;
/* perm and n: per rank, its normalised order (or NULL) and event count;
 * both must outlive the puller */
int puller_new(psk_trace *t, int P, int keep_polls, const uint32_t *const *perm, const uint64_t *n, puller **out);
/* the event at normalised position k of rank r, asked for in order */
int puller_get(puller *pl, int r, uint64_t k, psk_event *ev, int64_t *gap, mevent_store *st);
const char *puller_errmsg(const puller *pl);
void puller_free(puller *pl);

typedef struct spool spool;
int spool_open(const char *path, int P, spool **out); /* on failure *out names the problem */
/* after each merged event: writes out what m holds past a few buffers */
int spool_drain(spool *sp, psk_merged *m, const int32_t *parts, int np);
/* the whole file, once the merge is done (m's ranks' n and mono_start set) */
int spool_finish(spool *sp, psk_merged *m, const uint32_t *const *perm);
uint64_t spool_events(const spool *sp);
const char *spool_errmsg(const spool *sp);
void spool_close(spool *sp); /* removes the file if not finished; NULL is fine */

#endif
