/* Packing and unpacking the fixed-size headers of the trace format
 * (trace_format.h), shared by the recorder, which writes them, and the
 * reader. Little-endian on disk whatever the host. */
#ifndef PSK_TRACE_PACK_H
#define PSK_TRACE_PACK_H

#include <stddef.h>
#include <stdint.h>

typedef struct psk_file_header {
    uint16_t version, flavour;
    uint32_t flags;
    uint64_t job_id;
    uint32_t rank, nranks;
    int64_t clock_offset_ns;
    uint64_t mono_start_ns, real_start_ns;
    uint32_t clock_cost_ns;
} psk_file_header;

typedef struct psk_block_header {
    uint8_t kind;
    uint32_t payload_len, n_events;
    uint64_t base_ns;
    uint32_t seq, crc;
} psk_block_header;

void psk_pack_file_header(uint8_t out[64], const psk_file_header *h);
/* 0, or -1 bad magic, -2 bad checksum, -3 a version other than 1 to 4
 * (h->version set) */
int psk_unpack_file_header(const uint8_t in[64], psk_file_header *h);
/* packs the header and its CRC over the header and payload */
void psk_pack_block_header(uint8_t out[32], psk_block_header *h, const uint8_t *payload);
/* 0 or -1 bad magic; the CRC is checked by psk_block_crc_ok */
int psk_unpack_block_header(const uint8_t in[32], psk_block_header *h);
int psk_block_crc_ok(const uint8_t in[32], const uint8_t *payload, uint32_t len);
/* rank's file in a trace directory: DIR/rank-NNNNNN.psk */
void psk_rank_file(char *out, size_t cap, const char *dir, int rank);

#endif
