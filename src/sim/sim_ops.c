/* What each MPI function is to perfskel sim's replay: one table from the
 * functions' names to the replay's operations (enum op, sim_state.h) and
 * collectives (enum psk_coll), a run of polls taking its test's; and what
 * the replay asks of an operation: whether it must run in order of
 * simulated time, and which total a call that may wait for another rank
 * goes to. A function in no row is OP_OTHER: no time in the model. */
#include <stdint.h>

#include "sim_state.h"

/* for a call that may wait for another rank, the total its time goes to
 * (the segments of a loop's iteration end at them, sim_skip.c); else -1 */
int psk_simi_blocking(int op)
{
    switch (op) {
    case OP_SEND: case OP_RECV: case OP_SENDRECV: case OP_SENDRECV_REPLACE: case OP_MPROBE: case OP_MRECV:
        return A_P2P;
    case OP_WAIT: case OP_WAITALL: case OP_WAITANY: case OP_WAITSOME: case OP_TEST: case OP_TESTALL:
    case OP_TESTANY: case OP_TESTSOME:
        return A_WAIT;
    case OP_COLL: case OP_NEWCOMM: case OP_NEWCOMM_GROUP:
        return A_COLL;
    default:
        return -1;
    }
}

/* operations that may book the network or meet another rank's messages
 * or collectives must run in order of simulated time; waits, tests and
 * local calls only look at what is already decided and need not */
int psk_simi_ordered(int op)
{
    switch (op) {
    case OP_WAIT: case OP_WAITALL: case OP_WAITANY: case OP_WAITSOME: case OP_TEST: case OP_TESTALL:
    case OP_TESTANY: case OP_TESTSOME: case OP_OTHER: case OP_INIT: case OP_LOCAL: case OP_FREE:
    case OP_SEND_INIT: case OP_RECV_INIT: case OP_PROBE:
        return 0;
    default:
        return 1;
    }
}

void psk_simi_set_ops(psk_sim *s)
{
    static const struct { const char *name; int op, coll; } tab[] = {
        {"MPI_Init", OP_INIT, -1}, {"MPI_Init_thread", OP_INIT, -1}, {"MPI_Finalize", OP_FINALIZE, -1},
        {"MPI_Pcontrol", OP_PCONTROL, -1}, {"MPI_Send", OP_SEND, -1}, {"MPI_Bsend", OP_SEND, -1},
        {"MPI_Ssend", OP_SEND, -1}, {"MPI_Rsend", OP_SEND, -1}, {"MPI_Isend", OP_ISEND, -1},
        {"MPI_Ibsend", OP_ISEND, -1}, {"MPI_Issend", OP_ISEND, -1}, {"MPI_Irsend", OP_ISEND, -1},
        {"MPI_Recv", OP_RECV, -1}, {"MPI_Mprobe", OP_MPROBE, -1}, {"MPI_Improbe", OP_MPROBE, -1},
        {"MPI_Mrecv", OP_MRECV, -1}, {"MPI_Imrecv", OP_MRECV, -1}, {"MPI_Irecv", OP_IRECV, -1},
        {"MPI_Sendrecv", OP_SENDRECV, -1}, {"MPI_Sendrecv_replace", OP_SENDRECV_REPLACE, -1},
        {"MPI_Send_init", OP_SEND_INIT, -1}, {"MPI_Bsend_init", OP_SEND_INIT, -1},
        {"MPI_Ssend_init", OP_SEND_INIT, -1}, {"MPI_Rsend_init", OP_SEND_INIT, -1},
        {"MPI_Recv_init", OP_RECV_INIT, -1}, {"MPI_Start", OP_START, -1}, {"MPI_Startall", OP_STARTALL, -1},
        {"MPI_Wait", OP_WAIT, -1}, {"MPI_Waitall", OP_WAITALL, -1}, {"MPI_Waitany", OP_WAITANY, -1},
        {"MPI_Waitsome", OP_WAITSOME, -1}, {"MPI_Test", OP_TEST, -1}, {"MPI_Testall", OP_TESTALL, -1},
        {"MPI_Testany", OP_TESTANY, -1}, {"MPI_Testsome", OP_TESTSOME, -1}, {"MPI_Request_free", OP_FREE, -1},
        {"MPI_Cancel", OP_CANCEL, -1}, {"MPI_Barrier", OP_COLL, PSK_COLL_BARRIER},
        {"MPI_Bcast", OP_COLL, PSK_COLL_BCAST}, {"MPI_Gather", OP_COLL, PSK_COLL_GATHER},
        {"MPI_Gatherv", OP_COLL, PSK_COLL_GATHER}, {"MPI_Scatter", OP_COLL, PSK_COLL_SCATTER},
        {"MPI_Scatterv", OP_COLL, PSK_COLL_SCATTER}, {"MPI_Allgather", OP_COLL, PSK_COLL_ALLGATHER},
        {"MPI_Allgatherv", OP_COLL, PSK_COLL_ALLGATHER}, {"MPI_Alltoall", OP_COLL, PSK_COLL_ALLTOALL},
        {"MPI_Alltoallv", OP_COLL, PSK_COLL_ALLTOALL}, {"MPI_Alltoallw", OP_COLL, PSK_COLL_ALLTOALL},
        {"MPI_Reduce", OP_COLL, PSK_COLL_REDUCE}, {"MPI_Allreduce", OP_COLL, PSK_COLL_ALLREDUCE},
        {"MPI_Reduce_scatter", OP_COLL, PSK_COLL_REDUCE_SCATTER},
        {"MPI_Reduce_scatter_block", OP_COLL, PSK_COLL_REDUCE_SCATTER}, {"MPI_Scan", OP_COLL, PSK_COLL_SCAN},
        {"MPI_Exscan", OP_COLL, PSK_COLL_SCAN}, {"MPI_Ibarrier", OP_ICOLL, PSK_COLL_BARRIER},
        {"MPI_Ibcast", OP_ICOLL, PSK_COLL_BCAST}, {"MPI_Igather", OP_ICOLL, PSK_COLL_GATHER},
        {"MPI_Igatherv", OP_ICOLL, PSK_COLL_GATHER}, {"MPI_Iscatter", OP_ICOLL, PSK_COLL_SCATTER},
        {"MPI_Iscatterv", OP_ICOLL, PSK_COLL_SCATTER}, {"MPI_Iallgather", OP_ICOLL, PSK_COLL_ALLGATHER},
        {"MPI_Iallgatherv", OP_ICOLL, PSK_COLL_ALLGATHER}, {"MPI_Ialltoall", OP_ICOLL, PSK_COLL_ALLTOALL},
        {"MPI_Ialltoallv", OP_ICOLL, PSK_COLL_ALLTOALL}, {"MPI_Ialltoallw", OP_ICOLL, PSK_COLL_ALLTOALL},
        {"MPI_Ireduce", OP_ICOLL, PSK_COLL_REDUCE}, {"MPI_Iallreduce", OP_ICOLL, PSK_COLL_ALLREDUCE},
        {"MPI_Ireduce_scatter", OP_ICOLL, PSK_COLL_REDUCE_SCATTER},
        {"MPI_Ireduce_scatter_block", OP_ICOLL, PSK_COLL_REDUCE_SCATTER}, {"MPI_Iscan", OP_ICOLL, PSK_COLL_SCAN},
        {"MPI_Iexscan", OP_ICOLL, PSK_COLL_SCAN}, {"MPI_Comm_dup", OP_NEWCOMM, PSK_COLL_BARRIER},
        {"MPI_Comm_dup_with_info", OP_NEWCOMM, PSK_COLL_BARRIER}, {"MPI_Comm_split", OP_NEWCOMM, PSK_COLL_ALLGATHER},
        {"MPI_Comm_split_type", OP_NEWCOMM, PSK_COLL_ALLGATHER}, {"MPI_Comm_create", OP_NEWCOMM, PSK_COLL_BARRIER},
        {"MPI_Comm_create_group", OP_NEWCOMM_GROUP, PSK_COLL_BARRIER},
        {"MPI_Cart_create", OP_NEWCOMM, PSK_COLL_BARRIER}, {"MPI_Cart_sub", OP_NEWCOMM, PSK_COLL_ALLGATHER},
        {"MPI_Intercomm_create", OP_NEWCOMM, PSK_COLL_BARRIER}, {"MPI_Intercomm_merge", OP_NEWCOMM, PSK_COLL_ALLGATHER},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        unsigned fn = psk_fn_lookup(tab[i].name);
        if (fn) {
            s->opof[fn] = (uint8_t)tab[i].op;
            s->collof[fn] = (int8_t)tab[i].coll;
        }
    }
    /* a run of polls (merged traces) is the test it polls with; the compute
     * it overlapped comes before it (sim_fprog.c), so it completes at the
     * later of that compute's end and its requests' completion */
    for (unsigned fn = 1; fn < psk_fn_count(); fn++)
        if (psk_fn_polled(fn))
            s->opof[fn] = s->opof[psk_fn_polled(fn)];
}
