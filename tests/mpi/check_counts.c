/*
 * check_counts EXPECT_FILE STATS_JSON
 *
 * Compares the MPI call counts a test program says it made with what the
 * perfskel recorder saw.
 *
 * EXPECT_FILE is the stdout of a test program; only its lines of the form
 *     expect <rank> <MPI_Function_name> <count>
 * are used (other lines are ignored).  STATS_JSON is the output of
 * `perfskel stats DIR --json`: one JSON object with
 *     "ranks": [{"rank": 0, "calls": {"MPI_Send": 1600, ...}}, ...]
 * (one entry per rank; functions never called may be absent or 0).
 *
 * Exit 0 if the number of ranks matches and, for every rank, the functions
 * with a nonzero count and their counts are exactly the expected ones.
 * Otherwise print every difference to stderr, e.g.
 *     rank 1: MPI_Send expected 40 recorded 38
 * and exit 1 (also on unreadable or malformed input).
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAME 128

struct entry {
    long rank;
    char name[MAX_NAME];
    long long count;
    int seen; /* matched by a recorded entry */
};

static struct entry *entries;
static size_t n_entries, cap_entries;

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "check_counts: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static struct entry *find_entry(long rank, const char *name)
{
    for (size_t i = 0; i < n_entries; i++)
        if (entries[i].rank == rank && strcmp(entries[i].name, name) == 0)
            return &entries[i];
    return NULL;
}

/* Reads the expect lines; returns the number of ranks (max rank + 1). */
static long read_expect(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open %s: %s", path, strerror(errno));
    char line[1024];
    long lineno = 0, nranks = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (strncmp(line, "expect ", 7) != 0) continue;
        long rank;
        long long count;
        char name[MAX_NAME], extra[2];
        if (sscanf(line + 7, "%ld %127s %lld %1s", &rank, name, &count,
                   extra) != 3 ||
            rank < 0 || count < 0)
            die("%s:%ld: malformed expect line", path, lineno);
        if (find_entry(rank, name))
            die("%s:%ld: duplicate expect line", path, lineno);
        if (n_entries == cap_entries) {
            cap_entries = cap_entries ? 2 * cap_entries : 64;
            entries = realloc(entries, cap_entries * sizeof *entries);
            if (!entries) die("out of memory");
        }
        struct entry *e = &entries[n_entries++];
        e->rank = rank;
        snprintf(e->name, sizeof e->name, "%s", name);
        e->count = count;
        e->seen = 0;
        if (rank + 1 > nranks) nranks = rank + 1;
    }
    fclose(f);
    if (nranks == 0) die("%s: no expect lines", path);
    return nranks;
}

/* A JSON count as a non-negative integer (integral reals accepted). */
static int json_count(json_t *v, long long *out)
{
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
    } else if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d != (double)(long long)d) return -1;
        *out = (long long)d;
    } else {
        return -1;
    }
    return *out < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: check_counts EXPECT_FILE STATS_JSON\n");
        return 1;
    }
    long nranks = read_expect(argv[1]);

    json_error_t jerr;
    json_t *root = json_load_file(argv[2], 0, &jerr);
    if (!root) {
        die("%s:%d: %s", argv[2], jerr.line, jerr.text);
    }
    json_t *ranks = json_object_get(root, "ranks");
    if (!json_is_array(ranks))
        die("%s: no \"ranks\" array", argv[2]);

    int differences = 0;
    size_t nrec = json_array_size(ranks);
    if ((long)nrec != nranks) {
        fprintf(stderr, "number of ranks: expected %ld recorded %zu\n",
                nranks, nrec);
        differences++;
    }

    /* which ranks 0..nranks-1 the stats contain */
    char *present = calloc((size_t)nranks, 1);
    if (!present) die("out of memory");

    size_t i;
    json_t *r;
    json_array_foreach(ranks, i, r) {
        json_t *jrank = json_object_get(r, "rank");
        json_t *calls = json_object_get(r, "calls");
        if (!json_is_integer(jrank) || !json_is_object(calls))
            die("%s: a \"ranks\" entry lacks an integer \"rank\" or an "
                "object \"calls\"", argv[2]);
        long rank = (long)json_integer_value(jrank);
        if (rank < 0 || rank >= nranks) {
            fprintf(stderr, "rank %ld: recorded but not expected\n", rank);
            differences++;
        } else {
            if (present[rank]) die("%s: rank %ld listed twice", argv[2], rank);
            present[rank] = 1;
        }

        const char *name;
        json_t *v;
        json_object_foreach(calls, name, v) {
            long long count;
            if (json_count(v, &count) != 0)
                die("%s: bad count for %s", argv[2], name);
            struct entry *e = find_entry(rank, name);
            if (e) {
                e->seen = 1;
                if (e->count != count) {
                    fprintf(stderr, "rank %ld: %s expected %lld recorded %lld\n",
                            rank, name, e->count, count);
                    differences++;
                }
            } else if (count != 0) {
                fprintf(stderr, "rank %ld: %s expected 0 recorded %lld\n",
                        rank, name, count);
                differences++;
            }
        }
    }

    for (long rk = 0; rk < nranks; rk++)
        if (!present[rk]) {
            fprintf(stderr, "rank %ld: expected but not recorded\n", rk);
            differences++;
        }
    /* expected functions the recorder never listed */
    for (size_t k = 0; k < n_entries; k++) {
        struct entry *e = &entries[k];
        if (!e->seen && e->count != 0) {
            fprintf(stderr, "rank %ld: %s expected %lld recorded 0\n", e->rank,
                    e->name, e->count);
            differences++;
        }
    }

    free(present);
    json_decref(root);
    free(entries);
    if (differences) {
        fprintf(stderr, "check_counts: %d difference(s)\n", differences);
        return 1;
    }
    return 0;
}
