/* perfskel gen: one call of the folded tree as C. gen_emit_sym writes a
 * node's guard (the ranks taking part), the rank's position for the report
 * on SIGTERM, the compute gap before the call in work units, then the call
 * itself: a switch over the function's op (src/record/mpi_functions.def),
 * collectives by their collective and form, each case writing the MPI call
 * with its values as expressions (gen_expr.c) on the skeleton's buffers,
 * request slots and communicator table (skel_runtime.c). A Test-family
 * call waits exactly where, per rank and execution, the recorded one
 * completed something, and polls elsewhere; a matched probe hands the
 * message it matched to the next MPI_Mrecv. */
#include <stdlib.h>
#include <string.h>

#include "gen_internal.h"

void gen_indent(gen *g, int d)
{
    for (int i = 0; i < d; i++)
        fputs("    ", g->body);
}

void gen_comment_text(FILE *out, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; c && *c; c++)
        if (*c >= 0x20 && *c < 0x7f && *c != '*' && *c != '?' && *c != '\\')
            fputc(*c, out);
        else
            fprintf(out, "\\x%02x", *c);
}

/* the buffers a collective needs where a root or every rank handles one
 * part per rank: room for P parts of the larger of what it sends and
 * receives */
static void room_for_all(gen *g, const gnode *n)
{
    for (int j = 0; j < n->np; j++) {
        const psk_event *x = &n->first[j];
        int64_t sb = PSK_HAS(x, PSK_F_COUNT) ? x->v[PSK_F_COUNT] * (PSK_HAS(x, PSK_F_DTSIZE) ? x->v[PSK_F_DTSIZE] : 1)
                                              : 0;
        int rsf = PSK_HAS(x, PSK_F_RDTSIZE) ? PSK_F_RDTSIZE : PSK_F_DTSIZE;
        int64_t rb = PSK_HAS(x, PSK_F_RCOUNT) ? x->v[PSK_F_RCOUNT] * (PSK_HAS(x, rsf) ? x->v[rsf] : 1) : 0;
        int64_t big = (sb > rb ? sb : rb) * g->P;
        gen_bump(&g->max_sbytes, big);
        gen_bump(&g->max_rbytes, big);
    }
}

int gen_reqs_how(unsigned fn)
{
    int op = psk_fn_op(fn); /* a run of polls has its test's */
    return op == PSK_FNOP_STARTALL ? 0 : op == PSK_FNOP_WAITANY || op == PSK_FNOP_TESTANY ? 2
           : op == PSK_FNOP_WAITSOME || op == PSK_FNOP_TESTSOME ? 3 : 1;
}

/* a run of polls (merge_poll.c): the end of its pollr_ / pollp_ call,
 * "units, calls, done": its compute and polls as the node's per-rank
 * means (literals, or tables by rank) and whether it ends waiting for
 * what it polls for (gen_done_expr) */
static void poll_args(gen *g, int32_t id, char *out, size_t cap)
{
    const gnode *n = &g->node[id];
    int64_t *u = malloc((size_t)(n->np ? n->np : 1) * sizeof *u), *c = malloc((size_t)(n->np ? n->np : 1) * sizeof *c);
    char units[64] = "0ULL", calls[64] = "1LL", done[64];
    gen_done_expr(g, id, done, sizeof done);
    if (!u || !c) {
        gen_oom(g);
    } else {
        int su = 1, sc = 1;
        for (int j = 0; j < n->np; j++) {
            u[j] = gen_poll_units(g, n, j), c[j] = gen_poll_calls(n, j);
            su &= u[j] == u[0], sc &= c[j] == c[0];
        }
        if (su && n->np) {
            snprintf(units, sizeof units, "%lldULL", (long long)u[0]);
        } else if (n->np) {
            gen_emit_table(g, n, id, "pwork", u);
            snprintf(units, sizeof units, "(uint64_t)T%d_pwork[rank_]", id);
        }
        double cf = gen_compute_factor(g, id);
        if (cf > 1) { /* compute scaled: the polls overlap what runs of it */
            char x[sizeof units + 32];
            if (snprintf(x, sizeof x, "cunits_(%s, %.6g)", units, cf) >= (int)sizeof units)
                gen_fail(g, "a poll's compute expression is longer than %zu bytes", sizeof units - 1);
            else
                memcpy(units, x, sizeof units);
        }
        if (sc && n->np) {
            snprintf(calls, sizeof calls, "%lldLL", (long long)c[0]);
        } else if (n->np) {
            gen_emit_table(g, n, id, "pcalls", c);
            snprintf(calls, sizeof calls, "T%d_pcalls[rank_]", id);
        }
    }
    free(u), free(c);
    snprintf(out, cap, "%s, %s, %s", units, calls, done);
}

/* Startall and the Wait/Test families on arrays: reqs_(how, ids, n) where
 * how is 0 start, 1 wait all, 2 wait any, 3 wait some, 4-6 the test
 * forms; a Test-family call is its Wait where it completed something, per
 * rank and execution, else a poll */
static void emit_reqs(gen *g, int32_t id)
{
    const gnode *n = &g->node[id];
    const psk_event *e = &n->first[0];
    unsigned fn = e->fn;
    int w;
    gen_array_table(g, id, PSK_F_REQS, -1, "reqs", &w);
    for (int j = 0; j < n->np; j++)
        for (uint32_t k = 0; k < PSK_ARRN(&n->first[j], PSK_F_REQS); k++)
            gen_bump_req(g, PSK_ARR(&n->first[j], PSK_F_REQS)[k]);
    int wait = gen_reqs_how(fn);
    char how[96];
    snprintf(how, sizeof how, "%d", wait);
    if (gen_completion(e) >= 0) {
        char d[64];
        gen_done_expr(g, id, d, sizeof d);
        if (!strcmp(d, "0") || !strcmp(d, "1"))
            snprintf(how, sizeof how, "%d", !strcmp(d, "1") ? wait : wait + 3);
        else
            snprintf(how, sizeof how, "%s ? %d : %d", d, wait, wait + 3);
    }
    int64_t *cnt = malloc((size_t)(n->np ? n->np : 1) * sizeof *cnt);
    if (!cnt) {
        gen_oom(g);
        return;
    }
    for (int j = 0; j < n->np; j++)
        cnt[j] = PSK_ARRN(&n->first[j], PSK_F_REQS);
    gen_emit_table(g, n, id, "nreqs", cnt);
    free(cnt);
    char ids[160];
    if (n->reqsvary && !n->reqsbig) {
        gen_reqs_by_exec(g, id);
        snprintf(ids, sizeof ids, "T%d_reqsx[T%d_k][rank_], (int)T%d_nreqsx[T%d_k][rank_]", id, id, id, id);
    } else {
        snprintf(ids, sizeof ids, "T%d_reqs[rank_], (int)T%d_nreqs[rank_]", id, id);
    }
    if (psk_fn_polled(fn)) { /* a run of polls: its test as how */
        char pa[256];
        poll_args(g, id, pa, sizeof pa);
        fprintf(g->body, "pollr_(%d, %s, %s); /* %s */\n", wait + 3, ids, pa, psk_fn_name(fn));
        return;
    }
    fprintf(g->body, "reqs_(%s, %s); /* %s */\n", how, ids, psk_fn_name(fn));
}

/* tch_ (skel_runtime.c): what the program did to the buffers of a call
 * that moves data, after a blocking call, before a nonblocking one (the
 * transfer is still to come); s and r the bytes it sends and receives, as
 * C expressions, kept in ts and tr (TOUCH_LEN each) until then */
#define TOUCH_LEN 480
static void touch_set(char *ts, char *tr, const char *s, const char *r)
{
    snprintf(ts, TOUCH_LEN, "%s", *s ? s : "0");
    snprintf(tr, TOUCH_LEN, "%s", *r ? r : "0");
}

/* the data movers: counts in bytes, the v-forms with byte arrays by rank */
static void emit_mover(gen *g, int32_t id, const char *comm, const char *by, const char *rby, const char *root,
                       const char *req, char *tch_s, char *tch_r)
{
    const gnode *n = &g->node[id];
    const psk_event *e = &n->first[0];
    unsigned fn = e->fn;
    const char *name = psk_fn_name(fn);
    int nb = psk_fn_class(fn) == PSK_CLASS_ICOLL, w = 0, coll = psk_fn_coll(fn), form = psk_fn_form(fn);
    char sc[400] = "0", rc[400] = "0", sct[64] = "", rct[64] = "", nbr[410];
    if (PSK_HAS(e, PSK_F_COUNT))
        snprintf(sc, sizeof sc, "%s", by);
    if (PSK_HAS(e, PSK_F_RCOUNT))
        snprintf(rc, sizeof rc, "%s", rby);
    if (PSK_HAS(e, PSK_F_COUNTS)) {
        gen_array_table(g, id, PSK_F_COUNTS, PSK_HAS(e, PSK_F_DTSIZES) ? PSK_F_DTSIZES : PSK_F_DTSIZE, "counts", &w);
        gen_array_expr(g, id, "counts", sct, sizeof sct);
    }
    if (PSK_HAS(e, PSK_F_RCOUNTS)) {
        int rf = PSK_HAS(e, PSK_F_RDTSIZES) ? PSK_F_RDTSIZES : PSK_HAS(e, PSK_F_RDTSIZE) ? PSK_F_RDTSIZE : PSK_F_DTSIZE;
        gen_array_table(g, id, PSK_F_RCOUNTS, rf, "rcounts", &w);
        gen_array_expr(g, id, "rcounts", rct, sizeof rct);
    }
    snprintf(nbr, sizeof nbr, "%s%s", nb ? ", " : "", nb ? req : "");
    room_for_all(g, n);
    {
        char ts[TOUCH_LEN], tr[TOUCH_LEN];
        /* the totals: a block per member where the call moves one to or from each */
        int plain = form == PSK_FORM_PLAIN, a2a = plain && coll == PSK_COLL_ALLTOALL,
            sper = a2a || (plain && coll == PSK_COLL_SCATTER),
            rper = a2a || (plain && (coll == PSK_COLL_ALLGATHER || coll == PSK_COLL_GATHER));
        if (PSK_HAS(e, PSK_F_COUNTS))
            snprintf(ts, sizeof ts, "asum_(%s[rank_], %d)", sct, w);
        else
            snprintf(ts, sizeof ts, "(long long)(%s)%s%s%s", sc, sper ? " * csz_(" : "", sper ? comm : "",
                     sper ? ")" : "");
        if (PSK_HAS(e, PSK_F_RCOUNTS))
            snprintf(tr, sizeof tr, "asum_(%s[rank_], %d)", rct, w);
        else
            snprintf(tr, sizeof tr, "(long long)(%s)%s%s%s", rc, rper ? " * csz_(" : "", rper ? comm : "",
                     rper ? ")" : "");
        touch_set(tch_s, tch_r, ts, tr);
        if (nb)
            fprintf(g->body, "tch_(%s, %s, 0); ", tch_s, tch_r);
    }
    switch (coll * 4 + form) {
    /* sin_, rin_, sinroot_, rinroot_ (skel_runtime.c): a call recorded in
     * place is made so */
    case PSK_COLL_GATHER * 4 + PSK_FORM_PLAIN: case PSK_COLL_SCATTER * 4 + PSK_FORM_PLAIN: {
        int scat = coll == PSK_COLL_SCATTER;
        fprintf(g->body, "{ int s_ = %s, r_ = %s, o_ = %s; MPI_Comm c_ = %s; %s(%s, s_, MPI_BYTE, %s, r_, MPI_BYTE, "
                         "o_, c_%s); }\n", sc, rc, root, comm, name,
                scat ? "sbuf_" : "sinroot_(s_, r_, o_, c_)", scat ? "rinroot_(s_, r_, o_, c_)" : "rbuf_", nbr);
        break;
    }
    case PSK_COLL_ALLGATHER * 4 + PSK_FORM_PLAIN: case PSK_COLL_ALLTOALL * 4 + PSK_FORM_PLAIN:
        fprintf(g->body, "{ int s_ = %s, r_ = %s; %s(sin_(s_, r_), s_, MPI_BYTE, rbuf_, r_, MPI_BYTE, %s%s); }\n",
                sc, rc, name, comm, nbr);
        break;
    case PSK_COLL_GATHER * 4 + PSK_FORM_V:
        fprintf(g->body, "{ int d_[NRANKS]; displs_(%s[rank_], d_); %s(sbuf_, %s, MPI_BYTE, rbuf_, %s[rank_], d_, "
                         "MPI_BYTE, %s, %s%s); }\n", rct, name, sc, rct, root, comm, nbr);
        break;
    case PSK_COLL_SCATTER * 4 + PSK_FORM_V:
        fprintf(g->body, "{ int d_[NRANKS]; displs_(%s[rank_], d_); %s(sbuf_, %s[rank_], d_, MPI_BYTE, rbuf_, "
                         "%s, MPI_BYTE, %s, %s%s); }\n", sct, name, sct, rc, root, comm, nbr);
        break;
    case PSK_COLL_ALLGATHER * 4 + PSK_FORM_V:
        fprintf(g->body, "{ int d_[NRANKS], s_ = %s; displs_(%s[rank_], d_); %s(sin_(s_, 1), s_, MPI_BYTE, rbuf_, "
                         "%s[rank_], d_, MPI_BYTE, %s%s); }\n", sc, rct, name, rct, comm, nbr);
        break;
    default: /* Alltoallv, Alltoallw and their nonblocking forms, in bytes */
        fprintf(g->body, "{ int sd_[NRANKS], rd_[NRANKS]; displs_(%s[rank_], sd_); displs_(%s[rank_], rd_); "
                         "%s(sbuf_, %s[rank_], sd_, MPI_BYTE, rbuf_, %s[rank_], rd_, MPI_BYTE, %s%s); } "
                         "/* %s in bytes */\n", sct, rct, nb ? "MPI_Ialltoallv" : "MPI_Alltoallv", sct, rct, comm,
                nbr, name);
        break;
    }
}

/* a Test-family call or MPI_Improbe as the recording had it: c_done where
 * it completed (found) something, c_poll where not; d from gen_done_expr */
static void emit_done(gen *g, const char *d, const char *c_done, const char *c_poll)
{
    if (!strcmp(d, "1"))
        fprintf(g->body, "%s\n", c_done);
    else if (!strcmp(d, "0"))
        fprintf(g->body, "%s\n", c_poll);
    else
        fprintf(g->body, "if (%s) %s else %s\n", d, c_done, c_poll);
}

static void emit_newcomm(gen *g, int32_t id, const char *parent);

/* the grid of communicator c of rank r as gen_collect.c found it made
 * (NULL: none, or not one grid) */
static const psk_cart *grid_of(const gen *g, int32_t r, int64_t c)
{
    const cmembers *m = c > 1 && c < g->ncmem[r] ? &g->cmem[r][c] : NULL;
    return !m || !m->known || m->ambiguous || m->cartbad ? NULL : m->cart;
}

/* MPI_Neighbor_alltoall, MPI_Neighbor_allgather and their nonblocking
 * forms: their blocks in bytes on the grid emit_newcomm gave the
 * communicator, whose 2 x ndims neighbours the buffers hold a block each of
 * (a grid of no dimensions is made as one of extent 1: 2 blocks) */
static void emit_neighbor(gen *g, int32_t id, const char *comm, const char *by, const char *rby, const char *req,
                          char *tch_s, char *tch_r)
{
    const gnode *n = &g->node[id];
    const psk_event *e = &n->first[0];
    int nbmax = n->nbmax > 2 ? n->nbmax : 2, a2a = psk_fn_coll(e->fn) == PSK_COLL_ALLTOALL;
    int64_t sblk = 0, rblk = 0; /* the largest blocks, bytes */
    if (n->nbmax < 0) {
        gen_fail(g, "event %d (%s): rank %d's communicator %lld has no Cartesian grid: gen replays neighborhood "
                    "collectives on the communicators of MPI_Cart_create and MPI_Cart_sub only (not of "
                    "MPI_Dist_graph_create or MPI_Graph_create, which are not recorded)", id, psk_fn_name(e->fn),
                 (int)n->nogrid_rank, (long long)n->nogrid_comm);
        return;
    }
    for (int j = 0; j < n->np; j++) {
        const psk_event *x = &n->first[j];
        int64_t ds = PSK_HAS(x, PSK_F_DTSIZE) ? x->v[PSK_F_DTSIZE] : 1;
        int64_t rds = PSK_HAS(x, PSK_F_RDTSIZE) ? x->v[PSK_F_RDTSIZE] : ds;
        const psk_fparam *pc = gen_param_of(g, id, PSK_F_COUNT), *prc = gen_param_of(g, id, PSK_F_RCOUNT);
        gen_bump(&sblk, (pc ? pc->hi : PSK_HAS(x, PSK_F_COUNT) ? x->v[PSK_F_COUNT] : 0) * ds);
        gen_bump(&rblk, (prc ? prc->hi : PSK_HAS(x, PSK_F_RCOUNT) ? x->v[PSK_F_RCOUNT] : 0) * rds);
    }
    gen_bump(&g->max_sbytes, sblk * (a2a ? nbmax : 1));
    gen_bump(&g->max_rbytes, rblk * nbmax);
    char ts[TOUCH_LEN], tr[TOUCH_LEN];
    snprintf(ts, sizeof ts, "(long long)(%s) * %d", *by ? by : "0", a2a ? nbmax : 1);
    snprintf(tr, sizeof tr, "(long long)(%s) * %d", *rby ? rby : "0", nbmax);
    touch_set(tch_s, tch_r, ts, tr);
    int nb = psk_fn_class(e->fn) == PSK_CLASS_ICOLL; /* MPI_Ineighbor_*: touched before, with its request */
    if (nb)
        fprintf(g->body, "tch_(%s, %s, 0); ", tch_s, tch_r);
    fprintf(g->body, "{ int s_ = %s, r_ = %s; %s(sbuf_, s_, MPI_BYTE, rbuf_, r_, MPI_BYTE, %s%s%s); }\n",
            *by ? by : "0", *rby ? rby : "0", psk_fn_name(e->fn), comm, nb ? ", " : "", nb ? req : "");
}

/* the MPI call of node id, without its guard and gap; d: indentation */
static void emit_call(gen *g, int32_t id, int d)
{
    const gnode *n = &g->node[id];
    const psk_event *e = &n->first[0];
    unsigned fn = e->fn;
    const char *name = psk_fn_name(fn);
    char comm[64] = "MPI_COMM_WORLD", peer[400] = "", rpeer[400] = "", tag[400] = "", rtag[400] = "", by[400] = "",
         rby[400] = "", root[400] = "", req[400] = "", r[300] = "", c1[1200], c2[1200];
    if (PSK_HAS(e, PSK_F_COMM)) {
        if (!gen_all_same(n, PSK_F_COMM)) {
            gen_fail(g, "event %d (%s): ranks name its communicator differently", id, name);
            return;
        }
        snprintf(comm, sizeof comm, "comm_[%lld]", (long long)e->v[PSK_F_COMM]);
        gen_bump(&g->max_comm, e->v[PSK_F_COMM]);
    }
    if (PSK_HAS(e, PSK_F_PEER))
        gen_peer_expr(g, id, PSK_F_PEER, "peer", peer, sizeof peer);
    if (PSK_HAS(e, PSK_F_RPEER))
        gen_peer_expr(g, id, PSK_F_RPEER, "rpeer", rpeer, sizeof rpeer);
    if (PSK_HAS(e, PSK_F_TAG))
        gen_tag_expr(g, id, PSK_F_TAG, "tag", tag, sizeof tag);
    if (PSK_HAS(e, PSK_F_RTAG))
        gen_tag_expr(g, id, PSK_F_RTAG, "rtag", rtag, sizeof rtag);
    if (PSK_HAS(e, PSK_F_COUNT))
        gen_bytes_expr(g, id, PSK_F_COUNT, PSK_F_DTSIZE, by, sizeof by);
    if (PSK_HAS(e, PSK_F_RCOUNT))
        gen_bytes_expr(g, id, PSK_F_RCOUNT, PSK_HAS(e, PSK_F_RDTSIZE) ? PSK_F_RDTSIZE : PSK_F_DTSIZE, rby, sizeof rby);
    if (PSK_HAS(e, PSK_F_ROOT))
        gen_expr(g, id, PSK_F_ROOT, "root", root, sizeof root);
    int cls = psk_fn_class(fn), op = psk_fn_op(fn), coll = psk_fn_coll(fn), form = psk_fn_form(fn);
    if (PSK_HAS(e, PSK_F_REQ)) {
        /* a call that makes a request gets a fresh slot; one that uses it names it */
        gen_expr(g, id, PSK_F_REQ, "req", r, sizeof r);
        if (cls != PSK_CLASS_WAIT && op != PSK_FNOP_START)
            snprintf(req, sizeof req, "newreq_(%s, %d)", r, cls == PSK_CLASS_PERSIST);
        else
            snprintf(req, sizeof req, "&req_[slot_(%s)]", r);
        for (int j = 0; j < n->np; j++)
            gen_bump(&g->max_req, n->first[j].v[PSK_F_REQ]);
        if (gen_param_of(g, id, PSK_F_REQ))
            gen_bump(&g->max_req, gen_param_of(g, id, PSK_F_REQ)->hi);
    }
    /* the reductions' count, type and op: the recorded datatype size and op */
    long long dts = PSK_HAS(e, PSK_F_DTSIZE) ? (long long)e->v[PSK_F_DTSIZE] : 1;
    long long rop = PSK_HAS(e, PSK_F_OP) ? (long long)e->v[PSK_F_OP] : 0;
    const char *nbsep = cls == PSK_CLASS_ICOLL ? ", " : "", *nbreq = cls == PSK_CLASS_ICOLL ? req : "";
    char tch_s[TOUCH_LEN] = "", tch_r[TOUCH_LEN] = "";
    /* a collective's (op coll or icoll) collective and form, as one case */
    int cf = op == PSK_FNOP_COLL || op == PSK_FNOP_ICOLL ? coll * 4 + form : -1;
    if (psk_fn_polled(fn))
        ; /* a run of polls moves no data */
    else if (op == PSK_FNOP_SEND || op == PSK_FNOP_ISEND)
        touch_set(tch_s, tch_r, by, "0");
    else if (op == PSK_FNOP_RECV || op == PSK_FNOP_IRECV || op == PSK_FNOP_MRECV || op == PSK_FNOP_IMRECV ||
             op == PSK_FNOP_SENDRECV_REPLACE || cf == PSK_COLL_BCAST * 4 + PSK_FORM_PLAIN)
        touch_set(tch_s, tch_r, "0", by);
    else if (op == PSK_FNOP_SENDRECV)
        touch_set(tch_s, tch_r, by, rby);
    else if (cf >= 0 && (coll == PSK_COLL_REDUCE || coll == PSK_COLL_ALLREDUCE || coll == PSK_COLL_SCAN))
        touch_set(tch_s, tch_r, by, by);
    /* a nonblocking call's touches before it, on what the transfers before it left */
    int nbk = cls == PSK_CLASS_ICOLL || op == PSK_FNOP_ISEND || op == PSK_FNOP_IRECV || op == PSK_FNOP_IMRECV;
    gen_indent(g, d);
    if (nbk && *tch_s)
        fprintf(g->body, "tch_(%s, %s, 0); ", tch_s, tch_r);
    /* a run of polls: its compute in chunks with the test between them
     * (until it finds what it polls for), then, where the recording ended
     * the run with completion, a wait for it */
    if (psk_fn_polled(fn)) {
        char pa[256];
        if (op == PSK_FNOP_TEST || op == PSK_FNOP_IPROBE)
            poll_args(g, id, pa, sizeof pa);
        if (op == PSK_FNOP_TEST)
            fprintf(g->body, "{ int q_ = (int)(%s); pollr_(0, &q_, 1, %s); } /* %s */\n", r, pa, name);
        else if (op == PSK_FNOP_IPROBE)
            fprintf(g->body, "pollp_(%s, %s, %s, %s); /* %s */\n", peer, tag, comm, pa, name);
        else if (PSK_HAS(e, PSK_F_REQS))
            emit_reqs(g, id);
        else
            fprintf(g->body, "/* %s without its requests: nothing to replay */\n", name);
        op = -1;
    }
    switch (op) {
    /* point to point; the buffered and ready modes as standard sends, the
     * synchronous one as itself (the flag sync: the one difference between
     * the calls of op send, isend and send_init that gen keeps) */
    case PSK_FNOP_SEND:
        fprintf(g->body, "%s(sbuf_, %s, MPI_BYTE, %s, %s, %s);\n", psk_fn_sync(fn) ? "MPI_Ssend" : "MPI_Send", by,
                peer, tag, comm);
        break;
    case PSK_FNOP_RECV:
        fprintf(g->body, "MPI_Recv(rbuf_, %s, MPI_BYTE, %s, %s, %s, MPI_STATUS_IGNORE);\n", by, peer, tag, comm);
        break;
    case PSK_FNOP_ISEND:
        fprintf(g->body, "%s(sbuf_, %s, MPI_BYTE, %s, %s, %s, %s);\n", psk_fn_sync(fn) ? "MPI_Issend" : "MPI_Isend",
                by, peer, tag, comm, req);
        break;
    case PSK_FNOP_IRECV:
        fprintf(g->body, "MPI_Irecv(rbuf_, %s, MPI_BYTE, %s, %s, %s, %s);\n", by, peer, tag, comm, req);
        break;
    case PSK_FNOP_SENDRECV:
        fprintf(g->body, "MPI_Sendrecv(sbuf_, %s, MPI_BYTE, %s, %s, rbuf_, %s, MPI_BYTE, %s, %s, %s, "
                         "MPI_STATUS_IGNORE);\n", by, peer, tag, rby, rpeer, rtag, comm);
        break;
    case PSK_FNOP_SENDRECV_REPLACE:
        fprintf(g->body, "MPI_Sendrecv_replace(rbuf_, %s, MPI_BYTE, %s, %s, %s, %s, %s, MPI_STATUS_IGNORE);\n", by,
                peer, tag, rpeer, rtag, comm);
        break;
    case PSK_FNOP_PROBE:
        fprintf(g->body, "MPI_Probe(%s, %s, %s, MPI_STATUS_IGNORE);\n", peer, tag, comm);
        break;
    case PSK_FNOP_MPROBE: /* the message it matches is the one the next MPI_Mrecv receives */
        fprintf(g->body, "MPI_Mprobe(%s, %s, %s, msgslot_(), MPI_STATUS_IGNORE); msgkeep_(1);\n", peer, tag, comm);
        break;
    case PSK_FNOP_IPROBE:
        fprintf(g->body, "{ int f_; MPI_Iprobe(%s, %s, %s, &f_, MPI_STATUS_IGNORE); }\n", peer, tag, comm);
        break;
    case PSK_FNOP_IMPROBE: {
        /* where it found a message, improbe_ makes the MPI_Improbe find the
         * same one (see the runtime); where it did not, an MPI_Iprobe polls
         * without taking anything */
        char hs[400] = "", dn[64];
        gen_done_expr(g, id, dn, sizeof dn);
        if (strcmp(dn, "0"))
            gen_hidden_src_expr(g, id, hs, sizeof hs);
        if (snprintf(c1, sizeof c1, "improbe_(%s, %s, %s, %s);", peer, hs, tag, comm) >= (int)sizeof c1) {
            gen_fail(g, "node %d: an MPI_Improbe's arguments are longer than %zu bytes", id, sizeof c1 - 1);
            break;
        }
        snprintf(c2, sizeof c2, "{ int f_; MPI_Iprobe(%s, %s, %s, &f_, MPI_STATUS_IGNORE); } /* MPI_Improbe that "
                                "found nothing */", peer, tag, comm);
        emit_done(g, dn, c1, c2);
        break;
    }
    case PSK_FNOP_MRECV:
        fprintf(g->body, "MPI_Mrecv(rbuf_, %s, MPI_BYTE, msgtake_(), MPI_STATUS_IGNORE);\n", by);
        break;
    case PSK_FNOP_IMRECV:
        fprintf(g->body, "MPI_Imrecv(rbuf_, %s, MPI_BYTE, msgtake_(), %s);\n", by, req);
        break;
    /* persistent requests and their completion */
    case PSK_FNOP_SEND_INIT: case PSK_FNOP_RECV_INIT:
        fprintf(g->body, "%s(%s, %s, MPI_BYTE, %s, %s, %s, %s);\n",
                op == PSK_FNOP_RECV_INIT ? "MPI_Recv_init" : psk_fn_sync(fn) ? "MPI_Ssend_init" : "MPI_Send_init",
                op == PSK_FNOP_RECV_INIT ? "rbuf_" : "sbuf_", by, peer, tag, comm, req);
        break;
    case PSK_FNOP_START:
        fprintf(g->body, "MPI_Start(%s);\n", req);
        break;
    case PSK_FNOP_WAIT:
        fprintf(g->body, "MPI_Wait(&req_[slot_(%s)], MPI_STATUS_IGNORE);\n", r);
        break;
    case PSK_FNOP_TEST: { /* a Wait where it completed the request, per rank and execution */
        char dn[64];
        gen_done_expr(g, id, dn, sizeof dn);
        snprintf(c1, sizeof c1, "MPI_Wait(&req_[slot_(%s)], MPI_STATUS_IGNORE); /* MPI_Test that completed it */", r);
        snprintf(c2, sizeof c2, "{ int f_; MPI_Test(&req_[slot_(%s)], &f_, MPI_STATUS_IGNORE); }", r);
        emit_done(g, dn, c1, c2);
        break;
    }
    case PSK_FNOP_FREE:
        fprintf(g->body, "if (req_[slot_(%s)] != MPI_REQUEST_NULL) MPI_Request_free(&req_[slot_(%s)]);\n", r, r);
        break;
    case PSK_FNOP_CANCEL:
        fprintf(g->body, "if (req_[slot_(%s)] != MPI_REQUEST_NULL) MPI_Cancel(&req_[slot_(%s)]);\n", r, r);
        break;
    case PSK_FNOP_STARTALL: case PSK_FNOP_WAITALL: case PSK_FNOP_WAITANY: case PSK_FNOP_WAITSOME:
    case PSK_FNOP_TESTALL: case PSK_FNOP_TESTANY: case PSK_FNOP_TESTSOME:
        if (PSK_HAS(e, PSK_F_REQS))
            emit_reqs(g, id);
        else
            fprintf(g->body, "/* %s without its requests: nothing to replay */\n", name);
        break;
    /* collectives, by collective and form; each called by its own name */
    case PSK_FNOP_COLL: case PSK_FNOP_ICOLL:
        switch (cf) {
        case PSK_COLL_BARRIER * 4 + PSK_FORM_PLAIN:
            fprintf(g->body, "%s(%s%s%s);\n", name, comm, nbsep, nbreq);
            break;
        case PSK_COLL_BCAST * 4 + PSK_FORM_PLAIN:
            fprintf(g->body, "%s(rbuf_, %s, MPI_BYTE, %s, %s%s%s);\n", name, by, root, comm, nbsep, nbreq);
            break;
        case PSK_COLL_REDUCE * 4 + PSK_FORM_PLAIN: case PSK_COLL_ALLREDUCE * 4 + PSK_FORM_PLAIN:
        case PSK_COLL_SCAN * 4 + PSK_FORM_PLAIN: case PSK_COLL_SCAN * 4 + PSK_FORM_EX:
            fprintf(g->body, "{ int n_ = %s; %s(sbuf_, rbuf_, red_count_(n_, %lld, %lld), red_type_(%lld, %lld), "
                             "red_op_(%lld, %lld), %s%s%s%s%s); }\n",
                    by, name, dts, rop, dts, rop, dts, rop, PSK_HAS(e, PSK_F_ROOT) ? root : "",
                    PSK_HAS(e, PSK_F_ROOT) ? ", " : "", comm, nbsep, nbreq);
            break;
        case PSK_COLL_REDUCE_SCATTER * 4 + PSK_FORM_PLAIN:
            for (int j = 0; j < n->np; j++) { /* every rank sends one block per rank */
                const psk_event *x = &n->first[j];
                gen_bump(&g->max_sbytes,
                         x->v[PSK_F_RCOUNT] * (PSK_HAS(x, PSK_F_DTSIZE) ? x->v[PSK_F_DTSIZE] : 1) * g->P);
            }
            fprintf(g->body, "{ int n_ = %s; %s(sbuf_, rbuf_, red_count_(n_, %lld, %lld), red_type_(%lld, %lld), "
                             "red_op_(%lld, %lld), %s%s%s); }\n",
                    rby, name, dts, rop, dts, rop, dts, rop, comm, nbsep, nbreq);
            break;
        case PSK_COLL_REDUCE_SCATTER * 4 + PSK_FORM_V: {
            int w;
            char t[64];
            gen_array_table(g, id, PSK_F_RCOUNTS, PSK_F_DTSIZE, "rcounts", &w);
            gen_array_expr(g, id, "rcounts", t, sizeof t);
            fprintf(g->body, "{ int c_[%d]; for (int k_ = 0; k_ < %d; k_++) c_[k_] = red_count_(%s[rank_][k_], "
                             "%lld, %lld); %s(sbuf_, rbuf_, c_, red_type_(%lld, %lld), red_op_(%lld, %lld), "
                             "%s%s%s); }\n",
                    w, w, t, dts, rop, name, dts, rop, dts, rop, comm, nbsep, nbreq);
            break;
        }
        default: /* the data movers: gather, scatter, allgather, alltoall and their forms */
            emit_mover(g, id, comm, by, rby, root, req, tch_s, tch_r);
            break;
        }
        break;
    /* communicators: recreated with the recorded members */
    case PSK_FNOP_NEWCOMM: case PSK_FNOP_NEWCOMM_GROUP:
        if (PSK_HAS(e, PSK_F_NEWID))
            emit_newcomm(g, id, comm);
        else
            fprintf(g->body, "/* %s without its new communicator: nothing to replay */\n", name);
        break;
    case PSK_FNOP_COMM_FREE:
        fprintf(g->body, "MPI_Comm_free(&%s);\n", comm);
        gen_indent(g, d); /* comm is "comm_[id]": keep its rank and size in step */
        fprintf(g->body, "comm_set_(%lld);\n", (long long)e->v[PSK_F_COMM]);
        break;
    case PSK_FNOP_INTERCOMM: case PSK_FNOP_INTERCOMM_MERGE:
        gen_fail(g, "%s: intercommunicators are not supported by perfskel gen", name);
        break;
    case PSK_FNOP_NCOLL: /* on the grid emit_newcomm gave the communicator */
        emit_neighbor(g, id, comm, by, rby, req, tch_s, tch_r);
        break;
    case PSK_FNOP_PCONTROL:
        fprintf(g->body, "MPI_Pcontrol(%lld);\n", (long long)e->v[PSK_F_I1]);
        break;
    case -1: /* a run of polls, written above */
        break;
    default: /* groups (no communication), MPI_Init and the like */
        fprintf(g->body, "/* %s: nothing to replay */\n", name);
        break;
    }
    if (!nbk && *tch_s) {
        gen_indent(g, d);
        fprintf(g->body, "tch_(%s, %s, 1);\n", tch_s, tch_r);
    }
}

/* the grid node id (MPI_Cart_create or MPI_Cart_sub) makes, the same on
 * every rank that gets the communicator: 1 (in *out), 0 none known (the
 * trace does not tell it), -1 failed (ranks disagree) */
static int node_grid(gen *g, int32_t id, psk_cart *out)
{
    const gnode *n = &g->node[id];
    int have = 0;
    for (int j = 0; j < n->np; j++) {
        const psk_event *e = &n->first[j];
        int64_t nid = e->v[PSK_F_NEWID];
        psk_cart c;
        if (nid < 0)
            continue; /* not in the grid: MPI_COMM_NULL */
        if (e->fn == PSK_FN_Cart_create) {
            if (PSK_ARRN(e, PSK_F_PERIODS) != PSK_ARRN(e, PSK_F_DIMS) ||
                psk_cart_make(&c, PSK_ARRN(e, PSK_F_DIMS), PSK_ARR(e, PSK_F_DIMS), PSK_ARR(e, PSK_F_PERIODS),
                              PSK_ARRN(e, PSK_F_MEMBERS)))
                return 0;
        } else {
            const psk_cart *t = grid_of(g, n->ranks[j], nid);
            if (!t)
                return 0;
            c = *t;
        }
        if (have && memcmp(&c, out, sizeof c)) {
            gen_fail(g, "event %d (%s): its ranks make different grids; gen gives a call's communicators one", id,
                     psk_fn_name(e->fn));
            return -1;
        }
        *out = c, have = 1;
    }
    return have;
}

/* A new communicator: every taking part rank calls MPI_Comm_split on the
 * parent with one color per recorded member set (its lowest world rank)
 * and its place in it as the key, which recreates any communicator with
 * the recorded membership and order (dup, split, create, Cart_create,
 * Cart_sub); MPI_Comm_create_group, called by the members only, is
 * replayed with a group of the recorded members. MPI_Cart_create's and
 * MPI_Cart_sub's communicator then gets its grid (for the neighborhood
 * collectives): MPI_Cart_create on the split one, in the same order
 * (reorder 0), which is freed; a grid of no dimensions (MPI_Cart_sub
 * keeping none) as one of extent 1, not periodic: no neighbours either. */
static void emit_newcomm(gen *g, int32_t id, const char *parent)
{
    const gnode *n = &g->node[id];
    int64_t *color = malloc((size_t)n->np * sizeof *color), *key = malloc((size_t)n->np * sizeof *key),
            *newid = malloc((size_t)n->np * sizeof *newid);
    if (!color || !key || !newid) {
        free(color), free(key), free(newid);
        gen_oom(g);
        return;
    }
    for (int j = 0; j < n->np; j++) {
        const psk_event *e = &n->first[j];
        const int64_t *mem = PSK_ARR(e, PSK_F_MEMBERS);
        uint32_t nm = PSK_ARRN(e, PSK_F_MEMBERS);
        newid[j] = e->v[PSK_F_NEWID];
        color[j] = -1; /* MPI_UNDEFINED */
        key[j] = 0;
        for (uint32_t k = 0; k < nm && newid[j] >= 0; k++) {
            if (color[j] < 0 || mem[k] < color[j])
                color[j] = mem[k];
            if (mem[k] == n->ranks[j])
                key[j] = k;
        }
        gen_bump(&g->max_comm, newid[j]);
    }
    gen_emit_table(g, n, id, "color", color);
    gen_emit_table(g, n, id, "key", key);
    char c[64], k[64], nid[320];
    gen_table_name(c, sizeof c, id, "color");
    gen_table_name(k, sizeof k, id, "key");
    const psk_fparam *pn = gen_param_of(g, id, PSK_F_NEWID);
    if (pn) { /* a new id per iteration, as recorded */
        gen_param_expr(g, id, PSK_F_NEWID, "newid", nid, sizeof nid);
        gen_bump(&g->max_comm, pn->hi);
    } else {
        gen_emit_table(g, n, id, "newid", newid);
        snprintf(nid, sizeof nid, "T%d_newid[rank_]", id);
    }
    psk_cart cg;
    unsigned fn0 = n->first[0].fn;
    int grid = 0, cart = fn0 == PSK_FN_Cart_create || fn0 == PSK_FN_Cart_sub;
    if (psk_fn_op(n->first[0].fn) == PSK_FNOP_NEWCOMM_GROUP) {
        int w;
        gen_array_table(g, id, PSK_F_MEMBERS, -1, "members", &w);
        char mt[64];
        gen_table_name(mt, sizeof mt, id, "members");
        fprintf(g->body, "create_group_(%s, %s[rank_], %d, &comm_[cslot_(%s)]); comm_set_(cslot_(%s)); "
                         "/* %s */\n", parent, mt, (int)PSK_ARRN(&n->first[0], PSK_F_MEMBERS), nid, nid,
                psk_fn_name(n->first[0].fn));
    } else if (cart && (grid = node_grid(g, id, &cg)) > 0) {
        char d[16 * PSK_CART_MAXDIMS + 8] = "1", pe[4 * PSK_CART_MAXDIMS + 8] = "0";
        int nd = cg.ndims ? cg.ndims : 1;
        for (int x = 0, ld = 0, lp = 0; x < cg.ndims; x++) {
            ld += snprintf(d + ld, sizeof d - (size_t)ld, "%s%d", x ? ", " : "", cg.dims[x]);
            lp += snprintf(pe + lp, sizeof pe - (size_t)lp, "%s%d", x ? ", " : "", cg.periods[x]);
        }
        fprintf(g->body, "{ MPI_Comm t_; MPI_Comm_split(%s, color_(%s[rank_]), (int)%s[rank_], &t_); "
                         "if (t_ == MPI_COMM_NULL) { comm_[cslot_(%s)] = MPI_COMM_NULL; } else { int d_[%d] = {%s}, "
                         "p_[%d] = {%s}; MPI_Cart_create(t_, %d, d_, p_, 0, &comm_[cslot_(%s)]); MPI_Comm_free(&t_); } "
                         "} comm_set_(cslot_(%s)); /* %s, same members and grid */\n", parent, c, k, nid, nd, d, nd,
                pe, nd, nid, nid, psk_fn_name(n->first[0].fn));
    } else if (!grid) {
        fprintf(g->body, "MPI_Comm_split(%s, color_(%s[rank_]), (int)%s[rank_], &comm_[cslot_(%s)]); "
                         "comm_set_(cslot_(%s)); /* %s, same members */\n", parent, c, k, nid, nid,
                psk_fn_name(n->first[0].fn));
    }
    free(color), free(key), free(newid);
}

/* the mean compute gap before node n on its taking part rank j, in that
 * rank's work units (its shortest gap, the cost of recording, taken off;
 * of the rest, the share that was work) */
int64_t gen_gap_units(const gen *g, const gnode *n, int j)
{
    double ns = n->execs ? n->gap[j] / (double)n->execs : 0;
    ns -= g->min_gap[n->ranks[j]];
    return ns > 0 ? (int64_t)(ns * g->share[n->ranks[j]] / g->unit_ns[n->ranks[j]] + 0.5) : 0;
}

int64_t gen_poll_units(const gen *g, const gnode *n, int j)
{
    if (!n->pwork || !n->execs)
        return 0;
    /* each compute chunk between two polls also holds what one gap between
     * back-to-back calls costs (gen_gap_units) */
    double calls = n->pcalls[j] / (double)n->execs, ns = n->pwork[j] / (double)n->execs;
    ns -= g->min_gap[n->ranks[j]] * (calls > 1 ? calls - 1 : 0);
    return ns > 0 ? (int64_t)(ns * g->share[n->ranks[j]] / g->unit_ns[n->ranks[j]] + 0.5) : 0;
}

int64_t gen_poll_calls(const gnode *n, int j)
{
    return n->pcalls && n->execs ? (int64_t)(n->pcalls[j] / (double)n->execs + 0.5) : 1;
}

void gen_emit_sym(gen *g, int32_t id, int d, const char *loopvar)
{
    const gnode *n = &g->node[id];
    if (!n->seen || n->np == 0)
        return;
    unsigned fn = n->first[0].fn;
    char desc[512];
    psk_merged_class_desc(g->m, (uint32_t)psk_folded_node(g->f, id)->sym, desc, sizeof desc);
    gen_indent(g, d);
    fputs("/* ", g->body);
    gen_comment_text(g->body, desc);
    fputs(" */\n", g->body);
    if (psk_fn_op(fn) == PSK_FNOP_INIT || psk_fn_op(fn) == PSK_FNOP_ABORT)
        return;
    /* the compute gap before the call, in work units of each rank */
    int64_t *units = malloc((size_t)n->np * sizeof *units);
    if (!units) {
        gen_oom(g);
        return;
    }
    int same = 1;
    for (int j = 0; j < n->np; j++) {
        units[j] = gen_gap_units(g, n, j);
        same &= units[j] == units[0];
    }
    int guard = n->np < g->P;
    if (guard) {
        int64_t *in = malloc((size_t)n->np * sizeof *in);
        for (int j = 0; in && j < n->np; j++)
            in[j] = 1;
        if (in)
            gen_emit_table(g, n, id, "in", in);
        free(in);
        gen_indent(g, d);
        fprintf(g->body, "if (T%d_in[rank_]) {\n", id);
        d++;
    }
    /* where the rank is, for the report on SIGTERM */
    gen_indent(g, d);
    fprintf(g->body, "at_(%d, %d, %s, \"%s\");\n", id, loopvar ? atoi(loopvar + 1) : -1, loopvar ? loopvar : "0",
            psk_fn_name(fn));
    /* compute scaled (gen_plan.c): part of it runs, the rest is credited */
    double cf = gen_compute_factor(g, id);
    char cfs[48] = "";
    if (cf > 1)
        snprintf(cfs, sizeof cfs, ", %.6g)", cf);
    if (same) {
        if (units[0] > 0) {
            gen_indent(g, d);
            fprintf(g->body, "psk_work(%s%lldULL%s);\n", cf > 1 ? "cunits_(" : "", (long long)units[0], cfs);
        }
    } else {
        gen_emit_table(g, n, id, "work", units);
        gen_indent(g, d);
        fprintf(g->body, "psk_work(%s(uint64_t)T%d_work[rank_]%s);\n", cf > 1 ? "cunits_(" : "", id, cfs);
    }
    free(units);
    /* the call into memory first: whether it reads tables by execution
     * (counted) is known once it is written */
    char *call = NULL;
    size_t ncall = 0;
    FILE *body = g->body;
    int fin = psk_fn_op(fn) == PSK_FNOP_FINALIZE;
    if (!fin && (g->body = open_memstream(&call, &ncall))) {
        emit_call(g, id, d);
        fclose(g->body);
    } else if (!fin) {
        gen_oom(g);
    }
    g->body = body;
    if (g->node[id].counted) {
        /* tables by execution: which one this is, from the indices of the
         * loops around it (the original's, whichever iterations run) */
        int32_t chain[64];
        int D = gen_loops_around(g, id, chain);
        fprintf(g->tabs, "static long long T%d_k;\n", id);
        gen_indent(g, d);
        fprintf(g->body, "T%d_k = ", id);
        for (int k = 0; k < D - 1; k++)
            fputc('(', g->body);
        if (!D)
            fputs("0", g->body);
        for (int k = 0; k < D; k++) {
            if (k)
                fprintf(g->body, ") * %lldLL + ", (long long)psk_folded_node(g->f, chain[k])->count);
            fprintf(g->body, "(long long)i%d", chain[k]);
        }
        fprintf(g->body, ";\n");
    }
    if (call)
        fwrite(call, 1, ncall, g->body);
    free(call);
    if (guard) {
        gen_indent(g, d - 1);
        fprintf(g->body, "}\n");
    }
}

