/* The libFuzzer targets' inputs replayed without libFuzzer, in the normal
 * and the sanitizer builds (the ctest tests unit.fuzz.*): every file under
 * the directories or files given is one input. Regression inputs found by
 * bench/fuzz.sh live in tests/fuzz/regress/TARGET. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int one(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (int c; (c = getc(f)) != EOF;) {
        if (n == cap) {
            uint8_t *b = realloc(buf, cap = cap ? 2 * cap : 4096);
            if (!b)
                abort();
            buf = b;
        }
        buf[n++] = (uint8_t)c;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf ? buf : (const uint8_t *)"", n);
    free(buf);
    printf("ok   %s\n", path);
    return 0;
}

int main(int argc, char **argv)
{
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb)) {
            perror(argv[i]);
            bad = 1;
        } else if (S_ISDIR(sb.st_mode)) {
            DIR *d = opendir(argv[i]);
            for (struct dirent *e; d && (e = readdir(d));) {
                if (e->d_name[0] == '.')
                    continue;
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
                bad |= one(path);
            }
            if (d)
                closedir(d);
        } else {
            bad |= one(argv[i]);
        }
    }
    return bad;
}
