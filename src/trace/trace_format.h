/* The on-disk trace format, versions 1 to 4 (docs/trace-format.md says it
 * in prose). Version 2 is version 1 plus, at the end of each event of a
 * function the tuning library takes over (psk_fn_info.tuned), a uvar arm:
 * 0 not known, else 1 + the arm's number in include/perfskel/coll.h.
 * Version 3 is version 2 (an arm always, 0 without the tuning library)
 * plus the fields PSK_FIELDS_V3: MPI_Cart_create's dims and periods, and
 * the new MPI_Dims_create. Version 4 is version 3 plus the thread that
 * made each call: in a rank file whose header flags PSK_FILE_THREADS, every
 * event ends (after its arm, if any) with a uvar thread number, 0 for the
 * thread that initialised MPI, then 1, 2, ... in the order threads first
 * made a call. The recorder writes 4.
 * A trace is a directory: job.json (written by rank 0) and rank-NNNNNN.psk,
 * one per rank. A rank file is a 64-byte header followed by blocks; each
 * block is a 32-byte header, then varint-encoded events, covered by a CRC-32.
 * A block is written whole with one write(), so a rank killed mid-run leaves
 * every block before the one it was filling intact. All integers little-endian. */
#ifndef PSK_TRACE_FORMAT_H
#define PSK_TRACE_FORMAT_H

#include <stdint.h>

#include "perfskel/trace.h"

#define PSK_FILE_MAGIC "PSKTRACE"   /* 8 bytes, no NUL on disk */
#define PSK_FORMAT_VERSION 1      /* no arms */
#define PSK_FORMAT_VERSION_ARMS 2 /* tuned collectives carry their arm */
#define PSK_FORMAT_VERSION_CART 3 /* and Cart_create its grid; Dims_create */
#define PSK_FORMAT_VERSION_LATEST PSK_FORMAT_VERSION_THREADS /* (trace.h) */
#define PSK_FORMAT_VERSION_OK(v) ((v) >= PSK_FORMAT_VERSION && (v) <= PSK_FORMAT_VERSION_LATEST)
#define PSK_FILE_HEADER_SIZE 64
#define PSK_BLOCK_MAGIC 0x424b5350u /* "PSKB" */
#define PSK_BLOCK_HEADER_SIZE 32
#define PSK_BLOCK_TARGET (64 * 1024) /* payload bytes before a flush */
#define PSK_BLOCK_MAX (256u << 20)   /* a reader rejects larger payloads */
/* file header flags (version 4; 0 before) */
#define PSK_FILE_THREADS 1u          /* each event ends with its thread number */
#define PSK_FILE_FLAGS_KNOWN PSK_FILE_THREADS

enum psk_block_kind {
    PSK_BLOCK_EVENTS = 1, /* payload: events */
    PSK_BLOCK_END = 2,    /* last block of a rank that reached MPI_Finalize;
                             payload: uvar total events, svar clock offset at end */
    PSK_BLOCK_ZEVENTS = 3 /* payload: one zstd frame holding an events payload
                             (its content size in the frame header) */
};



/* File header, 64 bytes:
 *   0  char[8] magic        8  u16 version   10 u16 flavour  12 u32 flags
 *  16  u64 job_id          24  u32 rank      28 u32 nranks
 *  32  i64 clock_offset_ns (this rank's monotonic clock minus rank 0's)
 *  40  u64 mono_start_ns   48  u64 real_start_ns (CLOCK_REALTIME)
 *  56  u32 clock_cost_ns (one clock read)   60 u32 crc32 of bytes 0..59
 * Block header, 32 bytes:
 *   0  u32 magic   4 u8 kind   5 u8[3] zero   8 u32 payload_len
 *  12  u32 n_events  16 u64 base_ns (exit time of the event before the
 *  block's first, or mono_start_ns)  24 u32 seq (0, 1, 2, ... per rank)
 *  28  u32 crc32 of bytes 0..27 followed by the payload. */

/* Event encoding: uvar fn, svar gap_ns (entry minus the previous event's
 * exit), uvar dur_ns (exit minus entry), then the fields of
 * psk_fn_table[fn].fields in bit order: scalars as varints (u = unsigned,
 * s = zigzag), arrays as uvar length then the values. */

/* Generated from src/record/mpi_functions.def (the one table). */
typedef struct psk_fn_info {
    const char *name;   /* "MPI_Send" */
    uint32_t fields;    /* bit i set = field i present */
    uint8_t cls;        /* enum psk_fn_class */
    uint8_t bytes_rule; /* how stats counts bytes, enum psk_bytes_rule */
    uint8_t poll_of;    /* a run of polls (made by merging): the call polled; else 0 */
    uint8_t tuned;      /* taken over by libperfskel-tune: carries an arm in version 2 */
    uint8_t makes_comm; /* its NEWID and MEMBERS are a new communicator's (not a group's) */
    uint8_t frees;      /* frees a communicator or a group */
    uint8_t sync;       /* a send in synchronous mode (flag sync) */
    uint8_t poll;       /* a call that can be polled: its poll function; else 0 */
    uint8_t poll_wait;  /* the same: the call of the blocking op that ends a run of its polls */
    uint8_t op;         /* enum psk_fn_op */
    int8_t coll;        /* enum psk_coll, or -1 */
    uint8_t form;       /* enum psk_fn_form */
} psk_fn_info;

enum psk_bytes_rule {
    PSK_BYTES_NONE, PSK_BYTES_SEND, PSK_BYTES_RECV, PSK_BYTES_SENDRECV,
    PSK_BYTES_COLL
};

extern const psk_fn_info psk_fn_table[];

/* the fields an event of fn carries in a file of format version v */
static inline uint32_t psk_fn_fields_v(unsigned fn, int v)
{
    uint32_t f = psk_fn_table[fn].fields;
    return v >= PSK_FORMAT_VERSION_CART ? f : f & ~PSK_FIELDS_V3;
}
/* psk_event_encode with the fields given (a file of an older version) */
uint8_t *psk_event_encode_fields(uint8_t *out, const psk_event *ev, int64_t gap, uint32_t fields);
extern const unsigned psk_fn_count_; /* table size: ids are 1..psk_fn_count_-1 */

#endif
