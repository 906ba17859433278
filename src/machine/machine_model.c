/* The machine model's defaults and what it answers once read: a message's
 * cost (measured segments or start + bytes x byte time), a poll's cost
 * after some compute, a node's CPU power, whether its network holds a
 * trace's ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfskel/machine.h"

void psk_machine_default(psk_machine *m)
{
    memset(m, 0, sizeof *m);
    m->type = PSK_NET_SWITCH;
    m->start_us = 5.0;
    m->byte_us = 0.0001;
    m->intra_start_us = 0.5;
    m->intra_byte_us = 0.0001;
    m->copy_byte_us = 0.00007; /* a memcpy of 16 MiB on the 2-core VM of docs/simulation.md: 14 GB/s */
    m->ranks_per_node = 1;
    m->nodes_recorded = 1;
    m->power = 1.0;
    m->eager_bytes = 65536;
    m->links = 1;
    m->slice_us = 4000; /* two busy ranks on one CPU: 4.0 ms each, switched at ticks (docs/simulation.md) */
    m->tick_us = 4000; /* HZ = 250: a task that yields beside one that computes runs once a tick (docs/simulation.md) */
    m->switch_us = 5;  /* a sched_yield beside a task that computes: 5.1 us of the core, 1.2 us alone */
}

void psk_machine_free(psk_machine *m)
{
    free(m->node_power);
    m->node_power = NULL;
    m->nnode_power = 0;
    free(m->node_unit_ns);
    m->node_unit_ns = NULL;
    m->nnode_unit = 0;
    free(m->poll);
    m->poll = NULL;
    m->npoll = 0;
    free(m->cost), free(m->icost);
    m->cost = m->icost = NULL;
    m->ncost = m->nicost = 0;
}

double psk_machine_msg_us(const psk_machine *m, int64_t bytes, int intra)
{
    const double *c = intra ? m->icost : m->cost;
    int n = intra ? m->nicost : m->ncost, k = 0;
    double B = (double)(bytes > 0 ? bytes : 0);
    if (!c || n <= 0)
        return intra ? m->intra_start_us + B * m->intra_byte_us : m->start_us + B * m->byte_us;
    while (k + 1 < n && c[3 * (k + 1)] <= B)
        k++;
    return c[3 * k + 1] + B * c[3 * k + 2];
}

double psk_machine_poll_us(const psk_machine *m, double gap_us)
{
    const double *v = m->poll;
    int n = m->npoll, k = 0;
    if (!v || n <= 0)
        return 0;
    if (gap_us <= v[0] || n == 1)
        return v[1];
    while (k + 1 < n && v[2 * (k + 1)] < gap_us)
        k++;
    if (k + 1 == n)
        return v[2 * k + 1];
    double f = (gap_us - v[2 * k]) / (v[2 * k + 2] - v[2 * k]);
    return v[2 * k + 1] + f * (v[2 * k + 3] - v[2 * k + 1]);
}

double psk_machine_power(const psk_machine *m, int rank)
{
    int node = rank / (m->ranks_per_node > 0 ? m->ranks_per_node : 1);
    if (m->node_power && node < m->nnode_power)
        return m->node_power[node];
    return m->power;
}

int psk_machine_fits(const psk_machine *m, int nranks, char *err, size_t errcap)
{
    if (m->type != PSK_NET_GRID)
        return PSK_OK;
    long long cells = 1, nodes = (nranks + m->ranks_per_node - 1) / m->ranks_per_node;
    for (int d = 0; d < m->ntopo; d++)
        cells *= m->topo[d];
    if (cells >= nodes)
        return PSK_OK;
    snprintf(err, errcap, "the topology has %lld nodes; the trace's %d ranks at %d per node need %lld", cells, nranks,
             m->ranks_per_node, nodes);
    return PSK_EINVAL;
}
