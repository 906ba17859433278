/* perfskel import --otf2: an OTF2 archive (Score-P's, perfskel export
 * --otf2's, any writer's) as a perfskel trace directory, written through
 * perfskel's trace writer, so that merge, fold, sim and gen run on it.
 *
 * The ranks are the locations of the MPI COMM_LOCATIONS group, in its
 * order (without one: every location, by id). Each rank's MPI calls are
 * its outermost Enter/Leave pairs of regions named like a function
 * perfskel records ("MPI_Send"); their arguments come from the MPI records
 * inside them: MpiSend/MpiRecv (peer, tag, bytes, communicator),
 * MpiIsend and MpiIrecvRequest (a request, completed by MpiIsendComplete
 * or MpiIrecv in a later wait or test, which gives an Irecv its source,
 * tag and bytes), MpiCollectiveEnd (communicator, root, bytes sent and
 * received), NonBlockingCollectiveRequest/Complete, CommCreate and
 * CommDestroy. Counts are bytes (datatype size 1). Other regions (user
 * code, MPI functions perfskel does not record) become compute; what
 * cannot be mapped is counted and said, one line per kind.
 *
 * The archive is untrusted: every reference (string, region, group,
 * communicator, location, request), every rank and root against its
 * communicator's size, and the order of times and of Enter/Leave are
 * checked, and the first fault is refused with one line naming the file.
 * Times: ns since the clock's global offset (converted from its timer
 * resolution); each rank starts at its first MPI call's entry. The
 * compute unit skeletons need is timed on this machine (the archive does
 * not say how fast the recording machine was). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "convert_internal.h"
#include "convert_otf2_read.h"
#include "perfskel/convert.h"
#include "psk_work.h"

static const char *const kind_msg[K_NKINDS] = {
    [K_USER] = "entries of regions that are not MPI calls (user code), their time kept as compute",
    [K_MPI_OTHER] = "calls of MPI functions perfskel does not record (e.g. %s), their time kept as compute",
    [K_NOINFO] = "calls OTF2 keeps no arguments of (probes, group calls, MPI_Pcontrol, MPI_Dims_create; e.g. %s), "
                 "their time kept as compute",
    [K_PERSIST] = "persistent request creations and frees left out: each MPI_Start or MPI_Startall written as the "
                  "Isend or Irecv it starts",
    [K_NOREC_P2P] = "point-to-point calls without their message record (as for MPI_PROC_NULL), written with peer "
                    "MPI_PROC_NULL",
    [K_NOREC_COLL] = "collectives without their collective record, written on MPI_COMM_WORLD with no bytes",
    [K_NEVER_DONE] = "nonblocking calls never completed, written without their source, tag and size",
    [K_UNKNOWN_REQ] = "completions or tests of requests not seen started, left out",
    [K_COMM_NOCREATE] = "communicators used without a creation record on their rank, given an id without members",
    [K_VCOUNTS] = "v-collectives, whose per-rank counts OTF2 does not keep: their bytes spread evenly",
    [K_OUTSIDE] = "MPI records outside an MPI call, left out",
    [K_NESTED] = "MPI calls inside other MPI calls, counted as part of the outer call",
    [K_OTHER_LOC] = "locations that are not MPI ranks (threads, devices), left out",
    [K_ROOT] = "rooted collectives without a root, written with root 0",
    [K_MRECV] = "matched receives (MPI_Mrecv, MPI_Imrecv) written as MPI_Recv and MPI_Irecv",
    [K_FORCED] = "nonblocking calls completed more than 65536 calls later, written before their completion was "
                 "read: without their source, tag and size",
};

static double mono_ns_d(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int psk_convert_import_otf2(const char *anchor, const char *out, const psk_convert_opts *o, char *err, size_t errcap)
{
    psk_convert_opts none = {0};
    if (!o)
        o = &none;
    err[0] = 0;
    FILE *f = fopen(anchor, "rb");
    if (!f) {
        psk_convert_fail(err, errcap, "%s: %s", anchor, strerror(errno));
        return PSK_EIO;
    }
    fclose(f);
    defs d = {0};
    imp x = {.d = &d, .anchor = anchor, .call = -1};
    x.rq = calloc(MAXREQ, sizeof *x.rq);
    x.rhash = calloc((size_t)1 << HBITS, sizeof *x.rhash);
    if (!x.rq || !x.rhash) {
        free(x.rq), free(x.rhash);
        psk_convert_fail(err, errcap, "%s: out of memory", anchor);
        return PSK_ENOMEM;
    }
    uint64_t *rank_loc = NULL, *mono = NULL;
    double *unit = NULL, *q1 = NULL, *q3 = NULL;
    const char **hosts = NULL;
    int *cores = NULL, allcores = 1; /* each host's cores, where the archive says (export writes them) */
    OTF2_EvtReaderCallbacks *cb = NULL;
    int rc = PSK_EFORMAT, defs_open = 0, evts_open = 0;
    psk_otf2_err oe;
    psk_otf2_err_catch(&oe);
    x.oe = &oe;
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd || OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS) {
        psk_convert_fail(err, errcap, "%s: not an OTF2 archive: %s", anchor, oe.msg);
        goto done;
    }
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gdr || !gcb) {
        OTF2_GlobalDefReaderCallbacks_Delete(gcb);
        psk_convert_fail(err, errcap, "%s: cannot read its definitions: %s", anchor, oe.msg);
        goto done;
    }
    psk_otf2in_defs_callbacks(gcb);
    uint64_t ndefs = 0;
    OTF2_ErrorCode c = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, gcb, &d);
    if (c == OTF2_SUCCESS)
        c = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &ndefs);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    if (d.err[0] || c != OTF2_SUCCESS) {
        psk_convert_fail(err, errcap, "%s: definitions: %s", anchor,
                      d.err[0] ? d.err : oe.msg[0] ? oe.msg : OTF2_Error_GetDescription(c));
        goto done;
    }
    int64_t other = 0;
    if (psk_otf2in_check_defs(&d, anchor, &rank_loc, &x.P, &other, &x.world, &x.self)) {
        psk_convert_fail(err, errcap, "%s: definitions: %s", anchor, d.err);
        goto done;
    }
    if (x.world == OTF2_UNDEFINED_UINT32) {
        psk_convert_fail(err, errcap, "%s: definitions: no MPI_COMM_WORLD (a communicator of every rank in order, without a parent)",
                      anchor);
        goto done;
    }
    x.count[K_OTHER_LOC] = (uint64_t)other;
    /* the local definitions (mapping tables, clock offsets) of the ranks' locations */
    for (int r = 0; r < x.P; r++)
        if (OTF2_Reader_SelectLocation(rd, rank_loc[r]) != OTF2_SUCCESS) {
            psk_convert_fail(err, errcap, "%s: location %llu: %s", anchor, (unsigned long long)rank_loc[r], oe.msg);
            goto done;
        }
    if (OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS) {
        defs_open = 1;
        for (int r = 0; r < x.P; r++) {
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, rank_loc[r]);
            if (!dr)
                continue; /* none for this location */
            uint64_t nd = 0;
            c = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &nd);
            OTF2_Reader_CloseDefReader(rd, dr);
            if (c != OTF2_SUCCESS) {
                psk_convert_fail(err, errcap, "%s: location %llu: local definitions: %s", anchor, (unsigned long long)rank_loc[r],
                              oe.msg[0] ? oe.msg : OTF2_Error_GetDescription(c));
                goto done;
            }
        }
        OTF2_Reader_CloseDefFiles(rd);
        defs_open = 0;
    }
    if (OTF2_Reader_OpenEvtFiles(rd) != OTF2_SUCCESS) {
        psk_convert_fail(err, errcap, "%s: cannot open its events: %s", anchor, oe.msg);
        goto done;
    }
    evts_open = 1;
    if (!(cb = psk_otf2in_callbacks())) {
        psk_convert_fail(err, errcap, "%s: out of memory", anchor);
        goto done;
    }
    /* pass 1: where each rank starts (its first MPI call) */
    mono = calloc((size_t)x.P, sizeof *mono);
    if (!mono) {
        psk_convert_fail(err, errcap, "%s: out of memory", anchor);
        goto done;
    }
    x.pass = 1;
    const char *step = "finding where the ranks start";
    psk_convert_progress(o, step, 0, (uint64_t)x.P);
    for (int r = 0; r < x.P; r++) {
        x.rank = r, x.loc = rank_loc[r], x.first_mpi = 0;
        if (psk_otf2in_read_rank(&x, rd, cb)) {
            psk_convert_progress(o, NULL, 0, 0);
            psk_convert_fail(err, errcap, "%s: %s", anchor, x.err);
            goto done;
        }
        mono[r] = x.first_mpi ? x.first_mpi - 1 : 0;
        psk_convert_progress(o, step, (uint64_t)r + 1, (uint64_t)x.P);
    }
    psk_convert_progress(o, NULL, 0, 0);
    /* the job: hosts from the system tree, the compute unit timed here */
    hosts = calloc((size_t)x.P, sizeof *hosts);
    cores = calloc((size_t)x.P, sizeof *cores);
    unit = calloc((size_t)x.P, sizeof *unit), q1 = calloc((size_t)x.P, sizeof *q1), q3 = calloc((size_t)x.P, sizeof *q3);
    if (!hosts || !cores || !unit || !q1 || !q3) {
        psk_convert_fail(err, errcap, "%s: out of memory", anchor);
        goto done;
    }
    double wt[3];
    psk_work_time(mono_ns_d, wt);
    for (int r = 0; r < x.P; r++) {
        hosts[r] = "unknown";
        for (int64_t i = 0; i < d.nloc; i++)
            if (d.loc[i].ref == rank_loc[r] && d.loc[i].group < d.nlg && d.lg[d.loc[i].group].defined) {
                uint32_t p = d.lg[d.loc[i].group].parent;
                if (p < d.nstn && d.stn[p].defined && psk_otf2in_string(&d, d.stn[p].name))
                    hosts[r] = psk_otf2in_string(&d, d.stn[p].name);
                if (p < d.nstn && d.stn[p].defined)
                    cores[r] = d.stn[p].cores;
            }
        allcores &= cores[r] > 0;
        unit[r] = wt[0], q1[r] = wt[1], q3[r] = wt[2];
    }
    char start[32] = "", cmd[4200];
    if (d.realtime != OTF2_UNDEFINED_TIMESTAMP) {
        time_t s = (time_t)(d.realtime / 1000000000u);
        struct tm tm;
        if (gmtime_r(&s, &tm))
            strftime(start, sizeof start, "%Y-%m-%dT%H:%M:%SZ", &tm);
    }
    snprintf(cmd, sizeof cmd, "perfskel import --otf2 %s", anchor);
    uint64_t trace_id = 0;
    OTF2_Reader_GetTraceId(rd, &trace_id);
    psk_job job = {.job_id = trace_id ? trace_id : 0x07f2, .nranks = x.P, .flavour = d.flavour,
                   .mpi_version = "imported from OTF2", .command = cmd, .start_time = start, .hosts = hosts,
                   .cores = allcores ? cores : NULL,
                   .work_kernel = PSK_WORK_KERNEL, .work_ns_per_unit = unit, .work_q1_ns = q1, .work_q3_ns = q3};
    if (psk_writer_open(out, &job, mono, &x.w) != PSK_OK) {
        psk_convert_fail(err, errcap, "%s", psk_writer_errmsg(x.w));
        goto done;
    }
    /* pass 2: the events */
    x.pass = 2;
    step = "converting the ranks' events";
    psk_convert_progress(o, step, 0, (uint64_t)x.P);
    for (int r = 0; r < x.P; r++) {
        x.rank = r, x.loc = rank_loc[r];
        if (psk_otf2in_read_rank(&x, rd, cb)) {
            psk_convert_progress(o, NULL, 0, 0);
            psk_convert_fail(err, errcap, "%s: %s", anchor, x.err);
            goto done;
        }
        psk_convert_progress(o, step, (uint64_t)r + 1, (uint64_t)x.P);
    }
    psk_convert_progress(o, NULL, 0, 0);
    if (psk_writer_close(x.w) != PSK_OK) {
        psk_convert_fail(err, errcap, "%s", psk_writer_errmsg(x.w));
        goto done;
    }
    rc = PSK_OK;
    for (int k = 0; k < K_NKINDS && o->note; k++) {
        if (!x.count[k])
            continue;
        char msg[300], line[4400];
        snprintf(msg, sizeof msg, kind_msg[k], x.example[k]);
        snprintf(line, sizeof line, "%s: %llu %s", anchor, (unsigned long long)x.count[k], msg);
        o->note(o->note_arg, line);
    }
done:
    if (x.w)
        psk_writer_free(x.w);
    if (cb)
        OTF2_EvtReaderCallbacks_Delete(cb);
    if (rd) {
        if (evts_open)
            OTF2_Reader_CloseEvtFiles(rd);
        if (defs_open)
            OTF2_Reader_CloseDefFiles(rd);
        OTF2_Reader_Close(rd);
    }
    psk_otf2in_reset_rank(&x);
    free(x.stack), free(x.rec), free(x.q), free(x.rq), free(x.rhash), free(x.comm_id), free(x.comm_used);
    free(rank_loc), free(mono), free(unit), free(q1), free(q3), free(hosts), free(cores);
    psk_otf2in_free_defs(&d);
    return rc;
}
