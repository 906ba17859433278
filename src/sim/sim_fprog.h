/* The folded program perfskel sim replays with --folded: a merged trace's
 * loop tree, and for each event of it and each rank taking part, the
 * parameters the rank passed (one set if every execution passed the same,
 * else one per execution, shared where equal). A cursor per rank walks the
 * tree and hands out that rank's events in its order (psk_fgaps gives the
 * compute gap recorded before each), the loop intervals it enters and
 * leaves, and
 * where the iterations of the loops that can be skipped begin: the
 * outermost loops (or groups of consecutive loops, one per set of ranks)
 * that every rank takes part in and whose iterations repeat with a period
 * but for tags that follow the index (sim_skip.c decides when to skip). */
#ifndef PSK_SIM_FPROG_H
#define PSK_SIM_FPROG_H

#include <stdint.h>

#include "perfskel/fold.h"
#include "perfskel/merge.h"
#include "perfskel/sim.h"

typedef struct psk_fprog psk_fprog;

typedef struct psk_fgaps psk_fgaps;

/* what else is made of each merged event in the building's pass, in order
 * (sim: the recorded gaps, the call floors' first pass), given its ranks
 * j0..j1-1 at a time (those of me->ev decoded), in order: 0, or an error
 * code with the reason in err (cap bytes) */
typedef int (*psk_fprog_each)(void *arg, const psk_mevent *me, int j0, int j1, char *err, size_t cap);

/* Builds the program of merged trace m (merged without reordering) folded
 * as f, in one pass over the merged events that also hands each to each
 * (NULL: none); no_poll_loops: loops with runs of polls are not candidates (where
 * polls cost time, how many a step makes varies with timing, which the
 * skip's estimate does not follow). On failure returns an error code with
 * the reason in err. progress (if not NULL) is called every 2^16 merged
 * events walked, with their number and the merged trace's length. */
int psk_fprog_build(psk_merged *m, const psk_folded *f, int no_poll_loops, psk_fprog_each each, void *each_arg,
                    psk_fprog **out, char *err, size_t cap,
                    void (*progress)(void *arg, uint64_t done, uint64_t total), void *arg);
void psk_fprog_free(psk_fprog *p); /* NULL is fine */
const psk_folded *psk_fprog_folded(const psk_fprog *p);
int psk_fprog_nranks(const psk_fprog *p);
/* the recorded calls its runs of polls stand for beyond one event each */
uint64_t psk_fprog_poll_calls(const psk_fprog *p);
/* loops that can be skipped (iterations that repeat, every rank; a group
 * of loops counts once), outermost */
int psk_fprog_ncandidates(const psk_fprog *p);
/* the period of candidate cand's iterations (as psk_fcursor_began names
 * it): iterations i and i + period are alike but for tags that follow the
 * index; the largest of any candidate */
int64_t psk_fprog_period(const psk_fprog *p, int32_t cand);
int64_t psk_fprog_max_period(const psk_fprog *p);
/* bytes the program holds (parameter sets, per-rank slots of the tree
 * events, rank sets, patterns), its tree events, those that have a
 * pattern (no per-rank record read by the cursors but the exceptions')
 * and the exceptions: ranks of a pattern's event that read their own */
uint64_t psk_fprog_bytes(const psk_fprog *p);
int psk_fprog_pattern_events(const psk_fprog *p, int *events, uint64_t *exceptions);
/* 1 if a tag that follows the index in candidate cand takes the value tag */
int psk_fprog_tag_follows(const psk_fprog *p, int32_t cand, int64_t tag);
/* A message or receive made by rank q's tree event node, execution *exec,
 * with tag field f (PSK_F_TAG, PSK_F_RTAG): if that is in execution cexec
 * of candidate cand, 1 with *exec and *tag what they are S iterations
 * later (S a multiple of the period); else 0 (made outside the loop). */
int psk_fprog_shift_tag(const psk_fprog *p, int32_t cand, int64_t cexec, int q, int32_t node, int64_t *exec, int f,
                        int64_t S, int64_t *tag);
/* the iteration of such a message or receive if it was made in execution
 * cexec of candidate cand and its tag follows the index; else -1 */
int64_t psk_fprog_follower(const psk_fprog *p, int32_t cand, int64_t cexec, int q, int32_t node, int64_t exec, int f);

typedef struct psk_fcursor psk_fcursor;

/* a mark before the event just handed out: the loop interval `node` is
 * entered (enter = 1) or left; inner: a loop inside the candidate loop the
 * cursor is in */
typedef struct psk_fmark {
    int32_t node;
    int8_t enter, inner;
} psk_fmark;

/* loop_depth: loops up to this depth give marks (0: every loop; -1: none) */
int psk_fcursor_open(const psk_fprog *p, int rank, int loop_depth, psk_fcursor **out);
/* the cursors of ranks 0 .. n-1 (out[q]) in one block, next to one
 * another (in huge pages when it is large): each psk_fcursor_close, then
 * psk_fcursor_block_free(*block) */
int psk_fcursor_open_all(const psk_fprog *p, int n, int loop_depth, psk_fcursor **out, void **block);
void psk_fcursor_block_free(void *block); /* NULL is fine */
/* the cursor of rank q in such a block (no load: for prefetching) */
const psk_fcursor *psk_fcursor_in_block(const void *block, int q);
/* The rank's next event: PSK_OK, PSK_EOF after its last, PSK_ENOMEM. */
int psk_fcursor_next(psk_fcursor *c, psk_event *ev);
/* asks the caches for the cursor's state, which the next
 * psk_fcursor_next reads (a hint: the replay calls it for the rank likely
 * to run next, whose state the other ranks' events have evicted) */
void psk_fcursor_prefetch(const psk_fcursor *c);
/* the marks to apply before the event just handed out */
const psk_fmark *psk_fcursor_marks(const psk_fcursor *c, int *n);
/* If the event just handed out is the rank's first of an iteration of a
 * candidate loop: 1, with the loop's node, which execution of it, the
 * iteration and the loop's count. */
int psk_fcursor_began(const psk_fcursor *c, int32_t *node, int64_t *exec, int64_t *iter, int64_t *count);
/* 1 if the event just handed out is in a candidate loop */
int psk_fcursor_in_candidate(const psk_fcursor *c);
/* the tree event just handed out and its execution (-1: none yet) */
void psk_fcursor_origin(const psk_fcursor *c, int32_t *node, int64_t *exec);
/* Moves the candidate loop the cursor is in S iterations on (the events
 * between are not handed out); the event just handed out moves too:
 * psk_fcursor_reload gives its parameters there. */
void psk_fcursor_skip(psk_fcursor *c, int64_t S);
void psk_fcursor_reload(const psk_fcursor *c, psk_event *ev);
uint64_t psk_fcursor_events(const psk_fcursor *c); /* handed out so far */
uint64_t psk_fcursor_bytes(const psk_fcursor *c);  /* its record and stacks */
void psk_fcursor_close(psk_fcursor *c);            /* NULL is fine */

/* ---- the recorded compute gaps, read as the replay needs them ----
 * Each rank's gaps in the merged order, which is the order its cursor
 * hands out its events in: the gap before its next event is the next one
 * psk_fgaps_next gives, read from the rank's times in the merged trace
 * (which stays open while they are read). Memory: a few bytes for each
 * event whose gap has more to it (a run of polls, a poll that found
 * nothing). */
typedef struct psk_fgap {
    double gap;      /* ns of compute before the event, as recorded (the power is the replay's) */
    double calls;    /* the calls the event stands for (a run of polls: its polls) */
    double failed;   /* of them, polls that found nothing (psk_event_failed_polls) */
} psk_fgap;

/* the gaps of m's ranks, their extras filled by psk_fgaps_add on each
 * merged event in order (in psk_fprog_build's pass; its ranks j0..j1-1, a
 * part at a time, through its windowed cursor), then psk_fgaps_seal
 * (PSK_OK or PSK_ENOMEM) before the replay */
int psk_fgaps_new(psk_merged *m, psk_fgaps **out);
int psk_fgaps_add(psk_fgaps *g, const psk_mevent *me, int j0, int j1);
int psk_fgaps_seal(psk_fgaps *g);
/* rank q's next gap: PSK_OK, PSK_EOF after its last, or PSK_EFORMAT if
 * its times are malformed (psk_fgaps_errmsg) */
int psk_fgaps_next(psk_fgaps *g, int q, psk_fgap *gap);
const char *psk_fgaps_errmsg(const psk_fgaps *g);
/* asks the caches for where rank q's next gap is read from (a hint, as
 * psk_fcursor_prefetch; it loads nothing, so it never waits) */
void psk_fgaps_prefetch(const psk_fgaps *g, int q);
/* and for rank q's next gap itself (reads where it is: for the rank about
 * to run, whose psk_fgaps_prefetch came earlier) */
void psk_fgaps_prefetch_gap(const psk_fgaps *g, int q);
/* bytes of its own (not the merged trace's times) */
uint64_t psk_fgaps_bytes(const psk_fgaps *g);
void psk_fgaps_close(psk_fgaps *g); /* NULL is fine */

#endif
