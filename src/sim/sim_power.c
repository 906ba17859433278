/* The CPU power of a rank for a trace replayed on a machine: the machine
 * file's power keys, or the recording's calibration (its work unit's
 * timings) against the machine's (perfskel calibrate). */
#include <string.h>

#include "perfskel/sim.h"

double psk_machine_rank_power(const psk_machine *m, const psk_job *job, int r, const char **why)
{
    const char *w = "power key";
    double p = psk_machine_power(m, r);
    int node = r / (m->ranks_per_node > 0 ? m->ranks_per_node : 1);
    double sus = m->node_unit_ns && node < m->nnode_unit ? m->node_unit_ns[node] : 0;
    if (!m->power_given && m->work_unit_ns > 0 && job && job->work_ns_per_unit) {
        double rec = job->work_ns_per_unit[r];
        if (m->host[0] && job->hosts && job->hosts[r] && !strcmp(job->hosts[r], m->host)) {
            w = "the host calibrated", p = 1.0;
        } else if (sus > 1.1 * m->work_unit_ns && rec > 0) {
            w = "recorded over sustained work unit time (a CPU quota or a shared core)", p = rec / sus;
        } else if (m->work_q1_ns > 0 && job->work_q1_ns && job->work_q3_ns && m->work_q1_ns <= job->work_q3_ns[r] &&
                   job->work_q1_ns[r] <= m->work_q3_ns) {
            w = "work unit timings within each other's quartiles", p = 1.0;
        } else {
            w = "recorded over calibrated work unit time", p = rec / m->work_unit_ns;
        }
    } else if (!m->power_given) {
        w = "default";
    }
    if (why)
        *why = w;
    return p;
}
