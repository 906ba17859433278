/* LEB128 variable-length integers and zigzag mapping, used by the trace
 * format (docs/trace-format.md). Unsigned values take 1 byte below 128,
 * 2 below 16384; signed values are zigzag-mapped first so small negative
 * numbers (MPI_ANY_SOURCE = -1) stay small. Header-only for inlining in the
 * recording library's hot path. */
#ifndef PSK_VARINT_H
#define PSK_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define PSK_VARINT_MAX 10 /* bytes of the longest 64-bit varint */

static inline uint8_t *psk_put_uvar(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline uint64_t psk_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t psk_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline uint8_t *psk_put_svar(uint8_t *p, int64_t v)
{
    return psk_put_uvar(p, psk_zigzag(v));
}

/* Reads one varint from [*pp, end). Returns 0 and advances *pp, or -1 if
 * the data ends inside the varint or it is longer than 10 bytes. */
static inline int psk_get_uvar(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    if (p < end && !(*p & 0x80)) { /* most values fit in one byte */
        *out = *p;
        *pp = p + 1;
        return 0;
    }
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (p >= end)
            return -1;
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *pp = p;
            *out = v;
            return 0;
        }
    }
    return -1;
}

/* The same without bounds checks, for a caller that knows at least
 * PSK_VARINT_MAX bytes can be read at p: returns the byte after the
 * varint, or NULL if it is longer than 10 bytes (as psk_get_uvar fails). */
static inline const uint8_t *psk_get_uvar_unchecked(const uint8_t *p, uint64_t *out)
{
    uint64_t b = p[0];
    if (b < 0x80) {
        *out = b;
        return p + 1;
    }
    uint64_t v = b & 0x7f;
    for (unsigned k = 1; k < PSK_VARINT_MAX; k++) {
        b = p[k];
        v |= (b & 0x7f) << (7 * k);
        if (b < 0x80) {
            *out = v;
            return p + k + 1;
        }
    }
    return NULL;
}

static inline int psk_get_svar(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
    uint64_t u;
    if (psk_get_uvar(pp, end, &u))
        return -1;
    *out = psk_unzigzag(u);
    return 0;
}

#endif
