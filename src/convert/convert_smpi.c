/* perfskel export --smpi: a recorded trace in SimGrid SMPI's time-independent
 * trace format (one file per rank, actions "<rank> <verb> <args>"), with a
 * platform and a hostfile made from a machine file, so that the same trace
 * can be replayed by `smpirun -replay` and compared with perfskel sim.
 * Compute gaps become `compute` actions of one flop per ns on hosts of
 * 1 Gflop/s; sizes are in bytes (the default datatype). SMPI's replay knows
 * MPI_COMM_WORLD only: a trace that talks on other communicators is
 * refused, and so are nonblocking collectives (not written yet).
 * v-collectives carry their counts where the rank has them (a root's
 * receive counts; 0 elsewhere). Waitany/Waitsome become a wait for each
 * request they completed; Sendrecv an isend, a recv and a wait. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "convert_internal.h"
#include "perfskel/trace.h"
#include "psk_mem.h"

/* SMPI's MPI_ANY_SOURCE and MPI_ANY_TAG (smpi/smpi.h, 3.32) */
#define SMPI_ANY_SOURCE (-555)
#define SMPI_ANY_TAG (-444)

typedef struct rq {
    int used, src, dst, tag, persistent, kind; /* kind 1 send, 2 receive */
    int64_t bytes;
} rq;


static int64_t bytes(const psk_event *e)
{
    return (PSK_HAS(e, PSK_F_COUNT) ? e->v[PSK_F_COUNT] : 0) * (PSK_HAS(e, PSK_F_DTSIZE) ? e->v[PSK_F_DTSIZE] : 1);
}

/* a counts array in bytes, P values (0 where the rank has none) */
static void counts(FILE *o, const psk_event *e, int f, int sf, int P)
{
    int64_t ds = PSK_HAS(e, sf) ? e->v[sf] : PSK_HAS(e, PSK_F_DTSIZE) ? e->v[PSK_F_DTSIZE] : 1;
    uint32_t n = PSK_HAS(e, f) ? PSK_ARRN(e, f) : 0;
    for (int k = 0; k < P; k++)
        fprintf(o, " %lld", (long long)(k < (int)n ? PSK_ARR(e, f)[k] * ds : 0));
}

static int64_t sum_counts(const psk_event *e, int f, int sf)
{
    int64_t ds = PSK_HAS(e, sf) ? e->v[sf] : PSK_HAS(e, PSK_F_DTSIZE) ? e->v[PSK_F_DTSIZE] : 1, t = 0;
    for (uint32_t k = 0; PSK_HAS(e, f) && k < PSK_ARRN(e, f); k++)
        t += PSK_ARR(e, f)[k] * ds;
    return t;
}

static rq *getrq(rq **a, int64_t *n, int64_t id)
{
    if (id < 0 || id > (1 << 24) || psk_grow((void **)a, n, id, sizeof **a))
        return NULL;
    return &(*a)[id];
}

static void wait_req(FILE *o, int r, rq *x)
{
    if (!x || !x->used)
        return;
    fprintf(o, "%d wait %d %d %d\n", r, x->src, x->dst, x->tag);
    if (!x->persistent)
        x->used = 0;
}

/* a blocking collective as SMPI actions, from its collective and form
 * (mpi_functions.def); 1 if SMPI's replay has no action for it */
static int export_coll(FILE *o, int r, int P, const psk_event *e, int coll, int form)
{
    long long b = (long long)bytes(e);
    switch (coll * 4 + form) {
    case PSK_COLL_BARRIER * 4 + PSK_FORM_PLAIN:
        fprintf(o, "%d barrier\n", r);
        break;
    case PSK_COLL_BCAST * 4 + PSK_FORM_PLAIN:
        fprintf(o, "%d bcast %lld %lld\n", r, b, (long long)e->v[PSK_F_ROOT]);
        break;
    case PSK_COLL_REDUCE * 4 + PSK_FORM_PLAIN:
        fprintf(o, "%d reduce %lld 0 %lld\n", r, b, (long long)e->v[PSK_F_ROOT]);
        break;
    case PSK_COLL_ALLREDUCE * 4 + PSK_FORM_PLAIN:
        fprintf(o, "%d allreduce %lld 0\n", r, b);
        break;
    case PSK_COLL_ALLTOALL * 4 + PSK_FORM_PLAIN:
        fprintf(o, "%d alltoall %lld %lld\n", r, b, b);
        break;
    case PSK_COLL_GATHER * 4 + PSK_FORM_PLAIN:
        fprintf(o, "%d gather %lld %lld %lld\n", r, b, b, (long long)e->v[PSK_F_ROOT]);
        break;
    case PSK_COLL_SCATTER * 4 + PSK_FORM_PLAIN:
        fprintf(o, "%d scatter %lld %lld %lld\n", r, b, b, (long long)e->v[PSK_F_ROOT]);
        break;
    case PSK_COLL_ALLGATHER * 4 + PSK_FORM_PLAIN:
        fprintf(o, "%d allgather %lld %lld\n", r, b, b);
        break;
    case PSK_COLL_GATHER * 4 + PSK_FORM_V: case PSK_COLL_ALLGATHER * 4 + PSK_FORM_V:
        /* <sendcount> <recvcounts x P> [root]: the counts where this rank has them, else 0 */
        fprintf(o, "%d %s %lld", r, coll == PSK_COLL_GATHER ? "gatherv" : "allgatherv", b);
        counts(o, e, PSK_F_RCOUNTS, PSK_F_RDTSIZE, P);
        if (coll == PSK_COLL_GATHER)
            fprintf(o, " %lld", (long long)e->v[PSK_F_ROOT]);
        fputc('\n', o);
        break;
    case PSK_COLL_SCATTER * 4 + PSK_FORM_V: /* <sendcounts x P> <recvcount> [root] */
        fprintf(o, "%d scatterv", r);
        counts(o, e, PSK_F_COUNTS, PSK_F_DTSIZE, P);
        fprintf(o, " %lld %lld\n",
                (long long)(e->v[PSK_F_RCOUNT] * (PSK_HAS(e, PSK_F_RDTSIZE) ? e->v[PSK_F_RDTSIZE] : 1)),
                (long long)e->v[PSK_F_ROOT]);
        break;
    case PSK_COLL_ALLTOALL * 4 + PSK_FORM_V: /* <sendbuf> <sendcounts x P> <recvbuf> <recvcounts x P> */
        fprintf(o, "%d alltoallv %lld", r, (long long)sum_counts(e, PSK_F_COUNTS, PSK_F_DTSIZE));
        counts(o, e, PSK_F_COUNTS, PSK_F_DTSIZE, P);
        fprintf(o, " %lld", (long long)sum_counts(e, PSK_F_RCOUNTS, PSK_F_RDTSIZE));
        counts(o, e, PSK_F_RCOUNTS, PSK_F_RDTSIZE, P);
        fputc('\n', o);
        break;
    case PSK_COLL_REDUCE_SCATTER * 4 + PSK_FORM_V: /* <recvcounts x P> <flops> */
        fprintf(o, "%d reducescatter", r);
        counts(o, e, PSK_F_RCOUNTS, PSK_F_DTSIZE, P);
        fprintf(o, " 0\n");
        break;
    case PSK_COLL_REDUCE_SCATTER * 4 + PSK_FORM_PLAIN:
        /* its plain form: a reduce of everything to 0, a scatter of the blocks */
        fprintf(o, "%d reduce %lld 0 0\n%d scatter %lld %lld 0\n", r, b * P, r, b, b);
        break;
    default: /* alltoallw, scan, exscan */
        return 1;
    }
    return 0;
}

/* one rank's events as SMPI actions; 0, or a message in err */
static int export_rank(psk_trace *t, int r, int P, FILE *o, char *err, size_t cap)
{
    psk_rank_reader *rd;
    if (psk_rank_open(t, r, &rd)) {
        snprintf(err, cap, "%s", psk_trace_errmsg(t));
        return -1;
    }
    rq *req = NULL;
    int64_t nreq = 0;
    psk_event e;
    uint64_t prev = 0;
    int first = 1, rc = 0;
    while ((rc = psk_rank_next(rd, &e)) == PSK_OK) {
        unsigned fn = e.fn;
        const char *name = psk_fn_name(fn);
        /* a run of polls (merged traces only) is not an SMPI action */
        int op = psk_fn_polled(fn) ? -1 : psk_fn_op(fn);
        if (!first && e.t_entry > prev && op != PSK_FNOP_INIT)
            fprintf(o, "%d compute %llu\n", r, (unsigned long long)(e.t_entry - prev));
        first = 0;
        prev = e.t_exit;
        int cls = psk_fn_class(fn);
        if (PSK_HAS(&e, PSK_F_COMM) && e.v[PSK_F_COMM] != 0 && cls != PSK_CLASS_COMM) {
            snprintf(err, cap, "rank %d: %s on communicator %lld: SMPI's replay knows MPI_COMM_WORLD only", r, name,
                     (long long)e.v[PSK_F_COMM]);
            rc = -1;
            break;
        }
        int64_t peer = PSK_HAS(&e, PSK_F_PEER) ? e.v[PSK_F_PEER] : 0, tag = PSK_HAS(&e, PSK_F_TAG) ? e.v[PSK_F_TAG] : 0;
        /* SMPI's own values of the wildcards */
        if (peer == PSK_ANY_SOURCE)
            peer = SMPI_ANY_SOURCE;
        if (tag == PSK_ANY_TAG)
            tag = SMPI_ANY_TAG;
        switch (op) {
        case PSK_FNOP_INIT:
            fprintf(o, "%d init\n", r);
            break;
        case PSK_FNOP_FINALIZE:
            fprintf(o, "%d finalize\n", r);
            break;
        case PSK_FNOP_SEND:
            if (peer >= 0)
                fprintf(o, "%d send %lld %lld %lld\n", r, (long long)peer, (long long)tag, (long long)bytes(&e));
            break;
        case PSK_FNOP_RECV:
            if (peer == SMPI_ANY_SOURCE && PSK_HAS(&e, PSK_F_ASRC) && e.v[PSK_F_ASRC] >= 0)
                peer = e.v[PSK_F_ASRC];
            if (PSK_HAS(&e, PSK_F_ATAG) && e.v[PSK_F_ATAG] >= 0)
                tag = e.v[PSK_F_ATAG];
            if (peer >= 0 || peer == SMPI_ANY_SOURCE)
                fprintf(o, "%d recv %lld %lld %lld\n", r, (long long)peer, (long long)tag, (long long)bytes(&e));
            break;
        case PSK_FNOP_ISEND: case PSK_FNOP_IRECV: case PSK_FNOP_SEND_INIT: case PSK_FNOP_RECV_INIT: {
            int recv = op == PSK_FNOP_IRECV || op == PSK_FNOP_RECV_INIT;
            int persist = op == PSK_FNOP_SEND_INIT || op == PSK_FNOP_RECV_INIT;
            rq *x = getrq(&req, &nreq, PSK_HAS(&e, PSK_F_REQ) ? e.v[PSK_F_REQ] : -1);
            if (x && (peer >= 0 || (recv && peer == SMPI_ANY_SOURCE))) {
                *x = (rq){.used = 1, .src = recv ? (int)peer : r, .dst = recv ? r : (int)peer, .tag = (int)tag,
                          .persistent = persist, .kind = recv ? 2 : 1, .bytes = bytes(&e)};
                if (!persist)
                    fprintf(o, "%d %s %lld %lld %lld\n", r, recv ? "irecv" : "isend", (long long)peer,
                            (long long)tag, (long long)x->bytes);
            } else if (x) {
                x->used = 0;
            }
            break;
        }
        case PSK_FNOP_START: case PSK_FNOP_STARTALL: {
            uint32_t n = op == PSK_FNOP_START ? 1 : PSK_ARRN(&e, PSK_F_REQS);
            for (uint32_t k = 0; k < n; k++) {
                rq *x = getrq(&req, &nreq, op == PSK_FNOP_START ? e.v[PSK_F_REQ] : PSK_ARR(&e, PSK_F_REQS)[k]);
                if (x && x->used)
                    fprintf(o, "%d %s %d %d %lld\n", r, x->kind == 2 ? "irecv" : "isend",
                            x->kind == 2 ? x->src : x->dst, x->tag, (long long)x->bytes);
            }
            break;
        }
        case PSK_FNOP_WAIT: case PSK_FNOP_TEST:
            if (op == PSK_FNOP_WAIT || e.v[PSK_F_FLAG])
                wait_req(o, r, getrq(&req, &nreq, e.v[PSK_F_REQ]));
            break;
        case PSK_FNOP_WAITALL: case PSK_FNOP_TESTALL:
            for (uint32_t k = 0; (op == PSK_FNOP_WAITALL || e.v[PSK_F_FLAG]) && k < PSK_ARRN(&e, PSK_F_REQS); k++)
                wait_req(o, r, getrq(&req, &nreq, PSK_ARR(&e, PSK_F_REQS)[k]));
            break;
        case PSK_FNOP_WAITANY: case PSK_FNOP_TESTANY: {
            int64_t i = e.v[PSK_F_INDEX];
            if ((op == PSK_FNOP_WAITANY || e.v[PSK_F_FLAG]) && i >= 0 && i < (int64_t)PSK_ARRN(&e, PSK_F_REQS))
                wait_req(o, r, getrq(&req, &nreq, PSK_ARR(&e, PSK_F_REQS)[i]));
            break;
        }
        case PSK_FNOP_WAITSOME: case PSK_FNOP_TESTSOME:
            for (uint32_t k = 0; k < PSK_ARRN(&e, PSK_F_INDICES); k++) {
                int64_t i = PSK_ARR(&e, PSK_F_INDICES)[k];
                if (i >= 0 && i < (int64_t)PSK_ARRN(&e, PSK_F_REQS))
                    wait_req(o, r, getrq(&req, &nreq, PSK_ARR(&e, PSK_F_REQS)[i]));
            }
            break;
        case PSK_FNOP_SENDRECV: case PSK_FNOP_SENDRECV_REPLACE: {
            int64_t from = e.v[PSK_F_RPEER] == PSK_ANY_SOURCE && PSK_HAS(&e, PSK_F_ASRC) ? e.v[PSK_F_ASRC]
                                                                                          : e.v[PSK_F_RPEER];
            int64_t rtag = e.v[PSK_F_RTAG] == PSK_ANY_TAG ? SMPI_ANY_TAG : e.v[PSK_F_RTAG];
            int64_t rb = op == PSK_FNOP_SENDRECV
                             ? e.v[PSK_F_RCOUNT] * (PSK_HAS(&e, PSK_F_RDTSIZE) ? e.v[PSK_F_RDTSIZE] : 1)
                             : bytes(&e);
            if (peer >= 0)
                fprintf(o, "%d isend %lld %lld %lld\n", r, (long long)peer, (long long)tag, (long long)bytes(&e));
            if (from >= 0)
                fprintf(o, "%d recv %lld %lld %lld\n", r, (long long)from, (long long)rtag, (long long)rb);
            if (peer >= 0)
                fprintf(o, "%d wait %d %lld %lld\n", r, r, (long long)peer, (long long)tag);
            break;
        }
        case PSK_FNOP_NCOLL:
            snprintf(err, cap, "rank %d: %s is not exported (SMPI's replay has no neighborhood collectives)", r, name);
            rc = -1;
            break;
        case PSK_FNOP_COLL: case PSK_FNOP_ICOLL:
            if (op != PSK_FNOP_COLL || export_coll(o, r, P, &e, psk_fn_coll(fn), psk_fn_form(fn))) {
                snprintf(err, cap, "rank %d: %s is not exported (nonblocking collectives not yet)", r, name);
                rc = -1;
            }
            break;
        default:
            break;
        }
        if (rc)
            break;
    }
    if (rc == PSK_EOF)
        rc = 0;
    else if (rc > 0 || (rc < 0 && rc != -1))
        snprintf(err, cap, "%s", psk_rank_errmsg(rd)), rc = -1;
    free(req);
    psk_rank_close(rd);
    return rc;
}

int psk_convert_export_smpi(psk_trace *t, const char *input, const psk_machine *m, const char *out, char *err,
                            size_t errcap)
{
    err[0] = 0;
    int P = psk_trace_job(t)->nranks, rc = 0;
    if (mkdir(out, 0755) && errno != EEXIST) {
        psk_convert_fail(err, errcap, "%s: %s", out, strerror(errno));
        rc = PSK_EIO;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/traces.txt", out);
    FILE *list = rc ? NULL : fopen(path, "w");
    if (!rc && !list) {
        psk_convert_fail(err, errcap, "%s: %s", path, strerror(errno));
        rc = PSK_EIO;
    }
    for (int r = 0; !rc && r < P; r++) {
        snprintf(path, sizeof path, "%s/rank-%d.txt", out, r);
        FILE *o = fopen(path, "w");
        if (!o) {
            psk_convert_fail(err, errcap, "%s: %s", path, strerror(errno));
            rc = PSK_EIO;
            break;
        }
        char rerr[512] = "";
        if (export_rank(t, r, P, o, rerr, sizeof rerr)) {
            psk_convert_fail(err, errcap, "%s: %s", input, rerr);
            rc = PSK_EFORMAT;
        }
        if (fclose(o) && !rc) {
            psk_convert_fail(err, errcap, "%s: cannot write", path);
            rc = PSK_EIO;
        }
        fprintf(list, "rank-%d.txt\n", r);
    }
    if (list && fclose(list) && !rc) {
        psk_convert_fail(err, errcap, "%s/traces.txt: cannot write", out);
        rc = PSK_EIO;
    }
    /* a platform like the machine file: one host per rank, a cluster with
     * the machine's latency and bandwidth */
    if (!rc) {
        snprintf(path, sizeof path, "%s/platform.xml", out);
        FILE *p = fopen(path, "w");
        double bw = m->byte_us > 0 ? 1e6 / m->byte_us : 1e12; /* bytes per second */
        if (p) {
            fprintf(p, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                       "<platform version=\"4.1\"><zone id=\"AS0\" routing=\"Full\">\n"
                       " <cluster id=\"c\" prefix=\"node-\" suffix=\"\" radical=\"0-%d\" speed=\"1Gf\" "
                       "bw=\"%.6gBps\" lat=\"%.6gus\"/>\n</zone></platform>\n",
                    P - 1, bw, m->start_us);
            fclose(p);
        }
        snprintf(path, sizeof path, "%s/hostfile", out);
        FILE *h = fopen(path, "w");
        for (int r = 0; h && r < P; r++)
            fprintf(h, "node-%d\n", r);
        if (h)
            fclose(h);
        if (!p || !h) {
            psk_convert_fail(err, errcap, "%s: cannot write the platform or the hostfile", out);
            rc = PSK_EIO;
        }
    }
    return rc;
}
