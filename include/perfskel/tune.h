/* perfskel tune: the names of the MPI_Alltoall algorithms ("arms") the
 * tuning library (libperfskel-tune-*.so, src/tune/) chooses among, shared
 * by the library and the CLI (perfskel tune --force ARM). The order is the
 * arms' numbering inside the library; native, the MPI library's own call,
 * is always arm 0. Seed 002 names pair, ring and their barrier variants. */
#ifndef PERFSKEL_TUNE_H
#define PERFSKEL_TUNE_H

/* X(name, needs a power-of-two communicator size) */
#define PSK_TUNE_ARM_LIST(X)                                                  \
    X(native, 0)  /* PMPI_Alltoall itself */                                  \
    X(spread, 0)  /* every Irecv and Isend posted at once, then Waitall */    \
    X(pair, 1)    /* P steps, step i with rank XOR i */                       \
    X(ring, 0)    /* P steps, step i to rank + i, from rank - i */            \
    X(bruck, 0)   /* ceil(log2 P) steps of packed blocks */                   \
    X(pair_lb, 1) /* pair, 1-byte handshake with the next step's partner */   \
    X(ring_lb, 0) /* ring, the same */                                        \
    X(pair_mb, 1) /* pair, MPI_Barrier before every step */                   \
    X(ring_mb, 0) /* ring, the same */                                        \
    X(pair_ob, 1) /* pair, one MPI_Barrier before the loop */                 \
    X(ring_ob, 0) /* ring, the same */

enum psk_tune_arm {
#define PSK_TUNE_ARM_ENUM(name, pow2) PSK_TUNE_##name,
    PSK_TUNE_ARM_LIST(PSK_TUNE_ARM_ENUM)
#undef PSK_TUNE_ARM_ENUM
    PSK_TUNE_NARMS
};

/* PSK_TUNE_FORCE=cycle: each call on a communicator takes the next arm
 * valid there (a check that every arm gives the native result) */
#define PSK_TUNE_CYCLE_NAME "cycle"

#endif
