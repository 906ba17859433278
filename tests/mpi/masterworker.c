/*
 * masterworker (C): rank 0 hands out tasks, workers MPI_Send results back.
 * Every worker w gets a fixed set of tasks, so the call counts do not depend
 * on the order in which results arrive; only the receive order does.
 *  phase 1: the master sends each worker its first task, then receives
 *           NW*T1 results with MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG) and
 *           replies to status.MPI_SOURCE with that worker's next task until
 *           it has had T1; the result tag (RES_TAG + task id) says which task.
 *  phase 2: R2 rounds of: an MPI_Irecv (MPI_ANY_TAG) posted to each worker,
 *           one task sent to each, then MPI_Waitany until all are done.
 *  stop:    a STOP_TAG message to each worker.
 * Workers loop on MPI_Recv(from 0, MPI_ANY_TAG) until they get STOP_TAG.
 * With 1 rank the master does T1+R2 tasks itself and sends nothing.
 *
 * Per rank (NW = np-1 workers): Init 1, Gather 1, Finalize 1, and if np > 1
 *   rank 0:  Send NW*(T1+R2+1), Recv NW*T1, Irecv NW*R2, Waitany NW*R2
 *   worker:  Recv T1+R2+1, Send T1+R2
 */
#include "ps_count.h"

#define T1 3
#ifndef R2 /* bench/predict_accuracy.sh makes it longer */
#define R2 2
#endif
#define TASK_TAG 1
#define STOP_TAG 2
#define RES_TAG 100
#define MOD 1000003
#define MAXP 64

static int work(int t) { return (t * t * 7 + t * 3 + 1) % MOD; }

static void fail(const char *what)
{
    fprintf(stderr, "masterworker: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1); /* error path only, never counted */
}

int main(int argc, char **argv)
{
    int rank, size;
    CALL(MPI_Init)(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXP) fail("too many ranks");
    const int nw = size - 1;

    if (rank == 0) {
        int ntask = (nw > 0 ? nw : 1) * (T1 + R2);
        int result[MAXP * (T1 + R2)];
        if (nw == 0) {
            for (int t = 0; t < ntask; t++) result[t] = work(t);
        } else {
            /* phase 1: worker w does tasks (w-1)*T1 .. w*T1-1 */
            int sent[MAXP] = {0};
            for (int w = 1; w <= nw; w++) {
                int t = (w - 1) * T1;
                CALL(MPI_Send)(&t, 1, MPI_INT, w, TASK_TAG, MPI_COMM_WORLD);
                sent[w] = 1;
            }
            for (int k = 0; k < nw * T1; k++) {
                int res[2];
                MPI_Status st;
                CALL(MPI_Recv)(res, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                               MPI_COMM_WORLD, &st);
                int w = st.MPI_SOURCE, t = st.MPI_TAG - RES_TAG;
                if (w < 1 || w > nw || t != res[0] || t / T1 != w - 1)
                    fail("phase 1: unexpected result message");
                result[t] = res[1];
                if (sent[w] < T1) {
                    int next = (w - 1) * T1 + sent[w]++;
                    CALL(MPI_Send)(&next, 1, MPI_INT, w, TASK_TAG,
                                   MPI_COMM_WORLD);
                }
            }
            /* phase 2: round q gives worker w task nw*T1 + q*nw + w-1 */
            for (int q = 0; q < R2; q++) {
                MPI_Request req[MAXP];
                int res[MAXP][2];
                for (int w = 1; w <= nw; w++)
                    CALL(MPI_Irecv)(res[w - 1], 2, MPI_INT, w, MPI_ANY_TAG,
                                    MPI_COMM_WORLD, &req[w - 1]);
                for (int w = 1; w <= nw; w++) {
                    int t = nw * T1 + q * nw + w - 1;
                    CALL(MPI_Send)(&t, 1, MPI_INT, w, TASK_TAG,
                                   MPI_COMM_WORLD);
                }
                for (int k = 0; k < nw; k++) {
                    int idx;
                    MPI_Status st;
                    CALL(MPI_Waitany)(nw, req, &idx, &st);
                    int w = st.MPI_SOURCE, t = st.MPI_TAG - RES_TAG;
                    if (idx == MPI_UNDEFINED || w != idx + 1 || t != res[idx][0]
                        || t != nw * T1 + q * nw + idx)
                        fail("phase 2: unexpected result message");
                    result[t] = res[idx][1];
                }
            }
            for (int w = 1; w <= nw; w++) {
                int zero = 0;
                CALL(MPI_Send)(&zero, 1, MPI_INT, w, STOP_TAG, MPI_COMM_WORLD);
            }
        }
        int sum = 0;
        for (int t = 0; t < ntask; t++)
            sum = (sum + (t + 1) * result[t]) % MOD;
        printf("masterworker tasks %d checksum %d\n", ntask, sum);
    } else {
        for (;;) {
            int t;
            MPI_Status st;
            CALL(MPI_Recv)(&t, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD,
                           &st);
            if (st.MPI_TAG == STOP_TAG) break;
                ps_compute(); /* benchmarks only (PS_WORK) */
            int res[2] = {t, work(t)};
            CALL(MPI_Send)(res, 2, MPI_INT, 0, RES_TAG + t, MPI_COMM_WORLD);
        }
    }

    /* the loop perfskel fold must find as the main one: phase 2 repeats R2 times; phase 1 depends on arrival order
     * (one rank does every task itself and calls MPI in no loop: no main loop) */
    if (rank == 0 && size > 1)
        printf("mainloop %d\n", R2);
    ps_report();
    MPI_Finalize(); /* counted by ps_report() */
    return 0;
}
