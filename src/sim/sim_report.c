/* What perfskel sim prints: a text summary for people (the prediction,
 * then per interval its characteristics summed over ranks and the ranks
 * that lost most), and JSON for programs (the interval tree with every
 * characteristic per rank; "predicted_seconds" first); and the comparison
 * of replays on several machines (sim --machine A --machine B). */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "perfskel/sim.h"
#include "psk_json.h"
#include "sim_internal.h"

static double sum(const psk_interval *v, int P, int metric)
{
    double t = 0;
    for (int q = 0; q < P; q++)
        t += v->m[(size_t)q * PSK_M_N + (size_t)metric];
    return t;
}

static void text_interval(const psk_sim *s, FILE *out, int i, int depth)
{
    const psk_interval *v = psk_sim_interval(s, i);
    int P = psk_sim_nranks(s);
    if (depth && v->level > depth)
        return;
    uint64_t execs = 0;
    for (int q = 0; q < P; q++)
        execs = v->count[q] > execs ? v->count[q] : execs;
    fprintf(out, "\n%*s%s: %.6f s, efficiency %.3f, entered %llu time(s)\n", 2 * v->level, "", v->name, v->exec,
            v->efficiency, (unsigned long long)execs);
    fprintf(out, "%*s  summed over ranks (s): cpu %.6f  p2p %.6f  collective %.6f  wait %.6f  idle %.6f\n",
            2 * v->level, "", sum(v, P, PSK_M_CPU), sum(v, P, PSK_M_P2P), sum(v, P, PSK_M_COLL),
            sum(v, P, PSK_M_WAIT), sum(v, P, PSK_M_IDLE));
    fprintf(out, "%*s  lost %.6f  of it: imbalance %.6f  sync %.6f  variation %.6f;  overlap %.6f\n",
            2 * v->level, "", sum(v, P, PSK_M_LOST), sum(v, P, PSK_M_IMBALANCE), sum(v, P, PSK_M_SYNC),
            sum(v, P, PSK_M_VARIATION), sum(v, P, PSK_M_OVERLAP));
    /* the rank that lost most */
    int best = 0;
    for (int q = 1; q < P; q++)
        if (v->m[(size_t)q * PSK_M_N + PSK_M_LOST] > v->m[(size_t)best * PSK_M_N + PSK_M_LOST])
            best = q;
    const double *m = v->m + (size_t)best * PSK_M_N;
    fprintf(out, "%*s  most lost: rank %d, %.6f s (in MPI %.6f, idle %.6f)\n", 2 * v->level, "", best,
            m[PSK_M_LOST], m[PSK_M_P2P] + m[PSK_M_COLL] + m[PSK_M_WAIT], m[PSK_M_IDLE]);
    for (int c = 0; c < psk_sim_nintervals(s); c++)
        if (psk_sim_interval(s, c)->parent == i)
            text_interval(s, out, c, depth);
}

void psk_sim_write_text(const psk_sim *s, FILE *out, int depth)
{
    fprintf(out, "predicted run time: %.6f s (MPI_Init to MPI_Finalize, slowest rank; %d ranks, %llu events)\n",
            psk_sim_predicted(s), psk_sim_nranks(s), (unsigned long long)psk_sim_events(s));
    const char *why;
    if (psk_sim_ended_early(s, &why))
        fprintf(out, "note: %d rank(s) ended before MPI_Finalize (the job did not finish; each replayed up to "
                     "the end of its trace), e.g. %s\n", psk_sim_ended_early(s, &why), why);
    if (psk_sim_buffered(s))
        fprintf(out, "note: %llu rendezvous send(s) were buffered to get past a deadlock the model would have "
                     "had (the real MPI buffered them)\n", (unsigned long long)psk_sim_buffered(s));
    const char *pw;
    double power = psk_sim_power(s, &pw);
    if (strcmp(pw, "default"))
        fprintf(out, "CPU power: %.4g (rank 0; from %s)\n", power, pw);
    if (psk_sim_sharing(s, NULL)[0])
        fprintf(out, "%s\n", psk_sim_sharing(s, NULL));
    if (psk_sim_folded(s) && psk_simi_skip_stderr(s) > 0)
        fprintf(out, "folded: %llu events replayed one by one, %lld loop iterations skipped (their time "
                     "estimated, standard error %.3g s)\n",
                (unsigned long long)psk_sim_replayed(s), (long long)psk_sim_skipped_iterations(s),
                psk_simi_skip_stderr(s));
    else if (psk_sim_folded(s))
        fprintf(out, "folded: %llu events replayed one by one, %lld loop iterations skipped\n",
                (unsigned long long)psk_sim_replayed(s), (long long)psk_sim_skipped_iterations(s));
    text_interval(s, out, 0, depth);
}

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        if ((unsigned char)*s < 0x20)
            fprintf(out, "\\u%04x", *s);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

static void json_interval(const psk_sim *s, FILE *out, int i, int ind)
{
    const psk_interval *v = psk_sim_interval(s, i);
    int P = psk_sim_nranks(s);
    fprintf(out, "%*s{\"name\": ", ind, "");
    json_str(out, v->name);
    fprintf(out, ", \"level\": %d, \"exec_seconds\": %.9g, \"efficiency\": %.6g,\n", v->level, v->exec,
            v->efficiency);
    fprintf(out, "%*s \"totals\": {", ind, "");
    for (int k = 0; k < PSK_M_N; k++)
        fprintf(out, "%s\"%s\": %.9g", k ? ", " : "", psk_metric_name(k), sum(v, P, k));
    fprintf(out, "},\n%*s \"ranks\": [\n", ind, "");
    for (int q = 0; q < P; q++) {
        fprintf(out, "%*s  {\"rank\": %d, \"count\": %llu", ind, "", q, (unsigned long long)v->count[q]);
        for (int k = 0; k < PSK_M_N; k++)
            fprintf(out, ", \"%s\": %.9g", psk_metric_name(k), v->m[(size_t)q * PSK_M_N + (size_t)k]);
        fprintf(out, "}%s\n", q + 1 < P ? "," : "");
    }
    fprintf(out, "%*s ],\n%*s \"children\": [", ind, "", ind, "");
    int first = 1;
    for (int c = 0; c < psk_sim_nintervals(s); c++)
        if (psk_sim_interval(s, c)->parent == i) {
            fprintf(out, "%s\n", first ? "" : ",");
            json_interval(s, out, c, ind + 2);
            first = 0;
        }
    fprintf(out, "%s]}", first ? "" : "\n");
}

void psk_sim_write_json(const psk_sim *s, FILE *out, const psk_machine *m)
{
    psk_sim_write_json_more(s, out, m, NULL, NULL);
}

void psk_sim_write_json_more(const psk_sim *s, FILE *out, const psk_machine *m,
                             void (*more)(void *arg, struct psk_json *j), void *arg)
{
    fprintf(out, "{\n  \"predicted_seconds\": %.9g,\n  \"ranks\": %d,\n  \"events\": %llu,\n", psk_sim_predicted(s),
            psk_sim_nranks(s), (unsigned long long)psk_sim_events(s));
    fprintf(out, "  \"events_replayed\": %llu,\n  \"folded\": %s,\n  \"iterations_skipped\": %lld,\n",
            (unsigned long long)psk_sim_replayed(s), psk_sim_folded(s) ? "true" : "false",
            (long long)psk_sim_skipped_iterations(s));
    fprintf(out, "  \"skipped_stderr_seconds\": %.9g,\n", psk_simi_skip_stderr(s));
    fprintf(out, "  \"buffered_sends\": %llu,\n", (unsigned long long)psk_sim_buffered(s));
    psk_simi_mem mem;
    psk_simi_memory(s, &mem);
    fprintf(out,
            "  \"replay_memory\": {\"state_bytes\": %llu, \"state_bytes_per_rank\": %.1f, \"program_bytes\": %llu, "
            "\"pattern_events\": %d, \"snapshots\": %llu},\n",
            (unsigned long long)mem.state, psk_sim_nranks(s) ? (double)mem.state / psk_sim_nranks(s) : 0.0,
            (unsigned long long)mem.program, mem.pattern_events, (unsigned long long)mem.snapshots);
    const char *why;
    fprintf(out, "  \"ranks_ended_early\": %d,\n", psk_sim_ended_early(s, &why));
    static const char *const types[] = {"bus", "grid", "switch"};
    const char *pw;
    double power = psk_sim_power(s, &pw);
    fprintf(out, "  \"machine\": {\"type\": \"%s\", \"start_us\": %.9g, \"byte_us\": %.9g, \"power\": %.9g, "
                 "\"power_from\": \"%s\", \"eager_bytes\": %lld, \"collectives\": \"%s\", \"copy_byte_us\": %.9g, "
                 "\"call_floors\": \"%s\", \"ranks_start\": \"%s\"},\n",
            types[m->type], m->start_us, m->byte_us, power, pw, (long long)psk_sim_eager_bytes(s),
            m->closed_form ? "closed" : "expand", m->copy_byte_us, m->no_floors ? "off" : "on",
            m->start_together ? "together" : "recorded");
    int st;
    const char *sharing = psk_sim_sharing(s, &st);
    static const char *const states[] = {"none", "modelled", "taken out"};
    fprintf(out, "  \"time_sharing\": {\"state\": \"%s\", \"text\": ", states[st]);
    json_str(out, sharing);
    fprintf(out, "},\n");
    fprintf(out, "  \"intervals\":\n");
    json_interval(s, out, 0, 2);
    if (more) { /* one member more, compact, through the JSON writer */
        psk_json j;
        fprintf(out, "\n,\n  ");
        psk_json_init(&j, out, 0);
        more(arg, &j);
    }
    fprintf(out, "\n}\n");
}

/* where the whole run's time goes, summed over ranks: compute, MPI not
 * waiting, waiting for a late partner, idle */
static void where(const psk_sim *s, double part[4])
{
    const psk_interval *v = psk_sim_interval(s, 0);
    int P = psk_sim_nranks(s);
    double sync = sum(v, P, PSK_M_SYNC), mpi = sum(v, P, PSK_M_P2P) + sum(v, P, PSK_M_COLL) + sum(v, P, PSK_M_WAIT);
    part[0] = sum(v, P, PSK_M_CPU);
    part[1] = mpi - sync > 0 ? mpi - sync : 0;
    part[2] = sync;
    part[3] = sum(v, P, PSK_M_IDLE);
}

void psk_sim_write_compare_text(FILE *out, const psk_sim_report_run *runs, int nruns)
{
    fprintf(out, "machines compared (%d ranks, %llu events; time summed over ranks):\n", psk_sim_nranks(runs[0].sim),
            (unsigned long long)psk_sim_events(runs[0].sim));
    fprintf(out, "  %-32s %14s %9s %10s %8s %8s %8s %8s\n", "machine", "predicted (s)", "vs first", "efficiency",
            "compute", "MPI", "waiting", "idle");
    double p0 = psk_sim_predicted(runs[0].sim);
    for (int k = 0; k < nruns; k++) {
        double part[4], all = 0, p = psk_sim_predicted(runs[k].sim);
        where(runs[k].sim, part);
        for (int j = 0; j < 4; j++)
            all += part[j];
        fprintf(out, "  %-32s %14.6f %8.3fx %10.3f", runs[k].name, p, p0 > 0 ? p / p0 : 1.0,
                psk_sim_interval(runs[k].sim, 0)->efficiency);
        for (int j = 0; j < 4; j++)
            fprintf(out, " %6.1f %%", all > 0 ? 100 * part[j] / all : 0);
        fputc('\n', out);
    }
}

void psk_sim_write_compare_json(FILE *out, const psk_sim_report_run *runs, int nruns)
{
    double p0 = psk_sim_predicted(runs[0].sim);
    for (int k = 0; k < nruns; k++) {
        double part[4], p = psk_sim_predicted(runs[k].sim);
        where(runs[k].sim, part);
        fprintf(out, "%s    {\"machine\": ", k ? ",\n" : "");
        json_str(out, runs[k].name);
        fprintf(out, ", \"predicted_seconds\": %.9g, \"ratio_to_first\": %.9g, \"efficiency\": %.6g,\n"
                     "     \"seconds\": {\"compute\": %.9g, \"mpi\": %.9g, \"waiting\": %.9g, \"idle\": %.9g}}",
                p, p0 > 0 ? p / p0 : 1.0, psk_sim_interval(runs[k].sim, 0)->efficiency, part[0], part[1], part[2],
                part[3]);
    }
}
