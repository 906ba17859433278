/* zstd_blocks: what compressing trace blocks costs and saves (`perfskel
 * record --zstd`, PSK_ZSTD=LEVEL; docs/trace-format.md kind 3). Reads the
 * uncompressed event blocks of every rank file of a trace directory and
 * compresses each payload as the recorder does (ZSTD_compressCCtx, one
 * frame a block), at each level given; prints per level the size against
 * the raw payloads and the time per event and per MB (the recorder pays
 * it once a block, about 64 KiB, in the call that fills it), and the time
 * to decompress them back (what every reader pays).
 *
 * usage: zstd_blocks DIR [LEVEL...]   (default levels: 1 3 9 19) */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct blk {
    const uint8_t *p;
    size_t n;
    uint32_t nev;
} blk;

static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: zstd_blocks DIR [LEVEL...]\n");
        return 2;
    }
    DIR *d = opendir(argv[1]);
    if (!d) {
        perror(argv[1]);
        return 1;
    }
    blk *b = NULL;
    size_t nb = 0, cap = 0, raw = 0, maxn = 0;
    uint64_t events = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "rank-", 5))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *all = malloc((size_t)len);
        if (!all || fread(all, 1, (size_t)len, f) != (size_t)len) {
            fprintf(stderr, "%s: cannot read\n", path);
            return 1;
        }
        fclose(f);
        for (size_t at = 64; at + 32 <= (size_t)len;) {
            uint32_t n = get32(all + at + 8), nev = get32(all + at + 12);
            if (at + 32 + n > (size_t)len)
                break;
            if (all[at + 4] == 3) {
                fprintf(stderr, "%s: already compressed (record without --zstd)\n", path);
                return 1;
            }
            if (all[at + 4] == 1 && n) {
                if (nb == cap && !(b = realloc(b, (cap = cap * 2 + 64) * sizeof *b)))
                    return 1;
                b[nb++] = (blk){all + at + 32, n, nev};
                raw += n, events += nev, maxn = n > maxn ? n : maxn;
            }
            at += 32 + n;
        }
    }
    closedir(d);
    if (!nb) {
        fprintf(stderr, "%s: no event blocks\n", argv[1]);
        return 1;
    }
    static const int deflt[] = {1, 3, 9, 19};
    int nl = argc > 2 ? argc - 2 : 4;
    size_t zcap = ZSTD_compressBound(maxn);
    uint8_t *z = malloc(zcap * nb), *back = malloc(maxn);
    size_t *zl = malloc(nb * sizeof *zl);
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    if (!z || !back || !zl || !c || !dc)
        return 1;
    printf("%s: %zu blocks, %llu events, %.2f MB of event payloads (%.1f bytes an event)\n", argv[1], nb,
           (unsigned long long)events, (double)raw / 1e6, (double)raw / (double)events);
    printf("| level | compressed | ratio | compress ns/event | compress MB/s | decompress ns/event |\n");
    printf("|---|---|---|---|---|---|\n");
    for (int k = 0; k < nl; k++) {
        int level = argc > 2 ? atoi(argv[2 + k]) : deflt[k];
        size_t tot = 0;
        double t0 = now();
        for (size_t i = 0; i < nb; i++) {
            zl[i] = ZSTD_compressCCtx(c, z + i * zcap, zcap, b[i].p, b[i].n, level);
            if (ZSTD_isError(zl[i]))
                return fprintf(stderr, "compress: %s\n", ZSTD_getErrorName(zl[i])), 1;
            tot += zl[i] < b[i].n ? zl[i] : b[i].n; /* the recorder keeps the smaller */
        }
        double t1 = now();
        for (size_t i = 0; i < nb; i++) {
            size_t r = ZSTD_decompressDCtx(dc, back, maxn, z + i * zcap, zl[i]);
            if (ZSTD_isError(r) || r != b[i].n || memcmp(back, b[i].p, r))
                return fprintf(stderr, "block %zu does not come back\n", i), 1;
        }
        double t2 = now();
        printf("| %d | %.2f MB | %.2f | %.0f | %.0f | %.0f |\n", level, (double)tot / 1e6, (double)raw / (double)tot,
               1e9 * (t1 - t0) / (double)events, (double)raw / 1e6 / (t1 - t0), 1e9 * (t2 - t1) / (double)events);
    }
    return 0;
}
