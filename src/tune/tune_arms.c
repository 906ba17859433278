/* The arms of every collective the tuning library takes over: when an
 * arm applies (which collective it belongs to: tune_names.c), and the
 * dispatch of a call's preparation, arm and native call to the
 * collective's own file (tune_alltoall.c, tune_bcast.c,
 * tune_allreduce.c, tune_allgather.c). Validity depends only on what every
 * rank of the communicator shares (collective, P, bytes, in place), so
 * that all ranks take the same arm. */
#include <limits.h>
#include <string.h>

#include "tune_internal.h"

static const unsigned char arm_pow2[PSK_TUNE_NARMS] = {
#define POW2(name, pow2, ...) pow2,
    PSK_TUNE_ARM_LIST(POW2)
#undef POW2
};

int psk_tune_arm_valid(int coll, int arm, int P, size_t bytes, int inplace)
{
    if (arm < 0 || arm >= PSK_TUNE_NARMS || P < 1)
        return 0;
    if (arm == PSK_TUNE_native)
        return 1;
    if (psk_tune_arm_coll(arm) != coll)
        return 0;
    if (coll == PSK_TUNE_C_alltoall)
        return psk_tune_a2a_valid(arm, P, bytes, inplace);
    if (arm_pow2[arm] && (P & (P - 1)))
        return 0;
    /* 0 bytes go native; counts of bytes and of P blocks are ints */
    return bytes > 0 && bytes <= (size_t)INT_MAX / (size_t)P;
}

int psk_tune_args_prepare(psk_tune_args *a)
{
    a->bytes = 0, a->inplace = 0, a->contig = 0, a->sext = a->rext = 0;
    switch (a->coll) {
    case PSK_TUNE_C_alltoall: return psk_tune_a2a_prepare(a);
    case PSK_TUNE_C_bcast: return psk_tune_bc_prepare(a);
    case PSK_TUNE_C_allreduce: return psk_tune_ar_prepare(a);
    case PSK_TUNE_C_allgather: return psk_tune_ag_prepare(a);
    }
    return -1;
}

int psk_tune_arm_run(int arm, psk_tune_comm *c, const psk_tune_args *a)
{
    switch (a->coll) {
    case PSK_TUNE_C_alltoall: return psk_tune_a2a_run(arm, c, a);
    case PSK_TUNE_C_bcast: return psk_tune_bc_run(arm, c, a);
    case PSK_TUNE_C_allreduce: return psk_tune_ar_run(arm, c, a);
    case PSK_TUNE_C_allgather: return psk_tune_ag_run(arm, c, a);
    }
    return PSK_TUNE_FALLBACK;
}

int psk_tune_native(const psk_tune_args *a)
{
    switch (a->coll) {
    case PSK_TUNE_C_alltoall:
        return PMPI_Alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm);
    case PSK_TUNE_C_bcast: return PMPI_Bcast(a->rbuf, a->rcount, a->rtype, a->root, a->comm);
    case PSK_TUNE_C_allreduce: return PMPI_Allreduce(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm);
    case PSK_TUNE_C_allgather:
        return PMPI_Allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm);
    }
    return MPI_ERR_OTHER;
}

/* ---- test entry points ---- */

int psk_tune_args_arm(int arm, psk_tune_args *a)
{
    int inter = 1, P = 0;
    if (!psk_tune_on() || a->comm == MPI_COMM_NULL || PMPI_Comm_test_inter(a->comm, &inter) != MPI_SUCCESS ||
        inter || PMPI_Comm_size(a->comm, &P) != MPI_SUCCESS || psk_tune_args_prepare(a) ||
        !psk_tune_arm_valid(a->coll, arm, P, a->bytes, a->inplace))
        return PSK_TUNE_SKIP;
    if (arm == PSK_TUNE_native)
        return psk_tune_native(a);
    return psk_tune_arm_run(arm, psk_tune_comm_get(a->comm), a);
}

int psk_tune_alltoall_arm(int arm, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, MPI_Comm comm)
{
    psk_tune_args a = {.coll = PSK_TUNE_C_alltoall, .sbuf = sbuf, .scount = scount, .stype = stype, .rbuf = rbuf,
                       .rcount = rcount, .rtype = rtype, .comm = comm};
    return psk_tune_args_arm(arm, &a);
}

int psk_tune_bcast_arm(int arm, void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    psk_tune_args a = {.coll = PSK_TUNE_C_bcast, .rbuf = buf, .rcount = count, .rtype = type, .root = root,
                       .comm = comm};
    return psk_tune_args_arm(arm, &a);
}

int psk_tune_allreduce_arm(int arm, const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                           MPI_Comm comm)
{
    psk_tune_args a = {.coll = PSK_TUNE_C_allreduce, .sbuf = sbuf, .rbuf = rbuf, .rcount = count, .rtype = type,
                       .op = op, .comm = comm};
    return psk_tune_args_arm(arm, &a);
}

int psk_tune_allgather_arm(int arm, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm)
{
    psk_tune_args a = {.coll = PSK_TUNE_C_allgather, .sbuf = sbuf, .scount = scount, .stype = stype, .rbuf = rbuf,
                       .rcount = rcount, .rtype = rtype, .comm = comm};
    return psk_tune_args_arm(arm, &a);
}
