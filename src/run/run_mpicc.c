/* Which mpicc builds the MPI code perfskel compiles (predict's skeleton,
 * calibrate's program): one of the launcher's MPI, found by what it is
 * rather than by Debian's names, so that Spack's or a module system's plain
 * `mpicc` works; and building with it under a watchdog. An mpicc is told by
 * its name and links (mpicc.mpich, opal_wrapper), else by the compile line
 * it shows (`-show`, Open MPI's `--showme`): the mpi.h in its -I directories
 * (OPEN_MPI or MPICH_VERSION defined), or the libraries and paths it names;
 * else by `--showme:version` (Open MPI) or `-v` (MPICH: "mpicc for MPICH
 * version ..."). Nothing is kept between runs. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfskel/common.h"
#include "perfskel/trace.h"
#include "run_internal.h"

#define MPI_H_MAX (1 << 20) /* of an mpi.h, what is searched */
_Static_assert(PSK_RUN_PATH_MAX >= PATH_MAX, "psk_run_mpicc holds any path");

/* the MPI whose mpi.h dir/mpi.h is, 0 if none or not known */
static int header_flavour(const char *dir, size_t n)
{
    char path[PATH_MAX];
    if (!n || snprintf(path, sizeof path, "%.*s/mpi.h", (int)n, dir) >= (int)sizeof path)
        return 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int fl = 0;
    char line[1024];
    for (long seen = 0; !fl && seen < MPI_H_MAX && fgets(line, sizeof line, f); seen += (long)strlen(line)) {
        const char *p = line + strspn(line, " \t");
        if (*p != '#')
            continue;
        p += 1 + strspn(p + 1, " \t");
        if (strncmp(p, "define", 6))
            continue;
        p += 6 + strspn(p + 6, " \t");
        if (!strncmp(p, "OPEN_MPI", 8) && strchr(" \t\n", p[8]))
            fl = PSK_MPI_OPENMPI;
        else if (!strncmp(p, "MPICH_VERSION", 13) && strchr(" \t\n", p[13]))
            fl = PSK_MPI_MPICH;
    }
    fclose(f);
    return fl;
}

/* The MPI of the compile line an mpicc shows: the mpi.h of its -I
 * directories, else the libraries it links and its paths' names */
static int shown_flavour(const char *text)
{
    int fl = 0;
    for (const char *p = text; !fl && *p;) {
        p += strspn(p, " \t\r\n");
        size_t n = strcspn(p, " \t\r\n");
        if (n > 2 && !strncmp(p, "-I", 2))
            fl = header_flavour(p + 2, n - 2);
        else if (n == 2 && !strncmp(p, "-I", 2)) { /* -I DIR */
            const char *d = p + 2 + strspn(p + 2, " \t");
            fl = header_flavour(d, strcspn(d, " \t\r\n"));
        }
        p += n;
    }
    if (fl)
        return fl;
    if (strstr(text, "-lmpich") || strstr(text, "mpich"))
        return PSK_MPI_MPICH;
    if (strstr(text, "openmpi") || strstr(text, "-lopen-"))
        return PSK_MPI_OPENMPI;
    return 0;
}

int psk_run_mpicc_flavour(const char *mpicc, const char **how)
{
    char path[PATH_MAX];
    *how = "its name";
    const char *b = xrun_base_name(mpicc);
    /* its name, then the names along its links (mpicc -> /etc/alternatives/mpi
     * -> mpicc.openmpi -> opal_wrapper); a name that is only "mpicc" says nothing */
    if (strstr(b, "openmpi") || !strncmp(b, "opal_wrapper", 12))
        return PSK_MPI_OPENMPI;
    if (strstr(b, "mpich"))
        return PSK_MPI_MPICH;
    if (!xrun_path_lookup(mpicc, path, sizeof path))
        return 0;
    char cur[PATH_MAX];
    snprintf(cur, sizeof cur, "%s", path);
    for (int hop = 0; hop < 40 && xrun_follow_link(cur, sizeof cur); hop++) {
        *how = "the name its link leads to";
        const char *lb = xrun_base_name(cur);
        if (strstr(lb, "openmpi") || !strncmp(lb, "opal_wrapper", 12))
            return PSK_MPI_OPENMPI;
        if (strstr(lb, "mpich"))
            return PSK_MPI_MPICH;
    }
    /* what it says it runs, then what it says it is; run by the name it
     * was given (Open MPI's wrapper finds its data by that name) */
    static const struct {
        const char *arg, *how;
        int shown;
    } asks[] = {{"-show", "its -show", 1},
                {"--showme", "its --showme", 1},
                {"--showme:version", "its --showme:version", 0},
                {"-v", "its -v", 0}};
    for (size_t k = 0; k < sizeof asks / sizeof *asks; k++) {
        const char *args[] = {asks[k].arg};
        int st;
        char *text = xrun_output_of(path, args, 1, &st);
        if (!text)
            break; /* it does not run */
        int fl = 0;
        if (asks[k].shown)
            fl = st ? 0 : shown_flavour(text); /* not "gcc: error: unrecognized ..." */
        else if (strstr(text, "Open MPI"))
            fl = PSK_MPI_OPENMPI;
        else if (strstr(text, "MPICH"))
            fl = PSK_MPI_MPICH;
        free(text);
        if (fl) {
            *how = asks[k].how;
            return fl;
        }
    }
    *how = NULL;
    return 0;
}

/* the candidate name (or path) as cc, told; 0 if it is not there. With
 * shorten, a path that PATH gives for its base name is run and named by
 * that (messages say mpicc.openmpi, not /usr/bin/mpicc.openmpi). */
static int consider(psk_run_mpicc *cc, const char *name, const char *from, int shorten)
{
    char path[PATH_MAX], again[PATH_MAX];
    if (!xrun_path_lookup(name, path, sizeof path))
        return 0;
    if (shorten && strchr(name, '/') && xrun_path_lookup(xrun_base_name(name), again, sizeof again) &&
        !strcmp(again, path))
        name = xrun_base_name(name);
    snprintf(cc->run, sizeof cc->run, "%s", name);
    snprintf(cc->path, sizeof cc->path, "%s", path);
    cc->from = from;
    cc->flavour = psk_run_mpicc_flavour(path, &cc->how);
    return 1;
}

static int mismatch(const psk_run_mpicc *cc, int flavour, const char *launcher, char *err, size_t errcap)
{
    int user = !strcmp(cc->from, "--mpicc") || !strcmp(cc->from, "$MPICC");
    int same = !strcmp(cc->run, cc->path);
    char where[PATH_MAX + 32];
    snprintf(where, sizeof where, "%s%s%s%s", same ? "" : cc->path, same || !user ? "" : ", ",
             user ? "from " : "", user ? cc->from : "");
    snprintf(err, errcap, "%s%s%s%s is %s but %s is %s; give --mpicc or --mpi", cc->run, *where ? " (" : "", where,
             *where ? ")" : "", psk_run_mpi_title(cc->flavour), xrun_base_name(launcher), psk_run_mpi_title(flavour));
    return PSK_EMISMATCH;
}

int psk_run_mpicc_find(const char *given, int flavour, const char *launcher, psk_run_mpicc *cc, char *err,
                       size_t errcap)
{
    memset(cc, 0, sizeof *cc);
    /* named by the user: used if it is not of another MPI */
    const char *env = getenv("MPICC");
    const char *named = given ? given : env && *env ? env : NULL, *from = given ? "--mpicc" : "$MPICC";
    if (given && !*given) {
        snprintf(err, errcap, "--mpicc takes the path or name of an mpicc, not ''");
        return PSK_EINVAL;
    }
    if (named) {
        if (!consider(cc, named, from, 0)) {
            snprintf(err, errcap, "%s: not found or not executable (from %s)", named, from);
            return PSK_ENOTFOUND;
        }
        if (cc->flavour && cc->flavour != flavour)
            return mismatch(cc, flavour, launcher, err, errcap);
        return PSK_OK;
    }
    /* the one beside the launcher, with its suffix (mpirun.mpich:
     * mpicc.mpich) and without; mpicc on PATH; Debian's name */
    char lpath[PATH_MAX], cand[3][PATH_MAX];
    const char *froms[3] = {"beside the launcher", "on PATH", "Debian's name"};
    int ncand = 0;
    if (xrun_path_lookup(launcher, lpath, sizeof lpath)) {
        const char *b = xrun_base_name(lpath);
        const char *suffix = !strncmp(b, "mpirun", 6) ? b + 6 : !strncmp(b, "mpiexec", 7) ? b + 7 : "";
        int dirlen = (int)(b - lpath);
        if (*suffix && snprintf(cand[ncand], PATH_MAX, "%.*smpicc%s", dirlen, lpath, suffix) < PATH_MAX)
            ncand++;
        if (snprintf(cand[ncand], PATH_MAX, "%.*smpicc", dirlen, lpath) < PATH_MAX)
            ncand++;
    }
    psk_run_mpicc c, first_other = {0}, first_unknown = {0};
    for (int k = 0; k < ncand + 2; k++) {
        char debian[64];
        snprintf(debian, sizeof debian, "mpicc.%s", psk_flavour_name(flavour));
        const char *name = k < ncand ? cand[k] : k == ncand ? "mpicc" : debian;
        if (!consider(&c, name, froms[k < ncand ? 0 : k - ncand + 1], 1))
            continue;
        if (c.flavour == flavour) {
            *cc = c;
            return PSK_OK;
        }
        if (c.flavour && !first_other.from)
            first_other = c;
        if (!c.flavour && !first_unknown.from)
            first_unknown = c;
    }
    if (first_other.from) {
        *cc = first_other;
        return mismatch(cc, flavour, launcher, err, errcap);
    }
    if (first_unknown.from) { /* none tells what it is: the nearest, as a user would */
        *cc = first_unknown;
        return PSK_OK;
    }
    snprintf(err, errcap, "no mpicc of %s found (beside %s, mpicc or mpicc.%s on PATH); give --mpicc or set $MPICC",
             psk_run_mpi_title(flavour), launcher, psk_flavour_name(flavour));
    return PSK_ENOTFOUND;
}

int psk_run_mpicc_build(const psk_run_mpicc *cc, const char *src, const char *bin, const psk_run_build *b, char *err,
                        size_t errcap)
{
    char *mpicc = (char *)cc->run;
    char *plain[] = {mpicc, "-O2", "-o", (char *)bin, (char *)src, NULL};
    /* calibrate's program starts with psk_work's source, which needs uint64_t */
    char *pre[] = {mpicc, "-O2", "-include", "stdint.h", "-o", (char *)bin, (char *)src, NULL};
    FILE *null = fopen("/dev/null", "w");
    /* every line of its stderr held back (an empty string is in each):
     * the compiler's warnings on generated code are noise unless it fails */
    psk_run_opts o = {.limit = b->limit, .out = null, .catch = ""};
    int st = psk_run_watched(b->with_stdint ? pre : plain, &o);
    if (null)
        fclose(null);
    if (!o.signal && (st || o.timed_out) && o.caught && b->say)
        b->say(b->say_arg, o.caught, o.ncaught);
    free(o.caught);
    if (errcap)
        err[0] = 0;
    if (o.signal)
        return PSK_EIO; /* the caller asks psk_run_interrupted */
    if (o.timed_out)
        snprintf(err, errcap, "%s: %s did not finish building it within %g s%s%s%s", src, mpicc, b->limit,
                 b->hint ? " (" : "", b->hint ? b->hint : "", b->hint ? ")" : "");
    else if (st)
        snprintf(err, errcap, "%s: %s could not build it (status %d)", src, mpicc, st);
    return st || o.timed_out ? PSK_EIO : PSK_OK;
}
