/* The sharing of cores the recording saw, taken out of its compute gaps:
 * per rank, the share of its recorded gaps that was work (s->deflate,
 * psk_work_share of trace_share.c), from the rank files or the merged
 * trace, is what sim_cores.c then times on the target's cores
 * (docs/simulation.md, "Time-sharing"). A job.json without the cores
 * takes the machine's where it was calibrated on the recording host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_state.h"

typedef struct source {
    psk_sim *s;
    psk_trace *t;
    psk_merged *m;
} source;

/* rank q's events, in its order, to on */
static int read_rank(void *arg, int q, int (*on)(void *arg, const psk_event *e), void *onarg)
{
    source *src = arg;
    psk_sim *s = src->s;
    if (src->m) {
        int rc = psk_merged_expand(src->m, q, on, onarg);
        if (rc && rc != PSK_ENOMEM)
            snprintf(s->err, sizeof s->err, "%s", psk_merged_errmsg(src->m));
        return rc;
    }
    psk_rank_reader *rd;
    int rc = psk_rank_open(src->t, q, &rd);
    psk_event e;
    while (!rc && !(rc = psk_rank_next(rd, &e)))
        if ((rc = on(onarg, &e)))
            break;
    if (rc == PSK_EOF || rc == PSK_ETRUNCATED)
        rc = 0;
    if (rc && rc != PSK_ENOMEM)
        snprintf(s->err, sizeof s->err, "%s", psk_rank_errmsg(rd));
    psk_rank_close(rd);
    return rc;
}

static int deflate(psk_sim *s, source *src, const psk_job *job)
{
    int P = s->P, *cores = NULL, rc = 0;
    /* the cores each rank's host had when it was recorded: job.json's,
     * else the machine's when the machine was calibrated there */
    if (!job->cores && job->hosts && s->m->host[0]) {
        if (!(cores = calloc((size_t)(P > 0 ? P : 1), sizeof *cores)))
            rc = PSK_ENOMEM;
        for (int q = 0; cores && q < P; q++)
            cores[q] = strcmp(job->hosts[q], s->m->host) ? 0 : s->m->cores_per_node;
    }
    if (!rc && (rc = psk_ranks_crowded(job, cores, s->crowded)) > 0)
        rc = 0;
    if (!rc)
        rc = psk_work_share(job, cores, read_rank, src, s->deflate);
    free(cores);
    if (rc) {
        if (rc == PSK_ENOMEM)
            snprintf(s->err, sizeof s->err, "out of memory");
        s->failed = 1;
    }
    return rc;
}

int psk_simi_deflate_trace(psk_sim *s, psk_trace *t, const psk_job *job)
{
    source src = {.s = s, .t = t};
    return deflate(s, &src, job);
}

int psk_simi_deflate_merged(psk_sim *s, psk_merged *m, const psk_job *job)
{
    source src = {.s = s, .m = m};
    return deflate(s, &src, job);
}
