/* perfskel dump: every recorded event of one rank (or of all ranks, one
 * after the other), one per line: readable text, or JSON lines with
 * --json. Times are nanoseconds since the rank entered MPI_Init. From a
 * merged trace it prints the same, rebuilt from the merge (so the two
 * outputs must be equal), or with --merged the merged events themselves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "perfskel/merge.h"
#include "perfskel/trace.h"
#include "psk_json.h"

static void text_event(int rank, uint64_t seq, uint64_t start, const psk_event *ev)
{
    printf("%d %llu %.3f %.3f %s", rank, (unsigned long long)seq, (double)(ev->t_entry - start) / 1e3,
           (double)(ev->t_exit - ev->t_entry) / 1e3, psk_fn_name(ev->fn));
    for (int f = 0; f < PSK_F_NFIELDS; f++) {
        if (!PSK_HAS(ev, f))
            continue;
        if (f == PSK_F_OP) {
            printf(" op=%s", psk_op_name((int)ev->v[f]));
        } else if (f < PSK_F_FIRST_ARRAY) {
            printf(" %s=%lld", psk_field_name(f), (long long)ev->v[f]);
        } else {
            uint32_t n = PSK_ARRN(ev, f);
            const int64_t *a = PSK_ARR(ev, f);
            printf(" %s=[", psk_field_name(f));
            if (f == PSK_F_STATUSES)
                for (uint32_t i = 0; i < n; i++)
                    printf("%s%lld:%lld/%lld", i ? "," : "", (long long)a[3 * i], (long long)a[3 * i + 1],
                           (long long)a[3 * i + 2]);
            else
                for (uint32_t i = 0; i < n; i++)
                    printf("%s%lld", i ? "," : "", (long long)a[i]);
            putchar(']');
        }
    }
    if (ev->arm > 0) /* trace format 2: the tuning library's algorithm */
        printf(" arm=%s", psk_arm_name(ev->arm));
    if (ev->thread > 0) /* trace format 4: a thread other than the one that initialised MPI */
        printf(" thread=%d", ev->thread);
    putchar('\n');
}

static void json_event(int rank, uint64_t seq, uint64_t start, const psk_event *ev)
{
    psk_json j;
    psk_json_init(&j, stdout, 0);
    psk_json_obj(&j, NULL);
    psk_json_int(&j, "rank", rank);
    psk_json_uint(&j, "seq", seq);
    psk_json_str(&j, "fn", psk_fn_name(ev->fn));
    psk_json_uint(&j, "t_entry_ns", ev->t_entry - start);
    psk_json_uint(&j, "t_exit_ns", ev->t_exit - start);
    for (int f = 0; f < PSK_F_NFIELDS; f++) {
        if (!PSK_HAS(ev, f))
            continue;
        if (f == PSK_F_OP) {
            psk_json_str(&j, "op", psk_op_name((int)ev->v[f]));
        } else if (f < PSK_F_FIRST_ARRAY) {
            psk_json_int(&j, psk_field_name(f), ev->v[f]);
        } else if (f == PSK_F_STATUSES) {
            psk_json_arr(&j, "statuses");
            for (uint32_t i = 0; i < PSK_ARRN(ev, f); i++) {
                const int64_t *a = PSK_ARR(ev, f) + 3 * i;
                psk_json_obj(&j, NULL);
                psk_json_int(&j, "index", a[0]);
                psk_json_int(&j, "src", a[1]);
                psk_json_int(&j, "tag", a[2]);
                psk_json_end(&j);
            }
            psk_json_end(&j);
        } else {
            psk_json_arr(&j, psk_field_name(f));
            for (uint32_t i = 0; i < PSK_ARRN(ev, f); i++)
                psk_json_int(&j, NULL, PSK_ARR(ev, f)[i]);
            psk_json_end(&j);
        }
    }
    if (ev->arm > 0)
        psk_json_str(&j, "arm", psk_arm_name(ev->arm));
    if (ev->thread > 0)
        psk_json_int(&j, "thread", ev->thread);
    psk_json_end(&j);
    putchar('\n');
}

typedef struct dumper {
    int rank, json;
    uint64_t seq, start;
} dumper;

static int dump_one(void *arg, const psk_event *ev)
{
    dumper *d = arg;
    (d->json ? json_event : text_event)(d->rank, d->seq++, d->start, ev);
    return 0;
}

/* the merged events: index, class, ranks, then each non-constant pattern */
static void dump_merged_events(psk_merged *m, int json)
{
    psk_mcursor *c;
    psk_mevent me;
    char desc[1024];
    if (psk_mcursor_open(m, &c))
        return;
    while (psk_mcursor_next(c, &me) == PSK_OK) {
        psk_merged_class_desc(m, me.cls, desc, sizeof desc);
        if (!json) {
            printf("%llu c%u %s", (unsigned long long)me.index, me.cls, desc);
            for (int f = 0; f < PSK_F_FIRST_ARRAY; f++)
                if (PSK_HAS(&me, f) && me.kind[f] != PSK_PAT_CONST && f != PSK_F_PEER && f != PSK_F_RPEER)
                    printf(" %s=%s", psk_field_name(f), psk_pattern_name(me.kind[f]));
            putchar('\n');
            continue;
        }
        psk_json j;
        psk_json_init(&j, stdout, 0);
        psk_json_obj(&j, NULL);
        psk_json_uint(&j, "index", me.index);
        psk_json_uint(&j, "class", me.cls);
        psk_json_str(&j, "fn", psk_fn_name(me.fn));
        psk_json_str(&j, "desc", desc);
        psk_json_arr(&j, "ranks");
        for (int k = 0; k < me.nranks; k++)
            psk_json_int(&j, NULL, me.ranks[k]);
        psk_json_end(&j);
        psk_json_obj(&j, "patterns");
        for (int f = 0; f < PSK_F_NFIELDS; f++)
            if (PSK_HAS(&me, f))
                psk_json_str(&j, psk_field_name(f), psk_pattern_name(me.kind[f]));
        psk_json_end(&j);
        psk_json_end(&j);
        putchar('\n');
    }
    psk_mcursor_close(c);
}

static int dump_merged(const char *path, int json, int only, int merged)
{
    psk_merged *m;
    if (psk_merged_read(path, &m)) {
        psk_cli_error("%s", psk_merged_errmsg(m));
        psk_merged_close(m);
        return PSK_EXIT_DATA;
    }
    int nranks = psk_merged_nranks(m), rc = 0;
    if (only >= nranks) {
        psk_cli_error("%s: no rank %d: the job had %d ranks", path, only, nranks);
        psk_merged_close(m);
        return PSK_EXIT_DATA;
    }
    if (merged) {
        dump_merged_events(m, json);
    } else {
        if (!json)
            printf("# rank seq entry_us duration_us function fields...\n");
        for (int r = only < 0 ? 0 : only; r < (only < 0 ? nranks : only + 1) && !rc; r++) {
            dumper d = {.rank = r, .json = json, .start = psk_merged_rank_start(m, r)};
            rc = psk_merged_expand(m, r, dump_one, &d);
        }
    }
    if (rc)
        psk_cli_error("%s: %s", path, psk_merged_errmsg(m));
    psk_merged_close(m);
    return rc ? PSK_EXIT_DATA : 0;
}

enum { O_RANK, O_JSON, O_MERGED };
static const psk_cli_opt opts[] = {
    [O_RANK] = {"--rank", NULL, PSK_OPT_VALUE},
    [O_JSON] = {"--json", NULL, PSK_OPT_FLAG},
    [O_MERGED] = {"--merged", NULL, PSK_OPT_FLAG},
};
const psk_cli_opts cmd_dump_opts = {"dump", PSK_CLI_OPTS(opts), PSK_CLI_JOB_NONE, NULL, NULL};

int cmd_dump(int argc, char **argv)
{
    const char *dir = NULL;
    int json = 0, only = -1, merged = 0, k;
    psk_cli_args a;
    psk_cli_begin(&a, &cmd_dump_opts, argc, argv);
    while ((k = psk_cli_next(&a)) != PSK_CLI_END) {
        if (k == PSK_CLI_STOP)
            return a.status;
        else if (k == O_JSON)
            json = 1;
        else if (k == O_MERGED)
            merged = 1;
        else if (k == O_RANK) {
            char *end;
            long r = strtol(a.val, &end, 10);
            if (*end || r < 0 || r > 1 << 24)
                return psk_cli_usage("dump: --rank takes a rank number, not '%s'", a.val);
            only = (int)r;
        } else if (!dir) /* an operand */
            dir = a.val;
        else
            return psk_cli_usage("dump: one trace directory only");
    }
    if (!dir)
        return psk_cli_usage("dump: no trace directory given");
    if (psk_merged_is_file(dir))
        return dump_merged(dir, json, only, merged);
    if (merged)
        return psk_cli_usage("dump: --merged needs a merged trace (perfskel merge writes one)");
    psk_trace *t;
    if (psk_trace_open(dir, &t)) {
        psk_cli_error("%s", psk_trace_errmsg(t));
        psk_trace_close(t);
        return PSK_EXIT_DATA;
    }
    int nranks = psk_trace_job(t)->nranks, bad = 0;
    if (only >= nranks) {
        psk_cli_error("%s: no rank %d: the job had %d ranks", dir, only, nranks);
        psk_trace_close(t);
        return PSK_EXIT_DATA;
    }
    if (!json)
        printf("# rank seq entry_us duration_us function fields...\n");
    for (int r = only < 0 ? 0 : only; r < (only < 0 ? nranks : only + 1); r++) {
        psk_rank_reader *rr;
        psk_event ev;
        uint64_t seq = 0, start = 0;
        int rc = psk_rank_open(t, r, &rr);
        if (rc == PSK_OK)
            start = psk_rank_mono_start(rr);
        while (rc == PSK_OK && (rc = psk_rank_next(rr, &ev)) == PSK_OK)
            (json ? json_event : text_event)(r, seq++, start, &ev);
        if (rc != PSK_EOF) {
            fflush(stdout);
            psk_cli_error("%s", psk_rank_errmsg(rr));
            bad = 1;
        }
        psk_rank_close(rr);
    }
    psk_trace_close(t);
    return bad ? PSK_EXIT_DATA : 0;
}
