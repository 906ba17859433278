/* perfskel tune: the collectives the tuning library (libperfskel-tune-*.so,
 * src/tune/) takes over and the algorithms ("arms") it chooses among,
 * shared by the library and the CLI (perfskel tune --force ARM). The order
 * is the arms' numbering inside the library; native, the MPI library's own
 * call, is arm 0 of every collective, and every other arm belongs to one
 * collective (its name says which, but for MPI_Alltoall's, named first).
 * The order is on disk too (trace format 2 records 1 + the arm's number,
 * docs/trace-format.md) and in decision files by name: add arms at the end.
 * pair, ring and their barrier variants are those studied for MPI_Alltoall
 * on fat-tree clusters shared by several jobs. */
#ifndef PERFSKEL_TUNE_H
#define PERFSKEL_TUNE_H

/* the collectives taken over, X(name) */
#define PSK_TUNE_COLL_LIST(X) X(alltoall) X(bcast) X(allreduce) X(allgather)

enum psk_tune_coll {
#define PSK_TUNE_COLL_ENUM(name) PSK_TUNE_C_##name,
    PSK_TUNE_COLL_LIST(PSK_TUNE_COLL_ENUM)
#undef PSK_TUNE_COLL_ENUM
    PSK_TUNE_NCOLL
};

/* X(name, needs a power-of-two communicator size, collective); native's
 * collective is -1: every one's */
#define PSK_TUNE_ARM_LIST(X)                                                                   \
    X(native, 0, -1)          /* the MPI library's own call */                                 \
    X(spread, 0, alltoall)    /* every Irecv and Isend posted at once, then Waitall */         \
    X(pair, 1, alltoall)      /* P steps, step i with rank XOR i */                            \
    X(ring, 0, alltoall)      /* P steps, step i to rank + i, from rank - i */                 \
    X(bruck, 0, alltoall)     /* ceil(log2 P) steps of packed blocks */                        \
    X(pair_lb, 1, alltoall)   /* pair, 1-byte handshake with the next step's partner */        \
    X(ring_lb, 0, alltoall)   /* ring, the same */                                             \
    X(pair_mb, 1, alltoall)   /* pair, MPI_Barrier before every step */                        \
    X(ring_mb, 0, alltoall)   /* ring, the same */                                             \
    X(pair_ob, 1, alltoall)   /* pair, one MPI_Barrier before the loop */                      \
    X(ring_ob, 0, alltoall)   /* ring, the same */                                             \
    X(bc_binomial, 0, bcast)  /* binomial tree from the root */                                \
    X(bc_scatter_ring, 0, bcast) /* binomial scatter, ring allgather (van de Geijn) */         \
    X(ar_recdbl, 0, allreduce)   /* recursive doubling, the whole vector each step */          \
    X(ar_ring, 0, allreduce)     /* ring reduce-scatter, then ring allgather */                \
    X(ar_rabenseifner, 0, allreduce) /* recursive halving reduce-scatter, doubling allgather */ \
    X(ag_ring, 0, allgather)     /* P - 1 steps, each block passed on to rank + 1 */           \
    X(ag_recdbl, 0, allgather)   /* recursive doubling: log2 P exchanges of growing halves */  \
    X(ag_bruck, 0, allgather)    /* ceil(log2 P) steps of packed blocks, then a rotation */

enum psk_tune_arm {
#define PSK_TUNE_ARM_ENUM(name, pow2, coll) PSK_TUNE_##name,
    PSK_TUNE_ARM_LIST(PSK_TUNE_ARM_ENUM)
#undef PSK_TUNE_ARM_ENUM
    PSK_TUNE_NARMS
};

/* PSK_TUNE_FORCE=cycle: each call on a communicator takes the next arm
 * valid there (a check that every arm gives the native result) */
#define PSK_TUNE_CYCLE_NAME "cycle"

#endif
