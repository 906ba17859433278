/* Interning byte strings: equal strings get equal dense ids 0, 1, 2, ...
 * in order of first appearance. The merge stage names event signatures,
 * rank sets and classes this way; hashing keeps it linear in the input. */
#ifndef PSK_INTERN_H
#define PSK_INTERN_H

#include <stddef.h>
#include <stdint.h>

typedef struct psk_intern psk_intern;

psk_intern *psk_intern_new(void);
void psk_intern_free(psk_intern *in); /* NULL is fine */
/* The id of key[0..len), added if new (*added set if non-NULL); -1 if
 * memory ran out. */
int64_t psk_intern_id(psk_intern *in, const void *key, size_t len, int *added);
/* The string of an id, valid until the next psk_intern_id. */
const uint8_t *psk_intern_key(const psk_intern *in, uint32_t id, size_t *len);
uint32_t psk_intern_count(const psk_intern *in);

#endif
