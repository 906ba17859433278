/* perfskel merged traces: the events of every rank of a job in one
 * sequence. Each merged event says which ranks take part and gives
 * every parameter as a per-rank pattern: one value for all ranks, an offset
 * from the rank within its communicator, or a table. Events with equal
 * signatures share a class, the symbol the fold stage works on. Per rank it
 * keeps the compute gap before each event and the time inside it, and the
 * order the rank made its calls in, so expanding the merged trace for rank r
 * gives back exactly rank r's events. */
#ifndef PERFSKEL_MERGE_H
#define PERFSKEL_MERGE_H

#include <stdint.h>
#include <stdio.h>

#include "perfskel/trace.h"

typedef struct psk_merged psk_merged;

typedef struct psk_merge_opts {
    int window;     /* M: a stretch between world collectives too hard to
                       align whole is aligned 16 M calls at a time (default 64) */
    int no_reorder; /* 1: skip Algorithm 1 (sends before receives) */
    int keep_polls; /* 1: every test call its own event; else a run of
                       polls is one (trace.h, psk_fn_poll; docs/folding.md) */
    int times_summary; /* 1: the file keeps summarised times (see
                          psk_merged_summarize_times) */
    /* progress on long merges, or NULL: done and total rank events */
    void (*progress)(void *arg, uint64_t done, uint64_t total);
    void *progress_arg;
} psk_merge_opts;

/* Merges every rank of the open trace t. On failure *out is still set
 * (unless memory ran out) so psk_merged_errmsg() names the file. A rank
 * whose file is truncated fails the merge: merging needs complete ranks. */
int psk_merge(psk_trace *t, const psk_merge_opts *opts, psk_merged **out);
const char *psk_merged_errmsg(const psk_merged *m);

/* What psk_merge_file did, or why it failed. */
typedef struct psk_merge_result {
    int nranks;
    uint64_t events;        /* rank events merged (runs of polls as one) */
    uint64_t merged_events;
    uint32_t classes;
    char err[4608];         /* names the file and the problem on failure */
} psk_merge_result;

/* Merges every rank of the open trace t straight into the merged-trace
 * file at path: the same bytes as psk_merge then psk_merged_write, but
 * without holding every rank's events. It keeps each distinct key
 * sequence (and call order) once, however many ranks share it, aligns on
 * those, then reads the ranks again, a block at a time, while writing the
 * merged events (with temporary files beside path, removed at the end).
 * On failure path is removed. */
int psk_merge_file(psk_trace *t, const psk_merge_opts *opts, const char *path, psk_merge_result *res);

/* The same merge spread over processes (perfskel merge --mpi): each loads
 * a slice of the ranks into a part (their distinct key sequences and call
 * orders, as psk_merge_file keeps them), packs it and sends it up a tree;
 * a parent absorbs its children's parts; the part holding every rank
 * writes the file, reading the rank files again: the same bytes as
 * psk_merge_file. Errors: psk_merge_part_errmsg (NULL part: out of memory). */
typedef struct psk_merge_part psk_merge_part;
int psk_merge_part_load(psk_trace *t, const psk_merge_opts *opts, int first, int count, psk_merge_part **out);
int psk_merge_part_pack(const psk_merge_part *p, uint8_t **buf, size_t *len); /* *buf: free() it */
int psk_merge_part_absorb(psk_merge_part *p, const uint8_t *buf, size_t len);
int psk_merge_part_write(psk_merge_part *p, const char *path, psk_merge_result *res);
const char *psk_merge_part_errmsg(const psk_merge_part *p);
void psk_merge_part_free(psk_merge_part *p); /* NULL is fine */
void psk_merged_close(psk_merged *m); /* NULL is fine */

/* The merged-trace file (docs/merged-format.md): written and read whole. */
int psk_merged_write(psk_merged *m, const char *path);
int psk_merged_read(const char *path, psk_merged **out);
/* Times summarised (merge --times mean): psk_merged_write then keeps per
 * merged event the mean gap and duration over its ranks and per rank one
 * factor on its gaps, not every rank's times, so the file's size does not
 * grow with the ranks (lossy: reading it back gives each rank synthetic
 * times from the means). Set on a trace read from such a file. */
void psk_merged_summarize_times(psk_merged *m);
int psk_merged_times_summarized(const psk_merged *m);
/* 1 if path starts like a merged-trace file */
int psk_merged_is_file(const char *path);

const psk_job *psk_merged_job(const psk_merged *m);
int psk_merged_nranks(const psk_merged *m);
uint64_t psk_merged_length(const psk_merged *m);        /* merged events */
uint64_t psk_merged_rank_events(const psk_merged *m, int rank);
uint64_t psk_merged_rank_start(const psk_merged *m, int rank); /* as psk_rank_mono_start */
/* rank's times in merged order (*len bytes; for each of its events, a
 * zigzag varint of the compute gap before it in ns, then a varint of its
 * duration), as a cursor reads them: psk_mevent.tat says where each
 * event's are. Valid while m is open. */
const uint8_t *psk_merged_rank_times(const psk_merged *m, int rank, size_t *len);
/* How many threads made rank's calls (trace format 4: the thread of each
 * call is kept, psk_event.thread); 1 when the trace did not record it */
int psk_merged_rank_threads(const psk_merged *m, int rank);
/* 1 if Algorithm 1 changed rank's order in the merged sequence */
int psk_merged_rank_reordered(const psk_merged *m, int rank);
uint32_t psk_merged_nclasses(const psk_merged *m);
const uint32_t *psk_merged_classes(const psk_merged *m); /* class of each merged event */
unsigned psk_merged_class_fn(const psk_merged *m, uint32_t cls);
/* Ranks taking part in events of class cls, ascending. */
const int32_t *psk_merged_class_ranks(const psk_merged *m, uint32_t cls, int *n);
/* Merged event i's own encoded patterns (those its class does not hold):
 * two events of one class whose patterns are the same bytes give each
 * rank the same values wherever its communicators are the same. NULL if
 * there is no event i. */
const uint8_t *psk_merged_event_patterns(const psk_merged *m, uint64_t i, size_t *len);
/* One line describing class cls: "MPI_Isend comm=0 peer=rank+1 tag=7". */
void psk_merged_class_desc(const psk_merged *m, uint32_t cls, char *buf, size_t cap);

/* ---- walking the merged events in order ---- */

enum psk_pattern_kind {
    PSK_PAT_CONST = 0, /* one value for every taking part rank */
    PSK_PAT_RANK = 1,  /* rank in the communicator + c; for peers PROC_NULL outside it */
    PSK_PAT_RING = 2,  /* (rank in the communicator + c) mod its size */
    PSK_PAT_TABLE = 3  /* one value per taking part rank */
};
const char *psk_pattern_name(int kind);

typedef struct psk_mevent {
    uint64_t index;        /* position in the merged sequence */
    uint32_t cls;
    unsigned fn;
    uint32_t fields;       /* psk_fn_fields(fn) */
    int nranks;            /* ranks taking part */
    const int32_t *ranks;  /* ascending */
    /* per field, the pattern that encodes it (arrays: CONST or TABLE) */
    uint8_t kind[PSK_F_NFIELDS];
    int64_t c[PSK_F_FIRST_ARRAY]; /* the constant or offset of CONST/RANK/RING */
    /* per taking part rank j, at j & jmask: its own event, decoded (t_entry
     * and t_exit on that rank's clock); valid until the next
     * psk_mcursor_next. jmask is ~0 (every rank's at once) unless the
     * cursor is windowed (psk_mcursor_window). */
    const psk_event *ev;
    const uint64_t *gap;   /* compute time before the event on rank j (ns) */
    const uint8_t *const *tat; /* where rank j's times of the event begin in psk_merged_rank_times */
    uint32_t jmask;
} psk_mevent;

typedef struct psk_mcursor psk_mcursor;
int psk_mcursor_open(psk_merged *m, psk_mcursor **out);
/* PSK_OK and the next merged event, or PSK_EOF */
int psk_mcursor_next(psk_mcursor *c, psk_mevent *ev);
/* The same in parts, so that a pass over many ranks can use each rank's
 * event while it is in the caches: psk_mcursor_head gives the next merged
 * event's header (all but ev[] and gap[]), then psk_mcursor_fill(c, j1)
 * decodes its ranks up to j1 (exclusive, from where the last call left
 * off) into ev[] and gap[]. The next psk_mcursor_head decodes the ranks
 * left, if any. */
int psk_mcursor_head(psk_mcursor *c, psk_mevent *ev);
int psk_mcursor_fill(psk_mcursor *c, int j1);
/* ranks psk_mcursor_fill decodes together (some 20 KB of their events): a
 * pass that fills and uses this many at a time finds them in the caches */
#define PSK_MCURSOR_CHUNK 64
/* From now on (before the first psk_mcursor_head) the cursor keeps only
 * the ranks of the chunk it decoded last, j from a multiple of
 * PSK_MCURSOR_CHUNK up to the next, at j & jmask (PSK_MCURSOR_CHUNK - 1):
 * at many ranks, a pass that fills at most up to the next multiple at a
 * time writes 20 KB of events again and again instead of some 300 bytes
 * per rank of each merged event, which would push the ranks' own data
 * out of the caches. */
void psk_mcursor_window(psk_mcursor *c);
void psk_mcursor_close(psk_mcursor *c);

/* Rank r's events in the order it made them, rebuilt from the merged trace
 * (the round trip of expand(merge(t)) == t). Calls fn for each; stops and
 * returns fn's value if it is not 0. */
int psk_merged_expand(psk_merged *m, int rank,
                      int (*fn)(void *arg, const psk_event *ev), void *arg);

#endif
