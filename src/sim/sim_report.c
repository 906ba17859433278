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

/* interval i as the next value of j (spaced), its members broken into
 * lines indented by ind: name and figures, totals, one rank a line, then
 * its children */
static void json_interval(const psk_sim *s, psk_json *j, int i, int ind)
{
    const psk_interval *v = psk_sim_interval(s, i);
    int P = psk_sim_nranks(s);
    psk_json_obj(j, NULL);
    psk_json_str(j, "name", v->name);
    psk_json_int(j, "level", v->level);
    psk_json_numf(j, "exec_seconds", "%.9g", v->exec);
    psk_json_numf(j, "efficiency", "%.6g", v->efficiency);
    psk_json_break(j, ind + 1);
    psk_json_obj(j, "totals");
    for (int k = 0; k < PSK_M_N; k++)
        psk_json_numf(j, psk_metric_name(k), "%.9g", sum(v, P, k));
    psk_json_end(j);
    psk_json_break(j, ind + 1);
    psk_json_arr(j, "ranks");
    for (int q = 0; q < P; q++) {
        psk_json_break(j, ind + 2);
        psk_json_obj(j, NULL);
        psk_json_int(j, "rank", q);
        psk_json_uint(j, "count", v->count[q]);
        for (int k = 0; k < PSK_M_N; k++)
            psk_json_numf(j, psk_metric_name(k), "%.9g", v->m[(size_t)q * PSK_M_N + (size_t)k]);
        psk_json_end(j);
    }
    psk_json_newline(j, ind + 1);
    psk_json_end(j);
    psk_json_break(j, ind + 1);
    psk_json_arr(j, "children");
    int any = 0;
    for (int c = 0; c < psk_sim_nintervals(s); c++)
        if (psk_sim_interval(s, c)->parent == i) {
            psk_json_break(j, ind + 2);
            json_interval(s, j, c, ind + 2);
            any = 1;
        }
    if (any)
        psk_json_newline(j, 0);
    psk_json_end(j);
    psk_json_end(j);
}

void psk_sim_json(const psk_sim *s, psk_json *j, const psk_machine *m, void (*more)(void *arg, psk_json *j),
                  void *arg)
{
    psk_json_obj(j, NULL);
    psk_json_break(j, 2);
    psk_json_numf(j, "predicted_seconds", "%.9g", psk_sim_predicted(s));
    psk_json_break(j, 2);
    psk_json_int(j, "ranks", psk_sim_nranks(s));
    psk_json_break(j, 2);
    psk_json_uint(j, "events", psk_sim_events(s));
    psk_json_break(j, 2);
    psk_json_uint(j, "events_replayed", psk_sim_replayed(s));
    psk_json_break(j, 2);
    psk_json_bool(j, "folded", psk_sim_folded(s));
    psk_json_break(j, 2);
    psk_json_int(j, "iterations_skipped", psk_sim_skipped_iterations(s));
    psk_json_break(j, 2);
    psk_json_numf(j, "skipped_stderr_seconds", "%.9g", psk_simi_skip_stderr(s));
    psk_json_break(j, 2);
    psk_json_uint(j, "buffered_sends", psk_sim_buffered(s));
    psk_simi_mem mem;
    psk_simi_memory(s, &mem);
    psk_json_break(j, 2);
    psk_json_obj(j, "replay_memory");
    psk_json_uint(j, "state_bytes", mem.state);
    psk_json_numf(j, "state_bytes_per_rank", "%.1f", psk_sim_nranks(s) ? (double)mem.state / psk_sim_nranks(s) : 0.0);
    psk_json_uint(j, "program_bytes", mem.program);
    psk_json_int(j, "tree_events", mem.tree_events);
    psk_json_int(j, "pattern_events", mem.pattern_events);
    psk_json_uint(j, "pattern_exceptions", mem.pattern_exceptions);
    psk_json_uint(j, "snapshots", mem.snapshots);
    psk_json_end(j);
    const char *why;
    psk_json_break(j, 2);
    psk_json_int(j, "ranks_ended_early", psk_sim_ended_early(s, &why));
    static const char *const types[] = {"bus", "grid", "switch"};
    const char *pw;
    double power = psk_sim_power(s, &pw);
    psk_json_break(j, 2);
    psk_json_obj(j, "machine");
    psk_json_str(j, "type", types[m->type]);
    psk_json_numf(j, "start_us", "%.9g", m->start_us);
    psk_json_numf(j, "byte_us", "%.9g", m->byte_us);
    psk_json_numf(j, "power", "%.9g", power);
    psk_json_str(j, "power_from", pw);
    psk_json_int(j, "eager_bytes", psk_sim_eager_bytes(s));
    psk_json_str(j, "collectives", m->closed_form ? "closed" : "expand");
    psk_json_numf(j, "copy_byte_us", "%.9g", m->copy_byte_us);
    psk_json_str(j, "call_floors", m->no_floors ? "off" : "on");
    psk_json_str(j, "ranks_start", m->start_together ? "together" : "recorded");
    psk_json_end(j);
    int st;
    const char *sharing = psk_sim_sharing(s, &st);
    static const char *const states[] = {"none", "modelled", "taken out"};
    psk_json_break(j, 2);
    psk_json_obj(j, "time_sharing");
    psk_json_str(j, "state", states[st]);
    psk_json_str(j, "text", sharing);
    psk_json_end(j);
    psk_json_break(j, 2);
    psk_json_key(j, "intervals");
    psk_json_newline(j, 2);
    json_interval(s, j, 0, 2);
    if (more) { /* one member more, on a line of its own, compact */
        psk_json_newline(j, 0);
        psk_json_break(j, 2);
        int layout = j->pretty;
        j->pretty = PSK_JSON_COMPACT;
        more(arg, j);
        j->pretty = layout;
    }
    psk_json_newline(j, 0);
    psk_json_end(j);
}

void psk_sim_write_json(const psk_sim *s, FILE *out, const psk_machine *m)
{
    psk_sim_write_json_more(s, out, m, NULL, NULL);
}

void psk_sim_write_json_more(const psk_sim *s, FILE *out, const psk_machine *m,
                             void (*more)(void *arg, struct psk_json *j), void *arg)
{
    psk_json j;
    psk_json_init(&j, out, PSK_JSON_SPACED);
    psk_sim_json(s, &j, m, more, arg);
    fputc('\n', out);
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

void psk_sim_compare_json(psk_json *j, const psk_sim_report_run *runs, int nruns)
{
    double p0 = psk_sim_predicted(runs[0].sim);
    for (int k = 0; k < nruns; k++) {
        double part[4], p = psk_sim_predicted(runs[k].sim);
        where(runs[k].sim, part);
        psk_json_break(j, 4);
        psk_json_obj(j, NULL);
        psk_json_str(j, "machine", runs[k].name);
        psk_json_numf(j, "predicted_seconds", "%.9g", p);
        psk_json_numf(j, "ratio_to_first", "%.9g", p0 > 0 ? p / p0 : 1.0);
        psk_json_numf(j, "efficiency", "%.6g", psk_sim_interval(runs[k].sim, 0)->efficiency);
        psk_json_break(j, 5);
        psk_json_obj(j, "seconds");
        static const char *const what[4] = {"compute", "mpi", "waiting", "idle"};
        for (int x = 0; x < 4; x++)
            psk_json_numf(j, what[x], "%.9g", part[x]);
        psk_json_end(j);
        psk_json_end(j);
    }
}
