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

/* "?" outside the lists */
const char *psk_coll_name(int coll);
const char *psk_alg_name(int alg);
/* whether a machine file may choose alg for coll (default always) */
int psk_coll_has_alg(int coll, int alg);

#endif
