/* Fixed-size headers of the trace format, packed and unpacked byte by
 * byte (little-endian whatever the host): see trace_format.h and
 * docs/trace-format.md for the layout. CRC-32 is zlib's (0xEDB88320). */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "trace_format.h"
#include "trace_pack.h"

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

void psk_pack_file_header(uint8_t out[64], const psk_file_header *h)
{
    memset(out, 0, 64);
    memcpy(out, PSK_FILE_MAGIC, 8);
    put16(out + 8, h->version);
    put16(out + 10, h->flavour);
    put32(out + 12, h->flags);
    put64(out + 16, h->job_id);
    put32(out + 24, h->rank);
    put32(out + 28, h->nranks);
    put64(out + 32, (uint64_t)h->clock_offset_ns);
    put64(out + 40, h->mono_start_ns);
    put64(out + 48, h->real_start_ns);
    put32(out + 56, h->clock_cost_ns);
    put32(out + 60, (uint32_t)crc32(0L, out, 60));
}

int psk_unpack_file_header(const uint8_t in[64], psk_file_header *h)
{
    if (memcmp(in, PSK_FILE_MAGIC, 8) != 0)
        return -1;
    if (get32(in + 60) != (uint32_t)crc32(0L, in, 60))
        return -2;
    h->version = get16(in + 8);
    h->flavour = get16(in + 10);
    h->flags = get32(in + 12);
    h->job_id = get64(in + 16);
    h->rank = get32(in + 24);
    h->nranks = get32(in + 28);
    h->clock_offset_ns = (int64_t)get64(in + 32);
    h->mono_start_ns = get64(in + 40);
    h->real_start_ns = get64(in + 48);
    h->clock_cost_ns = get32(in + 56);
    return PSK_FORMAT_VERSION_OK(h->version) ? 0 : -3;
}

void psk_pack_block_header(uint8_t out[32], psk_block_header *h, const uint8_t *payload)
{
    memset(out, 0, 32);
    put32(out, PSK_BLOCK_MAGIC);
    out[4] = h->kind;
    put32(out + 8, h->payload_len);
    put32(out + 12, h->n_events);
    put64(out + 16, h->base_ns);
    put32(out + 24, h->seq);
    uLong c = crc32(0L, out, 28);
    if (h->payload_len)
        c = crc32(c, payload, h->payload_len);
    h->crc = (uint32_t)c;
    put32(out + 28, h->crc);
}

int psk_unpack_block_header(const uint8_t in[32], psk_block_header *h)
{
    if (get32(in) != PSK_BLOCK_MAGIC)
        return -1;
    h->kind = in[4];
    h->payload_len = get32(in + 8);
    h->n_events = get32(in + 12);
    h->base_ns = get64(in + 16);
    h->seq = get32(in + 24);
    h->crc = get32(in + 28);
    return 0;
}

int psk_block_crc_ok(const uint8_t in[32], const uint8_t *payload, uint32_t len)
{
    uLong c = crc32(0L, in, 28);
    if (len)
        c = crc32(c, payload, len);
    return (uint32_t)c == get32(in + 28);
}

void psk_rank_file(char *out, size_t cap, const char *dir, int rank)
{
    snprintf(out, cap, "%s/rank-%06d.psk", dir, rank);
}
