/* What the libFuzzer targets share: a private directory for the files an
 * input becomes (the readers take paths), and the stages that run on what
 * a reader accepted, as the CLI runs them (fold, the statistics, gen into
 * /dev/null, sim full or folded on the default machine): a crash, a
 * sanitizer report, a hang or a huge allocation anywhere there is a
 * finding. Each target is one file of tests/fuzz; bench/fuzz.sh builds and
 * runs them. */
#ifndef PSK_FUZZ_COMMON_H
#define PSK_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "perfskel/fold.h"
#include "perfskel/merge.h"

/* the target's own directory (made once, under TMPDIR) */
const char *fuzz_dir(void);
/* data[0..n) written to the file name of fuzz_dir(); its path */
const char *fuzz_file(const char *name, const uint8_t *data, size_t n);
/* an input of several files: the pieces between the 8 bytes "\0PSKFILE"
 * (bench/fuzz.sh joins a directory's files so), at most max of them into
 * p[] (a separator at the end leaves an empty last piece); their number */
typedef struct fuzz_piece {
    const uint8_t *data;
    size_t n;
} fuzz_piece;
int fuzz_split(const uint8_t *data, size_t size, fuzz_piece *p, int max);
/* every stage after the merge: fold, statistics, gen, sim --folded */
void fuzz_after_merge(psk_merged *m);

#endif
