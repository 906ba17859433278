/* Names and properties of recorded functions, fields and constants, from
 * the table generated from src/record/mpi_functions.def (psk_fn_table.c),
 * for readers of traces. Ids start at 1; 0 and unknown ids have no name. */
#include <string.h>

#include "trace_format.h"

unsigned psk_fn_count(void) { return psk_fn_count_; }

static const psk_fn_info *info(unsigned fn)
{
    if (fn == 0 || fn >= psk_fn_count_ || !psk_fn_table[fn].name)
        return NULL;
    return &psk_fn_table[fn];
}

const char *psk_fn_name(unsigned fn)
{
    const psk_fn_info *i = info(fn);
    return i ? i->name : NULL;
}

unsigned psk_fn_lookup(const char *name)
{
    for (unsigned fn = 1; fn < psk_fn_count_; fn++)
        if (psk_fn_table[fn].name && strcmp(psk_fn_table[fn].name, name) == 0)
            return fn;
    return 0;
}

int psk_fn_class(unsigned fn)
{
    const psk_fn_info *i = info(fn);
    return i ? i->cls : -1;
}

int psk_fn_op(unsigned fn)
{
    const psk_fn_info *i = info(fn);
    return i ? i->op : -1;
}

int psk_fn_coll(unsigned fn)
{
    const psk_fn_info *i = info(fn);
    return i ? i->coll : -1;
}

int psk_fn_form(unsigned fn)
{
    const psk_fn_info *i = info(fn);
    return i ? i->form : PSK_FORM_PLAIN;
}

uint32_t psk_fn_fields(unsigned fn)
{
    const psk_fn_info *i = info(fn);
    return i ? i->fields : 0;
}

unsigned psk_fn_polled(unsigned fn)
{
    const psk_fn_info *i = info(fn);
    return i ? i->poll_of : 0;
}

unsigned psk_fn_poll(unsigned fn)
{
    const psk_fn_info *i = info(fn);
    return i ? i->poll : 0;
}

int psk_fn_sync(unsigned fn)
{
    const psk_fn_info *i = info(fn);
    return i ? i->sync : 0;
}

int psk_fn_frees(unsigned fn)
{
    const psk_fn_info *i = info(fn);
    return i ? i->frees : 0;
}

unsigned psk_fn_of_op(int op)
{
    for (unsigned fn = 1; fn < psk_fn_count_; fn++)
        if (psk_fn_table[fn].name && psk_fn_table[fn].op == op && !psk_fn_table[fn].poll_of)
            return fn;
    return 0;
}

int psk_event_found(const psk_event *e)
{
    if (PSK_HAS(e, PSK_F_INDICES) && !PSK_HAS(e, PSK_F_FLAG))
        return PSK_ARRN(e, PSK_F_INDICES) > 0; /* Testsome */
    if (!PSK_HAS(e, PSK_F_FLAG))
        return 1; /* a Wait family call or Probe: it completed */
    if (!e->v[PSK_F_FLAG])
        return 0;
    return !PSK_HAS(e, PSK_F_INDEX) || e->v[PSK_F_INDEX] >= 0; /* Testany of nulls found nothing */
}

uint64_t psk_event_failed_polls(const psk_event *ev, uint64_t *calls)
{
    const psk_fn_info *i = info(ev->fn);
    uint64_t n = 1, failed = 0;
    if (i && i->poll_of) { /* a run of polls: FLAG says whether it ended by finding */
        n = PSK_HAS(ev, PSK_F_I1) && ev->v[PSK_F_I1] > 0 ? (uint64_t)ev->v[PSK_F_I1] : 1;
        failed = n - (PSK_HAS(ev, PSK_F_FLAG) && ev->v[PSK_F_FLAG] ? 1 : 0);
    } else if (psk_fn_poll_wait(ev->fn)) {
        failed = !psk_event_found(ev);
    }
    if (calls)
        *calls = n;
    return failed;
}

unsigned psk_fn_poll_wait(unsigned fn)
{
    const psk_fn_info *i = info(fn);
    return i ? i->poll_wait : 0;
}

static uint64_t mix(uint64_t h, int64_t v)
{
    h ^= (uint64_t)v;
    return h * 0x100000001b3ull;
}

uint64_t psk_event_poll_key(const psk_event *ev)
{
    uint64_t h = 0xcbf29ce484222325ull;
    if (PSK_HAS(ev, PSK_F_REQ))
        h = mix(h, ev->v[PSK_F_REQ]);
    if (PSK_HAS(ev, PSK_F_PEER))
        h = mix(mix(mix(h, ev->v[PSK_F_PEER]), ev->v[PSK_F_TAG]), ev->v[PSK_F_COMM]);
    if (PSK_HAS(ev, PSK_F_REQS)) {
        h = mix(h, PSK_ARRN(ev, PSK_F_REQS));
        for (uint32_t k = 0; k < PSK_ARRN(ev, PSK_F_REQS); k++)
            h = mix(h, PSK_ARR(ev, PSK_F_REQS)[k]);
    }
    return h;
}

const char *psk_field_name(int field)
{
    static const char *const names[PSK_F_NFIELDS] = {
        "comm", "peer", "tag", "count", "dtsize", "rpeer", "rtag", "rcount",
        "rdtsize", "root", "op", "req", "flag", "index", "newid", "group",
        "i1", "i2", "src", "srctag", "counts", "rcounts", "dtsizes",
        "rdtsizes", "reqs", "indices", "members", "statuses", "dims", "periods",
        "dimsin"};
    return field >= 0 && field < PSK_F_NFIELDS ? names[field] : "?";
}

const char *psk_class_name(int cls)
{
    static const char *const names[PSK_CLASS_COUNT] = {
        "env", "p2p", "persistent", "completion", "collective",
        "nonblocking-collective", "communicator"};
    return cls >= 0 && cls < PSK_CLASS_COUNT ? names[cls] : "?";
}

const char *psk_op_name(int op)
{
    static const char *const names[PSK_OP_COUNT] = {
        "user", "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND",
        "MPI_BAND", "MPI_LOR", "MPI_BOR", "MPI_LXOR", "MPI_BXOR",
        "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP", "MPI_OP_NULL"};
    return op >= 0 && op < PSK_OP_COUNT ? names[op] : "?";
}

const char *psk_flavour_name(int flavour)
{
    return flavour == PSK_MPI_OPENMPI ? "openmpi" : flavour == PSK_MPI_MPICH ? "mpich" : "unknown";
}

static uint64_t sum_bytes(const psk_event *ev, int counts, int64_t size)
{
    uint64_t b = 0;
    for (uint32_t i = 0; i < PSK_ARRN(ev, counts); i++)
        b += (uint64_t)PSK_ARR(ev, counts)[i] * (uint64_t)size;
    return b;
}

int psk_event_members_check(const psk_event *ev, int rank, int nranks, int64_t *bad)
{
    if (!(ev->fields >> PSK_F_MEMBERS & 1u))
        return 0;
    int k = PSK_F_MEMBERS - PSK_F_FIRST_ARRAY, maker = 0;
    for (uint32_t j = 0; j < ev->n[k]; j++) {
        if (ev->arr[k][j] < 0 || ev->arr[k][j] >= nranks) {
            *bad = ev->arr[k][j];
            return 1;
        }
        maker |= ev->arr[k][j] == rank;
    }
    /* a communicator made (not MPI_COMM_NULL, not an id left out) */
    int made = ev->fn < psk_fn_count_ && psk_fn_table[ev->fn].makes_comm && (ev->fields >> PSK_F_NEWID & 1u) &&
               ev->v[PSK_F_NEWID] >= 0;
    return made && !maker ? 2 : 0;
}

int psk_event_in_place(const psk_event *ev)
{
    if (psk_fn_class(ev->fn) != PSK_CLASS_COLL && psk_fn_class(ev->fn) != PSK_CLASS_ICOLL)
        return 0;
    int rsf = PSK_HAS(ev, PSK_F_RDTSIZE) ? PSK_F_RDTSIZE : PSK_F_DTSIZE;
    if (!PSK_HAS(ev, PSK_F_COUNT) || !PSK_HAS(ev, PSK_F_RCOUNT) || !PSK_HAS(ev, rsf))
        return 0;
    int64_t sb = ev->v[PSK_F_COUNT] * (PSK_HAS(ev, PSK_F_DTSIZE) ? ev->v[PSK_F_DTSIZE] : 1);
    int64_t rb = ev->v[PSK_F_RCOUNT] * ev->v[rsf];
    if (psk_fn_coll(ev->fn) == PSK_COLL_SCATTER)
        return rb == 0 && sb != 0;
    return sb == 0 && rb != 0;
}

uint64_t psk_event_bytes(const psk_event *ev)
{
    const psk_fn_info *i = info(ev->fn);
    if (!i)
        return 0;
    int64_t count = PSK_HAS(ev, PSK_F_COUNT) ? ev->v[PSK_F_COUNT] : 0;
    int64_t size = PSK_HAS(ev, PSK_F_DTSIZE) ? ev->v[PSK_F_DTSIZE] : 0;
    switch (i->bytes_rule) {
    case PSK_BYTES_SEND:
    case PSK_BYTES_RECV:
    case PSK_BYTES_SENDRECV:
        if (PSK_HAS(ev, PSK_F_PEER) && ev->v[PSK_F_PEER] == PSK_PROC_NULL)
            return 0; /* nothing moves */
        return (uint64_t)count * (uint64_t)size;
    case PSK_BYTES_COLL:
        if (PSK_HAS(ev, PSK_F_COUNTS)) {
            if (PSK_HAS(ev, PSK_F_DTSIZES)) {
                uint64_t b = 0;
                for (uint32_t k = 0; k < PSK_ARRN(ev, PSK_F_COUNTS) &&
                                     k < PSK_ARRN(ev, PSK_F_DTSIZES); k++)
                    b += (uint64_t)PSK_ARR(ev, PSK_F_COUNTS)[k] *
                         (uint64_t)PSK_ARR(ev, PSK_F_DTSIZES)[k];
                return b;
            }
            return sum_bytes(ev, PSK_F_COUNTS, size);
        }
        if (PSK_HAS(ev, PSK_F_COUNT)) {
            /* an allgather or alltoall made in place sends what each
             * peer receives (a gather's root in place sends nothing) */
            int ag = i->coll == PSK_COLL_ALLGATHER || i->coll == PSK_COLL_ALLTOALL;
            return ag && psk_event_in_place(ev) ? (uint64_t)ev->v[PSK_F_RCOUNT] * (uint64_t)ev->v[PSK_F_RDTSIZE]
                                                : (uint64_t)count * (uint64_t)size;
        }
        /* Reduce_scatter: what this rank receives */
        if (PSK_HAS(ev, PSK_F_RCOUNTS))
            return sum_bytes(ev, PSK_F_RCOUNTS, size);
        if (PSK_HAS(ev, PSK_F_RCOUNT))
            return (uint64_t)ev->v[PSK_F_RCOUNT] * (uint64_t)size;
        return 0;
    }
    return 0;
}
