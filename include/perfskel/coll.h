/* The collectives perfskel models with a choice of algorithm, and those
 * algorithms: one list each, which every stage numbers and names from (the
 * machine file's `algorithm` keys, sim's replay and closed forms, the
 * tuning library's cost model). The algorithms a machine file may choose
 * come first (PSK_ALG_N of them); the tuning library's own arms that have
 * a cost formula follow, so a machine file never names them. */
#ifndef PERFSKEL_COLL_H
#define PERFSKEL_COLL_H

/* X(ENUM, name as the machine file writes it) */
#define PSK_ALG_LIST(X)                                                                \
    X(DEFAULT, "default") X(LINEAR, "linear") X(BINOMIAL, "binomial")                  \
    X(RECDOUBLING, "recursive doubling") X(RING, "ring") X(RABENSEIFNER, "rabenseifner") \
    X(PAIRWISE, "pairwise") X(BRUCK, "bruck")

enum psk_alg {
#define PSK_ALG_ENUM(e, name) PSK_ALG_##e,
    PSK_ALG_LIST(PSK_ALG_ENUM)
#undef PSK_ALG_ENUM
    PSK_ALG_N,
    /* alltoall: every receive and send posted at once, one wait */
    PSK_ALG_SPREAD = PSK_ALG_N,
    /* bcast: binomial scatter of P pieces, ring allgather (van de Geijn) */
    PSK_ALG_SCATTER_RING,
    PSK_ALG_NCOST
};

/* X(ENUM, name, the algorithms it has besides default (PSK_ALGS(...))) */
#define PSK_ALGS2(a, b) ((1u << PSK_ALG_##a) | (1u << PSK_ALG_##b))
#define PSK_ALGS3(a, b, c) (PSK_ALGS2(a, b) | (1u << PSK_ALG_##c))
#define PSK_ALGS4(a, b, c, d) (PSK_ALGS3(a, b, c) | (1u << PSK_ALG_##d))
#define PSK_ALGS5(a, b, c, d, e) (PSK_ALGS4(a, b, c, d) | (1u << PSK_ALG_##e))
#define PSK_COLL_LIST(X)                                                                         \
    X(BARRIER, "barrier", PSK_ALGS4(LINEAR, BINOMIAL, RECDOUBLING, BRUCK))                      \
    X(BCAST, "bcast", PSK_ALGS2(LINEAR, BINOMIAL))                                               \
    X(REDUCE, "reduce", PSK_ALGS2(LINEAR, BINOMIAL))                                             \
    X(ALLREDUCE, "allreduce", PSK_ALGS5(LINEAR, BINOMIAL, RECDOUBLING, RING, RABENSEIFNER))     \
    X(GATHER, "gather", PSK_ALGS2(LINEAR, BINOMIAL))                                             \
    X(SCATTER, "scatter", PSK_ALGS2(LINEAR, BINOMIAL))                                           \
    X(ALLGATHER, "allgather", PSK_ALGS4(LINEAR, RING, RECDOUBLING, BRUCK))                       \
    X(ALLTOALL, "alltoall", PSK_ALGS3(LINEAR, PAIRWISE, BRUCK))                                  \
    X(REDUCE_SCATTER, "reduce scatter", PSK_ALGS4(LINEAR, RING, RECDOUBLING, PAIRWISE))          \
    X(SCAN, "scan", PSK_ALGS2(LINEAR, RECDOUBLING))

enum psk_coll {
#define PSK_COLL_ENUM(e, name, algs) PSK_COLL_##e,
    PSK_COLL_LIST(PSK_COLL_ENUM)
#undef PSK_COLL_ENUM
    PSK_COLL_N
};

/* ---- the tuning library's collectives and arms ----
 * The collectives libperfskel-tune takes over and the algorithms ("arms")
 * it chooses among for each. The order is the arms' numbering inside the
 * library; native, the MPI library's own call, is arm 0 of every
 * collective, and every other arm belongs to one collective (its name says
 * which, but for MPI_Alltoall's, named first). The order is on disk too
 * (a trace records 1 + the arm's number, docs/trace-format.md) and in
 * decision files by name: add arms at the end. pair, ring and their
 * barrier variants are those studied for MPI_Alltoall on fat-tree clusters
 * shared by several jobs. */

/* the collectives taken over: X(name, its PSK_COLL_ id, the MPI function) */
#define PSK_TUNE_COLL_LIST(X) \
    X(alltoall, ALLTOALL, MPI_Alltoall) X(bcast, BCAST, MPI_Bcast) X(allreduce, ALLREDUCE, MPI_Allreduce) \
    X(allgather, ALLGATHER, MPI_Allgather)

enum psk_tune_coll {
#define PSK_TUNE_COLL_ENUM(name, ...) PSK_TUNE_C_##name,
    PSK_TUNE_COLL_LIST(PSK_TUNE_COLL_ENUM)
#undef PSK_TUNE_COLL_ENUM
    PSK_TUNE_NCOLL
};

/* X(name, needs a power-of-two communicator size, collective (enum
 * psk_tune_coll; native's is -1: every one's), the algorithm the cost
 * formulas take it for (PSK_ALG_...), synchronisation between its steps
 * (src/common/psk_collcost.h, PSK_CC_SYNC_...)). An X-macro takes what it
 * needs and ends in `...`, so that a column can be added. */
#define PSK_TUNE_ARM_LIST(X) \
    X(native, 0, -1, DEFAULT, NONE)                                 /* the MPI library's own call */                  \
    X(spread, 0, PSK_TUNE_C_alltoall, SPREAD, NONE)                 /* all Irecvs and Isends posted, one Waitall */   \
    X(pair, 1, PSK_TUNE_C_alltoall, PAIRWISE, NONE)                 /* P steps, step i with rank XOR i */             \
    X(ring, 0, PSK_TUNE_C_alltoall, RING, NONE)                     /* step i to rank + i, from rank - i */           \
    X(bruck, 0, PSK_TUNE_C_alltoall, BRUCK, NONE)                   /* ceil(log2 P) steps of packed blocks */         \
    X(pair_lb, 1, PSK_TUNE_C_alltoall, PAIRWISE, LB)                /* pair, 1-byte handshake with the next partner */ \
    X(ring_lb, 0, PSK_TUNE_C_alltoall, RING, LB)                    /* ring, the same */                              \
    X(pair_mb, 1, PSK_TUNE_C_alltoall, PAIRWISE, MB)                /* pair, MPI_Barrier before every step */         \
    X(ring_mb, 0, PSK_TUNE_C_alltoall, RING, MB)                    /* ring, the same */                              \
    X(pair_ob, 1, PSK_TUNE_C_alltoall, PAIRWISE, OB)                /* pair, one MPI_Barrier before the loop */       \
    X(ring_ob, 0, PSK_TUNE_C_alltoall, RING, OB)                    /* ring, the same */                              \
    X(bc_binomial, 0, PSK_TUNE_C_bcast, BINOMIAL, NONE)             /* binomial tree from the root */                 \
    X(bc_scatter_ring, 0, PSK_TUNE_C_bcast, SCATTER_RING, NONE)     /* scatter, ring allgather (van de Geijn) */      \
    X(ar_recdbl, 0, PSK_TUNE_C_allreduce, RECDOUBLING, NONE)        /* recursive doubling, whole vector a step */     \
    X(ar_ring, 0, PSK_TUNE_C_allreduce, RING, NONE)                 /* ring reduce-scatter, ring allgather */         \
    X(ar_rabenseifner, 0, PSK_TUNE_C_allreduce, RABENSEIFNER, NONE) /* halving reduce-scatter, doubling allgather */  \
    X(ag_ring, 0, PSK_TUNE_C_allgather, RING, NONE)                 /* P - 1 steps, blocks passed on to rank + 1 */   \
    X(ag_recdbl, 0, PSK_TUNE_C_allgather, RECDOUBLING, NONE)        /* log2 P exchanges of growing halves */          \
    X(ag_bruck, 0, PSK_TUNE_C_allgather, BRUCK, NONE)               /* log2 P steps of packed blocks, a rotation */

enum psk_tune_arm {
#define PSK_TUNE_ARM_ENUM(name, ...) PSK_TUNE_##name,
    PSK_TUNE_ARM_LIST(PSK_TUNE_ARM_ENUM)
#undef PSK_TUNE_ARM_ENUM
    PSK_TUNE_NARMS
};

/* "?" outside the lists */
const char *psk_coll_name(int coll);
const char *psk_alg_name(int alg);
/* whether a machine file may choose alg for coll (default always) */
int psk_coll_has_alg(int coll, int alg);

#endif
