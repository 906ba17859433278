/* Test helper: a merged file (format version 4) rewritten in memory with
 * every section's payload stored as it is (coding 0), so that crafted-input
 * tests can edit payloads byte by byte and write them back stored. */
#ifndef PSK_TEST_MERGED_PLAIN_H
#define PSK_TEST_MERGED_PLAIN_H
#include <stddef.h>
#include <stdint.h>

/* little-endian integers of n bytes, as the file's headers hold them */
uint64_t le_get(const uint8_t *p, int n);
void le_put(uint8_t *p, uint64_t v, int n);

/* *p[0..*n) replaced by the same file with plain payloads (a new buffer;
 * the old one freed); 0, or -1 if it does not decode */
int merged_plain(uint8_t **p, size_t *n);

#endif
