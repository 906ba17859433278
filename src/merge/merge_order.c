/* Algorithm 1 of Zhang et al., "Parallel Job Performance Prediction Based
 * on the Case Reconstruction" (Journal of Software, 2010): normalising the
 * order of a rank's calls where ranks of one SPMD program differ only in
 * order, so that their sequences line up for merging. In a run of
 * consecutive blocking sends and receives on one communicator, the sends
 * go first (rank 0 of a ring sends then receives, the others receive then
 * send); an Irecv followed by blocking sends and then the Irecv's Wait
 * becomes Irecv, Wait, sends. Only the alignment uses this order: each
 * rank's real order is kept (perm). */
#include <stdlib.h>
#include <string.h>

#include "merge_internal.h"
#include "psk_varint.h"

static unsigned fn_at(const rstore *s, uint64_t i)
{
    const uint8_t *p = s->buf.p + s->off[i];
    uint64_t fn = 0;
    psk_get_uvar(&p, s->buf.p + s->buf.len, &fn);
    return (unsigned)fn;
}

/* a blocking send (Send, Bsend, Ssend, Rsend), and the other calls
 * reordered, by their op */
static int is_send(unsigned fn) { return psk_fn_op(fn) == PSK_FNOP_SEND; }
static int is_recv(unsigned fn) { return psk_fn_op(fn) == PSK_FNOP_RECV; }
static int is_irecv(unsigned fn) { return psk_fn_op(fn) == PSK_FNOP_IRECV; }
static int is_wait(unsigned fn) { return psk_fn_op(fn) == PSK_FNOP_WAIT; }

/* one scalar field of event i */
static int64_t field_at(const rstore *s, uint64_t i, int field, mevent_store *st)
{
    const uint8_t *p = s->buf.p + s->off[i];
    psk_event ev;
    int64_t gap;
    if (mevent_decode(&p, s->buf.p + s->buf.len, &ev, &gap, st) || !PSK_HAS(&ev, field))
        return INT64_MIN;
    return ev.v[field];
}

/* the communicator of event i: the first field after fn, gap and duration */
static int64_t comm_at(const rstore *s, uint64_t i)
{
    const uint8_t *p = s->buf.p + s->off[i], *end = s->buf.p + s->buf.len;
    uint64_t fn, dur;
    int64_t gap, comm;
    if (psk_get_uvar(&p, end, &fn) || psk_get_svar(&p, end, &gap) || psk_get_uvar(&p, end, &dur) ||
        !(psk_fn_fields((unsigned)fn) & (1u << PSK_F_COMM)) || psk_get_svar(&p, end, &comm))
        return INT64_MIN;
    return comm;
}

void merge_order(mctx *x, int r)
{
    rstore *s = &x->rs[r];
    if (s->n < 2)
        return;
    uint32_t *perm = malloc(s->n * sizeof *perm);
    unsigned *fn = malloc(s->n * sizeof *fn);
    mevent_store st = {0};
    if (!perm || !fn) { /* without memory the order stays as recorded */
        free(perm);
        free(fn);
        return;
    }
    for (uint64_t i = 0; i < s->n; i++) {
        perm[i] = (uint32_t)i;
        fn[i] = fn_at(s, i);
    }
    int moved = 0;
    /* Irecv(a), sends..., Wait(a) -> Irecv(a), Wait(a), sends... */
    for (uint64_t i = 0; i + 2 < s->n; i++) {
        if (!is_irecv(fn[perm[i]]) || !is_send(fn[perm[i + 1]]))
            continue;
        uint64_t j = i + 1;
        while (j < s->n && is_send(fn[perm[j]]))
            j++;
        if (j == s->n || !is_wait(fn[perm[j]]))
            continue;
        int64_t req = field_at(s, perm[i], PSK_F_REQ, &st);
        if (req < 0 || field_at(s, perm[j], PSK_F_REQ, &st) != req)
            continue;
        uint32_t w = perm[j];
        memmove(&perm[i + 2], &perm[i + 1], (j - i - 1) * sizeof *perm);
        perm[i + 1] = w;
        moved = 1;
        i = j;
    }
    /* runs of blocking sends and receives on one communicator: sends first */
    uint32_t *tmp = NULL;
    for (uint64_t i = 0; i < s->n;) {
        unsigned a = fn[perm[i]];
        if (!is_send(a) && !is_recv(a)) {
            i++;
            continue;
        }
        int64_t comm = comm_at(s, perm[i]);
        uint64_t j = i + 1, nsend = is_send(a);
        while (j < s->n && (is_send(fn[perm[j]]) || is_recv(fn[perm[j]])) &&
               comm_at(s, perm[j]) == comm) {
            nsend += is_send(fn[perm[j]]);
            j++;
        }
        uint64_t len = j - i;
        if (nsend && nsend < len) {
            if (!tmp && !(tmp = malloc(s->n * sizeof *tmp)))
                break;
            uint64_t k = 0;
            for (uint64_t q = i; q < j; q++)
                if (is_send(fn[perm[q]]))
                    tmp[k++] = perm[q];
            for (uint64_t q = i; q < j; q++)
                if (!is_send(fn[perm[q]]))
                    tmp[k++] = perm[q];
            for (uint64_t q = 0; q < len; q++)
                if (perm[i + q] != tmp[q]) {
                    perm[i + q] = tmp[q];
                    moved = 1;
                }
        }
        i = j;
    }
    free(tmp);
    free(fn);
    mevent_store_free(&st);
    if (moved)
        s->perm = perm;
    else
        free(perm);
}
