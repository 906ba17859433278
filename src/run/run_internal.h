/* Shared by the files of src/run (not installed): finding programs on
 * PATH and along their symlinks, what a program prints, the monotonic
 * clock, srun's --export. Paths are PATH_MAX bytes unless a cap says. */
#ifndef PSK_RUN_INTERNAL_H
#define PSK_RUN_INTERNAL_H

#include <stddef.h>

#include "perfskel/run.h"

/* the part of path after its last '/' */
const char *xrun_base_name(const char *path);
/* cur (a path in a buffer of cap bytes) becomes the target of its symbolic
 * link, a relative one taken from cur's directory: 1, or 0 if cur is no
 * link (or the target does not fit) */
int xrun_follow_link(char *cur, size_t cap);
/* where execvp finds prog: prog itself if it holds a '/', else the first
 * executable file of that name in PATH, symlinks kept; NULL if none */
char *xrun_path_lookup(const char *prog, char *out, size_t cap);
/* the full path of prog (as given, or found on PATH), symlinks resolved
 * (out: PATH_MAX bytes), or NULL */
char *xrun_which(const char *prog, char *out, size_t cap);
/* what prog prints on stdout and stderr run with args (at most 6),
 * directly, within 30 s, and its exit status (if status); malloc'd, NULL
 * if it could not run */
char *xrun_output_of(const char *prog, const char *const *args, int nargs, int *status);
/* "--export=ALL,LD_PRELOAD=preload" (malloc'd) when cmd is srun without an
 * --export or SLURM_EXPORT_ENV of the user's, so that the tasks get the
 * preload and srun itself does not; NULL otherwise */
char *xrun_srun_export(char **cmd, int ncmd, const char *preload);
/* seconds on the monotonic clock */
double xrun_now(void);

#endif
