/* The MPI_Bcast arms: a binomial tree from the root (ceil(log2 P) rounds,
 * the whole buffer each), and van de Geijn's scatter + ring allgather (a
 * binomial scatter of P pieces, then P - 1 ring steps; Thakur, Rabenseifner,
 * Gropp, IJHPCA 2005). The tree sends the user's datatype as it is; the
 * scatter cuts bytes, so a buffer that is not its bytes as they are (a
 * derived type, MPI_BOTTOM) is packed at the root into the communicator's
 * scratch and unpacked by the others. The root's buffer is only read. All
 * traffic goes over the communicator's private duplicate. */
#include <limits.h>

#include "tune_internal.h"

enum { TAG_BCAST = 11 };

int psk_tune_bc_prepare(psk_tune_args *a)
{
    int size = 0, P = 0, packed = 0;
    MPI_Aint lb;
    if (a->rcount < 0 || a->rtype == MPI_DATATYPE_NULL || PMPI_Comm_size(a->comm, &P) != MPI_SUCCESS ||
        a->root < 0 || a->root >= P || PMPI_Type_size(a->rtype, &size) != MPI_SUCCESS || size < 0 ||
        PMPI_Type_get_extent(a->rtype, &lb, &a->rext) != MPI_SUCCESS)
        return -1;
    a->bytes = (size_t)a->rcount * (size_t)size;
    a->contig = a->rbuf != MPI_BOTTOM && psk_tune_contig(a->rtype);
    /* packed, it must be exactly its bytes (beyond INT_MAX no arm runs) */
    if (a->bytes <= (size_t)INT_MAX &&
        (PMPI_Pack_size(a->rcount, a->rtype, a->comm, &packed) != MPI_SUCCESS || (size_t)packed != a->bytes))
        return -1;
    return 0;
}

static int binomial(psk_tune_comm *c, const psk_tune_args *a)
{
    int P = c->size, vr = (c->rank - a->root + P) % P, mask = 1, rc = MPI_SUCCESS;
    /* from the parent: vr less its lowest set bit */
    for (; mask < P; mask <<= 1)
        if (vr & mask) {
            rc = PMPI_Recv(a->rbuf, a->rcount, a->rtype, (vr - mask + a->root) % P, TAG_BCAST, c->priv,
                           MPI_STATUS_IGNORE);
            break;
        }
    /* to the children: vr plus each lower bit */
    for (mask >>= 1; mask > 0 && rc == MPI_SUCCESS; mask >>= 1)
        if (vr + mask < P)
            rc = PMPI_Send(a->rbuf, a->rcount, a->rtype, (vr + mask + a->root) % P, TAG_BCAST, c->priv);
    return rc;
}

/* Relative rank v holds piece v of the bytes (psk_tune_piece) after the
 * scatter; a subtree of ranks [v, v + span) gets the pieces of its ranks */
static int scatter_ring(psk_tune_comm *c, const psk_tune_args *a)
{
    int P = c->size, me = c->rank, vr = (me - a->root + P) % P, rc = MPI_SUCCESS;
    size_t n = a->bytes;
    /* every rank asks, whatever its type: the scratch is collective */
    char *tmp = psk_tune_comm_scratch(c, n);
    if (!tmp)
        return PSK_TUNE_FALLBACK;
    char *data = a->contig ? (char *)a->rbuf : tmp; /* what is sent */
    char *land = data;                               /* where pieces arrive */
    if (vr == 0) {
        if (!a->contig) {
            int pos = 0;
            if ((rc = psk_tune_pack(1, (uintptr_t)a->rbuf, a->rcount, a->rtype, tmp, (int)n, &pos, c->priv)) !=
                MPI_SUCCESS)
                return rc;
        } else
            land = tmp; /* the root's buffer is never written */
    }
#define OFF(i) psk_tune_piece(n, P, (i) < P ? (i) : P)
#define REAL(v) (((v) + a->root) % P)
    int mask = 1;
    for (; mask < P; mask <<= 1)
        if (vr & mask) {
            size_t lo = OFF(vr), hi = OFF(vr + mask);
            rc = PMPI_Recv(land + lo, (int)(hi - lo), MPI_BYTE, REAL(vr - mask), TAG_BCAST, c->priv,
                           MPI_STATUS_IGNORE);
            break;
        }
    for (mask >>= 1; mask > 0 && rc == MPI_SUCCESS; mask >>= 1)
        if (vr + mask < P) {
            size_t lo = OFF(vr + mask), hi = OFF(vr + 2 * mask);
            rc = PMPI_Send(data + lo, (int)(hi - lo), MPI_BYTE, REAL(vr + mask), TAG_BCAST, c->priv);
        }
    /* the ring: step s passes piece vr - s on, gets piece vr - s - 1 */
    int right = (me + 1) % P, left = (me - 1 + P) % P;
    for (int s = 0; s < P - 1 && rc == MPI_SUCCESS; s++) {
        int sp = ((vr - s) % P + P) % P, rp = ((vr - s - 1) % P + P) % P;
        rc = PMPI_Sendrecv(data + OFF(sp), (int)(OFF(sp + 1) - OFF(sp)), MPI_BYTE, right, TAG_BCAST,
                           land + OFF(rp), (int)(OFF(rp + 1) - OFF(rp)), MPI_BYTE, left, TAG_BCAST, c->priv,
                           MPI_STATUS_IGNORE);
    }
#undef OFF
#undef REAL
    if (rc == MPI_SUCCESS && vr != 0 && !a->contig) {
        int pos = 0;
        rc = psk_tune_pack(0, (uintptr_t)a->rbuf, a->rcount, a->rtype, tmp, (int)n, &pos, c->priv);
    }
    return rc;
}

int psk_tune_bc_run(int arm, psk_tune_comm *c, const psk_tune_args *a)
{
    if ((!c || !c->ready) && psk_tune_comm_setup(c, a->comm))
        return PSK_TUNE_FALLBACK;
    switch (arm) {
    case PSK_TUNE_bc_binomial: return binomial(c, a);
    case PSK_TUNE_bc_scatter_ring: return scatter_ring(c, a);
    default: return PSK_TUNE_FALLBACK; /* not reached: arms are checked */
    }
}
