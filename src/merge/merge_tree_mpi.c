/* The merge tree over MPI (merge_tree_mpi.h): parts up a binomial tree.
 * A process sends once, to me - mask, after absorbing its children
 * me + mask for each smaller mask; a part travels as a head (status and
 * length) and its bytes in messages of at most 1 GiB (counts are ints);
 * an error travels instead of the part, as its message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge_tree_mpi.h"

#ifdef PSK_MTREE_PMPI /* inside the recorder: its own calls not recorded */
#define MT(fn) PMPI_##fn
#else
#define MT(fn) MPI_##fn
#endif

#define CHUNK (1 << 30)

/* status (0, or an error whose message is the payload) and payload to `to` */
static void send_part(const psk_mtree *t, int to, int64_t status, const uint8_t *p, size_t len)
{
    int64_t head[2] = {status, (int64_t)len};
    MPI_Request rq;
    MT(Isend)(head, 2, MPI_INT64_T, to, t->tag_head, t->comm, &rq);
    t->wait(&rq);
    for (size_t done = 0; done < len;) {
        size_t n = len - done > CHUNK ? CHUNK : len - done;
        MT(Isend)((void *)(p + done), (int)n, MPI_BYTE, to, t->tag_data, t->comm, &rq);
        t->wait(&rq);
        done += n;
    }
}

/* the status and payload `from` sends (*len bytes, NUL-terminated; free()
 * it), or NULL out of memory (the bytes received all the same, in pieces
 * of a scrap buffer, and dropped) */
static uint8_t *recv_part(const psk_mtree *t, int from, int64_t *status, size_t *len)
{
    int64_t head[2];
    MPI_Request rq;
    MT(Irecv)(head, 2, MPI_INT64_T, from, t->tag_head, t->comm, &rq);
    t->wait(&rq);
    *status = head[0];
    *len = (size_t)head[1];
    uint8_t *p = malloc(*len + 1);
    static uint8_t scrap[1 << 16];
    for (size_t done = 0; done < *len;) {
        size_t n = *len - done > CHUNK ? CHUNK : *len - done;
        if (!p)
            n = n > sizeof scrap ? sizeof scrap : n;
        MT(Irecv)(p ? p + done : scrap, (int)n, MPI_BYTE, from, t->tag_data, t->comm, &rq);
        t->wait(&rq);
        done += n;
    }
    if (p)
        p[*len] = 0;
    return p;
}

int64_t psk_mtree_gather(const psk_mtree *t, psk_merge_part *part, int64_t st, char *err, size_t cap)
{
    for (int mask = 1; mask < t->np; mask <<= 1) {
        if (t->me & mask) {
            uint8_t *buf = NULL;
            size_t len = 0;
            if (!st && (st = psk_merge_part_pack(part, &buf, &len)))
                snprintf(err, cap, "%sout of memory", t->who);
            if (st)
                send_part(t, t->me - mask, st, (const uint8_t *)err, strlen(err));
            else
                send_part(t, t->me - mask, 0, buf, len);
            free(buf);
            break;
        }
        if (t->me + mask >= t->np)
            continue;
        int64_t cst;
        size_t len;
        uint8_t *buf = recv_part(t, t->me + mask, &cst, &len);
        if (!buf && !st)
            st = PSK_ENOMEM, snprintf(err, cap, "%sout of memory", t->who);
        else if (cst && !st) /* the first error up the tree wins */
            st = cst, snprintf(err, cap, "%s", (const char *)buf);
        else if (!st && (st = psk_merge_part_absorb(part, buf, len)))
            snprintf(err, cap, "%s", psk_merge_part_errmsg(part));
        free(buf);
    }
    return st;
}
