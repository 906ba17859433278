/* perfskel's machine model: the target machine of a prediction, as a small
 * text file (`perfskel sim --machine FILE`, written by `perfskel
 * calibrate`, docs/simulation.md): its network, its nodes and cores, their
 * CPU power, and the algorithm of each collective. The simulator, the
 * tuning library and the advisor read it; it depends on nothing but
 * common. */
#ifndef PERFSKEL_MACHINE_H
#define PERFSKEL_MACHINE_H

#include <stdint.h>
#include <stdio.h>

#include "perfskel/coll.h"
#include "perfskel/common.h"

enum psk_net_type { PSK_NET_BUS = 0, PSK_NET_GRID = 1, PSK_NET_SWITCH = 2 };

#define PSK_MACHINE_MAXDIM 8

/* how a rank waiting in MPI uses its core on a node with more ranks than
 * cores: as its MPI does (Open MPI yields when it knows it is
 * oversubscribed, MPICH polls busily), or as the machine file says */
enum psk_waiting { PSK_WAIT_AS_MPI = 0, PSK_WAIT_YIELD = 1, PSK_WAIT_BUSY = 2 };

typedef struct psk_machine {
    int type;                /* enum psk_net_type */
    double start_us;         /* per message between nodes */
    double byte_us;          /* per byte between nodes */
    double intra_start_us;   /* per message inside a node */
    double intra_byte_us;    /* per byte inside a node */
    double copy_byte_us;     /* per byte a rank copies in its own memory: a collective's own block (`copy byte time`) */
    /* measured message costs, piecewise linear (`message cost`, `intra
     * message cost`): n segments of (from bytes, us per message, us per
     * byte), ascending; a message of B bytes takes the last segment
     * starting at or below B. NULL: start_us, byte_us (and intra_). */
    double *cost, *icost;
    int ncost, nicost;
    int ranks_per_node;      /* consecutive ranks share a node */
    int nodes_recorded;      /* no machine file (psk_machine_default, never parsed onto): the
                              * recording's hosts are the network's nodes (shared memory inside) */
    int cores_per_node;      /* ranks beyond it share the cores in time slices (0: no limit) */
    /* the time-sharing of a node's cores when it has more ranks than cores
     * (docs/simulation.md, "Time-sharing"): how long a rank holds a core
     * others want, the scheduler's tick (when a rank waiting in an MPI that
     * yields gets to look), and how a rank waiting in MPI uses its core */
    double slice_us;         /* `time slice` (default 4000) */
    double tick_us;          /* `scheduler tick` (default 4000) */
    double switch_us;        /* `switch cost`: a poll that hands a shared core over and back (5) */
    int waiting;             /* enum psk_waiting: `waiting` (default: the trace's MPI) */
    double other_load;       /* `other load`: the share of a shared node's cores other programs take (0) */
    int sharing_off;         /* `time sharing = off`: the recorded gaps as they are, no sharing modelled */
    double power;            /* CPU speed relative to the recording machine */
    double *node_power;      /* per node, overriding power; NULL if not given */
    int nnode_power;
    int topo[PSK_MACHINE_MAXDIM]; /* grid: nodes per dimension */
    int ntopo;
    int64_t eager_bytes;     /* messages up to this size are sent eagerly */
    int eager_given;         /* `eager threshold` was set (or measured): else a trace of MPICH has MPICH's */
    int links;               /* switch: transfers at once per node and direction */
    int buses;               /* switch: transfers at once in the whole network (0: no limit) */
    int closed_form;         /* collectives by a formula instead of their messages */
    int no_floors;           /* `call floors = off`: calls take what the model says alone (sim_callcost.c) */
    int start_together;      /* `ranks start = together`: every rank at 0, not when its MPI_Init returned */
    int alg[PSK_COLL_N];     /* enum psk_alg per collective */
    double work_unit_ns;     /* time of psk_work's unit here (0: not measured) */
    double work_q1_ns, work_q3_ns; /* the quartiles of its timings (0: not known) */
    char host[64];           /* the host calibrate ran on ("": not known) */
    /* per node, the work unit's time sustained over many CPU-quota periods
     * (`node work unit time`, calibrate): where it is more than 10 % above
     * the short timing (a quota or a shared core), the node's power comes
     * from it. NULL if not measured. */
    double *node_unit_ns;
    int nnode_unit;
    /* what a poll that finds nothing (MPI_Test, Iprobe, ...) costs beyond
     * the compute before it, by that compute's length (`poll cost`,
     * calibrate): npoll points of (us of compute before, us the poll
     * costs), ascending. NULL: polls cost nothing. */
    double *poll;
    int npoll;
    int power_given;         /* `power` was set: work_unit_ns does not derive it */
    char errmsg[512];        /* why the last parse or load failed (psk_machine_errmsg) */
} psk_machine;

/* Defaults: a switch, 5 us + 0.0001 us/byte (10 GB/s) between nodes,
 * 0.5 us + 0.0001 us/byte inside one, one rank per node, power 1, eager up
 * to 64 KiB (a trace of MPICH: MPICH's, sim_engine.c), 1 link, default
 * algorithms, collectives expanded. */
void psk_machine_default(psk_machine *m);
/* Parses a machine file's text (`key = value;`, // comments) onto m (start
 * from psk_machine_default). On error returns PSK_EINVAL (PSK_ENOMEM) and
 * psk_machine_errmsg(m) says "NAME:LINE: what is wrong". */
int psk_machine_parse(const char *text, size_t len, const char *name, psk_machine *m);
/* Reads and parses the file path (PSK_EIO if it cannot be read). */
int psk_machine_load(const char *path, psk_machine *m);
const char *psk_machine_errmsg(const psk_machine *m);
/* Writes m in the file format (what `perfskel calibrate` writes). */
void psk_machine_write(FILE *out, const psk_machine *m, const char *comment);
void psk_machine_free(psk_machine *m);
/* The CPU speed of world rank r's node (the `power` keys; sim derives it
 * from work_unit_ns and the trace's own calibration when not given). */
double psk_machine_power(const psk_machine *m, int rank);
/* us for a message of bytes between two nodes (intra: inside one), from
 * the measured segments if any, else start time + bytes x send byte time */
double psk_machine_msg_us(const psk_machine *m, int64_t bytes, int intra);
/* us that a poll finding nothing costs after gap_us of compute: linear
 * between the `poll cost` points, their first or last beyond them; 0
 * without them */
double psk_machine_poll_us(const psk_machine *m, double gap_us);

/* ---- calibration (perfskel calibrate) ---- */

/* The C source of the MPI program `perfskel calibrate` builds with the
 * launcher's mpicc and runs to measure a machine (src/calibrate/
 * calibrate_prog.c, embedded): what its rank 0 prints becomes a machine
 * file. PSK_OK, or PSK_EIO if out failed. */
int psk_machine_calibration_source(FILE *out);

/* what a calibration measured, besides the machine */
typedef struct psk_calibration {
    int ranks, same_node; /* the ranks; 1: ranks 0 and 1 shared a node */
    int sizes;            /* message sizes measured */
} psk_calibration;
/* The machine the calibration program's output text describes, onto a
 * default m: a switch with the measured start and byte times (inside a
 * node the same), piecewise message costs, eager limit, copy cost, work
 * unit time and spread, per node the sustained one, poll costs, cores
 * and host when the ranks shared a node. PSK_EFORMAT if the text holds
 * no measurements (m is then untouched); *c says what was measured. */
int psk_machine_from_calibration(char *text, psk_machine *m, psk_calibration *c);

#endif
