/* perfskel gen: the performance skeleton of a folded merged trace, as one
 * readable C file (§4 of Zhang et al., "Parallel Job Performance Prediction
 * Based on the Case Reconstruction", Journal of Software 2010;
 * docs/skeletons.md). The loop tree becomes for loops; each
 * merged event becomes its MPI call (gen_call.c), guarded by which ranks
 * take part, with its values as expressions (gen_expr.c); runs of calls
 * outside loops are replayed from data (gen_data.c). Before each call a
 * rank runs the mean compute gap it had there, in work units of its own
 * recorded calibration (psk_work.h). A loop of at least K iterations not
 * inside another scaled loop, and closed (gen_scale.c), runs count/K times,
 * timed, and adds its time x (count / iterations run - 1) to the
 * prediction. Each rank makes its own calls in its own order (the trace is
 * merged without reordering), so the skeleton cannot deadlock where the
 * original did not. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_internal.h"
#include "psk_work.h"

int gen_fail(gen *g, const char *fmt, ...)
{
    if (g->failed)
        return -1; /* the first reason stands */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->errmsg, sizeof g->errmsg, fmt, ap);
    va_end(ap);
    g->failed = 1;
    g->status = PSK_EFORMAT;
    return -1;
}

int gen_oom(gen *g)
{
    if (!g->failed) {
        gen_fail(g, "out of memory");
        g->status = PSK_ENOMEM;
    }
    return -1;
}

/* the compute of every event under node id, on each rank, times f[rank] */
static void scale_compute(gen *g, int32_t id, const double *f)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    if (x->kind != PSK_FNODE_SYM) {
        const int32_t *kid = psk_folded_children(g->f, id);
        for (int32_t i = 0; i < x->nchild; i++)
            scale_compute(g, kid[i], f);
        return;
    }
    gnode *n = &g->node[id];
    for (int j = 0; n->seen && j < n->np; j++) {
        n->gap[j] *= f[n->ranks[j]];
        if (n->pwork)
            n->pwork[j] *= f[n->ranks[j]];
    }
}

/* A scaled loop with outlier iterations (fold_outliers.c: a slow first
 * iteration, say): its events get the compute of its steady iterations,
 * which K scales, and what the outliers computed beyond that runs once,
 * before the loop, as work of each rank. Without this a loop run count/K
 * times would carry a share of the outliers in each iteration it runs,
 * and the skeleton's own first iteration, which warms up, would be timed
 * against it. Writes the work (and a comment) at indentation d, then a
 * barrier (the ranks' outlier work differs); a rank whose outliers
 * computed less than its steady iterations keeps its mean. */
static void emit_outliers(gen *g, int32_t loop, int d)
{
    int no;
    double med;
    const psk_foutlier *ol = psk_folded_outliers(g->f, loop, &no, &med);
    if (!no)
        return;
    const psk_fnode *x = psk_folded_node(g->f, loop);
    double *f = malloc((size_t)g->P * sizeof *f);
    int64_t *extra = malloc((size_t)g->P * sizeof *extra);
    if (!f || !extra) {
        free(f), free(extra);
        gen_oom(g);
        return;
    }
    int any = 0;
    for (int r = 0; r < g->P; r++) {
        double out, steady;
        psk_folded_outlier_compute(g->f, loop, r, &out, &steady);
        double mean = (out + steady) / (double)x->count, smean = steady / (double)(x->count - no);
        double x_ns = out - (double)no * smean;
        f[r] = 1.0, extra[r] = 0;
        if (x_ns > 0 && mean > 0) {
            f[r] = smean / mean;
            extra[r] = (int64_t)(x_ns * g->share[r] / g->unit_ns[r] + 0.5);
            any |= extra[r] > 0;
        }
    }
    if (any) {
        scale_compute(g, loop, f);
        fprintf(g->tabs, "static const uint64_t L%d_outlier_work[NRANKS] = {", loop);
        for (int r = 0; r < g->P; r++)
            fprintf(g->tabs, "%s%lld", r ? (r % 16 ? ", " : ",\n    ") : "", (long long)extra[r]);
        fprintf(g->tabs, "};\n");
        gen_indent(g, d);
        fprintf(g->body, "/* loop %d: %d outlier iteration(s) (iteration %lld computed %.1fx the median's %.3f ms%s): "
                         "their compute beyond the steady iterations', once */\n",
                loop, no, (long long)ol[0].iter, med > 0 ? ol[0].compute / med : 0.0, med / 1e6,
                no > 1 ? ", ..." : "");
        gen_indent(g, d);
        if (gen_compute_factor(g, loop) > 1)
            fprintf(g->body, "psk_work(cunits_(L%d_outlier_work[rank_], %.6g));\n", loop, gen_compute_factor(g, loop));
        else
            fprintf(g->body, "psk_work(L%d_outlier_work[rank_]);\n", loop);
        /* the ranks' outlier work differs: without this, a rank that ends
         * it first would wait for the others inside the loop's first
         * timed iteration, and that wait would be scaled with it; through
         * the profiling interface, as it is not one of the original's
         * calls. Only where no message is in flight as the loop begins: a
         * rank blocked in a send that another receives inside the loop
         * would wait for ever (tests/random/regress/seed4013-mpich-np3) */
        gen_indent(g, d);
        if (g->plan[loop].grouped)
            fprintf(g->body, "/* no barrier after it: the ranks of its sibling loops are in them */\n");
        else if (g->entry && g->entry[loop] == 0)
            fprintf(g->body, "PMPI_Barrier(MPI_COMM_WORLD);\n");
        else
            fprintf(g->body, "/* no barrier after it: messages are in flight as the loop begins */\n");
    }
    free(f), free(extra);
}

static void emit_children(gen *g, int32_t id, int d, int in_scaled, const char *loopvar)
{
    const psk_fnode *x = psk_folded_node(g->f, id);
    const int32_t *kid = psk_folded_children(g->f, id);
    int32_t coded = 0; /* children before it found not to go into data */
    for (int32_t i = 0; i < x->nchild && !g->failed; i++) {
        int32_t c = kid[i];
        const psk_fnode *y = psk_folded_node(g->f, c);
        /* a long enough run of calls and small loops goes into data */
        int32_t k = i;
        int64_t calls = 0, n;
        while (i >= coded && k < x->nchild && (n = gen_data_calls(g, kid[k])) > 0)
            k++, calls += n;
        int mode = k > i && calls >= g->table_min ? gen_run_mode(g, kid, i, k, calls) : 0;
        if (mode) {
            gen_emit_run(g, kid, i, k, calls, mode, d);
            i = k - 1;
            continue;
        }
        coded = k > coded ? k : coded;
        if (y->kind == PSK_FNODE_SYM) {
            g->in_scaled = in_scaled;
            gen_emit_sym(g, c, d, loopvar);
            continue;
        }
        char var[32];
        snprintf(var, sizeof var, "i%d", c);
        const gplan *p = &g->plan[c];
        if (p->scaled) {
            int ph = g->nscaled++;
            emit_outliers(g, c, d);
            gen_indent(g, d);
            fprintf(g->body,
                    "{ /* loop %d: %lld iterations of %lld events in the original; here the first %lld (cold, "
                    "counted once) and %lld of the others spread over them, each for %.6g */\n",
                    c, (long long)y->count, (long long)y->span, (long long)p->cold, (long long)(p->ran - p->cold),
                    (double)(y->count - p->cold) / (double)(p->ran - p->cold));
            gen_indent(g, d + 1);
            fprintf(g->body, "double lt_ = vt_(), l1_ = lt_;\n");
            gen_indent(g, d + 1);
            fprintf(g->body, "for (long s%d = 0; s%d < %lldL; s%d++) {\n", c, c, (long long)p->ran, c);
            gen_indent(g, d + 2);
            fprintf(g->body, "long %s = (long)samp_(s%d, %lldLL, %lldLL, %lldLL);\n", var, c, (long long)y->count,
                    (long long)p->cold, (long long)p->ran);
            gen_indent(g, d + 2);
            /* the ranks start the steady iterations together: what the cold
             * ones paid once, unevenly (first touches of the buffers), would
             * otherwise be waited for in the first steady one, and scaled.
             * Outermost loops only, where no message is in flight as they
             * begin (as emit_outliers' barrier), and not loops sampled with
             * their siblings of other ranks: those ranks are still in the
             * sibling before (random seed 19) */
            if (!in_scaled && !p->grouped && g->entry && g->entry[c] == 0)
                fprintf(g->body, "if (s%d == %lld) { PMPI_Barrier(MPI_COMM_WORLD); l1_ = vt_(); } /* the steady ones from "
                                 "here */\n", c, (long long)p->cold);
            else
                fprintf(g->body, "if (s%d == %lld) l1_ = vt_(); /* the steady ones from here */\n", c,
                        (long long)p->cold);
            emit_children(g, c, d + 2, 1, var);
            gen_indent(g, d + 1);
            fprintf(g->body, "}\n");
            gen_indent(g, d + 1);
            fprintf(g->body, "phase_(%d, %d, %lldLL, %lldLL, %lldLL, vt_() - lt_, l1_ - lt_);\n", ph, c,
                    (long long)y->count, (long long)p->cold, (long long)p->ran);
            gen_indent(g, d);
            fprintf(g->body, "}\n");
        } else {
            gen_indent(g, d);
            fprintf(g->body, "for (long %s = 0; %s < %lldL; %s++) { /* loop %d: %lld iterations of %lld events; %s */\n",
                    var, var, (long long)y->count, var, c, (long long)y->count, (long long)y->span,
                    p->why ? p->why : "run in full");
            emit_children(g, c, d + 1, in_scaled, var);
            gen_indent(g, d);
            fprintf(g->body, "}\n");
        }
    }
}

/* the skeleton's runtime (skel_runtime.c) and the function ids, as text */
extern const char psk_skel_runtime_text[], psk_skel_fn_ids_text[];

static void cleanup(gen *g)
{
    free(g->plan);
    g->plan = NULL;
    free(g->unit_ns);
    free(g->share);
    free(g->cpu);
    free(g->min_gap);
    g->unit_ns = NULL;
    g->share = NULL;
    g->cpu = NULL;
    g->min_gap = NULL;
    free(g->execs);
    g->execs = NULL;
    gen_free_nodes(g);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the median (the lower one) of the unit times of rank r's host's ranks;
 * tmp has room for P values. Rank r's own beyond 4096 ranks, where
 * comparing every pair of host names would be too slow. */
static double host_speed(const psk_job *job, int P, int r, double *tmp)
{
    if (P > 4096)
        return job->work_ns_per_unit[r];
    int n = 0;
    for (int q = 0; q < P; q++)
        if (!strcmp(job->hosts[q], job->hosts[r]))
            tmp[n++] = job->work_ns_per_unit[q];
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_double);
    return tmp[(n - 1) / 2];
}

/* rank q's events from the merged trace, for psk_work_share */
static int expand_rank(void *m, int q, int (*on)(void *arg, const psk_event *e), void *arg)
{
    return psk_merged_expand(m, q, on, arg);
}

/* pass 1 and the skeleton's body and tables, into g's memory streams;
 * -1 with g's message set if something failed */
static int make(gen *g, psk_merged *m)
{
    if (!g->job->work_ns_per_unit)
        return gen_fail(g, "the trace has no compute calibration (recorded by an older perfskel): record it again");
    if (g->K < 1)
        return gen_fail(g, "K must be at least 1, not %d", g->K);
    for (int r = 0; r < g->P; r++)
        if (psk_merged_rank_reordered(m, r))
            return gen_fail(g, "the merged trace was reordered (Algorithm 1); merge with --no-reorder for gen");
    /* the speed of a host is the median of what its ranks measured (each
     * already a trimmed mean of 31 timings): a rank whose timing was
     * disturbed (another process on its core) must not stretch its work */
    g->unit_ns = calloc((size_t)(g->P > 0 ? g->P : 1), sizeof *g->unit_ns);
    g->min_gap = calloc((size_t)(g->P > 0 ? g->P : 1), sizeof *g->min_gap);
    g->share = calloc((size_t)(g->P > 0 ? g->P : 1), sizeof *g->share);
    if (!g->unit_ns || !g->min_gap || !g->share)
        return gen_oom(g);
    for (int r = 0; r < g->P; r++)
        g->unit_ns[r] = host_speed(g->job, g->P, r, g->min_gap); /* min_gap: scratch until set below */
    /* a rank that waited for a core inside its gaps: the skeleton runs
     * only the work, and waits for the cores again where it runs. On a
     * host with more ranks than cores, the recording's own sharing: */
    int rc = psk_work_share(g->job, NULL, expand_rank, m, g->share);
    unsigned char *crowded = malloc((size_t)(g->P > 0 ? g->P : 1));
    if (rc == PSK_ENOMEM || !crowded || (g->crowded = psk_ranks_crowded(g->job, NULL, crowded)) < 0) {
        free(crowded);
        return gen_oom(g);
    }
    /* elsewhere, other programs' share of the cores: what the rank got of
     * a core while it was runnable, measured (the same of every gap) */
    for (int r = 0; g->job->run_share && r < g->P; r++)
        if (!crowded[r] && g->job->run_share[r] > 0)
            g->share[r] = g->job->run_share[r];
    /* where ranks took turns on cores, the recording's placement */
    if (!(g->cpu = malloc((size_t)(g->P > 0 ? g->P : 1) * sizeof *g->cpu)) || psk_ranks_placed(g->job, g->cpu)) {
        free(crowded);
        return gen_oom(g);
    }
    for (int r = 0; r < g->P; r++) {
        g->cpu[r] = !g->no_pin && crowded[r] && g->cpu[r] >= 0 ? g->job->cpu_on[r] : -1;
        g->npin += g->cpu[r] >= 0;
    }
    free(crowded);
    if (rc) {
        g->status = rc;
        return gen_fail(g, "%s", psk_merged_errmsg(m));
    }
    if (g->crowded && g->floor_default)
        g->floor_seconds = PSK_GEN_FLOOR_SECONDS_CROWDED;
    for (int r = 0; r < g->P; r++)
        g->min_gap[r] = 1e300;
    if (gen_collect(g))
        return -1;
    for (int r = 0; r < g->P; r++)
        if (g->min_gap[r] > 1e299)
            g->min_gap[r] = 0;
    if (!g->failed && gen_plan(g))
        return -1;
    if (g->mt_rank >= 0 && g->mt_threads)
        return gen_fail(g, "rank %d made its MPI calls from %d threads under MPI_THREAD_MULTIPLE: they cannot be "
                           "replayed in one order without risking a deadlock", g->mt_rank, g->mt_threads);
    if (g->mt_rank >= 0)
        return gen_fail(g, "rank %d was recorded under MPI_THREAD_MULTIPLE by a perfskel that did not record which "
                           "thread made each call (trace format %d): calls of several threads cannot be replayed "
                           "in one order; record it again", g->mt_rank, g->job->format_version);
    g->body = open_memstream(&g->bodytxt, &g->bodylen);
    g->tabs = open_memstream(&g->tabstxt, &g->tabslen);
    if (!g->body || !g->tabs)
        return gen_oom(g);
    emit_children(g, 0, 1, 0, NULL);
    /* the names of the functions replayed from data, for the report on SIGTERM */
    fprintf(g->tabs, "static const char *const fname_[256] = {");
    for (int k = 0, any = 0; k < 256; k++)
        if (g->fnused[k]) {
            fprintf(g->tabs, "%s[%d] = \"%s\"", any ? ", " : "", k, psk_fn_name((unsigned)k));
            any = 1;
        }
    fprintf(g->tabs, "};\n");
    int bad = fclose(g->body) | fclose(g->tabs);
    g->body = g->tabs = NULL;
    if (bad && !g->failed)
        return gen_oom(g); /* a memory stream fails only for memory */
    return g->failed ? -1 : 0;
}

int psk_gen_open(psk_merged *m, psk_folded *f, const psk_gen_opts *o, psk_gen **out)
{
    gen *g = calloc(1, sizeof *g);
    *out = g;
    if (!g)
        return PSK_ENOMEM;
    *g = (gen){.m = m, .f = f, .job = psk_merged_job(m), .P = psk_merged_nranks(m), .K = o->K, .max_comm = 1,
               .max_req = 0, .table_min = o->table_min > 0 ? o->table_min : PSK_GEN_TABLE_MIN,
               .floor_iters = o->floor_iters > 0 ? o->floor_iters : PSK_GEN_FLOOR_ITERS,
               .floor_seconds = o->floor_seconds < 0 ? PSK_GEN_FLOOR_SECONDS : o->floor_seconds,
               .floor_default = o->floor_seconds < 0, .mt_rank = -1, .no_pin = o->no_pin};
    if (make(g, m)) {
        if (g->body)
            fclose(g->body);
        if (g->tabs)
            fclose(g->tabs);
        g->body = g->tabs = NULL;
        if (!g->failed)
            gen_oom(g);
        if (o->K < 1)
            g->status = PSK_EINVAL;
    }
    /* what pass 1 collected is not needed to write the file */
    gen_free_nodes(g);
    free(g->execs);
    g->execs = NULL;
    return g->failed ? g->status : PSK_OK;
}

const char *psk_gen_errmsg(const psk_gen *g)
{
    return !g ? "out of memory" : g->errmsg[0] ? g->errmsg : "no error";
}

const psk_gen_loop *psk_gen_loops(const psk_gen *g, int *n)
{
    *n = g && !g->failed ? g->nloops : 0;
    return *n ? g->loops : NULL;
}

int psk_gen_pinned(const psk_gen *g) { return g && !g->failed ? g->npin : 0; }

double psk_gen_saved_seconds(const psk_gen *g, int r)
{
    return g && g->saved_ns && r >= 0 && r < g->P ? 1e-9 * g->saved_ns[r] : 0;
}

void psk_gen_close(psk_gen *g)
{
    if (!g)
        return;
    cleanup(g);
    free(g->loops);
    free(g->saved_ns);
    free(g->bodytxt);
    free(g->tabstxt);
    free(g);
}

int psk_gen_write(psk_gen *g, FILE *out)
{
    if (g->failed)
        return g->status;
    const psk_job *j = g->job;
    /* strings from the trace reach the code only as comment text */
    fputs("/* Performance skeleton of: ", out);
    gen_comment_text(out, j->command);
    fputs("\n * recorded ", out);
    gen_comment_text(out, j->start_time);
    fprintf(out, " with %s (", psk_flavour_name(j->flavour));
    gen_comment_text(out, j->mpi_version);
    fprintf(out, ") on %d ranks; made by perfskel gen -K %d.\n", g->P, g->K);
    fprintf(out, " *\n * It makes each rank's MPI calls in that rank's order, with the recorded\n"
                 " * peers, tags, roots, ops and message sizes (in bytes), and runs the compute\n"
                 " * time recorded before each call as work units of the kernel timed on each\n"
                 " * rank at record time. Loops of at least K iterations run count/K times; their\n"
                 " * time counts count/ran times in the prediction. Rank 0 prints the predicted\n"
                 " * run time of the original (MPI_Init to MPI_Finalize, slowest rank). */\n");
    fprintf(out, "#define _GNU_SOURCE /* sched_setaffinity */\n#include <mpi.h>\n#include <sched.h>\n#include <signal.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
                 "#include <string.h>\n#include <unistd.h>\n#include <fcntl.h>\n#include <sys/mman.h>\n\n");
    fprintf(out, "#define NRANKS %d\n#define K %d\n#define NCOMM %lld\n#define NREQ %lld\n#define NPHASE %d\n",
            g->P, g->K, (long long)g->max_comm + 1, (long long)g->max_req + 1, g->nscaled);
    fprintf(out, "#define SBUF_BYTES %lldLL\n#define RBUF_BYTES %lldLL\n\n", (long long)g->max_sbytes + 64,
            (long long)g->max_rbytes + 64);
    /* the kernel under another name: the runtime's psk_work scales it */
    fputs("#define psk_work psk_work_kernel_\n", out);
    fputs(PSK_WORK_SOURCE, out);
    fputs(PSK_WORK_TIME_SOURCE, out);
    fputs(PSK_WORK_UNITS_SOURCE, out);
    fputs("#undef psk_work\n\n", out);
    /* each rank's recorded host (hashed) and unit time, for work_calibrate_ */
    fprintf(out, "static const uint64_t hosth_[NRANKS] = {");
    for (int r = 0; r < g->P; r++) {
        uint64_t x = 1469598103934665603ULL;
        for (const char *h = j->hosts ? j->hosts[r] : ""; *h; h++)
            x = (x ^ (unsigned char)*h) * 1099511628211ULL;
        fprintf(out, "%s%lluULL", r ? (r % 8 ? ", " : ",\n    ") : "", (unsigned long long)x);
    }
    fprintf(out, "};\nstatic const double unitns_[NRANKS] = {");
    for (int r = 0; r < g->P; r++)
        fprintf(out, "%s%.9g", r ? (r % 8 ? ", " : ",\n    ") : "", g->unit_ns[r]);
    fprintf(out, "};\nstatic const double shared_[NRANKS] = {");
    for (int r = 0; r < g->P; r++)
        fprintf(out, "%s%.6g", r ? (r % 8 ? ", " : ",\n    ") : "", 1.0 / g->share[r]);
    fprintf(out, "};\nstatic const int cpu_[NRANKS] = {");
    for (int r = 0; r < g->P; r++)
        fprintf(out, "%s%d", r ? (r % 8 ? ", " : ",\n    ") : "", g->cpu[r]);
    fprintf(out, "};\n");
    fputs(psk_skel_fn_ids_text, out);
    fputs(psk_skel_runtime_text, out);
    fprintf(out, "/* per-rank values where ranks differ, indexed by world rank */\n");
    fwrite(g->tabstxt, 1, g->tabslen, out);
    fprintf(out, "\nint main(int argc, char **argv)\n{\n");
    fprintf(out, "    MPI_Init(&argc, &argv);\n"
                 "    (void)fname_; /* used only where calls are replayed from data */\n"
                 "    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);\n"
                 "    MPI_Comm_size(MPI_COMM_WORLD, &size_);\n"
                 "    posfile_init_();\n"
                 "    signal(SIGTERM, onterm_); /* says where this rank was */\n"
                 "    if (size_ != NRANKS) {\n"
                 "        if (rank_ == 0)\n"
                 "            fprintf(stderr, \"skeleton: recorded with %%d ranks, run with %%d\\n\", NRANKS, size_);\n"
                 "        fflush(stderr);\n"
                 "        /* every rank knows: all end cleanly (an abort could lose the message\n"
                 "         * still on its way through the launcher) */\n"
                 "        MPI_Finalize();\n"
                 "        return 2;\n"
                 "    }\n"
                 "    for (int c = 0; c <= NCOMM; c++) comm_[c] = MPI_COMM_NULL;\n"
                 "    comm_[0] = MPI_COMM_WORLD;\n"
                 "    comm_[1] = MPI_COMM_SELF;\n"
                 "    for (int c = 0; c <= NCOMM; c++) comm_set_(c);\n"
                 "    for (int r = 0; r <= NREQ; r++) req_[r] = MPI_REQUEST_NULL;\n"
                 "    sbuf_ = calloc((size_t)SBUF_BYTES, 1);\n"
                 "    rbuf_ = calloc((size_t)RBUF_BYTES, 1);\n"
                 "    if (!sbuf_ || !rbuf_) MPI_Abort(MPI_COMM_WORLD, 3);\n"
                 "    /* the program's data was written before it was sent, so is this: a send\n"
                 "     * from never-written memory (the zero page) costs more in every call; the\n"
                 "     * receive buffer is first touched by the first receives, as the program's */\n"
                 "    memset(sbuf_, 1, (size_t)SBUF_BYTES);\n"
                 "    work_calibrate_(); /* faithful compute on the recording host */\n"
                 "    double t0_ = MPI_Wtime();\n\n");
    fwrite(g->bodytxt, 1, g->bodylen, out);
    fprintf(out, "\n    double t1_ = MPI_Wtime();\n"
                 "    for (int r = 0; r <= NREQ; r++)\n"
                 "        if (req_[r] != MPI_REQUEST_NULL && !persist_[r]) MPI_Wait(&req_[r], MPI_STATUS_IGNORE);\n"
                 "    double mine[3] = {t1_ - t0_ + vx_, t1_ - t0_, cfx_}, all[3];\n"
                 "    MPI_Reduce(mine, all, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n"
                 "    int npin_ = 0, on_ = pinned_ && sched_getcpu() == cpu_[rank_];\n"
                 "    PMPI_Reduce(&on_, &npin_, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); /* not one of the original's calls */\n"
                 "    double ph[NPHASE + 1], pp[NPHASE + 1];\n"
                 "    MPI_Reduce(phase_time_, ph, NPHASE + 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n"
                 "    MPI_Reduce(phase_pred_, pp, NPHASE + 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n"
                 "    if (rank_ == 0) {\n"
                 "        for (int p = 0; p < NPHASE; p++)\n"
                 "            printf(\"%s phase loop=%%d count=%%lld ran=%%lld seconds=%%.6f predicted_seconds=%%.6f \"\n"
                 "                   \"cold=%%lld runs=%%lld\\n\", phase_loop_[p], phase_count_[p], phase_ran_[p], ph[p], pp[p],\n"
                 "                   phase_cold_[p], phase_runs_[p]);\n"
                 "        printf(\"%s compute credited_seconds=%%.6f\\n\", all[2]);\n"
                 "        printf(\"%s placement pinned=%%d\\n\", npin_);\n"
                 "        printf(\"%s predicted_seconds=%%.6f skeleton_seconds=%%.6f K=%%d\\n\", all[0], all[1], K);\n"
                 "    }\n"
                 "    free(sbuf_);\n    free(rbuf_);\n"
                 "    MPI_Finalize();\n    return 0;\n}\n",
            PSK_SKELETON_TAG, PSK_SKELETON_TAG, PSK_SKELETON_TAG, PSK_SKELETON_TAG);
    if (fflush(out) || ferror(out)) {
        snprintf(g->errmsg, sizeof g->errmsg, "cannot write the skeleton");
        return PSK_EIO;
    }
    return PSK_OK;
}
