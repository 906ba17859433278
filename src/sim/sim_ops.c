/* What each MPI function is to perfskel sim's replay: its operation (enum
 * op, sim_state.h) from the function table's op (src/record/
 * mpi_functions.def) and its collective (enum psk_coll) from the table's
 * coll; and what the replay asks of an operation: whether it must run in
 * order of simulated time, and which total a call that may wait for
 * another rank goes to. OP_OTHER and OP_LOCAL take no time in the model. */
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

/* the replay's operation of a function's op (mpi_functions.def); a run
 * of polls has the op of the test it polls with */
static int sim_op(int fnop)
{
    switch (fnop) {
    case PSK_FNOP_INIT: return OP_INIT;
    case PSK_FNOP_FINALIZE: return OP_FINALIZE;
    case PSK_FNOP_PCONTROL: return OP_PCONTROL;
    case PSK_FNOP_SEND: return OP_SEND;
    case PSK_FNOP_ISEND: return OP_ISEND;
    case PSK_FNOP_RECV: return OP_RECV;
    case PSK_FNOP_IRECV: return OP_IRECV;
    case PSK_FNOP_SENDRECV: return OP_SENDRECV;
    case PSK_FNOP_SENDRECV_REPLACE: return OP_SENDRECV_REPLACE;
    case PSK_FNOP_MPROBE: case PSK_FNOP_IMPROBE: return OP_MPROBE;
    case PSK_FNOP_MRECV: case PSK_FNOP_IMRECV: return OP_MRECV;
    case PSK_FNOP_SEND_INIT: return OP_SEND_INIT;
    case PSK_FNOP_RECV_INIT: return OP_RECV_INIT;
    case PSK_FNOP_START: return OP_START;
    case PSK_FNOP_STARTALL: return OP_STARTALL;
    case PSK_FNOP_WAIT: return OP_WAIT;
    case PSK_FNOP_WAITALL: return OP_WAITALL;
    case PSK_FNOP_WAITANY: return OP_WAITANY;
    case PSK_FNOP_WAITSOME: return OP_WAITSOME;
    case PSK_FNOP_TEST: return OP_TEST;
    case PSK_FNOP_TESTALL: return OP_TESTALL;
    case PSK_FNOP_TESTANY: return OP_TESTANY;
    case PSK_FNOP_TESTSOME: return OP_TESTSOME;
    case PSK_FNOP_FREE: return OP_FREE;
    case PSK_FNOP_CANCEL: return OP_CANCEL;
    case PSK_FNOP_COLL: return OP_COLL;
    case PSK_FNOP_ICOLL: return OP_ICOLL;
    case PSK_FNOP_NEWCOMM: case PSK_FNOP_INTERCOMM: case PSK_FNOP_INTERCOMM_MERGE: return OP_NEWCOMM;
    case PSK_FNOP_NEWCOMM_GROUP: return OP_NEWCOMM_GROUP;
    case PSK_FNOP_LOCAL: return OP_LOCAL;
    /* a probe only looks (its time is in the model as any call's floor);
     * MPI_Abort and MPI_Comm_free take no time in the model */
    case PSK_FNOP_PROBE: case PSK_FNOP_IPROBE: case PSK_FNOP_ABORT: case PSK_FNOP_COMM_FREE: default:
        return OP_OTHER;
    }
}

void psk_simi_set_ops(psk_sim *s)
{
    for (unsigned fn = 1; fn < psk_fn_count(); fn++) {
        int op = psk_fn_op(fn);
        /* a neighbourhood collective is a collective (its grid: psk_simi_coll_arrive) */
        int sop = op == PSK_FNOP_NCOLL ? (psk_fn_class(fn) == PSK_CLASS_ICOLL ? OP_ICOLL : OP_COLL) : sim_op(op);
        s->opof[fn] = (uint8_t)(op < 0 ? OP_OTHER : sop);
        s->collof[fn] = (int8_t)(op == PSK_FNOP_COLL || op == PSK_FNOP_ICOLL || op == PSK_FNOP_NCOLL ||
                                         sim_op(op) == OP_NEWCOMM ||
                                         sim_op(op) == OP_NEWCOMM_GROUP
                                     ? psk_fn_coll(fn)
                                     : -1);
    }
}
