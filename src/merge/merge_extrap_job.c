/* The job header of an extrapolated trace: P2 ranks, each with its
 * template's host, cores (scaled so that ranks per core stay what the
 * template had), calibration and share of a core; the CPU each rank stayed
 * on only at the recorded rank count. Written as the trace's JSON and
 * parsed back, so that the result is what a recorded P2 job would read. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "merge_extrap.h"
#include "merge_internal.h"
#include "psk_json.h"

int xjob_make(xctx *x)
{
    const psk_job *j = x->m->job;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return xnomem(x);
    psk_json js;
    psk_json_init(&js, f, 0);
    psk_json_obj(&js, NULL);
    psk_json_str(&js, "format", "perfskel-trace");
    psk_json_int(&js, "version", j->format_version ? j->format_version : 1);
    char id[32];
    snprintf(id, sizeof id, "%016llx", (unsigned long long)j->job_id);
    psk_json_str(&js, "job_id", id);
    psk_json_int(&js, "ranks", x->P2);
    psk_json_obj(&js, "mpi");
    psk_json_str(&js, "flavour", j->flavour == PSK_MPI_OPENMPI ? "openmpi" : j->flavour == PSK_MPI_MPICH ? "mpich" : "");
    psk_json_str(&js, "version", j->mpi_version ? j->mpi_version : "");
    psk_json_end(&js);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "extrapolated from %d to %d ranks: %s", x->P, x->P2, j->command ? j->command : "");
    psk_json_str(&js, "command", cmd);
    psk_json_str(&js, "start_time", j->start_time ? j->start_time : "");
    psk_json_arr(&js, "hosts");
    for (int r = 0; r < x->P2; r++)
        psk_json_str(&js, NULL, j->hosts ? j->hosts[x->tmpl[r]] : "?");
    psk_json_end(&js);
    psk_json_obj(&js, "clock");
    psk_json_arr(&js, "offsets_ns");
    for (int r = 0; r < x->P2; r++)
        psk_json_int(&js, NULL, 0);
    psk_json_end(&js);
    psk_json_uint(&js, "read_ns", j->clock_read_ns);
    psk_json_end(&js);
    if (j->cores && j->hosts) {
        /* each rank's host keeps the template's name (sim knows the host
         * calibrate ran on by it), so P2 ranks may share a host that held
         * P: its cores are scaled alike, so that ranks per core, the
         * sharing the recorded compute holds (docs/simulation.md, cores
         * per node), stays what the template had */
        /* host ids: hosts[first[k]] is host k; per host, its ranks at P and P2 */
        int *first = malloc((size_t)x->P * sizeof *first), *hostof = malloc((size_t)x->P * sizeof *hostof);
        int *n1 = calloc((size_t)x->P, sizeof *n1), *c2 = calloc((size_t)x->P, sizeof *c2), nh = 0;
        if (!first || !hostof || !n1 || !c2) {
            free(first), free(hostof), free(n1), free(c2);
            fclose(f);
            free(text);
            return xnomem(x);
        }
        for (int q = 0; q < x->P; q++) {
            int k = 0;
            while (k < nh && strcmp(j->hosts[first[k]], j->hosts[q]))
                k++;
            if (k == nh)
                first[nh++] = q;
            n1[k]++;
            hostof[q] = k;
        }
        for (int r = 0; r < x->P2; r++)
            c2[hostof[x->tmpl[r]]]++;
        psk_json_arr(&js, "cores");
        for (int r = 0; r < x->P2; r++) {
            int k = hostof[x->tmpl[r]];
            long long c = llround((double)j->cores[x->tmpl[r]] * c2[k] / n1[k]);
            psk_json_int(&js, NULL, c < 1 ? 1 : c > (1 << 20) ? 1 << 20 : c);
        }
        psk_json_end(&js);
        free(first), free(hostof), free(n1), free(c2);
    }
    if (j->work_ns_per_unit) {
        psk_json_obj(&js, "work");
        psk_json_str(&js, "kernel", j->work_kernel ? j->work_kernel : "");
        const double *a[3] = {j->work_ns_per_unit, j->work_q1_ns, j->work_q3_ns};
        const char *nm[3] = {"ns_per_unit", "q1_ns", "q3_ns"};
        for (int k = 0; k < 3; k++) {
            if (!a[k])
                continue;
            psk_json_arr(&js, nm[k]);
            for (int r = 0; r < x->P2; r++)
                psk_json_num(&js, NULL, a[k][x->tmpl[r]]);
            psk_json_end(&js);
        }
        psk_json_end(&js);
    }
    /* the CPU each rank stayed on, only at the recorded rank count (rank
     * r is the recorded rank r): more ranks were placed by no one */
    int on = j->cpu_on && x->P2 == x->P;
    if (j->run_share || on) { /* each rank's share of a core: its template's */
        psk_json_obj(&js, "cpu");
        if (j->run_share) {
            psk_json_arr(&js, "run_share");
            for (int r = 0; r < x->P2; r++)
                psk_json_num(&js, NULL, j->run_share[x->tmpl[r]]);
            psk_json_end(&js);
        }
        if (on) {
            psk_json_arr(&js, "on");
            for (int r = 0; r < x->P2; r++)
                psk_json_int(&js, NULL, j->cpu_on[r]);
            psk_json_end(&js);
        }
        psk_json_end(&js);
    }
    psk_json_end(&js);
    if (fclose(f) || !text) {
        free(text);
        return xnomem(x);
    }
    int rc = psk_jobdoc_parse(text, len, "extrapolated job", &x->m2->doc);
    free(text);
    if (rc)
        return merged_fail(x->m2, rc, "%s", psk_jobdoc_errmsg(x->m2->doc));
    x->m2->job = psk_jobdoc_job(x->m2->doc);
    x->m2->nranks = x->P2;
    return 0;
}
