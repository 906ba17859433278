/* Writing synthetic perfskel traces for the unit tests: an encoder written
 * from docs/trace-format.md independently of the recording library, plus
 * random events and event comparison. Test code only. */
#ifndef PSK_SYNTH_TRACE_H
#define PSK_SYNTH_TRACE_H

#include <stdint.h>

#include "perfskel/trace.h"

typedef struct synth_rank synth_rank;

/* job.json of a trace with nranks ranks, job id and format version */
void synth_job(const char *dir, uint64_t job_id, int nranks, int version);
/* starts dir/rank-NNNNNN.psk with a file header */
synth_rank *synth_rank_open(const char *dir, int rank, int nranks, uint64_t job_id,
                            int version, uint64_t mono_start);
/* the same with the file header's flags (version 4: 1, each event ends
 * with its thread) */
synth_rank *synth_rank_open_flags(const char *dir, int rank, int nranks, uint64_t job_id,
                                  int version, uint64_t mono_start, uint32_t flags);
/* appends ev (absolute t_entry/t_exit, fields from psk_fn_fields, in a
 * version-2 file the arm of a tuned collective, and with flag 1 its
 * thread) to the open block */
void synth_event(synth_rank *s, const psk_event *ev);
/* writes the open block, if it holds events */
void synth_flush(synth_rank *s);
/* the next block's time base moved by ns (a block from elsewhere): its
 * events keep their times relative to the event before them */
void synth_shift_base(synth_rank *s, int64_t ns);
/* the next block numbered one past its place (a block lost) */
void synth_skip_seq(synth_rank *s);
/* the same, as a zstd-compressed block (PSK_BLOCK_ZEVENTS) */
void synth_zflush(synth_rank *s);
/* writes the END block counting `total` events; then closes */
void synth_end(synth_rank *s, uint64_t total);
void synth_close(synth_rank *s);
uint64_t synth_events(const synth_rank *s); /* events appended so far */

/* Random events: fn among the recorded functions, every field it carries
 * filled with a random value (arrays of 0..6 elements), times increasing
 * from *clock. Array storage is owned by the caller (one per event). */
typedef struct synth_store {
    int64_t a[PSK_F_NFIELDS - PSK_F_FIRST_ARRAY][18];
} synth_store;
void synth_random_event(uint64_t *rng, uint64_t *clock, psk_event *ev, synth_store *st);
/* 1 if the two events carry the same function, times, field values and arm */
int synth_event_equal(const psk_event *a, const psk_event *b);

/* the next value of a xorshift generator whose state (not 0) is *x */
uint64_t synth_next(uint64_t *x);

/* a fresh empty directory under $TMPDIR (or /tmp); the caller frees it */
char *synth_tempdir(void);
void synth_rmdir(const char *dir);

#endif
