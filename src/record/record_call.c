/* What the wrappers record about their arguments: communicators, groups and
 * requests become small dense ids (the lowest free id is reused, so every
 * iteration of a loop records the same ids, as Pilgrim's free list does:
 * Wang, Balaji, Snir, "Pilgrim: Scalable and (near) Lossless MPI Tracing",
 * SC 2021),
 * datatypes become sizes, MPI constants become perfskel's own values, and
 * completions say which requests finished and, for wildcard receives, with
 * which source and tag. Tables are process-wide; with MPI_THREAD_MULTIPLE
 * they are guarded by the recorder's lock (record_core.c). */
#include <stdlib.h>
#include <string.h>

#include "record_call.h"
#include "record_internal.h"

/* ---- handle -> id maps (open addressing, backward-shift deletion) ---- */

typedef struct entry {
    uintptr_t key;  /* 0 = empty slot */
    int32_t id;
    int32_t refs;
    int32_t rank, size; /* communicators: own rank, size of arrays */
    uint32_t flags;
} entry;

typedef struct idmap {
    entry *slot;
    size_t cap, used;  /* cap a power of two */
    uint64_t *bits;    /* id allocator: bit set = id in use */
    size_t nbits;
} idmap;

static idmap comms, groups, reqs;

static size_t hslot(uintptr_t key, size_t cap)
{
    return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

static int32_t id_alloc(idmap *m)
{
    for (size_t w = 0; w < m->nbits / 64; w++)
        if (m->bits[w] != ~0ull) {
            int b = __builtin_ctzll(~m->bits[w]);
            m->bits[w] |= 1ull << b;
            return (int32_t)(w * 64 + (size_t)b);
        }
    size_t nw = m->nbits / 64, nn = nw ? nw * 2 : 4;
    uint64_t *nb = realloc(m->bits, nn * sizeof *nb);
    if (!nb) {
        psk_rec_fail("out of memory for the ids of communicators, groups or requests");
        return PSK_REQ_UNKNOWN;
    }
    memset(nb + nw, 0, (nn - nw) * sizeof *nb);
    m->bits = nb;
    m->nbits = nn * 64;
    m->bits[nw] = 1;
    return (int32_t)(nw * 64);
}

static void id_free(idmap *m, int32_t id)
{
    if (id >= 0 && (size_t)id < m->nbits)
        m->bits[id / 64] &= ~(1ull << (id % 64));
}

static entry *map_find(idmap *m, uintptr_t key)
{
    if (!m->cap || !key)
        return NULL;
    for (size_t i = hslot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->slot[i].key == key)
            return &m->slot[i];
        if (!m->slot[i].key)
            return NULL;
    }
}

/* the n-th entry (0-based) of a key held several times, or NULL */
static entry *map_find_nth(idmap *m, uintptr_t key, int nth)
{
    if (!m->cap || !key)
        return NULL;
    for (size_t i = hslot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->slot[i].key == key && nth-- == 0)
            return &m->slot[i];
        if (!m->slot[i].key)
            return NULL;
    }
}

/* the entry of key with id */
static entry *map_find_id(idmap *m, uintptr_t key, int32_t id)
{
    if (!m->cap || !key)
        return NULL;
    for (size_t i = hslot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->slot[i].key == key && m->slot[i].id == id)
            return &m->slot[i];
        if (!m->slot[i].key)
            return NULL;
    }
}

/* room for one more entry */
static int map_reserve(idmap *m)
{
    if ((m->used + 1) * 2 <= m->cap)
        return 0;
    size_t ncap = m->cap ? m->cap * 2 : 64;
    entry *ns = calloc(ncap, sizeof *ns);
    if (!ns) {
        psk_rec_fail("out of memory for the table of communicators, groups or requests");
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->slot[i].key) {
            size_t j = hslot(m->slot[i].key, ncap);
            while (ns[j].key)
                j = (j + 1) & (ncap - 1);
            ns[j] = m->slot[i];
        }
    free(m->slot);
    m->slot = ns;
    m->cap = ncap;
    return 0;
}

/* the entry of key, made if there is none */
static entry *map_insert(idmap *m, uintptr_t key)
{
    if (map_reserve(m))
        return NULL;
    size_t i = hslot(key, m->cap);
    while (m->slot[i].key && m->slot[i].key != key)
        i = (i + 1) & (m->cap - 1);
    if (!m->slot[i].key)
        m->used++;
    m->slot[i].key = key;
    return &m->slot[i];
}

/* a new entry for key even if key is there already: several live requests
 * can share one handle (Open MPI returns its static completed request for
 * every MPI_Isend that completed at once) */
static entry *map_insert_dup(idmap *m, uintptr_t key)
{
    if (map_reserve(m))
        return NULL;
    size_t i = hslot(key, m->cap);
    while (m->slot[i].key)
        i = (i + 1) & (m->cap - 1);
    m->used++;
    m->slot[i].key = key;
    return &m->slot[i];
}

static void map_remove(idmap *m, entry *e)
{
    size_t i = (size_t)(e - m->slot), mask = m->cap - 1;
    m->slot[i].key = 0;
    m->used--;
    /* shift back the entries of the cluster that follows */
    for (size_t j = (i + 1) & mask; m->slot[j].key; j = (j + 1) & mask) {
        size_t h = hslot(m->slot[j].key, m->cap);
        if (((j - h) & mask) >= ((j - i) & mask)) {
            m->slot[i] = m->slot[j];
            m->slot[j].key = 0;
            i = j;
        }
    }
}

static void map_free(idmap *m)
{
    free(m->slot);
    free(m->bits);
    memset(m, 0, sizeof *m);
}

static uintptr_t hkey(const void *h, size_t size)
{
    uintptr_t k = 0;
    memcpy(&k, h, size < sizeof k ? size : sizeof k);
    return k;
}
#define KEY(h) hkey(&(h), sizeof(h))

/* ---- per-thread scratch ---- */

typedef struct tbuf {
    void *p;
    size_t cap;
} tbuf;

/* initial-exec: no __tls_get_addr call per access (the library is preloaded
 * or linked, so its TLS is allocated at start) */
static __thread tbuf arrbuf[PSK_NARR] __attribute__((tls_model("initial-exec")));
static __thread tbuf snapbuf __attribute__((tls_model("initial-exec")));
static __thread tbuf stsbuf __attribute__((tls_model("initial-exec")));

static void *tgrow(tbuf *b, size_t bytes)
{
    if (bytes > b->cap) {
        size_t n = b->cap ? b->cap : 256;
        while (n < bytes)
            n *= 2;
        void *p = realloc(b->p, n);
        if (!p) {
            psk_rec_fail("out of memory for a call's arrays");
            return NULL;
        }
        b->p = p;
        b->cap = n;
    }
    return b->p;
}

static int64_t *arr_alloc(psk_call *call, int field, size_t n)
{
    int k = field - PSK_F_FIRST_ARRAY;
    int64_t *a = tgrow(&arrbuf[k], (n ? n : 1) * sizeof *a);
    call->n[k] = a ? (uint32_t)n : 0;
    call->arr[k] = a;
    return a;
}

/* ---- communicators ---- */

static MPI_Group world_group;
static int tables_on; /* world_group made: MPI_GROUP_NULL need not be 0 */
static void common_types_init(void);

static entry *comm_register(MPI_Comm comm, int32_t id)
{
    entry *e = map_insert(&comms, KEY(comm));
    if (!e)
        return NULL;
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    e->id = id;
    e->refs = 1;
    e->flags = (uint32_t)inter;
    PMPI_Comm_rank(comm, &e->rank);
    if (inter)
        PMPI_Comm_remote_size(comm, &e->size);
    else
        PMPI_Comm_size(comm, &e->size);
    return e;
}

static entry world_cache;

void psk_tables_init(void)
{
    comms.bits = calloc(4, sizeof *comms.bits);
    if (!comms.bits)
        psk_rec_fail("out of memory in MPI_Init");
    comms.nbits = comms.bits ? 256 : 0;
    if (comms.bits)
        comms.bits[0] = 3; /* ids 0 and 1: MPI_COMM_WORLD, MPI_COMM_SELF */
    entry *w = comm_register(MPI_COMM_WORLD, 0);
    if (w)
        world_cache = *w;
    comm_register(MPI_COMM_SELF, 1);
    tables_on = PMPI_Comm_group(MPI_COMM_WORLD, &world_group) == MPI_SUCCESS;
    common_types_init();
}

void psk_tables_free(void)
{
    if (tables_on && world_group != MPI_GROUP_NULL && psk_mpi_alive())
        PMPI_Group_free(&world_group);
    tables_on = 0;
    map_free(&comms);
    map_free(&groups);
    map_free(&reqs);
}

void psk_set_comm(psk_call *call, MPI_Comm comm)
{
    const entry *e;
    if (comm == MPI_COMM_WORLD) {
        e = &world_cache;
    } else if (comm == MPI_COMM_NULL) {
        call->v[PSK_F_COMM] = -1;
        call->asize = 0;
        return;
    } else {
        psk_rec_lock();
        e = map_find(&comms, KEY(comm));
        if (!e) /* made by a call perfskel does not record */
            e = comm_register(comm, id_alloc(&comms));
        psk_rec_unlock();
        if (!e) {
            call->v[PSK_F_COMM] = PSK_REQ_UNKNOWN;
            call->asize = 0;
            return;
        }
    }
    call->v[PSK_F_COMM] = e->id;
    call->crank = e->rank;
    call->asize = e->size;
    call->inter = (int)e->flags;
}

int psk_at_root(const psk_call *call)
{
    if (call->inter)
        return call->root == MPI_ROOT;
    return call->root == call->crank;
}

/* world ranks of the members of group g, as the event's MEMBERS array */
static void members(psk_call *call, MPI_Group g)
{
    int n = 0;
    PMPI_Group_size(g, &n);
    int64_t *a = arr_alloc(call, PSK_F_MEMBERS, (size_t)n);
    int *tmp = malloc(2 * (size_t)(n ? n : 1) * sizeof *tmp);
    if (!tmp)
        psk_rec_fail("out of memory for a group's members");
    if (!a || !tmp) {
        call->n[PSK_F_MEMBERS - PSK_F_FIRST_ARRAY] = 0;
        free(tmp);
        return;
    }
    for (int i = 0; i < n; i++)
        tmp[i] = i;
    PMPI_Group_translate_ranks(g, n, tmp, world_group, tmp + n);
    for (int i = 0; i < n; i++)
        a[i] = tmp[n + i];
    free(tmp);
}

void psk_post_newcomm(psk_call *call, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL) {
        call->v[PSK_F_NEWID] = -1;
        arr_alloc(call, PSK_F_MEMBERS, 0);
        return;
    }
    psk_rec_lock();
    entry *old = map_find(&comms, KEY(comm));
    if (old) { /* a handle we missed the end of: forget it */
        id_free(&comms, old->id);
        map_remove(&comms, old);
    }
    entry *e = comm_register(comm, id_alloc(&comms));
    psk_rec_unlock();
    call->v[PSK_F_NEWID] = e ? e->id : PSK_REQ_UNKNOWN;
    MPI_Group g;
    PMPI_Comm_group(comm, &g);
    members(call, g);
    PMPI_Group_free(&g);
}

void psk_pre_commfree(psk_call *call, MPI_Comm comm)
{
    call->free_handle = KEY(comm);
    psk_rec_lock();
    const entry *e = map_find(&comms, call->free_handle);
    call->v[PSK_F_COMM] = e ? e->id : PSK_REQ_UNKNOWN;
    psk_rec_unlock();
}

void psk_post_commfree(psk_call *call)
{
    psk_rec_lock();
    entry *e = map_find(&comms, call->free_handle);
    if (e && e->id > 1) {
        id_free(&comms, e->id);
        map_remove(&comms, e);
    }
    psk_rec_unlock();
}

/* ---- groups ---- */

#define PSK_GROUP_EMPTY (-3)

int64_t psk_group_id(MPI_Group g)
{
    if (g == MPI_GROUP_EMPTY)
        return PSK_GROUP_EMPTY;
    if (g == MPI_GROUP_NULL)
        return -1;
    psk_rec_lock();
    const entry *e = map_find(&groups, KEY(g));
    int64_t id = e ? e->id : PSK_REQ_UNKNOWN;
    psk_rec_unlock();
    return id;
}

void psk_post_newgroup(psk_call *call, MPI_Group g)
{
    if (g == MPI_GROUP_NULL || g == MPI_GROUP_EMPTY) {
        call->v[PSK_F_NEWID] = g == MPI_GROUP_NULL ? -1 : PSK_GROUP_EMPTY;
        arr_alloc(call, PSK_F_MEMBERS, 0);
        return;
    }
    psk_rec_lock();
    /* an MPI may hand out one group object twice (Comm_group of the same
     * communicator): same object, same id, counted references */
    entry *e = map_find(&groups, KEY(g));
    if (e) {
        e->refs++;
    } else if ((e = map_insert(&groups, KEY(g))) != NULL) {
        e->id = id_alloc(&groups);
        e->refs = 1;
    }
    psk_rec_unlock();
    call->v[PSK_F_NEWID] = e ? e->id : PSK_REQ_UNKNOWN;
    members(call, g);
}

void psk_pre_groupfree(psk_call *call, MPI_Group g)
{
    call->free_handle = KEY(g);
    call->v[PSK_F_GROUP] = psk_group_id(g);
}

void psk_post_groupfree(psk_call *call)
{
    psk_rec_lock();
    entry *e = map_find(&groups, call->free_handle);
    if (e && --e->refs <= 0) {
        id_free(&groups, e->id);
        map_remove(&groups, e);
    }
    psk_rec_unlock();
}

/* ---- values ---- */

/* sizes of the common predefined datatypes, looked up without calling
 * into the MPI (which checks its arguments first) */
#define NCOMMON 12
static MPI_Datatype common_type[NCOMMON];
static int64_t common_size[NCOMMON];

static void common_types_init(void)
{
    const MPI_Datatype t[NCOMMON] = {MPI_INT, MPI_DOUBLE, MPI_BYTE, MPI_CHAR, MPI_FLOAT, MPI_LONG,
                                     MPI_UNSIGNED, MPI_LONG_LONG, MPI_INTEGER, MPI_DOUBLE_PRECISION,
                                     MPI_REAL, MPI_UINT64_T};
    for (int i = 0; i < NCOMMON; i++) {
        int sz = 0;
        common_type[i] = t[i];
        common_size[i] = PMPI_Type_size(t[i], &sz) == MPI_SUCCESS && sz != MPI_UNDEFINED ? sz : -1;
    }
}

int64_t psk_type_size(MPI_Datatype dt)
{
    int s = 0;
    if (dt == MPI_DATATYPE_NULL)
        return 0;
    for (int i = 0; i < NCOMMON; i++)
        if (dt == common_type[i] && common_size[i] >= 0)
            return common_size[i];
    if (PMPI_Type_size(dt, &s) != MPI_SUCCESS || s == MPI_UNDEFINED)
        return 0;
    return s;
}

int64_t psk_rank(int r)
{
    if (r == MPI_ANY_SOURCE)
        return PSK_ANY_SOURCE;
    if (r == MPI_PROC_NULL)
        return PSK_PROC_NULL;
    return r;
}

int64_t psk_root(int r)
{
    if (r == MPI_ROOT)
        return PSK_ROOT;
    if (r == MPI_PROC_NULL)
        return PSK_PROC_NULL;
    return r;
}

int64_t psk_tag(int t)
{
    return t == MPI_ANY_TAG ? PSK_ANY_TAG : t;
}

int64_t psk_op_id(MPI_Op op)
{
    const MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD, MPI_LAND,
                          MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR,
                          MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP, MPI_OP_NULL};
    const int ids[] = {PSK_OP_SUM, PSK_OP_MAX, PSK_OP_MIN, PSK_OP_PROD, PSK_OP_LAND,
                       PSK_OP_BAND, PSK_OP_LOR, PSK_OP_BOR, PSK_OP_LXOR, PSK_OP_BXOR,
                       PSK_OP_MINLOC, PSK_OP_MAXLOC, PSK_OP_REPLACE, PSK_OP_NO_OP, PSK_OP_NULL};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i] == op)
            return ids[i];
    return PSK_OP_USER;
}

/* ---- statuses ---- */

int psk_fstatus_ignored(const MPI_Fint *f)
{
#ifdef MPICH
    if ((const void *)f == (const void *)MPI_F08_STATUS_IGNORE)
        return 1;
#endif
    return f == MPI_F_STATUS_IGNORE;
}

static int fstatuses_ignored(const MPI_Fint *f)
{
#ifdef MPICH
    if ((const void *)f == (const void *)MPI_F08_STATUSES_IGNORE)
        return 1;
#endif
    return f == MPI_F_STATUSES_IGNORE;
}

MPI_Status *psk_pre_statuses(psk_call *call, MPI_Status *sts)
{
    call->stsp = NULL;
    if (sts != MPI_STATUSES_IGNORE || !call->any_wild)
        return sts;
    MPI_Status *s = tgrow(&stsbuf, (size_t)(call->nreq ? call->nreq : 1) * sizeof *s);
    return s ? s : sts;
}

MPI_Fint *psk_pre_fstatuses(psk_call *call, MPI_Fint *sts)
{
    call->fstsp = NULL;
    if (!fstatuses_ignored(sts) || !call->any_wild)
        return sts;
    MPI_Fint *s = tgrow(&stsbuf, (size_t)(call->nreq ? call->nreq : 1) * PSK_FSTATUS_SIZE * sizeof *s);
    return s ? s : sts;
}

/* source and tag of status slot j of the call; 0 if it has none. A
 * cancelled receive received nothing: MPI_ANY_SOURCE and MPI_ANY_TAG
 * (MPICH leaves the status's other fields as they were). Only a call that
 * completes a request can say it was cancelled: a probe's status (MPICH
 * leaves its cancelled field as the program's variable had it) names the
 * message found (random seed 53: an MPI_Mprobe read as cancelled) */
static int status_of(const psk_call *call, int j, int single, int *src, int *tag)
{
    MPI_Status cs;
    const MPI_Status *s = NULL;
    if (single) {
        if (call->stp)
            s = call->stp;
        else if (call->fstp && !psk_fstatus_ignored(call->fstp)) {
            PMPI_Status_f2c(call->fstp, &cs);
            s = &cs;
        }
    } else {
        if (call->stsp && call->stsp != MPI_STATUSES_IGNORE)
            s = &call->stsp[j];
        else if (call->fstsp && !fstatuses_ignored(call->fstsp)) {
            PMPI_Status_f2c(call->fstsp + (size_t)j * PSK_FSTATUS_SIZE, &cs);
            s = &cs;
        }
    }
    if (!s)
        return 0;
    int cancelled = 0;
    int op = psk_fn_op(call->fn); /* a probe's status is of no request */
    if (op != PSK_FNOP_PROBE && op != PSK_FNOP_IPROBE && op != PSK_FNOP_MPROBE && op != PSK_FNOP_IMPROBE)
        PMPI_Test_cancelled(s, &cancelled);
    *src = cancelled ? PSK_ANY_SOURCE : (int)psk_rank(s->MPI_SOURCE);
    *tag = cancelled ? PSK_ANY_TAG : (int)psk_tag(s->MPI_TAG);
    return 1;
}

/* ---- requests ---- */

enum { PSK_RQ_PERSISTENT = 1, PSK_RQ_WILD = 2, PSK_RQ_SHARED = 4 /* handle held by several */ };

void psk_post_reqnew(psk_call *call, MPI_Request req, int persistent)
{
    if (req == MPI_REQUEST_NULL) {
        call->v[PSK_F_REQ] = PSK_REQ_NULL;
        return;
    }
    psk_rec_lock();
    entry *old = map_find(&reqs, KEY(req));
    entry *e = map_insert_dup(&reqs, KEY(req));
    if (e) {
        e->id = id_alloc(&reqs);
        e->flags = (persistent ? PSK_RQ_PERSISTENT : 0u) |
                   ((call->wild_src || call->wild_tag) ? PSK_RQ_WILD : 0u) |
                   (old ? PSK_RQ_SHARED : 0u);
        if (old) /* map_insert_dup may have moved the table: find it again */
            for (int k = 0; (old = map_find_nth(&reqs, KEY(req), k)) != NULL; k++)
                old->flags |= PSK_RQ_SHARED;
    }
    psk_rec_unlock();
    call->v[PSK_F_REQ] = e ? e->id : PSK_REQ_UNKNOWN;
}

/* s for request r, the nth time its handle appears in the call's array */
static void snap_one(psk_reqsnap *s, MPI_Request r, int nth)
{
    s->handle = KEY(r);
    s->flags = 0;
    if (r == MPI_REQUEST_NULL) {
        s->id = PSK_REQ_NULL;
        return;
    }
    const entry *e = map_find_nth(&reqs, s->handle, nth);
    s->id = e ? e->id : PSK_REQ_UNKNOWN;
    s->flags = e ? e->flags : 0;
}

/* snapshot of the requests a completion call gets, before it nulls them;
 * C handles come from r, or from Fortran handles f */
static void pre_reqs(psk_call *call, int n, const MPI_Request *r, const MPI_Fint *f)
{
    call->nreq = 0;
    call->snap = tgrow(&snapbuf, (size_t)(n > 0 ? n : 1) * sizeof *call->snap);
    if (!call->snap || n < 0)
        return;
    psk_rec_lock();
    for (int i = 0; i < n; i++) {
        MPI_Request h = r ? r[i] : PMPI_Request_f2c(f[i]);
        snap_one(&call->snap[i], h, 0);
        if (call->snap[i].flags & PSK_RQ_SHARED) { /* rare: count earlier uses */
            int nth = 0;
            for (int j = 0; j < i; j++)
                nth += call->snap[j].handle == call->snap[i].handle;
            if (nth)
                snap_one(&call->snap[i], h, nth);
        }
        call->any_wild |= (call->snap[i].flags & PSK_RQ_WILD) != 0;
    }
    psk_rec_unlock();
    call->nreq = n;
}

void psk_pre_reqs(psk_call *call, int n, const MPI_Request *r) { pre_reqs(call, n, r, NULL); }
void psk_pre_freqs(psk_call *call, int n, const MPI_Fint *f) { pre_reqs(call, n, NULL, f); }

/* request i of the snapshot completed, its status in slot j */
static void completed(psk_call *call, int i, int j, int single, int64_t *st, uint32_t *nst)
{
    psk_reqsnap *s = &call->snap[i];
    if (s->id < 0)
        return;
    int src, tag;
    if ((s->flags & PSK_RQ_WILD) && status_of(call, j, single, &src, &tag)) {
        st[3 * *nst] = i;
        st[3 * *nst + 1] = src;
        st[3 * *nst + 2] = tag;
        ++*nst;
    }
    if (!(s->flags & PSK_RQ_PERSISTENT)) {
        entry *e = map_find_id(&reqs, s->handle, s->id);
        if (e) {
            id_free(&reqs, e->id);
            map_remove(&reqs, e);
        }
    }
}

static void finish_requests(psk_call *call)
{
    int m = call->mode, n = call->nreq;
    if (m == PSK_MODE_START || m == PSK_MODE_FREE || m == PSK_MODE_CANCEL ||
        m == PSK_MODE_WAIT || m == PSK_MODE_TEST)
        call->v[PSK_F_REQ] = n > 0 ? call->snap[0].id : PSK_REQ_NULL;
    else {
        int64_t *a = arr_alloc(call, PSK_F_REQS, (size_t)n);
        for (int i = 0; a && i < n; i++)
            a[i] = call->snap[i].id;
    }
    if (m == PSK_MODE_START || m == PSK_MODE_STARTALL || m == PSK_MODE_CANCEL)
        return;
    psk_rec_lock();
    if (m == PSK_MODE_FREE) {
        if (n > 0 && call->snap[0].id >= 0) {
            entry *e = map_find_id(&reqs, call->snap[0].handle, call->snap[0].id);
            if (e) {
                id_free(&reqs, e->id);
                map_remove(&reqs, e);
            }
        }
        psk_rec_unlock();
        return;
    }
    int cap = n > 0 ? n : 1;
    int64_t *st = arr_alloc(call, PSK_F_STATUSES, 3 * (size_t)cap);
    uint32_t nst = 0;
    int64_t *idx = NULL;
    call->v[PSK_F_FLAG] = call->flag;
    switch (m) {
    case PSK_MODE_WAIT:
    case PSK_MODE_TEST:
        if (call->flag && n > 0 && st)
            completed(call, 0, 0, 1, st, &nst);
        break;
    case PSK_MODE_WAITALL:
    case PSK_MODE_TESTALL:
        for (int i = 0; call->flag && st && i < n; i++)
            completed(call, i, i, 0, st, &nst);
        break;
    case PSK_MODE_WAITANY:
    case PSK_MODE_TESTANY:
        call->v[PSK_F_INDEX] = call->index == MPI_UNDEFINED ? PSK_UNDEFINED : call->index;
        if (call->flag && call->index >= 0 && call->index < n && st)
            completed(call, call->index, 0, 1, st, &nst);
        break;
    case PSK_MODE_WAITSOME:
    case PSK_MODE_TESTSOME: {
        int oc = call->outcount == MPI_UNDEFINED ? 0 : call->outcount;
        if (oc < 0 || oc > n)
            oc = 0;
        idx = arr_alloc(call, PSK_F_INDICES, (size_t)oc);
        for (int k = 0; idx && k < oc; k++) {
            int i = call->indices[k] - call->ibase;
            idx[k] = i;
            if (i >= 0 && i < n && st)
                completed(call, i, k, 0, st, &nst);
        }
        break;
    }
    }
    psk_rec_unlock();
    if (st)
        call->n[PSK_F_STATUSES - PSK_F_FIRST_ARRAY] = nst;
}

void psk_post_counts(psk_call *call, int field, const int *counts, int root_only)
{
    size_t n = (root_only && !psk_at_root(call)) || !counts ? 0 : (size_t)call->asize;
    int64_t *a = arr_alloc(call, field, n);
    for (size_t i = 0; a && i < n; i++)
        a[i] = counts[i];
}

void psk_post_ints(psk_call *call, int field, int n, const int *v, int boolean)
{
    size_t len = v && n > 0 ? (size_t)n : 0;
    int64_t *a = arr_alloc(call, field, len);
    for (size_t i = 0; a && i < len; i++)
        a[i] = boolean ? v[i] != 0 : v[i] < 0 ? 0 : v[i];
}

void psk_post_dtypes(psk_call *call, int field, const MPI_Datatype *types)
{
    size_t n = types ? (size_t)call->asize : 0;
    int64_t *a = arr_alloc(call, field, n);
    for (size_t i = 0; a && i < n; i++)
        a[i] = psk_type_size(types[i]);
}

void psk_post_fdtypes(psk_call *call, int field, const MPI_Fint *types)
{
    size_t n = types ? (size_t)call->asize : 0;
    int64_t *a = arr_alloc(call, field, n);
    for (size_t i = 0; a && i < n; i++)
        a[i] = psk_type_size(PMPI_Type_f2c(types[i]));
}

void psk_call_finish(psk_call *call)
{
    switch (call->mode) {
    case PSK_MODE_STATUS:
    case PSK_MODE_PROBE: {
        int src = PSK_UNDEFINED, tag = PSK_UNDEFINED;
        if (call->flag)
            status_of(call, 0, 1, &src, &tag);
        call->v[PSK_F_ASRC] = src;
        call->v[PSK_F_ATAG] = tag;
        call->v[PSK_F_FLAG] = call->flag;
        break;
    }
    case PSK_MODE_NONE:
        break;
    default:
        finish_requests(call);
    }
    psk_rec_emit(call);
}
