/* Test helper (merged_plain.h): every section of a version-4 merged file
 * with its payload decompressed and stored (coding 0), CRCs recomputed. */
#include "merged_plain.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

uint64_t le_get(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

void le_put(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

int merged_plain(uint8_t **pp, size_t *pn)
{
    const uint8_t *in = *pp;
    size_t n = *pn, cap = n + 64, len = 9;
    if (n < 9 || in[8] < 4)
        return -1;
    uint8_t *out = malloc(cap);
    if (!out)
        return -1;
    memcpy(out, in, 9);
    for (size_t at = 9; at + 12 <= n;) {
        uint64_t sl = le_get(in + at + 4, 8);
        if (sl > n - at - 16)
            return free(out), -1;
        const uint8_t *pl = in + at + 12;
        unsigned long long plain = sl ? sl - 1 : 0;
        if (sl && pl[0] == 1 && (plain = ZSTD_getFrameContentSize(pl + 1, sl - 1)) > (1ull << 32))
            return free(out), -1;
        size_t need = len + 12 + 1 + (size_t)plain + 4;
        if (need > cap) {
            uint8_t *q = realloc(out, cap = 2 * need);
            if (!q)
                return free(out), -1;
            out = q;
        }
        uint8_t *h = out + len, *body = h + 13;
        memcpy(h, in + at, 4);
        le_put(h + 4, sl ? plain + 1 : 0, 8);
        h[12] = 0;
        if (sl && pl[0] == 1) {
            if (ZSTD_decompress(body, (size_t)plain, pl + 1, sl - 1) != plain)
                return free(out), -1;
        } else if (sl)
            memcpy(body, pl + 1, (size_t)plain);
        size_t bl = sl ? 1 + (size_t)plain : 0;
        le_put(out + len + 12 + bl, crc32(crc32(0L, Z_NULL, 0), h + 12, (uInt)bl), 4);
        len += 12 + bl + 4;
        at += 12 + sl + 4;
    }
    free(*pp);
    *pp = out;
    *pn = len;
    return 0;
}
